"""LoCoMo's own answer metric, reproduced exactly (``--tme-dataset-scoring upstream``).

Every function here reproduces one of ``snap-research/locomo`` ``task_eval/evaluation.py`` (branch
``code``, commit 9228632), by its definition, so that a figure here equals the paper's scorer on the
same answer to 1e-9:

- :func:`normalize_answer` — upstream ``normalize_answer``: commas deleted, lowercased, ASCII
  ``string.punctuation`` removed (typographic quotes and dashes stay, as upstream), the words
  a/an/the/and replaced by a space with the ``regex`` module's ``\\b`` (as upstream imports it),
  whitespace collapsed;
- :func:`f1_score` — upstream ``f1_score``: every token stemmed by NLTK's ``PorterStemmer()`` in its
  default mode (``NLTK_EXTENSIONS``), then token-multiset F1 (``Swedens`` and ``Sweden`` stem alike);
- :func:`multi_hop_f1` — upstream ``f1``: prediction and gold split on commas, the mean (numpy)
  over gold parts of the best :func:`f1_score` of any prediction part;
- :func:`exact_match_score` — upstream ``exact_match_score``: equal token *sets* after
  :func:`normalize_answer`, unstemmed;
- :func:`adversarial_score` — upstream ``eval_question_answering``'s category-5 rule: 1 when the
  lowercased answer contains ``no information available`` or ``not mentioned``, else 0;
- :func:`locomo_upstream_score` — ``eval_question_answering``'s choice by category (2, 3, 4:
  ``f1_score``; 1: ``f1``; 5: the rule above). The gold is read as upstream reads it (``str`` of the
  answer; category 3 cut at the first ``;``), which the loader already did.

The stemmer is NLTK's, never a re-implementation: a hand-written Porter would drift from upstream on
exactly the inflections this mode exists to reproduce. NLTK is the optional extra ``upstream``
(``pip install 'pytest-typedmemeval[upstream]'``); it needs no data download (the Porter stemmer is
pure code). Without it :func:`require_upstream` raises :class:`UpstreamUnavailable` with that
one line. Nothing here is imported by the typed scorer, so a plain install never loads NLTK.
"""

from __future__ import annotations

import importlib.util
import string
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from .models import DatasetQuestion

ScoringMode = Literal["typed", "upstream", "both"]
SCORING_MODES: tuple[ScoringMode, ...] = ("upstream", "typed", "both")
DEFAULT_SCORING: ScoringMode = "both"
"""``--tme-dataset-scoring``: ``typed`` is TypedMemEval's reading (token F1 >= 0.5 after judge
normalisation, declines read on abstention probes); ``upstream`` the dataset's own token metric;
``both`` (default) prints them side by side and the typed reading decides pass/fail. Without the
``upstream`` extra, the default ``both`` runs as ``typed`` with a one-line notice, and ``upstream``
is refused."""

UPSTREAM_EXTRA = "upstream"
INSTALL_HINT = f"pip install 'pytest-typedmemeval[{UPSTREAM_EXTRA}]'"
UPSTREAM_SOURCE = "snap-research/locomo task_eval/evaluation.py (branch code, 9228632)"
CATEGORY_5_PHRASES = ("no information available", "not mentioned")
"""Upstream's category-5 rule: an answer containing either phrase (lowercased) scores 1."""

_PUNCTUATION = frozenset(string.punctuation)


class UpstreamUnavailable(RuntimeError):
    """Upstream scoring was asked for, and NLTK (the ``upstream`` extra) is not installed."""


def upstream_available() -> bool:
    """NLTK and ``regex`` (what upstream's scorer imports) are importable."""
    return all(importlib.util.find_spec(name) is not None for name in ("nltk", "regex"))


def require_upstream() -> None:
    """Raise :class:`UpstreamUnavailable` (one line: what to install) unless upstream scoring can run."""
    if not upstream_available():
        raise UpstreamUnavailable(
            "--tme-dataset-scoring upstream reproduces LoCoMo's scorer, which stems with NLTK's "
            f"PorterStemmer: install the extra ({INSTALL_HINT})")


@lru_cache(maxsize=1)
def _stemmer() -> Callable[[str], str]:
    require_upstream()
    from nltk.stem.porter import PorterStemmer

    stem: Callable[[str], str] = PorterStemmer().stem  # default mode NLTK_EXTENSIONS, as upstream
    return stem


@lru_cache(maxsize=1)
def _dropped_words() -> Any:
    require_upstream()
    import regex

    return regex.compile(r"\b(a|an|the|and)\b")


def upstream_versions() -> dict[str, str]:
    """The versions of what decides an upstream score (for the metrics file's scorer entry)."""
    from importlib.metadata import version

    return {"nltk": version("nltk"), "regex": version("regex")}


def normalize_answer(text: str) -> str:
    """Upstream ``normalize_answer``, step for step (see the module docstring)."""
    text = text.replace(",", "")
    text = text.lower()
    text = "".join(ch for ch in text if ch not in _PUNCTUATION)
    text = _dropped_words().sub(" ", text)
    return " ".join(text.split())


def f1_score(prediction: str, ground_truth: str) -> float:
    """Upstream ``f1_score``: Porter-stemmed token-multiset F1 of the normalised texts."""
    stem = _stemmer()
    predicted = [stem(w) for w in normalize_answer(prediction).split()]
    expected = [stem(w) for w in normalize_answer(ground_truth).split()]
    same = sum((Counter(predicted) & Counter(expected)).values())
    if same == 0:
        return 0.0
    precision = 1.0 * same / len(predicted)
    recall = 1.0 * same / len(expected)
    return (2 * precision * recall) / (precision + recall)


def multi_hop_f1(prediction: str, ground_truth: str) -> float:
    """Upstream ``f1``: comma-split parts; numpy's mean over gold parts of the best part F1."""
    import numpy as np

    predictions = [p.strip() for p in prediction.split(",")]
    golds = [g.strip() for g in ground_truth.split(",")]
    return float(np.mean([max(f1_score(p, g) for p in predictions) for g in golds]))


def exact_match_score(prediction: str, ground_truth: str) -> bool:
    """Upstream ``exact_match_score``: equal token sets after :func:`normalize_answer`."""
    return set(normalize_answer(prediction).split()) == set(normalize_answer(ground_truth).split())


def adversarial_score(prediction: str) -> float:
    """Upstream's category-5 rule (no F1: the adversarial answer is not compared)."""
    lowered = prediction.lower()
    return 1.0 if any(phrase in lowered for phrase in CATEGORY_5_PHRASES) else 0.0


@dataclass(frozen=True)
class UpstreamScore:
    """One answer under the dataset's own metric: ``score`` is what upstream averages (F1, or 0/1
    for category 5); ``exact_match`` upstream's token-set EM (``None`` for category 5)."""

    score: float
    exact_match: bool | None


def locomo_upstream_score(question: DatasetQuestion, answer: str) -> UpstreamScore:
    """The score upstream's ``eval_question_answering`` gives ``answer`` to ``question``."""
    category = question.upstream_category
    if category == 5:
        return UpstreamScore(adversarial_score(answer), None)
    if category not in (1, 2, 3, 4) or not question.gold_answers:
        raise ValueError(f"{question.question_id}: no LoCoMo category 1..5 with a gold answer to score against")
    gold = question.gold_answers[0]
    score = multi_hop_f1(answer, gold) if category == 1 else f1_score(answer, gold)
    return UpstreamScore(score, exact_match_score(answer, gold))


def upstream_score(question: DatasetQuestion, answer: str, metric: str | None) -> UpstreamScore | None:
    """``answer`` under the named upstream metric, or ``None`` when the dataset has none."""
    if metric is None:
        return None
    if metric == "locomo":
        return locomo_upstream_score(question, answer)
    raise ValueError(f"unknown upstream answer metric {metric!r}")
