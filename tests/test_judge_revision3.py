"""Judge revision 3 (docs/JUDGING.md J13, issue 21): each class of answer the outside batteries and
a small real model found misread. Every case here was misgraded by judge revision 2."""

from __future__ import annotations

import pytest

from pytest_typedmemeval.corpus.models import AnswerKey, NumericKey
from pytest_typedmemeval.judge.mechanical import judge_answer
from pytest_typedmemeval.judge.outcomes import Outcome

from _judge_cases import C, W, A, M, U, case_ids

SOFA = AnswerKey(accepted=("Velique",), wrong=("Velora", "Styix", "Zamora Hardware"))
BUILDERS = AnswerKey(accepted=("Zamora Hardware",), wrong=("Chilcott Hardware", "Emrys Jaggard",
                                                           "Quillon Kinsella"))
NEVER = AnswerKey(expected_negative="abstain", wrong=("Triique", "Oraora"))
CURRENT = AnswerKey(accepted=("Emrys Kinsella",), stale=("Casimir Saltonstall",),
                    wrong=("Emrys Mortlake", "Anya Radcliffe"))
LAPSED = AnswerKey(expected_negative="no_longer", must_name=("Lorcan Farquhar",),
                   stale=("Lorcan Farquhar",), wrong=("Anya Mottram",))
SOLD = AnswerKey(expected_negative="no_longer", must_name=("Triique",), stale=("Triique",),
                 wrong=("Oraora",))
STILL = AnswerKey(expected_negative="still", accepted=("Oraella",), wrong=("Velex",))
SQUAD = AnswerKey(list_order=("Greta Eastwick", "Vesna Vickery", "Leopold Garrick",
                              "Malvina Esterhazy"), wrong=("Orla Kettering",))
WHO = AnswerKey(accepted=("you",), choices=("me", "you", "both of us"))
USER = AnswerKey(accepted=("me",), choices=("me", "you", "both of us"))
DELTA = AnswerKey(numeric=NumericKey(value=132.14, unit="GBP"))
DELTA_QUESTION = "How much more did I spend at Radcliffe Electrics than at Penhaligon Electrics?"
BROADBAND = AnswerKey(expected_negative="still", accepted=("Acme Broadband",), wrong=("Beta Net",))

CASES = [
    # J13.1 declines worded as missing information, "we" declines, "hasn't come up"
    ("That detail isn't in my memory.", SOFA, A),
    ("There isn't enough information in our conversations to say.", SOFA, A),
    ("The information provided is not enough to answer this question.", SOFA, A),
    ("The information provided is not enough.", NEVER, C),
    ("The question cannot be answered from the conversation.", SOFA, A),
    ("This question is unanswerable.", SOFA, A),
    ("That hasn't come up between us.", SOFA, A),
    ("That hasn't come up between us.", NEVER, C),
    ("We did not have that information.", SOFA, A),
    # J13.2 hedged denials
    ("I don't think you ever told me which one you picked out.", SOFA, M),
    ("I don't believe you've told me about a thatcher for the cottage.", NEVER, C),
    ("It doesn't look like you've mentioned a sofa.", SOFA, M),
    # J13.3 quoted declines and a value retracted into a decline
    ('That is not the same as saying, "I do not have that information." It is Gorwick.', NEVER, U),
    ("Velique \u2014 no, sorry, I don't actually know.", SOFA, A),
    # J13.4 a hedge across a dash commits
    ("I'm not certain \u2014 possibly Velique.", SOFA, C),
    # J13.6 context is not a second commitment
    ("Emrys Kinsella, who took over from Casimir Saltonstall on about 21 December.", CURRENT, C),
    # J13.8 lapses in other words; a negated invalidation
    ("Lorcan Farquhar's cover was only good until 20 March, so it doesn't cover you now.", LAPSED, C),
    ("Your cover was with Lorcan Farquhar, but it's finished now.", LAPSED, C),
    ("The Triique \u2014 though you mentioned selling it, so it's not your dehumidifier now.", SOLD, C),
    ("Oraella, still current, nothing was cancelled.", STILL, C),
    # J13.9 speaker glosses; "just" is transparent
    ("It was you \u2014 the assistant.", WHO, C),
    ("I think it was you (the assistant).", WHO, C),
    ("Just you.", WHO, C),
    ("It was just you.", USER, C),
    # J13.11 list narrations
    ("Working backwards: Malvina Esterhazy was added last, Leopold Garrick before that, Vesna "
     "Vickery before that, and Greta Eastwick first.", SQUAD, C),
    ("First Greta Eastwick, last Malvina Esterhazy, and in between Vesna Vickery then Leopold "
     "Garrick.", SQUAD, C),
    ("First Malvina Esterhazy, then Greta Eastwick, Vesna Vickery and Leopold Garrick.", SQUAD, W),
    # J13.13 name forms: unambiguous partial forms count, ambiguous or common-noun ones do not
    ("Kinsella looks after it now.", CURRENT, C),
    ("Emrys looks after it.", CURRENT, U),
    ("Zamora.", BUILDERS, C),
    ("You don't have broadband.", BROADBAND, M),
]


@pytest.mark.parametrize(("answer", "key", "outcome"), CASES, ids=case_ids(CASES))
def test_revision_3_reads_the_class(answer: str, key: AnswerKey, outcome: Outcome) -> None:
    verdict = judge_answer(answer, key)
    assert verdict.outcome is outcome, verdict.reason


@pytest.mark.parametrize(("answer", "outcome"), [
    ("You spent \u00a3132.14 more at Penhaligon Electrics than at Radcliffe Electrics.", W),
    ("You spent \u00a3132.14 less at Radcliffe Electrics than at Penhaligon Electrics.", W),
    ("You spent \u00a3132.14 more at Radcliffe Electrics than at Penhaligon Electrics.", C),
    ("\u00a3132.14.", C),
])
def test_the_direction_of_a_difference_is_read_from_the_question(answer: str,
                                                                 outcome: Outcome) -> None:
    """J13.12: the figure stated the other way round commits to the opposite difference."""
    assert judge_answer(answer, DELTA, question=DELTA_QUESTION).outcome is outcome


@pytest.mark.parametrize("answer", [
    "user: It took a while, but I have picked out a sofa, Velique, and I do not regret it.\n"
    "assistant: So that is the story with the sofa.",
    "**User:** I have picked out a sofa, Velique.",
])
def test_an_echo_of_conversation_turns_is_unjudged_never_correct(answer: str) -> None:
    """J13.7: role-labelled turns are a quote of the conversation, not the answer's claim."""
    verdict = judge_answer(answer, SOFA)
    assert verdict.outcome is U and "echo" in verdict.reason


def test_an_answer_beside_an_echo_is_read_without_it() -> None:
    answer = "user: My sister has picked out Velora.\nYou picked out Velique."
    assert judge_answer(answer, SOFA).outcome is C


# --- list order over the surfaced items: its own figure, never the verdict (issue 21, item 3) ------

SURFACED_TWO = frozenset({"Greta Eastwick", "Leopold Garrick"})


@pytest.mark.parametrize(("answer", "surfaced", "expected"), [
    # two surfaced items in gold order: consistent, though the verdict is wrong (items missing)
    ("Greta Eastwick, then Leopold Garrick.", SURFACED_TWO, True),
    ("Leopold Garrick, then Greta Eastwick.", SURFACED_TWO, False),
    # unsurfaced items are not read; a backwards narration is read as stated
    ("Malvina Esterhazy, Greta Eastwick, Vesna Vickery, Leopold Garrick.", SURFACED_TWO, True),
    ("Working backwards: Leopold Garrick last, Greta Eastwick before that.", SURFACED_TWO, True),
    # nothing to order
    ("Greta Eastwick.", SURFACED_TWO, None),
    ("Greta Eastwick, then Leopold Garrick.", None, None),
    ("I don't know.", SURFACED_TWO, None),
])
def test_surfaced_order_is_read_as_stated_and_never_raises_the_verdict(
        answer: str, surfaced: frozenset[str] | None, expected: bool | None) -> None:
    from pytest_typedmemeval.judge.mechanical import surfaced_order_consistent

    assert surfaced_order_consistent(answer, SQUAD, surfaced) is expected
    # the evidence never moves the verdict: a consistent partial list stays wrong
    verdict = judge_answer(answer, SQUAD, surfaced_items=surfaced)
    assert verdict == judge_answer(answer, SQUAD)
    if expected and answer.startswith("Greta"):
        assert verdict.outcome is Outcome.WRONG
