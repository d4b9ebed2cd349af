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
:data:`ITEMS`, amounts in the bought object's price band (:data:`PRICE_BANDS`, inside
:data:`AMOUNT_CENTS`, 100.00-999.99, equal digit counts) whatever the statement's role. A haystack draws them all first; which unit the question asks is decided
afterwards.

**Askable units alike (revision 3, second red team).** The first red team of v3 ranked sessions
question-blind by "an own purchase x how many own purchases its shop has x +10 in the haystack's
rarest currency" (gold@1 counts 0.79, deltas 0.60, sums 0.43): the asked shop had the most own
purchases (decoys got competitors at its rate but not own purchases), and asked-shop competitors
past the same-unit cap were moved to other currencies, so the asked currency was the rarest. Now a
purchase haystack holds :data:`TRACKED_UNITS` askable units (a shop; for deltas a pair of shops of
one currency), each with an own-purchase count drawn from the shape's ladder, a currency from a
rotation over the three, and mentions drawn on the dial's span whatever its own count; the asked
unit is drawn uniformly among them after the draw (the question's currency is its unit's). Rival
shops (1-2 own purchases each) and every other competitor (about a rival or a competitor-only shop)
are dealt to the least-loaded currency, blind to which unit is asked, so currencies hold nearly
equal value counts (a draw where any currency passes :data:`SAME_UNIT_CAP` is redrawn whole,
whichever is asked). Durations track the asked items and as many decoys (every item has a full
lifecycle).

**Anatomy** (every session alike, gold or not): exactly one *own* statement -- a purchase of the
user's, or an item of the user's lent out / sent for repair or coming back -- and exactly one
*competitor* about another subject of the haystack, plus drawn small talk, in a drawn order
(:func:`..conversation.render_haystack`, one persona per haystack).

**Competitor kinds** (Appendix D row 2: each holds a value of the asked type and says plainly why
it does not answer). Purchases: ``holder`` -- a persona relation's purchase; ``declined`` -- the
user's near-purchase; ``quote`` -- a price the assistant gives and the user turns down.
Durations: ``holder`` -- a relation's own item of the same noun lent out or sent for repair (and
back); ``declined`` -- a loan or repair of the user's item that did not happen, only while the
item is at home. The kind mix (:data:`KIND_WEIGHTS`) is fixed.

**One bank of shapes for every role** (the episode form reader, revision 3 rebuild). A statement
is an opening sentence naming one of the persona's relations (:data:`INTROS_PURCHASE`,
:data:`INTROS_DURATION`, composed with a time of day; the quote's from :data:`QUOTE_INTROS`, as
long), then its core sentence, then on :data:`FOLLOW_SHARE` a value-free follow-up sentence
(:data:`PURCHASE_FOLLOWS`, :data:`DURATION_FOLLOWS`); a quote's answer may open on a pair of short
sentences on :data:`PREFIX_SHARE` (the share of user statements that open on an acknowledgement
and a change of subject); every user statement's reply asks a question on :data:`ASK_SHARE`. None
of these draws looks at the role. The role chooses only the words: each row of
:data:`PURCHASE_ROWS` (and :data:`DURATION_ROWS`, the follow-up banks) holds one version per role
with the same words, commas, other punctuation and value-like tokens and letters within
:data:`LETTER_SLACK`, no version opening on its actor, and every purchase core has one length
(checked at import, :func:`_assert_forms`). **One frame bank for own and other holders** (red
team 32): the user's own statement and a relation's are ONE template (:data:`PURCHASE_FRAMES`,
:data:`DURATION_FRAMES`, in :mod:`.arithmetic_bank`) whose holder slots ("I" / "she", "my" /
"her", "me" / "him") are the only words that differ -- before, twin templates differing in
words that say nothing about who acted ("just as planned" / "just as agreed") let a frame table,
pronouns masked, or even the words' lengths, find every own purchase (gold@1 1.000). The shipped Arithmetic before this rebuild
(``8677ab2c…``) wrote the user's own purchases mostly in one sentence and competitors often in two
("… in the window at $944.69. I kept walking."), put relations' statements after an introducing
sentence, and drew replies whose length differed by stance, so an episode's length said whose it
was (the coordinator's episode view: sums gold@1 0.93 against 0.57).

**The dial** (:data:`RECORDED_COMPETITION`). Purchases (revision 3, red team 23): the user's
sentences naming a tracked shop (its own purchases, relations' and declined ones) are drawn
uniformly on :func:`mention_span` -- from one above the most own purchases a tracked shop can hold,
upwards by dial x :data:`PER_INPUT` x a third of that top -- whatever the shop's own count, plus
0-1 assistant quotes; its competitors are what is left. Before, competitors were dial x
:data:`PER_INPUT` x its own purchases, scaled into the sessions, so the mentions n tracked G and
"ceil(n / 2)" answered counts 10 of 14. For durations, competitors about the tracked items = dial x
:data:`PER_INPUT` x (their own statements). The search (:func:`search_dial`) scores each point by
the reference BM25, the maximum over the whole lexical panel and the subject-and-value reader,
keeps only points whose reader is within :data:`READER_MARGIN`, and checks the chosen corpus
against every adversary; dense and hybrid are measured and stamped at generation.

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
from ...gates.adversary_tables import frame_tokens, length_tokens
from ...gates.arithmetic_checks import (SUBSET_EXTRA, SubsetItem, duration_between,
                                        extract_amounts, find_coincident_subset)
from ...gates.structure import v4_findings
from ...adapter.projection import adapter_view
from ...retrieval.tokenizer import raw_tokens, tokenize
from ...retrieval.values import value_like_tokens
from .. import conversation, engine, talk, values
from .. import episodes_bank as bank
from ..length_balance import length_sequence_imbalance
from ..primitives import GenerationError, article, assert_disjoint, derive_rng, dither
from .arithmetic_bank import (  # noqa: F401 -- the banks are part of the declaration's API
    PRICE_BANDS, TRADE_ITEMS, PRICE_BAND_OF, PLURAL_ITEMS, PURCHASE_ITEMS, ITEMS, PURCHASE_FRAMES,
    PURCHASE_ROWS, PURCHASE_FOLLOW_FRAMES, PURCHASE_FOLLOWS, WHEN_PURCHASE, INTROS_PURCHASE,
    QUOTE_INTROS, QUOTE_WHEN, QUOTE_REQUESTS, QUOTE_PREFIXES, DURATION_FRAMES, DURATION_ROWS,
    DURATION_FOLLOWS, WHEN_DURATION, INTROS_DURATION)

VERTICAL = "arithmetic"
ABBREV = "ari"
GENERATOR = "pytest_typedmemeval.generate.verticals.arithmetic"
GENERATOR_VERSION = "3"
REVISION = 3
SEED = 20260503
SHAPES: tuple[str, ...] = ("counts", "sums", "deltas", "durations")
CALIBRATED_SHAPES = SHAPES
RECORDED_COMPETITION: dict[str, float] = {"counts": 0.875, "sums": 0.5,
                                          "deltas": 0.0, "durations": 1.0}
"""Per shape, the dial: for purchases the width of :func:`mention_span`, for durations competitors
about each tracked item = dial x :data:`PER_INPUT` x (its own statements), as recorded by
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
gets an own-purchase count drawn from the shape's ladder and mentions on the dial's span, and
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
AMOUNT_ATTEMPTS = 2000
"""Draws of a purchase haystack's amounts before it is given up: amounts in price bands
(:data:`PRICE_BANDS`) sit closer together than over the whole range, so a subset reaching the
gold (or a total inside a written amount) is refused more often; a draw that succeeded within
:data:`ATTEMPTS` is the same draw."""
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

FOLLOW_SHARE = 0.5
"""Share of statements, of every role alike, that a value-free sentence follows
(:data:`PURCHASE_FOLLOWS`, :data:`DURATION_FOLLOWS`)."""
ASK_SHARE = 0.5
"""Share of user statements, of every role alike, whose reply asks the user a question (and so
runs to four turns rather than two): the reply banks' own shares differ by stance (own purchases
0.57, declined 0.43), which made an episode's length, and so its statement's place in the
session, say whose statement it is."""


def _opens_session_share(weights: Sequence[tuple[int, float]]) -> float:
    """The chance that a statement episode opens its session when the session holds two
    statements and a drawn number of small-talk episodes (at most one beside two statements), in a
    shuffled order (:func:`..conversation.render_session`)."""
    return sum(w / (2 + min(k, 1)) for k, w in weights)


PREFIX_SHARE = 1.0 - _opens_session_share(conversation.SMALL_TALK_WEIGHTS)
"""Share of quotes whose answer opens on two short sentences (:data:`QUOTE_PREFIXES`): the share
of user statements that open on an acknowledgement and a change of subject (every statement episode
but the session's first; no assistant leads in this vertical), computed from the renderer's
small-talk weights, so a statement turn holds as many sentences whoever's statement it is."""

QUESTIONS = {"counts": "How many times did I buy something from {a}?",
             "sums": "How much did I spend at {a} altogether?",
             "deltas": "How much more did I spend at {a} than at {b}?",
             "loan": "How many days in total {verb} {items} out on loan?",
             "repair": "How many days in total {verb} {items} away for repair?"}
COUNT_PREDICATE = "buy something from {a}"
REPLY_STANCE: conversation.Stance = "noted"
"""The one reply bank every user statement takes, whoever's it is and whatever its stance (red
team 25): the user's own purchase or loan, a relation's, a declined one. Before, the bank was
chosen by the statement's stance ("arranged" for own purchases, "state" for own loans, "other",
"declined"), so the first sentence of the assistant's reply, item, shop and person masked, fell
into 85 frames none of which occurred after both gold and competitor events, and a lookup learned
on half the questions put gold at rank 1 in all of the other half (290 of 290 events). One bank of
acknowledgements that fit any of these statements, drawn with the same distribution for every
role, leaves the reply nothing to say about whose event it was; the stance is said once, in the
user's own words, which a memory has to read."""
REPLY_AVOID: tuple[str, ...] = ("covered", "accounted for")
"""Replies of the bank that would misfit some role ("that is the lathe covered" after a
declined lathe, "accounted for" after a relation's purchase): never drawn, for any role alike."""
QUOTE_STANCE: conversation.Stance = "assistant-offer-declined"
"""An assistant quote is turned down by the user (its own episode form, the assistant's
statement), the same for every quote."""

QUESTION_TERMS = frozenset(t for f in QUESTIONS.values()
                           for t in tokenize(re.sub(r"\{\w+\}", " ", f)))
TRADE_WORDS = frozenset(t.lower() for t in values.TRADES)
BANNED = (QUESTION_TERMS | frozenset(PURCHASE_ITEMS) | frozenset(ITEMS) | talk.NUMBER_WORDS
          | {"search", "shop", "judge", "judges"})
"""Words small talk must not use: question words, the objects statements name, number words
(ordinals too: duration text holds none), and "judge(s)" (a field name of the answer-key
vocabulary the leak gate refuses in anything the adapter reads)."""

PURCHASE_COLUMN = {"own": 0, "holder": 1, "declined": 2, "quote": 3}
DURATION_COLUMN = {("own", "start"): 0, ("own", "end"): 1, ("declined", "refusal"): 2,
                   ("holder", "start"): 3, ("holder", "end"): 4}
"""Which version of a row a statement takes (:data:`PURCHASE_ROWS`, :data:`DURATION_ROWS`)."""
LETTER_SLACK = 2
"""Versions of one row hold the same words, commas, other punctuation and value-like tokens, and
letters within this many of each other (a relation's "she" is two letters longer than "I")."""


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
    item: str = ""
    """The object bought."""
    cents: int = 0
    currency: str = ""
    frame: int = 0
    """The row of its bank (:data:`PURCHASE_ROWS`, :data:`DURATION_ROWS`)."""
    rel: str = ""
    """The relation its opening sentence names (a holder's is the holder)."""
    intro: int = 0
    when: int = 0
    follow: int = -1
    """Row of the follow-up bank, or -1 for none."""
    prefix: int = -1
    """A quote's opening pair (:data:`QUOTE_PREFIXES`, acknowledgement x 6 + sentence) or -1."""
    request: int = 0
    ask: bool = False
    """Whether the assistant's reply to it asks a question (user statements; drawn alike for
    every role, :data:`ASK_SHARE`)."""

    def reading(self) -> tuple[Any, ...]:
        return (self.kind, self.subject, self.event, self.holder, self.item, self.cents,
                self.currency, self.rel)


def format_amount(cents: int, currency: str) -> str:
    whole, frac = divmod(cents, 100)
    return f"{CURRENCIES[currency]}{whole:,}.{frac:02d}"


def _actor(relation: bank.Relation | None) -> dict[str, str]:
    """Slots naming who acts, never at a sentence's start: the user, or a relation's pronouns."""
    if relation is None:
        return {"i": "I", "me": "me", "my": "my", "the": "my"}
    return {"i": relation.subj, "me": relation.obj, "my": relation.poss, "the": relation.poss}


_NOUNS = tuple(sorted({r.noun for r in bank.RELATIONS.values()}, key=lambda n: (-len(n), n)))
_PRONOUN_SETS: tuple[bank.Relation, ...] = tuple(sorted(
    {(r.subj, r.obj, r.poss): r for r in bank.RELATIONS.values()}.values(), key=lambda r: r.subj))
"""One relation per set of pronouns: a core names its actor by pronoun only (the noun is in the
opening sentence), so a holder core reads alike for every relation of one gender."""
_GROUPS = {"a": r"(?P<a>an? [a-z]+)", "A": r"(?P<A>An? [a-z]+)",
           "shop": r"(?P<shop>[A-Z][a-z]+ [A-Z][a-z]+)", "v": r"(?P<v>[$€£]\d{3}\.\d{2})",
           "item": r"(?P<item>[a-z]+)"}


def _compile(template: str, relation: bank.Relation | None) -> re.Pattern[str]:
    marks = {name: f"QQ{name}QQ" for name in _GROUPS}
    pattern = re.escape(template.format(**_actor(relation), **marks))
    for name, group in _GROUPS.items():
        pattern = pattern.replace(marks[name], group, 1).replace(marks[name], f"(?P={name})")
    return re.compile(r"(?<![A-Za-z])" + pattern)


def _intro_pattern(template: str, whens: Sequence[str]) -> re.Pattern[str]:
    marks = {"rel": "QQrelQQ", "when": "QQwhenQQ"}
    pattern = re.escape(template.format(**marks))
    pattern = pattern.replace(marks["rel"], "(?P<rel>" + "|".join(map(re.escape, _NOUNS)) + ")")
    pattern = pattern.replace(marks["when"], "(?:" + "|".join(map(re.escape, whens)) + ")")
    return re.compile(r"(?:^|(?<= ))" + pattern + r" \Z")


_INTRO_PATTERNS: dict[str, tuple[re.Pattern[str], ...]] = {
    "purchase": tuple(_intro_pattern(t, WHEN_PURCHASE) for t in INTROS_PURCHASE),
    "quote": tuple(_intro_pattern(t, QUOTE_WHEN) for t in QUOTE_INTROS),
    "duration": tuple(_intro_pattern(t, WHEN_DURATION) for t in INTROS_DURATION)}


def _patterns() -> list[tuple[str, str, str, re.Pattern[str]]]:
    """(kind, event, intro bank, pattern) for every core a statement can take."""
    out: list[tuple[str, str, str, re.Pattern[str]]] = []
    for row in PURCHASE_ROWS:
        for kind, col in PURCHASE_COLUMN.items():
            actors = _PRONOUN_SETS if kind == "holder" else (None,)
            out += [(kind, "purchase", "quote" if kind == "quote" else "purchase",
                     _compile(row[col], r)) for r in actors]
    for rows in DURATION_ROWS.values():
        for row in rows:
            for (kind, event), col in DURATION_COLUMN.items():
                actors = _PRONOUN_SETS if kind == "holder" else (None,)
                out += [(kind, event, "duration", _compile(row[col], r)) for r in actors]
    return out


_PATTERNS = _patterns()


def _intro_rel(intros: str, before: str) -> str:
    """The relation named by the opening sentence that ends right before a core ("" if none)."""
    for pattern in _INTRO_PATTERNS[intros]:
        m = pattern.search(before)
        if m:
            return m.group("rel")
    return ""


def read_statements(text: str) -> list[Said]:
    """Every statement any construction could have produced in ``text``, in text order: its core
    and the relation its opening sentence names (a holder's is that relation)."""
    if not (any(d in text for d in DURATION_ROWS) or any(s in text for s in CURRENCY_OF)):
        return []
    found: list[tuple[int, Said]] = []
    for kind, event, intros, pattern in _PATTERNS:
        for m in pattern.finditer(text):
            groups = m.groupdict()
            rel = _intro_rel(intros, text[:m.start()])
            holder = (rel or "?") if kind == "holder" else None
            if event != "purchase":
                found.append((m.start(), Said(kind, groups["item"], event, holder, rel=rel)))
                continue
            thing = (groups.get("a") or groups.get("A") or "").split()
            if not thing or thing[0].lower() != article(thing[1]):
                continue
            value = groups["v"]
            found.append((m.start(), Said(kind, groups["shop"], event, holder, thing[1],
                                          int(Decimal(value[1:]) * 100), CURRENCY_OF[value[0]],
                                          rel=rel)))
    return [said for _, said in sorted(found, key=lambda item: item[0])]


_FRAME_TEXT = [*(f for row in PURCHASE_ROWS for f in row),
               *(f for row in PURCHASE_FOLLOWS for f in row),
               *INTROS_PURCHASE, *QUOTE_INTROS, *WHEN_PURCHASE, *QUOTE_WHEN, *QUOTE_REQUESTS,
               *(f for part in QUOTE_PREFIXES for f in part),
               *(f for rows in DURATION_ROWS.values() for row in rows for f in row),
               *(f for row in DURATION_FOLLOWS for f in row), *INTROS_DURATION, *WHEN_DURATION,
               *QUESTIONS.values(), COUNT_PREDICATE]
FRAME_WORDS = frozenset(t for f in _FRAME_TEXT for t in raw_tokens(re.sub(r"\{\w+\}", " ", f)))

_SAMPLE = {"a": "a settee", "A": "A settee", "shop": "Pellow Hardware", "v": "$412.80",
           "item": "ladder"}
_OTHER_PUNCTUATION = re.compile(r"[:;!?()\"'\u2013\u2014-]")


def form_profile(sentence: str) -> tuple[int, int, int, int]:
    """Words, commas, other punctuation and value-like tokens of a sentence that follows another
    (as a core or follow-up always does: an opening "She" counts as value-like, "I" does not)."""
    return (len(sentence.split()), sentence.count(","), len(_OTHER_PUNCTUATION.findall(sentence)),
            len(value_like_tokens("So. " + sentence)) )


OWN_TWIN = {1: 0, 3: 0, 4: 1}
"""A relation's column -> the user's column whose template it is (:data:`PURCHASE_COLUMN`,
:data:`DURATION_COLUMN`)."""
_HOLDER_WORDS = re.compile(r"\b(?:I|me|my|she|he|her|him|his)\b")


def mask_holder(sentence: str) -> str:
    """The sentence with every holder word ("I", "she", "my", "her", ...) as "P": red team 32's
    view, under which the user's own and a relation's statements must read the same."""
    return _HOLDER_WORDS.sub("P", sentence)


def letters(sentence: str) -> int:
    return sum(c.isalpha() for c in sentence)


def row_versions(row: Sequence[str], holder_columns: Sequence[int]) -> list[tuple[int, str]]:
    """(column, text) for every version of a row: the user's columns once, a relation's columns
    once per set of pronouns."""
    out: list[tuple[int, str]] = []
    for col, template in enumerate(row):
        actors = _PRONOUN_SETS if col in holder_columns else (None,)
        out += [(col, template.format(**_actor(r), **_SAMPLE)) for r in actors]
    return out


def _assert_forms() -> None:
    """One bank of shapes for every role: every version of a row (a statement row, a follow-up
    row) holds the same words, commas, other punctuation and value-like tokens, for every actor,
    and letters within :data:`LETTER_SLACK` of its reference (purchases: the user's own version;
    durations: a relation's versions the user's of the same event, the declined one the mean of
    sent-away and back); no version opens on "I" or an actor slot; quote openers word for word
    as long as the user's, letters within the slack."""
    banks: list[tuple[Sequence[Sequence[str]], tuple[int, ...], str]] = [
        (PURCHASE_ROWS, (1,), "purchase"), (PURCHASE_FOLLOWS, (1,), "purchase"),
        (DURATION_FOLLOWS, (), "duration3"),
        *((rows, (3, 4), "duration5") for rows in DURATION_ROWS.values())]
    for rows, holder_columns, kind in banks:
        for row in rows:
            versions = row_versions(row, holder_columns)
            assert len({form_profile(text) for _, text in versions}) == 1, versions
            assert not any(t.split()[0] == "I" or t.startswith("{") for t in row), row
            for col in holder_columns:
                assert row[col] == row[OWN_TWIN[col]], (row[col], row[OWN_TWIN[col]])
            own = {col: letters(text) for col, text in versions if col not in holder_columns}
            for col, text in versions:
                if col in holder_columns:
                    continue  # the own version's template: only the holder words differ
                if kind == "purchase" or (kind == "duration5" and col == 2):
                    reference = float(own[0])  # a declined duration: the sent-away's twin
                elif col == 2:
                    reference = (own[0] + own[1]) / 2
                else:
                    reference = float(own[{3: 0, 4: 1}.get(col, col)])
                assert abs(letters(text) - reference) <= LETTER_SLACK, (text, reference)
    for rows, holder_columns in ((PURCHASE_ROWS, (1,)), (PURCHASE_FOLLOWS, (1,)),
                                 *((rows, (3, 4)) for rows in DURATION_ROWS.values())):
        acted = {"own": [mask_holder(row[OWN_TWIN[c]].format(**_actor(None), **_SAMPLE))
                         for row in rows for c in holder_columns],
                 **{f"holder {r.subj}": [mask_holder(row[c].format(**_actor(r), **_SAMPLE))
                                         for row in rows for c in holder_columns]
                    for r in _PRONOUN_SETS}}
        assert not length_sequence_imbalance(acted), length_sequence_imbalance(acted)
        assert len({tuple(lines) for lines in acted.values()}) == 1, acted
    _assert_stance_twins()
    core = {len(t.format(**_actor(None), **_SAMPLE).split()) for row in PURCHASE_ROWS for t in row}
    assert len(core) == 1, f"purchase cores of {sorted(core)} words: one length for every row"
    for user, quote in zip(INTROS_PURCHASE, QUOTE_INTROS, strict=True):
        a, b = user.format(rel="", when=""), quote.format(rel="", when="")
        assert len(user.split()) == len(quote.split()) and \
            abs(letters(a) - letters(b)) <= LETTER_SLACK, (user, quote)


STANCE_TWIN = {"purchase": (PURCHASE_COLUMN["own"], PURCHASE_COLUMN["declined"]),
               "duration": (DURATION_COLUMN[("own", "start")],
                            DURATION_COLUMN[("declined", "refusal")])}
"""Per bank, (acted column, declined column) whose frames must be word-length twins: a declined
purchase the length twin of an acted purchase, a declined loan or repair that of an item sent
away (:func:`_assert_stance_twins`)."""


def table_length_frame(sentence: str) -> tuple[str, ...]:
    """A sentence as the adversary gate's word-length table reads it
    (:func:`.adversary_tables.length_tokens` of :func:`.adversary_tables.frame_tokens`), with
    the item's and the shop's words as the subject: what must not tell a decline from a deed."""
    subject = set(tokenize(_SAMPLE["shop"])) | set(tokenize(_SAMPLE["item"]))
    return length_tokens(frame_tokens(sentence, subject))


def _assert_stance_twins() -> None:
    """Why: the gate's word-length frame table refused ``f6e3c44c…`` (pooled AUC 0.6503) because
    the declined statements used frames whose word-length sequences no acted statement shared (12
    competitor-only length frames), so the decline stance could be read from word lengths alone.
    Every declined frame is now its acted twin with the stance words swapped for words of the same
    lengths ("finally ordered" / "finally refused", "decided to loan" / "refused to loan"): the
    stance stays readable as words, never as lengths. Checked two ways: exact word lengths
    (:func:`.length_balance.length_sequence_imbalance`, every sequence the same share of the acted
    and the declined bank) and the gate's own table view (:func:`table_length_frame`: holders,
    values, subject and "a <noun>" masked)."""
    banks = [("purchase", PURCHASE_ROWS),
             *(("duration", rows) for rows in DURATION_ROWS.values())]
    for kind, rows in banks:
        acted_col, declined_col = STANCE_TWIN[kind]
        rendered = {role: [row[col].format(**_actor(None), **_SAMPLE) for row in rows]
                    for role, col in (("acted", acted_col), ("declined", declined_col))}
        assert not length_sequence_imbalance(rendered), length_sequence_imbalance(rendered)
        for acted, declined in zip(rendered["acted"], rendered["declined"], strict=True):
            assert acted != declined and table_length_frame(acted) == table_length_frame(
                declined), (acted, declined)


def _reads_as(text: str, said: Said) -> bool:
    return [r.reading() for r in read_statements(text)] == [said.reading()]


def _assert_banks() -> None:
    """Import-time checks: banks disjoint; every version of a row (and of a follow-up row) holds
    the same words, commas, other punctuation and value-like tokens, for every actor, and opens on
    no pronoun; quote openers as long as the user's; and every construction, for every actor,
    with and without its follow-up, reads back as exactly the statement it renders."""
    assert_disjoint("purchase items", PURCHASE_ITEMS, "items", ITEMS)
    objects = set(PURCHASE_ITEMS + ITEMS)
    assert_disjoint("objects", objects, "frames", FRAME_WORDS)
    assert_disjoint("objects and frames", objects | FRAME_WORDS, "numbers", talk.NUMBER_WORDS)
    assert_disjoint("objects", objects, "value words", values.pool_words())
    assert set(TRADE_ITEMS) == set(values.TRADES) and len(set(ITEMS)) == len(ITEMS)
    assert all(len(set(items)) == len(items) >= 12 for items in TRADE_ITEMS.values())
    _assert_forms()
    relation = bank.RELATIONS["sister"]
    for kind in ("own", "holder", "declined", "quote"):
        for index in range(len(PURCHASE_ROWS)):
            for follow in (-1, index % len(PURCHASE_FOLLOWS)):
                said = Said(kind, "Pellow Hardware", "purchase",
                            "sister" if kind == "holder" else None, "easel", 41280,
                            "USD", index, rel="sister", intro=index % len(INTROS_PURCHASE),
                            when=index % len(WHEN_PURCHASE), follow=follow,
                            prefix=index if kind == "quote" else -1)
                text = _statement_text(said, None, relation if kind == "holder" else None)
                assert _reads_as(text, said), (kind, text)
    for domain, rows in DURATION_ROWS.items():
        for index in range(len(rows)):
            for kind, event in (("own", "start"), ("own", "end"), ("holder", "start"),
                                ("holder", "end"), ("declined", "refusal")):
                for follow in (-1, index % len(DURATION_FOLLOWS)):
                    said = Said(kind, "ladder", event, "brother" if kind == "holder" else None,
                                frame=index, rel="brother", intro=index % len(INTROS_DURATION),
                                when=index % len(WHEN_DURATION), follow=follow)
                    text = _statement_text(said, domain, bank.RELATIONS["brother"]
                                           if kind == "holder" else None)
                    assert _reads_as(text, said), (kind, text)
    for intros, templates, whens in (("purchase", INTROS_PURCHASE, WHEN_PURCHASE),
                                     ("quote", QUOTE_INTROS, QUOTE_WHEN),
                                     ("duration", INTROS_DURATION, WHEN_DURATION)):
        for template in templates:
            for noun in _NOUNS:
                for when in whens:
                    text = template.format(rel=noun, when=when) + " "
                    assert _intro_rel(intros, text) == noun, text
    for request in QUOTE_REQUESTS:
        assert not read_statements(request.format(a="an easel"))
    cross: dict[int, set[str]] = {}
    for shape, ladder in INPUT_LADDER.items():
        assert len(ladder) == SHAPE_N[shape]
        for g in ladder:
            cross.setdefault(BAND_OF_INPUTS[g], set()).add(shape)
    assert all(len(shapes) > 1 for shapes in cross.values()), cross


def _statement_text(said: Said, domain: str | None, relation: bank.Relation | None) -> str:
    """Opening sentence (naming ``said.rel``), the core and the drawn follow-up; a quote may open
    on an acknowledgement pair. ``relation`` acts (a holder); ``domain`` is None for purchases."""
    actor = _actor(relation)
    parts: list[str] = []
    if domain is None:
        if said.kind == "quote" and said.prefix >= 0:
            acks, lines = QUOTE_PREFIXES
            parts += [acks[said.prefix // len(lines) % len(acks)], lines[said.prefix % len(lines)]]
        intros, whens = (QUOTE_INTROS, QUOTE_WHEN) if said.kind == "quote" else \
            (INTROS_PURCHASE, WHEN_PURCHASE)
        parts.append(intros[said.intro].format(rel=said.rel, when=whens[said.when]))
        a = f"{article(said.item)} {said.item}"
        col = PURCHASE_COLUMN[said.kind]
        parts.append(PURCHASE_ROWS[said.frame][col].format(
            **actor, shop=said.subject, v=format_amount(said.cents, said.currency), a=a,
            A=a.capitalize()))
        if said.follow >= 0:
            parts.append(PURCHASE_FOLLOWS[said.follow][col].format(**actor, item=said.item))
    else:
        parts.append(INTROS_DURATION[said.intro].format(rel=said.rel,
                                                        when=WHEN_DURATION[said.when]))
        col = DURATION_COLUMN[said.kind, said.event]
        parts.append(DURATION_ROWS[domain][said.frame][col].format(**actor, item=said.subject))
        if said.follow >= 0:
            parts.append(DURATION_FOLLOWS[said.follow][col % 3 if col < 3 else col - 3]
                         .format(**actor))
    return " ".join(parts)


def _dress(rng: Any, said: Said, holders: Mapping[str, int], domain: str | None) -> None:
    """The parts every statement draws alike, whatever its role: the opening sentence (its
    relation: the holder's own, else one of the persona's), a follow-up on :data:`FOLLOW_SHARE`,
    and for a quote its request and, on :data:`PREFIX_SHARE`, an opening pair."""
    said.rel = said.holder or rng.choice(sorted(holders))
    said.intro = rng.randrange(len(INTROS_PURCHASE if domain is None else INTROS_DURATION))
    said.when = rng.randrange(len(WHEN_PURCHASE if domain is None else WHEN_DURATION))
    follows = PURCHASE_FOLLOWS if domain is None else DURATION_FOLLOWS
    said.follow = rng.randrange(len(follows)) if rng.random() < FOLLOW_SHARE else -1
    said.ask = rng.random() < ASK_SHARE
    if said.kind == "quote":
        said.request = rng.randrange(len(QUOTE_REQUESTS))
        acks, lines = QUOTE_PREFIXES
        said.prefix = rng.randrange(len(acks) * len(lines)) if rng.random() < PREFIX_SHARE else -1


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
        pool = sorted(DURATION_ROWS) if shape == "durations" else sorted(CURRENCIES)
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
    plural = len(named) > 1 or asked[0] in PLURAL_ITEMS
    return QUESTIONS[spec.domain].format(verb="were" if plural else "was", items=items)


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


SIDE_TOP = 3
"""Most own purchases one side of a deltas pair holds (the pair's G is cut within it)."""


def shop_top(shape: str) -> int:
    """The most own purchases a tracked shop can hold in this shape: the least number of the
    user's sentences naming it, so that this number can be drawn whatever its own count is."""
    return SIDE_TOP if shape == "deltas" else max(INPUT_LADDER[shape])


def mention_span(shape: str, rate: float) -> tuple[int, int]:
    """The range the user's sentences naming a tracked shop (own + relations' + declined) are
    drawn from, uniformly and whatever the shop's own count (red team 23: competitors tracked the
    own count, so ceil(n / 2) answered counts 10 of 14). From one above the shop top (so every
    tracked shop has a competitor whatever its own count) upwards by the dial: ``rate`` x
    :data:`PER_INPUT` x a third of the top, rounded down (deltas hold at most 22 sessions, one
    competitor each, for six tracked shops)."""
    top = shop_top(shape)
    return top + 1, top + 1 + int(rate * PER_INPUT * top / 3)


def _tracked_kinds(rng: Any, n: int, subjects: Sequence[str | None], tracked: Sequence[str],
                   quotes: Sequence[int]) -> list[str]:
    """Competitor kind per session: a tracked shop's competitors hold exactly its drawn number of
    quotes (so the user's sentences naming it stay as drawn), the rest of the shared deck
    (:data:`KIND_WEIGHTS`) goes to the others in drawn order."""
    deck = _kinds(rng, "purchase", n)
    spare = max(0, deck.count("quote") - sum(quotes))
    plain = [kind for kind in deck if kind != "quote"]
    out: list[str | None] = [None] * n
    for shop, q in zip(tracked, quotes):
        at = [p for p in range(n) if subjects[p] == shop]
        chosen = set(rng.sample(at, q))
        for p in at:
            out[p] = "quote" if p in chosen else (
                plain.pop() if plain else rng.choice(("holder", "declined")))
    rest = [p for p in range(n) if out[p] is None]
    chosen = set(rng.sample(rest, min(spare, len(rest))))
    for p in rest:
        out[p] = "quote" if p in chosen else (
            plain.pop() if plain else rng.choice(("holder", "declined")))
    return [kind for kind in out if kind is not None]


def _share(rate: float, g: int, own: Sequence[str], asked: Sequence[str]) -> float:
    """The share of eligible sessions (those whose own subject leaves an asked one to name) that
    gets an asked-subject competitor: ``rate`` x :data:`PER_INPUT` x G competitors in all."""
    eligible = sum(1 for subject in own if any(a != subject for a in asked))
    return min(1.0, rate * PER_INPUT * g / max(1, eligible))


def _prices(rng: Any, items: Sequence[str]) -> list[int]:
    """One distinct amount per object, each drawn uniformly in its object's price band
    (:data:`PRICE_BANDS`), whatever role its statement plays."""
    out: list[int] = []
    taken: set[int] = set()
    for item in items:
        low, high = PRICE_BANDS[PRICE_BAND_OF[item]]
        cents = rng.randint(low, high)
        while cents in taken:
            cents = rng.randint(low, high)
        taken.add(cents)
        out.append(cents)
    return out


def _total_written(target: int, cents: Sequence[int]) -> bool:
    """Whether the total's figures appear in an amount of the haystack: equal to one, or inside
    one ("86.05" in "186.05"). Price bands (:data:`PRICE_BANDS`) make sub-100 deltas common, and a
    text search for the total would find it written, if not as an amount."""
    written = f"{target // 100:,}.{target % 100:02d}"
    return any(written in f"{c // 100:,}.{c % 100:02d}" for c in cents)


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
    unit is drawn among them afterwards. The user's sentences naming a tracked shop are drawn on
    :func:`mention_span` whatever its own count (its competitors fill the rest); rivals and the
    remaining competitors balance the values per currency, blind to which unit is asked."""
    rng = derive_rng(seed, VERTICAL, spec.key, "plan")
    persona = conversation.draw_persona(rng)
    holders = {persona.holder(i).noun: i for i in range(len(persona.relations))}
    sides = 2 if spec.shape == "deltas" else 1
    m = TRACKED_UNITS[spec.shape]
    cap = SAME_UNIT_CAP.get(spec.shape)
    codes = sorted(CURRENCIES)
    top = shop_top(spec.shape)
    span = mention_span(spec.shape, rate)
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
            if sides == 1:
                parts = [g]
            else:  # each side holds at most the shape's top, so its mentions can ignore it
                cut = rng.randint(max(1, g - top), min(g - 1, top))
                parts = [cut, g - cut]
            units.append(list(range(len(groups), len(groups) + len(parts))))
            groups += [(code, part) for part in parts]
        tracked_n = len(groups)
        # 2. mentions per tracked shop, drawn whatever its own count (red team 23): the user's
        # sentences naming it (own + relations' + declined) uniform on the dial's range, and 0-1
        # assistant quotes; its competitors are what is left once its own purchases are counted
        mentions = [rng.randint(*span) for _ in range(tracked_n)]
        quotes = [rng.randint(0, 1) for _ in range(tracked_n)]
        k = [mentions[i] - groups[i][1] + quotes[i] for i in range(tracked_n)]
        others_total = sum(counts) - spec.g
        h_hi = min(H_RANGE[1], MAX_SESSIONS.get(spec.shape, 10 ** 6) - spec.g)
        h_lo = max(H_RANGE[0], others_total, sum(k) - spec.g)
        if h_lo > h_hi:
            continue
        h = rng.randint(h_lo, h_hi)
        n = spec.g + h
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
        unit_of = {shops[i]: u for u, members in enumerate(units) for i in members}
        placed = True
        for subject in deck:  # never beside an own purchase of its own unit (a deltas pair)
            free = [p for p in range(n) if subjects[p] is None
                    and unit_of.get(own_shop[p]) != unit_of[subject]]
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
        taken = _earlier_asked(seed, spec.shape, spec.index, rate)
        asked = tuple(shops[i] for i in units[at])
        if taken & set(asked):
            continue
        break
    else:
        raise GenerationError(f"{spec.key}: no draw keeps every currency within the cap")
    decoys = tuple(shops[i] for u, members in enumerate(units) if u != at for i in members)
    currency = unit_code[at]
    gold = [p for p in range(n) if own_shop[p] in asked]
    kinds = _tracked_kinds(rng, n, subjects, shops[:tracked_n], quotes)
    rows = [str(i) for i in range(len(PURCHASE_ROWS))]
    frames = {kind: engine.deal(rng, rows, n) for kind in ("own", *KIND_WEIGHTS["purchase"])}
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
        frame = int(frames[kind].pop())
        pair = [Said("own", own_shop[p], frame=int(frames["own"].pop()), item=item_at(own_shop[p])),
                Said(kind, subject, holder=holder, frame=frame, item=item_at(subject))]
        for s in pair:
            s.currency = currency_of[s.subject]
            _dress(rng, s, holders, None)
        said.append(pair)
    signs = {p: 1 if own_shop[p] == asked[0] else -1 for p in gold}
    flat = [s for pair in said for s in pair]
    for _ in range(AMOUNT_ATTEMPTS):
        cents = _prices(rng, [s.item for s in flat])
        for s, c in zip(flat, cents):
            s.cents = c
        target = sum(signs[p] * said[p][0].cents for p in gold)
        if spec.shape == "counts":
            break
        if target < 0:  # side a is the larger side: swap which shop the question names first
            asked, signs, target = asked[::-1], {p: -s for p, s in signs.items()}, -target
        pool = [(s.cents, signs[p] if s is said[p][0] and p in signs else 0)
                for p, pair in enumerate(said) for s in pair if s.currency == currency]
        if target >= MIN_DELTA_CENTS and not _total_written(target, cents) and \
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
    taken = _earlier_asked(seed, spec.shape, spec.index, 0.0)
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
    rows = [str(i) for i in range(len(DURATION_ROWS[spec.domain]))]
    decks = {e: engine.deal(rng, rows, n) for e in ("start", "end", "refusal")}
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
        if event == "end":
            del out[holder, subject]
        else:
            out[holder, subject] = p
        said.append([mine, Said("holder", subject, event, holder, frame=rng.randrange(len(rows)))])
    for pair in said:
        for s in pair:
            _dress(rng, s, holders, spec.domain)
    gold = sorted(p for i in chosen for p in pairs[i])
    return Plan(spec, asked, said, persona, holders, clocks, days, gold, Fraction(sum(gold_spans)),
                watched[len(asked):])


@lru_cache(maxsize=64)
def _earlier_asked(seed: int, shape: str, index: int, rate: float) -> frozenset[str]:
    """Subjects the shape's earlier questions ask: a haystack whose draw would ask one again is
    redrawn (two questions would read the same), whatever roles its values take. Durations draw
    the asked items before the dial acts and read them at dial 0; a purchase draw is redrawn
    when its shops' mentions do not fit the sessions, which the dial moves, so they are read at
    the same dial."""
    planner = _plan_durations if shape == "durations" else _plan_purchases
    return frozenset(subject for spec in layout(seed)[shape][:index]
                     for subject in planner(seed, spec, rate).asked)


def plan(seed: int, spec: Spec, rate: float) -> Plan:
    if not 0.0 <= rate <= 1.0:
        raise GenerationError(f"competition rate must lie in [0, 1], got {rate}")
    return (_plan_durations if spec.shape == "durations" else _plan_purchases)(seed, spec, rate)


def _statement(said: Said, plan_: Plan) -> conversation.Statement:
    """The statement as the renderer takes it: text, the topic replies name, one reply bank.

    Every user statement, gold or competitor, takes :data:`REPLY_STANCE` and names its object as
    "the <object>" (a relation's too: "Thanks for the update on the ladder." after "he put his
    ladder out on loan"), with no holder, so neither the reply's frame, its topic's possessive, nor
    whether an assistant lead may ask about it depends on whose statement it is."""
    index = plan_.holders.get(said.holder or "")
    relation = plan_.persona.holder(index) if index is not None else None
    durations = plan_.spec.domain is not None
    thing = said.subject if durations else said.item
    topic = f"the {thing}"
    if said.kind == "quote":
        request = QUOTE_REQUESTS[said.request].format(a=f"{article(thing)} {thing}")
        return conversation.Statement(_statement_text(said, None, None), topic, QUOTE_STANCE,
                                      role="assistant", request=request)
    text = _statement_text(said, plan_.spec.domain, relation)
    return conversation.Statement(text, topic, REPLY_STANCE, ask=said.ask, avoid=REPLY_AVOID)


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
            key, sessions, times[:len(sessions)], times[len(sessions)], plan_.persona, BANNED,
            lead_share=0.0),
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
    if _total_written(int(value * 100), [s.cents for _, s in flat]):
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
