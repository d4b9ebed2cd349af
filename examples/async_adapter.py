"""An async adapter: ``ingest`` and ``answer`` may be coroutines; TypedMemEval awaits them on one
event loop per session. Use with ``--tme-agent examples.async_adapter:make_agent`` (with ``examples``
importable, e.g. ``PYTHONPATH=.``)."""

from __future__ import annotations

import asyncio
from datetime import datetime

from pytest_typedmemeval import Answer, Evidence, Session


class AsyncEchoMemory:
    def __init__(self) -> None:
        self.sessions: list[Session] = []

    def reset(self) -> None:
        self.sessions = []

    async def ingest(self, session: Session) -> None:
        await asyncio.sleep(0)
        self.sessions.append(session)

    async def answer(self, question: str, *, query_time: datetime, instruction: str) -> Answer:
        await asyncio.sleep(0)
        last = self.sessions[-1] if self.sessions else None
        text = last.turns[0].content if last and last.turns else "I don't know."
        return Answer(text, Evidence(context=(last.session_id,) if last else ()))


def make_agent() -> AsyncEchoMemory:
    return AsyncEchoMemory()
