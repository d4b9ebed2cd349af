"""The mechanical judge's precedence rules (VERTICALS.md §5.1–5.6), one table row per rule."""

from __future__ import annotations

import re

import pytest

from pytest_typedmemeval.corpus.models import AnswerKey, NumericKey
from pytest_typedmemeval.judge.mechanical import (
    JUDGE_FINGERPRINT,
    JUDGE_RULESET_VERSION,
    MechanicalJudge,
    compute_fingerprint,
    judge_answer,
    judge_rules,
)
from pytest_typedmemeval.judge.outcomes import Outcome

C, W, A, M, P, U = (
    Outcome.CORRECT, Outcome.WRONG, Outcome.ABSTAINED, Outcome.MISSED, Outcome.PREMATURE,
    Outcome.UNJUDGED,
)
STALE = frozenset({"stale_recall"})
OVER = frozenset({"over_forgetting"})
MISATTRIBUTED = frozenset({"misattributed_forgetting"})
NONE: frozenset[str] = frozenset()

NEVER_KNOWN = AnswerKey(expected_negative="abstain", wrong=("Marloe Basic",))
INVALIDATED = AnswerKey(
    expected_negative="no_longer", must_name=("Honda",), accepted=("Honda Civic",), wrong=("Toyota",)
)
INVALIDATED_STALE_ONLY = AnswerKey(expected_negative="no_longer", stale=("Honda",), wrong=("Toyota",))
BEFORE = AnswerKey(expected_negative="not_yet", premature=("call Ann",))
BEFORE_NAMED = AnswerKey(expected_negative="not_yet", must_name=("passport",))
STILL_VALID = AnswerKey(expected_negative="still", accepted=("Acme Broadband",), wrong=("Beta Net",))
POSITIVE = AnswerKey(accepted=("Neskett Reverie",), wrong=("Neskett",), stale=("Orvel Prime",))
COUNT = AnswerKey(numeric=NumericKey(value=12))
AMOUNT = AnswerKey(numeric=NumericKey(value=128.75, unit="USD"))
ZERO = AnswerKey(numeric=NumericKey(value=0))
LIST = AnswerKey(list_order=("Ann", "Bob", "Cy"), wrong=("Dee",))

CASES = [
    # 1. empty answers
    pytest.param("", COUNT, A, NONE, id="empty-answer-abstains"),
    pytest.param("  \n\t ", POSITIVE, A, NONE, id="whitespace-answer-abstains"),
    # 2. never-known probes
    pytest.param("I don't know.", NEVER_KNOWN, C, NONE, id="never-known/abstention-is-gold"),
    pytest.param("I dont know", NEVER_KNOWN, C, NONE, id="never-known/apostrophe-dropped"),
    pytest.param("There's no record of a kiteboard.", NEVER_KNOWN, C, NONE, id="never-known/no-record"),
    pytest.param("You never told me about a kiteboard.", NEVER_KNOWN, C, NONE, id="never-known/denial-is-gold"),
    pytest.param("You used to have one, but you sold it.", NEVER_KNOWN, W, MISATTRIBUTED, id="never-known/used-to-is-misattributed"),
    pytest.param("I don't know; you no longer have one.", NEVER_KNOWN, W, MISATTRIBUTED, id="never-known/no-longer-beats-abstention"),
    pytest.param("It was the Marloe Basic.", NEVER_KNOWN, W, NONE, id="never-known/names-known-wrong-value"),
    pytest.param("I'm not sure, but probably the Zephyr.", NEVER_KNOWN, W, NONE, id="never-known/hedge-still-commits"),
    pytest.param("The Zephyr 9.", NEVER_KNOWN, U, NONE, id="never-known/unknown-value-unhedged-is-unjudged"),
    # 3. invalidated (no_longer)
    pytest.param("You had a Honda, but you sold it.", INVALIDATED, C, NONE, id="invalidated/names-value-and-invalidation"),
    pytest.param("You no longer have the Honda Civic.", INVALIDATED, C, NONE, id="invalidated/accepted-spelling-names-the-value"),
    pytest.param("No, it's no longer the Honda.", INVALIDATED, C, NONE, id="invalidated/plain-no-is-not-a-negator"),
    pytest.param("You don't have the Honda anymore.", INVALIDATED, C, NONE, id="invalidated/anymore-carries-its-own-negation"),
    pytest.param("You sold it.", INVALIDATED, M, NONE, id="invalidated/omits-distinctive-value-is-missed"),
    pytest.param("You sold the Toyota.", INVALIDATED, W, NONE, id="invalidated/invalidates-wrong-value"),
    pytest.param("You sold the Toyota.", INVALIDATED_STALE_ONLY, W, NONE, id="invalidated/no-must-name-still-needs-the-right-fact"),
    pytest.param("You sold the Honda.", INVALIDATED_STALE_ONLY, C, NONE, id="invalidated/stale-value-marked-void"),
    pytest.param("You drive a Honda.", INVALIDATED, W, STALE, id="invalidated/stale-recall"),
    pytest.param("I'm not sure, probably the Honda.", INVALIDATED, W, STALE, id="invalidated/hedged-stale-recall"),
    pytest.param("The Honda was not cancelled.", INVALIDATED, W, STALE, id="invalidated/negated-cue-is-stale"),
    pytest.param("Yes, that's still current.", INVALIDATED, W, STALE, id="invalidated/affirms-without-value"),
    pytest.param("You drive the Toyota.", INVALIDATED, W, NONE, id="invalidated/other-wrong-value"),
    pytest.param("I don't know.", INVALIDATED, A, NONE, id="invalidated/abstains"),
    pytest.param("You don't have a car.", INVALIDATED, M, NONE, id="invalidated/confident-negative-is-missed"),
    # 4. before-arms (not_yet)
    pytest.param("Nothing is due yet.", BEFORE, C, NONE, id="before/not-yet-is-gold"),
    pytest.param("That hasn't started.", BEFORE, C, NONE, id="before/hasnt-started"),
    pytest.param("Calling Ann isn't due yet.", BEFORE, C, NONE, id="before/not-yet-beats-named-item"),
    pytest.param("The warranty hasn't lapsed.", BEFORE, C, NONE, id="before/negated-lapse-is-not-yet"),
    pytest.param("You should call Ann now.", BEFORE, P, NONE, id="before/premature-value"),
    pytest.param("Yes, it's due now.", BEFORE, P, NONE, id="before/fires-without-naming"),
    pytest.param("It has expired.", BEFORE, P, NONE, id="before/validity-end-claimed-early"),
    pytest.param("I'm not sure.", BEFORE, A, NONE, id="before/abstains"),
    pytest.param("Buy milk.", BEFORE, U, NONE, id="before/unreadable-is-unjudged"),
    pytest.param("You mentioned the dentist later in the week.", BEFORE, U, NONE, id="before/bare-later-is-not-a-cue"),
    pytest.param("Nothing is due yet.", BEFORE_NAMED, M, NONE, id="before/omits-distinctive-value-is-missed"),
    pytest.param("The passport renewal isn't due yet.", BEFORE_NAMED, C, NONE, id="before/names-distinctive-value"),
    # 5. still-valid controls
    pytest.param("Acme Broadband, and it's still current.", STILL_VALID, C, NONE, id="still/names-value"),
    pytest.param("You switched to Acme Broadband this week.", STILL_VALID, C, NONE, id="still/switch-is-not-invalidation"),
    pytest.param("Acme Broadband \u2014 it hasn't been cancelled.", STILL_VALID, C, NONE, id="still/negated-cue-does-not-count"),
    pytest.param("Acme Broadband, but you cancelled it.", STILL_VALID, M, OVER, id="still/over-forgetting-with-value"),
    pytest.param("You no longer have broadband.", STILL_VALID, M, OVER, id="still/over-forgetting-without-value"),
    pytest.param("Beta Net, but that ended.", STILL_VALID, W, OVER, id="still/over-forgetting-wrong-value"),
    pytest.param("Beta Net.", STILL_VALID, W, NONE, id="still/wrong-value"),
    pytest.param("Acme Broadband or Beta Net.", STILL_VALID, W, NONE, id="still/gold-and-wrong"),
    pytest.param("I can't recall.", STILL_VALID, A, NONE, id="still/abstains"),
    pytest.param("You don't have broadband.", STILL_VALID, M, NONE, id="still/confident-negative"),
    pytest.param("Yes, it's still current.", STILL_VALID, W, NONE, id="still/affirms-without-value"),
    # 6a. positive gold, accepted values
    pytest.param("Neskett Reverie.", POSITIVE, C, NONE, id="accepted/names-gold"),
    pytest.param("  NESKETT   reverie ", POSITIVE, C, NONE, id="accepted/normalised"),
    pytest.param("I'm not sure, but probably Neskett Reverie.", POSITIVE, C, NONE, id="accepted/hedged-gold-commits"),
    pytest.param("Neskett.", POSITIVE, W, NONE, id="accepted/shorter-wrong-value"),
    pytest.param("Neskett Reverie or Orvel Prime.", POSITIVE, W, NONE, id="accepted/gold-and-stale"),
    pytest.param("Orvel Prime.", POSITIVE, W, NONE, id="accepted/stale-value"),
    pytest.param("I don't know.", POSITIVE, A, NONE, id="accepted/abstains"),
    pytest.param("You never mentioned one.", POSITIVE, M, NONE, id="accepted/confident-negative"),
    pytest.param("Something else entirely.", POSITIVE, U, NONE, id="accepted/no-value-named-is-unjudged"),
    # 6b. positive gold, numeric
    pytest.param("12", COUNT, C, NONE, id="numeric/exact"),
    pytest.param("Twelve times.", COUNT, C, NONE, id="numeric/number-word"),
    pytest.param("Probably 12.", COUNT, C, NONE, id="numeric/hedge-commits"),
    pytest.param("5 + 7 = 12", COUNT, C, NONE, id="numeric/working-then-result"),
    pytest.param("In total 12, across 3 months.", COUNT, C, NONE, id="numeric/conclusion-marker-wins"),
    pytest.param("12 times across 3 months.", COUNT, C, NONE, id="numeric/first-figure-without-marker"),
    pytest.param("About 10.", COUNT, W, NONE, id="numeric/one-significant-figure-too-coarse"),
    pytest.param("13", COUNT, W, NONE, id="numeric/off-by-one"),
    pytest.param("I don't know.", COUNT, A, NONE, id="numeric/abstains"),
    pytest.param("You never ordered from them.", COUNT, M, NONE, id="numeric/confident-negative"),
    pytest.param("Not many.", COUNT, U, NONE, id="numeric/no-number-is-unjudged"),
    pytest.param("You never ordered from them.", ZERO, C, NONE, id="numeric/negative-matches-zero-gold"),
    pytest.param("Zero.", ZERO, C, NONE, id="numeric/zero-word"),
    pytest.param("Roughly 129 dollars.", AMOUNT, C, NONE, id="numeric/marked-rounded-figure"),
    pytest.param("129 dollars.", AMOUNT, W, NONE, id="numeric/unmarked-rounded-figure"),
    pytest.param("\u20ac128.75", AMOUNT, W, NONE, id="numeric/wrong-currency"),
    pytest.param("$40 + $88.75 = $128.75", AMOUNT, C, NONE, id="numeric/sum-with-equals"),
    pytest.param("It was the third order; the total is $128.75.", AMOUNT, C, NONE, id="numeric/ordinal-ignored"),
    # 6c. positive gold, list order
    pytest.param("Ann, then Bob, then Cy.", LIST, C, NONE, id="list/gold-order"),
    pytest.param("Bob, Ann, Cy.", LIST, W, NONE, id="list/inversion"),
    pytest.param("Ann and Cy.", LIST, W, NONE, id="list/missing-item"),
    pytest.param("Ann, Bob, Dee, Cy.", LIST, W, NONE, id="list/known-wrong-item"),
    pytest.param("I can't recall.", LIST, A, NONE, id="list/abstains"),
    pytest.param("You never listed anything.", LIST, M, NONE, id="list/confident-negative"),
]


@pytest.mark.parametrize(("answer", "key", "outcome", "subcounts"), CASES)
def test_judge_answer_precedence(
    answer: str, key: AnswerKey, outcome: Outcome, subcounts: frozenset[str]
) -> None:
    verdict = judge_answer(answer, key)
    assert (verdict.outcome, verdict.subcounts) == (outcome, subcounts), verdict.reason


SURFACED_CASES = [
    pytest.param("Ann and Cy.", frozenset({"Ann", "Cy"}), W, id="partial-list-of-surfaced-items"),
    pytest.param("Cy and Ann.", frozenset({"Ann", "Cy"}), W, id="inversion-among-surfaced"),
    pytest.param("Annabel and Bob.", frozenset({"Bob"}), W, id="longer-name-does-not-count-as-item"),
    pytest.param("Bob.", frozenset({"Ann", "Bob"}), W, id="surfaced-item-missing"),
    pytest.param("Ann, Bob and Cy.", frozenset({"Bob"}), C, id="whole-list"),
]


@pytest.mark.parametrize(("answer", "surfaced", "outcome"), SURFACED_CASES)
def test_an_adapters_evidence_cannot_raise_a_list_order_outcome(
    answer: str, surfaced: frozenset[str], outcome: Outcome
) -> None:
    """J13.11: the whole list in order is `correct`; what the adapter reports as surfaced (its own
    Evidence) never lowers that (one session reported for one item of seven was `correct`)."""
    assert judge_answer(answer, LIST, surfaced_items=surfaced).outcome is outcome
    assert judge_answer(answer, LIST, surfaced_items=surfaced) == judge_answer(answer, LIST)


@pytest.mark.parametrize(
    ("answer", "key", "fragment"),
    [
        pytest.param("Bob, Ann, Cy.", LIST, "inversion: 'Bob' before 'Ann'", id="inversion"),
        pytest.param("You sold it.", INVALIDATED, "omits the value", id="distinctive-value"),
        pytest.param("Not many.", COUNT, "no figure found", id="no-number"),
        pytest.param("", POSITIVE, "empty answer", id="empty"),
    ],
)
def test_reason_names_the_rule(answer: str, key: AnswerKey, fragment: str) -> None:
    reason = judge_answer(answer, key).reason
    assert fragment in reason
    assert "\n" not in reason


def test_the_judge_never_produces_error() -> None:
    keys = (NEVER_KNOWN, INVALIDATED, BEFORE, STILL_VALID, POSITIVE, COUNT, LIST)
    answers = ("", "x", "I don't know", "12", "Honda", "nothing is due yet", "Ann, Bob")
    outcomes = {judge_answer(answer, key).outcome for key in keys for answer in answers}
    assert Outcome.ERROR not in outcomes


def test_mechanical_judge_wraps_judge_answer() -> None:
    judge = MechanicalJudge()
    assert judge.fingerprint == JUDGE_FINGERPRINT
    assert judge.judge("Cy and Ann.", LIST, frozenset({"Ann", "Cy"})) == judge_answer(
        "Cy and Ann.", LIST, surfaced_items=frozenset({"Ann", "Cy"})
    )


def test_fingerprint_is_sha256_of_the_current_rules() -> None:
    assert re.fullmatch(r"[0-9a-f]{64}", JUDGE_FINGERPRINT)
    assert compute_fingerprint(judge_rules()) == JUDGE_FINGERPRINT
    assert judge_rules()["version"] == JUDGE_RULESET_VERSION


def _add_abstention_cue(rules: dict[str, object]) -> None:
    reading = rules["reading"]
    assert isinstance(reading, dict)
    reading["decline"].append(r"\bno idea\b")


def _drop_number_word(rules: dict[str, object]) -> None:
    numbers = rules["numbers"]
    assert isinstance(numbers, dict)
    numbers["unit_words"].pop()


def _bump_version(rules: dict[str, object]) -> None:
    rules["version"] = "bumped"


def _change_normalisation(rules: dict[str, object]) -> None:
    normalisation = rules["normalisation"]
    assert isinstance(normalisation, dict)
    normalisation["case"] = "lower"


@pytest.mark.parametrize(
    "mutate",
    [
        pytest.param(_add_abstention_cue, id="cue-list"),
        pytest.param(_drop_number_word, id="number-word-table"),
        pytest.param(_bump_version, id="ruleset-version"),
        pytest.param(_change_normalisation, id="normalisation"),
    ],
)
def test_fingerprint_changes_when_any_rule_changes(mutate: object) -> None:
    rules = judge_rules()
    assert callable(mutate)
    mutate(rules)
    assert compute_fingerprint(rules) != JUDGE_FINGERPRINT
    # judge_rules hands out a copy: mutating it must not move the pinned fingerprint.
    assert compute_fingerprint(judge_rules()) == JUDGE_FINGERPRINT


def test_fingerprint_ignores_key_order() -> None:
    assert compute_fingerprint({"a": [1, 2], "b": "x"}) == compute_fingerprint({"b": "x", "a": [1, 2]})
