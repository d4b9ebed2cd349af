"""TypedMemEval-Episodic's planner: every haystack's statements drawn before any is rendered.

A plan draws every value first and then deals them to statements, so which statement — gold or
not — gets which value is decided after the draw; the asked subject is drawn among the haystack's
clustered subjects, and the competitor geometry (how many clustered subjects, how many competitors
each) follows from the dial. Kept apart from the declaration (:mod:`.episodic`), which renders the
plans, reads them back and writes the records.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .. import conversation, engine, values
from ..primitives import GenerationError, derive_rng
from .episodic_bank import (
    CLAIMS, LIST_SUBJECTS, RECOMMEND_SUBJECTS, ROLE, Subject, VENUES, VERTICAL,
)

H_RANGE, LIST_LENGTH = (15, 25), (4, 7)
KIND_DECK = {"assistant-stated": ("declined", "other", "declined", "other", "own")}
"""Competitor kinds, dealt in order from a shuffled deck per haystack (closeness is fixed here)."""


@dataclass(frozen=True)
class Planned:
    """One statement before rendering: kind, subject (or venue), value or claim, holder, role."""

    kind: str
    subject: Any
    value: str | None = None
    claim: str | None = None
    holder: str | None = None
    role: str = "user"


@dataclass
class HaystackDraft:
    key: str
    sessions: list[list[Planned]]
    asked: Any
    claim: str | None
    persona: conversation.Persona


def _deal_values(rng: Any, wanted: Sequence[Subject], taken: set[str]) -> list[str]:
    """One value per entry of ``wanted`` (a subject per statement). The values of each type (each
    trade, for shops) are drawn in one call from its pool, then dealt in a random order, so which
    statement, gold or not, gets which value is decided after the draw. ``taken`` values are never
    drawn (a shop's only against its own trade: another trade's "Pellow Roofing" is another value);
    a haystack's shops never share a stem."""
    out: dict[int, str] = {}
    here: set[str] = set()
    for kind, trade in sorted({(s.kind, s.trade or "") for s in wanted}):
        slots = [i for i, s in enumerate(wanted) if (s.kind, s.trade or "") == (kind, trade)]
        avoid = {v for v in taken if not trade or v.endswith(" " + trade)} | here
        drawn = values.draw(rng, kind, len(slots), taken=avoid)  # type: ignore[arg-type]
        drawn = [f"{v.split()[0]} {trade}" if trade else v for v in drawn]
        here |= set(drawn)
        rng.shuffle(drawn)
        out.update(zip(slots, drawn))
    return [out[i] for i in range(len(wanted))]


def _families(pool: Sequence[Subject]) -> dict[str, list[Subject]]:
    """The pool's subjects by noun (a family: one noun, several purposes), in pool order."""
    out: dict[str, list[Subject]] = {}
    for subject in pool:
        out.setdefault(subject.noun, []).append(subject)
    return out


def plan(seed: int, shape: str, index: int, asked: Any, extra: int | str, rate: float,
         taken: set[str], voiced: set[str] | None = None,
         usage: Counter[str] | None = None, golds: set[str] | None = None) -> HaystackDraft:
    """The haystack of question ``index``: sessions of planned statements, gold at random places.
    ``extra``: the asked list's length (list-order) or who makes the gold remark (attribution);
    ``taken``: values no draw may return (the lexical screen's forward exclusion); ``voiced``:
    the values of ``taken`` that user turns held (assistant-stated reuses them in user turns);
    ``usage``: how often the shape has clustered each family so far (updated); ``golds``: the
    shape's golds so far (never put in a user turn)."""
    if not 0.0 <= rate <= 1.0:
        raise GenerationError(f"competition rate must lie in [0, 1], got {rate}")
    key = f"{shape}/{index:02d}"
    rng = derive_rng(seed, VERTICAL, key, "plan")
    persona = conversation.draw_persona(rng)
    # one-word holders only: "your friend from work's dining chairs" reads badly (red team 27);
    # a persona holds at most one relation per noun, so at least one one-word holder is left
    holders = [persona.holder(i).noun for i in range(len(persona.relations))
               if " " not in persona.holder(i).noun]
    h = rng.randint(*H_RANGE)
    if shape == "participant-attribution":
        return _plan_attribution(rng, key, asked, str(extra), h, rate, persona)
    if shape == "assistant-stated":
        return _plan_recommendations(rng, key, asked, h, rate, persona, holders, taken,
                                     set() if voiced is None else voiced,
                                     Counter() if usage is None else usage,
                                     set() if golds is None else golds)
    return _plan_lists(seed, rng, key, asked, int(extra), h, rate, persona, taken)


def _plan_lists(seed: int, rng: Any, key: str, asked: Subject, length: int, h: int, rate: float,
                persona: conversation.Persona, taken: set[str]) -> HaystackDraft:
    """list-order: every session adds one person to one list, and every list is *clustered*.

    The asked list has ``length`` items; the others (drawn uniformly) have lengths drawn as the
    asked one's is, but for a last one that takes the rest of the haystack, so no list recurs more
    for being asked (with filler lists of 1-7 items the asked one was among the longest, and a
    classifier reading recurrence put gold first in half the questions). Every list gets ``c``
    ``considered`` side statements (the dial times the non-gold sessions, rounded at random), in
    sessions of other lists that pick in rounds, least-loaded first
    (:func:`..engine.cluster_hosts`); a session no list picked considers another of the
    haystack's lists, drawn uniformly, so every session holds two statements (a session length
    shared by too few sessions would break V7's role-sequence rule) and extra mentions favour no
    list."""
    lengths = {asked: length}
    # the other lists drawn uniformly: a sibling of the asked list (same noun) turns up as often as
    # any list's does (red team 7: when the asked list always had one, "a list with a sibling"
    # found gold question-blind at AUC 0.80)
    others = rng.sample([s for s in LIST_SUBJECTS if s != asked], len(LIST_SUBJECTS) - 1)
    used = 0  # non-gold sessions: h of them
    for subject in others:
        if used >= h:
            break
        lengths[subject] = min(rng.randint(*LIST_LENGTH), h - used)
        used += lengths[subject]
    if used < h:
        raise GenerationError(f"{key}: the list pool cannot fill {h} sessions")
    lists = list(lengths)
    mains = [s for s, k in lengths.items() for _ in range(k)]
    rng.shuffle(mains)
    n = len(mains)
    # at most one side statement per session (a rare three-statement session would have a
    # length too few sessions share, V7's role-sequence rule)
    # (so the count is the largest up to the dial's that the rounds can seat: it reads the list
    # lengths only, never which list is asked)
    count = min(int(rate * (n - length) + rng.random()), n // len(lists))
    barred = [frozenset(i for i, s in enumerate(mains) if s == subject) for subject in lists]
    while True:
        try:
            hosts = engine.cluster_hosts(derive_rng(seed, VERTICAL, key, "clusters"), n,
                                         [min(bar) for bar in barred], count, [1] * n,
                                         barred=barred)
            break
        except GenerationError:
            count -= 1
    sides: list[list[Subject]] = [[] for _ in range(n)]
    for subject, chosen in zip(lists, hosts):
        for i in chosen:
            sides[i].append(subject)
    for i, row in enumerate(sides):
        if not row:  # another list of the haystack, drawn alike for every list
            row.append(rng.choice([s for s in lists if s != mains[i]]))
    dealt = iter(_deal_values(rng, [*mains, *(s for row in sides for s in row)], taken))
    sessions = [[Planned("add", s, next(dealt), role=ROLE["add"])] for s in mains]
    for i, row in enumerate(sides):
        for subject in row:
            sessions[i].append(Planned("considered", subject, next(dealt),
                                       role=ROLE["considered"]))
        rng.shuffle(sessions[i])
    return HaystackDraft(key, sessions, asked, None, persona)


def attribution_degree(rate: float) -> int:
    """participant-attribution's dial as a grid degree k: every venue of the haystack is paired
    with k claims and every claim with k venues (rate 0.2 -> 3)."""
    return 2 + round(5 * rate)


C_MAX = 12
"""assistant-stated's competitors per clustered subject at most: a haystack's three statements per
session spend values of a type faster than the one-pool draws of a whole shape can afford beyond
it (the lexical screen keeps every value a user turn has held out of later draws)."""
CLUSTERED_PER_SESSION = 2
"""assistant-stated: every session holds three statements (one taken-up recommendation, two side
statements), exactly this many of them about clustered subjects."""


def recommendation_geometry(h: int, rate: float, u: float) -> tuple[int, int]:
    """assistant-stated's (clustered subjects P, competitors c per subject) for a drawn length
    ``h``: c is the dial times ``h - 1`` (rounded at random by ``u``), P the even number of clustered
    subjects (both purposes of P / 2 families) whose P (c + 1) statements fill a haystack of
    P (c + 1) / 2 sessions, gold's and the others, nearest ``h + 1`` within :data:`H_RANGE`."""
    low, high = H_RANGE
    c = max(1, min(C_MAX, int(rate * (h - 1) + u)))
    families = len(_families(RECOMMEND_SUBJECTS))
    fits = [p for p in range(2, 2 * families + 1, 2)
            if low <= p * (c + 1) // CLUSTERED_PER_SESSION - 1 <= high
            and p + p * (c + 1) // CLUSTERED_PER_SESSION <= len(RECOMMEND_SUBJECTS)]
    if not fits:
        raise GenerationError(f"no assistant-stated haystack of {H_RANGE} non-gold sessions holds "
                              f"clusters of {c} competitors")
    return min(fits, key=lambda p: (abs(p * (c + 1) // CLUSTERED_PER_SESSION - 1 - h), p)), c


def _side_hosts(rng: Any, n: int, owns: Sequence[int], count: int, key: str) -> list[list[int]]:
    """For each clustered subject (own session ``owns[x]``), the ``count`` sessions holding its side
    statements: one clustered side in every own session and two in every other, never two
    statements of one subject in a session. Drawn by rejection (a drawn slot order, each subject in
    a drawn turn taking the first free slot it may hold), so every valid assignment can come up."""
    slots = [i for i in range(n) for _ in range(1 if i in owns else 2)]
    for _ in range(200):
        order = rng.sample(slots, len(slots))
        chosen: list[list[int]] = [[] for _ in owns]
        turn = rng.sample(range(len(owns)), len(owns))
        ok = True
        for _round in range(count):
            for x in turn:
                pick = next((j for j, i in enumerate(order)
                             if i != owns[x] and i not in chosen[x]), None)
                if pick is None:
                    ok = False
                    break
                chosen[x].append(order.pop(pick))
            if not ok:
                break
        if ok and not order:
            return chosen
    raise GenerationError(f"{key}: no placement of {len(owns)} clusters of {count} competitors in "
                          f"{n} sessions")


def _plan_recommendations(rng: Any, key: str, asked: Subject, h: int, rate: float,
                          persona: conversation.Persona, holders: Sequence[str],
                          taken: set[str], voiced: set[str], usage: Counter[str],
                          golds: set[str]) -> HaystackDraft:
    """assistant-stated: every session holds one taken-up recommendation and two side statements,
    and exactly two of the three are about *clustered* subjects.

    P clustered subjects (both purposes of the asked subject's family and of P / 2 - 1 decoy
    families) each have an own session (its taken-up recommendation) and c side statements
    elsewhere; single subjects are named once each. An own session holds its taken-up
    recommendation, one clustered side and one single side; any other session a single taken-up
    recommendation and two clustered sides. So every session holds the same kinds in the same
    counts, and "the taken-up recommendation of a subject that recurs" narrows gold to P sessions,
    not one: the sibling purpose (the other-instance competitor) is itself clustered and taken up.
    Decoy families are the ones the shape has clustered least so far (``usage``, in a drawn order
    among ties), so no noun crowds the corpus. (The first v3 build clustered the asked subject only: question-blind AUC 0.90. The second gave
    K = 2..3 clusters, one clustered statement per session: red team 8 found gold in 0.35 of
    questions question-blind, the taken-up recommendation of the subject named most.)"""
    clusters, count = recommendation_geometry(h, rate, rng.random())
    n = clusters * (count + 1) // CLUSTERED_PER_SESSION
    families = _families(RECOMMEND_SUBJECTS)
    drawn = rng.sample([noun for noun in families if noun != asked.noun], len(families) - 1)
    nouns = [asked.noun, *sorted(drawn, key=lambda noun: usage[noun])[:clusters // 2 - 1]]
    usage.update(nouns)
    clustered = [s for noun in nouns for s in families[noun]]
    rest = [s for s in RECOMMEND_SUBJECTS if s.noun not in nouns]
    singles = rng.sample(rest, n)
    order = rng.sample(range(n), n)
    owns = order[:len(clustered)]
    hosts = _side_hosts(rng, n, owns, count, key)
    own_of = dict(zip(owns, clustered))
    sides_of: list[list[Subject]] = [[] for _ in range(n)]
    for subject, where in zip(clustered, hosts):
        for i in where:
            sides_of[i].append(subject)
    mains: list[Subject] = []
    for i in range(n):
        if i in own_of:
            mains.append(own_of[i])
            sides_of[i].append(singles[i])
        else:
            mains.append(singles[i])
    deck: list[str] = []
    rows: list[list[tuple[str, Subject]]] = []
    for i in range(n):
        row = [("taken", mains[i])]
        for subject in sides_of[i]:
            if not deck:
                deck = rng.sample(KIND_DECK["assistant-stated"],
                                  len(KIND_DECK["assistant-stated"]))
            row.append((deck.pop(), subject))
        rows.append(row)
    flat = [x for row in rows for x in row]
    said = [x for x in flat if ROLE[x[0]] == "assistant"]
    own = [x for x in flat if ROLE[x[0]] != "assistant"]
    dealt = dict(zip(map(id, said), _deal_values(rng, [s for _, s in said], taken)))
    here = set(dealt.values())
    dealt.update(zip(map(id, own), _deal_voiced(rng, [s for _, s in own], voiced,
                                                golds | here)))
    sessions: list[list[Planned]] = []
    for row in rows:
        planned = [Planned(kind, subject, dealt[id(x)], role=ROLE[kind],
                           holder=rng.choice(holders) if kind == "other" else None)
                   for x in row for kind, subject in (x,)]
        rng.shuffle(planned)
        sessions.append(planned)
    return HaystackDraft(key, sessions, asked, None, persona)


def _deal_voiced(rng: Any, wanted: Sequence[Subject], voiced: set[str], avoid: set[str]
                 ) -> list[str]:
    """Values for the user's own statements: those an earlier user turn of the shape already held
    first (drawn among them, none twice in a haystack), fresh ones from the one pool only when
    none is left; never one of ``avoid`` (earlier golds, this haystack's assistant values).

    Why: the lexical screen keeps every value a user turn has held out of later assistant draws,
    so fresh user values each round would drain a type's pool (a haystack of three statements a
    session needs a third of the brands). A user statement is the user's in plain text, so where
    its value was seen before says nothing a reader cannot see; assistant values, gold among them,
    stay one role-blind deal (:func:`_deal_values`)."""
    out: list[str] = []
    used = set(avoid)
    for subject in wanted:
        fits = sorted(v for v in voiced - used if values.value_type(v) == subject.kind and (
            not subject.trade or v.endswith(" " + subject.trade)))
        if fits:
            value = rng.choice(fits)
        else:
            value = _deal_values(rng, [subject], used)[0]
        used.add(value)
        out.append(value)
    return out


def _plan_attribution(rng: Any, key: str, venue: str, stated_by: str, h: int, rate: float,
                      persona: conversation.Persona) -> HaystackDraft:
    """A *regular grid* of remarks, each said twice, gold drawn after it.

    ``r`` venues (the asked one among them) and ``r`` claims; remark cells form a circulant k-regular
    pairing (venue i with claims i .. i + k - 1 mod r, rows and columns in drawn orders), so every
    remark shares its venue with k - 1 others and its claim with k - 1 others: no remark is the
    centre of the haystack's recurrence. (v3's first build gave gold k near-misses and k
    same-claims of its own and filler random pairs, so gold was the one remark whose venue and
    claim both recurred: question-blind AUC 0.73.) Every remark is said twice, in two sessions, by
    speakers drawn one by one, so a repeated remark, or one said by each of us, is no tell; the
    gold claim is drawn among the asked venue's k, and the gold remark's speakers are set to the
    question's answer (both by me, both by you, or one each). Competitors are the asked venue's
    other remarks (``near-miss``) and the gold claim's other venues (``same-claim``)."""
    k = attribution_degree(rate)
    fits = [r for r in range(k, len(VENUES) + 1) if H_RANGE[0] <= 2 * r * k - 2 <= H_RANGE[1]]
    if not fits:
        raise GenerationError(f"{key}: no {k}-regular remark grid has {H_RANGE} non-gold sessions")
    r = min(fits, key=lambda x: (abs(2 * x * k - 2 - h), x))
    venues = [venue, *rng.sample([v for v in VENUES if v != venue], r - 1)]
    rng.shuffle(venues)
    claims = rng.sample(CLAIMS, r)
    cells = [(venues[i], claims[(i + j) % r]) for i in range(r) for j in range(k)]
    claim = rng.choice([c for v, c in cells if v == venue])
    gold_roles = {"user": ["user", "user"], "assistant": ["assistant", "assistant"],
                  "both": rng.sample(engine.ROLES, 2)}[stated_by]
    sessions: list[list[Planned]] = []
    for v, c in cells:
        roles = gold_roles if (v, c) == (venue, claim) else [rng.choice(engine.ROLES)
                                                             for _ in range(2)]
        sessions += [[Planned("remark", v, claim=c, role=role)] for role in roles]
    rng.shuffle(sessions)
    return HaystackDraft(key, sessions, venue, claim, persona)
