"""The model-call layer (pytest_typedmemeval.calls): cache, prices, ceiling, retries, concurrency.

Every model here is the scripted loopback server of tests/_loopback_openai.py; nothing leaves the
machine. Waits between retries are recorded by an injected sleep, so the retry tests are exact and
fast; the one test that needs a real wait (a hang past the timeout) keeps it under a second.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pytest_typedmemeval.calls import (
    CostLedger,
    ModelCaller,
    ModelSettings,
    Price,
    PriceTable,
    ResponseCache,
    request_key,
)
from pytest_typedmemeval.calls import retry
from pytest_typedmemeval.calls.budget import worst_case_tokens
from pytest_typedmemeval.calls.endpoint import ModelCallError

from _loopback_openai import LoopbackOpenAI, Reply

PRICED = PriceTable({"m": Price(input_per_million=100.0, output_per_million=100.0)})
"""$0.0001 per token each way: a call's worst case is a few cents, so ceilings bite quickly."""
QUESTION = [{"role": "user", "content": "Which colour was the boat?"}]


def _caller(server: LoopbackOpenAI, tmp_path: Path, **fields: object) -> tuple[ModelCaller, list[float]]:
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    settings = ModelSettings(**{"model": "m", "base_url": server.base_url, "allow_unpriced": True,
                                "cache_dir": tmp_path / "cache", "timeout_seconds": 5.0, **fields})
    return ModelCaller(settings, environ={}, sleep=sleep), waits


# --- cache -----------------------------------------------------------------------------------------


def test_a_rerun_makes_zero_requests(loopback_openai: LoopbackOpenAI, tmp_path: Path) -> None:
    loopback_openai.script = lambda body: "teal"
    caller, _ = _caller(loopback_openai, tmp_path)
    first = caller.complete(QUESTION)
    caller.close()
    again, _ = _caller(loopback_openai, tmp_path)  # a new process would build a new caller
    second = again.complete(QUESTION)
    again.close()
    assert (first.text, first.cached, second.text, second.cached) == ("teal", False, "teal", True)
    assert loopback_openai.count == 1
    assert again.ledger.snapshot()["cache_hits"] == 1


@pytest.mark.parametrize("change", [{"temperature": 0.7}, {"max_tokens": 9}, {"seed": 3},
                                    {"model": "m2"}])
def test_every_sampling_parameter_is_in_the_key(loopback_openai: LoopbackOpenAI, tmp_path: Path,
                                                change: dict[str, object]) -> None:
    loopback_openai.script = lambda body: "teal"
    caller, _ = _caller(loopback_openai, tmp_path)
    caller.complete(QUESTION)
    caller.close()
    changed, _ = _caller(loopback_openai, tmp_path, **change)
    assert not changed.complete(QUESTION).cached
    changed.close()
    assert loopback_openai.count == 2


def test_the_key_covers_messages_seed_and_json_mode(tmp_path: Path) -> None:
    caller = ModelCaller(ModelSettings(model="m", base_url="http://127.0.0.1:9/v1", allow_unpriced=True))
    base = caller.request_of(QUESTION)
    assert request_key(base) == request_key(caller.request_of(QUESTION))
    assert request_key(base) != request_key(caller.request_of(QUESTION, seed=1))
    assert request_key(base) != request_key(caller.request_of(QUESTION, json_mode=True))
    assert request_key(base) != request_key(caller.request_of([{"role": "user", "content": "x"}]))


def test_failures_are_never_cached_and_a_damaged_entry_reads_as_absent(
        loopback_openai: LoopbackOpenAI, tmp_path: Path) -> None:
    loopback_openai.enqueue(Reply.status_error(400, "bad request"))
    loopback_openai.script = lambda body: "teal"
    caller, _ = _caller(loopback_openai, tmp_path)
    with pytest.raises(ModelCallError):
        caller.complete(QUESTION)
    assert caller.complete(QUESTION).text == "teal"  # asked again, not served a cached failure
    cache = ResponseCache(tmp_path / "cache")
    entry = next((tmp_path / "cache").rglob("*.json"))
    entry.write_text("{not json", encoding="utf-8")
    assert cache.get(caller.request_of(QUESTION)) is None
    caller.close()


# --- retries ---------------------------------------------------------------------------------------


def test_transient_faults_are_retried_with_the_servers_wait(loopback_openai: LoopbackOpenAI,
                                                          tmp_path: Path) -> None:
    loopback_openai.enqueue(Reply.status_error(429, "slow down", {"Retry-After": "2"}),
                            Reply.status_error(503, "busy"), Reply.truncated(), "teal")
    caller, waits = _caller(loopback_openai, tmp_path)
    completion = caller.complete(QUESTION)
    caller.close()
    assert completion.text == "teal" and completion.attempts == 4
    assert waits == [2.0, retry.BASE_DELAY * 2, retry.BASE_DELAY * 4]
    assert loopback_openai.count == 4


@pytest.mark.parametrize(("reply", "kind"), [
    (Reply.status_error(400, "bad request"), "http_status"),
    (Reply.status_error(401, "bad key"), "http_status"),
    (Reply.status_error(404, "The model 'm' does not exist"), "http_status"),
    (Reply.malformed_body(), "malformed_response"),
    (Reply(content=""), "malformed_response"),
])
def test_permanent_faults_are_not_retried(loopback_openai: LoopbackOpenAI, tmp_path: Path,
                                          reply: Reply, kind: str) -> None:
    loopback_openai.enqueue(reply)
    caller, waits = _caller(loopback_openai, tmp_path)
    with pytest.raises(ModelCallError) as raised:
        caller.complete(QUESTION)
    caller.close()
    assert raised.value.kind == kind and waits == [] and loopback_openai.count == 1
    assert "\n" not in str(raised.value)


def test_retries_give_up_after_the_cap_with_a_reason(loopback_openai: LoopbackOpenAI,
                                                     tmp_path: Path) -> None:
    loopback_openai.script = lambda body: Reply.status_error(500, "always broken")
    caller, waits = _caller(loopback_openai, tmp_path)
    with pytest.raises(ModelCallError, match=rf"gave up after {retry.MAX_ATTEMPTS} attempts"):
        caller.complete(QUESTION)
    caller.close()
    assert loopback_openai.count == retry.MAX_ATTEMPTS and len(waits) == retry.MAX_ATTEMPTS - 1


def test_a_retry_after_longer_than_the_cap_gives_up_at_once(loopback_openai: LoopbackOpenAI,
                                                            tmp_path: Path) -> None:
    loopback_openai.enqueue(Reply.status_error(429, "quota", {"Retry-After": "3600"}))
    caller, waits = _caller(loopback_openai, tmp_path)
    with pytest.raises(ModelCallError, match="asked to wait 3600s"):
        caller.complete(QUESTION)
    caller.close()
    assert waits == [] and loopback_openai.count == 1


def test_a_hang_past_the_timeout_of_a_hosted_endpoint_is_a_timeout_and_retried(
        loopback_openai: LoopbackOpenAI, tmp_path: Path) -> None:
    loopback_openai.enqueue(Reply.hang(3.0), "teal")
    caller, waits = _caller(loopback_openai, tmp_path, timeout_seconds=0.3, local_endpoint=False)
    assert caller.complete(QUESTION).text == "teal"
    caller.close()
    assert len(waits) == 1


def test_a_lone_timeout_on_a_local_server_is_not_re_sent(loopback_openai: LoopbackOpenAI,
                                                         tmp_path: Path) -> None:
    """Nothing else in progress can show the server finished it: a re-send would queue behind the
    copy it is still computing (issue 22, item 10), so it is given up with that reason."""
    loopback_openai.enqueue(Reply.hang(3.0), "teal")
    caller, waits = _caller(loopback_openai, tmp_path, timeout_seconds=0.3)
    with pytest.raises(ModelCallError, match=r"within 0\.3s \(not re-sent: the server may still be computing it"):
        caller.complete(QUESTION)
    caller.close()
    assert loopback_openai.count == 1 and waits == []
    assert caller.inflight_bound[2] == 1


def test_against_a_one_at_a_time_server_nothing_is_re_sent_while_it_computes_the_copy(tmp_path: Path) -> None:
    """Four in flight against a server computing one at a time: the queued ones time out, the bound
    halves to one, and each timed-out request is re-sent only after the server answered a request
    sent after it — never while it still computes the abandoned copy."""
    batch = [([{"role": "user", "content": f"question {i}"}], 0) for i in range(12)]
    with LoopbackOpenAI(lambda body: "teal", serial_seconds=0.3) as server:
        caller, _ = _caller(server, tmp_path, timeout_seconds=0.75, concurrency=4)
        caller.complete([{"role": "user", "content": "warm"}])  # the client's first call is slow
        results = caller.complete_many(batch)
        caller.close()
        computations = list(server.computations)
        arrivals = [LoopbackOpenAI.request_key(body) for body in server.requests]
    start, now, timeouts = caller.inflight_bound
    assert (start, now) == (4, 1) and timeouts >= 2
    assert len(arrivals) > len(batch) + 1  # some were re-sent ...
    for key, arrived, _, _ in computations:  # ... each only once its earlier copy was computed
        earlier = [end for k, a, _, end in computations if k == key and a < arrived]
        assert all(end <= arrived for end in earlier), key
    failed = [r for r in results if isinstance(r, ModelCallError)]
    assert all("not re-sent" in str(error) for error in failed)
    assert len(failed) < len(batch)


def test_the_served_model_is_reported(loopback_openai: LoopbackOpenAI, tmp_path: Path) -> None:
    loopback_openai.enqueue(Reply(content="teal", served_model="m-2026-01-01"))
    caller, _ = _caller(loopback_openai, tmp_path)
    assert caller.complete(QUESTION).served_model == "m-2026-01-01"
    caller.close()


def test_retry_after_parses_seconds_and_dates() -> None:
    from datetime import datetime, timezone

    now = datetime(2026, 12, 1, tzinfo=timezone.utc)
    assert retry.parse_retry_after("7") == 7.0
    assert retry.parse_retry_after("Tue, 01 Dec 2026 00:00:30 GMT", now=now) == 30.0
    assert retry.parse_retry_after("soon") is None and retry.parse_retry_after(None) is None


# --- prices and the ceiling --------------------------------------------------------------------------


def test_an_unpriced_model_is_refused_before_any_call(loopback_openai: LoopbackOpenAI,
                                                      tmp_path: Path) -> None:
    caller, _ = _caller(loopback_openai, tmp_path, allow_unpriced=False, model="unknown-model")
    with pytest.raises(ModelCallError, match="no price") as raised:
        caller.check()
    assert raised.value.kind == "unpriced"
    with pytest.raises(ModelCallError, match="no price"):
        caller.complete(QUESTION)
    caller.close()
    assert loopback_openai.count == 0


def test_a_price_file_extends_the_table_and_a_bad_one_names_the_entry(tmp_path: Path) -> None:
    good = tmp_path / "prices.json"
    good.write_text(json.dumps({"local": {"input_per_million": 0, "output_per_million": 0}}))
    table = PriceTable.load(good)
    assert table.price_of("local") == Price(input_per_million=0, output_per_million=0)
    assert table.price_of("gpt-4o-mini-2024-07-18") == table.price_of("gpt-4o-mini")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"local": {"input_per_million": -1, "output_per_million": 0}}))
    with pytest.raises(ModelCallError, match=r"bad\.json: model 'local', field input_per_million"):
        PriceTable.load(bad)


def test_worst_case_bounds_every_prompt_byte_and_max_tokens() -> None:
    prompt, completion = worst_case_tokens([{"role": "user", "content": "héllo"}], 50)
    assert prompt >= len("héllo".encode()) and completion == 50


def test_the_ceiling_is_never_crossed_by_concurrent_calls(loopback_openai: LoopbackOpenAI,
                                                          tmp_path: Path) -> None:
    loopback_openai.script = lambda body: Reply(content="teal", usage={
        "prompt_tokens": 20, "completion_tokens": 10, "total_tokens": 30})
    settings = ModelSettings(model="m", base_url=loopback_openai.base_url, max_usd=0.2,
                             max_tokens=100, concurrency=8, cache_dir=None)
    caller = ModelCaller(settings, environ={}, prices=PRICED)
    # 100 calls of $0.003 each against $0.2: the ceiling binds. A call's worst case is about
    # $0.012; refused are only calls that settled spend alone leaves no room for (issue 24).
    batch = [([{"role": "user", "content": f"question {i}"}], None) for i in range(100)]
    results = caller.complete_many(batch)
    snapshot = caller.ledger.snapshot()
    caller.close()
    refused = [r for r in results if isinstance(r, ModelCallError)]
    answered = [r for r in results if not isinstance(r, ModelCallError)]
    assert refused and answered and all(r.kind == "ceiling" for r in refused)
    assert all("--tme-max-usd" in str(r) for r in refused)
    assert snapshot["spent_usd"] <= 0.2 and snapshot["reserved_usd"] == 0
    assert loopback_openai.count == len(answered) == snapshot["calls"]
    assert snapshot["spent_usd"] == pytest.approx(len(answered) * 30 * 100 / 1e6)
    worst = (len("question 99".encode()) + 8 + 100) * 100 / 1e6
    assert snapshot["spent_usd"] + worst > 0.2  # no call was refused while settled spend had room


def test_a_reservation_in_flight_makes_a_request_wait_not_refuse() -> None:
    """Issue 24: refuse on settled spend plus the request's own worst case; another request's open
    reservation (which usually settles far lower) only makes it wait."""
    ledger = CostLedger(1.0)
    assert ledger.try_reserve(0.7, what="a")  # in flight, worst case $0.7
    assert ledger.try_reserve(0.5, what="b") is False  # would cross only because of a's reservation
    assert ledger.snapshot()["refused"] == 0 and ledger.snapshot()["reserved_usd"] == pytest.approx(0.7)
    ledger.settle(0.7, 0.1)  # a settles far lower
    assert ledger.try_reserve(0.5, what="b")  # now admitted
    ledger.settle(0.5, 0.5)
    with pytest.raises(ModelCallError, match=r"\$0\.600000 spent would cross the ceiling"):
        ledger.try_reserve(0.5, what="c")  # settled spend alone leaves no room: refused for good
    assert ledger.try_reserve(0.3, what="d")
    with pytest.raises(ModelCallError, match="still reserved by requests in flight, after waiting 2s"):
        ledger.try_reserve(0.3, what="e", final=True, waited_seconds=2)  # the wait is bounded
    assert ledger.snapshot()["refused"] == 2


def test_a_waiting_request_is_admitted_once_the_reservation_settles(loopback_openai: LoopbackOpenAI) -> None:
    """End to end on the caller: a request whose admission waits on another's open reservation
    is sent once that one settles (the wait polls; the fake sleep settles the other meanwhile)."""
    loopback_openai.script = lambda body: Reply(content="teal", usage={
        "prompt_tokens": 20, "completion_tokens": 10, "total_tokens": 30})
    settings = ModelSettings(model="m", base_url=loopback_openai.base_url, max_usd=0.02,
                             max_tokens=100, concurrency=1, cache_dir=None)
    ledger = CostLedger(0.02)
    ledger.reserve(0.015, what="another process's call")  # open: the next call cannot fit beside it
    polls: list[float] = []

    async def settle_the_other(seconds: float) -> None:
        polls.append(seconds)
        if len(polls) == 3:
            ledger.settle(0.015, 0.001)

    caller = ModelCaller(settings, environ={}, prices=PRICED, ledger=ledger, sleep=settle_the_other)
    assert caller.complete([{"role": "user", "content": "question"}]).text == "teal"
    caller.close()
    assert len(polls) == 3 and ledger.snapshot()["refused"] == 0


_WORKER = textwrap.dedent("""
    import json, sys
    from pathlib import Path
    from pytest_typedmemeval.calls import ModelCaller, ModelSettings, Price, PriceTable
    from pytest_typedmemeval.calls.endpoint import ModelCallError
    base_url, ledger, name = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
    settings = ModelSettings(model="m", base_url=base_url, max_usd=0.2, max_tokens=100,
                             concurrency=4, cache_dir=None, ledger_path=ledger)
    caller = ModelCaller(settings, environ={}, prices=PriceTable(
        {"m": Price(input_per_million=100.0, output_per_million=100.0)}))
    results = caller.complete_many(
        [([{"role": "user", "content": f"{name} question {i}"}], None) for i in range(40)])
    caller.close()
    print(json.dumps([isinstance(r, ModelCallError) for r in results]))
""")


def test_two_processes_sharing_a_ledger_spend_one_budget(loopback_openai: LoopbackOpenAI,
                                                         tmp_path: Path) -> None:
    """What pytest-xdist workers do: separate processes, one ledger path, one ceiling."""
    loopback_openai.script = lambda body: Reply(content="teal", usage={
        "prompt_tokens": 20, "completion_tokens": 10, "total_tokens": 30})
    ledger = tmp_path / "ledger.json"
    workers = [subprocess.Popen([sys.executable, "-c", _WORKER, loopback_openai.base_url,
                                 str(ledger), name], stdout=subprocess.PIPE, text=True)
               for name in ("gw0", "gw1")]
    refused = [json.loads(w.communicate(timeout=120)[0]) for w in workers]
    state = json.loads(ledger.read_text())
    answered = sum(not flag for flags in refused for flag in flags)
    assert all(w.returncode == 0 for w in workers)
    assert state["spent_usd"] <= 0.2 and state["reserved_usd"] == 0
    assert answered == loopback_openai.count == state["calls"]
    assert any(any(flags) for flags in refused)  # the shared budget ran out for someone
    # One budget: each process alone would have answered all 40 of its calls (80 x $0.003 = $0.24,
    # within $0.2 per private ledger), so a refusal proves the spend of the other counted.
    assert state["spent_usd"] == pytest.approx(answered * 30 * 100 / 1e6) and answered < 80


def test_a_failed_call_releases_its_reservation_unless_it_may_have_been_billed() -> None:
    ledger = CostLedger(1.0)
    ledger.reserve(0.4, what="a")
    ledger.release(0.4, billed=False)
    ledger.reserve(0.3, what="b")
    ledger.release(0.3, billed=True)  # a timeout: the server may have done the work
    assert ledger.snapshot()["spent_usd"] == pytest.approx(0.3)
    assert ledger.snapshot()["reserved_usd"] == 0


def test_a_bad_ceiling_is_a_config_error() -> None:
    with pytest.raises(ModelCallError, match="ceiling"):
        CostLedger(float("nan"))


def test_a_dead_endpoint_costs_one_request_per_call_after_the_breaker_trips(
        loopback_openai: LoopbackOpenAI, tmp_path: Path) -> None:
    loopback_openai.script = lambda body: Reply.status_error(503, "down")
    caller, waits = _caller(loopback_openai, tmp_path)
    for index in range(retry.BREAKER_AFTER):
        with pytest.raises(ModelCallError, match="gave up after"):
            caller.complete([{"role": "user", "content": f"q{index}"}])
    tripped = loopback_openai.count
    with pytest.raises(ModelCallError, match="not retried: the last 3 calls"):
        caller.complete([{"role": "user", "content": "next"}])
    assert loopback_openai.count == tripped + 1 == retry.BREAKER_AFTER * retry.MAX_ATTEMPTS + 1
    loopback_openai.script = lambda body: "back"  # a success resets the breaker
    assert caller.complete([{"role": "user", "content": "again"}]).text == "back"
    loopback_openai.script = lambda body: Reply.status_error(503, "down")
    with pytest.raises(ModelCallError, match="gave up after"):
        caller.complete([{"role": "user", "content": "retried in full"}])
    caller.close()


def test_a_file_backed_ledger_counts_its_refusals(tmp_path: Path) -> None:
    ledger = CostLedger(0.01, tmp_path / "ledger.json")
    with pytest.raises(ModelCallError, match="would cross the ceiling"):
        ledger.reserve(0.02, what="a call")
    assert ledger.snapshot()["refused"] == 1 and ledger.snapshot()["reserved_usd"] == 0
