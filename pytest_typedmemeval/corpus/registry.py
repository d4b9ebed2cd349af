"""The corpora shipped inside the package (installed as package data from ``corpora/``)."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path

from typing import TYPE_CHECKING

from .identity import corpus_sha256

if TYPE_CHECKING:
    from .loading import Corpus

SHIPPED_PACKAGE = "pytest_typedmemeval.corpora"


def shipped_corpus_paths() -> tuple[Path, ...]:
    """Paths of every shipped corpus file, sorted by name so every xdist worker collects alike."""
    try:
        root = Path(str(resources.files(SHIPPED_PACKAGE)))
    except ModuleNotFoundError:
        # Importing the package straight from a source checkout (``python -m pytest`` puts the
        # checkout first on sys.path): the package data then sits at the checkout's top level.
        root = Path(__file__).resolve().parents[2] / "corpora"
    paths = [
        entry
        for entry in root.iterdir()
        if entry.name.endswith(".json") and not entry.name.endswith(".sidecar.json")
    ]
    return tuple(sorted(paths, key=lambda p: p.name))


@lru_cache(maxsize=1)
def shipped_corpora() -> tuple[Corpus, ...]:
    from .loading import load_corpus

    return tuple(load_corpus(path) for path in shipped_corpus_paths())


@lru_cache(maxsize=1)
def shipped_sha256s() -> frozenset[str]:
    """Hashes of shipped revisions: only these may be cited under the TypedMemEval family name.

    Hashed from the bytes without parsing them: a run over the user's own corpus must not pay for
    validating every shipped corpus just to decide how to cite its own.
    """
    return frozenset(corpus_sha256(path.read_bytes()) for path in shipped_corpus_paths())
