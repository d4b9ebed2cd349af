"""Evidence-provenance recall@k (VERTICALS.md §6.7): did the memory surface the dataset's own
evidence, not just the right words?

The adapter may report, in the opaque session ids it was given, the sessions it retrieved (in rank
order) or placed in the answer context. For each distinct evidence session we keep its 1-based
rank in that list (``None`` when absent); recall@k for any k is then "some evidence session ranks
within k" (LongMemEval's ``recall_any@k``), computed from the stored ranks. The adapter protocol
reports sessions, not turns, so this is session-level provenance for every dataset.

A question without evidence, and every abstention probe (whose listed sessions hold related
facts, not an answer; LongMemEval's retrieval metrics skip ``_abs`` questions likewise), is
``not_applicable``; an answer without reported evidence is ``unobserved`` — never counted as zero.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..adapter.protocol import Evidence
from .models import DatasetQuestion

Provenance = Literal["observed", "unobserved", "not_applicable"]


@dataclass(frozen=True)
class ProvenanceObservation:
    """Where the question's evidence sessions sit in what the adapter reported."""

    status: Provenance
    source: Literal["retrieved", "context"] | None = None
    ranks: tuple[int | None, ...] = ()
    unknown_ids: int = 0


@dataclass(frozen=True)
class Ranking:
    """What the adapter reported, as a ranking: the distinct session ids of this question's
    haystack in the order given, from which list, and how many listed ids were not the question's."""

    source: Literal["retrieved", "context"]
    ranked: tuple[str, ...]
    unknown_ids: int


def reported_ranking(question: DatasetQuestion, evidence: Evidence | None) -> Ranking | None:
    """The adapter's ``retrieved`` list (else ``context``) as a ranking; ``None`` when it reported
    neither."""
    if evidence is None or (evidence.retrieved is None and evidence.context is None):
        return None
    source: Literal["retrieved", "context"] = "retrieved" if evidence.retrieved is not None else "context"
    listed = evidence.retrieved if evidence.retrieved is not None else evidence.context
    assert listed is not None
    known = {session.session_id for session in question.sessions}
    ranked = tuple(dict.fromkeys(sid for sid in listed if sid in known))
    return Ranking(source, ranked, sum(1 for sid in listed if sid not in known))


def observe_provenance(question: DatasetQuestion, evidence: Evidence | None) -> ProvenanceObservation:
    """Ranks of the evidence sessions in the adapter's ``retrieved`` list (else ``context``)."""
    gold = () if question.abstention else question.evidence_session_ids
    ranking = reported_ranking(question, evidence)
    if ranking is None:
        return ProvenanceObservation("not_applicable" if not gold else "unobserved")
    source, ranked, unknown = ranking.source, ranking.ranked, ranking.unknown_ids
    if not gold:
        return ProvenanceObservation("not_applicable", source, (), unknown)
    position = {sid: rank for rank, sid in enumerate(ranked, start=1)}
    return ProvenanceObservation("observed", source, tuple(position.get(sid) for sid in gold), unknown)


def recall_at(ranks: tuple[int | None, ...], k: int) -> bool:
    """Some evidence session ranks within the first ``k``."""
    return any(rank is not None and rank <= k for rank in ranks)
