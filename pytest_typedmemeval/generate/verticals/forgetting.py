"""TypedMemEval-Forgetting v2 (VERTICALS.md §2.5 and Appendix C), declared over :mod:`..engine`.

Does a system know which of its facts were cancelled? Every question reads "Which physio do I have
for the shoulder? Give the name, and say whether that is still current." (the currency clause ends
every question, so its form never tells the shape). Shapes:

- ``invalidated`` (20): a statement names a value ("I finally found a physio for the shoulder,
  Orvel Karbri, and first impressions are good."), 4-15 sessions later an explicit event cancels it
  ("Quick update on the physio for the shoulder. I cancelled it."); gold names the value, says it no
  longer holds and names the event. Components statement + invalidation, load-bearing.
- ``still-valid`` (15): the same value re-affirmed 4-15 sessions later; gold names it and says it
  holds. Components statement + reaffirmation, redundant. Each twins an invalidated question over one
  byte-identical haystack that holds both facts (``pair_id``, arms treatment / control); the other
  5 invalidated questions stand alone beside an unasked re-affirmed twin.
- ``never-known`` (15): the asked noun occurs nowhere in the haystack, not even as a substring; a
  near-miss fact for the same purpose sits in it. **Near-miss rule** (Appendix C): asked and
  near-miss serve the same purpose but are plainly different kinds of thing, so a fair reader
  would never take one for the other: different trades for services (the electrician vs the plumber
  for the boiler), different objects for items (the tripod vs the camera for the safari), never a
  synonym, a variant or a sub-type; no token shared and neither a substring of the other; and no pair
  in :data:`NEAR_SYNONYMS` (the v1 pairs a reader could conflate), asserted at import.

**Anatomy** (every shape alike): two tracked facts (statement, then invalidation or re-affirmation,
4-15 sessions apart) plus filler lifecycles about PARITY things no question asks, in the same mix of
kinds, so every session carries exactly one statement of a kind gold also has, drawn from the same
constructions (:data:`SAY`, several short and long per kind). Ids are opaque (``engine.assign_ids``).

**Competition** (the dial): the engine's one mention per session names an asked topic on the dial's
share, rotating over both tracked facts of a gold haystack (asked or not, so a solo haystack reads
like a paired one). Paired haystacks read the ``still-valid`` dial, solo ones the ``invalidated``
dial; never-known haystacks name the near-miss at the mean of both (recorded 0.0, not searched).
Search order: still-valid first, so the paired rate is fixed before the invalidated dial tunes the
solo haystacks.

**Validity rules** (hard errors): every fact's events read back from the text equal the plan (one
statement strictly before one follow-up, one invalidation and nothing re-validating it, the same
value re-affirmed), gold from that reading (V5); every turn stating a value names its subject and no
value word stands alone; the near-miss present and the asked noun absent; the currency clause's
words, digits and dashes nowhere; question words in < 10 % of sessions; pair haystacks rendered once;
the judge grades gold correct and typical wrong answers (stale recall, over-forgetting, the
near-miss value, a claimed loss) not correct; invalidation events are judge cues, read in both persons.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...judge.mechanical import NO_LONGER_EVENT_CUES
from ...retrieval.tokenizer import raw_tokens, tokenize
from .. import engine, talk
from ..primitives import (GenerationError, article, assert_disjoint, assert_person_invariant,
                          derive_rng)

VERTICAL = "forgetting"
ABBREV = "for"
GENERATOR = "pytest_typedmemeval.generate.verticals.forgetting"
GENERATOR_VERSION = "2"
REVISION = 2
SEED = 20260502
SHAPES = ("invalidated", "still-valid", "never-known")
CALIBRATED_SHAPES = ("still-valid", "invalidated")
RECORDED_COMPETITION: dict[str, float] = {"invalidated": 0.46875, "still-valid": 0.4296875,
                                          "never-known": 0.0}
"""The dial per shape from ``typedmemeval generate --vertical forgetting --search``."""
DIFFICULTY_NOTE = ("declared, not validated: the band is the gap from statement to its follow-up "
                   "(4-15 sessions), a position BM25 cannot feel (VERTICALS.md §2.0, §2.5 Dials)")

N_INVALIDATED, N_PAIRS, N_NEVER = 20, 15, 15
H_RANGE = (15, 25)
GAP_RANGE = (4, 15)
EXCHANGES = 3
MEMORY_TYPE = "forgetting"
CURRENCY_CLAUSE = "Give the name, and say whether that is still current."
QUESTION = "Which {noun} do I have {purpose}? " + CURRENCY_CLAUSE
ANSWERS = {"invalidation": "{value}, but that no longer holds: you {event}.",
           "reaffirmation": "{value}, and that is still current.",
           "never-known": "You never mentioned {a} {noun} {purpose}."}


@dataclass(frozen=True)
class Entry:
    """A noun with its purpose; ``sibling`` (FACTS only) is what a never-known question asks while
    this entry is the near-miss."""

    noun: str
    purpose: str
    category: str
    sibling: str = ""

    @property
    def thing(self) -> str:
        return f"{self.noun} {self.purpose}"


def _entries(category: str, rows: str) -> tuple[Entry, ...]:
    """``noun, purpose[, sibling]`` entries separated by ``;`` (purposes are "for the ...")."""
    fields = [[f.strip() for f in row.split(",")] for row in rows.replace("\n", " ").split(";")]
    return tuple(Entry(f[0], f"for the {f[1]}", category, *f[2:]) for f in fields)


FACTS = _entries("service", """
plumber, boiler, electrician; physio, shoulder, radiographer; vet, tabby, cattery;
chimney sweep, cottage, thatcher; window cleaner, conservatory, blind fitter;
music teacher, cello, luthier; gardener, orchard, tree surgeon; babysitter, twins, paediatrician;
mechanic, van, valeter; personal trainer, marathon, nutritionist; insurer, motorbike, paint sprayer;
solicitor, probate, surveyor; tutor, chemistry exam, invigilator; osteopath, back pain, pharmacist;
florist, wedding, caterer; printer, flyers, illustrator;
broadband provider, studio, alarm installer;
housekeeper, office, receptionist; letting agent, rental, interior designer;
dog groomer, spaniel, kennel""") + _entries("item", """
camera, safari, tripod; paddleboard, lake trips, life jacket; wetsuit, cold swims, tow float;
road bike, commute, pannier; tent, festival, cool box; telescope, stargazing, deckchair;
sewing machine, quilting, pin cushion; espresso maker, breakfast bar, toaster;
lawnmower, lawn, sprinkler; kayak, estuary, trolley; drone, surveys, measuring wheel;
keyboard, band, amplifier; snowboard, ski trip, helmet; pram, baby, highchair;
laptop, coding bootcamp, textbook; exercise cycle, annexe, futon; caravan, summer tour, awning;
cot, nursery, nightlight; pizza oven, courtyard, parasol; metal detector, field digs, trowel""")
"""Facts questions ask about; ``sibling`` is the near-miss rule's plainly different thing."""
PARITY = _entries("service", """
tailor, wool coat; locksmith, garage; barber, beard; farrier, pony; upholsterer, armchair;
glazier, greenhouse; bricklayer, porch; decorator, hallway; podiatrist, bunion;
optician, varifocals; translator, visa papers; courier, parcels; carpet layer, landing;
roofer, dormer; beekeeper, hives; cobbler, boots; clocksmith, mantel;
stonemason, boundary wall; removal firm, relocation; log supplier, stove""") + _entries("item", """
tennis racket, club matches; fishing rod, canal; climbing rope, crag; hiking pole, fells;
pressure washer, patio; waffle iron, breakfasts; easel, watercolours; ukulele, campfire;
dehumidifier, cellar; sleeping bag, bothy stays; golf clubs, links; microscope, pond samples;
trailer, tip runs; skateboard, skatepark; dartboard, snug; sledge, winter hills;
barbecue, terrace; projector, movie nights; hammock, veranda; ladder, loft""")
"""Filler things no question asks about (§2.5 rule 5), in the same two categories."""

NEAR_SYNONYMS: frozenset[frozenset[str]] = frozenset(frozenset(pair.split("/")) for pair in (
    "canoe/kayak, dentist/orthodontist, accountant/bookkeeper, chiropractor/physio, "
    "conveyancer/solicitor, babysitter/nanny, personal trainer/running coach, drysuit/wetsuit, "
    "kiteboard/paddleboard, letting agent/property manager, overlocker/sewing machine, "
    "keyboard/synthesiser, masseur/osteopath, caretaker/housekeeper, laptop/tablet, "
    "exercise cycle/treadmill, snowboard/toboggan, lawnmower/strimmer, mentor/tutor, "
    "mechanic/panel beater, gardener/landscaper, tent/campervan, camera/camcorder, "
    "plumber/heating engineer, broadband provider/phone carrier, vet/animal nurse, "
    "physio/sports masseur, florist/flower seller, printer/copy shop").split(", "))
"""Pairs a fair reader could conflate (v1 near-misses among them): never asked beside each other."""

# --------------------------------------------------------------------------------------------
# Constructions and values

EVENTS = {"service": ("cancelled it", "stopped using them", "let them go", "dropped them"),
          "item": ("sold it", "gave it away", "got rid of it", "parted with it")}
"""Explicit invalidation events (rule 3), "I {event}" in a session and "you {event}" in gold."""

_THINK = "I had a good think about the {thing} on my walk. In the end I %s, and it feels right."
_INVALIDATION = (
    "Quick update on the {thing}. I {event}.", _THINK % "{event}",
    "Things with the {thing} went downhill, so I {event}.",
    "I {event}, the {thing} I mean. It was not working out.",
    "The {thing} has run its course, so I {event}.",
    "Right, the {thing}. I {event}, and I feel lighter for it.")
SAY: dict[tuple[str, str], tuple[str, ...]] = {
    ("statement", "service"): (
        "I finally found {a} {thing}, {value}, and first impressions are good.",
        "Quick update on the {thing}. I went with {value}.", _THINK % "went with {value}",
        "After a lot of asking around I signed up with {value} as my {thing}. They came "
        "recommended by a friend.",
        "The {thing} is sorted at last. It is {value}.", "I have taken on {value} as the {thing}."),
    ("statement", "item"): (
        "I finally bought {a} {thing}, the {value}, and it arrived safely.",
        "Quick update on the {thing}. I went with the {value}.", _THINK % "went with the {value}",
        "After reading a pile of reviews I ordered the {value} as my {thing}. It looks well made.",
        "The {thing} is sorted at last. It is the {value}.",
        "I have picked up the {value} as the {thing}."),
    ("reaffirmation", "service"): (
        "Quick update on the {thing}. I stayed with {value}.", _THINK % "stayed with {value}",
        "I thought about switching the {thing} but stuck with {value}. They have been reliable.",
        "The {thing} carries on being {value}, which suits me fine.",
        "I kept {value} on as the {thing}, happy to report."),
    ("reaffirmation", "item"): (
        "Quick update on the {thing}. I kept the {value}.", _THINK % "kept the {value}",
        "I thought about upgrading the {thing} but stuck with the {value}. It has been reliable.",
        "The {thing} carries on being the {value}, which suits me fine.",
        "I kept the {value} as the {thing}, happy to report."),
    ("invalidation", "service"): _INVALIDATION,
    ("invalidation", "item"): _INVALIDATION,
}
"""Constructions, shared by gold and filler: {thing} is "physio for the shoulder", {a} its article,
{value} an invented name, {event} one of EVENTS. Short and long ones per kind; the two openers
"Quick update on the" and "I had a good think about" serve every kind, so no frame leans towards
the two kinds one arm's gold holds."""

_SYLLABLES = ("or", "vel", "nes", "kar", "bri", "tum", "lo", "sen", "dak", "mir", "pho", "gat",
              "qua", "zen", "hib", "rox", "fey", "dre")
_NAMES = sorted({(a + b).capitalize() for a in _SYLLABLES for b in _SYLLABLES if a != b})
GOLD_VALUE_WORDS, PARITY_VALUE_WORDS = tuple(_NAMES[0::2]), tuple(_NAMES[1::2])
"""Tracked facts and filler draw from disjoint interleaved pools: filler never says a tracked value."""
VALUE_WORDS = frozenset(w.lower() for w in _NAMES)
_VALUE = r"[A-Z][a-z]+ [A-Z][a-z]+"

_LINKS = frozenset({"for", "the"})
FACT_WORDS = frozenset(w for e in FACTS + PARITY for w in raw_tokens(e.thing)) - _LINKS
SIBLING_WORDS = frozenset(w for e in FACTS for w in raw_tokens(e.sibling))
CURRENCY_WORDS = frozenset(tokenize(CURRENCY_CLAUSE))
FRAME_WORDS = frozenset(w for ts in SAY.values() for t in ts for w in raw_tokens(re.sub(
    r"\{\w+\}", " ", t))) | {w for es in EVENTS.values() for e in es for w in raw_tokens(e)}
_HEADS = {e.sibling for e in FACTS} | {e.sibling.split()[-1] for e in FACTS}
SCAFFOLD = engine.Scaffold.without(
    FACT_WORDS | SIBLING_WORDS | VALUE_WORDS | CURRENCY_WORDS
    | {w for w in talk.scaffold_words() if any(h in w for h in _HEADS)})
"""Scaffold lines with no fact, sibling, value or clause word, nor any word containing an asked
never-known noun (the never-known check is by substring)."""


def _assert_banks() -> None:
    """Import-time checks (GENERATION.md): banks disjoint, each entry owns its words, near-misses
    plainly different, events judge cues in both persons, templates well formed."""
    scaffold = SCAFFOLD.words()
    assert_disjoint("fact words", FACT_WORDS, "scaffold and frames", scaffold | FRAME_WORDS)
    assert_disjoint("sibling words", SIBLING_WORDS, "fact, frame and scaffold words",
                    FACT_WORDS | FRAME_WORDS | scaffold)
    assert_disjoint("values", VALUE_WORDS, "every bank",
                    FACT_WORDS | SIBLING_WORDS | FRAME_WORDS | scaffold | CURRENCY_WORDS)
    assert_disjoint("currency clause", CURRENCY_WORDS, "frames, scaffold", FRAME_WORDS | scaffold)
    owners = [w for e in FACTS + PARITY for w in set(raw_tokens(e.thing)) - _LINKS]
    assert len(owners) == len(set(owners)), "fact/parity entries share words"
    texts = [e.thing for e in FACTS + PARITY] + [v.lower() for v in _NAMES]
    for entry in FACTS:
        pair = frozenset({entry.noun, entry.sibling})
        assert pair not in NEAR_SYNONYMS, f"near-synonym near-miss {sorted(pair)}"
        assert not set(raw_tokens(entry.noun)) & set(raw_tokens(entry.sibling)), entry
        assert not entry.sibling.endswith("s"), f"{entry.sibling}: a singular noun reads 'a ...'"
        heads = (entry.sibling, entry.sibling.split()[-1])
        assert not any(h in t for h in heads for t in texts), entry
    assert_person_invariant([e for es in EVENTS.values() for e in es], where="EVENTS")
    for event in (e for es in EVENTS.values() for e in es):
        assert any(re.search(rf"\b{re.escape(c)}\b", event) for c in NO_LONGER_EVENT_CUES), event
    for (kind, category), templates in SAY.items():
        for template in templates:
            assert "{thing}" in template and ("{value}" in template) == (kind != "invalidation")
            assert ":" not in template and template.endswith(".")


_assert_banks()

# --------------------------------------------------------------------------------------------
# Planning


@dataclass
class Fact:
    """One lifecycle: a statement, then ``follow`` (or nothing), at ``positions``."""

    entry: Entry
    follow: str | None
    positions: tuple[int, ...]
    value: str = ""


def _positions(n: int, gaps: Sequence[int], rng: random.Random) -> list[tuple[int, int]]:
    """Disjoint (first, first + gap) pairs, drawn uniformly; redrawn until all fit, and refused
    (never looped on) when a haystack of ``n`` sessions cannot hold them (a seed whose draw is too
    short for its gaps is a validity failure of that draw, not a hang)."""
    for _ in range(POSITION_ATTEMPTS):
        out: list[tuple[int, int]] = []
        for gap in gaps:
            taken = {p for pair in out for p in pair}
            choices = [p for p in range(n - gap) if not {p, p + gap} & taken]
            if not choices:
                break
            first = rng.choice(choices)
            out.append((first, first + gap))
        if len(out) == len(gaps):
            return out
    raise GenerationError(f"{n} sessions cannot hold disjoint pairs at gaps {list(gaps)} "
                          f"({POSITION_ATTEMPTS} draws)")


POSITION_ATTEMPTS = 1000


def _values(rng: random.Random, pool: Sequence[str], count: int) -> list[str]:
    """``count`` two-word names, no word used twice (the pools are disjoint, so nor across them)."""
    words = rng.sample(pool, 2 * count)
    return [f"{first} {last}" for first, last in zip(words[0::2], words[1::2])]


def _plan(seed: int, key: str, tracked: Sequence[Entry], follows: Sequence[str],
          gaps: Sequence[int], extra: int) -> tuple[list[Fact], random.Random]:
    """Tracked facts at the given gaps, filler lifecycles (alternating follow-ups) elsewhere."""
    rng = derive_rng(seed, VERTICAL, key, "plan")
    n = rng.randint(*H_RANGE) + extra
    facts = [Fact(e, f, p) for e, f, p in zip(tracked, follows, _positions(n, gaps, rng))]
    free = [p for p in range(n) if all(p not in f.positions for f in facts)]
    rng.shuffle(free)
    parity = rng.sample(PARITY, (len(free) + 1) // 2)
    start = rng.randrange(2)
    for index, entry in enumerate(parity):
        pair = tuple(sorted(free[2 * index:2 * index + 2]))
        follow = ("invalidation", "reaffirmation")[(start + index) % 2] if len(pair) == 2 else None
        facts.append(Fact(entry, follow, pair))
    values = _values(rng, GOLD_VALUE_WORDS, len(tracked))
    values += _values(rng, PARITY_VALUE_WORDS, len(facts) - len(tracked))
    for fact, value in zip(facts, values):
        fact.value = value
    return facts, rng


def _say(rng: random.Random, fact: Fact, kind: str) -> engine.Piece:
    entry = fact.entry
    template = rng.choice(SAY[kind, entry.category])
    return engine.Piece(template.format(thing=entry.thing, a=article(entry.noun), value=fact.value,
                                        event=rng.choice(EVENTS[entry.category])))


def _render(seed: int, key: str, facts: list[Fact], asked: Sequence[Entry], rate: float,
            rng: random.Random, tally: engine.Tally) -> engine.Haystack:
    n = sum(len(f.positions) for f in facts)
    sessions: list[engine.SessionDraft | None] = [None] * n
    for fact in facts:
        for position, kind in zip(fact.positions, ("statement", fact.follow)):
            sessions[position] = engine.SessionDraft(fact.entry.thing, [_say(rng, fact, str(kind))])
    times, question_time = engine.daily_times(rng, n)
    draft = engine.HaystackDraft(key, [s for s in sessions if s is not None],
                                 {f.entry.thing: f"the {f.entry.thing}" for f in facts},
                                 tuple(e.thing for e in asked), times, question_time, EXCHANGES)
    stay = engine.render(seed, VERTICAL, draft, rate, SCAFFOLD, tally)
    engine.check_haystack(stay)
    check_facts(stay, facts)
    return stay


# --------------------------------------------------------------------------------------------
# Reading back from the text (V5) and the validity rules


@dataclass(frozen=True)
class Event:
    session: int
    piece: int
    kind: str
    value: str | None
    event: str | None


def _pattern(entry: Entry, kind: str) -> re.Pattern[str]:
    parts = []
    for i, template in enumerate(SAY[kind, entry.category]):
        body = re.escape(template).replace(r"\{thing\}", re.escape(entry.thing))
        body = body.replace(r"\{a\}", "(?:a|an)").replace(r"\{value\}", f"(?P<v{i}>{_VALUE})")
        events = "|".join(map(re.escape, EVENTS[entry.category]))
        parts.append(body.replace(r"\{event\}", f"(?P<e{i}>{events})"))
    return re.compile("|".join(f"(?:{p})" for p in parts))


def read(stay: engine.Haystack, entry: Entry) -> list[Event]:
    """Every statement about ``entry`` in the rendered text alone, in session order."""
    found = []
    for kind in ("statement", "reaffirmation", "invalidation"):
        pattern = _pattern(entry, kind)
        for s, session in enumerate(stay.sessions):
            for t, turn in enumerate(session):
                for match in pattern.finditer(turn.text):
                    groups = {k[0]: v for k, v in match.groupdict().items() if v}
                    if t not in stay.piece_turns[s]:
                        raise GenerationError(f"{stay.key}: a statement outside a piece: {match[0]!r}")
                    found.append(Event(s, stay.piece_turns[s].index(t), kind, groups.get("v"),
                                       groups.get("e")))
    return sorted(found, key=lambda e: e.session)


def check_facts(stay: engine.Haystack, facts: Sequence[Fact]) -> None:
    """Each fact reads back as planned; every value is stated with its subject in its turn; no value
    word outside a full value; no currency-clause word."""
    for fact in facts:
        got = [(e.session, e.kind, e.value) for e in read(stay, fact.entry)]
        want = [(fact.positions[0], "statement", fact.value)]
        if fact.follow:
            want.append((fact.positions[1], fact.follow,
                         None if fact.follow == "invalidation" else fact.value))
        if got != want:
            raise GenerationError(f"{stay.key}: {fact.entry.thing!r} reads back as {got}, "
                                  f"planned {want}")
    owners = {f.value: f.entry.thing for f in facts}
    for session in stay.texts():
        for text in session:
            full = [m.group(0) for m in re.finditer(_VALUE, text)
                    if set(m.group(0).lower().split()) <= VALUE_WORDS]
            for value in full:
                if value not in owners or owners[value] not in text:
                    raise GenerationError(f"{stay.key}: {value!r} without its subject: {text!r}")
            loose = set(raw_tokens(text)) & VALUE_WORDS
            if loose - {w.lower() for v in full for w in v.split()}:
                raise GenerationError(f"{stay.key}: value word outside a full value: {text!r}")
            if set(raw_tokens(text)) & CURRENCY_WORDS:
                raise GenerationError(f"{stay.key}: currency-clause word in {text!r}")


# --------------------------------------------------------------------------------------------
# Records


def _gold_record(stay: engine.Haystack, facts: Sequence[Fact], asked: Fact, shape: str, key: str,
                 pair: int | None) -> tuple[dict[str, Any], list[str]]:
    """The record of a tracked fact, its gold read back from the text (V5), and wrong answers."""
    events = read(stay, asked.entry)
    if [e.kind for e in events[:1]] != ["statement"] or len(events) != 2 or \
            events[1].kind == "statement" or events[0].session >= events[1].session:
        raise GenerationError(f"{stay.key}: {asked.entry.thing!r} needs a statement, then one "
                              f"follow-up: {events}")
    first, follow = events
    gap = follow.session - first.session
    if not GAP_RANGE[0] <= gap <= GAP_RANGE[1]:
        raise GenerationError(f"{stay.key}: components {gap} sessions apart")
    value = str(first.value)
    others = [f.value for f in facts if f.value != value]
    twin = next(f.value for f in facts[:2] if f is not asked)
    components = [{"kind": "statement", "session_index": first.session, "memory_type": MEMORY_TYPE},
                  {"kind": follow.kind, "session_index": follow.session, "memory_type": MEMORY_TYPE}]
    if follow.kind == "invalidation":
        if shape != "invalidated":
            raise GenerationError(f"{stay.key}: a {shape} fact reads as invalidated")
        answer = ANSWERS["invalidation"].format(value=value, event=follow.event)
        key_ = engine.answer_key(must_name=[value], stale=[value], wrong=others,
                                 expected_negative="no_longer")
        extra: dict[str, Any] = {"gold_components_load_bearing": True}
        wrong = [f"{value}, and that is still current.", f"{twin}, and that is still current."]
    else:
        if shape != "still-valid" or follow.value != value:
            raise GenerationError(f"{stay.key}: the re-affirmation does not repeat {value!r}")
        answer = ANSWERS["reaffirmation"].format(value=value)
        key_ = engine.answer_key(accepted=[value], wrong=others, expected_negative="still")
        extra = {"gold_components_redundant": True}
        wrong = [f"{value}, but that no longer holds: you dropped it.", f"{twin}, and that is current."]
    low, high = GAP_RANGE
    block = {"answer_key": key_, "gold_components": components,
             "dial": {"name": f"statement_to_{follow.kind}_sessions", "value": gap},
             "difficulty": 1 + (gap - low) * 5 // (high - low + 1), **extra}
    if pair is not None:
        block.update(pair_id=f"tme-{ABBREV}-p{pair:02d}",
                     arm="treatment" if shape == "invalidated" else "control")
    rec = engine.record(stay, question_id=key, vertical=VERTICAL, shape=shape,
                        memory_type=MEMORY_TYPE, question=QUESTION.format(
                            noun=asked.entry.noun, purpose=asked.entry.purpose),
                        answer=answer, gold=[(e.session, e.piece) for e in events], block=block)
    return rec, wrong


def _never_record(stay: engine.Haystack, facts: Sequence[Fact], near: Entry, key: str
                  ) -> tuple[dict[str, Any], list[str]]:
    """Abstention: the asked noun nowhere (substring), the near-miss read back from the text."""
    text = "\n".join(t for session in stay.texts() for t in session).lower()
    for needle in (near.sibling, near.sibling.split()[-1]):
        if needle in text:
            raise GenerationError(f"{stay.key}: never-known noun {needle!r} occurs in the haystack")
    seen = read(stay, near)
    if not seen or seen[0].value is None:
        raise GenerationError(f"{stay.key}: the near-miss {near.thing!r} is missing")
    answer = ANSWERS["never-known"].format(a=article(near.sibling), noun=near.sibling,
                                           purpose=near.purpose)
    key_ = engine.answer_key(wrong=[f.value for f in facts], expected_negative="abstain")
    rec = engine.record(stay, question_id=key, vertical=VERTICAL, shape="never-known",
                        memory_type=MEMORY_TYPE, question=QUESTION.format(
                            noun=near.sibling, purpose=near.purpose),
                        answer=answer, gold=[], block={"answer_key": key_})
    return rec, [f"{seen[0].value}, and that is still current.", "You got rid of it in the end."]


# --------------------------------------------------------------------------------------------
# Build


def _spread(count: int) -> list[int]:
    """``count`` gaps spread evenly over 4..15 (§2.5 "evenly spread")."""
    low, high = GAP_RANGE
    return [low + i * (high - low + 1) // count for i in range(count)]


def _rates(competition_by_shape: Mapping[str, float]) -> dict[str, float]:
    rates = {s: float(competition_by_shape[s]) for s in CALIBRATED_SHAPES}
    for shape, rate in rates.items():
        if not 0.0 <= rate <= 1.0:
            raise GenerationError(f"competition for {shape} must lie in [0, 1], got {rate}")
    return {**rates, "never-known": sum(rates.values()) / len(rates)}


def build(seed: int, competition_by_shape: Mapping[str, float], *,
          shapes: Sequence[str] = SHAPES) -> engine.Built:
    """The corpus (records in id order) and the rendering tally; every validity rule checked.

    Paired haystacks are rendered once for both arms; a shape's records never depend on which
    other shapes are built (the layout is drawn whole, ids are assigned over every shape)."""
    rates = _rates(competition_by_shape)
    tally = engine.Tally()
    layout = derive_rng(seed, VERTICAL, "layout")
    gaps_t, gaps_c = _spread(N_INVALIDATED), _spread(N_PAIRS)
    layout.shuffle(gaps_t)
    layout.shuffle(gaps_c)
    entries = layout.sample(FACTS, 2 * N_INVALIDATED)
    near_misses = layout.sample(FACTS, N_NEVER)
    out: list[tuple[dict[str, Any], list[str]]] = []
    for index in range(N_INVALIDATED if {"invalidated", "still-valid"} & set(shapes) else 0):
        treated, twin = entries[2 * index:2 * index + 2]
        paired = index < N_PAIRS
        key = f"pair/{index:02d}" if paired else f"solo/{index:02d}"
        gap_twin = (gaps_c[index] if paired
                    else derive_rng(seed, VERTICAL, key, "gap").randint(*GAP_RANGE))
        facts, rng = _plan(seed, key, (treated, twin), ("invalidation", "reaffirmation"),
                           (gaps_t[index], gap_twin), 2)
        stay = _render(seed, key, facts, (treated, twin),
                       rates["still-valid" if paired else "invalidated"], rng, tally)
        arms = [("invalidated", facts[0], f"invalidated/{index:02d}")]
        if paired:
            arms.append(("still-valid", facts[1], f"still-valid/{index:02d}"))
        for shape, fact, qid in arms:
            if shape in shapes:
                pair = index + 1 if paired else None
                rec, wrong = _gold_record(stay, facts, fact, shape, qid, pair)
                out.append((rec, wrong))
    for index in range(N_NEVER if "never-known" in shapes else 0):
        key = f"never-known/{index:02d}"
        near = near_misses[index]
        rng = derive_rng(seed, VERTICAL, key, "choose")
        other = rng.choice([e for e in FACTS if e is not near])
        follows = rng.sample(["invalidation", "reaffirmation"], 2)
        facts, rng = _plan(seed, key, (near, other), follows,
                           (rng.randint(*GAP_RANGE), rng.randint(*GAP_RANGE)), 0)
        stay = _render(seed, key, facts, (near,), rates["never-known"], rng, tally)
        rec, wrong = _never_record(stay, facts, near, key)
        out.append((rec, wrong))
    records = [rec for rec, _ in out]
    for rec, wrong in out:
        engine.judge_gold(rec, wrong_answers=wrong)
    if set(shapes) >= set(SHAPES):
        engine.check_rarity(records, {r["question_id"]: engine.question_terms(
            r["question"], drop=CURRENCY_WORDS) for r in records})
    everything = [f"{s}/{i:02d}" for s, n in zip(SHAPES, (N_INVALIDATED, N_PAIRS, N_NEVER))
                  for i in range(n)]
    stubs = [{"question_id": q} for q in everything if q not in {r["question_id"] for r in records}]
    engine.assign_ids(records + stubs, seed=seed, vertical=VERTICAL, abbrev=ABBREV)
    records.sort(key=lambda r: r["question_id"])
    return engine.Built(engine.finish(records), tally)


__all__ = ["ABBREV", "CALIBRATED_SHAPES", "CURRENCY_CLAUSE", "FACTS",
           "GENERATOR", "GENERATOR_VERSION", "NEAR_SYNONYMS", "PARITY", "RECORDED_COMPETITION",
           "REVISION", "SAY", "SEED", "SHAPES", "VERTICAL", "build", "read"]
