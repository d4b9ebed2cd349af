"""The pure pieces behind the fault matrix: label-free item ids, the strict snapshot reader, bounded
adapter calls, the run of one question under faults, and the always-encodable, atomic report."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from pytest_typedmemeval import load_corpus, shipped_corpora
from pytest_typedmemeval.adapter.bounded_calls import AdapterCalls, AdapterTimeout, LoopBlocked
from pytest_typedmemeval.item_ids import _TOKEN, item_ids, label_tokens
from pytest_typedmemeval.judge.mechanical import MechanicalJudge
from pytest_typedmemeval.report.document import dumps_report, write_report
from pytest_typedmemeval.adapter.run import STORED_ANSWER_CHARS, run_question
from pytest_typedmemeval.plugin.snapshot_file import SnapshotFileError, read_snapshot_file, recorded_outcomes

from _support import fixture_corpus_files

# --- item ids -------------------------------------------------------------------------------------


def _all_corpora():
    return list(shipped_corpora()) + [load_corpus(path) for path in fixture_corpus_files()]


def test_item_ids_are_unique_stable_and_carry_no_label_token() -> None:
    for corpus in _all_corpora():
        ids = item_ids(corpus.records, corpus.sha256)
        assert ids == item_ids(corpus.records, corpus.sha256)
        assert len(set(ids.values())) == len(corpus.records)
        labels = label_tokens(corpus.records)
        for item_id in ids.values():
            assert not {token.casefold() for token in _TOKEN.findall(item_id)} & labels, item_id
            assert "_abs" not in item_id


def test_shipped_ids_keep_their_readable_form() -> None:
    """Revision-2 ids encode nothing, so the item id is the question id itself."""
    for corpus in shipped_corpora():
        ids = item_ids(corpus.records, corpus.sha256)
        assert all(ids[r.question_id] == r.question_id for r in corpus.records)


def _fixture_records(*question_ids: str):
    corpus = load_corpus(next(p for p in fixture_corpus_files() if "forgetting" in p.name))
    base = corpus.records
    return [base[i % len(base)].model_copy(update={"question_id": qid}) for i, qid in enumerate(question_ids)]


def test_ids_that_collide_once_cleaned_all_get_an_uninformative_suffix() -> None:
    records = _fixture_records("tme-for-001", "tme-for-002", "tme-for-001_abs")
    ids = item_ids(records, "salt")
    assert ids["tme-for-002"] == "tme-for-002"
    assert ids["tme-for-001"].startswith("tme-for-001-") and ids["tme-for-001_abs"].startswith("tme-for-001-")
    assert ids["tme-for-001"] != ids["tme-for-001_abs"]
    assert item_ids(records, "other salt")["tme-for-001"] != ids["tme-for-001"]


def test_a_word_only_some_questions_carry_is_dropped_whatever_its_spelling() -> None:
    records = _fixture_records("tme-for-001", "tme-for-002", "tme-nk-003")
    ids = item_ids(records, "salt")
    assert not any("nk" in item_id or "for" in item_id for item_id in ids.values())
    assert set(ids.values()) == {"tme-001", "tme-002", "tme-003"}


# --- snapshot files -------------------------------------------------------------------------------

GOOD = "# serializer version: 1\n# name: question[tme-ari-001]\n  'correct'\n# ---\n# name: question[tme-ari-002]\n  'wrong'\n# ---\n"


def test_a_complete_snapshot_file_reads_back_by_question_id(tmp_path: Path) -> None:
    path = tmp_path / "c.ambr"
    path.write_text(GOOD, encoding="utf-8")
    assert read_snapshot_file(path) == {"question[tme-ari-001]": "correct", "question[tme-ari-002]": "wrong"}
    assert recorded_outcomes(path, {"tme-ari-001": "tme-ari-001_abs"}) == {"tme-ari-001_abs": "correct",
                                                                        "tme-ari-002": "wrong"}


@pytest.mark.parametrize(("text", "fragment"), [
    (GOOD[:90], "(truncated)"),
    ("", "is empty (truncated)"),
    (GOOD.replace("'wrong'", "'banana'"), "records 'banana', which is not an outcome"),
    (GOOD.replace("# serializer version: 1\n", ""), "line 1 is not"),
    (GOOD + GOOD[24:72], "appears twice"),
    (GOOD.replace("# ---\n# name: question[tme-ari-002]", "# name: question[tme-ari-002]", 1), "no closing"),
    (GOOD + "garbage\n", "neither an entry nor its data"),
])
def test_a_cut_or_damaged_snapshot_file_is_refused_in_one_line_with_the_fix(
        tmp_path: Path, text: str, fragment: str) -> None:
    path = tmp_path / "c.ambr"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SnapshotFileError) as error:
        read_snapshot_file(path)
    message = str(error.value)
    assert fragment in message and "\n" not in message
    assert str(path) in message and "restore c.ambr from version control" in message


def test_a_snapshot_file_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "c.ambr"
    path.write_bytes(GOOD.encode() + b"\xff\xfe")
    with pytest.raises(SnapshotFileError, match="not UTF-8"):
        read_snapshot_file(path)


# --- bounded adapter calls ------------------------------------------------------------------------


def test_a_hung_sync_call_times_out_on_a_daemon_thread_and_the_next_call_runs() -> None:
    release = threading.Event()
    calls = AdapterCalls(timeout=0.2)
    started = time.monotonic()
    with pytest.raises(AdapterTimeout, match="exceeded --tme-timeout 0.2s"):
        calls.call_sync(release.wait)
    assert time.monotonic() - started < 2
    assert all(t.daemon for t in threading.enumerate() if t.name.startswith("tme-adapter"))
    assert calls.call_sync(lambda: 42) == 42
    release.set()
    calls.close()


def test_exceptions_cross_the_helper_thread_unchanged() -> None:
    calls = AdapterCalls(timeout=5)

    def exit_now() -> None:
        raise SystemExit(7)

    with pytest.raises(SystemExit):
        calls.call_sync(exit_now)
    calls.close()


def test_a_process_with_a_hung_adapter_call_still_exits() -> None:
    script = ("import threading, time\n"
              "from pytest_typedmemeval.adapter.bounded_calls import AdapterCalls, AdapterTimeout\n"
              "calls = AdapterCalls(timeout=0.2)\n"
              "try:\n    calls.call_sync(threading.Event().wait)\n"
              "except AdapterTimeout:\n    print('timed out')\n")
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30)
    assert done.stdout.strip() == "timed out" and time.monotonic() - started < 15


class _AsyncAgent:
    def __init__(self, block: bool) -> None:
        self.block = block

    async def reset(self) -> None:
        pass

    async def ingest(self, session: object) -> None:
        pass

    async def answer(self, question: str, *, query_time: object, instruction: str) -> str:
        if self.block:
            time.sleep(3)  # blocks the loop: no timer can fire
        await asyncio.sleep(0)
        return "I do not have that information."


def test_an_async_call_that_blocks_its_loop_is_detected_and_the_next_question_gets_a_new_loop() -> None:
    calls = AdapterCalls(timeout=0.2)
    ask = {"question": "q", "query_time": None, "instruction": "i"}
    started = time.monotonic()
    with pytest.raises(LoopBlocked, match=r"answer\(\) blocked the event loop"):
        calls.drive(_AsyncAgent(block=True), (), ask)
    assert time.monotonic() - started < 2.5
    assert calls.drive(_AsyncAgent(block=False), (), ask) == "I do not have that information."
    calls.close()


# --- one question under faults --------------------------------------------------------------------


def _question():
    corpus = load_corpus(next(p for p in fixture_corpus_files() if "arithmetic" in p.name))
    return corpus, corpus.records[0]


class _Agent:
    def __init__(self, answer: object = "I do not have that information.", error: BaseException | None = None):
        self._answer, self._error = answer, error

    def reset(self) -> None:
        pass

    def ingest(self, session: object) -> None:
        pass

    def answer(self, question: str, *, query_time: object, instruction: str) -> object:
        if self._error is not None:
            raise self._error
        return self._answer


@pytest.mark.parametrize("error", [SystemExit(2), asyncio.CancelledError(), GeneratorExit(), RuntimeError("x")])
def test_every_adapter_exception_but_keyboard_interrupt_is_this_questions_error(error: BaseException) -> None:
    corpus, record = _question()
    result = run_question(_Agent(error=error), corpus, record, MechanicalJudge())
    assert result.outcome == "error" and type(error).__name__ in result.reason


def test_keyboard_interrupt_stops_the_run() -> None:
    corpus, record = _question()
    with pytest.raises(KeyboardInterrupt):
        run_question(_Agent(error=KeyboardInterrupt()), corpus, record, MechanicalJudge())


def test_a_judge_that_raises_gives_error_not_a_crash() -> None:
    class Broken:
        name, fingerprint = "broken", "0" * 64

        def judge(self, *args: object, **kwargs: object) -> object:
            raise ValueError("bug")

    corpus, record = _question()
    result = run_question(_Agent(), corpus, record, Broken())  # type: ignore[arg-type]
    assert result.outcome == "error" and result.reason == "the judge raised ValueError: bug"


def test_answers_are_stored_encodable_and_cut_to_the_judged_length() -> None:
    corpus, record = _question()
    lone = run_question(_Agent("about \ud800 dollars"), corpus, record, MechanicalJudge())
    assert lone.answer == "about \\ud800 dollars"
    lone.model_dump_json()
    big = run_question(_Agent("spent 12 " * 1_200_000), corpus, record, MechanicalJudge())
    assert big.answer is not None and len(big.answer) < STORED_ANSWER_CHARS + 100
    assert big.answer.endswith("more characters not stored]")


# --- the report -----------------------------------------------------------------------------------


def test_the_report_text_is_always_valid_utf8_json() -> None:
    text = dumps_report({"answer": "x\ud800y", "hook": float("nan"), "object": object()})
    loaded = json.loads(text.encode("utf-8"))
    assert loaded["answer"] == "x\ud800y" and loaded["hook"] is None and loaded["object"].startswith("<object")


def test_the_report_is_replaced_atomically(tmp_path: Path) -> None:
    path = tmp_path / "out" / "report.json"
    write_report(path, '{"a": 1}\n')
    write_report(path, '{"a": 2}\n')
    assert json.loads(path.read_text()) == {"a": 2}
    assert [p.name for p in path.parent.iterdir()] == ["report.json"]
    (tmp_path / "file").write_text("x")
    with pytest.raises(OSError):
        write_report(tmp_path / "file" / "report.json", "{}")


# --- systematic faults (issue 22, item 4) ------------------------------------------------------------


def test_fault_watch_calls_only_an_identical_first_streak_systematic() -> None:
    from pytest_typedmemeval.adapter.fault_watch import FaultWatch

    same = FaultWatch()
    assert [same.observe("error", "adapter raised OSError: down") for _ in range(4)] == [
        None, None, "adapter raised OSError: down", None]
    after_a_success = FaultWatch()
    after_a_success.observe("correct", "")
    assert all(after_a_success.observe("error", "x") is None for _ in range(5))
    different = FaultWatch()
    assert [different.observe("error", reason) for reason in ("a", "b", "a", "a", "a")] == [None] * 5


def test_check_agent_refuses_a_class_and_a_signature_the_runner_cannot_call() -> None:
    from pytest_typedmemeval.adapter.factories import check_agent

    class Good:
        def reset(self) -> None: ...
        def ingest(self, session: object) -> None: ...
        def answer(self, question: str, *, query_time: object, instruction: str) -> str:
            return ""

    class NoKeywords(Good):
        def answer(self, question: str) -> str:  # type: ignore[override]
            return ""

    check_agent(Good(), "the fixture")
    with pytest.raises(TypeError, match=r"returned the class Good, not an instance; return Good\(\)"):
        check_agent(Good, "the fixture")
    with pytest.raises(TypeError, match=r"cannot be called as answer\(question, \*, query_time, instruction\)"):
        check_agent(NoKeywords(), "the fixture")
