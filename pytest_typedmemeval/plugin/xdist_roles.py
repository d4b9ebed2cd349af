"""Which xdist role this process plays, and what crosses between the controller and its workers.

Under ``-n N`` the controller collects nothing and runs nothing: it hands every worker the run's
spool directory and spend ledger (``workerinput``), learns the selection from the first worker's
collection, and at the end reads what each worker sent back (``workeroutput``): the results it
produced and the model names its server reported. A worker that sends nothing crashed, and says so
in the report. Without xdist the one process is both, and none of this is registered.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from .session import TypedMemEvalSession

LEDGER_INPUT_KEY = "typedmemeval_ledger"
"""workerinput key: the spend ledger file every process of the run shares (one cost ceiling)."""
SPOOL_INPUT_KEY = "typedmemeval_spool"
"""workerinput key: the directory each worker appends its results to (read back after Ctrl-C)."""
INDEX_INPUT_KEY = "typedmemeval_corpus_indexes"
"""workerinput key: the corpus indexes the controller validated (``corpus.index.index_entry``
by cache key), so no worker validates a corpus again (a first run has no pytest cache to share)."""
WORKER_PAYLOAD_KEY = "typedmemeval"
"""workeroutput key of :func:`worker_payload`."""
WORKER_PAYLOAD_VERSION = 1


def is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def is_xdist_controller(config: pytest.Config) -> bool:
    return (config.pluginmanager.hasplugin("xdist") and not is_worker(config)
            and bool(getattr(config.option, "numprocesses", None)))


def worker_payload(session: TypedMemEvalSession) -> dict[str, Any]:
    """What a worker sends back at its end: the results it produced, so the controller can name
    any whose report never arrived, the model names its server reported, and under
    ``--tme-shard`` the selection before sharding."""
    return {
        "version": WORKER_PAYLOAD_VERSION,
        "result_keys": sorted(f"{c}::{q}" for c, q in session.produced_keys),
        "served_models": sorted(session.all_served_models()),
        # --tme-shard: the selection before sharding, for the report's shard block (also spooled
        # at collection; this copy reaches a controller that shares no file system with its workers).
        "shard_plan": session.shard_plan,
    }


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
        if self.session.corpora:
            from ..corpus.index import cache_key, index_entry

            node.workerinput[INDEX_INPUT_KEY] = {cache_key(corpus.path): index_entry(corpus)
                                                 for corpus in self.session.corpora}

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
        if self.session.shard_plan is None and isinstance(payload.get("shard_plan"), dict):
            self.session.shard_plan = payload["shard_plan"]
        for key in payload["result_keys"]:
            corpus_id, _, question_id = key.partition("::")
            self.session.expected_from_workers.add((corpus_id, question_id))
