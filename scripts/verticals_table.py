"""Print the README's tables of shipped verticals and the reference agent's typed vectors.

Usage (from anywhere, with the package installed):

    pytest --typedmemeval --tme-agent reference --tme-fail-under 0 --tme-report report.json
    python scripts/verticals_table.py report.json
    python scripts/verticals_table.py --samples     # three sessions per vertical, as shipped
    python scripts/verticals_table.py --adversaries # the adversary gate's figures per shape
    python scripts/verticals_table.py --tables      # its table readers (frames, recurrence, offsets)
    python scripts/verticals_table.py --form        # the form reader's three views per shape

The corpus figures (n, G and H ranges, ceiling at K_ref, mean BM25 coverage) are recomputed from the
shipped bytes by the same functions the gates use; the outcome vectors are read from the report of
the real run, so the README can only show what that command produced.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict

from pytest_typedmemeval import shipped_corpora
from pytest_typedmemeval.gates import adversaries, calibration
from pytest_typedmemeval.retrieval import K_REF
from pytest_typedmemeval.retrieval.panel import DENSE_NAME


def _range(values: list[int]) -> str:
    return f"{min(values)}" if min(values) == max(values) else f"{min(values)}–{max(values)}"


def _panel_cell(measured: dict, shape: str) -> str:
    """Panel maximum and dense figure for the shape, as the calibration gate measured them."""
    row = measured.get("panel", {}).get("by_shape", {}).get(shape) or {}
    if row.get("max") is None:
        return "— | —"
    dense = row.get(DENSE_NAME)
    dense_text = f"{dense:.3f}" if dense is not None else "not measured"
    return f"{row['max']:.3f} ({row['max_by']}) | {dense_text}"


def corpus_table() -> list[str]:
    lines = ["| vertical | shape | n | G | H | ceiling at K_ref=5 | mean BM25 coverage "
             "| panel max | dense |",
             "|---|---|---|---|---|---|---|---|---|"]
    for corpus in shipped_corpora():
        measured = calibration.check(corpus).measured
        by_shape: dict[str, list] = defaultdict(list)
        for record in corpus.records:
            by_shape[record.shape].append(record)
        for shape in sorted(by_shape):
            records = by_shape[shape]
            gs = [len(r.gold_session_indices) for r in records]
            hs = [len(r.haystack_sessions) - g for r, g in zip(records, gs)]
            ceilings = [min(1.0, K_REF / g) for g in gs if g]
            ceiling = f"{sum(ceilings) / len(ceilings):.2f}" if ceilings else "—"
            stats = measured.get("coverage_by_shape", {}).get(shape, {})
            mean = stats.get("mean") if isinstance(stats, dict) else None
            coverage = f"{mean:.3f}" if isinstance(mean, float) else "— (no gold)"
            panel = _panel_cell(measured, shape) if ceilings else "— | —"
            lines.append(f"| {corpus.vertical} | {shape} | {len(records)} | {_range(gs)} | {_range(hs)} "
                         f"| {ceiling} | {coverage} | {panel} |")
    return lines


def samples(per_vertical: int = 3) -> list[str]:
    """Three sessions per shipped vertical, verbatim: the first question's first gold session and
    two of its other sessions (fixed positions, so the README sample is reproducible)."""
    lines: list[str] = []
    for corpus in shipped_corpora():
        record = next(r for r in corpus.records if r.gold_session_indices)
        gold = record.gold_session_indices[0]
        others = [i for i in range(len(record.haystack_sessions)) if i != gold]
        chosen = [gold, *others[len(others) // 3::len(others) // 3][: per_vertical - 1]]
        lines.append(f"#### {corpus.corpus_id} — {record.question_id}: {record.question}")
        lines.append("")
        for index in chosen:
            label = "gold" if index in record.gold_session_indices else "other"
            lines.append(f"Session {index} ({label}):")
            lines.append("")
            for turn in record.haystack_sessions[index]:
                lines.append(f"> **{turn.role}:** {turn.content}  ")
            lines.append("")
    return lines


def _figure(row: dict, name: str, figure: str, random: str | None = None) -> str:
    cell = row.get(name, {})
    if cell.get("status") != "measured":
        return "—"
    text = f"{cell[figure]:.2f}"
    return f"{text} / {cell[random]:.2f}" if random else text


def adversary_table() -> list[str]:
    """Per shipped corpus and shape (and the pooled row): the adversary gate's verdict and figures,
    as ``check`` measures them from the shipped bytes."""
    lines = ["| corpus | shape | verdict | learned gold@1 | AUC | position | reader "
             "| fact-only BM25 | phrase reader |", "|---|---|---|---|---|---|---|---|---|"]
    for corpus in shipped_corpora():
        result = adversaries.check(corpus)
        measured = result.measured
        name = corpus.corpus_id.removeprefix("typedmemeval-")
        if measured["enforced"]:
            fired = {r.shape for r in result.refusals}
        else:
            fired = {row["shape"] for row in measured["would_refuse"]}
        rows = [(shape, row) for shape, row in sorted(measured["by_shape"].items())
                if row["measured_questions"]]
        pooled = measured.get("pooled", {})
        if pooled.get("learned", {}).get("status") == "measured":
            rows.append((adversaries.POOLED, pooled))
        for shape, row in rows:
            if measured["enforced"]:
                verdict = "refused" if shape in fired else "passed"
            else:
                verdict = "skipped (beaten)" if shape in fired else "skipped"
            lines.append(
                f"| {name} | {shape} | {verdict} | "
                f"{_figure(row, 'learned', 'gold_at_1', 'random_gold_at_1')} | "
                f"{_figure(row, 'learned', 'auc')} | "
                f"{_figure(row, 'position_prior', 'coverage_at_5', 'random_coverage_at_5')} | "
                f"{_figure(row, 'subject_value_reader', 'gold_at_1')} | "
                f"{_figure(row, 'fact_only_bm25', 'coverage_at_5')} | "
                f"{_figure(row, 'phrase_reader', 'coverage_at_5')} |")
    return lines


def _form_cells(row: dict, view: str) -> str:
    """One view's cells: questions, candidate sessions, gold@1 / random (bound), AUC."""
    figures = row.get(f"{view}_reader", {})
    if figures.get("status") != "measured":
        return "0 | — | — | —"
    return (f"{figures['questions']} | {figures['mean_candidate_sessions']:.1f} | "
            f"{figures['gold_at_1']:.2f} / {figures['random_gold_at_1']:.2f} "
            f"({figures['gold_at_1_bound']:.2f}) | {figures['auc']:.2f}")


def form_table() -> list[str]:
    """The form reader's clause, episode and tail views per shape and pooled (adversary gate rules
    ``form_*``, ``episode_*`` and ``tail_*``), recomputed from the shipped bytes."""
    views = ("form", "episode", "tail")
    header = "| corpus | shape | verdict (all views) |" + "".join(
        f" {label}: questions | candidate sessions | gold@1 / random (bound) | AUC |"
        for label in ("clause", "episode", "tail"))
    lines = [header, "|---|---|---|" + "---|---|---|---|" * len(views)]
    form_rules = {f"{prefix}_{figure}" for prefix in ("form", "episode", "tail")
                  for figure in ("gold_at_1", "auc")}
    for corpus in shipped_corpora():
        result = adversaries.check(corpus)
        measured = result.measured
        name = corpus.corpus_id.removeprefix("typedmemeval-")
        fired = {(r.rule, r.shape) for r in result.refusals}
        rows = sorted(measured["by_shape"].items())
        pooled = measured.get("pooled", {})
        if any(pooled.get(f"{v}_reader", {}).get("status") == "measured" for v in views):
            rows.append((adversaries.POOLED, pooled))
        for shape, row in rows:
            measured_any = any(row.get(f"{v}_reader", {}).get("status") == "measured"
                               for v in views)
            verdict = ("refused" if any(rule in form_rules and where == shape
                                        for rule, where in fired)
                       else "passed" if measured_any else "—")
            lines.append(f"| {name} | {shape} | {verdict} | "
                         + " | ".join(_form_cells(row, v) for v in views) + " |")
    return lines


def _table_cells(row: dict, view: str, auc: bool = True) -> str:
    """One table reader's cells: coverage, gold@1 / random, AUC (``—`` when not measured)."""
    figures = row.get(f"{view}_reader", {})
    if figures.get("status") != "measured":
        return "— | —" + (" | —" if auc else "")
    cells = f"{figures['coverage']} | {figures['gold_at_1']:.2f} / {figures['random_gold_at_1']:.2f}"
    return cells + (f" | {figures['auc']:.2f}" if auc else "")


def tables_table() -> list[str]:
    """The table readers per shape and pooled (adversary gate rules ``frame_*``,
    ``frame_length_*``, ``recurrence_gold_at_1``, ``offset_*``), recomputed from the shipped
    bytes."""
    views = adversaries.TABLE_VIEWS
    header = ("| corpus | shape | verdict (table rules) | frame: measured | gold@1 / random | AUC "
              "| word lengths: measured | gold@1 / random | AUC | recurrence: measured "
              "| gold@1 / random | date offset: measured | gold@1 / random | AUC |")
    lines = [header, "|---|---|---|" + "---|" * 11]
    table_rules = {r for r in adversaries.RULES if r.split("_")[0] in ("frame", "recurrence",
                                                                        "offset")}
    for corpus in shipped_corpora():
        result = adversaries.check(corpus)
        measured = result.measured
        name = corpus.corpus_id.removeprefix("typedmemeval-")
        fired = {(r.rule, r.shape) for r in result.refusals}
        rows = sorted(measured["by_shape"].items())
        pooled = measured.get("pooled", {})
        if any(pooled.get(f"{v}_reader", {}).get("status") == "measured" for v in views):
            rows.append((adversaries.POOLED, pooled))
        for shape, row in rows:
            refused = sorted(rule for rule, where in fired if rule in table_rules and where == shape)
            verdict = "refused: " + ", ".join(refused) if refused else "passed"
            lines.append(f"| {name} | {shape} | {verdict} | "
                         + " | ".join(_table_cells(row, v, auc=v != "recurrence") for v in views)
                         + " |")
    return lines


def outcome_table(report: dict) -> list[str]:
    lines = ["| vertical | shape | n | correct | wrong | abstained | missed | premature | unjudged "
             "| error |", "|---|---|---|---|---|---|---|---|---|---|"]
    for corpus in report["results"]:
        for vertical in corpus["verticals"]:
            for shape in vertical["shapes"]:
                counts = [shape["outcomes"][o]["count"] for o in
                          ("correct", "wrong", "abstained", "missed", "premature", "unjudged",
                           "error")]
                lines.append(f"| {vertical['vertical']} | {shape['shape']} | {shape['n']} | "
                             + " | ".join(str(c) for c in counts) + " |")
    return lines


def main() -> None:
    if sys.argv[1:] == ["--samples"]:
        print("\n".join(samples()))
        return
    if sys.argv[1:] == ["--adversaries"]:
        print("\n".join(adversary_table()))
        return
    if sys.argv[1:] == ["--tables"]:
        print("\n".join(tables_table()))
        return
    if sys.argv[1:] == ["--form"]:
        print("\n".join(form_table()))
        return
    print("\n".join(corpus_table()))
    if len(sys.argv) > 1:
        with open(sys.argv[1], encoding="utf-8") as handle:
            report = json.load(handle)
        print()
        print("\n".join(outcome_table(report)))
        print()
        for row in report["corpora"]:
            print(f"- {row['corpus_id']}: sha256 {row['sha256'][:12]}")


if __name__ == "__main__":
    main()
