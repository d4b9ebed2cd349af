"""Session start: the run's options read into the session state and checked, once, before any item
is collected.

:func:`configure_session` (from ``pytest_configure``) loads the corpora and reads the corpus run's
options; the rest are the checks the scenario and dataset items share with it — report paths, the
judge, the model-call guard and the ``llm-*`` model settings — so each option means one thing and
is refused with one message wherever it is read. A problem is one ``pytest.UsageError`` here,
never an error per question. The declarations of the options are :mod:`.options`.
"""

from __future__ import annotations

import argparse
import gc
import inspect
import os
import shlex
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..calls.endpoint import DEFAULT_TIMEOUT_SECONDS
from ..judge.choice import JudgeChoice, JudgeChoiceError
from .adapter_fixture import conftest_defines_agent, no_adapter_message
from .gate_items import GATE_MARKERS
from .options import (
    DEFAULT_CONCURRENCY,
    DEFAULT_MAX_USD,
    SHIPPED_SCENARIOS,
    parse_positive_int,
    parse_timeout,
    parse_usd,
)
from .question_items import GATES_ONLY_NOTE, ResultCollector, snapshot_path
from .session import SESSION_KEY, TypedMemEvalSession, marker_name
from .xdist_roles import (
    INDEX_INPUT_KEY,
    LEDGER_INPUT_KEY,
    SPOOL_INPUT_KEY,
    XdistControllerHooks,
    is_worker,
    is_xdist_controller,
)

if TYPE_CHECKING:
    from ..calls import ModelSettings
    from ..corpus.index import CorpusIndex

KNOWN_VERTICALS = ("prospective", "episodic", "arithmetic", "workingmemory", "forgetting", "semantic",
                   "temporal", "bitemporal", "conjunction", "procedural")


def configure_session(config: pytest.Config) -> TypedMemEvalSession:
    """The process's :class:`.session.TypedMemEvalSession`, on the config stash: the markers, the
    corpora loaded (and validated), the run's options read and checked — each problem one usage
    error now — and, where the run aggregates, the collector of results and the xdist controller's
    hooks registered. Called from ``pytest_configure``."""
    config.addinivalue_line("markers", "typedmemeval: a TypedMemEval corpus question or gate")
    config.addinivalue_line("markers", "pair: one arm of a TypedMemEval question pair")
    for gate in GATE_MARKERS:
        config.addinivalue_line("markers", f"{gate}: TypedMemEval certification gate ({gate[9:]})")
    labels = set(KNOWN_VERTICALS)
    session = TypedMemEvalSession(config=config)
    config.stash[SESSION_KEY] = session
    session.shard = config.getoption("tme_shard", None)
    moved = None if is_worker(config) else _rootdir_moved_by_path_options(config)
    if moved is None:
        _remove_earlier_reports(config)  # never for a run that is about to be refused
    session.corpora = _load_corpora(config, session)  # a corpus error is named first, as before
    if moved is not None:
        raise pytest.UsageError(moved)
    for corpus in session.corpora:
        for head in corpus.heads:
            labels.update((head.vertical, head.shape))
    for label in sorted({marker_name(label) for label in labels}):
        config.addinivalue_line("markers", f"{label}: TypedMemEval vertical or shape {label}")
    if not session.enabled:
        return session
    ini_timeout = config.getini("typedmemeval_timeout")
    try:
        session.timeout = config.getoption("tme_timeout") or (parse_timeout(ini_timeout) if ini_timeout else None)
    except argparse.ArgumentTypeError as error:
        raise pytest.UsageError(f"TypedMemEval: ini typedmemeval_timeout {error}") from None
    ini_parallel = str(config.getini("typedmemeval_parallel") or "").strip()
    try:
        session.parallel = config.getoption("tme_parallel") or (
            parse_positive_int(ini_parallel) if ini_parallel else 1)
    except argparse.ArgumentTypeError as error:
        raise pytest.UsageError(f"TypedMemEval: ini typedmemeval_parallel {error}") from None
    session.agent_spec = config.getoption("tme_agent") or config.getini("typedmemeval_agent") or None
    session.agent_from_command_line = bool(config.getoption("tme_agent"))
    report = config.getoption("tme_report") or config.getini("typedmemeval_report")
    session.report_path = Path(config.invocation_params.dir, report) if report else None
    html = config.getoption("tme_html")
    session.html_path = Path(config.invocation_params.dir, html) if html else None
    session.baseline = bool(config.getoption("tme_baseline"))
    session.fail_under = _corpus_bounds(config)
    session.require_probes = bool(config.getoption("tme_require_probes"))
    session.collect_gates = _wants_gates(config)
    session.judge_choice = judge_choice(config)
    updating_snapshots = bool(getattr(config.option, "update_snapshots", False))
    if updating_snapshots and session.baseline:
        # A corpus's questions never leave its snapshot file (new bytes get a new corpus id), so
        # syrupy's clean-up can only do harm here: under -m or -k it deletes the recorded outcomes
        # of every question that did not assert this run. Outside baseline mode syrupy never reaches
        # the baselines (they live in __baseline__/, see .baseline_extension), so the user's own
        # snapshots keep syrupy's clean-up.
        config.option.no_cleanup = True
    if session.baseline and session.shard is not None:
        # syrupy matches unused snapshots to the items that ran by test name without parameters,
        # so a shard, which runs part of every corpus, would find the other shards' recorded
        # outcomes "unused" and fail. Each shard checks its own questions exactly (a baseline
        # entry is one question's); unused entries are only warned about here.
        config.option.warn_unused_snapshots = True
    if session.baseline and not config.pluginmanager.hasplugin("syrupy"):
        raise pytest.UsageError("--tme-baseline stores outcomes as syrupy snapshots; syrupy is disabled "
                                "(-p no:syrupy) or not installed")
    if session.baseline and session.threshold_mode:
        raise pytest.UsageError("--tme-baseline and --tme-fail-under are exclusive: exact baselines are for "
                                "deterministic systems, thresholds for systems that flap")
    _check_fail_under_names(session)
    if session.agent_spec:
        from ..adapter.factories import AgentSpecError, is_llm_agent_alias, load_agent_factory

        if not is_llm_agent_alias(session.agent_spec):
            try:
                load_agent_factory(session.agent_spec, factory_search_dirs(config))
            except AgentSpecError as error:
                raise pytest.UsageError(str(error)) from None
    configure_models(config, session)
    if is_worker(config):
        spool = config.workerinput.get(SPOOL_INPUT_KEY)  # type: ignore[attr-defined]
        if spool:
            session.spool_dir = Path(spool)
            session.open_spool(str(config.workerinput.get("workerid", "worker")))  # type: ignore[attr-defined]
        return session
    if session.report_path is not None:
        check_report_path(session.report_path, report)
    if session.html_path is not None:
        check_report_path(session.html_path, html, flag="--tme-html", example="typedmemeval-report.html")
    _check_legacy_snapshot_files(config, session)
    if session.baseline and not updating_snapshots:
        _check_snapshot_files(config, session)
    config.pluginmanager.register(ResultCollector(session), "typedmemeval-results")
    if is_xdist_controller(config):
        session.spool_dir = Path(tempfile.mkdtemp(prefix="typedmemeval-spool-"))
        config.pluginmanager.register(XdistControllerHooks(session), "typedmemeval-xdist")
        if not session.agent_spec and not config.option.collectonly and not _only_gates(config):
            if not conftest_defines_agent(config):
                # The controller collects nothing under xdist, so it checks what it can see: the
                # rootdir conftest, which is the only place an override reaches our items from.
                # With --tme-gates the workers deselect the questions instead (question_items).
                if not session.collect_gates:
                    raise pytest.UsageError(no_adapter_message(config))
                session.notes.append(GATES_ONLY_NOTE.format(
                    count=sum(len(corpus.heads) for corpus in session.corpora)))
    return session


def _remove_earlier_reports(config: pytest.Config) -> None:
    """An earlier run's JSON or HTML report must never pass for this run's (issue 22, item 7: Ctrl-C
    before the first answer left it in place). It goes first, before the corpora load (the longest
    step before any answer), and this run writes its own; a collect-only or refused-by-pytest run
    never reaches here with a corpus run to replace it, so nothing else is touched."""
    if is_worker(config) or config.option.collectonly:
        return
    if not (config.getoption("typedmemeval") or config.getini("typedmemeval") or config.getoption("tme_corpus")
            or config.getini("typedmemeval_corpus")):
        return
    for given in (config.getoption("tme_report") or config.getini("typedmemeval_report"),
                  config.getoption("tme_html")):
        path = Path(config.invocation_params.dir, given) if given else None
        if path is not None and path.is_file():
            path.unlink()


def _load_corpora(config: pytest.Config, session: TypedMemEvalSession) -> list[CorpusIndex]:
    use_shipped = config.getoption("typedmemeval") or config.getini("typedmemeval")
    paths = [Path(config.invocation_params.dir, p) for p in config.getoption("tme_corpus")]
    paths += [Path(p) for p in config.getini("typedmemeval_corpus")]
    if not use_shipped and not paths:
        return []  # not enabled: import nothing (no corpus models, no pydantic)
    from ..corpus.identity import CorpusError
    from ..corpus.index import index_corpus
    from ..corpus.registry import shipped_corpus_paths

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
        handed = getattr(config, "workerinput", {}).get(INDEX_INPUT_KEY)
        if isinstance(handed, dict):
            # What the controller validated: a worker of a first run validates nothing again.
            from ..corpus.index import HandedIndexes

            cache = HandedIndexes(handed, cache)
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


DATASET_BOUND_NAMES = pytest.StashKey[Callable[[], frozenset[str]]]()
"""Set by the dataset plugin (:mod:`.dataset_items`) when it loads: the ``--tme-fail-under`` names
its datasets claim. A stash key here rather than an import of that module, so configuration and
the dataset items never import each other."""


def dataset_bound_names(config: pytest.Config) -> frozenset[str]:
    """The ``--tme-fail-under`` names the named datasets claim (``locomo``, ``locomo_multi_hop``,
    ...; never ``*``, which bounds corpora and datasets alike): the corpus configuration leaves
    them out of its own bounds, so they neither bound a corpus nor are refused as unknown there."""
    names = config.stash.get(DATASET_BOUND_NAMES, None)
    return names() if names is not None else frozenset()


def _wants_gates(config: pytest.Config) -> bool:
    return bool(config.getoption("tme_gates")) or "tme_gate" in (config.getoption("markexpr") or "")


def _corpus_bounds(config: pytest.Config) -> dict[str, float]:
    """``--tme-fail-under`` without the names a public dataset claims (``locomo``,
    ``locomo_multi_hop``, ...): those bound the dataset's items (:mod:`.dataset_items`), never a
    corpus, so they neither put the corpus questions in threshold mode nor reach its report."""
    claimed = dataset_bound_names(config)
    return {name: bound for name, bound in config.getoption("tme_fail_under") if name not in claimed}


def _check_fail_under_names(session: TypedMemEvalSession) -> None:
    """A bound on a name no collected question carries would bound nothing: refuse it now."""
    from ..report.thresholds import unknown_bound_name

    verticals = {marker_name(h.vertical) for c in session.corpora for h in c.heads}
    shapes = {marker_name(h.shape) for c in session.corpora for h in c.heads}
    refusal = unknown_bound_name(session.fail_under, verticals, shapes,
                                 datasets=dataset_bound_names(session.config))
    if refusal is not None:
        raise pytest.UsageError(refusal)


PATH_OPTIONS = {"tme_corpus": "--tme-corpus", "tme_report": "--tme-report", "tme_html": "--tme-html",
                "tme_cache_dir": "--tme-cache-dir", "tme_prices": "--tme-prices",
                "tme_scenarios": "--tme-scenarios", "tme_scenario_report": "--tme-scenario-report",
                "tme_scenario_live": "--tme-scenario-live", "tme_dataset_metrics": "--tme-dataset-metrics"}
"""Every option whose value is a path (dest -> flag): the ones pytest can mistake for a test path."""


def _path_option_values(config: pytest.Config) -> list[tuple[str, str]]:
    """(flag, value) of every path option given, in option order."""
    given: list[tuple[str, str]] = []
    for dest, flag in PATH_OPTIONS.items():
        value = config.getoption(dest, None)
        values = value if isinstance(value, list) else [value]
        given += [(flag, str(item)) for item in values if item and item != SHIPPED_SCENARIOS]
    return given


def _rootdir_moved_by_path_options(config: pytest.Config) -> str | None:
    """pytest picks its rootdir and ini file before any plugin loads, so in the space form
    (``--tme-report PATH``) it takes an existing PATH for a test path: a path outside the project
    then moves the rootdir (node ids become ``../typedmemeval/...``, the conftest adapter is not
    found, snapshots land elsewhere). Every path option is guarded alike (issue 22, item 10): the
    one-line refusal with the fix, or ``None``."""
    given = _path_option_values(config)
    if not given:
        return None
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
        return None
    if expected[0] == config.rootpath and expected[1] == config.inipath:
        return None
    spaced = [(flag, value) for flag, value in given
              if any(args[i] == flag and args[i + 1] == value for i in range(len(args) - 1))]
    flag, shown = (spaced or given)[0]
    return (f"{flag} {shown}: pytest read this path as a test path before the plugin loaded and "
            f"moved its rootdir to {config.rootpath} (expected {expected[0]}); write {flag}={shown} "
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


def _check_legacy_snapshot_files(config: pytest.Config, session: TypedMemEvalSession) -> None:
    """A baseline at its pre-issue-22 place (syrupy's ``__snapshots__``) would be counted unused by
    every run that does not assert it, and would not be read by one that does: name the move."""
    for corpus in session.corpora:
        old = snapshot_path(config, corpus, legacy=True)
        if not old.is_file():
            continue
        new = snapshot_path(config, corpus)
        shown_old, shown_new = (path.relative_to(config.rootpath) for path in (old, new))
        action = (f"git mv {shown_old} {shown_new}" if not new.exists()
                  else f"{shown_new} exists too: delete {shown_old} once you have checked it is the older one")
        raise pytest.UsageError(
            f"TypedMemEval: the baseline {shown_old} is in syrupy's __snapshots__ directory, where "
            f"every run that does not assert it counts it as unused; baselines now live in "
            f"{shown_new.parent}/: {action}")


def factory_search_dirs(config: pytest.Config) -> tuple[Path, Path]:
    """Where a ``module:factory`` spec is looked for beyond ``sys.path``: the rootdir (beside the
    conftest.py) and the working directory, so plain ``pytest`` resolves what ``python -m pytest``
    does (issue 22, item 5)."""
    return config.rootpath, config.invocation_params.dir


def _only_gates(config: pytest.Config) -> bool:
    expression = config.getoption("markexpr") or ""
    return "tme_gate" in expression and " or " not in expression and "not " not in expression


def check_report_path(path: Path, given: str, *, flag: str = "--tme-report",
                       example: str = "typedmemeval-report.json") -> None:
    """Refuse an unwritable report path before the run, not after it (the run's results would be
    computed and then lost)."""
    if path.is_dir():
        raise pytest.UsageError(f"{flag} {given}: is a directory; name a file in it, e.g. "
                                f"{flag} {Path(given) / example}")
    ancestor = path.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise pytest.UsageError(f"{flag} {given}: {ancestor} is a file, so no report can be written "
                                "below it; choose another path")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise pytest.UsageError(f"{flag} {given}: the directory {ancestor} is not writable; "
                                "choose another path")


def judge_choice(config: pytest.Config) -> JudgeChoice:
    """The --tme-judge settings (flags over ini), checked now: a model mode without a model or
    without a usable key is one usage error at session start, not an error per question."""
    try:
        choice = JudgeChoice.parse(
            config.getoption("tme_judge") or config.getini("typedmemeval_judge") or "mechanical",
            config.getoption("tme_judge_model") or config.getini("typedmemeval_judge_model"),
            config.getoption("tme_judge_base_url") or config.getini("typedmemeval_judge_base_url"),
            config.getoption("tme_judge_timeout"),
            config.getoption("tme_judge_min_agreement")
            if config.getoption("tme_judge_min_agreement") is not None
            else config.getini("typedmemeval_judge_min_agreement"),
            config.getoption("tme_judge_max_tokens") or config.getini("typedmemeval_judge_max_tokens"),
        )
        choice.check()
    except JudgeChoiceError as error:
        raise pytest.UsageError(f"TypedMemEval judge: {error}") from None
    return choice


def configure_models(config: pytest.Config, session: TypedMemEvalSession) -> None:
    """Settle what calls a model in this run — an ``llm-*`` agent, a model judge, or both — and
    the one spend ledger they share.

    The controller (or a run without xdist) makes one ledger file per run and checks the settings
    once — no model, no key for a remote endpoint, an unpriced model, a bad price file are each one
    usage error now, not an error per question. Workers take the ledger path from ``workerinput``
    so every process, agent and judge alike, reserves against the same ceiling.
    """
    from ..adapter.factories import is_llm_agent_alias

    uses_agent = bool(session.agent_spec) and is_llm_agent_alias(session.agent_spec or "")
    uses_judge = session.judge_choice.mode != "mechanical"
    if not (uses_agent or uses_judge):
        return
    worker = is_worker(config)
    if worker:
        ledger = config.workerinput.get(LEDGER_INPUT_KEY)  # type: ignore[attr-defined]
        if not ledger:
            raise pytest.UsageError("TypedMemEval: this xdist worker was given no shared spend ledger, "
                                    "so the cost ceiling could not hold across workers")
        session.ledger_path = Path(ledger)
    else:
        session.ledger_dir = Path(tempfile.mkdtemp(prefix="typedmemeval-ledger-"))
        session.ledger_path = session.ledger_dir / "ledger.json"
    guard = model_guard(config, session.ledger_path)
    if uses_agent:
        session.model_settings = model_settings(config, session.agent_spec or "", guard,
                                                 check=not worker)
    if uses_judge:
        session.judge_guard = guard
        if not worker:
            try:
                session.judge_choice.check(guard)
            except JudgeChoiceError as error:
                raise pytest.UsageError(f"TypedMemEval judge: {error}") from None


def model_guard(config: pytest.Config, ledger_path: Path) -> dict[str, Any]:
    """The run's guard on every model call (flags over ini): the ceiling and its ledger, the
    unpriced allowance, the price file, the cache, the concurrency — the
    :class:`~..calls.ModelSettings` fields that are not about which model answers."""
    from ..calls import default_cache_dir

    max_usd = config.getoption("tme_max_usd")
    if max_usd is None:
        ini_usd = config.getini("typedmemeval_max_usd").strip()
        try:
            max_usd = parse_usd(ini_usd) if ini_usd else DEFAULT_MAX_USD
        except argparse.ArgumentTypeError as error:
            raise pytest.UsageError(f"TypedMemEval: ini typedmemeval_max_usd {error}") from None
    here = config.invocation_params.dir
    cache_dir: Path | None = None
    if not config.getoption("tme_no_cache"):
        given = config.getoption("tme_cache_dir")
        cache_dir = Path(here, given).resolve() if given else default_cache_dir()
    prices = config.getoption("tme_prices")
    return {"max_usd": max_usd, "allow_unpriced": bool(config.getoption("tme_allow_unpriced")),
            "cache_dir": cache_dir, "prices_path": Path(here, prices).resolve() if prices else None,
            "ledger_path": ledger_path,
            "concurrency": config.getoption("tme_concurrency") or DEFAULT_CONCURRENCY}


def model_settings(config: pytest.Config, spec: str, guard: dict[str, Any], *,
                    check: bool = False) -> ModelSettings:
    """The ``llm-*`` agent's model options (flags over ini) under the run's ``guard``; ``check``
    refuses now what would refuse every call, as one usage error with the layer's reason."""
    from ..calls import ModelCaller, ModelSettings
    from ..calls.endpoint import ModelCallError

    model = (config.getoption("tme_model") or config.getini("typedmemeval_model") or "").strip()
    if not model:
        raise pytest.UsageError(f"TypedMemEval: --tme-agent {spec} needs a model: pass --tme-model NAME "
                                "(or set typedmemeval_model in the ini file)")
    base_url = (config.getoption("tme_base_url") or config.getini("typedmemeval_base_url") or "").strip()
    try:
        settings = ModelSettings.resolve(
            model, base_url or None, **guard,
            timeout_seconds=config.getoption("tme_model_timeout") or DEFAULT_TIMEOUT_SECONDS)
        if check:
            ModelCaller(settings).check()
    except ModelCallError as error:
        raise pytest.UsageError(f"TypedMemEval --tme-agent {spec}: {error.reason}") from None
    return settings
