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
  tokens (VERTICALS.md §4.7's looser wording).
  :data:`.separability_scoring.QUESTION_RULE_NEEDS_RARE_TOKEN` switches the first half off.
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

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ..corpus.loading import Corpus
from .declarations import Declared, VerticalDeclarations, declarations_for
from .result import GateResult, Refusal, SelfTestCase, control_case
from .separability_scoring import (
    INSTANCE_TOKEN_SHARE,
    MIN_PHRASE_SESSIONS,
    FeatureScore,
    RoleSequenceFinding,
    SeparabilityAnalysis,
    relevance_exemptions,
    rescore,
    score_features,
)
from .separability_statistics import (
    DistributionFamily,
    DistributionTest,
    distribution_z,
    holm_adjust,
    one_sided_p,
    perfect_separation_probability,
    pooled_auc,
    separates_perfectly,
)
# the self-test's corpora and case checks
from .selftest.separability import (
    _ACKS, _ASSISTANT_TALK, _CHANCE_SIZED, _FACT_FRAMES, _MARKER, _ONE_IN_TWO_MARKER, _OPENERS,
    _QUESTION_WORD_FRAMES, _RANKED_FEATURE, _STRONG_SINGLE, _USER_TALK, _acknowledgement_marker,
    _boundary_phrase, _build_corpus, _dash_modes, _dash_tell, _expect, _grams_of,
    _i_have_gold_only, _length_drift_plan, _length_tell, _one_in_two_marker, _one_in_two_plan,
    _question_word_plan, _ranked_corpus, _role_order_tell, build_synthetic_corpus,
)

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
MAX_GRAM = 3
"""GATES.md §2 phrases: n = 1..3 over raw tokens."""
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
                within = rescore(analysis, score.feature, shapes, inside=True)
                suppressed = sorted({r.rule for r in _fired(within, family)}) if within else []
                rest = rescore(analysis, score.feature, shapes, inside=False)
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
