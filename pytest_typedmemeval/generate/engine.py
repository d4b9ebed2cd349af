"""The one engine every revision-2 vertical is declared over (issue 8, VERTICALS.md Appendix C).

A vertical module says *what* its conversations state (facts, values, constructions, shapes,
answer keys) and plans each haystack as a :class:`HaystackDraft`: per session, the statement
pieces it carries and the topic they are about. Everything else happens here, the same way for
every vertical, and blind to which session any answer key will point at:

1. **Topical competition** (:func:`plan_mentions`), the calibration dial. Every session carries
   exactly one *mention*: a natural remark that names a topic of its haystack without saying
   anything about it ("My sister asked me about the physio for the shoulder over lunch."). A
   session never mentions its own topic. The dial ``rate`` is the share of sessions whose mention
   names an *asked* topic (handed out by :func:`dither`, so every group of sessions gets its share
   exactly); the rest mention another topic of the haystack. Gold and filler carry mentions at the
   same rate, so a mention is competition for a retriever and no tell for a feature.
2. **Rendering** (:func:`render`): each session is ``exchanges`` user/assistant exchanges; pieces
   go to random slots of their role, the mention to a random user slot, every other slot to a
   line of the shared natural banks of :mod:`.talk` (drawn without repetition inside a haystack):
   an assistant turn right after a statement acknowledges it plainly, one after a mention answers
   the mention, any other takes small talk.
   No word-list padding: parity comes from drawing gold and filler from the same distributions.
3. **Records** (:func:`record`): the question record with ``has_answer`` set on the turns that
   carry the gold pieces, which the vertical names by (session, piece) after rendering.
4. **Checks** shared by every vertical (:func:`check_haystack`, :func:`check_rarity`,
   :func:`judge_gold`) and **opaque ids** (:func:`assign_ids`): question numbers are a seeded
   permutation, so neither a suffix nor a number range tells a question's shape or gold.

A :class:`Tally` counts sentences as they are rendered, so the sidecar can report the share of
sentences that state a fact (Appendix C asks for it) from the generator's own bookkeeping.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal

from ..corpus.models import AnswerKey, QuestionRecord, format_corpus_date
from ..judge.mechanical import judge_answer
from ..judge.outcomes import Outcome
from ..retrieval.tokenizer import raw_tokens, tokenize
from . import talk
from .primitives import GenerationError, derive_rng, dither

Role = Literal["user", "assistant"]
ROLES: tuple[Role, Role] = ("user", "assistant")

_SENTENCE_END = re.compile(r"[.!?](?:\s|$)")


def sentence_count(text: str) -> int:
    """Sentences in ``text`` by terminal punctuation (every bank line and construction ends in one)."""
    return max(1, len(_SENTENCE_END.findall(text))) if text.strip() else 0


@dataclass(frozen=True)
class Piece:
    """Statement text a session carries, already rendered by the vertical's constructions.

    ``exchange`` pins the piece to one exchange (0-based), e.g. a user request and the assistant's
    recommendation answering it; ``None`` draws the exchange at random."""

    text: str
    role: Role = "user"
    exchange: int | None = None


@dataclass
class SessionDraft:
    """One session before rendering: its pieces and the topic they are about (``None``: none)."""

    topic: str | None
    pieces: list[Piece]


@dataclass
class HaystackDraft:
    """A planned haystack. ``topics`` maps every topic key to the phrase a mention uses for it
    ("the physio for the shoulder", "Belcor"); ``asked`` are the topics the haystack's questions
    ask about, whose mentions are the competition the dial sets."""

    key: str
    sessions: list[SessionDraft]
    topics: dict[str, str]
    asked: tuple[str, ...]
    times: list[datetime]
    question_time: datetime
    exchanges: int = 3


@dataclass
class Turn:
    role: Role
    text: str


@dataclass
class Haystack:
    """A rendered haystack: turns per session, and where each piece and mention landed."""

    key: str
    session_ids: list[str]
    times: list[datetime]
    question_time: datetime
    sessions: list[list[Turn]]
    piece_turns: list[list[int]]
    """Per session, the turn index of each of its pieces, in piece order."""
    mentions: list[str | None]
    """Per session, the topic its mention names (``None`` when the haystack had nothing to name)."""

    def texts(self) -> list[list[str]]:
        return [[turn.text for turn in session] for session in self.sessions]

    def turn_of(self, session: int, piece: int) -> Turn:
        return self.sessions[session][self.piece_turns[session][piece]]


@dataclass
class Tally:
    """Sentences rendered, and how many of them are statement pieces (fact-bearing)."""

    sentences: int = 0
    fact_sentences: int = 0
    mention_sentences: int = 0

    def counts(self) -> tuple[int, int, int]:
        """The three counters, for caching a built part of a corpus beside its records."""
        return self.sentences, self.fact_sentences, self.mention_sentences

    def add(self, counts: tuple[int, int, int]) -> None:
        self.sentences += counts[0]
        self.fact_sentences += counts[1]
        self.mention_sentences += counts[2]

    def as_stats(self) -> dict[str, float | int]:
        total = max(1, self.sentences)
        return {"sentences": self.sentences,
                "fact_sentence_share": round(self.fact_sentences / total, 6),
                "mention_sentence_share": round(self.mention_sentences / total, 6)}


def deal(rng: random.Random, bank: Sequence[str], n: int) -> list[str]:
    """``n`` constructions dealt from reshuffled copies of ``bank``: every form turns up evenly
    and the same one rarely twice in a row (gold and filler are dealt from one deck)."""
    out: list[str] = []
    while len(out) < n:
        out += rng.sample(list(bank), len(bank))
    return out[:n]


def clusters_for(n: int, count: int) -> int:
    """How many subjects of an ``n``-session haystack are *clustered* (an own statement plus
    ``count`` competitors each, the asked subject and its decoys alike): enough that the clusters
    cover about every session once, at least two.

    Why: a question-blind reader of within-haystack recurrence finds the one subject a haystack
    keeps coming back to. With the asked subject the only cluster (Episodic v3's first build:
    learned AUC 0.90) or one decoy beside it (Prospective's: 0.81), gold sat in the top few; with
    every session holding about one clustered mention, recurrence points at no subject."""
    return max(2, round(n / (count + 1)))


def cluster_hosts(rng: random.Random, n: int, owns: Sequence[int], count: int,
                  capacity: list[int], *, what: str = "",
                  barred: Sequence[frozenset[int]] | None = None) -> list[list[int]]:
    """For each clustered subject (own statement in session ``owns[x]``), the ``count`` sessions
    whose competitor slots talk about it; ``capacity[i]`` (free slots of session ``i``) is spent.

    The clusters pick in rounds, one session each per round, in a drawn turn order (no cluster,
    so not the asked one, gets first pick); each picks, from its own drawn order of the other
    sessions with a free slot, one holding the fewest clustered mentions so far (an own statement
    of a cluster counts as one), so every session ends with about one. ``barred[x]``: further
    sessions cluster ``x`` may not pick (a list's own items)."""
    orders = [rng.sample([i for i in range(n) if i != own], n - 1) for own in owns]
    if barred is not None:
        orders = [[i for i in order if i not in bar] for order, bar in zip(orders, barred)]
    turn = rng.sample(range(len(owns)), len(owns))
    load = [1 if i in owns else 0 for i in range(n)]
    chosen: list[list[int]] = [[] for _ in owns]
    for _ in range(count):
        for x in turn:
            free = [i for i in orders[x] if capacity[i] and i not in chosen[x]]
            if not free:
                raise GenerationError(f"no room for {count} competitors{what} in {n} "
                                      f"sessions ({len(owns)} clusters)")
            host = min(free, key=load.__getitem__)  # the first in the drawn order among ties
            capacity[host] -= 1
            load[host] += 1
            chosen[x].append(host)
    return chosen


@dataclass
class Scaffold:
    """The shared banks with a vertical's reserved words removed (lines naming a fact word would
    make small talk look like a statement)."""

    user: tuple[str, ...]
    assistant: tuple[str, ...]
    mentions: tuple[str, ...]
    mention_replies: tuple[str, ...]
    statement_replies: tuple[str, ...]

    @classmethod
    def without(cls, reserved: Iterable[str]) -> Scaffold:
        words = frozenset(w.lower() for w in reserved)
        banks = (talk.USER_TALK, talk.ASSISTANT_TALK, talk.MENTIONS, talk.ASSISTANT_MENTION_REPLIES,
                 talk.STATEMENT_REPLIES)
        kept = [talk.lines_without(bank, words) for bank in banks]
        for bank, lines in zip(("user", "assistant", "mentions", "mention replies",
                                "statement replies"), kept):
            if len(lines) < 15:
                raise AssertionError(f"reserved words leave only {len(lines)} {bank} lines")
        return cls(*kept)

    def words(self) -> frozenset[str]:
        every = (self.user + self.assistant + self.mentions + self.mention_replies
                 + self.statement_replies)
        return frozenset(w for line in every for w in raw_tokens(line.replace("{subject}", " ")))


# --------------------------------------------------------------------------------------------
# Planning helpers


def session_ids(seed: int, vertical: str, key: str, n: int) -> list[str]:
    ids = ["sess-" + hashlib.sha256(f"{seed}:{vertical}:{key}:{i}".encode()).hexdigest()[:10]
           for i in range(n)]
    if len(set(ids)) != n:
        raise GenerationError(f"{key}: session id collision")
    return ids


def daily_times(rng: random.Random, n: int, *, start: datetime = datetime(2025, 1, 6, 8, 0),
                start_days: int = 420, gap_days: tuple[int, int] = (1, 3),
                question_gap_days: tuple[int, int] = (1, 4)) -> tuple[list[datetime], datetime]:
    """Strictly increasing session times a few days apart, and a question time after the last."""
    moment = start + timedelta(days=rng.randint(0, start_days), minutes=rng.randint(0, 600))
    times: list[datetime] = []
    for _ in range(n):
        times.append(moment)
        moment += timedelta(days=rng.randint(*gap_days), minutes=rng.randint(-300, 300))
    asked = times[-1] + timedelta(days=rng.randint(*question_gap_days), minutes=rng.randint(0, 500))
    return times, asked


def plan_mentions(draft: HaystackDraft, rate: float, rng: random.Random) -> list[str | None]:
    """One mention per session of ``draft`` (see :func:`choose_mentions`)."""
    return choose_mentions([s.topic for s in draft.sessions], list(draft.topics), draft.asked,
                           rate, rng)


def choose_mentions(own: Sequence[str | None], topics: Sequence[str], asked: Sequence[str],
                    rate: float, rng: random.Random) -> list[str | None]:
    """Per session (``own`` = the topic its statements are about): an asked topic on a dithered
    ``rate`` share, else another topic of ``topics``.

    A session never mentions its own topic, whatever its gold status; which asked topic a session
    names rotates from a random start, so two asked topics compete alike. A vertical that plans a
    second kind of remark (an assistant aside) calls this again with its own stream.
    """
    if not 0.0 <= rate <= 1.0:
        raise GenerationError(f"competition rate must lie in [0, 1], got {rate}")
    asked = list(asked)
    others = [key for key in topics if key not in asked]
    eligible = [[a for a in asked if a != topic] for topic in own]
    counts = dither([rate if choices else 0.0 for choices in eligible], rng)
    turn = rng.randrange(max(1, len(asked)))
    out: list[str | None] = []
    for topic, choices, count in zip(own, eligible, counts):
        if count and choices:
            out.append(choices[turn % len(choices)])
            turn += 1
            continue
        pool = [key for key in others if key != topic]
        out.append(rng.choice(pool) if pool else None)
    return out


# --------------------------------------------------------------------------------------------
# Rendering


class _Drawer:
    """Draws bank lines without repetition inside one haystack (refilling when a bank runs out)."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self._left: dict[int, list[str]] = {}

    def draw(self, bank: tuple[str, ...]) -> str:
        left = self._left.get(id(bank))
        if not left:
            left = list(bank)
            self._rng.shuffle(left)
            self._left[id(bank)] = left
        return left.pop()


def render(seed: int, vertical: str, draft: HaystackDraft, rate: float, scaffold: Scaffold,
           tally: Tally | None = None) -> Haystack:
    """Render every session of ``draft`` through one gold-blind path (see the module docstring)."""
    n = len(draft.sessions)
    if len(draft.times) != n:
        raise GenerationError(f"{draft.key}: {len(draft.times)} times for {n} sessions")
    mentions = plan_mentions(draft, rate, derive_rng(seed, vertical, draft.key, "mentions"))
    rng = derive_rng(seed, vertical, draft.key, "render")
    drawer = _Drawer(rng)
    sessions: list[list[Turn]] = []
    piece_turns: list[list[int]] = []
    for session, mention in zip(draft.sessions, mentions):
        slots: list[list[str]] = [[] for _ in range(2 * draft.exchanges)]
        placed: list[int] = []
        for piece in session.pieces:
            offset = ROLES.index(piece.role)
            exchange = rng.randrange(draft.exchanges) if piece.exchange is None else piece.exchange
            if not 0 <= exchange < draft.exchanges:
                raise GenerationError(f"{draft.key}: piece pinned to exchange {exchange} of "
                                      f"{draft.exchanges}")
            index = 2 * exchange + offset
            slots[index].append(piece.text)
            placed.append(index)
        mention_slot: int | None = None
        if mention is not None:
            # A user slot of its own when there is one: a mention sharing a statement's turn would
            # mark that turn (and, for attribution, the speaker) by its length alone.
            free = [2 * e for e in range(draft.exchanges) if not slots[2 * e]]
            mention_slot = rng.choice(free) if free else 2 * rng.randrange(draft.exchanges)
            text = talk.render_mention(drawer.draw(scaffold.mentions), draft.topics[mention])
            slots[mention_slot].insert(rng.randrange(len(slots[mention_slot]) + 1), text)
        stated = set(placed)
        turns: list[Turn] = []
        for index, pieces in enumerate(slots):
            role = ROLES[index % 2]
            if not pieces:
                if role == "user":
                    pieces = [drawer.draw(scaffold.user)]
                elif index - 1 in stated:
                    pieces = [drawer.draw(scaffold.statement_replies)]
                elif mention_slot == index - 1:
                    pieces = [drawer.draw(scaffold.mention_replies)]
                else:
                    pieces = [drawer.draw(scaffold.assistant)]
            turns.append(Turn(role, " ".join(pieces)))
        sessions.append(turns)
        piece_turns.append(placed)
        if tally is not None:
            tally.sentences += sum(sentence_count(turn.text) for turn in turns)
            tally.fact_sentences += sum(sentence_count(piece.text) for piece in session.pieces)
            tally.mention_sentences += int(mention is not None)
    return Haystack(draft.key, session_ids(seed, vertical, draft.key, n), list(draft.times),
                    draft.question_time, sessions, piece_turns, mentions)


# --------------------------------------------------------------------------------------------
# Records, ids and checks


def record(stay: Haystack, *, question_id: str, vertical: str, shape: str, memory_type: str,
           question: str, answer: str, gold: Iterable[tuple[int, int]],
           block: Mapping[str, Any]) -> dict[str, Any]:
    """A question record; ``gold`` names (session, piece) pairs whose turns carry the answer."""
    gold_turns = {(s, stay.piece_turns[s][p]) for s, p in gold}
    sessions = [[{"role": turn.role, "content": turn.text, "has_answer": (s, t) in gold_turns}
                 for t, turn in enumerate(session)] for s, session in enumerate(stay.sessions)]
    gold_sessions = sorted({s for s, _ in gold_turns})
    return {
        "question_id": question_id,
        "question_type": shape,
        "question": question,
        "answer": answer,
        "question_date": format_corpus_date(stay.question_time),
        "haystack_session_ids": list(stay.session_ids),
        "haystack_dates": [format_corpus_date(moment) for moment in stay.times],
        "haystack_sessions": sessions,
        "answer_session_ids": [stay.session_ids[i] for i in gold_sessions],
        "typedmemeval": {"vertical": vertical, "shape": shape, "memory_type": memory_type,
                         **block},
    }


def answer_key(**fields: Any) -> dict[str, Any]:
    """An answer key without empty fields, validated."""
    key = {name: list(value) if isinstance(value, (list, tuple)) else value
           for name, value in fields.items() if value not in (None, (), [])}
    AnswerKey.model_validate(key)
    return key


def assign_ids(records: list[dict[str, Any]], *, seed: int, vertical: str, abbrev: str,
               universe: Iterable[str] | None = None) -> None:
    """Number questions by a seeded permutation: an id says nothing about shape or gold.

    ``records`` carry a provisional ``question_id`` that is unique (e.g. ``shape/index``); pair ids
    are kept. ``universe`` lists every provisional id of the whole corpus, so a record's number
    does not depend on which shapes were built (calibration builds a few). Records are renumbered
    in place and sorted by their final id.
    """
    provisional = [r["question_id"] for r in records]
    if len(set(provisional)) != len(provisional):
        raise GenerationError("assign_ids: provisional question ids are not unique")
    every = sorted(set(universe) if universe is not None else set(provisional))
    if not set(provisional) <= set(every):
        raise GenerationError("assign_ids: a record's provisional id is outside the universe")
    order = sorted(every, key=lambda q: hashlib.sha256(f"{seed}:{vertical}:{q}".encode())
                   .hexdigest())
    number = {q: i + 1 for i, q in enumerate(order)}
    for r in records:
        r["question_id"] = f"tme-{abbrev}-{number[r['question_id']]:03d}"
    records.sort(key=lambda r: r["question_id"])


def check_haystack(stay: Haystack, *, digits_allowed: bool = False) -> None:
    """Rules every vertical keeps: no dashes (nor digits unless amounts need them), session times
    strictly increasing and before the question."""
    joined = "\n".join(text for session in stay.texts() for text in session)
    if re.search(r"[\u2013\u2014]|\s-\s", joined) or (not digits_allowed and re.search(r"\d", joined)):
        raise GenerationError(f"{stay.key}: digits or dashes in the haystack")
    for earlier, later in zip(stay.times, stay.times[1:]):
        if not earlier < later:
            raise GenerationError(f"{stay.key}: session times not strictly increasing")
    if not stay.question_time > stay.times[-1]:
        raise GenerationError(f"{stay.key}: the question is not after the last session")


def check_rarity(records: Sequence[dict[str, Any]], question_words: Mapping[str, Iterable[str]],
                 *, share: float = 0.10) -> None:
    """Question subject words stay in fewer than ``share`` of all sessions corpus-wide, which the
    V7 relevance exemption relies on. ``question_words`` maps question id -> its subject words."""
    holding: Counter[str] = Counter()
    total = 0
    for r in records:
        for session in r["haystack_sessions"]:
            total += 1
            holding.update(set(raw_tokens(" ".join(t["content"] for t in session))))
    for qid, words in question_words.items():
        for word in words:
            if holding[word] >= share * total:
                raise GenerationError(f"{qid}: question word {word!r} is in {holding[word]} of "
                                      f"{total} sessions (>= {share:.0%})")


def question_terms(question: str, *, drop: Iterable[str] = ()) -> list[str]:
    """The reference tokens of a question, minus ``drop`` (frame words every question shares)."""
    dropped = set(drop)
    return [w for w in tokenize(question) if w not in dropped]


def judge_gold(record_: Mapping[str, Any], *, wrong_answers: Iterable[str] = ()) -> None:
    """The mechanical judge grades the gold answer correct (and each known-wrong answer wrong)."""
    key = AnswerKey.model_validate(record_["typedmemeval"]["answer_key"])
    verdict = judge_answer(record_["answer"], key)
    if verdict.outcome is not Outcome.CORRECT:
        raise GenerationError(f"{record_['question_id']}: the judge grades the gold answer "
                              f"{verdict.outcome.value} ({verdict.reason})")
    for answer in wrong_answers:
        verdict = judge_answer(answer, key)
        if verdict.outcome is Outcome.CORRECT:
            raise GenerationError(f"{record_['question_id']}: the judge grades the wrong answer "
                                  f"{answer!r} correct")


def finish(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Validate every record against the corpus schema and the judge; records are returned."""
    for r in records:
        QuestionRecord.model_validate(r)
        judge_gold(r)
    return records


@dataclass
class Built:
    """What a vertical's ``build`` returns: records in id order and the rendering tally."""

    records: list[dict[str, Any]]
    tally: Tally = field(default_factory=Tally)


__all__ = [
    "Built", "GenerationError", "Haystack", "HaystackDraft", "Piece", "ROLES", "Scaffold",
    "SessionDraft", "Tally", "Turn", "answer_key", "assign_ids", "check_haystack", "check_rarity",
    "choose_mentions",
    "daily_times", "finish", "judge_gold", "plan_mentions", "question_terms", "record", "render",
    "sentence_count", "session_ids",
]
