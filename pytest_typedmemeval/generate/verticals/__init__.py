"""Revision-2 vertical declarations over :mod:`..engine` (one module per vertical)."""
