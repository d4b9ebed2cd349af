"""TypedMemEval-Episodic's phrase banks and subject tables (the declaration is :mod:`.episodic`).

Kept apart from the declaration because they are data: subjects in families, venues and claims,
and every frame a statement, a reply or a close is drawn from, with the reasons each bank is
shaped as it is (most of them a red team's finding). :func:`_assert_banks` checks at import that
every subject owns its words and that no bank's role can be read off word lengths; the declaration
and its planner import the banks from here and never the other way round.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...retrieval.tokenizer import raw_tokens, tokenize
from .. import episodes_bank as bank
from .. import values
from ..length_balance import length_sequence, length_sequence_imbalance

VERTICAL = "episodic"
"""The vertical's name, under which every random stream of its generation is derived (declared
here, below the declaration and its planner, so both read the one definition)."""

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
