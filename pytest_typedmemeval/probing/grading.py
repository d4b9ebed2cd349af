"""Grading probe answers, and the per-question decisions of V2, V3 and V6 (VERTICALS.md §3.1–§3.3).

Every answer is graded by the mechanical judge (:func:`..judge.mechanical.judge_answer`), whose
rules already carry §3.3: on a negative gold that names a value (``must_name``; a ``no_longer`` or
``still`` key's value) a ``correct`` verdict requires the answer to name it.

- V1/V2/V3/V6/V8/V9 record the judge's outcome label (``correct``, ``wrong``, ``abstained``,
  ``missed``, ``premature``, ``unjudged``). ``unjudged`` is kept as such: the gate reads it as not
  measured, never as ``wrong``.
- V10/V11 record a one-word **commitment** grade (§3.1): ``abstain`` when the judge reads a decline
  or a denial (outcomes ``correct``, ``abstained``, ``missed`` on a never-known key), ``commit``
  for everything else — a committed or hedged value, a claim the fact was once known, or an answer
  with no decline at all (the judge's ``unjudged`` there means it found no decline or denial, i.e.
  the model answered something).
- A failed call is ``error`` in every arm: a harness fault, never a judged answer.

V2/V3/V6 decisions are recomputed from the recorded verdicts (so they can be rerun from the
sidecar) with the chance-aware thresholds of §3.2.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from math import comb
from typing import Literal

from ..corpus.models import AnswerKey, ProbeRecord, QuestionRecord
from ..judge.mechanical import judge_answer
from ..judge.outcomes import JUDGED_OUTCOMES, Outcome
from ..judge.protocol import Judge
from .arms import ARMS, components

ERROR = "error"
ABSTAIN = "abstain"
COMMIT = "commit"
ALPHA = Fraction(5, 100)
"""§3.2: the hit threshold is the smallest h with P(Binomial(n, 1/k) >= h) < 0.05."""
OPEN_ENDED_HITS: Mapping[str, int] = {"V2": 2, "V3": 1, "V6": 1}
"""§3.2: open-ended answers keep the basic rules (V2 two hits, V3 and V6 one hit)."""
V2_MINIMUM_HITS = 2
"""§3.2 [inferred]: V2's chance-aware threshold never drops below two."""
_ABSTAINING = frozenset({Outcome.CORRECT, Outcome.ABSTAINED, Outcome.MISSED})
_SCORED = frozenset(outcome.value for outcome in JUDGED_OUTCOMES)
"""Outcomes a decision can rest on; ``error`` and ``unjudged`` make the question not measured."""


def surfaced_items(record: QuestionRecord, sessions: Iterable[int]) -> frozenset[str] | None:
    """List-order items whose sessions are in the context (§5.4), ``None`` for other questions."""
    order = record.typedmemeval.list_order
    if order is None:
        return None
    shown = set(sessions)
    return frozenset(item for item, index in zip(order.items, order.session_indices) if index in shown)


def grade(arm: str, record: QuestionRecord, answer: str,
          sessions: Iterable[int] = (), judge: Judge | None = None) -> str:
    """The recorded outcome of one answer in ``arm`` (:func:`grade_with_reason` without it)."""
    return grade_with_reason(arm, record, answer, sessions, judge)[0]


def grade_with_reason(arm: str, record: QuestionRecord, answer: str,
                      sessions: Iterable[int] = (), judge: Judge | None = None) -> tuple[str, str]:
    """The recorded outcome of one answer in ``arm`` (module docstring) and the judge's reason.

    V1/V8/V9 grade list order on the items their context surfaced (§5.4, as a run grades a
    reference agent that reports its context); V2/V3/V6 require every item, because there a
    surfaced-only grade would let a removed component pass unnoticed. ``judge`` (the hybrid
    judge of ``--judge hybrid``) replaces the mechanical judge: it asks its model only about the
    answers the rules leave ``unjudged``.
    """
    key = record.typedmemeval.answer_key
    spec = ARMS[arm]
    surfaced = surfaced_items(record, sessions) if arm in ("V1", "V8", "V9") else None
    verdict = (judge.judge(answer, key, surfaced, question=record.question) if judge is not None
               else judge_answer(answer, key, surfaced_items=surfaced))
    if spec.grading == "commitment":
        return (ABSTAIN if verdict.outcome in _ABSTAINING else COMMIT), verdict.reason
    return verdict.outcome.value, verdict.reason


# --- chance-aware thresholds (§3.2) ------------------------------------------------------------


def binomial_tail(n: int, k: int, h: int) -> Fraction:
    """P(Binomial(n, 1/k) >= h), exactly."""
    p = Fraction(1, k)
    return sum((comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(h, n + 1)), Fraction(0))


def chance_threshold(n: int, k: int) -> int | None:
    """The smallest h <= n with P(Binomial(n, 1/k) >= h) < 0.05; ``None`` when none qualifies."""
    for h in range(1, n + 1):
        if binomial_tail(n, k, h) < ALPHA:
            return h
    return None


def options_k(record: QuestionRecord) -> int | None:
    """k of a closed-choice question from the generator's declarations (§3.2: they win over any
    detector): the options the question lists (``answer_key.choices``) or the competing options in
    the haystack (``candidates``), the smaller when both — the same reading as the probe gate.
    ``None``: open-ended (no text detector is applied; see the module docstring of the package)."""
    block = record.typedmemeval
    options = [k for k in (len(block.answer_key.choices), len(block.candidates or ())) if k]
    return min(options) if options else None


def hit_threshold(arm: str, n: int, k: int | None) -> int | None:
    """Hits among ``n`` samples that reject the question; ``None``: the arm cannot decide it."""
    if k is None:
        return OPEN_ENDED_HITS[arm]
    if k < 2:
        return None
    h = chance_threshold(n, k)
    if h is not None and arm == "V2":
        h = max(h, V2_MINIMUM_HITS)
    return h


def is_hit(arm: str, outcome: str, key: AnswerKey) -> bool:
    """The gold came back. V3 and V6 demand distinctive content (§3.3): a ``correct`` bare negative
    ("not yet") whose key names no value is not a hit there; where the key names a value, the
    judge's ``correct`` already required it to be named."""
    if outcome != Outcome.CORRECT.value:
        return False
    if arm == "V2" or key.expected_negative is None:
        return True
    return bool(key.must_name or key.accepted)


# --- per-question decisions --------------------------------------------------------------------

Decision = Literal["discard", "keep", "not_decidable", "not_measured"]


@dataclass(frozen=True)
class QuestionDecision:
    """One question's V2, V3 or V6 decision with the counts it rests on."""

    arm: str
    question_id: str
    decision: Decision
    hits: int
    samples: int
    threshold: int | None
    k: int | None
    detail: str

    def line(self) -> str:
        bar = "undecidable" if self.threshold is None else f"threshold {self.threshold}"
        chance = "open-ended" if self.k is None else f"k={self.k}"
        return (f"{self.arm} {self.question_id}: {self.decision} ({self.hits}/{self.samples} hits, "
                f"{bar}, {chance}){': ' + self.detail if self.detail else ''}")


def _decide(arm: str, record: QuestionRecord, groups: list[list[str]]) -> QuestionDecision:
    """Decide over ``groups`` of samples (one group; V6: one group per removed component)."""
    qid, key, k = record.question_id, record.typedmemeval.answer_key, options_k(record)
    total = sum(len(group) for group in groups)
    hits = [sum(is_hit(arm, outcome, key) for outcome in group) for group in groups]
    unscored = sum(o not in _SCORED for group in groups for o in group)
    n = min((len(group) for group in groups), default=0)
    threshold = hit_threshold(arm, n, k) if n else None
    if unscored or not n:
        return QuestionDecision(arm, qid, "not_measured", sum(hits), total, threshold, k,
                                f"{unscored} error/unjudged sample(s)" if unscored else "no samples")
    if threshold is None:
        return QuestionDecision(arm, qid, "not_decidable", sum(hits), total, None, k,
                                "excluded_not_decidable: no hit count is significant at 0.05")
    fired = [index for index, count in enumerate(hits) if count >= threshold]
    detail = ""
    if arm == "V6" and fired:
        positions = components(record)
        detail = "answerable without session(s) " + ", ".join(str(positions[i]) for i in fired
                                                               if i < len(positions))
    return QuestionDecision(arm, qid, "discard" if fired else "keep", sum(hits), total, threshold,
                            k, detail)


def decisions(records: Iterable[ProbeRecord], questions: Iterable[QuestionRecord]
              ) -> list[QuestionDecision]:
    """V2/V3/V6 decisions for every question with recorded verdicts, in corpus order.

    V6 samples are grouped per removal: sample ``s`` belongs to component ``s // n`` where n is the
    record's samples per removal (the runner numbers them that way)."""
    by_id = {record.question_id: record for record in questions}
    outcomes: dict[tuple[str, str], dict[int, str]] = defaultdict(dict)
    for record in records:
        arm = record.arm.strip().upper()
        if arm not in ("V2", "V3", "V6") or record.status != "measured":
            continue
        for verdict in record.verdicts:
            outcomes[(arm, verdict.question_id)][verdict.sample] = verdict.outcome.strip().lower()
    out: list[QuestionDecision] = []
    for arm in ("V2", "V3", "V6"):
        for qid, question in by_id.items():
            samples = outcomes.get((arm, qid))
            if not samples:
                continue
            ordered = [samples[s] for s in sorted(samples)]
            if arm == "V6":
                parts = max(1, len(components(question)))
                per = max(1, len(ordered) // parts)
                groups = [ordered[i * per:(i + 1) * per] for i in range(parts)]
            else:
                groups = [ordered]
            out.append(_decide(arm, question, groups))
    return out


__all__ = ["ABSTAIN", "ALPHA", "COMMIT", "ERROR", "QuestionDecision", "binomial_tail",
           "chance_threshold", "decisions", "grade", "hit_threshold", "is_hit", "options_k",
           "surfaced_items"]
