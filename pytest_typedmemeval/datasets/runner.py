"""One dataset question end to end: reset -> ingest sessions in order -> ask at the query time ->
score. The per-question entry point the plugin calls for ``--tme-dataset`` items.

Knows nothing about pytest. It reuses the runner's adapter machinery (:class:`AdapterCalls` for
sync/async adapters and ``--tme-timeout``; :func:`read_answer` for the answer contract), so an
adapter behaves exactly as it does on TypedMemEval corpora: anything it raises, a timeout or a
malformed answer is outcome ``error`` for this question only, never ``wrong``.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Any

from ..adapter.bounded_calls import AdapterCalls
from ..adapter.run import STORED_ANSWER_CHARS, failure_reason, plain_text, read_answer
from ..judge.outcomes import Outcome
from .models import DatasetQuestion
from .provenance import ProvenanceObservation, observe_provenance, recall_at
from .scoring import Score, score_answer

RESULT_VERSION = 1
"""Version of :meth:`DatasetResult.to_dict`'s shape (results cross xdist worker boundaries)."""


@dataclass(frozen=True)
class DatasetResult:
    """The outcome of one dataset question. An item passes iff ``correct``.

    ``answer`` is kept for the failure text and the terminal only: the metrics file never
    carries answer text.
    """

    dataset: str
    question_id: str
    item_id: str
    category: str
    abstention: bool
    outcome: str
    correct: bool
    f1: float | None
    exact_match: bool | None
    reason: str
    question: str
    gold: str
    answer: str | None
    provenance: str
    evidence_source: str | None
    evidence_ranks: tuple[int | None, ...]
    unknown_evidence_ids: int
    duration_seconds: float

    def recall_at(self, k: int) -> bool | None:
        """Evidence-provenance recall@k, or ``None`` when not observed or not applicable."""
        return recall_at(self.evidence_ranks, k) if self.provenance == "observed" else None

    def failure_text(self) -> str:
        """What a failing item shows: question, gold, answer, outcome and reason."""
        return "\n".join([
            f"{self.dataset} {self.question_id} ({self.category}): {self.outcome} - {self.reason}",
            f"question: {self.question}",
            f"gold:     {self.gold}",
            f"answer:   {self.answer if self.answer is not None else '(none)'}",
            f"evidence provenance: {self.provenance}"
            + (f" (ranks {list(self.evidence_ranks)} in {self.evidence_source})" if self.provenance == "observed" else ""),
        ])

    def to_dict(self) -> dict[str, Any]:
        """Plain data with a version field, for ``config.workeroutput`` / report attributes."""
        data = asdict(self)
        data["evidence_ranks"] = list(self.evidence_ranks)
        return {"version": RESULT_VERSION, **data}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DatasetResult:
        if data.get("version") != RESULT_VERSION:
            raise ValueError(f"dataset result version {data.get('version')!r}, expected {RESULT_VERSION}")
        fields = {key: value for key, value in data.items() if key != "version"}
        fields["evidence_ranks"] = tuple(fields["evidence_ranks"])
        return cls(**fields)


def run_dataset_question(agent: Any, question: DatasetQuestion, *, calls: AdapterCalls | None = None,
                         timeout: float | None = None) -> DatasetResult:
    """Run ``question`` against ``agent`` and score it; never raises for anything the adapter does
    (only ``KeyboardInterrupt`` propagates). ``calls`` is the process's :class:`AdapterCalls`;
    without it a temporary one is made with ``timeout``."""
    own_calls = calls is None
    if calls is None:
        calls = AdapterCalls(timeout)
    started = time.perf_counter()
    answer: str | None = None
    observation = ProvenanceObservation("unobserved")
    try:
        raw = calls.drive(agent, question.sessions, {"question": question.question,
                                                     "query_time": question.query_time,
                                                     "instruction": question.instruction})
        answer, evidence = read_answer(raw)
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # noqa: BLE001 - any adapter failure is this question's error
        score = Score(Outcome.ERROR, False, None, None, failure_reason(error))
    else:
        observation = observe_provenance(question, evidence)
        score = score_answer(question, answer)
    finally:
        if own_calls:
            calls.close()
    return DatasetResult(
        dataset=question.dataset, question_id=question.question_id, item_id=question.item_id,
        category=question.category, abstention=question.abstention, outcome=score.outcome.value,
        correct=score.correct, f1=None if score.f1 is None else round(score.f1, 6),
        exact_match=score.exact_match, reason=plain_text(score.reason), question=question.question,
        gold=question.gold_display, answer=None if answer is None else _stored(answer),
        provenance=observation.status, evidence_source=observation.source,
        evidence_ranks=observation.ranks, unknown_evidence_ids=observation.unknown_ids,
        duration_seconds=time.perf_counter() - started,
    )


def _stored(text: str) -> str:
    if len(text) <= STORED_ANSWER_CHARS:
        return plain_text(text)
    return plain_text(text[:STORED_ANSWER_CHARS]) + f" [... {len(text) - STORED_ANSWER_CHARS:,} more characters not stored]"
