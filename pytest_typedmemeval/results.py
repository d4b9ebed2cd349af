"""The result of one question: plain, versioned data that crosses xdist process boundaries.

Everything the aggregator needs is here, so the controller can rebuild the report from report
attributes alone; nothing here is a live object.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

RESULT_SCHEMA_VERSION = 3
"""2 added ``mechanical_outcome`` (the mechanical judge's second opinion under a model judge); 3
added ``model_outcome`` (the model's second opinion on the hybrid judge's seeded sample) and
``surfaced_order_consistent`` (list order over the surfaced items)."""

Attribution = Literal["present", "partial", "absent", "unobserved", "not_applicable"]
"""Evidence attribution (VERTICALS.md §5.8). ``partial``: some but not all gold sessions surfaced;
``not_applicable``: the question has no gold (G = 0), so presence means nothing."""


class QuestionResult(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: int = RESULT_SCHEMA_VERSION
    corpus_id: str
    corpus_sha256: str
    question_id: str
    vertical: str
    shape: str
    pair_id: str | None = None
    arm: str | None = None
    distance_sessions: int | None = None
    outcome: str
    reason: str
    subcounts: tuple[str, ...] = ()
    question: str
    gold: str
    answer: str | None = None
    coverage: float | None = None
    coverage_source: Literal["context", "retrieved"] | None = None
    attribution: Attribution = "unobserved"
    unknown_evidence_ids: int = 0
    judge: str
    judge_fingerprint: str
    mechanical_outcome: str | None = None
    """The mechanical judge's outcome on the same answer, set only where a model judge decided
    ``outcome`` (``--tme-judge llm``: every judged answer; ``hybrid``: the mechanically unjudged
    ones). ``None`` where the mechanical judge decided, or nothing was judged."""
    model_outcome: str | None = None
    """The model judge's outcome on an answer the mechanical judge decided: the ``hybrid`` judge's
    seeded sample only (docs/JUDGING.md J13.14). Never the verdict."""
    surfaced_order_consistent: bool | None = None
    """List-order questions with evidence: whether the items the answer names among those whose
    sessions the system surfaced stand in gold order (J13.11). Its own figure, never the verdict;
    ``None`` where there is nothing to order."""
    duration_seconds: float = 0.0
    """Wall time of the question; excluded from comparisons (it is the only non-deterministic field)."""

    @property
    def key(self) -> tuple[str, str]:
        return (self.corpus_id, self.question_id)
