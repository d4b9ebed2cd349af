"""Reading the user's local dataset file: bytes once, their SHA-256, then JSON or JSON Lines.

The digest is of the bytes exactly as read (no newline normalisation) so that a user can compare
it with ``sha256sum`` of the file they downloaded. The path itself never leaves this module except
in error messages: metrics files carry the digest, not where the file lives.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import DatasetFormatError


@dataclass(frozen=True)
class SourceFile:
    """One dataset file as read: its name for messages, its digest, its parsed JSON."""

    label: str
    sha256: str
    data: Any


def read_json(path: str | Path) -> SourceFile:
    """Parse a whole-file JSON document (LoCoMo, LongMemEval)."""
    label, raw = _read(path)
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise DatasetFormatError(label, None, "<file>", f"not valid JSON ({_short(error)})") from None
    return SourceFile(label, hashlib.sha256(raw).hexdigest(), data)


def read_json_lines(path: str | Path) -> SourceFile:
    """Parse JSON Lines, one record per non-blank line (HaluMem); a file holding one JSON list is
    accepted too, since users re-save the file that way."""
    label, raw = _read(path)
    digest = hashlib.sha256(raw).hexdigest()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise DatasetFormatError(label, None, "<file>", f"not UTF-8 text ({_short(error)})") from None
    if text.lstrip().startswith("["):
        try:
            return SourceFile(label, digest, json.loads(text))
        except json.JSONDecodeError as error:
            raise DatasetFormatError(label, None, "<file>", f"not valid JSON ({_short(error)})") from None
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as error:
            raise DatasetFormatError(label, None, f"line {number}", f"not valid JSON ({_short(error)})") from None
    return SourceFile(label, digest, records)


def _read(path: str | Path) -> tuple[str, bytes]:
    label = str(path)
    try:
        return label, Path(path).read_bytes()
    except OSError as error:
        raise DatasetFormatError(label, None, "<file>", f"cannot be read ({error.strerror or error})") from None


def _short(error: Exception) -> str:
    return str(error).splitlines()[0][:200]
