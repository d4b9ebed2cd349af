"""Adversary gate (GATES.md §7, marker ``tme_gate_adversaries``): strategies that learn or read.

V7 (:mod:`.separability`) asks whether one *named* feature tells gold from filler. The v2 corpora
passed it and were still beaten without memory (VERTICALS.md Appendix D). This gate runs five
adversaries that rank the sessions of each question's own haystack; every figure is per shape,
with its random expectation beside it.

1. **learned, question-blind** (rules ``learned_gold_at_1``, ``learned_auc``). Logistic regression
   in numpy, trained on one half of the questions' sessions (label: the session is gold) and tested
   on the other half, then the other way round. Features, never the question text: word unigrams
   (raw tokens, stopwords kept), character 3- and 4-grams of capitalised tokens, structure (turns,
   characters, relative position in the haystack) and *value membership*: the share of the
   session's value-like tokens (:mod:`..retrieval.values`) that the training half saw only in gold
   sessions, only in filler, in both, or never, plus whether any was seen only in gold / only in
   filler. Training sessions get their membership figures cross-fitted (from the other half of the
   training half), so a training gold session does not "see itself". And *haystack-relative
   recurrence* (below). Questions whose haystacks share a session (same session id or identical
   turns) are kept in one half (union-find, then a greedy shape-balanced split of the groups in
   the order of a sha256 of a fixed constant and the group's first question id). Refused when
   gold-at-rank-1 exceeds max(2 x random, 0.15), random being G / N averaged over the shape, or
   when the mean within-question AUC (gold vs filler scores) exceeds 0.65.
2. **position prior** (``position_prior``). Per shape, the rate at which a session is gold at each
   index from the start, from the end and in each tenth of the haystack, learned from the other
   half; sessions ranked by the sum. Refused when mean coverage@5 (|gold n top 5| / G) exceeds the
   random min(5, N) / N, averaged, by more than 0.25.
3. **haystack diff** (``haystack_diff``). A session is unique when its turns occur verbatim in no
   other haystack of the corpus; a question is singled out when its unique sessions are a nonempty
   set of gold sessions only. Applies only to shapes where some haystack shares a session (id or
   turns) with another; refused when more than 20 % of the shape's questions are singled out.
4. **subject-and-value reader** (``subject_value_reader``). Each session scores its best sentence
   holding a value-like token, by the number of distinct question content words
   (:func:`..retrieval.tokenizer.tokenize`) in it. Refused when gold-at-rank-1 exceeds 0.60.
5. **fact-only BM25** (``fact_only_bm25``). The reference BM25Okapi (:mod:`..retrieval.bm25`) after
   deleting every sentence without a value-like token. Refused when mean coverage@5 exceeds the
   0.90 ceiling: difficulty must not come from content-free text.

The learned adversary's *haystack-relative recurrence* block (added after the episodic-v3 red
team) is described in :mod:`.adversary_learned`. The question-aware form reader (rules ``form_*``,
``episode_*``, ``tail_*``) is :mod:`.form_reader`.

**Table readers** (:mod:`.adversary_tables`; after red teams 30, 32, 34 and 35, which beat shipped
corpora the form reader passed): over the tail view's candidates, a table of masked *frames*
(``frame_gold_at_1``, ``frame_auc``) and of their word-length sequences (``frame_length_*``),
each learned on one half and scored on the other; the untrained *value recurrence* rule
(``recurrence_gold_at_1``: the session whose value the most haystack sessions name); and a table of
*date offsets* (``offset_*``: the statement's due date — session date plus "in N days/weeks" —
against the asked date, in 4-day buckets). Figures and bounds are the form reader's
(:func:`_form_row`), each view judged at alpha / 2 (:data:`FORM_VIEWS`); chance is a relabelling
of gold among the candidate sessions with the tables relearned
(:func:`.adversary_tables.table_null`).

**Calendar reader** (:mod:`.adversary_calendar`; after red team 39, which read Prospective
``0362efd5``'s before/after verdict off the session dates): not where gold is but which *arm* a
question is — per shape whose questions carry two arms, and pooled, a threshold on the days from
the haystack's last, first or median session to the asked date, or on the median, least or
greatest (due date − asked date) over every interval the haystack states (red team 40), learned on
one half and scored on the other (``calendar_arm``: held-out accuracy above the larger arm's share + 0.15 and beyond chance
with the arms relabelled within shape, at alpha / 2). Shapes without two arms: not applicable.

Rankings by a reader's or a prior's scores (subject-and-value reader, phrase reader, position
prior, the learned gold@1) count ties at random: a tie at the cut counts each tied session by its
chance, :func:`.adversary_haystacks.tied_coverage` and :func:`.adversary_haystacks.tied_gold_at_1` (breaking them by session order, as this
gate did first, is a position prior of its own: WorkingMemory v3's far rungs put gold early, and a
phrase reader scoring the asked kind's sentences alike covered them 1.00 on ties alone). Fact-only
BM25 keeps the reference retriever's rule (ties by session order, GATES.md §3). Questions without gold (G = 0) are excluded from every
adversary and counted; so are questions whose haystack is all gold (nothing to rank against).

**Revision.** The gate binds from corpus revision 3 (:data:`FROM_REVISION`, read from the ``-v<N>``
suffix by :func:`.calibration.corpus_revision`). An earlier revision, a fixture corpus or an id that
names no revision is *skipped*, never passed: the skip reason says the revision predates the gate,
and ``measured`` still carries every figure and the findings that would refuse it
(``would_refuse``), so the README can publish how the corpus fares.

**Exemptions.** An exempt finding is measured and reported, not refused. A declared exemption
(``declared.adversary_exemptions``, :class:`.declarations.Declared` items) names **one rule**
(``name``) on its ``shapes``, with its reason: the shape's other rules still bind (participant-
attribution's question quotes its gold remark, so the phrase reader finds it by construction; the
question-blind learned adversary must still be at chance there). The ``exempt`` argument
(shape -> reason) exempts every rule of a shape (self-tests, one-off measurements). A shape exempt
from a learned rule leaves the pooled row. An exemption that no longer fires is listed as stale.

Thresholds, the split constant and the classifier's settings are code constants; nothing is read
from the sidecar. Deterministic: no wall clock, no global random state, a pure function of bytes.

Readings chosen where GATES.md §7 leaves room:

- Features are indexed by an exact vocabulary built in corpus order (collision-free and as
  deterministic as hashing into a fixed-size vector, and as fast at these sizes).
- The learned adversary sees session *slots*: a session repeated in two haystacks is two rows with
  their own positions, as in V7. Each training question weighs 1, half on its gold, half on its
  filler, so long haystacks and many-gold questions do not dominate.
- The position prior is learned per shape (from the whole other half where that half has none of
  the shape) and adds the rate in each tenth of the haystack to the index-from-start and
  index-from-end rates ("gold in the last third" with varying N escapes fixed indices). Rates are
  smoothed towards the half's base rate with weight :data:`POSITION_SMOOTHING` = 5: unsmoothed,
  indices only the longest haystacks reach dominated the ranking and refused clean corpora.
- Haystack diff applies to a shape when one of its haystacks shares a session (id or turns) with
  any other haystack of the corpus, whatever that one's shape.
- The bounds are GATES.md's first-version choices, and they still apply; what changed is
  when a figure above one counts. **Small shapes.** A per-shape proportion bound is a coin at
  four questions: one chance hit is gold@1 0.25, above max(2 x random, 0.15), and Prospective v3
  (three shapes of four) was refused by 53 of 60 random relabellings of its own gold. So each rule
  judged against a no-signal ranking (:data:`CHANCE_RULES`: learned gold@1, learned AUC, position
  prior) refuses only when its figure is above the bound *and* :func:`null_draws` (the same
  figure under uniformly random rankings of the same haystacks — one ranking per haystack, so the
  two arms of a pair are not counted as two observations — :data:`NULL_DRAWS` draws, seeded)
  puts it beyond chance at :data:`LEARNED_ALPHA` = 0.01, Bonferroni-divided over the rows tested
  (every shape, plus the pooled row). The **pooled row** (:data:`POOLED`, every measured question
  of non-exempt shapes) is new: a tell spread thinly over small shapes, which no single shape can
  show, is refused there (self-test: a value-pool split over eleven shapes of four). The reader
  and fact-only BM25 are difficulty bounds on the figure itself (as calibration's ceiling is) and
  keep no test. False refusals: clean simulated corpora 2 of 240 (as before; seeds 1000-1039 none);
  random relabellings of the shipped corpora's own gold (``scripts/adversary_null.py``, 100 each)
  in the CHANGELOG.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..corpus.loading import Corpus
from ..corpus.models import QuestionRecord
from .adversary_chance import null_draws, p_value
from .adversary_haystacks import (
    K, Haystack, coverage_at_k, mean_or_none, question_groups, ranking_of, read_haystacks,
    split_halves, tied_coverage, tied_gold_at_1, within_auc
)
from .adversary_learned import learned_scores
from .adversary_rules import (
    fact_only_coverage, haystack_diff, phrase_scores, position_coverage, reader_scores
)
from .calibration import SATURATION_CEILING, corpus_revision
from .declarations import Declared, VerticalDeclarations, declarations_for
from .adversary_calendar import (
    CALENDAR_MARGIN, CALENDAR_NULL_DRAWS, calendar_features, calendar_reader
)
from .adversary_tables import (
    OFFSET_BUCKET_DAYS, OFFSET_MAX_BUCKET, TABLE_NULL_DRAWS, TABLE_SMOOTHING, TABLE_VIEWS,
    table_reader
)
from .form_reader import FORM_AUC_REFUSE, FORM_MARGIN, Candidates, form_scores
from .result import GateResult, GateStatus, Refusal, SelfTestCase, control_case, defect_case
# the self-test's corpora and case checks
from .selftest.adversaries import (
    FALSE_REFUSAL_BUDGET, FalseRefusal, RECURRENCE_CONTROL, RECURRENCE_DEFECT,
    SELF_TEST_SIMULATION_TRIALS, SMALL_SHAPES, SimulationSpec, _chance_case, _exempt_case,
    _skip_case, build_simulated_corpus
)

GATE = "adversaries"
RULES: tuple[str, ...] = ("learned_gold_at_1", "learned_auc", "position_prior", "haystack_diff",
                          "subject_value_reader", "fact_only_bm25", "phrase_reader",
                          "form_gold_at_1", "form_auc", "episode_gold_at_1", "episode_auc",
                          "tail_gold_at_1", "tail_auc", "frame_gold_at_1", "frame_auc",
                          "frame_length_gold_at_1", "frame_length_auc", "recurrence_gold_at_1",
                          "offset_gold_at_1", "offset_auc", "calendar_arm")
ADVERSARIES: tuple[str, ...] = ("learned", "position_prior", "haystack_diff",
                                "subject_value_reader", "fact_only_bm25", "phrase_reader",
                                "form_reader", "episode_reader", "tail_reader", "frame_reader",
                                "frame_length_reader", "recurrence_reader", "offset_reader",
                                "calendar_reader")

FROM_REVISION = 3
"""GATES.md §7: the gate applies from corpus revision 3 (VERTICALS.md Appendix D binds from v3)."""
LEARNED_RANDOM_FACTOR = 2.0
LEARNED_GOLD_AT_1_FLOOR = 0.15
"""Learned adversary: refused when gold@1 > max(2 x random gold@1, 0.15) (GATES.md §7)."""
LEARNED_AUC_REFUSE = 0.65
"""Learned adversary: refused when the mean within-question AUC > 0.65 (VERTICALS.md Appendix D)."""
LEARNED_ALPHA = 0.01
"""Learned adversary: a figure above its bound refuses only when no-signal chance gives one so high
less often than this (module docstring, "Small shapes")."""
FORM_VIEWS = 2
"""The form reader's clause and episode views share its rows' alpha: each is judged against chance
at alpha / 2, so adding the episode view did not raise the gate's false refusals. The tail view
(:mod:`.form_reader`, after red teams 27 and 28) is judged at alpha / 2 as well rather than taking a
third of it: a third would make the clause and episode views' rules stricter than they were (an
existing rule weakened), and on Prospective's seven rows alpha / 3 falls below the null draws'
resolution (1 / 2001), so nothing could be refused there. The price, measured: the form reader's
false refusals on random relabellings of the shipped corpora (``scripts/form_reader_null.py``) and
on clean simulated corpora (``false_refusal_rate``), both in the CHANGELOG and within budget.
The table readers (:mod:`.adversary_tables`) are judged at alpha / 2 each for the same reasons."""
FORM_READER_VIEWS: tuple[tuple[str, str], ...] = (("form", "clause"), ("episode", "episode"),
                                                  ("tail", "tail"))
"""The form reader's views as the gate names them (rule prefix, :data:`.form_reader.VIEWS` name)."""
GOLD_AT_1_ONLY: frozenset[str] = frozenset({"recurrence"})
"""Views judged on gold@1 alone: value recurrence is an untrained rule, "the most-named value is
gold" (red team 30's), whose AUC would only restate it."""
REPORTED_ONLY_RULES: frozenset[str] = frozenset({"frame_gold_at_1", "frame_auc"})
"""Rules measured and published but never refusing (decided 2026-12-08, CHANGELOG). The masked
*word* frame table keeps every word but values, subjects, numbers, pronouns and articles, so it
learns the answer-bearing stance words a memory must read ("added / not added", "included /
excluded") exactly as it learns role-exclusive filler words ("I liked / she saw", red team 32):
from the corpus alone a table of words cannot tell content from form, and binding it refused the
rebuilt Episodic for reading its stance verbs (list-order 0.961). Its content-free twin, the
word-length table (``frame_length_*``), binds: it refuses red team 32's Arithmetic (1.000) and red
team 35's Forgetting channel, and matched-length stance twins pass it. The word table's figures
stay in ``measured["reported_only"]`` and the README, for the red team to start from."""
POOLED = "(all shapes)"
"""The shape name of the learned adversary's pooled row: every measured question of the corpus."""
POSITION_MARGIN = 0.25
"""Position prior: refused when coverage@5 > random coverage@5 + 0.25."""
HAYSTACK_DIFF_SHARE = 0.20
"""Haystack diff: refused when more than 20 % of a shape's questions are singled out."""
READER_GOLD_AT_1 = 0.60
"""Subject-and-value reader: refused when gold@1 > 0.60."""
FACT_ONLY_CEILING = SATURATION_CEILING
"""Fact-only BM25: the calibration ceiling (0.90) on mean coverage@5."""
PHRASE_CEILING = SATURATION_CEILING
"""Phrase reader: the calibration ceiling (0.90) on mean coverage@5 (module docstring)."""

THRESHOLDS: dict[str, float] = {
    "learned_gold_at_1_floor": LEARNED_GOLD_AT_1_FLOOR,
    "learned_gold_at_1_random_factor": LEARNED_RANDOM_FACTOR,
    "learned_auc": LEARNED_AUC_REFUSE,
    "learned_alpha": LEARNED_ALPHA,
    "position_prior_margin": POSITION_MARGIN,
    "haystack_diff_share": HAYSTACK_DIFF_SHARE,
    "subject_value_reader_gold_at_1": READER_GOLD_AT_1,
    "fact_only_bm25_ceiling": FACT_ONLY_CEILING,
    "phrase_reader_ceiling": PHRASE_CEILING,
    "form_gold_at_1_margin": FORM_MARGIN,
    "form_auc": FORM_AUC_REFUSE,
    "table_smoothing": TABLE_SMOOTHING,
    "offset_bucket_days": OFFSET_BUCKET_DAYS,
    "offset_max_bucket": OFFSET_MAX_BUCKET,
    "table_null_draws": TABLE_NULL_DRAWS,
    "calendar_margin": CALENDAR_MARGIN,
    "calendar_null_draws": CALENDAR_NULL_DRAWS,
}


# --- the gate -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Finding:
    """One adversary beating its bound on one shape (before exemptions and the revision rule)."""

    rule: str
    shape: str
    value: float
    bound: float
    detail: str


def measure(records: Sequence[QuestionRecord], *, exclude_from_pool: frozenset[str] = frozenset()
            ) -> tuple[dict[str, Any], list[Finding]]:
    """Every adversary's figures per shape (with the random expectation and the bound beside each)
    and the findings that break a bound, before exemptions and revision rules are applied."""
    haystacks = read_haystacks(records)
    learned, learned_info = learned_scores(haystacks) if haystacks else ({}, {})
    position = position_coverage(haystacks) if haystacks else {}
    singled, shares = haystack_diff(haystacks)
    halves = split_halves(haystacks, [qi for qi, h in enumerate(haystacks) if h.ranked]
                          ) if haystacks else {}
    form_views = {prefix: form_scores(haystacks, halves, view) if haystacks else ({}, {})
                  for prefix, view in FORM_READER_VIEWS}
    # the table readers (:mod:`.adversary_tables`): frames, word-length frames, value recurrence
    # and date offsets, over the tail view's candidates; figures, bounds and chance as the views'
    # and their chance by relabelling with the tables relearned (:func:`.adversary_tables.table_null`)
    chances: dict[str, Mapping[int, tuple[Any, Any]]] = {}
    for view in TABLE_VIEWS:
        scored, excluded, chances[view] = table_reader(haystacks, halves, view) if haystacks \
            else ({}, {}, {})
        form_views[view] = (scored, excluded)
    shapes = sorted({h.shape for h in haystacks})
    ranked_shapes = {h.shape for h in haystacks if h.ranked}
    # Bonferroni over the rows judged against chance: every shape, and the pooled row
    alpha = LEARNED_ALPHA / max(1, len(ranked_shapes) + (1 if len(ranked_shapes) > 1 else 0))
    by_shape: dict[str, dict[str, Any]] = {}
    per_question: dict[str, dict[str, Any]] = {}
    findings: list[Finding] = []
    for shape in shapes:
        members = [qi for qi, h in enumerate(haystacks) if h.shape == shape]
        ranked = [qi for qi in members if haystacks[qi].ranked]
        no_gold = sum(1 for qi in members if not haystacks[qi].gold)
        all_gold = len(members) - len(ranked) - no_gold
        row: dict[str, Any] = {"questions": len(members), "measured_questions": len(ranked),
                               "excluded_no_gold": no_gold, "excluded_all_gold": all_gold}
        random_g1 = mean_or_none([len(haystacks[q].gold) / haystacks[q].n for q in ranked])
        random_k = mean_or_none([min(K, haystacks[q].n) / haystacks[q].n for q in ranked])
        readers = {q: reader_scores(haystacks[q]) for q in ranked}
        for q in ranked:
            per_question[haystacks[q].question_id] = {}

        tested = [q for q in ranked if q in learned]
        if tested:
            row["learned"] = _learned_figures(tested, learned, haystacks, shape, alpha)
            findings.extend(_learned_findings(row["learned"], shape, "the shape's"))
            for q in tested:
                order = ranking_of(learned[q])
                per_question[haystacks[q].question_id]["learned_gold_rank"] = 1 + min(
                    order.index(i) for i in haystacks[q].gold)
        else:
            row["learned"] = {"status": "not_measured" if ranked else "not_applicable",
                              "reason": ("no question of the shape could be tested: the other "
                                         "half has nothing to train on (every haystack shares "
                                         "sessions with every other)") if ranked else
                              "no question of the shape has both gold and filler"}

        tested = [q for q in ranked if q in position]
        if tested:
            cov = mean_or_none([position[q] for q in tested])
            rnd = mean_or_none([min(K, haystacks[q].n) / haystacks[q].n for q in tested])
            assert cov is not None and rnd is not None
            bound = rnd + POSITION_MARGIN
            chance = p_value(null_draws([(haystacks[q].keys, haystacks[q].gold) for q in tested],
                                        key=f"position\x1f{shape}")["coverage_at_5"], cov)
            row["position_prior"] = {"status": "measured", "questions": len(tested),
                                     "coverage_at_5": cov, "random_coverage_at_5": rnd,
                                     "bound": bound, "p_value": chance, "alpha": alpha}
            if cov > bound and chance < alpha:
                findings.append(Finding("position_prior", shape, cov, bound, (
                    f"ranking sessions by where the other half's gold sits puts {cov:.3f} of gold in "
                    f"the top {K} (random {rnd:.3f}, bound random + {POSITION_MARGIN}): gold "
                    "position is predictable; draw it, never fix it")))
            for q in tested:
                per_question[haystacks[q].question_id]["position_coverage_at_5"] = position[q]
        else:
            row["position_prior"] = {"status": "not_measured" if ranked else "not_applicable",
                                     "reason": "no question of the shape could be tested"
                                     if ranked else "no question with both gold and filler"}

        if not shares.get(shape):
            row["haystack_diff"] = {"status": "not_applicable", "reason": "no haystack of the "
                                    "shape shares a session with another haystack"}
        elif ranked:
            count = sum(1 for q in ranked if singled[q])
            share = count / len(ranked)
            row["haystack_diff"] = {"status": "measured", "questions": len(ranked),
                                    "singled_out": count, "singled_out_share": share,
                                    "random": 0.0, "bound": HAYSTACK_DIFF_SHARE}
            if share > HAYSTACK_DIFF_SHARE:
                findings.append(Finding("haystack_diff", shape, share, HAYSTACK_DIFF_SHARE, (
                    f"in {count} of {len(ranked)} questions the sessions found in no other haystack "
                    "are gold and only gold: diffing haystacks that share filler finds gold")))
            for q in ranked:
                per_question[haystacks[q].question_id]["singled_out"] = singled[q]
        else:
            row["haystack_diff"] = {"status": "not_applicable",
                                    "reason": "no question with both gold and filler"}

        if ranked:
            g1 = mean_or_none([tied_gold_at_1(readers[q], haystacks[q].gold) for q in ranked])
            assert g1 is not None and random_g1 is not None
            row["subject_value_reader"] = {"status": "measured", "questions": len(ranked),
                                           "gold_at_1": g1, "random_gold_at_1": random_g1,
                                           "bound": READER_GOLD_AT_1}
            if g1 > READER_GOLD_AT_1:
                findings.append(Finding("subject_value_reader", shape, g1, READER_GOLD_AT_1, (
                    f"the session whose best value-holding sentence shares most question words is "
                    f"gold in {g1:.3f} of questions (random {random_g1:.3f}): competitors must "
                    "carry values too, not content-free mentions")))
            fact = {q: fact_only_coverage(haystacks[q]) for q in ranked}
            row["fact_only_bm25"], found = _ceiling_row(
                "fact_only_bm25", shape, fact, random_k, FACT_ONLY_CEILING,
                "BM25 with every value-less sentence deleted covers {cov:.3f} of gold in the top "
                "{k} (ceiling {bound}; random {random:.3f}): the difficulty comes from content-free "
                "text")
            findings += found
            phrase = {q: tied_coverage(phrase_scores(haystacks[q]), haystacks[q].gold)
                      for q in ranked}
            row["phrase_reader"], found = _ceiling_row(
                "phrase_reader", shape, phrase, random_k, PHRASE_CEILING,
                "ranking sessions by the question's phrases in one sentence covers {cov:.3f} of "
                "gold in the top {k} (ceiling {bound}; random {random:.3f}): too few competitors "
                "carry the subject's own phrase")
            findings += found
            for q in ranked:
                entry = per_question[haystacks[q].question_id]
                order = ranking_of(readers[q])
                entry["reader_gold_rank"] = 1 + min(order.index(i) for i in haystacks[q].gold)
                entry["fact_only_coverage_at_5"] = fact[q]
                entry["phrase_coverage_at_5"] = phrase[q]
        else:
            for name in ("subject_value_reader", "fact_only_bm25", "phrase_reader"):
                row[name] = {"status": "not_applicable",
                             "reason": "no question of the shape has both gold and filler"}
        for view, (scored, _) in form_views.items():
            name = f"{view}_reader"
            row[name] = _form_row(ranked, scored, shape, alpha / FORM_VIEWS, view,
                                  chances.get(view))
            if row[name]["status"] == "measured":
                findings.extend(_form_findings(row[name], shape, "the shape's", view))
                for q in ranked:
                    if q in scored:
                        candidates, scores = scored[q]
                        order = ranking_of(scores)
                        per_question[haystacks[q].question_id][f"{view}_gold_rank"] = 1 + min(
                            order.index(i) for i in candidates.gold)
        by_shape[shape] = row
    pooled_questions = [q for q, h in enumerate(haystacks)
                        if h.ranked and q in learned and h.shape not in exclude_from_pool]
    pooled: dict[str, Any] = {"shapes": sorted({haystacks[q].shape for q in pooled_questions}),
                              "excluded_shapes": sorted(exclude_from_pool)}
    if len({haystacks[q].shape for q in pooled_questions}) > 1:
        pooled["learned"] = _learned_figures(pooled_questions, learned, haystacks, POOLED, alpha)
        findings.extend(_learned_findings(pooled["learned"], POOLED, "all measured"))
    else:
        pooled["learned"] = {"status": "not_applicable",
                             "reason": "fewer than two measured shapes: the per-shape row is it"}
    for view, (scored, _) in form_views.items():
        name = f"{view}_reader"
        view_pooled = [q for q, h in enumerate(haystacks)
                       if q in scored and h.shape not in exclude_from_pool]
        if len({haystacks[q].shape for q in view_pooled}) > 1:
            pooled[name] = _form_row(view_pooled, scored, POOLED, alpha / FORM_VIEWS, view,
                                     chances.get(view))
            findings.extend(_form_findings(pooled[name], POOLED, "all measured", view))
        else:
            pooled[name] = {"status": "not_applicable",
                            "reason": "fewer than two measured shapes: the per-shape row is it"}
    calendar_rows, calendar_excluded = _calendar_rows(records, haystacks, alpha / FORM_VIEWS)
    for shape, row in by_shape.items():
        row["calendar_reader"] = calendar_rows.get(shape, {
            "status": "not_applicable", "reason": "the shape's questions do not carry two arms"})
        if row["calendar_reader"].get("refuses"):
            findings.append(_calendar_finding(row["calendar_reader"], shape))
    pooled["calendar_reader"] = calendar_rows.get(POOLED, {
        "status": "not_applicable", "reason": "fewer than two two-armed shapes measured"})
    if pooled["calendar_reader"].get("refuses"):
        findings.append(_calendar_finding(pooled["calendar_reader"], POOLED))
    measured: dict[str, Any] = {"by_shape": by_shape, "pooled": pooled,
                                "calendar_reader_excluded": calendar_excluded,
                                **{f"{view}_reader_excluded": excluded
                                   for view, (_, excluded) in form_views.items()},
                                "learned_split": learned_info, "per_question": per_question}
    return measured, findings


def _calendar_rows(records: Sequence[QuestionRecord], haystacks: Sequence[Haystack], alpha: float
                   ) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, int]]]:
    """The calendar reader's rows (:mod:`.adversary_calendar`, red team 39): can a question's arm
    be told from the gap between its asked date and the haystack's session dates? Halves are the
    gate's split over the arm questions (a haystack's twin arms stay together)."""
    arms = [record.arm for record in records]
    shapes = [h.shape for h in haystacks]
    members = [qi for qi, arm in enumerate(arms) if arm is not None]
    if not members:
        return {}, {}
    halves = split_halves(haystacks, members)
    features = [calendar_features(h.question, h.question_date, h.dates, h.texts) if arms[qi] else None
                for qi, h in enumerate(haystacks)]
    return calendar_reader(arms, shapes, features, halves, alpha, POOLED)


def _calendar_finding(row: Mapping[str, Any], shape: str) -> Finding:
    """A calendar refusal: the arm (the answer's time verdict) read off the session dates."""
    best = max(row["accuracy_by_feature"].items(), key=lambda item: item[1])
    return Finding("calendar_arm", shape, row["accuracy"], row["bound"], (
        f"a threshold on the days from the haystack's session (or stated due) dates to the asked "
        f"date, learned on "
        f"the other half, predicts the question's arm ({'/'.join(row.get('arms', []))}) in "
        f"{row['accuracy']:.3f} of held-out questions (larger arm {row['majority_share']:.3f}, "
        f"bound +{CALENDAR_MARGIN}; best single gap {best[0]} {best[1]:.3f}; arms relabelled "
        f"within shape p = {row['p_value']:.2g} < {row['alpha']:.2g}): the time verdict needs no "
        "gold; draw the session calendar and every stated due date independently of the arm"))


def _ceiling_row(rule: str, shape: str, coverage: Mapping[int, float], random_k: float | None,
                 bound: float, detail: str) -> tuple[dict[str, Any], list[Finding]]:
    """A difficulty bound on a reader's mean coverage@K (no chance test: the figure is the
    corpus's difficulty for that reader, as calibration's ceiling is)."""
    cov = mean_or_none(list(coverage.values()))
    assert cov is not None and random_k is not None
    row = {"status": "measured", "questions": len(coverage), "coverage_at_5": cov,
           "random_coverage_at_5": random_k, "bound": bound}
    found = [Finding(rule, shape, cov, bound, detail.format(cov=cov, k=K, bound=bound,
                                                           random=random_k))] if cov > bound else []
    return row, found


def _learned_figures(tested: Sequence[int], learned: Mapping[int, Sequence[float]],
                     haystacks: Sequence[Haystack], key: str, alpha: float) -> dict[str, Any]:
    """The learned adversary's figures over some questions: gold@1 and mean AUC beside their random
    expectation, their bounds, their chance under no signal (:func:`null_draws`) and the ``alpha``
    it is judged at."""
    g1 = mean_or_none([tied_gold_at_1(learned[q], haystacks[q].gold) for q in tested])
    auc = mean_or_none([within_auc(learned[q], haystacks[q].gold) for q in tested])
    rnd = mean_or_none([len(haystacks[q].gold) / haystacks[q].n for q in tested])
    assert g1 is not None and auc is not None and rnd is not None
    draws = null_draws([(haystacks[q].keys, haystacks[q].gold) for q in tested],
                       key=f"learned\x1f{key}")
    return {"status": "measured", "questions": len(tested), "gold_at_1": g1,
            "random_gold_at_1": rnd,
            "gold_at_1_bound": max(LEARNED_RANDOM_FACTOR * rnd, LEARNED_GOLD_AT_1_FLOOR),
            "gold_at_1_p_value": p_value(draws["gold_at_1"], g1),
            "auc": auc, "random_auc": 0.5, "auc_bound": LEARNED_AUC_REFUSE,
            "auc_p_value": p_value(draws["auc"], auc), "alpha": alpha}


def _beyond_chance(row: Mapping[str, Any]) -> tuple[bool, bool]:
    """(gold@1, AUC) of a row judged against chance: each refuses when it is above its bound *and*
    no-signal chance explains it less often than the row's ``alpha`` (:data:`LEARNED_ALPHA` over
    the rows tested; module docstring). Shared by the learned adversary and the form reader."""
    alpha = row["alpha"]
    return (row["gold_at_1"] > row["gold_at_1_bound"] and row["gold_at_1_p_value"] < alpha,
            row["auc"] > row["auc_bound"] and row["auc_p_value"] < alpha)


def _learned_findings(row: Mapping[str, Any], shape: str, scope: str) -> list[Finding]:
    """The learned adversary's refusals of one row (:func:`_beyond_chance`)."""
    alpha = row["alpha"]
    out = []
    g1_refuses, auc_refuses = _beyond_chance(row)
    g1, rnd, bound, p = (row["gold_at_1"], row["random_gold_at_1"], row["gold_at_1_bound"],
                         row["gold_at_1_p_value"])
    if g1_refuses:
        out.append(Finding("learned_gold_at_1", shape, g1, bound, (
            f"a question-blind classifier trained on the other half's sessions puts gold first "
            f"in {g1:.3f} of {scope} {row['questions']} questions (random {rnd:.3f}, bound "
            f"max(2 x random, {LEARNED_GOLD_AT_1_FLOOR}) = {bound:.3f}; chance of so many with "
            f"no signal p = {p:.2g} < {alpha:.2g}): gold looks like gold without the question "
            "(value pool split by role, a frame only gold uses, gold's topic recurring in its "
            "haystack more than others' do)")))
    auc, p = row["auc"], row["auc_p_value"]
    if auc_refuses:
        out.append(Finding("learned_auc", shape, auc, LEARNED_AUC_REFUSE, (
            f"mean within-question AUC of the question-blind classifier is {auc:.3f} over "
            f"{scope} {row['questions']} questions (random 0.5, bound {LEARNED_AUC_REFUSE}; "
            f"p = {p:.2g} < {alpha:.2g} with no signal)")))
    return out


def _form_row(questions: Sequence[int], form: Mapping[int, tuple[Candidates, list[float]]],
              key: str, alpha: float, view: str = "form",
              chance: Mapping[int, tuple[Any, Any]] | None = None) -> dict[str, Any]:
    """The form reader's figures in one view over the questions it could test
    (:mod:`.form_reader`): gold@1 and mean AUC among candidate sessions, their random expectation,
    bounds and chance. ``view`` is ``form`` (clauses) or ``episode``; it seeds the null draws."""
    tested = [q for q in questions if q in form]
    if not tested:
        return {"status": "not_applicable", "coverage": f"0 of {len(questions)}",
                "reason": _NOT_APPLICABLE.get(view, _NOT_APPLICABLE["form"])}
    g1 = mean_or_none([tied_gold_at_1(form[q][1], form[q][0].gold) for q in tested])
    auc = mean_or_none([within_auc(form[q][1], form[q][0].gold) for q in tested])
    rnd = mean_or_none([len(form[q][0].gold) / len(form[q][0].session_list) for q in tested])
    assert g1 is not None and auc is not None and rnd is not None
    if chance is not None:
        # a table reader's chance: gold relabelled, the tables relearned (its own draws)
        draws = {"gold_at_1": sum(chance[q][0] for q in tested) / len(tested),
                 "auc": sum(chance[q][1] for q in tested) / len(tested)}
    else:
        draws = null_draws([(tuple(f"{q}\x1f{s}" for s in form[q][0].session_list),
                             form[q][0].gold) for q in tested], key=f"{view}\x1f{key}")
    return {"status": "measured", "questions": len(tested),
            "coverage": f"{len(tested)} of {len(questions)}", "gold_at_1": g1,
            "random_gold_at_1": rnd, "gold_at_1_bound": min(1.0, rnd + FORM_MARGIN),
            "gold_at_1_p_value": p_value(draws["gold_at_1"], g1),
            "mean_candidate_sessions": mean_or_none([len(form[q][0].session_list) for q in tested]),
            "auc": auc, "random_auc": 0.5, "auc_bound": FORM_AUC_REFUSE,
            "auc_p_value": p_value(draws["auc"], auc), "alpha": alpha}


_NOT_APPLICABLE = {
    "form": "no question of the shape has candidates in two or more sessions with gold among them "
            "(nothing a reader of form could break)",
    "recurrence": "no question of the shape has valued candidates in two or more sessions with "
                  "gold among them (no value whose recurrence could be counted)",
    "offset": "no question of the shape has candidates in two or more sessions whose statements "
              "state an interval (\"in N days/weeks\", \"for the next N ...\") resolvable against "
              "the session's date: no date offset to read",
}
"""Why a view measured no question of a shape (the row's ``reason``)."""

_FORM_VIEW_WORDS = {
    "form": ("form", "among the clauses holding the question's words and a value, a classifier of "
             "their form alone (word lengths, punctuation, place in the turn)",
             "gold's statement is written differently from its competitors'; draw every frame for "
             "every role"),
    "episode": ("episode", "among the sentences holding the question's words, each read with the "
                "sentences around it in its turn, a classifier of their form alone (lengths, "
                "commas, sentences, neighbours)",
                "gold's episode (its intro, statement and follow-up) is shaped differently from its "
                "competitors'; draw every intro and follow-up for every role"),
    "tail": ("tail", "among the sentences naming the question's subject (its words less its "
             "shape's question frame), each read to the end of its turn with values masked, a "
             "classifier of their form alone (lengths, commas, sentences, place in the turn)",
             "gold's statement with what follows it in its turn is shaped differently from its "
             "competitors' (a stance tail only competitors carry, frames of different lengths by "
             "role); draw every frame and tail for every role, matched in length"),
    "frame": ("frame", "among the tail view's candidate sentences, a table of their masked frames "
              "(values, subject words, numbers, 'a/an <noun>', pronouns, possessives and articles "
              "masked) learned on the other half",
              "gold's statement and its competitors' are written in frames of their own (twins "
              "that differ in words other than the value, or a closed stance vocabulary inside the "
              "statement); draw every frame for every role, stance carried by open content"),
    "frame_length": ("frame_length", "among the tail view's candidate sentences, a table of their "
                     "masked frames with every other word replaced by its length",
                     "gold's frames and its competitors' differ in the lengths of their words in "
                     "order, though not in aggregate; draw every frame for every role"),
    "recurrence": ("recurrence", "among the tail view's candidate sessions, the one whose value "
                   "the most haystack sessions name (untrained)",
                   "gold's value is told in more sessions than its competitors' values; tell every "
                   "competitor's value as often as gold's"),
    "offset": ("offset", "among the tail view's candidates stating an interval, a table of how far "
               "(4-day buckets) the statement's due date falls from the asked date",
               "gold's due date sits in a band of offsets from the question's date that "
               "competitors' avoid; draw every role's interval from one distribution"),
}
"""Per view: the rule prefix, what the reader does, and the usual cause (the findings' words)."""


def _form_findings(row: Mapping[str, Any], shape: str, scope: str, view: str = "form"
                   ) -> list[Finding]:
    """One view's form-reader refusals of one row (:func:`_beyond_chance`)."""
    prefix, reads, cause = _FORM_VIEW_WORDS[view]
    out = []
    alpha = row["alpha"]
    g1_refuses, auc_refuses = _beyond_chance(row)
    g1, rnd, bound, p = (row["gold_at_1"], row["random_gold_at_1"], row["gold_at_1_bound"],
                         row["gold_at_1_p_value"])
    if g1_refuses:
        out.append(Finding(f"{prefix}_gold_at_1", shape, g1, bound, (
            f"{reads}, trained on the other half, puts a gold session first in {g1:.3f} of "
            f"{scope} {row['questions']} questions (random among those sessions {rnd:.3f}, bound "
            f"random + {FORM_MARGIN}; p = {p:.2g} < {alpha:.2g} with no signal): {cause}")))
    auc, p = row["auc"], row["auc_p_value"]
    if auc_refuses and view not in GOLD_AT_1_ONLY:
        out.append(Finding(f"{prefix}_auc", shape, auc, FORM_AUC_REFUSE, (
            f"mean within-question AUC of the {view} reader among candidate sessions is "
            f"{auc:.3f} over {scope} {row['questions']} questions (random 0.5, bound "
            f"{FORM_AUC_REFUSE}; p = {p:.2g} < {alpha:.2g} with no signal)")))
    return out


LEARNED_RULES = ("learned_gold_at_1", "learned_auc")
"""The learned adversary's rules: a shape exempt from either leaves the pooled row."""
ANY_RULE = "*"
"""An exemption of every rule of a shape (the ``exempt`` argument's)."""


def _exemptions(declared: VerticalDeclarations, exempt: Mapping[str, str] | None
                ) -> dict[str, dict[str, str]]:
    """shape -> {rule (or :data:`ANY_RULE`) -> reason}: declared ones name one rule each."""
    out: dict[str, dict[str, str]] = {}
    for item in declared.adversary_exemptions:
        if item.name not in RULES:
            raise ValueError(f"adversary exemption names no rule: {item.name!r} "
                             f"(rules: {', '.join(RULES)})")
        for shape in item.shapes:
            out.setdefault(shape, {})[item.name] = item.reason
    for shape, reason in (exempt or {}).items():
        out.setdefault(str(shape), {})[ANY_RULE] = str(reason)
    return out


def _exempt_reason(exemptions: Mapping[str, Mapping[str, str]], shape: str, rule: str
                   ) -> str | None:
    rules = exemptions.get(shape, {})
    return rules.get(rule) or rules.get(ANY_RULE)


def _worst(by_shape: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    def top(adversary: str, figure: str) -> dict[str, Any] | None:
        rows = [(row[adversary][figure], shape) for shape, row in by_shape.items()
                if row.get(adversary, {}).get("status") == "measured"]
        if not rows:
            return None
        value, shape = max(rows, key=lambda item: (item[0], item[1]))
        return {"value": value, "shape": shape}

    out: dict[str, Any] = {}
    for key, adversary, figure in (
            ("learned_gold_at_1", "learned", "gold_at_1"), ("learned_auc", "learned", "auc"),
            ("position_prior", "position_prior", "coverage_at_5"),
            ("haystack_diff", "haystack_diff", "singled_out_share"),
            ("subject_value_reader", "subject_value_reader", "gold_at_1"),
            ("fact_only_bm25", "fact_only_bm25", "coverage_at_5"),
            ("phrase_reader", "phrase_reader", "coverage_at_5"),
            ("form_gold_at_1", "form_reader", "gold_at_1"), ("form_auc", "form_reader", "auc"),
            ("episode_gold_at_1", "episode_reader", "gold_at_1"),
            ("episode_auc", "episode_reader", "auc"),
            ("tail_gold_at_1", "tail_reader", "gold_at_1"), ("tail_auc", "tail_reader", "auc"),
            ("frame_gold_at_1", "frame_reader", "gold_at_1"), ("frame_auc", "frame_reader", "auc"),
            ("frame_length_gold_at_1", "frame_length_reader", "gold_at_1"),
            ("frame_length_auc", "frame_length_reader", "auc"),
            ("recurrence_gold_at_1", "recurrence_reader", "gold_at_1"),
            ("offset_gold_at_1", "offset_reader", "gold_at_1"),
            ("offset_auc", "offset_reader", "auc"),
            ("calendar_arm", "calendar_reader", "accuracy")):
        found = top(adversary, figure)
        out[key] = found
    return out


def check(corpus: Corpus, *, declared: VerticalDeclarations | None = None,
          exempt: Mapping[str, str] | None = None) -> GateResult:
    """The five adversaries over one corpus (pure). ``declared`` defaults to the code constants for
    its vertical; ``exempt`` adds shape exemptions (shape -> reason). Rules: :data:`RULES`.

    Enforced from revision 3 on; an earlier revision, a fixture or an id without a revision is
    ``skipped`` with the reason, the figures and the would-be findings in ``measured``."""
    vertical = corpus.vertical.lower() if corpus.vertical else None
    declared = declarations_for(vertical) if declared is None else declared
    exemptions = _exemptions(declared, exempt)
    revision = corpus_revision(corpus.corpus_id)
    fixture = bool(getattr(corpus, "is_fixture", False))
    enforced = revision is not None and revision >= FROM_REVISION and not fixture
    learned_exempt = frozenset(shape for shape in exemptions if any(
        _exempt_reason(exemptions, shape, rule) for rule in LEARNED_RULES))
    measured, findings = measure(corpus.records, exclude_from_pool=learned_exempt)
    by_shape = measured["by_shape"]

    refusals: list[Refusal] = []
    applied: dict[str, dict[str, Any]] = {}
    order = {rule: index for index, rule in enumerate(RULES)}
    findings.sort(key=lambda f: (order[f.rule], f.shape))
    reported_only: list[dict[str, Any]] = []
    for finding in findings:
        if finding.rule in REPORTED_ONLY_RULES:
            reported_only.append({"rule": finding.rule, "shape": finding.shape,
                                  "value": round(finding.value, 6), "bound": finding.bound,
                                  "detail": finding.detail})
            continue
        reason = _exempt_reason(exemptions, finding.shape, finding.rule)
        if reason is not None:
            entry = applied.setdefault(finding.shape, {"reason": reason, "rules": []})
            entry["rules"].append(finding.rule)
            continue
        refusals.append(Refusal(finding.rule, finding.shape, round(finding.value, 6),
                                f"{finding.detail} [bound {finding.bound:.3f}]", vertical,
                                finding.shape))
    stale = sorted(shape for shape, rules in exemptions.items() if shape not in applied or any(
        rule != ANY_RULE and rule not in applied[shape]["rules"] for rule in rules))
    for shape, row in by_shape.items():
        rules = exemptions.get(shape)
        row["exempt"] = None if not rules else (rules[ANY_RULE] if ANY_RULE in rules else
                                                {rule: why for rule, why in sorted(rules.items())})
    notes: list[str] = [
        "reader, phrase-reader, position-prior and learned gold@1 figures count ties at random "
        "(expected coverage); fact-only BM25 breaks ties by session order as the reference does; "
        "questions without gold, or all gold, are excluded and counted per shape",
        "learned adversary: question-blind logistic regression, 2-fold over question groups that "
        "share no session; value-membership features cross-fitted inside the training half; "
        "haystack-relative recurrence features per session slot",
    ]
    for shape in stale:
        notes.append(f"{shape}: adversary exemption declared but not needed (shape absent or no "
                     "adversary fires on it); delete it")
    for shape, entry in applied.items():
        notes.append(f"{shape}: exempt from {', '.join(entry['rules'])} ({entry['reason']})")
    not_measured = sorted(
        f"{shape}/{name}" for shape, row in by_shape.items() for name in ADVERSARIES
        if row.get(name, {}).get("status") == "not_measured"
        and ANY_RULE not in exemptions.get(shape, {}))

    measured.update({
        "vertical": vertical, "revision": revision, "enforced": enforced,
        "from_revision": FROM_REVISION, "thresholds": dict(THRESHOLDS), "k": K,
        "excluded_no_gold": sum(row["excluded_no_gold"] for row in by_shape.values()),
        "excluded_all_gold": sum(row["excluded_all_gold"] for row in by_shape.values()),
        "worst": _worst(by_shape),
        "exemptions_applied": applied, "stale_exemptions": stale, "reported_only": reported_only,
        "would_refuse": [{"rule": r.rule, "shape": r.shape, "value": r.value} for r in refusals],
        "not_measured": not_measured,
    })
    status: GateStatus
    skip_reason = None
    if not enforced:
        status = "skipped"
        why = ("a fixture corpus" if fixture else
               "its id names no revision" if revision is None else f"revision {revision}")
        verdict = (f"{len(refusals)} finding(s) would refuse it: " + "; ".join(
            f"{r.shape} {r.rule} {r.value:.3f}" for r in refusals[:6])
                   + (" ..." if len(refusals) > 6 else "")) if refusals else \
            "no adversary would refuse it"
        skip_reason = (f"the adversary gate binds from corpus revision {FROM_REVISION} (GATES.md §7) "
                       f"and this is {why}, which predates it: measured, not enforced; {verdict} "
                       "(figures in measured)")
        refusals = []
    elif refusals:
        status = "refused"
    elif not_measured:
        status = "skipped"
        skip_reason = ("adversaries not measured: " + ", ".join(not_measured)
                       + " (an unmeasured adversary is never a pass)")
    elif not any(row["measured_questions"] for row in by_shape.values()):
        status = "skipped"
        skip_reason = "no question has both gold and filler sessions: nothing to rank"
    else:
        status = "passed"
    return GateResult(GATE, corpus.corpus_id, status, tuple(refusals), measured, tuple(notes),
                      skip_reason=skip_reason)


# --- the false-refusal simulation and the self-test (corpora: :mod:`.selftest.adversaries`) -----


def false_refusal_rate(trials: int = 40, *, seed: int = 1000,
                       spec: SimulationSpec | None = None) -> FalseRefusal:
    """Run the gate over ``trials`` clean simulated corpora (seeds ``seed``..``seed + trials - 1``)
    and count refusals. A refusal of a clean corpus is a false refusal."""
    by_rule: Counter[str] = Counter()
    refused: list[int] = []
    none = VerticalDeclarations()
    for trial in range(trials):
        result = check(build_simulated_corpus(seed + trial, spec), declared=none)
        if result.status == "refused":
            refused.append(seed + trial)
            by_rule.update(result.refused_rules())
    return FalseRefusal(trials, len(refused), dict(sorted(by_rule.items())), tuple(refused))


def _pooled_case(name: str, result: GateResult) -> SelfTestCase:
    """A tell spread over small shapes: refused by the learned rule on the pooled row itself."""
    pooled = sorted(r.rule for r in result.refusals if r.shape == POOLED)
    ok = result.status == "refused" and "learned_gold_at_1" in pooled
    return SelfTestCase(name, "defect", "learned_gold_at_1", ok,
                        f"expected learned_gold_at_1 on {POOLED}; fired there {pooled or 'nothing'}"
                        f"; all {sorted(result.refused_rules())}")


def _false_refusal_case(trials: int) -> SelfTestCase:
    found = false_refusal_rate(trials)
    ok = found.rate <= FALSE_REFUSAL_BUDGET
    return SelfTestCase(
        f"false-refusal rate on {trials} clean simulated corpora <= {FALSE_REFUSAL_BUDGET}",
        "control", None, ok,
        f"{found.refused} of {found.trials} refused ({found.rate:.3f}); by rule {found.by_rule}; "
        f"seeds {list(found.refused_seeds)}")


def self_test() -> list[SelfTestCase]:
    """Each injected tell refused by its intended rule; clean controls that must pass."""
    none = VerticalDeclarations()
    cases: list[SelfTestCase] = []
    split = build_simulated_corpus(11, SimulationSpec(pools="split"))
    split_result = check(split, declared=none)
    cases.append(defect_case("value pool split by role (gold values from one list, filler from "
                             "another)", split_result, "learned_gold_at_1"))
    cases.append(defect_case("value pool split by role: within-question AUC", split_result,
                             "learned_auc"))
    cases.append(defect_case("gold at a fixed index (second from the end)",
                             check(build_simulated_corpus(12, SimulationSpec(gold_position=1)),
                                   declared=none), "position_prior"))
    content_free = check(build_simulated_corpus(13, SimulationSpec(content_free_competitors=True)),
                         declared=none)
    cases.append(defect_case("content-free-only competition: the subject-and-value sentence is "
                             "gold's", content_free, "subject_value_reader"))
    cases.append(defect_case("content-free-only competition: BM25 after deleting value-less "
                             "sentences", content_free, "fact_only_bm25"))
    cases.append(defect_case("competitors name the asked item at another place: only gold holds "
                             "the question's phrase", check(build_simulated_corpus(
                                 17, SimulationSpec(phrase_free_competitors=True)),
                                 declared=none), "phrase_reader"))
    cases.append(defect_case("haystacks sharing filler that differ only in gold",
                             check(build_simulated_corpus(14, SimulationSpec(family=4)),
                                   declared=none), "haystack_diff"))
    cases.append(defect_case("competitors cluster around the asked subject only (gold and 4-7 "
                             "valued competitors, every other subject once): within-haystack "
                             "recurrence", check(build_simulated_corpus(15, RECURRENCE_DEFECT),
                                                 declared=none), "learned_auc"))

    form_tell = check(build_simulated_corpus(18, SimulationSpec(form_tell=True)), declared=none)
    cases.append(defect_case("competitors' statements worded longer than gold's (same frames and "
                             "values, a tag only competitors carry): the form reader's gold@1",
                             form_tell, "form_gold_at_1"))
    cases.append(defect_case("competitors' statements worded longer than gold's: the form "
                             "reader's within-question AUC", form_tell, "form_auc"))
    episode_tell = check(build_simulated_corpus(19, SimulationSpec(episode_tell=True)),
                         declared=none)
    cases.append(defect_case("competitors' statements introduced by a longer lead-in naming the "
                             "subject than gold's (every statement has one; the statement clauses "
                             "alike): the episode reader's gold@1", episode_tell,
                             "episode_gold_at_1"))
    cases.append(defect_case("competitors' lead-ins longer than gold's: the episode reader's "
                             "within-question AUC", episode_tell, "episode_auc"))
    tail_tell = check(build_simulated_corpus(26, SimulationSpec(tail_tell=True)), declared=none)
    cases.append(_tail_case("competitors' statements end their turn, after an aside, on a longer "
                            "value-less remark than gold's (no candidate clause or neighbour "
                            "differs): the tail reader's gold@1, and not the clause or episode "
                            "view", tail_tell, "tail_gold_at_1"))
    cases.append(_tail_case("competitors' longer closing remark: the tail reader's within-question "
                            "AUC", tail_tell, "tail_auc"))
    echo = check(build_simulated_corpus(28, SimulationSpec(frame_echo=True)), declared=none)
    cases.append(_tail_case("competitors' statements echo the question's frame word (\"as far as I "
                            "know\"): the clause and episode views' top tier holds no gold and "
                            "they measure nothing; the tail view sets the frame aside and reads "
                            "the longer statements (gold@1)", echo, "tail_gold_at_1"))
    cases.append(control_case("clean: every statement ends on an aside and a remark drawn long or "
                              "short whatever its role",
                              check(build_simulated_corpus(27, SimulationSpec(tail_random=True)),
                                    declared=none)))
    cases.extend(_tables_cases())
    cases.extend(_calendar_cases())
    cases.append(control_case("clean: one template machinery, one value pool, roles after the "
                              "draw, random positions, competitors with values (plus a shape "
                              "without gold, excluded and counted)",
                              check(build_simulated_corpus(21, SimulationSpec(
                                  no_gold_questions=4)), declared=none)))
    cases.append(control_case("clean families sharing filler, each haystack adding its own "
                              "filler besides gold",
                              check(build_simulated_corpus(22, SimulationSpec(
                                  family=4, family_own_filler=3)), declared=none)))
    cases.append(control_case("clean: every subject of a haystack has the same cluster (5-8 valued "
                              "sessions), the asked one chosen after the draw",
                              check(build_simulated_corpus(24, RECURRENCE_CONTROL),
                                    declared=none)))
    cases.append(control_case("clean paired arms sharing a byte-identical haystack",
                              check(build_simulated_corpus(23, SimulationSpec(paired=True)),
                                    declared=none)))
    small_split = check(build_simulated_corpus(16, replace(SMALL_SHAPES, pools="split")),
                        declared=none)
    cases.append(_pooled_case("value pool split across eleven shapes of four questions: the "
                              "pooled row refuses what no single small shape can show",
                              small_split))
    cases.append(_chance_case("clean, eleven shapes of four questions: a chance hit is not a tell",
                              check(build_simulated_corpus(25, SMALL_SHAPES), declared=none)))
    cases.append(_exempt_case("value pool split on a shape declared exempt: reported, not refused",
                              check(split, declared=none, exempt={
                                  "lookup": "self-test: an exemption is reported with its reason"}),
                              "lookup"))
    one_rule = VerticalDeclarations(adversary_exemptions=(Declared(
        "phrase_reader", "self-test: a one-rule exemption", shapes=("lookup",)),))
    cases.append(defect_case("value pool split on a shape exempt from the phrase reader only: "
                             "the learned rules still refuse it",
                             check(split, declared=one_rule), "learned_gold_at_1"))
    cases.append(_skip_case("a revision-2 corpus with the split is skipped with its figures, "
                            "never passed",
                            check(replace(split, corpus_id="selftest-adversaries-v2"),
                                  declared=none)))
    cases.append(_tie_case())
    cases.append(_false_refusal_case(SELF_TEST_SIMULATION_TRIALS))
    return cases


AGGREGATE_FORM_RULES = frozenset({"form_gold_at_1", "form_auc", "episode_gold_at_1", "episode_auc",
                                  "tail_gold_at_1", "tail_auc"})
"""The form reader's rules, which read aggregates of a candidate (counts, lengths)."""


def _tables_cases() -> list[SelfTestCase]:
    """The table readers' defects (each refused by its rule; the frame tells by no aggregate form
    rule, which is the coverage the frame tables add) and their clean controls."""
    none = VerticalDeclarations()

    def run(seed: int, **knobs: bool) -> GateResult:
        return check(build_simulated_corpus(seed, SimulationSpec(**knobs)), declared=none)

    frame = run(29, frame_tell=True)
    length = run(31, length_tell=True)
    recurrence = run(33, recurrence_tell=True)
    offset = run(35, offset_tell=True)
    return [
        _new_coverage_case("competitors state their fact in twin frames (the same words in another "
                           "order; every aggregate alike): the word-length frame table's gold@1 "
                           "(the word table, reported only, reads it too), and no aggregate form "
                           "rule", frame, "frame_length_gold_at_1"),
        _new_coverage_case("twin frames: the word-length frame table's within-question AUC", frame,
                           "frame_length_auc"),
        _new_coverage_case("competitors' statements end long-short, gold's short-long (drawn "
                           "words; the same lengths in aggregate): the word-length frame table's "
                           "gold@1, and no aggregate form rule", length, "frame_length_gold_at_1"),
        _new_coverage_case("long-short against short-long: the word-length frame table's "
                           "within-question AUC", length, "frame_length_auc"),
        defect_case("gold's value told again in another session, competitors' once: the "
                    "most-named value is gold", recurrence, "recurrence_gold_at_1"),
        defect_case("gold's due date 4-7 days after the question's date, competitors' 12-40: the "
                    "offset table's gold@1", offset, "offset_gold_at_1"),
        defect_case("gold's due date in a narrow band: the offset table's within-question AUC",
                    offset, "offset_auc"),
        control_case("clean: every statement's frame from either twin bank at random",
                     run(37, frame_random=True)),
        control_case("clean: every statement's two describing words in an order drawn at random",
                     run(32, length_random=True)),
        control_case("clean: gold's and every competitor's value told again in another session",
                     run(34, recurrence_equal=True)),
        control_case("clean: every statement's due date 4-40 days after the question's date",
                     run(36, offset_random=True)),
    ]


def _calendar_cases() -> list[SelfTestCase]:
    """The calendar reader's defects (the arm sets the gap from the last session to the question
    date, red team 39; the arm sets which side of it every stated due date falls, red team 40) and
    their clean controls (the same arms, gap or side drawn whatever the arm)."""
    none = VerticalDeclarations()
    tell = check(build_simulated_corpus(39, SimulationSpec(calendar_tell=True)), declared=none)
    clean = check(build_simulated_corpus(40, SimulationSpec(calendar_random=True)), declared=none)
    due = check(build_simulated_corpus(41, SimulationSpec(due_tell=True)), declared=none)
    due_clean = check(build_simulated_corpus(42, SimulationSpec(due_random=True)), declared=none)
    return [
        defect_case("the arm sets the calendar: 'before' questions dated 20-40 days after the last "
                    "session, 'after' 45-65: the calendar reader's held-out arm accuracy", tell,
                    "calendar_arm"),
        control_case("clean: the same arms, every question dated 20-65 days after its last "
                     "session whatever its arm", clean),
        defect_case("every statement falls due on the arm's side of the question's date (after it "
                    "for 'before', before it for 'after'; red team 40): the calendar reader's "
                    "held-out arm accuracy from the stated due dates", due, "calendar_arm"),
        control_case("clean: the same arms and due sentences, each statement due 1-15 days on "
                     "either side of the question's date at random", due_clean),
    ]


def _new_coverage_case(name: str, result: GateResult, rule: str) -> SelfTestCase:
    """A tell only a frame table can read: its rule fires and no aggregate form rule does."""
    fired = result.refused_rules()
    old = sorted(fired & AGGREGATE_FORM_RULES)
    ok = result.status == "refused" and rule in fired and not old
    return SelfTestCase(name, "defect", rule, ok,
                        f"expected {rule} and no aggregate form rule; fired {sorted(fired)}")


def _tail_case(name: str, result: GateResult, rule: str) -> SelfTestCase:
    """A tell only the tail view can read: its rule fires and no clause- or episode-view rule does
    (the widened candidate rule sees what the old ones did not)."""
    fired = result.refused_rules()
    old = sorted(fired & {"form_gold_at_1", "form_auc", "episode_gold_at_1", "episode_auc"})
    ok = result.status == "refused" and rule in fired and not old
    return SelfTestCase(name, "defect", rule, ok,
                        f"expected {rule} and no clause or episode rule; fired {sorted(fired)}")


def _tie_case() -> SelfTestCase:
    """Ties at the cut count at random, never by session order: gold first among twenty sessions
    scored alike covers 5/20 at 5 and 1/20 at rank 1 (session order would say 1.0 and 1.0, a
    position prior); gold strictly on top still covers 1.0; gold tied with three others at ranks
    4-7 covers 2/4."""
    flat, gold = [1.0] * 20, frozenset({0})
    top = [2.0] + [1.0] * 19
    cut = [5.0, 4.0, 3.0, 2.0, 2.0, 2.0, 2.0] + [1.0] * 13
    figures = {"flat coverage": tied_coverage(flat, gold), "flat gold@1": tied_gold_at_1(flat, gold),
               "top coverage": tied_coverage(top, gold), "top gold@1": tied_gold_at_1(top, gold),
               "cut coverage": tied_coverage(cut, frozenset({6})),
               "session-order coverage": coverage_at_k(ranking_of(flat), gold)}
    want = {"flat coverage": 0.25, "flat gold@1": 0.05, "top coverage": 1.0, "top gold@1": 1.0,
            "cut coverage": 0.5, "session-order coverage": 1.0}
    ok = all(abs(figures[k] - v) < 1e-12 for k, v in want.items())
    return SelfTestCase("ties at the cut are counted at random, not by session order (phrase "
                        "reader, subject-and-value reader, position prior, learned gold@1)",
                        "control", None, ok, f"figures {figures}, expected {want}")


__all__ = ["ADVERSARIES", "FALSE_REFUSAL_BUDGET", "FROM_REVISION", "FalseRefusal", "GATE",
           "POOLED", "RECURRENCE_CONTROL", "RECURRENCE_DEFECT", "RULES", "SMALL_SHAPES", "SimulationSpec", "THRESHOLDS",
           "build_simulated_corpus", "check", "false_refusal_rate", "measure", "question_groups",
           "self_test", "split_halves"]
