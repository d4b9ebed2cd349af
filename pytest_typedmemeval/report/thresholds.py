"""Threshold mode (``--tme-fail-under``): the bounds, their rows in the report, and the summary line.

One implementation for the two places bounds are evaluated: the end of a pytest run
(:mod:`..plugin.finish`) and ``typedmemeval report --merge ... --fail-under ...`` over a merged
sharded run (:mod:`.merge`), so a bound means the same in both. Knows nothing of pytest; importing
it is cheap (the plugin's options import :func:`parse_fail_under` at every pytest start), and the
aggregation it needs is imported when a bound is evaluated.
"""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..results import QuestionResult


def marker_name(label: str) -> str:
    """A vertical or shape as a bare marker and bound name: ``due-later`` -> ``due_later``."""
    return label.strip().lower().replace("-", "_").replace(" ", "_")


def parse_fail_under(text: str) -> tuple[str, float]:
    """``RATE`` (key ``"*"``: every vertical) or ``NAME=RATE``, RATE in [0, 1]."""
    vertical, sep, bound = text.rpartition("=")
    key = marker_name(vertical) if sep else "*"
    try:
        value = float(bound)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected RATE or VERTICAL=RATE with RATE in [0, 1]") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text!r}: the rate must lie in [0, 1]")
    return key, value


def unknown_bound_name(fail_under: Mapping[str, float], verticals: Collection[str],
                       shapes: Collection[str], *, datasets: Collection[str] = ()) -> str | None:
    """The refusal of a bound that names no vertical or shape of the loaded corpora (it would bound
    nothing), or ``None``. ``verticals`` and ``shapes`` are marker names; ``datasets``, the bound
    names of the run's public datasets (checked apart, listed here so a typo finds its match)."""
    ordered_verticals = sorted(verticals)
    ordered_shapes = sorted(set(shapes) - set(verticals))
    ordered_datasets = sorted(set(datasets) - set(verticals) - set(shapes))
    for name, bound in fail_under.items():
        if name == "*" or name in verticals or name in ordered_shapes or name in ordered_datasets:
            continue
        close = difflib.get_close_matches(name, ordered_verticals + ordered_shapes + ordered_datasets, n=1)
        hint = f"did you mean {close[0]}? " if close else ""
        listed = f"; dataset bounds: {', '.join(ordered_datasets)}" if ordered_datasets else ""
        return (f"--tme-fail-under {name}={bound:g}: no collected question has the vertical or shape "
                f"{name!r}, so this bound would bound nothing; {hint}verticals: "
                f"{', '.join(ordered_verticals)}; shapes: {', '.join(ordered_shapes)}{listed}")
    return None


def threshold_verdicts(results: Iterable[QuestionResult], fail_under: Mapping[str, float],
                       corpus_verticals: Collection[str], *, evaluated: bool) -> list[dict[str, Any]]:
    """Per vertical (over every corpus that ran it), and per shape named in a bound: correct rate vs
    the bound in force. A bound whose vertical or shape ran no question fails (it measured nothing);
    on a partial run no row passes or fails (``passed`` is ``None``). ``corpus_verticals``: the
    verticals (marker names) of every loaded corpus, which decide whether a name is a vertical."""
    rows: list[dict[str, Any]] = []
    ran = list(results)
    verticals = sorted({marker_name(r.vertical) for r in ran} | {
        name for name in fail_under if name != "*" and name in corpus_verticals})
    for vertical in verticals:
        bound = fail_under.get(vertical, fail_under.get("*"))
        if bound is None:
            continue
        rows.append(_threshold_row({"vertical": vertical}, bound, evaluated,
                                   [r for r in ran if marker_name(r.vertical) == vertical]))
    for shape in sorted(name for name in fail_under if name != "*" and name not in corpus_verticals):
        rows.append(_threshold_row({"shape": shape}, fail_under[shape], evaluated,
                                   [r for r in ran if marker_name(r.shape) == shape]))
    return rows


def _threshold_row(scope: dict[str, str], bound: float, evaluated: bool,
                   results: Sequence[QuestionResult]) -> dict[str, Any]:
    from .aggregate import outcome_vector

    vector = outcome_vector(results)
    rate = vector["outcomes"]["correct"]["rate"]
    passed: bool | None = None
    if evaluated:
        passed = rate is not None and rate >= bound
    return {**scope, "n": vector["n"], "correct_rate": rate or 0.0, "bound": bound,
            "ci95": vector["outcomes"]["correct"]["ci95"], "passed": passed}


def threshold_failures(rows: Iterable[Mapping[str, Any]]) -> list[str]:
    """One phrase per failed row (``arithmetic: correct 0.40 < 0.60 (n=52)``)."""
    return [
        f"{row.get('vertical') or row.get('shape')}: "
        + (f"correct {row['correct_rate']:.2f} < {row['bound']:.2f} (n={row['n']})" if row["n"]
           else "no question ran, so the bound measured nothing")
        for row in rows if row["passed"] is False
    ]


def threshold_line(*, evaluated: bool, errored: int, partial: bool, failures: Sequence[str]) -> str:
    """The summary's one line about the bounds."""
    if not evaluated and errored and not partial:
        return (f"thresholds: NOT EVALUATED: {errored} question(s) ended in error (harness "
                "faults, not memory results), so no bound can pass")
    if not evaluated:
        return "thresholds: NOT EVALUATED: the run is partial, so no bound can pass"
    if failures:
        return "FAILED thresholds: " + "; ".join(failures)
    return "thresholds: every vertical at or above its bound"


__all__ = ["marker_name", "parse_fail_under", "threshold_failures", "threshold_line", "threshold_verdicts",
           "unknown_bound_name"]
