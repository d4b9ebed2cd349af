"""Throughput: questions in flight in one process, and a 4-shard run plus the merge against one
run (issue 24, item 4).

**In flight** (``--tme-parallel N``): an async adapter sleeping ``--answer-sleep`` seconds (0.2) per
answer over the 260 shipped questions at N = 1, 4, 16, 64, and a sync one at N = 4; each row is the
pytest process's wall against the ideal 260 × sleep / N, beside a run of the same questions with no
sleep (what the plugin itself costs, start-up included), and whether its report equals N = 1's
(``timing`` aside). The adapters do nothing but sleep and abstain, so the rows measure the harness,
not a memory's CPU (a memory that computes in Python holds the GIL: its threads do not overlap).

**Shards**:
Runs the shipped corpora with the built-in reference agent (no network) once unsharded and once as
four ``--tme-shard K/4`` processes, one after another (each stands for one CI job), then
``typedmemeval report --merge``. Prints the walls and the ratios a CI matrix sees: the slowest
shard against the one run (the matrix's wall), the sum of the shards (its machine time, the
per-process start paid four times) and the merge; then whether the merged report equals the one
run's, ``timing`` aside. ``--sleep S`` adds S seconds to every answer, for an adapter whose answers
cost time (a model): the shard ratio then tends to 1/4. Prints figures; asserts no wall-clock.

    python benchmarks/bench_throughput.py [--part in-flight|shards|all] [--answer-sleep 0.2]
        [--sleep 0.02] [-n 2]
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


IN_FLIGHT_AGENTS = '''
import asyncio
import time

SLEEP = {sleep}
ABSTAIN = "I do not have that information."


class AsyncSleepy:
    """An async adapter whose answer awaits SLEEP seconds (a model call) and does nothing else, so
    the rows measure the harness, not a memory's own CPU."""

    async def reset(self):
        pass

    async def ingest(self, session):
        pass

    async def answer(self, question, *, query_time, instruction):
        await asyncio.sleep(SLEEP)
        return ABSTAIN


class SyncSleepy:
    def reset(self):
        pass

    def ingest(self, session):
        pass

    def answer(self, question, *, query_time, instruction):
        time.sleep(SLEEP)
        return ABSTAIN


class NoSleep(SyncSleepy):
    def answer(self, question, *, query_time, instruction):
        return ABSTAIN
'''
IN_FLIGHT_SIZES = (1, 4, 16, 64)
QUESTIONS = 260


def in_flight_rows(where: Path, sleep: float) -> list[dict[str, object]]:
    """One row per (adapter, N): the wall, the ideal QUESTIONS × sleep / N, whether the report
    equals N = 1's; first a row with no sleep (the plugin's own cost, start-up included)."""
    (where / "tme_bench_agents.py").write_text(IN_FLIGHT_AGENTS.replace("{sleep}", repr(sleep)),
                                               encoding="utf-8")
    pytest = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--typedmemeval",
              "--tme-fail-under", "0"]
    rows: list[dict[str, object]] = [{"adapter": "no-op, no sleep", "n": 1, "wall": _run(
        where, [*pytest, "--tme-agent", "tme_bench_agents:NoSleep", "--tme-report=plain.json"]),
        "ideal": None, "identical": None}]
    for adapter, sizes in (("AsyncSleepy", IN_FLIGHT_SIZES), ("SyncSleepy", (4,))):
        for n in sizes:
            report = f"{adapter}-{n}.json"
            wall = _run(where, [*pytest, "--tme-agent", f"tme_bench_agents:{adapter}",
                                f"--tme-parallel={n}", f"--tme-report={report}"])
            identical = (_without_timing(where / report, drop_options=True)
                         == _without_timing(where / "AsyncSleepy-1.json", drop_options=True))
            rows.append({"adapter": f"{'async' if adapter.startswith('Async') else 'sync'} {sleep:g} s",
                         "n": n, "wall": wall, "ideal": QUESTIONS * sleep / n, "identical": identical})
    return rows


def print_in_flight(rows: list[dict[str, object]]) -> None:
    plain = float(rows[0]["wall"])  # type: ignore[arg-type]
    print(f"questions in flight, shipped corpora ({QUESTIONS} questions), one process")
    print(f"  {'adapter':<20} {'N':>3} {'wall s':>8} {'ideal s':>8} {'wall/ideal':>10} "
          f"{'(wall-plain)/ideal':>18}  report == N=1's")
    for row in rows:
        wall = float(row["wall"])  # type: ignore[arg-type]
        ideal = row["ideal"]
        if ideal is None:
            print(f"  {row['adapter']:<20} {row['n']:>3} {wall:8.2f} {'-':>8} {'-':>10} {'-':>18}  -")
            continue
        ideal_s = float(ideal)  # type: ignore[arg-type]
        print(f"  {row['adapter']:<20} {row['n']:>3} {wall:8.2f} {ideal_s:8.2f} {wall / ideal_s:10.2f} "
              f"{(wall - plain) / ideal_s:18.2f}  {row['identical']}")


def _run(where: Path, args: list[str]) -> float:
    began = time.perf_counter()
    done = subprocess.run(args, cwd=where, capture_output=True, text=True)
    wall = time.perf_counter() - began
    if done.returncode not in (0, 1):
        sys.exit(f"{' '.join(args)} failed ({done.returncode}):\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return wall


def _without_timing(path: Path, *, drop_options: bool = False) -> dict[str, object]:
    """The report without ``timing`` (``drop_options``: nor ``options``, which name the adapter:
    to compare two adapters that answer alike)."""
    report = json.loads(path.read_text(encoding="utf-8"))
    report.pop("timing")
    if drop_options:
        report.pop("options")
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
    parser.add_argument("--part", choices=("in-flight", "shards", "all"), default="all")
    parser.add_argument("--answer-sleep", type=float, default=0.2,
                        help="seconds every answer sleeps in the in-flight rows")
    parser.add_argument("--sleep", type=float, default=0.0, help="seconds added to every answer (shards)")
    parser.add_argument("-n", default=None, help="pytest-xdist workers per process (shards)")
    args = parser.parse_args()
    if args.part in ("in-flight", "all"):
        with tempfile.TemporaryDirectory(prefix="tme-in-flight-") as scratch:
            where = Path(scratch)
            (where / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
            print_in_flight(in_flight_rows(where, args.answer_sleep))
    if args.part in ("shards", "all"):
        shards(args)


def shards(args: argparse.Namespace) -> None:
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
