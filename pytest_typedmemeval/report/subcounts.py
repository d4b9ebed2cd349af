"""How the reports name the sub-counts published beside a vertical's outcome vector (§5.3).

The judge sets them wherever its answer key allows — Forgetting's three, and ``stale_recall`` on
any vertical whose key lists replaced values (Prospective's expired plans) — so a report must head
them with the vertical they belong to and show only the ones that can occur there, not "Forgetting
sub-counts" under Prospective (issue 22, item 8).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..corpus.identity import vertical_title

SUBCOUNT_LABELS = {"stale_recall": "stale recall", "over_forgetting": "over-forgetting",
                   "misattributed_forgetting": "mis-attributed forgetting"}
FORGETTING = "forgetting"


def subcounts_heading(vertical: str) -> str:
    return f"{vertical_title(vertical)} sub-counts"


def subcounts_caption(vertical: str) -> str:
    if vertical == FORGETTING:
        return "Sub-counts beside the outcome vector (stale recall is the most dangerous error)"
    return ("Sub-counts beside the outcome vector (stale recall: a value the conversations had "
            "replaced, offered as current)")


def shown_subcounts(vertical: str, vectors: Iterable[Mapping[str, Any]]) -> list[str]:
    """Forgetting's every sub-count (a zero is a result there); elsewhere those that occurred."""
    if vertical == FORGETTING:
        return list(SUBCOUNT_LABELS)
    seen = {key for vector in vectors for key, count in (vector.get("subcounts") or {}).items() if count}
    return [key for key in SUBCOUNT_LABELS if key in seen]


def subcounts_line(vertical: str, subcounts: Mapping[str, int]) -> str | None:
    """The terminal's line, or ``None`` when nothing was counted."""
    counted = [(key, count) for key, count in subcounts.items() if count]
    if not counted:
        return None
    named = ", ".join(f"{SUBCOUNT_LABELS.get(key, key)} {count}" for key, count in sorted(counted))
    return f"  {subcounts_heading(vertical)}: {named}"


__all__ = ["SUBCOUNT_LABELS", "shown_subcounts", "subcounts_caption", "subcounts_heading", "subcounts_line"]
