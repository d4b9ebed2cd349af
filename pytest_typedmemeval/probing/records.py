"""Probe records in the sidecar: build one :class:`ProbeRecord` per (arm, shape), merge it into the
sidecar's ``probe_records`` and write the file atomically.

Only ``probe_records`` changes. Every other sidecar field is carried over as the JSON value it was
read as, and the file is written with :func:`..generate.primitives.dump_json` (sorted keys, two-space
indent, trailing LF) — the form generators write, so a generated sidecar stays byte-identical
outside ``probe_records``. No gate compares ``probe_records`` with a regenerated sidecar: the
structure gate checks sha256, vertical, k_ref, shape counts, ceilings, dial fields and carve-outs;
the calibration gate coverage and the dense stamp (see the package docstring).

Records are sorted canonically (shape in corpus order, then arm in V1..V11 order), so the same
records give the same bytes whatever order the arms were run in. The write goes to a temporary file
in the same directory and is moved into place with ``os.replace``: an interrupted run leaves either
the old sidecar or the new one, never half of one.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..corpus.loading import Corpus, CorpusError, sidecar_path_for
from ..corpus.models import ProbeRecord, ProbeVerdict, Sidecar
from ..generate.primitives import dump_json
from .arms import ARM_ORDER


def build_record(arm: str, shape: str, verdicts: Iterable[ProbeVerdict], *, model: str, date: str,
                 seed: int, temperature: float, judge: str | None = None) -> ProbeRecord:
    """A measured record with the provenance the gate requires (model, date, seed, temperature),
    and the grading judge's fingerprint when it was not the mechanical judge."""
    return ProbeRecord(arm=arm, shape=shape, status="measured", model=model, date=date, seed=seed,
                       temperature=temperature, judge=judge, verdicts=tuple(verdicts))


def record_json(record: ProbeRecord) -> dict[str, Any]:
    """The record as sidecar JSON; ``None`` fields are left out, as the generator writes rows."""
    return record.model_dump(mode="json", exclude_none=True)


def _sort_key(shapes: Sequence[str], row: dict[str, Any]) -> tuple[int, str, int, str]:
    shape, arm = str(row.get("shape", "")), str(row.get("arm", "")).strip().upper()
    shape_rank = shapes.index(shape) if shape in shapes else len(shapes)
    arm_rank = ARM_ORDER.index(arm) if arm in ARM_ORDER else len(ARM_ORDER)
    return shape_rank, shape, arm_rank, arm


def merge_records(existing: Sequence[dict[str, Any]], new: Sequence[ProbeRecord],
                  shapes: Sequence[str]) -> list[dict[str, Any]]:
    """``existing`` rows with those of the same (arm, shape) as a new record replaced, sorted."""
    replaced = {(record.arm.upper(), record.shape) for record in new}
    kept = [row for row in existing
            if (str(row.get("arm", "")).strip().upper(), row.get("shape")) not in replaced]
    rows = kept + [record_json(record) for record in new]
    return sorted(rows, key=lambda row: _sort_key(shapes, row))


def read_sidecar_json(corpus: Corpus) -> dict[str, Any]:
    """The sidecar as plain JSON. A corpus without one is refused: probe records live in the
    sidecar, and inventing a sidecar would invent an identity (revision, generator) too."""
    path = sidecar_path_for(corpus.path)
    if corpus.sidecar is None or not path.is_file():
        raise CorpusError(corpus.path, f"no sidecar ({path.name}) to record probe results in; "
                          "generate the corpus with its sidecar first")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise CorpusError(path, f"cannot read sidecar: {error}") from None
    if not isinstance(data, dict):
        raise CorpusError(path, "a sidecar must be a JSON object")
    return data


def write_records(corpus: Corpus, new: Sequence[ProbeRecord]) -> Path:
    """Merge ``new`` into the corpus's sidecar and replace the file atomically; returns its path."""
    path = sidecar_path_for(corpus.path)
    data = read_sidecar_json(corpus)
    shapes = list(dict.fromkeys(record.shape for record in corpus.records))
    existing = data.get("probe_records") or []
    if not isinstance(existing, list):
        raise CorpusError(path, "probe_records is not a list", field="probe_records")
    data["probe_records"] = merge_records(existing, new, shapes)
    try:
        Sidecar.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise CorpusError(path, f"merged sidecar is invalid: {first['msg']}", field=where) from None
    atomic_write(path, dump_json(data))
    return path


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path``, flush it to disk, then rename it over
    ``path`` (keeping the old file's permissions)."""
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


__all__ = ["atomic_write", "build_record", "merge_records", "read_sidecar_json", "record_json",
           "write_records"]
