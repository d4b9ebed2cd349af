"""Adversaries 2 to 5 of the gate (:mod:`.adversaries`): rules that need no training beyond a
position table — the position prior, the haystack diff, the subject-and-value and phrase readers,
and fact-only BM25."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Sequence

from ..retrieval.bm25 import rank_sessions, session_document
from ..retrieval.tokenizer import STOPWORDS, raw_tokens, tokenize
from ..retrieval.values import keep_value_sentences
from .adversary_haystacks import (
    Haystack, coverage_at_k, sentence_values, split_halves, tied_coverage
)

POSITION_BINS = 10
POSITION_SMOOTHING = 5.0
PHRASE_WEIGHT = 10.0
"""A shared question phrase outweighs any number of shared single words."""


# --- adversary 2: position prior ------------------------------------------------------------------


def _position_table(haystacks: Sequence[Haystack], questions: Sequence[int]
                    ) -> Callable[[int, int], float]:
    """A scorer (index, n) -> summed smoothed gold rates at that index from the start, from the
    end and in that tenth of the haystack, learned from ``questions``."""
    start_gold: Counter[int] = Counter()
    start_seen: Counter[int] = Counter()
    end_gold: Counter[int] = Counter()
    end_seen: Counter[int] = Counter()
    bin_gold: Counter[int] = Counter()
    bin_seen: Counter[int] = Counter()
    gold_total = seen_total = 0
    for qi in questions:
        haystack = haystacks[qi]
        if not haystack.ranked:
            continue
        n = haystack.n
        for i in range(n):
            is_gold = 1 if i in haystack.gold else 0
            b = _bin(i, n)
            start_seen[i] += 1
            end_seen[n - 1 - i] += 1
            bin_seen[b] += 1
            start_gold[i] += is_gold
            end_gold[n - 1 - i] += is_gold
            bin_gold[b] += is_gold
            gold_total += is_gold
            seen_total += 1
    base = gold_total / seen_total if seen_total else 0.0
    a = POSITION_SMOOTHING

    def rate(gold: Counter[int], seen: Counter[int], key: int) -> float:
        return (gold[key] + a * base) / (seen[key] + a)

    def score(i: int, n: int) -> float:
        return (rate(start_gold, start_seen, i) + rate(end_gold, end_seen, n - 1 - i)
                + rate(bin_gold, bin_seen, _bin(i, n)))

    return score


def _bin(i: int, n: int) -> int:
    return min(POSITION_BINS - 1, int(POSITION_BINS * i / n))


def position_coverage(haystacks: Sequence[Haystack]) -> dict[int, float]:
    """Coverage@5 of the position prior per question, the prior learned from the other half
    (that half's questions of the same shape, or all of them where it has none of the shape)."""
    everyone = list(range(len(haystacks)))
    half = split_halves(haystacks, everyone)
    out: dict[int, float] = {}
    for test_side in (0, 1):
        train_q = [q for q in everyone if half[q] != test_side and haystacks[q].ranked]
        if not train_q:
            continue
        by_shape: dict[str, list[int]] = defaultdict(list)
        for q in train_q:
            by_shape[haystacks[q].shape].append(q)
        tables: dict[str, Callable[[int, int], float]] = {}
        fallback = _position_table(haystacks, train_q)
        for qi in everyone:
            haystack = haystacks[qi]
            if half[qi] != test_side or not haystack.ranked:
                continue
            if haystack.shape not in tables:
                tables[haystack.shape] = (_position_table(haystacks, by_shape[haystack.shape])
                                          if haystack.shape in by_shape else fallback)
            table = tables[haystack.shape]
            scores = [table(i, haystack.n) for i in range(haystack.n)]
            out[qi] = tied_coverage(scores, haystack.gold)
    return out


# --- adversary 3: haystack diff -------------------------------------------------------------------


def haystack_diff(haystacks: Sequence[Haystack]) -> tuple[dict[int, bool], dict[str, bool]]:
    """Per question whether its unique sessions (turns found in no other haystack) are a nonempty
    set of gold only; per shape whether any of its haystacks shares a session with another."""
    by_text: dict[str, set[int]] = defaultdict(set)
    by_id: dict[str, set[int]] = defaultdict(set)
    for qi, haystack in enumerate(haystacks):
        for sid, key in zip(haystack.ids, haystack.keys):
            by_text[key].add(qi)
            by_id[sid].add(qi)
    singled: dict[int, bool] = {}
    shares: dict[str, bool] = defaultdict(bool)
    for qi, haystack in enumerate(haystacks):
        shared = any(len(by_text[k]) > 1 for k in haystack.keys) or any(
            len(by_id[s]) > 1 for s in haystack.ids)
        shares[haystack.shape] |= shared
        unique = {i for i, key in enumerate(haystack.keys) if by_text[key] == {qi}}
        singled[qi] = bool(unique) and unique <= haystack.gold
    return singled, dict(shares)


# --- adversaries 4 and 5: the readers -------------------------------------------------------------


def _best_sentence(haystack: Haystack, score: Callable[[str, bool], float]) -> list[float]:
    """Per session: the highest ``score(sentence, holds_value)`` over its sentences (0 if none)."""
    return [max((score(sentence, holds_value) for text in texts
                 for sentence, _, holds_value in sentence_values(text)), default=0.0)
            for texts in haystack.texts]


def reader_scores(haystack: Haystack) -> list[float]:
    """Per session: the most distinct question content words in one of its value-holding sentences."""
    words = set(tokenize(haystack.question))
    return _best_sentence(haystack, lambda sentence, holds_value: float(
        len(words.intersection(tokenize(sentence)))) if holds_value else 0.0)


def _phrases(text: str) -> set[tuple[str, str]]:
    """Adjacent word pairs of ``text`` with at least one content word ("the annexe", "blind
    fitter"; not "for the")."""
    words = raw_tokens(text)
    return {(a, b) for a, b in zip(words, words[1:]) if a not in STOPWORDS or b not in STOPWORDS}


def phrase_scores(haystack: Haystack) -> list[float]:
    """Per session: its best sentence's count of the question's phrases (adjacent word pairs with
    a content word), weighted by :data:`PHRASE_WEIGHT`, plus its count of question content words.
    The reader a red team wrote in one line ("a sentence with the item noun and 'for the
    <place>'"): it needs no value, no corpus knowledge and no training."""
    phrases = _phrases(haystack.question)
    words = set(tokenize(haystack.question))
    return _best_sentence(haystack, lambda sentence, _: (
        PHRASE_WEIGHT * len(phrases & _phrases(sentence))
        + len(words.intersection(tokenize(sentence)))))


def fact_only_coverage(haystack: Haystack) -> float:
    """Coverage@5 of the reference BM25 over the haystack with every value-less sentence deleted."""
    documents = [session_document(keep_value_sentences(texts)) for texts in haystack.texts]
    return coverage_at_k(rank_sessions(documents, haystack.question), haystack.gold)
