"""TypedMemEval-WorkingMemory's banks: the kinds, their families, and every frame a statement is
drawn from (the declaration is :mod:`.workingmemory`).

Kept apart from the declaration because they are data, each bank with the reason it is shaped as
it is (most of them a red team's finding), together with the twin statistics a tail table must
agree on (:func:`twin_mismatches`: what a content-free reader of a tail could see).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from ...retrieval.tokenizer import raw_tokens
from .. import conversation
from .. import values as value_pool


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
