"""Size and speed of the HTML report at 260 and 5,000 questions, and its load time in headless
Chromium when one is installed. Prints figures; asserts nothing.

The 260-question report is synthesized from the shipped corpora's shape mix (every vertical, every
shape, realistic text lengths); the 5,000-question report replicates its rows with fresh ids, the
size a large LLM-backed run reaches. Bands are rendered over three perturbed copies.

    python benchmarks/bench_html_report.py [--report run.json]
"""

from __future__ import annotations

import argparse
import copy
import json
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from pytest_typedmemeval import QuestionResult
from pytest_typedmemeval.report.aggregate import aggregate
from pytest_typedmemeval.report.bands import band_runs
from pytest_typedmemeval.report.html import render_html

CHROMIUM = Path("/usr/bin/chromium")
SHAPES = {"arithmetic": ["durations", "deltas", "counts", "sums"], "episodic": ["assistant-stated", "list-order"],
          "forgetting": ["never-known", "invalidated", "still-valid"], "prospective": ["not-yet-true", "due-later"],
          "workingmemory": ["distance-8", "distance-15", "distance-25", "distance-40", "distance-60"]}
OUTCOMES = ("correct", "wrong", "missed", "abstained", "unjudged", "correct", "premature")


def synthetic_rows(n: int, seed: int = 0) -> list[dict[str, Any]]:
    rows = []
    pairs = [(v, s) for v, shapes in SHAPES.items() for s in shapes]
    for i in range(n):
        vertical, shape = pairs[i % len(pairs)]
        outcome = OUTCOMES[(i * 7 + seed * (i % 3)) % len(OUTCOMES)]
        rows.append({
            "corpus_id": f"typedmemeval-{vertical}-v2", "corpus_sha256": "a" * 64, "question_id": f"q-{i:05d}",
            "vertical": vertical, "shape": shape, "outcome": outcome,
            "reason": "the rules cannot read this answer: no figure found",
            "question": "How many days in total were the marquee and the moped away for repair last spring?",
            "gold": "46 days", "answer": "I took the marquee in for repair today, and the moped went the week after.",
            "coverage": (i % 5) / 4 if i % 11 else None, "coverage_source": "context", "attribution": "partial",
            "distance_sessions": int(shape.split("-")[1]) if vertical == "workingmemory" else None,
            "judge": "mechanical", "judge_fingerprint": "f" * 64})
    return rows


def build(rows: list[dict[str, Any]]) -> dict[str, Any]:
    results = [QuestionResult(**row) for row in rows]
    return {"schema_version": 1, "judge": {"mode": "mechanical", "name": "mechanical", "fingerprint": "f" * 64},
            "corpora": [{"corpus_id": f"typedmemeval-{v}-v2", "vertical": v, "sha256": "a" * 64,
                         "citation": f"TypedMemEval-{v} v2 (pytest-typedmemeval)"} for v in SHAPES],
            "complete": True, "model": None, **aggregate(results),
            "questions": [r.model_dump(mode="json", exclude={"duration_seconds"}) for r in results]}


def replicate(report: dict[str, Any], n: int) -> dict[str, Any]:
    """A report of ``n`` questions made by copying ``report``'s rows under fresh ids."""
    base = report["questions"]
    rows = []
    for i in range(n):
        row = {k: v for k, v in base[i % len(base)].items() if k in QuestionResult.model_fields}
        rows.append({**row, "question_id": f"{row['question_id']}-{i // len(base)}"})
    out = build(rows)
    out["corpora"] = report.get("corpora", out["corpora"])
    return out


def timed(function: Any, repeat: int = 3) -> tuple[float, Any]:
    best, value = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        value = function()
        best = min(best, time.perf_counter() - start)
    return best, value


def browser_load_seconds(html: str) -> float | None:
    """Wall time of headless Chromium loading the page and dumping the DOM (start-up included)."""
    if not CHROMIUM.exists():
        return None
    with tempfile.TemporaryDirectory() as temporary:
        page = Path(temporary) / "r.html"
        page.write_text(html, encoding="utf-8")
        command = [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                   "--disable-component-update", "--disable-sync", "--no-first-run",
                   f"--user-data-dir={Path(temporary) / 'p'}", "--dump-dom", page.as_uri()]
        start = time.perf_counter()
        subprocess.run(command, capture_output=True, timeout=300, check=False)
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--report", type=Path, help="a real JSON report to use as the 260-question base")
    args = parser.parse_args()
    base = json.loads(args.report.read_text(encoding="utf-8")) if args.report else build(synthetic_rows(260))
    blank = browser_load_seconds("<!DOCTYPE html><title>x</title>")
    if blank is not None:
        print(f"chromium start-up + blank page: {blank:.2f}s (subtract from the load times below)")
    for n in (len(base["questions"]), 5000):
        report = base if n == len(base["questions"]) else replicate(base, n)
        seconds, html = timed(lambda: render_html(report))
        runs = [report] + [copy.deepcopy(report) for _ in range(2)]
        for k, run in enumerate(runs[1:], 1):
            for i, q in enumerate(run["questions"]):
                if (i + k) % 9 == 0:
                    q["outcome"] = "wrong" if q["outcome"] == "correct" else "correct"
        band_seconds, bands = timed(lambda: band_runs(runs))
        banded_seconds, banded = timed(lambda: render_html(report, bands=bands))
        load = browser_load_seconds(banded)
        print(f"{n:>5} questions: html {len(html.encode()) / 1024:.0f} KiB rendered in {seconds * 1000:.0f} ms "
              f"({len(html.encode()) / n:.0f} B/question); band_runs x3 {band_seconds * 1000:.0f} ms; with bands "
              f"{len(banded.encode()) / 1024:.0f} KiB in {banded_seconds * 1000:.0f} ms; chromium load "
              + (f"{load:.2f}s" if load is not None else "not measured (no /usr/bin/chromium)"))


if __name__ == "__main__":
    main()
