"""TypedMemEval-Arithmetic v3, declared over the v3 blocks (VERTICALS.md §2.3, Appendices C and D).

Shapes: ``counts`` (14) "How many times did I buy something from Pellow Hardware?", ``sums`` (14)
"How much did I spend at Pellow Hardware altogether?", ``deltas`` (10) "How much more did I spend at
Pellow Hardware than at Garrick Motors?" (side a minus side b), ``durations`` (12) "How many days in
total were the ladder and the drill out on loan?" (per asked item, the days from the session that
sends it away to the one that brings it back). G follows :data:`INPUT_LADDER` (durations 2/4/6: one
to three items), H 15-25.

**One pool per type, roles after the draw** (Appendix D row 1). Shops come from
:func:`..values.draw` ("shop": a stem and a trade word), bought objects from the shop's trade list
(:data:`TRADE_ITEMS`, one deck per trade for every statement), lent or repaired objects from
:data:`ITEMS`, amounts from one range for every statement (:data:`AMOUNT_CENTS`, 100.00-999.99,
equal digit counts). A haystack draws them all first; which unit the question asks is decided
afterwards.

**Askable units alike (revision 3, second red team).** The first red team of v3 ranked sessions
question-blind by "an own purchase x how many own purchases its shop has x +10 in the haystack's
rarest currency" (gold@1 counts 0.79, deltas 0.60, sums 0.43): the asked shop had the most own
purchases (decoys got competitors at its rate but not own purchases), and asked-shop competitors
past the same-unit cap were moved to other currencies, so the asked currency was the rarest. Now a
purchase haystack holds :data:`TRACKED_UNITS` askable units (a shop; for deltas a pair of shops of
one currency), each with an own-purchase count drawn from the shape's ladder, a currency from a
rotation over the three, and competitors at the dial's rate of its own count; the asked unit is
drawn uniformly among them after the draw (the question's currency is its unit's). Rival shops
(1-2 own purchases each) and every other competitor (about a rival or a competitor-only shop) are
dealt to the least-loaded currency, blind to which unit is asked, so currencies hold nearly equal
value counts (a draw where any currency passes :data:`SAME_UNIT_CAP` is redrawn whole, whichever
is asked). Durations track the asked items and as many decoys (every item has a full lifecycle).

**Anatomy** (every session alike, gold or not): exactly one *own* statement -- a purchase of the
user's, or an item of the user's lent out / sent for repair or coming back -- and exactly one
*competitor* about another subject of the haystack, plus drawn small talk, in a drawn order
(:func:`..conversation.render_haystack`, one persona per haystack).

**Competitor kinds** (Appendix D row 2: each holds a value of the asked type and says plainly why
it does not answer). Purchases: ``holder`` -- a persona relation's purchase, by the user's own
frames with the actor swapped (:data:`OWN_FRAMES`) and by frames of its own
(:data:`HOLDER_ONLY`: the relation named in a first sentence and a pronoun in the value sentence,
the user present, "for her flat", the user collecting what the relation paid for); ``declined``
-- the user's near-purchase (:data:`DECLINED_FRAMES`, half of them with the decline in a second
sentence); ``quote`` -- a price the assistant gives and the user turns down. The user's own
purchases take :data:`OWN_FRAMES` and :data:`OWN_ONLY`, whose openers vary and which carry the
words a cue list would read as a competitor ("nearly", "turned it down", "my sister", "quoted")
while saying plainly that the user paid (second red team, part 2: a dozen cue regexes read v3's
closed vocabulary). Durations: ``holder`` -- a relation's own item of the same noun lent out or
sent for repair (and back); ``declined`` -- a loan or repair of the user's item that did not
happen, only while the item is at home; own frames name relations too. The kind mix
(:data:`KIND_WEIGHTS`) is fixed; companion clauses (:data:`COMPANY_SHARE`) give the user's own
statements a relation's name as often as a relation's statements carry the user's.

**The dial** (:data:`RECORDED_COMPETITION`). Competitors about each askable unit's shop = dial x
:data:`PER_INPUT` x (its own purchases), scaled into the sessions when more are asked for; for
durations, competitors about the tracked items = dial x :data:`PER_INPUT` x (their own
statements). The search (:func:`search_dial`) scores each point by the reference BM25, the maximum
over the whole lexical panel and the subject-and-value reader, keeps only points whose reader is
within :data:`READER_MARGIN`, and checks the chosen corpus against every adversary; dense and
hybrid are measured and stamped at generation.

**Durations hold under both day conventions** (Appendix C): sessions sit on distinct calendar days
and for every own item the end session's clock time is later in the day than the start's, so whole
elapsed days equal calendar days (checked from the final timestamps).

**Validity** (hard :class:`GenerationError`): every statement is read back from the rendered text
alone (:func:`read_statements`) and equals the plan, competitors included, and gold is recomputed
from that reading (V5): only the user's own purchases at the asked shops (own lifecycles of the
asked items) count, and no competitor reads as one; one own statement and one competitor per
session; every amount unique and named with its shop; no other subset of same-unit amounts
(competitors included) of size <= G + 1 reaches a sum or delta (the structure gate's search) and
the total is never written; no other span (own or a relation's) equals a gold span or the total;
a declined loan or repair only while the item is home; every gold role sequence shared by a
distractor (a rendering is redrawn, never edited); V4 and no digits or number words in duration
text; the leak gate's scan of the adapter view; question subjects rare corpus-wide; the judge
grades gold correct and the totals a confused system gives (a competitor counted in, an input left
out; the key's ``wrong``) not correct.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from typing import Any

from ...corpus.models import QuestionRecord
from ...gates import leaks
from ...gates.arithmetic_checks import (SUBSET_EXTRA, SubsetItem, duration_between,
                                        extract_amounts, find_coincident_subset)
from ...gates.structure import v4_findings
from ...adapter.projection import adapter_view
from ...retrieval.tokenizer import raw_tokens, tokenize
from .. import conversation, engine, talk, values
from .. import episodes_bank as bank
from ..primitives import GenerationError, article, assert_disjoint, derive_rng, dither

VERTICAL = "arithmetic"
ABBREV = "ari"
GENERATOR = "pytest_typedmemeval.generate.verticals.arithmetic"
GENERATOR_VERSION = "3"
REVISION = 3
SEED = 20260503
SHAPES: tuple[str, ...] = ("counts", "sums", "deltas", "durations")
CALIBRATED_SHAPES = SHAPES
RECORDED_COMPETITION: dict[str, float] = {"counts": 0.875, "sums": 0.5,
                                          "deltas": 1.0, "durations": 1.0}
"""Per shape, the dial: competitors about each tracked subject = dial x :data:`PER_INPUT` x (its
own statements; scaled into the sessions when more are asked for), as recorded by
``typedmemeval generate --vertical arithmetic --search`` (:func:`search_dial`); rebuilds read it,
never search."""
DIFFICULTY_NOTE = ("declared, not validated: the dial is the number of inputs (gold sessions), "
                   "bands G 2-3 -> 1, 4 -> 2, 5 -> 3, 6 -> 4; only G > K_ref = 5 lowers the "
                   "structural ceiling (VERTICALS.md §2.0, §2.3 Dials)")

SHAPE_N = {"counts": 14, "sums": 14, "deltas": 10, "durations": 12}
OPERATIONS = {"counts": "count", "sums": "sum", "deltas": "delta", "durations": "duration"}
INPUT_LADDER: dict[str, tuple[int, ...]] = {
    "counts": (3, 3, 3, 3, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6),
    "sums": (3, 3, 3, 3, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6),
    "deltas": (3, 3, 3, 4, 4, 5, 5, 5, 6, 6),
    "durations": (2, 2, 2, 2, 4, 4, 4, 4, 6, 6, 6, 6),
}
BAND_OF_INPUTS = {2: 1, 3: 1, 4: 2, 5: 3, 6: 4}
"""G = 2 exists only for durations, so it shares band 1 with G = 3 (no band filled by one shape)."""
H_RANGE = (15, 25)
RIVAL_GROUP = (1, 2)
TRACKED_UNITS = {"counts": 5, "sums": 4, "deltas": 3}
"""Askable units per purchase haystack (a shop; for deltas a pair of shops of one currency): each
gets an own-purchase count drawn from the shape's ladder and competitors at the dial's rate, and
the asked unit is drawn among them after the draw, so a question-blind count of own purchases (or
of mentions) finds the asked unit with chance 1 / units. Deltas hold one pair per currency: the
no-coincidence rule's reach (:data:`SAME_UNIT_CAP`) leaves room for no more."""
MAX_SESSIONS = {"deltas": 22}
"""Sessions per deltas haystack at most: two values a session, balanced over three currencies,
stay within :data:`SAME_UNIT_CAP` for every currency (whichever is asked)."""
AMOUNT_CENTS = (10_000, 99_999)
MIN_DELTA_CENTS = 1_000
MIN_DURATION_DAYS = 10
CLOCK_MINUTES = (7 * 60, 22 * 60 - 1)
ATTEMPTS = 200
MEMORY_TYPE = "arithmetic"
CURRENCIES = {"USD": "$", "EUR": "€", "GBP": "£"}
CURRENCY_OF = {symbol: code for code, symbol in CURRENCIES.items()}
KIND_WEIGHTS: dict[str, dict[str, float]] = {
    "purchase": {"holder": 0.48, "declined": 0.40, "quote": 0.12},
    "duration": {"holder": 0.55, "declined": 0.45}}
"""Competitor kinds and their fixed shares: the closeness mix (holder frames are gold's own)."""
PER_INPUT = 1.5
"""At dial 1, a haystack holds this many competitors per own statement of a tracked subject (the
dial scales it): competition grows with G, so the share of asked-subject sessions that are gold
does not."""
SAME_UNIT_CAP = {"sums": 22, "deltas": 15}
"""Most values in the question's currency a haystack may hold (own purchases and competitors):
past it the no-coincidence search (§2.3 rule 2, subsets up to G + 1) almost never has an answer,
so asked-shop competitors beyond the cap name a shop of another currency instead (drawn)."""
COMPANY_SHARE = 0.35
"""Share of own and holder purchases (frames with a ``{company}`` slot) naming the other person
present: the user's relation for the user's own purchase, the user for a relation's."""

# --- banks ---------------------------------------------------------------------------------------

TRADE_ITEMS: dict[str, tuple[str, ...]] = {trade: tuple(words.split()) for trade, words in {
    "Hardware": "workbench anvil lathe vice toolchest stepladder generator crowbar hacksaw bandsaw "
                "sawhorse mallet pickaxe",
    "Motors": "roofbox towbar dashcam satnav battery alternator exhaust gearbox clutch bumper "
              "spoiler carburettor",
    "Joinery": "bookcase sideboard wardrobe dresser cabinet bureau desk bedframe lectern credenza "
               "cot cradle highchair hatstand worktop mantelpiece",
    "Glazing": "mirror aquarium skylight porch conservatory splashback partition terrarium vitrine "
               "rooflight cloche fanlight",
    "Plumbing": "bathtub basin cistern bidet thermostat pump valve softener macerator showerhead "
                "plunger manifold",
    "Roofing": "chimney cowl dormer gutter downpipe fascia soffit weathervane aerial hatch louvre "
               "finial",
    "Electrics": "microwave toaster kettle cooker dishwasher heater chandelier printer monitor "
                 "camera keyboard juicer doorbell extractor speaker",
    "Removals": "crate trunk hamper footlocker chest trolley dolly holdall tarpaulin coffer "
                "handcart portmanteau",
    "Upholstery": "armchair recliner ottoman footstool settee divan futon chaise headboard pouffe "
                  "beanbag bolster loveseat",
    "Locksmiths": "safe padlock deadbolt keysafe strongbox lockbox latch intercom peephole knocker "
                  "doorknob keypad",
}.items()}
"""Objects bought, by the trade of the shop that sells them (a shop is a stem and a trade word,
:data:`..values.TRADES`): every statement at a shop, own or competitor, is dealt from one deck of
its trade, so an object says what a shop sells and nothing about who bought it."""
PURCHASE_ITEMS = tuple(sorted({item for items in TRADE_ITEMS.values() for item in items}))
ITEMS = tuple("""ladder tent projector trailer sander wheelbarrow chainsaw scooter kayak canoe tripod
amplifier microscope compressor grinder router vacuum dehumidifier blender mixer accordion trombone
saxophone clarinet banjo harp mandolin typewriter gramophone turntable snowboard surfboard
paddleboard wetsuit dinghy caravan campervan motorbike moped treadmill rotavator gazebo hoover
planer welder toolbox pushchair sledge skis metronome stroller""".split())
"""Objects lent out or sent for repair: one list; which of a haystack's items is asked is drawn."""

OWN_FRAMES: tuple[str, ...] = (
    "{Who} ordered {a} from {shop} for {v}{company}.",
    "{Who} bought {a} from {shop} for {v}{company}.",
    "{shop} charged {me} {v} for {a}{company}.",
    "{Who} paid {shop} {v} for {a}{company}.",
    "So {who} finally went for it and bought {a} from {shop}, which came to {v}. "
    "{They} had been eyeing it for ages.",
    "Quick update: {shop} sold {me} {a} for {v}, delivery included.",
    "After a lot of dithering {who} ordered {a} from {shop} at {v}. "
    "Fingers crossed it fits the spot {they} had in mind.",
    "{shop} had {a} that {who} liked, and {they} paid {v} for it in the end.",
)
"""A purchase, naming shop, object and amount in one sentence, for the user ("I", "me") and a
relation ("My sister", "she") alike: the holder competitor is gold's frame with the actor swapped.
Past tense throughout, so no verb changes form between persons (§4.13)."""
DECLINED_FRAMES: tuple[str, ...] = (
    "I nearly ordered {a} from {shop} for {v}, but I cancelled before paying.",
    "I almost bought {a} from {shop} for {v}, but I put it back on the shelf.",
    "{shop} wanted {v} for {a}, so I walked out without it.",
    "I was ready to pay {shop} {v} for {a}, but I changed my mind at the till.",
    "So I very nearly went for {a} from {shop}, which would have come to {v}. "
    "In the end I talked myself out of it.",
    "Quick update: {shop} offered me {a} for {v}, delivery included, but I turned it down.",
    "After a lot of dithering I decided against {a} from {shop} at {v}. "
    "It would never have fitted the spot I had in mind.",
    "{shop} had {a} that I liked for {v}, but I left it on the shelf in the end.",
)
"""Each own frame's twin where the purchase did not happen, said plainly in the same sentence."""
DECLINED_FRAMES += (
    "I had {a} from {shop} in my basket at {v}. Then I saw the delivery charge and closed the tab.",
    "{shop} showed me {a} at {v}. I said I would sleep on it and never went back.",
    "My {rel} reckoned {a} from {shop} was a bargain at {v}. I was not convinced, so it stayed "
    "in the shop.",
    "{A} from {shop} came to {v} at the till. I handed it back to the cashier and went home "
    "empty-handed.",
    "I went to {shop} for {a} and it was {v}. Way over budget, so I am still looking.",
    "I put {a} from {shop} on hold at {v}. By the weekend I had let the hold lapse.",
    "My {rel} and I looked at {a} in {shop}, marked at {v}. We agreed it was not worth it and "
    "went for lunch instead.",
    "{shop} rang to say {a} I asked about was in, at {v}. Sadly I had to tell them no.",
    "I came close with {a} from {shop} at {v}. In the end the answer was no.",
    "{shop} had {a} in the window at {v}. I kept walking.",
    "I reserved {a} at {shop} for {v}. Then the reservation ran out and I let it go.",
    "{A} at {shop} for {v} caught my eye. My budget said otherwise.",
)
OWN_ONLY: tuple[str, ...] = (
    "{A} from {shop} set me back {v}{company}.",
    "My {rel} talked me into {a} from {shop}, and I paid {v} for it.",
    "For {rp} birthday I got my {rel} {a} from {shop}, which came to {v}.",
    "Treated the house to {a} from {shop} at last, {v} well spent.",
    "The receipt from {shop} says {v} for {a}, paid on my card.",
    "My {rel} came with me to {shop}, where I paid {v} for {a}.",
    "Well, {a} from {shop} is now mine. It cost {v}, and I do not regret a penny.",
    "{shop} finally delivered {a} I had paid {v} for, and it looks great.",
    "I nearly missed the sale, but I bought {a} from {shop} for {v} in the end.",
    "My {rel} thought it was too dear, but I paid {shop} {v} for {a} anyway.",
    "After my {rel} turned it down, I bought {a} from {shop} myself for {v}.",
    "I almost walked out, but then I paid {v} for {a} at {shop}.",
    "I changed my mind back and forth before I ordered {a} from {shop} at {v}.",
    "{shop} quoted me {v} for {a}, and I said yes on the spot.",
    "My {rel} will laugh, but I bought {a} from {shop} for {v} all the same.",
    "I thought about it for a week, then bought {a} from {shop} for {v}.",
)
"""Own purchases with other openers: no subject, an object first, a relation named (the user pays
for a present, or a relation comes along); each says plainly that the user paid."""
HOLDER_ONLY: tuple[str, ...] = (
    "{Who} came round for coffee. I heard {they} had just bought {a} from {shop} for {v}.",
    "I went along with my {noun} to {shop}, where {they} paid {v} for {a}.",
    "I hear {a} from {shop} set my {noun} back {v}{company}.",
    "I helped my {noun} carry home {a} from {shop}, which cost {them} {v}.",
    "My {noun} finally has {a} for {their} flat. I am told {shop} charged {them} {v} for it.",
    "Guess who splashed out? My {noun}, on {a} from {shop} at {v}, and I was there to see it.",
    "{shop} finally delivered {a} my {noun} had paid {v} for, and I can see why {they} loves it.",
    "I picked up {a} from {shop} for my {noun}, who had already paid {v} for it online.",
    "{Who} sent me a photo of {their} latest buy. {A} from {shop} at {v}, and I think it looks "
    "lovely.",
    "{Who} finally treated {them}self. {A} from {shop}, all {v} of it, and I approve.",
    "{Who} could not stop talking about {their} new purchase. {shop} sold it for {v}, {a} "
    "with a lifetime guarantee, I gather.",
    "{Who} has been doing up {their} spare room. {A} from {shop} at {v} was the finishing touch.",
    "{Who} showed me {their} receipt when I visited. It said {shop}, {a}, {v}.",
    "{Who} went shopping at the weekend and sent me the highlights. {A} from {shop} for {v} "
    "topped the list.",
)
"""A relation's purchase with other openers: the relation named in a first sentence and then a
pronoun, the user present ("I went along with my sister ..."), the relation's home ("for her
flat"), the user collecting what the relation paid for."""
PURCHASE_BANK: dict[str, tuple[str, ...]] = {"own": OWN_FRAMES + OWN_ONLY,
                                             "holder": OWN_FRAMES + HOLDER_ONLY,
                                             "declined": DECLINED_FRAMES}
"""Frames per kind (a statement's ``frame`` indexes its kind's tuple); the first
``len(OWN_FRAMES)`` of own and holder are the same frames with the actor swapped."""
QUOTE_FRAMES: tuple[tuple[str, str], ...] = (
    ("Do you know what {a} goes for these days?", "{shop} lists {a} at {v} at the moment."),
    ("What would {a} come to, roughly?",
     "Going by their current prices, {shop} would want {v} for {a}."),
    ("Any idea where I could get {a}?", "{A} from {shop} is listed at {v} right now."),
)
"""(user request, assistant price): the user turns the price down in the next turn. The request
names the object, not the shop, so a quote names its shop once, as every other statement does."""
COMPANY = (" while {other} waited outside", " while {other} waited in the car")

DURATION_FRAMES: dict[str, dict[str, tuple[tuple[str, bool], ...]]] = {
    "loan": {
        "start": (("{Who} lent {the} {item} to a friend today{company}.", True),
                  ("{Who} lent out {the} {item} today{company}.", True),
                  ("A colleague asked to borrow the {item}, so I lent it out today.", False),
                  ("Someone from the village needed the {item} for a project, so I lent it out "
                   "today. Fingers crossed it comes home unscathed.", False),
                  ("My {rel} knew someone who needed the {item}, so I lent it out today.", False),
                  ("{Who} had a friend in need, so {they} lent out {the} {item} today.", None)),
        "end": (("{Who} got {the} {item} back today{company}.", True),
                ("{Who} had {the} {item} returned today{company}.", True),
                ("The {item} came back to me today, in good shape too.", False),
                ("My friend dropped round with the {item} today and handed it back. "
                 "It was nice to catch up on the doorstep.", False),
                ("My {rel} drove over with the {item} today, back from the friend I lent it to.",
                 False),
                ("{Who} rang with good news: {they} got {the} {item} back today.", None)),
        "refusal": (("A friend asked to borrow the {item} today, but I needed it myself.", False),
                    ("I nearly lent out the {item} today, but I decided to keep it at home.",
                     False),
                    ("Someone from the village wanted to borrow the {item} today, but I had "
                     "plans for it.", False)),
    },
    "repair": {
        "start": (("{Who} took {the} {item} in for repair today{company}.", True),
                  ("{Who} dropped {the} {item} off at the repair shop today{company}.", True),
                  ("The {item} had been playing up, so I took it to the repair shop today.",
                   False),
                  ("{Who} finally got {the} {item} down to the repair shop today{company}. The man at "
                   "the counter seemed confident he could sort it.", True),
                  ("My {rel} gave me a lift to the repair shop, and I left the {item} there today.",
                   False),
                  ("{Who} was fed up with {the} {item}, so {they} took it in for repair today.",
                   None)),
        "end": (("{Who} collected {the} {item} from the repair shop today{company}.", True),
                ("The {item} came back from the repair shop today.", False),
                ("{Who} picked up {the} {item} from the repair shop today, and it works like "
                 "new.", True),
                ("The repair shop rang, so {who} fetched {the} {item} today{company}. It looks as good "
                 "as it ever did.", True),
                ("My {rel} came with me to collect the {item} from the repair shop today.", False),
                ("{Who} sounded relieved on the phone: {they} collected {the} {item} from the "
                 "repair shop today.", None)),
        "refusal": (("I nearly took the {item} in for repair today, but it started working "
                     "again.", False),
                    ("The {item} was playing up today, but I managed to sort it myself.", False),
                    ("I almost dropped the {item} off at the repair shop today, but a good clean "
                     "fixed it.", False)),
    },
}
"""(frame, use) per domain and event: use True for the user's item and a relation's alike, False for
the user's only, None for a relation's only; no digits, no dates."""


def _usable(ok: bool | None, relation: object) -> bool:
    return ok is not False if relation is not None else ok is not None
QUESTIONS = {"counts": "How many times did I buy something from {a}?",
             "sums": "How much did I spend at {a} altogether?",
             "deltas": "How much more did I spend at {a} than at {b}?",
             "loan": "How many days in total {verb} {items} out on loan?",
             "repair": "How many days in total {verb} {items} away for repair?"}
COUNT_PREDICATE = "buy something from {a}"
STANCES: dict[str, conversation.Stance] = {"own": "arranged", "holder": "other",
                                           "declined": "declined",
                                           "quote": "assistant-offer-declined"}

QUESTION_TERMS = frozenset(t for f in QUESTIONS.values()
                           for t in tokenize(re.sub(r"\{\w+\}", " ", f)))
TRADE_WORDS = frozenset(t.lower() for t in values.TRADES)
BANNED = (QUESTION_TERMS | frozenset(PURCHASE_ITEMS) | frozenset(ITEMS) | talk.NUMBER_WORDS
          | {"search", "shop", "judge", "judges"})
"""Words small talk must not use: question words, the objects statements name, number words
(ordinals too: duration text holds none), and "judge(s)" (a field name of the answer-key
vocabulary the leak gate refuses in anything the adapter reads)."""


@dataclass
class Said:
    """One planned statement (gold or competitor alike): what the text will say and read back as."""

    kind: str
    """"own", "holder", "declined" or "quote"."""
    subject: str
    """The shop (purchases) or the item (durations) the statement is about."""
    event: str = "purchase"
    """"purchase", or for durations "start", "end", "refusal"."""
    holder: str | None = None
    """Relation noun of a holder competitor."""
    company: str = ""
    """The rendered companion clause of an own or holder statement ("" when none)."""
    item: str = ""
    """The object bought."""
    cents: int = 0
    currency: str = ""
    frame: int = 0
    rel: str = ""
    """A relation the user's own (or declined) statement names ("My sister talked me into ...")."""

    def reading(self) -> tuple[Any, ...]:
        return (self.kind, self.subject, self.event, self.holder, self.company, self.item,
                self.cents, self.currency, self.rel)


def format_amount(cents: int, currency: str) -> str:
    whole, frac = divmod(cents, 100)
    return f"{CURRENCIES[currency]}{whole:,}.{frac:02d}"


def _actor(relation: bank.Relation | None) -> dict[str, str]:
    """Slots naming who acts: the user, or a relation with its own pronouns (grammar per holder)."""
    if relation is None:
        return {"Who": "I", "who": "I", "me": "me", "They": "I", "they": "I", "the": "the",
                "noun": "", "them": "me", "their": "my"}
    noun = relation.noun
    return {"Who": f"My {noun}", "who": f"my {noun}", "me": f"my {noun}",
            "They": relation.subj.capitalize(), "they": relation.subj, "the": relation.poss,
            "noun": noun, "them": relation.obj, "their": relation.poss}


_NOUNS = tuple(sorted({r.noun for r in bank.RELATIONS.values()}, key=lambda n: (-len(n), n)))
_HOLDERS: tuple[bank.Relation | None, ...] = (None, *sorted(
    {(r.noun, r.subj, r.obj, r.poss): r for r in bank.RELATIONS.values()}.values(),
    key=lambda r: (r.noun, r.subj)))
_GROUPS = {"a": r"(?P<a>an? [a-z]+)", "A": r"(?P<A>An? [a-z]+)",
           "shop": r"(?P<shop>[A-Z][a-z]+ [A-Z][a-z]+)", "v": r"(?P<v>[$€£]\d{3}\.\d{2})",
           "item": r"(?P<item>[a-z]+)",
           "rel": "(?P<rel>" + "|".join(re.escape(n) for n in _NOUNS) + ")",
           "rp": r"(?P<rp>her|his)"}


def _company_group(relation: bank.Relation | None) -> str:
    others = ["I"] if relation is not None else [f"my {noun}" for noun in _NOUNS]
    alternatives = "|".join(re.escape(c.format(other=o)) for c in COMPANY for o in others)
    return f"(?P<company>{alternatives})?"


def _compile(template: str, relation: bank.Relation | None) -> re.Pattern[str]:
    marks = {name: f"QQ{name}QQ" for name in (*_GROUPS, "company")}
    text = template.format(**_actor(relation), **marks)
    pattern = re.escape(text)
    for name, group in _GROUPS.items():
        pattern = pattern.replace(marks[name], group, 1).replace(marks[name], f"(?P={name})")
    pattern = pattern.replace(marks["company"], _company_group(relation))
    return re.compile(r"(?<![A-Za-z])" + pattern)


def _patterns() -> list[tuple[str, str, str | None, re.Pattern[str]]]:
    """(kind, event, holder noun, pattern) for every construction a statement can take."""
    out: list[tuple[str, str, str | None, re.Pattern[str]]] = []
    for relation in _HOLDERS:
        kind, noun = ("own", None) if relation is None else ("holder", relation.noun)
        out += [(kind, "purchase", noun, _compile(f, relation)) for f in PURCHASE_BANK[kind]]
        for events in DURATION_FRAMES.values():
            for event in ("start", "end"):
                out += [(kind, event, noun, _compile(f, relation)) for f, ok in events[event]
                        if _usable(ok, relation)]
    out += [("declined", "purchase", None, _compile(f, None)) for f in DECLINED_FRAMES]
    out += [("quote", "purchase", None, _compile(f, None)) for _, f in QUOTE_FRAMES]
    out += [("declined", "refusal", None, _compile(f, None))
            for events in DURATION_FRAMES.values() for f, _ in events["refusal"]]
    seen: set[tuple[str, str, str | None, str]] = set()
    unique = []
    for kind, event, noun, pattern in out:  # "My neighbour bought ..." reads once, whoever she is
        if (kind, event, noun, pattern.pattern) not in seen:
            seen.add((kind, event, noun, pattern.pattern))
            unique.append((kind, event, noun, pattern))
    return unique


_PATTERNS = _patterns()


def read_statements(text: str) -> list[Said]:
    """Every statement any construction could have produced in ``text``, in text order."""
    if not ("today" in text or any(s in text for s in CURRENCY_OF)):
        return []
    found: list[tuple[int, Said]] = []
    for kind, event, noun, pattern in _PATTERNS:
        for m in pattern.finditer(text):
            groups = m.groupdict()
            if event != "purchase":
                found.append((m.start(), Said(kind, groups["item"], event, noun,
                                              groups.get("company") or "",
                                              rel=groups.get("rel") or "")))
                continue
            thing = (groups.get("a") or groups.get("A") or "").split()
            if not thing or thing[0].lower() != article(thing[1]):
                continue
            value = groups["v"]
            found.append((m.start(), Said(kind, groups["shop"], event, noun,
                                          groups.get("company") or "", thing[1],
                                          int(Decimal(value[1:]) * 100), CURRENCY_OF[value[0]],
                                          rel=groups.get("rel") or "")))
    return [said for _, said in sorted(found, key=lambda item: item[0])]


_FRAME_TEXT = [*OWN_FRAMES, *OWN_ONLY, *HOLDER_ONLY, *DECLINED_FRAMES,
               *(f for pair in QUOTE_FRAMES for f in pair),
               *COMPANY, *QUESTIONS.values(), COUNT_PREDICATE,
               *(f for domain in DURATION_FRAMES.values() for fs in domain.values() for f, _ in fs)]
FRAME_WORDS = frozenset(t for f in _FRAME_TEXT for t in raw_tokens(re.sub(r"\{\w+\}", " ", f)))


def _reads_as(text: str, said: Said) -> bool:
    return [r.reading() for r in read_statements(text)] == [said.reading()]


def _assert_banks() -> None:
    """Import-time checks: banks disjoint, and every construction, for every actor and companion
    clause, reads back as exactly the statement it renders (what V5's reading relies on)."""
    assert_disjoint("purchase items", PURCHASE_ITEMS, "items", ITEMS)
    objects = set(PURCHASE_ITEMS + ITEMS)
    assert_disjoint("objects", objects, "frames", FRAME_WORDS)
    assert_disjoint("objects and frames", objects | FRAME_WORDS, "numbers", talk.NUMBER_WORDS)
    assert_disjoint("objects", objects, "value words", values.pool_words())
    assert set(TRADE_ITEMS) == set(values.TRADES) and len(set(ITEMS)) == len(ITEMS)
    assert all(len(set(items)) == len(items) >= 12 for items in TRADE_ITEMS.values())
    for relation in _HOLDERS:
        kind, noun = ("own", None) if relation is None else ("holder", relation.noun)
        companies = ("", *(c.format(other="I" if relation else "my sister") for c in COMPANY))
        for index, frame in enumerate(PURCHASE_BANK[kind]):
            for company in companies if "{company}" in frame else ("",):
                for other in _HOLDERS[1:] if "{rel}" in frame else (None,):
                    said = Said(kind, "Pellow Hardware", "purchase", noun, company, "easel",
                                41280, "USD", index, rel=other.noun if other else "")
                    assert _reads_as(_purchase_text(said, relation, other), said), (frame, noun)
        for domain, events in DURATION_FRAMES.items():
            for event, frames in events.items():
                for index, (frame, ok) in enumerate(frames):
                    for company in (companies if "{company}" in frame else ("",)) \
                            if _usable(ok, relation) else ():
                        for other in _HOLDERS[1:] if "{rel}" in frame else (None,):
                            said = Said("declined" if event == "refusal" else kind, "ladder",
                                        event, noun, company, frame=index,
                                        rel=other.noun if other else "")
                            assert _reads_as(_duration_text(said, domain, relation, other),
                                             said), frame
    for index, (request, _) in enumerate(QUOTE_FRAMES):
        said = Said("quote", "Pellow Hardware", "purchase", None, "", "easel", 41280, "GBP", index)
        assert _reads_as(_purchase_text(said, None), said) and not read_statements(
            request.format(a="an easel"))
    for index, frame in enumerate(DECLINED_FRAMES):
        for other in _HOLDERS[1:] if "{rel}" in frame else (None,):
            said = Said("declined", "Pellow Hardware", "purchase", None, "", "easel", 41280,
                        "EUR", index, rel=other.noun if other else "")
            assert _reads_as(_purchase_text(said, None, other), said), frame
    cross: dict[int, set[str]] = {}
    for shape, ladder in INPUT_LADDER.items():
        assert len(ladder) == SHAPE_N[shape]
        for g in ladder:
            cross.setdefault(BAND_OF_INPUTS[g], set()).add(shape)
    assert all(len(shapes) > 1 for shapes in cross.values()), cross


def _purchase_text(said: Said, relation: bank.Relation | None,
                   other: bank.Relation | None = None) -> str:
    """``relation`` acts (a holder competitor); ``other`` is the relation an own or declined
    statement names (``said.rel``)."""
    slots = {**_actor(relation), "shop": said.subject, "v": format_amount(said.cents, said.currency),
             "a": f"{article(said.item)} {said.item}", "company": said.company,
             "rel": other.noun if other else "", "rp": other.poss if other else ""}
    slots["A"] = slots["a"].capitalize()
    if said.kind == "quote":
        return QUOTE_FRAMES[said.frame][1].format(**slots)
    return PURCHASE_BANK[said.kind][said.frame].format(**slots)


def _duration_text(said: Said, domain: str, relation: bank.Relation | None,
                   other: bank.Relation | None = None) -> str:
    frame = DURATION_FRAMES[domain][said.event][said.frame][0]
    return frame.format(**_actor(relation), item=said.subject, company=said.company,
                        rel=other.noun if other else "")


def _companion(rng: Any, said: Said, frame: str, holders: Mapping[str, int]) -> None:
    """On :data:`COMPANY_SHARE` of own and holder statements whose frame has the slot, name the
    other person present: one of the user's relations beside the user, the user beside one."""
    if said.kind in ("own", "holder") and "{company}" in frame and rng.random() < COMPANY_SHARE:
        other = "I" if said.holder else f"my {rng.choice(sorted(holders))}"
        said.company = rng.choice(COMPANY).format(other=other)


# --- planning ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Spec:
    """What the corpus layout decides for one question before its haystack is drawn."""

    shape: str
    index: int
    g: int
    currency: str | None = None
    domain: str | None = None

    @property
    def key(self) -> str:
        return f"{self.shape}/{self.index}"


@lru_cache(maxsize=8)
def layout(seed: int) -> dict[str, tuple[Spec, ...]]:
    """Inputs and currency (purchases) or domain (durations) per question, balanced per shape; the
    asked subjects are drawn with each haystack's values, not here."""
    rng = derive_rng(seed, VERTICAL, "layout")
    out: dict[str, tuple[Spec, ...]] = {}
    for shape in SHAPES:
        ladder = list(INPUT_LADDER[shape])
        rng.shuffle(ladder)
        pool = sorted(DURATION_FRAMES) if shape == "durations" else sorted(CURRENCIES)
        labels = [pool[i % len(pool)] for i in range(SHAPE_N[shape])]
        rng.shuffle(labels)
        out[shape] = tuple(Spec(shape, i, g, None, label if shape == "durations" else None)
                           for i, (g, label) in enumerate(zip(ladder, labels)))
    return out


@dataclass
class Plan:
    """One haystack before rendering: per session its own statement and its competitor."""

    spec: Spec
    asked: tuple[str, ...]
    said: list[list[Said]]
    persona: conversation.Persona
    holders: dict[str, int]
    """Relation noun -> index in the persona (for grammar and the assistant's "your sister")."""
    clocks: list[int]
    days: list[int]
    gold: list[int]
    value: Fraction
    decoys: tuple[str, ...] = ()
    currency: str | None = None
    """The question's currency (purchases): the asked unit's, drawn with it."""
    """Unasked subjects drawn like the asked ones (as many, own counts from the same ladder) whose
    competitors the dial deals alike: no question-blind count of mentions singles out the asked."""


def question_text(spec: Spec, asked: Sequence[str]) -> str:
    if spec.domain is None:
        return QUESTIONS[spec.shape].format(a=asked[0], b=asked[-1])
    named = [f"the {item}" for item in asked]
    items = named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]
    return QUESTIONS[spec.domain].format(verb="was" if len(named) == 1 else "were", items=items)


def _calendar(rng: Any, n: int) -> tuple[list[int], list[int]]:
    """One session per calendar day (1-3 days apart) and a clock time per session, in minutes; the
    last entry is the question's."""
    days = [rng.randint(0, 420)]
    for _ in range(n):
        days.append(days[-1] + rng.randint(1, 3))
    return days, [rng.randint(*CLOCK_MINUTES) for _ in range(n + 1)]


def _kinds(rng: Any, domain: str, n: int) -> list[str]:
    weights = KIND_WEIGHTS[domain]
    counts = dither([weights[k] * n for k in weights], rng)
    deck = [k for k, c in zip(weights, counts) for _ in range(c)]
    deck += [max(weights, key=weights.__getitem__)] * (n - len(deck))
    rng.shuffle(deck)
    return deck[:n]


def _share(rate: float, g: int, own: Sequence[str], asked: Sequence[str]) -> float:
    """The share of eligible sessions (those whose own subject leaves an asked one to name) that
    gets an asked-subject competitor: ``rate`` x :data:`PER_INPUT` x G competitors in all."""
    eligible = sum(1 for subject in own if any(a != subject for a in asked))
    return min(1.0, rate * PER_INPUT * g / max(1, eligible))


def _coincidence(amounts: Sequence[tuple[int, int]], target: int, g: int, signed: bool
                 ) -> list[tuple[int, SubsetItem]] | None:
    """The structure gate's search over same-unit (cents, gold sign) values: another subset of
    size <= G + 1 reaching the gold, or ``None``."""
    items = [SubsetItem(Fraction(c), f"value {i}", s) for i, (c, s) in enumerate(amounts)]
    return find_coincident_subset(items, Fraction(target), Fraction(0), g + SUBSET_EXTRA,
                                  signed=signed)


def _plan_purchases(seed: int, spec: Spec, rate: float) -> Plan:
    """Tracked units first (a shop, or a pair of shops of one currency for deltas), each with its
    own-purchase count drawn from the shape's ladder and its currency from a rotation; the asked
    unit is drawn among them afterwards. Competitors per tracked shop follow its own count at the
    dial's rate; rivals and the remaining competitors balance the values per currency, blind to
    which unit is asked."""
    rng = derive_rng(seed, VERTICAL, spec.key, "plan")
    persona = conversation.draw_persona(rng)
    holders = {persona.holder(i).noun: i for i in range(len(persona.relations))}
    sides = 2 if spec.shape == "deltas" else 1
    m = TRACKED_UNITS[spec.shape]
    cap = SAME_UNIT_CAP.get(spec.shape)
    codes = sorted(CURRENCIES)
    for _ in range(ATTEMPTS):
        # 1. tracked units: counts iid from the ladder, currencies by rotation; then the asked one
        counts = [rng.choice(INPUT_LADDER[spec.shape]) for _ in range(m)]
        at = rng.randrange(m)
        counts[at] = spec.g
        rng.shuffle(codes)
        unit_code = [codes[i % len(codes)] for i in range(m)]
        groups: list[tuple[str, int]] = []  # (currency, own purchases) per shop, tracked first
        units: list[list[int]] = []
        for code, g in zip(unit_code, counts):
            parts = [g] if sides == 1 else [(cut := rng.randint(1, g - 1)), g - cut]
            units.append(list(range(len(groups), len(groups) + len(parts))))
            groups += [(code, part) for part in parts]
        tracked_n = len(groups)
        others_total = sum(counts) - spec.g
        h_hi = min(H_RANGE[1], MAX_SESSIONS.get(spec.shape, 10 ** 6) - spec.g)
        h = rng.randint(max(H_RANGE[0], others_total), h_hi)
        n = spec.g + h
        # 2. competitors per tracked shop: the dial's share of its own count (scaled into n)
        want = [rate * PER_INPUT * groups[i][1] for i in range(tracked_n)]
        room = n - 1
        if sum(want) > room:
            want = [w * room / sum(want) for w in want]
        k = dither(want, rng)
        load = {c: 0 for c in CURRENCIES}
        for (code, own), extra in zip(groups, k):
            load[code] += own + extra
        # 3. rivals: groups of 1-2 own purchases, each billing in the least-loaded currency
        left = n - sum(counts)
        while left:
            step = min(left, rng.randint(*RIVAL_GROUP))
            code = min(sorted(load), key=lambda c: (load[c], rng.random()))
            groups.append((code, step))
            load[code] += step
            left -= step
        # 4. shop names, drawn first; names to groups by shuffle; extra competitor-only shops
        n_extra = len(CURRENCIES)
        shops = values.draw(rng, "shop", len(groups) + n_extra)
        rng.shuffle(shops)
        currency_of = {shops[i]: code for i, (code, _) in enumerate(groups)}
        for j, code in enumerate(sorted(CURRENCIES)):
            currency_of[shops[len(groups) + j]] = code
        own_shop = [shops[i] for i, (_, size) in enumerate(groups) for _ in range(size)]
        rng.shuffle(own_shop)
        # 5. tracked competitors to sessions whose own shop is another
        subjects: list[str | None] = [None] * n
        deck = [shops[i] for i in range(tracked_n) for _ in range(k[i])]
        rng.shuffle(deck)
        placed = True
        for subject in deck:
            free = [p for p in range(n) if subjects[p] is None and own_shop[p] != subject]
            if not free:
                placed = False
                break
            subjects[rng.choice(free)] = subject
        if not placed:
            continue
        # 6. every other competitor names an untracked shop of the least-loaded currency
        untracked = shops[tracked_n:]
        for p in rng.sample(range(n), n):
            if subjects[p] is not None:
                continue
            for code in sorted(load, key=lambda c: (load[c], rng.random())):
                pool = [s for s in untracked if currency_of[s] == code and s != own_shop[p]]
                if pool:
                    subjects[p] = rng.choice(pool)
                    load[code] += 1
                    break
        if cap is not None and max(load.values()) > cap:
            continue
        taken = _earlier_asked(seed, spec.shape, spec.index)
        asked = tuple(shops[i] for i in units[at])
        if taken & set(asked):
            continue
        break
    else:
        raise GenerationError(f"{spec.key}: no draw keeps every currency within the cap")
    decoys = tuple(shops[i] for u, members in enumerate(units) if u != at for i in members)
    currency = unit_code[at]
    gold = [p for p in range(n) if own_shop[p] in asked]
    kinds = _kinds(rng, "purchase", n)
    frames = {kind: engine.deal(rng, [str(i) for i in range(len(PURCHASE_BANK[kind]))], n)
              for kind in PURCHASE_BANK}
    said: list[list[Said]] = []
    decks: dict[str, list[str]] = {}

    def item_at(shop: str) -> str:  # one deck per trade: an object rarely comes up twice
        trade = shop.split()[1]
        deck = decks.setdefault(trade, [])
        if not deck:
            deck += rng.sample(TRADE_ITEMS[trade], len(TRADE_ITEMS[trade]))
        return deck.pop()

    for p in range(n):
        subject = subjects[p]
        if subject is None:
            raise GenerationError(f"{spec.key}: session {p} has no competitor subject")
        kind = kinds[p]
        holder = rng.choice(sorted(holders)) if kind == "holder" else None
        frame = int(frames[kind].pop()) if kind != "quote" else rng.randrange(len(QUOTE_FRAMES))
        pair = [Said("own", own_shop[p], frame=int(frames["own"].pop()), item=item_at(own_shop[p])),
                Said(kind, subject, holder=holder, frame=frame, item=item_at(subject))]
        for s in pair:
            s.currency = currency_of[s.subject]
            if s.kind != "quote":
                text = PURCHASE_BANK[s.kind][s.frame]
                _companion(rng, s, text, holders)
                if "{rel}" in text:
                    s.rel = rng.choice(sorted(holders))
        said.append(pair)
    signs = {p: 1 if own_shop[p] == asked[0] else -1 for p in gold}
    flat = [s for pair in said for s in pair]
    for _ in range(ATTEMPTS):
        cents = rng.sample(range(AMOUNT_CENTS[0], AMOUNT_CENTS[1] + 1), len(flat))
        for s, c in zip(flat, cents):
            s.cents = c
        target = sum(signs[p] * said[p][0].cents for p in gold)
        if spec.shape == "counts":
            break
        if target < 0:  # side a is the larger side: swap which shop the question names first
            asked, signs, target = asked[::-1], {p: -s for p, s in signs.items()}, -target
        pool = [(s.cents, signs[p] if s is said[p][0] and p in signs else 0)
                for p, pair in enumerate(said) for s in pair if s.currency == currency]
        if target >= MIN_DELTA_CENTS and target not in cents and \
                _coincidence(pool, target, spec.g, sides == 2) is None:
            break
    else:
        raise GenerationError(f"{spec.key}: no amounts without a coincident subset")
    value = Fraction(spec.g) if spec.shape == "counts" else Fraction(target, 100)
    days, clocks = _calendar(rng, n)
    return Plan(spec, asked, said, persona, holders, clocks, days, gold, value, decoys, currency)


def _plan_durations(seed: int, spec: Spec, rate: float) -> Plan:
    rng = derive_rng(seed, VERTICAL, spec.key, "plan")
    assert spec.domain is not None
    persona = conversation.draw_persona(rng)
    holders = {persona.holder(i).noun: i for i in range(len(persona.relations))}
    n = spec.g + rng.randint(*H_RANGE)
    days, _ = _calendar(rng, n)
    names = rng.sample(ITEMS, (n + 1) // 2)
    k = spec.g // 2
    taken = _earlier_asked(seed, spec.shape, spec.index)
    for _ in range(ATTEMPTS):
        positions = rng.sample(range(n), n)
        pairs = [tuple(sorted(positions[2 * i:2 * i + 2])) for i in range(n // 2)]
        drawn = rng.sample(range(len(pairs)), 2 * k)  # the asked items, then as many decoys
        chosen, decoys = sorted(drawn[:k]), drawn[k:]
        spans = [days[b] - days[a] for a, b in pairs]
        gold_spans = [spans[i] for i in chosen]
        if sum(gold_spans) >= MIN_DURATION_DAYS and not taken & {names[i] for i in chosen} \
                and not any(
                spans[i] in gold_spans or spans[i] == sum(gold_spans)
                for i in range(len(pairs)) if i not in chosen):
            break
    else:
        raise GenerationError(f"{spec.key}: no item lifecycles without a coincident span")
    clocks = [rng.randint(*CLOCK_MINUTES) for _ in range(n + 1)]
    for start, end in pairs:  # the end later in the day than the start: both conventions agree
        while clocks[start] == clocks[end]:
            clocks[end] = rng.randint(*CLOCK_MINUTES)
        if clocks[end] < clocks[start]:
            clocks[start], clocks[end] = clocks[end], clocks[start]
    own: list[Said | None] = [None] * n
    home: dict[str, tuple[int, int]] = {}
    decks = {e: engine.deal(rng, [str(i) for i, (_, ok) in enumerate(f) if ok is not None], n)
             for e, f in DURATION_FRAMES[spec.domain].items()}
    for i, (start, end) in enumerate(pairs):
        home[names[i]] = (start, end)
        own[start] = Said("own", names[i], "start", frame=int(decks["start"].pop()))
        own[end] = Said("own", names[i], "end", frame=int(decks["end"].pop()))
    if n % 2:
        home[names[-1]] = (positions[-1], n)
        own[positions[-1]] = Said("own", names[-1], "start", frame=int(decks["start"].pop()))
    asked = tuple(names[i] for i in chosen)
    watched = (*asked, *(names[i] for i in decoys))
    mine_of = [s.subject for s in own if s]
    subjects = engine.choose_mentions(mine_of, names, watched,
                                      _share(rate, 2 * spec.g, mine_of, watched), rng)
    kinds = _kinds(rng, "duration", n)
    out: dict[tuple[str, str], int] = {}
    said: list[list[Said]] = []
    for p, (mine, subject, kind) in enumerate(zip(own, subjects, kinds)):
        assert mine is not None and subject is not None
        a, b = home[subject]
        if kind == "declined" and not a <= p <= b:
            frame = int(decks["refusal"].pop())
            said.append([mine, Said("declined", subject, "refusal", frame=frame)])
            continue
        # A relation's loan of the same noun: ended when she has one open and its span coincides
        # with no gold span or the total (else she lends another time, or the next one does).
        for holder in rng.sample(sorted(holders), len(holders)):
            opened = out.get((holder, subject))
            span = None if opened is None else days[p] - days[opened]
            if span is None or (span not in gold_spans and span != sum(gold_spans)):
                break
        else:
            raise GenerationError(f"{spec.key}: no relation's event fits session {p}")
        event = "end" if (holder, subject) in out else "start"
        usable = [i for i, (_, ok) in enumerate(DURATION_FRAMES[spec.domain][event])
                  if ok is not False]
        if event == "end":
            del out[holder, subject]
        else:
            out[holder, subject] = p
        said.append([mine, Said("holder", subject, event, holder, frame=rng.choice(usable))])
    for pair in said:
        for s in pair:
            text = DURATION_FRAMES[spec.domain][s.event][s.frame][0]
            _companion(rng, s, text, holders)
            if "{rel}" in text:
                s.rel = rng.choice(sorted(holders))
    gold = sorted(p for i in chosen for p in pairs[i])
    return Plan(spec, asked, said, persona, holders, clocks, days, gold, Fraction(sum(gold_spans)),
                watched[len(asked):])


@lru_cache(maxsize=64)
def _earlier_asked(seed: int, shape: str, index: int) -> frozenset[str]:
    """Subjects the shape's earlier questions ask: a haystack whose draw would ask one again is
    redrawn (two questions would read the same), whatever roles its values take. The asked
    subjects are drawn before the dial acts, so they are read at dial 0."""
    planner = _plan_durations if shape == "durations" else _plan_purchases
    return frozenset(subject for spec in layout(seed)[shape][:index]
                     for subject in planner(seed, spec, 0.0).asked)


def plan(seed: int, spec: Spec, rate: float) -> Plan:
    if not 0.0 <= rate <= 1.0:
        raise GenerationError(f"competition rate must lie in [0, 1], got {rate}")
    return (_plan_durations if spec.shape == "durations" else _plan_purchases)(seed, spec, rate)


def _statement(said: Said, plan_: Plan) -> conversation.Statement:
    """The statement as the renderer takes it: text, the topic replies name, stance, holder."""
    index = plan_.holders.get(said.holder or "")
    relation = plan_.persona.holder(index) if index is not None else None
    durations = plan_.spec.domain is not None
    thing = said.subject if durations else said.item
    topic = (f"{relation.poss} " if relation else "the ") + \
        (thing if durations else f"search for {article(thing)} {thing}")
    if said.kind == "quote":
        request = QUOTE_FRAMES[said.frame][0].format(a=f"{article(thing)} {thing}")
        return conversation.Statement(_purchase_text(said, None), topic, STANCES["quote"],
                                      role="assistant", request=request)
    named = plan_.holders.get(said.rel) if said.rel else None
    other = plan_.persona.holder(named) if named is not None else None
    text = (_duration_text(said, plan_.spec.domain or "", relation, other) if durations
            else _purchase_text(said, relation, other))
    stance: conversation.Stance = "state" if durations and said.kind == "own" else \
        STANCES[said.kind]
    return conversation.Statement(text, topic, stance,
                                  holder=f"your {relation.noun}" if relation else None)


RENDER_ATTEMPTS = 40


def render(seed: int, plan_: Plan, tally: engine.Tally | None = None) -> engine.Haystack:
    """Render the plan; redrawn (same statements, a fresh conversation stream) until every gold
    session's role sequence also occurs among the non-gold sessions.

    Why: turn counts vary with the replies drawn (sessions hold 4-12 turns), and V7's role-sequence
    rule refuses a question whose gold session has a sequence no distractor shares, which a rare
    count produces by chance; with up to six gold sessions no gold-blind copy count can rule it out
    in 15-25 distractors. A rendering is redrawn, never edited; V7 and the learned adversary
    measure what the condition leaves."""
    start = datetime(2025, 1, 6)
    times = [start + timedelta(days=d, minutes=c) for d, c in zip(plan_.days, plan_.clocks)]
    sessions = [[_statement(s, plan_) for s in pair] for pair in plan_.said]
    gold = set(plan_.gold)
    for attempt in range(RENDER_ATTEMPTS):
        trial = engine.Tally()
        key = plan_.spec.key if attempt == 0 else f"{plan_.spec.key}#{attempt}"
        stay = conversation.render_haystack(seed, VERTICAL, conversation.HaystackPlan(
            key, sessions, times[:len(sessions)], times[len(sessions)], plan_.persona, BANNED),
            trial)
        shapes = [tuple(t.role for t in session) for session in stay.sessions]
        if {shapes[i] for i in gold} <= {r for i, r in enumerate(shapes) if i not in gold}:
            break
    else:
        raise GenerationError(f"{plan_.spec.key}: no rendering in {RENDER_ATTEMPTS} shares every "
                              "gold role sequence with a distractor")
    if tally is not None:
        tally.add(trial.counts())
    stay.key = plan_.spec.key
    return stay


# --- reading back and checking -------------------------------------------------------------------


def read_haystack(stay: engine.Haystack) -> list[list[Said]]:
    """Per session its statements, read from the rendered text alone (V5): exactly one own
    statement first, then one competitor."""
    out = []
    for index, session in enumerate(stay.sessions):
        found = [s for turn in session for s in read_statements(turn.text)]
        mine = [s for s in found if s.kind == "own"]
        others = [s for s in found if s.kind != "own"]
        if len(mine) != 1 or len(others) != 1:
            raise GenerationError(f"{stay.key}: session {index} holds {len(mine)} own statements "
                                  f"and {len(others)} competitors")
        out.append([mine[0], others[0]])
    return out


def check_plan(stay: engine.Haystack, plan_: Plan, read: Sequence[Sequence[Said]]) -> None:
    """The text says what the plan says, competitors included, each in the turn it was given."""
    for index, (planned, got) in enumerate(zip(plan_.said, read)):
        for s, r, turn in zip(planned, got, stay.piece_turns[index]):
            if s.reading() != r.reading():
                raise GenerationError(f"{stay.key}: session {index} reads {r.reading()}, the "
                                      f"plan says {s.reading()}")
            if s.reading() not in [x.reading() for x in
                                   read_statements(stay.sessions[index][turn].text)]:
                raise GenerationError(f"{stay.key}: session {index}: a statement left its turn")


def check_durations(stay: engine.Haystack, spec: Spec, asked: Sequence[str],
                    read: Sequence[Sequence[Said]]) -> tuple[list[int], list[dict[str, Any]],
                                                             Fraction]:
    """Own lifecycles from the text; every own span the same in calendar and whole elapsed days; a
    declined event only while its item is at home; no other span (own or a relation's) equal to a
    gold span or the total. Returns gold sessions, inputs, total."""
    lives: dict[tuple[str | None, str], list[tuple[int, str]]] = {}
    for index, pair in enumerate(read):
        for s in pair:
            if s.kind != "declined":
                lives.setdefault((s.holder, s.subject), []).append((index, s.event))
    spans: dict[str, int] = {}
    others: list[int] = []
    for (holder, item), seen in lives.items():
        events = [e for _, e in seen]
        if events != ["start", "end"] * (len(events) // 2) + ["start"] * (len(events) % 2) or \
                (holder is None and len(events) > 2):
            raise GenerationError(f"{stay.key}: {holder or 'my'} {item} reads as {seen}")
        for (a, _), (b, _) in zip(seen[0::2], seen[1::2]):
            start, end = stay.times[a], stay.times[b]
            calendar = duration_between(start, end, "days")
            if holder is None and (not end.time() > start.time() or
                                   (end - start).days != calendar):
                raise GenerationError(f"{stay.key}: the {item}'s span differs between calendar "
                                      f"days ({calendar}) and whole elapsed days")
            others.append(int(calendar))
            if holder is None:
                spans[item] = int(calendar)
    for index, pair in enumerate(read):
        s = pair[1]
        seen = lives.get((None, s.subject), [])
        if s.kind == "declined" and seen and seen[0][0] <= index <= (
                seen[1][0] if len(seen) > 1 else len(read)):
            raise GenerationError(f"{stay.key}: session {index} declines to lend the {s.subject} "
                                  "while it is away")
    if any(len(lives.get((None, item), ())) != 2 for item in asked):
        raise GenerationError(f"{stay.key}: an asked item lacks its start or end")
    gold_spans = [spans[item] for item in asked]
    total = sum(gold_spans)
    for span in gold_spans:
        others.remove(span)
    if total < MIN_DURATION_DAYS or any(span in gold_spans or span == total for span in others):
        raise GenerationError(f"{stay.key}: another span equals a gold span or the total")
    inputs = [{"from_session_index": lives[None, a][0][0], "session_index": lives[None, a][1][0],
               "value": spans[a]} for a in asked]
    gold = sorted(i for a in asked for i, _ in lives[None, a])
    return gold, inputs, Fraction(total)


def check_purchases(stay: engine.Haystack, spec: Spec, asked: Sequence[str],
                    read: Sequence[Sequence[Said]]) -> tuple[list[int], list[dict[str, Any]],
                                                             Fraction]:
    """Amounts as read, unique, each named with its shop; gold from the user's own purchases at the
    asked shops only; no coincident subset among every same-unit amount; the total never written.
    Returns gold sessions, inputs, value."""
    for index, (session, pair) in enumerate(zip(stay.sessions, read)):
        amounts = sorted(a.value for turn in session for a in extract_amounts(turn.text))
        if amounts != sorted(Fraction(s.cents, 100) for s in pair):
            raise GenerationError(f"{stay.key}: session {index} states amounts {amounts}")
    flat = [(i, s) for i, pair in enumerate(read) for s in pair]
    if len({s.cents for _, s in flat}) != len(flat):
        raise GenerationError(f"{stay.key}: an amount appears twice in the haystack")
    currency = {s.currency for _, s in flat if s.subject in asked}
    gold = [i for i, pair in enumerate(read) if pair[0].subject in asked]
    if currency != {spec.currency} or {read[i][0].subject for i in gold} != set(asked):
        raise GenerationError(f"{stay.key}: the asked shops do not all bill in the question's "
                              "currency")
    if spec.shape == "counts":
        return gold, [{"session_index": i, "value": 1} for i in gold], Fraction(len(gold))
    signs = {i: 1 if read[i][0].subject == asked[0] else -1 for i in gold}
    value = Fraction(sum(signs[i] * read[i][0].cents for i in gold), 100)
    pool = [(s.cents, signs[i] if s is read[i][0] and i in signs else 0)
            for i, s in flat if s.currency == spec.currency]
    if value <= 0 or _coincidence(pool, int(value * 100), len(gold),
                                  spec.shape == "deltas") is not None:
        raise GenerationError(f"{stay.key}: another subset of amounts reaches the gold")
    if int(value * 100) in {s.cents for _, s in flat}:
        raise GenerationError(f"{stay.key}: the gold total is written in the haystack")
    inputs = [{"session_index": i, "value": float(Fraction(read[i][0].cents, 100)),
               **({"side": "a" if signs[i] > 0 else "b"} if spec.shape == "deltas" else {})}
              for i in gold]
    return gold, inputs, value


# --- records -------------------------------------------------------------------------------------


def _answers(spec: Spec, value: Fraction, inputs: Sequence[dict[str, Any]], asked: Sequence[str],
             read: Sequence[Sequence[Said]]) -> tuple[str, list[str]]:
    """The gold answer and the answers a confused system gives: a competitor of an asked subject
    counted in, an input left out, a day off."""
    rivals = [pair[1] for pair in read if pair[1].subject in asked]
    if spec.shape == "counts":
        n = int(value)
        return f"{n} purchases", sorted({f"{n - 1} purchases", f"{n + 1} purchases",
                                         f"{n + len(rivals)} purchases"} - {f"{n} purchases"})
    if spec.shape == "durations":
        n = int(value)
        return f"{n} days", [f"{n + 1} days", f"{n - 1} days"]
    assert spec.currency is not None
    cents = int(value * 100)
    sign = {asked[0]: 1, asked[-1]: -1 if spec.shape == "deltas" else 1}
    confused = {cents + sign[s.subject] * s.cents for s in rivals}
    confused |= {cents - (-1 if i.get("side") == "b" else 1)
                 * int(Fraction(i["value"]).limit_denominator(100) * 100) for i in inputs}
    return format_amount(cents, spec.currency), [format_amount(c, spec.currency)
                                                 for c in sorted(confused - {cents}) if c > 0]


def build_record(seed: int, spec: Spec, rate: float, tally: engine.Tally | None = None
                 ) -> dict[str, Any]:
    """Plan, render, read every statement back from the text and check every rule of a question."""
    plan_ = plan(seed, spec, rate)
    if spec.shape != "durations":  # the question's currency is the asked unit's, drawn with it
        spec = replace(spec, currency=plan_.currency)
    stay = render(seed, plan_, tally)
    engine.check_haystack(stay, digits_allowed=spec.shape != "durations")
    if not H_RANGE[0] <= len(stay.sessions) - spec.g <= H_RANGE[1]:
        raise GenerationError(f"{spec.key}: H outside {H_RANGE}")
    read = read_haystack(stay)
    check_plan(stay, plan_, read)
    asked = plan_.asked
    question = question_text(spec, asked)
    if spec.shape == "durations":
        texts = [question, *(turn.text for session in stay.sessions for turn in session)]
        if any(v4_findings(text, "calendar") for text in texts) or \
                talk.NUMBER_WORDS & set(raw_tokens(" ".join(texts))):
            raise GenerationError(f"{spec.key}: a date or number word in a duration haystack")
        gold, inputs, value = check_durations(stay, spec, asked, read)
    else:
        gold, inputs, value = check_purchases(stay, spec, asked, read)
    if gold != plan_.gold or value != plan_.value:
        raise GenerationError(f"{spec.key}: the text reads as {gold} -> {value}, the plan says "
                              f"{plan_.gold} -> {plan_.value}")
    unit = {"counts": "purchases", "durations": "days"}.get(spec.shape, spec.currency or "")
    answer, wrong = _answers(spec, value, inputs, asked, read)
    block: dict[str, Any] = {
        "answer_key": engine.answer_key(numeric={"value": float(value), "unit": unit,
                                                 "tolerance": 0.0}, wrong=wrong),
        "derivation": {"operation": OPERATIONS[spec.shape], "inputs": inputs,
                       "value": float(value), "unit": unit},
        "gold_components_load_bearing": True,
        "dial": {"name": "inputs", "value": len(gold)},
        "difficulty": BAND_OF_INPUTS[len(gold)]}
    if spec.shape == "counts":
        block["count_predicate"] = COUNT_PREDICATE.format(a=asked[0])
        block["candidates"] = [
            {"session_index": i, "matches": s.kind == "own" and s.subject == asked[0],
             "label": f"{article(s.item)} {s.item} from {s.subject}"
                      + ("" if s.kind == "own" else f" ({s.holder or 'I'}: {s.kind})")}
            for i, pair in enumerate(read) for s in pair]
    record = engine.record(stay, question_id=final_ids(seed)[spec.key], vertical=VERTICAL,
                           shape=spec.shape, memory_type=MEMORY_TYPE, question=question,
                           answer=answer, gold=[(s, 0) for s in gold], block=block)
    engine.judge_gold(record, wrong_answers=wrong)
    parsed_record = QuestionRecord.model_validate(record)
    found = leaks.scan_view(parsed_record, adapter_view(parsed_record), vertical=VERTICAL)
    if found:
        raise GenerationError(f"{spec.key}: leak {found[0].rule}: {found[0].value!r}")
    return record


@lru_cache(maxsize=8)
def final_ids(seed: int) -> dict[str, str]:
    """Provisional key -> opaque id, permuted over the whole corpus layout (never over only the
    shapes being built, so a shape's ids do not depend on which others are built)."""
    stubs = [{"question_id": spec.key, "key": spec.key}
             for shape in SHAPES for spec in layout(seed)[shape]]
    engine.assign_ids(stubs, seed=seed, vertical=VERTICAL, abbrev=ABBREV)
    return {stub["key"]: stub["question_id"] for stub in stubs}


@lru_cache(maxsize=256)
def _shape_records(seed: int, shape: str, rate: float
                   ) -> tuple[tuple[str, ...], tuple[int, int, int]]:
    """One shape's records as JSON (cached: the search moves one shape's dial at a time)."""
    tally = engine.Tally()
    texts = tuple(json.dumps(build_record(seed, spec, rate, tally), ensure_ascii=False)
                  for spec in layout(seed)[shape])
    return texts, tally.counts()


def build(seed: int, competition_by_shape: Mapping[str, float], *,
          shapes: Sequence[str] = SHAPES) -> engine.Built:
    """The corpus records in id order and the rendering tally (deterministic in seed and dial)."""
    records: list[dict[str, Any]] = []
    tally = engine.Tally()
    for shape in SHAPES:
        if shape in shapes:
            texts, counts = _shape_records(seed, shape, float(competition_by_shape[shape]))
            records += [json.loads(text) for text in texts]
            tally.add(counts)
    records.sort(key=lambda r: r["question_id"])
    if len({r["question"] for r in records}) != len(records):
        raise GenerationError("two questions read the same")
    if set(shapes) >= set(SHAPES):
        drop = FRAME_WORDS | TRADE_WORDS
        engine.check_rarity(records, {r["question_id"]: engine.question_terms(r["question"],
                                                                              drop=drop)
                                      for r in records})
    return engine.Built(engine.finish(records), tally)


ADVERSARY_ROUNDS = 6
READER_SEEDS = (0, 1, 2)
"""Seed offsets whose builds the search reads the subject-and-value reader on, averaged: on one
seed's 10-14 questions a shape's reader moves by 0.07-0.10 a question, and a search that read the
shipped seed alone chose points where that seed happened to land under the margin (the first
revision-3 rebuild after the second red team passed at sums dial 0.25 with reader 0.50 on the
shipped seed, 0.64 and 0.86 on the next two)."""
READER_MARGIN = 0.50
"""The search keeps only dials whose subject-and-value reader (GATES.md §7) puts gold at rank 1 in
at most this share of the shape's questions, averaged over the builds of :data:`READER_SEEDS`:
a margin under the gate's 0.60, because in these
shapes the reader's gold@1 is the share of gold among the sessions naming the asked subject, and
on 10-14 questions one question moves it by 0.07-0.10. The gate's own bound is not changed."""


def search_dial(seed: int) -> dict[str, Any]:
    """The authoring search (sweep, then bisection; :mod:`..calibration`) per calibrated shape in
    order, each point scored by the reference BM25, the maximum over the whole lexical panel of
    Appendix D and the subject-and-value reader; the choice is the point closest to the target
    whose panel maximum is under the ceiling and whose reader is within :data:`READER_MARGIN`;
    then the whole corpus at those dials must pass every adversary of GATES.md §7, or a failing
    shape takes its next allowed point (recorded in ``adversary_rejected``). The dense and hybrid
    arms are measured at generation and gated."""
    from ...gates import adversaries
    from ...gates.calibration import SATURATION_CEILING
    from ...retrieval import panel
    from .. import calibration

    dial = {shape: calibration.START_DIAL for shape in SHAPES}
    searches: dict[str, calibration.ShapeSearch] = {}
    readers: dict[str, dict[float, float]] = {}
    ranked: dict[str, list[tuple[float, float]]] = {}
    for shape in CALIBRATED_SHAPES:
        reader = readers.setdefault(shape, {})

        def evaluate(value: float, shape: str = shape) -> tuple[float, float]:
            chosen = [QuestionRecord.model_validate(r) for r in
                      build(seed, {**dial, shape: value}, shapes=(shape,)).records]
            reference = calibration.shape_coverage(chosen, shape)
            assert reference is not None
            best = max(panel.mean_by_shape(chosen, panel.coverage_by_question(chosen, r))[shape]
                       or 0.0 for r in panel.WHOLE_LEXICAL_PANEL)
            row = adversaries.measure(chosen)[0]["by_shape"][shape]["subject_value_reader"]
            figures = [float(row["gold_at_1"])]
            for extra in READER_SEEDS[1:]:  # the reader's expectation, not one seed's luck
                other = [QuestionRecord.model_validate(r) for r in
                         build(seed + extra, {**dial, shape: value}, shapes=(shape,)).records]
                figures.append(float(adversaries.measure(other)[0]["by_shape"][shape]
                                     ["subject_value_reader"]["gold_at_1"]))
            reader[value] = sum(figures) / len(figures)
            return reference, best

        search = calibration.search_shape(evaluate, shape)
        allowed = [(d, c) for d, c in search.points if c <= SATURATION_CEILING
                   and search.panel_max[d] <= SATURATION_CEILING and reader[d] <= READER_MARGIN]
        if not allowed:
            raise GenerationError(f"{shape}: no searched dial keeps the panel under the ceiling "
                                  f"and the subject-and-value reader within {READER_MARGIN}")
        ranked[shape] = sorted(allowed, key=lambda point: (
            round(abs(point[1] - calibration.TARGET), 9), point[0]))
        search.dial, search.coverage = ranked[shape][0]
        searches[shape] = search
        dial[shape] = search.dial
    # The whole corpus at the chosen dials must pass every adversary (the learned one trains across
    # shapes): a shape that fails moves to its next allowed point, in order of closeness.
    rejected: list[list[Any]] = []
    for _ in range(ADVERSARY_ROUNDS):
        records = [QuestionRecord.model_validate(r) for r in build(seed, dial).records]
        failing = sorted({f.shape for f in adversaries.measure(records)[1]})
        if not failing:
            break
        for shape in failing:
            rejected.append([shape, dial[shape]])
            ranked[shape] = ranked[shape][1:]
            if not ranked[shape]:
                raise GenerationError(f"{shape}: every allowed dial fails an adversary")
            searches[shape].dial, searches[shape].coverage = ranked[shape][0]
            dial[shape] = searches[shape].dial
    else:
        raise GenerationError(f"no dials within {ADVERSARY_ROUNDS} rounds pass every adversary")
    result = calibration.CalibrationResult(dial, searches, 0.0).record()
    result["panel"] = [r.name for r in panel.WHOLE_LEXICAL_PANEL]
    result["reader_margin"] = READER_MARGIN
    result["reader_seeds"] = [seed + extra for extra in READER_SEEDS]
    result["adversary_rejected"] = rejected
    for shape, reader in readers.items():
        result["by_shape"][shape]["subject_value_reader"] = [[d, round(v, 6)]
                                                             for d, v in reader.items()]
    return result


_assert_banks()

__all__ = ["ABBREV", "CALIBRATED_SHAPES", "GENERATOR", "GENERATOR_VERSION",
           "RECORDED_COMPETITION", "REVISION", "SEED", "SHAPES", "VERTICAL", "build",
           "build_record", "layout", "plan", "read_haystack", "read_statements", "search_dial"]
