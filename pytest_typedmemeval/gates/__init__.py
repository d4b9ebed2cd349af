"""Certification gates: pure functions of corpus bytes (GATES.md). No pytest, no runner."""
