"""The retriever panel's model-backed arms for the calibration gate: the dense retriever and the
hybrid (reciprocal rank fusion of the reference BM25 and the dense ranking).

Either arm is measured here when the ``[dense]`` extra is installed and checked against the
figures the generator stamped in the sidecar (``extra["retriever_panel"]``), or read from that
stamp, or reported *not measured*; never silently passed. :func:`panel_stamp` writes the stamp at
generation time. Apart from the gate (:mod:`.calibration`) because this is the part that depends
on an optional extra, an environment switch and sidecar data, while the gate's ceiling rule is pure
arithmetic over the figures this module hands it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, Literal

from ..corpus.loading import Corpus
from ..corpus.models import QuestionRecord, Sidecar
from ..retrieval import panel
from ..retrieval.bm25 import K_REF
from ..retrieval.panel import DENSE_NAME, HYBRID_NAME, Retriever
from .panel_revisions import WHOLE_PANEL_FROM_REVISION
from .result import Refusal

SIDECAR_TOLERANCE = 1e-9
"""Recomputed coverage equals the sidecar's up to float noise; anything more is a different figure."""
DENSE_ENV = "TYPEDMEMEVAL_DENSE"
"""Set to ``0`` / ``off`` to leave the dense arm unmeasured even with the extra installed (its
stamp, if any, is then used unchecked; a v2 corpus without one is *not measured*)."""
STAMP_KEY = "retriever_panel"
"""Where the generator stamps the panel's model-backed figures: ``sidecar.extra["retriever_panel"]``
holds ``"dense"`` (from revision 2) and ``"hybrid"`` (from revision 3), each ``{"status":
"measured", "retriever", "k_ref", "coverage_by_question", "mean_by_shape"}`` or ``{"status":
"not_measured", "reason"}``."""

DenseChoice = Retriever | Literal["auto"] | None
"""``"auto"``: the dense retriever when the extra is installed (and not disabled by
:data:`DENSE_ENV`); a :class:`~..retrieval.panel.Retriever`: that one; ``None``: none (the extra is
treated as absent, so only a sidecar stamp can supply the dense arm)."""


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


def dense_arm(corpus: Corpus, dense: DenseChoice, vertical: str | None, refusals: list[Refusal],
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


def hybrid_arm(corpus: Corpus, retriever: Retriever | None,
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


__all__ = ["DENSE_ENV", "SIDECAR_TOLERANCE", "STAMP_KEY", "DenseChoice", "dense_arm", "dense_stamp",
           "hybrid_arm", "panel_stamp", "resolve_dense"]
