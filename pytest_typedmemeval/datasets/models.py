"""The one internal form every public dataset is loaded into.

Each loader turns its upstream layout into :class:`DatasetQuestion`s — sessions already as the
adapter will receive them (opaque ids, timestamps, roles), gold answers, evidence resolved to
those opaque session ids — plus a :class:`LoadReport` counting every known defect it tolerated.
From here on nothing depends on which dataset a question came from, except the spec's name,
licence and caveats that its own report carries.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import datetime

from typing import Literal

from ..adapter.protocol import Session

UpstreamAnswerMetric = Literal["locomo"]
"""Upstream token metrics reproduced exactly (:mod:`.upstream_scoring`)."""
RetrievalMetric = Literal["locomo_recall_acc", "longmemeval"]
"""Upstream retrieval metrics reproduced from ranks (:mod:`.upstream_retrieval`)."""

MAX_EXAMPLES = 3
"""Ids kept per defect kind in a report: enough to find the rows, few enough to read."""


@dataclass(frozen=True)
class DatasetSpec:
    """What a dataset's report says about it: name, licence, caveats shipped with every figure.

    ``reported_apart`` are categories shown on their own line and left out of the overall line
    (VERTICALS.md §6.7: LongMemEval's ``single-session-assistant``).
    """

    name: str
    title: str
    licence: str
    caveats: tuple[str, ...]
    categories: tuple[str, ...] = ()
    reported_apart: frozenset[str] = frozenset()
    published_metric: str = ""
    """What the dataset's own papers report, in one phrase, for the summary."""
    upstream_answer_metric: UpstreamAnswerMetric | None = None
    """The upstream token metric reproduced under ``--tme-dataset-scoring upstream`` (``None``: the
    published figure is a model judge's, with no token metric to reproduce)."""
    retrieval_metric: RetrievalMetric | None = None
    """The upstream retrieval metric computed from the adapter's reported evidence."""


@dataclass(frozen=True)
class EvidenceRef:
    """One piece of gold evidence: the opaque session id the adapter saw and, where the dataset
    says, the 0-based index of the turn within that session."""

    session_id: str
    turn_index: int | None = None


@dataclass(frozen=True)
class DatasetQuestion:
    """One question of a public dataset, ready to run.

    ``sessions`` are what the adapter ingests, in order; ``source_session_ids`` are the upstream
    ids beside them, for reports only (they can give gold away: ``answer_...``). ``gold_answers``
    are what token F1 / exact match compare against (empty for an abstention probe);
    ``gold_display`` is the upstream answer as text, for failure messages. ``trap_answers`` are
    values an abstention probe must not commit to (LoCoMo's ``adversarial_answer``).
    ``token_rules`` names the answer normalisation (:mod:`.scoring`); ``multi_answer`` is
    LoCoMo's comma-split F1 for multi-hop questions.

    ``upstream_category`` is the dataset's own category number where its scoring rules depend on
    it (LoCoMo 1..5). ``upstream_evidence`` is the gold of the dataset's own retrieval metric, as
    (document, opaque session id) pairs: LoCoMo one pair per evidence reference (document = the
    reference's position); LongMemEval one pair per haystack session upstream labels relevant
    (document = the index of its distinct upstream session id, which a repeated session shares).
    ``None`` where upstream computes no retrieval figure for the question (LoCoMo without
    resolvable evidence, LongMemEval abstention questions, HaluMem).
    """

    dataset: str
    question_id: str
    item_id: str
    category: str
    sessions: tuple[Session, ...]
    source_session_ids: tuple[str, ...]
    question: str
    query_time: datetime
    instruction: str
    gold_answers: tuple[str, ...]
    gold_display: str
    evidence: tuple[EvidenceRef, ...] = ()
    abstention: bool = False
    trap_answers: tuple[str, ...] = ()
    token_rules: str = "squad"
    multi_answer: bool = False
    upstream_category: int | None = None
    upstream_evidence: tuple[tuple[int, str], ...] | None = None


    @property
    def evidence_session_ids(self) -> tuple[str, ...]:
        """The distinct evidence sessions, in haystack order."""
        wanted = {ref.session_id for ref in self.evidence}
        return tuple(session.session_id for session in self.sessions if session.session_id in wanted)


@dataclass(frozen=True)
class LoadReport:
    """What loading found: defects tolerated and questions left out, by kind, with a few ids each.

    ``defects`` count problems in the file that did not stop a question from being scored (or
    that were repaired); ``excluded`` count questions that are not scored, by reason.
    """

    questions_in_file: int
    questions_loaded: int
    defects: dict[str, int] = field(default_factory=dict)
    defect_examples: dict[str, tuple[str, ...]] = field(default_factory=dict)
    excluded: dict[str, int] = field(default_factory=dict)
    excluded_examples: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def lines(self) -> list[str]:
        """Human-readable lines for a terminal summary."""
        out = [f"{self.questions_loaded} of {self.questions_in_file} questions loaded"]
        for kind in sorted(self.defects):
            out.append(f"defect {kind}: {self.defects[kind]} (e.g. {', '.join(self.defect_examples[kind])})")
        for reason in sorted(self.excluded):
            out.append(f"excluded {reason}: {self.excluded[reason]} "
                       f"(e.g. {', '.join(self.excluded_examples[reason])})")
        return out


class DefectLog:
    """The mutable tally a loader keeps while it reads; :meth:`report` freezes it."""

    def __init__(self) -> None:
        self._defects: Counter[str] = Counter()
        self._defect_examples: dict[str, list[str]] = {}
        self._excluded: Counter[str] = Counter()
        self._excluded_examples: dict[str, list[str]] = {}

    def note(self, kind: str, example: str) -> None:
        """One tolerated defect of ``kind``, found at ``example`` (a question or record id)."""
        self._defects[kind] += 1
        examples = self._defect_examples.setdefault(kind, [])
        if len(examples) < MAX_EXAMPLES and example not in examples:
            examples.append(example)

    def exclude(self, reason: str, question_id: str) -> None:
        """One question left out of scoring, and why."""
        self._excluded[reason] += 1
        examples = self._excluded_examples.setdefault(reason, [])
        if len(examples) < MAX_EXAMPLES:
            examples.append(question_id)

    def report(self, questions_in_file: int, questions_loaded: int) -> LoadReport:
        return LoadReport(
            questions_in_file=questions_in_file, questions_loaded=questions_loaded,
            defects=dict(sorted(self._defects.items())),
            defect_examples={k: tuple(v) for k, v in sorted(self._defect_examples.items())},
            excluded=dict(sorted(self._excluded.items())),
            excluded_examples={k: tuple(v) for k, v in sorted(self._excluded_examples.items())},
        )


@dataclass(frozen=True)
class SampleInfo:
    """How the questions were chosen: all of them (``size is None``), or ``size`` drawn with
    ``seed`` from ``available``."""

    available: int
    size: int | None = None
    seed: int | None = None


@dataclass(frozen=True)
class LoadedDataset:
    """A dataset file read into the internal form.

    ``options`` are the loader options that change which questions exist or how they read
    (LoCoMo's principal speaker); they travel into the metrics file. No local path is kept.
    """

    spec: DatasetSpec
    sha256: str
    questions: tuple[DatasetQuestion, ...]
    report: LoadReport
    options: dict[str, str] = field(default_factory=dict)
    sample: SampleInfo | None = None

    def with_questions(self, questions: tuple[DatasetQuestion, ...], sample: SampleInfo) -> LoadedDataset:
        return replace(self, questions=questions, sample=sample)
