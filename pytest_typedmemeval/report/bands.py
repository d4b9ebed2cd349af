"""Bands across runs (VERTICALS.md §5.10): per-shape min–max and mean of every outcome rate over
≥ 2 runs with unchanged configuration, and per-question flip counts.

Two runs can agree by luck, so a band is never computed from one run, and banding incomparable
runs manufactures stability, so :func:`band_runs` refuses — one line naming the differing field —
runs whose corpus sha256, options fingerprint, judge fingerprint or answer-sampling settings differ.

The options fingerprint is the report's ``options.fingerprint`` (adapter, its time limit, judge,
thresholds or baseline mode; written since the plugin added the ``options`` block) or a top-level
``options_fingerprint``. The set of questions that ran (what ``-k``/``-m``/``--tme-corpus``
selected) and the model settings are compared as well; an older report without the block is
compared on those alone, and the bands say so.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..judge.outcomes import ALL_OUTCOMES
from .aggregate import ordered_shapes

OUTCOMES: tuple[str, ...] = tuple(o.value for o in ALL_OUTCOMES)
SAMPLING_FIELDS = ("agent", "model", "base_url", "temperature", "max_tokens", "seed")
"""The ``model`` block fields that decide what the answering model says (not the cost ceiling)."""

Report = Mapping[str, Any]


class BandError(ValueError):
    """Runs that must not be banded (or compared); the message is one line naming the field."""


@dataclass(frozen=True)
class RateBand:
    """One outcome's rate across runs: min, max, mean and the per-run rates in run order."""

    outcome: str
    low: float | None
    high: float | None
    mean: float | None
    rates: tuple[float | None, ...]

    @property
    def width(self) -> float:
        return 0.0 if self.low is None or self.high is None else self.high - self.low


@dataclass(frozen=True)
class ShapeBand:
    """Bands of one shape (``shape`` ``None``: the whole vertical) of one corpus."""

    corpus_id: str
    vertical: str
    shape: str | None
    n: int
    rates: dict[str, RateBand]
    flipped: int
    """Questions of this shape whose outcome changed at least once across the runs."""


@dataclass(frozen=True)
class QuestionFlips:
    """One question's outcomes across runs: ``distinct`` outcomes seen, ``changes`` between
    consecutive runs (A A B A has 2 distinct, 2 changes)."""

    corpus_id: str
    question_id: str
    vertical: str
    shape: str
    question: str
    outcomes: tuple[str, ...]
    distinct: int
    changes: int


@dataclass(frozen=True)
class Bands:
    """The banded view of ≥ 2 comparable runs."""

    runs: int
    identity: dict[str, Any]
    """What the runs share (corpora, judge fingerprint, sampling settings), for the page header."""
    shapes: tuple[ShapeBand, ...]
    questions: tuple[QuestionFlips, ...]
    """Every question, most flipping first."""
    notes: tuple[str, ...]

    @property
    def flipping(self) -> tuple[QuestionFlips, ...]:
        return tuple(q for q in self.questions if q.changes)

    def shape(self, corpus_id: str, vertical: str, shape: str | None) -> ShapeBand | None:
        for band in self.shapes:
            if (band.corpus_id, band.vertical, band.shape) == (corpus_id, vertical, shape):
                return band
        return None

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data (for ``typedmemeval report --json``)."""
        return {
            "runs": self.runs, "identity": self.identity, "notes": list(self.notes),
            "shapes": [{"corpus_id": b.corpus_id, "vertical": b.vertical, "shape": b.shape, "n": b.n,
                        "flipped": b.flipped,
                        "rates": {o: {"min": r.low, "max": r.high, "mean": r.mean, "runs": list(r.rates)}
                                  for o, r in b.rates.items()}} for b in self.shapes],
            "questions": [{"corpus_id": q.corpus_id, "question_id": q.question_id, "outcomes": list(q.outcomes),
                           "distinct": q.distinct, "changes": q.changes} for q in self.questions],
        }


def _corpora(report: Report) -> dict[str, str]:
    return {str(c["corpus_id"]): str(c["sha256"]) for c in report.get("corpora") or []}


def _options_fingerprint(report: Report) -> str | None:
    options = report.get("options")
    nested = options.get("fingerprint") if isinstance(options, Mapping) else None
    return report.get("options_fingerprint") or nested


def question_keys(report: Report) -> list[tuple[str, str]]:
    return sorted((str(q["corpus_id"]), str(q["question_id"])) for q in report.get("questions") or [])


def _sampling(report: Report) -> dict[str, Any] | None:
    block = report.get("model")
    return None if not isinstance(block, Mapping) else {f: block.get(f) for f in SAMPLING_FIELDS}


def _first_difference(values: Sequence[Any]) -> int | None:
    return next((i for i, v in enumerate(values) if v != values[0]), None)


def _short(value: Any) -> str:
    text = str(value)
    return text[:12] if len(text) == 64 else text


def check_comparable(reports: Sequence[Report], *, what: str = "band") -> None:
    """Raise :class:`BandError` (one line) unless every run shares corpus identity, options,
    judge fingerprint and answer-sampling settings; run numbers in the message count from 1."""
    if not reports:
        raise BandError(f"cannot {what} runs: no report given")
    corpora = [_corpora(r) for r in reports]
    if (i := _first_difference([sorted(c) for c in corpora])) is not None:
        raise BandError(f"cannot {what} runs: corpora differ: run 1 has {', '.join(sorted(corpora[0]))}; "
                        f"run {i + 1} has {', '.join(sorted(corpora[i]))}")
    for corpus_id in sorted(corpora[0]):
        shas = [c[corpus_id] for c in corpora]
        if (i := _first_difference(shas)) is not None:
            raise BandError(f"cannot {what} runs: corpus sha256 differs for {corpus_id}: run 1 "
                            f"{_short(shas[0])}, run {i + 1} {_short(shas[i])}")
    options = [_options_fingerprint(r) for r in reports]
    if (i := _first_difference(options)) is not None:
        raise BandError(f"cannot {what} runs: options fingerprint differs: run 1 {_short(options[0])}, "
                        f"run {i + 1} {_short(options[i])}")
    keys = [question_keys(r) for r in reports]
    if (i := _first_difference(keys)) is not None:
        only = sorted(set(keys[0]) ^ set(keys[i]))
        shown = ", ".join(f"{c}/{q}" for c, q in only[:3]) + (" ..." if len(only) > 3 else "")
        raise BandError(f"cannot {what} runs: selected questions differ (options): run 1 has "
                        f"{len(keys[0])}, run {i + 1} has {len(keys[i])}; not in both: {shown or 'order'}")
    judges = [(r.get("judge") or {}).get("fingerprint") for r in reports]
    if (i := _first_difference(judges)) is not None:
        raise BandError(f"cannot {what} runs: judge fingerprint differs: run 1 {_short(judges[0])}, "
                        f"run {i + 1} {_short(judges[i])}")
    sampling = [_sampling(r) for r in reports]
    if (i := _first_difference(sampling)) is not None:
        first, other = sampling[0] or {}, sampling[i] or {}
        field = next((f for f in SAMPLING_FIELDS if first.get(f) != other.get(f)), "model")
        raise BandError(f"cannot {what} runs: answer-sampling settings differ ({field}): run 1 "
                        f"{first.get(field)!r}, run {i + 1} {other.get(field)!r}")


def _vector_rows(report: Report) -> dict[tuple[str, str, str | None], Mapping[str, Any]]:
    """(corpus, vertical, shape or None) -> that outcome vector of one report."""
    rows: dict[tuple[str, str, str | None], Mapping[str, Any]] = {}
    for corpus in report.get("results") or []:
        for vertical in corpus.get("verticals") or []:
            rows[corpus["corpus_id"], vertical["vertical"], None] = vertical
            for shape in ordered_shapes(vertical):
                rows[corpus["corpus_id"], vertical["vertical"], shape["shape"]] = shape
    return rows


def _rate_band(outcome: str, rates: list[float | None]) -> RateBand:
    defined = [r for r in rates if r is not None]
    if not defined:
        return RateBand(outcome, None, None, None, tuple(rates))
    return RateBand(outcome, min(defined), max(defined), round(statistics.fmean(defined), 6), tuple(rates))


def outcomes_by_question(reports: Sequence[Report]) -> dict[tuple[str, str], list[Mapping[str, Any]]]:
    """(corpus, question) -> that question's row in each report, in report order."""
    rows: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for report in reports:
        for question in report.get("questions") or []:
            rows.setdefault((str(question["corpus_id"]), str(question["question_id"])), []).append(question)
    return rows


def band_runs(reports: Sequence[Report]) -> Bands:
    """Band ≥ 2 comparable runs; raise :class:`BandError` (one line) otherwise."""
    if len(reports) < 2:
        raise BandError(f"cannot band runs: bands need at least 2 runs (3 recommended), got {len(reports)}")
    check_comparable(reports)
    questions: list[QuestionFlips] = []
    for (corpus_id, question_id), rows in sorted(outcomes_by_question(reports).items()):
        outcomes = tuple(str(r["outcome"]) for r in rows)
        changes = sum(1 for a, b in zip(outcomes, outcomes[1:]) if a != b)
        questions.append(QuestionFlips(corpus_id, question_id, str(rows[0]["vertical"]), str(rows[0]["shape"]),
                                       str(rows[0].get("question") or ""), outcomes, len(set(outcomes)), changes))
    flipped: dict[tuple[str, str, str | None], int] = {}
    for q in questions:
        if q.changes:
            for key in ((q.corpus_id, q.vertical, q.shape), (q.corpus_id, q.vertical, None)):
                flipped[key] = flipped.get(key, 0) + 1
    vectors = [_vector_rows(r) for r in reports]
    shapes = []
    for key, first in vectors[0].items():
        rows = [v.get(key) for v in vectors]
        rates = {o: _rate_band(o, [((row or {}).get("outcomes") or {}).get(o, {}).get("rate") for row in rows])
                 for o in OUTCOMES}
        shapes.append(ShapeBand(key[0], key[1], key[2], int(first.get("n") or 0), rates, flipped.get(key, 0)))
    notes = []
    if len(reports) == 2:
        notes.append("2 runs: they can agree by luck and give a zero-width band; 3 runs are recommended")
    if not any(_options_fingerprint(r) for r in reports):
        notes.append("the reports carry no options fingerprint: runs were checked for the same selected "
                     "questions and the same model settings instead")
    sampling = _sampling(reports[0])
    identity = {"corpora": _corpora(reports[0]), "judge_fingerprint": (reports[0].get("judge") or {}).get("fingerprint"),
                "options_fingerprint": _options_fingerprint(reports[0]), "sampling": sampling}
    questions.sort(key=lambda q: (-q.changes, -q.distinct, q.corpus_id, q.question_id))
    return Bands(len(reports), identity, tuple(shapes), tuple(questions), tuple(notes))


def band_lines(bands: Bands, *, top: int = 10) -> list[str]:
    """A terminal summary: the correct-rate band per shape and the most-flipping questions."""
    lines = [f"bands over {bands.runs} runs (min–max, mean of the correct rate; flipped = questions whose "
             "outcome changed)"]
    for band in bands.shapes:
        rate = band.rates["correct"]
        name = f"{band.corpus_id} {band.vertical}" + (f" / {band.shape}" if band.shape else "")
        if rate.low is None or rate.high is None or rate.mean is None:
            lines.append(f"  {name}: n={band.n} no rate")
            continue
        lines.append(f"  {name}: n={band.n} correct {rate.low:.0%}–{rate.high:.0%} (mean {rate.mean:.0%}), "
                     f"flipped {band.flipped}")
    for q in bands.flipping[:top]:
        lines.append(f"  flips {q.changes}: {q.corpus_id}/{q.question_id} {' > '.join(q.outcomes)}")
    lines.extend(f"  note: {note}" for note in bands.notes)
    return lines


__all__ = ["BandError", "Bands", "QuestionFlips", "RateBand", "ShapeBand", "band_lines", "band_runs",
           "check_comparable", "outcomes_by_question", "question_keys"]
