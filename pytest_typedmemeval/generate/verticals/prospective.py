"""TypedMemEval-Prospective revision 3 (VERTICALS.md §2.1, Appendices A, C, D) over the shared engine.

Whether a system anchors remembered items in time. No session prints a date: statements carry
*relative* spans ("in nine weeks", "for the next sixty days") and the asking moment is only
``question_date``. Shapes and keys (every value read back from the rendered text, V5):

- ``due-later`` (8 pairs), "I have set a reminder to call Harriet Colby about the boiler at the
  cottage in nine weeks.": before arm ``not_yet`` with ``must_name`` = ``premature`` = the callee
  (a bare "Not yet." is ``missed``); after arm ``accepted`` = ``must_name`` = the callee.
- ``expiring-validity`` (6 pairs), cover from X valid for N days: before ``not_yet`` / after
  ``no_longer``, both ``must_name`` X.
- ``not-yet-true`` (5 pairs), "I am planning to book X for ... in ten weeks"; the record only holds
  the plan. Before ``not_yet``, ``must_name`` = ``premature`` = X. After: the day set has passed
  and nothing recorded says whether it happened (the question asks about the record); key
  ``abstain`` with ``must_name`` X and the haystack's other values ``wrong``.
- ``as-of`` / ``current`` / ``prospective`` (4 each, unpaired, authored here): "X looks after it
  for now, and Y takes over in eight weeks", asked about an instant relative to the asking moment;
  gold X or Y, two of each per shape; the other name is ``stale`` or ``premature``.

**Revision 3 (Appendix D).** A haystack is planned gold-blind; which statement answers is read off
last, and only the answer key knows it:

1. *Subjects from one list.* A haystack draws one subject per session ("the {noun} at the
   {place}"; one list of nouns, one of places; a noun or place drawn twice gives another instance
   of a thing, or another thing at the same place, by itself). The asked subject is chosen after
   the draw, uniformly among those whose words the fewest other haystacks ask about, so every
   asked subject's words are filler elsewhere.
2. *Clusters as wide as the slots allow.* Besides the asked subject, ``K - 1`` other drawn
   subjects, the **decoys**, get exactly its treatment: an own statement and as many competitors.
   Every session has two competitor slots, and ``K`` is the most clusters the slots hold
   (:func:`clusters_for`, :func:`_clusters`); the slots no cluster takes are spread evenly over the
   unclustered subjects (:func:`_singles`), none of which gets more than the clusters' count when
   the slots allow it. The clusters pick their host sessions in rounds, each taking a session with
   the fewest clustered mentions so far. (Red team 28: with ``K = max(2, round(n / (count + 1)))``
   only two or three subjects recurred and the asked one was the haystack's most-named subject in
   0.586 of haystacks, a random subject 0.071; with one decoy only, earlier, the learned
   adversary's AUC on expiring-validity was 0.81.)
3. *Values from one pool.* Every person a haystack names comes from one :func:`..values.draw`
   call, dealt to its statements in a shuffled order: the gold value is whichever name lands on
   the gold statement. People only (callee, cover provider, booking, carer); a trade name would
   misfit most subjects.
4. *One make-up for every session*: one **own** statement (the user's reminder, cover, plan or
   hand-over, of the haystack's kind, about the session's subject, with its span) and two
   **competitors** with values. A competitor is about the asked subject, a decoy, or a subject of
   another session, and its form is dealt evenly from :data:`FORMS`: ``cancelled`` (a user
   statement undone) or ``suggestion`` (an assistant suggestion the user declines; more of them in
   hand-over haystacks, whose statements name two people each). **Every user statement, gold
   included, is a body and a stance tail** (:data:`BODIES`, :data:`TAILS`): one bank of bodies for
   every role, and twin tails with the same word-length sequence, commas and sentence count, so a
   reader of form cannot tell the own statement from its cancelled twins (red team 28: the
   competitors were the own frame plus a tail and gold the bare frame; the shortest named
   statement about the asked subject was gold in 0.661 of haystacks, random 0.170, and a learned
   form reader 0.709). The assistant answers every user statement from one neutral reply bank
   (red team 28: a bank per stance made the reply a role oracle, 0.929 held out). Every
   competitor names the subject as the question does ("the boiler at the cottage") and its body
   holds the question's verb phrase as often as gold's (every hand-over body says "looks after";
   every reminder body "to call"). The lowest level is 6 (was 4: with 4 competitors at most five
   sessions held the subject, so any reader of it had gold in its top five). The search keeps the
   phrase reader at or under the ceiling.
5. *The dial* (``RECORDED_COMPETITION``, per shape, in [0, 1]) is the **competitor share**: each
   clustered subject gets ``1 + floor(d (level - 1) + u)`` competitors. The level is the
   difficulty band (6 / 8 / 10 / 12, bands 1-4, every level in every shape), so the dial is
   competitors x a fixed, close mix of forms. Slots, forms and every per-slot draw are fixed
   first: the dial only moves slots between the clusters and single subjects (and sets how many
   clusters there are).
6. *Positions*: uniform draws, spread within each shape (no two of its haystacks put gold at the
   same index from the start, from the end, or in the same tenth); the decoys' own sessions are
   uniform among the rest (those whose words no haystack asks about first). A rendering in which
   some session's turn order is unique in its haystack is redrawn, whichever session it is (V7's
   role-sequence rule). Sessions are about a
   day apart and spans 35-140 days, so pivots lie weeks after the last session. *Due dates from one
   distribution* (red team 34): the asking window (before arm to after arm, 13-16 days) is drawn
   from the session times first, and every span-bearing statement, gold or not, takes a span
   uniform among those that fall due inside it at least 3 days from either end; the seed shapes
   ask at one end of it. Gold's pivot is one such draw, so the distance from the asked date to a
   statement's due date says nothing about its role (it was 3-8 days for gold and anywhere in some
   fifty days for the rest: gold@1 0.68 held out). One persona per haystack
   (:func:`..conversation.render_haystack`).

Validity rules (:class:`GenerationError`): pivot >= 3 weeks after the last session and strictly
between the arms, >= 2 days from either; before-arm golds say not yet outright; no not-yet-true
gold claims the plan went ahead; due-later holds >= 3 distractor reminders due >= 2 days from the
gold's pivot (other statements may share it: every due date is one draw, and keeping them all away
from gold's alone would single it out); V4 at calendar level, no digits or dashes; names only inside
statements; the text reads back as planned, with exactly one own statement about the asked subject
and the planned number of competitors, none of which answers; pair haystacks identical with
flipped gold; every level in every shape; subject words in < 10% of sessions; the judge grades each
gold correct and each clock-blind answer, and the gold answer with any competitor's value, not
correct.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any, NamedTuple

from ...corpus.models import parse_corpus_date
from ...gates.structure import v4_findings
from ...judge.reading import JUDGE_CUE_PATTERNS
from ...retrieval.tokenizer import raw_tokens
from .. import calibration, conversation, engine, episodes_bank
from .. import values as value_pool
from ..length_balance import length_sequence_imbalance
from ..primitives import GenerationError, assert_disjoint, content_words, derive_rng
from .prospective_banks import (ANSWERS, BODIES, NOUNS, OFFSETS, PLACES, QUESTIONS, REQUESTS, SPANS,
                                SUGGESTIONS, TAILS, TIME_BLIND)

VERTICAL, ABBREV, MEMORY_TYPE = "prospective", "pro", "prospective"
GENERATOR = "pytest_typedmemeval.generate.verticals.prospective"
GENERATOR_VERSION, REVISION, SEED = "3", 3, 20260511
SHAPES = ("as-of", "current", "prospective", "due-later", "expiring-validity", "not-yet-true")
CALIBRATED_SHAPES = SHAPES
RECORDED_COMPETITION: dict[str, float] = {  # competitor share, from search_dial (calibration.json)
    "as-of": 0.875, "current": 0.75, "prospective": 0.75, "due-later": 0.875,
    "expiring-validity": 0.75, "not-yet-true": 0.5}
DIFFICULTY_NOTE = ("declared, not validated: the band is the competitor capacity of the asked subject "
                   "(levels 6 / 8 / 10 / 12 -> bands 1-4; the dial sets how much of it is used); the "
                   "displacement from statement to pivot (35-140 days) is a time a lexical retriever "
                   "cannot see")

UNPAIRED = {"as-of": 4, "current": 4, "prospective": 4}
PAIRS = {"due-later": 8, "expiring-validity": 6, "not-yet-true": 5}
H_RANGE = {"reminder": (12, 17), "validity": (12, 17), "plan": (12, 17), "schedule": (12, 12)}
"""§2.1: H is 12-20; a hand-over names two people, so its haystacks stay small enough for one
draw of the people pool (no first name or surname twice)."""
LEVELS = (6, 8, 10, 12)
"""Competitor capacity of each cluster per haystack (§2.1 "competing reminders", every level in
every shape; Appendix D: they carry values); the dial decides how much of it is used."""
MIN_DISTRACTOR_REMINDERS = 3
WINDOW_MINUTES = (13 * 1440, 16 * 1440)
"""The asking window: the before arm (or a seed shape's instant on one side) and the after arm lie
this far apart, and every span-bearing statement of the haystack, gold or not, falls due inside it
at least :data:`EDGE_MINUTES` from either end (:func:`_window`, :func:`_span_into`). Red team 34: the
arms were asked 3-8 days either side of gold's pivot while every other statement fell due anywhere
in some fifty days, so the statements due 4-7 days from the asked date were gold 31 times against
17 competitors (0-3 days 7 against 27, 12-15 and 20-31 days 0 against 92), and a naive Bayes over
4-day offset buckets found gold at 0.68 held out (0.19 by chance). Now every statement's due date
is one draw from one distribution relative to the asked dates; roles are read after the draw.
Red team 39: with spans of 49-91 days the window could only sit 46-62 days after the last session
while being 14-20 days wide, so "asked date minus last session > 62.7 days" told the after arm from
the before arm in 50/50 questions. Spans now run 35-140 days and the window is 13-16 days wide: it
may start anywhere in a band of some eighty days, several times its own width."""
EDGE_MINUTES = 3 * 1440
"""How far inside the window every due date lies (the gold's pivot is this far from either arm)."""
MIN_PIVOT_DAYS = 2
"""An asked instant lies at least this far from the gold pivot; a due-later haystack's distractor
reminders count only when their due date is at least this far from it (VERTICALS.md §2.1 rule 4,
"distractor reminders with other due dates")."""
MIN_PIVOT_AFTER_LAST = timedelta(weeks=3)
KIND_OF_SHAPE = {"due-later": "reminder", "expiring-validity": "validity", "not-yet-true": "plan",
                 "as-of": "schedule", "current": "schedule", "prospective": "schedule"}
KINDS = ("reminder", "validity", "plan", "schedule")
STANCE = {"own": "noted", "cancelled": "noted", "cancelled-kin": "noted",
          "suggestion": "assistant-offer-declined"}
"""The reply bank each form takes (:data:`.episodes_bank.STATEMENT_REPLIES`): one neutral bank for
every user statement, gold or competitor (red team 28: with a bank per stance, 21 first sentences
of replies followed only gold and 55 only competitors, and a bag of words over the reply found gold
at 0.929 held out; the stance banks also asked "were you disappointed?" after the user's own
refusal)."""


Subject = tuple[str, str]


def phrase(subject: Subject) -> str:
    return f"the {subject[0]} at the {subject[1]}"


USER_FORMS: tuple[str, ...] = ("own", "cancelled")


def _joined(tail: str) -> str:
    """A tail as the statement's last clause: "..., and that is all fine, as far as I know." (one
    sentence with the body's last, not a sentence of its own: sixteen tail sentences repeated over
    every statement pushed the corpus's distinct-sentence share under Appendix D's 0.50)."""
    return tail if tail.startswith("I ") else tail[:1].lower() + tail[1:]


def with_tail(body: str, tail: str) -> str:
    """A body and its tail joined into one statement (the body's final stop becomes ", and")."""
    assert body.endswith(".")
    return f"{body[:-1]}, and {_joined(tail)}"


TAIL_FORM: dict[str, str] = {_joined(row[form]): form for row in TAILS for form in USER_FORMS}

OWN: dict[str, tuple[str, ...]] = {
    kind: tuple(with_tail(body, row["own"]) for body in bodies for row in TAILS)
    for kind, bodies in BODIES.items()}
"""The user's own statements (every body with every own tail), one bank for gold and every other
subject's own statement."""

COMPETITORS: dict[str, dict[str, tuple[str, ...]]] = {
    "cancelled": {kind: tuple(with_tail(body, row["cancelled"]) for body in bodies for row in TAILS)
                  for kind, bodies in BODIES.items()},
    "suggestion": SUGGESTIONS,
}
"""Competitor constructions by form and kind. A user-said competitor is an own body with a
cancelled twin tail (one bank of bodies for every role, so its sentences, words and commas are
distributed as gold's); the assistant's suggestion, declined by the user, carries no user turn
with a name, and holds none of the question's words but the subject (the adversary gate's form
reader took the suggestions, alone in an assistant turn, as candidates beside gold and read them by
place: form AUC 0.94 on due-later in the first rebuild). Red team 28 read the earlier forms (a modal "I nearly set", an earlier state in the
past tense, another holder's own thing) by their frames, which no own statement shared: they are
gone, and with them their misfits ("was valid for the next ten weeks", "nobody takes over from
them now", "For now X looks after ... and takes over for good")."""
KIN_BODIES = tuple(body.replace("{value2}", "my {rel}") for body in BODIES["schedule"])
"""Hand-over bodies whose successor is one of the user's relations, not a named person: a
cancelled hand-over that names one person from the pool, so hand-over haystacks can deal user-said
competitors that say "looks after {subject}" without running the people pool dry."""
COMPETITORS["cancelled-kin"] = {"schedule": tuple(with_tail(body, row["cancelled"])
                                                  for body in KIN_BODIES for row in TAILS)}
FORMS = {kind: ("cancelled", "cancelled-kin", "cancelled-kin") if kind == "schedule"
         else ("cancelled", "cancelled", "cancelled", "suggestion") for kind in KINDS}
"""The competitor forms each kind deals evenly over a haystack's competitor slots. A hand-over
names two people, and a haystack draws its people in one call from a pool with no first name or
surname twice (63 surnames): thirteen own hand-overs take 26 and 26 two-name competitors would take
52 more, so hand-over haystacks deal one two-name cancelled twin to two :data:`KIN_BODIES` ones
(the successor a relation). Every hand-over competitor then says "looks after {subject}" as gold
does: with one-name assistant suggestions instead (which hold none of the question's words), only a
third of them did, and ranking sessions by the question's phrases put gold in the top five of every
``current`` question (phrase reader 1.000, ceiling 0.90)."""



DECLINES = tuple(row for row in episodes_bank.STATEMENT_REPLIES["assistant-offer-declined"]
                 if not re.search(r"think \{topic\} over|wait and see", row.reply))
"""How the user turns a suggestion down: the shared bank without the two rows whose echo misreads
with a subject phrase (red team 28: "I would rather think the smoke detectors at the tannery over
on my own", "Waiting to see with the loft insulation at the barn is fair enough")."""

_SUBJECT_WORDS = frozenset(w for text in (*NOUNS, *PLACES) for w in raw_tokens(text))
_TEMPLATES = [t for ts in OWN.values() for t in ts] + [
    t for forms in COMPETITORS.values() for ts in forms.values() for t in ts] + [
    t for ts in REQUESTS.values() for t in ts]
FRAME_WORDS = content_words(re.sub(r"\{\w+\}", " ", t) for t in _TEMPLATES)
BANNED = conversation.banned_words((*NOUNS, *PLACES, "reminder remind cover valid book booked "
                                    "booking call looks looking after judge judges judged"))
"""Words small talk must not use: the subjects and the words the questions ask with."""


def _fill(template: str, *, subject: Subject, values: Sequence[str], span: str | None,
          holder: Mapping[str, str] | None = None) -> str:
    slots = {"subject": phrase(subject), "noun": subject[0], "hplace": subject[1], "value": values[0],
             "value2": values[-1], "span": span or "", **(holder or {})}
    return template.format(**slots)


_NAME = r"[A-Z][a-z]+ [A-Z][a-z]+"
_RELS = "|".join(sorted({re.escape(r.noun) for r in episodes_bank.RELATIONS.values()}, key=len,
                        reverse=True))


def _pattern(template: str) -> re.Pattern[str]:
    nouns = "|".join(sorted(map(re.escape, NOUNS), key=len, reverse=True))
    places = "|".join(sorted(PLACES, key=len, reverse=True))
    spans = "|".join(sorted(SPANS, key=len, reverse=True))
    groups = {"subject": f"the (?P<noun>{nouns}) at the (?P<place>{places})", "value2": _NAME,
              "value": _NAME, "span": spans, "rel": _RELS, "poss": "his|her", "noun": f"(?P<hnoun>{nouns})",
              "hplace": f"(?P<hplace>{places})"}
    groups["tail"] = "|".join(sorted(map(re.escape, TAIL_FORM), key=len, reverse=True))
    pattern = re.escape(template)
    for name, group in groups.items():
        named = group if name in ("subject", "noun", "hplace") else f"(?P<{name}>{group})"
        pattern = pattern.replace(re.escape("{" + name + "}"), named)
    return re.compile(pattern)


def _forms() -> list[tuple[str, str, re.Pattern[str]]]:
    """Every construction's pattern, longest template first. A user statement's pattern is its
    body with any tail (form ``"user"``: the tail that matched names the form), so there is one
    pattern per body, not one per body and tail."""
    found = [(kind, "user", with_tail(t, "{tail}")) for kind, ts in BODIES.items() for t in ts]
    found += [("schedule", "user", with_tail(t, "{tail}")) for t in KIN_BODIES]
    found += [(kind, "suggestion", t) for kind, ts in COMPETITORS["suggestion"].items() for t in ts]
    return [(kind, form, _pattern(t)) for kind, form, t in sorted(found, key=lambda f: -len(f[2]))]


_PATTERNS = _forms()


class Reading(NamedTuple):
    """One statement read from the text: its session, kind, form, subject (``place`` is ``None``
    for a holder's own thing, ``rel`` the holder), values and span in days (0: none)."""

    session: int
    kind: str
    form: str
    noun: str
    place: str | None
    rel: str | None
    values: tuple[str, ...]
    days: int


def read_statements(texts: Sequence[Sequence[str]]) -> list[Reading]:
    """Every statement in the rendered sessions (texts only, never the plan); a name outside a
    statement, or one that is not a person from the pool, is fatal."""
    found: list[Reading] = []
    for index, turns in enumerate(texts):
        for text in turns:
            rest = text
            for kind, form, pattern in _PATTERNS:
                while m := pattern.search(rest):
                    groups = m.groupdict()
                    names = tuple(v for v in (groups.get("value"), groups.get("value2")) if v)
                    if any(value_pool.value_type(v) != "person" for v in names):
                        raise GenerationError(f"session {index}: {names} is not a person: {text!r}")
                    said = TAIL_FORM[groups["tail"]] if form == "user" else form
                    found.append(Reading(index, kind, said, groups.get("noun") or groups["hnoun"],
                                         groups.get("place"), groups.get("rel"), names,
                                         SPANS.get(groups.get("span") or "", 0)))
                    rest = rest[:m.start()] + "\x00" + rest[m.end():]
            if stray := re.search(_NAME, rest):
                raise GenerationError(f"session {index}: {stray.group(0)!r} stated outside a "
                                      f"statement: {text!r}")
    return sorted(found, key=reading_order)


def reading_order(reading: Reading) -> tuple[Any, ...]:
    """A sort key for readings: ``None`` (no relation, no place) before any text, so two
    statements of one session that differ only there (a twin and a relation's hand-over about the
    same noun) still sort."""
    return tuple("" if field is None else field for field in reading)


def _assert_banks() -> None:
    """Import-time assertions (GENERATION.md "Checks that belong in every generator")."""
    assert set(TAIL_FORM.values()) == set(USER_FORMS) and len(TAIL_FORM) == len(TAILS) * len(USER_FORMS)
    tails = {form: [row[form] for row in TAILS] for form in USER_FORMS}
    assert not length_sequence_imbalance(tails), length_sequence_imbalance(tails)
    for kind in KINDS:  # whole statements: one body bank, twin tails
        whole = {"own": OWN[kind], "cancelled": COMPETITORS["cancelled"][kind]}
        assert not length_sequence_imbalance(whole), length_sequence_imbalance(whole)
    noun_words = [w for n in NOUNS for w in raw_tokens(n)]
    assert len(noun_words) == len(set(noun_words)) and len(PLACES) == len(set(PLACES)), "bank repeats"
    assert_disjoint("subjects", _SUBJECT_WORDS, "frames", FRAME_WORDS | content_words(
        QUESTIONS.values()) | content_words(ANSWERS.values()) | content_words(SPANS)
        | content_words(OFFSETS))
    assert_disjoint("subjects", _SUBJECT_WORDS, "names", value_pool.pool_words())
    for text in (*NOUNS, *PLACES):
        assert not any(re.search(cue, text) for cue in JUDGE_CUE_PATTERNS), text
    holder = {"rel": "sister", "poss": "her"}
    for template in _TEMPLATES:
        if template in (t for ts in REQUESTS.values() for t in ts):
            continue
        text = _fill(template, subject=("heat pump", "cottage"),
                     values=("Harriet Colby", "Tomas Rendle"), span="nine weeks", holder=holder)
        read = read_statements([[text]])
        assert len(read) == 1 and _pattern(template).fullmatch(text), (text, read)
        assert text[0].isupper() and text[-1] == "." and "  " not in text, text
        assert not v4_findings(text, "calendar") and not re.search(r"[\d\u2013\u2014]", text), text
    for text in (*(t for ts in REQUESTS.values() for t in ts), *QUESTIONS.values(), *ANSWERS.values(), *SPANS, *OFFSETS):
        assert not v4_findings(text, "calendar") and not re.search(r"[\d\u2013\u2014]", text), text
    before = [text for (_, arm), text in ANSWERS.items() if arm == "before"]
    assert all(re.search(r"\bnot (?:\w+ )?yet\b", text) for text in before), before


_assert_banks()


# --- layout: the corpus-wide design ----------------------------------------------------------


class Spec(NamedTuple):
    """One haystack's design, decided globally so levels, positions and asked subjects balance.
    ``side`` (seed shapes): 0 when the name looking after it for now is the gold, 1 for the
    successor. ``decoys`` orders the other sessions (subjects no haystack asks about first, each
    group shuffled): the first ones carry the own statements of the other clustered subjects."""

    key: str
    shape: str
    level: int
    h: int
    gold: int
    decoys: tuple[int, ...]
    side: int
    offset: str
    pair: int | None
    subjects: tuple[Subject, ...]
    """One per session, in session order: ``subjects[gold]`` is the asked one."""

    @property
    def asked(self) -> Subject:
        return self.subjects[self.gold]


def _draw_subjects(rng: Any, n: int) -> list[Subject]:
    """``n`` distinct subjects; a few nouns and places come twice (another instance of a thing,
    another thing at a place), drawn gold-blind."""
    nouns = rng.sample(NOUNS, n - rng.randint(1, 2))
    places = rng.sample(PLACES, n - rng.randint(1, 2))
    nouns += rng.sample(nouns, n - len(nouns))
    places += rng.sample(places, n - len(places))
    while True:
        rng.shuffle(places)
        pairs = list(zip(nouns, places))
        if len(set(pairs)) == n:
            return pairs


def _positions(rng: Any, sizes: Sequence[int]) -> list[int]:
    """Gold indices for one shape's haystacks of ``sizes`` sessions: uniform draws, redrawn until no
    two share an index from the start, an index from the end or a tenth of the haystack (a shape's
    gold positions spread like a Latin design, so no position is any likelier than another)."""
    for _ in range(100_000):
        golds = [rng.randrange(n) for n in sizes]
        tenths = [int(10 * g / n) for g, n in zip(golds, sizes)]
        ends = [n - 1 - g for g, n in zip(golds, sizes)]
        if all(len(set(xs)) == len(xs) for xs in (golds, ends, tenths)):
            return golds
    raise GenerationError(f"no spread of gold positions over haystacks of {list(sizes)} sessions")


@lru_cache(maxsize=4)
def _layout(seed: int) -> tuple[Spec, ...]:
    rng = derive_rng(seed, VERTICAL, "layout")
    keys = [(f"{shape}-{i + 1:02d}", shape) for shapes in (UNPAIRED, PAIRS)
            for shape, n in shapes.items() for i in range(n)]
    levels, sides, offsets = [0] * len(keys), [0] * len(keys), [""] * len(keys)
    for shape in SHAPES:
        members = [i for i, (_, s) in enumerate(keys) if s == shape]
        dealt = [LEVELS[j % len(LEVELS)] for j in range(len(members))]
        halves = [j % 2 for j in range(len(members))]
        rng.shuffle(dealt)
        rng.shuffle(halves)
        for index, level, side in zip(members, dealt, halves):
            levels[index], sides[index] = level, side
            offsets[index] = rng.choice(sorted(OFFSETS)) if shape in ("as-of", "prospective") else ""
    hs = [rng.randint(max(H_RANGE[KIND_OF_SHAPE[shape]][0], level),
                      H_RANGE[KIND_OF_SHAPE[shape]][1]) for level, (_, shape) in zip(levels, keys)]
    golds = [0] * len(keys)
    for shape in SHAPES:
        members = [i for i, (_, s) in enumerate(keys) if s == shape]
        for i, gold in zip(members, _positions(rng, [hs[i] + 1 for i in members])):
            golds[i] = gold
    numbers = iter(rng.sample(range(1, sum(PAIRS.values()) + 1), sum(PAIRS.values())))
    asked_count: Counter[str] = Counter()
    drawn = []
    for i, (key, shape) in enumerate(keys):
        draw = derive_rng(seed, VERTICAL, key, "subjects")
        subjects = _draw_subjects(draw, hs[i] + 1)
        # Roles after the draw: the asked subject is any drawn one whose noun and place the
        # fewest haystacks ask about already (so no word is asked twice while another is unasked).
        least = min(asked_count[s[0]] + asked_count[s[1]] for s in subjects)
        open_ = [s for s in subjects if asked_count[s[0]] + asked_count[s[1]] == least]
        asked = open_[draw.randrange(len(open_))]
        asked_count.update(asked)
        drawn.append((draw, subjects, asked))
    specs = []
    for i, ((key, shape), (draw, subjects, asked)) in enumerate(zip(keys, drawn)):
        rest = [s for s in subjects if s != asked]
        draw.shuffle(rest)
        rest.insert(golds[i], asked)
        # The decoys (the other clustered subjects): any other drawn ones, those whose words no
        # haystack asks about first (a cluster's words recur: keep question words rare).
        others = [j for j in range(len(rest)) if j != golds[i]]
        quiet = [j for j in others if not asked_count[rest[j][0]] and not asked_count[rest[j][1]]]
        loud = [j for j in others if j not in quiet]
        draw.shuffle(quiet)
        draw.shuffle(loud)
        specs.append(Spec(key, shape, levels[i], hs[i], golds[i], tuple(quiet + loud), sides[i],
                          offsets[i], next(numbers) if shape in PAIRS else None, tuple(rest)))
    return tuple(specs)


# --- one haystack ------------------------------------------------------------------------------


@dataclasses.dataclass
class Said:
    """One planned statement (own or competitor), before its text exists."""

    session: int
    form: str
    subject: Subject
    holder: Any = None
    values: tuple[str, ...] = ()
    span: str | None = None
    template: str = ""

    def reading(self, kind: str) -> Reading:
        rel = self.holder.noun if self.holder is not None else None
        place = None if self.form == "holder" else self.subject[1]
        form = "cancelled" if self.form == "cancelled-kin" else self.form  # read by its tail
        return Reading(self.session, kind, form, self.subject[0], place, rel, self.values,
                       SPANS[self.span] if self.span else 0)


def clusters_for(n: int, count: int, slots: int | None = None) -> int:
    """How many subjects are clustered (an own statement and ``count`` competitors each): as many
    as the haystack's ``slots`` competitor slots hold, at least two and at most ``n``.

    Why: red team 28 found the asked subject was the haystack's most-named one in 0.586 of
    haystacks (a random subject 0.071): with :func:`..engine.clusters_for`'s "cover every session
    about once" only two or three subjects recurred, so the asked one was one of two or three.
    Spending every slot on clusters makes the tie at the top as wide as the slots allow (every
    subject when ``count`` is one), and the asked subject is one of them, uniformly."""
    if slots is None:
        return engine.clusters_for(n, count)
    return max(2, min(n, slots // max(count, 1)))


def _cluster_sessions(rng: Any, n: int, level: int, owns: Sequence[int], count: int,
                      capacity: list[int]) -> list[list[int]]:
    """:func:`..engine.cluster_hosts` for a level's competitors (a seam the tests cut)."""
    return engine.cluster_hosts(rng, n, owns, count, capacity, what=f" of level {level}")


def _clusters(seed: int, spec: Spec, n: int, count: int, capacity: list[int]
              ) -> tuple[tuple[int, ...], list[list[int]]]:
    """The clustered subjects' own sessions (gold first) and each one's competitor sessions: the
    most clusters, from :func:`clusters_for` down and leaving one subject unclustered, whose
    competitors :func:`_cluster_sessions` can place (``capacity`` is spent) and whose leftover
    slots, spread evenly over the unclustered subjects (:func:`_singles`), give none of them more
    than ``count`` (so the most-named subjects are the clusters, the asked one among them, and no
    loose subject stands out either); failing that, the most that place. Each try draws afresh
    from the same key; gold's session is one own session among the clusters' like the others."""
    slots, placed = sum(capacity), None
    for k in range(min(n - 1, clusters_for(n, count, sum(capacity))), 1, -1):
        owns = (spec.gold, *spec.decoys[:k - 1])
        room = list(capacity)
        try:
            clusters = _cluster_sessions(derive_rng(seed, VERTICAL, spec.key, "clusters"), n,
                                         spec.level, owns, count, room)
        except GenerationError:
            continue
        placed = placed or (owns, clusters, room)
        if -(-(slots - k * count) // (n - k)) <= count:
            capacity[:] = room
            return owns, clusters
    if placed is None:
        raise GenerationError(f"{spec.key}: no room for two clusters of {count} competitors")
    capacity[:] = placed[2]
    return placed[0], placed[1]


def _singles(rng: Any, spec: Spec, open_slots: Sequence[tuple[int, int]],
             clustered: set[Subject]) -> dict[tuple[int, int], Subject]:
    """The subject of each competitor slot no cluster took: the unclustered subjects in turn, each
    slot taking one of those named fewest so far (a drawn order among ties) other than its own
    session's, so mention counts stay even (red team 28: a subject a haystack names more than the
    others is a question-blind tell)."""
    loose = [s for s in spec.subjects if s not in clustered]
    order = rng.sample(loose, len(loose))
    named: Counter[Subject] = Counter()
    out: dict[tuple[int, int], Subject] = {}
    for slot in rng.sample(list(open_slots), len(open_slots)):
        fits = [s for s in order if s != spec.subjects[slot[0]]] or order  # one loose subject
        pick = min(fits, key=lambda s: named[s])
        named[pick] += 1
        out[slot] = pick
    return out


def _plan(seed: int, spec: Spec, share: float) -> tuple[conversation.HaystackPlan, list[Said],
                                                        list[datetime], tuple[Subject, ...]]:
    """The haystack's statements, times and asking moment(s) (pair arms either side of the pivot;
    seed instants on the planned side of the hand-over, asked ``offset`` after or before).

    :func:`clusters_for` subjects are clustered, the asked one and the decoys, each with its own
    statement and the same number of competitors (``share`` of the level, the dial); every other
    competitor slot is about a subject of another session. Slots, forms and every per-slot draw are fixed before the
    dial is read, so the dial only moves slots between clusters and single subjects."""
    if not 0.0 <= share <= 1.0:
        raise GenerationError(f"the competitor share must lie in [0, 1], got {share}")
    rng = derive_rng(seed, VERTICAL, spec.key, "plan")
    n, kind = spec.h + 1, KIND_OF_SHAPE[spec.shape]
    times, _ = engine.daily_times(rng, n, gap_days=(1, 1))
    persona = conversation.draw_persona(rng)
    doubles = set(rng.sample(range(n), n))  # two competitor slots in every session
    slots = [(i, j) for i in range(n) for j in range(2 if i in doubles else 1)]
    forms = dict(zip(slots, engine.deal(rng, FORMS[kind], len(slots))))
    count = min(spec.level, 1 + math.floor(share * (spec.level - 1) + rng.random()))
    capacity = [2 if i in doubles else 1 for i in range(n)]
    owns, clusters = _clusters(seed, spec, n, count, capacity)
    templates = iter(engine.deal(rng, OWN[kind], n))
    own = [Said(i, "own", spec.subjects[i], template=next(templates)) for i in range(n)]
    targets: dict[int, list[Subject]] = {i: [] for i in range(n)}
    for x, hosts in enumerate(clusters):
        for i in hosts:
            targets[i].append(spec.subjects[owns[x]])
    clustered = {spec.subjects[o] for o in owns}
    draws = {slot: derive_rng(seed, VERTICAL, spec.key, "slot", *slot) for slot in slots}
    singles = _singles(derive_rng(seed, VERTICAL, spec.key, "singles"), spec,
                       [(i, j) for i, j in slots if j >= len(targets[i])], clustered)
    rival: list[Said] = []
    for i, j in slots:
        stream = draws[(i, j)]
        said = Said(i, forms[(i, j)], targets[i][j] if j < len(targets[i]) else singles[(i, j)])
        bank = COMPETITORS[said.form][kind]
        said.template = bank[int(stream.random() * len(bank))]
        relation = stream.randrange(len(persona.relations))
        if said.form in ("holder", "cancelled-kin"):
            said.holder = persona.holder(relation)
        rival.append(said)
    every = own + rival
    wanted = [(s, j) for s in every for j in range(len(re.findall(r"\{value2?\}", s.template)))]
    names = value_pool.draw(rng, "person", len(wanted))  # one pool, drawn before any role is read
    rng.shuffle(wanted)
    dealt: dict[int, list[str]] = {}
    for (said, _), name in zip(wanted, names):
        dealt.setdefault(id(said), []).append(name)
    first, last = _window(rng, times)
    low, high = first + timedelta(minutes=EDGE_MINUTES), last - timedelta(minutes=EDGE_MINUTES)
    for said in own:  # one distribution for every statement's due date, gold's included
        said.span = _span_into(rng, times[said.session], low, high)
    for said, slot in zip(rival, slots):
        span = _span_into(draws[slot], times[said.session], low, high)
        said.span = span if "{span}" in said.template else None
    for said in every:
        said.values = tuple(dealt[id(said)])
    sessions = [[_statement(draws[(i, 0)], said, kind) for said in every if said.session == i]
                for i in range(n)]
    if spec.pair is not None:
        asked = [first, last]
    else:
        instant = first if spec.side == 0 else last
        shift = timedelta(days=OFFSETS.get(spec.offset, 0))
        asked = [instant + shift if spec.shape == "as-of" else instant - shift]
    # No assistant leads (lead_share 0): a lead may only ask about a topic an earlier statement
    # introduced, so it fell on competitors more than on gold (the first mention of the asked
    # subject is never led), and the led statement stands without the change-of-subject lines in
    # its turn; the gate's episode reader read that place (AUC 0.87 on due-later).
    plan = conversation.HaystackPlan(spec.key, sessions, times, asked[-1], persona, BANNED,
                                     lead_share=0.0)
    return plan, every, asked, tuple(spec.subjects[o] for o in owns)


def _window(rng: Any, times: Sequence[datetime]) -> tuple[datetime, datetime]:
    """The asking window (before arm, after arm), drawn from the session times alone, before any
    statement's span and before any role is read: wide :data:`WINDOW_MINUTES`, placed so that
    every session has a span (35-140 days) falling due inside it :data:`EDGE_MINUTES` from either
    end (the first session's longest span reaches past its far end, the last session's shortest
    falls before its near end), and at least three weeks after the last session."""
    width = timedelta(minutes=rng.randint(*WINDOW_MINUTES))
    edge = timedelta(minutes=EDGE_MINUTES)
    earliest = times[-1] + timedelta(days=min(SPANS.values())) - edge
    latest = times[0] + timedelta(days=max(SPANS.values())) + edge - width
    if latest < earliest or earliest + edge - times[-1] < MIN_PIVOT_AFTER_LAST:
        raise GenerationError(f"no asking window fits sessions from {times[0]} to {times[-1]}")
    first = earliest + timedelta(minutes=rng.randint(0, int((latest - earliest).total_seconds() // 60)))
    return first, first + width


def _span_into(rng: Any, start: datetime, low: datetime, high: datetime) -> str:
    """A span, uniform among those that make a statement said at ``start`` fall due between
    ``low`` and ``high``: the one draw every span-bearing statement takes, whatever its role, so
    the due date's offset from the asked date says nothing about which statement answers (red
    team 34)."""
    fits = [span for span in sorted(SPANS) if low <= start + timedelta(days=SPANS[span]) <= high]
    if not fits:
        raise GenerationError(f"no span from {start} falls due between {low} and {high}")
    return fits[int(rng.random() * len(fits))]


def _statement(rng: Any, said: Said, kind: str) -> conversation.Statement:
    """The :class:`..conversation.Statement` of a planned statement: its text, the topic replies
    name (a holder's own thing is "her boiler", introduced by the statement itself) and stance."""
    holder = {"rel": said.holder.noun, "poss": said.holder.poss} if said.holder else None
    text = _fill(said.template, subject=said.subject, values=said.values, span=said.span,
                 holder=holder)
    request = rng.choice(REQUESTS[kind]).format(subject=phrase(said.subject))
    if said.form == "holder" and holder is not None:
        return conversation.Statement(text, f"{holder['poss']} {said.subject[0]}", "other",
                                      holder=f"your {holder['rel']}")
    stance = STANCE[said.form]
    if said.form == "suggestion":
        decline = rng.choice(DECLINES)
        fill = {"topic": phrase(said.subject)}
        return conversation.Statement(text, phrase(said.subject), stance,  # type: ignore[arg-type]
                                      role="assistant", request=request,
                                      reaction=episodes_bank.render(
                                          episodes_bank.choose_alternatives(decline.reply, rng), fill),
                                      close=episodes_bank.render(
                                          episodes_bank.choose_alternatives(decline.close or "", rng),
                                          fill))
    return conversation.Statement(text, phrase(said.subject), stance)  # type: ignore[arg-type]


# --- reading gold back -------------------------------------------------------------------------


class Gold(NamedTuple):
    """A question's gold, recomputed from a record's text and final timestamps."""

    answer: str
    value: str
    other: str
    others: tuple[str, ...]
    earlier: tuple[str, ...]
    competitors: tuple[str, ...]
    session: int
    rivals: int
    distractors: int
    later: bool


def asked_subject(record: Mapping[str, Any]) -> Subject:
    """The subject a record's question asks about, read from the question text."""
    m = _pattern("{subject}").search(record["question"])
    if m is None:
        raise GenerationError(f"{record['question_id']}: the question names no subject")
    return m["noun"], m["place"]


def recompute_gold(record: Mapping[str, Any], subject: Subject | None = None,
                   offset: str = "") -> Gold:
    """Gold of ``record`` from its own bytes: the own statement about the asked subject read from the
    text, the pivot from its formatted session timestamp plus the span, the instant from
    ``question_date``; every competitor of the subject read back and checked not to answer."""
    qid, block = record["question_id"], record["typedmemeval"]
    shape, arm = block["shape"], block.get("arm")
    noun, place = subject or asked_subject(record)
    offset = offset or next((o for o in OFFSETS if re.search(rf"\b{o}\b", record["question"])), "")
    readings = read_statements([[t["content"] for t in s] for s in record["haystack_sessions"]])
    mine = [r for r in readings if r.form == "own" and (r.noun, r.place) == (noun, place)]
    if len(mine) != 1 or mine[0].kind != KIND_OF_SHAPE[shape]:
        raise GenerationError(f"{qid}: {phrase((noun, place))} read back as {mine}, one own "
                              f"{KIND_OF_SHAPE[shape]} statement expected")
    gold = mine[0]
    rivals = [r for r in readings if r.form != "own" and r.noun == noun
              and r.place in (place, None)]
    if any(r.kind != gold.kind for r in readings):
        raise GenerationError(f"{qid}: a statement of another kind than {gold.kind}")
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
    competitors = tuple(v for r in rivals for v in r.values)
    if value in competitors or other in competitors:
        raise GenerationError(f"{qid}: a competitor names the gold value {value!r}")
    earlier = tuple(v for r in rivals if r.form == "earlier" for v in r.values)
    others = tuple(sorted({v for r in readings for v in r.values} - {value, other}))
    answer = ANSWERS[(shape, arm)].format(value=value, subject=phrase((noun, place)))
    distractors = sum(1 for r in readings if r.form == "own" and r is not gold and abs(
        dates[r.session] + timedelta(days=r.days) - pivot) >= timedelta(days=MIN_PIVOT_DAYS))
    return Gold(answer, value, other, others, earlier, competitors, gold.session, len(rivals),
                distractors, later)


def _answer_key(shape: str, arm: str | None, gold: Gold) -> dict[str, Any]:
    """Competitor values are ``wrong``; an earlier state's are ``stale`` wherever the judge reads
    stale as not-gold (a ``no_longer`` key counts stale as the gold itself, so there they stay
    ``wrong``)."""
    no_longer = shape == "expiring-validity" and arm == "after"
    stale = [] if no_longer else list(gold.earlier)
    wrong = [v for v in gold.others if v not in stale]
    if shape in UNPAIRED:
        side = {"stale": [gold.other, *stale]} if gold.later else {"premature": [gold.other],
                                                                   "stale": stale}
        return engine.answer_key(accepted=[gold.value], wrong=wrong, **side)
    named = {"must_name": [gold.value], "wrong": wrong, "stale": stale}
    if arm == "before":
        premature = [] if shape == "expiring-validity" else [gold.value]
        return engine.answer_key(expected_negative="not_yet", premature=premature, **named)
    if shape == "due-later":
        return engine.answer_key(accepted=[gold.value], **named)
    if shape == "expiring-validity":
        return engine.answer_key(expected_negative="no_longer", **{**named, "stale": [gold.value]})
    # not-yet-true after: the record cannot say whether the plan went ahead; the gold names it.
    return engine.answer_key(expected_negative="abstain", **named)


RENDER_ATTEMPTS = 200


def _render(seed: int, plan: conversation.HaystackPlan, tally: engine.Tally) -> engine.Haystack:
    """The haystack rendered so that every session's turn order is shared by another session of
    it (V7's role-sequence rule compares gold's with its distractors'): a rendering where some
    session's length is unique is redrawn under the next key, whichever session that is, so the
    redraw knows nothing of gold. Only the kept rendering is tallied."""
    for attempt in range(RENDER_ATTEMPTS):
        key = plan.key if attempt == 0 else f"{plan.key}~{attempt}"
        draft = engine.Tally()
        stay = conversation.render_haystack(seed, VERTICAL, dataclasses.replace(plan, key=key), draft)
        lengths = Counter(len(session) for session in stay.sessions)
        if min(lengths.values()) >= 2:
            engine.check_haystack(stay)
            tally.add(draft.counts())
            return stay
    raise GenerationError(f"{plan.key}: no rendering in {RENDER_ATTEMPTS} where every turn order "
                          "occurs twice")


def _records(seed: int, spec: Spec, share: float, tally: engine.Tally) -> list[dict[str, Any]]:
    plan, planned, asked, clustered = _plan(seed, spec, share)
    stay = _render(seed, plan, tally)
    texts = stay.texts()
    kind = KIND_OF_SHAPE[spec.shape]
    readings = read_statements(texts)
    if readings != sorted((said.reading(kind) for said in planned), key=reading_order):
        raise GenerationError(f"{spec.key}: the text does not read back as planned")
    question = QUESTIONS[spec.shape].format(subject=phrase(spec.asked), offset=spec.offset)
    for text in (question, *(t for turns in texts for t in turns)):  # V4 at calendar level
        if findings := v4_findings(text, "calendar"):
            raise GenerationError(f"{spec.key}: V4 {findings[0]} in {text!r}")
    rivals = sum(1 for s in planned if s.form != "own" and s.subject[0] == spec.asked[0]
                 and (s.subject == spec.asked or s.form == "holder"))
    count, *decoyed = (sum(1 for s in planned if s.form != "own" and s.subject == subject)
                       for subject in clustered)
    if clustered[0] != spec.asked or not decoyed or set(decoyed) != {count} or count > spec.level:
        raise GenerationError(f"{spec.key}: {count} competitors of the asked subject, {decoyed} of "
                              f"the decoys (level {spec.level}): the clusters must match")
    block: dict[str, Any] = {
        "gold_components": [{"kind": kind, "session_index": spec.gold, "memory_type": MEMORY_TYPE}],
        "dial": {"name": "valued_competitors", "value": count},
        "difficulty": LEVELS.index(spec.level) + 1}
    arms = ("before", "after") if spec.pair is not None else (None,)
    out = []
    for arm, moment in zip(arms, asked):
        extra = {"pair_id": f"tme-{ABBREV}-p{spec.pair:02d}", "arm": arm} if arm else {}
        record = engine.record(dataclasses.replace(stay, question_time=moment),
                               question_id=f"{spec.key}/{arm}", vertical=VERTICAL, shape=spec.shape,
                               memory_type=MEMORY_TYPE, question=question, answer="",
                               gold=[(spec.gold, 0)], block={**block, **extra})
        gold = recompute_gold(record, spec.asked, spec.offset)
        record["answer"] = gold.answer
        record["typedmemeval"]["answer_key"] = _answer_key(spec.shape, arm, gold)
        _check_record(record, gold, spec, rivals)
        out.append(record)
    if len(out) == 2 and (out[0]["haystack_sessions"] != out[1]["haystack_sessions"]
                          or out[0]["answer"] == out[1]["answer"]):
        raise GenerationError(f"{spec.key}: pair arms must share the haystack and flip the gold")
    return out


def _check_record(record: dict[str, Any], gold: Gold, spec: Spec, rivals: int) -> None:
    """The rules read back per record; ``rivals`` is the plan's count of competitor statements
    about the asked subject (its cluster, plus another holder's own one of the same noun that a
    statement about another subject happened to draw)."""
    qid, arm = record["question_id"], record["typedmemeval"].get("arm")
    marked = [i for i, s in enumerate(record["haystack_sessions"]) if any(t["has_answer"] for t in s)]
    if marked != [gold.session]:
        raise GenerationError(f"{qid}: has_answer marks {marked}, the statement is in {gold.session}")
    if gold.rivals != rivals or (spec.shape == "due-later"
                                 and gold.distractors < MIN_DISTRACTOR_REMINDERS):
        raise GenerationError(f"{qid}: {gold.rivals} competitors ({gold.distractors} distractor "
                              f"reminders), planned {rivals}")
    if spec.shape in UNPAIRED and gold.later != bool(spec.side):
        raise GenerationError(f"{qid}: the asked instant is on the other side of the hand-over")
    if arm == "before" and not re.search(r"\bnot (?:\w+ )?yet\b", record["answer"]):
        raise GenerationError(f"{qid}: a before-arm gold must say not yet outright")
    if spec.shape == "not-yet-true" and re.search(r"\b(?:you|I) (?:have )?booked\b", record["answer"], re.I):
        raise GenerationError(f"{qid}: the gold claims the plan went ahead")
    other = gold.other or next(iter(gold.others), "Nobody Known")
    blind = [text.format(value=gold.value, other=other) for text in TIME_BLIND[(spec.shape, arm)]]
    rival_answers = [ANSWERS[(spec.shape, arm)].format(value=v, subject=phrase(spec.asked))
                     for v in gold.competitors]
    engine.judge_gold(record, wrong_answers=blind + rival_answers)


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
    for shape in SHAPES:  # the competitor count takes every level in every shape (§2.1)
        if {s.level for s in specs if s.shape == shape} != set(LEVELS):
            raise GenerationError(f"{shape}: the competitor levels miss a level")
    tally = engine.Tally()
    records: list[dict[str, Any]] = []
    subject_words: dict[str, frozenset[str]] = {}
    for spec in specs:
        if spec.shape in shapes:
            for record in _records(seed, spec, float(competition_by_shape[spec.shape]), tally):
                subject_words[record["question_id"]] = frozenset(raw_tokens(" ".join(spec.asked)))
                records.append(record)
    if set(shapes) == set(SHAPES):
        engine.check_rarity(records, subject_words)
    ids = _final_ids(seed)
    for record in records:
        record["question_id"] = ids[record["question_id"]]
    records.sort(key=lambda r: r["question_id"])
    return engine.Built(engine.finish(records), tally)


READER_BOUND, LEARNED_TRIES = 0.60, 12
"""The subject-and-value reader's bound (GATES.md §7), kept at every searched point; how many rounds
of the corpus-wide adversary check the search may take before it gives up."""


Searched = tuple[dict[str, calibration.ShapeSearch], dict[tuple[str, float], float],
                 dict[tuple[str, float], float]]
"""Per-shape searches, the reader's gold@1 and the phrase reader's coverage@5 at every point."""


def search_shapes(seed: int = SEED, shapes: Sequence[str] = CALIBRATED_SHAPES) -> Searched:
    """The per-shape half of :func:`search_dial` (a shape reads only its own dial, so shapes can be
    searched in separate processes and handed to :func:`search_dial` as ``searched``)."""
    from ...corpus.models import QuestionRecord
    from ...gates import adversaries
    from ...retrieval import panel

    dense = panel.dense_retriever()
    reader: dict[tuple[str, float], float] = {}
    phrase: dict[tuple[str, float], float] = {}
    searches: dict[str, calibration.ShapeSearch] = {}
    for shape in shapes:
        def evaluate(dial: float, shape: str = shape) -> tuple[float, float]:
            records = [QuestionRecord.model_validate(r)
                       for r in build(seed, {shape: dial}, shapes=(shape,)).records]
            means = [panel.mean_by_shape(records, panel.coverage_by_question(records, member))
                     for member in panel.WHOLE_LEXICAL_PANEL]
            if dense is not None:
                rankings = panel.question_rankings(records, dense)
                means += [panel.mean_by_shape(records, panel.coverage_from_rankings(records, rankings)),
                          panel.mean_by_shape(records, panel.hybrid_coverage(
                              records, panel.HybridRRF(dense), rankings))]
            stays = adversaries.read_haystacks(records)
            reader[(shape, dial)] = sum(adversaries.tied_gold_at_1(adversaries.reader_scores(h), h.gold)
                                        for h in stays) / len(stays)
            # tied, as the gate's phrase reader reads it (ties were broken by session index,
            # in gold's favour whenever gold came first, so the filter refused points it passes)
            phrase[(shape, dial)] = sum(adversaries.tied_coverage(
                adversaries.phrase_scores(h), h.gold) for h in stays) / len(stays)
            reference = calibration.shape_coverage(records, shape)
            assert reference is not None
            return reference, max(m for mean in means if (m := mean.get(shape)) is not None)

        searches[shape] = calibration.search_shape(evaluate, shape)
    return searches, reader, phrase


def search_dial(seed: int = SEED, searched: Searched | None = None) -> dict[str, Any]:
    """The authoring search. Per shape, building only that shape (a shape reads only its own dial):
    :func:`..calibration.search_shape` (sweep, then bisect), every point measured by the reference
    BM25, the whole Appendix D panel (lexical members and, with the ``[dense]`` extra, the dense
    and hybrid arms) and the subject-and-value reader. A shape's candidates are its points with the
    reference and the panel at or under the ceiling and the reader at or under its bound, nearest
    the target first. Then the whole corpus, built from each shape's first candidate, goes through
    the adversary gate (its learned adversary trains across shapes, so it cannot be searched per
    shape); a shape it refuses moves to its next candidate, and every such step is recorded, so
    the record shows how much of the choice the adversaries made."""
    from ...gates import adversaries
    from ...retrieval import panel
    from ..primitives import dump_json
    from ..sidecar import corpus_from_text

    dense = panel.dense_retriever()
    searches, reader, phrase = searched if searched is not None else search_shapes(seed)
    ceiling = calibration.SATURATION_CEILING
    def nearest(search: calibration.ShapeSearch) -> list[float]:
        """The shape's allowed points, nearest the target first (ties: the smaller dial)."""
        coverage = dict(search.points)
        allowed = [dial for dial, cov in search.points if cov <= ceiling
                   and search.panel_max[dial] <= ceiling and reader[(search.shape, dial)] <= READER_BOUND
                   and phrase[(search.shape, dial)] <= adversaries.PHRASE_CEILING]
        return sorted(allowed, key=lambda d: (round(abs(coverage[d] - calibration.TARGET), 9), d))

    candidates = {shape: nearest(search) or [search.dial] for shape, search in searches.items()}
    chosen = {shape: 0 for shape in CALIBRATED_SHAPES}
    steps: list[dict[str, Any]] = []
    for _ in range(LEARNED_TRIES):
        dial = {shape: candidates[shape][min(k, len(candidates[shape]) - 1)]
                for shape, k in chosen.items()}
        corpus = corpus_from_text(dump_json(build(seed, dial).records),
                                  f"typedmemeval-{VERTICAL}-v{REVISION}", VERTICAL)
        refused = sorted({r.shape for r in adversaries.check(corpus).refusals if r.shape})
        steps.append({"dial": dial, "refused_by_adversaries": refused})
        # a pooled refusal ("(all shapes)") names no shape to move: only per-shape ones move
        movable = [s for s in refused if s in chosen and chosen[s] + 1 < len(candidates[s])]
        if not movable:
            break
        for shape in movable:
            chosen[shape] += 1
    # All refused: keep the first (nearest the target) rather than wherever the walk stopped.
    final = steps[-1] if not steps[-1]["refused_by_adversaries"] else steps[0]
    for shape, search in searches.items():
        search.dial = final["dial"][shape]
        search.coverage = dict(search.points)[search.dial]
    result = calibration.CalibrationResult({s: v.dial for s, v in searches.items()}, searches, 0.0)
    record = result.record()
    record["dial"] = ("competitor share: each clustered subject (the asked one and the decoys) gets "
                      "1 + floor(d x (level - 1) + u) competitors, forms dealt from FORMS; panel_max "
                      "is the maximum over the whole Appendix D panel")
    record["panel"] = [m.name for m in panel.WHOLE_LEXICAL_PANEL] + (
        [panel.DENSE_NAME, panel.HYBRID_NAME] if dense is not None else ["dense not searched"])
    record["reader_gold_at_1"] = {s: [[d, round(reader[(s, d)], 6)] for d, _ in v.points]
                                  for s, v in searches.items()}
    record["phrase_reader_coverage_at_5"] = {s: [[d, round(phrase[(s, d)], 6)] for d, _ in v.points]
                                             for s, v in searches.items()}
    record["candidates"] = candidates
    record["adversary_steps"] = steps
    return record


__all__ = ["ABBREV", "CALIBRATED_SHAPES", "GENERATOR", "GENERATOR_VERSION", "NOUNS", "PLACES",
           "RECORDED_COMPETITION", "REVISION", "SEED", "SHAPES", "VERTICAL", "asked_subject",
           "build", "read_statements", "recompute_gold", "search_dial"]
