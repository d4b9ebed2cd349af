"""Plugin overhead as ratios against bare pytest controls: every figure of issue 13 in one run.

Not a test: wall-clock figures on a small shared machine are noisy, so this prints medians of
interleaved rounds (plugin and bare control alternate, so noise hits both alike) and never asserts.
Each row shows the plugin figure, its bare control, the ratio and the goal beside it:

- P1  whole process, no-op adapter: the shipped 260 questions and synthetic corpora of N questions
      (``--sizes``), each as a repeated run and as a first run (a clean checkout: no pytest cache,
      so every corpus is validated record by record; issue 24), against a bare parametrized test of
      the same item count (its own first run for a first run); the marginal cost per item between
      consecutive sizes, plugin vs bare (flat = the same at every size), repeated and first runs;
- P1m peak RSS of the largest synthetic run vs the bare run of the same size (``os.wait4``);
- P2  ``--co`` over the shipped 260 questions vs a bare ``--co``;
- P3  ``-n 2`` with an adapter that sleeps 20 ms per question vs a bare test sleeping 20 ms, a
      repeated run and a first run;
- P4  an unrelated project (one trivial test), milliseconds added per pytest start (issue 22,
      item 6), in venvs built offline from this environment's distributions (``_subset_venv``):
      the plugin's own share (the plugin as ``pip install pytest-typedmemeval`` installs it, no
      extras, vs the same venv with ``-p no:typedmemeval``); that install in all (its dependencies'
      pytest plugins, xdist and syrupy, included) vs a venv with only pytest; and, for information,
      this environment as it is (e.g. with the ``models`` extra, whose anyio adds a plugin) vs the
      pytest-only venv;
- P5  the model-free gates over the shipped corpora vs one no-op benchmark run of them: a repeated
      run (verdicts of unchanged inputs replayed from pytest's cache) and a first run.

Synthetic corpora clone the shipped records (real haystack sizes, ~150 turns a question) under new
question ids, at most 1,000 per file (the id form allows three digits); ``--record tiny`` uses a
3-session record instead. ``--keep DIR`` leaves the corpora there (e.g. to prove the report
byte-identical across a change).

    python benchmarks/bench_plugin_overhead.py                 # rounds 5, sizes 1000,5000
    python benchmarks/bench_plugin_overhead.py --full          # adds 20,000 (minutes, GiB of RAM)
    python benchmarks/bench_plugin_overhead.py --quick         # CI: 2 rounds, small sizes; report only
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

NOOP_CONFTEST = '''
import pytest

class NoOp:
    def reset(self): pass
    def ingest(self, session): pass
    def answer(self, question, *, query_time, instruction): return "I don't know."

@pytest.fixture(scope="session")
def typedmemeval_agent():
    return NoOp()
'''

SLEEP_CONFTEST = '''
import time
import pytest

class Sleeper:
    def reset(self): pass
    def ingest(self, session): pass
    def answer(self, question, *, query_time, instruction):
        time.sleep({seconds})
        return "I don't know."

@pytest.fixture(scope="session")
def typedmemeval_agent():
    return Sleeper()
'''

BARE_TEST = '''
import pytest

@pytest.mark.parametrize("i", range({n}))
def test_bare(i):
    pass
'''

BARE_SLEEP_TEST = '''
import time
import pytest

@pytest.mark.parametrize("i", range({n}))
def test_bare(i):
    time.sleep({seconds})
'''

UNRELATED_TEST = '''
def test_unrelated():
    assert 1 + 1 == 2
'''

MODEL_FREE_GATES = ("tme_gate_structure or tme_gate_separability or tme_gate_calibration or "
                    "tme_gate_leaks or tme_gate_adversaries or tme_gate_probes")
NOOP_ARGS = ["--tme-fail-under", "0"]
"""Threshold mode: a no-op adapter's wrong answers do not fail items one by one (no failure text)."""
COLD = ["-p", "no:cacheprovider"]
"""A first run on a clean checkout: no pytest cache, so every corpus is validated record by record
(with the cache, a repeated run reuses the validated index of unchanged corpus bytes)."""
SLEEP_SECONDS = 0.02
PER_FILE = 1000


def _repo_root() -> Path:
    return Path(__file__).resolve().parents[1]


def _shipped_records() -> list[dict]:
    records: list[dict] = []
    for path in sorted((_repo_root() / "corpora").glob("*.json")):
        if not path.name.endswith(".sidecar.json"):
            records += json.loads(path.read_text(encoding="utf-8"))
    return records


def _tiny_record(index: int) -> dict:
    day = 1 + index % 20
    stamp = f"2026/03/{day:02d} ({date(2026, 3, day):%a}) 09:00"
    return {
        "question_id": "", "question_type": "sums", "question": f"How much did I spend on item {index}?",
        "answer": "12 USD", "question_date": "2026/03/28 (Sat) 09:00",
        "haystack_session_ids": ["sa", "sb", "sc"], "haystack_dates": [stamp] * 3,
        "haystack_sessions": [[{"role": "user", "content": f"I paid 5 dollars for item {index}.", "has_answer": True},
                               {"role": "assistant", "content": "Noted."}]] * 3,
        "answer_session_ids": ["sa", "sb", "sc"],
        "typedmemeval": {"vertical": "arithmetic", "shape": "sums",
                         "answer_key": {"numeric": {"value": 12, "unit": "USD"}}},
    }


def _prefix(file_index: int) -> str:
    return "s" + chr(97 + file_index // 26 % 26) + chr(97 + file_index % 26)


def write_synthetic(directory: Path, n: int, kind: str = "shipped") -> list[Path]:
    """``n`` questions in files of at most 1,000 (``synthetic-NNN.json``); deterministic bytes."""
    directory.mkdir(parents=True, exist_ok=True)
    source = _shipped_records() if kind == "shipped" else None
    paths = []
    for file_index, start in enumerate(range(0, n, PER_FILE)):
        records = []
        for index in range(start, min(n, start + PER_FILE)):
            record = dict(source[index % len(source)]) if source is not None else _tiny_record(index)
            record["question_id"] = f"tme-{_prefix(file_index)}-{index - start:03d}"
            block = dict(record["typedmemeval"])
            block["pair_id"], block["arm"] = None, None  # pair ids allow only 100 per prefix
            record["typedmemeval"] = block
            records.append(record)
        path = directory / f"synthetic-{file_index:03d}.json"
        path.write_text(json.dumps(records), encoding="utf-8")
        paths.append(path)
    return paths


@dataclass
class Run:
    seconds: float
    peak_rss_mib: float
    code: int


def run_pytest(args: list[str], cwd: Path, env: dict[str, str] | None = None,
               python: str | Path = sys.executable) -> Run:
    """One whole pytest process: wall seconds and its own peak RSS (``os.wait4``, not the max over
    every child so far)."""
    started = time.perf_counter()
    # As a user times it: bytecode (and pytest's assertion-rewrite cache of the plugin's modules)
    # is written and reused. A machine exporting PYTHONDONTWRITEBYTECODE would otherwise charge
    # the plugin a full parse and rewrite of its modules on every start (about 0.25 s measured
    # here) that no user with default settings pays after the first run.
    env = {key: value for key, value in (env or os.environ).items() if key != "PYTHONDONTWRITEBYTECODE"}
    process = subprocess.Popen([str(python), "-m", "pytest", "-q", *args], cwd=cwd,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - started
    # ru_maxrss is KiB on Linux; under xdist it is the controller's (workers are grandchildren).
    return Run(seconds, usage.ru_maxrss / 1024, process.returncode)


@dataclass
class Pair:
    """A plugin command and its bare control, run alternately."""

    name: str
    plugin: Callable[[], Run]
    bare: Callable[[], Run]
    plugin_runs: list[Run] = field(default_factory=list)
    bare_runs: list[Run] = field(default_factory=list)

    def round(self) -> None:
        self.bare_runs.append(self.bare())
        self.plugin_runs.append(self.plugin())

    @property
    def plugin_s(self) -> float:
        return statistics.median(r.seconds for r in self.plugin_runs)

    @property
    def bare_s(self) -> float:
        return statistics.median(r.seconds for r in self.bare_runs)

    @property
    def ratio_range(self) -> tuple[float, float]:
        """The lowest and highest plugin / bare ratio of a single round: the noise beside the
        ratio of medians (each round's two runs are taken back to back)."""
        ratios = [a.seconds / b.seconds for a, b in zip(self.plugin_runs, self.bare_runs)]
        return min(ratios), max(ratios)

    @property
    def plugin_rss(self) -> float:
        return statistics.median(r.peak_rss_mib for r in self.plugin_runs)

    @property
    def bare_rss(self) -> float:
        return statistics.median(r.peak_rss_mib for r in self.bare_runs)


def _start_up_venvs(root: Path) -> tuple[Path, Path] | None:
    """(pytest-only python, plugin-without-extras python), linked from this environment; ``None``
    (P4 skipped, with the reason) when a distribution cannot be linked."""
    from _subset_venv import SubsetError, build, closure, names

    try:
        bare = closure(["pytest"])
        core = closure(["pytest-typedmemeval"])
        pytest_only = build(root / "venv-pytest-only", bare)
        plugin = build(root / "venv-plugin", core)
    except (SubsetError, OSError, subprocess.CalledProcessError) as error:
        print(f"P4 skipped: cannot build the comparison venvs ({error})", file=sys.stderr)
        return None
    print(f"P4 venvs: pytest-only = {', '.join(names(bare))}", file=sys.stderr)
    print(f"P4 venvs: plugin adds {', '.join(sorted(set(names(core)) - set(names(bare))))}",
          file=sys.stderr)
    return pytest_only, plugin


def _verdict(value: float, goal: float) -> str:
    return "met" if value <= goal else "MISSED"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=None, help="interleaved rounds (default 5; --quick 2)")
    parser.add_argument("--sizes", default=None,
                        help="synthetic corpus sizes, comma-separated (default 1000,5000; --full adds "
                             "20000; --quick 500,2000)")
    parser.add_argument("--record", choices=("shipped", "tiny"), default="shipped",
                        help="synthetic record: a clone of a shipped record (default) or a 3-session one")
    parser.add_argument("--quick", action="store_true", help="fewer rounds and sizes (CI: report only)")
    parser.add_argument("--full", action="store_true", help="also 20,000 questions")
    parser.add_argument("--skip", default="", help="comma-separated figures to skip: p1,p2,p3,p4,p5")
    parser.add_argument("--keep", type=Path, default=None, help="write the synthetic corpora here and keep them")
    options = parser.parse_args(argv)
    rounds = options.rounds or (2 if options.quick else 5)
    if options.sizes:
        sizes = [int(s) for s in options.sizes.split(",")]
    else:
        sizes = [500, 2000] if options.quick else [1000, 5000] + ([20000] if options.full else [])
    skip = set(filter(None, options.skip.lower().split(",")))
    with tempfile.TemporaryDirectory(prefix="tme-bench-") as tmp:
        root = Path(tmp)
        corpus_root = options.keep or root / "corpora"

        def make(name: str, files: dict[str, str]) -> Path:
            directory = root / name
            directory.mkdir()
            for file_name, text in files.items():
                (directory / file_name).write_text(text, encoding="utf-8")
            return directory

        noop = make("noop", {"conftest.py": NOOP_CONFTEST})
        sleeper = make("sleep", {"conftest.py": SLEEP_CONFTEST.format(seconds=SLEEP_SECONDS)})
        unrelated = make("unrelated", {"test_unrelated.py": UNRELATED_TEST})
        shipped_n = len(_shipped_records())
        bare_dirs: dict[int, Path] = {}

        def bare_dir(n: int) -> Path:
            if n not in bare_dirs:
                bare_dirs[n] = make(f"bare{n}", {"test_bare.py": BARE_TEST.format(n=n)})
            return bare_dirs[n]

        bare_sleep = make("baresleep", {"test_bare.py": BARE_SLEEP_TEST.format(n=shipped_n, seconds=SLEEP_SECONDS)})
        corpus_args: dict[int, list[str]] = {}
        for n in sizes:
            paths = write_synthetic(corpus_root / f"n{n}", n, options.record)
            corpus_args[n] = [f"--tme-corpus={p}" for p in paths]

        pairs: list[Pair] = []
        if "p1" not in skip:
            pairs.append(Pair("shipped", lambda: run_pytest(["--typedmemeval", *NOOP_ARGS], noop),
                              lambda: run_pytest([], bare_dir(shipped_n))))
            pairs.append(Pair("shipped-cold", lambda: run_pytest(["--typedmemeval", *NOOP_ARGS, *COLD], noop),
                              lambda: run_pytest([*COLD], bare_dir(shipped_n))))
            for n in sizes:
                # One project per size: the synthetic corpora of every size share file names, so in
                # one project each size would evict the others' validated indexes from pytest's cache.
                project = make(f"noop{n}", {"conftest.py": NOOP_CONFTEST})
                pairs.append(Pair(f"n{n}",
                                  lambda n=n, project=project: run_pytest([*corpus_args[n], *NOOP_ARGS], project),
                                  lambda n=n: run_pytest([], bare_dir(n))))
                pairs.append(Pair(f"n{n}-cold",
                                  lambda n=n, project=project: run_pytest([*corpus_args[n], *NOOP_ARGS, *COLD],
                                                                          project),
                                  lambda n=n: run_pytest([*COLD], bare_dir(n))))
        if "p2" not in skip:
            pairs.append(Pair("co", lambda: run_pytest(["--typedmemeval", "--co"], noop),
                              lambda: run_pytest(["--co"], bare_dir(shipped_n))))
        if "p3" not in skip:
            pairs.append(Pair("xdist", lambda: run_pytest(["--typedmemeval", "-n", "2", *NOOP_ARGS], sleeper),
                              lambda: run_pytest(["-n", "2"], bare_sleep)))
            pairs.append(Pair("xdist-cold",
                              lambda: run_pytest(["--typedmemeval", "-n", "2", *NOOP_ARGS, *COLD], sleeper),
                              lambda: run_pytest(["-n", "2", *COLD], bare_sleep)))
        if "p4" not in skip:
            venvs = _start_up_venvs(root)
            if venvs is not None:
                pytest_only, core = venvs
                pairs.append(Pair("unrelated-own", lambda: run_pytest([], unrelated, python=core),
                                  lambda: run_pytest(["-p", "no:typedmemeval"], unrelated, python=core)))
                pairs.append(Pair("unrelated-install", lambda: run_pytest([], unrelated, python=core),
                                  lambda: run_pytest([], unrelated, python=pytest_only)))
                pairs.append(Pair("unrelated-here", lambda: run_pytest([], unrelated),
                                  lambda: run_pytest([], unrelated, python=pytest_only)))
        if "p5" not in skip:
            pairs.append(Pair("gates", lambda: run_pytest(["--typedmemeval", "-m", MODEL_FREE_GATES], noop),
                              lambda: run_pytest(["--typedmemeval", *NOOP_ARGS], noop)))
            pairs.append(Pair("gates-cold", lambda: run_pytest(["--typedmemeval", "-m", MODEL_FREE_GATES, *COLD], noop),
                              lambda: run_pytest(["--typedmemeval", *NOOP_ARGS, *COLD], noop)))
        for pair in pairs:  # warm the file cache and .pyc files once, unmeasured
            pair.plugin(), pair.bare()
        for index in range(rounds):
            for pair in pairs:
                pair.round()
            print(f"  round {index + 1}/{rounds} done", file=sys.stderr, flush=True)
        by_name = {pair.name: pair for pair in pairs}
        _print_table(by_name, sizes, shipped_n, rounds, options.record)
    return 0


def _print_table(pairs: dict[str, Pair], sizes: list[int], shipped_n: int, rounds: int, record: str) -> None:
    print(f"TypedMemEval plugin overhead (issue 13): medians of {rounds} interleaved round(s), "
          f"no-op adapter unless stated, synthetic records: {record}")
    header = f"{'goal':<5} {'figure':<52} {'plugin':>12} {'bare':>12} {'ratio':>8}  {'goal':<10} verdict"
    print(header)
    print("-" * len(header))

    def row(goal: str, figure: str, plugin: str, bare: str, ratio: float, bound: float, unit: str = "x",
            pair: Pair | None = None) -> None:
        shown = f"{ratio:.2f}{unit}" if unit == "x" else f"{ratio:+.0f}{unit}"
        noise = ""
        if pair is not None and unit == "x":
            low, high = pair.ratio_range
            noise = f"  (rounds {low:.2f}-{high:.2f})"
        print(f"{goal:<5} {figure:<52} {plugin:>12} {bare:>12} {shown:>8}  <= {bound:g}{unit:<6} "
              f"{_verdict(ratio, bound)}{noise}")

    if "shipped" in pairs:
        p = pairs["shipped"]
        row("P1", f"whole process, shipped {shipped_n} questions", f"{p.plugin_s:.2f} s", f"{p.bare_s:.2f} s",
            p.plugin_s / p.bare_s, 1.5, pair=p)
    if "shipped-cold" in pairs:
        p = pairs["shipped-cold"]
        row("P1", "  the same, first run (no pytest cache)", f"{p.plugin_s:.2f} s", f"{p.bare_s:.2f} s",
            p.plugin_s / p.bare_s, 1.5, pair=p)
    for n in sizes:
        p = pairs.get(f"n{n}")
        if p is not None:
            row("P1", f"whole process, {n:,} questions", f"{p.plugin_s / n * 1e3:.2f} ms/it",
                f"{p.bare_s / n * 1e3:.2f} ms/it", p.plugin_s / p.bare_s, 1.3 if n >= 5000 else 1.5, pair=p)
        cold = pairs.get(f"n{n}-cold")
        if cold is not None:
            row("P1", "  the same, first run (no pytest cache)", f"{cold.plugin_s / n * 1e3:.2f} ms/it",
                f"{cold.bare_s / n * 1e3:.2f} ms/it", cold.plugin_s / cold.bare_s, 2.0 if n >= 5000 else 1.5, pair=cold)
    measured = [n for n in sizes if f"n{n}" in pairs]
    marginals = []
    for small, large in zip(measured, measured[1:]):
        for suffix, label in (("", "marginal per item"), ("-cold", "  first run, marginal per item")):
            a, b = pairs.get(f"n{small}{suffix}"), pairs.get(f"n{large}{suffix}")
            if a is None or b is None:
                continue
            plugin_m = (b.plugin_s - a.plugin_s) / (large - small) * 1e3
            bare_m = (b.bare_s - a.bare_s) / (large - small) * 1e3
            if not suffix:
                marginals.append(plugin_m)
            print(f"{'P1':<5} {f'{label}, {small:,} -> {large:,}':<52} {plugin_m:>7.2f} ms/it "
                  f"{bare_m:>7.2f} ms/it {plugin_m / bare_m if bare_m > 0 else float('nan'):>7.2f}x  (flat in N)")
    if len(marginals) >= 2:
        growth = marginals[-1] / marginals[0] if marginals[0] > 0 else float("nan")
        print(f"{'P1':<5} {'marginal growth, last step / first step':<52} {'':>12} {'':>12} {growth:>7.2f}x  "
              f"<= 1.2x    {_verdict(growth, 1.2)}")
    if measured:
        largest = pairs[f"n{measured[-1]}"]
        row("P1m", f"peak RSS, {measured[-1]:,} questions (goal at 20,000)", f"{largest.plugin_rss:.0f} MiB",
            f"{largest.bare_rss:.0f} MiB", largest.plugin_rss / largest.bare_rss, 2.0)
    if "co" in pairs:
        p = pairs["co"]
        row("P2", f"--co, shipped {shipped_n} questions", f"{p.plugin_s:.2f} s", f"{p.bare_s:.2f} s",
            p.plugin_s / p.bare_s, 1.1, pair=p)
    if "xdist" in pairs:
        p = pairs["xdist"]
        ideal = shipped_n * SLEEP_SECONDS / 2
        row("P3", f"-n 2, {SLEEP_SECONDS * 1e3:.0f} ms adapter, {shipped_n} questions (ideal {ideal:.1f} s)",
            f"{p.plugin_s:.2f} s", f"{p.bare_s:.2f} s", p.plugin_s / p.bare_s, 1.1, pair=p)
        print(f"{'':<5} {'  plugin / ideal N*sleep/2':<52} {'':>12} {'':>12} {p.plugin_s / ideal:>7.2f}x")
    if "xdist-cold" in pairs:
        p = pairs["xdist-cold"]
        row("P3", "  the same, first run (no pytest cache)", f"{p.plugin_s:.2f} s", f"{p.bare_s:.2f} s",
            p.plugin_s / p.bare_s, 1.15, pair=p)
    if "unrelated-own" in pairs:
        p = pairs["unrelated-own"]
        row("P4", "unrelated project: plugin's own share (vs -p no:)", f"{p.plugin_s:.3f} s",
            f"{p.bare_s:.3f} s", (p.plugin_s - p.bare_s) * 1e3, 30, unit=" ms")
    if "unrelated-install" in pairs:
        p = pairs["unrelated-install"]
        row("P4", "  plugin install, no extras (vs pytest-only venv)", f"{p.plugin_s:.3f} s",
            f"{p.bare_s:.3f} s", (p.plugin_s - p.bare_s) * 1e3, 200, unit=" ms")
    if "unrelated-here" in pairs:
        p = pairs["unrelated-here"]
        print(f"{'P4':<5} {'  this environment as is (vs pytest-only venv)':<52} {p.plugin_s:>10.3f} s "
              f"{p.bare_s:>10.3f} s {(p.plugin_s - p.bare_s) * 1e3:>+6.0f} ms  (information: extras "
              "installed here count)")
    if "gates" in pairs:
        p = pairs["gates"]
        row("P5", "model-free gates, shipped corpora (vs one no-op run)", f"{p.plugin_s:.2f} s",
            f"{p.bare_s:.2f} s", p.plugin_s / p.bare_s, 1.0, pair=p)
    if "gates-cold" in pairs:
        p = pairs["gates-cold"]
        row("P5", "  the same, first run (no pytest cache: all computed)", f"{p.plugin_s:.2f} s",
            f"{p.bare_s:.2f} s", p.plugin_s / p.bare_s, 3.0, pair=p)


if __name__ == "__main__":
    sys.exit(main())
