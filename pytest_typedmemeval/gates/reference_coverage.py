"""The reference retriever's realised coverage of one question, with and without the echo clause,
and the per-shape distribution of those figures: what the calibration gate measures first.

A module of its own because more than the gate needs it: the generators' calibration search
computes coverage exactly as the gate does (through the gate's re-export), and the sidecar stamps
it. Pure: a question record in, a number out.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from ..corpus.models import QuestionRecord
from ..retrieval.bm25 import K_REF, realised_coverage, session_document, top_k

_ECHO_ITEMS = r"[\w'-]+(?:,\s*[\w'-]+)"
_ECHO_LEAD_IN = r"[A-Za-z][A-Za-z' ]{0,40}:\s*"
ECHO_CLAUSE_PATTERN = re.compile(
    r"\s*(?:"
    rf"\((?:{_ECHO_LEAD_IN}{_ECHO_ITEMS}*|{_ECHO_ITEMS}+)\.?\)"
    r"|"
    rf"\[(?:{_ECHO_LEAD_IN}{_ECHO_ITEMS}*|{_ECHO_ITEMS}+)\.?\]"
    r")"
)
"""The echo clause (VERTICALS.md §4.2), e.g. ``(Also on my mind: a, b, c.)``: a round- or
square-bracketed unordered list of single words separated by commas, optionally introduced by a
short lead-in ending in a colon and optionally closed by a full stop. Without a lead-in the list
needs two or more words, so an ordinary parenthesis ("(twice)", "(see above)") is not an echo.
Stripping removes the whole clause, brackets included, and the whitespace before it, wherever it
sits in a turn."""


def strip_echo(text: str) -> str:
    """``text`` without its echo clauses (see :data:`ECHO_CLAUSE_PATTERN`)."""
    return ECHO_CLAUSE_PATTERN.sub("", text)


def has_echo(text: str) -> bool:
    return ECHO_CLAUSE_PATTERN.search(text) is not None


def question_coverage(record: QuestionRecord, *, strip_distractor_echo: bool = False) -> float | None:
    """Realised BM25 coverage of one question at K_ref (``None`` when it has no gold)."""
    gold = record.gold_session_indices
    if not gold:
        return None
    gold_set = set(gold)
    documents = []
    for index, session in enumerate(record.haystack_sessions):
        texts = [turn.content for turn in session]
        if strip_distractor_echo and index not in gold_set:
            texts = [strip_echo(text) for text in texts]
        documents.append(session_document(texts))
    return realised_coverage(gold, top_k(documents, record.question, K_REF))


def _quantile(ordered: Sequence[float], q: float) -> float:
    """Linear interpolation between order statistics (the 'inclusive' / type-7 definition)."""
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def distribution(values: Sequence[float], excluded: int) -> dict[str, float | int | None]:
    """Mean, min, quartiles, max, n and the number of excluded (gold-less) questions."""
    ordered = sorted(values)
    if not ordered:
        return {"n": 0, "n_excluded": excluded, "mean": None, "min": None, "q1": None,
                "median": None, "q3": None, "max": None}
    return {"n": len(ordered), "n_excluded": excluded, "mean": sum(ordered) / len(ordered),
            "min": ordered[0], "q1": _quantile(ordered, 0.25), "median": _quantile(ordered, 0.5),
            "q3": _quantile(ordered, 0.75), "max": ordered[-1]}


__all__ = ["ECHO_CLAUSE_PATTERN", "distribution", "has_echo", "question_coverage", "strip_echo"]
