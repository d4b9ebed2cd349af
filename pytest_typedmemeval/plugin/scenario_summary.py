"""The scenario items' terminal summary: per category the integer metrics with both recall measures
and the noise ratio, formation totals, the corpus digest; then the baseline comparison and the live
lift when they ran.

Apart from the hooks because it is formatting only: plain data in, lines out.
"""

from __future__ import annotations

from typing import Any

from .scenario_run import ScenarioRun

def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _count(value: Any) -> str:
    return "n/m" if value is None else str(value)


SUMMARY_COLUMNS = (
    ("needed", "needed_total"), ("formed", "needed_formed"), ("recalled", "needed_recalled"),
    ("returned", "returned_total"), ("noise", "noise_total"), ("forbid", "forbidden_rendered"),
    ("curr_v", "currency_violations"), ("curr_u", "currency_unformed"), ("abst_l", "abstention_leaks"),
    ("false_t", "false_transfers"), ("other", "other_forbidden_rendered"), ("protect", "protected_rendered"),
)


def summary_lines(plugin: ScenarioRun, run: dict[str, Any] | None) -> list[str]:
    """Per category the integer metrics with both recall measures and the noise ratio, formation
    totals, the corpus digest; then the baseline comparison and the live lift when they ran."""
    from ..scenarios import display_ratios

    lines: list[str] = []
    if run is not None:
        structure = run["structure"]
        versions = ", ".join(f"{k}={v}" for k, v in run["versions"].items()) or "none"
        lines.append(f"corpus {plugin.corpus.path.name} sha256 {run['corpus_sha256']} "
                     f"({structure['scenarios']} scenarios, {structure['probes']} probes run); memory {versions}")
        header = f"{'category':<11} {'probes':>6} " + " ".join(f"{name:>8}" for name, _ in SUMMARY_COLUMNS)
        lines.append(header + f" {'e2e_rec':>8} {'rec|form':>8} {'noise_r':>8}")
        by_category = run["aggregate"]["by_category"]
        probe_counts: dict[str, int] = {}
        for row in run["probes"].values():
            probe_counts[row["category"]] = probe_counts.get(row["category"], 0) + 1
        rows = [(name, by_category[name], probe_counts.get(name, 0)) for name in by_category]
        rows.append(("all", run["aggregate"]["totals"], structure["probes"]))
        for name, counts, n in rows:
            ratios = display_ratios(counts)
            lines.append(f"{name:<11} {n:>6} " + " ".join(f"{_count(counts.get(key)):>8}" for _, key in SUMMARY_COLUMNS)
                         + f" {_ratio(ratios['end_to_end_recall']):>8} {_ratio(ratios['retrieval_recall_given_formed']):>8}"
                         f" {_ratio(ratios['noise_ratio']):>8}")
        totals = run["aggregate"]["totals"]
        ratios = display_ratios(totals)
        formation = " ".join(f"{key} {_count(totals.get(key))}" for key in (
            "expected", "supported", "unformed", "formed", "stale_live", "fabricated", "policy_failures",
            "dropped_for_ceiling"))
        lines.append(f"formation: {formation}; precision {_ratio(ratios['precision'])} recall "
                     f"{_ratio(ratios['recall'])}")
        lines.append(f"max distinct prefixes per probe {_count(totals.get('max_distinct_prefixes_per_probe'))}; "
                     f"snapshot/in-turn/both recalled {_count(totals.get('recalled_snapshot_only'))}/"
                     f"{_count(totals.get('recalled_in_turn_only'))}/{_count(totals.get('recalled_both'))}")
        for metric, reason in sorted(run["aggregate"]["not_measured"].items()):
            lines.append(f"not measured: {metric} ({reason})")
        if plugin.report_path is not None:
            lines.append(f"scenario report: {plugin.report_path}")
    if plugin.baseline_lines is not None:
        lines.append(f"baseline {plugin.snapshot_path.name}:")
        lines.extend(f"  {line}" for line in plugin.baseline_lines)
    lines.extend(plugin.live_lines)
    return lines


__all__ = ["SUMMARY_COLUMNS", "summary_lines"]
