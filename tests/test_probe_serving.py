"""``typedmemeval probe`` against a server that computes one request at a time (issue 22, item 10).

The loopback server's ``serial_seconds`` mode behaves like llama.cpp started for one request at a
time: requests are computed one after another in arrival order, and one the client gave up on is
computed all the same. Assertions are about order and counts (what arrived while the server was
busy, how many calls a request took), never about how long anything took.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_probe_runner import DATE, FORGETTING, copy_corpus, honest_reader, make_script

from _loopback_openai import LoopbackOpenAI, Reply
from pytest_typedmemeval import cli
from pytest_typedmemeval.corpus.loading import load_corpus, sidecar_path_for

ARMS = ("--limit", "1", "--arms", "V1,V8")


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback-test")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return copy_corpus(FORGETTING, tmp_path / "corpus")


def _serial(seconds: float, script: Any = None) -> Iterator[LoopbackOpenAI]:
    with LoopbackOpenAI(script, serial_seconds=seconds) as server:
        yield server


def probe(server: LoopbackOpenAI, corpus: Path, cache: Path, *extra: str) -> int:
    return cli.main(["probe", "--corpus", str(corpus), "--model", "scripted-reader",
                     "--base-url", server.base_url, "--allow-unpriced", "--cache-dir", str(cache),
                     "--date", DATE, *ARMS, *extra])


def verdicts_of(path: Path) -> list[dict[str, Any]]:
    sidecar = json.loads(sidecar_path_for(path).read_text(encoding="utf-8"))
    return [v for row in sidecar["probe_records"] if row["status"] == "measured" for v in row["verdicts"]]


def test_by_default_a_local_server_gets_one_request_at_a_time_and_one_call_per_request(
        corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for server in _serial(0.05, make_script(load_corpus(corpus), honest_reader)):
        assert probe(server, corpus, tmp_path / "cache", "--request-timeout", "30") == 0
        computations = sorted(server.computations, key=lambda c: c[2])
        keys = [LoopbackOpenAI.request_key(body) for body in server.requests]
    assert computations and len(keys) == len(set(keys))  # no request sent twice
    for previous, current in zip(computations, computations[1:]):
        assert current[1] >= previous[3], "a request arrived while the server computed another"
    assert "in flight: at most 1 (local endpoint), request timeout 30s" in capsys.readouterr().out


def test_records_keep_the_answer_and_the_reason_of_every_verdict(
        corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    reader = make_script(load_corpus(corpus), honest_reader)

    def script(body: dict[str, Any]) -> Reply | str:
        if "Session" not in body["messages"][-1]["content"]:
            return Reply.status_error(404, "The model 'scripted-reader' does not exist")
        return reader(body)

    with LoopbackOpenAI(script) as server:
        status = probe(server, corpus, tmp_path / "cache", "--arms", "V1,V2")
    verdicts = verdicts_of(corpus)
    errors = [v for v in verdicts if v["outcome"] == "error"]
    graded = [v for v in verdicts if v["outcome"] != "error"]
    assert status == 1 and errors and graded
    assert all("answer" not in v and v["reason"].startswith("http_status: HTTP 404") for v in errors)
    assert all(v["answer"] and v["reason"] for v in graded)


def test_the_request_timeout_option_reaches_every_request_and_a_timeout_is_never_re_sent_blindly(
        corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for server in _serial(0.6, lambda body: "I don't know."):
        assert probe(server, corpus, tmp_path / "cache", "--request-timeout", "0.2", "--arms", "V1") == 1
        keys = [LoopbackOpenAI.request_key(body) for body in server.requests]
    assert len(keys) == len(set(keys))  # every computation outlasted the timeout: nothing re-sent
    errors = [v for v in verdicts_of(corpus) if v["outcome"] == "error"]
    assert errors and all("within 0.2s (not re-sent: the server may still be computing it" in v["reason"]
                          for v in errors)
    out = capsys.readouterr().out
    assert "timeout(s) lowered the bound to 1" not in out  # it was 1 already


@pytest.mark.parametrize("value", ["0", "-3"])
def test_a_request_timeout_that_is_not_positive_is_one_usage_error(
        corpus: Path, tmp_path: Path, value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with LoopbackOpenAI() as server:
        assert probe(server, corpus, tmp_path / "cache", "--request-timeout", value) == 2
        assert server.count == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--request-timeout" in err
