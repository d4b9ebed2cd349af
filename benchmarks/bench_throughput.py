"""Throughput past one machine: a 4-shard run plus the merge against one run (issue 24, item 4).

Runs the shipped corpora with the built-in reference agent (no network) once unsharded and once as
four ``--tme-shard K/4`` processes, one after another (each stands for one CI job), then
``typedmemeval report --merge``. Prints the walls and the ratios a CI matrix sees: the slowest
shard against the one run (the matrix's wall), the sum of the shards (its machine time, the
per-process start paid four times) and the merge; then whether the merged report equals the one
run's, ``timing`` aside. ``--sleep S`` adds S seconds to every answer, for an adapter whose answers
cost time (a model): the shard ratio then tends to 1/4. Prints figures; asserts no wall-clock.

    python benchmarks/bench_throughput.py [--sleep 0.02] [-n 2]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SHARDS = 4
SLEEPY_CONFTEST = '''
import time
import pytest
from pytest_typedmemeval.adapter.reference_agent import LexicalMemoryAgent

class Sleepy(LexicalMemoryAgent):
    def answer(self, question, *, query_time, instruction):
        time.sleep({sleep})
        return super().answer(question, query_time=query_time, instruction=instruction)

@pytest.fixture(scope="session")
def typedmemeval_agent():
    return Sleepy()
'''


def _run(where: Path, args: list[str]) -> float:
    began = time.perf_counter()
    done = subprocess.run(args, cwd=where, capture_output=True, text=True)
    wall = time.perf_counter() - began
    if done.returncode not in (0, 1):
        sys.exit(f"{' '.join(args)} failed ({done.returncode}):\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return wall


def _without_timing(path: Path) -> dict[str, object]:
    report = json.loads(path.read_text(encoding="utf-8"))
    report.pop("timing")
    return report


def shard_and_merge(where: Path, run: list[str]) -> dict[str, float | bool]:
    """Walls of one run, of each of four shards and of the merge; whether the merge is the run."""
    pytest = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *run]
    one = _run(where, [*pytest, "--tme-report=one.json"])
    shards = [_run(where, [*pytest, f"--tme-shard={k}/{SHARDS}", f"--tme-report=shard{k}.json"])
              for k in range(1, SHARDS + 1)]
    merge = _run(where, [sys.executable, "-m", "pytest_typedmemeval.cli", "report", "--merge",
                         *(f"shard{k}.json" for k in range(1, SHARDS + 1)), "-o", "merged.json"])
    identical = _without_timing(where / "merged.json") == _without_timing(where / "one.json")
    return {"one": one, "slowest_shard": max(shards), "sum_shards": sum(shards), "merge": merge,
            "identical": identical}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sleep", type=float, default=0.0, help="seconds added to every answer")
    parser.add_argument("-n", default=None, help="pytest-xdist workers per process")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tme-throughput-") as scratch:
        where = Path(scratch)
        (where / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
        run = ["--typedmemeval", "--tme-fail-under", "0"]
        if args.sleep:
            (where / "conftest.py").write_text(SLEEPY_CONFTEST.replace("{sleep}", repr(args.sleep)),
                                               encoding="utf-8")
        else:
            run += ["--tme-agent", "reference"]
        if args.n:
            run += ["-n", args.n]
        figures = shard_and_merge(where, run)
    one = float(figures["one"])
    print(f"shipped corpora (260 questions), reference agent{f' + {args.sleep:g} s per answer' if args.sleep else ''}"
          f"{f', -n {args.n}' if args.n else ''}")
    print(f"  one run:                 {one:7.2f} s")
    print(f"  slowest of {SHARDS} shards:     {figures['slowest_shard']:7.2f} s  ({figures['slowest_shard'] / one:.2f}x "
          "the one run: the CI matrix's wall)")
    print(f"  sum of {SHARDS} shards:         {figures['sum_shards']:7.2f} s  ({figures['sum_shards'] / one:.2f}x: "
          "machine time, process start paid per shard)")
    print(f"  merge:                   {figures['merge']:7.2f} s  ({figures['merge'] / one:.2f}x)")
    print(f"  merged report == one run's (timing aside): {figures['identical']}")


if __name__ == "__main__":
    main()
