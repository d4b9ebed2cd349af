"""``typedmemeval probe``: check the options, run (or estimate) the arms, print the summary and the
probe gate's verdict on the updated corpus.

Exit codes: 0 the run completed (whatever the gate decides — a refusal is printed, not an exit
code, because the gate's verdict is the run's *result*); 1 at least one request failed (its
verdicts are ``error``, so the gate reads those questions as not measured); 2 a usage error
(bad option, unreadable corpus, no sidecar, no key, unpriced model) before any call.
"""

from __future__ import annotations

import argparse
import dataclasses
import shutil
import sys
import tempfile
from collections import Counter
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import TextIO

from ..calls import ModelCaller, ModelSettings, default_cache_dir
from ..calls.endpoint import DEFAULT_TIMEOUT_SECONDS, ModelCallError, resolve_base_url
from ..calls.settings import default_concurrency
from ..corpus.loading import Corpus, CorpusError, load_corpus
from ..gates import probes as probe_gate
from ..judge.choice import JudgeChoice, JudgeChoiceError
from ..judge.protocol import Judge
from .arms import ARMS, ArmError, parse_arms, samples_for
from .grading import decisions
from .records import read_sidecar_json
from .runner import ArmEstimate, ArmReport, ProbeOptions, ProbeUsageError, estimate, run_probes

PROG = "typedmemeval probe"
SHOWN_ERRORS = 3
"""Distinct error reasons printed per arm (every failed request is counted)."""
SHOWN_DECISIONS = 10


def today_utc() -> str:
    return datetime.now(timezone.utc).date().isoformat()


def parse_date(text: str | None) -> str:
    """``YYYY-MM-DD`` as given (today's UTC date when absent); anything else is a usage error."""
    if text is None:
        return today_utc()
    try:
        parsed = datetime.strptime(text, "%Y-%m-%d").date()
    except ValueError:
        raise ProbeUsageError(f"--date {text!r}: expected YYYY-MM-DD") from None
    if parsed.isoformat() != text:
        raise ProbeUsageError(f"--date {text!r}: expected YYYY-MM-DD (zero-padded)")
    return text


def _check_numbers(args: argparse.Namespace) -> None:
    if args.limit is not None and args.limit < 1:
        raise ProbeUsageError(f"--limit {args.limit}: must be at least 1")
    if not args.samples_scale > 0:
        raise ProbeUsageError(f"--samples-scale {args.samples_scale}: must be above 0")
    if args.concurrency is not None and args.concurrency < 1:
        raise ProbeUsageError(f"--concurrency {args.concurrency}: must be at least 1")
    timeout = getattr(args, "request_timeout", None)
    if timeout is not None and not timeout > 0:
        raise ProbeUsageError(f"--request-timeout {timeout:g}: must be above 0 seconds")
    if not 0 <= args.temperature <= 2:
        raise ProbeUsageError(f"--temperature {args.temperature}: must be within 0..2")
    if not args.max_usd >= 0:
        raise ProbeUsageError(f"--max-usd {args.max_usd}: must be at least 0")


def options_from(args: argparse.Namespace) -> ProbeOptions:
    """The run options from parsed flags (raises :class:`ProbeUsageError` / :class:`ArmError`)."""
    _check_numbers(args)
    return ProbeOptions(date=parse_date(args.date), arms=parse_arms(args.arms),
                        shapes=tuple(args.shape or ()), limit=args.limit,
                        samples_scale=args.samples_scale)


def load_corpora(paths: Sequence[str], options: ProbeOptions, *, need_sidecar: bool) -> list[Corpus]:
    """Load every corpus; a ``--shape`` no corpus has is a usage error (a typo must not run
    nothing and report success)."""
    corpora = [load_corpus(Path(path)) for path in paths]
    known = {record.shape for corpus in corpora for record in corpus.records}
    for shape in options.shapes:
        if shape not in known:
            raise ProbeUsageError(f"--shape {shape!r}: no such shape in the given corpora "
                                  f"(shapes: {', '.join(sorted(known))})")
    if need_sidecar:
        for corpus in corpora:
            read_sidecar_json(corpus)
    return corpora


def settings_from(args: argparse.Namespace, *, dry_run: bool) -> ModelSettings:
    """Model settings; a dry run resolves no API key (it never calls). Without ``--concurrency``
    the bound is what the endpoint kind sustains (:func:`..calls.settings.default_concurrency`)."""
    base_url = resolve_base_url(args.base_url)
    timeout = getattr(args, "request_timeout", None)
    fields = dict(temperature=args.temperature, seed=args.seed, max_usd=args.max_usd,
                  allow_unpriced=args.allow_unpriced,
                  concurrency=args.concurrency or default_concurrency(base_url),
                  timeout_seconds=timeout if timeout is not None else DEFAULT_TIMEOUT_SECONDS,
                  cache_dir=Path(args.cache_dir) if args.cache_dir else default_cache_dir(),
                  prices_path=Path(args.prices) if args.prices else None)
    if dry_run:
        return ModelSettings(model=args.model, base_url=base_url, **fields)
    return ModelSettings.resolve(args.model, base_url, **fields)


def concurrency_line(caller: ModelCaller) -> str:
    """How many requests were in flight, and whether the endpoint made the bound adapt."""
    start, now, timeouts = caller.inflight_bound
    kind = "local endpoint" if caller.settings.is_local else "hosted endpoint"
    line = (f"in flight: at most {start} ({kind}), request timeout "
            f"{caller.settings.timeout_seconds:g}s")
    if timeouts and now < start:
        line += (f"; {timeouts} timeout(s) lowered the bound to {now} (the endpoint does not "
                 f"sustain more; pass --concurrency {now} or a longer --request-timeout next time)")
    elif timeouts:
        line += f"; {timeouts} timeout(s): pass a longer --request-timeout next time"
    return line


# --- printing ----------------------------------------------------------------------------------


def print_estimates(rows: Sequence[ArmEstimate], caller: ModelCaller, options: ProbeOptions,
                    out: TextIO) -> None:
    print(f"dry run: model {caller.settings.model} at {caller.settings.base_url}, max_tokens "
          f"{caller.settings.max_tokens}, ceiling ${caller.settings.max_usd:g}; no request sent",
          file=out)
    print(f"{'corpus':<36} {'arm':<4} {'samples':>7} {'questions':>9} {'requests':>8} "
          f"{'cached':>6} {'to send':>7} {'worst USD':>10}", file=out)
    for row in rows:
        worst = "unpriced" if row.worst_usd is None else f"{row.worst_usd:.4f}"
        samples = samples_for(ARMS[row.arm], options.samples_scale)
        print(f"{row.corpus_id:<36} {row.arm:<4} {samples:>7} {row.questions:>9} {row.requests:>8} "
              f"{row.cached:>6} {row.to_send:>7} {worst:>10}", file=out)
    total = sum(row.to_send for row in rows)
    if caller.price is None and caller.settings.allow_unpriced:
        # Issue 22, item 7: the flag was given; saying "pass --allow-unpriced" would send the user
        # in a circle.
        bound = ("no bound: the model is unpriced and --allow-unpriced runs it as free (the ceiling "
                 "cannot stop it; give it a price, zero for a free local server, with --prices)")
    elif caller.price is None:
        bound = ("no bound: the model is unpriced (add it to --prices, zero for a free local "
                 "server, or pass --allow-unpriced to run it as free)")
    else:
        worst = sum(row.worst_usd or 0.0 for row in rows)
        bound = f"worst case ${worst:.4f}" + (" — above the ceiling: the run would stop at "
                                              f"${caller.settings.max_usd:g}"
                                              if worst > caller.settings.max_usd else "")
    print(f"total: {sum(r.requests for r in rows)} requests, {total} to send; {bound}", file=out)


def _print_reports(reports: Sequence[ArmReport], out: TextIO) -> None:
    print(f"{'corpus':<36} {'arm':<4} {'questions':>9} {'requests':>8} {'calls':>6} "
          f"{'cache hits':>10} {'errors':>6} {'spent USD':>10}  outcomes", file=out)
    for r in reports:
        outcomes = ", ".join(f"{name} {count}" for name, count in sorted(r.outcomes.items()))
        print(f"{r.corpus_id:<36} {r.arm:<4} {r.questions:>9} {r.requests:>8} {r.calls:>6} "
              f"{r.cache_hits:>10} {r.error_count:>6} {r.spent_usd:>10.6f}  {outcomes}", file=out)
    for r in reports:
        if not r.errors:
            continue
        reasons = Counter(reason for _, _, reason in r.errors)
        first = {reason: f"{qid}#{sample}" for qid, sample, reason in reversed(r.errors)}
        print(f"errors in {r.corpus_id} {r.arm} ({r.error_count} request(s), recorded as outcome "
              f"'error', never graded):", file=out)
        for reason, count in reasons.most_common(SHOWN_ERRORS):
            print(f"  {count} x {reason} (e.g. {first[reason]})", file=out)
        if len(reasons) > SHOWN_ERRORS:
            print(f"  ... and {len(reasons) - SHOWN_ERRORS} other reason(s)", file=out)


def _print_corpus_verdicts(corpus: Corpus, out: TextIO) -> str:
    """V2/V3/V6 decisions and the probe gate for the reloaded corpus; returns the gate status."""
    records = corpus.sidecar.probe_records if corpus.sidecar is not None else ()
    decided = decisions(records, corpus.records)
    tally = Counter((d.arm, d.decision) for d in decided)
    if decided:
        summary = ", ".join(f"{arm} {decision} {count}"
                            for (arm, decision), count in sorted(tally.items()))
        print(f"{corpus.corpus_id}: V2/V3/V6 decisions: {summary}", file=out)
        flagged = [d for d in decided if d.decision in ("discard", "not_decidable")]
        for decision in flagged[:SHOWN_DECISIONS]:
            print(f"  {decision.line()}", file=out)
        if len(flagged) > SHOWN_DECISIONS:
            print(f"  ... and {len(flagged) - SHOWN_DECISIONS} more", file=out)
    result = probe_gate.check(corpus)
    print(f"{corpus.corpus_id}: probe gate {result.status.upper()}", file=out)
    print("  " + result.summary().replace("\n", "\n  "), file=out)
    return result.status


def judge_from(args: argparse.Namespace, settings: ModelSettings) -> Judge | None:
    """The hybrid judge of ``--judge hybrid`` under the run's guard (same cache, ledger and
    ceiling as the answering model), checked now; ``None`` for the mechanical judge."""
    if getattr(args, "judge", "mechanical") != "hybrid":
        return None
    choice = JudgeChoice(mode="hybrid", model=args.judge_model or args.model,
                         base_url=args.judge_base_url or settings.base_url,
                         timeout_seconds=settings.timeout_seconds)
    guard = {"max_usd": settings.max_usd, "allow_unpriced": settings.allow_unpriced,
             "cache_dir": settings.cache_dir, "prices_path": settings.prices_path,
             "ledger_path": settings.ledger_path, "concurrency": settings.concurrency}
    choice.check(guard)
    return choice.build(guard)


def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """The ``probe`` subcommand (module docstring for exit codes). Streams default to the
    process's at call time (not import time, so a captured stdout is honoured)."""
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    judge: Judge | None = None
    try:
        options = options_from(args)
        corpora = load_corpora(args.corpus, options, need_sidecar=not args.dry_run)
        settings = settings_from(args, dry_run=args.dry_run)
        if not args.dry_run:
            # One ledger for the answering model and a hybrid judge: one ceiling for the run.
            ledger_dir = Path(tempfile.mkdtemp(prefix="typedmemeval-probe-ledger-"))
            settings = dataclasses.replace(settings, ledger_path=ledger_dir / "ledger.json")
        caller = ModelCaller(settings)
        if args.dry_run:
            print_estimates(estimate(corpora, caller, options), caller, options, out)
            return 0
        caller.check()
        judge = judge_from(args, settings)
    except (ProbeUsageError, ArmError, CorpusError, ModelCallError, JudgeChoiceError) as error:
        print(f"{PROG}: {error}", file=err)
        return 2
    try:
        reports = run_probes(corpora, caller, options, stream=err, judge=judge)
        ledger = caller.ledger.snapshot()  # read before the run's ledger file is removed below
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted; every finished arm is already in its sidecar, and a rerun "
              "reuses every cached reply", file=err)
        return 130
    finally:
        caller.close()
        close_judge = getattr(judge, "close", None)
        if callable(close_judge):
            close_judge()
        if settings.ledger_path is not None:
            shutil.rmtree(settings.ledger_path.parent, ignore_errors=True)
    print(f"probe run: model {settings.model}, date {options.date}, seed {settings.seed}, "
          f"temperature {settings.temperature:g}", file=out)
    print(concurrency_line(caller), file=out)
    _print_reports(reports, out)
    statuses = [_print_corpus_verdicts(load_corpus(corpus.path), out) for corpus in corpora]
    errors = sum(r.error_count for r in reports)
    print(f"spent ${float(ledger['spent_usd']):.6f} of ${settings.max_usd:g}; "
          f"{ledger['calls']} call(s), {ledger['cache_hits']} cache hit(s)", file=out)
    if errors:
        print(f"RUN INCOMPLETE: {errors} request(s) failed and are recorded as 'error' (not "
              "measured); fix the cause and rerun — cached replies are free", file=out)
        return 1
    if "refused" in statuses:
        print("run complete; the probe gate REFUSES at least one corpus (the measurement stands: "
              "this is the corpus's verdict, not a run failure)", file=out)
    else:
        print("run complete", file=out)
    return 0


__all__ = ["PROG", "concurrency_line", "load_corpora", "options_from", "parse_date", "run", "settings_from"]
