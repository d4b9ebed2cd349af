"""The gates by name, run together, rendered as one table or as JSON.

The corpus gates are pure functions of one corpus (``check(corpus, *, declared=None)``; probes also
takes ``require_probes``; adversaries also takes an ``exempt`` mapping the registry never passes).
``baseline`` is not among them — it needs run outcomes — but its self-test runs with the others.

Structure's reproducibility rule rebuilds a corpus from its sidecar, which only the generators can
do: the caller passes that as ``regenerate`` (:mod:`..generate.certify` passes the generators'
:func:`..generate.registry.regenerate_text`), so the gates never import ``generate/``, which
imports them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, is_dataclass
from types import ModuleType
from typing import Any

from . import adversaries, baseline, calibration, leaks, probes, separability, structure
from .result import GateResult, Refusal, SelfTestCase
from .structure import Regenerate

JSON_VERSION = 1
"""Version of ``results_to_json``'s layout; bump it on any incompatible change."""

GATES: dict[str, ModuleType] = {
    "structure": structure,
    "separability": separability,
    "calibration": calibration,
    "leaks": leaks,
    "adversaries": adversaries,
    "probes": probes,
}
"""The corpus gates in report order (GATES.md §1-§5, with §7's model-free adversaries beside the
other model-free gates, before the probe records)."""

SELF_TESTED: dict[str, ModuleType] = {**GATES, "baseline": baseline}

def _max_shape_mean_coverage(measured: Mapping[str, Any]) -> Any:
    by_shape = measured.get("coverage_by_shape")
    if not isinstance(by_shape, Mapping):
        return None
    means = [row.get("mean") for row in by_shape.values() if isinstance(row, Mapping)]
    numbers = [mean for mean in means if isinstance(mean, (int, float))]
    return max(numbers) if numbers else None


WORST_FIGURES: dict[str, tuple[str, tuple[str | Callable[[Mapping[str, Any]], Any], ...]]] = {
    "separability": ("AUC", ("worst.auc.value", "worst_auc")),
    "calibration": ("cov", (_max_shape_mean_coverage, "max_shape_mean_coverage")),
    "probes": ("headroom", ("worst_headroom",)),
    "adversaries": ("g@1", ("worst.learned_gold_at_1.value",)),
}
"""For each gate, the label and where its worst figure lives in ``measured`` (a dotted key path or a
function of ``measured``; first present wins): separability's highest pooled AUC, calibration's
highest per-shape mean coverage, probes' lowest V1 - V9, adversaries' highest per-shape
gold-at-rank-1 of the learned question-blind adversary (shown for a skipped pre-v3 corpus too). A
gate without one, or whose figure is absent, shows its refusal count."""

_VERDICT = {"passed": "passed", "refused": "REFUSED", "skipped": "skipped"}
_CORPUS_ID = re.compile(r"^typedmemeval-([a-z]+)-v\d+")


def _gate_error(gate: str, corpus_id: str, error: BaseException) -> GateResult:
    # A crashing gate must show in the table as a refusal, never as a missing (or passing) cell.
    return GateResult(gate, corpus_id, "refused", refusals=(Refusal(
        "gate_error", gate, type(error).__name__,
        f"the gate raised {type(error).__name__}: {error}"),))


def run_corpus_gate(name: str, corpus: Any, *, require_probes: bool = False,
                    regenerate: Regenerate | None = None) -> GateResult:
    """One corpus gate by name, with the arguments the registry always passes (a raising gate
    becomes a refusal naming the error, never an empty cell). ``regenerate`` is structure's
    reproducibility hook; without it reproducibility is reported as skipped, never passed."""
    module = GATES[name]
    try:
        if name == "probes":
            result: GateResult = module.check(corpus, require_probes=require_probes)
        elif name == "structure":
            result = module.check(corpus, regenerate=regenerate)
        else:
            result = module.check(corpus)
    except Exception as error:  # noqa: BLE001 - reported as a refusal with the error named
        result = _gate_error(name, corpus.corpus_id, error)
    return result


def run_corpus_gates(corpus: Any, *, require_probes: bool = False,
                     regenerate: Regenerate | None = None) -> list[GateResult]:
    """Every corpus gate over ``corpus``, in ``GATES`` order."""
    return [run_corpus_gate(name, corpus, require_probes=require_probes, regenerate=regenerate)
            for name in GATES]


def run_self_tests() -> dict[str, list[SelfTestCase]]:
    """Every gate's ``self_test()`` (the corpus gates and baseline)."""
    outcomes: dict[str, list[SelfTestCase]] = {}
    for name, module in SELF_TESTED.items():
        try:
            outcomes[name] = list(module.self_test())
        except Exception as error:  # noqa: BLE001 - a crashing self-test is a failing self-test
            outcomes[name] = [SelfTestCase("self_test() ran", "control", None, False,
                                           f"raised {type(error).__name__}: {error}")]
    return outcomes


def _lookup(measured: Mapping[str, Any], dotted: str) -> Any:
    node: Any = measured
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


def worst_figure(result: GateResult) -> str:
    """The cell's figure: the gate's worst value if it publishes one, else its refusal count."""
    label, keys = WORST_FIGURES.get(result.gate, ("", ()))
    if result.gate == "adversaries" and result.status == "refused" and result.refusals:
        # Seven adversaries: the learned g@1 may be at chance while another refuses; name that one.
        first = result.refusals[0]
        if isinstance(first.value, (int, float)) and not isinstance(first.value, bool):
            return f"{first.rule} {first.value:.3f}"
    for key in keys:
        value = key(result.measured) if callable(key) else _lookup(result.measured, key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return f"{label} {value:.3f}"
    if result.status == "refused":
        return f"{len(result.refusals)} refusal{'s' if len(result.refusals) != 1 else ''}"
    return ""


def _vertical(corpus_id: str, results: Sequence[GateResult]) -> str | None:
    for result in results:
        for refusal in result.refusals:
            if refusal.vertical:
                return refusal.vertical
        vertical = result.measured.get("vertical")
        if isinstance(vertical, str):
            return vertical
    match = _CORPUS_ID.match(corpus_id)
    return match.group(1) if match else None


def _row_label(corpus_id: str, results: Sequence[GateResult]) -> str:
    vertical = _vertical(corpus_id, results)
    return f"{corpus_id} ({vertical})" if vertical else corpus_id


def render_table(results_by_corpus: Mapping[str, Sequence[GateResult]]) -> str:
    """A plain-text table: one row per corpus (vertical), one column per gate.

    Each cell is the verdict (``passed`` / ``REFUSED`` / ``skipped``) and the gate's worst figure
    (separability worst AUC, calibration highest shape mean coverage, probes lowest headroom,
    otherwise the number of refusals). Skip reasons follow the table, since a skip is not a pass.
    """
    gates = list(GATES)
    for results in results_by_corpus.values():
        for result in results:
            if result.gate not in gates:
                gates.append(result.gate)
    header = ["corpus (vertical)", *gates]
    rows: list[list[str]] = []
    footnotes: list[str] = []
    for corpus_id, results in results_by_corpus.items():
        by_gate = {result.gate: result for result in results}
        row = [_row_label(corpus_id, results)]
        for gate in gates:
            cell = by_gate.get(gate)
            if cell is None:
                row.append("-")
                continue
            row.append(" ".join(part for part in (_VERDICT[cell.status], worst_figure(cell)) if part))
            if cell.status == "skipped":
                footnotes.append(f"{corpus_id}/{gate} skipped: {cell.skip_reason}")
        rows.append(row)
    widths = [max(len(line[i]) for line in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip()
             for line in [header, *rows]]
    lines.insert(1, "  ".join("-" * width for width in widths))
    if not rows:
        lines.append("(no corpus)")
    refused = sum(result.status == "refused" for results in results_by_corpus.values() for result in results)
    skipped = len(footnotes)
    lines.append("")
    lines.append(f"{len(rows)} corpus/corpora, {refused} gate(s) REFUSED, {skipped} skipped")
    lines += footnotes
    return "\n".join(lines)


def _plain(value: Any) -> Any:
    """JSON-safe plain data: tuples/sets to lists, dataclasses to dicts, non-finite floats to text."""
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if value is None or isinstance(value, (str, int, bool)):
        return value
    if isinstance(value, Mapping):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (set, frozenset)):
        return [_plain(item) for item in sorted(value, key=repr)]
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if is_dataclass(value) and not isinstance(value, type):
        return _plain(asdict(value))
    return str(value)


def result_to_json(result: GateResult) -> dict[str, Any]:
    return {
        "gate": result.gate,
        "status": result.status,
        "skip_reason": result.skip_reason,
        "refusals": [_plain(asdict(refusal)) for refusal in result.refusals],
        "refused_rules": sorted(result.refused_rules()),
        "worst_figure": worst_figure(result) or None,
        "measured": _plain(result.measured),
        "notes": list(result.notes),
    }


def results_to_json(results_by_corpus: Mapping[str, Sequence[GateResult]]) -> dict[str, Any]:
    """Plain, versioned data for ``typedmemeval gate --json`` (``json.dumps``-safe)."""
    corpora = {
        corpus_id: {
            "vertical": _vertical(corpus_id, results),
            "gates": {result.gate: result_to_json(result) for result in results},
        }
        for corpus_id, results in results_by_corpus.items()
    }
    statuses = [result.status for results in results_by_corpus.values() for result in results]
    return {
        "version": JSON_VERSION,
        "corpora": corpora,
        "summary": {status: statuses.count(status) for status in ("passed", "refused", "skipped")},
    }
