"""The small primitives every generator shares: errors, seeded randomness, grammar, bank checks.

What is left here after VERTICALS.md Appendix C retired word-list padding and the echo clause:
the pieces the engine (:mod:`.engine`) and the vertical declarations (:mod:`.verticals`) both need
and that are not about rendering. Keeping them apart from the engine keeps the engine about one
thing (planning and rendering haystacks) and lets a declaration's import-time bank checks run
without importing the renderer.

- :func:`derive_rng`: one ``random.Random`` per (vertical seed, key...), never the global generator
  or the clock, so changing one question does not reshuffle the rest.
- :func:`dither`: the gold-blind counter that hands out integer shares, so every group of sessions
  gets its share exactly rather than by chance.
- :func:`article`, :func:`person_problems`, :func:`assert_person_invariant`,
  :func:`content_words`, :func:`assert_disjoint`: grammar and the import-time bank assertions.
- :func:`dump_json`: the deterministic writer.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Iterable, Sequence
from typing import Any

from ..retrieval.tokenizer import raw_tokens


class GenerationError(RuntimeError):
    """A validity rule failed while generating: the corpus is not written (a hard error)."""


def derive_rng(seed: int, *key: object) -> random.Random:
    """A fresh ``random.Random`` for (seed, key...): independent streams, stable across runs.

    The key is hashed (sha256), so ``derive_rng(7, "haystack", 3)`` never shares a stream with
    ``derive_rng(7, "haystack", 4)`` and Python's hash randomisation cannot leak in.
    """
    material = "\x1f".join(str(part) for part in (seed, *key)).encode("utf-8")
    return random.Random(int.from_bytes(hashlib.sha256(material).digest()[:8], "big"))


def dither(expected: Sequence[float], rng: random.Random) -> list[int]:
    """Integers k_i in {floor(x_i), ceil(x_i)} whose running total tracks the running expectation.

    Error diffusion from a random phase: the total over any prefix differs from the expected total
    by less than one. This is the counter that hands out mentions and shares blind to gold
    status: a group of sessions gets its share exactly (two gold sessions at rate 0.5 carry one
    clause between them), not by independent coin flips.
    """
    accumulator = rng.random()
    out: list[int] = []
    for value in expected:
        if value < 0:
            raise ValueError("dither: expected values must be >= 0")
        accumulator += value
        whole = int(accumulator)
        accumulator -= whole
        out.append(whole)
    return out


_VOWEL_SOUND = re.compile(r"^(?:[aeio]|u(?![b-df-hj-np-tv-z][aeiou]))", re.IGNORECASE)


def article(noun: str) -> str:
    """``"a"`` or ``"an"`` for ``noun``: "an" before a vowel letter, except a "you"-sounding u
    (u, consonant, vowel: "a ukulele", "a unit", "an umbrella", "an upright")."""
    return "an" if _VOWEL_SOUND.match(noun) else "a"


PERSON_PRONOUNS: dict[str, str] = {"first": "I", "second": "you"}
_PERSON_WORDS: dict[str, frozenset[str]] = {
    "first": frozenset({"i", "me", "my", "mine", "myself", "am", "im"}),
    "second": frozenset({"you", "your", "yours", "yourself", "youre"}),
}
_WRONG_VERB_AFTER: dict[str, frozenset[str]] = {
    "first": frozenset({"is", "are", "were", "has", "does", "goes", "says", "gets", "gives"}),
    "second": frozenset({"am", "is", "was", "has", "does", "goes", "says", "gets", "gives"}),
}


def person_problems(clause: str) -> list[str]:
    """Why ``clause`` (a verb phrase used as "I {clause}" and "you {clause}") misreads in a person.

    A clause read in two persons must use a verb form both share (past tense, "got discharged"
    rather than "was discharged") and must not carry a pronoun of either person (a "my" becomes
    wrong the moment the clause is put in the second person). VERTICALS.md §2.5 rule 8, §4.13.
    """
    problems: list[str] = []
    tokens = raw_tokens(clause)
    if not tokens:
        return ["empty clause"]
    for person, words in _PERSON_WORDS.items():
        found = sorted(words.intersection(tokens))
        if found:
            problems.append(f"carries {person}-person word(s) {found}")
    for person, wrong in _WRONG_VERB_AFTER.items():
        if tokens[0] in wrong:
            problems.append(f"{PERSON_PRONOUNS[person]} {tokens[0]!r} does not agree")
    return problems


def assert_person_invariant(clauses: Iterable[str], *, where: str) -> None:
    """Import-time check: every clause reads correctly after both "I" and "you"."""
    bad = {clause: person_problems(clause) for clause in clauses}
    bad = {clause: problems for clause, problems in bad.items() if problems}
    if bad:
        raise AssertionError(f"{where}: clauses that do not read in both persons: {bad}")


def content_words(texts: Iterable[str]) -> frozenset[str]:
    """Raw tokens (stopwords kept) of ``texts``: the vocabulary a bank contributes."""
    return frozenset(token for text in texts for token in raw_tokens(text))


def assert_disjoint(name_a: str, words_a: Iterable[str], name_b: str, words_b: Iterable[str]) -> None:
    """Import-time check that two banks share no token (e.g. "window cleaner" vs "cleaner")."""
    shared = sorted(set(words_a) & set(words_b))
    if shared:
        raise AssertionError(f"{name_a} and {name_b} share tokens {shared[:20]}")


def dump_json(data: Any) -> str:
    """Deterministic JSON text: sorted keys (object order is never meaningful in a corpus or
    sidecar; list order always is), ``ensure_ascii=False``, two-space indent, LF, trailing LF."""
    return json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n"


__all__ = [
    "GenerationError", "PERSON_PRONOUNS", "article", "assert_disjoint", "assert_person_invariant",
    "content_words", "derive_rng", "dither", "dump_json", "person_problems",
]
