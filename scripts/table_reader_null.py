"""The table readers' false-refusal rate on a real corpus's own sizes: relabel gold among candidates.

Like ``scripts/form_reader_null.py`` for the form reader: the corpus's text is kept and, per
question, gold moves to as many sessions drawn uniformly among the view's own *candidate sessions*
(:func:`pytest_typedmemeval.gates.adversary_tables.table_scores`), so every measured question stays
measured with labels no frame, recurrence or offset can predict. A refusal by a table rule
(``frame_*``, ``frame_length_*``, ``recurrence_gold_at_1``, ``offset_*``; per shape or pooled, each
view at the gate's alpha / 2) is then a false refusal. ``--views`` picks views (default all four).

    python scripts/table_reader_null.py [--relabellings 40] [corpus.json ...]
"""

from __future__ import annotations

import argparse
import random
from collections import Counter
from dataclasses import replace
from pathlib import Path

from pytest_typedmemeval.corpus import load_corpus
from pytest_typedmemeval.gates import adversaries
from pytest_typedmemeval.gates.adversary_tables import TABLE_VIEWS, table_reader, table_scores

CORPORA = Path(__file__).resolve().parent.parent / "corpora"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--relabellings", type=int, default=40)
    parser.add_argument("--views", default=",".join(TABLE_VIEWS))
    parser.add_argument("--draws", type=int, default=2000,
                        help="the gate's chance draws per relabelled corpus (0: uniform rankings, "
                             "the form reader's null_draws, as before the relearned null)")
    parser.add_argument("corpora", nargs="*", type=Path)
    args = parser.parse_args()
    chosen = [view for view in args.views.split(",") if view]
    paths = args.corpora or sorted(CORPORA.glob("typedmemeval-*-v3.json"))
    for path in paths:
        corpus = load_corpus(path)
        haystacks = adversaries.read_haystacks(corpus.records)
        ranked = [qi for qi, h in enumerate(haystacks) if h.ranked]
        halves = adversaries.split_halves(haystacks, ranked)
        found = {view: table_scores(haystacks, halves, view)[0] for view in chosen}
        shapes = sorted({haystacks[qi].shape for qi in ranked})
        alpha = adversaries.LEARNED_ALPHA / max(1, len(shapes) + (1 if len(shapes) > 1 else 0))
        view_alpha = alpha / adversaries.FORM_VIEWS
        refused: Counter[str] = Counter()
        for seed in range(args.relabellings):
            rng = random.Random(f"table-null\x1f{corpus.sha256}\x1f{seed}")
            findings = []
            for view in chosen:
                moved = list(haystacks)
                for qi, (c, _) in found[view].items():
                    picked = rng.sample(list(c.session_list), len(c.gold))
                    moved[qi] = replace(haystacks[qi], gold=frozenset(picked))
                if args.draws:
                    scored, _, chance = table_reader(moved, halves, view, draws=args.draws)
                else:
                    (scored, _), chance = table_scores(moved, halves, view), None
                for shape in shapes:
                    row = adversaries._form_row([q for q in ranked if moved[q].shape == shape],
                                                scored, shape, view_alpha, view, chance)
                    if row["status"] == "measured":
                        findings += adversaries._form_findings(row, shape, "the shape's", view)
                if len({moved[q].shape for q in scored}) > 1:
                    findings += adversaries._form_findings(
                        adversaries._form_row(ranked, scored, adversaries.POOLED, view_alpha, view,
                                              chance),
                        adversaries.POOLED, "all measured", view)
            rules = sorted({f"{f.rule}@{f.shape}" for f in findings})
            if rules:
                refused.update(rules)
                refused["(any)"] += 1
        runs = args.relabellings
        by_rule = dict(sorted((k, v) for k, v in refused.items() if k != "(any)"))
        measured = " + ".join(str(len(found[view])) for view in chosen)
        print(f"{corpus.corpus_id} ({corpus.sha256[:12]}): {measured} questions measured "
              f"({' + '.join(chosen)}); {refused['(any)']} of {runs} relabellings refused by a "
              f"table rule ({refused['(any)'] / runs:.1%}); by rule and shape {by_rule}",
              flush=True)


if __name__ == "__main__":
    main()
