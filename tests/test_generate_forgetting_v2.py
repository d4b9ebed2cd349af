"""The revision-2 Forgetting generator (pytest_typedmemeval.generate.verticals.forgetting)."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import pytest

from pytest_typedmemeval.corpus.models import AnswerKey, QuestionRecord
from pytest_typedmemeval.corpus.text_stats import non_linguistic_share
from pytest_typedmemeval.generate import engine
from pytest_typedmemeval.generate.primitives import GenerationError, dump_json
from pytest_typedmemeval.generate.verticals import forgetting as fg
from pytest_typedmemeval.judge.mechanical import judge_answer
from pytest_typedmemeval.judge.outcomes import Outcome

DIAL = fg.RECORDED_COMPETITION


@pytest.fixture(scope="module")
def corpus() -> list[dict[str, Any]]:
    return fg.build(fg.SEED, DIAL).records


def _by_shape(records: list[dict[str, Any]], shape: str) -> list[dict[str, Any]]:
    return [r for r in records if r["question_type"] == shape]


def _turns(record: dict[str, Any]) -> list[str]:
    return [t["content"] for s in record["haystack_sessions"] for t in s]


def _grade(record: dict[str, Any], answer: str) -> Outcome:
    return judge_answer(answer, AnswerKey.model_validate(record["typedmemeval"]["answer_key"])).outcome


def test_build_is_byte_deterministic_and_shapes_do_not_depend_on_each_other(corpus) -> None:
    assert dump_json(fg.build(fg.SEED, DIAL).records) == dump_json(corpus)
    alone = fg.build(fg.SEED, DIAL, shapes=("still-valid",)).records
    assert dump_json(alone) == dump_json(_by_shape(corpus, "still-valid"))


def test_counts_and_opaque_ids(corpus) -> None:
    assert [len(_by_shape(corpus, s)) for s in fg.SHAPES] == [20, 15, 15]
    ids = [r["question_id"] for r in corpus]
    assert ids == [f"tme-for-{i:03d}" for i in range(1, 51)]
    never = sorted(int(r["question_id"][-3:]) for r in _by_shape(corpus, "never-known"))
    assert never != list(range(never[0], never[0] + 15)), "never-known ids form a block"
    for record in corpus:
        QuestionRecord.model_validate(record)


def test_pairs_share_one_haystack_and_flip_gold(corpus) -> None:
    pairs: dict[str, list[dict[str, Any]]] = {}
    for record in corpus:
        if "pair_id" in record["typedmemeval"]:
            pairs.setdefault(record["typedmemeval"]["pair_id"], []).append(record)
    assert len(pairs) == 15
    for treatment, control in (sorted(p, key=lambda r: r["typedmemeval"]["arm"], reverse=True)
                               for p in pairs.values()):
        assert (treatment["question_type"], control["question_type"]) == ("invalidated", "still-valid")
        assert _turns(treatment) == _turns(control)
        assert treatment["haystack_dates"] == control["haystack_dates"]
        assert treatment["answer_session_ids"] != control["answer_session_ids"]


def test_gold_is_what_the_flagged_turns_say(corpus) -> None:
    """Statement then follow-up, 4-15 sessions apart; the value and event come from the text."""
    for record in _by_shape(corpus, "invalidated") + _by_shape(corpus, "still-valid"):
        flagged = [(i, t["content"]) for i, s in enumerate(record["haystack_sessions"])
                   for t in s if t["has_answer"]]
        assert [record["haystack_session_ids"][i] for i, _ in flagged] == record["answer_session_ids"]
        (first, stated), (second, follow) = flagged
        assert 4 <= second - first <= 15
        noun = re.match(r"Which (.+) do I have (for the .+?)\?", record["question"])
        assert noun is not None and all(f"{noun[1]} {noun[2]}" in t for t in (stated, follow))
        value = record["answer"].split(",")[0]
        assert value in stated
        if record["question_type"] == "invalidated":
            event = record["answer"].split(": you ")[1].rstrip(".")
            assert f"I {event}" in follow and value not in follow
        else:
            assert value in follow


def test_text_is_chat_not_word_lists(corpus) -> None:
    texts = [t for r in corpus for t in _turns(r)]
    assert non_linguistic_share(texts) == 0.0
    assert not any(":" in t or re.search(r"\d", t) for t in texts)
    assert not any(w in re.findall(r"[a-z]+", t.lower()) for t in texts for w in fg.CURRENCY_WORDS)


def test_answer_keys_grade_gold_correct_and_typical_wrong_answers_not(corpus) -> None:
    for record in corpus:
        assert _grade(record, record["answer"]) is Outcome.CORRECT, record["question_id"]
        key = record["typedmemeval"]["answer_key"]
        if record["question_type"] == "invalidated":
            value = key["must_name"][0]
            wrong = [f"{value}, and that is still current.", f"You have {value}.",
                     "That no longer holds.", f"{key['wrong'][0]}, and that is still current."]
        elif record["question_type"] == "still-valid":
            value = key["accepted"][0]
            wrong = [f"{value}, but you cancelled it.", "Yes, that is still current.",
                     f"{key['wrong'][0]}, and that is still current."]
        else:
            wrong = [f"{key['wrong'][0]}, and that is still current.", "You sold it.",
                     "You used to have one, but it is gone."]
        for answer in wrong:
            assert _grade(record, answer) is not Outcome.CORRECT, (record["question_id"], answer)


def test_never_known_near_miss_is_a_plainly_different_thing(corpus) -> None:
    by_noun = {e.sibling: e for e in fg.FACTS}
    for record in _by_shape(corpus, "never-known"):
        asked = re.match(r"Which (.+) do I have (for the .+?)\?", record["question"])
        assert asked is not None
        near = by_noun[asked[1]]
        text = "\n".join(_turns(record)).lower()
        assert asked[1] not in text and near.thing in text
        assert frozenset({near.noun, near.sibling}) not in fg.NEAR_SYNONYMS
    assert frozenset({"kayak", "canoe"}) in fg.NEAR_SYNONYMS


def test_recorded_dial_reproduces_the_search_and_stays_under_the_lexical_ceiling(corpus) -> None:
    from pytest_typedmemeval.generate import registry
    from pytest_typedmemeval.generate.calibration import panel_max_coverage, shape_coverage

    record = registry.calibration_record(fg)
    assert record is not None
    records = [QuestionRecord.model_validate(r) for r in corpus]
    for shape in fg.CALIBRATED_SHAPES:
        searched = record["by_shape"][shape]
        assert searched["dial"] == DIAL[shape]
        assert round(shape_coverage(records, shape), 6) == searched["coverage"]
        assert 0.5 <= searched["coverage"] <= 0.9 and panel_max_coverage(records, shape) <= 0.90


# --------------------------------------------------------------------------------------------
# Negative controls: one injected defect per validity rule, each refused by GenerationError.


def test_near_synonym_near_miss_is_refused_at_import(monkeypatch) -> None:
    monkeypatch.setattr(fg, "NEAR_SYNONYMS", fg.NEAR_SYNONYMS | {frozenset({"plumber", "electrician"})})
    with pytest.raises(AssertionError, match="near-synonym"):
        fg._assert_banks()


def test_reaffirmation_with_another_value_is_refused(monkeypatch) -> None:
    say = fg._say

    def changed(rng: Any, fact: fg.Fact, kind: str) -> engine.Piece:
        if kind == "reaffirmation":
            fact = dataclasses.replace(fact, value="Quazen Orvel")
        return say(rng, fact, kind)

    monkeypatch.setattr(fg, "_say", changed)
    with pytest.raises(GenerationError, match="reads back as"):
        fg.build(fg.SEED, DIAL, shapes=("still-valid",))


def test_value_without_its_subject_is_refused(monkeypatch) -> None:
    render = engine.render

    def leaky(*args: Any, **kwargs: Any) -> engine.Haystack:
        stay = render(*args, **kwargs)
        stated = [m[0] for s in range(len(stay.sessions))
                  for m in [re.search(r"[A-Z][a-z]+ [A-Z][a-z]+", stay.turn_of(s, 0).text)] if m]
        stay.sessions[0][1].text += f" {stated[0]} sounds good."
        return stay

    monkeypatch.setattr(engine, "render", leaky)
    with pytest.raises(GenerationError, match="without its subject"):
        fg.build(fg.SEED, DIAL, shapes=("never-known",))


def test_currency_clause_word_in_a_haystack_is_refused(monkeypatch) -> None:
    for category in ("service", "item"):
        monkeypatch.setitem(fg.SAY, ("invalidation", category),
                            tuple(t + " It is still a relief." for t in fg.SAY["invalidation", category]))
    with pytest.raises(GenerationError, match="currency-clause word"):
        fg.build(fg.SEED, DIAL, shapes=("invalidated",))


def test_digits_in_a_statement_are_refused(monkeypatch) -> None:
    monkeypatch.setitem(fg.SAY, ("statement", "item"), ("I bought {a} {thing}, the {value} 2.",))
    with pytest.raises(GenerationError, match="digits or dashes"):
        fg.build(fg.SEED, DIAL, shapes=("never-known",))


def test_never_known_noun_in_the_haystack_is_refused(monkeypatch) -> None:
    monkeypatch.setattr(fg, "FACTS", tuple(dataclasses.replace(e, sibling="update") for e in fg.FACTS))
    with pytest.raises(GenerationError, match="never-known noun"):
        fg.build(fg.SEED, DIAL, shapes=("never-known",))


def test_components_outside_the_gap_range_are_refused(monkeypatch) -> None:
    monkeypatch.setattr(fg, "_spread", lambda count: [2] * count)
    with pytest.raises(GenerationError, match="sessions apart"):
        fg.build(fg.SEED, DIAL, shapes=("invalidated",))


def test_gold_the_judge_would_not_accept_is_refused(monkeypatch) -> None:
    monkeypatch.setitem(fg.ANSWERS, "reaffirmation", "{value}, but you let it go.")
    with pytest.raises(GenerationError, match="grades the gold answer"):
        fg.build(fg.SEED, DIAL, shapes=("still-valid",))


def test_common_question_words_are_refused(monkeypatch) -> None:
    monkeypatch.setattr(engine, "question_terms", lambda question, drop=(): ["i"])
    with pytest.raises(GenerationError, match="question word 'i'"):
        fg.build(fg.SEED, DIAL)


def test_dial_outside_the_unit_interval_is_refused() -> None:
    with pytest.raises(GenerationError, match="must lie in"):
        fg.build(fg.SEED, {**DIAL, "invalidated": 1.5}, shapes=("invalidated",))
