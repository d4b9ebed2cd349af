"""The structure gate: its self-test, and the pieces a self-test cannot pin down on its own."""

from __future__ import annotations

import itertools
import json
import math
import random
from datetime import datetime
from fractions import Fraction
from pathlib import Path

import pytest

from pytest_typedmemeval.corpus.loading import Corpus, load_corpus
from pytest_typedmemeval.corpus.models import AnswerKey, ExtensionBlock, Sidecar
from pytest_typedmemeval.gates import arithmetic_checks, structure
from pytest_typedmemeval.gates.arithmetic_checks import SubsetItem, extract_amounts, find_coincident_subset
from pytest_typedmemeval.gates.declarations import declarations_for
from pytest_typedmemeval.gates.result import SelfTestCase
from pytest_typedmemeval.gates.selftest import structure as structure_fixtures
from pytest_typedmemeval.gates.structure import check, poisson_binomial_tails, v4_findings
from pytest_typedmemeval.gates.vertical_specs import (
    ABBREVIATIONS,
    VERTICAL_SPECS,
    ShapeSpec,
    VerticalSpec,
    spec_for,
    v4_level,
)

CASES = structure.self_test()


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_self_test_case(case: SelfTestCase) -> None:
    assert case.ok, case.detail


def test_self_test_covers_every_defect_the_brief_names() -> None:
    refused_by = {case.expected_rule for case in CASES if case.kind == "defect"}
    assert {"duplicate_id", "question_id", "abs_suffix", "answer_sessions", "date_order",
            "question_date", "gold_position", "v4_year", "v4_month_day", "v5_value", "v5_literal",
            "v5_coincident_subset", "pair_haystack", "pair_gold", "ceiling"} <= refused_by
    assert refused_by <= set(structure.RULES)
    assert sum(case.kind == "control" for case in CASES) >= 3


def test_self_test_covers_the_revision_2_rules() -> None:
    revision_2 = [case for case in CASES if case.name.startswith("revision-2")]
    assert {case.expected_rule for case in revision_2 if case.kind == "defect"} >= {
        "non_linguistic_filler", "question_id", "sidecar_mismatch"}
    assert any(case.kind == "control" for case in revision_2)
    assert "non_linguistic_filler" in structure.RULES


# --- vertical specs ---------------------------------------------------------------------------------

def test_every_vertical_has_its_abbreviation() -> None:
    assert ABBREVIATIONS == {"prospective": "pro", "episodic": "epi", "arithmetic": "ari",
                             "workingmemory": "wm", "forgetting": "for", "semantic": "sem",
                             "temporal": "tmp", "bitemporal": "bit", "conjunction": "con",
                             "procedural": "prc"}


@pytest.mark.parametrize(("vertical", "total"), [("prospective", 50), ("episodic", 50),
                                                 ("arithmetic", 50), ("workingmemory", 60),
                                                 ("forgetting", 50), ("bitemporal", 60)])
def test_declared_shape_sizes_add_up_to_the_overview_table(vertical: str, total: int) -> None:
    assert sum(shape.n or 0 for shape in VERTICAL_SPECS[vertical].shapes) == total


def test_workingmemory_geometry_follows_appendix_a() -> None:
    spec = VERTICAL_SPECS["workingmemory"]
    assert [shape.distance for shape in spec.shapes] == [8, 15, 25, 40, 60]
    assert {shape.h for shape in spec.shapes} == {(64, 64)}
    assert {shape.g for shape in spec.shapes} == {(1, 1)}
    # Appendix D: gold drawn within each rung's window, the windows tiling 5..63 around each d
    windows = [shape.distance_window for shape in spec.shapes]
    assert windows == [(5, 11), (12, 19), (20, 31), (32, 47), (48, 63)]
    assert all(lo <= shape.distance <= hi for shape, (lo, hi) in zip(spec.shapes, windows))  # type: ignore[misc,operator]
    assert all(a[1] + 1 == b[0] for a, b in zip(windows, windows[1:]))  # type: ignore[index]


def test_v4_scope_is_prospective_whole_corpus_and_arithmetic_durations_only() -> None:
    prospective, arithmetic = VERTICAL_SPECS["prospective"], VERTICAL_SPECS["arithmetic"]
    assert v4_level(prospective, "due-later") == "calendar"
    assert v4_level(prospective, "an-undeclared-shape") == "calendar"
    assert v4_level(arithmetic, "durations") == "calendar"
    assert v4_level(arithmetic, "sums") is None
    assert v4_level(VERTICAL_SPECS["temporal"], "recency") == "story"
    assert v4_level(VERTICAL_SPECS["forgetting"], "invalidated") is None
    assert spec_for("WorkingMemory") is VERTICAL_SPECS["workingmemory"]


# --- gold position: the Poisson-binomial bound --------------------------------------------------------

@pytest.mark.parametrize(("n", "p", "observed"), [(10, 0.1, 0), (10, 0.1, 4), (30, 0.25, 12),
                                                   (50, 0.05, 0)])
def test_tails_equal_the_binomial_when_every_question_has_the_same_chance(
        n: int, p: float, observed: int) -> None:
    lower, upper = poisson_binomial_tails([p] * n, observed)
    pmf = [math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]
    assert lower == pytest.approx(sum(pmf[: observed + 1]))
    assert upper == pytest.approx(sum(pmf[observed:]))


def test_tails_of_unequal_chances_match_enumeration() -> None:
    probabilities = [0.1, 0.5, 0.25, 0.9, 0.3]
    for observed in range(6):
        exact = [0.0] * 6
        for outcome in itertools.product((0, 1), repeat=5):
            mass = math.prod(p if hit else 1 - p for p, hit in zip(probabilities, outcome))
            exact[sum(outcome)] += mass
        lower, upper = poisson_binomial_tails(probabilities, observed)
        assert lower == pytest.approx(sum(exact[: observed + 1]))
        assert upper == pytest.approx(sum(exact[observed:]))


def test_gold_never_first_is_refused_only_when_chance_makes_it_improbable() -> None:
    # 12 questions with G/n = 1/8: never seeing gold first has probability 0.2, well inside.
    lower, _ = poisson_binomial_tails([1 / 8] * 12, 0)
    assert lower > structure.GOLD_POSITION_ALPHA / 2
    # WorkingMemory's real geometry (G = 1 of 65, 60 questions) passes even without its carve-out.
    lower, _ = poisson_binomial_tails([1 / 65] * 60, 0)
    assert lower > structure.GOLD_POSITION_ALPHA / 2
    lower, _ = poisson_binomial_tails([1 / 4] * 24, 0)
    assert lower < structure.GOLD_POSITION_ALPHA / 2


# --- V5: amounts and the alternative-subset search ----------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("I paid $1,200.50 for it.", [(Fraction("1200.50"), "USD")]),
    ("It came to 45 dollars, then $12.", [(Fraction(45), "USD"), (Fraction(12), "USD")]),
    ("a 3-day trip and 2 hours of queueing", [(Fraction(3), "days"), (Fraction(2), "hours")]),
    ("We drove 12 km.", [(Fraction(12), "km")]),
    ("It cost $45.", [(Fraction(45), "USD")]),
    ("I bought 3 parcels", [(Fraction(3), "parcel")]),
    ("version 12, nothing else", [(Fraction(12), None)]),
])
def test_amounts_are_read_with_their_unit_and_without_trailing_punctuation(
        text: str, expected: list[tuple[Fraction, str | None]]) -> None:
    assert [(a.value, a.unit) for a in extract_amounts(text)] == expected


def _brute_force(items: list[SubsetItem], target: Fraction, tolerance: Fraction, max_size: int,
                 signed: bool) -> bool:
    gold = {(id(item), item.gold_sign) for item in items if item.gold_sign}
    for size in range(1, max_size + 1):
        for combo in itertools.combinations(items, size):
            for signs in itertools.product((1, -1) if signed else (1,), repeat=size):
                total = sum(s * item.value for s, item in zip(signs, combo))
                chosen = {(id(item), s) for s, item in zip(signs, combo)}
                if abs(total - target) <= tolerance and chosen != gold:
                    return True
    return False


@pytest.mark.parametrize("signed", [False, True])
def test_subset_search_agrees_with_brute_force(signed: bool) -> None:
    rng = random.Random(20260314)
    found = 0
    for _ in range(150):
        gold = [SubsetItem(Fraction(rng.randint(1, 40)), f"g{i}", -1 if signed and i % 2 else 1)
                for i in range(rng.randint(1, 3))]
        others = [SubsetItem(Fraction(rng.randint(1, 40)), f"d{i}") for i in range(rng.randint(0, 6))]
        items = gold + others
        rng.shuffle(items)
        target = sum((item.gold_sign * item.value for item in gold), Fraction(0))
        tolerance = Fraction(rng.choice([0, 0, 1]))
        max_size = len(gold) + 1
        witness = find_coincident_subset(items, target, tolerance, max_size, signed=signed)
        assert (witness is not None) == _brute_force(items, target, tolerance, max_size, signed)
        if witness is not None:
            found += 1
            assert len(witness) <= max_size
            assert abs(sum(s * item.value for s, item in witness) - target) <= tolerance
            assert {(id(i), s) for s, i in witness} != {(id(i), i.gold_sign) for i in gold}
    assert found > 10  # the random cases exercise both outcomes


def test_a_distractor_equal_to_a_gold_input_is_an_alternative() -> None:
    items = [SubsetItem(Fraction(30), "gold a", 1), SubsetItem(Fraction(12), "gold b", 1),
             SubsetItem(Fraction(12), "distractor")]
    witness = find_coincident_subset(items, Fraction(42), Fraction(0), 3, signed=False)
    assert witness is not None and {item.label for _, item in witness} == {"gold a", "distractor"}


def test_a_proper_subset_of_gold_reaching_the_target_is_an_alternative() -> None:
    items = [SubsetItem(Fraction(30), "a", 1), SubsetItem(Fraction(0), "zero", 1)]
    witness = find_coincident_subset(items, Fraction(30), Fraction(0), 3, signed=False)
    assert witness is not None and [item.label for _, item in witness] == ["a"]


def test_subset_search_honours_tolerance_and_decimals() -> None:
    gold = [SubsetItem(Fraction("10.25"), "a", 1), SubsetItem(Fraction("4.50"), "b", 1)]
    near = [SubsetItem(Fraction("14.74"), "near")]
    assert find_coincident_subset(gold + near, Fraction("14.75"), Fraction(0), 3,
                                  signed=False) is None
    assert find_coincident_subset(gold + near, Fraction("14.75"), Fraction("0.01"), 3,
                                  signed=False) is not None


def test_subset_search_respects_the_size_bound() -> None:
    gold = [SubsetItem(Fraction(100), "g", 1)]
    small = [SubsetItem(Fraction(25), f"d{i}") for i in range(4)]
    assert find_coincident_subset(gold + small, Fraction(100), Fraction(0), 2, signed=False) is None
    assert find_coincident_subset(gold + small, Fraction(100), Fraction(0), 4, signed=False) is not None


# --- V4 patterns, with the false positives they must not fire on --------------------------------------

@pytest.mark.parametrize(("text", "rule"), [
    ("We did the same back in 2024, if you recall.", "v4_year"),
    ("That was the 1990s for you.", "v4_year"),
    ("It was 2026.", "v4_year"),
    ("The office said March 3rd.", "v4_month_day"),
    ("By 12 June at the latest.", "v4_month_day"),
    ("the 3rd of may", "v4_month_day"),
    ("Mar. 14 works", "v4_month_day"),
    ("It opens 3/14.", "v4_numeric_date"),
    ("Filed 2026-03-14.", "v4_numeric_date"),
    ("due 14.03. at noon", "v4_numeric_date"),
    ("printed 14-03-26", "v4_numeric_date"),
    ("a ratio of 24/7", "v4_numeric_date"),
    ("It usually happens in October.", "v4_month_name"),
    ("Since May the garden has grown.", "v4_month_name"),
    ("We meet on Thursdays.", "v4_weekday_name"),
])
def test_v4_refuses(text: str, rule: str) -> None:
    assert rule in {found for found, _ in v4_findings(text, "calendar")}


@pytest.mark.parametrize("text", [
    "May I ask you something?",
    "We march on regardless.",
    "It may rain, so march the kids inside.",
    "An august gathering of neighbours.",
    "I paid $2000 for the boat.",
    "The quote was 2000 USD.",
    "It cost 2019.50 in total.",
    "Room 12026 is upstairs.",
    "It takes 3-4 days.",
    "The bill was 12.5.",
    "Meet at 09:30 sharp.",
    "Jan said hello from the sun on Sat.",
    "I will be back in 3 weeks.",
    "3 may be enough.",
])
def test_v4_leaves_homographs_amounts_and_times_alone(text: str) -> None:
    assert v4_findings(text, "calendar") == []


def test_story_level_allows_month_and_weekday_names_but_not_dates() -> None:
    assert v4_findings("It happened in October, on a Thursday.", "story") == []
    assert {rule for rule, _ in v4_findings("It happened on 3 October 2024.", "story")} == {
        "v4_month_day", "v4_year"}


# --- whole-corpus behaviour --------------------------------------------------------------------------

def test_a_loaded_fixture_corpus_passes_with_its_notes(tmp_path: Path) -> None:
    records = structure_fixtures._arithmetic_records()
    path = tmp_path / "typedmemeval-arithmetic-v1.json"
    text = json.dumps([r.model_dump(mode="json") for r in records], indent=1) + "\n"
    path.write_text(text, encoding="utf-8")
    corpus = load_corpus(path)
    sidecar = {"corpus_id": path.stem, "revision": 1, "sha256": corpus.sha256, "fixture": True,
               "vertical": "arithmetic"}
    (tmp_path / f"{path.stem}.sidecar.json").write_text(json.dumps(sidecar), encoding="utf-8")
    result = check(load_corpus(path))
    assert result.passed, result.summary()
    assert any(note.startswith("fixture corpus") for note in result.notes)
    assert "reproducibility: skipped — corpus has no generator (hand-made)" in result.notes
    assert result.measured["ceiling_by_shape"]["deltas"] == pytest.approx(5 / 6)


def test_the_same_corpus_as_a_shipped_revision_is_refused_for_its_sizes(tmp_path: Path) -> None:
    corpus, _ = structure_fixtures._corpus(structure_fixtures._arithmetic_records(), "arithmetic")
    result = check(corpus)
    assert {"shape_n", "h_range"} <= result.refused_rules()


def test_unknown_and_mixed_verticals_are_refused() -> None:
    records = structure_fixtures._arithmetic_records()
    unknown = [r.model_copy(update={"typedmemeval": r.typedmemeval.model_copy(
        update={"vertical": "dreams"})}) for r in records]
    corpus, _ = structure_fixtures._corpus(unknown, "dreams")
    assert "vertical" in check(corpus).refused_rules()
    mixed: Corpus = structure_fixtures._corpus(records, "arithmetic")[0]
    mixed = Corpus(mixed.corpus_id, mixed.path, mixed.sha256, mixed.records, None, None)
    assert "vertical" in check(mixed, spec=structure_fixtures._arithmetic_spec()).refused_rules()


def test_conjunction_shapes_are_refused_until_declared() -> None:
    records = [r.model_copy(update={"question_id": r.question_id.replace("ari", "con"),
                                    "typedmemeval": r.typedmemeval.model_copy(
                                        update={"vertical": "conjunction"})})
               for r in structure_fixtures._arithmetic_records()]
    result = check(structure_fixtures._corpus(records, "conjunction")[0])
    assert "shape_declared" in result.refused_rules()


def test_no_vertical_carries_a_gold_position_carve_out_it_no_longer_needs() -> None:
    """The WorkingMemory carve-out was deleted once the generated corpus passed the shuffle check
    without it (gold never first: index 64 - d); a carve-out that no longer fires must go."""
    assert declarations_for("workingmemory").gold_position_carve_out is None
    assert declarations_for("prospective").gold_position_carve_out is None


def test_durations_in_days_count_calendar_days_and_hours_count_elapsed_time() -> None:
    start, end = datetime(2026, 5, 9, 9, 5), datetime(2026, 6, 14, 17, 25)
    assert arithmetic_checks.duration_between(start, end, "days") == 36
    assert arithmetic_checks.duration_between(start, end, "weeks") == Fraction(36, 7)
    late, early = datetime(2026, 5, 9, 23, 0), datetime(2026, 5, 10, 1, 0)
    assert arithmetic_checks.duration_between(late, early, "days") == 1
    assert arithmetic_checks.duration_between(late, early, "hours") == 2


def test_a_gold_less_shape_missing_from_the_sidecar_ceiling_table_agrees() -> None:
    records = structure_fixtures._arithmetic_records()
    abstain = records[0].model_copy(update={
        "question_id": "tme-ari-099_abs", "answer_session_ids": (),
        "haystack_sessions": tuple(tuple(t.model_copy(update={"has_answer": False}) for t in s)
                                   for s in records[0].haystack_sessions),
        "typedmemeval": ExtensionBlock(vertical="arithmetic", shape="never-known",
                                       answer_key=AnswerKey(expected_negative="abstain"))})
    spec = structure_fixtures._arithmetic_spec()
    spec = VerticalSpec(spec.name, spec.abbrev, (*spec.shapes, ShapeSpec("never-known", 1, (0, 0),
                                                                         (4, 12))))
    corpus, _ = structure_fixtures._corpus([*records, abstain], "arithmetic", ceiling_by_shape={
        "counts": 1.0, "deltas": 5 / 6, "durations": 1.0, "sums": 1.0})
    result = check(corpus, spec=spec)
    assert result.passed, result.summary()
    assert result.measured["ceiling_by_shape"]["never-known"] is None


def test_a_named_generator_without_a_seed_is_refused_unless_fixture() -> None:
    records = structure_fixtures._arithmetic_records()
    spec = structure_fixtures._arithmetic_spec()
    shipped, _ = structure_fixtures._corpus(records, "arithmetic", generator="arithmetic-gen", seed=None)
    assert check(shipped, spec=spec).refused_rules() == {"reproducibility"}
    fixture, _ = structure_fixtures._corpus(records, "arithmetic", generator="arithmetic-gen", seed=None,
                                   fixture=True)
    result = check(fixture, spec=spec)
    assert result.passed and any("no seed" in note for note in result.notes)
    hand_made, _ = structure_fixtures._corpus(records, "arithmetic", generator="hand-made")
    assert "reproducibility: skipped — corpus has no generator (hand-made)" in check(
        hand_made, spec=spec).notes


def test_a_supplied_regenerate_that_returns_nothing_is_a_skip_not_a_pass() -> None:
    corpus, _ = structure_fixtures._corpus(structure_fixtures._arithmetic_records(), "arithmetic", generator="gen")
    result = check(corpus, spec=structure_fixtures._arithmetic_spec(), regenerate=lambda _: None)
    assert result.measured["reproducibility"] == "skipped"
    assert any(note.startswith("reproducibility: skipped") for note in result.notes)


def test_pair_haystacks_compare_what_the_system_sees_not_the_gold_labels() -> None:
    records = structure_fixtures._prospective_records()
    spec = structure_fixtures._prospective_spec()
    gold = records[0].gold_session_indices[0]
    other = structure_fixtures._first_filler(records[1])
    relabelled = structure_fixtures._edit_turn(records, 1, gold, 0, has_answer=False)
    relabelled = structure_fixtures._edit_turn(relabelled, 1, other, 0, has_answer=True)
    relabelled = structure_fixtures._edit(relabelled, 1, answer_session_ids=(
        records[1].haystack_session_ids[other],))
    result = check(structure_fixtures._corpus(relabelled, "prospective")[0], spec=spec)
    assert "pair_haystack" not in result.refused_rules(), result.summary()


# --- revision 2 (VERTICALS.md Appendix C) -------------------------------------------------------------

_ARI_CEILING = {"counts": 1.0, "deltas": 5 / 6, "durations": 1.0, "sums": 1.0}
_STAMPED = {"text": {"non_linguistic_filler_share": 0.0}}


def _ari_check(records, **sidecar):
    sidecar.setdefault("ceiling_by_shape", _ARI_CEILING)
    return check(structure_fixtures._corpus(records, "arithmetic", **sidecar)[0],
                 spec=structure_fixtures._arithmetic_spec())


@pytest.mark.parametrize("revision", [2, 3])
def test_from_revision_2_an_abs_id_is_refused_as_an_id_not_as_a_suffix(revision: int) -> None:
    records = structure_fixtures._arithmetic_records()
    result = _ari_check(structure_fixtures._edit(records, 0, question_id="tme-ari-001_abs"),
                        revision=revision, extra=_STAMPED)
    assert result.refused_rules() == {"question_id"}
    refusal = next(r for r in result.refusals if r.rule == "question_id")
    assert refusal.value == "_abs" and "encode nothing about gold" in refusal.detail


def test_revision_1_keeps_its_abs_rule_and_a_corpus_without_sidecar_is_revision_1() -> None:
    records = structure_fixtures._arithmetic_records()
    abs_id = structure_fixtures._edit(records, 0, question_id="tme-ari-001_abs")
    assert _ari_check(abs_id).refused_rules() == {"abs_suffix"}
    bare = structure_fixtures._corpus(abs_id, "arithmetic")[0]
    bare = Corpus(bare.corpus_id, bare.path, bare.sha256, bare.records, None, bare.vertical)
    result = check(bare, spec=structure_fixtures._arithmetic_spec())
    assert result.refused_rules() == {"abs_suffix"} and result.measured["revision"] == 1
    nk_spec = structure_fixtures._with_never_known(structure_fixtures._arithmetic_spec())
    unsuffixed = structure_fixtures._never_known(records[0], "tme-ari-099")
    v1 = check(structure_fixtures._corpus([*records, unsuffixed], "arithmetic",
                                 ceiling_by_shape=_ARI_CEILING)[0], spec=nk_spec)
    assert v1.refused_rules() == {"abs_suffix"}


@pytest.mark.parametrize("qid", ["tme-ari-001_x", "tme-ari-001abs", "tme-ari-1", "tme-ari-001_ABS"])
def test_other_suffixes_are_malformed_in_every_revision(qid: str) -> None:
    records = structure_fixtures._edit(structure_fixtures._arithmetic_records(), 0, question_id=qid)
    for revision in (1, 2):
        assert "question_id" in _ari_check(records, revision=revision).refused_rules()


def test_filler_share_is_measured_on_every_revision_and_enforced_from_2() -> None:
    padded = structure_fixtures._padded(structure_fixtures._arithmetic_records())
    v1 = _ari_check(padded)
    assert v1.passed, v1.summary()
    figures = v1.measured["non_linguistic_filler"]
    assert figures["enforced"] is False and figures["share"] > structure.MAX_NON_LINGUISTIC_SHARE
    assert any(note.startswith("non_linguistic_filler:") for note in v1.notes)
    v2 = _ari_check(padded, revision=2)
    assert v2.refused_rules() == {"non_linguistic_filler"}
    assert v2.measured["non_linguistic_filler"]["enforced"] is True
    clean = _ari_check(structure_fixtures._arithmetic_records(), revision=2)
    assert clean.passed and clean.measured["non_linguistic_filler"]["share"] == 0.0
    assert any("records no share" in note for note in clean.notes)


def test_a_stray_fragment_stays_under_the_tolerance_but_light_padding_does_not() -> None:
    records = structure_fixtures._arithmetic_records()
    where = structure_fixtures._first_filler(records[0])
    stray = structure_fixtures._edit_turn(records, 0, where, 0,
                                 records[0].haystack_sessions[where][0].content + " Rain, wind, sleet.")
    assert _ari_check(stray, revision=2).passed
    light = structure_fixtures._padded(records[:2]) + records[2:]
    assert "non_linguistic_filler" in _ari_check(light, revision=2).refused_rules()


@pytest.mark.parametrize("recorded", [0.01, "0.0", float("inf"), True])
def test_a_sidecar_share_that_disagrees_is_a_mismatch(recorded) -> None:
    result = _ari_check(structure_fixtures._arithmetic_records(), revision=2,
                        extra={"text": {"non_linguistic_filler_share": recorded}})
    assert result.refused_rules() == {"sidecar_mismatch"}


def _built_sidecar(records, revision: int, **dials):
    from pytest_typedmemeval.generate.sidecar import build_sidecar, corpus_from_text

    text = json.dumps([r.model_dump(mode="json") for r in records], sort_keys=True) + "\n"
    name = f"selftest-arithmetic-v{revision}"
    sidecar = build_sidecar(text, corpus_id=name, vertical="arithmetic", revision=revision,
                            generator="self-test", generator_version="1", seed=1, dense=None,
                            **dials)
    corpus = corpus_from_text(text, name, "arithmetic")
    return sidecar, Corpus(corpus.corpus_id, corpus.path, corpus.sha256, corpus.records,
                           Sidecar.model_validate(sidecar), corpus.vertical)


def test_a_revision_2_sidecar_stamps_competition_and_the_measured_text_share() -> None:
    records = structure_fixtures._arithmetic_records()
    sidecar, corpus = _built_sidecar(records, 2, competition_by_shape={"sums": 0.3, "counts": 0.2},
                                     text_stats={"fact_sentence_share": 0.125, "sentences": 80})
    assert list(sidecar["competition_by_shape"]) == ["counts", "sums"]
    assert sidecar["echo_by_shape"] == {}
    assert sidecar["extra"]["text"] == {"non_linguistic_filler_share": 0.0,
                                        "fact_sentence_share": 0.125, "sentences": 80}
    coverage = sidecar["extra"]["coverage"]
    assert "echo_note" not in coverage and "echo" not in coverage["dial_note"]
    assert "topical competition" in coverage["dial_note"] and "0.0" in coverage["dial_note"]
    result = check(corpus, spec=structure_fixtures._arithmetic_spec())
    assert "sidecar_mismatch" not in result.refused_rules() and \
        "non_linguistic_filler" not in result.refused_rules(), result.summary()


def test_a_revision_2_sidecar_measures_the_share_itself_never_taking_the_generators() -> None:
    padded = structure_fixtures._padded(structure_fixtures._arithmetic_records())
    sidecar, corpus = _built_sidecar(padded, 2, competition_by_shape={},
                                     text_stats={"non_linguistic_filler_share": 0.0})
    share = sidecar["extra"]["text"]["non_linguistic_filler_share"]
    assert share > structure.MAX_NON_LINGUISTIC_SHARE
    result = check(corpus, spec=structure_fixtures._arithmetic_spec())
    assert "non_linguistic_filler" in result.refused_rules()
    assert "sidecar_mismatch" not in result.refused_rules()
    assert result.measured["non_linguistic_filler"]["share"] == pytest.approx(share, abs=1e-6)


def test_a_revision_1_sidecar_keeps_the_echo_fields_only() -> None:
    sidecar, _ = _built_sidecar(structure_fixtures._arithmetic_records(), 1,
                                echo_by_shape={"sums": 0.4, "counts": 0.1})
    assert list(sidecar["echo_by_shape"]) == ["counts", "sums"]
    assert "competition_by_shape" not in sidecar and "text" not in sidecar["extra"]
    assert "echo_note" in sidecar["extra"]["coverage"]
    assert "dial_note" not in sidecar["extra"]["coverage"]
    with pytest.raises(ValueError, match="competition_by_shape"):
        _built_sidecar(structure_fixtures._arithmetic_records(), 1, competition_by_shape={"sums": 0.4})
    with pytest.raises(ValueError, match="echo_by_shape"):
        _built_sidecar(structure_fixtures._arithmetic_records(), 2, echo_by_shape={"sums": 0.4})


@pytest.mark.parametrize(("revision", "expected"), [(1, []), (2, [(7, {"sums": 0.7})])])
def test_the_hook_rebuilds_a_revision_2_declaration_from_its_recorded_competition(
        monkeypatch, revision: int, expected: list) -> None:
    """A revision-2 sidecar is rebuilt from competition_by_shape; a retired revision 1 (its echo
    dial has no declaration left to read it) is skipped, never rebuilt with the wrong dial."""
    from pytest_typedmemeval.generate import registry as generate_registry

    calls = []
    monkeypatch.setattr(generate_registry, "corpus_text",
                        lambda vertical, seed, dial: calls.append((seed, dict(dial))) or "[]\n")
    name = "pytest_typedmemeval.generate.verticals.forgetting"
    corpus, _ = structure_fixtures._corpus(structure_fixtures._arithmetic_records(), "arithmetic", generator=name,
                                  revision=revision, echo_by_shape={"sums": 0.4},
                                  competition_by_shape={"sums": 0.7})
    assert generate_registry.regenerate_text(corpus) == ("[]\n" if expected else None)
    assert calls == expected


@pytest.mark.parametrize("name", ["os", "pytest_typedmemeval.generate.sidecar",
                                  "pytest_typedmemeval.generate.verticals.dreams",
                                  "pytest_typedmemeval.generate.forgetting"])
def test_the_hook_imports_no_module_a_sidecar_names_outside_the_generators(monkeypatch,
                                                                          name: str) -> None:
    from pytest_typedmemeval.generate import registry as generate_registry

    monkeypatch.setattr(generate_registry, "corpus_text",
                        lambda *_: pytest.fail("nothing may be built"))
    corpus, _ = structure_fixtures._corpus(structure_fixtures._arithmetic_records(), "arithmetic", generator=name,
                                  revision=2, competition_by_shape={"sums": 0.7})
    assert generate_registry.regenerate_text(corpus) is None


@pytest.mark.parametrize(("revision", "field"), [(1, "competition_by_shape"), (2, "echo_by_shape")])
def test_a_sidecar_recording_the_other_revisions_dial_is_a_mismatch(revision: int, field: str) -> None:
    result = _ari_check(structure_fixtures._arithmetic_records(), revision=revision, extra=_STAMPED,
                        **{field: {"sums": 0.3}})
    assert result.refused_rules() == {"sidecar_mismatch"}
    assert next(r for r in result.refusals).subject == field
