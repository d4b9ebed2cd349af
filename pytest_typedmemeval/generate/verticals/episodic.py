"""TypedMemEval-Episodic v3 (VERTICALS.md §2.2, Appendix D), declared over the shared engine.

Memory of the conversation as an event: who said a thing, and in which order things came up. v3
replaces v2's split value pools (gold and filler names from two halves of one syllable list) and
its content-free "asides" (the only source of difficulty) with **one pool per type**
(:mod:`..values`; a haystack draws every value first, then deals them to statements) and
**competitors that carry values**, rendered by the same frames as gold through the conversation
renderer (:mod:`..conversation`, one persona per haystack).

**Clusters, and sessions alike.** Every subject that competes is *clustered*, and a session's
make-up never says whether it is gold (the first v3 build clustered competitors around the asked
subject only, and gold was the centre of the haystack's recurrence: a question-blind classifier
reading within-haystack recurrence found it at AUC 0.90; :func:`..engine.clusters_for`).

- ``assistant-stated`` (20): "Which tent did you recommend for the festival weekend that I did not
  turn down?" (G = 1). Every session holds one taken-up recommendation and two side statements,
  and exactly two of the three are about clustered subjects (:func:`_plan_recommendations`): P
  clustered subjects (both purposes of the asked subject's family and of P / 2 - 1 decoy families,
  the least clustered so far) each have an own session (its taken-up recommendation) and c side
  statements in other sessions; singles are named once each. Side kinds come from
  :data:`KIND_DECK`: ``declined`` (the same request and recommendation frames, then the user
  turns it down; a declined suggestion *is* something "you recommended", so the question excludes
  it in words and the key lists its value as ``wrong``), ``other`` (asked in gold's words, then
  who it is for: "for your sister's festival weekend") and ``own`` (the user's own idea: the
  participant contrast). The sibling purpose's own taken-up recommendation is the other-instance
  competitor. Value types fit the subject: a product is a brand, a tradesman a shop of that
  trade, a place to stay a place. Take-ups, declines and pass-ons name the purpose in replies and
  closes of matched length; take-up and decline verbs share one word-length sequence
  (:data:`STANCE_PAIRS`).
- ``list-order`` (15): "In what order did I add names to the guest list for the housewarming?"
  Every session adds one person to one list and considers one person for another
  (:func:`_plan_lists`); every list has a length drawn as the asked one's (4..7; a last list takes
  the rest) and c ``considered`` side statements ("I have not added X to ..."), the rest of the
  side statements drawn uniformly among the other lists. Adds and names left off are length
  twins (:data:`LIST_PAIRS`) and take one reply bank (:data:`LIST_REPLY_STANCE`).
- ``participant-attribution`` (15): "Who said that the corner pharmacy only takes cards now: me or
  you or both of us?" One role-neutral remark (venue + claim) per session, on a regular grid
  (:func:`_plan_attribution`): r venues x r claims, each venue with k claims and each claim with
  k venues, each remark said twice by speakers drawn one by one; the gold remark is drawn from the
  asked venue's k and its two speakers are the answer's (5 / 5 / 5, G = 2). Competitors: the asked
  venue's other remarks (``near-miss``) and the gold claim at other venues (``same-claim``).
  Remarks carry no value: this shape's "value" is the speaker.

**The dial** (:data:`RECORDED_COMPETITION`): c, the competitors per clustered subject, is the dial
times the non-gold sessions, rounded at random per haystack (at most :data:`C_MAX`); the number of
clustered subjects follows from it (so they cover the haystack). Closeness is fixed by the kind
deck (per five competitors two declined and two other-holder recommendations, whose frames are
gold's, and one user statement).

**Rendering.** Statements become :class:`..conversation.Statement` episodes; assistant ones carry a
reaction and close that name their purpose (a take-up, or passing it on to the holder), declines come
from the bank. Sessions are rendered one by one (:func:`render`) so that a session whose length too
few sessions share can be drawn again, blind to gold: every gold role sequence then occurs among
its distractors.

**Hard errors:** gold recomputed from the text (V5) and every planned competitor read back with its
kind, none answering; each value in exactly one session, typed as its subject wants; the lexical
screen (no assistant-stated gold, as a whole value, in any user turn of the corpus: a value that
reached a user turn or a gold earlier in the shape is not drawn again, whatever role it would get);
question subject words in < 10 % of sessions; times strictly increasing, no digits; the judge
grades gold correct and every competitor value, wrong orders and the other options not correct.

**Layout.** The phrase banks and subject tables are data in :mod:`.episodic_bank`, the planner
(values drawn, then dealt) in :mod:`.episodic_plan`; this module declares the vertical, renders
the plans, reads them back and writes the records.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any, NamedTuple

from ...retrieval.tokenizer import tokenize
from .. import conversation, engine
from .. import episodes_bank as bank
from .. import values
from ..conversation import Statement
from ..primitives import GenerationError, derive_rng
from ..length_balance import length_sequence, length_sequence_imbalance
from .episodic_bank import (
    ADD, ASKING_FOR, ATTRIBUTION_FRAMES, CLAIMS, CLOSE_PAIRS, CLOSES, CONSIDERED, CONSTRUCTIONS,
    LIST_PAIRS, LIST_REPLY_AVOID, LIST_REPLY_STANCE, LIST_SUBJECTS, NOTED, OBJECTS, OWN,
    PASS_ON, PUBLIC_NEWS_AVOID, QUESTIONS, REASON_PAIRS, RECOMMEND, RECOMMEND_SUBJECTS, REMARK,
    REMARK_REQUESTS, REPLY_FRAMES, REPLY_LEADS, REQUESTS, ROLE, SHARED_CLOSES,
    SMALL_TALK_BANNED, STANCE, STANCE_ACTS, STANCE_BANKS, STANCE_CLOSES, STANCE_PAIRS,
    STANCE_REASONS, STANCE_VERBS, Subject, subject_words, VENUES, VERTICAL, _words,
)
from .episodic_plan import (
    attribution_degree, C_MAX, CLUSTERED_PER_SESSION, H_RANGE, HaystackDraft, KIND_DECK,
    LIST_LENGTH, plan, Planned, recommendation_geometry, _families,
)

# VERTICAL ("episodic") is declared in .episodic_bank: the planner derives its streams under it too
ABBREV = "epi"
GENERATOR = "pytest_typedmemeval.generate.verticals.episodic"
GENERATOR_VERSION = "3"
REVISION = 3
SEED = 20260503
SHAPES = ("assistant-stated", "list-order", "participant-attribution")
CALIBRATED_SHAPES = ("assistant-stated", "list-order")
RECORDED_COMPETITION: dict[str, float] = {"assistant-stated": 0.296875, "list-order": 0.0,
                                          "participant-attribution": 0.2}
"""Per shape, from ``typedmemeval generate --vertical episodic --search``: assistant-stated's and
list-order's competitor share (competitors per cluster over the non-gold sessions; list-order's
coverage is capped by G > K_ref, and its search lands near 0 since its side statements, one per
session, already consider names for the other lists).
participant-attribution's is a declared design rate, not searched: it sets the remark grid's
degree (:func:`attribution_degree`, 0.2 -> 3), and its question quotes the gold remark, so
sentence-level BM25 finds it at every dial (:data:`ATTRIBUTION_SWEEP`)."""
ATTRIBUTION_SWEEP = ((0.0, 1.0), (0.25, 1.0), (0.5, 1.0), (0.75, 0.9333), (1.0, 0.8))
"""participant-attribution's reference (Okapi) coverage over the dial, measured through
:func:`build` (revision 3, before the remark grid; the grid keeps gold's sentence the one holding
both quoted phrases, so the reason stands)."""
ATTRIBUTION_PANEL_SWEEP = ((0.0, 1.0), (0.25, 1.0), (0.5, 1.0), (0.75, 1.0), (1.0, 1.0))
"""The whole lexical panel's maximum over the same points: sentence-level BM25 finds the one
sentence holding both the quoted venue and the quoted claim at every dial, so no dial brings the
shape under the ceiling (the reason its calibration-ceiling exemption stands)."""
DIFFICULTY_NOTE = ("declared, not validated: list-order bands are the list length (coverage falls "
                   "with it only because G > K_ref), assistant-stated and participant-attribution "
                   "bands are the distance from the last gold session to the question")

N_BY_SHAPE = {"assistant-stated": 20, "list-order": 15, "participant-attribution": 15}
MEMORY_TYPE = "episodic"
CHOICES = ("me", "you", "both of us")
ANSWER_FOR = {"user": "me", "assistant": "you", "both": "both of us"}
ATTRIBUTION_INSTRUCTION = (
    "Answer from what was said in our conversations. Reply with exactly one of the options as the "
    "question words them: me (the person asking), you (the assistant), or both of us.")


def _statement(rng: Any, said: Planned, decks: dict[Any, list[int]] | None = None) -> Statement:
    """A planned statement in the next frame of its kind (gold and competitors share frames).
    ``decks``: a list statement's frame is dealt from a shuffled deck per list and kind, kept
    across the haystack, so each role of each list sees the frame pairs as evenly as its count
    allows (:func:`_list_frame`)."""
    frame = (_list_frame(rng, said, decks) if decks is not None and said.kind in LIST_KINDS
             else rng.choice(CONSTRUCTIONS[said.kind]))
    if said.kind == "remark":
        text = frame.format(subject=said.subject, claim=said.claim)
        if said.role == "user":
            return Statement(text, said.subject, "state", avoid=PUBLIC_NEWS_AVOID)
        slots = {"venue": said.subject}
        return Statement(text, said.subject, "state", role="assistant",
                         request=rng.choice(REMARK_REQUESTS),
                         reaction=rng.choice(NOTED).format(**slots),
                         close=rng.choice(CLOSES["remark"]).format(**slots))
    subject: Subject = said.subject
    speaker = "assistant" if said.role == "assistant" else "user"
    text = frame.format(subject=subject.phrase(said.holder, speaker=speaker), value=said.value)
    # a decline's reply and close name the purpose, as a take-up's do (see STANCE_ACTS)
    topic = (f"the {subject.purpose}" if said.kind == "declined"
             else subject.phrase(said.holder, speaker="assistant"))
    if said.role == "user":
        if said.kind in LIST_KINDS:
            return Statement(text, subject.phrase(), LIST_REPLY_STANCE, avoid=LIST_REPLY_AVOID)
        return Statement(text, subject.phrase(), STANCE[said.kind])  # type: ignore[arg-type]
    request = rng.choice(REQUESTS).format(indef=subject.indef, purpose=subject.purpose_phrase())
    if said.holder:  # asked in gold's words, then who it is for (see ASKING_FOR)
        request += " " + rng.choice(ASKING_FOR).format(holder=said.holder)
    slots = {"purpose": f"the {subject.purpose}", "holder": said.holder or ""}
    if said.holder:
        reaction = rng.choice(PASS_ON).format(**slots)
        close = rng.choice(CLOSES["other"]).format(**slots)
    else:
        reaction, close = _answer(rng, said.kind, slots["purpose"])
    return Statement(text, topic, STANCE[said.kind], role="assistant",  # type: ignore[arg-type]
                     holder=said.holder, request=request[:1].upper() + request[1:],
                     reaction=reaction, close=close)


LIST_KINDS = ("add", "considered")


def _list_frame(rng: Any, said: Planned, decks: dict[Any, list[int]]) -> str:
    """The next frame of a list statement's kind from its list's deck (refilled, shuffled, when
    empty). Why a deck: drawn independently, the frames of the asked list's few adds and names
    left off drifted apart by chance (in one build "decided to pick" 14 times against "decided to
    skip" 6 over the shape's 155 candidates, so a held-out reader of character length found gold
    at 0.76 against 0.52, though the twins' lengths are equal by construction). Dealt for every
    list and both kinds alike: gold-blind."""
    frames = CONSTRUCTIONS[said.kind]
    deck = decks.setdefault((said.kind, said.subject), [])
    if not deck:
        deck.extend(rng.sample(range(len(frames)), len(frames)))
    return frames[deck.pop()]


def _answer(rng: Any, kind: str, purpose: str) -> tuple[str, str]:
    """The user's reply to a recommendation, with its reason, and the assistant's close (see
    :data:`STANCE_ACTS`, :data:`REASON_PAIRS`, :data:`STANCE_CLOSES`): every part drawn from the
    stance's own bank, the banks of both stances alike in shape."""
    act = f"{rng.choice(STANCE_VERBS[kind])} {rng.choice(OBJECTS)}"
    reply = rng.choice(REPLY_FRAMES).format(lead=rng.choice(REPLY_LEADS), act=act, purpose=purpose)
    reason = rng.choice(STANCE_REASONS[kind])
    close = rng.choice(STANCE_CLOSES[kind]).format(purpose=purpose)
    return _with_reason(reply, reason), close


def _with_reason(reply: str, reason: str) -> str:
    """``reply`` (a sentence ending in a full stop) closed by the clause ``reason``."""
    return f"{reply[:-1]}, {reason}."


def banned_words(shape: str) -> frozenset[str]:
    """Words small talk must not use: every subject and venue word (so asked words stay rare and
    owned), the one-word answer-key names the leak gate scans for and, for
    participant-attribution, every content word of a claim (the question quotes its remark).
    Value words need no ban: no scaffold line holds a capitalised word."""
    units = [s.noun for s in RECOMMEND_SUBJECTS + LIST_SUBJECTS] + [
        s.purpose for s in RECOMMEND_SUBJECTS + LIST_SUBJECTS] + list(VENUES)
    words = frozenset().union(*(_words(u) for u in units)) | {"judge", "typedmemeval"} | \
        SMALL_TALK_BANNED
    if shape == "participant-attribution":
        words |= frozenset().union(*(tokenize(c) for c in CLAIMS))
    return words


LENGTH_FLOOR = {"assistant-stated": 3, "list-order": LIST_LENGTH[1] + 1,
                "participant-attribution": 3}
"""A session length (turn count; roles always alternate, so the length *is* the role sequence) must
be shared by at least this many sessions of its haystack: more than the shape's largest G, so
every gold session's role sequence occurs among its distractors (VERTICALS.md §4.4)."""
RERENDERS = 80


def render(seed: int, draft: HaystackDraft, tally: engine.Tally | None = None) -> engine.Haystack:
    """Render every session through :func:`..conversation.render_session` (one persona, one
    banned-word set), each from its own stream, so a session can be drawn again alone: a session
    whose length fewer than :data:`LENGTH_FLOOR` sessions share is re-drawn until it has a common
    one. Gold-blind: the rule reads lengths only, never which session will answer."""
    shape = draft.key.split("/")[0]
    rng = derive_rng(seed, VERTICAL, draft.key, "say")
    n = len(draft.sessions)
    times, asked_at = engine.daily_times(rng, n)
    decks: dict[Any, list[int]] = {}
    stays = [[_statement(rng, said, decks) for said in session] for session in draft.sessions]
    banned = banned_words(shape)

    def session(i: int, attempt: int) -> conversation.Rendered:
        return conversation.render_session(derive_rng(seed, VERTICAL, draft.key, "session", i,
                                                      attempt), stays[i], draft.persona, banned,
                                           fused=shape == "assistant-stated")

    rendered = [session(i, 0) for i in range(n)]
    counts = Counter(len(r.turns) for r in rendered)
    common = {k for k, c in counts.items() if c >= LENGTH_FLOOR[shape]} or {
        counts.most_common(1)[0][0]}
    for i in range(n):
        attempt = 0
        while len(rendered[i].turns) not in common:
            attempt += 1
            if attempt > RERENDERS:
                raise GenerationError(f"{draft.key}: session {i} never reaches a common length")
            rendered[i] = session(i, attempt)
    if tally is not None:
        for r, statements in zip(rendered, stays):
            tally.sentences += sum(engine.sentence_count(turn.text) for turn in r.turns)
            tally.fact_sentences += sum(engine.sentence_count(x.text) for x in statements)
    return engine.Haystack(draft.key, engine.session_ids(seed, VERTICAL, draft.key, n), times,
                           asked_at, [r.turns for r in rendered],
                           [r.statement_turns for r in rendered], [None] * n)


# --------------------------------------------------------------------------------------------
# Reading back (V5): every statement about the asked subject, from the rendered text alone


class Read(NamedTuple):
    session: int
    piece: int
    kind: str
    role: str
    value: str | None
    holder: str | None


_DECLINE = re.compile("|".join(
    re.escape(_with_reason(frame, "@"))
    .replace(r"\{lead\}", "(?:" + "|".join(map(re.escape, REPLY_LEADS)) + ")")
    .replace(r"\{act\}", "(?:" + "|".join(re.escape(a) for a in STANCE_ACTS["declined"]) + ")")
    .replace(r"\{purpose\}", ".+")
    .replace("@", "(?:" + "|".join(map(re.escape, STANCE_REASONS["declined"])) + ")")
    for frame in REPLY_FRAMES))
"""A user turn that turns an assistant suggestion down (a reply frame with a declining act, then a
decline's reason)."""
_VALUE = r"(?P<value>[A-Z][a-z]+(?: [A-Z][a-z]+)?)"
_HOLDERS = sorted({r.noun for r in bank.RELATIONS.values()}, key=len, reverse=True)


@lru_cache(maxsize=4096)
def _pattern(kind: str, subject: Any, claim: str | None = None) -> re.Pattern[str]:
    """Every frame of ``kind`` about ``subject`` (any holder), capturing value and holder."""
    parts = []
    for i, frame in enumerate(CONSTRUCTIONS[kind]):
        if isinstance(subject, Subject):
            holder = f"(?:your|my) (?P<holder{i}>" + "|".join(map(re.escape, _HOLDERS)) + ")'s "
            about = (re.escape(f"the {subject.noun} for ") + f"(?:the |{holder})"
                     + re.escape(subject.purpose))
        else:
            about = re.escape(subject)
        head = frame[:1]  # a fused change of subject lowers a frame's first letter
        frame_re = (f"[{head}{head.lower()}]" if head.isupper() and frame[1:2] != " " else
                    re.escape(head)) + re.escape(frame[1:])
        parts.append(frame_re.replace(r"\{subject\}", about)
                     .replace(r"\{claim\}", re.escape(claim or ""))
                     .replace(r"\{value\}", _VALUE.replace("<value>", f"<value{i}>")))
    return re.compile("|".join(f"(?:{p})" for p in parts))


def _groups(match: re.Match[str], name: str) -> str | None:
    found = [v for k, v in match.groupdict().items() if k.startswith(name) and v]
    return found[0] if found else None


def read(stay: engine.Haystack, kinds: Sequence[str], subject: Any,
         claim: str | None = None) -> list[Read]:
    """Statements of ``kinds`` about ``subject`` in the rendered text, with what the next turn
    says of them (an assistant recommendation the user turned down reads as ``declined``)."""
    found: list[Read] = []
    for s, session in enumerate(stay.sessions):
        for t, turn in enumerate(session):
            seen: set[tuple[int, int]] = set()
            for kind in kinds:
                for match in _pattern(kind, subject, claim).finditer(turn.text):
                    if match.span() in seen:
                        continue
                    seen.add(match.span())
                    if t not in stay.piece_turns[s]:
                        raise GenerationError(f"{stay.key}: a {kind} statement outside any piece")
                    value, holder = _groups(match, "value"), _groups(match, "holder")
                    read_kind = kind
                    if kind in ("taken", "declined", "other"):
                        nxt = session[t + 1].text if t + 1 < len(session) else ""
                        read_kind = "other" if holder else (
                            "declined" if _DECLINE.fullmatch(nxt) else "taken")
                    found.append(Read(s, stay.piece_turns[s].index(t), read_kind, turn.role,
                                      value, holder))
    return found


def check_values(stay: engine.Haystack, draft: HaystackDraft) -> None:
    """Every planned value occurs in exactly one session, typed as its subject wants."""
    joined = ["\n".join(turn.text for turn in session) for session in stay.sessions]
    for said in (x for session in draft.sessions for x in session if x.value):
        value: str = said.value  # type: ignore[assignment]
        holding = [i for i, text in enumerate(joined) if value in text]
        if len(holding) != 1:
            raise GenerationError(f"{stay.key}: {value!r} is in sessions {holding}")
        want, got = said.subject.kind, values.value_type(value)
        if got != want or (said.subject.trade and not value.endswith(said.subject.trade)):
            raise GenerationError(f"{stay.key}: {value!r} is a {got}, not a {want}")


def screen_assistant_stated(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """§2.2 rule 1, lexical pass: no assistant-stated gold, as a whole value, in any user turn."""
    users = "\n".join(t["content"] for r in records for s in r["haystack_sessions"] for t in s
                      if t["role"] == "user")
    golds = [r for r in records if r["typedmemeval"]["shape"] == "assistant-stated"]
    for r in golds:
        if re.search(r"\b" + re.escape(r["answer"]) + r"\b", users):
            raise GenerationError(f"{r['question_id']}: assistant-stated gold {r['answer']!r} "
                                  "reaches a user turn")
    return {"questions": len(golds), "user_turns": users.count("\n") + 1, "hits": 0}


# --------------------------------------------------------------------------------------------
# Records


def _gold(stay: engine.Haystack, shape: str, draft: HaystackDraft
          ) -> tuple[list[Read], list[Read], str, dict[str, Any]]:
    """Gold statements, competitor statements, the answer and the shape's key fields, read back
    from the text; every planned competitor must be read back with its kind."""
    asked = draft.asked
    planned = planned_rivals(draft)
    block: dict[str, Any]
    if shape == "assistant-stated":
        said = read(stay, ("taken", "own"), asked)
        gold = [x for x in said if x.kind == "taken"]
        rivals = [x for x in said if x.kind != "taken"]
        if len(gold) != 1 or gold[0].role != "assistant" or gold[0].value is None:
            raise GenerationError(f"{stay.key}: {len(gold)} recommendations of "
                                  f"{asked.phrase()!r} the user did not turn down")
        if any(x.role != ROLE[x.kind] for x in rivals):
            raise GenerationError(f"{stay.key}: a competitor in the wrong speaker's turn")
        answer, block = gold[0].value, {"stated_by": "assistant"}
    elif shape == "list-order":
        said = read(stay, ("add", "considered"), asked)
        gold = sorted(x for x in said if x.kind == "add")
        rivals = [x for x in said if x.kind != "add"]
        items = [x.value for x in gold]
        if len({x.session for x in gold}) != len(gold) or {x.role for x in said} != {"user"}:
            raise GenerationError(f"{stay.key}: the asked list is not one user item per session")
        if not LIST_LENGTH[0] <= len(items) <= LIST_LENGTH[1] or None in items:
            raise GenerationError(f"{stay.key}: the asked list has {len(items)} items")
        ordered = sorted(items)  # type: ignore[type-var]
        answer = ", ".join(items)  # type: ignore[arg-type]
        block = {"stated_by": "user", "gold_components_load_bearing": True,
                 "list_order": {"items": ordered,
                                "presented_order": [ordered.index(i) for i in items],
                                "session_indices": [gold[items.index(i)].session for i in ordered]}}
    else:
        said = read(stay, ("remark",), asked, draft.claim)
        gold = said
        roles = sorted({x.role for x in said})
        if len(said) != 2 or len({x.session for x in said}) != 2:
            raise GenerationError(f"{stay.key}: the remark is said {len(said)} times by {roles}, "
                                  "not twice in two sessions")
        stated_by = roles[0] if len(roles) == 1 else "both"
        rivals = [x._replace(kind="near-miss") for c in CLAIMS if c != draft.claim
                  for x in read(stay, ("remark",), asked, c)]
        rivals += [x._replace(kind="same-claim") for v in VENUES if v != asked
                   for x in read(stay, ("remark",), v, draft.claim)]
        answer = ANSWER_FOR[stated_by]
        block = {"stated_by": stated_by, "instruction": ATTRIBUTION_INSTRUCTION,
                 **({"gold_components_load_bearing": True} if stated_by == "both" else {})}
    got = {kind: sum(x.kind == kind for x in rivals) for kind in planned}
    if got != planned or len(rivals) != sum(planned.values()):
        raise GenerationError(f"{stay.key}: competitors read back as {got}, planned {planned}")
    return gold, rivals, answer, block


def planned_rivals(draft: HaystackDraft) -> dict[str, int]:
    """Planned competitor statements of the asked subject (venue, claim), by kind."""
    out: Counter[str] = Counter()
    for x in (x for session in draft.sessions for x in session):
        if x.kind == "remark":
            if (x.subject == draft.asked) != (x.claim == draft.claim):
                out["near-miss" if x.subject == draft.asked else "same-claim"] += 1
        elif x.subject == draft.asked and x.kind not in ("taken", "add"):
            out[x.kind] += 1
    return dict(out)


def make_record(stay: engine.Haystack, shape: str, draft: HaystackDraft, frame: str
                ) -> tuple[dict[str, Any], list[str]]:
    """The question record with gold read back from the text, and answers that must not pass."""
    gold, rivals, answer, block = _gold(stay, shape, draft)
    everything = [x.value for s in draft.sessions for x in s if x.value]
    others = [v for v in everything if v != answer and not (
        shape == "list-order" and v in answer.split(", "))]
    if shape == "list-order":
        items = answer.split(", ")
        wrong = [", ".join(reversed(items)), ", ".join(items[1:] + items[:1]),
                 *(f"{answer}, {x.value}" for x in rivals)]
        block.update(answer_key=engine.answer_key(list_order=items, wrong=others),
                     dial={"name": "list_length", "value": len(gold)},
                     difficulty=len(gold) - LIST_LENGTH[0] + 1)
    else:
        if shape == "assistant-stated":
            key = engine.answer_key(accepted=[answer], wrong=others)
            wrong = [x.value for x in rivals if x.value] + others[:2]
        else:
            wrong = [c for c in CHOICES if c != answer]
            key = engine.answer_key(accepted=[answer], wrong=wrong, choices=list(CHOICES))
        after = len(stay.sessions) - 1 - max(x.session for x in gold)
        block.update(answer_key=key, dial={"name": "sessions_after_gold", "value": after},
                     difficulty=1 + min(4, (5 * after) // len(stay.sessions)))
    kind = "item" if shape == "list-order" else None
    block["gold_components"] = [{"kind": kind or f"{x.role}_statement", "session_index": x.session,
                                 "memory_type": MEMORY_TYPE} for x in sorted(gold)]
    asked = draft.asked
    if shape == "participant-attribution":
        question = frame.format(remark=f"{asked} {draft.claim}")
    else:
        question = QUESTIONS[shape].format(noun=asked.noun, purpose=asked.purpose)
    rec = engine.record(stay, question_id=stay.key, vertical=VERTICAL, shape=shape,
                        memory_type=MEMORY_TYPE, question=question, answer=answer,
                        gold=[(x.session, x.piece) for x in gold], block=block)
    return rec, wrong


def _asked(layout: Any, shape: str) -> tuple[list[Any], list[int | str]]:
    """Per question of ``shape``: the asked subject (drawn from the one list the filler also uses)
    and the list length or the gold speaker."""
    count = N_BY_SHAPE[shape]
    if shape == "participant-attribution":
        extras: list[int | str] = [a for a in ("user", "assistant", "both") for _ in range(count // 3)]
        subjects: list[Any] = layout.sample(VENUES, count)
    else:
        pool = RECOMMEND_SUBJECTS if shape == "assistant-stated" else LIST_SUBJECTS
        subjects = [layout.choice(pool) for _ in range(count)] if len(pool) < count else \
            layout.sample(pool, count)
        if shape == "assistant-stated":
            # one question per family: both purposes of a clustered family recur, so a family
            # asked twice put its noun in over a tenth of the corpus's sessions
            subjects = [layout.choice(members) for members in layout.sample(
                list(_families(pool).values()), count)]
        if shape == "list-order":
            # at most two lists of one family asked: every list is clustered, so a family asked
            # three times put its noun in over a tenth of the corpus's sessions
            asked_of: Counter[str] = Counter()
            subjects = []
            for subject in layout.sample(pool, len(pool)):
                if asked_of[subject.noun] < 2 and len(subjects) < count:
                    subjects.append(subject)
                    asked_of[subject.noun] += 1
        extras = [LIST_LENGTH[0] + (i * (LIST_LENGTH[1] - LIST_LENGTH[0] + 1)) // count
                  for i in range(count)]
    layout.shuffle(extras)
    return subjects, extras


class Built(NamedTuple):
    """One question as built: its plan, its rendered haystack and its record (provisional id)."""

    draft: HaystackDraft
    stay: engine.Haystack
    record: dict[str, Any]


def build_shape(seed: int, shape: str, rate: float, tally: engine.Tally | None = None
                ) -> list[Built]:
    """Every question of ``shape``, each checked (values, V5 read-back, judge) as it is built."""
    layout = derive_rng(seed, VERTICAL, shape, "layout")
    taken: set[str] = set()
    voiced: set[str] = set()
    golds: set[str] = set()
    usage: Counter[str] = Counter()
    out: list[Built] = []
    for index, (asked, extra) in enumerate(zip(*_asked(layout, shape))):
        frame = layout.choice(ATTRIBUTION_FRAMES)
        draft = plan(seed, shape, index, asked, extra, rate, taken, voiced, usage, golds)
        stay = render(seed, draft, tally)
        engine.check_haystack(stay)
        check_values(stay, draft)
        rec, wrong = make_record(stay, shape, draft, frame)
        engine.judge_gold(rec, wrong_answers=wrong)
        out.append(Built(draft, stay, rec))
        # The lexical screen by construction: a value that reached a user turn is never drawn
        # for an assistant turn again (gold or not, so a value's role among the assistant's
        # never steers a draw), and a gold never reaches a user turn (user turns reuse the voiced
        # values and avoid golds). A gold stays in the assistant pool: excluding it from later
        # draws made gold values the ones found in fewest other haystacks (red team 10: the
        # value least found elsewhere was gold in 0.53 of questions, random 0.30).
        if shape == "assistant-stated":
            voiced |= {x.value for s in draft.sessions for x in s if x.value and x.role == "user"}
            golds.add(rec["answer"])
            taken.clear()
            taken |= voiced
    return out


def build(seed: int, competition_by_shape: Mapping[str, float], *,
          shapes: Sequence[str] = SHAPES) -> engine.Built:
    """The corpus (records in id order) and the rendering tally; every validity rule checked.
    A shape's records depend on the seed and its own dial only."""
    tally = engine.Tally()
    records: list[dict[str, Any]] = []
    asked_words: dict[str, list[str]] = {}
    for shape in (s for s in SHAPES if s in shapes):
        for built in build_shape(seed, shape, float(competition_by_shape[shape]), tally):
            records.append(built.record)
            asked_words[built.draft.key] = sorted(subject_words(built.draft.asked))
    screen_assistant_stated(records)
    if set(shapes) >= set(SHAPES):
        engine.check_rarity(records, asked_words)
    stubs = [{"question_id": f"{s}/{i:02d}"} for s in SHAPES if s not in shapes
             for i in range(N_BY_SHAPE[s])]
    engine.assign_ids(records + stubs, seed=seed, vertical=VERTICAL, abbrev=ABBREV)
    records.sort(key=lambda r: r["question_id"])
    return engine.Built(engine.finish(records), tally)


__all__ = [
    "ABBREV", "ADD", "ANSWER_FOR", "ASKING_FOR", "attribution_degree", "ATTRIBUTION_FRAMES",
    "ATTRIBUTION_INSTRUCTION", "ATTRIBUTION_PANEL_SWEEP", "ATTRIBUTION_SWEEP", "banned_words",
    "build", "build_shape", "Built", "C_MAX", "CALIBRATED_SHAPES", "check_values", "CHOICES",
    "CLAIMS", "CLOSE_PAIRS", "CLOSES", "CLUSTERED_PER_SESSION", "CONSIDERED", "CONSTRUCTIONS",
    "DIFFICULTY_NOTE", "GENERATOR", "GENERATOR_VERSION", "H_RANGE", "HaystackDraft",
    "KIND_DECK", "LENGTH_FLOOR", "length_sequence", "length_sequence_imbalance", "LIST_KINDS",
    "LIST_LENGTH", "LIST_PAIRS", "LIST_REPLY_AVOID", "LIST_REPLY_STANCE", "LIST_SUBJECTS",
    "make_record", "MEMORY_TYPE", "N_BY_SHAPE", "NOTED", "OBJECTS", "OWN", "PASS_ON", "plan",
    "Planned", "planned_rivals", "PUBLIC_NEWS_AVOID", "QUESTIONS", "read", "Read",
    "REASON_PAIRS", "RECOMMEND", "RECOMMEND_SUBJECTS", "recommendation_geometry",
    "RECORDED_COMPETITION", "REMARK", "REMARK_REQUESTS", "render", "REPLY_FRAMES",
    "REPLY_LEADS", "REQUESTS", "RERENDERS", "REVISION", "ROLE", "screen_assistant_stated",
    "SEED", "SHAPES", "SHARED_CLOSES", "SMALL_TALK_BANNED", "STANCE", "STANCE_ACTS",
    "STANCE_BANKS", "STANCE_CLOSES", "STANCE_PAIRS", "STANCE_REASONS", "STANCE_VERBS",
    "Subject", "subject_words", "VENUES", "VERTICAL",
]
