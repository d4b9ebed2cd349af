"""Judge revision 5 (docs/JUDGING.md J2, J13.3, J13.7, J7.1; issue 21): the classes the real-model
set real1 found misread, each tested with wordings written for these tests (other verbs, nouns and
phrasings than real1's answers), so a rule that only matched the model's sentences fails here.
Every case in CASES was misgraded by judge revision 4; GUARDS held on revision 4 and must still."""

from __future__ import annotations

from pytest_typedmemeval.corpus.models import AnswerKey, NumericKey
from pytest_typedmemeval.judge.mechanical import JUDGE_RULESET_VERSION
from pytest_typedmemeval.judge.outcomes import Outcome

from _judge_cases import C, W, A, M, U, assert_graded, each_case

GYM_Q = "Which gym did I join in the spring?"
GYM = AnswerKey(accepted=("Ironvale Fitness",), wrong=("Pulse Studio", "Corehouse"))
PLUMBER_Q = "Which plumber did I hire for the bathroom at the cottage?"
PLUMBER = AnswerKey(accepted=("Tobias Wren",), wrong=("Mirela Stott",))
NEVER_Q = "Which locksmith do I have for the garage? Give the name, and say whether that is still current."
NEVER = AnswerKey(expected_negative="abstain", wrong=("Orrin Vale", "Keld Marsh"))
DAYS_Q = "How many days in total were the ladder, the drill and the sander out on loan?"
DAYS = AnswerKey(numeric=NumericKey(value=27, unit="days"))
SPEND_Q = "How much did I spend in total on the three train tickets?"
SPEND = AnswerKey(numeric=NumericKey(value=84.5, unit="£"))
WHO_Q = "Which of us noticed that the library closes early on Fridays: me or you or both of us?"
WHO = AnswerKey(accepted=("you",), choices=("me", "you", "both of us"))

CASES = [
    # J2 / J13.3: a negation whose predicate is the exchange itself is a meta-sentence, not a
    # denial of the asked fact
    ("You haven't replied to my question yet.", GYM_Q, GYM, U),
    ("You didn't give me an answer to work with.", PLUMBER_Q, PLUMBER, U),
    ("You were never asked to respond to this.", GYM_Q, GYM, U),
    ("You have not been asked to provide details about your plans.", PLUMBER_Q, PLUMBER, U),
    ("You haven't responded to the instruction.", GYM_Q, GYM, U),
    ("You did not give a response.", DAYS_Q, DAYS, U),
    ("You have not been asked to give a figure for that question.", SPEND_Q, SPEND, U),
    # … a negated act that is not the asked one (no question word, no telling) denies nothing
    ("You haven't slept much this week.", GYM_Q, GYM, U),
    ("You didn't sound too sure when you asked.", PLUMBER_Q, PLUMBER, U),
    # … and a tautology that denies nothing
    ("You did not hire the plumber that you did not hire.", PLUMBER_Q, PLUMBER, U),
    ("You haven't joined the gym which you haven't joined.", GYM_Q, GYM, U),
    # J13.7: an answer that only copies the prompt's scaffolding is an echo
    ("[No earlier conversations are on file.]\nToday's date: 2026/03/02 (Mon) 09:15\n"
     "Question: Which of us noticed that the library closes early on Fridays?\n"
     "Instructions: Reply with one of: me, you or both of us.", WHO_Q, WHO, U),
    ("Current date: 2026/01/09 (Fri) 17:40\nQuestion: Which gym did I join in the spring?\n"
     "Instruction: say Ironvale Fitness or Pulse Studio, or reply: I do not have that information.",
     GYM_Q, GYM, U),
    ("Which of us noticed that the library closes early on Fridays: me or you or both of us?", WHO_Q,
     WHO, U),
    # J7.1: a bare date as the answer to a quantity is committed and wrong
    ("The answer is: 2026/3/2", DAYS_Q, DAYS, W),
    ("**2025-11-04**", SPEND_Q, SPEND, W),
    ("Answer: 14.02.2026", DAYS_Q, DAYS, W),
]

GUARDS = [
    # real denials still read as denials (J2)
    ("You never told me who you hired.", PLUMBER_Q, PLUMBER, M),
    ("You haven't booked a plumber.", PLUMBER_Q, PLUMBER, M),
    ("Nothing about a gym came up, and you didn't join one.", GYM_Q, GYM, A),
    ("You haven't joined a gym.", GYM_Q, GYM, M),
    ("You never joined.", GYM_Q, GYM, M),
    ("You have not hired anybody yet.", PLUMBER_Q, PLUMBER, M),
    ("You never told me the answer to that.", GYM_Q, GYM, M),
    ("You never mentioned a locksmith.", NEVER_Q, NEVER, C),
    ("You don't have a locksmith for the garage.", NEVER_Q, NEVER, C),
    ("You didn't hire anyone for the bathroom.", PLUMBER_Q, PLUMBER, M),
    # a decline still declines; the answer's own line after an echo is read
    ("I do not have that information.", GYM_Q, GYM, A),
    ("Question: Which gym did I join in the spring?\nAnswer: Ironvale Fitness", GYM_Q, GYM, C),
    ("Current date: 2026/01/09 (Fri) 17:40\nResponse: I don't know.", GYM_Q, GYM, A),
    ("(I'm not sure.)", GYM_Q, GYM, A),
    # a date beside a figure is no answer; the figure is
    ("27 days, counted up to 2026/3/2.", DAYS_Q, DAYS, C),
    ("The answer is: 2026/3/2 — I think it was 30 days.", DAYS_Q, DAYS, W),
    # the role-confused task narration with "you cannot provide" stays unread (J13.3, real1-051)
    ("You were asked which gym you joined, but you cannot provide that information from your "
     "chat with them.", GYM_Q, GYM, U),
]


@each_case(CASES + GUARDS)
def test_revision5_reading(answer: str, question: str, key: AnswerKey, outcome: Outcome) -> None:
    assert_graded(answer, question, key, outcome)


def test_ruleset_version_is_at_least_5() -> None:
    assert int(JUDGE_RULESET_VERSION) >= 5  # revision 5 landed together with 6 (merged as "6")
