"""A corpus as a run holds it: one small head per question, each record re-read when it runs.

A run over thousands of questions must not hold every haystack for the whole session (issue 13:
3.3 GiB at 20,000 questions, and every garbage collection walking it). Collection needs only a
question's labels (markers, item ids, selection) and, for a question that never runs, the text its
``error`` row shows; the haystack is needed once, by the question's own item. So the corpus is
validated record by record when it is loaded, as before, and then each question keeps a
:class:`QuestionHead` that says where its record lies in the file and what its bytes hash to.

The bytes are checked again when the record is read back: a corpus file edited during a run gives
that question ``error`` (named), never a record that differs from the one the report's sha256 names.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

import pydantic
from pydantic import ValidationError

from .loading import (
    Corpus,
    CorpusError,
    CorpusIdentity,
    _check_record_semantics,
    corpus_identity,
    load_corpus,
    read_corpus_bytes,
    validated_records,
)
from .models import QuestionRecord, Sidecar


@dataclass(frozen=True, slots=True)
class QuestionHead:
    """What a collected question keeps until it runs: its labels, its question and gold text, and
    where its record's bytes lie in the corpus file (offset, length, sha256 of those bytes)."""

    question_id: str
    vertical: str
    shape: str
    pair_id: str | None
    arm: str | None
    distance_sessions: int | None
    expected_negative: str | None
    has_gold: bool
    question: str
    answer: str
    offset: int
    length: int
    digest: bytes

    @classmethod
    def of(cls, record: QuestionRecord, raw_bytes: bytes, offset: int, length: int) -> QuestionHead:
        block = record.typedmemeval
        return cls(question_id=record.question_id, vertical=block.vertical, shape=block.shape,
                   pair_id=block.pair_id, arm=block.arm, distance_sessions=block.distance_sessions,
                   expected_negative=block.answer_key.expected_negative, has_gold=record.has_gold,
                   question=record.question, answer=record.answer, offset=offset, length=length,
                   digest=hashlib.sha256(raw_bytes[offset:offset + length]).digest())


@dataclass(frozen=True)
class CorpusIndex(CorpusIdentity):
    """A validated corpus held as question heads (module docstring). Same identity as
    :class:`~.loading.Corpus`; :meth:`record` reads one question's record back, :meth:`whole` all."""

    corpus_id: str
    path: Path
    sha256: str
    heads: tuple[QuestionHead, ...]
    sidecar: Sidecar | None
    vertical: str | None
    _whole: dict[str, Corpus] = field(default_factory=dict, repr=False, compare=False)

    @property
    def question_count(self) -> int:
        return len(self.heads)

    def record(self, head: QuestionHead) -> QuestionRecord:
        """The question's full record, read back from its bytes and validated again.

        Raises :class:`CorpusError` naming the question when the file can no longer be read or its
        bytes no longer hash as they did when the corpus was loaded.
        """
        try:
            with open(self.path, "rb") as handle:
                handle.seek(head.offset)
                chunk = handle.read(head.length)
        except OSError as error:
            raise CorpusError(self.path, f"cannot read the record back: {error.strerror or error}",
                              question_id=head.question_id) from None
        if hashlib.sha256(chunk).digest() != head.digest:
            raise CorpusError(self.path, f"the corpus file changed since it was loaded (sha256 "
                              f"{self.sha256[:12]}); its record no longer matches, so this question "
                              "was not run; rerun on the file as it is now", question_id=head.question_id)
        try:
            record = QuestionRecord.model_validate(json.loads(chunk))
        except (ValueError, ValidationError) as error:  # pragma: no cover - the digest matched
            raise CorpusError(self.path, f"the record no longer validates: {error}",
                              question_id=head.question_id) from None
        _check_record_semantics(self.path, record)
        fresh = QuestionHead.of(record, chunk, 0, len(chunk))
        if dataclasses.replace(fresh, offset=head.offset) != head:
            # Only a cached index that no longer describes the file gets here (the bytes matched).
            raise CorpusError(self.path, "the record read back differs from the one indexed; clear "
                              "the index cache (pytest --cache-clear) and rerun", question_id=head.question_id)
        return record

    def whole(self) -> Corpus:
        """The corpus with every record held (gates read every haystack), loaded once, and refused
        if the file's bytes are no longer those this index was built from."""
        if "corpus" not in self._whole:
            corpus = load_corpus(self.path)
            if corpus.sha256 != self.sha256:
                raise CorpusError(self.path, f"the corpus file changed since it was loaded (sha256 "
                                  f"{self.sha256[:12]}, now {corpus.sha256[:12]}); rerun on the file as it is now")
            self._whole["corpus"] = corpus
        return self._whole["corpus"]


class IndexCache(Protocol):
    """Where indexes are kept between runs: pytest's own cache (``config.cache``) fits."""

    def get(self, key: str, default: Any) -> Any: ...
    def set(self, key: str, value: Any) -> None: ...


INDEX_FORMAT = 1
_HEAD_FIELDS = tuple(f.name for f in dataclasses.fields(QuestionHead))


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """What a cached index was validated by: the index format, the source of the record models,
    loader and this module, and pydantic's version. Any change to them invalidates every entry."""
    digest = hashlib.sha256(f"{INDEX_FORMAT}\x00{pydantic.VERSION}".encode())
    here = Path(__file__)
    for name in ("models.py", "loading.py", "index.py"):
        digest.update(here.with_name(name).read_bytes())
    return digest.hexdigest()


def _cache_key(path: Path) -> str:
    return f"typedmemeval/corpus-index/{path.stem}"


def _heads_from_cache(cache: IndexCache, path: Path, sha256: str) -> tuple[QuestionHead, ...] | None:
    entry = cache.get(_cache_key(path), None)
    if not isinstance(entry, dict) or entry.get("sha256") != sha256 or entry.get("code") != code_fingerprint():
        return None
    try:
        heads = []
        for row in entry["heads"]:
            values = dict(zip(_HEAD_FIELDS, row, strict=True))
            values["digest"] = bytes.fromhex(values["digest"])
            heads.append(QuestionHead(**values))
        return tuple(heads)
    except (KeyError, TypeError, ValueError):
        return None  # a damaged entry is a miss, never an error: the file is read again


def _store_heads(cache: IndexCache, path: Path, sha256: str, heads: tuple[QuestionHead, ...]) -> None:
    rows = [[*(getattr(head, name) for name in _HEAD_FIELDS[:-1]), head.digest.hex()] for head in heads]
    try:
        cache.set(_cache_key(path), {"sha256": sha256, "code": code_fingerprint(), "heads": rows})
    except (OSError, TypeError, ValueError):  # pragma: no cover - pytest's cache warns by itself
        pass


def index_corpus(path: str | Path, cache: IndexCache | None = None, *, store: bool = True) -> CorpusIndex:
    """Load and validate one corpus file as :func:`~.loading.load_corpus` does, keeping only a
    head per question. Raises :class:`CorpusError` with the same one-line messages.

    With ``cache``, the heads of bytes already validated by this very code are taken from it
    (keyed by corpus id, checked against the bytes' sha256 and :func:`code_fingerprint`), so a
    repeated run, and every xdist worker, hashes the file instead of parsing and validating every
    record again; ``store`` (the controller, or a run without xdist) writes what it validated.
    """
    path = Path(path)
    raw_bytes, sha256 = read_corpus_bytes(path)
    heads = _heads_from_cache(cache, path, sha256) if cache is not None else None
    if heads is None:
        heads = validated_records(path, raw_bytes, QuestionHead.of)
        if cache is not None and store:
            _store_heads(cache, path, sha256, heads)
    return CorpusIndex(**corpus_identity(path, sha256, heads), heads=heads)
