"""The optional model judge: the model-call seam, the LLM and hybrid judges, and their plugin wiring.

Nothing here touches the network: every model is the scripted loopback server of
tests/_loopback_openai.py (the ``loopback_openai`` fixture sets a dummy OPENAI_API_KEY).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import typing
from pathlib import Path
from typing import Any

import pytest

from pytest_typedmemeval import AnswerKey, NumericKey, load_corpus, shipped_corpora
from pytest_typedmemeval.judge.choice import JudgeChoice, JudgeChoiceError
from pytest_typedmemeval.judge.llm import (
    HybridJudge,
    JudgedLabel,
    LLMJudge,
    SubcountLabel,
    hybrid_sample_rate,
    in_hybrid_sample,
    llm_fingerprint,
    parse_verdict,
    render_messages,
)
from pytest_typedmemeval.judge.mechanical import MechanicalJudge
from pytest_typedmemeval.judge.outcomes import JUDGED_OUTCOMES, SUBCOUNTS, Outcome
from pytest_typedmemeval.calls.endpoint import (
    LOOPBACK_PLACEHOLDER_KEY,
    ModelCallError,
    ModelEndpoint,
    resolve_api_key,
    resolve_base_url,
)
from pytest_typedmemeval.calls.json_client import ModelClient

from _loopback_openai import LoopbackOpenAI, Reply
from _support import ORACLE_CONFTEST, fixture_corpus_files

POSITIVE = AnswerKey(accepted=("Tallowmere climbing wall", "Tallowmere"), wrong=("Corvane", "Brisco"))
NO_LONGER = AnswerKey(must_name=("Orlen Vask",), stale=("Orlen Vask",), wrong=("Pembry Hollis",),
                      expected_negative="no_longer")
NOT_YET = AnswerKey(premature=("Tasvir boiler service",), wrong=("Hembry",), expected_negative="not_yet")
NUMERIC = AnswerKey(numeric=NumericKey(value=440.8, unit="USD"))
UNREADABLE = "Purple elephants."
"""No key value, decline, denial or figure: the mechanical judge leaves it unjudged."""


def _endpoint(server: LoopbackOpenAI, model: str = "judge-m", timeout: float = 5.0) -> ModelEndpoint:
    return ModelEndpoint(model=model, base_url=server.base_url, timeout_seconds=timeout)


# --- the model-call seam ------------------------------------------------------------------------
def test_a_loopback_server_needs_no_key_but_a_remote_one_does() -> None:
    assert resolve_api_key("http://127.0.0.1:8765/v1", {}) == LOOPBACK_PLACEHOLDER_KEY
    assert resolve_api_key("http://localhost:8765/v1", {}) == LOOPBACK_PLACEHOLDER_KEY
    assert resolve_api_key("http://[::1]:8765/v1", {}) == LOOPBACK_PLACEHOLDER_KEY
    assert resolve_api_key("https://api.example.com/v1", {"OPENAI_API_KEY": "sk-x"}) == "sk-x"
    with pytest.raises(ModelCallError, match="set the OPENAI_API_KEY environment variable") as raised:
        resolve_api_key("https://api.example.com/v1", {})
    assert raised.value.kind == "config"


def test_base_url_comes_from_the_argument_then_openai_base_url() -> None:
    env = {"OPENAI_BASE_URL": "http://127.0.0.1:9000/v1/"}
    assert resolve_base_url("http://127.0.0.1:1/v1", env) == "http://127.0.0.1:1/v1"
    assert resolve_base_url(None, env) == "http://127.0.0.1:9000/v1"
    assert resolve_base_url(None, {}) == "https://api.openai.com/v1"


def test_a_call_asks_for_json_at_temperature_zero_and_returns_content_and_usage(
        loopback_openai: LoopbackOpenAI) -> None:
    loopback_openai.enqueue(Reply.verdict("correct", "fine"))
    client = ModelClient(_endpoint(loopback_openai))
    reply = client.complete_json([{"role": "user", "content": "hi"}])
    client.close()
    assert reply.data["outcome"] == "correct" and json.loads(reply.content) == reply.data
    assert reply.usage == {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}
    request = loopback_openai.requests[0]
    assert request["model"] == "judge-m" and request["temperature"] == 0
    assert request["response_format"] == {"type": "json_object"}


def test_a_server_refusing_json_mode_is_asked_once_without_it_and_never_again(
        loopback_openai: LoopbackOpenAI) -> None:
    loopback_openai.enqueue(Reply.status_error(400, "unknown parameter response_format"),
                            Reply.verdict("wrong"), Reply.verdict("missed"))
    client = ModelClient(_endpoint(loopback_openai))
    first = client.complete_json([{"role": "user", "content": "a"}])
    second = client.complete_json([{"role": "user", "content": "b"}])
    client.close()
    assert (first.data["outcome"], second.data["outcome"]) == ("wrong", "missed")
    assert not first.json_mode and client.json_mode_refused
    assert ["response_format" in r for r in loopback_openai.requests] == [True, False, False]


def test_a_refusal_that_persists_without_json_mode_is_raised_with_both_reasons(
        loopback_openai: LoopbackOpenAI) -> None:
    loopback_openai.enqueue(Reply.status_error(400, "bad json mode"), Reply.status_error(400, "prompt too long"))
    client = ModelClient(_endpoint(loopback_openai))
    with pytest.raises(ModelCallError) as raised:
        client.complete_json([{"role": "user", "content": "a"}])
    assert raised.value.status == 400 and "prompt too long" in str(raised.value)
    assert "bad json mode" in str(raised.value) and not client.json_mode_refused


def _quick_retrying_client(server: LoopbackOpenAI, timeout: float) -> ModelClient:
    """A client whose retries wait no time (the waits themselves are tested in test_model_calls)."""
    from pytest_typedmemeval.calls import ModelCaller, ModelSettings

    async def no_wait(seconds: float) -> None:
        return None

    endpoint = _endpoint(server, timeout=timeout)
    caller = ModelCaller(ModelSettings(model=endpoint.model, base_url=endpoint.base_url,
                                       timeout_seconds=timeout, allow_unpriced=True, cache_dir=None),
                         sleep=no_wait)
    return ModelClient(endpoint, caller=caller)


@pytest.mark.parametrize(("reply", "kind", "requests"), [
    (Reply.status_error(500, "boom\nsecond line"), "http_status", 4),
    (Reply.hang(10), "timeout", 1),  # a local server may still compute it: not re-sent
    (Reply.malformed_body(), "malformed_response", 1),
    (Reply(body=b'{"id": "x", "object": "chat.completion"}'), "malformed_response", 1),
    (Reply.content_text("Sure! The answer is correct."), "malformed_json", 1),
    (Reply.content_text('["correct"]'), "malformed_json", 1),
    (Reply.content_text(""), "malformed_response", 1),
], ids=["500", "hang", "body-not-json", "no-choices", "content-not-json", "content-not-object", "empty"])
def test_every_failure_is_one_typed_error_with_a_one_line_reason(
        loopback_openai: LoopbackOpenAI, reply: Reply, kind: str, requests: int) -> None:
    """Transient faults (5xx) are retried by the model-call layer up to its cap, counted and
    bounded; a hang on this local server is not re-sent while it may still compute it (nothing
    else in progress could show it finished); every other fault is answered at once. Either way
    one typed, one-line error."""
    loopback_openai.script = lambda body: reply
    client = _quick_retrying_client(loopback_openai, timeout=0.3)
    with pytest.raises(ModelCallError) as raised:
        client.complete_json([{"role": "user", "content": "hi"}])
    client.close()
    assert raised.value.kind == kind
    assert "\n" not in str(raised.value) and str(raised.value)
    assert loopback_openai.count == requests


def test_an_endpoint_that_is_down_is_a_connection_error() -> None:
    with LoopbackOpenAI() as server:
        url = server.base_url  # a port that was just free, now closed
    client = ModelClient(ModelEndpoint(model="m", base_url=url, timeout_seconds=2), environ={})
    with pytest.raises(ModelCallError, match="cannot reach") as raised:
        client.complete_json([{"role": "user", "content": "hi"}])
    assert raised.value.kind == "connection"


def test_a_single_code_fence_around_the_json_is_tolerated(loopback_openai: LoopbackOpenAI) -> None:
    loopback_openai.enqueue(Reply.content_text('```json\n{"outcome": "abstained", "reason": "r"}\n```'))
    client = ModelClient(_endpoint(loopback_openai))
    reply = client.complete_json([{"role": "user", "content": "x"}])
    client.close()
    assert reply.data == {"outcome": "abstained", "reason": "r"}


def test_importing_the_model_judge_does_not_import_openai() -> None:
    code = ("import sys, pytest_typedmemeval.plugin, pytest_typedmemeval.calls.endpoint, "
            "pytest_typedmemeval.calls.json_client, "
            "pytest_typedmemeval.judge.llm, pytest_typedmemeval.judge.choice; "
            "print('openai' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --- reading a verdict --------------------------------------------------------------------------
def test_the_verdict_schema_names_exactly_the_contract_outcomes_and_subcounts() -> None:
    assert typing.get_args(JudgedLabel) == tuple(o.value for o in JUDGED_OUTCOMES)
    assert typing.get_args(SubcountLabel) == SUBCOUNTS


def test_a_valid_verdict_is_read_with_its_value_and_case_folded_outcome() -> None:
    verdict = parse_verdict({"outcome": " Wrong ", "reason": "names Brisco", "value": "Brisco",
                             "subcounts": None, "confidence": 0.9}, POSITIVE)
    assert verdict.outcome is Outcome.WRONG and verdict.subcounts == frozenset()
    assert verdict.reason == 'names Brisco [read: "Brisco"]'
    terse = parse_verdict({"outcome": "abstained", "reason": None, "value": {"said": "dunno"}}, POSITIVE)
    assert terse.outcome is Outcome.ABSTAINED and terse.reason.startswith("(no reason given)")


@pytest.mark.parametrize("data", [
    {"outcome": "unjudged", "reason": "cannot tell"},
    {"outcome": "incorrect", "reason": "x"},
    {"reason": "no outcome at all"},
    {"outcome": 3},
], ids=["unjudged", "synonym", "missing", "not-a-string"])
def test_an_invalid_verdict_is_error_never_wrong(data: dict[str, Any]) -> None:
    verdict = parse_verdict(data, POSITIVE)
    assert verdict.outcome is Outcome.ERROR
    assert verdict.reason.startswith("llm judge error: invalid verdict") and "\n" not in verdict.reason


def test_premature_is_refused_where_the_gold_is_not_a_not_yet() -> None:
    assert parse_verdict({"outcome": "premature", "reason": "r"}, POSITIVE).outcome is Outcome.ERROR
    assert parse_verdict({"outcome": "premature", "reason": "r"}, NOT_YET).outcome is Outcome.PREMATURE


def test_unknown_subcount_labels_are_dropped_not_an_error() -> None:
    verdict = parse_verdict({"outcome": "wrong", "reason": "r", "subcounts": ["made_up"]}, POSITIVE)
    assert verdict.outcome is Outcome.WRONG and verdict.subcounts == frozenset()


def test_subcounts_are_kept_only_where_the_contract_sets_them() -> None:
    stale = parse_verdict({"outcome": "wrong", "reason": "r", "subcounts": ["stale_recall"]}, NO_LONGER)
    assert stale.subcounts == frozenset({"stale_recall"})
    misplaced = parse_verdict({"outcome": "correct", "reason": "r", "subcounts": ["stale_recall"]}, NO_LONGER)
    assert misplaced.subcounts == frozenset() and "dropped sub-count" in misplaced.reason
    elsewhere = parse_verdict({"outcome": "wrong", "reason": "r", "subcounts": ["over_forgetting"]}, POSITIVE)
    assert elsewhere.subcounts == frozenset()


# --- the prompt ---------------------------------------------------------------------------------
def _all_records() -> list[tuple[Any, Any]]:
    corpora = [*shipped_corpora(), *(load_corpus(p) for p in fixture_corpus_files())]
    return [(corpus, record) for corpus in corpora for record in corpus.records]


def test_the_prompt_carries_question_key_and_answer_but_no_id_and_no_reserved_token() -> None:
    records = _all_records()
    ids = {record.question_id for _, record in records} | {corpus.corpus_id for corpus, _ in records}
    for corpus, record in records:
        block = record.typedmemeval
        messages = render_messages("LongMemEval says: " + UNREADABLE, block.answer_key,
                                   frozenset(block.answer_key.list_order or ()), question=record.question)
        text = "\n".join(m["content"] for m in messages)
        assert record.question in text and UNREADABLE in text
        assert "longmemeval" not in text.lower(), record.question_id
        leaked = [i for i in ids if i in text]
        assert not leaked, (corpus.corpus_id, record.question_id, leaked)
        for value in (*block.answer_key.accepted, *block.answer_key.wrong, *block.answer_key.stale):
            assert json.dumps(value, ensure_ascii=False) in text


def test_the_prompt_states_the_rules_of_the_key_kind_and_cuts_long_answers() -> None:
    numeric = "\n".join(m["content"] for m in render_messages("1" * 25_000, NUMERIC, question="How much?"))
    assert "Expected figure: 440.8 USD, exact" in numeric and "concluding one" in numeric
    assert "1" * 20_001 not in numeric and "cut at 20000 characters" in numeric
    not_yet = "\n".join(m["content"] for m in render_messages("Call now.", NOT_YET))
    assert "NOT YET" in not_yet and "(the question text was not given)" in not_yet
    assert "subcounts: always []" in not_yet


# --- the judges ---------------------------------------------------------------------------------
def test_fingerprint_differs_by_model_and_from_every_other_judge(loopback_openai: LoopbackOpenAI) -> None:
    a = LLMJudge(_endpoint(loopback_openai, "model-a"))
    b = LLMJudge(_endpoint(loopback_openai, "model-b"))
    again = LLMJudge(ModelEndpoint(model="model-a", base_url="http://127.0.0.1:1/v1"))
    mechanical = MechanicalJudge()
    assert a.fingerprint != b.fingerprint and a.fingerprint == again.fingerprint
    assert a.fingerprint == llm_fingerprint("model-a") != llm_fingerprint("model-a", temperature=0.7)
    hybrid_a, hybrid_b = HybridJudge(mechanical, a), HybridJudge(mechanical, b)
    fingerprints = {mechanical.fingerprint, a.fingerprint, b.fingerprint,
                    hybrid_a.fingerprint, hybrid_b.fingerprint}
    assert len(fingerprints) == 5 and all(len(f) == 64 for f in fingerprints)
    assert (a.name, hybrid_a.name) == ("llm", "hybrid") and hybrid_a.model == "model-a"
    assert loopback_openai.count == 0, "building a judge calls nothing"


@pytest.mark.parametrize("reply", [Reply.status_error(500), Reply.hang(10), Reply.malformed_body(),
                                   Reply.content_text("correct")], ids=["500", "hang", "body", "content"])
def test_endpoint_failure_is_error_with_the_mechanical_second_opinion_kept(
        loopback_openai: LoopbackOpenAI, reply: Reply) -> None:
    loopback_openai.enqueue(reply)
    judge = LLMJudge(_endpoint(loopback_openai, timeout=0.5), second_opinion=MechanicalJudge())
    verdict = judge.judge("Corvane.", POSITIVE, question="Which pass is valid?")
    judge.close()
    assert verdict.outcome is Outcome.ERROR and verdict.reason.startswith("llm judge error:")
    assert verdict.mechanical_outcome is Outcome.WRONG


def test_endpoint_down_is_error_not_wrong() -> None:
    with LoopbackOpenAI() as server:
        url = server.base_url
    judge = LLMJudge(ModelEndpoint(model="m", base_url=url, timeout_seconds=2))
    verdict = judge.judge("Corvane.", POSITIVE)
    assert verdict.outcome is Outcome.ERROR and "connection" in verdict.reason


def test_the_llm_judge_returns_the_models_outcome(loopback_openai: LoopbackOpenAI) -> None:
    loopback_openai.enqueue(Reply.verdict("wrong", "a value not in the key", "Banana Boat"))
    judge = LLMJudge(_endpoint(loopback_openai), second_opinion=MechanicalJudge())
    verdict = judge.judge("Banana Boat SPF 50.", POSITIVE, question="Which pass is still valid?")
    judge.close()
    assert verdict.outcome is Outcome.WRONG and "Banana Boat" in verdict.reason
    assert verdict.mechanical_outcome is not None
    assert "Which pass is still valid?" in loopback_openai.prompts()[0]


@pytest.mark.parametrize("rate", [0.0, 0.3])
def test_hybrid_asks_the_model_about_unjudged_answers_and_a_seeded_sample_of_the_rest(
        loopback_openai: LoopbackOpenAI, rate: float) -> None:
    """The model decides what the mechanical judge could not read; for a seeded sample of the rest
    (by question and key, never by answer) it gives a second opinion that changes no verdict
    (J13.14); with the sample off, it is asked about the unjudged answers only."""
    loopback_openai.script = lambda body: Reply.verdict("wrong", "scripted", "purple")
    mechanical = MechanicalJudge()
    hybrid = HybridJudge(mechanical, LLMJudge(_endpoint(loopback_openai)), sample_rate=rate)
    cases = [(answer, record.typedmemeval.answer_key, record.question)
             for _, record in _all_records() for answer in (record.answer, "I don't know.", UNREADABLE)]
    unjudged = sampled = 0
    for answer, key, question in cases:
        first = mechanical.judge(answer, key, question=question)
        verdict = hybrid.judge(answer, key, question=question)
        if first.outcome is Outcome.UNJUDGED:
            unjudged += 1
            assert verdict.outcome is Outcome.WRONG and verdict.reason.startswith("llm (mechanical unjudged)")
            assert verdict.mechanical_outcome is Outcome.UNJUDGED and verdict.model_outcome is None
        else:
            assert verdict.outcome is first.outcome and verdict.reason.startswith("mechanical: ")
            assert verdict.mechanical_outcome is None
            in_sample = in_hybrid_sample(question, key, rate)
            assert verdict.model_outcome is (Outcome.WRONG if in_sample else None)
            sampled += in_sample
    hybrid.close()
    assert unjudged > 0 and loopback_openai.count == unjudged + sampled < len(cases)
    assert (sampled > 0) == (rate > 0)


@pytest.mark.parametrize("cut_twice", [False, True])
def test_a_verdict_cut_off_by_the_token_budget_is_asked_once_more_with_twice_the_room(
        loopback_openai: LoopbackOpenAI, cut_twice: bool) -> None:
    """J13.14: a small model that writes its reasoning first runs out of tokens; the verdict is
    asked once more with twice the budget, and only a second cut-off is an ``error``."""
    budgets: list[int] = []

    def script(body: dict[str, Any]) -> Reply:
        budgets.append(int(body["max_tokens"]))
        if cut_twice or len(budgets) == 1:
            return Reply(content='{"reason": "The answer names the Sunblock pass, which',
                         finish_reason="length")
        return Reply.verdict("correct", "names the accepted value")

    loopback_openai.script = script
    judge = LLMJudge(_endpoint(loopback_openai))
    verdict = judge.judge("Banana Boat SPF 50.", POSITIVE, question="Which pass is still valid?")
    judge.close()
    assert budgets == [judge._client.max_tokens, 2 * judge._client.max_tokens]
    if cut_twice:
        assert verdict.outcome is Outcome.ERROR and "truncated" in verdict.reason
    else:
        assert verdict.outcome is Outcome.CORRECT


def test_the_judge_token_budget_is_an_option_with_a_larger_default() -> None:
    from pytest_typedmemeval.calls.settings import DEFAULT_MAX_TOKENS
    from pytest_typedmemeval.judge.choice import DEFAULT_JUDGE_MAX_TOKENS, JudgeChoice, JudgeChoiceError

    assert DEFAULT_JUDGE_MAX_TOKENS > DEFAULT_MAX_TOKENS
    assert JudgeChoice.parse("llm", "m", None).max_tokens == DEFAULT_JUDGE_MAX_TOKENS
    assert JudgeChoice.parse("llm", "m", None, max_tokens="900").max_tokens == 900
    with pytest.raises(JudgeChoiceError, match="--tme-judge-max-tokens '0'"):
        JudgeChoice.parse("llm", "m", None, max_tokens="0")
    with pytest.raises(JudgeChoiceError, match="--tme-judge-min-agreement '1.5'"):
        JudgeChoice.parse("llm", "m", None, min_agreement="1.5")


def test_the_hybrid_sample_rate_is_five_percent_and_at_least_twenty_expected() -> None:
    assert hybrid_sample_rate(260) == pytest.approx(20 / 260)
    assert hybrid_sample_rate(1000) == 0.05 and hybrid_sample_rate(10) == 1.0


def test_judge_choice_needs_a_model_and_a_known_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(JudgeChoiceError, match="--tme-judge-model"):
        JudgeChoice.parse("llm", None, "http://127.0.0.1:1/v1").check()
    with pytest.raises(JudgeChoiceError, match="expected one of mechanical, llm, hybrid"):
        JudgeChoice.parse("oracle", None, None)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(JudgeChoiceError, match="OPENAI_API_KEY"):
        JudgeChoice.parse("hybrid", "m", "https://api.example.com/v1").check()
    assert isinstance(JudgeChoice.parse("Hybrid", "m", "http://127.0.0.1:1/v1").build(), HybridJudge)
    assert JudgeChoice.parse("mechanical", None, None).build().name == "mechanical"


# --- through pytest -----------------------------------------------------------------------------
AGENT_MODULE = '''
import json
from pathlib import Path
from pytest_typedmemeval.corpus import format_corpus_date

GOLD = {}
for path in Path(__file__).parent.glob("corpus_*.json"):
    for record in json.loads(path.read_text()):
        GOLD[record["question"], record["question_date"]] = record["answer"]


class HalfGoldAgent:
    """Gold for some questions, an answer no rule can read for the others (fixed by the text)."""

    def reset(self):
        pass

    def ingest(self, session):
        pass

    def answer(self, question, *, query_time, instruction):
        if sum(map(ord, question)) % 2:
            return "Purple elephants (LongMemEval)."
        return GOLD[question, format_corpus_date(query_time)]


def make():
    return HalfGoldAgent()
'''


def _scripted_verdict(body: dict[str, Any]) -> Reply:
    """Wrong for the unreadable answer, correct for everything else (the gold)."""
    prompt = "\n".join(m["content"] for m in body["messages"])
    if "Purple elephants" in prompt:
        return Reply.verdict("wrong", "a value the key does not hold", "Purple elephants")
    return Reply.verdict("correct", "the accepted value")


@pytest.fixture
def judged_project(pytester: pytest.Pytester, loopback_openai: LoopbackOpenAI) -> pytest.Pytester:
    for path in fixture_corpus_files():
        shutil.copy(path, pytester.path / f"corpus_{path.name}")
    pytester.makepyfile(llm_agent=AGENT_MODULE)
    pytester.syspathinsert()
    loopback_openai.script = _scripted_verdict
    return pytester


def _judge_args(pytester: pytest.Pytester, server: LoopbackOpenAI, mode: str) -> list[str]:
    corpora = [a for p in sorted(pytester.path.glob("corpus_*.json")) for a in ("--tme-corpus", p.name)]
    return [*corpora, "--tme-agent", "llm_agent:make", "--tme-judge", mode, "--tme-judge-model", "m",
            "--tme-judge-base-url", server.base_url, "--tme-report", "r.json", "-p", "no:cacheprovider",
            # The judge calls through the model-call layer: the loopback model has no price, and a
            # test must neither write to the user's cache nor be answered from it.
            "--tme-allow-unpriced", "--tme-no-cache"]


def _mechanical_outcomes(pytester: pytest.Pytester, report: dict[str, Any]) -> dict[str, str]:
    keys = {(corpus.corpus_id, record.question_id): record
            for corpus in (load_corpus(p) for p in sorted(pytester.path.glob("corpus_*.json")))
            for record in corpus.records}
    mechanical = MechanicalJudge()
    return {q["question_id"]: mechanical.judge(q["answer"], keys[q["corpus_id"], q["question_id"]]
                                               .typedmemeval.answer_key, question=q["question"]).outcome.value
            for q in report["questions"]}


def test_llm_mode_grades_every_answer_by_the_model_and_reports_agreement(
        judged_project: pytest.Pytester, loopback_openai: LoopbackOpenAI) -> None:
    result = judged_project.runpytest(*_judge_args(judged_project, loopback_openai, "llm"))
    report = json.loads((judged_project.path / "r.json").read_text(encoding="utf-8"))
    questions = report["questions"]
    assert loopback_openai.count == len(questions) > 0
    unreadable = {q["question_id"] for q in questions if "Purple" in q["answer"]}
    assert 0 < len(unreadable) < len(questions)
    assert {q["question_id"]: q["outcome"] for q in questions} == {
        q["question_id"]: "wrong" if q["question_id"] in unreadable else "correct" for q in questions}
    mechanical = _mechanical_outcomes(judged_project, report)
    assert {q["question_id"]: q["mechanical_outcome"] for q in questions} == mechanical
    assert report["judge"] == {"mode": "llm", "name": "llm", "model": "m",
                               "fingerprint": llm_fingerprint("m")}
    assert all(q["judge"] == "llm" and q["judge_fingerprint"] == llm_fingerprint("m") for q in questions)
    agreement = report["judge_agreement"]
    assert agreement["n"] == len(questions)
    assert agreement["mechanical_unjudged"] == sum(1 for o in mechanical.values() if o == "unjudged")
    assert sum(sum(row.values()) for row in agreement["confusion"]["matrix"].values()) == len(questions)
    judged = {o.value for o in JUDGED_OUTCOMES}
    compared = [q for q in questions if mechanical[q["question_id"]] in judged]
    assert agreement["compared"] == len(compared)
    assert agreement["agreed"] == sum(1 for q in compared if mechanical[q["question_id"]] == q["outcome"])
    result.stdout.fnmatch_lines([f"judge agreement (mechanical vs model, n={len(questions)}): *"])
    prompts = "\n".join(loopback_openai.prompts())
    assert "longmemeval" not in prompts.lower()
    assert not [q["question_id"] for q in questions if q["question_id"] in prompts]
    assert not [q["corpus_id"] for q in questions if q["corpus_id"] in prompts]


def test_hybrid_mode_decides_unjudged_answers_and_measures_itself_on_a_sample(
        judged_project: pytest.Pytester, loopback_openai: LoopbackOpenAI) -> None:
    """The model decides the mechanically unjudged answers; the rest keep the mechanical verdict,
    and the seeded sample of them (every question here: fewer than 20 are loaded, so the rate is
    1) carries the model's outcome as a second opinion, so the agreement block is not empty
    (J13.14). Too few answers for the agreement bound: said in one line, not evaluated."""
    result = judged_project.runpytest(*_judge_args(judged_project, loopback_openai, "hybrid"))
    report = json.loads((judged_project.path / "r.json").read_text(encoding="utf-8"))
    mechanical = _mechanical_outcomes(judged_project, report)
    unjudged = {qid for qid, outcome in mechanical.items() if outcome == "unjudged"}
    assert unjudged and loopback_openai.count == len(report["questions"])
    for q in report["questions"]:
        if q["question_id"] in unjudged:
            assert q["mechanical_outcome"] == "unjudged" and q["reason"].startswith("llm (mechanical unjudged)")
            assert q["outcome"] == ("wrong" if "Purple" in q["answer"] else "correct")
            assert q["model_outcome"] is None
        else:
            assert q["mechanical_outcome"] is None and q["outcome"] == mechanical[q["question_id"]]
            assert q["reason"].startswith("mechanical: ") and q["model_outcome"] is not None
    assert report["judge"]["mode"] == "hybrid" and report["judge"]["model"] == "m"
    agreement = report["judge_agreement"]
    sampled = len(report["questions"]) - len(unjudged)
    assert agreement["n"] == len(report["questions"]) and agreement["sampled"] == sampled
    assert agreement["mechanical_unjudged"] == len(unjudged) and agreement["compared"] > 0
    assert sum(agreement["confusion"]["matrix"]["unjudged"].values()) == len(unjudged)
    assert report["judge_agreement_check"]["passed"] is None
    result.stdout.fnmatch_lines(["*judge agreement: NOT EVALUATED against --tme-judge-min-agreement 0.9*"])


@pytest.mark.parametrize(("verdict", "bound", "passed"), [("agree", "0.9", True),
                                                         ("disagree", "0.9", False),
                                                         ("disagree", "0", True)])
def test_llm_mode_fails_the_session_below_the_agreement_bound(
        pytester: pytest.Pytester, loopback_openai: LoopbackOpenAI, verdict: str, bound: str,
        passed: bool) -> None:
    """--tme-judge-min-agreement (J13.14): with 20 or more answers graded by both judges, a rate
    below the bound fails the session in one line, whatever the items did; at or above, it passes."""
    from pytest_typedmemeval.judge.mechanical import MechanicalJudge as Mechanical
    source = next(c for c in shipped_corpora() if c.vertical == "arithmetic")
    shutil.copy(source.path, pytester.path / "corpus_arithmetic.json")  # no sidecar: not shipped
    pytester.makeconftest(ORACLE_CONFTEST)
    records = load_corpus(pytester.path / "corpus_arithmetic.json").records
    mechanical = Mechanical()
    chosen = [r for r in records if mechanical.judge(r.answer, r.typedmemeval.answer_key,
                                                     question=r.question).outcome is Outcome.CORRECT]
    select = " or ".join(r.question_id for r in chosen[:20])
    outcome = "correct" if verdict == "agree" else "abstained"
    loopback_openai.script = lambda body: Reply.verdict(outcome, "scripted", None)
    result = pytester.runpytest(
        "--tme-corpus", "corpus_arithmetic.json", "-k", select,
        "--tme-judge", "llm", "--tme-judge-model", "m",
        "--tme-judge-base-url", loopback_openai.base_url, "--tme-allow-unpriced", "--tme-no-cache",
        "--tme-judge-min-agreement", bound, "--tme-report", "r.json", "-p", "no:cacheprovider",
        "--tme-fail-under", "0")
    report = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    assert report["judge_agreement"]["compared"] == 20
    assert report["judge_agreement_check"]["passed"] is passed
    if passed:
        assert result.ret == pytest.ExitCode.OK
    else:
        assert result.ret == pytest.ExitCode.TESTS_FAILED
        result.stdout.fnmatch_lines(["*FAILED judge agreement: the mechanical and the model judge "
                                     "agree on 0.00 of 20 answers*below --tme-judge-min-agreement 0.9*"])


def test_mechanical_mode_reports_no_agreement_block_and_calls_nothing(
        judged_project: pytest.Pytester, loopback_openai: LoopbackOpenAI) -> None:
    args = _judge_args(judged_project, loopback_openai, "mechanical")
    result = judged_project.runpytest(*args)
    report = json.loads((judged_project.path / "r.json").read_text(encoding="utf-8"))
    assert loopback_openai.count == 0 and report["judge_agreement"] is None
    assert report["judge"]["mode"] == "mechanical" and report["judge"]["model"] is None
    assert all(q["mechanical_outcome"] is None for q in report["questions"])
    result.stdout.no_fnmatch_line("*judge agreement*")


def test_a_failing_endpoint_is_a_systematic_fault_that_stops_the_run(
        judged_project: pytest.Pytester, loopback_openai: LoopbackOpenAI) -> None:
    """A judge endpoint that is down fails every question alike (issue 22, item 4): the first three
    are ``error`` with the endpoint's reason, the rest are named in ``not_run``, one line, exit 4."""
    loopback_openai.script = lambda body: Reply.status_error(503, "model loading")
    result = judged_project.runpytest(*_judge_args(judged_project, loopback_openai, "llm"))
    report = json.loads((judged_project.path / "r.json").read_text(encoding="utf-8"))
    assert [q["outcome"] for q in report["questions"]] == ["error"] * 3
    assert all("HTTP 503" in q["reason"] for q in report["questions"])
    assert report["judge_agreement"]["model_errors"] == 3
    assert report["not_run"] and len(report["not_run"]) + 3 == report["selected"]
    assert "HTTP 503" in report["adapter_failure"]
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stdout.fnmatch_lines(["*mechanical:  * (second opinion; not the verdict)*",
                                 "*the first 3 questions all ended in the same error*HTTP 503*"])


def test_llm_report_is_identical_under_xdist(judged_project: pytest.Pytester,
                                             loopback_openai: LoopbackOpenAI) -> None:
    args = _judge_args(judged_project, loopback_openai, "llm")
    reports = []
    for workers in ("0", "2"):
        judged_project.runpytest_subprocess(*args, "-n", workers)
        report = json.loads((judged_project.path / "r.json").read_text(encoding="utf-8"))
        report.pop("timing")
        reports.append(report)
    assert reports[0]["judge_agreement"] and reports[0] == reports[1]
    assert reports[1]["missing_results"] == [] and reports[1]["workers_without_payload"] == []


@pytest.mark.parametrize(("args", "fragment"), [
    (["--tme-judge", "llm"], "--tme-judge llm needs a model: pass --tme-judge-model NAME"),
    (["--tme-judge", "hybrid", "--tme-judge-model", "m", "--tme-judge-base-url", "https://api.example.com/v1"],
     "set the OPENAI_API_KEY environment variable"),
])
def test_a_model_judge_without_model_or_key_is_one_usage_error(
        consumer: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, args: list[str], fragment: str) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    corpora = [a for p in sorted(consumer.path.glob("corpus_*.json")) for a in ("--tme-corpus", p.name)]
    result = consumer.runpytest(*corpora, *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.stderr.str().count(fragment) == 1
    result.stdout.no_fnmatch_line("*passed*")


def test_ini_selects_the_judge_and_the_hook_still_wins(
        judged_project: pytest.Pytester, loopback_openai: LoopbackOpenAI) -> None:
    corpora = [a for p in sorted(judged_project.path.glob("corpus_*.json")) for a in ("--tme-corpus", p.name)]
    judged_project.makeini(f"[pytest]\ntypedmemeval_judge = llm\ntypedmemeval_judge_model = ini-model\n"
                           f"typedmemeval_judge_base_url = {loopback_openai.base_url}\n")
    base = [*corpora, "--tme-agent", "llm_agent:make", "--tme-report", "r.json", "-p", "no:cacheprovider",
            "--tme-allow-unpriced", "--tme-no-cache"]
    judged_project.runpytest(*base)
    report = json.loads((judged_project.path / "r.json").read_text(encoding="utf-8"))
    assert report["judge"]["model"] == "ini-model" and loopback_openai.count == len(report["questions"])
    judged_project.makeconftest(
        """
        from pytest_typedmemeval import Outcome, Verdict
        class Lenient:
            name = "lenient"
            fingerprint = "0" * 64
            def judge(self, answer, key, surfaced_items=None, *, question=None):
                return Verdict(Outcome.CORRECT, "always")
        def pytest_typedmemeval_make_judge(config):
            return Lenient()
        """
    )
    calls = loopback_openai.count
    judged_project.runpytest(*base)
    report = json.loads((judged_project.path / "r.json").read_text(encoding="utf-8"))
    assert report["judge"] == {"mode": "hook", "name": "lenient", "model": None, "fingerprint": "0" * 64}
    assert {q["outcome"] for q in report["questions"]} == {"correct"} and loopback_openai.count == calls
