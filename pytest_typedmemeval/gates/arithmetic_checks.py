"""Arithmetic's structural check, V5 (GATES.md §1): a derivation is recomputable from the haystack
and unambiguous.

Declared with the vertical, not chosen by name: :mod:`.vertical_specs` gives each Arithmetic shape
its ``operation`` (``count``, ``sum``, ``delta``, ``duration``), and the structure gate runs
:func:`check_derivation` on every record whose shape declares one or that carries a derivation.
The amount reader and the coincident-subset search are shared with the Arithmetic generator, which
draws values the search cannot find a second way to.

Readings (the stricter one each time): an input is "literal" only as an amount carrying the
derivation's unit (so the coincidence search sees it too); durations are checked against
timestamps, in calendar days for days/weeks (:data:`CALENDAR_UNITS`). A distractor equal to a gold
input is an alternative subset, which also enforces §2.3 rule 3 (each input value appears once).
Residual risk, documented rather than denied (§2.3 rule 2): coincidences larger than G + 1 values,
amounts written in words, and for durations another pair of session timestamps whose span equals
the gold (only duration amounts stated in text are searched).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from fractions import Fraction
from typing import Protocol

from ..corpus.models import Derivation, QuestionRecord
from .vertical_specs import ShapeSpec


class Findings(Protocol):
    """Where a check records a refusal (the structure gate's findings, which name the vertical)."""

    def refuse(self, rule: str, subject: str, value: float | str | None, detail: str,
               shape: str | None = None) -> None: ...


SUBSET_EXTRA = 1
"""V5 (GATES.md §1): alternative subsets are searched up to size G + 1."""


# --- amounts in text (VERTICALS.md §2.3) ----------------------------------------------------------

CURRENCY_SYMBOLS = {"$": "USD", "£": "GBP", "€": "EUR"}
UNIT_ALIASES = {
    "usd": "USD", "dollar": "USD", "dollars": "USD", "bucks": "USD",
    "eur": "EUR", "euro": "EUR", "euros": "EUR",
    "gbp": "GBP", "quid": "GBP",
    "minute": "minutes", "minutes": "minutes", "min": "minutes", "mins": "minutes",
    "hour": "hours", "hours": "hours", "hr": "hours", "hrs": "hours",
    "day": "days", "days": "days",
    "week": "weeks", "weeks": "weeks",
}
"""Unit words and their canonical unit. "pounds" is left out on purpose (weight or money?)."""
TIME_UNIT_SECONDS = {"minutes": 60, "hours": 3600, "days": 86400, "weeks": 604800}
CALENDAR_UNITS = frozenset({"days", "weeks"})
"""Durations in these units count calendar days between the two sessions' dates ("how many days
passed" from Saturday 09:05 to the next Monday 17:25 is 2), weeks being those days / 7; minutes and
hours are the exact elapsed time. A generator that wants another reading declares a tolerance."""


def duration_between(start: datetime, end: datetime, unit: str) -> Fraction:
    """The duration from ``start`` to ``end`` in ``unit`` under the :data:`CALENDAR_UNITS` convention."""
    if unit in CALENDAR_UNITS:
        days = (end.date() - start.date()).days
        return Fraction(days * 86400, TIME_UNIT_SECONDS[unit])
    return Fraction(int((end - start).total_seconds()), TIME_UNIT_SECONDS[unit])

AMOUNT_PATTERN = re.compile(
    r"(?:(?P<symbol>[$£€])\s?)?(?<![\d.,])(?P<number>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?![\d]|[.,]\d)(?:[\s-]?(?P<word>[A-Za-z]+))?"
)
"""An amount in message text: an optional currency symbol ($ £ €), a number (thousands commas and
decimals allowed, trailing punctuation excluded), and the word right after it (space or hyphen
between: "45 dollars", "3-day"). The unit is the symbol's currency, else the canonical form of that
word (:data:`UNIT_ALIASES`; any other word lowercased with a trailing "s" dropped, so a derivation
in "km" or "parcels" finds "12 km" / "3 parcels"). Not read: number words ("twelve"), a unit before
the number ("USD 45"), magnitude suffixes ("1.2k"), negative signs. A bare number has no unit and is
never a same-unit value."""


def canonical_unit(text: str) -> str:
    """The canonical unit of a derivation unit, a symbol or a unit word (see :data:`AMOUNT_PATTERN`)."""
    stripped = text.strip()
    if stripped in CURRENCY_SYMBOLS:
        return CURRENCY_SYMBOLS[stripped]
    low = stripped.lower()
    if low in UNIT_ALIASES:
        return UNIT_ALIASES[low]
    return low[:-1] if low.endswith("s") and len(low) > 3 else low


@dataclass(frozen=True)
class Amount:
    """One amount found in message text, with where it was found."""

    value: Fraction
    unit: str | None
    session_index: int
    turn_index: int
    text: str


def extract_amounts(text: str, *, session_index: int = 0, turn_index: int = 0) -> list[Amount]:
    """Every amount :data:`AMOUNT_PATTERN` finds in ``text``, values exact as written."""
    out: list[Amount] = []
    for match in AMOUNT_PATTERN.finditer(text):
        value = Fraction(Decimal(match.group("number").replace(",", "")))
        if match.group("symbol"):
            unit: str | None = CURRENCY_SYMBOLS[match.group("symbol")]
        elif match.group("word"):
            unit = canonical_unit(match.group("word"))
        else:
            unit = None
        shown = match.group("number") if match.group("symbol") is None or unit is None else \
            match.group("symbol") + match.group("number")
        if not match.group("symbol") and unit is not None and match.group("word"):
            shown = f"{match.group('number')} {match.group('word')}"
        out.append(Amount(value, unit, session_index, turn_index, shown))
    return out


def _exact(value: float) -> Fraction:
    """The decimal a JSON number was written as (``0.1`` is 1/10, not the nearest binary double)."""
    return Fraction(Decimal(repr(value)))


def _in_unit(amount: Amount, unit: str) -> Fraction | None:
    """``amount`` expressed in ``unit``, converting between time units; ``None`` if incomparable."""
    if amount.unit == unit:
        return amount.value
    if amount.unit in TIME_UNIT_SECONDS and unit in TIME_UNIT_SECONDS:
        return amount.value * TIME_UNIT_SECONDS[amount.unit] / TIME_UNIT_SECONDS[unit]
    return None


# --- alternative subsets ---------------------------------------------------------------------------


@dataclass(frozen=True)
class SubsetItem:
    """A value in a question's pool. Gold items carry the sign the derivation gives them (+1/-1)."""

    value: Fraction
    label: str
    gold_sign: int = 0
    """0 for a distractor value; +1 / -1 for a gold input (delta side b is -1)."""


def _to_ints(values: Sequence[Fraction]) -> list[int]:
    """Scale exact values to integers sharing one unit (the common denominator)."""
    scale = 1
    for value in values:
        scale = scale * value.denominator // math.gcd(scale, value.denominator)
    return [int(value * scale) for value in values]


def _alternative_exists(items: Sequence[SubsetItem], lo: int, hi: int, ints: Sequence[int],
                        max_size: int, signed: bool) -> bool:
    """Is there a subset of size 1..max_size, not the gold subset, whose total lies in [lo, hi]?

    Bitset dynamic programme over (subset size, "deviates from gold" flag): bit s of
    ``reach[c][f]`` says some subset of c items sums to s (shifted by ``offset`` when signed).
    A subset deviates when it uses a distractor, or a gold input with the opposite sign. Subsets of
    gold inputs with their own signs are checked by the caller (there are at most 2^G of them).
    Cost is O(items x max_size x width / wordsize); width is bounded by the target when values
    are all added, by the sum of the max_size largest magnitudes when signs may vary.
    """
    if signed:
        offset = sum(sorted((abs(v) for v in ints), reverse=True)[:max_size])
        width = 2 * offset + 1
    else:
        offset = 0
        width = hi + 1
        if hi < 0:
            return False
    mask = (1 << width) - 1
    reach = [[0, 0] for _ in range(max_size + 1)]
    reach[0][0] = 1 << offset
    for item, value in zip(items, ints, strict=True):
        if not signed and value > hi:
            continue
        signs = (1, -1) if signed else (1,)
        for size in range(max_size, 0, -1):
            for flag in (0, 1):
                source = reach[size - 1][flag]
                if not source:
                    continue
                for sign in signs:
                    moved = (source << value) & mask if sign > 0 else source >> value
                    deviates = flag or item.gold_sign != sign
                    reach[size][1 if deviates else 0] |= moved
    lo_bit, hi_bit = max(lo + offset, 0), min(hi + offset, width - 1)
    if lo_bit > hi_bit:
        return False
    window = ((1 << (hi_bit - lo_bit + 1)) - 1) << lo_bit
    return any(reach[size][1] & window for size in range(1, max_size + 1))


def find_coincident_subset(items: Sequence[SubsetItem], target: Fraction, tolerance: Fraction,
                           max_size: int, *, signed: bool) -> list[tuple[int, SubsetItem]] | None:
    """A subset other than the gold inputs that reaches ``target`` within ``tolerance``, or ``None``.

    ``signed`` (deltas) lets every chosen item be added or subtracted; otherwise items are added
    (sums, durations). Items are identities, not values: a distractor equal to a gold input is an
    alternative (swap it in). Returns the witness as ``(sign, item)`` pairs.
    """
    gold = [item for item in items if item.gold_sign]
    for size in range(1, len(gold)):
        for combo in _combinations(gold, size):
            if abs(sum(item.gold_sign * item.value for item in combo) - target) <= tolerance:
                return [(item.gold_sign, item) for item in combo]
    if not items:
        return None
    ints = _to_ints([*(item.value for item in items), target, tolerance])
    ints, target_int, tolerance_int = ints[:-2], ints[-2], ints[-1]
    step = 0
    for value in ints:
        step = math.gcd(step, value)
    step = step or 1
    lo = -((-(target_int - tolerance_int)) // step)
    hi = (target_int + tolerance_int) // step
    reduced = [value // step for value in ints]
    if lo > hi or not _alternative_exists(items, lo, hi, reduced, max_size, signed):
        return None
    # Witness: drop every item the alternative does not need; what is left is one alternative.
    keep = list(range(len(items)))
    for index in list(keep):
        trial = [i for i in keep if i != index]
        if _alternative_exists([items[i] for i in trial], lo, hi, [reduced[i] for i in trial],
                               max_size, signed):
            keep = trial
    chosen = [items[i] for i in keep]
    for signs in _sign_patterns(len(chosen), signed):
        total = sum(sign * item.value for sign, item in zip(signs, chosen, strict=True))
        deviates = any(item.gold_sign != sign for sign, item in zip(signs, chosen, strict=True))
        if deviates and abs(total - target) <= tolerance:
            return list(zip(signs, chosen, strict=True))
    return [(1, item) for item in chosen]  # unreachable in exact arithmetic; kept total


def _combinations(items: Sequence[SubsetItem], size: int) -> Iterable[tuple[SubsetItem, ...]]:
    from itertools import combinations

    return combinations(items, size)


def _sign_patterns(count: int, signed: bool) -> Iterable[tuple[int, ...]]:
    from itertools import product

    return product((1, -1), repeat=count) if signed else [(1,) * count]


# --- the check -------------------------------------------------------------------------------------


def check_derivation(record: QuestionRecord, shape_spec: ShapeSpec | None,
                      times: list[datetime] | None, out: Findings) -> None:
    qid, shape = record.question_id, record.shape
    derivation = record.typedmemeval.derivation
    expected_op = shape_spec.operation if shape_spec is not None else None
    if derivation is None:
        out.refuse("v5_inputs", qid, None, f"shape {shape} needs a derivation ({expected_op})", shape)
        return
    if expected_op is not None and derivation.operation != expected_op:
        out.refuse("v5_inputs", qid, derivation.operation, f"shape {shape} derives by "
                   f"{expected_op}", shape)
        return
    key = record.typedmemeval.answer_key.numeric
    numbers = [derivation.value, *(item.value for item in derivation.inputs)]
    numbers += [key.value, key.tolerance] if key is not None else []
    if not all(math.isfinite(number) for number in numbers):
        out.refuse("v5_inputs", qid, None, "derivation or numeric key holds a non-finite number",
                   shape)
        return
    tolerance = _exact(key.tolerance) if key is not None else Fraction(0)
    recorded = _exact(derivation.value)
    unit = canonical_unit(derivation.unit)
    if key is not None and (abs(_exact(key.value) - recorded) > tolerance or
                            (key.unit is not None and canonical_unit(key.unit) != unit)):
        out.refuse("v5_value", qid, key.value, f"answer_key.numeric ({key.value} {key.unit}) "
                   f"differs from derivation.value ({derivation.value} {derivation.unit})", shape)
    gold = set(record.gold_session_indices)
    n = len(record.haystack_sessions)
    if any(item.session_index >= n or (item.from_session_index or 0) >= n
           for item in derivation.inputs):
        out.refuse("v5_inputs", qid, None, "an input's session index lies outside the haystack", shape)
        return
    if derivation.operation == "count":
        _check_count(record, derivation, recorded, gold, out)
    elif derivation.operation == "duration":
        _check_duration(record, derivation, recorded, tolerance, unit, gold, times, out)
    else:
        _check_sum_or_delta(record, derivation, recorded, tolerance, unit, gold, out)


def _check_count(record: QuestionRecord, derivation: Derivation, recorded: Fraction,
                 gold: set[int], out: Findings) -> None:
    qid, shape = record.question_id, record.shape
    candidates = record.typedmemeval.candidates
    if not candidates:
        out.refuse("v5_inputs", qid, None, "a count needs its candidates (every candidate event, "
                   "gold or not, with matches true/false; §2.3 rule 1)", shape)
        return
    matching = [c for c in candidates if c.matches]
    if Fraction(len(matching)) != recorded:
        out.refuse("v5_value", qid, derivation.value, f"{len(matching)} candidates match, the "
                   "recorded count differs", shape)
    sessions = {c.session_index for c in matching}
    if sessions != gold:
        out.refuse("v5_inputs", qid, f"{sorted(sessions)} vs {sorted(gold)}", "sessions of "
                   "matching candidates differ from the gold sessions", shape)


def _check_duration(record: QuestionRecord, derivation: Derivation, recorded: Fraction,
                    tolerance: Fraction, unit: str, gold: set[int], times: list[datetime] | None,
                    out: Findings) -> None:
    qid, shape = record.question_id, record.shape
    if unit not in TIME_UNIT_SECONDS:
        out.refuse("v5_inputs", qid, derivation.unit, f"duration unit must be one of "
                   f"{sorted(TIME_UNIT_SECONDS)}", shape)
        return
    if times is None or not derivation.inputs:
        out.refuse("v5_inputs", qid, None, "a duration needs inputs and readable timestamps", shape)
        return
    spans: list[Fraction] = []
    touched: set[int] = set()
    for i, item in enumerate(derivation.inputs):
        if item.from_session_index is None:
            out.refuse("v5_inputs", qid, i, "duration input without from_session_index", shape)
            return
        span = duration_between(times[item.from_session_index], times[item.session_index], unit)
        spans.append(span)
        touched |= {item.session_index, item.from_session_index}
        if abs(_exact(item.value) - span) > tolerance:
            out.refuse("v5_literal", qid, item.value, f"input {i}: the timestamps of sessions "
                       f"{item.from_session_index} -> {item.session_index} give "
                       f"{_show(span)} {unit}", shape)
    total = sum(spans, Fraction(0))
    if abs(total - recorded) > tolerance:
        out.refuse("v5_value", qid, derivation.value, f"timestamps give {_show(total)} {unit}",
                   shape)
    if touched != gold:
        out.refuse("v5_inputs", qid, f"{sorted(touched)} vs {sorted(gold)}", "sessions the "
                   "duration spans differ from the gold sessions", shape)
    items = [SubsetItem(span, f"timestamps {d.from_session_index}->{d.session_index}", 1)
             for span, d in zip(spans, derivation.inputs, strict=True)]
    items += _same_unit_distractors(_session_amounts(record, unit), unit, claimed=set())
    _report_coincidence(record, items, recorded, tolerance, len(gold), signed=False, unit=unit,
                        out=out)


def _check_sum_or_delta(record: QuestionRecord, derivation: Derivation, recorded: Fraction,
                        tolerance: Fraction, unit: str, gold: set[int], out: Findings) -> None:
    qid, shape = record.question_id, record.shape
    signed = derivation.operation == "delta"
    if signed and any(item.side is None for item in derivation.inputs):
        out.refuse("v5_inputs", qid, None, "delta input without side 'a' or 'b'", shape)
        return
    signs = [(-1 if item.side == "b" else 1) if signed else 1 for item in derivation.inputs]
    computed = sum((s * _exact(item.value) for s, item in zip(signs, derivation.inputs, strict=True)),
                   Fraction(0))
    if abs(computed - recorded) > tolerance:
        what = "side a minus side b" if signed else "the sum of the inputs"
        out.refuse("v5_value", qid, derivation.value, f"{what} is {_show(computed)}", shape)
    input_sessions = [item.session_index for item in derivation.inputs]
    if len(set(input_sessions)) != len(input_sessions) or set(input_sessions) != gold:
        out.refuse("v5_inputs", qid, f"{sorted(input_sessions)} vs {sorted(gold)}", "one input "
                   "per gold session is required", shape)
    amounts = _session_amounts(record, unit)
    claimed: set[tuple[int, int, int]] = set()
    items: list[SubsetItem] = []
    grounded = True
    for i, (sign, item) in enumerate(zip(signs, derivation.inputs, strict=True)):
        value = _exact(item.value)
        match = next((key for key, amount in amounts.items()
                      if key[0] == item.session_index and key not in claimed
                      and _in_unit(amount, unit) == value), None)
        if match is None:
            grounded = False
            bare = any(a.value == value for a in _all_amounts(record, item.session_index))
            hint = (f"it appears only without a {unit} marker" if bare else "it does not appear")
            out.refuse("v5_literal", qid, item.value, f"input {i} in session {item.session_index}: "
                       f"{hint}; each input value appears literally, with its unit, in its "
                       "session", shape)
            continue
        claimed.add(match)
        items.append(SubsetItem(value, amounts[match].text + f" (session {item.session_index})", sign))
    if grounded:
        items += _same_unit_distractors(amounts, unit, claimed)
        _report_coincidence(record, items, recorded, tolerance, len(gold), signed=signed,
                            unit=unit, out=out)


def _all_amounts(record: QuestionRecord, session_index: int) -> list[Amount]:
    session = record.haystack_sessions[session_index]
    return [a for t, turn in enumerate(session)
            for a in extract_amounts(turn.content, session_index=session_index, turn_index=t)]


def _session_amounts(record: QuestionRecord, unit: str) -> dict[tuple[int, int, int], Amount]:
    """Every same-unit amount of the haystack, keyed by (session, turn, occurrence)."""
    found: dict[tuple[int, int, int], Amount] = {}
    for s, session in enumerate(record.haystack_sessions):
        for t, turn in enumerate(session):
            for k, amount in enumerate(extract_amounts(turn.content, session_index=s, turn_index=t)):
                if _in_unit(amount, unit) is not None:
                    found[(s, t, k)] = amount
    return found


def _same_unit_distractors(amounts: dict[tuple[int, int, int], Amount], unit: str,
                           claimed: set[tuple[int, int, int]]) -> list[SubsetItem]:
    return [SubsetItem(value, f"{amount.text} (session {amount.session_index})")
            for key, amount in amounts.items()
            if key not in claimed and (value := _in_unit(amount, unit)) is not None]


def _report_coincidence(record: QuestionRecord, items: list[SubsetItem], target: Fraction,
                        tolerance: Fraction, g: int, *, signed: bool, unit: str,
                        out: Findings) -> None:
    witness = find_coincident_subset(items, target, tolerance, g + SUBSET_EXTRA, signed=signed)
    if witness is None:
        return
    terms = " ".join(f"{'+' if sign > 0 else '-'} {item.label}" for sign, item in witness)
    out.refuse("v5_coincident_subset", record.question_id, terms.lstrip("+ "), f"{terms} reaches "
               f"the gold {_show(target)} {unit} with other values than the gold inputs (searched "
               f"subsets up to size G+1 = {g + SUBSET_EXTRA})", record.shape)


def _show(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{float(value):g}"


__all__ = ["AMOUNT_PATTERN", "Amount", "CALENDAR_UNITS", "CURRENCY_SYMBOLS", "Findings",
           "SUBSET_EXTRA", "SubsetItem", "TIME_UNIT_SECONDS", "UNIT_ALIASES", "canonical_unit", "check_derivation",
           "duration_between", "extract_amounts", "find_coincident_subset"]
