"""The outcome axis (VERTICALS.md §5.1) and the verdict a judge returns."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class Outcome(str, enum.Enum):
    """Typed outcome of one question.

    ``unjudged`` is the judge's own admission: its rules could not read the answer (no value from
    the key, no decline, no denial, no figure). It is counted apart and never pooled into
    ``wrong`` (VERTICALS.md Appendix C, §5): an answer the judge cannot read says nothing about the
    memory. ``error`` is a harness fact (adapter raised or timed out), never a memory verdict.
    """

    CORRECT = "correct"
    WRONG = "wrong"
    ABSTAINED = "abstained"
    MISSED = "missed"
    PREMATURE = "premature"
    UNJUDGED = "unjudged"
    ERROR = "error"

    def __str__(self) -> str:
        return self.value


JUDGED_OUTCOMES: tuple[Outcome, ...] = (
    Outcome.CORRECT, Outcome.WRONG, Outcome.ABSTAINED, Outcome.MISSED, Outcome.PREMATURE,
)
"""The memory verdicts of VERTICALS.md §5.1."""
ALL_OUTCOMES: tuple[Outcome, ...] = (*JUDGED_OUTCOMES, Outcome.UNJUDGED, Outcome.ERROR)
"""Every outcome a result can carry, in report column order."""

SUBCOUNTS: tuple[str, ...] = ("stale_recall", "over_forgetting", "misattributed_forgetting")
"""Forgetting sub-counts published beside the vector (§5.3)."""


@dataclass(frozen=True)
class Verdict:
    """A judge's decision: the outcome, a one-line reason naming the rule, and sub-count flags.

    ``mechanical_outcome`` is a second opinion: the mechanical judge's outcome on the same answer,
    set only when a model judge decided this verdict (every answer under ``--tme-judge llm``, the
    mechanically unjudged ones under ``hybrid``). It feeds the report's judge-agreement block and
    never changes the outcome.
    """

    outcome: Outcome
    reason: str
    subcounts: frozenset[str] = field(default_factory=frozenset)
    mechanical_outcome: Outcome | None = None
    model_outcome: Outcome | None = None
    """The model judge's outcome on an answer the mechanical judge decided: set only for the
    ``hybrid`` judge's seeded sample (docs/JUDGING.md J13.14), so its agreement block is never
    empty. Never changes the outcome."""
