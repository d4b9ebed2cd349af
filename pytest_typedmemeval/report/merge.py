"""``typedmemeval report --merge``: the N reports of a ``--tme-shard K/N`` split as the one report
an unsharded run would have written.

Nothing is averaged or re-derived from the shards' aggregates: the per-question results are pooled
and the report is built again by the code every run uses (:func:`.document.build_report`, the
threshold rows of :mod:`.thresholds`, the baseline changes' order), so the merged report equals the
unsharded one byte for byte apart from its ``timing`` block (wall time, summed here) and the
host-dependent incident records (``workers_lost`` and ``workers_without_payload`` name a shard's
xdist workers, prefixed with the shard; the ``model`` block's ledger is the shards' spend summed).

Shards are merged only if they are the N shards of one run: each shard report's ``shard`` block
(:mod:`..plugin.shard_selection`) names K, N and the selection before sharding, and the merge
refuses, in one line naming the file, a report that is not a shard, a shard given twice or
missing, a question in two shards, and shards that differ in anything that changes an outcome
(corpora and their sha256, the selection, the judge, the run options, the model settings, the tool
version). Bounds (``--fail-under``) are evaluated on the merged results exactly as
``--tme-fail-under`` is at the end of a run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..corpus.shards import selection_sha256
from ..results import QuestionResult
from .document import build_report
from .run_options import options_fingerprint
from .thresholds import threshold_failures, threshold_verdicts, unknown_bound_name

ShardInput = tuple[Path, Mapping[str, Any]]
"""A shard report as read from its file (the path names it in every refusal)."""

SAME_IN_EVERY_SHARD = ("schema_version", "benchmark", "tool", "judge")
"""Top-level blocks every shard must carry unchanged (besides the options and corpora, checked
with their own messages)."""
MERGED_HERE = frozenset({
    "schema_version", "benchmark", "tool", "judge", "corpora", "results", "judge_agreement", "questions",
    "timing", "complete", "interrupted", "stop_reason", "adapter_failure", "selected", "not_run",
    "thresholds", "thresholds_evaluated", "baseline", "missing_results", "workers_lost",
    "workers_without_payload", "model", "options", "judge_agreement_check", "shard"})
"""Top-level keys with a merge rule; any other key (a ``pytest_typedmemeval_report`` hook's) is
kept when every shard has the same value and refused otherwise."""
BASELINE_KINDS = ("regressions", "improvements", "shifts", "new")


class MergeError(ValueError):
    """The shard reports cannot be merged; the message is one line naming the file and the problem."""


@dataclass(frozen=True)
class _ReportedCorpus:
    """A corpus as a shard report describes it (what :func:`.document.build_report` reads)."""

    corpus_id: str
    sha256: str
    vertical: str
    is_fixture: bool
    question_count: int


def _key(question: str) -> tuple[str, str]:
    """``corpus/question`` as the (corpus id, question id) key reports sort by."""
    corpus_id, _, question_id = question.partition("/")
    return corpus_id, question_id


def _shard_block(path: Path, report: Mapping[str, Any]) -> Mapping[str, Any]:
    block = report.get("shard")
    if not isinstance(block, Mapping):
        raise MergeError(f"{path}: not a shard report (written without --tme-shard K/N); merge the "
                         "reports of one run's --tme-shard 1/N ... N/N")
    if block.get("selected_before_sharding") is None:
        raise MergeError(f"{path}: shard {block.get('index')}/{block.get('count')} stopped before its "
                         "questions were selected, so it measured nothing; run it again")
    return block


def _check_comparable(shards: Sequence[ShardInput]) -> None:
    """Refuse shards that are not of one split of one run (first difference, one line)."""
    first_path, first = shards[0]
    first_block = _shard_block(first_path, first)
    seen: dict[int, Path] = {}
    for path, report in shards:
        block = _shard_block(path, report)
        spec = f"{block['index']}/{block['count']}"
        if (block["count"], block.get("algorithm")) != (first_block["count"], first_block.get("algorithm")):
            raise MergeError(f"{path}: shard {spec}, but {first_path} is shard "
                             f"{first_block['index']}/{first_block['count']} (algorithm "
                             f"{first_block.get('algorithm')}): not shards of one split")
        if block["index"] in seen:
            raise MergeError(f"{path}: shard {spec} again (also {seen[block['index']]}); give each shard once")
        seen[block["index"]] = path
        for name in SAME_IN_EVERY_SHARD:
            if report.get(name) != first.get(name):
                raise MergeError(f"{path}: its {name!r} differs from {first_path}'s "
                                 f"({report.get(name)!r} vs {first.get(name)!r}); shards must come from one run")
        if block.get("corpora") != first_block.get("corpora"):
            raise MergeError(f"{path}: its corpora (ids and sha256) differ from {first_path}'s; "
                             "shards must run the same corpus files")
        if (block["selected_before_sharding"], block.get("selection_sha256")) != (
                first_block["selected_before_sharding"], first_block.get("selection_sha256")):
            raise MergeError(f"{path}: split a different selection ({block['selected_before_sharding']} "
                             f"question(s)) than {first_path} ({first_block['selected_before_sharding']}); "
                             "give every shard the same -m/-k and corpora")
        options, first_options = report.get("options") or {}, first.get("options") or {}
        if options.get("fingerprint") != first_options.get("fingerprint"):
            changed = sorted(name for name in ("agent", "timeout_seconds", "judge_mode", "judge_model",
                                               "fail_under", "baseline")
                             if options.get(name) != first_options.get(name))
            raise MergeError(f"{path}: run with other options than {first_path} "
                             f"({', '.join(changed) or 'fingerprint'} differ); shards must share them")
        if _model_settings(report.get("model")) != _model_settings(first.get("model")):
            raise MergeError(f"{path}: its model settings differ from {first_path}'s; shards must ask the "
                             "same model the same way")
        extra = sorted((set(report) | set(first)) - MERGED_HERE)
        for name in extra:
            if report.get(name) != first.get(name):
                raise MergeError(f"{path}: its {name!r} (added by a report hook) differs from "
                                 f"{first_path}'s, and has no merge rule")
    missing = sorted(set(range(1, int(first_block["count"]) + 1)) - set(seen))
    if missing:
        count = first_block["count"]
        raise MergeError(f"shard(s) {', '.join(f'{k}/{count}' for k in missing)} missing (given: "
                         + ", ".join(f"{k}/{count} {seen[k]}" for k in sorted(seen)) + ")")


def _model_settings(block: Any) -> Any:
    """A ``model`` block without what differs between shards of one run (spend, served names)."""
    if not isinstance(block, Mapping):
        return block
    return {name: value for name, value in block.items() if name not in ("ledger", "served_models")}


def _merged_model(blocks: Sequence[Any]) -> Any:
    """One ``model`` block: the settings, the served model names pooled, the ledgers summed (each
    shard had its own ceiling, ``ceiling_usd`` is that per-shard ceiling)."""
    first = blocks[0]
    if not isinstance(first, Mapping):
        return first
    ledgers = [block["ledger"] for block in blocks]
    ledger = {"calls": sum(int(ledger["calls"]) for ledger in ledgers),
              "cache_hits": sum(int(ledger["cache_hits"]) for ledger in ledgers),
              "refused": sum(int(ledger["refused"]) for ledger in ledgers),
              "spent_usd": round(sum(float(ledger["spent_usd"]) for ledger in ledgers), 6),
              "ceiling_usd": ledgers[0]["ceiling_usd"]}
    served = sorted({str(name) for block in blocks for name in block.get("served_models") or []})
    return {**first, "served_models": served, "ledger": ledger}


def _results(shards: Sequence[ShardInput]) -> list[QuestionResult]:
    """Every shard's question rows, once each (a question in two shards is refused)."""
    owner: dict[tuple[str, str], Path] = {}
    results: list[QuestionResult] = []
    for path, report in shards:
        for number, row in enumerate(report.get("questions") or []):
            try:
                result = QuestionResult.model_validate(row)
            except ValidationError as error:
                problem = str(error).splitlines()[0]
                raise MergeError(f"{path}: question row {number} is not a result this version reads "
                                 f"({problem})") from None
            if result.key in owner:
                raise MergeError(f"{path}: {result.corpus_id}/{result.question_id} is also in "
                                 f"{owner[result.key]}; a question belongs to one shard")
            owner[result.key] = path
            results.append(result)
    return results


def _selected_keys(shards: Sequence[ShardInput], results: Sequence[QuestionResult]) -> set[tuple[str, str]]:
    """Every question some shard selected (a result or a ``not_run`` row); refuses overlaps and
    checks the union is exactly the selection every shard split."""
    owner: dict[tuple[str, str], Path] = {result.key: Path() for result in results}
    keys = {result.key for result in results}
    for path, report in shards:
        for row in report.get("not_run") or []:
            key = _key(str(row["question"]))
            if key in keys and owner.get(key) != path:
                raise MergeError(f"{path}: {row['question']} is in another shard too; a question "
                                 "belongs to one shard")
            keys.add(key)
            owner[key] = path
    block = shards[0][1]["shard"]
    if len(keys) != block["selected_before_sharding"] or selection_sha256(keys) != block["selection_sha256"]:
        raise MergeError(f"the shards hold {len(keys)} question(s), but the selection they split had "
                         f"{block['selected_before_sharding']}: some question is missing or foreign "
                         f"(a shard report edited, or cut short?)")
    return keys


def _baseline(blocks: Sequence[Any]) -> Any:
    """The baseline changes pooled, in the order a run lists them (per corpus, per question)."""
    if not any(isinstance(block, Mapping) for block in blocks):
        return None
    merged: dict[str, list[str]] = {}
    for kind in BASELINE_KINDS:
        rows = [row for block in blocks if isinstance(block, Mapping) for row in block.get(kind) or []]
        merged[kind] = sorted(rows, key=lambda row: (_key(row)[0], _key(row)[1].partition(" (")[0]))
    return merged


def _agreement_check(first: Any, judge_mode: str, results: Sequence[QuestionResult]) -> Any:
    """The model judge's agreement bound over the merged results (``None`` when no shard had one)."""
    if not isinstance(first, Mapping):
        return first
    from ..judge.choice import JudgeChoice
    from .aggregate import judge_agreement

    agreement = judge_agreement(results)
    passed, _ = JudgeChoice(mode=judge_mode, min_agreement=float(first["bound"])).agreement_verdict(agreement)  # type: ignore[arg-type]
    return {"bound": first["bound"], "passed": passed, "compared": agreement["compared"] if agreement else 0,
            "agreement_rate": agreement["agreement_rate"] if agreement else None}


def merge_shards(shards: Sequence[ShardInput], *,
                 fail_under: Mapping[str, float] | None = None) -> dict[str, Any]:
    """The unsharded run's report, from its N shard reports. ``fail_under``: bounds to evaluate
    instead of the ones the shards ran with (as ``--tme-fail-under`` on the unsharded run would;
    they are then the report's ``options.fail_under``)."""
    if not shards:
        raise MergeError("no shard report given")
    _check_comparable(shards)
    shards = sorted(shards, key=lambda shard: int(shard[1]["shard"]["index"]))
    reports = [report for _, report in shards]
    first = reports[0]
    block = first["shard"]
    results = _results(shards)
    _selected_keys(shards, results)

    options = dict(first["options"])
    if fail_under is not None:
        if options.get("baseline"):
            raise MergeError(f"{shards[0][0]}: the shards ran --tme-baseline; --fail-under and exact "
                             "baselines are exclusive")
        refusal = unknown_bound_name(fail_under, block["verticals"], block["shapes"])
        if refusal is not None:
            raise MergeError(refusal.replace("--tme-fail-under", "--fail-under", 1))
        options["fail_under"] = dict(sorted(fail_under.items()))
        options["fingerprint"] = options_fingerprint(options)
    bounds: dict[str, float] = dict(options.get("fail_under") or {})

    not_run = sorted((row for report in reports for row in report.get("not_run") or []),
                     key=lambda row: _key(str(row["question"])))
    stop_reason = next((r["stop_reason"] for r in reports if r.get("stop_reason") is not None), None)
    adapter_failure = next((r["adapter_failure"] for r in reports if r.get("adapter_failure") is not None), None)
    complete = all(r.get("complete") for r in reports)
    errored = sum(1 for result in results if result.outcome == "error")
    evaluated = complete and not errored
    threshold_mode = bool(bounds)
    thresholds = threshold_verdicts(results, bounds, block["verticals"], evaluated=evaluated) if threshold_mode else None

    def spec(report: Mapping[str, Any]) -> str:
        return f"shard {report['shard']['index']}/{report['shard']['count']}"

    extra: dict[str, Any] = {
        "complete": complete,
        "interrupted": any(r.get("interrupted") for r in reports),
        "stop_reason": stop_reason,
        "adapter_failure": adapter_failure,
        "selected": sum(int(r.get("selected") or 0) for r in reports),
        "not_run": not_run,
        "thresholds": thresholds,
        "thresholds_evaluated": evaluated if threshold_mode else None,
        "baseline": _baseline([r.get("baseline") for r in reports]) if options.get("baseline") else None,
        "missing_results": sorted(row for r in reports for row in r.get("missing_results") or []),
        "workers_lost": sorted(({**row, "worker": f"{spec(r)} {row['worker']}"} for r in reports
                                for row in r.get("workers_lost") or []),
                               key=lambda row: (row["worker"] or "", row["question"] or "")),
        "workers_without_payload": sorted(f"{spec(r)} {worker}" for r in reports
                                          for worker in r.get("workers_without_payload") or []),
        "model": _merged_model([r.get("model") for r in reports]),
        "options": options,
        "judge_agreement_check": _agreement_check(first.get("judge_agreement_check"),
                                                  str(first["judge"].get("mode")), results),
    }
    extra.update({name: first[name] for name in sorted(set(first) - MERGED_HERE)})
    rows: dict[str, Mapping[str, Any]] = {}
    for report in reports:
        for row in report.get("corpora") or []:
            rows.setdefault(str(row["corpus_id"]), row)
    corpora = [_ReportedCorpus(str(row["corpus_id"]), str(row["sha256"]), str(row["vertical"]),
                               bool(row["fixture"]), int(row["questions"])) for row in rows.values()]
    merged = build_report(results, corpora, citations={cid: str(row["citation"]) for cid, row in rows.items()},
                          judge=first["judge"], extra=extra)
    merged["tool"] = first["tool"]
    per_question = {name: seconds for r in reports for name, seconds in (r.get("timing") or {}).get(
        "per_question_seconds", {}).items()}
    merged["timing"] = {"total_question_seconds": round(sum(float((r.get("timing") or {}).get(
        "total_question_seconds") or 0.0) for r in reports), 6), "per_question_seconds": per_question}
    return merged


def merge_failures(report: Mapping[str, Any]) -> list[str]:
    """Why the unsharded run would have failed (exit 1), one phrase each: a partial run, failed or
    unevaluated bounds, baseline changes, in the default mode any question not ``correct``, a
    failed judge agreement bound. Empty: it would have passed."""
    failures: list[str] = []
    if not report.get("complete"):
        failures.append(f"the run is partial: {len(report.get('not_run') or [])} selected question(s) "
                        "did not run")
    options = report.get("options") or {}
    questions = report.get("questions") or []
    if report.get("thresholds") is not None:
        errors = sum(1 for row in questions if row.get("outcome") == "error")
        if errors:
            failures.append(f"{errors} question(s) ended in error (harness faults)")
        failures += threshold_failures(report["thresholds"])
    elif options.get("baseline"):
        changes = report.get("baseline") or {}
        failures += [f"baseline {kind}: {len(changes[kind])}" for kind in BASELINE_KINDS if changes.get(kind)]
    else:
        wrong = sum(1 for row in questions if row.get("outcome") != "correct")
        if wrong:
            failures.append(f"{wrong} question(s) not correct (without bounds, as in a run without "
                            "--tme-fail-under, every question must be correct; measure with --fail-under 0)")
    check = report.get("judge_agreement_check")
    if isinstance(check, Mapping) and check.get("passed") is False:
        failures.append("the judges' agreement is below its bound")
    return failures


__all__ = ["MergeError", "ShardInput", "merge_failures", "merge_shards"]
