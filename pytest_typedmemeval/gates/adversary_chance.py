"""Chance for the adversary gate (:mod:`.adversaries`): the same figure under uniformly random
rankings of the same haystacks, so a small shape's bound is judged against what a coin gives."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from .adversary_haystacks import K

NULL_DRAWS = 2000
"""Rankings drawn per p-value (a p-value resolves to 1 / 2001)."""
NULL_CONSTANT = "typedmemeval-adversaries-null-v1"


def null_draws(questions: Sequence[tuple[tuple[str, ...], frozenset[int]]], *, key: str
               ) -> dict[str, Any]:
    """The mean gold@1, AUC and coverage@K of these questions under :data:`NULL_DRAWS` rankings
    that know nothing (one array per figure): every *haystack* (its session keys) is re-ranked
    uniformly at random, and each question's figure read off its haystack's ranking with its own
    gold.

    One ranking per haystack, not per question: a question-blind ranker gives the two arms of a
    pair (one haystack, two questions) the same ranking, so they are one observation when their
    gold is the same and dependent when it is not (Prospective's six expiring-validity pairs are six
    observations, not twelve). Exact for any mix of gold counts and haystack sizes, which normal
    approximations are not at four questions. Seeded by ``key`` and :data:`NULL_CONSTANT`."""
    import numpy as np

    digest = hashlib.sha256(f"{NULL_CONSTANT}\x1f{key}".encode()).digest()
    rng = np.random.default_rng(int.from_bytes(digest[:8], "big"))
    g1 = np.zeros(NULL_DRAWS)
    au = np.zeros(NULL_DRAWS)
    cov = np.zeros(NULL_DRAWS)
    rankings: dict[tuple[str, ...], Any] = {}
    for keys, gold in questions:
        n = len(keys)
        if keys not in rankings:
            rankings[keys] = rng.random((NULL_DRAWS, n)).argsort(axis=1).argsort(axis=1)
        ranks = rankings[keys][:, sorted(gold)]
        g = len(gold)
        g1 += (ranks.min(axis=1) == 0)
        cov += (ranks < min(K, n)).sum(axis=1) / g
        # AUC of gold ranked at r among n: fillers ranked below it, over g * (n - g) pairs
        below = (n - 1 - ranks).sum(axis=1) - g * (g - 1) / 2
        au += below / (g * (n - g))
    m = len(questions)
    return {"gold_at_1": g1 / m, "auc": au / m, "coverage_at_5": cov / m}


def p_value(draws: Any, observed: float) -> float:
    """One-sided: (1 + draws at or above ``observed``) / (1 + draws)."""
    return float((1 + int((draws >= observed - 1e-9).sum())) / (1 + len(draws)))
