"""What makes a scenario item pass or fail: a formation item fails when a protected fragment formed,
a probe item when a forbidden statement reached the model or ``ask()`` did not complete, the live
item when the paired live arm does not pass; under ``--tme-baseline`` every row is asserted
against its snapshot instead (:mod:`.scenario_baseline`). Each item stashes its row for the hooks
to carry to the aggregating process.

Apart from the hooks (:mod:`.scenario_items`), which only collect the items and carry their rows.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import pytest

from .scenario_baseline import BASELINE_ENTRY, assert_snapshot, evaluate_baseline
from .scenario_memory import MEMORY_FIXTURE
from .scenario_run import PLUGIN_NAME, ScenarioCase, ScenarioRun
from .session import SESSION_KEY

if TYPE_CHECKING:
    from ..scenarios import PreparedScenario

ROW_KEY = pytest.StashKey[dict]()
LIVE_KEY = pytest.StashKey[dict]()
FAILING_COUNTERS = ("currency_violations", "abstention_leaks", "false_transfers", "protected_rendered")
COUNTER_MEANING = {
    "currency_violations": "a superseded statement was rendered after its replacement formed",
    "abstention_leaks": "a statement the probe must abstain on was rendered",
    "false_transfers": "a statement from another project scope was rendered",
    "protected_rendered": "a protected fragment (secret or injection line) was rendered",
}


def evaluate(request: pytest.FixtureRequest, case: object) -> None:
    """Run one scenario item and decide its fate according to the mode."""
    assert isinstance(case, ScenarioCase)
    plugin: ScenarioRun = request.config.pluginmanager.get_plugin(PLUGIN_NAME)
    if case.kind == "live":
        _evaluate_live(request, plugin)
    elif case.kind == BASELINE_ENTRY:
        evaluate_baseline(request, plugin)
    elif case.kind == "formation":
        _evaluate_formation(request, plugin, case)
    else:
        _evaluate_probe(request, plugin, case)


def _payload(plugin: ScenarioRun, prepared: PreparedScenario, case: ScenarioCase,
             row: dict[str, Any] | None) -> dict[str, Any]:
    from ..scenarios.runner import adapter_versions

    return {"scenario_id": case.scenario_id, "probe_id": case.probe_id if row is not None else "",
            "row": row, "formation": prepared.formation.to_row(),
            "versions": adapter_versions(prepared.memory)}


def _evaluate_formation(request: pytest.FixtureRequest, plugin: ScenarioRun, case: ScenarioCase) -> None:
    prepared = plugin.prepared_scenario(request, case.scenario_id)
    row = prepared.formation.to_row()
    request.node.stash[ROW_KEY] = _payload(plugin, prepared, case, None)
    if plugin.baseline:
        assert_snapshot(request, plugin, case, row, "formation")
        return
    failures = prepared.formation.counts.get("policy_failures") or 0
    if failures:
        pytest.fail(f"{case.scenario_id}: policy_failures={failures}: a memory holds a protected fragment "
                    "(a secret or an injection line formed; it must never be stored)", pytrace=False)


def _evaluate_probe(request: pytest.FixtureRequest, plugin: ScenarioRun, case: ScenarioCase) -> None:
    result = plugin.probe_result(request, case.scenario_id, case.probe_id)
    prepared = plugin.prepared_scenario(request, case.scenario_id)
    row = result.to_row()
    request.node.stash[ROW_KEY] = _payload(plugin, prepared, case, row)
    if plugin.baseline:
        assert_snapshot(request, plugin, case, row, "probes")
        return
    counts = result.counts
    if not counts.get("run_completed"):
        reason = next(iter(result.not_measured.values()), "ask() did not complete")
        pytest.fail(f"{case.key} ({result.category}): the probe did not complete: {reason}", pytrace=False)
    found = [(name, counts.get(name) or 0) for name in FAILING_COUNTERS if (counts.get(name) or 0) > 0]
    if found:
        detail = "; ".join(f"{name}={value} ({COUNTER_MEANING[name]})" for name, value in found)
        pytest.fail(f"{case.key} ({result.category}): forbidden statements reached the model: {detail}. "
                    f"forbidden_rendered={counts.get('forbidden_rendered')}, needed_recalled="
                    f"{counts.get('needed_recalled')}/{counts.get('needed_total')}", pytrace=False)


def _evaluate_live(request: pytest.FixtureRequest, plugin: ScenarioRun) -> None:
    from ..calls import ModelCaller
    from ..calls.endpoint import ModelCallError
    from ..scenarios.live import LiveRunError, run_live
    from ..scenarios.live_evidence import summary_lines as live_lines

    assert plugin.live_path is not None and plugin.live_settings is not None
    factory = plugin.factory(request)
    settings = plugin.live_settings
    main = request.config.stash.get(SESSION_KEY, None)
    if main is not None and main.ledger_path is not None:
        # Models the main plugin calls in this run (llm-* agents, a model judge) spend from the same
        # ceiling: one ledger for the run.
        settings = dataclasses.replace(settings, ledger_path=main.ledger_path)
    caller = ModelCaller(settings)
    # The spec that answered, or the fixture (which source answered follows the precedence).
    origin = (f"{MEMORY_FIXTURE} fixture" if plugin.memory_origin.endswith(" fixture")
              else plugin.memory_spec or "")
    try:
        evidence = run_live(plugin.corpus, factory, caller, plugin.live_path, memory_origin=origin)
    except (LiveRunError, ModelCallError) as error:
        pytest.fail(f"the live arm did not run: {error}", pytrace=False)
    finally:
        caller.close()
    lines = [*live_lines(evidence), f"live evidence: {plugin.live_path} (sha256 {evidence['sha256'][:16]}...)"]
    request.node.stash[LIVE_KEY] = {"lines": lines, "path": str(plugin.live_path)}
    if not evidence["verdict"]["passed"]:
        pytest.fail("the live arm did not pass §6.6 (evidence written, verdict recorded in it): "
                    + "; ".join(evidence["verdict"]["failures"]), pytrace=False)


__all__ = ["COUNTER_MEANING", "FAILING_COUNTERS", "LIVE_KEY", "ROW_KEY", "evaluate"]
