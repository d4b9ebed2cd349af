"""TypedMemEval-Arithmetic v1 generator (VERTICALS.md §2.3), on the one template machinery.

**What a question looks like.** Four shapes, each computed from the sessions:

- ``counts`` (14, ``tme-ari-001``..``014``): "How many times did I buy something from Belcor?" —
  the number of purchases from the asked shop. Every session of the haystack is one purchase (a
  candidate event); it matches exactly when its shop is the asked one (``count_predicate``
  "buy something from Belcor", worded as in the question; ``candidates`` lists every session).
- ``sums`` (14, ``015``..``028``): "How much did I spend at Belcor altogether?" — the total of the
  asked shop's purchases, e.g. ``$2,345.67``.
- ``deltas`` (10, ``029``..``038``): "How much more did I spend at Belcor than at Dargil?" —
  side a (Belcor's purchases) minus side b (Dargil's); the shop with the larger total is asked
  first.
- ``durations`` (12, ``039``..``050``): "How many days in total were the ladder and the drill out
  on loan?" — per asked item, the calendar days from the session that sends it away to the session
  that brings it back (session timestamps; the text never says a date or a number).

**G, H, the input ladder.** One input per gold session (a purchase; for durations an item's
start or end event). G is 3-6 for counts, sums and deltas and 2, 4 or 6 for durations (one, two or
three items: a duration needs both ends, so odd G would need a shared session that makes one input
redundant). H is 15-25 (durations: uniform; purchases: set by the currency groups below). The
dial is ``inputs`` = G, and the cells are balanced by a fixed ladder per shape
(:data:`INPUT_LADDER`): G = 2/3/4/5/6 holds 4/11/12/11/12 questions, durations spread over 2, 4
and 6. Bands come from inputs alone: G 2-3 -> 1, 4 -> 2, 5 -> 3, 6 -> 4 (:data:`BAND_OF_INPUTS`);
G = 2 shares band 1 with G = 3 because only durations can have two inputs and no band may be
filled by one shape (§2.0).

**Every haystack has the same anatomy.** Every session carries exactly one statement, one user
turn in a uniformly random slot of three exchanges, drawn from one construction bank per shape
family; gold and filler differ only in the subject (shop or item) and the value:

- purchase shapes: "I ordered a bookcase from Belcor for $412.80." and five sibling frames. The
  non-gold sessions are near misses that name their rival shop (each rival 1-4 purchases). Every
  amount has the same form (three digits, two decimals), so digit counts tie inside a haystack.
  Each shop bills in one currency. The question's currency (USD, EUR or GBP, rotated over the
  questions) is the gold shop's; 8-10 sessions are billed in each currency, drawn alike for all
  three, so the question's currency does not stand out by frequency. The 2-7 rival purchases in
  the question's currency are the same-unit distractor amounts the no-coincidence rule (§2.3
  rule 2) is searched over. Why not every rival in the question's currency: with 20+ same-unit
  amounts some other subset of size <= G + 1 lands on the gold to the cent almost surely
  (simulated: 98% of G = 6 haystacks with 25 same-unit distractors of 100.00-999.99, still 69%
  with amounts of 1,000.00-9,999.99), and a signed delta is hopeless; fewer same-unit values is the
  only way to make the rule satisfiable without implausibly precise amounts. Currency symbols are
  neither tokens nor punctuation, so the mix is invisible to V7 and BM25; a reader sees it, and a
  system that adds euros to dollars makes a unit error, not a swap-in (cross-currency
  coincidences are not searched: stated, not denied).
- durations: "I lent out the ladder today." / "I got the ladder back today." (or a repair shop
  domain). Non-gold sessions are the start and end events of rival items (one lone start when the
  session count is odd). The text carries no digits and no number words.

**Echo.** Every session carries one clause ``(Also on my mind: ...)`` appended to its statement
turn: ``k`` words drawn from the question's BM25 tokens plus one or two neutral words (item words
of the same haystack). ``k`` is handed out by one :func:`machinery.dither` counter over the
haystack in session order, blind to gold status, with mean ``knob * |question tokens|``. Gold and
filler draw from the same source with the same ``k`` distribution; the clause sits in the
statement turn so the words it repeats never link two turns.

**Randomness.** A ``layout`` stream assigns inputs, subjects, currencies and domains over the
questions of each shape; per question, ``plan`` (sizes, positions, values, timestamps,
constructions), ``echo``, ``render`` and ``pad`` streams come from :func:`machinery.derive_rng`.
The echo has its own stream, so moving a knob changes echo clauses and padding only.

**Validity rules** (hard errors, :class:`machinery.GenerationError`): gold recomputed from the
rendered text alone (V5: shops, amounts and currencies read back; durations from the final
timestamps); counts: every session is a candidate, matching exactly on the asked shop; sums,
deltas: no other subset of same-unit amounts of size <= G + 1 reaches the gold (the structure
gate's own search), durations: no rival item's span equals a gold span or the gold total; each
input value appears exactly once; every turn that states an amount names its shop in the same
sentence; one statement per session and equal digit counts across a haystack; V4 (calendar) for
durations, and no digits or number words there; the derivation value never appears as a literal
(the leak gate's own scan of the adapter view); question subjects rare corpus-wide (< 10% of
sessions, what the V7 relevance exemption relies on); the mechanical judge grades every gold
answer ``correct``.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from typing import Any, Literal

from ..corpus.models import AnswerKey, QuestionRecord, format_corpus_date
from ..gates import leaks
from ..gates.structure import (
    SubsetItem,
    duration_between,
    extract_amounts,
    find_coincident_subset,
    v4_findings,
)
from ..judge.mechanical import judge_answer
from ..judge.outcomes import Outcome
from ..projection import adapter_view
from ..retrieval.tokenizer import raw_tokens, tokenize
from .banks import ASSISTANT_TALK
from .machinery import (
    ECHO_LEAD_IN,
    PAD_BANKS,
    ConstructionBank,
    Construction,
    DraftTurn,
    EchoPlan,
    GenerationError,
    Placement,
    ScaffoldBanks,
    SessionPlan,
    Statement,
    align_roles,
    article,
    assert_disjoint,
    content_words,
    derive_rng,
    dither,
    draw_terms,
    pad_haystack,
    render_session,
)

VERTICAL = "arithmetic"
ABBREV = "ari"
GENERATOR = "pytest_typedmemeval.generate.arithmetic"
GENERATOR_VERSION = "1"
SEED = 20260503
"""The vertical seed of the shipped corpus (revision 1). Changing it changes the corpus."""

Shape = Literal["counts", "sums", "deltas", "durations"]
OPERATIONS: dict[str, str] = {"counts": "count", "sums": "sum", "deltas": "delta",
                              "durations": "duration"}
SHAPES: tuple[Shape, ...] = ("counts", "sums", "deltas", "durations")
CALIBRATED_SHAPES = SHAPES
"""Every shape has gold, so every shape is searched (in this order, §4.9)."""

RECORDED_ECHO: dict[str, float] = {"counts": 0.01953125, "deltas": 0.03125, "durations": 0.140625,
                                   "sums": 0.03125}
"""The echo per shape recorded at authoring time by ``typedmemeval generate --vertical arithmetic
--search`` (sweep, then bisection; :mod:`.calibration`). Rebuilds read these and never search."""

CALIBRATION_RECORD: dict[str, Any] = {
    "by_shape": {
        "counts": {"bracket": [0.0, 0.125], "coverage": 0.683333, "echo": 0.01953125,
                 "iterations": 15, "points": [[0.0, 0.964286], [0.125, 0.459524], [0.25, 0.338095],
                                             [0.375, 0.340476], [0.5, 0.413095], [0.625, 0.667857],
                                             [0.75, 0.734524], [0.875, 0.504762], [1.0, 0.964286],
                                             [0.0625, 0.333333], [0.03125, 0.40119],
                                             [0.015625, 0.817857], [0.0234375, 0.621429],
                                             [0.01953125, 0.683333], [0.017578125, 0.741667]]},
        "deltas": {"bracket": [0.0, 0.125], "coverage": 0.681667, "echo": 0.03125,
                 "iterations": 15, "points": [[0.0, 0.966667], [0.125, 0.453333], [0.25, 0.626667],
                                             [0.375, 0.266667], [0.5, 0.665], [0.625, 0.526667],
                                             [0.75, 0.966667], [0.875, 0.395], [1.0, 0.966667],
                                             [0.0625, 0.403333], [0.03125, 0.681667],
                                             [0.015625, 0.893333], [0.0234375, 0.791667],
                                             [0.02734375, 0.626667], [0.025390625, 0.761667]]},
        "durations": {"bracket": [0.125, 0.25], "coverage": 0.708333, "echo": 0.140625,
                 "iterations": 12, "points": [[0.0, 0.944444], [0.125, 0.715278], [0.25, 0.548611],
                                             [0.375, 0.333333], [0.5, 0.513889], [0.625, 0.673611],
                                             [0.75, 0.604167], [0.875, 0.388889], [1.0, 0.944444],
                                             [0.1875, 0.569444], [0.15625, 0.631944],
                                             [0.140625, 0.708333]]},
        "sums": {"bracket": [0.0, 0.125], "coverage": 0.685714, "echo": 0.03125,
                 "iterations": 15, "points": [[0.0, 0.964286], [0.125, 0.485714], [0.25, 0.60119],
                                             [0.375, 0.427381], [0.5, 0.79881], [0.625, 0.679762],
                                             [0.75, 0.964286], [0.875, 0.617857], [1.0, 0.964286],
                                             [0.0625, 0.364286], [0.03125, 0.685714],
                                             [0.015625, 0.832143], [0.0234375, 0.661905],
                                             [0.01953125, 0.786905], [0.021484375, 0.8]]}},
    "ceiling": 0.9,
    "iterations": 57,
    "k_ref": 5,
    "method": "sweep (9 points over [0, 1]) then bisection inside the bracket "
              "(6 steps max, tolerance 0.0125), per shape in order",
    "target": 0.7,
}
"""What that authoring search reported (points evaluated, bracket, iterations), for the sidecar.
Coverage here is at search time; the sidecar's coverage block is re-derived from the final bytes."""

DIFFICULTY_NOTE = ("declared, not validated: the dial is the number of inputs (gold sessions), "
                   "bands G 2-3 -> 1, 4 -> 2, 5 -> 3, 6 -> 4; only G > K_ref = 5 lowers the "
                   "structural ceiling, so with the echo stripped the band is expected to slope "
                   "only at G = 6 (VERTICALS.md §2.0, §2.3 Dials)")

SHAPE_N: dict[str, int] = {"counts": 14, "sums": 14, "deltas": 10, "durations": 12}
FIRST_NUMBER: dict[str, int] = {"counts": 1, "sums": 15, "deltas": 29, "durations": 39}
INPUT_LADDER: dict[str, tuple[int, ...]] = {
    "counts": (3, 3, 3, 3, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6),
    "sums": (3, 3, 3, 3, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6),
    "deltas": (3, 3, 3, 4, 4, 5, 5, 5, 6, 6),
    "durations": (2, 2, 2, 2, 4, 4, 4, 4, 6, 6, 6, 6),
}
"""G per question of each shape (then shuffled over the shape's questions): inputs 2..6 hold
4 / 11 / 12 / 11 / 12 questions; durations sit at 2, 4 and 6, not only at the foot of the ladder."""
BAND_OF_INPUTS: dict[int, int] = {2: 1, 3: 1, 4: 2, 5: 3, 6: 4}
"""Difficulty band from the dial alone (inputs). G = 2 exists only for durations, so it shares
band 1 with G = 3: a band no shape but one can fill is refused by §2.0."""
H_RANGE = (15, 25)
CURRENCY_GROUP = (8, 10)
"""Purchase haystacks: sessions billed in each of the three currencies, drawn independently and
alike for the three (then H = their total - G, redrawn until 15-25), so the question's currency is
not recognisable by how often it occurs. Its group holds the G gold purchases and 2-7 rival
purchases: the same-unit distractor amounts."""
RIVAL_GROUP = (1, 4)
"""Purchases per rival shop (a rival with several purchases is the near miss counts need)."""
AMOUNT_CENTS = (10_000, 99_999)
"""Every amount is 100.00-999.99: three digits and two decimals, so digit counts tie."""
MIN_DELTA_CENTS = 1_000
MIN_DURATION_DAYS = 10
"""A gold total below 10 would be a 'trivial' value for the leak rule; keep every total above."""
EXCHANGES = 3
NEUTRAL_TERMS = (1, 2)
RARE_SHARE = 0.10
MEMORY_TYPE = "arithmetic"
VALUE_ATTEMPTS = 200
"""Redraws of a haystack's values (or item lifecycles) before the no-coincidence rule gives up."""

CURRENCIES: tuple[tuple[str, str], ...] = (("USD", "$"), ("EUR", "€"), ("GBP", "£"))
SYMBOL_OF = dict(CURRENCIES)
CURRENCY_OF = {symbol: code for code, symbol in CURRENCIES}


# --------------------------------------------------------------------------------------------
# Banks

_SHOP_SYLLABLES = ("bel", "cor", "dar", "fen", "gil", "har", "lom", "nar", "pel", "ros", "sal",
                   "tam", "vin", "wes", "bro", "cas", "mer", "ost")
"""Shop names are invented from syllables that appear in no question frame and no pad name."""


def _shop_names() -> list[str]:
    return sorted({(a + b).capitalize() for a in _SHOP_SYLLABLES for b in _SHOP_SYLLABLES
                   if a != b})


ASKED_SHOPS: tuple[str, ...] = tuple(_shop_names()[0::2])
RIVAL_SHOPS: tuple[str, ...] = tuple(_shop_names()[1::2])
"""Asked and rival shops come from disjoint pools interleaved from one sorted list, so the pool a
name comes from is not readable from its form; a rival is never asked about anywhere."""

PURCHASE_ITEMS: tuple[str, ...] = tuple("""
bookcase armchair desk rug mattress wardrobe dresser bicycle telescope guitar violin camera
printer monitor sofa cabinet easel saddle recliner bedframe headboard sideboard footstool
ottoman bureau hammock trampoline aquarium chandelier dishwasher workbench bench mirror cot
cello keyboard synthesiser loom kiln anvil lathe microwave juicer smoker fireplace
""".split())
"""Purchase objects, one token each, shared by gold and filler (drawn without replacement)."""

DURATION_ITEMS: tuple[str, ...] = tuple("""
ladder drill tent projector trailer sander wheelbarrow chainsaw strimmer lawnmower scooter kayak
canoe tripod amplifier microscope compressor grinder router vacuum dehumidifier blender mixer
accordion trombone saxophone clarinet banjo harp ukulele mandolin typewriter gramophone turntable
binoculars snowboard surfboard paddleboard wetsuit dinghy caravan campervan motorbike moped
treadmill jigsaw rotavator scaffold marquee gazebo barrow hoover planer welder toolbox pushchair
sledge skis metronome stroller
""".split())
ASKED_ITEMS: tuple[str, ...] = DURATION_ITEMS[0::2]
RIVAL_ITEMS: tuple[str, ...] = DURATION_ITEMS[1::2]
"""Duration items: asked and rival pools disjoint, interleaved from one list."""

PURCHASE_FRAMES: tuple[str, ...] = (
    "I ordered {attribute} from {subject} for {value}.",
    "I bought {attribute} from {subject} for {value}.",
    "{subject} sold me {attribute} for {value}.",
    "I paid {subject} {value} for {attribute}.",
    "{subject} charged me {value} for {attribute}.",
    "I picked up {attribute} from {subject}, paying {value}.",
)
"""One purchase per sentence, naming shop, object and amount (a sentence never states a bare
amount); every frame is plainly a purchase from the named shop, so the count predicate decides."""

DURATION_FRAMES: dict[str, dict[str, tuple[str, ...]]] = {
    "loan": {
        "start": ("I lent out the {subject} today.", "I lent the {subject} to a friend today."),
        "end": ("I got the {subject} back today.", "The {subject} was returned to me today."),
    },
    "repair": {
        "start": ("I took the {subject} in for repair today.",
                  "I dropped the {subject} off at the repair shop today."),
        "end": ("I collected the {subject} from the repair shop today.",
                "The {subject} came back from the repair shop today."),
    },
}
"""Start and end events; every session of a duration haystack says one, so "today" is in gold and
filler alike (the v3 'today' tell was gold-only grammar)."""

DURATION_QUESTIONS: dict[str, tuple[str, str]] = {
    "loan": ("How many days was {items} out on loan?",
             "How many days in total were {items} out on loan?"),
    "repair": ("How many days was {items} away for repair?",
               "How many days in total were {items} away for repair?"),
}
QUESTION_FRAMES: dict[str, str] = {
    "counts": "How many times did I buy something from {a}?",
    "sums": "How much did I spend at {a} altogether?",
    "deltas": "How much more did I spend at {a} than at {b}?",
}
COUNT_PREDICATE = "buy something from {a}"
"""The count predicate, worded exactly as in the question (a substring of it)."""

USER_TALK: tuple[str, ...] = (
    "The weather turned chilly again this week. I dug out a thick scarf.",
    "I tried a new bread recipe over the weekend. It came out a bit dense.",
    "My neighbour recommended a good novel. I am halfway through it.",
    "Work has been busy lately. I am managing, though.",
    "I finally cleared out the junk drawer. It felt good.",
    "We had friends over for dinner. Everyone stayed late.",
    "I went for a long walk by the river. My legs ache now.",
    "The train was late twice this week. I missed a meeting.",
    "I started a podcast about history. The episodes are long.",
    "My sister called to catch up. We talked for ages.",
    "I have been sleeping better recently. Going to bed early helps.",
    "We watched an old film on the couch. I dozed off near the end.",
    "I signed up for a pottery class. The first session is soon.",
    "The neighbours had a loud party. I barely slept.",
    "I burnt the toast this morning. Same as always.",
    "My cousin is visiting soon. I need to tidy up.",
    "I found an old photo album in a box. It made me smile.",
    "The bus route near me has changed. It is slower now.",
    "I am trying to drink more water. I keep a bottle nearby.",
    "We lost the pub quiz by a single point. It stung a little.",
    "I made soup with leftover vegetables. It was decent.",
    "My favourite mug cracked on the floor. I kept the pieces.",
    "I reorganised my shelves by colour. It looks cheerful.",
    "The local library has a new quiet corner. I like it there.",
    "I walked to work to save on fares. It was pleasant.",
    "We played board games until late. I lost every round.",
    "I am learning a few words of Italian. Pronunciation is hard.",
    "My friend ran a long race recently. I cheered from the side.",
    "I passed the afternoon tidying the shed. It looks better.",
    "I tried meditation for a while. My mind wandered.",
    "The corner shop finally stocks almond milk. That is handy.",
    "I watched the light fade from the hill. It was lovely.",
    "My nephew lost his first tooth. He was thrilled.",
    "I wrote a long letter to an old friend. I posted it this afternoon.",
    "The heating clanked all night. I should bleed the radiators.",
    "The hedge needs trimming again. It grows so fast.",
    "I finished a big puzzle at last. The sky pieces were tricky.",
    "My neighbour's cat keeps visiting. It naps on the porch.",
    "I baked biscuits for the office. They vanished quickly.",
    "The new cafe down the road opened. The coffee is strong.",
)
"""Small talk for user turns without a statement: no purchases, loans or repairs, no digits or
number words, no month or weekday names, no question, shop or item vocabulary."""


SCAFFOLD = ScaffoldBanks(USER_TALK, ASSISTANT_TALK)

_NUMBER_WORDS = frozenset("""
zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen
sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred
thousand million billion dozen half couple
""".split())
_CALENDAR_WORDS = frozenset("""
january february march april may june july august september october november december monday
tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays fridays
saturdays sundays
""".split())


def _construction_bank() -> ConstructionBank:
    constructions = [Construction(f"P{i}", "purchase", frame, True)
                     for i, frame in enumerate(PURCHASE_FRAMES)]
    for domain, kinds in DURATION_FRAMES.items():
        for kind, frames in kinds.items():
            for i, frame in enumerate(frames):
                constructions.append(Construction(f"{domain[0].upper()}{kind[0]}{i}",
                                                  f"{domain}-{kind}", frame, False))
    return ConstructionBank(constructions)


CONSTRUCTIONS = _construction_bank()


def _template_words(templates: Sequence[str]) -> frozenset[str]:
    return content_words(re.sub(r"\{\w+\}", " ", t) for t in templates)


DURATION_FRAME_LIST: tuple[str, ...] = tuple(f for kinds in DURATION_FRAMES.values()
                                             for frames in kinds.values() for f in frames)
FRAME_WORDS = _template_words([*PURCHASE_FRAMES, *DURATION_FRAME_LIST])
QUESTION_WORDS = _template_words([*QUESTION_FRAMES.values(), COUNT_PREDICATE,
                                  *(q for pair in DURATION_QUESTIONS.values() for q in pair)])
"""Raw tokens of the question frames (stopwords included)."""
QUESTION_TERMS = frozenset(tokenize(" ".join(QUESTION_WORDS)))
"""The question frames' BM25 tokens (what an echo clause repeats besides the subjects)."""
SHOP_WORDS = frozenset(name.lower() for name in ASKED_SHOPS + RIVAL_SHOPS)
ITEM_WORDS = frozenset(PURCHASE_ITEMS) | frozenset(DURATION_ITEMS)
SCAFFOLD_WORDS = content_words(USER_TALK + ASSISTANT_TALK)


def _assert_banks() -> None:
    """Import-time assertions (GENERATION.md "Checks that belong in every generator")."""
    assert_disjoint("asked shops", {s.lower() for s in ASKED_SHOPS}, "rival shops",
                    {s.lower() for s in RIVAL_SHOPS})
    assert_disjoint("asked items", ASKED_ITEMS, "rival items", RIVAL_ITEMS)
    assert_disjoint("purchase items", PURCHASE_ITEMS, "duration items", DURATION_ITEMS)
    subjects = SHOP_WORDS | ITEM_WORDS
    assert_disjoint("shops and items", subjects, "scaffold banks", SCAFFOLD_WORDS)
    assert_disjoint("shops and items", subjects, "construction frames", FRAME_WORDS)
    assert_disjoint("shops and items", subjects, "question frames", QUESTION_WORDS)
    assert_disjoint("shops and items", subjects, "pad vocabulary", PAD_BANKS.vocabulary())
    assert_disjoint("shops and items", subjects, "echo lead-in", raw_tokens(ECHO_LEAD_IN))
    assert_disjoint("question terms", QUESTION_TERMS, "scaffold banks", SCAFFOLD_WORDS)
    assert_disjoint("question terms", QUESTION_TERMS, "pad vocabulary", PAD_BANKS.vocabulary())
    everything = SCAFFOLD_WORDS | FRAME_WORDS | QUESTION_WORDS | subjects
    assert_disjoint("every bank", everything, "number words", _NUMBER_WORDS)
    assert_disjoint("every bank", everything, "calendar words", _CALENDAR_WORDS)
    for text in USER_TALK + ASSISTANT_TALK:
        assert not re.search(r"[\d\u2013\u2014$€£]", text), text
        assert text.isascii(), text
    assert len(set(USER_TALK)) == len(USER_TALK) and len(set(ASSISTANT_TALK)) == len(ASSISTANT_TALK)
    for word in DURATION_ITEMS + PURCHASE_ITEMS:
        assert re.fullmatch(r"[a-z]+", word), word
    assert len(set(DURATION_ITEMS)) == len(DURATION_ITEMS)
    assert len(set(PURCHASE_ITEMS)) == len(PURCHASE_ITEMS)
    for name in ASKED_SHOPS + RIVAL_SHOPS:
        assert re.fullmatch(r"[A-Z][a-z]+", name), name
    assert len(ASKED_SHOPS) >= sum(SHAPE_N[s] for s in ("counts", "sums")) + 2 * SHAPE_N["deltas"]
    need_items = sum(g // 2 for g in INPUT_LADDER["durations"])
    assert len(ASKED_ITEMS) >= need_items, (len(ASKED_ITEMS), need_items)
    for shape, ladder in INPUT_LADDER.items():
        assert len(ladder) == SHAPE_N[shape], shape
    for construction in CONSTRUCTIONS:
        value = "$412.80" if construction.states_value else None
        attribute = "a bookcase" if construction.states_value else ""
        subject = "Belcor" if construction.states_value else "ladder"
        text = CONSTRUCTIONS.render(Statement(construction.kind, subject, attribute, value,
                                              construction.construction_id))
        assert "{" not in text and "  " not in text, text
        assert text.endswith(".") and text[0].isupper(), text
        assert subject.lower() in raw_tokens(text), construction.construction_id
        if value is not None:
            found = extract_amounts(text)
            assert len(found) == 1 and found[0].unit == "USD", (text, found)
        expected = _parse_expect(construction, subject, attribute, value)
        assert _read_statements(text) == [expected], text
    # The band ladder: no band is filled by one shape (§2.0), decided before generation.
    cross: dict[int, set[str]] = {}
    for shape, ladder in INPUT_LADDER.items():
        for g in ladder:
            cross.setdefault(BAND_OF_INPUTS[g], set()).add(shape)
    assert all(len(shapes) > 1 for shapes in cross.values()), cross


# --------------------------------------------------------------------------------------------
# Reading statements back from text (V5 reads the rendered text, never the plan)


@dataclass(frozen=True)
class Parsed:
    """One statement read from a turn: a purchase (shop, object, amount, currency) or a duration
    event (item, domain, start/end)."""

    kind: str
    subject: str
    attribute: str = ""
    amount: Fraction | None = None
    currency: str | None = None
    literal: str | None = None


def _frame_pattern(frame: str) -> str:
    pattern = re.escape(frame)
    pattern = pattern.replace(r"\{subject\}", r"(?P<subject>[A-Za-z]+)")
    pattern = pattern.replace(r"\{attribute\}", r"(?P<attribute>an? [a-z]+)")
    pattern = pattern.replace(r"\{value\}", r"(?P<value>[$€£]\d+\.\d{2})")
    return pattern


_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    *((construction.construction_id,
       re.compile(r"(?<![A-Za-z])" + _frame_pattern(construction.template)))
      for construction in CONSTRUCTIONS),
)


_STATEMENT_HINT = re.compile(r"[$€£]\d|\btoday\.")
"""Every construction carries an amount or ends in "today." (a cheap pre-filter; the import-time
assertions read every construction back through it)."""


def _read_statements(text: str) -> list[Parsed]:
    """Every statement any construction could have produced in ``text``, in text order."""
    if not _STATEMENT_HINT.search(text):
        return []
    found: list[tuple[int, Parsed]] = []
    for cid, pattern in _PATTERNS:
        kind = CONSTRUCTIONS.get(cid).kind
        for match in pattern.finditer(text):
            groups = match.groupdict()
            if kind == "purchase":
                literal = groups["value"]
                found.append((match.start(), Parsed(kind, groups["subject"], groups["attribute"],
                                                    Fraction(Decimal(literal[1:])),
                                                    CURRENCY_OF[literal[0]], literal)))
            else:
                found.append((match.start(), Parsed(kind, groups["subject"])))
    return [parsed for _, parsed in sorted(found, key=lambda item: item[0])]


def _parse_expect(construction: Construction, subject: str, attribute: str,
                  value: str | None) -> Parsed:
    if value is None:
        return Parsed(construction.kind, subject)
    return Parsed(construction.kind, subject, attribute, Fraction(Decimal(value[1:])),
                  CURRENCY_OF[value[0]], value)


def format_amount(cents: int, currency: str) -> str:
    """``$412.80``; with thousands commas for gold totals (``$2,345.67``)."""
    whole, frac = divmod(cents, 100)
    return f"{SYMBOL_OF[currency]}{whole:,}.{frac:02d}"


# --------------------------------------------------------------------------------------------
# Planning


@dataclass
class Slot:
    """What the session at one haystack position says (purchase or duration event)."""

    subject: str
    kind: str
    construction_id: str
    attribute: str = ""
    cents: int | None = None
    currency: str | None = None


@dataclass
class Haystack:
    """One question's haystack, planned then rendered. Gold is bookkeeping outside the text."""

    key: str
    shape: Shape
    question: str
    asked: tuple[str, ...]
    """Asked shops (counts/sums: one; deltas: side a then side b) or asked items (durations)."""
    slots: list[Slot]
    gold: list[int]
    currency: str | None = None
    domain: str | None = None
    sides: dict[int, Literal["a", "b"]] = field(default_factory=dict)
    lifecycles: list[tuple[str, int, int | None]] = field(default_factory=list)
    """Durations: (item, start position, end position or None) for every item in the haystack."""
    times: list[datetime] = field(default_factory=list)
    question_time: datetime | None = None
    session_ids: list[str] = field(default_factory=list)
    statement_slots: list[int] = field(default_factory=list)
    knob: float = 0.0
    sessions: list[list[DraftTurn]] = field(default_factory=list)
    statement_turns: list[int] = field(default_factory=list)
    echo_terms: list[tuple[str, ...]] = field(default_factory=list)
    echo_question_words: list[int] = field(default_factory=list)

    @property
    def n(self) -> int:
        return len(self.slots)


@dataclass(frozen=True)
class QuestionLayout:
    """What the layout stream decided for one question before its haystack is planned."""

    shape: Shape
    index: int
    g: int
    asked: tuple[str, ...]
    currency: str | None
    domain: str | None

    @property
    def key(self) -> str:
        return f"{self.shape}-{self.index + 1:02d}"

    @property
    def question_id(self) -> str:
        return f"tme-{ABBREV}-{FIRST_NUMBER[self.shape] + self.index:03d}"


def layout(seed: int) -> dict[str, list[QuestionLayout]]:
    """Inputs, subjects, currencies and domains for every question of every shape.

    Always computed for the whole corpus, so the records of a shape never depend on which other
    shapes are built. Subjects are drawn without replacement: no shop or item is asked twice.
    """
    rng = derive_rng(seed, VERTICAL, "layout")
    shops = list(ASKED_SHOPS)
    rng.shuffle(shops)
    items = list(ASKED_ITEMS)
    rng.shuffle(items)
    out: dict[str, list[QuestionLayout]] = {}
    for shape in SHAPES:
        ladder = list(INPUT_LADDER[shape])
        rng.shuffle(ladder)
        currencies = [CURRENCIES[i % len(CURRENCIES)][0] for i in range(SHAPE_N[shape])]
        rng.shuffle(currencies)
        domains = [sorted(DURATION_FRAMES)[i % len(DURATION_FRAMES)] for i in range(SHAPE_N[shape])]
        rng.shuffle(domains)
        questions: list[QuestionLayout] = []
        for index, g in enumerate(ladder):
            if shape == "durations":
                asked = tuple(items.pop() for _ in range(g // 2))
                questions.append(QuestionLayout(shape, index, g, asked, None, domains[index]))
            else:
                count = 2 if shape == "deltas" else 1
                asked = tuple(shops.pop() for _ in range(count))
                questions.append(QuestionLayout(shape, index, g, asked, currencies[index], None))
        out[shape] = questions
    return out


def _times(rng: random.Random, n: int) -> tuple[list[datetime], datetime]:
    """One session per calendar day at most (1-3 days apart, a random clock time 07:00-21:59),
    so every span between two sessions is at least one calendar day; the question comes 1-4 days
    after the last session."""
    day = datetime(2025, 1, 6) + timedelta(days=rng.randint(0, 420))
    times: list[datetime] = []
    for _ in range(n):
        times.append(day + timedelta(minutes=rng.randint(7 * 60, 22 * 60 - 1)))
        day += timedelta(days=rng.randint(1, 3))
    question_time = times[-1].replace(hour=0, minute=0) + timedelta(
        days=rng.randint(1, 4), minutes=rng.randint(7 * 60, 22 * 60 - 1))
    return times, question_time


def _join_items(items: Sequence[str]) -> str:
    named = [f"the {item}" for item in items]
    if len(named) == 1:
        return named[0]
    return ", ".join(named[:-1]) + " and " + named[-1]


def question_text(spec: QuestionLayout) -> str:
    if spec.shape == "durations":
        assert spec.domain is not None
        single, plural = DURATION_QUESTIONS[spec.domain]
        return (single if len(spec.asked) == 1 else plural).format(items=_join_items(spec.asked))
    frame = QUESTION_FRAMES[spec.shape]
    return frame.format(a=spec.asked[0], b=spec.asked[1] if len(spec.asked) > 1 else "")


def _groups(positions: list[int], rng: random.Random) -> list[list[int]]:
    """``positions`` cut into consecutive groups of 1-3 (rival shops and their purchases)."""
    out: list[list[int]] = []
    rest = list(positions)
    while rest:
        size = min(rng.randint(*RIVAL_GROUP), len(rest))
        out.append(rest[:size])
        rest = rest[size:]
    return out


def _purchase_plan(seed: int, spec: QuestionLayout) -> Haystack:
    rng = derive_rng(seed, VERTICAL, spec.key, "plan")
    sizes = _currency_sizes(rng, spec.g)
    n = sum(sizes)
    gold = sorted(rng.sample(range(n), spec.g))
    assert spec.currency is not None
    question = question_text(spec)
    stay = Haystack(spec.key, spec.shape, question, spec.asked, [], gold, currency=spec.currency)
    # Who says what: the asked shop(s) on gold positions, rival groups elsewhere.
    subject_at: dict[int, str] = {}
    currency_at: dict[int, str] = {}
    if spec.shape == "deltas":
        count_a = rng.randint(1, spec.g - 1)
        order = list(gold)
        rng.shuffle(order)
        for rank, position in enumerate(order):
            side: Literal["a", "b"] = "a" if rank < count_a else "b"
            stay.sides[position] = side
            subject_at[position] = spec.asked[0] if side == "a" else spec.asked[1]
    else:
        for position in gold:
            subject_at[position] = spec.asked[0]
    for position in gold:
        currency_at[position] = spec.currency
    filler = [p for p in range(n) if p not in gold]
    rng.shuffle(filler)
    billing = [spec.currency] + [code for code, _ in CURRENCIES if code != spec.currency]
    group_sizes = [sizes[0] - spec.g, *sizes[1:]]
    groups: list[tuple[str, list[int]]] = []
    offset = 0
    for code, size in zip(billing, group_sizes):
        groups += [(code, group) for group in _groups(filler[offset:offset + size], rng)]
        offset += size
    rivals = rng.sample(RIVAL_SHOPS, len(groups))
    for (code, group), rival in zip(groups, rivals):
        for position in group:
            subject_at[position] = rival
            currency_at[position] = code
    objects = rng.sample(PURCHASE_ITEMS, n)
    frames = [f"P{rng.randrange(len(PURCHASE_FRAMES))}" for _ in range(n)]
    cents = _purchase_values(stay, rng, n, currency_at)
    stay.slots = [Slot(subject_at[p], "purchase", frames[p], f"{article(objects[p])} {objects[p]}",
                       cents[p], currency_at[p]) for p in range(n)]
    stay.times, stay.question_time = _times(rng, n)
    stay.statement_slots = [rng.randrange(EXCHANGES) for _ in range(n)]
    _session_ids(seed, stay)
    return stay


def _currency_sizes(rng: random.Random, g: int) -> list[int]:
    """Sessions per currency, the question's first (see :data:`CURRENCY_GROUP`)."""
    while True:
        sizes = [rng.randint(*CURRENCY_GROUP) for _ in CURRENCIES]
        if H_RANGE[0] <= sum(sizes) - g <= H_RANGE[1]:
            return sizes


def _target_cents(stay: Haystack, cents: Mapping[int, int]) -> int:
    if stay.shape == "deltas":
        return sum(cents[p] if stay.sides[p] == "a" else -cents[p] for p in stay.gold)
    if stay.shape == "sums":
        return sum(cents[p] for p in stay.gold)
    return len(stay.gold)


def _purchase_values(stay: Haystack, rng: random.Random, n: int,
                     currency_at: Mapping[int, str]) -> list[int]:
    """Distinct amounts for every session such that the rules hold (redrawn until they do).

    Deltas: the asked-first shop's total is the larger (sides are swapped if not) and the
    difference is at least :data:`MIN_DELTA_CENTS`. Sums and deltas: no other subset of the
    question-currency amounts of size <= G + 1 reaches the gold, and the gold total equals no
    amount of any currency (it is never written in the haystack).
    """
    for _ in range(VALUE_ATTEMPTS):
        values = rng.sample(range(AMOUNT_CENTS[0], AMOUNT_CENTS[1] + 1), n)
        cents = dict(enumerate(values))
        if stay.shape == "counts":
            return values
        if stay.shape == "deltas":
            target = _target_cents(stay, cents)
            if target < 0:
                stay.asked = (stay.asked[1], stay.asked[0])
                stay.sides = {p: ("b" if side == "a" else "a") for p, side in stay.sides.items()}
                stay.question = QUESTION_FRAMES["deltas"].format(a=stay.asked[0], b=stay.asked[1])
                target = -target
            if target < MIN_DELTA_CENTS:
                continue
        target = _target_cents(stay, cents)
        if target in values:
            continue
        if coincident_subset(stay, cents, currency_at) is None:
            return values
    raise GenerationError(f"{stay.key}: no amounts without a coincident subset after "
                          f"{VALUE_ATTEMPTS} draws")


def coincident_subset(stay: Haystack, cents: Mapping[int, int],
                      currency_at: Mapping[int, str]) -> list[tuple[int, SubsetItem]] | None:
    """The structure gate's own search (``find_coincident_subset``) over the question-currency
    amounts: another subset of size <= G + 1 that reaches the gold, or ``None``."""
    signed = stay.shape == "deltas"
    items: list[SubsetItem] = []
    for position in sorted(cents):
        if currency_at[position] != stay.currency:
            continue
        sign = 0
        if position in stay.gold:
            sign = -1 if signed and stay.sides.get(position) == "b" else 1
        items.append(SubsetItem(Fraction(cents[position]), f"session {position}", sign))
    target = Fraction(_target_cents(stay, cents))
    return find_coincident_subset(items, target, Fraction(0), len(stay.gold) + 1, signed=signed)


def _duration_plan(seed: int, spec: QuestionLayout) -> Haystack:
    rng = derive_rng(seed, VERTICAL, spec.key, "plan")
    h = rng.randint(*H_RANGE)
    n = spec.g + h
    assert spec.domain is not None
    stay = Haystack(spec.key, spec.shape, question_text(spec), spec.asked, [], [],
                    domain=spec.domain)
    stay.times, stay.question_time = _times(rng, n)
    rivals = list(RIVAL_ITEMS)
    for _ in range(VALUE_ATTEMPTS):
        positions = list(range(n))
        rng.shuffle(positions)
        pairs = [tuple(sorted(positions[2 * i:2 * i + 2])) for i in range(n // 2)]
        lone = positions[-1] if n % 2 else None
        gold_pairs = pairs[: len(spec.asked)]
        spans = [_span(stay.times, start, end) for start, end in gold_pairs]
        total = sum(spans)
        rival_spans = [_span(stay.times, start, end) for start, end in pairs[len(spec.asked):]]
        if total < MIN_DURATION_DAYS:
            continue
        if any(span in spans or span == total for span in rival_spans):
            continue
        break
    else:
        raise GenerationError(f"{spec.key}: no item lifecycles without a coincident span after "
                              f"{VALUE_ATTEMPTS} draws")
    chosen = rng.sample(rivals, len(pairs) - len(spec.asked) + (lone is not None))
    subjects = list(spec.asked) + chosen
    slots: list[Slot | None] = [None] * n
    for index, (start, end) in enumerate(pairs):
        stay.lifecycles.append((subjects[index], start, end))
    if lone is not None:
        stay.lifecycles.append((subjects[-1], lone, None))
    for item, first, last in stay.lifecycles:
        for at, kind in ((first, "start"), (last, "end")):
            if at is None:
                continue
            frames = DURATION_FRAMES[spec.domain][kind]
            cid = f"{spec.domain[0].upper()}{kind[0]}{rng.randrange(len(frames))}"
            slots[at] = Slot(item, f"{spec.domain}-{kind}", cid)
    assert all(slot is not None for slot in slots)
    stay.slots = [slot for slot in slots if slot is not None]
    stay.gold = sorted(p for _, start, end in stay.lifecycles[: len(spec.asked)]
                       for p in (start, end) if p is not None)
    stay.statement_slots = [rng.randrange(EXCHANGES) for _ in range(n)]
    _session_ids(seed, stay)
    return stay


def _span(times: Sequence[datetime], start: int, end: int | None) -> int:
    assert end is not None
    return int(duration_between(times[start], times[end], "days"))


def _session_ids(seed: int, stay: Haystack) -> None:
    stay.session_ids = [
        "sess-" + hashlib.sha256(f"{seed}:{VERTICAL}:{stay.key}:{i}".encode()).hexdigest()[:10]
        for i in range(stay.n)]
    if len(set(stay.session_ids)) != stay.n:
        raise GenerationError(f"{stay.key}: session id collision")


def plan_haystack(seed: int, spec: QuestionLayout, knob: float) -> Haystack:
    stay = _duration_plan(seed, spec) if spec.shape == "durations" else _purchase_plan(seed, spec)
    stay.knob = knob
    return stay


# --------------------------------------------------------------------------------------------
# Echo and rendering


def _neutral_pool(stay: Haystack, source: frozenset[str]) -> list[str]:
    if stay.shape == "durations":
        words = {item for item, _, _ in stay.lifecycles}
    else:
        words = {slot.attribute.split()[-1] for slot in stay.slots}
    return sorted(words - source)


def plan_echo(seed: int, stay: Haystack) -> list[tuple[EchoPlan, int]]:
    """Per session: the echo clause (in its statement turn) and how many question words it lists.

    ``k`` per session comes from one dither over the haystack in session order with mean
    ``knob * |question tokens|``; the terms are drawn from the question's tokens for every
    session alike, plus 1-2 neutral item words of the haystack. Blind to gold status.
    """
    rng = derive_rng(seed, VERTICAL, stay.key, "echo")
    source = frozenset(tokenize(stay.question))
    expected = [stay.knob * len(source)] * stay.n
    counts = [min(k, len(source)) for k in dither(expected, rng)]
    neutral_pool = _neutral_pool(stay, source)
    plans: list[tuple[EchoPlan, int]] = []
    for position in range(stay.n):
        terms = draw_terms(source, counts[position], rng)
        neutral = draw_terms(neutral_pool, rng.choice(NEUTRAL_TERMS), rng)
        listed = terms + neutral
        rng.shuffle(listed)
        plans.append((EchoPlan(tuple(listed), "user", stay.statement_slots[position]),
                      counts[position]))
    return plans


def _statement(slot: Slot) -> Statement:
    if slot.kind == "purchase":
        assert slot.cents is not None and slot.currency is not None
        return Statement("purchase", slot.subject, slot.attribute,
                         format_amount(slot.cents, slot.currency), slot.construction_id)
    return Statement(slot.kind, slot.subject, "", None, slot.construction_id)


RESERVED = SHOP_WORDS | ITEM_WORDS | QUESTION_TERMS | FRAME_WORDS | QUESTION_WORDS
"""Tokens the pad never draws (every subject, frame and question word)."""


def render(seed: int, stay: Haystack) -> None:
    rng = derive_rng(seed, VERTICAL, stay.key, "render")
    echoes = plan_echo(seed, stay)
    stay.sessions, stay.statement_turns, stay.echo_terms, stay.echo_question_words = [], [], [], []
    for position, slot in enumerate(stay.slots):
        echo, k = echoes[position]
        placement = Placement("user", stay.statement_slots[position])
        plan = SessionPlan(EXCHANGES, (_statement(slot),), (placement,), echo)
        rendered = render_session(plan, CONSTRUCTIONS, SCAFFOLD, rng)
        stay.sessions.append(rendered.turns)
        stay.statement_turns.append(rendered.statement_turns[0])
        stay.echo_terms.append(echo.terms)
        stay.echo_question_words.append(k)
    mappings = align_roles(stay.sessions)
    stay.statement_turns = [mapping[turn] for mapping, turn in zip(mappings, stay.statement_turns)]
    pad_haystack(stay.sessions, derive_rng(seed, VERTICAL, stay.key, "pad"), reserved=RESERVED)


# --------------------------------------------------------------------------------------------
# The validity rules, read from the rendered text


@dataclass(frozen=True)
class Reading:
    """What the rendered haystack says: one statement per session, in session order."""

    statements: tuple[Parsed, ...]
    statement_turns: tuple[int, ...]


def read_haystack(sessions: Sequence[Sequence[str]]) -> Reading:
    """One statement per session, read from the texts alone (never from the plan)."""
    statements: list[Parsed] = []
    where: list[int] = []
    for index, turns in enumerate(sessions):
        found = [(t, parsed) for t, text in enumerate(turns) for parsed in _read_statements(text)]
        if len(found) != 1:
            raise GenerationError(f"session {index} holds {len(found)} statements, not one: "
                                  f"{[p for _, p in found]}")
        where.append(found[0][0])
        statements.append(found[0][1])
    return Reading(tuple(statements), tuple(where))


def _texts(stay: Haystack) -> list[list[str]]:
    return [[turn.text for turn in session] for session in stay.sessions]


@dataclass(frozen=True)
class Derived:
    """The gold recomputed from the text: value, gold sessions and per-input details."""

    value: Fraction
    unit: str
    gold: tuple[int, ...]
    inputs: tuple[dict[str, Any], ...]


def derive(stay: Haystack, reading: Reading | None = None) -> Derived:
    """V5: the answer computed from the rendered sessions and the final timestamps."""
    reading = reading if reading is not None else read_haystack(_texts(stay))
    statements = reading.statements
    if stay.shape == "durations":
        inputs: list[dict[str, Any]] = []
        total = 0
        gold: list[int] = []
        for item in stay.asked:
            mine = [(i, p.kind) for i, p in enumerate(statements) if p.subject == item]
            starts = [i for i, kind in mine if kind.endswith("-start")]
            ends = [i for i, kind in mine if kind.endswith("-end")]
            if len(starts) != 1 or len(ends) != 1:
                raise GenerationError(f"{stay.key}: the {item} needs one start and one end, read "
                                      f"{len(starts)} and {len(ends)}")
            start, end = starts[0], ends[0]
            if not start < end or not stay.times[start] < stay.times[end]:
                raise GenerationError(f"{stay.key}: the {item} comes back before it leaves")
            span = _span(stay.times, start, end)
            total += span
            gold += [start, end]
            inputs.append({"session_index": end, "from_session_index": start, "value": span})
        return Derived(Fraction(total), "days", tuple(sorted(gold)), tuple(inputs))
    asked = set(stay.asked)
    gold = [i for i, p in enumerate(statements) if p.subject in asked]
    for i in gold:
        if statements[i].currency != stay.currency:
            raise GenerationError(f"{stay.key}: session {i} bills an asked shop in "
                                  f"{statements[i].currency}, the question in {stay.currency}")
    if stay.shape == "counts":
        return Derived(Fraction(len(gold)), "purchases", tuple(gold),
                       tuple({"session_index": i, "value": 1} for i in gold))
    inputs = []
    value = Fraction(0)
    for i in gold:
        amount = statements[i].amount
        assert amount is not None
        entry: dict[str, Any] = {"session_index": i, "value": float(amount)}
        if stay.shape == "deltas":
            side = "a" if statements[i].subject == stay.asked[0] else "b"
            entry["side"] = side
            value += amount if side == "a" else -amount
        else:
            value += amount
        inputs.append(entry)
    assert stay.currency is not None
    return Derived(value, stay.currency, tuple(gold), tuple(inputs))


def planned_value(stay: Haystack) -> Fraction:
    """The gold as the plan intends it (compared with what the text reads back as)."""
    if stay.shape == "durations":
        return Fraction(sum(_span(stay.times, start, end)
                            for item, start, end in stay.lifecycles if item in stay.asked))
    cents = {p: slot.cents for p, slot in enumerate(stay.slots) if slot.cents is not None}
    if stay.shape == "counts":
        return Fraction(len(stay.gold))
    return Fraction(_target_cents(stay, cents), 100)


def check_haystack(stay: Haystack) -> Derived:
    """Every validity rule of one rendered haystack; returns the gold derived from the text."""
    texts = _texts(stay)
    joined = "\n".join(text for turns in texts for text in turns)
    if not (H_RANGE[0] <= stay.n - len(stay.gold) <= H_RANGE[1]):
        raise GenerationError(f"{stay.key}: H = {stay.n - len(stay.gold)} outside {H_RANGE}")
    for earlier, later in zip(stay.times, stay.times[1:]):
        if not earlier.date() < later.date():
            raise GenerationError(f"{stay.key}: two sessions share a calendar day, or are out of "
                                  "order (every span must be at least one day)")
    assert stay.question_time is not None and stay.question_time > stay.times[-1]
    words = set(raw_tokens(joined + " " + stay.question))
    if words & (_NUMBER_WORDS | _CALENDAR_WORDS):
        raise GenerationError(f"{stay.key}: number or calendar words "
                              f"{sorted(words & (_NUMBER_WORDS | _CALENDAR_WORDS))} in the text")
    if re.search(r"[\u2013\u2014]", joined):
        raise GenerationError(f"{stay.key}: dashes in the haystack")
    reading = read_haystack(texts)
    for index, (session, turn) in enumerate(zip(stay.sessions, reading.statement_turns)):
        if turn != stay.statement_turns[index]:
            raise GenerationError(f"{stay.key}: session {index} states in turn {turn}, planned "
                                  f"{stay.statement_turns[index]}")
    derived = derive(stay, reading)
    if list(derived.gold) != stay.gold:
        raise GenerationError(f"{stay.key}: the text makes sessions {list(derived.gold)} gold, the "
                              f"plan {stay.gold}")
    planned = planned_value(stay)
    if derived.value != planned:
        raise GenerationError(f"{stay.key}: the text reads back as {derived.value}, the plan says "
                              f"{planned}")
    digits = {sum(ch.isdigit() for turn in session for ch in turn.text)
              for session in stay.sessions}
    if len(digits) != 1:
        raise GenerationError(f"{stay.key}: digit counts differ between sessions "
                              f"({sorted(digits)})")
    if stay.shape == "durations":
        _check_durations(stay, joined, derived, reading)
    else:
        _check_purchases(stay, derived, reading)
    return derived


def lifecycles_from_text(statements: Sequence[Parsed]) -> dict[str, tuple[int, int | None]]:
    """Per item named in a duration haystack: the session that sends it away and the one that
    brings it back (or ``None``), read from the statements; anything else is an error."""
    out: dict[str, tuple[int, int | None]] = {}
    events: dict[str, list[tuple[int, str]]] = {}
    for index, parsed in enumerate(statements):
        events.setdefault(parsed.subject, []).append((index, parsed.kind.rsplit("-", 1)[-1]))
    for item, seen in events.items():
        kinds = [kind for _, kind in seen]
        if kinds not in (["start"], ["start", "end"]):
            raise GenerationError(f"the {item} reads as {kinds}: one start, then at most one end")
        out[item] = (seen[0][0], seen[1][0] if len(seen) == 2 else None)
    return out


def span_clashes(statements: Sequence[Parsed], times: Sequence[datetime],
                 asked: Sequence[str]) -> list[tuple[str, int]]:
    """Rival items whose span (calendar days) equals a gold item's span or the gold total: a
    system that swaps one item for another must not land on the gold (§2.3 rule 2 for spans)."""
    cycles = lifecycles_from_text(statements)
    spans = [_span(times, *cycles[item]) for item in asked]
    total = sum(spans)
    return [(item, _span(times, start, end)) for item, (start, end) in sorted(cycles.items())
            if item not in asked and end is not None
            and (_span(times, start, end) in spans or _span(times, start, end) == total)]


def _check_durations(stay: Haystack, joined: str, derived: Derived, reading: Reading) -> None:
    if re.search(r"[\d$€£]", joined + stay.question):
        raise GenerationError(f"{stay.key}: a duration haystack carries digits or amounts")
    for text in [stay.question, *joined.split("\n")]:
        found = v4_findings(text, "calendar")
        if found:
            raise GenerationError(f"{stay.key}: V4 {found[0]} in {text!r}")
    clash = span_clashes(reading.statements, stay.times, stay.asked)
    if clash:
        raise GenerationError(f"{stay.key}: the rival {clash[0][0]}'s span ({clash[0][1]} days) "
                              f"equals a gold span or the gold total")
    if int(derived.value) < MIN_DURATION_DAYS:
        raise GenerationError(f"{stay.key}: gold total {derived.value} days below "
                              f"{MIN_DURATION_DAYS}")


def _check_purchases(stay: Haystack, derived: Derived, reading: Reading) -> None:
    statements = reading.statements
    for index, session in enumerate(stay.sessions):
        amounts = [a for turn in session for a in extract_amounts(turn.text)]
        parsed = statements[index]
        if len(amounts) != 1:
            raise GenerationError(f"{stay.key}: session {index} states {len(amounts)} amounts")
        amount = amounts[0]
        turn_text = session[reading.statement_turns[index]].text
        sentence = next((s for s in re.split(r"(?<=\.)\s+", turn_text) if parsed.literal and
                         parsed.literal in s), "")
        named = parsed.literal is not None and parsed.subject in sentence
        if not named or amount.value != parsed.amount:
            raise GenerationError(f"{stay.key}: session {index}: an amount without its shop in the "
                                  f"same sentence: {turn_text!r}")
    values = [p.amount for p in statements]
    if len(set(values)) != len(values):
        raise GenerationError(f"{stay.key}: an amount appears twice in the haystack")
    for shop in stay.asked:
        if not any(p.subject == shop for p in statements):
            raise GenerationError(f"{stay.key}: the asked shop {shop} never appears")
    if stay.shape == "deltas":
        sides = {d["side"] for d in derived.inputs}
        if sides != {"a", "b"} or derived.value <= 0:
            raise GenerationError(f"{stay.key}: a delta needs both sides and a positive gold")
    if stay.shape in ("sums", "deltas"):
        assert stay.currency is not None
        cents = {i: int(p.amount * 100) for i, p in enumerate(statements) if p.amount is not None}
        currency_at = {i: p.currency or "" for i, p in enumerate(statements)}
        witness = coincident_subset(stay, cents, currency_at)
        if witness is not None:
            raise GenerationError(f"{stay.key}: another subset reaches the gold: "
                                  f"{[(sign, item.label) for sign, item in witness]}")
        if derived.value in values:
            raise GenerationError(f"{stay.key}: the gold total is written in the haystack")


# --------------------------------------------------------------------------------------------
# Records


def _answer(stay: Haystack, derived: Derived) -> str:
    if stay.shape == "counts":
        return f"{int(derived.value)} purchases"
    if stay.shape == "durations":
        return f"{int(derived.value)} days"
    assert stay.currency is not None
    return format_amount(int(derived.value * 100), stay.currency)


def build_record(stay: Haystack, question_id: str) -> dict[str, Any]:
    """The record of a rendered haystack: gold recomputed from the text, key, derivation."""
    derived = check_haystack(stay)
    g = len(derived.gold)
    value = float(derived.value)
    numeric: dict[str, Any] = {"value": value, "unit": derived.unit, "tolerance": 0.0}
    key: dict[str, Any] = {"numeric": numeric}
    AnswerKey.model_validate(key)
    operation = OPERATIONS[stay.shape]
    block: dict[str, Any] = {
        "vertical": VERTICAL,
        "shape": stay.shape,
        "memory_type": MEMORY_TYPE,
        "answer_key": key,
        "derivation": {"operation": operation, "inputs": list(derived.inputs), "value": value,
                       "unit": derived.unit},
        "gold_components_load_bearing": True,
        "dial": {"name": "inputs", "value": g},
        "difficulty": BAND_OF_INPUTS[g],
    }
    if stay.shape == "counts":
        reading = read_haystack(_texts(stay))
        block["count_predicate"] = COUNT_PREDICATE.format(a=stay.asked[0])
        if block["count_predicate"] not in stay.question:
            raise GenerationError(f"{stay.key}: the count predicate is not worded as in the "
                                  "question")
        block["candidates"] = [{"session_index": i, "matches": p.subject == stay.asked[0],
                                "label": f"{p.attribute} from {p.subject}"}
                               for i, p in enumerate(reading.statements)]
    gold = set(derived.gold)
    sessions = []
    for position, session in enumerate(stay.sessions):
        sessions.append([{"role": turn.role, "content": turn.text,
                          "has_answer": position in gold and t == stay.statement_turns[position]}
                         for t, turn in enumerate(session)])
    assert stay.question_time is not None
    record = {
        "question_id": question_id,
        "question_type": stay.shape,
        "question": stay.question,
        "answer": _answer(stay, derived),
        "question_date": format_corpus_date(stay.question_time),
        "haystack_session_ids": list(stay.session_ids),
        "haystack_dates": [format_corpus_date(moment) for moment in stay.times],
        "haystack_sessions": sessions,
        "answer_session_ids": [stay.session_ids[i] for i in sorted(gold)],
        "typedmemeval": block,
    }
    _check_record(record)
    return record


def _check_record(record: dict[str, Any]) -> None:
    """The record as the gates will see it: the judge grades its own gold correct, and the leak
    gate's scan of exactly what the adapter receives finds nothing (incl. the derivation value)."""
    parsed = QuestionRecord.model_validate(record)
    key = parsed.typedmemeval.answer_key
    verdict = judge_answer(record["answer"], key)
    if verdict.outcome is not Outcome.CORRECT:
        raise GenerationError(f"{record['question_id']}: the mechanical judge grades the gold "
                              f"answer {verdict.outcome.value} ({verdict.reason})")
    found = leaks.scan_view(parsed, adapter_view(parsed), vertical=VERTICAL)
    if found:
        first = found[0]
        raise GenerationError(f"{record['question_id']}: leak {first.rule}: {first.value!r} "
                              f"({first.detail})")


def check_rarity(records: Sequence[dict[str, Any]]) -> None:
    """Question subjects stay rare (< 10% of session slots), as the V7 relevance exemption needs."""
    holding: Counter[str] = Counter()
    total = 0
    for record in records:
        for session in record["haystack_sessions"]:
            total += 1
            holding.update(set(raw_tokens(" ".join(t["content"] for t in session))))
    for record in records:
        for word in tokenize(record["question"]):
            if word in QUESTION_TERMS:
                continue
            if holding[word] >= RARE_SHARE * total:
                raise GenerationError(f"{record['question_id']}: question word {word!r} is in "
                                      f"{holding[word]} of {total} sessions (>= {RARE_SHARE:.0%})")


def _knob(echo_by_shape: Mapping[str, float], shape: str) -> float:
    value = float(echo_by_shape[shape])
    if not 0.0 <= value <= 1.0:
        raise GenerationError(f"echo for {shape} must lie in [0, 1], got {value}")
    return value


@lru_cache(maxsize=256)
def _shape_records(seed: int, shape: str, knob: float) -> tuple[str, ...]:
    """One shape's records as JSON text (cached: the calibration search moves one knob at a time,
    and a shape's records depend on its own knob only)."""
    out: list[str] = []
    for spec in layout(seed)[shape]:
        stay = plan_haystack(seed, spec, knob)
        render(seed, stay)
        out.append(json.dumps(build_record(stay, spec.question_id), ensure_ascii=False))
    return tuple(out)


def build_records(seed: int, echo_by_shape: Mapping[str, float], *,
                  shapes: Sequence[str] = SHAPES) -> list[dict[str, Any]]:
    """The corpus as plain records in id order (deterministic in seed and echo).

    ``shapes`` limits which shapes are built; the records of a shape never depend on which other
    shapes are built (the layout is always computed for the whole corpus).
    """
    records: list[dict[str, Any]] = []
    for shape in SHAPES:
        if shape in shapes:
            texts = _shape_records(seed, shape, _knob(echo_by_shape, shape))
            records += [json.loads(text) for text in texts]
    records.sort(key=lambda record: record["question_id"])
    if set(shapes) == set(SHAPES):
        check_rarity(records)
    return records


_assert_banks()


__all__ = [
    "ASKED_ITEMS", "ASKED_SHOPS", "BAND_OF_INPUTS", "CALIBRATED_SHAPES", "CALIBRATION_RECORD",
    "CONSTRUCTIONS", "GENERATOR", "GENERATOR_VERSION", "Haystack", "INPUT_LADDER", "RECORDED_ECHO",
    "RIVAL_ITEMS", "RIVAL_SHOPS", "SEED", "SHAPES", "VERTICAL", "build_record", "build_records",
    "check_haystack", "coincident_subset", "derive", "layout", "plan_haystack", "read_haystack",
    "render",
]
