"""Generators: one template machinery and one module per vertical (later issue)."""
