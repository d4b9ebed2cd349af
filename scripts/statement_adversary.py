"""A learned, question-blind adversary that reads *statements and the replies to them* (diagnostic).

Why: the gate's learned adversary (``gates/adversaries.py``) is linear over word, character,
structure, value-membership and within-haystack recurrence features, each of a whole session. Red
teams 7-9 beat Episodic assistant-stated question-blind with a rule that joins two of them at the
level of one statement: "a taken-up recommendation of a subject that recurs". A linear model over
session-level features cannot express that join; a red team's structural classifier reached AUC
0.89 on it. This script adds the join as features and measures, before anything is gated:

* per value-holding sentence, its recurrence ``r`` (the largest share of the haystack's other
  sessions holding one of its content bigrams, as the gate computes it);
* the words of the next two turns (the reply and the close), each weighted by the ``r`` of the
  statement they answer, so a linear model can learn "replies of this kind, to a recurring
  statement";
* the gate's own structure features (turns, characters, value sentences).

Trained on one half of the questions (gold vs not, the gate's split, groups whole), scored on the
other, then the other way round. Prints per shape: gold@1 against random, mean within-question
AUC, and a permutation p-value of gold@1 (rankings drawn uniformly per haystack). A diagnostic,
not a gate: it refuses nothing and is not a test; its figures say whether the gate needs it.

    python scripts/statement_adversary.py [corpus.json ...]
"""

from __future__ import annotations

import argparse
import random
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from pytest_typedmemeval.corpus import load_corpus
from pytest_typedmemeval.gates import adversaries as adv
from pytest_typedmemeval.gates import adversary_learned
from pytest_typedmemeval.retrieval.tokenizer import raw_tokens

CORPORA = Path(__file__).resolve().parent.parent / "corpora"
L2 = 0.1
STEPS = 300
RATE = 0.5
DRAWS = 2000


def _rows(haystack: adv.Haystack) -> list[Counter[str]]:
    """Sparse features of every session of one haystack (question-blind)."""
    grams = [adversary_learned.SessionGrams.of(texts) for texts in haystack.texts]
    df: Counter[str] = Counter()
    for session in grams:
        df.update(session.bigrams)
    scale = 1.0 / max(1, haystack.n - 1)
    out = []
    for texts in haystack.texts:
        row: Counter[str] = Counter()
        row["turns"] = len(texts) / 20.0
        row["chars"] = sum(map(len, texts)) / 2000.0
        for t, text in enumerate(texts):
            for sentence in adversary_learned.sentence_grams(text):
                if not sentence.holds_value:
                    continue
                r = max(((df[g] - 1) * scale for g in sentence.bigrams), default=0.0)
                row["value_sentences"] += 0.1
                row["recurrence_max"] = max(row["recurrence_max"], r)
                for offset, tag in ((1, "reply"), (2, "close")):
                    if t + offset < len(texts):
                        for token in set(raw_tokens(texts[t + offset])):
                            row[f"{tag}:{token}"] += r
                            row[f"{tag}0:{token}"] += 1.0 - r
        out.append(row)
    return out


def _fit(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """L2 logistic regression by gradient descent (balanced sample weights ``w``)."""
    beta = np.zeros(x.shape[1])
    for _ in range(STEPS):
        p = 1.0 / (1.0 + np.exp(-(x @ beta)))
        grad = x.T @ (w * (p - y)) / w.sum() + L2 * beta / len(y)
        beta -= RATE * grad
    return beta


def measure(path: Path) -> None:
    corpus = load_corpus(path)
    haystacks = [h for h in adv.read_haystacks(corpus.records) if h.ranked]
    rows = [_rows(h) for h in haystacks]
    vocab = sorted({k for hs in rows for r in hs for k in r})
    index = {k: i for i, k in enumerate(vocab)}
    half = adv.split_halves(haystacks, range(len(haystacks)))
    scores: dict[int, list[float]] = {}
    for test in (0, 1):
        train = [q for q in range(len(haystacks)) if half[q] != test]
        xs, ys, ws = [], [], []
        for q in train:
            g = haystacks[q].gold
            for i, r in enumerate(rows[q]):
                vec = np.zeros(len(vocab))
                for k, v in r.items():
                    vec[index[k]] = v
                xs.append(vec)
                ys.append(1.0 if i in g else 0.0)
                ws.append(1.0 / len(g) if i in g else 1.0 / (haystacks[q].n - len(g)))
        beta = _fit(np.array(xs), np.array(ys), np.array(ws))
        for q in (q for q in range(len(haystacks)) if half[q] == test):
            scores[q] = [sum(v * beta[index[k]] for k, v in r.items()) for r in rows[q]]
    by_shape: dict[str, list[int]] = defaultdict(list)
    for q, h in enumerate(haystacks):
        by_shape[h.shape].append(q)
    rng = random.Random(f"statement-adversary\x1f{corpus.sha256}")
    print(f"{corpus.corpus_id} ({corpus.sha256[:12]})")
    for shape, qs in sorted(by_shape.items()):
        hits = sum(adv.tied_gold_at_1(scores[q], haystacks[q].gold) for q in qs)
        chance = sum(len(haystacks[q].gold) / haystacks[q].n for q in qs) / len(qs)
        auc = sum(adv.within_auc(scores[q], haystacks[q].gold) for q in qs) / len(qs)
        null = sum(sum(rng.randrange(haystacks[q].n) in haystacks[q].gold for q in qs) >= hits
                   for _ in range(DRAWS))
        print(f"  {shape:24s} n={len(qs):3d} gold@1 {hits / len(qs):.2f} (random {chance:.2f}, "
              f"p {null / DRAWS:.4f})  AUC {auc:.2f}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpora", nargs="*", type=Path)
    args = parser.parse_args(argv)
    for path in args.corpora or sorted(CORPORA.glob("typedmemeval-*-v3.json")):
        measure(path)


if __name__ == "__main__":
    main()
