"""The reference LLM agents: what a user compares their own memory against, and what the probe
runner reuses.

Three agents share one prompt builder and one model caller; they differ **only** in which sessions
go into the prompt:

- ``llm-full-context``: every ingested session (the whole haystack);
- ``llm-bm25``: the BM25 top ``K_REF`` sessions for the question (the reference retriever);
- ``llm-no-memory``: no session at all (what the model knows, or guesses, unaided).

Whatever is selected is shown in ingest order with its timestamp and turns, then the question, the
moment of asking and the answer-format instruction. Nothing else reaches the model: the agent sees
only what the adapter protocol gives it (no labels, no gold, no question id).

Every model call goes through :class:`..calls.ModelCaller` (cache, price check, the shared cost
ceiling, retries for transient faults). A :class:`..calls.endpoint.ModelCallError` is *raised* out of
``answer()``: the runner turns it into outcome ``error`` with the one-line reason, so a refused or
failed call is a harness fault, never a judged answer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Literal, Protocol

from ..corpus.models import format_corpus_date
from ..retrieval.bm25 import K_REF, rank_sessions, session_document
from .protocol import Answer, Evidence, Session

Selection = Literal["full-context", "bm25", "no-memory"]

LLM_AGENT_SELECTIONS: Mapping[str, Selection] = {
    "llm-full-context": "full-context",
    "llm-bm25": "bm25",
    "llm-no-memory": "no-memory",
}
"""``--tme-agent`` alias -> which sessions the agent puts in the prompt."""

SYSTEM_PROMPT = (
    "You are a personal assistant with a memory of earlier conversations with the user. Answer the "
    "user's question from those conversations only, as of the current date given. Reply with the "
    "answer alone, without explanation."
)
NO_SESSIONS_TEXT = "(No earlier conversations are available.)"


class Completes(Protocol):
    """What the agent needs of a model caller (:class:`..calls.ModelCaller` has it; tests stub it)."""

    def complete(self, messages: Sequence[Mapping[str, str]]) -> object: ...


def render_session(number: int, session: Session) -> str:
    """One session as the model reads it: a numbered header with its timestamp, then its turns.

    The opaque session id is not shown: it carries no information for the model, and leaving it
    out keeps the prompt (and so the cache key) a function of what was said and when.
    """
    lines = [f"### Session {number} ({format_corpus_date(session.timestamp)})"]
    lines += [f"{turn.role}: {turn.content}" for turn in session.turns]
    return "\n".join(lines)


def build_messages(sessions: Sequence[Session], question: str, *, query_time: datetime,
                   instruction: str) -> list[dict[str, str]]:
    """The chat messages for one question: the shared prompt of every reference LLM agent.

    ``sessions`` are shown in the order given (callers pass ingest order), so two agents that
    select the same sessions send byte-identical requests and share cache entries.
    """
    if sessions:
        history = "\n\n".join(render_session(n, s) for n, s in enumerate(sessions, start=1))
    else:
        history = NO_SESSIONS_TEXT
    user = (f"Our earlier conversations, oldest first:\n\n{history}\n\n"
            f"Current date: {format_corpus_date(query_time)}\n"
            f"Question: {question}\n"
            f"Instruction: {instruction}")
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


def select_sessions(selection: Selection, sessions: Sequence[Session], question: str,
                    k: int = K_REF) -> list[Session]:
    """The sessions that go into the prompt, in ingest order (see the module docstring)."""
    if selection == "no-memory" or not sessions:
        return []
    if selection == "full-context":
        return list(sessions)
    documents = [session_document([turn.content for turn in s.turns]) for s in sessions]
    chosen = set(rank_sessions(documents, question)[:k])
    return [session for index, session in enumerate(sessions) if index in chosen]


class LLMMemoryAgent:
    """A reference agent: selected sessions + question -> one model call -> the answer text.

    Evidence names the sessions placed in the prompt, as both ``retrieved`` and ``context`` (for
    ``no-memory`` both are empty: the agent knows it used nothing, so attribution is ``absent``,
    not ``unobserved``).
    """

    def __init__(self, caller: Completes, selection: Selection, *, k: int = K_REF) -> None:
        self.caller = caller
        self.selection: Selection = selection
        self.k = k
        self._sessions: list[Session] = []
        self.served_models: set[str] = set()
        """Model names the server said answered (a local server may serve another than asked)."""

    def reset(self) -> None:
        self._sessions = []

    def ingest(self, session: Session) -> None:
        self._sessions.append(session)

    def answer(self, question: str, *, query_time: datetime, instruction: str) -> Answer:
        chosen = select_sessions(self.selection, self._sessions, question, self.k)
        messages = build_messages(chosen, question, query_time=query_time, instruction=instruction)
        completion = self.caller.complete(messages)  # ModelCallError propagates: outcome error
        served = getattr(completion, "served_model", None)
        if served:
            self.served_models.add(str(served))
        ids = tuple(session.session_id for session in chosen)
        return Answer(str(getattr(completion, "text", "")).strip(), Evidence(retrieved=ids, context=ids))


def make_llm_agent(alias: str, caller: Completes) -> LLMMemoryAgent:
    """The agent an ``--tme-agent`` alias names, on ``caller`` (raises ``KeyError`` otherwise)."""
    return LLMMemoryAgent(caller, LLM_AGENT_SELECTIONS[alias])


__all__ = ["LLM_AGENT_SELECTIONS", "LLMMemoryAgent", "NO_SESSIONS_TEXT", "SYSTEM_PROMPT",
           "Selection", "build_messages", "make_llm_agent", "render_session", "select_sessions"]
