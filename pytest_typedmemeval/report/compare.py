"""Two run sets side by side (system A vs B, or before vs after a change).

Per shape, the difference of correct rates B − A with a 95% interval by Newcombe's hybrid score
method (Newcombe 1998, method 10: the difference of two Wilson intervals combined in quadrature).
It treats A and B as independent samples; both answer the same questions, a paired design, so the
interval is conservative (wider than a paired one), never overconfident. With several runs on a
side, the side's rate is the mean over its runs and its count the mean correct count over the
shape's n questions: repeated runs of the same questions are not new questions, so they are
averaged, not pooled (pooling would shrink the interval for free). The run-to-run spread is what
the bands show.

Each side must be bandable on its own (§5.10), and both sides must have run the same corpora and
questions; a different judge or model between the sides is allowed (it may be the change under
test) and is noted.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from .aggregate import ordered_shapes
from .bands import BandError, Report, check_comparable, outcomes_by_question, question_keys
from .intervals import wilson_interval

INTERVAL_METHOD = "Newcombe hybrid score (method 10) for B − A, independent-samples form (conservative for paired runs)"
FAILURE_FIRST = ("error", "wrong", "missed", "premature", "abstained", "unjudged", "correct")


@dataclass(frozen=True)
class ShapeDifference:
    """Correct rate of one shape (``shape`` ``None``: whole vertical) on each side, and B − A."""

    corpus_id: str
    vertical: str
    shape: str | None
    n: int
    rate_a: float | None
    rate_b: float | None
    diff: float | None
    ci95: tuple[float, float] | None


@dataclass(frozen=True)
class ChangedQuestion:
    """A question whose outcomes differ between the sides; ``direction`` is ``regressed`` (B lost a
    correct), ``improved`` (B gained one) or ``shifted`` (a change among the failure outcomes)."""

    corpus_id: str
    question_id: str
    vertical: str
    shape: str
    question: str
    gold: str
    outcomes_a: tuple[str, ...]
    outcomes_b: tuple[str, ...]
    answer_a: str
    answer_b: str
    direction: str


@dataclass(frozen=True)
class Comparison:
    label_a: str
    label_b: str
    runs_a: int
    runs_b: int
    shapes: tuple[ShapeDifference, ...]
    changed: tuple[ChangedQuestion, ...]
    notes: tuple[str, ...]
    method: str = INTERVAL_METHOD

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data (for ``typedmemeval report --json``)."""
        return {
            "labels": [self.label_a, self.label_b], "runs": [self.runs_a, self.runs_b], "method": self.method,
            "notes": list(self.notes),
            "shapes": [{"corpus_id": s.corpus_id, "vertical": s.vertical, "shape": s.shape, "n": s.n,
                        "rate_a": s.rate_a, "rate_b": s.rate_b, "diff": s.diff,
                        "ci95": list(s.ci95) if s.ci95 else None} for s in self.shapes],
            "changed": [{"corpus_id": c.corpus_id, "question_id": c.question_id, "direction": c.direction,
                         "outcomes_a": list(c.outcomes_a), "outcomes_b": list(c.outcomes_b)} for c in self.changed],
        }


def newcombe_interval(successes_a: float, n_a: int, successes_b: float, n_b: int) -> tuple[float, float] | None:
    """95% interval of p_b − p_a (hybrid score); ``None`` when either side has no questions."""
    # Wilson's formula holds for any 0 <= x <= n (a mean count over runs); intervals.py types it int.
    wa, wb = wilson_interval(cast(int, successes_a), n_a), wilson_interval(cast(int, successes_b), n_b)
    if wa is None or wb is None:
        return None
    pa, pb = successes_a / n_a, successes_b / n_b
    diff = pb - pa
    lower = diff - math.sqrt((pb - wb[0]) ** 2 + (wa[1] - pa) ** 2)
    upper = diff + math.sqrt((wb[1] - pb) ** 2 + (pa - wa[0]) ** 2)
    return (round(max(-1.0, lower), 6), round(min(1.0, upper), 6))


def _correct_counts(reports: Sequence[Report]) -> dict[tuple[str, str, str | None], tuple[int, list[int]]]:
    """(corpus, vertical, shape or None) -> (n, correct count per run)."""
    cells: dict[tuple[str, str, str | None], tuple[int, list[int]]] = {}
    for report in reports:
        for corpus in report.get("results") or []:
            for vertical in corpus.get("verticals") or []:
                rows = [(None, vertical), *((s["shape"], s) for s in ordered_shapes(vertical))]
                for shape, row in rows:
                    key = (corpus["corpus_id"], vertical["vertical"], shape)
                    n, counts = cells.setdefault(key, (int(row.get("n") or 0), []))
                    counts.append(int(row["outcomes"]["correct"]["count"]))
    return cells


def _direction(a: tuple[str, ...], b: tuple[str, ...]) -> str:
    share_a, share_b = a.count("correct") / len(a), b.count("correct") / len(b)
    return "regressed" if share_b < share_a else "improved" if share_b > share_a else "shifted"


def _modal(outcomes: tuple[str, ...]) -> str:
    counts = Counter(outcomes)
    return min(counts, key=lambda o: (-counts[o], FAILURE_FIRST.index(o) if o in FAILURE_FIRST else 99))


def compare_runs(a: Sequence[Report], b: Sequence[Report], *, labels: tuple[str, str] = ("A", "B")) -> Comparison:
    """Compare run set ``a`` with run set ``b``; raise :class:`.bands.BandError` (one line) when a
    side is not bandable or the sides ran different corpora or questions."""
    if not a or not b:
        raise BandError("cannot compare runs: each side needs at least one report")
    check_comparable(a, what="compare")
    check_comparable(b, what="compare")
    try:
        check_comparable([a[0], b[0]], what="compare")
    except BandError as error:
        message = str(error)
        if "judge fingerprint" not in message and "answer-sampling" not in message and "options" not in message:
            raise BandError(message.replace("run 1", labels[0]).replace("run 2", labels[1])) from None
    if question_keys(a[0]) != question_keys(b[0]):
        raise BandError(f"cannot compare runs: {labels[0]} ran {len(question_keys(a[0]))} questions, "
                        f"{labels[1]} ran {len(question_keys(b[0]))}; compare runs of the same selection")
    notes = []
    if (a[0].get("judge") or {}).get("fingerprint") != (b[0].get("judge") or {}).get("fingerprint"):
        notes.append("the sides were judged by different judges (fingerprints differ): a difference may be the judge's")
    cells_a, cells_b = _correct_counts(a), _correct_counts(b)
    shapes = []
    for key, (n, counts_a) in cells_a.items():
        counts_b = cells_b.get(key, (n, []))[1]
        if not n or not counts_b:
            shapes.append(ShapeDifference(*key, n, None, None, None, None))
            continue
        mean_a, mean_b = statistics.fmean(counts_a), statistics.fmean(counts_b)
        rate_a, rate_b = round(mean_a / n, 6), round(mean_b / n, 6)
        shapes.append(ShapeDifference(*key, n, rate_a, rate_b, round(rate_b - rate_a, 6),
                                      newcombe_interval(mean_a, n, mean_b, n)))
    rows_a, rows_b = outcomes_by_question(a), outcomes_by_question(b)
    changed = []
    for key in sorted(rows_a):
        qa, qb = rows_a[key], rows_b.get(key, [])
        out_a, out_b = tuple(str(r["outcome"]) for r in qa), tuple(str(r["outcome"]) for r in qb)
        if not out_b or set(out_a) == set(out_b):
            continue
        first = qa[0]
        changed.append(ChangedQuestion(
            key[0], key[1], str(first["vertical"]), str(first["shape"]), str(first.get("question") or ""),
            str(first.get("gold") or ""), out_a, out_b, str(qa[-1].get("answer") or ""),
            str(qb[-1].get("answer") or ""), _direction(out_a, out_b)))
    order = {"regressed": 0, "improved": 1, "shifted": 2}
    changed.sort(key=lambda c: (order[c.direction], c.corpus_id, c.question_id))
    return Comparison(labels[0], labels[1], len(a), len(b), tuple(shapes), tuple(changed), tuple(notes))


def comparison_lines(comparison: Comparison, *, top: int = 10) -> list[str]:
    """A terminal summary: per-shape B − A with its interval, then the changed questions."""
    a, b = comparison.label_a, comparison.label_b
    lines = [f"{b} − {a}: correct rate difference per shape, 95% interval ({comparison.method})"]
    for s in comparison.shapes:
        name = f"{s.corpus_id} {s.vertical}" + (f" / {s.shape}" if s.shape else "")
        if s.diff is None or s.ci95 is None:
            lines.append(f"  {name}: n={s.n} no rate")
            continue
        lines.append(f"  {name}: n={s.n} {a} {s.rate_a:.0%} {b} {s.rate_b:.0%} diff {s.diff * 100:+.0f} pp "
                     f"[{s.ci95[0] * 100:+.0f}, {s.ci95[1] * 100:+.0f}]")
    counts = Counter(c.direction for c in comparison.changed)
    lines.append(f"  changed questions: {len(comparison.changed)} (regressed {counts['regressed']}, "
                 f"improved {counts['improved']}, shifted {counts['shifted']})")
    for c in comparison.changed[:top]:
        lines.append(f"  {c.direction}: {c.corpus_id}/{c.question_id} {_modal(c.outcomes_a)} -> {_modal(c.outcomes_b)}")
    lines.extend(f"  note: {note}" for note in comparison.notes)
    return lines


__all__ = ["INTERVAL_METHOD", "ChangedQuestion", "Comparison", "ShapeDifference", "compare_runs",
           "comparison_lines", "newcombe_interval"]
