"""TypedMemEval-WorkingMemory revision 3 (VERTICALS.md §2.4, Appendices A, C, D) over the v3 engine.

**The construct.** Recall of a stable profile fact against how far back it was stated: 12 fact
families x 5 distance rungs (shapes ``distance-8`` .. ``distance-60``), each cell its own haystack
of 65 sessions (G = 1, H = 64, one constant :data:`INTERVAL` between sessions and before the
question, so session and time distance agree in every cell). A family (:data:`FAMILIES`, e.g.
"clubs") has seven kinds; each rung asks a different one of them ("Which gym have I joined?",
"Which choir have I performed with?"), drawn, so no kind is asked twice.

**What v2 got wrong and what replaces it** (an outside audit beat v2 without memory):

1. *Gold at five fixed indices* (64 - d). Now a rung is a **window** of distances
   (:data:`WINDOWS`, d = sessions after the gold one): 8 -> 5..11, 15 -> 12..19, 25 -> 20..31,
   40 -> 32..47, 60 -> 48..63; the rung's twelve distances are dealt evenly over its window (every
   distance of the window equally often, up to one), families drawn onto them. Gold is never
   first or last. A position prior still finds the window (the rung *is* a position band: the
   construct), which is declared for that one rule in ``gates/declarations.py``; every other
   adversary binds. ``distance_sessions`` holds the realised d.
2. *Haystacks differing only in gold.* No two haystacks share a session: each cell draws and
   renders its own 65 sessions, so diffing haystacks finds nothing.
3. *The question's phrase only in gold.* Every session states one **own** fact (first person,
   present perfect) of a distinct kind from one bank of :data:`KINDS` (84 kinds, every asked one
   among them), so gold's construction is every session's, and the asked kind's noun and verb
   recur in **valued competitors** (:data:`COMPETITORS`). Since red team 19 a statement is a
   **skeleton** from one bank (:data:`OPENINGS`, "In case you wondered whether I have joined the
   gym Lumivo or not: ...") followed by a **stance tail** (:data:`TAILS`), and the skeleton bank is
   the same for own and competitor statements: the role lives only in the tail's words. Tails are
   twins: a row holds an own tail ("yeah, I did, and my sister felt rather pleased") and one per
   competitor form, ``holder`` ("nope, my sister did, and I felt rather curious"), ``declined``
   ("nope, I passed, ...") and ``hypothetical`` ("nope, I only asked, ..."), with one sorted
   word-length profile (stance word included), a stance word of one length, equal comma,
   negation, pronoun and question-word counts and no repeat of the kind's noun, checked at import
   (red team 19 beat an earlier bank 60/60 with characters per word; red team 20 the next one,
   0.889, with the count of three-letter words: "yes" against "no", matched on totals only). Every competitor denies the user's fact for its value; the
   assistant's ``suggestion`` ("Plenty of people who have joined a gym speak well of Lumivo.") is
   turned down in the reply. Earlier builds had competitors say "I nearly joined" (red team 13:
   "the one session saying *I have* + the question's verb phrase", 0.886). No competitor states an
   earlier or later state of the user's own fact, nor denies the kind: that would contradict it,
   which is Forgetting's variable (§2.4 rule 2). Frames name no type of thing (the value is only
   "the {noun} {value}"), so every frame fits people, places, products and shops alike.
4. *Split value pools.* Every value of a haystack (people, shops, places, products) comes from one
   :func:`..values.draw` per type, dealt to the statements in a shuffled order; the gold value is
   whichever lands on the asked own statement. Types fit kinds: a dentist is a person, a plumber a
   shop of its trade, a village a place, a gym or a laptop a product word.
5. *A slot skeleton.* Sessions are rendered by :func:`..conversation.render_haystack`, one persona
   per haystack: a session's own fact and its competitor are said in one sentence (joined by a
   semicolon, order drawn), the assistant's reply takes up both of them, in the order said
   (:func:`joint_topic`, wm10), from one bank for every user-said form (:data:`STANCE`: a reply per stance would give the stance away), then
   optional small talk (:data:`SMALL_TALK`); a suggestion is its own request-suggestion-reaction
   episode (reaction and close drawn as a pair), placed in a session drawn apart from what the
   session holds (:func:`_host_suggestions`, red team 29) and trailing its shared sentence; every
   session's own fact shares its sentence with a user-said competitor (red teams 18 and 19: a
   statement alone in its user turn was always own). No assistant leads (``lead_share=0``: their
   eligibility grows with the session's place). Kinds are facts a person holds several of at once (a plot in a village, a parking space
   in a town, a beach hut on an island), not homes one lives in (red team 13: "4-8 homes at once").

**Clusters and the dial.** As in Prospective v3 (:func:`..engine.clusters_for`): the asked kind
and K - 1 decoy kinds (uniform among the haystack's other sessions, as the value pools can pay)
each get ``count`` competitors, hosted by :func:`..engine.cluster_hosts` so every session carries
about one clustered mention; every session has exactly one competitor slot, and the slots no
cluster takes talk about kinds the haystack states nowhere else (each a different one). So every
session holds one own and one user-said competitor statement, whatever its role (a slot whose
form is the assistant's suggestion gets a user-said single of an unstated kind in its place, and
the suggestion goes to a drawn session). ``count = 1 + floor(dial x
(MAX_COUNT - 1) + u)``; the dial is searched once for the five rungs together
(:func:`search_dial`): a per-rung dial would confound competition with distance. The forms are
dealt evenly from :data:`FORMS` (closeness fixed).

**Validity rules** (:class:`GenerationError`): gold read back from the text (V5), exactly one own
statement of the asked kind, at the planned distance inside the rung's window; every planned
statement read back with its kind and form, no competitor stating the user's own fact; each value
in exactly one statement and of its kind's type; no pool word outside statements; constant interval,
no digits or dashes; question words in < 10 % of sessions corpus-wide; the judge grades gold correct
and every competitor's value not.

**Layout.** The kinds, families and statement banks are data in :mod:`.workingmemory_bank`; the
statement grammar both ways (filling a template, reading statements and gold back) in
:mod:`.workingmemory_grammar`; this module declares the vertical, lays out and plans the
haystacks, renders them and writes the records.
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

from ...retrieval.tokenizer import tokenize
from .. import calibration, conversation, engine, episodes_bank
from .. import values as value_pool
from ..primitives import GenerationError, derive_rng
from .workingmemory_bank import (
    BANNED, COMPETITORS, FAMILIES, FORMS, Kind, KIND_OF, KINDS, MISFITTING_REPLIES, OPENINGS,
    OWN, PRESUPPOSING_REPLIES, REQUESTS, STANCE, SUGGESTION_PAIRS, USER_FORMS,
)
from .workingmemory_grammar import (
    asked_kind, read_statements, Reading, recompute_gold, _fill,
)

VERTICAL, ABBREV, MEMORY_TYPE = "workingmemory", "wm", "workingmemory"
GENERATOR = "pytest_typedmemeval.generate.verticals.workingmemory"
GENERATOR_VERSION, REVISION, SEED = "3", 3, 20260504

DISTANCES: tuple[int, ...] = (8, 15, 25, 40, 60)
SHAPES: tuple[str, ...] = tuple(f"distance-{d}" for d in DISTANCES)
CALIBRATED_SHAPES: tuple[str, ...] = SHAPES
WINDOWS: dict[int, tuple[int, int]] = {8: (5, 11), 15: (12, 19), 25: (20, 31), 40: (32, 47),
                                       60: (48, 63)}
"""Per rung, the inclusive window of d (sessions between the gold session and the question). The
windows tile 5..63 without overlap, each holds its nominal d, gold is never first (d <= 63) or
last (d >= 5)."""

_DIAL = 0.875
RECORDED_COMPETITION: dict[str, float] = {shape: _DIAL for shape in SHAPES}
"""One competitor share for every rung, from :func:`search_dial` (``workingmemory.calibration.json``);
rebuilds read it and never search."""
MAX_COUNT = 12
"""Competitors per clustered kind at dial 1 (at dial 0: one)."""
SEARCH_METHOD = ("one dial for the five rungs: sweep (9 points over [0, 1]) then bisection "
                 "(6 steps max, tolerance 0.0125) on the pooled grid; a point counts when every "
                 "rung's whole lexical panel, phrase reader and subject-and-value reader stay under "
                 "their bounds; then the allowed points, nearest the target first, each built whole "
                 "and kept only if the adversary gate passes and every rung's dense and hybrid arms "
                 "stay under the ceiling")
DIFFICULTY_NOTE = ("declared, not validated: the band is the distance rung (1 = d 5-11 .. 5 = d "
                   "48-63), which is also the shape; BM25 cannot see position, so the reference "
                   "retriever is a flat null control (§2.4), not a validator")

N_SESSIONS = 65
H = N_SESSIONS - 1
INTERVAL = timedelta(days=2)
RARE_SHARE = 0.10


def _assert_layout() -> None:
    """Import-time checks of the declaration's layout against the banks: enough kinds for every
    session, every family longer than the rungs, and distance windows that tile without overlap."""
    assert N_SESSIONS <= len(KINDS)
    assert all(len(ks) > len(DISTANCES) for ks in FAMILIES.values())
    for d, (lo, hi) in WINDOWS.items():
        assert lo <= d <= hi and 1 <= N_SESSIONS - 1 - hi and lo >= 1
    spans = sorted(WINDOWS.values())
    assert all(a[1] + 1 == b[0] for a, b in zip(spans, spans[1:])), "windows must tile"


_assert_layout()


# --- layout -------------------------------------------------------------------------------------


class Spec(NamedTuple):
    """One cell: rung, family, the asked kind (a member of the family), realised distance."""

    key: str
    shape: str
    family: str
    asked: str
    distance: int

    @property
    def gold(self) -> int:
        return N_SESSIONS - 1 - self.distance


@lru_cache(maxsize=4)
def _layout(seed: int) -> tuple[Spec, ...]:
    """Per rung, its twelve distances dealt evenly over the window and drawn onto the families;
    per family, five of its seven kinds drawn onto the five rungs."""
    rng = derive_rng(seed, VERTICAL, "layout")
    asked = {family: rng.sample(kinds, len(DISTANCES)) for family, kinds in FAMILIES.items()}
    specs = []
    for r, (d, shape) in enumerate(zip(DISTANCES, SHAPES)):
        lo, hi = WINDOWS[d]
        window = list(range(lo, hi + 1))
        dealt: list[int] = []
        while len(dealt) < len(FAMILIES):
            dealt += rng.sample(window, len(window))
        dealt = dealt[:len(FAMILIES)]
        rng.shuffle(dealt)
        for family, distance in zip(FAMILIES, dealt):
            specs.append(Spec(f"{shape}/{family}", shape, family, asked[family][r], distance))
    return tuple(specs)


# --- one haystack ---------------------------------------------------------------------------------


@dataclasses.dataclass
class Said:
    """One planned statement (own or competitor) before its text exists."""

    session: int
    form: str
    kind: Kind
    template: str = ""
    holder: episodes_bank.Relation | None = None
    value: str = ""


POOL_ROOM = {"surname": len(value_pool.SURNAMES), "place": len(value_pool.PLACES),
             "brand": len(value_pool.BRANDS)}
"""Values one haystack can draw per pool (people and shops share the surname list: a shop is a
surname and a trade, and no surname is drawn twice in a haystack)."""
SINGLE_RESERVE = 8
"""Room a decoy cluster leaves in its pool for single competitors."""


def _pool(kind: Kind) -> str:
    return "surname" if kind.type in ("person", "shop") else kind.type


def _count(share: float, rng: Any) -> int:
    if not 0.0 <= share <= 1.0:
        raise GenerationError(f"the competitor share must lie in [0, 1], got {share}")
    return min(MAX_COUNT, 1 + math.floor(share * (MAX_COUNT - 1) + rng.random()))


def _values(rng: Any, every: Sequence[Said]) -> None:
    """Every value the haystack needs, one draw per type, dealt in a shuffled order (the draw
    cannot know which statement will answer). People first: shop stems are surnames."""
    taken: list[str] = []
    for kind_type in ("person", "shop", "place", "brand"):
        wanting = [said for said in every if said.kind.type == kind_type]
        if not wanting:
            continue
        try:
            drawn = value_pool.draw(rng, kind_type, len(wanting), taken=taken)  # type: ignore[arg-type]
        except ValueError as error:
            raise GenerationError(f"value pool: {error}") from error
        taken += drawn
        order = rng.sample(range(len(wanting)), len(wanting))
        for said, index in zip(wanting, order):
            value = drawn[index]
            if said.kind.trade:
                value = f"{value.split()[0]} {said.kind.trade}"
            said.value = value



def holdable(kind: Kind) -> bool:
    """Whether a relation can be said to hold the kind's value in the user's words ("nah, my sister
    has"): not when the verb names the user's own thing ("moored my boat at", "insured the house
    with", "treated myself to"), where "my sister has" would say she moored the user's boat (red
    team 20: 85 such clauses). Those kinds' holder slots say a decline instead."""
    return not re.search(r"\b(?:my|myself|the house)\b", kind.verb)


def _dressed(said: Said, stream: Any, persona: Any, holding: dict[str, set[Any]], *,
             always_relation: bool) -> Said:
    """A competitor's template and holder, drawn from its own ``stream`` (one place for the
    session's competitor and the extra one beside a suggestion). A holder needs a relation not
    yet holding the kind, else the statement is declined; ``always_relation`` gives every other
    form a relation too (the extra competitor's tails name one), else only a template naming
    ``{rel}`` draws one."""
    free = [r for r in range(len(persona.relations))
            if persona.relations[r] not in holding.get(said.kind.noun, set())]
    if said.form == "holder" and (not free or not holdable(said.kind)):
        said.form = "declined"
    bank = COMPETITORS[said.form]
    said.template = bank[int(stream.random() * len(bank))]
    if said.form == "holder":
        pick = free[stream.randrange(len(free))]
        holding.setdefault(said.kind.noun, set()).add(persona.relations[pick])
        said.holder = persona.holder(pick)
    elif always_relation or "{rel}" in said.template:
        said.holder = persona.holder(stream.randrange(len(persona.relations)))
    return said

def _plan(seed: int, spec: Spec, share: float) -> tuple[conversation.HaystackPlan, list[Said], int]:
    """The haystack's statements, times and question moment; returns the plan, every planned
    statement and the competitor count per clustered kind."""
    rng = derive_rng(seed, VERTICAL, spec.key, "plan")
    n = N_SESSIONS
    start = datetime(2025, 1, 6, 8, 0) + timedelta(days=rng.randint(0, 400),
                                                   minutes=rng.randint(0, 600))
    times = [start + i * INTERVAL for i in range(n)]
    persona = conversation.draw_persona(rng)
    asked = KIND_OF[spec.asked]
    others = rng.sample([k for k in KINDS if k is not asked], n - 1)
    kinds = others[:spec.gold] + [asked] + others[spec.gold:]
    forms = engine.deal(rng, FORMS, n)
    templates = engine.deal(rng, OWN, n)
    count = _count(share, rng)
    decoys = rng.sample([i for i in range(n) if i != spec.gold], n - 1)
    # Value budget per pool (people and shops share the surname list): a decoy whose cluster the
    # pools could not pay for is passed over for the next one in the drawn order. Bookkeeping over
    # kinds and types only: the asked kind's cluster is paid for like any kind's own statement.
    room = dict(POOL_ROOM)
    for kind in kinds:
        room[_pool(kind)] -= 1
    room[_pool(asked)] -= count
    chosen = [spec.gold]
    for i in decoys:
        if len(chosen) == engine.clusters_for(n, count):
            break
        if room[_pool(kinds[i])] >= count + SINGLE_RESERVE:
            room[_pool(kinds[i])] -= count
            chosen.append(i)
    if len(chosen) != engine.clusters_for(n, count):
        raise GenerationError(f"{spec.key}: the value pools cannot pay for "
                              f"{engine.clusters_for(n, count)} clusters of {count}")
    owns = tuple(chosen)
    capacity = [1] * n
    clusters = engine.cluster_hosts(derive_rng(seed, VERTICAL, spec.key, "clusters"), n, owns,
                                    count, capacity, what=f" in {spec.key}")
    target: dict[int, Kind] = {}
    for own, hosts in zip(owns, clusters):
        for host in hosts:
            target[host] = kinds[own]
    own = [Said(i, "own", kinds[i], templates[i]) for i in range(n)]
    for said in own:
        if "{rel}" in said.template:
            said.holder = persona.holder(derive_rng(seed, VERTICAL, spec.key, "own", said.session)
                                         .randrange(len(persona.relations)))
    rival: list[Said] = []
    # Single competitors (slots no cluster takes) are about kinds the haystack states nowhere, each
    # a different one while any is left: a single about another session's own kind made that pair
    # of sessions recur, and the slots no cluster takes are mostly the cluster owns' (gold's among
    # them), so "a session whose second statement recurs once" marked them (learned AUC 0.6-0.8).
    # A single also leaves a pool once it would run out.
    # Slots are served in a drawn order, not session order: served in session order, the late
    # slots got the reused kinds, and late sessions (near-rung gold among them) recurred more.
    absent = [k for k in KINDS if k not in kinds]
    used: set[str] = set()
    single: dict[int, Kind] = {}
    order = derive_rng(seed, VERTICAL, spec.key, "singles")
    for i in order.sample(range(n), n):
        if i in target:
            continue
        open_ = [k for k in absent if room[_pool(k)] > 0]
        fresh = [k for k in open_ if k.noun not in used] or open_
        single[i] = fresh[int(order.random() * len(fresh))]
        used.add(single[i].noun)
        room[_pool(single[i])] -= 1
    # A relation holds one value of a kind: a cluster's holder competitors name different relations
    # (red team 15: "a sister with two heat pumps" in 73 of 648 holder statements), and a holder
    # slot whose kind has used every relation of the persona says a decline instead.
    holding: dict[str, set[str]] = {}
    for i in range(n):
        stream = derive_rng(seed, VERTICAL, spec.key, "slot", i)
        kind = target[i] if i in target else single[i]
        rival.append(_dressed(Said(i, forms[i], kind), stream, persona, holding,
                              always_relation=False))
    # A slot whose form is the assistant's suggestion gets a user-said competitor in its place,
    # said in the own statement's sentence like every other session's: red teams 18 and 19 found
    # a statement alone in its user turn always the user's own (653 of 653). It is a single (a
    # kind the haystack states nowhere else, drawn as the other singles are), so no cluster and
    # no count changes; the suggestion itself is said in a drawn session (_host_suggestions).
    extra: dict[int, Said] = {}
    for i in order.sample(range(n), n):
        if rival[i].form != "suggestion":
            continue
        open_ = [k for k in absent if room[_pool(k)] > 0]
        if not open_:
            raise GenerationError(f"{spec.key}: the value pools cannot pay for a second competitor "
                                  f"in session {i}")
        fresh = [k for k in open_ if k.noun not in used] or open_
        kind = fresh[int(order.random() * len(fresh))]
        used.add(kind.noun)
        room[_pool(kind)] -= 1
        stream = derive_rng(seed, VERTICAL, spec.key, "extra", i)
        said = Said(i, USER_FORMS[int(stream.random() * len(USER_FORMS))], kind)
        extra[i] = _dressed(said, stream, persona, holding, always_relation=True)
    # Two statements said in one sentence never share their skeleton ("people keep asking ...;
    # people keep asking ..."): the competitor takes another skeleton, drawn among the rest, with
    # its own tail row (both roles' skeletons stay uniform over the bank).
    for i in range(n):
        partner = extra.get(i, rival[i])
        if partner.form in USER_FORMS and _opening_of(partner.template) == _opening_of(own[i].template):
            stream = derive_rng(seed, VERTICAL, spec.key, "opening", i)
            here = _opening_of(own[i].template)
            tail = _tail_of(partner.template)
            choice = [o for o in OPENINGS if o != here][int(stream.random() * (len(OPENINGS) - 1))]
            partner.template = choice.replace("{tail}", tail)
    partners = [extra.get(i, rival[i]) for i in range(n)]
    hosted = _host_suggestions(derive_rng(seed, VERTICAL, spec.key, "suggestion-hosts"), spec.key,
                               own, partners, [said for said in rival if said.form == "suggestion"])
    every = own + rival + [extra[i] for i in sorted(extra)]
    _values(rng, every)
    sessions = [_session(derive_rng(seed, VERTICAL, spec.key, "request", i), own[i], partners[i],
                         hosted.get(i)) for i in range(n)]
    plan = conversation.HaystackPlan(spec.key, sessions, times, times[-1] + INTERVAL, persona,
                                     BANNED, SMALL_TALK, lead_share=0.0)
    return plan, every, count


HOST_ATTEMPTS = 200
"""How many drawn matchings of suggestions onto their drawn host sessions
:func:`_host_suggestions` tries before drawing the host sessions again."""


def _host_suggestions(rng: Any, key: str, own: Sequence[Said], partners: Sequence[Said],
                      suggestions: Sequence[Said]) -> dict[int, Said]:
    """The session each assistant suggestion is said in, drawn **apart from what the sessions
    hold** (red team 29, issue 19): the host sessions are a uniform sample of the haystack's
    sessions, one suggestion each, drawn before anything about them is looked at, so a session
    hosts a suggestion at the same rate whether its shared sentence holds gold, another kind's own
    fact, a clustered competitor or a single. (Before, a suggestion took the competitor slot of its
    own session and a fresh single was said beside the own fact there, so a session holding a
    clustered kind's user-said competitor never held a suggestion, 0 of 2,800, against 75 of 426
    sessions holding a clustered kind's own fact: "the asked kind's clause whose session also asks
    'which ...?'" was gold 7 of 7 times it fired.) The suggestions are then matched onto the hosts
    in a drawn order that keeps a suggestion out of a session stating its own kind (the user would
    ask "which gym do people go for?" beside "I have joined the gym X"); that matching moves no
    suggestion in or out of a session. Sets each suggestion's ``session`` and returns them by
    session."""
    n = len(own)
    for _ in range(HOST_ATTEMPTS):
        hosts = rng.sample(range(n), len(suggestions))
        for _ in range(HOST_ATTEMPTS):
            order = rng.sample(list(suggestions), len(suggestions))
            if all(said.kind.noun not in (own[j].kind.noun, partners[j].kind.noun)
                   for said, j in zip(order, hosts)):
                for said, j in zip(order, hosts):
                    said.session = j
                return {j: said for said, j in zip(order, hosts)}
    raise GenerationError(f"{key}: no placement of {len(suggestions)} suggestions apart from the "
                          "sessions stating their kinds")


def _opening_of(template: str) -> str:
    """The skeleton of a user frame (:data:`OPENINGS`; their words before "{verb}" differ)."""
    return next(o for o in OPENINGS if template.startswith(o[:o.index("{verb}")]))


def _tail_of(template: str) -> str:
    """The tail of a user frame (what its skeleton's "{tail}" holds)."""
    opening = _opening_of(template)
    head, foot = opening.split("{tail}")
    assert template.startswith(head) and template.endswith(foot), template
    return template[len(head):len(template) - len(foot)]


def _statement(rng: Any, said: Said) -> conversation.Statement:
    """The :class:`..conversation.Statement` of a planned statement: text, the topic replies name,
    stance (a holder's own thing is "her gym", introduced by the statement itself)."""
    kind = said.kind
    text = _fill(said.template, kind, said.value, said.holder, said.form)
    if said.form == "suggestion":
        request = rng.choice(REQUESTS).format(a=kind.article, noun=kind.noun)
        reaction, close = (line.format(noun=kind.noun) for line in rng.choice(SUGGESTION_PAIRS))
        return conversation.Statement(text, f"the {kind.noun}", "assistant-offer-declined",
                                      role="assistant", request=request, reaction=reaction,
                                      close=close)
    return conversation.Statement(text, f"the {kind.noun}", STANCE[said.form],  # type: ignore[arg-type]
                                  avoid=PRESUPPOSING_REPLIES + MISFITTING_REPLIES)


def _session(rng: Any, own: Said, partner: Said, suggestion: Said | None = None
             ) -> list[conversation.Statement]:
    """One session's statements. ``MERGED`` (the dial-independent default): a user competitor is
    said in the same sentence as the own fact, joined by a semicolon, in a drawn order (two facts
    in one breath, as people do; the reply takes up both). One sentence, not two: a reader of
    sentences (the learned adversary's recurrence features are per sentence) could otherwise tell
    the session whose *own* fact recurs in the haystack (gold and the decoy owns) from one whose
    *competitor* does (the hosts), learned AUC 0.67 on the whole corpus. So a session is one
    statement episode and small talk, not two episodes with a change of subject between them
    (which made every session repeat an acknowledgement and a transition line: distinct sentences
    0.39). Every session's shared sentence holds its own fact and its user-said ``partner`` (red
    team 19: a statement alone in its turn was always own). An assistant ``suggestion``, placed in
    the session by :func:`_host_suggestions` whatever the sentence holds, keeps its own episode
    and *trails* the shared one (at a drawn place among the small talk that follows it): drawn
    before or after, the shared sentence of a suggestion session followed another episode half
    the time against a fifth in every other session, and the form reader's episode view read
    that lead-in before gold (distance-40 gold@1 0.42 against random 0.10). Placed so, the shared
    sentence's place is drawn alike in every session."""
    said = _merge(rng, _statement(rng, own), _statement(rng, partner))
    if suggestion is None:
        return [said]
    return [said, dataclasses.replace(_statement(rng, suggestion), trails=True)]


def _merge(rng: Any, mine: conversation.Statement, other: conversation.Statement
           ) -> conversation.Statement:
    """Two user statements in one sentence, joined by a semicolon, in a drawn order; the reply
    takes up **both**, in the order they were said (:func:`joint_topic`)."""
    first, last = (mine, other) if rng.random() < 0.5 else (other, mine)
    second = last.text if last.text.startswith("I ") else last.text[0].lower() + last.text[1:]
    joint = JOINTS[int(rng.random() * len(JOINTS))]
    return dataclasses.replace(last, text=f"{first.text[:-1]}; {joint}{second}",
                               topic=joint_topic(first.topic, last.topic))


def joint_topic(first: str, second: str) -> str:
    """What the assistant's reply names after a two-statement turn: both topics, in the order the
    user said them ("the glazier and the plumber"). Until wm10 the reply named only the last
    statement's topic (3,849 of 3,900 replies named the second item and never the first: a blind
    reader counted the half-ignored turn as awkward in 11 of 60 pairs). The order of the two
    statements is drawn apart from their roles (:func:`_merge`), so the reply's order says nothing
    of which is the user's own; the words come from the one "noted" bank of every role."""
    return f"{first} and {second}"


JOINTS: tuple[str, ...] = ("", "and ", "also, ", "oh, and ", "while I think of it, ")
"""What follows the semicolon between a session's two statements (red team 20: every session held
one bare two-clause sentence about two unrelated things); drawn, and the order of the two
statements is drawn apart from it, so the joint belongs to either role alike."""


SMALL_TALK: tuple[tuple[int, float], ...] = ((0, 0.6), (1, 0.4))
"""Small-talk episodes per session (the shared default is 0 / 1 / 2 at 0.25 / 0.5 / 0.25): 65
sessions per haystack and 60 haystacks are 3,900 sessions, four to nine times the other verticals'
corpora, drawing on the same small-talk bank; at the default, distinct sentences fall under 0.50."""
RENDER_ATTEMPTS = 200


def _render(seed: int, plan: conversation.HaystackPlan, tally: engine.Tally) -> engine.Haystack:
    """Rendered so that every session's turn count is shared by another session of the haystack
    (V7's role-sequence rule): a rendering where some length is unique is redrawn under the next
    key, whichever session it is, so the redraw knows nothing of gold."""
    for attempt in range(RENDER_ATTEMPTS):
        key = plan.key if attempt == 0 else f"{plan.key}~{attempt}"
        draft = engine.Tally()
        stay = conversation.render_haystack(seed, VERTICAL, dataclasses.replace(plan, key=key), draft)
        if min(Counter(len(session) for session in stay.sessions).values()) >= 2:
            engine.check_haystack(stay)
            tally.add(draft.counts())
            return dataclasses.replace(stay, key=plan.key, session_ids=engine.session_ids(
                seed, VERTICAL, plan.key, len(stay.sessions)))
    raise GenerationError(f"{plan.key}: no rendering in {RENDER_ATTEMPTS} where every turn count "
                          "occurs twice")


# --- records --------------------------------------------------------------------------------------


def _own_piece(plan: conversation.HaystackPlan, session: int) -> int:
    """The piece of ``session`` that holds the user's own statement: the first piece, except where
    an assistant suggestion's episode comes first (red team 18: ``has_answer`` sat on the
    suggestion's turn in 4 of 60 records)."""
    return next(p for p, statement in enumerate(plan.sessions[session]) if statement.role == "user")


def _records(seed: int, spec: Spec, share: float, tally: engine.Tally) -> dict[str, Any]:
    plan, planned, count = _plan(seed, spec, share)
    stay = _render(seed, plan, tally)
    texts = stay.texts()
    readings = read_statements(texts)
    expected = sorted(Reading(s.session, s.form, s.kind.noun, s.value,
                              s.holder.noun if s.holder else None) for s in planned)
    if readings != expected:
        raise GenerationError(f"{spec.key}: the text does not read back as planned")
    if len(texts) != N_SESSIONS or {b - a for a, b in zip(stay.times, stay.times[1:])} != {INTERVAL}:
        raise GenerationError(f"{spec.key}: not {N_SESSIONS} sessions at the constant interval")
    kind = KIND_OF[spec.asked]
    block = {"distance_sessions": spec.distance, "fact_family": spec.family,
             "gold_components": [{"kind": "statement", "session_index": spec.gold,
                                  "memory_type": MEMORY_TYPE}],
             "difficulty": DISTANCES.index(int(spec.shape.split("-")[1])) + 1,
             "dial": {"name": "valued_competitors", "value": count}}
    record = engine.record(stay, question_id=spec.key, vertical=VERTICAL, shape=spec.shape,
                           memory_type=MEMORY_TYPE, question=kind.question, answer="",
                           gold=[(spec.gold, _own_piece(plan, spec.gold))], block=block)
    gold = recompute_gold(record)
    lo, hi = WINDOWS[int(spec.shape.split("-")[1])]
    after = N_SESSIONS - 1 - gold.session
    if gold.session != spec.gold or not lo <= after <= hi:
        raise GenerationError(f"{spec.key}: gold at {gold.session}, {after} sessions before the "
                              f"question; the window is {lo}..{hi}")
    if len(gold.competitors) != count:
        raise GenerationError(f"{spec.key}: {len(gold.competitors)} competitors of the asked kind "
                              f"read back, {count} planned")
    record["answer"] = gold.value
    record["typedmemeval"]["answer_key"] = engine.answer_key(accepted=[gold.value],
                                                             wrong=list(gold.others))
    engine.judge_gold(record, wrong_answers=[*gold.competitors, *gold.others[:3],
                                             f"The {kind.noun} you have {kind.verb} is "
                                             f"{gold.competitors[0]}."])
    return record


def build(seed: int, competition_by_shape: Mapping[str, float], *,
          shapes: Sequence[str] = SHAPES) -> engine.Built:
    """The records of ``shapes`` in id order and the rendering tally (deterministic in seed and
    dial; a cell's record never depends on which other rungs are built)."""
    if unknown := sorted(set(shapes) - set(SHAPES)):
        raise GenerationError(f"unknown shapes {unknown}")
    tally = engine.Tally()
    records = [_records(seed, spec, float(competition_by_shape[spec.shape]), tally)
               for spec in _layout(seed) if spec.shape in shapes]
    if set(shapes) == set(SHAPES):
        engine.check_rarity(records, {r["question_id"]: tokenize(r["question"]) for r in records},
                            share=RARE_SHARE)
    engine.assign_ids(records, seed=seed, vertical=VERTICAL, abbrev=ABBREV,
                      universe=[spec.key for spec in _layout(seed)])
    return engine.Built(engine.finish(records), tally)


def search_dial(seed: int = SEED) -> dict[str, Any]:
    """The authoring search for the one dial the five rungs share. The sweep and bisection of
    :func:`..calibration.search_shape` run on the pooled grid (60 questions); a point's ceiling
    figure is the largest, over the rungs, of the whole lexical panel, the phrase reader's
    coverage@5 and the subject-and-value reader's gold@1 scaled to its bound (0.60 -> 0.90), so the
    search never lands where an adversary bound breaks. Returns what to record."""
    from ...corpus.models import QuestionRecord
    from ...gates import adversaries

    figures: dict[float, dict[str, Any]] = {}

    def evaluate(dial: float) -> tuple[float, float]:
        records = [QuestionRecord.model_validate(r)
                   for r in build(seed, {shape: dial for shape in SHAPES}).records]
        stays = adversaries.read_haystacks(records)
        row: dict[str, Any] = {}
        worst = 0.0
        for shape in SHAPES:
            mine = [h for h in stays if h.shape == shape]
            panel_max = calibration.panel_max_coverage(records, shape, whole=True) or 0.0
            phrase = sum(adversaries.tied_coverage(adversaries.phrase_scores(h), h.gold)
                         for h in mine) / len(mine)
            reader = sum(adversaries.tied_gold_at_1(adversaries.reader_scores(h), h.gold)
                         for h in mine) / len(mine)
            reference = calibration.shape_coverage(records, shape) or 0.0
            row[shape] = {"reference": round(reference, 6), "panel_max": round(panel_max, 6),
                          "phrase_reader": round(phrase, 6), "reader_gold_at_1": round(reader, 6)}
            worst = max(worst, reference, panel_max, phrase,
                        reader * calibration.SATURATION_CEILING / adversaries.READER_GOLD_AT_1)
        figures[dial] = row
        pooled = sum(r["reference"] for r in row.values()) / len(SHAPES)
        return pooled, worst

    search = calibration.search_shape(evaluate, "pooled")
    # Then the adversary gate on the whole corpus (its learned adversary trains across rungs, so it
    # cannot be folded into the per-point figure): the allowed points, nearest the target first,
    # are tried in turn and every step is recorded, so the record shows how much of the choice the
    # adversaries made (as Prospective's search does).
    from ...gates.declarations import declarations_for
    from ..primitives import dump_json
    from ..sidecar import corpus_from_text

    from ...retrieval import panel

    coverage = dict(search.points)
    allowed = sorted((d for d, c in search.points if search.panel_max[d] <= calibration.SATURATION_CEILING),
                     key=lambda d: (round(abs(coverage[d] - calibration.TARGET), 9), d))
    dense = panel.dense_retriever()
    steps: list[dict[str, Any]] = []
    chosen = search.dial
    for dial in allowed[:LEARNED_TRIES]:
        built = build(seed, {shape: dial for shape in SHAPES}).records
        corpus = corpus_from_text(dump_json(built), f"typedmemeval-{VERTICAL}-v{REVISION}", VERTICAL)
        verdict = adversaries.check(corpus, declared=declarations_for(VERTICAL))
        step: dict[str, Any] = {"dial": dial, "coverage": coverage[dial],
                                "refused_by_adversaries": sorted(r.line() for r in verdict.refusals)}
        # The dense and hybrid arms, too costly for every point of the sweep (one embedding pass
        # of 3,900 sessions), are measured on each point the walk tries: the first rebuild of
        # this revision was searched without them and its hybrid arm read 0.917 on one rung.
        over: list[str] = []
        if dense is not None:
            records = [QuestionRecord.model_validate(r) for r in built]
            rankings = panel.question_rankings(records, dense)
            arms = {panel.DENSE_NAME: panel.mean_by_shape(records, panel.coverage_from_rankings(
                        records, rankings)),
                    panel.HYBRID_NAME: panel.mean_by_shape(records, panel.hybrid_coverage(
                        records, panel.HybridRRF(dense), rankings))}
            step["dense_and_hybrid"] = {arm: {s: round(v, 6) for s, v in sorted(means.items())}
                                        for arm, means in arms.items()}
            over = sorted(f"{arm} {s} {v:.3f}" for arm, means in arms.items()
                          for s, v in means.items() if v > calibration.SATURATION_CEILING)
        else:
            step["dense_and_hybrid"] = "not measured (no [dense] extra)"
        step["refused_by_panel"] = over
        steps.append(step)
        if verdict.status == "passed" and not over:
            chosen = dial
            break
    return {"method": SEARCH_METHOD, "target": calibration.TARGET,
            "ceiling": calibration.SATURATION_CEILING, "k_ref": 5, "max_count": MAX_COUNT,
            "iterations": search.iterations, "pooled": search.as_dict(),
            "figures": {str(d): row for d, row in sorted(figures.items())},
            "adversary_steps": steps, "chosen": chosen,
            "by_shape": {s: {"dial": chosen, "coverage": figures[chosen][s]["reference"]}
                         for s in SHAPES}}


LEARNED_TRIES = 8
"""How many allowed points the adversary walk of :func:`search_dial` may try."""


__all__ = ["ABBREV", "CALIBRATED_SHAPES", "DISTANCES", "FAMILIES", "GENERATOR", "GENERATOR_VERSION",
           "H", "INTERVAL", "KINDS", "N_SESSIONS", "RECORDED_COMPETITION", "REVISION", "SEED",
           "SHAPES", "VERTICAL", "WINDOWS", "asked_kind", "build", "read_statements",
           "recompute_gold", "search_dial"]
