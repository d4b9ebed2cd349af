"""Judge revision 10 (docs/JUDGING.md J22): the classes blind sets I1 and I2 found misread, each
tested with wordings written for these tests (other names, nouns and phrasings than the sets use).
Every case in CASES was misgraded by judge revision 9; GUARDS held before and must keep holding."""

from __future__ import annotations

from pytest_typedmemeval.corpus.models import AnswerKey, NumericKey
from pytest_typedmemeval.judge.mechanical import JUDGE_RULESET_VERSION, judge_answer
from pytest_typedmemeval.judge.outcomes import Outcome

from _judge_cases import C, W, A, M, U, assert_graded, each_case

KETTLE_Q = "Which kettle did you recommend for the camper van that I did not turn down?"
KETTLE = AnswerKey(accepted=("Sorvane",), wrong=("Trelbic", "Quillon"))
INN_Q = "Which inn did you recommend for the walking weekend that I did not turn down?"
INN = AnswerKey(accepted=("Harrowgate Inn",), wrong=("Felsby Arms", "Larkmoor Lodge"))
KEYS_Q = "Who keeps the spare keys for the allotment shed now?"
KEYS = AnswerKey(accepted=("Wren Adley",), wrong=("Ossian Tarr", "Mabel Quist"))
MOWER_Q = "Which lawnmower do I have for the orchard? Give the name, and say whether that is still current."
MOWER = AnswerKey(expected_negative="still", accepted=("Grasmo",), wrong=("Verdel", "Tufton"))
OPTICIAN_Q = ("Which optician do I have for my reading glasses? Give the name, and say whether that "
              "is still current.")
OPTICIAN = AnswerKey(expected_negative="no_longer", must_name=("Ilse Varro",),
                     stale=("Ilse Varro",), wrong=("Dunstan Mere", "Cato Bryn"))
LOCKSMITH_Q = ("Which locksmith do I have for the workshop? Give the name, and say whether that is "
               "still current.")
LOCKSMITH = AnswerKey(expected_negative="no_longer", must_name=("Hale Ostrow",),
                      stale=("Hale Ostrow",), wrong=("Pim Arkwright", "Tova Lind"))
TUNER_Q = ("Which piano tuner do I have for the upright? Give the name, and say whether that is still "
           "current.")
TUNER = AnswerKey(expected_negative="still", accepted=("Oren Sallow",),
                  wrong=("Bede Farrant", "Lise Cowan"))
COURIER_Q = ("Which courier do I have for the pottery orders? Give the name, and say whether that is "
             "still current.")
COURIER = AnswerKey(expected_negative="abstain", wrong=("Ferris Dane", "Ula Brandt"))
DAYS_Q = "How many days in total were the kettle, the radio and the heater away for repair?"
DAYS = AnswerKey(numeric=NumericKey(value=27, unit="days", tolerance=0.0))
SPENT_Q = "How much did I spend at Corran Glazing altogether?"
SPENT = AnswerKey(numeric=NumericKey(value=1402.35, unit="GBP", tolerance=0.0))
BARBER_Q = "Which barber have I started using?"
BARBER = AnswerKey(accepted=("Tomas Reyl",), wrong=("Ansel Croft",))
DRESSER_Q = "Which hairdresser have I started using?"
DRESSER = AnswerKey(accepted=("Mira Ost",), wrong=("Jude Pell",))
LIST_Q = "In what order did I add names to the rota for the open garden day?"
LIST = AnswerKey(list_order=("Ossian Tarr", "Mabel Quist", "Wren Adley", "Cato Bryn"))

CASES = [
    # J22.1: decline verbs in every tense, as English (not the corpus's phrases)
    ("Sorvane — you were bypassing Trelbic, and Quillon was for your brother's flat.", KETTLE_Q,
     KETTLE, C),
    ("Sorvane (you're refusing Trelbic).", KETTLE_Q, KETTLE, C),
    ("Sorvane. You bypass Trelbic every time.", KETTLE_Q, KETTLE, C),
    ("Sorvane; you turned Trelbic away.", KETTLE_Q, KETTLE, C),
    ("Sorvane — you gave the Trelbic a miss.", KETTLE_Q, KETTLE, C),
    ("Sorvane; you didn't select Trelbic in the end.", KETTLE_Q, KETTLE, C),
    ("Sorvane, and you shelve Trelbic for now.", KETTLE_Q, KETTLE, C),
    # J22.2: a succession, "originally … then … now"
    ("Ossian Tarr held them at first, then Mabel Quist, and now it's Wren Adley.", KEYS_Q, KEYS, C),
    ("Mabel Quist had them originally, then Ossian Tarr, and these days Wren Adley.", KEYS_Q,
     KEYS, C),
    # J22.3: another holder named in a clause of its own (J13.5)
    ("For your own walking weekend I suggested Harrowgate Inn. (Felsby Arms came up too, but that "
     "was for your dad.)", INN_Q, INN, C),
    ("Harrowgate Inn, though your partner booked Larkmoor Lodge for theirs.", INN_Q, INN, C),
    # J22.4: a negated claim of evidence, without "that"
    ("There's no sign you replaced the Grasmo, so it still mows the orchard.", MOWER_Q, MOWER, C),
    ("Nothing to suggest you sold the Grasmo; it's still current.", MOWER_Q, MOWER, C),
    ("There's no indication you replaced the Grasmo — it's still yours.", MOWER_Q, MOWER, C),
    ("You haven't replaced the Grasmo, so it's still current.", MOWER_Q, MOWER, C),
    # J22.5: a time ("for a while") is no other item; the value's lapse is the invalidation
    ("Ilse Varro fitted your reading glasses for a few years, but you let her go, so she isn't your "
     "optician now.", OPTICIAN_Q, OPTICIAN, C),
    ("Hale Ostrow changed the locks for a while but you moved on from him, so he's not current.",
     LOCKSMITH_Q, LOCKSMITH, C),
    # J22.6: a total field; working that concludes
    ('{"kettle": 5, "radio": 10, "heater": 12, "total_days": 27}', DAYS_Q, DAYS, C),
    ("kettle: 5, radio: 10, heater: 12, sum_of_days: 27", DAYS_Q, DAYS, C),
    ("£402.10 + £600.00 + £400.25 adds up to £1,402.35.", SPENT_Q, SPENT, C),
    ("£402.10, £600.00 and £400.25 come to £1,402.35.", SPENT_Q, SPENT, C),
    # J22.7: a two-word kind stays whole; a compound kind's thing binds
    ("You haven't told me about a courier — only your pottery tutor (Ferris Dane).", COURIER_Q,
     COURIER, C),
    ("You went to Jude Pell for your hair.", DRESSER_Q, DRESSER, W),
    # J22.3: another holder's value alone is about that holder, not read (J13.5, J21.7)
    ("Felsby Arms, but that was for your dad.", INN_Q, INN, U),
    # J22.9: a count names no kind, and "the first three" puts no item first
    ("Ossian Tarr, Mabel Quist and Wren Adley were the first three.", LIST_Q, LIST, W),
    # J22.8: "previous" is "former" as an adjective (J5)
    ("Your previous piano tuner was Oren Sallow.", TUNER_Q, TUNER, M),
]

GUARDS = [
    # the only value, marked declined, is still the answer (J13.6)
    ("You bypassed Trelbic.", KETTLE_Q, KETTLE, W),
    ("Trelbic.", KETTLE_Q, KETTLE, W),
    ("Sorvane and Trelbic.", KETTLE_Q, KETTLE, W),
    # "drop off" is no decline
    ("Sorvane, and I'll drop off Trelbic's leaflet.", KETTLE_Q, KETTLE, W),
    # a sequence with no present value is not read as a succession
    ("Ossian Tarr, then Wren Adley.", KEYS_Q, KEYS, W),
    # ", though" ends a segment, yet a clause naming a relation's thing still annotates its value
    ("Felsby Arms, though that's your dad's local.", INN_Q, INN, U),
    # a total written as a conclusion was already read
    ("total = 27 (kettle 5, radio 10, heater 12)", DAYS_Q, DAYS, C),
    ("Sorvane; you never favoured Trelbic.", KETTLE_Q, KETTLE, C),
    # a full list in order, and an inversion
    ("Ossian Tarr, Mabel Quist, Wren Adley and Cato Bryn.", LIST_Q, LIST, C),
    ("Mabel Quist, Ossian Tarr, Wren Adley and Cato Bryn.", LIST_Q, LIST, W),
    # an asserted replacement still invalidates; a record-decline stays a decline
    ("You replaced the Grasmo.", MOWER_Q, MOWER, M),
    ("There's no record of what you mow with now.", MOWER_Q, MOWER, A),
    # the value named with no cue on a still question
    ("Oren Sallow tunes the upright.", TUNER_Q, TUNER, C),
    ("Your piano tuner was Oren Sallow, and still is.", TUNER_Q, TUNER, C),
    # "in a previous chat" is the telling's time, not the value's
    ("Oren Sallow, as you said in a previous chat.", TUNER_Q, TUNER, C),
    # a real range stays two figures; a figure alone is read
    ("Between 25 and 27 days.", DAYS_Q, DAYS, W),
    ('{"kettle": 5, "radio": 10, "heater": 12}', DAYS_Q, DAYS, W),
    ("27 days.", DAYS_Q, DAYS, C),
    # J7.1/J7.2 (J22.6): a lone figure in another currency is another quantity, no conversion
    ("$1,402.35 altogether.", SPENT_Q, SPENT, W),
    # a kind of its own still binds the value away ("for your beard" on a hairdresser question
    # names no hairdresser; "booked" is no "book")
    ("Ansel Croft is your barber.", BARBER_Q, BARBER, W),
]


@each_case(CASES)
def test_revision_10_reads_the_class(answer: str, question: str, key: AnswerKey,
                                     outcome: Outcome) -> None:
    assert_graded(answer, question, key, outcome)


@each_case(GUARDS)
def test_revision_10_keeps_what_held(answer: str, question: str, key: AnswerKey,
                                     outcome: Outcome) -> None:
    assert_graded(answer, question, key, outcome)


def test_previous_marks_over_forgetting() -> None:
    """J22.8: "your previous X was <gold>" on a still-valid question claims the gold gone."""
    verdict = judge_answer("Your previous piano tuner was Oren Sallow.", TUNER, question=TUNER_Q)
    assert sorted(verdict.subcounts) == ["over_forgetting"], verdict.reason


def test_ruleset_version() -> None:
    assert JUDGE_RULESET_VERSION == "10"
