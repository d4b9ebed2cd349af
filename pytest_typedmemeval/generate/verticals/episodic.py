"""TypedMemEval-Episodic v3 (VERTICALS.md §2.2, Appendix D), declared over the shared engine.

Memory of the conversation as an event: who said a thing, and in which order things came up. v3
replaces v2's split value pools (gold and filler names from two halves of one syllable list) and
its content-free "asides" (the only source of difficulty) with **one pool per type**
(:mod:`..values`; a haystack draws every value first, then deals them to statements) and
**competitors that carry values**, rendered by the same frames as gold through the conversation
renderer (:mod:`..conversation`, one persona per haystack).

**Clusters, and sessions alike.** Every subject that competes is *clustered*, and a session's
make-up never says whether it is gold (the first v3 build clustered competitors around the asked
subject only, and gold was the centre of the haystack's recurrence: a question-blind classifier
reading within-haystack recurrence found it at AUC 0.90; :func:`..engine.clusters_for`).

- ``assistant-stated`` (20): "Which tent did you recommend for the festival weekend that I did not
  turn down?" (G = 1). Every session holds one taken-up recommendation and two side statements,
  and exactly two of the three are about clustered subjects (:func:`_plan_recommendations`): P
  clustered subjects (both purposes of the asked subject's family and of P / 2 - 1 decoy families,
  the least clustered so far) each have an own session (its taken-up recommendation) and c side
  statements in other sessions; singles are named once each. Side kinds come from
  :data:`KIND_DECK`: ``declined`` (the same request and recommendation frames, then the user
  turns it down; a declined suggestion *is* something "you recommended", so the question excludes
  it in words and the key lists its value as ``wrong``), ``other`` (asked in gold's words, then
  who it is for: "for your sister's festival weekend") and ``own`` (the user's own idea: the
  participant contrast). The sibling purpose's own taken-up recommendation is the other-instance
  competitor. Value types fit the subject: a product is a brand, a tradesman a shop of that
  trade, a place to stay a place. Take-ups, declines and pass-ons name the purpose in replies and
  closes of matched length; take-up and decline verbs share one word-length sequence
  (:data:`STANCE_PAIRS`).
- ``list-order`` (15): "In what order did I add names to the guest list for the housewarming?"
  Every session adds one person to one list and considers one person for another
  (:func:`_plan_lists`); every list has a length drawn as the asked one's (4..7; a last list takes
  the rest) and c ``considered`` side statements ("I have not added X to ..."), the rest of the
  side statements drawn uniformly among the other lists. Adds and names left off are length
  twins (:data:`LIST_PAIRS`) and take one reply bank (:data:`LIST_REPLY_STANCE`).
- ``participant-attribution`` (15): "Who said that the corner pharmacy only takes cards now: me or
  you or both of us?" One role-neutral remark (venue + claim) per session, on a regular grid
  (:func:`_plan_attribution`): r venues x r claims, each venue with k claims and each claim with
  k venues, each remark said twice by speakers drawn one by one; the gold remark is drawn from the
  asked venue's k and its two speakers are the answer's (5 / 5 / 5, G = 2). Competitors: the asked
  venue's other remarks (``near-miss``) and the gold claim at other venues (``same-claim``).
  Remarks carry no value: this shape's "value" is the speaker.

**The dial** (:data:`RECORDED_COMPETITION`): c, the competitors per clustered subject, is the dial
times the non-gold sessions, rounded at random per haystack (at most :data:`C_MAX`); the number of
clustered subjects follows from it (so they cover the haystack). Closeness is fixed by the kind
deck (per five competitors two declined and two other-holder recommendations, whose frames are
gold's, and one user statement).

**Rendering.** Statements become :class:`..conversation.Statement` episodes; assistant ones carry a
reaction and close that name their purpose (a take-up, or passing it on to the holder), declines come
from the bank. Sessions are rendered one by one (:func:`render`) so that a session whose length too
few sessions share can be drawn again, blind to gold: every gold role sequence then occurs among
its distractors.

**Hard errors:** gold recomputed from the text (V5) and every planned competitor read back with its
kind, none answering; each value in exactly one session, typed as its subject wants; the lexical
screen (no assistant-stated gold, as a whole value, in any user turn of the corpus: a value that
reached a user turn or a gold earlier in the shape is not drawn again, whatever role it would get);
question subject words in < 10 % of sessions; times strictly increasing, no digits; the judge
grades gold correct and every competitor value, wrong orders and the other options not correct.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple

from ...retrieval.tokenizer import raw_tokens, tokenize
from .. import conversation, engine
from .. import episodes_bank as bank
from .. import values
from ..conversation import Statement
from ..primitives import GenerationError, derive_rng
from ..length_balance import length_sequence, length_sequence_imbalance

VERTICAL = "episodic"
ABBREV = "epi"
GENERATOR = "pytest_typedmemeval.generate.verticals.episodic"
GENERATOR_VERSION = "3"
REVISION = 3
SEED = 20260503
SHAPES = ("assistant-stated", "list-order", "participant-attribution")
CALIBRATED_SHAPES = ("assistant-stated", "list-order")
RECORDED_COMPETITION: dict[str, float] = {"assistant-stated": 0.296875, "list-order": 0.0,
                                          "participant-attribution": 0.2}
"""Per shape, from ``typedmemeval generate --vertical episodic --search``: assistant-stated's and
list-order's competitor share (competitors per cluster over the non-gold sessions; list-order's
coverage is capped by G > K_ref, and its search lands near 0 since its side statements, one per
session, already consider names for the other lists).
participant-attribution's is a declared design rate, not searched: it sets the remark grid's
degree (:func:`attribution_degree`, 0.2 -> 3), and its question quotes the gold remark, so
sentence-level BM25 finds it at every dial (:data:`ATTRIBUTION_SWEEP`)."""
ATTRIBUTION_SWEEP = ((0.0, 1.0), (0.25, 1.0), (0.5, 1.0), (0.75, 0.9333), (1.0, 0.8))
"""participant-attribution's reference (Okapi) coverage over the dial, measured through
:func:`build` (revision 3, before the remark grid; the grid keeps gold's sentence the one holding
both quoted phrases, so the reason stands)."""
ATTRIBUTION_PANEL_SWEEP = ((0.0, 1.0), (0.25, 1.0), (0.5, 1.0), (0.75, 1.0), (1.0, 1.0))
"""The whole lexical panel's maximum over the same points: sentence-level BM25 finds the one
sentence holding both the quoted venue and the quoted claim at every dial, so no dial brings the
shape under the ceiling (the reason its calibration-ceiling exemption stands)."""
DIFFICULTY_NOTE = ("declared, not validated: list-order bands are the list length (coverage falls "
                   "with it only because G > K_ref), assistant-stated and participant-attribution "
                   "bands are the distance from the last gold session to the question")

N_BY_SHAPE = {"assistant-stated": 20, "list-order": 15, "participant-attribution": 15}
H_RANGE, LIST_LENGTH = (15, 25), (4, 7)
KIND_DECK = {"assistant-stated": ("declined", "other", "declined", "other", "own")}
"""Competitor kinds, dealt in order from a shuffled deck per haystack (closeness is fixed here)."""
MEMORY_TYPE = "episodic"
CHOICES = ("me", "you", "both of us")
ANSWER_FOR = {"user": "me", "assistant": "you", "both": "both of us"}
ATTRIBUTION_INSTRUCTION = (
    "Answer from what was said in our conversations. Reply with exactly one of the options as the "
    "question words them: me (the person asking), you (the assistant), or both of us.")

# --------------------------------------------------------------------------------------------
# Banks: subjects come in families (one noun, several purposes); every word belongs to one family
# noun or one purpose, so a subject's words say which subject it is and nothing else.


@dataclass(frozen=True)
class Subject:
    """A recommendation subject or a list: ``the {noun} for the {purpose}``."""

    noun: str
    indef: str
    purpose: str
    kind: values.ValueType
    trade: str | None = None

    def phrase(self, holder: str | None = None, *, speaker: str = "assistant") -> str:
        """"the tent for the festival weekend" / "the tent for your sister's festival weekend"."""
        if holder is None:
            return f"the {self.noun} for the {self.purpose}"
        owner = "your" if speaker == "assistant" else "my"
        return f"the {self.noun} for {owner} {holder}'s {self.purpose}"

    def purpose_phrase(self, holder: str | None = None) -> str:
        return f"the {self.purpose}" if holder is None else f"my {holder}'s {self.purpose}"


def _family(noun: str, indef: str, kind: str, purposes: str, trade: str | None = None
            ) -> tuple[Subject, ...]:
    return tuple(Subject(noun, indef, p.strip(), kind, trade)  # type: ignore[arg-type]
                 for p in purposes.split(";"))


RECOMMEND_SUBJECTS: tuple[Subject, ...] = (
    *_family("hiking boots", "hiking boots", "brand", "alpine trek; moorland hike"),
    *_family("tent", "a tent", "brand", "festival weekend; wild camping"),
    *_family("running shoes", "running shoes", "brand", "half marathon; trail race"),
    *_family("mattress", "a mattress", "brand", "spare bedroom; loft conversion"),
    *_family("coffee machine", "a coffee machine", "brand", "office kitchen; narrowboat"),
    *_family("rucksack", "a rucksack", "brand", "gap year; scout camp"),
    *_family("sunscreen", "a sunscreen", "brand", "sailing course; ski week"),
    *_family("headphones", "headphones", "brand", "morning commute; gym sessions"),
    *_family("pram", "a pram", "brand", "newborn; city strolls"),
    *_family("garage", "a garage", "shop", "car service; van repairs", "Motors"),
    *_family("roofer", "a roofer", "shop", "leaky roof; chimney stack", "Roofing"),
    *_family("joiner", "a joiner", "shop", "fitted wardrobe; alcove shelves", "Joinery"),
    *_family("haulage firm", "a haulage firm", "shop", "relocation; granny annexe", "Removals"),
    *_family("upholsterer", "an upholsterer", "shop", "old sofa; dining chairs", "Upholstery"),
    *_family("electrician", "an electrician", "shop", "patio lighting; fuse box", "Electrics"),
    *_family("plumber", "a plumber", "shop", "bathroom refit; dripping tap", "Plumbing"),
    *_family("glazier", "a glazier", "shop", "cracked window; conservatory doors", "Glazing"),
    *_family("locksmith", "a locksmith", "shop", "back door; bike shed", "Locksmiths"),
    *_family("village", "a village", "place", "walking holiday; cycling break"),
    *_family("campsite", "a campsite", "place", "lake trip; caravan tour"),
    *_family("seaside resort", "a seaside resort", "place", "family reunion; honeymoon"),
)
LIST_SUBJECTS: tuple[Subject, ...] = (
    *_family("guest list", "", "person", "housewarming; birthday meal; garden party"),
    *_family("carpool rota", "", "person", "piano lessons; swimming gala"),
    *_family("football squad", "", "person", "summer league; charity match"),
    *_family("seating plan", "", "person", "wedding breakfast; awards night"),
    *_family("babysitting circle", "", "person", "school holidays; anniversary evening"),
    *_family("quiz team", "", "person", "harvest supper; church fete"),
    *_family("volunteer roster", "", "person", "food bank; beach clean"),
    *_family("choir lineup", "", "person", "carol concert; spring recital"),
    *_family("cast sheet", "", "person", "pantomime; nativity play"),
    *_family("book club", "", "person", "autumn season; reading retreat"),
)
VENUES: tuple[str, ...] = tuple("the " + v.strip() for v in (
    "riverside market; corner pharmacy; parish library; leisure complex; repair workshop; farm "
    "shop; museum cafe; bowling alley; dry cleaner; bus depot; community hall; ice rink; bakery; "
    "cinema; launderette; dental surgery; fuel forecourt; bookshop; tennis pavilion; recycling "
    "yard; antiques auction; skate park; flower stall; noodle bar; vet practice; tool exchange; "
    "pottery studio; railway halt; youth centre; fish counter; stationer; plant nursery"
).split(";"))
CLAIMS: tuple[str, ...] = tuple(c.strip() for c in (
    "closes early in winter; opens late at weekends; shuts for an hour at lunch; gets crowded "
    "after work; only takes cards now; is closed for refurbishment; changed its opening hours; "
    "has a new manager; is being repainted; offers a student discount; put its prices up; has a "
    "long queue most mornings; moved to a bigger building; hired extra staff; stays open until "
    "midnight; started a loyalty scheme; lost power during the storm; plans to close "
    "permanently; got a glowing review; has a broken lift").split(";"))

RECOMMEND = (
    "For {subject}, I would recommend {value}.",
    "On {subject}, my recommendation is {value}.",
    "If you are weighing up {subject}, my pick would be {value}.",
    "About {subject}, I would go with {value}.",
    "For {subject}, I would suggest {value}.",
    "My suggestion for {subject} is {value}.")
"""The assistant's recommendation: gold, declined and other-holder alike (only the subject's holder
and the user's reaction differ)."""
REQUESTS = (
    "Could you recommend {indef} for {purpose}?",
    "I am looking for {indef} for {purpose}, any suggestions?",
    "Any ideas for {indef} for {purpose}?",
    "Can you help me choose {indef} for {purpose}?",
    "Have you got a suggestion for {indef} for {purpose}?",
    "What would you recommend in the way of {indef} for {purpose}?",
    "Any thoughts on {indef} for {purpose}?",
    "I need to find {indef} for {purpose}, where would you start?")
OWN = (
    "I am thinking of {value} for {subject}.",
    "I have my eye on {value} for {subject}.",
    "My own idea for {subject} is {value}.",
    "I have been looking at {value} for {subject} myself.")
LIST_PAIRS: tuple[tuple[str, str], ...] = (
    ("I have now added {value} to {subject}.",
     "I have not added {value} to {subject}."),
    ("For {subject}, I included {value} in the end.",
     "For {subject}, I excluded {value} in the end."),
    ("After some thought, I decided to pick {value} for {subject}.",
     "After some thought, I decided to skip {value} for {subject}."),
    ("I accepted {value} for {subject} after a chat.",
     "I rejected {value} for {subject} after a chat."),
    ("As things stand, {value} is now on {subject}.",
     "As things stand, {value} is not on {subject}."),
    ("With {subject}, I ended up including {value}.",
     "With {subject}, I ended up excluding {value}."))
"""A name added to a list and a name left off, written as **twins**: within a pair the two frames
have the same words in order but one or two of equal length ("now"/"not", "included"/"excluded",
"pick"/"skip", "accepted"/"rejected"), so the same word-length sequence, commas and characters;
each role draws a pair uniformly, so every length sequence makes up the same share of both roles
(:func:`length_sequence_imbalance`, checked at import). Red team 27 read the role off the frame's
character length once name and list were removed (the eight frames of revision 3 were twins in
skeleton only, 17/40/44/52 characters against 22/43/56/58: 15/15 exact answers held out, and a
word-length histogram 1.00); red team 12 read it off ", but"."""
ADD: tuple[str, ...] = tuple(add for add, _ in LIST_PAIRS)
CONSIDERED: tuple[str, ...] = tuple(left for _, left in LIST_PAIRS)
REMARK = (
    "By the way, {subject} {claim}.",
    "It turns out {subject} {claim}.",
    "Quick note, {subject} {claim}.",
    "Apparently {subject} {claim}.",
    "Worth knowing, {subject} {claim}.")
"""Role-neutral (no I/you): the same bytes in either speaker's turn."""
REMARK_REQUESTS = (
    "Anything happening around here lately?", "Have you heard any local news?",
    "Is there anything I should know before I head out?", "What is the latest locally?",
    "Any gossip from the neighbourhood?", "Heard anything useful lately?",
    "Anything I ought to know about the local area?", "Any local updates for me?")
REPLY_LEADS = ("Right", "Well", "Okay", "Thanks", "Hmm", "Honestly", "So", "I see")
"""How the user's answer to a recommendation opens, whichever way it goes."""
REPLY_FRAMES = (
    "{lead}, I think I will {act} for {purpose}.",
    "{lead}, for {purpose} I am going to {act}.",
    "{lead}, I have decided to {act} for {purpose}.",
    "{lead}, with {purpose} in mind I will {act}.",
    "{lead}, on reflection I will {act} for {purpose}.",
    "{lead}, I will {act} when it comes to {purpose}.")
"""The user's answer to a recommendation, closed by a short reason (:data:`REASON_PAIRS`).
Revision 3's "I would like to {act} ..., if that is all right" asked the assistant's permission to
take up or turn down its own suggestion (red team 31: 128 such turns); it is gone."""
REASON_PAIRS: tuple[tuple[str, str], ...] = (
    ("as the reviews look good", "as the reviews look poor"),
    ("as it is within my budget", "as it is beyond my budget"),
    ("as I have heard great things", "as I have heard mixed things"),
    ("as it seems good value", "as it seems poor value"))
"""Why the user takes a recommendation up or turns it down, a clause closing the reply
(:func:`_with_reason`), written as **twins**: within a pair the same words in order but one of equal
length ("good"/"poor", "within"/"beyond", "great"/"mixed"), so both stances draw every word-length
sequence in the same share (:func:`length_sequence_imbalance` at import, :data:`STANCE_BANKS`).
Why a reason: a blind reading of 60 reply pairs (``/work/pairs1``) found every decline abrupt and
reasonless ("Right, I have decided to reject that for the alcove shelves."); a take-up carries one
too, so the reply's length says nothing of its stance. A clause, not a sentence of its own: a
second sentence opens on a capital ("The reviews ...", "It is ..."), which the form reader's tail
view takes for a value, so every reply became a candidate beside its recommendation (a first build
read assistant-stated's tail view at AUC 0.759, p 0.0015, against 0.65). Generic for a brand, a
shop or a place."""
CLOSE_PAIRS: tuple[tuple[str, str], ...] = (
    ("Good, I hope that works for {purpose}.", "Sure, I will look wider for {purpose}."),
    ("Great, I have high hopes for {purpose}.", "Noted, I will look round for {purpose}."))
"""The assistant's close after a take-up and after a decline, as length twins. After a decline the
assistant accepts it and offers to look further; it never rates the decline. (Revision 3 closed
both stances with one frame that repeated the act, "It seems wise to {act}, and good luck with
{purpose}.": after a decline the assistant called it wise, sensible or a reasonable call to turn
down the suggestion it had just made, in 328 of 328 declines, and a blind reader marked 6 of 60
sampled pairs misfit for it.)"""
SHARED_CLOSES: tuple[str, ...] = (
    "Understood, I will bear that in mind for {purpose}.",
    "Thanks for letting me know your thinking on {purpose}.",
    "Thanks for saying, and good luck with {purpose}.")
"""Closes that fit a take-up and a decline alike (neither praises the choice), in both stances'
banks."""
STANCE_CLOSES: dict[str, tuple[str, ...]] = {
    "taken": (*(up for up, _ in CLOSE_PAIRS), *SHARED_CLOSES),
    "declined": (*(no for _, no in CLOSE_PAIRS), *SHARED_CLOSES)}
"""The close each stance draws from uniformly: every line names the purpose once, in the same
place as its twin (red team 6: declines repeated the subject, take-ups never; red team 7: take-up
replies were the shortest), and each word-length sequence makes up the same share of both banks
(red team 27), checked at import. The close no longer repeats the act, so its stance verb cannot
be read off it either: the close's stance is in its words alone, as the reply's is in its verb."""
STANCE_REASONS: dict[str, tuple[str, ...]] = {
    "taken": tuple(up for up, _ in REASON_PAIRS), "declined": tuple(no for _, no in REASON_PAIRS)}
OBJECTS = ("that", "that one", "it")
"""What an act takes as its object, drawn for the reply whichever the stance (red team 11:
take-ups always said "that" or "that one" and declines mostly neither, so the pronouns alone found
gold in 0.89 of questions)."""
STANCE_PAIRS: tuple[tuple[str, str], ...] = (
    ("choose", "refuse"), ("accept", "reject"), ("select", "shelve"), ("favour", "bypass"))
"""Take-up and decline verbs, **every one a single word of six letters**, so a verb's length says
nothing of its stance in any sample, not only on average (:func:`length_sequence_imbalance` at
import; the pairs are kept for the twin check). Red team 27 read the stance off the word lengths of
the close's gerund ("giving up on" 6 2 2 against "going for" 5 3: 0.73-0.75 held out, chance
0.342); verbs paired by length sequence alone still left 20 golds' few draws over seven sequences
to chance (a lookup table on the new pairs: 0.46)."""
STANCE_VERBS: dict[str, tuple[str, ...]] = {
    "taken": tuple(up for up, _ in STANCE_PAIRS), "declined": tuple(no for _, no in STANCE_PAIRS)}
STANCE_ACTS: dict[str, tuple[str, ...]] = {
    kind: tuple(f"{verb} {obj}" for verb in verbs for obj in OBJECTS)
    for kind, verbs in STANCE_VERBS.items()}
"""The user's answer to a recommendation, from **one grammar for both stances**: a reply is a lead,
a frame, an act and a reason, each drawn on its own; the act's verb and the reason's twin word say
whether the user took the recommendation up or turned it down, and both sit in the same slots; the
assistant's close comes from twin banks of one shape (:data:`STANCE_CLOSES`). Neither names the
value; both name the purpose, never as a grammatical subject (plural purposes: "the dining
chairs"). (Red teams 6-10 each found a surface cue while take-ups and declines came from two banks
written apart: whether the reply repeats the
subject phrase (20/20), reply length (20/20), close length (0.90), whether the close echoes the
reply (0.85), where the subject sits in the close and how many commas the reply holds (a held-out
classifier on such features: 0.997), and the pronouns of the acts (0.89, :data:`OBJECTS`); red
team 27 the verbs' word lengths, :data:`STANCE_PAIRS`. Acts are generic verbs, fit for a product,
a shop or a place.)"""
ASKING_FOR = ("It is for my {holder}.", "I am asking for my {holder}.",
              "This one is for my {holder}.", "I am asking on behalf of my {holder}.",
              "My {holder} asked me to look into it.", "It is my {holder} who needs it, not me.",
              "My {holder} is the one who needs it.", "I said I would ask for my {holder}.",
              "I am looking on behalf of my {holder}.", "It is really for my {holder}.",
              "My {holder} wanted me to ask you.", "I promised my {holder} I would ask.")
"""After an other-holder request, which asks in gold's words: the person it is for, in a sentence
of its own. (With the holder inside the request, "a tent for my sister's festival weekend", the
sentence holding the question's phrases was gold's and the declines' only, and the phrase reader
found gold in the top five of 0.95 of questions.)"""
PASS_ON = (
    "Thanks, I will pass that on to my {holder} in time for {purpose}.",
    "Lovely, my {holder} will be pleased to have that for {purpose}.",
    "Great, I will tell my {holder} about that for {purpose}.",
    "Thanks, my {holder} will be glad of that for {purpose}.")
"""The user passing a recommendation on to its holder: it names the purpose, as a take-up does
(without it an other-holder recommendation named its subject's words once less than gold, and
BM25L, which saturates term counts least, kept gold above it)."""
PUBLIC_NEWS_AVOID = ("to maintain", "much attention", "much of your time", "fiddly arrangement")
"""Replies of the "state" bank not drawn after a user's remark about a public place: they treat
the place as the user's own chore (red team 27: "the skate park hired extra staff" -> "Does it take
up much of your time?")."""
NOTED = (
    "Thanks, good to know about {venue}.", "Ah, I will bear that in mind for {venue}.",
    "Interesting, thanks for telling me about {venue}.", "Oh, I had wondered about {venue}.",
    "Right, I will remember that about {venue}.", "Noted, I go to {venue} quite often.")
"""The user's reaction to a piece of local news, good or bad: none calls it handy or useful (red
team 27: "Oh, handy to know about the bookshop." after a broken lift; nor a "tip")."""
CLOSES = {
    "other": ("I hope that helps your {holder} with {purpose}.",
              "Happy to help your {holder}, I hope it suits.",
              "Good luck to your {holder} with {purpose}.",
              "I hope it suits your {holder} for {purpose}.",
              "Do pass my good wishes to your {holder} for {purpose}.",
              "I hope that suits your {holder} nicely.",
              "Glad to help your {holder} out with {purpose}.",
              "Your {holder} should be well set for {purpose}."),
    "remark": ("Worth keeping in mind for {venue}.", "Worth knowing before a visit to {venue}.",
               "Glad to pass it on about {venue}.", "Good to keep {venue} in mind.")}
"""Assistant closes after an other-holder recommendation was passed on, naming what the exchange
was about (a take-up's or a decline's close comes from :data:`STANCE_CLOSES`)."""
STANCE_BANKS: dict[str, dict[str, tuple[str, ...]]] = {
    "list statement": {"add": ADD, "considered": CONSIDERED},
    "stance verb": STANCE_VERBS,
    "stance act": STANCE_ACTS,
    "stance reason": STANCE_REASONS,
    "stance close": STANCE_CLOSES}
"""The banks whose role a reader must not tell from word lengths in order: each role draws its
line uniformly from its bank, so every length sequence must make up the same share of each
(checked at import by :func:`length_sequence_imbalance`). Replies to list statements need no entry:
adds and names left off take one reply bank (:data:`LIST_REPLY_STANCE`)."""
LIST_REPLY_STANCE = "noted"
"""The reply bank of every list statement, added or left off
(:data:`..episodes_bank.STATEMENT_REPLIES`): "noted" replies fit either ("Thanks for filling me in
on the quiz team for the church fete."). Red team 27: with adds answered from "arranged" and names
left off from "declined", none of 58 reply frames followed both, the reply's word-length histogram
found gold at 0.93 (chance 0.516), and "a bit of patience" answered a name the user had left off."""
LIST_REPLY_AVOID: tuple[str, ...] = ("something you", "a busy spell", "curious about it",
                                     "talk it over", "these things through", "come up a lot",
                                     "debate at home", "to have it")
"""Replies of the "noted" bank not drawn after a list statement, for adds and names left off
alike: their follow-up question presupposes what was never said or does not fit a finished choice
about one person. A blind reading of 60 reply pairs (``/work/pairs1``) marked "I have now added
Zelda Ulverton to the book club ..." -> "So is it something you wonder about much?" and "... Was it
a busy spell, all in all?" misfit, and "Were people curious about it?" and "did it cause much
debate at home?" (an awards-night seating plan) awkward; red team 31 counted "Are you glad to have
it clear?" after an exclusion 56 times. The questions left fit a decision: "Was it much to think
about?", "Did it take much weighing up?", "Do you feel calm about it all?"."""
SMALL_TALK_BANNED: frozenset[str] = frozenset({"ingredient"})
"""Words this vertical's small talk avoids beside its subject words (:func:`banned_words`): the
shared bank's "I searched everywhere for an ingredient for {recipe} ..." is answered "searching
everywhere for {recipe}", which misreads what was sought (all 6 such turns of the shipped corpus;
a blind reader marked it misfit). Banned here, the shared bank and the other verticals'
corpora are untouched."""
CONSTRUCTIONS: dict[str, tuple[str, ...]] = {
    "taken": RECOMMEND, "declined": RECOMMEND, "other": RECOMMEND, "own": OWN, "add": ADD,
    "considered": CONSIDERED, "remark": REMARK}
STANCE = {"taken": "arranged", "declined": "assistant-offer-declined", "other": "other",
          "own": "intends", "add": "arranged", "considered": "declined", "remark": "state"}
ROLE = {"taken": "assistant", "declined": "assistant", "other": "assistant", "own": "user",
        "add": "user", "considered": "user"}

QUESTIONS = {
    "assistant-stated": "Which {noun} did you recommend for the {purpose} that I did not turn down?",
    "list-order": "In what order did I add names to the {noun} for the {purpose}?"}
ATTRIBUTION_FRAMES = (
    "Who said that {remark}: me or you or both of us?",
    "Which of us mentioned that {remark}? Was it me or you or both of us?",
    "Who brought up that {remark}: me or you or both of us?",
    "Who was it that said {remark}: me or you or both of us?",
    "Who pointed out that {remark}: me or you or both of us?",
    "Which of us remarked that {remark}: me or you or both of us?")
"""One frame per question, "me or you or both of us" without commas (closed choice, k = 3)."""

_CONNECTIVES = frozenset({"for", "the", "a", "an", "s"})


def _words(phrase: str) -> frozenset[str]:
    return frozenset(raw_tokens(phrase)) - _CONNECTIVES


def subject_words(subject: Subject | str) -> frozenset[str]:
    """The words a subject (or venue) owns: its question's subject words."""
    if isinstance(subject, str):
        return _words(subject)
    return _words(subject.noun) | _words(subject.purpose)


def _assert_banks() -> None:
    """Import-time: every noun, purpose, venue and claim owns its words; none is a value word or
    a frame word; remarks and claims carry no person word; shop subjects name a real trade."""
    owners: dict[str, set[str]] = {}
    units = {s.noun for s in RECOMMEND_SUBJECTS + LIST_SUBJECTS} | {
        s.purpose for s in RECOMMEND_SUBJECTS + LIST_SUBJECTS} | set(VENUES) | set(CLAIMS)
    for unit in sorted(units):
        for word in set(tokenize(unit)) - _CONNECTIVES:
            owners.setdefault(word, set()).add(unit)
    shared = {w: sorted(u) for w, u in owners.items() if len(u) > 1}
    assert not shared, f"words owned by two subjects: {shared}"
    replies = [t for rows in bank.STATEMENT_REPLIES.values() for r in rows
               for t in (r.reply, r.answer, r.close) if t]
    frames = frozenset().union(*(_words(re.sub(r"\{\w+\}", " ", t))
                                 for t in (*RECOMMEND, *REQUESTS, *OWN, *ADD, *CONSIDERED, *REMARK,
                                           *REMARK_REQUESTS, *QUESTIONS.values(),
                                           *ATTRIBUTION_FRAMES, *replies, *bank.ASSISTANT_LEADS,
                                           *bank.USER_DECLINES, *REPLY_FRAMES, *REPLY_LEADS,
                                           *(c for cs in STANCE_CLOSES.values() for c in cs),
                                           *(r for rs in STANCE_REASONS.values() for r in rs),
                                           *(a for acts in STANCE_ACTS.values() for a in acts),
                                           *PASS_ON, *ASKING_FOR, *NOTED,
                                           *(c for cs in CLOSES.values() for c in cs))))
    claim_words = frozenset().union(*(tokenize(c) for c in CLAIMS))
    clash = (set(owners) - claim_words) & (frames | values.pool_words())
    assert not clash, f"subject words used by frames, replies or values: {sorted(clash)}"
    remark_frames = frozenset().union(*(tokenize(t) for t in (*REMARK, *REMARK_REQUESTS)))
    assert not claim_words & remark_frames, sorted(claim_words & remark_frames)
    neutral = frozenset().union(*(_words(t) for t in (*REMARK, *CLAIMS)))
    assert not neutral & {"i", "me", "my", "you", "your", "we", "us", "our", "both"}, neutral
    assert all(s.trade in values.TRADES for s in RECOMMEND_SUBJECTS if s.kind == "shop")
    for banks in STANCE_BANKS.values():
        assert not length_sequence_imbalance(banks), length_sequence_imbalance(banks)
    for pairs in (LIST_PAIRS, STANCE_PAIRS, REASON_PAIRS, CLOSE_PAIRS):
        assert all(length_sequence(a) == length_sequence(b) for a, b in pairs), pairs
    assert all(c.count("{purpose}") == 1 for cs in STANCE_CLOSES.values() for c in cs)


_assert_banks()

# --------------------------------------------------------------------------------------------
# Planning: every value drawn first, then dealt; the asked subject drawn among the haystack's


@dataclass(frozen=True)
class Planned:
    """One statement before rendering: kind, subject (or venue), value or claim, holder, role."""

    kind: str
    subject: Any
    value: str | None = None
    claim: str | None = None
    holder: str | None = None
    role: str = "user"


@dataclass
class HaystackDraft:
    key: str
    sessions: list[list[Planned]]
    asked: Any
    claim: str | None
    persona: conversation.Persona


def _deal_values(rng: Any, wanted: Sequence[Subject], taken: set[str]) -> list[str]:
    """One value per entry of ``wanted`` (a subject per statement). The values of each type (each
    trade, for shops) are drawn in one call from its pool, then dealt in a random order, so which
    statement, gold or not, gets which value is decided after the draw. ``taken`` values are never
    drawn (a shop's only against its own trade: another trade's "Pellow Roofing" is another value);
    a haystack's shops never share a stem."""
    out: dict[int, str] = {}
    here: set[str] = set()
    for kind, trade in sorted({(s.kind, s.trade or "") for s in wanted}):
        slots = [i for i, s in enumerate(wanted) if (s.kind, s.trade or "") == (kind, trade)]
        avoid = {v for v in taken if not trade or v.endswith(" " + trade)} | here
        drawn = values.draw(rng, kind, len(slots), taken=avoid)  # type: ignore[arg-type]
        drawn = [f"{v.split()[0]} {trade}" if trade else v for v in drawn]
        here |= set(drawn)
        rng.shuffle(drawn)
        out.update(zip(slots, drawn))
    return [out[i] for i in range(len(wanted))]


def _families(pool: Sequence[Subject]) -> dict[str, list[Subject]]:
    """The pool's subjects by noun (a family: one noun, several purposes), in pool order."""
    out: dict[str, list[Subject]] = {}
    for subject in pool:
        out.setdefault(subject.noun, []).append(subject)
    return out


def plan(seed: int, shape: str, index: int, asked: Any, extra: int | str, rate: float,
         taken: set[str], voiced: set[str] | None = None,
         usage: Counter[str] | None = None, golds: set[str] | None = None) -> HaystackDraft:
    """The haystack of question ``index``: sessions of planned statements, gold at random places.
    ``extra``: the asked list's length (list-order) or who makes the gold remark (attribution);
    ``taken``: values no draw may return (the lexical screen's forward exclusion); ``voiced``:
    the values of ``taken`` that user turns held (assistant-stated reuses them in user turns);
    ``usage``: how often the shape has clustered each family so far (updated); ``golds``: the
    shape's golds so far (never put in a user turn)."""
    if not 0.0 <= rate <= 1.0:
        raise GenerationError(f"competition rate must lie in [0, 1], got {rate}")
    key = f"{shape}/{index:02d}"
    rng = derive_rng(seed, VERTICAL, key, "plan")
    persona = conversation.draw_persona(rng)
    # one-word holders only: "your friend from work's dining chairs" reads badly (red team 27);
    # a persona holds at most one relation per noun, so at least one one-word holder is left
    holders = [persona.holder(i).noun for i in range(len(persona.relations))
               if " " not in persona.holder(i).noun]
    h = rng.randint(*H_RANGE)
    if shape == "participant-attribution":
        return _plan_attribution(rng, key, asked, str(extra), h, rate, persona)
    if shape == "assistant-stated":
        return _plan_recommendations(rng, key, asked, h, rate, persona, holders, taken,
                                     set() if voiced is None else voiced,
                                     Counter() if usage is None else usage,
                                     set() if golds is None else golds)
    return _plan_lists(seed, rng, key, asked, int(extra), h, rate, persona, taken)


def _plan_lists(seed: int, rng: Any, key: str, asked: Subject, length: int, h: int, rate: float,
                persona: conversation.Persona, taken: set[str]) -> HaystackDraft:
    """list-order: every session adds one person to one list, and every list is *clustered*.

    The asked list has ``length`` items; the others (drawn uniformly) have lengths drawn as the
    asked one's is, but for a last one that takes the rest of the haystack, so no list recurs more
    for being asked (with filler lists of 1-7 items the asked one was among the longest, and a
    classifier reading recurrence put gold first in half the questions). Every list gets ``c``
    ``considered`` side statements (the dial times the non-gold sessions, rounded at random), in
    sessions of other lists that pick in rounds, least-loaded first
    (:func:`..engine.cluster_hosts`); a session no list picked considers another of the
    haystack's lists, drawn uniformly, so every session holds two statements (a session length
    shared by too few sessions would break V7's role-sequence rule) and extra mentions favour no
    list."""
    lengths = {asked: length}
    # the other lists drawn uniformly: a sibling of the asked list (same noun) turns up as often as
    # any list's does (red team 7: when the asked list always had one, "a list with a sibling"
    # found gold question-blind at AUC 0.80)
    others = rng.sample([s for s in LIST_SUBJECTS if s != asked], len(LIST_SUBJECTS) - 1)
    used = 0  # non-gold sessions: h of them
    for subject in others:
        if used >= h:
            break
        lengths[subject] = min(rng.randint(*LIST_LENGTH), h - used)
        used += lengths[subject]
    if used < h:
        raise GenerationError(f"{key}: the list pool cannot fill {h} sessions")
    lists = list(lengths)
    mains = [s for s, k in lengths.items() for _ in range(k)]
    rng.shuffle(mains)
    n = len(mains)
    # at most one side statement per session (a rare three-statement session would have a
    # length too few sessions share, V7's role-sequence rule)
    # (so the count is the largest up to the dial's that the rounds can seat: it reads the list
    # lengths only, never which list is asked)
    count = min(int(rate * (n - length) + rng.random()), n // len(lists))
    barred = [frozenset(i for i, s in enumerate(mains) if s == subject) for subject in lists]
    while True:
        try:
            hosts = engine.cluster_hosts(derive_rng(seed, VERTICAL, key, "clusters"), n,
                                         [min(bar) for bar in barred], count, [1] * n,
                                         barred=barred)
            break
        except GenerationError:
            count -= 1
    sides: list[list[Subject]] = [[] for _ in range(n)]
    for subject, chosen in zip(lists, hosts):
        for i in chosen:
            sides[i].append(subject)
    for i, row in enumerate(sides):
        if not row:  # another list of the haystack, drawn alike for every list
            row.append(rng.choice([s for s in lists if s != mains[i]]))
    dealt = iter(_deal_values(rng, [*mains, *(s for row in sides for s in row)], taken))
    sessions = [[Planned("add", s, next(dealt), role=ROLE["add"])] for s in mains]
    for i, row in enumerate(sides):
        for subject in row:
            sessions[i].append(Planned("considered", subject, next(dealt),
                                       role=ROLE["considered"]))
        rng.shuffle(sessions[i])
    return HaystackDraft(key, sessions, asked, None, persona)


def attribution_degree(rate: float) -> int:
    """participant-attribution's dial as a grid degree k: every venue of the haystack is paired
    with k claims and every claim with k venues (rate 0.2 -> 3)."""
    return 2 + round(5 * rate)


C_MAX = 12
"""assistant-stated's competitors per clustered subject at most: a haystack's three statements per
session spend values of a type faster than the one-pool draws of a whole shape can afford beyond
it (the lexical screen keeps every value a user turn has held out of later draws)."""
CLUSTERED_PER_SESSION = 2
"""assistant-stated: every session holds three statements (one taken-up recommendation, two side
statements), exactly this many of them about clustered subjects."""


def recommendation_geometry(h: int, rate: float, u: float) -> tuple[int, int]:
    """assistant-stated's (clustered subjects P, competitors c per subject) for a drawn length
    ``h``: c is the dial times ``h - 1`` (rounded at random by ``u``), P the even number of clustered
    subjects (both purposes of P / 2 families) whose P (c + 1) statements fill a haystack of
    P (c + 1) / 2 sessions, gold's and the others, nearest ``h + 1`` within :data:`H_RANGE`."""
    low, high = H_RANGE
    c = max(1, min(C_MAX, int(rate * (h - 1) + u)))
    families = len(_families(RECOMMEND_SUBJECTS))
    fits = [p for p in range(2, 2 * families + 1, 2)
            if low <= p * (c + 1) // CLUSTERED_PER_SESSION - 1 <= high
            and p + p * (c + 1) // CLUSTERED_PER_SESSION <= len(RECOMMEND_SUBJECTS)]
    if not fits:
        raise GenerationError(f"no assistant-stated haystack of {H_RANGE} non-gold sessions holds "
                              f"clusters of {c} competitors")
    return min(fits, key=lambda p: (abs(p * (c + 1) // CLUSTERED_PER_SESSION - 1 - h), p)), c


def _side_hosts(rng: Any, n: int, owns: Sequence[int], count: int, key: str) -> list[list[int]]:
    """For each clustered subject (own session ``owns[x]``), the ``count`` sessions holding its side
    statements: one clustered side in every own session and two in every other, never two
    statements of one subject in a session. Drawn by rejection (a drawn slot order, each subject in
    a drawn turn taking the first free slot it may hold), so every valid assignment can come up."""
    slots = [i for i in range(n) for _ in range(1 if i in owns else 2)]
    for _ in range(200):
        order = rng.sample(slots, len(slots))
        chosen: list[list[int]] = [[] for _ in owns]
        turn = rng.sample(range(len(owns)), len(owns))
        ok = True
        for _round in range(count):
            for x in turn:
                pick = next((j for j, i in enumerate(order)
                             if i != owns[x] and i not in chosen[x]), None)
                if pick is None:
                    ok = False
                    break
                chosen[x].append(order.pop(pick))
            if not ok:
                break
        if ok and not order:
            return chosen
    raise GenerationError(f"{key}: no placement of {len(owns)} clusters of {count} competitors in "
                          f"{n} sessions")


def _plan_recommendations(rng: Any, key: str, asked: Subject, h: int, rate: float,
                          persona: conversation.Persona, holders: Sequence[str],
                          taken: set[str], voiced: set[str], usage: Counter[str],
                          golds: set[str]) -> HaystackDraft:
    """assistant-stated: every session holds one taken-up recommendation and two side statements,
    and exactly two of the three are about *clustered* subjects.

    P clustered subjects (both purposes of the asked subject's family and of P / 2 - 1 decoy
    families) each have an own session (its taken-up recommendation) and c side statements
    elsewhere; single subjects are named once each. An own session holds its taken-up
    recommendation, one clustered side and one single side; any other session a single taken-up
    recommendation and two clustered sides. So every session holds the same kinds in the same
    counts, and "the taken-up recommendation of a subject that recurs" narrows gold to P sessions,
    not one: the sibling purpose (the other-instance competitor) is itself clustered and taken up.
    Decoy families are the ones the shape has clustered least so far (``usage``, in a drawn order
    among ties), so no noun crowds the corpus. (The first v3 build clustered the asked subject only: question-blind AUC 0.90. The second gave
    K = 2..3 clusters, one clustered statement per session: red team 8 found gold in 0.35 of
    questions question-blind, the taken-up recommendation of the subject named most.)"""
    clusters, count = recommendation_geometry(h, rate, rng.random())
    n = clusters * (count + 1) // CLUSTERED_PER_SESSION
    families = _families(RECOMMEND_SUBJECTS)
    drawn = rng.sample([noun for noun in families if noun != asked.noun], len(families) - 1)
    nouns = [asked.noun, *sorted(drawn, key=lambda noun: usage[noun])[:clusters // 2 - 1]]
    usage.update(nouns)
    clustered = [s for noun in nouns for s in families[noun]]
    rest = [s for s in RECOMMEND_SUBJECTS if s.noun not in nouns]
    singles = rng.sample(rest, n)
    order = rng.sample(range(n), n)
    owns = order[:len(clustered)]
    hosts = _side_hosts(rng, n, owns, count, key)
    own_of = dict(zip(owns, clustered))
    sides_of: list[list[Subject]] = [[] for _ in range(n)]
    for subject, where in zip(clustered, hosts):
        for i in where:
            sides_of[i].append(subject)
    mains: list[Subject] = []
    for i in range(n):
        if i in own_of:
            mains.append(own_of[i])
            sides_of[i].append(singles[i])
        else:
            mains.append(singles[i])
    deck: list[str] = []
    rows: list[list[tuple[str, Subject]]] = []
    for i in range(n):
        row = [("taken", mains[i])]
        for subject in sides_of[i]:
            if not deck:
                deck = rng.sample(KIND_DECK["assistant-stated"],
                                  len(KIND_DECK["assistant-stated"]))
            row.append((deck.pop(), subject))
        rows.append(row)
    flat = [x for row in rows for x in row]
    said = [x for x in flat if ROLE[x[0]] == "assistant"]
    own = [x for x in flat if ROLE[x[0]] != "assistant"]
    dealt = dict(zip(map(id, said), _deal_values(rng, [s for _, s in said], taken)))
    here = set(dealt.values())
    dealt.update(zip(map(id, own), _deal_voiced(rng, [s for _, s in own], voiced,
                                                golds | here)))
    sessions: list[list[Planned]] = []
    for row in rows:
        planned = [Planned(kind, subject, dealt[id(x)], role=ROLE[kind],
                           holder=rng.choice(holders) if kind == "other" else None)
                   for x in row for kind, subject in (x,)]
        rng.shuffle(planned)
        sessions.append(planned)
    return HaystackDraft(key, sessions, asked, None, persona)


def _deal_voiced(rng: Any, wanted: Sequence[Subject], voiced: set[str], avoid: set[str]
                 ) -> list[str]:
    """Values for the user's own statements: those an earlier user turn of the shape already held
    first (drawn among them, none twice in a haystack), fresh ones from the one pool only when
    none is left; never one of ``avoid`` (earlier golds, this haystack's assistant values).

    Why: the lexical screen keeps every value a user turn has held out of later assistant draws,
    so fresh user values each round would drain a type's pool (a haystack of three statements a
    session needs a third of the brands). A user statement is the user's in plain text, so where
    its value was seen before says nothing a reader cannot see; assistant values, gold among them,
    stay one role-blind deal (:func:`_deal_values`)."""
    out: list[str] = []
    used = set(avoid)
    for subject in wanted:
        fits = sorted(v for v in voiced - used if values.value_type(v) == subject.kind and (
            not subject.trade or v.endswith(" " + subject.trade)))
        if fits:
            value = rng.choice(fits)
        else:
            value = _deal_values(rng, [subject], used)[0]
        used.add(value)
        out.append(value)
    return out


def _plan_attribution(rng: Any, key: str, venue: str, stated_by: str, h: int, rate: float,
                      persona: conversation.Persona) -> HaystackDraft:
    """A *regular grid* of remarks, each said twice, gold drawn after it.

    ``r`` venues (the asked one among them) and ``r`` claims; remark cells form a circulant k-regular
    pairing (venue i with claims i .. i + k - 1 mod r, rows and columns in drawn orders), so every
    remark shares its venue with k - 1 others and its claim with k - 1 others: no remark is the
    centre of the haystack's recurrence. (v3's first build gave gold k near-misses and k
    same-claims of its own and filler random pairs, so gold was the one remark whose venue and
    claim both recurred: question-blind AUC 0.73.) Every remark is said twice, in two sessions, by
    speakers drawn one by one, so a repeated remark, or one said by each of us, is no tell; the
    gold claim is drawn among the asked venue's k, and the gold remark's speakers are set to the
    question's answer (both by me, both by you, or one each). Competitors are the asked venue's
    other remarks (``near-miss``) and the gold claim's other venues (``same-claim``)."""
    k = attribution_degree(rate)
    fits = [r for r in range(k, len(VENUES) + 1) if H_RANGE[0] <= 2 * r * k - 2 <= H_RANGE[1]]
    if not fits:
        raise GenerationError(f"{key}: no {k}-regular remark grid has {H_RANGE} non-gold sessions")
    r = min(fits, key=lambda x: (abs(2 * x * k - 2 - h), x))
    venues = [venue, *rng.sample([v for v in VENUES if v != venue], r - 1)]
    rng.shuffle(venues)
    claims = rng.sample(CLAIMS, r)
    cells = [(venues[i], claims[(i + j) % r]) for i in range(r) for j in range(k)]
    claim = rng.choice([c for v, c in cells if v == venue])
    gold_roles = {"user": ["user", "user"], "assistant": ["assistant", "assistant"],
                  "both": rng.sample(engine.ROLES, 2)}[stated_by]
    sessions: list[list[Planned]] = []
    for v, c in cells:
        roles = gold_roles if (v, c) == (venue, claim) else [rng.choice(engine.ROLES)
                                                             for _ in range(2)]
        sessions += [[Planned("remark", v, claim=c, role=role)] for role in roles]
    rng.shuffle(sessions)
    return HaystackDraft(key, sessions, venue, claim, persona)


def _statement(rng: Any, said: Planned, decks: dict[Any, list[int]] | None = None) -> Statement:
    """A planned statement in the next frame of its kind (gold and competitors share frames).
    ``decks``: a list statement's frame is dealt from a shuffled deck per list and kind, kept
    across the haystack, so each role of each list sees the frame pairs as evenly as its count
    allows (:func:`_list_frame`)."""
    frame = (_list_frame(rng, said, decks) if decks is not None and said.kind in LIST_KINDS
             else rng.choice(CONSTRUCTIONS[said.kind]))
    if said.kind == "remark":
        text = frame.format(subject=said.subject, claim=said.claim)
        if said.role == "user":
            return Statement(text, said.subject, "state", avoid=PUBLIC_NEWS_AVOID)
        slots = {"venue": said.subject}
        return Statement(text, said.subject, "state", role="assistant",
                         request=rng.choice(REMARK_REQUESTS),
                         reaction=rng.choice(NOTED).format(**slots),
                         close=rng.choice(CLOSES["remark"]).format(**slots))
    subject: Subject = said.subject
    speaker = "assistant" if said.role == "assistant" else "user"
    text = frame.format(subject=subject.phrase(said.holder, speaker=speaker), value=said.value)
    # a decline's reply and close name the purpose, as a take-up's do (see STANCE_ACTS)
    topic = (f"the {subject.purpose}" if said.kind == "declined"
             else subject.phrase(said.holder, speaker="assistant"))
    if said.role == "user":
        if said.kind in LIST_KINDS:
            return Statement(text, subject.phrase(), LIST_REPLY_STANCE, avoid=LIST_REPLY_AVOID)
        return Statement(text, subject.phrase(), STANCE[said.kind])  # type: ignore[arg-type]
    request = rng.choice(REQUESTS).format(indef=subject.indef, purpose=subject.purpose_phrase())
    if said.holder:  # asked in gold's words, then who it is for (see ASKING_FOR)
        request += " " + rng.choice(ASKING_FOR).format(holder=said.holder)
    slots = {"purpose": f"the {subject.purpose}", "holder": said.holder or ""}
    if said.holder:
        reaction = rng.choice(PASS_ON).format(**slots)
        close = rng.choice(CLOSES["other"]).format(**slots)
    else:
        reaction, close = _answer(rng, said.kind, slots["purpose"])
    return Statement(text, topic, STANCE[said.kind], role="assistant",  # type: ignore[arg-type]
                     holder=said.holder, request=request[:1].upper() + request[1:],
                     reaction=reaction, close=close)


LIST_KINDS = ("add", "considered")


def _list_frame(rng: Any, said: Planned, decks: dict[Any, list[int]]) -> str:
    """The next frame of a list statement's kind from its list's deck (refilled, shuffled, when
    empty). Why a deck: drawn independently, the frames of the asked list's few adds and names
    left off drifted apart by chance (in one build "decided to pick" 14 times against "decided to
    skip" 6 over the shape's 155 candidates, so a held-out reader of character length found gold
    at 0.76 against 0.52, though the twins' lengths are equal by construction). Dealt for every
    list and both kinds alike: gold-blind."""
    frames = CONSTRUCTIONS[said.kind]
    deck = decks.setdefault((said.kind, said.subject), [])
    if not deck:
        deck.extend(rng.sample(range(len(frames)), len(frames)))
    return frames[deck.pop()]


def _answer(rng: Any, kind: str, purpose: str) -> tuple[str, str]:
    """The user's reply to a recommendation, with its reason, and the assistant's close (see
    :data:`STANCE_ACTS`, :data:`REASON_PAIRS`, :data:`STANCE_CLOSES`): every part drawn from the
    stance's own bank, the banks of both stances alike in shape."""
    act = f"{rng.choice(STANCE_VERBS[kind])} {rng.choice(OBJECTS)}"
    reply = rng.choice(REPLY_FRAMES).format(lead=rng.choice(REPLY_LEADS), act=act, purpose=purpose)
    reason = rng.choice(STANCE_REASONS[kind])
    close = rng.choice(STANCE_CLOSES[kind]).format(purpose=purpose)
    return _with_reason(reply, reason), close


def _with_reason(reply: str, reason: str) -> str:
    """``reply`` (a sentence ending in a full stop) closed by the clause ``reason``."""
    return f"{reply[:-1]}, {reason}."


def banned_words(shape: str) -> frozenset[str]:
    """Words small talk must not use: every subject and venue word (so asked words stay rare and
    owned), the one-word answer-key names the leak gate scans for and, for
    participant-attribution, every content word of a claim (the question quotes its remark).
    Value words need no ban: no scaffold line holds a capitalised word."""
    units = [s.noun for s in RECOMMEND_SUBJECTS + LIST_SUBJECTS] + [
        s.purpose for s in RECOMMEND_SUBJECTS + LIST_SUBJECTS] + list(VENUES)
    words = frozenset().union(*(_words(u) for u in units)) | {"judge", "typedmemeval"} | \
        SMALL_TALK_BANNED
    if shape == "participant-attribution":
        words |= frozenset().union(*(tokenize(c) for c in CLAIMS))
    return words


LENGTH_FLOOR = {"assistant-stated": 3, "list-order": LIST_LENGTH[1] + 1,
                "participant-attribution": 3}
"""A session length (turn count; roles always alternate, so the length *is* the role sequence) must
be shared by at least this many sessions of its haystack: more than the shape's largest G, so
every gold session's role sequence occurs among its distractors (VERTICALS.md §4.4)."""
RERENDERS = 80


def render(seed: int, draft: HaystackDraft, tally: engine.Tally | None = None) -> engine.Haystack:
    """Render every session through :func:`..conversation.render_session` (one persona, one
    banned-word set), each from its own stream, so a session can be drawn again alone: a session
    whose length fewer than :data:`LENGTH_FLOOR` sessions share is re-drawn until it has a common
    one. Gold-blind: the rule reads lengths only, never which session will answer."""
    shape = draft.key.split("/")[0]
    rng = derive_rng(seed, VERTICAL, draft.key, "say")
    n = len(draft.sessions)
    times, asked_at = engine.daily_times(rng, n)
    decks: dict[Any, list[int]] = {}
    stays = [[_statement(rng, said, decks) for said in session] for session in draft.sessions]
    banned = banned_words(shape)

    def session(i: int, attempt: int) -> conversation.Rendered:
        return conversation.render_session(derive_rng(seed, VERTICAL, draft.key, "session", i,
                                                      attempt), stays[i], draft.persona, banned,
                                           fused=shape == "assistant-stated")

    rendered = [session(i, 0) for i in range(n)]
    counts = Counter(len(r.turns) for r in rendered)
    common = {k for k, c in counts.items() if c >= LENGTH_FLOOR[shape]} or {
        counts.most_common(1)[0][0]}
    for i in range(n):
        attempt = 0
        while len(rendered[i].turns) not in common:
            attempt += 1
            if attempt > RERENDERS:
                raise GenerationError(f"{draft.key}: session {i} never reaches a common length")
            rendered[i] = session(i, attempt)
    if tally is not None:
        for r, statements in zip(rendered, stays):
            tally.sentences += sum(engine.sentence_count(turn.text) for turn in r.turns)
            tally.fact_sentences += sum(engine.sentence_count(x.text) for x in statements)
    return engine.Haystack(draft.key, engine.session_ids(seed, VERTICAL, draft.key, n), times,
                           asked_at, [r.turns for r in rendered],
                           [r.statement_turns for r in rendered], [None] * n)


# --------------------------------------------------------------------------------------------
# Reading back (V5): every statement about the asked subject, from the rendered text alone


class Read(NamedTuple):
    session: int
    piece: int
    kind: str
    role: str
    value: str | None
    holder: str | None


_DECLINE = re.compile("|".join(
    re.escape(_with_reason(frame, "@"))
    .replace(r"\{lead\}", "(?:" + "|".join(map(re.escape, REPLY_LEADS)) + ")")
    .replace(r"\{act\}", "(?:" + "|".join(re.escape(a) for a in STANCE_ACTS["declined"]) + ")")
    .replace(r"\{purpose\}", ".+")
    .replace("@", "(?:" + "|".join(map(re.escape, STANCE_REASONS["declined"])) + ")")
    for frame in REPLY_FRAMES))
"""A user turn that turns an assistant suggestion down (a reply frame with a declining act, then a
decline's reason)."""
_VALUE = r"(?P<value>[A-Z][a-z]+(?: [A-Z][a-z]+)?)"
_HOLDERS = sorted({r.noun for r in bank.RELATIONS.values()}, key=len, reverse=True)


@lru_cache(maxsize=4096)
def _pattern(kind: str, subject: Any, claim: str | None = None) -> re.Pattern[str]:
    """Every frame of ``kind`` about ``subject`` (any holder), capturing value and holder."""
    parts = []
    for i, frame in enumerate(CONSTRUCTIONS[kind]):
        if isinstance(subject, Subject):
            holder = f"(?:your|my) (?P<holder{i}>" + "|".join(map(re.escape, _HOLDERS)) + ")'s "
            about = (re.escape(f"the {subject.noun} for ") + f"(?:the |{holder})"
                     + re.escape(subject.purpose))
        else:
            about = re.escape(subject)
        head = frame[:1]  # a fused change of subject lowers a frame's first letter
        frame_re = (f"[{head}{head.lower()}]" if head.isupper() and frame[1:2] != " " else
                    re.escape(head)) + re.escape(frame[1:])
        parts.append(frame_re.replace(r"\{subject\}", about)
                     .replace(r"\{claim\}", re.escape(claim or ""))
                     .replace(r"\{value\}", _VALUE.replace("<value>", f"<value{i}>")))
    return re.compile("|".join(f"(?:{p})" for p in parts))


def _groups(match: re.Match[str], name: str) -> str | None:
    found = [v for k, v in match.groupdict().items() if k.startswith(name) and v]
    return found[0] if found else None


def read(stay: engine.Haystack, kinds: Sequence[str], subject: Any,
         claim: str | None = None) -> list[Read]:
    """Statements of ``kinds`` about ``subject`` in the rendered text, with what the next turn
    says of them (an assistant recommendation the user turned down reads as ``declined``)."""
    found: list[Read] = []
    for s, session in enumerate(stay.sessions):
        for t, turn in enumerate(session):
            seen: set[tuple[int, int]] = set()
            for kind in kinds:
                for match in _pattern(kind, subject, claim).finditer(turn.text):
                    if match.span() in seen:
                        continue
                    seen.add(match.span())
                    if t not in stay.piece_turns[s]:
                        raise GenerationError(f"{stay.key}: a {kind} statement outside any piece")
                    value, holder = _groups(match, "value"), _groups(match, "holder")
                    read_kind = kind
                    if kind in ("taken", "declined", "other"):
                        nxt = session[t + 1].text if t + 1 < len(session) else ""
                        read_kind = "other" if holder else (
                            "declined" if _DECLINE.fullmatch(nxt) else "taken")
                    found.append(Read(s, stay.piece_turns[s].index(t), read_kind, turn.role,
                                      value, holder))
    return found


def check_values(stay: engine.Haystack, draft: HaystackDraft) -> None:
    """Every planned value occurs in exactly one session, typed as its subject wants."""
    joined = ["\n".join(turn.text for turn in session) for session in stay.sessions]
    for said in (x for session in draft.sessions for x in session if x.value):
        value: str = said.value  # type: ignore[assignment]
        holding = [i for i, text in enumerate(joined) if value in text]
        if len(holding) != 1:
            raise GenerationError(f"{stay.key}: {value!r} is in sessions {holding}")
        want, got = said.subject.kind, values.value_type(value)
        if got != want or (said.subject.trade and not value.endswith(said.subject.trade)):
            raise GenerationError(f"{stay.key}: {value!r} is a {got}, not a {want}")


def screen_assistant_stated(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """§2.2 rule 1, lexical pass: no assistant-stated gold, as a whole value, in any user turn."""
    users = "\n".join(t["content"] for r in records for s in r["haystack_sessions"] for t in s
                      if t["role"] == "user")
    golds = [r for r in records if r["typedmemeval"]["shape"] == "assistant-stated"]
    for r in golds:
        if re.search(r"\b" + re.escape(r["answer"]) + r"\b", users):
            raise GenerationError(f"{r['question_id']}: assistant-stated gold {r['answer']!r} "
                                  "reaches a user turn")
    return {"questions": len(golds), "user_turns": users.count("\n") + 1, "hits": 0}


# --------------------------------------------------------------------------------------------
# Records


def _gold(stay: engine.Haystack, shape: str, draft: HaystackDraft
          ) -> tuple[list[Read], list[Read], str, dict[str, Any]]:
    """Gold statements, competitor statements, the answer and the shape's key fields, read back
    from the text; every planned competitor must be read back with its kind."""
    asked = draft.asked
    planned = planned_rivals(draft)
    block: dict[str, Any]
    if shape == "assistant-stated":
        said = read(stay, ("taken", "own"), asked)
        gold = [x for x in said if x.kind == "taken"]
        rivals = [x for x in said if x.kind != "taken"]
        if len(gold) != 1 or gold[0].role != "assistant" or gold[0].value is None:
            raise GenerationError(f"{stay.key}: {len(gold)} recommendations of "
                                  f"{asked.phrase()!r} the user did not turn down")
        if any(x.role != ROLE[x.kind] for x in rivals):
            raise GenerationError(f"{stay.key}: a competitor in the wrong speaker's turn")
        answer, block = gold[0].value, {"stated_by": "assistant"}
    elif shape == "list-order":
        said = read(stay, ("add", "considered"), asked)
        gold = sorted(x for x in said if x.kind == "add")
        rivals = [x for x in said if x.kind != "add"]
        items = [x.value for x in gold]
        if len({x.session for x in gold}) != len(gold) or {x.role for x in said} != {"user"}:
            raise GenerationError(f"{stay.key}: the asked list is not one user item per session")
        if not LIST_LENGTH[0] <= len(items) <= LIST_LENGTH[1] or None in items:
            raise GenerationError(f"{stay.key}: the asked list has {len(items)} items")
        ordered = sorted(items)  # type: ignore[type-var]
        answer = ", ".join(items)  # type: ignore[arg-type]
        block = {"stated_by": "user", "gold_components_load_bearing": True,
                 "list_order": {"items": ordered,
                                "presented_order": [ordered.index(i) for i in items],
                                "session_indices": [gold[items.index(i)].session for i in ordered]}}
    else:
        said = read(stay, ("remark",), asked, draft.claim)
        gold = said
        roles = sorted({x.role for x in said})
        if len(said) != 2 or len({x.session for x in said}) != 2:
            raise GenerationError(f"{stay.key}: the remark is said {len(said)} times by {roles}, "
                                  "not twice in two sessions")
        stated_by = roles[0] if len(roles) == 1 else "both"
        rivals = [x._replace(kind="near-miss") for c in CLAIMS if c != draft.claim
                  for x in read(stay, ("remark",), asked, c)]
        rivals += [x._replace(kind="same-claim") for v in VENUES if v != asked
                   for x in read(stay, ("remark",), v, draft.claim)]
        answer = ANSWER_FOR[stated_by]
        block = {"stated_by": stated_by, "instruction": ATTRIBUTION_INSTRUCTION,
                 **({"gold_components_load_bearing": True} if stated_by == "both" else {})}
    got = {kind: sum(x.kind == kind for x in rivals) for kind in planned}
    if got != planned or len(rivals) != sum(planned.values()):
        raise GenerationError(f"{stay.key}: competitors read back as {got}, planned {planned}")
    return gold, rivals, answer, block


def planned_rivals(draft: HaystackDraft) -> dict[str, int]:
    """Planned competitor statements of the asked subject (venue, claim), by kind."""
    out: Counter[str] = Counter()
    for x in (x for session in draft.sessions for x in session):
        if x.kind == "remark":
            if (x.subject == draft.asked) != (x.claim == draft.claim):
                out["near-miss" if x.subject == draft.asked else "same-claim"] += 1
        elif x.subject == draft.asked and x.kind not in ("taken", "add"):
            out[x.kind] += 1
    return dict(out)


def make_record(stay: engine.Haystack, shape: str, draft: HaystackDraft, frame: str
                ) -> tuple[dict[str, Any], list[str]]:
    """The question record with gold read back from the text, and answers that must not pass."""
    gold, rivals, answer, block = _gold(stay, shape, draft)
    everything = [x.value for s in draft.sessions for x in s if x.value]
    others = [v for v in everything if v != answer and not (
        shape == "list-order" and v in answer.split(", "))]
    if shape == "list-order":
        items = answer.split(", ")
        wrong = [", ".join(reversed(items)), ", ".join(items[1:] + items[:1]),
                 *(f"{answer}, {x.value}" for x in rivals)]
        block.update(answer_key=engine.answer_key(list_order=items, wrong=others),
                     dial={"name": "list_length", "value": len(gold)},
                     difficulty=len(gold) - LIST_LENGTH[0] + 1)
    else:
        if shape == "assistant-stated":
            key = engine.answer_key(accepted=[answer], wrong=others)
            wrong = [x.value for x in rivals if x.value] + others[:2]
        else:
            wrong = [c for c in CHOICES if c != answer]
            key = engine.answer_key(accepted=[answer], wrong=wrong, choices=list(CHOICES))
        after = len(stay.sessions) - 1 - max(x.session for x in gold)
        block.update(answer_key=key, dial={"name": "sessions_after_gold", "value": after},
                     difficulty=1 + min(4, (5 * after) // len(stay.sessions)))
    kind = "item" if shape == "list-order" else None
    block["gold_components"] = [{"kind": kind or f"{x.role}_statement", "session_index": x.session,
                                 "memory_type": MEMORY_TYPE} for x in sorted(gold)]
    asked = draft.asked
    if shape == "participant-attribution":
        question = frame.format(remark=f"{asked} {draft.claim}")
    else:
        question = QUESTIONS[shape].format(noun=asked.noun, purpose=asked.purpose)
    rec = engine.record(stay, question_id=stay.key, vertical=VERTICAL, shape=shape,
                        memory_type=MEMORY_TYPE, question=question, answer=answer,
                        gold=[(x.session, x.piece) for x in gold], block=block)
    return rec, wrong


def _asked(layout: Any, shape: str) -> tuple[list[Any], list[int | str]]:
    """Per question of ``shape``: the asked subject (drawn from the one list the filler also uses)
    and the list length or the gold speaker."""
    count = N_BY_SHAPE[shape]
    if shape == "participant-attribution":
        extras: list[int | str] = [a for a in ("user", "assistant", "both") for _ in range(count // 3)]
        subjects: list[Any] = layout.sample(VENUES, count)
    else:
        pool = RECOMMEND_SUBJECTS if shape == "assistant-stated" else LIST_SUBJECTS
        subjects = [layout.choice(pool) for _ in range(count)] if len(pool) < count else \
            layout.sample(pool, count)
        if shape == "assistant-stated":
            # one question per family: both purposes of a clustered family recur, so a family
            # asked twice put its noun in over a tenth of the corpus's sessions
            subjects = [layout.choice(members) for members in layout.sample(
                list(_families(pool).values()), count)]
        if shape == "list-order":
            # at most two lists of one family asked: every list is clustered, so a family asked
            # three times put its noun in over a tenth of the corpus's sessions
            asked_of: Counter[str] = Counter()
            subjects = []
            for subject in layout.sample(pool, len(pool)):
                if asked_of[subject.noun] < 2 and len(subjects) < count:
                    subjects.append(subject)
                    asked_of[subject.noun] += 1
        extras = [LIST_LENGTH[0] + (i * (LIST_LENGTH[1] - LIST_LENGTH[0] + 1)) // count
                  for i in range(count)]
    layout.shuffle(extras)
    return subjects, extras


class Built(NamedTuple):
    """One question as built: its plan, its rendered haystack and its record (provisional id)."""

    draft: HaystackDraft
    stay: engine.Haystack
    record: dict[str, Any]


def build_shape(seed: int, shape: str, rate: float, tally: engine.Tally | None = None
                ) -> list[Built]:
    """Every question of ``shape``, each checked (values, V5 read-back, judge) as it is built."""
    layout = derive_rng(seed, VERTICAL, shape, "layout")
    taken: set[str] = set()
    voiced: set[str] = set()
    golds: set[str] = set()
    usage: Counter[str] = Counter()
    out: list[Built] = []
    for index, (asked, extra) in enumerate(zip(*_asked(layout, shape))):
        frame = layout.choice(ATTRIBUTION_FRAMES)
        draft = plan(seed, shape, index, asked, extra, rate, taken, voiced, usage, golds)
        stay = render(seed, draft, tally)
        engine.check_haystack(stay)
        check_values(stay, draft)
        rec, wrong = make_record(stay, shape, draft, frame)
        engine.judge_gold(rec, wrong_answers=wrong)
        out.append(Built(draft, stay, rec))
        # The lexical screen by construction: a value that reached a user turn is never drawn
        # for an assistant turn again (gold or not, so a value's role among the assistant's
        # never steers a draw), and a gold never reaches a user turn (user turns reuse the voiced
        # values and avoid golds). A gold stays in the assistant pool: excluding it from later
        # draws made gold values the ones found in fewest other haystacks (red team 10: the
        # value least found elsewhere was gold in 0.53 of questions, random 0.30).
        if shape == "assistant-stated":
            voiced |= {x.value for s in draft.sessions for x in s if x.value and x.role == "user"}
            golds.add(rec["answer"])
            taken.clear()
            taken |= voiced
    return out


def build(seed: int, competition_by_shape: Mapping[str, float], *,
          shapes: Sequence[str] = SHAPES) -> engine.Built:
    """The corpus (records in id order) and the rendering tally; every validity rule checked.
    A shape's records depend on the seed and its own dial only."""
    tally = engine.Tally()
    records: list[dict[str, Any]] = []
    asked_words: dict[str, list[str]] = {}
    for shape in (s for s in SHAPES if s in shapes):
        for built in build_shape(seed, shape, float(competition_by_shape[shape]), tally):
            records.append(built.record)
            asked_words[built.draft.key] = sorted(subject_words(built.draft.asked))
    screen_assistant_stated(records)
    if set(shapes) >= set(SHAPES):
        engine.check_rarity(records, asked_words)
    stubs = [{"question_id": f"{s}/{i:02d}"} for s in SHAPES if s not in shapes
             for i in range(N_BY_SHAPE[s])]
    engine.assign_ids(records + stubs, seed=seed, vertical=VERTICAL, abbrev=ABBREV)
    records.sort(key=lambda r: r["question_id"])
    return engine.Built(engine.finish(records), tally)

