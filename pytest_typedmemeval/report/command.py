"""``typedmemeval report``: band several runs, compare two run sets, render the HTML page, merge the
shards of a ``--tme-shard`` split (:mod:`.merge`).

Kept out of :mod:`..cli` so the command line stays a list of commands, and so that reading reports
never imports the plugin. Every input problem is one line naming the file: a missing or unreadable
file, a file that is not a TypedMemEval JSON report, runs that cannot be banded or compared
(:class:`.bands.BandError` names the differing field), shards that cannot be merged
(:class:`.merge.MergeError`). Exit status: 0 done, 2 for any such refusal (nothing is written
then); a merge exits 1 where the unsharded run would have failed.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .thresholds import parse_fail_under

REPORT_KEYS = ("questions", "results", "corpora", "judge")
"""Top-level keys every TypedMemEval JSON report has (``--tme-report``)."""


class ReportInputError(ValueError):
    """A file given to the command is not a readable TypedMemEval report."""


def read_report(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ReportInputError(f"{path}: cannot read ({error.strerror or error})") from None
    except ValueError as error:
        raise ReportInputError(f"{path}: not JSON ({error})") from None
    missing = [key for key in REPORT_KEYS if not isinstance(data, dict) or key not in data]
    if missing:
        raise ReportInputError(f"{path}: not a TypedMemEval report (no {', '.join(missing)}); "
                               "write one with pytest --typedmemeval --tme-report PATH")
    report: dict[str, Any] = data
    return report


def add_parser(commands: Any) -> None:
    """Register ``report`` on the ``typedmemeval`` sub-command parser."""
    report = commands.add_parser(
        "report", help="band runs of one system, compare two systems, write the HTML report")
    report.add_argument("runs", nargs="*", metavar="RUN.json",
                        help="JSON reports (--tme-report) of the same system; two or more are banded")
    report.add_argument("--merge", nargs="+", default=None, metavar="SHARD.json",
                        help="the N reports of one run split with --tme-shard K/N: write the report the "
                        "unsharded run would have written (-o), refusing missing, repeated, overlapping "
                        "or non-comparable shards")
    report.add_argument("-o", "--output", default=None, metavar="PATH",
                        help="with --merge: where the merged JSON report goes")
    report.add_argument("--fail-under", action="append", type=parse_fail_under, default=None,
                        metavar="[VERTICAL=]RATE",
                        help="with --merge: bounds evaluated on the merged report as --tme-fail-under "
                        "does at the end of a run (repeatable; default: the bounds the shards ran with)")
    report.add_argument("--compare", nargs="+", default=None, metavar="RUN.json",
                        help="reports of a second system (or of the same one after a change)")
    report.add_argument("--labels", nargs=2, default=("A", "B"), metavar=("A", "B"),
                        help="names of the two run sets in the comparison")
    report.add_argument("--html", default=None, metavar="PATH", help="write the HTML report here")
    report.add_argument("--json", default=None, metavar="PATH",
                        help="write the bands and the comparison as JSON here")
    report.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.merge is not None:
        return run_merge(args)
    if not args.runs:
        print("typedmemeval report: name at least one RUN.json (or --merge SHARD.json ...)")
        return 2
    if args.output or args.fail_under:
        print("typedmemeval report: -o and --fail-under go with --merge SHARD.json ...")
        return 2
    from .bands import BandError, band_lines, band_runs
    from .compare import compare_runs, comparison_lines
    from .document import write_report
    from .html import render_html

    try:
        reports = [read_report(Path(p)) for p in args.runs]
        others = [read_report(Path(p)) for p in args.compare] if args.compare else []
        bands = band_runs(reports) if len(reports) >= 2 else None
        comparison = (compare_runs(reports, others, labels=tuple(args.labels)) if others
                      else None)
    except (ReportInputError, BandError) as error:
        print(f"typedmemeval report: {error}")
        return 2
    lines: list[str] = []
    if bands is not None:
        lines += band_lines(bands)
    if comparison is not None:
        lines += comparison_lines(comparison)
    if bands is None and comparison is None:
        lines.append(f"one run ({len(reports[0]['questions'])} questions): nothing to band or compare")
    print("\n".join(lines))
    if args.json:
        payload = {"bands": bands.as_dict() if bands else None,
                   "comparison": comparison.as_dict() if comparison else None}
        write_report(Path(args.json), json.dumps(payload, indent=2, sort_keys=True) + "\n")
        print(f"JSON: {args.json}")
    if args.html:
        write_report(Path(args.html), render_html(reports[0], bands=bands, comparison=comparison))
        print(f"HTML report: {args.html}")
    return 0


def run_merge(args: argparse.Namespace) -> int:
    """``--merge``: write the unsharded run's report from its shards, print its summary, and exit
    as that run would have (0 passed, 1 failed: partial, a bound, a baseline change; 2 refused)."""
    from .aggregate import aggregate
    from .document import dumps_report, write_report
    from .merge import MergeError, merge_failures, merge_shards
    from .terminal import render_lines
    from .thresholds import threshold_line

    if args.runs or args.compare or args.json:
        print("typedmemeval report: --merge takes the shard reports alone (no RUN.json, --compare or --json)")
        return 2
    if not args.output:
        print("typedmemeval report: --merge needs -o PATH, where the merged report goes")
        return 2
    try:
        shards = [(Path(p), read_report(Path(p))) for p in args.merge]
        merged = merge_shards(shards, fail_under=dict(args.fail_under) if args.fail_under else None)
    except (ReportInputError, MergeError) as error:
        print(f"typedmemeval report: {error}")
        return 2
    from ..results import QuestionResult

    results = [QuestionResult.model_validate(row) for row in merged["questions"]]
    citations = {str(row["corpus_id"]): str(row["citation"]) for row in merged["corpora"]}
    lines = render_lines(aggregate(results), citations)
    if merged["thresholds"] is not None:
        from .thresholds import threshold_failures

        lines.append(threshold_line(evaluated=bool(merged["thresholds_evaluated"]),
                                    errored=sum(1 for r in results if r.outcome == "error"),
                                    partial=bool(merged["not_run"]),
                                    failures=threshold_failures(merged["thresholds"])))
    failures = merge_failures(merged)
    write_report(Path(args.output), dumps_report(merged))
    lines.append(f"merged {len(shards)} shard(s), {len(results)} question(s): {args.output}")
    if args.html:
        from .html import render_html

        write_report(Path(args.html), render_html(merged))
        lines.append(f"HTML report: {args.html}")
    if failures:
        lines.append("FAILED: " + "; ".join(failures))
    print("\n".join(lines))
    return 1 if failures else 0


def main(argv: Sequence[str] | None = None) -> int:  # pragma: no cover - a convenience for tests
    parser = argparse.ArgumentParser(prog="typedmemeval report")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["report", *(argv or [])])
    return int(args.handler(args))


__all__ = ["REPORT_KEYS", "ReportInputError", "add_parser", "read_report", "run", "run_merge"]
