"""The test function each certification gate is parametrized over, one item per corpus and gate.

A gate item fails with the gate's own few-line summary (vertical, rule, feature or question, value),
and a gate that could not measure (e.g. no probe records) is *skipped with its reason*, never passed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ._session import tme_session
from .corpus.index import CorpusIndex
from .gates.result import GateResult
from .run import run_question

CORPUS_GATES = ("structure", "separability", "calibration", "leaks", "probes", "baseline")
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
    snapshot_file = request.config.rootpath / "typedmemeval" / "__snapshots__" / f"{case.corpus.corpus_id}.ambr"
    if not snapshot_file.is_file():
        pytest.skip(f"baseline skipped for {case.corpus.corpus_id}: no snapshot at {snapshot_file}; "
                    "record one with --tme-baseline --snapshot-update")
    try:
        agent = request.getfixturevalue("typedmemeval_agent")
    except pytest.UsageError as error:
        pytest.skip(f"baseline skipped for {case.corpus.corpus_id}: {error}")
    session = tme_session(request.config)
    from .snapshot_file import SnapshotFileError

    question_for_item = {item: question for question, item in session.item_ids(case.corpus).items()}
    try:
        recorded = recorded_outcomes(snapshot_file, question_for_item)
    except SnapshotFileError as error:
        pytest.fail(str(error), pytrace=False)
    judge = session.judge()
    fresh = {record.question_id: run_question(agent, case.corpus, record, judge,
                                              calls=session.adapter_calls()).outcome
             for record in case.corpus.whole().records}
    from .gates import baseline

    return baseline.check(recorded, fresh, corpus_id=case.corpus.corpus_id)


def gate(tme_gate: GateCase, request: pytest.FixtureRequest) -> None:
    if tme_gate.gate == "baseline":
        result = _baseline_gate(tme_gate, request)
    else:
        from .gates.registry import run_corpus_gate

        result = run_corpus_gate(tme_gate.gate, tme_gate.corpus.whole(),
                                 require_probes=tme_session(request.config).require_probes)
    if result.status == "skipped":
        pytest.skip(result.summary())
    if result.status != "passed":
        pytest.fail(result.summary(), pytrace=False)
