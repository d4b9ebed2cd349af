"""Wilson score intervals: honest at the small n of diagnostic cells (5-20 questions)."""

from __future__ import annotations

import math

Z_95 = 1.959963984540054


def wilson_limits(successes: float, n: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score limits, unrounded, for computations built on them (Newcombe's intervals);
    the whole of [0, 1] when n is 0."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def wilson_interval(successes: int, n: int, z: float = Z_95) -> tuple[float, float] | None:
    """95% Wilson interval for ``successes / n``, as reported (6 decimals); ``None`` when n is 0
    (no rate, not a zero rate)."""
    if n <= 0:
        return None
    low, high = wilson_limits(successes, n, z)
    return (round(low, 6), round(high, 6))
