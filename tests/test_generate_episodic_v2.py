"""TypedMemEval-Episodic revision 2 (generate/verticals/episodic.py): bytes, text, keys, rules."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest

from pytest_typedmemeval.corpus.models import AnswerKey, QuestionRecord
from pytest_typedmemeval.corpus.text_stats import non_linguistic_share
from pytest_typedmemeval.generate import engine
from pytest_typedmemeval.generate.primitives import GenerationError, dump_json
from pytest_typedmemeval.generate.verticals import episodic as epi
from pytest_typedmemeval.judge.mechanical import judge_answer
from pytest_typedmemeval.judge.outcomes import Outcome

DIAL = epi.RECORDED_COMPETITION
DECLINE = "I do not have that information."


@pytest.fixture(scope="module")
def records() -> list[dict[str, Any]]:
    return epi.build(epi.SEED, DIAL).records


def _shape(records: list[dict[str, Any]], shape: str) -> list[dict[str, Any]]:
    return [r for r in records if r["question_type"] == shape]


def _grade(record: dict[str, Any], answer: str) -> Outcome:
    return judge_answer(answer, AnswerKey.model_validate(record["typedmemeval"]["answer_key"])).outcome


def _gold_turns(record: dict[str, Any]) -> list[dict[str, Any]]:
    return [t for s in record["haystack_sessions"] for t in s if t["has_answer"]]


# --- bytes and ids -----------------------------------------------------------------------------


def test_two_builds_are_byte_identical_and_a_shape_does_not_depend_on_the_others(
        records: list[dict[str, Any]]) -> None:
    alone = epi.build(epi.SEED, DIAL, shapes=("list-order",)).records
    assert dump_json(alone) == dump_json(epi.build(epi.SEED, DIAL, shapes=("list-order",)).records)
    assert dump_json(alone) == dump_json(_shape(records, "list-order"))
    assert dump_json(epi.build(epi.SEED + 1, DIAL, shapes=("list-order",)).records) != dump_json(alone)


def test_ids_are_opaque(records: list[dict[str, Any]]) -> None:
    ids = [r["question_id"] for r in records]
    assert ids == sorted(ids) and len(set(ids)) == 50
    assert all(re.fullmatch(r"tme-epi-\d{3}", qid) for qid in ids)
    # A seeded permutation: no shape owns a contiguous id range.
    by_shape = [r["question_type"] for r in records]
    assert by_shape[:20] != ["assistant-stated"] * 20
    for record in records:
        QuestionRecord.model_validate(record)


def test_shapes_counts_and_haystack_sizes(records: list[dict[str, Any]]) -> None:
    assert Counter(r["question_type"] for r in records) == epi.N_BY_SHAPE
    for record in records:
        g = len(record["answer_session_ids"])
        h = len(record["haystack_sessions"]) - g
        assert 15 <= h <= 25
        assert (4 <= g <= 7) if record["question_type"] == "list-order" else g in (1, 2)


# --- text --------------------------------------------------------------------------------------


def test_no_word_list_filler_and_every_session_states_one_thing_of_the_shapes_kind(
        records: list[dict[str, Any]]) -> None:
    texts = [t["content"] for r in records for s in r["haystack_sessions"] for t in s]
    assert non_linguistic_share(texts) == 0.0
    assert not any("Also on my mind" in text for text in texts)
    value = re.compile(r"\b[A-Z][a-z]+ [A-Z][a-z]+\b")
    for record in records:
        for session in record["haystack_sessions"]:
            text = " ".join(t["content"] for t in session)
            if record["question_type"] == "participant-attribution":
                assert sum(text.count(" " + claim + ".") for claim in epi.CLAIMS) == 1, session
            else:  # one invented value, whose words are nowhere else in the session
                names = [m for m in value.findall(text) if m.lower().split()[0] in epi.VALUE_WORDS]
                assert len(names) == 1, session


def test_remarks_read_the_same_from_either_speaker(records: list[dict[str, Any]]) -> None:
    for template in epi.CONSTRUCTIONS["remark"]:
        words = set(re.findall(r"[a-z]+", template.lower()))
        assert not words & {"i", "me", "my", "you", "your", "we", "us", "our"}
    roles = Counter(t["role"] for r in _shape(records, "participant-attribution")
                    for t in _gold_turns(r))
    assert roles == {"user": 10, "assistant": 10}


# --- gold, read back from the text, and keys ---------------------------------------------------


def test_assistant_stated_gold_sits_in_an_assistant_turn_and_in_no_user_turn(
        records: list[dict[str, Any]]) -> None:
    users = " ".join(t["content"] for r in records for s in r["haystack_sessions"] for t in s
                     if t["role"] == "user")
    for record in _shape(records, "assistant-stated"):
        (turn,) = _gold_turns(record)
        noun = record["question"].split()[1]
        assert turn["role"] == "assistant" and record["answer"] in turn["content"]
        assert noun in turn["content"]
        assert not set(record["answer"].split()) & set(users.split())
        others = record["typedmemeval"]["answer_key"]["wrong"]
        assert _grade(record, record["answer"]) is Outcome.CORRECT
        assert _grade(record, f"You recommended {record['answer']}.") is Outcome.CORRECT
        assert _grade(record, others[0]) is not Outcome.CORRECT
        assert _grade(record, DECLINE) is not Outcome.CORRECT


def test_list_order_is_session_order_and_wrong_orders_are_not_correct(
        records: list[dict[str, Any]]) -> None:
    for record in _shape(records, "list-order"):
        items = record["answer"].split(", ")
        turns = _gold_turns(record)
        assert [t["role"] for t in turns] == ["user"] * len(items)
        assert [next(i for i in items if i in t["content"]) for t in turns] == items
        texts = ["\n".join(t["content"] for t in s) for s in record["haystack_sessions"]]
        assert all(sum(item in text for text in texts) == 1 for item in items)
        block = record["typedmemeval"]["list_order"]
        assert [block["items"][i] for i in block["presented_order"]] == items
        assert _grade(record, record["answer"]) is Outcome.CORRECT
        assert _grade(record, ", ".join(reversed(items))) is not Outcome.CORRECT
        assert _grade(record, ", ".join(items[1:] + items[:1])) is not Outcome.CORRECT


def test_attribution_is_balanced_read_from_roles_and_graded_against_each_option(
        records: list[dict[str, Any]]) -> None:
    attribution = _shape(records, "participant-attribution")
    assert Counter(r["answer"] for r in attribution) == {"me": 5, "you": 5, "both of us": 5}
    assert len({r["question"].split(" that ")[0] for r in attribution}) > 1
    for record in attribution:
        roles = sorted(t["role"] for t in _gold_turns(record))
        quoted = re.search(r"(?:that|said) (the .+?)[:?]", record["question"]).group(1)
        assert all(quoted in t["content"] for t in _gold_turns(record))
        assert {"me": ["user"], "you": ["assistant"],
                "both of us": ["assistant", "user"]}[record["answer"]] == roles
        assert record["question"].endswith("me or you or both of us?")
        for option in epi.CHOICES:
            expected = Outcome.CORRECT if option == record["answer"] else Outcome.WRONG
            assert _grade(record, option) is expected


def test_competition_names_the_asked_subject_outside_gold(records: list[dict[str, Any]]) -> None:
    for record in _shape(records, "assistant-stated"):
        gold = set(record["answer_session_ids"])
        subject = "the " + re.match(r"Which (.+) did you recommend (.+)\?", record["question"]) \
            .expand(r"\1 \2")
        named = [sid for sid, s in zip(record["haystack_session_ids"], record["haystack_sessions"])
                 if sid not in gold and any(subject in t["content"] for t in s)]
        assert named  # competitors exist, and none of them carries a value for the subject
        for sid, s in zip(record["haystack_session_ids"], record["haystack_sessions"]):
            if sid in named:
                assert not any(record["answer"] in t["content"] for t in s)


# --- negative controls: each validity rule refuses its defect ---------------------------------


def _render(slots: list[epi.Slot], asked: str) -> engine.Haystack:
    return engine.render(epi.SEED, epi.VERTICAL, epi.draft(epi.SEED, "test/00", slots, asked, 0.5),
                         0.5, epi.SCAFFOLDS["list-order"])


def _filler(kind: str, count: int) -> list[epi.Slot]:
    pool = epi.RECOMMEND_PARITY if kind == "recommend" else epi.LIST_PARITY
    words = epi.POOLS[kind]
    return [epi.Slot(kind, pool[i], f"{words[2 * i]} {words[2 * i + 1]}",
                     role="assistant" if kind == "recommend" else "user") for i in range(count)]


def test_a_recommendation_the_user_makes_is_refused() -> None:
    asked = epi.RECOMMEND_FACTS[0]
    slots = _filler("recommend", 15) + [epi.Slot("recommend", asked, "Veldask Soltiv", role="user")]
    with pytest.raises(GenerationError, match="not recommended once by the assistant"):
        epi.make_record(_render(slots, asked), "assistant-stated", slots, asked, None, "")


def test_two_items_of_the_asked_list_in_one_session_are_refused() -> None:
    asked = epi.LIST_FACTS[0]
    slots = _filler("add", 15) + [epi.Slot("add", asked, f"Veldask Sol{x}") for x in
                                  ("tiv", "mor", "lar", "nav")]
    stay = _render(slots, asked)
    epi.make_record(stay, "list-order", slots, asked, None, "")  # the control reads fine
    last = len(slots) - 1  # holds an item of the asked list; a second one joins its first turn
    stay.sessions[last][0].text += " I added Velbrix Solnav to " + asked + "."
    with pytest.raises(GenerationError, match="outside any piece"):
        epi.make_record(stay, "list-order", slots, asked, None, "")
    stay.piece_turns[last].append(0)
    with pytest.raises(GenerationError, match="one user item per session"):
        epi.make_record(stay, "list-order", slots, asked, None, "")


def test_a_value_in_two_sessions_or_without_its_subject_is_refused() -> None:
    slots = _filler("add", 15)
    asked = slots[0].subject
    epi.check_values(_render(slots, asked), slots)  # the control passes
    slots[3] = epi.Slot("add", slots[3].subject, slots[0].value)
    with pytest.raises(GenerationError, match="is in sessions"):
        epi.check_values(_render(slots, asked), slots)
    slots = _filler("add", 15)
    stay = _render(slots, asked)
    stay.sessions[2][0].text += " " + slots[0].value.split()[0] + " is lovely."
    with pytest.raises(GenerationError, match="outside a full value"):
        epi.check_values(stay, slots)


def test_a_remark_said_twice_by_one_speaker_is_refused() -> None:
    venue, claim = epi.VENUES[0], epi.CLAIMS[0]
    slots = [epi.Slot("remark", v, claim=epi.CLAIMS[1]) for v in epi.VENUE_PARITY[:15]]
    slots += [epi.Slot("remark", venue, claim=claim, role="assistant")] * 2
    with pytest.raises(GenerationError, match="said 2 times"):
        epi.make_record(_render(slots, venue), "participant-attribution", slots, venue, claim,
                        epi.ATTRIBUTION_FRAMES[0])


def test_the_lexical_screen_refuses_a_gold_value_in_a_user_turn(
        records: list[dict[str, Any]]) -> None:
    record = _shape(records, "assistant-stated")[0]
    assert epi.screen_assistant_stated([record])["hits"] == 0
    leaked = {**record, "haystack_sessions": [[{**t, "content": t["content"] + " " + record["answer"]
                                                if t["role"] == "user" else t["content"]}
                                               for t in s] for s in record["haystack_sessions"]]}
    with pytest.raises(GenerationError, match="reaches a user turn"):
        epi.screen_assistant_stated([leaked])


def test_a_question_word_common_across_the_corpus_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    asides = tuple(t[:-1] + " near the campsite." for t in epi.CONSTRUCTIONS["aside"])
    monkeypatch.setitem(epi.CONSTRUCTIONS, "aside", asides)
    with pytest.raises(GenerationError, match="question word 'campsite'"):
        epi.build(epi.SEED, DIAL)


def test_digits_in_a_statement_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(epi.CONSTRUCTIONS, "aside", ("Take your time with {subject}, all 3 of it.",))
    with pytest.raises(GenerationError, match="digits or dashes"):
        epi.build(epi.SEED, DIAL, shapes=("assistant-stated",))


def test_the_judge_check_refuses_a_wrong_answer_graded_correct(
        records: list[dict[str, Any]]) -> None:
    record = _shape(records, "list-order")[0]
    engine.judge_gold(record, wrong_answers=[", ".join(reversed(record["answer"].split(", ")))])
    with pytest.raises(GenerationError, match="grades the wrong answer"):
        engine.judge_gold(record, wrong_answers=[record["answer"]])


def test_a_dial_outside_zero_to_one_is_refused() -> None:
    with pytest.raises(GenerationError, match="competition rate"):
        epi.build(epi.SEED, {**DIAL, "list-order": 1.5}, shapes=("list-order",))
