"""Mean coverage@K_ref of every shipped corpus and shape under each retriever of the panel.

Not a test: a script that prints, for each shipped corpus (or the corpora named) and each shape,
the mean realised coverage at K_ref = 5 under rank_bm25 Okapi (the reference), BM25+, BM25L, the
Lucene-style idf BM25 and, when the ``[dense]`` extra is installed, the all-MiniLM-L6-v2 dense
retriever, side by side with the panel maximum and the retriever that gave it; then the seconds
each retriever took per corpus. A ``*`` marks a panel maximum over the 0.90 ceiling.

    python benchmarks/bench_retriever_panel.py [--no-dense] [--no-cache] [--markdown] [CORPUS_ID ...]

The dense timing is for whatever the embedding cache holds: ``--no-cache`` (or
``TYPEDMEMEVAL_CACHE_DIR=off``) times the encoder itself; a second run with the cache shows what
the calibration gate costs once the cache is warm. Retrievers run through the same functions as
the calibration gate (:func:`pytest_typedmemeval.retrieval.panel.coverage_by_question`).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

from pytest_typedmemeval import shipped_corpora
from pytest_typedmemeval.gates.calibration import SATURATION_CEILING
from pytest_typedmemeval.retrieval import dense as dense_module
from pytest_typedmemeval.retrieval import panel


def _cell(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpora", nargs="*", help="corpus ids (default: every shipped corpus)")
    parser.add_argument("--no-dense", action="store_true", help="leave the dense arm out")
    parser.add_argument("--no-cache", action="store_true", help="encode without the embedding cache")
    parser.add_argument("--markdown", action="store_true", help="print markdown tables")
    args = parser.parse_args(argv)
    if args.no_cache:
        os.environ[dense_module.CACHE_ENV] = "off"

    retrievers: list[Any] = list(panel.LEXICAL_PANEL)
    if not args.no_dense:
        if dense_module.available():
            retrievers.append(dense_module.DenseRetriever())
        else:
            print(f"dense arm not measured: {dense_module.unavailable_reason()}", file=sys.stderr)
    names = [r.name for r in retrievers]
    corpora = [c for c in shipped_corpora() if not args.corpora or c.corpus_id in args.corpora]
    if not corpora:
        print("no corpus matched", file=sys.stderr)
        return 2

    header = ["corpus", "shape", "n", *names, "max (by)"]
    rows: list[list[str]] = []
    timing: list[list[str]] = []
    for corpus in corpora:
        means: dict[str, dict[str, float | None]] = {}
        seconds: dict[str, float] = {}
        for retriever in retrievers:
            began = time.perf_counter()
            coverage = panel.coverage_by_question(corpus.records, retriever)
            seconds[retriever.name] = time.perf_counter() - began
            means[retriever.name] = panel.mean_by_shape(corpus.records, coverage)
        timing.append([corpus.corpus_id, *(f"{seconds[name]:.2f}" for name in names)])
        shapes = sorted({record.shape for record in corpus.records})
        for shape in shapes:
            n = sum(1 for r in corpus.records if r.shape == shape and r.gold_session_indices)
            values = [(means[name][shape], name) for name in names if means[name][shape] is not None]
            best = max(values, key=lambda item: item[0], default=None)
            flag = "*" if best and best[0] > SATURATION_CEILING else ""
            rows.append([corpus.corpus_id.removeprefix("typedmemeval-"), shape, str(n),
                         *(_cell(means[name][shape]) for name in names),
                         f"{best[0]:.3f}{flag} ({best[1]})" if best else "-"])
        print(f"... {corpus.corpus_id}: " + ", ".join(f"{k} {v:.2f}s" for k, v in seconds.items()),
              file=sys.stderr, flush=True)

    _table(header, rows, args.markdown)
    print()
    print(f"* panel max over the {SATURATION_CEILING} ceiling. Seconds per corpus "
          f"(dense: {'no cache' if args.no_cache else 'through the embedding cache'}):")
    _table(["corpus", *names], timing, args.markdown)
    return 0


def _table(header: list[str], rows: list[list[str]], markdown: bool) -> None:
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "|".join("---" for _ in header) + "|")
        for row in rows:
            print("| " + " | ".join(row) + " |")
        return
    widths = [max(len(line[i]) for line in [header, *rows]) for i in range(len(header))]
    for line in [header, ["-" * w for w in widths], *rows]:
        print("  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip())


if __name__ == "__main__":
    raise SystemExit(main())
