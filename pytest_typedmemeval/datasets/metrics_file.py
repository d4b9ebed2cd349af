"""The metrics file a dataset run writes (VERTICALS.md §6.7): informational, derived data only.

It names the dataset, its licence, the sample size and seed, the SHA-256 of the local file read,
the scorer's fingerprint, per-category figures, what loading tolerated, and the caveats that must
travel with the numbers. It never holds a local path, a question's text or an answer: the
document model has no field for them, forbids unknown keys, and refuses any string that looks like
a filesystem path. The bytes are deterministic (sorted keys, no clock), so two runs of the same
sample write the same file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator, model_validator

from .aggregate import CategoryFigures, aggregate_results
from .models import LoadedDataset
from .runner import DatasetResult
from .scoring import CORRECT_AT_F1, SCORING_FINGERPRINT
from .upstream_scoring import UPSTREAM_SOURCE, upstream_versions

METRICS_SCHEMA_VERSION = 2
_PATH_LIKE = re.compile(r"^(?:/|~[/\\]|[A-Za-z]:[\\/]|\\\\)|[\\/](?:home|Users|tmp|var|mnt)[\\/]")


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class MetricsLine(_Frozen):
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
    provenance_recall_at: dict[str, int]
    upstream_n: int
    upstream_mean: float | None
    upstream_exact_match: int
    upstream_at_half: int
    retrieval_n: int
    retrieval_unobserved: int
    retrieval: dict[str, float]


class MetricsSample(_Frozen):
    available: int
    size: int
    seed: int | None


class MetricsLoad(_Frozen):
    questions_in_file: int
    questions_loaded: int
    defects: dict[str, int]
    defect_examples: dict[str, list[str]]
    excluded: dict[str, int]
    excluded_examples: dict[str, list[str]]


class MetricsDocument(_Frozen):
    """One dataset run's metrics file."""

    schema_version: int
    dataset: str
    dataset_title: str
    licence: str
    file_sha256: str
    options: dict[str, str]
    sample: MetricsSample
    scorer: dict[str, Any]
    scoring: str
    published_metric: str
    results: int
    categories: list[MetricsLine]
    abstention: MetricsLine
    overall: MetricsLine
    reported_apart: list[str]
    load: MetricsLoad
    caveats: list[str]

    @field_validator("file_sha256")
    @classmethod
    def _digest(cls, value: str) -> str:
        if not re.fullmatch(r"[0-9a-f]{64}", value):
            raise ValueError("file_sha256 must be 64 lowercase hex digits")
        return value

    @model_validator(mode="after")
    def _no_paths(self) -> MetricsDocument:
        for text in _strings(self.model_dump()):
            if _PATH_LIKE.search(text):
                raise ValueError(f"metrics must not contain a local path ({text[:40]!r})")
        return self


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for key, item in value.items() for s in (*_strings(key), *_strings(item))]
    if isinstance(value, (list, tuple)):
        return [s for item in value for s in _strings(item)]
    return []


def _line(figures: CategoryFigures) -> MetricsLine:
    return MetricsLine(
        category=figures.category, n=figures.n, correct=figures.correct, outcomes=figures.outcomes,
        f1_n=figures.f1_n, f1_mean=figures.f1_mean, exact_match=figures.exact_match,
        provenance_observed=figures.provenance_observed, provenance_unobserved=figures.provenance_unobserved,
        provenance_not_applicable=figures.provenance_not_applicable,
        provenance_recall_at={str(k): hits for k, hits in figures.provenance_hits.items()},
        upstream_n=figures.upstream_n, upstream_mean=figures.upstream_mean,
        upstream_exact_match=figures.upstream_exact_match, upstream_at_half=figures.upstream_at_half,
        retrieval_n=figures.retrieval_n, retrieval_unobserved=figures.retrieval_unobserved,
        retrieval=dict(figures.retrieval),
    )


def metrics_document(dataset: LoadedDataset, results: Sequence[DatasetResult],
                     scoring: str = "typed") -> MetricsDocument:
    """The metrics of ``results`` (this run's answers to ``dataset``'s questions); ``scoring`` is
    the ``--tme-dataset-scoring`` mode the run actually used."""
    wrong = {r.dataset for r in results} - {dataset.spec.name}
    if wrong:
        raise ValueError(f"results of {sorted(wrong)} cannot go into the {dataset.spec.title} metrics file")
    figures = aggregate_results(dataset.spec, results)
    sample = dataset.sample
    report = dataset.report
    return MetricsDocument(
        schema_version=METRICS_SCHEMA_VERSION, dataset=dataset.spec.name, dataset_title=dataset.spec.title,
        licence=dataset.spec.licence, file_sha256=dataset.sha256, options=dict(dataset.options),
        sample=MetricsSample(
            available=sample.available if sample else len(dataset.questions),
            size=sample.size if sample and sample.size is not None else len(dataset.questions),
            seed=sample.seed if sample else None),
        scorer=_scorer(dataset, results),
        scoring=scoring, published_metric=dataset.spec.published_metric,
        results=len(results),
        categories=[_line(line) for line in figures.categories],
        abstention=_line(figures.abstention), overall=_line(figures.overall),
        reported_apart=list(figures.reported_apart),
        load=MetricsLoad(
            questions_in_file=report.questions_in_file, questions_loaded=report.questions_loaded,
            defects=dict(report.defects), defect_examples={k: list(v) for k, v in report.defect_examples.items()},
            excluded=dict(report.excluded), excluded_examples={k: list(v) for k, v in report.excluded_examples.items()}),
        caveats=list(dataset.spec.caveats),
    )


def _scorer(dataset: LoadedDataset, results: Sequence[DatasetResult]) -> dict[str, Any]:
    """What scored: the typed scorer's fingerprint and, when upstream scores were computed, the
    upstream source reproduced and the versions of the packages that decide it."""
    scorer: dict[str, Any] = {"name": "token-f1", "correct_at_f1": CORRECT_AT_F1, "fingerprint": SCORING_FINGERPRINT}
    if dataset.spec.upstream_answer_metric is not None and any(r.upstream_score is not None for r in results):
        scorer["upstream"] = {"reproduces": UPSTREAM_SOURCE, **upstream_versions()}
    return scorer


def render_metrics(document: MetricsDocument) -> str:
    """The file's text: sorted keys, two-space indent, trailing newline."""
    return json.dumps(document.model_dump(mode="json"), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_metrics_file(path: str | Path, dataset: LoadedDataset, results: Sequence[DatasetResult],
                       scoring: str = "typed") -> Path:
    """Write the metrics file for ``results`` to ``path`` and return it."""
    target = Path(path)
    target.write_text(render_metrics(metrics_document(dataset, results, scoring)), encoding="utf-8")
    return target
