"""Judge revision 7 (docs/JUDGING.md J19): the classes blind sets F1 and F2 found misread, each
tested with wordings written for these tests (other names, nouns and phrasings than the blind
sets use). Every case in CASES was misgraded by judge revision 6; GUARDS held before and must keep
holding."""

from __future__ import annotations

from pytest_typedmemeval.corpus.models import AnswerKey
from pytest_typedmemeval.judge.mechanical import JUDGE_RULESET_VERSION
from pytest_typedmemeval.judge.outcomes import Outcome

from _judge_cases import C, W, A, M, U, assert_graded, each_case

GLAZIER_Q = "Which glazier do I have for the conservatory? Give the name, and say whether that is still current."
GLAZIER = AnswerKey(expected_negative="abstain", wrong=("Brannock Glass", "Tibbet Glazing", "Orlix"))
MOVER_Q = "Which courier have I arranged?"
MOVER = AnswerKey(accepted=("Pennard Couriers",), wrong=("Halloway Couriers", "Drumlin Express"))
LENDER_Q = "Which bank did I take the loan from?"
LENDER = AnswerKey(accepted=("Caldrix",), wrong=("Venmora", "Ostrel"))
TUTOR_Q = "Who is my piano tutor? Give the name, and say whether that is still current."
TUTOR = AnswerKey(expected_negative="no_longer", must_name=("Ysolde Marrick",),
                  stale=("Ysolde Marrick",), wrong=("Benedikt Sorrel", "Aurel Pask"))
CATERER_Q = "Is the caterer booked for the christening yet, and who is it?"
CATERER = AnswerKey(expected_negative="not_yet", must_name=("Fenwick Larder",),
                    premature=("Fenwick Larder",), wrong=("Mossley Kitchen",))

BOARD_Q = "Which paddleboard do I have? Give the name, and say whether that is still current."
BOARD = AnswerKey(expected_negative="still", accepted=("Quorrin",), wrong=("Velmara", "Drisk"))

LANDLADY_Q = "Which landlady have I been renting from?"
LANDLADY = AnswerKey(accepted=("Perpetua Hallam",), wrong=("Corisande Hallam", "Winifred Oake"))

SQUAD_Q = "In what order did I add the players to the quiz team?"
SQUAD = AnswerKey(list_order=("Odo Venn", "Priya Hale", "Tomas Reed"))

CASES = [
    # J19.8 the system lacks the asked answer itself: a decline
    ("I don't hold the running order of the quiz team.", SQUAD_Q, SQUAD, A),
    # "before her X" in a narration is an order, not an owner
    ("Tomas Reed was the last one. Before her Priya Hale, and Odo Venn was the first.", SQUAD_Q,
     SQUAD, C),
    # J19.7 "her" as an object pronoun is no owner; a person in another role is not the answer
    ("Ysolde Marrick taught you piano, but you let her go.", TUTOR_Q, TUTOR, C),
    ("Pennard Couriers; Drumlin Express is who suggested them to you.", MOVER_Q, MOVER, C),
    # J19.5 a not-yet about the exchange is a meta-sentence, not a pending state
    ("This is a question about a glazier. You haven't replied to it yet.", GLAZIER_Q, GLAZIER, U),
    # J19.6 the time of a telling is not another time; the asked relation is the asked holder
    ("Going by what you mentioned weeks ago, your landlady is Perpetua Hallam.", LANDLADY_Q,
     LANDLADY, C),
    # J19.4 another time / the user's act gone the other way, in more wordings
    ("You went with Caldrix; your previous bank was Venmora.", LENDER_Q, LENDER, C),
    ("You moved over from Ostrel to Caldrix, so Caldrix holds the loan now.", LENDER_Q, LENDER, C),
    ("You ditched Ostrel early on and signed with Caldrix.", LENDER_Q, LENDER, C),
    # J19.1 a subject-less not-yet ("nothing's been …", "no one has been … so far") on never-known
    ("Nothing's been fitted yet in the conservatory.", GLAZIER_Q, GLAZIER, W),
    ("Nothing has been ordered for the conservatory so far.", GLAZIER_Q, GLAZIER, W),
    ("No one's been hired for the windows as yet.", GLAZIER_Q, GLAZIER, W),
    # J19.2 a governing not-yet with the value bound only to a plan or an open choice: missed
    ("Nothing's booked yet; you said you'd phone Pennard Couriers.", MOVER_Q, MOVER, M),
    ("You haven't arranged one so far — you were planning to use Pennard Couriers.", MOVER_Q,
     MOVER, M),
    ("You haven't signed with a bank yet; you were still weighing up Venmora and Ostrel.",
     LENDER_Q, LENDER, M),
    # J19.1 on a before-arm: "nothing … so far" is the not-yet, the planned value named
    ("Nothing's been confirmed so far; Fenwick Larder is the one you said you'd book.",
     CATERER_Q, CATERER, C),
    # J19.3 a marked past value beside a decline about the present is context: the decline
    ("Ysolde Marrick used to take your lessons, but I can't say who teaches you now.", TUTOR_Q,
     TUTOR, A),
]

GUARDS = [
    # a decline about a successor leaves the invalidation standing (J19.3)
    ("Ysolde Marrick, but you quit the lessons; I don't know if you have a new tutor now.",
     TUTOR_Q, TUTOR, C),
    # a dropped gold on an invalidated question: the invalidation follows the value (J19.4)
    ("You took Ysolde Marrick on for lessons; later you ditched Ysolde Marrick, so no one is "
     "current.", TUTOR_Q, TUTOR, C),
    ("Odo Venn, then Priya Hale, then Tomas Reed.", SQUAD_Q, SQUAD, C),
    ("I don't have a clue about the order.", SQUAD_Q, SQUAD, A),
    # a possessive "her" still names another holder; a recommender alone is still the answer
    ("Her courier is Pennard Couriers.", MOVER_Q, MOVER, U),
    ("Drumlin Express is the one who recommended it to you.", MOVER_Q, MOVER, W),
    # a relation that is not the asked one is still another holder
    ("Your sister's landlady is Winifred Oake.", LANDLADY_Q, LANDLADY, U),
    # J19.4 the dropped value is still claimed gone on a still-valid control (state cues follow
    # their value); a value alone keeps being the answer
    ("You ditched Quorrin and moved on to Velmara.", BOARD_Q, BOARD, W),
    ("Your previous bank was Venmora.", LENDER_Q, LENDER, W),
    # true denials and declines on never-known stay correct
    ("Nothing about a glazier came up.", GLAZIER_Q, GLAZIER, C),
    ("You never told me about a glazier.", GLAZIER_Q, GLAZIER, C),
    ("No glazier has been mentioned so far.", GLAZIER_Q, GLAZIER, C),
    ("You haven't told me about a glazier yet.", GLAZIER_Q, GLAZIER, C),
    # a value committed before the not-yet, or without a plan marker, is still the answer
    ("You arranged Pennard Couriers.", MOVER_Q, MOVER, C),
    ("Pennard Couriers; nothing else is booked yet.", MOVER_Q, MOVER, C),
    ("Not yet, you're due to call Fenwick Larder.", CATERER_Q, CATERER, C),
    # the invalidation acknowledged, and a hedge before the value, still commit
    ("Ysolde Marrick, but you stopped the lessons, so that's no longer current.", TUTOR_Q, TUTOR, C),
    ("I'm not sure, but probably Ysolde Marrick, and I think you stopped going.", TUTOR_Q, TUTOR, C),
    ("Ysolde Marrick, though you quit the lessons. I don't have a newer tutor on record.", TUTOR_Q,
     TUTOR, C),
]


@each_case(CASES)
def test_revision_7_reads_the_class(answer: str, question: str, key: AnswerKey,
                                    outcome: Outcome) -> None:
    assert_graded(answer, question, key, outcome)


@each_case(GUARDS)
def test_revision_7_keeps_what_held(answer: str, question: str, key: AnswerKey,
                                    outcome: Outcome) -> None:
    assert_graded(answer, question, key, outcome)


def test_ruleset_version() -> None:
    assert int(JUDGE_RULESET_VERSION) >= 7
