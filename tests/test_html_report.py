"""The HTML report, bands across runs (§5.10) and the A-vs-B comparison.

Pure rendering is tested on report dicts built here; behaviour a user sees is tested on real runs
of the fixture corpora by a non-deterministic adapter (three runs with different seeds, run once
per module in parallel subprocesses); the browser test loads the page in headless Chromium.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from _support import fixture_corpus_files

from pytest_typedmemeval import QuestionResult
from pytest_typedmemeval.report.aggregate import aggregate
from pytest_typedmemeval.report.bands import BandError, band_lines, band_runs
from pytest_typedmemeval.report.compare import compare_runs, comparison_lines, newcombe_interval
from pytest_typedmemeval.report.html import render_html

CHROMIUM = Path("/usr/bin/chromium")
SHA = "a" * 64
JUDGE = {"mode": "mechanical", "name": "mechanical", "model": None, "fingerprint": "f" * 64}

FLAKY_AGENT = '''
"""A test adapter whose answers depend on TME_FLAKY_SEED: gold, a decline or a wrong value."""
import hashlib, json, os
from pathlib import Path
from pytest_typedmemeval import Answer, Evidence
from pytest_typedmemeval.corpus import format_corpus_date

GOLD = {}
for path in Path(__file__).parent.glob("corpus_*.json"):
    for record in json.loads(path.read_text()):
        GOLD[record["question"], record["question_date"]] = record["answer"]


class Flaky:
    def __init__(self):
        self.sessions = []

    def reset(self):
        self.sessions = []

    def ingest(self, session):
        self.sessions.append(session)

    def answer(self, question, *, query_time, instruction):
        ids = tuple(s.session_id for s in self.sessions)
        draw = hashlib.sha256(f"{os.environ['TME_FLAKY_SEED']}|{question}".encode()).digest()[0] % 3
        if draw == 0:
            return "I don't know."
        if draw == 1:
            return Answer(GOLD[question, format_corpus_date(query_time)], Evidence(retrieved=ids, context=ids))
        return Answer("It was Zorblat Quexley, 9,999 of them.", Evidence(retrieved=ids[:1], context=ids[:1]))


def make():
    return Flaky()
'''


def _row(qid: str, outcome: str, *, vertical: str = "episodic", shape: str = "list-order", **extra: Any) -> dict[str, Any]:
    return {"corpus_id": f"typedmemeval-{vertical}-v2", "corpus_sha256": SHA, "question_id": qid,
            "vertical": vertical, "shape": shape, "outcome": outcome, "reason": "because", "question": f"Q {qid}?",
            "gold": "gold value", "answer": "an answer", "coverage": 0.5, "coverage_source": "context",
            "attribution": "partial", "judge": "mechanical", "judge_fingerprint": JUDGE["fingerprint"], **extra}


def make_report(rows: Sequence[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    """A report dict shaped like the plugin's (aggregate + questions + identity), without a run."""
    results = [QuestionResult(**row) for row in rows]
    corpora = sorted({(r.corpus_id, r.vertical) for r in results})
    return {"schema_version": 1, "benchmark": "TypedMemEval", "tool": {"name": "pytest-typedmemeval", "version": "0"},
            "judge": dict(JUDGE), "complete": True, "selected": len(rows), "model": None,
            "corpora": [{"corpus_id": c, "vertical": v, "sha256": SHA, "questions": 1, "fixture": False,
                         "citation": f"TypedMemEval-{v.capitalize()} v2 (pytest-typedmemeval), corpus {c}, sha256 aaaaaaaaaaaa"}
                        for c, v in corpora],
            **aggregate(results), "questions": [r.model_dump(mode="json", exclude={"duration_seconds"}) for r in results],
            **extra}


def small_report() -> dict[str, Any]:
    rows = [_row("e1", "correct", coverage=1.0, attribution="present"), _row("e2", "wrong", coverage=0.0, attribution="absent"),
            _row("e3", "missed", shape="assistant-stated", coverage=None, attribution="unobserved"),
            _row("w1", "correct", vertical="workingmemory", shape="distance-8", distance_sessions=8),
            _row("w2", "wrong", vertical="workingmemory", shape="distance-40", distance_sessions=40),
            _row("f1", "wrong", vertical="forgetting", shape="invalidated", subcounts=("stale_recall",)),
            _row("p1", "premature", vertical="prospective", shape="due-later", pair_id="pp1", arm="before", answer="Yes, done"),
            _row("p2", "correct", vertical="prospective", shape="due-later", pair_id="pp1", arm="after", answer="yes,  DONE")]
    return make_report(rows)


def test_the_page_shows_every_vertical_its_charts_and_every_question() -> None:
    html = render_html(small_report())
    assert html.startswith("<!DOCTYPE html>") and "<title>TypedMemEval report: 8 questions" in html
    for vertical in ("Episodic", "WorkingMemory", "Forgetting", "Prospective"):
        assert f"<h2 id=" in html and f">{vertical} — typedmemeval-" in html
    assert "Correct rate × distance" in html and "Forgetting sub-counts" in html
    assert "Prospective pair consistency" in html and "same answer on both arms</th><td>1 of 1" in html
    assert html.count('<svg class="chart"') >= 10 and html.count("<title>") > 10
    assert len(re.findall(r'<tr data-r="\d">', html)) == 8
    ranks = [int(r) for r in re.findall(r'<tr data-r="(\d)">', html)]
    assert ranks == sorted(ranks) and ranks[-1] == 6  # failures first, correct last
    assert "http://" not in html.replace("http://www.w3.org", "") and "https://" not in html


def test_pair_consistency_is_computed_from_questions_when_the_report_lacks_it() -> None:
    report = small_report()
    for corpus in report["results"]:
        for vertical in corpus["verticals"]:
            vertical.pop("pair_consistency", None)
    assert "same answer on both arms</th><td>1 of 1" in render_html(report)


def test_untrusted_text_is_escaped_and_the_reserved_token_redacted() -> None:
    hostile = '<script>alert("x")</script>"><img src=x onerror=alert(1)>'
    report = make_report([_row("e1", "wrong", answer=hostile, reason=hostile, gold=hostile, question=hostile),
                          _row("e2", "correct", answer="as LongMemEval would say")])
    html = render_html(report)
    assert "<script>alert" not in html and "<img src=x" not in html and html.count("<script>") == 1
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html
    assert "longmemeval" not in html.lower() and "[redacted-benchmark-name]" in html


def test_rendering_is_deterministic() -> None:
    report = small_report()
    assert render_html(report) == render_html(copy.deepcopy(report))
    assert render_html(report) == render_html(json.loads(json.dumps(report)))


def test_newcombe_interval_matches_the_published_example() -> None:
    # Newcombe (1998), Statistics in Medicine 17:873, method 10: 56/70 vs 48/80 -> 0.0524 to 0.3339.
    low, high = newcombe_interval(48, 80, 56, 70)  # type: ignore[misc]
    assert (round(low, 4), round(high, 4)) == (0.0524, 0.3339)
    assert newcombe_interval(0, 0, 1, 2) is None


# --- real runs --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """Three runs of the fixture corpora by the flaky adapter, seeds 1-3, in parallel."""
    project = tmp_path_factory.mktemp("flaky")
    for path in fixture_corpus_files():
        shutil.copy(path, project / f"corpus_{path.name}")
    (project / "flaky_agent.py").write_text(FLAKY_AGENT, encoding="utf-8")
    corpora = [f"--tme-corpus=corpus_{p.name}" for p in fixture_corpus_files()]
    processes = []
    for seed in (1, 2, 3):
        env = {**os.environ, "TME_FLAKY_SEED": str(seed), "PYTHONPATH": str(project)}
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(project),
                   *corpora, "--tme-agent", "flaky_agent:make", "--tme-report", f"run{seed}.json",
                   "--tme-html", f"run{seed}.html"]
        processes.append(subprocess.Popen(command, cwd=project, env=env, stdout=subprocess.PIPE,
                                          stderr=subprocess.STDOUT, text=True))
    for process in processes:
        output, _ = process.communicate(timeout=120)
        assert process.returncode in (0, 1), output
    reports = [json.loads((project / f"run{seed}.json").read_text(encoding="utf-8")) for seed in (1, 2, 3)]
    for seed in (1, 2, 3):
        PAGES[seed] = (project / f"run{seed}.html").read_text(encoding="utf-8")
    return reports


PAGES: dict[int, str] = {}
"""The pages ``--tme-html`` wrote in the ``runs`` fixture, by seed."""


def test_tme_html_writes_the_page_of_the_runs_own_report(runs: list[dict[str, Any]]) -> None:
    """``--tme-html`` renders the same report the JSON file holds (no second aggregation)."""
    assert [PAGES[seed] for seed in (1, 2, 3)] == [render_html(run) for run in runs]


def test_a_real_run_renders_with_its_corpora_judge_and_questions(runs: list[dict[str, Any]]) -> None:
    report = runs[0]
    html = render_html(report)
    assert report["judge"]["fingerprint"] in html
    for corpus in report["corpora"]:
        assert corpus["sha256"] in html and corpus["citation"] in html
    assert len(re.findall(r'<tr data-r="\d">', html)) == len(report["questions"]) == 12


def test_three_runs_of_a_flaky_adapter_give_nonzero_bands_and_flip_counts(runs: list[dict[str, Any]]) -> None:
    bands = band_runs(runs)
    assert bands.runs == 3 and bands.flipping
    assert max(b.rates["correct"].width for b in bands.shapes) > 0
    assert all(q.distinct == len(set(q.outcomes)) and len(q.outcomes) == 3 for q in bands.questions)
    assert bands.questions[0].changes >= bands.questions[-1].changes
    vertical = next(b for b in bands.shapes if b.shape is None and b.flipped)
    assert vertical.flipped == sum(1 for q in bands.flipping if (q.corpus_id, q.vertical) == (vertical.corpus_id, vertical.vertical))
    html = render_html(runs[0], bands=bands)
    assert "Bands across 3 runs" in html and "Most-flipping questions" in html
    assert bands.flipping[0].question_id in html
    assert any(line.startswith("  flips ") for line in band_lines(bands))


def _one_line_refusal(reports: Sequence[dict[str, Any]]) -> str:
    with pytest.raises(BandError) as caught:
        band_runs(reports)
    message = str(caught.value)
    assert "\n" not in message and message.startswith("cannot band runs: ")
    return message


def test_banding_incomparable_runs_is_refused_in_one_line_naming_the_field(runs: list[dict[str, Any]]) -> None:
    other_corpus = copy.deepcopy(runs[1])
    other_corpus["corpora"][0]["sha256"] = "b" * 64
    assert "corpus sha256 differs for corpus_typedmemeval-fixture-arithmetic-v0: run 1 " in _one_line_refusal([runs[0], other_corpus])
    other_judge = copy.deepcopy(runs[2])
    other_judge["judge"]["fingerprint"] = "c" * 64
    assert "judge fingerprint differs: run 1 " in _one_line_refusal([*runs[:2], other_judge])
    fewer = copy.deepcopy(runs[1])
    fewer["corpora"] = fewer["corpora"][1:]
    assert "corpora differ" in _one_line_refusal([runs[0], fewer])
    subset = copy.deepcopy(runs[1])
    subset["questions"] = subset["questions"][1:]
    assert "selected questions differ" in _one_line_refusal([runs[0], subset])
    model = {"agent": "llm-bm25", "model": "m", "base_url": "http://127.0.0.1:1/v1", "temperature": 0.0,
             "max_tokens": 256, "seed": 0, "max_usd": 1.0, "served_models": [], "ledger": {}}
    seeded = [{**runs[0], "model": model}, {**runs[1], "model": {**model, "seed": 7}}]
    assert "answer-sampling settings differ (seed)" in _one_line_refusal(seeded)
    assert "options fingerprint differs" in _one_line_refusal([{**runs[0], "options_fingerprint": "x"}, runs[1]])
    assert "at least 2 runs" in _one_line_refusal(runs[:1])


def test_comparison_finds_the_questions_that_changed_outcome(runs: list[dict[str, Any]]) -> None:
    comparison = compare_runs(runs[:1], runs[1:2], labels=("before", "after"))
    expected = {q["question_id"] for q, r in zip(runs[0]["questions"], runs[1]["questions"]) if q["outcome"] != r["outcome"]}
    assert expected and {c.question_id for c in comparison.changed} == expected
    for shape in comparison.shapes:
        if shape.diff is not None and shape.ci95 is not None:
            assert shape.ci95[0] <= shape.diff <= shape.ci95[1]
    banded = compare_runs(runs[:2], runs[2:], labels=("A", "B"))
    assert banded.runs_a == 2 and banded.as_dict()["method"].startswith("Newcombe")
    html = render_html(runs[0], comparison=comparison)
    assert "Comparison: before (1 run(s)) vs after (1 run(s))" in html
    assert any("changed questions" in line for line in comparison_lines(comparison))
    other = copy.deepcopy(runs[1])
    other["corpora"][0]["sha256"] = "b" * 64
    with pytest.raises(BandError, match=r"^cannot compare runs: corpus sha256 differs .* before .* after"):
        compare_runs(runs[:1], [other], labels=("before", "after"))


# --- the browser --------------------------------------------------------------------------------

PROBE = """<script>
var t = document.getElementById('questions');
t.querySelector('button[data-col="1"]').click(); t.querySelector('button[data-col="1"]').click();
document.body.setAttribute('data-sorted-first', t.tBodies[0].rows[0].cells[1].textContent);
var o = document.getElementById('q-outcome'); o.value = 'correct'; o.dispatchEvent(new Event('input'));
document.body.setAttribute('data-count', document.getElementById('q-count').textContent);
</script></body>"""


@pytest.mark.skipif(not CHROMIUM.exists(), reason="no browser: /usr/bin/chromium is absent "
                                                   "(install the distribution's package: apt-get install -y chromium)")
def test_the_page_loads_in_headless_chromium_without_console_errors(runs: list[dict[str, Any]], tmp_path: Path) -> None:
    html = render_html(runs[0], bands=band_runs(runs), comparison=compare_runs(runs[:1], runs[1:]))
    page = tmp_path / "report.html"
    page.write_text(html.replace("</body>", PROBE), encoding="utf-8")
    command = [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}",
               "--enable-logging=stderr", "--v=0", "--dump-dom", page.as_uri()]
    done = subprocess.run(command, capture_output=True, text=True, timeout=90)
    dom, log = done.stdout, done.stderr
    console = [line for line in log.splitlines() if ":CONSOLE" in line or "Uncaught" in line]
    assert not console, console
    assert '<table id="questions"' in dom and dom.count('<svg class="chart"') >= 8 and 'id="bands"' in dom
    last_id = max(q["question_id"] for q in runs[0]["questions"])
    assert f'data-sorted-first="{last_id}"' in dom  # second click on "Id" sorts descending
    correct = sum(q["outcome"] == "correct" for q in runs[0]["questions"])
    assert f'data-count="{correct} of 12 questions"' in dom


# --- the report command -----------------------------------------------------------------------------


def _write_runs(runs: list[dict[str, Any]], directory: Path) -> list[str]:
    paths = []
    for index, run in enumerate(runs, start=1):
        path = directory / f"run{index}.json"
        path.write_text(json.dumps(run), encoding="utf-8")
        paths.append(str(path))
    return paths


def test_the_report_command_bands_runs_and_writes_html(runs: list[dict[str, Any]], tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    from pytest_typedmemeval.cli import main

    paths = _write_runs(runs, tmp_path)
    status = main(["report", *paths, "--html", str(tmp_path / "bands.html"),
                   "--json", str(tmp_path / "bands.json")])
    out = capsys.readouterr().out
    assert status == 0, out
    page = (tmp_path / "bands.html").read_text(encoding="utf-8")
    assert page == render_html(runs[0], bands=band_runs(runs))
    assert json.loads((tmp_path / "bands.json").read_text(encoding="utf-8"))["bands"]
    assert "HTML report:" in out


def test_the_report_command_refuses_incomparable_runs_in_one_line(
        runs: list[dict[str, Any]], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from pytest_typedmemeval.cli import main

    other = json.loads(json.dumps(runs[1]))
    other["judge"]["fingerprint"] = "f" * 64
    for row in other["questions"]:
        row["judge_fingerprint"] = "f" * 64
    paths = _write_runs([runs[0], other], tmp_path)
    status = main(["report", *paths, "--html", str(tmp_path / "x.html")])
    out = capsys.readouterr().out.strip()
    assert status == 2 and len(out.splitlines()) == 1 and "judge" in out
    assert not (tmp_path / "x.html").exists()
    (tmp_path / "junk.json").write_text("[1, 2]", encoding="utf-8")
    assert main(["report", str(tmp_path / "junk.json")]) == 2
    assert "not a TypedMemEval report" in capsys.readouterr().out


def test_real_reports_carry_the_options_fingerprint_bands_compare(runs: list[dict[str, Any]]) -> None:
    fingerprints = {run["options"]["fingerprint"] for run in runs}
    assert len(fingerprints) == 1 and len(next(iter(fingerprints))) == 64
    assert not any("no options fingerprint" in note for note in band_runs(runs).notes)
    changed = json.loads(json.dumps(runs[2]))
    changed["options"] = {**changed["options"], "timeout_seconds": 5.0, "fingerprint": "e" * 64}
    with pytest.raises(BandError, match="options fingerprint differs"):
        band_runs([runs[0], runs[1], changed])


# --- issue 22, item 8: labels, names and order a reader sees ------------------------------------


def test_a_bar_note_ending_in_100_percent_is_not_clipped() -> None:
    from pytest_typedmemeval.report.charts import NOTE_WIDTH, WIDTH, StackRow, stacked_bars

    note = "n=52 · correct 88% [76–100%]"
    svg = stacked_bars([StackRow("distance-8", {"correct": 46, "wrong": 6}, note)], [], title="t")
    canvas = int(re.search(r'viewBox="0 0 (\d+) ', svg).group(1))
    # 12 px system-ui: a digit is ~6.7 px; 7 px a character is a generous bound of the note's end.
    assert canvas >= WIDTH - NOTE_WIDTH + 6 + 7 * len(note)
    assert f'width="{canvas}"' in svg


def _prospective_with_stale_recall() -> dict[str, Any]:
    return make_report([
        _row("p1", "wrong", vertical="prospective", shape="expiring-validity", subcounts=("stale_recall",)),
        _row("p2", "correct", vertical="prospective", shape="expiring-validity")])


def test_sub_counts_are_named_for_their_own_vertical() -> None:
    from pytest_typedmemeval.report.terminal import render_lines

    report = _prospective_with_stale_recall()
    html = render_html(report)
    assert "<h3>Prospective sub-counts</h3>" in html and "Forgetting sub-counts" not in html
    assert "over-forgetting" not in html  # a Forgetting-only sub-count has no column here
    lines = render_lines(report, {})
    assert "  Prospective sub-counts: stale recall 1" in lines
    assert not any("stale_recall" in line for line in lines)


def test_numbered_shapes_are_ordered_by_their_numbers_everywhere() -> None:
    from pytest_typedmemeval.report.terminal import render_lines

    ids_in_shuffled_order = [("w1", 15), ("w2", 60), ("w3", 8), ("w4", 40), ("w5", 25)]
    rows = [_row(qid, "correct", vertical="workingmemory", shape=f"distance-{d}", distance_sessions=d)
            for qid, d in ids_in_shuffled_order] + [_row("e1", "correct")]
    report = make_report(rows)
    expected = [f"distance-{d}" for d in (8, 15, 25, 40, 60)]
    vertical = next(v for c in report["results"] for v in c["verticals"] if v["vertical"] == "workingmemory")
    assert [s["shape"] for s in vertical["shapes"]] == expected
    terminal = [line.split()[0] for line in render_lines(report, {}) if line.startswith("  distance-")]
    assert terminal == expected
    old = copy.deepcopy(report)  # a report written before the order: shapes as the ids came
    for c in old["results"]:
        for v in c["verticals"]:
            v["shapes"].sort(key=lambda s: [f"distance-{d}" for _, d in ids_in_shuffled_order].index(s["shape"])
                             if s["shape"].startswith("distance-") else 0)
    html = render_html(old)
    assert [html.index(f">{shape}<") for shape in expected] == sorted(html.index(f">{shape}<") for shape in expected)
    bands = band_runs([old, copy.deepcopy(old)])
    assert [b.shape for b in bands.shapes if b.vertical == "workingmemory" and b.shape] == expected


def test_the_run_identity_names_the_mechanical_judge_once() -> None:
    html = render_html(small_report())
    assert "<dt>judge</dt><dd>mechanical</dd>" in html and "mechanical / mechanical" not in html


def test_the_citation_spells_workingmemory_as_the_vertical_is_named() -> None:
    from pytest_typedmemeval import load_corpus, shipped_sha256s

    repo = Path(__file__).resolve().parents[1]
    corpus = load_corpus(repo / "corpora" / "typedmemeval-workingmemory-v3.json")
    assert corpus.citation(shipped_sha256s()).startswith("TypedMemEval-WorkingMemory v3 ")


def test_list_order_over_surfaced_items_is_a_figure_beside_the_vector_never_in_it() -> None:
    """Issue 21, item 3: consistent order over the surfaced items is counted apart; the outcome
    vector is the verdicts' alone."""
    from pytest_typedmemeval.report.aggregate import aggregate
    from pytest_typedmemeval.report.terminal import render_lines

    rows = [_row("e1", "wrong", surfaced_order_consistent=True),
            _row("e2", "wrong", surfaced_order_consistent=False),
            _row("e3", "correct", surfaced_order_consistent=True), _row("e4", "abstained")]
    aggregated = aggregate([QuestionResult(**row) for row in rows])
    vertical = aggregated["results"][0]["verticals"][0]
    assert vertical["surfaced_order"]["n"] == 3 and vertical["surfaced_order"]["consistent"] == 2
    assert vertical["outcomes"]["correct"]["count"] == 1 and vertical["outcomes"]["wrong"]["count"] == 2
    assert any("list order over surfaced items (never an outcome): consistent 2/3" in line
               for line in render_lines(aggregated, {}))
    assert "surfaced_order" not in aggregate([QuestionResult(**_row("x", "wrong"))])["results"][0]["verticals"][0]


def test_the_html_report_says_the_surfaced_order_figure_apart_from_the_outcomes() -> None:
    from pytest_typedmemeval.report.html import render_html

    rows = [_row("e1", "wrong", surfaced_order_consistent=True),
            _row("e2", "wrong", surfaced_order_consistent=False), _row("e3", "abstained")]
    page = render_html(make_report(rows))
    assert "List order over surfaced items" in page and "1 of 2 list answers" in page
    assert "List order over surfaced items" not in render_html(make_report([_row("x", "wrong")]))
