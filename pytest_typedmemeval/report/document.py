"""The JSON report: the machine surface of a run, deterministic apart from its ``timing`` block.

Identity rule (VERTICALS.md §5.11): the serialized report never contains the reserved benchmark
token in any letter case. Corpus ids with it are refused at load; free text that could carry it (a
system's answer, an error message) is redacted here, at the one place text leaves the process.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterable, Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

from ..corpus.index import CorpusIndex
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


def build_report(results: Iterable[QuestionResult], corpora: Iterable[Corpus | CorpusIndex], *,
                 citations: Mapping[str, str], judge: Mapping[str, str | None],
                 extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    ordered = sorted(results, key=lambda r: r.key)
    ran = {r.corpus_id for r in ordered}
    corpus_rows = [
        {"corpus_id": c.corpus_id, "sha256": c.sha256, "vertical": c.vertical, "fixture": c.is_fixture,
         "questions": c.question_count, "citation": citations[c.corpus_id]}
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


def _finite(value: Any) -> Any:
    """``value`` with non-finite floats as ``None`` (JSON has no NaN; only a hook could add one)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Mapping):
        return {str(k): _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def dumps_report(report: Mapping[str, Any]) -> str:
    """The report as JSON text that is always valid and always encodable as UTF-8.

    A lone surrogate (an adapter can return any ``str``) is written as its JSON escape, a
    non-finite number from a hook as ``null``, an object a hook added as its ``str``.
    """
    try:
        text = json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False, default=str)
    except ValueError:
        text = json.dumps(_finite(report), indent=2, sort_keys=True, ensure_ascii=False, default=str)
    text = _RESERVED.sub(REDACTION, text + "\n")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # Only lone surrogates fail, and only inside JSON strings: "\\udXXX" is their JSON escape.
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def write_report(path: Path, text: str) -> None:
    """Write atomically: a temporary file beside ``path``, then one rename. A reader never sees a
    half-written report, and a failed write leaves the previous report (if any) intact."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
