"""The revision-3 renderer (generate/conversation.py): gold-blind episodes that respond."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

import pytest

from pytest_typedmemeval.generate import conversation as c
from pytest_typedmemeval.generate import talk
from pytest_typedmemeval.generate.primitives import GenerationError

BOILER = "the boiler at the cottage"


def _statement(value: str, topic: str = BOILER, **kw: object) -> c.Statement:
    return c.Statement(f"I have set a reminder to call {value} about {topic} in nine weeks.", topic,
                       **kw)  # type: ignore[arg-type]


def _plan(sessions: list[list[c.Statement]]) -> c.HaystackPlan:
    start = datetime(2025, 3, 1, 9, 0)
    times = [start + timedelta(days=i) for i in range(len(sessions))]
    return c.HaystackPlan("h", sessions, times, times[-1] + timedelta(days=2),
                          c.draw_persona(random.Random(1)), c.banned_words([BOILER]))


def test_every_fixed_line_keeps_the_scaffold_rules() -> None:
    lines = (*c.ACKNOWLEDGEMENTS, *c.TRANSITIONS, *c.REQUEST_REACTIONS, *c.ASSISTANT_CLOSES,
             *(line for lines in c.GENERIC_CLOSES.values() for line in lines))
    assert {line: talk.problems(line) for line in lines if talk.problems(line)} == {}


def test_sessions_alternate_and_name_the_turn_of_each_statement() -> None:
    sessions = [[_statement("Harriet Colby")], [], [_statement("Tomas Rendle"),
                                                     _statement("Anya Ashdown", "the roof at the chapel")]]
    stay = c.render_haystack(7, "prospective", _plan(sessions))
    for turns in stay.sessions:
        assert [t.role for t in turns] == ["user", "assistant"] * (len(turns) // 2)
    for s, statements in enumerate(sessions):
        for i, statement in enumerate(statements):
            assert statement.text in stay.sessions[s][stay.piece_turns[s][i]].text


def test_rendering_is_deterministic_and_seeded() -> None:
    sessions = [[_statement("Harriet Colby")], [_statement("Tomas Rendle")]]
    a = c.render_haystack(7, "prospective", _plan(sessions)).texts()
    assert a == c.render_haystack(7, "prospective", _plan(sessions)).texts()
    assert a != c.render_haystack(8, "prospective", _plan(sessions)).texts()


def test_a_lead_never_names_a_topic_before_it_is_introduced() -> None:
    """Across many renders, an assistant turn naming the topic never precedes its first statement."""
    for seed in range(60):
        sessions = [[], [_statement("Harriet Colby")], [_statement("Tomas Rendle")], []]
        stay = c.render_haystack(seed, "prospective", _plan(sessions))
        first = next((s, t) for s, turns in enumerate(stay.sessions) for t, turn in enumerate(turns)
                     if BOILER in turn.text)
        turn = stay.sessions[first[0]][first[1]]
        assert turn.role == "user" and "reminder" in turn.text, (seed, turn.text)


def test_a_later_episode_opens_by_changing_the_subject() -> None:
    """Every user turn that opens a session's second or third episode, and answers no lead, starts
    with an acknowledgement and a transition."""
    openings = 0
    for seed in range(40):
        stay = c.render_haystack(seed, "prospective", _plan([[_statement("Harriet Colby")], []]))
        for turns in stay.sessions:
            for index in range(2, len(turns), 2):
                text = turns[index].text
                after_close = not turns[index - 1].text.endswith("?")
                if after_close and not text.startswith(("Yes", "Oh, yes", "Sort of")):
                    openings += 1
                    assert text.startswith(c.ACKNOWLEDGEMENTS), text
    assert openings > 10


def test_statement_contract_is_checked() -> None:
    with pytest.raises(GenerationError, match="request"):
        c.Statement("I would suggest Zentra.", "the kettle", role="assistant")
    with pytest.raises(GenerationError, match="holder"):
        c.Statement("My sister booked Tomas Rendle.", "the kiln", stance="other")


def test_a_trailing_statement_follows_the_others_and_leaves_their_place_as_if_alone() -> None:
    """``Statement.trails``: the episode comes after every other statement episode of its session,
    and the first statement opens its session as often as it does alone (WorkingMemory: with both
    episodes shuffled, the shared sentence of a suggestion session followed another episode half
    the time against a fifth elsewhere, and the form reader's episode view read the lead-in)."""
    weights = ((0, 0.6), (1, 0.4))
    first_alone = first_with = 0
    runs = 2000
    for i in range(runs):
        alone = c.render_session(random.Random(i), [_statement("Harriet Colby")],
                                 c.draw_persona(random.Random(1)), frozenset(), small_talk=weights)
        first_alone += alone.statement_turns[0] == 0
        trailing = c.Statement("Ottoline Prew is a name people mention.", "the roof at the chapel",
                               "assistant-offer-declined", role="assistant",
                               request="Which roofer do people like?", trails=True)
        both = c.render_session(random.Random(i), [_statement("Harriet Colby"), trailing],
                                c.draw_persona(random.Random(1)), frozenset(), small_talk=weights)
        assert both.statement_turns[0] < both.statement_turns[1]
        first_with += both.statement_turns[0] == 0
    assert abs(first_alone - first_with) / runs < 0.04
    assert 0.75 < first_alone / runs < 0.85


def test_without_a_trailing_statement_the_draws_are_unchanged() -> None:
    """The default shuffles every episode as before: other verticals' bytes do not move."""
    statements = [_statement("Harriet Colby"), _statement("Anya Ashdown", "the roof at the chapel")]
    persona = c.draw_persona(random.Random(1))
    rendered = c.render_session(random.Random(3), statements, persona, frozenset())
    rng = random.Random(3)
    small = c._weighted(rng, c.SMALL_TALK_WEIGHTS)
    kinds: list[int | None] = [0, 1, *([None] * min(small, 1))]
    rng.shuffle(kinds)
    assert [k for k in kinds if k is not None] == sorted(
        range(2), key=lambda k: rendered.statement_turns[k])
