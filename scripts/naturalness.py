"""Print the conversation-naturalness figures (VERTICALS.md Appendix D, "§4.1 scaffolding").

Usage (from anywhere, with the package installed):

    python scripts/naturalness.py                      # the shipped corpora
    python scripts/naturalness.py corpus.json ...      # corpus JSON files (need not pass loading)
    python scripts/naturalness.py --json               # as_stats() per corpus, as JSON
    python scripts/naturalness.py --pairs 200 --seed 7 corpus.json   # reply pairs for a labeller

The figures come from :mod:`pytest_typedmemeval.corpus.naturalness`, which reads the corpus text
only. Corpus files named on the command line are read as raw JSON (a list of records), not through
``load_corpus``: a draft corpus that fails a loading check can still be measured. The last row
pools every corpus named (sessions shared between corpora counted once). Exit status is 0 whatever
the figures; the table says pass or fail against Appendix D's bounds.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pytest_typedmemeval.corpus.naturalness import BOUNDS, Naturalness, measure, reply_pairs

FIGURES = (("adjacent_shared_content_word", "adjacent turns sharing a content word"),
           ("distinct_sentences", "distinct sentences"),
           ("assistant_questions_answered", "assistant questions answered"))


def _corpora(paths: list[str]) -> list[tuple[str, list[Any]]]:
    if not paths:
        from pytest_typedmemeval import shipped_corpora

        return [(corpus.corpus_id, list(corpus.records)) for corpus in shipped_corpora()]
    out = []
    for name in paths:
        path = Path(name)
        records = json.loads(path.read_text(encoding="utf-8-sig"))
        if not isinstance(records, list):
            raise SystemExit(f"{path}: a corpus file holds a JSON list of records")
        out.append((path.name.removesuffix(".json"), records))
    return out


def _cell(result: Naturalness, name: str) -> str:
    share = getattr(result, name)
    if share.share is None:
        return f"— (n 0) | {BOUNDS[name]:.0%} | n/a"
    verdict = "pass" if share.share >= BOUNDS[name] else "FAIL"
    return f"{share.share:.1%} ({share.count}/{share.n}) | {BOUNDS[name]:.0%} | {verdict}"


def table(rows: list[tuple[str, Naturalness]]) -> list[str]:
    header = "| corpus | sessions | " + " | ".join(f"{label} | bound | verdict" for _, label in FIGURES)
    header += " | questions ending a session |"
    lines = [header, "|" + "---|" * (3 + 3 * len(FIGURES))]
    for name, result in rows:
        cells = " | ".join(_cell(result, figure) for figure, _ in FIGURES)
        lines.append(f"| {name} | {result.sessions} | {cells} | {result.questions_session_final} "
                     f"of {result.assistant_questions} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", help="corpus JSON files (default: the shipped corpora)")
    parser.add_argument("--json", action="store_true", help="print as_stats() per corpus as JSON")
    parser.add_argument("--pairs", type=int, metavar="N",
                        help="print N reply pairs drawn over all corpora named, one JSON object a line")
    parser.add_argument("--seed", type=int, default=0, help="seed of the --pairs draw (default 0)")
    options = parser.parse_args(argv)
    corpora = _corpora(options.paths)
    if options.pairs is not None:
        pooled = [record for _, records in corpora for record in records]
        for pair in reply_pairs(pooled, options.pairs, options.seed):
            print(json.dumps(pair, ensure_ascii=False))
        return 0
    rows = [(name, measure(records)) for name, records in corpora]
    if len(corpora) > 1:
        rows.append(("all (pooled)", measure(record for _, records in corpora for record in records)))
    if options.json:
        print(json.dumps({name: result.as_stats() for name, result in rows}, indent=2))
        return 0
    print("\n".join(table(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
