"""Red team 30's reader as a measurement: does the value named with the asked subject recur?

Red team 30 beat Forgetting ``b78663e7…`` (gold@1 1.000) without reading stance: among the
sentences naming the question's subject, take the value each names and count the haystack's
sessions that mention it; the user's own value was the only one mentioned twice. It is now the
adversary gate's rule ``recurrence_gold_at_1`` (:mod:`pytest_typedmemeval.gates.adversary_tables`,
judged against the relabelling null); this script prints the same reader's figures per shape, from
the gate's own functions.

Candidates: the tail view's (the sentences holding the most subject words — the question's words
less its shape's frame — whose tail holds a value); a candidate's values are its own value-like
tokens, or its neighbours' when it names none, less the question's words. A session scores the
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
    read_haystacks, split_halves, tied_gold_at_1
)
from pytest_typedmemeval.gates.adversary_tables import table_scores


def main(paths: Sequence[str]) -> None:
    for path in paths:
        haystacks = read_haystacks(load_corpus(path).records)
        halves = split_halves(haystacks, [qi for qi, h in enumerate(haystacks) if h.ranked])
        scored, excluded = table_scores(haystacks, halves, "recurrence")
        by_shape: dict[str, list[tuple[float, float]]] = defaultdict(list)
        for qi, (candidates, scores) in scored.items():
            chance = len(candidates.gold) / len(candidates.session_list)
            by_shape[haystacks[qi].shape].append(
                (tied_gold_at_1(scores, candidates.gold), chance))
        print(path, {k: v for k, v in excluded.items() if v})
        for shape, rows in sorted(by_shape.items()):
            print(f"  {shape:26s} n={len(rows):3d}  gold@1 {statistics.mean(r[0] for r in rows):.3f}"
                  f"  random {statistics.mean(r[1] for r in rows):.3f}")


if __name__ == "__main__":
    main(sys.argv[1:])
