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
import importlib.util
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from .identity import CorpusError, CorpusIdentity, read_corpus_bytes, sidecar_path_for

if TYPE_CHECKING:
    from .loading import Corpus
    from .models import ExtensionBlock, QuestionRecord, Sidecar

# The record models (and pydantic) are imported where a record is validated, never by importing
# this module: collecting from the cache needs neither.


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

    def labels(self) -> tuple[object, ...]:
        """Everything the head says of its question besides where its bytes lie."""
        return (self.question_id, self.vertical, self.shape, self.pair_id, self.arm, self.distance_sessions,
                self.expected_negative, self.has_gold, self.question, self.answer)

    @classmethod
    def of(cls, record: QuestionRecord, raw_bytes: bytes, offset: int, length: int) -> QuestionHead:
        block = record.typedmemeval
        return cls(question_id=record.question_id, vertical=block.vertical, shape=block.shape,
                   pair_id=block.pair_id, arm=block.arm, distance_sessions=block.distance_sessions,
                   expected_negative=block.answer_key.expected_negative, has_gold=record.has_gold,
                   question=record.question, answer=record.answer, offset=offset, length=length,
                   digest=hashlib.sha256(raw_bytes[offset:offset + length]).digest())


@dataclass(frozen=True, slots=True)
class RunRecord:
    """A question's record as a run reads it back (:meth:`CorpusIndex.run_record`): what the
    adapter view, the judge and the result read of a :class:`~.models.QuestionRecord`, under the
    same names, built from bytes already validated whole.

    Why not the model itself: a record holds ~200 turns, and building them as models again costs
    more than the rest of a no-op question (issue 24). The turns are held as the values the
    caller's ``make_turn`` builds from (role, content) — the plugin passes the adapter's
    :class:`Turn`, so the adapter view passes them on as they are — built once (``has_answer``, an
    answer label, is never read by a run). ``corpus/`` does not import ``adapter/`` (the adapter
    side reads corpora, never the reverse): the type comes in as a callable. The ``typedmemeval``
    block is the validated model the judge and the result read.
    """

    question_id: str
    question: str
    answer: str
    question_date: str
    haystack_session_ids: tuple[str, ...]
    haystack_dates: tuple[str, ...]
    haystack_sessions: tuple[tuple[Any, ...], ...]
    answer_session_ids: tuple[str, ...]
    typedmemeval: ExtensionBlock

    @classmethod
    def of(cls, raw: dict[str, Any], make_turn: Callable[[str, str], Any]) -> RunRecord:
        """From a parsed record whose bytes were validated, each turn built by ``make_turn(role,
        content)`` (raises KeyError, TypeError or a ValidationError on anything else: the caller
        refuses it)."""
        from .models import ExtensionBlock

        turn = make_turn
        sessions = tuple(tuple([turn(item["role"], item["content"]) for item in session])
                         for session in raw["haystack_sessions"])
        texts = (raw["question_id"], raw["question"], raw["answer"], raw["question_date"])
        if not all(type(text) is str for text in texts):
            raise TypeError("a top-level field is not text")
        return cls(question_id=texts[0], question=texts[1], answer=texts[2], question_date=texts[3],
                   haystack_session_ids=tuple(raw["haystack_session_ids"]),
                   haystack_dates=tuple(raw["haystack_dates"]), haystack_sessions=sessions,
                   answer_session_ids=tuple(raw["answer_session_ids"]),
                   typedmemeval=ExtensionBlock.model_validate(raw["typedmemeval"]))

    # The QuestionRecord properties a run reads, computed alike.
    @property
    def query_time(self) -> datetime:
        from .models import parse_corpus_date

        return parse_corpus_date(self.question_date)

    @property
    def session_times(self) -> tuple[datetime, ...]:
        from .models import parse_corpus_date

        return tuple(parse_corpus_date(text) for text in self.haystack_dates)

    @property
    def vertical(self) -> str:
        return self.typedmemeval.vertical

    @property
    def shape(self) -> str:
        return self.typedmemeval.shape

    @property
    def arm(self) -> str | None:
        return self.typedmemeval.arm

    @property
    def expected_negative(self) -> str | None:
        return self.typedmemeval.answer_key.expected_negative

    @property
    def has_gold(self) -> bool:
        return bool(set(self.answer_session_ids) & set(self.haystack_session_ids))

    @property
    def gold_session_indices(self) -> tuple[int, ...]:
        gold = set(self.answer_session_ids)
        return tuple(i for i, sid in enumerate(self.haystack_session_ids) if sid in gold)


@dataclass(frozen=True)
class CorpusIndex(CorpusIdentity):
    """A validated corpus held as question heads (module docstring). Same identity as
    :class:`~.loading.Corpus`; :meth:`record` reads one question's record back, :meth:`whole` all.

    The sidecar is validated when the corpus is first indexed; an index taken from the cache holds
    the sidecar's bytes (whose hash the cache entry was checked against) and validates them on
    first use, so collecting from the cache never imports the record models.
    """

    corpus_id: str
    path: Path
    sha256: str
    heads: tuple[QuestionHead, ...]
    vertical: str | None
    sidecar_bytes: bytes | None = field(default=None, repr=False)
    _memo: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def sidecar(self) -> Sidecar | None:  # type: ignore[override]
        if "sidecar" not in self._memo:
            from .loading import sidecar_from_bytes

            self._memo["sidecar"] = (None if self.sidecar_bytes is None else
                                     sidecar_from_bytes(sidecar_path_for(self.path), self.sidecar_bytes, self.sha256))
        return self._memo["sidecar"]

    @property
    def question_count(self) -> int:
        return len(self.heads)

    def record(self, head: QuestionHead) -> QuestionRecord:
        """The question's full record, read back from its bytes and validated again.

        Raises :class:`CorpusError` naming the question when the file can no longer be read or its
        bytes no longer hash as they did when the corpus was loaded.
        """
        from pydantic import ValidationError

        from .loading import _check_record_semantics
        from .models import QuestionRecord

        chunk = self._chunk(head)
        try:
            record = QuestionRecord.model_validate(json.loads(chunk))
        except (ValueError, ValidationError) as error:  # pragma: no cover - the digest matched
            raise CorpusError(self.path, f"the record no longer validates: {error}",
                              question_id=head.question_id) from None
        _check_record_semantics(self.path, record)
        if head.labels() != QuestionHead.of(record, b"", 0, 0).labels():
            # Only a cached index that no longer describes the file gets here (the bytes matched).
            raise CorpusError(self.path, "the record read back differs from the one indexed; clear "
                              "the index cache (pytest --cache-clear) and rerun", question_id=head.question_id)
        return record

    def run_record(self, head: QuestionHead, make_turn: Callable[[str, str], Any]) -> RunRecord:
        """The question's record as a run needs it (:class:`RunRecord`), read back from its bytes.

        The bytes must hash as they did when the corpus was indexed, and those bytes were
        validated whole, record by record, by this very code: in this process, or by the run that
        stored the cache entry (keyed by the loader's :func:`code_fingerprint`). Validating them
        a second time could only build the same values again, so the haystack is taken as parsed
        (its turns straight into ``make_turn``'s values, the adapter's ``Turn``) and only the
        small ``typedmemeval`` block, which the judge reads as models, is validated. A damaged
        cache entry whose head points elsewhere is still refused by the label check.

        Raises :class:`CorpusError` naming the question, with the messages of :meth:`record`.
        """
        from pydantic import ValidationError

        from .loading import _check_record_semantics

        chunk = self._chunk(head)
        try:
            record = RunRecord.of(json.loads(chunk), make_turn)
        except (ValueError, ValidationError, KeyError, TypeError, AttributeError) as error:
            raise CorpusError(self.path, f"the record read back differs from the one indexed ({error}); "
                              "clear the index cache (pytest --cache-clear) and rerun",
                              question_id=head.question_id) from None
        _check_record_semantics(self.path, record)  # type: ignore[arg-type]
        if head.labels() != QuestionHead.of(record, b"", 0, 0).labels():  # type: ignore[arg-type]
            raise CorpusError(self.path, "the record read back differs from the one indexed; clear "
                              "the index cache (pytest --cache-clear) and rerun", question_id=head.question_id)
        return record

    def _chunk(self, head: QuestionHead) -> bytes:
        """The head's record bytes, refused (naming the question) unless they hash as indexed."""
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
        return chunk

    def whole(self) -> Corpus:
        """The corpus with every record held (gates read every haystack), loaded once, and refused
        if the file's bytes are no longer those this index was built from."""
        if "whole" not in self._memo:
            from .loading import load_corpus

            corpus = load_corpus(self.path)
            if corpus.sha256 != self.sha256:
                raise CorpusError(self.path, f"the corpus file changed since it was loaded (sha256 "
                                  f"{self.sha256[:12]}, now {corpus.sha256[:12]}); rerun on the file as it is now")
            self._memo["whole"] = corpus
        return self._memo["whole"]


class IndexCache(Protocol):
    """Where indexes are kept between runs: pytest's own cache (``config.cache``) fits."""

    def get(self, key: str, default: Any) -> Any: ...
    def set(self, key: str, value: Any) -> None: ...


INDEX_FORMAT = 1
_HEAD_FIELDS = tuple(f.name for f in dataclasses.fields(QuestionHead))


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """What a cached index was validated by: the index format, the source of the record models,
    loader, identity and this module, and pydantic's version file (pydantic pins its exact
    pydantic-core). Read, not imported, and not looked up in the installed distributions' metadata
    (that alone costs ~50 ms a start). Any change to them invalidates every entry."""
    digest = hashlib.sha256(f"{INDEX_FORMAT}".encode())
    spec = importlib.util.find_spec("pydantic")
    if spec is not None and spec.origin:
        digest.update(Path(spec.origin).with_name("version.py").read_bytes())
    here = Path(__file__)
    for name in ("models.py", "loading.py", "identity.py", "index.py"):
        digest.update(here.with_name(name).read_bytes())
    return digest.hexdigest()


def _cache_key(path: Path) -> str:
    return f"typedmemeval/corpus-index/{path.stem}"


def _sidecar_digest(sidecar_bytes: bytes | None) -> str | None:
    return None if sidecar_bytes is None else hashlib.sha256(sidecar_bytes).hexdigest()


def _from_cache(cache: IndexCache, path: Path, sha256: str,
                sidecar_bytes: bytes | None) -> tuple[tuple[QuestionHead, ...], str | None] | None:
    """``(heads, vertical)`` validated earlier from these very corpus and sidecar bytes by this
    very code, else ``None``."""
    entry = cache.get(_cache_key(path), None)
    if (not isinstance(entry, dict) or entry.get("sha256") != sha256 or entry.get("code") != code_fingerprint()
            or entry.get("sidecar") != _sidecar_digest(sidecar_bytes)):
        return None
    try:
        heads = []
        for row in entry["heads"]:
            values = dict(zip(_HEAD_FIELDS, row, strict=True))
            values["digest"] = bytes.fromhex(values["digest"])
            heads.append(QuestionHead(**values))
        vertical = entry["vertical"]
        if vertical is not None and not isinstance(vertical, str):
            return None
        return tuple(heads), vertical
    except (KeyError, TypeError, ValueError):
        return None  # a damaged entry is a miss, never an error: the file is read again


def index_entry(index: CorpusIndex) -> dict[str, Any]:
    """The index as plain data, in the form the cache keeps (and an xdist controller hands its
    workers): checked on reading against the bytes' sha256 and :func:`code_fingerprint`."""
    rows = [[*(getattr(head, name) for name in _HEAD_FIELDS[:-1]), head.digest.hex()] for head in index.heads]
    return {"sha256": index.sha256, "code": code_fingerprint(), "sidecar": _sidecar_digest(index.sidecar_bytes),
            "vertical": index.vertical, "heads": rows}


class HandedIndexes:
    """Indexes an xdist controller validated and handed its worker (``workerinput``), in front of
    the worker's own cache: a worker of a first run (no pytest cache yet, or none at all under
    ``-p no:cacheprovider``) then hashes the files instead of validating every record again. An
    entry is read exactly as a cache entry is (same sha256 and code checks; a miss falls through)."""

    def __init__(self, entries: dict[str, Any], behind: IndexCache | None) -> None:
        self.entries = entries
        self.behind = behind

    def get(self, key: str, default: Any) -> Any:
        if key in self.entries:
            return self.entries[key]
        return default if self.behind is None else self.behind.get(key, default)

    def set(self, key: str, value: Any) -> None:  # pragma: no cover - workers never store
        if self.behind is not None:
            self.behind.set(key, value)


def cache_key(path: Path) -> str:
    """The key an index is kept under (the corpus id: file name without ``.json``)."""
    return _cache_key(path)


def _store(cache: IndexCache, index: CorpusIndex) -> None:
    entry = index_entry(index)
    try:
        cache.set(_cache_key(index.path), entry)
    except (OSError, TypeError, ValueError):  # pragma: no cover - pytest's cache warns by itself
        pass


def _read_sidecar_bytes(path: Path) -> bytes | None:
    sidecar = sidecar_path_for(path)
    if not sidecar.is_file():
        return None
    try:
        return sidecar.read_bytes()
    except OSError as error:
        raise CorpusError(sidecar, f"cannot read sidecar: {error}") from None


def index_corpus(path: str | Path, cache: IndexCache | None = None, *, store: bool = True) -> CorpusIndex:
    """Load and validate one corpus file as :func:`~.loading.load_corpus` does, keeping only a
    head per question. Raises :class:`CorpusError` with the same one-line messages.

    With ``cache``, the heads of bytes already validated by this very code are taken from it
    (keyed by corpus id, checked against the corpus and sidecar bytes' sha256 and
    :func:`code_fingerprint`), so a repeated run, and every xdist worker, hashes the files instead
    of parsing and validating every record again; ``store`` (the controller, or a run without
    xdist) writes what it validated.
    """
    path = Path(path)
    raw_bytes, sha256 = read_corpus_bytes(path)
    sidecar_bytes = _read_sidecar_bytes(path)
    found = _from_cache(cache, path, sha256, sidecar_bytes) if cache is not None else None
    if found is not None:
        heads, vertical = found
        return CorpusIndex(corpus_id=path.stem, path=path, sha256=sha256, heads=heads, vertical=vertical,
                           sidecar_bytes=sidecar_bytes)
    from .loading import corpus_identity, validated_records

    heads = validated_records(path, raw_bytes, QuestionHead.of)
    identity = corpus_identity(path, sha256, heads, sidecar_bytes=sidecar_bytes)
    index = CorpusIndex(corpus_id=path.stem, path=path, sha256=sha256, heads=heads, vertical=identity["vertical"],
                        sidecar_bytes=sidecar_bytes)
    index._memo["sidecar"] = identity["sidecar"]
    if cache is not None and store:
        _store(cache, index)
    return index
