"""Judge revision 8 (docs/JUDGING.md J20): the classes blind sets G1 and G2 and the real-model sets
real2 and real3 found misread, each tested with wordings written for these tests (other names,
nouns and phrasings than the sets use). Every case in CASES was misgraded by judge revision 7;
GUARDS held before and must keep holding."""

from __future__ import annotations

from pytest_typedmemeval.corpus.models import AnswerKey
from pytest_typedmemeval.judge.mechanical import JUDGE_RULESET_VERSION, judge_answer
from pytest_typedmemeval.judge.outcomes import Outcome

from _judge_cases import C, W, A, M, P, U, assert_graded, each_case

TUTOR_Q = "Who is my piano tutor? Give the name, and say whether that is still current."
TUTOR = AnswerKey(expected_negative="no_longer", must_name=("Ysolde Marrick",),
                  stale=("Ysolde Marrick",), wrong=("Benedikt Sorrel", "Aurel Pask"))
KAYAK_Q = "Which kayak do I have for the estuary? Give the name, and say whether that is still current."
KAYAK = AnswerKey(expected_negative="no_longer", must_name=("Tessaro",), stale=("Tessaro",),
                  wrong=("Ombrel", "Quintar"))
CATERER_Q = "Have I booked a caterer for the christening yet?"
CATERER = AnswerKey(expected_negative="not_yet", must_name=("Fenwick Larder",),
                    premature=("Fenwick Larder",), wrong=("Mossley Kitchen",))
BROADBAND_Q = "Which broadband provider have I moved to?"
BROADBAND = AnswerKey(accepted=("Telvane",), wrong=("Corrix", "Halden Fibre"))
ROOFER_Q = "Which roofer have I hired?"
ROOFER = AnswerKey(accepted=("Gillow Roofing",), wrong=("Pruett Joinery", "Ashby Roofing"))
DRYER_Q = "Which tumble dryer have I bought?"
DRYER = AnswerKey(accepted=("Velmore",), wrong=("Drisk", "Quorra"))
GYM_Q = "Which gym have I joined?"
GYM = AnswerKey(accepted=("Corefit",), wrong=("Pulse Works",))
RECOMMENDED_Q = "Which florist did you recommend for the wedding that I did not turn down?"
RECOMMENDED = AnswerKey(accepted=("Bramble & Bloom",), wrong=("Petal Yard", "Stemhouse"))
PLUMBER_Q = "Which plumber did you recommend for the boiler that I did not turn down?"
PLUMBER = AnswerKey(accepted=("Ferris Plumbing",), wrong=("Kell Plumbing",))
WHO_Q = "Which of us mentioned that the bakery changed its hours: me or you or both of us?"
WHO = AnswerKey(accepted=("me",), choices=("me", "you", "both of us"))
DUE_Q = "Is my reminder about the boiler service due yet, and whom was I to call?"
DUE = AnswerKey(expected_negative="not_yet", must_name=("Ferris Plumbing",),
                premature=("Ferris Plumbing",), wrong=("Kell Plumbing",))

CASES = [
    # J20.1 a restated question asserts no polarity; the not-yet after it governs
    ("Have you booked anyone to cater the christening? Not yet — you meant to book Fenwick Larder.",
     CATERER_Q, CATERER, C),
    # J20.3 (J19.3 generalised) a past value beside a present-state decline in other wh-words
    ("Ysolde Marrick used to teach you, but I can't say whom you're learning with now.", TUTOR_Q,
     TUTOR, A),
    ("Tessaro used to be yours, though I'm not sure whose kayak you use these days.", KAYAK_Q,
     KAYAK, A),
    # J20.4 contrast: "moved off / came off X"
    ("Telvane — you came off Corrix to join them.", BROADBAND_Q, BROADBAND, C),
    # J20.4 the asked kind named only as what the other value is not
    ("Gillow Roofing. (Pruett Joinery is your carpenter, not the roofer.)", ROOFER_Q, ROOFER, C),
    # J20.5 "No <asked kind>." / "No <asked kind> was <done>." deny
    ("No tumble dryer was bought.", DRYER_Q, DRYER, M),
    ("No gym.", GYM_Q, GYM, M),
    # J20.8 the question's own negated premise restated, a negation in a relative clause
    ("You did not turn down the florist I suggested.", RECOMMENDED_Q, RECOMMENDED, U),
    ("You didn't turn down the plumber that you did not like.", PLUMBER_Q, PLUMBER, U),
    # J20.9 a future inability declines; J20.10 "not available" of a thing does not
    ("I won't be able to give you that information.", GYM_Q, GYM, A),
    ("The florist you wanted was not available.", RECOMMENDED_Q, RECOMMENDED, U),
    # J20.11 a quoted decline after a task narration is the narrated response
    ('You have been asked to answer a question about the chats. Your reply should be "I do not '
     'know."', DUE_Q, DUE, U),
    # J20.12 a negated speaker names no one
    ("You did not give an answer to the question.", WHO_Q, WHO, U),
]

GUARDS = [
    # J12: a yes with another key value on a before-arm stays premature (polarity decides first)
    ("You booked Mossley Kitchen for the christening.", CATERER_Q, CATERER, P),
    ("Yes, it's due now: call Kell Plumbing.", DUE_Q, DUE, P),
    # J20.6 stale recall needs the gold asserted current; a gold invalidated keeps none
    ("You sold the Ombrel, and now you have the Tessaro.", KAYAK_Q, KAYAK, W),
    ("You sold the Tessaro, and now you have the Ombrel.", KAYAK_Q, KAYAK, W),
    # J19.3 guards: a decline about a successor, a hedge before the value
    ("Ysolde Marrick, but you quit the lessons; I don't know if you have a new tutor now.",
     TUTOR_Q, TUTOR, C),
    ("I'm not sure, but probably Ysolde Marrick, and I think you stopped going.", TUTOR_Q, TUTOR, C),
    # "no" forms that are not denials of the asked kind
    ("No idea.", GYM_Q, GYM, A),
    ("No information on a gym.", GYM_Q, GYM, A),
    ("No worries.", GYM_Q, GYM, U),
    ("No gym yet.", CATERER_Q, CATERER, M),
    # the answer's own denial and telling stay denials; "not available" of the record declines
    ("You never told me which gym.", GYM_Q, GYM, M),
    ("That information is not available.", GYM_Q, GYM, A),
    ("I am not able to say.", GYM_Q, GYM, A),
    # a plain decline (unquoted) after a narration is still the answer's decline
    ("You are asked to answer a question. I do not have that information.", GYM_Q, GYM, A),
    # speakers that are affirmed still count
    ("You did — you mentioned it.", WHO_Q, WHO, C),
    ("It wasn't me, you said it.", WHO_Q, WHO, C),
    # a plain question-free not-yet and a plain yes
    ("Not yet; you meant to book Fenwick Larder.", CATERER_Q, CATERER, C),
    ("Yes, you booked Fenwick Larder.", CATERER_Q, CATERER, P),
]


@each_case(CASES)
def test_revision_8_reads_the_class(answer: str, question: str, key: AnswerKey,
                                    outcome: Outcome) -> None:
    assert_graded(answer, question, key, outcome)


@each_case(GUARDS)
def test_revision_8_keeps_what_held(answer: str, question: str, key: AnswerKey,
                                    outcome: Outcome) -> None:
    assert_graded(answer, question, key, outcome)


def test_the_stale_value_asserted_beside_another_values_invalidation_is_stale_recall() -> None:
    """J20.6: "You sold the Ombrel, and now you have the Tessaro" offers the stale gold as current."""
    verdict = judge_answer("You got rid of the Quintar, and these days you paddle the Tessaro.",
                           KAYAK, question=KAYAK_Q)
    assert (verdict.outcome, sorted(verdict.subcounts)) == (W, ["stale_recall"]), verdict.reason


def test_ruleset_version() -> None:
    assert int(JUDGE_RULESET_VERSION) >= 8
