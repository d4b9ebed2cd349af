"""The gate items: one ``pytest.Function`` per corpus and certification gate (``--tme-gates``, or
``-m`` naming a ``tme_gate_`` marker), collected at ``<rootdir>/typedmemeval/gates/<corpus id>``
after the questions.

A gate item fails with the gate's own few-line summary (vertical, rule, feature or question, value),
and a gate that could not measure (e.g. no probe records) is *skipped with its reason*, never passed.
The model-free gates are replayed from pytest's cache when nothing they read has changed
(:mod:`..gates.replay`); ``baseline`` runs the adapter afresh against the recorded outcomes.

A registered plugin module (named in :data:`pytest_typedmemeval.plugin.pytest_plugins`); the gates
themselves (:mod:`..gates`) load when a gate item first runs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from .collectors import PluginItemsModule
from .session import marker_name, tme_session

if TYPE_CHECKING:
    from ..corpus.index import CorpusIndex
    from ..gates.result import GateResult

GATE_MARKERS = ("tme_gate_structure", "tme_gate_separability", "tme_gate_calibration", "tme_gate_leaks",
                "tme_gate_adversaries", "tme_gate_probes", "tme_gate_baseline")
CORPUS_GATES = ("structure", "separability", "calibration", "leaks", "adversaries", "probes", "baseline")
"""``baseline`` needs a fresh run of the adapter; the others are pure functions of the corpus."""


@dataclass(frozen=True)
class GateCase:
    corpus: CorpusIndex
    """The corpus as the run collected it; a gate reads every record (:meth:`CorpusIndex.whole`)."""
    gate: str

    def __repr__(self) -> str:
        return f"{self.corpus.corpus_id}/{self.gate}"


def gate_params(corpus: CorpusIndex, marker_name: Callable[[str], str]) -> list[Any]:
    params = []
    for gate in CORPUS_GATES:
        marks = [pytest.mark.typedmemeval, getattr(pytest.mark, f"tme_gate_{gate}")]
        if corpus.vertical:
            marks.append(getattr(pytest.mark, marker_name(corpus.vertical)))
        params.append(pytest.param(GateCase(corpus, gate), id=gate, marks=marks))
    return params


def recorded_outcomes(snapshot_file: Path, question_for_item: dict[str, str] | None = None) -> dict[str, str]:
    """Question id -> outcome from the snapshot file written by ``--tme-baseline`` (read strictly:
    a truncated or corrupt file raises :class:`~.snapshot_file.SnapshotFileError`). Entries are
    named by item id; ``question_for_item`` maps those back to question ids."""
    from .snapshot_file import recorded_outcomes as read_recorded

    return read_recorded(snapshot_file, question_for_item or {})


def _baseline_gate(case: GateCase, request: pytest.FixtureRequest) -> GateResult:
    from .question_items import snapshot_path

    snapshot_file = snapshot_path(request.config, case.corpus)
    if not snapshot_file.is_file():
        pytest.skip(f"baseline skipped for {case.corpus.corpus_id}: no snapshot at {snapshot_file}; "
                    "record one with --tme-baseline --snapshot-update")
    try:
        from .adapter_fixture import requested_agent

        agent = requested_agent(request, tme_session(request.config))
    except pytest.UsageError as error:
        pytest.skip(f"baseline skipped for {case.corpus.corpus_id}: {error}")
    session = tme_session(request.config)
    from .snapshot_file import SnapshotFileError

    question_for_item = {item: question for question, item in session.item_ids(case.corpus).items()}
    try:
        recorded = recorded_outcomes(snapshot_file, question_for_item)
    except SnapshotFileError as error:
        pytest.fail(str(error), pytrace=False)
    from ..adapter.run import run_question

    judge = session.judge()
    fresh = {record.question_id: run_question(agent, case.corpus, record, judge,
                                              calls=session.adapter_calls()).outcome
             for record in case.corpus.whole().records}
    from ..gates import baseline

    return baseline.check(recorded, fresh, corpus_id=case.corpus.corpus_id)


REPLAY_NOTE = ("(replayed from pytest's cache: corpus, sidecar, package code and scoring libraries "
               "unchanged since this verdict was computed; --cache-clear recomputes)")


def _model_free_verdict(case: GateCase, request: pytest.FixtureRequest) -> tuple[str, str]:
    """``(status, summary)`` of a model-free gate, replayed when nothing it reads has changed
    (:mod:`..gates.replay`), else computed and stored for the next run."""
    from ..gates import replay
    from ..generate.certify import run_corpus_gate

    require_probes = tme_session(request.config).require_probes
    cache = getattr(request.config, "cache", None)
    if cache is None:  # -p no:cacheprovider
        result = run_corpus_gate(case.gate, case.corpus.whole(), require_probes=require_probes)
        return result.status, result.summary()
    key = replay.replay_key(case.gate, case.corpus.sha256, case.corpus.path, require_probes=require_probes)
    found = replay.replayed(cache, case.corpus.corpus_id, case.gate, key)
    if found is not None:
        request.node.user_properties.append(("typedmemeval_gate_replayed", True))
        return found[0], f"{found[1]}\n{REPLAY_NOTE}"
    result = run_corpus_gate(case.gate, case.corpus.whole(), require_probes=require_probes)
    if "gate_error" not in result.refused_rules():
        # A gate that raised is not a verdict on the corpus (it may be the machine): never replayed.
        replay.store(cache, case.corpus.corpus_id, case.gate, key, result.status, result.summary())
    return result.status, result.summary()


def gate(tme_gate: GateCase, request: pytest.FixtureRequest) -> None:
    """The test function every gate item is parametrized over."""
    if tme_gate.gate == "baseline":
        result = _baseline_gate(tme_gate, request)
        status, summary = result.status, result.summary()
    else:
        status, summary = _model_free_verdict(tme_gate, request)
    if status == "skipped":
        pytest.skip(summary)
    if status != "passed":
        pytest.fail(summary, pytrace=False)


class GateModule(PluginItemsModule):
    """The gates of one corpus as a collector at ``<rootdir>/typedmemeval/gates/<corpus id>``."""

    tme_corpus: CorpusIndex
    test_function = staticmethod(gate)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """The gate items of every corpus, after its questions (this module is registered before
    :mod:`.question_items`, so its hook of equal priority runs after that one's)."""
    tme = tme_session(config)
    if tme.collect_gates:
        for corpus in tme.corpora:
            path = config.rootpath / "typedmemeval" / "gates" / corpus.corpus_id
            module = GateModule.from_parent(session, path=path)
            module.tme_corpus = corpus
            items.extend(item for item in session.genitems(module) if isinstance(item, pytest.Item))


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    module = metafunc.definition.parent
    if isinstance(module, GateModule):
        metafunc.parametrize("tme_gate", gate_params(module.tme_corpus, marker_name))
