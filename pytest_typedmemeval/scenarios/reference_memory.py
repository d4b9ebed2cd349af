"""The deterministic reference memory system: statements with subjects, supersession, scopes, BM25.

It is the real baseline the scenario benchmark records and the example users copy. It implements
the whole scenario protocol, optional capabilities included, and — through
:class:`ReferenceMemoryAgent` — the vertical adapter protocol (reset / ingest / answer), so
``--tme-agent pytest_typedmemeval.scenarios.reference_memory:make_agent`` runs it on the verticals.

Behaviour, all deterministic:

* formation — each user message is split into first-person clauses (:mod:`.extraction`); at most
  :data:`COMMIT_CEILING` candidates commit per session (the rest count as ``dropped_for_ceiling``);
  secret-looking values and injection lines are never stored;
* supersession by subject — a new statement retires live ones with the same subject in its scope;
* scope — preferences are portable (stored as ``general``), everything else stays in the session's
  project scope; a probe sees its own scope plus ``general``;
* recall — a snapshot of up to :data:`SNAPSHOT_BUDGET` newest portable memories when the session
  opens, and BM25 (``rank_bm25`` Okapi) over visible live statements for the question, keeping up
  to :data:`RECALL_K` that share a token with it;
* maintenance — exact duplicates (same normalised statement and scope) keep only the newest.

The constructor switches (``supersede``, ``protect``, ``scoped``) exist so the benchmark's own
tests can show that turning one behaviour off surfaces as a named regression.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from ..adapter.protocol import Answer, Evidence, Session
from ..retrieval.bm25 import rank_sessions
from ..retrieval.tokenizer import tokenize
from .extraction import extract
from .matching import normalise
from .protocol import (GENERAL_SCOPE, FormationStats, ProbeReply, RecallTrace, RecalledMemory,
                       StoredMemory)

COMMIT_CEILING = 12
"""Most candidates one session may commit; a chatty session must not flood the store."""
SNAPSHOT_BUDGET = 3
RECALL_K = 3
ABSTAIN_TEXT = "I do not have that information."
VERSIONS: Mapping[str, str] = {
    "extractor": "reference-clauses-v1",
    "formation_policy": "supersede-by-subject-v1",
    "retrieval_policy": "snapshot3-bm25okapi3-v1",
}


@dataclass
class _Memory:
    memory_id: str
    statement: str
    subject: str | None
    scope: str
    portable: bool
    session_id: str
    status: str = "active"


class ReferenceMemory:
    """One scenario's memory store; build a fresh instance per scenario (or call :meth:`reset`)."""

    def __init__(self, *, supersede: bool = True, protect: bool = True, scoped: bool = True) -> None:
        self.supersede = supersede
        self.protect = protect
        self.scoped = scoped
        self.reset()

    def reset(self) -> None:
        self._items: list[_Memory] = []
        self._pending: dict[str, list[str]] = {}
        self._dropped_for_ceiling = 0

    # --- required calls -------------------------------------------------------------------
    def add_message(self, session_id: str, text: str, *, at: datetime, scope: str) -> None:
        self._pending.setdefault(session_id, []).append(text)

    def form(self, session_id: str, *, at: datetime, scope: str) -> None:
        candidates = [candidate for text in self._pending.pop(session_id, [])
                      for candidate in extract(text) if not (self.protect and candidate.protected)]
        self._dropped_for_ceiling += max(0, len(candidates) - COMMIT_CEILING)
        for candidate in candidates[:COMMIT_CEILING]:
            home = GENERAL_SCOPE if candidate.portable else scope
            if self.supersede and candidate.subject is not None:
                for old in self._live():
                    if old.subject == candidate.subject and old.scope == home:
                        old.status = "superseded"
            self._items.append(_Memory(f"m{len(self._items) + 1:04d}", candidate.statement,
                                       candidate.subject, home, candidate.portable, session_id))

    def ask(self, question: str, *, at: datetime, scope: str) -> ProbeReply:
        visible = [item for item in self._live()
                   if not self.scoped or item.scope in (scope, GENERAL_SCOPE)]
        portable = [item for item in reversed(visible) if item.portable]
        snapshot = portable[:SNAPSHOT_BUDGET]
        in_turn = self._search(visible, question)
        rendered = "\n".join(item.statement for item in snapshot)
        traces = (
            RecallTrace("snapshot", tuple(_recalled(item) for item in snapshot),
                        dropped_for_budget=len(portable) - len(snapshot)),
            RecallTrace("in_turn", tuple(_recalled(item) for item in in_turn)),
        )
        text = in_turn[0].statement if in_turn else ABSTAIN_TEXT
        return ProbeReply(text, traces, (hashlib.sha256(rendered.encode()).hexdigest(),))

    # --- optional capabilities --------------------------------------------------------------
    def maintain(self, *, at: datetime) -> None:
        newest: dict[tuple[str, str], _Memory] = {}
        for item in self._live():
            key = (normalise(item.statement), item.scope)
            if key in newest:
                newest[key].status = "retired"
            newest[key] = item

    def memories(self) -> Sequence[StoredMemory]:
        return [StoredMemory(item.memory_id, item.statement, item.status, item.subject, None, item.scope)
                for item in self._items]

    def formation_stats(self) -> FormationStats:
        return FormationStats(dropped_for_ceiling=self._dropped_for_ceiling)

    def versions(self) -> Mapping[str, str]:
        return dict(VERSIONS)

    # --- internals --------------------------------------------------------------------------
    def _live(self) -> list[_Memory]:
        return [item for item in self._items if item.status == "active"]

    def recall(self, question: str, scope: str = GENERAL_SCOPE) -> list[_Memory]:
        """In-turn recall alone (used by the vertical adapter)."""
        return self._search([item for item in self._live()
                             if not self.scoped or item.scope in (scope, GENERAL_SCOPE)], question)

    @staticmethod
    def _search(items: list[_Memory], question: str) -> list[_Memory]:
        query = set(tokenize(question))
        if not items or not query:
            return []
        ranked = rank_sessions([item.statement for item in items], question)
        hits = [items[index] for index in ranked if query & set(tokenize(items[index].statement))]
        return hits[:RECALL_K]


def _recalled(item: _Memory) -> RecalledMemory:
    return RecalledMemory(item.memory_id, item.statement, item.subject)


class ReferenceMemoryAgent:
    """The reference memory behind the vertical adapter protocol: each session forms memories in
    the general scope; the answer is the best recalled statement, evidence the sessions it came
    from. Its abstention is the scenario corpus's phrase when nothing shares a token."""

    def __init__(self) -> None:
        self.memory = ReferenceMemory()

    def reset(self) -> None:
        self.memory.reset()

    def ingest(self, session: Session) -> None:
        for turn in session.turns:
            if turn.role == "user":
                self.memory.add_message(session.session_id, turn.content, at=session.timestamp,
                                        scope=GENERAL_SCOPE)
        self.memory.form(session.session_id, at=session.timestamp, scope=GENERAL_SCOPE)

    def answer(self, question: str, *, query_time: datetime, instruction: str) -> Answer:
        hits = self.memory.recall(question)
        ids = tuple(dict.fromkeys(item.session_id for item in hits))
        return Answer(hits[0].statement if hits else ABSTAIN_TEXT, Evidence(retrieved=ids, context=ids))


def make_memory() -> ReferenceMemory:
    """Scenario factory: ``run_corpus(corpus, make_memory)``."""
    return ReferenceMemory()


def make_agent() -> ReferenceMemoryAgent:
    """Zero-argument factory for ``--tme-agent`` (alias ``reference-memory`` once wired)."""
    return ReferenceMemoryAgent()
