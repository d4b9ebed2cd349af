"""Generators: one gold-blind template machinery and one module per vertical (``generate/<vertical>.py``)."""
