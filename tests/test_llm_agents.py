"""The reference LLM agents (``--tme-agent llm-full-context | llm-bm25 | llm-no-memory``) and their
plugin wiring: model options, the response cache, one cost ceiling across xdist workers, the
report's ``model`` block, and every server fault as outcome ``error``.

Nothing here touches the network: every model is the scripted loopback server of
tests/_loopback_openai.py (the ``loopback_openai`` fixture sets a dummy OPENAI_API_KEY), and the
default response cache is redirected into the test's temporary directory.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from pytest_typedmemeval import Answer, Evidence, load_corpus, shipped_corpora
from pytest_typedmemeval.corpus.loading import Corpus
from pytest_typedmemeval.corpus.models import QuestionRecord
from pytest_typedmemeval.adapter.llm_agents import (
    LLM_AGENT_SELECTIONS,
    NO_SESSIONS_TEXT,
    LLMMemoryAgent,
    build_messages,
)
from pytest_typedmemeval.judge.choice import JudgeChoice
from pytest_typedmemeval.calls.endpoint import ModelCallError
from pytest_typedmemeval.adapter.projection import adapter_view
from pytest_typedmemeval.retrieval.bm25 import K_REF, rank_sessions, session_document

from _loopback_openai import LoopbackOpenAI, Reply, warm_model_clients
from _support import fixture_corpus_files

SESSION_HEADER = "### Session "
ABSTAIN = "I do not have that information."


warm_model_clients()  # see _loopback_openai.warm_model_clients


# --- the agents, without pytest ------------------------------------------------------------------
class _Completion:
    def __init__(self, text: str, served_model: str | None = "served-m") -> None:
        self.text, self.served_model = text, served_model


class _RecordingCaller:
    """Stands in for ModelCaller: records every request, answers a fixed text or raises."""

    def __init__(self, error: ModelCallError | None = None) -> None:
        self.requests: list[list[dict[str, str]]] = []
        self.error = error

    def complete(self, messages: Sequence[Mapping[str, str]]) -> _Completion:
        self.requests.append([dict(m) for m in messages])
        if self.error is not None:
            raise self.error
        return _Completion("  Tallowmere \n")


def _records() -> list[tuple[Corpus, QuestionRecord]]:
    corpora = [*shipped_corpora(), *(load_corpus(p) for p in fixture_corpus_files())]
    return [(corpus, record) for corpus in corpora for record in corpus.records]


def _ask(selection: str, record: QuestionRecord) -> tuple[Answer, list[dict[str, str]]]:
    view = adapter_view(record)
    caller = _RecordingCaller()
    agent = LLMMemoryAgent(caller, LLM_AGENT_SELECTIONS[selection])
    agent.reset()
    for session in view.sessions:
        agent.ingest(session)
    answer = agent.answer(view.question, query_time=view.query_time, instruction=view.instruction)
    assert len(caller.requests) == 1
    return answer, caller.requests[0]


def _history_and_tail(messages: list[dict[str, str]]) -> tuple[str, str]:
    user = messages[-1]["content"]
    history, _, tail = user.rpartition("\n\nCurrent date: ")
    return history, tail


@pytest.mark.parametrize("corpus_file", fixture_corpus_files(), ids=lambda p: p.name.split("-")[2])
def test_the_three_agents_differ_only_in_the_sessions_they_send(corpus_file: Path) -> None:
    for record in load_corpus(corpus_file).records:
        view = adapter_view(record)
        full, full_messages = _ask("llm-full-context", record)
        bm25, bm25_messages = _ask("llm-bm25", record)
        none, none_messages = _ask("llm-no-memory", record)
        top = sorted(rank_sessions([session_document([t.content for t in s.turns]) for s in view.sessions],
                                   view.question)[:K_REF])
        expected = {"full": list(range(len(view.sessions))), "bm25": top, "none": []}
        assert len(top) == min(K_REF, len(view.sessions)) < len(view.sessions)
        for name, messages, answer in (("full", full_messages, full), ("bm25", bm25_messages, bm25),
                                       ("none", none_messages, none)):
            history, tail = _history_and_tail(messages)
            chosen = [view.sessions[i] for i in expected[name]]
            # Exactly the chosen sessions, numbered in ingest order, each with its turns.
            assert history.count(SESSION_HEADER) == len(chosen)
            for session in view.sessions:
                shown = all(turn.content in history for turn in session.turns)
                assert shown == (session in chosen), (name, record.question_id)
            positions = [history.index(session.turns[0].content) for session in chosen]
            assert positions == sorted(positions)
            assert answer.text == "Tallowmere"
            ids = tuple(s.session_id for s in chosen)
            assert answer.evidence == Evidence(retrieved=ids, context=ids)
            assert tail == _history_and_tail(full_messages)[1]  # same question, date, instruction
            assert messages[0] == full_messages[0]  # same system prompt
        assert NO_SESSIONS_TEXT in none_messages[-1]["content"]
        assert view.question in full_messages[-1]["content"] and view.instruction in full_messages[-1]["content"]


def test_the_prompt_is_built_from_the_adapter_view_alone_and_carries_no_label_or_id() -> None:
    for corpus, record in _records():
        _, messages = _ask("llm-full-context", record)
        view = adapter_view(record)
        assert messages == build_messages(view.sessions, view.question, query_time=view.query_time,
                                          instruction=view.instruction)
        prompt = "\n".join(m["content"] for m in messages)
        forbidden = [record.question_id, corpus.corpus_id, *record.haystack_session_ids,
                     *record.answer_session_ids, *(s.session_id for s in view.sessions),
                     "has_answer", "answer_key", "typedmemeval", "longmemeval"]
        leaked = [text for text in forbidden if text.lower() in prompt.lower()]
        assert not leaked, (corpus.corpus_id, record.question_id, leaked)


def test_a_model_call_error_leaves_answer_as_itself() -> None:
    record = load_corpus(fixture_corpus_files()[0]).records[0]
    view = adapter_view(record)
    refusal = ModelCallError("ceiling", "a call to m: refused before sending")
    agent = LLMMemoryAgent(_RecordingCaller(error=refusal), "bm25")
    agent.ingest(view.sessions[0])
    with pytest.raises(ModelCallError) as raised:
        agent.answer(view.question, query_time=view.query_time, instruction=view.instruction)
    assert raised.value is refusal


# --- through pytest ------------------------------------------------------------------------------
def _scripted(served: str | None = None) -> Any:
    """Abstain on every question, and say which model answered; usage about half the prompt."""
    def reply(body: dict[str, Any]) -> Reply:
        size = sum(len(m["content"].encode()) for m in body["messages"])
        return Reply(content=ABSTAIN, served_model=served,
                     usage={"prompt_tokens": size // 2, "completion_tokens": 5, "total_tokens": size // 2 + 5})
    return reply


@pytest.fixture
def project(pytester: pytest.Pytester, loopback_openai: LoopbackOpenAI) -> pytest.Pytester:
    for path in fixture_corpus_files():
        shutil.copy(path, pytester.path / f"corpus_{path.name}")
    loopback_openai.script = _scripted()
    return pytester


def _args(pytester: pytest.Pytester, server: LoopbackOpenAI, agent: str = "llm-full-context",
          model: str = "m", corpora: int = 4) -> list[str]:
    files = sorted(pytester.path.glob("corpus_*.json"))[:corpora]
    return [*(f"--tme-corpus={p.name}" for p in files), "--tme-agent", agent, "--tme-model", model,
            "--tme-base-url", server.base_url, "--tme-report", "r.json", "-p", "no:cacheprovider"]


def _report(pytester: pytest.Pytester) -> dict[str, Any]:
    return json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))


def test_llm_full_context_runs_names_its_model_and_a_rerun_is_served_from_the_cache(
        pytester: pytest.Pytester, loopback_openai: LoopbackOpenAI) -> None:
    loopback_openai.script = _scripted(served="m-q4")
    args = ["--typedmemeval", "-m", "prospective", "--tme-agent", "llm-full-context", "--tme-model", "m",
            "--tme-base-url", loopback_openai.base_url, "--tme-allow-unpriced", "--tme-cache-dir", "cache",
            "--tme-report", "r.json", "-p", "no:cacheprovider"]
    result = pytester.runpytest(*args)
    report = _report(pytester)
    n = len(report["questions"])
    haystacks = {r.question: len(r.haystack_sessions) for c in shipped_corpora() for r in c.records}
    assert n > 0 and loopback_openai.count == n and report["complete"]
    assert all(q["answer"] == ABSTAIN and q["outcome"] != "error" for q in report["questions"])
    for body in loopback_openai.requests:  # the whole haystack, every time
        prompt = body["messages"][-1]["content"]
        question = prompt.rpartition("\nQuestion: ")[2].partition("\nInstruction: ")[0]
        assert prompt.count(SESSION_HEADER) == haystacks[question]
    block = report["model"]
    assert {k: block[k] for k in ("model", "base_url", "temperature", "max_tokens", "seed", "max_usd")} == {
        "model": "m", "base_url": loopback_openai.base_url, "temperature": 0.0, "max_tokens": 256,
        "seed": 0, "max_usd": 1.0}
    assert block["agent"] == "llm-full-context" and block["served_models"] == ["m-q4"]
    assert block["ledger"] == {"calls": n, "cache_hits": 0, "refused": 0, "spent_usd": 0.0, "ceiling_usd": 1.0}
    result.stdout.fnmatch_lines([f"model: llm-full-context asked m at {loopback_openai.base_url} *served by "
                                 f"m-q4; {n} call(s), 0 cache hit(s), 0 refused by the ceiling*"])
    first = {k: v for k, v in report.items() if k not in ("timing", "model")}

    pytester.runpytest_subprocess(*args, "-n", "2")  # warm cache, two workers
    again = _report(pytester)
    assert loopback_openai.count == n, "a rerun must make no request"
    assert again["model"]["ledger"]["calls"] == 0 and again["model"]["ledger"]["cache_hits"] == n
    assert {k: v for k, v in again["model"].items() if k != "ledger"} == {
        k: v for k, v in block.items() if k != "ledger"}
    assert {k: v for k, v in again.items() if k not in ("timing", "model")} == first
    assert "longmemeval" not in (pytester.path / "r.json").read_text(encoding="utf-8").lower()


def test_the_ceiling_holds_across_two_workers(project: pytest.Pytester,
                                              loopback_openai: LoopbackOpenAI) -> None:
    # $10 per million tokens: a call's worst case (every prompt byte a token, plus 256 out) is about
    # $0.02 and its reported cost about $0.008, so a $0.06 ceiling admits a handful of twelve.
    (project.path / "prices.json").write_text(json.dumps(
        {"priced-m": {"input_per_million": 10, "output_per_million": 10}}))
    slow = _scripted()
    loopback_openai.script = lambda body: dataclasses.replace(slow(body), delay_seconds=0.05)
    project.runpytest_subprocess(*_args(project, loopback_openai, model="priced-m"), "--tme-prices",
                                 "prices.json", "--tme-max-usd", "0.06", "--tme-no-cache", "-n", "2")
    report = _report(project)
    questions = report["questions"]
    ledger = report["model"]["ledger"]
    refused = [q for q in questions if q["outcome"] == "error"]
    assert len(questions) == 12 and report["complete"] and report["not_run"] == []
    assert 0 < ledger["spent_usd"] <= ledger["ceiling_usd"] == 0.06
    assert refused and all("would cross the ceiling $0.06 (--tme-max-usd)" in q["reason"] for q in refused)
    assert ledger["refused"] == len(refused)
    assert loopback_openai.count == ledger["calls"] == len(questions) - len(refused)
    assert all(q["answer"] == ABSTAIN for q in questions if q not in refused)  # answered, judged


@pytest.mark.parametrize(("extra", "fragment"), [
    ([], "model 'm' has no price"),
    (["--tme-model", ""], "--tme-agent llm-bm25 needs a model: pass --tme-model NAME"),
    (["--tme-prices", "missing.json"], "cannot read the price table"),
], ids=["unpriced", "no-model", "bad-price-file"])
def test_an_unusable_model_setting_is_one_usage_error(project: pytest.Pytester, loopback_openai: LoopbackOpenAI,
                                                      extra: list[str], fragment: str) -> None:
    result = project.runpytest(*_args(project, loopback_openai, agent="llm-bm25"), *extra)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.stderr.str().count(fragment) == 1
    assert loopback_openai.count == 0
    result.stdout.no_fnmatch_line("*passed*")


@pytest.mark.parametrize(("reply", "fragment", "attempts", "extra"), [
    (Reply.status_error(500, "boom", {"Retry-After": "0"}), "HTTP 500", 4, ()),
    (Reply.status_error(404, "The model 'wrong-m' does not exist"), "HTTP 404", 1, ()),
    # A local server keeps computing a request its client gave up on: a hang is not re-sent.
    (Reply.hang(30), "within 0.2s", 1, ("--tme-model-timeout", "0.2", "-n", "3")),
], ids=["500", "404-wrong-model", "hang"])
def test_a_server_fault_is_error_with_its_reason_for_every_question(
        project: pytest.Pytester, loopback_openai: LoopbackOpenAI, reply: Reply, fragment: str,
        attempts: int, extra: tuple[str, ...]) -> None:
    loopback_openai.script = lambda body: reply
    args = [*_args(project, loopback_openai, agent="llm-no-memory", corpora=1), "--tme-allow-unpriced",
            "--tme-no-cache", *extra]
    result = project.runpytest_subprocess(*args) if extra else project.runpytest(*args)
    report = _report(project)
    questions = report["questions"]
    assert len(questions) == 3 and report["complete"] and report["not_run"] == []
    assert {q["outcome"] for q in questions} == {"error"}
    assert all(q["reason"].startswith("adapter raised ModelCallError: ") and fragment in q["reason"]
               for q in questions)
    assert loopback_openai.count == attempts * len(questions)
    assert report["model"]["ledger"]["calls"] == attempts * len(questions)
    assert report["model"]["served_models"] == []
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([f"*reason:      adapter raised ModelCallError: *{fragment}*"])


def test_ini_keys_name_the_model_and_flags_win(project: pytest.Pytester, loopback_openai: LoopbackOpenAI) -> None:
    project.makeini(f"[pytest]\ntypedmemeval_model = ini-m\ntypedmemeval_base_url = {loopback_openai.base_url}\n"
                    "typedmemeval_max_usd = 0.5\n")
    files = [f"--tme-corpus={p.name}" for p in sorted(project.path.glob("corpus_*.json"))[:1]]
    base = [*files, "--tme-agent", "llm-no-memory", "--tme-allow-unpriced", "--tme-report", "r.json",
            "-p", "no:cacheprovider"]
    project.runpytest(*base)
    assert (_report(project)["model"]["model"], _report(project)["model"]["max_usd"]) == ("ini-m", 0.5)
    project.runpytest(*base, "--tme-model", "flag-m", "--tme-max-usd", "0.25")
    assert (_report(project)["model"]["model"], _report(project)["model"]["max_usd"]) == ("flag-m", 0.25)
    assert {body["model"] for body in loopback_openai.requests} == {"ini-m", "flag-m"}


def test_a_run_without_a_model_agent_has_no_model_block(project: pytest.Pytester) -> None:
    files = [f"--tme-corpus={p.name}" for p in sorted(project.path.glob("corpus_*.json"))[:1]]
    result = project.runpytest(*files, "--tme-agent", "reference", "--tme-report", "r.json")
    assert _report(project)["model"] is None
    result.stdout.no_fnmatch_line("model: *")


def test_the_judge_timeout_reaches_the_judge_endpoint(project: pytest.Pytester,
                                                      loopback_openai: LoopbackOpenAI) -> None:
    choice = JudgeChoice.parse("llm", "judge-m", loopback_openai.base_url)
    assert choice.endpoint().timeout_seconds == 60.0
    loopback_openai.script = lambda body: Reply.hang(30)
    files = [f"--tme-corpus={p.name}" for p in sorted(project.path.glob("corpus_*.json"))[:1]]
    project.runpytest(*files, "--tme-agent", "reference", "--tme-judge", "llm", "--tme-judge-model", "judge-m",
                      "--tme-judge-base-url", loopback_openai.base_url, "--tme-judge-timeout", "0.2",
                      "--tme-allow-unpriced", "--tme-no-cache",
                      "--tme-report", "r.json", "-k", "tme-ari-001")  # one question, one timeout
    questions = _report(project)["questions"]
    assert len(questions) == 1 and questions[0]["outcome"] == "error"
    assert "within 0.2s" in questions[0]["reason"], questions[0]["reason"]
