"""Judge revision 6 (docs/JUDGING.md J18): the classes blind sets E1 and E2 found misread, each
tested with wordings written for these tests (other names, nouns and phrasings than the blind
sets use), so a rule that only matched the blind authors' phrases fails here. Every case in
CASES was misgraded by judge revision 4; GUARDS held before and must keep holding."""

from __future__ import annotations

from pytest_typedmemeval.corpus.models import AnswerKey, NumericKey
from pytest_typedmemeval.judge.mechanical import JUDGE_RULESET_VERSION, judge_answer
from pytest_typedmemeval.judge.outcomes import Outcome
from pytest_typedmemeval.judge.text import structured_statements

from _judge_cases import C, W, A, P, assert_graded, each_case

LUTHIER_Q = "Which luthier do I have for the viola? Give the name, and say whether that is still current."
LUTHIER = AnswerKey(expected_negative="abstain", wrong=("Corwen Tallis", "Idony Pryce", "Halvex"))
HOURS_Q = "How many days in total were the ladder, the drill and the sander out on loan?"
HOURS = AnswerKey(numeric=NumericKey(value=26, unit="days"))
KETTLE_Q = "Which kettle have I bought?"
KETTLE = AnswerKey(accepted=("Zephra",), wrong=("Morvane", "Tillex", "Corvo"))
ROOFER_Q = "Which roofer did you recommend for the barn?"
ROOFER = AnswerKey(accepted=("Pellham Roofing",), wrong=("Astbury Roofing", "Carnell Roofing"))
WARDEN_Q = "Who will be looking after the beehives in three weeks?"
WARDEN = AnswerKey(accepted=("Tamsin Orchard",), stale=("Rufus Kettley",), wrong=("Olwen Brisk",))
COVER_Q = "Whose breakdown cover do I have for the van, and is it still valid?"
COVER = AnswerKey(expected_negative="not_yet", must_name=("Meredith Vale",),
                  wrong=("Piers Lanyon",))
SURF_Q = "Which paddleboard do I have for the estuary? Give the name, and say whether that is still current."
SURF = AnswerKey(expected_negative="no_longer", must_name=("Quorrin",), stale=("Quorrin",),
                 wrong=("Velmara", "Drisk"))
STILL_Q = "Which paddleboard do I have for the estuary? Give the name, and say whether that is still current."
STILL = AnswerKey(expected_negative="still", accepted=("Quorrin",), wrong=("Velmara", "Drisk"))
FARRIER_Q = "Which farrier do I have for the pony? Give the name, and say whether that is still current."
FARRIER = AnswerKey(expected_negative="abstain", wrong=("Perrin Hollow", "Gwilym Astley", "Korvex"))

CASES = [
    # J18.1 a value (or a figure) retracted into a decline: the answer declines
    ("Tillex. Hold on, I take that back; I've no idea which kettle it was.", KETTLE_Q, KETTLE, A),
    ("Morvane, my apologies, I can't say for certain which one you bought.", KETTLE_Q, KETTLE, A),
    ("It was the Tillex, wait, no, I'm not sure at all.", KETTLE_Q, KETTLE, A),
    ("Let me say 31 days. Let me correct that: I can't work out the sander's return date.", HOURS_Q,
     HOURS, A),
    ("29 days. My mistake, I can't work it out from what you told me.", HOURS_Q, HOURS, A),
    # J18.2 a not-yet on never-known claims the fact is pending: wrong, not a denial
    ("You haven't found a luthier for the viola as yet.", LUTHIER_Q, LUTHIER, W),
    ("You haven't settled on anyone to repair the viola so far.", LUTHIER_Q, LUTHIER, W),
    ("You haven't got round to finding a luthier.", LUTHIER_Q, LUTHIER, W),
    ("No luthier lined up for the viola so far.", LUTHIER_Q, LUTHIER, W),
    ("You're yet to pick a luthier.", LUTHIER_Q, LUTHIER, W),
    # J18.3 rejection predicates with a pronoun object, and the earlier idea in the pluperfect
    ("Pellham Roofing. Earlier I'd floated Astbury Roofing, but you shot it down.",
     ROOFER_Q, ROOFER, C),
    ("It was Pellham Roofing; Carnell Roofing came up as well, but you wouldn't hear of it.",
     ROOFER_Q, ROOFER, C),
    ("Pellham Roofing. Astbury Roofing was on the table too, but you weren't having it.",
     ROOFER_Q, ROOFER, C),
    # J18.3 held only until another takes over, "until" after the value in its own clause
    ("Tamsin Orchard. Rufus Kettley is just minding them till Tamsin gets back.", WARDEN_Q,
     WARDEN, C),
    ("Tamsin Orchard will have them then; Olwen Brisk looks after them until Tamsin takes over.",
     WARDEN_Q, WARDEN, C),
    # J18.4 structured answers: a boolean field states its key
    ('{"provider": "Meredith Vale", "expired": false, "active": true}', COVER_Q, COVER, C),
    ('{"board": "Quorrin", "still_yours": false}', SURF_Q, SURF, C),
    ('{"board": "Quorrin", "sold": false, "current": true}', STILL_Q, STILL, C),
    # J18.5 "not yours any more" is a loss (an invalidation), not another owner
    ("quorrin, though you sold it on and it's not yours any longer", SURF_Q, SURF, C),
    ("Quorrin, but it's not yours now; you handed it to a friend.", SURF_Q, SURF, C),
    # J18.6 a kind as the subject binds the value and its state cue to that kind
    ("There's no farrier on record for the pony. Your vet was Perrin Hollow, though you let "
     "them go.", FARRIER_Q, FARRIER, C),
    ("I have no farrier noted. My record says your riding instructor was Gwilym Astley, and you "
     "gave up the lessons.", FARRIER_Q, FARRIER, C),
]

GUARDS = [
    # already read by revision 4, kept as guards of the same classes
    ("Corvo. Scratch that, I can't actually tell you which one you bought.", KETTLE_Q, KETTLE, A),
    ("Morvane... on second thought, I really don't know.", KETTLE_Q, KETTLE, A),
    ("So far you haven't settled on a luthier, not yet anyway.", LUTHIER_Q, LUTHIER, W),
    ("Pellham Roofing. I had originally pitched Astbury Roofing, but you knocked it back.",
     ROOFER_Q, ROOFER, C),
    ("It was Pellham Roofing; Carnell Roofing came up as well, but you said no to it.",
     ROOFER_Q, ROOFER, C),
    ("quorrin, though you sold it on and it isn't yours any more", SURF_Q, SURF, C),
    # real denials and declines on never-known stay correct
    ("You never told me about a luthier.", LUTHIER_Q, LUTHIER, C),
    ("There's no luthier in anything you've said.", LUTHIER_Q, LUTHIER, C),
    ("You haven't told me about a luthier yet.", LUTHIER_Q, LUTHIER, C),
    ("No luthier has been mentioned so far.", LUTHIER_Q, LUTHIER, C),
    ("I don't know yet which luthier you use.", LUTHIER_Q, LUTHIER, C),
    ("You don't have a luthier.", LUTHIER_Q, LUTHIER, C),
    # a value is still committed where nothing withdraws it
    ("Corvo, I think, though I'm not certain.", KETTLE_Q, KETTLE, W),
    ("Sorry, it's the Zephra.", KETTLE_Q, KETTLE, C),
    ("Tillex \u2014 sorry, Zephra.", KETTLE_Q, KETTLE, C),
    ("27 days \u2014 sorry, 26 days.", HOURS_Q, HOURS, C),
    # an apology about what lies beyond the answer, or opening a new sentence, retracts nothing
    ("Pellham Roofing. Sorry I can't say more than that.", ROOFER_Q, ROOFER, C),
    ("Pellham Roofing \u2014 sorry, I can't say anything else about them.", ROOFER_Q, ROOFER, C),
    # context only beside an answer: a rejected value alone is still the answer
    ("Astbury Roofing, though you knocked it back.", ROOFER_Q, ROOFER, W),
    # a value followed by its own until-clause stays the answer ("X, until Y took over")
    ("Tamsin Orchard, until Olwen Brisk takes over next spring.", WARDEN_Q, WARDEN, C),
    # structured booleans the other way round
    ('{"provider": "Meredith Vale", "lapsed": true}', COVER_Q, COVER, P),
    ('{"board": "Quorrin", "still_current": true}', SURF_Q, SURF, W),
    # "not yours" said of another owner stays another owner's
    ("Quorrin. The Drisk was his, not yours.", STILL_Q, STILL, C),
    # the kind-as-subject rule reads the asked kind as the asked item
    ("Your paddleboard is Quorrin, and it's still current.", STILL_Q, STILL, C),
]


@each_case(CASES)
def test_revision_6_reads_the_class(answer: str, question: str, key: AnswerKey,
                                    outcome: Outcome) -> None:
    assert_graded(answer, question, key, outcome)


@each_case(GUARDS)
def test_revision_6_keeps_what_held(answer: str, question: str, key: AnswerKey,
                                    outcome: Outcome) -> None:
    assert_graded(answer, question, key, outcome)


def test_a_kind_bound_stop_is_not_mis_attributed_forgetting() -> None:
    verdict = judge_answer("Nothing about a farrier. Your vet was Perrin Hollow, but you stopped "
                           "using them.", FARRIER, question=FARRIER_Q)
    assert verdict.outcome is C and verdict.subcounts == frozenset(), verdict.reason


def test_structured_booleans_read_as_statements() -> None:
    assert structured_statements('{"lapsed": false}') == '{"it has not lapsed"}'
    assert structured_statements('{"valid": true}') == '{"it is valid"}'
    assert structured_statements('{"still_current": false}') == '{"it is no longer current"}'
    assert structured_statements("lapsed: false") == "lapsed: false"  # unquoted: not structured


def test_ruleset_version() -> None:
    assert int(JUDGE_RULESET_VERSION) >= 6
