"""TypedMemEval-Prospective revision 2 (generate/verticals/prospective.py): bytes, text, keys, rules."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest

from pytest_typedmemeval.corpus.models import AnswerKey, format_corpus_date, parse_corpus_date
from pytest_typedmemeval.corpus.text_stats import non_linguistic_share
from pytest_typedmemeval.generate import engine
from pytest_typedmemeval.generate.primitives import GenerationError, dump_json
from pytest_typedmemeval.generate.verticals import prospective as pro
from pytest_typedmemeval.judge.mechanical import judge_answer
from pytest_typedmemeval.judge.outcomes import Outcome

DIAL = pro.RECORDED_COMPETITION
# The test's own reading of spans (not the generator's table): number words and units.
_NUMBERS = {"seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
            "thirteen": 13, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
_SPAN = re.compile(r"\b(?:in|for the next) (\w+) (days|weeks)\b", re.IGNORECASE)


@pytest.fixture(scope="module")
def records() -> list[dict[str, Any]]:
    return pro.build(pro.SEED, DIAL).records


@pytest.fixture(autouse=True)
def _fresh_caches() -> Iterator[None]:
    yield
    pro._layout.cache_clear()
    pro._final_ids.cache_clear()


def _build(shape: str = "due-later") -> list[dict[str, Any]]:
    return pro.build(pro.SEED, DIAL, shapes=(shape,)).records


def _of(records: list[dict[str, Any]], shape: str, arm: str | None) -> dict[str, Any]:
    """The ``arm`` of the first pair of ``shape`` (in id order of the before arms)."""
    pair = next(r["typedmemeval"]["pair_id"] for r in records if r["question_type"] == shape
                and r["typedmemeval"]["arm"] == "before")
    return next(r for r in records if r["typedmemeval"].get("pair_id") == pair
                and r["typedmemeval"]["arm"] == arm)


def _entry(record: dict[str, Any]) -> pro.Entry:
    return next(e for e in pro.FACTS if e.subject in record["question"])


def _offset(record: dict[str, Any]) -> str:
    return next((o for o in pro.OFFSETS if o in record["question"]), "")


def _key(record: dict[str, Any]) -> AnswerKey:
    return AnswerKey.model_validate(record["typedmemeval"]["answer_key"])


def _grade(record: dict[str, Any], answer: str) -> Outcome:
    return judge_answer(answer, _key(record)).outcome


# --- bytes, ids, text -------------------------------------------------------------------------


def test_two_builds_are_byte_identical_and_a_shape_does_not_depend_on_the_others(
        records: list[dict[str, Any]]) -> None:
    assert dump_json(pro.build(pro.SEED, DIAL).records) == dump_json(records)
    alone = _build("current")
    assert dump_json(alone) == dump_json([r for r in records if r["question_type"] == "current"])


def test_ids_are_opaque_and_the_shape_mix_is_the_spec(records: list[dict[str, Any]]) -> None:
    assert [r["question_id"] for r in records] == [f"tme-pro-{i:03d}" for i in range(1, 51)]
    counts = {s: sum(r["question_type"] == s for r in records) for s in pro.SHAPES}
    assert counts == {"as-of": 4, "current": 4, "prospective": 4, "due-later": 16,
                      "expiring-validity": 12, "not-yet-true": 10}
    assert {r["question_type"] for r in records[:12]} != {"as-of", "current", "prospective"}
    pairs = {r["typedmemeval"]["pair_id"] for r in records if "pair_id" in r["typedmemeval"]}
    assert len(pairs) == 19 and all(re.fullmatch(r"tme-pro-p\d\d", p) for p in pairs)


def test_the_text_is_natural_chat_without_word_lists_or_dates(records: list[dict[str, Any]]) -> None:
    texts = [t["content"] for r in records for s in r["haystack_sessions"] for t in s]
    assert non_linguistic_share(texts) == 0.0
    assert not any(re.search(r"\d|\u2014|\u2013|\b(?:Monday|January|March)\b", t) for t in texts)
    assert not any("Also on my mind" in t for t in texts)


def test_gold_reads_back_from_the_text_and_the_final_timestamps(records: list[dict[str, Any]]) -> None:
    for record in records:
        gold = pro.recompute_gold(record, _entry(record), _offset(record))
        assert gold.answer == record["answer"]
        index = [i for i, s in enumerate(record["haystack_sessions"]) if any(t["has_answer"] for t in s)]
        assert index == [gold.session]
        turn = next(t["content"] for t in record["haystack_sessions"][gold.session] if t["has_answer"])
        assert _entry(record).subject in turn and gold.value in turn


def test_pivots_lie_weeks_after_the_last_session_and_arms_either_side(
        records: list[dict[str, Any]]) -> None:
    for record in records:
        index = next(i for i, s in enumerate(record["haystack_sessions"]) if any(t["has_answer"] for t in s))
        turn = next(t["content"] for t in record["haystack_sessions"][index] if t["has_answer"])
        (number, unit), = _SPAN.findall(turn)
        dates = [parse_corpus_date(d) for d in record["haystack_dates"]]
        pivot = dates[index] + timedelta(days=_NUMBERS[number] * (7 if unit == "weeks" else 1))
        assert pivot - dates[-1] >= timedelta(weeks=3)
        asked = parse_corpus_date(record["question_date"])
        arm = record["typedmemeval"].get("arm")
        if arm:
            assert (asked > pivot) == (arm == "after") and abs(asked - pivot) >= timedelta(days=2)


def test_filler_mentions_the_asked_subject_at_the_recorded_rate(records: list[dict[str, Any]]) -> None:
    for shape in pro.SHAPES:
        named = total = 0
        for r in (r for r in records if r["question_type"] == shape):
            for session in r["haystack_sessions"]:
                if not any(t["has_answer"] for t in session):
                    total += 1
                    named += _entry(r).subject in " ".join(t["content"] for t in session).lower()
        assert abs(named / total - DIAL[shape]) < 0.08, (shape, named, total)


def test_the_calibration_record_matches_the_recorded_dial() -> None:
    from pytest_typedmemeval.generate.registry import calibration_record

    record = calibration_record(pro)
    assert record is not None
    adjusted = record.get("dense_adjusted", {})
    searched = {s: (adjusted[s]["recorded"] if s in adjusted else v["dial"])
                for s, v in record["by_shape"].items()}
    assert searched == DIAL


# --- answer keys ----------------------------------------------------------------------------


def test_due_later_keys_need_the_callee_on_both_arms(records: list[dict[str, Any]]) -> None:
    before, after = _of(records, "due-later", "before"), _of(records, "due-later", "after")
    callee = _key(before).must_name[0]
    assert _key(after).must_name == (callee,) and _key(before).premature == (callee,)
    assert _grade(before, before["answer"]) is Outcome.CORRECT
    assert _grade(before, "Not yet.") is Outcome.MISSED
    assert _grade(before, f"Not yet, you are to call {callee} later.") is Outcome.CORRECT
    assert _grade(before, f"Yes, call {callee} now.") is Outcome.PREMATURE
    assert _grade(after, after["answer"]) is Outcome.CORRECT
    assert _grade(after, "Yes, it is due now.") is not Outcome.CORRECT
    assert _grade(after, f"Not yet. You are to call {callee}.") is Outcome.MISSED


def test_not_yet_true_keys_name_the_planned_thing(records: list[dict[str, Any]]) -> None:
    before, after = _of(records, "not-yet-true", "before"), _of(records, "not-yet-true", "after")
    planned = _key(before).must_name[0]
    assert _grade(before, "Not yet.") is Outcome.MISSED
    assert _grade(before, f"Yes, you booked {planned}.") is Outcome.PREMATURE
    key = _key(after)
    assert key.expected_negative == "abstain" and key.must_name == (planned,)
    assert "yet" not in key.wrong and planned not in key.wrong
    assert _grade(after, after["answer"]) is Outcome.CORRECT
    assert "passed" in after["answer"] and planned in after["answer"]
    for claim in (f"Yes, you booked {planned} as planned.", f"Not yet: you plan to book {planned}.",
                  f"You booked {key.wrong[0]}."):
        assert _grade(after, claim) is Outcome.WRONG, claim


@pytest.mark.parametrize("answer", ["I do not know.", "No, nothing is booked yet."])
def test_not_yet_true_after_arm_wants_the_plan_named_and_the_day_passed(
        records: list[dict[str, Any]], answer: str) -> None:
    assert _grade(_of(records, "not-yet-true", "after"), answer) is not Outcome.CORRECT


def test_expiring_validity_keys_name_the_cover(records: list[dict[str, Any]]) -> None:
    before, after = _of(records, "expiring-validity", "before"), _of(records, "expiring-validity", "after")
    cover = _key(before).must_name[0]
    assert _grade(before, "It is still valid.") is Outcome.MISSED
    assert _grade(after, "It has lapsed.") is Outcome.MISSED
    assert _grade(after, f"{cover}, and it is still valid.") is Outcome.WRONG


def test_seed_keys_mark_the_other_name_of_the_hand_over(records: list[dict[str, Any]]) -> None:
    for record in (r for r in records if r["question_type"] in pro.UNPAIRED):
        key = _key(record)
        other = (key.stale or key.premature)[0]
        assert _grade(record, record["answer"]) is Outcome.CORRECT
        assert _grade(record, f"{other} looks after it.") is Outcome.WRONG


# --- one negative control per validity rule --------------------------------------------------


def test_an_arm_too_close_to_the_pivot_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pro, "ARM_MARGIN_MINUTES", (10, 60))
    with pytest.raises(GenerationError, match="within 2 days of the pivot"):
        _build()


def test_an_arm_on_the_wrong_side_of_the_pivot_is_refused(records: list[dict[str, Any]]) -> None:
    before, after = _of(records, "due-later", "before"), _of(records, "due-later", "after")
    moved = {**before, "question_date": after["question_date"]}
    with pytest.raises(GenerationError, match="strictly between the arms"):
        pro.recompute_gold(moved, _entry(before))


def test_a_pivot_close_to_the_last_session_is_refused(records: list[dict[str, Any]]) -> None:
    record = _of(records, "due-later", "before")
    dates = [parse_corpus_date(d) for d in record["haystack_dates"]]
    late = [*record["haystack_dates"][:-1], format_corpus_date(dates[-1] + timedelta(days=80))]
    with pytest.raises(GenerationError, match="weeks after the last session"):
        pro.recompute_gold({**record, "haystack_dates": late}, _entry(record))


def test_a_competitor_sharing_the_gold_pivot_is_refused(records: list[dict[str, Any]]) -> None:
    record = _of(records, "due-later", "before")
    texts = [[t["content"] for t in s] for s in record["haystack_sessions"]]
    readings = pro.read_statements(texts)
    gold = next(r for r in readings if r.subject == _entry(record).subject)
    rival = next(r for r in readings if r.kind == gold.kind and r is not gold)
    dates = [parse_corpus_date(d) for d in record["haystack_dates"]]
    dates[rival.session] = dates[gold.session] + timedelta(days=gold.days - rival.days)
    tampered = {**record, "haystack_dates": [format_corpus_date(d) for d in dates]}
    with pytest.raises(GenerationError, match="shares the gold's pivot"):
        pro.recompute_gold(tampered, _entry(record))


def test_a_before_arm_gold_without_not_yet_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(pro.ANSWERS, ("due-later", "before"), "Soon: call {value} about {subject}.")
    with pytest.raises(GenerationError, match="not yet outright"):
        _build()


def test_a_not_yet_true_gold_claiming_the_booking_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(pro.ANSWERS, ("not-yet-true", "after"), "You booked {value}.")
    with pytest.raises(GenerationError, match="plan went ahead"):
        _build("not-yet-true")


def test_too_few_distractor_reminders_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pro, "MIN_DISTRACTOR_REMINDERS", 16)
    with pytest.raises(GenerationError, match="competing items"):
        _build()


def test_an_on_off_dial_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    pro._layout.cache_clear()
    monkeypatch.setattr(pro, "COMPETING_LEVELS", (3, 6, 10, 15, 18))  # 4 haystacks cannot take 5
    with pytest.raises(GenerationError, match="misses a level"):
        _build()


def test_calendar_words_in_a_question_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(pro.QUESTIONS, "current", "Who looks after {subject} on Mondays?")
    with pytest.raises(GenerationError, match="V4"):
        _build("current")


def test_digits_in_a_statement_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    fill = pro._fill
    monkeypatch.setattr(pro, "_fill", lambda *a: fill(*a).replace(".", " at 9.", 1))
    with pytest.raises(GenerationError, match="digits or dashes"):
        _build()


def test_text_that_does_not_read_back_as_planned_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    fill = pro._fill
    monkeypatch.setattr(pro, "_fill", lambda t, s, v, span: fill(t, s, v, "nine weeks"))
    with pytest.raises(GenerationError, match="reads back as"):
        _build()


def test_a_value_outside_a_statement_is_refused() -> None:
    with pytest.raises(GenerationError, match="outside a statement"):
        pro.read_statements([["We had tea with Balcor Dunfal by the river."]])


def test_has_answer_on_the_wrong_session_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    record = engine.record

    def shifted(stay: engine.Haystack, **kw: Any) -> dict[str, Any]:
        (session, piece), = kw["gold"]
        return record(stay, **{**kw, "gold": [((session + 1) % len(stay.sessions), piece)]})

    monkeypatch.setattr(pro.engine, "record", shifted)
    with pytest.raises(GenerationError, match="has_answer marks"):
        _build()


def test_a_key_that_passes_a_clock_blind_answer_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    make = pro._answer_key

    def v1_key(shape: str, arm: str | None, gold: Any) -> dict[str, Any]:
        key = make(shape, arm, gold)
        return {k: v for k, v in key.items() if k != "must_name"} if arm == "before" else key

    monkeypatch.setattr(pro, "_answer_key", v1_key)
    with pytest.raises(GenerationError, match="wrong answer 'Not yet.'"):
        _build()


def test_a_common_subject_word_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    subject = pro._layout(pro.SEED)[0].entry.subject
    mention = engine.talk.render_mention
    monkeypatch.setattr(engine.talk, "render_mention",
                        lambda t, s: f"{mention(t, s)} I keep thinking of {subject}.")
    with pytest.raises(GenerationError, match="question word"):
        pro.build(pro.SEED, DIAL)
