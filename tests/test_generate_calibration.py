"""The authoring search's revision-2 rule: the ceiling holds for the lexical panel's maximum."""

from __future__ import annotations

import pytest

from pytest_typedmemeval.generate import calibration


def test_choose_refuses_a_point_only_the_reference_finds_hard() -> None:
    points = [(0.25, 0.70), (0.75, 0.60)]
    # Okapi reads 0.70 at 0.25, but another panel arm saturates there: the search must move on.
    assert calibration.choose(points, panel_max={0.25: 0.95, 0.75: 0.85}) == (0.75, 0.60)
    # Control: without panel figures the reference alone decides.
    assert calibration.choose(points) == (0.25, 0.70)


def test_every_point_saturated_by_the_panel_is_an_error() -> None:
    with pytest.raises(ValueError, match="saturates"):
        calibration.choose([(0.5, 0.7)], panel_max={0.5: 0.93})


def test_search_records_panel_maxima_when_evaluate_reports_them() -> None:
    def evaluate(dial: float) -> tuple[float, float]:
        okapi = 1.0 - 0.6 * dial
        return okapi, min(1.0, okapi + 0.25)

    search = calibration.search_shape(evaluate, "shape")
    assert search.panel_max and set(search.panel_max) == {echo for echo, _ in search.points}
    assert search.panel_max[search.echo] <= calibration.SATURATION_CEILING
    assert "panel_max" in search.as_dict()


def test_float_noise_does_not_defeat_the_smaller_dial_tie_rule() -> None:
    a = sum([1 / 36] * 25)  # 25/36 summed one way
    b = 25 / 36
    assert a != b
    assert calibration.choose([(1.0, a), (0.19140625, b)]) == (0.19140625, b)
