"""The BM25 reference retriever (GATES.md §3) on ``rank_bm25.BM25Okapi``.

One index per question haystack; a document is a session's turns joined with newlines; the query is
the question text. Ties are broken by session order, so the ranking is a pure function of the bytes.
``rank_bm25`` (and through it numpy) is imported here only, never when the plugin loads.
"""

from __future__ import annotations

from collections.abc import Sequence

from .tokenizer import tokenize

K_REF = 5
"""Reference retrieval budget in sessions, the same for every vertical (VERTICALS.md §0)."""


def session_document(turn_texts: Sequence[str]) -> str:
    return "\n".join(turn_texts)


def rank_sessions(documents: Sequence[str], query: str) -> list[int]:
    """Indices of ``documents`` by descending BM25 score; equal scores keep session order."""
    from rank_bm25 import BM25Okapi  # type: ignore[import-untyped]

    if not documents:
        return []
    corpus = [tokenize(document) or [""] for document in documents]
    scores = BM25Okapi(corpus).get_scores(tokenize(query))
    return sorted(range(len(documents)), key=lambda index: (-float(scores[index]), index))


def top_k(documents: Sequence[str], query: str, k: int = K_REF) -> list[int]:
    return rank_sessions(documents, query)[:k]


def realised_coverage(gold: Sequence[int], retrieved: Sequence[int]) -> float | None:
    """|gold ∩ retrieved| / G, or ``None`` for a question without gold (never a vacuous 1.0)."""
    gold_set = set(gold)
    if not gold_set:
        return None
    return len(gold_set.intersection(retrieved)) / len(gold_set)
