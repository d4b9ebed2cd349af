"""The haystacks as the adversary gate's strategies see them (:mod:`.adversaries`), and what
they share: tie-aware ranking figures, question groups and the deterministic split into halves.

Split out of :mod:`.adversaries` so each adversary's module reads one thing; the gate itself
(bounds, findings, the revision rule, exemptions) stays there."""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..corpus.models import QuestionRecord
from ..retrieval.bm25 import K_REF
from ..retrieval.values import has_value, sentences, value_like_tokens

K = K_REF

SPLIT_CONSTANT = "typedmemeval-adversaries-split-v1"
"""Seeds the deterministic order in which question groups are dealt to the two halves."""


def session_key(session: Sequence[Any]) -> str:
    """Identity of a session's text: its turns (role and content), verbatim."""
    return "\x1e".join(f"{turn.role}\x1f{turn.content}" for turn in session)


@dataclass(frozen=True)
class Haystack:
    question_id: str
    shape: str
    question: str
    ids: tuple[str, ...]
    keys: tuple[str, ...]
    texts: tuple[tuple[str, ...], ...]
    gold: frozenset[int]
    dates: tuple[str, ...] = ()
    """The sessions' dates (corpus form), for the date-offset reader."""
    question_date: str = ""

    @property
    def n(self) -> int:
        return len(self.keys)

    @property
    def ranked(self) -> bool:
        """Whether there is something to rank: some gold and some filler."""
        return 0 < len(self.gold) < self.n


def read_haystacks(records: Sequence[QuestionRecord]) -> list[Haystack]:
    out = []
    for record in records:
        out.append(Haystack(
            record.question_id, record.shape, record.question, tuple(record.haystack_session_ids),
            tuple(session_key(s) for s in record.haystack_sessions),
            tuple(tuple(turn.content for turn in s) for s in record.haystack_sessions),
            frozenset(record.gold_session_indices), tuple(record.haystack_dates),
            record.question_date))
    return out


def tied_gold_at_1(scores: Sequence[float], gold: frozenset[int]) -> float:
    """The chance that the top-ranked session is gold when ties are broken at random: the share of
    gold among the sessions tied at the top score (1.0 or 0.0 when the top is unique).

    Ties used to go to the earliest session, which is itself a position prior: on a haystack
    whose gold sits early (WorkingMemory's far rungs) every tie went to gold, and a reader scoring
    a dozen sessions alike looked as if it found gold."""
    top = max(scores)
    tied = [i for i, score in enumerate(scores) if score == top]
    return sum(1 for i in tied if i in gold) / len(tied)


def ranking_of(scores: Sequence[float]) -> list[int]:
    return sorted(range(len(scores)), key=lambda i: (-scores[i], i))


def coverage_at_k(ranking: Sequence[int], gold: frozenset[int], k: int = K) -> float:
    return len(gold.intersection(ranking[:k])) / len(gold)


def tied_coverage(scores: Sequence[float], gold: frozenset[int], k: int = K) -> float:
    """Expected coverage@k of a ranking by ``scores`` under random tie-breaking: a gold session
    with ``above`` sessions strictly above it and ``ties`` sessions (itself included) at its score
    is in the top k with probability ``clamp((k - above) / ties, 0, 1)``. Breaking ties by session
    order instead hands every tie at the cut to the earliest session (a position prior, see
    :func:`tied_gold_at_1`)."""
    total = 0.0
    for g in gold:
        above = sum(1 for score in scores if score > scores[g])
        ties = sum(1 for score in scores if score == scores[g])
        total += min(1.0, max(0.0, (k - above) / ties))
    return total / len(gold)


def within_auc(scores: Sequence[float], gold: frozenset[int]) -> float:
    golds = [scores[i] for i in gold]
    rest = [scores[i] for i in range(len(scores)) if i not in gold]
    total = 0.0
    for g in golds:
        for d in rest:
            total += 1.0 if g > d else 0.5 if g == d else 0.0
    return total / (len(golds) * len(rest))


def mean_or_none(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


# --- grouping and the split -----------------------------------------------------------------------


def question_groups(haystacks: Sequence[Haystack]) -> list[int]:
    """A group label per question: questions whose haystacks share a session id or a session's
    turns verbatim, directly or through others, get one label (union-find)."""
    parent = list(range(len(haystacks)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    first: dict[tuple[str, str], int] = {}
    for qi, haystack in enumerate(haystacks):
        for key in [("id", sid) for sid in haystack.ids] + [("text", k) for k in haystack.keys]:
            other = first.setdefault(key, qi)
            if other != qi:
                a, b = find(qi), find(other)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    return [find(qi) for qi in range(len(haystacks))]


def order_key(constant: str, text: str) -> str:
    return hashlib.sha256(f"{constant}\x00{text}".encode()).hexdigest()


def split_halves(haystacks: Sequence[Haystack], members: Sequence[int], *,
                 constant: str = SPLIT_CONSTANT) -> dict[int, int]:
    """Half (0 or 1) per question index in ``members``, groups kept whole.

    Groups are dealt in the order of sha256(constant, first question id); each goes to the half
    where it leaves the per-shape question counts most even (then the smaller half, then the
    hash's parity), so every shape is split about evenly whatever the group sizes."""
    labels = question_groups(haystacks)
    groups: dict[int, list[int]] = defaultdict(list)
    for qi in members:
        groups[labels[qi]].append(qi)
    ordered = sorted(groups.values(),
                     key=lambda g: order_key(constant, min(haystacks[q].question_id for q in g)))
    counts: list[Counter[str]] = [Counter(), Counter()]
    sizes = [0, 0]
    half: dict[int, int] = {}
    for group in ordered:
        shapes = Counter(haystacks[q].shape for q in group)

        def imbalance(side: int) -> int:
            other = 1 - side
            return sum(abs(counts[side][s] + c - counts[other][s]) for s, c in shapes.items())

        key = order_key(constant, min(haystacks[q].question_id for q in group))
        choice = min((0, 1), key=lambda side: (imbalance(side), sizes[side] + len(group),
                                               (side + int(key[-1], 16)) % 2))
        for q in group:
            half[q] = choice
        counts[choice].update(shapes)
        sizes[choice] += len(group)
    return half


@lru_cache(maxsize=1 << 16)
def sentence_values(text: str) -> tuple[tuple[str, tuple[str, ...], bool], ...]:
    """One turn's sentences (:func:`..retrieval.values.sentences`), each with its value-like tokens
    (:func:`..retrieval.values.value_like_tokens`) and whether it holds a value
    (:func:`..retrieval.values.has_value`); cached, as three adversaries read them."""
    return tuple((sentence, tuple(value_like_tokens(sentence)), has_value(sentence))
                 for sentence in sentences(text))
