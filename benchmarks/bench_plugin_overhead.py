"""Plugin overhead per question, as a ratio against a bare parametrized test of the same size.

Not a test: wall-clock figures on a small shared machine are noisy, so this prints medians of
interleaved rounds side by side and never asserts. Run: ``python benchmarks/bench_plugin_overhead.py``
(optionally ``--questions 500 --rounds 5``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
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

BARE_TEST = '''
import pytest

@pytest.mark.parametrize("i", range({n}))
def test_bare(i):
    pass
'''


def _record(index: int) -> dict:
    day = 1 + index % 20
    stamp = f"2026/03/{day:02d} ({date(2026, 3, day):%a}) 09:00"
    return {
        "question_id": f"tme-ari-{index:03d}",
        "question_type": "sums", "question": f"How much did I spend on item {index}?", "answer": "12 USD",
        "question_date": "2026/03/28 (Sat) 09:00",
        "haystack_session_ids": ["sa", "sb", "sc"],
        "haystack_dates": [stamp] * 3,
        "haystack_sessions": [[{"role": "user", "content": f"I paid 5 dollars for item {index}.", "has_answer": True},
                               {"role": "assistant", "content": "Noted."}]] * 3,
        "answer_session_ids": ["sa", "sb", "sc"],
        "typedmemeval": {"vertical": "arithmetic", "shape": "sums",
                         "answer_key": {"numeric": {"value": 12, "unit": "USD"}}},
    }


def _run(args: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args], cwd=cwd,
                   check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--questions", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    n = min(options.questions, 999)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        plugin_dir, bare_dir = root / "plugin", root / "bare"
        plugin_dir.mkdir(), bare_dir.mkdir()
        records = [_record(i) for i in range(n)]
        (plugin_dir / "synthetic.json").write_text(json.dumps(records), encoding="utf-8")
        (plugin_dir / "conftest.py").write_text(NOOP_CONFTEST, encoding="utf-8")
        (bare_dir / "test_bare.py").write_text(BARE_TEST.format(n=n), encoding="utf-8")
        plugin_times, bare_times = [], []
        _run(["--tme-corpus", "synthetic.json", "--tme-fail-under", "0"], plugin_dir)  # warm caches
        for _ in range(options.rounds):  # interleaved, so machine noise hits both sides alike
            bare_times.append(_run([], bare_dir))
            plugin_times.append(_run(["--tme-corpus", "synthetic.json", "--tme-fail-under", "0"], plugin_dir))
        bare, plugin = statistics.median(bare_times), statistics.median(plugin_times)
        print(f"items: {n}, rounds: {options.rounds} (median wall time of a whole pytest process)")
        print(f"  bare parametrized test : {bare:7.3f} s  ({bare / n * 1e3:6.3f} ms/item)")
        print(f"  TypedMemEval, no-op agent: {plugin:7.3f} s  ({plugin / n * 1e3:6.3f} ms/item)")
        print(f"  ratio plugin / bare    : {plugin / bare:7.2f}x")
        print(f"  per-question overhead  : {(plugin - bare) / n * 1e3:6.3f} ms")


if __name__ == "__main__":
    main()
