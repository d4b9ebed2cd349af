"""One question end to end: reset -> ingest sessions in order -> ask -> judge -> QuestionResult.

Knows nothing about pytest. An adapter exception (any ``BaseException`` but ``KeyboardInterrupt``),
a timeout, a blocked event loop, a malformed answer or a judge failure becomes outcome ``error`` for
this question only; it is a harness fact, never a memory verdict, so it is never graded ``wrong``.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from ..corpus.loading import CorpusIdentity
from ..corpus.index import RunRecord
from ..corpus.models import QuestionRecord
from ..judge.outcomes import Outcome, Verdict
from ..judge.protocol import Judge
from ..results import Attribution, QuestionResult
from .bounded_calls import AdapterCalls, AdapterTimeout, LoopBlocked
from .projection import adapter_view, opaque_to_index
from .protocol import Answer, Evidence


STORED_ANSWER_CHARS = 20_000
"""An answer is stored in the result (and the report) up to this many characters, the length the
mechanical judge reads (``judge.reading_patterns.MAX_JUDGED_CHARS``): a 10 MB answer must not
become a 10 MB report line, a 10 MB xdist message or a 10 MB failure text. The stored text says how
much was cut."""

REASON_CHARS = 500
"""An adapter's exception message is kept to one line of at most this many characters."""


def plain_text(text: str) -> str:
    """``text`` made encodable as UTF-8: lone surrogates become ``\\udXXX`` escapes.

    An answer may hold anything a Python ``str`` can; the report, the xdist channel and the
    terminal need UTF-8. Done once, where the adapter's text enters a result.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def _stored_answer(text: str) -> str:
    if len(text) <= STORED_ANSWER_CHARS:
        return plain_text(text)
    return (plain_text(text[:STORED_ANSWER_CHARS])
            + f" [... {len(text) - STORED_ANSWER_CHARS:,} more characters not stored]")


def one_line(text: str, limit: int = REASON_CHARS) -> str:
    """The first line of ``text``, at most ``limit`` characters, encodable."""
    lines = str(text).strip().splitlines()
    first = lines[0] if lines else ""
    if len(first) > limit:
        first = first[:limit] + "..."
    return plain_text(first)


class AdapterContractError(TypeError):
    """``answer()`` returned something the protocol does not allow (checked before judging)."""


def failure_reason(error: BaseException) -> str:
    """One line saying what went wrong in the adapter call."""
    if isinstance(error, (AdapterTimeout, LoopBlocked, AdapterContractError)):
        return one_line(str(error))
    message = one_line(str(error))
    return f"adapter raised {type(error).__name__}" + (f": {message}" if message else "")


def _checked_ids(ids: Any, field_name: str) -> tuple[str, ...] | None:
    if ids is None:
        return None
    if isinstance(ids, (str, bytes)) or not isinstance(ids, (tuple, list)):
        raise AdapterContractError(f"Evidence.{field_name} is {type(ids).__name__}; expected a tuple of "
                                   "the session ids ingest() received (str)")
    for index, value in enumerate(ids):
        if not isinstance(value, str):
            raise AdapterContractError(f"Evidence.{field_name}[{index}] is {type(value).__name__}; "
                                       "evidence lists hold the session ids ingest() received (str)")
    return tuple(ids)


def read_answer(raw: Any) -> tuple[str, Evidence | None]:
    """The answer text and checked evidence from what ``answer()`` returned.

    Raises :class:`AdapterContractError` (a one-line reason) for anything else: the question is
    then ``error``, and the malformed value never reaches the judge or coverage.
    """
    if isinstance(raw, str):
        return raw, None
    if not isinstance(raw, Answer):
        raise AdapterContractError(f"answer() returned {type(raw).__name__}; expected str or Answer")
    if not isinstance(raw.text, str):
        raise AdapterContractError(f"Answer.text is {type(raw.text).__name__}; expected str")
    evidence = raw.evidence
    if evidence is None:
        return raw.text, None
    if not isinstance(evidence, Evidence):
        raise AdapterContractError(f"Answer.evidence is {type(evidence).__name__}; expected Evidence or None")
    checked = Evidence(retrieved=_checked_ids(evidence.retrieved, "retrieved"),
                       context=_checked_ids(evidence.context, "context"), contents=evidence.contents)
    return raw.text, checked


def _coverage(record: QuestionRecord | RunRecord, evidence: Evidence | None) -> tuple[
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


def run_question(agent: Any, corpus: CorpusIdentity, record: QuestionRecord | RunRecord, judge: Judge, *,
                 timeout: float | None = None,
                 loop: asyncio.AbstractEventLoop | None = None,
                 calls: AdapterCalls | None = None) -> QuestionResult:
    """Run one question and return its result; never raises for anything the adapter does.

    Every exception from the adapter (``SystemExit``, ``asyncio.CancelledError`` and other
    ``BaseException``s included), a timeout, a blocked event loop, a malformed answer and a judge
    failure become outcome ``error`` with a one-line reason. Only ``KeyboardInterrupt`` propagates:
    it is the user stopping the run. ``calls`` carries the process's helper threads and loop;
    without it a temporary one is used (``timeout`` and ``loop`` configure it).
    """
    own_calls = calls is None
    if calls is None:
        calls = AdapterCalls(timeout, loop=loop)
    view = adapter_view(record)
    started = time.perf_counter()
    raw: Any = None
    failure: BaseException | None = None
    try:
        raw = calls.drive(agent, view.sessions, question_kwargs(view))
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # noqa: BLE001 - any adapter failure is this question's error
        failure = error
    finally:
        if own_calls:
            calls.close()
    return result_of_answer(corpus, record, judge, raw=raw, error=failure, started=started)


def question_kwargs(view: Any) -> dict[str, Any]:
    """What ``answer()`` is asked with, from the adapter's view of a record."""
    return {"question": view.question, "query_time": view.query_time, "instruction": view.instruction}


def result_of_answer(corpus: CorpusIdentity, record: QuestionRecord | RunRecord, judge: Judge, *, raw: Any,
                     error: BaseException | None, started: float) -> QuestionResult:
    """The question's result from what the adapter did (``raw``, what ``answer()`` returned, or
    the ``error`` it raised): the answer is checked, judged and attributed here, so a question
    answered ahead of its turn (``--tme-parallel``) is judged exactly as one answered inline.
    ``started`` is the ``perf_counter`` reading the question's duration counts from."""
    block = record.typedmemeval
    answer_text: str | None = None
    coverage: float | None = None
    source: str | None = None
    attribution: Attribution = "unobserved"
    unknown = 0
    order_consistent: bool | None = None
    try:
        if error is not None:
            raise error
        answer_text, evidence = read_answer(raw)
    except KeyboardInterrupt:
        raise
    except BaseException as failure:  # noqa: BLE001 - any adapter failure is this question's error
        answer_text = None
        verdict = Verdict(Outcome.ERROR, failure_reason(failure))
    else:
        coverage, source, attribution, surfaced_indices, unknown = _coverage(record, evidence)
        verdict = _judged(judge, record, answer_text, surfaced_indices)
        order_consistent = _surfaced_order(record, answer_text, surfaced_indices)
    return QuestionResult(
        corpus_id=corpus.corpus_id, corpus_sha256=corpus.sha256, question_id=record.question_id,
        vertical=block.vertical, shape=block.shape, pair_id=block.pair_id, arm=block.arm,
        distance_sessions=block.distance_sessions, outcome=verdict.outcome.value,
        reason=plain_text(verdict.reason),
        subcounts=tuple(sorted(verdict.subcounts)), question=record.question, gold=record.answer,
        answer=None if answer_text is None else _stored_answer(answer_text), coverage=coverage,
        coverage_source=source,  # type: ignore[arg-type]
        attribution=attribution, unknown_evidence_ids=unknown, judge=judge.name,
        judge_fingerprint=judge.fingerprint,
        mechanical_outcome=None if verdict.mechanical_outcome is None else verdict.mechanical_outcome.value,
        model_outcome=None if verdict.model_outcome is None else verdict.model_outcome.value,
        surfaced_order_consistent=order_consistent,
        duration_seconds=time.perf_counter() - started,
    )


def _surfaced_items(record: QuestionRecord | RunRecord, surfaced_indices: frozenset[int] | None
                    ) -> frozenset[str] | None:
    """The list-order items whose gold sessions the adapter reported surfacing (``None``: not a
    list question, or no evidence)."""
    block = record.typedmemeval
    if block.list_order is None or surfaced_indices is None:
        return None
    return frozenset(item for item, index in zip(block.list_order.items, block.list_order.session_indices)
                     if index in surfaced_indices)


def _surfaced_order(record: QuestionRecord | RunRecord, answer_text: str,
                    surfaced_indices: frozenset[int] | None) -> bool | None:
    """List order over the surfaced items (:func:`..judge.mechanical.surfaced_order_consistent`),
    read by the mechanical reader whatever the judge: a figure about the memory, not a verdict."""
    from ..judge.mechanical import surfaced_order_consistent

    items = _surfaced_items(record, surfaced_indices)
    if items is None:
        return None
    try:
        return surfaced_order_consistent(answer_text, record.typedmemeval.answer_key, items,
                                         question=record.question)
    except Exception:  # noqa: BLE001 - a figure beside the verdict must never lose the question
        return None


def _judged(judge: Judge, record: QuestionRecord | RunRecord, answer_text: str,
            surfaced_indices: frozenset[int] | None) -> Verdict:
    """The judge's verdict; a judge that raises gives ``error`` (a harness fault), never a crash."""
    block = record.typedmemeval
    try:
        surfaced_items = _surfaced_items(record, surfaced_indices)
        return judge.judge(answer_text, block.answer_key, surfaced_items, question=record.question)
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # noqa: BLE001 - a judge bug must not lose the question
        return Verdict(Outcome.ERROR, f"the judge raised {type(error).__name__}: {one_line(str(error))}")
