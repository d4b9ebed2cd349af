"""Deterministic sampling of a loaded dataset: ``sample=N, seed=S`` always picks the same questions.

A seeded :class:`random.Random` of its own (never the global random state) draws N positions; the
sample keeps file order, so items are collected in the same readable order on every run and every
xdist worker. The draw depends only on the seed and on the questions available after loading
(what loading excluded left out), which the metrics file records beside it.
"""

from __future__ import annotations

import random

from .models import LoadedDataset, SampleInfo


def sample_dataset(dataset: LoadedDataset, size: int | None, seed: int = 0) -> LoadedDataset:
    """``size`` questions drawn with ``seed``; ``None`` (or a size at least the number available)
    keeps every question."""
    available = len(dataset.questions)
    if size is None:
        return dataset.with_questions(dataset.questions, SampleInfo(available))
    if size < 1:
        raise ValueError(f"sample size must be at least 1, not {size}")
    if size >= available:
        return dataset.with_questions(dataset.questions, SampleInfo(available, available, seed))
    chosen = sorted(random.Random(seed).sample(range(available), size))
    return dataset.with_questions(tuple(dataset.questions[i] for i in chosen), SampleInfo(available, size, seed))
