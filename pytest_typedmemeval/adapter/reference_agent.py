"""The reference agent: a lexical memory with no model, no network and no key.

BM25 over the ingested sessions picks the top K_ref (5); an extractive reader answers with the one
sentence of those sessions that shares the most question tokens. It is a *baseline*, not a fake: it
reads only what the adapter protocol gives it (sessions, question), so its typed vector says what
plain lexical retrieval achieves on each shape. It never abstains, which is itself a finding on the
never-known and not-yet shapes.
"""

from __future__ import annotations

import re
from datetime import datetime

from ..retrieval.bm25 import K_REF, rank_sessions, session_document
from ..retrieval.tokenizer import tokenize
from .protocol import Answer, Evidence, Session

_SENTENCE_BOUNDARY = re.compile(r"(?<=[.!?])\s+|\n+")


def _sentences(text: str) -> list[str]:
    return [part.strip() for part in _SENTENCE_BOUNDARY.split(text) if part.strip()]


class LexicalMemoryAgent:
    """BM25 top-5 retrieval + best-overlap sentence extraction."""

    def __init__(self, k: int = K_REF) -> None:
        self.k = k
        self._sessions: list[Session] = []

    def reset(self) -> None:
        self._sessions = []

    def ingest(self, session: Session) -> None:
        self._sessions.append(session)

    def answer(self, question: str, *, query_time: datetime, instruction: str) -> Answer:
        if not self._sessions:
            return Answer("I don't know.", Evidence(retrieved=(), context=()))
        documents = [session_document([turn.content for turn in s.turns]) for s in self._sessions]
        ranked = rank_sessions(documents, question)[: self.k]
        ids = tuple(self._sessions[index].session_id for index in ranked)
        query = set(tokenize(question))
        best_text, best_score = "", -1
        for rank, index in enumerate(ranked):
            for turn in self._sessions[index].turns:
                for sentence in _sentences(turn.content):
                    score = len(query.intersection(tokenize(sentence)))
                    # Strictly greater: ties keep the higher-ranked session's earlier sentence.
                    if score > best_score:
                        best_text, best_score = sentence, score
        return Answer(best_text or "I don't know.", Evidence(retrieved=ids, context=ids))


def make_agent() -> LexicalMemoryAgent:
    """Factory for ``--tme-agent pytest_typedmemeval.adapter.reference_agent:make_agent`` (alias
    ``reference``)."""
    return LexicalMemoryAgent()
