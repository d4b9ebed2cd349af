"""The fault matrix (see fault_cases.py): every misbehaving adapter, dying worker, interruption and
user mistake ends within its time limit, with the expected exit code and one clear line, without a
traceback, and with zero lost results."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from fault_cases import CASES, FaultCase, run_case


def test_the_matrix_has_at_least_25_kinds_of_fault() -> None:
    assert len({case.name for case in CASES}) == len(CASES) >= 25
    assert {case.group for case in CASES} == {"adapter", "worker", "interrupt", "input", "labels"}


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_fault_is_answered_with_one_clear_line_and_nothing_lost(
        case: FaultCase, tmp_path: Path, record_property: Callable[[str, object], None]) -> None:
    outcome = run_case(case, tmp_path / "project")
    record_property("fault_matrix", json.dumps(outcome.tally()))
    assert outcome.ok, outcome.line() + "\n--- output ---\n" + outcome.output[-6000:]
