"""The authoring-time calibration search: sweep the dial (topical competition), then bisect inside the bracket.

GATES.md §3 and VERTICALS.md §4.9-§4.10. Coverage (the share of a question's gold sessions in the
reference BM25 top K_ref = 5, exactly as :func:`..gates.calibration.question_coverage` computes it
from the bytes) is a cheap structural proxy, so the search optimises it per shape:

1. **Sweep** the whole knob range on a coarse grid. Coverage against the dial is not monotone, so the
   sweep is what finds *where* the curve crosses the target; any saturation judgement looks at the
   whole sweep, never at one point.
2. **Bisect** inside the bracket the sweep found (two adjacent grid points on opposite sides of the
   target), which recovers crossings thinner than the grid. Bisection never runs alone.
3. **Choose** the evaluated point closest to the target among those at or below the 0.90 ceiling.

Shapes are searched one after another, each fixing its knob before the next moves (a vertical mean
can hide one collapsed shape). Rebuilding a corpus never calls this module: it reads the recorded
dial (§4.11), so editing the search cannot quietly change a shipped corpus.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..corpus.models import QuestionRecord
from ..gates.calibration import SATURATION_CEILING, question_coverage
from ..retrieval.bm25 import K_REF

TARGET = 0.70
"""VERTICALS.md §4.9: aim at 0.70 inside the 0.5-0.9 band."""
SWEEP_POINTS = 9
"""Coarse grid over [0, 1]: 0, 0.125, ..., 1."""
BISECTION_STEPS = 6
"""Halvings inside the bracket: resolves the knob to 1/512 of the range, far finer than coverage
moves (one question's half-coverage is 1/40 of a 20-question shape mean)."""
TOLERANCE = 0.0125
"""Stop bisecting once coverage is this close to the target (half a question's step at n = 20)."""

START_DIAL = 0.5
"""Knob value of the shapes not yet searched while an earlier shape is searched (shapes couple
weakly, e.g. through document length), so the search result depends on nothing else."""

Build = Callable[[Mapping[str, float]], Sequence[QuestionRecord]]
"""Builds the records of the shapes being searched for a given dial-by-shape map."""


def panel_max_coverage(records: Sequence[QuestionRecord], shape: str, *,
                       whole: bool = False) -> float | None:
    """The largest per-shape mean coverage over the lexical arms of the retriever panel.

    Revision 2 (VERTICALS.md Appendix C) puts the ceiling on the panel maximum, so the search must
    not pick a dial that only the reference BM25 finds hard; from revision 3 (Appendix D, ``whole``)
    the panel's lexical arms include the English-analyzer, sentence-level and value-filtered BM25,
    and the search measures all of them (a corpus is searched against exactly the arms its gate
    applies: a revision-2 search keeps the revision-2 arms). The dense and hybrid arms are left to
    the gate: encoding every candidate corpus would cost minutes per point on these machines."""
    from ..retrieval import panel

    chosen = [record for record in records if record.shape == shape]
    best: float | None = None
    for retriever in (panel.WHOLE_LEXICAL_PANEL if whole else panel.LEXICAL_PANEL):
        mean = panel.mean_by_shape(chosen, panel.coverage_by_question(chosen, retriever)).get(shape)
        if mean is not None and (best is None or mean > best):
            best = mean
    return best


def shape_coverage(records: Sequence[QuestionRecord], shape: str) -> float | None:
    """Mean realised coverage at K_ref over ``shape``'s questions with gold (None if none)."""
    values = [value for record in records if record.shape == shape
              for value in (question_coverage(record),) if value is not None]
    return sum(values) / len(values) if values else None


@dataclass
class ShapeSearch:
    """One shape's search: every evaluated point in order, and the choice."""

    shape: str
    points: list[tuple[float, float]] = field(default_factory=list)
    """(dial, coverage) in evaluation order: the sweep first, then the bisection."""
    panel_max: dict[float, float] = field(default_factory=dict)
    """Per evaluated dial, the lexical panel's maximum coverage (revision 2 only)."""
    bracket: tuple[float, float] | None = None
    dial: float = 0.0
    coverage: float = 0.0

    @property
    def iterations(self) -> int:
        return len(self.points)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "dial": self.dial, "coverage": round(self.coverage, 6), "iterations": self.iterations,
            "bracket": list(self.bracket) if self.bracket else None,
            "points": [[dial, round(cov, 6)] for dial, cov in self.points]}
        if self.panel_max:
            out["panel_max"] = [[dial, round(value, 6)] for dial, value in self.panel_max.items()]
        return out


@dataclass
class CalibrationResult:
    dial_by_shape: dict[str, float]
    searches: dict[str, ShapeSearch]
    seconds: float

    def record(self) -> dict[str, Any]:
        """The authoring record stamped into the sidecar (no wall-clock figures: it must rebuild)."""
        return {
            "method": f"sweep ({SWEEP_POINTS} points over [0, 1]) then bisection inside the bracket "
                      f"({BISECTION_STEPS} steps max, tolerance {TOLERANCE}), per shape in order",
            "target": TARGET, "ceiling": SATURATION_CEILING, "k_ref": K_REF,
            "iterations": sum(search.iterations for search in self.searches.values()),
            "by_shape": {shape: search.as_dict() for shape, search in self.searches.items()},
        }


def _grid() -> list[float]:
    return [index / (SWEEP_POINTS - 1) for index in range(SWEEP_POINTS)]


def choose(points: Sequence[tuple[float, float]], target: float = TARGET,
           ceiling: float = SATURATION_CEILING,
           panel_max: Mapping[float, float] | None = None) -> tuple[float, float]:
    """The evaluated (dial, coverage) closest to ``target`` among those at or below ``ceiling``
    (ties: the smaller dial, i.e. fewer competing mentions). Raises if every point is saturated.
    With ``panel_max`` a point is allowed only when the panel's maximum is under the ceiling too."""
    panel_max = panel_max or {}
    allowed = [(dial, coverage) for dial, coverage in points
               if coverage <= ceiling and panel_max.get(dial, coverage) <= ceiling]
    if not allowed:
        raise ValueError(f"every evaluated dial saturates (coverage > {ceiling}): the shape cannot "
                         "be calibrated by its dial; redesign its competition")
    # Rounded: two coverages that are the same fraction (25/36) summed in a different order differ
    # by ~1e-16, which must not defeat the tie rule.
    return min(allowed, key=lambda point: (round(abs(point[1] - target), 9), point[0]))


def search_shape(evaluate: Callable[[float], float | tuple[float, float]], shape: str, *,
                 target: float = TARGET, ceiling: float = SATURATION_CEILING) -> ShapeSearch:
    """Sweep then bisect one shape's knob; ``evaluate(dial)`` returns that shape's mean coverage,
    or (reference coverage, lexical panel maximum)."""
    search = ShapeSearch(shape)
    seen: dict[float, float] = {}

    def measure(dial: float) -> float:
        if dial not in seen:
            value = evaluate(dial)
            if isinstance(value, tuple):
                value, search.panel_max[dial] = value
            seen[dial] = value
            search.points.append((dial, seen[dial]))
        return seen[dial]

    sweep = [(dial, measure(dial)) for dial in _grid()]
    brackets = [(a, b) for (a, ca), (b, cb) in zip(sweep, sweep[1:])
                if (ca - target) * (cb - target) <= 0 and ca != cb]
    if brackets:
        # The first crossing from a low dial: the fewest competing mentions that reach the band.
        low, high = brackets[0]
        search.bracket = (low, high)
        low_above = seen[low] > target
        for _ in range(BISECTION_STEPS):
            middle = (low + high) / 2
            coverage = measure(middle)
            if abs(coverage - target) <= TOLERANCE:
                break
            if (coverage > target) == low_above:
                low = middle
            else:
                high = middle
    search.dial, search.coverage = choose(search.points, target, ceiling, search.panel_max)
    return search


def calibrate(build: Build, shapes: Sequence[str], start: Mapping[str, float], *,
              target: float = TARGET, panel: bool = False,
              whole_panel: bool = False) -> CalibrationResult:
    """Search each shape in order, fixing its knob before the next; ``start`` seeds the others.
    ``panel`` (revision 2) also measures the lexical panel's maximum at every point;
    ``whole_panel`` (revision 3) measures it over the whole lexical panel."""
    began = time.perf_counter()
    dial = dict(start)
    searches: dict[str, ShapeSearch] = {}
    for shape in shapes:
        def evaluate(value: float, shape: str = shape) -> float | tuple[float, float]:
            trial = {**dial, shape: value}
            records = build(trial)
            coverage = shape_coverage(records, shape)
            if coverage is None:
                raise ValueError(f"shape {shape!r} has no question with gold: nothing to calibrate")
            if panel:
                return coverage, panel_max_coverage(records, shape, whole=whole_panel) or coverage
            return coverage

        search = search_shape(evaluate, shape, target=target)
        dial[shape] = search.dial
        searches[shape] = search
    return CalibrationResult(dial, searches, time.perf_counter() - began)


__all__ = ["BISECTION_STEPS", "CalibrationResult", "START_DIAL", "ShapeSearch", "SWEEP_POINTS", "TARGET",
           "TOLERANCE", "calibrate", "choose", "panel_max_coverage", "search_shape", "shape_coverage"]
