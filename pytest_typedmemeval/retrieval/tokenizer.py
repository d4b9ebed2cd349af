"""The reference tokenizer: lowercase, split on non-alphanumerics, drop a fixed stopword list.

The stopword list is a code constant because the calibration gate, the generators' calibration
search and the reference agent must all tokenize identically; a corpus certified under one list is
not certified under another.
"""

from __future__ import annotations

import re

TOKEN_PATTERN = re.compile(r"[a-z0-9]+")

STOPWORDS: frozenset[str] = frozenset(
    """
    a about above after again against all am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have
    having he her here hers herself him himself his how i if in into is it its itself just me more most
    my myself no nor not of off on once only or other our ours ourselves out over own same she should so
    some such than that the their theirs them themselves then there these they this those through to too
    under until up very was we were what when where which while who whom why will with would you your
    yours yourself yourselves s t d ll m re ve
    """.split()
)


def raw_tokens(text: str) -> list[str]:
    """Lowercased alphanumeric runs, stopwords kept (V7 phrases are built on these)."""
    return TOKEN_PATTERN.findall(text.lower())


def tokenize(text: str) -> list[str]:
    """Reference BM25 tokens: :func:`raw_tokens` without :data:`STOPWORDS`."""
    return [token for token in raw_tokens(text) if token not in STOPWORDS]
