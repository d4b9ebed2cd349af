"""Threshold mode (``--tme-fail-under``) over public-dataset items (issue 23, item 4): bounds per
dataset (its overall figure), per category and on abstention probes, named by the markers the
items carry; the corpus bounds untouched.

The scripted adapter of ``test_dataset_plugin`` answers LoCoMo 5 of 6 (single-hop 1 of 2) and
LongMemEval 3 of 3; every file is a tiny synthetic one in the upstream layout.
"""

from __future__ import annotations

import json

import pytest

from _dataset_shapes import write_locomo, write_longmemeval
from _support import fixture_corpus_files, total_questions
from pytest_typedmemeval.datasets import load_dataset
from pytest_typedmemeval.datasets.thresholds import (
    EVERY,
    bound_scopes,
    bounded_datasets,
    dataset_bounds,
    threshold_failures,
    threshold_line,
)
from test_dataset_plugin import CONFTEST, SECTION

LOCOMO = "--tme-dataset=locomo=locomo10.json"
LONGMEMEVAL = "--tme-dataset=longmemeval=longmemeval_s.json"


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write_locomo(pytester.path / "locomo10.json")
    write_longmemeval(pytester.path / "longmemeval_s.json")
    pytester.makeconftest(CONFTEST)
    return pytester


def _section(result: pytest.RunResult) -> list[str]:
    lines = result.outlines
    start = next(i for i, line in enumerate(lines) if SECTION in line)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("=")), len(lines))
    return lines[start + 1:end]


def _thresholds(result: pytest.RunResult) -> list[str]:
    return [line for line in _section(result) if "threshold" in line]


# --- names -------------------------------------------------------------------------------------


def test_bound_names_are_the_item_markers(pytester: pytest.Pytester) -> None:
    locomo = load_dataset("locomo", write_locomo(pytester.path / "locomo10.json"))
    longmemeval = load_dataset("longmemeval", write_longmemeval(pytester.path / "l.json"))
    scopes = bound_scopes({"locomo": locomo, "longmemeval": longmemeval})
    assert {name for name, scope in scopes.items() if scope.dataset == "locomo"} == {
        "locomo", "locomo_multi_hop", "locomo_temporal", "locomo_open_domain", "locomo_single_hop",
        "locomo_adversarial", "locomo_abstention"}
    assert scopes["longmemeval"].label(longmemeval.spec.reported_apart) == \
        "overall (excluding single-session-assistant)"
    assert scopes["longmemeval_single_session_assistant"].kind == "category"
    fail_under = {EVERY: 0.2, "locomo_multi_hop": 0.3, "arithmetic": 0.5}
    assert dataset_bounds(fail_under, scopes) == {EVERY: 0.2, "locomo_multi_hop": 0.3}
    assert bounded_datasets({"locomo_multi_hop": 0.3}, scopes) == {"locomo"}
    assert bounded_datasets({EVERY: 0.2}, scopes) == {"locomo", "longmemeval"}
    assert bounded_datasets({}, scopes) == frozenset()


def test_closing_line() -> None:
    assert threshold_line(failures=[], not_evaluated=[]) == "dataset thresholds: every bound met"
    rows = [{"bound_name": "locomo", "n": 6, "correct_rate": 0.8333, "bound": 0.9, "passed": False},
            {"bound_name": "locomo_multi_hop", "n": 0, "correct_rate": 0.0, "bound": 0.1, "passed": False},
            {"bound_name": "longmemeval", "n": 2, "correct_rate": 1.0, "bound": 0.9, "passed": True}]
    assert threshold_failures(rows) == ["locomo: correct 0.83 < 0.90 (n=6)",
                                        "locomo_multi_hop: no question ran, so the bound measured nothing"]


# --- runs --------------------------------------------------------------------------------------


def test_per_dataset_and_per_category_bounds_decide_and_items_do_not_fail(project: pytest.Pytester) -> None:
    met = project.runpytest(LOCOMO, "--tme-fail-under", "locomo=0.8", "--tme-fail-under", "locomo_single_hop=0.5",
                            "-p", "no:cacheprovider")
    # threshold mode: the wrong single-hop answer does not fail its item; the bounds hold
    assert met.parseoutcomes() == {"passed": 6}
    assert met.ret == pytest.ExitCode.OK
    assert _thresholds(met) == [
        "  threshold locomo (overall): correct 0.83 (5/6) >= 0.80: met",
        "  threshold locomo_single_hop (category single-hop): correct 0.50 (1/2) >= 0.50: met",
        "dataset thresholds: every bound met"]

    failed = project.runpytest(LOCOMO, "--tme-fail-under", "locomo_single_hop=0.6", "-p", "no:cacheprovider")
    assert failed.parseoutcomes() == {"passed": 6}
    assert failed.ret == pytest.ExitCode.TESTS_FAILED
    assert _thresholds(failed) == [
        "  threshold locomo_single_hop (category single-hop): correct 0.50 (1/2) < 0.60: FAILED",
        "FAILED dataset thresholds: locomo_single_hop: correct 0.50 < 0.60 (n=2)"]


def test_a_bare_rate_bounds_every_dataset_overall_and_reported_apart_stays_out(project: pytest.Pytester) -> None:
    result = project.runpytest(LOCOMO, LONGMEMEVAL, "--tme-fail-under", "0.9", "--tme-fail-under",
                               "longmemeval_abstention=1", "-p", "no:cacheprovider")
    assert result.parseoutcomes() == {"passed": 9}
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert _thresholds(result) == [
        "  threshold locomo (overall): correct 0.83 (5/6) < 0.90: FAILED",
        "  threshold longmemeval (overall (excluding single-session-assistant)): correct 1.00 (2/2) >= 0.90: met",
        "  threshold longmemeval_abstention (abstention probes): correct 1.00 (1/1) >= 1.00: met",
        "FAILED dataset thresholds: locomo: correct 0.83 < 0.90 (n=6)"]


def test_a_dataset_no_bound_names_keeps_failing_item_by_item(project: pytest.Pytester) -> None:
    result = project.runpytest(LOCOMO, LONGMEMEVAL, "--tme-fail-under", "longmemeval=0.5", "-p", "no:cacheprovider")
    assert result.parseoutcomes() == {"passed": 8, "failed": 1}  # LoCoMo's wrong answer fails its item
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["FAILED dataset/locomo::dataset_question[[]conv-1/q003[]]*"])
    assert _thresholds(result)[-1] == "dataset thresholds: every bound met"


def test_a_bound_that_measured_nothing_fails(project: pytest.Pytester) -> None:
    result = project.runpytest(LOCOMO, "-m", "locomo_single_hop", "--tme-fail-under", "locomo_multi_hop=0",
                               "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert _thresholds(result)[-1] == ("FAILED dataset thresholds: locomo_multi_hop: no question ran, so the "
                                       "bound measured nothing")


def test_errors_still_fail_and_leave_the_bounds_unevaluated(project: pytest.Pytester) -> None:
    project.makeconftest(CONFTEST.replace('return Answer(ANSWERS.get(question, "no idea")',
                                          'if question.startswith("What does Ada"):\n'
                                          '            raise RuntimeError("store offline")\n'
                                          '        return Answer(ANSWERS.get(question, "no idea")'))
    result = project.runpytest(LOCOMO, "--tme-fail-under", "0", "-p", "no:cacheprovider")
    assert result.parseoutcomes() == {"passed": 5, "failed": 1}
    result.stdout.fnmatch_lines(["*errors fail even in threshold mode*"])
    assert _thresholds(result)[-2:] == [
        "  threshold locomo (overall): correct 0.83 (5/6) >= 0.00: not evaluated",
        "dataset thresholds: NOT EVALUATED: locomo: 1 question(s) ended in error, so no bound of theirs can pass"]


def test_unknown_bound_names_are_refused_with_the_dataset_names(project: pytest.Pytester) -> None:
    alone = project.runpytest(LOCOMO, "--tme-fail-under", "locomo_multihop=0.5")
    assert alone.ret == pytest.ExitCode.USAGE_ERROR
    alone.stderr.fnmatch_lines(["ERROR: --tme-fail-under locomo_multihop=0.5: *did you mean locomo_multi_hop?*"])
    corpus = fixture_corpus_files()[0]
    project.path.joinpath("c.json").write_bytes(corpus.read_bytes())
    mixed = project.runpytest("--tme-corpus=c.json", LOCOMO, "--tme-fail-under", "locomo_multihop=0.5", "--co")
    assert mixed.ret == pytest.ExitCode.USAGE_ERROR
    mixed.stderr.fnmatch_lines(["ERROR: *did you mean locomo_multi_hop?*dataset bounds: locomo, *"])


def test_dataset_bounds_stay_out_of_the_corpus_run_and_its_report(project: pytest.Pytester) -> None:
    corpus = fixture_corpus_files()[0]
    project.path.joinpath("c.json").write_bytes(corpus.read_bytes())
    report_path = project.path / "report.json"
    result = project.runpytest("--tme-corpus=c.json", LOCOMO, "--tme-fail-under", "locomo=0.5",
                               "--tme-report", str(report_path), "-p", "no:cacheprovider")
    report = json.loads(report_path.read_text(encoding="utf-8"))
    # the corpus is not in threshold mode (no bound names it): its report has no bounds
    assert report["options"]["fail_under"] == {} and report["thresholds"] is None
    assert _thresholds(result)[-1] == "dataset thresholds: every bound met"
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) + outcomes.get("failed", 0) == total_questions([corpus]) + 6
    # a bare rate bounds both: the corpus's verticals and the dataset
    both = project.runpytest("--tme-corpus=c.json", LOCOMO, "--tme-fail-under", "0", "--tme-report",
                             str(report_path), "-p", "no:cacheprovider")
    report = json.loads(report_path.read_text(encoding="utf-8"))
    assert report["options"]["fail_under"] == {EVERY: 0.0} and report["thresholds"]
    assert _thresholds(both)[-1] == "dataset thresholds: every bound met"


def test_xdist_gives_the_same_verdicts(project: pytest.Pytester) -> None:
    args = (LOCOMO, LONGMEMEVAL, "--tme-fail-under", "locomo_single_hop=0.6", "--tme-fail-under", "longmemeval=1",
            "-p", "no:cacheprovider")
    serial = project.runpytest_subprocess(*args, "-n", "0")
    parallel = project.runpytest_subprocess(*args, "-n", "2")
    assert serial.ret == parallel.ret == pytest.ExitCode.TESTS_FAILED
    assert _thresholds(serial) == _thresholds(parallel)
    assert _thresholds(serial)[-1] == "FAILED dataset thresholds: locomo_single_hop: correct 0.50 < 0.60 (n=2)"
