"""TypedMemEval-Arithmetic v2, declared over :mod:`..engine` (VERTICALS.md §2.3, Appendix C).

Shapes: ``counts`` (14) "How many times did I buy something from Belcor?", ``sums`` (14) "How much
did I spend at Belcor altogether?", ``deltas`` (10) "How much more did I spend at Belcor than at
Dargil?" (side a minus side b), ``durations`` (12) "How many days in total were the ladder and the
drill out on loan?" (per asked item, the days from the session that sends it away to the one that
brings it back). G follows :data:`INPUT_LADDER` (durations 2/4/6: one to three items), H 15-25.

Every session carries exactly one statement of the same kind, drawn from the same constructions for
gold and filler (a purchase from some shop, or a loan/repair event of some item), the engine's
natural scaffold, and one mention. Amounts are 100.00-999.99 (equal digit counts); each shop bills
in one currency, 8-10 sessions per currency, so only the 2-7 rival purchases in the question's
currency are same-unit distractors (with 20+ the no-coincident-subset rule is rarely satisfiable).
**Competition** (the dial): mentions naming the asked shop or item in a ``rate`` share of sessions
that hold none of its events, beside the same-unit rival purchases.

**Durations hold under both day conventions** (Appendix C): sessions sit on distinct calendar days
and for every item, asked or rival, the end session's clock time is later in the day than the start
session's, so whole elapsed days equal calendar days (``gates.structure.duration_between``); this is
checked per item from the final timestamps.

**Validity** (hard :class:`GenerationError`): gold read back from the rendered text (V5); one
statement and one amount per session, amounts unique and named with their shop in one sentence; no
other subset of same-unit amounts of size <= G + 1 reaches a sum or delta (the structure gate's
search) and the total is never written; no rival span equals a gold span or the total; V4 and no
digits or number words in duration text; the leak gate's scan of the adapter view; question
subjects rare corpus-wide; the judge grades gold correct and typical wrong answers not correct.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from typing import Any

from ...corpus.models import QuestionRecord
from ...gates import leaks
from ...gates.structure import (SUBSET_EXTRA, SubsetItem, duration_between, extract_amounts,
                                find_coincident_subset, v4_findings)
from ...projection import adapter_view
from ...retrieval.tokenizer import raw_tokens, tokenize
from .. import engine, talk
from ..primitives import GenerationError, article, assert_disjoint, derive_rng

VERTICAL = "arithmetic"
ABBREV = "ari"
GENERATOR = "pytest_typedmemeval.generate.verticals.arithmetic"
GENERATOR_VERSION = "2"
REVISION = 2
SEED = 20260503
SHAPES: tuple[str, ...] = ("counts", "sums", "deltas", "durations")
CALIBRATED_SHAPES = SHAPES
RECORDED_COMPETITION: dict[str, float] = {"counts": 0.1171875, "sums": 0.125,
                                          "deltas": 0.75, "durations": 0.1953125}
"""Per shape, the share of sessions whose mention names an asked subject, as recorded by
``typedmemeval generate --vertical arithmetic --search``; rebuilds read it, never search."""
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
CURRENCY_GROUP = (8, 10)
RIVAL_GROUP = (1, 4)
AMOUNT_CENTS = (10_000, 99_999)
MIN_DELTA_CENTS = 1_000
MIN_DURATION_DAYS = 10
CLOCK_MINUTES = (7 * 60, 22 * 60 - 1)
EXCHANGES = 3
ATTEMPTS = 200
MEMORY_TYPE = "arithmetic"
CURRENCIES = {"USD": "$", "EUR": "€", "GBP": "£"}
CURRENCY_OF = {symbol: code for code, symbol in CURRENCIES.items()}

# --- banks ---------------------------------------------------------------------------------------

_SYLLABLES = ("bel", "cor", "dar", "fen", "gil", "har", "lom", "nar", "pel", "ros", "sal", "tam",
              "vin", "wes", "bro", "cas", "mer", "ost")
_SHOPS = sorted({(a + b).capitalize() for a in _SYLLABLES for b in _SYLLABLES if a != b})
ASKED_SHOPS, RIVAL_SHOPS = tuple(_SHOPS[0::2]), tuple(_SHOPS[1::2])
"""Disjoint pools interleaved from one sorted list: a name's pool is not readable from its form."""
PURCHASE_ITEMS = tuple("""bookcase armchair rug bicycle telescope camera printer monitor cabinet
easel saddle recliner bedframe headboard sideboard footstool ottoman bureau hammock trampoline
aquarium chandelier dishwasher workbench mirror cot cello keyboard synthesiser loom kiln anvil
lathe microwave juicer smoker fireplace dresser""".split())
_DURATION_ITEMS = tuple("""ladder drill tent projector trailer sander wheelbarrow chainsaw strimmer
lawnmower scooter kayak canoe tripod amplifier microscope compressor grinder router vacuum
dehumidifier blender mixer accordion trombone saxophone clarinet banjo harp mandolin typewriter
gramophone turntable binoculars snowboard surfboard paddleboard wetsuit dinghy caravan campervan
motorbike moped treadmill jigsaw rotavator marquee gazebo hoover planer welder toolbox pushchair
sledge skis metronome stroller""".split())
ASKED_ITEMS, RIVAL_ITEMS = _DURATION_ITEMS[0::2], _DURATION_ITEMS[1::2]

PURCHASE_FRAMES: tuple[str, ...] = (
    "I ordered {attribute} from {subject} for {value}.",
    "I bought {attribute} from {subject} for {value}.",
    "{subject} charged me {value} for {attribute}.",
    "I paid {subject} {value} for {attribute}.",
    "So I finally went for it and bought {attribute} from {subject}, which came to {value}. "
    "I had been eyeing it for ages.",
    "Quick update: {subject} sold me {attribute} for {value}, delivery included.",
    "After a lot of dithering I ordered {attribute} from {subject} at {value}. "
    "Fingers crossed it fits where I want it.",
    "{subject} had {attribute} that I liked, and I paid {value} for it in the end.",
)
"""One purchase, naming shop, object and amount in one sentence; short and long forms alike for
gold and filler. Every form is plainly a purchase from the named shop (the count predicate)."""
DURATION_FRAMES: dict[str, dict[str, tuple[str, ...]]] = {
    "loan": {
        "start": ("I lent the {subject} to a friend today.", "I lent out the {subject} today.",
                  "A colleague asked to borrow the {subject}, so I lent it to her today.",
                  "My neighbour needed the {subject} for a project, so I lent it out today. "
                  "I hope it comes home unscathed."),
        "end": ("I got the {subject} back today.", "The {subject} was returned to me today.",
                "The {subject} came back to me today, in good shape too.",
                "My friend dropped round with the {subject} today and handed it back. "
                "It was nice to catch up on the doorstep."),
    },
    "repair": {
        "start": ("I took the {subject} in for repair today.",
                  "I dropped the {subject} off at the repair shop today.",
                  "The {subject} had been playing up, so I took it to the repair shop today.",
                  "I finally got the {subject} down to the repair shop today. "
                  "The man at the counter seemed confident he could sort it."),
        "end": ("I collected the {subject} from the repair shop today.",
                "The {subject} came back from the repair shop today.",
                "I picked up the {subject} from the repair shop today, and it works like new.",
                "The repair shop rang, so I fetched the {subject} today. "
                "It looks as good as it ever did."),
    },
}
"""Start and end events; every session of a duration haystack says one (no digits, no dates)."""
QUESTIONS = {"counts": "How many times did I buy something from {a}?",
             "sums": "How much did I spend at {a} altogether?",
             "deltas": "How much more did I spend at {a} than at {b}?",
             "loan": "How many days in total {verb} {items} out on loan?",
             "repair": "How many days in total {verb} {items} away for repair?"}
COUNT_PREDICATE = "buy something from {a}"

_FRAME_TEXT = [*PURCHASE_FRAMES, *QUESTIONS.values(), COUNT_PREDICATE,
               *(f for kinds in DURATION_FRAMES.values() for fs in kinds.values() for f in fs)]
FRAME_WORDS = frozenset(t for f in _FRAME_TEXT for t in raw_tokens(re.sub(r"\{\w+\}", " ", f)))
SUBJECT_WORDS = frozenset(s.lower() for s in _SHOPS) | frozenset(PURCHASE_ITEMS + _DURATION_ITEMS)
RESERVED = SUBJECT_WORDS | {"ordered", "bought", "charged", "paid", "sold", "lent", "borrow",
                            "returned", "repair", "collected", "fetched", "loan", "spend",
                            "delivery", "eyeing"}
QUESTION_TERMS = frozenset(t for f in QUESTIONS.values()
                           for t in tokenize(re.sub(r"\{\w+\}", " ", f)))
SCAFFOLD = engine.Scaffold.without(RESERVED | QUESTION_TERMS)
"""Scaffold keeps no subject, fact or question word: the mentions alone set the competition."""


def _frame_pattern(frame: str) -> re.Pattern[str]:
    pattern = re.escape(frame).replace(r"\{subject\}", r"(?P<subject>[A-Za-z]+)")
    pattern = pattern.replace(r"\{attribute\}", r"(?P<attribute>an? [a-z]+)")
    pattern = pattern.replace(r"\{value\}", r"(?P<value>[$€£]\d{3}\.\d{2})")
    return re.compile(r"(?<![A-Za-z])" + pattern)


_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    *(("purchase", _frame_pattern(f)) for f in PURCHASE_FRAMES),
    *((kind, _frame_pattern(f)) for kinds in DURATION_FRAMES.values()
      for kind, frames in kinds.items() for f in frames))


@dataclass(frozen=True)
class Parsed:
    """One statement read from text: a purchase (shop, amount) or an item's start/end event."""

    kind: str
    subject: str
    attribute: str = ""
    amount: Fraction | None = None
    currency: str | None = None
    literal: str = ""


def read_statements(text: str) -> list[Parsed]:
    """Every statement any construction could have produced in ``text``, in text order."""
    found = []
    for kind, pattern in _PATTERNS:
        for m in pattern.finditer(text):
            value = m.groupdict().get("value")
            parsed = (Parsed(kind, m["subject"]) if value is None else
                      Parsed(kind, m["subject"], m["attribute"], Fraction(Decimal(value[1:])),
                             CURRENCY_OF[value[0]], value))
            found.append((m.start(), parsed))
    return [parsed for _, parsed in sorted(found, key=lambda item: item[0])]


def format_amount(cents: int, currency: str) -> str:
    whole, frac = divmod(cents, 100)
    return f"{CURRENCIES[currency]}{whole:,}.{frac:02d}"


def _assert_banks() -> None:
    assert_disjoint("asked shops", ASKED_SHOPS, "rival shops", RIVAL_SHOPS)
    assert_disjoint("subjects", SUBJECT_WORDS, "scaffold", talk.scaffold_words())
    assert_disjoint("subjects", SUBJECT_WORDS, "frames", FRAME_WORDS)
    assert_disjoint("frames and subjects", FRAME_WORDS | SUBJECT_WORDS, "number words",
                    talk.NUMBER_WORDS)
    for frame in PURCHASE_FRAMES:
        text = frame.format(subject="Belcor", attribute="an easel", value="$412.80")
        sentence = next(s for s in re.split(r"(?<=\.) ", text) if "$412.80" in s)
        assert "Belcor" in sentence and text[0].isupper(), frame
        assert read_statements(text) == [Parsed("purchase", "Belcor", "an easel",
                                                Fraction("412.80"), "USD", "$412.80")], frame
    for kinds in DURATION_FRAMES.values():
        for kind, frames in kinds.items():
            for frame in frames:
                assert read_statements(frame.format(subject="ladder")) == [Parsed(kind, "ladder")]
    for line in (*SCAFFOLD.user, *SCAFFOLD.assistant, *SCAFFOLD.mentions):
        assert not read_statements(talk.render_mention(line, "the ladder")), line
    cross: dict[int, set[str]] = {}
    for shape, ladder in INPUT_LADDER.items():
        assert len(ladder) == SHAPE_N[shape]
        for g in ladder:
            cross.setdefault(BAND_OF_INPUTS[g], set()).add(shape)
    assert all(len(shapes) > 1 for shapes in cross.values()), cross


_assert_banks()

# --- planning ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Spec:
    """What the corpus layout decides for one question before its haystack is planned."""

    shape: str
    index: int
    g: int
    asked: tuple[str, ...]
    currency: str | None = None
    domain: str | None = None

    @property
    def key(self) -> str:
        return f"{self.shape}/{self.index}"


@lru_cache(maxsize=8)
def layout(seed: int) -> dict[str, tuple[Spec, ...]]:
    """Inputs, asked subjects, currencies, domains for the whole corpus (so a shape's records never
    depend on which other shapes are built); no shop or item is asked twice."""
    rng = derive_rng(seed, VERTICAL, "layout")
    shops, items = list(ASKED_SHOPS), list(ASKED_ITEMS)
    rng.shuffle(shops)
    rng.shuffle(items)
    out: dict[str, tuple[Spec, ...]] = {}
    for shape in SHAPES:
        ladder = list(INPUT_LADDER[shape])
        rng.shuffle(ladder)
        pool = sorted(DURATION_FRAMES) if shape == "durations" else sorted(CURRENCIES)
        labels = [pool[i % len(pool)] for i in range(SHAPE_N[shape])]
        rng.shuffle(labels)
        specs = []
        for index, (g, label) in enumerate(zip(ladder, labels)):
            if shape == "durations":
                specs.append(Spec(shape, index, g, tuple(items.pop() for _ in range(g // 2)),
                                  domain=label))
            else:
                asked = tuple(shops.pop() for _ in range(2 if shape == "deltas" else 1))
                specs.append(Spec(shape, index, g, asked, currency=label))
        out[shape] = tuple(specs)
    return out


def question_text(spec: Spec) -> str:
    if spec.domain is None:
        return QUESTIONS[spec.shape].format(a=spec.asked[0], b=spec.asked[-1])
    named = [f"the {item}" for item in spec.asked]
    items = named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]
    return QUESTIONS[spec.domain].format(verb="was" if len(named) == 1 else "were", items=items)


@dataclass
class Plan:
    spec: Spec
    subjects: list[str]
    pieces: list[str]
    clocks: list[int]
    days: list[int]
    gold: list[int]
    value: Fraction


def _coincidence(cents: Sequence[int], currencies: Sequence[str], signs: Mapping[int, int],
                 currency: str, target: int, g: int) -> list[tuple[int, SubsetItem]] | None:
    """The structure gate's search over the question-currency amounts: another subset of size
    <= G + 1 reaching the gold, or ``None``."""
    items = [SubsetItem(Fraction(c), f"session {i}", signs.get(i, 0))
             for i, (c, cur) in enumerate(zip(cents, currencies)) if cur == currency]
    return find_coincident_subset(items, Fraction(target), Fraction(0), g + SUBSET_EXTRA,
                                  signed=bool(signs) and min(signs.values()) < 0)


def _plan_purchases(seed: int, spec: Spec) -> Plan:
    rng = derive_rng(seed, VERTICAL, spec.key, "plan")
    assert spec.currency is not None
    sizes = [0]
    while not H_RANGE[0] <= sum(sizes) - spec.g <= H_RANGE[1]:
        sizes = [rng.randint(*CURRENCY_GROUP) for _ in CURRENCIES]
    n = sum(sizes)
    gold = sorted(rng.sample(range(n), spec.g))
    order = rng.sample(gold, spec.g)
    count_a = rng.randint(1, spec.g - 1) if spec.shape == "deltas" else spec.g
    signs = {p: 1 if rank < count_a else -1 for rank, p in enumerate(order)}
    filler = rng.sample([p for p in range(n) if p not in gold], n - spec.g)
    currencies, subjects = [spec.currency] * n, [""] * n
    billing = [spec.currency, *(c for c in sorted(CURRENCIES) if c != spec.currency)]
    groups: list[tuple[str, list[int]]] = []
    for code, size in zip(billing, [sizes[0] - spec.g, *sizes[1:]]):
        block, filler = filler[:size], filler[size:]
        while block:
            cut = rng.randint(*RIVAL_GROUP)
            groups.append((code, block[:cut]))
            block = block[cut:]
    for (code, group), rival in zip(groups, rng.sample(RIVAL_SHOPS, len(groups))):
        for p in group:
            currencies[p], subjects[p] = code, rival
    objects = rng.sample(PURCHASE_ITEMS, n)
    frames = engine.deal(rng, PURCHASE_FRAMES, n)
    for _ in range(ATTEMPTS):
        cents = rng.sample(range(AMOUNT_CENTS[0], AMOUNT_CENTS[1] + 1), n)
        target = sum(signs[p] * cents[p] for p in gold)
        if target < 0:
            signs, target = {p: -s for p, s in signs.items()}, -target
        if spec.shape == "counts" or (target >= MIN_DELTA_CENTS and target not in cents and
                                      _coincidence(cents, currencies, signs, spec.currency,
                                                   target, spec.g) is None):
            break
    else:
        raise GenerationError(f"{spec.key}: no amounts without a coincident subset")
    for p, s in signs.items():
        subjects[p] = spec.asked[0] if s > 0 else spec.asked[1]
    pieces = [frame.format(subject=subjects[p], attribute=f"{article(objects[p])} {objects[p]}",
                           value=format_amount(cents[p], currencies[p]))
              for p, frame in enumerate(frames)]
    value = Fraction(spec.g) if spec.shape == "counts" else Fraction(target, 100)
    days, clocks = _calendar(rng, n)
    return Plan(spec, subjects, pieces, clocks, days, gold, value)


def _calendar(rng: Any, n: int) -> tuple[list[int], list[int]]:
    """One session per calendar day (1-3 days apart) and a clock time per session, in minutes."""
    days = [rng.randint(0, 420)]
    for _ in range(n):  # the last entry is the question's day
        days.append(days[-1] + rng.randint(1, 3))
    return days, [rng.randint(*CLOCK_MINUTES) for _ in range(n + 1)]


def _plan_durations(seed: int, spec: Spec) -> Plan:
    rng = derive_rng(seed, VERTICAL, spec.key, "plan")
    assert spec.domain is not None
    n = spec.g + rng.randint(*H_RANGE)
    days, _ = _calendar(rng, n)
    for _ in range(ATTEMPTS):
        positions = rng.sample(range(n), n)
        pairs = [tuple(sorted(positions[2 * i:2 * i + 2])) for i in range(n // 2)]
        spans = [days[end] - days[start] for start, end in pairs]
        gold_spans, total = spans[:len(spec.asked)], sum(spans[:len(spec.asked)])
        if total >= MIN_DURATION_DAYS and not any(s in gold_spans or s == total
                                                  for s in spans[len(spec.asked):]):
            break
    else:
        raise GenerationError(f"{spec.key}: no item lifecycles without a coincident span")
    clocks = [rng.randint(*CLOCK_MINUTES) for _ in range(n + 1)]
    for start, end in pairs:  # the end later in the day than the start: both conventions agree
        while clocks[start] == clocks[end]:
            clocks[end] = rng.randint(*CLOCK_MINUTES)
        if clocks[end] < clocks[start]:
            clocks[start], clocks[end] = clocks[end], clocks[start]
    names = [*spec.asked, *rng.sample(RIVAL_ITEMS, len(pairs) - len(spec.asked) + n % 2)]
    subjects, pieces = [""] * n, [""] * n
    events = [(p, kind, names[i]) for i, pair in enumerate(pairs)
              for p, kind in zip(pair, ("start", "end"))]
    events += [(positions[-1], "start", names[-1])] if n % 2 else []
    decks = {kind: engine.deal(rng, frames, n) for kind, frames in DURATION_FRAMES[spec.domain].items()}
    for p, kind, name in events:
        subjects[p] = name
        pieces[p] = decks[kind].pop().format(subject=name)
    gold = sorted(p for pair in pairs[:len(spec.asked)] for p in pair)
    return Plan(spec, subjects, pieces, clocks, days, gold, Fraction(total))


def plan(seed: int, spec: Spec) -> Plan:
    return (_plan_durations if spec.shape == "durations" else _plan_purchases)(seed, spec)


def draft_of(plan_: Plan) -> engine.HaystackDraft:
    spec = plan_.spec
    start = datetime(2025, 1, 6)
    times = [start + timedelta(days=d, minutes=c) for d, c in zip(plan_.days, plan_.clocks)]
    topics = {s: f"the {s} shop" if spec.domain is None else f"the {s}"
              for s in sorted(set(plan_.subjects))}
    sessions = [engine.SessionDraft(s, [engine.Piece(text)])
                for s, text in zip(plan_.subjects, plan_.pieces)]
    return engine.HaystackDraft(spec.key, sessions, topics, spec.asked, times[:-1], times[-1],
                                EXCHANGES)


# --- reading back and checking -------------------------------------------------------------------


def read_haystack(stay: engine.Haystack) -> list[Parsed]:
    """One statement per session, read from the rendered text alone (V5)."""
    out = []
    for index, session in enumerate(stay.sessions):
        found = [p for turn in session for p in read_statements(turn.text)]
        if len(found) != 1:
            raise GenerationError(f"{stay.key}: session {index} holds {len(found)} statements")
        out.append(found[0])
    return out


def check_durations(stay: engine.Haystack, spec: Spec, parsed: Sequence[Parsed]
                    ) -> tuple[list[int], list[dict[str, Any]], Fraction]:
    """Lifecycles from the text; every item's span the same in calendar and whole elapsed days;
    no rival span equal to a gold span or the total. Returns gold sessions, inputs, total."""
    events: dict[str, list[tuple[int, str]]] = {}
    for index, p in enumerate(parsed):
        events.setdefault(p.subject, []).append((index, p.kind))
    spans: dict[str, int] = {}
    for item, seen in events.items():
        if [kind for _, kind in seen] not in (["start"], ["start", "end"]):
            raise GenerationError(f"{stay.key}: the {item} reads as {seen}")
        if len(seen) == 2:
            start, end = stay.times[seen[0][0]], stay.times[seen[1][0]]
            calendar = duration_between(start, end, "days")
            if not end.time() > start.time() or (end - start).days != calendar:
                raise GenerationError(f"{stay.key}: the {item}'s span differs between calendar "
                                      f"days ({calendar}) and whole elapsed days")
            spans[item] = int(calendar)
    if any(len(events.get(item, ())) != 2 for item in spec.asked):
        raise GenerationError(f"{stay.key}: an asked item lacks its start or end")
    total = sum(spans[item] for item in spec.asked)
    if total < MIN_DURATION_DAYS or any(span in [spans[a] for a in spec.asked] or span == total
                                        for item, span in spans.items() if item not in spec.asked):
        raise GenerationError(f"{stay.key}: a rival span equals a gold span or the total")
    inputs = [{"from_session_index": events[a][0][0], "session_index": events[a][1][0],
               "value": spans[a]} for a in spec.asked]
    gold = sorted(i for a in spec.asked for i, _ in events[a])
    return gold, inputs, Fraction(total)


def check_purchases(stay: engine.Haystack, spec: Spec, parsed: Sequence[Parsed]
                    ) -> tuple[list[int], list[dict[str, Any]], Fraction]:
    """One amount per session, unique, read with its shop; the gold from the asked shops; no
    coincident subset; the total never written. Returns gold sessions, inputs, value."""
    for index, (session, p) in enumerate(zip(stay.sessions, parsed)):
        amounts = [a.value for turn in session for a in extract_amounts(turn.text)]
        if amounts != [p.amount]:
            raise GenerationError(f"{stay.key}: session {index} states amounts {amounts}")
    if len({p.literal for p in parsed}) != len(parsed):
        raise GenerationError(f"{stay.key}: an amount appears twice in the haystack")
    gold = [i for i, p in enumerate(parsed) if p.subject in spec.asked]
    if any(parsed[i].currency != spec.currency for i in gold) or \
            {parsed[i].subject for i in gold} != set(spec.asked):
        raise GenerationError(f"{stay.key}: the asked shops' purchases are not all in the "
                              f"question's currency")
    if spec.shape == "counts":
        return gold, [{"session_index": i, "value": 1} for i in gold], Fraction(len(gold))
    signs = {i: 1 if parsed[i].subject == spec.asked[0] else -1 for i in gold}
    value = sum((signs[i] * (parsed[i].amount or 0) for i in gold), Fraction(0))
    cents = [int((p.amount or 0) * 100) for p in parsed]
    if value <= 0 or _coincidence(cents, [p.currency or "" for p in parsed], signs, spec.currency
                                  or "", int(value * 100), len(gold)) is not None:
        raise GenerationError(f"{stay.key}: another subset of amounts reaches the gold")
    if value * 100 in cents:
        raise GenerationError(f"{stay.key}: the gold total is written in the haystack")
    inputs = [{"session_index": i, "value": float(parsed[i].amount or 0),
               **({"side": "a" if signs[i] > 0 else "b"} if spec.shape == "deltas" else {})}
              for i in gold]
    return gold, inputs, value


# --- records -------------------------------------------------------------------------------------


def _answers(spec: Spec, value: Fraction, inputs: Sequence[dict[str, Any]]
             ) -> tuple[str, list[str]]:
    """The gold answer and typical wrong answers (a missing or extra input, a day off)."""
    if spec.shape == "counts":
        n = int(value)
        return f"{n} purchases", [f"{n - 1} purchases", f"{n + 1} purchases"]
    if spec.shape == "durations":
        n = int(value)
        return f"{n} days", [f"{n + 1} days", f"{n - 1} days"]
    assert spec.currency is not None
    cents = int(value * 100)
    values = [int(Fraction(i["value"]).limit_denominator(100) * 100) for i in inputs]
    other = sum(values) if spec.shape == "deltas" else cents - values[0]
    return format_amount(cents, spec.currency), [format_amount(other, spec.currency),
                                                  format_amount(cents + values[0], spec.currency)]


def build_record(seed: int, spec: Spec, rate: float, tally: engine.Tally | None = None
                 ) -> dict[str, Any]:
    """Plan, render, read the gold back from the text and check every rule of one question."""
    plan_ = plan(seed, spec)
    stay = engine.render(seed, VERTICAL, draft_of(plan_), rate, SCAFFOLD, tally)
    engine.check_haystack(stay, digits_allowed=spec.shape != "durations")
    if not H_RANGE[0] <= len(stay.sessions) - spec.g <= H_RANGE[1]:
        raise GenerationError(f"{spec.key}: H outside {H_RANGE}")
    parsed = read_haystack(stay)
    question = question_text(spec)
    if spec.shape == "durations":
        texts = [question, *(turn.text for session in stay.sessions for turn in session)]
        if any(v4_findings(text, "calendar") for text in texts) or \
                talk.NUMBER_WORDS & set(raw_tokens(" ".join(texts))):
            raise GenerationError(f"{spec.key}: a date or number word in a duration haystack")
        gold, inputs, value = check_durations(stay, spec, parsed)
    else:
        gold, inputs, value = check_purchases(stay, spec, parsed)
    if gold != plan_.gold or value != plan_.value:
        raise GenerationError(f"{spec.key}: the text reads as {gold} -> {value}, the plan says "
                              f"{plan_.gold} -> {plan_.value}")
    unit = {"counts": "purchases", "durations": "days"}.get(spec.shape, spec.currency or "")
    answer, wrong = _answers(spec, value, inputs)
    block: dict[str, Any] = {
        "answer_key": engine.answer_key(numeric={"value": float(value), "unit": unit,
                                                 "tolerance": 0.0}),
        "derivation": {"operation": OPERATIONS[spec.shape], "inputs": inputs,
                       "value": float(value), "unit": unit},
        "gold_components_load_bearing": True,
        "dial": {"name": "inputs", "value": len(gold)},
        "difficulty": BAND_OF_INPUTS[len(gold)]}
    if spec.shape == "counts":
        block["count_predicate"] = COUNT_PREDICATE.format(a=spec.asked[0])
        block["candidates"] = [{"session_index": i, "matches": p.subject == spec.asked[0],
                                "label": f"{p.attribute} from {p.subject}"}
                               for i, p in enumerate(parsed)]
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
def _shape_records(seed: int, shape: str, rate: float) -> tuple[tuple[str, ...], tuple[int, ...]]:
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
    if set(shapes) >= set(SHAPES):
        frame = set(FRAME_WORDS)
        engine.check_rarity(records, {r["question_id"]: engine.question_terms(r["question"],
                                                                              drop=frame)
                                      for r in records})
    return engine.Built(engine.finish(records), tally)


__all__ = ["ABBREV", "CALIBRATED_SHAPES", "GENERATOR", "GENERATOR_VERSION",
           "RECORDED_COMPETITION", "REVISION", "SEED", "SHAPES", "VERTICAL", "build",
           "build_record", "layout", "plan", "read_haystack", "read_statements"]
