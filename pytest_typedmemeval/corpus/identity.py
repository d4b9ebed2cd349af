"""A corpus file's identity: its bytes' sha256, its id, the identity rule, one-line errors.

Free of pydantic and the record models, so a run that finds every corpus's validated index in
pytest's cache (``--co``, the xdist controller) never imports them (issue 13, P2).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .models import Sidecar

RESERVED_BENCHMARK_TOKEN = "longmemeval"
"""Identity rule: no TypedMemEval result may be quotable as this benchmark's (VERTICALS.md §5.11)."""


class CorpusError(ValueError):
    """A corpus file cannot be used. The message is one line: file, question id, field, problem."""

    def __init__(self, path: Path | str, problem: str, *, question_id: str | None = None,
                 field: str | None = None) -> None:
        self.path = str(path)
        self.question_id = question_id
        self.field = field
        self.problem = problem
        super().__init__(located(path, problem, ("question", question_id), ("field", field)))


def located(path: Path | str, problem: str, *where: tuple[str, str | None]) -> str:
    """``file: question q: field f: problem``, naming only the places that are known: the one-line
    form of every corpus error (question corpora and the scenario corpus alike)."""
    return ": ".join([str(path), *(f"{name} {value}" for name, value in where if value is not None), problem])


class CorpusIdentity:
    """What names a corpus and every result drawn from it, whatever of its records is held:
    shared by :class:`Corpus` (every record whole) and :class:`~.index.CorpusIndex` (heads)."""

    corpus_id: str
    path: Path
    sha256: str
    sidecar: Sidecar | None
    vertical: str | None
    """The one vertical all records share, or ``None`` for a mixed user corpus."""

    @property
    def is_fixture(self) -> bool:
        return self.sidecar is not None and self.sidecar.fixture

    def citation(self, shipped_sha256: frozenset[str] = frozenset()) -> str:
        """The line a result is cited by (§5.11): family name only for a shipped revision's bytes."""
        short = self.sha256[:12]
        if self.sha256 in shipped_sha256 and self.sidecar is not None and self.vertical:
            label = "Fixture-" if self.is_fixture else ""
            name = f"TypedMemEval-{label}{vertical_title(self.vertical)} v{self.sidecar.revision}"
            return f"{name} (pytest-typedmemeval), corpus {self.corpus_id}, sha256 {short}"
        return f"user corpus {self.corpus_id} (not a TypedMemEval revision), sha256 {short}"


VERTICAL_TITLES = {"workingmemory": "WorkingMemory"}
"""Verticals whose display name is not the capitalised key (VERTICALS.md writes WorkingMemory)."""


def vertical_title(vertical: str) -> str:
    """A vertical's display name, the one spelling citations, headings and summaries use."""
    return VERTICAL_TITLES.get(vertical, vertical.capitalize())


def normalised_bytes(raw: bytes) -> bytes:
    """CRLF and bare CR become LF, so a Windows checkout hashes like the published file (§1.1)."""
    return raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n")


def corpus_sha256(raw: bytes) -> str:
    # Most files hold no CR at all: looking is far cheaper than copying them twice to normalise.
    return hashlib.sha256(normalised_bytes(raw) if b"\r" in raw else raw).hexdigest()


def sidecar_path_for(path: Path) -> Path:
    return path.with_name(path.stem + ".sidecar.json")


def read_corpus_bytes(path: Path) -> tuple[bytes, str]:
    """The file's bytes and their sha256 (of the LF-normalised bytes, §1.1), or a one-line error;
    the corpus id is checked against the identity rule before any record is read."""
    try:
        raw_bytes = path.read_bytes()
    except OSError as error:
        raise CorpusError(path, f"cannot read corpus file: {error.strerror or error}") from None
    if RESERVED_BENCHMARK_TOKEN in path.stem.lower():
        raise CorpusError(path, f"corpus id {path.stem!r} contains the reserved token "
                          f"{RESERVED_BENCHMARK_TOKEN!r} (identity rule); rename the file")
    return raw_bytes, corpus_sha256(raw_bytes)
