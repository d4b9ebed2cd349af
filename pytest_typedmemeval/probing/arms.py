"""The probe arms of VERTICALS.md §3.1: which questions each arm applies to, how many samples it
draws, and which sessions it shows.

Arms differ **only** in the sessions they hand the reference model; the prompt around them is the
one builder the reference LLM agents use (:func:`..adapter.llm_agents.build_messages`), so a V8 request is
byte-identical to what ``llm-full-context`` sends and a V9 request to what ``llm-bm25`` sends.

Scope is decided from the corpus declarations, never from results (§3.6): V1/V2/V3/V8/V9 apply to
questions with gold; V10/V11 to questions without gold; V6 to questions the generator flags
``gold_components_load_bearing`` and not ``gold_components_redundant`` (§3.1 V6: "the runner must
not pick its own scope").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ..corpus.models import QuestionRecord
from ..retrieval.bm25 import K_REF, rank_sessions, session_document

Scope = Literal["gold", "goldless", "load_bearing"]
Grading = Literal["outcome", "commitment"]


@dataclass(frozen=True)
class ArmSpec:
    """One arm: its name, the spec's sample count, the questions it applies to, how it is graded."""

    name: str
    samples: int
    scope: Scope
    grading: Grading
    context: str
    """What the model is shown, for the dry-run table and the summary."""


ARMS: dict[str, ArmSpec] = {spec.name: spec for spec in (
    ArmSpec("V1", 1, "gold", "outcome", "gold sessions only"),
    ArmSpec("V2", 10, "gold", "outcome", "no sessions (empty context)"),
    ArmSpec("V3", 3, "gold", "outcome", "haystack with every gold session removed"),
    ArmSpec("V6", 3, "load_bearing", "outcome", "haystack minus one gold component (per component)"),
    ArmSpec("V8", 1, "gold", "outcome", "whole haystack"),
    ArmSpec("V9", 1, "gold", "outcome", f"BM25 top {K_REF} sessions"),
    ArmSpec("V10", 3, "goldless", "commitment", "whole haystack (gold-less questions)"),
    ArmSpec("V11", 3, "goldless", "commitment", f"BM25 top {K_REF} sessions (gold-less questions)"),
)}
"""Sample counts are the spec's: V2 10 (§3.1 V2), V3 3, V6 3 per removal, V10/V11 3 draws.
V1/V8/V9 name no count; one sample each (the gate pools every sample, so more would only weigh
the arm, not change what it measures)."""

ARM_ORDER: tuple[str, ...] = tuple(ARMS)


class ArmError(ValueError):
    """A bad ``--arms`` value; the message is one line naming the offending arm."""


def parse_arms(text: str | None) -> tuple[str, ...]:
    """``"v1, V8"`` -> ``("V1", "V8")`` in canonical order; every arm when ``text`` is empty."""
    if not text or not text.strip():
        return ARM_ORDER
    names = [part.strip().upper() for part in text.split(",") if part.strip()]
    unknown = [name for name in names if name not in ARMS]
    if unknown:
        raise ArmError(f"--arms: unknown arm {unknown[0]!r} (known: {', '.join(ARM_ORDER)}; "
                       "V4, V5 and V7 are model-free checks run by the gates)")
    return tuple(arm for arm in ARM_ORDER if arm in names)


def samples_for(spec: ArmSpec, scale: float = 1.0) -> int:
    """The arm's sample count times ``scale``, rounded up, at least 1 (``--samples-scale``)."""
    return max(1, math.ceil(spec.samples * scale - 1e-9))


def applies(spec: ArmSpec, record: QuestionRecord) -> bool:
    """Whether the arm applies to the question, from the corpus declarations alone."""
    has_gold = bool(record.answer_session_ids)
    if spec.scope == "goldless":
        return not has_gold
    if spec.scope == "gold":
        return has_gold
    block = record.typedmemeval
    return (has_gold and block.gold_components_load_bearing is True
            and block.gold_components_redundant is not True)


def components(record: QuestionRecord) -> tuple[int, ...]:
    """The haystack positions V6 removes one at a time: the declared ``gold_components`` (deduplicated
    by session), else every gold session (Arithmetic declares load-bearing inputs but no
    components; each of its gold sessions holds one input)."""
    declared = record.typedmemeval.gold_components
    if declared:
        return tuple(sorted({component.session_index for component in declared}))
    return tuple(record.gold_session_indices)


def bm25_top(record: QuestionRecord, k: int = K_REF) -> tuple[int, ...]:
    """The reference retriever's top ``k`` sessions for the question, in haystack order (the same
    ranking as calibration and ``llm-bm25``)."""
    documents = [session_document([turn.content for turn in session])
                 for session in record.haystack_sessions]
    return tuple(sorted(rank_sessions(documents, record.question)[:k]))


@dataclass(frozen=True)
class Context:
    """One context an arm shows for a question: haystack positions, in haystack order."""

    label: str
    sessions: tuple[int, ...]


def _without(record: QuestionRecord, removed: Sequence[int]) -> tuple[int, ...]:
    gone = set(removed)
    return tuple(i for i in range(len(record.haystack_sessions)) if i not in gone)


def contexts(arm: str, record: QuestionRecord) -> list[Context]:
    """The contexts ``arm`` shows for ``record`` (one, or one per component for V6)."""
    everything = tuple(range(len(record.haystack_sessions)))
    if arm == "V1":
        return [Context("gold", record.gold_session_indices)]
    if arm == "V2":
        return [Context("empty", ())]
    if arm == "V3":
        return [Context("gold removed", _without(record, record.gold_session_indices))]
    if arm == "V6":
        return [Context(f"without session {index}", _without(record, (index,)))
                for index in components(record)]
    if arm in ("V8", "V10"):
        return [Context("whole haystack", everything)]
    if arm in ("V9", "V11"):
        return [Context(f"bm25 top {K_REF}", bm25_top(record))]
    raise ArmError(f"unknown arm {arm!r}")


__all__ = ["ARMS", "ARM_ORDER", "ArmError", "ArmSpec", "Context", "applies", "bm25_top",
           "components", "contexts", "parse_arms", "samples_for"]
