"""The outcome axis (VERTICALS.md §5.1) and the verdict a judge returns."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class Outcome(str, enum.Enum):
    """Typed outcome of one question. ``error`` is a harness fact (adapter raised or timed out),
    never a memory verdict, so it is kept apart from ``wrong``."""

    CORRECT = "correct"
    WRONG = "wrong"
    ABSTAINED = "abstained"
    MISSED = "missed"
    PREMATURE = "premature"
    ERROR = "error"

    def __str__(self) -> str:
        return self.value


JUDGED_OUTCOMES: tuple[Outcome, ...] = (
    Outcome.CORRECT, Outcome.WRONG, Outcome.ABSTAINED, Outcome.MISSED, Outcome.PREMATURE,
)
ALL_OUTCOMES: tuple[Outcome, ...] = (*JUDGED_OUTCOMES, Outcome.ERROR)

SUBCOUNTS: tuple[str, ...] = ("stale_recall", "over_forgetting", "misattributed_forgetting")
"""Forgetting sub-counts published beside the vector (§5.3)."""


@dataclass(frozen=True)
class Verdict:
    """A judge's decision: the outcome, a one-line reason naming the rule, and sub-count flags."""

    outcome: Outcome
    reason: str
    subcounts: frozenset[str] = field(default_factory=frozenset)
