"""The scenario items (issue 11): a plugin object registered by the entry point only when
``--tme-scenarios`` (or its ini key, or ``--tme-scenario-live``) asks for it.

A plugin object of its own, so the corpus run stays about the TypedMemEval corpora and a run
that asks for no scenario pays nothing beyond declaring the options (:mod:`.options`).

``pytest --tme-scenarios --tme-scenario-memory reference-memory`` collects, for the scenario corpus
(the shipped ``scenarios-v1.json`` unless ``--tme-scenarios=PATH``), under the collector
``<rootdir>/typedmemeval/scenarios/<corpus stem>``:

* ``scenario[<scenario id>/formation]`` — the scenario's formation metrics (fails when a protected
  fragment formed: ``policy_failures > 0``);
* ``scenario[<scenario id>/<probe id>]`` — one probe (fails when a forbidden statement reached the
  model — ``currency_violations``, ``abstention_leaks``, ``false_transfers`` — a protected fragment
  was rendered, or ``ask()`` raised);
* with ``--tme-baseline``: every item asserts its row against the syrupy snapshot
  ``<rootdir>/typedmemeval/scenarios/__baseline__/<corpus stem>.ambr`` instead, and
  ``scenario[baseline]`` compares the whole run with the recorded one (:func:`..scenarios.compare`),
  red unless *no regression* and *baseline current*; ``--snapshot-update`` re-records;
* with ``--tme-scenario-live OUT.json``: ``scenario[live]``, the paired live arm
  (:mod:`..scenarios.live`).

Markers: ``scenario``, ``scenario_<category>`` (``scenario_update`` ...), ``scenario_formation``,
``scenario_baseline``, ``scenario_live``, and ``xdist_group(<scenario id>)`` so ``-n N --dist
loadgroup`` prepares each scenario once. Results do not depend on the distribution: every probe
item replays its scenario's earlier probes first (cached per process), so a probe run alone, on any
worker, gives the row it has in a full run.

This module registers the plugin object and holds the collector and the hooks. The run state they
share is :mod:`.scenario_run`; the memory factory :mod:`.scenario_memory`; what makes an item pass
or fail :mod:`.scenario_verdicts` (and, with ``--tme-baseline``, :mod:`.scenario_baseline`); the
terminal summary :mod:`.scenario_summary`.
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from .collectors import PluginItemsModule, parametrized_case
from .options import SHIPPED_SCENARIOS
from .scenario_baseline import BASELINE_ENTRY, BASELINE_KEY
from .scenario_memory import MEMORY_FIXTURE, NO_MEMORY_MESSAGE
from .scenario_run import PLUGIN_NAME, ScenarioCase, ScenarioRun
from .scenario_summary import summary_lines
from .scenario_verdicts import LIVE_KEY, ROW_KEY, evaluate
from .xdist_roles import is_worker

ROW_ATTRIBUTE = "typedmemeval_scenario_row"
LIVE_ATTRIBUTE = "typedmemeval_scenario_live"
BASELINE_ATTRIBUTE = "typedmemeval_scenario_baseline"

MARKER_CATEGORIES: tuple[str, ...] = ("single_hop", "multi_hop", "temporal", "update", "correction",
                                      "preference", "transfer", "abstention")
"""``scenarios.models.CATEGORIES``, written out: the markers are registered on every pytest start,
and importing the schema would pull pydantic into runs that never asked for scenarios (a test keeps
the two equal)."""


def _markers(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "scenario: a TypedMemEval scenario benchmark item")
    for category in (*MARKER_CATEGORIES, "formation", "baseline", "live"):
        config.addinivalue_line("markers", f"scenario_{category}: TypedMemEval scenario item ({category})")
    if not config.pluginmanager.hasplugin("xdist"):
        config.addinivalue_line("markers", "xdist_group(name): pytest-xdist --dist loadgroup group")


def register_if_wanted(config: pytest.Config) -> None:
    """Register the scenario plugin object when its options ask for it (from ``pytest_configure``)."""
    _markers(config)
    given = config.getoption("tme_scenarios")
    ini = str(config.getini("typedmemeval_scenarios") or "").strip()
    live = config.getoption("tme_scenario_live")
    if given is None and not ini and not live:
        if config.getoption("tme_scenario_report"):
            raise pytest.UsageError("--tme-scenario-report needs --tme-scenarios (nothing would be reported)")
        return
    if given is not None and given != SHIPPED_SCENARIOS:
        source: Path | None = Path(config.invocation_params.dir, given)
    elif given is None and ini and ini.lower() not in ("shipped", "true", "1", "yes"):
        source = Path(config.rootpath, ini)
    else:
        source = None
    from ..scenarios import ScenarioCorpusError, load_scenarios

    try:
        corpus = load_scenarios(source)
    except ScenarioCorpusError as error:
        hint = ""
        if given not in (None, SHIPPED_SCENARIOS) and not str(given).endswith(".json"):
            # ``--tme-scenarios`` takes an optional PATH, so argparse hands it the next argument.
            hint = (f" (--tme-scenarios took {given!r} as the scenario corpus: if it is a test path, "
                    f"put it before --tme-scenarios, or write --tme-scenarios=PATH for a corpus)")
        raise pytest.UsageError(f"TypedMemEval scenario corpus error: {error}{hint}") from None
    plugin = ScenarioPlugin(config, corpus)
    plugin.configure()
    config.pluginmanager.register(plugin, PLUGIN_NAME)


def scenario(tme_scenario_case: object, request: pytest.FixtureRequest) -> None:
    """The test function every scenario item is parametrized over."""
    # The memory (the ``typedmemeval_scenario_memory`` fixture or --tme-scenario-memory) is
    # resolved inside the call, so a broken factory is one failure for the run, not a setup
    # traceback per probe.
    evaluate(request, tme_scenario_case)


class ScenarioModule(PluginItemsModule):
    """The scenario corpus as a collector at ``<rootdir>/typedmemeval/scenarios/<corpus stem>`` (not
    a real file): readable node ids, ``--lf`` finds the items again, and syrupy puts the baseline in
    ``<rootdir>/typedmemeval/scenarios/__baseline__/<corpus stem>.ambr`` — a directory of its own,
    so syrupy's clean-up of a re-record never reaches the question baselines beside it, and not
    syrupy's ``__snapshots__``, so a run without ``--tme-baseline`` never counts it as unused
    (:mod:`.baseline_extension`)."""

    test_function = staticmethod(scenario)


class ScenarioPlugin(ScenarioRun):
    """The scenario items' hooks (guarded to scenario items), over their run state in this process
    (:class:`.scenario_run.ScenarioRun`, which holds the options, the memory and the rows)."""

    # --- collection --------------------------------------------------------------------------------
    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, session: pytest.Session, config: pytest.Config,
                                      items: list[pytest.Item]) -> None:
        module = ScenarioModule.from_parent(session, path=self.module_path)
        items.extend(item for item in session.genitems(module) if isinstance(item, pytest.Item))

    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        if not isinstance(metafunc.definition.parent, ScenarioModule):
            return
        params = []
        for scenario in self.corpus.document.scenarios:
            group = pytest.mark.xdist_group(name=scenario.id)
            case = ScenarioCase("formation", scenario.id)
            params.append(pytest.param(case, id=case.key, marks=[pytest.mark.scenario,
                                                                  pytest.mark.scenario_formation, group]))
            for probe in scenario.probes:
                case = ScenarioCase("probe", scenario.id, probe.id)
                marks = [pytest.mark.scenario, getattr(pytest.mark, f"scenario_{probe.category}"), group]
                params.append(pytest.param(case, id=case.key, marks=marks))
        if self.baseline:
            params.append(pytest.param(ScenarioCase(BASELINE_ENTRY), id=BASELINE_ENTRY,
                                       marks=[pytest.mark.scenario, pytest.mark.scenario_baseline]))
        if self.live_path is not None:
            params.append(pytest.param(ScenarioCase("live"), id="live",
                                       marks=[pytest.mark.scenario, pytest.mark.scenario_live]))
        metafunc.parametrize("tme_scenario_case", params)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Refuse a run without a memory once, before any item runs."""
        ours = [item for item in session.items if _case(item) is not None]
        self.selected = len(ours)
        if not ours or self.memory_spec or session.config.option.collectonly:
            return
        manager = getattr(session, "_fixturemanager", None)
        if manager is not None and not manager.getfixturedefs(MEMORY_FIXTURE, ours[0]):
            raise pytest.UsageError(NO_MEMORY_MESSAGE)

    # --- reports -----------------------------------------------------------------------------------
    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]
                                  ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        if report.when == "call" and _case(item) is not None:
            for key, attribute in ((ROW_KEY, ROW_ATTRIBUTE), (LIVE_KEY, LIVE_ATTRIBUTE),
                                   (BASELINE_KEY, BASELINE_ATTRIBUTE)):
                payload = item.stash.get(key, None)
                if payload is not None:
                    setattr(report, attribute, payload)
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if is_worker(self.config):
            return
        row = getattr(report, ROW_ATTRIBUTE, None)
        if isinstance(row, dict):
            scenario_id = row["scenario_id"]
            self.formations[scenario_id] = row["formation"]
            self.versions[scenario_id] = row["versions"]
            if row.get("probe_id"):
                self.probe_rows[f"{scenario_id}/{row['probe_id']}"] = row["row"]
        live = getattr(report, LIVE_ATTRIBUTE, None)
        if isinstance(live, dict):
            self.live_lines = list(live.get("lines", []))
        lines = getattr(report, BASELINE_ATTRIBUTE, None)
        if isinstance(lines, list):
            self.baseline_lines = [str(line) for line in lines]

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if is_worker(self.config) or self.config.option.collectonly or self.report_path is None:
            return
        from ..scenarios import canonical_json

        run = self.run_data()
        if run is None:
            return
        self.report_path.parent.mkdir(parents=True, exist_ok=True)
        self.report_path.write_bytes(canonical_json(run).encode("ascii"))

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if is_worker(self.config) or self.config.option.collectonly:
            return
        run = self.run_data()
        if run is None and not self.live_lines and self.baseline_lines is None:
            return
        terminalreporter.write_sep("=", "TypedMemEval scenarios")
        for line in summary_lines(self, run):
            terminalreporter.write_line(line)


def _case(item: pytest.Item) -> ScenarioCase | None:
    case: ScenarioCase | None = parametrized_case(item, "tme_scenario_case", ScenarioCase)
    return case


__all__ = ["MARKER_CATEGORIES", "ScenarioModule", "ScenarioPlugin", "register_if_wanted", "scenario"]
