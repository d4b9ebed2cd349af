"""The separability gate's statistics, exact and small: the pooled within-question AUC, perfect
separation and its chance probability, the distribution rule's z and one-sided p, and the Holm
step-down family the p-values are adjusted in (:mod:`.separability` holds the rules that use them).

A module of their own because they are the reference the gate's vectorised scoring
(:mod:`.separability_scoring`) is tested against, and are tested against brute force in turn:
pure Python, no numpy, no corpus.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import comb, erfc, sqrt
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .separability_scoring import FeatureScore


def pooled_auc(questions: Iterable[tuple[Sequence[float], Sequence[float]]]) -> float:
    """Folded pooled within-question AUC over ``(gold values, distractor values)`` per question.

    Every (g, d) pair of one question scores 1 if g > d, 0.5 if equal, 0 if less; sums and pair
    counts are pooled over questions and the direction is folded once, at the end. Questions with
    no gold or no distractors contribute nothing. 0.5 when there are no pairs at all.
    """
    score = Fraction(0)
    pairs = 0
    for gold, distractors in questions:
        for g in gold:
            for d in distractors:
                score += 1 if g > d else (Fraction(1, 2) if g == d else 0)
        pairs += len(gold) * len(distractors)
    if pairs == 0:
        return 0.5
    raw = score / pairs
    return float(max(raw, 1 - raw))


def separates_perfectly(gold: Sequence[float], distractors: Sequence[float]) -> bool:
    """Every (g, d) pair points the same strict way (folded per-question AUC = 1)."""
    if not gold or not distractors:
        return False
    return min(gold) > max(distractors) or max(gold) < min(distractors)


def perfect_separation_probability(values: Sequence[float], gold: int) -> Fraction:
    """Exact chance that a random assignment of ``gold`` of these values to gold separates strictly.

    Under no signal the gold set is a uniformly random ``gold``-subset of the sessions. It sits
    strictly above the rest only if it is the top ``gold`` values and the gold-th largest value
    beats the next one; then exactly one subset of C(n, gold) does it, else none. Likewise below.
    The two events are disjoint, so p = (top + bottom) / C(n, gold): 2/C(n, g) for distinct
    values, 1/C or 2/C or 0 for a binary feature held by m sessions (GATES.md §2), and exact for
    any ties in between.
    """
    n = len(values)
    if not 0 < gold < n:
        return Fraction(0)
    ordered = sorted(values)
    ways = int(ordered[gold - 1] < ordered[gold]) + int(ordered[n - gold - 1] < ordered[n - gold])
    return Fraction(ways, comb(n, gold))


def distribution_z(perfect: int, probabilities: Sequence[float]) -> float:
    """z of the observed perfect count against its Poisson-binomial null (0 when V = 0)."""
    expected = sum(probabilities)
    variance = sum(p * (1 - p) for p in probabilities)
    return (perfect - expected) / sqrt(variance) if variance > 0 else 0.0


def one_sided_p(z: float) -> float:
    """Upper normal tail P(Z >= z) = erfc(z / sqrt 2) / 2 (the distribution rule's raw p)."""
    return 0.5 * erfc(z / sqrt(2.0))


def holm_adjust(pvalues: Sequence[float]) -> tuple[list[float], list[int]]:
    """Holm step-down adjusted p-values and 1-based ranks, in input order.

    Sorted ascending p_(1) <= ... <= p_(m), the adjusted value of p_(i) is
    max over j <= i of min(1, (m - j + 1) p_(j)); refusing where it is <= alpha is exactly Holm's
    step-down at family-wise level alpha. Ties keep input order for the rank (their adjusted values
    are equal anyway).
    """
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [1.0] * m
    ranks = [0] * m
    running = 0.0
    for position, index in enumerate(order):
        running = max(running, min(1.0, (m - position) * pvalues[index]))
        adjusted[index] = running
        ranks[index] = position + 1
    return adjusted, ranks


@dataclass(frozen=True)
class DistributionTest:
    """One feature's place in the corpus's Holm family (the distribution rule's inputs)."""

    p: float
    """One-sided normal tail of z; 1.0 for a feature not tested (V = 0)."""
    p_holm: float
    rank: int
    """1-based rank of p among the tested features; 0 when not tested."""
    tested: int
    """m: features tested in the corpus (V > 0), the size of the Holm family."""


@dataclass(frozen=True)
class DistributionFamily:
    """Holm step-down over the features tested in one corpus (V > 0: X can differ from E).

    Features with V = 0 cannot separate by anything but certainty (z := 0) and are left out of m.
    Declared exemptions stay in the family: they are tested, only their verdict is suppressed.
    """

    tests: dict[str, DistributionTest]
    tested: int
    _sorted: tuple[float, ...]

    @classmethod
    def of(cls, scores: Iterable[FeatureScore]) -> DistributionFamily:
        family = [score for score in scores if score.variance > 0]
        raw = [one_sided_p(score.z) for score in family]
        adjusted, ranks = holm_adjust(raw)
        tests = {score.feature: DistributionTest(p, a, r, len(family))
                 for score, p, a, r in zip(family, raw, adjusted, ranks)}
        return cls(tests, len(family), tuple(sorted(raw)))

    def test(self, score: FeatureScore) -> DistributionTest:
        """The feature's test; a rescored feature (a shape-scoped exemption) takes its original's
        place in the family, so m and the other features' p-values are unchanged."""
        known = self.tests.get(score.feature)
        if score.variance <= 0:
            return DistributionTest(1.0, 1.0, 0, self.tested)
        p = one_sided_p(score.z)
        if known is not None and known.p == p:
            return known
        others = list(self._sorted)
        if known is not None:
            del others[bisect.bisect_left(others, known.p)]
        position = bisect.bisect_right(others, p)
        ordered = others[:position] + [p] + others[position:]
        m = len(ordered)
        adjusted = max(min(1.0, (m - j) * ordered[j]) for j in range(position + 1))
        return DistributionTest(p, adjusted, position + 1, m)



__all__ = [
    "DistributionFamily",
    "DistributionTest",
    "distribution_z",
    "holm_adjust",
    "one_sided_p",
    "perfect_separation_probability",
    "pooled_auc",
    "separates_perfectly",
]
