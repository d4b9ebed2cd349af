"""What "a value" looks like to a reader that never saw a generator (GATES.md §7, Appendix D).

Two instruments need one shared answer to "does this sentence hold a value?": the adversaries'
*subject-and-value reader* and *fact-only BM25* (which deletes every sentence without one), and the
calibration panel's *value-filtered BM25*. If each had its own rule, a corpus could pass one and be
beaten by the other, so the rule lives here, stated plainly so it can be argued with:

A token is **value-like** when it is

- a capitalised word that is not the first word of its sentence and not ``I`` (names of people,
  places, shops and products are written that way in every corpus and in ordinary English), or
- a number written in digits (``12``, ``3.50``), possibly with a currency sign or a ``%``, or
- an English number word (``seven``, ``twelve``, ``forty``, ``hundred``...), because the corpora
  write amounts and spans in words ("in nine weeks", "forty pounds"), or
- a month or weekday name (dates), whatever its position.

Sentences are the text between terminal punctuation (``.``, ``!``, ``?`` followed by whitespace)
and line breaks — the same split as :func:`..corpus.text_stats.sentences`.

The rule is deliberately generous: an attacker who counts more things as values deletes less text
and finds gold no more easily, so a corpus that passes under this rule passes under stricter ones.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_SENTENCE_BREAK = re.compile(r"(?<=[.!?])(?=\s)|\n")
_WORD = re.compile(r"[A-Za-z][A-Za-z'\u2019]*|[$\u00a3\u20ac]?\d+(?:[.,]\d+)*%?")

NUMBER_WORDS: frozenset[str] = frozenset(
    """
    one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen
    sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety
    hundred thousand million half quarter dozen
    """.split())
"""Number words an amount or a span is written with ("a" and "an" are left out: too common)."""

CALENDAR_WORDS: frozenset[str] = frozenset(
    """
    january february march april may june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday
    """.split())
"""Month and weekday names; "may" and "march" also count in lower case: generous by design."""


def sentences(text: str) -> list[str]:
    """``text`` split into sentences (terminal punctuation followed by whitespace, line breaks)."""
    return [piece.strip() for piece in _SENTENCE_BREAK.split(text) if piece.strip()]


def value_like_tokens(sentence: str) -> list[str]:
    """The value-like tokens of one sentence, in order (see the module docstring)."""
    found: list[str] = []
    for index, match in enumerate(_WORD.finditer(sentence)):
        word = match.group(0)
        lower = word.lower()
        if word[0].isdigit() or word[0] in "$\u00a3\u20ac":
            found.append(word)
        elif lower in NUMBER_WORDS or lower in CALENDAR_WORDS:
            found.append(word)
        elif index > 0 and word[0].isupper() and word != "I" and not word.startswith("I'"):
            found.append(word)
    return found


def has_value(sentence: str) -> bool:
    """Whether ``sentence`` holds at least one value-like token."""
    return bool(value_like_tokens(sentence))


def value_sentences(text: str) -> list[str]:
    """The sentences of ``text`` that hold a value-like token, in order."""
    return [s for s in sentences(text) if has_value(s)]


def keep_value_sentences(texts: Iterable[str]) -> list[str]:
    """Each text with every sentence that holds no value deleted ("" when none is left)."""
    return [" ".join(value_sentences(text)) for text in texts]
