"""A consumer's rootdir conftest.py: plug your memory system into TypedMemEval.

Copy this file to the root of your repository (next to pytest.ini / pyproject.toml), replace
``KeywordMemory`` with your own system, and run ``pytest --typedmemeval``.
"""

from __future__ import annotations

from datetime import datetime

import pytest

from pytest_typedmemeval import Answer, Evidence, Session


class KeywordMemory:
    """Stand-in for your system: stores sessions, answers with the most recent matching user turn."""

    def __init__(self) -> None:
        self.sessions: list[Session] = []

    def reset(self) -> None:
        self.sessions = []

    def ingest(self, session: Session) -> None:
        self.sessions.append(session)

    def answer(self, question: str, *, query_time: datetime, instruction: str) -> Answer:
        words = {w.strip("?.,").lower() for w in question.split() if len(w) > 3}
        for session in reversed(self.sessions):
            for turn in session.turns:
                if turn.role == "user" and words & {w.strip("?.,").lower() for w in turn.content.split()}:
                    return Answer(turn.content, Evidence(context=(session.session_id,)))
        return Answer("I don't know.", Evidence(context=()))


@pytest.fixture(scope="session")
def typedmemeval_agent() -> KeywordMemory:
    return KeywordMemory()
