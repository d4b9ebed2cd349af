"""The leak gate's self-test fixtures: three clean Arithmetic questions (a sum, a trivial duration,
a named value) and the small edits its defect cases make to them.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from ...corpus.loading import Corpus
from ...corpus.models import (
    AnswerKey,
    CorpusTurn,
    Derivation,
    DerivationInput,
    ExtensionBlock,
    NumericKey,
    QuestionRecord,
    format_corpus_date,
)


_START = datetime(2026, 3, 2, 9, 0)
_FILLER = (
    "We sorted the garden shed and moved 3 tickets into the drawer by the door.",
    "The bakery on the corner changed its hours, so I now go at 7 before work.",
    "My cousin sent photos from the lake; the water looked cold and very clear.",
    "I finally fixed the squeaky hinge with oil and a bit of patience today.",
)


def _session(user: str, assistant: str, gold: bool = False) -> tuple[CorpusTurn, ...]:
    return (CorpusTurn(role="user", content=user, has_answer=gold),
            CorpusTurn(role="assistant", content=assistant))


def _record(number: int, question: str, answer: str, sessions: Sequence[tuple[CorpusTurn, ...]],
            gold: Sequence[int], block: dict[str, Any]) -> QuestionRecord:
    ids = [f"q{number:03d}-session-{index:02d}" for index in range(len(sessions))]
    dates = [format_corpus_date(_START + timedelta(days=3 * index)) for index in range(len(sessions))]
    return QuestionRecord(
        question_id=f"tme-ari-{number:03d}", question_type=block["shape"], question=question,
        answer=answer, question_date=format_corpus_date(_START + timedelta(days=3 * len(sessions))),
        haystack_session_ids=tuple(ids), haystack_dates=tuple(dates),
        haystack_sessions=tuple(sessions), answer_session_ids=tuple(ids[i] for i in gold),
        typedmemeval=ExtensionBlock.model_validate({"vertical": "arithmetic", **block}),
    )


def _clean_records() -> list[QuestionRecord]:
    """Three clean questions: a sum, a trivial duration, and a named value."""
    sum_sessions = [
        _session(_FILLER[0], "Good, that drawer needed sorting."),
        _session("The brake repair came to $45.20 at the garage.", "Noted, brakes are done.", True),
        _session(_FILLER[1], "An early start suits you."),
        _session("The window repair cost $83.55 in the end.", "That is fixed now.", True),
        _session(_FILLER[2], "Sounds like a calm weekend."),
    ]
    sum_record = _record(1, "How much did the two repairs cost me altogether?", "$128.75",
                         sum_sessions, (1, 3), {
                             "shape": "sum",
                             "answer_key": AnswerKey(accepted=("$128.75",),
                                                     numeric=NumericKey(value=128.75, unit="USD")),
                             "derivation": Derivation(operation="sum", unit="USD", value=128.75, inputs=(
                                 DerivationInput(session_index=1, value=45.20),
                                 DerivationInput(session_index=3, value=83.55))),
                         })
    duration_sessions = [
        _session("I started the sourdough starter this morning.", "Keep it somewhere warm.", True),
        _session(_FILLER[0], "Good, that drawer needed sorting."),
        _session("The sourdough starter is finally bubbling.", "Time to bake with it.", True),
        _session(_FILLER[3], "Small fixes feel good."),
    ]
    duration_record = _record(2, "How long did the sourdough starter take to get going?", "6 days",
                              duration_sessions, (0, 2), {
                                  "shape": "duration",
                                  "answer_key": AnswerKey(accepted=("6 days", "six days"),
                                                          numeric=NumericKey(value=6, unit="days")),
                                  "derivation": Derivation(operation="duration", unit="days", value=6,
                                                           inputs=(DerivationInput(session_index=2, value=6,
                                                                                   from_session_index=0),)),
                              })
    named_sessions = [
        _session(_FILLER[2], "Sounds like a calm weekend."),
        _session("My sister moved to Lisbon last spring.", "A lovely city to live in.", True),
        _session(_FILLER[1], "An early start suits you."),
    ]
    named_record = _record(3, "Which city did my sister move to?", "Lisbon", named_sessions, (1,), {
        "shape": "named",
        "answer_key": AnswerKey(accepted=("Lisbon",), wrong=("Porto",)),
    })
    return [sum_record, duration_record, named_record]


def _corpus(records: Sequence[QuestionRecord], name: str) -> Corpus:
    return Corpus(corpus_id=f"self-test-leaks-{name}", path=Path(f"<self-test:{name}>"),
                  sha256="0" * 64, records=tuple(records), sidecar=None, vertical="arithmetic")


def _with_turn(record: QuestionRecord, session: int, content: str) -> QuestionRecord:
    sessions = [list(turns) for turns in record.haystack_sessions]
    sessions[session].append(CorpusTurn(role="user", content=content))
    return record.model_copy(update={"haystack_sessions": tuple(tuple(s) for s in sessions)})
