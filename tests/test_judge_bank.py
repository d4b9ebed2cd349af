"""The labelled answer bank (tests/judge_bank/) graded by the mechanical judge.

The bank is the judge's second instrument: realistic answers to the shipped questions, labelled
from docs/JUDGING.md alone, never from any judge's output. These tests hold the judge to it —
overall agreement, and the one failure the contract treats as unforgivable: a decline or a denial
graded ``wrong`` (an honest "I do not have that information." must never count as a wrong
commitment) — and hold the bank to its own promises: size, coverage of every shipped
(vertical, shape, arm), and byte-reproducibility from ``build_bank.py``.

Do not lower the thresholds to make a judge pass: a disagreement is a bug in the judge or in the
bank, to be fixed in one of them (``python benchmarks/bench_judge_agreement.py`` lists them).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from typing import Any

import pytest

from judge_bank.build_bank import (
    BANK_PATH,
    DECLINE_FAMILIES,
    DENIAL_FAMILIES,
    build_bank_bytes,
    load_records,
)
from pytest_typedmemeval.corpus.models import AnswerKey
from pytest_typedmemeval.judge.mechanical import judge_answer

MIN_AGREEMENT = 0.98
MIN_CASES = 1500
SHOWN = 30


@cache
def _bank() -> tuple[dict[str, Any], ...]:
    return tuple(json.loads(line) for line in BANK_PATH.read_text(encoding="utf-8").splitlines())


@cache
def _records() -> dict[str, dict[str, Any]]:
    return {record["question_id"]: record for record in load_records()}


@cache
def _keys() -> dict[str, AnswerKey]:
    return {qid: AnswerKey.model_validate(record["typedmemeval"]["answer_key"])
            for qid, record in _records().items()}


@cache
def _graded() -> tuple[tuple[dict[str, Any], str, tuple[str, ...], str], ...]:
    """(case, judged outcome, judged sub-counts, reason) for every case; graded once per session.
    List-order keys are judged with ``surfaced_items=None``: every item is required (J8)."""
    keys = _keys()
    graded = []
    for case in _bank():
        verdict = judge_answer(case["answer"], keys[case["question_id"]], surfaced_items=None)
        graded.append((case, verdict.outcome.value, tuple(sorted(verdict.subcounts)), verdict.reason))
    return tuple(graded)


def _agrees(case: Mapping[str, Any], outcome: str, subcounts: tuple[str, ...]) -> bool:
    return outcome == case["expected"] and subcounts == tuple(case["expected_subcounts"])


def _describe(rows: list[tuple[dict[str, Any], str, tuple[str, ...], str]]) -> str:
    lines = []
    for case, outcome, subcounts, reason in rows[:SHOWN]:
        expected = case["expected"] + (f" {case['expected_subcounts']}" if case["expected_subcounts"] else "")
        got = outcome + (f" {list(subcounts)}" if subcounts else "")
        answer = case["answer"] if len(case["answer"]) <= 120 else case["answer"][:117] + "..."
        lines.append(f"  {case['case_id']} [{case['rule']}] {answer!r}: expected {expected}, "
                     f"got {got} ({reason})")
    more = f"\n  ... and {len(rows) - SHOWN} more" if len(rows) > SHOWN else ""
    return "\n".join(lines) + more


def test_bank_is_exactly_what_the_builder_writes() -> None:
    """(d) The committed bank is reproducible byte for byte: no hand edits, no stale file."""
    assert BANK_PATH.read_bytes() == build_bank_bytes(), (
        "tests/judge_bank/bank.jsonl is stale: run python tests/judge_bank/build_bank.py")


def test_bank_size_and_coverage() -> None:
    """(c) At least MIN_CASES cases, covering every (vertical, shape, arm) the shipped corpora
    have, every case tied to a real shipped question."""
    bank = _bank()
    assert len(bank) >= MIN_CASES
    records = _records()
    assert {c["question_id"] for c in bank} <= set(records)
    shipped = {(r["typedmemeval"]["vertical"], r["typedmemeval"]["shape"], r["typedmemeval"].get("arm"))
               for r in records.values()}
    covered = {(c["vertical"], c["shape"], c["arm"]) for c in bank}
    assert shipped <= covered, f"uncovered (vertical, shape, arm): {sorted(shipped - covered, key=str)}"
    assert len({c["case_id"] for c in bank}) == len(bank), "duplicate case_id"


def test_no_decline_or_denial_is_graded_wrong() -> None:
    """(b) J1/J2: declines and denials abstain, miss, or are the gold — never ``wrong``."""
    families = DECLINE_FAMILIES | DENIAL_FAMILIES
    bad = [row for row in _graded() if row[0]["family"] in families and row[1] == "wrong"]
    assert not bad, f"{len(bad)} declines/denials graded wrong:\n{_describe(bad)}"


def test_judge_agrees_with_the_bank() -> None:
    """(a) Overall agreement (outcome and sub-counts) of at least MIN_AGREEMENT."""
    graded = _graded()
    disagreements = [row for row in graded if not _agrees(row[0], row[1], row[2])]
    agreement = 1 - len(disagreements) / len(graded)
    assert agreement >= MIN_AGREEMENT, (
        f"agreement {agreement:.4f} < {MIN_AGREEMENT} ({len(disagreements)} of {len(graded)} cases "
        f"disagree):\n{_describe(disagreements)}")


@pytest.mark.parametrize("family", sorted(DECLINE_FAMILIES | DENIAL_FAMILIES))
def test_decline_and_denial_families_are_present(family: str) -> None:
    """Test (b) is vacuous unless the bank really carries these families."""
    assert any(case["family"] == family for case in _bank())
