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
    assert search.panel_max and set(search.panel_max) == {dial for dial, _ in search.points}
    assert search.panel_max[search.dial] <= calibration.SATURATION_CEILING
    assert "panel_max" in search.as_dict()


def test_float_noise_does_not_defeat_the_smaller_dial_tie_rule() -> None:
    a = sum([1 / 36] * 25)  # 25/36 summed one way
    b = 25 / 36
    assert a != b
    assert calibration.choose([(1.0, a), (0.19140625, b)]) == (0.19140625, b)


# --- calibration search -------------------------------------------------------------------------


def test_search_finds_a_band_narrower_than_the_grid() -> None:
    # In band only between 0.30 and 0.33: no sweep point lands there; bisection must.
    def coverage(dial: float) -> float:
        return 0.95 if dial < 0.30 else (0.70 if dial < 0.33 else 0.20)

    search = calibration.search_shape(coverage, "narrow")
    assert 0.30 <= search.dial < 0.33 and search.coverage == 0.70
    assert search.bracket == (0.25, 0.375)
    assert search.points[: calibration.SWEEP_POINTS] == [
        (e, coverage(e)) for e in [i / 8 for i in range(9)]]  # the sweep always runs first


def test_search_takes_the_first_crossing_of_a_non_monotone_curve() -> None:
    curve = {0.0: 0.871, 0.125: 0.95, 0.25: 0.95, 0.375: 0.401, 0.5: 0.401, 0.625: 0.49,
             0.75: 0.838, 0.875: 0.9, 1.0: 0.95}

    def coverage(dial: float) -> float:
        return curve.get(dial, 0.70 if 0.25 < dial < 0.375 else 0.6)

    search = calibration.search_shape(coverage, "bumpy")
    assert search.bracket == (0.25, 0.375) and search.coverage == 0.70


def test_search_never_chooses_a_point_above_the_ceiling() -> None:
    assert calibration.choose([(0.0, 0.91), (0.5, 0.60)]) == (0.5, 0.60)
    with pytest.raises(ValueError, match="saturates"):
        calibration.search_shape(lambda dial: 0.97, "saturated")


def test_calibrate_fixes_each_shape_before_the_next() -> None:
    seen: list[dict[str, float]] = []

    def build(dial: dict[str, float]) -> list[object]:
        seen.append(dict(dial))
        return []

    def coverage_of(shape: str, dial: dict[str, float]) -> float:
        return 1.0 - dial[shape]

    original = calibration.shape_coverage
    try:
        calibration.shape_coverage = lambda records, shape: coverage_of(shape, seen[-1])  # type: ignore[assignment]
        result = calibration.calibrate(build, ["a", "b"], {"a": 0.5, "b": 0.5})  # type: ignore[arg-type]
    finally:
        calibration.shape_coverage = original  # type: ignore[assignment]
    assert abs(result.dial_by_shape["a"] - 0.3) < 0.02 and abs(result.dial_by_shape["b"] - 0.3) < 0.02
    searching_b = [dial for dial in seen if dial["b"] != 0.5]
    assert searching_b and all(dial["a"] == result.dial_by_shape["a"] for dial in searching_b)
    assert result.record()["iterations"] == len(seen)


# --- the registry's search entry point -----------------------------------------------------------


def _declaration(**extra: object) -> object:
    import types

    module = types.SimpleNamespace(SEED=3, SHAPES=("a", "b", "fixed"), CALIBRATED_SHAPES=("a", "b"),
                                   RECORDED_COMPETITION={"a": 0.1, "b": 0.1, "fixed": 0.5})
    for name, value in extra.items():
        setattr(module, name, value)
    return module


def test_a_declaration_with_its_own_search_is_asked_and_every_shape_gets_its_dial(monkeypatch) -> None:
    """Matched shapes (WorkingMemory's rungs) share one dial: the registry must not search them one
    by one; a shape the declaration's search does not report keeps its recorded fixed dial."""
    from pytest_typedmemeval.generate import registry

    record = {"by_shape": {"a": {"dial": 0.25}, "b": {"dial": 0.25}}, "method": "pooled"}
    seeds: list[int] = []
    module = _declaration(search_dial=lambda seed: seeds.append(seed) or record)
    monkeypatch.setattr(registry, "generator_module", lambda vertical: module)
    monkeypatch.setattr(calibration, "calibrate",
                        lambda *a, **k: pytest.fail("the per-shape search must not run"))
    outcome = registry.search_dial("matched")
    assert seeds == [3] and outcome.record == record
    assert outcome.dial_by_shape == {"a": 0.25, "b": 0.25, "fixed": 0.5}


def test_without_its_own_search_each_calibrated_shape_is_searched_and_the_rest_stay_fixed(
        monkeypatch) -> None:
    from pytest_typedmemeval.generate import registry

    module = _declaration()
    monkeypatch.setattr(registry, "generator_module", lambda vertical: module)
    seen: dict[str, object] = {}

    def calibrate(build, shapes, start, *, panel, whole_panel):  # type: ignore[no-untyped-def]
        seen.update(shapes=tuple(shapes), panel=panel, whole=whole_panel, start=dict(start))
        return calibration.CalibrationResult({"a": 0.3, "b": 0.6, "fixed": 0.125}, {}, 0.0)

    monkeypatch.setattr(calibration, "calibrate", calibrate)
    outcome = registry.search_dial("alone")
    assert seen["shapes"] == ("a", "b") and seen["panel"] is True
    # A revision-3 declaration is searched against the whole lexical panel its gate applies.
    assert seen["whole"] is (registry.revision_of(module) >= 3)
    assert outcome.dial_by_shape == {"a": 0.3, "b": 0.6, "fixed": 0.5}
