"""End of session on the controller: what ran and what did not, thresholds, baseline changes, the
JSON report, summary lines, and the exit code a partial or failed run must carry.

Nothing computed is dropped here: results that reached the controller, results a worker spooled
but whose report never arrived (Ctrl-C), a question in flight on a worker that died (an ``error``
result naming the worker). Every selected question without a result is named in ``not_run`` with
its cause; a run with any is ``complete: false``, its thresholds are not evaluated, and its exit code
is never 0.

Imported only when a run that selected questions ends (it loads pydantic, the report and the
aggregation), from the entry point's ``pytest_sessionfinish`` and ``pytest_terminal_summary``.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from ..corpus.index import CorpusIndex
from ..judge.outcomes import Outcome
from ..report.aggregate import aggregate
from ..report.document import build_report, dumps_report, write_report
from ..report.terminal import render_lines
from ..report.thresholds import threshold_failures, threshold_line, threshold_verdicts
from ..results import QuestionResult
from .session import TypedMemEvalSession, marker_name

EXIT_OK, EXIT_TESTS_FAILED, EXIT_USAGE_ERROR = 0, 1, 4
NOT_RUN_SHOWN = 10
"""How many not-run questions the terminal names (the JSON report names all of them)."""


def _citations(tme: TypedMemEvalSession, shipped: frozenset[str]) -> dict[str, str]:
    return {corpus.corpus_id: corpus.citation(shipped) for corpus in tme.corpora}


def _threshold_verdicts(tme: TypedMemEvalSession, *, evaluated: bool) -> list[dict[str, Any]]:
    """The report's threshold rows (:func:`..report.thresholds.threshold_verdicts`, which the
    merge of a sharded run evaluates too)."""
    return threshold_verdicts(tme.results.values(), tme.fail_under, _corpus_verticals(tme), evaluated=evaluated)


def _corpus_verticals(tme: TypedMemEvalSession) -> set[str]:
    return {marker_name(h.vertical) for c in tme.corpora for h in c.heads}


def _baseline_summary(tme: TypedMemEvalSession) -> dict[str, list[str]]:
    """Per-question baseline changes, sorted by the baseline gate's own comparison (one rule set)."""
    from ..gates.baseline import compare

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


def _merge_spool(tme: TypedMemEvalSession) -> int:
    """Results workers spooled whose reports never reached this process (count merged)."""
    merged = 0
    for payload in tme.read_spool():
        try:
            result = QuestionResult.model_validate(payload.get("result"))
        except ValidationError:
            continue
        if result.key in tme.results:
            continue
        tme.add_result(result)
        merged += 1
        if isinstance(payload.get("baseline"), dict):
            tme.baseline_changes.append(payload["baseline"])
    return merged


def _not_run(tme: TypedMemEvalSession) -> list[dict[str, str]]:
    rows = []
    for key in sorted(set(tme.selected) - set(tme.results)):
        if tme.adapter_failure is not None:
            cause = ("not run: the run stopped at a systematic adapter fault" if tme.results
                     else "not run: the adapter could not be built")
        elif key in tme.not_run_causes:
            cause = tme.not_run_causes[key]
        elif tme.stop_reason is not None:
            cause = f"not run: the run stopped first ({tme.stop_reason})"
        else:
            cause = "no result reached the report (its worker died or its report was lost)"
        rows.append({"question": f"{key[0]}/{key[1]}", "cause": cause})
    return rows


def _shard_block(tme: TypedMemEvalSession) -> dict[str, Any]:
    """What ``typedmemeval report --merge`` checks a shard's report against the others with: the
    split (K of N, the assignment's version), the selection before sharding (``null`` when the run
    stopped before it was known), every loaded corpus (id, sha256) and its verticals and shapes
    (bound names, as ``--tme-fail-under`` reads them). Written only by a ``--tme-shard`` run: an
    unsharded report is unchanged, and the merge writes none."""
    from ..corpus.shards import SHARD_ALGORITHM
    from .shard_selection import known_shard_plan

    assert tme.shard is not None
    plan = known_shard_plan(tme) or {}
    verticals = {marker_name(h.vertical) for c in tme.corpora for h in c.heads}
    return {
        "index": tme.shard.index, "count": tme.shard.count, "algorithm": SHARD_ALGORITHM,
        "selected_before_sharding": plan.get("selected_before_sharding"),
        "selection_sha256": plan.get("selection_sha256"),
        "corpora": [{"corpus_id": c.corpus_id, "sha256": c.sha256} for c in sorted(tme.corpora, key=lambda c: c.corpus_id)],
        "verticals": sorted(verticals),
        "shapes": sorted({marker_name(h.shape) for c in tme.corpora for h in c.heads}),
    }


def _agreement_check(tme: TypedMemEvalSession) -> dict[str, Any] | None:
    """The model judge's agreement bound over this run's results (J13.14): the report's block, the
    summary line and whether the session fails. ``None`` under the mechanical judge or a hook's."""
    if tme.judge_description()["mode"] not in ("llm", "hybrid"):
        return None
    from ..report.aggregate import judge_agreement

    agreement = judge_agreement(tme.results.values())
    passed, line = tme.judge_choice.agreement_verdict(agreement)
    tme.agreement_line = line
    tme.agreement_failed = passed is False
    return {"bound": tme.judge_choice.min_agreement, "passed": passed,
            "compared": agreement["compared"] if agreement else 0,
            "agreement_rate": agreement["agreement_rate"] if agreement else None}


def finish_session(tme: TypedMemEvalSession, exitstatus: int) -> int | None:
    """Merge, write the report, and return the exit status the session must end with (``None``:
    keep pytest's). Nothing to report (no question selected, nothing ran) returns ``None``."""
    tme.recovered_from_spool = _merge_spool(tme)
    if not tme.selected and not tme.results and tme.stop_reason is None:
        return None  # nothing selected, nothing interrupted: nothing to report
    from ..corpus.registry import shipped_sha256s

    shipped = shipped_sha256s()
    not_run = _not_run(tme)
    missing = _missing(tme)
    # Interrupted before the selection was known (during collection): nothing ran, nothing is complete.
    unselected = tme.stop_reason is not None and not tme.selected
    complete = not not_run and not missing and tme.adapter_failure is None and not unselected
    # An errored question is a harness fault, not a memory result: no bound passes (or fails) over
    # a run that has one (issue 22, item 4).
    tme.errored = sum(1 for result in tme.results.values() if result.outcome == Outcome.ERROR.value)
    evaluated = complete and not tme.errored
    thresholds = _threshold_verdicts(tme, evaluated=evaluated) if tme.threshold_mode else []
    tme.thresholds_evaluated = evaluated
    tme.threshold_failures = threshold_failures(thresholds)
    tme.not_run = not_run
    agreement_check = _agreement_check(tme)
    tme.model_report = tme.model_description()
    from .adapter_fixture import describe_agent_source

    tme.agent_source = describe_agent_source(tme)
    extra: dict[str, Any] = {
        "complete": complete,
        "interrupted": tme.stop_reason is not None,
        "stop_reason": tme.stop_reason,
        "adapter_failure": tme.adapter_failure,
        "selected": len(tme.selected),
        "not_run": not_run,
        "thresholds": thresholds if tme.threshold_mode else None,
        "thresholds_evaluated": evaluated if tme.threshold_mode else None,
        "baseline": _baseline_summary(tme) if tme.baseline else None,
        "missing_results": missing,
        "workers_lost": sorted(tme.workers_lost, key=lambda row: (row["worker"] or "", row["question"] or "")),
        "workers_without_payload": sorted(tme.workers_without_payload),
        "model": tme.model_report,
        "options": tme.options_description(),
        "judge_agreement_check": agreement_check,
    }
    if tme.shard is not None:
        extra["shard"] = _shard_block(tme)
    corpora: list[CorpusIndex] = tme.corpora
    report = build_report(tme.results.values(), corpora, citations=_citations(tme, shipped),
                          judge=tme.judge_description(), extra=extra)
    tme.config.hook.pytest_typedmemeval_report(report=report, config=tme.config)
    tme.reported = True
    if tme.report_path is not None:
        try:
            write_report(tme.report_path, dumps_report(report))
        except OSError as error:
            tme.report_error = f"the JSON report could not be written to {tme.report_path}: {error.strerror or error}"
    if tme.html_path is not None:
        from ..report.html import render_html

        try:
            write_report(tme.html_path, render_html(report))
        except OSError as error:
            tme.report_error = f"the HTML report could not be written to {tme.html_path}: {error.strerror or error}"
    if tme.adapter_failure is not None:
        return EXIT_USAGE_ERROR
    status = exitstatus
    if status == EXIT_OK and (tme.threshold_failures or not complete or tme.report_error
                              or tme.agreement_failed):
        status = EXIT_TESTS_FAILED
    return status if status != exitstatus else None


def model_line(block: dict[str, Any]) -> str:
    """One line: which model answered, with what settings, and what the run spent."""
    served = ", ".join(block["served_models"]) or "no reply received"
    ledger = block["ledger"]
    spend = (f"{ledger['calls']} call(s), {ledger['cache_hits']} cache hit(s), {ledger['refused']} "
             f"refused by the ceiling; spent ${ledger['spent_usd']:.6f} of ${ledger['ceiling_usd']:g}")
    if block.get("agent") is None:
        return f"model: the judge ({block.get('judge_model')}) made {spend}"
    return (f"model: {block['agent']} asked {block['model']} at {block['base_url']} (temperature "
            f"{block['temperature']:g}, max_tokens {block['max_tokens']}, seed {block['seed']}); served "
            f"by {served}; {ledger['calls']} call(s), {ledger['cache_hits']} cache hit(s), "
            f"{ledger['refused']} refused by the ceiling; spent ${ledger['spent_usd']:.6f} of "
            f"${ledger['ceiling_usd']:g}")


def summary_lines(tme: TypedMemEvalSession, shipped: frozenset[str]) -> list[str]:
    # A run stopped by an unusable adapter measured nothing worth citing.
    citations = _citations(tme, shipped) if tme.adapter_failure is None else {}
    lines = render_lines(aggregate(tme.results.values()), citations) if tme.results else []
    if tme.adapter_failure is not None:
        lines.append(f"ERROR: {tme.adapter_failure}")
    source = tme.agent_source or {}
    if source.get("overrides"):
        given = (f"--tme-agent {source['agent']}" if source["source"] == "--tme-agent"
                 else f"the {source['source']}")
        lines.append(f"adapter: {given} (overrides the " + "; ".join(source["overrides"]) + ")")
    if tme.model_report is not None:
        lines.append(model_line(tme.model_report))
    if tme.baseline:
        changes = _baseline_summary(tme)
        for kind in ("regressions", "improvements", "shifts", "new"):
            if changes[kind]:
                lines.append(f"baseline {kind} ({len(changes[kind])}): " + ", ".join(changes[kind]))
        if not any(changes.values()):
            lines.append("baseline: every outcome equals its snapshot")
    if tme.not_run:
        shown = ", ".join(row["question"] for row in tme.not_run[:NOT_RUN_SHOWN])
        more = f" and {len(tme.not_run) - NOT_RUN_SHOWN} more" if len(tme.not_run) > NOT_RUN_SHOWN else ""
        lines.append(f"PARTIAL RUN: {len(tme.not_run)} of {len(tme.selected)} selected question(s) did not run "
                     f"({tme.not_run[0]['cause'].removeprefix('not run: ')}): {shown}{more}")
    elif tme.stop_reason is not None and not tme.selected:
        lines.append(f"PARTIAL RUN: interrupted ({tme.stop_reason}) before the questions were selected; "
                     "nothing ran")
    elif tme.stop_reason is not None:
        lines.append(f"interrupted ({tme.stop_reason}) after every selected question had run")
    if tme.threshold_mode:
        lines.append(threshold_line(evaluated=tme.thresholds_evaluated, errored=tme.errored,
                                    partial=bool(tme.not_run), failures=tme.threshold_failures))
    if tme.agreement_line is not None:
        lines.append(tme.agreement_line)
    for lost in tme.workers_lost:
        where = f"while running {lost['question']} (recorded as error)" if lost["question"] else "between questions"
        lines.append(f"WARNING: xdist worker {lost['worker']} died {where}")
    if tme.recovered_from_spool:
        lines.append(f"{tme.recovered_from_spool} result(s) whose reports never arrived were recovered "
                     "from the workers' spool files")
    missing = _missing(tme)
    if missing:
        lines.append(f"WARNING: {len(missing)} result(s) produced by workers never reached the "
                     f"controller: {', '.join(missing[:10])}")
    if tme.workers_without_payload:
        lines.append("WARNING: worker(s) sent no TypedMemEval payload (crashed?): "
                     + ", ".join(sorted(tme.workers_without_payload)))
    if tme.report_error is not None:
        lines.append(f"ERROR: {tme.report_error}")
    elif tme.report_path is not None:
        lines.append(f"JSON report: {tme.report_path}" + ("" if not tme.not_run and tme.adapter_failure is None
                                                          else " (partial: see complete, not_run)"))
    if tme.report_error is None and tme.html_path is not None:
        lines.append(f"HTML report: {tme.html_path}")
    return lines
