"""The frozen clock of one scenario, computed from the corpus alone (VERTICALS.md §6.2–6.3).

The clock moves forward before each session, before each turn and before each probe. Computing
every instant up front from the bytes (instead of reading a live clock) is what lets a single probe
run on its own — one pytest item — at exactly the instant it would have had in a full run.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from .models import BenchmarkScenario

DAY_SECONDS = 86_400


@dataclass(frozen=True)
class SessionTimes:
    opened_at: datetime
    turn_times: tuple[datetime, ...]

    @property
    def closed_at(self) -> datetime:
        """The instant of the last turn: when the session's statements had all been said."""
        return self.turn_times[-1]


@dataclass(frozen=True)
class Timeline:
    sessions: dict[str, SessionTimes]
    maintenance_at: datetime
    probes: dict[str, datetime]

    @property
    def end(self) -> datetime:
        return max([self.maintenance_at, *self.probes.values()])


def build_timeline(scenario: BenchmarkScenario) -> Timeline:
    clock = scenario.start_at
    sessions: dict[str, SessionTimes] = {}
    for session in scenario.sessions:
        clock += timedelta(seconds=session.advance_seconds)
        opened = clock
        turns: list[datetime] = []
        for turn in session.turns:
            clock += timedelta(seconds=turn.advance_seconds)
            turns.append(clock)
        sessions[session.id] = SessionTimes(opened, tuple(turns))
    maintenance_at = clock
    probes: dict[str, datetime] = {}
    for probe in scenario.probes:
        clock += timedelta(seconds=probe.advance_seconds)
        probes[probe.id] = clock
    return Timeline(sessions, maintenance_at, probes)


def covered_days(scenario: BenchmarkScenario) -> int:
    """Whole days from ``start_at`` to the last probe (the "covers N days" of the v1 targets)."""
    return int((build_timeline(scenario).end - scenario.start_at).total_seconds()) // DAY_SECONDS


def session_distance(scenario: BenchmarkScenario, session_id: str) -> int:
    """How many sessions ago ``session_id`` was, counting the final session as distance 1."""
    ids = [session.id for session in scenario.sessions]
    return len(ids) - ids.index(session_id)
