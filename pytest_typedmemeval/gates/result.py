"""What every gate returns: what was measured, what was refused, by which rule, with the values.

Plain frozen dataclasses (no pytest, no runner) so gates stay pure functions of corpus bytes and
their results can be rendered by the CLI, the marked gate test items and the sidecar writer alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

GateStatus = Literal["passed", "refused", "skipped"]


@dataclass(frozen=True)
class Refusal:
    """One refused finding. ``subject`` is the feature, question id or shape the rule fired on."""

    rule: str
    subject: str
    value: float | int | str | None
    detail: str
    vertical: str | None = None
    shape: str | None = None

    def line(self) -> str:
        where = "/".join(part for part in (self.vertical, self.shape) if part)
        prefix = f"[{where}] " if where else ""
        return f"{prefix}{self.rule}: {self.subject} = {self.value!r} — {self.detail}"


@dataclass(frozen=True)
class GateResult:
    """A gate's verdict over one corpus. ``measured`` holds the figures worth printing or stamping."""

    gate: str
    corpus_id: str
    status: GateStatus
    refusals: tuple[Refusal, ...] = ()
    measured: dict[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    skip_reason: str | None = None

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    def refused_rules(self) -> frozenset[str]:
        return frozenset(refusal.rule for refusal in self.refusals)

    def summary(self, limit: int = 8) -> str:
        """A few lines a person can act on: the worst refusals first, then how many more."""
        if self.status == "skipped":
            return f"{self.gate} skipped for {self.corpus_id}: {self.skip_reason}"
        if self.status == "passed":
            return f"{self.gate} passed for {self.corpus_id}"
        lines = [f"{self.gate} refused {self.corpus_id} ({len(self.refusals)} finding(s)):"]
        lines += [f"  {refusal.line()}" for refusal in self.refusals[:limit]]
        if len(self.refusals) > limit:
            lines.append(f"  ... and {len(self.refusals) - limit} more")
        return "\n".join(lines)


@dataclass(frozen=True)
class SelfTestCase:
    """One self-test case: a defect must be refused by ``expected_rule``; a control must pass."""

    name: str
    kind: Literal["defect", "control"]
    expected_rule: str | None
    ok: bool
    detail: str


def defect_case(name: str, result: GateResult, expected_rule: str) -> SelfTestCase:
    """A defect counts as refused only when the intended rule fired, not merely any rule."""
    fired = result.refused_rules()
    ok = result.status == "refused" and expected_rule in fired
    return SelfTestCase(name, "defect", expected_rule, ok,
                        f"expected {expected_rule}; fired {sorted(fired) or 'nothing'}")


def control_case(name: str, result: GateResult) -> SelfTestCase:
    ok = result.status == "passed"
    return SelfTestCase(name, "control", None, ok,
                        "passed" if ok else f"refused by {sorted(result.refused_rules())}")
