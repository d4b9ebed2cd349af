"""Aggregation into typed vectors and rendering (terminal, JSON)."""
