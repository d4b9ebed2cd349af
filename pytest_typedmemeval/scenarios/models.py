"""Pydantic models of the scenario corpus (VERTICALS.md §6.2): field-level constraints only.

Rules that relate fields to each other (categories, references, supersession order, corpus
totals) live in :mod:`.rules`, because their errors must name a scenario id and a probe id, which a
pydantic error location (``scenarios[3].probes[1]``) does not. Every model is frozen, so a loaded
corpus cannot change between its hashing and its use, and forbids unknown keys, so a misspelt key
is an error rather than a silently ignored default.
"""

from __future__ import annotations

from typing import Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, field_validator, model_validator

from .matching import normalise

SCENARIO_ID_PATTERN = r"^mb-[a-z0-9]+(?:-[a-z0-9]+)*-\d{3}$"
SESSION_ID_PATTERN = r"^s\d{2}$"
PROBE_ID_PATTERN = r"^p\d{2}$"
SCOPE_PATTERN = r"^[a-z][a-z0-9-]{1,63}$"
LABEL_PATTERN = r"^[a-z][a-z0-9_]*$"

BeliefType = Literal["fact", "preference", "relationship", "user_model_attr", "procedure_pointer"]
"""The belief types named by the sources (§6.2)."""

Category = Literal["single_hop", "multi_hop", "temporal", "update", "correction", "preference",
                   "transfer", "abstention"]
CATEGORIES: tuple[str, ...] = ("single_hop", "multi_hop", "temporal", "update", "correction",
                               "preference", "transfer", "abstention")


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class BenchmarkTurn(_Frozen):
    """One user message; the clock advances by ``advance_seconds`` before it is added."""

    text: str = Field(min_length=1)
    advance_seconds: int = Field(default=0, ge=0)


class BenchmarkSession(_Frozen):
    """One conversation; ``project_scope`` ``None`` means the general (unscoped) context."""

    id: str = Field(pattern=SESSION_ID_PATTERN)
    project_scope: str | None = Field(default=None, pattern=SCOPE_PATTERN)
    advance_seconds: int = Field(default=0, ge=0)
    turns: tuple[BenchmarkTurn, ...] = Field(min_length=1)


class LabeledBelief(_Frozen):
    """An expected belief: what a memory should form from one session, matched after normalisation.

    ``subjects`` and ``statements`` list the accepted phrasings; a stored memory matches when its
    statement contains one of ``statements`` on token boundaries (and, where the memory reports
    them, its subject is among ``subjects`` and its type equals ``belief_type``).
    """

    label: str = Field(pattern=LABEL_PATTERN)
    belief_type: BeliefType
    subjects: tuple[str, ...] = Field(min_length=1)
    statements: tuple[str, ...] = Field(min_length=1)
    session: str = Field(pattern=SESSION_ID_PATTERN)
    supersedes: str | None = Field(default=None, pattern=LABEL_PATTERN)

    @field_validator("subjects", "statements")
    @classmethod
    def _non_blank(cls, values: tuple[str, ...]) -> tuple[str, ...]:
        # A label that normalises to nothing would match every memory.
        if any(not normalise(value) for value in values):
            raise ValueError("entries must be non-empty after normalisation")
        return values


class EvidenceRef(_Frozen):
    """Where the answer was said: a session id and, when known, a 0-based turn index (Appendix A)."""

    session: str = Field(pattern=SESSION_ID_PATTERN)
    turn: int | None = Field(default=None, ge=0)


class ProbeAnswer(_Frozen):
    """The gold answer for the live arm; the deterministic arm never reads it."""

    kind: Literal["exact", "alternatives", "all_of", "abstain"]
    values: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _value_count(self) -> ProbeAnswer:
        n = len(self.values)
        allowed = {"abstain": n == 0, "exact": n == 1, "alternatives": n >= 1, "all_of": n >= 2}
        if not allowed[self.kind]:
            need = {"abstain": "no values", "exact": "exactly one value",
                    "alternatives": "one or more values", "all_of": "two or more values"}[self.kind]
            raise ValueError(f"answer kind {self.kind!r} needs {need}, got {n}")
        if any(not normalise(value) for value in self.values):
            raise ValueError("answer values must be non-empty after normalisation")
        return self


class BenchmarkProbe(_Frozen):
    """One question asked after all sessions; its category is a checked rule (see :mod:`.rules`)."""

    id: str = Field(pattern=PROBE_ID_PATTERN)
    category: Category
    question: str = Field(min_length=1)
    project_scope: str | None = Field(default=None, pattern=SCOPE_PATTERN)
    advance_seconds: int = Field(default=0, ge=0)
    needed: tuple[str, ...] = ()
    answer: ProbeAnswer
    forbidden_statements: tuple[str, ...] = ()
    evidence: tuple[EvidenceRef, ...] = ()


class BenchmarkScenario(_Frozen):
    """Sessions replayed on a frozen clock from ``start_at``, then probes against what formed."""

    id: str = Field(pattern=SCENARIO_ID_PATTERN)
    title: str = Field(min_length=1)
    start_at: AwareDatetime
    sessions: tuple[BenchmarkSession, ...] = Field(min_length=2)
    beliefs: tuple[LabeledBelief, ...]
    protected_statements: tuple[str, ...] = ()
    probes: tuple[BenchmarkProbe, ...] = Field(min_length=1, max_length=6)


class MemoryBenchmarkCorpus(_Frozen):
    """The whole checked-in corpus file."""

    schema_version: Literal[1]
    probe_instruction: str = Field(min_length=1)
    abstain_phrase: str
    scenarios: tuple[BenchmarkScenario, ...] = Field(min_length=12)

    @field_validator("abstain_phrase")
    @classmethod
    def _abstain_non_empty(cls, value: str) -> str:
        if not normalise(value):
            raise ValueError("abstain_phrase must be non-empty after normalisation")
        return value
