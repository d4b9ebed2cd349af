"""Outcomes and judges. The mechanical judge is the default; an LLM judge plugs in beside it later."""
