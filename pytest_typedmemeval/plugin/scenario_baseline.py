"""``--tme-baseline`` for the scenario items: each item's row asserted against its syrupy snapshot,
and ``scenario[baseline]`` comparing the whole run with the recorded one (no regression, baseline
current). Reads the amber snapshot entries back as plain data.

Apart from the verdicts of a plain run (:mod:`.scenario_verdicts`) because the baseline mode has
its own file format and its own comparison; both read the run state of :mod:`.scenario_run`.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from .scenario_run import ScenarioCase, ScenarioRun

BASELINE_KEY = pytest.StashKey[list]()
BASELINE_ENTRY = "baseline"
HEADER_KEYS = ("benchmark_version", "corpus_sha256", "versions", "structure", "aggregate")
"""What ``scenario[baseline]`` records; the formation and probe rows are the other items' entries."""


def _literal(node: ast.AST) -> Any:
    """An amber-serialized value (``dict({...})``, ``list([...])``, literals) as plain data."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) == 1 \
            and not node.keywords and node.func.id in ("dict", "list", "tuple", "set", "frozenset"):
        inner = _literal(node.args[0])
        return {"dict": dict, "list": list, "tuple": list, "set": list, "frozenset": list}[node.func.id](inner)
    if isinstance(node, ast.Dict):
        return {_literal(k): _literal(v) for k, v in zip(node.keys, node.values, strict=True)}  # type: ignore[arg-type]
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [_literal(element) for element in node.elts]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_literal(node.operand)
    if isinstance(node, ast.Constant):
        return node.value
    raise ValueError(f"unexpected {type(node).__name__} in a snapshot entry")


def parse_amber(text: str) -> Any:
    """Read back one amber entry written from plain data (dicts, lists, str, int, None)."""
    return _literal(ast.parse(text.strip(), mode="eval").body)


def _recalled(snapshot: Any) -> Any:
    from .snapshot_file import recalled_text

    recalled = recalled_text(snapshot)
    if recalled is None:
        return None
    try:
        return parse_amber(recalled)
    except (SyntaxError, ValueError):
        return None


def assert_snapshot(request: pytest.FixtureRequest, plugin: ScenarioRun, case: ScenarioCase,
                     row: dict[str, Any], section: str) -> None:
    from ..scenarios import compare

    from .baseline_extension import baseline_snapshot

    snapshot = baseline_snapshot(request)
    if snapshot == row or plugin.updating:
        return
    recorded = _recalled(snapshot)
    if recorded is None:
        pytest.fail(f"{case.key}: no recorded row in {plugin.snapshot_path.name} (record the baseline with "
                    "--tme-baseline --snapshot-update)", pytrace=False)
    key = case.scenario_id if section == "formation" else case.key
    comparison = compare({section: {key: row}}, {section: {key: recorded}})
    lines = comparison.lines() or ["changed: the row differs from its baseline"]
    pytest.fail(f"{case.key} differs from its baseline row (re-record with --snapshot-update if the "
                "change is intended):\n" + "\n".join(lines), pytrace=False)


def read_recorded_run(path: Path) -> dict[str, Any] | None:
    """The recorded run from the snapshot file (``None`` when there is no baseline entry): the
    header of ``scenario[baseline]`` plus every ``scenario[<id>/formation]`` and probe row."""
    from .snapshot_file import read_snapshot_file

    if not path.is_file():
        return None
    entries = read_snapshot_file(path)
    header_text = entries.get(f"scenario[{BASELINE_ENTRY}]")
    if header_text is None:
        return None
    recorded = dict(parse_amber(header_text))
    formation: dict[str, Any] = {}
    probes: dict[str, Any] = {}
    for name, text in entries.items():
        if not (name.startswith("scenario[") and name.endswith("]")):
            continue
        scenario_id, sep, tail = name[len("scenario["):-1].rpartition("/")
        if not sep:
            continue
        if tail == "formation":
            formation[scenario_id] = parse_amber(text)
        else:
            probes[f"{scenario_id}/{tail}"] = parse_amber(text)
    recorded["formation"] = formation
    recorded["probes"] = probes
    return recorded


def evaluate_baseline(request: pytest.FixtureRequest, plugin: ScenarioRun) -> None:
    from ..scenarios import compare
    from .snapshot_file import SnapshotFileError

    current = plugin.current_run(request)
    header = {key: current[key] for key in HEADER_KEYS}
    from .baseline_extension import baseline_snapshot

    snapshot = baseline_snapshot(request)
    matches = snapshot == header
    if plugin.updating:
        request.node.stash[BASELINE_KEY] = ["re-recorded"]
        return
    try:
        recorded = read_recorded_run(plugin.snapshot_path)
    except (SnapshotFileError, SyntaxError, ValueError) as error:
        pytest.fail(f"the scenario baseline cannot be read: {error}", pytrace=False)
    if recorded is None:
        request.node.stash[BASELINE_KEY] = ["no recorded baseline"]
        pytest.fail(f"no recorded scenario baseline in {plugin.snapshot_path} (record it with --tme-baseline "
                    "--snapshot-update)", pytrace=False)
    comparison = compare(current, recorded)
    lines = comparison.lines()
    request.node.stash[BASELINE_KEY] = lines or ["identical to the recorded baseline"]
    if comparison.no_regression and comparison.baseline_current and matches:
        return
    gates = (f"no regression: {'pass' if comparison.no_regression else 'FAIL'}; baseline current: "
             f"{'pass' if comparison.baseline_current else 'FAIL'}")
    pytest.fail(f"the scenario run differs from its baseline ({gates}; re-record with --snapshot-update "
                "if the change is intended):\n" + "\n".join(lines or ["changed: the header entry differs"]),
                pytrace=False)


__all__ = ["BASELINE_ENTRY", "BASELINE_KEY", "HEADER_KEYS", "assert_snapshot", "evaluate_baseline",
           "parse_amber", "read_recorded_run"]
