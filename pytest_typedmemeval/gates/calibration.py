"""Calibration gate (GATES.md §3, marker ``tme_gate_calibration``): the BM25 saturation ceiling.

For every question the reference retriever (:mod:`..retrieval.bm25`: ``BM25Okapi`` over the
question's own haystack, a document is a session's turns joined, the query is the question text,
ties by session order) takes its top K_ref = 5 sessions; realised coverage is the share of the
question's gold among them. Questions without gold have no coverage: they are excluded and counted.

Per shape: mean coverage and its distribution. Gate: the mean must not exceed 0.90 unless the
vertical declares the shape exempt in :mod:`.declarations` (code, never the sidecar). The 0.50 floor
is a calibration target and only reported. ``scaffolding_dependence`` is the coverage with the echo
clause stripped from distractor sessions minus the coverage as shipped.

Rules: ``ceiling``, ``sidecar_mismatch``.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from ..corpus.loading import Corpus
from ..corpus.models import (
    AnswerKey,
    CorpusTurn,
    ExtensionBlock,
    QuestionRecord,
    Sidecar,
    format_corpus_date,
)
from ..retrieval.bm25 import K_REF, realised_coverage, session_document, top_k
from .declarations import Declared, VerticalDeclarations, declarations_for
from .result import GateResult, GateStatus, Refusal, SelfTestCase, control_case, defect_case

GATE = "calibration"
RULES: tuple[str, ...] = ("ceiling", "sidecar_mismatch")

SATURATION_CEILING = 0.90
"""GATES.md §3 / VERTICALS.md §4.9: per-shape mean coverage above this is saturated (gated)."""
TARGET_FLOOR = 0.50
"""VERTICALS.md §4.9: the band's lower edge; a calibration target, reported and never gated."""
SIDECAR_TOLERANCE = 1e-9
"""Recomputed coverage equals the sidecar's up to float noise; anything more is a different figure."""

_ECHO_ITEMS = r"[\w'-]+(?:,\s*[\w'-]+)"
_ECHO_LEAD_IN = r"[A-Za-z][A-Za-z' ]{0,40}:\s*"
ECHO_CLAUSE_PATTERN = re.compile(
    r"\s*(?:"
    rf"\((?:{_ECHO_LEAD_IN}{_ECHO_ITEMS}*|{_ECHO_ITEMS}+)\.?\)"
    r"|"
    rf"\[(?:{_ECHO_LEAD_IN}{_ECHO_ITEMS}*|{_ECHO_ITEMS}+)\.?\]"
    r")"
)
"""The echo clause (VERTICALS.md §4.2), e.g. ``(Also on my mind: a, b, c.)``: a round- or
square-bracketed unordered list of single words separated by commas, optionally introduced by a
short lead-in ending in a colon and optionally closed by a full stop. Without a lead-in the list
needs two or more words, so an ordinary parenthesis ("(twice)", "(see above)") is not an echo.
Stripping removes the whole clause, brackets included, and the whitespace before it, wherever it
sits in a turn."""


def strip_echo(text: str) -> str:
    """``text`` without its echo clauses (see :data:`ECHO_CLAUSE_PATTERN`)."""
    return ECHO_CLAUSE_PATTERN.sub("", text)


def has_echo(text: str) -> bool:
    return ECHO_CLAUSE_PATTERN.search(text) is not None


def question_coverage(record: QuestionRecord, *, strip_distractor_echo: bool = False) -> float | None:
    """Realised BM25 coverage of one question at K_ref (``None`` when it has no gold)."""
    gold = record.gold_session_indices
    if not gold:
        return None
    gold_set = set(gold)
    documents = []
    for index, session in enumerate(record.haystack_sessions):
        texts = [turn.content for turn in session]
        if strip_distractor_echo and index not in gold_set:
            texts = [strip_echo(text) for text in texts]
        documents.append(session_document(texts))
    return realised_coverage(gold, top_k(documents, record.question, K_REF))


def _quantile(ordered: Sequence[float], q: float) -> float:
    """Linear interpolation between order statistics (the 'inclusive' / type-7 definition)."""
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def distribution(values: Sequence[float], excluded: int) -> dict[str, float | int | None]:
    """Mean, min, quartiles, max, n and the number of excluded (gold-less) questions."""
    ordered = sorted(values)
    if not ordered:
        return {"n": 0, "n_excluded": excluded, "mean": None, "min": None, "q1": None,
                "median": None, "q3": None, "max": None}
    return {"n": len(ordered), "n_excluded": excluded, "mean": sum(ordered) / len(ordered),
            "min": ordered[0], "q1": _quantile(ordered, 0.25), "median": _quantile(ordered, 0.5),
            "q3": _quantile(ordered, 0.75), "max": ordered[-1]}


def _exemptions(declared: VerticalDeclarations) -> dict[str, Declared]:
    out: dict[str, Declared] = {}
    for item in declared.calibration_ceiling_exemptions:
        for shape in item.shapes or (item.name,):
            out[shape] = item
    return out


def check(corpus: Corpus, *, declared: VerticalDeclarations | None = None) -> GateResult:
    """Recompute BM25 coverage from the bytes; refuse saturated shapes and sidecar disagreements."""
    vertical = corpus.vertical.lower() if corpus.vertical else None
    declared = declared if declared is not None else declarations_for(vertical)
    exempt = _exemptions(declared)
    refusals: list[Refusal] = []
    notes: list[str] = []

    coverage: dict[str, float | None] = {}
    shipped: dict[str, list[float]] = defaultdict(list)
    stripped: dict[str, list[float]] = defaultdict(list)
    excluded: dict[str, int] = defaultdict(int)
    echoed: dict[str, bool] = defaultdict(bool)
    for record in corpus.records:
        shape = record.shape
        value = question_coverage(record)
        coverage[record.question_id] = value
        if value is None:
            excluded[shape] += 1
            continue
        shipped[shape].append(value)
        gold = set(record.gold_session_indices)
        if any(has_echo(turn.content) for i, session in enumerate(record.haystack_sessions)
               if i not in gold for turn in session):
            echoed[shape] = True
            bare = question_coverage(record, strip_distractor_echo=True)
            stripped[shape].append(bare if bare is not None else value)
        else:
            stripped[shape].append(value)

    shapes = sorted(set(shipped) | set(excluded))
    by_shape = {shape: distribution(shipped[shape], excluded[shape]) for shape in shapes}
    scaffolding: dict[str, float | None] = {}
    for shape in shapes:
        values = shipped[shape]
        scaffolding[shape] = (sum(stripped[shape]) / len(values) - sum(values) / len(values)
                              if values and echoed[shape] else None)

    applied: dict[str, str] = {}
    for shape in shapes:
        mean = by_shape[shape]["mean"]
        if mean is None:
            notes.append(f"{shape}: no question has gold ({excluded[shape]} excluded); coverage "
                         "undefined, not calibrated")
            continue
        assert isinstance(mean, float)
        if mean <= SATURATION_CEILING:
            continue
        if shape in exempt:
            applied[shape] = exempt[shape].reason
            notes.append(f"{shape}: ceiling exemption applied (mean coverage {mean:.3f}): "
                         f"{exempt[shape].reason}")
            continue
        refusals.append(Refusal("ceiling", shape, round(mean, 6), f"mean BM25 coverage at "
                                f"K_ref={K_REF} exceeds {SATURATION_CEILING} (saturated): raise the "
                                "shape's competition, or declare an exemption with its reason in "
                                "gates/declarations.py", vertical, shape))
    stale = sorted(shape for shape in exempt if shape not in applied)
    for shape in stale:
        notes.append(f"{shape}: ceiling exemption declared but not needed (shape absent or at or "
                     "below the ceiling); delete it from gates/declarations.py")
    below = sorted(shape for shape in shapes if by_shape[shape]["mean"] is not None
                   and float(by_shape[shape]["mean"] or 0.0) < TARGET_FLOOR)
    for shape in below:
        notes.append(f"{shape}: mean coverage {by_shape[shape]['mean']:.3f} below the "
                     f"{TARGET_FLOOR} target floor (reported, not gated)")

    refusals += _compare_sidecar(corpus, coverage, vertical, notes)
    measured: dict[str, Any] = {
        "k_ref": K_REF, "saturation_ceiling": SATURATION_CEILING, "target_floor": TARGET_FLOOR,
        "coverage_by_question": coverage, "coverage_by_shape": by_shape,
        "scaffolding_dependence": scaffolding, "below_target_floor": below,
        "exemptions_applied": applied, "stale_exemptions": stale,
        "excluded_no_gold": sum(excluded.values()),
    }
    status: GateStatus = "refused" if refusals else "passed"
    return GateResult(GATE, corpus.corpus_id, status, tuple(refusals), measured, tuple(notes))


def _compare_sidecar(corpus: Corpus, coverage: dict[str, float | None], vertical: str | None,
                     notes: list[str]) -> list[Refusal]:
    sidecar = corpus.sidecar
    out: list[Refusal] = []
    if sidecar is None or not sidecar.coverage_by_question:
        notes.append("sidecar has no coverage_by_question to compare (recomputed in measured)")
    else:
        claimed = sidecar.coverage_by_question
        for qid in sorted(set(coverage) | set(claimed)):
            ours = coverage.get(qid)
            if qid not in claimed or qid not in coverage:
                where = "sidecar" if qid not in claimed else "corpus"
                out.append(Refusal("sidecar_mismatch", qid, claimed.get(qid), f"question missing "
                                   f"from the {where}", vertical))
                continue
            theirs = claimed[qid]
            if (ours is None) != (theirs is None) or (
                    ours is not None and theirs is not None and abs(ours - theirs) > SIDECAR_TOLERANCE):
                out.append(Refusal("sidecar_mismatch", qid, theirs, f"sidecar coverage differs "
                                   f"from BM25 recomputed from the bytes ({ours})", vertical))
    if sidecar is not None and sidecar.k_ref != K_REF:
        out.append(Refusal("sidecar_mismatch", "k_ref", sidecar.k_ref, f"K_ref is {K_REF} for "
                           "every vertical", vertical))
    return out


# --- self-test ---------------------------------------------------------------------------------------

_START = datetime(2026, 2, 2, 10, 0)
_QUESTION = "Which ferry company runs the harbour crossing?"
_ECHO = " (Also on my mind: ferry, harbour, crossing, company, runs.)"
_OFF_TOPIC = ("I repotted the basil and the mint by the window.",
              "The bakery had sourdough again, so I bought two loaves.",
              "We repainted the fence a pale green colour.",
              "My cousin lent me a tent for the weekend trip.",
              "The library extended the loan on my atlas.",
              "I fixed the wobbly leg on the kitchen table.",
              "The plumber replaced a washer under the sink.",
              "I tried a new route for the morning walk.",
              "The choir moved rehearsals to the church hall.")


def _session(user: str, *, gold: bool = False) -> tuple[CorpusTurn, ...]:
    return (CorpusTurn(role="user", content=user, has_answer=gold),
            CorpusTurn(role="assistant", content="Thanks, noted."))


def _question(qid: str, shape: str, gold_at: int | None, *, echoed: int = 0,
              gold_text: str = "The harbour crossing ferry company that runs it is Pellham Lines."
              ) -> QuestionRecord:
    """Ten sessions; ``echoed`` distractors carry the echo clause of the question's words."""
    sessions: list[tuple[CorpusTurn, ...]] = []
    distractor = 0
    for index in range(10):
        if index == gold_at:
            sessions.append(_session(gold_text, gold=True))
            continue
        text = _OFF_TOPIC[distractor % len(_OFF_TOPIC)]
        sessions.append(_session(text + (_ECHO if distractor < echoed else "")))
        distractor += 1
    ids = tuple(f"c{index:02d}" for index in range(10))
    dates = tuple(format_corpus_date(_START + timedelta(days=2 * i)) for i in range(10))
    gold_ids = (ids[gold_at],) if gold_at is not None else ()
    key = AnswerKey(accepted=("Pellham Lines",)) if gold_at is not None else \
        AnswerKey(expected_negative="abstain")
    return QuestionRecord.model_construct(
        question_id=qid, question_type=shape, question=_QUESTION,
        answer="Pellham Lines" if gold_at is not None else "You never told me.",
        question_date=format_corpus_date(_START + timedelta(days=30)),
        haystack_session_ids=ids, haystack_dates=dates, haystack_sessions=tuple(sessions),
        answer_session_ids=gold_ids,
        typedmemeval=ExtensionBlock(vertical="episodic", shape=shape, answer_key=key))


def _corpus(records: Sequence[QuestionRecord], **sidecar: Any) -> Corpus:
    text = json.dumps([r.model_dump(mode="json") for r in records], sort_keys=True)
    sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return Corpus(corpus_id="selftest-calibration", path=Path("<self-test>"), sha256=sha,
                  records=tuple(records),
                  sidecar=Sidecar(corpus_id="selftest-calibration", revision=1, sha256=sha,
                                  vertical="episodic", **sidecar),
                  vertical="episodic")


_HARD = "I went with the ferry in the end."
"""A gold that shares one question word; six echoing distractors outrank it."""


def _saturated() -> list[QuestionRecord]:
    return [_question(f"tme-epi-{i + 1:03d}", "saturated", (3 * i + 1) % 10) for i in range(4)]


def _moderate() -> list[QuestionRecord]:
    records = [_question(f"tme-epi-{i + 11:03d}", "moderate", (3 * i + 2) % 10, echoed=2)
               for i in range(3)]
    records.append(_question("tme-epi-014", "moderate", 8, echoed=7, gold_text=_HARD))
    records.append(_question("tme-epi-015_abs", "moderate", None, echoed=2))
    return records


def _buried() -> list[QuestionRecord]:
    return [_question(f"tme-epi-{i + 21:03d}", "buried", (2 * i + 1) % 10, echoed=7,
                      gold_text=_HARD) for i in range(4)]


def self_test() -> list[SelfTestCase]:
    """Known calibration defects refused by the intended rule; controls that must pass."""
    exemption = VerticalDeclarations(calibration_ceiling_exemptions=(Declared(
        name="saturated", reason="self-test: the shape quotes its gold by design, declared here to "
        "show an exemption lifts the ceiling and is reported"),))
    cases = [
        defect_case("saturated shape (gold shares every question word, coverage 1.0)",
                    check(_corpus(_saturated()), declared=VerticalDeclarations()), "ceiling"),
        control_case("saturated shape with a declared ceiling exemption",
                     check(_corpus(_saturated()), declared=exemption)),
    ]
    moderate = _moderate()
    clean = check(_corpus(moderate), declared=VerticalDeclarations())
    cases.append(control_case("clean shape at moderate coverage (0.75, one gold-less excluded)",
                              clean))
    claimed: dict[str, float | None] = dict(clean.measured["coverage_by_question"])
    claimed["tme-epi-014"] = 1.0
    cases.append(defect_case("sidecar claims a different coverage",
                             check(_corpus(moderate, coverage_by_question=claimed),
                                   declared=VerticalDeclarations()), "sidecar_mismatch"))
    buried = check(_corpus(_buried()), declared=VerticalDeclarations())
    reported = buried.measured.get("below_target_floor") == ["buried"]
    cases.append(SelfTestCase(
        "shape far below the 0.50 floor passes and is reported", "control", None,
        buried.passed and reported,
        f"status {buried.status}; below_target_floor {buried.measured.get('below_target_floor')}"))
    return cases


__all__ = ["ECHO_CLAUSE_PATTERN", "GATE", "RULES", "SATURATION_CEILING", "TARGET_FLOOR", "check",
           "distribution", "has_echo", "question_coverage", "self_test", "strip_echo"]
