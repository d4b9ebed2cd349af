"""Structure gate (GATES.md §1, marker ``tme_gate_structure``): invariants computed from corpus bytes.

Ids, vertical and shape, haystack shape, time order, gold bookkeeping, G and H, gold position,
the ceiling table, V4 (no calendar dates in time-dependent text), V5 (derivations recomputable and
unambiguous), pairs and reproducibility. Every design number comes from :mod:`.vertical_specs` or
:mod:`.declarations` (code constants), never from the sidecar being checked; sidecar figures are
re-derived and compared.

Rules (``Refusal.rule``), in the order they are checked:

``vertical``, ``question_id``, ``duplicate_id``, ``abs_suffix``, ``shape_declared``,
``haystack_lengths``, ``session_ids``, ``date_order``, ``question_date``, ``answer_sessions``,
``g_range``, ``h_range``, ``rung_distance``, ``v4_year``, ``v4_month_day``, ``v4_numeric_date``,
``v4_month_name``, ``v4_weekday_name``, ``v5_inputs``, ``v5_value``, ``v5_literal``,
``v5_coincident_subset``, ``shape_n``, ``pair_count``, ``pair_id``, ``pair_arms``, ``pair_haystack``,
``pair_gold``, ``gold_position``, ``non_linguistic_filler``, ``ceiling``, ``sidecar_mismatch``,
``reproducibility``.

Revision-aware (the revision is the sidecar's; a corpus without a sidecar is read as revision 1).
From revision 2 (VERTICALS.md Appendix C):

- question ids encode nothing about gold: ``tme-<abbrev>-<NNN>`` with no suffix at all, so an
  ``_abs`` id is refused by ``question_id`` and ``abs_suffix`` no longer applies;
- ``non_linguistic_filler``: the share of word tokens in word-list padding or echo clauses,
  re-derived from every turn with :func:`..corpus.text_stats.non_linguistic_share`, must not exceed
  :data:`MAX_NON_LINGUISTIC_SHARE`; a sidecar that records another share
  (``extra.text.non_linguistic_filler_share``) is refused by ``sidecar_mismatch``. Revision 1 (word-list
  padding by design, §4.3) has the share measured and noted, not enforced.

Readings taken where the spec leaves room (the stricter one each time):

- Session dates must be *strictly* increasing (GATES.md says "strictly non-decreasing"): equal
  timestamps would leave session order unrecoverable from time.
- ``_abs`` both ways (revision 1): on never-known abstention only, and every never-known
  abstention carries it. From revision 2 no id carries it.
- V4 screens the question text as well as every message; Temporal and Bitemporal get the
  ``story`` level (no years or dates, month names allowed; Appendix A).
- V5: an input is "literal" only as an amount carrying the derivation's unit (so the coincidence
  search sees it too); durations are checked against timestamps, in calendar days for days/weeks
  (:data:`CALENDAR_UNITS`). A distractor equal to a gold input is an alternative subset, which
  also enforces §2.3 rule 3 (each input value appears once).
- Gold position: each question contributes a Bernoulli with p = G/n; the count over questions is
  tested exactly (Poisson-binomial), two-sided, 0.005 per tail.
- The ceiling table is summarised per shape as the mean of min(1, K_ref/G) over questions with
  gold; a shape without gold has no entry.
- Pair haystacks are compared as the system sees them (role, text, date, id); ``has_answer`` is
  per-question answer key and may differ between twins whose gold differs.
- Pair arms may not carry the same ``arm`` label; a sidecar may not claim a carve-out the code does
  not declare; a generator named without a seed is refused (noted only for fixtures).

Residual V5 risk, documented rather than denied (§2.3 rule 2): coincidences larger than G + 1
values, amounts written in words, and for durations another pair of session timestamps whose span
equals the gold (only duration amounts stated in text are searched).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any, Literal

from ..corpus.loading import Corpus, normalised_bytes
from ..corpus.text_stats import filler_counts
from ..corpus.models import (
    AnswerKey,
    Candidate,
    CorpusTurn,
    Derivation,
    DerivationInput,
    ExtensionBlock,
    NumericKey,
    QuestionRecord,
    Sidecar,
    format_corpus_date,
    parse_corpus_date,
)
from ..retrieval.bm25 import K_REF
from .declarations import Declared, VerticalDeclarations, declarations_for
from .result import GateResult, GateStatus, Refusal, SelfTestCase, control_case, defect_case
from .vertical_specs import ShapeSpec, V4Level, VerticalSpec, spec_for, v4_level

GATE = "structure"

RULES: tuple[str, ...] = (
    "vertical", "question_id", "duplicate_id", "abs_suffix", "shape_declared", "haystack_lengths",
    "session_ids", "date_order", "question_date", "answer_sessions", "g_range", "h_range",
    "rung_distance", "v4_year", "v4_month_day", "v4_numeric_date", "v4_month_name",
    "v4_weekday_name", "v5_inputs", "v5_value", "v5_literal", "v5_coincident_subset", "shape_n",
    "pair_count", "pair_id", "pair_arms", "pair_haystack", "pair_gold", "gold_position",
    "non_linguistic_filler", "ceiling", "sidecar_mismatch", "reproducibility",
)
"""Every rule name this gate can refuse by."""

QUESTION_ID_FORM = re.compile(r"^tme-(?P<abbrev>[a-z]{2,3})-(?P<number>\d{3})(?P<abs>_abs)?$")
"""§1.4: ``tme-<abbrev>-<NNN>``, zero-padded three digits, ``_abs`` only on never-known abstention."""
OPAQUE_QUESTION_ID_FORM = re.compile(r"^tme-(?P<abbrev>[a-z]{2,3})-(?P<number>\d{3})$")
"""§1.4 as revised by Appendix C (revision 2 on): ``tme-<abbrev>-<NNN>`` and nothing else; an id
encodes nothing about gold."""
REVISION_2 = 2
"""First revision under VERTICALS.md Appendix C: opaque ids, no word-list padding."""
DEFAULT_REVISION = 1
"""The revision of a corpus without a sidecar (hand-made fixtures, bare files)."""

MAX_NON_LINGUISTIC_SHARE = 0.005
"""Most share of word tokens a revision-2 corpus may hold in non-linguistic filler (word-list
sentences, word-list tails, echo clauses; :mod:`..corpus.text_stats`). Appendix C's target is 0 %:
no padding at all. The tolerance exists only to absorb a stray short fragment the instrument
cannot tell from a list (telegraphic chat with no function word, "Rain, wind, sleet."); a
generator that pads, even lightly, is far above it (revision 1 reads 0.48-0.67)."""
SHARE_TOLERANCE = 1e-6
"""Slack when comparing the sidecar's recorded filler share with the re-derived one (the sidecar
stamps it rounded to six decimals)."""

PAIR_ID_FORM = re.compile(r"^tme-(?P<abbrev>[a-z]{2,3})-p(?P<number>\d{2})$")
"""§1.4: ``tme-<abbrev>-p<NN>``."""

GOLD_POSITION_ALPHA = 0.01
"""GATES.md §1 "binomial 99% bound": two-sided, so each tail is refused below 0.005."""

SUBSET_EXTRA = 1
"""V5 (GATES.md §1): alternative subsets are searched up to size G + 1."""

FLOAT_TOLERANCE = 1e-9
"""Comparison slack for figures re-derived in floating point (ceiling table vs sidecar)."""

HAND_MADE = "hand-made"
"""The ``generator`` a hand-built corpus's sidecar names: nothing to regenerate from."""

# --- V4: calendar text (VERTICALS.md §2.1, §2.3 rule 5, §4.8; Appendix A "V4 scope") -----------------

_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
           "october", "november", "december")
MONTHS_CAPITALISED_ONLY = frozenset({"may", "march", "august"})
"""Month names that are everyday English words in lower case ("may I", "march on", "august
company"): they count as months only when capitalised. A sentence-initial "May" is read as the modal
("May I ask ...") by the month-name rule; next to a day number ("May 3") it is always a date."""
MONTH_ABBREVIATIONS = frozenset({"jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept",
                                 "oct", "nov", "dec"})
"""Counted only capitalised and only beside a day number ("Mar 3", "3 Sept."): alone they are names
or words ("Jan", "Mar")."""
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")

YEAR_PATTERN = re.compile(
    r"(?<![\w$£€.,])(?<![$£€]\s)(?:19|20)\d{2}s?(?![\w]|[.,]\d)"
    r"(?!\s?(?i:usd|eur|gbp|dollars?|euros?|bucks|quid)\b)"
)
"""A four-digit 19xx/20xx number (and its decade form "1990s"). Trailing punctuation is not part
of the match ("2026," is a year, §4.8); a currency-marked amount ("$2000", "2000 USD") is not."""

MONTH_DAY_PATTERNS = (
    re.compile(r"\b(?P<month>[A-Za-z]+)(?P<dot>\.)?\s+(?:the\s+)?(?P<day>\d{1,2})(?P<ord>st|nd|rd|th)?"
               r"\b(?![.,:]\d)"),
    re.compile(r"(?<![\d.,:])\b(?P<day>\d{1,2})(?P<ord>st|nd|rd|th)?\s+(?P<of>of\s+)?"
               r"(?P<month>[A-Za-z]+)(?P<dot>\.)?\b"),
)
"""A month token right before a day number 1-31 ("March 14", "Mar. 3rd", "May the 5th"), or after
one ("14 March", "3rd of may"). The month token is vetted by :func:`_is_month_token`."""

NUMERIC_DATE_PATTERNS = (
    re.compile(r"(?<![\d.])(?P<y>\d{4})[-/.](?P<a>\d{1,2})[-/.](?P<b>\d{1,2})(?!\d)"),
    re.compile(r"(?<![\d/.,])(?P<a>\d{1,2})/(?P<b>\d{1,2})(?:/(?P<y>\d{4}|\d{2}))?(?![\d/]|[.,]\d)"),
    re.compile(r"(?<![\d-])(?P<a>\d{1,2})-(?P<b>\d{1,2})-(?P<y>\d{4}|\d{2})(?![\d-])"),
    re.compile(r"(?<![\d.,$£€])(?P<a>\d{1,2})\.(?P<b>\d{2})\.(?:(?P<y>\d{4}|\d{2})(?!\d))?"),
)
"""ISO-like ``2026-03-14`` / ``2026/3/14``; ``3/14`` and ``14/3/26``; ``14-03-2026``; ``14.03.``
and ``14.03.2026``. A match counts only when its two short parts can be a day and a month (either
order). So fractions and ratios such as ``1/2`` or ``24/7`` are refused too: write them in words.
Hyphenated pairs need a third part ("3-4 days" is a range) and dotted pairs a closing dot and a
two-digit month ("12.5" and "3.50" are amounts)."""

_WORD_PATTERN = re.compile(r"[A-Za-z]+")
_SENTENCE_START = re.compile(r"(?:^|[.!?]\s*|\n\s*)[\"'(\[]*$")


def _is_month_token(token: str, *, lowercase_special_ok: bool = False) -> bool:
    low = token.lower()
    if low in _MONTHS:
        if low in MONTHS_CAPITALISED_ONLY and not token[0].isupper():
            return lowercase_special_ok
        return True
    return low in MONTH_ABBREVIATIONS and token[0].isupper()


def _day_month_valid(a: int, b: int) -> bool:
    return (1 <= a <= 31 and 1 <= b <= 12) or (1 <= a <= 12 and 1 <= b <= 31)


def v4_findings(text: str, level: V4Level) -> list[tuple[str, str]]:
    """``(rule, matched text)`` for every V4 violation in ``text`` under ``level``.

    ``story`` screens years, month-day dates and numeric dates; ``calendar`` also screens month
    and weekday names (see the pattern constants for what counts and the false positives avoided).
    """
    found: list[tuple[str, str]] = []
    for match in YEAR_PATTERN.finditer(text):
        found.append(("v4_year", match.group(0)))
    for index, pattern in enumerate(MONTH_DAY_PATTERNS):
        for match in pattern.finditer(text):
            if not 1 <= int(match.group("day")) <= 31:
                continue
            strong = index == 1 and bool(match.group("of") or match.group("ord"))
            if _is_month_token(match.group("month"), lowercase_special_ok=strong):
                found.append(("v4_month_day", match.group(0)))
    for match in (m for pattern in NUMERIC_DATE_PATTERNS for m in pattern.finditer(text)):
        if _day_month_valid(int(match.group("a")), int(match.group("b"))):
            found.append(("v4_numeric_date", match.group(0)))
    if level == "calendar":
        for match in _WORD_PATTERN.finditer(text):
            token = match.group(0)
            low = token.lower()
            if low in _WEEKDAYS or (low.endswith("s") and low[:-1] in _WEEKDAYS):
                found.append(("v4_weekday_name", token))
            elif low in _MONTHS and _is_month_token(token):
                if low == "may" and _SENTENCE_START.search(text[: match.start()]):
                    continue
                found.append(("v4_month_name", token))
    return found


# --- V5: amounts in text (VERTICALS.md §2.3) --------------------------------------------------------

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


# --- V5: alternative subsets -------------------------------------------------------------------------

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


# --- gold position -----------------------------------------------------------------------------------

def poisson_binomial_tails(probabilities: Sequence[float], observed: int) -> tuple[float, float]:
    """``(P(X <= observed), P(X >= observed))`` for X a sum of independent Bernoulli(p_i), exactly.

    The chance that a question's gold includes its first (or last) session when G gold sessions
    are placed at random among n is G/n; questions differ in G and n, so the count over questions
    is Poisson-binomial, computed here by the O(Q^2) convolution rather than a normal approximation.
    """
    distribution = [1.0]
    for p in probabilities:
        nxt = [0.0] * (len(distribution) + 1)
        for k, mass in enumerate(distribution):
            nxt[k] += mass * (1.0 - p)
            nxt[k + 1] += mass * p
        distribution = nxt
    lower = min(1.0, sum(distribution[: observed + 1]))
    upper = min(1.0, sum(distribution[observed:]))
    return lower, upper


# --- the gate ----------------------------------------------------------------------------------------

Regenerate = Callable[[Corpus], "str | None"]


class _Findings:
    def __init__(self, vertical: str | None) -> None:
        self.vertical = vertical
        self.refusals: list[Refusal] = []

    def refuse(self, rule: str, subject: str, value: float | str | None, detail: str,
               shape: str | None = None) -> None:
        self.refusals.append(Refusal(rule, subject, value, detail, self.vertical, shape))


def check(corpus: Corpus, *, declared: VerticalDeclarations | None = None,
          spec: VerticalSpec | None = None, regenerate: Regenerate | None = None) -> GateResult:
    """Run every structural rule over ``corpus``; pure, and never reads a threshold from the sidecar.

    ``declared`` defaults to the vertical's code declarations, ``spec`` to its declared design
    (tests pass small ones). ``regenerate`` rebuilds the corpus text from the generator and seed
    its sidecar records; without it (or without a generator) reproducibility is reported as
    skipped with the reason, never passed.
    """
    vertical = corpus.vertical.lower() if corpus.vertical else None
    spec = spec if spec is not None else spec_for(vertical)
    declared = declared if declared is not None else declarations_for(vertical)
    out = _Findings(vertical)
    notes: list[str] = []
    measured: dict[str, Any] = {}
    fixture = corpus.is_fixture
    revision = corpus_revision(corpus)
    measured["revision"] = revision

    if vertical is None:
        out.refuse("vertical", corpus.corpus_id, None, "records name more than one vertical; a "
                   "corpus file holds one vertical (VERTICALS.md §1.3)")
    elif spec is None:
        out.refuse("vertical", corpus.corpus_id, vertical, "no declared design for this vertical in "
                   "gates/vertical_specs.py; add one or fix the vertical name")
    if fixture:
        notes.append("fixture corpus: per-shape n, pair counts and the G/H ranges are not enforced "
                     "(hand-made); every other rule is")

    seen_ids: dict[str, int] = {}
    for index, record in enumerate(corpus.records):
        _check_record(record, index, vertical, spec, fixture, seen_ids, out, revision)

    shape_counts = Counter(record.shape for record in corpus.records)
    measured["shape_counts"] = dict(sorted(shape_counts.items()))
    if spec is not None:
        _check_shape_sizes(corpus, spec, shape_counts, fixture, out, notes)
    _check_pairs(corpus, spec, out)
    _check_gold_position(corpus, declared, out, notes, measured)
    _check_text(corpus, revision, out, notes, measured)
    ceilings = _ceiling_table(corpus)
    measured["ceiling_by_shape"] = ceilings
    _check_sidecar(corpus, vertical, declared, ceilings, shape_counts, out, notes)
    _check_reproducibility(corpus, regenerate, out, notes, measured)
    measured["v4_scope"] = _v4_scope(corpus, spec)

    status: GateStatus = "refused" if out.refusals else "passed"
    return GateResult(GATE, corpus.corpus_id, status, tuple(out.refusals), measured, tuple(notes))


def corpus_revision(corpus: Corpus) -> int:
    """The corpus's revision: its sidecar's, else :data:`DEFAULT_REVISION`."""
    return corpus.sidecar.revision if corpus.sidecar is not None else DEFAULT_REVISION


def _v4_scope(corpus: Corpus, spec: VerticalSpec | None) -> dict[str, str | None]:
    if spec is None:
        return {}
    return {shape: v4_level(spec, shape) for shape in sorted({r.shape for r in corpus.records})}


def _check_record(record: QuestionRecord, index: int, vertical: str | None,
                  spec: VerticalSpec | None, fixture: bool, seen_ids: dict[str, int],
                  out: _Findings, revision: int = DEFAULT_REVISION) -> None:
    qid = record.question_id
    shape = record.shape
    block = record.typedmemeval
    opaque = revision >= REVISION_2

    form = (OPAQUE_QUESTION_ID_FORM if opaque else QUESTION_ID_FORM).match(qid)
    legacy = QUESTION_ID_FORM.match(qid)
    if form is None and opaque and legacy is not None and legacy.group("abs"):
        out.refuse("question_id", qid, "_abs", f"revision {revision} ids encode nothing about gold "
                   "(VERTICALS.md Appendix C, revising §1.4): tme-<abbrev>-NNN with no suffix; "
                   "drop _abs (the answer key says never-known, the id must not)", shape)
    elif form is None:
        allowed = "no suffix" if opaque else "optional _abs"
        out.refuse("question_id", qid, qid, f"not of the form tme-<abbrev>-NNN (three digits, "
                   f"{allowed}); rename the question", shape)
    elif spec is not None and form.group("abbrev") != spec.abbrev:
        out.refuse("question_id", qid, form.group("abbrev"), f"abbreviation of another vertical; "
                   f"{spec.name} questions are tme-{spec.abbrev}-NNN", shape)
    if qid in seen_ids:
        out.refuse("duplicate_id", qid, index, f"same id as record #{seen_ids[qid]}; ids are unique "
                   "per corpus", shape)
    else:
        seen_ids[qid] = index
    never_known = not record.answer_session_ids and block.answer_key.expected_negative == "abstain"
    # From revision 2 no id carries a suffix (refused above by question_id): nothing to pair here.
    if not opaque and qid.endswith("_abs") and not never_known:
        out.refuse("abs_suffix", qid, "_abs", "_abs marks never-known abstention only (no gold "
                   "sessions and expected_negative 'abstain'); older tooling reads the suffix", shape)
    elif not opaque and never_known and not qid.endswith("_abs"):
        out.refuse("abs_suffix", qid, None, "never-known abstention question without the _abs "
                   "suffix (§1.4: its never-known probes carry it)", shape)

    if vertical is not None and block.vertical.lower() != vertical:
        out.refuse("vertical", qid, block.vertical, f"record names another vertical than the "
                   f"corpus's {vertical!r}", shape)
    shape_spec = spec.shape(shape) if spec is not None else None
    if spec is not None and shape_spec is None:
        out.refuse("shape_declared", qid, shape, f"shape not declared for {spec.name} (declared: "
                   f"{', '.join(spec.shape_names) or 'none yet'})", shape)

    sessions, ids, dates = record.haystack_sessions, record.haystack_session_ids, record.haystack_dates
    if not len(sessions) == len(ids) == len(dates):
        out.refuse("haystack_lengths", qid, f"{len(sessions)}/{len(ids)}/{len(dates)}",
                   "haystack_sessions, haystack_session_ids and haystack_dates differ in length; "
                   "the remaining per-session rules were skipped for this question", shape)
        return
    duplicates = sorted(sid for sid, count in Counter(ids).items() if count > 1)
    if duplicates:
        out.refuse("session_ids", qid, duplicates[0], "haystack_session_ids repeats an id", shape)

    times = _parse_times(record, out)
    if times is not None:
        for i in range(1, len(times)):
            if times[i] <= times[i - 1]:
                out.refuse("date_order", qid, dates[i], f"session {i} is not strictly after "
                           f"session {i - 1} ({dates[i - 1]}); session order must be time order",
                           shape)
                break
        try:
            asked = parse_corpus_date(record.question_date)
        except ValueError as error:
            out.refuse("question_date", qid, record.question_date, str(error), shape)
        else:
            if times and asked <= times[-1]:
                out.refuse("question_date", qid, record.question_date, f"not after the last "
                           f"session ({dates[-1]})", shape)

    known = set(ids)
    outside = [sid for sid in record.answer_session_ids if sid not in known]
    labelled = [ids[i] for i, session in enumerate(sessions) if any(t.has_answer for t in session)]
    if outside:
        out.refuse("answer_sessions", qid, outside[0], "answer_session_ids names a session not "
                   "in the haystack", shape)
    elif len(set(record.answer_session_ids)) != len(record.answer_session_ids):
        out.refuse("answer_sessions", qid, None, "answer_session_ids repeats an id", shape)
    elif set(record.answer_session_ids) != set(labelled):
        out.refuse("answer_sessions", qid, f"{sorted(record.answer_session_ids)} vs {labelled}",
                   "answer_session_ids differ from the sessions holding has_answer turns", shape)

    gold = record.gold_session_indices
    g, h = len(gold), len(sessions) - len(gold)
    if shape_spec is not None and not fixture:
        for rule, value, bounds, what in (("g_range", g, shape_spec.g, "G (gold sessions)"),
                                          ("h_range", h, shape_spec.h, "H (non-gold sessions)")):
            if bounds is not None and not _within(value, bounds):
                out.refuse(rule, qid, value, f"{what} outside the declared "
                           f"{_bounds_text(bounds)} for {shape}", shape)
    if shape_spec is not None and shape_spec.distance is not None:
        after = len(sessions) - 1 - gold[-1] if gold else None
        if shape_spec.distance_window is not None:
            lo, hi = shape_spec.distance_window
            if after is None or block.distance_sessions != after or not lo <= after <= hi:
                out.refuse("rung_distance", qid, f"distance_sessions={block.distance_sessions}, "
                           f"sessions after gold={after}", f"rung {shape} places {lo}..{hi} "
                           "sessions between gold and question, and distance_sessions says how "
                           "many", shape)
        elif block.distance_sessions != shape_spec.distance or after != shape_spec.distance:
            out.refuse("rung_distance", qid, f"distance_sessions={block.distance_sessions}, "
                       f"sessions after gold={after}", f"rung {shape} places exactly "
                       f"{shape_spec.distance} sessions between gold and question", shape)

    level = v4_level(spec, shape) if spec is not None else None
    if level is not None:
        _check_v4(record, level, out)
    if block.derivation is not None or (shape_spec is not None and shape_spec.operation):
        _check_derivation(record, shape_spec, times, out)


def _parse_times(record: QuestionRecord, out: _Findings) -> list[datetime] | None:
    times = []
    for i, text in enumerate(record.haystack_dates):
        try:
            times.append(parse_corpus_date(text))
        except ValueError as error:
            out.refuse("date_order", record.question_id, text, f"haystack_dates[{i}]: {error}",
                       record.shape)
            return None
    return times


def _within(value: int, bounds: tuple[int, int | None]) -> bool:
    low, high = bounds
    return value >= low and (high is None or value <= high)


def _bounds_text(bounds: tuple[int, int | None]) -> str:
    low, high = bounds
    if high is None:
        return f"range {low}+"
    return f"value {low}" if low == high else f"range {low}-{high}"


def _check_v4(record: QuestionRecord, level: V4Level, out: _Findings) -> None:
    texts: list[tuple[str, str]] = [("question", record.question)]
    for s, session in enumerate(record.haystack_sessions):
        texts.extend((f"session {s} turn {t}", turn.content) for t, turn in enumerate(session))
    first: dict[str, tuple[str, str]] = {}
    counts: Counter[str] = Counter()
    for where, text in texts:
        for rule, matched in v4_findings(text, level):
            first.setdefault(rule, (where, matched))
            counts[rule] += 1
    scope = "no dates or month/weekday names" if level == "calendar" else "no years or full dates"
    for rule, (where, matched) in first.items():
        more = f" (+{counts[rule] - 1} more)" if counts[rule] > 1 else ""
        out.refuse(rule, record.question_id, matched, f"{where}{more}: time-dependent text must "
                   f"carry {scope}; time comes from session timestamps (V4)", record.shape)


def _check_derivation(record: QuestionRecord, shape_spec: ShapeSpec | None,
                      times: list[datetime] | None, out: _Findings) -> None:
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
                 gold: set[int], out: _Findings) -> None:
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
                    out: _Findings) -> None:
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
                        tolerance: Fraction, unit: str, gold: set[int], out: _Findings) -> None:
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
                        out: _Findings) -> None:
    witness = find_coincident_subset(items, target, tolerance, g + SUBSET_EXTRA, signed=signed)
    if witness is None:
        return
    terms = " ".join(f"{'+' if sign > 0 else '-'} {item.label}" for sign, item in witness)
    out.refuse("v5_coincident_subset", record.question_id, terms.lstrip("+ "), f"{terms} reaches "
               f"the gold {_show(target)} {unit} with other values than the gold inputs (searched "
               f"subsets up to size G+1 = {g + SUBSET_EXTRA})", record.shape)


def _show(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{float(value):g}"


def _check_shape_sizes(corpus: Corpus, spec: VerticalSpec, counts: Counter[str], fixture: bool,
                       out: _Findings, notes: list[str]) -> None:
    for shape_spec in spec.shapes:
        for what, bounds in (("G", shape_spec.g), ("H", shape_spec.h)):
            if bounds is None and counts.get(shape_spec.name):
                notes.append(f"{what} range not declared for {spec.name}/{shape_spec.name} in the "
                             "spec: not checked")
    if fixture:
        return
    paired = Counter(r.shape for r in corpus.records if r.typedmemeval.pair_id is not None)
    for shape_spec in spec.shapes:
        have = counts.get(shape_spec.name, 0)
        if shape_spec.n is not None and have != shape_spec.n:
            out.refuse("shape_n", shape_spec.name, have, f"declared n = {shape_spec.n}",
                       shape_spec.name)
        if shape_spec.paired_questions is not None and paired.get(shape_spec.name, 0) != \
                shape_spec.paired_questions:
            out.refuse("pair_count", shape_spec.name, paired.get(shape_spec.name, 0),
                       f"declared {shape_spec.paired_questions} paired questions", shape_spec.name)


def _haystack_bytes(record: QuestionRecord) -> str:
    """The haystack as a system under test receives it: roles, texts, dates and ids.

    ``has_answer`` is left out: it labels *this question's* gold, and twins whose gold lies in
    different sessions (Forgetting's invalidated / still-valid pairs) must label differently.
    """
    return json.dumps([
        [[[t.role, t.content] for t in session] for session in record.haystack_sessions],
        list(record.haystack_dates), list(record.haystack_session_ids)], ensure_ascii=False)


def _normalised_answer(text: str) -> str:
    return " ".join(text.casefold().split())


def _check_pairs(corpus: Corpus, spec: VerticalSpec | None, out: _Findings) -> None:
    arms: dict[str, list[QuestionRecord]] = defaultdict(list)
    for record in corpus.records:
        if record.typedmemeval.pair_id is not None:
            arms[record.typedmemeval.pair_id].append(record)
    for pair_id, members in sorted(arms.items()):
        shape = members[0].shape
        form = PAIR_ID_FORM.match(pair_id)
        if form is None or (spec is not None and form.group("abbrev") != spec.abbrev):
            out.refuse("pair_id", pair_id, pair_id, "pair ids are tme-<abbrev>-pNN with the "
                       "vertical's abbreviation", shape)
        if len(members) != 2:
            out.refuse("pair_arms", pair_id, len(members), "a pair has exactly two arms: "
                       f"{', '.join(m.question_id for m in members)}", shape)
            continue
        first, second = members
        labels = (first.typedmemeval.arm, second.typedmemeval.arm)
        if labels[0] is not None and labels[0] == labels[1]:
            out.refuse("pair_arms", pair_id, labels[0], "both arms carry the same arm label", shape)
        if _haystack_bytes(first) != _haystack_bytes(second):
            out.refuse("pair_haystack", pair_id, f"{first.question_id}/{second.question_id}",
                       "arms must share byte-identical haystacks (sessions, dates, ids)", shape)
        if _normalised_answer(first.answer) == _normalised_answer(second.answer):
            out.refuse("pair_gold", pair_id, first.answer, "both arms have the same gold; the pair "
                       "must flip it", shape)


def _check_gold_position(corpus: Corpus, declared: VerticalDeclarations, out: _Findings,
                         notes: list[str], measured: dict[str, Any]) -> None:
    carve_out = declared.gold_position_carve_out
    probabilities: list[float] = []
    first = last = 0
    for record in corpus.records:
        gold = record.gold_session_indices
        n = len(record.haystack_sessions)
        if not gold or n == 0 or len(record.haystack_session_ids) != n:
            continue
        probabilities.append(len(gold) / n)
        first += gold[0] == 0
        last += gold[-1] == n - 1
    figures: dict[str, Any] = {"questions": len(probabilities), "alpha": GOLD_POSITION_ALPHA,
                               "carve_out": carve_out.reason if carve_out else None}
    for side, observed in (("first", first), ("last", last)):
        lower, upper = poisson_binomial_tails(probabilities, observed)
        figures[side] = {"observed": observed, "expected": round(sum(probabilities), 6),
                         "p_lower": lower, "p_upper": upper}
        if carve_out is not None:
            continue
        if min(lower, upper) < GOLD_POSITION_ALPHA / 2:
            direction = "more" if upper < lower else "fewer"
            out.refuse("gold_position", f"gold includes {side} session", observed,
                       f"{direction} questions than chance ({sum(probabilities):.2f} expected; "
                       f"exact two-sided {1 - GOLD_POSITION_ALPHA:.0%} bound, tail p = "
                       f"{min(lower, upper):.2g}); shuffle gold positions or declare a carve-out "
                       "in gates/declarations.py")
    measured["gold_position"] = figures
    if carve_out is not None:
        notes.append(f"gold_position: carve-out applied ({carve_out.name}): {carve_out.reason}")


def _check_text(corpus: Corpus, revision: int, out: _Findings, notes: list[str],
                measured: dict[str, Any]) -> None:
    """Non-linguistic filler share, from every turn's text (VERTICALS.md Appendix C, §4.3 retired)."""
    counts = filler_counts(turn.content for record in corpus.records
                           for session in record.haystack_sessions for turn in session)
    share = counts.share
    enforced = revision >= REVISION_2
    measured["non_linguistic_filler"] = {
        "share": share, "tokens": counts.tokens, "filler_tokens": counts.filler,
        "echo_tokens": counts.echo, "list_sentence_tokens": counts.list_sentences,
        "list_tail_tokens": counts.list_tails, "threshold": MAX_NON_LINGUISTIC_SHARE,
        "enforced": enforced}
    if not enforced:
        notes.append(f"non_linguistic_filler: {share:.3f} of word tokens measured, not enforced "
                     f"before revision {REVISION_2} (revision-1 padding by design, §4.3)")
        return
    if share > MAX_NON_LINGUISTIC_SHARE:
        out.refuse("non_linguistic_filler", "turns", round(share, 6), f"{counts.filler} of "
                   f"{counts.tokens} word tokens sit in word lists or echo clauses "
                   f"({counts.list_sentences} in word-list sentences, {counts.list_tails} in "
                   f"word-list tails, {counts.echo} in echo clauses); from revision {REVISION_2} "
                   f"the target is 0 % (tolerance {MAX_NON_LINGUISTIC_SHARE}); write language, "
                   "not padding (VERTICALS.md Appendix C)")
    sidecar = corpus.sidecar
    block = sidecar.extra.get("text") if sidecar is not None else None
    recorded = block.get("non_linguistic_filler_share") if isinstance(block, dict) else None
    if recorded is None:
        notes.append("non_linguistic_filler: the sidecar records no share to compare "
                     "(re-derived in measured)")
    elif not isinstance(recorded, (int, float)) or isinstance(recorded, bool) or \
            not math.isfinite(recorded) or abs(recorded - share) > SHARE_TOLERANCE:
        out.refuse("sidecar_mismatch", "extra.text.non_linguistic_filler_share", recorded,
                   f"the turns give {share:.6f}")


def _ceiling_table(corpus: Corpus) -> dict[str, float | None]:
    """Per shape, the mean over questions with gold of min(1, K_ref / G) (§1.5 item 2)."""
    per_shape: dict[str, list[float]] = defaultdict(list)
    for record in corpus.records:
        per_shape.setdefault(record.shape, [])
        g = len(record.gold_session_indices)
        if g:
            per_shape[record.shape].append(min(1.0, K_REF / g))
    return {shape: (sum(values) / len(values) if values else None)
            for shape, values in sorted(per_shape.items())}


def _check_sidecar(corpus: Corpus, vertical: str | None, declared: VerticalDeclarations,
                   ceilings: dict[str, float | None], counts: Counter[str], out: _Findings,
                   notes: list[str]) -> None:
    sidecar = corpus.sidecar
    if sidecar is None:
        notes.append("no sidecar: ceiling table and sidecar identity not compared")
        return
    if sidecar.ceiling_by_shape:
        for shape in sorted(set(ceilings) | set(sidecar.ceiling_by_shape)):
            ours, theirs = ceilings.get(shape), sidecar.ceiling_by_shape.get(shape)
            if ours is None and theirs is None:
                continue
            if ours is None or theirs is None or abs(ours - theirs) > FLOAT_TOLERANCE:
                out.refuse("ceiling", shape, theirs, f"sidecar ceiling differs from "
                           f"min(1, K_ref/G) recomputed from the bytes ({ours})", shape)
    else:
        notes.append("ceiling table: the sidecar has none to compare (recomputed in measured)")
    if sidecar.sha256 != corpus.sha256:
        out.refuse("sidecar_mismatch", "sha256", sidecar.sha256[:12], f"corpus bytes hash to "
                   f"{corpus.sha256[:12]}")
    if sidecar.vertical is not None and vertical is not None and sidecar.vertical.lower() != vertical:
        out.refuse("sidecar_mismatch", "vertical", sidecar.vertical, f"records say {vertical}")
    if sidecar.k_ref != K_REF:
        out.refuse("sidecar_mismatch", "k_ref", sidecar.k_ref, f"K_ref is {K_REF} for every vertical")
    if sidecar.shape_counts and dict(sidecar.shape_counts) != dict(counts):
        out.refuse("sidecar_mismatch", "shape_counts", json.dumps(sidecar.shape_counts,
                   sort_keys=True), f"records give {json.dumps(dict(counts), sort_keys=True)}")
    revision = corpus_revision(corpus)
    dial, stray = (("competition_by_shape", "echo_by_shape") if revision >= REVISION_2
                   else ("echo_by_shape", "competition_by_shape"))
    if getattr(sidecar, stray):
        out.refuse("sidecar_mismatch", stray, json.dumps(getattr(sidecar, stray), sort_keys=True),
                   f"a revision-{revision} sidecar records its calibration dial as {dial} "
                   "(VERTICALS.md Appendix C); the rebuild would ignore this one")
    known = {declared.gold_position_carve_out.name} if declared.gold_position_carve_out else set()
    for name in sorted(set(sidecar.carve_outs) - known):
        out.refuse("sidecar_mismatch", f"carve_outs.{name}", name, "the sidecar claims a carve-out "
                   "the code does not declare (declarations live in gates/declarations.py)")


def _check_reproducibility(corpus: Corpus, regenerate: Regenerate | None, out: _Findings,
                           notes: list[str], measured: dict[str, Any]) -> None:
    sidecar = corpus.sidecar
    if sidecar is None or not sidecar.generator or sidecar.generator == HAND_MADE:
        notes.append("reproducibility: skipped — corpus has no generator (hand-made)")
        measured["reproducibility"] = "skipped"
        return
    if sidecar.seed is None:
        if corpus.is_fixture:
            notes.append(f"reproducibility: skipped — fixture sidecar names generator "
                         f"{sidecar.generator!r} but no seed")
            measured["reproducibility"] = "skipped"
        else:
            out.refuse("reproducibility", "seed", None, f"sidecar names generator "
                       f"{sidecar.generator!r} but no seed; generator, seed and recorded echo must "
                       "rebuild the bytes (§4.11)")
            measured["reproducibility"] = "refused"
        return
    text = regenerate(corpus) if regenerate is not None else None
    if text is None:
        why = "no regenerate callable supplied" if regenerate is None else "regenerate returned None"
        notes.append(f"reproducibility: skipped — {why} (generator {sidecar.generator!r}, seed "
                     f"{sidecar.seed})")
        measured["reproducibility"] = "skipped"
        return
    rebuilt = hashlib.sha256(normalised_bytes(text.encode("utf-8"))).hexdigest()
    if rebuilt != corpus.sha256:
        out.refuse("reproducibility", "sha256", rebuilt[:12], f"regenerating with generator "
                   f"{sidecar.generator!r} seed {sidecar.seed} gives other bytes than the corpus "
                   f"({corpus.sha256[:12]})")
        measured["reproducibility"] = "differs"
    else:
        measured["reproducibility"] = "matched"


# --- self-test ---------------------------------------------------------------------------------------

_START = datetime(2026, 1, 5, 9, 0)
_SESSIONS = 10
_DAY_OFFSETS = (0, 2, 3, 5, 8, 9, 12, 14, 15, 18)
_FILLER = (
    ("I sorted out the {noun} for the allotment this week.", "Good, the {noun} is handled then."),
    ("The {noun} needed another look, so I checked it again.", "Sounds like the {noun} is fine now."),
    ("I asked a neighbour about the {noun} and got a tip.", "Useful tip about the {noun}."),
)
_NOUNS = ("shed lock", "bike chain", "garden hose", "tool belt", "window latch", "kettle lid",
          "porch light", "gate hinge", "rain barrel", "compost bin")


def _filler(q: int, s: int, extra: str = "") -> tuple[CorpusTurn, ...]:
    user, assistant = _FILLER[(q + s) % len(_FILLER)]
    noun = _NOUNS[(q * 3 + s) % len(_NOUNS)]
    return (CorpusTurn(role="user", content=user.format(noun=noun) + extra),
            CorpusTurn(role="assistant", content=assistant.format(noun=noun)))


def _gold(user: str, assistant: str = "Noted, thanks for telling me.") -> tuple[CorpusTurn, ...]:
    return (CorpusTurn(role="user", content=user, has_answer=True),
            CorpusTurn(role="assistant", content=assistant))


def _record(qid: str, vertical: str, shape: str, question: str, answer: str,
            sessions: Sequence[tuple[CorpusTurn, ...]], *, days: Sequence[int] = _DAY_OFFSETS,
            asked_after: int = 2, key: AnswerKey | None = None, **block: Any) -> QuestionRecord:
    dates = tuple(format_corpus_date(_START + timedelta(days=d)) for d in days[: len(sessions)])
    asked = format_corpus_date(_START + timedelta(days=days[len(sessions) - 1] + asked_after))
    ids = tuple(f"s{(i * 7 + 3) % 97:02d}" for i in range(len(sessions)))
    gold = tuple(ids[i] for i, s in enumerate(sessions) if any(t.has_answer for t in s))
    extension = ExtensionBlock(vertical=vertical, shape=shape,
                               answer_key=key or AnswerKey(accepted=(answer,)), **block)
    return QuestionRecord.model_construct(
        question_id=qid, question_type=shape, question=question, answer=answer,
        question_date=asked, haystack_session_ids=ids, haystack_dates=dates,
        haystack_sessions=tuple(sessions), answer_session_ids=gold, typedmemeval=extension)


def _corpus(records: Sequence[QuestionRecord], vertical: str, *, fixture: bool = False,
            generator: str | None = None, **sidecar: Any) -> tuple[Corpus, str]:
    """A self-test corpus and the text its sha256 is taken over (for the reproducibility case)."""
    text = json.dumps([r.model_dump(mode="json") for r in records], sort_keys=True,
                      ensure_ascii=False) + "\n"
    sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
    verticals = {r.typedmemeval.vertical for r in records}
    fields: dict[str, Any] = {"corpus_id": f"selftest-{vertical}", "revision": 1, "sha256": sha,
                              "vertical": vertical, "fixture": fixture, "generator": generator,
                              "seed": 7 if generator else None}
    fields.update(sidecar)
    return (Corpus(corpus_id=f"selftest-{vertical}", path=Path("<self-test>"), sha256=sha,
                   records=tuple(records), sidecar=Sidecar(**fields),
                   vertical=verticals.pop() if len(verticals) == 1 else None), text)


def _positions(q: int, g: int, n: int = _SESSIONS) -> list[int]:
    """Gold positions spread over the haystack, first and last included now and then."""
    return sorted({(q * 3 + round(k * n / g)) % n for k in range(g)})


def _arithmetic_spec() -> VerticalSpec:
    return VerticalSpec("arithmetic", "ari", (
        ShapeSpec("counts", 4, (3, 6), (4, 8), operation="count"),
        ShapeSpec("sums", 4, (3, 6), (4, 8), operation="sum"),
        ShapeSpec("deltas", 4, (3, 6), (4, 8), operation="delta"),
        ShapeSpec("durations", 4, (2, 6), (4, 8), v4="calendar", operation="duration"),
    ))


def _arithmetic_records() -> list[QuestionRecord]:
    records: list[QuestionRecord] = []
    number = 0
    for q in range(4):
        # sums: three purchases; distractor amounts exist but combine to nothing near the total.
        number += 1
        gold_at = _positions(q, 3)
        values = [37 + q, 52 + 2 * q, 18 + 3 * q]
        sessions = [_filler(q, s, f" It cost ${311 + 97 * s + q} all told." if s % 3 == 0 else "")
                    for s in range(_SESSIONS)]
        for k, s in enumerate(gold_at):
            sessions[s] = _gold(f"I paid ${values[k]} for the {_NOUNS[k]} at the market.")
        total = sum(values)
        records.append(_record(
            f"tme-ari-{number:03d}", "arithmetic", "sums", "How much did I spend at the market?",
            f"${total}", sessions, key=AnswerKey(numeric=NumericKey(value=total, unit="USD")),
            derivation=Derivation(operation="sum", unit="USD", value=total, inputs=tuple(
                DerivationInput(session_index=s, value=v) for s, v in zip(gold_at, values,
                                                                          strict=True)))))
    for q in range(4):
        number += 1
        gold_at = _positions(q + 1, 6)
        # Powers of three: every signed combination of them is distinct (balanced ternary), so no
        # re-signing or dropping of gold inputs reaches the gold by accident.
        values = [m * (2 + q) for m in (243, 81, 27, 9, 3, 1)]
        sides: list[Literal["a", "b"]] = ["a", "a", "a", "b", "b", "b"]
        sessions = [_filler(q, s, f" The quote was ${1303 + 1711 * s} in the end." if s in (1, 8)
                            else "") for s in range(_SESSIONS)]
        for k, s in enumerate(gold_at):
            verb = "earned" if sides[k] == "a" else "spent"
            sessions[s] = _gold(f"I {verb} ${values[k]} on the {_NOUNS[k]} job.")
        value = sum(values[:3]) - sum(values[3:])
        records.append(_record(
            f"tme-ari-{number:03d}", "arithmetic", "deltas", "How much more did I earn than spend?",
            f"${value}", sessions, key=AnswerKey(numeric=NumericKey(value=value, unit="USD")),
            derivation=Derivation(operation="delta", unit="USD", value=value, inputs=tuple(
                DerivationInput(session_index=s, value=v, side=side)
                for s, v, side in zip(gold_at, values, sides, strict=True)))))
    for q in range(4):
        number += 1
        start, end = _positions(q + 2, 2)
        span = _DAY_OFFSETS[end] - _DAY_OFFSETS[start]
        sessions = [_filler(q, s, " That took about 2 hours." if s == 4 else "")
                    for s in range(_SESSIONS)]
        sessions[start] = _gold("I booked the ferry crossing this morning.")
        sessions[end] = _gold("The ferry crossing happened today, calm water.")
        records.append(_record(
            f"tme-ari-{number:03d}", "arithmetic", "durations",
            "How many days passed between booking the ferry crossing and taking it?",
            f"{span} days", sessions, key=AnswerKey(numeric=NumericKey(value=span, unit="days")),
            derivation=Derivation(operation="duration", unit="days", value=span, inputs=(
                DerivationInput(session_index=end, from_session_index=start, value=span),))))
    for q in range(4):
        number += 1
        gold_at = _positions(q + 3, 3)
        others = [s for s in range(_SESSIONS) if s not in gold_at][:2]
        sessions = [_filler(q, s) for s in range(_SESSIONS)]
        for s in gold_at:
            sessions[s] = _gold("I ordered from Meridian again for the workshop.")
        for s in others:
            sessions[s] = _filler(q, s, " I ordered from Calloway for the shed.")
        candidates = tuple(Candidate(session_index=s, matches=s in gold_at)
                           for s in sorted([*gold_at, *others]))
        records.append(_record(
            f"tme-ari-{number:03d}", "arithmetic", "counts",
            "How many times did I order from Meridian?", "3", sessions,
            key=AnswerKey(numeric=NumericKey(value=3)), count_predicate="ordered from Meridian",
            candidates=candidates, derivation=Derivation(operation="count", unit="orders", value=3,
                                                          inputs=())))
    return records


def _prospective_spec() -> VerticalSpec:
    return VerticalSpec("prospective", "pro", (
        ShapeSpec("as-of", 4, (1, 2), (6, 8), "calendar", paired_questions=0),
        ShapeSpec("due-later", 8, (1, 2), (6, 8), "calendar", paired_questions=8),
    ), v4="calendar")


def _prospective_records(gold_first: bool = False) -> list[QuestionRecord]:
    records: list[QuestionRecord] = []
    number = 0
    for q in range(4):
        position = 0 if gold_first else (q * 5 + 1) % 8 if q else 7
        sessions = [_filler(q, s) for s in range(8)]
        sessions[position] = _gold(f"Remind me to renew the {_NOUNS[q]} permit in nine days.")
        for arm, after, answer in (("before", 2, "Nothing is due yet."),
                                   ("after", 12, f"The {_NOUNS[q]} permit renewal is due.")):
            number += 1
            records.append(_record(
                f"tme-pro-{number:03d}", "prospective", "due-later", "Is anything due now?", answer,
                sessions, days=tuple(range(0, 16, 2)), asked_after=after,
                pair_id=f"tme-pro-p{q + 1:02d}", arm=arm,
                key=AnswerKey(accepted=(answer,), expected_negative="not_yet" if arm == "before"
                              else None)))
    for q in range(4):
        number += 1
        position = 0 if gold_first else (q * 3) % 8
        sessions = [_filler(q + 5, s) for s in range(8)]
        sessions[position] = _gold(f"The {_NOUNS[q + 4]} warranty runs for another month.")
        records.append(_record(
            f"tme-pro-{number:03d}", "prospective", "as-of",
            f"Was the {_NOUNS[q + 4]} warranty running last time we spoke?", "Yes, it was.",
            sessions, days=tuple(range(0, 16, 2))))
    return records


def _wm_records() -> list[QuestionRecord]:
    """WorkingMemory-style: H = 3, rungs d = 1 and 2, so gold is never first or last."""
    records: list[QuestionRecord] = []
    for q in range(24):
        d = 1 + q % 2
        sessions = [_filler(q, s) for s in range(4)]
        sessions[3 - d] = _gold(f"I have adopted a cat called Pim{q:02d}.")
        records.append(_record(f"tme-wm-{q + 1:03d}", "workingmemory", f"distance-{d}",
                               "Which cat have I adopted?", f"Pim{q:02d}", sessions,
                               distance_sessions=d))
    return records


def _wm_spec() -> VerticalSpec:
    return VerticalSpec("workingmemory", "wm", tuple(
        ShapeSpec(f"distance-{d}", 12, (1, 1), (3, 3), distance=d) for d in (1, 2)))


_WM_WINDOWS = {2: (1, 2), 4: (3, 4)}
"""The revision-3 WorkingMemory geometry in small: H = 5 (six sessions), rung 2 puts 1-2 sessions
between gold and the question, rung 4 puts 3-4 (gold never first or last, drawn in the window)."""


def _wm_window_records() -> list[QuestionRecord]:
    records: list[QuestionRecord] = []
    for q in range(24):
        rung = 2 if q % 2 else 4
        lo, hi = _WM_WINDOWS[rung]
        d = lo + (q // 2) % (hi - lo + 1)
        sessions = [_filler(q, s) for s in range(6)]
        sessions[5 - d] = _gold(f"I have adopted a cat called Pim{q:02d}.")
        records.append(_record(f"tme-wm-{q + 1:03d}", "workingmemory", f"distance-{rung}",
                               "Which cat have I adopted?", f"Pim{q:02d}", sessions,
                               distance_sessions=d))
    return records


def _wm_window_spec() -> VerticalSpec:
    return VerticalSpec("workingmemory", "wm", tuple(
        ShapeSpec(f"distance-{rung}", 12, (1, 1), (5, 5), distance=rung, distance_window=window)
        for rung, window in _WM_WINDOWS.items()))


def _edit(records: Sequence[QuestionRecord], index: int, **update: Any) -> list[QuestionRecord]:
    out = list(records)
    out[index] = out[index].model_copy(update=update)
    return out


def _edit_block(records: Sequence[QuestionRecord], index: int, **update: Any) -> list[QuestionRecord]:
    return _edit(records, index, typedmemeval=records[index].typedmemeval.model_copy(update=update))


def _edit_turn(records: Sequence[QuestionRecord], index: int, session: int, turn: int,
               content: str | None = None, has_answer: bool | None = None) -> list[QuestionRecord]:
    record = records[index]
    sessions = [list(s) for s in record.haystack_sessions]
    old = sessions[session][turn]
    sessions[session][turn] = old.model_copy(update={
        "content": old.content if content is None else content,
        "has_answer": old.has_answer if has_answer is None else has_answer})
    return _edit(records, index, haystack_sessions=tuple(tuple(s) for s in sessions))


def _first_filler(record: QuestionRecord) -> int:
    return next(i for i, s in enumerate(record.haystack_sessions) if not any(t.has_answer for t in s))


_SELF_TEST_PADDING = " Often granite, zinnia, lupin skylark, Pimmoz. Sadly sleet, linen, flax."
"""Revision-1-style word-list padding (two pad sentences) for the filler self-test."""
_SELF_TEST_ECHO = " (Also on my mind: ferry, crossing, permit.)"
"""A revision-1 echo clause for the filler self-test."""


def _padded(records: Sequence[QuestionRecord], tail: str = _SELF_TEST_PADDING) -> list[QuestionRecord]:
    """``records`` with ``tail`` appended to the user turn of every filler session."""
    out = list(records)
    for index, record in enumerate(records):
        for session, turns in enumerate(record.haystack_sessions):
            if not any(turn.has_answer for turn in turns):
                out = _edit_turn(out, index, session, 0, turns[0].content + tail)
    return out


def _never_known(template: QuestionRecord, qid: str) -> QuestionRecord:
    """A never-known abstention question over ``template``'s haystack (no gold, 'abstain')."""
    return template.model_copy(update={
        "question_id": qid, "question": "Which ferry company did I book with?",
        "answer": "You never said.", "answer_session_ids": (),
        "haystack_sessions": tuple(tuple(turn.model_copy(update={"has_answer": False})
                                         for turn in session)
                                   for session in template.haystack_sessions),
        "typedmemeval": ExtensionBlock(vertical=template.typedmemeval.vertical, shape="never-known",
                                       answer_key=AnswerKey(expected_negative="abstain"))})


def _with_never_known(spec: VerticalSpec) -> VerticalSpec:
    return VerticalSpec(spec.name, spec.abbrev, (*spec.shapes, ShapeSpec("never-known", 1, (0, 0),
                                                                         (4, 12))))


_SELF_TEST_CARVE_OUT = VerticalDeclarations(gold_position_carve_out=Declared(
    name="gold_position",
    reason="self-test: a design whose independent variable is the gold position (as a rung-fixed "
    "WorkingMemory design would be) declares the carve-out, and only then passes",
))


def self_test() -> list[SelfTestCase]:
    """Synthetic corpora with one known defect each, refused by the intended rule; clean controls."""
    ari_spec, pro_spec, wm_spec = _arithmetic_spec(), _prospective_spec(), _wm_spec()
    no_carve = VerticalDeclarations()
    ari = _arithmetic_records()
    pro = _prospective_records()
    ari_ceiling = {"counts": 1.0, "deltas": 5 / 6, "durations": 1.0, "sums": 1.0}

    def run_ari(records: Sequence[QuestionRecord], **sidecar: Any) -> GateResult:
        sidecar.setdefault("ceiling_by_shape", ari_ceiling)
        return check(_corpus(records, "arithmetic", **sidecar)[0], spec=ari_spec)

    def run_pro(records: Sequence[QuestionRecord]) -> GateResult:
        return check(_corpus(records, "prospective")[0], spec=pro_spec)

    cases: list[SelfTestCase] = []

    def add_defect(name: str, result: GateResult, rule: str) -> None:
        cases.append(defect_case(name, result, rule))

    def add_control(name: str, result: GateResult) -> None:
        cases.append(control_case(name, result))

    # --- controls ---
    add_control("clean arithmetic corpus (sums, deltas, durations, counts)", run_ari(ari))
    add_control("clean prospective corpus with pairs", run_pro(pro))
    wm_corpus = _corpus(_wm_records(), "workingmemory")[0]
    add_control("rung-fixed pinned gold (the v2 WorkingMemory design) passes only by a declared "
                "carve-out", check(wm_corpus, spec=wm_spec, declared=_SELF_TEST_CARVE_OUT))
    windowed, window_spec = _wm_window_records(), _wm_window_spec()
    add_control("workingmemory gold drawn within each rung's window (revision 3), no carve-out",
                check(_corpus(windowed, "workingmemory")[0], spec=window_spec, declared=no_carve))
    add_control("fixture corpus off the declared sizes (sizes not enforced)",
                check(_corpus(ari, "arithmetic", fixture=True, ceiling_by_shape=ari_ceiling)[0]))
    homographs = _edit_turn(pro, 8, _first_filler(pro[8]), 0,
                            "May I ask you to march on with it? We may need a day or two.")
    add_control("V4 homographs ('May I', 'march on', 'may') are not months", run_pro(homographs))
    corpus, text = _corpus(ari, "arithmetic", generator="selftest", ceiling_by_shape=ari_ceiling)
    add_control("reproducibility: regenerated bytes match",
                check(corpus, spec=ari_spec, regenerate=lambda _: text))

    # --- ids and bookkeeping ---
    add_defect("duplicate id", run_ari(_edit(ari, 1, question_id=ari[0].question_id)), "duplicate_id")
    add_defect("malformed id", run_ari(_edit(ari, 0, question_id="tme-ari-17")), "question_id")
    add_defect("id with another vertical's abbreviation",
               run_ari(_edit(ari, 0, question_id="tme-pro-001")), "question_id")
    add_defect("_abs on a non-abstention question",
               run_ari(_edit(ari, 0, question_id="tme-ari-001_abs")), "abs_suffix")
    add_defect("record of another vertical", run_ari(_edit_block(ari, 0, vertical="episodic")),
               "vertical")

    # --- revision 2 (VERTICALS.md Appendix C): opaque ids, no non-linguistic filler ---
    stamped = {"text": {"non_linguistic_filler_share": 0.0}}
    nk_spec = _with_never_known(ari_spec)
    add_control("clean revision-2 corpus (opaque ids, natural text, share stamped)",
                run_ari(ari, revision=2, extra=stamped))
    add_control("revision-2 never-known question with an opaque id (no _abs demanded)",
                check(_corpus([*ari, _never_known(ari[0], "tme-ari-099")], "arithmetic",
                              revision=2, ceiling_by_shape=ari_ceiling, extra=stamped)[0],
                      spec=nk_spec))
    add_defect("revision-2 never-known question with an _abs id",
               check(_corpus([*ari, _never_known(ari[0], "tme-ari-099_abs")], "arithmetic",
                             revision=2, ceiling_by_shape=ari_ceiling, extra=stamped)[0],
                     spec=nk_spec), "question_id")
    padded = _padded(ari)
    add_defect("revision-2 corpus with word-list padding", run_ari(padded, revision=2),
               "non_linguistic_filler")
    add_defect("revision-2 corpus with echo clauses", run_ari(_padded(ari, _SELF_TEST_ECHO),
                                                              revision=2), "non_linguistic_filler")
    add_control("revision-1 word-list padding is measured, not enforced", run_ari(padded))
    add_defect("revision-2 sidecar records another filler share",
               run_ari(ari, revision=2, extra={"text": {"non_linguistic_filler_share": 0.25}}),
               "sidecar_mismatch")
    add_defect("undeclared shape", run_ari(_edit_block(ari, 0, shape="averages")), "shape_declared")
    add_defect("shape n differs from the declaration", run_ari(ari[1:]), "shape_n")
    add_defect("haystack lists of unequal length",
               run_ari(_edit(ari, 0, haystack_dates=ari[0].haystack_dates[:-1])), "haystack_lengths")
    gold_session = ari[0].gold_session_indices[0]
    add_defect("answer_session_ids not matching has_answer turns",
               run_ari(_edit_turn(ari, 0, gold_session, 0, has_answer=False)), "answer_sessions")
    add_defect("answer session outside the haystack",
               run_ari(_edit(ari, 0, answer_session_ids=(*ari[0].answer_session_ids, "zz"))),
               "answer_sessions")
    dates = list(ari[4].haystack_dates)
    dates[2], dates[3] = dates[3], dates[2]
    add_defect("dates out of order", run_ari(_edit(ari, 4, haystack_dates=tuple(dates))), "date_order")
    add_defect("question date before the last session",
               run_ari(_edit(ari, 0, question_date=ari[0].haystack_dates[-2])), "question_date")
    filler = _first_filler(ari[0])
    wm = _wm_records()
    wm_filler = _first_filler(wm[0])
    extra_gold = _edit_turn(wm, 0, wm_filler, 0, has_answer=True)
    extra_gold = _edit(extra_gold, 0, answer_session_ids=tuple(
        sid for i, sid in enumerate(wm[0].haystack_session_ids)
        if i == wm_filler or sid in wm[0].answer_session_ids))
    add_defect("G outside the declared range",
               check(_corpus(extra_gold, "workingmemory")[0], spec=wm_spec), "g_range")
    longer = _edit(wm, 0, haystack_sessions=(wm[0].haystack_sessions[0], *wm[0].haystack_sessions),
                   haystack_session_ids=("s99", *wm[0].haystack_session_ids),
                   haystack_dates=(format_corpus_date(_START - timedelta(days=1)),
                                   *wm[0].haystack_dates))
    add_defect("H outside the declared range",
               check(_corpus(longer, "workingmemory")[0], spec=wm_spec), "h_range")
    add_defect("gold pinned first in every question", run_pro(_prospective_records(gold_first=True)),
               "gold_position")
    add_defect("rung-fixed pinned gold without its carve-out",
               check(wm_corpus, spec=wm_spec, declared=no_carve), "gold_position")
    # a gold outside its rung's window: question 0 (rung 4, window 3..4) moved to 2 sessions
    # before the question, its distance_sessions saying so
    outside = list(windowed)
    moved = [_filler(0, s) for s in range(6)]
    moved[3] = _gold("I have adopted a cat called Pim00.")
    outside[0] = _record("tme-wm-001", "workingmemory", "distance-4", "Which cat have I adopted?",
                         "Pim00", moved, distance_sessions=2)
    add_defect("gold outside its rung's window",
               check(_corpus(outside, "workingmemory")[0], spec=window_spec), "rung_distance")
    add_defect("distance_sessions disagreeing with the gold's place in the window",
               check(_corpus(_edit_block(windowed, 0, distance_sessions=4), "workingmemory")[0],
                     spec=window_spec), "rung_distance")
    add_defect("rung distance off the declared d",
               check(_corpus(_edit_block(wm, 0, distance_sessions=2), "workingmemory")[0],
                     spec=wm_spec), "rung_distance")

    # --- V4 ---
    where = _first_filler(pro[0])
    for name, text, rule in (
        ("V4 year in text", "We did the same back in 2024, if you recall.", "v4_year"),
        ("V4 month-day in text", "The permit office said March 3rd at the latest.", "v4_month_day"),
        ("V4 numeric date in text", "The form says 3/14 at the top.", "v4_numeric_date"),
        ("V4 month name in calendar scope", "It usually happens in October.", "v4_month_name"),
        ("V4 weekday name in calendar scope", "Let's talk again on Thursday.", "v4_weekday_name"),
    ):
        edited = _edit_turn(pro, 0, where, 0, text)
        edited = _edit(edited, 1, haystack_sessions=edited[0].haystack_sessions)  # keep the pair
        add_defect(name, run_pro(edited), rule)

    # --- V5 ---
    derivation = ari[0].typedmemeval.derivation
    assert derivation is not None
    add_defect("V5 wrong recorded sum", run_ari(_edit_block(
        ari, 0, derivation=derivation.model_copy(update={"value": derivation.value + 1}))), "v5_value")
    delta = ari[4].typedmemeval.derivation
    assert delta is not None
    flipped = tuple(item.model_copy(update={"side": "a"}) if k == 3 else item
                    for k, item in enumerate(delta.inputs))
    add_defect("V5 delta side flipped", run_ari(_edit_block(
        ari, 4, derivation=delta.model_copy(update={"inputs": flipped}))), "v5_value")
    duration = ari[8].typedmemeval.derivation
    assert duration is not None
    add_defect("V5 duration disagrees with the timestamps", run_ari(_edit_block(
        ari, 8, derivation=duration.model_copy(update={"value": duration.value + 1}))), "v5_value")
    count = ari[12].typedmemeval.derivation
    assert count is not None
    add_defect("V5 count disagrees with the candidates", run_ari(_edit_block(
        ari, 12, derivation=count.model_copy(update={"value": 2}),
        answer_key=AnswerKey(numeric=NumericKey(value=2)))), "v5_value")
    shifted = tuple(item.model_copy(update={"value": item.value + 1}) if k == 0 else item
                    for k, item in enumerate(derivation.inputs))
    add_defect("V5 input not literal in its session", run_ari(_edit_block(
        ari, 0, derivation=derivation.model_copy(update={"inputs": shifted, "value":
                                                         derivation.value + 1}),
        answer_key=AnswerKey(numeric=NumericKey(value=derivation.value + 1, unit="USD")))),
        "v5_literal")
    first, second = derivation.inputs[1].value, derivation.inputs[2].value
    coincident = _edit_turn(ari, 0, filler, 0, f"I lent ${int(first + second)} to my brother.")
    add_defect("V5 coincident subset (a distractor equals two gold inputs)", run_ari(coincident),
               "v5_coincident_subset")
    coincident_span = _edit_turn(ari, 8, _first_filler(ari[8]), 0,
                                 f"The repair took {int(duration.value)} days to arrive.")
    add_defect("V5 coincident duration stated in text", run_ari(coincident_span),
               "v5_coincident_subset")

    # --- pairs ---
    add_defect("pair missing an arm", run_pro(pro[1:]), "pair_arms")
    add_defect("pair with different haystacks",
               run_pro(_edit_turn(pro, 0, where, 1, "Quite right, that one is sorted.")),
               "pair_haystack")
    add_defect("pair with the same gold", run_pro(_edit(pro, 1, answer=pro[0].answer)), "pair_gold")

    # --- sidecar and reproducibility ---
    add_defect("ceiling mismatch vs sidecar",
               run_ari(ari, ceiling_by_shape={**ari_ceiling, "deltas": 1.0}), "ceiling")
    add_defect("sidecar shape counts differ",
               run_ari(ari, shape_counts={"sums": 4, "deltas": 4, "durations": 4, "counts": 5}),
               "sidecar_mismatch")
    add_defect("reproducibility: regenerated bytes differ",
               check(corpus, spec=ari_spec, regenerate=lambda _: text + " "), "reproducibility")
    return cases


__all__ = [
    "GATE", "RULES", "Amount", "SubsetItem", "canonical_unit", "check", "duration_between",
    "extract_amounts", "find_coincident_subset", "poisson_binomial_tails", "self_test", "v4_findings",
]
