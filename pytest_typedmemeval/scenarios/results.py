"""Result rows of the deterministic arm, their aggregate, and the canonical JSON they are stored in.

Every stored number is an integer or ``None`` (not measured, with its reason alongside); ratios are
computed only for display. The canonical dump (sorted keys, fixed separators, ASCII) is what makes
"two runs of one commit give byte-identical metrics" checkable by comparing bytes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

BENCHMARK_VERSION = 1
"""Bumped when a metric's definition changes; a baseline of another version is drift."""

Counts = dict[str, int | None]


@dataclass(frozen=True)
class FormationResult:
    """Formation metrics of one scenario (§6.4), measured after the single maintenance pass."""

    scenario_id: str
    counts: Counts
    not_measured: dict[str, str] = field(default_factory=dict)

    def to_row(self) -> dict[str, Any]:
        return {"counts": dict(self.counts), "not_measured": dict(self.not_measured)}


@dataclass(frozen=True)
class ProbeResult:
    """Retrieval metrics of one probe; ``by_distance`` maps a session distance ("1" = the final
    session) to ``{"needed": population, "recalled": count or None}``."""

    scenario_id: str
    probe_id: str
    category: str
    counts: Counts
    by_distance: dict[str, dict[str, int | None]]
    not_measured: dict[str, str] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return f"{self.scenario_id}/{self.probe_id}"

    def to_row(self) -> dict[str, Any]:
        return {"category": self.category, "counts": dict(self.counts),
                "by_distance": {k: dict(v) for k, v in self.by_distance.items()},
                "not_measured": dict(self.not_measured)}


def _add(total: int | None, value: int | None) -> int | None:
    if value is None:
        return total
    return value if total is None else total + value


def sum_counts(rows: Iterable[Mapping[str, int | None]]) -> Counts:
    """Sum per metric over the measured rows; ``None`` only where no row measured it."""
    totals: Counts = {}
    for row in rows:
        for name, value in row.items():
            totals[name] = _add(totals.get(name), value)
    return totals


def aggregate(formations: Iterable[FormationResult], probes: Iterable[ProbeResult]) -> dict[str, Any]:
    """§6.4 aggregate: sums of every integer, max distinct prefixes, and the splits by category
    and by distance. Pure: the same rows always give the same dict."""
    formations = list(formations)
    probes = list(probes)
    totals = sum_counts([f.counts for f in formations] + [p.counts for p in probes])
    prefixes = [p.counts.get("distinct_prefixes") for p in probes]
    measured = [value for value in prefixes if value is not None]
    totals["max_distinct_prefixes_per_probe"] = max(measured) if measured else None
    by_category: dict[str, Counts] = {}
    for category in sorted({p.category for p in probes}):
        by_category[category] = sum_counts(p.counts for p in probes if p.category == category)
    by_distance: dict[str, dict[str, int | None]] = {}
    for probe in probes:
        for distance, cell in probe.by_distance.items():
            bin_ = by_distance.setdefault(distance, {"needed": 0, "recalled": None})
            bin_["needed"] = _add(bin_["needed"], cell["needed"])
            bin_["recalled"] = _add(bin_["recalled"], cell["recalled"])
    not_measured: dict[str, str] = {}
    for row in [*formations, *probes]:
        for name, reason in row.not_measured.items():
            not_measured.setdefault(name, reason)
    return {"totals": totals, "by_category": by_category,
            "by_distance": dict(sorted(by_distance.items(), key=lambda kv: int(kv[0]))),
            "not_measured": not_measured}


def build_run(corpus_sha256: str, versions: Mapping[str, str], scenario_count: int,
              formations: Iterable[FormationResult], probes: Iterable[ProbeResult]) -> dict[str, Any]:
    """The whole run as plain data: what a baseline stores (without build reference or time)."""
    formations = list(formations)
    probes = list(probes)
    summary = aggregate(formations, probes)
    structure = {
        "scenarios": scenario_count,
        "probes": len(probes),
        "expected": sum(f.counts.get("expected") or 0 for f in formations),
        "needed_total": sum(p.counts.get("needed_total") or 0 for p in probes),
        "distance_population": {d: cell["needed"] for d, cell in summary["by_distance"].items()},
    }
    return {
        "benchmark_version": BENCHMARK_VERSION,
        "corpus_sha256": corpus_sha256,
        "versions": dict(sorted(versions.items())),
        "structure": structure,
        "aggregate": summary,
        "formation": {f.scenario_id: f.to_row() for f in formations},
        "probes": {p.key: p.to_row() for p in probes},
    }


def canonical_json(data: Any) -> str:
    """Sorted keys, no whitespace variance, ASCII: equal data gives equal bytes."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def display_ratios(counts: Mapping[str, int | None]) -> dict[str, float | None]:
    """The ratios of §6.4, for display only (never stored, never compared)."""

    def ratio(numerator: str, denominator: str) -> float | None:
        top, bottom = counts.get(numerator), counts.get(denominator)
        return None if top is None or not bottom else top / bottom

    return {
        "precision": ratio("supported", "formed"),
        "recall": ratio("supported", "expected"),
        "end_to_end_recall": ratio("needed_recalled", "needed_total"),
        "retrieval_recall_given_formed": ratio("needed_recalled", "needed_formed"),
        "noise_ratio": ratio("noise_total", "returned_total"),
    }
