"""The scenario adapter protocol: how any memory system meets the scenario benchmark (§6.3).

The harness replays a scenario on one instance: every user message with its instant and project
scope, a formation call at the end of each session, one maintenance pass, then the probes. Time
is *passed in* (``at=``) on every call, computed from the corpus, so no system needs a clock of its
own; a system whose internals read a clock (decay sweeps, expiry) may also take the harness's
:class:`ScenarioClock` through ``bind_clock``, which the harness moves before every call.

Three methods are required (:class:`ScenarioMemory`). Everything else is an optional capability;
a missing capability makes the metrics that need it *not measured* — ``None`` with a reason in the
result — never zero, because "we could not look" is not "there was nothing":

=====================  ===========================================  ==============================
capability             how it is offered                            metrics that need it
=====================  ===========================================  ==============================
list what is stored    ``memories() -> Sequence[StoredMemory]``     formation metrics, needed_formed,
                                                                    policy_failures, currency split
report what recalled   ``ask`` returns ``ProbeReply(traces=...)``   needed_recalled, returned_*,
                                                                    noise_*, forbidden counters
prompt prefixes        ``ProbeReply(prefix_digests=...)``           distinct_prefixes
candidate ceiling      ``formation_stats() -> FormationStats``      dropped_for_ceiling
maintenance            ``maintain(*, at)``                          (none; skipped when absent)
versions               ``versions() -> Mapping[str, str]``          drift check of the baseline
=====================  ===========================================  ==============================

A worked adapter, for a store that keeps text chunks per namespace and searches them::

    from pytest_typedmemeval.scenarios import ProbeReply, RecallTrace, RecalledMemory, StoredMemory

    class MyStoreAdapter:
        def __init__(self) -> None:
            self.store = mystore.InMemoryStore()              # fresh per scenario
            self.pending: dict[str, list[str]] = {}

        def add_message(self, session_id, text, *, at, scope):
            self.pending.setdefault(session_id, []).append(text)

        def form(self, session_id, *, at, scope):             # called once per session
            for text in self.pending.pop(session_id, []):
                self.store.add(text, namespace=scope, created_at=at)

        def ask(self, question, *, at, scope):
            hits = self.store.search(question, namespaces=[scope, "general"], k=5)
            returned = tuple(RecalledMemory(hit.id, hit.text) for hit in hits)
            return ProbeReply(text=hits[0].text if hits else "",
                              traces=(RecallTrace("in_turn", returned),))

        def memories(self):                                   # optional: formation metrics
            return [StoredMemory(item.id, item.text, scope=item.namespace)
                    for item in self.store.all()]

Matching is on statements (§6.4): a stored or recalled memory matches a labelled belief when a
labelled statement occurs in its statement on token boundaries after normalisation; ``subject``
and ``belief_type`` are compared only when the memory reports them, so a chunk store that has
neither is measured on what it has. Scope is a string: the session's ``project_scope``, or
``"general"`` for an unscoped session or probe.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal, Protocol, runtime_checkable

GENERAL_SCOPE = "general"
"""The scope of a session or probe without ``project_scope`` (§6.3 pseudo-code)."""

LIVE_STATUSES = frozenset({"active", "provisional"})
"""Statuses counted as live (formed) memories (§6.4 ``formed``)."""


@dataclass(frozen=True)
class StoredMemory:
    """One memory as the system holds it now. ``status`` outside :data:`LIVE_STATUSES` (e.g.
    ``superseded``, ``retired``, ``rejected``) still counts for ``policy_failures``."""

    memory_id: str
    statement: str
    status: str = "active"
    subject: str | None = None
    belief_type: str | None = None
    scope: str | None = None


@dataclass(frozen=True)
class RecalledMemory:
    """One memory a recall returned (rendered into the model's context)."""

    memory_id: str
    statement: str
    subject: str | None = None
    belief_type: str | None = None


@dataclass(frozen=True)
class RecallTrace:
    """One recall moment: ``snapshot`` (made when the session opened) or ``in_turn`` (for the
    question). Only ``returned`` counts towards recall; ``dropped_for_budget`` counts candidates
    left out for the context budget; ``blocked`` lists what policy withheld from rendering."""

    moment: Literal["snapshot", "in_turn"]
    returned: tuple[RecalledMemory, ...]
    dropped_for_budget: int = 0
    blocked: tuple[str, ...] = ()


@dataclass(frozen=True)
class ProbeReply:
    """What ``ask`` returns. ``traces=None`` means the system cannot report recall (not measured);
    ``traces=()`` means it recalled nothing (measured, zero)."""

    text: str
    traces: tuple[RecallTrace, ...] | None = None
    prefix_digests: tuple[str, ...] | None = None


@dataclass(frozen=True)
class FormationStats:
    """Counters a system keeps about its own formation, totalled over the scenario."""

    dropped_for_ceiling: int = 0


class ScenarioClock:
    """A frozen clock only the harness moves; systems read ``now()``."""

    def __init__(self, start: datetime) -> None:
        self._now = start

    def now(self) -> datetime:
        return self._now

    def set(self, instant: datetime) -> None:
        if instant < self._now:
            raise ValueError(f"the scenario clock never moves back ({instant} < {self._now})")
        self._now = instant

    def advance(self, seconds: int) -> None:
        self.set(self._now + timedelta(seconds=seconds))


@runtime_checkable
class ScenarioMemory(Protocol):
    """The three calls every system under test answers. A fresh instance serves one scenario."""

    def add_message(self, session_id: str, text: str, *, at: datetime, scope: str) -> None:
        """Append one user message to session ``session_id`` (opaque id) at instant ``at``."""

    def form(self, session_id: str, *, at: datetime, scope: str) -> None:
        """Form memories from the session just replayed; called directly, once per session."""

    def ask(self, question: str, *, at: datetime, scope: str) -> ProbeReply | str:
        """Open a session in ``scope`` and ask the bare question; a plain ``str`` reports no recall."""


@runtime_checkable
class ListsMemories(Protocol):
    def memories(self) -> Sequence[StoredMemory]:
        """Every memory held now, in any status."""


@runtime_checkable
class Maintains(Protocol):
    def maintain(self, *, at: datetime) -> None:
        """One maintenance pass (dedupe, decay, consolidation); run exactly once before the probes."""


@runtime_checkable
class ReportsFormation(Protocol):
    def formation_stats(self) -> FormationStats:
        """Counters totalled over every formation call so far."""


@runtime_checkable
class UsesClock(Protocol):
    def bind_clock(self, clock: ScenarioClock) -> None:
        """Receive the harness clock once, before the first message."""


@runtime_checkable
class DescribesVersions(Protocol):
    def versions(self) -> Mapping[str, str]:
        """``extractor`` and policy versions; a change shows as baseline drift, not as a score."""
