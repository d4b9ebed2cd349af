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
from .models import DatasetQuestion, DatasetSpec
from .provenance import ProvenanceObservation, observe_provenance, recall_at, reported_ranking
from .scoring import CORRECT_AT_F1, Score, score_answer
from .upstream_retrieval import Ranks, observe_upstream_ranks, retrieval_figures
from .upstream_scoring import ScoringMode, upstream_score

RESULT_VERSION = 2
"""Version of :meth:`DatasetResult.to_dict`'s shape (results cross xdist worker boundaries)."""


@dataclass(frozen=True)
class DatasetResult:
    """The outcome of one dataset question. An item passes iff ``correct``.

    ``outcome``, ``f1`` and ``exact_match`` are the typed reading; ``upstream_score`` and
    ``upstream_exact_match`` the dataset's own metric (:mod:`.upstream_scoring`; ``None`` when not
    asked for or the dataset has none); ``scored_by`` says which of the two decided ``correct``.
    ``upstream_ranks`` are the ranks of the dataset's own retrieval gold
    (:mod:`.upstream_retrieval`), read when ``upstream_retrieval`` is ``observed``.

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
    scored_by: str = "typed"
    upstream_score: float | None = None
    upstream_exact_match: bool | None = None
    upstream_retrieval: str = "not_applicable"
    upstream_ranks: Ranks = ()

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
            *([f"upstream score: {self.upstream_score:.4f}"
               + ("" if self.upstream_exact_match is None else f", EM {self.upstream_exact_match}")
               + f" (decided by the {self.scored_by} reading)"] if self.upstream_score is not None else []),
        ])

    def to_dict(self) -> dict[str, Any]:
        """Plain data with a version field, for ``config.workeroutput`` / report attributes."""
        data = asdict(self)
        data["evidence_ranks"] = list(self.evidence_ranks)
        data["upstream_ranks"] = [list(pair) for pair in self.upstream_ranks]
        return {"version": RESULT_VERSION, **data}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DatasetResult:
        if data.get("version") != RESULT_VERSION:
            raise ValueError(f"dataset result version {data.get('version')!r}, expected {RESULT_VERSION}")
        fields = {key: value for key, value in data.items() if key != "version"}
        fields["evidence_ranks"] = tuple(fields["evidence_ranks"])
        fields["upstream_ranks"] = tuple((int(doc), rank) for doc, rank in fields["upstream_ranks"])
        return cls(**fields)

    def retrieval(self, metric: str | None) -> dict[str, float] | None:
        """The dataset's own retrieval figures for this question, or ``None`` when not observed."""
        if self.upstream_retrieval != "observed":
            return None
        return retrieval_figures(metric, self.upstream_ranks)


def run_dataset_question(agent: Any, question: DatasetQuestion, *, calls: AdapterCalls | None = None,
                         timeout: float | None = None, scoring: ScoringMode = "typed",
                         spec: DatasetSpec | None = None) -> DatasetResult:
    """Run ``question`` against ``agent`` and score it; never raises for anything the adapter does
    (only ``KeyboardInterrupt`` propagates). ``calls`` is the process's :class:`AdapterCalls`;
    without it a temporary one is made with ``timeout``.

    ``scoring`` (``--tme-dataset-scoring``): ``typed`` scores the typed reading only; ``both`` adds
    the dataset's own metric and the typed reading decides ``correct``; ``upstream`` adds it and it
    decides (correct at score >= 0.5; a dataset without one falls back to the typed reading).
    ``spec`` is the question's dataset (looked up by name when not given)."""
    if spec is None:
        from .registry import SPECS

        spec = SPECS.get(question.dataset)
    answer_metric = spec.upstream_answer_metric if spec is not None else None
    retrieval_metric = spec.retrieval_metric if spec is not None else None
    own_calls = calls is None
    if calls is None:
        calls = AdapterCalls(timeout)
    started = time.perf_counter()
    answer: str | None = None
    observation = ProvenanceObservation("unobserved")
    upstream = None
    retrieval: tuple[str, Ranks] = ("unobserved", ())
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
        ranking = reported_ranking(question, evidence)
        retrieval = observe_upstream_ranks(question, None if ranking is None else ranking.ranked)
        score = score_answer(question, answer)
        if scoring != "typed":
            upstream = upstream_score(question, answer, answer_metric)
    finally:
        if own_calls:
            calls.close()
    if retrieval_metric is None or question.upstream_evidence is None:
        retrieval = ("not_applicable", ())
    scored_by = "upstream" if scoring == "upstream" and upstream is not None else "typed"
    correct = upstream.score >= CORRECT_AT_F1 if scored_by == "upstream" and upstream is not None else score.correct
    return DatasetResult(
        dataset=question.dataset, question_id=question.question_id, item_id=question.item_id,
        category=question.category, abstention=question.abstention, outcome=score.outcome.value,
        correct=correct, f1=None if score.f1 is None else round(score.f1, 6),
        exact_match=score.exact_match, reason=plain_text(score.reason), question=question.question,
        gold=question.gold_display, answer=None if answer is None else _stored(answer),
        provenance=observation.status, evidence_source=observation.source,
        evidence_ranks=observation.ranks, unknown_evidence_ids=observation.unknown_ids,
        duration_seconds=time.perf_counter() - started, scored_by=scored_by,
        upstream_score=None if upstream is None else upstream.score,
        upstream_exact_match=None if upstream is None else upstream.exact_match,
        upstream_retrieval=retrieval[0], upstream_ranks=retrieval[1],
    )


def _stored(text: str) -> str:
    if len(text) <= STORED_ANSWER_CHARS:
        return plain_text(text)
    return plain_text(text[:STORED_ANSWER_CHARS]) + f" [... {len(text) - STORED_ANSWER_CHARS:,} more characters not stored]"
