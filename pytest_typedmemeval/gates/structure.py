"""Structure gate (GATES.md §1, marker ``tme_gate_structure``): invariants computed from corpus bytes.

Ids, vertical and shape, haystack shape, time order, gold bookkeeping, G and H, gold position,
the ceiling table, V4 (no calendar dates in time-dependent text), V5 (derivations recomputable and
unambiguous: Arithmetic's own check, :mod:`.arithmetic_checks`, run for every shape whose spec
declares an ``operation``), pairs and reproducibility. Every design number comes from :mod:`.vertical_specs` or
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
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from ..corpus.loading import Corpus, normalised_bytes
from ..corpus.text_stats import filler_counts
from ..corpus.models import QuestionRecord, parse_corpus_date
from ..retrieval.bm25 import K_REF
from .declarations import VerticalDeclarations, declarations_for
from .result import GateResult, GateStatus, Refusal, SelfTestCase
from .vertical_specs import V4Level, VerticalSpec, spec_for, v4_level
from .arithmetic_checks import check_derivation

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
        check_derivation(record, shape_spec, times, out)


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


def self_test() -> list[SelfTestCase]:
    """Synthetic corpora with one known defect each, refused by the intended rule; clean controls
    (the corpora and cases: :mod:`.selftest.structure`)."""
    from .selftest import structure as cases

    return cases.self_test(check)


__all__ = ["GATE", "RULES", "Regenerate", "check", "poisson_binomial_tails", "self_test", "v4_findings"]
