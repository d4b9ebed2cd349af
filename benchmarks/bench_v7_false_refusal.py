"""False-refusal rate of V7's distribution rule on clean generated corpora, old rule vs Holm.

Not a test: run ``python benchmarks/bench_v7_false_refusal.py [--seeds 50] [--workers 2]``.

VERTICALS.md Appendix C ("§4.7 distribution rule") asks for the rule's false-refusal rate on clean
generated corpora to be measured by simulation (<= 5 %) and its power by the self-test's injected
tells. This script does both:

1. **Clean corpora under many seeds.** Every shipped declaration (``generate/verticals/<vertical>.py``) is
   built in memory through its real entry point ``build(seed, RECORDED_COMPETITION)`` for seeds
   1..N (the shipped seeds are 2026xxxx, so none of them is the shipped corpus; nothing is written,
   ``corpora/`` is never touched), and so is the gate's own one-template synthetic machinery in the
   shapes where the uncorrected rule failed: G = 1 in 8-12 sessions (CHANGELOG "Known issues": about
   half refused), G = 1 in 25 sessions, G in {1, 2, 3} and the self-test's G in {2, 3}. Each corpus
   goes through ``score_features`` and the gate's verdict with its vertical's declarations.

   *old* = the retired rule, recomputed from the same measured z: some feature (not declared exempt)
   with z >= 2.5 and X / Q >= 0.20. *new* = the gate as shipped: one-sided p Holm-adjusted over the
   features tested, <= 0.05, and X / Q >= 0.20. *gate* = the whole gate refused the corpus on any
   rule (auc, distribution, exclusivity, role_sequence, stale_exemption). Rates come with a Wilson
   95 % interval. A seed whose generator raises ``GenerationError`` (a validity rule refusing its
   own draw) is counted apart, not as a corpus.

2. **Injected tells.** The self-test's cases (each defect must be refused by its intended rule,
   each control must pass) on ``--tell-seeds`` seed offsets.

Defaults (50 seeds per generator, 200 per synthetic shape) run in about 8 minutes on 2 idle cores;
``--seeds`` and ``--synthetic-seeds`` trade time for interval width (0 refusals in n corpora gives
a Wilson upper bound of 3.84 / (n + 3.84): 7.1 % at n = 50, 1.9 % at n = 200).
"""

from __future__ import annotations

import os

# One BLAS thread per worker process, set before numpy loads: with the default thread pool, two
# forked workers on two cores oversubscribed (and once stalled) instead of running side by side.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import argparse
import signal
import sys
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_typedmemeval.corpus.loading import Corpus
from pytest_typedmemeval.corpus.models import QuestionRecord
from pytest_typedmemeval.gates import separability
from pytest_typedmemeval.gates.selftest import separability as separability_fixtures
from pytest_typedmemeval.gates.declarations import VerticalDeclarations, declarations_for
from pytest_typedmemeval.generate.registry import GENERATORS, build_records, generator_module
from pytest_typedmemeval.report.intervals import wilson_interval

OLD_Z = 2.5
"""The retired cut (GATES.md §2 before VERTICALS.md Appendix C), restated here on purpose."""
OLD_SHARE = 0.20

SYNTHETIC: dict[str, dict[str, Any]] = {
    "synthetic G=1, 8-12 sessions": {"gold_counts": (1,), "sessions": (8, 12)},
    "synthetic G=1, 25 sessions": {"gold_counts": (1,), "sessions": (25, 25)},
    "synthetic G=1-3, 8-12 sessions": {"gold_counts": (1, 2, 3), "sessions": (8, 12)},
    "synthetic G=2-3, 8-12 sessions": {"gold_counts": (2, 3), "sessions": (8, 12)},
}
"""The gate's one template machinery (40 questions each), in the shapes the CHANGELOG measured."""


@dataclass
class Outcome:
    family: str
    seed: int
    error: str | None = None
    old: bool = False
    new: bool = False
    gate: bool = False
    rules: tuple[str, ...] = ()
    old_features: tuple[str, ...] = ()
    new_features: tuple[str, ...] = ()
    tested: int = 0
    closest: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0


def wilson(hits: int, n: int) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (95 %); (0, 1) when there is no corpus."""
    return wilson_interval(hits, n) or (0.0, 1.0)


def _generated_corpus(vertical: str, seed: int) -> Corpus:
    module = generator_module(vertical)
    records = build_records(module, seed, module.RECORDED_COMPETITION)
    return Corpus(corpus_id=f"sim-{vertical}-{seed}", path=Path(f"<sim-{vertical}-{seed}>"),
                  sha256="0" * 64,
                  records=tuple(QuestionRecord.model_validate(record) for record in records),
                  sidecar=None, vertical=vertical)


class _BuildTimeout(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise _BuildTimeout


def run_one(family: str, seed: int, build_timeout: float = 6.0) -> Outcome:
    """Build one clean corpus of ``family`` at ``seed`` and judge it under both rules.

    A generator build gets ``build_timeout`` seconds of its own CPU time (a normal one takes 1-2 s;
    CPU time, not wall time, so a loaded machine does not set healthy seeds apart). No shipped
    generator is known to hang any more (Forgetting's ``_positions`` used to retry forever when a
    haystack could not hold both gaps; it now raises ``GenerationError``); the guard stays so that
    a future one cannot stall the simulation, and such a seed is counted apart like a
    ``GenerationError``."""
    from pytest_typedmemeval.generate.primitives import GenerationError

    began = time.perf_counter()
    if family in SYNTHETIC:
        corpus = separability_fixtures._build_corpus(seed, **SYNTHETIC[family])
        declared = VerticalDeclarations()
    else:
        previous = signal.signal(signal.SIGVTALRM, _alarm)
        signal.setitimer(signal.ITIMER_VIRTUAL, build_timeout)
        try:
            corpus = _generated_corpus(family, seed)
        except GenerationError as error:
            return Outcome(family, seed, error=str(error).splitlines()[0][:120],
                           seconds=time.perf_counter() - began)
        except _BuildTimeout:
            return Outcome(family, seed,
                           error=f"build did not return within {build_timeout:g} s of CPU time",
                           seconds=time.perf_counter() - began)
        finally:
            signal.setitimer(signal.ITIMER_VIRTUAL, 0)
            signal.signal(signal.SIGVTALRM, previous)
        declared = declarations_for(family)
    analysis = separability.score_features(corpus)
    result = separability._verdict(corpus, analysis, declared)
    exempt = {item.name for item in declared.separability_exemptions}
    old = tuple(sorted(score.feature for score in analysis.scores
                       if score.feature not in exempt and score.z >= OLD_Z
                       and score.perfect_share >= OLD_SHARE))
    new = tuple(sorted(r.subject for r in result.refusals if r.rule == "distribution"))
    distribution = result.measured.get("distribution", {})
    return Outcome(family, seed, old=bool(old), new=bool(new), gate=result.status == "refused",
                   rules=tuple(sorted(result.refused_rules())), old_features=old[:5],
                   new_features=new[:5], tested=int(distribution.get("features_tested", 0)),
                   closest=dict(distribution.get("closest") or {}),
                   seconds=time.perf_counter() - began)


def _run_star(task: tuple[str, int, float]) -> Outcome:
    return run_one(*task)


def _rate(hits: int, n: int) -> str:
    low, high = wilson(hits, n)
    return f"{hits:>3}/{n:<3} {100 * hits / n if n else 0:5.1f}% [{100 * low:4.1f}, {100 * high:4.1f}]"


def _table(rows: Sequence[tuple[str, list[Outcome]]]) -> list[str]:
    head = (f"{'family':<32} {'err':>3}  {'old: z>=2.5 & share>=0.2':<28} "
            f"{'new: Holm 0.05 & share>=0.2':<28} {'gate, any rule (new)':<28} m (median)")
    lines = [head, "-" * len(head)]
    for name, outcomes in rows:
        built = [o for o in outcomes if o.error is None]
        errors = len(outcomes) - len(built)
        n = len(built)
        tested = sorted(o.tested for o in built)
        median = tested[len(tested) // 2] if tested else 0
        lines.append(f"{name:<32} {errors:>3}  {_rate(sum(o.old for o in built), n):<28} "
                     f"{_rate(sum(o.new for o in built), n):<28} "
                     f"{_rate(sum(o.gate for o in built), n):<28} {median}")
    return lines


def _clean_corpora(families: Sequence[str], seeds: int, synthetic_seeds: int, workers: int,
                   build_timeout: float) -> dict[str, list[Outcome]]:
    tasks = [(family, seed, build_timeout)
             for seed in range(1, max(seeds, synthetic_seeds) + 1) for family in families
             if seed <= (synthetic_seeds if family in SYNTHETIC else seeds)]
    results: dict[str, list[Outcome]] = {family: [] for family in families}
    done = 0
    began = time.perf_counter()
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for outcome in pool.map(_run_star, tasks, chunksize=1):
            results[outcome.family].append(outcome)
            done += 1
            if done % max(1, len(tasks) // 10) == 0:
                print(f"  ... {done}/{len(tasks)} corpora, {time.perf_counter() - began:.0f} s",
                      file=sys.stderr, flush=True)
    return results


def _tells(tell_seeds: int) -> list[str]:
    lines = []
    offsets = [1000 * k for k in range(tell_seeds)]
    by_case: dict[str, list[Any]] = {}
    for offset in offsets:
        for case in separability._self_test(offset):
            by_case.setdefault(case.name, []).append(case)
    if not by_case:
        return ["(skipped)"]
    width = max(len(name) for name in by_case)
    lines.append(f"{'self-test case':<{width}}  kind     intended rule  "
                 f"held on seed offsets {', '.join(map(str, offsets))}")
    for name, cases in by_case.items():
        first = cases[0]
        verdict = "refused" if first.kind == "defect" else "passed"
        held = sum(case.ok for case in cases)
        lines.append(f"{name:<{width}}  {first.kind:<8} {first.expected_rule or '-':<14} "
                     f"{verdict if held == len(cases) else 'FAILED'} {held}/{len(cases)}")
        for case in cases:
            if not case.ok:
                lines.append(f"    FAILED: {case.detail}")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=50,
                        help="seeds per shipped generator (default 50; about 2.2 s each)")
    parser.add_argument("--synthetic-seeds", type=int, default=200,
                        help="seeds per synthetic shape (default 200; about 0.2 s each)")
    parser.add_argument("--build-timeout", type=float, default=6.0,
                        help="CPU seconds a generator build may take before its seed is set apart")
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--tell-seeds", type=int, default=3,
                        help="seed offsets (0, 1000, ...) for the self-test's injected tells")
    parser.add_argument("--only", action="append", default=None,
                        help="run only this family (repeatable; vertical or synthetic name)")
    parser.add_argument("--show", type=int, default=3,
                        help="list up to this many refused corpora per family and rule")
    args = parser.parse_args(argv)

    families = list(GENERATORS) + list(SYNTHETIC)
    if args.only:
        families = [family for family in families if family in args.only]
    began = time.perf_counter()
    print(f"V7 distribution rule: {args.seeds} seeds per generator, {args.synthetic_seeds} per "
          f"synthetic shape, {args.workers} workers, "
          f"alpha = {separability.DISTRIBUTION_ALPHA} (Holm), share floor "
          f"{separability.DISTRIBUTION_SHARE}; old rule z >= {OLD_Z}")
    results = _clean_corpora(families, args.seeds, args.synthetic_seeds, args.workers,
                             args.build_timeout)
    generated = [family for family in families if family not in SYNTHETIC]
    synthetic = [family for family in families if family in SYNTHETIC]
    rows: list[tuple[str, list[Outcome]]] = [(family, results[family]) for family in families]
    if generated:
        rows.append(("overall: shipped generators",
                     [o for family in generated for o in results[family]]))
    if synthetic:
        rows.append(("overall: synthetic machinery",
                     [o for family in synthetic for o in results[family]]))
    rows.append(("overall: all", [o for family in families for o in results[family]]))
    print()
    print("False refusal of clean corpora (count/n, rate, Wilson 95% interval):")
    print("\n".join(_table(rows)))

    print()
    print("Refused corpora (first few per family; features, closest distribution feature):")
    for family in families:
        built = [o for o in results[family] if o.error is None]
        old = [o for o in built if o.old]
        new = [o for o in built if o.new]
        other = Counter(rule for o in built for rule in o.rules if rule != "distribution")
        errors: dict[str, list[int]] = {}
        for o in results[family]:
            if o.error is not None:
                errors.setdefault(o.error, []).append(o.seed)
        if not (old or new or other or errors):
            continue
        print(f"  {family}:")
        for o in old[:args.show]:
            print(f"    old  seed {o.seed:>3}: {', '.join(o.old_features)}")
        for o in new[:args.show]:
            c = o.closest
            print(f"    new  seed {o.seed:>3}: {', '.join(o.new_features)} (z {c.get('z', 0):.2f}, "
                  f"Holm p {c.get('p_holm', 1):.3g}, share {c.get('share', 0):.2f}, m {o.tested})")
        if other:
            print(f"    other rules firing on clean corpora: {dict(other)}")
        for message, seeds in errors.items():
            print(f"    set apart x{len(seeds)}: {message} (seeds {', '.join(map(str, seeds))})")
    closest_lines = []
    for family in families:
        built = [o for o in results[family] if o.error is None]
        floor = [o.closest for o in built if o.closest.get("meets_share_floor")]
        if floor:
            best = min(floor, key=lambda c: c["p_holm"])
            closest_lines.append(f"  {family:<32} {len(floor):>3} corpora with a feature meeting "
                                 f"the share floor; lowest Holm p {best['p_holm']:.3g} "
                                 f"({best['feature']}, z {best['z']:.2f})")
    if closest_lines:
        print()
        print("Closest calls under the new rule (features meeting the share floor):")
        print("\n".join(closest_lines))

    print()
    print("Injected tells (GATES.md §2 self-test plus the Holm cases):")
    print("\n".join(_tells(args.tell_seeds)))
    print()
    print(f"total {time.perf_counter() - began:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
