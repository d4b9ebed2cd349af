"""Reading a corpus file into models, with its identity (sha256) and one-line errors.

A corpus that fails here never reaches a run: a half-loaded corpus would be reported under a hash
that does not describe what ran.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from pydantic import ValidationError

from .identity import (
    RESERVED_BENCHMARK_TOKEN,
    CorpusError,
    CorpusIdentity,
    corpus_sha256,
    normalised_bytes,
    read_corpus_bytes,
    sidecar_path_for,
)
from .models import QuestionRecord, Sidecar, parse_corpus_date

__all__ = ["RESERVED_BENCHMARK_TOKEN", "Corpus", "CorpusError", "CorpusIdentity", "corpus_sha256",
           "load_corpus", "normalised_bytes", "read_corpus_bytes", "sidecar_path_for"]

@dataclass(frozen=True)
class Corpus(CorpusIdentity):
    """A loaded corpus: its records in file order and the identity every result must carry."""

    corpus_id: str
    path: Path
    sha256: str
    records: tuple[QuestionRecord, ...]
    sidecar: Sidecar | None
    vertical: str | None
    """The one vertical all records share, or ``None`` for a mixed user corpus."""

    @property
    def question_count(self) -> int:
        return len(self.records)


def _field_path(loc: tuple[int | str, ...]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "<record>"


def _validate_record(path: Path, index: int, raw: Any) -> QuestionRecord:
    question_id = raw.get("question_id") if isinstance(raw, dict) else None
    label = str(question_id) if question_id is not None else f"#{index}"
    try:
        return QuestionRecord.model_validate(raw)
    except ValidationError as error:
        first = error.errors()[0]
        more = error.error_count() - 1
        suffix = f" (and {more} more problem{'s' if more > 1 else ''} in this record)" if more else ""
        raise CorpusError(path, first["msg"] + suffix, question_id=label,
                          field=_field_path(tuple(first["loc"]))) from None


def _check_record_semantics(path: Path, record: QuestionRecord) -> None:
    """Rules a schema cannot say: order of time, and references that must resolve."""
    qid = record.question_id
    times = record.session_times
    for index in range(1, len(times)):
        if times[index] < times[index - 1]:
            raise CorpusError(path, f"session {index} is dated before session {index - 1} "
                              f"({record.haystack_dates[index]} < {record.haystack_dates[index - 1]})",
                              question_id=qid, field=f"haystack_dates[{index}]")
    if times and times[-1] > record.query_time:
        # A session after the question would hand the system the future: the haystack is what
        # was said before the moment of asking.
        late = next(i for i, t in enumerate(times) if t > record.query_time)
        raise CorpusError(path, f"session {late} is dated after the question "
                          f"({record.haystack_dates[late]} > {record.question_date})",
                          question_id=qid, field=f"haystack_dates[{late}]")
    known = set(record.haystack_session_ids)
    for index, session_id in enumerate(record.answer_session_ids):
        if session_id not in known:
            raise CorpusError(path, f"{session_id!r} names no session in haystack_session_ids",
                              question_id=qid, field=f"answer_session_ids[{index}]")
    n = len(record.haystack_sessions)
    block = record.typedmemeval
    references: list[tuple[str, int]] = []
    if block.derivation is not None:
        for i, item in enumerate(block.derivation.inputs):
            references.append((f"typedmemeval.derivation.inputs[{i}].session_index", item.session_index))
            if item.from_session_index is not None:
                references.append(
                    (f"typedmemeval.derivation.inputs[{i}].from_session_index", item.from_session_index))
    for i, candidate in enumerate(block.candidates or ()):
        references.append((f"typedmemeval.candidates[{i}].session_index", candidate.session_index))
    for i, component in enumerate(block.gold_components or ()):
        references.append((f"typedmemeval.gold_components[{i}].session_index", component.session_index))
    if block.list_order is not None:
        for i, session_index in enumerate(block.list_order.session_indices):
            references.append((f"typedmemeval.list_order.session_indices[{i}]", session_index))
    for field, session_index in references:
        if session_index >= n:
            raise CorpusError(path, f"session index {session_index} is outside the haystack (size {n})",
                              question_id=qid, field=field)
    if block.asked_instant is not None:
        parse_corpus_date(block.asked_instant)


def _load_sidecar(path: Path, sha256: str) -> Sidecar | None:
    sidecar_file = sidecar_path_for(path)
    if not sidecar_file.is_file():
        return None
    try:
        raw = sidecar_file.read_bytes()
    except OSError as error:
        raise CorpusError(sidecar_file, f"cannot read sidecar: {error}") from None
    return sidecar_from_bytes(sidecar_file, raw, sha256)


def sidecar_from_bytes(sidecar_file: Path, raw: bytes, sha256: str) -> Sidecar:
    """Validate a sidecar's bytes and check it names the corpus (its sha256 and its id)."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CorpusError(sidecar_file, f"cannot read sidecar: {error}") from None
    try:
        sidecar = Sidecar.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        raise CorpusError(sidecar_file, first["msg"], field=_field_path(tuple(first["loc"]))) from None
    if sidecar.sha256 != sha256:
        raise CorpusError(sidecar_file, f"sidecar names sha256 {sidecar.sha256[:12]} but the corpus "
                          f"bytes hash to {sha256[:12]}; regenerate the sidecar or restore the corpus",
                          field="sha256")
    corpus_id = sidecar_file.name.removesuffix(".sidecar.json")
    if sidecar.corpus_id != corpus_id:
        raise CorpusError(sidecar_file, f"sidecar corpus_id {sidecar.corpus_id!r} differs from the "
                          f"corpus file name {corpus_id!r}", field="corpus_id")
    return sidecar


_GAP = re.compile(r"[ \t\n\r]*")
"""JSON's whitespace: what may stand between the array's brackets, commas and records."""


class _NotStreamable(Exception):
    """The file is not a well-formed JSON array of records; the whole-document parse says why."""


def _whole_document_problem(path: Path, raw_bytes: bytes) -> CorpusError:
    """The one-line error for a file the record-by-record reader could not walk, worded as a
    parse of the whole document words it (the message a user sees does not depend on the reader)."""
    try:
        data = json.loads(normalised_bytes(raw_bytes).decode("utf-8"))
    except UnicodeDecodeError as error:
        return CorpusError(path, f"not UTF-8 at byte {error.start}")
    except json.JSONDecodeError as error:
        return CorpusError(path, f"invalid JSON at line {error.lineno} column {error.colno}: {error.msg}")
    except RecursionError:
        return CorpusError(path, "JSON nested too deeply to be a corpus (records are at most a few "
                           "levels deep)")
    if not isinstance(data, list) or not data:
        return CorpusError(path, "a corpus file must be a non-empty JSON array of question records")
    return CorpusError(path, "the file could not be read record by record")  # pragma: no cover


def _record_spans(text: str, raw_bytes: bytes) -> Iterator[tuple[int, int, Any]]:
    """Each element of the top-level array as ``(byte offset, byte length, parsed value)``.

    One record is parsed at a time, so a corpus is never held as one parsed document (thousands of
    records of ~150 turns each), and the offsets let a question re-read its own record when it
    runs (:class:`CorpusIndex`). Raises :class:`_NotStreamable` on anything but a well-formed array.
    """
    decoder = json.JSONDecoder()
    ascii_only = len(text) == len(raw_bytes)
    byte_at, char_at = 0, 0

    def byte_offset(position: int) -> int:
        nonlocal byte_at, char_at
        if ascii_only:
            return position
        byte_at += len(text[char_at:position].encode("utf-8"))
        char_at = position
        return byte_at

    position = _GAP.match(text).end()
    if not text.startswith("[", position):
        raise _NotStreamable
    position = _GAP.match(text, position + 1).end()
    if text.startswith("]", position):
        raise _NotStreamable  # empty: worded by the whole-document parse
    while True:
        try:
            value, end = decoder.raw_decode(text, position)
        except (json.JSONDecodeError, RecursionError):
            raise _NotStreamable from None
        start_byte = byte_offset(position)
        yield start_byte, byte_offset(end) - start_byte, value
        position = _GAP.match(text, end).end()
        if text.startswith(",", position):
            position = _GAP.match(text, position + 1).end()
            continue
        if text.startswith("]", position) and _GAP.match(text, position + 1).end() == len(text):
            return
        raise _NotStreamable


_Kept = TypeVar("_Kept")


class Labelled(Protocol):
    """What the identity checks read of each kept record: a full record or a question's head."""

    @property
    def question_id(self) -> str: ...
    @property
    def vertical(self) -> str: ...


def validated_records(path: Path, raw_bytes: bytes,
                      keep: Callable[[QuestionRecord, bytes, int, int], _Kept]) -> tuple[_Kept, ...]:
    """Validate the file's records one at a time; ``keep`` decides what of each is held (the
    record itself, or only its question head) from the record, the file bytes and its span."""
    try:
        text = raw_bytes.decode("utf-8")
    except UnicodeDecodeError:
        raise _whole_document_problem(path, raw_bytes) from None
    kept: list[_Kept] = []
    seen: dict[str, int] = {}
    try:
        for index, (offset, length, raw) in enumerate(_record_spans(text, raw_bytes)):
            record = _validate_record(path, index, raw)
            if record.question_id in seen:
                raise CorpusError(path, f"duplicate question id (first at record #{seen[record.question_id]})",
                                  question_id=record.question_id, field="question_id")
            seen[record.question_id] = index
            _check_record_semantics(path, record)
            kept.append(keep(record, raw_bytes, offset, length))
    except _NotStreamable:
        raise _whole_document_problem(path, raw_bytes) from None
    return tuple(kept)


_READ_SIDECAR = object()


def corpus_identity(path: Path, sha256: str, kept: tuple[Labelled, ...],
                    sidecar_bytes: bytes | None | object = _READ_SIDECAR) -> dict[str, Any]:
    """The corpus's identity once its records are known (keyword arguments of :class:`Corpus`):
    its sidecar, checked against the bytes' hash, and the one vertical every record shares, which
    the sidecar may fix. ``sidecar_bytes`` are the sidecar's bytes already read (``None``: no
    sidecar); by default the sidecar beside the corpus is read."""
    if sidecar_bytes is _READ_SIDECAR:
        sidecar = _load_sidecar(path, sha256)
    elif isinstance(sidecar_bytes, bytes):
        sidecar = sidecar_from_bytes(sidecar_path_for(path), sidecar_bytes, sha256)
    else:
        sidecar = None
    verticals = {item.vertical for item in kept}
    vertical = next(iter(verticals)) if len(verticals) == 1 else None
    if sidecar is not None and sidecar.vertical is not None:
        for item in kept:
            if item.vertical != sidecar.vertical:
                raise CorpusError(path, f"vertical {item.vertical!r} differs from the corpus's "
                                  f"{sidecar.vertical!r}", question_id=item.question_id,
                                  field="typedmemeval.vertical")
        vertical = sidecar.vertical
    return {"corpus_id": path.stem, "path": path, "sha256": sha256, "sidecar": sidecar, "vertical": vertical}


def _whole_record(record: QuestionRecord, raw_bytes: bytes, offset: int, length: int) -> QuestionRecord:
    return record


def load_corpus(path: str | Path) -> Corpus:
    """Load and validate one corpus file (and its sidecar, if one sits beside it), every record
    held whole: for gates, probes and tools that read every haystack.

    Raises :class:`CorpusError` with a one-line message naming file, question id and field.
    """
    path = Path(path)
    raw_bytes, sha256 = read_corpus_bytes(path)
    records = validated_records(path, raw_bytes, _whole_record)
    return Corpus(**corpus_identity(path, sha256, records), records=records)
