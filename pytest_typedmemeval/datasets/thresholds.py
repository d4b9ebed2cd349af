"""Threshold mode (``--tme-fail-under``) over public-dataset questions (issue 23, item 4).

A bound names what it bounds by a marker the dataset items already carry, so ``-m`` and
``--tme-fail-under`` speak the same names:

- ``locomo=0.5``: the dataset's ``overall`` figure (the summary's overall line: every question but
  the spec's ``reported_apart`` categories, e.g. LongMemEval ``single-session-assistant``);
- ``locomo_multi_hop=0.3``: one category (its category marker);
- ``longmemeval_abstention=0.8``: the dataset's abstention probes (its abstention marker);
- a bare ``RATE`` (``*``) bounds every dataset's ``overall`` figure, as it bounds every vertical.

A dataset is in threshold mode when some bound applies to it (``*``, or one of its names): its
items then record their outcome without failing one by one (errors still fail: they are harness
faults), and the bounds decide. A dataset no bound names keeps failing item by item. The rate is of
``correct``, which is whatever reading decided pass/fail in this run (``--tme-dataset-scoring``:
the typed reading under ``typed`` and ``both``, the dataset's own score >= 0.5 under ``upstream``).

Kept apart from :mod:`..report.thresholds` (the corpus bounds): dataset results never enter the
TypedMemEval report, so their bounds never enter its ``fail_under`` either.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from .items import abstention_marker, category_marker

if TYPE_CHECKING:
    from .models import LoadedDataset
    from .runner import DatasetResult

EVERY = "*"
"""The key of a bare ``--tme-fail-under RATE``."""

ScopeKind = Literal["overall", "category", "abstention"]


@dataclass(frozen=True)
class BoundScope:
    """What one bound name covers: a dataset's overall figure, one of its categories, or its
    abstention probes."""

    name: str
    dataset: str
    kind: ScopeKind
    category: str | None = None

    def covers(self, result: DatasetResult, reported_apart: frozenset[str]) -> bool:
        """Whether ``result`` counts towards this bound (``reported_apart``: the spec's categories
        left out of the overall figure)."""
        if self.kind == "overall":
            return result.category not in reported_apart
        if self.kind == "abstention":
            return result.abstention
        return result.category == self.category

    def label(self, reported_apart: Iterable[str]) -> str:
        """What the bound covers, in words, for the summary."""
        if self.kind == "overall":
            apart = sorted(reported_apart)
            return "overall" + (f" (excluding {', '.join(apart)})" if apart else "")
        if self.kind == "abstention":
            return "abstention probes"
        return f"category {self.category}"


def bound_scopes(datasets: Mapping[str, LoadedDataset]) -> dict[str, BoundScope]:
    """Every bound name the loaded datasets answer to: each dataset's name, the marker of each of
    its categories (the known ones and any the file adds) and its abstention marker."""
    scopes: dict[str, BoundScope] = {}
    for name, loaded in datasets.items():
        scopes[name] = BoundScope(name, name, "overall")
        categories = list(loaded.spec.categories)
        categories += sorted({q.category for q in loaded.questions} - set(categories))
        for category in categories:
            marker = category_marker(name, category)
            scopes.setdefault(marker, BoundScope(marker, name, "category", category))
        marker = abstention_marker(name)
        scopes.setdefault(marker, BoundScope(marker, name, "abstention"))
    return scopes


def dataset_bounds(fail_under: Mapping[str, float], scopes: Mapping[str, BoundScope]) -> dict[str, float]:
    """The bounds that concern datasets: ``*`` and every name of ``scopes``."""
    return {name: bound for name, bound in fail_under.items() if name == EVERY or name in scopes}


def bounded_datasets(bounds: Mapping[str, float], scopes: Mapping[str, BoundScope]) -> frozenset[str]:
    """The datasets in threshold mode: every one under ``*``, else those a bound names."""
    if EVERY in bounds:
        return frozenset(scope.dataset for scope in scopes.values())
    return frozenset(scopes[name].dataset for name in bounds if name in scopes)


def unknown_dataset_bound(fail_under: Mapping[str, float], scopes: Mapping[str, BoundScope]) -> str | None:
    """The refusal of a bound that names nothing a dataset-only run collects (it would bound
    nothing), or ``None``."""
    known = sorted(scopes)
    for name, bound in fail_under.items():
        if name == EVERY or name in scopes:
            continue
        close = difflib.get_close_matches(name, known, n=1)
        hint = f"did you mean {close[0]}? " if close else ""
        return (f"--tme-fail-under {name}={bound:g}: no collected question has {name!r} (this run has no "
                f"TypedMemEval corpus, so no vertical or shape), so this bound would bound nothing; {hint}"
                f"dataset bounds: {', '.join(known)}")
    return None


def threshold_rows(dataset: str, results: Sequence[DatasetResult], bounds: Mapping[str, float],
                   scopes: Mapping[str, BoundScope], reported_apart: frozenset[str], *, ran: bool,
                   evaluated: bool) -> list[dict[str, Any]]:
    """One dataset's rows: its overall figure (under ``*`` when any of its questions ran, or when
    named), then each named category and its abstention probes when named. A row whose scope ran no
    question fails (it measured nothing); when ``evaluated`` is false no row passes or fails."""
    rows: list[dict[str, Any]] = []
    overall = bounds.get(dataset, bounds.get(EVERY) if ran else None)
    named = [scope for scope in scopes.values() if scope.dataset == dataset]
    for scope in named:
        bound = overall if scope.kind == "overall" else bounds.get(scope.name)
        if bound is None:
            continue
        covered = [r for r in results if scope.covers(r, reported_apart)]
        correct = sum(r.correct for r in covered)
        rate = correct / len(covered) if covered else 0.0
        rows.append({"bound_name": scope.name, "dataset": dataset, "covers": scope.label(reported_apart),
                     "n": len(covered), "correct": correct, "correct_rate": round(rate, 4), "bound": bound,
                     "passed": (bool(covered) and rate >= bound) if evaluated else None})
    return rows


def row_line(row: Mapping[str, Any]) -> str:
    """One row for the dataset's section: ``threshold locomo_multi_hop (category multi-hop): correct
    0.30 (84/282) < 0.40: FAILED``."""
    head = f"threshold {row['bound_name']} ({row['covers']}): "
    if not row["n"]:
        figure = f"no question ran, bound {row['bound']:.2f}"
    else:
        relation = ">=" if row["correct_rate"] >= row["bound"] else "<"
        figure = f"correct {row['correct_rate']:.2f} ({row['correct']}/{row['n']}) {relation} {row['bound']:.2f}"
    verdict = {True: "met", False: "FAILED", None: "not evaluated"}[row["passed"]]
    return f"{head}{figure}: {verdict}"


def threshold_failures(rows: Iterable[Mapping[str, Any]]) -> list[str]:
    """One phrase per failed row (``locomo_multi_hop: correct 0.30 < 0.40 (n=282)``)."""
    return [
        f"{row['bound_name']}: "
        + (f"correct {row['correct_rate']:.2f} < {row['bound']:.2f} (n={row['n']})" if row["n"]
           else "no question ran, so the bound measured nothing")
        for row in rows if row["passed"] is False
    ]


def threshold_line(*, failures: Sequence[str], not_evaluated: Sequence[str]) -> str:
    """The one closing line about the dataset bounds. ``not_evaluated``: one phrase per dataset
    whose bounds could not be evaluated (errors, questions not answered)."""
    if not_evaluated:
        line = "dataset thresholds: NOT EVALUATED: " + "; ".join(not_evaluated) + ", so no bound of theirs can pass"
        return line + ("; FAILED: " + "; ".join(failures) if failures else "")
    if failures:
        return "FAILED dataset thresholds: " + "; ".join(failures)
    return "dataset thresholds: every bound met"


__all__ = ["EVERY", "BoundScope", "bound_scopes", "bounded_datasets", "dataset_bounds", "row_line",
           "threshold_failures", "threshold_line", "threshold_rows", "unknown_dataset_bound"]
