"""What the adapter sees of a dataset question: sessions with opaque ids and a timestamp each,
and the instruction.

Opaque ids follow the identity rule of OVERVIEW.md: upstream ids can give gold away (LongMemEval's
evidence sessions are named ``answer_...``), so the adapter sees a hash of dataset, question,
position and upstream id — which names none of them and does not follow haystack order. The
position is part of the hash because upstream files repeat session ids (LongMemEval#54).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import datetime, timedelta

from ..adapter.projection import ANSWER_CONTRACT

DATASET_INSTRUCTION = f"Answer from what was said in our conversations, in a short phrase. {ANSWER_CONTRACT}"
"""The instruction every dataset question carries. "A short phrase" because these datasets score
token F1 against short gold answers; the decline contract is the one TypedMemEval uses, so a
system declines the same way everywhere (and the abstention probes can read it)."""

UNDATED_FALLBACK = datetime(2000, 1, 1)
"""The timestamp of sessions when no session of the record carries a readable date at all."""


def opaque_session_id(dataset: str, question_id: str, index: int, source_id: str) -> str:
    digest = hashlib.sha256(f"{dataset}\x00{question_id}\x00{index}\x00{source_id}".encode()).hexdigest()
    return f"s{digest[:12]}"


def fill_missing_times(times: Sequence[datetime | None]) -> list[datetime]:
    """Every ``None`` replaced by the previous known time plus a minute per step (or the next known
    time when none precedes), so order is kept and nothing is dated at random. The caller counts
    the defect."""
    known = [t for t in times if t is not None]
    if not known:
        return [UNDATED_FALLBACK + timedelta(minutes=i) for i in range(len(times))]
    filled: list[datetime] = []
    previous: datetime | None = None
    steps = 0
    for t in times:
        if t is not None:
            previous, steps = t, 0
            filled.append(t)
            continue
        steps += 1
        filled.append((previous if previous is not None else known[0]) + timedelta(minutes=steps))
    return filled
