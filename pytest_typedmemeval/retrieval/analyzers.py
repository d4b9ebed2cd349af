"""The English analyzer of the panel's ``bm25-english`` arm (VERTICALS.md Appendix D, §4.9 row).

Fact-extracting memories index text the way a search engine's English analyzer does, not the way
the reference tokenizer (:mod:`.tokenizer`) does: stopwords out *and* words reduced to their stems,
so "booked", "booking" and "books" are one term. A corpus whose difficulty rests on the question
using another inflection than gold must not pass because the reference never stems.

The analyzer follows Lucene's ``EnglishAnalyzer`` chain, step by step:

1. **tokenise**: lowercase, runs of letters and digits with internal apostrophes kept
   (``don't`` is one token, as in Lucene's ``StandardTokenizer``; the typographic apostrophe
   ``’`` is read as ``'``); everything else separates tokens;
2. **possessives**: a trailing ``'s`` is dropped (Lucene's ``EnglishPossessiveFilter``);
3. **stopwords**: :data:`ENGLISH_STOPWORDS`, Lucene's ``EnglishAnalyzer.ENGLISH_STOP_WORDS_SET``
   (33 words; a code constant, like the reference list);
4. **stemming**: Snowball English ("Porter2") from the ``snowballstemmer`` package, where Lucene's
   default is the original Porter stemmer. We do not write a stemmer by hand.

Stems are cached per token (:func:`stem`) and analysed texts per text (:func:`english_tokens`):
haystacks share sessions and a corpus has a few thousand distinct words, so the pure-Python
stemmer runs once per word, not once per occurrence. ``snowballstemmer`` is imported on the first
call, never when this module loads.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

ENGLISH_TOKEN_PATTERN = re.compile(r"[a-z0-9]+(?:'[a-z0-9]+)*")

ENGLISH_STOPWORDS: frozenset[str] = frozenset(
    """
    a an and are as at be but by for if in into is it no not of on or such that the their then
    there these they this to was will with
    """.split()
)
"""Lucene's ``EnglishAnalyzer.ENGLISH_STOP_WORDS_SET`` (org.apache.lucene.analysis.en)."""

STEMMER = "snowballstemmer english (Porter2)"
STEM_CACHE_SIZE = 1 << 18
"""Distinct tokens whose stems are kept (a corpus has a few thousand; the bound only caps memory)."""


@lru_cache(maxsize=1)
def snowball() -> Any:
    """The process's one Snowball English stemmer (imported on first use)."""
    import snowballstemmer  # type: ignore[import-untyped]

    return snowballstemmer.stemmer("english")


@lru_cache(maxsize=STEM_CACHE_SIZE)
def stem(token: str) -> str:
    """Snowball English stem of one lowercased token (cached per token)."""
    return str(snowball().stemWord(token))


def english_raw_tokens(text: str) -> list[str]:
    """Steps 1 and 2: lowercased tokens with possessive ``'s`` removed (stopwords kept)."""
    tokens = ENGLISH_TOKEN_PATTERN.findall(text.lower().replace("\u2019", "'"))
    return [token[:-2] if token.endswith("'s") else token for token in tokens]


@lru_cache(maxsize=1 << 16)
def _analysed(text: str) -> tuple[str, ...]:
    # Cached per text: haystacks of a corpus share sessions, and the query is analysed per call.
    return tuple(stem(token) for token in english_raw_tokens(text)
                 if token not in ENGLISH_STOPWORDS)


def english_tokens(text: str) -> list[str]:
    """The whole chain: tokens, possessives, :data:`ENGLISH_STOPWORDS` out, Snowball stems."""
    return list(_analysed(text))


def describe() -> dict[str, str]:
    """What the analyzer is, for the panel's ``describe()``."""
    return {"tokenizer": "lowercase; [a-z0-9]+ runs with internal apostrophes; possessive "
                         "'s dropped",
            "stopwords": f"Lucene EnglishAnalyzer set ({len(ENGLISH_STOPWORDS)} words)",
            "stemmer": STEMMER}


__all__ = ["ENGLISH_STOPWORDS", "ENGLISH_TOKEN_PATTERN", "STEMMER", "describe",
           "english_raw_tokens", "english_tokens", "snowball", "stem"]
