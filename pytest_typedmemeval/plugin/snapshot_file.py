"""Reading a baseline snapshot file strictly: a cut or damaged file is named, never half-used.

``--tme-baseline`` records one outcome per question in syrupy's amber format::

    # serializer version: 1
    # name: question[tme-ari-001]
      'correct'
    # ---

syrupy's own reader skips what it cannot parse, so a file cut short by a full disk or a killed
write would silently lose its last entries, and those questions would read as *unrecorded*, which
invites a re-record that hides regressions. Here every entry must be complete and hold an outcome,
or the file is refused in one line with the fix. Knows nothing about pytest; syrupy is not needed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..judge.outcomes import ALL_OUTCOMES

OUTCOMES = frozenset(outcome.value for outcome in ALL_OUTCOMES)
ENTRY_PREFIX = "question["


class SnapshotFileError(ValueError):
    """The snapshot file is truncated or corrupt. The message is one line ending with the fix."""


def fix_for(path: Path) -> str:
    return (f"restore {path.name} from version control, or delete it and re-record with "
            "--tme-baseline --snapshot-update")


def read_snapshot_file(path: Path) -> dict[str, str]:
    """Entry name (``question[<item id>]``) -> recorded outcome; raises :class:`SnapshotFileError`."""

    def refuse(problem: str) -> SnapshotFileError:
        return SnapshotFileError(f"baseline snapshot {path}: {problem}; {fix_for(path)}")

    try:
        raw = path.read_bytes()
    except OSError as error:
        raise refuse(f"cannot be read ({error.strerror or error})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise refuse(f"is not UTF-8 at byte {error.start} (corrupt)") from None
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        raise refuse("is empty (truncated)")
    if not lines[0].startswith("# serializer version:"):
        raise refuse("line 1 is not '# serializer version: N' (corrupt, or not a snapshot file)")
    entries: dict[str, str] = {}
    name: str | None = None
    data: list[str] = []
    for number, line in enumerate(lines[1:], start=2):
        if line.startswith("# name:"):
            if name is not None:
                raise refuse(f"entry {name} has no closing '# ---' before line {number} (corrupt)")
            name, data = line[len("# name:"):].strip(), []
            if not name:
                raise refuse(f"line {number} names no entry (corrupt)")
            if name in entries:
                raise refuse(f"entry {name} appears twice (line {number}; corrupt)")
        elif line.rstrip() == "# ---":
            if name is None:
                raise refuse(f"line {number} closes an entry that was never opened (corrupt)")
            value = "\n".join(data).strip().strip("'\"")
            if name.startswith(ENTRY_PREFIX) and value not in OUTCOMES:
                shown = value if len(value) <= 40 else value[:40] + "..."
                raise refuse(f"entry {name} records {shown!r}, which is not an outcome "
                             f"({', '.join(sorted(OUTCOMES))}) (corrupt)")
            entries[name] = value
            name = None
        elif name is not None and (line.startswith("  ") or line == ""):
            data.append(line[2:])
        elif line.strip():
            raise refuse(f"line {number} is neither an entry nor its data: {line[:40]!r} (corrupt)")
    if name is not None:
        raise refuse(f"ends inside entry {name}, after {len(entries)} complete entr"
                     f"{'y' if len(entries) == 1 else 'ies'} (truncated)")
    return entries


def recorded_outcomes(path: Path, question_for_item: dict[str, str]) -> dict[str, str]:
    """Question id -> recorded outcome. ``question_for_item`` maps item ids back to question ids
    (entries for items the corpus no longer has keep their item id, so they show up as drift)."""
    recorded: dict[str, str] = {}
    for name, outcome in read_snapshot_file(path).items():
        if name.startswith(ENTRY_PREFIX) and name.endswith("]"):
            item_id = name[len(ENTRY_PREFIX):-1]
            recorded[question_for_item.get(item_id, item_id)] = outcome
    return recorded


def recalled_text(snapshot: Any) -> str | None:
    """The text syrupy recalled from the snapshot file for the last assertion of this test (its
    public execution record), or ``None`` when nothing was recorded."""
    executions = getattr(snapshot, "executions", {})
    if not executions:
        return None
    recalled = executions[max(executions)].recalled_data
    return None if recalled is None else str(recalled)
