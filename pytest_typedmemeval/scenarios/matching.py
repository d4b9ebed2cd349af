"""Normalisation and token-bounded matching for the scenario benchmark (VERTICALS.md §6.4).

Nothing here is judged by a model: text is NFKC-normalised, case-folded, whitespace-squeezed and
stripped of trailing sentence punctuation, and a needle matches a haystack only on token
boundaries, so "Portland" never matches inside "Portlandia".

Matching (:func:`contains`) also reads both texts in one spelling of abbreviations and
punctuation, because a correct answer may write a name as the gold does not: the period of an
abbreviation goes (``Dr. Mensah`` is ``Dr Mensah``, ``U.S.`` is ``US``), a hyphen between letters
is a space (``Mary-Jane`` is ``Mary Jane``), and the spelled-out titles are their abbreviations
(``Doctor Mensah`` is ``Dr Mensah``; issue 22, item 10). Letters and digits are never changed, so
a different name (``Dr Mensa``, ``Dr Okafor``) still does not match.
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


_INITIALISM = re.compile(r"(?<![^\W\d_])(?:[^\W\d_]\.){2,}")
"""``u.s.``, ``j.r.r.``: single letters each followed by a period."""
_ABBREVIATION_PERIOD = re.compile(r"(?<=[^\W\d_])\.(?=\s|$)")
"""A period right after a letter and before a space or the end (``dr.``); never between digits."""
_LETTER_HYPHEN = re.compile(r"(?<=[^\W\d_])[-\u2010\u2011\u2013](?=[^\W\d_])")
_TITLES = {"doctor": "dr", "mister": "mr", "professor": "prof"}
_TITLE_WORDS = re.compile(r"(?<![a-z0-9])(" + "|".join(_TITLES) + r")(?![a-z0-9])")


@lru_cache(maxsize=65536)
def match_form(text: str) -> str:
    """:func:`normalise`, then one spelling of abbreviations and punctuation (module docstring)."""
    form = _INITIALISM.sub(lambda m: m.group(0).replace(".", ""), normalise(text))
    form = _LETTER_HYPHEN.sub(" ", _ABBREVIATION_PERIOD.sub("", form))
    form = _TITLE_WORDS.sub(lambda m: _TITLES[m.group(1)], form)
    return _TRAILING.sub("", _WHITESPACE.sub(" ", form).strip())


@lru_cache(maxsize=65536)
def _bounded(needle: str) -> re.Pattern[str]:
    return re.compile(r"(?<![a-z0-9])" + re.escape(needle) + r"(?![a-z0-9])")


def contains(haystack: str, needle: str) -> bool:
    """Whether ``needle`` occurs in ``haystack`` on token boundaries, both in :func:`match_form`."""
    small = match_form(needle)
    return bool(small) and _bounded(small).search(match_form(haystack)) is not None


def contains_any(haystack: str, needles: tuple[str, ...] | list[str]) -> bool:
    return any(contains(haystack, needle) for needle in needles)


def overlaps(first: str, second: str) -> bool:
    """Either text contains the other: a forbidden statement overlaps a protected fragment."""
    return contains(first, second) or contains(second, first)
