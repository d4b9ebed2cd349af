"""Which retrievers the calibration ceiling binds, by corpus revision (the ``-v<N>`` suffix of its
id): the reference BM25 alone up to v1, the retriever panel from v2 (VERTICALS.md Appendix C), the
whole panel from v3 (Appendix D); an id without a revision gets the newest rule.

Apart from the gate because it is a rule of its own that other gates read too (the adversaries
gate asks the same question of a corpus id).
"""

from __future__ import annotations

import re

from ..retrieval.panel import PANEL_NAMES, REFERENCE, WHOLE_PANEL_NAMES

PANEL_FROM_REVISION = 2
"""VERTICALS.md Appendix C: the panel ceiling binds from the v2 corpora on."""
WHOLE_PANEL_FROM_REVISION = 3
"""VERTICALS.md Appendix D: the ceiling binds the whole panel (Appendix D members included) from
the v3 corpora on."""
_REVISION_SUFFIX = re.compile(r"-v(\d+)$")


def corpus_revision(corpus_id: str) -> int | None:
    """The revision in a corpus id's ``-v<N>`` suffix (``typedmemeval-prospective-v1`` -> 1)."""
    match = _REVISION_SUFFIX.search(corpus_id)
    return int(match.group(1)) if match else None


def panel_enforced(revision: int | None) -> bool:
    """Whether the panel ceiling binds: from v2 on, and for an id that names no revision."""
    return revision is None or revision >= PANEL_FROM_REVISION


def whole_panel_enforced(revision: int | None) -> bool:
    """Whether the ceiling binds the *whole* panel (VERTICALS.md Appendix D): from v3 on, and for
    an id that names no revision (the newest rule)."""
    return revision is None or revision >= WHOLE_PANEL_FROM_REVISION


def enforced_members(revision: int | None) -> tuple[str, ...]:
    """The retrievers whose per-shape maximum the ceiling binds at ``revision``."""
    if whole_panel_enforced(revision):
        return WHOLE_PANEL_NAMES
    return PANEL_NAMES if panel_enforced(revision) else (REFERENCE,)


__all__ = ["PANEL_FROM_REVISION", "WHOLE_PANEL_FROM_REVISION", "corpus_revision", "enforced_members",
           "panel_enforced", "whole_panel_enforced"]
