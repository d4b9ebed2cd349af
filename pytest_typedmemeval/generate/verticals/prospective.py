"""TypedMemEval-Prospective revision 2 (VERTICALS.md §2.1, Appendices A, C) over :mod:`..engine`.

Whether a system anchors remembered items in time. No session prints a date: statements carry
*relative* spans ("in nine weeks", "for the next sixty days") and the asking moment is only
``question_date``. Shapes and keys (every value read back from the rendered text, V5):

- ``due-later`` (8 pairs), "I have set a reminder to call Balcor Dunfal about the boiler at the
  cottage in nine weeks.": before arm ``not_yet`` with ``must_name`` = ``premature`` = the callee
  (a bare "Not yet." is ``missed``); after arm ``accepted`` = ``must_name`` = the callee.
- ``expiring-validity`` (6 pairs), cover from X valid for N days: before ``not_yet`` / after
  ``no_longer``, both ``must_name`` X.
- ``not-yet-true`` (5 pairs), "I am planning to book X for ... in ten weeks"; the record only holds
  the plan. Before ``not_yet``, ``must_name`` = ``premature`` = X. After: the day set has passed
  and nothing recorded says whether it happened (the question asks about the record); key
  ``abstain`` with ``must_name`` X and the haystack's other values ``wrong`` (no pseudo-value).
- ``as-of`` / ``current`` / ``prospective`` (4 each, unpaired, authored here): "X looks after it
  for now, and Y takes over in eight weeks", asked about an instant relative to the asking moment;
  gold X or Y, two of each per shape; the other name is ``stale`` or ``premature``.

Every session carries one statement (reminder, validity, plan or schedule: five constructions per
kind, short and long, each naming subject, value and span in one sentence) about its own subject,
plus the engine's one topical mention. Gold and filler share the constructions; filler subjects
and values come from disjoint banks. The memory dial is *competing items* (§2.1): ``c`` in
{3, 6, 10, 15} filler statements of the gold's kind with other pivots, every level in every shape;
other filler kinds are allotted corpus-wide so a kind's presence pools to AUC ~ 0.5 (V7). The
calibration dial is *topical competition*: the share of sessions whose mention names the asked
subject (a filler reminder beside "the boiler at the cottage" then matches the question as gold
does). Sessions are about a day apart, spans 49-91 days, so pivots lie weeks after the last
session; arms are asked 3-8 days either side of the pivot, computed from the *final* timestamps.

Validity rules (:class:`GenerationError`): pivot >= 3 weeks after the last session and strictly
between the arms, >= 2 days from either;
before-arm golds say not yet outright; no not-yet-true gold claims the plan went ahead; due-later
holds >= 3 distractor reminders; competitors' pivots differ from gold's; V4 at calendar level, no
digits or dashes; values only inside statements naming their subject; the text reads back as
planned; pair haystacks identical with flipped gold; every dial level in every shape; subject words
in < 10% of sessions; the judge grades each gold correct and each clock-blind answer not correct.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any, NamedTuple

from ...corpus.models import parse_corpus_date
from ...gates.structure import v4_findings
from ...judge.reading import JUDGE_CUE_PATTERNS
from ...retrieval.tokenizer import raw_tokens
from .. import engine, talk
from ..primitives import GenerationError, assert_disjoint, content_words, derive_rng

VERTICAL, ABBREV, MEMORY_TYPE = "prospective", "pro", "prospective"
GENERATOR = "pytest_typedmemeval.generate.verticals.prospective"
GENERATOR_VERSION, REVISION, SEED = "2", 2, 20260511
SHAPES = ("as-of", "current", "prospective", "due-later", "expiring-validity", "not-yet-true")
CALIBRATED_SHAPES = SHAPES
RECORDED_COMPETITION: dict[str, float] = {  # from --search (record: prospective.calibration.json)
    "as-of": 0.375, "current": 0.400390625, "prospective": 0.3125, "due-later": 0.53125, "expiring-validity": 0.75, "not-yet-true": 0.375}
DIFFICULTY_NOTE = ("declared, not validated: the band is the competing-items dial (same-kind filler "
                   "statements with other pivots: 3 / 6 / 10 / 15 -> bands 1-4); the displacement "
                   "from statement to pivot (49-91 days) is a time a lexical retriever cannot see")

UNPAIRED = {"as-of": 4, "current": 4, "prospective": 4}
PAIRS = {"due-later": 8, "expiring-validity": 6, "not-yet-true": 5}
H_RANGE = (13, 20)
"""§2.1: H is 12-20; 13 keeps the V7 distribution rule's chance rate a little lower at G = 1."""
COMPETING_LEVELS = (3, 6, 10, 15)
"""§2.1 Dials, in every shape; 0 is left out (a lone gold of its kind is separated by its own kind
frame), so due-later always holds >= MIN_DISTRACTOR_REMINDERS."""
MIN_DISTRACTOR_REMINDERS = 3
ARM_MARGIN_MINUTES = (3 * 1440, 8 * 1440)
MIN_PIVOT_DAYS = 2
"""An asked instant, or a competitor's pivot, lies at least this far from the gold pivot."""
MIN_PIVOT_AFTER_LAST = timedelta(weeks=3)
"""The gold pivot lies at least this long after the last session (spans 49-91 days, H <= 20)."""
KIND_OF_SHAPE = {"due-later": "reminder", "expiring-validity": "validity", "not-yet-true": "plan",
                 "as-of": "schedule", "current": "schedule", "prospective": "schedule"}
KINDS = ("reminder", "validity", "plan", "schedule")
VALUES_PER_KIND = {"reminder": 1, "validity": 1, "plan": 1, "schedule": 2}


@dataclass(frozen=True)
class Entry:
    """A subject, a thing at a place; its phrase is what statements and mentions say."""

    noun: str
    place: str
    subject = property(lambda self: f"the {self.noun} at the {self.place}")
    words = property(lambda self: frozenset(raw_tokens(f"{self.noun} {self.place}")))


def _entries(text: str) -> tuple[Entry, ...]:
    return tuple(Entry(*pair.split("@")) for pair in text.split(", "))


FACTS = _entries(
    "boiler@cottage, burglar alarm@bakery, lift@surgery, roof@chapel, kiln@pottery, "
    "scaffolding@warehouse, hot tub@chalet, sprinklers@gym, septic tank@farmhouse, solar panels@barn, "
    "chimney@lodge, gutters@bungalow, fridge@cafe, photocopier@office, forklift@depot, "
    "generator@campsite, fence@paddock, heat pump@annexe, immersion heater@flat, boat trailer@marina, "
    "wiring@pub, pool filter@villa, climbing frame@nursery, lawn tractor@vineyard, "
    "stage lights@theatre, shutters@boutique, aquarium@clinic, ice machine@hotel, "
    "polytunnel@smallholding, drains@garage, skylight@loft, dishwasher@canteen, "
    "conveyor belt@factory, bell@abbey")
"""Subjects questions ask about: each haystack draws one, none twice."""
PARITY = _entries(
    "chairlift@resort, escalator@mall, freezer@deli, sauna@spa, jukebox@diner, turnstile@stadium, "
    "till@bookshop, kettle@hostel, hoist@workshop, awning@kiosk, radiator@bedsit, "
    "shower block@pavilion, cooker@guesthouse, lockers@leisure centre, telescope@observatory, "
    "organ@cathedral, ticket barrier@station, furnace@foundry, crane@dockyard, "
    "scoreboard@bowling green, waterwheel@mill, mangle@launderette, pizza oven@trattoria, "
    "baler@stables, bunk beds@cabin, extractor fan@takeaway, security gate@car park, "
    "spotlights@gallery, printing press@newsagent, treadmill@fitness studio, loom@weaving shed, "
    "dumbwaiter@restaurant")
"""Filler subjects: the same kind of thing, about which no question asks."""

CONSTRUCTIONS: dict[str, tuple[str, ...]] = {
    "reminder": (
        "I have set a reminder to call {value} about {subject} in {span}.",
        "My phone will remind me to call {value} about {subject} in {span}.",
        "In {span} I need to call {value} about {subject}, and there is a reminder on my phone "
        "for it.",
        "Things are hectic, so I put in a reminder to call {value} about {subject} in {span} "
        "rather than trust my memory.",
        "I should call {value} about {subject} in {span}, so I wrote myself a reminder.",
    ),
    "validity": (
        "The cover for {subject} from {value} is valid for the next {span}.",
        "I have cover from {value} for {subject}, valid for the next {span}.",
        "After a lot of back and forth, {value} sorted out cover for {subject}, and it is valid "
        "for the next {span}.",
        "{value} is providing cover for {subject}, and that cover stays valid for the next {span}.",
        "Cover for {subject} comes from {value} and is valid for the next {span}.",
    ),
    "plan": (
        "I am planning to book {value} for {subject} in {span}.",
        "The plan is to book {value} for {subject} in {span}.",
        "In {span} I mean to book {value} for {subject}, once things calm down a little.",
        "I have been putting it off, but I intend to book {value} for {subject} in {span}.",
        "I would like to book {value} for {subject} in {span}, if the budget allows.",
    ),
    "schedule": (
        "{value} is looking after {subject} for now, and {value2} takes over in {span}.",
        "For now {value} looks after {subject}, but {value2} takes over in {span}.",
        "{value2} takes over {subject} in {span}, and until then {value} looks after it.",
        "Right now {value} looks after {subject}. In {span} {value2} takes over from them, which "
        "should make things a bit easier.",
        "At the moment {value} looks after {subject}, and in {span} {value2} takes over.",
    ),
}
"""Statement constructions, one bank for gold and filler; each names subject and value(s) in one
sentence, the value as the object (the callee, the cover, the booking, the carer)."""

SPANS = {"seven weeks": 49, "eight weeks": 56, "nine weeks": 63, "ten weeks": 70,
         "eleven weeks": 77, "twelve weeks": 84, "thirteen weeks": 91, "fifty days": 50,
         "sixty days": 60, "seventy days": 70, "eighty days": 80, "ninety days": 90}
OFFSETS = {"ten days": 10, "twelve days": 12, "two weeks": 14}
"""Seed questions' instants relative to the asking moment ("twelve days ago", "in two weeks")."""

QUESTIONS = {
    "due-later": "Is my reminder about {subject} due yet, and whom was I to call?",
    "expiring-validity": "Whose cover do I have for {subject}, and is it still valid?",
    "not-yet-true": "From what I have told you, have I booked anyone for {subject} yet?",
    "current": "Who looks after {subject} now?",
    "as-of": "Who was looking after {subject} {offset} ago?",
    "prospective": "Who will be looking after {subject} in {offset}?",
}
ANSWERS = {
    ("due-later", "before"): "Not yet: your reminder to call {value} about {subject} is not due yet.",
    ("due-later", "after"): "Yes, it is due now: call {value} about {subject}.",
    ("expiring-validity", "before"): "{value}, and it is still valid: it has not lapsed yet.",
    ("expiring-validity", "after"): "{value}, but it has lapsed: that cover is no longer valid.",
    ("not-yet-true", "before"): "Not yet: you plan to book {value}, and the day you set for it has "
                                "not come yet.",
    ("not-yet-true", "after"): "The day you set to book {value} has passed, and nothing you told me "
                               "afterwards says whether you did.",
    ("current", None): "{value} looks after it now.",
    ("as-of", None): "{value} was looking after it then.",
    ("prospective", None): "{value} will be looking after it then.",
}
"""Gold texts, filled only from values read back from the rendered sessions (V5)."""
TIME_BLIND = {
    ("due-later", "before"): ("Yes, it is due now: call {value}.", "Not yet.", "Call {other}."),
    ("due-later", "after"): ("Not yet, that reminder is not due yet.", "Nothing is due yet.",
                             "Yes, it is due now.", "Not yet: you are to call {value} later."),
    ("expiring-validity", "before"): ("{value}, but it has lapsed.", "It is still valid.",
                                      "{other}, and it is still valid."),
    ("expiring-validity", "after"): ("{value}, and it is still valid.",
                                     "{value}; it has not lapsed yet.", "It has lapsed."),
    ("not-yet-true", "before"): ("Yes, you booked {value}.", "Not yet.", "You booked {other}."),
    ("not-yet-true", "after"): ("Yes, you booked {value} as planned.",
                                "Not yet: you plan to book {value}.", "You booked {other}."),
    ("current", None): ("{other} looks after it now.",),
    ("as-of", None): ("{other} was looking after it then.",),
    ("prospective", None): ("{other} will be looking after it then.",),
}
"""Per question, answers a clock-blind or careless system gives; none may grade correct. ``{other}``
is another value of the haystack (for seeds, the other name of the hand-over)."""

_SYLLABLES = ("bal", "cor", "dun", "fal", "gor", "hel", "jas", "kel", "lum", "nor", "pel", "ros",
              "tav", "vin", "wil", "yar", "zel", "ost")
_NAMES = sorted({(a + b).capitalize() for a in _SYLLABLES for b in _SYLLABLES if a != b})
GOLD_NAMES, PARITY_NAMES = tuple(_NAMES[0::2]), tuple(_NAMES[1::2])
"""Invented names from syllables in no question; tracked and filler items draw disjoint pools."""
_VALUE = r"[A-Z][a-z]+ [A-Z][a-z]+"

FACT_WORDS = frozenset(w for e in FACTS for w in e.words)
PARITY_WORDS = frozenset(w for e in PARITY for w in e.words)
NAME_WORDS = frozenset(w.lower() for w in _NAMES)
FRAME_WORDS = content_words(re.sub(r"\{\w+\}", " ", t) for ts in CONSTRUCTIONS.values() for t in ts)
SCAFFOLD = engine.Scaffold.without(FACT_WORDS | PARITY_WORDS | NAME_WORDS)


def _assert_banks() -> None:
    """Import-time assertions (GENERATION.md "Checks that belong in every generator")."""
    assert_disjoint("fact bank", FACT_WORDS, "parity bank", PARITY_WORDS)
    other = (FRAME_WORDS | content_words(QUESTIONS.values()) | content_words(ANSWERS.values())
             | content_words(SPANS) | content_words(OFFSETS))
    assert_disjoint("subjects", FACT_WORDS | PARITY_WORDS, "frames", other | SCAFFOLD.words())
    assert_disjoint("names", NAME_WORDS, "every bank", other | FACT_WORDS | PARITY_WORDS
                    | talk.scaffold_words())
    owners = Counter(w for e in FACTS + PARITY for w in e.words)
    assert not [w for w, n in owners.items() if n > 1], "entries share words"
    for entry in FACTS + PARITY:
        assert not any(re.search(cue, entry.subject) for cue in JUDGE_CUE_PATTERNS), entry
    for kind, templates in CONSTRUCTIONS.items():
        for template in templates:
            text = _fill(template, "the boiler at the cottage", ("Balcor Dunfal", "Helnor Pelros"),
                         "nine weeks")
            hits = [(k, m) for k, _, p in _PATTERNS for m in p.finditer(text)]
            assert len(hits) == 1 and hits[0][0] == kind and hits[0][1].group(0) == text, text
            assert text[0].isupper() and text[-1] == "." and "  " not in text, text
            assert not v4_findings(text, "calendar") and not re.search(r"[\d\u2013\u2014]", text), text
    for text in (*QUESTIONS.values(), *ANSWERS.values(), *SPANS, *OFFSETS):
        assert not v4_findings(text, "calendar") and not re.search(r"[\d\u2013\u2014]", text), text
    before = [text for (_, arm), text in ANSWERS.items() if arm == "before"]
    assert all(re.search(r"\bnot (?:\w+ )?yet\b", text) for text in before), before


def _fill(template: str, subject: str, values: Sequence[str], span: str) -> str:
    return template.format(subject=subject, value=values[0], value2=values[-1], span=span)


def _pattern(template: str) -> re.Pattern[str]:
    subjects = "|".join(re.escape(e.subject) for e in sorted(FACTS + PARITY, key=lambda e: -len(e.subject)))
    spans = "|".join(sorted(SPANS, key=len, reverse=True))
    pattern = re.escape(template)
    for name, group in (("subject", subjects), ("value2", _VALUE), ("value", _VALUE), ("span", spans)):
        pattern = pattern.replace(re.escape("{" + name + "}"), f"(?P<{name}>{group})")
    return re.compile(pattern)


_PATTERNS = tuple((kind, i, _pattern(t)) for kind, ts in CONSTRUCTIONS.items() for i, t in enumerate(ts))
_assert_banks()


class Spec(NamedTuple):
    """One haystack's design, decided globally so dial levels, positions and kinds balance. ``side``
    (seed shapes): 0 when the name looking after it for now is the gold, 1 for the successor."""

    key: str
    shape: str
    entry: Entry
    competing: int
    h: int
    gold: int
    filler_kinds: tuple[str, ...]
    side: int
    offset: str
    pair: int | None


@lru_cache(maxsize=4)
def _layout(seed: int) -> tuple[Spec, ...]:
    rng = derive_rng(seed, VERTICAL, "layout")
    keys = [(f"{shape}-{i + 1:02d}", shape) for shapes in (UNPAIRED, PAIRS)
            for shape, n in shapes.items() for i in range(n)]
    entries = rng.sample(FACTS, len(keys))
    competing, sides, offsets = [0] * len(keys), [0] * len(keys), [""] * len(keys)
    for shape in SHAPES:
        members = [i for i, (_, s) in enumerate(keys) if s == shape]
        levels = [COMPETING_LEVELS[j % len(COMPETING_LEVELS)] for j in range(len(members))]
        halves = [j % 2 for j in range(len(members))]
        rng.shuffle(levels)
        rng.shuffle(halves)
        for index, level, side in zip(members, levels, halves):
            competing[index], sides[index] = level, side
            offsets[index] = rng.choice(sorted(OFFSETS)) if shape in ("as-of", "prospective") else ""
    hs = [rng.randint(max(H_RANGE[0], c), H_RANGE[1]) for c in competing]
    strata = rng.sample(range(len(keys)), len(keys))  # stratified relative gold positions
    golds = [min(h, int((s + rng.random()) / len(keys) * (h + 1))) for s, h in zip(strata, hs)]
    kinds = _allocate_kinds([s for _, s in keys], competing, hs, rng)
    numbers = iter(rng.sample(range(1, sum(PAIRS.values()) + 1), sum(PAIRS.values())))
    return tuple(Spec(key, shape, entries[i], competing[i], hs[i], golds[i],
                      (KIND_OF_SHAPE[shape],) * competing[i] + tuple(kinds[i]), sides[i], offsets[i],
                      next(numbers) if shape in PAIRS else None)
                 for i, (key, shape) in enumerate(keys))


def _allocate_kinds(shapes: Sequence[str], competing: Sequence[int], hs: Sequence[int],
                    rng: Any) -> list[list[str]]:
    """Other-kind filler per haystack so each kind's presence balances in the pooled V7 AUC: the
    slots of kind k handed to other-kind haystacks (weighted by questions per haystack) match the
    other-kind slots facing gold of kind k. Greedy: each slot takes the kind with most demand left."""
    weight = [2 if shape in PAIRS else 1 for shape in shapes]
    demand: Counter[str] = Counter()
    for shape, c, h, w in zip(shapes, competing, hs, weight):
        demand[KIND_OF_SHAPE[shape]] += w * (h - c)
    out: list[list[str]] = [[] for _ in shapes]
    for index in rng.sample(range(len(shapes)), len(shapes)):
        own = KIND_OF_SHAPE[shapes[index]]
        for _ in range(hs[index] - competing[index]):
            kind = max((k for k in KINDS if k != own), key=lambda k: (demand[k], rng.random()))
            demand[kind] -= weight[index]
            out[index].append(kind)
    return out


Item = NamedTuple("Item", [("entry", Entry), ("kind", str), ("values", tuple[str, ...]),
                           ("span", str)])


def _plan(seed: int, spec: Spec) -> tuple[engine.HaystackDraft, list[Item], list[datetime]]:
    """The haystack's statements, times and asking moment(s) (pair arms either side of the pivot;
    seed instants on the planned side of the hand-over, asked ``offset`` after or before)."""
    rng = derive_rng(seed, VERTICAL, spec.key, "plan")
    n = spec.h + 1
    times, _ = engine.daily_times(rng, n, gap_days=(1, 1))
    kind = KIND_OF_SHAPE[spec.shape]
    pool = {name: [w for w in names] for name, names in (("gold", GOLD_NAMES), ("parity", PARITY_NAMES))}
    for names in pool.values():
        rng.shuffle(names)
    fillers = iter(zip(rng.sample(PARITY, spec.h), rng.sample(spec.filler_kinds, spec.h)))
    items: list[Item] = []
    for position in range(n):
        entry, k = (spec.entry, kind) if position == spec.gold else next(fillers)
        names = pool["gold" if position == spec.gold else "parity"]
        values = tuple(f"{names.pop()} {names.pop()}" for _ in range(VALUES_PER_KIND[k]))
        items.append(Item(entry, k, values, rng.choice(sorted(SPANS))))
    pivot = times[spec.gold] + timedelta(days=SPANS[items[spec.gold].span])
    for position, item in enumerate(items):  # competitors: another pivot than the gold's
        if item.kind == kind and position != spec.gold:
            spans = [s for s in sorted(SPANS) if abs(times[position] + timedelta(days=SPANS[s])
                                                     - pivot) >= timedelta(days=MIN_PIVOT_DAYS)]
            items[position] = item._replace(span=rng.choice(spans))
    sessions = [engine.SessionDraft(item.entry.subject, [engine.Piece(_fill(
        rng.choice(CONSTRUCTIONS[item.kind]), item.entry.subject, item.values, item.span))])
        for item in items]
    margin = [timedelta(minutes=rng.randint(*ARM_MARGIN_MINUTES)) for _ in range(2)]
    if spec.pair is not None:
        asked = [pivot - margin[0], pivot + margin[1]]
    else:
        instant = pivot - margin[0] if spec.side == 0 else pivot + margin[0]
        shift = timedelta(days=OFFSETS.get(spec.offset, 0))
        asked = [instant + shift if spec.shape == "as-of" else instant - shift]
    topics = {item.entry.subject: item.entry.subject for item in items}
    draft = engine.HaystackDraft(spec.key, sessions, topics, (spec.entry.subject,), times, asked[-1])
    return draft, items, asked


Reading = NamedTuple("Reading", [("session", int), ("kind", str), ("subject", str),
                                 ("values", tuple[str, ...]), ("days", int)])


def read_statements(texts: Sequence[Sequence[str]]) -> list[Reading]:
    """Every statement in the rendered sessions (texts only, never the plan); a value-shaped name
    outside a statement that names its subject is fatal."""
    found: list[Reading] = []
    for index, turns in enumerate(texts):
        for text in turns:
            rest = text
            for kind, _, pattern in _PATTERNS:
                for m in pattern.finditer(text):
                    values = (m["value"], m["value2"]) if "value2" in m.groupdict() else (m["value"],)
                    found.append(Reading(index, kind, m["subject"], values, SPANS[m["span"]]))
                    rest = rest.replace(m.group(0), " ")
            if stray := re.search(_VALUE, rest):
                raise GenerationError(f"session {index}: {stray.group(0)!r} stated outside a "
                                      f"statement that names its subject: {text!r}")
    return found


Gold = NamedTuple("Gold", [("answer", str), ("value", str), ("other", str), ("others", tuple[str, ...]),
                           ("session", int), ("competitors", int), ("later", bool)])
"""A question's gold, recomputed from a record's text and final timestamps."""


def recompute_gold(record: Mapping[str, Any], entry: Entry, offset: str = "") -> Gold:
    """Gold of ``record`` from its own bytes: the statement about ``entry`` read from the text, the
    pivot from its formatted session timestamp plus the span, the instant from ``question_date``."""
    qid, block = record["question_id"], record["typedmemeval"]
    shape, arm = block["shape"], block.get("arm")
    readings = read_statements([[t["content"] for t in s] for s in record["haystack_sessions"]])
    mine = [r for r in readings if r.subject == entry.subject]
    if len(mine) != 1 or mine[0].kind != KIND_OF_SHAPE[shape]:
        raise GenerationError(f"{qid}: {entry.subject} read back as {mine}, one "
                              f"{KIND_OF_SHAPE[shape]} statement expected")
    gold = mine[0]
    dates = [parse_corpus_date(text) for text in record["haystack_dates"]]
    pivot = dates[gold.session] + timedelta(days=gold.days)
    if pivot - dates[-1] < MIN_PIVOT_AFTER_LAST:
        raise GenerationError(f"{qid}: the pivot is not weeks after the last session")
    shift = timedelta(days=OFFSETS.get(offset, 0))
    asked = parse_corpus_date(record["question_date"])
    instant = asked - shift if shape == "as-of" else asked + shift
    if abs(instant - pivot) < timedelta(days=MIN_PIVOT_DAYS):
        raise GenerationError(f"{qid}: the asked instant is within {MIN_PIVOT_DAYS} days of the pivot")
    later = instant > pivot
    if (arm == "before" and later) or (arm == "after" and not later):
        raise GenerationError(f"{qid}: the pivot does not fall strictly between the arms ({arm} arm "
                              f"asks {'after' if later else 'before'} it)")
    value = gold.values[1 if later and gold.kind == "schedule" else 0]
    other = gold.values[0 if later else 1] if gold.kind == "schedule" else ""
    competitors = [r for r in readings if r.kind == gold.kind and r is not gold]
    if any(abs(dates[r.session] + timedelta(days=r.days) - pivot) < timedelta(days=MIN_PIVOT_DAYS)
           for r in competitors):
        raise GenerationError(f"{qid}: a competing item shares the gold's pivot")
    others = tuple(sorted({v for r in readings for v in r.values} - {value}))
    answer = ANSWERS[(shape, arm)].format(value=value, subject=entry.subject)
    return Gold(answer, value, other, others, gold.session, len(competitors), later)


def _answer_key(shape: str, arm: str | None, gold: Gold) -> dict[str, Any]:
    wrong = [v for v in gold.others if v != gold.other]
    if shape in UNPAIRED:
        side = {"stale": [gold.other]} if gold.later else {"premature": [gold.other]}
        return engine.answer_key(accepted=[gold.value], wrong=wrong, **side)
    named = {"must_name": [gold.value], "wrong": wrong}
    if arm == "before":
        premature = [] if shape == "expiring-validity" else [gold.value]
        return engine.answer_key(expected_negative="not_yet", premature=premature, **named)
    if shape == "due-later":
        return engine.answer_key(accepted=[gold.value], **named)
    if shape == "expiring-validity":
        return engine.answer_key(expected_negative="no_longer", stale=[gold.value], **named)
    # not-yet-true after: the record cannot say whether the plan went ahead; the gold names it.
    return engine.answer_key(expected_negative="abstain", **named)


def _records(seed: int, spec: Spec, rate: float, tally: engine.Tally) -> list[dict[str, Any]]:
    draft, items, asked = _plan(seed, spec)
    stay = engine.render(seed, VERTICAL, draft, rate, SCAFFOLD, tally)
    engine.check_haystack(stay)
    texts = stay.texts()
    readings = read_statements(texts)
    planned = [Reading(i, it.kind, it.entry.subject, it.values, SPANS[it.span]) for i, it in enumerate(items)]
    if readings != planned:
        raise GenerationError(f"{spec.key}: the text reads back as {readings}, planned {planned}")
    question = QUESTIONS[spec.shape].format(subject=spec.entry.subject, offset=spec.offset)
    for text in (question, *(t for turns in texts for t in turns)):  # V4 at calendar level
        if findings := v4_findings(text, "calendar"):
            raise GenerationError(f"{spec.key}: V4 {findings[0]} in {text!r}")
    block: dict[str, Any] = {
        "gold_components": [{"kind": KIND_OF_SHAPE[spec.shape], "session_index": spec.gold,
                             "memory_type": MEMORY_TYPE}],
        "dial": {"name": "competing_items", "value": spec.competing},
        "difficulty": COMPETING_LEVELS.index(spec.competing) + 1}
    arms = ("before", "after") if spec.pair is not None else (None,)
    out = []
    for arm, moment in zip(arms, asked):
        extra = {"pair_id": f"tme-{ABBREV}-p{spec.pair:02d}", "arm": arm} if arm else {}
        record = engine.record(dataclasses.replace(stay, question_time=moment),
                               question_id=f"{spec.key}/{arm}", vertical=VERTICAL, shape=spec.shape,
                               memory_type=MEMORY_TYPE, question=question, answer="",
                               gold=[(spec.gold, 0)], block={**block, **extra})
        gold = recompute_gold(record, spec.entry, spec.offset)
        record["answer"] = gold.answer
        record["typedmemeval"]["answer_key"] = _answer_key(spec.shape, arm, gold)
        _check_record(record, gold, spec)
        out.append(record)
    if len(out) == 2 and (out[0]["haystack_sessions"] != out[1]["haystack_sessions"]
                          or out[0]["answer"] == out[1]["answer"]):
        raise GenerationError(f"{spec.key}: pair arms must share the haystack and flip the gold")
    return out


def _check_record(record: dict[str, Any], gold: Gold, spec: Spec) -> None:
    qid, arm = record["question_id"], record["typedmemeval"].get("arm")
    marked = [i for i, s in enumerate(record["haystack_sessions"]) if any(t["has_answer"] for t in s)]
    if marked != [gold.session]:
        raise GenerationError(f"{qid}: has_answer marks {marked}, the statement is in {gold.session}")
    if gold.competitors != spec.competing or (spec.shape == "due-later"
                                              and gold.competitors < MIN_DISTRACTOR_REMINDERS):
        raise GenerationError(f"{qid}: {gold.competitors} competing items, planned {spec.competing}")
    if spec.shape in UNPAIRED and gold.later != bool(spec.side):
        raise GenerationError(f"{qid}: the asked instant is on the other side of the hand-over")
    if arm == "before" and not re.search(r"\bnot (?:\w+ )?yet\b", record["answer"]):
        raise GenerationError(f"{qid}: a before-arm gold must say not yet outright")
    if spec.shape == "not-yet-true" and re.search(r"\b(?:you|I) (?:have )?booked\b", record["answer"], re.I):
        raise GenerationError(f"{qid}: the gold claims the plan went ahead")
    other = gold.other or next(iter(gold.others), "Nobody Known")
    blind = [text.format(value=gold.value, other=other) for text in TIME_BLIND[(spec.shape, arm)]]
    engine.judge_gold(record, wrong_answers=blind)


@lru_cache(maxsize=4)
def _final_ids(seed: int) -> dict[str, str]:
    """Opaque ids over the whole corpus, so a question's id never depends on the shapes built."""
    stubs = [{"question_id": f"{spec.key}/{arm}", "provisional": f"{spec.key}/{arm}"}
             for spec in _layout(seed)
             for arm in (("before", "after") if spec.pair is not None else (None,))]
    engine.assign_ids(stubs, seed=seed, vertical=VERTICAL, abbrev=ABBREV)
    return {stub["provisional"]: stub["question_id"] for stub in stubs}


def build(seed: int, competition_by_shape: Mapping[str, float], *,
          shapes: Sequence[str] = SHAPES) -> engine.Built:
    """The corpus records (id order) and the rendering tally; deterministic in seed and dial."""
    if unknown := sorted(set(shapes) - set(SHAPES)):
        raise GenerationError(f"unknown shapes {unknown}")
    specs = _layout(seed)
    for shape in SHAPES:  # the competing dial takes every level in every shape (§2.1)
        if {s.competing for s in specs if s.shape == shape} != set(COMPETING_LEVELS):
            raise GenerationError(f"{shape}: the competing-items dial misses a level")
    tally = engine.Tally()
    records: list[dict[str, Any]] = []
    subject_words: dict[str, frozenset[str]] = {}
    for spec in specs:
        if spec.shape in shapes:
            rate = float(competition_by_shape[spec.shape])  # the engine refuses one outside [0, 1]
            for record in _records(seed, spec, rate, tally):
                subject_words[record["question_id"]] = spec.entry.words
                records.append(record)
    if set(shapes) == set(SHAPES):
        engine.check_rarity(records, subject_words)
    ids = _final_ids(seed)
    for record in records:
        record["question_id"] = ids[record["question_id"]]
    records.sort(key=lambda r: r["question_id"])
    return engine.Built(engine.finish(records), tally)


__all__ = ["ABBREV", "CALIBRATED_SHAPES", "FACTS", "GENERATOR",
           "GENERATOR_VERSION", "PARITY", "RECORDED_COMPETITION", "REVISION", "SEED", "SHAPES",
           "VERTICAL", "build", "read_statements", "recompute_gold"]
