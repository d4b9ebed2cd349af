"""The dataset items (issue 11): a plugin object registered by the entry point only when
``--tme-dataset`` asks for it.

A plugin object of its own, so the corpus run stays about the TypedMemEval corpora and a run
that asks for no dataset pays nothing beyond declaring the options (:mod:`.options`).

``--tme-dataset NAME=PATH`` reads a public dataset (LoCoMo, LongMemEval, HaluMem) from the user's
local file (:mod:`..datasets`; never downloaded) on every process — loading is deterministic, so
xdist workers collect the same items — and collects one item per scored question, node id
``dataset/<name>::dataset_question[...]``, through a directory collector at ``<rootdir>/dataset``
so the rootdir ``conftest.py`` hooks reach the items (:class:`DatasetDirectory`). Each item runs
its question through the same adapter the corpus questions use (the ``typedmemeval_agent``
fixture or ``--tme-agent``) and passes iff the dataset's scoring calls the answer correct
(``--tme-dataset-scoring``: the typed reading, or the dataset's own token metric where it has
one); in threshold mode (``--tme-fail-under``, :mod:`..datasets.thresholds`) the bounds decide. Results travel to the controller on the item's report, and the
session ends with one terminal section per dataset (its licence, per-category figures, what
loading tolerated, its caveats) and, with ``--tme-dataset-metrics DIR``, ``DIR/<name>-metrics.json``.

Nothing here touches the TypedMemEval session's results, report or aggregation: a dataset's name
appears in its own section and metrics file only.
"""

from __future__ import annotations

import argparse
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from .adapter_fixture import (
    ADAPTER_FAILURE_ATTRIBUTE,
    conftest_defines_agent,
    no_adapter_message,
    resolve_agent,
    uses_default_agent_fixture,
)
from .collectors import PluginItemsModule, parametrized_case
from .configure import DATASET_BOUND_NAMES, configure_models, factory_search_dirs
from .options import parse_timeout
from .session import tme_session
from .xdist_roles import LEDGER_INPUT_KEY, WORKER_PAYLOAD_KEY, is_worker, is_xdist_controller

if TYPE_CHECKING:
    from ..datasets import DatasetQuestion, DatasetResult, DatasetSpec, LoadedDataset
    from ..datasets.thresholds import BoundScope
    from ..datasets.upstream_scoring import ScoringMode
    from .session import TypedMemEvalSession

PLUGIN_NAME = "typedmemeval-datasets"
XDIST_PLUGIN_NAME = "typedmemeval-datasets-xdist"
DATASET_FUNCTION = "dataset_question"
"""The plugin-owned test function every dataset question is parametrized over."""
CASE_ARGUMENT = "tme_dataset_case"
COLLECTION_DIR = "dataset"
"""Items live at ``<rootdir>/dataset`` (not a real directory), node ids ``dataset/<name>::...``."""
RESULT_ATTRIBUTE = "tme_dataset_result"
"""Report attribute carrying :meth:`DatasetResult.to_dict` (plain data: xdist ships it)."""
SECTION_TITLE = "public memory datasets (informational; not TypedMemEval results)"
METRICS_SUFFIX = "-metrics.json"


@dataclass(frozen=True)
class DatasetCase:
    """The parameter of one dataset item. Its repr is the position-based item id only (never the
    upstream question id, which can give an answer away: LongMemEval's ``_abs``)."""

    question: DatasetQuestion

    def __repr__(self) -> str:
        from ..datasets import dataset_item_id

        return dataset_item_id(self.question)


def param_id(question: DatasetQuestion) -> str:
    """The item's parameter id: the position-based id within its dataset (``conv-26/q017``, ``q0042``)."""
    from ..datasets import dataset_item_id

    return dataset_item_id(question).removeprefix(f"{COLLECTION_DIR}/{question.dataset}/")


def dataset_nodeid(question: DatasetQuestion) -> str:
    """The node id of a dataset item, relative to the rootdir (see :class:`DatasetModule`)."""
    return f"{COLLECTION_DIR}/{question.dataset}::{DATASET_FUNCTION}[{param_id(question)}]"


def dataset_question(tme_dataset_case: object, request: pytest.FixtureRequest) -> None:
    """The test function every dataset question is parametrized over."""
    # The adapter (the ``typedmemeval_agent`` fixture, overridable in conftest.py) is requested
    # inside the call, as for corpus questions: a fixture that raises is then one usage error for
    # the run, not a setup traceback per question.
    evaluate_dataset_question(request, tme_dataset_case)


class DatasetModule(PluginItemsModule):
    """One loaded dataset as a collector with node id ``dataset/<name>``: readable node ids,
    ``--lf`` finds the items again. Not a ``QuestionModule``, so the question items' collection
    hooks leave it alone. Its path is its :class:`DatasetDirectory`'s (see there why)."""

    tme_dataset: LoadedDataset
    test_function = staticmethod(dataset_question)


class DatasetDirectory(pytest.Directory):
    """``<rootdir>/dataset`` (not a real directory) as a directory collector holding one
    :class:`DatasetModule` per loaded dataset.

    Why a directory: pytest decides which ``conftest.py`` hooks reach a node from the node's path
    (``Session.gethookproxy``), and it knows the conftests of a path only once a directory
    collector at that path has been collected (pytest loads them then, for every
    ``pytest.Directory``). Collected from the session alone, a collector at a path pytest never
    walked has no conftest at all, so the rootdir ``conftest.py``'s ``pytest_runtest_setup`` or
    ``pytest_runtest_logreport`` never saw a dataset item. Collected through this directory, the
    items get the conftests of ``<rootdir>/dataset`` and every directory above it up to the
    confcutdir, as a test file there would. The modules share this path (a module at
    ``<rootdir>/dataset/<name>`` would again be a path pytest never walked) and keep their node
    ids by naming them.
    """

    tme_datasets: dict[str, LoadedDataset]

    def collect(self) -> Iterator[DatasetModule]:
        for name, loaded in self.tme_datasets.items():
            if not loaded.questions:
                continue  # nothing to run; the summary says why (what loading excluded)
            module = DatasetModule.from_parent(self, path=self.path, name=name, nodeid=f"{COLLECTION_DIR}/{name}")
            module.tme_dataset = loaded
            yield module


PLUGIN_KEY = pytest.StashKey["DatasetPlugin"]()
DATASET_RESULT_KEY = pytest.StashKey["DatasetResult"]()


def register_if_wanted(config: pytest.Config) -> None:
    """Register the dataset plugin object when its options ask for it (from ``pytest_configure``).

    Loads every named dataset now, on every process (deterministic, so xdist workers collect the
    same items), and registers its markers so ``--strict-markers`` passes. A file that is not the
    dataset, or an option that does not apply, is one usage error.
    """
    values = list(config.getoption("tme_dataset") or [])
    if not values:
        for flag, dest in (("--tme-dataset-principal", "tme_dataset_principal"),
                           ("--tme-dataset-scoring", "tme_dataset_scoring"),
                           ("--tme-dataset-sample", "tme_dataset_sample"),
                           ("--tme-dataset-seed", "tme_dataset_seed"),
                           ("--tme-dataset-metrics", "tme_dataset_metrics")):
            if config.getoption(dest) is not None:
                raise pytest.UsageError(f"{flag} applies to the datasets named by --tme-dataset NAME=PATH, "
                                        "and none was named")
        return
    from ..datasets import (
        DatasetFormatError,
        DatasetOptionError,
        item_markers,
        load_dataset,
        parse_dataset_option,
        spec_markers,
    )
    from ..datasets.items import DATASET_MARKER

    here = config.invocation_params.dir
    named: dict[str, Path] = {}
    for value in values:
        try:
            name, path = parse_dataset_option(value)
        except DatasetOptionError as error:
            raise pytest.UsageError(str(error)) from None
        if name in named:
            raise pytest.UsageError(f"--tme-dataset {value!r}: {name} is already named "
                                    f"({named[name]}); name each dataset once")
        named[name] = Path(here, path)
    principal = config.getoption("tme_dataset_principal")
    if principal is not None and "locomo" not in named:
        raise pytest.UsageError("--tme-dataset-principal applies to LoCoMo only, and no locomo=PATH was named")
    sample = config.getoption("tme_dataset_sample")
    seed = config.getoption("tme_dataset_seed")
    datasets: dict[str, LoadedDataset] = {}
    for name, path in named.items():
        try:
            datasets[name] = load_dataset(name, path, principal=principal if name == "locomo" else None,
                                          sample=sample, seed=0 if seed is None else seed)
        except DatasetFormatError as error:
            raise pytest.UsageError(f"--tme-dataset {name}: {error}") from None
        except DatasetOptionError as error:
            raise pytest.UsageError(f"--tme-dataset {name}: {error}") from None
    metrics = config.getoption("tme_dataset_metrics")
    metrics_dir = Path(here, metrics) if metrics else None
    if metrics_dir is not None and metrics_dir.exists() and not metrics_dir.is_dir():
        raise pytest.UsageError(f"--tme-dataset-metrics {metrics}: is not a directory; name a directory "
                                "(it is created if missing)")

    config.addinivalue_line("markers", f"{DATASET_MARKER}: a public-dataset question (--tme-dataset)")
    markers: dict[str, str] = {}
    for loaded in datasets.values():
        markers.update(dict(spec_markers(loaded.spec)))
        for question in loaded.questions:
            for marker in item_markers(question):
                markers.setdefault(marker, f"{loaded.spec.title} category")
    markers.pop(DATASET_MARKER, None)
    for marker, description in markers.items():
        config.addinivalue_line("markers", f"{marker}: {description}")

    scoring, notice = resolve_scoring(config.getoption("tme_dataset_scoring"), datasets)
    plugin = DatasetPlugin(config, datasets, metrics_dir, scoring=scoring, scoring_notice=notice)
    plugin.read_bounds(dict(config.getoption("tme_fail_under") or []))
    config.stash[PLUGIN_KEY] = plugin
    config.stash[DATASET_BOUND_NAMES] = lambda: frozenset(plugin.bound_scopes)
    config.pluginmanager.register(plugin, PLUGIN_NAME)
    if is_xdist_controller(config):
        config.pluginmanager.register(DatasetXdistHooks(plugin), XDIST_PLUGIN_NAME)


def resolve_scoring(asked: ScoringMode | None, datasets: dict[str, LoadedDataset]) -> tuple[ScoringMode, str | None]:
    """The ``--tme-dataset-scoring`` mode the run uses, and a one-line notice when it is not the one
    asked for. Upstream token metrics need the ``upstream`` extra (NLTK's Porter stemmer): asked for
    explicitly, its absence is one usage error; under ``both`` (the default) the run falls back to
    ``typed`` and says so. A run naming no dataset with an upstream token metric needs no extra."""
    from ..datasets.upstream_scoring import DEFAULT_SCORING, INSTALL_HINT, UpstreamUnavailable, require_upstream

    mode: ScoringMode = asked or DEFAULT_SCORING
    if mode == "typed" or not any(d.spec.upstream_answer_metric for d in datasets.values()):
        return mode, None
    try:
        require_upstream()
    except UpstreamUnavailable as error:
        if mode == "upstream":
            raise pytest.UsageError(str(error)) from None
        return "typed", (f"--tme-dataset-scoring {mode}: typed reading only; the upstream figures need "
                         f"NLTK's Porter stemmer ({INSTALL_HINT})")
    return mode, None


def _dataset_case(item: pytest.Item) -> DatasetCase | None:
    case: DatasetCase | None = parametrized_case(item, CASE_ARGUMENT, DatasetCase)
    return case


def evaluate_dataset_question(request: pytest.FixtureRequest, case: object) -> None:
    """Run one dataset question through the run's adapter; the item passes iff it is correct."""
    from ..datasets import run_dataset_question

    assert isinstance(case, DatasetCase)
    session = tme_session(request.config)
    agent = resolve_agent(request, session)
    plugin = request.config.stash[PLUGIN_KEY]
    result = run_dataset_question(agent, case.question, calls=session.adapter_calls(),
                                  scoring=plugin.scoring,
                                  spec=plugin.datasets[case.question.dataset].spec)
    request.node.stash[DATASET_RESULT_KEY] = result
    if result.correct:
        return
    if case.question.dataset in plugin.threshold_datasets:
        if result.outcome != "error":
            return  # threshold mode: the bounds decide at the end of the session
        pytest.fail("error from the adapter (errors fail even in threshold mode: they are harness "
                    "faults, not memory results)\n" + result.failure_text(), pytrace=False)
    pytest.fail(result.failure_text(), pytrace=False)


def error_result(question: DatasetQuestion, reason: str) -> DatasetResult:
    """A result for a dataset question whose item could not run (setup failed, its worker died)."""
    from ..adapter.run import one_line
    from ..datasets import DatasetResult

    return DatasetResult(
        dataset=question.dataset, question_id=question.question_id, item_id=question.item_id,
        category=question.category, abstention=question.abstention, outcome="error", correct=False,
        f1=None, exact_match=None, reason=one_line(reason), question=question.question,
        gold=question.gold_display, answer=None, provenance="unobserved", evidence_source=None,
        evidence_ranks=(), unknown_evidence_ids=0, duration_seconds=0.0,
    )


@dataclass(eq=False)
class DatasetPlugin:
    """The dataset run of one pytest process: what was loaded, selected and answered."""

    config: pytest.Config
    datasets: dict[str, LoadedDataset]
    metrics_dir: Path | None = None
    scoring: ScoringMode = "typed"
    """The ``--tme-dataset-scoring`` mode in force (after the fallback :func:`resolve_scoring` chose)."""
    scoring_notice: str | None = None
    results: dict[tuple[str, str], DatasetResult] = field(default_factory=dict)
    """(dataset, upstream question id) -> result; filled in the process that aggregates."""
    selected: dict[tuple[str, str], str] = field(default_factory=dict)
    """Questions this run set out to answer (after -m/-k/--lf): key -> node id."""
    adapter_failure: str | None = None
    lines: list[str] = field(default_factory=list)
    finished: bool = False
    metrics_error: str | None = None
    fail_under: dict[str, float] = field(default_factory=dict)
    """The ``--tme-fail-under`` bounds that concern datasets (``*`` and the names they claim)."""
    bound_scopes: dict[str, BoundScope] = field(default_factory=dict)
    """Every bound name the loaded datasets answer to (:func:`..datasets.thresholds.bound_scopes`)."""
    other_bounds: dict[str, float] = field(default_factory=dict)
    """Bounds naming no dataset: a corpus's verticals or shapes, or nothing (refused)."""
    threshold_datasets: frozenset[str] = frozenset()
    """Datasets in threshold mode: their items do not fail one by one."""
    threshold_rows: list[dict[str, Any]] = field(default_factory=list)
    threshold_failures: list[str] = field(default_factory=list)
    thresholds_not_evaluated: list[str] = field(default_factory=list)
    _nodeid_index: dict[str, DatasetQuestion] | None = None

    @property
    def is_worker(self) -> bool:
        return is_worker(self.config)

    def read_bounds(self, fail_under: dict[str, float]) -> None:
        """Split ``--tme-fail-under`` into the dataset bounds and the others, and note which
        datasets are in threshold mode (:mod:`..datasets.thresholds`)."""
        from ..datasets.thresholds import bound_scopes, bounded_datasets, dataset_bounds

        self.bound_scopes = bound_scopes(self.datasets)
        self.fail_under = dataset_bounds(fail_under, self.bound_scopes)
        self.other_bounds = {name: bound for name, bound in fail_under.items() if name not in self.fail_under}
        self.threshold_datasets = bounded_datasets(self.fail_under, self.bound_scopes)

    def question_for_nodeid(self, nodeid: str) -> DatasetQuestion | None:
        """The dataset question a node id names (works on the xdist controller, which collects nothing)."""
        if self._nodeid_index is None:
            self._nodeid_index = {dataset_nodeid(q): q for loaded in self.datasets.values() for q in loaded.questions}
        return self._nodeid_index.get(nodeid.partition("@")[0])

    # --- the adapter in a dataset-only run --------------------------------------------------------

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        """Without corpora the main plugin leaves the adapter options unread (its configure stops
        early): read them the same way here, so ``--tme-agent`` (``reference``, ``module:factory``,
        ``llm-*``), ``--tme-timeout`` and the rootdir conftest fixture work for datasets alone."""
        tme = tme_session(self.config)
        if tme.enabled:
            return  # the main plugin configured the adapter, its timeout and any model
        from ..datasets.thresholds import unknown_dataset_bound

        # Without corpora the main plugin checks no bound name: a name no dataset claims bounds nothing.
        refusal = unknown_dataset_bound(self.other_bounds, self.bound_scopes)
        if refusal is not None:
            raise pytest.UsageError(refusal)
        self._configure_adapter(tme)

    def _configure_adapter(self, tme: TypedMemEvalSession) -> None:
        from ..adapter.factories import AgentSpecError, is_llm_agent_alias, load_agent_factory

        config = self.config
        ini_timeout = config.getini("typedmemeval_timeout")
        try:
            tme.timeout = config.getoption("tme_timeout") or (
                parse_timeout(ini_timeout) if ini_timeout else None)
        except argparse.ArgumentTypeError as error:
            raise pytest.UsageError(f"TypedMemEval: ini typedmemeval_timeout {error}") from None
        tme.agent_spec = config.getoption("tme_agent") or config.getini("typedmemeval_agent") or None
        tme.agent_from_command_line = bool(config.getoption("tme_agent"))
        if tme.agent_spec and not is_llm_agent_alias(tme.agent_spec):
            try:
                load_agent_factory(tme.agent_spec, factory_search_dirs(config))
            except AgentSpecError as error:
                raise pytest.UsageError(str(error)) from None
        configure_models(config, tme)
        if (is_xdist_controller(config) and not tme.agent_spec and not config.option.collectonly
                and not conftest_defines_agent(config)):
            # The controller collects nothing under xdist: it checks what it can see, the rootdir
            # conftest (as the main plugin does for corpus questions).
            raise pytest.UsageError(no_adapter_message(config))

    # --- collection -------------------------------------------------------------------------------

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, session: pytest.Session, config: pytest.Config,
                                      items: list[pytest.Item]) -> None:
        if not any(loaded.questions for loaded in self.datasets.values()):
            return
        directory = DatasetDirectory.from_parent(session, path=config.rootpath / COLLECTION_DIR)
        directory.tme_datasets = self.datasets
        for item in session.genitems(directory):
            if isinstance(item, pytest.Item):
                case = _dataset_case(item)
                if case is not None:
                    # The item id is position-based; -k still selects by the upstream id.
                    item.extra_keyword_matches.add(case.question.question_id)
                items.append(item)

    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        module = metafunc.definition.parent
        if not isinstance(module, DatasetModule):
            return
        from ..datasets import item_markers

        params = [pytest.param(DatasetCase(question), id=param_id(question),
                               marks=[getattr(pytest.mark, marker) for marker in item_markers(question)])
                  for question in module.tme_dataset.questions]
        metafunc.parametrize(CASE_ARGUMENT, params)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Note the dataset questions selected, and refuse a run without an adapter once, before
        any question runs (the main plugin's check counts corpus questions only)."""
        config = self.config
        if config.option.collectonly:
            return
        first: pytest.Item | None = None
        for item in session.items:
            case = _dataset_case(item)
            if case is not None:
                self.selected[case.question.dataset, case.question.question_id] = item.nodeid
                first = first or item
        if first is None or tme_session(config).agent_spec:
            return
        if uses_default_agent_fixture(session, first):
            raise pytest.UsageError(no_adapter_message(config))

    # --- results ----------------------------------------------------------------------------------

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item,
                                  call: pytest.CallInfo[None]) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        case = _dataset_case(item)
        if case is None:
            return report
        result = item.stash.get(DATASET_RESULT_KEY, None)
        if result is None and report.when == "setup" and report.failed:
            message = str(call.excinfo.value).splitlines()[0] if call.excinfo and str(call.excinfo.value) else "setup failed"
            result = error_result(case.question, f"setup failed: {message}")
            item.stash[DATASET_RESULT_KEY] = result
        # One report per question carries the result: the call report, or the failed setup report
        # when the question never ran. Plain data, so xdist ships it to the controller.
        if result is not None and (report.when == "call" or (report.when == "setup" and report.failed)):
            setattr(report, RESULT_ATTRIBUTE, result.to_dict())
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if self.is_worker:
            return
        from ..datasets import DatasetResult

        payload = getattr(report, RESULT_ATTRIBUTE, None)
        if payload is not None:
            result = DatasetResult.from_dict(payload)
            self.results[result.dataset, result.question_id] = result
            return
        failure = getattr(report, ADAPTER_FAILURE_ATTRIBUTE, None)
        if failure is not None:
            self.adapter_failure = self.adapter_failure or str(failure)
            return
        if str(report.when) == "???":  # xdist: the worker running this item died
            question = self.question_for_nodeid(report.nodeid)
            if question is not None and (question.dataset, question.question_id) not in self.results:
                node = getattr(report, "node", None)
                worker = str(getattr(getattr(node, "gateway", None), "id", None) or "a worker")
                self.results[question.dataset, question.question_id] = error_result(
                    question, f"the xdist worker {worker} running this question died; no answer was recorded")

    # --- end of session ---------------------------------------------------------------------------

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        config = self.config
        if self.is_worker or config.option.collectonly:
            return
        if exitstatus == pytest.ExitCode.USAGE_ERROR and not self.results:
            return  # refused before any question ran (e.g. no adapter): the error says it all
        self.finish()
        tme = tme_session(config)
        if not tme.enabled and self.adapter_failure is not None:
            tme.exit_status = 4  # as the main plugin does: applied after every other sessionfinish
        elif session.exitstatus == pytest.ExitCode.OK and (
                self.metrics_error is not None or self.threshold_failures or self.thresholds_not_evaluated):
            # threshold mode: no dataset item failed on its own, so a bound that failed (or could
            # not be evaluated) fails the run here
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def _shown(self) -> list[str]:
        """Datasets to report: every one named, except one whose questions were all deselected."""
        shown = []
        for name, loaded in self.datasets.items():
            picked = any(key[0] == name for key in self.selected) or any(key[0] == name for key in self.results)
            if picked or not loaded.questions:
                shown.append(name)
        return shown

    def ordered_results(self, name: str) -> list[DatasetResult]:
        """One dataset's results in file order (so figures never depend on xdist's arrival order)."""
        loaded = self.datasets[name]
        order = {q.question_id: index for index, q in enumerate(loaded.questions)}
        rows = [result for (dataset, _), result in self.results.items() if dataset == name]
        return sorted(rows, key=lambda r: (order.get(r.question_id, len(order)), r.question_id))

    def finish(self) -> None:
        from ..datasets import aggregate_results, write_metrics_file
        from ..datasets.items import dataset_item_id
        from ..datasets.thresholds import row_line, threshold_failures, threshold_line

        lines: list[str] = []
        shown = self._shown()
        for name in shown:
            loaded = self.datasets[name]
            spec = loaded.spec
            results = self.ordered_results(name)
            selected = sum(1 for key in self.selected if key[0] == name)
            sample = loaded.sample
            if sample is None or sample.size is None:
                drawn = f"all {len(loaded.questions)} loaded questions"
            else:
                drawn = f"{sample.size} of {sample.available} loaded questions, drawn with seed {sample.seed}"
            options = "".join(f"; {key} {value}" for key, value in sorted(loaded.options.items()))
            lines.append(f"{spec.title} (licence {spec.licence}; file sha256 {loaded.sha256}; {drawn}{options})")
            ran = (f"{len(results)} question(s) answered" if len(results) == selected or not selected
                   else f"{len(results)} of {selected} selected question(s) answered")
            # a dataset without an upstream token metric is scored by the typed reading in every mode
            scoring = self.scoring if spec.upstream_answer_metric is not None else "typed"
            lines.append(f"  {ran}; {self._scoring_line(spec)}")
            if spec.published_metric:
                lines.append(f"  published metric: {spec.published_metric}")
            if self.scoring_notice is not None and spec.upstream_answer_metric is not None:
                lines.append(f"  notice: {self.scoring_notice}")
            if results:
                lines += [f"  {line}" for line in aggregate_results(spec, results).lines(scoring)]
            missing = sorted(set(self.selected) - set(self.results))
            missing = [key for key in missing if key[0] == name]
            if missing and results:
                by_id = {q.question_id: q for q in loaded.questions}
                shown = ", ".join(dataset_item_id(by_id[key[1]]) for key in missing[:10] if key[1] in by_id)
                lines.append(f"  not answered ({len(missing)}): {shown}")
            lines += [f"  {row_line(row)}" for row in self._thresholds(name, results)]
            lines += [f"  load: {line}" for line in loaded.report.lines()]
            lines += [f"  caveat: {caveat}" for caveat in spec.caveats]
            if self.metrics_dir is not None:
                target = self.metrics_dir / f"{name}{METRICS_SUFFIX}"
                try:
                    self.metrics_dir.mkdir(parents=True, exist_ok=True)
                    write_metrics_file(target, loaded, results, scoring)
                except (OSError, ValueError) as error:
                    message = getattr(error, "strerror", None) or str(error)
                    self.metrics_error = f"the {spec.title} metrics file could not be written to {target}: {message}"
                    lines.append(f"  ERROR: {self.metrics_error}")
                else:
                    lines.append(f"  metrics: {target}")
        for name in self.datasets:
            if name not in shown:  # every question deselected: a bound naming it measured nothing
                self._thresholds(name, [])
        if self.fail_under:
            self.threshold_failures = threshold_failures(self.threshold_rows)
            lines.append(threshold_line(failures=self.threshold_failures,
                                        not_evaluated=self.thresholds_not_evaluated))
        tme = tme_session(self.config)
        if not tme.enabled:
            # The main plugin's summary is silent without corpora: say here what it would say.
            if self.adapter_failure is not None:
                lines.append(f"ERROR: {self.adapter_failure}")
            model = tme.model_description()
            if model is not None:
                from .finish import model_line

                lines.append(model_line(model))
        self.lines = lines
        self.finished = True

    def _thresholds(self, name: str, results: list[DatasetResult]) -> list[dict[str, Any]]:
        """The threshold rows of dataset ``name`` (none outside threshold mode), kept for the
        closing line. They are evaluated only when every selected question of the dataset has a
        result and none ended in error (a harness fault is not a memory result)."""
        from ..datasets.thresholds import threshold_rows

        if name not in self.threshold_datasets:
            return []
        unanswered = sum(1 for key in self.selected if key[0] == name and key not in self.results)
        errored = sum(1 for result in results if result.outcome == "error")
        causes = ([f"{errored} question(s) ended in error"] if errored else []) + (
            [f"{unanswered} selected question(s) not answered"] if unanswered else [])
        if causes:
            self.thresholds_not_evaluated.append(f"{name}: {' and '.join(causes)}")
        rows = threshold_rows(name, results, self.fail_under, self.bound_scopes,
                              self.datasets[name].spec.reported_apart, ran=bool(results), evaluated=not causes)
        self.threshold_rows += rows
        return rows

    def _scoring_line(self, spec: DatasetSpec) -> str:
        """What "correct" means in this run for ``spec``'s dataset."""
        typed = "correct means token F1 >= 0.5 (or a decline on an abstention probe)"
        if spec.upstream_answer_metric is None or self.scoring == "typed":
            return typed
        upstream = "upstream F1 is the dataset's own scorer (Porter-stemmed token F1; category 5 by its phrase rule)"
        if self.scoring == "upstream":
            return f"correct means upstream score >= 0.5; {upstream}"
        return f"{typed}; beside it, {upstream}"

    @pytest.hookimpl(trylast=True)  # after the TypedMemEval section, apart from it
    def pytest_terminal_summary(self, terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
        if self.is_worker or not self.finished or not self.lines:
            return
        terminalreporter.write_sep("=", SECTION_TITLE)
        for line in self.lines:
            terminalreporter.write_line(line)


class DatasetXdistHooks:
    """Registered on the xdist controller only, so xdist-only hooks never reach a plain run."""

    def __init__(self, plugin: DatasetPlugin) -> None:
        self.plugin = plugin
        self._selection_seen = False

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        """A dataset-only run with an ``llm-*`` agent: every worker shares the run's spend ledger
        (with corpora the main plugin passes it already)."""
        ledger = tme_session(self.plugin.config).ledger_path
        if ledger is not None and LEDGER_INPUT_KEY not in node.workerinput:
            node.workerinput[LEDGER_INPUT_KEY] = str(ledger)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        if self._selection_seen:
            return  # every worker collects the same items; the first list is the selection
        self._selection_seen = True
        if self.plugin.config.option.collectonly:
            return
        for nodeid in ids:
            question = self.plugin.question_for_nodeid(nodeid)
            if question is not None:
                self.plugin.selected[question.dataset, question.question_id] = nodeid

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """A dataset-only run: the model names the workers' servers reported (for the model line)."""
        tme = tme_session(self.plugin.config)
        if tme.enabled:
            return  # the main plugin's controller hooks read the payload
        payload = getattr(node, "workeroutput", {}).get(WORKER_PAYLOAD_KEY) or {}
        tme.served_models.update(str(name) for name in payload.get("served_models", []))
