"""Driving one scenario through an adapter: sessions, one maintenance pass, then probe by probe.

The order is the §6.3 pseudo-code: for each session the clock advances, every turn is added at its
instant, formation is called directly with the session's scope; maintenance runs exactly once,
between the last session and the first probe (between probes it would make probes interfere);
each probe then asks the bare question — no instruction, which would water down a lexical query.

:func:`prepare_scenario` does everything up to the probes and :func:`run_probe` runs one probe, so
a pytest plugin can make each probe its own item: prepare once per scenario (cache the
:class:`PreparedScenario`), then run the probes in corpus order on it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .loading import ScenarioCorpus
from .metrics import formation_metrics, probe_metrics
from .models import BenchmarkScenario
from .protocol import (GENERAL_SCOPE, DescribesVersions, ListsMemories, Maintains, ProbeReply,
                       ReportsFormation, ScenarioClock, ScenarioMemory, StoredMemory, UsesClock)
from .results import FormationResult, ProbeResult, build_run
from .timeline import Timeline, build_timeline

MemoryFactory = Callable[[], ScenarioMemory]


@dataclass
class PreparedScenario:
    """One scenario after its sessions and the maintenance pass, ready for its probes."""

    scenario: BenchmarkScenario
    memory: ScenarioMemory
    timeline: Timeline
    clock: ScenarioClock
    formation: FormationResult
    results: dict[str, ProbeResult] = field(default_factory=dict)


def _listing(memory: object) -> tuple[StoredMemory, ...] | None:
    return tuple(memory.memories()) if isinstance(memory, ListsMemories) else None


def adapter_versions(memory: object) -> dict[str, str]:
    """What the baseline records about the system; a type name when it describes nothing."""
    if isinstance(memory, DescribesVersions):
        return {str(key): str(value) for key, value in memory.versions().items()}
    return {"extractor": type(memory).__qualname__}


def prepare_scenario(scenario: BenchmarkScenario, factory: MemoryFactory) -> PreparedScenario:
    """Build a fresh system, replay every session on the frozen clock, run maintenance once."""
    memory = factory()
    timeline = build_timeline(scenario)
    clock = ScenarioClock(scenario.start_at)
    if isinstance(memory, UsesClock):
        memory.bind_clock(clock)
    for session in scenario.sessions:
        scope = session.project_scope or GENERAL_SCOPE
        times = timeline.sessions[session.id]
        clock.set(times.opened_at)
        for turn, instant in zip(session.turns, times.turn_times, strict=True):
            clock.set(instant)
            memory.add_message(session.id, turn.text, at=instant, scope=scope)
        memory.form(session.id, at=times.closed_at, scope=scope)
    clock.set(timeline.maintenance_at)
    if isinstance(memory, Maintains):
        memory.maintain(at=timeline.maintenance_at)
    stats = memory.formation_stats() if isinstance(memory, ReportsFormation) else None
    formation = formation_metrics(scenario, _listing(memory), stats)
    return PreparedScenario(scenario, memory, timeline, clock, formation)


def run_probe(prepared: PreparedScenario, probe_id: str) -> ProbeResult:
    """Ask one probe at its corpus instant and score it. Run a scenario's probes in corpus order:
    a system that learns from being asked would otherwise see a different history."""
    if probe_id in prepared.results:
        return prepared.results[probe_id]
    probe = next((p for p in prepared.scenario.probes if p.id == probe_id), None)
    if probe is None:
        raise KeyError(f"scenario {prepared.scenario.id} has no probe {probe_id!r}")
    instant = prepared.timeline.probes[probe.id]
    prepared.clock.set(max(instant, prepared.clock.now()))
    live = _listing(prepared.memory)
    reply: ProbeReply | None
    failure = ""
    try:
        raw = prepared.memory.ask(probe.question, at=instant, scope=probe.project_scope or GENERAL_SCOPE)
        reply = raw if isinstance(raw, ProbeReply) else ProbeReply(str(raw))
    except Exception as error:  # an adapter failure is a result (run_completed = 0), not a crash
        reply, failure = None, f"ask() raised {type(error).__name__}"
    result = probe_metrics(prepared.scenario, probe, live, reply, completed=reply is not None,
                           failure=failure)
    prepared.results[probe_id] = result
    return result


@dataclass(frozen=True)
class ScenarioRun:
    formation: FormationResult
    probes: tuple[ProbeResult, ...]
    versions: dict[str, str]


def run_scenario(scenario: BenchmarkScenario, factory: MemoryFactory) -> ScenarioRun:
    prepared = prepare_scenario(scenario, factory)
    probes = tuple(run_probe(prepared, probe.id) for probe in scenario.probes)
    return ScenarioRun(prepared.formation, probes, adapter_versions(prepared.memory))


def run_corpus(corpus: ScenarioCorpus, factory: MemoryFactory) -> dict[str, Any]:
    """Every scenario, in file order, each on a fresh instance; the run as plain data (see
    :func:`.results.build_run`) ready for :func:`.results.canonical_json` or a baseline."""
    runs = [run_scenario(scenario, factory) for scenario in corpus.document.scenarios]
    versions: Mapping[str, str] = runs[0].versions if runs else {}
    return build_run(corpus.sha256, versions, len(runs), [run.formation for run in runs],
                     [probe for run in runs for probe in run.probes])
