"""Deterministic statement extraction for the reference memory: clauses, subjects, portability.

A user message is split on sentence and clause boundaries (``. ! ?``, newlines, ``;``, a colon or
a spaced dash). A clause becomes a candidate statement when it is a first-person declaration (it
says something about the user or their project) and not a question. Its subject comes from a few
fixed shapes — "my/our X is ...", "I live/moved ...", "I work/joined ...", "I have a X called ..."
— and is ``None`` otherwise, which means the statement can never supersede or be superseded.

This is deliberately a small, legible rule set: the scenario corpus expects roughly 70 % of its
labels to form under such an extractor, and the unformed rest measures what an extractor could
still gain (§6.2). Nothing here reads a clock, a random source or a model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .matching import normalise

_CLAUSE_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+|;\s*|:\s+|\s+[—–-]\s+")
_LEADING_MARKERS = re.compile(
    r"^(?:(?:oh|so|well|also|anyway|actually|okay|ok|yeah|yes|no|honestly|btw|by the way|fyi|"
    r"quick update|update|correction|heads up|just so you know|for context|sorry|right|and|but|plus)[,!]?\s+)+")
_FIRST_PERSON = frozenset("i i'm i've i'd i'll my me mine we we're we've we'd we'll our ours us".split())
_WORDS = re.compile(r"[a-z0-9']+")

_COPULA_SUBJECT = re.compile(
    r"^(?:my|our) (?P<subject>[a-z0-9' -]+?) (?:is|are|was|were|will be|has been|have been|"
    r"is now|are now|moved to|changed to)\b")
_HOME = re.compile(r"^(?:i|we) (?:now |just |finally )?(?:live|moved|am moving|are moving|relocated)\b")
_EMPLOYER = re.compile(r"^(?:i|we) (?:now |just )?(?:work|started working|joined|am joining)\b")
_NAMED_THING = re.compile(r"^(?:i|we) (?:have|have got|got) (?:a|an) (?P<subject>[a-z]+) (?:called|named)\b")

_PREFERENCE_CUE = re.compile(
    r"\b(?:prefer|prefers|preferred|favourite|favorite|love|loves|like|likes|hate|hates|"
    r"can't stand|rather|enjoy|enjoys)\b")

_SECRET = re.compile(
    r"\b(?:sk|pk|rk|ghp|xoxb|xoxp|akia)[-_][a-z0-9_-]{6,}|\b(?:password|passcode|api key|access token|"
    r"secret key|passport number)\b")
_INJECTION = re.compile(
    r"\bignore (?:all |any )?(?:the )?(?:previous|prior|above|earlier) instructions\b|\bsystem prompt\b")


@dataclass(frozen=True)
class Candidate:
    """A statement the extractor proposes, with its subject and whether it travels across scopes."""

    statement: str
    subject: str | None
    portable: bool
    protected: bool


def clauses(text: str) -> list[str]:
    return [part.strip() for part in _CLAUSE_SPLIT.split(text) if part and part.strip()]


def _core(clause: str) -> str:
    """Normalised clause without leading discourse markers ("Actually, ...")."""
    return _LEADING_MARKERS.sub("", normalise(clause))


def subject_of(clause: str) -> str | None:
    core = _core(clause)
    if match := _COPULA_SUBJECT.match(core):
        return match.group("subject").strip()
    if _HOME.match(core):
        return "home"
    if _EMPLOYER.match(core):
        return "employer"
    if match := _NAMED_THING.match(core):
        return match.group("subject")
    return None


def is_protected(clause: str) -> bool:
    """Secret-looking values and prompt-injection lines: never stored by the reference memory."""
    core = normalise(clause)
    return bool(_SECRET.search(core) or _INJECTION.search(core))


def extract(text: str) -> list[Candidate]:
    """Candidate statements of one user message, in message order."""
    found: list[Candidate] = []
    for clause in clauses(text):
        if clause.endswith("?"):
            continue
        words = set(_WORDS.findall(normalise(clause)))
        if not words & _FIRST_PERSON:
            continue
        found.append(Candidate(statement=clause, subject=subject_of(clause),
                               portable=bool(_PREFERENCE_CUE.search(_core(clause))),
                               protected=is_protected(clause)))
    return found
