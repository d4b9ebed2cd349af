"""Red team 30's reader as a measurement: does the value named with the asked subject recur?

Red team 30 beat Forgetting ``b78663e7…`` (gold@1 1.000) without reading stance: among the
sentences naming the question's subject, take the value each names and count the haystack's
sessions that mention it; the user's own value was the only one mentioned twice. No gate adversary
read that channel (the learned adversary's recurrence block is question-blind and leaves values
out; the subject-and-value reader counts question words). This script measures it on any corpus,
per shape, against the random expectation among the candidate sessions, until it is a gate rule
with its own null and self-test.

Candidates: the sentences holding the top tier of distinct question content words; a candidate's
values are its own value-like tokens, or its neighbours' when it names none. A session scores the
largest number of haystack sessions mentioning one of its candidates' values; ties count at random.

    python scripts/value_recurrence.py corpora/typedmemeval-*-v3.json
"""

from __future__ import annotations

import statistics
import sys
from collections import defaultdict
from collections.abc import Sequence

from pytest_typedmemeval.corpus import load_corpus
from pytest_typedmemeval.gates.adversary_haystacks import (
    Haystack, read_haystacks, sentence_values, tied_gold_at_1
)
from pytest_typedmemeval.retrieval.tokenizer import tokenize


def _sentences(texts: Sequence[str]) -> list[tuple[set[str], set[str]]]:
    """A session's sentences: their content words, and the values they name (their own, or their
    neighbours' in the turn when they name none)."""
    out = []
    for text in texts:
        found = sentence_values(text)
        for i, (sentence, values, _) in enumerate(found):
            named = {v.lower() for v in values}
            if not named:
                named = {v.lower() for j in (i - 1, i + 1) if 0 <= j < len(found)
                         for v in found[j][1]}
            out.append((set(tokenize(sentence)), named))
    return out


def recurrence_scores(haystack: Haystack) -> tuple[list[float], list[int]] | None:
    """Per session the reader's score (-1 for sessions without a candidate) and the candidate
    sessions; ``None`` when the question has nothing to rank (fewer than two candidate sessions,
    or no gold among them)."""
    words = set(tokenize(haystack.question))
    sessions = [_sentences(texts) for texts in haystack.texts]
    tier = max((len(words & w) for s in sessions for w, _ in s), default=0)
    if tier == 0:
        return None
    mentions: dict[str, int] = defaultdict(int)
    for session in sessions:
        for value in set().union(*(named for _, named in session)) if session else set():
            mentions[value] += 1
    scores: list[float] = []
    for session in sessions:
        named = set().union(*(n for w, n in session if len(words & w) == tier)) if session else set()
        scores.append(float(max((mentions[v] for v in named), default=-1)))
    candidates = [i for i, score in enumerate(scores) if score >= 0]
    if len(candidates) < 2 or not set(candidates) & haystack.gold:
        return None
    return scores, candidates


def main(paths: Sequence[str]) -> None:
    for path in paths:
        by_shape: dict[str, list[tuple[float, float]]] = defaultdict(list)
        for haystack in read_haystacks(load_corpus(path).records):
            found = recurrence_scores(haystack) if haystack.ranked else None
            if found is None:
                continue
            scores, candidates = found
            chance = len(set(candidates) & haystack.gold) / len(candidates)
            by_shape[haystack.shape].append((tied_gold_at_1(scores, haystack.gold), chance))
        print(path)
        for shape, rows in sorted(by_shape.items()):
            print(f"  {shape:26s} n={len(rows):3d}  gold@1 {statistics.mean(r[0] for r in rows):.3f}"
                  f"  random {statistics.mean(r[1] for r in rows):.3f}")


if __name__ == "__main__":
    main(sys.argv[1:])
