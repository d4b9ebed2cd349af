"""The probe runner (``typedmemeval probe``) end to end against a scripted loopback server.

No network: every request goes to ``tests/_loopback_openai.py``. The scripted *reader* knows the
corpus (the test reads each question's gold from its record; the runner never tells the model) and
answers the gold exactly when every gold session's evidence is in the prompt, else "I don't know".
"""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_typedmemeval import cli
from pytest_typedmemeval.corpus.loading import Corpus, load_corpus, sidecar_path_for
from pytest_typedmemeval.corpus.models import QuestionRecord
from pytest_typedmemeval.gates import probes as probe_gate
from pytest_typedmemeval.generate.primitives import dump_json
from pytest_typedmemeval.probing import arms, grading
from pytest_typedmemeval.probing.records import merge_records
from pytest_typedmemeval.probing.runner import ProbeOptions, plan_arm, select_questions

from _loopback_openai import LoopbackOpenAI, Reply
from _support import FIXTURE_CORPUS_DIR, KNOWN_BEATEN

REPO = Path(__file__).resolve().parents[1]
SHIPPED_FORGETTING = REPO / "corpora" / "typedmemeval-forgetting-v3.json"
FORGETTING = FIXTURE_CORPUS_DIR / "typedmemeval-fixture-forgetting-v0.json"
DATE = "2026-05-01"
_QUESTION = re.compile(r"^Question: (.*)$", re.MULTILINE)
_NOW = re.compile(r"^Current date: (.*)$", re.MULTILINE)
Reader = Callable[[QuestionRecord, str], str]


# --- helpers ------------------------------------------------------------------------------------


def copy_corpus(source: Path, directory: Path) -> Path:
    """Corpus and sidecar under their own names (the sidecar's corpus_id must match the stem)."""
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / source.name
    shutil.copy(source, target)
    shutil.copy(sidecar_path_for(source), sidecar_path_for(target))
    return target


def gold_in_prompt(record: QuestionRecord, prompt: str) -> bool:
    """Every gold turn's text is in the prompt (vacuously true without gold)."""
    return all(turn.content in prompt for index in record.gold_session_indices
               for turn in record.haystack_sessions[index] if turn.has_answer)


def sessions_in(prompt: str) -> int:
    return prompt.count("### Session ")


def make_script(corpus: Corpus, reader: Reader) -> Callable[[dict[str, Any]], str]:
    """A server script: find the question by its text and moment of asking, let ``reader`` answer."""
    by_key = {(r.question, r.question_date): r for r in corpus.records}

    def script(body: dict[str, Any]) -> str:
        prompt = body["messages"][-1]["content"]
        question, now = _QUESTION.search(prompt), _NOW.search(prompt)
        assert question and now, prompt
        return reader(by_key[(question.group(1), now.group(1))], prompt)

    return script


def honest_reader(record: QuestionRecord, prompt: str) -> str:
    return record.answer if gold_in_prompt(record, prompt) else "I don't know."


def selective_reader(record: QuestionRecord, prompt: str) -> str:
    """Honest, except that it reads nothing out of a K_ref-session context: V9 fails, so a shape
    with V1 = 1 shows full headroom."""
    if sessions_in(prompt) == arms.K_REF:
        return "I don't know."
    return honest_reader(record, prompt)


def always_gold(record: QuestionRecord, prompt: str) -> str:
    return record.answer


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[LoopbackOpenAI]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback-test")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with LoopbackOpenAI() as loopback:
        yield loopback


def probe(server: LoopbackOpenAI, corpus: Path, cache: Path, *extra: str) -> int:
    return cli.main(["probe", "--corpus", str(corpus), "--model", "scripted-reader",
                     "--base-url", server.base_url, "--allow-unpriced", "--cache-dir", str(cache),
                     "--date", DATE, "--concurrency", "8", *extra])


def sidecar_of(path: Path) -> dict[str, Any]:
    return json.loads(sidecar_path_for(path).read_text(encoding="utf-8"))


def records_of(path: Path) -> dict[tuple[str, str], dict[str, Any]]:
    return {(row["arm"], row["shape"]): row for row in sidecar_of(path)["probe_records"]}


# --- (a) records for every applicable arm; the gate decides from them --------------------------


def test_every_applicable_arm_is_recorded_and_the_gate_decides_from_measured_figures(
        server: LoopbackOpenAI, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = copy_corpus(FORGETTING, tmp_path / "corpus")
    server.script = make_script(load_corpus(path), selective_reader)
    assert probe(server, path, tmp_path / "cache") == 0
    out = capsys.readouterr().out
    records = records_of(path)
    expected = {("V1", s) for s in ("invalidated", "still-valid")} | \
               {(a, s) for a in ("V2", "V3", "V8", "V9") for s in ("invalidated", "still-valid")} | \
               {("V6", "invalidated"), ("V10", "never-known"), ("V11", "never-known")}
    assert set(records) == expected  # V6 skips the redundant control; V10/V11 only gold-less
    for row in records.values():
        assert row["status"] == "measured" and row["model"] == "scripted-reader"
        assert (row["date"], row["seed"], row["temperature"]) == (DATE, 0, 0.0)
    samples = Counter((arm, v["question_id"]) for (arm, _), row in records.items()
                      for v in row["verdicts"])
    assert samples[("V1", "tme-for-001")] == 1 and samples[("V2", "tme-for-001")] == 10
    assert samples[("V3", "tme-for-001")] == 3
    assert samples[("V6", "tme-for-001")] == 6  # two components, three draws per removal
    assert samples[("V10", "tme-for-003_abs")] == samples[("V11", "tme-for-003_abs")] == 3
    assert {v["outcome"] for v in records[("V10", "never-known")]["verdicts"]} == {"abstain"}
    result = probe_gate.check(load_corpus(path))
    assert result.status == "passed", result.summary()
    assert result.measured["not_measured"] == []
    shape = result.measured["shapes"]["invalidated"]
    assert (shape["V1"], shape["V9"]) == (1.0, 0.0)
    assert "probe gate PASSED" in out


def test_an_honest_reader_with_no_headroom_is_refused_from_the_figures(
        server: LoopbackOpenAI, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = copy_corpus(FORGETTING, tmp_path / "corpus")
    server.script = make_script(load_corpus(path), honest_reader)
    # The gate's refusal is the run's result, not a run failure: exit 0.
    assert probe(server, path, tmp_path / "cache", "--arms", "V1,V8,V9,V10,V11") == 0
    result = probe_gate.check(load_corpus(path))
    assert result.status == "refused" and "headroom" in result.refused_rules()
    assert result.measured["not_measured"] == []
    assert "REFUSES" in capsys.readouterr().out


# --- (b) a reader that knows the gold without context --------------------------------------------


def test_an_always_gold_reader_is_caught_by_v2_and_the_gate(
        server: LoopbackOpenAI, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = copy_corpus(FORGETTING, tmp_path / "corpus")
    server.script = make_script(load_corpus(path), always_gold)
    assert probe(server, path, tmp_path / "cache", "--arms", "V1,V2,V3,V8,V9") == 0
    corpus = load_corpus(path)
    decided = {(d.arm, d.question_id): d for d in grading.decisions(corpus.sidecar.probe_records,
                                                                    corpus.records)}
    assert decided[("V2", "tme-for-001")].decision == "discard"  # guessable: 10 of 10 empty-context hits
    assert decided[("V2", "tme-for-001")].hits == 10
    assert decided[("V3", "tme-for-002")].decision == "discard"  # answerable with the gold removed
    assert probe_gate.check(corpus).refused_rules() >= {"headroom"}
    assert "V2 tme-for-001: discard" in capsys.readouterr().out


# --- (c) a rerun is free ---------------------------------------------------------------------------


def test_a_rerun_makes_no_request_and_rewrites_the_same_bytes(
        server: LoopbackOpenAI, tmp_path: Path) -> None:
    path = copy_corpus(FORGETTING, tmp_path / "corpus")
    server.script = make_script(load_corpus(path), honest_reader)
    args = ("--arms", "V1,V2,V6,V9,V11")
    assert probe(server, path, tmp_path / "cache", *args) == 0
    first, count = sidecar_path_for(path).read_bytes(), server.count
    assert count > 0
    assert probe(server, path, tmp_path / "cache", *args) == 0
    assert server.count == count
    assert sidecar_path_for(path).read_bytes() == first


# --- (d) an endpoint fault -------------------------------------------------------------------------


def test_a_failing_endpoint_records_errors_never_verdicts(
        server: LoopbackOpenAI, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = copy_corpus(FORGETTING, tmp_path / "corpus")
    # Retry-After: 0 keeps the retries (every attempt is a 500) without the back-off waits.
    server.script = lambda body: Reply.status_error(500, "scripted outage", {"Retry-After": "0"})
    assert probe(server, path, tmp_path / "cache", "--arms", "V1,V10") == 1
    out = capsys.readouterr().out
    assert "HTTP 500" in out and "scripted outage" in out and "RUN INCOMPLETE" in out
    records = records_of(path)
    outcomes = {v["outcome"] for row in records.values() if row["status"] == "measured"
                for v in row["verdicts"]}
    assert outcomes == {"error"}
    assert server.count > 4  # four requests (V1 one, V10 three draws), transient: retried
    result = probe_gate.check(load_corpus(path))
    assert result.status == "skipped" and "unscored" in (result.skip_reason or "")


# --- (e) dry run -----------------------------------------------------------------------------------


def test_dry_run_counts_requests_and_sends_nothing(
        server: LoopbackOpenAI, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = copy_corpus(FORGETTING, tmp_path / "corpus")
    before = sidecar_path_for(path).read_bytes()
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"scripted-reader": {"input_per_million": 1, "output_per_million": 2}}))
    assert probe(server, path, tmp_path / "cache", "--dry-run", "--prices", str(prices)) == 0
    out = capsys.readouterr().out
    assert server.count == 0 and sidecar_path_for(path).read_bytes() == before
    v2 = next(line for line in out.splitlines() if " V2 " in line).split()
    assert v2[2:5] == ["10", "2", "20"]  # samples, questions, requests
    assert "worst case $" in out


def test_dry_run_with_allow_unpriced_does_not_ask_for_allow_unpriced(
        server: LoopbackOpenAI, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 22, item 7: the unpriced model's line acknowledges the flag instead of asking for it."""
    path = copy_corpus(FORGETTING, tmp_path / "corpus")
    assert probe(server, path, tmp_path / "cache", "--dry-run") == 0  # probe() passes --allow-unpriced
    total = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("total:"))
    assert "pass --allow-unpriced" not in total and "--allow-unpriced runs it as free" in total


# --- (f) nothing recorded stays not measured ------------------------------------------------------


def test_unrun_shapes_and_untouched_corpora_stay_not_measured(
        server: LoopbackOpenAI, tmp_path: Path) -> None:
    path = copy_corpus(FORGETTING, tmp_path / "run")
    untouched = copy_corpus(FORGETTING, tmp_path / "untouched")
    server.script = make_script(load_corpus(path), selective_reader)
    assert probe(server, path, tmp_path / "cache", "--shape", "invalidated", "--arms", "V1,V8,V9") == 0
    result = probe_gate.check(load_corpus(path))
    assert result.status == "skipped"
    missing = {(row["shape"], row["arm"]) for row in result.measured["not_measured"]}
    assert missing == {("still-valid", "V1"), ("still-valid", "V8"), ("still-valid", "V9"),
                       ("never-known", "V10"), ("never-known", "V11"), ("(pairs)", "pair figure")}
    bare = probe_gate.check(load_corpus(untouched))
    assert bare.status == "skipped" and "not measured" in (bare.skip_reason or "")


def test_a_shipped_corpus_keeps_every_other_sidecar_byte_and_partial_runs_are_not_measured(
        server: LoopbackOpenAI, tmp_path: Path) -> None:
    path = copy_corpus(SHIPPED_FORGETTING, tmp_path / "corpus")
    before = sidecar_of(path)
    server.script = make_script(load_corpus(path), honest_reader)
    assert probe(server, path, tmp_path / "cache", "--limit", "1", "--arms", "V1,V9,V11") == 0
    after = sidecar_of(path)
    assert {k: v for k, v in after.items() if k != "probe_records"} == \
           {k: v for k, v in before.items() if k != "probe_records"}
    assert sidecar_path_for(path).read_text(encoding="utf-8") == dump_json(after)
    rows = {(r["arm"], r["shape"]): r for r in after["probe_records"]}
    assert rows[("V8", "invalidated")]["status"] == "not_measured"  # placeholder kept
    assert len(rows[("V1", "invalidated")]["verdicts"]) == 1
    corpus = load_corpus(path)
    result = probe_gate.check(corpus)
    assert result.status == "skipped"
    assert any(row["arm"] == "V1" and "no verdict for 19 of 20" in row["reason"]
               for row in result.measured["not_measured"])
    # No other gate reads probe_records: structure (reproducibility included), calibration,
    # separability, leaks and the adversaries keep their verdicts on the written sidecar (passed,
    # or the adversaries' recorded refusal of a corpus they are known to beat).
    from pytest_typedmemeval.generate import certify as registry

    for gate in ("structure", "calibration", "separability", "leaks", "adversaries"):
        verdict = registry.run_corpus_gate(gate, corpus)
        if gate == "adversaries" and corpus.corpus_id in KNOWN_BEATEN:
            assert verdict.status == "refused" and set(verdict.refused_rules()) == \
                KNOWN_BEATEN[corpus.corpus_id][1], verdict.summary()
        else:
            assert verdict.status == "passed", verdict.summary()


# --- prompts, seeds, scope -------------------------------------------------------------------------


def test_prompts_carry_sessions_and_question_but_no_answer_key(
        server: LoopbackOpenAI, tmp_path: Path) -> None:
    path = copy_corpus(FORGETTING, tmp_path / "corpus")
    corpus = load_corpus(path)
    server.script = make_script(corpus, honest_reader)
    assert probe(server, path, tmp_path / "cache", "--arms", "V2,V8") == 0
    for prompt in server.prompts():
        for leak in ("has_answer", "typedmemeval", "tme-for-", "sess-", "answer_key", "must_name"):
            assert leak not in prompt
    seeds = sorted(body["seed"] for body in server.requests
                   if "Which physio" in body["messages"][-1]["content"]
                   and "### Session" not in body["messages"][-1]["content"])
    assert seeds == list(range(10))  # V2: ten samples, ten seeds, ten cache keys


def test_v6_removes_one_declared_component_at_a_time() -> None:
    corpus = load_corpus(FORGETTING)
    invalidated = corpus.records[0]
    contexts = arms.contexts("V6", invalidated)
    assert [c.sessions for c in contexts] == [tuple(i for i in range(8) if i != 1),
                                              tuple(i for i in range(8) if i != 5)]
    jobs = plan_arm("V6", select_questions(corpus, ProbeOptions(date=DATE)), seed=7)
    assert {job.question_id for job in jobs} == {"tme-for-001"}  # still-valid is redundant
    assert [(job.sample, job.seed) for job in jobs] == [(s, 7 + s) for s in range(6)]


# --- thresholds and small parts -------------------------------------------------------------------


@pytest.mark.parametrize(("k", "v3", "v2"), [(2, None, 9), (3, 3, 7), (4, 3, 6), (5, 3, 5), (6, 3, 5),
                                             (7, 3, 4), (8, 2, 4), (10, 2, 4)])
def test_chance_aware_thresholds_match_the_spec_table(k: int, v3: int | None, v2: int) -> None:
    assert grading.hit_threshold("V3", 3, k) == grading.hit_threshold("V6", 3, k) == v3
    assert grading.hit_threshold("V2", 10, k) == v2


def test_open_ended_thresholds_keep_the_basic_rules() -> None:
    assert (grading.hit_threshold("V2", 10, None), grading.hit_threshold("V3", 3, None)) == (2, 1)
    assert grading.hit_threshold("V3", 3, 60) == 1


def test_commitment_grades_read_declines_and_guesses() -> None:
    never_known = load_corpus(FORGETTING).records[2]
    assert grading.grade("V10", never_known, "I don't know.") == "abstain"
    assert grading.grade("V10", never_known, "You never mentioned a kiteboard.") == "abstain"
    assert grading.grade("V11", never_known, "Probably the Slingshot Rally.") == "commit"


def test_merge_replaces_same_arm_and_shape_and_sorts_canonically() -> None:
    from pytest_typedmemeval.probing.records import build_record

    old = [{"arm": "V9", "shape": "b", "status": "not_measured", "reason": "x"},
           {"arm": "V1", "shape": "b", "status": "not_measured", "reason": "x"},
           {"arm": "V1", "shape": "a", "status": "not_measured", "reason": "x"}]
    new = build_record("V9", "b", (), model="m", date=DATE, seed=0, temperature=0.0)
    merged = merge_records(old, [new], ["a", "b"])
    assert [(r["arm"], r["shape"], r["status"]) for r in merged] == [
        ("V1", "a", "not_measured"), ("V1", "b", "not_measured"), ("V9", "b", "measured")]
    assert "reason" not in merged[-1]


@pytest.mark.parametrize(("extra", "message"), [
    (("--arms", "V1,V4"), "unknown arm 'V4'"),
    (("--date", "1 May 2026"), "expected YYYY-MM-DD"),
    (("--shape", "nonesuch"), "no such shape"),
    (("--limit", "0"), "--limit 0"),
])
def test_usage_errors_exit_2_with_one_line(server: LoopbackOpenAI, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str], extra: tuple[str, ...],
                                           message: str) -> None:
    path = copy_corpus(FORGETTING, tmp_path / "corpus")
    assert probe(server, path, tmp_path / "cache", *extra) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err
    assert server.count == 0


def test_a_corpus_without_a_sidecar_is_a_usage_error(server: LoopbackOpenAI, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / FORGETTING.name
    shutil.copy(FORGETTING, path)
    assert probe(server, path, tmp_path / "cache") == 2
    assert "no sidecar" in capsys.readouterr().err
    assert server.count == 0


def test_an_unpriced_model_is_refused_before_any_call(tmp_path: Path, server: LoopbackOpenAI,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = copy_corpus(FORGETTING, tmp_path / "corpus")
    code = cli.main(["probe", "--corpus", str(path), "--model", "scripted-reader", "--base-url",
                     server.base_url, "--cache-dir", str(tmp_path / "cache"), "--date", DATE])
    assert code == 2 and "unpriced" in capsys.readouterr().err
    assert server.count == 0


def test_progress_lines_are_paced_by_the_clock() -> None:
    import io

    from pytest_typedmemeval.probing.runner import ProgressPrinter

    now = [0.0]
    stream = io.StringIO()
    printer = ProgressPrinter("c V2", stream, clock=lambda: now[0])
    for done in range(1, 101):
        now[0] += 0.1  # 10 s for the batch: a line every 2 s at most, then the closing line
        printer(done, 100)
    lines = stream.getvalue().splitlines()
    assert lines[0] == "c V2: 20/100 requests (20%)" and lines[-1] == "c V2: 100/100 requests (100%)"
    assert len(lines) == 5
    quiet = io.StringIO()
    fast = ProgressPrinter("c V1", quiet, clock=lambda: 0.0)
    for done in range(1, 101):
        fast(done, 100)
    assert quiet.getvalue() == ""


# --- grading by the hybrid judge --------------------------------------------------------------------


def test_hybrid_grading_asks_a_model_only_about_unjudged_answers_and_records_its_fingerprint(
        server: LoopbackOpenAI, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A real small model often commits to a value outside the key ("the village of Elvira"):
    the rules leave that unjudged, so the question reads not measured; the hybrid judge grades it.
    Mechanical verdicts stay mechanical, and the record says which judge graded."""
    path = copy_corpus(FORGETTING, tmp_path / "mechanical")
    answering = make_script(load_corpus(path), lambda record, prompt: "Purple elephants.")

    def script(body: dict[str, Any]) -> str:
        if "response_format" in body:  # the judge asks for a JSON verdict
            return json.dumps({"outcome": "wrong", "reason": "names no value of the key",
                               "value": None, "subcounts": []})
        return answering(body)

    server.script = script
    assert probe(server, path, tmp_path / "cache", "--arms", "V1", "--limit", "2") == 0
    mechanical = records_of(path)[("V1", "invalidated")]
    assert {v["outcome"] for v in mechanical["verdicts"]} == {"unjudged"} and "judge" not in mechanical
    asked = server.count
    hybrid_path = copy_corpus(FORGETTING, tmp_path / "hybrid")
    assert probe(server, hybrid_path, tmp_path / "cache", "--arms", "V1", "--limit", "2",
                 "--judge", "hybrid") == 0
    hybrid = records_of(hybrid_path)[("V1", "invalidated")]
    assert {v["outcome"] for v in hybrid["verdicts"]} == {"wrong"}
    assert len(hybrid["judge"]) == 64
    judged = [body for body in server.requests[asked:] if "response_format" in body]
    assert judged and len(server.requests) - asked == len(judged)  # answers came from the cache
    capsys.readouterr()
