"""End of session on the controller: thresholds, baseline changes, the JSON report, summary lines."""

from __future__ import annotations

from typing import Any

from ._session import TypedMemEvalSession, marker_name
from .corpus.loading import Corpus
from .report.aggregate import aggregate, outcome_vector
from .report.document import build_report, dumps_report
from .report.terminal import render_lines


def _citations(tme: TypedMemEvalSession, shipped: frozenset[str]) -> dict[str, str]:
    return {corpus.corpus_id: corpus.citation(shipped) for corpus in tme.corpora}


def _threshold_verdicts(tme: TypedMemEvalSession) -> list[dict[str, Any]]:
    """Per vertical (over every corpus that ran it): correct rate vs the bound in force."""
    rows: list[dict[str, Any]] = []
    verticals = sorted({r.vertical for r in tme.results.values()})
    for vertical in verticals:
        bound = tme.fail_under.get(marker_name(vertical), tme.fail_under.get("*"))
        if bound is None:
            continue
        results = [r for r in tme.results.values() if r.vertical == vertical]
        vector = outcome_vector(results)
        rate = vector["outcomes"]["correct"]["rate"] or 0.0
        rows.append({"vertical": vertical, "n": vector["n"], "correct_rate": rate, "bound": bound,
                     "ci95": vector["outcomes"]["correct"]["ci95"], "passed": rate >= bound})
    return rows


def _baseline_summary(tme: TypedMemEvalSession) -> dict[str, list[str]]:
    """Per-question baseline changes, sorted by the baseline gate's own comparison (one rule set)."""
    from .gates.baseline import compare

    changes: dict[str, list[str]] = {"regressions": [], "improvements": [], "shifts": [], "new": []}
    by_corpus: dict[str, list[dict[str, Any]]] = {}
    for change in tme.baseline_changes:
        by_corpus.setdefault(change["corpus_id"], []).append(change)
    for corpus_id, rows in sorted(by_corpus.items()):
        recorded = {r["question_id"]: r["recorded"] for r in rows if r["recorded"] is not None}
        fresh = {r["question_id"]: r["fresh"] for r in rows if r["recorded"] is not None}
        changes["new"] += sorted(f"{corpus_id}/{r['question_id']} (unrecorded -> {r['fresh']})"
                                 for r in rows if r["recorded"] is None)
        comparison = compare(recorded, fresh)
        for kind in ("regressions", "improvements", "shifts"):
            changes[kind] += [f"{corpus_id}/{c.subject} ({c.before} -> {c.after})"
                              for c in getattr(comparison, kind) if c.kind == "question"]
    return changes


def _missing(tme: TypedMemEvalSession) -> list[str]:
    return sorted(f"{c}/{q}" for c, q in tme.expected_from_workers - set(tme.results))


def finish_session(tme: TypedMemEvalSession) -> bool:
    """Write the report and return True when the session must fail on thresholds."""
    from . import shipped_sha256s

    shipped = shipped_sha256s()
    thresholds = _threshold_verdicts(tme) if tme.threshold_mode else []
    tme.threshold_failures = [
        f"{row['vertical']}: correct {row['correct_rate']:.2f} < {row['bound']:.2f} (n={row['n']})"
        for row in thresholds if not row["passed"]
    ]
    extra: dict[str, Any] = {
        "thresholds": thresholds if tme.threshold_mode else None,
        "baseline": _baseline_summary(tme) if tme.baseline else None,
        "missing_results": _missing(tme),
        "workers_without_payload": sorted(tme.workers_without_payload),
    }
    corpora: list[Corpus] = tme.corpora
    report = build_report(tme.results.values(), corpora, citations=_citations(tme, shipped),
                          judge=tme.judge_description(), extra=extra)
    tme.config.hook.pytest_typedmemeval_report(report=report, config=tme.config)
    if tme.report_path is not None:
        tme.report_path.parent.mkdir(parents=True, exist_ok=True)
        tme.report_path.write_text(dumps_report(report), encoding="utf-8")
    return bool(tme.threshold_failures)


def summary_lines(tme: TypedMemEvalSession, shipped: frozenset[str]) -> list[str]:
    lines = render_lines(aggregate(tme.results.values()), _citations(tme, shipped))
    if tme.baseline:
        changes = _baseline_summary(tme)
        for kind in ("regressions", "improvements", "shifts", "new"):
            if changes[kind]:
                lines.append(f"baseline {kind} ({len(changes[kind])}): " + ", ".join(changes[kind]))
        if not any(changes.values()):
            lines.append("baseline: every outcome equals its snapshot")
    if tme.threshold_mode:
        if tme.threshold_failures:
            lines.append("FAILED thresholds: " + "; ".join(tme.threshold_failures))
        else:
            lines.append("thresholds: every vertical at or above its bound")
    missing = _missing(tme)
    if missing:
        lines.append(f"WARNING: {len(missing)} result(s) produced by workers never reached the "
                     f"controller: {', '.join(missing[:10])}")
    if tme.workers_without_payload:
        lines.append("WARNING: worker(s) sent no TypedMemEval payload (crashed?): "
                     + ", ".join(sorted(tme.workers_without_payload)))
    if tme.report_path is not None:
        lines.append(f"JSON report: {tme.report_path}")
    return lines
