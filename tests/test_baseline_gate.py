"""Baseline currency and directional comparison (GATES.md §6, VERTICALS.md §6.5)."""

from __future__ import annotations

import pytest

from pytest_typedmemeval.gates import baseline
from pytest_typedmemeval.judge.outcomes import ALL_OUTCOMES

BASE = {"q1": "correct", "q2": "wrong", "q3": "abstained", "q4": "missed", "q5": "premature",
        "q6": "error"}


@pytest.mark.parametrize("case", baseline.self_test(), ids=lambda case: case.name)
def test_self_test_case(case):
    assert case.ok, case.detail


def test_every_outcome_has_a_direction():
    assert set(baseline.COUNT_DIRECTIONS) == {o.value for o in ALL_OUTCOMES} == set(baseline.OUTCOMES)
    assert baseline.COUNT_DIRECTIONS["correct"] == "higher"
    assert baseline.COUNT_DIRECTIONS["abstained"] == "neutral"
    assert {k for k, v in baseline.COUNT_DIRECTIONS.items() if v == "lower"} == {
        "wrong", "missed", "premature", "unjudged", "error"}


def test_identical_runs_are_current_with_nothing_to_report():
    comparison = baseline.compare(BASE, dict(BASE))
    assert comparison.current and comparison.no_regression
    assert not (comparison.drift or comparison.regressions or comparison.improvements or comparison.shifts)
    assert comparison.compared == 6


def test_losing_correct_is_a_question_and_a_count_regression():
    comparison = baseline.compare(BASE, {**BASE, "q1": "abstained"})
    assert [c.line() for c in comparison.regressions] == ["q1: correct -> abstained", "correct: 1 -> 0"]
    assert [c.line() for c in comparison.shifts] == ["abstained: 1 -> 2"]
    assert not comparison.no_regression


def test_gaining_correct_is_an_improvement_not_a_regression():
    comparison = baseline.compare(BASE, {**BASE, "q4": "correct"})
    assert not comparison.current
    assert comparison.no_regression
    assert [c.line() for c in comparison.improvements] == [
        "q4: missed -> correct", "correct: 1 -> 2", "missed: 1 -> 0"]


@pytest.mark.parametrize(("before", "after", "regression"), [
    ("wrong", "abstained", False),      # wrong fell: count improvement, question shift
    ("abstained", "wrong", True),       # wrong rose
    ("wrong", "missed", True),          # missed rose even though wrong fell
    ("error", "abstained", False),
    ("premature", "error", True),
])
def test_moves_between_non_correct_outcomes_are_shifts_judged_by_counts(before, after, regression):
    comparison = baseline.compare({"q": before, "r": "correct"}, {"q": after, "r": "correct"})
    assert [c.line() for c in comparison.shifts if c.kind == "question"] == [f"q: {before} -> {after}"]
    assert bool(comparison.regressions) is regression


def test_question_set_changes_are_drift_and_counts_use_shared_questions():
    fresh = {**BASE, "q7": "wrong"}
    del fresh["q2"]
    comparison = baseline.compare(BASE, fresh)
    assert comparison.added == ("q7",) and comparison.removed == ("q2",)
    assert len(comparison.drift) == 2
    assert comparison.compared == 5
    assert comparison.recorded_counts == comparison.fresh_counts
    assert not comparison.regressions


def test_recorded_empty_fresh_present_is_drift():
    result = baseline.check({}, {"q1": "correct"}, corpus_id="c")
    assert result.refused_rules() == {"not_current", "drift"}


def test_empty_comparison_is_skipped():
    result = baseline.check({}, {}, corpus_id="c")
    assert result.status == "skipped"
    assert "nothing was compared" in (result.skip_reason or "")


def test_check_refusals_name_the_questions():
    result = baseline.check(BASE, {**BASE, "q1": "wrong", "q2": "correct"}, corpus_id="typedmemeval-ari-v1")
    assert result.refused_rules() == {"not_current", "regression"}
    not_current = [r for r in result.refusals if r.rule == "not_current"]
    assert not_current[0].value == 2
    regressed = {r.subject for r in result.refusals if r.rule == "regression"}
    assert regressed == {"q1"}  # correct count is unchanged; wrong count is unchanged
    assert "q2: wrong -> correct" in result.measured["improvements"]
    assert any(note.startswith("improvement q2") for note in result.notes)


def test_check_is_pure_over_mappings():
    recorded = dict(BASE)
    baseline.check(recorded, {**BASE, "q1": "wrong"}, corpus_id="c")
    assert recorded == BASE


def test_outcome_members_compare_as_their_values():
    from pytest_typedmemeval.judge.outcomes import Outcome

    result = baseline.check({"q1": "correct", "q2": "wrong"},
                            {"q1": Outcome.CORRECT, "q2": Outcome.ABSTAINED}, corpus_id="c")
    assert result.refused_rules() == {"not_current"}
    assert result.measured["shifts"][0] == "q2: wrong -> abstained"
