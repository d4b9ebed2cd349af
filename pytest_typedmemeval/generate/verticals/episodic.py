"""TypedMemEval-Episodic v2 (VERTICALS.md §2.2, Appendix C), declared over :mod:`..engine`.

Memory of the conversation as an event: who said a thing, and in which order things came up. Every
session carries one statement of its shape's kind from one construction bank, whatever its gold
status, and the engine's topical mention; gold is read back from the rendered text (V5).

- ``assistant-stated`` (20): "Which campsite did you recommend for the lake trip?". Each statement
  is an assistant recommendation of an invented value for one subject; gold is the asked subject's
  (G = 1). Lexical screen (hard error): no word of an assistant-stated gold in any user turn of the
  corpus (value pools are disjoint from everything a user turn can say).
- ``list-order`` (15): "In what order did I add things to the playlist for the motorway drive?".
  Each statement is a user turn adding one item to one list; the asked list has 4..7 items, one per
  session at random positions, so order is random and recoverable only from session order (no
  ordinals, no story); filler lists (1..7 items) alike. Each value occurs in exactly one session.
- ``participant-attribution`` (15): "Who said that the corner pharmacy only takes cards now: me or
  you or both of us?". Each statement is one remark (venue + claim) in a role-neutral construction
  (the same bytes in either role, no I/you), its speaker random except gold's, which the answer
  fixes: 5 / 5 / 5, "both" = once by each (G = 2). Near-miss remarks (asked venue, other claim) and
  same-claim remarks (other venue) by random speakers; the frame is drawn per question.

**Competition** (the dial): the engine's user mention names an asked subject on the dial's share of
sessions, and assistant-stated and list-order also carry one assistant *aside* per session ("Take
your time with the yoga mat for the stretching classes.") naming an asked subject on the same share
(dithered, gold-blind, never the session's own subject; no value, no recommendation). With the
mention alone the dense arm stayed near 1.0; the aside is competition it feels.

**Hard errors:** gold recomputed from the text; the lexical screen; each value in exactly one
session, stated with its subject in its turn, no stray value word; one asked-list item per session;
remarks free of answer words; times strictly increasing, no digits or dashes; question subject words
in < 10 % of sessions; the judge grades gold correct and typical wrong answers (another value, the
reversed or sorted list, the other two options) not correct.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple

from ...retrieval.tokenizer import raw_tokens, tokenize
from .. import engine
from ..primitives import GenerationError, assert_disjoint, derive_rng

VERTICAL = "episodic"
ABBREV = "epi"
GENERATOR = "pytest_typedmemeval.generate.verticals.episodic"
GENERATOR_VERSION = "2"
REVISION = 2
SEED = 20260503
SHAPES = ("assistant-stated", "list-order", "participant-attribution")
CALIBRATED_SHAPES = ("assistant-stated", "list-order")
RECORDED_COMPETITION: dict[str, float] = {"assistant-stated": 0.224609375, "list-order": 0.04296875,
                                          "participant-attribution": 0.5}
"""The dial per shape from ``typedmemeval generate --vertical episodic --search`` (sweep, then
bisection). participant-attribution is not searched (its gold holds every query word: Okapi
coverage 1.0 at every rate, :data:`ATTRIBUTION_SWEEP`; declared exempt in gates/declarations.py):
its 0.5 is a declared design rate, so its mentions still name the asked venue."""
ATTRIBUTION_SWEEP = ((0.0, 1.0), (0.25, 1.0), (0.5, 1.0), (0.75, 1.0), (1.0, 1.0))
"""participant-attribution's Okapi coverage over the dial, measured through :func:`build`."""
DIFFICULTY_NOTE = ("declared, not validated: list-order bands are the list length (coverage falls "
                   "with it only because G > K_ref), assistant-stated and participant-attribution "
                   "bands are the distance from the last gold session to the question")

N_BY_SHAPE = {"assistant-stated": 20, "list-order": 15, "participant-attribution": 15}
H_RANGE, LIST_LENGTH, FILLER_LIST_LENGTH = (15, 25), (4, 7), (1, 7)
NEAR_MISS, SAME_CLAIM = (1, 2), (1, 3)
"""Attribution: remarks on the asked venue, other claim; remarks of the asked claim, other venue."""
EXCHANGES = 3
MEMORY_TYPE = "episodic"
CHOICES = ("me", "you", "both of us")
ANSWER_FOR = {"user": "me", "assistant": "you", "both": "both of us"}
ATTRIBUTION_INSTRUCTION = (
    "Answer from what was said in our conversations. Reply with exactly one of the options as the "
    "question words them: me (the person asking), you (the assistant), or both of us.")

# --------------------------------------------------------------------------------------------
# Banks (the v1 facts; each subject owns its words)


def _rows(text: str) -> tuple[str, ...]:
    return tuple("the " + item.strip() for item in text.split(";"))


RECOMMEND_FACTS = _rows(
    "campsite for the lake trip; restaurant for the anniversary dinner; paint colour for the "
    "hallway; hiking boots for the alpine trek; houseplant for the shady bathroom; novel for the "
    "transatlantic flight; board game for the cabin retreat; wine for the roast lamb; hotel for "
    "the conference stay; running shoes for the half marathon; podcast for the morning commute; "
    "pannier for the touring bike; cheese for the picnic hamper; perfume for the birthday gift; "
    "herbal infusion for the sleepless nights; rucksack for the interrail summer; typeface for "
    "the wedding invitations; mattress for the guest bedroom; kibble for the elderly terrier; "
    "sunscreen for the beach holiday")
RECOMMEND_PARITY = _rows(
    "coffee grinder for the canteen; yoga mat for the stretching classes; bicycle helmet for the "
    "school drop; notebook for the journalling habit; umbrella for the gusty city; desk lamp for "
    "the study nook; frying pan for the induction hob; screen protector for the spare tablet; "
    "bird feeder for the back fence; toothpaste for the sensitive gums; shampoo for the curly "
    "hair; goggles for the lido; picture frame for the seaside snapshot; travel pillow for the "
    "sleeper coach; watch strap for the vintage watch; cookbook for the vegetarian recipes; "
    "jigsaw for the wet afternoons; kettle for the caravan; duvet for the draughty loft; "
    "sketchbook for the art class; skipping rope for the boxing drills; lunchbox for the packed "
    "lunches; thermos for the pier angling; doormat for the muddy porch; backgammon set for the "
    "tavern rematches; shower curtain for the ensuite; tripod stand for the vlogging; massage oil "
    "for the sore shoulders; ear plugs for the noisy neighbours; slippers for the tiled floors")
LIST_FACTS = _rows(
    "playlist for the motorway drive; longlist for the book club; invitees for the housewarming; "
    "watchlist for the festival screenings; itinerary for the coastal tour; shortlist for the "
    "baby names; roster for the football squad; seating plan for the gala; lineup for the talent "
    "show; speaker schedule for the science expo; calling tree for the residents association; "
    "guestbook for the retirement party; tasting menu for the harvest feast; mixtape for the spin "
    "sessions; carpool rota for the piano lessons")
LIST_PARITY = _rows(
    "slideshow for the reunion; puzzle rounds for the trivia contest; raffle prizes for the "
    "church fete; relay team for the sports day; jukebox requests for the engagement bash; photo "
    "album for the graduation; programme for the recital; bracket for the darts league; sampler "
    "for the whisky masterclass; vision collage for the gap year; cast sheet for the pantomime; "
    "volunteer shifts for the food bank; route stops for the cycling sportive; backlog for the "
    "app project; agenda for the committee meeting; dance partners for the ceilidh; specials "
    "boards for the bistro launch; pitch map for the craft bazaar; adoption listings for the "
    "animal shelter; exhibit labels for the gallery wing")
VENUES = _rows(
    "riverside market; corner pharmacy; village library; leisure complex; repair workshop; farm "
    "shop; museum cafe; bowling alley; hardware store; post office; dry cleaner; climbing gym; "
    "bus depot; community hall; ice rink")
VENUE_PARITY = _rows(
    "car wash; bakery; cinema; launderette; dental surgery; fuel forecourt; bookshop; tennis "
    "pavilion; recycling yard; antiques auction; skate park; town pool; flower stall; noodle bar; "
    "vet practice; tool exchange; pottery studio; railway halt; youth centre; fish counter; "
    "stationer; scooter hire kiosk; plant nursery; charity bookstall")
CLAIMS = tuple(claim.strip() for claim in (
    "closes early in winter; opens late at weekends; shuts for an hour at lunch; gets crowded "
    "after work; only takes cards now; is closed for repairs; changed its opening hours; has a new "
    "manager; is being repainted; runs a quiz night; offers a student discount; put its prices up "
    "again; has a long queue most mornings; moved to a bigger building; hired extra staff; stays "
    "open until midnight; started a loyalty scheme; lost power during the storm; plans to close "
    "permanently; got a glowing review; is looking for volunteers; has a broken lift").split(";"))
"""Claims any (singular) venue can carry and either speaker can make: remark = venue + claim."""

CONSTRUCTIONS: dict[str, tuple[str, ...]] = {
    "recommend": (
        "Before I forget, for {subject} I would recommend {value}.",
        "Picking up {subject} again: I would recommend {value}.",
        "On {subject}, my recommendation is {value}.",
        "About {subject}, I would suggest {value}. People tend to be happy with it.",
        "If you are weighing up {subject}, my pick would be {value}.",
        "One more thought on {subject}: I would recommend {value}. It seems a sensible fit."),
    "add": (
        "I added {value} to {subject}.",
        "I put {value} on {subject}.",
        "Quick update on {subject}: I added {value} to it.",
        "I have added {value} to {subject}, which is coming along nicely.",
        "I popped {value} onto {subject}. It is taking shape."),
    "remark": (
        "By the way, {subject} {claim}.",
        "It turns out {subject} {claim}.",
        "Quick note: {subject} {claim}.",
        "Apparently {subject} {claim}.",
        "Worth knowing: {subject} {claim}. Handy to bear in mind."),
    "aside": (
        "Happy to help with {subject} whenever you like.",
        "Good luck with {subject}, by the way.",
        "Whenever you want to talk through {subject}, just shout.",
        "Sorting out {subject} can take a while, so there is no rush.",
        "Getting {subject} right is worth a little care.",
        "Take your time with {subject}.",
        "Feel free to ask me about {subject} any time.",
        "Planning {subject} is part of the fun. There is no need to sort every detail at once."),
}
"""Shared by gold and filler (``{subject}`` carries its article). An ``aside`` is the competition
statement: it names a subject and states nothing about it; no construction agrees with its subject
in number (subjects are singular and plural)."""

QUESTIONS = {"assistant-stated": "Which {noun} did you recommend for the {purpose}?",
             "list-order": "In what order did I add things to the {noun} for the {purpose}?"}
ATTRIBUTION_FRAMES = (
    "Who said that {remark}: me or you or both of us?",
    "Which of us mentioned that {remark}? Was it me or you or both of us?",
    "Who brought up that {remark}: me or you or both of us?",
    "Who was it that said {remark}: me or you or both of us?",
    "Who pointed out that {remark}: me or you or both of us?",
    "Which of us remarked that {remark}: me or you or both of us?")
"""One frame per question, "me or you or both of us" without commas (closed choice, k = 3)."""

_SYLLABLES = ("vel", "dask", "mor", "tiv", "quen", "lar", "brix", "sol", "nav", "keth", "ul",
              "prem", "jast", "oro", "fen", "wyl", "cad", "ist")
_WORDS = sorted({(a + b).capitalize() for a in _SYLLABLES for b in _SYLLABLES if a != b})
POOLS = {"recommend-gold": _WORDS[0::4], "recommend": _WORDS[1::4],
         "add-gold": _WORDS[2::4], "add": _WORDS[3::4]}
"""Four disjoint value pools interleaved from one list (gold and filler look alike); the only
values in user turns are list items, so no user turn can say an assistant-stated value."""
VALUE_WORDS = frozenset(w.lower() for w in _WORDS)
_CONNECTIVES = frozenset({"for", "the"})


def _words(phrases: Sequence[str], tokens: Any = raw_tokens) -> frozenset[str]:
    return frozenset(w for p in phrases for w in tokens(p.replace("{", " {"))) - _CONNECTIVES


SUBJECTS = RECOMMEND_FACTS + RECOMMEND_PARITY + LIST_FACTS + LIST_PARITY + VENUES + VENUE_PARITY
SUBJECT_WORDS = _words(SUBJECTS)
CLAIM_WORDS = _words(CLAIMS, tokenize)
FRAME_WORDS = _words([re.sub(r"\{\w+\}", " ", t) for ts in CONSTRUCTIONS.values() for t in ts],
                     tokenize)
SCAFFOLDS = {shape: engine.Scaffold.without(SUBJECT_WORDS | VALUE_WORDS | _words(frames, tokenize)
                                            | extra) for shape, frames, extra in (
    ("assistant-stated", [QUESTIONS["assistant-stated"]], frozenset()),
    ("list-order", [QUESTIONS["list-order"]], frozenset()),
    ("participant-attribution", ATTRIBUTION_FRAMES, CLAIM_WORDS))}
"""Per shape, the shared banks without any subject or value word or the shape's question words
(attribution: claim words too): small talk never speaks of what a question names."""


def _assert_banks() -> None:
    """Import-time: values, subjects and claims disjoint from each other and from every scaffold
    line; each subject owns its words; remarks and claims carry no answer or person word."""
    scaffold = frozenset().union(*(bank.words() for bank in SCAFFOLDS.values()))
    assert_disjoint("values", VALUE_WORDS, "subjects, claims, frames, scaffold",
                    SUBJECT_WORDS | CLAIM_WORDS | FRAME_WORDS | scaffold)
    assert_disjoint("subjects", SUBJECT_WORDS, "claims, frames, scaffold",
                    CLAIM_WORDS | FRAME_WORDS | scaffold)
    assert_disjoint("claims", CLAIM_WORDS, "remark frames and attribution scaffold",
                    _words(CONSTRUCTIONS["remark"], tokenize)
                    | SCAFFOLDS["participant-attribution"].words())
    owners = [w for s in SUBJECTS for w in set(raw_tokens(s)) - _CONNECTIVES]
    assert len(owners) == len(set(owners)), "subjects share words"
    neutral = _words([*CONSTRUCTIONS["remark"], *CLAIMS])
    assert not neutral & {"i", "me", "my", "you", "your", "we", "us", "our", "both"}, neutral
    assert all(s.count(" for the ") == 1 for s in SUBJECTS[:-len(VENUES + VENUE_PARITY)])


_assert_banks()

# --------------------------------------------------------------------------------------------
# Planning


@dataclass(frozen=True)
class Slot:
    """One session's statement: kind, subject (with its article), value or claim, speaker."""

    kind: str
    subject: str
    value: str | None = None
    claim: str | None = None
    role: engine.Role = "user"


def _values(rng: Any, pool: str, count: int, taken: set[str]) -> list[str]:
    out: list[str] = []
    while len(out) < count:
        first, last = rng.sample(POOLS[pool], 2)
        if not {first, last} & taken:
            taken |= {first, last}
            out.append(f"{first} {last}")
    return out


def _say(rng: Any, slot: Slot, deck: dict[str, list[str]]) -> engine.Piece:
    """``slot`` in the next construction of its kind from a per-haystack shuffled deck (all are
    used before any repeats; gold and filler draw from the same deck)."""
    if not deck.get(slot.kind):
        deck[slot.kind] = rng.sample(CONSTRUCTIONS[slot.kind], len(CONSTRUCTIONS[slot.kind]))
    return engine.Piece(deck[slot.kind].pop().format(subject=slot.subject, value=slot.value,
                                                     claim=slot.claim), slot.role)


def draft(seed: int, key: str, slots: Sequence[Slot], asked: str, rate: float
          ) -> engine.HaystackDraft:
    """Sessions from slots: the statement, and (recommend/add) an aside naming a haystack subject,
    the asked one on the dial share (the engine's mention planner: dithered, gold-blind, never the
    session's own subject)."""
    rng = derive_rng(seed, VERTICAL, key, "say")
    topics = {s.subject: s.subject for s in slots}
    blank = [engine.SessionDraft(s.subject, []) for s in slots]
    asides = engine.plan_mentions(engine.HaystackDraft(key, blank, topics, (asked,), [], None),
                                  rate, derive_rng(seed, VERTICAL, key, "asides"))
    sessions, deck = [], {}
    for slot, aside in zip(slots, asides):
        pieces = [_say(rng, slot, deck)]
        if slot.kind != "remark" and aside is not None:
            pieces.append(_say(rng, Slot("aside", aside, role="assistant"), deck))
        sessions.append(engine.SessionDraft(slot.subject, pieces))
    times, asked_at = engine.daily_times(rng, len(slots))
    return engine.HaystackDraft(key, sessions, topics, (asked,), times, asked_at, EXCHANGES)


def plan(seed: int, shape: str, index: int, subject: str, extra: int | str
         ) -> tuple[str, list[Slot], str | None]:
    """The haystack's key, its slots (gold at random positions) and the claim a question quotes.
    ``extra``: the list length (list-order) or who makes the gold remark (attribution)."""
    key = f"{shape}/{index:02d}"
    rng = derive_rng(seed, VERTICAL, key, "plan")
    h, taken, claim = rng.randint(*H_RANGE), set(), None
    if shape == "assistant-stated":
        gold = [rng.randrange(h + 1)]
        filler = [Slot("recommend", s, v, role="assistant") for s, v in zip(
            rng.sample(RECOMMEND_PARITY, h), _values(rng, "recommend", h, taken))]
        golds = [Slot("recommend", subject, v, role="assistant")
                 for v in _values(rng, "recommend-gold", 1, taken)]
    elif shape == "list-order":
        gold = sorted(rng.sample(range(h + int(extra)), int(extra)))
        lengths: list[int] = []
        while sum(lengths) < h:
            lengths.append(min(rng.randint(*FILLER_LIST_LENGTH), h - sum(lengths)))
        lists = [s for s, k in zip(rng.sample(LIST_PARITY, len(lengths)), lengths)
                 for _ in range(k)]
        rng.shuffle(lists)
        filler = [Slot("add", s, v) for s, v in zip(lists, _values(rng, "add", h, taken))]
        golds = [Slot("add", subject, v) for v in _values(rng, "add-gold", int(extra), taken)]
    else:
        claim = rng.choice(CLAIMS)
        speakers = {"user": ["user"], "assistant": ["assistant"],
                    "both": rng.sample(list(engine.ROLES), 2)}[str(extra)]
        gold = sorted(rng.sample(range(h + len(speakers)), len(speakers)))
        others = [c for c in CLAIMS if c != claim]
        near, same = rng.randint(*NEAR_MISS), rng.randint(*SAME_CLAIM)
        venues = rng.sample(VENUE_PARITY, len(VENUE_PARITY))
        parity = venues[same:same + max(1, (h - near - same + 1) // 2)]
        pairs = [(subject, c) for c in rng.sample(others, near)]
        pairs += [(v, claim) for v in venues[:same]]
        pairs += rng.sample([(v, c) for v in parity for c in others], h - near - same)
        golds = [Slot("remark", subject, claim=claim, role=r) for r in speakers]
        filler = [Slot("remark", v, claim=c, role=rng.choice(engine.ROLES)) for v, c in pairs]
        rng.shuffle(filler)
    gold_iter, filler_iter = iter(golds), iter(filler)
    slots = [next(gold_iter) if i in gold else next(filler_iter) for i in range(len(golds) + h)]
    return key, slots, claim


# --------------------------------------------------------------------------------------------
# Reading back (V5) and the validity rules


class Said(NamedTuple):
    session: int
    piece: int
    role: str
    value: str | None


@lru_cache(maxsize=4096)
def _pattern(kind: str, subject: str, claim: str | None = None) -> re.Pattern[str]:
    parts = [re.escape(t).replace(r"\{subject\}", re.escape(subject))
             .replace(r"\{claim\}", re.escape(claim or ""))
             .replace(r"\{value\}", rf"(?P<v{i}>[A-Z][a-z]+ [A-Z][a-z]+)")
             for i, t in enumerate(CONSTRUCTIONS[kind])]
    return re.compile("|".join(f"(?:{p})" for p in parts))


def read(stay: engine.Haystack, kind: str, subject: str, claim: str | None = None) -> list[Said]:
    """Every statement of ``kind`` about ``subject`` (and ``claim``), from the rendered text."""
    found = []
    for s, session in enumerate(stay.sessions):
        for t, turn in enumerate(session):
            for match in _pattern(kind, subject, claim).finditer(turn.text):
                if t not in stay.piece_turns[s]:
                    raise GenerationError(f"{stay.key}: a {kind} statement outside any piece")
                found.append(Said(s, stay.piece_turns[s].index(t), turn.role,
                                  next((v for v in match.groups() if v), None)))
    return found


def check_values(stay: engine.Haystack, slots: Sequence[Slot]) -> None:
    """Every value occurs in exactly one session, in a turn stating it with its subject; no value
    word stands outside a full value."""
    joined = ["\n".join(turn.text for turn in session) for session in stay.sessions]
    for slot in (s for s in slots if s.value):
        holding = [i for i, text in enumerate(joined) if slot.value in text]
        said = [x.session for x in read(stay, slot.kind, slot.subject) if x.value == slot.value]
        if len(holding) != 1 or said != holding:
            raise GenerationError(f"{stay.key}: {slot.value!r} is in sessions {holding}, stated "
                                  f"with {slot.subject!r} in {said}")
    rest = " ".join(joined)
    for value in (s.value for s in slots if s.value):
        rest = rest.replace(value, " ")
    if stray := set(raw_tokens(rest)) & VALUE_WORDS:
        raise GenerationError(f"{stay.key}: value words {sorted(stray)} outside a full value")


def screen_assistant_stated(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """§2.2 rule 1, lexical pass: no assistant-stated gold nor word of it in any user turn."""
    users = [t["content"] for r in records for s in r["haystack_sessions"] for t in s
             if t["role"] == "user"]
    tokens, joined = set(raw_tokens(" ".join(users))), "\n".join(users).lower()
    golds = [r for r in records if r["typedmemeval"]["shape"] == "assistant-stated"]
    for r in golds:
        if set(raw_tokens(r["answer"])) & tokens or r["answer"].lower() in joined:
            raise GenerationError(f"{r['question_id']}: assistant-stated gold {r['answer']!r} "
                                  "reaches a user turn")
    return {"questions": len(golds), "user_turns": len(users), "hits": 0}


# --------------------------------------------------------------------------------------------
# Records


def _gold(stay: engine.Haystack, shape: str, subject: str, claim: str | None
          ) -> tuple[list[Said], str, dict[str, Any]]:
    """The gold statements, the answer and the shape's key fields, from the text alone."""
    if shape == "assistant-stated":
        said = read(stay, "recommend", subject)
        if len(said) != 1 or said[0].role != "assistant" or said[0].value is None:
            raise GenerationError(f"{stay.key}: {subject!r} not recommended once by the assistant")
        return said, said[0].value, {"stated_by": "assistant"}
    if shape == "list-order":
        said = sorted(read(stay, "add", subject))
        items = [x.value for x in said]
        if len({x.session for x in said}) != len(said) or {x.role for x in said} != {"user"}:
            raise GenerationError(f"{stay.key}: the asked list is not one user item per session")
        if not LIST_LENGTH[0] <= len(items) <= LIST_LENGTH[1] or None in items:
            raise GenerationError(f"{stay.key}: the asked list has {len(items)} items")
        ordered = sorted(items)
        return said, ", ".join(items), {
            "stated_by": "user", "gold_components_load_bearing": True,
            "list_order": {"items": ordered, "presented_order": [ordered.index(i) for i in items],
                           "session_indices": [said[items.index(i)].session for i in ordered]}}
    said = read(stay, "remark", subject, claim)
    roles = sorted({x.role for x in said})
    if not said or len(said) != len(roles):
        raise GenerationError(f"{stay.key}: the remark is said {len(said)} times by {roles}")
    stated_by = roles[0] if len(roles) == 1 else "both"
    extra = {"gold_components_load_bearing": True} if stated_by == "both" else {}
    return said, ANSWER_FOR[stated_by], {"stated_by": stated_by, **extra,
                                         "instruction": ATTRIBUTION_INSTRUCTION}


def make_record(stay: engine.Haystack, shape: str, slots: Sequence[Slot], subject: str,
                claim: str | None, frame: str) -> tuple[dict[str, Any], list[str]]:
    """The question record with its gold read back from the text, and typical wrong answers."""
    said, answer, block = _gold(stay, shape, subject, claim)
    others = [s.value for s in slots if s.value and s.subject != subject]
    if shape == "list-order":
        items = answer.split(", ")
        wrong = [w for w in (", ".join(reversed(items)), ", ".join(sorted(items))) if w != answer]
        block.update(answer_key=engine.answer_key(list_order=items, wrong=others),
                     dial={"name": "list_length", "value": len(said)},
                     difficulty=len(said) - LIST_LENGTH[0] + 1)
    else:
        wrong = others[:2] if shape == "assistant-stated" else [c for c in CHOICES if c != answer]
        key = (engine.answer_key(accepted=[answer], wrong=others) if shape == "assistant-stated"
               else engine.answer_key(accepted=[answer], wrong=wrong, choices=list(CHOICES)))
        after = len(stay.sessions) - 1 - max(x.session for x in said)
        block.update(answer_key=key, dial={"name": "sessions_after_gold", "value": after},
                     difficulty=1 + min(4, (5 * after) // len(stay.sessions)))
    kind = "item" if shape == "list-order" else None
    block["gold_components"] = [{"kind": kind or f"{x.role}_statement", "session_index": x.session,
                                 "memory_type": MEMORY_TYPE} for x in sorted(said)]
    if claim is not None:
        question = frame.format(remark=f"{subject} {claim}")
    else:
        noun, purpose = subject[4:].split(" for the ")
        question = QUESTIONS[shape].format(noun=noun, purpose=purpose)
    rec = engine.record(stay, question_id=stay.key, vertical=VERTICAL, shape=shape,
                        memory_type=MEMORY_TYPE, question=question, answer=answer,
                        gold=[(x.session, x.piece) for x in said], block=block)
    return rec, wrong


def build(seed: int, competition_by_shape: Mapping[str, float], *,
          shapes: Sequence[str] = SHAPES) -> engine.Built:
    """The corpus (records in id order) and the rendering tally; every validity rule checked.
    A shape's records depend on the seed and its own dial only."""
    tally = engine.Tally()
    records: list[dict[str, Any]] = []
    subject_words: dict[str, list[str]] = {}
    for shape in (s for s in SHAPES if s in shapes):
        rate = float(competition_by_shape[shape])
        layout = derive_rng(seed, VERTICAL, shape, "layout")
        count = N_BY_SHAPE[shape]
        if shape == "participant-attribution":
            subjects = layout.sample(VENUES, count)
            extras: list[int | str] = [a for a in ("user", "assistant", "both")
                                       for _ in range(count // 3)]
        else:
            subjects = layout.sample(RECOMMEND_FACTS if shape == "assistant-stated" else LIST_FACTS,
                                     count)
            extras = [LIST_LENGTH[0] + (i * (LIST_LENGTH[1] - LIST_LENGTH[0] + 1)) // count
                      for i in range(count)]
        layout.shuffle(extras)
        for index, (subject, extra) in enumerate(zip(subjects, extras)):
            frame = layout.choice(ATTRIBUTION_FRAMES)
            key, slots, claim = plan(seed, shape, index, subject, extra)
            stay = engine.render(seed, VERTICAL, draft(seed, key, slots, subject, rate), rate,
                                 SCAFFOLDS[shape], tally)
            engine.check_haystack(stay)
            check_values(stay, slots)
            rec, wrong = make_record(stay, shape, slots, subject, claim, frame)
            engine.judge_gold(rec, wrong_answers=wrong)
            records.append(rec)
            subject_words[key] = sorted(set(raw_tokens(subject)) - _CONNECTIVES)
    screen_assistant_stated(records)
    if set(shapes) >= set(SHAPES):
        engine.check_rarity(records, subject_words)
    # Number against every shape's provisional ids, so a shape's ids do not depend on which
    # other shapes are built (assign_ids numbers only the records it is given).
    stubs = [{"question_id": f"{s}/{i:02d}"} for s in SHAPES if s not in shapes
             for i in range(N_BY_SHAPE[s])]
    engine.assign_ids(records + stubs, seed=seed, vertical=VERTICAL, abbrev=ABBREV)
    records.sort(key=lambda r: r["question_id"])
    return engine.Built(engine.finish(records), tally)
