"""Shipped TypedMemEval corpora (package data; one JSON file and one sidecar per corpus)."""
