"""Baseline currency and directional comparison (GATES.md §6, VERTICALS.md §6.5): gate ``baseline``.

Inputs are plain mappings, question id -> outcome string, for the recorded snapshot and a fresh
deterministic run. ``compare`` sorts every difference into:

``drift``
    the question set changed (ids added or removed) or an outcome outside the vocabulary
    appeared: the two runs are not comparable — a validity failure, not a lower score. The other
    groups are then computed over the questions both runs share, for information.
``regressions``
    a question lost ``correct``; or, over the shared questions, a higher-is-better count fell or a
    lower-is-better count rose.
``improvements``
    a question gained ``correct``; or a count moved the good way. Reported, never required.
``shifts``
    any other per-question change (``wrong`` -> ``abstained``, ``missed`` -> ``wrong``, ...), and
    any change in a neutral count.

Count directions (``COUNT_DIRECTIONS``): ``correct`` is higher-is-better; ``wrong``, ``missed``,
``premature``, ``unjudged`` and ``error`` are lower-is-better; ``abstained`` is neutral — declining is the right
answer on never-known probes and a failure elsewhere, so its count alone says nothing about
direction. A per-question move between two non-correct outcomes is a shift, but the counts it
moves still count: ``abstained`` -> ``wrong`` raises ``wrong`` and is a regression.

``check`` refuses by ``not_current`` (any difference at all: the arm is deterministic, so exact
equality is achievable and a moved baseline is re-recorded in the same change), ``drift`` and
``regression``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any, Literal

from ..judge.outcomes import ALL_OUTCOMES
from .result import GateResult, Refusal, SelfTestCase, control_case, defect_case

GATE = "baseline"

OUTCOMES: tuple[str, ...] = tuple(outcome.value for outcome in ALL_OUTCOMES)
"""correct, wrong, abstained, missed, premature (VERTICALS.md §5.1), unjudged and error."""

Direction = Literal["higher", "lower", "neutral"]
COUNT_DIRECTIONS: dict[str, Direction] = {
    "correct": "higher",
    "wrong": "lower",
    "missed": "lower",
    "premature": "lower",
    "error": "lower",
    "abstained": "neutral",
    "unjudged": "lower",
}
"""Which way each outcome count should move (module docstring explains ``abstained``)."""


@dataclass(frozen=True)
class Change:
    """One difference: a question's outcome (``kind="question"``) or an outcome count."""

    kind: Literal["question", "count"]
    subject: str
    before: str | int | None
    after: str | int | None

    def line(self) -> str:
        return f"{self.subject}: {self.before} -> {self.after}"


@dataclass(frozen=True)
class BaselineComparison:
    """The sorted differences between a recorded and a fresh run (module docstring)."""

    current: bool
    drift: tuple[str, ...]
    regressions: tuple[Change, ...]
    improvements: tuple[Change, ...]
    shifts: tuple[Change, ...]
    added: tuple[str, ...]
    removed: tuple[str, ...]
    recorded_counts: dict[str, int]
    fresh_counts: dict[str, int]
    compared: int
    """Questions present in both runs (the population the other groups are computed over)."""

    @property
    def no_regression(self) -> bool:
        """The *no regression* gate: green unless drift or at least one regression."""
        return not self.drift and not self.regressions


def _counts(outcomes: Mapping[str, str], ids: frozenset[str] | set[str]) -> dict[str, int]:
    counter = Counter(outcomes[qid] for qid in ids)
    return {outcome: counter.get(outcome, 0) for outcome in OUTCOMES}


def _plain(outcomes: Mapping[str, Any]) -> dict[str, str]:
    # An ``Outcome`` member and its string compare equal; plain strings keep the measured figures
    # and the messages free of enum reprs.
    return {str(qid): str(outcome.value if isinstance(outcome, Enum) else outcome)
            for qid, outcome in outcomes.items()}


def compare(recorded: Mapping[str, str], fresh: Mapping[str, str]) -> BaselineComparison:
    """Sort the differences between ``recorded`` and ``fresh`` (question id -> outcome; ``Outcome``
    members are accepted as their values)."""
    recorded, fresh = _plain(recorded), _plain(fresh)
    added = tuple(sorted(set(fresh) - set(recorded)))
    removed = tuple(sorted(set(recorded) - set(fresh)))
    shared = set(recorded) & set(fresh)
    drift: list[str] = []
    if added:
        drift.append(f"{len(added)} question(s) added: {', '.join(added[:10])}"
                     + (" ..." if len(added) > 10 else ""))
    if removed:
        drift.append(f"{len(removed)} question(s) removed: {', '.join(removed[:10])}"
                     + (" ..." if len(removed) > 10 else ""))
    for side, outcomes in (("recorded", recorded), ("fresh", fresh)):
        unknown = sorted({outcome for outcome in outcomes.values() if outcome not in OUTCOMES})
        if unknown:
            drift.append(f"{side} run has outcome(s) outside the vocabulary {list(OUTCOMES)}: "
                         f"{unknown}")
    regressions: list[Change] = []
    improvements: list[Change] = []
    shifts: list[Change] = []
    for qid in sorted(shared):
        before, after = recorded[qid], fresh[qid]
        if before == after:
            continue
        change = Change("question", qid, before, after)
        if before == "correct":
            regressions.append(change)
        elif after == "correct":
            improvements.append(change)
        else:
            shifts.append(change)
    recorded_counts = _counts(recorded, shared)
    fresh_counts = _counts(fresh, shared)
    for outcome in OUTCOMES:
        before_n, after_n = recorded_counts[outcome], fresh_counts[outcome]
        if before_n == after_n:
            continue
        change = Change("count", outcome, before_n, after_n)
        direction = COUNT_DIRECTIONS[outcome]
        if direction == "neutral":
            shifts.append(change)
        elif (after_n > before_n) == (direction == "higher"):
            improvements.append(change)
        else:
            regressions.append(change)
    return BaselineComparison(
        current=dict(recorded) == dict(fresh), drift=tuple(drift), regressions=tuple(regressions),
        improvements=tuple(improvements), shifts=tuple(shifts), added=added, removed=removed,
        recorded_counts=recorded_counts, fresh_counts=fresh_counts, compared=len(shared),
    )


def check(recorded: Mapping[str, str], fresh: Mapping[str, str], *, corpus_id: str) -> GateResult:
    """Gate ``baseline``: refused by ``not_current``, ``drift`` and ``regression``.

    Two empty runs compare nothing and are *skipped* with that reason: an empty comparison must
    never read as a current baseline.
    """
    if not recorded and not fresh:
        return GateResult(GATE, corpus_id, "skipped",
                          skip_reason="neither the recorded baseline nor the fresh run has any "
                          "question outcome: nothing was compared")
    recorded, fresh = _plain(recorded), _plain(fresh)
    comparison = compare(recorded, fresh)
    refusals: list[Refusal] = []
    differing = len(comparison.added) + len(comparison.removed) + sum(
        recorded[qid] != fresh[qid] for qid in set(recorded) & set(fresh))
    if not comparison.current:
        refusals.append(Refusal(
            "not_current", corpus_id, differing,
            f"{differing} question(s) differ from the recorded baseline; the arm is deterministic, "
            f"so re-record it (--snapshot-update) in the same change if the move is intended"))
    refusals += [Refusal("drift", corpus_id, None, f"{line}; the baseline is not comparable")
                 for line in comparison.drift]
    refusals += [Refusal("regression", change.subject, f"{change.before} -> {change.after}",
                         "lost its correct outcome" if change.kind == "question" else
                         f"{COUNT_DIRECTIONS[change.subject]}-is-better count moved the wrong way")
                 for change in comparison.regressions]
    measured = {
        "current": comparison.current,
        "compared": comparison.compared,
        "added": list(comparison.added),
        "removed": list(comparison.removed),
        "drift": list(comparison.drift),
        "regressions": [change.line() for change in comparison.regressions],
        "improvements": [change.line() for change in comparison.improvements],
        "shifts": [change.line() for change in comparison.shifts],
        "recorded_counts": comparison.recorded_counts,
        "fresh_counts": comparison.fresh_counts,
    }
    notes = tuple(f"improvement {change.line()}" for change in comparison.improvements) + tuple(
        f"shift {change.line()}" for change in comparison.shifts)
    return GateResult(GATE, corpus_id, "refused" if refusals else "passed", refusals=tuple(refusals),
                      measured=measured, notes=notes)


def _moved_case(name: str, result: GateResult, group: str, line: str) -> SelfTestCase:
    """Refused by ``not_current`` only, with the change sorted into ``group``."""
    fired = result.refused_rules()
    ok = result.status == "refused" and fired == {"not_current"} and line in result.measured[group]
    return SelfTestCase(name, "defect", "not_current", ok,
                        f"expected only not_current and {line!r} under {group}; fired "
                        f"{sorted(fired)}, {group} {result.measured[group]}")


def self_test() -> list[SelfTestCase]:
    """Each difference refused by its rule; identical runs pass; an empty comparison is skipped."""
    base = {"tme-ari-001": "correct", "tme-ari-002": "wrong", "tme-ari-003": "abstained",
            "tme-ari-004": "missed", "tme-ari-005": "correct"}

    def run(name: str, fresh: Mapping[str, str]) -> GateResult:
        return check(base, fresh, corpus_id=f"self-test-baseline-{name}")

    cases = [control_case("identical run is current", run("same", dict(base)))]
    cases.append(defect_case("a question lost correct", run("lost", {**base, "tme-ari-001": "wrong"}),
                             "regression"))
    cases.append(defect_case("abstained -> wrong raises a lower-is-better count",
                             run("rose", {**base, "tme-ari-003": "wrong"}), "regression"))
    cases.append(defect_case("a question added", run("added", {**base, "tme-ari-006": "correct"}),
                             "drift"))
    removed = dict(base)
    del removed["tme-ari-005"]
    cases.append(defect_case("a question removed", run("removed", removed), "drift"))
    cases.append(defect_case("an unknown outcome string", run("unknown", {**base, "tme-ari-002": "oops"}),
                             "drift"))
    improved = run("improved", {**base, "tme-ari-002": "correct"})
    cases.append(_moved_case("an improvement moves the baseline but is no regression", improved,
                             "improvements", "tme-ari-002: wrong -> correct"))
    shifted = run("shifted", {**base, "tme-ari-002": "abstained"})
    cases.append(_moved_case("wrong -> abstained is a shift, not a regression", shifted,
                             "shifts", "tme-ari-002: wrong -> abstained"))
    empty = check({}, {}, corpus_id="self-test-baseline-empty")
    cases.append(SelfTestCase("an empty comparison is skipped, never passed", "defect", None,
                              empty.status == "skipped", f"got {empty.status}"))
    return cases
