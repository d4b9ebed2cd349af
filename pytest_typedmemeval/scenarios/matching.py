"""Normalisation and token-bounded matching for the scenario benchmark (VERTICALS.md §6.4).

Nothing here is judged by a model: text is NFKC-normalised, case-folded, whitespace-squeezed and
stripped of trailing sentence punctuation, and a needle matches a haystack only on token
boundaries, so "Portland" never matches inside "Portlandia".
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_WHITESPACE = re.compile(r"\s+")
_TRAILING = re.compile(r"[\s.!?…;:,]+$")
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


@lru_cache(maxsize=65536)
def normalise(text: str) -> str:
    """Case-fold, squeeze whitespace, drop trailing sentence punctuation (and unify quotes)."""
    folded = unicodedata.normalize("NFKC", text).translate(_QUOTES).casefold()
    return _TRAILING.sub("", _WHITESPACE.sub(" ", folded).strip())


@lru_cache(maxsize=65536)
def _bounded(needle: str) -> re.Pattern[str]:
    return re.compile(r"(?<![a-z0-9])" + re.escape(needle) + r"(?![a-z0-9])")


def contains(haystack: str, needle: str) -> bool:
    """Whether normalised ``needle`` occurs in normalised ``haystack`` on token boundaries."""
    small = normalise(needle)
    return bool(small) and _bounded(small).search(normalise(haystack)) is not None


def contains_any(haystack: str, needles: tuple[str, ...] | list[str]) -> bool:
    return any(contains(haystack, needle) for needle in needles)


def overlaps(first: str, second: str) -> bool:
    """Either text contains the other: a forbidden statement overlaps a protected fragment."""
    return contains(first, second) or contains(second, first)
