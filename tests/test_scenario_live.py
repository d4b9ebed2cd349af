"""The live paired arm (VERTICALS.md §6.6): with memory and without, through the model-call layer.

No network: the model is the scripted loopback server of tests/_loopback_openai.py, answering from
its prompt — the recalled statement that shares most words with the question, else the abstain
phrase (so the with-memory arm can only be right when the memory recalled the fact). Proven here:
the lift is printed with its interval; a rerun is answered from the cache (no request); an existing
output is refused before any request; ceiling refusals and server faults are recorded as errors,
never scored; the evidence verifies, and tampering makes it fail.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_typedmemeval.calls import ModelCaller, ModelSettings
from pytest_typedmemeval.retrieval.tokenizer import tokenize
from pytest_typedmemeval.scenarios import ProbeReply, RecallTrace, RecalledMemory, load_scenarios, run_corpus
from pytest_typedmemeval.scenarios.live import (MEMORY_HEADER, LiveRunError, build_messages, recalled_statements,
                                                run_live)
from pytest_typedmemeval.scenarios.live_evidence import (
    ARMS,
    EvidenceError,
    evidence_digest,
    grade_answer,
    mcnemar_exact_p,
    paired_difference_interval,
    verify,
    verify_or_raise,
    wilson_interval,
)
from pytest_typedmemeval.scenarios.reference_memory import make_memory

from _loopback_openai import LoopbackOpenAI, Reply, warm_model_clients

ABSTAIN = "I do not have that information."
CORPUS = load_scenarios()
PROBES = sum(len(s.probes) for s in CORPUS.document.scenarios)
RELOCATION_QUESTIONS = {p.question for s in CORPUS.document.scenarios if s.id == "mb-relocation-001"
                        for p in s.probes}
MALFORMED_QUESTION = CORPUS.document.scenarios[1].probes[0].question


def answer_from_prompt(body: dict[str, Any]) -> str:
    messages = body["messages"]
    question = messages[-1]["content"].split("\n\n")[0]
    if messages[0]["role"] != "system":
        return ABSTAIN
    recalled = [line[2:] for line in messages[0]["content"].splitlines()[1:] if line.startswith("- ")]
    words = set(tokenize(question))
    best = max(recalled, key=lambda line: len(words & set(tokenize(line))), default=None)
    return best if best is not None and words & set(tokenize(best)) else ABSTAIN


warm_model_clients()  # see _loopback_openai.warm_model_clients


def _caller(server: LoopbackOpenAI, tmp: Path, **fields: Any) -> ModelCaller:
    fields.setdefault("allow_unpriced", True)
    fields.setdefault("cache_dir", None)
    return ModelCaller(ModelSettings.resolve(fields.pop("model", "m"), server.base_url, **fields))


@pytest.fixture(scope="module")
def evidence_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("live") / "evidence.json"
    with LoopbackOpenAI(answer_from_prompt) as server:
        caller = ModelCaller(ModelSettings.resolve("m", server.base_url, allow_unpriced=True, cache_dir=None))
        try:
            run_live(CORPUS, make_memory, caller, out, memory_origin="reference-memory")
        finally:
            caller.close()
        assert server.count == 2 * PROBES
    return out


# --- through pytest --------------------------------------------------------------------------------
def _live_args(server: LoopbackOpenAI, out: str) -> list[str]:
    return ["--tme-scenarios", "--tme-scenario-memory", "reference-memory", "-m", "scenario_live",
            "--tme-scenario-live", out, "--tme-model", "m", "--tme-base-url", server.base_url,
            "--tme-allow-unpriced", "--tme-cache-dir", "cache", "-p", "no:cacheprovider"]


def test_pytest_live_arm_prints_lift_with_interval_and_a_rerun_is_cached(
        pytester: pytest.Pytester, loopback_openai: LoopbackOpenAI) -> None:
    loopback_openai.script = answer_from_prompt
    result = pytester.runpytest(*_live_args(loopback_openai, "first.json"))
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    result.stdout.fnmatch_lines([
        "*TypedMemEval scenarios*",
        "live lift +0.641 (95% CI +0.488 to +0.744, Newcombe paired score interval; McNemar exact p<1e-06): "
        f"with memory 50/{PROBES} correct, without 9/{PROBES}",
        "live thresholds: lift 41 (min 11)*",
        f"live runs: {PROBES} of {PROBES} probes scored; incomplete arms 0 (none)*",
        "live verdict: pass",
        "live evidence: *first.json (sha256 *",
    ])
    assert loopback_openai.count == 2 * PROBES
    first = verify_or_raise(pytester.path / "first.json", CORPUS)
    prompts = [body["messages"] for body in loopback_openai.requests]
    with_memory = [m for m in prompts if m[0]["role"] == "system"]
    assert len(with_memory) == PROBES and all(m[0]["content"].startswith(MEMORY_HEADER) for m in with_memory)
    assert all(m[-1]["content"].endswith(CORPUS.document.probe_instruction) for m in prompts)

    again = pytester.runpytest(*_live_args(loopback_openai, "second.json"))
    assert again.ret == pytest.ExitCode.OK
    assert loopback_openai.count == 2 * PROBES, "a rerun must be answered from the cache"
    second = verify_or_raise(pytester.path / "second.json", CORPUS)
    assert second["summary"] == first["summary"]
    assert all(row[arm]["cached"] for row in second["probes"] for arm in ARMS)
    assert second["ledger"]["calls"] == 0 and second["ledger"]["cache_hits"] == 2 * PROBES

    before = (pytester.path / "first.json").read_bytes()
    refused = pytester.runpytest(*_live_args(loopback_openai, "first.json"), "--tme-cache-dir", "other")
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    assert "evidence is never overwritten" in refused.stderr.str()
    assert (pytester.path / "first.json").read_bytes() == before
    assert loopback_openai.count == 2 * PROBES


def test_pytest_live_arm_needs_a_model(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--tme-scenarios", "--tme-scenario-memory", "reference-memory",
                                "--tme-scenario-live", "out.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--tme-scenario-live needs a model" in result.stderr.str()
    unpriced = pytester.runpytest("--tme-scenarios", "--tme-scenario-memory", "reference-memory",
                                  "--tme-scenario-live", "out.json", "--tme-model", "m",
                                  "--tme-base-url", "http://127.0.0.1:9/v1")
    assert unpriced.ret == pytest.ExitCode.USAGE_ERROR and "has no price" in unpriced.stderr.str()
    assert not (pytester.path / "out.json").exists()


# --- the functions ---------------------------------------------------------------------------------
def test_an_existing_output_is_refused_before_any_request(tmp_path: Path) -> None:
    out = tmp_path / "evidence.json"
    out.write_text("earlier evidence", encoding="utf-8")
    with LoopbackOpenAI(answer_from_prompt) as server:
        caller = _caller(server, tmp_path)
        with pytest.raises(LiveRunError, match="never overwritten"):
            run_live(CORPUS, make_memory, caller, out)
        caller.close()
        assert server.count == 0
    assert out.read_text(encoding="utf-8") == "earlier evidence"


def test_ceiling_refusals_are_errors_and_never_scored(tmp_path: Path) -> None:
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"priced-m": {"input_per_million": 10, "output_per_million": 10}}))
    out = tmp_path / "evidence.json"
    with LoopbackOpenAI(answer_from_prompt) as server:
        caller = _caller(server, tmp_path, model="priced-m", allow_unpriced=False, prices_path=prices,
                         max_usd=0.012, concurrency=1)
        evidence = run_live(CORPUS, make_memory, caller, out)
        caller.close()
        sent = server.count
    refused = [(row, arm) for row in evidence["probes"] for arm in ARMS if row[arm]["status"] == "error"]
    assert refused and sent == 2 * PROBES - len(refused) and sent > 0
    assert all(row[arm]["error_class"] == "ceiling" and "correct" not in row[arm] for row, arm in refused)
    assert all(not row["scored"] for row, _ in refused)
    summary = evidence["summary"]
    assert summary["failure_classes"] == {"ceiling": len(refused)} == {"ceiling": summary["ceiling_hits"]}
    assert summary["scored"] == sum(row["scored"] for row in evidence["probes"]) < PROBES
    assert evidence["ledger"]["refused"] == len(refused) and evidence["ledger"]["spent_usd"] <= 0.012
    assert not evidence["verdict"]["passed"] and any("ceiling_hits" in f for f in evidence["verdict"]["failures"])
    assert verify(out, CORPUS) == []


def test_server_faults_are_errors_and_never_scored(tmp_path: Path) -> None:
    def faulty(body: dict[str, Any]) -> Reply | str:
        question = body["messages"][-1]["content"].split("\n\n")[0]
        if question in RELOCATION_QUESTIONS:
            return Reply.status_error(400, "scripted refusal")
        if question == MALFORMED_QUESTION:
            return Reply.malformed_body()
        return answer_from_prompt(body)

    out = tmp_path / "evidence.json"
    with LoopbackOpenAI(faulty) as server:
        caller = _caller(server, tmp_path)
        evidence = run_live(CORPUS, make_memory, caller, out)
        caller.close()
    faulted = {(row["scenario_id"], row["probe_id"]) for row in evidence["probes"] if not row["scored"]}
    relocation = {("mb-relocation-001", p.id) for s in CORPUS.document.scenarios if s.id == "mb-relocation-001"
                  for p in s.probes}
    assert relocation <= faulted
    classes = evidence["summary"]["failure_classes"]
    assert classes == {"http_status": 2 * len(relocation), "malformed_response": 2}
    assert faulted == relocation | {(CORPUS.document.scenarios[1].id, CORPUS.document.scenarios[1].probes[0].id)}
    for row in evidence["probes"]:
        for arm in ARMS:
            cell = row[arm]
            assert ("correct" in cell) == (cell["status"] == "answered")
    assert evidence["summary"]["scored"] == PROBES - len(faulted)
    assert "scripted refusal" not in out.read_text(encoding="utf-8")  # classes, never messages
    assert verify(out, CORPUS) == []


def test_the_evidence_verifies_and_tampering_fails(evidence_file: Path, tmp_path: Path) -> None:
    assert verify(evidence_file, CORPUS) == []
    original = json.loads(evidence_file.read_text(encoding="utf-8"))
    deterministic = run_corpus(CORPUS, make_memory)["probes"]  # the with-memory arm saw that run
    assert {f"{r['scenario_id']}/{r['probe_id']}": r["needed_recalled"] for r in original["probes"]} == {
        key: row["counts"]["needed_recalled"] for key, row in deterministic.items()}
    assert original["corpus"]["sha256"] == CORPUS.sha256 and original["verdict"]["passed"]
    assert original["sha256"] == evidence_digest(original)

    def tampered(change: Any, *, redigest: bool) -> dict[str, Any]:
        data = json.loads(json.dumps(original))
        change(data)
        if redigest:
            data["sha256"] = evidence_digest(data)
        return data

    wrong = next(i for i, row in enumerate(original["probes"]) if not row["with_memory"]["correct"])

    def flip(data: dict[str, Any]) -> None:
        data["probes"][wrong]["with_memory"]["correct"] = True

    def reword(data: dict[str, Any]) -> None:
        cell = data["probes"][wrong]["with_memory"]
        cell["answer"] = "Something else entirely." if cell["abstained"] else ABSTAIN

    def boost(data: dict[str, Any]) -> None:
        data["summary"]["lift"] += 5

    def acquit(data: dict[str, Any]) -> None:
        data["verdict"] = {"passed": False, "failures": ["made up"]}

    def other_model(data: dict[str, Any]) -> None:
        data["model"]["model"] = "another-model"

    assert any("sha256" in p for p in verify(tampered(flip, redigest=False)))
    assert any("sha256" in p for p in verify(tampered(other_model, redigest=False)))
    assert any("summary" in p for p in verify(tampered(flip, redigest=True)))
    assert any("summary" in p for p in verify(tampered(boost, redigest=True)))
    assert any("verdict" in p for p in verify(tampered(acquit, redigest=True)))
    assert any("recorded grade" in p for p in verify(tampered(reword, redigest=True), CORPUS))
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(tampered(flip, redigest=False)), encoding="utf-8")
    with pytest.raises(EvidenceError, match="does not verify"):
        verify_or_raise(edited)


def test_grading_tolerates_abbreviations_and_punctuation_but_not_other_names() -> None:
    """Gold ``Dr Mensah`` (issue 22, item 10): the spelling of a title is not a memory failure; a
    different name, or the superseded one however it is punctuated, still is."""
    scenario = next(s for s in CORPUS.document.scenarios
                    if any(p.answer.values == ("Dr Mensah",) or list(p.answer.values) == ["Dr Mensah"]
                           for p in s.probes))
    probe = next(p for p in scenario.probes if list(p.answer.values) == ["Dr Mensah"])
    for answer in ("Dr. Mensah.", "Your vet is Dr. Mensah.", "Doctor Mensah", "DR MENSAH"):
        assert grade_answer(answer, probe, scenario, ABSTAIN)["correct"], answer
    for answer in ("Dr Mensa", "Dr. Okafor", "Mensah-Okafor", "Dr Mensahson"):
        assert not grade_answer(answer, probe, scenario, ABSTAIN)["correct"], answer
    stale = grade_answer("Our vet is Dr. Okafor, or Dr. Mensah", probe, scenario, ABSTAIN)
    assert stale["forbidden_in_answer"] == 1 and not stale["correct"]


def test_grading_is_mechanical() -> None:
    scenario = next(s for s in CORPUS.document.scenarios if s.id == "mb-relocation-001")
    update = next(p for p in scenario.probes if p.category == "update")  # exact: Portland
    assert grade_answer("You live in Portland.", update, scenario, ABSTAIN)["correct"]
    assert not grade_answer("You live in\nPortland.", update, scenario, ABSTAIN)["correct"]  # two lines
    assert not grade_answer("Portlandia", update, scenario, ABSTAIN)["correct"]  # token boundaries
    stale = grade_answer("I live in Seattle, or Portland", update, scenario, ABSTAIN)
    assert stale["forbidden_in_answer"] == 1 and not stale["correct"]
    abstain = next(p for s in CORPUS.document.scenarios for p in s.probes if p.answer.kind == "abstain")
    home = next(s for s in CORPUS.document.scenarios if abstain in s.probes)
    assert grade_answer("  i do not have that information ", abstain, home, ABSTAIN) == {
        "correct": True, "abstained": True, "single_line": True, "forbidden_in_answer": 0,
        "leaked_protected": False}
    assert not grade_answer("No idea.", abstain, home, ABSTAIN)["correct"]
    protected = next(s for s in CORPUS.document.scenarios if s.protected_statements)
    leak = grade_answer(f"It is {protected.protected_statements[0]}", protected.probes[0], protected, ABSTAIN)
    assert leak["leaked_protected"]
    traces = (RecallTrace("in_turn", (RecalledMemory("b", "B"), RecalledMemory("a", "A"))),
              RecallTrace("snapshot", (RecalledMemory("a", "A"),)))
    assert recalled_statements(ProbeReply("x", traces)) == ["A", "B"]  # snapshot first, each once
    assert recalled_statements(ProbeReply("plain reply")) == ["plain reply"]  # no traces: the reply
    assert recalled_statements("text") == ["text"] and recalled_statements(ProbeReply("", ())) == []
    assert build_messages("Q?", "Say it.", None) == [{"role": "user", "content": "Q?\n\nSay it."}]
    assert build_messages("Q?", "Say it.", [])[0]["content"] == f"{MEMORY_HEADER}\n(nothing recalled)"


def test_interval_statistics() -> None:
    low, high = wilson_interval(5, 10)
    assert (round(low, 4), round(high, 4)) == (0.2366, 0.7634)
    assert round(wilson_interval(0, 10)[1], 4) == 0.2775
    assert paired_difference_interval(0, 0, 0, 0) is None
    interval = paired_difference_interval(20, 15, 3, 26)
    assert interval is not None
    low, high = interval
    assert -1 <= low < (15 - 3) / 64 < high <= 1 and low > 0
    mirrored = paired_difference_interval(20, 3, 15, 26)
    assert mirrored is not None and mirrored == pytest.approx((-high, -low))
    everything = paired_difference_interval(0, 10, 0, 0)
    assert everything is not None and everything[1] == 1.0 and 0.5 < everything[0] < 1.0
    nothing = paired_difference_interval(5, 0, 0, 5)
    assert nothing is not None and nothing[0] < 0 < nothing[1]
    assert mcnemar_exact_p(10, 0) == pytest.approx(2 / 1024)
    assert mcnemar_exact_p(4, 4) == 1.0 and mcnemar_exact_p(0, 0) == 1.0
