"""The mechanical judge: a deterministic, rule-based verdict for one answer (VERTICALS.md §5).

It reads the normalised answer for *cues* (phrases that signal declining, a confident negative,
an invalidation, a not-yet, a still-holds) and for *values* from the answer key (gold, known-wrong,
stale, premature), then applies a fixed precedence chosen by ``key.expected_negative``. No
network, no randomness: the same answer and key always give the same verdict, and the rules are
pinned by :data:`JUDGE_FINGERPRINT` so results judged under different rules are never banded.

Rules that apply across branches:

* **A named value beats hedging** (§5.2 rule 1). "I'm not certain, but probably X" is graded on X:
  a system that names a value has committed to it, and letting a hedge turn a wrong value into an
  abstention would reward guessing. So known values are checked before abstention cues, and an
  abstention cue does not count as declining when a hedged-commitment cue ("probably", "I think
  it") sits beside it.
* **Acknowledging invalidation decides Forgetting** (§5.2 rule 2): "you had a Honda, but you sold
  it" is correct; the Honda named without an invalidation is stale recall.
* **Negative golds must name their value** (§5.5): "nothing on record" and "it used to be X, which
  no longer holds" differ only by X.
* Where the brief left a case open the stricter reading is taken and said so where it is coded.

Bump :data:`JUDGE_RULESET_VERSION` whenever the precedence code changes; cue and table changes
move the fingerprint on their own.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..corpus.models import AnswerKey
from .numbers import ExtractedNumber, extract_numbers, numeric_matches, parsing_rules
from .outcomes import Outcome, Verdict
from .text import NORMALISATION_RULES, contains_any_phrase, normalize, phrase_spans

JUDGE_RULESET_VERSION = "1"

# --- cue lists ---------------------------------------------------------------------------------
# All are matched token-bounded on the normalised answer; a cue containing an apostrophe also
# matches without it ("dont know"), because answers drop apostrophes as often as they curl them.

# The answer declines to commit ("abstained", §5.1). Checked after named values (§5.2 rule 1).
ABSTENTION_CUES: tuple[str, ...] = (
    "i don't know", "i do not know", "not sure", "unsure", "not certain",
    "no record", "nothing on record", "don't have any record", "do not have any record",
    "don't have any information", "do not have any information", "don't have that information",
    "no information", "no mention", "not mentioned", "wasn't mentioned",
    "can't recall", "cannot recall", "can not recall", "don't remember", "do not remember",
    "can't find", "cannot find", "unable to find", "unable to tell", "can't tell", "cannot tell",
    "unable to determine", "can't say", "cannot say", "doesn't say", "does not say",
)
# A hedge that still commits ("probably X"). Beside an abstention cue it cancels the abstention,
# so "not sure, probably the Marloe" on a never-known probe is a commitment, not a decline. Bare
# "maybe" is left out: polite declines use it ("maybe you told someone else").
HEDGED_COMMITMENT_CUES: tuple[str, ...] = (
    "probably", "most likely", "likely", "i think it", "i believe it", "i guess it",
    "my guess is", "my best guess", "it might be", "it may be", "it could be", "perhaps it",
)
# A confident negative: the answer claims nothing exists ("missed" where gold has something).
MISSED_CUES: tuple[str, ...] = (
    "nothing is due", "you never told me", "you never mentioned", "never mentioned",
    "there is no", "there's no", "there are no", "there isn't", "there aren't",
    "you don't have", "you do not have", "you haven't got", "none", "never", "nothing",
)
# Invalidation stated as a state. These already carry their negation ("don't have it anymore"),
# so the negation window below is not applied to them.
NO_LONGER_STATE_CUES: tuple[str, ...] = (
    "no longer", "anymore", "any longer", "not any more", "none any more",
    "isn't current", "is not current", "not current", "isn't valid", "is not valid",
)
# Invalidation stated as an event. A negated one ("not cancelled", "hasn't lapsed") asserts the
# opposite and must not count; "replaced"/"switched" are absent because still-valid controls are
# set up by a switch ("switched broadband this week") and would read as over-forgetting.
NO_LONGER_EVENT_CUES: tuple[str, ...] = (
    "cancelled", "canceled", "sold", "ended", "lapsed", "expired", "used to", "stopped",
    "gone", "got rid of", "discontinued", "terminated", "closed", "discharged", "quit", "gave up",
)
# Words that negate an event cue when they occur within NEGATION_WINDOW tokens before it, in the
# same clause. Any token ending in "n't" also negates. Plain "no" is absent on purpose: "No, it's
# no longer current" and "no, you sold it" must not be read as negated invalidations.
NEGATORS: tuple[str, ...] = (
    "not", "never", "cannot", "neither", "nor", "hasnt", "havent", "hadnt", "isnt", "wasnt",
    "arent", "werent", "didnt", "dont", "doesnt", "wont",
)
NEGATION_WINDOW = 3
# A negator before one of these does not reach past it ("not sure, but you sold it").
CLAUSE_BREAKS: tuple[str, ...] = (",", ";", ".", "!", "?", ":", "—", "–", "but")
# Prospective before-arm golds: an explicit not-yet (§2.1). Bare "later" is left out as too loose
# ("you mentioned it later") — the stricter reading; "due later"/"later on" cover the real uses.
NOT_YET_CUES: tuple[str, ...] = (
    "not yet", "isn't due yet", "is not due yet", "not due yet", "nothing is due yet",
    "isn't due", "is not due", "not due", "hasn't started", "has not started",
    "hasn't happened yet", "has not happened yet", "hasn't come due", "yet to",
    "still to come", "upcoming", "coming up", "due later", "later on", "not until", "isn't until",
    "still valid", "still current", "still active", "still in effect",
)
# Affirming the fact still holds. On an invalidated question this without an invalidation is
# stale recall even when no value is repeated ("yes, that's still current").
STILL_CUES: tuple[str, ...] = ("still", "remains", "is current", "it's current", "that's current")
# A reminder fired or a not-yet treated as true, without naming the item (premature, §5.1).
FIRED_CUES: tuple[str, ...] = (
    "is due now", "due now", "now due", "due today", "is due", "are due", "overdue",
    "it's time to", "has started", "has begun", "has happened", "took place", "went ahead",
    "don't forget",
)
# Numeric answers: the committed figure is the first number after the last of these that is
# followed by a number, so working shown before the result ("5 + 7 = 12") is not graded.
CONCLUSION_MARKERS: tuple[str, ...] = (
    "total", "in total", "in all", "altogether", "comes to", "=", "equals", "so", "that's",
    "that is", "is",
)

_CUE_TABLES: dict[str, tuple[str, ...]] = {
    "abstention": ABSTENTION_CUES,
    "hedged_commitment": HEDGED_COMMITMENT_CUES,
    "missed": MISSED_CUES,
    "no_longer_state": NO_LONGER_STATE_CUES,
    "no_longer_event": NO_LONGER_EVENT_CUES,
    "negators": NEGATORS,
    "clause_breaks": CLAUSE_BREAKS,
    "not_yet": NOT_YET_CUES,
    "still": STILL_CUES,
    "fired": FIRED_CUES,
    "conclusion_markers": CONCLUSION_MARKERS,
}


def judge_rules() -> dict[str, object]:
    """Every rule the judge applies, as plain JSON-able data (a fresh copy on each call)."""
    return {
        "version": JUDGE_RULESET_VERSION,
        "cues": {name: list(cues) for name, cues in _CUE_TABLES.items()},
        "negation_window": NEGATION_WINDOW,
        "normalisation": json.loads(json.dumps(NORMALISATION_RULES)),
        "numbers": parsing_rules(),
    }


def compute_fingerprint(rules: Mapping[str, object]) -> str:
    """SHA-256 hex of the canonical JSON of ``rules`` (sorted keys, no whitespace)."""
    canonical = json.dumps(rules, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


JUDGE_FINGERPRINT: str = compute_fingerprint(judge_rules())
"""Pins the judge's rules; runs judged under different fingerprints are not comparable."""


def _variants(cue: str) -> tuple[str, ...]:
    return (cue, cue.replace("'", "")) if "'" in cue else (cue,)


_CLAUSE_BREAK = re.compile(
    "|".join(r"\b" + re.escape(b) + r"\b" if b.isalpha() else re.escape(b) for b in CLAUSE_BREAKS)
)


@dataclass(frozen=True)
class _Answer:
    """The normalised answer plus the key's values, with the lookups every branch needs."""

    norm: str
    key_values: tuple[str, ...]

    def cue_spans(self, cues: Iterable[str]) -> list[tuple[int, int]]:
        return [
            span
            for cue in cues
            for variant in _variants(cue)
            for span in phrase_spans(self.norm, variant)
        ]

    def has(self, cues: Iterable[str]) -> bool:
        return contains_any_phrase(self.norm, tuple(v for cue in cues for v in _variants(cue)))

    def value_spans(self, value: str) -> list[tuple[int, int]]:
        """Occurrences of ``value`` not lying inside an occurrence of a longer key value, so the
        accepted "Marloe Basic" does not also name the wrong value "Marloe"."""
        own = phrase_spans(self.norm, value)
        size = len(normalize(value))
        covering = [
            span
            for other in self.key_values
            if len(normalize(other)) > size
            for span in phrase_spans(self.norm, other)
        ]
        return [
            (start, end)
            for start, end in own
            if not any(c_start <= start and end <= c_end for c_start, c_end in covering)
        ]

    def names(self, value: str) -> bool:
        return bool(self.value_spans(value))

    def named(self, values: Iterable[str]) -> list[str]:
        return [value for value in values if self.names(value)]

    def _negated(self, start: int) -> bool:
        clause = self.norm[:start]
        breaks = list(_CLAUSE_BREAK.finditer(clause))
        if breaks:
            clause = clause[breaks[-1].end():]
        window = re.findall(r"[\w']+", clause)[-NEGATION_WINDOW:]
        return any(token in NEGATORS or token.endswith("n't") for token in window)

    def no_longer(self) -> bool:
        """A (non-negated) invalidation claim: any state cue, or an event cue not negated."""
        if self.has(NO_LONGER_STATE_CUES):
            return True
        return any(not self._negated(start) for start, _ in self.cue_spans(NO_LONGER_EVENT_CUES))

    def negated_no_longer(self) -> bool:
        """An event cue under negation ("hasn't lapsed"): the fact is asserted still to hold."""
        return any(self._negated(start) for start, _ in self.cue_spans(NO_LONGER_EVENT_CUES))

    def declines(self) -> bool:
        """An abstention cue with no hedged commitment beside it (§5.2 rule 1)."""
        return self.has(ABSTENTION_CUES) and not self.has(HEDGED_COMMITMENT_CUES)

    def missed(self) -> bool:
        return self.has(MISSED_CUES)


def _key_values(key: AnswerKey) -> tuple[str, ...]:
    return (
        *key.accepted, *key.must_name, *key.wrong, *key.stale, *key.premature,
        *(key.list_order or ()),
    )


def _verdict(outcome: Outcome, reason: str, *subcounts: str) -> Verdict:
    return Verdict(outcome=outcome, reason=reason, subcounts=frozenset(subcounts))


def _names_required(answer: _Answer, key: AnswerKey) -> bool:
    """Every ``must_name`` value is named (§5.5). ``accepted`` spellings stand in for it only when
    there is a single ``must_name`` value, since they are spellings of *one* gold value."""
    if not key.must_name:
        return True
    if all(answer.names(value) for value in key.must_name):
        return True
    return len(key.must_name) == 1 and bool(answer.named(key.accepted))


def _fallback(answer: _Answer, committed_reason: str) -> Verdict:
    """The tail every branch shares: decline → abstained, confident negative → missed, else
    wrong."""
    if answer.declines():
        return _verdict(Outcome.ABSTAINED, "declines to commit")
    if answer.missed():
        return _verdict(Outcome.MISSED, "confident negative where gold has a value")
    return _verdict(Outcome.WRONG, committed_reason)


def _judge_abstain(answer: _Answer, key: AnswerKey) -> Verdict:
    if answer.no_longer():
        return _verdict(
            Outcome.WRONG, "claims a never-known fact was once known (§5.2 rule 3)",
            "misattributed_forgetting",
        )
    if named := answer.named((*key.wrong, *key.stale)):
        return _verdict(
            Outcome.WRONG, f"names known-wrong value {named[0]!r} on a never-known probe"
        )
    if answer.declines() or answer.missed():
        return _verdict(Outcome.CORRECT, "declines or denies on a never-known probe")
    return _verdict(Outcome.WRONG, "committed to an answer on a never-known probe")


def _judge_no_longer(answer: _Answer, key: AnswerKey) -> Verdict:
    if answer.no_longer():
        if not _names_required(answer, key):
            return _verdict(Outcome.WRONG, "negative gold names a value the answer omitted (§5.5)")
        gold = (*key.must_name, *key.accepted, *key.stale)
        if not key.must_name and (wrong := answer.named(key.wrong)) and not answer.named(gold):
            # Stricter reading: with no must_name to check, invalidating a *different* known value
            # is still not the gold invalidation.
            return _verdict(
                Outcome.WRONG, f"invalidates known-wrong value {wrong[0]!r}, not the gold"
            )
        return _verdict(Outcome.CORRECT, "acknowledges the fact no longer holds")
    if stale := answer.named((*key.stale, *key.must_name, *key.accepted)):
        return _verdict(
            Outcome.WRONG, f"stale value {stale[0]!r} offered as current", "stale_recall"
        )
    if wrong := answer.named((*key.wrong, *key.premature)):
        return _verdict(Outcome.WRONG, f"names known-wrong value {wrong[0]!r}")
    if answer.has(STILL_CUES) and not answer.declines():
        return _verdict(Outcome.WRONG, "affirms an invalidated fact still holds", "stale_recall")
    return _fallback(answer, "no invalidation acknowledged")


def _judge_not_yet(answer: _Answer, key: AnswerKey) -> Verdict:
    # A negated event cue ("hasn't lapsed") is a not-yet for expiring-validity before-arms.
    if answer.has(NOT_YET_CUES) or answer.missed() or answer.negated_no_longer():
        if not _names_required(answer, key):
            return _verdict(Outcome.WRONG, "negative gold names a value the answer omitted (§5.5)")
        return _verdict(Outcome.CORRECT, "says not yet")
    if premature := answer.named(key.premature):
        return _verdict(Outcome.PREMATURE, f"treats {premature[0]!r} as already due")
    # Stricter reading: "it has lapsed" or "it's due now" fires early even without naming the item.
    if answer.no_longer():
        return _verdict(Outcome.PREMATURE, "treats a not-yet validity end as already past")
    if answer.has(FIRED_CUES):
        return _verdict(Outcome.PREMATURE, "fires the reminder before it is due")
    if wrong := answer.named((*key.wrong, *key.stale)):
        return _verdict(Outcome.WRONG, f"names known-wrong value {wrong[0]!r}")
    if answer.declines():
        return _verdict(Outcome.ABSTAINED, "declines to commit")
    return _verdict(Outcome.WRONG, "commits to something other than not-yet")


def _judge_still(answer: _Answer, key: AnswerKey) -> Verdict:
    gold = answer.named((*key.accepted, *key.must_name))
    wrong = answer.named((*key.wrong, *key.stale))
    if answer.no_longer():
        if wrong and not gold:
            return _verdict(
                Outcome.WRONG, f"asserts {wrong[0]!r} and calls the fact void", "over_forgetting"
            )
        return _verdict(
            Outcome.MISSED, "reports a still-valid fact as no longer valid", "over_forgetting"
        )
    if gold and wrong:
        return _verdict(Outcome.WRONG, f"names gold and known-wrong value {wrong[0]!r}")
    if gold:
        return _verdict(Outcome.CORRECT, "names the value, no invalidation claimed")
    if wrong:
        return _verdict(Outcome.WRONG, f"names known-wrong value {wrong[0]!r}")
    if answer.has(STILL_CUES):
        return _verdict(Outcome.WRONG, "affirms the fact without naming its value (§5.5)")
    return _fallback(answer, "no accepted value named")


def _judge_list_order(answer: _Answer, key: AnswerKey, surfaced: frozenset[str] | None) -> Verdict:
    items = key.list_order or ()
    positions: dict[str, int] = {}
    for item in items:
        spans = answer.value_spans(item)
        if spans:
            positions[item] = spans[0][0]
    if not positions:
        return _fallback(answer, "no listed item named")
    # Pairwise order over every named item, surfaced or not (§5.4): naming an item the system
    # could not have seen, out of order, is still an inversion — the stricter reading.
    named = [item for item in items if item in positions]
    for earlier_index, earlier in enumerate(named):
        for later in named[earlier_index + 1:]:
            if positions[later] < positions[earlier]:
                return _verdict(Outcome.WRONG, f"inversion: {later!r} before {earlier!r}")
    required = [item for item in items if surfaced is None or item in surfaced]
    if missing := [item for item in required if item not in positions]:
        return _verdict(Outcome.WRONG, f"missing item {missing[0]!r}")
    if wrong := answer.named((*key.wrong, *key.stale)):
        return _verdict(Outcome.WRONG, f"lists known-wrong item {wrong[0]!r}")
    return _verdict(Outcome.CORRECT, "surfaced items named in gold order")


def committed_number(answer_norm: str, numbers: list[ExtractedNumber]) -> ExtractedNumber | None:
    """The figure an answer commits to: the first number after the last conclusion marker that has
    a number after it ("5 + 7 = 12" → 12, "in total $45 over 3 orders" → 45), else the last
    number.

    Hedges do not matter here: "probably 12" commits to 12 (§5.2 rule 1).
    """
    if not numbers:
        return None
    marker_ends = [
        end
        for cue in CONCLUSION_MARKERS
        for variant in _variants(cue)
        for _, end in phrase_spans(answer_norm, variant)
        if any(number.position >= end for number in numbers)
    ]
    if not marker_ends:
        return numbers[-1]
    last = max(marker_ends)
    return next(number for number in numbers if number.position >= last)


def _judge_numeric(answer: _Answer, key: AnswerKey) -> Verdict:
    assert key.numeric is not None
    committed = committed_number(answer.norm, extract_numbers(answer.norm))
    if committed is None:
        if key.numeric.value == 0 and answer.missed():
            return _verdict(Outcome.CORRECT, "confident negative matches a zero gold")
        return _fallback(answer, "no number found")
    gold = f"{key.numeric.value:g}"
    if numeric_matches(committed, key.numeric):
        how = "rounded figure" if committed.is_approximate else "figure"
        return _verdict(Outcome.CORRECT, f"{how} {committed.raw!r} matches gold {gold}")
    return _verdict(Outcome.WRONG, f"committed to {committed.raw!r}, gold {gold}")


def _judge_accepted(answer: _Answer, key: AnswerKey) -> Verdict:
    # Premature values count as known-wrong here too: on an after-arm, naming a reminder that is
    # not yet due is a wrong answer (premature itself is reserved for before-arms, §5.1).
    gold = answer.named((*key.accepted, *key.must_name))
    wrong = answer.named((*key.wrong, *key.stale, *key.premature))
    if gold and wrong:
        return _verdict(Outcome.WRONG, f"names gold and known-wrong value {wrong[0]!r}")
    if gold:
        if not _names_required(answer, key):
            return _verdict(Outcome.WRONG, "omits a value the gold requires (§5.5)")
        return _verdict(Outcome.CORRECT, f"names accepted value {gold[0]!r}")
    if wrong:
        return _verdict(Outcome.WRONG, f"names known-wrong value {wrong[0]!r}")
    return _fallback(answer, "no accepted value named")


def judge_answer(
    answer: str, key: AnswerKey, *, surfaced_items: frozenset[str] | None = None
) -> Verdict:
    """Judge one answer against its answer key; never returns ``Outcome.ERROR``.

    ``surfaced_items`` are the ``list_order`` items whose sessions reached the system (§5.4); a
    list answer is then only required to name those. ``None`` means all items are required.
    """
    norm = normalize(answer)
    if not norm:
        return _verdict(Outcome.ABSTAINED, "empty answer")
    reading = _Answer(norm=norm, key_values=_key_values(key))
    if key.expected_negative == "abstain":
        return _judge_abstain(reading, key)
    if key.expected_negative == "no_longer":
        return _judge_no_longer(reading, key)
    if key.expected_negative == "not_yet":
        return _judge_not_yet(reading, key)
    if key.expected_negative == "still":
        return _judge_still(reading, key)
    if key.list_order is not None:
        return _judge_list_order(reading, key, surfaced_items)
    if key.numeric is not None:
        return _judge_numeric(reading, key)
    return _judge_accepted(reading, key)


class MechanicalJudge:
    """The default judge as an object, so an LLM judge can sit beside it with the same surface:
    a ``name``, a ``fingerprint`` recorded with every result, and ``judge(answer, key, ...)``."""

    name: str = "mechanical"

    def __init__(self) -> None:
        self.fingerprint: str = JUDGE_FINGERPRINT

    def judge(
        self, answer: str, key: AnswerKey, surfaced_items: frozenset[str] | None = None,
        *, question: str | None = None,
    ) -> Verdict:
        """Delegate to :func:`judge_answer`; the question text is not needed by these rules."""
        return judge_answer(answer, key, surfaced_items=surfaced_items)
