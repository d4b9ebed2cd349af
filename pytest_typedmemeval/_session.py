"""Run state of one pytest session, kept on the config stash (no module-level mutable globals).

The plugin's hooks are thin and delegate here; this module knows pytest only as far as items,
requests and failure reporting go.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from .corpus.loading import Corpus
from .corpus.models import QuestionRecord
from .judge.choice import JudgeChoice
from .judge.outcomes import Outcome
from .results import QuestionResult
from .run import Judge, run_question


def marker_name(label: str) -> str:
    """A vertical or shape as a bare marker: ``due-later`` -> ``due_later`` (usable in ``-m``)."""
    return label.strip().lower().replace("-", "_").replace(" ", "_")


@dataclass(frozen=True)
class QuestionCase:
    """The parameter of one question item: the corpus it belongs to and its record."""

    corpus: Corpus
    record: QuestionRecord

    def __repr__(self) -> str:  # shown by --setup-show and in failure text
        return f"{self.corpus.corpus_id}/{self.record.question_id}"


@dataclass
class TypedMemEvalSession:
    """Everything a run needs and accumulates. One per pytest process."""

    config: pytest.Config
    corpora: list[Corpus] = field(default_factory=list)
    agent_spec: str | None = None
    timeout: float | None = None
    report_path: Path | None = None
    baseline: bool = False
    fail_under: dict[str, float] = field(default_factory=dict)
    """Vertical -> minimum correct rate; key ``"*"`` applies to every vertical."""
    require_probes: bool = False
    collect_gates: bool = False
    results: dict[tuple[str, str], QuestionResult] = field(default_factory=dict)
    baseline_changes: list[dict[str, Any]] = field(default_factory=list)
    produced_keys: set[tuple[str, str]] = field(default_factory=set)
    """Results this process produced (a worker reports them so the controller can spot losses)."""
    expected_from_workers: set[tuple[str, str]] = field(default_factory=set)
    workers_without_payload: list[str] = field(default_factory=list)
    threshold_failures: list[str] = field(default_factory=list)
    judge_choice: JudgeChoice = field(default_factory=JudgeChoice)
    _judge: Judge | None = None
    _judge_from_hook: bool = False
    _loop: asyncio.AbstractEventLoop | None = None

    @property
    def enabled(self) -> bool:
        return bool(self.corpora)

    @property
    def threshold_mode(self) -> bool:
        return bool(self.fail_under)

    def judge(self) -> Judge:
        """The judge of this process, built on first use: the hook's, else ``--tme-judge``'s."""
        if self._judge is None:
            custom = self.config.hook.pytest_typedmemeval_make_judge(config=self.config)
            self._judge_from_hook = custom is not None
            self._judge = custom if custom is not None else self.judge_choice.build()
        return self._judge

    def judge_description(self) -> dict[str, str | None]:
        """The report's ``judge`` block: mode, name, model and fingerprint."""
        judge = self.judge()
        return {"mode": "hook" if self._judge_from_hook else self.judge_choice.mode, "name": judge.name,
                "model": getattr(judge, "model", None), "fingerprint": judge.fingerprint}

    def loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
        return self._loop

    def close(self) -> None:
        close_judge = getattr(self._judge, "close", None)
        if callable(close_judge):
            close_judge()
        if self._loop is not None:
            self._loop.close()
            self._loop = None

    def add_result(self, result: QuestionResult) -> None:
        self.results[result.key] = result


SESSION_KEY = pytest.StashKey[TypedMemEvalSession]()
RESULT_KEY = pytest.StashKey[QuestionResult]()
BASELINE_KEY = pytest.StashKey[dict[str, Any]]()


def tme_session(config: pytest.Config) -> TypedMemEvalSession:
    return config.stash[SESSION_KEY]


def failure_text(result: QuestionResult) -> str:
    coverage = "null (no evidence reported)" if result.coverage is None else (
        f"{result.coverage:.2f} from the {result.coverage_source} list")
    return "\n".join([
        f"{result.corpus_id}/{result.question_id} [{result.vertical}/{result.shape}] outcome: {result.outcome}"
        + (" (the judge could not read this answer; it is counted apart, never as wrong)"
           if result.outcome == Outcome.UNJUDGED.value else ""),
        f"  question:    {result.question}",
        f"  gold:        {result.gold}",
        f"  answer:      {result.answer if result.answer is not None else '(none)'}",
        f"  reason:      {result.reason}",
        *([f"  mechanical:  {result.mechanical_outcome} (second opinion; not the verdict)"]
          if result.mechanical_outcome is not None else []),
        f"  coverage:    {coverage}",
        f"  attribution: {result.attribution}",
    ])


def error_result(case: QuestionCase, judge: Judge, reason: str) -> QuestionResult:
    """A result for a question whose item could not run (e.g. the adapter fixture raised)."""
    record, block = case.record, case.record.typedmemeval
    return QuestionResult(
        corpus_id=case.corpus.corpus_id, corpus_sha256=case.corpus.sha256,
        question_id=record.question_id, vertical=block.vertical, shape=block.shape,
        pair_id=block.pair_id, arm=block.arm, distance_sessions=block.distance_sessions,
        outcome=Outcome.ERROR.value, reason=reason, question=record.question, gold=record.answer,
        judge=judge.name, judge_fingerprint=judge.fingerprint,
    )


def _recalled_outcome(snapshot: Any) -> str | None:
    """The outcome recorded in the snapshot file, read back from syrupy's public execution record."""
    executions = getattr(snapshot, "executions", {})
    if not executions:
        return None
    recalled = executions[max(executions)].recalled_data
    if recalled is None:
        return None
    return str(recalled).strip().strip("'\"")


def evaluate_question(request: pytest.FixtureRequest, case: object, agent: object) -> None:
    """Run one question and decide the item's fate according to the mode."""
    assert isinstance(case, QuestionCase)
    session = tme_session(request.config)
    judge = session.judge()
    result = run_question(agent, case.corpus, case.record, judge, timeout=session.timeout,
                          loop=session.loop())
    request.node.stash[RESULT_KEY] = result
    request.config.hook.pytest_typedmemeval_result(result=result, item=request.node)

    if session.baseline:
        snapshot = request.getfixturevalue("snapshot")
        matches = snapshot == result.outcome
        recorded = _recalled_outcome(snapshot)
        request.node.stash[BASELINE_KEY] = {"question_id": result.question_id, "corpus_id": result.corpus_id,
                                            "recorded": recorded, "fresh": result.outcome}
        if not matches:
            was = "no recorded outcome" if recorded is None else f"baseline {recorded}"
            pytest.fail(f"outcome {result.outcome} differs from {was} "
                        "(re-record with --snapshot-update if the change is intended)\n"
                        + failure_text(result), pytrace=False)
        return
    if session.threshold_mode:
        if result.outcome == Outcome.ERROR.value:
            pytest.fail("error from the adapter or the judge's endpoint (errors fail even in "
                        "threshold mode: they are harness faults, not memory results)\n"
                        + failure_text(result), pytrace=False)
        return
    if result.outcome != Outcome.CORRECT.value:
        pytest.fail(failure_text(result), pytrace=False)
