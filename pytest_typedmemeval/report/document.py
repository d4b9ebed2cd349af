"""The JSON report: the machine surface of a run, deterministic apart from its ``timing`` block.

Identity rule (VERTICALS.md §5.11): the serialized report never contains the reserved benchmark
token in any letter case. Corpus ids with it are refused at load; free text that could carry it (a
system's answer, an error message) is redacted here, at the one place text leaves the process.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from importlib import metadata
from typing import Any

from ..corpus.loading import RESERVED_BENCHMARK_TOKEN, Corpus
from ..results import QuestionResult
from .aggregate import REPORT_SCHEMA_VERSION, aggregate

_RESERVED = re.compile(re.escape(RESERVED_BENCHMARK_TOKEN), re.IGNORECASE)
REDACTION = "[redacted-benchmark-name]"


def tool_version() -> str:
    try:
        return metadata.version("pytest-typedmemeval")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        return "0+unknown"


def build_report(results: Iterable[QuestionResult], corpora: Iterable[Corpus], *,
                 citations: Mapping[str, str], judge: Mapping[str, str | None],
                 extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    ordered = sorted(results, key=lambda r: r.key)
    ran = {r.corpus_id for r in ordered}
    corpus_rows = [
        {"corpus_id": c.corpus_id, "sha256": c.sha256, "vertical": c.vertical, "fixture": c.is_fixture,
         "questions": len(c.records), "citation": citations[c.corpus_id]}
        for c in sorted(corpora, key=lambda c: c.corpus_id) if c.corpus_id in ran
    ]
    report: dict[str, Any] = {
        "schema_version": REPORT_SCHEMA_VERSION,
        "benchmark": "TypedMemEval",
        "tool": {"name": "pytest-typedmemeval", "version": tool_version()},
        "judge": dict(judge),
        "corpora": corpus_rows,
        **aggregate(ordered),
        "questions": [r.model_dump(mode="json", exclude={"duration_seconds"}) for r in ordered],
        "timing": {"total_question_seconds": round(sum(r.duration_seconds for r in ordered), 6),
                   "per_question_seconds": {f"{r.corpus_id}/{r.question_id}": round(r.duration_seconds, 6)
                                            for r in ordered}},
    }
    report.update(extra or {})
    return report


def dumps_report(report: Mapping[str, Any]) -> str:
    text = json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    return _RESERVED.sub(REDACTION, text)
