"""The form reader's false-refusal rate on a real corpus's own sizes: relabel gold among candidates.

``scripts/adversary_null.py`` moves gold to sessions drawn from the whole haystack; the form reader
then rarely finds gold among a question's candidates and measures almost nothing. This script keeps
the corpus's text and, per question, moves gold to as many sessions drawn uniformly among the
*candidate sessions* (:func:`pytest_typedmemeval.gates.form_reader.candidates`), so every question
the reader measured stays measured with labels no form can predict. A ``form_gold_at_1`` or
``form_auc`` refusal, or the episode view's ``episode_gold_at_1`` / ``episode_auc``, or the tail
view's ``tail_gold_at_1`` / ``tail_auc`` (per shape or pooled, each view at the gate's alpha / 2),
is then a false refusal. Each view is measured on its own relabelling, among its own candidate
sessions; ``--views`` picks views (default all three).

    python scripts/form_reader_null.py [--relabellings 40] [corpus.json ...]
"""

from __future__ import annotations

import argparse
import random
from collections import Counter
from dataclasses import replace
from pathlib import Path

from pytest_typedmemeval.corpus import load_corpus
from pytest_typedmemeval.gates import adversaries
from pytest_typedmemeval.gates.form_reader import candidates, form_scores, frame_words

CORPORA = Path(__file__).resolve().parent.parent / "corpora"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--relabellings", type=int, default=40)
    parser.add_argument("--views", default="form,episode,tail",
                        help="comma-separated gate view names (form = the clause view)")
    parser.add_argument("corpora", nargs="*", type=Path)
    args = parser.parse_args()
    views = dict(adversaries.FORM_READER_VIEWS)
    chosen = [view for view in args.views.split(",") if view]
    paths = args.corpora or sorted(CORPORA.glob("typedmemeval-*-v3.json"))
    for path in paths:
        corpus = load_corpus(path)
        haystacks = adversaries.read_haystacks(corpus.records)
        ranked = [qi for qi, h in enumerate(haystacks) if h.ranked]
        halves = adversaries.split_halves(haystacks, ranked)
        frames = frame_words(haystacks)
        found = {view: {qi: c for qi in ranked
                        if (c := candidates(haystacks[qi], views[view],
                                            frames[haystacks[qi].shape]))
                        is not None} for view in chosen}
        shapes = sorted({haystacks[qi].shape for qi in ranked})
        alpha = adversaries.LEARNED_ALPHA / max(1, len(shapes) + (1 if len(shapes) > 1 else 0))
        refused: Counter[str] = Counter()
        for seed in range(args.relabellings):
            rng = random.Random(f"form-null\x1f{corpus.sha256}\x1f{seed}")
            findings = []
            for view in chosen:
                moved = list(haystacks)
                for qi, c in found[view].items():
                    picked = rng.sample(list(c.session_list), len(c.gold))
                    moved[qi] = replace(haystacks[qi], gold=frozenset(picked))
                scored, _ = form_scores(moved, halves, views[view])
                view_alpha = alpha / adversaries.FORM_VIEWS
                for shape in shapes:
                    row = adversaries._form_row([q for q in ranked if moved[q].shape == shape],
                                                scored, shape, view_alpha, view)
                    if row["status"] == "measured":
                        findings += adversaries._form_findings(row, shape, "the shape's", view)
                if len({moved[q].shape for q in scored}) > 1:
                    findings += adversaries._form_findings(
                        adversaries._form_row(ranked, scored, adversaries.POOLED, view_alpha, view),
                        adversaries.POOLED, "all measured", view)
            rules = sorted({f"{f.rule}@{f.shape}" for f in findings})
            if rules:
                refused.update(rules)
                refused["(any)"] += 1
        runs = args.relabellings
        by_rule = dict(sorted((k, v) for k, v in refused.items() if k != "(any)"))
        measured = " + ".join(str(len(found[view])) for view in chosen)
        print(f"{corpus.corpus_id} ({corpus.sha256[:12]}): {measured} questions measured "
              f"({' + '.join(chosen)} view); "
              f"{refused['(any)']} of {runs} relabellings refused by the form reader "
              f"({refused['(any)'] / runs:.1%}); by rule and shape {by_rule}")


if __name__ == "__main__":
    main()
