"""The run state of the scenario items in one process: the options read at configure time, the
memory factory, the prepared scenarios and probe results cached per process, and the rows gathered
on the aggregating process (:class:`ScenarioRun`); and :class:`ScenarioCase`, one item's parameter.

Apart from the hooks (:mod:`.scenario_items`) so that what decides an item
(:mod:`.scenario_verdicts`, :mod:`.scenario_baseline`) and the summary (:mod:`.scenario_summary`)
can read the state without importing the hooks that collect and run them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pytest

from .options import REFERENCE_MEMORY_ALIAS
from .scenario_memory import (
    MEMORY_FIXTURE,
    NO_MEMORY_MESSAGE,
    ScenarioMemoryError,
    checked_factory,
    load_memory_factory,
)
from .session import BASELINE_DIRNAME, LEGACY_SNAPSHOT_DIRNAME
from .xdist_roles import is_worker, is_xdist_controller

if TYPE_CHECKING:
    from ..calls import ModelSettings
    from ..scenarios import PreparedScenario, ScenarioCorpus
    from ..scenarios.models import BenchmarkScenario

PLUGIN_NAME = "typedmemeval-scenarios"
"""The name the scenario plugin object is registered under (how an item finds the run state)."""


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


@dataclass(frozen=True)
class ScenarioCase:
    """The parameter of one scenario item."""

    kind: str  # "probe", "formation", "baseline" or "live"
    scenario_id: str = ""
    probe_id: str = ""

    @property
    def key(self) -> str:
        if self.kind == "probe":
            return f"{self.scenario_id}/{self.probe_id}"
        if self.kind == "formation":
            return f"{self.scenario_id}/formation"
        return self.kind

    def __repr__(self) -> str:  # shown by --setup-show and in failure text
        return self.key


def _stem(corpus: ScenarioCorpus) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", corpus.path.stem) or "scenarios"


class ScenarioRun:
    """Run state of the scenario items in one process; their hooks subclass it
    (:class:`.scenario_items.ScenarioPlugin`), so there is one object per process for both."""

    def __init__(self, config: pytest.Config, corpus: ScenarioCorpus) -> None:
        self.config = config
        self.corpus = corpus
        self.stem = _stem(corpus)
        self.scenarios: dict[str, BenchmarkScenario] = {s.id: s for s in corpus.document.scenarios}
        self.memory_spec: str | None = None
        self.memory_from_command_line = False
        self.memory_origin = f"the {MEMORY_FIXTURE} fixture"
        self.report_path: Path | None = None
        self.live_path: Path | None = None
        self.live_settings: ModelSettings | None = None
        self.baseline = False
        self.updating = False
        # per process
        self._factory: Callable[[], Any] | None = None
        self.failure: str | None = None
        self.prepared: dict[str, PreparedScenario | str] = {}
        # aggregating process (controller, or the only one)
        self.probe_rows: dict[str, dict[str, Any]] = {}
        self.formations: dict[str, dict[str, Any]] = {}
        self.versions: dict[str, dict[str, str]] = {}
        self.baseline_lines: list[str] | None = None
        self.live_lines: list[str] = []
        self.selected = 0

    # --- configure ---------------------------------------------------------------------------------
    @property
    def module_path(self) -> Path:
        return self.config.rootpath / "typedmemeval" / "scenarios" / self.stem

    @property
    def snapshot_path(self) -> Path:
        return self.config.rootpath / "typedmemeval" / "scenarios" / BASELINE_DIRNAME / f"{self.stem}.ambr"

    @property
    def legacy_snapshot_path(self) -> Path:
        """Where the baseline was kept before issue 22 (refused with the move to make)."""
        return self.module_path.parent / LEGACY_SNAPSHOT_DIRNAME / f"{self.stem}.ambr"

    def configure(self) -> None:
        config = self.config
        # One precedence for adapter sources (issue 22, item 2, as for --tme-agent): the command
        # line, then a conftest.py fixture, then the ini key (tried in factory()).
        flag = config.getoption("tme_scenario_memory")
        if not flag and config.getoption("tme_agent") == REFERENCE_MEMORY_ALIAS:
            # Issue 11 spells the run `--tme-scenarios --tme-agent reference-memory`.
            flag = REFERENCE_MEMORY_ALIAS
        self.memory_from_command_line = bool(flag)
        self.memory_spec = flag or str(config.getini("typedmemeval_scenario_memory") or "").strip() or None
        if self.memory_spec:
            try:
                from .configure import factory_search_dirs

                load_memory_factory(self.memory_spec, factory_search_dirs(config))
            except ValueError as error:
                raise pytest.UsageError(str(error)) from None
        self.baseline = bool(config.getoption("tme_baseline"))
        self.updating = bool(getattr(config.option, "update_snapshots", False))
        if self.baseline and not config.pluginmanager.hasplugin("syrupy"):
            raise pytest.UsageError("--tme-baseline stores the scenario baseline as a syrupy snapshot; syrupy "
                                    "is disabled (-p no:syrupy) or not installed")
        worker = is_worker(config)
        report = config.getoption("tme_scenario_report")
        if report:
            self.report_path = Path(config.invocation_params.dir, report)
            if not worker:
                from .configure import check_report_path

                check_report_path(self.report_path, report, flag="--tme-scenario-report",
                                   example="scenario-report.json")
        live = config.getoption("tme_scenario_live")
        if live:
            self.live_path = Path(config.invocation_params.dir, live)
            self._configure_live(check=not worker)
        if not worker and self.legacy_snapshot_path.is_file():
            old, new = (path.relative_to(config.rootpath) for path in (self.legacy_snapshot_path, self.snapshot_path))
            raise pytest.UsageError(
                f"TypedMemEval: the scenario baseline {old} is in syrupy's __snapshots__ directory, where "
                f"every run that does not assert it counts it as unused; baselines now live in {new.parent}/: "
                + (f"git mv {old} {new}" if not self.snapshot_path.exists()
                   else f"{new} exists too: delete {old} once you have checked it is the older one"))
        if self.baseline and not self.updating and not worker and self.snapshot_path.is_file():
            from .snapshot_file import SnapshotFileError, read_snapshot_file

            try:
                read_snapshot_file(self.snapshot_path)
            except SnapshotFileError as error:
                raise pytest.UsageError(f"TypedMemEval scenario {error}") from None
        if (is_xdist_controller(config) and not self.memory_spec and not config.option.collectonly
                and not _conftest_defines(config, MEMORY_FIXTURE)):
            # The controller collects nothing under xdist: check what it can see, the rootdir conftest.
            raise pytest.UsageError(NO_MEMORY_MESSAGE)

    def _configure_live(self, *, check: bool) -> None:
        """Model settings of the live arm from the run's model options; refuse now (before any
        request) an existing output path, a missing model or an unusable one."""
        from ..calls import ModelCaller, ModelSettings
        from ..calls.endpoint import DEFAULT_TIMEOUT_SECONDS, ModelCallError
        from ..scenarios.live import LiveRunError, refuse_existing
        from .configure import model_guard

        config = self.config
        assert self.live_path is not None
        if check:
            try:
                refuse_existing(self.live_path)
            except LiveRunError as error:
                raise pytest.UsageError(f"--tme-scenario-live: {error}") from None
        model = (config.getoption("tme_model") or config.getini("typedmemeval_model") or "").strip()
        if not model:
            raise pytest.UsageError("--tme-scenario-live needs a model: pass --tme-model NAME (and "
                                    "--tme-base-url URL for a server of your own)")
        base_url = (config.getoption("tme_base_url") or config.getini("typedmemeval_base_url") or "").strip()
        try:
            self.live_settings = ModelSettings.resolve(
                model, base_url or None, **model_guard(config, None),  # type: ignore[arg-type]
                timeout_seconds=config.getoption("tme_model_timeout") or DEFAULT_TIMEOUT_SECONDS)
            if check:
                ModelCaller(self.live_settings).check()
        except ModelCallError as error:
            raise pytest.UsageError(f"TypedMemEval --tme-scenario-live: {error.reason}") from None

    # --- the rows gathered on this process -------------------------------------------------------
    def run_data(self) -> dict[str, Any] | None:
        """The run as :func:`..scenarios.run_corpus` would give it, from the rows that reached this
        process, in corpus order (so arrival order under xdist changes nothing)."""
        from ..scenarios.results import FormationResult, ProbeResult, build_run

        formations, probes = [], []
        versions: dict[str, str] | None = None
        for scenario in self.corpus.document.scenarios:
            if scenario.id not in self.formations:
                continue
            if versions is None:
                versions = self.versions[scenario.id]
            row = self.formations[scenario.id]
            formations.append(FormationResult(scenario.id, row["counts"], row["not_measured"]))
            for probe in scenario.probes:
                data = self.probe_rows.get(f"{scenario.id}/{probe.id}")
                if data is not None:
                    probes.append(ProbeResult(scenario.id, probe.id, data["category"], data["counts"],
                                              data["by_distance"], data["not_measured"]))
        if not formations:
            return None
        return build_run(self.corpus.sha256, versions or {}, len(formations), formations, probes)

    # --- per-process state -------------------------------------------------------------------------
    def factory(self, request: pytest.FixtureRequest) -> Callable[[], Any]:
        """The checked memory factory, or one failure that stops the run."""
        if self._factory is not None:
            return self._factory
        if self.failure is not None:
            pytest.fail("the scenario memory is unusable (see the first failure)", pytrace=False)
        origin = f"the --tme-scenario-memory factory {self.memory_spec!r}"
        try:
            if self.memory_spec and self.memory_from_command_line:
                raw: Any = load_memory_factory(self.memory_spec)
            else:
                try:
                    origin = f"the {MEMORY_FIXTURE} fixture"
                    raw = request.getfixturevalue(MEMORY_FIXTURE)
                except pytest.FixtureLookupError:
                    if not self.memory_spec:
                        raise
                    origin = f"the ini typedmemeval_scenario_memory factory {self.memory_spec!r}"
                    raw = load_memory_factory(self.memory_spec)
            self.memory_origin = origin
            if not callable(raw):
                raise ScenarioMemoryError(f"{origin} gave {type(raw).__name__}, not a zero-argument "
                                          "factory (return the class or a function that builds a fresh memory)")
        except (KeyboardInterrupt, pytest.skip.Exception):
            raise
        except pytest.FixtureLookupError:
            self._stop(request, NO_MEMORY_MESSAGE)
        except BaseException as error:  # noqa: BLE001 - one usage failure for the run
            self._stop(request, f"TypedMemEval: the scenario memory could not be built: {origin} raised "
                                f"{type(error).__name__}: {_one_line(str(error))}")
        self._factory = checked_factory(raw, origin)
        return self._factory

    def _stop(self, request: pytest.FixtureRequest, message: str) -> None:
        self.failure = message
        request.session.shouldfail = "TypedMemEval: stopped, the scenario memory is unusable"
        pytest.fail(message, pytrace=False)

    def prepared_scenario(self, request: pytest.FixtureRequest, scenario_id: str) -> PreparedScenario:
        from ..scenarios import prepare_scenario

        found = self.prepared.get(scenario_id)
        if isinstance(found, str):
            pytest.fail(found, pytrace=False)
        if found is not None:
            return found
        factory = self.factory(request)
        try:
            prepared = prepare_scenario(self.scenarios[scenario_id], factory)
        except ScenarioMemoryError as error:
            self._stop(request, f"TypedMemEval: the scenario memory is not usable: {error}")
            raise  # unreachable: _stop fails the item
        except Exception as error:  # noqa: BLE001 - the memory failed on this scenario
            message = (f"{scenario_id}: replaying the sessions failed: {type(error).__name__}: "
                       f"{_one_line(str(error))}")
            self.prepared[scenario_id] = message
            pytest.fail(message, pytrace=False)
        self.prepared[scenario_id] = prepared
        return prepared

    def probe_result(self, request: pytest.FixtureRequest, scenario_id: str, probe_id: str) -> Any:
        """The probe's result, its scenario's earlier probes asked first (in corpus order)."""
        from ..scenarios import run_probe

        prepared = self.prepared_scenario(request, scenario_id)
        for probe in self.scenarios[scenario_id].probes:
            result = run_probe(prepared, probe.id)
            if probe.id == probe_id:
                return result
        raise KeyError(probe_id)

    def current_run(self, request: pytest.FixtureRequest) -> dict[str, Any]:
        """The whole corpus through this process's cache (what ``scenario[baseline]`` compares)."""
        from ..scenarios.results import build_run
        from ..scenarios.runner import adapter_versions

        formations, probes, versions = [], [], None
        for scenario in self.corpus.document.scenarios:
            prepared = self.prepared_scenario(request, scenario.id)
            versions = versions if versions is not None else adapter_versions(prepared.memory)
            formations.append(prepared.formation)
            probes.extend(self.probe_result(request, scenario.id, probe.id) for probe in scenario.probes)
        return build_run(self.corpus.sha256, versions or {}, len(formations), formations, probes)


def _conftest_defines(config: pytest.Config, name: str) -> bool:
    for plugin in config.pluginmanager.get_plugins():
        if isinstance(plugin, ModuleType) and plugin.__name__.endswith("conftest") \
                and getattr(plugin, name, None) is not None:
            return True
    return False


__all__ = ["PLUGIN_NAME", "ScenarioCase", "ScenarioRun"]
