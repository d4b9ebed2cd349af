"""TypedMemEval-Prospective v1 generator (VERTICALS.md §2.1, Appendix A), on the one template machinery.

**What the vertical asks.** Whether a system anchors remembered items in time: a reminder falling
due, a validity running out, a plan whose day comes, a hand-over that takes effect. No session ever
prints a date; every statement carries a *relative* span ("in nine weeks", "for the next sixty
days") and the asking moment reaches the system only as ``question_date``. Six shapes:

- ``due-later`` (16 = 8 pairs, ``tme-pro-013``..``028``): "Remind me in nine weeks to call Balcor
  Dunfal." Question: "Is my reminder about the boiler at the cottage due yet, and whom was I to
  call?" Before arm: "Not yet: ..." (``not_yet``, premature = the callee); after arm: the reminder
  now due, naming the callee (accepted).
- ``expiring-validity`` (12 = 6 pairs, ``029``..``040``): "The cover from X is valid for the next
  sixty days." Before: X, still valid, not lapsed yet (``not_yet``, must name X); after: X, lapsed
  (``no_longer``, must name X).
- ``not-yet-true`` (10 = 5 pairs, ``041``..``050``): "I plan to book X in ten weeks." The record only
  ever holds the plan. Before: not yet (``not_yet``, premature X); after: the day is past and nothing
  recorded afterwards says whether the plan went ahead; the question asks about the record ("From
  what I have told you, ..."). Its key is ``abstain`` with gold sessions plus "yet" as known-wrong, so
  "nothing says whether" is graded correct while a claim that the booking happened, or the clock-blind
  "not yet", is graded wrong (checked per record).
- ``as-of`` / ``current`` / ``prospective`` (4 each, ``001``..``012``, unpaired; authored here since
  no seed corpus exists, Appendix A): "X looks after it for now, and Y takes over in eight weeks."
  Asked about an instant given relative to the asking moment ("twelve days ago", "now", "in two
  weeks"); gold is X or Y, two of each per shape, so neither "the first name" nor "the successor"
  is a strategy.

**Every haystack has the same anatomy.** Every session carries exactly one statement: a lead-in that
names the subject ("About the boiler at the cottage.") and one body of one of four kinds (reminder,
validity, plan, schedule) naming its value as the object of the verb, in a uniformly random user
slot of three exchanges. Gold and filler come from the same constructions; filler subjects come
from a disjoint parity bank and its values from a disjoint pool. The *competing-items dial*
(VERTICALS.md §2.1 Dials) is applied to every shape: each haystack holds ``c`` in {3, 6, 10, 15}
filler items of the gold's own kind with other pivot dates (so due-later always has >= 3 distractor
reminders with other due dates), spread evenly over each shape's questions; the remaining filler is
of the other kinds, allocated across the corpus so that, kind by kind, gold-kind sessions facing
other-kind distractors balance other-kind gold facing that kind (the kind frame then pools to
AUC ~ 0.5 instead of leaning one way). 0 competitors is not used: a lone gold of its kind would be
separated perfectly by its own kind frame in that question.

**Time.** Sessions are 10-28 hours apart (a haystack spans at most ~23 days), spans are 49-91 days,
so every pivot lies weeks after the last session, and gold and filler draw spans from one bank
whatever their position (no span-by-position tell). Pair arms are asked 3-8 days either side of the
pivot; seed-shape instants sit 3-8 days from the hand-over. Everything is recomputed from the
emitted text and the *final* formatted timestamps (span read back from the gold turn, dates parsed
from ``haystack_dates`` / ``question_date``), and any disagreement is fatal.

**Echo.** One source per haystack: the subject words of its question (noun and place; the
question's frame words are not echoed, since gold never carries them and they would become a
distractor-only vocabulary). Every session carries one clause of ``T = ceil(e * |source|) + r``
terms (r in {1, 2}); a distractor's clause holds ``k`` source words (dithered, mean ``e *
|source|``) and the rest neutral words (parity vocabulary of the haystack), gold's clause holds
neutral words only (§4.2). Roles alternate over the haystack from a random start; the slot is
uniform.

**Small talk.** Padding equalises six counts per turn slot, not words repeated across a session's
turns, which session- and role-level distinct tokens see. Small talk shares with statements only
"the" and "at" (which every statement holds), assistant lines share no word with anything, and each
session's two small-talk lines are drawn among the pairs repeating exactly
:data:`SESSION_DUPLICATES` words: the same for every session, whatever its kind, gold or not.

**Randomness.** ``derive_rng(seed, vertical, key, purpose)`` with purposes ``layout`` (global:
entries, dial levels, H, stratified gold positions, filler kinds), ``plan``, ``echo``, ``render``,
``pad``; a pair's haystack is keyed by its pair, so one rendering serves both arms. If the shared
padder cannot pad a haystack, it is rendered again from the next ``render``/``pad`` streams
(:data:`RENDER_ATTEMPTS`).

**Validity rules** (hard errors, :class:`machinery.GenerationError`): pivot strictly between the arms
(and >= 2 days from either), recomputed from the final timestamps; before-arm gold says "not yet"
outright; the after-arm golds of not-yet-true never claim the plan went ahead (and the judge grades
such a claim wrong); due-later haystacks hold >= 3 distractor reminders with other due dates; every
competing item's pivot differs from the gold's; V4 at calendar level over every message and question
(no years, dates, month or weekday names); no digits or dashes; every turn that states a value names
its subject (from the value banks); gold recomputed from the text (V5); pair haystacks byte-identical;
the competing dial takes every level in every shape; subject words rare corpus-wide (< 10% of
sessions); every session repeats :data:`SESSION_DUPLICATES` words across turns; the mechanical judge
grades every gold ``correct`` and no clock-blind answer of a pair arm (:data:`TIME_BLIND`) ``correct``.
"""

from __future__ import annotations

import copy
import hashlib
import math
import random
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from ..corpus.models import AnswerKey, QuestionRecord, format_corpus_date, parse_corpus_date
from ..gates.structure import v4_findings
from ..judge.mechanical import judge_answer
from ..judge.outcomes import Outcome
from ..judge.reading import JUDGE_CUE_PATTERNS
from ..retrieval.tokenizer import raw_tokens, tokenize
from .machinery import (
    ECHO_LEAD_IN,
    PAD_BANKS,
    ROLES,
    Construction,
    ConstructionBank,
    DraftTurn,
    EchoPlan,
    GenerationError,
    Placement,
    ScaffoldBanks,
    SessionPlan,
    Statement,
    align_roles,
    assert_disjoint,
    content_words,
    derive_rng,
    dither,
    draw_terms,
    pad_haystack,
    render_session,
)

VERTICAL = "prospective"
ABBREV = "pro"
GENERATOR = "pytest_typedmemeval.generate.prospective"
GENERATOR_VERSION = "1"
SEED = 20260511
"""The vertical seed of the shipped corpus (revision 1). Changing it changes the corpus."""

SHAPES = ("as-of", "current", "prospective", "due-later", "expiring-validity", "not-yet-true")
CALIBRATED_SHAPES = SHAPES
"""Every shape has gold (G = 1), so every shape is searched, in this order."""

RECORDED_ECHO: dict[str, float] = {
    "as-of": 0.375,
    "current": 0.375,
    "due-later": 0.8046875,
    "expiring-validity": 0.625,
    "not-yet-true": 0.73828125,
    "prospective": 0.5,
}
"""The echo per shape recorded at authoring time by ``typedmemeval generate --vertical prospective
--search`` (sweep, then bisection; :mod:`.calibration`). Rebuilds read these and never search."""

CALIBRATION_RECORD: dict[str, Any] = {
    "by_shape": {
        "as-of": {"bracket": [0.375, 0.5], "coverage": 0.75, "echo": 0.375,
                   "iterations": 15,
                   "points": [[0.0, 1.0], [0.125, 1.0], [0.25, 1.0], [0.375, 0.75], [0.5, 0.25],
                              [0.625, 0.25], [0.75, 0.25], [0.875, 0.25], [1.0, 0.0],
                              [0.4375, 0.5], [0.40625, 0.5], [0.390625, 1.0], [0.3984375, 0.5],
                              [0.39453125, 0.75], [0.396484375, 0.5]]},
        "current": {"bracket": [0.75, 0.875], "coverage": 0.75, "echo": 0.375,
                   "iterations": 15,
                   "points": [[0.0, 1.0], [0.125, 1.0], [0.25, 1.0], [0.375, 0.75], [0.5, 0.75],
                              [0.625, 0.75], [0.75, 0.75], [0.875, 0.5], [1.0, 0.5],
                              [0.8125, 0.5], [0.78125, 0.75], [0.796875, 0.5], [0.7890625, 0.5],
                              [0.78515625, 0.5], [0.783203125, 0.5]]},
        "due-later": {"bracket": [0.75, 0.875], "coverage": 0.75, "echo": 0.8046875,
                   "iterations": 15,
                   "points": [[0.0, 1.0], [0.125, 1.0], [0.25, 1.0], [0.375, 1.0], [0.5, 1.0],
                              [0.625, 1.0], [0.75, 0.875], [0.875, 0.5], [1.0, 0.5],
                              [0.8125, 0.625], [0.78125, 0.875], [0.796875, 1.0],
                              [0.8046875, 0.75], [0.80859375, 0.75], [0.810546875, 0.625]]},
        "expiring-validity": {"bracket": None, "coverage": 0.833333, "echo": 0.625,
                   "iterations": 9,
                   "points": [[0.0, 1.0], [0.125, 1.0], [0.25, 1.0], [0.375, 1.0], [0.5, 1.0],
                              [0.625, 0.833333], [0.75, 1.0], [0.875, 0.833333], [1.0, 0.833333]]},
        "not-yet-true": {"bracket": [0.625, 0.75], "coverage": 0.6, "echo": 0.73828125,
                   "iterations": 15,
                   "points": [[0.0, 1.0], [0.125, 1.0], [0.25, 1.0], [0.375, 1.0], [0.5, 1.0],
                              [0.625, 0.8], [0.75, 0.6], [0.875, 0.6], [1.0, 0.2], [0.6875, 0.8],
                              [0.71875, 0.8], [0.734375, 1.0], [0.7421875, 0.6],
                              [0.73828125, 0.6], [0.736328125, 0.8]]},
        "prospective": {"bracket": [0.875, 1.0], "coverage": 0.75, "echo": 0.5,
                   "iterations": 15,
                   "points": [[0.0, 1.0], [0.125, 1.0], [0.25, 1.0], [0.375, 1.0], [0.5, 0.75],
                              [0.625, 1.0], [0.75, 0.75], [0.875, 0.75], [1.0, 0.5],
                              [0.9375, 0.75], [0.96875, 0.5], [0.953125, 0.5], [0.9453125, 0.75],
                              [0.94921875, 0.5], [0.947265625, 0.75]]},
    },
    "ceiling": 0.9,
    "iterations": 84,
    "k_ref": 5,
    "method": "sweep (9 points over [0, 1]) then bisection inside the bracket (6 steps max, "
              "tolerance 0.0125), per shape in order",
    "target": 0.7,
}
"""What that authoring search reported (points evaluated, bracket, iterations), for the sidecar.
Coverage here is at search time; the sidecar's coverage block is re-derived from the final bytes."""

DIFFICULTY_NOTE = ("declared, not validated: the band is the competing-items dial (same-kind filler "
                   "items with other pivot dates: 3 / 6 / 10 / 15 -> bands 1-4); the displacement "
                   "from statement to pivot (49-91 days) is a time a lexical retriever cannot see "
                   "(VERTICALS.md §2.0, §2.1 Dials)")

MEMORY_TYPE = "prospective"
PAIRS = {"due-later": 8, "expiring-validity": 6, "not-yet-true": 5}
UNPAIRED = {"as-of": 4, "current": 4, "prospective": 4}
H_MAX = 20
H_MIN = 13
"""§2.1: H is 12-20; 13 keeps the distribution rule's chance rate a little lower at G = 1."""
COMPETING_LEVELS = (3, 6, 10, 15)
"""§2.1 Dials: competing reminders at 0/3/6/10/15 applied to every shape; 0 is left out (a lone
gold of its kind is separated perfectly by its own kind frame), so due-later always has >= 3."""
MIN_DISTRACTOR_REMINDERS = 3
"""§2.1 rule 4: due-later questions include at least 3 distractor reminders with other due dates."""
EXCHANGES = 3
GAP_MINUTES = (600, 1680)
"""Minutes between consecutive sessions (10-28 hours): 20 gaps stay under 24 days."""
ARM_MARGIN_MINUTES = (3 * 1440, 8 * 1440)
"""How far an arm (or a seed instant) sits from its pivot: 3-8 days, never the pivot's own day."""
MIN_PIVOT_DAYS = 2
"""Fatal check: an asked instant closer than this to its pivot would make the gold ambiguous."""
MIN_OTHER_PIVOT_DAYS = 2
"""Competing items' pivots are at least this far from the gold pivot ("other due dates")."""
RARE_SHARE = 0.10
"""V7 relevance exemption: subject (question instance) words stay in < 10% of sessions."""
VALUE_JOIN = ";"
"""A schedule statement's two values travel in one ``Statement.value``, joined by this."""

KIND_OF_SHAPE: dict[str, str] = {
    "due-later": "reminder", "expiring-validity": "validity", "not-yet-true": "plan",
    "as-of": "schedule", "current": "schedule", "prospective": "schedule",
}
KINDS = ("reminder", "validity", "plan", "schedule")
VALUES_PER_KIND = {"reminder": 1, "validity": 1, "plan": 1, "schedule": 2}


# --------------------------------------------------------------------------------------------
# Banks


@dataclass(frozen=True)
class Entry:
    """A subject: a thing at a place ("boiler at the cottage"); a question asks about one."""

    noun: str
    place: str

    @property
    def subject(self) -> str:
        return f"{self.noun} at the {self.place}"

    @property
    def words(self) -> frozenset[str]:
        return frozenset(tokenize(f"{self.noun} {self.place}"))


FACTS: tuple[Entry, ...] = tuple(Entry(noun, place) for noun, place in (
    ("boiler", "cottage"), ("burglar alarm", "bakery"), ("lift", "surgery"), ("roof", "chapel"),
    ("kiln", "pottery"), ("scaffolding", "warehouse"), ("hot tub", "chalet"),
    ("sprinklers", "gym"), ("septic tank", "farmhouse"), ("solar panels", "barn"),
    ("chimney", "lodge"), ("gutters", "bungalow"), ("fridge", "cafe"),
    ("photocopier", "office"), ("forklift", "depot"), ("generator", "campsite"),
    ("fence", "paddock"), ("heat pump", "annexe"), ("immersion heater", "flat"),
    ("boat trailer", "marina"), ("wiring", "pub"), ("pool filter", "villa"),
    ("climbing frame", "nursery"), ("lawn tractor", "vineyard"), ("stage lights", "theatre"),
    ("shutters", "boutique"), ("aquarium", "clinic"), ("ice machine", "hotel"),
    ("polytunnel", "smallholding"), ("drains", "garage"), ("skylight", "loft"),
    ("dishwasher", "canteen"), ("conveyor belt", "factory"), ("bell", "abbey"),
))
"""Subjects questions ask about: each tracked haystack draws one, none twice."""

PARITY: tuple[Entry, ...] = tuple(Entry(noun, place) for noun, place in (
    ("chairlift", "resort"), ("escalator", "mall"), ("freezer", "deli"), ("sauna", "spa"),
    ("jukebox", "diner"), ("turnstile", "stadium"), ("till", "bookshop"), ("kettle", "hostel"),
    ("hoist", "workshop"), ("awning", "kiosk"), ("radiator", "bedsit"),
    ("shower block", "pavilion"), ("cooker", "guesthouse"), ("lockers", "leisure centre"),
    ("telescope", "observatory"), ("organ", "cathedral"), ("ticket barrier", "station"),
    ("furnace", "foundry"), ("crane", "dockyard"), ("scoreboard", "bowling green"),
    ("waterwheel", "mill"), ("mangle", "launderette"), ("pizza oven", "trattoria"),
    ("baler", "stables"), ("bunk beds", "cabin"), ("extractor fan", "takeaway"),
    ("security gate", "car park"), ("spotlights", "gallery"), ("printing press", "newsagent"),
    ("treadmill", "fitness studio"), ("loom", "weaving shed"), ("dumbwaiter", "restaurant"),
))
"""Parity subjects (filler): the same kind of item about things no question asks."""

LEAD_INS: tuple[str, ...] = (
    "About the {subject}.",
    "Regarding the {subject}.",
    "Quick note about the {subject}.",
    "Concerning the {subject}.",
    "As for the {subject}.",
    "A word about the {subject}.",
)
"""Lead-ins, shared by every kind, gold and filler alike; each names the subject."""

BODIES: dict[str, tuple[str, ...]] = {
    "reminder": (
        "Remind me in {span} to call {value}.",
        "Give me a nudge in {span} to call {value}.",
        "I want a reminder in {span} to call {value}.",
        "In {span}, remind me to call {value}.",
    ),
    "validity": (
        "The cover from {value} is valid for the next {span}.",
        "I have cover from {value}, valid for the next {span}.",
        "The cover from {value} stays valid for the next {span}.",
        "For the next {span}, the cover from {value} is valid.",
    ),
    "plan": (
        "I plan to book {value} in {span}.",
        "I mean to book {value} in {span}.",
        "In {span}, I intend to book {value}.",
        "The plan is to book {value} in {span}.",
    ),
    "schedule": (
        "{value} looks after it for now, and {value2} takes over in {span}.",
        "For now {value} looks after it, and {value2} takes over in {span}.",
        "{value} looks after it until {value2} takes over in {span}.",
        "In {span}, {value2} takes over from {value}, who looks after it for now.",
    ),
}
"""Kind sentences. Each names its value as the object of the verb (the callee, the cover, the
booking, the carer), so a filler item says what it is exactly as gold does (§2.1)."""

SPANS: dict[str, int] = {
    "seven weeks": 49, "eight weeks": 56, "nine weeks": 63, "ten weeks": 70, "eleven weeks": 77,
    "twelve weeks": 84, "thirteen weeks": 91, "fifty days": 50, "sixty days": 60,
    "seventy days": 70, "eighty days": 80, "ninety days": 90,
}
"""Relative spans (days) from a statement's session to its pivot; one bank for gold and filler."""
OFFSETS: dict[str, int] = {"ten days": 10, "twelve days": 12, "two weeks": 14}
"""Seed questions' instants relative to the asking moment ("twelve days ago", "in two weeks")."""

QUESTIONS: dict[str, str] = {
    "due-later": "Is my reminder about the {subject} due yet, and whom was I to call?",
    "expiring-validity": "Whose cover do I have for the {subject}, and is it still valid?",
    "not-yet-true": "From what I have told you, have I booked anyone for the {subject} yet?",
    "current": "Who looks after the {subject} now?",
    "as-of": "Who was looking after the {subject} {offset} ago?",
    "prospective": "Who will be looking after the {subject} in {offset}?",
}
"""Question frames: the asking moment is never in the text (it is ``question_date``)."""

ANSWERS: dict[tuple[str, str], str] = {
    ("due-later", "before"): "Not yet: your reminder to call {value} about the {subject} is not due yet.",
    ("due-later", "after"): "Yes, it is due now: call {value} about the {subject}.",
    ("expiring-validity", "before"): "{value}, and it is still valid: it has not lapsed yet.",
    ("expiring-validity", "after"): "{value}, but it has lapsed: that cover is no longer valid.",
    ("not-yet-true", "before"): "Not yet: you plan to book {value}, and the day you set for it has "
                                "not come yet.",
    ("not-yet-true", "after"): "The day you set to book {value} has passed, and nothing you told me "
                               "afterwards says whether you did.",
    ("current", ""): "{value} looks after it now.",
    ("as-of", ""): "{value} was looking after it then.",
    ("prospective", ""): "{value} will be looking after it then.",
}
"""Gold texts; filled only from values read back from the rendered sessions (V5)."""

TIME_BLIND: dict[tuple[str, str], tuple[str, ...]] = {
    ("due-later", "before"): ("Yes, it is due now: call {value}.",),
    ("due-later", "after"): ("Not yet, that reminder is not due yet.", "Nothing is due yet."),
    ("expiring-validity", "before"): ("{value}, but it has lapsed.",),
    ("expiring-validity", "after"): ("{value}, and it is still valid.", "{value}; it has not lapsed yet."),
    ("not-yet-true", "before"): ("Yes, you booked {value}.",),
    ("not-yet-true", "after"): ("Yes, you booked {value} as planned.", "Not yet: you plan to book {value}.",
                                "No, nothing is booked yet."),
}
"""For each pair arm, answers a clock-blind system would give (the other arm's reading, or the plan
taken as done). The mechanical judge must grade none of them correct (checked per record)."""

NOT_YET_MARKER = "yet"
"""Known-wrong on the not-yet-true after arm: its key is ``abstain`` (the record cannot say whether
the plan went ahead), which accepts any confident negative, so "nothing is booked yet", the reading
of a system that ignores the clock, would pass. "yet" marks that reading; no after-arm gold says it."""

USER_TALK: tuple[str, ...] = (
    "Weather turned chilly again. We dug out thick scarves.",
    "We tried an odd bread recipe. The loaf came out dense.",
    "Our neighbour lent us that novel. We got halfway through.",
    "Work has been hectic. We manage, though.",
    "We finally cleared out the junk drawer. Took an hour.",
    "Friends came round with dinner. Everyone stayed late.",
    "We walked along the river. Both legs ache.",
    "The train ran late twice. We missed the meeting.",
    "We started that history podcast. Each episode runs long.",
    "Our cousin rang up. We chatted with her at length.",
    "Sleep has been better. Early nights help.",
    "We watched an old film. Both of us dozed off.",
    "We joined that painting class. The first session seems promising.",
    "The neighbours threw loud parties. Nobody slept.",
    "The toast got burnt this morning. Same old story.",
    "Relatives arrive with luggage. The spare room needs tidying.",
    "We found an old photo album. That made us smile.",
    "The bus route has changed. Journeys take longer.",
    "We drink more water. Bottles sit everywhere.",
    "We lost the quiz by one point. That stung.",
    "We made soup with leftover vegetables. Pretty decent.",
    "The favourite mug cracked. We kept the pieces.",
    "We reorganised the bookshelf by colour. The result seems cheerful.",
    "The local library opened that quiet corner. We like that spot.",
    "We walked all the way, saving money. Rather pleasant.",
    "We played board games late. Lost every round.",
    "We practise Italian phrases. Pronunciation feels hard.",
    "Our friend ran that long race. We cheered by the side.",
    "We spent the afternoon tidying the attic. Much tidier.",
    "We tried meditation. Thoughts kept wandering.",
    "The corner shop stocks oat milk at last. That helps.",
    "We watched the sunset up the hill. Beautiful.",
    "Our nephew lost his first tooth. He seemed thrilled.",
    "We wrote an old friend several pages. Posted earlier.",
    "The heating clanked all night. Somebody should check the pipes.",
    "We bought the cheap desk lamp. The light feels warm.",
    "Rain fell all afternoon. We stayed indoors reading.",
    "Traffic got awful this morning. We left early.",
    "We cooked curry with fresh spices. Too fiery.",
    "We repainted the bathroom door. The colour seems bolder.",
)
"""Small talk for user turns without a statement. It shares no word with any statement except
"the" and "at", which every statement holds ("... the boiler at the cottage."), and none with the
question frames or the echo lead-in: how many words a session repeats across its turns then does
not depend on what its statement says (kind, lead-in, body), only on the two lines drawn."""

ASSISTANT_TALK: tuple[str, ...] = (
    "Understood.", "Noted, thanks.", "Sounds sensible.", "Fair enough.", "Makes sense.",
    "Perfect.", "Excellent news.", "Brilliant.", "Very interesting.", "Cheers.", "Wonderful.",
    "Great stuff.", "Sure thing.", "Right you are.", "How nice.", "Splendid.", "Marvellous.",
    "Quite so.", "Thank goodness.", "Duly recorded.", "Appreciated.", "Delightful.",
)
"""Assistant replies, one bank for every assistant turn, gold and filler alike. No two share a
word, and none shares a word with user turns, statements or the echo clause: a session's assistant
turns then never repeat a word of the session (see :data:`SESSION_DUPLICATES`)."""

SESSION_DUPLICATES = 2
"""Every session's turns repeat exactly this many words across turns (sum over turns of distinct
words, minus the session's distinct words). Padding equalises each turn slot, not the session, so
cross-turn repeats are what session- and role-level distinct tokens and type-token ratio can still
see; left to chance they vary by several words per session. Each session's two small-talk lines are
drawn among the pairs giving exactly this many repeats (the most common count); assistant lines
and the echo clause repeat nothing. Since small talk meets a statement only in "the" and "at",
which every statement holds, the admissible pairs are the same whatever the statement: the draw is
blind to kind as well as to gold."""

STATEMENT_SHARED = frozenset({"the", "at"})
"""The only words small talk may share with statements (every statement holds both)."""


_VALUE_SYLLABLES = ("bal", "cor", "dun", "fal", "gor", "hel", "jas", "kel", "lum", "nor", "pel",
                    "ros", "tav", "vin", "wil", "yar", "zel", "ost")
"""Invented values are assembled from syllables that appear in no question (§4.1)."""


def _words(syllables: Sequence[str]) -> list[str]:
    return sorted({(a + b).capitalize() for a in syllables for b in syllables if a != b})


GOLD_VALUE_WORDS: tuple[str, ...] = tuple(_words(_VALUE_SYLLABLES)[0::2])
PARITY_VALUE_WORDS: tuple[str, ...] = tuple(_words(_VALUE_SYLLABLES)[1::2])
"""Tracked items and parity filler draw value words from disjoint pools, interleaved from one
sorted list so both pools look alike."""
_VALUE_PATTERN = re.compile(r"\b([A-Z][a-z]+) ([A-Z][a-z]+)\b")
_VALUE_GROUP = r"[A-Z][a-z]+ [A-Z][a-z]+"


class _Bank(ConstructionBank):
    """The machinery's bank with two fields more: ``{span}`` (carried in ``Statement.attribute``)
    and ``{value2}`` (a schedule's successor, carried in ``Statement.value`` after
    :data:`VALUE_JOIN`). Implemented here: the shared machinery renders one value per statement."""

    def render(self, statement: Statement) -> str:
        construction = self.get(statement.construction_id)
        if construction.kind != statement.kind:
            raise GenerationError(f"construction {construction.construction_id!r} is of kind "
                                  f"{construction.kind!r}, statement is {statement.kind!r}")
        values = (statement.value or "").split(VALUE_JOIN)
        if len(values) != VALUES_PER_KIND[statement.kind] or not all(values):
            raise GenerationError(f"{statement.kind} statement needs {VALUES_PER_KIND[statement.kind]} "
                                  f"value(s), got {statement.value!r}")
        return construction.template.format(subject=statement.subject, span=statement.attribute,
                                            value=values[0], value2=values[-1])


def _construction_bank() -> _Bank:
    constructions = [Construction(f"{kind[0].upper()}{li}{bi}", kind, f"{lead} {body}", True)
                     for kind, bodies in BODIES.items()
                     for li, lead in enumerate(LEAD_INS) for bi, body in enumerate(bodies)]
    return _Bank(constructions)


CONSTRUCTIONS = _construction_bank()


def _template_words(templates: Sequence[str]) -> frozenset[str]:
    return content_words(re.sub(r"\{\w+\}", " ", t) for t in templates)


FRAME_WORDS = _template_words([*LEAD_INS, *(b for bodies in BODIES.values() for b in bodies)])
QUESTION_WORDS = _template_words(list(QUESTIONS.values()))
ANSWER_WORDS = _template_words([*ANSWERS.values(), *(b for bs in TIME_BLIND.values() for b in bs)])
FACT_WORDS = frozenset(w for e in FACTS for w in e.words)
PARITY_WORDS = frozenset(w for e in PARITY for w in e.words)
SPAN_WORDS = frozenset(w for phrase in (*SPANS, *OFFSETS) for w in raw_tokens(phrase))
SCAFFOLD_WORDS = content_words(USER_TALK + ASSISTANT_TALK)
VALUE_WORDS = frozenset(w.lower() for w in GOLD_VALUE_WORDS + PARITY_VALUE_WORDS)
TEMPORAL_PAD_WORDS = frozenset({"later", "lately", "afterwards", "tonight", "recently", "soon",
                                "shortly", "presently", "overnight", "meanwhile"})
"""Pad openers that speak of time: never drawn here, so filler sentences in a vertical about time
carry no relative-time word of their own."""


def _assert_banks() -> None:
    """Import-time assertions (GENERATION.md "Checks that belong in every generator")."""
    assert_disjoint("fact bank", FACT_WORDS, "parity bank", PARITY_WORDS)
    subjects = FACT_WORDS | PARITY_WORDS
    for name, words in (("scaffold banks", SCAFFOLD_WORDS), ("construction frames", FRAME_WORDS),
                        ("question frames", QUESTION_WORDS), ("answer frames", ANSWER_WORDS),
                        ("span words", SPAN_WORDS), ("pad vocabulary", PAD_BANKS.vocabulary()),
                        ("echo lead-in", frozenset(raw_tokens(ECHO_LEAD_IN)))):
        assert_disjoint("fact and parity banks", subjects, name, words)
    assert_disjoint("span words", SPAN_WORDS, "scaffold banks", SCAFFOLD_WORDS)
    assert_disjoint("gold values", {w.lower() for w in GOLD_VALUE_WORDS}, "parity values",
                    {w.lower() for w in PARITY_VALUE_WORDS})
    everything = subjects | SCAFFOLD_WORDS | FRAME_WORDS | QUESTION_WORDS | ANSWER_WORDS \
        | SPAN_WORDS | PAD_BANKS.vocabulary() | frozenset(raw_tokens(ECHO_LEAD_IN))
    assert_disjoint("values", VALUE_WORDS, "every bank", everything)
    echo_words = frozenset(raw_tokens(ECHO_LEAD_IN))
    assistant = [frozenset(raw_tokens(line)) for line in ASSISTANT_TALK]
    assert sum(map(len, assistant)) == len(frozenset().union(*assistant)), "assistant lines share words"
    statements = FRAME_WORDS | SPAN_WORDS | subjects | VALUE_WORDS
    assert_disjoint("assistant lines", frozenset().union(*assistant), "user lines and statements",
                    content_words(USER_TALK) | statements | echo_words)
    assert_disjoint("echo lead-in", echo_words, "user lines and statements",
                    content_words(USER_TALK) | statements)
    assert_disjoint("user lines", content_words(USER_TALK), "statements and question frames",
                    (statements | QUESTION_WORDS) - STATEMENT_SHARED)
    for construction in CONSTRUCTIONS:
        assert STATEMENT_SHARED <= frozenset(raw_tokens(construction.template.format(
            subject="x at the y", span="", value="", value2=""))), construction
    # Each entry's words belong to it alone (a gram mixing a subject word with frame words then
    # sits in one question's haystack only).
    owners = Counter(w for e in FACTS + PARITY for w in e.words)
    shared = sorted(w for w, count in owners.items() if count > 1)
    assert not shared, f"fact/parity entries share words {shared}"
    for entry in FACTS + PARITY:
        assert entry.noun == entry.noun.lower() and entry.place == entry.place.lower(), entry
        assert len(entry.words) >= 2, entry
        for cue in JUDGE_CUE_PATTERNS:  # a subject inside a gold must not read as a judge cue
            assert not re.search(cue, entry.subject), (entry, cue)
    for value in VALUE_WORDS:
        assert not any(re.fullmatch(cue, value.lower()) for cue in JUDGE_CUE_PATTERNS), value
    # Every template renders grammatically and carries no calendar word (V4 at calendar level).
    sample = "Balcor Dunfal" + VALUE_JOIN + "Helnor Pelros"
    for construction in CONSTRUCTIONS:
        text = CONSTRUCTIONS.render(Statement(
            construction.kind, "boiler at the cottage", "nine weeks",
            sample if construction.kind == "schedule" else "Balcor Dunfal",
            construction.construction_id))
        assert "{" not in text and "  " not in text and text.endswith(".") and text[0].isupper(), text
        assert "the boiler at the cottage." in text and "Balcor Dunfal" in text, text
        assert not v4_findings(text, "calendar"), text
    for shape, frame in QUESTIONS.items():
        for offset in OFFSETS:
            text = frame.format(subject="boiler at the cottage", offset=offset)
            assert not v4_findings(text, "calendar") and text.endswith("?"), text
    for text in (*USER_TALK, *ASSISTANT_TALK, *LEAD_INS, *SPANS, *OFFSETS, *ANSWERS.values()):
        assert not v4_findings(text, "calendar") and not re.search(r"[\d\u2013\u2014]", text), text
    before = [text for (shape, arm), text in ANSWERS.items() if arm == "before"]
    assert all("not yet" in text.lower() or "not lapsed yet" in text for text in before), before


_assert_banks()


# --------------------------------------------------------------------------------------------
# Layout (global) and planning (per haystack)


@dataclass(frozen=True)
class HaySpec:
    """One haystack's design, decided globally so the dial, positions and kinds are balanced."""

    key: str
    shape: str
    entry: Entry
    competing: int
    h: int
    gold_position: int
    filler_kinds: tuple[str, ...]
    """Kinds of the filler items (``competing`` of the gold's kind first, then the rest)."""
    gold_side: int
    """Seed shapes: 0 when the first-named value is the gold, 1 for the successor."""
    offset: str
    """Seed shapes as-of / prospective: the instant relative to the asking moment."""
    numbers: tuple[int, ...]
    """Question numbers: one for a seed question, (before, after) for a pair."""
    pair: int | None


def _haystack_keys() -> list[tuple[str, str, int | None]]:
    out: list[tuple[str, str, int | None]] = []
    for shape in ("as-of", "current", "prospective"):
        out += [(f"{shape}-{i + 1:02d}", shape, None) for i in range(UNPAIRED[shape])]
    pair = 0
    for shape in ("due-later", "expiring-validity", "not-yet-true"):
        for _ in range(PAIRS[shape]):
            pair += 1
            out.append((f"pair-{pair:02d}", shape, pair))
    return out


@lru_cache(maxsize=8)
def _layout(seed: int) -> tuple[HaySpec, ...]:
    rng = derive_rng(seed, VERTICAL, "layout")
    keys = _haystack_keys()
    entries = list(FACTS)
    rng.shuffle(entries)
    by_shape: dict[str, list[int]] = {}
    for index, (_, shape, _) in enumerate(keys):
        by_shape.setdefault(shape, []).append(index)
    competing = [0] * len(keys)
    sides = [0] * len(keys)
    offsets = [""] * len(keys)
    for shape, members in by_shape.items():
        levels = [COMPETING_LEVELS[i % len(COMPETING_LEVELS)] for i in range(len(members))]
        rng.shuffle(levels)
        for index, level in zip(members, levels):
            competing[index] = level
        if shape in UNPAIRED:
            halves = [i % 2 for i in range(len(members))]
            rng.shuffle(halves)
            for index, side in zip(members, halves):
                sides[index] = side
                offsets[index] = rng.choice(sorted(OFFSETS))
    hs = [rng.randint(max(H_MIN, c), H_MAX) for c in competing]
    # Gold positions: stratified relative positions, shuffled over haystacks, so the share of
    # gold in the first and last session stays near chance (structure gate) and V7's position
    # feature sees uniform gold.
    strata = list(range(len(keys)))
    rng.shuffle(strata)
    positions = [min(h, int((s + rng.random()) / len(keys) * (h + 1))) for s, h in zip(strata, hs)]
    other = _allocate_kinds(keys, competing, hs, rng)
    numbers: list[tuple[int, ...]] = []
    next_number = 1
    for _, shape, pair in keys:
        count = 1 if pair is None else 2
        numbers.append(tuple(range(next_number, next_number + count)))
        next_number += count
    specs = []
    for index, (key, shape, pair) in enumerate(keys):
        kind = KIND_OF_SHAPE[shape]
        kinds = (kind,) * competing[index] + tuple(other[index])
        specs.append(HaySpec(key, shape, entries[index], competing[index], hs[index], positions[index],
                             kinds, sides[index], offsets[index], numbers[index], pair))
    return tuple(specs)


def _allocate_kinds(keys: Sequence[tuple[str, str, int | None]], competing: Sequence[int],
                    hs: Sequence[int], rng: random.Random) -> list[list[str]]:
    """Other-kind filler per haystack, so each kind's indicator balances in the pooled V7 AUC.

    For kind k, gold of kind k faces ``h - c`` other-kind distractors per question; gold of other
    kinds faces the k-kind distractors of its haystack. Pairs (gold > distractor vs gold <
    distractor) balance when, weighted by how many questions share a haystack, the k-kind slots
    handed to other-kind haystacks equal the other-kind slots of k-kind haystacks. Greedy: every
    slot goes to the kind (other than the haystack's own) with the most demand left.
    """
    weight = [1 if pair is None else 2 for _, _, pair in keys]
    demand = Counter[str]()
    for (_, shape, _), c, h, w in zip(keys, competing, hs, weight):
        demand[KIND_OF_SHAPE[shape]] += w * (h - c)
    order = list(range(len(keys)))
    rng.shuffle(order)
    out: list[list[str]] = [[] for _ in keys]
    for index in order:
        own = KIND_OF_SHAPE[keys[index][1]]
        for _ in range(hs[index] - competing[index]):
            kind = max((k for k in KINDS if k != own), key=lambda k: (demand[k], rng.random()))
            demand[kind] -= weight[index]
            out[index].append(kind)
    return out


@dataclass
class Item:
    """One session's statement: what it is about, its kind, value(s), span and construction."""

    entry: Entry
    kind: str
    values: tuple[str, ...]
    span: str
    lead: int
    body: int
    slot: int
    user_lines: tuple[str, ...] = ()
    assistant_lines: tuple[str, ...] = ()

    @property
    def construction_id(self) -> str:
        return f"{self.kind[0].upper()}{self.lead}{self.body}"

    def statement(self) -> Statement:
        return Statement(self.kind, self.entry.subject, self.span, VALUE_JOIN.join(self.values),
                         self.construction_id)


@dataclass
class Plan:
    """A haystack's plan: items by position, timestamps, and the asking moment(s)."""

    spec: HaySpec
    items: list[Item]
    times: list[datetime]
    question_times: list[datetime]
    session_ids: list[str]

    @property
    def n(self) -> int:
        return len(self.items)


def _values(rng: random.Random, words: Sequence[str], count: int, taken: set[str]) -> list[str]:
    out: list[str] = []
    while len(out) < count:
        first, last = rng.sample(list(words), 2)
        if first in taken or last in taken:
            continue
        taken |= {first, last}
        out.append(f"{first} {last}")
    return out


def _minutes(rng: random.Random, bounds: tuple[int, int]) -> timedelta:
    return timedelta(minutes=rng.randint(*bounds))


@lru_cache(maxsize=64)
def _plan(seed: int, key: str) -> Plan:
    spec = next(s for s in _layout(seed) if s.key == key)
    rng = derive_rng(seed, VERTICAL, key, "plan")
    n = spec.h + 1
    moment = datetime(2025, 1, 6, 8, 0) + timedelta(days=rng.randint(0, 420), minutes=rng.randint(0, 600))
    times = []
    for _ in range(n):
        times.append(moment)
        moment += _minutes(rng, GAP_MINUTES)
    kind = KIND_OF_SHAPE[spec.shape]
    taken: set[str] = set()
    gold_values = tuple(_values(rng, GOLD_VALUE_WORDS, VALUES_PER_KIND[kind], taken))
    gold_span = rng.choice(sorted(SPANS))
    gold_pivot = times[spec.gold_position] + timedelta(days=SPANS[gold_span])
    parity = rng.sample(list(PARITY), spec.h)
    filler_positions = [p for p in range(n) if p != spec.gold_position]
    kinds = list(spec.filler_kinds)
    rng.shuffle(kinds)
    items: list[Item | None] = [None] * n
    items[spec.gold_position] = Item(spec.entry, kind, gold_values, gold_span, rng.randrange(len(LEAD_INS)),
                                     rng.randrange(len(BODIES[kind])), rng.randrange(EXCHANGES))
    for position, entry, filler_kind in zip(filler_positions, parity, kinds):
        values = tuple(_values(rng, PARITY_VALUE_WORDS, VALUES_PER_KIND[filler_kind], taken))
        spans = sorted(SPANS)
        if filler_kind == kind:  # a competitor: another pivot date than the gold's
            spans = [s for s in spans if abs(times[position] + timedelta(days=SPANS[s]) - gold_pivot)
                     >= timedelta(days=MIN_OTHER_PIVOT_DAYS)]
        items[position] = Item(entry, filler_kind, values, rng.choice(spans),
                               rng.randrange(len(LEAD_INS)), rng.randrange(len(BODIES[filler_kind])),
                               rng.randrange(EXCHANGES))
    for item in items:
        assert item is not None
        pairs = _scaffold_pairs(_frame_tokens(item))
        if not pairs:
            raise GenerationError(f"{key}: no small-talk pair gives {SESSION_DUPLICATES} repeats "
                                  f"with {item.construction_id}")
        item.user_lines = rng.choice(pairs)
        item.assistant_lines = tuple(rng.sample(ASSISTANT_TALK, EXCHANGES))
    question_times = _question_times(spec, gold_pivot, rng)
    session_ids = ["sess-" + hashlib.sha256(f"{seed}:{VERTICAL}:{key}:{i}".encode()).hexdigest()[:10]
                   for i in range(n)]
    if len(set(session_ids)) != n:
        raise GenerationError(f"{key}: session id collision")
    return Plan(spec, [item for item in items if item is not None], times, question_times, session_ids)


def _frame_tokens(item: Item) -> frozenset[str]:
    """The statement's words a small-talk line could repeat (values, subject and span words are
    in no small talk, so the lead-in and body frame decide)."""
    template = CONSTRUCTIONS.get(item.construction_id).template
    return frozenset(raw_tokens(template.format(subject="at the", span="", value="", value2="")))


_USER_TOKENS = tuple(frozenset(raw_tokens(line)) for line in USER_TALK)


@lru_cache(maxsize=256)
def _scaffold_pairs(frame: frozenset[str]) -> list[tuple[str, str]]:
    """Small-talk pairs (in bank order) that repeat exactly :data:`SESSION_DUPLICATES` words with
    a statement of this frame."""
    out = []
    for i, first in enumerate(_USER_TOKENS):
        for j in range(i + 1, len(_USER_TOKENS)):
            second = _USER_TOKENS[j]
            if len(frame) + len(first) + len(second) - len(frame | first | second) == SESSION_DUPLICATES:
                out.append((USER_TALK[i], USER_TALK[j]))
    return out


def repeated_words(texts: Sequence[str]) -> int:
    """Words a session repeats across its turns: sum of per-turn distinct words minus the
    session's distinct words (what session-level distinct tokens see beyond the turn slots)."""
    sets = [set(raw_tokens(text)) for text in texts]
    return sum(len(s) for s in sets) - len(set().union(*sets))


def _question_times(spec: HaySpec, pivot: datetime, rng: random.Random) -> list[datetime]:
    """The asking moment(s): pair arms either side of the pivot; seed instants either side of the
    hand-over as the planned gold side says (the question then asks ``offset`` before/after)."""
    margin = _minutes(rng, ARM_MARGIN_MINUTES)
    if spec.pair is not None:
        return [pivot - margin, pivot + _minutes(rng, ARM_MARGIN_MINUTES)]
    instant = pivot - margin if spec.gold_side == 0 else pivot + margin
    offset = timedelta(days=OFFSETS[spec.offset])
    if spec.shape == "current":
        return [instant]
    if spec.shape == "as-of":
        return [instant + offset]
    return [instant - offset]


# --------------------------------------------------------------------------------------------
# Rendering


@dataclass
class Haystack:
    """A rendered haystack: turns per session and the turn index of each session's statement."""

    plan: Plan
    sessions: list[list[DraftTurn]]
    statement_turns: list[int]
    echo_terms: list[tuple[str, ...]] = field(default_factory=list)


def _plan_echo(seed: int, plan: Plan, knob: float) -> list[EchoPlan]:
    """Per session: one clause of ``ceil(knob * |source|) + r`` terms. Distractors carry a dithered
    number of the question's subject words, gold none; the rest are neutral words (subject words of
    this haystack's parity items, never the session's own)."""
    rng = derive_rng(seed, VERTICAL, plan.spec.key, "echo")
    source = sorted(plan.spec.entry.words)
    base = knob * len(source)
    gold = plan.spec.gold_position
    expected = [0.0 if p == gold else base for p in range(plan.n)]
    counts = [min(k, len(source)) for k in dither(expected, rng)]
    neutral_pool = set().union(*(item.entry.words for item in plan.items)) - plan.spec.entry.words
    role_offset = rng.randrange(2)
    plans = []
    for position, item in enumerate(plan.items):
        total = math.ceil(base) + rng.choice((1, 2))
        terms = draw_terms(source, counts[position], rng)
        neutral = draw_terms(neutral_pool - item.entry.words, total - len(terms), rng)
        listed = terms + neutral
        rng.shuffle(listed)
        plans.append(EchoPlan(tuple(listed), ROLES[(position + role_offset) % 2],
                              rng.randrange(EXCHANGES)))
    return plans


RENDER_ATTEMPTS = 4
"""Renderings tried per haystack. The shared padder fails now and then (about 0.5% of this
vertical's haystack/knob combinations: a slot whose target leaves one session too few letters for
the tokens it needs, once its short pad words are used up). A failed attempt is discarded whole and
the haystack is rendered again from the next render and pad streams (small talk reordered within
each session, fresh pad words). Blind to gold: the retry is per haystack, keyed only by the attempt
number; the plan (statements, slots, lines drawn, echo terms) does not change."""

_PAD_RESERVED = FACT_WORDS | PARITY_WORDS | VALUE_WORDS | SPAN_WORDS | QUESTION_WORDS | ANSWER_WORDS \
    | TEMPORAL_PAD_WORDS


def _render(seed: int, plan: Plan, knob: float) -> Haystack:
    echoes = _plan_echo(seed, plan, knob)
    failure: GenerationError | None = None
    for attempt in range(RENDER_ATTEMPTS):
        suffix = (attempt,) if attempt else ()
        rng = derive_rng(seed, VERTICAL, plan.spec.key, "render", *suffix)
        sessions: list[list[DraftTurn]] = []
        statement_turns: list[int] = []
        for item, echo in zip(plan.items, echoes):
            session_plan = SessionPlan(EXCHANGES, (item.statement(),), (Placement("user", item.slot),),
                                       echo)
            scaffold = ScaffoldBanks(item.user_lines, item.assistant_lines)
            rendered = render_session(session_plan, CONSTRUCTIONS, scaffold, rng)
            sessions.append(rendered.turns)
            statement_turns.append(rendered.statement_turns[0])
        mappings = align_roles(sessions)
        statement_turns = [mapping[turn] for mapping, turn in zip(mappings, statement_turns)]
        try:
            pad_haystack(sessions, derive_rng(seed, VERTICAL, plan.spec.key, "pad", *suffix),
                         reserved=_PAD_RESERVED)
        except GenerationError as error:
            failure = error
            continue
        return Haystack(plan, sessions, statement_turns, [echo.terms for echo in echoes])
    raise GenerationError(f"{plan.spec.key}: padding failed on {RENDER_ATTEMPTS} renderings ({failure})")


# --------------------------------------------------------------------------------------------
# Reading back from the text (V5)


def _body_pattern(template: str) -> re.Pattern[str]:
    spans = "|".join(re.escape(s) for s in sorted(SPANS, key=len, reverse=True))
    pattern = re.escape(template)
    pattern = pattern.replace(r"\{value\}", rf"(?P<value>{_VALUE_GROUP})")
    pattern = pattern.replace(r"\{value2\}", rf"(?P<value2>{_VALUE_GROUP})")
    pattern = pattern.replace(r"\{span\}", rf"(?P<span>{spans})")
    return re.compile(pattern)


_BODY_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, _body_pattern(body)) for kind, bodies in BODIES.items() for body in bodies)


@dataclass(frozen=True)
class Reading:
    """What the rendered text says about one subject: the session, kind, values and span days."""

    session: int
    kind: str
    values: tuple[str, ...]
    span_days: int


def read_item(sessions: Sequence[Sequence[str]], entry: Entry) -> list[Reading]:
    """Every statement about ``entry`` in the rendered sessions (texts only, never the plan)."""
    anchor = f"the {entry.subject}."
    found: list[Reading] = []
    for index, turns in enumerate(sessions):
        for text in turns:
            start = text.find(anchor)
            while start >= 0:
                after = text[start + len(anchor):].lstrip()
                hits = [(kind, m) for kind, pattern in _BODY_PATTERNS
                        for m in (pattern.match(after),) if m is not None]
                if len(hits) != 1:
                    raise GenerationError(f"cannot read the {entry.subject} in {text!r}")
                kind, match = hits[0]
                groups = match.groupdict()
                values = (groups["value"],) + ((groups["value2"],) if groups.get("value2") else ())
                found.append(Reading(index, kind, values, SPANS[groups["span"]]))
                start = text.find(anchor, start + 1)
    return found


def read_haystack(sessions: Sequence[Sequence[str]]) -> dict[Entry, list[Reading]]:
    """Every subject of either bank that the text mentions, with its readings."""
    joined = "\n".join(text for turns in sessions for text in turns)
    return {entry: read_item(sessions, entry) for entry in FACTS + PARITY
            if f"the {entry.subject}." in joined}


# --------------------------------------------------------------------------------------------
# Validity rules


def _check_text(key: str, texts: Sequence[str]) -> None:
    """V4 at calendar level, no digits, no dashes: every message and question text."""
    for text in texts:
        findings = v4_findings(text, "calendar")
        if findings:
            raise GenerationError(f"{key}: V4 {findings[0][0]} ({findings[0][1]!r}) in {text!r}")
        if re.search(r"[\d\u2013\u2014]", text):
            raise GenerationError(f"{key}: digits or dashes in {text!r}")


def _check_values_named(key: str, sessions: Sequence[Sequence[str]], owners: Mapping[str, str]) -> None:
    """Every turn that states a value names the subject the value belongs to (per turn, from the
    value banks), and no value word stands outside a full value."""
    pool = set(GOLD_VALUE_WORDS) | set(PARITY_VALUE_WORDS)
    for index, turns in enumerate(sessions):
        for text in turns:
            present = [v for v in owners if v in text]
            for match in _VALUE_PATTERN.finditer(text):
                if not {match.group(1), match.group(2)} & pool:
                    continue
                value = match.group(0)
                if value not in owners:
                    raise GenerationError(f"{key} session {index}: value-shaped {value!r} belongs to "
                                          "no item of this haystack")
                if f"the {owners[value]}." not in text:
                    raise GenerationError(f"{key} session {index}: {value!r} stated without its "
                                          f"subject {owners[value]!r}: {text!r}")
            for word in raw_tokens(text):
                if word in VALUE_WORDS and not any(word in raw_tokens(v) for v in present):
                    raise GenerationError(f"{key} session {index}: value word {word!r} outside a "
                                          f"full value: {text!r}")


def _check_haystack(stay: Haystack) -> None:
    """The haystack's own rules, read from the rendered text (and the plan's timestamps)."""
    plan = stay.plan
    key = plan.spec.key
    texts = [[turn.text for turn in session] for session in stay.sessions]
    _check_text(key, [text for turns in texts for text in turns])
    for index, turns in enumerate(texts):
        if repeated_words(turns) != SESSION_DUPLICATES:
            raise GenerationError(f"{key} session {index}: {repeated_words(turns)} words repeated "
                                  f"across turns, every session repeats {SESSION_DUPLICATES}")
    for earlier, later in zip(plan.times, plan.times[1:]):
        if not earlier < later:
            raise GenerationError(f"{key}: timestamps not strictly increasing")
    owners = {value: item.entry.subject for item in plan.items for value in item.values}
    if len(owners) != sum(len(item.values) for item in plan.items):
        raise GenerationError(f"{key}: a value is stated for two items")
    _check_values_named(key, texts, owners)
    readings = read_haystack(texts)
    for position, item in enumerate(plan.items):
        found = readings.get(item.entry, [])
        expected = [Reading(position, item.kind, item.values, SPANS[item.span])]
        if found != expected:
            raise GenerationError(f"{key}: {item.entry.subject} reads back as {found}, planned {expected}")
        turn = stay.sessions[position][stay.statement_turns[position]].text
        if f"the {item.entry.subject}." not in turn:
            raise GenerationError(f"{key}: statement turn does not name its subject")
    if set(readings) != {item.entry for item in plan.items}:
        raise GenerationError(f"{key}: the text mentions subjects the plan does not hold")


def _record_texts(record: Mapping[str, Any]) -> list[list[str]]:
    return [[turn["content"] for turn in session] for session in record["haystack_sessions"]]


@dataclass(frozen=True)
class Gold:
    """A question's gold, recomputed from a record's text and its final timestamps."""

    answer: str
    value: str
    others: tuple[str, ...]
    session: int
    pivot: datetime
    instant: datetime
    competitors: int
    other_pivots: tuple[datetime, ...]


def recompute_gold(record: Mapping[str, Any], entry: Entry, offset: str = "") -> Gold:
    """Gold of ``record`` from its own bytes: the statement about ``entry`` read from the text, the
    pivot from the formatted session timestamp plus the span, the asked instant from
    ``question_date`` (and the offset the question states). Shape and arm come from the block."""
    block = record["typedmemeval"]
    shape, arm = block["shape"], block.get("arm") or ""
    texts = _record_texts(record)
    readings = read_item(texts, entry)
    if len(readings) != 1:
        raise GenerationError(f"{record['question_id']}: {entry.subject} is stated "
                              f"{len(readings)} times (one statement expected, G = 1)")
    reading = readings[0]
    if reading.kind != KIND_OF_SHAPE[shape]:
        raise GenerationError(f"{record['question_id']}: a {reading.kind} statement for a {shape} "
                              "question")
    dates = [parse_corpus_date(text) for text in record["haystack_dates"]]
    asked = parse_corpus_date(record["question_date"])
    pivot = dates[reading.session] + timedelta(days=reading.span_days)
    if shape == "as-of":
        instant = asked - timedelta(days=OFFSETS[offset])
    elif shape == "prospective":
        instant = asked + timedelta(days=OFFSETS[offset])
    else:
        instant = asked
    if abs(instant - pivot) < timedelta(days=MIN_PIVOT_DAYS):
        raise GenerationError(f"{record['question_id']}: the asked instant is within "
                              f"{MIN_PIVOT_DAYS} days of the pivot (ambiguous)")
    if shape == "as-of" and not instant > dates[reading.session]:
        raise GenerationError(f"{record['question_id']}: the as-of instant precedes the statement")
    later = instant > pivot
    if arm == "before" and later or arm == "after" and not later:
        raise GenerationError(f"{record['question_id']}: the pivot does not fall strictly after the "
                              f"before arm and before the after arm ({arm} arm asks "
                              f"{'after' if later else 'before'} it)")
    if KIND_OF_SHAPE[shape] == "schedule":
        value = reading.values[1 if later else 0]
        text = ANSWERS[(shape, "")]
    else:
        value = reading.values[0]
        text = ANSWERS[(shape, arm)]
    answer = text.format(value=value, subject=entry.subject)
    everything = read_haystack(texts)
    others = tuple(sorted(v for readings_ in everything.values() for r in readings_ for v in r.values
                          if v != value))
    competitors = [r for e, readings_ in everything.items() if e != entry for r in readings_
                   if r.kind == reading.kind]
    other_pivots = tuple(dates[r.session] + timedelta(days=r.span_days) for r in competitors)
    return Gold(answer, value, others, reading.session, pivot, instant, len(competitors), other_pivots)


def _answer_key(shape: str, arm: str, gold: Gold) -> dict[str, Any]:
    wrong = [v for v in gold.others]
    if shape == "due-later":
        key = (AnswerKey(expected_negative="not_yet", premature=(gold.value,), wrong=tuple(wrong))
               if arm == "before" else AnswerKey(accepted=(gold.value,), wrong=tuple(wrong)))
    elif shape == "expiring-validity":
        key = (AnswerKey(expected_negative="not_yet", must_name=(gold.value,), wrong=tuple(wrong))
               if arm == "before" else
               AnswerKey(expected_negative="no_longer", must_name=(gold.value,), stale=(gold.value,),
                         wrong=tuple(wrong)))
    elif shape == "not-yet-true":
        # After arm: the record holds only the plan. "abstain" grades "nothing recorded says
        # whether" correct and any claim that the booking happened wrong (judge-checked below).
        key = (AnswerKey(expected_negative="not_yet", premature=(gold.value,), wrong=tuple(wrong))
               if arm == "before" else
               AnswerKey(expected_negative="abstain", wrong=(*wrong, NOT_YET_MARKER)))
    else:
        key = AnswerKey(accepted=(gold.value,), wrong=tuple(wrong))
    return key.model_dump(exclude_defaults=True, mode="json")


def _judge_gold(record: Mapping[str, Any], gold: Gold) -> None:
    """The mechanical judge grades the gold correct and the clock-blind reading not correct."""
    block = record["typedmemeval"]
    key = AnswerKey.model_validate(block["answer_key"])
    verdict = judge_answer(record["answer"], key)
    if verdict.outcome is not Outcome.CORRECT:
        raise GenerationError(f"{record['question_id']}: the mechanical judge grades the gold "
                              f"answer {verdict.outcome.value} ({verdict.reason})")
    for blind in TIME_BLIND.get((block["shape"], block.get("arm") or ""), ()):
        outcome = judge_answer(blind.format(value=gold.value), key).outcome
        if outcome is Outcome.CORRECT:
            raise GenerationError(f"{record['question_id']}: the clock-blind answer {blind!r} is "
                                  "graded correct; the key does not separate the arms")
    if block.get("arm") == "before" and "not yet" not in record["answer"].lower() \
            and "not lapsed yet" not in record["answer"]:
        raise GenerationError(f"{record['question_id']}: a before-arm gold must say not yet outright")


def _check_record(record: dict[str, Any], entry: Entry, offset: str, spec: HaySpec) -> Gold:
    """Recompute the record's gold from its final bytes and hold it to the vertical's rules."""
    qid = record["question_id"]
    gold = recompute_gold(record, entry, offset)
    if gold.answer != record["answer"]:
        raise GenerationError(f"{qid}: gold recomputed from the text is {gold.answer!r}, emitted "
                              f"{record['answer']!r}")
    if [gold.session] != [i for i, s in enumerate(record["haystack_sessions"])
                          if any(t["has_answer"] for t in s)]:
        raise GenerationError(f"{qid}: has_answer does not mark exactly the statement session")
    if gold.competitors != spec.competing:
        raise GenerationError(f"{qid}: {gold.competitors} competing items, planned {spec.competing}")
    if any(abs(p - gold.pivot) < timedelta(days=MIN_OTHER_PIVOT_DAYS) for p in gold.other_pivots):
        raise GenerationError(f"{qid}: a competing item shares the gold's pivot date")
    if spec.shape == "due-later" and gold.competitors < MIN_DISTRACTOR_REMINDERS:
        raise GenerationError(f"{qid}: only {gold.competitors} distractor reminders")
    if spec.shape in UNPAIRED and (gold.instant > gold.pivot) != bool(spec.gold_side):
        raise GenerationError(f"{qid}: the asked instant falls on the other side of the hand-over "
                              "than planned")
    _check_text(qid, [record["question"]])
    _judge_gold(record, gold)
    return gold


# --------------------------------------------------------------------------------------------
# Records


def _record(stay: Haystack, number: int, question: str, arm: str | None, asked: datetime
            ) -> dict[str, Any]:
    plan = stay.plan
    spec = plan.spec
    gold_position = spec.gold_position
    sessions = []
    for position, session in enumerate(stay.sessions):
        turns = []
        for turn_index, turn in enumerate(session):
            flag = position == gold_position and turn_index == stay.statement_turns[position]
            turns.append({"role": turn.role, "content": turn.text, "has_answer": flag})
        sessions.append(turns)
    block: dict[str, Any] = {
        "vertical": VERTICAL, "shape": spec.shape, "memory_type": MEMORY_TYPE,
        "gold_components": [{"kind": KIND_OF_SHAPE[spec.shape], "session_index": gold_position,
                             "memory_type": MEMORY_TYPE}],
        "dial": {"name": "competing_items", "value": spec.competing},
        "difficulty": COMPETING_LEVELS.index(spec.competing) + 1,
    }
    if spec.pair is not None:
        block.update(pair_id=f"tme-{ABBREV}-p{spec.pair:02d}", arm=arm)
    record = {
        "question_id": f"tme-{ABBREV}-{number:03d}",
        "question_type": spec.shape,
        "question": question,
        "answer": "",
        "question_date": format_corpus_date(asked),
        "haystack_session_ids": list(plan.session_ids),
        "haystack_dates": [format_corpus_date(moment) for moment in plan.times],
        "haystack_sessions": sessions,
        "answer_session_ids": [plan.session_ids[gold_position]],
        "typedmemeval": block,
    }
    # V5: the answer and its key come from the emitted record (text, final timestamps) only.
    gold = recompute_gold(record, spec.entry, spec.offset)
    record["answer"] = gold.answer
    block["answer_key"] = _answer_key(spec.shape, arm or "", gold)
    _check_record(record, spec.entry, spec.offset, spec)
    return record


@lru_cache(maxsize=1024)
def _haystack_records(seed: int, key: str, knob: float) -> tuple[dict[str, Any], ...]:
    plan = _plan(seed, key)
    spec = plan.spec
    stay = _render(seed, plan, knob)
    _check_haystack(stay)
    question = QUESTIONS[spec.shape].format(subject=spec.entry.subject, offset=spec.offset)
    arms: Sequence[str | None] = ("before", "after") if spec.pair is not None else (None,)
    records = [_record(stay, number, question, arm, asked)
               for number, arm, asked in zip(spec.numbers, arms, plan.question_times)]
    if len(records) == 2:
        first, second = records
        strip = [(s, d, i) for s, d, i in zip(first["haystack_sessions"], first["haystack_dates"],
                                               first["haystack_session_ids"])]
        other = [(s, d, i) for s, d, i in zip(second["haystack_sessions"], second["haystack_dates"],
                                               second["haystack_session_ids"])]
        if strip != other or first["answer"] == second["answer"]:
            raise GenerationError(f"{key}: pair arms must share the haystack and flip the gold")
    return tuple(records)


def _check_rarity(records: Sequence[dict[str, Any]]) -> None:
    """Subject words stay rare (< 10% of session slots), as the V7 relevance exemption needs."""
    holding: Counter[str] = Counter()
    total = 0
    for record in records:
        for session in record["haystack_sessions"]:
            total += 1
            holding.update(set(raw_tokens(" ".join(t["content"] for t in session))))
    for record in records:
        for word in FACT_WORDS & set(tokenize(record["question"])):
            if holding[word] >= RARE_SHARE * total:
                raise GenerationError(f"{record['question_id']}: subject word {word!r} is in "
                                      f"{holding[word]} of {total} sessions (>= {RARE_SHARE:.0%})")


def _check_dial(specs: Sequence[HaySpec]) -> None:
    """The competing dial takes every level in every shape (an on/off dial is a defect, §2.1)."""
    for shape in SHAPES:
        levels = {spec.competing for spec in specs if spec.shape == shape}
        if levels != set(COMPETING_LEVELS):
            raise GenerationError(f"{shape}: competing-items levels {sorted(levels)}, expected "
                                  f"every one of {COMPETING_LEVELS}")


def _knob(echo_by_shape: Mapping[str, float], shape: str) -> float:
    value = float(echo_by_shape[shape])
    if not 0.0 <= value <= 1.0:
        raise GenerationError(f"echo for {shape} must lie in [0, 1], got {value}")
    return value


def build_records(seed: int, echo_by_shape: Mapping[str, float], *,
                  shapes: Sequence[str] = SHAPES) -> list[dict[str, Any]]:
    """The corpus as plain records in id order (deterministic in seed and echo).

    ``shapes`` limits which haystacks are built; a haystack's records depend only on (seed, its
    key, its shape's echo), so they are cached and a calibration step rebuilds only the shape it
    moves.
    """
    specs = _layout(seed)
    _check_dial(specs)
    records: list[dict[str, Any]] = []
    for spec in specs:
        if spec.shape in shapes:
            records += copy.deepcopy(list(_haystack_records(seed, spec.key,
                                                            _knob(echo_by_shape, spec.shape))))
    records.sort(key=lambda record: record["question_id"])
    for record in records:
        QuestionRecord.model_validate(record)
    if set(shapes) == set(SHAPES):
        _check_rarity(records)
    return records


__all__ = [
    "CALIBRATED_SHAPES", "CALIBRATION_RECORD", "FACTS", "GENERATOR", "GENERATOR_VERSION", "PARITY",
    "RECORDED_ECHO", "SEED", "SHAPES", "VERTICAL", "build_records", "read_item", "recompute_gold",
]
