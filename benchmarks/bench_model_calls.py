"""The model-call layer against a loopback server: calls on a cold vs warm cache, and the wall of
N concurrent calls against N times one call.

Not a test: a script that prints figures side by side (these machines are small and noisy; nothing
here is asserted except the one invariant the cache exists for: a warm rerun makes zero calls).

    python benchmarks/bench_model_calls.py [--calls 40] [--latency 0.05] [--concurrency 4]

The server (tests/_loopback_openai.py) answers every request after ``--latency`` seconds, standing
in for a model's think time. The control is the same N requests made one after another through the
same layer with concurrency 1, so the ratio shows what bounded concurrency buys, and the warm
figure what the cache buys (requests seen by the server, and wall time).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _loopback_openai import LoopbackOpenAI, Reply  # noqa: E402

from pytest_typedmemeval.calls import ModelCaller, ModelSettings  # noqa: E402


def _batch(n: int, tag: str) -> list[tuple[list[dict[str, str]], int | None]]:
    return [([{"role": "user", "content": f"{tag} question {i}"}], None) for i in range(n)]


def _timed(caller: ModelCaller, batch: list[tuple[list[dict[str, str]], int | None]]) -> float:
    began = time.perf_counter()
    results = caller.complete_many(batch)
    elapsed = time.perf_counter() - began
    failures = [r for r in results if isinstance(r, Exception)]
    if failures:
        raise SystemExit(f"bench: {len(failures)} calls failed, first: {failures[0]}")
    return elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=40)
    parser.add_argument("--latency", type=float, default=0.05, help="server think time, seconds")
    parser.add_argument("--concurrency", type=int, default=4)
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as scratch, \
            LoopbackOpenAI(lambda body: Reply(content="teal", delay_seconds=args.latency)) as server:
        def caller(concurrency: int, cache: Path | None) -> ModelCaller:
            return ModelCaller(ModelSettings(model="bench", base_url=server.base_url,
                                             allow_unpriced=True, concurrency=concurrency,
                                             cache_dir=cache), environ={})

        serial = caller(1, None)
        serial_wall = _timed(serial, _batch(args.calls, "serial"))
        serial.close()

        cold = caller(args.concurrency, Path(scratch) / "cache")
        before = server.count
        cold_wall = _timed(cold, _batch(args.calls, "cached"))
        cold_calls = server.count - before
        cold.close()

        warm = caller(args.concurrency, Path(scratch) / "cache")
        before = server.count
        warm_wall = _timed(warm, _batch(args.calls, "cached"))
        warm_calls = server.count - before
        warm.close()

    ideal = args.calls * args.latency / args.concurrency
    rows = [
        ("N calls one at a time (control)", serial_wall, args.calls, "1.00x"),
        (f"N calls, concurrency {args.concurrency}, cold cache", cold_wall, cold_calls,
         f"{cold_wall / serial_wall:.2f}x (ideal {ideal / serial_wall:.2f}x)"),
        ("same N calls again, warm cache", warm_wall, warm_calls, f"{warm_wall / serial_wall:.3f}x"),
    ]
    print(f"model-call layer, {args.calls} calls, server latency {args.latency * 1000:.0f} ms")
    print(f"{'run':<44} {'wall s':>8} {'server requests':>16}  ratio to control")
    for name, wall, calls, ratio in rows:
        print(f"{name:<44} {wall:>8.3f} {calls:>16}  {ratio}")
    if warm_calls != 0:
        print(f"FAIL: a warm rerun made {warm_calls} requests (must be 0)")
        return 1
    print("warm rerun made 0 requests")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
