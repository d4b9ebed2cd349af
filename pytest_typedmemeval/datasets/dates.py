"""Locale-free parsing of the three datasets' timestamp formats.

``strptime``'s ``%B``/``%b``/``%a`` depend on the process locale, so month and weekday names are
matched against English tables here instead. Each parser returns ``None`` for text it cannot read;
the loader counts that as an undated session rather than failing.
"""

from __future__ import annotations

import re
from datetime import datetime

_MONTHS = {name: number for number, names in enumerate((
    ("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"), ("may",),
    ("jun", "june"), ("jul", "july"), ("aug", "august"), ("sep", "sept", "september"),
    ("oct", "october"), ("nov", "november"), ("dec", "december")), start=1) for name in names}
_WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")

_LOCOMO = re.compile(r"^\s*(\d{1,2}):(\d{2})\s*([ap])\.?\s*m\.?\s+on\s+(\d{1,2})\s+([a-z]+)\.?,?\s+(\d{4})\s*$",
                     re.IGNORECASE)
_LONGMEMEVAL = re.compile(r"^\s*(\d{4})/(\d{1,2})/(\d{1,2})(?:\s*\(([a-z]{3})\))?(?:\s+(\d{1,2}):(\d{2}))?\s*$",
                          re.IGNORECASE)
_HALUMEM = re.compile(r"^\s*([a-z]{3,9})\.?\s+(\d{1,2}),\s*(\d{4}),?\s+(\d{1,2}):(\d{2})(?::(\d{2}))?\s*$",
                      re.IGNORECASE)


def _moment(year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0) -> datetime | None:
    try:
        return datetime(year, month, day, hour, minute, second)
    except ValueError:
        return None


def parse_locomo_time(text: object) -> datetime | None:
    """``"1:56 pm on 8 May, 2023"`` (LoCoMo ``session_N_date_time``)."""
    match = _LOCOMO.match(text) if isinstance(text, str) else None
    if match is None or match.group(5).lower() not in _MONTHS:
        return None
    hour = int(match.group(1)) % 12 + (12 if match.group(3).lower() == "p" else 0)
    return _moment(int(match.group(6)), _MONTHS[match.group(5).lower()], int(match.group(4)), hour,
                   int(match.group(2)))


def parse_longmemeval_time(text: object) -> tuple[datetime | None, str | None]:
    """``"2023/05/20 (Sat) 02:21"`` (LongMemEval ``haystack_dates`` / ``question_date``).

    Returns the moment and, when it was read leniently, the defect kind: ``date_weekday_mismatch``
    (the weekday disagrees with the date; the date wins) or ``date_without_time`` (midnight is
    assumed).
    """
    match = _LONGMEMEVAL.match(text) if isinstance(text, str) else None
    if match is None:
        return None, None
    hour, minute = (int(match.group(5)), int(match.group(6))) if match.group(5) else (0, 0)
    moment = _moment(int(match.group(1)), int(match.group(2)), int(match.group(3)), hour, minute)
    if moment is None:
        return None, None
    if match.group(4) and _WEEKDAYS[moment.weekday()] != match.group(4).lower():
        return moment, "date_weekday_mismatch"
    if not match.group(5):
        return moment, "date_without_time"
    return moment, None


def parse_halumem_time(text: object) -> datetime | None:
    """``"Dec 15, 2025, 08:41:23"`` (HaluMem ``start_time`` / ``end_time``)."""
    match = _HALUMEM.match(text) if isinstance(text, str) else None
    if match is None or match.group(1).lower() not in _MONTHS:
        return None
    return _moment(int(match.group(3)), _MONTHS[match.group(1).lower()], int(match.group(2)),
                   int(match.group(4)), int(match.group(5)), int(match.group(6) or 0))
