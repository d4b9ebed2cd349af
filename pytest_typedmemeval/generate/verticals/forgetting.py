"""TypedMemEval-Forgetting v3 (VERTICALS.md §2.5, Appendices C and D), declared over the v3 blocks.

Does a system know which of its facts were cancelled? Every question reads "Which physio do I have
for the shoulder? Give the name, and say whether that is still current." (the currency clause ends
every question, so its form never tells the shape). Shapes:

- ``invalidated`` (20): the user states a value ("I finally found a physio for the shoulder in
  Harriet Colby, and first impressions are very good."); 4-15 sessions later an explicit event
  cancels it, naming the value again ("I gave Harriet Colby a fair go as a physio for the shoulder,
  and eventually I stopped using them."); gold names the value, says it no longer holds and names
  the event. Components statement + invalidation, load-bearing.
- ``still-valid`` (15): the same value re-affirmed 4-15 sessions later by the twin of that frame
  ("... and eventually I kept them on."); gold names it and says it holds. Components
  statement + reaffirmation, redundant. Each twins an invalidated question over one byte-identical
  haystack that holds both facts (``pair_id``, arms treatment / control); the other 5 invalidated
  questions have haystacks of their own (so the unpaired haystacks are all invalidated: §2.5 fixes
  20 invalidated, 15 still-valid, 15 pairs, and GENERATION's pair rule byte-identical haystacks).
- ``never-known`` (15): the user never had the asked thing, and the asked noun occurs nowhere in
  the haystack, not even as a substring (§2.5 rule 7, kept at revision 3: a competitor naming the
  asked noun would make a careful answer — "you never said you had one; your sister's is X" — name
  a ``wrong`` value, and the contract reads that as committing). The near-miss fact (a plainly
  different kind of thing for the same purpose: the physio, when the radiographer for the shoulder
  is asked) is a full lifecycle *with its value* and its competitors, so abstaining needs telling
  the two apart. No near-miss pair is in :data:`NEAR_SYNONYMS` (asserted at import).

**One list, one pool per type, roles after the draw** (Appendix D row 1). Subjects come from one
list, :data:`ENTRIES` (services, whose values are people, and items, whose values are brands:
:mod:`..values`), values from the one pool of their type (:func:`..values.draw`), and a haystack is
drawn whole before any question exists; only then does a question pick the lifecycle it asks about
(:func:`_asked`: uniformly among those with the wanted follow-up, so gold's positions and gap are
distributed as every lifecycle's, 4-15 sessions and roughly even; never-known: uniformly among
subjects that have a sibling).

**Anatomy** (every session, every subject and every shape alike): each session holds exactly one
*own* event (a statement or a follow-up of one of the user's lifecycles; every lifecycle's two
events are 4-15 sessions apart, :func:`_matching`) and 2-4 *competitors*, plus drawn small talk, in
a drawn order (:func:`..conversation.render_haystack`, one persona per haystack; facts are told two
to a user turn, :data:`FACTS_PER_TURN`, so a session stays two or three episodes and the shared
acknowledgements do not crowd out distinct sentences). **Place in the turn is nobody's**: every
statement, the user's own and a relation's alike, is told after an intro sentence naming a relation
of the persona (:data:`INTRO_FRAMES`; the pronoun after it says whose the statement is), and no
assistant question leads into a statement (``lead_share=0``: the renderer leads only into the
user's own statements), so a statement's index in its turn, its turn's clause count and the turn's
place in the session are drawn alike for every role (the question-aware form reader refused the
first revision-3 bytes, where only relations had intros, on exactly that). Each competitor is
about the subject discussed least so far, so every subject of a haystack is mentioned about as
often as every other: the subject a haystack "dwells on" does not exist, and neither a reader that
counts recurring subjects nor the learned adversary's recurrence block can find the asked one (the
v3 episodic red team won exactly that way). Gold sessions are one own event plus competitors about
other subjects, like every other session. Subjects are dealt to haystacks least-used first, two
fifths services and the rest items (:func:`_layout`), so no subject's words crowd the corpus and
no haystack needs more people than the one pool can give.

**Competitor kinds** (Appendix D row 2: each holds a value of the asked type and says plainly why it
does not answer), every kind but ``instance`` holding the asked *phrase itself* ("physio for the
shoulder"; a holder's is "the shoulder" after an intro naming the holder, revision 3's first red
team found gold among the first five sessions holding the phrase in every question when holders
said "her shoulder"): ``holder`` — a relation's own provider, by the *same frames* as gold after an
intro that names the holder ("I caught up with my sister over lunch yesterday. She tried Anya
Marchetti as a physio for the shoulder, and in the end she selected them."); ``holder-follow`` — a
relation's provider with its end or continuation; ``declined`` — an option the user (up to
:data:`OWN_DECLINED` per subject) or a relation turned down ("... and in the end I declined them");
``instance`` — the same noun for another purpose ("... a physio for the knee ..."). The class mix
is :data:`KIND_WEIGHTS` (fixed), one arrangement per relation and subject (nobody has two physios
for one shoulder). **One frame bank for every role** (:data:`FOLLOW_FRAMES`: ten frames, one comma
in each, two of two sentences that put the subject and the value in different sentences, two
naming a second relation, one with an apostrophe), drawn alike whoever holds the statement and
whatever its kind; the role is said only by the holder's pronoun and possessive and by the stance
phrase in the {act} slot (:data:`ACTS`: said yes, said no, ended, kept), whose banks have one
word-length profile (forget9, red team 35: three banks of different phrasings were read through
their word lengths in order, held out 0.680 against 0.300). Red team 21 beat ``eaa1e882`` at
gold@1 0.60 against 0.28 because the user's own follow-ups could draw frames a relation's could
not; ``holder-follow`` exists because the dense arm ranked gold's follow-ups (the only statements
about whether something still holds) first.

**The dial** (``RECORDED_COMPETITION``, meaning renamed from v2): ``d`` in [0, 1], each session
carrying 2 + 2d competitors (dithered), so each subject about 4 + 4d; the closeness mix is fixed.
Paired haystacks read the ``still-valid`` dial, solo ones the ``invalidated`` dial, never-known
haystacks the mean over the answered haystacks (15 paired, 5 solo; recorded, not searched), so a
never-known haystack is as dense in competitors as the average answered one. The default search (:mod:`..calibration`)
scores every point by the reference BM25 and the whole lexical panel; dense and hybrid are stamped
at generation.

**Validity rules** (hard errors): every statement is read back from the text alone (:func:`read`:
holder, pronoun and possessives must agree) and equals the plan, competitors included; gold comes
from that reading (V5): one own statement strictly before one own follow-up of the asked subject,
4-15 sessions apart, an invalidation with nothing after it or a re-affirmation of the same value;
every competitor's value differs from gold and is a ``wrong`` value of the key; every value word
stands inside a read statement (which names its subject); the never-known noun nowhere (substring);
the currency clause's words in no frame and no small talk (the shared reply bank cannot be filtered
and rarely holds "give"); question words in < 10 % of sessions; every role sequence of a haystack
at least :data:`ROLE_SEQUENCE_COPIES` times; pair haystacks rendered once; the judge grades gold
correct and stale recall, over-forgetting, a competitor's value and a claimed loss not correct;
invalidation events are judge cues in both persons.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...gates.leaks import KEY_NAMES
from ...judge.mechanical import NO_LONGER_EVENT_CUES
from ...retrieval.tokenizer import raw_tokens, tokenize
from .. import conversation, engine, values
from ..length_balance import length_sequence_imbalance
from .forgetting_bank import (DECLINES, EVENTS, FOLLOW_FRAMES, INTRO_FRAMES, INTRO_OVER,
                              INTRO_PLACE, INTRO_TIME, INTRO_WHEN, ITEM_ROWS, KEEPS, NEAR_SYNONYMS,
                              SERVICE_ROWS, TAKES)
from .. import episodes_bank as bank
from ..primitives import (GenerationError, article, assert_disjoint, assert_person_invariant,
                          derive_rng, dither)

VERTICAL = "forgetting"
ABBREV = "for"
GENERATOR = "pytest_typedmemeval.generate.verticals.forgetting"
GENERATOR_VERSION = "3"
REVISION = 3
SEED = 20260502
SHAPES = ("invalidated", "still-valid", "never-known")
CALIBRATED_SHAPES = ("still-valid", "invalidated")
RECORDED_COMPETITION: dict[str, float] = {"invalidated": 0.0, "still-valid": 0.5,
                                          "never-known": 0.375}
"""Per shape, ``d``: each session carries 2 + 2d competitors (see the module docstring), from
``typedmemeval generate --vertical forgetting --search`` (re-run after red team 26's fixes: the
twin pool, the reopened declined bank and the competitor mix leaning to holder-follow left the old
record describing another generator), and again after red team 30's competitor threads (every
value on the asked phrase told in two sessions), and again after red team 35's one frame bank and
the competitor mix leaning to the user's own declined options (forget9: still-valid 0.234375 ->
0.5 at coverage 0.70; invalidated 0.3125 -> 0.0: with still-valid fixed no dial crosses the
target, every point reads 0.50-0.675, and the search keeps the closest, the smallest dial on a
tie); never-known is the mean over the answered haystacks, (15 x still-valid + 5 x invalidated)
/ 20 (not searched)."""
DIFFICULTY_NOTE = ("declared, not validated: the band is the gap from statement to its follow-up "
                   "(4-15 sessions), a position BM25 cannot feel (VERTICALS.md §2.0, §2.5 Dials)")

N_INVALIDATED, N_PAIRS, N_NEVER = 20, 15, 15
H_RANGE = (15, 25)
GAP_RANGE = (4, 15)
MEMORY_TYPE = "forgetting"
CURRENCY_CLAUSE = "Give the name, and say whether that is still current."
QUESTION = "Which {noun} do I have {purpose}? " + CURRENCY_CLAUSE
ANSWERS = {"invalidation": "{value}, but that no longer holds: you {event}.",
           "reaffirmation": "{value}, and that is still current.",
           "never-known": "You never told me you have {a} {noun} {purpose}."}
KIND_WEIGHTS: dict[str, float] = {"holder": 0.05, "holder-follow": 0.15, "declined-other": 0.05,
                                  "declined-own": 0.65, "instance": 0.1}
"""The closeness mix of competitor classes (all but ``instance`` hold both subject words; the
user's own declined options are closest to gold: same holder, same purpose, another modality).
Most relations' arrangements are told with their follow-up (``holder-follow``): gold is a statement
*and* a follow-up, so when competitors were four fifths statement-shaped, any form that tells a
follow-up frame from a statement frame (its act, its pronouns, its shorter words) found gold
(red team 26: P(gold | follow-up-shaped episode) 0.56 against 0.22 otherwise; the word-length
reader's 0.58-0.64 and the episode reader's AUC 0.66 at the re-searched dial). At these weights
it is about 0.38 against 0.26.

Since red team 30 the weights are of *threads*, not mentions: every competitor on the asked phrase
is a value told in two sessions (:data:`THREAD_KINDS`), as gold's is, so the mention mix is holder
statements 0.05, relations' follow-ups 0.45, declined 0.4, instances 0.1 (of which a twentieth are
statements), as before.

Since red team 35 (forget9) every role draws one frame bank and a stance phrase of one word-length
profile (:data:`FOLLOW_FRAMES`, :data:`ACTS`), so a statement's form says nothing of its kind and
the follow-up-shaped episode is gone; what form still shows is whose the statement is (the
holder's pronoun, "I" or a relation's). Gold is always the user's, so the mix now leans to the
user's own declined options (0.65; a relation's arrangement 0.2, a relation's declined option 0.05,
another instance 0.1): among the statements on the asked phrase that say "I", gold is about one
in three, and which of them is gold is said only by the stance (content a memory must read). At the
old mix, one bank lifted the form readers (still-valid clause reader 0.786, invalidated episode
reader 0.650, both refused) because "I" alone then marked gold in about two of three."""
THREAD_KINDS: dict[str, tuple[str, str]] = {
    "holder": ("holder", "holder-follow"), "holder-follow": ("holder-follow", "holder-follow"),
    "declined-other": ("declined", "declined"), "declined-own": ("declined", "declined")}
"""Per competitor class on the asked phrase, the kinds of its two mentions, 4-15 sessions apart
(an ``instance``, about another purpose, is told once). Why (red team 30, issue 19): competitor
values were each told once and only the user's own value twice (the statement and its follow-up),
so "the value named with the asked kind and place that two sessions mention" found the answer and
both gold sessions in 35/35 without reading a word of stance. Now every value named with the asked
phrase is told in exactly two sessions whatever its role: a relation's arrangement and what became
of it ("my sister settled on X" ... "my sister had X for months, and she let them go"), or a
relation's arrangement told twice (kept, then kept or ended), or an option the user or a relation
turned down and turned down again. A careful reader tells them apart by meaning (whose, and
declined or taken); the count says nothing. A holder's first of two follow-ups always keeps the
arrangement, so nothing ended is told again as running."""
OWN_DECLINED = 4
"""Options one user may have turned down for one subject in one haystack."""


@dataclass(frozen=True)
class Entry:
    """A subject: a noun for a purpose ("physio" for the "shoulder"); ``other`` is the purpose of
    another instance of the same noun ("knee"); ``sibling`` (never-known) a plainly different thing
    for the same purpose, asked while this entry is the near-miss (empty: never a near-miss)."""

    noun: str
    target: str
    category: str
    other: str
    sibling: str = ""

    @property
    def purpose(self) -> str:
        return f"for the {self.target}"

    @property
    def thing(self) -> str:
        return f"{self.noun} for the {self.target}"

    @property
    def value_type(self) -> values.ValueType:
        return "person" if self.category == "service" else "brand"


def _entries(category: str, rows: str) -> tuple[Entry, ...]:
    """``noun, target, other[, sibling]`` rows separated by ``;``."""
    fields = [[f.strip() for f in row.split(",")] for row in rows.replace("\n", " ").split(";")]
    return tuple(Entry(f[0], f[1], category, *f[2:]) for f in fields)


BASE_ENTRIES: tuple[Entry, ...] = _entries("service", SERVICE_ROWS) + _entries("item", ITEM_ROWS)
"""The written rows (:data:`.forgetting_bank.SERVICE_ROWS`, ``ITEM_ROWS``)."""
ENTRIES: tuple[Entry, ...] = BASE_ENTRIES + tuple(
    Entry(e.sibling, e.target, e.category, e.other, e.noun) for e in BASE_ENTRIES)
"""Every subject, asked or filler, as **twin pairs** (one list: which ones a question asks is drawn
per haystack). Each entry's ``sibling`` is its twin, itself an entry: the radiographer for the
shoulder is a subject like the physio for the shoulder, dealt to haystacks, told as lifecycles and
competitors, and asked as a known question like any other. A haystack holds at most one of a twin
pair (:func:`_layout`), and a never-known question asks for the twin of one of its haystack's
subjects. Why (red team 26): never-known nouns used to come from a pool of siblings no haystack
ever named, so "the asked noun occurs in no *other* question's haystack" told never-known apart
15/15 (every known noun was in six or more); now every noun, asked never-known or known, is in
other haystacks about equally often (the never-known twin's own haystack counts as a use of it,
:func:`_layout`), and the only test left is the legitimate one: the noun is absent from *its
own* haystack."""
_BY_NOUN: dict[str, Entry] = {e.noun: e for e in ENTRIES}
SIBLINGS: dict[Entry, Entry] = {e: _BY_NOUN[e.sibling] for e in ENTRIES}
"""Per near-miss entry, the never-known subject asked beside it (its twin, same purpose), which that
haystack never names."""




def _intro(rng: random.Random, relation: bank.Relation) -> str:
    """One intro sentence naming ``relation`` (see :data:`INTRO_FRAMES`)."""
    when = rng.choice(INTRO_WHEN)
    over = rng.choice([o for o in INTRO_OVER if INTRO_TIME[when] in INTRO_PLACE[o]])
    return rng.choice(INTRO_FRAMES).format(rel=relation.noun, when=when, When=_capital(when),
                                           over=over)


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


FRAMES: dict[tuple[str, str], tuple[str, ...]] = {
    (kind, category): FOLLOW_FRAMES for kind in ("statement", "declined", "follow")
    for category in ("service", "item")}
"""Every kind's bank, per category: the one bank (kept keyed by kind so each kind's draw is
visibly the same)."""
ACTS: dict[str, dict[str, tuple[str, ...]]] = {
    "statement": TAKES, "declined": DECLINES, "invalidation": EVENTS, "reaffirmation": KEEPS}
"""Per stance, the phrases of :data:`FOLLOW_FRAMES`' {act} slot. Each stance bank holds, per
category, one phrase of each word-length sequence (``8 4``, ``9 4``, ``6 4 4`` for services,
``8 2``, ``4 2`` for items), so the filled sentence's word-length sequence is the same
distribution for every stance: a reader of lengths sees only the holder's pronoun ("I" or a
relation's), which is whose the statement is (content a memory must read). Checked at import."""

ARTICLES: tuple[str, ...] = ("the", "")
"""The article before the noun in every frame of every bank ({a}): "the" or the indefinite one
(``""``), drawn by one ``rng.choice`` for every statement whoever holds it and whatever its kind.
Red team 24 found gold in ``93c7e8ad`` by article alone (pick the sessions whose statement says
"the <kind>": gold@1 0.625 / 0.567 against 0.31 / 0.29), because the follow-up bank said "as the
<kind>" and the statement and declined banks "a <kind>", and gold always holds a follow-up while
most competitors are statements or declined options."""
OWN_KINDS = ("statement", "invalidation", "reaffirmation")
MOODS = ("invalidation", "reaffirmation")
REPLY_STANCE: conversation.Stance = "noted"
STANCE: dict[str, conversation.Stance] = {kind: REPLY_STANCE for kind in (
    "statement", "reaffirmation", "invalidation", "holder", "holder-follow", "declined", "instance")}
"""The reply bank a statement's episode draws from (:data:`..conversation.Stance`): **one bank for
every statement**, as Arithmetic's and WorkingMemory's (forget9, red team 35): "arranged" replies
followed only the user's own acquisitions (0.563 on the shipped bytes) and told chore-replies
about people, animals and events ("It is useful to have the bunion organised.", 43 turns); the
"noted" bank acknowledges any kind of object and says nothing of whose it is or of its stance."""

SUBJECT_WORDS = frozenset(w for e in ENTRIES for p in (e.noun, e.target, e.other)
                          for w in raw_tokens(p))
SIBLING_WORDS = frozenset(w for e in ENTRIES for w in raw_tokens(e.noun))
"""The words of every noun a never-known question may ask (every entry's: each is a twin)."""
CURRENCY_WORDS = frozenset(tokenize(CURRENCY_CLAUSE))
VALUE_WORDS = values.pool_words()
FRAME_WORDS = frozenset(
    w for t in (*(t for ts in FRAMES.values() for t in ts), *INTRO_FRAMES, *INTRO_WHEN,
                *INTRO_OVER,
                "mentioned to you me",
                *(e for table in ACTS.values() for es in table.values() for e in es))
    for w in raw_tokens(re.sub(r"\{\w+\}", " ", t)))
def _unfiltered_words() -> frozenset[str]:
    """Words of the shared lines no ``banned`` set filters (statement replies, leads, declines and
    the conversation's acknowledgements, transitions and closes): a subject word among them would
    reach sessions that do not hold the subject (it did: "pressure", in "takes the pressure off")."""
    lines = [t for rows in bank.STATEMENT_REPLIES.values() for row in rows
             for t in (row.reply, row.answer, row.close) if t]
    lines += [*bank.ASSISTANT_LEADS, *bank.USER_DECLINES]
    for name in ("ACKNOWLEDGEMENTS", "TRANSITIONS", "REQUEST_REACTIONS", "ASSISTANT_CLOSES"):
        lines += list(getattr(conversation, name, ()))
    lines += [t for ts in getattr(conversation, "GENERIC_CLOSES", {}).values() for t in ts]
    return frozenset(w for t in lines for w in bank.template_words(t))


LEAK_WORDS = frozenset(w for w in bank.slot_words() if any(k in w for k in KEY_NAMES))
"""Small-talk words the leak gate reads as answer-key field names ("judges" holds "judge")."""
_HEADS = {e.noun for e in ENTRIES} | {e.noun.split()[-1] for e in ENTRIES}
BANNED = (SUBJECT_WORDS | SIBLING_WORDS | CURRENCY_WORDS | VALUE_WORDS | LEAK_WORDS
          | {w for w in bank.slot_words() if any(h in w for h in _HEADS)})
"""Words small talk must not use: a subject, sibling, value or clause word outside a statement
would be a mention without content, and a word holding a never-known noun ("deckchairs") would
break the never-known check, which is by substring."""


def _assert_stances_balanced() -> None:
    """Import-time check (forget9, red team 35): per category, every stance's phrases make up the
    same word-length sequences in the same shares, and no phrase serves two stances, so the filled
    frame's word lengths in order never say the stance, and the text alone still says it."""
    for category in ("service", "item"):
        banks = {stance: table[category] for stance, table in ACTS.items()}
        bad = length_sequence_imbalance(banks)
        assert not bad, f"{category} stance phrases differ in word lengths: {bad}"
        every = [a for acts in banks.values() for a in acts]
        assert len(every) == len(set(every)), f"{category}: a phrase serves two stances"


def _assert_banks() -> None:
    """Import-time checks: banks disjoint, each entry owns its words, near-misses plainly
    different, events judge cues in both persons, frames well formed."""
    assert_disjoint("subject words", SUBJECT_WORDS, "frame words", FRAME_WORDS)
    assert_disjoint("values", VALUE_WORDS, "subject, sibling, frame and clause words",
                    SUBJECT_WORDS | SIBLING_WORDS | FRAME_WORDS | CURRENCY_WORDS)
    assert_disjoint("currency clause", CURRENCY_WORDS, "frames", FRAME_WORDS)
    unfiltered = _unfiltered_words()
    assert_disjoint("subject, sibling and value words", SUBJECT_WORDS | SIBLING_WORDS | VALUE_WORDS,
                    "the shared reply lines", unfiltered)
    assert not any(h in w for h in _HEADS for w in unfiltered), "a never-known noun in a reply"
    owners = [w for e in BASE_ENTRIES for p in (e.noun, e.sibling, e.target, e.other)
              for w in set(raw_tokens(p))]
    assert len(owners) == len(set(owners)), sorted({w for w in owners if owners.count(w) > 1})
    for entry in ENTRIES:
        twin = SIBLINGS[entry]
        assert SIBLINGS[twin] is entry and (twin.target, twin.other) == (entry.target, entry.other)
        pair = frozenset({entry.noun, entry.sibling})
        assert pair not in NEAR_SYNONYMS, f"near-synonym near-miss {sorted(pair)}"
        assert not set(raw_tokens(entry.noun)) & set(raw_tokens(entry.sibling)), entry
        assert not entry.sibling.endswith("s"), f"{entry.sibling}: a singular noun reads 'a ...'"
        heads = (entry.sibling, entry.sibling.split()[-1])
        texts = [f"{e.noun} {e.target} {e.other}" for e in ENTRIES if e is not twin]
        assert not any(h in t for h in heads for t in [*texts, *sorted(VALUE_WORDS)]), entry
    every_event = [e for es in EVENTS.values() for e in es]
    assert_person_invariant([a for table in ACTS.values() for acts in table.values() for a in acts],
                            where="ACTS")
    _assert_stances_balanced()
    for event in every_event:
        assert any(re.search(rf"\b{re.escape(c)}\b", event) for c in NO_LONGER_EVENT_CUES), event
    for keep in (k for table in (KEEPS, TAKES, DECLINES) for ks in table.values() for k in ks):
        assert not any(re.search(rf"\b{re.escape(c)}\b", keep) for c in NO_LONGER_EVENT_CUES), keep
    for (kind, _), frames in FRAMES.items():
        for frame in frames:
            assert ":" not in frame and frame.endswith(".") and "{value}" in frame.lower()
            assert "{act}" in frame and "{noun} for {poss} {target}" in frame
            assert "{who}" in frame.lower(), f"{frame}: the pronoun after the intro says whose"


_assert_banks()

# --------------------------------------------------------------------------------------------
# Planning (gold-blind: a haystack is drawn whole before any question exists)


@dataclass
class Said:
    """One planned statement: an own event (``lifecycle`` set) or a competitor."""

    entry: Entry
    kind: str
    session: int
    holder: int | None = None
    """Persona relation index (``None``: the user)."""
    lifecycle: int | None = None
    value: str = ""
    thread: int | None = None
    """A competitor thread's number: its mentions share one value (see :data:`THREAD_KINDS`)."""
    mood: str | None = None
    """A relation's follow-up forced to keep (the first of two), else drawn."""

    @property
    def target(self) -> str:
        return self.entry.other if self.kind == "instance" else self.entry.target


@dataclass
class Lifecycle:
    """An own fact: a statement at ``positions[0]``, ``follow`` (or nothing) at ``positions[1]``."""

    entry: Entry
    follow: str | None
    positions: tuple[int, ...]


FILL_PASSES = 3
"""Passes over the sessions filling each to its drawn competitor count."""
MENTION_SPREAD = 2
"""The most one subject of a haystack may be mentioned beyond another (its lifecycle's events and
its competitors together)."""
MATCHING_ATTEMPTS = 1000
MIN_COMPETITORS, MAX_EXTRA = 2, 2
"""Competitors per session: MIN_COMPETITORS + MAX_EXTRA x the dial (dithered), so even the lowest
dial gives every subject about four valued competitors (at one per session the asked phrase was in
three or four sessions of a solo haystack, and reading them in order found gold)."""


def _matching(n: int, rng: random.Random) -> list[tuple[int, ...]]:
    """Every session paired with one other 4-15 sessions away (a lone one when ``n`` is odd),
    drawn by a randomised greedy pass, redrawn until it closes; refused, never looped on."""
    for _ in range(MATCHING_ATTEMPTS):
        lone = [rng.randrange(n)] if n % 2 else []
        free = set(range(n)) - set(lone)
        pairs: list[tuple[int, ...]] = [tuple(lone)] if lone else []
        while free:
            first = min(free)
            free.discard(first)
            partners = [q for q in range(first + GAP_RANGE[0], first + GAP_RANGE[1] + 1) if q in free]
            if not partners:
                break
            second = rng.choice(partners)
            free.discard(second)
            pairs.append((first, second))
        else:
            return pairs
    raise GenerationError(f"{n} sessions cannot be paired {GAP_RANGE[0]}-{GAP_RANGE[1]} apart")


@dataclass
class Plan:
    key: str
    lifecycles: list[Lifecycle]
    said: list[list[Said]]
    persona: conversation.Persona
    rng: random.Random


def _plan(seed: int, key: str, n: int, entries: Sequence[Entry], rate: float) -> Plan:
    """The haystack of ``n`` sessions about ``entries`` (one lifecycle each) drawn whole, before any
    question exists: every session the own event of one
    lifecycle (every lifecycle 4-15 sessions apart, follow-ups alternating), then 1 + 2 x ``rate``
    competitors per session (dithered), each about the subject with the fewest so far, so every
    subject of the haystack is discussed as often as every other; then every value."""
    if not 0.0 <= rate <= 1.0:
        raise GenerationError(f"competition for {key} must lie in [0, 1], got {rate}")
    rng = derive_rng(seed, VERTICAL, key, "plan")
    persona = conversation.draw_persona(rng)
    pairs = _matching(n, rng)
    rng.shuffle(pairs)
    entries = list(entries)
    start = rng.randrange(2)
    lifecycles = [Lifecycle(e, ("invalidation", "reaffirmation")[(start + i) % 2]
                            if len(pair) == 2 else None, tuple(sorted(pair)))
                  for i, (e, pair) in enumerate(zip(entries, pairs))]
    said: list[list[Said]] = [[] for _ in range(n)]
    for number, cycle in enumerate(lifecycles):
        for position, kind in zip(cycle.positions, ("statement", cycle.follow)):
            said[position].append(Said(cycle.entry, str(kind), position, lifecycle=number))
    used: Counter[tuple[Entry, str, int | None]] = Counter()
    mentions: Counter[Entry] = Counter(s.entry for session in said for s in session)
    subjects = entries
    wanted = [MIN_COMPETITORS + extra for extra in dither([MAX_EXTRA * rate] * n, rng)]
    threads = 0
    for _ in range(FILL_PASSES):  # a later pass fills what balance kept short in an earlier one
        for position in range(n):
            while len(said[position]) - 1 < wanted[position]:
                present = {s.entry for s in said[position]}
                order = [e for e in rng.sample(subjects, len(subjects)) if e not in present]
                order.sort(key=lambda e: mentions[e])
                thread = _thread(rng, order, persona, used, position, said, wanted, threads,
                                 mentions)
                if thread is None and len(said[position]) < 2:  # rare: balance left it bare
                    thread = _thread(rng, order, persona, used, position, said, wanted, threads,
                                     mentions, MENTION_SPREAD + 1)
                if thread is None:
                    break  # no subject has room here now: the dial saturates here
                threads += 1
                for competitor in thread:
                    mentions[competitor.entry] += 1
                    said[competitor.session].append(competitor)
    for position in range(n):
        if len(said[position]) < 2:
            raise GenerationError(f"{key}: no competitor left for session {position}")
    _assign_values(rng, said)
    return Plan(key, lifecycles, said, persona, rng)


def _partner(rng: random.Random, entry: Entry, position: int, said: Sequence[Sequence[Said]],
             wanted: Sequence[int]) -> int | None:
    """The session of a thread's other mention: 4-15 sessions from ``position`` (later when the
    haystack has room after it, else earlier), not about ``entry`` yet, among those still short of
    their drawn competitor count if any (else any under the most a session carries), drawn
    uniformly, so a competitor thread's gap is spread as a lifecycle's is."""
    low, high = GAP_RANGE
    n = len(said)
    later = [q for q in range(position + low, min(n, position + high + 1))]
    earlier = [q for q in range(max(0, position - high), position - low + 1)]
    for sessions in (later, earlier):
        free = [q for q in sessions if all(s.entry is not entry for s in said[q])]
        short = [q for q in free if len(said[q]) - 1 < wanted[q]]
        roomy = [q for q in free if len(said[q]) - 1 < MIN_COMPETITORS + MAX_EXTRA]
        if short or roomy:
            return rng.choice(short or roomy)
    return None


def _thread(rng: random.Random, subjects: Sequence[Entry], persona: conversation.Persona,
            used: Counter[tuple[Entry, str, int | None]], position: int,
            said: Sequence[Sequence[Said]], wanted: Sequence[int],
            number: int, mentions: Counter[Entry],
            spread: int = MENTION_SPREAD) -> list[Said] | None:
    """A competitor about the first of ``subjects`` with room left, as one mention (``instance``)
    or two 4-15 sessions apart (:data:`THREAD_KINDS`), one at ``position``; the kinds are in
    session order."""
    competitor = _competitor(rng, subjects, persona, used, position,
                             lambda entry: _partner(rng, entry, position, said, wanted),
                             mentions, spread)
    if competitor is None:
        return None
    first, partner, klass = competitor
    if klass not in THREAD_KINDS:
        return [first]
    assert partner is not None
    sessions = sorted((position, partner))
    kinds = THREAD_KINDS[klass]
    out = [Said(first.entry, kind, session, holder=first.holder, thread=number)
           for kind, session in zip(kinds, sessions)]
    if kinds == ("holder-follow", "holder-follow"):
        out[0].mood = "reaffirmation"
    return out


def _competitor(rng: random.Random, subjects: Sequence[Entry], persona: conversation.Persona,
                used: Counter[tuple[Entry, str, int | None]], position: int,
                partner_of: Any, mentions: Counter[Entry],
                spread: int) -> tuple[Said, int | None, str] | None:
    """A competitor about the first of ``subjects`` with room left (and, for a two-mention class,
    a partner session), of a class drawn by :data:`KIND_WEIGHTS`: per relation one arrangement
    (told as a statement and its follow-up, or as two follow-ups) and one declined option, one
    other instance, up to :data:`OWN_DECLINED` options the user turned down. A class is open only
    while it keeps every subject of the haystack within :data:`MENTION_SPREAD` mentions of every
    other (a thread adds two at once), so no subject recurs more than the rest."""
    holders = list(range(len(persona.relations)))
    for entry in subjects:
        partner = partner_of(entry)
        others = [m for e, m in mentions.items() if e is not entry]
        top, bottom = max(others, default=0), min(others, default=0)

        def balanced(klass: str, entry: Entry = entry) -> bool:
            after = mentions[entry] + (2 if klass in THREAD_KINDS else 1)
            return max(top, after) - min(bottom, after) <= spread

        options = [(c, k, h, room) for c, k, hs, room, cap in (
            ("holder", "holder", holders, "holder", 1),
            ("holder-follow", "holder-follow", holders, "holder", 1),
            ("declined-other", "declined", holders, "declined", 1),
            ("declined-own", "declined", [None], "declined", OWN_DECLINED),
            ("instance", "instance", [None], "instance", 1))
            for h in hs if used[entry, room, h] < cap and balanced(c)
            and (partner is not None or c not in THREAD_KINDS)]
        if not options:
            continue
        weights = [KIND_WEIGHTS[c] / sum(1 for o in options if o[0] == c) for c, *_ in options]
        klass, kind, holder, room = rng.choices(options, weights)[0]
        used[entry, room, holder] += 1
        return Said(entry, kind, position, holder=holder), partner, klass
    return None


def _asked(plan: Plan, follow: str, taken: Sequence[Entry], key: str, seed: int) -> Entry:
    """Roles after the draw: the lifecycle a question asks about, drawn uniformly among the
    haystack's lifecycles with the wanted follow-up, so its positions and gap are distributed as
    every lifecycle's are (a gap-targeted choice put gold statements early, and the learned
    adversary found them by position)."""
    fits = [c.entry for c in plan.lifecycles if c.follow == follow and c.entry not in taken]
    if not fits:
        raise GenerationError(f"{plan.key}: no {follow} lifecycle to ask about")
    return derive_rng(seed, VERTICAL, key, "asked").choice(fits)


def _assign_values(rng: random.Random, said: Sequence[Sequence[Said]]) -> None:
    """Draw every value the haystack needs from its type's one pool, then hand them out in session
    order: nothing about a value depends on which statement a question will ask about."""
    seen: set[tuple[str, int]] = set()
    fresh = []
    for s in (s for session in said for s in session):
        thread = (("lifecycle", s.lifecycle) if s.lifecycle is not None
                  else ("thread", s.thread) if s.thread is not None else None)
        if thread is None or thread not in seen:
            fresh.append(s)
            if thread is not None:
                seen.add(thread)
    drawn = {kind: values.draw(rng, kind, sum(1 for s in fresh if s.entry.value_type == kind))
             for kind in ("person", "brand")}
    of_thread: dict[tuple[str, int], str] = {}
    for s in fresh:
        s.value = drawn[s.entry.value_type].pop()
        if s.lifecycle is not None:
            of_thread["lifecycle", s.lifecycle] = s.value
        elif s.thread is not None:
            of_thread["thread", s.thread] = s.value
    for session in said:
        for s in session:
            if s.lifecycle is not None:
                s.value = of_thread["lifecycle", s.lifecycle]
            elif s.thread is not None:
                s.value = of_thread["thread", s.thread]


def _shown(entry: Entry, value: str, *, initial: bool = False) -> str:
    """A value as the text shows it: a person bare, a brand with its article."""
    if entry.category == "service":
        return value
    return f"{'The' if initial else 'the'} {value}"


_FRAME_KIND = {"statement": "statement", "holder": "statement", "instance": "statement",
               "declined": "declined", "invalidation": "follow", "reaffirmation": "follow",
               "holder-follow": "follow"}


def _holder(persona: conversation.Persona, index: int | None) -> dict[str, str]:
    """The holder's slots (see the frames): the user's, or a persona relation's."""
    if index is None:
        return {"Who": "I", "who": "I", "poss": "the", "my": "my", "My": "My", "me": "me",
                "mentioned": "I mentioned to you"}
    relation = persona.holder(index)
    return {"Who": relation.subj.capitalize(), "who": relation.subj, "poss": "the",
            "my": relation.poss, "My": relation.poss.capitalize(), "me": relation.obj,
            "mentioned": f"{relation.subj} mentioned to me"}


def _stance(s: Said, mood: str) -> str:
    """The stance bank of a statement's {act} (:data:`ACTS`): a follow-up's mood, else its kind's."""
    if s.kind in ("invalidation", "reaffirmation", "holder-follow"):
        return mood
    return "declined" if s.kind == "declined" else "statement"


def _thread_key(s: Said) -> tuple[str, int] | None:
    """What makes two mentions one value's (a lifecycle or a competitor thread), else ``None``."""
    if s.lifecycle is not None:
        return ("lifecycle", s.lifecycle)
    return None if s.thread is None else ("thread", s.thread)


def _text(rng: random.Random, s: Said, persona: conversation.Persona,
          told: dict[tuple[str, int], str] | None = None) -> str:
    """The statement's sentences: an intro naming a relation (the holder, or for the user's own
    statements any relation of the persona: every statement has one, so neither its place in its
    turn nor its turn's length says whose it is), then a frame of the one bank drawn, filled for its
    holder and its stance.

    ``told`` holds, per lifecycle and thread, the frame its first mention drew: the second mention
    of a value draws among the other frames, for every role alike (red team 35 found one declined
    pair, frame and value, told word for word in two sessions of one haystack)."""
    entry = s.entry
    key = _thread_key(s)
    earlier = (told or {}).get(key) if key is not None else None
    bank_ = [f for f in FRAMES[_FRAME_KIND[s.kind], entry.category] if f != earlier]
    frame = rng.choice(bank_)  # one bank, whoever holds it and whatever its kind
    if told is not None and key is not None:
        told.setdefault(key, frame)
    slots = _holder(persona, s.holder)
    named = s.holder if s.holder is not None else rng.randrange(len(persona.relations))
    intro = _intro(rng, persona.holder(named))
    others = [i for i in range(len(persona.relations)) if i != named]
    other = persona.holder(rng.choice(others))
    slots.update(rel=other.noun, rs=other.subj)
    mood = s.kind if s.kind in MOODS else rng.choice(MOODS)
    mood = s.mood or mood  # drawn all the same, so the stream does not depend on it
    slots.update(a=rng.choice(ARTICLES) or article(entry.noun), noun=entry.noun, target=s.target,
                 value=_shown(entry, s.value), Value=_shown(entry, s.value, initial=True),
                 act=rng.choice(ACTS[_stance(s, mood)][entry.category]))
    return f"{intro} {frame.format(**slots)}"


def _statements(rng: random.Random, said: Sequence[Said], persona: conversation.Persona,
                told: dict[tuple[str, int], str]) -> list[conversation.Statement]:
    """A session's facts, shuffled and told two to a user turn (the reply answers one of them,
    drawn: a person mentions the other in passing), so a session is two or three episodes however many
    facts it holds. The reply is drawn from one bank for every kind and holder (:data:`STANCE`) and
    its topic is the purpose alone ("the shoulder"), so the reply says neither whose the statement
    is nor its stance (red team 35: "arranged" replies only after the user's own acquisitions, and
    "your sister's" topics only after a relation's)."""
    order = rng.sample(list(said), len(said))
    out = []
    for start in range(0, len(order), FACTS_PER_TURN):
        group = order[start:start + FACTS_PER_TURN]
        first = rng.choice(group)  # the reply answers either (red team 26: always the first)
        text = " ".join(_text(rng, s, persona, told) for s in group)
        out.append(conversation.Statement(text, f"the {first.target}", STANCE[first.kind],
                                          avoid=REPLY_AVOID))
    return out


FACTS_PER_TURN = 2
REPLY_AVOID = ("seen to", "wait a while", "taking on")
"""Shared replies that misfit a topic which is a purpose, not a job (red team 24: "Sensible to get
the cello seen to" about a music teacher, "So can the twins wait a while?", "Good for your sister,
taking on her bunion"): never drawn here, for any stance or role."""


RENDER_ATTEMPTS = 400
ROLE_SEQUENCE_COPIES = 3
"""Every role sequence (turn count) in a haystack occurs at least G + 1 = 3 times."""


def _render(seed: int, plan: Plan, tally: engine.Tally) -> engine.Haystack:
    """Render the plan; re-rendered (same statements, a fresh conversation stream) until every role
    sequence of the haystack occurs at least :data:`ROLE_SEQUENCE_COPIES` times.

    Why: turn counts vary with the replies drawn, and V7's role-sequence rule refuses a question
    whose gold session has a sequence no distractor shares, which a rare count produces by chance.
    The condition is on every session alike, so it cannot mark gold: it only guarantees that two
    gold sessions always leave a distractor with each of their sequences."""
    n = len(plan.said)
    times, question_time = engine.daily_times(plan.rng, n)
    told: dict[tuple[str, int], str] = {}
    sessions = [_statements(plan.rng, session, plan.persona, told) for session in plan.said]
    for attempt in range(RENDER_ATTEMPTS):
        trial = engine.Tally()
        key = plan.key if attempt == 0 else f"{plan.key}#{attempt}"
        stay = conversation.render_haystack(seed, VERTICAL, conversation.HaystackPlan(
            key, sessions, times, question_time, plan.persona, BANNED, lead_share=0.0), trial)
        counts = Counter(tuple(t.role for t in session) for session in stay.sessions)
        if min(counts.values()) >= ROLE_SEQUENCE_COPIES:
            break
    else:
        raise GenerationError(f"{plan.key}: no rendering in {RENDER_ATTEMPTS} gives every role "
                              f"sequence {ROLE_SEQUENCE_COPIES} copies")
    tally.add(trial.counts())
    stay.key = plan.key
    engine.check_haystack(stay)
    check_plan(stay, plan)
    return stay


# --------------------------------------------------------------------------------------------
# Reading back from the text (V5) and the validity rules


@dataclass(frozen=True)
class Reading:
    """One statement as the text alone says it."""

    session: int
    turn: int
    kind: str
    holder: str | None
    """The relation noun ("sister"), ``None`` for the user."""
    entry: Entry
    target: str
    value: str
    event: str | None
    span: tuple[int, int]
    pronoun: str = field(default="", compare=False)
    """The holder's subject pronoun as the statement's grammar gives it ("I" for the user)."""

    @property
    def own_current(self) -> bool:
        """Whether it is the user's own statement about the entry's asked purpose (a lifecycle)."""
        return self.holder is None and self.kind in OWN_KINDS and self.target == self.entry.target


def _alternation(words: Sequence[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))


def _patterns() -> list[tuple[str, re.Pattern[str]]]:
    """(frame kind, pattern) for every frame, an optional intro before it. Every slot is a named
    group, numbered after its first use (``who``, ``who2``), so :func:`_reading` can check that all
    of a statement's pronouns and possessives belong to one holder."""
    relations = _alternation(sorted({r.noun for r in bank.RELATIONS.values()}))
    pronouns = sorted({r.subj for r in bank.RELATIONS.values()})
    holders = [_SLOTS_OF[None], *_SLOTS_OF.values()]
    out = []
    for category in ("service", "item"):
        kind, frames = "frame", FOLLOW_FRAMES  # one bank: the stance is read from {act}
        value = (r"[A-Z][a-z]+ [A-Z][a-z]+" if category == "service" else r"the [A-Z][a-z]+")
        groups = {
            "Who": "I|" + "|".join(p.capitalize() for p in pronouns),
            "My": _alternation([h["my"].capitalize() for h in holders]), "rel": relations,
            "rs": _alternation(pronouns),
            "who": "I|" + "|".join(pronouns),
            **{slot: _alternation([h[slot] for h in holders]) for slot in ("poss", "my", "me",
                                                                             "mentioned")},
            "a": "a|an|the", "noun": _alternation([e.noun for e in (*ENTRIES, *SIBLINGS.values())
                                                if e.category == category]),
            "target": _alternation([t for e in ENTRIES if e.category == category
                                    for t in (e.target, e.other)]),
            "value": value, "Value": value.replace("the ", "The "),
            "act": _alternation([a for table in ACTS.values() for a in table[category]])}
        intros = _alternation([i.format(rel="\x00", when="\x01", When="\x02", over="\x03")
                               for i in INTRO_FRAMES])
        for mark, alternatives in (("\x00", relations), ("\x01", _alternation(INTRO_WHEN)),
                                   ("\x02", _alternation([_capital(w) for w in INTRO_WHEN])),
                                   ("\x03", _alternation(INTRO_OVER))):
            intros = intros.replace(re.escape(mark), f"(?:{alternatives})")
        for frame in frames:
            body, seen = re.escape(frame), Counter[str]()

            def group(match: re.Match[str]) -> str:
                slot = match.group(1)
                seen[slot.lower()] += 1
                name = slot.lower() + ("" if seen[slot.lower()] == 1 else str(seen[slot.lower()]))
                return f"(?P<{name}>{groups[slot]})"

            body = re.sub(r"\\\{(\w+)\\\}", group, body)
            out.append((kind, re.compile(f"(?P<intro>{intros}) {body}")))
    return out


_BY_WORDS = {(e.noun, t): e for e in (*ENTRIES, *SIBLINGS.values()) for t in (e.target, e.other)}
_RELATION_OF: dict[str, list[bank.Relation]] = {}
for _relation in bank.RELATIONS.values():
    _RELATION_OF.setdefault(_relation.noun, []).append(_relation)
_SLOTS_OF: dict[bank.Relation | None, dict[str, str]] = {None: {
    "who": "I", "poss": "the", "my": "my", "me": "me", "mentioned": "I mentioned to you"}}
_SLOTS_OF.update({r: {"who": r.subj, "poss": "the", "my": r.poss, "me": r.obj,
                      "mentioned": f"{r.subj} mentioned to me"} for r in bank.RELATIONS.values()})
_PATTERNS = _patterns()


def _reading(stay: engine.Haystack, s: int, t: int, kind: str, m: re.Match[str]) -> Reading:
    """One match as a :class:`Reading`, refused when its holder, pronouns and possessives
    disagree (a statement whose grammar does not say whose it is)."""
    g = {name: text for name, text in m.groupdict().items() if text is not None}
    entry = _BY_WORDS.get((g["noun"], g["target"]))
    if entry is None:
        raise GenerationError(f"{stay.key}: {m[0]!r} pairs a noun and a purpose no subject has")
    named = next(n for n in sorted(_RELATION_OF, key=len, reverse=True) if n in g["intro"])
    candidates: list[bank.Relation | None] = [None, *_RELATION_OF[named]]
    stance = next(st for st, table in ACTS.items() if g["act"] in table[entry.category])

    def agrees(relation: bank.Relation | None) -> bool:
        slots = _SLOTS_OF[relation]
        return all(text.lower() == slots[name.rstrip("0123456789")].lower()
                   for name, text in g.items() if name.rstrip("0123456789") in slots)

    agreeing = [r for r in candidates if agrees(r)]
    if len(agreeing) != 1:
        raise GenerationError(f"{stay.key}: the grammar of {m[0]!r} does not say whose it is")
    holder = None if agreeing[0] is None else named
    read_kind = stance
    if holder is not None and stance != "declined":
        read_kind = "holder" if stance == "statement" else "holder-follow"
    elif stance == "statement" and g["target"] == entry.other:
        read_kind = "instance"
    value = g["value"].split(" ", 1)[1] if entry.category == "item" else g["value"]
    return Reading(s, t, read_kind, holder, entry, g["target"], value, g.get("act"), m.span(),
                   _SLOTS_OF[agreeing[0]]["who"])


def read(stay: engine.Haystack) -> list[Reading]:
    """Every statement in the rendered text alone, in (session, turn, offset) order."""
    found = [_reading(stay, s, t, kind, m) for s, session in enumerate(stay.sessions)
             for t, turn in enumerate(session) for kind, pattern in _PATTERNS
             for m in pattern.finditer(turn.text)]
    found.sort(key=lambda r: (r.session, r.turn, r.span))
    pronouns: dict[str, set[str]] = {}
    for r in found:
        if r.holder is not None:
            pronouns.setdefault(r.holder, set()).add(r.pronoun)
    for noun, said in pronouns.items():
        if len(said) > 1:  # the intro names the relation without its gender: one person per noun
            raise GenerationError(f"{stay.key}: the grammar does not say whose: my {noun} is "
                                  f"{' and '.join(sorted(said))}")
    for a, b in zip(found, found[1:]):
        if (a.session, a.turn) == (b.session, b.turn) and b.span[0] < a.span[1]:
            raise GenerationError(f"{stay.key}: two frames read one statement: {a} / {b}")
    return found


def check_plan(stay: engine.Haystack, plan: Plan) -> None:
    """The text reads back exactly as planned; every value sits inside a read statement (which
    names its subject); no subject, value or clause word outside one; possessives agree."""
    got = read(stay)
    holders = [plan.persona.holder(i).noun for i in range(len(plan.persona.relations))]
    want = sorted((s.session, s.kind, "" if s.holder is None else holders[s.holder], s.entry.thing,
                   s.target, s.value) for session in plan.said for s in session)
    have = sorted((r.session, r.kind, r.holder or "", r.entry.thing, r.target, r.value) for r in got)
    if have != want:
        missing = [w for w in want if w not in have][:2]
        extra = [h for h in have if h not in want][:2]
        raise GenerationError(f"{stay.key}: the text reads back otherwise than planned "
                              f"(missing {missing}, unplanned {extra})")
    spans: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for r in got:
        if stay.sessions[r.session][r.turn].role != "user":
            raise GenerationError(f"{stay.key}: a statement in an assistant turn")
        spans.setdefault((r.session, r.turn), []).append(r.span)
    for s, session in enumerate(stay.sessions):
        for t, turn in enumerate(session):
            rest = turn.text
            for start, end in sorted(spans.get((s, t), []), reverse=True):
                rest = rest[:start] + " " + rest[end:]
            loose = set(raw_tokens(rest)) & (VALUE_WORDS | SIBLING_WORDS)
            if loose:
                raise GenerationError(f"{stay.key}: {sorted(loose)} outside a statement: {turn.text!r}")


# --------------------------------------------------------------------------------------------
# Records


def _gold_record(stay: engine.Haystack, asked: Entry, shape: str, key: str,
                 pair: int | None) -> tuple[dict[str, Any], list[str]]:
    """The record of an asked subject: gold read back from the text (V5), competitors checked."""
    readings = read(stay)
    about = [r for r in readings if r.entry is asked]
    own = [r for r in about if r.own_current]
    if [r.kind for r in own[:1]] != ["statement"] or len(own) != 2 or own[1].kind == "statement" \
            or own[0].session >= own[1].session:
        raise GenerationError(f"{stay.key}: {asked.thing!r} needs a statement, then one "
                              f"follow-up: {[(r.session, r.kind) for r in own]}")
    first, follow = own
    gap = follow.session - first.session
    if not GAP_RANGE[0] <= gap <= GAP_RANGE[1]:
        raise GenerationError(f"{stay.key}: components {gap} sessions apart")
    value = first.value
    if follow.value != value:
        raise GenerationError(f"{stay.key}: the {follow.kind} names {follow.value!r}, not {value!r}")
    rivals = [r for r in about if not r.own_current]
    if any(r.value == value for r in rivals):
        raise GenerationError(f"{stay.key}: a competitor of {asked.thing!r} repeats the gold value")
    others = sorted({r.value for r in readings} - {value})
    components = [{"kind": "statement", "session_index": first.session, "memory_type": MEMORY_TYPE},
                  {"kind": follow.kind, "session_index": follow.session, "memory_type": MEMORY_TYPE}]
    rival = rivals[0].value if rivals else others[0]
    if follow.kind == "invalidation":
        if shape != "invalidated":
            raise GenerationError(f"{stay.key}: a {shape} fact reads as invalidated")
        answer = ANSWERS["invalidation"].format(value=value, event=follow.event)
        key_ = engine.answer_key(must_name=[value], stale=[value], wrong=others,
                                 expected_negative="no_longer")
        extra: dict[str, Any] = {"gold_components_load_bearing": True}
        wrong = [f"{value}, and that is still current.", f"{rival}, and that is still current.",
                 f"{rival}, but that no longer holds: you {follow.event}."]
    else:
        if shape != "still-valid":
            raise GenerationError(f"{stay.key}: a {shape} fact reads as re-affirmed")
        answer = ANSWERS["reaffirmation"].format(value=value)
        key_ = engine.answer_key(accepted=[value], wrong=others, expected_negative="still")
        extra = {"gold_components_redundant": True}
        wrong = [f"{value}, but that no longer holds: you dropped it.",
                 f"{rival}, and that is still current."]
    low, high = GAP_RANGE
    block = {"answer_key": key_, "gold_components": components,
             "dial": {"name": f"statement_to_{follow.kind}_sessions", "value": gap},
             "difficulty": 1 + (gap - low) * 5 // (high - low + 1), **extra}
    if pair is not None:
        block.update(pair_id=f"tme-{ABBREV}-p{pair:02d}",
                     arm="treatment" if shape == "invalidated" else "control")
    gold = [(r.session, stay.piece_turns[r.session].index(r.turn)) for r in own]
    rec = engine.record(stay, question_id=key, vertical=VERTICAL, shape=shape,
                        memory_type=MEMORY_TYPE,
                        question=QUESTION.format(noun=asked.noun, purpose=asked.purpose),
                        answer=answer, gold=gold, block=block)
    return rec, wrong


def _never_record(stay: engine.Haystack, near: Entry, key: str) -> tuple[dict[str, Any], list[str]]:
    """Abstention: the asked noun nowhere (substring), the valued near-miss read back."""
    text = "\n".join(t for session in stay.texts() for t in session).lower()
    for needle in (near.sibling, near.sibling.split()[-1]):
        if needle in text:
            raise GenerationError(f"{stay.key}: never-known noun {needle!r} occurs in the haystack")
    readings = read(stay)
    seen = [r for r in readings if r.entry is near and r.own_current]
    if not seen or seen[0].kind != "statement":
        raise GenerationError(f"{stay.key}: the near-miss {near.thing!r} is missing")
    answer = ANSWERS["never-known"].format(a=article(near.sibling), noun=near.sibling,
                                           purpose=near.purpose)
    key_ = engine.answer_key(wrong=sorted({r.value for r in readings}),
                             expected_negative="abstain")
    rec = engine.record(stay, question_id=key, vertical=VERTICAL, shape="never-known",
                        memory_type=MEMORY_TYPE,
                        question=QUESTION.format(noun=near.sibling, purpose=near.purpose),
                        answer=answer, gold=[], block={"answer_key": key_})
    return rec, [f"{seen[0].value}, and that is still current.", "You got rid of it in the end."]


# --------------------------------------------------------------------------------------------
# Build


@dataclass(frozen=True)
class Deal:
    """One haystack's share of the layout: its size, its subjects (one per lifecycle) and, for a
    never-known haystack, the near-miss among them whose twin the question asks for."""

    n: int
    entries: list[Entry]
    near: Entry | None = None


def _layout(rng: random.Random) -> dict[str, Deal]:
    """Per haystack its size and its subjects, drawn for the whole corpus at once: twin pairs are
    dealt to the haystacks least-used first, and of each pair the less-used twin (a haystack never
    holds both: one is the other's never-known question), so no subject crowds the corpus and
    question words stay rare; two fifths services and the rest items, so no haystack needs more
    people than the pool can give. A paired haystack counts twice, as two questions read it.

    A never-known haystack's near-miss is drawn here, uniformly among its subjects, and its twin
    (the asked noun, absent from this haystack) is counted as used by this haystack's one question.
    Why (red team 26): a known question's noun is in every haystack that uses it but its own
    question's, and so is now a never-known question's, so how many other haystacks name the asked
    noun is distributed alike for both (it was 0 for every never-known noun, >= 6 for every known)."""
    keys = ([(f"pair/{i:02d}", 2, 2) for i in range(N_PAIRS)]
            + [(f"solo/{i:02d}", 2, 1) for i in range(N_PAIRS, N_INVALIDATED)]
            + [(f"never-known/{i:02d}", 0, 1) for i in range(N_NEVER)])
    used: Counter[Entry] = Counter()
    pairs_of = {c: sorted({frozenset({e, SIBLINGS[e]}) for e in ENTRIES if e.category == c},
                          key=lambda p: sorted(e.noun for e in p))
                for c in ("service", "item")}
    out: dict[str, Deal] = {}
    for key, extra, readers in keys:
        n = rng.randint(*H_RANGE) + extra
        want = (n + 1) // 2
        services = rng.choice([want * 2 // 5, (want * 2 + 4) // 5])
        chosen = []
        for category, count in (("service", services), ("item", want - services)):
            deck = rng.sample(pairs_of[category], len(pairs_of[category]))
            for pair in sorted(deck, key=lambda p: sum(used[e] for e in p))[:count]:
                chosen.append(rng.choice(sorted(pair, key=lambda e: e.noun)))
        used.update({e: readers for e in chosen})
        near = rng.choice(chosen) if key.startswith("never-known/") else None
        out[key] = Deal(n, chosen, near)
    return out


def _rates(competition_by_shape: Mapping[str, float]) -> dict[str, float]:
    rates = {s: float(competition_by_shape[s]) for s in CALIBRATED_SHAPES}
    for shape, rate in rates.items():
        if not 0.0 <= rate <= 1.0:
            raise GenerationError(f"competition for {shape} must lie in [0, 1], got {rate}")
    solo = N_INVALIDATED - N_PAIRS
    return {**rates, "never-known": (N_PAIRS * rates["still-valid"] + solo * rates["invalidated"])
            / N_INVALIDATED}


def build(seed: int, competition_by_shape: Mapping[str, float], *,
          shapes: Sequence[str] = SHAPES) -> engine.Built:
    """The corpus (records in id order) and the rendering tally; every validity rule checked.

    Paired haystacks are rendered once for both arms; a shape's records never depend on which
    other shapes are built (the layout is drawn whole, ids are assigned over every shape)."""
    rates = _rates(competition_by_shape)
    tally = engine.Tally()
    sizes = _layout(derive_rng(seed, VERTICAL, "layout"))
    out: list[tuple[dict[str, Any], list[str]]] = []
    for index in range(N_INVALIDATED if {"invalidated", "still-valid"} & set(shapes) else 0):
        paired = index < N_PAIRS
        key = f"pair/{index:02d}" if paired else f"solo/{index:02d}"
        deal = sizes[key]
        plan = _plan(seed, key, deal.n, deal.entries,
                     rates["still-valid" if paired else "invalidated"])
        stay = _render(seed, plan, tally)
        treated = _asked(plan, "invalidation", (), f"invalidated/{index:02d}", seed)
        arms = [("invalidated", treated, f"invalidated/{index:02d}")]
        if paired:
            twin = _asked(plan, "reaffirmation", (treated,), f"still-valid/{index:02d}", seed)
            arms.append(("still-valid", twin, f"still-valid/{index:02d}"))
        for shape, entry, qid in arms:
            if shape in shapes:
                out.append(_gold_record(stay, entry, shape, qid, index + 1 if paired else None))
    for index in range(N_NEVER if "never-known" in shapes else 0):
        key = f"never-known/{index:02d}"
        deal = sizes[key]
        near = deal.near
        if near is None or SIBLINGS[near] in deal.entries:
            raise GenerationError(f"{key}: no near-miss whose twin the haystack lacks")
        plan = _plan(seed, key, deal.n, deal.entries, rates["never-known"])
        stay = _render(seed, plan, tally)
        out.append(_never_record(stay, near, key))
    records = [rec for rec, _ in out]
    for rec, wrong in out:
        engine.judge_gold(rec, wrong_answers=wrong)
    if set(shapes) >= set(SHAPES):
        engine.check_rarity(records, {r["question_id"]: engine.question_terms(
            r["question"], drop=CURRENCY_WORDS) for r in records})
    everything = [f"{s}/{i:02d}" for s, n in zip(SHAPES, (N_INVALIDATED, N_PAIRS, N_NEVER))
                  for i in range(n)]
    engine.assign_ids(records, seed=seed, vertical=VERTICAL, abbrev=ABBREV, universe=everything)
    return engine.Built(engine.finish(records), tally)


__all__ = ["ABBREV", "CALIBRATED_SHAPES", "CURRENCY_CLAUSE", "ENTRIES", "FRAMES", "GENERATOR",
           "GENERATOR_VERSION", "NEAR_SYNONYMS", "RECORDED_COMPETITION", "REVISION", "SEED",
           "SHAPES", "VERTICAL", "Reading", "build", "read"]
