"""Conversation that responds: the revision-3 renderer every vertical shares (GENERATION.md v3).

The v2 renderer put a statement, a content-free *mention* and small talk into fixed slots and
picked each reply by the class of the turn before it; an outside audit found 97 % of adjacent turns
sharing no content word and no assistant question ever answered. Here a session is **one to three
episodes**, each an exchange about one thing:

- a *statement episode*: the user's statement (a vertical's sentence: gold or competitor, rendered
  by the same constructions), an assistant reply about that statement's topic, and, when the reply
  asks something, the user's answer and a short close;
- an *assistant statement episode* (the assistant recommends, suggests, lists): the user's request,
  the assistant's statement, the user's reaction and a close;
- a *small-talk episode* from :mod:`.episodes_bank`: opener, a reply that fits it, the follow-up
  question's answer, a close.

A user turn that opens a session's second or third episode first acknowledges the assistant's
close and says that the subject changes (:data:`ACKNOWLEDGEMENTS`, :data:`TRANSITIONS`), unless an
assistant lead asked about its topic. Episode order inside a session is drawn; a statement episode that follows another episode is, on a
fixed share, introduced by an assistant question about its topic that the statement then answers --
only when an earlier statement of the haystack introduced that topic (nothing is referred to before
it is introduced). Every session opens with a user turn and roles alternate.

**Gold-blind by construction.** :func:`render_haystack` takes sessions as lists of
:class:`Statement` with no gold flag anywhere: the vertical decides which statement answers a
question only after rendering, through the turn indices it gets back (``Haystack.piece_turns``).
One **persona** per haystack (:class:`Persona`: two or three relations with their pronouns, used by
small talk and by competitors' holders alike) keeps the people consistent across sessions.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from . import episodes_bank as bank
from .engine import Haystack, Role, Tally, Turn, sentence_count, session_ids
from .primitives import GenerationError, derive_rng

Stance = Literal["arranged", "intends", "other", "declined", "state",
                 "assistant-offer-declined", "noted"]

LEAD_SHARE = 0.4
"""Share of statement episodes, not first in their session and about a topic an earlier statement
of the haystack introduced, that answer an assistant question about it ("How are things with the
boiler at the cottage?")."""
SMALL_TALK_WEIGHTS = ((0, 0.25), (1, 0.5), (2, 0.25))
"""How many small-talk episodes a session carries beside its statements (drawn, gold-blind)."""

GENERIC_CLOSES: dict[str, tuple[str, ...]] = {
    "happy": ("That sounds lovely.", "Good to hear it.", "How nice."),
    "sad": ("I hope it gets easier.", "That sounds hard going.", "Take care of yourself."),
    "neutral": ("Fair enough.", "That makes sense.", "Good to know."),
}
"""Closes for an episode whose frame has none, by the frame's mood (so a close never cheers bad
news)."""

ACKNOWLEDGEMENTS: tuple[str, ...] = ("Thanks.", "Thank you.", "True.", "Quite.", "Ha, yes.",
                                     "Fair point.")
TRANSITIONS: tuple[str, ...] = (
    "Oh, something else while I think of it.", "On a different note.",
    "Changing the subject a little.", "Something else I meant to share.",
    "While I am here, another thing.", "Right, moving on.", "Oh, and another thing.",
    "Different topic, if that is all right.", "Here is something else on my mind.")
"""How a user opens a second or third episode of a session: an acknowledgement of the assistant's
close, then a change of subject said out loud (checked by :func:`.talk.problems` in the tests)."""
REQUEST_REACTIONS: tuple[str, ...] = (
    "Thanks, I will look into that.", "That is helpful, thank you.", "Great, I will have a look.",
    "Thank you, that gives me somewhere to start.", "Lovely, I will give that some thought.")
ASSISTANT_CLOSES: tuple[str, ...] = (
    "Happy to help.", "Any time.", "Glad it helps.", "Let me know how you get on.")


@dataclass(frozen=True)
class Statement:
    """One fact-bearing utterance, gold or competitor alike (the renderer never knows which).

    ``text`` is the vertical's rendered construction; ``topic`` the lowercase noun phrase a reply
    may name ("the boiler at the cottage"); ``stance`` picks the reply bank (see
    :data:`.episodes_bank.STATEMENT_REPLIES`); ``holder`` names another person's arrangement for
    stance ``other`` ("your sister"). For ``role="assistant"`` the statement is the assistant's
    and ``request`` is the user turn it answers (required); ``reaction`` and ``close``, when given,
    replace the drawn generic user reaction and assistant close (a vertical whose assistant
    statements would otherwise all end on the same nine lines can have them name the topic)."""

    text: str
    topic: str
    stance: Stance = "arranged"
    role: Role = "user"
    holder: str | None = None
    request: str | None = None
    reaction: str | None = None
    close: str | None = None
    ask: bool | None = None
    """For a user statement: whether the assistant's reply asks a question (True), does not
    (False) or is drawn among all of its stance's replies (None, the default)."""
    avoid: tuple[str, ...] = ()
    """For a user statement: fragments whose replies are not drawn (see
    :func:`.episodes_bank.statement_reply`; empty, the default, draws among all)."""
    trails: bool = False
    """Whether the statement's episode comes after every other statement episode of its session
    (at a drawn place among what follows them) instead of taking part in the shuffle. For a
    vertical whose sessions hold one statement episode or, sometimes, a second one: with both in
    the shuffle, the first one is preceded by an episode more often in the two-episode sessions
    (WorkingMemory: gold's sentence sat there in a sixth of haystacks, a competitor's never, and
    the form reader's episode view read the change-of-subject sentence before it). ``False``, the
    default, shuffles every episode alike (the rng draws are unchanged)."""

    def __post_init__(self) -> None:
        if self.role == "assistant" and not self.request:
            raise GenerationError(f"an assistant statement needs the request it answers: {self.text!r}")
        if self.stance == "other" and not self.holder:
            raise GenerationError(f"a statement about someone else's needs its holder: {self.text!r}")


@dataclass(frozen=True)
class Persona:
    """One user per haystack: the relations small talk and competitors may name."""

    relations: tuple[str, ...]

    def holder(self, index: int) -> bank.Relation:
        return bank.RELATIONS[self.relations[index % len(self.relations)]]


def draw_persona(rng: random.Random, *, size: tuple[int, int] = (2, 3)) -> Persona:
    """Two or three relations, drawn once per haystack."""
    keys = sorted(bank.RELATIONS)
    chosen: list[str] = []
    for key in rng.sample(keys, len(keys)):
        noun = bank.RELATIONS[key].noun
        if all(bank.RELATIONS[k].noun != noun for k in chosen):  # one neighbour, not two
            chosen.append(key)
        if len(chosen) == rng.randint(*size) or len(chosen) == size[1]:
            break
    return Persona(tuple(chosen))


@dataclass
class Rendered:
    """One session's turns and, per statement in input order, the turn that carries it."""

    turns: list[Turn]
    statement_turns: list[int]


def _weighted(rng: random.Random, weights: Sequence[tuple[int, float]]) -> int:
    point, total = rng.random(), 0.0
    for value, weight in weights:
        total += weight
        if point < total:
            return value
    return weights[-1][0]


def _close(rng: random.Random, mood: str) -> str:
    return rng.choice(GENERIC_CLOSES.get(mood, GENERIC_CLOSES["neutral"]))


def _small_talk(rng: random.Random, persona: Persona, banned: frozenset[str],
                topics_used: set[str]) -> list[tuple[Role, str]]:
    topics = [t for t in bank.TOPICS if t not in topics_used] or list(bank.TOPICS)
    for topic in rng.sample(topics, len(topics)):
        try:
            turns = bank.small_talk_episode(rng, topic, persona.relations, banned=banned)
        except ValueError:
            continue  # every frame of this topic uses a banned word: try the next topic
        topics_used.add(topic)
        return _even(rng, [(role, text) for role, text in turns], "neutral")
    raise GenerationError("no small-talk topic is left once the vertical's words are banned")


def _even(rng: random.Random, turns: list[tuple[Role, str]], mood: str) -> list[tuple[Role, str]]:
    """An episode ends on an assistant turn, so the next one opens with the user's."""
    if turns and turns[-1][0] == "user":
        turns.append(("assistant", _close(rng, mood)))
    return turns


def _statement_episode(rng: random.Random, statement: Statement) -> tuple[list[tuple[Role, str]], int]:
    """The episode's turns and the index (within the episode) of the statement's turn."""
    if statement.role == "assistant":
        assert statement.request is not None
        if statement.stance == "assistant-offer-declined" and statement.reaction is None:
            # the user turns the suggestion down in one of the bank's replies
            return [("user", statement.request), ("assistant", statement.text),
                    *bank.statement_reply(rng, statement.stance, statement.topic)], 1
        turns: list[tuple[Role, str]] = [
            ("user", statement.request), ("assistant", statement.text),
            ("user", statement.reaction or rng.choice(REQUEST_REACTIONS)),
            ("assistant", statement.close or rng.choice(ASSISTANT_CLOSES))]
        return turns, 1
    reply = bank.statement_reply(rng, statement.stance, statement.topic, holder=statement.holder,
                                 ask=statement.ask, avoid=statement.avoid)
    return _even(rng, [("user", statement.text), *reply], "neutral"), 0


def render_session(rng: random.Random, statements: Sequence[Statement], persona: Persona,
                   banned: frozenset[str], introduced: set[str] | None = None, *,
                   small_talk: Sequence[tuple[int, float]] = SMALL_TALK_WEIGHTS,
                   lead_share: float = LEAD_SHARE, fused: bool = False) -> Rendered:
    """One session: its statements' episodes and drawn small talk, in a drawn order.

    ``introduced`` holds the topics earlier statements of the haystack named (updated in place):
    an assistant lead may ask about a topic only once it has been introduced. ``fused``: a change
    of subject runs into the sentence it introduces ("On a different note, could you recommend
    ..."), as it does in speech, instead of standing as a sentence of its own (sessions of three
    statements spent a quarter of their sentences on the same nine transitions)."""
    introduced = set() if introduced is None else introduced
    small = _weighted(rng, small_talk)
    if not statements and small == 0:
        small = 1
    if len(statements) + small > 3:
        small = max(0, 3 - len(statements))
    trailing = [i for i, statement in enumerate(statements) if statement.trails]
    kinds: list[int | None] = [*(i for i in range(len(statements)) if i not in trailing),
                               *([None] * small)]
    rng.shuffle(kinds)
    for i in trailing:
        last = max((p for p, k in enumerate(kinds) if k is not None), default=-1)
        kinds.insert(rng.randint(last + 1, len(kinds)), i)
    turns: list[Turn] = []
    where: dict[int, int] = {}
    topics_used: set[str] = set()
    for kind in kinds:
        led = False
        if kind is None:
            episode = _small_talk(rng, persona, banned, topics_used)
            offset = None
        else:
            statement = statements[kind]
            episode, offset = _statement_episode(rng, statement)
            # No lead for someone else's statement: its topic ("her shoulder") would be named
            # before the holder is introduced; none for a topic no earlier statement introduced
            # (the rng draw is kept, so other bytes do not move).
            known = statement.topic in introduced
            introduced.add(statement.topic)
            if turns and statement.role == "user" and rng.random() < lead_share \
                    and statement.holder is None and known:
                lead = bank.render(rng.choice(bank.ASSISTANT_LEADS), {"topic": statement.topic})
                last = turns[-1]
                turns[-1] = Turn(last.role, f"{last.text} {lead}")
                led = True
        if turns and not led and episode and episode[0][0] == "user":
            # A new episode after the assistant's close: the user acknowledges it and says the
            # subject changes, as people do, instead of jumping (a blind reader marked 9 of 60
            # sampled pairs misfit for exactly that jump).
            role, text = episode[0]
            thanks, change = rng.choice(ACKNOWLEDGEMENTS), rng.choice(TRANSITIONS)
            if fused:
                change, text = change[:-1] + ",", _lower_first(text)
            episode = [(role, f"{thanks} {change} {text}"), *episode[1:]]
        start = len(turns)
        turns.extend(Turn(role, text) for role, text in episode)
        if kind is not None and offset is not None:
            where[kind] = start + offset
    for index, turn in enumerate(turns):
        if turn.role != ("user", "assistant")[index % 2]:
            raise GenerationError(f"turn {index} breaks the user/assistant alternation")
    return Rendered(turns, [where[i] for i in range(len(statements))])


def _lower_first(text: str) -> str:
    """``text`` with its first letter lowered, unless it opens with "I" or a name."""
    first = text.split(" ", 1)[0].rstrip(",")
    if first in ("I", "I'm") or not first[:1].isupper() or not first[1:].islower():
        return text
    return text[:1].lower() + text[1:]


@dataclass
class HaystackPlan:
    """A haystack before rendering: per session its statements (gold and competitors alike)."""

    key: str
    sessions: list[list[Statement]]
    times: list[datetime]
    question_time: datetime
    persona: Persona
    banned: frozenset[str] = field(default_factory=frozenset)
    """Words small talk must not use (the vertical's subject and value vocabulary)."""
    small_talk: tuple[tuple[int, float], ...] = SMALL_TALK_WEIGHTS
    """How many small-talk episodes a session carries, drawn with these weights (gold-blind). A
    vertical with many sessions per haystack (WorkingMemory: 65) draws fewer, or the corpus-wide
    repetition of the small-talk bank and its change-of-subject lines swamps distinct sentences."""
    lead_share: float = LEAD_SHARE
    """Share of eligible statement episodes an assistant question leads into. Eligibility grows
    with the session's place in the haystack (a topic must have been introduced earlier), so a
    vertical whose gold position is its construct (WorkingMemory's distance rungs) sets it to 0:
    otherwise late sessions, near-rung gold among them, carry more leads than early ones and the
    lead itself tells a question-blind reader where the rung is."""


def render_haystack(seed: int, vertical: str, plan: HaystackPlan,
                    tally: Tally | None = None) -> Haystack:
    """Render every session of ``plan`` through one gold-blind path."""
    n = len(plan.sessions)
    if len(plan.times) != n:
        raise GenerationError(f"{plan.key}: {len(plan.times)} times for {n} sessions")
    rng = derive_rng(seed, vertical, plan.key, "conversation")
    sessions: list[list[Turn]] = []
    piece_turns: list[list[int]] = []
    introduced: set[str] = set()
    for statements in plan.sessions:
        rendered = render_session(rng, statements, plan.persona, plan.banned, introduced,
                                  small_talk=plan.small_talk, lead_share=plan.lead_share)
        sessions.append(rendered.turns)
        piece_turns.append(rendered.statement_turns)
        if tally is not None:
            tally.sentences += sum(sentence_count(turn.text) for turn in rendered.turns)
            tally.fact_sentences += sum(sentence_count(s.text) for s in statements)
    return Haystack(plan.key, session_ids(seed, vertical, plan.key, n), list(plan.times),
                    plan.question_time, sessions, piece_turns, [None] * n)


def banned_words(phrases: Iterable[str]) -> frozenset[str]:
    """Lowercased content tokens of ``phrases`` (subjects, values) that small talk must avoid
    (stopwords are not banned: "the" and "at" in a subject phrase say nothing about it)."""
    from ..retrieval.tokenizer import tokenize

    return frozenset(t for phrase in phrases for t in tokenize(phrase))


__all__ = ["HaystackPlan", "Persona", "Rendered", "Stance", "Statement", "banned_words",
           "draw_persona", "render_haystack", "render_session"]
