"""One question end to end: reset -> ingest sessions in order -> ask -> judge -> QuestionResult.

Knows nothing about pytest. An adapter exception or timeout becomes outcome ``error`` for this
question only; it is a harness fact, never a memory verdict, so it is never graded ``wrong``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import time
from collections.abc import Callable
from typing import Any, Protocol

from .agent import Answer, Evidence
from .corpus.loading import Corpus
from .corpus.models import AnswerKey, QuestionRecord
from .judge.outcomes import Outcome, Verdict
from .projection import AdapterView, adapter_view, opaque_to_index
from .results import Attribution, QuestionResult


class Judge(Protocol):
    """A judge grades one answer against the answer key. The mechanical judge is the default.

    ``question`` is the question text as the adapter saw it (never its id): the mechanical rules do
    not need it, a model judge does. A judge may also offer ``model: str | None`` (named in the
    report's ``judge`` block) and ``close()`` (called once at the end of the session).
    """

    name: str
    fingerprint: str

    def judge(self, answer: str, key: AnswerKey, surfaced_items: frozenset[str] | None = None,
              *, question: str | None = None) -> Verdict: ...


class AdapterTimeout(Exception):
    pass


def _is_async(agent: Any) -> bool:
    return any(inspect.iscoroutinefunction(getattr(agent, name, None)) for name in ("reset", "ingest", "answer"))


def _call_sync(function: Callable[..., Any], *args: Any, timeout: float | None, **kwargs: Any) -> Any:
    """Call a sync adapter method, bounded by ``timeout`` seconds when one is set.

    A timed-out sync call cannot be killed; its thread is abandoned. That is the price of not
    requiring adapters to be cancellable, and it is documented in the README.
    """
    if timeout is None:
        return function(*args, **kwargs)
    executor = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="tme-adapter")
    try:
        return executor.submit(function, *args, **kwargs).result(timeout=timeout)
    except concurrent.futures.TimeoutError:
        raise AdapterTimeout(f"{getattr(function, '__name__', 'call')}() exceeded --tme-timeout "
                             f"{timeout:g}s") from None
    finally:
        executor.shutdown(wait=False, cancel_futures=True)


async def _call_async(function: Callable[..., Any], *args: Any, timeout: float | None, **kwargs: Any) -> Any:
    result = function(*args, **kwargs)
    if not inspect.isawaitable(result):
        return result
    try:
        return await asyncio.wait_for(result, timeout)
    except asyncio.TimeoutError:
        raise AdapterTimeout(f"{getattr(function, '__name__', 'call')}() exceeded --tme-timeout "
                             f"{timeout:g}s") from None


def _drive_sync(agent: Any, view: AdapterView, timeout: float | None) -> Any:
    _call_sync(agent.reset, timeout=timeout)
    for session in view.sessions:
        _call_sync(agent.ingest, session, timeout=timeout)
    return _call_sync(agent.answer, view.question, query_time=view.query_time,
                      instruction=view.instruction, timeout=timeout)


async def _drive_async(agent: Any, view: AdapterView, timeout: float | None) -> Any:
    await _call_async(agent.reset, timeout=timeout)
    for session in view.sessions:
        await _call_async(agent.ingest, session, timeout=timeout)
    return await _call_async(agent.answer, view.question, query_time=view.query_time,
                             instruction=view.instruction, timeout=timeout)


def _coverage(record: QuestionRecord, evidence: Evidence | None) -> tuple[
        float | None, str | None, Attribution, frozenset[int] | None, int]:
    gold = set(record.gold_session_indices)
    if evidence is None or (evidence.context is None and evidence.retrieved is None):
        return None, None, "unobserved", None, 0
    source = "context" if evidence.context is not None else "retrieved"
    listed = evidence.context if evidence.context is not None else evidence.retrieved
    assert listed is not None
    mapping = opaque_to_index(record)
    surfaced = frozenset(mapping[sid] for sid in listed if sid in mapping)
    unknown = sum(1 for sid in listed if sid not in mapping)
    if not gold:
        return None, source, "not_applicable", surfaced, unknown
    coverage = len(gold & surfaced) / len(gold)
    attribution: Attribution = "present" if coverage == 1 else ("absent" if coverage == 0 else "partial")
    return coverage, source, attribution, surfaced, unknown


def run_question(agent: Any, corpus: Corpus, record: QuestionRecord, judge: Judge, *,
                 timeout: float | None = None,
                 loop: asyncio.AbstractEventLoop | None = None) -> QuestionResult:
    view = adapter_view(record)
    block = record.typedmemeval
    started = time.perf_counter()
    answer_text: str | None = None
    evidence: Evidence | None = None
    coverage: float | None = None
    source: str | None = None
    attribution: Attribution = "unobserved"
    surfaced_indices: frozenset[int] | None = None
    unknown = 0
    try:
        if _is_async(agent):
            # One loop for the whole session: async clients are often bound to the loop they
            # were created on, so a fresh loop per call would break them.
            if loop is None:
                raw = asyncio.run(_drive_async(agent, view, timeout))
            else:
                raw = loop.run_until_complete(_drive_async(agent, view, timeout))
        else:
            raw = _drive_sync(agent, view, timeout)
        if isinstance(raw, Answer):
            answer_text, evidence = raw.text, raw.evidence
        elif isinstance(raw, str):
            answer_text = raw
        else:
            raise TypeError(f"answer() returned {type(raw).__name__}; expected str or Answer")
        if not isinstance(answer_text, str):
            raise TypeError(f"Answer.text is {type(answer_text).__name__}; expected str")
    except Exception as error:  # noqa: BLE001 - any adapter failure is this question's error
        verdict = Verdict(Outcome.ERROR, f"adapter raised {type(error).__name__}: {error}".splitlines()[0])
    else:
        coverage, source, attribution, surfaced_indices, unknown = _coverage(record, evidence)
        surfaced_items = None
        if block.list_order is not None and surfaced_indices is not None:
            surfaced_items = frozenset(item for item, index in zip(block.list_order.items,
                                                                    block.list_order.session_indices)
                                       if index in surfaced_indices)
        verdict = judge.judge(answer_text, block.answer_key, surfaced_items, question=record.question)
    return QuestionResult(
        corpus_id=corpus.corpus_id, corpus_sha256=corpus.sha256, question_id=record.question_id,
        vertical=block.vertical, shape=block.shape, pair_id=block.pair_id, arm=block.arm,
        distance_sessions=block.distance_sessions, outcome=verdict.outcome.value, reason=verdict.reason,
        subcounts=tuple(sorted(verdict.subcounts)), question=record.question, gold=record.answer,
        answer=answer_text, coverage=coverage, coverage_source=source,  # type: ignore[arg-type]
        attribution=attribution, unknown_evidence_ids=unknown, judge=judge.name,
        judge_fingerprint=judge.fingerprint,
        mechanical_outcome=None if verdict.mechanical_outcome is None else verdict.mechanical_outcome.value,
        duration_seconds=time.perf_counter() - started,
    )
