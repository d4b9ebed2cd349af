"""The mechanical judge: a deterministic, rule-based verdict for one answer (docs/JUDGING.md).

:mod:`.reading` reads the answer — declines, denials, committed values, governing polarity,
invalidation claims — and this module applies the precedence of the contract for the kind of key
(positive, numeric, list, attribution, or a negative gold: ``no_longer``, ``not_yet``, ``abstain``,
``still``). No network, no randomness: the same answer and key always give the same verdict, and
the rules are pinned by :data:`JUDGE_FINGERPRINT`.

Two rules hold in every branch. A named value beats hedging (§5.2.1): a hedge must not turn a
wrong value into an abstention. And the judge never guesses: when no rule reads the answer, the
outcome is ``unjudged`` with the reason, counted apart and never pooled into ``wrong`` (Appendix C).

Bump :data:`JUDGE_RULESET_VERSION` whenever the precedence code changes; pattern and table changes
move the fingerprint on their own.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping

from ..corpus.models import AnswerKey, NumericKey
from .numbers import ExtractedNumber, currency_of, extract_numbers, numeric_matches, parsing_rules
from .outcomes import Outcome, Verdict
from .reading import Reading
from .reading_patterns import NO_LONGER_EVENT_CUES, reading_rules
from .text import NORMALISATION_RULES, normalize, phrase_spans, structured_statements

__all__ = [
    "JUDGE_FINGERPRINT", "JUDGE_RULESET_VERSION", "MechanicalJudge", "NO_LONGER_EVENT_CUES",
    "committed_number", "compute_fingerprint", "judge_answer", "judge_rules",
    "surfaced_order_consistent",
]

JUDGE_RULESET_VERSION = "9"

# --- numbers (J7) ------------------------------------------------------------------------------
# The committed figure follows the last of these that has a figure after it in its sentence…
CONCLUSION_MARKERS: tuple[str, ...] = (
    "=", "total", "totals", "totalling", "totaling", "in total", "altogether", "overall", "in all",
    "comes to", "came to", "come to", "adds up to", "add up to", "added up to", "sums to",
    "sum", "sum is", "difference", "the difference is", "answer", "result", "so", "therefore",
    "thus", "which gives", "giving",
)
# …or stands directly before one of these ("21 days in total").
TRAILING_CONCLUSIONS: tuple[str, ...] = ("in total", "total", "altogether", "overall", "in all")
# "A to B", "A-B", "between A and B", "A or B": two figures offered for one answer. A dash joins
# only digits on one line ("20-22"; a bullet's dash is not a range); a word joiner may have at most
# two words either side ("3 times, or possibly 4", "20 to 22 days"); "and" only after "between".
RANGE_PATTERNS: tuple[str, ...] = (
    r"^[ \t]*[-\u2013/][ \t]*(?:[$€£]|usd |eur |gbp )?$",
    r"^[ \t,]*(?:[\w$€£]+[ \t,]+){0,2}?(?:to|or|and)[ \t,]+(?:[\w$€£]+[ \t]+){0,2}?"
    r"(?:[$€£]|usd|eur|gbp)?[ \t]*$",
)
# The key's unit written out, so "6 purchases" beats "2 in March" when no marker is present.
UNIT_SYNONYMS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("purchases", ("purchases", "purchase", "times", "orders", "order", "visits", "trips")),
    ("days", ("days", "day")),
)

# --- list narrations (J13.11) ------------------------------------------------------------------
BACKWARDS_MARKERS = (
    r"\b(?:working backwards?|going backwards?|in reverse(?: order)?|reverse order|backwards|"
    r"from (?:the )?(?:last|latest|most recent|newest) to (?:the )?(?:first|earliest|oldest)|"
    r"starting (?:from|with|at) the (?:end|last|latest|most recent)|"
    r"before (?:that|him|her|them|it|those)|prior to (?:that|him|her|them))\b"
)
FIRST_MARKERS = r"\b(?:first|firstly|first of all|to begin with|to start with|initially|earliest)\b"
LAST_MARKERS = (r"\b(?:last|lastly|finally|at the end|latest|most recently)\b"
                r"(?! (?:week|month|year|time|night|summer|winter|spring|autumn))")

# --- difference direction (J13.12, J21.1) ----------------------------------------------------------
QUESTION_DIFFERENCE = r"how much (more|less) did i (?:spend|pay) (?:at|with|on|in) (.+?) than (?:at|with|on|in) (.+?)\?*$"
DIFFERENCE_HIGHER = (r"more|extra|higher|dearer|pricier|costlier|more expensive|ahead|on top|bigger|larger|"
                     r"greater")
DIFFERENCE_LOWER = r"less|fewer|lower|cheaper|less expensive|behind|smaller"
"""J21.1 (revision 9): comparatives that put one shop of a difference question above (spent more,
came out ahead, dearer) or below (spent less, cheaper, behind) the other."""
DIFFERENCE_GAP = (r"(?:(?:you|did|have|had|'?ve|spent|spend|paid|pay|money|cash|was|were|in|total|overall|"
                  r"altogether|went|out|over|all|\$?[\d.,]+|[$\u00a3\u20ac][\d.,]+|usd|eur|gbp|dollars|"
                  r"pounds|euros) ){0,4}?")
"""J21.1: words that may stand between a comparative and the shop it applies to ("more you spent
at B", "$40 more in total at B"); any other word ("more items at B") breaks the link."""
DIFFERENCE_SUBJECT_VERB = (r"(?:came|comes|come) (?:out|in)|ended up|ends up|cost(?: you)?|was|is|were|"
                           r"'s|worked out|came to|totalled|totaled|finished")
"""J21.1: the predicate that makes a shop the subject of a comparative ("B came out ahead by $X",
"A was cheaper by $X", "B cost you $X more")."""

# --- echoes of the conversation (J13.7) ---------------------------------------------------------
ROLE_LABEL = (r"^\s*[*_\[(>#-]*\s*(?:the )?(?:user|assistant|human|ai|system|bot|question|current date|"
              r"date|today'?s date|instruction|instructions|context|options|conversation|conversations)"
              r"\s*[*_\])]*\s*:")
"""J13.7 (revision 5 widened): a line opened by a turn's role or a prompt field's label ("Question:",
"Current date:", "Instruction:") is copied scaffolding, not the answer's claim. "Response:" /
"Answer:" open the answer's own line and are not in it."""
DATE_ANSWER = (r"(?:(?:mon|tue|wed|thu|fri|sat|sun)\w*,? )?\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}"
               r"(?: ?\((?:mon|tue|wed|thu|fri|sat|sun)\w*\))?(?:,? \d{1,2}:\d{2}(?: ?[ap]m)?)?")
"""J7.1 (revision 5): an answer that is nothing but a calendar date (after "The answer is:")
on a question asking for a quantity commits to something that is not the quantity: `wrong`."""
SCAFFOLD_LINE = r"^\s*[(\[][^()\[\]]*[)\]]\s*$"
"""J13.7: a line wholly in brackets beside echoed prompt lines is prompt scaffolding."""

# --- attribution (J9) --------------------------------------------------------------------------
ATTRIBUTION_CHOICES = frozenset({"me", "you", "both of us"})
# J9: any verb of saying with a person as subject reads as that speaker ("I remarked", "you
# observed"), not only the commonest few
_SPEECH_VERBS = (r"remarked|observed|commented|stated|noticed|flagged|added|explained|proposed|"
                 r"claimed|announced|warned|replied|answered|described|confirmed|complained|joked|"
                 r"insisted|admitted|recalled|reminded|asked|wondered|speculated|guessed|hinted|"
                 r"argued|advised|highlighted|spotted|let slip|relayed|revealed|disclosed|floated|"
                 r"called out|piped up|chimed in|griped|moaned|boasted|bragged|grumbled|noticed")
ATTRIBUTION_PATTERNS: tuple[tuple[str, str], ...] = (
    ("both", r"\b(?:both of us|we both|us both|both|each of us|the two of us|you and (?:i|me)|"
             r"(?:i|me) and you|both you and (?:i|me)|we each|together)\b"),
    ("assistant", r"\b(?:you \(the assistant\)|the assistant|the ai|(?:it|that) was (?:just |only )?me|i was the one|"
                  r"i (?:did|said|mentioned|told|was|brought|wrote|noted|raised|made|suggested|"
                  r"recommended|pointed|shared|reported|gave|" + _SPEECH_VERBS + r"))\b"),
    ("user", r"\b(?:me \(the person asking\)|the user|the person asking|(?:it|that) was (?:just |only )?you|"
             r"you were the one|you (?:did|said|mentioned|told|were|brought|wrote|noted|raised|made|"
             r"suggested|pointed|shared|reported|gave|" + _SPEECH_VERBS + r"))\b"),
)
BARE_ANSWER_PREFIXES = r"^(?:the answer is|answer)?\W*(?:(?:just|only|simply) )?"
SPEAKER_GLOSSES: tuple[tuple[str, str], ...] = (
    ("assistant", r"\byou,? ?(?:\(|\u2014|\u2013|-|,)\s*(?:i mean |that is |i\.e\.,? |meaning )?"
                  r"(?:the assistant|the ai|me,? the assistant)\b"),
    ("user", r"\b(?:you|me),? ?(?:\(|\u2014|\u2013|-|,)\s*(?:i mean |that is |i\.e\.,? |meaning )?"
             r"(?:the user|the person asking|the one asking)\b"),
)
"""J13.9: "It was you — the assistant." The gloss says which party; it wins over the sentence."""
_OPTION_OF = {"assistant": "you", "user": "me", "both": "both of us"}
_NEGATED_AFTER = re.compile(r"\s+(?:not|never)\b")
"""J20.12 (revision 8): a speaker with a negated verb ("you did not …", "I did not …") is not
named as the one who said it."""
_TWO_OPTIONS = re.compile(
    r"\b(?:either )?(?:me|you|both of us),? (?:or|and/or) (?:me|you|both of us)\b")


def judge_rules() -> dict[str, object]:
    """Every rule the judge applies, as plain JSON-able data (a fresh copy on each call)."""
    return {
        "version": JUDGE_RULESET_VERSION,
        "reading": json.loads(json.dumps(reading_rules())),
        "conclusion_markers": list(CONCLUSION_MARKERS),
        "trailing_conclusions": list(TRAILING_CONCLUSIONS),
        "range_patterns": list(RANGE_PATTERNS),
        "unit_synonyms": [[unit, list(words)] for unit, words in UNIT_SYNONYMS],
        "attribution": [list(pair) for pair in ATTRIBUTION_PATTERNS],
        "bare_answer_prefixes": BARE_ANSWER_PREFIXES,
        "speaker_glosses": [list(pair) for pair in SPEAKER_GLOSSES],
        "backwards_markers": BACKWARDS_MARKERS,
        "first_markers": FIRST_MARKERS,
        "last_markers": LAST_MARKERS,
        "question_difference": QUESTION_DIFFERENCE,
        "difference_higher": DIFFERENCE_HIGHER,
        "difference_lower": DIFFERENCE_LOWER,
        "difference_gap": DIFFERENCE_GAP,
        "difference_subject_verb": DIFFERENCE_SUBJECT_VERB,
        "role_label": ROLE_LABEL,
        "scaffold_line": SCAFFOLD_LINE,
        "date_answer": DATE_ANSWER,
        "normalisation": json.loads(json.dumps(NORMALISATION_RULES)),
        "numbers": parsing_rules(),
    }


def compute_fingerprint(rules: Mapping[str, object]) -> str:
    """SHA-256 hex of the canonical JSON of ``rules`` (sorted keys, no whitespace)."""
    canonical = json.dumps(rules, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


JUDGE_FINGERPRINT: str = compute_fingerprint(judge_rules())
"""Pins the judge's rules; runs judged under different fingerprints are not comparable."""


def _verdict(outcome: Outcome, reason: str, *subcounts: str) -> Verdict:
    return Verdict(outcome=outcome, reason=reason, subcounts=frozenset(subcounts))


def _key_values(key: AnswerKey) -> tuple[str, ...]:
    return (
        *key.accepted, *key.must_name, *key.wrong, *key.stale, *key.premature,
        *(key.list_order or ()),
    )


def _names_required(answer: Reading, key: AnswerKey) -> bool:
    """Every ``must_name`` value is named (§5.5). ``accepted`` spellings stand in for it only when
    there is a single ``must_name`` value, since they are spellings of *one* gold value."""
    if not key.must_name:
        return True
    if all(answer.names(value) for value in key.must_name):
        return True
    return len(key.must_name) == 1 and bool(answer.named(key.accepted))


def _unreadable(answer: Reading, what: str) -> Verdict:
    """The tail every branch shares: a hedged commitment to a value outside the key, a decline, a
    denial, or an honest "cannot read" (J0)."""
    if answer.hedges_a_commitment:
        return _verdict(Outcome.WRONG, "hedged commitment to a value that is not the gold (J3.2)")
    if answer.declines:
        return _verdict(Outcome.ABSTAINED, "declines to commit (J1)")
    if answer.denies:
        return _verdict(Outcome.MISSED, "confident negative where gold has something (J2)")
    return _verdict(Outcome.UNJUDGED, f"the rules cannot read this answer: {what}")


def _judge_abstain(answer: Reading, key: AnswerKey) -> Verdict:
    """Never-known probes (J5): a decline or a denial is the gold. With ``must_name`` (J5.1: the
    record holds a plan whose outcome it does not say) the answer must name it as well: a bare
    decline then abstains and a bare denial misses what the record does hold."""
    if answer.invalidates:
        if key.must_name and answer.mentioned(key.must_name):
            # J5.1 (J13.15): naming the recorded plan, "you booked X but then cancelled" claims an
            # outcome the record does not hold; it does not invent a lost fact. Without the plan
            # ("you had a booking, but it was cancelled") it is mis-attributed forgetting (§5.2.3)
            return _verdict(Outcome.WRONG, "claims an outcome (done, then undone) the record "
                                           "does not hold (J5.1)")
        return _verdict(
            Outcome.WRONG, "claims a never-known fact was once known (§5.2.3)",
            "misattributed_forgetting",
        )
    if committed := answer.committed((*key.accepted, *key.wrong, *key.stale, *key.premature)):
        return _verdict(Outcome.WRONG, f"commits to {committed[0]!r} on a never-known probe")
    if answer.hedges_a_commitment:
        return _verdict(Outcome.WRONG, "hedged commitment on a never-known probe (J3.2)")
    if answer.says_still_to_come:
        return _verdict(Outcome.WRONG, "says it is still to come where the gold says it is not known")
    if answer.says_pending:
        # J18.2: "you haven't picked one yet" claims the fact is pending, not absent
        return _verdict(Outcome.WRONG, "says it is pending (not yet) where the gold says it is "
                                       "not known (J18.2)")
    if answer.declines or answer.denies:
        if key.must_name and not answer.mentioned(key.must_name):
            if answer.declines:
                return _verdict(Outcome.ABSTAINED, "declines without naming "
                                                   f"{key.must_name[0]!r}, which the record holds "
                                                   "(J5.1)")
            return _verdict(Outcome.MISSED, "denies a record that holds "
                                            f"{key.must_name[0]!r} (J5.1)")
        return _verdict(Outcome.CORRECT, "declines or denies on a never-known probe")
    if answer.polarity == "fired" or answer.opens_with_yes:
        return _verdict(Outcome.WRONG, "affirms what the gold says is not known")
    if answer.asserts_current:
        # J13.16: "Marjorie Plank, and that's still current." asserts a current holder where the
        # gold says none is known, whatever the name (a state cue bound to another item does not
        # count, J13.5)
        return _verdict(Outcome.WRONG, "affirms a current value where the gold says none is known")
    return _verdict(Outcome.UNJUDGED, "the rules cannot read this answer: no decline, denial or "
                                      "known value")


def _judge_no_longer(answer: Reading, key: AnswerKey) -> Verdict:
    """Invalidated facts and expiring-validity after-arms (J5)."""
    gold = (*key.must_name, *key.accepted, *key.stale)
    other = answer.committed(v for v in (*key.wrong, *key.premature) if v not in gold)
    invalidates = answer.invalidates or answer.invalidates_value(gold)  # J19.4: cues follow value
    if (invalidates or answer.marked_as_context(gold)) and not other and \
            answer.declines_current_after(gold):
        # J13.6 / J19.3 / J21.2: a marked past value beside a decline is context; the answer is the
        # decline ("X used to, but I'm not sure who it is now", "X did it before, but I can't say
        # who does it these days")
        return _verdict(Outcome.ABSTAINED, "declines; the invalidated value is context (J13.6)")
    if invalidates:
        if other and not answer.named(gold):
            return _verdict(Outcome.WRONG, f"invalidates {other[0]!r}, not the gold value")
        if other:
            if (answer.committed(gold) and not answer.invalidates_value(gold)
                    and answer.invalidates_value(other)):
                # J20.6 (revision 8): the invalidation is of another value; the gold is asserted
                # as the current one ("You sold the X, and now you have the <gold>")
                return _verdict(Outcome.WRONG, f"invalidates {other[0]!r} and offers the stale "
                                               "value as current", "stale_recall")
            if not (answer.invalidated_as_past(gold) and answer.invalidated_as_past(other)):
                return _verdict(Outcome.WRONG, f"asserts {other[0]!r} beside the invalidation")
            # J3.4 / J21.4: every value named only as the invalidated past ("you had X, but you
            # parted with it; you also had Y, but you sold that too") commits to none as current
        if not _names_required(answer, key) or (not key.must_name and not answer.named(gold)):
            return _verdict(Outcome.MISSED, "acknowledges an invalidation but omits the value "
                                            "the gold names (§5.5)")
        return _verdict(Outcome.CORRECT, "acknowledges the fact no longer holds")
    if stale := answer.committed(gold):
        return _verdict(Outcome.WRONG, f"stale value {stale[0]!r} offered as current",
                        "stale_recall")
    if other:
        return _verdict(Outcome.WRONG, f"names known-wrong value {other[0]!r}")
    if answer.affirms_still and not answer.declines:
        return _verdict(Outcome.WRONG, "affirms an invalidated fact still holds", "stale_recall")
    return _unreadable(answer, "no invalidation, value, decline or denial")


def _judge_not_yet(answer: Reading, key: AnswerKey) -> Verdict:
    """Prospective before-arms (J6): the governing polarity decides."""
    allowed = (*key.must_name, *key.accepted, *key.premature)
    other = answer.committed(v for v in (*key.wrong, *key.stale) if v not in allowed)
    polarity = answer.polarity
    if polarity == "fired":
        return _verdict(Outcome.PREMATURE, "treats the not-yet as already true (J6)")
    if polarity == "not_yet":
        if other:
            return _verdict(Outcome.WRONG, f"says not yet but names {other[0]!r}")
        if not _names_required(answer, key):
            return _verdict(Outcome.MISSED, "says not yet but omits the value the gold names (§5.5)")
        return _verdict(Outcome.CORRECT, "says not yet")
    if premature := answer.committed(key.premature):
        return _verdict(Outcome.PREMATURE, f"acts on {premature[0]!r} before it is due")
    if key.must_name and answer.committed(key.must_name) and not other and not answer.invalidates:
        return _verdict(Outcome.CORRECT, "names the value as current, no end claimed")
    if answer.invalidates:
        return _verdict(Outcome.PREMATURE, "treats a not-yet validity end as already past")
    if other:
        return _verdict(Outcome.WRONG, f"names known-wrong value {other[0]!r}")
    return _unreadable(answer, "no not-yet, value, decline or denial")


def _judge_still(answer: Reading, key: AnswerKey) -> Verdict:
    """Still-valid controls (J5)."""
    gold = answer.committed((*key.accepted, *key.must_name))
    other = answer.committed(v for v in (*key.wrong, *key.stale) if v not in key.accepted)
    if answer.invalidates or answer.invalidates_value(key.accepted):
        if other:
            return _verdict(Outcome.WRONG, f"asserts {other[0]!r} and calls the fact void",
                            "over_forgetting")
        return _verdict(Outcome.MISSED, "reports a still-valid fact as no longer valid",
                        "over_forgetting")
    if gold and other:
        return _verdict(Outcome.WRONG, f"names gold and known-wrong value {other[0]!r} (J3.4)")
    if gold:
        return _verdict(Outcome.CORRECT, "names the value, no invalidation claimed")
    if other:
        return _verdict(Outcome.WRONG, f"names known-wrong value {other[0]!r}")
    if answer.affirms_still and not answer.declines:
        return _verdict(Outcome.WRONG, "affirms the fact without naming its value (§5.5)")
    return _unreadable(answer, "no value, decline or denial")


def _stated_positions(answer: Reading, positions: dict[str, int]) -> dict[str, float]:
    """J13.11: the order the answer states. Mention order, reversed under a backwards narration
    ("working backwards: Z last, Y before that"); an item whose clause says "first" goes to the
    front and one whose clause says "last" / "finally" to the back ("first X, last Z, in between Y")."""
    backwards = _BACKWARDS.search(answer.norm) is not None
    rank = {item: (-pos if backwards else pos) for item, pos in positions.items()}
    for item, pos in positions.items():
        clause = answer.norm[answer.clause_start(pos):answer.clause_end(pos + 1)]
        if _FIRST.search(clause):
            rank[item] -= 10 ** 7
        elif _LAST.search(clause):
            rank[item] += 10 ** 7
    return rank


def _judge_list_order(answer: Reading, key: AnswerKey) -> Verdict:
    """List order (J8, J13.11): the whole list, in the order the answer states it."""
    items = key.list_order or ()
    found = {item: pos for item in items if (pos := answer.first_position(item)) is not None}
    if not found:
        return _unreadable(answer, "no listed item named")
    positions = _stated_positions(answer, found)
    named = [item for item in items if item in positions]
    for earlier_index, earlier in enumerate(named):
        for later in named[earlier_index + 1:]:
            if positions[later] < positions[earlier]:
                return _verdict(Outcome.WRONG, f"inversion: {later!r} before {earlier!r}")
    if missing := [item for item in items if item not in positions]:
        return _verdict(Outcome.WRONG, f"missing item {missing[0]!r}")
    if wrong := answer.committed(v for v in (*key.wrong, *key.stale) if v not in items):
        return _verdict(Outcome.WRONG, f"lists known-wrong item {wrong[0]!r}")
    return _verdict(Outcome.CORRECT, "every item named in gold order")


def surfaced_order_consistent(answer: str, key: AnswerKey, surfaced_items: frozenset[str] | None,
                              question: str | None = None) -> bool | None:
    """Order consistency over the surfaced items (J13.11, issue 21 item 3): whether the list items
    the answer names *among those whose sessions reached the system* stand in gold order, read as
    :func:`_judge_list_order` reads order. Its own reported figure, never a verdict: a system that
    surfaced two of four sessions and ordered those two right is consistent, not ``correct``.
    ``None`` when there is nothing to order (no list key, no evidence, fewer than two surfaced
    items named)."""
    if key.list_order is None or surfaced_items is None:
        return None
    answer = structured_statements(answer)  # J18.4: `"lapsed": false` reads "not lapsed"
    reading = Reading.of(answer, _key_values(key), question)
    found = {item: pos for item in key.list_order
             if item in surfaced_items and (pos := reading.first_position(item)) is not None}
    if len(found) < 2:
        return None
    positions = _stated_positions(reading, found)
    named = [item for item in key.list_order if item in positions]
    return all(positions[a] < positions[b] for i, a in enumerate(named) for b in named[i + 1:])


def _unit_words(key: NumericKey) -> tuple[str, ...]:
    unit = (key.unit or "").casefold()
    for name, words in UNIT_SYNONYMS:
        if unit == name:
            return words
    return (unit,) if unit and unit.isalpha() and len(unit) > 3 else ()


def committed_number(
    answer_norm: str, numbers: list[ExtractedNumber], key: NumericKey | None = None
) -> ExtractedNumber | None:
    """The concluding figure (J7.1): after the last conclusion marker with a figure after it in
    its sentence, or directly before a trailing "in total"; else the first figure in the key's
    unit; else the first figure. Working and trailing context are not the answer."""
    if key is not None:
        # A figure in another currency than the key's, or in any currency where the key counts
        # things, is a different quantity ("6 purchases, $1,234.00 in total" on a count).
        key_currency = currency_of(key.unit)
        numbers = [n for n in numbers
                   if n.currency is None or n.currency == key_currency] or numbers
    if not numbers:
        return None
    best: tuple[int, ExtractedNumber] | None = None
    marker_spans = {marker: phrase_spans(answer_norm, marker) for marker in CONCLUSION_MARKERS}
    every = [span for spans in marker_spans.values() for span in spans]
    for marker in CONCLUSION_MARKERS:
        for start, end in marker_spans[marker]:
            if any(s <= start and end <= e and (s, e) != (start, end) for s, e in every):
                continue  # "total" inside "in total" is that marker, read once (J7.1)
            number = _figure_before(answer_norm, numbers, start) if marker in TRAILING_CONCLUSIONS \
                else None
            if number is None:  # "the total is 21": the figure follows the marker
                sentence_end = _sentence_end(answer_norm, end)
                after = [n for n in numbers if end <= n.position < sentence_end]
                number = after[0] if after else None
            if number is not None and (best is None or start > best[0]):
                best = (start, number)
    if best is not None:
        return best[1]
    if key is not None:
        currency = key.unit.upper() if key.unit and key.unit.upper() in {"USD", "EUR", "GBP"} else None
        for number in numbers:
            if currency and number.currency == currency:
                return number
            following = answer_norm[number.position + len(number.raw):].split()[:1]
            if following and following[0].strip(".,;:!?()") in _unit_words(key):
                return number
    return numbers[0]


def _figure_before(text: str, numbers: list[ExtractedNumber], start: int) -> ExtractedNumber | None:
    """"$2,174.95 in total across five orders": a trailing conclusion directly after a figure
    (at most two words between, no punctuation) concludes that figure, not the one after it."""
    before = [n for n in numbers if n.position + len(n.raw) <= start]
    if not before:
        return None
    number = before[-1]
    gap = text[number.position + len(number.raw):start]
    # emphasis closing on the figure is transparent: "**35 days** in total" (not "… 1 days **total")
    return number if len(gap.split()) <= 2 and re.fullmatch(r"[ \w]*?[*_]+ |[ \w]*", gap) else None


def _sentence_end(text: str, position: int) -> int:
    match = re.compile(r"[!?;\n]|\.(?!\d)").search(text, position)
    return match.start() if match else len(text)


_RANGE_DASH, _RANGE_WORDS = (re.compile(pattern) for pattern in RANGE_PATTERNS)
_BACKWARDS, _FIRST, _LAST = (re.compile(p) for p in (BACKWARDS_MARKERS, FIRST_MARKERS, LAST_MARKERS))
_SENTENCE_OPENING = re.compile(r"[!?;\n]|\.(?!\d)")
_RESTATED_QUESTION = re.compile(r"\b(?:asked|ask|asking|question|wonder|wondered|wondering|want(?:ed)? "
                                r"to know)\b")
_ROLE_LABEL = re.compile(ROLE_LABEL)
_SCAFFOLD_LINE = re.compile(SCAFFOLD_LINE)
_OWN_LINE = re.compile(r"\b(?:answer|response)\s*[*_]*\s*:")
_INSTRUCTION_LINE = re.compile(r"^\W*(?:instructions?|options|context|system)\b")
_DATE_ANSWER = re.compile(DATE_ANSWER)


def _spoken_lines(answer: str, question: str | None) -> tuple[list[str], list[str]]:
    """J13.7: the answer's lines, and those it says rather than copies. Copied are role- or
    field-labelled lines, a verbatim copy of the question, and — beside such an echo — a line
    wholly in brackets (prompt scaffolding such as a notice that no conversations exist)."""
    lines = [line for line in answer.splitlines() if line.strip()]
    asked = normalize(question or "").strip(" ?.")
    echoed = [bool(_ROLE_LABEL.match(line.casefold())) or
              (bool(asked) and normalize(line).strip(" ?.") == asked) for line in lines]
    if any(echoed):
        echoed = [e or bool(_SCAFFOLD_LINE.match(line)) for e, line in zip(echoed, lines)]
    spoken = []
    for line, e in zip(lines, echoed):
        if not e:
            spoken.append(line)
            continue
        own = _OWN_LINE.search(line.casefold())  # "Question: …? Answer: X" keeps "X"
        if own and not _INSTRUCTION_LINE.match(line.casefold()) and line[own.end():].strip():
            spoken.append(line[own.end():])
    return lines, spoken


def _range_partner(answer_norm: str, numbers: list[ExtractedNumber],
                   committed: ExtractedNumber) -> ExtractedNumber | None:
    """The other end of "A-B", "A to B", "between A and B", "A or B" around the committed figure."""
    index = numbers.index(committed)
    dash, pattern = _RANGE_DASH, _RANGE_WORDS
    for left, right in ((index - 1, index), (index, index + 1)):
        if 0 <= left and right < len(numbers):
            a, b = numbers[left], numbers[right]
            gap = answer_norm[a.position + len(a.raw):b.position]
            if (dash.match(gap) or pattern.match(gap)) and (" and " not in f" {gap} " or "between" in
                                      answer_norm[max(0, a.position - 10):a.position]):
                return b if a is committed else a
    return None


def _difference_links(answer: Reading, shop: str) -> list[tuple[int, bool]]:
    """J21.1: where the answer puts ``shop`` above (True) or below (False) the other side of the
    difference, by position of the comparative: "<more> at <shop>", "<more> than at <shop>"
    (below), "<shop> came out ahead / was cheaper / cost $X more"."""
    name = re.escape(shop)
    links: list[tuple[int, bool]] = []
    for degree, higher in ((DIFFERENCE_HIGHER, True), (DIFFERENCE_LOWER, False)):
        comparative = rf"(?<!more or )\b(?P<c>{degree})\b(?! or (?:less|more)\b)"
        applies = rf"{comparative} {DIFFERENCE_GAP}(?:at|with|on|in|from|for) (?:the )?{name}\b"
        other = (rf"{comparative} (?:(?!than\b)\S+ ){{0,5}}?than (?:(?:at|with|on|in|from|for|what "
                 rf"you (?:spent|paid) (?:at|with|on|in))\s)?(?:the )?{name}\b")
        subject = (rf"(?:^|[.;!?:\n(\u2014\u2013]\s*|, (?:so |and |but )?|\b(?:so|and|but|while|whereas) )\W*"
                   rf"(?:(?:the |your )?(?:\w+ ){{0,2}}?(?:at|with|from) )?(?:the )?{name}(?:'s)? "
                   rf"(?:{DIFFERENCE_SUBJECT_VERB}) (?:(?:[^.;!?,\n]|[.,](?=\d)){{0,30}}? )?{comparative}")
        for pattern, side in ((applies, higher), (other, not higher), (subject, higher)):
            for match in re.finditer(pattern, answer.norm):
                links.append((match.start("c"), side))
    return links


def _reversed_difference(answer: Reading, question: str | None) -> bool:
    """J13.12, J21.1: the answer puts the question's two sides the other way round — "£X more at B
    than at A", "B came out ahead by £X", "A was cheaper by £X" where the question asks how much
    more at A than at B. A comparative that is negated, retracted by a later self-correction, or
    inside a restated question does not count; a bare figure names no direction. Two directions
    stated both ways commit to two differences (J3.4): the reversed one makes the answer wrong."""
    asked = re.search(QUESTION_DIFFERENCE, normalize(question or ""))
    if asked is None:
        return False
    first_higher = asked.group(1) == "more"
    first, second = asked.group(2).strip(), asked.group(3).strip()
    corrected = max([*answer.correction_points, *answer.retraction_points], default=-1)
    for shop, is_first in ((first, True), (second, False)):
        for position, higher in _difference_links(answer, shop):
            if position < corrected or answer.negated(position):
                continue
            opening = [m.end() for m in _SENTENCE_OPENING.finditer(answer.norm, 0, position)]
            before = answer.norm[opening[-1] if opening else 0:position]
            if _RESTATED_QUESTION.search(before) or \
                    "?" in answer.norm[position:answer.sentence_end(position) + 1]:
                continue  # the question restated or asked back (J20.1)
            if higher != (is_first == first_higher):
                return True
    return False


def _judge_numeric(answer: Reading, key: AnswerKey, question: str | None = None) -> Verdict:
    """Numbers (J7)."""
    assert key.numeric is not None
    if _reversed_difference(answer, question):
        return _verdict(Outcome.WRONG, "states the difference the other way round (J13.12, J21.1)")
    numbers = [n for n in extract_numbers(answer.norm)
               if not any(s <= n.position < e for s, e in answer.decline_scopes)]
    if answer.retraction_points:
        # J18.1: "37 days — no, sorry, I don't actually know": figures before a retraction into a
        # decline are withdrawn
        numbers = [n for n in numbers if n.position >= answer.retraction_points[-1]]
    if answer.correction_points:
        # "20 days — sorry, 21 days": figures before a self-correction are retracted (J3.3).
        after = [n for n in numbers if n.position >= answer.correction_points[-1]]
        numbers = after or numbers
    committed = committed_number(answer.norm, numbers, key.numeric)
    gold = f"{key.numeric.value:g}"
    if committed is None:
        if key.numeric.value == 0 and answer.denies:
            return _verdict(Outcome.CORRECT, "confident negative matches a zero gold")
        bare = re.sub(BARE_ANSWER_PREFIXES, "", answer.norm).strip(" .!*\"'`")
        if _DATE_ANSWER.fullmatch(bare):
            return _verdict(Outcome.WRONG, f"answers a date ({bare!r}) where a quantity is asked, "
                                           f"gold {gold} (J7.1)")
        return _unreadable(answer, "no figure found")
    if committed.value == 0 and key.numeric.value != 0:
        return _verdict(Outcome.MISSED, f"commits to zero where gold is {gold} (J2)")
    partner = _range_partner(answer.norm, numbers, committed)
    if partner is not None:
        if numeric_matches(committed, key.numeric) and numeric_matches(partner, key.numeric):
            return _verdict(Outcome.CORRECT, f"both ends of the range match gold {gold}")
        return _verdict(Outcome.WRONG, f"offers {committed.raw!r} and {partner.raw!r}, gold {gold}")
    if numeric_matches(committed, key.numeric):
        how = "rounded figure" if committed.is_approximate else "figure"
        return _verdict(Outcome.CORRECT, f"{how} {committed.raw!r} matches gold {gold}")
    return _verdict(Outcome.WRONG, f"committed to {committed.raw!r}, gold {gold}")


def _attribution_option(answer: Reading) -> str | None:
    """J9: a bare option as the question words it; a sentence by speaker meaning."""
    bare = re.sub(BARE_ANSWER_PREFIXES, "", answer.norm).strip(" .!*\"'`{}")
    bare = re.sub(r'^"?\w+"?\s*:\s*"?', "", bare).strip(" .!*\"'`{}")  # {"answer": "you"}
    if bare in ATTRIBUTION_CHOICES:
        return bare
    for who, pattern in SPEAKER_GLOSSES:
        if re.search(pattern, answer.norm):
            return _OPTION_OF[who]
    if any(not any(s <= m.start() < e for s, e in answer.decline_scopes)
           for m in _TWO_OPTIONS.finditer(answer.norm)):
        return "two options"
    found = set()
    for who, pattern in ATTRIBUTION_PATTERNS:
        for match in re.finditer(pattern, answer.norm):
            if _NEGATED_AFTER.match(answer.norm, match.end()):
                continue  # J20.12: "You did not provide the answer" names no speaker
            if not any(s <= match.start() < e for s, e in answer.decline_scopes):
                found.add(who)
                break
    if "both" in found or {"assistant", "user"} <= found:
        return "both of us"
    if found:
        return _OPTION_OF[found.pop()]
    return None


def _judge_attribution(answer: Reading, key: AnswerKey) -> Verdict:
    option = _attribution_option(answer)
    if option is None:
        return _unreadable(answer, "no option read")
    if option == "two options":
        return _verdict(Outcome.WRONG, "offers two options, commits to neither (J3.4)")
    if option in key.accepted:
        return _verdict(Outcome.CORRECT, f"reads as option {option!r}")
    return _verdict(Outcome.WRONG, f"reads as option {option!r}")


def _judge_accepted(answer: Reading, key: AnswerKey) -> Verdict:
    """Positive golds (J4). Premature values count as known-wrong: on an after-arm, naming a
    reminder that is not yet due is a wrong answer (premature is reserved for before-arms)."""
    if answer.says_not_due:
        return _verdict(Outcome.MISSED, "says not yet where gold says it is due now (J4.2)")
    if answer.pending_governs((*key.accepted, *key.must_name, *key.wrong, *key.stale,
                               *key.premature)):
        # J19.2: "Nothing's lined up yet; you were going to ring X": a governing not-yet, the
        # value only the plan or an open choice
        return _verdict(Outcome.MISSED, "says the asked thing is not done yet; values only as a "
                                        "plan or an open choice (J4.2, J19.2)")
    gold = answer.committed((*key.accepted, *key.must_name))
    other = answer.committed(
        v for v in (*key.wrong, *key.stale, *key.premature) if v not in key.accepted
    )
    if gold and other:
        return _verdict(Outcome.WRONG, f"names gold and known-wrong value {other[0]!r} (J3.4)")
    if gold:
        if not _names_required(answer, key):
            return _verdict(Outcome.WRONG, "omits a value the gold requires (§5.5)")
        return _verdict(Outcome.CORRECT, f"names accepted value {gold[0]!r}")
    if other:
        return _verdict(Outcome.WRONG, f"names known-wrong value {other[0]!r}")
    return _unreadable(answer, "no value from the key named")


def judge_answer(
    answer: str, key: AnswerKey, *, surfaced_items: frozenset[str] | None = None,
    question: str | None = None,
) -> Verdict:
    """Judge one answer against its answer key; never returns ``Outcome.ERROR``.

    ``surfaced_items`` (the ``list_order`` items whose sessions reached the system) no longer lower
    what a list answer must name (J13.11: an adapter's own evidence cannot raise its outcome); the
    argument is kept for callers and ignored by the verdict. ``question`` lets the judge read the
    direction of a difference (J13.12); without it that rule is skipped.
    """
    lines, spoken = _spoken_lines(answer, question)
    if lines and not spoken:
        return _verdict(Outcome.UNJUDGED, "the answer only echoes conversation turns or the "
                                          "prompt (J13.7)")
    if len(spoken) < len(lines):
        answer = "\n".join(spoken)
    answer = structured_statements(answer)  # J18.4: `"lapsed": false` reads "not lapsed"
    reading = Reading.of(answer, _key_values(key), question)
    if not reading.norm:
        return _verdict(Outcome.ABSTAINED, "empty answer")
    verdict = _judge(reading, key, question)
    if reading.truncated:
        verdict = Verdict(verdict.outcome, f"{verdict.reason} (read the first "
                                           f"{len(reading.norm)} characters only)", verdict.subcounts)
    return verdict


def _judge(reading: Reading, key: AnswerKey, question: str | None) -> Verdict:
    if key.expected_negative == "abstain":
        return _judge_abstain(reading, key)
    if key.expected_negative == "no_longer":
        return _judge_no_longer(reading, key)
    if key.expected_negative == "not_yet":
        return _judge_not_yet(reading, key)
    if key.expected_negative == "still":
        return _judge_still(reading, key)
    if key.list_order is not None:
        return _judge_list_order(reading, key)
    if key.numeric is not None:
        return _judge_numeric(reading, key, question)
    if key.choices and frozenset(key.choices) == ATTRIBUTION_CHOICES:
        return _judge_attribution(reading, key)
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
        """Delegate to :func:`judge_answer`, with the question for the rules that read it."""
        return judge_answer(answer, key, surfaced_items=surfaced_items, question=question)
