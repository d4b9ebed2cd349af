"""Calibration gate (GATES.md §3, marker ``tme_gate_calibration``): the saturation ceiling.

For every question the reference retriever (:mod:`..retrieval.bm25`: ``BM25Okapi`` over the
question's own haystack, a document is a session's turns joined, the query is the question text,
ties by session order) takes its top K_ref = 5 sessions; realised coverage is the share of the
question's gold among them. Questions without gold have no coverage: they are excluded and counted.

Per shape: mean coverage and its distribution. Gate: the mean must not exceed 0.90 unless the
vertical declares the shape exempt in :mod:`.declarations` (code, never the sidecar). The 0.50 floor
is a calibration target and only reported (for the reference BM25). ``scaffolding_dependence`` is
the coverage with the echo clause stripped from distractor sessions minus the coverage as shipped.

**The retriever panel** (VERTICALS.md Appendix C, revising §4.9; :mod:`..retrieval.panel`). Every
corpus is measured under the whole panel: rank_bm25 ``BM25Okapi``, ``BM25Plus``, ``BM25L``, a
Lucene-style idf BM25, and the dense all-MiniLM-L6-v2 retriever when the ``[dense]`` extra is
installed (else from the dense figures stamped in the sidecar at generation; re-checked against
the stamp whenever the extra is present). Per shape the measured block gives each retriever's mean
coverage, the maximum and the retriever that gave it. Which rule is *enforced* depends on the
corpus revision, read from the ``-v<N>`` suffix of its id:

- **v3 on** (and an id without a revision: the newest rule): the ceiling applies to the maximum
  over the *whole* panel of VERTICALS.md Appendix D (GATES.md §7, last sentence): the five above
  plus ``bm25-english`` (English analyzer: stopwords, Snowball stemming), ``bm25-sentence``
  (sentence-level BM25, a session scores its best sentence), ``bm25-valuefiltered`` (BM25 after
  deleting every sentence without a value-like token) and ``hybrid-rrf`` (reciprocal rank fusion,
  k = 60, of the reference BM25 and the dense ranking). The hybrid arm exists only with the dense
  arm: fused from the dense arm's own rankings when the extra is installed (no second embedding
  pass), else read from its sidecar stamp (``extra["retriever_panel"]["hybrid"]``, written beside
  the dense stamp by the generator from revision 3); a missing dense *or* hybrid measurement makes
  the gate *not measured*, never ``passed``.
- **v2** (the rule it was certified under): the ceiling applies to the maximum over the revision-2
  panel (Okapi, BM25+, BM25L, Lucene, dense). A missing dense measurement (no stamp, no extra)
  makes the gate *not measured* — ``skipped`` with the reason, never ``passed``. The Appendix D
  members are measured and reported (``measured["panel"]``, per shape, and a note listing the
  shapes where the whole panel's maximum exceeds the ceiling) and change nothing in the verdict: a
  missing hybrid stamp is reported, a hybrid stamp that disagrees is noted, not refused.
- **v1 and v0** (the rule they were certified under): the ceiling applies to ``BM25Okapi`` only.
  The panel is still measured and reported, and the measured block and the notes say that the
  panel was not enforced and list the shapes where its maximum exceeds the ceiling, so a v1 pass is
  never read as a panel pass.

Exemptions keep their reasons under either rule. Rules: ``ceiling``, ``sidecar_mismatch``.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from ..corpus.loading import Corpus
from ..corpus.models import QuestionRecord, Sidecar
from ..retrieval import panel
from ..retrieval.bm25 import K_REF, realised_coverage, session_document, top_k
from ..retrieval.panel import (
    DENSE_NAME,
    HYBRID_NAME,
    PANEL_NAMES,
    REFERENCE,
    WHOLE_LEXICAL_PANEL,
    WHOLE_PANEL_NAMES,
    Retriever,
)
from .declarations import Declared, VerticalDeclarations, declarations_for
from .result import GateResult, GateStatus, Refusal, SelfTestCase, control_case, defect_case
# the self-test's corpora and case checks
from .selftest.calibration import (
    _buried, _content_free, _inflected, _moderate, _not_measured_case, _okapi_quirk, _one_sentence,
    _saturated
)

GATE = "calibration"
RULES: tuple[str, ...] = ("ceiling", "sidecar_mismatch")

SATURATION_CEILING = 0.90
"""GATES.md §3 / VERTICALS.md §4.9: per-shape mean coverage above this is saturated (gated)."""
TARGET_FLOOR = 0.50
"""VERTICALS.md §4.9: the band's lower edge; a calibration target, reported and never gated."""
SIDECAR_TOLERANCE = 1e-9
"""Recomputed coverage equals the sidecar's up to float noise; anything more is a different figure."""
PANEL_FROM_REVISION = 2
"""VERTICALS.md Appendix C: the panel ceiling binds from the v2 corpora on."""
WHOLE_PANEL_FROM_REVISION = 3
"""VERTICALS.md Appendix D: the ceiling binds the whole panel (Appendix D members included) from
the v3 corpora on."""
DENSE_ENV = "TYPEDMEMEVAL_DENSE"
"""Set to ``0`` / ``off`` to leave the dense arm unmeasured even with the extra installed (its
stamp, if any, is then used unchecked; a v2 corpus without one is *not measured*)."""
STAMP_KEY = "retriever_panel"
"""Where the generator stamps the panel's model-backed figures: ``sidecar.extra["retriever_panel"]``
holds ``"dense"`` (from revision 2) and ``"hybrid"`` (from revision 3), each ``{"status":
"measured", "retriever", "k_ref", "coverage_by_question", "mean_by_shape"}`` or ``{"status":
"not_measured", "reason"}``."""
_REVISION_SUFFIX = re.compile(r"-v(\d+)$")

DenseChoice = Retriever | Literal["auto"] | None
"""``"auto"``: the dense retriever when the extra is installed (and not disabled by
:data:`DENSE_ENV`); a :class:`~..retrieval.panel.Retriever`: that one; ``None``: none (the extra is
treated as absent, so only a sidecar stamp can supply the dense arm)."""

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


def _dense_disabled() -> bool:
    return os.environ.get(DENSE_ENV, "").strip().lower() in ("0", "off", "false", "no")


def resolve_dense(dense: DenseChoice = "auto") -> tuple[Retriever | None, str | None]:
    """The dense retriever to measure with, or ``None`` and the reason there is none."""
    if dense is None:
        return None, "no dense retriever (the [dense] extra is treated as absent)"
    if dense != "auto":
        assert not isinstance(dense, str)
        return dense, None
    if _dense_disabled():
        return None, f"dense measurement disabled by {DENSE_ENV}={os.environ.get(DENSE_ENV)}"
    from ..retrieval import dense as dense_module

    if not dense_module.available():
        return None, dense_module.unavailable_reason()
    try:
        return dense_module.DenseRetriever(), None
    except dense_module.DenseUnavailable as error:
        return None, str(error)


def _measured_stamp(retriever: Retriever, records: Sequence[QuestionRecord],
                    coverage: dict[str, float | None]) -> dict[str, Any]:
    return {"status": "measured", "retriever": retriever.describe(), "k_ref": K_REF,
            "coverage_by_question": coverage,
            "mean_by_shape": panel.mean_by_shape(records, coverage)}


def panel_stamp(records: Sequence[QuestionRecord], dense: DenseChoice = "auto", *,
                hybrid: bool = True) -> dict[str, dict[str, Any]]:
    """What a generator stamps in ``sidecar.extra["retriever_panel"]``: ``"dense"`` (see
    :func:`dense_stamp`) and, with ``hybrid`` (revision 3 on), ``"hybrid"``: the ``hybrid-rrf``
    arm's coverage fused from the *same* dense rankings (one embedding pass for both), or
    ``not_measured`` with the reason whenever the dense arm is not measured."""
    retriever, reason = resolve_dense(dense)
    if retriever is None:
        out: dict[str, dict[str, Any]] = {"dense": {"status": "not_measured", "reason": reason}}
        if hybrid:
            out["hybrid"] = {"status": "not_measured", "reason": "the hybrid arm fuses the dense "
                             f"arm's rankings and the dense arm is not measured: {reason}"}
        return out
    rankings = panel.question_rankings(records, retriever)
    out = {"dense": _measured_stamp(retriever, records,
                                    panel.coverage_from_rankings(records, rankings))}
    if hybrid:
        fusion = panel.HybridRRF(retriever)
        out["hybrid"] = _measured_stamp(fusion, records,
                                        panel.hybrid_coverage(records, fusion, rankings))
    return out


def dense_stamp(records: Sequence[QuestionRecord], dense: DenseChoice = "auto") -> dict[str, Any]:
    """What a generator stamps in ``sidecar.extra["retriever_panel"]["dense"]``: the dense arm's
    coverage per question and per shape with the retriever's identity, or ``not_measured`` with
    the reason (VERTICALS.md Appendix C: measured at generation time with the optional extra)."""
    return panel_stamp(records, dense, hybrid=False)["dense"]


def _stamped(sidecar: Sidecar | None, arm: str) -> dict[str, Any] | None:
    block = sidecar.extra.get(STAMP_KEY) if sidecar is not None else None
    stamp = block.get(arm) if isinstance(block, dict) else None
    return stamp if isinstance(stamp, dict) else None


def _stamped_dense(sidecar: Sidecar | None) -> dict[str, Any] | None:
    return _stamped(sidecar, "dense")


def _usable(stamp: dict[str, Any] | None) -> dict[str, Any] | None:
    """The stamp when it holds figures (``measured`` with a coverage table), else ``None``."""
    return stamp if stamp is not None and stamp.get("status") == "measured" and isinstance(
        stamp.get("coverage_by_question"), dict) else None


def _from_stamp(arm: str, stamped: dict[str, Any], corpus: Corpus,
                vertical: str | None) -> tuple[dict[str, float | None], list[Refusal]]:
    coverage = {str(k): (None if v is None else float(v))
                for k, v in stamped["coverage_by_question"].items()}
    missing = sorted({r.question_id for r in corpus.records} - set(coverage))
    found = [Refusal("sidecar_mismatch", f"{arm}:{missing[0]}", None, f"the {arm} stamp lacks "
                     f"{len(missing)} question(s) of the corpus", vertical)] if missing else []
    return coverage, found


def _not_measured_info(arm: str, reason: str | None, stamp: dict[str, Any] | None) -> dict[str, Any]:
    why = reason or "unknown"
    if stamp is not None and stamp.get("status") == "not_measured":
        why = f"{why}; the sidecar stamp says not measured: {stamp.get('reason')}"
    else:
        why = f"{why}; no {arm} stamp in the sidecar"
    return {"status": "not_measured", "reason": why}


def _dense_arm(corpus: Corpus, dense: DenseChoice, vertical: str | None, refusals: list[Refusal],
               notes: list[str]) -> tuple[dict[str, float | None] | None, dict[str, Any],
                                          Retriever | None, dict[str, list[int]] | None, str | None]:
    """The dense arm's coverage by question (``None`` when not measured), its report block, and
    for the hybrid arm the retriever with its rankings (``None`` unless recomputed here) or the
    reason there are none.

    Recomputed when a dense retriever is at hand and compared with the stamp (a disagreement is a
    ``sidecar_mismatch``); else the stamp's figures; else not measured."""
    stamp = _stamped_dense(corpus.sidecar)
    stamped = _usable(stamp)
    retriever, reason = resolve_dense(dense)
    if retriever is not None:
        try:
            rankings = panel.question_rankings(corpus.records, retriever)
            ours = panel.coverage_from_rankings(corpus.records, rankings)
        except Exception as error:  # noqa: BLE001 - an unmeasured arm is reported, never a pass
            retriever, reason = None, f"the dense retriever failed: {type(error).__name__}: {error}"
        else:
            info: dict[str, Any] = {"status": "measured", "source": "recomputed from the bytes",
                                    "retriever": retriever.describe()}
            if stamped is not None:
                info["stamp"] = "re-checked against the sidecar stamp"
                refusals += _compare_stamp(DENSE_NAME, stamped, ours, retriever.describe(),
                                           vertical)
            else:
                info["stamp"] = "none in the sidecar"
            return ours, info, retriever, rankings, None
    if stamped is not None:
        notes.append(f"{DENSE_NAME}: figures read from the sidecar stamp, not re-checked ({reason})")
        coverage, found = _from_stamp(DENSE_NAME, stamped, corpus, vertical)
        refusals += found
        return coverage, {"status": "stamped", "source": "sidecar stamp (not re-checked: "
                          f"{reason})", "retriever": stamped.get("retriever")}, None, None, reason
    return None, _not_measured_info("dense", reason, stamp), None, None, reason


def _hybrid_arm(corpus: Corpus, retriever: Retriever | None,
                rankings: dict[str, list[int]] | None, reason: str | None, binding: bool,
                vertical: str | None, refusals: list[Refusal],
                notes: list[str]) -> tuple[dict[str, float | None] | None, dict[str, Any]]:
    """The hybrid arm's coverage by question (``None`` when not measured) and its report block.

    Fused here from the dense arm's own rankings when the dense arm was recomputed (no second
    embedding pass) and compared with the hybrid stamp; else the stamp's figures; else not
    measured. Where the hybrid arm does not bind (``binding`` false: before revision 3) a stamp
    that disagrees is noted, never refused: it must not change that revision's verdict."""
    stamp = _stamped(corpus.sidecar, "hybrid")
    stamped = _usable(stamp)
    found: list[Refusal] = []
    result: tuple[dict[str, float | None] | None, dict[str, Any]]
    if retriever is not None and rankings is not None:
        fusion = panel.HybridRRF(retriever)
        ours = panel.hybrid_coverage(corpus.records, fusion, rankings)
        info: dict[str, Any] = {"status": "measured", "source": "fused from the dense arm's "
                                "rankings (one embedding pass for both arms)",
                                "retriever": fusion.describe()}
        if stamped is not None:
            info["stamp"] = "re-checked against the sidecar stamp"
            found = _compare_stamp(HYBRID_NAME, stamped, ours, fusion.describe(), vertical)
        else:
            info["stamp"] = "none in the sidecar"
        result = (ours, info)
    elif stamped is not None:
        notes.append(f"{HYBRID_NAME}: figures read from the sidecar stamp, not re-checked "
                     f"({reason})")
        coverage, found = _from_stamp(HYBRID_NAME, stamped, corpus, vertical)
        result = (coverage, {"status": "stamped", "source": "sidecar stamp (not re-checked: "
                             f"{reason})", "retriever": stamped.get("retriever")})
    else:
        reason = f"the hybrid arm fuses the dense arm's rankings, which are not at hand: {reason}"
        result = (None, _not_measured_info("hybrid", reason, stamp))
    if binding:
        refusals += found
    elif found:
        notes.append(f"{HYBRID_NAME}: the sidecar's hybrid stamp disagrees ({len(found)} "
                     f"finding(s), first {found[0].subject}: {found[0].detail}); informational "
                     f"before revision {WHOLE_PANEL_FROM_REVISION}, not refused")
    return result


def _weights_sha256(described: dict[str, Any] | None) -> Any:
    described = described or {}
    nested = described.get("dense")
    return described.get("weights_sha256", (nested or {}).get("weights_sha256")
                         if isinstance(nested, dict) else None)


def _compare_stamp(arm: str, stamped: dict[str, Any], ours: dict[str, float | None],
                   described: dict[str, Any], vertical: str | None) -> list[Refusal]:
    """A model-backed arm's stamp against its figures recomputed here: same weights, same K_ref,
    (hybrid) same fusion constant, and the same coverage for every question."""
    out: list[Refusal] = []
    theirs_described = stamped.get("retriever") or {}
    theirs_id = _weights_sha256(theirs_described)
    if theirs_id is not None and theirs_id != _weights_sha256(described):
        out.append(Refusal("sidecar_mismatch", f"{arm}:weights_sha256", theirs_id,
                           f"the {arm} stamp was measured with other weights than the installed "
                           f"{_weights_sha256(described)}", vertical))
    theirs_k = (theirs_described.get("params") or {}).get("k") if arm == HYBRID_NAME else None
    if theirs_k is not None and theirs_k != (described.get("params") or {}).get("k"):
        out.append(Refusal("sidecar_mismatch", f"{arm}:k", theirs_k, f"the {arm} stamp fused with "
                           f"another rank-fusion constant than {panel.RRF_K}", vertical))
    if stamped.get("k_ref", K_REF) != K_REF:
        out.append(Refusal("sidecar_mismatch", f"{arm}:k_ref", stamped.get("k_ref"),
                           f"K_ref is {K_REF} for every vertical", vertical))
    claimed = stamped["coverage_by_question"]
    label = "dense" if arm == DENSE_NAME else arm
    for qid in sorted(set(ours) | set(claimed)):
        if qid not in claimed or qid not in ours:
            where = f"{label} stamp" if qid not in claimed else "corpus"
            out.append(Refusal("sidecar_mismatch", f"{arm}:{qid}", claimed.get(qid),
                               f"question missing from the {where}", vertical))
            continue
        mine, theirs = ours[qid], claimed[qid]
        if (mine is None) != (theirs is None) or (
                mine is not None and theirs is not None and abs(mine - theirs) > SIDECAR_TOLERANCE):
            out.append(Refusal("sidecar_mismatch", f"{arm}:{qid}", theirs, f"stamped {label} "
                               f"coverage differs from the {label} retriever recomputed ({mine})",
                               vertical))
    return out


def _best(row: dict[str, Any], names: Sequence[str]) -> tuple[float | None, str | None]:
    present = [(value, name) for name in names for value in (row[name],) if value is not None]
    best = max(present, key=lambda item: item[0], default=None)  # first in panel order on ties
    return (best[0], best[1]) if best else (None, None)


def _panel_by_shape(corpus: Corpus, shapes: Sequence[str], coverage: dict[str, dict[str, float | None]],
                    reference: dict[str, Any], max_over: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Per shape: each retriever's mean (every member of the whole panel, ``None`` when not
    measured), ``max``/``max_by`` over ``max_over`` (the members the revision's rule names) and
    ``whole_max``/``whole_max_by`` over the whole panel. The reference's means are the
    ``coverage_by_shape`` figures themselves (same float, not a re-summation)."""
    means = {name: panel.mean_by_shape(corpus.records, values) for name, values in coverage.items()
             if name != REFERENCE}
    means[REFERENCE] = {shape: row["mean"] for shape, row in reference.items()}
    out: dict[str, dict[str, Any]] = {}
    for shape in shapes:
        row: dict[str, Any] = {name: (means[name].get(shape) if name in means else None)
                               for name in WHOLE_PANEL_NAMES}
        row["max"], row["max_by"] = _best(row, max_over)
        row["whole_max"], row["whole_max_by"] = _best(row, WHOLE_PANEL_NAMES)
        out[shape] = row
    return out


def check(corpus: Corpus, *, declared: VerticalDeclarations | None = None,
          dense: DenseChoice = "auto") -> GateResult:
    """Recompute coverage from the bytes under the whole panel; refuse saturated shapes (by the
    rule the corpus revision binds) and sidecar disagreements (module docstring)."""
    vertical = corpus.vertical.lower() if corpus.vertical else None
    declared = declared if declared is not None else declarations_for(vertical)
    exempt = _exemptions(declared)
    refusals: list[Refusal] = []
    notes: list[str] = []
    revision = corpus_revision(corpus.corpus_id)
    enforce_panel = panel_enforced(revision)
    enforce_whole = whole_panel_enforced(revision)
    max_over = WHOLE_PANEL_NAMES if enforce_whole else PANEL_NAMES

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

    # The panel: the reference's figures are the ones above; the others are ranked here (every
    # lexical member at every revision: what does not bind is reported).
    panel_coverage: dict[str, dict[str, float | None]] = {REFERENCE: coverage}
    for retriever in WHOLE_LEXICAL_PANEL:
        if retriever.name != REFERENCE:
            panel_coverage[retriever.name] = panel.coverage_by_question(corpus.records, retriever)
    dense_coverage, dense_info, dense_retriever, dense_rankings, dense_reason = _dense_arm(
        corpus, dense, vertical, refusals, notes)
    if dense_coverage is not None:
        panel_coverage[DENSE_NAME] = dense_coverage
    hybrid_coverage, hybrid_info = _hybrid_arm(corpus, dense_retriever, dense_rankings,
                                               dense_reason, enforce_whole, vertical, refusals,
                                               notes)
    if hybrid_coverage is not None:
        panel_coverage[HYBRID_NAME] = hybrid_coverage
    panel_shapes = _panel_by_shape(corpus, shapes, panel_coverage, by_shape, max_over)
    over_panel = {shape: {"max": row["max"], "max_by": row["max_by"]}
                  for shape, row in panel_shapes.items()
                  if row["max"] is not None and row["max"] > SATURATION_CEILING}
    over_whole = {shape: {"max": row["whole_max"], "max_by": row["whole_max_by"]}
                  for shape, row in panel_shapes.items()
                  if row["whole_max"] is not None and row["whole_max"] > SATURATION_CEILING}

    applied: dict[str, str] = {}
    for shape in shapes:
        mean = by_shape[shape]["mean"]
        if mean is None:
            notes.append(f"{shape}: no question has gold ({excluded[shape]} excluded); coverage "
                         "undefined, not calibrated")
            continue
        assert isinstance(mean, float)
        figure, by = (panel_shapes[shape]["max"], panel_shapes[shape]["max_by"]) if enforce_panel \
            else (mean, REFERENCE)
        if figure <= SATURATION_CEILING:
            continue
        if shape in exempt:
            applied[shape] = exempt[shape].reason
            notes.append(f"{shape}: ceiling exemption applied ({'panel max' if enforce_panel else 'mean'}"
                         f" coverage {figure:.3f}, {by}): {exempt[shape].reason}")
            continue
        if enforce_whole:
            detail = (f"max per-shape mean coverage over the whole retriever panel at K_ref={K_REF} "
                      f"is {figure:.3f} ({by}; {REFERENCE} {mean:.3f}) and exceeds "
                      f"{SATURATION_CEILING} (saturated; VERTICALS.md Appendix D): raise the "
                      "shape's value-carrying competition, or declare an exemption with its reason "
                      "in gates/declarations.py")
        elif enforce_panel:
            detail = (f"max per-shape mean coverage over the retriever panel at K_ref={K_REF} is "
                      f"{figure:.3f} ({by}; {REFERENCE} {mean:.3f}) and exceeds {SATURATION_CEILING}"
                      " (saturated; VERTICALS.md Appendix C): raise the shape's topical "
                      "competition, or declare an exemption with its reason in gates/declarations.py")
        else:
            detail = (f"mean BM25 coverage at K_ref={K_REF} exceeds {SATURATION_CEILING} (saturated): "
                      "raise the shape's competition, or declare an exemption with its reason in "
                      "gates/declarations.py")
        refusals.append(Refusal("ceiling", shape, round(figure, 6), detail, vertical, shape))
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

    listed = ", ".join(f"{shape} ({row['max_by']} {row['max']:.3f}"
                       f"{'; declared exempt' if shape in exempt else ''})"
                       for shape, row in over_panel.items()) or "none"
    dense_state = dense_info["status"]
    hybrid_state = hybrid_info["status"]
    if enforce_whole:
        enforced = (f"whole panel: the ceiling applies to the max over "
                    f"{', '.join(WHOLE_PANEL_NAMES)} (revision "
                    f"{revision if revision is not None else 'not named in the id'}; VERTICALS.md "
                    f"Appendix D binds from v{WHOLE_PANEL_FROM_REVISION})")
    elif enforce_panel:
        enforced = (f"panel: the ceiling applies to the max over {', '.join(PANEL_NAMES)} "
                    f"(revision {revision if revision is not None else 'not named in the id'}; "
                    f"VERTICALS.md Appendix C binds from v{PANEL_FROM_REVISION})")
    else:
        enforced = (f"v1 rule: the ceiling applies to {REFERENCE} (rank_bm25 Okapi) only; the "
                    f"retriever panel is measured and reported, NOT enforced (revision {revision} < "
                    f"{PANEL_FROM_REVISION}; VERTICALS.md Appendix C binds from v{PANEL_FROM_REVISION})")
        notes.insert(0, f"{enforced}. Shapes over the {SATURATION_CEILING} ceiling under the panel: "
                     f"{listed}; dense arm {dense_state}"
                     + (f" ({dense_info.get('reason')})" if dense_state == "not_measured" else "")
                     + (". A pass here is not a panel pass." if over_panel or
                        dense_state == "not_measured" else
                        ". The panel is within the ceiling on every shape."))
    if not enforce_whole:
        informational = [name for name in WHOLE_PANEL_NAMES if name not in PANEL_NAMES]
        listed_whole = ", ".join(f"{shape} ({row['max_by']} {row['max']:.3f}"
                                 f"{'; declared exempt' if shape in exempt else ''})"
                                 for shape, row in over_whole.items()) or "none"
        notes.insert(0 if enforce_panel else 1,
                     f"Appendix D panel members ({', '.join(informational)}) measured and reported, "
                     f"NOT enforced (revision {revision} < {WHOLE_PANEL_FROM_REVISION}; VERTICALS.md "
                     f"Appendix D binds from v{WHOLE_PANEL_FROM_REVISION}). Shapes over the "
                     f"{SATURATION_CEILING} ceiling under the whole panel: {listed_whole}; hybrid "
                     f"arm {hybrid_state}"
                     + (f" ({hybrid_info.get('reason')})" if hybrid_state == "not_measured" else "")
                     + ".")
    not_measured: list[dict[str, Any]] = []
    skip_reason = None
    gold_ids = sorted(qid for qid, value in coverage.items() if value is not None)
    arms = [(DENSE_NAME, dense_info)] if enforce_panel else []
    if enforce_whole:
        arms.append((HYBRID_NAME, hybrid_info))
    for arm, info in arms:
        if info["status"] == "not_measured":
            not_measured.append({"arm": arm, "reason": info["reason"], "question_ids": gold_ids})
    if not_measured:
        names = " and ".join(row["arm"] for row in not_measured)
        reasons = (not_measured[0]["reason"] if len(not_measured) == 1 else
                   "; ".join(f"{row['arm']}: {row['reason']}" for row in not_measured))
        rule = "whole-panel" if enforce_whole else "panel"
        skip_reason = (f"calibration not measured: the {names} arm{'s' if len(not_measured) > 1 else ''}"
                       f" of the retriever panel {'have' if len(not_measured) > 1 else 'has'} no "
                       f"measurement ({reasons}); the {rule} ceiling binds this revision, so the "
                       "lexical panel alone cannot pass it")

    measured: dict[str, Any] = {
        "k_ref": K_REF, "saturation_ceiling": SATURATION_CEILING, "target_floor": TARGET_FLOOR,
        "coverage_by_question": coverage, "coverage_by_shape": by_shape,
        "scaffolding_dependence": scaffolding, "below_target_floor": below,
        "exemptions_applied": applied, "stale_exemptions": stale,
        "excluded_no_gold": sum(excluded.values()),
        "revision": revision, "panel_enforced": enforce_panel, "enforced_rule": enforced,
        "panel": {
            "retrievers": [r.describe() for r in WHOLE_LEXICAL_PANEL]
            + [dense_info.get("retriever") or {"name": DENSE_NAME, "kind": "dense"}]
            + [hybrid_info.get("retriever") or {"name": HYBRID_NAME, "kind": "hybrid"}],
            "enforced_members": list(enforced_members(revision)),
            "max_over": list(max_over),
            "by_shape": panel_shapes,
            "over_ceiling": over_panel,
            "over_ceiling_whole_panel": over_whole,
            "dense": {key: value for key, value in dense_info.items() if key != "retriever"},
            "hybrid": {key: value for key, value in hybrid_info.items() if key != "retriever"},
            "coverage_by_question": {name: values for name, values in panel_coverage.items()
                                     if name != REFERENCE},
        },
        "not_measured": not_measured,
    }
    status: GateStatus
    if refusals:
        status = "refused"
        if skip_reason:
            notes.append(skip_reason)
            skip_reason = None
    elif skip_reason:
        status = "skipped"
    else:
        status = "passed"
    return GateResult(GATE, corpus.corpus_id, status, tuple(refusals), measured, tuple(notes),
                      skip_reason=skip_reason)


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


# --- self-test (its corpora: :mod:`.selftest.calibration`) ----------------------------------------


def _corpus(records: Sequence[QuestionRecord], *, revision: int = 1,
            dense_coverage: dict[str, float | None] | None = None,
            hybrid_coverage: dict[str, float | None] | None = None, **sidecar: Any) -> Corpus:
    """A self-test corpus named ``selftest-calibration-v<revision>``; ``dense_coverage`` and
    ``hybrid_coverage`` are stamped in its sidecar as the dense and hybrid arms' figures (as a
    generator with the extra would)."""
    text = json.dumps([r.model_dump(mode="json") for r in records], sort_keys=True)
    sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
    name = f"selftest-calibration-v{revision}"
    stamps: dict[str, Any] = {}
    if dense_coverage is not None:
        stamps["dense"] = {
            "status": "measured", "k_ref": K_REF, "coverage_by_question": dict(dense_coverage),
            "retriever": {"name": DENSE_NAME, "kind": "dense", "model": "self-test stamp"}}
    if hybrid_coverage is not None:
        stamps["hybrid"] = {
            "status": "measured", "k_ref": K_REF, "coverage_by_question": dict(hybrid_coverage),
            "retriever": {"name": HYBRID_NAME, "kind": "hybrid", "params": {"k": panel.RRF_K},
                          "dense": {"model": "self-test stamp"}}}
    if stamps:
        extra = dict(sidecar.pop("extra", {}))
        extra[STAMP_KEY] = stamps
        sidecar["extra"] = extra
    return Corpus(corpus_id=name, path=Path("<self-test>"), sha256=sha, records=tuple(records),
                  sidecar=Sidecar(corpus_id=name, revision=revision, sha256=sha,
                                  vertical="episodic", **sidecar),
                  vertical="episodic")


def _reference_coverage(records: Sequence[QuestionRecord]) -> dict[str, float | None]:
    return {record.question_id: question_coverage(record) for record in records}


def _stamped_v3(records: Sequence[QuestionRecord], **sidecar: Any) -> Corpus:
    """A revision-3 corpus whose dense and hybrid stamps are well inside the ceiling (the
    reference's own figures), so only the lexical arms can decide."""
    reference = _reference_coverage(records)
    return _corpus(records, revision=3, dense_coverage=reference, hybrid_coverage=reference,
                   **sidecar)


def _saturates_only(name: str, result: GateResult, shape: str, member: str) -> SelfTestCase:
    """Refused by the ceiling on ``shape`` because of ``member``, and ``member`` alone: every
    other arm of the whole panel is at or under the ceiling (so the case proves the new arm is
    what catches it)."""
    row = result.measured.get("panel", {}).get("by_shape", {}).get(shape, {})
    others = {n: row.get(n) for n in WHOLE_PANEL_NAMES if n != member}
    ok = (result.status == "refused" and result.refused_rules() == {"ceiling"}
          and row.get("max_by") == member and (row.get(member) or 0.0) > SATURATION_CEILING
          and all(value is not None and value <= SATURATION_CEILING for value in others.values()))
    return SelfTestCase(name, "defect", "ceiling", ok,
                        f"status {result.status}; fired {sorted(result.refused_rules())}; "
                        f"{member} {row.get(member)}; others {others}")


def self_test() -> list[SelfTestCase]:
    """Known calibration defects refused by the intended rule; controls that must pass.

    Every case is hermetic: ``dense=None`` treats the ``[dense]`` extra as absent, so the dense arm
    comes from a stamp in the sidecar or is not measured, whatever is installed."""
    none = VerticalDeclarations()
    exemption = VerticalDeclarations(calibration_ceiling_exemptions=(Declared(
        name="saturated", reason="self-test: the shape quotes its gold by design, declared here to "
        "show an exemption lifts the ceiling and is reported"),))
    cases = [
        defect_case("saturated shape (gold shares every question word, coverage 1.0)",
                    check(_corpus(_saturated()), declared=none, dense=None), "ceiling"),
        control_case("saturated shape with a declared ceiling exemption",
                     check(_corpus(_saturated()), declared=exemption, dense=None)),
    ]
    moderate = _moderate()
    clean = check(_corpus(moderate), declared=none, dense=None)
    cases.append(control_case("clean shape at moderate coverage (0.75, one gold-less excluded)",
                              clean))
    claimed: dict[str, float | None] = dict(clean.measured["coverage_by_question"])
    claimed["tme-epi-014"] = 1.0
    cases.append(defect_case("sidecar claims a different coverage",
                             check(_corpus(moderate, coverage_by_question=claimed),
                                   declared=none, dense=None), "sidecar_mismatch"))
    buried = check(_corpus(_buried()), declared=none, dense=None)
    reported = buried.measured.get("below_target_floor") == ["buried"]
    cases.append(SelfTestCase(
        "shape far below the 0.50 floor passes and is reported", "control", None,
        buried.passed and reported,
        f"status {buried.status}; below_target_floor {buried.measured.get('below_target_floor')}"))

    # The retriever panel (VERTICALS.md Appendix C): binding from v2, reported for v1.
    quirk = _okapi_quirk()
    quirk_dense = _reference_coverage(quirk)  # a dense stamp well inside the ceiling
    cases.append(defect_case(
        "v2 shape fine under Okapi (0.75) but over the ceiling under BM25+ (1.0)",
        check(_corpus(quirk, revision=2, dense_coverage=quirk_dense), declared=none, dense=None),
        "ceiling"))
    v1 = check(_corpus(quirk, revision=1), declared=none, dense=None)
    listed = v1.measured.get("panel", {}).get("over_ceiling", {})
    said = any("NOT enforced" in note and "okapi-quirk" in note for note in v1.notes)
    cases.append(SelfTestCase(
        "v1 rule: the same shape passes under Okapi alone and is listed as over the panel ceiling",
        "control", None, v1.passed and "okapi-quirk" in listed and said
        and v1.measured.get("panel_enforced") is False,
        f"status {v1.status}; over_ceiling {listed}; notes say so: {said}"))
    cases.append(control_case(
        "clean v2 corpus with its dense stamp (extra absent): passes under the panel",
        check(_corpus(moderate, revision=2, dense_coverage=_reference_coverage(moderate)),
              declared=none, dense=None)))
    cases.append(_not_measured_case(
        "v2 corpus without a dense stamp and without the extra is not measured, never passed",
        check(_corpus(moderate, revision=2), declared=none, dense=None)))
    saturated_dense = {qid: (1.0 if value is not None else None)
                       for qid, value in _reference_coverage(moderate).items()}
    cases.append(defect_case(
        "v2 corpus whose stamped dense coverage (1.0) exceeds the ceiling",
        check(_corpus(moderate, revision=2, dense_coverage=saturated_dense), declared=none,
              dense=None), "ceiling"))
    quirk_exempt = VerticalDeclarations(calibration_ceiling_exemptions=(Declared(
        name="okapi-quirk", reason="self-test: an exemption lifts the panel ceiling too and keeps "
        "its reason"),))
    exempted = check(_corpus(quirk, revision=2, dense_coverage=quirk_dense),
                     declared=quirk_exempt, dense=None)
    cases.append(SelfTestCase(
        "v2 exemption lifts the panel ceiling and keeps its reason", "control", None,
        exempted.passed and "keeps its reason" in
        exempted.measured.get("exemptions_applied", {}).get("okapi-quirk", ""),
        f"status {exempted.status}; applied {exempted.measured.get('exemptions_applied')}"))

    # The whole panel (VERTICALS.md Appendix D): binding from v3, reported for v2.
    inflected = _inflected()
    cases.append(_saturates_only(
        "v3 shape whose question inflects gold's words (booked/booking): only the English-analyzer "
        "BM25 finds gold (1.0)", check(_stamped_v3(inflected), declared=none, dense=None),
        "inflected", "bm25-english"))
    cases.append(_saturates_only(
        "v3 shape whose gold is one answering sentence in a long session: only sentence-level BM25 "
        "finds it (1.0)", check(_stamped_v3(_one_sentence()), declared=none, dense=None),
        "one-sentence", "bm25-sentence"))
    cases.append(_saturates_only(
        "v3 shape hard only through content-free mentions: only value-filtered BM25 finds gold "
        "(1.0)", check(_stamped_v3(_content_free()), declared=none, dense=None),
        "content-free", "bm25-valuefiltered"))
    cases.append(control_case(
        "clean v3 corpus with dense and hybrid stamps: passes under the whole panel",
        check(_stamped_v3(moderate), declared=none, dense=None)))
    v2 = check(_corpus(inflected, revision=2, dense_coverage=_reference_coverage(inflected)),
               declared=none, dense=None)
    whole = v2.measured.get("panel", {}).get("over_ceiling_whole_panel", {})
    said = any("NOT enforced" in note and "inflected (bm25-english" in note for note in v2.notes)
    cases.append(SelfTestCase(
        "v2 rule: the shape only the English analyzer saturates passes and is reported over the "
        "whole panel's ceiling", "control", None,
        v2.passed and whole.get("inflected", {}).get("max_by") == "bm25-english" and said,
        f"status {v2.status}; over_ceiling_whole_panel {whole}; notes say so: {said}"))
    cases.append(_not_measured_case(
        "v3 corpus with a dense stamp but no hybrid stamp (extra absent) is not measured",
        check(_corpus(moderate, revision=3, dense_coverage=_reference_coverage(moderate)),
              declared=none, dense=None), (HYBRID_NAME,)))
    cases.append(_not_measured_case(
        "v3 corpus with neither stamp nor the extra: dense and hybrid not measured",
        check(_corpus(moderate, revision=3), declared=none, dense=None),
        (DENSE_NAME, HYBRID_NAME)))
    cases.append(defect_case(
        "v3 corpus whose stamped hybrid coverage (1.0) exceeds the ceiling",
        check(_corpus(moderate, revision=3, dense_coverage=_reference_coverage(moderate),
                      hybrid_coverage=saturated_dense), declared=none, dense=None), "ceiling"))
    return cases


__all__ = ["DENSE_ENV", "ECHO_CLAUSE_PATTERN", "GATE", "PANEL_FROM_REVISION", "RULES",
           "SATURATION_CEILING", "STAMP_KEY", "TARGET_FLOOR", "WHOLE_PANEL_FROM_REVISION", "check",
           "corpus_revision", "dense_stamp", "distribution", "enforced_members", "has_echo",
           "panel_enforced", "panel_stamp", "question_coverage", "resolve_dense", "self_test",
           "strip_echo", "whole_panel_enforced"]
