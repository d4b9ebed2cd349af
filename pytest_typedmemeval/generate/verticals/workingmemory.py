"""TypedMemEval-WorkingMemory revision 3 (VERTICALS.md §2.4, Appendices A, C, D) over the v3 engine.

**The construct.** Recall of a stable profile fact against how far back it was stated: 12 fact
families x 5 distance rungs (shapes ``distance-8`` .. ``distance-60``), each cell its own haystack
of 65 sessions (G = 1, H = 64, one constant :data:`INTERVAL` between sessions and before the
question, so session and time distance agree in every cell). A family (:data:`FAMILIES`, e.g.
"clubs") has seven kinds; each rung asks a different one of them ("Which gym have I joined?",
"Which choir have I performed with?"), drawn, so no kind is asked twice.

**What v2 got wrong and what replaces it** (an outside audit beat v2 without memory):

1. *Gold at five fixed indices* (64 - d). Now a rung is a **window** of distances
   (:data:`WINDOWS`, d = sessions after the gold one): 8 -> 5..11, 15 -> 12..19, 25 -> 20..31,
   40 -> 32..47, 60 -> 48..63; the rung's twelve distances are dealt evenly over its window (every
   distance of the window equally often, up to one), families drawn onto them. Gold is never
   first or last. A position prior still finds the window (the rung *is* a position band: the
   construct), which is declared for that one rule in ``gates/declarations.py``; every other
   adversary binds. ``distance_sessions`` holds the realised d.
2. *Haystacks differing only in gold.* No two haystacks share a session: each cell draws and
   renders its own 65 sessions, so diffing haystacks finds nothing.
3. *The question's phrase only in gold.* Every session states one **own** fact (first person,
   present perfect) of a distinct kind from one bank of :data:`KINDS` (84 kinds, every asked one
   among them), so gold's construction is every session's, and the asked kind's noun and verb
   recur in **valued competitors** (:data:`COMPETITORS`). Since red team 19 a statement is a
   **skeleton** from one bank (:data:`OPENINGS`, "In case you wondered whether I have joined the
   gym Lumivo or not: ...") followed by a **stance tail** (:data:`TAILS`), and the skeleton bank is
   the same for own and competitor statements: the role lives only in the tail's words. Tails are
   twins: a row holds an own tail ("yeah, I did, and my sister felt rather pleased") and one per
   competitor form, ``holder`` ("nope, my sister did, and I felt rather curious"), ``declined``
   ("nope, I passed, ...") and ``hypothetical`` ("nope, I only asked, ..."), with one sorted
   word-length profile (stance word included), a stance word of one length, equal comma,
   negation, pronoun and question-word counts and no repeat of the kind's noun, checked at import
   (red team 19 beat an earlier bank 60/60 with characters per word; red team 20 the next one,
   0.889, with the count of three-letter words: "yes" against "no", matched on totals only). Every competitor denies the user's fact for its value; the
   assistant's ``suggestion`` ("Plenty of people who have joined a gym speak well of Lumivo.") is
   turned down in the reply. Earlier builds had competitors say "I nearly joined" (red team 13:
   "the one session saying *I have* + the question's verb phrase", 0.886). No competitor states an
   earlier or later state of the user's own fact, nor denies the kind: that would contradict it,
   which is Forgetting's variable (§2.4 rule 2). Frames name no type of thing (the value is only
   "the {noun} {value}"), so every frame fits people, places, products and shops alike.
4. *Split value pools.* Every value of a haystack (people, shops, places, products) comes from one
   :func:`..values.draw` per type, dealt to the statements in a shuffled order; the gold value is
   whichever lands on the asked own statement. Types fit kinds: a dentist is a person, a plumber a
   shop of its trade, a village a place, a gym or a laptop a product word.
5. *A slot skeleton.* Sessions are rendered by :func:`..conversation.render_haystack`, one persona
   per haystack: a session's own fact and its competitor are said in one sentence (joined by a
   semicolon, order drawn), the assistant's reply takes up both of them, in the order said
   (:func:`joint_topic`, wm10), from one bank for every user-said form (:data:`STANCE`: a reply per stance would give the stance away), then
   optional small talk (:data:`SMALL_TALK`); a suggestion is its own request-suggestion-reaction
   episode (reaction and close drawn as a pair), placed in a session drawn apart from what the
   session holds (:func:`_host_suggestions`, red team 29) and trailing its shared sentence; every
   session's own fact shares its sentence with a user-said competitor (red teams 18 and 19: a
   statement alone in its user turn was always own). No assistant leads (``lead_share=0``: their
   eligibility grows with the session's place). Kinds are facts a person holds several of at once (a plot in a village, a parking space
   in a town, a beach hut on an island), not homes one lives in (red team 13: "4-8 homes at once").

**Clusters and the dial.** As in Prospective v3 (:func:`..engine.clusters_for`): the asked kind
and K - 1 decoy kinds (uniform among the haystack's other sessions, as the value pools can pay)
each get ``count`` competitors, hosted by :func:`..engine.cluster_hosts` so every session carries
about one clustered mention; every session has exactly one competitor slot, and the slots no
cluster takes talk about kinds the haystack states nowhere else (each a different one). So every
session holds one own and one user-said competitor statement, whatever its role (a slot whose
form is the assistant's suggestion gets a user-said single of an unstated kind in its place, and
the suggestion goes to a drawn session). ``count = 1 + floor(dial x
(MAX_COUNT - 1) + u)``; the dial is searched once for the five rungs together
(:func:`search_dial`): a per-rung dial would confound competition with distance. The forms are
dealt evenly from :data:`FORMS` (closeness fixed).

**Validity rules** (:class:`GenerationError`): gold read back from the text (V5), exactly one own
statement of the asked kind, at the planned distance inside the rung's window; every planned
statement read back with its kind and form, no competitor stating the user's own fact; each value
in exactly one statement and of its kind's type; no pool word outside statements; constant interval,
no digits or dashes; question words in < 10 % of sessions corpus-wide; the judge grades gold correct
and every competitor's value not.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any, NamedTuple

from ...retrieval.tokenizer import raw_tokens, tokenize
from .. import calibration, conversation, engine, episodes_bank
from .. import values as value_pool
from ..primitives import GenerationError, assert_disjoint, derive_rng
from ..length_balance import length_sequence_imbalance

VERTICAL, ABBREV, MEMORY_TYPE = "workingmemory", "wm", "workingmemory"
GENERATOR = "pytest_typedmemeval.generate.verticals.workingmemory"
GENERATOR_VERSION, REVISION, SEED = "3", 3, 20260504

DISTANCES: tuple[int, ...] = (8, 15, 25, 40, 60)
SHAPES: tuple[str, ...] = tuple(f"distance-{d}" for d in DISTANCES)
CALIBRATED_SHAPES: tuple[str, ...] = SHAPES
WINDOWS: dict[int, tuple[int, int]] = {8: (5, 11), 15: (12, 19), 25: (20, 31), 40: (32, 47),
                                       60: (48, 63)}
"""Per rung, the inclusive window of d (sessions between the gold session and the question). The
windows tile 5..63 without overlap, each holds its nominal d, gold is never first (d <= 63) or
last (d >= 5)."""

_DIAL = 0.875
RECORDED_COMPETITION: dict[str, float] = {shape: _DIAL for shape in SHAPES}
"""One competitor share for every rung, from :func:`search_dial` (``workingmemory.calibration.json``);
rebuilds read it and never search."""
MAX_COUNT = 12
"""Competitors per clustered kind at dial 1 (at dial 0: one)."""
SEARCH_METHOD = ("one dial for the five rungs: sweep (9 points over [0, 1]) then bisection "
                 "(6 steps max, tolerance 0.0125) on the pooled grid; a point counts when every "
                 "rung's whole lexical panel, phrase reader and subject-and-value reader stay under "
                 "their bounds; then the allowed points, nearest the target first, each built whole "
                 "and kept only if the adversary gate passes and every rung's dense and hybrid arms "
                 "stay under the ceiling")
DIFFICULTY_NOTE = ("declared, not validated: the band is the distance rung (1 = d 5-11 .. 5 = d "
                   "48-63), which is also the shape; BM25 cannot see position, so the reference "
                   "retriever is a flat null control (§2.4), not a validator")

N_SESSIONS = 65
H = N_SESSIONS - 1
INTERVAL = timedelta(days=2)
RARE_SHARE = 0.10


class Kind(NamedTuple):
    """A profile fact kind: "the {noun} I have {verb}" holds a value of ``type`` (shops: ``trade``)."""

    noun: str
    verb: str
    type: value_pool.ValueType
    trade: str | None = None

    @property
    def article(self) -> str:
        return "an" if self.noun[0] in "aeiou" else "a"

    @property
    def question(self) -> str:
        return f"Which {self.noun} have I {self.verb}?"


def _kinds(kind: str, rows: str, trade: bool = False) -> tuple[Kind, ...]:
    out = []
    for row in rows.strip().split(";"):
        parts = [p.strip() for p in row.split("|")]
        out.append(Kind(parts[0], parts[1], kind, parts[2] if trade else None))  # type: ignore[arg-type]
    return tuple(out)


KINDS: tuple[Kind, ...] = (
    *_kinds("person", """dentist|registered with; solicitor|hired; piano teacher|signed up with;
        accountant|retained; vet|entrusted my dog to; driving instructor|booked;
        personal trainer|paid for; hairdresser|started using; childminder|picked; maths tutor|engaged;
        physiotherapist|booked in with; architect|appointed; optician|registered with;
        financial adviser|consulted; tiler|engaged; landlord|rented from"""),
    *_kinds("shop", """plumber|contracted|Plumbing; roofer|commissioned|Roofing;
        electrician|plumped for|Electrics; joiner|brought in|Joinery; glazier|relied on|Glazing;
        locksmith|stuck with|Locksmiths; removal company|lined up|Removals;
        upholsterer|trusted|Upholstery; garage|opted for|Motors;
        builders merchant|opened an account with|Hardware""", trade=True),
    *_kinds("place", """village|bought a plot in; town|rented a parking space in;
        city|found a weekend flat in; hamlet|restored a cottage in; suburb|hired a workshop in;
        parish|sponsored a bench in; island|bought a beach hut on; valley|rented a barn in;
        harbour|moored my boat at; estate|let out a flat on; resort|reserved a timeshare in;
        county|set up my business in;
        quarter|leased a studio in; district|opened a market stall in; peninsula|holidayed on"""),
    *_kinds("brand", """car|bought; laptop|ordered; phone|purchased; bank|transferred my savings to;
        energy supplier|switched to; broadband provider|moved to; home insurer|insured the house with;
        gym|joined; streaming service|subscribed to; electric bike|leased; mattress|picked;
        coffee machine|installed; boiler|fitted; pension fund|invested in; choir|performed with;
        language school|enrolled at; charity|volunteered for; coworking space|hired a desk at;
        fitness tracker|started wearing; sofa|picked out; washing machine|installed;
        vacuum cleaner|purchased; camera|settled on; tablet|ordered; running club|trained with;
        reading group|signed up to; credit card|switched to; meal kit|subscribed to;
        motor insurer|renewed with; dating app|downloaded; smart speaker|set up;
        record player|splashed out on; rucksack|treated myself to; heat pump|fitted; supermarket|shopped with;
        airline|stayed loyal to; tennis club|enrolled in;
        mortgage lender|borrowed from; smartwatch|strapped on; dishwasher|plumbed in;
        swimming club|signed up for; newspaper|subscribed to; allotment society|volunteered with"""),
)
"""One bank of fact kinds for gold and every other session alike (84: more than the 65 sessions of
a haystack, so every session states a distinct kind). Every verb is a past participle, said after
"I have" by own and competitor frames alike; a kind's verb names no kind's noun."""

FAMILIES: dict[str, tuple[str, ...]] = {
    "care": ("dentist", "vet", "physiotherapist", "personal trainer", "hairdresser", "childminder",
             "optician"),
    "advisers": ("solicitor", "accountant", "architect", "maths tutor", "piano teacher",
                 "driving instructor", "financial adviser"),
    "trades": ("plumber", "roofer", "electrician", "joiner", "glazier", "locksmith", "tiler"),
    "services": ("removal company", "upholsterer", "garage", "builders merchant", "boiler",
                 "heat pump", "landlord"),
    "property": ("village", "town", "city", "hamlet", "suburb", "parish", "district"),
    "places": ("island", "valley", "harbour", "estate", "resort", "county", "peninsula"),
    "money": ("bank", "energy supplier", "broadband provider", "home insurer", "pension fund",
              "credit card", "mortgage lender"),
    "gadgets": ("car", "electric bike", "laptop", "phone", "tablet", "camera", "smartwatch"),
    "household": ("mattress", "sofa", "coffee machine", "washing machine", "vacuum cleaner",
                  "smart speaker", "dishwasher"),
    "clubs": ("gym", "choir", "running club", "reading group", "tennis club", "language school",
              "swimming club"),
    "subscriptions": ("streaming service", "meal kit", "dating app", "supermarket", "airline",
                      "fitness tracker", "newspaper"),
    "leisure": ("charity", "coworking space", "record player", "rucksack", "quarter",
                "motor insurer", "allotment society"),
}
"""The twelve fact families of §2.4, seven kinds each (the 84 kinds exactly). Each rung asks one kind
of every family, a different kind on every rung (drawn), so no kind is asked twice: a kind asked
on every rung would be gold in five haystacks and filler in the other fifty-five, and a
question-blind reader learns which kinds get asked (the first v3 build, twelve kinds asked five
times each: learned AUC up to 0.71)."""
KIND_OF: dict[str, Kind] = {kind.noun: kind for kind in KINDS}

OPENINGS: tuple[str, ...] = (
    "In case you wondered whether I have {verb} the {noun} {value} or not: {tail}.",
    "If anyone asks whether I have {verb} the {noun} {value} at all, tell them: {tail}.",
    "People keep asking whether I have {verb} the {noun} {value} by now, and {tail}.",
    "You might wonder whether I have {verb} the {noun} {value} after all, so to be clear, "
    "{tail}.",
    "As for whether I have {verb} the {noun} {value} or not, {tail}.",
    "For what it is worth, whether I have {verb} the {noun} {value} is easy to answer: {tail}.",
)
"""The frame skeletons, one bank for the user's own facts and every user-said competitor alike (red
team 19 beat the corpus with characters per word because own frames and competitor frames were
two disjoint closed sets; red team 17 with a table of them). Each asks *whether I have {verb} the
{noun} {value}* and leaves the answer to the stance tail; none names a person, a place or a thing
by type (the value is only ever "the {noun} {value}"), so every skeleton fits every kind. "tell
them: {tail}" has its colon since wm10 (red team 33: "tell them well, yes, I went ahead" read as
an instruction, 701 times)."""
USER_FORMS: tuple[str, ...] = ("holder", "declined", "hypothetical")
STANCES: tuple[tuple[str, dict[str, str]], ...] = (
    ("", {"own": "yes, ", "other": "nah, "}),
    ("", {"own": "yeah, ", "other": "nope, "}),
    ("", {"own": "yep, ", "other": "nah, "}),
    ("", {"own": "sure, ", "other": "nope, "}),
    ("well, ", {"own": "yes, ", "other": "nah, "}),
    ("well, ", {"own": "", "other": ""}),
    ("honestly, ", {"own": "yeah, ", "other": "nope, "}),
    ("honestly, ", {"own": "", "other": ""}),
)
"""How a tail opens: a shared lead word ("well", "honestly" or none) and a stance word of one
length for both polarities ("yes"/"yep" against "nah", "yeah"/"sure" against "nope"), or no stance
word at all ("well, I went ahead" against "well, I kept clear"), so neither polarity is one closed
keyword set and every opening occurs in every role."""
ACTS: dict[str, tuple[str, ...]] = {
    "own": ("I went ahead",),
    "declined": ("I kept clear",),
    "hypothetical": ("I only asked", "I just asked"),
    "holder": ("I only asked", "I kept clear", "I just asked"),
}
"""What the user did, one word-length sequence for every role (``1 4 5``: red team 22 read "I did"
``1 3`` and "I finally did" ``1 7 3`` as own-only). The holder's act says the user did not; the
relation's doing is in the reaction."""
WHEN: tuple[str, ...] = ("", " in the end", " last year", " a while back")
"""A time said after the act, the same for every role of a row."""
REACTIONS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("was unfazed", "unfazed", ("did instead",)),
    ("was curious", "curious", ("did instead",)),
    ("was puzzled", "puzzled", ("did instead",)),
    ("was so baffled", "baffled", ("did so instead",)),
    ("was also curious", "curious", ("did that instead",)),
    ("was very curious", "curious", ("did that instead",)),
    ("felt quite curious", "curious", ("went ahead instead",)),
    ("felt quite puzzled", "puzzled", ("went ahead instead",)),
)
"""The reaction after "and/but my {rel}": own, declined and enquired-only tails say how the relation
took it (the same words in every role), a holder tail says the relation did it instead, in words of
the same lengths ("was unfazed" / "did instead": ``3 7``; "felt quite curious" / "went ahead
instead": ``4 5 7``). Every feeling fits every act ("I went ahead", "I kept clear", "I only
asked"): until wm10 "pleased" followed "I only asked" ("honestly, I only asked, and my neighbour
felt quite pleased", a turn at odds with itself to a blind reader) and denials (red team 33: 1,466
clauses); "unfazed" and "baffled" replace it. The holder's bare "has instead" (red team 33: "nah,
I kept clear, and my neighbour has instead") is "did instead"."""
CONJUNCTION = {"unfazed": "and", "curious": "and", "puzzled": "but", "baffled": "but"}
"""The conjunction by the feeling alone, the same in every role of a row, the holder's included
(red team 22: "yes, I went ahead, but my sister was amused"; "but" where the feeling runs against
whatever was done, "and" otherwise). Until wm10 it was chosen by role too ("curious" took "and"
after an own or enquired-only act, "but" after a decline; a holder's by row parity), so red team
33 read (conjunction, reaction word) at gold@1 0.307 against random 0.105: "but ... curious" was
never gold. Now the row fixes the pair and every role draws its row uniformly."""


def _tail_rows() -> tuple[dict[str, str], ...]:
    """Every combination of :data:`STANCES`, :data:`WHEN` and :data:`REACTIONS`, one row each; the
    fillers a role has several of are dealt round the rows in turn."""
    rows = []
    for i, ((lead, stance), when, (reaction, feeling, instead)) in enumerate(
            (s, w, r) for s in STANCES for w in WHEN for r in REACTIONS):
        row = {}
        for form in ("own", *USER_FORMS):
            word = stance["own" if form == "own" else "other"]
            act = ACTS[form][i % len(ACTS[form])]
            said = instead[i // 2 % len(instead)] if form == "holder" else reaction
            tail = f"{act}{when}, {CONJUNCTION[feeling]} my {{rel}} {said}"
            row[form] = lead + word + tail
        rows.append(row)
    return tuple(rows)


TAILS: tuple[dict[str, str], ...] = _tail_rows()
"""The stance tails, one row per combination of the parts above, and within a row every role's
tail has the **same word-length sequence**, word by word and comma by comma, the relation slot at
the same place (:func:`length_sequence_imbalance`, checked at import; the sorted profile and the
totals of :func:`_twin_stats` follow). Red team 22 beat the previous bank (0.950 held out, 0.897
with an untrained rule on the act's lengths) because its twins matched only as sorted profiles:
the own act was shorter ("I did", ``1 3``) and a longer reaction made up the difference. Each
role draws a row uniformly, so every length sequence a tail can have occurs in every role with the
same frequency, by construction. Red team 20 read the count of three-letter words (0.889), red
team 19 characters per word. The role is in the words only: the stance word, or none ("well, I
went ahead"), the act ("I went ahead", "I kept clear", "I only asked") and, for a holder, "my
sister did instead". Every wording fits any kind's verb. Every competitor tail denies the user's
fact for that value (another person's, turned down, only enquired about), never leaves it open,
and never denies the kind (that would contradict gold: Forgetting's variable, §2.4 rule 2)."""
AFFIRM: frozenset[str] = frozenset({"yes", "yep", "yeah", "sure"})
DENY: frozenset[str] = frozenset({"nah", "nope"})
"""The stance words: an own tail says an affirmation or none, every competitor tail a denial of
the same length in its row, or none (three letters: "yes"/"yep" and "nah"; four: "yeah"/"sure"
and "nope")."""
OWN: tuple[str, ...] = tuple(o.replace("{tail}", row["own"]) for o in OPENINGS for row in TAILS)
"""The user's own facts: every skeleton with every own tail (one bank for gold and every other
session's own statement)."""
COMPETITORS: dict[str, tuple[str, ...]] = {
    **{form: tuple(o.replace("{tail}", row[form]) for o in OPENINGS for row in TAILS)
       for form in USER_FORMS},
    "suggestion": (
        "Plenty of people who have {verb} {a} {noun} speak well of {value}.",
        "A lot of people have {verb} {a} {noun}, and {value} is a name that comes up often.",
    ),
}
"""Competitors: the user-said ones are the own frames' skeletons with a twin tail (so a frame is
never a role); the assistant's suggestions, turned down in the reply, are the one form without the
user's "I have"."""
REQUESTS: tuple[str, ...] = ("Out of interest, which {noun} do you hear good things about?",
                             "I am curious, which {noun} do people tend to go for?")
"""The user asking the assistant about a kind: curiosity, never "I am looking for one" (red team 16:
half the suggestions came after the user had stated the kind, and "if you have not joined a gym
yet" forgot it; the suggestions now speak of other people, not of the user)."""
SUGGESTION_PAIRS: tuple[tuple[str, str], ...] = (
    ("Interesting, that is handy to know about the {noun}.",
     "Glad it is of some use with the {noun}."),
    ("Good to know, in case a friend asks me about the {noun}.",
     "Happy to help if the {noun} comes up."),
    ("Thanks, I like hearing what other people go for with the {noun}.",
     "It is always interesting to compare the {noun} people go for."),
    ("Noted, that is a name worth knowing when it comes to the {noun}.",
     "Glad the name is worth knowing when it comes to the {noun}."),
    ("Ah, I had wondered what people make of the {noun}.",
     "Opinions on the {noun} do vary, of course."),
    ("Thanks, I will pass that on if anyone asks about the {noun}.",
     "Please do, people like a tip about the {noun}."),
    ("Fascinating, I had not heard that name in connection with the {noun}.",
     "It is a name that gets mentioned with the {noun} quite a bit."),
    ("That is good to hear, the {noun} gets talked about a lot.",
     "It does, the {noun} is a popular topic."),
    ("Handy, my friends are always comparing notes on the {noun}.",
     "Comparing notes on the {noun} is half the fun."),
    ("Oh, I will mention that next time the {noun} comes up with friends.",
     "Please do, a name can help when the {noun} comes up."),
)
"""The user's reaction to the assistant's suggestion and the close that answers it, drawn as a
pair (red team 19: "Please do, people like a tip about the K." after a reaction proposing nothing,
reactions and closes having been drawn independently). Reactions show interest in what other
people choose, never defer a choice of the user's own (red team 18), and fit both suggestion
wordings (wm10: "Fascinating, people have strong views on the smart speaker." answered "... a name
that comes up often"; "a useful name to have about the roofer" read stilted)."""
SUGGESTION_REACTIONS: tuple[str, ...] = tuple(r for r, _ in SUGGESTION_PAIRS)
SUGGESTION_CLOSES: tuple[str, ...] = tuple(c for _, c in SUGGESTION_PAIRS)
FORMS: tuple[str, ...] = ("holder", "declined", "hypothetical", "suggestion", "holder", "declined")
"""Dealt evenly over a haystack's competitor slots; the holder frames, nearest the own ones, and
the declines twice."""
STANCE = {"own": "noted", "holder": "noted", "declined": "noted", "hypothetical": "noted",
          "suggestion": "assistant-offer-declined"}
"""The reply bank each form takes (:data:`..episodes_bank.STATEMENT_REPLIES`). The user's own
fact and every user-said competitor take one bank, "noted", whose replies fit a choice made, a
relation's choice and a value turned down alike ("Thanks for filling me in on the gym."), and name
the topic the same way ("the gym", never "her gym" or "that gym"): with a bank per stance, the
reply would say which statement of a session was the user's own without the statement being read
(red team 13 found the stance in closed vocabularies; the task-shaped "arranged" bank also misfit
a sofa picked out: "Has it been giving you trouble?")."""

PRESUPPOSING_REPLIES: tuple[str, ...] = ("it take much", "a busy spell", "debate at home")
"""Fragments of "noted" replies never drawn for any statement of this vertical: their follow-ups
presume the user went ahead ("Did it take much mulling over?", "Was it a busy spell?", "Did it
cause much debate at home?"), and the reply takes up a sentence holding a refusal in every
session (red team 29: 761 of 1,519 follow-ups came after "nah, I kept clear"). Kept out of every
statement's reply alike, own or competitor, so the reply still says nothing of the stance (red
team 13)."""
MISFITTING_REPLIES: tuple[str, ...] = (
    "something you", "people curious", "talk it over", "bear that in mind", "glad to have it",
    "where {topic} stands", "background on", "hold {topic} in mind", "come up a lot")
"""Fragments of further "noted" replies never drawn here (wm10), for every statement alike. The
reply names both items of the turn (:func:`joint_topic`), one of them always a refusal, an
enquiry or a relation's choice and often the other the user's own step, so a reply must fit an
action taken and one not taken at once, and a plural topic: "Is it something you wonder about
much?" after a subscription already taken out (the blind reader's misfit), "Were people curious
about it?" after a refusal (red team 33: 72 of 159), "Do you talk it over ...?", "Was it much to
think about?", "Are you glad to have it straight?" (singular "it", a decision presumed), "so that
is where the glazier and the plumber stands" (number), "the background on ..." (the user gave
none), "I will hold ... in mind" (a status read as a tip), "Does that sort of thing come up a
lot?" (loose). What stays: plain acknowledgements and two questions about the user's own
disposition ("Do you feel relaxed about it all?", "Do you like to think these things through?"),
which fit any stance."""

_NOUN_WORDS = frozenset(w for kind in KINDS for w in raw_tokens(kind.noun))
_VERB_WORDS = frozenset(w for kind in KINDS for w in raw_tokens(kind.verb))
BANNED = conversation.banned_words([kind.noun for kind in KINDS] + [kind.verb for kind in KINDS]
                                   + ["judge judges judged"])
"""Words small talk must not use: every kind's noun and verb, and "judge" (an answer-key field name
the leak gate scans what the adapter reads for; Prospective bans it too)."""

_VALUE = r"[A-Z][a-z]+(?: [A-Z][a-z]+)?"
_RELS = "|".join(sorted({re.escape(r.noun) for r in episodes_bank.RELATIONS.values()}, key=len,
                        reverse=True))


def _their(verb: str) -> str:
    """The verb phrase as the assistant says it of other people ("moored their boat at", "treated
    themselves to")."""
    return re.sub(r"\bmyself\b", "themselves", re.sub(r"\bmy\b", "their", verb))


def _alternation(words: Sequence[str]) -> str:
    return "|".join(sorted({re.escape(w) for w in words}, key=len, reverse=True))


_VERB_FORMS = [k.verb for k in KINDS] + [_their(k.verb) for k in KINDS]
"""Every verb phrase as any form says it (:func:`_verb`)."""


def _pattern(template: str, tail: str = "") -> re.Pattern[str]:
    groups = {"noun": f"(?P<noun>{_alternation([k.noun for k in KINDS])})",
              "verb": f"(?P<verb>{_alternation(_VERB_FORMS)})",
              "value": f"(?P<value>{_VALUE})", "rel": f"(?P<rel>{_RELS})", "poss": "(?:his|her)",
              "subj": "(?:he|she)", "a": "(?:a|an)"}
    # A statement may open a session's turn or follow another after a semicolon (lower-cased
    # first letter), and may end the sentence or be followed by one: no final full stop.
    head, body = template[0], template[1:].rstrip(".")
    pattern = (f"[{head.upper()}{head.lower()}]" if head.isalpha() and not template.startswith("I ") else
               re.escape(head)) + re.escape(body)
    for name, group in groups.items():
        slot = re.escape("{" + name + "}")
        first, *again = pattern.split(slot)
        # a slot said twice is the same words twice: a backreference, not a second group
        repeat = f"(?P={name})" if group.startswith("(?P<") else group
        pattern = first + group + repeat.join(again) if again else first
    return re.compile(pattern.replace(re.escape("\x00"), tail))


TAIL_FORM: dict[str, str] = {tail: form for row in TAILS for form, tail in row.items()}
"""Every tail (relation slot unfilled) and the form it says."""
_REL_IN_TAIL = re.compile(rf"\bmy (?P<rel>{_RELS})\b")


def _tail_grammar() -> str:
    """Every tail of :data:`TAILS` as one compact pattern, part by part (a pattern listing the
    hundreds of tails one by one takes a minute to compile); it matches a few word strings no row
    holds, which :func:`_form_of` refuses."""
    leads = _alternation([lead for lead, _ in STANCES if lead])
    words = _alternation([w for _, st in STANCES for w in st.values() if w])
    acts = _alternation([a for acts in ACTS.values() for a in acts])
    when = _alternation([w for w in WHEN if w])
    ends = _alternation([r for r, _, _ in REACTIONS] + [i for _, _, ins in REACTIONS for i in ins])
    return (f"(?P<tail>(?:{leads})?(?:{words})?(?:{acts})(?:{when})?, (?:and|but) my (?:{_RELS}) "
            f"(?:{ends}))")


def _user_pattern(opening: str) -> re.Pattern[str]:
    """One skeleton with every tail as an alternative; the tail that matched names the form and
    holds the relation (:func:`_form_of`)."""
    return _pattern(opening.replace("{tail}", "\x00"), tail=_tail_grammar())


_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    *(("user", _user_pattern(o)) for o in OPENINGS),
    *(("suggestion", _pattern(t)) for t in COMPETITORS["suggestion"]),
)
"""One pattern per skeleton (the form is read from the tail that matched) and one per suggestion."""


def _form_of(m: re.Match[str]) -> tuple[str, str | None]:
    """The form and relation of a match of :data:`_PATTERNS`."""
    tail = m.groupdict().get("tail")
    if tail is None:
        return "suggestion", None
    rel = _REL_IN_TAIL.search(tail)
    assert rel is not None, tail
    said = tail[:rel.start("rel")] + "{rel}" + tail[rel.end("rel"):]
    if said not in TAIL_FORM:
        raise GenerationError(f"no tail of the bank: {tail!r}")
    return TAIL_FORM[said], rel["rel"]


class Reading(NamedTuple):
    """One statement read from the text: session, form, kind noun, value, holder relation."""

    session: int
    form: str
    noun: str
    value: str
    rel: str | None


def read_statements(texts: Sequence[Sequence[str]]) -> list[Reading]:
    """Every statement in the rendered sessions (text only, never the plan). A value of the wrong
    type for its kind, a noun with another kind's verb, or a pool word outside a statement is fatal."""
    pool = value_pool.pool_words()
    found: list[Reading] = []
    for index, turns in enumerate(texts):
        for text in turns:
            rest = text
            for _, pattern in _PATTERNS:
                while m := pattern.search(rest):
                    kind = KIND_OF.get(m["noun"])
                    said = re.sub(r"\bthemselves\b", "myself", re.sub(r"\btheir\b", "my", m["verb"]))
                    if kind is None or kind.verb != said:
                        raise GenerationError(f"session {index}: {m['noun']!r} with verb "
                                              f"{m['verb']!r}: {text!r}")
                    if value_pool.value_type(m["value"]) != kind.type:
                        raise GenerationError(f"session {index}: {m['value']!r} is not a "
                                              f"{kind.type} for the {kind.noun}: {text!r}")
                    if kind.trade and not m["value"].endswith(" " + kind.trade):
                        raise GenerationError(f"session {index}: {m['value']!r} is no {kind.trade} "
                                              "shop")
                    said_form, rel = _form_of(m)
                    found.append(Reading(index, said_form, kind.noun, m["value"], rel))
                    rest = rest[:m.start()] + "\x00" + rest[m.end():]
            if stray := [w for w in raw_tokens(rest) if w in pool]:
                raise GenerationError(f"session {index}: value word {stray[0]!r} outside a "
                                      f"statement: {text!r}")
    return sorted(found)


def _verb(kind: Kind, form: str) -> str:
    """The kind's verb phrase as ``form`` says it: every user frame has the user as its subject
    ("moored my boat at", a holder's value included: "whether I have moored my boat at the harbour
    X too, since she has..."); the assistant's suggestion, about other people, says "moored their
    boat at"."""
    return _their(kind.verb) if form == "suggestion" else kind.verb


def _fill(template: str, kind: Kind, value: str, holder: episodes_bank.Relation | None,
          form: str = "own") -> str:
    if holder is None and "{rel}" in template:  # a frame's own default (tests, bank checks)
        holder = episodes_bank.RELATIONS["sister"]
    slots = {"verb": _verb(kind, form), "noun": kind.noun, "value": value, "a": kind.article,
             "rel": holder.noun if holder else "", "poss": holder.poss if holder else "",
             "subj": holder.subj if holder else ""}
    text = template.format(**slots)
    return text[0].upper() + text[1:]


NEGATION_WORDS = frozenset("no not never nothing none nor neither nobody nowhere".split())
PRONOUN_WORDS = frozenset("i me my mine myself he she him her his hers it its they them their we us "
                          "our you your".split())


def _word_lengths(words: Sequence[str]) -> tuple[int, ...]:
    return tuple(len(re.sub(r"[^A-Za-z]", "", w)) for w in words)


def _twin_stats(tail: str) -> tuple[Any, ...]:
    """What a content-free reader of a tail can see: words, letters, commas, negation words,
    pronouns, slots (red team 19: characters per word, commas and noun repeats told the role), how
    often it says the question's own words "I", "have" and "which", and (red team 20: the count of
    three-letter words told the role, 0.889) the sorted word-length profile, stance word included,
    and the stance word's own length."""
    words = re.findall(r"\{\w+\}|[A-Za-z']+", tail)
    plain = [w for w in words if not w.startswith("{")]
    lower = [w.lower() for w in plain]
    return (len(words), sum(map(len, plain)), tail.count(","), sum(w in NEGATION_WORDS for w in lower),
            sum(w in PRONOUN_WORDS for w in lower), tuple(sorted(w for w in words if w.startswith("{"))),
            # the question's own words ("Which gym have I joined?"): a tail saying "I have" more
            # often than its twins scores higher under BM25 with the question as query
            lower.count("i"), lower.count("have"), lower.count("which"),
            tuple(sorted(_word_lengths(plain))), _word_lengths(plain[:1]), tail.count("'"))


def twin_mismatches(rows: Sequence[Mapping[str, str]]) -> list[str]:
    """The rows of a tail bank whose tails a content-free reader could tell apart (empty when the
    bank is sound): :func:`_twin_stats` must agree within every row. Public so a test can show it
    refuses the bank red team 20 beat."""
    return [f"row {i}: " + "; ".join(f"{form} {_twin_stats(t)}" for form, t in row.items())
            for i, row in enumerate(rows) if len({_twin_stats(t) for t in row.values()}) != 1]


def tail_banks(rows: Sequence[Mapping[str, str]]) -> dict[str, list[str]]:
    """A tail table as the banks its roles draw from (one tail per row and role)."""
    return {form: [row[form] for row in rows] for form in ("own", *USER_FORMS)}


def hash_index(template: str) -> int:
    """A fixed spread of templates over kinds (a sum of character codes: no salted hash)."""
    return sum(map(ord, template))


def _assert_banks() -> None:
    """Import-time checks (GENERATION.md "Checks that belong in every generator")."""
    assert not twin_mismatches(TAILS), twin_mismatches(TAILS)
    assert not length_sequence_imbalance(tail_banks(TAILS))
    assert not length_sequence_imbalance({"own": OWN, **{f: COMPETITORS[f] for f in USER_FORMS}})
    for row in TAILS:
        assert sorted(row) == sorted(("own", *USER_FORMS)), row
        assert all("{noun}" not in t and "{value}" not in t and t.count("{rel}") == 1
                   and t.count("my {rel}") == 1 for t in row.values()), row
        words = {form: [w.strip() for w in t.split(",")] for form, t in row.items()}
        stance = {form: next((w for w in ws if w in AFFIRM | DENY), None) for form, ws in words.items()}
        assert (stance["own"] is None or stance["own"] in AFFIRM) and all(
            (stance[f] is None) == (stance["own"] is None) and (stance[f] is None or stance[f] in DENY)
            for f in USER_FORMS), row
    # a tail says one form (a form may say a tail in several rows: its fillers are fewer than rows)
    assert len(TAIL_FORM) == len({(f, t) for row in TAILS for f, t in row.items()})
    assert all(o.count("{tail}") == 1 and "{rel}" not in o for o in OPENINGS)
    assert len({o[:o.index("{verb}")] for o in OPENINGS}) == len(OPENINGS)
    nouns = [kind.noun for kind in KINDS]
    assert len(KINDS) == 84 and len(set(nouns)) == len(nouns), "kinds repeat"
    assert N_SESSIONS <= len(KINDS)
    members = [k for ks in FAMILIES.values() for k in ks]
    assert len(FAMILIES) == 12 and sorted(members) == sorted(nouns), "families must cover the kinds"
    assert all(len(ks) > len(DISTANCES) for ks in FAMILIES.values())
    words: Counter[str] = Counter(w for kind in KINDS for w in set(tokenize(kind.question)))
    assert max(words.values()) <= 3, [w for w, c in words.items() if c > 3]
    frames = [*OWN, *(t for ts in COMPETITORS.values() for t in ts), *REQUESTS,
              *conversation.TRANSITIONS, *conversation.ACKNOWLEDGEMENTS]
    assert_disjoint("question words", words, "frames", {w for t in frames for w in tokenize(
        re.sub(r"\{\w+\}", " ", t))})
    assert not (_NOUN_WORDS | _VERB_WORDS) & value_pool.pool_words()
    for d, (lo, hi) in WINDOWS.items():
        assert lo <= d <= hi and 1 <= N_SESSIONS - 1 - hi and lo >= 1
    spans = sorted(WINDOWS.values())
    assert all(a[1] + 1 == b[0] for a, b in zip(spans, spans[1:])), "windows must tile"
    for trade in {k.trade for k in KINDS if k.trade}:
        assert trade in value_pool.TRADES, trade
    sample = {"person": "Harriet Colby", "shop": "Colby Plumbing", "place": "Ashcombe",
              "brand": "Zentra"}
    holder = episodes_bank.RELATIONS["sister"]
    # every kind with every skeleton (the first tail row), and every template with one kind in
    # turn: every kind with every template would be half a million read-backs at import
    first = {o.replace("{tail}", TAILS[0][f]) for o in OPENINGS for f in TAILS[0]}
    every = [(form, t) for form, ts in (("own", OWN), *COMPETITORS.items()) for t in ts]
    for k, kind in enumerate(KINDS):
        assert re.fullmatch(r"[a-z ]+", kind.noun + kind.verb), kind
        value = sample[kind.type] if kind.type != "shop" else f"Colby {kind.trade}"
        for form, template in every:
            if template not in first and form != "suggestion" and hash_index(template) % len(KINDS) != k:
                continue
            text = _fill(template, kind, value, holder, form)
            read = read_statements([[text]])
            assert [(r.form, r.noun, r.value) for r in read] == [(form, kind.noun, value)], \
                (text, read)
            assert not re.search(r"[\d\u2013\u2014-]", text), text


_assert_banks()


# --- layout -------------------------------------------------------------------------------------


class Spec(NamedTuple):
    """One cell: rung, family, the asked kind (a member of the family), realised distance."""

    key: str
    shape: str
    family: str
    asked: str
    distance: int

    @property
    def gold(self) -> int:
        return N_SESSIONS - 1 - self.distance


@lru_cache(maxsize=4)
def _layout(seed: int) -> tuple[Spec, ...]:
    """Per rung, its twelve distances dealt evenly over the window and drawn onto the families;
    per family, five of its seven kinds drawn onto the five rungs."""
    rng = derive_rng(seed, VERTICAL, "layout")
    asked = {family: rng.sample(kinds, len(DISTANCES)) for family, kinds in FAMILIES.items()}
    specs = []
    for r, (d, shape) in enumerate(zip(DISTANCES, SHAPES)):
        lo, hi = WINDOWS[d]
        window = list(range(lo, hi + 1))
        dealt: list[int] = []
        while len(dealt) < len(FAMILIES):
            dealt += rng.sample(window, len(window))
        dealt = dealt[:len(FAMILIES)]
        rng.shuffle(dealt)
        for family, distance in zip(FAMILIES, dealt):
            specs.append(Spec(f"{shape}/{family}", shape, family, asked[family][r], distance))
    return tuple(specs)


# --- one haystack ---------------------------------------------------------------------------------


@dataclasses.dataclass
class Said:
    """One planned statement (own or competitor) before its text exists."""

    session: int
    form: str
    kind: Kind
    template: str = ""
    holder: episodes_bank.Relation | None = None
    value: str = ""


POOL_ROOM = {"surname": len(value_pool.SURNAMES), "place": len(value_pool.PLACES),
             "brand": len(value_pool.BRANDS)}
"""Values one haystack can draw per pool (people and shops share the surname list: a shop is a
surname and a trade, and no surname is drawn twice in a haystack)."""
SINGLE_RESERVE = 8
"""Room a decoy cluster leaves in its pool for single competitors."""


def _pool(kind: Kind) -> str:
    return "surname" if kind.type in ("person", "shop") else kind.type


def _count(share: float, rng: Any) -> int:
    if not 0.0 <= share <= 1.0:
        raise GenerationError(f"the competitor share must lie in [0, 1], got {share}")
    return min(MAX_COUNT, 1 + math.floor(share * (MAX_COUNT - 1) + rng.random()))


def _values(rng: Any, every: Sequence[Said]) -> None:
    """Every value the haystack needs, one draw per type, dealt in a shuffled order (the draw
    cannot know which statement will answer). People first: shop stems are surnames."""
    taken: list[str] = []
    for kind_type in ("person", "shop", "place", "brand"):
        wanting = [said for said in every if said.kind.type == kind_type]
        if not wanting:
            continue
        try:
            drawn = value_pool.draw(rng, kind_type, len(wanting), taken=taken)  # type: ignore[arg-type]
        except ValueError as error:
            raise GenerationError(f"value pool: {error}") from error
        taken += drawn
        order = rng.sample(range(len(wanting)), len(wanting))
        for said, index in zip(wanting, order):
            value = drawn[index]
            if said.kind.trade:
                value = f"{value.split()[0]} {said.kind.trade}"
            said.value = value



def holdable(kind: Kind) -> bool:
    """Whether a relation can be said to hold the kind's value in the user's words ("nah, my sister
    has"): not when the verb names the user's own thing ("moored my boat at", "insured the house
    with", "treated myself to"), where "my sister has" would say she moored the user's boat (red
    team 20: 85 such clauses). Those kinds' holder slots say a decline instead."""
    return not re.search(r"\b(?:my|myself|the house)\b", kind.verb)


def _dressed(said: Said, stream: Any, persona: Any, holding: dict[str, set[Any]], *,
             always_relation: bool) -> Said:
    """A competitor's template and holder, drawn from its own ``stream`` (one place for the
    session's competitor and the extra one beside a suggestion). A holder needs a relation not
    yet holding the kind, else the statement is declined; ``always_relation`` gives every other
    form a relation too (the extra competitor's tails name one), else only a template naming
    ``{rel}`` draws one."""
    free = [r for r in range(len(persona.relations))
            if persona.relations[r] not in holding.get(said.kind.noun, set())]
    if said.form == "holder" and (not free or not holdable(said.kind)):
        said.form = "declined"
    bank = COMPETITORS[said.form]
    said.template = bank[int(stream.random() * len(bank))]
    if said.form == "holder":
        pick = free[stream.randrange(len(free))]
        holding.setdefault(said.kind.noun, set()).add(persona.relations[pick])
        said.holder = persona.holder(pick)
    elif always_relation or "{rel}" in said.template:
        said.holder = persona.holder(stream.randrange(len(persona.relations)))
    return said

def _plan(seed: int, spec: Spec, share: float) -> tuple[conversation.HaystackPlan, list[Said], int]:
    """The haystack's statements, times and question moment; returns the plan, every planned
    statement and the competitor count per clustered kind."""
    rng = derive_rng(seed, VERTICAL, spec.key, "plan")
    n = N_SESSIONS
    start = datetime(2025, 1, 6, 8, 0) + timedelta(days=rng.randint(0, 400),
                                                   minutes=rng.randint(0, 600))
    times = [start + i * INTERVAL for i in range(n)]
    persona = conversation.draw_persona(rng)
    asked = KIND_OF[spec.asked]
    others = rng.sample([k for k in KINDS if k is not asked], n - 1)
    kinds = others[:spec.gold] + [asked] + others[spec.gold:]
    forms = engine.deal(rng, FORMS, n)
    templates = engine.deal(rng, OWN, n)
    count = _count(share, rng)
    decoys = rng.sample([i for i in range(n) if i != spec.gold], n - 1)
    # Value budget per pool (people and shops share the surname list): a decoy whose cluster the
    # pools could not pay for is passed over for the next one in the drawn order. Bookkeeping over
    # kinds and types only: the asked kind's cluster is paid for like any kind's own statement.
    room = dict(POOL_ROOM)
    for kind in kinds:
        room[_pool(kind)] -= 1
    room[_pool(asked)] -= count
    chosen = [spec.gold]
    for i in decoys:
        if len(chosen) == engine.clusters_for(n, count):
            break
        if room[_pool(kinds[i])] >= count + SINGLE_RESERVE:
            room[_pool(kinds[i])] -= count
            chosen.append(i)
    if len(chosen) != engine.clusters_for(n, count):
        raise GenerationError(f"{spec.key}: the value pools cannot pay for "
                              f"{engine.clusters_for(n, count)} clusters of {count}")
    owns = tuple(chosen)
    capacity = [1] * n
    clusters = engine.cluster_hosts(derive_rng(seed, VERTICAL, spec.key, "clusters"), n, owns,
                                    count, capacity, what=f" in {spec.key}")
    target: dict[int, Kind] = {}
    for own, hosts in zip(owns, clusters):
        for host in hosts:
            target[host] = kinds[own]
    clustered = {kinds[o].noun for o in owns}
    own = [Said(i, "own", kinds[i], templates[i]) for i in range(n)]
    for said in own:
        if "{rel}" in said.template:
            said.holder = persona.holder(derive_rng(seed, VERTICAL, spec.key, "own", said.session)
                                         .randrange(len(persona.relations)))
    rival: list[Said] = []
    # Single competitors (slots no cluster takes) are about kinds the haystack states nowhere, each
    # a different one while any is left: a single about another session's own kind made that pair
    # of sessions recur, and the slots no cluster takes are mostly the cluster owns' (gold's among
    # them), so "a session whose second statement recurs once" marked them (learned AUC 0.6-0.8).
    # A single also leaves a pool once it would run out.
    # Slots are served in a drawn order, not session order: served in session order, the late
    # slots got the reused kinds, and late sessions (near-rung gold among them) recurred more.
    absent = [k for k in KINDS if k not in kinds]
    used: set[str] = set()
    single: dict[int, Kind] = {}
    order = derive_rng(seed, VERTICAL, spec.key, "singles")
    for i in order.sample(range(n), n):
        if i in target:
            continue
        open_ = [k for k in absent if room[_pool(k)] > 0]
        fresh = [k for k in open_ if k.noun not in used] or open_
        single[i] = fresh[int(order.random() * len(fresh))]
        used.add(single[i].noun)
        room[_pool(single[i])] -= 1
    # A relation holds one value of a kind: a cluster's holder competitors name different relations
    # (red team 15: "a sister with two heat pumps" in 73 of 648 holder statements), and a holder
    # slot whose kind has used every relation of the persona says a decline instead.
    holding: dict[str, set[str]] = {}
    for i in range(n):
        stream = derive_rng(seed, VERTICAL, spec.key, "slot", i)
        kind = target[i] if i in target else single[i]
        rival.append(_dressed(Said(i, forms[i], kind), stream, persona, holding,
                              always_relation=False))
    # A slot whose form is the assistant's suggestion gets a user-said competitor in its place,
    # said in the own statement's sentence like every other session's: red teams 18 and 19 found
    # a statement alone in its user turn always the user's own (653 of 653). It is a single (a
    # kind the haystack states nowhere else, drawn as the other singles are), so no cluster and
    # no count changes; the suggestion itself is said in a drawn session (_host_suggestions).
    extra: dict[int, Said] = {}
    for i in order.sample(range(n), n):
        if rival[i].form != "suggestion":
            continue
        open_ = [k for k in absent if room[_pool(k)] > 0]
        if not open_:
            raise GenerationError(f"{spec.key}: the value pools cannot pay for a second competitor "
                                  f"in session {i}")
        fresh = [k for k in open_ if k.noun not in used] or open_
        kind = fresh[int(order.random() * len(fresh))]
        used.add(kind.noun)
        room[_pool(kind)] -= 1
        stream = derive_rng(seed, VERTICAL, spec.key, "extra", i)
        said = Said(i, USER_FORMS[int(stream.random() * len(USER_FORMS))], kind)
        extra[i] = _dressed(said, stream, persona, holding, always_relation=True)
    # Two statements said in one sentence never share their skeleton ("people keep asking ...;
    # people keep asking ..."): the competitor takes another skeleton, drawn among the rest, with
    # its own tail row (both roles' skeletons stay uniform over the bank).
    for i in range(n):
        partner = extra.get(i, rival[i])
        if partner.form in USER_FORMS and _opening_of(partner.template) == _opening_of(own[i].template):
            stream = derive_rng(seed, VERTICAL, spec.key, "opening", i)
            here = _opening_of(own[i].template)
            tail = _tail_of(partner.template)
            choice = [o for o in OPENINGS if o != here][int(stream.random() * (len(OPENINGS) - 1))]
            partner.template = choice.replace("{tail}", tail)
    partners = [extra.get(i, rival[i]) for i in range(n)]
    hosted = _host_suggestions(derive_rng(seed, VERTICAL, spec.key, "suggestion-hosts"), spec.key,
                               own, partners, [said for said in rival if said.form == "suggestion"])
    every = own + rival + [extra[i] for i in sorted(extra)]
    _values(rng, every)
    sessions = [_session(derive_rng(seed, VERTICAL, spec.key, "request", i), own[i], partners[i],
                         hosted.get(i)) for i in range(n)]
    plan = conversation.HaystackPlan(spec.key, sessions, times, times[-1] + INTERVAL, persona,
                                     BANNED, SMALL_TALK, lead_share=0.0)
    return plan, every, count


HOST_ATTEMPTS = 200
"""How many drawn matchings of suggestions onto their drawn host sessions
:func:`_host_suggestions` tries before drawing the host sessions again."""


def _host_suggestions(rng: Any, key: str, own: Sequence[Said], partners: Sequence[Said],
                      suggestions: Sequence[Said]) -> dict[int, Said]:
    """The session each assistant suggestion is said in, drawn **apart from what the sessions
    hold** (red team 29, issue 19): the host sessions are a uniform sample of the haystack's
    sessions, one suggestion each, drawn before anything about them is looked at, so a session
    hosts a suggestion at the same rate whether its shared sentence holds gold, another kind's own
    fact, a clustered competitor or a single. (Before, a suggestion took the competitor slot of its
    own session and a fresh single was said beside the own fact there, so a session holding a
    clustered kind's user-said competitor never held a suggestion, 0 of 2,800, against 75 of 426
    sessions holding a clustered kind's own fact: "the asked kind's clause whose session also asks
    'which ...?'" was gold 7 of 7 times it fired.) The suggestions are then matched onto the hosts
    in a drawn order that keeps a suggestion out of a session stating its own kind (the user would
    ask "which gym do people go for?" beside "I have joined the gym X"); that matching moves no
    suggestion in or out of a session. Sets each suggestion's ``session`` and returns them by
    session."""
    n = len(own)
    for _ in range(HOST_ATTEMPTS):
        hosts = rng.sample(range(n), len(suggestions))
        for _ in range(HOST_ATTEMPTS):
            order = rng.sample(list(suggestions), len(suggestions))
            if all(said.kind.noun not in (own[j].kind.noun, partners[j].kind.noun)
                   for said, j in zip(order, hosts)):
                for said, j in zip(order, hosts):
                    said.session = j
                return {j: said for said, j in zip(order, hosts)}
    raise GenerationError(f"{key}: no placement of {len(suggestions)} suggestions apart from the "
                          "sessions stating their kinds")


def _opening_of(template: str) -> str:
    """The skeleton of a user frame (:data:`OPENINGS`; their words before "{verb}" differ)."""
    return next(o for o in OPENINGS if template.startswith(o[:o.index("{verb}")]))


def _tail_of(template: str) -> str:
    """The tail of a user frame (what its skeleton's "{tail}" holds)."""
    opening = _opening_of(template)
    head, foot = opening.split("{tail}")
    assert template.startswith(head) and template.endswith(foot), template
    return template[len(head):len(template) - len(foot)]


def _statement(rng: Any, said: Said) -> conversation.Statement:
    """The :class:`..conversation.Statement` of a planned statement: text, the topic replies name,
    stance (a holder's own thing is "her gym", introduced by the statement itself)."""
    kind = said.kind
    text = _fill(said.template, kind, said.value, said.holder, said.form)
    if said.form == "suggestion":
        request = rng.choice(REQUESTS).format(a=kind.article, noun=kind.noun)
        reaction, close = (line.format(noun=kind.noun) for line in rng.choice(SUGGESTION_PAIRS))
        return conversation.Statement(text, f"the {kind.noun}", "assistant-offer-declined",
                                      role="assistant", request=request, reaction=reaction,
                                      close=close)
    return conversation.Statement(text, f"the {kind.noun}", STANCE[said.form],  # type: ignore[arg-type]
                                  avoid=PRESUPPOSING_REPLIES + MISFITTING_REPLIES)


def _session(rng: Any, own: Said, partner: Said, suggestion: Said | None = None
             ) -> list[conversation.Statement]:
    """One session's statements. ``MERGED`` (the dial-independent default): a user competitor is
    said in the same sentence as the own fact, joined by a semicolon, in a drawn order (two facts
    in one breath, as people do; the reply takes up both). One sentence, not two: a reader of
    sentences (the learned adversary's recurrence features are per sentence) could otherwise tell
    the session whose *own* fact recurs in the haystack (gold and the decoy owns) from one whose
    *competitor* does (the hosts), learned AUC 0.67 on the whole corpus. So a session is one
    statement episode and small talk, not two episodes with a change of subject between them
    (which made every session repeat an acknowledgement and a transition line: distinct sentences
    0.39). Every session's shared sentence holds its own fact and its user-said ``partner`` (red
    team 19: a statement alone in its turn was always own). An assistant ``suggestion``, placed in
    the session by :func:`_host_suggestions` whatever the sentence holds, keeps its own episode
    and *trails* the shared one (at a drawn place among the small talk that follows it): drawn
    before or after, the shared sentence of a suggestion session followed another episode half
    the time against a fifth in every other session, and the form reader's episode view read
    that lead-in before gold (distance-40 gold@1 0.42 against random 0.10). Placed so, the shared
    sentence's place is drawn alike in every session."""
    said = _merge(rng, _statement(rng, own), _statement(rng, partner))
    if suggestion is None:
        return [said]
    return [said, dataclasses.replace(_statement(rng, suggestion), trails=True)]


def _merge(rng: Any, mine: conversation.Statement, other: conversation.Statement
           ) -> conversation.Statement:
    """Two user statements in one sentence, joined by a semicolon, in a drawn order; the reply
    takes up **both**, in the order they were said (:func:`joint_topic`)."""
    first, last = (mine, other) if rng.random() < 0.5 else (other, mine)
    second = last.text if last.text.startswith("I ") else last.text[0].lower() + last.text[1:]
    joint = JOINTS[int(rng.random() * len(JOINTS))]
    return dataclasses.replace(last, text=f"{first.text[:-1]}; {joint}{second}",
                               topic=joint_topic(first.topic, last.topic))


def joint_topic(first: str, second: str) -> str:
    """What the assistant's reply names after a two-statement turn: both topics, in the order the
    user said them ("the glazier and the plumber"). Until wm10 the reply named only the last
    statement's topic (3,849 of 3,900 replies named the second item and never the first: a blind
    reader counted the half-ignored turn as awkward in 11 of 60 pairs). The order of the two
    statements is drawn apart from their roles (:func:`_merge`), so the reply's order says nothing
    of which is the user's own; the words come from the one "noted" bank of every role."""
    return f"{first} and {second}"


JOINTS: tuple[str, ...] = ("", "and ", "also, ", "oh, and ", "while I think of it, ")
"""What follows the semicolon between a session's two statements (red team 20: every session held
one bare two-clause sentence about two unrelated things); drawn, and the order of the two
statements is drawn apart from it, so the joint belongs to either role alike."""


SMALL_TALK: tuple[tuple[int, float], ...] = ((0, 0.6), (1, 0.4))
"""Small-talk episodes per session (the shared default is 0 / 1 / 2 at 0.25 / 0.5 / 0.25): 65
sessions per haystack and 60 haystacks are 3,900 sessions, four to nine times the other verticals'
corpora, drawing on the same small-talk bank; at the default, distinct sentences fall under 0.50."""
RENDER_ATTEMPTS = 200


def _render(seed: int, plan: conversation.HaystackPlan, tally: engine.Tally) -> engine.Haystack:
    """Rendered so that every session's turn count is shared by another session of the haystack
    (V7's role-sequence rule): a rendering where some length is unique is redrawn under the next
    key, whichever session it is, so the redraw knows nothing of gold."""
    for attempt in range(RENDER_ATTEMPTS):
        key = plan.key if attempt == 0 else f"{plan.key}~{attempt}"
        draft = engine.Tally()
        stay = conversation.render_haystack(seed, VERTICAL, dataclasses.replace(plan, key=key), draft)
        if min(Counter(len(session) for session in stay.sessions).values()) >= 2:
            engine.check_haystack(stay)
            tally.add(draft.counts())
            return dataclasses.replace(stay, key=plan.key, session_ids=engine.session_ids(
                seed, VERTICAL, plan.key, len(stay.sessions)))
    raise GenerationError(f"{plan.key}: no rendering in {RENDER_ATTEMPTS} where every turn count "
                          "occurs twice")


# --- reading gold back ---------------------------------------------------------------------------


class Gold(NamedTuple):
    value: str
    session: int
    competitors: tuple[str, ...]
    others: tuple[str, ...]


def asked_kind(question: str) -> Kind:
    m = re.fullmatch(r"Which (?P<noun>[a-z ]+?) have I (?P<verb>[a-z ]+)\?", question)
    kind = KIND_OF.get(m["noun"]) if m else None
    if kind is None or m is None or kind.verb != m["verb"]:
        raise GenerationError(f"question {question!r} names no kind of the bank")
    return kind


def recompute_gold(record: Mapping[str, Any]) -> Gold:
    """Gold from a record's own bytes: the one own statement of the asked kind, its session and
    value; the asked kind's competitors read back (none may state the user's own fact)."""
    qid = record["question_id"]
    kind = asked_kind(record["question"])
    readings = read_statements([[t["content"] for t in s] for s in record["haystack_sessions"]])
    mine = [r for r in readings if r.form == "own" and r.noun == kind.noun]
    if len(mine) != 1:
        raise GenerationError(f"{qid}: the {kind.noun} fact is stated {len(mine)} times (once only)")
    owns = Counter(r.noun for r in readings if r.form == "own")
    if max(owns.values()) != 1:
        raise GenerationError(f"{qid}: a kind is stated as the user's own twice")
    values = Counter(r.value for r in readings)
    if max(values.values()) != 1:
        raise GenerationError(f"{qid}: a value is named twice: {values.most_common(1)}")
    gold = mine[0]
    competitors = tuple(r.value for r in readings if r.form != "own" and r.noun == kind.noun)
    others = tuple(sorted(set(values) - {gold.value}))
    return Gold(gold.value, gold.session, competitors, others)


# --- records --------------------------------------------------------------------------------------


def _own_piece(plan: conversation.HaystackPlan, session: int) -> int:
    """The piece of ``session`` that holds the user's own statement: the first piece, except where
    an assistant suggestion's episode comes first (red team 18: ``has_answer`` sat on the
    suggestion's turn in 4 of 60 records)."""
    return next(p for p, statement in enumerate(plan.sessions[session]) if statement.role == "user")


def _records(seed: int, spec: Spec, share: float, tally: engine.Tally) -> dict[str, Any]:
    plan, planned, count = _plan(seed, spec, share)
    stay = _render(seed, plan, tally)
    texts = stay.texts()
    readings = read_statements(texts)
    expected = sorted(Reading(s.session, s.form, s.kind.noun, s.value,
                              s.holder.noun if s.holder else None) for s in planned)
    if readings != expected:
        raise GenerationError(f"{spec.key}: the text does not read back as planned")
    if len(texts) != N_SESSIONS or {b - a for a, b in zip(stay.times, stay.times[1:])} != {INTERVAL}:
        raise GenerationError(f"{spec.key}: not {N_SESSIONS} sessions at the constant interval")
    kind = KIND_OF[spec.asked]
    block = {"distance_sessions": spec.distance, "fact_family": spec.family,
             "gold_components": [{"kind": "statement", "session_index": spec.gold,
                                  "memory_type": MEMORY_TYPE}],
             "difficulty": DISTANCES.index(int(spec.shape.split("-")[1])) + 1,
             "dial": {"name": "valued_competitors", "value": count}}
    record = engine.record(stay, question_id=spec.key, vertical=VERTICAL, shape=spec.shape,
                           memory_type=MEMORY_TYPE, question=kind.question, answer="",
                           gold=[(spec.gold, _own_piece(plan, spec.gold))], block=block)
    gold = recompute_gold(record)
    lo, hi = WINDOWS[int(spec.shape.split("-")[1])]
    after = N_SESSIONS - 1 - gold.session
    if gold.session != spec.gold or not lo <= after <= hi:
        raise GenerationError(f"{spec.key}: gold at {gold.session}, {after} sessions before the "
                              f"question; the window is {lo}..{hi}")
    if len(gold.competitors) != count:
        raise GenerationError(f"{spec.key}: {len(gold.competitors)} competitors of the asked kind "
                              f"read back, {count} planned")
    record["answer"] = gold.value
    record["typedmemeval"]["answer_key"] = engine.answer_key(accepted=[gold.value],
                                                             wrong=list(gold.others))
    engine.judge_gold(record, wrong_answers=[*gold.competitors, *gold.others[:3],
                                             f"The {kind.noun} you have {kind.verb} is "
                                             f"{gold.competitors[0]}."])
    return record


def build(seed: int, competition_by_shape: Mapping[str, float], *,
          shapes: Sequence[str] = SHAPES) -> engine.Built:
    """The records of ``shapes`` in id order and the rendering tally (deterministic in seed and
    dial; a cell's record never depends on which other rungs are built)."""
    if unknown := sorted(set(shapes) - set(SHAPES)):
        raise GenerationError(f"unknown shapes {unknown}")
    tally = engine.Tally()
    records = [_records(seed, spec, float(competition_by_shape[spec.shape]), tally)
               for spec in _layout(seed) if spec.shape in shapes]
    if set(shapes) == set(SHAPES):
        engine.check_rarity(records, {r["question_id"]: tokenize(r["question"]) for r in records},
                            share=RARE_SHARE)
    engine.assign_ids(records, seed=seed, vertical=VERTICAL, abbrev=ABBREV,
                      universe=[spec.key for spec in _layout(seed)])
    return engine.Built(engine.finish(records), tally)


def search_dial(seed: int = SEED) -> dict[str, Any]:
    """The authoring search for the one dial the five rungs share. The sweep and bisection of
    :func:`..calibration.search_shape` run on the pooled grid (60 questions); a point's ceiling
    figure is the largest, over the rungs, of the whole lexical panel, the phrase reader's
    coverage@5 and the subject-and-value reader's gold@1 scaled to its bound (0.60 -> 0.90), so the
    search never lands where an adversary bound breaks. Returns what to record."""
    from ...corpus.models import QuestionRecord
    from ...gates import adversaries

    figures: dict[float, dict[str, Any]] = {}

    def evaluate(dial: float) -> tuple[float, float]:
        records = [QuestionRecord.model_validate(r)
                   for r in build(seed, {shape: dial for shape in SHAPES}).records]
        stays = adversaries.read_haystacks(records)
        row: dict[str, Any] = {}
        worst = 0.0
        for shape in SHAPES:
            mine = [h for h in stays if h.shape == shape]
            panel_max = calibration.panel_max_coverage(records, shape, whole=True) or 0.0
            phrase = sum(adversaries.tied_coverage(adversaries.phrase_scores(h), h.gold)
                         for h in mine) / len(mine)
            reader = sum(adversaries.tied_gold_at_1(adversaries.reader_scores(h), h.gold)
                         for h in mine) / len(mine)
            reference = calibration.shape_coverage(records, shape) or 0.0
            row[shape] = {"reference": round(reference, 6), "panel_max": round(panel_max, 6),
                          "phrase_reader": round(phrase, 6), "reader_gold_at_1": round(reader, 6)}
            worst = max(worst, reference, panel_max, phrase,
                        reader * calibration.SATURATION_CEILING / adversaries.READER_GOLD_AT_1)
        figures[dial] = row
        pooled = sum(r["reference"] for r in row.values()) / len(SHAPES)
        return pooled, worst

    search = calibration.search_shape(evaluate, "pooled")
    # Then the adversary gate on the whole corpus (its learned adversary trains across rungs, so it
    # cannot be folded into the per-point figure): the allowed points, nearest the target first,
    # are tried in turn and every step is recorded, so the record shows how much of the choice the
    # adversaries made (as Prospective's search does).
    from ...gates.declarations import declarations_for
    from ..primitives import dump_json
    from ..sidecar import corpus_from_text

    from ...retrieval import panel

    coverage = dict(search.points)
    allowed = sorted((d for d, c in search.points if search.panel_max[d] <= calibration.SATURATION_CEILING),
                     key=lambda d: (round(abs(coverage[d] - calibration.TARGET), 9), d))
    dense = panel.dense_retriever()
    steps: list[dict[str, Any]] = []
    chosen = search.dial
    for dial in allowed[:LEARNED_TRIES]:
        built = build(seed, {shape: dial for shape in SHAPES}).records
        corpus = corpus_from_text(dump_json(built), f"typedmemeval-{VERTICAL}-v{REVISION}", VERTICAL)
        verdict = adversaries.check(corpus, declared=declarations_for(VERTICAL))
        step: dict[str, Any] = {"dial": dial, "coverage": coverage[dial],
                                "refused_by_adversaries": sorted(r.line() for r in verdict.refusals)}
        # The dense and hybrid arms, too costly for every point of the sweep (one embedding pass
        # of 3,900 sessions), are measured on each point the walk tries: the first rebuild of
        # this revision was searched without them and its hybrid arm read 0.917 on one rung.
        over: list[str] = []
        if dense is not None:
            records = [QuestionRecord.model_validate(r) for r in built]
            rankings = panel.question_rankings(records, dense)
            arms = {panel.DENSE_NAME: panel.mean_by_shape(records, panel.coverage_from_rankings(
                        records, rankings)),
                    panel.HYBRID_NAME: panel.mean_by_shape(records, panel.hybrid_coverage(
                        records, panel.HybridRRF(dense), rankings))}
            step["dense_and_hybrid"] = {arm: {s: round(v, 6) for s, v in sorted(means.items())}
                                        for arm, means in arms.items()}
            over = sorted(f"{arm} {s} {v:.3f}" for arm, means in arms.items()
                          for s, v in means.items() if v > calibration.SATURATION_CEILING)
        else:
            step["dense_and_hybrid"] = "not measured (no [dense] extra)"
        step["refused_by_panel"] = over
        steps.append(step)
        if verdict.status == "passed" and not over:
            chosen = dial
            break
    return {"method": SEARCH_METHOD, "target": calibration.TARGET,
            "ceiling": calibration.SATURATION_CEILING, "k_ref": 5, "max_count": MAX_COUNT,
            "iterations": search.iterations, "pooled": search.as_dict(),
            "figures": {str(d): row for d, row in sorted(figures.items())},
            "adversary_steps": steps, "chosen": chosen,
            "by_shape": {s: {"dial": chosen, "coverage": figures[chosen][s]["reference"]}
                         for s in SHAPES}}


LEARNED_TRIES = 8
"""How many allowed points the adversary walk of :func:`search_dial` may try."""


__all__ = ["ABBREV", "CALIBRATED_SHAPES", "DISTANCES", "FAMILIES", "GENERATOR", "GENERATOR_VERSION",
           "H", "INTERVAL", "KINDS", "N_SESSIONS", "RECORDED_COMPETITION", "REVISION", "SEED",
           "SHAPES", "VERTICAL", "WINDOWS", "asked_kind", "build", "read_statements",
           "recompute_gold", "search_dial"]
