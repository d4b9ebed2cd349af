"""The revision-2 engine (pytest_typedmemeval.generate.engine): competition, rendering, ids, checks."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

import pytest

from pytest_typedmemeval.generate import engine, talk
from pytest_typedmemeval.generate.primitives import GenerationError

SCAFFOLD = engine.Scaffold.without({"physio", "shoulder", "kayak", "estuary"})


def _letters(i: int) -> str:
    return "ab" + chr(ord("a") + i)


def _draft(n: int = 12, asked: tuple[str, ...] = ("a",)) -> engine.HaystackDraft:
    topics = {"a": "the physio for the shoulder", "b": "the kayak for the estuary",
              **{f"p{i}": f"the thing called {_letters(i)}" for i in range(n)}}
    sessions = [engine.SessionDraft("a" if i == 3 else f"p{i}",
                                    [engine.Piece(f"Statement {_letters(i)} about something.")])
                for i in range(n)]
    start = datetime(2025, 3, 1, 9, 0)
    times = [start + timedelta(days=i) for i in range(n)]
    return engine.HaystackDraft("h1", sessions, topics, asked, times, times[-1] + timedelta(days=1))


def test_mentions_never_name_their_own_topic_and_hit_the_rate_exactly() -> None:
    draft = _draft(20)
    for rate in (0.0, 0.25, 0.5, 1.0):
        mentions = engine.plan_mentions(draft, rate, random.Random(4))
        assert all(m != s.topic for m, s in zip(mentions, draft.sessions))
        eligible = sum(1 for s in draft.sessions if s.topic != "a")
        asked = sum(1 for m in mentions if m == "a")
        assert abs(asked - rate * eligible) < 1, (rate, asked)


def test_rate_outside_the_unit_interval_is_refused() -> None:
    with pytest.raises(GenerationError, match="competition rate"):
        engine.plan_mentions(_draft(), 1.5, random.Random(0))


def test_render_is_deterministic_and_places_pieces_and_mentions() -> None:
    draft = _draft()
    first = engine.render(7, "forgetting", draft, 0.5, SCAFFOLD)
    again = engine.render(7, "forgetting", draft, 0.5, SCAFFOLD)
    assert first.texts() == again.texts() and first.session_ids == again.session_ids
    for index, session in enumerate(first.sessions):
        assert [t.role for t in session] == ["user", "assistant"] * draft.exchanges
        assert first.turn_of(index, 0).text.count(f"Statement {_letters(index)} about") == 1
        if first.mentions[index] == "a":
            assert "the physio for the shoulder" in " ".join(t.text for t in session).lower()


def test_tally_counts_fact_sentences() -> None:
    tally = engine.Tally()
    engine.render(7, "forgetting", _draft(), 0.5, SCAFFOLD, tally)
    stats = tally.as_stats()
    assert tally.fact_sentences == 12 and 0 < stats["fact_sentence_share"] < 0.5


def test_scaffold_without_drops_lines_that_share_reserved_words() -> None:
    word = "onions"
    assert any(word in line for line in talk.USER_TALK)
    assert not any(word in line for line in engine.Scaffold.without({word}).user)


def test_assigned_ids_are_a_permutation_that_hides_the_shape() -> None:
    records = [{"question_id": f"{shape}/{i}", "shape": shape}
               for shape in ("gold", "never") for i in range(20)]
    engine.assign_ids(records, seed=3, vertical="forgetting", abbrev="for")
    ids = [r["question_id"] for r in records]
    assert ids == [f"tme-for-{i:03d}" for i in range(1, 41)]
    first_half = {r["shape"] for r in records[:20]}
    assert first_half == {"gold", "never"}  # no id range holds one shape


def test_check_haystack_refuses_digits_dashes_and_time_disorder() -> None:
    stay = engine.render(7, "forgetting", _draft(), 0.0, SCAFFOLD)
    engine.check_haystack(stay)
    stay.sessions[0][0].text += " Room 101."
    with pytest.raises(GenerationError, match="digits"):
        engine.check_haystack(stay)
    engine.check_haystack(stay, digits_allowed=True)
    stay.sessions[0][0].text += " Wait \u2014 no."
    with pytest.raises(GenerationError, match="dashes"):
        engine.check_haystack(stay, digits_allowed=True)
    stay = engine.render(7, "forgetting", _draft(), 0.0, SCAFFOLD)
    stay.times[2] = stay.times[1]
    with pytest.raises(GenerationError, match="strictly increasing"):
        engine.check_haystack(stay)


def test_mention_takes_a_user_turn_of_its_own_when_there_is_one() -> None:
    stay = engine.render(7, "forgetting", _draft(), 1.0, SCAFFOLD)
    for index, session in enumerate(stay.sessions):
        statement_turn = stay.piece_turns[index][0]
        assert session[statement_turn].text.startswith("Statement"), session[statement_turn].text
        assert session[statement_turn].text.endswith("about something.")


def test_pinned_pieces_share_their_exchange() -> None:
    draft = _draft()
    draft.sessions[0].pieces = [engine.Piece("Could you help me choose?", "user", 2),
                                engine.Piece("I would go with the blue one.", "assistant", 2)]
    stay = engine.render(7, "forgetting", draft, 0.5, SCAFFOLD)
    assert stay.piece_turns[0] == [4, 5]
    draft.sessions[0].pieces = [engine.Piece("Out of range.", "user", 3)]
    with pytest.raises(GenerationError, match="pinned"):
        engine.render(7, "forgetting", draft, 0.5, SCAFFOLD)


def test_ids_do_not_depend_on_which_shapes_were_built() -> None:
    universe = [f"{shape}/{i}" for shape in ("gold", "never") for i in range(10)]
    every = [{"question_id": q, "was": q} for q in universe]
    engine.assign_ids(every, seed=3, vertical="forgetting", abbrev="for")
    some = [{"question_id": q, "was": q} for q in universe if q.startswith("gold")]
    engine.assign_ids(some, seed=3, vertical="forgetting", abbrev="for", universe=universe)
    final = {r["was"]: r["question_id"] for r in every}
    assert all(final[r["was"]] == r["question_id"] for r in some)
    with pytest.raises(GenerationError, match="universe"):
        engine.assign_ids([{"question_id": "x/1"}], seed=3, vertical="f", abbrev="for",
                          universe=universe)
