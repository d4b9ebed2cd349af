"""pytest glue for TypedMemEval: options, markers, collection, fixtures, merging, summary.

Hooks here are thin: run state lives in :class:`~pytest_typedmemeval._session.TypedMemEvalSession`
on the config stash, and the work is done by modules that know nothing about pytest (corpus, run,
judge, report). Importing this module must stay cheap: no numpy, rank_bm25 or openai.
"""

from __future__ import annotations

import argparse
import difflib
import gc
import importlib
import inspect
import os
import shlex
import shutil
import tempfile
from collections.abc import Generator
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pytest

from . import hookspecs
from ._run_options import (
    DEFAULT_CONCURRENCY,
    DEFAULT_MAX_USD,
    LEDGER_INPUT_KEY,
    check_report_path,
    configure_models,
    is_worker,
    is_xdist_controller,
    judge_choice,
    parse_fail_under,
    parse_positive_int,
    parse_timeout,
    parse_usd,
)
from ._session import (
    ADAPTER_FAILURE_KEY,
    BASELINE_KEY,
    QUESTION_FUNCTION,
    RESULT_KEY,
    SESSION_KEY,
    QuestionCase,
    TypedMemEvalSession,
    error_result,
    error_result_for,
    marker_name,
    tme_session,
)
from .judge.choice import JUDGE_MODES
from .model_call import DEFAULT_TIMEOUT_SECONDS

if TYPE_CHECKING:
    from .corpus.identity import CorpusIdentity
    from .corpus.index import CorpusIndex

# Installed but not enabled, the plugin must cost an unrelated pytest start almost nothing (issue 13,
# P4): corpus models, pydantic, the report and the model-call layer are imported only once a run
# asks for TypedMemEval. tests/test_performance_invariants.py checks this in a fresh interpreter.


RESULT_ATTRIBUTE = "typedmemeval_result"
BASELINE_ATTRIBUTE = "typedmemeval_baseline"
ADAPTER_FAILURE_ATTRIBUTE = "typedmemeval_adapter_failure"
WORKER_PAYLOAD_KEY = "typedmemeval"
WORKER_PAYLOAD_VERSION = 1
SPOOL_INPUT_KEY = "typedmemeval_spool"
KNOWN_VERTICALS = ("prospective", "episodic", "arithmetic", "workingmemory", "forgetting", "semantic",
                   "temporal", "bitemporal", "conjunction", "procedural")
GATE_MARKERS = ("tme_gate_structure", "tme_gate_separability", "tme_gate_calibration", "tme_gate_leaks",
                "tme_gate_adversaries", "tme_gate_probes", "tme_gate_baseline")
NO_ADAPTER_MESSAGE = (
    "TypedMemEval needs a memory adapter to run questions: override the `typedmemeval_agent` fixture "
    "in the conftest.py at your rootdir, or pass --tme-agent module:factory (use --tme-agent "
    "reference for the built-in lexical baseline)."
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("typedmemeval", "TypedMemEval memory benchmark")
    group.addoption("--typedmemeval", action="store_true", default=None,
                    help="collect every question of every shipped TypedMemEval corpus")
    group.addoption("--tme-corpus", action="append", default=[], metavar="PATH",
                    help="collect the questions of this corpus file (repeatable); alone, only these")
    group.addoption("--tme-agent", default=None, metavar="MODULE:FACTORY",
                    help="adapter factory to call, or a built-in: 'reference' (lexical baseline, no "
                    "model), 'llm-full-context' (whole haystack in the prompt), 'llm-bm25' (BM25 top-5 "
                    "sessions), 'llm-no-memory' (no sessions); the llm-* agents need --tme-model. "
                    "Overrides the typedmemeval_agent fixture")
    group.addoption("--tme-timeout", type=parse_timeout, default=None, metavar="SECONDS",
                    help="per adapter call; a timeout gives outcome 'error' for that question "
                    "(default: no limit, and calls run on pytest's own thread exactly as your code "
                    "would call them; with a limit they run on helper threads)")
    group.addoption("--tme-report", default=None, metavar="PATH", help="write the JSON report here")
    group.addoption("--tme-html", default=None, metavar="PATH",
                    help="write a self-contained HTML report here (no network: inline styles and "
                         "charts); typedmemeval report RUN.json ... --html PATH bands several runs")
    group.addoption("--tme-baseline", action="store_true", default=False,
                    help="pass an item iff its outcome equals the syrupy snapshot (--snapshot-update "
                    "re-records)")
    group.addoption("--tme-fail-under", action="append", type=parse_fail_under, default=[],
                    metavar="[VERTICAL=]RATE",
                    help="threshold mode: items do not fail one by one; the session fails when a "
                    "vertical's correct rate is below RATE (repeatable, per vertical)")
    group.addoption("--tme-gates", action="store_true", default=False,
                    help="collect the certification gate items (also implied by -m naming a tme_gate_ marker)")
    group.addoption("--tme-require-probes", action="store_true", default=False,
                    help="a shape without probe records fails tme_gate_probes instead of skipping")
    group.addoption("--tme-judge", choices=JUDGE_MODES, default=None,
                    help="who grades answers: mechanical (default; rules, no network), llm (a model "
                    "over an OpenAI-compatible endpoint; the mechanical outcome is kept as a second "
                    "opinion) or hybrid (the model only where the mechanical judge is unjudged)")
    group.addoption("--tme-judge-model", default=None, metavar="NAME",
                    help="model name for --tme-judge llm/hybrid (the key comes from OPENAI_API_KEY only)")
    group.addoption("--tme-judge-base-url", default=None, metavar="URL",
                    help="OpenAI-compatible endpoint for the model judge (default: OPENAI_BASE_URL, "
                    "else the public OpenAI API)")
    group.addoption("--tme-judge-timeout", type=parse_timeout, default=None, metavar="SECONDS",
                    help=f"per request of the model judge; a timeout grades that answer 'error' "
                    f"(default {DEFAULT_TIMEOUT_SECONDS:g})")
    model = parser.getgroup("typedmemeval-model", "TypedMemEval reference LLM agents (--tme-agent llm-*)")
    model.addoption("--tme-model", default=None, metavar="NAME",
                    help="model the llm-* agents ask (required for them; ini typedmemeval_model); the "
                    "API key comes from OPENAI_API_KEY only, and a server on localhost needs none")
    model.addoption("--tme-base-url", default=None, metavar="URL",
                    help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8765/v1 for a local "
                    "llama.cpp server (default: OPENAI_BASE_URL, else the public OpenAI API; ini "
                    "typedmemeval_base_url)")
    model.addoption("--tme-max-usd", type=parse_usd, default=None, metavar="USD",
                    help="cost ceiling for the whole run, shared by every xdist worker: a call whose "
                    "worst-case cost would cross it is refused unsent (outcome 'error'); default "
                    f"{DEFAULT_MAX_USD:g} (ini typedmemeval_max_usd)")
    model.addoption("--tme-allow-unpriced", action="store_true", default=False,
                    help="run a model that has no price (its calls count as free, so the ceiling "
                    "cannot stop them); better: give it a price, zero included, with --tme-prices")
    model.addoption("--tme-prices", default=None, metavar="PATH",
                    help='JSON price table over the built-in one: {"NAME": {"input_per_million": 0.15, '
                    '"output_per_million": 0.6}} in USD per million tokens')
    model.addoption("--tme-cache-dir", default=None, metavar="DIR",
                    help="on-disk response cache (a rerun of the same requests makes no calls); "
                    "default $TYPEDMEMEVAL_CACHE_DIR, else ~/.cache/pytest-typedmemeval/model-calls")
    model.addoption("--tme-no-cache", action="store_true", default=False,
                    help="neither read nor write the response cache: every request goes to the server")
    model.addoption("--tme-concurrency", type=parse_positive_int, default=None, metavar="N",
                    help=f"requests in flight per process (default {DEFAULT_CONCURRENCY}); questions run "
                    "one at a time "
                    "per process, so -n N (pytest-xdist) is what runs several at once")
    model.addoption("--tme-model-timeout", type=parse_timeout, default=None, metavar="SECONDS",
                    help=f"per request attempt of the llm-* agents (default {DEFAULT_TIMEOUT_SECONDS:g}); "
                    "a timeout is retried a few times, then the question is 'error'")
    parser.addini("typedmemeval", "collect the shipped TypedMemEval corpora", type="bool", default=False)
    parser.addini("typedmemeval_corpus", "corpus files to collect", type="paths", default=[])
    parser.addini("typedmemeval_agent", "adapter factory as module:factory", default="")
    parser.addini("typedmemeval_timeout", "per adapter call timeout in seconds", default="")
    parser.addini("typedmemeval_report", "path of the JSON report", default="")
    parser.addini("typedmemeval_judge", "judge mode: mechanical, llm or hybrid", default="")
    parser.addini("typedmemeval_judge_model", "model name for the llm/hybrid judge", default="")
    parser.addini("typedmemeval_judge_base_url", "OpenAI-compatible endpoint for the model judge", default="")
    parser.addini("typedmemeval_model", "model the llm-* reference agents ask", default="")
    parser.addini("typedmemeval_base_url", "OpenAI-compatible endpoint of the llm-* reference agents",
                  default="")
    parser.addini("typedmemeval_max_usd", "cost ceiling in USD for the llm-* reference agents", default="")
    from . import _dataset_plugin, _scenario_plugin

    _scenario_plugin.add_options(parser)
    _dataset_plugin.add_options(parser)


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hookspecs)


def _load_corpora(config: pytest.Config, session: TypedMemEvalSession) -> list[CorpusIndex]:
    use_shipped = config.getoption("typedmemeval") or config.getini("typedmemeval")
    paths = [Path(config.invocation_params.dir, p) for p in config.getoption("tme_corpus")]
    paths += [Path(p) for p in config.getini("typedmemeval_corpus")]
    if not use_shipped and not paths:
        return []  # not enabled: import nothing (no corpus models, no pydantic)
    from .corpus.identity import CorpusError
    from .corpus.index import index_corpus
    from .corpus.registry import shipped_corpus_paths

    # Validating builds and drops hundreds of thousands of short-lived objects (each record's
    # turns; only a small head per question is kept): the collector is paused meanwhile, since
    # each collection would walk everything allocated so far, and what is kept is then frozen
    # out of its sight (see TypedMemEvalSession.freeze_gc).
    enabled = gc.isenabled()
    gc.disable()
    try:
        # pytest's cache keeps each corpus's validated index (absent under -p no:cacheprovider);
        # only the process that aggregates writes it, workers read what it wrote.
        cache = getattr(config, "cache", None)
        store = not is_worker(config)
        paths = [*(shipped_corpus_paths() if use_shipped else ()), *paths]
        corpora = [index_corpus(path, cache, store=store) for path in paths]
    except CorpusError as error:
        raise pytest.UsageError(f"TypedMemEval corpus error: {error}") from None
    finally:
        session.freeze_gc()
        if enabled:
            gc.enable()
    seen: dict[str, Path] = {}
    for corpus in corpora:
        if corpus.corpus_id in seen and seen[corpus.corpus_id] != corpus.path:
            raise pytest.UsageError(f"TypedMemEval: two corpora share the id {corpus.corpus_id!r} "
                                    f"({seen[corpus.corpus_id]} and {corpus.path}); rename one file")
        seen[corpus.corpus_id] = corpus.path
    unique = {corpus.corpus_id: corpus for corpus in corpora}
    return [unique[key] for key in sorted(unique)]


def _wants_gates(config: pytest.Config) -> bool:
    return bool(config.getoption("tme_gates")) or "tme_gate" in (config.getoption("markexpr") or "")


def pytest_configure(config: pytest.Config) -> None:
    from . import _dataset_plugin, _scenario_plugin

    _scenario_plugin.register_if_wanted(config)
    _dataset_plugin.register_if_wanted(config)
    config.addinivalue_line("markers", "typedmemeval: a TypedMemEval corpus question or gate")
    config.addinivalue_line("markers", "pair: one arm of a TypedMemEval question pair")
    for gate in GATE_MARKERS:
        config.addinivalue_line("markers", f"{gate}: TypedMemEval certification gate ({gate[9:]})")
    labels = set(KNOWN_VERTICALS)
    session = TypedMemEvalSession(config=config)
    config.stash[SESSION_KEY] = session
    session.corpora = _load_corpora(config, session)
    if config.getoption("tme_corpus") and not is_worker(config):
        _check_rootdir_not_moved_by_corpus_paths(config)
    for corpus in session.corpora:
        for head in corpus.heads:
            labels.update((head.vertical, head.shape))
    for label in sorted({marker_name(label) for label in labels}):
        config.addinivalue_line("markers", f"{label}: TypedMemEval vertical or shape {label}")
    if not session.enabled:
        return
    ini_timeout = config.getini("typedmemeval_timeout")
    try:
        session.timeout = config.getoption("tme_timeout") or (parse_timeout(ini_timeout) if ini_timeout else None)
    except argparse.ArgumentTypeError as error:
        raise pytest.UsageError(f"TypedMemEval: ini typedmemeval_timeout {error}") from None
    session.agent_spec = config.getoption("tme_agent") or config.getini("typedmemeval_agent") or None
    report = config.getoption("tme_report") or config.getini("typedmemeval_report")
    session.report_path = Path(config.invocation_params.dir, report) if report else None
    html = config.getoption("tme_html")
    session.html_path = Path(config.invocation_params.dir, html) if html else None
    session.baseline = bool(config.getoption("tme_baseline"))
    session.fail_under = dict(config.getoption("tme_fail_under"))
    session.require_probes = bool(config.getoption("tme_require_probes"))
    session.collect_gates = _wants_gates(config)
    session.judge_choice = judge_choice(config)
    updating_snapshots = bool(getattr(config.option, "update_snapshots", False))
    if updating_snapshots:
        # A corpus's questions never leave its snapshot file (new bytes get a new corpus id), so
        # syrupy's clean-up can only do harm here: under -m/--lf, or without --tme-baseline, it
        # deletes the recorded outcomes of every question that did not assert this run.
        config.option.no_cleanup = True
    if session.baseline and not config.pluginmanager.hasplugin("syrupy"):
        raise pytest.UsageError("--tme-baseline stores outcomes as syrupy snapshots; syrupy is disabled "
                                "(-p no:syrupy) or not installed")
    if session.baseline and session.threshold_mode:
        raise pytest.UsageError("--tme-baseline and --tme-fail-under are exclusive: exact baselines are for "
                                "deterministic systems, thresholds for systems that flap")
    _check_fail_under_names(session)
    if session.agent_spec:
        from .agent import AgentSpecError, is_llm_agent_alias, load_agent_factory

        if not is_llm_agent_alias(session.agent_spec):
            try:
                load_agent_factory(session.agent_spec)
            except AgentSpecError as error:
                raise pytest.UsageError(str(error)) from None
    configure_models(config, session)
    if is_worker(config):
        spool = config.workerinput.get(SPOOL_INPUT_KEY)  # type: ignore[attr-defined]
        if spool:
            session.spool_dir = Path(spool)
            session.open_spool(str(config.workerinput.get("workerid", "worker")))  # type: ignore[attr-defined]
        return
    if session.report_path is not None:
        check_report_path(session.report_path, report)
    if session.html_path is not None:
        check_report_path(session.html_path, html, flag="--tme-html", example="typedmemeval-report.html")
    if session.baseline and not updating_snapshots:
        _check_snapshot_files(config, session)
    config.pluginmanager.register(ResultCollector(session), "typedmemeval-results")
    if is_xdist_controller(config):
        session.spool_dir = Path(tempfile.mkdtemp(prefix="typedmemeval-spool-"))
        config.pluginmanager.register(XdistControllerHooks(session), "typedmemeval-xdist")
        if not session.agent_spec and not config.option.collectonly and not _only_gates(config):
            if not _conftest_defines_agent(config):
                # The controller collects nothing under xdist, so it checks what it can see: the
                # rootdir conftest, which is the only place an override reaches our items from.
                raise pytest.UsageError(NO_ADAPTER_MESSAGE)


def _check_fail_under_names(session: TypedMemEvalSession) -> None:
    """A bound on a name no collected question carries would bound nothing: refuse it now."""
    verticals = sorted({marker_name(h.vertical) for c in session.corpora for h in c.heads})
    shapes = sorted({marker_name(h.shape) for c in session.corpora for h in c.heads} - set(verticals))
    for name, bound in session.fail_under.items():
        if name == "*" or name in verticals or name in shapes:
            continue
        close = difflib.get_close_matches(name, verticals + shapes, n=1)
        hint = f"did you mean {close[0]}? " if close else ""
        raise pytest.UsageError(
            f"--tme-fail-under {name}={bound:g}: no collected question has the vertical or shape "
            f"{name!r}, so this bound would bound nothing; {hint}verticals: {', '.join(verticals)}; "
            f"shapes: {', '.join(shapes)}")


def _check_rootdir_not_moved_by_corpus_paths(config: pytest.Config) -> None:
    """pytest picks its rootdir and ini file before any plugin loads, so in ``--tme-corpus PATH``
    (space form) it takes PATH for a test path: a corpus outside the project then moves the rootdir
    (the conftest adapter is not found, snapshots land elsewhere). Say so, with the fix."""
    from _pytest.config.findpaths import determine_setup

    try:
        args = shlex.split(os.environ.get("PYTEST_ADDOPTS", "")) + list(config.invocation_params.args)
        namespace = config._parser.parse_known_args(args)
        extra = ({"override_ini": namespace.override_ini}
                 if "override_ini" in inspect.signature(determine_setup).parameters else {})
        expected = determine_setup(
            inifile=namespace.inifilename, args=namespace.file_or_dir,
            rootdir_cmd_arg=namespace.rootdir or None, invocation_dir=config.invocation_params.dir,
            **extra)
    except Exception:  # noqa: BLE001 - a check that cannot run must not break a run
        return
    if expected[0] == config.rootpath and expected[1] == config.inipath:
        return
    spaced = [value for value in config.getoption("tme_corpus") if f"--tme-corpus={value}" not in args]
    shown = spaced[0] if spaced else config.getoption("tme_corpus")[0]
    raise pytest.UsageError(
        f"--tme-corpus {shown}: pytest read this path as a test path before the plugin loaded and "
        f"moved its rootdir to {config.rootpath} (expected {expected[0]}); write --tme-corpus={shown} "
        f"(with '='), or pass --rootdir={expected[0]}")


def _check_snapshot_files(config: pytest.Config, session: TypedMemEvalSession) -> None:
    """A truncated or corrupt baseline file stops the run before any question, naming the file."""
    from .snapshot_file import SnapshotFileError, read_snapshot_file

    for corpus in session.corpora:
        path = snapshot_path(config, corpus)
        if path.is_file():
            try:
                read_snapshot_file(path)
            except SnapshotFileError as error:
                raise pytest.UsageError(f"TypedMemEval {error}") from None


def snapshot_path(config: pytest.Config, corpus: CorpusIdentity) -> Path:
    return config.rootpath / "typedmemeval" / "__snapshots__" / f"{corpus.corpus_id}.ambr"


def _only_gates(config: pytest.Config) -> bool:
    expression = config.getoption("markexpr") or ""
    return "tme_gate" in expression and " or " not in expression and "not " not in expression


def _conftest_defines_agent(config: pytest.Config) -> bool:
    own = config.pluginmanager.get_plugin("typedmemeval")
    for plugin in config.pluginmanager.get_plugins():
        if plugin is own or not isinstance(plugin, ModuleType):
            continue
        if getattr(plugin, "typedmemeval_agent", None) is not None:
            return True
    return False


def pytest_unconfigure(config: pytest.Config) -> None:
    session = config.stash.get(SESSION_KEY, None)
    if session is not None:
        session.close()  # the collector is thawed later, by the clean-up freeze_gc registered
        if session.spool_dir is not None and not is_worker(config):
            shutil.rmtree(session.spool_dir, ignore_errors=True)
        if session.ledger_dir is not None and not is_worker(config):
            shutil.rmtree(session.ledger_dir, ignore_errors=True)


class QuestionModule(pytest.Module):
    """One corpus as a collector. Its path is ``<rootdir>/typedmemeval/<corpus id>`` (not a real
    file), which gives readable node ids, lets ``--lf`` find the items again, and puts baseline
    snapshots in ``<rootdir>/typedmemeval/__snapshots__/<corpus id>.ambr``."""

    tme_corpus: CorpusIndex
    items_module = "pytest_typedmemeval._question_items"
    function_name = QUESTION_FUNCTION

    def _getobj(self) -> ModuleType:
        return importlib.import_module(self.items_module)

    def istestfunction(self, obj: object, name: str) -> bool:
        return name == self.function_name

    def istestclass(self, obj: object, name: str) -> bool:
        return False


class GateModule(QuestionModule):
    items_module = "pytest_typedmemeval._gate_items"
    function_name = "gate"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    tme = tme_session(config)
    for corpus in tme.corpora:
        module = QuestionModule.from_parent(session, path=config.rootpath / "typedmemeval" / corpus.corpus_id)
        module.tme_corpus = corpus
        for item in session.genitems(module):
            if isinstance(item, pytest.Item):
                case = _question_case(item)
                if case is not None:
                    # The item id carries no label; -k still selects by the full question id.
                    item.extra_keyword_matches.add(case.head.question_id)
                items.append(item)
    if tme.collect_gates:
        for corpus in tme.corpora:
            path = config.rootpath / "typedmemeval" / "gates" / corpus.corpus_id
            module = GateModule.from_parent(session, path=path)
            module.tme_corpus = corpus
            items.extend(item for item in session.genitems(module) if isinstance(item, pytest.Item))


def _question_case(item: pytest.Item) -> QuestionCase | None:
    callspec = getattr(item, "callspec", None)
    case = callspec.params.get("tme_case") if callspec is not None else None
    return case if isinstance(case, QuestionCase) else None


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """Note the questions this run set out to measure, and refuse a run without an adapter once,
    before any question runs (not 500 failures)."""
    config = session.config
    tme = tme_session(config)
    if not tme.enabled or config.option.collectonly:
        return
    tme.freeze_gc()  # the collected items live until the session ends, like the corpora
    for item in session.items:
        case = _question_case(item)
        if case is not None:
            tme.selected[case.corpus.corpus_id, case.head.question_id] = item.nodeid
    if tme.agent_spec or not tme.selected:
        return
    for item in session.items:
        if _question_case(item) is not None:
            manager = getattr(session, "_fixturemanager", None)
            fixturedefs = manager.getfixturedefs("typedmemeval_agent", item) if manager is not None else None
            if fixturedefs and fixturedefs[-1].func is _default_agent_function():
                raise pytest.UsageError(NO_ADAPTER_MESSAGE)
            return


def _default_agent_function() -> Any:
    return getattr(typedmemeval_agent, "_get_wrapped_function", lambda: typedmemeval_agent)()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    module = metafunc.definition.parent
    if not isinstance(module, QuestionModule):
        return
    corpus = module.tme_corpus
    if isinstance(module, GateModule):
        from ._gate_items import gate_params

        metafunc.parametrize("tme_gate", gate_params(corpus, marker_name))
        return
    ids = tme_session(metafunc.config).item_ids(corpus)
    params = []
    for head in corpus.heads:
        marks = [pytest.mark.typedmemeval, getattr(pytest.mark, marker_name(head.vertical)),
                 getattr(pytest.mark, marker_name(head.shape))]
        if head.pair_id:
            marks.append(pytest.mark.pair)
        params.append(pytest.param(QuestionCase(corpus, head), id=ids[head.question_id], marks=marks))
    metafunc.parametrize("tme_case", params)


@pytest.fixture(scope="session")
def typedmemeval_agent(request: pytest.FixtureRequest) -> Any:
    """The memory system under test. Override this fixture in your rootdir ``conftest.py``, or pass
    ``--tme-agent module:factory``. It is reset before every question."""
    from .agent import is_llm_agent_alias, load_agent_factory

    session = tme_session(request.config)
    spec = session.agent_spec
    if not spec:
        raise pytest.UsageError(NO_ADAPTER_MESSAGE)
    if is_llm_agent_alias(spec):
        return session.llm_agent()
    return load_agent_factory(spec)()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    tme = tme_session(item.config)
    result = item.stash.get(RESULT_KEY, None)
    case = _question_case(item)
    if result is None and case is not None and report.when == "setup" and report.failed:
        message = str(call.excinfo.value).splitlines()[0] if call.excinfo else "setup failed"
        result = error_result(case, tme.judge(), f"setup failed: {message}")
        item.stash[RESULT_KEY] = result
    # One report per question carries the result: the call report, or the failed setup report
    # when the question never ran. The attribute is plain data, so xdist ships it to the controller.
    if result is not None and (report.when == "call" or (report.when == "setup" and report.failed)):
        payload = result.model_dump(mode="json")
        setattr(report, RESULT_ATTRIBUTE, payload)
        tme.produced_keys.add(result.key)
        baseline = item.stash.get(BASELINE_KEY, None)
        if baseline is not None:
            setattr(report, BASELINE_ATTRIBUTE, baseline)
        # Also to the worker's spool, before the report leaves: if the controller is interrupted
        # before it reads this report, the result is still there to be merged.
        tme.spool({"result": payload, "baseline": baseline})
        # The item lives until the session ends; its result now travels with the report, so the
        # item need not hold it too (memory flat in corpus size, issue 13).
        del item.stash[RESULT_KEY]
    failure = item.stash.get(ADAPTER_FAILURE_KEY, None)
    if failure is not None and report.when == "call":
        setattr(report, ADAPTER_FAILURE_ATTRIBUTE, failure)
    return report


class ResultCollector:
    """Receives every question's report in the process that aggregates (controller or only one).

    A registered object rather than a module-level hook because ``pytest_runtest_logreport`` is not
    given the config, and run state must not live in module globals.
    """

    def __init__(self, session: TypedMemEvalSession) -> None:
        self.session = session

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        payload = getattr(report, RESULT_ATTRIBUTE, None)
        if payload is not None:
            from .results import QuestionResult

            self.session.add_result(QuestionResult.model_validate(payload))
            # pytest keeps every report until the session ends (the terminal's statistics); the
            # result is held once, in the session, not a second time as the report's payload.
            delattr(report, RESULT_ATTRIBUTE)
            baseline = getattr(report, BASELINE_ATTRIBUTE, None)
            if baseline is not None:
                self.session.baseline_changes.append(baseline)
            return
        failure = getattr(report, ADAPTER_FAILURE_ATTRIBUTE, None)
        if failure is not None:
            self.session.adapter_failure = self.session.adapter_failure or failure
            return
        if str(report.when) == "???":
            self._worker_crashed(report)
            return
        if report.skipped and report.when in ("setup", "call"):
            found = self.session.case_for_nodeid(report.nodeid)
            if found is not None:
                reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
                self.session.not_run_causes[found[0].corpus_id, found[1].question_id] = (
                    f"skipped: {str(reason).removeprefix('Skipped: ')}")

    def _worker_crashed(self, report: pytest.TestReport) -> None:
        """xdist reports the item a dying worker was running: record it as an ``error`` result
        naming the worker, so the question is neither lost nor silently dropped from n."""
        found = self.session.case_for_nodeid(report.nodeid)
        node = getattr(report, "node", None)
        worker = str(getattr(getattr(node, "gateway", None), "id", None) or "a worker")
        question = None
        if found is not None:
            corpus, head = found
            judge = self.session.judge()
            result = error_result_for(
                corpus, head, judge.name, judge.fingerprint,
                f"the xdist worker {worker} running this question died (a crash, os._exit or a signal "
                "in the adapter?); no answer was recorded")
            self.session.add_result(result)
            question = f"{corpus.corpus_id}/{head.question_id}"
        for lost in self.session.workers_lost:
            if lost["worker"] == worker and lost["question"] is None:
                lost["question"] = question  # pytest_testnodedown came first and could not name it
                return
        self.session.workers_lost.append({"worker": worker, "question": question})

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        message = str(excinfo.value).strip()
        if excinfo.type is KeyboardInterrupt or not message:
            message = "KeyboardInterrupt (Ctrl-C or SIGINT)"
        self.session.stop_reason = self.session.stop_reason or message


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    tme = tme_session(config)
    if is_worker(config):
        config.workeroutput[WORKER_PAYLOAD_KEY] = {  # type: ignore[attr-defined]
            "version": WORKER_PAYLOAD_VERSION,
            "result_keys": sorted(f"{c}::{q}" for c, q in tme.produced_keys),
            "served_models": sorted(tme.all_served_models()),
        }
        return
    if not tme.enabled or config.option.collectonly:
        return
    from ._finish import finish_session

    stopped = session.shouldfail or session.shouldstop
    if stopped and tme.stop_reason is None:
        tme.stop_reason = str(stopped)
    tme.exit_status = finish_session(tme, int(session.exitstatus))


@pytest.hookimpl(wrapper=True, tryfirst=True, specname="pytest_sessionfinish")
def pytest_sessionfinish_status(session: pytest.Session) -> Generator[None, None, None]:
    """Apply the exit status the report decided, after every other plugin's sessionfinish (syrupy
    ORs its bits into the status: a usage error 4 must not become 5 or 6)."""
    yield
    tme = session.config.stash.get(SESSION_KEY, None)
    if tme is None or tme.exit_status is None:
        return
    if tme.exit_status == 4 or session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = tme.exit_status


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    if is_worker(config):
        return
    tme = config.stash.get(SESSION_KEY, None)
    if tme is None or not tme.reported:
        return
    from ._finish import summary_lines
    from .corpus.registry import shipped_sha256s

    terminalreporter.write_sep("=", "TypedMemEval")
    for line in summary_lines(tme, shipped_sha256s()):
        terminalreporter.write_line(line)


class XdistControllerHooks:
    """Registered on the xdist controller only, so xdist-only hooks never reach a plain run."""

    def __init__(self, session: TypedMemEvalSession) -> None:
        self.session = session

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        if self.session.spool_dir is not None:
            node.workerinput[SPOOL_INPUT_KEY] = str(self.session.spool_dir)
        if self.session.ledger_path is not None:
            node.workerinput[LEDGER_INPUT_KEY] = str(self.session.ledger_path)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        if self.session.selected:
            return  # every worker collects the same items; the first list is the selection
        for nodeid in ids:
            found = self.session.case_for_nodeid(nodeid)
            if found is not None:
                self.session.selected[found[0].corpus_id, found[1].question_id] = nodeid

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        payload = getattr(node, "workeroutput", {}).get(WORKER_PAYLOAD_KEY)
        if payload is None or payload.get("version") != WORKER_PAYLOAD_VERSION:
            # A crashed worker sends nothing: say so instead of treating it as "no results".
            worker = str(getattr(node, "gateway", node).id if hasattr(node, "gateway") else node)
            self.session.workers_without_payload.append(worker)
            if error is not None and not any(lost["worker"] == worker for lost in self.session.workers_lost):
                self.session.workers_lost.append({"worker": worker, "question": None})
            return
        self.session.served_models.update(str(name) for name in payload.get("served_models", []))
        for key in payload["result_keys"]:
            corpus_id, _, question_id = key.partition("::")
            self.session.expected_from_workers.add((corpus_id, question_id))
