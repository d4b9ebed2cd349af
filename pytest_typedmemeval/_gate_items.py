"""The test function each certification gate is parametrized over, one item per corpus and gate.

A gate item fails with the gate's own few-line summary (vertical, rule, feature or question, value),
and a gate that could not measure (e.g. no probe records) is *skipped with its reason*, never passed.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from ._session import tme_session
from .corpus.loading import Corpus

CORPUS_GATES = ("structure", "separability", "calibration", "leaks", "probes")


@dataclass(frozen=True)
class GateCase:
    corpus: Corpus
    gate: str

    def __repr__(self) -> str:
        return f"{self.corpus.corpus_id}/{self.gate}"


def gate_params(corpus: Corpus, marker_name: Callable[[str], str]) -> list[Any]:
    params = []
    for gate in CORPUS_GATES:
        marks = [pytest.mark.typedmemeval, getattr(pytest.mark, f"tme_gate_{gate}")]
        if corpus.vertical:
            marks.append(getattr(pytest.mark, marker_name(corpus.vertical)))
        params.append(pytest.param(GateCase(corpus, gate), id=gate, marks=marks))
    return params


def gate(tme_gate: GateCase, request: pytest.FixtureRequest) -> None:
    module = importlib.import_module(f"pytest_typedmemeval.gates.{tme_gate.gate}")
    kwargs: dict[str, Any] = {}
    if tme_gate.gate == "probes":
        kwargs["require_probes"] = tme_session(request.config).require_probes
    result = module.check(tme_gate.corpus, **kwargs)
    if result.status == "skipped":
        pytest.skip(result.summary())
    if result.status != "passed":
        pytest.fail(result.summary(), pytrace=False)
