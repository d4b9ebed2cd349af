"""pytest glue for TypedMemEval: the entry point (``pytest11`` name ``typedmemeval``) and the wiring
of the session's life — options, configure, the end of the session, the summary.

The items live in one module per kind, each owning its collection, run and report hooks:

- :mod:`.question_items` and :mod:`.gate_items` — the corpus questions and the certification gates,
  registered with this module (:data:`pytest_plugins`), together with :mod:`.adapter_fixture`
  (the ``typedmemeval_agent`` fixture every question-running item shares);
- :mod:`.scenario_items` and :mod:`.dataset_items` — plugin objects registered at configure time,
  only when their options ask for them.

Shared plumbing: :mod:`.options` declares every flag and ini key, :mod:`.configure` reads and
checks them into the run state (:mod:`.session`, on the config stash), :mod:`.collectors` is the
collector every item kind uses, :mod:`.xdist_roles` what crosses between the xdist controller and
its workers, and :mod:`.finish` the end of the session on the process that aggregates. The work
itself is done by modules that know nothing about pytest (``adapter``, ``corpus``, ``judge``,
``report``). Importing this package must stay cheap: no numpy, rank_bm25, pydantic or openai.
"""

from __future__ import annotations

import shutil
from collections.abc import Generator
from typing import Any

import pytest

from .. import hookspecs
from .options import add_options
from .session import SESSION_KEY, tme_session
from .xdist_roles import WORKER_PAYLOAD_KEY, is_worker, worker_payload

# Installed but not enabled, the plugin must cost an unrelated pytest start almost nothing (issue 13,
# P4): corpus models, pydantic, the report and the model-call layer are imported only once a run
# asks for TypedMemEval. tests/test_performance_invariants.py checks this in a fresh interpreter.

pytest_plugins = (
    "pytest_typedmemeval.plugin.adapter_fixture",
    "pytest_typedmemeval.plugin.gate_items",
    "pytest_typedmemeval.plugin.question_items",
    "pytest_typedmemeval.plugin.questions_in_flight",
    "pytest_typedmemeval.plugin.shard_selection",
)
"""Registered right after this module, in this order. pytest calls hook implementations of equal
priority last-registered first, so the question items' collection runs before the gate items'
(questions, then gates, as one corpus run). pytest imports them itself (marked for assertion
rewriting first), so nothing this module imports at its top may import them."""


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hookspecs)


def pytest_configure(config: pytest.Config) -> None:
    from . import dataset_items, scenario_items
    from .configure import configure_session
    from .shard_selection import refusal

    shard_refusal = refusal(config)
    if shard_refusal is not None:  # before the dataset and scenario options are read
        raise pytest.UsageError(f"TypedMemEval: {shard_refusal}")
    scenario_items.register_if_wanted(config)
    dataset_items.register_if_wanted(config)
    configure_session(config)


def pytest_unconfigure(config: pytest.Config) -> None:
    session = config.stash.get(SESSION_KEY, None)
    if session is not None:
        session.close()  # the collector is thawed later, by the clean-up freeze_gc registered
        if session.spool_dir is not None and not is_worker(config):
            shutil.rmtree(session.spool_dir, ignore_errors=True)
        if session.ledger_dir is not None and not is_worker(config):
            shutil.rmtree(session.ledger_dir, ignore_errors=True)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A worker sends its payload to the controller; the process that aggregates merges, writes
    the report and decides the exit status (applied by :func:`pytest_sessionfinish_status`)."""
    config = session.config
    tme = tme_session(config)
    if is_worker(config):
        config.workeroutput[WORKER_PAYLOAD_KEY] = worker_payload(tme)  # type: ignore[attr-defined]
        return
    if not tme.enabled or config.option.collectonly or tme.refused is not None:
        return
    from .finish import finish_session

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


RUN_OPTIONS = ("tme_agent", "tme_fail_under", "tme_baseline", "tme_report", "tme_html", "tme_timeout",
               "tme_gates", "tme_judge", "tme_require_probes", "tme_shard", "tme_parallel")
"""Options that only mean something once TypedMemEval questions are collected."""


def _nothing_collected_hint(config: pytest.Config, exitstatus: int) -> str | None:
    """``pytest --tme-agent reference`` alone collects nothing (exit 5): say what enables the run
    (issue 22, item 7), instead of a bare ``no tests ran``."""
    if exitstatus != pytest.ExitCode.NO_TESTS_COLLECTED:
        return None
    given = [f"--{name.replace('_', '-')}" for name in RUN_OPTIONS if config.getoption(name, None)]
    if not given:
        return None
    return (f"TypedMemEval: {', '.join(given)} given, but no TypedMemEval question was collected: add "
            "--typedmemeval (the shipped corpora) or --tme-corpus=PATH (your own), or set "
            "typedmemeval = true in the ini file")


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    if is_worker(config):
        return
    tme = config.stash.get(SESSION_KEY, None)
    if tme is None:
        return
    hint = None if tme.enabled else _nothing_collected_hint(config, exitstatus)
    notes = [*tme.notes, *([hint] if hint else [])]
    if not tme.reported and not notes:
        return
    terminalreporter.write_sep("=", "TypedMemEval")
    if tme.reported:
        from ..corpus.registry import shipped_sha256s
        from .finish import summary_lines

        for line in summary_lines(tme, shipped_sha256s()):
            terminalreporter.write_line(line)
    for line in notes:
        terminalreporter.write_line(line)
