"""Each dataset's own retrieval metric, computed from the sessions the adapter reported.

The adapter reports sessions (``Evidence.retrieved``, else ``Evidence.context``) in the opaque ids
it was given; a question's upstream gold (:attr:`DatasetQuestion.upstream_evidence`) is a list of
(document, session) pairs. For each pair we keep the 1-based rank of its session in the reported
list (``None`` when absent), and compute:

- LoCoMo ``recall_acc`` — ``snap-research/locomo`` ``task_eval/evaluation.py``
  ``eval_question_answering``, session-level branch (a context of ``S<n>`` ids): the fraction of
  the question's evidence references whose session is in the retrieved context. No k: upstream
  scores the context as retrieved. The per-category figure is the mean over questions with
  evidence and an observed context (upstream's ``evaluation_stats.analyze_acc`` divides by every
  question of the category, counting a question without evidence as 0; we leave those out).
- LongMemEval ``recall_any@k``, ``recall_all@k``, ``ndcg_any@k`` for k = 5 and 10 —
  ``xiaowu0162/LongMemEval`` ``src/retrieval/eval_utils.py`` ``evaluate_retrieval``, ``ndcg`` and
  ``dcg`` (commit 9e0b455), over upstream's session-level labels from
  ``src/retrieval/run_retrieval.py`` ``process_item_flat_index``: a session is relevant when its
  haystack id contains ``answer`` and one of its *user* turns has ``has_answer``. A question with no
  relevant session (single-session-assistant: its answer is in an assistant turn) scores
  recall_any 0, recall_all 1, NDCG 0 — as upstream computes it. ``dcg`` gives rank 1 weight 1 and
  rank r >= 2 weight 1/log2(r); the ideal DCG puts every relevant session first. Abstention
  questions are left out, as upstream's ``print_retrieval_metrics.py`` leaves them out.

These are separate from the session-level provenance figure (:mod:`.provenance`, "an evidence
session within k" over the file's own evidence sessions), which stays under its own name.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Literal

from .models import DatasetQuestion

Ranks = tuple[tuple[int, int | None], ...]
"""(document, 1-based rank of its session in the reported list or ``None``), one per gold pair."""
RetrievalStatus = Literal["observed", "unobserved", "not_applicable"]

LONGMEMEVAL_KS: tuple[int, ...] = (5, 10)
"""The k of LongMemEval's published retrieval tables."""


def observe_upstream_ranks(question: DatasetQuestion, ranked: Sequence[str] | None) -> tuple[RetrievalStatus, Ranks]:
    """Ranks of the question's upstream gold pairs in ``ranked`` (distinct known session ids in
    the adapter's order; ``None`` when the adapter reported neither list)."""
    if question.upstream_evidence is None:
        return "not_applicable", ()
    if ranked is None:
        return "unobserved", ()
    position = {sid: rank for rank, sid in enumerate(ranked, start=1)}
    return "observed", tuple((doc, position.get(sid)) for doc, sid in question.upstream_evidence)


def locomo_recall_acc(ranks: Ranks) -> float:
    """The fraction of evidence references whose session was retrieved (any rank)."""
    if not ranks:
        raise ValueError("recall_acc needs at least one evidence reference")
    return sum(rank is not None for _, rank in ranks) / len(ranks)


def _discount(rank: int) -> float:
    """Upstream ``dcg``'s weight of a relevant item at 1-based ``rank``."""
    return 1.0 if rank == 1 else 1.0 / math.log2(rank)


def longmemeval_at(ranks: Ranks, k: int) -> tuple[float, float, float]:
    """Upstream ``evaluate_retrieval(rankings, correct_docs, corpus_ids, k)``:
    (recall_any, recall_all, ndcg_any)."""
    docs = {doc for doc, _ in ranks}
    recalled = {doc for doc, rank in ranks if rank is not None and rank <= k}
    recall_any = float(any(doc in recalled for doc in docs))
    recall_all = float(all(doc in recalled for doc in docs))
    ideal = sum(_discount(r) for r in range(1, min(len(ranks), k) + 1))
    actual = sum(_discount(rank) for _, rank in ranks if rank is not None and rank <= k)
    return recall_any, recall_all, (actual / ideal if ideal else 0.0)


def retrieval_figures(metric: str | None, ranks: Ranks) -> dict[str, float]:
    """One question's figures under ``metric`` (the spec's ``retrieval_metric``)."""
    if metric is None:
        return {}
    if metric == "locomo_recall_acc":
        return {"recall_acc": locomo_recall_acc(ranks)}
    if metric == "longmemeval":
        out: dict[str, float] = {}
        for k in LONGMEMEVAL_KS:
            recall_any, recall_all, ndcg_any = longmemeval_at(ranks, k)
            out |= {f"recall_any@{k}": recall_any, f"recall_all@{k}": recall_all, f"ndcg_any@{k}": ndcg_any}
        return out
    raise ValueError(f"unknown retrieval metric {metric!r}")


def mean_figures(rows: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """The per-name mean over questions (rounded so a re-run writes the same bytes)."""
    if not rows:
        return {}
    return {name: round(sum(row[name] for row in rows) / len(rows), 4) for name in rows[0]}
