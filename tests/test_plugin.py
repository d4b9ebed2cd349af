"""Plugin behaviour as a pytest user sees it (pytester)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_typedmemeval import load_corpus, shipped_corpora

from _support import KNOWN_BEATEN, MALFORMED_DIR, corpus_args, fixture_corpus_files, total_questions


def _collected_ids(result: pytest.RunResult) -> list[str]:
    return [line for line in result.outlines if "::question[" in line or "::gate[" in line]


def test_typedmemeval_collects_every_shipped_question(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--typedmemeval", "--co", "-q")
    expected = sum(len(c.records) for c in shipped_corpora())
    assert expected > 0
    assert len(_collected_ids(result)) == expected
    assert result.ret == pytest.ExitCode.OK


def test_tme_corpus_alone_collects_only_that_file(consumer: pytest.Pytester) -> None:
    name = sorted(consumer.path.glob("corpus_*.json"))[0].name
    result = consumer.runpytest("--tme-corpus", name, "--co", "-q")
    ids = _collected_ids(result)
    assert len(ids) == total_questions([consumer.path / name])
    assert all(i.startswith(f"typedmemeval/{name[:-5]}::question[tme-") for i in ids)


def test_shipped_and_user_corpora_together(consumer: pytest.Pytester) -> None:
    result = consumer.runpytest("--typedmemeval", *corpus_args(consumer), "--co", "-q")
    shipped = sum(len(c.records) for c in shipped_corpora())
    assert len(_collected_ids(result)) == shipped + total_questions(fixture_corpus_files())


def test_collection_order_is_stable_and_sorted_by_corpus(consumer: pytest.Pytester) -> None:
    first = _collected_ids(consumer.runpytest(*corpus_args(consumer), "--co", "-q"))
    args = corpus_args(consumer)
    pairs = [args[i:i + 2] for i in range(0, len(args), 2)]
    second = _collected_ids(consumer.runpytest(*[a for pair in reversed(pairs) for a in pair], "--co", "-q"))
    assert first == second and len(first) == total_questions(fixture_corpus_files())


@pytest.mark.parametrize("vertical", ["arithmetic", "forgetting", "prospective", "episodic"])
def test_vertical_marker_selects_only_that_vertical(consumer: pytest.Pytester, vertical: str) -> None:
    result = consumer.runpytest(*corpus_args(consumer), "--co", "-q", "-m", vertical, "--strict-markers")
    ids = _collected_ids(result)
    assert ids and all(f"-{vertical}-" in i for i in ids)
    assert result.ret == pytest.ExitCode.OK


def test_shape_and_pair_markers_pass_strict_markers(consumer: pytest.Pytester) -> None:
    result = consumer.runpytest(*corpus_args(consumer), "--co", "-q", "--strict-markers", "-m", "pair")
    ids = _collected_ids(result)
    assert len(ids) >= 2 and all("prospective" in i or "forgetting" in i for i in ids)
    shapes = consumer.runpytest(*corpus_args(consumer), "--co", "-q", "--strict-markers", "-m", "never_known")
    assert _collected_ids(shapes) == ["typedmemeval/corpus_typedmemeval-fixture-forgetting-v0::question[tme-for-003]"]


def test_item_ids_carry_no_label_but_k_selects_the_full_question_id(consumer: pytest.Pytester) -> None:
    everything = _collected_ids(consumer.runpytest(*corpus_args(consumer), "--co", "-q"))
    assert everything and not any("_abs" in i for i in everything)
    by_question_id = _collected_ids(consumer.runpytest(*corpus_args(consumer), "--co", "-q", "-k", "tme-for-003_abs"))
    assert by_question_id == ["typedmemeval/corpus_typedmemeval-fixture-forgetting-v0::question[tme-for-003]"]


def test_k_selects_by_question_id(consumer: pytest.Pytester) -> None:
    result = consumer.runpytest(*corpus_args(consumer), "--co", "-q", "-k", "tme-ari-001")
    assert len(_collected_ids(result)) == 1


def test_missing_adapter_fails_once_before_any_question(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--typedmemeval")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    text = result.stderr.str()
    assert text.count("override the `typedmemeval_agent` fixture") == 1
    assert "--tme-agent" in text
    result.stdout.no_fnmatch_line("*passed*")
    result.stdout.no_fnmatch_line("*failed*")


def test_missing_adapter_under_xdist_is_one_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess("--typedmemeval", "-n", "2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.stderr.str().count("override the `typedmemeval_agent` fixture") == 1


def test_collect_only_needs_no_adapter(pytester: pytest.Pytester) -> None:
    assert pytester.runpytest("--typedmemeval", "--co", "-q").ret == pytest.ExitCode.OK


def test_tme_agent_pointing_at_nothing_names_what_was_tried(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--typedmemeval", "--tme-agent", "no_such_module:make")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*no_such_module:make*cannot import module 'no_such_module'*"])
    attribute = pytester.runpytest("--typedmemeval", "--tme-agent", "pytest_typedmemeval:no_such_factory")
    attribute.stderr.fnmatch_lines(["*has no attribute 'no_such_factory'*"])


@pytest.mark.parametrize(
    ("name", "fragments"),
    [
        ("invalid_json.json", ["invalid_json.json", "invalid JSON"]),
        ("schema_violation.json", ["schema_violation.json", "question tme-ari-002", "typedmemeval.answer_key"]),
        ("duplicate_ids.json", ["duplicate_ids.json", "field question_id", "duplicate"]),
        ("dates_out_of_order.json", ["dates_out_of_order.json", "field haystack_dates["]),
        ("dangling_answer_session.json", ["dangling_answer_session.json", "field answer_session_ids[0]"]),
    ],
)
def test_malformed_corpus_is_one_line_naming_file_question_and_field(
    pytester: pytest.Pytester, name: str, fragments: list[str]
) -> None:
    result = pytester.runpytest("--tme-corpus", str(MALFORMED_DIR / name), "--co")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    error_lines = [line for line in result.stderr.lines if "TypedMemEval corpus error" in line]
    assert len(error_lines) == 1
    for fragment in fragments:
        assert fragment in error_lines[0]
    assert "Traceback" not in result.stderr.str()


def _report(pytester: pytest.Pytester, *args: str, subprocess_run: bool = False) -> tuple[pytest.RunResult, dict]:
    path = pytester.path / "report.json"
    run = pytester.runpytest_subprocess if subprocess_run else pytester.runpytest
    result = run(*args, "--tme-report", str(path), "-p", "no:cacheprovider")
    return result, json.loads(path.read_text(encoding="utf-8"))


def test_oracle_adapter_passes_and_report_has_typed_vectors(consumer: pytest.Pytester) -> None:
    result, report = _report(consumer, *corpus_args(consumer))
    outcomes = {q["question_id"]: q["outcome"] for q in report["questions"]}
    assert set(outcomes.values()) == {"correct"}, outcomes
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["*TypedMemEval*", "*n=*C *", "Cite as: user corpus corpus_typedmemeval-fixture-*sha256*"])
    assert {c["corpus_id"] for c in report["corpora"]} == {c["corpus_id"] for c in report["results"]}
    assert all(len(c["sha256"]) == 64 and "sha256" in c["citation"] for c in report["corpora"])
    corpus = report["results"][0]
    vertical = corpus["verticals"][0]
    assert {"n", "outcomes", "attribution", "coverage", "shapes", "subcounts"} <= vertical.keys()
    assert vertical["outcomes"]["correct"]["ci95"][1] <= 1.0
    assert report["judge"]["fingerprint"] and len(report["judge"]["fingerprint"]) == 64
    assert all(q["judge_fingerprint"] == report["judge"]["fingerprint"] for q in report["questions"])
    with_gold = [q for q in report["questions"] if not q["question_id"].endswith("_abs")]
    assert all(q["coverage"] == 1.0 and q["attribution"] == "present" for q in with_gold)
    assert report["complete"] is True and report["interrupted"] is False and report["not_run"] == []
    assert report["selected"] == len(report["questions"]) and report["workers_lost"] == []


def test_adapter_that_raises_gives_error_for_that_question_only(
    consumer: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TME_TEST_MODE", "raise")
    result, report = _report(consumer, *corpus_args(consumer))
    errors = [q for q in report["questions"] if q["outcome"] == "error"]
    assert errors and all("adapter exploded" in q["reason"] for q in errors)
    assert any(q["outcome"] == "correct" for q in report["questions"])
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_abstaining_adapter_is_reported_as_abstained_not_wrong(
    consumer: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TME_TEST_MODE", "dunno")
    _, report = _report(consumer, *corpus_args(consumer))
    by_id = {q["question_id"]: q for q in report["questions"]}
    never_known = [q for qid, q in by_id.items() if qid.endswith("_abs")]
    assert never_known and all(q["outcome"] == "correct" for q in never_known)
    assert by_id["tme-ari-001"]["outcome"] == "abstained"
    assert all(q["attribution"] == "unobserved" and q["coverage"] is None for q in report["questions"])


def test_report_never_contains_the_reserved_benchmark_token(
    consumer: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TME_TEST_MODE", "reserved")
    consumer.runpytest(*corpus_args(consumer), "--tme-report", "r.json")
    assert "longmemeval" not in (consumer.path / "r.json").read_text(encoding="utf-8").lower()


def test_json_report_identical_under_xdist(pytester: pytest.Pytester) -> None:
    args = ("--typedmemeval", "--tme-agent", "reference", "--tme-fail-under", "0")
    _, serial = _report(pytester, *args, "-n", "0", subprocess_run=True)
    _, parallel = _report(pytester, *args, "-n", "2", subprocess_run=True)
    serial.pop("timing"), parallel.pop("timing")
    assert serial["questions"] and serial == parallel
    assert parallel["missing_results"] == [] and parallel["workers_without_payload"] == []
    assert parallel["complete"] is True and parallel["not_run"] == []


def test_reset_before_every_question_and_adapter_sees_no_labels(pytester: pytest.Pytester) -> None:
    for path in fixture_corpus_files():
        pytester.path.joinpath(f"c_{path.name}").write_bytes(path.read_bytes())
    pytester.makeconftest(
        """
        import json, pytest
        from pathlib import Path
        LOG = []
        class Recorder:
            def reset(self): LOG.append(("reset",))
            def ingest(self, session): LOG.append(("ingest", session))
            def answer(self, question, *, query_time, instruction):
                LOG.append(("answer", question, query_time, instruction)); return "I don't know."
        @pytest.fixture(scope="session")
        def typedmemeval_agent(): return Recorder()
        def pytest_sessionfinish(session):
            ids = [q["question_id"] for p in Path(".").glob("c_*.json") for q in json.loads(p.read_text())]
            text = repr(LOG)
            Path("leak.txt").write_text(json.dumps({
                "resets": sum(1 for e in LOG if e[0] == "reset"),
                "answers": sum(1 for e in LOG if e[0] == "answer"),
                "has_answer": "has_answer" in text, "typedmemeval": "typedmemeval" in text,
                "answer_key": "answer_key" in text,
                "ids_leaked": [i for i in ids if i in text],
                "answer_prefix": any(e[1].session_id.startswith("answer") for e in LOG if e[0] == "ingest"),
                "reset_first": all(LOG[i - 1][0] == "answer" for i, e in enumerate(LOG) if e[0] == "reset" and i),
            }))
        """
    )
    args = [a for p in sorted(pytester.path.glob("c_*.json")) for a in ("--tme-corpus", p.name)]
    pytester.runpytest(*args)
    seen = json.loads((pytester.path / "leak.txt").read_text())
    n = total_questions(fixture_corpus_files())
    assert seen["resets"] == seen["answers"] == n
    assert seen["reset_first"]
    assert not seen["has_answer"] and not seen["typedmemeval"] and not seen["answer_key"]
    assert seen["ids_leaked"] == [] and not seen["answer_prefix"]


def test_timeout_gives_error_and_the_run_continues(pytester: pytest.Pytester) -> None:
    corpus = fixture_corpus_files()[0]
    pytester.path.joinpath("c.json").write_bytes(corpus.read_bytes())
    pytester.makeconftest(
        """
        import time, pytest
        class Slow:
            def reset(self): pass
            def ingest(self, session): pass
            def answer(self, question, *, query_time, instruction):
                time.sleep(1.0); return "late"
        @pytest.fixture(scope="session")
        def typedmemeval_agent(): return Slow()
        """
    )
    result, report = _report(pytester, "--tme-corpus", "c.json", "--tme-timeout", "0.05")
    assert {q["outcome"] for q in report["questions"]} == {"error"}
    assert all("--tme-timeout" in q["reason"] for q in report["questions"])
    assert len(report["questions"]) == len(load_corpus(corpus).records)


def test_async_adapter_is_awaited(pytester: pytest.Pytester) -> None:
    corpus = fixture_corpus_files()[0]
    pytester.path.joinpath("c.json").write_bytes(corpus.read_bytes())
    pytester.makeconftest(
        """
        import asyncio, pytest
        class AsyncAgent:
            def __init__(self): self.n = 0
            async def reset(self): self.n = 0
            async def ingest(self, session): await asyncio.sleep(0); self.n += 1
            async def answer(self, question, *, query_time, instruction):
                await asyncio.sleep(0); return f"I don't know ({self.n} sessions)"
        @pytest.fixture(scope="session")
        def typedmemeval_agent(): return AsyncAgent()
        """
    )
    _, report = _report(pytester, "--tme-corpus", "c.json")
    assert all(q["outcome"] != "error" for q in report["questions"])
    assert all("sessions)" in q["answer"] for q in report["questions"])


def test_threshold_mode_fails_the_session_not_the_items(
    consumer: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TME_TEST_MODE", "dunno")
    failing = consumer.runpytest(*corpus_args(consumer), "--tme-fail-under", "arithmetic=0.5")
    assert failing.ret == pytest.ExitCode.TESTS_FAILED
    failing.stdout.fnmatch_lines(["*FAILED thresholds: arithmetic: correct 0.00 < 0.50*"])
    assert failing.parseoutcomes().get("failed", 0) == 0
    passing = consumer.runpytest(*corpus_args(consumer), "--tme-fail-under", "0")
    assert passing.ret == pytest.ExitCode.OK


def test_fail_under_bounds_a_shape_by_name(consumer: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TME_TEST_MODE", "dunno")
    declines_right = consumer.runpytest(*corpus_args(consumer), "--tme-fail-under", "never_known=1.0",
                                        "--tme-report", "r.json")
    assert declines_right.ret == pytest.ExitCode.OK
    rows = json.loads((consumer.path / "r.json").read_text())["thresholds"]
    assert rows == [{"shape": "never_known", "n": 1, "correct_rate": 1.0, "bound": 1.0, "ci95": rows[0]["ci95"],
                     "passed": True}]
    sums = consumer.runpytest(*corpus_args(consumer), "--tme-fail-under", "sums=0.5")
    assert sums.ret == pytest.ExitCode.TESTS_FAILED
    sums.stdout.fnmatch_lines(["*FAILED thresholds: sums: correct 0.00 < 0.50 (n=1)*"])


def test_fail_under_rejects_a_rate_outside_zero_one(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--typedmemeval", "--tme-fail-under", "arithmetic=1.5")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*rate must lie in [[]0, 1[]]*"])


def test_baseline_records_passes_and_names_regressions(
    consumer: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = [*corpus_args(consumer), "--tme-baseline", "-p", "no:cacheprovider"]
    unrecorded = consumer.runpytest(*args)
    assert unrecorded.ret == pytest.ExitCode.TESTS_FAILED
    recorded = consumer.runpytest(*args, "--snapshot-update")
    assert recorded.ret == pytest.ExitCode.OK
    assert list((consumer.path / "typedmemeval" / "__baseline__").glob("*.ambr"))
    same = consumer.runpytest(*args)
    assert same.ret == pytest.ExitCode.OK
    same.stdout.fnmatch_lines(["*baseline: every outcome equals its snapshot*"])
    monkeypatch.setenv("TME_TEST_MODE", "dunno")
    regressed = consumer.runpytest(*args)
    assert regressed.ret == pytest.ExitCode.TESTS_FAILED
    regressed.stdout.fnmatch_lines(["*baseline regressions (*): *tme-ari-001 (correct -> abstained)*"])


def test_last_failed_reruns_only_failed_questions(
    consumer: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TME_TEST_MODE", "raise")
    first = consumer.runpytest(*corpus_args(consumer))
    failed = first.parseoutcomes()["failed"]
    rerun = consumer.runpytest(*corpus_args(consumer), "--lf")
    assert rerun.parseoutcomes()["failed"] == failed
    assert "passed" not in rerun.parseoutcomes()


def test_exitfirst_stops_after_first_failing_question(
    consumer: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TME_TEST_MODE", "dunno")
    result = consumer.runpytest(*corpus_args(consumer), "-x")
    assert result.parseoutcomes()["failed"] == 1


def test_failure_text_shows_question_gold_answer_outcome(
    consumer: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TME_TEST_MODE", "dunno")
    result = consumer.runpytest(*corpus_args(consumer), "-k", "tme-ari-001")
    result.stdout.fnmatch_lines(["*outcome: abstained*", "*question:*", "*gold:*", "*answer:*I don't know.*",
                                 "*reason:*", "*coverage:*null*", "*attribution: unobserved*"])


def test_plugin_can_be_disabled(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("-p", "no:typedmemeval", "--typedmemeval")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unrecognized arguments: --typedmemeval*"])


def test_plugin_import_does_not_load_heavy_modules() -> None:
    code = ("import sys, pytest_typedmemeval.plugin; "
            "print(sorted(m for m in ('numpy', 'rank_bm25', 'openai') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_ini_enables_shipped_corpora(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ntypedmemeval = true\n")
    result = pytester.runpytest("--co", "-q")
    assert len(_collected_ids(result)) == sum(len(c.records) for c in shipped_corpora())


def test_reference_agent_runs_with_no_network_and_records_evidence(pytester: pytest.Pytester) -> None:
    _, report = _report(pytester, "--typedmemeval", "--tme-agent", "reference", "--tme-fail-under", "0")
    assert report["questions"]
    assert all(q["outcome"] != "error" for q in report["questions"])
    with_gold = [q for q in report["questions"] if q["attribution"] != "not_applicable"]
    assert all(q["coverage"] is not None for q in with_gold)
    assert Path(pytester.path / "report.json").exists()


LEAKY_RECORD = {
    "question_id": "tme-ari-001", "question_type": "sums",
    "question": "I spent 60 dollars on lamps: how much did I spend on lamps?", "answer": "60 USD",
    "question_date": "2026/03/14 (Sat) 09:30",
    "haystack_session_ids": ["s1", "s2"],
    "haystack_dates": ["2026/03/10 (Tue) 09:00", "2026/03/11 (Wed) 09:00"],
    "haystack_sessions": [[{"role": "user", "content": "I bought a lamp for $25.", "has_answer": True}],
                          [{"role": "user", "content": "Another lamp for $35.", "has_answer": True}]],
    "answer_session_ids": ["s1", "s2"],
    "typedmemeval": {"vertical": "arithmetic", "shape": "sums",
                     "answer_key": {"numeric": {"value": 60, "unit": "USD"}},
                     "derivation": {"operation": "sum", "unit": "USD",
                                    "inputs": [{"session_index": 0, "value": 25}, {"session_index": 1, "value": 35}],
                                    "value": 60}},
}


def test_consumer_runs_a_gate_marker_on_their_own_corpus_and_reads_the_failure(pytester: pytest.Pytester) -> None:
    pytester.path.joinpath("mine.json").write_text(json.dumps([LEAKY_RECORD]), encoding="utf-8")
    result = pytester.runpytest("--tme-corpus", "mine.json", "-m", "tme_gate_leaks", "--strict-markers")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert result.parseoutcomes()["failed"] == 1
    result.stdout.fnmatch_lines(["*leaks refused mine*", "*gold_in_question*tme-ari-001*",
                                 "FAILED typedmemeval/gates/mine::gate[[]leaks[]]*"])
    assert "Traceback" not in result.stdout.str()


def test_every_gate_marker_runs_over_the_shipped_corpora(pytester: pytest.Pytester) -> None:
    """The verdicts match tests/test_shipped_gates.py: every shipped corpus passes the four
    certifying gates and, from revision 3, the adversaries (a revision-2 corpus predates them and
    skips with its figures), except the corpora the adversaries are recorded as beating
    (``KNOWN_BEATEN``), whose adversary item fails; probes (not measured) and baseline (nothing recorded) skip with their
    reasons."""
    markers = " or ".join(f"tme_gate_{g}" for g in ("structure", "separability", "calibration",
                                                     "leaks", "adversaries", "probes", "baseline"))
    result = pytester.runpytest("--typedmemeval", "-m", markers, "-rs", "-p", "no:cacheprovider")
    n = len(shipped_corpora())
    v3 = sum(1 for c in shipped_corpora() if c.sidecar is not None and c.sidecar.revision >= 3)
    beaten = sum(1 for c in shipped_corpora() if c.corpus_id in KNOWN_BEATEN)
    expected = {"passed": 4 * n + v3 - beaten, "skipped": 2 * n + (n - v3),
                "deselected": sum(len(c.records) for c in shipped_corpora())}
    if beaten:
        expected["failed"] = beaten
    assert result.parseoutcomes() == expected
    result.stdout.fnmatch_lines(["*probe arms not measured*", "*no snapshot at*"])
    for corpus_id in KNOWN_BEATEN:
        result.stdout.fnmatch_lines([f"*adversaries refused {corpus_id}*"])


def test_baseline_gate_compares_a_fresh_run_with_the_snapshot(
    consumer: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = [*corpus_args(consumer), "-p", "no:cacheprovider"]
    skipped = consumer.runpytest(*args, "-m", "tme_gate_baseline", "-rs")
    skipped.stdout.fnmatch_lines(["*no snapshot at*--tme-baseline --snapshot-update*"])
    consumer.runpytest(*args, "--tme-baseline", "--snapshot-update")
    current = consumer.runpytest(*args, "-m", "tme_gate_baseline")
    assert current.parseoutcomes().get("passed") == len(fixture_corpus_files())
    monkeypatch.setenv("TME_TEST_MODE", "dunno")
    regressed = consumer.runpytest(*args, "-m", "tme_gate_baseline")
    assert regressed.ret == pytest.ExitCode.TESTS_FAILED
    regressed.stdout.fnmatch_lines(["*baseline refused*", "*regression*"])


def test_snapshot_update_never_deletes_baselines_of_questions_that_did_not_run(consumer: pytest.Pytester) -> None:
    args = [*corpus_args(consumer), "--tme-baseline", "-p", "no:cacheprovider"]
    assert consumer.runpytest(*args, "--snapshot-update").ret == pytest.ExitCode.OK
    snapshots = consumer.path / "typedmemeval" / "__baseline__"
    before = {p.name: p.read_text() for p in snapshots.glob("*.ambr")}
    consumer.runpytest(*args, "--snapshot-update", "-m", "sums")
    consumer.runpytest(*corpus_args(consumer), "--snapshot-update", "-p", "no:cacheprovider")
    after = {p.name: p.read_text() for p in snapshots.glob("*.ambr")}
    assert after == before


USER_SNAPSHOT_TEST = """
def test_mine(snapshot):
    assert snapshot == "mine"
"""


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["n0", "n2"])
def test_a_committed_baseline_never_counts_as_unused_in_other_runs(
        consumer: pytest.Pytester, workers: tuple[str, ...]) -> None:
    """Issue 22, item 1: after the baseline is recorded, a plain or threshold run exits 0 and says
    nothing about unused snapshots; --snapshot-update outside baseline mode deletes no baseline but
    still cleans the user's own obsolete snapshots (syrupy's rules are not switched off)."""
    consumer.makepyfile(test_mine=USER_SNAPSHOT_TEST)
    args = [*corpus_args(consumer), "-p", "no:cacheprovider", *workers]
    assert consumer.runpytest_subprocess(*args, "--tme-baseline", "--snapshot-update").ret == pytest.ExitCode.OK
    baselines = consumer.path / "typedmemeval" / "__baseline__"
    before = {p.name: p.read_text() for p in baselines.glob("*.ambr")}
    assert len(before) == len(fixture_corpus_files())
    threshold = consumer.runpytest_subprocess(*args, "--tme-fail-under", "0")
    assert threshold.ret == pytest.ExitCode.OK, threshold.stdout.str()[-2000:]
    assert not re.search(r"snapshots? unused|unused snapshots? deleted", threshold.stdout.str())
    baseline = consumer.runpytest_subprocess(*args, "--tme-baseline")
    assert baseline.ret == pytest.ExitCode.OK
    # The user's own snapshot file gains an obsolete entry; a non-baseline update removes it only.
    user_file = consumer.path / "__snapshots__" / "test_mine.ambr"
    user_file.write_text(user_file.read_text() + "# name: test_gone\n  'old'\n# ---\n")
    updated = consumer.runpytest_subprocess(*args, "--tme-fail-under", "0", "--snapshot-update")
    assert updated.ret == pytest.ExitCode.OK
    updated.stdout.fnmatch_lines(["*1 unused snapshot deleted*"])
    assert "test_gone" not in user_file.read_text()
    assert {p.name: p.read_text() for p in baselines.glob("*.ambr")} == before


def test_a_baseline_in_the_old_snapshots_directory_is_refused_with_the_move(consumer: pytest.Pytester) -> None:
    old = consumer.path / "typedmemeval" / "__snapshots__"
    old.mkdir(parents=True)
    name = sorted(consumer.path.glob("corpus_*.json"))[0].stem + ".ambr"
    (old / name).write_text("# serializer version: 1\n", encoding="utf-8")
    result = consumer.runpytest(*corpus_args(consumer), "--tme-fail-under", "0", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*git mv typedmemeval/__snapshots__/{name} typedmemeval/__baseline__/{name}*"])


FIXED_ADAPTER_CONFTEST = """
import pytest


class Fixed:
    def reset(self):
        pass

    def ingest(self, session):
        pass

    def answer(self, question, *, query_time, instruction):
        return "from the fixture"


@pytest.fixture(scope="session")
def typedmemeval_agent():
    return Fixed()
"""


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["n0", "n2"])
def test_tme_agent_overrides_a_conftest_fixture_and_the_report_says_so(
        pytester: pytest.Pytester, workers: tuple[str, ...]) -> None:
    """Issue 22, item 2: the command line wins over the fixture (as --help says), and the report
    names the source that answered and what it overrode."""
    pytester.makeconftest(FIXED_ADAPTER_CONFTEST)
    corpus = fixture_corpus_files()[0]
    args = [f"--tme-corpus={corpus}", "--tme-fail-under", "0", *workers]
    result, report = _report(pytester, *args, "--tme-agent", "reference", subprocess_run=True)
    assert result.ret == pytest.ExitCode.OK
    assert "from the fixture" not in {q["answer"] for q in report["questions"]}
    assert report["options"]["agent"] == "reference" and report["options"]["agent_source"] == "--tme-agent"
    assert report["options"]["agent_overrides"] == ["typedmemeval_agent fixture in conftest.py"]
    result.stdout.fnmatch_lines(["adapter: --tme-agent reference (overrides the typedmemeval_agent fixture in conftest.py)"])
    # The ini key is project configuration: a conftest override wins over it.
    _, by_ini = _report(pytester, *args, "-o", "typedmemeval_agent=reference", subprocess_run=True)
    assert {q["answer"] for q in by_ini["questions"]} == {"from the fixture"}
    assert by_ini["options"]["agent"] == "typedmemeval_agent fixture"
    assert by_ini["options"]["agent_source"] == "typedmemeval_agent fixture in conftest.py"
    assert by_ini["options"]["agent_overrides"] == ["ini typedmemeval_agent reference"]


FACTORY_MODULE = """
from pytest_typedmemeval.adapter.reference_agent import make_agent as _reference

import mymod_helper  # a sibling module: resolves too once the directory is found


def make_agent():
    return _reference()
"""


def _pytest_script(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The ``pytest`` console script, as a user types it (``python -m pytest`` would put the working
    directory on sys.path and hide the problem)."""
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_") and k != "PYTHONPATH"}
    return subprocess.run([str(Path(sys.executable).with_name("pytest")), "-p", "no:cacheprovider", *args],
                          cwd=cwd, capture_output=True, text=True, env=env, timeout=300)


def test_a_factory_module_resolves_from_the_rootdir_and_the_working_directory(pytester: pytest.Pytester) -> None:
    """Issue 22, item 5: under the plain ``pytest`` script, from the rootdir and from a
    sub-directory of it; a missing module names where it was looked for."""
    pytester.makeini("[pytest]\n")
    pytester.makepyfile(mymod=FACTORY_MODULE, mymod_helper="")
    sub = pytester.mkdir("sub")
    args = (f"--tme-corpus={fixture_corpus_files()[0]}", "--tme-fail-under", "0")
    for where in (pytester.path, sub):
        result = _pytest_script(where, *args, "--tme-agent", "mymod:make_agent")
        assert result.returncode == 0, result.stdout[-1500:] + result.stderr[-1500:]
    missing = _pytest_script(sub, *args, "--tme-agent", "nomod:make_agent")
    assert missing.returncode == pytest.ExitCode.USAGE_ERROR
    assert (f"cannot import module 'nomod': No module named 'nomod' (looked on sys.path and in "
            f"{pytester.path.resolve()}, {sub.resolve()})") in missing.stderr


# --- issue 22, item 7: what a first week in CI runs into ------------------------------------------------


def test_tme_options_without_any_corpus_say_what_enables_the_run(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--tme-agent", "reference", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    result.stdout.fnmatch_lines(["TypedMemEval: --tme-agent given, but no TypedMemEval question was "
                                 "collected: add --typedmemeval*--tme-corpus=PATH*"])
    plain = pytester.runpytest("-p", "no:cacheprovider")  # no TypedMemEval option: pytest's own words only
    assert "TypedMemEval" not in plain.stdout.str()


def test_an_adapter_fixture_in_a_sub_directory_conftest_is_named_as_out_of_reach(pytester: pytest.Pytester) -> None:
    pytester.mkpydir("tests")
    (pytester.path / "tests" / "conftest.py").write_text(FIXED_ADAPTER_CONFTEST, encoding="utf-8")
    result = pytester.runpytest(f"--tme-corpus={fixture_corpus_files()[0]}", "tests", "--tme-report", "r.json",
                                "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*the typedmemeval_agent fixture in tests?conftest.py does not reach the "
                                 "TypedMemEval items*move it to the conftest.py at your rootdir*"])
    assert "worker died" not in result.stdout.str() + result.stderr.str()
    assert not (pytester.path / "r.json").exists()  # refused before any question: nothing to report


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["n0", "n2"])
def test_tme_gates_without_an_adapter_runs_the_gates_only(pytester: pytest.Pytester, workers: tuple[str, ...]) -> None:
    corpus = fixture_corpus_files()[0]
    result = pytester.runpytest_subprocess(f"--tme-corpus={corpus}", "--tme-gates", "-p", "no:cacheprovider", *workers)
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)  # the fixture corpus fails gates
    result.stdout.fnmatch_lines([f"TypedMemEval: no adapter, so --tme-gates ran the gates only "
                                 f"({total_questions([corpus])} question(s) deselected)*"])
    assert "::question[" not in result.stdout.str() and "needs a memory adapter" not in result.stderr.str()
