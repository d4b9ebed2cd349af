"""The calendar reader (adversary gate rule ``calendar_arm``; red team 39).

Why it exists. Every other adversary asks whether *gold* can be found without the question's
meaning. Red team 39 answered the other half of a two-armed question — its *arm*, the typed answer's
time verdict ("not yet" against "due", before against after) — from the calendar alone: the asked
date T (the question date moved by the question's own "N days ago" / "in N days") minus the
haystack's last session date split Prospective ``0362efd5…``'s arms 50/50, and a threshold learned
on half the haystacks held 0.963 out. A reader that needs no statement to give the verdict is a
verdict a memory need not hold, so the gate refuses it.

What it reads. Per question with an arm (``typedmemeval.arm``) in a shape whose questions carry two
arms: three gaps in days, T − last session date, T − first session date, T − the median session date
(T by :func:`.adversary_tables.asked_date`, the table readers' date code); and, after red team 40
(Prospective ``fbf1df8d``: any statement's own due date fell on gold's side of T), the median, least
and greatest (due − T) over every forward interval any turn states, resolved from its session's
date as the offset reader does (:func:`due_gaps`), whatever its subject. The learner picks, on one
half, the feature, threshold and direction with the best training accuracy (ties: feature order,
then the lowest threshold) and predicts the other half; both directions. Halves are the gate's
(:func:`.adversary_haystacks.split_halves`): questions sharing a session stay on one side, so the
twin arms of one haystack are never split.

The figure is held-out accuracy; the bound is the larger arm's share + :data:`CALENDAR_MARGIN`.
It refuses only beyond chance: the arms relabelled within each shape :data:`CALENDAR_NULL_DRAWS`
times, the learner relearned each time (as :func:`.adversary_tables.table_null`). Rows: each
two-armed shape, and a pooled row (one learner over every two-armed shape's questions, arms
relabelled within shape) when there are two or more. A shape with no arms, or one arm, is not
applicable; questions without an arm inside a two-armed shape are excluded and counted.

What it cannot see. Shapes whose verdict is not typed as an arm (Prospective's as-of, current and
prospective: red team 39 derived their "has the successor taken over" label from the answer) are
not read; a corpus that hides a calendar tell there passes this rule.

Pure: a function of the records' dates, questions and arms and the half assignment; seeded draws.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from datetime import datetime, timedelta
from statistics import median
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..corpus.models import parse_corpus_date
from .adversary_chance import p_value
from .adversary_tables import asked_date, intervals

if TYPE_CHECKING:
    import numpy as np

CALENDAR_FEATURES: tuple[str, ...] = ("to_last", "to_first", "to_median",
                                      "due_median", "due_min", "due_max")
"""Days from the last, first and median session date to the asked date; then the median, least and
greatest of (due - asked date) over the haystack's stated due dates (:func:`due_gaps`; red team
40), 0 for all three when no turn states a forward interval."""
CALENDAR_MARGIN = 0.15
"""Refused when held-out accuracy > the larger arm's share + 0.15 (and beyond chance)."""
CALENDAR_NULL_DRAWS = 2000
"""Relabellings for chance (a p-value resolves to 1 / 2001, as the other views)."""
CALENDAR_MIN_QUESTIONS = 4
"""A two-armed shape with fewer arm questions than this (or a half with none) is not measured."""
CALENDAR_NULL_CONSTANT = "typedmemeval-adversaries-calendar-null-v1"


def due_gaps(texts: Sequence[Sequence[str]], dates: Sequence[datetime], target: datetime
             ) -> list[float]:
    """Days from the asked date to every due date the haystack states, whatever its subject.

    Why: red team 40 answered the arm of every two-armed question of Prospective ``fbf1df8d`` from
    *any* statement's own due date (its session date + "in N weeks" / "for the next N days"):
    every one fell on gold's side of the asked date. A due date is resolved exactly as the offset
    reader does (:func:`.adversary_tables.intervals`: each forward interval a turn states, from
    its session's date), in every turn of every session."""
    gaps: list[float] = []
    for session_texts, when in zip(texts, dates):
        for text in session_texts:
            forward, _ = intervals(text)
            gaps.extend(round((when + timedelta(days=days) - target).total_seconds() / 86400, 6)
                        for days in forward)
    return gaps


def calendar_features(question: str, question_date: str, dates: Sequence[str],
                      texts: Sequence[Sequence[str]] = ()) -> tuple[float, ...] | None:
    """The gaps in days (:data:`CALENDAR_FEATURES`), ``None`` when a date does not parse or the
    haystack has no dates. ``texts`` are the sessions' turns (for the due-date features; with
    none, or no stated interval, those three are 0: no due date says nothing about a side)."""
    try:
        target = asked_date(question, question_date)
        in_order = [parse_corpus_date(d) for d in dates]
    except ValueError:
        return None
    parsed = sorted(in_order)
    if not parsed:
        return None
    first, last = parsed[0], parsed[-1]
    half = len(parsed) // 2
    middle = parsed[half] if len(parsed) % 2 else parsed[half - 1] + (
        parsed[half] - parsed[half - 1]) / 2

    def days(a: Any) -> float:
        return round((target - a).total_seconds() / 86400, 6)

    due = sorted(due_gaps(texts, in_order, target))
    due_figures = (float(median(due)), due[0], due[-1]) if due else (0.0, 0.0, 0.0)
    return (days(last), days(first), days(middle)) + due_figures


def arm_shapes(arms: Sequence[str | None], shapes: Sequence[str]) -> dict[str, tuple[str, str]]:
    """Shapes whose questions carry exactly two arms, with those arms (sorted)."""
    seen: dict[str, Counter[str]] = {}
    for arm, shape in zip(arms, shapes):
        if arm is not None:
            seen.setdefault(shape, Counter())[arm] += 1
    return {shape: (min(c), max(c)) for shape, c in seen.items() if len(c) == 2}


def _fit_predict(x_train: "np.ndarray", y_train: "np.ndarray", x_test: "np.ndarray"
                 ) -> "np.ndarray":
    """Learned threshold reader, vectorised over label draws.

    ``x_train`` (n, F), ``y_train`` (D, n) booleans, ``x_test`` (m, F); returns (D, m) predictions.
    For each draw the (feature, cut, direction) with the best training accuracy wins; cuts sit
    between distinct sorted values (and below all), ties go to the first feature, lowest cut,
    "above is arm 1" before "below is arm 1"."""
    import numpy as np

    draws, n = y_train.shape
    best_acc = np.full(draws, -1.0)
    best_pred = np.zeros((draws, x_test.shape[0]), dtype=bool)
    for f in range(x_train.shape[1]):
        order = np.argsort(x_train[:, f], kind="stable")
        values = x_train[order, f]
        y = y_train[:, order].astype(float)
        # cut index c: predict 1 for sorted positions >= c; only where values change (or ends)
        cuts = [0] + [c for c in range(1, n) if values[c] > values[c - 1]] + [n]
        ones_below = np.concatenate([np.zeros((draws, 1)), np.cumsum(y, axis=1)], axis=1)
        total_ones = ones_below[:, -1:]
        cut_idx = np.asarray(cuts)
        below = ones_below[:, cut_idx]
        # above-is-1: correct = zeros below + ones above
        above_acc = ((cut_idx[None, :] - below) + (total_ones - below)) / n
        below_acc = 1.0 - above_acc
        thresholds = np.asarray([values[0] - 1.0 if c == 0 else values[-1] + 1.0 if c == n
                                 else (values[c - 1] + values[c]) / 2 for c in cuts])
        for acc, above in ((above_acc, True), (below_acc, False)):
            pick = acc.argmax(axis=1)
            chosen = acc[np.arange(draws), pick]
            better = chosen > best_acc + 1e-12
            if better.any():
                t = thresholds[pick][:, None]
                pred = (x_test[None, :, f] > t) if above else ~(x_test[None, :, f] > t)
                best_pred[better] = pred[better]
                best_acc[better] = chosen[better]
    return best_pred


def held_out_accuracy(features: "np.ndarray", labels: "np.ndarray", halves: Sequence[int]
                      ) -> "np.ndarray":
    """Per label draw (rows of ``labels``), the accuracy over both held-out halves."""
    import numpy as np

    halves_arr = np.asarray(halves)
    correct = np.zeros(labels.shape[0])
    for side in (0, 1):
        train, test = halves_arr != side, halves_arr == side
        if not train.any() or not test.any():
            continue
        pred = _fit_predict(features[train], labels[:, train], features[test])
        correct += (pred == labels[:, test]).sum(axis=1)
    return correct / labels.shape[1]


def _rng(key: str) -> "np.random.Generator":
    import numpy as np

    digest = hashlib.sha256(f"{CALENDAR_NULL_CONSTANT}\x1f{key}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "big"))


def _relabelled(labels: "np.ndarray", strata: Sequence[str], draws: int, key: str
                ) -> "np.ndarray":
    """``draws`` rows of ``labels`` permuted within each stratum (shape)."""
    import numpy as np

    rng = _rng(key)
    out = np.broadcast_to(labels, (draws, len(labels))).copy()
    for stratum in sorted(set(strata)):
        at = np.asarray([i for i, s in enumerate(strata) if s == stratum])
        perm = rng.random((draws, len(at))).argsort(axis=1)
        out[:, at] = labels[at][perm]
    return out


def calendar_row(rows: Sequence[tuple[tuple[float, ...], bool, str, int]], key: str,
                 alpha: float, draws: int = CALENDAR_NULL_DRAWS) -> dict[str, Any]:
    """One row's figures: ``rows`` are (features, label, shape, half) of its measured questions."""
    import numpy as np

    halves = [r[3] for r in rows]
    if len(rows) < CALENDAR_MIN_QUESTIONS or len(set(halves)) < 2:
        return {"status": "not_measured", "questions": len(rows),
                "reason": f"fewer than {CALENDAR_MIN_QUESTIONS} arm questions or one half empty"}
    features = np.asarray([r[0] for r in rows], dtype=float)
    labels = np.asarray([r[1] for r in rows], dtype=bool)
    strata = [r[2] for r in rows]
    accuracy = float(held_out_accuracy(features, labels[None, :], halves)[0])
    per_feature = {name: float(held_out_accuracy(features[:, [f]], labels[None, :], halves)[0])
                   for f, name in enumerate(CALENDAR_FEATURES)}
    null = held_out_accuracy(features, _relabelled(labels, strata, draws, key), halves)
    share = max(labels.mean(), 1 - labels.mean())
    bound = float(share + CALENDAR_MARGIN)
    return {"status": "measured", "questions": len(rows), "accuracy": accuracy,
            "accuracy_by_feature": per_feature, "majority_share": float(share), "bound": bound,
            "p_value": p_value(null, accuracy), "null_mean": float(null.mean()), "alpha": alpha,
            "refuses": bool(accuracy > bound and p_value(null, accuracy) < alpha)}


def calendar_reader(arms: Sequence[str | None], shapes: Sequence[str],
                    features: Sequence[tuple[float, ...] | None],
                    halves: Mapping[int, int], alpha: float, pooled_name: str,
                    draws: int = CALENDAR_NULL_DRAWS
                    ) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, int]]]:
    """Per two-armed shape and pooled, the :func:`calendar_row`; and per shape the exclusion
    counts (``no_arm``, ``no_dates``, ``no_half``)."""
    two = arm_shapes(arms, shapes)
    rows: dict[str, list[tuple[tuple[float, ...], bool, str, int]]] = {}
    excluded: dict[str, dict[str, int]] = {}
    for qi, shape in enumerate(shapes):
        if shape not in two:
            continue
        counts = excluded.setdefault(shape, {"no_arm": 0, "no_dates": 0, "no_half": 0})
        feats = features[qi]
        if arms[qi] is None:
            counts["no_arm"] += 1
        elif feats is None:
            counts["no_dates"] += 1
        elif qi not in halves:
            counts["no_half"] += 1
        else:
            rows.setdefault(shape, []).append(
                (feats, arms[qi] == two[shape][1], shape, halves[qi]))
    out = {shape: {**calendar_row(rows.get(shape, []), shape, alpha, draws),
                   "arms": list(two[shape])} for shape in sorted(two)}
    if len(rows) > 1:
        pooled = [r for shape in sorted(rows) for r in rows[shape]]
        out[pooled_name] = calendar_row(pooled, pooled_name, alpha, draws)
    return out, excluded


__all__ = ["CALENDAR_FEATURES", "CALENDAR_MARGIN", "CALENDAR_MIN_QUESTIONS", "CALENDAR_NULL_DRAWS",
           "arm_shapes", "calendar_features", "due_gaps", "calendar_reader", "calendar_row",
           "held_out_accuracy"]
