"""``--tme-shard K/N``: keep this job's share of the selected corpus questions, at collection.

Runs after ``-m``/``-k`` (a ``trylast`` hook), so the split is of what the run selected, and before
the selection is noted (:func:`.question_items.pytest_collection_finish`), so the report of shard K
measures exactly its questions. The assignment itself is :func:`..corpus.shards.assign_shards`: a
pure function of the selection, so every xdist worker of a job (each collects for itself, and xdist
requires their collections to be equal) and every job of a CI matrix computes the same split.

Only corpus questions are split. Gate items and the user's own tests run in every shard; dataset
and scenario items are refused with ``--tme-shard`` (:func:`.configure.configure_session`): their
reports have no merge.

The selection before sharding (its size and fingerprint) goes into the shard's report, so the
merge can tell that N reports are the N shards of one selection. Under xdist the controller
collects nothing, so a worker writes it to its spool as soon as it is known (read back at the end
of the session, :mod:`.finish`).
"""

from __future__ import annotations

from typing import Any

import pytest

from .collectors import parametrized_case
from .question_items import CASE_ARGUMENT, QuestionCase
from .session import TypedMemEvalSession, tme_session
from .xdist_roles import is_worker

SHARD_PLAN_KEY = "shard_plan"
"""Spool-line key of the selection before sharding (a worker's line for the controller)."""


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    tme = tme_session(config)
    if tme.shard is None:
        return
    from ..corpus.shards import ShardQuestion, assign_shards, selection_sha256

    cases: dict[str, QuestionCase] = {}
    for item in items:
        case = parametrized_case(item, CASE_ARGUMENT, QuestionCase)
        if case is not None:
            cases[item.nodeid] = case
    keys = [(case.corpus.corpus_id, case.head.question_id) for case in cases.values()]
    shards = assign_shards((ShardQuestion(case.corpus.corpus_id, case.head.question_id, case.head.vertical,
                                          case.head.shape) for case in cases.values()), tme.shard.count)
    kept: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item in items:
        case = cases.get(item.nodeid)
        if case is None or shards[case.corpus.corpus_id, case.head.question_id] == tme.shard.index:
            kept.append(item)
        else:
            dropped.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
    tme.shard_plan = {"selected_before_sharding": len(keys), "selection_sha256": selection_sha256(keys)}
    if is_worker(config):
        tme.spool({SHARD_PLAN_KEY: tme.shard_plan})


def known_shard_plan(tme: TypedMemEvalSession) -> dict[str, Any] | None:
    """The selection before sharding as this process knows it: its own (it collected), else the
    first plan a worker spooled; ``None`` when the run stopped before any collection finished."""
    if tme.shard_plan is not None:
        return tme.shard_plan
    for payload in tme.read_spool():
        plan = payload.get(SHARD_PLAN_KEY)
        if isinstance(plan, dict):
            return plan
    return None


def refusal(config: pytest.Config) -> str | None:
    """Why ``--tme-shard`` cannot run with the other options given, in one line, or ``None``."""
    if config.getoption("tme_shard", None) is None:
        return None
    if config.getoption("tme_dataset", None):
        return ("--tme-shard splits TypedMemEval corpus questions only; the dataset items "
                "(--tme-dataset) have no merge: run them in a job without --tme-shard")
    if config.getoption("tme_scenarios", None) or config.getini("typedmemeval_scenarios"):
        return ("--tme-shard splits TypedMemEval corpus questions only; the scenario items "
                "(--tme-scenarios) have no merge: run them in a job without --tme-shard")
    if config.getoption("lf", False):
        return ("--tme-shard with --lf: the last failures of this job are not a shard of one selection, "
                "so the reports could not be merged; rerun the shard without --lf")
    return None
