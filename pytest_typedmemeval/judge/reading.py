"""Reading an answer: what it declines, denies, commits to and claims (docs/JUDGING.md J1–J3).

The v1 judge matched closed cue lists anywhere in the answer and fell back to ``wrong``; an honest
"I do not have that information." was then graded as a wrong commitment. :class:`Reading` reads by
*structure* instead — negation plus a knowledge verb with the system as subject is a decline,
negation plus a history verb with the user as subject is a denial — and by *scope*: a cue counts
where it governs the answer ("Yes, it's due now, so there's no time to lose" is a yes; "no time"
is not a denial), a value under "not" or before a self-correction is retracted, and a value inside
"I don't know whether …" is not committed.

Every pattern it applies is plain data in :mod:`.reading_patterns`, folded into the judge
fingerprint (:func:`~.reading_patterns.reading_rules`), so results graded under different readings
are never pooled; :mod:`.reading_compiled` compiles them once. The scope logic is one layer per
job, each a base class of the next, so a layer only uses what the layers below it read:

* :mod:`.reading_text` — the text, its clauses, negation, where each key value occurs;
* :mod:`.reading_negatives` — declines, their scopes, denials, hedges and retractions;
* :mod:`.reading_binding` — segments, and which item and holder each value is bound to (J13.5);
* :mod:`.reading_commitment` — values marked as context (J13.6) and what stays committed;
* :mod:`.reading_state` — invalidation and still-cues, governing polarity, not-yet and pending.

This module is the public face: :class:`Reading` and its constructor :meth:`Reading.of`, and the
cue lists the corpus generators import from here.
"""

from __future__ import annotations

from collections.abc import Iterable

from .reading_compiled import (
    _ASKS_ASSISTANT,
    _CAPITALISED,
    _item_of,
    _NEGATED_PREDICATE,
    _PLACE,
    _predicate,
    _QUESTION_ITEM,
    Span,
    _stem,
    _WORD,
)
from .reading_patterns import (
    DECLINE_PATTERNS,
    DENIAL_PATTERNS,
    FIRED_PATTERNS,
    INVALIDATION_STATE_CUES,
    JUDGE_CUE_PATTERNS,
    MAX_JUDGED_CHARS,
    NO_LONGER_EVENT_CUES,
    NOT_YET_PATTERNS,
    QUESTION_STOPWORDS,
    STILL_CUES,
)
from .reading_state import StateReading
from .text import normalize


class Reading(StateReading):
    """One normalised answer and the key values it may name, with every lookup the rules need.

    Built once per answer; every property is computed on first use, so a verdict that stops at
    the first rule pays for nothing else.
    """

    @classmethod
    def of(cls, answer: str, key_values: Iterable[str], question: str | None = None) -> Reading:
        norm = normalize(answer[: MAX_JUDGED_CHARS * 2])
        truncated = len(answer) > MAX_JUDGED_CHARS
        capitalised = frozenset(normalize(w) for w in _CAPITALISED.findall(answer[:MAX_JUDGED_CHARS]))
        asked = normalize(question or "")
        words = frozenset(_stem(w) for w in _WORD.findall(asked) if w not in QUESTION_STOPWORDS)
        phrase = _QUESTION_ITEM.search(asked)
        item = frozenset(_stem(w) for w in _WORD.findall(_item_of(phrase)) if w not in
                         QUESTION_STOPWORDS) if phrase else frozenset()
        head = answer[:MAX_JUDGED_CHARS]
        return cls(norm=norm[:MAX_JUDGED_CHARS], key_values=tuple(key_values), truncated=truncated,
                   capitalised=capitalised, question_words=words, item_words=item or words,
                   asks_assistant=bool(_ASKS_ASSISTANT.search(asked)),
                   question_premises=frozenset(_predicate(m) for m in _NEGATED_PREDICATE.finditer(asked)),
                   place_words=frozenset(_stem(w) for m in _PLACE.finditer(asked)
                                         for w in _WORD.findall(m.group("place"))
                                         if w not in QUESTION_STOPWORDS),
                   lowercase_only=head == head.lower() and any(c.isalpha() for c in head))


__all__ = [
    "Reading",
    "Span",
    # re-exported: the corpus generators import these cues from here
    "DECLINE_PATTERNS",
    "DENIAL_PATTERNS",
    "FIRED_PATTERNS",
    "INVALIDATION_STATE_CUES",
    "JUDGE_CUE_PATTERNS",
    "NOT_YET_PATTERNS",
    "NO_LONGER_EVENT_CUES",
    "STILL_CUES",
]
