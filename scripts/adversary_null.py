"""The adversary gate's false-refusal rate on a real corpus's own sizes: relabel gold at random.

The self-test's simulation measures false refusals on synthetic corpora of one size; a vertical
with several small shapes (four questions each) is another regime. This script keeps a shipped
corpus's text, haystacks, shapes and gold counts, and moves each question's gold to sessions drawn
uniformly at random (seeded, per relabelling). No classifier can learn those labels, so a refusal
by a rule judged against chance (learned gold@1, learned AUC, position prior) is a false refusal.
The difficulty bounds (reader, fact-only BM25) are about the text, not chance, and are not counted.

    python scripts/adversary_null.py [--relabellings 20] [corpus.json ...]

Prints, per corpus, how many relabellings a chance rule refused and by which rule and shape.
"""

from __future__ import annotations

import argparse
import random
from collections import Counter
from dataclasses import replace
from pathlib import Path

from pytest_typedmemeval.corpus import load_corpus
from pytest_typedmemeval.gates import adversaries
from pytest_typedmemeval.gates.declarations import VerticalDeclarations

CORPORA = Path(__file__).resolve().parent.parent / "corpora"


def relabelled(corpus, seed: int):
    """The corpus with every question's gold moved to as many sessions drawn at random."""
    rng = random.Random(f"adversary-null\x1f{corpus.sha256}\x1f{seed}")
    records = []
    for record in corpus.records:
        gold = len(record.gold_session_indices)
        if not 0 < gold < len(record.haystack_session_ids):
            records.append(record)
            continue
        picked = rng.sample(list(record.haystack_session_ids), gold)
        records.append(record.model_copy(update={"answer_session_ids": tuple(picked)}))
    return replace(corpus, records=tuple(records))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--relabellings", type=int, default=20)
    parser.add_argument("corpora", nargs="*", type=Path)
    args = parser.parse_args()
    paths = args.corpora or sorted(p for p in CORPORA.glob("typedmemeval-*-v*.json")
                                   if not p.name.endswith(".sidecar.json"))
    none = VerticalDeclarations()
    for path in paths:
        corpus = load_corpus(path)
        refused = 0
        by: Counter[str] = Counter()
        for seed in range(args.relabellings):
            result = adversaries.check(relabelled(corpus, seed), declared=none)
            fired = [r for r in result.refusals if r.rule in adversaries.CHANCE_RULES]
            refused += bool(fired)
            by.update(f"{r.rule}@{r.shape}" for r in fired)
        print(f"{corpus.corpus_id}: {refused} of {args.relabellings} random relabellings refused "
              f"by a chance rule ({refused / args.relabellings:.3f}); {dict(sorted(by.items()))}")


if __name__ == "__main__":
    main()
