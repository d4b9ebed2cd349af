"""Public memory datasets — LoCoMo, LongMemEval, HaluMem — read from a local file the user names.

Never vendored, never downloaded (VERTICALS.md §6.7): a loader reads the user's copy into
:class:`DatasetQuestion`s, tolerating and counting the files' known defects; each question runs
through the user's adapter like a TypedMemEval question (:func:`run_dataset_question`) and is
scored two ways (``--tme-dataset-scoring``): the typed reading (token F1 >= 0.5 after judge
normalisation, declines read on abstention probes) and, where the dataset has one, its own token
metric reproduced exactly (:mod:`.upstream_scoring`: LoCoMo); its own retrieval metrics are computed
from the sessions the adapter reports (:mod:`.upstream_retrieval`). A run writes a metrics file of
derived figures only. These datasets' names
appear in their own reports only: nothing here touches TypedMemEval corpus results.
"""

from __future__ import annotations

from .aggregate import CategoryFigures, DatasetFigures, aggregate_results
from .errors import DatasetFormatError
from .halumem import load_halumem
from .items import category_marker, dataset_item_id, item_markers, spec_markers
from .locomo import load_locomo
from .longmemeval import load_longmemeval
from .metrics_file import MetricsDocument, metrics_document, render_metrics, write_metrics_file
from .models import DatasetQuestion, DatasetSpec, EvidenceRef, LoadedDataset, LoadReport, SampleInfo
from .registry import SPECS, DatasetOptionError, load_dataset, parse_dataset_option
from .runner import DatasetResult, run_dataset_question
from .sampling import sample_dataset
from .scoring import CORRECT_AT_F1, SCORING_FINGERPRINT, Score, exact_match, score_answer, token_f1
from .upstream_retrieval import locomo_recall_acc, longmemeval_at
from .upstream_scoring import SCORING_MODES, UpstreamScore, locomo_upstream_score, upstream_available

__all__ = [
    "CORRECT_AT_F1", "SCORING_FINGERPRINT", "SCORING_MODES", "SPECS", "UpstreamScore", "CategoryFigures",
    "DatasetFigures",
    "DatasetFormatError", "DatasetOptionError", "DatasetQuestion", "DatasetResult", "DatasetSpec",
    "EvidenceRef", "LoadReport", "LoadedDataset", "MetricsDocument", "SampleInfo", "Score",
    "aggregate_results", "category_marker", "dataset_item_id", "exact_match", "item_markers",
    "load_dataset", "load_halumem", "load_locomo", "load_longmemeval", "locomo_recall_acc",
    "locomo_upstream_score", "longmemeval_at", "metrics_document",
    "parse_dataset_option", "render_metrics", "run_dataset_question", "sample_dataset",
    "score_answer", "spec_markers", "token_f1", "upstream_available", "write_metrics_file",
]
