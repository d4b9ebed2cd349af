"""Comparing a run with its recorded baseline (VERTICALS.md §6.5), as pure functions on plain data.

Both sides are the dicts :func:`.runner.run_corpus` returns (the baseline as stored, e.g. in a
syrupy snapshot). Differences are sorted into four groups — drift, regressions, improvements,
shifts — plus ``neutral`` for counts without a direction (e.g. ``returned_in_turn``), which only the
"baseline current" gate sees. Regressions are named at the finest row that moved (a scenario's
formation, a probe, a distance bin), so a reviewer reads *where* the behaviour changed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .results import canonical_json

HIGHER_IS_BETTER = frozenset({"supported", "needed_formed", "needed_recalled", "run_completed"})
LOWER_IS_BETTER = frozenset({
    "fabricated", "stale_live", "noise_total", "dropped_for_budget", "dropped_for_ceiling",
    "blocked_rendered", "currency_violations", "abstention_leaks", "false_transfers",
    "other_forbidden_rendered", "policy_failures", "protected_rendered", "distinct_prefixes",
    "max_distinct_prefixes_per_probe",
})
SHIFT_METRICS = frozenset({"recalled_snapshot_only", "recalled_in_turn_only", "recalled_both"})
"""Where recall happened, not how much: reported, neither good nor bad."""
STRUCTURE_KEYS = ("scenarios", "probes", "expected", "needed_total", "distance_population")


@dataclass(frozen=True)
class Difference:
    where: str
    metric: str
    before: Any
    after: Any

    def __str__(self) -> str:
        return f"{self.where} {self.metric}: {self.before} -> {self.after}"


@dataclass(frozen=True)
class Comparison:
    drift: tuple[str, ...]
    regressions: tuple[Difference, ...]
    improvements: tuple[Difference, ...]
    shifts: tuple[Difference, ...]
    neutral: tuple[Difference, ...]
    identical: bool

    @property
    def no_regression(self) -> bool:
        """Gate "no regression": red on drift or on any regression (§6.5, §6.9 gate 3)."""
        return not self.drift and not self.regressions

    @property
    def baseline_current(self) -> bool:
        """Gate "baseline current": any difference whatsoever fails (§6.9 gate 4)."""
        return self.identical

    def lines(self) -> list[str]:
        """One line per finding, grouped, for a terminal summary or an assertion message."""
        out = [f"drift: {text}" for text in self.drift]
        for name, group in (("regression", self.regressions), ("improvement", self.improvements),
                            ("shift", self.shifts), ("changed", self.neutral)):
            out.extend(f"{name}: {difference}" for difference in group)
        if not self.identical and not out:
            out.append("changed: the run differs from the baseline outside the compared counts")
        return out


def _direction(metric: str, before: int, after: int) -> str:
    if metric in SHIFT_METRICS:
        return "shift"
    if metric in HIGHER_IS_BETTER:
        return "regression" if after < before else "improvement"
    if metric in LOWER_IS_BETTER:
        return "regression" if after > before else "improvement"
    return "neutral"


def _compare_counts(where: str, before: Mapping[str, Any], after: Mapping[str, Any],
                    drift: list[str], groups: dict[str, list[Difference]]) -> None:
    for metric in sorted(set(before) | set(after)):
        old, new = before.get(metric), after.get(metric)
        if old == new:
            continue
        if old is None or new is None:
            # A capability appeared or vanished: the two runs measured different things.
            drift.append(f"{where} {metric} is measured in only one run ({old} -> {new})")
            continue
        groups[_direction(metric, old, new)].append(Difference(where, metric, old, new))


def compare(current: Mapping[str, Any], baseline: Mapping[str, Any]) -> Comparison:
    """Sort every difference between ``current`` and ``baseline`` into the §6.5 groups."""
    drift: list[str] = []
    groups: dict[str, list[Difference]] = {"regression": [], "improvement": [], "shift": [], "neutral": []}
    for key in ("benchmark_version", "corpus_sha256"):
        if current.get(key) != baseline.get(key):
            drift.append(f"{key} differs ({baseline.get(key)} -> {current.get(key)})")
    old_versions, new_versions = baseline.get("versions", {}), current.get("versions", {})
    for name in sorted(set(old_versions) | set(new_versions)):
        if old_versions.get(name) != new_versions.get(name):
            drift.append(f"version {name} differs ({old_versions.get(name)} -> {new_versions.get(name)})")
    old_structure, new_structure = baseline.get("structure", {}), current.get("structure", {})
    for name in STRUCTURE_KEYS:
        if old_structure.get(name) != new_structure.get(name):
            drift.append(f"structure {name} differs ({old_structure.get(name)} -> {new_structure.get(name)})")
    for section in ("formation", "probes"):
        old_rows, new_rows = baseline.get(section, {}), current.get(section, {})
        if set(old_rows) != set(new_rows):
            gone, added = sorted(set(old_rows) - set(new_rows)), sorted(set(new_rows) - set(old_rows))
            drift.append(f"{section} rows differ (only in baseline: {gone[:3]}, only in run: {added[:3]})")
        for key in sorted(set(old_rows) & set(new_rows)):
            _compare_counts(key, old_rows[key]["counts"], new_rows[key]["counts"], drift, groups)
    old_bins = baseline.get("aggregate", {}).get("by_distance", {})
    new_bins = current.get("aggregate", {}).get("by_distance", {})
    for distance in sorted(set(old_bins) & set(new_bins), key=int):
        old, new = old_bins[distance].get("recalled"), new_bins[distance].get("recalled")
        if old != new and old is not None and new is not None:
            group = "regression" if new < old else "improvement"
            groups[group].append(Difference(f"distance {distance}", "recalled", old, new))
    old_totals = baseline.get("aggregate", {}).get("totals", {})
    new_totals = current.get("aggregate", {}).get("totals", {})
    _compare_counts("aggregate", {"max_distinct_prefixes_per_probe": old_totals.get("max_distinct_prefixes_per_probe")},
                    {"max_distinct_prefixes_per_probe": new_totals.get("max_distinct_prefixes_per_probe")},
                    drift, groups)
    return Comparison(tuple(drift), tuple(groups["regression"]), tuple(groups["improvement"]),
                      tuple(groups["shift"]), tuple(groups["neutral"]), identical=_same(current, baseline))


def _same(current: Mapping[str, Any], baseline: Mapping[str, Any]) -> bool:
    return canonical_json(current) == canonical_json(baseline)
