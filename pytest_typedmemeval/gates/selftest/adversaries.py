"""The adversary gate's self-test fixtures: simulated corpora (:func:`build_simulated_corpus`) with
and without the tells each adversary reads, the false-refusal bookkeeping, and the case checks that
read a verdict.

The same simulation measures the gate's false-refusal rate (:func:`..adversaries.false_refusal_rate`,
``scripts/adversary_null.py``).

One template machinery: every session states one fact "attribute of subject = value" with a
frame of the attribute's type, values drawn from one pool per type, and chat around it. A
haystack draws its sessions first (a cluster of sessions for every subject in it, so every
subject recurs alike); which session is gold is decided afterwards, uniformly, and the question
asks for that session's attribute (its cluster-mates are the valued competitors). Defects are
knobs on this one builder (``clusters="asked"``: only the asked subject recurs).
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from ...corpus.loading import Corpus
from ...corpus.models import QuestionRecord, format_corpus_date
from ..result import GateResult, SelfTestCase


PEOPLE_A = ("Harriet Cole", "Tomas Reed", "Nadia Price", "Owen Marsh", "Priya Lane", "Felix Hart",
            "Mabel Frost", "Declan Shaw", "Ingrid Poole", "Rufus Webb", "Celia Booth",
            "Arjun Hale", "Greta Lowe", "Milo Barker", "Esme Quinn", "Hugo Finch")
PEOPLE_B = ("Joanna Pike", "Callum Dorsey", "Leona Swift", "Rhys Whitby", "Tamsin Vale",
            "Bernard Oakes", "Sunita Rowe", "Elliot Crane", "Fiona Ashby", "Gareth Mould",
            "Yasmin Holt", "Desmond Kerr", "Lorna Bell", "Victor Sayle", "Imogen Tate",
            "Cedric Bloom")
SHOPS_A = ("Marlow Hardware", "Penrose Supplies", "Kestrel Tools", "Ashdown Spares",
           "Calder Parts", "Thistle Trading", "Brook Lane Stores", "Harbour Fixings")
SHOPS_B = ("Wenlock Merchants", "Fairfield Depot", "Millbank Stockists", "Garnet Workshop",
           "Orchard Trade Counter", "Beacon Spares", "Redfern Hardware", "Salter Goods")
AMOUNTS_A = ("twelve", "fifteen", "eighteen", "forty", "sixty", "ninety", "seventeen", "thirty")
AMOUNTS_B = ("eleven", "fourteen", "nineteen", "fifty", "seventy", "eighty", "sixteen", "twenty")
DAYS_A = ("Monday", "Wednesday", "Friday", "Sunday")
DAYS_B = ("Tuesday", "Thursday", "Saturday", "Monday")

SUBJECTS = (("kiln", "pottery"), ("boiler", "cottage"), ("piano", "chapel"), ("mower", "allotment"),
            ("printer", "library"), ("canoe", "boathouse"), ("oven", "bakery"),
            ("lathe", "workshop"), ("freezer", "canteen"), ("organ", "abbey"),
            ("loom", "mill"), ("projector", "village hall"), ("dishwasher", "hostel"),
            ("telescope", "observatory"), ("trailer", "farm"), ("sauna", "leisure centre"),
            ("forklift", "warehouse"), ("jukebox", "diner"), ("harp", "conservatoire"),
            ("boiler", "greenhouse"), ("treadmill", "gym"), ("scooter", "depot"))

FRAMES: dict[str, tuple[str, ...]] = {
    "person": ("I booked {value} to look at the {item} at the {place}.",
               "{value} has the spare key for the {item} at the {place} now.",
               "I asked {value} to sort out the {item} at the {place} for me."),
    "shop": ("The spare part for the {item} at the {place} is coming from {value}.",
             "I found a cover for the {item} at the {place} at {value}.",
             "I ordered a new filter for the {item} at the {place} from {value}."),
    "amount": ("The repair on the {item} at the {place} came to {value} pounds.",
               "I put {value} pounds aside for the {item} at the {place}.",
               "Fixing the {item} at the {place} will cost about {value} pounds."),
    "day": ("The {item} at the {place} gets serviced on {value}.",
            "The {item} at the {place} is free on {value} mornings.",
            "Someone checks the {item} at the {place} every {value}."),
}
FRAME_TWINS: dict[str, tuple[str, ...]] = {
    "person": ("I booked {value} at the {place} to look at the {item}.",
               "{value} now has the spare key for the {item} at the {place}.",
               "I asked {value} to sort out for me the {item} at the {place}."),
    "shop": ("The spare part is coming from {value} for the {item} at the {place}.",
             "I found at {value} a cover for the {item} at the {place}.",
             "I ordered from {value} a new filter for the {item} at the {place}."),
    "amount": ("The repair came to {value} pounds on the {item} at the {place}.",
               "I put aside {value} pounds for the {item} at the {place}.",
               "Fixing the {item} at the {place} will about cost {value} pounds."),
    "day": ("The {item} at the {place} on {value} gets serviced.",
            "The {item} at the {place} on {value} mornings is free.",
            "Someone every {value} checks the {item} at the {place}."),
}
"""Each frame of :data:`FRAMES` with the same words in another order: the same word count,
characters, punctuation and values — every aggregate the form reader reads — in a different
sequence (the frame-table self-test: red team 32's disjoint own and other frames)."""
SHORT_WORDS = ("old", "new", "odd", "big", "wet", "dry", "hot", "raw")
LONG_WORDS = ("battered", "polished", "restored", "borrowed", "repaired", "handmade", "imported",
              "careworn")
"""Two describing words every statement of the length self-test carries, one from each list: in
the order short-long or long-short (a word-length *sequence*, the same lengths in aggregate)."""
ECHO_SENTENCE = "By the way, {value} came up in conversation today."
"""The recurrence self-test: a value told again in another session, naming no subject."""
DUE_SENTENCE = "It is due in {days} days."
"""The offset self-test: an interval after every statement, resolved against the session's date."""

QUESTIONS: dict[str, str] = {
    "person": "Who is involved with the {item} at the {place}?",
    "shop": "Which shop is involved with the {item} at the {place}?",
    "amount": "How much is riding on the {item} at the {place}?",
    "day": "Which day matters for the {item} at the {place}?",
}
CONTENT_FREE = ("The {item} at the {place} crossed my mind on the walk home.",
                "My brother asked about the {item} at the {place} over dinner.",
                "I keep thinking about the {item} at the {place} for some reason.")
USER_TALK = ("The rain kept off for most of the afternoon, which was a relief.",
             "I finally finished the crossword from the weekend paper.",
             "We had soup and crusty bread for lunch and it hit the spot.",
             "The bus was late again, so I walked the last stretch.",
             "I have been trying to get to bed a little earlier this week.",
             "The garden is full of sparrows now that the feeder is up.",
             "My neighbour {person} popped round with a tin of biscuits.",
             "I bumped into {person} at the post office this morning.",
             "It took {amount} minutes to find a parking space in town.",
             "The film club meets on {day} this month.")
ASSISTANT_TALK = ("That sounds like a pleasant change.", "Good to hear it went well.",
                  "Thanks for telling me.", "That must have been a nice moment.",
                  "Noted, I will keep that in mind.", "Fair enough, that happens.",
                  "It sounds like a busy week.", "I am glad it worked out.")
_SELF_START = datetime(2026, 3, 2, 9, 0)


@dataclass
class _Pools:
    gold: dict[str, tuple[str, ...]]
    filler: dict[str, tuple[str, ...]]

    @classmethod
    def shared(cls) -> _Pools:
        one = {"person": PEOPLE_A + PEOPLE_B, "shop": SHOPS_A + SHOPS_B,
               "amount": AMOUNTS_A + AMOUNTS_B, "day": tuple(dict.fromkeys(DAYS_A + DAYS_B))}
        return cls(one, one)

    @classmethod
    def split_by_role(cls) -> _Pools:
        return cls({"person": PEOPLE_A, "shop": SHOPS_A, "amount": AMOUNTS_A, "day": DAYS_A},
                   {"person": PEOPLE_B, "shop": SHOPS_B, "amount": AMOUNTS_B, "day": DAYS_B})


@dataclass
class _Draft:
    """One session being built: its fact and its turns ([role, text, is_fact])."""

    subject: tuple[str, str]
    kind: str
    value: str
    turns: list[list[Any]] = field(default_factory=list)


@dataclass
class SimulationSpec:
    """Knobs of the synthetic builder: a clean corpus by default, each defect one knob."""

    questions: int = 44
    sessions: tuple[int, int] = (18, 26)
    subject_sessions: tuple[int, int] = (7, 10)
    """Sessions per subject cluster (gold's included)."""
    clusters: str = "every"
    """``every``: every subject of a haystack has a cluster of ``subject_sessions`` sessions and
    gold is any session (clean); ``asked``: only the asked subject has a cluster (gold and valued
    competitors), every other subject appears once — the episodic-v3 defect, found by
    within-haystack recurrence."""
    pools: str = "shared"
    """``shared``: one pool per type, roles after the draw; ``split``: gold values from one list,
    filler values from another (the v2 defect)."""
    gold_position: int | None = None
    """Fixed index from the end for gold (``None``: wherever the draw put it)."""
    content_free_competitors: bool = False
    """Competitors mention the subject without any value; only gold has subject and value."""
    family: int = 0
    """Questions per family sharing filler verbatim (0: none share)."""
    family_own_filler: int = 0
    """Sessions of its own each family member adds besides gold (0: the haystacks differ only in
    gold — the v2 WorkingMemory defect)."""
    paired: bool = False
    """Questions come in pairs sharing a byte-identical haystack with different gold."""
    shape: str = "lookup"
    no_gold_questions: int = 0
    """Extra questions of a ``never-told`` shape whose haystack holds no gold."""
    phrase_free_competitors: bool = False
    """Competitors name the asked item at another place: only gold holds the question's phrase."""
    form_tell: bool = False
    """Competitors' statements (the asked subject's other sessions) end in a tag of their own
    (", as it happens"): same frames and values, only gold's statement is worded shorter, which a
    question-blind reader cannot see (other subjects' statements have no tag either) and a reader of
    the candidates' form can (red team 19 on WorkingMemory v3)."""
    episode_tell: bool = False
    """Every statement follows a lead-in sentence naming its subject, in the same turn; the asked
    subject's competitors get a long one ("I have been meaning to tell you some news about the
    kiln, if you have a minute."), gold and every other statement a short one ("News on the
    kiln."). The statement clauses are alike, so only a reader of the *episode* — a sentence with
    the sentences around it — can see it (red team 21 on Forgetting v3)."""
    tail_tell: bool = False
    """Every statement's turn goes on to a value-less aside and then a value-less closing remark;
    the asked subject's competitors get a long remark, gold and every other statement a short one
    (:data:`TAIL_SHORT_REMARK`, :data:`TAIL_LONG_REMARK`). The remark names no subject and stands
    two sentences after the value, so no candidate clause and no candidate sentence's neighbours
    differ: the clause and episode views see nothing. It is in the statement's *tail* (the statement
    to the end of its turn), which the tail view reads (red team 28 on Prospective v3: a stance tail
    only competitors carry)."""
    frame_echo: bool = False
    """Every question asks "What do you know of the {item} at the {place}?" and the asked subject's
    competitors' statements end ", as far as I know.": they hold one question word more than gold's
    (the frame's "know"), so the clause and episode views' top tier holds competitors only and they
    measure nothing, while the tail view, which sets the shape's frame words aside, reads the longer
    statements (red team 27 on Episodic list-order: "I did not **add** X to ...")."""
    tail_random: bool = False
    """The clean control of :attr:`tail_tell`: every statement gets the aside and a remark drawn
    long or short at random, whatever its role."""
    frame_tell: bool = False
    """The asked subject's competitors state their fact in :data:`FRAME_TWINS` (the same words in
    another order), gold and every other statement in :data:`FRAMES`: role-exclusive frames of
    identical aggregate form, which only a table of frames can read (red team 32)."""
    frame_random: bool = False
    """The clean control of :attr:`frame_tell`: every statement's frame from either bank at
    random."""
    length_tell: bool = False
    """Every statement ends ", <a> and <b>." with one word of :data:`SHORT_WORDS` and one of
    :data:`LONG_WORDS`: short-long for gold and every other statement, long-short for the asked
    subject's competitors. The same lengths in aggregate; only the word-length *sequence* differs
    (red team 35), and the words are drawn, so a table of exact frames sees few repeats."""
    length_random: bool = False
    """The clean control of :attr:`length_tell`: the order drawn at random for every statement."""
    recurrence_tell: bool = False
    """Gold's value is told again in one other session (:data:`ECHO_SENTENCE`, naming no subject);
    its competitors' values once (red team 30)."""
    recurrence_equal: bool = False
    """The clean control of :attr:`recurrence_tell`: gold's and every competitor's value told again
    in another session."""
    offset_tell: bool = False
    """Every statement is followed by :data:`DUE_SENTENCE`; gold's due date falls 4-7 days after
    the question's date, its competitors' 12-40 days after, every other statement's 4-40 (red team
    34: gold's offset in a narrow band)."""
    offset_random: bool = False
    """The clean control of :attr:`offset_tell`: every statement's due date 4-40 days after the
    question's date."""
    calendar_tell: bool = False
    """Questions alternate between a ``before`` and an ``after`` arm; the question is dated 20-40
    days after the haystack's last session for ``before``, 45-65 for ``after``: the arm is read off
    the calendar without a statement (red team 39 on Prospective v3)."""
    calendar_random: bool = False
    """The clean control of :attr:`calendar_tell`: the same arms, every question dated 20-65 days
    after its last session whatever its arm."""
    due_tell: bool = False
    """The arms of :attr:`calendar_random`, and every statement followed by :data:`DUE_SENTENCE`
    whose due date falls 1-15 days *after* the question's date for ``before``, 1-15 days *before* it
    for ``after``: the arm is read off any statement's own due date, whatever its subject (red team
    40 on Prospective ``fbf1df8d``)."""
    due_random: bool = False
    """The clean control of :attr:`due_tell`: the same arms and due sentences, each statement's due
    date on either side of the question's date at random."""
    shape_size: int = 0
    """Questions per shape (0: one shape holds them all); shapes of 4 are what a vertical with
    many small shapes ships (Prospective v3 has three)."""


FRAME_ECHO_QUESTION = "What do you know of the {item} at the {place}?"
TAIL_ASIDE = "Anyway, that is how it stands."
TAIL_SHORT_REMARK = "So that is that."
TAIL_LONG_REMARK = "So that, more or less and for what it is worth, is the whole story so far."
EPISODE_SHORT_LEAD = "News on the {item}."
EPISODE_LONG_LEAD = "I have been meaning to tell you some news about the {item}, if you have a minute."


def _chat(rng: random.Random, pools: Mapping[str, Sequence[str]]) -> str:
    text = rng.choice(USER_TALK)
    return text.format(person=rng.choice(pools["person"]), amount=rng.choice(pools["amount"]),
                       day=rng.choice(pools["day"]))


def _render(rng: random.Random, draft: _Draft, pools: Mapping[str, Sequence[str]], *,
            content_free: bool = False,
            frames: Mapping[str, tuple[str, ...]] = FRAMES) -> None:
    """The one template machinery: a fact turn among chat exchanges, gold or not alike."""
    item, place = draft.subject
    exchanges = rng.randint(2, 3)
    fact_at = rng.randrange(exchanges)
    if content_free:
        fact = rng.choice(CONTENT_FREE).format(item=item, place=place)
    else:
        fact = rng.choice(frames[draft.kind]).format(value=draft.value, item=item, place=place)
    for index in range(exchanges):
        if index == fact_at:
            draft.turns.append(["user", fact, True])
        else:
            draft.turns.append(["user", _chat(rng, pools), False])
        draft.turns.append(["assistant", rng.choice(ASSISTANT_TALK), False])


def _subject_pool(rng: random.Random, taken: tuple[str, str]) -> tuple[str, str]:
    while True:
        subject = rng.choice(SUBJECTS)
        if subject != taken and not set(subject) & set(taken):
            return subject


@dataclass
class _Built:
    question: str
    answer: str
    sessions: list[_Draft]
    gold: list[int]
    shape: str
    ids: list[str]
    arm: str | None = None
    gap_days: int = 2
    """Days from the last session to the question date (2 unless a calendar knob draws it)."""


def _distinct_subjects(rng: random.Random, taken: Sequence[tuple[str, str]]
                       ) -> list[tuple[str, str]]:
    """Every subject sharing no item or place with ``taken`` (nor with an earlier one), shuffled."""
    out: list[tuple[str, str]] = []
    words = {word for subject in taken for word in subject}
    for subject in rng.sample(SUBJECTS, len(SUBJECTS)):
        if not set(subject) & words:
            out.append(subject)
            words.update(subject)
    return out


def _haystack(rng: random.Random, spec: SimulationSpec, pools: _Pools, n: int
              ) -> tuple[list[_Draft], list[int]]:
    """Draw a haystack's sessions first, then the sessions gold may be (returned with the drafts).

    ``spec.clusters == "every"`` (clean): every subject of the haystack gets a cluster of
    ``spec.subject_sessions`` sessions, clusters drawn until there are at least ``n`` sessions,
    and gold may be any session (roles after the draw: the asked subject is gold's subject). Every
    subject recurs alike, so neither a subject word nor how often a topic recurs in the haystack
    marks gold question-blind. ``"asked"`` (the episodic-v3 defect): one cluster, of the asked
    subject, its competitors carrying values like gold; every other subject appears once."""
    kinds = list(FRAMES)
    drafts: list[_Draft] = []
    subjects = _distinct_subjects(rng, ())
    if spec.clusters == "asked":
        asked = subjects.pop()
        for _ in range(rng.randint(*spec.subject_sessions)):
            kind = rng.choice(kinds)
            drafts.append(_Draft(asked, kind, rng.choice(pools.filler[kind])))
        for index in range(max(n, len(drafts) + 1) - len(drafts)):
            kind = rng.choice(kinds)
            drafts.append(_Draft(subjects[index % len(subjects)], kind,
                                 rng.choice(pools.filler[kind])))
        rng.shuffle(drafts)
        return drafts, [i for i, d in enumerate(drafts) if d.subject == asked]
    while len(drafts) < n:
        if not subjects:
            raise ValueError("simulation: too few distinct subjects for the clusters asked for")
        subject = subjects.pop()
        for _ in range(rng.randint(*spec.subject_sessions)):
            kind = rng.choice(kinds)
            drafts.append(_Draft(subject, kind, rng.choice(pools.filler[kind])))
    rng.shuffle(drafts)
    return drafts, list(range(len(drafts)))


def _finish(rng: random.Random, spec: SimulationSpec, pools: _Pools, drafts: list[_Draft],
            gold: int) -> None:
    """Roles after the draw: gold's value is redrawn from the gold pool (the same pool unless the
    pools are split) and every session is rendered by the one machinery."""
    drafts[gold].value = rng.choice(pools.gold[drafts[gold].kind])
    for index, draft in enumerate(drafts):
        if draft.turns:
            continue
        competitor = index != gold and draft.subject == drafts[gold].subject
        if competitor and spec.phrase_free_competitors:
            item, place = draft.subject
            draft.subject = (item, rng.choice([p for _, p in SUBJECTS if p != place]))
        frames = FRAMES
        if spec.frame_tell and competitor or spec.frame_random and rng.random() < 0.5:
            frames = FRAME_TWINS
        _render(rng, draft, pools.filler if index != gold else pools.gold,
                content_free=spec.content_free_competitors and competitor, frames=frames)
        if spec.length_tell or spec.length_random:
            short, long = rng.choice(SHORT_WORDS), rng.choice(LONG_WORDS)
            flipped = competitor if spec.length_tell else rng.random() < 0.5
            first, second = (long, short) if flipped else (short, long)
            for turn in draft.turns:
                if turn[2]:
                    turn[1] = f"{turn[1].rstrip('.')}, {first} and {second}."
        if competitor and spec.form_tell:
            for turn in draft.turns:
                if turn[2]:
                    turn[1] = turn[1].rstrip(".") + ", as it happens."
        if competitor and spec.frame_echo:
            for turn in draft.turns:
                if turn[2]:
                    turn[1] = turn[1].rstrip(".") + ", as far as I know."
        if spec.tail_tell or spec.tail_random:
            remark = (rng.choice((TAIL_LONG_REMARK, TAIL_SHORT_REMARK)) if spec.tail_random
                      else TAIL_LONG_REMARK if competitor else TAIL_SHORT_REMARK)
            for turn in draft.turns:
                if turn[2]:
                    turn[1] = f"{turn[1]} {TAIL_ASIDE} {remark}"
        if spec.episode_tell:
            lead = (EPISODE_LONG_LEAD if competitor else EPISODE_SHORT_LEAD).format(
                item=draft.subject[0])
            for turn in draft.turns:
                if turn[2]:
                    turn[1] = f"{lead} {turn[1]}"


def _tables_defects(rng: random.Random, spec: SimulationSpec, drafts: list[_Draft], gold: int
                    ) -> None:
    """The table readers' knobs, applied once every session is rendered: a value told again in
    another session (:attr:`SimulationSpec.recurrence_tell`) and a due date after every statement
    (:attr:`SimulationSpec.offset_tell`). Session ``i`` is dated day ``i``, the question day
    ``len(drafts) + 1`` (:func:`_corpus_of`)."""
    cluster = [i for i, d in enumerate(drafts) if d.subject == drafts[gold].subject]
    if spec.recurrence_tell or spec.recurrence_equal:
        others = [i for i, d in enumerate(drafts) if d.subject != drafts[gold].subject]
        for index in ([gold] if spec.recurrence_tell else cluster):
            host = drafts[rng.choice(others)]
            turn = rng.choice([t for t in host.turns if t[0] == "user" and not t[2]])
            turn[1] = f"{turn[1]} {ECHO_SENTENCE.format(value=drafts[index].value)}"
    if spec.offset_tell or spec.offset_random:
        question_day = len(drafts) + 1
        for index, draft in enumerate(drafts):
            if spec.offset_tell and index == gold:
                offset = rng.randint(4, 7)
            elif spec.offset_tell and index in cluster:
                offset = rng.randint(12, 40)
            else:
                offset = rng.randint(4, 40)
            for turn in draft.turns:
                if turn[2]:
                    turn[1] = f"{turn[1]} {DUE_SENTENCE.format(days=question_day - index + offset)}"


def _calendar_arms(rng: random.Random, spec: SimulationSpec, built: Sequence[_Built]) -> None:
    """The calendar knobs: arms alternate ``before`` / ``after``; the gap from the last session to
    the question date depends on the arm (:attr:`SimulationSpec.calendar_tell`) or not
    (:attr:`SimulationSpec.calendar_random`)."""
    for index, item in enumerate(built):
        item.arm = ("before", "after")[index % 2]
        if spec.calendar_tell:
            item.gap_days = rng.randint(20, 40) if item.arm == "before" else rng.randint(45, 65)
        else:
            item.gap_days = rng.randint(20, 65)


def _due_arms(rng: random.Random, spec: SimulationSpec, built: Sequence[_Built]) -> None:
    """The due-date knobs: every statement gets a due date 1-15 days from the question's date, on
    the arm's side (:attr:`SimulationSpec.due_tell`) or on a side drawn at random
    (:attr:`SimulationSpec.due_random`). Session ``i`` is day ``i``, the question day
    ``n - 1 + gap_days`` (:func:`_corpus_of`; gaps of 20-65 keep every interval forward)."""
    for item in built:
        question_day = len(item.sessions) - 1 + item.gap_days
        for index, draft in enumerate(item.sessions):
            for turn in draft.turns:
                if not turn[2]:
                    continue
                after_question = (item.arm == "before" if spec.due_tell
                                  else rng.random() < 0.5)
                offset = rng.randint(1, 15) * (1 if after_question else -1)
                turn[1] = f"{turn[1]} {DUE_SENTENCE.format(days=question_day - index + offset)}"


def _move_gold(drafts: list[_Draft], gold: int, from_end: int) -> int:
    target = max(0, len(drafts) - 1 - from_end)
    drafts[gold], drafts[target] = drafts[target], drafts[gold]
    return target


def _question_of(draft: _Draft) -> str:
    item, place = draft.subject
    return QUESTIONS[draft.kind].format(item=item, place=place)


def build_simulated_corpus(seed: int, spec: SimulationSpec | None = None, *,
                           corpus_id: str = "selftest-adversaries-v3") -> Corpus:
    """A synthetic corpus from the one template machinery (clean by default; see
    :class:`SimulationSpec` for the defect knobs). Deterministic in ``seed``."""
    spec = spec or SimulationSpec()
    rng = random.Random(seed)
    pools = _Pools.split_by_role() if spec.pools == "split" else _Pools.shared()
    built: list[_Built] = []
    q = 0
    while len(built) < spec.questions:
        n = rng.randint(*spec.sessions)
        if spec.family:
            built += _family(rng, spec, pools, q)
        elif spec.paired:
            drafts, candidates = _haystack(rng, spec, pools, n)
            first = rng.choice(candidates)
            second = rng.choice([i for i in candidates
                                 if i != first and drafts[i].subject == drafts[first].subject])
            for index in (first, second):
                drafts[index].value = rng.choice(pools.gold[drafts[index].kind])
            for draft in drafts:
                _render(rng, draft, pools.filler)
            ids = [f"q{q:03d}-s{i:02d}" for i in range(len(drafts))]
            for arm in (first, second):
                built.append(_Built(_question_of(drafts[arm]), drafts[arm].value, drafts, [arm],
                                    spec.shape, ids))
        else:
            drafts, candidates = _haystack(rng, spec, pools, n)
            gold = rng.choice(candidates)
            if spec.gold_position is not None:
                gold = _move_gold(drafts, gold, spec.gold_position)
            _finish(rng, spec, pools, drafts, gold)
            _tables_defects(rng, spec, drafts, gold)
            question = (FRAME_ECHO_QUESTION.format(item=drafts[gold].subject[0],
                                                   place=drafts[gold].subject[1])
                        if spec.frame_echo else _question_of(drafts[gold]))
            built.append(_Built(question, drafts[gold].value, drafts, [gold],
                                spec.shape, [f"q{q:03d}-s{i:02d}" for i in range(len(drafts))]))
        q += 1
    built = built[:spec.questions]
    if spec.calendar_tell or spec.calendar_random or spec.due_tell or spec.due_random:
        _calendar_arms(rng, spec, built)
    if spec.due_tell or spec.due_random:
        _due_arms(rng, spec, built)
    if spec.shape_size:
        for index, item in enumerate(built):
            item.shape = f"{spec.shape}-{index // spec.shape_size}"
    for extra in range(spec.no_gold_questions):
        n = rng.randint(*spec.sessions)
        subject = rng.choice(SUBJECTS)
        drafts = [_Draft(_subject_pool(rng, subject), kind, rng.choice(pools.filler[kind]))
                  for kind in (rng.choice(list(FRAMES)) for _ in range(n))]
        for draft in drafts:
            _render(rng, draft, pools.filler)
        built.append(_Built(QUESTIONS["person"].format(item=subject[0], place=subject[1]),
                            "You never told me.", drafts, [], "never-told",
                            [f"x{extra:03d}-s{i:02d}" for i in range(n)]))
    return _corpus_of(built, corpus_id)


def _family(rng: random.Random, spec: SimulationSpec, pools: _Pools, q: int) -> list[_Built]:
    """``spec.family`` questions about different subjects sharing their filler verbatim: the
    shared filler holds competitors for each member's subject; each member adds its own gold (and
    ``family_own_filler`` sessions of its own, about the other members' subjects in turn, so that
    with ``family_own_filler == family - 1`` every subject recurs once more in every haystack and
    gold's subject does not stand out by recurrence)."""
    subjects: list[tuple[str, str]] = []
    while len(subjects) < spec.family:
        subject = rng.choice(SUBJECTS)
        if all(not set(subject) & set(s) for s in subjects):
            subjects.append(subject)
    kinds = list(FRAMES)
    shared: list[_Draft] = []
    for subject in subjects:
        for _ in range(rng.randint(*spec.subject_sessions)):
            kind = rng.choice(kinds)
            shared.append(_Draft(subject, kind, rng.choice(pools.filler[kind])))
    rng.shuffle(shared)
    for draft in shared:
        _render(rng, draft, pools.filler)
    out = []
    for member, subject in enumerate(subjects):
        kind = rng.choice(kinds)
        gold = _Draft(subject, kind, rng.choice(pools.gold[kind]))
        _render(rng, gold, pools.gold)
        own = []
        others = [s for s in subjects if s != subject]
        for index in range(spec.family_own_filler):
            other = rng.choice(kinds)
            about = others[index % len(others)] if others else _subject_pool(rng, subject)
            draft = _Draft(about, other, rng.choice(pools.filler[other]))
            _render(rng, draft, pools.filler)
            own.append(draft)
        drafts = list(shared)
        for draft in [gold, *own]:
            drafts.insert(rng.randint(0, len(drafts)), draft)
        index = next(i for i, d in enumerate(drafts) if d is gold)
        ids = [f"f{q:03d}m{member}-s{i:02d}" for i in range(len(drafts))]
        out.append(_Built(_question_of(gold), gold.value, drafts, [index], spec.shape, ids))
    return out


def _corpus_of(built: Sequence[_Built], corpus_id: str) -> Corpus:
    records = []
    for index, item in enumerate(built):
        n = len(item.sessions)
        has_gold = bool(item.gold)
        records.append(QuestionRecord.model_validate({
            "question_id": f"tme-adv-{index + 1:03d}" + ("" if has_gold else "_abs"),
            "question_type": item.shape,
            "question": item.question,
            "answer": item.answer,
            "question_date": format_corpus_date(
                _SELF_START + timedelta(days=n - 1 + item.gap_days)),
            "haystack_session_ids": item.ids,
            "haystack_dates": [format_corpus_date(_SELF_START + timedelta(days=i)) for i in range(n)],
            "haystack_sessions": [[{"role": role, "content": text,
                                    "has_answer": bool(flag and s in item.gold)}
                                   for role, text, flag in draft.turns]
                                  for s, draft in enumerate(item.sessions)],
            "answer_session_ids": [item.ids[i] for i in item.gold],
            "typedmemeval": {"vertical": "synthetic", "shape": item.shape,
                             **({"arm": item.arm} if item.arm else {}),
                             "answer_key": ({"accepted": [item.answer]} if has_gold
                                            else {"expected_negative": "abstain"})},
        }))
    text = json.dumps([r.model_dump(mode="json") for r in records], sort_keys=True)
    sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return Corpus(corpus_id=corpus_id, path=Path(f"<{corpus_id}>"), sha256=sha,
                  records=tuple(records), sidecar=None, vertical="synthetic")


@dataclass(frozen=True)
class FalseRefusal:
    """The simulated false-refusal rate: clean corpora refused, of those tried, by which rules."""

    trials: int
    refused: int
    by_rule: dict[str, int]
    refused_seeds: tuple[int, ...]

    @property
    def rate(self) -> float:
        return self.refused / self.trials if self.trials else 0.0


FALSE_REFUSAL_BUDGET = 0.05
"""GATES.md §7: the bounds' false-refusal rate on clean simulated corpora must stay <= 5 %."""



def _skip_case(name: str, result: GateResult) -> SelfTestCase:
    """A v2 corpus carrying a tell: skipped (never passed), with its figures and the would-be
    refusal published in ``measured``."""
    would = {row["rule"] for row in result.measured.get("would_refuse", [])}
    ok = (result.status == "skipped" and "predates" in (result.skip_reason or "")
          and bool(result.measured.get("by_shape")) and "learned_gold_at_1" in would)
    return SelfTestCase(name, "defect", None, ok,
                        f"status {result.status}; would refuse {sorted(would)}; "
                        f"skip_reason {result.skip_reason!r}")


def _exempt_case(name: str, result: GateResult, shape: str) -> SelfTestCase:
    applied = result.measured.get("exemptions_applied", {})
    ok = result.passed and shape in applied and bool(applied[shape]["rules"])
    return SelfTestCase(name, "control", None, ok,
                        f"status {result.status}; exemptions applied {applied}")



CHANCE_RULES = frozenset({"learned_gold_at_1", "learned_auc", "position_prior"})
"""The rules measured against a no-signal ranking, which carry a significance test; the reader and
fact-only BM25 are difficulty bounds on the figure itself, as calibration's ceiling is."""


def _chance_case(name: str, result: GateResult) -> SelfTestCase:
    """A clean corpus of small shapes: none of the rules judged against chance fires. (The
    difficulty bounds may: four questions of an easy shape are an easy shape.)"""
    fired = sorted(result.refused_rules() & CHANCE_RULES)
    return SelfTestCase(name, "control", None, not fired,
                        f"chance rules fired: {fired or 'none'}; all {sorted(result.refused_rules())}")



RECURRENCE_DEFECT = SimulationSpec(clusters="asked", subject_sessions=(5, 8), sessions=(18, 25))
"""The episodic-v3 tell: the asked subject recurs (gold and 4-7 valued competitors), no other does
(at most 25 sessions, so the 20 subjects left each appear once)."""
RECURRENCE_CONTROL = SimulationSpec(subject_sessions=(5, 8))
"""Its clean control: every subject of the haystack has a cluster of that size."""
SMALL_SHAPES = SimulationSpec(shape_size=4)
"""Eleven shapes of four questions: one chance hit is gold@1 0.25, above every per-shape bound."""

SELF_TEST_SIMULATION_TRIALS = 6
"""Clean corpora the self-test itself simulates (the full 40-trial simulation is a test)."""
