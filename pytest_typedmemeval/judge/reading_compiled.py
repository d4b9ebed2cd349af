"""The reading rules' patterns compiled once, and the word helpers every reading layer shares.

The vocabulary is data in :mod:`.reading_patterns` (folded into the judge fingerprint); this module
only turns it into regular expressions, plus the few structural patterns that are not vocabulary
(quotes, brackets, coordination). Kept apart from the :class:`~.reading.Reading` layers so that
each layer imports exactly what it reads and none of them compiles a pattern of its own twice
(revision 10 found a second, inline copy of two patterns overriding the data).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from .reading_patterns import (
    ASKS_ASSISTANT,
    BOUND_NO_NOUN,
    BRACKET_KIND,
    CLAUSE_BREAK,
    COMPLEMENT_OPENERS,
    CONTRAST_PATTERNS,
    CORRECTION_MARKERS,
    DECLINES_CURRENT,
    DECLINE_PATTERNS,
    DENIAL_PATTERNS,
    DURATION_PHRASE,
    EARLIER_ADVERB,
    FIRED_PATTERNS,
    HEDGED_COMMITMENT_PATTERNS,
    INTERROGATIVE,
    INVALIDATION_EVENT_PATTERNS,
    ITEM_FILLERS,
    KIND_CLIPPING_MIN_CHARS,
    KIND_COMPOUND_HEADS,
    KIND_DERIVATION_MIN_CHARS,
    KIND_DERIVATION_SUFFIXES,
    LEADING_NO,
    LEADING_YES,
    META_PREDICATE,
    NEGATED_COORDINATION,
    NEGATED_EVIDENCE,
    NEGATED_KIND,
    NOT_DUE_PATTERNS,
    NOT_YET_PATTERNS,
    OTHER_HOLDER_PATTERNS,
    OTHER_ITEM_PATTERNS,
    OWNER_ALONE_PATTERNS,
    OWN_CONTRAST_PATTERNS,
    PAST_SUCCESSION,
    PENDING_EXCLUDED,
    PENDING_PATTERNS,
    PLACE_PHRASE,
    PLANNED_VALUE,
    PRESENT_MARK,
    QUESTION_ITEM,
    REPLACING_VERB,
    REPORTED_DECLINE,
    RETRACTING_PREFIXES,
    RETRACTION_MARKERS,
    RETRACT_INTO_DECLINE,
    SEGMENT_BREAK,
    SENTENCE_BREAK,
    STILL_TO_COME_PATTERNS,
    SUBJECT_KIND_FILLERS,
    SUCCESSION_STEP,
    TASK_NARRATION,
    TAUTOLOGY,
    TELLING_TO_ME,
    USER_OWN_PATTERNS,
)


def _compile_all(patterns: Iterable[str]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in patterns))


_DECLINE = _compile_all(DECLINE_PATTERNS)
_DENIAL = _compile_all(DENIAL_PATTERNS)
_META_PREDICATE = re.compile(META_PREDICATE)
_DENIAL_NAMED = _compile_all(p for p in DENIAL_PATTERNS if p not in (DENIAL_PATTERNS[1], BOUND_NO_NOUN))
"""Every denial form but the catch-all "you never / haven't <verb>", which must be bound (J2)."""
_TELLING_TO_ME = re.compile(TELLING_TO_ME)
_TAUTOLOGY = re.compile(TAUTOLOGY)
_HEDGED = _compile_all(HEDGED_COMMITMENT_PATTERNS)
_COMPLEMENT = re.compile(r"\s*" + COMPLEMENT_OPENERS)
_CORRECTION = re.compile(r"(?:^|[\s,;.!?:(\u2014\u2013-])(?:" + "|".join(CORRECTION_MARKERS) + r")\b")
_SAID_THEN_BUT = re.compile(
    r"\b(?:said|thought|guessed|mentioned|wrote|told you)\b[^.!?;\n]*?\bbut (?:it'?s|it is|it was|"
    r"that'?s|the answer is)\b"
)
_CLAUSE_BREAK = re.compile(CLAUSE_BREAK)
_SENTENCE_BREAK = re.compile(SENTENCE_BREAK)
_NOT_DUE = _compile_all(NOT_DUE_PATTERNS)
_NOT_YET = _compile_all(NOT_YET_PATTERNS)
_STILL_TO_COME = _compile_all(STILL_TO_COME_PATTERNS)
_FIRED = _compile_all(FIRED_PATTERNS)
_LEADING_YES = re.compile(LEADING_YES)
_LEADING_NO = re.compile(LEADING_NO)
_SPLIT_EVENTS = _compile_all(INVALIDATION_EVENT_PATTERNS)
_WORD = re.compile(r"[\w']+")
_RETRACT_INTO_DECLINE = re.compile(RETRACT_INTO_DECLINE)
_REPORTED_DECLINE = re.compile(REPORTED_DECLINE)
_QUOTED = re.compile(r'"[^"]*(?:"|$)')
_QUOTED_OR_BRACKETED = re.compile(r'"[^"]*(?:"|$)|\([^)]*(?:\)|$)')
_TASK_NARRATION = re.compile(TASK_NARRATION)
_SAYING_BEFORE = re.compile(r"\b(?:say|saying|said|answer|answering|reply|replying)\b[\s,:]*$")
_NEGATION = re.compile(r"\bnot\b|n'?t\b|\bnever\b|\brather than\b|\binstead of\b|\bunlike\b")
_OTHER_HOLDER = _compile_all(OTHER_HOLDER_PATTERNS)
_OWNER_ALONE = _compile_all(OWNER_ALONE_PATTERNS)
_OTHER_ITEM = _compile_all(OTHER_ITEM_PATTERNS)
_SEGMENT_BREAK = re.compile(SEGMENT_BREAK)
_CONTRAST = _compile_all(CONTRAST_PATTERNS)
_OWN_CONTRAST = _compile_all(OWN_CONTRAST_PATTERNS)
_USER_OWN = _compile_all(USER_OWN_PATTERNS)
_ASKS_ASSISTANT = re.compile(ASKS_ASSISTANT)
_FILLERS = frozenset(ITEM_FILLERS)
_PLACE = re.compile(PLACE_PHRASE)
_BRACKET_KIND = re.compile(BRACKET_KIND)
_NEGATED_KIND = re.compile(NEGATED_KIND)
_NEGATED_PREDICATE = re.compile(
    r"\b(?:did not|didn'?t|do not|don'?t|have not|haven'?t|has not|hasn'?t|never) (?:\w+ )?"
    r"(?P<verb>turn(?:ed)? down|turn(?:ed)? away|say|said|reject(?:ed)?|refuse[d]?|decline[d]?|"
    r"pick(?:ed)?|choose|chose|want(?:ed)?|use[d]?|take|took|go with|went with|book(?:ed)?|"
    r"hire[d]?|buy|bought|follow(?:ed)?|accept(?:ed)?|like[d]?|keep|kept)\b")
_RELATIVE_BEFORE = re.compile(r"\b(?:the|a|an|any|your|my|this) \w+(?: \w+)? (?:that|which|who|whom) $")

_INTERROGATIVE = re.compile(INTERROGATIVE)
_ALTERNATIVE = re.compile(r"[\s,\u2014\u2013-]*(?:or|either|or else)\b")
_COORDINATION = re.compile(r"[\s,]*(?:(?:and|or|nor|&|and the|or the|the)\s+)?(?:the\s+)?")
MAX_FOLLOWERS = 2
"""J13.6: how many value-less segments after a value still speak of it ("X (you only asked)",
"X, but you steered clear of it", "X — your tutor for the exam")."""
_QUESTION_ITEM = re.compile(QUESTION_ITEM)
_CAPITALISED = re.compile(r"\b[A-Z][\w'\u2019]*")
_RETRACTION = re.compile(r"(?:^|[\s,;.!?:(\u2014\u2013-])(?:" + "|".join(RETRACTION_MARKERS) + r")\b")
_SOFT_RETRACTION = re.compile(r"(?:sorry|no|apologies|my apologies|oops|whoops|i mean|or rather)\b")
_BEYOND = re.compile(r"\b(?:more|else|further|beyond|besides|exact|exactly|precise|precisely)\b")
_PENDING = _compile_all(PENDING_PATTERNS)
_PENDING_EXCLUDED = re.compile(PENDING_EXCLUDED)
_PLANNED_VALUE = re.compile(PLANNED_VALUE)
_DECLINES_CURRENT = re.compile(DECLINES_CURRENT)
_TIME_AGO = re.compile(r"(?:years|months|weeks|long) (?:ago|back)")
_EARLIER_ADVERB = re.compile(EARLIER_ADVERB)
_NEGATED_EVIDENCE = re.compile(NEGATED_EVIDENCE)
_NEGATED_COORDINATION = re.compile(NEGATED_COORDINATION)
_PAST_SUCCESSION = re.compile(PAST_SUCCESSION)
_CUE_OBJECT_GAP = re.compile(r"\s*(?:(?:the|your|my|that|this|a|an|old|own)\s+){0,2}")
"""J21.4: a cue before a value speaks of it only as its object ("you sold the X"), not across
"to", "with" or another clause ("you switched from them to Y", "you replaced X with Y")."""
_OWN_UNTIL = re.compile(r"^\W*(?:until|till|up until)\b")
_TELLING_BEFORE = re.compile(r"\b(?:said|told|mentioned|wrote|shared|noted|brought up|talked|spoke|chatted|messaged|explained)\b")
_ROLE_COPULA = re.compile(r"\s+(?:was|were|had been|used to be|would have been)\b")
_SUBJECT_FILLERS = frozenset(SUBJECT_KIND_FILLERS)
_HELD_UNTIL = re.compile(r"\b(?:until|till|up until)\b")
_SUCCESSION = re.compile(
    r"\b(?:takes?|took|taking|will take) over\b|\b(?:steps?|stepped|stepping) in\b|"
    r"\b(?:starts?|started|begins?|began|returns?|returned|arrives?|arrived|joins?|joined|"
    r"moves? in|moved in|kicks? in|kicked in)\b|\b(?:comes?|came|gets?|got|is) back\b|"
    r"\b(?:is|are) (?:free|available|ready)\b")
_RETRACTING_WORDS = tuple(tuple(p.replace("'", "").split()) for p in RETRACTING_PREFIXES)
_EVENT_PREFIXES = (("replaced",), ("replacing",))
_DURATION = re.compile(DURATION_PHRASE)
_SUCCESSION_STEP = re.compile(SUCCESSION_STEP)
_PRESENT_MARK = re.compile(PRESENT_MARK)
_REPLACING_VERB = re.compile(REPLACING_VERB)


Span = tuple[int, int]


def _item_of(match: re.Match[str]) -> str:
    """The item words a question or segment pattern captured (under whichever group matched)."""
    return next((value for name, value in match.groupdict().items()
                 if name.startswith("item") and value), "")


def _stem(word: str) -> str:
    """A crude plural fold for matching a question's item words ("cots" / "cot")."""
    word = word.replace("'", "")
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _predicate(match: re.Match[str]) -> str:
    """The negated verb of a :data:`_NEGATED_PREDICATE` match, tense and particle kept apart
    ("turned down" and "turn down" read alike)."""
    verb = match.group("verb")
    head, _, particle = verb.partition(" ")
    return _stem(head[:-2] if head.endswith("ed") and len(head) > 4 else head) + \
        (" " + particle if particle else "")


def _same_kind(word: str, asked: Iterable[str]) -> bool:
    """J21.6: ``word`` (stemmed) is one of the ``asked`` words, or one of them plus an agent suffix
    ("roof" / "roofer", "tile" / "tiler"), or a clipping of one ("physio" / "physiotherapist")."""
    for other in asked:
        if word == other:
            return True
        short, long_ = sorted((word, other), key=len)
        if not long_.startswith(short):
            continue
        if len(short) >= KIND_DERIVATION_MIN_CHARS and long_[len(short):] in KIND_DERIVATION_SUFFIXES:
            return True
        if len(short) >= KIND_CLIPPING_MIN_CHARS:
            return True
        if short == word and len(short) >= KIND_DERIVATION_MIN_CHARS and \
                long_[len(short):] in KIND_COMPOUND_HEADS:
            return True  # J22.7: "hair" / "hairdresser"
    return False


def _inside(span: Span, regions: Sequence[Span]) -> bool:
    return any(start <= span[0] and span[1] <= end for start, end in regions)


def _overlaps_any(span: Span, others: Sequence[Span]) -> bool:
    return any(span[0] < end and start < span[1] for start, end in others)
