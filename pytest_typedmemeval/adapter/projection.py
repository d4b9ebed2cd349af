"""What the adapter receives for one question — the single definition shared by the runner and the
leak guards, so the guard checks exactly what a system under test would see.

Session ids are replaced by opaque ones: a public benchmark's evidence ids begin with ``answer_``
and give gold away, so corpus ids never cross the boundary. The opaque id is a hash of the corpus
session id and the question id, which names neither and does not follow haystack order.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime

from ..corpus.index import RunRecord
from ..corpus.models import QuestionRecord
from .protocol import Session, Turn

DECLINE_PHRASE = "I do not have that information."
"""The one decline wording the answer contract asks for (the scenario benchmark's abstain phrase,
VERTICALS.md §6.2). The judge accepts every other decline wording too: the phrase tells a system how
to decline, it is not a password."""

ANSWER_CONTRACT = f"If our conversations do not say, reply exactly: {DECLINE_PHRASE}"
"""Appended to every instruction, the corpus's own included, so every question states how to
decline — a system is never left to guess whether an honest "I don't know" is allowed."""

DEFAULT_INSTRUCTION = "Answer from what was said in our conversations. Be brief."
"""The answer-format instruction of questions whose corpus record sets none."""


def instruction_for(record: QuestionRecord | RunRecord) -> str:
    """The instruction the adapter receives: the record's own (or the default), then the contract."""
    body = (record.typedmemeval.instruction or DEFAULT_INSTRUCTION).rstrip()
    return body if ANSWER_CONTRACT in body else f"{body} {ANSWER_CONTRACT}"


@dataclass(frozen=True)
class AdapterView:
    """Everything the adapter is given for one question, and nothing else."""

    sessions: tuple[Session, ...]
    question: str
    query_time: datetime
    instruction: str

    def texts(self) -> list[str]:
        """Every string the adapter can read (leak guards scan these)."""
        out = [self.question, self.instruction, self.query_time.isoformat()]
        for session in self.sessions:
            out.append(session.session_id)
            out.append(session.timestamp.isoformat())
            out.extend(turn.content for turn in session.turns)
            out.extend(turn.role for turn in session.turns)
        return out


def opaque_session_id(record: QuestionRecord | RunRecord, index: int) -> str:
    digest = hashlib.sha256(
        f"{record.question_id}\x00{record.haystack_session_ids[index]}".encode()
    ).hexdigest()
    return f"s{digest[:12]}"


def adapter_view(record: QuestionRecord | RunRecord) -> AdapterView:
    """The adapter's view of one record. A record read back for a run (:class:`RunRecord`)
    already holds its turns as the adapter's :class:`Turn` values (immutable, so passed on as they
    are); a whole record's turns are copied without their ``has_answer`` label."""
    times = record.session_times
    held = isinstance(record, RunRecord)
    sessions = tuple(
        Session(
            session_id=opaque_session_id(record, index),
            timestamp=times[index],
            turns=turns if held else tuple([Turn(turn.role, turn.content) for turn in turns]),  # type: ignore[misc]
        )
        for index, turns in enumerate(record.haystack_sessions)
    )
    return AdapterView(sessions=sessions, question=record.question, query_time=record.query_time,
                       instruction=instruction_for(record))


def opaque_to_index(record: QuestionRecord | RunRecord) -> dict[str, int]:
    """Map opaque ids back to haystack positions, to read a system's reported evidence."""
    return {opaque_session_id(record, index): index for index in range(len(record.haystack_sessions))}
