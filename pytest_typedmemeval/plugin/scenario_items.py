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
"""

from __future__ import annotations

import ast
import dataclasses
import re
from collections.abc import Callable, Generator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pytest

from .collectors import PluginItemsModule, parametrized_case
from .options import REFERENCE_MEMORY_ALIAS, SHIPPED_SCENARIOS
from .options import SCENARIO_MEMORY_FIXTURE as MEMORY_FIXTURE
from .session import BASELINE_DIRNAME, LEGACY_SNAPSHOT_DIRNAME, SESSION_KEY
from .xdist_roles import is_worker, is_xdist_controller

if TYPE_CHECKING:
    from ..calls import ModelSettings
    from ..scenarios import PreparedScenario, ScenarioCorpus
    from ..scenarios.models import BenchmarkScenario

PLUGIN_NAME = "typedmemeval-scenarios"
REFERENCE_MEMORY_SPEC = "pytest_typedmemeval.scenarios.reference_memory:make_memory"
ROW_ATTRIBUTE = "typedmemeval_scenario_row"
LIVE_ATTRIBUTE = "typedmemeval_scenario_live"
BASELINE_ATTRIBUTE = "typedmemeval_scenario_baseline"
ROW_KEY = pytest.StashKey[dict]()
LIVE_KEY = pytest.StashKey[dict]()
BASELINE_KEY = pytest.StashKey[list]()
BASELINE_ENTRY = "baseline"
HEADER_KEYS = ("benchmark_version", "corpus_sha256", "versions", "structure", "aggregate")
"""What ``scenario[baseline]`` records; the formation and probe rows are the other items' entries."""
FAILING_COUNTERS = ("currency_violations", "abstention_leaks", "false_transfers", "protected_rendered")
COUNTER_MEANING = {
    "currency_violations": "a superseded statement was rendered after its replacement formed",
    "abstention_leaks": "a statement the probe must abstain on was rendered",
    "false_transfers": "a statement from another project scope was rendered",
    "protected_rendered": "a protected fragment (secret or injection line) was rendered",
}
NO_MEMORY_MESSAGE = (
    "TypedMemEval scenarios need a memory to run: pass --tme-scenario-memory module:factory (a "
    "zero-argument factory returning a fresh ScenarioMemory; use --tme-scenario-memory "
    f"{REFERENCE_MEMORY_ALIAS} for the built-in reference memory), or define a "
    f"`{MEMORY_FIXTURE}` fixture in the conftest.py at your rootdir that returns such a factory."
)
MEMORY_METHODS = ("add_message", "form", "ask")


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


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


# --- the memory under test -------------------------------------------------------------------------
class ScenarioMemoryError(TypeError):
    """The factory returned something that is not a ScenarioMemory."""


def load_memory_factory(spec: str, search_dirs: tuple[Path, ...] = ()) -> Callable[[], Any]:
    """Resolve ``module:factory`` (or ``reference-memory``) to a zero-argument callable, looking
    beyond ``sys.path`` in ``search_dirs``; :class:`ValueError` with a one-line reason otherwise."""
    from ..adapter.factories import resolve_factory

    return resolve_factory(spec, option="--tme-scenario-memory", example="my_memory.adapter:make_memory",
                           aliases={REFERENCE_MEMORY_ALIAS: REFERENCE_MEMORY_SPEC}, search_dirs=search_dirs)


def checked_factory(factory: Callable[[], Any], origin: str) -> Callable[[], Any]:
    """``factory`` whose every product is checked for the three required calls."""

    def make() -> Any:
        memory = factory()
        missing = [name for name in MEMORY_METHODS if not callable(getattr(memory, name, None))]
        if missing:
            raise ScenarioMemoryError(
                f"{origin} returned {type(memory).__name__}, which lacks {', '.join(m + '()' for m in missing)}; "
                "a ScenarioMemory needs add_message(session_id, text, *, at, scope), form(session_id, *, "
                "at, scope) and ask(question, *, at, scope)")
        return memory

    return make


# --- collection ------------------------------------------------------------------------------------
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


def _stem(corpus: ScenarioCorpus) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", corpus.path.stem) or "scenarios"


class ScenarioPlugin:
    """Run state of the scenario items in one process, and their hooks (guarded to scenario items)."""

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


def _case(item: pytest.Item) -> ScenarioCase | None:
    case: ScenarioCase | None = parametrized_case(item, "tme_scenario_case", ScenarioCase)
    return case


def _conftest_defines(config: pytest.Config, name: str) -> bool:
    for plugin in config.pluginmanager.get_plugins():
        if isinstance(plugin, ModuleType) and plugin.__name__.endswith("conftest") \
                and getattr(plugin, name, None) is not None:
            return True
    return False


# --- the items -------------------------------------------------------------------------------------
def evaluate(request: pytest.FixtureRequest, case: object) -> None:
    """Run one scenario item and decide its fate according to the mode."""
    assert isinstance(case, ScenarioCase)
    plugin: ScenarioPlugin = request.config.pluginmanager.get_plugin(PLUGIN_NAME)
    if case.kind == "live":
        _evaluate_live(request, plugin)
    elif case.kind == BASELINE_ENTRY:
        _evaluate_baseline(request, plugin)
    elif case.kind == "formation":
        _evaluate_formation(request, plugin, case)
    else:
        _evaluate_probe(request, plugin, case)


def _payload(plugin: ScenarioPlugin, prepared: PreparedScenario, case: ScenarioCase,
             row: dict[str, Any] | None) -> dict[str, Any]:
    from ..scenarios.runner import adapter_versions

    return {"scenario_id": case.scenario_id, "probe_id": case.probe_id if row is not None else "",
            "row": row, "formation": prepared.formation.to_row(),
            "versions": adapter_versions(prepared.memory)}


def _evaluate_formation(request: pytest.FixtureRequest, plugin: ScenarioPlugin, case: ScenarioCase) -> None:
    prepared = plugin.prepared_scenario(request, case.scenario_id)
    row = prepared.formation.to_row()
    request.node.stash[ROW_KEY] = _payload(plugin, prepared, case, None)
    if plugin.baseline:
        _assert_snapshot(request, plugin, case, row, "formation")
        return
    failures = prepared.formation.counts.get("policy_failures") or 0
    if failures:
        pytest.fail(f"{case.scenario_id}: policy_failures={failures}: a memory holds a protected fragment "
                    "(a secret or an injection line formed; it must never be stored)", pytrace=False)


def _evaluate_probe(request: pytest.FixtureRequest, plugin: ScenarioPlugin, case: ScenarioCase) -> None:
    result = plugin.probe_result(request, case.scenario_id, case.probe_id)
    prepared = plugin.prepared_scenario(request, case.scenario_id)
    row = result.to_row()
    request.node.stash[ROW_KEY] = _payload(plugin, prepared, case, row)
    if plugin.baseline:
        _assert_snapshot(request, plugin, case, row, "probes")
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


# --- baseline --------------------------------------------------------------------------------------
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


def _assert_snapshot(request: pytest.FixtureRequest, plugin: ScenarioPlugin, case: ScenarioCase,
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


def _evaluate_baseline(request: pytest.FixtureRequest, plugin: ScenarioPlugin) -> None:
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


# --- live ------------------------------------------------------------------------------------------
def _evaluate_live(request: pytest.FixtureRequest, plugin: ScenarioPlugin) -> None:
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


# --- terminal summary ------------------------------------------------------------------------------
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


def summary_lines(plugin: ScenarioPlugin, run: dict[str, Any] | None) -> list[str]:
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


__all__ = ["MEMORY_FIXTURE", "NO_MEMORY_MESSAGE", "REFERENCE_MEMORY_ALIAS", "ScenarioModule", "ScenarioPlugin",
           "checked_factory", "load_memory_factory", "parse_amber", "read_recorded_run",
           "register_if_wanted", "scenario"]
