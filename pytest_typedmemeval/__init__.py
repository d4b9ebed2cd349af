"""TypedMemEval as a pytest plugin."""
