"""V7 separability gate: no cheap feature may pick gold sessions out of their own haystack.

GATES.md §2 is the specification; VERTICALS.md §4.7 the history behind it. In short, for every
feature of :mod:`.features`:

- ``auc`` - within-question pairs (gold g, distractor d) pooled over all questions, scored
  1 / 0.5 / 0, folded once after pooling; refuse at AUC >= 0.75.
- ``distribution`` - X questions separated perfectly against E expected by chance (exact under
  ties), z = (X - E) / sqrt(V) and its one-sided normal tail p; refuse when the p, Holm-adjusted
  over every feature tested in the corpus (V > 0), is <= 0.05 and X / Q >= 0.20 (VERTICALS.md
  Appendix C "§4.7 distribution rule"; docs/V7.md has the rule and its simulated false-refusal rate).
- ``exclusivity`` - a phrase in gold sessions of >= 20% of the questions with gold and in no
  distractor session anywhere.
- ``role_sequence`` - per question, no role sequence may occur only among its gold sessions.
- ``stale_exemption`` - a declared exemption that no longer fires must be deleted.

Thresholds, feature lists and exemptions are code constants (exemptions live in
:mod:`.declarations`); nothing is read from the corpus's sidecar.

Readings chosen where the spec leaves room (the stricter one unless said otherwise):

- *Frames are never exempt* covers both relevance rules: a gram the question text contains is
  exempt for that question only if one of its tokens is rare (< 10% of sessions). Otherwise a frame
  shared by every question text ("what did i") would exempt itself everywhere and never be measured.
  The question rule still needs the whole gram in the question text (GATES.md), not just one of its
  tokens (VERTICALS.md §4.7's looser wording). :data:`QUESTION_RULE_NEEDS_RARE_TOKEN` switches the
  first half off.
- A relevance-exempt question leaves the gram's pairs, its distribution counts (X, E, V and Q) and
  the exclusivity numerator and distractor count. The exclusivity denominator stays "questions that
  have gold", as GATES.md words it.
- Sessions are counted as haystack slots (candidates, the 10% rarity line): a session repeated in
  two haystacks counts twice.
- V = 0 means every p_q is 0 or 1. Then X = E whatever the arrangement (p_q = 0: the observed values
  cannot separate; p_q = 1: every arrangement does), so z is defined as 0: no evidence either way.
  Such a feature is not tested: it is left out of the Holm family (m counts features with V > 0).
- The Holm family is every feature of the corpus with V > 0, numeric and phrase alike, declared
  exemptions included (they are tested; only their verdict is suppressed). A feature rescored for a
  shape-scoped exemption takes its original's place in the family (same m, same other p-values).
- The raw p is the upper normal tail of z, as the revision asked for (no scipy). It is
  anti-conservative where E is small and X/Q is skewed: the few clean corpora the corrected rule
  still refuses (benchmarks/bench_v7_false_refusal.py, docs/V7.md) have normal-tail p 40-400 times
  below their exact Poisson-binomial tail. Measured, within the 5 % budget; not patched here.
- AUC exactly 0.75 is refused (">= 0.75"), although GATES.md calls 0.75 the cap a one-in-two-gold
  marker cannot reach past; such a marker on every question is refused by ``auc`` as well.
- Not stricter: role sequences are compared only where a question has both gold and distractors; a
  haystack that is all gold has nothing to tell apart (its H is the structure gate's business).
- An exemption whose ``shapes`` is non-empty removes only those shapes' questions from the
  feature; the rest of the corpus is still held to every rule. It counts as applied when the
  feature breaks a rule measured on those shapes alone, and as stale otherwise.
"""

from __future__ import annotations

import bisect
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from fractions import Fraction
from math import comb, erfc, sqrt
from typing import TYPE_CHECKING, Any, Literal

from ..corpus.loading import Corpus
from ..retrieval.tokenizer import raw_tokens
from .declarations import Declared, VerticalDeclarations, declarations_for
from .result import GateResult, Refusal, SelfTestCase, control_case
# the self-test's corpora and case checks
from .selftest.separability import (
    _ACKS, _ASSISTANT_TALK, _CHANCE_SIZED, _FACT_FRAMES, _MARKER, _ONE_IN_TWO_MARKER, _OPENERS,
    _QUESTION_WORD_FRAMES, _RANKED_FEATURE, _STRONG_SINGLE, _USER_TALK, _acknowledgement_marker,
    _boundary_phrase, _build_corpus, _dash_modes, _dash_tell, _expect, _grams_of,
    _i_have_gold_only, _length_drift_plan, _length_tell, _one_in_two_marker, _one_in_two_plan,
    _question_word_plan, _ranked_corpus, _role_order_tell, build_synthetic_corpus,
)

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from .features import FeatureTable

GATE = "separability"

AUC_REFUSE = 0.75
"""GATES.md §2: "Refuse a feature at AUC >= 0.75" (pooled within-question AUC, folded once)."""
DISTRIBUTION_ALPHA = 0.05
"""Distribution rule, family-wise error rate: refuse a feature only when its one-sided p, Holm-adjusted
over the features tested in that corpus, is <= 0.05. Source: VERTICALS.md Appendix C "§4.7
distribution rule" (a family-wise correction; false refusal on clean generated corpora <= 5 %) and
GATES.md §3 v2. A family-wise error rate of 0.05 is that <= 5 % budget itself: Holm bounds the chance
that any null feature of the corpus is refused by alpha under any dependence between features, so
0.05 is the largest alpha that still meets the target by construction. It replaces GATES.md §2's
per-feature z >= 2.5 (one-sided p = 0.0062, VERTICALS.md §4.7 "about p < 0.01"), which was a level
for one test; held family-wise, 0.0062 would spend an eighth of the budget and raise the bar for a
single tell from z = 3.89 to z = 4.37 at 1,000 features tested, for no required gain (docs/V7.md)."""
UNCORRECTED_Z = 2.5
"""The retired per-feature cut of GATES.md §2 (z >= 2.5, one-sided p = 0.0062). Not a rule any more:
kept so the self-test's Holm control and benchmarks/bench_v7_false_refusal.py can show what it
refused."""
DISTRIBUTION_SHARE = 0.20
"""GATES.md §2 distribution rule: and X / Q >= 0.20 (practical significance; VERTICALS.md §4.7
"the share floor supplies practical significance"). Kept unchanged: it is not a multiplicity
control but an effect-size floor, and the self-test's 50 % tells clear it by far."""
EXCLUSIVITY_SHARE = 0.20
"""GATES.md §2 exclusivity: gold sessions of >= 20% of the questions that have gold."""
INSTANCE_TOKEN_SHARE = 0.10
"""GATES.md §2 relevance exemption: an instance token is in < 10% of all sessions corpus-wide."""
MIN_PHRASE_SESSIONS = 5
"""GATES.md §2 phrase candidates: >= 5 gold sessions or >= 5 distractor sessions."""
MAX_GRAM = 3
"""GATES.md §2 phrases: n = 1..3 over raw tokens."""
QUESTION_RULE_NEEDS_RARE_TOKEN = True
"""GATES.md §2 "Frames are never exempt", read as covering the question-text rule too: a gram the
question text contains is exempt for that question only if one of its tokens is in < 10% of
sessions (VERTICALS.md §4.7 "instance words are exempt, frame phrases never are"). The stricter
of the two readings; False gives GATES.md's question rule word for word."""
ROLE_SEQUENCE_EXEMPTION = "role_sequence"
"""Declared-exemption name that covers the role-sequence rule (GATES.md §2 "Role sequences")."""

RULES: tuple[str, ...] = ("auc", "distribution", "exclusivity", "role_sequence", "stale_exemption")

THRESHOLDS: dict[str, float | int] = {
    "auc": AUC_REFUSE,
    "distribution_alpha": DISTRIBUTION_ALPHA,
    "distribution_share": DISTRIBUTION_SHARE,
    "exclusivity_share": EXCLUSIVITY_SHARE,
    "instance_token_share": INSTANCE_TOKEN_SHARE,
    "phrase_min_sessions": MIN_PHRASE_SESSIONS,
    "max_gram": MAX_GRAM,
}
"""What is in force, echoed into ``measured`` so a report shows it; never read back from anywhere."""


# --------------------------------------------------------------------------------------------
# Reference statistics (small, exact, pure Python): the gate's vectorised code is tested against
# these, and these against brute force.


def pooled_auc(questions: Iterable[tuple[Sequence[float], Sequence[float]]]) -> float:
    """Folded pooled within-question AUC over ``(gold values, distractor values)`` per question.

    Every (g, d) pair of one question scores 1 if g > d, 0.5 if equal, 0 if less; sums and pair
    counts are pooled over questions and the direction is folded once, at the end. Questions with
    no gold or no distractors contribute nothing. 0.5 when there are no pairs at all.
    """
    score = Fraction(0)
    pairs = 0
    for gold, distractors in questions:
        for g in gold:
            for d in distractors:
                score += 1 if g > d else (Fraction(1, 2) if g == d else 0)
        pairs += len(gold) * len(distractors)
    if pairs == 0:
        return 0.5
    raw = score / pairs
    return float(max(raw, 1 - raw))


def separates_perfectly(gold: Sequence[float], distractors: Sequence[float]) -> bool:
    """Every (g, d) pair points the same strict way (folded per-question AUC = 1)."""
    if not gold or not distractors:
        return False
    return min(gold) > max(distractors) or max(gold) < min(distractors)


def perfect_separation_probability(values: Sequence[float], gold: int) -> Fraction:
    """Exact chance that a random assignment of ``gold`` of these values to gold separates strictly.

    Under no signal the gold set is a uniformly random ``gold``-subset of the sessions. It sits
    strictly above the rest only if it is the top ``gold`` values and the gold-th largest value
    beats the next one; then exactly one subset of C(n, gold) does it, else none. Likewise below.
    The two events are disjoint, so p = (top + bottom) / C(n, gold): 2/C(n, g) for distinct
    values, 1/C or 2/C or 0 for a binary feature held by m sessions (GATES.md §2), and exact for
    any ties in between.
    """
    n = len(values)
    if not 0 < gold < n:
        return Fraction(0)
    ordered = sorted(values)
    ways = int(ordered[gold - 1] < ordered[gold]) + int(ordered[n - gold - 1] < ordered[n - gold])
    return Fraction(ways, comb(n, gold))


def distribution_z(perfect: int, probabilities: Sequence[float]) -> float:
    """z of the observed perfect count against its Poisson-binomial null (0 when V = 0)."""
    expected = sum(probabilities)
    variance = sum(p * (1 - p) for p in probabilities)
    return (perfect - expected) / sqrt(variance) if variance > 0 else 0.0


def one_sided_p(z: float) -> float:
    """Upper normal tail P(Z >= z) = erfc(z / sqrt 2) / 2 (the distribution rule's raw p)."""
    return 0.5 * erfc(z / sqrt(2.0))


def holm_adjust(pvalues: Sequence[float]) -> tuple[list[float], list[int]]:
    """Holm step-down adjusted p-values and 1-based ranks, in input order.

    Sorted ascending p_(1) <= ... <= p_(m), the adjusted value of p_(i) is
    max over j <= i of min(1, (m - j + 1) p_(j)); refusing where it is <= alpha is exactly Holm's
    step-down at family-wise level alpha. Ties keep input order for the rank (their adjusted values
    are equal anyway).
    """
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [1.0] * m
    ranks = [0] * m
    running = 0.0
    for position, index in enumerate(order):
        running = max(running, min(1.0, (m - position) * pvalues[index]))
        adjusted[index] = running
        ranks[index] = position + 1
    return adjusted, ranks


@dataclass(frozen=True)
class DistributionTest:
    """One feature's place in the corpus's Holm family (the distribution rule's inputs)."""

    p: float
    """One-sided normal tail of z; 1.0 for a feature not tested (V = 0)."""
    p_holm: float
    rank: int
    """1-based rank of p among the tested features; 0 when not tested."""
    tested: int
    """m: features tested in the corpus (V > 0), the size of the Holm family."""


@dataclass(frozen=True)
class DistributionFamily:
    """Holm step-down over the features tested in one corpus (V > 0: X can differ from E).

    Features with V = 0 cannot separate by anything but certainty (z := 0) and are left out of m.
    Declared exemptions stay in the family: they are tested, only their verdict is suppressed.
    """

    tests: dict[str, DistributionTest]
    tested: int
    _sorted: tuple[float, ...]

    @classmethod
    def of(cls, scores: Iterable[FeatureScore]) -> DistributionFamily:
        family = [score for score in scores if score.variance > 0]
        raw = [one_sided_p(score.z) for score in family]
        adjusted, ranks = holm_adjust(raw)
        tests = {score.feature: DistributionTest(p, a, r, len(family))
                 for score, p, a, r in zip(family, raw, adjusted, ranks)}
        return cls(tests, len(family), tuple(sorted(raw)))

    def test(self, score: FeatureScore) -> DistributionTest:
        """The feature's test; a rescored feature (a shape-scoped exemption) takes its original's
        place in the family, so m and the other features' p-values are unchanged."""
        known = self.tests.get(score.feature)
        if score.variance <= 0:
            return DistributionTest(1.0, 1.0, 0, self.tested)
        p = one_sided_p(score.z)
        if known is not None and known.p == p:
            return known
        others = list(self._sorted)
        if known is not None:
            del others[bisect.bisect_left(others, known.p)]
        position = bisect.bisect_right(others, p)
        ordered = others[:position] + [p] + others[position:]
        m = len(ordered)
        adjusted = max(min(1.0, (m - j) * ordered[j]) for j in range(position + 1))
        return DistributionTest(p, adjusted, position + 1, m)


# --------------------------------------------------------------------------------------------
# Scores


@dataclass(frozen=True)
class FeatureScore:
    """Everything the rules look at for one feature."""

    feature: str
    kind: Literal["numeric", "phrase"]
    auc: float
    raw_auc: float
    """Before folding: above 0.5 when gold tends higher (present, for a phrase)."""
    pairs: int
    perfect_questions: int
    expected_perfect: float
    variance: float
    z: float
    questions: int
    """Q: questions with 0 < g < n that this feature is measured on."""
    gold_questions_with: int | None = None
    """Phrase only: questions (not exempt) whose gold sessions hold it."""
    distractor_sessions_with: int | None = None
    """Phrase only: distractor sessions anywhere (not exempt) that hold it."""
    questions_with_gold: int | None = None

    @property
    def perfect_share(self) -> float:
        return self.perfect_questions / self.questions if self.questions else 0.0

    @property
    def exclusive_share(self) -> float:
        """Share of questions with gold whose gold holds the phrase, if no distractor does; else 0."""
        if self.kind != "phrase" or self.distractor_sessions_with or not self.questions_with_gold:
            return 0.0
        return (self.gold_questions_with or 0) / self.questions_with_gold

    def stamp(self, *, refused: bool, rule: str | None) -> dict[str, Any]:
        """The sidecar's ``SeparabilityFeature`` shape."""
        return {"feature": self.feature, "auc": round(self.auc, 6),
                "perfect_questions": self.perfect_questions,
                "expected_perfect": round(self.expected_perfect, 6), "z": round(self.z, 6),
                "refused": refused, "rule": rule}


@dataclass(frozen=True)
class RoleSequenceFinding:
    """A question whose gold sessions show a role sequence none of its distractors has."""

    question_id: str
    shape: str
    gold_only: tuple[str, ...]
    distractor_sequences: tuple[str, ...]


@dataclass(frozen=True)
class _Bucket:
    """Questions of similar haystack size, scored together in one padded block."""

    questions: npt.NDArray[np.int64]
    sessions: npt.NDArray[np.int64]
    """Global rows of those questions' sessions, in table order."""
    local: npt.NDArray[np.int64]
    """Per session row: its question's index inside ``questions``."""
    slot: npt.NDArray[np.int64]
    """Per session row: its position inside its question."""
    width: int


@dataclass(frozen=True)
class _Layout:
    """Per-question shape of the table, shared by every scorer."""

    count: int
    starts: npt.NDArray[np.int64]
    sizes: npt.NDArray[np.int64]
    gold: npt.NDArray[np.int64]
    distractors: npt.NDArray[np.int64]
    included: npt.NDArray[np.bool_]
    pairs: npt.NDArray[np.float64]
    combinations: npt.NDArray[np.float64]
    buckets: tuple[_Bucket, ...]


def _combinations(n: int, g: int) -> float:
    count = comb(n, g)
    return float(count) if count.bit_length() < 1000 else float("inf")  # p_q is 0.0 there anyway


def _layout(table: FeatureTable) -> _Layout:
    import numpy as np

    starts = table.question_starts
    sizes = np.diff(starts)
    gold = np.bincount(table.session_question, weights=table.session_gold,
                       minlength=table.question_count).astype(np.int64)
    included = (gold > 0) & (gold < sizes)
    combinations = np.array([_combinations(int(n), int(g)) if ok else 1.0
                             for n, g, ok in zip(sizes, gold, included)], dtype=np.float64)
    # Size classes by powers of two: padding each block to its largest haystack costs at most
    # twice the real cells, so one huge haystack never pads every small question up to its size.
    slot = np.arange(table.session_count, dtype=np.int64) - starts[table.session_question]
    size_class = np.ceil(np.log2(np.maximum(sizes, 1))).astype(np.int64)
    buckets = []
    for value in np.unique(size_class):
        questions = np.flatnonzero(size_class == value)
        sessions = np.flatnonzero(np.isin(table.session_question, questions))
        buckets.append(_Bucket(
            questions=questions, sessions=sessions,
            local=np.searchsorted(questions, table.session_question[sessions]),
            slot=slot[sessions], width=int(sizes[questions].max())))
    return _Layout(
        count=table.question_count, starts=starts, sizes=sizes, gold=gold,
        distractors=sizes - gold, included=included,
        pairs=(gold * (sizes - gold)).astype(np.float64), combinations=combinations,
        buckets=tuple(buckets),
    )


class _Clock:
    def __init__(self, sink: dict[str, float] | None) -> None:
        self.sink = sink

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            if self.sink is not None:
                self.sink[name] = self.sink.get(name, 0.0) + time.perf_counter() - start


@dataclass(frozen=True)
class _Columns:
    """Rule inputs for a batch of features, one entry per feature."""

    u_sum: npt.NDArray[Any]
    pairs: npt.NDArray[Any]
    perfect: npt.NDArray[Any]
    expected: npt.NDArray[Any]
    variance: npt.NDArray[Any]
    questions: npt.NDArray[Any]
    gold_questions_with: npt.NDArray[Any] | None = None
    distractor_sessions_with: npt.NDArray[Any] | None = None


def _score_dense(values: npt.NDArray[np.float64], table: FeatureTable, layout: _Layout,
                 excluded: npt.NDArray[np.bool_] | None, *, binary: bool,
                 clock: _Clock) -> _Columns:
    """Score numeric columns ``values`` (sessions x features) with midranks inside each question.

    Each size class of questions is laid into a (questions, largest haystack, features) block
    padded with +inf, so one sort along the haystack axis ranks every question and feature at
    once: O(N log n) work, no per-pair loop. U_q = (sum of gold midranks) - g(g + 1)/2 counts
    (g > d) + 0.5 (g = d).
    """
    import numpy as np

    features = values.shape[1]
    keep = ~excluded if excluded is not None else np.ones(layout.count, dtype=np.bool_)
    weight_all = (layout.included & keep).astype(np.float64)
    u_sum = np.zeros(features)
    perfect_sum = np.zeros(features)
    expected = np.zeros(features)
    variance = np.zeros(features)
    gold_with = np.zeros(features)
    distractor_with = np.zeros(features)
    for bucket in layout.buckets:
        q_count, width = bucket.questions.size, bucket.width
        weight = weight_all[bucket.questions]
        g = layout.gold[bucket.questions]
        n = layout.sizes[bucket.questions]
        real = np.zeros((q_count, width), dtype=np.bool_)
        real[bucket.local, bucket.slot] = True
        gold_mask = np.zeros((q_count, width), dtype=np.bool_)
        gold_mask[bucket.local, bucket.slot] = table.session_gold[bucket.sessions]
        distractor_mask = real & ~gold_mask

        with clock.phase("pairs"):
            block = np.full((q_count, width, features), np.inf)
            block[bucket.local, bucket.slot] = values[bucket.sessions]
            order = np.argsort(block, axis=1, kind="stable")
            ordered = np.take_along_axis(block, order, axis=1)
            index = np.arange(width).reshape(1, width, 1)
            first = np.ones(ordered.shape, dtype=np.bool_)
            first[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
            last = np.ones(ordered.shape, dtype=np.bool_)
            last[:, :-1] = first[:, 1:]
            group_start = np.maximum.accumulate(np.where(first, index, 0), axis=1)
            group_end = np.minimum.accumulate(np.where(last, index, width)[:, ::-1],
                                              axis=1)[:, ::-1]
            midranks = np.empty(ordered.shape)
            np.put_along_axis(midranks, order, (group_start + group_end) / 2.0 + 1.0, axis=1)
            gold_ranks = np.einsum("qj,qjf->qf", gold_mask.astype(np.float64), midranks)
            u_sum += weight @ (gold_ranks - (g * (g + 1) / 2.0)[:, None])

        with clock.phase("distribution"):
            gold_min = np.where(gold_mask[:, :, None], block, np.inf).min(axis=1)
            gold_max = np.where(gold_mask[:, :, None], block, -np.inf).max(axis=1)
            dist_min = np.where(distractor_mask[:, :, None], block, np.inf).min(axis=1)
            dist_max = np.where(distractor_mask[:, :, None], block, -np.inf).max(axis=1)
            perfect = (gold_min > dist_max) | (gold_max < dist_min)
            if width > 1:
                # The g-th vs (g+1)-th smallest, and the same from the top; the clip only guards
                # questions whose weight is 0 (no gold or no distractors).
                rows = np.arange(q_count)
                low = np.clip(g, 1, width - 1)
                high = np.clip(n - g, 1, width - 1)
                bottom_ok = ordered[rows, low - 1] < ordered[rows, low]
                top_ok = ordered[rows, high - 1] < ordered[rows, high]
                p = (bottom_ok.astype(np.float64) + top_ok) / layout.combinations[
                    bucket.questions][:, None]
            else:
                p = np.zeros((q_count, features))
            perfect_sum += weight @ perfect.astype(np.float64)
            expected += weight @ p
            variance += weight @ (p * (1.0 - p))

        if binary:
            with clock.phase("exclusivity"):
                kept = keep[bucket.questions]
                has_gold = ((g > 0) & kept).astype(np.float64)
                gold_with += has_gold @ (gold_max > 0).astype(np.float64)
                held = (np.where(distractor_mask[:, :, None], block, 0.0) > 0).sum(axis=1)
                distractor_with += kept.astype(np.float64) @ held.astype(np.float64)
    pairs = np.full(features, float(weight_all @ layout.pairs))
    questions = np.full(features, float(weight_all.sum()))
    return _Columns(u_sum, pairs, perfect_sum, expected, variance, questions,
                    gold_with if binary else None, distractor_with if binary else None)


def _score_phrases(table: FeatureTable, layout: _Layout, exempt_keys: npt.NDArray[np.int64],
                   clock: _Clock) -> _Columns:
    """Score every candidate phrase at once from the sparse (session, gram) incidence.

    Per (gram, question) only two counts matter: a gold and b distractor sessions hold it. Then
    U_q - g d / 2 = (a d - g b) / 2, perfect is (a, b) = (g, 0) or (0, d), and p_q follows from
    m = a + b (GATES.md §2). Questions where the gram is absent add g d / 2 and nothing else, so
    the work is linear in the incidence list, not in grams x questions.
    """
    import numpy as np

    q_count, grams = layout.count, len(table.grams)
    with clock.phase("pairs"):
        sessions = table.incidence_sessions
        question = table.session_question[sessions]
        gold = table.session_gold[sessions]
        keys, inverse = np.unique(table.incidence_grams * q_count + question, return_inverse=True)
        a = np.bincount(inverse, weights=gold, minlength=keys.size)
        b = np.bincount(inverse, weights=~gold, minlength=keys.size)
        gram_of, q_of = keys // q_count, keys % q_count
        keep = ~np.isin(keys, exempt_keys, assume_unique=True)
        g = layout.gold[q_of].astype(np.float64)
        d = layout.distractors[q_of].astype(np.float64)
        measured = keep & layout.included[q_of]
        ex_gram, ex_q = exempt_keys // q_count, exempt_keys % q_count
        ex_weight = layout.included[ex_q].astype(np.float64)
        total_pairs = float(layout.pairs[layout.included].sum())
        pairs = total_pairs - np.bincount(ex_gram, weights=layout.pairs[ex_q] * ex_weight,
                                          minlength=grams)
        delta = 0.5 * (a * d - g * b)
        u_sum = 0.5 * pairs + np.bincount(gram_of[measured], weights=delta[measured],
                                          minlength=grams)

    with clock.phase("distribution"):
        perfect = measured & (((a == g) & (b == 0)) | ((a == 0) & (b == d)))
        m = a + b
        ways = (m == g).astype(np.float64) + (m == d)
        p = np.where(measured, ways / layout.combinations[q_of], 0.0)
        perfect_sum = np.bincount(gram_of[perfect], minlength=grams).astype(np.float64)
        expected = np.bincount(gram_of, weights=p, minlength=grams)
        variance = np.bincount(gram_of, weights=p * (1.0 - p), minlength=grams)
        questions = float(layout.included.sum()) - np.bincount(ex_gram, weights=ex_weight,
                                                                minlength=grams)

    with clock.phase("exclusivity"):
        gold_with = np.bincount(gram_of[keep & (a > 0)], minlength=grams).astype(np.float64)
        distractor_with = np.bincount(gram_of[keep], weights=b[keep], minlength=grams)
    return _Columns(u_sum, pairs, perfect_sum, expected, variance, questions, gold_with,
                    distractor_with)


def _feature_scores(names: Sequence[str], kind: Literal["numeric", "phrase"], columns: _Columns,
                    questions_with_gold: int) -> list[FeatureScore]:
    scores: list[FeatureScore] = []
    for index, name in enumerate(names):
        pairs = float(columns.pairs[index])
        raw = float(columns.u_sum[index]) / pairs if pairs > 0 else 0.5
        variance = float(columns.variance[index])
        perfect = int(round(float(columns.perfect[index])))
        expected = float(columns.expected[index])
        scores.append(FeatureScore(
            feature=name, kind=kind, auc=max(raw, 1.0 - raw), raw_auc=raw, pairs=int(round(pairs)),
            perfect_questions=perfect, expected_perfect=expected, variance=variance,
            z=(perfect - expected) / sqrt(variance) if variance > 0 else 0.0,
            questions=int(round(float(columns.questions[index]))),
            gold_questions_with=(int(round(float(columns.gold_questions_with[index])))
                                 if columns.gold_questions_with is not None and kind == "phrase"
                                 else None),
            distractor_sessions_with=(int(round(float(columns.distractor_sessions_with[index])))
                                      if columns.distractor_sessions_with is not None
                                      and kind == "phrase" else None),
            questions_with_gold=questions_with_gold if kind == "phrase" else None,
        ))
    return scores


# --------------------------------------------------------------------------------------------
# Relevance exemption


def _is_rare(table: FeatureTable, token: str) -> bool:
    return table.token_sessions.get(token, 0) < INSTANCE_TOKEN_SHARE * table.session_count


def relevance_exemptions(corpus: Corpus, table: FeatureTable) -> dict[str, frozenset[str]]:
    """Candidate gram -> ids of the questions that contribute nothing for it (readable form)."""
    keys = _relevance_exemption_keys(corpus, table)
    q_count = table.question_count
    found: dict[str, set[str]] = {}
    for key in keys.tolist():
        found.setdefault(table.grams[key // q_count], set()).add(table.question_ids[key % q_count])
    return {gram: frozenset(ids) for gram, ids in found.items()}


def _relevance_exemption_keys(corpus: Corpus, table: FeatureTable) -> npt.NDArray[np.int64]:
    """Sorted ``gram_id * questions + question`` keys of every exempt (gram, question).

    Question rule: the question text holds the whole gram (built the same way, inside segments)
    and the gram has a rare token (frames are never exempt). Answer rule: one of the gram's tokens
    is in the answer and rare (< 10% of sessions).
    """
    import numpy as np

    from .features import phrase_grams

    gram_index = {gram: index for index, gram in enumerate(table.grams)}
    by_token: dict[str, list[int]] = {}
    for index, gram in enumerate(table.grams):
        for token in set(gram.split()):
            by_token.setdefault(token, []).append(index)
    q_count = table.question_count
    keys: set[int] = set()
    for q_index, record in enumerate(corpus.records):
        for gram in phrase_grams(record.question):
            gram_id = gram_index.get(gram)
            if gram_id is not None and (not QUESTION_RULE_NEEDS_RARE_TOKEN or any(
                    _is_rare(table, token) for token in gram.split())):
                keys.add(gram_id * q_count + q_index)
        for token in set(raw_tokens(record.answer)):
            if _is_rare(table, token):
                keys.update(gram_id * q_count + q_index for gram_id in by_token.get(token, ()))
    return np.array(sorted(keys), dtype=np.int64)


# --------------------------------------------------------------------------------------------
# Analysis


@dataclass(frozen=True)
class SeparabilityAnalysis:
    """All V7 measurements of one corpus, before exemptions and verdicts."""

    table: FeatureTable
    scores: tuple[FeatureScore, ...]
    role_findings: tuple[RoleSequenceFinding, ...]
    exempt_keys: npt.NDArray[np.int64]
    questions_with_pairs: int
    questions_with_gold: int
    pairs: int

    def score(self, feature: str) -> FeatureScore | None:
        for item in self.scores:
            if item.feature == feature:
                return item
        return None


def _role_findings(table: FeatureTable, layout: _Layout) -> list[RoleSequenceFinding]:
    findings = []
    for q_index in range(layout.count):
        if not layout.included[q_index]:
            continue
        start, end = int(layout.starts[q_index]), int(layout.starts[q_index + 1])
        gold = {table.role_sequences[i] for i in range(start, end) if table.session_gold[i]}
        distractors = {table.role_sequences[i] for i in range(start, end)
                       if not table.session_gold[i]}
        if gold - distractors:
            findings.append(RoleSequenceFinding(
                table.question_ids[q_index], table.question_shapes[q_index],
                tuple(sorted(gold - distractors)), tuple(sorted(distractors))))
    return findings


def score_features(corpus: Corpus, *,
                   timings: dict[str, float] | None = None) -> SeparabilityAnalysis:
    """Measure every feature of ``corpus`` (pure), before exemptions and verdicts.

    ``timings``, if given, receives seconds per phase: features, relevance, pairs, distribution,
    exclusivity, role_sequence (the benchmark prints them)."""
    from .features import extract_features

    clock = _Clock(timings)
    with clock.phase("features"):
        table = extract_features(corpus, min_phrase_sessions=MIN_PHRASE_SESSIONS)
    with clock.phase("relevance"):
        exempt_keys = _relevance_exemption_keys(corpus, table)
    layout = _layout(table)
    questions_with_gold = int((layout.gold > 0).sum())
    scores: list[FeatureScore] = []
    numeric = table.numeric
    if layout.count and numeric.shape[1]:
        # Chunk features so a padded block stays near 2M cells (16 MB) whatever the corpus size.
        cells = max(bucket.questions.size * bucket.width for bucket in layout.buckets)
        step = max(1, 2_000_000 // max(1, cells))
        for begin in range(0, numeric.shape[1], step):
            columns = _score_dense(numeric[:, begin:begin + step], table, layout, None,
                                   binary=False, clock=clock)
            scores += _feature_scores(table.numeric_names[begin:begin + step], "numeric", columns,
                                      questions_with_gold)
    if table.grams:
        columns = _score_phrases(table, layout, exempt_keys, clock)
        scores += _feature_scores(table.phrase_names, "phrase", columns, questions_with_gold)
    with clock.phase("role_sequence"):
        findings = _role_findings(table, layout)
    return SeparabilityAnalysis(
        table=table, scores=tuple(scores), role_findings=tuple(findings), exempt_keys=exempt_keys,
        questions_with_pairs=int(layout.included.sum()), questions_with_gold=questions_with_gold,
        pairs=int(layout.pairs[layout.included].sum()),
    )


def _rescore(analysis: SeparabilityAnalysis, feature: str, shapes: frozenset[str], *,
             inside: bool) -> FeatureScore | None:
    """One feature again on part of the corpus, for an exemption scoped to ``shapes``.

    ``inside=True`` keeps only those shapes' questions (does the exempted tell still fire there?);
    ``inside=False`` leaves them out (is the rest of the corpus clean?). Relevance exemptions still
    apply, and the exclusivity denominator is the questions with gold that remain.
    """
    import numpy as np

    from .features import PHRASE_PREFIX

    table = analysis.table
    layout = _layout(table)
    excluded = np.array([(shape in shapes) != inside for shape in table.question_shapes],
                        dtype=np.bool_)
    with_gold = int(((layout.gold > 0) & ~excluded).sum())
    clock = _Clock(None)
    if feature.startswith(PHRASE_PREFIX):
        gram = feature[len(PHRASE_PREFIX):]
        if gram not in table.grams:
            return None
        gram_id = table.grams.index(gram)
        keys = analysis.exempt_keys
        excluded[keys[keys // layout.count == gram_id] % layout.count] = True
        columns = _score_dense(table.phrase_vector(gram_id)[:, None], table, layout, excluded,
                               binary=True, clock=clock)
        return _feature_scores([feature], "phrase", columns, with_gold)[0]
    if feature not in table.numeric_names:
        return None
    column = table.numeric_names.index(feature)
    columns = _score_dense(table.numeric[:, column:column + 1], table, layout, excluded,
                           binary=False, clock=clock)
    return _feature_scores([feature], "numeric", columns, with_gold)[0]


# --------------------------------------------------------------------------------------------
# Verdict


def _fired(score: FeatureScore, family: DistributionFamily) -> list[Refusal]:
    """The rules this feature breaks, each as a refusal that says what, why and how to fix."""
    found: list[Refusal] = []
    test = family.test(score)
    direction = "higher" if score.raw_auc >= 0.5 else "lower"
    if score.auc >= AUC_REFUSE:
        found.append(Refusal(
            "auc", score.feature, round(score.auc, 4),
            f"pooled within-question AUC {score.auc:.4f} >= {AUC_REFUSE} over {score.pairs} "
            f"gold/distractor pairs (gold reads {direction}): one cheap feature finds gold without "
            "reading. Make gold and filler alike in it by construction (VERTICALS.md §4.1-4.4) or "
            "declare an exemption with its own reason in gates/declarations.py."))
    if test.p_holm <= DISTRIBUTION_ALPHA and score.perfect_share >= DISTRIBUTION_SHARE:
        found.append(Refusal(
            "distribution", score.feature, round(score.z, 3),
            f"separates gold perfectly in {score.perfect_questions} of {score.questions} questions "
            f"({score.perfect_share:.0%}) against {score.expected_perfect:.2f} expected by chance "
            f"(z = {score.z:.2f}, one-sided p = {test.p:.3g}, Holm-adjusted p = {test.p_holm:.3g} "
            f"<= {DISTRIBUTION_ALPHA} at rank {test.rank} of {test.tested} features tested; share "
            f">= {DISTRIBUTION_SHARE:.0%}): a tell in a large minority of questions that a pooled "
            "AUC hides. Balance it per question."))
    if score.kind == "phrase" and score.exclusive_share >= EXCLUSIVITY_SHARE:
        found.append(Refusal(
            "exclusivity", score.feature, round(score.exclusive_share, 4),
            f"in gold sessions of {score.gold_questions_with} of {score.questions_with_gold} "
            f"questions with gold ({score.exclusive_share:.0%} >= {EXCLUSIVITY_SHARE:.0%}) and in no "
            "distractor session: a gold marker. Draw it from a bank filler shares (VERTICALS.md §4.1)."))
    return found


def _role_refusal(finding: RoleSequenceFinding, vertical: str | None) -> Refusal:
    return Refusal(
        "role_sequence", finding.question_id, len(finding.gold_only),
        f"gold role sequence(s) {', '.join(finding.gold_only)} never occur among this question's "
        f"distractors ({', '.join(finding.distractor_sequences) or 'none'}): turn order points at "
        "gold. Align every session to a common supersequence with empty turns (VERTICALS.md §4.4).",
        vertical=vertical, shape=finding.shape)


def _sig(value: float) -> float:
    """Six significant digits: p-values span hundreds of orders of magnitude, so no fixed rounding."""
    return float(f"{value:.6g}")


def _distribution_entry(score: FeatureScore, test: DistributionTest) -> dict[str, Any]:
    """One feature as the distribution rule sees it: ``value`` is the Holm-adjusted p."""
    return {"feature": score.feature, "value": _sig(test.p_holm), "z": round(score.z, 6),
            "p": _sig(test.p), "p_holm": _sig(test.p_holm), "rank": test.rank, "tested": test.tested,
            "perfect_questions": score.perfect_questions,
            "expected_perfect": round(score.expected_perfect, 6), "questions": score.questions,
            "share": round(score.perfect_share, 6),
            "meets_alpha": test.p_holm <= DISTRIBUTION_ALPHA,
            "meets_share_floor": score.perfect_share >= DISTRIBUTION_SHARE}


def _closest_distribution(scores: Sequence[FeatureScore],
                          family: DistributionFamily) -> dict[str, Any] | None:
    """The feature nearest the distribution rule: refused ones first (lowest adjusted p), then
    those that meet the share floor (lowest adjusted p), then those that meet alpha (highest
    share), then the rest (lowest adjusted p). Untested features (V = 0) only if nothing else."""

    def key(score: FeatureScore) -> tuple[Any, ...]:
        test = family.test(score)
        meets_alpha = test.p_holm <= DISTRIBUTION_ALPHA
        meets_share = score.perfect_share >= DISTRIBUTION_SHARE
        category = (0 if meets_alpha and meets_share else 1 if meets_share else
                    2 if meets_alpha else 3)
        primary = -score.perfect_share if category == 2 else test.p_holm
        return (test.rank == 0, category, primary, test.p, -score.perfect_share, score.feature)

    if not scores:
        return None
    top = min(scores, key=key)
    return _distribution_entry(top, family.test(top))


def _worst(scores: Sequence[FeatureScore], family: DistributionFamily) -> dict[str, Any]:
    worst: dict[str, Any] = {}
    if scores:
        top = max(scores, key=lambda s: (s.auc, s.feature))
        worst["auc"] = {"feature": top.feature, "value": round(top.auc, 6), "pairs": top.pairs}
        worst["distribution"] = _closest_distribution(scores, family)
    exclusive = [s for s in scores if s.kind == "phrase" and s.exclusive_share > 0]
    if exclusive:
        top = max(exclusive, key=lambda s: (s.exclusive_share, s.feature))
        worst["exclusivity"] = {"feature": top.feature, "value": round(top.exclusive_share, 6),
                                "gold_questions_with": top.gold_questions_with,
                                "questions_with_gold": top.questions_with_gold}
    else:
        worst["exclusivity"] = None
    return worst


def check(corpus: Corpus, *, declared: VerticalDeclarations | None = None) -> GateResult:
    """V7 over one corpus (pure). ``declared`` defaults to the code constants for its vertical.

    Refusal rules: ``auc``, ``distribution``, ``exclusivity``, ``role_sequence``,
    ``stale_exemption``. The sidecar is never consulted.
    """
    declared = declarations_for(corpus.vertical) if declared is None else declared
    analysis = score_features(corpus)
    return _verdict(corpus, analysis, declared)


def _verdict(corpus: Corpus, analysis: SeparabilityAnalysis,
             declared: VerticalDeclarations) -> GateResult:
    vertical = corpus.vertical
    if analysis.questions_with_pairs == 0:
        return GateResult(GATE, corpus.corpus_id, "skipped",
                          measured={"questions": analysis.table.question_count, "pairs": 0},
                          skip_reason="no question has both gold and distractor sessions, so no "
                          "feature can be compared (not applicable, nothing measured)")
    exemptions: dict[str, Declared] = {}
    for item in declared.separability_exemptions:
        exemptions.setdefault(item.name, item)

    refusals: list[Refusal] = []
    stamps: list[dict[str, Any]] = []
    refused_features: list[dict[str, Any]] = []
    applied: list[dict[str, Any]] = []
    stale: list[str] = []
    evaluated = {score.feature for score in analysis.scores}
    unexempted: list[FeatureScore] = []
    family = DistributionFamily.of(analysis.scores)
    distribution_refused: list[dict[str, Any]] = []

    for score in analysis.scores:
        fired = [replace(r, vertical=vertical) for r in _fired(score, family)]
        exemption = exemptions.get(score.feature)
        if exemption is None:
            unexempted.append(score)
            kept = fired
        else:
            kept = []
            suppressed = sorted({r.rule for r in fired})
            if exemption.shapes:
                shapes = frozenset(exemption.shapes)
                within = _rescore(analysis, score.feature, shapes, inside=True)
                suppressed = sorted({r.rule for r in _fired(within, family)}) if within else []
                rest = _rescore(analysis, score.feature, shapes, inside=False)
                kept = ([replace(r, vertical=vertical) for r in _fired(rest, family)]
                        if rest else [])
                if rest is not None and any(r.rule == "distribution" for r in kept):
                    distribution_refused.append(_distribution_entry(rest, family.test(rest)))
            if suppressed:
                applied.append({"feature": score.feature, "reason": exemption.reason,
                                "shapes": list(exemption.shapes), "rules": suppressed})
            else:
                stale.append(score.feature)
        refusals += kept
        for refusal in kept:
            refused_features.append({"feature": refusal.subject, "rule": refusal.rule,
                                     "value": refusal.value})
        if exemption is None and any(r.rule == "distribution" for r in kept):
            distribution_refused.append(_distribution_entry(score, family.test(score)))
        if fired:
            stamps.append(score.stamp(refused=bool(kept), rule=kept[0].rule if kept else None))

    role_exemption = exemptions.get(ROLE_SEQUENCE_EXEMPTION)
    role_refusals: list[Refusal] = []
    suppressed_questions: list[str] = []
    for finding in analysis.role_findings:
        if role_exemption is not None and (not role_exemption.shapes
                                           or finding.shape in role_exemption.shapes):
            suppressed_questions.append(finding.question_id)
        else:
            role_refusals.append(_role_refusal(finding, vertical))
    if role_exemption is not None:
        if suppressed_questions:
            applied.append({"feature": ROLE_SEQUENCE_EXEMPTION, "reason": role_exemption.reason,
                            "shapes": list(role_exemption.shapes), "rules": ["role_sequence"],
                            "questions": suppressed_questions})
        else:
            stale.append(ROLE_SEQUENCE_EXEMPTION)
    refusals += role_refusals
    for refusal in role_refusals:
        refused_features.append({"feature": refusal.subject, "rule": refusal.rule,
                                 "value": refusal.value})

    for name in exemptions:
        if name != ROLE_SEQUENCE_EXEMPTION and name not in evaluated:
            stale.append(name)
    for name in sorted(set(stale)):
        reason = exemptions[name].reason
        refusals.append(Refusal(
            "stale_exemption", name, None,
            f"declared exemption no longer fires (reason on file: {reason!r}); an exemption that "
            "can never fail goes unnoticed, so delete it from DECLARATIONS in gates/declarations.py.",
            vertical=vertical))

    order = {rule: index for index, rule in enumerate(RULES)}
    refusals.sort(key=lambda r: (order.get(r.rule, len(order)),
                                 -(r.value if isinstance(r.value, (int, float)) else 0), r.subject))
    worst = _worst(unexempted, family)
    worst["role_sequence"] = (
        {"questions": len(role_refusals), "question": max(
            (f for f in analysis.role_findings if f.question_id not in suppressed_questions),
            key=lambda f: (len(f.gold_only), f.question_id)).question_id,
         "value": len(role_refusals)} if role_refusals else {"questions": 0, "value": 0})
    numeric_count = len(analysis.table.numeric_names)
    measured: dict[str, Any] = {
        "vertical": vertical,
        "thresholds": dict(THRESHOLDS),
        "features_evaluated": len(analysis.scores),
        "numeric_features": numeric_count,
        "phrase_features": len(analysis.table.grams),
        "questions": analysis.table.question_count,
        "questions_with_pairs": analysis.questions_with_pairs,
        "questions_with_gold": analysis.questions_with_gold,
        "sessions": analysis.table.session_count,
        "pairs": analysis.pairs,
        "relevance_exempt_pairs": int(analysis.exempt_keys.size),
        "worst": worst,
        "distribution": {
            "correction": "holm",
            "alpha": DISTRIBUTION_ALPHA,
            "share_floor": DISTRIBUTION_SHARE,
            "features_tested": family.tested,
            "refused": sorted(distribution_refused, key=lambda e: (e["p_holm"], e["feature"])),
            "closest": worst.get("distribution"),
        },
        "refused": refused_features,
        "exemptions_applied": applied,
        "stale_exemptions": sorted(set(stale)),
        "features": stamps,
    }
    notes = (
        "pairs are within a question, pooled over questions, folded once after pooling",
        "distribution rule: z := 0 when V = 0 (X then equals E under any arrangement); such a "
        "feature is not tested and is left out of the Holm family",
        "distribution rule: one-sided normal p of z, Holm step-down over the features tested, "
        f"refused at adjusted p <= {DISTRIBUTION_ALPHA} and X / Q >= {DISTRIBUTION_SHARE}",
        "frames are never exempt: a question-text gram is exempt only with a token in < 10% of sessions",
    )
    return GateResult(GATE, corpus.corpus_id, "refused" if refusals else "passed",
                      refusals=tuple(refusals), measured=measured, notes=notes)


# --------------------------------------------------------------------------------------------
# Self-test (corpora and tells: :mod:`.selftest.separability`)


def _expect_holm_pass(name: str, corpus: Corpus) -> SelfTestCase:
    """A control that the uncorrected rule refused: it must pass now, and the planted feature must
    still meet the old rule (else the case proves nothing about the correction)."""
    analysis = score_features(corpus)
    case = control_case(name, _verdict(corpus, analysis, VerticalDeclarations()))
    score = analysis.score(_RANKED_FEATURE)
    if score is None:
        return replace(case, ok=False, detail=f"{_RANKED_FEATURE} was not measured")
    if not (score.z >= UNCORRECTED_Z and score.perfect_share >= DISTRIBUTION_SHARE):
        return replace(case, ok=False, detail=(
            f"{_RANKED_FEATURE} no longer meets the uncorrected rule (z = {score.z:.2f}, share "
            f"{score.perfect_share:.2f}), so this control proves nothing about the correction"))
    test = DistributionFamily.of(analysis.scores).test(score)
    return replace(case, detail=(
        f"{case.detail}; {_RANKED_FEATURE}: z = {score.z:.2f} >= {UNCORRECTED_Z} and share "
        f"{score.perfect_share:.2f} (refused uncorrected), p = {test.p:.3g}, Holm-adjusted p = "
        f"{test.p_holm:.3g} at rank {test.rank} of {test.tested} features tested"))


# Controls ------------------------------------------------------------------------------------


def self_test() -> list[SelfTestCase]:
    """Known defects must be refused by the intended rule; clean controls must pass (GATES.md)."""
    return _self_test(0)


def _self_test(seed: int) -> list[SelfTestCase]:
    """The self-test with every case's seed shifted by ``seed`` (tests try several)."""
    from .features import PHRASE_PREFIX

    none = VerticalDeclarations()
    cases: list[SelfTestCase] = []

    marker_grams = _grams_of(_MARKER) - _grams_of(" ".join(_ACKS + _USER_TALK + _ASSISTANT_TALK))
    cases.append(_expect(
        "gold-only acknowledgement marker",
        check(_build_corpus(seed + 101, decorate=_acknowledgement_marker), declared=none),
        "exclusivity", lambda s: s in marker_grams))

    cases.append(_expect(
        "length tell within questions, drifting across questions",
        check(_build_corpus(seed + 102, plan_hook=_length_drift_plan, decorate=_length_tell),
              declared=none),
        "auc", lambda s: s.startswith("chars[")))

    cases.append(_expect(
        'raw bigram "i have" in gold only',
        check(_build_corpus(seed + 103, decorate=_i_have_gold_only), declared=none),
        "auc", lambda s: s == PHRASE_PREFIX + "i have"))

    cases.append(_expect(
        "role-order tell with equal turn counts",
        check(_build_corpus(seed + 104, decorate=_role_order_tell), declared=none),
        "role_sequence", lambda s: s.startswith("tme-syn-")))

    hook, decorate = _dash_tell(_dash_modes(60, seed + 105))
    cases.append(_expect(
        "feature perfect in 50% of questions, pooled AUC about 0.55",
        check(_build_corpus(seed + 105, questions=60, plan_hook=hook, decorate=decorate),
              declared=none),
        "distribution", lambda s: s == "dashes[session]", not_by=("auc",)))

    one_in_two = _grams_of(_ONE_IN_TWO_MARKER) - _grams_of(
        " ".join(_OPENERS + _ACKS + _USER_TALK + _ASSISTANT_TALK + _FACT_FRAMES))
    cases.append(_expect(
        "one-in-two-gold marker with G = 2",
        check(_build_corpus(seed + 106, gold_counts=(2,), plan_hook=_one_in_two_plan,
                            decorate=_one_in_two_marker), declared=none),
        "exclusivity", lambda s: s in one_in_two, not_by=("auc", "distribution")))

    cases.append(_expect(
        "one feature perfect in 45% of G = 1 questions, refused through the Holm correction",
        check(_ranked_corpus(seed + 107, *_STRONG_SINGLE), declared=none),
        "distribution", lambda s: s == _RANKED_FEATURE, not_by=("auc",)))

    cases.append(control_case(
        "clean corpus from one template machinery",
        check(_build_corpus(seed + 201), declared=none)))
    cases.append(control_case(
        "phrase only across a punctuation boundary",
        check(_build_corpus(seed + 202, decorate=_boundary_phrase), declared=none)))
    cases.append(control_case(
        "gram in the question text of the questions whose gold holds it",
        check(_build_corpus(seed + 203, frames=_QUESTION_WORD_FRAMES,
                            plan_hook=_question_word_plan(40, seed + 203)),
              declared=none)))
    cases.append(_expect_holm_pass(
        "chance-sized tell at z = 2.7 in G = 1 haystacks, refused uncorrected, passes under Holm",
        _ranked_corpus(seed + 204, *_CHANCE_SIZED)))
    return cases


__all__ = [
    "AUC_REFUSE",
    "DistributionFamily",
    "DistributionTest",
    "DISTRIBUTION_ALPHA",
    "DISTRIBUTION_SHARE",
    "EXCLUSIVITY_SHARE",
    "GATE",
    "INSTANCE_TOKEN_SHARE",
    "FeatureScore",
    "RoleSequenceFinding",
    "SeparabilityAnalysis",
    "UNCORRECTED_Z",
    "build_synthetic_corpus",
    "check",
    "distribution_z",
    "holm_adjust",
    "one_sided_p",
    "perfect_separation_probability",
    "pooled_auc",
    "relevance_exemptions",
    "score_features",
    "self_test",
    "separates_perfectly",
]
