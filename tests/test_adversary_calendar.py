"""The adversary gate's calendar reader (:mod:`pytest_typedmemeval.gates.adversary_calendar`):
a question's arm predicted from the days between its haystack's session dates and the asked date
(red team 39 on Prospective ``0362efd5``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pytest_typedmemeval.corpus.loading import load_corpus
from pytest_typedmemeval.gates.adversaries import (
    POOLED, SimulationSpec, build_simulated_corpus, check
)
from pytest_typedmemeval.gates.adversary_calendar import (
    CALENDAR_FEATURES, arm_shapes, calendar_features, calendar_row, held_out_accuracy
)
from pytest_typedmemeval.gates.declarations import VerticalDeclarations

NONE = VerticalDeclarations()
CORPORA = Path(__file__).resolve().parents[1] / "corpora"


def test_the_gaps_are_read_from_the_asked_date() -> None:
    dates = ["2026/01/01 (Thu) 10:00", "2026/01/11 (Sun) 10:00", "2026/01/21 (Wed) 10:00"]
    plain = calendar_features("Who holds it?", "2026/03/02 (Mon) 10:00", dates)
    assert plain == (40.0, 60.0, 50.0, 0.0, 0.0, 0.0)
    moved = calendar_features("Who held it ten days ago?", "2026/03/02 (Mon) 10:00", dates)
    assert moved == (30.0, 50.0, 40.0, 0.0, 0.0, 0.0)
    ahead = calendar_features("Who will hold it in 3 days?", "2026/03/02 (Mon) 10:00", dates)
    assert ahead == (43.0, 63.0, 53.0, 0.0, 0.0, 0.0)


def test_every_stated_due_date_is_read_against_the_asked_date_whatever_its_subject() -> None:
    dates = ["2026/01/01 (Thu) 10:00", "2026/01/11 (Sun) 10:00", "2026/01/21 (Wed) 10:00"]
    texts = [["The lease runs for the next 8 weeks.", "Noted."],
             ["Nothing new."],
             ["My sister's visa is up in ten days.", "I'll pay it in 2 weeks, and the rest in a month."]]
    feats = calendar_features("Who holds it?", "2026/03/02 (Mon) 10:00", dates, texts)
    assert len(feats) == len(CALENDAR_FEATURES)
    # due - T: Jan 1 + 56 = Feb 26 (-4); Jan 21 + 10 = Jan 31 (-30); + 14 (-26); + 30 (-10)
    assert feats[3:] == (-18.0, -30.0, -4.0)


def test_only_shapes_with_two_arms_are_read() -> None:
    arms = ["before", "after", None, "treatment", "control", "treatment"]
    shapes = ["due", "due", "as-of", "invalidated", "still-valid", "invalidated"]
    assert arm_shapes(arms, shapes) == {"due": ("after", "before")}


def test_a_threshold_learned_on_one_half_predicts_the_other() -> None:
    features = np.asarray([[d] * len(CALENDAR_FEATURES) for d in (10, 12, 50, 52, 11, 13, 51, 53)], dtype=float)
    labels = np.asarray([[False, False, True, True, False, False, True, True]])
    halves = [0, 0, 0, 0, 1, 1, 1, 1]
    assert held_out_accuracy(features, labels, halves)[0] == 1.0
    assert held_out_accuracy(features, ~labels, halves)[0] == 1.0


def test_a_row_without_signal_is_near_chance_and_not_refused() -> None:
    rng = np.random.default_rng(5)
    rows = [((float(rng.integers(20, 66)),) * len(CALENDAR_FEATURES), bool(i % 2), "s", i % 4 // 2)
            for i in range(40)]
    row = calendar_row(rows, "s", alpha=0.005, draws=500)
    assert row["status"] == "measured" and not row["refuses"]
    assert 0.3 < row["null_mean"] < 0.6


def test_a_row_too_small_is_not_measured() -> None:
    row = calendar_row([((1.0, 1.0, 1.0), True, "s", 0)] * 3, "s", alpha=0.005, draws=10)
    assert row["status"] == "not_measured"


def test_the_calendar_tell_is_refused_and_its_control_passes() -> None:
    tell = check(build_simulated_corpus(39, SimulationSpec(calendar_tell=True)), declared=NONE)
    assert tell.status == "refused" and tell.refused_rules() == {"calendar_arm"}
    row = tell.measured["by_shape"]["lookup"]["calendar_reader"]
    assert row["accuracy"] > row["bound"] and row["p_value"] < row["alpha"]
    clean = check(build_simulated_corpus(40, SimulationSpec(calendar_random=True)), declared=NONE)
    assert clean.status == "passed", clean.summary()
    assert clean.measured["by_shape"]["lookup"]["calendar_reader"]["status"] == "measured"


def test_the_due_date_tell_is_refused_and_its_control_passes() -> None:
    tell = check(build_simulated_corpus(41, SimulationSpec(due_tell=True)), declared=NONE)
    assert tell.status == "refused" and tell.refused_rules() == {"calendar_arm"}
    row = tell.measured["by_shape"]["lookup"]["calendar_reader"]
    assert row["accuracy_by_feature"]["due_median"] == 1.0
    assert max(row["accuracy_by_feature"][f] for f in CALENDAR_FEATURES[:3]) < row["bound"]
    clean = check(build_simulated_corpus(42, SimulationSpec(due_random=True)), declared=NONE)
    assert clean.status == "passed", clean.summary()
    assert clean.measured["by_shape"]["lookup"]["calendar_reader"]["status"] == "measured"


def test_a_shape_without_arms_is_not_applicable() -> None:
    result = check(build_simulated_corpus(36, SimulationSpec()), declared=NONE)
    assert result.measured["by_shape"]["lookup"]["calendar_reader"]["status"] == "not_applicable"
    assert result.measured["pooled"]["calendar_reader"]["status"] == "not_applicable"


def test_the_shipped_prospective_fbf1df8d_is_refused_on_its_stated_due_dates() -> None:
    path = CORPORA / "typedmemeval-prospective-v3.json"
    corpus = load_corpus(path)
    if not corpus.sha256.startswith("fbf1df8d"):
        pytest.skip("Prospective rebuilt: its verdict is recorded in tests/_support.py")
    result = check(corpus)
    pooled = result.measured["pooled"]["calendar_reader"]
    assert pooled["questions"] == 38 and pooled["accuracy"] > 0.95
    assert pooled["accuracy_by_feature"]["due_median"] > 0.95
    assert any(r.rule == "calendar_arm" and r.shape == POOLED for r in result.refusals)


def test_the_shipped_prospective_0362efd5_is_refused_on_its_pooled_row() -> None:
    path = CORPORA / "typedmemeval-prospective-v3.json"
    corpus = load_corpus(path)
    if not corpus.sha256.startswith("0362efd5"):
        pytest.skip("Prospective rebuilt: its verdict is recorded in tests/_support.py")
    result = check(corpus)
    pooled = result.measured["pooled"]["calendar_reader"]
    assert pooled["questions"] == 38 and pooled["accuracy"] > 0.95
    assert any(r.rule == "calendar_arm" and r.shape == POOLED for r in result.refusals)
    for shape in ("as-of", "current", "prospective"):
        assert result.measured["by_shape"][shape]["calendar_reader"]["status"] == "not_applicable"
