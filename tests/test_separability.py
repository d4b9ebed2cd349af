"""V7 separability gate (GATES.md §2): the statistics, the rules, the self-test, the exemptions."""

from __future__ import annotations

import dataclasses
import itertools
import math
import random
import subprocess
import sys
from datetime import datetime, timedelta
from fractions import Fraction
from math import comb
from pathlib import Path

import pytest

from pytest_typedmemeval.corpus.loading import Corpus
from pytest_typedmemeval.corpus.models import (
    Exemption,
    QuestionRecord,
    SeparabilityFeature,
    Sidecar,
    format_corpus_date,
)
from pytest_typedmemeval.gates import separability
from pytest_typedmemeval.gates.selftest import separability as separability_fixtures
from pytest_typedmemeval.gates.declarations import Declared, VerticalDeclarations
from pytest_typedmemeval.gates.result import SelfTestCase
from pytest_typedmemeval.gates.features import PHRASE_PREFIX, extract_features, phrase_grams, segments
from pytest_typedmemeval.gates import separability_scoring
from pytest_typedmemeval.gates.separability import AUC_REFUSE, check, self_test
from pytest_typedmemeval.gates.separability_scoring import relevance_exemptions, score_features
from pytest_typedmemeval.gates.separability_statistics import (
    DistributionFamily,
    distribution_z,
    holm_adjust,
    one_sided_p,
    perfect_separation_probability,
    pooled_auc,
    separates_perfectly,
)
from pytest_typedmemeval.retrieval.tokenizer import raw_tokens

NO_EXEMPTIONS = VerticalDeclarations()

# The threshold is restated here on purpose (VERTICALS.md §4.7 "Independent recomputation"): if the
# module constant were relaxed, this test file would still hold the gate to 0.75.
REFUSE_AT = 0.75
# Likewise the distribution rule (VERTICALS.md Appendix C "§4.7 distribution rule"): Holm over the
# features tested at family-wise 0.05, and the 0.20 share floor.
FAMILY_ALPHA = 0.05
SHARE_FLOOR = 0.20


# --- small corpora built by hand ---------------------------------------------------------------


def _record(index: int, question: str, answer: str, sessions: list[list[tuple[str, str]]],
            gold: set[int], shape: str = "lookup") -> QuestionRecord:
    ids = [f"q{index}-s{i}" for i in range(len(sessions))]
    start = datetime(2026, 2, 1, 9, 0)
    return QuestionRecord.model_validate({
        "question_id": f"tme-tst-{index:03d}",
        "question_type": "test",
        "question": question,
        "answer": answer,
        "question_date": format_corpus_date(start + timedelta(days=len(sessions))),
        "haystack_session_ids": ids,
        "haystack_dates": [format_corpus_date(start + timedelta(days=i)) for i in range(len(sessions))],
        "haystack_sessions": [[{"role": role, "content": text,
                                "has_answer": i in gold and role == "user"}
                               for role, text in session] for i, session in enumerate(sessions)],
        "answer_session_ids": [ids[i] for i in sorted(gold)],
        "typedmemeval": {"vertical": "synthetic", "shape": shape,
                         "answer_key": {"accepted": [answer]}},
    })


def _corpus(records: list[QuestionRecord], sidecar: Sidecar | None = None) -> Corpus:
    return Corpus(corpus_id="handmade", path=Path("<handmade>"), sha256="0" * 64,
                  records=tuple(records), sidecar=sidecar, vertical="synthetic")


def _exchange(user: str, assistant: str = "Okay.") -> list[tuple[str, str]]:
    return [("user", user), ("assistant", assistant)]


# --- p_q: the exact formula against brute force ------------------------------------------------


def _brute_force_probability(values: list[float], gold: int) -> Fraction:
    """Enumerate every permutation of the values over the sessions; gold = the first ``gold``."""
    hits = total = 0
    for arrangement in itertools.permutations(values):
        total += 1
        hits += separates_perfectly(list(arrangement[:gold]), list(arrangement[gold:]))
    return Fraction(hits, total)


def _cases_for_p() -> list[tuple[list[float], int]]:
    rng = random.Random(20260227)
    cases: list[tuple[list[float], int]] = []
    for n in range(2, 8):
        for g in range(1, n):
            cases.append(([float(v) for v in range(n)], g))  # distinct
            for m in range(0, n + 1):  # binary held by m sessions
                cases.append(([1.0] * m + [0.0] * (n - m), g))
            for _ in range(3):  # ties of every kind
                cases.append(([float(rng.randint(0, 2)) for _ in range(n)], g))
    return cases


@pytest.mark.parametrize(("values", "gold"), _cases_for_p(),
                         ids=lambda item: str(item) if isinstance(item, int) else
                         ",".join(f"{v:g}" for v in item))
def test_perfect_separation_probability_equals_brute_force(values: list[float], gold: int) -> None:
    assert perfect_separation_probability(values, gold) == _brute_force_probability(values, gold)


@pytest.mark.parametrize("n", range(2, 8))
def test_p_matches_the_closed_forms_of_gates_md(n: int) -> None:
    for g in range(1, n):
        assert perfect_separation_probability(list(range(n)), g) == Fraction(2, comb(n, g))
        for m in range(n + 1):
            binary = [1] * m + [0] * (n - m)
            expected = Fraction((m == g) + (m == n - g), comb(n, g))
            assert perfect_separation_probability(binary, g) == expected, (n, g, m)


def test_p_is_zero_without_both_gold_and_distractors() -> None:
    assert perfect_separation_probability([1, 2, 3], 0) == 0
    assert perfect_separation_probability([1, 2, 3], 3) == 0


def test_z_is_zero_when_every_p_is_zero_or_one() -> None:
    # V = 0 forces X = E: p = 1 questions always separate, p = 0 questions never can.
    assert distribution_z(2, [1.0, 1.0, 0.0]) == 0.0
    assert distribution_z(3, [0.2, 0.2, 0.2]) == pytest.approx((3 - 0.6) / (3 * 0.16) ** 0.5)


# --- the distribution rule's multiplicity correction (Holm) -------------------------------------


def _holm_step_down(pvalues: list[float], alpha: float) -> set[int]:
    """Holm's procedure as published: walk up the sorted p-values, reject while
    p_(k) <= alpha / (m - k + 1), stop at the first that is not. A second implementation."""
    m = len(pvalues)
    rejected: set[int] = set()
    for k, index in enumerate(sorted(range(m), key=lambda i: pvalues[i]), start=1):
        if pvalues[index] > alpha / (m - k + 1):
            break
        rejected.add(index)
    return rejected


def test_one_sided_p_is_the_upper_normal_tail() -> None:
    assert one_sided_p(0.0) == pytest.approx(0.5)
    assert one_sided_p(1.959963984540054) == pytest.approx(0.025)
    assert one_sided_p(2.5) == pytest.approx(0.0062096653)  # the retired per-feature cut
    assert one_sided_p(-3.0) == pytest.approx(1 - one_sided_p(3.0))
    assert 0.0 <= one_sided_p(40.0) < 1e-300  # may underflow to 0: still refused, never negative


def test_holm_adjusted_p_refuses_exactly_what_the_step_down_rejects() -> None:
    rng = random.Random(41)
    for trial in range(300):
        m = rng.randint(1, 40)
        pvalues = [rng.random() ** rng.choice((1, 3, 8)) for _ in range(m)]
        if trial % 5 == 0:  # ties
            pvalues = [round(p, 2) for p in pvalues]
        adjusted, ranks = holm_adjust(pvalues)
        assert sorted(ranks) == list(range(1, m + 1))
        assert all(a >= p for a, p in zip(adjusted, pvalues))
        for alpha in (0.001, 0.01, 0.05, 0.2):
            assert {i for i, a in enumerate(adjusted) if a <= alpha} == _holm_step_down(pvalues, alpha)


def test_holm_worked_example() -> None:
    adjusted, ranks = holm_adjust([0.01, 0.04, 0.03, 0.005])
    assert ranks == [2, 4, 3, 1]
    assert adjusted == pytest.approx([0.03, 0.06, 0.06, 0.02])  # 4*.005, 3*.01, max(.03, 2*.03), .06


def test_a_rescored_feature_takes_its_originals_place_in_the_family(marker_corpus: Corpus) -> None:
    analysis = score_features(marker_corpus)
    family = DistributionFamily.of(analysis.scores)
    tested = [score for score in analysis.scores if score.variance > 0]
    assert family.tested == len(tested) < len(analysis.scores)  # V = 0 features are not tested
    target = max(tested, key=lambda score: score.z)
    moved = dataclasses.replace(target, z=target.z - 1.5)
    pvalues = [one_sided_p(s.z) for s in tested if s.feature != target.feature] + [one_sided_p(moved.z)]
    adjusted, ranks = holm_adjust(pvalues)
    test = family.test(moved)
    assert (test.p_holm, test.rank, test.tested) == (pytest.approx(adjusted[-1]), ranks[-1], len(tested))
    untested = next(score for score in analysis.scores if score.variance == 0)
    assert family.test(untested).p_holm == 1.0 and family.test(untested).rank == 0


def _independent_distribution_refusals(corpus: Corpus) -> set[str]:
    """The distribution rule recomputed from the measured (X, E, V) with this file's constants."""
    scores = [s for s in score_features(corpus).scores if s.variance > 0]
    pvalues = [0.5 * math.erfc(((s.perfect_questions - s.expected_perfect) / math.sqrt(s.variance))
                               / math.sqrt(2)) for s in scores]
    rejected = _holm_step_down(pvalues, FAMILY_ALPHA)
    return {scores[i].feature for i in rejected
            if scores[i].perfect_questions / scores[i].questions >= SHARE_FLOOR}


def _dash_corpus() -> Corpus:
    hook, decorate = separability_fixtures._dash_tell(separability_fixtures._dash_modes(60, 105))
    return separability_fixtures._build_corpus(105, questions=60, plan_hook=hook, decorate=decorate)


INDEPENDENT_CASES = {
    "clean-G1": lambda: separability_fixtures._build_corpus(5, gold_counts=(1,)),
    "strong-single": lambda: separability_fixtures._ranked_corpus(107, *separability_fixtures._STRONG_SINGLE),
    "chance-sized": lambda: separability_fixtures._ranked_corpus(204, *separability_fixtures._CHANCE_SIZED),
    "dash-50pct": _dash_corpus,
}


@pytest.mark.parametrize("name", INDEPENDENT_CASES)
def test_distribution_refusals_equal_an_independent_recomputation(name: str) -> None:
    corpus = INDEPENDENT_CASES[name]()
    result = check(corpus, declared=NO_EXEMPTIONS)
    gate = {r.subject for r in result.refusals if r.rule == "distribution"}
    assert gate == _independent_distribution_refusals(corpus)


def test_uncorrected_rule_refused_clean_g1_corpora_that_holm_passes() -> None:
    # The CHANGELOG's known issue, pinned on fixed seeds: one template machinery, G = 1 in 8-12
    # sessions. The retired z >= 2.5 fires on some seeds; the corrected rule on none of these.
    old = new = 0
    for seed in range(20, 32):
        corpus = separability_fixtures._build_corpus(seed, gold_counts=(1,))
        scores = score_features(corpus).scores
        old += any(s.z >= 2.5 and s.perfect_share >= SHARE_FLOOR for s in scores)
        new += bool(_independent_distribution_refusals(corpus))
    assert old >= 2
    assert new == 0


def test_refused_and_closest_distribution_entries_carry_z_p_holm_p_and_rank() -> None:
    result = check(separability_fixtures._ranked_corpus(107, *separability_fixtures._STRONG_SINGLE),
                   declared=NO_EXEMPTIONS)
    block = result.measured["distribution"]
    assert block["correction"] == "holm" and block["alpha"] == FAMILY_ALPHA
    assert block["share_floor"] == SHARE_FLOOR and block["features_tested"] > 500
    refused = {entry["feature"]: entry for entry in block["refused"]}
    entry = refused["dashes[session]"]
    assert entry["z"] == pytest.approx(4.81, abs=0.01)
    assert entry["p"] == pytest.approx(one_sided_p(entry["z"]), rel=1e-5)
    assert entry["p"] <= entry["p_holm"] <= FAMILY_ALPHA
    assert entry["rank"] >= 1 and entry["tested"] == block["features_tested"]
    assert entry["perfect_questions"] == 18 and entry["meets_share_floor"]
    assert block["closest"] == result.measured["worst"]["distribution"]
    assert block["closest"]["p_holm"] == min(e["p_holm"] for e in block["refused"])

    clean = check(separability_fixtures._ranked_corpus(204, *separability_fixtures._CHANCE_SIZED),
                  declared=NO_EXEMPTIONS).measured["distribution"]
    assert clean["refused"] == []
    assert clean["closest"]["meets_share_floor"] and not clean["closest"]["meets_alpha"]
    assert clean["closest"]["p_holm"] > FAMILY_ALPHA


# --- pooling, then folding once ----------------------------------------------------------------


def test_folding_per_question_manufactures_signal_that_pooling_does_not() -> None:
    rng = random.Random(7)
    questions = [([rng.random()], [rng.random() for _ in range(3)]) for _ in range(400)]
    pooled = pooled_auc(questions)
    folded_each = sum(pooled_auc([q]) for q in questions) / len(questions)
    assert pooled < 0.56  # pure noise reads as noise
    assert folded_each > REFUSE_AT  # folding first reads noise as a refusable tell (about 0.83)


def test_opposite_tells_cancel_in_the_pool_and_the_distribution_rule_catches_them() -> None:
    records = []
    for q in range(20):
        gold_words = 12 if q % 2 == 0 else 1  # longest in even questions, shortest in odd ones
        sessions = [_exchange(" ".join(["word"] * (gold_words if s == 0 else 4 + s % 3)) + ".")
                    for s in range(6)]
        records.append(_record(q, "What was said?", "nothing", sessions, {0}))
    analysis = score_features(_corpus(records))
    score = analysis.score("tokens[session]")
    assert score is not None
    assert score.auc == pytest.approx(0.5)  # pooled, folded once: the two directions cancel
    assert score.perfect_questions == 20
    result = check(_corpus(records), declared=NO_EXEMPTIONS)
    assert ("distribution", "tokens[session]") in {(r.rule, r.subject) for r in result.refusals}
    assert ("auc", "tokens[session]") not in {(r.rule, r.subject) for r in result.refusals}


# --- the vectorised gate against a second implementation ---------------------------------------


@pytest.fixture(scope="module")
def marker_corpus() -> Corpus:
    return separability_fixtures._build_corpus(11, questions=24, decorate=separability_fixtures._acknowledgement_marker)


PerQuestion = tuple[list[float], list[float], list[float], int]
"""(gold values, distractor values, all values in haystack order, G) of one question."""


def _per_question(corpus: Corpus, values: list[float],
                  skip: frozenset[str] = frozenset()) -> list[PerQuestion]:
    out = []
    offset = 0
    for record in corpus.records:
        n = len(record.haystack_sessions)
        gold = set(record.gold_session_indices)
        block = values[offset:offset + n]
        offset += n
        if record.question_id in skip:
            continue
        out.append(([v for i, v in enumerate(block) if i in gold],
                    [v for i, v in enumerate(block) if i not in gold], block, len(gold)))
    return out


def _reference(corpus: Corpus, values: list[float],
               skip: frozenset[str] = frozenset()) -> tuple[float, int, float]:
    """AUC, perfect count and expected count from the pure-Python reference functions."""
    questions = _per_question(corpus, values, skip)
    auc = pooled_auc([(g, d) for g, d, _, _ in questions])
    perfect = sum(separates_perfectly(g, d) for g, d, _, _ in questions)
    expected = sum(float(perfect_separation_probability(block, k)) for _, _, block, k in questions)
    return auc, perfect, expected


def test_numeric_scores_equal_a_pure_python_recomputation(marker_corpus: Corpus) -> None:
    analysis = score_features(marker_corpus)
    table = analysis.table
    for name in ("chars[session]", "capitals[first_user]", "type_token_ratio[assistant]",
                 "position", "turns", "dashes[session]", "position_3_is_user"):
        column = table.numeric_names.index(name)
        auc, perfect, expected = _reference(marker_corpus, table.numeric[:, column].tolist())
        score = analysis.score(name)
        assert score is not None
        assert score.auc == pytest.approx(auc, abs=1e-12), name
        assert score.perfect_questions == perfect, name
        assert score.expected_perfect == pytest.approx(expected, abs=1e-12), name


def test_phrase_scores_equal_a_pure_python_recomputation(marker_corpus: Corpus) -> None:
    analysis = score_features(marker_corpus)
    exempt = relevance_exemptions(marker_corpus, analysis.table)
    checked = 0
    for gram in ("noted", "i have", "have that down", "locker", "is", "for later"):
        if gram not in analysis.table.grams:
            continue
        values = [1.0 if any(gram in phrase_grams(turn.content) for turn in session) else 0.0
                  for record in marker_corpus.records for session in record.haystack_sessions]
        auc, perfect, expected = _reference(marker_corpus, values, frozenset(exempt.get(gram, ())))
        score = analysis.score(PHRASE_PREFIX + gram)
        assert score is not None
        assert score.auc == pytest.approx(auc, abs=1e-12), gram
        assert score.perfect_questions == perfect, gram
        assert score.expected_perfect == pytest.approx(expected, abs=1e-12), gram
        checked += 1
    assert checked >= 4


def test_haystacks_of_very_different_sizes_score_like_the_reference() -> None:
    rng = random.Random(9)
    records = []
    for q, n in enumerate((2, 3, 70, 5, 2, 33, 9, 4)):
        sessions = [_exchange(" ".join(["word"] * rng.randint(1, 4)) + ".") for _ in range(n)]
        records.append(_record(q, "What?", "x", sessions, set(rng.sample(range(n), max(1, n // 3)))))
    corpus = _corpus(records)
    analysis = score_features(corpus)
    column = analysis.table.numeric_names.index("tokens[session]")
    auc, perfect, expected = _reference(corpus, analysis.table.numeric[:, column].tolist())
    score = analysis.score("tokens[session]")
    assert score is not None
    assert score.auc == pytest.approx(auc)
    assert score.perfect_questions == perfect
    assert score.expected_perfect == pytest.approx(expected)


def test_huge_haystack_chance_does_not_overflow() -> None:
    assert separability_scoring._combinations(1200, 600) == float("inf")
    assert separability_scoring._combinations(10, 3) == 120.0


def test_sparse_phrase_path_equals_dense_path(marker_corpus: Corpus) -> None:
    analysis = score_features(marker_corpus)
    for gram in analysis.table.grams[::7]:
        name = PHRASE_PREFIX + gram
        dense = separability_scoring.rescore(analysis, name, frozenset(), inside=False)
        sparse = analysis.score(name)
        assert dense is not None and sparse is not None
        for field in dataclasses.fields(separability_scoring.FeatureScore):
            left, right = getattr(dense, field.name), getattr(sparse, field.name)
            if isinstance(left, float):
                assert left == pytest.approx(right, abs=1e-9), (gram, field.name)
            else:
                assert left == right, (gram, field.name)


# --- self-test -----------------------------------------------------------------------------------

SELF_TEST_CASES = (
    "gold-only acknowledgement marker",
    "length tell within questions, drifting across questions",
    'raw bigram "i have" in gold only',
    "role-order tell with equal turn counts",
    "feature perfect in 50% of questions, pooled AUC about 0.55",
    "one-in-two-gold marker with G = 2",
    "one feature perfect in 45% of G = 1 questions, refused through the Holm correction",
    "clean corpus from one template machinery",
    "phrase only across a punctuation boundary",
    "gram in the question text of the questions whose gold holds it",
    "chance-sized tell at z = 2.7 in G = 1 haystacks, refused uncorrected, passes under Holm",
)


@pytest.fixture(scope="module")
def self_test_cases() -> dict[str, SelfTestCase]:
    return {case.name: case for case in self_test()}


def test_self_test_runs_exactly_the_specified_cases(
        self_test_cases: dict[str, SelfTestCase]) -> None:
    assert tuple(self_test_cases) == SELF_TEST_CASES


@pytest.mark.parametrize("name", SELF_TEST_CASES)
def test_self_test_case_holds(name: str, self_test_cases: dict[str, SelfTestCase]) -> None:
    case = self_test_cases[name]
    assert case.ok, f"{case.kind} {name!r} (expected rule {case.expected_rule}): {case.detail}"


@pytest.mark.parametrize("seed", [1000, 2000])
def test_self_test_holds_on_other_seeds_too(seed: int) -> None:
    failed = [f"{case.name}: {case.detail}" for case in separability._self_test(seed) if not case.ok]
    assert not failed


def test_distribution_defect_really_hides_from_the_pooled_auc() -> None:
    hook, decorate = separability_fixtures._dash_tell(separability_fixtures._dash_modes(60, 105))
    corpus = separability_fixtures._build_corpus(105, questions=60, plan_hook=hook, decorate=decorate)
    score = score_features(corpus).score("dashes[session]")
    assert score is not None
    assert 0.5 <= score.auc < 0.62
    assert score.perfect_share == pytest.approx(0.5)


def test_one_in_two_marker_on_every_question_sits_exactly_on_the_auc_line() -> None:
    # GATES.md says G = 2 "caps" the AUC at 0.75; with ">= 0.75" the cap itself is refused.
    corpus = separability_fixtures._build_corpus(
        106, gold_counts=(2,), plan_hook=lambda rng, plan: plan.extra.update(marked=True),
        decorate=separability_fixtures._one_in_two_marker)
    score = score_features(corpus).score(PHRASE_PREFIX + "pinned")
    assert score is not None and score.auc == AUC_REFUSE


# --- the sidecar cannot relax anything ---------------------------------------------------------


def test_a_sidecar_cannot_relax_threshold_or_add_exemptions(marker_corpus: Corpus) -> None:
    bare = check(marker_corpus)
    assert bare.status == "refused"
    generous = Sidecar(
        corpus_id="handmade", revision=0, sha256="0" * 64, vertical="synthetic",
        separability=(SeparabilityFeature(feature="phrase:noted", auc=0.5, perfect_questions=0,
                                          expected_perfect=0.0, z=0.0, refused=False),),
        exemptions=tuple(Exemption(feature=f"phrase:{gram}", reason="the sidecar says it is fine")
                         for gram in ("noted", "i have", "have that down", "that down")),
        extra={"separability": {"auc_threshold": 0.99, "distribution_z": 99.0,
                                "exclusivity_share": 1.0, "features": ["position"],
                                "exemptions": ["phrase:noted", "phrase:that down"]}},
    )
    with_sidecar = check(dataclasses.replace(marker_corpus, sidecar=generous))
    assert with_sidecar.status == bare.status
    assert with_sidecar.refusals == bare.refusals
    assert with_sidecar.measured == bare.measured
    assert with_sidecar.measured["thresholds"]["auc"] == REFUSE_AT


# --- phrases stay inside punctuation segments -----------------------------------------------------


def test_no_gram_spans_a_sentence_bracket_or_comma() -> None:
    grams = phrase_grams("That is near enough. (Also on my mind: lamp, river.)")
    assert {"near enough", "also on my", "lamp", "river"} <= grams
    assert not {"enough also", "near enough also", "mind lamp", "lamp river"} & grams
    assert "noted i" not in phrase_grams("Noted \u2014 I have that down.")
    assert "i have" in phrase_grams("Noted \u2014 I have that down.")


def test_word_internal_marks_do_not_split_a_segment() -> None:
    assert segments("I don't know; 3.5 kg") == ["I don t know", " 3 5 kg"]
    assert "don t know" in phrase_grams("I don't know")


def test_boundary_control_would_fail_if_grams_crossed_punctuation() -> None:
    corpus = separability_fixtures._build_corpus(202, decorate=separability_fixtures._boundary_phrase)
    gold_joined = filler_joined = 0
    for record in corpus.records:
        gold = set(record.gold_session_indices)
        for index, session in enumerate(record.haystack_sessions):
            flat = " ".join(raw_tokens(" ".join(turn.content for turn in session)))
            if "near enough also" in flat:
                if index in gold:
                    gold_joined += 1
                else:
                    filler_joined += 1
    assert gold_joined == sum(len(r.gold_session_indices) for r in corpus.records)
    assert filler_joined == 0  # naive tokens: a perfect gold marker that does not exist
    table = extract_features(corpus)
    assert "enough also" not in table.grams and "near enough" in table.grams
    assert check(corpus, declared=NO_EXEMPTIONS).passed


# --- relevance exemption -------------------------------------------------------------------------


def test_question_word_control_is_refused_once_the_question_stops_naming_it() -> None:
    hook = separability_fixtures._question_word_plan(40, 203)
    asked = separability_fixtures._build_corpus(203, frames=separability_fixtures._QUESTION_WORD_FRAMES, plan_hook=hook)
    unasked = separability_fixtures._build_corpus(203, frames=separability_fixtures._QUESTION_WORD_FRAMES,
                                         plan_hook=hook, question_frame="Which code did {subject} give?")
    assert check(asked, declared=NO_EXEMPTIONS).passed
    exempt = relevance_exemptions(asked, score_features(asked).table)
    assert exempt["aquarium"] == {r.question_id for r in asked.records if "aquarium" in r.question}
    refused = check(unasked, declared=NO_EXEMPTIONS)
    assert ("exclusivity", "phrase:aquarium") in {(r.rule, r.subject) for r in refused.refusals}


def _frame_corpus(question: str) -> Corpus:
    """Gold alone says "what did i" while every question asks it: a frame, never exempt."""
    records = []
    rng = random.Random(3)
    for q in range(12):
        sessions = []
        for s in range(8):
            text = f"Value {rng.randint(10, 99)} noted."
            if s == 0:
                text = "What did I say? " + text
            else:
                text = "So what then? " + text
            sessions.append(_exchange(text))
        records.append(_record(q, question, f"zq{q}", sessions, {0}))
    return _corpus(records)


def test_frames_are_never_exempt_even_when_every_question_says_them() -> None:
    result = check(_frame_corpus("What did I say about it?"), declared=NO_EXEMPTIONS)
    fired = {(r.rule, r.subject) for r in result.refusals}
    assert ("auc", "phrase:what did i") in fired
    assert ("exclusivity", "phrase:what did i") in fired


FILLER_COLOURS = ("gray", "pink", "teal", "navy", "jade", "lime", "rose", "ruby", "sand", "snow",
                  "plum", "rust", "mint", "wine", "moss", "opal", "sage", "onyx", "iris", "fawn")


def test_answer_words_are_exempt_only_as_rare_instance_vocabulary() -> None:
    rng = random.Random(5)
    records = []
    for q in range(10):
        # the gold alone says "blue": the answer's instance word, in 10 of 120 sessions (< 10%)
        sessions = [_exchange(f"The code is {'blue' if s == 0 else rng.choice(FILLER_COLOURS)} "
                              f"{q}{s % 10} today.") for s in range(12)]
        records.append(_record(q, "Which code?", "blue", sessions, {0}))
    corpus = _corpus(records)
    exempt = relevance_exemptions(corpus, extract_features(corpus))
    assert exempt["blue"] == {r.question_id for r in records} == exempt["is blue"]
    assert "code is" not in exempt  # the sentence frame around the answer stays measured
    result = check(corpus, declared=NO_EXEMPTIONS)
    assert not [r for r in result.refusals if "blue" in r.subject], result.summary()


# --- role sequences -------------------------------------------------------------------------------


def test_role_sequence_rule_names_each_question_with_a_gold_only_sequence() -> None:
    records = []
    for q in range(6):
        sessions = [[("user", "Hello there."), ("assistant", "Hi."), ("assistant", "More?"),
                     ("user", "No.")] if s == 0 else
                    [("user", "Hello there."), ("assistant", "Hi."), ("user", "No."),
                     ("assistant", "More?")] for s in range(5)]
        records.append(_record(q, "What?", "hello", sessions, {0}))
    result = check(_corpus(records), declared=NO_EXEMPTIONS)
    role = [r for r in result.refusals if r.rule == "role_sequence"]
    assert [r.subject for r in role] == [f"tme-tst-{q:03d}" for q in range(6)]
    assert "u|a|a|u" in role[0].detail


# --- exemptions -----------------------------------------------------------------------------------


def test_declared_exemption_suppresses_and_is_listed_and_a_stale_one_refuses(
        marker_corpus: Corpus) -> None:
    bare = check(marker_corpus, declared=NO_EXEMPTIONS)
    fired_noted = {r.rule for r in bare.refusals if r.subject == "phrase:that down"}
    assert fired_noted
    declared = VerticalDeclarations(separability_exemptions=(
        Declared("phrase:that down", "test: the acknowledgement bank is being replaced in #12"),
        Declared("digits[session]", "test: an exemption for a feature that no longer fires"),
    ))
    result = check(marker_corpus, declared=declared)
    assert not [r for r in result.refusals if r.subject == "phrase:that down"]
    applied = {item["feature"]: item for item in result.measured["exemptions_applied"]}
    assert set(applied["phrase:that down"]["rules"]) == fired_noted
    assert result.measured["stale_exemptions"] == ["digits[session]"]
    assert ("stale_exemption", "digits[session]") in {(r.rule, r.subject) for r in result.refusals}


def _two_shape_corpus(tell_in_b: bool) -> Corpus:
    records = []
    for q in range(12):
        shape = "a" if q < 6 else "b"
        tell = shape == "a" or tell_in_b
        sessions = [_exchange(("Long long long long long words here. " if s == 0 and tell else "")
                              + f"Plain line {s}.") for s in range(6)]
        records.append(_record(q, "What?", "x", sessions, {0}, shape=shape))
    return _corpus(records)


SCOPED = VerticalDeclarations(separability_exemptions=(
    Declared("chars[session]", "test: shape a pads gold by design", shapes=("a",)),))


def test_shape_scoped_exemption_applies_to_its_shapes_only() -> None:
    clean_b = check(_two_shape_corpus(tell_in_b=False), declared=SCOPED)
    assert "chars[session]" not in {r.subject for r in clean_b.refusals}
    applied = {item["feature"]: item for item in clean_b.measured["exemptions_applied"]}
    assert "auc" in applied["chars[session]"]["rules"]
    assert applied["chars[session]"]["shapes"] == ["a"]

    tell_b = check(_two_shape_corpus(tell_in_b=True), declared=SCOPED)
    assert ("auc", "chars[session]") in {(r.rule, r.subject) for r in tell_b.refusals}


def test_question_rule_read_word_for_word_would_let_a_frame_through(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(separability_scoring, "QUESTION_RULE_NEEDS_RARE_TOKEN", False)
    result = check(_frame_corpus("What did I say about it?"), declared=NO_EXEMPTIONS)
    assert "phrase:what did i" not in {r.subject for r in result.refusals}


# --- output and purity ----------------------------------------------------------------------------


def test_measured_reports_worst_per_rule_thresholds_and_counts(marker_corpus: Corpus) -> None:
    result = check(marker_corpus, declared=NO_EXEMPTIONS)
    measured = result.measured
    assert set(measured["worst"]) == {"auc", "distribution", "exclusivity", "role_sequence"}
    assert {"z", "p", "p_holm", "rank", "tested"} <= set(measured["worst"]["distribution"])
    assert measured["distribution"]["features_tested"] == measured["worst"]["distribution"]["tested"]
    assert measured["worst"]["auc"]["value"] == 1.0
    assert measured["thresholds"] == {"auc": 0.75, "distribution_alpha": 0.05, "distribution_share": 0.2,
                                      "exclusivity_share": 0.2, "instance_token_share": 0.1,
                                      "phrase_min_sessions": 5, "max_gram": 3}
    assert measured["features_evaluated"] == measured["numeric_features"] + measured["phrase_features"]
    assert {(item["rule"], item["feature"]) for item in measured["refused"]} == {
        (r.rule, r.subject) for r in result.refusals}


def test_a_corpus_without_pairs_is_skipped_not_passed() -> None:
    records = [_record(q, "What?", "x", [_exchange("Only gold here.")], {0}) for q in range(3)]
    result = check(_corpus(records), declared=NO_EXEMPTIONS)
    assert result.status == "skipped" and result.skip_reason


def test_gate_module_imports_neither_pytest_nor_numpy() -> None:
    code = ("import sys, pytest_typedmemeval.gates.separability as s; "
            "print(sorted(m for m in ('pytest', 'numpy', '_pytest') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
