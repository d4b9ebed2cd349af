"""pytest glue for TypedMemEval (being written)."""
