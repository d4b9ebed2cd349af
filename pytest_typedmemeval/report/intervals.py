"""Wilson score intervals: honest at the small n of diagnostic cells (5-20 questions)."""

from __future__ import annotations

import math

Z_95 = 1.959963984540054


def wilson_interval(successes: int, n: int, z: float = Z_95) -> tuple[float, float] | None:
    """95% Wilson interval for ``successes / n``; ``None`` when n is 0 (no rate, not a zero rate)."""
    if n <= 0:
        return None
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return (round(max(0.0, centre - half), 6), round(min(1.0, centre + half), 6))
