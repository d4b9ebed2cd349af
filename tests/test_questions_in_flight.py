"""``--tme-parallel N``: questions in flight in one process (issue 24, item 1).

On the 12 fixture questions, with adapters that sleep a few tens of milliseconds per answer: N = 4
gives the report N = 1 gives (``timing`` aside) for a sync and an async adapter, calls the factory
once per slot and really overlaps answers; a fixture adapter that gives one instance is refused in
one line, and one that returns an ``AdapterFactory`` runs; ``-x`` stops after the first failure
(answers returned ahead are kept, the rest named in ``not_run``); a timeout (a hung sync call, an
async call that awaits too long, one that blocks the shared loop) is that question's ``error`` and
only its own; the reference LLM agents
run N at a time on one model caller. The cost ledger's waiting admission is tested in
``test_model_calls.py``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from _support import fixture_corpus_files

AGENTS = '''
import asyncio, json, os, threading, time
from pathlib import Path
from pytest_typedmemeval import AdapterFactory, Answer, Evidence
from pytest_typedmemeval.corpus import format_corpus_date

HERE = Path(__file__).parent
GOLD = {}
for path in HERE.glob("corpus_*.json"):
    for record in json.loads(path.read_text()):
        GOLD[record["question"], record["question_date"]] = record["answer"]
LOCK = threading.Lock()
ACTIVE = [0]


def log(name, text):
    with LOCK, open(HERE / name, "a") as stream:
        stream.write(text + "\\n")


def reply(question, query_time, sessions):
    if "canoe" in question:  # one question answered wrong, so the run has a failure to report
        return "I do not have that information."
    ids = tuple(s.session_id for s in sessions)
    return Answer(GOLD[question, format_corpus_date(query_time)], Evidence(retrieved=ids, context=ids))


def enter():
    with LOCK:
        ACTIVE[0] += 1
        active = ACTIVE[0]
    log("active.txt", str(active))


def leave():
    with LOCK:
        ACTIVE[0] -= 1


class SyncAgent:
    def __init__(self):
        log("factory_calls.txt", "sync")
        self.sessions = []

    def reset(self):
        self.sessions = []

    def ingest(self, session):
        self.sessions.append(session)

    def answer(self, question, *, query_time, instruction):
        enter()
        try:
            if os.environ.get("TME_SLOT_MODE") == "hang" and "physio" in question:
                threading.Event().wait(3)  # hung: abandoned at the timeout
            time.sleep(0.02)
            return reply(question, query_time, self.sessions)
        finally:
            leave()


class AsyncAgent:
    def __init__(self):
        log("factory_calls.txt", "async")
        self.sessions = []

    async def reset(self):
        self.sessions = []

    async def ingest(self, session):
        self.sessions.append(session)

    async def answer(self, question, *, query_time, instruction):
        enter()
        try:
            mode = os.environ.get("TME_SLOT_MODE")
            if mode == "await" and "physio" in question:
                await asyncio.sleep(3)  # cancelled at the timeout
            if mode == "block" and "physio" in question:
                time.sleep(1.0)  # blocks the shared loop: the watchdog abandons it
            await asyncio.sleep(0.02)
            return reply(question, query_time, self.sessions)
        finally:
            leave()
'''

FIXTURE_ONE_INSTANCE = '''
import pytest
from slotagents import SyncAgent

@pytest.fixture(scope="session")
def typedmemeval_agent():
    return SyncAgent()
'''

FIXTURE_FACTORY = '''
import pytest
from pytest_typedmemeval import AdapterFactory
from slotagents import SyncAgent

@pytest.fixture(scope="session")
def typedmemeval_agent():
    return AdapterFactory(SyncAgent)
'''


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    for path in fixture_corpus_files():
        shutil.copy(path, pytester.path / f"corpus_{path.name}")
    (pytester.path / "slotagents.py").write_text(AGENTS, encoding="utf-8")
    pytester.syspathinsert()
    return pytester


def _corpora(pytester: pytest.Pytester) -> list[str]:
    return [f"--tme-corpus={p.name}" for p in sorted(pytester.path.glob("corpus_*.json"))]


def _run(pytester: pytest.Pytester, *args: str, report: str = "r.json") -> pytest.RunResult:
    for name in ("factory_calls.txt", "active.txt"):
        (pytester.path / name).unlink(missing_ok=True)
    return pytester.runpytest(*_corpora(pytester), "-p", "no:cacheprovider", f"--tme-report={report}", *args)


def _report(pytester: pytest.Pytester, name: str = "r.json") -> dict[str, Any]:
    report = json.loads((pytester.path / name).read_text(encoding="utf-8"))
    report.pop("timing")
    return report


def _lines(pytester: pytest.Pytester, name: str) -> list[str]:
    path = pytester.path / name
    return path.read_text(encoding="utf-8").split() if path.exists() else []


@pytest.mark.parametrize("agent", ["SyncAgent", "AsyncAgent"])
def test_four_in_flight_give_the_report_of_one_at_a_time(project: pytest.Pytester, agent: str) -> None:
    one = _run(project, "--tme-agent", f"slotagents:{agent}", report="one.json")
    assert _lines(project, "factory_calls.txt") == [agent[:-5].lower()]
    four = _run(project, "--tme-agent", f"slotagents:{agent}", "--tme-parallel", "4", report="four.json")
    assert len(_lines(project, "factory_calls.txt")) == 4  # once per slot
    assert max(int(n) for n in _lines(project, "active.txt")) > 1  # answers really overlapped
    assert one.ret == four.ret == 1
    one.assert_outcomes(passed=11, failed=1)
    four.assert_outcomes(passed=11, failed=1)
    assert _report(project, "one.json") == _report(project, "four.json")
    # Items report in collection order, as with N = 1.
    order = [line for line in one.outlines if line.startswith("FAILED")]
    assert order == [line for line in four.outlines if line.startswith("FAILED")]


def test_the_ini_key_sets_it_and_a_bad_value_is_one_line(project: pytest.Pytester) -> None:
    project.makeini("[pytest]\ntypedmemeval_parallel = 3\n")
    _run(project, "--tme-agent", "slotagents:SyncAgent", "--tme-fail-under", "0")
    assert len(_lines(project, "factory_calls.txt")) == 3
    project.makeini("[pytest]\ntypedmemeval_parallel = many\n")
    result = _run(project, "--tme-agent", "slotagents:SyncAgent")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["ERROR: TypedMemEval: ini typedmemeval_parallel 'many': expected a whole number"])


def test_a_fixture_adapter_must_say_how_it_gives_instances(project: pytest.Pytester) -> None:
    project.makeconftest(FIXTURE_ONE_INSTANCE)
    refused = _run(project, "--tme-parallel", "2")
    assert refused.ret == 4
    text = refused.stdout.str()
    line = "TypedMemEval: --tme-parallel 2 answers 2 questions at once, each on its own adapter instance, " \
           "but the typedmemeval_agent fixture returned one SyncAgent"
    assert text.count(line) == 1 and "Traceback" not in text
    assert "pytest_typedmemeval.AdapterFactory(make)" in text
    assert _report(project)["adapter_failure"].startswith(line)

    project.makeconftest(FIXTURE_FACTORY)
    runs = _run(project, "--tme-parallel", "2", report="factory.json")
    runs.assert_outcomes(passed=11, failed=1)
    assert len(_lines(project, "factory_calls.txt")) == 2
    one = _run(project, report="factory-one.json")  # N = 1 takes the factory's one instance
    assert len(_lines(project, "factory_calls.txt")) == 1
    assert _report(project, "factory.json") == _report(project, "factory-one.json")
    one.assert_outcomes(passed=11, failed=1)


def test_x_stops_after_the_first_failure(project: pytest.Pytester) -> None:
    result = _run(project, "--tme-agent", "slotagents:SyncAgent", "--tme-parallel", "4", "-x")
    result.assert_outcomes(failed=1)
    assert result.ret == 1
    report = _report(project)
    # The failing question, and whatever had been answered ahead when the run stopped (judged and
    # kept: an answer the adapter returned is never dropped); the rest named in not_run.
    assert report["complete"] is False and 1 <= len(report["questions"]) <= 8
    assert len(report["questions"]) + len(report["not_run"]) == 12
    assert any("canoe" in q["question"] and q["outcome"] != "correct" for q in report["questions"])
    assert all("stopped first" in row["cause"] for row in report["not_run"])


@pytest.mark.parametrize(("agent", "mode", "reason"), [
    ("SyncAgent", "hang", "answer() exceeded --tme-timeout 0.2s; the call was abandoned on a daemon thread"),
    ("AsyncAgent", "await", "answer() exceeded --tme-timeout 0.2s"),
    ("AsyncAgent", "block", "answer() blocked the event loop for more than --tme-timeout 0.2s"),
])
def test_a_timeout_is_one_question_s_error(project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                           agent: str, mode: str, reason: str) -> None:
    monkeypatch.setenv("TME_SLOT_MODE", mode)
    _run(project, "--tme-agent", f"slotagents:{agent}", "--tme-parallel", "4", "--tme-timeout", "0.2",
         "--tme-fail-under", "0")
    report = _report(project)
    errors = [q for q in report["questions"] if q["outcome"] == "error"]
    assert len(errors) == 1 and "physio" in errors[0]["question"]
    assert errors[0]["reason"].startswith(reason)
    assert report["complete"] and len(report["questions"]) == 12
    # Every other question was answered as without the fault (one wrong by design).
    assert sum(q["outcome"] == "correct" for q in report["questions"]) == 10


def test_the_reference_llm_agents_run_in_flight(project: pytest.Pytester, loopback_openai: Any) -> None:
    loopback_openai.script = lambda body: "I do not have that information."
    args = ["--tme-agent", "llm-no-memory", "--tme-model", "m", "--tme-base-url", loopback_openai.base_url,
            "--tme-allow-unpriced", "--tme-no-cache", "--tme-fail-under", "0"]
    # In a subprocess: an in-process run would import parts of the HTTP client that pytester then
    # drops from sys.modules, which breaks later in-process clients of the test session.
    for extra, report in (((), "one.json"), (("--tme-parallel", "4"), "four.json")):
        project.runpytest_subprocess(*_corpora(project), "-p", "no:cacheprovider", f"--tme-report={report}",
                                     *args, *extra)
    one, four = _report(project, "one.json"), _report(project, "four.json")
    assert four["model"]["ledger"]["calls"] == one["model"]["ledger"]["calls"] == 12
    assert {k: v for k, v in one.items() if k != "model"} == {k: v for k, v in four.items() if k != "model"}
    assert loopback_openai.count == 24


def test_under_xdist_n_is_per_worker_and_the_report_is_unchanged(project: pytest.Pytester) -> None:
    _run(project, "--tme-agent", "slotagents:SyncAgent", "--tme-fail-under", "0", report="one.json")
    for name in ("factory_calls.txt", "active.txt"):
        (project.path / name).unlink(missing_ok=True)
    result = project.runpytest_subprocess(*_corpora(project), "-p", "no:cacheprovider", "--tme-report=xd.json",
                                          "--tme-agent", "slotagents:SyncAgent", "--tme-fail-under", "0",
                                          "-n", "2", "--tme-parallel", "3")
    assert result.ret == 0
    assert len(_lines(project, "factory_calls.txt")) == 6  # three slots in each of two workers
    assert _report(project, "one.json") == _report(project, "xd.json")


MIDDLE_TEST = '''
import slotagents

def test_in_the_middle():
    assert slotagents.ACTIVE[0] == 0, "an adapter call was in flight during another item"
'''
MOVE_TO_THE_MIDDLE = '''
import pytest

@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    mine = [item for item in items if item.name == "test_in_the_middle"]
    rest = [item for item in items if item.name != "test_in_the_middle"]
    items[:] = rest[:5] + mine + rest[5:]
'''


def test_another_item_runs_with_no_question_in_flight(project: pytest.Pytester) -> None:
    """A gate, dataset or user item between questions may use the first instance: the questions
    handed over settle first, and those not started are handed over again on their turn."""
    project.makepyfile(test_middle=MIDDLE_TEST)
    project.makeconftest(MOVE_TO_THE_MIDDLE)
    one = _run(project, "--tme-agent", "slotagents:SyncAgent", "test_middle.py", report="one.json")
    result = _run(project, "--tme-agent", "slotagents:SyncAgent", "--tme-parallel", "4", "test_middle.py",
                  report="four.json")
    result.assert_outcomes(passed=12, failed=1)
    assert _report(project, "one.json") == _report(project, "four.json")
    one.assert_outcomes(passed=12, failed=1)
