"""The calibration gate: its self-test, the echo clause it strips, and the figures it reports."""

from __future__ import annotations

import pytest

from pytest_typedmemeval.gates import calibration
from pytest_typedmemeval.gates.calibration import check, distribution, question_coverage, strip_echo
from pytest_typedmemeval.gates.declarations import Declared, VerticalDeclarations
from pytest_typedmemeval.gates.result import SelfTestCase

CASES = calibration.self_test()
NONE = VerticalDeclarations()


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_self_test_case(case: SelfTestCase) -> None:
    assert case.ok, case.detail


@pytest.mark.parametrize(("text", "expected"), [
    ("I fixed the gate. (Also on my mind: ferry, harbour, crossing.)", "I fixed the gate."),
    ("I fixed the gate (ferry, harbour) today.", "I fixed the gate today."),
    ("Noted [Also noted: lamp, quartz] here.", "Noted here."),
    ("Noted [lamp, quartz.]", "Noted"),
    ("One more thing (Also on my mind: ferry.)", "One more thing"),
])
def test_echo_clause_is_stripped(text: str, expected: str) -> None:
    assert strip_echo(text) == expected


@pytest.mark.parametrize("text", [
    "I went twice (twice!) to the harbour.",
    "See the ferry (the blue one) by the pier.",
    "An unclosed (ferry, harbour list",
    "Prices: 3, 4, 5 and more.",
])
def test_ordinary_brackets_are_not_echo(text: str) -> None:
    assert strip_echo(text) == text


def test_distribution_uses_linear_quartiles_and_counts_exclusions() -> None:
    figures = distribution([0.0, 1.0, 0.5, 1.0], excluded=2)
    assert figures == {"n": 4, "n_excluded": 2, "mean": 0.625, "min": 0.0, "q1": 0.375,
                       "median": 0.75, "q3": 1.0, "max": 1.0}
    assert distribution([], excluded=3)["mean"] is None


def test_a_question_without_gold_has_no_coverage_and_is_counted_as_excluded() -> None:
    records = calibration._moderate()
    assert question_coverage(records[-1]) is None
    result = check(calibration._corpus(records), declared=NONE)
    assert result.measured["coverage_by_shape"]["moderate"]["n_excluded"] == 1
    assert result.measured["excluded_no_gold"] == 1


def test_scaffolding_dependence_is_stripped_minus_shipped_and_none_without_echo() -> None:
    moderate = check(calibration._corpus(calibration._moderate()), declared=NONE)
    assert moderate.measured["scaffolding_dependence"]["moderate"] == pytest.approx(0.25)
    saturated = check(calibration._corpus(calibration._saturated()),
                      declared=VerticalDeclarations(calibration_ceiling_exemptions=(
                          Declared("saturated", "declared for this test only, with a reason"),)))
    assert saturated.measured["scaffolding_dependence"]["saturated"] is None
    assert saturated.measured["exemptions_applied"] == {
        "saturated": "declared for this test only, with a reason"}


def test_an_exemption_that_no_longer_fires_is_reported_stale() -> None:
    declared = VerticalDeclarations(calibration_ceiling_exemptions=(
        Declared("moderate", "was saturated once; kept here to test staleness"),))
    result = check(calibration._corpus(calibration._moderate()), declared=declared)
    assert result.passed
    assert result.measured["stale_exemptions"] == ["moderate"]
    assert any("delete it" in note for note in result.notes)


def test_ties_are_broken_by_session_order() -> None:
    # The gold repeats a distractor's text exactly: scores tie, earlier sessions win.
    base = calibration._question("tme-epi-031", "ties", 7,
                                 gold_text=calibration._OFF_TOPIC[0])
    assert question_coverage(base) == 0.0
    early = calibration._question("tme-epi-032", "ties", 0, gold_text=calibration._OFF_TOPIC[0])
    assert question_coverage(early) == 1.0


def test_sidecar_missing_a_question_is_a_mismatch() -> None:
    records = calibration._moderate()
    clean = check(calibration._corpus(records), declared=NONE)
    claimed = dict(clean.measured["coverage_by_question"])
    del claimed["tme-epi-011"]
    result = check(calibration._corpus(records, coverage_by_question=claimed), declared=NONE)
    assert result.refused_rules() == {"sidecar_mismatch"}
    agreeing = check(calibration._corpus(records, coverage_by_question=dict(
        clean.measured["coverage_by_question"])), declared=NONE)
    assert agreeing.passed


def test_the_ceiling_is_never_read_from_the_sidecar() -> None:
    records = calibration._saturated()
    result = check(calibration._corpus(records, extra={"saturation_ceiling": 1.0}), declared=NONE)
    assert "ceiling" in result.refused_rules()
