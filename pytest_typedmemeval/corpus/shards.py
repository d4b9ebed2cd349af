"""Which shard of ``--tme-shard K/N`` a corpus question belongs to: a pure function of the selection.

Teams past one machine split the questions over CI jobs and merge the jobs' reports
(:mod:`..report.merge`). A split is only mergeable if every job computes the same one without
talking to the others, so the assignment depends on nothing a job could see differently — not on
collection order, the order corpora are given in, the worker count, or the host:

- a question's *stratum* is its (vertical, shape);
- within a stratum, questions are ranked by (corpus id, a seeded sha256 of corpus id and question
  id) — question ids are opaque (``tme-*`` ids encode nothing), the hash only spreads them;
- the ranked list is dealt round-robin to shards, starting at a shard picked by a seeded hash of
  the stratum (so the one-question remainders of many strata do not all land on shard 1).

Guaranteed: every selected question is in exactly one shard; a question's shard depends only on N
and the set of selected (corpus id, question id) pairs of its own stratum; in every stratum, and in
every (corpus, vertical, shape) cell of it (each corpus's part of the ranking is contiguous), shard
sizes differ by at most one. Shard totals differ by at most the number of strata (in practice by
a few). Selecting more or fewer questions of one stratum can move the other questions of that
stratum between shards; it never moves a question of another stratum.

Imports nothing beyond the standard library: the plugin (at collection) and the merge (to check
every shard's questions) share it.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

SHARD_ALGORITHM = 1
"""Version of the assignment; shards cut by different versions are never merged."""
_SEED = "typedmemeval-shard-v1"


class ShardSpecError(ValueError):
    """A ``--tme-shard`` value that is not ``K/N`` with 1 <= K <= N."""


@dataclass(frozen=True)
class ShardSpec:
    """``--tme-shard K/N``: this job runs shard ``index`` (1-based) of ``count``."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> ShardSpec:
        left, sep, right = text.strip().partition("/")
        try:
            index, count = int(left), int(right)
        except ValueError:
            raise ShardSpecError(f"{text!r}: expected K/N, e.g. 2/4 (shard 2 of 4)") from None
        if not sep or count < 1 or not 1 <= index <= count:
            raise ShardSpecError(f"{text!r}: expected K/N with 1 <= K <= N, e.g. 2/4")
        return cls(index, count)

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


@dataclass(frozen=True)
class ShardQuestion:
    """What the assignment reads of a question: its identity and its stratum."""

    corpus_id: str
    question_id: str
    vertical: str
    shape: str


def _digest(*parts: str) -> str:
    return hashlib.sha256("\0".join((_SEED, *parts)).encode("utf-8")).hexdigest()


def assign_shards(questions: Iterable[ShardQuestion], count: int) -> dict[tuple[str, str], int]:
    """(corpus id, question id) -> its shard, 1-based, for a split into ``count`` shards."""
    strata: dict[tuple[str, str], list[ShardQuestion]] = defaultdict(list)
    for question in questions:
        strata[question.vertical, question.shape].append(question)
    shards: dict[tuple[str, str], int] = {}
    for (vertical, shape), members in strata.items():
        start = int(_digest("stratum", vertical, shape), 16) % count
        ranked = sorted(members, key=lambda q: (q.corpus_id, _digest(q.corpus_id, q.question_id), q.question_id))
        for rank, question in enumerate(ranked):
            shards[question.corpus_id, question.question_id] = (start + rank) % count + 1
    return shards


def selection_sha256(keys: Iterable[tuple[str, str]]) -> str:
    """A fingerprint of a selection (the questions before sharding): every shard of one split has
    the same, so the merge can tell shards of different selections (another ``-m``/``-k``) apart."""
    text = "\n".join(f"{corpus_id}\0{question_id}" for corpus_id, question_id in sorted(set(keys)))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


__all__ = ["SHARD_ALGORITHM", "ShardQuestion", "ShardSpec", "ShardSpecError", "assign_shards",
           "selection_sha256"]
