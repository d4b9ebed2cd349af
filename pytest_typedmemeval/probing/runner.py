"""Plan and run probe arms against one model endpoint, and turn replies into probe records.

A *job* is one request: (arm, question, context, draw). Its prompt comes from the shared builder
of the reference LLM agents over the adapter view of the question (sessions with their timestamps,
the question, the moment of asking, the answer-format instruction) — never the extension block,
gold labels or ``has_answer``. Distinct samples of one question in one arm use distinct seeds
(``seed + sample``), so their cache keys differ; V6 numbers samples ``component * n + draw``.

Arms run one after another, each as one :meth:`..calls.ModelCaller.complete_many` batch, and each
arm's records are written to the sidecar as soon as it finishes: an interrupted run keeps every
finished arm, and the response cache makes the rerun of a finished request free. A failed request
(refused by the ceiling, gave up after retries, a 4xx) is verdict ``error`` with its reason kept in
the :class:`ArmReport` and in the record; it is never graded. Every recorded verdict keeps the
reply text and the judge's reason beside its outcome, so the sidecar can be audited.
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TextIO

from ..adapter.llm_agents import build_messages
from ..adapter.projection import adapter_view
from ..calls import ModelCaller
from ..calls.budget import worst_case_tokens
from ..calls.endpoint import ModelCallError
from ..corpus.loading import Corpus
from ..corpus.models import ProbeRecord, ProbeVerdict, QuestionRecord
from ..judge.protocol import Judge
from .arms import ARM_ORDER, ARMS, applies, contexts, samples_for
from .grading import ERROR, grade_with_reason
from .records import build_record, write_records


class ProbeUsageError(ValueError):
    """Options that cannot make a probe run (unknown shape, bad limit); one line."""


@dataclass(frozen=True)
class ProbeOptions:
    """What to run: arms, shapes (empty: all), questions per shape, sample scale, provenance date."""

    date: str
    arms: tuple[str, ...] = ARM_ORDER
    shapes: tuple[str, ...] = ()
    limit: int | None = None
    samples_scale: float = 1.0


@dataclass(frozen=True)
class Job:
    """One request of one arm: which question and sample, what it shows, what is sent."""

    arm: str
    shape: str
    question_id: str
    sample: int
    sessions: tuple[int, ...]
    messages: tuple[tuple[tuple[str, str], ...], ...]
    seed: int

    def chat(self) -> list[dict[str, str]]:
        return [dict(message) for message in self.messages]

    def request_key(self) -> tuple[str, int]:
        return json.dumps(self.messages), self.seed


@dataclass
class ArmReport:
    """What one arm cost and produced on one corpus (the run summary's row)."""

    corpus_id: str
    arm: str
    questions: int
    requests: int
    calls: int = 0
    cache_hits: int = 0
    spent_usd: float = 0.0
    outcomes: Counter[str] = field(default_factory=Counter)
    errors: list[tuple[str, int, str]] = field(default_factory=list)
    """(question id, sample, one-line reason) of every request that failed."""

    @property
    def error_count(self) -> int:
        return len(self.errors)


# --- planning ----------------------------------------------------------------------------------


def select_questions(corpus: Corpus, options: ProbeOptions) -> list[QuestionRecord]:
    """The questions to probe, in corpus order: the chosen shapes, the first ``limit`` of each."""
    taken: Counter[str] = Counter()
    chosen: list[QuestionRecord] = []
    for record in corpus.records:
        if options.shapes and record.shape not in options.shapes:
            continue
        if options.limit is not None and taken[record.shape] >= options.limit:
            continue
        taken[record.shape] += 1
        chosen.append(record)
    return chosen


def _frozen_messages(messages: Sequence[dict[str, str]]) -> tuple[tuple[tuple[str, str], ...], ...]:
    return tuple(tuple(sorted(message.items())) for message in messages)


def plan_arm(arm: str, questions: Sequence[QuestionRecord], *, seed: int,
             samples_scale: float = 1.0) -> list[Job]:
    """Every request ``arm`` makes over ``questions`` (module docstring for seeds and samples)."""
    spec = ARMS[arm]
    draws = samples_for(spec, samples_scale)
    jobs: list[Job] = []
    for record in questions:
        if not applies(spec, record):
            continue
        view = adapter_view(record)
        for index, context in enumerate(contexts(arm, record)):
            chosen = [view.sessions[i] for i in context.sessions]
            messages = _frozen_messages(build_messages(chosen, view.question, query_time=view.query_time,
                                                       instruction=view.instruction))
            for draw in range(draws):
                sample = index * draws + draw
                jobs.append(Job(arm, record.shape, record.question_id, sample, context.sessions,
                                messages, seed + sample))
    return jobs


# --- running -----------------------------------------------------------------------------------


class ProgressPrinter:
    """``label: done/total (pct%)`` on ``stream`` for long batches: at each further ``step`` of the
    batch once ``min_gap`` seconds have passed since the last line, or after ``every_seconds`` of
    silence; the closing line only when an earlier one was printed. A fast (e.g. fully cached) arm
    prints nothing. ``time.monotonic`` paces the lines and nothing else."""

    def __init__(self, label: str, stream: TextIO, *, step: float = 0.05, min_gap: float = 2.0,
                 every_seconds: float = 10.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.label, self.stream, self.step = label, stream, step
        self.min_gap, self.every_seconds, self.clock = min_gap, every_seconds, clock
        self._last_share = 0.0
        self._last_time = clock()
        self._printed = False

    def __call__(self, done: int, total: int) -> None:
        share, now = done / total, self.clock()
        quiet = now - self._last_time
        due = (share - self._last_share >= self.step and quiet >= self.min_gap) \
            or quiet >= self.every_seconds
        if (done == total and self._printed) or (done < total and due):
            self._last_share, self._last_time, self._printed = share, now, True
            print(f"{self.label}: {done}/{total} requests ({share:.0%})", file=self.stream, flush=True)


def _delta(before: dict[str, float | int], after: dict[str, float | int], name: str) -> float:
    return float(after.get(name, 0)) - float(before.get(name, 0))


def run_arm(caller: ModelCaller, corpus: Corpus, arm: str, jobs: Sequence[Job], *, model: str,
            options: ProbeOptions, seed: int, temperature: float,
            stream: TextIO | None = None, judge: Judge | None = None
            ) -> tuple[list[ProbeRecord], ArmReport]:
    """Send ``jobs`` (identical requests once), grade the replies, build one record per shape."""
    records_by_id = {record.question_id: record for record in corpus.records}
    unique: dict[tuple[str, int], int] = {}
    batch: list[tuple[list[dict[str, str]], int | None]] = []
    for job in jobs:
        if job.request_key() not in unique:
            unique[job.request_key()] = len(batch)
            batch.append((job.chat(), job.seed))
    report = ArmReport(corpus.corpus_id, arm, len({job.question_id for job in jobs}), len(jobs))
    before = caller.ledger.snapshot()
    printer = ProgressPrinter(f"{corpus.corpus_id} {arm}", stream if stream is not None else sys.stderr)
    results = caller.complete_many(batch, progress=printer)
    after = caller.ledger.snapshot()
    report.calls = int(_delta(before, after, "calls"))
    report.cache_hits = int(_delta(before, after, "cache_hits"))
    report.spent_usd = _delta(before, after, "spent_usd")
    verdicts: dict[str, list[ProbeVerdict]] = defaultdict(list)
    for job in jobs:
        result = results[unique[job.request_key()]]
        answer: str | None = None
        if isinstance(result, ModelCallError):
            outcome, reason = ERROR, f"{result.kind}: {result.reason}"
            report.errors.append((job.question_id, job.sample, reason))
        else:
            answer = result.text
            outcome, reason = grade_with_reason(arm, records_by_id[job.question_id], answer,
                                                job.sessions, judge)
        report.outcomes[outcome] += 1
        verdicts[job.shape].append(ProbeVerdict(question_id=job.question_id, sample=job.sample,
                                                outcome=outcome, answer=answer, reason=reason))
    fingerprint = judge.fingerprint if judge is not None else None
    records = [build_record(arm, shape, items, model=model, date=options.date, seed=seed,
                            temperature=temperature, judge=fingerprint)
               for shape, items in verdicts.items()]
    return records, report


def run_probes(corpora: Sequence[Corpus], caller: ModelCaller, options: ProbeOptions, *,
               stream: TextIO | None = None, judge: Judge | None = None) -> list[ArmReport]:
    """Run every chosen arm on every corpus, writing each arm's records as soon as it finishes.

    The records carry the caller's model, temperature and base seed and ``options.date``.
    """
    seed = caller.settings.seed
    if seed is None:
        raise ProbeUsageError("a probe run needs a seed: it is recorded so the run can be repeated")
    reports: list[ArmReport] = []
    for corpus in corpora:
        questions = select_questions(corpus, options)
        for arm in options.arms:
            jobs = plan_arm(arm, questions, seed=seed, samples_scale=options.samples_scale)
            if not jobs:
                continue  # not applicable: the chosen questions hold nothing this arm measures
            records, report = run_arm(caller, corpus, arm, jobs, model=caller.settings.model,
                                      options=options, seed=seed,
                                      temperature=caller.settings.temperature, stream=stream,
                                      judge=judge)
            write_records(corpus, records)
            reports.append(report)
    return reports


# --- dry run -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ArmEstimate:
    """What an arm would send: requests, distinct requests already cached, worst-case cost of the
    rest (``None`` when the model is unpriced)."""

    corpus_id: str
    arm: str
    questions: int
    requests: int
    distinct: int
    cached: int
    worst_usd: float | None

    @property
    def to_send(self) -> int:
        return self.distinct - self.cached


def estimate(corpora: Sequence[Corpus], caller: ModelCaller, options: ProbeOptions
             ) -> list[ArmEstimate]:
    """Count requests per arm and bound their cost, without calling (``--dry-run``).

    The bound is the pre-admission worst case of the model-call layer (every prompt byte a token,
    plus ``max_tokens`` of output) summed over requests not already in the response cache.
    """
    seed = caller.settings.seed if caller.settings.seed is not None else 0
    out: list[ArmEstimate] = []
    for corpus in corpora:
        questions = select_questions(corpus, options)
        for arm in options.arms:
            jobs = plan_arm(arm, questions, seed=seed, samples_scale=options.samples_scale)
            if not jobs:
                continue
            distinct = {job.request_key(): job for job in jobs}
            cached, worst = 0, 0.0
            for job in distinct.values():
                request = caller.request_of(job.chat(), seed=job.seed)
                if caller.cache.get(request) is not None:
                    cached += 1
                elif caller.price is not None:
                    worst += caller.price.cost(*worst_case_tokens(request["messages"],
                                                                  caller.settings.max_tokens))
            bound = worst if caller.price is not None else None
            out.append(ArmEstimate(corpus.corpus_id, arm, len({job.question_id for job in jobs}),
                                   len(jobs), len(distinct), cached, bound))
    return out


__all__ = ["ArmEstimate", "ArmReport", "Job", "ProbeOptions", "ProbeUsageError", "ProgressPrinter",
           "estimate", "plan_arm", "run_arm", "run_probes", "select_questions"]
