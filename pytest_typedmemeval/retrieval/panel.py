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

**Appendix D members** (VERTICALS.md Appendix D, §4.9 row; GATES.md §7 last sentence): readers
that retrieve the way fact-extracting memories do. The ceiling applies to the maximum over the
whole panel from corpus revision 3 (:data:`WHOLE_PANEL_NAMES`); for revision 2 they are measured
and reported only (:data:`PANEL_NAMES` stays the revision-2 panel):

- ``bm25-english``: ``BM25Okapi`` over an English analyzer (:mod:`.analyzers`: Lucene's English
  stopword set, Snowball English stemming), query analysed the same way;
- ``bm25-sentence``: ``BM25Okapi`` whose documents are the *sentences* of every session of the
  haystack (:func:`.values.sentences`, reference tokens); a session scores its best sentence;
- ``bm25-valuefiltered``: ``BM25Okapi`` over the sessions after deleting every sentence that holds
  no value-like token (:func:`.values.keep_value_sentences`, the rule the adversaries share); the
  query is not filtered;
- ``hybrid-rrf``: reciprocal rank fusion, k = 60, of the reference ``BM25Okapi`` ranking and the
  dense ranking (:class:`HybridRRF`); only with a dense retriever, whose rankings it takes as they
  are (no second embedding pass).

The sentence and value filters work on a session document (its turns joined with newlines):
:func:`.values.sentences` splits at every line break, so the sentences of the document are the
sentences of its turns, in order, and filtering it line by line is filtering it turn by turn.

A retriever is anything with a ``name``, a ``kind`` (``"lexical"``, ``"dense"`` or ``"hybrid"``),
``describe()`` (what to stamp) and ``rankings(haystacks)``: one ranking per ``(documents, query)``
pair, so a dense retriever can embed a whole corpus in one batched pass.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from . import analyzers
from .bm25 import K_REF, realised_coverage, session_document
from .dense import NAME as DENSE_NAME
from .tokenizer import tokenize
from .values import keep_value_sentences, sentences

if TYPE_CHECKING:
    import numpy as np

Haystack = tuple[Sequence[str], str]
"""One question's session documents and its query text."""


class _Turn(Protocol):
    @property
    def content(self) -> str: ...


class RankedRecord(Protocol):
    """What the panel reads of a question record, structurally (``corpus.models.QuestionRecord``
    is one): retrieval sits below ``corpus/``, which tokenizes with it, so it names no corpus type."""

    @property
    def question_id(self) -> str: ...
    @property
    def question(self) -> str: ...
    @property
    def shape(self) -> str: ...
    @property
    def haystack_sessions(self) -> Sequence[Sequence[_Turn]]: ...
    @property
    def gold_session_indices(self) -> Sequence[int]: ...


LUCENE_K1 = 1.2
LUCENE_B = 0.75
RRF_K = 60
"""Reciprocal rank fusion's constant (Cormack, Clarke and Buettcher 2009): a document at 1-based
rank r in a ranking scores 1 / (RRF_K + r); the fused score is the sum over the rankings."""
HYBRID_NAME = "hybrid-rrf"


@runtime_checkable
class Retriever(Protocol):
    """What the panel needs from a retriever (lexical, dense or hybrid). ``name`` and ``kind`` are
    read-only, so a frozen dataclass or a class attribute satisfies them."""

    @property
    def name(self) -> str:
        """The panel member's name (a key of every per-shape row)."""
        ...

    @property
    def kind(self) -> str:
        """``"lexical"``, ``"dense"`` or ``"hybrid"``."""
        ...

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


def _by_score(scores: Sequence[float] | Any, count: int) -> list[int]:
    """Indices by descending score, ties by session order."""
    return sorted(range(count), key=lambda index: (-float(scores[index]), index))


def value_filtered(document: str) -> str:
    """``document`` with every sentence that holds no value-like token deleted, line by line
    (:func:`.values.keep_value_sentences`; a session document's lines are its turns)."""
    return "\n".join(keep_value_sentences(document.split("\n")))


@dataclass(frozen=True)
class LexicalRetriever:
    """A bag-of-words scorer over one session document each, ranked like the reference.

    ``analyzer`` turns text into tokens (the reference tokenizer unless said otherwise; documents
    and query alike); ``document_filter``, when given, rewrites each document before it is
    analysed (never the query)."""

    name: str
    scorer: Scorer
    implementation: str
    params: Mapping[str, float] = field(default_factory=dict)
    kind: str = "lexical"
    analyzer: Callable[[str], list[str]] = tokenize
    document_filter: Callable[[str], str] | None = None
    notes: Mapping[str, Any] = field(default_factory=dict)
    """Extra identity for ``describe()`` (analyzer, filter); empty for the revision-2 members."""

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "implementation": self.implementation,
                "params": dict(self.params), **dict(self.notes)}

    def rank(self, documents: Sequence[str], query: str) -> list[int]:
        if not documents:
            return []
        texts = documents if self.document_filter is None else [
            self.document_filter(document) for document in documents]
        corpus = [self.analyzer(text) or [""] for text in texts]
        scores = self.scorer(corpus, self.analyzer(query))
        return _by_score(scores, len(documents))

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

_OKAPI_PARAMS = {"k1": 1.5, "b": 0.75, "epsilon": 0.25}


@dataclass(frozen=True)
class SentenceRetriever:
    """Sentence-level ``BM25Okapi``: one index per haystack over the sentences of all its sessions
    (:func:`.values.sentences`, reference tokens; a session without a sentence is indexed as one
    empty sentence, as an empty session is by the reference); a session's score is its best
    sentence's score; ties by session order."""

    name: str = "bm25-sentence"
    kind: str = "lexical"

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind,
                "implementation": "rank_bm25.BM25Okapi over sentences; session score = max over "
                                  "its sentences", "params": dict(_OKAPI_PARAMS),
                "unit": "sentence (values.sentences of each turn)", "analyzer": "reference"}

    def rank(self, documents: Sequence[str], query: str) -> list[int]:
        from rank_bm25 import BM25Okapi  # type: ignore[import-untyped,unused-ignore]

        if not documents:
            return []
        owners: list[int] = []
        corpus: list[list[str]] = []
        for index, document in enumerate(documents):
            for sentence in sentences(document) or [""]:
                owners.append(index)
                corpus.append(tokenize(sentence) or [""])
        scores = BM25Okapi(corpus).get_scores(tokenize(query))
        best = [-math.inf] * len(documents)
        for owner, score in zip(owners, scores):
            if float(score) > best[owner]:
                best[owner] = float(score)
        return _by_score(best, len(documents))

    def rankings(self, haystacks: Sequence[Haystack]) -> list[list[int]]:
        return [self.rank(documents, query) for documents, query in haystacks]


def rrf_fuse(rankings: Sequence[Sequence[int]], k: int = RRF_K) -> list[int]:
    """Reciprocal rank fusion of rankings of the same documents: each document scores the sum of
    1 / (k + r) over the rankings, r its 1-based rank there (a ranking that lacks it adds nothing);
    exact fractions, so equal sums tie exactly; ties by session (document) order."""
    scores: dict[int, Fraction] = {}
    for ranking in rankings:
        for position, document in enumerate(ranking):
            scores[document] = scores.get(document, Fraction(0)) + Fraction(1, k + position + 1)
    return sorted(scores, key=lambda document: (-scores[document], document))


class HybridRRF:
    """Reciprocal rank fusion (k = :data:`RRF_K`) of the reference ``BM25Okapi`` ranking and a dense
    retriever's ranking.

    It never embeds anything itself: :meth:`fuse` takes dense rankings already computed (the
    calibration gate and the generator's stamp rank with the dense arm once and hand the same
    rankings to both arms), and :meth:`rankings` asks the dense retriever it wraps, whose per-text
    embedding cache (:meth:`.dense.DenseRetriever.embed`, then the on-disk cache) makes a second call
    on the same texts free of encoding."""

    name = HYBRID_NAME
    kind = "hybrid"

    def __init__(self, dense: Retriever, lexical: LexicalRetriever | None = None,
                 k: int = RRF_K) -> None:
        self.dense = dense
        self.lexical = lexical or BM25_OKAPI
        self.k = k

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind,
                "implementation": "reciprocal rank fusion: score = sum of 1/(k + rank), rank "
                                  "1-based, exact fractions, ties by session order",
                "params": {"k": self.k}, "lexical": self.lexical.name,
                "dense": self.dense.describe()}

    def fuse(self, lexical_rankings: Sequence[Sequence[int]],
             dense_rankings: Sequence[Sequence[int]]) -> list[list[int]]:
        if len(lexical_rankings) != len(dense_rankings):
            raise ValueError(f"{len(lexical_rankings)} lexical rankings against "
                             f"{len(dense_rankings)} dense ones")
        return [rrf_fuse((lexical, dense), self.k)
                for lexical, dense in zip(lexical_rankings, dense_rankings)]

    def rankings(self, haystacks: Sequence[Haystack], *,
                 dense_rankings: Sequence[Sequence[int]] | None = None) -> list[list[int]]:
        dense = dense_rankings if dense_rankings is not None else self.dense.rankings(haystacks)
        return self.fuse(self.lexical.rankings(haystacks), dense)


BM25_ENGLISH = LexicalRetriever(
    "bm25-english", _rank_bm25("BM25Okapi"), "rank_bm25.BM25Okapi, English analyzer",
    dict(_OKAPI_PARAMS), analyzer=analyzers.english_tokens,
    notes={"analyzer": analyzers.describe()})
BM25_SENTENCE = SentenceRetriever()
BM25_VALUEFILTERED = LexicalRetriever(
    "bm25-valuefiltered", _rank_bm25("BM25Okapi"),
    "rank_bm25.BM25Okapi over value sentences only", dict(_OKAPI_PARAMS),
    document_filter=value_filtered,
    notes={"analyzer": "reference", "filter": "values.keep_value_sentences on each turn (every "
           "sentence without a value-like token deleted; the query is not filtered)"})

REFERENCE = BM25_OKAPI.name
LEXICAL_PANEL: tuple[LexicalRetriever, ...] = (BM25_OKAPI, BM25_PLUS, BM25_L, LUCENE)
"""The revision-2 lexical arms (VERTICALS.md Appendix C); the generators' authoring search uses
these (:func:`..generate.calibration.panel_max_coverage`)."""
PANEL_NAMES: tuple[str, ...] = (*(r.name for r in LEXICAL_PANEL), DENSE_NAME)
"""The revision-2 panel (VERTICALS.md Appendix C), in panel order."""
APPENDIX_D_LEXICAL: tuple[Retriever, ...] = (BM25_ENGLISH, BM25_SENTENCE, BM25_VALUEFILTERED)
"""The lexical arms Appendix D adds."""
WHOLE_LEXICAL_PANEL: tuple[Retriever, ...] = (*LEXICAL_PANEL, *APPENDIX_D_LEXICAL)
WHOLE_PANEL_NAMES: tuple[str, ...] = (*(r.name for r in WHOLE_LEXICAL_PANEL), DENSE_NAME,
                                      HYBRID_NAME)
"""The whole panel (VERTICALS.md Appendix D), in panel order: the revision-2 members first, so a
tie for the maximum names the same retriever under either rule."""


def dense_retriever() -> Retriever | None:
    """The dense arm when the ``[dense]`` extra is installed, else ``None`` (nothing imported)."""
    from . import dense

    return dense.DenseRetriever() if dense.available() else None


def hybrid_retriever(dense: Retriever | None = None) -> HybridRRF | None:
    """The hybrid arm over ``dense`` (or over :func:`dense_retriever`), ``None`` without one:
    hybrid is *not measured* exactly when dense is."""
    dense = dense if dense is not None else dense_retriever()
    return HybridRRF(dense) if dense is not None else None


def haystack(record: RankedRecord) -> Haystack:
    """What every retriever ranks for ``record``: its session documents and its question."""
    return ([session_document([turn.content for turn in session])
             for session in record.haystack_sessions], record.question)


def question_rankings(records: Sequence[RankedRecord],
                      retriever: Retriever) -> dict[str, list[int]]:
    """``retriever``'s ranking of every question with gold, by question id, in one
    ``rankings`` call (gold-less questions are not ranked at all)."""
    with_gold = [record for record in records if record.gold_session_indices]
    ranked = retriever.rankings([haystack(record) for record in with_gold])
    return {record.question_id: list(ranking) for record, ranking in zip(with_gold, ranked)}


def coverage_from_rankings(records: Sequence[RankedRecord], rankings: Mapping[str, Sequence[int]],
                           k: int = K_REF) -> dict[str, float | None]:
    """Realised coverage at ``k`` of every question from its ranking (``None`` without gold)."""
    out: dict[str, float | None] = {record.question_id: None for record in records}
    for record in records:
        if record.gold_session_indices:
            out[record.question_id] = realised_coverage(
                record.gold_session_indices, list(rankings[record.question_id])[:k])
    return out


def coverage_by_question(records: Sequence[RankedRecord], retriever: Retriever,
                         k: int = K_REF) -> dict[str, float | None]:
    """Realised coverage at ``k`` of every question under ``retriever`` (``None`` without gold;
    gold-less questions are not ranked at all)."""
    return coverage_from_rankings(records, question_rankings(records, retriever), k)


def hybrid_coverage(records: Sequence[RankedRecord], hybrid: HybridRRF,
                    dense_rankings: Mapping[str, Sequence[int]],
                    k: int = K_REF) -> dict[str, float | None]:
    """The hybrid arm's coverage from dense rankings already computed (by question id, as
    :func:`question_rankings` gives them): the lexical side is ranked here, the dense side is
    taken as it is."""
    lexical = question_rankings(records, hybrid.lexical)
    order = list(lexical)
    fused = hybrid.fuse([lexical[qid] for qid in order], [dense_rankings[qid] for qid in order])
    return coverage_from_rankings(records, dict(zip(order, fused)), k)


def mean_by_shape(records: Sequence[RankedRecord],
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


__all__ = ["APPENDIX_D_LEXICAL", "BM25_ENGLISH", "BM25_L", "BM25_OKAPI", "BM25_PLUS",
           "BM25_SENTENCE", "BM25_VALUEFILTERED", "DENSE_NAME", "HYBRID_NAME", "Haystack",
           "HybridRRF", "LEXICAL_PANEL", "LUCENE", "LexicalRetriever", "PANEL_NAMES", "REFERENCE",
           "RRF_K", "RankedRecord", "Retriever", "SentenceRetriever", "WHOLE_LEXICAL_PANEL",
           "WHOLE_PANEL_NAMES", "coverage_by_question", "coverage_from_rankings",
           "dense_retriever", "haystack", "hybrid_coverage", "hybrid_retriever", "lucene_scores",
           "mean_by_shape", "question_rankings", "rrf_fuse", "value_filtered"]
