"""Judge revision 4 (docs/JUDGING.md J13.5, J13.6, J13.1, J13.13, J13.15–J13.17; issue 21): the
classes the blind sets D1 and D2 found misread, each tested with wordings written for these tests
(other names, nouns and phrasings than the blind sets use), so a rule that only matched the blind
authors' phrases fails here. Every case was misgraded by judge revision 3."""

from __future__ import annotations

from pytest_typedmemeval.corpus.models import AnswerKey, NumericKey
from pytest_typedmemeval.judge.mechanical import judge_answer
from pytest_typedmemeval.judge.outcomes import Outcome

from _judge_cases import C, W, A, M, U, assert_graded, each_case

CATERER_Q = "Which caterer did you recommend for the garden party that I did not turn down?"
CATERER = AnswerKey(accepted=("Hollis Catering",),
                    wrong=("Brambly Catering", "Quenby Catering", "Marsh Catering"))
KETTLE_Q = "Which kettle have I bought?"
KETTLE = AnswerKey(accepted=("Zephra",), wrong=("Morvane", "Tillex", "Corvo"))
CARER_Q = "Who was looking after the greenhouse at the allotment nine days ago?"
CARER = AnswerKey(accepted=("Ottilie Brannock",), stale=("Hugo Pennick",),
                  premature=("Saffi Delane",))
FARRIER_Q = "Which farrier do I have for the pony? Give the name, and say whether that is still current."
FARRIER = AnswerKey(expected_negative="abstain", wrong=("Perrin Hollow", "Gwilym Astley", "Korvex"))
STILL_Q = "Which kettle do I have for the boat? Give the name, and say whether that is still current."
STILL = AnswerKey(expected_negative="still", accepted=("Zephra",), wrong=("Tillex", "Corvo"))
WALKER_Q = "Which dog walker do I have for the terrier? Give the name, and say whether that is still current."
WALKER = AnswerKey(expected_negative="no_longer", must_name=("Cassia Lund",), stale=("Cassia Lund",),
                   wrong=("Bryn Talley",))
GLAZIER_Q = "Which glazier have I settled on?"
GLAZIER = AnswerKey(accepted=("Thornbury Glazing",), wrong=("Aldous Glazing", "Penrose Roofing"))
ROOFER_Q = "Which roofer do I have for the chapel? Give the name, and say whether that is still current."
ROOFER = AnswerKey(expected_negative="still", accepted=("Isak Penrose",), wrong=("Mabel Quist",))
PLAN_Q = "From what I have told you, have I booked anyone for the gutters at the mill yet?"
PLAN = AnswerKey(expected_negative="abstain", must_name=("Dunstan Weir",))
DAYS_Q = "How many days in total were the kayak, the tent and the stove out on loan?"
DAYS = AnswerKey(numeric=NumericKey(value=40, unit="days"))
WHO_Q = "Which of us observed that the ferry timetable had changed: me or you or both of us?"
USER = AnswerKey(accepted=("me",), choices=("me", "you", "both of us"))

CASES = [
    # J13.6 a value whose own clause, bracket or annotating clause marks the user's act as not
    # completed is context beside the answer
    ("Hollis Catering. Brambly Catering came up too, but you gave it a miss.", CATERER_Q, CATERER, C),
    ("Quenby Catering was on the list as well, though you backed out of it; the one I recommended "
     "was Hollis Catering.", CATERER_Q, CATERER, C),
    ("Hollis Catering \u2714\nBrambly Catering \u2717 (you said no)", CATERER_Q, CATERER, C),
    ("Marsh Catering (you only priced it) and Hollis Catering, which you kept.", CATERER_Q, CATERER, C),
    # … and on a question about the assistant's own act, a value the user found is another actor's
    ("You had found Marsh Catering on your own, but I recommended Hollis Catering.", CATERER_Q,
     CATERER, C),
    ("Hollis Catering (Quenby Catering was a no from you).", CATERER_Q, CATERER, C),
    ("Hollis Catering; I also floated Quenby Catering, which you weren't keen on.", CATERER_Q,
     CATERER, C),
    # J13.5 another holder: possessive, owner alone, a relation as the holder
    ("You bought the Zephra; your colleague from work kept the Morvane.", KETTLE_Q, KETTLE, C),
    ("Zephra is the one you bought; the Morvane is theirs.", KETTLE_Q, KETTLE, C),
    ("The Zephra is yours. Your aunt ordered the Corvo.", KETTLE_Q, KETTLE, C),
    # another time: until-clauses, negated starts, the former holder
    ("Ottilie Brannock, until Saffi Delane stepped in.", CARER_Q, CARER, C),
    ("Ottilie Brannock \u2014 Saffi Delane won't start until next month.", CARER_Q, CARER, C),
    ("Your former carer Hugo Pennick handed over to Ottilie Brannock.", CARER_Q, CARER, C),
    ("Ottilie Brannock; the earlier carer, Hugo Pennick, had left by then.", CARER_Q, CARER, C),
    # a decline after a value marked as another time declines (never graded wrong)
    ("Hugo Pennick used to, but I can't say who had it nine days ago.", CARER_Q, CARER, A),
    # J13.5 on never-known: after the denial, a value bound to another kind of thing
    ("I have nothing on a farrier for the pony. The only person you named for the pony was "
     "Gwilym Astley, the riding instructor.", FARRIER_Q, FARRIER, C),
    ("You've never mentioned a farrier \u2014 just a vet (Perrin Hollow).", FARRIER_Q, FARRIER, C),
    ("No farrier has come up. You did tell me about the Korvex, but that's a saddle.", FARRIER_Q,
     FARRIER, C),
    ("Nobody. (Perrin Hollow is your vet for the pony, and you stopped seeing them.)", FARRIER_Q,
     FARRIER, C),
    ("Gwilym Astley (your riding instructor) \u2014 still current.", FARRIER_Q, FARRIER, U),
    # J13.16 a current holder asserted on never-known, whatever the name
    ("Hester Vane, and she's still current.", FARRIER_Q, FARRIER, W),
    # J13.5 a state cue said of another value does not touch the asked one
    ("The Zephra, which replaced your old Tillex.", STILL_Q, STILL, C),
    ("Zephra \u2014 still current; it's the Tillex that someone else sold.", STILL_Q, STILL, C),
    # J13.5 another place: a value put at a place that is not the question's
    ("Isak Penrose, still current. Mabel Quist is your roofer at the boathouse.", ROOFER_Q, ROOFER, C),
    ("Isak Penrose for the chapel; Mabel Quist is the roofer you use at the vicarage.", ROOFER_Q,
     ROOFER, C),
    # J13.8 the holder negated as current
    ("Cassia Lund isn't your dog walker these days.", WALKER_Q, WALKER, C),
    # J13.1 the conversation's gaps in other words
    ("We didn't talk about which kettle you bought.", KETTLE_Q, KETTLE, A),
    ("Which kettle you bought isn't something we covered.", KETTLE_Q, KETTLE, A),
    ("No kettle purchase was ever mentioned.", KETTLE_Q, KETTLE, A),
    ("No farrier for the pony has been mentioned to me.", FARRIER_Q, FARRIER, C),
    # J2 the user's state negated is a denial
    ("You aren't using any kettle at the moment.", KETTLE_Q, KETTLE, M),
    # J13.13 name forms: a surname or brand alone, with an article or in lower case
    ("You went for the Thornbury.", GLAZIER_Q, GLAZIER, C),
    ("thornbury i think", GLAZIER_Q, GLAZIER, C),
    # J7.5 "the longest one" is a pronoun: vague words give no figure
    ("They were each away for a few weeks; the kayak was the longest one.", DAYS_Q, DAYS, U),
    # J7.1 emphasis closing on the figure does not hide it from a trailing "altogether"
    ("**40 days** altogether (15 + 11 + 14).", DAYS_Q, DAYS, C),
    # J9 any verb of saying names its speaker
    ("You observed that the ferry timetable had changed.", WHO_Q, USER, C),
]


GUARDS = [
    # held before and must still hold: context is context only beside an answer, and a real second
    # candidate still counts (J3.4); the asked value under a decline-free contrast is the answer
    ("Brambly Catering \u2014 you passed on it.", CATERER_Q, CATERER, W),
    ("Either Hollis Catering or Quenby Catering.", CATERER_Q, CATERER, W),
    ("I'm not sure \u2014 Hollis Catering, or the old Brambly Catering.", CATERER_Q, CATERER, W),
    ("Hollis Catering or maybe Brambly Catering, which you declined.", CATERER_Q, CATERER, W),
    ("Hollis Catering and Quenby Catering.", CATERER_Q, CATERER, W),
    ("You bought the Zephra; the Morvane is your uncle's.", KETTLE_Q, KETTLE, C),
    ("The Zephra, not the Corvo your aunt ordered.", KETTLE_Q, KETTLE, C),
    ("You settled on the Thornbury.", GLAZIER_Q, GLAZIER, C),
    ("You booked Dunstan Weir for the gutters, then cancelled.", PLAN_Q, PLAN, W),
    ("You have the Zephra, and the Tillex too.", STILL_Q, STILL, W),
    ("You got rid of it \u2014 Cassia Lund is gone.", WALKER_Q, WALKER, C),
    ("In our earlier chat you said the Zephra.", KETTLE_Q, KETTLE, C),
    ("Isak Penrose or Mabel Quist, both for the chapel.", ROOFER_Q, ROOFER, W),
    ("Isak Penrose, and it expired at the end of March.", ROOFER_Q, ROOFER, M),
]


@each_case(GUARDS)
def test_revision_4_keeps_what_held(answer: str, question: str, key: AnswerKey,
                                    outcome: Outcome) -> None:
    assert_graded(answer, question, key, outcome)


@each_case(CASES)
def test_revision_4_reads_the_class(answer: str, question: str, key: AnswerKey,
                                    outcome: Outcome) -> None:
    assert_graded(answer, question, key, outcome)


def test_a_plan_claimed_done_then_undone_is_not_mis_attributed_forgetting() -> None:
    verdict = judge_answer("You booked Dunstan Weir for the gutters, then cancelled.", PLAN,
                           question=PLAN_Q)
    assert verdict.subcounts == frozenset()
    # without the plan named it invents a lost fact (§5.2.3), as before
    verdict = judge_answer("You had a booking, but it was cancelled.", PLAN, question=PLAN_Q)
    assert verdict.subcounts == frozenset({"misattributed_forgetting"})


def test_a_state_cue_about_another_value_is_not_over_forgetting() -> None:
    verdict = judge_answer("Zephra \u2014 still current; it's the Tillex that someone else sold.",
                           STILL, question=STILL_Q)
    assert verdict.subcounts == frozenset()
    # the asked value sold is over-forgetting, as before
    verdict = judge_answer("You sold the Zephra.", STILL, question=STILL_Q)
    assert verdict.subcounts == frozenset({"over_forgetting"})
