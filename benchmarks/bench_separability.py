"""Time the V7 separability gate on a synthetic 500-question x 25-session corpus.

Not a test: run ``python benchmarks/bench_separability.py [--questions 500] [--sessions 25]``.
The corpus comes from the gate's own self-test machinery (one template machinery, clean), so the
figures describe the gate's cost, not a defect search. Prints seconds per phase of
:func:`pytest_typedmemeval.gates.separability.score_features` and the end-to-end ``check``.
"""

from __future__ import annotations

import argparse
import time

from pytest_typedmemeval.gates.declarations import VerticalDeclarations
from pytest_typedmemeval.gates.selftest.separability import build_synthetic_corpus
from pytest_typedmemeval.gates.separability import check, score_features

PHASES = ("features", "relevance", "pairs", "distribution", "exclusivity", "role_sequence")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=500)
    parser.add_argument("--sessions", type=int, default=25)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    start = time.perf_counter()
    corpus = build_synthetic_corpus(args.seed, questions=args.questions,
                                    sessions=(args.sessions, args.sessions))
    built = time.perf_counter() - start
    sessions = sum(len(record.haystack_sessions) for record in corpus.records)
    turns = sum(len(s) for record in corpus.records for s in record.haystack_sessions)
    print(f"corpus: {len(corpus.records)} questions, {sessions} sessions, {turns} turns "
          f"(built in {built:.2f} s, not counted below)")

    timings: dict[str, float] = {}
    start = time.perf_counter()
    analysis = score_features(corpus, timings=timings)
    scored = time.perf_counter() - start
    table = analysis.table
    print(f"features: {len(table.numeric_names)} numeric, {len(table.grams)} phrase candidates, "
          f"{table.incidence_sessions.size} phrase incidences, {analysis.pairs} pairs")
    for phase in PHASES:
        print(f"  {phase:<14} {timings.get(phase, 0.0):7.2f} s")
    print(f"  {'total':<14} {scored:7.2f} s  (score_features)")

    start = time.perf_counter()
    result = check(corpus, declared=VerticalDeclarations())
    print(f"check end to end: {time.perf_counter() - start:.2f} s -> {result.status}"
          + (f" ({sorted(result.refused_rules())})" if result.refusals else ""))


if __name__ == "__main__":
    main()
