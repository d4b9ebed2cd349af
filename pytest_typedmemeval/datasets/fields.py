"""Reading required fields of raw upstream JSON, failing with one line that names file, question
and field (see :class:`~.errors.DatasetFormatError`). Optional, defect-prone fields are read by the
loaders themselves, which count what is wrong instead of raising."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .errors import DatasetFormatError

_KIND_NAMES = {dict: "an object", list: "a list", str: "a string", int: "an integer"}


def _kind_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(_KIND_NAMES.get(k, k.__name__) for k in kinds)


def _found(value: Any) -> str:
    return "null" if value is None else type(value).__name__


@dataclass(frozen=True)
class Where:
    """Where in the file a value sits: the file as the user named it and the question it belongs
    to (``None`` above question level)."""

    file: str
    question_id: str | None = None

    def at(self, question_id: str | None) -> Where:
        return Where(self.file, question_id)

    def error(self, field: str, problem: str) -> DatasetFormatError:
        return DatasetFormatError(self.file, self.question_id, field, problem)


def expect(value: Any, kind: type | tuple[type, ...], where: Where, field: str) -> Any:
    """``value`` if it is of ``kind`` (``bool`` never passes for ``int``), else the one-line error."""
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        raise where.error(field, f"expected {_kind_name(kind)}, found bool")
    if not isinstance(value, kinds):
        raise where.error(field, f"expected {_kind_name(kind)}, found {_found(value)}")
    return value


def require(record: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: Where,
            prefix: str = "") -> Any:
    """``record[key]``, present and of ``kind``; ``prefix`` is the field path of ``record``."""
    field = f"{prefix}.{key}" if prefix else key
    if key not in record:
        raise where.error(field, "missing (required)")
    return expect(record[key], kind, where, field)
