"""Telling a systematic adapter fault from a question's own error (issue 22, item 4).

An adapter whose ``answer()`` returns ``None``, whose ``reset()`` cannot reach its store, or whose
judge endpoint is down fails every question the same way: running the rest prints hundreds of
identical failure blocks and measures nothing. :class:`FaultWatch` sees each process's results in
order and calls the fault *systematic* when the first :data:`SYSTEMATIC_AFTER` questions all ended
in ``error`` with the same reason and none did anything else; the run then stops as for an
unusable adapter. One success first, or different reasons, and every later error is that
question's own (the run goes on, as before). Pure: no pytest, no clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field

SYSTEMATIC_AFTER = 3
"""How many first questions of a process must fail identically for the fault to count as systematic."""
ERROR_OUTCOME = "error"


@dataclass
class FaultWatch:
    """The first results of one process (each xdist worker has its own, so ``-n 2`` decides alike)."""

    after: int = SYSTEMATIC_AFTER
    reasons: list[str] = field(default_factory=list)
    settled: bool = False
    """A result other than the streak's was seen: nothing later can be systematic."""

    def observe(self, outcome: str, reason: str) -> str | None:
        """Record one result; the shared reason once the first :attr:`after` results are all this
        error (returned once), else ``None``."""
        if self.settled:
            return None
        if outcome != ERROR_OUTCOME or (self.reasons and reason != self.reasons[0]):
            self.settled = True
            return None
        self.reasons.append(reason)
        if len(self.reasons) < self.after:
            return None
        self.settled = True
        return reason


def systematic_message(reason: str, count: int = SYSTEMATIC_AFTER) -> str:
    """The one line that stops the run."""
    return (f"TypedMemEval: stopped: the first {count} questions all ended in the same error, so the fault "
            f"is systematic (the adapter, its service or the judge), not the questions': {reason}. "
            "The remaining questions were not run (the report's not_run); fix it and rerun.")
