"""Aggregation of QuestionResults into typed vectors per corpus × vertical × shape.

There is deliberately no composite score: a number pooled over verticals would average mechanisms
that fail for different reasons. Every figure carries its n; rates carry Wilson 95% intervals;
coverage means are over defined values only, with the count of nulls beside them.
"""

from __future__ import annotations

import re
import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..judge.outcomes import ALL_OUTCOMES, JUDGED_OUTCOMES, SUBCOUNTS, Outcome
from ..results import QuestionResult
from .intervals import wilson_interval

REPORT_SCHEMA_VERSION = 1
ATTRIBUTIONS = ("present", "partial", "absent", "unobserved", "not_applicable")


def _quantiles(values: Sequence[float]) -> dict[str, float | None]:
    if not values:
        return {"mean": None, "min": None, "q1": None, "median": None, "q3": None, "max": None}
    ordered = sorted(values)
    if len(ordered) == 1:
        q1 = median = q3 = ordered[0]
    else:
        q1, median, q3 = statistics.quantiles(ordered, n=4, method="inclusive")
    return {"mean": round(statistics.fmean(ordered), 6), "min": ordered[0], "q1": round(q1, 6),
            "median": round(median, 6), "q3": round(q3, 6), "max": ordered[-1]}


def outcome_vector(results: Sequence[QuestionResult]) -> dict[str, Any]:
    """Counts, rates and Wilson intervals for every outcome, attribution and coverage figures."""
    n = len(results)
    counts = {outcome.value: 0 for outcome in ALL_OUTCOMES}
    for result in results:
        counts[result.outcome] = counts.get(result.outcome, 0) + 1
    outcomes = {
        name: {"count": count, "rate": round(count / n, 6) if n else None,
               "ci95": list(interval) if (interval := wilson_interval(count, n)) else None}
        for name, count in counts.items()
    }
    attribution = {name: 0 for name in ATTRIBUTIONS}
    for result in results:
        attribution[result.attribution] += 1
    applicable = n - attribution["not_applicable"]
    observed = applicable - attribution["unobserved"]
    coverage_values = [r.coverage for r in results if r.coverage is not None]
    subcounts = {name: sum(1 for r in results if name in r.subcounts) for name in SUBCOUNTS}
    return {
        "n": n,
        "outcomes": outcomes,
        "attribution": {**attribution,
                        "observed_share": round(observed / applicable, 6) if applicable else None},
        "coverage": {"n_defined": len(coverage_values), "n_null": n - len(coverage_values),
                     **_quantiles(coverage_values)},
        "subcounts": subcounts,
    }


def _surfaced_order(results: Sequence[QuestionResult]) -> dict[str, Any] | None:
    """List order over the surfaced items (J13.11): of the list questions whose answer names two or
    more items the system surfaced, how many state them in gold order. Beside the outcome vector,
    never in it (``None`` when no question has the figure)."""
    read = [r for r in results if r.surfaced_order_consistent is not None]
    if not read:
        return None
    consistent = sum(1 for r in read if r.surfaced_order_consistent)
    interval = wilson_interval(consistent, len(read))
    return {"n": len(read), "consistent": consistent, "rate": round(consistent / len(read), 6),
            "ci95": list(interval) if interval else None}


def _pair_consistency(results: Sequence[QuestionResult]) -> dict[str, Any] | None:
    """Prospective pair counts (§5.7). "Same answer" compares what the system *said*, never labels."""
    by_pair: dict[str, dict[str, QuestionResult]] = defaultdict(dict)
    for result in results:
        if result.pair_id and result.arm in ("before", "after"):
            by_pair[result.pair_id][result.arm] = result
    complete = {pid: arms for pid, arms in by_pair.items() if {"before", "after"} <= arms.keys()}
    if not by_pair:
        return None

    def said(result: QuestionResult) -> str:
        return " ".join((result.answer or "").casefold().split())

    return {
        "pairs": len(complete),
        "pairs_incomplete": sorted(set(by_pair) - set(complete)),
        "both_correct": sum(1 for a in complete.values()
                            if a["before"].outcome == a["after"].outcome == "correct"),
        "premature": sum(1 for a in complete.values() if a["before"].outcome == "premature"),
        "missed_after": sum(1 for a in complete.values() if a["after"].outcome == "missed"),
        "same_answer_both_arms": sum(1 for a in complete.values() if said(a["before"]) == said(a["after"])),
    }


def _opinions(result: QuestionResult) -> tuple[str, str] | None:
    """(mechanical, model) outcomes of one answer graded by both: under ``llm`` the model decided
    and the mechanical judge gave a second opinion; in the hybrid judge's sample the other way
    round. ``None`` when only one judge read it."""
    if result.mechanical_outcome is not None:
        return result.mechanical_outcome, result.outcome
    if result.model_outcome is not None:
        return result.outcome, result.model_outcome
    return None


def _agreement_counts(paired: Sequence[QuestionResult]) -> dict[str, Any]:
    judged = {outcome.value for outcome in JUDGED_OUTCOMES}
    pairs = [opinions for r in paired if (opinions := _opinions(r)) is not None]
    compared = [(a, b) for a, b in pairs if a in judged and b in judged]
    agreed = sum(1 for a, b in compared if a == b)
    interval = wilson_interval(agreed, len(compared))
    return {"n": len(paired), "compared": len(compared), "agreed": agreed,
            "agreement_rate": round(agreed / len(compared), 6) if compared else None,
            "ci95": list(interval) if interval else None}


def judge_agreement(results: Iterable[QuestionResult]) -> dict[str, Any] | None:
    """The mechanical judge's second opinion against the model judge's verdict, where both graded.

    Only answers both judges read count (``--tme-judge llm``: every judged answer, the mechanical
    outcome its second opinion; ``hybrid``: the mechanically unjudged ones, whose ``unjudged`` row
    shows what the model made of them, and the seeded sample of the others, ``sampled``, whose model
    outcome is the second opinion: J13.14). ``compared`` keeps the answers both judges
    gave one of the five memory verdicts; an ``unjudged`` (mechanical) or an ``error`` (model
    endpoint) is no opinion to agree with, and is counted apart. ``None`` when no result has both.
    Pooled over verticals (and corpora) because it measures the judges, not the memory; the
    per-vertical split is beside it.
    """
    paired = sorted((r for r in results if _opinions(r) is not None), key=lambda r: r.key)
    if not paired:
        return None
    labels = [outcome.value for outcome in ALL_OUTCOMES]
    matrix = {row: {column: 0 for column in labels} for row in labels}
    for result in paired:
        mechanical, model = _opinions(result)  # type: ignore[misc]
        matrix[mechanical][model] += 1
    by_vertical: dict[str, list[QuestionResult]] = defaultdict(list)
    for result in paired:
        by_vertical[result.vertical].append(result)
    return {
        **_agreement_counts(paired),
        "mechanical_unjudged": sum(1 for r in paired if r.mechanical_outcome == Outcome.UNJUDGED.value),
        "model_errors": sum(1 for r in paired if Outcome.ERROR.value in (r.outcome, r.model_outcome)),
        "sampled": sum(1 for r in paired if r.model_outcome is not None),
        "confusion": {"rows": "mechanical", "columns": "model", "matrix": matrix},
        "by_vertical": {vertical: _agreement_counts(rs) for vertical, rs in sorted(by_vertical.items())},
    }


def _numbers(shape: str) -> tuple[int, ...]:
    return tuple(int(digits) for digits in re.findall(r"\d+", shape))


def shape_order(shapes: Iterable[str]) -> list[str]:
    """Shapes in report order: first appearance (by question id), except that shapes differing
    only in their numbers sort by those numbers, in place of the first of them
    (``distance-8, distance-15, …, distance-60``, not the shuffled id order ``distance-15,
    distance-60, distance-8``; issue 22, item 8). Deterministic, so reports stay byte-identical."""
    names = list(dict.fromkeys(shapes))
    first: dict[str, int] = {}
    for shape in names:
        first.setdefault(re.sub(r"\d+", "#", shape), len(first))
    return sorted(names, key=lambda s: (first[re.sub(r"\d+", "#", s)], _numbers(s)))


def ordered_shapes(vertical: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """A report's per-shape vectors of one vertical in :func:`shape_order` — also for a report
    written before that order (the HTML, bands and comparisons re-read old reports)."""
    rows = list(vertical.get("shapes") or [])
    order = {shape: index for index, shape in enumerate(shape_order(str(r["shape"]) for r in rows))}
    return sorted(rows, key=lambda r: order[str(r["shape"])])


def aggregate(results: Iterable[QuestionResult]) -> dict[str, Any]:
    """Group results into per-vertical and per-shape vectors, per corpus (never across corpora)."""
    ordered = sorted(results, key=lambda r: r.key)
    by_corpus: dict[str, list[QuestionResult]] = defaultdict(list)
    for result in ordered:
        by_corpus[result.corpus_id].append(result)
    corpora: list[dict[str, Any]] = []
    for corpus_id, corpus_results in sorted(by_corpus.items()):
        verticals: dict[str, list[QuestionResult]] = defaultdict(list)
        for result in corpus_results:
            verticals[result.vertical].append(result)
        vertical_rows = []
        for vertical, vertical_results in sorted(verticals.items()):
            shapes: dict[str, list[QuestionResult]] = defaultdict(list)
            for result in vertical_results:
                shapes[result.shape].append(result)
            row: dict[str, Any] = {
                "vertical": vertical,
                **outcome_vector(vertical_results),
                "shapes": [{"shape": shape, **outcome_vector(shapes[shape])} for shape in shape_order(shapes)],
            }
            pairs = _pair_consistency(vertical_results)
            if pairs is not None:
                row["pair_consistency"] = pairs
            order = _surfaced_order(vertical_results)
            if order is not None:
                row["surfaced_order"] = order
            distances = sorted({r.distance_sessions for r in vertical_results if r.distance_sessions is not None})
            if distances:
                row["outcome_by_distance"] = [
                    {"distance_sessions": d,
                     **outcome_vector([r for r in vertical_results if r.distance_sessions == d])}
                    for d in distances
                ]
            vertical_rows.append(row)
        corpora.append({"corpus_id": corpus_id, "corpus_sha256": corpus_results[0].corpus_sha256,
                        "n": len(corpus_results), "verticals": vertical_rows})
    return {"results": corpora, "judge_agreement": judge_agreement(ordered)}
