"""The retriever panel of the calibration ceiling (VERTICALS.md Appendix C, revising §4.9).

From the v2 corpora on, the 0.90 saturation ceiling applies to the *maximum* per-shape mean coverage
over a panel of retrievers, so a corpus cannot be tuned to one implementation's quirks:

- ``bm25okapi``: ``rank_bm25.BM25Okapi``, the reference retriever (:mod:`.bm25`; its coverage is
  the sidecar's ``coverage_by_question``);
- ``bm25plus`` and ``bm25l``: ``rank_bm25.BM25Plus`` and ``BM25L`` with rank_bm25's default
  parameters (k1 = 1.5, b = 0.75, delta = 1 and 0.5);
- ``lucene``: Lucene-style BM25, idf = ln(1 + (N - df + 0.5) / (df + 0.5)), k1 = 1.2, b = 0.75
  (Lucene's always-positive idf, where Okapi's goes negative for terms in over half the sessions);
- ``dense-minilm``: all-MiniLM-L6-v2 cosine similarity (:mod:`.dense`), only with the optional
  ``[dense]`` extra.

Every lexical retriever sees exactly what the reference sees: one index per question haystack, a
document is a session's turns joined (:func:`.bm25.session_document`), the query is the question
text, tokens from :func:`.tokenizer.tokenize` (same stopwords), an empty document indexed as one
empty token, and ties broken by session order. numpy and rank_bm25 are imported inside the calls,
never when this module loads (the plugin's import path stays cheap).

A retriever is anything with a ``name``, a ``kind`` (``"lexical"`` or ``"dense"``), ``describe()``
(what to stamp) and ``rankings(haystacks)``: one ranking per ``(documents, query)`` pair, so a
dense retriever can embed a whole corpus in one batched pass.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from .bm25 import K_REF, realised_coverage, session_document
from .dense import NAME as DENSE_NAME
from .tokenizer import tokenize

if TYPE_CHECKING:
    import numpy as np

    from ..corpus.models import QuestionRecord

Haystack = tuple[Sequence[str], str]
"""One question's session documents and its query text."""

LUCENE_K1 = 1.2
LUCENE_B = 0.75


@runtime_checkable
class Retriever(Protocol):
    """What the panel needs from a retriever (lexical or dense)."""

    name: str
    kind: str

    def describe(self) -> dict[str, Any]:
        """Name, implementation and parameters (stamped in sidecars, printed in reports)."""
        ...

    def rankings(self, haystacks: Sequence[Haystack]) -> list[list[int]]:
        """For each ``(documents, query)``: document indices by descending relevance, ties by
        session order."""
        ...


Scorer = Callable[[list[list[str]], list[str]], "np.ndarray | Sequence[float]"]


def _rank_bm25(class_name: str) -> Scorer:
    def score(corpus: list[list[str]], query: list[str]) -> Any:
        import rank_bm25  # type: ignore[import-untyped]

        return getattr(rank_bm25, class_name)(corpus).get_scores(query)

    return score


def lucene_scores(corpus: list[list[str]], query: list[str], k1: float = LUCENE_K1,
                  b: float = LUCENE_B) -> np.ndarray:
    """Lucene-style BM25 over tokenised documents (query terms counted with multiplicity, as
    rank_bm25 does): idf = ln(1 + (N - df + 0.5)/(df + 0.5)), tf saturation with k1 and length
    normalisation with b against the mean document length."""
    import numpy as np

    n_docs = len(corpus)
    scores = np.zeros(n_docs)
    if not n_docs:
        return scores
    counts = [Counter(doc) for doc in corpus]
    lengths = np.array([len(doc) for doc in corpus], dtype=float)
    norm = k1 * (1.0 - b + b * lengths / lengths.mean())
    for term in query:
        tf = np.array([count.get(term, 0) for count in counts], dtype=float)
        df = int(np.count_nonzero(tf))
        if df == 0:
            continue
        idf = math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))
        scores += idf * tf * (k1 + 1.0) / (tf + norm)
    return scores


@dataclass(frozen=True)
class LexicalRetriever:
    """A bag-of-words scorer over the reference tokenizer, ranked like the reference."""

    name: str
    scorer: Scorer
    implementation: str
    params: Mapping[str, float] = field(default_factory=dict)
    kind: str = "lexical"

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "implementation": self.implementation,
                "params": dict(self.params)}

    def rank(self, documents: Sequence[str], query: str) -> list[int]:
        if not documents:
            return []
        corpus = [tokenize(document) or [""] for document in documents]
        scores = self.scorer(corpus, tokenize(query))
        return sorted(range(len(documents)), key=lambda index: (-float(scores[index]), index))

    def rankings(self, haystacks: Sequence[Haystack]) -> list[list[int]]:
        return [self.rank(documents, query) for documents, query in haystacks]


BM25_OKAPI = LexicalRetriever("bm25okapi", _rank_bm25("BM25Okapi"), "rank_bm25.BM25Okapi",
                              {"k1": 1.5, "b": 0.75, "epsilon": 0.25})
BM25_PLUS = LexicalRetriever("bm25plus", _rank_bm25("BM25Plus"), "rank_bm25.BM25Plus",
                             {"k1": 1.5, "b": 0.75, "delta": 1.0})
BM25_L = LexicalRetriever("bm25l", _rank_bm25("BM25L"), "rank_bm25.BM25L",
                          {"k1": 1.5, "b": 0.75, "delta": 0.5})
LUCENE = LexicalRetriever("lucene", lucene_scores, "numpy, Lucene-style idf ln(1+(N-df+0.5)/(df+0.5))",
                          {"k1": LUCENE_K1, "b": LUCENE_B})

REFERENCE = BM25_OKAPI.name
LEXICAL_PANEL: tuple[LexicalRetriever, ...] = (BM25_OKAPI, BM25_PLUS, BM25_L, LUCENE)
PANEL_NAMES: tuple[str, ...] = (*(r.name for r in LEXICAL_PANEL), DENSE_NAME)


def dense_retriever() -> Retriever | None:
    """The dense arm when the ``[dense]`` extra is installed, else ``None`` (nothing imported)."""
    from . import dense

    return dense.DenseRetriever() if dense.available() else None


def haystack(record: QuestionRecord) -> Haystack:
    """What every retriever ranks for ``record``: its session documents and its question."""
    return ([session_document([turn.content for turn in session])
             for session in record.haystack_sessions], record.question)


def coverage_by_question(records: Sequence[QuestionRecord], retriever: Retriever,
                         k: int = K_REF) -> dict[str, float | None]:
    """Realised coverage at ``k`` of every question under ``retriever`` (``None`` without gold;
    gold-less questions are not ranked at all)."""
    with_gold = [record for record in records if record.gold_session_indices]
    ranked = retriever.rankings([haystack(record) for record in with_gold])
    out: dict[str, float | None] = {record.question_id: None for record in records}
    for record, ranking in zip(with_gold, ranked):
        out[record.question_id] = realised_coverage(record.gold_session_indices, ranking[:k])
    return out


def mean_by_shape(records: Sequence[QuestionRecord],
                  coverage: Mapping[str, float | None]) -> dict[str, float | None]:
    """Per-shape mean over questions with a coverage figure (``None`` for a gold-less shape)."""
    values: dict[str, list[float]] = {}
    for record in records:
        values.setdefault(record.shape, [])
        value = coverage.get(record.question_id)
        if value is not None:
            values[record.shape].append(value)
    return {shape: (sum(items) / len(items) if items else None)
            for shape, items in sorted(values.items())}


__all__ = ["BM25_L", "BM25_OKAPI", "BM25_PLUS", "DENSE_NAME", "Haystack", "LEXICAL_PANEL", "LUCENE",
           "LexicalRetriever", "PANEL_NAMES", "REFERENCE", "Retriever", "coverage_by_question",
           "dense_retriever", "haystack", "lucene_scores", "mean_by_shape"]
