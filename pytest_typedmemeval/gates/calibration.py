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
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..corpus.loading import Corpus
from ..corpus.models import QuestionRecord, Sidecar
from ..retrieval import panel
from ..retrieval.bm25 import K_REF
from ..retrieval.panel import (
    DENSE_NAME,
    HYBRID_NAME,
    PANEL_NAMES,
    REFERENCE,
    WHOLE_LEXICAL_PANEL,
    WHOLE_PANEL_NAMES,
)
from .declarations import Declared, VerticalDeclarations, declarations_for
from .model_backed_arms import (
    DENSE_ENV,
    SIDECAR_TOLERANCE,
    STAMP_KEY,
    DenseChoice,
    dense_arm,
    dense_stamp,
    hybrid_arm,
    panel_stamp,
    resolve_dense,
)
from .panel_revisions import (
    PANEL_FROM_REVISION,
    WHOLE_PANEL_FROM_REVISION,
    corpus_revision,
    enforced_members,
    panel_enforced,
    whole_panel_enforced,
)
from .reference_coverage import (
    ECHO_CLAUSE_PATTERN,
    distribution,
    has_echo,
    question_coverage,
    strip_echo,
)
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


def _exemptions(declared: VerticalDeclarations) -> dict[str, Declared]:
    out: dict[str, Declared] = {}
    for item in declared.calibration_ceiling_exemptions:
        for shape in item.shapes or (item.name,):
            out[shape] = item
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
    dense_coverage, dense_info, dense_retriever, dense_rankings, dense_reason = dense_arm(
        corpus, dense, vertical, refusals, notes)
    if dense_coverage is not None:
        panel_coverage[DENSE_NAME] = dense_coverage
    hybrid_coverage, hybrid_info = hybrid_arm(corpus, dense_retriever, dense_rankings,
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


# DenseChoice is listed because it now lives in .model_backed_arms and generate/sidecar.py
# annotates with calibration.DenseChoice (an unlisted import is not an export under mypy --strict).
__all__ = ["DENSE_ENV", "DenseChoice", "ECHO_CLAUSE_PATTERN", "GATE", "PANEL_FROM_REVISION", "RULES",
           "SATURATION_CEILING", "STAMP_KEY", "TARGET_FLOOR", "WHOLE_PANEL_FROM_REVISION", "check",
           "corpus_revision", "dense_stamp", "distribution", "enforced_members", "has_echo",
           "panel_enforced", "panel_stamp", "question_coverage", "resolve_dense", "self_test",
           "strip_echo", "whole_panel_enforced"]
