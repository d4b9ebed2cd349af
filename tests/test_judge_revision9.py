"""Judge revision 9 (docs/JUDGING.md J21): the classes blind sets H1 and H2 found misread, each
tested with wordings written for these tests (other names, nouns and phrasings than the sets use).
Every case in CASES was misgraded by judge revision 8; GUARDS held before and must keep holding."""

from __future__ import annotations

from pytest_typedmemeval.corpus.models import AnswerKey, NumericKey
from pytest_typedmemeval.judge.mechanical import JUDGE_RULESET_VERSION, judge_answer
from pytest_typedmemeval.judge.outcomes import Outcome

from _judge_cases import C, W, A, M, U, assert_graded, each_case

SPEND_Q = "How much more did I spend at Hartwell Bakery than at Orme Stationers?"
SPEND = AnswerKey(numeric=NumericKey(value=62.40, unit="GBP", tolerance=0.0),
                  wrong=("£71.10", "£133.50"))
GARDENER_Q = ("Which gardener do I have for the allotment? Give the name, and say whether that is "
              "still current.")
GARDENER = AnswerKey(expected_negative="no_longer", must_name=("Corwen Aske",),
                     stale=("Corwen Aske",), wrong=("Bethan Lyle", "Idwal Penry"))
EBIKE_Q = "Which e-bike do I have for the commute? Give the name, and say whether that is still current."
EBIKE = AnswerKey(expected_negative="still", accepted=("Pelloro",), wrong=("Vantic", "Serrano"))
CANOE_Q = "Which canoe do I have for the lake? Give the name, and say whether that is still current."
CANOE = AnswerKey(expected_negative="no_longer", must_name=("Arvelo",), stale=("Arvelo",),
                  wrong=("Tassin", "Brume"))
ACCOUNTANT_Q = ("Which accountant do I have for my tax return? Give the name, and say whether that "
                "is still current.")
ACCOUNTANT = AnswerKey(expected_negative="still", accepted=("Merrin Halse",),
                       wrong=("Dorran Pike", "Teodric Vane"))
ASOF_Q = "Who was doing my tax return three weeks ago?"
ASOF = AnswerKey(accepted=("Dorran Pike",), wrong=("Merrin Halse",))
FRIDGE_Q = "Which fridge have I picked out?"
FRIDGE = AnswerKey(accepted=("Coldera",), wrong=("Frostel", "Glacio"))
PLASTERER_Q = "Which plasterer have I booked?"
PLASTERER = AnswerKey(accepted=("Renny Quill",), wrong=("Odell Crane", "Hesper Lowe"))
PHYSIO_Q = "Which physiotherapist is treating my knee?"
PHYSIO = AnswerKey(accepted=("Linnet Vale",), wrong=("Sorrel Dane", "Auden Frame"))
WINDOWS_Q = "Who cleans the windows at the studio now?"
WINDOWS = AnswerKey(accepted=("Perrin Hobb",), stale=("Ilse Marr",), wrong=("Gethin Rowe",))
SURVEYOR_Q = "From what I have told you, have I booked a surveyor for the barn yet?"
SURVEYOR = AnswerKey(expected_negative="not_yet", must_name=("Oriel Stang",),
                     premature=("Oriel Stang",), wrong=("Cado Brisk",))

CASES = [
    ("You spent £62.40 more at Orme Stationers than at Hartwell Bakery.", SPEND_Q, SPEND, W),
    # J21.1 a difference stated the other way round through a comparative and the shops
    ("Orme Stationers came out ahead by £62.40.", SPEND_Q, SPEND, W),
    ("Hartwell Bakery was cheaper by £62.40.", SPEND_Q, SPEND, W),
    ("You paid £62.40 more at Orme Stationers.", SPEND_Q, SPEND, W),
    ("Orme Stationers cost you £62.40 more.", SPEND_Q, SPEND, W),
    ("Going by your receipts, £62.40 is how much more you spent at Orme Stationers than at "
     "Hartwell Bakery.", SPEND_Q, SPEND, W),
    # J21.2 an earlier-time value beside a present-state decline, other not-knowing verbs
    ("Corwen Aske did the allotment before, but I couldn't tell you who does it now.",
     GARDENER_Q, GARDENER, A),
    ("Corwen Aske dug the beds back then; I can't be sure who looks after them these days.",
     GARDENER_Q, GARDENER, A),
    # J21.3 a negated invalidation: coordinated with a negated cue, or under negated evidence
    ("Pelloro — you haven't sold it or given it away, so it's still current.", EBIKE_Q, EBIKE, C),
    ("Pelloro; there's no sign that you replaced it.", EBIKE_Q, EBIKE, C),
    ("It's the Pelloro, and nothing indicates it was ever sold.", EBIKE_Q, EBIKE, C),
    # J21.4 every value named only as the invalidated past; a succession restated
    ("You had the Arvelo until you sold it, and you gave the Tassin away as well.", CANOE_Q,
     CANOE, C),
    ("The Arvelo went when you got rid of it; you owned the Tassin too, but you sold that one.",
     CANOE_Q, CANOE, C),
    ("Dorran Pike, until Merrin Halse stepped in; so Merrin Halse it is, still current.",
     ACCOUNTANT_Q, ACCOUNTANT, C),
    # J21.5 an open choice after a not-yet, values listed with articles
    ("You haven't settled on one yet — you were weighing up the Coldera and the Frostel.",
     FRIDGE_Q, FRIDGE, M),
    ("Nothing's chosen so far; you're still comparing the Frostel, the Coldera and the Glacio.",
     FRIDGE_Q, FRIDGE, M),
    # J21.6 kind words read by derivation and clipping; adjectives of time name no kind
    ("You booked Odell Crane for the plaster in the hall.", PLASTERER_Q, PLASTERER, W),
    ("Sorrel Dane is your physio for the knee.", PHYSIO_Q, PHYSIO, W),
    ("Sorrel Dane is your dentist; your physio is Linnet Vale.", PHYSIO_Q, PHYSIO, C),
    ("Your former one was Ilse Marr.", WINDOWS_Q, WINDOWS, W),
    ("Your old one was Ilse Marr.", WINDOWS_Q, WINDOWS, W),
]

GUARDS = [
    # J13.12 / J21.1: a bare figure, the question's direction, and what does not state a direction
    ("£62.40", SPEND_Q, SPEND, C),
    ("Hartwell Bakery came out ahead by £62.40.", SPEND_Q, SPEND, C),
    ("Orme Stationers was cheaper by £62.40.", SPEND_Q, SPEND, C),
    ("You spent £62.40 more at Hartwell Bakery than at Orme Stationers.", SPEND_Q, SPEND, C),
    ("You didn't spend more at Orme Stationers; the gap is £62.40.", SPEND_Q, SPEND, C),
    ("You bought more cards at Orme Stationers, but you spent £62.40 more at Hartwell Bakery.",
     SPEND_Q, SPEND, C),
    ("How much more did you spend at Orme Stationers than at Hartwell Bakery? £62.40.",
     SPEND_Q, SPEND, C),
    ("You wanted to know how much more you spent at Orme Stationers than at Hartwell Bakery: "
     "£62.40.", SPEND_Q, SPEND, C),
    ("£62.40 more at Orme Stationers — sorry, more at Hartwell Bakery than at Orme Stationers.",
     SPEND_Q, SPEND, C),
    # J19.3 guards: an invalidation with the value stays correct; a hedge before the value commits;
    # a telling's time ("as I said before") is no earlier time of the value
    ("Corwen Aske did the allotment before, but you let them go.", GARDENER_Q, GARDENER, C),
    ("I'm not sure who does it now, but probably Corwen Aske, whom you let go.", GARDENER_Q,
     GARDENER, C),
    ("As I said before, Corwen Aske looks after the allotment.", GARDENER_Q, GARDENER, W),
    # J13.8: an invalidation in its own clause is not negated by a negation in another
    ("Pelloro, but you sold it.", EBIKE_Q, EBIKE, M),
    ("Nothing suggests it broke down, but you sold the Pelloro.", EBIKE_Q, EBIKE, M),
    # J5 / J20.6: another value asserted as current beside the invalidation stays wrong
    ("You sold the Arvelo and now paddle the Tassin.", CANOE_Q, CANOE, W),
    ("You replaced the Arvelo with the Tassin.", CANOE_Q, CANOE, W),
    ("You sold the Tassin, and now you have the Arvelo.", CANOE_Q, CANOE, W),
    # J13.6 / J18.3: without the restatement, "X, until Y <took over>" answers X
    ("Dorran Pike, until Merrin Halse stepped in.", ASOF_Q, ASOF, C),
    # J20.4: the asked kind named only as what a value is not
    ("Renny Quill. (Odell Crane is your tiler, not the plasterer.)", PLASTERER_Q, PLASTERER, C),
    # J13.5 (J21.7): another holder's thing alone is about that holder — not read, never wrong
    ("Sorrel Dane, though that's your sister's physio.", PHYSIO_Q, PHYSIO, U),
    # J6 (J21.7, blind H1-335): a not-yet beside another key value as the plan is wrong
    ("Not yet — you were considering Cado Brisk.", SURVEYOR_Q, SURVEYOR, W),
    ("Not yet — you were considering Oriel Stang.", SURVEYOR_Q, SURVEYOR, C),
]


@each_case(CASES)
def test_revision_9_reads_the_class(answer: str, question: str, key: AnswerKey,
                                    outcome: Outcome) -> None:
    assert_graded(answer, question, key, outcome)


@each_case(GUARDS)
def test_revision_9_keeps_what_held(answer: str, question: str, key: AnswerKey,
                                    outcome: Outcome) -> None:
    assert_graded(answer, question, key, outcome)


def test_a_negated_invalidation_is_no_over_forgetting() -> None:
    """J21.3: "nothing suggests you've sold it or replaced it" asserts the fact still holds."""
    verdict = judge_answer("You ride the Pelloro, and I see no sign that you sold or replaced it.",
                           EBIKE, question=EBIKE_Q)
    assert (verdict.outcome, sorted(verdict.subcounts)) == (C, []), verdict.reason


def test_ruleset_version() -> None:
    assert int(JUDGE_RULESET_VERSION) >= 9
