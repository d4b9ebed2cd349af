"""The labelled answer bank (tests/judge_bank/) graded by the mechanical judge.

The bank is the judge's second instrument: realistic answers to the shipped questions, labelled
from docs/JUDGING.md alone, never from any judge's output. These tests hold the judge to it —
overall agreement, and the one failure the contract treats as unforgivable: a decline or a denial
graded ``wrong`` (an honest "I do not have that information." must never count as a wrong
commitment) — and hold the bank to its own promises: size, coverage of every shipped
(vertical, shape, arm), and byte-reproducibility from ``build_bank.py``.

The held-out set (``tests/judge_bank/heldout.jsonl``, ``heldout_README.md``) is the independent
instrument: answers written by hand in the styles real chat models and memory products use, labelled
from the contract before any judge graded them. Its agreement is a *measurement*, reported by the
benchmark; only a collapse (below MIN_HELDOUT_AGREEMENT) fails here, together with the same
unforgivable failure (a decline or denial graded ``wrong``) and the file's own promises (well formed,
tied to real shipped questions, every vertical and every (vertical, shape, arm) covered).

Do not lower the thresholds to make a judge pass: a disagreement is a bug in the judge or in the
bank, to be fixed in one of them (``python benchmarks/bench_judge_agreement.py`` lists them).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from judge_bank.build_bank import (
    BANK_PATH,
    DECLINE_FAMILIES,
    DENIAL_FAMILIES,
    HELDOUT_PATH,
    HELDOUT_QUESTIONS_PATH,
    build_bank_bytes,
    load_records,
)
from pytest_typedmemeval.corpus.models import AnswerKey
from pytest_typedmemeval.judge.mechanical import judge_answer

MIN_AGREEMENT = 0.98
MIN_CASES = 1500
MIN_HELDOUT_CASES = 300
MIN_HELDOUT_AGREEMENT = 0.90
"""A floor, not a target: the held-out agreement is a measurement (the benchmark reports it with
its disagreements, which are what gets fixed). The floor only makes a collapse — a judge change
that breaks answers the bank's templates never wrote — fail the suite."""
MAX_HELDOUT_BANK_OVERLAP = 0.10
SHOWN = 30
OUTCOMES = frozenset({"correct", "wrong", "abstained", "missed", "premature", "unjudged"})
SUBCOUNTS = frozenset({"stale_recall", "over_forgetting", "misattributed_forgetting"})
HELDOUT_FIELDS = {"case_id": str, "corpus_id": str, "question_id": str, "vertical": str, "shape": str,
                  "arm": (str, type(None)), "family": str, "style": str, "answer": str, "expected": str,
                  "expected_subcounts": list, "rule": str}


@cache
def _load(path: Path) -> tuple[dict[str, Any], ...]:
    return tuple(json.loads(line) for line in path.read_text(encoding="utf-8").splitlines())


def _bank() -> tuple[dict[str, Any], ...]:
    return _load(BANK_PATH)


def _heldout() -> tuple[dict[str, Any], ...]:
    return _load(HELDOUT_PATH)


@cache
def _records() -> dict[str, dict[str, Any]]:
    """The shipped questions the templated bank is built from."""
    return {record["question_id"]: record for record in load_records()}


@cache
def _heldout_records() -> dict[str, dict[str, Any]]:
    """The questions the held-out answers were written against, frozen with their keys
    (``heldout_questions.jsonl``): the set measures the judge, so it outlives the corpus revision
    its questions came from (revision 1)."""
    return {record["question_id"]: record for record in _load(HELDOUT_QUESTIONS_PATH)}


@cache
def _keys() -> dict[tuple[str, str], AnswerKey]:
    """Answer keys by (corpus id, question id): revisions reuse question numbers."""
    every = [*_records().values(), *_heldout_records().values()]
    return {(record["corpus_id"], record["question_id"]):
            AnswerKey.model_validate(record["typedmemeval"]["answer_key"]) for record in every}


@cache
def _graded(path: Path = BANK_PATH) -> tuple[tuple[dict[str, Any], str, tuple[str, ...], str], ...]:
    """(case, judged outcome, judged sub-counts, reason) for every case of one bank file; graded
    once per session. List-order keys are judged with ``surfaced_items=None``: every item is
    required (J8)."""
    keys = _keys()
    graded = []
    for case in _load(path):
        verdict = judge_answer(case["answer"], keys[case["corpus_id"], case["question_id"]],
                               surfaced_items=None)
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


# --- the hand-written held-out set -----------------------------------------------------------------
def test_heldout_is_well_formed() -> None:
    """Every line a labelled answer to a real shipped question: the fields and types the benchmark
    reads, metadata that matches the question, a contract outcome and rule, sub-counts only where
    J10 allows them, no duplicate case or answer, no decline or denial labelled ``wrong``, and few
    answers that coincide with a templated-bank answer to the same question (the point of the set
    is that it was written apart; short answers such as "Me." or a bare name, and J12's own example
    wordings, coincide unavoidably — at most MAX_HELDOUT_BANK_OVERLAP of them)."""
    heldout = _heldout()
    assert len(heldout) >= MIN_HELDOUT_CASES
    records = _heldout_records()
    bank_answers = {(case["question_id"], case["answer"]) for case in _bank()}
    seen_ids: set[str] = set()
    seen_answers: set[tuple[str, str]] = set()
    for case in heldout:
        for field, kind in HELDOUT_FIELDS.items():
            assert isinstance(case.get(field), kind), f"{case.get('case_id')}: field {field!r}"
        cid, qid = case["case_id"], case["question_id"]
        assert cid not in seen_ids, f"duplicate case_id {cid}"
        seen_ids.add(cid)
        assert qid in records, f"{cid}: unknown question {qid}"
        block = records[qid]["typedmemeval"]
        assert (case["corpus_id"], case["vertical"], case["shape"], case["arm"]) == (
            records[qid]["corpus_id"], block["vertical"], block["shape"], block.get("arm")), cid
        assert case["expected"] in OUTCOMES, cid
        assert set(case["expected_subcounts"]) <= SUBCOUNTS, cid
        assert case["expected_subcounts"] == sorted(case["expected_subcounts"]), cid
        if case["expected_subcounts"]:
            assert case["expected"] in {"wrong", "missed"}, f"{cid}: sub-counts on {case['expected']}"
            assert block["vertical"] in {"forgetting", "prospective"}, f"{cid}: sub-counts outside J5"
        assert re.fullmatch(r"J\d+(\.\d+)?", case["rule"]), f"{cid}: rule {case['rule']!r}"
        assert case["family"] and case["style"], cid
        assert (qid, case["answer"]) not in seen_answers, f"{cid}: the same answer twice"
        seen_answers.add((qid, case["answer"]))
        if case["family"] in DECLINE_FAMILIES | DENIAL_FAMILIES:
            assert case["expected"] != "wrong", f"{cid}: a decline/denial labelled wrong"
    overlap = sorted(case["case_id"] for case in heldout if (case["question_id"], case["answer"]) in bank_answers)
    assert len(overlap) <= MAX_HELDOUT_BANK_OVERLAP * len(heldout), (
        f"{len(overlap)} held-out answers are verbatim bank answers: {overlap}")


def test_heldout_covers_every_vertical() -> None:
    """Every vertical, and every (vertical, shape, arm) its questions' corpora have."""
    records = _heldout_records()
    heldout = _heldout()
    verticals = {r["typedmemeval"]["vertical"] for r in records.values()}
    assert verticals <= {case["vertical"] for case in heldout}
    shipped = {(r["typedmemeval"]["vertical"], r["typedmemeval"]["shape"], r["typedmemeval"].get("arm"))
               for r in records.values()}
    covered = {(case["vertical"], case["shape"], case["arm"]) for case in heldout}
    assert shipped <= covered, f"uncovered (vertical, shape, arm): {sorted(shipped - covered, key=str)}"


def test_heldout_no_decline_or_denial_is_graded_wrong() -> None:
    """J1/J2 on answers the judge's author never templated: zero declines or denials ``wrong``."""
    families = DECLINE_FAMILIES | DENIAL_FAMILIES
    rows = [row for row in _graded(HELDOUT_PATH) if row[0]["family"] in families]
    assert rows, "the held-out set carries no declines or denials"
    bad = [row for row in rows if row[1] == "wrong"]
    assert not bad, f"{len(bad)} held-out declines/denials graded wrong:\n{_describe(bad)}"


def test_heldout_agreement_floor(record_property: Any) -> None:
    """The held-out agreement is reported (``record_property`` and the benchmark), not held to
    MIN_AGREEMENT: it measures how the judge reads answers it was not written against. The floor
    MIN_HELDOUT_AGREEMENT only catches a collapse."""
    graded = _graded(HELDOUT_PATH)
    disagreements = [row for row in graded if not _agrees(row[0], row[1], row[2])]
    agreement = 1 - len(disagreements) / len(graded)
    record_property("heldout_agreement", round(agreement, 4))
    print(f"held-out agreement {agreement:.2%} ({len(graded) - len(disagreements)}/{len(graded)})")
    assert agreement >= MIN_HELDOUT_AGREEMENT, (
        f"held-out agreement collapsed: {agreement:.4f} < {MIN_HELDOUT_AGREEMENT} ({len(disagreements)} "
        f"of {len(graded)} disagree):\n{_describe(disagreements)}")
