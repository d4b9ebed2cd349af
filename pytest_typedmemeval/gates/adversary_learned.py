"""Adversary 1 of the gate (:mod:`.adversaries`): the learned, question-blind classifier.

**Recurrence (the learned adversary's dense block, added after the episodic-v3 red team).** The
other features read each session in isolation, so a corpus could pass while its haystacks were
built around the asked subject. A red team beat typedmemeval-episodic-v3, which passed this gate,
with within-haystack recurrence alone: the generator surrounded the asked subject with valued
competitors (the same "tent for the wild camping" recommended and declined, recommended for a
cousin...) while other subjects appeared once or twice, so question-blind "the session whose topic
recurs most in its haystack (and is the user's own, not declined)" was gold in 0.975 of
assistant-stated questions (random 0.05), and "place frequency x predicate frequency within the
haystack" in 0.644 of participant-attribution ones (random 0.063). So per (question, session)
*slot* (one session text can sit in several haystacks with different neighbours),
:func:`recurrence_rows` reads the session's content unigrams and bigrams (raw tokens minus the
reference stopwords and minus value-like tokens, so values never count) and, per gram, how many
OTHER sessions of the same haystack hold it, over n - 1: the max over its bigrams and over its
unigrams; whether it holds the haystack's most-recurring bigram (ties all 1); its bigram max as a
z-score within the haystack; the max and summed recurrence of the grams of its value-holding
sentences; the largest summed recurrence of one sentence; and the same in *excess* of the
corpus-wide share of sessions holding the gram (chat and framing recur in every haystack, a subject
the haystack was built around only in its own). Where two or more shapes are measured, the block
also enters once per shape (zero outside it), so the classifier can weigh it per shape: each
template's competitors recur in their own way. With it :data:`L2` went from 1e-4 to 1e-2: at 1e-4
the thousands of sparse weights memorised the training half and drowned the dense block out of
sample. On the beaten bytes (sha256 7ff37b84...) learned AUC went 0.586 -> 0.883 on
assistant-stated and 0.304 -> 0.714 on participant-attribution (gold@1 0.10 -> 0.45 and
0.00 -> 0.33): refused. The self-test injects the tell (:data:`RECURRENCE_DEFECT`) beside a clean
control where every subject of the haystack has the same cluster (:data:`RECURRENCE_CONTROL`); the
clean simulation itself was rebuilt so (it used to cluster two subjects, the asked one among them,
and give every other subject one session: the same tell, milder).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..retrieval.tokenizer import STOPWORDS, raw_tokens
from .adversary_haystacks import (
    SPLIT_CONSTANT, Haystack, question_groups, sentence_values, split_halves
)

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

INNER_SPLIT_CONSTANT = "typedmemeval-adversaries-inner-split-v1"
"""Seeds the split of a training half used to cross-fit its own value-membership features."""
CHAR_NGRAMS: tuple[int, ...] = (3, 4)
TRAIN_STEPS = 120
LEARNING_RATE = 0.1
L2 = 1e-2
"""Logistic regression: full-batch Adam, fixed steps, L2 on the (per-question balanced) mean loss.
Was 1e-4 until the recurrence features: so weak a penalty let the thousands of sparse weights
memorise the training half and drown the dense block out of sample."""

_CAPITALISED = re.compile(r"\b[A-Z][A-Za-z'\u2019-]*")
RECURRENCE_NAMES = ("recurrence_bigram_max", "recurrence_unigram_max", "recurrence_top_bigram",
                    "recurrence_bigram_z", "recurrence_value_bigram_max",
                    "recurrence_value_unigram_max", "recurrence_value_bigram_sum",
                    "recurrence_sentence_bigram_sum", "recurrence_sentence_unigram_sum",
                    "excess_bigram_max", "excess_value_bigram_sum",
                    "excess_sentence_unigram_sum", "excess_sentence_bigram_sum")
"""Haystack-relative recurrence features of a session slot (:func:`recurrence_rows`)."""
_DENSE_NAMES = ("log_turns", "log_chars", "relative_position", *RECURRENCE_NAMES,
                "value_share_only_gold", "value_share_only_filler", "value_share_both",
                "value_share_never", "no_values", "any_value_only_gold", "any_value_only_filler")


@dataclass
class _SessionFeatures:
    sparse: list[str]
    values: frozenset[str]
    turns: int
    chars: int


def _session_features(texts: Sequence[str]) -> _SessionFeatures:
    joined = "\n".join(texts)
    words = {f"w:{token}" for token in raw_tokens(joined)}
    grams: set[str] = set()
    for match in _CAPITALISED.finditer(joined):
        word = match.group(0)
        if word == "I" or word.startswith(("I'", "I\u2019")):
            continue
        padded = f"<{word.lower()}>"
        for n in CHAR_NGRAMS:
            grams.update(f"c:{padded[i:i + n]}" for i in range(len(padded) - n + 1))
    values = frozenset(token.lower() for text in texts for _, found, _ in sentence_values(text)
                       for token in found)
    return _SessionFeatures(sorted(words) + sorted(grams), values, len(texts), len(joined))


@dataclass(frozen=True)
class SentenceGrams:
    """One sentence's content unigrams and bigrams (:func:`sentence_grams`)."""

    unigrams: frozenset[str]
    bigrams: frozenset[str]
    holds_value: bool


@lru_cache(maxsize=1 << 16)
def sentence_grams(text: str) -> tuple[SentenceGrams, ...]:
    """One turn's sentences as content grams: raw tokens minus the reference stopwords
    (:data:`..retrieval.tokenizer.STOPWORDS`) and minus the sentence's value-like tokens, so a
    value never counts as recurring content; bigrams join adjacent remaining tokens."""
    out = []
    for sentence, found, holds_value in sentence_values(text):
        drop = {token.lower() for token in found}
        tokens = [t for t in raw_tokens(sentence) if t not in STOPWORDS and t not in drop]
        out.append(SentenceGrams(frozenset(tokens),
                                  frozenset(f"{a} {b}" for a, b in zip(tokens, tokens[1:])),
                                  holds_value))
    return tuple(out)


@dataclass(frozen=True)
class SessionGrams:
    """A session's sentences as content grams, and the union of their unigrams and bigrams."""

    sentences: tuple[SentenceGrams, ...]
    unigrams: frozenset[str]
    bigrams: frozenset[str]

    @classmethod
    def of(cls, texts: Sequence[str]) -> SessionGrams:
        found = tuple(g for text in texts for g in sentence_grams(text))
        return cls(found, frozenset().union(*(g.unigrams for g in found)),
                   frozenset().union(*(g.bigrams for g in found)))


@dataclass(frozen=True)
class CorpusRates:
    """The share of the corpus's distinct sessions (by turns) that contain each gram: what a
    gram's recurrence inside one haystack would be if the haystack were drawn from the corpus at
    large (chat and framing phrases recur everywhere; a subject built into one haystack does
    not)."""

    unigrams: Mapping[str, float]
    bigrams: Mapping[str, float]

    @classmethod
    def of(cls, grams: Mapping[str, SessionGrams]) -> CorpusRates:
        uni: Counter[str] = Counter()
        bi: Counter[str] = Counter()
        for session in grams.values():
            uni.update(session.unigrams)
            bi.update(session.bigrams)
        others = max(1, len(grams) - 1)
        return cls({g: (c - 1) / others for g, c in uni.items()},
                   {g: (c - 1) / others for g, c in bi.items()})


def recurrence_rows(sessions: Sequence[SessionGrams], rates: CorpusRates
                     ) -> list[list[float]]:
    """Haystack-relative recurrence features of every session slot of one haystack (question-blind;
    :data:`RECURRENCE_NAMES`, in that order).

    A gram's *recurrence*, seen from one session, is the number of OTHER sessions of the same
    haystack that contain it, divided by n - 1; its *excess* is that minus the corpus-wide share
    of other sessions containing it (:class:`CorpusRates`), so framing and chat that recur in
    every haystack count for nothing. Per session: the max recurrence over its bigrams and over its
    unigrams; whether it holds the haystack's most-recurring bigram (ties all 1; 0 when no bigram
    recurs); the z-score of its bigram max within the haystack; the max recurrence of the bigrams
    and unigrams of its value-holding sentences and the summed recurrence of those bigrams; the
    largest summed bigram and unigram recurrence of one of its sentences; then the excess
    versions: max excess over its bigrams, summed positive excess of its value-sentence bigrams,
    and the largest summed positive unigram and bigram excess of one of its sentences."""
    n = len(sessions)
    uni_df: Counter[str] = Counter()
    bi_df: Counter[str] = Counter()
    for session in sessions:
        uni_df.update(session.unigrams)
        bi_df.update(session.bigrams)
    scale = 1.0 / max(1, n - 1)
    top = max(bi_df.values(), default=0)

    rec_u = {g: (c - 1) * scale for g, c in uni_df.items()}
    rec_b = {g: (c - 1) * scale for g, c in bi_df.items()}
    ex_u = {g: max(0.0, r - rates.unigrams.get(g, 0.0)) for g, r in rec_u.items()}
    ex_b = {g: max(0.0, r - rates.bigrams.get(g, 0.0)) for g, r in rec_b.items()}
    rows = []
    for session in sessions:
        value_bigrams = frozenset().union(*(g.bigrams for g in session.sentences
                                            if g.holds_value))
        value_unigrams = frozenset().union(*(g.unigrams for g in session.sentences
                                             if g.holds_value))
        rows.append([
            max(map(rec_b.__getitem__, session.bigrams), default=0.0),
            max(map(rec_u.__getitem__, session.unigrams), default=0.0),
            1.0 if top > 1 and any(bi_df[g] == top for g in session.bigrams) else 0.0,
            0.0,
            max(map(rec_b.__getitem__, value_bigrams), default=0.0),
            max(map(rec_u.__getitem__, value_unigrams), default=0.0),
            sum(map(rec_b.__getitem__, value_bigrams)),
            max((sum(map(rec_b.__getitem__, g.bigrams)) for g in session.sentences),
                default=0.0),
            max((sum(map(rec_u.__getitem__, g.unigrams)) for g in session.sentences),
                default=0.0),
            max(map(ex_b.__getitem__, session.bigrams), default=0.0),
            sum(map(ex_b.__getitem__, value_bigrams)),
            max((sum(map(ex_u.__getitem__, g.unigrams)) for g in session.sentences),
                default=0.0),
            max((sum(map(ex_b.__getitem__, g.bigrams)) for g in session.sentences),
                default=0.0),
        ])
    maxima = [row[0] for row in rows]
    mean = sum(maxima) / len(maxima) if maxima else 0.0
    spread = math.sqrt(sum((x - mean) ** 2 for x in maxima) / len(maxima)) if maxima else 0.0
    for row in rows:
        row[3] = (row[0] - mean) / spread if spread > 0 else 0.0
    return rows


@dataclass
class Slots:
    """Every (question, session) slot of the corpus with its features, in corpus order."""

    question: npt.NDArray[np.int64]
    label: npt.NDArray[np.float64]
    position: npt.NDArray[np.float64]
    recurrence: list[list[float]]
    shape: list[int]
    shapes: tuple[str, ...]
    keys: list[str]
    features: dict[str, _SessionFeatures]
    indptr: npt.NDArray[np.int64]
    columns: npt.NDArray[np.int64]
    data: npt.NDArray[np.float64]
    vocabulary: int
    starts: list[int]


def slots_of(haystacks: Sequence[Haystack]) -> Slots:
    import numpy as np

    features: dict[str, _SessionFeatures] = {}
    vocabulary: dict[str, int] = {}
    encoded: dict[str, tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]] = {}
    question, label, position, keys, starts = [], [], [], [], []
    recurrence: list[list[float]] = []
    shapes = tuple(sorted({haystack.shape for haystack in haystacks if haystack.ranked}))
    if len(shapes) < 2:
        shapes = ()
    shape: list[int] = []
    rows_columns, rows_data = [], []
    content: dict[str, SessionGrams] = {}
    for haystack in haystacks:
        for key, texts in zip(haystack.keys, haystack.texts):
            if key not in content:
                content[key] = SessionGrams.of(texts)
    rates = CorpusRates.of(content)
    for qi, haystack in enumerate(haystacks):
        starts.append(len(keys))
        recurrence += recurrence_rows([content[key] for key in haystack.keys], rates)
        shape += [shapes.index(haystack.shape) if haystack.shape in shapes else -1] * haystack.n
        for si, (key, texts) in enumerate(zip(haystack.keys, haystack.texts)):
            if key not in encoded:
                feats = _session_features(texts)
                features[key] = feats
                words = [f for f in feats.sparse if f.startswith("w:")]
                grams = [f for f in feats.sparse if f.startswith("c:")]
                cols = [vocabulary.setdefault(f, len(vocabulary)) for f in feats.sparse]
                weights = ([1.0 / math.sqrt(len(words))] * len(words) if words else []) + (
                    [1.0 / math.sqrt(len(grams))] * len(grams) if grams else [])
                encoded[key] = (np.asarray(cols, dtype=np.int64),
                                np.asarray(weights, dtype=np.float64))
            cols_arr, data_arr = encoded[key]
            rows_columns.append(cols_arr)
            rows_data.append(data_arr)
            question.append(qi)
            label.append(1.0 if si in haystack.gold else 0.0)
            position.append(si / (haystack.n - 1) if haystack.n > 1 else 0.0)
            keys.append(key)
    lengths = np.asarray([len(c) for c in rows_columns], dtype=np.int64)
    indptr = np.concatenate([np.zeros(1, dtype=np.int64), np.cumsum(lengths)])
    columns = np.concatenate(rows_columns) if rows_columns else np.zeros(0, dtype=np.int64)
    data = np.concatenate(rows_data) if rows_data else np.zeros(0, dtype=np.float64)
    return Slots(np.asarray(question, dtype=np.int64), np.asarray(label, dtype=np.float64),
                  np.asarray(position, dtype=np.float64), recurrence, shape, shapes, keys,
                  features, indptr, columns, data,
                  len(vocabulary), starts)


def _membership_rows(slots: Slots, rows: Sequence[int], reference: Sequence[int]
                     ) -> list[list[float]]:
    """Value-membership features of ``rows`` against the gold / filler values of ``reference``."""
    gold_values: set[str] = set()
    filler_values: set[str] = set()
    for row in reference:
        values = slots.features[slots.keys[row]].values
        (gold_values if slots.label[row] > 0.5 else filler_values).update(values)
    out = []
    for row in rows:
        values = slots.features[slots.keys[row]].values
        if not values:
            out.append([0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0])
            continue
        only_gold = sum(1 for v in values if v in gold_values and v not in filler_values)
        only_filler = sum(1 for v in values if v in filler_values and v not in gold_values)
        both = sum(1 for v in values if v in gold_values and v in filler_values)
        never = len(values) - only_gold - only_filler - both
        n = len(values)
        out.append([only_gold / n, only_filler / n, both / n, never / n, 0.0,
                    1.0 if only_gold else 0.0, 1.0 if only_filler else 0.0])
    return out


def _rows_of(slots: Slots, haystacks: Sequence[Haystack], questions: Sequence[int]) -> list[int]:
    rows: list[int] = []
    for qi in questions:
        rows.extend(range(slots.starts[qi], slots.starts[qi] + haystacks[qi].n))
    return rows


def _dense(slots: Slots, rows: Sequence[int], membership: Sequence[Sequence[float]]
           ) -> npt.NDArray[np.float64]:
    import numpy as np

    width = len(_DENSE_NAMES) + len(RECURRENCE_NAMES) * len(slots.shapes)
    if not rows:
        return np.zeros((0, width), dtype=np.float64)
    blank = [0.0] * len(RECURRENCE_NAMES)
    out = []
    for r, m in zip(rows, membership):
        features = slots.features[slots.keys[r]]
        recurrence = slots.recurrence[r]
        by_shape = [x for index in range(len(slots.shapes))
                    for x in (recurrence if slots.shape[r] == index else blank)]
        out.append([math.log1p(features.turns), math.log1p(features.chars),
                    float(slots.position[r]), *recurrence, *m, *by_shape])
    return np.asarray(out, dtype=np.float64)


def _sparse_block(slots: Slots, rows: Sequence[int]
                  ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """(row index per nonzero, column, value) of ``rows``, rows renumbered 0..len(rows)-1."""
    import numpy as np

    rows_arr = np.asarray(rows, dtype=np.int64)
    starts, ends = slots.indptr[rows_arr], slots.indptr[rows_arr + 1]
    lengths = ends - starts
    owner = np.repeat(np.arange(len(rows), dtype=np.int64), lengths)
    offsets = np.arange(int(lengths.sum()), dtype=np.int64) - np.repeat(
        np.cumsum(lengths) - lengths, lengths)
    index = np.repeat(starts, lengths) + offsets
    return owner, slots.columns[index], slots.data[index]


def _train(owner: npt.NDArray[np.int64], cols: npt.NDArray[np.int64],
           vals: npt.NDArray[np.float64], dense: npt.NDArray[np.float64],
           y: npt.NDArray[np.float64], weight: npt.NDArray[np.float64], vocabulary: int
           ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], float]:
    """L2-regularised logistic regression by full-batch Adam for :data:`TRAIN_STEPS` steps."""
    import numpy as np

    rows = len(y)
    dims = vocabulary + dense.shape[1] + 1
    theta = np.zeros(dims)
    m = np.zeros(dims)
    v = np.zeros(dims)
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    for step in range(1, TRAIN_STEPS + 1):
        w_sparse, w_dense, bias = theta[:vocabulary], theta[vocabulary:-1], theta[-1]
        z = np.bincount(owner, weights=vals * w_sparse[cols], minlength=rows) + dense @ w_dense + bias
        p = 1.0 / (1.0 + np.exp(-np.clip(z, -30.0, 30.0)))
        r = weight * (p - y)
        grad = np.empty(dims)
        grad[:vocabulary] = np.bincount(cols, weights=vals * r[owner], minlength=vocabulary)
        grad[vocabulary:-1] = dense.T @ r
        grad[-1] = r.sum()
        grad[:-1] += L2 * theta[:-1]
        m = beta1 * m + (1 - beta1) * grad
        v = beta2 * v + (1 - beta2) * grad * grad
        m_hat = m / (1 - beta1 ** step)
        v_hat = v / (1 - beta2 ** step)
        theta = theta - LEARNING_RATE * m_hat / (np.sqrt(v_hat) + eps)
    return theta[:vocabulary], theta[vocabulary:-1], float(theta[-1])


def _balanced_weights(slots: Slots, haystacks: Sequence[Haystack], questions: Sequence[int]
                      ) -> list[float]:
    """Each trainable question weighs 1 in total, half on its gold and half on its filler."""
    trainable = [qi for qi in questions if haystacks[qi].ranked]
    share = 1.0 / max(1, len(trainable))
    out: list[float] = []
    for qi in questions:
        haystack = haystacks[qi]
        for si in range(haystack.n):
            if not haystack.ranked:
                out.append(0.0)
            elif si in haystack.gold:
                out.append(share * 0.5 / len(haystack.gold))
            else:
                out.append(share * 0.5 / (haystack.n - len(haystack.gold)))
    return out


def learned_scores(haystacks: Sequence[Haystack]) -> tuple[dict[int, list[float]], dict[str, Any]]:
    """The learned adversary's score for every session of every question it could test (question
    index -> scores in session order), and a description of the split it used."""
    import numpy as np

    slots = slots_of(haystacks)
    everyone = list(range(len(haystacks)))
    half = split_halves(haystacks, everyone)
    info: dict[str, Any] = {
        "groups": len(set(question_groups(haystacks))),
        "halves": [sum(1 for q in everyone if half[q] == side) for side in (0, 1)],
        "vocabulary": slots.vocabulary, "dense_features": list(_DENSE_NAMES),
        "recurrence_by_shape": list(slots.shapes),
        "steps": TRAIN_STEPS, "learning_rate": LEARNING_RATE, "l2": L2,
        "split_constant": SPLIT_CONSTANT, "char_ngrams": list(CHAR_NGRAMS),
    }
    scores: dict[int, list[float]] = {}
    for test_side in (0, 1):
        train_q = [q for q in everyone if half[q] != test_side]
        test_q = [q for q in everyone if half[q] == test_side]
        if not test_q or not any(haystacks[q].ranked for q in train_q):
            continue
        inner = split_halves(haystacks, train_q, constant=INNER_SPLIT_CONSTANT)
        train_rows: list[int] = []
        membership: list[list[float]] = []
        for side in (0, 1):
            part = [q for q in train_q if inner[q] == side]
            other = [q for q in train_q if inner[q] != side]
            rows = _rows_of(slots, haystacks, part)
            train_rows += rows
            membership += _membership_rows(slots, rows, _rows_of(slots, haystacks, other))
        order = sorted(range(len(train_rows)), key=lambda i: train_rows[i])
        train_rows = [train_rows[i] for i in order]
        membership = [membership[i] for i in order]
        weights = _balanced_weights(slots, haystacks, sorted(train_q))
        dense_train = _dense(slots, train_rows, membership)
        mean = dense_train.mean(axis=0)
        std = dense_train.std(axis=0)
        std[std == 0] = 1.0
        owner, cols, vals = _sparse_block(slots, train_rows)
        w_sparse, w_dense, bias = _train(owner, cols, vals, (dense_train - mean) / std,
                                         slots.label[train_rows], np.asarray(weights),
                                         slots.vocabulary)
        test_rows = _rows_of(slots, haystacks, test_q)
        if not test_rows:
            continue
        dense_test = _dense(slots, test_rows, _membership_rows(
            slots, test_rows, _rows_of(slots, haystacks, train_q)))
        owner, cols, vals = _sparse_block(slots, test_rows)
        z = (np.bincount(owner, weights=vals * w_sparse[cols], minlength=len(test_rows))
             + ((dense_test - mean) / std) @ w_dense + bias)
        at = 0
        for qi in test_q:
            n = haystacks[qi].n
            scores[qi] = [float(x) for x in z[at:at + n]]
            at += n
    return scores, info
