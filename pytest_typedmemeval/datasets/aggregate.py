"""Per-category figures of a dataset run: counts with n, mean token F1, provenance recall@k, and
the dataset's own figures beside them (upstream mean score and EM, upstream retrieval metrics).

One line per category in the dataset's own order (unknown categories after, sorted), an
``abstention probes`` line, and an overall line that leaves out the spec's ``reported_apart``
categories (LongMemEval ``single-session-assistant``, VERTICALS.md §6.7). Counts are integers; the
mean F1 is rounded so that a re-run writes the same bytes. No composite score across datasets.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..judge.outcomes import ALL_OUTCOMES
from .models import DatasetSpec
from .runner import DatasetResult
from .upstream_retrieval import mean_figures

PROVENANCE_KS: tuple[int, ...] = (1, 5, 10)
"""recall@k reported for these k (LongMemEval's retrieval metrics use 5 and 10)."""

ABSTENTION_LINE = "abstention probes"
OVERALL_LINE = "overall"


@dataclass(frozen=True)
class CategoryFigures:
    """Figures of one line. ``f1_mean`` is over the answerable questions that produced an answer
    (``f1_n``); ``provenance_hits[k]`` counts observed questions with an evidence session in the
    top k, out of ``provenance_observed``.

    ``upstream_mean`` is the mean of the dataset's own per-question score over the ``upstream_n``
    answers that have one (LoCoMo: F1; category 5 its 0/1 rule), as upstream averages per category;
    ``upstream_at_half`` counts those at >= 0.5. ``retrieval`` holds the means of the dataset's own
    retrieval metrics over the ``retrieval_n`` questions where they were observed."""

    category: str
    n: int
    correct: int
    outcomes: dict[str, int]
    f1_n: int
    f1_mean: float | None
    exact_match: int
    provenance_observed: int
    provenance_unobserved: int
    provenance_not_applicable: int
    provenance_hits: dict[int, int] = field(default_factory=dict)
    upstream_n: int = 0
    upstream_mean: float | None = None
    upstream_exact_match: int = 0
    upstream_at_half: int = 0
    retrieval_n: int = 0
    retrieval_unobserved: int = 0
    retrieval: dict[str, float] = field(default_factory=dict)

    def line(self, scoring: str = "typed") -> str:
        """One terminal line. ``typed``: ``category: correct/n, mean F1, EM, provenance``;
        ``upstream``: the dataset's own figures; ``both``: the typed line, then the upstream figures
        after a ``|``. The dataset's own retrieval figures close the line whenever there are any.
        A dataset without an upstream token metric is shown ``typed`` (the caller's choice)."""
        f1 = "-" if self.f1_mean is None else f"{self.f1_mean:.3f}"
        prov = "evidence-session " + ", ".join(
            f"R@{k} {hits}/{self.provenance_observed}" for k, hits in self.provenance_hits.items()) \
            if self.provenance_observed else "provenance unobserved"
        typed = f"{self.correct}/{self.n} correct, mean F1 {f1}, EM {self.exact_match}, {prov}"
        parts = [typed] if scoring != "upstream" else []
        if scoring != "typed" and self.upstream_n:
            mean = "-" if self.upstream_mean is None else f"{self.upstream_mean:.3f}"
            parts.append(f"upstream F1 {mean} over {self.upstream_n} ({self.upstream_at_half} >= 0.5), "
                         f"EM {self.upstream_exact_match}")
        if self.retrieval_n:
            parts.append(", ".join(f"{name} {value:.3f}" for name, value in self.retrieval.items())
                         + f" over {self.retrieval_n}")
        return f"{self.category}: " + " | ".join(parts)


def figures_for(category: str, results: Iterable[DatasetResult], ks: Sequence[int] = PROVENANCE_KS,
                retrieval_metric: str | None = None) -> CategoryFigures:
    rows = list(results)
    outcomes = Counter(row.outcome for row in rows)
    f1s = [row.f1 for row in rows if row.f1 is not None]
    observed = [row for row in rows if row.provenance == "observed"]
    upstream = [row.upstream_score for row in rows if row.upstream_score is not None]
    retrieval = [figures for row in rows if (figures := row.retrieval(retrieval_metric)) is not None]
    return CategoryFigures(
        category=category, n=len(rows), correct=sum(row.correct for row in rows),
        outcomes={o.value: outcomes.get(o.value, 0) for o in ALL_OUTCOMES},
        f1_n=len(f1s), f1_mean=round(sum(f1s) / len(f1s), 4) if f1s else None,
        exact_match=sum(bool(row.exact_match) for row in rows),
        provenance_observed=len(observed),
        provenance_unobserved=sum(row.provenance == "unobserved" for row in rows),
        provenance_not_applicable=sum(row.provenance == "not_applicable" for row in rows),
        provenance_hits={k: sum(bool(row.recall_at(k)) for row in observed) for k in ks},
        upstream_n=len(upstream),
        upstream_mean=round(sum(upstream) / len(upstream), 4) if upstream else None,
        upstream_exact_match=sum(bool(row.upstream_exact_match) for row in rows),
        upstream_at_half=sum(score >= 0.5 for score in upstream),
        retrieval_n=len(retrieval),
        retrieval_unobserved=sum(row.upstream_retrieval == "unobserved" for row in rows),
        retrieval=mean_figures(retrieval),
    )


@dataclass(frozen=True)
class DatasetFigures:
    """Every line of one dataset's report."""

    categories: tuple[CategoryFigures, ...]
    abstention: CategoryFigures
    overall: CategoryFigures
    reported_apart: tuple[str, ...]

    def lines(self, scoring: str = "typed") -> list[str]:
        out = [figures.line(scoring) for figures in self.categories]
        out.append(self.abstention.line(scoring))
        apart = f" (excluding {', '.join(self.reported_apart)})" if self.reported_apart else ""
        out.append(self.overall.line(scoring) + apart)
        return out


def aggregate_results(spec: DatasetSpec, results: Sequence[DatasetResult],
                      ks: Sequence[int] = PROVENANCE_KS) -> DatasetFigures:
    """Group ``results`` (of one dataset) into its report lines."""
    present = {row.category for row in results}
    order = [c for c in spec.categories if c in present] + sorted(present - set(spec.categories))
    metric = spec.retrieval_metric
    categories = tuple(figures_for(c, (r for r in results if r.category == c), ks, metric) for c in order)
    abstention = figures_for(ABSTENTION_LINE, (r for r in results if r.abstention), ks, metric)
    overall = figures_for(OVERALL_LINE, (r for r in results if r.category not in spec.reported_apart), ks, metric)
    apart = tuple(c for c in order if c in spec.reported_apart)
    return DatasetFigures(categories, abstention, overall, apart)
