"""The sidecar a generator writes beside its corpus, computed from the FINAL corpus bytes.

VERTICALS.md §1.5. Every figure here is derived from the text that is written (never from the
generator's plan), with the same functions the gates use, so a gate that re-derives it from the
bytes finds the same number: the sha256 (:func:`..corpus.loading.corpus_sha256`), the ceiling table
(per shape, the mean of min(1, K_ref / G) over questions with gold, as ``gates/structure.py``
recomputes it), coverage per question (:func:`..gates.calibration.question_coverage`; ``None`` for
G = 0), V7 (:func:`..gates.separability.score_features` and ``check``), and the probe rows, which
say *not measured* for every applicable (shape, arm) because no model has been run on this
revision. Nothing here is a wall-clock figure: regenerating writes the same sidecar. From revision 2
on (VERTICALS.md Appendix C) the sidecar also stamps the dense arm of the calibration retriever
panel, measured with the ``[dense]`` extra (or stamped *not measured* without it, so a sidecar
written without the extra says so instead of differing silently); from revision 3 on (Appendix D)
the hybrid arm's figures are stamped beside the dense ones, with the same not-measured rule.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..corpus.loading import Corpus, corpus_sha256, normalised_bytes
from ..corpus.models import QuestionRecord, Sidecar
from ..corpus import naturalness
from ..corpus.text_stats import non_linguistic_share
from ..gates import adversaries
from ..gates import calibration as calibration_gate
from ..gates import separability
from ..gates.declarations import declarations_for
from ..gates.probes import GOLD_ARMS, GOLDLESS_ARMS
from ..retrieval.bm25 import K_REF

ADVERSARIES_FROM_REVISION = adversaries.FROM_REVISION
"""From revision 3 (VERTICALS.md Appendix D) the sidecar stamps naturalness and adversary figures."""

NOT_MEASURED_REASON = "no model run in this revision"
WORST_STAMPED = 12
"""How many of the highest-AUC and of the highest-z features are stamped besides any refused one
(a passing corpus fires nothing, and an empty list would say nothing about how close it came)."""


def corpus_from_text(text: str, corpus_id: str, vertical: str | None) -> Corpus:
    """An in-memory :class:`Corpus` of ``text`` (no sidecar), hashed as a file of that text."""
    raw = text.encode("utf-8")
    records = tuple(QuestionRecord.model_validate(item)
                    for item in json.loads(normalised_bytes(raw).decode("utf-8")))
    return Corpus(corpus_id=corpus_id, path=Path(f"<generated:{corpus_id}>"), sha256=corpus_sha256(raw),
                  records=records, sidecar=None, vertical=vertical)


def ceiling_by_shape(records: Sequence[QuestionRecord]) -> dict[str, float]:
    per_shape: dict[str, list[float]] = defaultdict(list)
    for record in records:
        g = len(record.gold_session_indices)
        if g:
            per_shape[record.shape].append(min(1.0, K_REF / g))
    return {shape: sum(values) / len(values) for shape, values in sorted(per_shape.items())}


def probe_rows(records: Sequence[QuestionRecord]) -> list[dict[str, Any]]:
    """An explicit ``not_measured`` row for every applicable (shape, arm), decided from the corpus."""
    rows: list[dict[str, Any]] = []
    shapes = list(dict.fromkeys(record.shape for record in records))
    for shape in shapes:
        gold = any(r.answer_session_ids for r in records if r.shape == shape)
        goldless = any(not r.answer_session_ids for r in records if r.shape == shape)
        arms = (GOLD_ARMS if gold else ()) + (GOLDLESS_ARMS if goldless else ())
        rows += [{"arm": arm, "shape": shape, "status": "not_measured", "reason": NOT_MEASURED_REASON}
                 for arm in arms]
    return rows


def _separability(corpus: Corpus) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    result = separability.check(corpus)
    analysis = separability.score_features(corpus)
    refused = {entry["feature"]: entry["rule"] for entry in result.measured.get("refused", [])}
    chosen = sorted(analysis.scores, key=lambda s: (-s.auc, s.feature))[:WORST_STAMPED]
    chosen += sorted(analysis.scores, key=lambda s: (-s.z, s.feature))[:WORST_STAMPED]
    chosen += [s for s in analysis.scores if s.feature in refused]
    rows: dict[str, dict[str, Any]] = {}
    for score in chosen:
        rows.setdefault(score.feature, score.stamp(refused=score.feature in refused,
                                                   rule=refused.get(score.feature)))
    summary = {
        "status": result.status,
        "thresholds": result.measured.get("thresholds"),
        "worst": result.measured.get("worst"),
        "features_evaluated": result.measured.get("features_evaluated"),
        "questions_with_pairs": result.measured.get("questions_with_pairs"),
        "pairs": result.measured.get("pairs"),
        "refused": result.measured.get("refused"),
        "exemptions_applied": result.measured.get("exemptions_applied"),
        "stamped": "the refused features plus the highest-AUC and highest-z features",
    }
    ordered = sorted(rows.values(), key=lambda row: (-row["auc"], row["feature"]))
    return ordered, summary


def _difficulty(records: Sequence[QuestionRecord], note: str | None) -> dict[str, Any]:
    bands: Counter[int] = Counter()
    cross: dict[str, Counter[int]] = defaultdict(Counter)
    dials: set[str] = set()
    for record in records:
        block = record.typedmemeval
        if block.difficulty is None:
            continue
        bands[block.difficulty] += 1
        cross[record.shape][block.difficulty] += 1
        if block.dial is not None:
            dials.add(block.dial.name)
    return {
        "dials": sorted(dials),
        "counts_by_band": {str(band): bands[band] for band in sorted(bands)},
        "band_by_shape": {shape: {str(b): c for b, c in sorted(counter.items())}
                          for shape, counter in sorted(cross.items())},
        "validated": False,
        "note": note or "declared, not validated (VERTICALS.md §2.0: no vertical has a validated "
                        "ladder)",
    }


TEXT_FROM_REVISION = 2
"""From this revision the calibration dial is topical competition and the sidecar stamps the text
block (VERTICALS.md Appendix C); revision-1 sidecars keep the echo fields, byte for byte."""

ECHO_NOTE = ("a gold-less shape's echo reads 0.0 (not searched); the echo applied to it is the mean "
             "of its calibrated siblings (VERTICALS.md §4.9)")
DIAL_NOTE = ("the calibration dial is topical competition (VERTICALS.md Appendix C): the share of "
             "sessions carrying a topical mention of a question's subject; a gold-less shape's dial "
             "reads 0.0 (not searched, §4.9)")


def corpus_turn_texts(records: Sequence[QuestionRecord]) -> list[str]:
    """Every turn's text, record by record, session by session (what the filler share is over)."""
    return [turn.content for record in records for session in record.haystack_sessions
            for turn in session]


def build_sidecar(text: str, *, corpus_id: str, vertical: str, revision: int, generator: str,
                  generator_version: str, seed: int,
                  echo_by_shape: Mapping[str, float] | None = None,
                  calibration: Mapping[str, Any] | None = None,
                  difficulty_note: str | None = None,
                  dense: calibration_gate.DenseChoice = "auto",
                  competition_by_shape: Mapping[str, float] | None = None,
                  text_stats: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The sidecar of ``text`` as plain data, validated by :class:`Sidecar`.

    Revision 1 records its dial as ``echo_by_shape``. From revision 2 on (VERTICALS.md Appendix
    C) the dial is ``competition_by_shape`` (``echo_by_shape`` is written empty), the coverage
    block's note describes that dial, ``extra["text"]`` stamps the non-linguistic filler share
    measured from the bytes (:func:`..corpus.text_stats.non_linguistic_share` over every turn; the
    structure gate re-derives it) with the generator's own ``text_stats`` (e.g.
    ``fact_sentence_share``) beside it, and ``extra["retriever_panel"]["dense"]`` stamps the dense
    retriever's coverage (``dense``: see :data:`..gates.calibration.DenseChoice`), joined from
    revision 3 by ``extra["retriever_panel"]["hybrid"]`` (:func:`..gates.calibration.panel_stamp`).
    Revision-1 and revision-2 sidecars are unchanged, byte for byte. From revision 3,
    ``extra["naturalness"]`` (:mod:`..corpus.naturalness`, with its bounds) and
    ``extra["adversaries"]`` (the gate's per-shape figures and any refusal) are stamped too;
    :func:`release_problems` reads them for the generator's refusal."""
    texts_revision = revision >= TEXT_FROM_REVISION
    if texts_revision and echo_by_shape:
        raise ValueError(f"revision {revision} records its dial as competition_by_shape; "
                         "echo_by_shape is revision 1's")
    if not texts_revision and (competition_by_shape or text_stats):
        raise ValueError(f"revision {revision} records its dial as echo_by_shape; "
                         "competition_by_shape and text_stats start at revision "
                         f"{TEXT_FROM_REVISION}")
    corpus = corpus_from_text(text, corpus_id, vertical)
    records = corpus.records
    coverage = {record.question_id: calibration_gate.question_coverage(record) for record in records}
    # The reference figures only: the dense arm is measured once, for the stamp below.
    calibration_result = calibration_gate.check(corpus, dense=None)
    separability_rows, separability_summary = _separability(corpus)
    declared = declarations_for(vertical)
    exemptions = [{"feature": item.name, "reason": item.reason, "shapes": list(item.shapes)}
                  for item in (*declared.separability_exemptions,
                               *declared.calibration_ceiling_exemptions, *declared.probe_exemptions)]
    sidecar: dict[str, Any] = {
        "corpus_id": corpus_id,
        "revision": revision,
        "vertical": vertical,
        "sha256": corpus.sha256,
        "fixture": False,
        "generator": generator,
        "generator_version": generator_version,
        "seed": seed,
        "echo_by_shape": {} if texts_revision else dict(sorted((echo_by_shape or {}).items())),
        "shape_counts": dict(sorted(Counter(record.shape for record in records).items())),
        "k_ref": K_REF,
        "ceiling_by_shape": ceiling_by_shape(records),
        "coverage_by_question": coverage,
        "separability": separability_rows,
        "exemptions": exemptions,
        "probe_records": probe_rows(records),
        "difficulty_validated": False,
        "carve_outs": ({declared.gold_position_carve_out.name: declared.gold_position_carve_out.reason}
                       if declared.gold_position_carve_out else {}),
        "extra": {
            "coverage": {
                "by_shape": calibration_result.measured["coverage_by_shape"],
                "scaffolding_dependence": calibration_result.measured["scaffolding_dependence"],
                "calibration": dict(calibration) if calibration else None,
                "echo_note": ECHO_NOTE,
            },
            "separability": separability_summary,
            "difficulty": _difficulty(records, difficulty_note),
            "rebuild": f"typedmemeval generate --vertical {vertical}",
        },
    }
    if texts_revision:
        sidecar["competition_by_shape"] = dict(sorted((competition_by_shape or {}).items()))
        coverage_block = sidecar["extra"]["coverage"]
        del coverage_block["echo_note"]
        coverage_block["dial_note"] = DIAL_NOTE
        measured_share = non_linguistic_share(corpus_turn_texts(records))
        stamped = dict(text_stats or {})
        stamped.pop("non_linguistic_filler_share", None)  # measured here, never taken on trust
        sidecar["extra"]["text"] = {"non_linguistic_filler_share": round(measured_share, 6),
                                    **stamped}
    if revision >= calibration_gate.PANEL_FROM_REVISION:
        # VERTICALS.md Appendix C: the dense arm of the retriever panel is measured here, with the
        # [dense] extra, and stamped; without the extra the stamp says not measured (never a pass).
        # Appendix D, from revision 3: the hybrid arm (rank fusion of BM25 and dense) is stamped
        # beside it, fused from the same dense rankings (one embedding pass); revision-2 sidecars
        # are unchanged, byte for byte.
        whole = revision >= calibration_gate.WHOLE_PANEL_FROM_REVISION
        block: dict[str, Any] = {"panel_from_revision": calibration_gate.PANEL_FROM_REVISION,
                                 **calibration_gate.panel_stamp(records, dense, hybrid=whole)}
        if whole:
            block["whole_panel_from_revision"] = calibration_gate.WHOLE_PANEL_FROM_REVISION
        sidecar["extra"][calibration_gate.STAMP_KEY] = block
    if revision >= ADVERSARIES_FROM_REVISION:
        # VERTICALS.md Appendix D: the conversation's naturalness and the adversaries' per-shape
        # figures are published with the corpus, measured from its bytes like everything above.
        sidecar["extra"]["naturalness"] = naturalness.measure(records).as_stats()
        sidecar["extra"]["naturalness"]["bounds"] = dict(naturalness.BOUNDS)
        verdict = adversaries.check(corpus)
        sidecar["extra"]["adversaries"] = {"status": verdict.status,
                                           "by_shape": verdict.measured.get("by_shape", {}),
                                           "refused": sorted(r.line() for r in verdict.refusals)}
    Sidecar.model_validate(sidecar)
    return sidecar


def release_problems(sidecar: Mapping[str, Any]) -> list[str]:
    """Why a revision-3 corpus with this sidecar must not be written (empty: it may).

    GENERATION.md v3: "the generator refuses a corpus where the learned question-blind detector,
    the position prior, the haystack diff or the subject-and-value rule beats its bound, exactly as
    it refuses a wrong gold" -- and Appendix D's naturalness bounds are part of the release."""
    extra = sidecar.get("extra", {})
    problems: list[str] = []
    verdict = extra.get("adversaries")
    if verdict is not None and verdict.get("status") != "passed":
        problems += [f"adversaries: {line}" for line in verdict.get("refused", [])] or [
            f"adversaries: {verdict.get('status')}"]
    stats = extra.get("naturalness")
    if stats is not None:
        for name, bound in naturalness.BOUNDS.items():
            share = stats.get(name, {}).get("share")
            if share is None or share < bound:
                problems.append(f"naturalness: {name} = {share} (bound >= {bound})")
    return problems


__all__ = ["ADVERSARIES_FROM_REVISION", "DIAL_NOTE", "ECHO_NOTE", "NOT_MEASURED_REASON",
           "TEXT_FROM_REVISION", "build_sidecar", "release_problems",
           "ceiling_by_shape", "corpus_from_text", "corpus_turn_texts", "probe_rows"]
