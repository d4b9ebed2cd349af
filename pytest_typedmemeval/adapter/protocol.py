"""The adapter protocol between TypedMemEval and the memory system under test.

The adapter sees only what a user would have said: sessions (opaque id, timestamp, turns), the
question, the moment of asking and the answer-format instruction. Labels, gold and the question id
never cross this boundary (the leak guards test exactly that).

Plain value types and one protocol, importing nothing of the package: every layer that speaks to
an adapter (the runner, the dataset loaders, the scenario reference memory) depends on this module
and on nothing it would drag along. Resolving ``--tme-agent`` to a factory is :mod:`.factories`.
"""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, Protocol, runtime_checkable


@dataclass(frozen=True)
class Turn:
    """One turn of a session as the adapter receives it: role, text and, where the source has one,
    the turn's own time.

    ``timestamp`` is ``None`` unless the source dates single turns (HaluMem's dialogue turns do;
    LoCoMo, LongMemEval and the TypedMemEval corpora date sessions only): a system that wants a
    time for every turn falls back to the session's ``timestamp``. Naive, like every time here.
    """

    role: Literal["user", "assistant"]
    content: str
    timestamp: datetime | None = None


@dataclass(frozen=True)
class Session:
    """One conversation session. ``session_id`` is opaque: its text and order say nothing of gold."""

    session_id: str
    timestamp: datetime
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class Evidence:
    """What the system says it used, in the opaque session ids it was given.

    ``retrieved`` are the sessions the memory surfaced; ``context`` those placed in the answer
    context. Either may be ``None`` when the system cannot tell; coverage then falls back to the
    other list, or to ``null`` when neither is known (never to zero).
    """

    retrieved: tuple[str, ...] | None = None
    context: tuple[str, ...] | None = None
    contents: dict[str, str] | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Answer:
    """The system's answer text and, optionally, the evidence behind it."""

    text: str
    evidence: Evidence | None = None


@runtime_checkable
class MemoryAgent(Protocol):
    """What an adapter implements. ``ingest`` and ``answer`` may also be ``async def``.

    ``reset`` is called before every question: each question owns its haystack, so nothing may
    carry over between questions (pairs included).
    """

    def reset(self) -> None | Awaitable[None]: ...

    def ingest(self, session: Session) -> None | Awaitable[None]: ...

    def answer(
        self, question: str, *, query_time: datetime, instruction: str
    ) -> Answer | str | Awaitable[Answer | str]: ...
