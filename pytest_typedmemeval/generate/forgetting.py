"""TypedMemEval-Forgetting v1 generator (VERTICALS.md §2.5), on the one template machinery.

**What a question looks like.** "Which physio do I have for the shoulder? Give the name, and say
whether that is still current." Three shapes:

- ``invalidated`` (20, ``tme-for-001``..``020``): the haystack states a value for the noun, and
  4-15 sessions later an explicit event cancels it. Gold names the value, says it no longer holds
  and names the event. Gold components ``statement`` + ``invalidation``, load-bearing.
- ``still-valid`` (15, ``tme-for-021``..``035``): the same kind of fact with a later
  re-affirmation of the same value; gold names the value and says it still holds. Components
  ``statement`` + ``reaffirmation``, redundant (outside V6). ``tme-for-0NN`` twins ``0NN+20``
  (``pair_id`` ``tme-for-pNN``, arms ``treatment`` / ``control``) over one byte-identical haystack:
  the haystack holds both facts, and each arm's gold is the other arm's distractor pair.
- ``never-known`` (15, ``tme-for-036_abs``..``050_abs``): the asked noun occurs nowhere in the
  haystack, not even as a substring; a near-miss neighbour (a related noun for the same purpose,
  with a named value) sits in it so that abstaining takes discrimination.

**Every haystack has the same anatomy**, whatever its shape: two *tracked* facts (one that is
invalidated, one that is re-affirmed; for an unpaired invalidated question the second is simply not
asked, for never-known both are the near-miss and a sibling), and filler lifecycles about parity
nouns no question asks about, in the same mix of kinds (statement, then invalidation or
re-affirmation). Every session carries exactly one statement, rendered as one user turn of a lead-in
that names noun and purpose plus one kind sentence, in a uniformly random user slot of three
exchanges. Gold and filler come from the same constructions; they differ in noun and value.

**Echo.** Each haystack has two echo sources: the base question of each tracked fact (before the
currency clause; for never-known, the asked question minus the asked noun). Every session carries
exactly one clause of ``k`` question words from its side's source plus one or two neutral words
(parity vocabulary of the haystack). Sides and ``k`` are handed out by :func:`machinery.dither`
counters blind to gold status; the one rule that touches facts is symmetric: a session never
echoes its own fact's question (so gold never carries its own query words, and its clause is a
distractor clause with the exempt words removed). The knob ``e`` of a side sets
``k = e * |source words|`` on average. Shapes: ``invalidated`` sets the side of the invalidated
fact, ``still-valid`` the side of the re-affirmed fact, ``never-known`` applies their mean and is
recorded as 0.0 (not searched, §4.9).

**Randomness.** One ``random.Random`` per haystack and purpose (``plan``, ``echo``, ``render``,
``pad``), derived from (vertical seed, haystack key) by :func:`machinery.derive_rng`; a paired
haystack is keyed by its pair, since both arms' questions own the same bytes. Values are drawn at
random from the pools; gaps are spread evenly over 4-15 and shuffled by one ``layout`` stream. The
echo has its own stream, so moving a knob changes echo clauses and padding only.

**Validity rules** (hard errors, :class:`machinery.GenerationError`): every turn that states a value
names its subject (per turn, from the value banks); statement strictly before invalidation in order
and time; one invalidation and nothing re-validating it; re-affirmation repeats the same value;
never-known haystacks free of the asked noun and its head word (substring); gold recomputed from
the rendered text (V5); the currency clause's words nowhere in a haystack; no digits or dashes;
pair haystacks byte-identical (one rendering serves both arms); question vocabulary rare corpus-wide (< 10% of sessions, what the V7 relevance
exemption relies on); the mechanical judge grades every gold answer ``correct``.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal

from ..corpus.models import AnswerKey, QuestionRecord, format_corpus_date
from ..judge.mechanical import NO_LONGER_EVENT_CUES, judge_answer
from ..judge.outcomes import Outcome
from ..retrieval.tokenizer import raw_tokens, tokenize
from .banks import ASSISTANT_TALK
from .machinery import (
    ECHO_LEAD_IN,
    PAD_BANKS,
    ROLES,
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
    assert_person_invariant,
    content_words,
    derive_rng,
    dither,
    draw_terms,
    pad_haystack,
    render_session,
)

VERTICAL = "forgetting"
ABBREV = "for"
GENERATOR = "pytest_typedmemeval.generate.forgetting"
GENERATOR_VERSION = "1"
SEED = 20260502
"""The vertical seed of the shipped corpus (revision 1). Changing it changes the corpus."""

SHAPES = ("invalidated", "still-valid", "never-known")
CALIBRATED_SHAPES = ("invalidated", "still-valid")
"""Shapes with gold, in search order; never-known (G = 0) takes their mean (§4.9)."""

RECORDED_ECHO: dict[str, float] = {"invalidated": 0.818359375, "never-known": 0.0, "still-valid": 0.796875}
"""The echo per shape recorded at authoring time by ``typedmemeval generate --vertical forgetting
--search`` (sweep, then bisection; :mod:`.calibration`). Rebuilds read these and never search.
never-known reads 0.0 = not searched; the echo applied to it is the mean of the other two."""

CALIBRATION_RECORD: dict[str, Any] = {
    "by_shape": {"invalidated": {"bracket": [0.75, 0.875],
                                 "coverage": 0.7,
                                 "echo": 0.818359375,
                                 "iterations": 15,
                                 "points": [[0.0, 1.0], [0.125, 1.0], [0.25, 1.0], [0.375, 1.0],
                                            [0.5, 1.0], [0.625, 1.0], [0.75, 0.925], [0.875, 0.5],
                                            [1.0, 0.5], [0.8125, 0.8], [0.84375, 0.65],
                                            [0.828125, 0.65], [0.8203125, 0.675],
                                            [0.81640625, 0.75], [0.818359375, 0.7]]},
                 "still-valid": {"bracket": [0.75, 0.875],
                                 "coverage": 0.7,
                                 "echo": 0.796875,
                                 "iterations": 12,
                                 "points": [[0.0, 1.0], [0.125, 1.0], [0.25, 1.0], [0.375, 1.0],
                                            [0.5, 1.0], [0.625, 1.0], [0.75, 0.833333],
                                            [0.875, 0.533333], [1.0, 0.4], [0.8125, 0.6],
                                            [0.78125, 0.733333], [0.796875, 0.7]]}},
    "ceiling": 0.9,
    "iterations": 27,
    "k_ref": 5,
    "method": "sweep (9 points over [0, 1]) then bisection inside the bracket (6 steps max, "
              "tolerance 0.0125), per shape in order",
    "target": 0.7,
}
"""What that authoring search reported (points evaluated, bracket, iterations), for the sidecar.
Coverage here is at search time; the sidecar's coverage block is re-derived from the final bytes."""

DIFFICULTY_NOTE = ("declared, not validated: the dial is the gap from statement to its follow-up, a "
                   "position BM25 cannot feel (VERTICALS.md §2.0, §2.5 Dials)")

N_INVALIDATED = 20
N_PAIRS = 15
N_NEVER = 15
H_RANGE = (15, 25)
GAP_RANGE = (4, 15)
"""§2.5: G = 2 with the components 4-15 sessions apart (index difference); H 15-25."""
EXCHANGES = 3
"""User/assistant exchanges per session; the statement takes a uniformly random user slot."""
NEUTRAL_TERMS = (1, 2)
"""Neutral (non-question) words per echo clause, drawn uniformly per session."""
MEMORY_TYPE = "forgetting"
RARE_SHARE = 0.10
"""V7 relevance exemption: question words must stay in < 10% of sessions corpus-wide."""

CURRENCY_CLAUSE = "Give the name, and say whether that is still current."
"""§2.5: both arms of every paired fact end with this sentence (here every question does, so the
form of a question does not give its shape away)."""
QUESTION_FRAME = "Which {subject} do I have {attribute}?"
"""Frame words are all reference stopwords: the query terms are exactly noun and purpose."""

Kind = Literal["statement", "invalidation", "reaffirmation"]


# --------------------------------------------------------------------------------------------
# Banks


@dataclass(frozen=True)
class Entry:
    """A noun with its purpose. ``sibling`` is a related noun for the same purpose that a
    never-known question may ask about while this entry sits in the haystack as near-miss."""

    noun: str
    purpose: str
    category: Literal["service", "item"]
    sibling: str = ""

    @property
    def words(self) -> frozenset[str]:
        return frozenset(tokenize(f"{self.noun} {self.purpose}"))


FACTS: tuple[Entry, ...] = (
    Entry("physio", "for the shoulder", "service", "chiropractor"),
    Entry("letting agent", "for the flat", "service", "property manager"),
    Entry("dog groomer", "for the spaniel", "service", "dog walker"),
    Entry("piano tuner", "for the upright", "service", "piano teacher"),
    Entry("chimney sweep", "for the cottage", "service", "roofer"),
    Entry("accountant", "for the tax return", "service", "bookkeeper"),
    Entry("broadband provider", "for the studio", "service", "phone carrier"),
    Entry("window cleaner", "for the conservatory", "service", "gutter repairer"),
    Entry("vet", "for the tabby", "service", "pet sitter"),
    Entry("dentist", "for the crown", "service", "orthodontist"),
    Entry("plumber", "for the boiler", "service", "electrician"),
    Entry("driving instructor", "for the lessons", "service", "theory examiner"),
    Entry("music teacher", "for the cello", "service", "luthier"),
    Entry("gardener", "for the allotment", "service", "tree surgeon"),
    Entry("babysitter", "for the twins", "service", "nanny"),
    Entry("mechanic", "for the van", "service", "panel beater"),
    Entry("housekeeper", "for the office", "service", "caretaker"),
    Entry("personal trainer", "for the marathon", "service", "running coach"),
    Entry("insurer", "for the motorbike", "service", "roadside rescue"),
    Entry("solicitor", "for the house sale", "service", "conveyancer"),
    Entry("tutor", "for the chemistry exam", "service", "mentor"),
    Entry("osteopath", "for the back pain", "service", "masseur"),
    Entry("florist", "for the wedding", "service", "caterer"),
    Entry("printer", "for the flyers", "service", "graphic designer"),
    Entry("paddleboard", "for the lake trips", "item", "kiteboard"),
    Entry("wetsuit", "for the cold swims", "item", "drysuit"),
    Entry("road bike", "for the commute", "item", "scooter"),
    Entry("tent", "for the festival", "item", "campervan"),
    Entry("telescope", "for the stargazing", "item", "binoculars"),
    Entry("sewing machine", "for the quilting", "item", "overlocker"),
    Entry("espresso maker", "for the kitchen", "item", "grinder"),
    Entry("lawnmower", "for the lawn", "item", "strimmer"),
    Entry("kayak", "for the estuary", "item", "canoe"),
    Entry("drone", "for the surveys", "item", "gimbal"),
    Entry("keyboard", "for the band", "item", "synthesiser"),
    Entry("camera", "for the safari", "item", "tripod"),
    Entry("snowboard", "for the ski trip", "item", "toboggan"),
    Entry("pram", "for the baby", "item", "highchair"),
    Entry("laptop", "for the coding course", "item", "tablet"),
    Entry("exercise cycle", "for the spare room", "item", "treadmill"),
)
"""Facts questions ask about (invalidated and still-valid: each entry once; never-known: the
near-miss and its sibling fact, drawn again)."""

PARITY: tuple[Entry, ...] = (
    Entry("tailor", "for the wool coat", "service"),
    Entry("locksmith", "for the garage", "service"),
    Entry("barber", "for the beard", "service"),
    Entry("farrier", "for the pony", "service"),
    Entry("upholsterer", "for the armchair", "service"),
    Entry("glazier", "for the greenhouse", "service"),
    Entry("bricklayer", "for the porch", "service"),
    Entry("decorator", "for the hallway", "service"),
    Entry("podiatrist", "for the bunion", "service"),
    Entry("optician", "for the reading glasses", "service"),
    Entry("translator", "for the visa papers", "service"),
    Entry("courier", "for the parcels", "service"),
    Entry("carpet layer", "for the landing", "service"),
    Entry("boat surveyor", "for the dinghy", "service"),
    Entry("beekeeper", "for the hives", "service"),
    Entry("cobbler", "for the boots", "service"),
    Entry("clocksmith", "for the mantel", "service"),
    Entry("stonemason", "for the boundary wall", "service"),
    Entry("removal firm", "for the big move", "service"),
    Entry("log supplier", "for the stove", "service"),
    Entry("tennis racket", "for the club matches", "item"),
    Entry("fishing rod", "for the canal", "item"),
    Entry("climbing rope", "for the crag", "item"),
    Entry("hiking pole", "for the fells", "item"),
    Entry("pressure washer", "for the patio", "item"),
    Entry("waffle iron", "for the breakfasts", "item"),
    Entry("easel", "for the watercolours", "item"),
    Entry("ukulele", "for the campfire", "item"),
    Entry("dehumidifier", "for the cellar", "item"),
    Entry("sleeping bag", "for the bothy nights", "item"),
    Entry("golf clubs", "for the links", "item"),
    Entry("microscope", "for the pond samples", "item"),
    Entry("trailer", "for the tip runs", "item"),
    Entry("skateboard", "for the skatepark", "item"),
    Entry("chess set", "for the tournaments", "item"),
    Entry("sledge", "for the winter hills", "item"),
    Entry("barbecue", "for the terrace", "item"),
    Entry("projector", "for the film evenings", "item"),
    Entry("hammock", "for the veranda", "item"),
    Entry("ladder", "for the loft", "item"),
)
"""PARITY nouns (§2.5 rule 5): filler states the same kind of fact about things no question asks."""

LEAD_INS: tuple[str, ...] = (
    "About the {subject} {attribute}.",
    "A note on the {subject} {attribute}.",
    "Quick one about the {subject} {attribute}.",
    "Something on the {subject} {attribute}.",
    "Regarding the {subject} {attribute}.",
    "On the matter of the {subject} {attribute}.",
)
"""Setups (rule 9: each names the noun), shared by every kind, gold and filler alike."""

STATEMENT_BODIES: tuple[str, ...] = (
    "I settled on {value}.",
    "I went with {value}.",
    "I picked {value} in the end.",
    "I decided on {value}.",
)
REAFFIRMATION_BODIES: tuple[str, ...] = (
    "I stayed with {value}.",
    "I kept {value}.",
    "I stuck with {value} in the end.",
    "I carried on with {value}.",
)
EVENTS: dict[str, tuple[str, ...]] = {
    "service": ("cancelled it", "stopped using it", "dropped it in the end", "let it go"),
    "item": ("sold it", "gave it away", "got rid of it in the end", "parted with it"),
}
"""Invalidation events (rule 3: explicit). Rendered "I {event}." in the session and "you {event}" in
the gold answer, so each must read in both persons (rule 8, asserted below).

Kind sentences are all simple past, and no fragment is shared by exactly two kinds ("in the end"
closes one construction of each kind): what a kind sentence says differs, how it is built does not.
Gold of an invalidated question is one statement and one invalidation while its distractors mix all
three kinds, so a fragment common to two kinds would lean one way in each arm."""

USER_TALK: tuple[str, ...] = (
    "The weather turned chilly again this week. I dug out a thick scarf.",
    "I tried a new bread recipe over the weekend. It came out a bit dense.",
    "My neighbour lent me a good novel. I am halfway through it.",
    "Work has been busy lately. I am managing, though.",
    "I finally cleared out the junk drawer. It took an hour.",
    "We had friends over for dinner. Everyone stayed late.",
    "I went for a long walk by the river. My legs ache now.",
    "The train was late twice this week. I missed a meeting.",
    "I started a podcast about history. The episodes are long.",
    "My sister called to catch up. We talked for ages.",
    "I have been resting better recently. Going to bed early helps.",
    "We watched an old movie on the sofa. I dozed off near the end.",
    "I signed up for a pottery class. The first session is soon.",
    "The neighbours had a loud party. I barely slept.",
    "I burnt my toast this morning. Same as always.",
    "My cousin is visiting soon. I need to tidy up.",
    "I found an old photo album in a box. It made me smile.",
    "The bus route near me has changed. It is slower now.",
    "I am trying to drink more water. I keep a bottle nearby.",
    "We lost the pub quiz by one point. It stung a little.",
    "I made soup with leftover vegetables. It was decent.",
    "My favourite mug cracked on the floor. I kept the pieces.",
    "I reorganised my bookshelf by colour. It looks cheerful.",
    "The local library has a new quiet corner. I like it there.",
    "I walked to work to save on fares. It was pleasant.",
    "We played board games until late. I lost every round.",
    "I am learning a few words of Italian. Pronunciation is hard.",
    "My friend ran a long race recently. I cheered from the side.",
    "I spent the afternoon tidying the shed. It looks better.",
    "I tried meditation for ten minutes. My mind wandered.",
    "The corner shop finally stocks oat milk. That is handy.",
    "I watched the sunset from the hill. It was lovely.",
    "My nephew lost his first tooth. He was thrilled.",
    "I wrote a long letter to an old friend. I posted it today.",
    "The heating clanked all night. I should bleed the radiators.",
    "I bought a cheap lamp for my desk. The light is warm.",
)
"""Small talk for user turns without a statement (no fact, parity or question vocabulary)."""


SCAFFOLD = ScaffoldBanks(USER_TALK, ASSISTANT_TALK)

_VALUE_SYLLABLES = ("or", "vel", "nes", "kar", "bri", "tum", "lo", "sen", "dak", "mir", "pho", "gat",
                    "qua", "zen", "hib", "rox", "fey", "dre")
"""Invented values are assembled from syllables that appear in no question (§4.1)."""


def _words(syllables: Sequence[str]) -> list[str]:
    return sorted({(a + b).capitalize() for a in syllables for b in syllables if a != b})


GOLD_VALUE_WORDS: tuple[str, ...] = tuple(_words(_VALUE_SYLLABLES)[0::2])
PARITY_VALUE_WORDS: tuple[str, ...] = tuple(_words(_VALUE_SYLLABLES)[1::2])
"""Tracked facts and parity filler draw value words from disjoint pools (filler can never state a
tracked fact's value), interleaved from one sorted list so both pools look alike: the pool a value
comes from is not readable from its form."""
_VALUE_PATTERN = re.compile(r"\b([A-Z][a-z]+) ([A-Z][a-z]+)\b")


def _construction_bank() -> ConstructionBank:
    constructions: list[Construction] = []
    for li, lead in enumerate(LEAD_INS):
        for bi, body in enumerate(STATEMENT_BODIES):
            constructions.append(Construction(f"S{li}{bi}", "statement", f"{lead} {body}", True))
        for bi, body in enumerate(REAFFIRMATION_BODIES):
            constructions.append(Construction(f"R{li}{bi}", "reaffirmation", f"{lead} {body}", True))
        for category, events in EVENTS.items():
            for ei, event in enumerate(events):
                constructions.append(Construction(f"I{li}{category[0]}{ei}", f"invalidation-{category}",
                                                  f"{lead} I {event}.", False))
    return ConstructionBank(constructions)


CONSTRUCTIONS = _construction_bank()


def _template_words(templates: Sequence[str]) -> frozenset[str]:
    return content_words(re.sub(r"\{\w+\}", " ", t) for t in templates)


CURRENCY_WORDS = frozenset(tokenize(CURRENCY_CLAUSE))
FRAME_WORDS = _template_words([LEAD_INS[0], *LEAD_INS, *STATEMENT_BODIES, *REAFFIRMATION_BODIES,
                               *(f"I {e}." for events in EVENTS.values() for e in events)])
FACT_WORDS = frozenset(w for e in FACTS for w in raw_tokens(f"{e.noun} {e.purpose} {e.sibling}")
                       if w not in ("for", "the"))
PARITY_WORDS = frozenset(w for e in PARITY for w in raw_tokens(f"{e.noun} {e.purpose}")
                         if w not in ("for", "the"))
SCAFFOLD_WORDS = content_words(USER_TALK + ASSISTANT_TALK)
VALUE_WORDS = frozenset(w.lower() for w in GOLD_VALUE_WORDS + PARITY_VALUE_WORDS)


def _assert_banks() -> None:
    """Import-time assertions (GENERATION.md "Checks that belong in every generator")."""
    assert_disjoint("fact bank", FACT_WORDS, "parity bank", PARITY_WORDS)
    assert_disjoint("fact and parity banks", FACT_WORDS | PARITY_WORDS, "scaffold banks",
                    SCAFFOLD_WORDS)
    assert_disjoint("fact and parity banks", FACT_WORDS | PARITY_WORDS, "construction frames",
                    FRAME_WORDS)
    assert_disjoint("fact and parity banks", FACT_WORDS | PARITY_WORDS, "pad vocabulary",
                    PAD_BANKS.vocabulary())
    everything = FACT_WORDS | PARITY_WORDS | SCAFFOLD_WORDS | FRAME_WORDS | PAD_BANKS.vocabulary() \
        | frozenset(raw_tokens(ECHO_LEAD_IN))
    assert_disjoint("every bank", everything, "currency clause", CURRENCY_WORDS)
    assert_disjoint("gold values", {w.lower() for w in GOLD_VALUE_WORDS}, "parity values",
                    {w.lower() for w in PARITY_VALUE_WORDS})
    assert_disjoint("values", VALUE_WORDS, "every bank", everything)
    # Event verbs must be what the judge recognises, so "you {event}" reads as an invalidation.
    assert_person_invariant((e for events in EVENTS.values() for e in events), where="EVENTS")
    for entry in FACTS + PARITY:
        assert entry.purpose.startswith("for the "), entry
        assert entry.noun == entry.noun.lower() and entry.purpose == entry.purpose.lower(), entry
        assert len(tokenize(f"{entry.noun} {entry.purpose}")) >= 2, entry
    # Each fact's words belong to it alone: a gram mixing a fact word with frame words ("machine
    # for the") then sits in one question's gold only, never reaching the V7 candidate count
    # through a second question that shares the word.
    owners = Counter(w for e in FACTS + PARITY for w in e.words)
    shared = sorted(w for w, count in owners.items() if count > 1)
    assert not shared, f"fact/parity entries share words {shared}"
    nouns = [e.noun for e in FACTS] + [e.sibling for e in FACTS] + [e.noun for e in PARITY]
    assert len(set(nouns)) == len(nouns), "a noun appears twice across the banks"
    for entry in FACTS:
        assert entry.sibling and entry.sibling not in entry.noun, entry
        cues = {c for c in NO_LONGER_EVENT_CUES if re.search(rf"\b{re.escape(c)}\b", entry.sibling)}
        assert not cues, f"never-known noun {entry.sibling!r} contains judge cue {cues}"
    for construction in CONSTRUCTIONS:
        text = CONSTRUCTIONS.render(Statement(
            construction.kind, "tent", "for the festival",
            "Orvel Karbri" if construction.states_value else None, construction.construction_id))
        assert "{" not in text and "  " not in text and text.endswith(".") and text[0].isupper(), text
        assert "tent" in raw_tokens(text), f"{construction.construction_id}: setup names no noun"


_assert_banks()


# --------------------------------------------------------------------------------------------
# Planning


@dataclass
class Fact:
    """One fact's lifecycle in a haystack: a statement, then an invalidation or re-affirmation."""

    entry: Entry
    value: str
    follow: Kind | None
    """``invalidation``, ``reaffirmation`` or ``None`` (a lone statement)."""
    tracked: bool
    """A question-shaped fact (asked, or the unasked twin / near-miss); not parity filler."""
    positions: list[int] = field(default_factory=list)

    @property
    def question(self) -> str:
        return QUESTION_FRAME.format(subject=self.entry.noun, attribute=self.entry.purpose)


@dataclass
class Slot:
    """What the session at one haystack position says."""

    fact: int
    kind: Kind


@dataclass
class Haystack:
    key: str
    n: int
    facts: list[Fact]
    slots: list[Slot]
    sources: tuple[frozenset[str], frozenset[str]]
    """Echo source words of side 0 (fact 0's question) and side 1 (fact 1's question)."""
    knobs: tuple[float, float]
    times: list[datetime] = field(default_factory=list)
    question_time: datetime | None = None
    session_ids: list[str] = field(default_factory=list)
    sessions: list[list[DraftTurn]] = field(default_factory=list)
    statement_turns: list[int] = field(default_factory=list)
    echo_terms: list[tuple[str, ...]] = field(default_factory=list)


def _positions(n: int, gaps: Sequence[int], rng: random.Random) -> list[tuple[int, int]]:
    """Two (first, second) position pairs with the given gaps, all four distinct, uniformly drawn."""
    while True:
        out = []
        taken: set[int] = set()
        for gap in gaps:
            choices = [p for p in range(n - gap) if p not in taken and p + gap not in taken]
            if not choices:
                break
            first = rng.choice(choices)
            out.append((first, first + gap))
            taken |= {first, first + gap}
        if len(out) == len(gaps):
            return out


def _values(rng: random.Random, words: Sequence[str], count: int, taken: set[str]) -> list[str]:
    out: list[str] = []
    while len(out) < count:
        first, last = rng.sample(list(words), 2)
        if first in taken or last in taken:
            continue
        taken |= {first, last}
        out.append(f"{first} {last}")
    return out


def _plan_haystack(seed: int, key: str, tracked: tuple[Entry, Entry], follows: tuple[Kind, Kind],
                   gaps: tuple[int, int], sources: tuple[frozenset[str], frozenset[str]],
                   knobs: tuple[float, float], *, has_gold: bool) -> Haystack:
    rng = derive_rng(seed, VERTICAL, key, "plan")
    h = rng.randint(*H_RANGE)
    n = h + 2 if has_gold else h
    pairs = _positions(n, gaps, rng)
    facts: list[Fact] = []
    taken_words: set[str] = set()
    for entry, follow, (first, second) in zip(tracked, follows, pairs):
        facts.append(Fact(entry, "", follow, True, [first, second]))
        taken_words |= entry.words
    free = [p for p in range(n) if p not in {q for pair in pairs for q in pair}]
    rng.shuffle(free)
    lifecycles = len(free) // 2
    kinds: list[Kind] = ["invalidation", "reaffirmation"]
    start = rng.randrange(2)
    parity = [e for e in PARITY if not e.words & taken_words]
    chosen = rng.sample(parity, lifecycles + len(free) % 2)
    for index, entry in enumerate(chosen):
        if index < lifecycles:
            first, second = sorted(free[2 * index:2 * index + 2])
            facts.append(Fact(entry, "", kinds[(start + index) % 2], False, [first, second]))
        else:
            facts.append(Fact(entry, "", None, False, [free[-1]]))
    taken: set[str] = set()
    gold_values = _values(rng, GOLD_VALUE_WORDS, 2, taken)
    parity_values = _values(rng, PARITY_VALUE_WORDS, len(facts) - 2, taken)
    for fact, value in zip(facts, gold_values + parity_values):
        fact.value = value
    slots: list[Slot | None] = [None] * n
    for index, fact in enumerate(facts):
        slots[fact.positions[0]] = Slot(index, "statement")
        if fact.follow is not None:
            slots[fact.positions[1]] = Slot(index, fact.follow)
    assert all(slot is not None for slot in slots)
    stay = Haystack(key, n, facts, [s for s in slots if s is not None], sources, knobs)
    moment = datetime(2025, 1, 6, 8, 0) + timedelta(days=rng.randint(0, 420), minutes=rng.randint(0, 600))
    for _ in range(n):
        stay.times.append(moment)
        moment += timedelta(days=rng.randint(1, 3), minutes=rng.randint(-300, 300))
    stay.question_time = stay.times[-1] + timedelta(days=rng.randint(1, 4), minutes=rng.randint(0, 500))
    stay.session_ids = [
        "sess-" + hashlib.sha256(f"{seed}:{VERTICAL}:{key}:{i}".encode()).hexdigest()[:10]
        for i in range(n)]
    if len(set(stay.session_ids)) != n:
        raise GenerationError(f"{key}: session id collision")
    return stay


def _plan_echo(seed: int, stay: Haystack) -> list[tuple[EchoPlan, int]]:
    """Per session: the echo clause and the number of question words it carries.

    Sides: each tracked fact's two sessions get one clause of each side (in random order); filler
    sessions alternate sides from a random start. Question words per clause: dithered over each
    side's sessions from ``knob * |source|``; a session never echoes its own fact's question.
    Roles alternate over the haystack from a random start; the slot within the role is uniform.
    All of it is blind to which sessions any question's answer key will point at.
    """
    rng = derive_rng(seed, VERTICAL, stay.key, "echo")
    sides = [0] * stay.n
    for index in (0, 1):
        order = [0, 1]
        rng.shuffle(order)
        for side, position in zip(order, stay.facts[index].positions):
            sides[position] = side
    offset = rng.randrange(2)
    filler = [p for p in range(stay.n) if stay.slots[p].fact >= 2]
    for rank, position in enumerate(filler):
        sides[position] = (rank + offset) % 2
    own = [stay.slots[p].fact if stay.slots[p].fact < 2 else -1 for p in range(stay.n)]
    counts = [0] * stay.n
    for side in (0, 1):
        members = [p for p in range(stay.n) if sides[p] == side]
        expected = [0.0 if own[p] == side else stay.knobs[side] * len(stay.sources[side])
                    for p in members]
        for position, k in zip(members, dither(expected, rng)):
            counts[position] = min(k, len(stay.sources[side]))
    question_words = stay.sources[0] | stay.sources[1]
    parity_words = set().union(*(f.entry.words for f in stay.facts[2:])) - question_words
    role_offset = rng.randrange(2)
    plans: list[tuple[EchoPlan, int]] = []
    for position in range(stay.n):
        fact_words = stay.facts[stay.slots[position].fact].entry.words
        terms = draw_terms(stay.sources[sides[position]], counts[position], rng)
        neutral = draw_terms(parity_words - fact_words, rng.choice(NEUTRAL_TERMS), rng)
        listed = terms + neutral
        rng.shuffle(listed)
        role = ROLES[(position + role_offset) % 2]
        plans.append((EchoPlan(tuple(listed), role, rng.randrange(EXCHANGES)), counts[position]))
    return plans


def _render(seed: int, stay: Haystack) -> None:
    rng = derive_rng(seed, VERTICAL, stay.key, "render")
    echoes = _plan_echo(seed, stay)
    for position, slot in enumerate(stay.slots):
        fact = stay.facts[slot.fact]
        lead = rng.randrange(len(LEAD_INS))
        if slot.kind == "statement":
            cid = f"S{lead}{rng.randrange(len(STATEMENT_BODIES))}"
            statement = Statement("statement", fact.entry.noun, fact.entry.purpose, fact.value, cid)
        elif slot.kind == "reaffirmation":
            cid = f"R{lead}{rng.randrange(len(REAFFIRMATION_BODIES))}"
            statement = Statement("reaffirmation", fact.entry.noun, fact.entry.purpose, fact.value, cid)
        else:
            category = fact.entry.category
            cid = f"I{lead}{category[0]}{rng.randrange(len(EVENTS[category]))}"
            statement = Statement(f"invalidation-{category}", fact.entry.noun, fact.entry.purpose,
                                  None, cid)
        echo, _ = echoes[position]
        plan = SessionPlan(EXCHANGES, (statement,), (Placement("user", rng.randrange(EXCHANGES)),),
                           echo)
        rendered = render_session(plan, CONSTRUCTIONS, SCAFFOLD, rng)
        stay.sessions.append(rendered.turns)
        stay.statement_turns.append(rendered.statement_turns[0])
        stay.echo_terms.append(echo.terms)
    mappings = align_roles(stay.sessions)
    stay.statement_turns = [mapping[turn] for mapping, turn in zip(mappings, stay.statement_turns)]
    reserved = FACT_WORDS | PARITY_WORDS | VALUE_WORDS | CURRENCY_WORDS
    pad_haystack(stay.sessions, derive_rng(seed, VERTICAL, stay.key, "pad"), reserved=reserved)


# --------------------------------------------------------------------------------------------
# Reading back from the text (V5) and the validity rules


_KIND_PATTERNS: dict[Kind, re.Pattern[str]] = {
    "statement": re.compile("|".join(re.escape(b).replace(r"\{value\}", r"(?P<v%d>[A-Z][a-z]+ [A-Z][a-z]+)" % i)
                                     for i, b in enumerate(STATEMENT_BODIES))),
    "reaffirmation": re.compile("|".join(re.escape(b).replace(r"\{value\}", r"(?P<v%d>[A-Z][a-z]+ [A-Z][a-z]+)" % i)
                                         for i, b in enumerate(REAFFIRMATION_BODIES))),
    "invalidation": re.compile("|".join(r"\bI " + re.escape(e) + r"\."
                                        for events in EVENTS.values() for e in events)),
}


@dataclass(frozen=True)
class Reading:
    """What the rendered text says about one noun and purpose, in session order."""

    events: tuple[tuple[int, Kind, str | None], ...]
    """(session index, kind, value stated or None)."""


def read_fact(sessions: Sequence[Sequence[str]], entry: Entry) -> Reading:
    """Every statement about ``entry`` in the rendered sessions (texts only, never the plan)."""
    anchor = f"the {entry.noun} {entry.purpose}."
    events: list[tuple[int, Kind, str | None]] = []
    for index, turns in enumerate(sessions):
        for text in turns:
            if anchor not in text:
                continue
            after = text[text.index(anchor) + len(anchor):]
            found = [(kind, pattern.match(after.lstrip())) for kind, pattern in _KIND_PATTERNS.items()]
            hits = [(kind, match) for kind, match in found if match is not None]
            if len(hits) != 1:
                raise GenerationError(f"cannot read the {entry.noun} {entry.purpose} in {text!r}")
            kind, match = hits[0]
            value = next((v for v in match.groupdict().values() if v), None)
            events.append((index, kind, value))
    return Reading(tuple(events))


def _texts(stay: Haystack) -> list[list[str]]:
    return [[turn.text for turn in session] for session in stay.sessions]


def _check_values_named(stay: Haystack) -> None:
    """Rule 6, per turn: a turn that states a value names the subject the value belongs to."""
    owners = {fact.value: fact.entry.noun for fact in stay.facts}
    gold_words, parity_words = set(GOLD_VALUE_WORDS), set(PARITY_VALUE_WORDS)
    for index, session in enumerate(stay.sessions):
        for turn in session:
            for match in _VALUE_PATTERN.finditer(turn.text):
                first, last = match.groups()
                if not ({first, last} & (gold_words | parity_words)):
                    continue
                value = match.group(0)
                if value not in owners:
                    raise GenerationError(f"{stay.key} session {index}: value-shaped {value!r} "
                                          "belongs to no fact of this haystack")
                if owners[value] not in turn.text:
                    raise GenerationError(f"{stay.key} session {index}: {value!r} stated without "
                                          f"its subject {owners[value]!r}: {turn.text!r}")
            for word in raw_tokens(turn.text):
                if word in VALUE_WORDS and not any(word in raw_tokens(v) for v in owners
                                                   if v in turn.text):
                    raise GenerationError(f"{stay.key} session {index}: value word {word!r} outside "
                                          f"a full value: {turn.text!r}")


def _check_haystack(stay: Haystack) -> None:
    texts = _texts(stay)
    joined = "\n".join(text for turns in texts for text in turns)
    words = set(raw_tokens(joined))
    if words & CURRENCY_WORDS:
        raise GenerationError(f"{stay.key}: currency-clause words {sorted(words & CURRENCY_WORDS)} "
                              "in the haystack")
    if re.search(r"[\d\u2013\u2014]", joined):
        raise GenerationError(f"{stay.key}: digits or dashes in the haystack")
    for earlier, later in zip(stay.times, stay.times[1:]):
        if not earlier < later:
            raise GenerationError(f"{stay.key}: timestamps not strictly increasing")
    assert stay.question_time is not None and stay.question_time > stay.times[-1]
    _check_values_named(stay)
    for index, fact in enumerate(stay.facts):
        reading = read_fact(texts, fact.entry)
        expected: list[tuple[int, Kind, str | None]] = [(fact.positions[0], "statement", fact.value)]
        if fact.follow == "invalidation":
            expected.append((fact.positions[1], "invalidation", None))
        elif fact.follow == "reaffirmation":
            expected.append((fact.positions[1], "reaffirmation", fact.value))
        if list(reading.events) != expected:
            raise GenerationError(f"{stay.key}: fact {index} ({fact.entry.noun}) reads back as "
                                  f"{reading.events}, planned {expected}")
        for position in fact.positions:
            turn = stay.sessions[position][stay.statement_turns[position]]
            if fact.entry.noun not in turn.text:
                raise GenerationError(f"{stay.key}: statement turn does not name its noun")


def _gold_answer(stay: Haystack, fact_index: int) -> tuple[str, list[int], Kind]:
    """Gold recomputed from the rendered text alone (V5): value, component sessions, final state."""
    fact = stay.facts[fact_index]
    reading = read_fact(_texts(stay), fact.entry)
    values = [value for _, kind, value in reading.events if kind == "statement"]
    follow = [(index, kind, value) for index, kind, value in reading.events if kind != "statement"]
    if len(values) != 1 or len(follow) != 1:
        raise GenerationError(f"{stay.key}: {fact.entry.noun} needs one statement and one follow-up")
    statement_index = reading.events[0][0]
    index, kind, value = follow[0]
    if not statement_index < index or reading.events[0][1] != "statement":
        raise GenerationError(f"{stay.key}: the statement must come before its follow-up")
    if not GAP_RANGE[0] <= index - statement_index <= GAP_RANGE[1]:
        raise GenerationError(f"{stay.key}: components {index - statement_index} sessions apart")
    if kind == "reaffirmation":
        if value != values[0]:
            raise GenerationError(f"{stay.key}: the re-affirmation changes the value")
        return f"{values[0]}, and that is still current.", [statement_index, index], kind
    event = _event_of(stay.sessions[index][stay.statement_turns[index]].text)
    return f"{values[0]}, but that no longer holds: you {event}.", [statement_index, index], kind


def _event_of(text: str) -> str:
    for events in EVENTS.values():
        for event in events:
            if f" I {event}." in f" {text}":
                return event
    raise GenerationError(f"no invalidation event in {text!r}")


# --------------------------------------------------------------------------------------------
# Records


def _record(stay: Haystack, question_id: str, shape: str, question: str, answer: str,
            gold: Sequence[int], block: dict[str, Any]) -> dict[str, Any]:
    sessions = []
    for position, session in enumerate(stay.sessions):
        turns = []
        for turn_index, turn in enumerate(session):
            flag = position in gold and turn_index == stay.statement_turns[position]
            turns.append({"role": turn.role, "content": turn.text, "has_answer": flag})
        sessions.append(turns)
    assert stay.question_time is not None
    return {
        "question_id": question_id,
        "question_type": shape,
        "question": question,
        "answer": answer,
        "question_date": format_corpus_date(stay.question_time),
        "haystack_session_ids": list(stay.session_ids),
        "haystack_dates": [format_corpus_date(moment) for moment in stay.times],
        "haystack_sessions": sessions,
        "answer_session_ids": [stay.session_ids[i] for i in sorted(gold)],
        "typedmemeval": {"vertical": VERTICAL, "shape": shape, "memory_type": MEMORY_TYPE, **block},
    }


def _key(**fields: Any) -> dict[str, Any]:
    key = {name: list(value) if isinstance(value, (list, tuple)) else value
           for name, value in fields.items() if value not in (None, (), [])}
    AnswerKey.model_validate(key)
    return key


def _gold_record(stay: Haystack, fact_index: int, question_id: str, shape: str,
                 pair_id: str | None, arm: str | None) -> dict[str, Any]:
    fact = stay.facts[fact_index]
    answer, gold, kind = _gold_answer(stay, fact_index)
    others = [f.value for i, f in enumerate(stay.facts) if i != fact_index]
    gap = gold[1] - gold[0]
    if kind == "invalidation":
        key = _key(must_name=[fact.value], stale=[fact.value], wrong=others,
                   expected_negative="no_longer")
        components = [{"kind": "statement", "session_index": gold[0], "memory_type": MEMORY_TYPE},
                      {"kind": "invalidation", "session_index": gold[1], "memory_type": MEMORY_TYPE}]
        extra: dict[str, Any] = {"gold_components_load_bearing": True}
        dial = "statement_to_invalidation_sessions"
    else:
        key = _key(accepted=[fact.value], wrong=others, expected_negative="still")
        components = [{"kind": "statement", "session_index": gold[0], "memory_type": MEMORY_TYPE},
                      {"kind": "reaffirmation", "session_index": gold[1], "memory_type": MEMORY_TYPE}]
        extra = {"gold_components_redundant": True}
        dial = "statement_to_reaffirmation_sessions"
    block: dict[str, Any] = {"answer_key": key, "gold_components": components,
                             "dial": {"name": dial, "value": gap},
                             "difficulty": 1 + (gap - GAP_RANGE[0]) * 5 // (GAP_RANGE[1] - GAP_RANGE[0] + 1),
                             **extra}
    if pair_id is not None:
        block.update(pair_id=pair_id, arm=arm)
    question = f"{fact.question} {CURRENCY_CLAUSE}"
    return _record(stay, question_id, shape, question, answer, gold, block)


def _never_record(stay: Haystack, asked: Entry, question_id: str) -> dict[str, Any]:
    texts = "\n".join(t.text for s in stay.sessions for t in s).lower()
    head = asked.sibling.split()[-1]
    for needle in (asked.sibling, head):
        if needle in texts:
            raise GenerationError(f"{stay.key}: never-known noun {needle!r} occurs in the haystack")
    near = read_fact(_texts(stay), asked)
    if not near.events:
        raise GenerationError(f"{stay.key}: the near-miss {asked.noun!r} is missing")
    question = QUESTION_FRAME.format(subject=asked.sibling, attribute=asked.purpose)
    answer = f"You never mentioned {article(asked.sibling)} {asked.sibling}."
    key = _key(wrong=[f.value for f in stay.facts], expected_negative="abstain")
    return _record(stay, question_id, "never-known", f"{question} {CURRENCY_CLAUSE}", answer, [],
                   {"answer_key": key})


def _judge_gold(record: dict[str, Any]) -> None:
    key = AnswerKey.model_validate(record["typedmemeval"]["answer_key"])
    verdict = judge_answer(record["answer"], key)
    if verdict.outcome is not Outcome.CORRECT:
        raise GenerationError(f"{record['question_id']}: the mechanical judge grades the gold "
                              f"answer {verdict.outcome.value} ({verdict.reason})")


def _check_rarity(records: Sequence[dict[str, Any]]) -> None:
    """Question words stay rare (< 10% of session slots), as the V7 relevance exemption needs."""
    holding: Counter[str] = Counter()
    total = 0
    for record in records:
        for session in record["haystack_sessions"]:
            total += 1
            holding.update(set(raw_tokens(" ".join(t["content"] for t in session))))
    for record in records:
        base = record["question"][: -len(CURRENCY_CLAUSE)]
        for word in tokenize(base):
            if holding[word] >= RARE_SHARE * total:
                raise GenerationError(f"{record['question_id']}: question word {word!r} is in "
                                      f"{holding[word]} of {total} sessions (>= {RARE_SHARE:.0%})")


def _spread(count: int) -> list[int]:
    """``count`` gaps spread evenly over 4..15 (§2.5 "evenly spread")."""
    low, high = GAP_RANGE
    return [low + (i * (high - low + 1)) // count for i in range(count)]


def _echo_knobs(echo_by_shape: Mapping[str, float]) -> tuple[float, float, float]:
    invalidated = float(echo_by_shape["invalidated"])
    still = float(echo_by_shape["still-valid"])
    for name, value in (("invalidated", invalidated), ("still-valid", still)):
        if not 0.0 <= value <= 1.0:
            raise GenerationError(f"echo for {name} must lie in [0, 1], got {value}")
    return invalidated, still, (invalidated + still) / 2


def build_records(seed: int, echo_by_shape: Mapping[str, float], *,
                  shapes: Sequence[str] = SHAPES) -> list[dict[str, Any]]:
    """The corpus as plain records in id order (deterministic in seed and echo).

    ``shapes`` limits which haystacks are built (calibration builds only the gold shapes); the
    records of a shape never depend on which other shapes are built.
    """
    e_inv, e_ctl, e_never = _echo_knobs(echo_by_shape)
    layout = derive_rng(seed, VERTICAL, "layout")
    gaps_t = _spread(N_INVALIDATED)
    gaps_c = _spread(N_PAIRS)
    layout.shuffle(gaps_t)
    layout.shuffle(gaps_c)
    entries = list(FACTS)
    layout.shuffle(entries)
    asked = entries[: 2 * N_INVALIDATED]
    never_pool = list(FACTS)
    layout.shuffle(never_pool)
    records: list[dict[str, Any]] = []
    build_gold = "invalidated" in shapes or "still-valid" in shapes
    for index in range(N_INVALIDATED if build_gold else 0):
        treated, twin = asked[2 * index], asked[2 * index + 1]
        paired = index < N_PAIRS
        gap_twin = gaps_c[index] if paired else layout.randint(*GAP_RANGE)
        key = f"pair-{index + 1:02d}" if paired else f"solo-{index + 1:02d}"
        sources = (treated.words, twin.words)
        stay = _plan_haystack(seed, key, (treated, twin), ("invalidation", "reaffirmation"),
                              (gaps_t[index], gap_twin), sources, (e_inv, e_ctl), has_gold=True)
        _render(seed, stay)
        _check_haystack(stay)
        pair_id = f"tme-{ABBREV}-p{index + 1:02d}" if paired else None
        records.append(_gold_record(stay, 0, f"tme-{ABBREV}-{index + 1:03d}", "invalidated",
                                    pair_id, "treatment" if paired else None))
        if paired:
            records.append(_gold_record(stay, 1, f"tme-{ABBREV}-{index + 21:03d}", "still-valid",
                                        pair_id, "control"))
    for index in range(N_NEVER if "never-known" in shapes else 0):
        near = never_pool[index % len(never_pool)]
        rng = derive_rng(seed, VERTICAL, f"never-{index + 1:02d}", "choose")
        banned = near.words | set(tokenize(near.sibling))
        sibling_fact = rng.choice([e for e in FACTS if e is not near and not e.words & banned
                                   and near.sibling.split()[-1] not in f"{e.noun} {e.purpose}"])
        follows: list[Kind] = ["invalidation", "reaffirmation"]
        rng.shuffle(follows)
        asked_words = frozenset(w for w in tokenize(f"{near.sibling} {near.purpose}")
                                if w not in tokenize(near.sibling))
        sources = (asked_words, sibling_fact.words)
        stay = _plan_haystack(seed, f"never-{index + 1:02d}", (near, sibling_fact),
                              (follows[0], follows[1]), (rng.randint(*GAP_RANGE), rng.randint(*GAP_RANGE)),
                              sources, (e_never, e_never), has_gold=False)
        _render(seed, stay)
        _check_haystack(stay)
        records.append(_never_record(stay, near, f"tme-{ABBREV}-{index + 36:03d}_abs"))
    records.sort(key=lambda record: record["question_id"])
    for record in records:
        QuestionRecord.model_validate(record)
        _judge_gold(record)
    if set(shapes) == set(SHAPES):
        _check_rarity(records)
    return records


__all__ = [
    "CALIBRATED_SHAPES", "CALIBRATION_RECORD", "CURRENCY_CLAUSE", "FACTS", "GENERATOR",
    "GENERATOR_VERSION", "PARITY", "RECORDED_ECHO", "SEED", "SHAPES", "VERTICAL", "build_records",
    "read_fact",
]
