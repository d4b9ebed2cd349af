"""Formation and retrieval metrics of the deterministic arm (VERTICALS.md §6.4), as pure functions.

Inputs are the corpus models and what the adapter reported (stored memories, recall traces); no
adapter is called here. A metric whose input the adapter cannot report is ``None`` and its reason is
recorded under ``not_measured`` — never 0, since a zero would read as "nothing went wrong".

Two readings of §6.4 are made explicit here (marked [inferred] there):

* a memory matches a label when a labelled statement occurs in the memory's statement on token
  boundaries after normalisation, and — only when the memory reports them — its subject is among the
  label's subjects and its type equals the label's. A chunk store with no subjects is measured on
  what it has;
* ``fabricated`` counts live memories that match no label at all. That equals
  ``formed − supported − stale_live`` whenever memories and labels pair one to one, and stays a
  count of things (never negative) when one memory matches two labels or two memories one label.
"""

from __future__ import annotations

from collections.abc import Sequence

from .matching import contains, contains_any, normalise
from .models import BenchmarkProbe, BenchmarkScenario, LabeledBelief
from .protocol import LIVE_STATUSES, FormationStats, ProbeReply, RecalledMemory, StoredMemory
from .results import Counts, FormationResult, ProbeResult
from .timeline import session_distance

NO_LISTING = "the adapter has no memories() capability"
NO_TRACES = "ask() reported no recall traces (return ProbeReply(traces=...))"
NO_PREFIXES = "ask() reported no prefix digests"
NO_STATS = "the adapter has no formation_stats() capability"

FORBIDDEN_COUNTERS = ("currency_violations", "currency_unformed", "abstention_leaks", "false_transfers",
                      "other_forbidden_rendered")


def matches(statement: str, subject: str | None, belief_type: str | None, belief: LabeledBelief) -> bool:
    """Whether one stored or recalled memory matches one labelled belief (see module docstring)."""
    if belief_type is not None and belief_type != belief.belief_type:
        return False
    if subject is not None and normalise(subject) not in {normalise(s) for s in belief.subjects}:
        return False
    return contains_any(statement, belief.statements)


def _matches_memory(memory: StoredMemory | RecalledMemory, belief: LabeledBelief) -> bool:
    return matches(memory.statement, memory.subject, memory.belief_type, belief)


def superseded_labels(scenario: BenchmarkScenario) -> set[str]:
    return {belief.supersedes for belief in scenario.beliefs if belief.supersedes is not None}


def formation_metrics(scenario: BenchmarkScenario, stored: Sequence[StoredMemory] | None,
                      stats: FormationStats | None) -> FormationResult:
    """Per-scenario formation counts from the memories held after maintenance."""
    replaced = superseded_labels(scenario)
    expected = [belief for belief in scenario.beliefs if belief.label not in replaced]
    stale = [belief for belief in scenario.beliefs if belief.label in replaced]
    counts: Counts = {"expected": len(expected)}
    not_measured: dict[str, str] = {}
    listing = ("supported", "unformed", "formed", "stale_live", "fabricated", "policy_failures")
    if stored is None:
        counts.update({name: None for name in listing})
        not_measured.update({name: NO_LISTING for name in listing})
    else:
        live = [memory for memory in stored if memory.status in LIVE_STATUSES]
        supported = sum(any(_matches_memory(m, b) for m in live) for b in expected)
        stale_live = sum(any(_matches_memory(m, b) for b in stale) for m in live)
        unlabelled = sum(not any(_matches_memory(m, b) for b in scenario.beliefs) for m in live)
        counts.update({
            "supported": supported,
            "unformed": len(expected) - supported,
            "formed": len(live),
            "stale_live": stale_live,
            "fabricated": unlabelled,
            "policy_failures": sum(contains_any(m.statement, scenario.protected_statements)
                                   for m in stored),
        })
    if stats is None:
        counts["dropped_for_ceiling"] = None
        not_measured["dropped_for_ceiling"] = NO_STATS
    else:
        counts["dropped_for_ceiling"] = stats.dropped_for_ceiling
    return FormationResult(scenario.id, dict(sorted(counts.items())), not_measured)


def _distinct(memories: Sequence[RecalledMemory]) -> list[RecalledMemory]:
    seen: dict[str, RecalledMemory] = {}
    for memory in memories:
        seen.setdefault(memory.memory_id, memory)
    return list(seen.values())


def probe_metrics(scenario: BenchmarkScenario, probe: BenchmarkProbe, live: Sequence[StoredMemory] | None,
                  reply: ProbeReply | None, *, completed: bool, failure: str = "") -> ProbeResult:
    """Per-probe retrieval counts from the live memories at probe time and the probe's traces."""
    beliefs = {belief.label: belief for belief in scenario.beliefs}
    needed = [beliefs[label] for label in probe.needed]
    counts: Counts = {"needed_total": len(needed), "run_completed": int(completed)}
    not_measured: dict[str, str] = {}
    if live is None:
        counts["needed_formed"] = None
        not_measured["needed_formed"] = NO_LISTING
    else:
        live_now = [memory for memory in live if memory.status in LIVE_STATUSES]
        counts["needed_formed"] = sum(any(_matches_memory(m, b) for m in live_now) for b in needed)
    traces = reply.traces if reply is not None else None
    distances: dict[str, dict[str, int | None]] = {}
    for belief in needed:
        cell = distances.setdefault(str(session_distance(scenario, belief.session)),
                                    {"needed": 0, "recalled": None if traces is None else 0})
        cell["needed"] = (cell["needed"] or 0) + 1
    trace_metrics = ("needed_recalled", "recalled_snapshot_only", "recalled_in_turn_only", "recalled_both",
                     "returned_snapshot", "returned_in_turn", "returned_total", "noise_snapshot",
                     "noise_in_turn", "noise_total", "dropped_for_budget", "blocked_rendered",
                     "forbidden_rendered", "protected_rendered", *FORBIDDEN_COUNTERS)
    if traces is None:
        reason = failure or NO_TRACES
        counts.update({name: None for name in trace_metrics})
        not_measured.update({name: reason for name in trace_metrics})
    else:
        snapshot = _distinct([m for t in traces if t.moment == "snapshot" for m in t.returned])
        in_turn = _distinct([m for t in traces if t.moment == "in_turn" for m in t.returned])
        returned = _distinct(snapshot + in_turn)
        both = snap_only = turn_only = 0
        for belief in needed:
            in_snap = any(_matches_memory(m, belief) for m in snapshot)
            in_turn_hit = any(_matches_memory(m, belief) for m in in_turn)
            both += in_snap and in_turn_hit
            snap_only += in_snap and not in_turn_hit
            turn_only += in_turn_hit and not in_snap
            if in_snap or in_turn_hit:
                cell = distances[str(session_distance(scenario, belief.session))]
                cell["recalled"] = (cell["recalled"] or 0) + 1

        def noise(memories: list[RecalledMemory]) -> int:
            return sum(not any(_matches_memory(m, b) for b in needed) for m in memories)

        rendered = [m.statement for m in returned]
        forbidden = sum(any(contains(text, statement) for text in rendered)
                        for statement in probe.forbidden_statements)
        counts.update({
            "needed_recalled": both + snap_only + turn_only,
            "recalled_snapshot_only": snap_only, "recalled_in_turn_only": turn_only, "recalled_both": both,
            "returned_snapshot": len(snapshot), "returned_in_turn": len(in_turn),
            "returned_total": len(returned),
            "noise_snapshot": noise(snapshot), "noise_in_turn": noise(in_turn), "noise_total": noise(returned),
            "dropped_for_budget": sum(t.dropped_for_budget for t in traces),
            "blocked_rendered": sum(len(t.blocked) for t in traces),
            "forbidden_rendered": forbidden,
            "protected_rendered": sum(any(contains(text, fragment) for text in rendered)
                                      for fragment in scenario.protected_statements),
        })
        counts.update(_file_forbidden(probe, forbidden, counts["needed_formed"], both + snap_only + turn_only))
    prefixes = reply.prefix_digests if reply is not None else None
    counts["distinct_prefixes"] = None if prefixes is None else len(set(prefixes))
    if prefixes is None:
        not_measured["distinct_prefixes"] = failure or NO_PREFIXES
    return ProbeResult(scenario.id, probe.id, probe.category, dict(sorted(counts.items())),
                       dict(sorted(distances.items(), key=lambda kv: int(kv[0]))), not_measured)


def _file_forbidden(probe: BenchmarkProbe, rendered: int, needed_formed: int | None,
                    needed_recalled: int) -> dict[str, int | None]:
    """§6.4: file forbidden statements found in traces by the probe's category.

    For update/correction the split needs to know whether the replacing label formed; without a
    memory listing, a replacing label that was recalled evidently formed, and one that was not is
    filed as unformed (the weaker claim).
    """
    filed: dict[str, int | None] = dict.fromkeys(FORBIDDEN_COUNTERS, 0)
    if probe.category in ("update", "correction"):
        formed = (needed_formed if needed_formed is not None else needed_recalled) >= 1
        filed["currency_violations" if formed else "currency_unformed"] = rendered
    elif probe.category == "abstention":
        filed["abstention_leaks"] = rendered
    elif probe.category == "transfer":
        filed["false_transfers"] = rendered
    else:
        filed["other_forbidden_rendered"] = rendered
    return filed
