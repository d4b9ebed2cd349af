"""TypedMemEval-WorkingMemory revision 2 (VERTICALS.md §2.4, Appendices A and C), on the engine.

**A question.** "Which gym have I joined?" One session says so once, first person, present perfect
("Oh, and I have joined the gym Arbel Corlor."); gold is the value. 12 fact families x 5 rungs d in
{8, 15, 25, 40, 60} (shapes ``distance-d``), each cell its own haystack and fact value, so no cell
rehearses another's. **Geometry (Appendix A):** H = 64 non-gold sessions, G = 1 gold at 64 - d
(56, 49, 39, 24, 4; never first), sessions one :data:`INTERVAL` apart everywhere and the question
one interval after the last, so session and time distance agree in every cell.

**Matched rungs, one dial.** A family's 64 filler sessions come from one plan and one engine render
keyed by the family, so its five haystacks share them word for word (near misses included: every
rung has the same rate). The fact session is rendered from the cell's own streams and inserted at
64 - d, so V7 sees 60 independent gold sessions, not 12 counted five times (matching them too made
one gold session's length or phrase "separate" five questions at once: V7 refused 3 of 16 seeds).
The rate is searched once on the pooled grid (:func:`search_dial`): a per-rung search would give
each rung its own number of near misses, competition confounded with distance.

**One construction for gold and filler.** Every session carries exactly one statement "I have
{verb phrase} {the noun} {Value}" in a frame from one shared bank (short and long, some with a
neutral detail), drawn for gold and filler alike. Gold uses the fact relation, filler the
interference relations, which keep the subject inside the verb phrase ("I have walked past the
gym ..."): same domain, person and tense, never the asked relation (§2.4 rules 2, 4, 5). The verb
phrase is the one part gold does not share, so it is checked as a design at import
(:func:`template_parity`): no verb-phrase gram reaches pooled AUC :data:`TEMPLATE_AUC_LIMIT` from
the templates alone, none separates gold perfectly in more than :data:`TEMPLATE_PERFECT_FAMILIES`
families, and fact and interference verb phrases match in length (:data:`LENGTH_SLACK`: a short
fact verb made gold denser in punctuation and capitals).

**Competition (the dial).** Every session carries one engine mention. The asked topic is a near
miss holding the relation word but neither the subject noun nor a value, "the leisure centre my
landlord joined"; ``rate`` is the share of filler sessions whose mention names it. Every other
mention names an everyday topic of the same length (:data:`TOPICS`). The fact session never
carries the near miss (the engine never mentions a session's own topic), so a near-miss gram sits
in filler alone, at pooled AUC 0.5 + rate / 2. A near miss naming the noun too gave competitors
a second noun, which only Okapi's idf floor weighs: Okapi collapsed long before the other arms
came under the ceiling. Without it a competitor has the fact session's query-term counts, so
sessions of equal token length tie exactly and BM25 breaks the tie by session order (7 of 60
questions tie at the top-5 boundary in the shipped corpus: a position effect of the reference
retriever's tie rule, not of memory).

**Validity rules** (:class:`GenerationError`): the fact is said once (its construction matches
once; its value and relation word occur nowhere else but in the near miss: the lexical pass of the
leak screen); gold is read back from the text (V5), d sessions before the question; every session
states exactly one statement of its family; every value sits right after its subject; fact and
filler values come from disjoint pools; constant interval; no digits or dashes; question words in
< 10 % of sessions corpus-wide (the V7 relevance exemption relies on it); the judge grades gold
``correct`` and filler values and the near miss not.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from ...corpus.models import QuestionRecord
from ...gates.features import phrase_grams
from ...retrieval.tokenizer import raw_tokens, tokenize
from .. import calibration, engine, talk
from ..primitives import GenerationError, assert_disjoint, derive_rng

VERTICAL = "workingmemory"
ABBREV = "wm"
GENERATOR = "pytest_typedmemeval.generate.verticals.workingmemory"
GENERATOR_VERSION = "2"
REVISION = 2
SEED = 20260504

DISTANCES: tuple[int, ...] = (8, 15, 25, 40, 60)
SHAPES: tuple[str, ...] = tuple(f"distance-{d}" for d in DISTANCES)
CALIBRATED_SHAPES: tuple[str, ...] = SHAPES

_DIAL = 0.1171875
RECORDED_COMPETITION: dict[str, float] = {shape: _DIAL for shape in SHAPES}
"""One near-miss mention rate for every rung (the rungs are matched), recorded from
:func:`search_dial` on the pooled grid; rebuilds read it and never search."""

SEARCH_METHOD = ("one dial for the five matched rungs: sweep (9 points over [0, 1]) then bisection "
                 "(6 steps max, tolerance 0.0125) on the pooled grid; panel_max is the largest "
                 "lexical-panel coverage of any rung")
DIFFICULTY_NOTE = ("declared, not validated: the band is the distance rung (1 = d 8 .. 5 = d 60), "
                   "which is also the shape (§0: the rungs are the shapes), and BM25 cannot see "
                   "position, so the reference retriever is a flat null control (§2.4), not a "
                   "validator")

H = 64
N_SESSIONS = H + 1
EXCHANGES = 2
INTERVAL = timedelta(days=2)
MEMORY_TYPE = "workingmemory"
NEAR = "near"
"""Topic key of the near miss every haystack asks about (the fact session's own topic)."""
RARE_SHARE = 0.10
TEMPLATE_AUC_LIMIT = 0.62
TEMPLATE_PERFECT_FAMILIES = 2
"""A verb-phrase gram may separate gold perfectly in at most 2 families: 10 of 60 questions, under
the 20 % share of the V7 distribution rule."""
LENGTH_SLACK = 3.5
"""Characters by which a family's fact verb phrase may differ from its interference mean (half of
it pooled over families): the one length difference gold does not share, kept inside the spread
that frames, scaffold and mentions give every session."""


@dataclass(frozen=True)
class Family:
    """A fact family: the question, the subject (``tail``), the fact relation, the near miss (with
    ``{person}``), interference relations and neutral details about the thing."""

    key: str
    question: str
    tail: str
    fact: str
    near: str
    interference: tuple[str, ...]
    details: tuple[str, ...]

    @property
    def terms(self) -> frozenset[str]:
        return frozenset(tokenize(self.question))

    @property
    def relation(self) -> frozenset[str]:
        return self.terms - frozenset(tokenize(self.tail))

    def core(self, verb: str, value: str) -> str:
        return f"I have {verb} {self.tail} {value}"


def _family(key: str, question: str, tail: str, fact: str, near: str, interference: str,
            details: str) -> Family:
    return Family(key, question, tail, fact, near, tuple(interference.split("; ")),
                  tuple(details.split("|")))


FAMILIES: tuple[Family, ...] = (
    _family("employer", "Which company have I been hired by?", "the company", "been hired by",
            "the firm that hired {person}",
            "turned down; been interviewed by; sent complaints to; read about; designed logos "
            "for; applied to",
            "They make solar panels.|Their offices overlook the river.|They are growing fast."),
    _family("pet", "Which kitten have I adopted?", "the kitten", "adopted",
            "the puppy {person} adopted",
            "fed; sketched; photographed; played with; cuddled; spotted",
            "It has a white patch over one eye.|It is a tabby with huge paws.|It is very shy."),
    _family("street", "Which street have I moved to?", "the street", "moved to",
            "the road {person} moved to",
            "parked on; walked down; viewed a flat on; shopped on; driven down; cycled to",
            "It is lined with old plane trees.|There is a bookshop on the corner.|It is quiet."),
    _family("gym", "Which gym have I joined?", "the gym", "joined",
            "the leisure centre {person} joined",
            "phoned; toured; walked past; emailed; tried a class at; visited",
            "It has a pool on the top floor.|The place is open around the clock.|It is huge."),
    _family("dentist", "Which dentist have I registered with?", "the dentist", "registered with",
            "the surgery {person} registered with",
            "read reviews of; taken my mother to; heard about; driven past; booked a friend in "
            "with; seen posters for",
            "The practice is above a pharmacy.|The waiting room has a fish tank.|It is tiny."),
    _family("car", "Which car have I bought?", "the car", "bought", "the van {person} bought",
            "rented; admired; test driven; borrowed; washed; read reviews of",
            "It is a small hatchback in dark green.|It has a roomy boot.|It is nippy."),
    _family("bank", "Which bank have I switched to?", "the bank", "switched to",
            "the building society {person} switched to",
            "taken cheques to; had calls from; read news about; written to; phoned; queued "
            "outside",
            "Their branch is next to the post office.|They have a slick app.|It is old."),
    _family("college", "Which college have I enrolled at?", "the college", "enrolled at",
            "the night school {person} enrolled at",
            "been to an open day at; taught at; parked near; seen plays at; walked past; visited",
            "The campus has a lovely old library.|It sits beside the canal.|It is modern."),
    _family("choir", "Which choir have I signed up to?", "the choir", "signed up to",
            "the orchestra {person} signed up to",
            "listened to; seen posters for; looked up; donated to; read reviews of; sent fan "
            "mail to",
            "They rehearse in a church hall.|They sing a lot of folk songs.|They are loud."),
    _family("village", "Which village have I settled in?", "the village", "settled in",
            "the town {person} settled in",
            "driven through; stayed in; stopped in; cycled past; visited; got lost near",
            "It has a duck pond and a tiny shop.|The pub there has a thatched roof.|It is hilly."),
    _family("bakery", "Which bakery have I subscribed to?", "the bakery", "subscribed to",
            "the veg box scheme {person} subscribed to",
            "taken my nephew to; shopped at; walked past; read reviews of; tried samples from; "
            "sent feedback to",
            "Their sourdough is famous round here.|The shop smells of cinnamon.|It is cosy."),
    _family("charity", "Which charity have I volunteered for?", "the charity", "volunteered for",
            "the youth club {person} volunteered for",
            "donated books to; emailed; read leaflets from; had a letter from; heard appeals by; "
            "seen stalls for",
            "They help families with housing.|They run a soup kitchen in town.|They are small."),
)

PERSONS: tuple[str, ...] = ("my landlord", "my niece", "my boss", "my godson", "my roommate",
                            "my piano teacher", "my line manager", "my godmother")
"""Who the near miss is about (one per family, shared by its rungs); no mention names them."""

TOPICS: tuple[str, ...] = (
    "the allotment down by the railway", "the book club at the library",
    "the new cycle lane into town", "the garden centre on the ring road",
    "the summer fete at the primary school", "the swimming lessons at the lido",
    "the farmers market on the square", "the camping trip to the lakes",
    "the football results from the weekend", "the knitting circle at the community hall",
    "the new recycling rules for the flats", "the tennis courts by the park",
    "the dog show at the showground", "the boat trip along the coast",
    "the local council elections", "the family reunion in the countryside",
)
"""What every other mention names: everyday topics as long as a near miss, holding no question
word and no value, the same bank for gold and filler sessions."""

FRAMES: tuple[str, ...] = (
    "{core}.", "{core}, just so you know.", "Quick update: {core}.", "By the way, {core}.",
    "Oh, and {core}.", "Some news from my end: {core}.", "{core}. {detail}",
    "Something I meant to tell you: {core}. {detail}", "{core}, for what it is worth. {detail}",
)
"""Statement frames, one bank for gold and filler: short and long, some with a neutral detail."""

_SYLLABLES = ("ar", "bel", "cor", "dun", "ev", "fal", "gri", "hal", "isk", "lor", "mun", "nav",
              "osk", "pel", "rim", "sar", "tal", "ulk", "vor", "zim")
_NAMES = sorted({(a + b).capitalize() for a in _SYLLABLES for b in _SYLLABLES if a != b})
FACT_VALUE_WORDS: tuple[str, ...] = tuple(_NAMES[0::2])
FILLER_VALUE_WORDS: tuple[str, ...] = tuple(_NAMES[1::2])
"""Fact and filler values come from disjoint pools (filler can never state a fact value),
interleaved from one sorted list so the pool is not readable from a value's form."""
VALUE_WORDS = frozenset(w.lower() for w in _NAMES)
_VALUE = re.compile(r"\b([A-Z][a-z]+) ([A-Z][a-z]+)\b")

QUESTION_WORDS = frozenset(w for family in FAMILIES for w in family.terms)
SCAFFOLD = engine.Scaffold.without(QUESTION_WORDS)
"""The shared banks without any family's subject noun or relation word: small talk never brings a
question word into a session."""


def _grams(family: Family, verb: str) -> set[str]:
    marker = "Zqvalueq"
    grams = phrase_grams(family.core(verb, marker) + ".")
    return {gram for gram in grams if marker.lower() not in gram.split()}


def template_parity() -> list[tuple[float, int, str, tuple[str, ...]]]:
    """Per verb-phrase gram: (folded pooled AUC, families separated perfectly, gram, families).

    From the templates alone, each family weighted equally (every rung has one question per
    family): gold presence g (0/1) against the share r of the family's interference relations
    carrying the gram; pooled raw AUC = 0.5 + (mean g - mean r) / 2. Perfect: g = 1, r = 0 or the
    reverse. Interference relations are cycled in balanced blocks, so r is what filler carries."""
    rows = {f.key: (_grams(f, f.fact), [_grams(f, v) for v in f.interference]) for f in FAMILIES}
    every = set().union(*(gold | set().union(*others) for gold, others in rows.values()))
    out = []
    for gram in sorted(every):
        present = [gram in gold for gold, _ in rows.values()]
        shares = [sum(gram in o for o in others) / len(others) for _, others in rows.values()]
        perfect = tuple(k for k, g, r in zip(rows, present, shares)
                        if (g and r == 0) or (not g and r == 1))
        raw = 0.5 + (sum(present) - sum(shares)) / (2 * len(rows))
        out.append((max(raw, 1 - raw), len(perfect), gram, perfect))
    return sorted(out, key=lambda row: (-row[0], -row[1], row[2]))


def _assert_banks() -> None:
    assert len(FAMILIES) == 12 and len({f.key for f in FAMILIES}) == 12
    scaffold = SCAFFOLD.words()
    assert_disjoint("values", VALUE_WORDS, "scaffold words", talk.scaffold_words())
    assert_disjoint("fact values", FACT_VALUE_WORDS, "filler values", FILLER_VALUE_WORDS)
    assert_disjoint("question words", QUESTION_WORDS, "scaffold lines", scaffold)
    mentions = {w for line in SCAFFOLD.mentions for w in tokenize(line.replace("{subject}", ""))}
    assert_disjoint("persons", {w for p in PERSONS for w in tokenize(p)}, "mentions", mentions)
    assert not {w for t in TOPICS for w in tokenize(t)} & QUESTION_WORDS
    near = [len(f.near.format(person=p)) for f in FAMILIES for p in PERSONS]
    assert abs(sum(near) / len(near) - sum(map(len, TOPICS)) / len(TOPICS)) <= LENGTH_SLACK
    for family in FAMILIES:
        assert re.fullmatch(r"Which \w+ have I [a-z ]+\?", family.question), family.key
        assert len(family.relation) == 1, f"{family.key}: one subject noun, one relation word"
        assert set(tokenize(family.core(family.fact, ""))) >= family.terms, family.key
        near = set(tokenize(family.near))
        assert near & QUESTION_WORDS == family.relation, f"{family.key}: the near miss holds the " \
            "relation word and no other question word (the noun would tie it with the fact)"
        assert len(set(family.interference)) == 6, family.key
        others = QUESTION_WORDS - set(tokenize(family.tail))
        for text in (*family.interference, *family.details):
            assert not set(tokenize(text)) & others, f"{family.key}: {text!r} uses a question word"
        for text in (family.fact, *family.interference, family.near, *family.details, *FRAMES):
            assert not re.search(r"[\d'\u2013\u2014-]", text), text
    gaps = [sum(map(len, f.interference)) / 6 - len(f.fact) for f in FAMILIES]
    assert max(map(abs, gaps)) <= LENGTH_SLACK and abs(sum(gaps)) / 12 <= LENGTH_SLACK / 2, gaps
    for auc, perfect, gram, families in template_parity():
        assert auc < TEMPLATE_AUC_LIMIT, f"verb-phrase gram {gram!r} reaches AUC {auc:.3f}"
        assert perfect <= TEMPLATE_PERFECT_FAMILIES, f"{gram!r} marks gold in {families}"


_assert_banks()


# --------------------------------------------------------------------------------------------
# Planning (one plan per family, shared by its five rungs)


@dataclass(frozen=True)
class FamilyPlan:
    family: Family
    near: str
    values: tuple[str, ...]
    filler: tuple[engine.Piece, ...]
    start: datetime


def _statement(family: Family, verb: str, value: str, frame: tuple[str, str]) -> engine.Piece:
    template, detail = frame
    return engine.Piece(template.format(core=family.core(verb, value), detail=detail))


def _frame(family: Family, rng: Any) -> tuple[str, str]:
    return rng.choice(FRAMES), rng.choice(family.details)


def plan_family(seed: int, family: Family) -> FamilyPlan:
    rng = derive_rng(seed, VERTICAL, family.key, "plan")
    words = list(FILLER_VALUE_WORDS)
    rng.shuffle(words)
    values = tuple(f"{words[2 * i]} {words[2 * i + 1]}" for i in range(H))
    verbs: list[str] = []
    while len(verbs) < H:
        block = list(family.interference)
        rng.shuffle(block)
        verbs += block
    filler = tuple(_statement(family, verb, value, _frame(family, rng))
                   for verb, value in zip(verbs, values))
    near = family.near.format(person=rng.choice(PERSONS))
    start = datetime(2025, 1, 6, 8, 0) + timedelta(days=rng.randint(0, 400),
                                                   minutes=rng.randint(0, 600))
    return FamilyPlan(family, near, values, filler, start)


def fact_values(seed: int) -> dict[tuple[str, int], str]:
    """One fact value per (family, rung), every word used once in the whole corpus."""
    rng = derive_rng(seed, VERTICAL, "layout", "values")
    words = list(FACT_VALUE_WORDS)
    rng.shuffle(words)
    cells = [(f.key, d) for d in DISTANCES for f in FAMILIES]
    return {cell: f"{words[2 * i]} {words[2 * i + 1]}" for i, cell in enumerate(cells)}


def render_cell(seed: int, plan: FamilyPlan, distance: int, value: str, rate: float,
                tally: engine.Tally | None = None) -> engine.Haystack:
    """Render in plan order (fact session last) from the family's streams, so every rung of the
    family gets the same sessions but for the fact's value; then move the fact session to index
    64 - d (times stay at the constant interval, ids are the cell's own)."""
    family = plan.family
    key = f"{family.key}-d{distance}"
    sessions = [engine.SessionDraft(None, [piece]) for piece in plan.filler]
    frame = _frame(family, derive_rng(seed, VERTICAL, key, "fact"))
    sessions.append(engine.SessionDraft(NEAR, [_statement(family, family.fact, value, frame)]))
    topics = {NEAR: plan.near, **{f"t{i}": topic for i, topic in enumerate(TOPICS)}}
    times = [plan.start + i * INTERVAL for i in range(N_SESSIONS)]
    draft = engine.HaystackDraft(family.key, sessions, topics, (NEAR,), times,
                                 times[-1] + INTERVAL, EXCHANGES)
    shared, own = (engine.render(seed, VERTICAL, replace(draft, key=stream), rate, SCAFFOLD)
                   for stream in (family.key, key))
    gold = H - distance
    pick = [(shared, i) for i in range(gold)] + [(own, H)] + [(shared, i) for i in range(gold, H)]
    stay = replace(shared, key=key, session_ids=engine.session_ids(seed, VERTICAL, key, N_SESSIONS),
                   sessions=[h.sessions[i] for h, i in pick],
                   piece_turns=[h.piece_turns[i] for h, i in pick],
                   mentions=[h.mentions[i] for h, i in pick])
    if tally is not None:  # what engine.render counts, for the sessions kept
        for turns, (_, i), mention in zip(stay.sessions, pick, stay.mentions):
            tally.sentences += sum(engine.sentence_count(turn.text) for turn in turns)
            tally.fact_sentences += sum(engine.sentence_count(p.text) for p in sessions[i].pieces)
            tally.mention_sentences += int(mention is not None)
    return stay


# --------------------------------------------------------------------------------------------
# Reading back (V5) and the validity rules


def read_fact(texts: Sequence[Sequence[str]], family: Family) -> list[tuple[int, str]]:
    """Every (session, value) where the rendered text states the family's fact (never the plan)."""
    pattern = re.compile(rf"\bI have {re.escape(family.fact)} {re.escape(family.tail)} "
                         r"(?P<value>[A-Z][a-z]+ [A-Z][a-z]+)\b")
    return [(index, match.group("value")) for index, turns in enumerate(texts)
            for text in turns for match in pattern.finditer(text)]


def check_cell(stay: engine.Haystack, plan: FamilyPlan, distance: int) -> tuple[int, str]:
    """Every rule of one haystack; returns the gold (session index, value) read from the text."""
    family = plan.family
    engine.check_haystack(stay)
    texts = stay.texts()
    steps = {b - a for a, b in zip(stay.times, [*stay.times, stay.question_time][1:])}
    if len(texts) != N_SESSIONS or steps != {INTERVAL}:
        raise GenerationError(f"{stay.key}: not {N_SESSIONS} sessions at the constant interval")
    found = read_fact(texts, family)
    if len(found) != 1:
        raise GenerationError(f"{stay.key}: the fact is stated {len(found)} times (said once only)")
    index, value = found[0]
    if N_SESSIONS - 1 - index != distance or index == 0:
        raise GenerationError(f"{stay.key}: gold at {index}, {distance} sessions before the "
                              "question expected")
    if set(value.split()) - set(FACT_VALUE_WORDS):
        raise GenerationError(f"{stay.key}: fact value {value!r} is not from the fact pool")
    statement = re.compile(rf"\bI have [a-z ]+ {family.tail} [A-Z][a-z]+ [A-Z][a-z]+\b")
    watched = {w.lower() for w in value.split()} | family.relation
    near = re.compile(re.escape(plan.near), re.IGNORECASE)
    for s, turns in enumerate(texts):
        joined = "\n".join(turns)
        if len(statement.findall(joined)) != 1:
            raise GenerationError(f"{stay.key} session {s}: not exactly one {family.key} statement")
        if s != index and watched & set(raw_tokens(near.sub(" ", joined))):
            raise GenerationError(f"{stay.key} session {s}: the fact's value or relation outside "
                                  "the fact session and the near miss (said once only)")
        if s == index and near.search(joined):
            raise GenerationError(f"{stay.key}: the fact session carries the near miss")
        for text in turns:
            named = [m for m in _VALUE.finditer(text)
                     if text[: m.start()].lower().endswith(family.tail + " ")
                     and {w.lower() for w in m.groups()} <= VALUE_WORDS]
            if sum(w in VALUE_WORDS for w in raw_tokens(text)) != 2 * len(named):
                raise GenerationError(f"{stay.key} session {s}: a value without its subject")
            if s != index and any(set(m.groups()) - set(FILLER_VALUE_WORDS) for m in named):
                raise GenerationError(f"{stay.key} session {s}: a filler value from the fact pool")
    return index, value


# --------------------------------------------------------------------------------------------
# Records


def _rate(competition_by_shape: Mapping[str, float], shape: str) -> float:
    rate = float(competition_by_shape[shape])
    if not 0.0 <= rate <= 1.0:
        raise GenerationError(f"competition for {shape} must lie in [0, 1], got {rate}")
    return rate


def _record(stay: engine.Haystack, plan: FamilyPlan, distance: int, gold: int, value: str
            ) -> dict[str, Any]:
    shape = f"distance-{distance}"
    key = engine.answer_key(accepted=[value], wrong=list(plan.values))
    block = {"answer_key": key, "distance_sessions": distance, "fact_family": plan.family.key,
             "gold_components": [{"kind": "statement", "session_index": gold,
                                  "memory_type": MEMORY_TYPE}],
             "difficulty": DISTANCES.index(distance) + 1,
             "dial": {"name": "distance_sessions", "value": distance}}
    record = engine.record(stay, question_id=f"{shape}/{plan.family.key}", vertical=VERTICAL,
                           shape=shape, memory_type=MEMORY_TYPE, question=plan.family.question,
                           answer=value, gold=[(gold, 0)], block=block)
    engine.judge_gold(record, wrong_answers=[plan.values[0], f"{plan.family.tail} {plan.values[1]}",
                                             plan.near])
    return record


def build(seed: int, competition_by_shape: Mapping[str, float], *,
          shapes: Sequence[str] = SHAPES) -> engine.Built:
    """The records of ``shapes`` in id order, and the rendering tally (deterministic in seed and
    dial; a rung's records never depend on which other rungs are built)."""
    if unknown := set(shapes) - set(SHAPES):
        raise GenerationError(f"unknown shapes {sorted(unknown)}")
    values = fact_values(seed)
    plans = [plan_family(seed, family) for family in FAMILIES]
    tally = engine.Tally()
    records: list[dict[str, Any]] = []
    for distance, shape in zip(DISTANCES, SHAPES):
        if shape not in shapes:
            continue
        rate = _rate(competition_by_shape, shape)
        for plan in plans:
            value = values[(plan.family.key, distance)]
            stay = render_cell(seed, plan, distance, value, rate, tally)
            gold, value = check_cell(stay, plan, distance)
            records.append(_record(stay, plan, distance, gold, value))
    engine.check_rarity(records, {r["question_id"]: tokenize(r["question"]) for r in records},
                        share=RARE_SHARE)
    engine.assign_ids(records, seed=seed, vertical=VERTICAL, abbrev=ABBREV,
                      universe=[f"{s}/{f.key}" for s in SHAPES for f in FAMILIES])
    return engine.Built(engine.finish(records), tally)


def search_dial(seed: int = SEED) -> dict[str, Any]:
    """The authoring search for the one dial the five matched rungs share (prints nothing; returns
    what to record). The sweep and bisection of :func:`..calibration.search_shape` run on the
    pooled grid (60 questions, so coverage moves in steps of 1/60, not 1/12), and a point counts
    only when every rung's lexical panel maximum is under the ceiling. A per-rung search would give
    each rung its own rate (its own number of near misses) and break the matching."""
    def measure(rate: float) -> tuple[list[QuestionRecord], dict[str, float]]:
        built = build(seed, {shape: rate for shape in SHAPES}).records
        records = [QuestionRecord.model_validate(r) for r in built]
        return records, {s: calibration.shape_coverage(records, s) or 0.0 for s in SHAPES}

    def evaluate(rate: float) -> tuple[float, float]:
        records, by_rung = measure(rate)
        worst = max(calibration.panel_max_coverage(records, s) or 0.0 for s in SHAPES)
        return sum(by_rung.values()) / len(SHAPES), max(worst, *by_rung.values())

    search = calibration.search_shape(evaluate, "pooled")
    _, by_rung = measure(search.dial)
    return {"method": SEARCH_METHOD, "target": calibration.TARGET, "ceiling": 0.9, "k_ref": 5,
            "iterations": search.iterations, "pooled": search.as_dict(),
            "by_shape": {s: {"dial": search.dial, "coverage": round(by_rung[s], 6)}
                         for s in SHAPES}}


__all__ = ["CALIBRATED_SHAPES", "DISTANCES", "FAMILIES", "GENERATOR",
           "GENERATOR_VERSION", "H", "INTERVAL", "RECORDED_COMPETITION", "REVISION", "SEED",
           "SHAPES", "VERTICAL", "build", "check_cell", "plan_family", "read_fact",
           "render_cell", "search_dial", "template_parity"]
