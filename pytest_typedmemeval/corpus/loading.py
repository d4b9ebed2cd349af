"""Reading a corpus file into models, with its identity (sha256) and one-line errors.

A corpus that fails here never reaches a run: a half-loaded corpus would be reported under a hash
that does not describe what ran.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .models import QuestionRecord, Sidecar, parse_corpus_date

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
        parts = [self.path]
        if question_id is not None:
            parts.append(f"question {question_id}")
        if field is not None:
            parts.append(f"field {field}")
        parts.append(problem)
        super().__init__(": ".join(parts))


@dataclass(frozen=True)
class Corpus:
    """A loaded corpus: its records in file order and the identity every result must carry."""

    corpus_id: str
    path: Path
    sha256: str
    records: tuple[QuestionRecord, ...]
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
            name = f"TypedMemEval-{label}{self.vertical.capitalize()} v{self.sidecar.revision}"
            return f"{name} (pytest-typedmemeval), corpus {self.corpus_id}, sha256 {short}"
        return f"user corpus {self.corpus_id} (not a TypedMemEval revision), sha256 {short}"


def normalised_bytes(raw: bytes) -> bytes:
    """CRLF and bare CR become LF, so a Windows checkout hashes like the published file (§1.1)."""
    return raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n")


def corpus_sha256(raw: bytes) -> str:
    return hashlib.sha256(normalised_bytes(raw)).hexdigest()


def sidecar_path_for(path: Path) -> Path:
    return path.with_name(path.stem + ".sidecar.json")


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
        raw = json.loads(sidecar_file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CorpusError(sidecar_file, f"cannot read sidecar: {error}") from None
    try:
        sidecar = Sidecar.model_validate(raw)
    except ValidationError as error:
        first = error.errors()[0]
        raise CorpusError(sidecar_file, first["msg"], field=_field_path(tuple(first["loc"]))) from None
    if sidecar.sha256 != sha256:
        raise CorpusError(sidecar_file, f"sidecar names sha256 {sidecar.sha256[:12]} but the corpus "
                          f"bytes hash to {sha256[:12]}; regenerate the sidecar or restore the corpus",
                          field="sha256")
    if sidecar.corpus_id != path.stem:
        raise CorpusError(sidecar_file, f"sidecar corpus_id {sidecar.corpus_id!r} differs from the "
                          f"corpus file name {path.stem!r}", field="corpus_id")
    return sidecar


def load_corpus(path: str | Path) -> Corpus:
    """Load and validate one corpus file (and its sidecar, if one sits beside it).

    Raises :class:`CorpusError` with a one-line message naming file, question id and field.
    """
    path = Path(path)
    try:
        raw_bytes = path.read_bytes()
    except OSError as error:
        raise CorpusError(path, f"cannot read corpus file: {error.strerror or error}") from None
    sha256 = corpus_sha256(raw_bytes)
    try:
        data = json.loads(normalised_bytes(raw_bytes).decode("utf-8"))
    except UnicodeDecodeError as error:
        raise CorpusError(path, f"not UTF-8 at byte {error.start}") from None
    except json.JSONDecodeError as error:
        raise CorpusError(path, f"invalid JSON at line {error.lineno} column {error.colno}: {error.msg}") from None
    except RecursionError:
        raise CorpusError(path, "JSON nested too deeply to be a corpus (records are at most a few "
                          "levels deep)") from None
    if not isinstance(data, list) or not data:
        raise CorpusError(path, "a corpus file must be a non-empty JSON array of question records")
    corpus_id = path.stem
    if RESERVED_BENCHMARK_TOKEN in corpus_id.lower():
        raise CorpusError(path, f"corpus id {corpus_id!r} contains the reserved token "
                          f"{RESERVED_BENCHMARK_TOKEN!r} (identity rule); rename the file")
    records: list[QuestionRecord] = []
    seen: dict[str, int] = {}
    for index, raw in enumerate(data):
        record = _validate_record(path, index, raw)
        if record.question_id in seen:
            raise CorpusError(path, f"duplicate question id (first at record #{seen[record.question_id]})",
                              question_id=record.question_id, field="question_id")
        seen[record.question_id] = index
        _check_record_semantics(path, record)
        records.append(record)
    sidecar = _load_sidecar(path, sha256)
    verticals = sorted({record.vertical for record in records})
    vertical = verticals[0] if len(verticals) == 1 else None
    if sidecar is not None and sidecar.vertical is not None:
        for record in records:
            if record.vertical != sidecar.vertical:
                raise CorpusError(path, f"vertical {record.vertical!r} differs from the corpus's "
                                  f"{sidecar.vertical!r}", question_id=record.question_id,
                                  field="typedmemeval.vertical")
        vertical = sidecar.vertical
    return Corpus(corpus_id=corpus_id, path=path, sha256=sha256, records=tuple(records),
                  sidecar=sidecar, vertical=vertical)
