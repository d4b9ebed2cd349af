"""The fault matrix: misbehaving adapters, dying workers, interruptions and user mistakes, each run
as a user would run it (a fresh ``python -m pytest`` in a scratch project) and judged on four
questions:

- **hung**: did the run end within its time limit?
- **crash**: did it print a traceback or an INTERNALERROR, or end with an exit code pytest does
  not define?
- **unclear**: did it end with the expected exit code and say what happened in the expected one
  line (and does the report, where there is one, say what the case requires)?
- **lost**: is every selected question either in the report's ``questions`` or named in its
  ``not_run``, and does every answer the adapter returned have its result in the report?

``tests/faults/test_fault_matrix.py`` asserts every case; ``scripts/fault_matrix.py`` runs them
all and prints ``cases, ok, lost, unclear, crash, hung``. Both use :func:`run_case`. The scratch
projects use the small fixture corpora (3 questions each), so the whole matrix stays cheap.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
FIXTURE_CORPORA = REPO / "fixtures" / "corpus"
MALFORMED = REPO / "fixtures" / "malformed"
USAGE_ERROR, TESTS_FAILED, INTERRUPTED, OK = 4, 1, 2, 0
PYTEST_EXIT_CODES = frozenset({0, 1, 2, 3, 4, 5})
"""Exit codes pytest defines; 3 (internal error) is caught as a crash by the traceback check."""

CANOE = "canoe"
"""A word only the first arithmetic fixture question (tme-ari-001) contains: faults aim at it."""
KITE = "kiteboard"
"""Only the never-known forgetting fixture question (tme-for-003_abs) contains it."""

ADAPTER_TEMPLATE = '''
import asyncio, json, os, signal, sys, threading, time
import pytest
from pytest_typedmemeval import Answer, Evidence

HERE = os.path.dirname(os.path.abspath(__file__))


def log(name, text):
    with open(os.path.join(HERE, name), "a", encoding="utf-8") as handle:
        handle.write(text.replace("\\n", " ") + "\\n")
        handle.flush()


RETURN_NONE = object()
"""A fault returns this to make answer() return None (None itself means: no fault here)."""


def answered():
    path = os.path.join(HERE, "answers.log")
    return len(open(path, encoding="utf-8").read().splitlines()) if os.path.exists(path) else 0


def block_after(count):
    """Once ``count`` answers are logged, every further question blocks (an interruption case
    waits for every process to block, so no answer is in flight when the signal arrives)."""
    if answered() >= count:
        log("blocked.log", "blocked")
        time.sleep(30)


def misbehave(question):
    """The case's fault: return a reply to use, or None for the default decline."""
{fault}


class Adapter:
    def reset(self):
{reset}
    def ingest(self, session):
{ingest}
    def answer(self, question, *, query_time, instruction):
        reply = misbehave(question)
        log("answers.log", f"{{time.time():.6f}} {{question}}")
        if reply is RETURN_NONE:
            return None
        return "I do not have that information." if reply is None else reply


class AsyncAdapter:
    async def reset(self):
        pass

    async def ingest(self, session):
        await asyncio.sleep(0)

    async def answer(self, question, *, query_time, instruction):
{async_answer}
        log("answers.log", f"{{time.time():.6f}} {{question}}")
        return "I do not have that information."


def make_agent():
{factory}


@pytest.fixture(scope="session")
def typedmemeval_agent():
    return make_agent()
{extra}
'''


def _block(code: str, indent: int = 4) -> str:
    return textwrap.indent(textwrap.dedent(code).strip("\n"), " " * indent) + "\n"


IN_FLIGHT_FIXTURE = '''
from pytest_typedmemeval import AdapterFactory


@pytest.fixture(scope="session")
def typedmemeval_agent():  # overrides the one above: one instance per question in flight
    return AdapterFactory(make_agent)
'''
"""``--tme-parallel`` cases: the conftest's fixture gives instances (issue 24, item 1)."""


@dataclass(frozen=True)
class FaultCase:
    """One row of the matrix. ``fault`` is the body of ``misbehave(question)`` in the adapter."""

    name: str
    group: str
    """adapter | worker | interrupt | input | labels"""
    expect_exit: int
    expect_line: str
    """A fragment the output must contain, within one line."""
    args: tuple[str, ...] = ()
    corpora: tuple[str, ...] = ("arithmetic", "forgetting")
    fault: str = "return None"
    reset: str = "pass"
    ingest: str = "pass"
    async_answer: str = "pass"
    factory: str = "return Adapter()"
    extra_conftest: str = ""
    conftest: bool = True
    files: tuple[tuple[str, str], ...] = ()
    """(relative path, text) written into the project before the run."""
    copies: tuple[tuple[str, str], ...] = ()
    """(source path, relative destination) copied into the project (malformed corpora...)."""
    report: bool = True
    """The run writes a report (False: refused before any question, so nothing was computed)."""
    selected: int | None = None
    """Questions the run selects (default: every question of ``corpora``)."""
    interrupt: str | None = None
    """``process`` (SIGINT to pytest) or ``group`` (SIGINT to pytest and its workers: Ctrl-C)."""
    interrupt_when_blocked: int = 1
    """The interrupt is sent once this many processes block (``block_after`` in the adapter)."""
    time_limit: float = 90.0
    check: Callable[[dict[str, Any] | None, str, Path], str | None] | None = None
    """Extra requirement on (report, output, project): a problem sentence, or None."""
    setup: Callable[[Path], None] | None = None
    """Prepares the project beyond files (e.g. records a baseline, then damages it)."""
    run_from: str = "."
    """Where pytest is started, relative to the project (a case may run from a sub-directory)."""


@dataclass
class CaseOutcome:
    case: FaultCase
    exit_code: int | None
    seconds: float
    output: str
    report: dict[str, Any] | None
    problems: list[str] = field(default_factory=list)
    lost: int = 0
    unclear: bool = False
    crash: bool = False
    hung: bool = False

    @property
    def ok(self) -> bool:
        return not (self.lost or self.unclear or self.crash or self.hung)

    def tally(self) -> dict[str, bool]:
        return {"ok": self.ok, "lost": self.lost > 0, "unclear": self.unclear, "crash": self.crash,
                "hung": self.hung}

    def line(self) -> str:
        verdict = "ok" if self.ok else "FAIL " + "; ".join(self.problems)
        return f"{self.case.group:<9} {self.case.name:<42} exit {self.exit_code!s:<4} {self.seconds:5.1f}s  {verdict}"


def summary_line(tallies: list[dict[str, bool]]) -> str:
    """``cases N, ok N, lost N, unclear N, crash N, hung N`` (cases counted once per bucket)."""
    counts = {key: sum(tally[key] for tally in tallies) for key in ("ok", "lost", "unclear", "crash", "hung")}
    return f"cases {len(tallies)}, " + ", ".join(f"{key} {value}" for key, value in counts.items())


def corpus_path(vertical: str) -> Path:
    return FIXTURE_CORPORA / f"typedmemeval-fixture-{vertical}-v0.json"


def _question_count(path: Path) -> int:
    return len(json.loads(path.read_text(encoding="utf-8")))


def prepare(case: FaultCase, project: Path) -> list[str]:
    """Write the scratch project; return the corpus arguments."""
    project.mkdir(parents=True, exist_ok=True)
    args: list[str] = []
    for vertical in case.corpora:
        name = f"c_{vertical}.json"
        shutil.copy(corpus_path(vertical), project / name)
        args.append(f"--tme-corpus={name}")
    if case.conftest:
        (project / "conftest.py").write_text(ADAPTER_TEMPLATE.format(
            fault=_block(case.fault), reset=_block(case.reset, 8), ingest=_block(case.ingest, 8),
            async_answer=_block(case.async_answer, 8), factory=_block(case.factory),
            extra=textwrap.dedent(case.extra_conftest)), encoding="utf-8")
    for relative, text in case.files:
        target = project / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    for source, relative in case.copies:
        target = project / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / source, target)
    if case.setup is not None:
        case.setup(project)
    return args


def clean_environment() -> dict[str, str]:
    """The environment of a user's shell: nothing the outer pytest or xdist set."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST_", "COV_CORE")) and k not in ("PYTHONBREAKPOINT",)}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTHONUNBUFFERED"] = "1"
    env["TME_FAULT_MATRIX"] = "1"
    return env


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def _wait_until_blocked(where: Path, process: subprocess.Popen[bytes], count: int, limit: float) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline and process.poll() is None:
        if len(_lines(where / "blocked.log")) >= count:
            return
        time.sleep(0.05)


def run_pytest(case: FaultCase, project: Path, args: list[str]) -> tuple[int | None, str, float, bool]:
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly",
               "-o", "addopts=", *args, *case.args]
    if case.report:
        command.append("--tme-report=report.json")
    started = time.monotonic()
    process = subprocess.Popen(command, cwd=project / case.run_from, env=clean_environment(),
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    hung = False
    try:
        if case.interrupt is not None:
            _wait_until_blocked(project / case.run_from, process, case.interrupt_when_blocked, case.time_limit / 2)
            if process.poll() is None:
                if case.interrupt == "group":
                    os.killpg(process.pid, signal.SIGINT)
                else:
                    process.send_signal(signal.SIGINT)
        output, _ = process.communicate(timeout=case.time_limit)
    except subprocess.TimeoutExpired:
        hung = True
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
    finally:
        try:  # stray xdist workers of a killed or interrupted run
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    return (None if hung else process.returncode), output.decode("utf-8", "replace"), \
        time.monotonic() - started, hung


def run_case(case: FaultCase, project: Path) -> CaseOutcome:
    args = prepare(case, project)
    exit_code, output, seconds, hung = run_pytest(case, project, args)
    report: dict[str, Any] | None = None
    outcome = CaseOutcome(case, exit_code, seconds, output, None, hung=hung)
    if hung:
        outcome.problems.append(f"no exit within {case.time_limit:g}s")
    if "Traceback (most recent call last)" in output or "INTERNALERROR" in output:
        outcome.crash = True
        outcome.problems.append("a traceback or INTERNALERROR in the output")
    if exit_code is not None and exit_code not in PYTEST_EXIT_CODES:
        outcome.crash = True
        outcome.problems.append(f"exit code {exit_code} is not one pytest defines")
    report_path = project / case.run_from / "report.json"
    if case.report:
        if not report_path.exists():
            outcome.problems.append("no report was written")
        else:
            try:
                report = json.loads(report_path.read_bytes().decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError) as error:
                outcome.crash = True
                outcome.problems.append(f"the report is not valid UTF-8 JSON ({error})")
    outcome.report = report
    if exit_code != case.expect_exit and not hung:
        outcome.unclear = True
        outcome.problems.append(f"exit {exit_code}, expected {case.expect_exit}")
    if not any(case.expect_line in line for line in output.splitlines()):
        outcome.unclear = True
        outcome.problems.append(f"no output line says {case.expect_line!r}")
    outcome.lost = _lost(case, project, report, outcome.problems)
    if case.check is not None and not hung:
        problem = case.check(report, output, project)
        if problem:
            outcome.unclear = True
            outcome.problems.append(problem)
    return outcome


def _answered_before(where: Path, moment: float | None) -> list[str]:
    """Questions the adapter answered (before ``moment``, a wall-clock time, when given). After an
    interruption under xdist a worker still runs the one question it was holding while it shuts
    down, after the report is written: that answer was not computed when the run stopped."""
    answered = []
    for line in _lines(where / "answers.log"):
        stamp, _, question = line.partition(" ")
        if moment is None or float(stamp) <= moment:
            answered.append(question)
    return answered


def _lost(case: FaultCase, project: Path, report: dict[str, Any] | None, problems: list[str]) -> int:
    report_path = project / case.run_from / "report.json"
    interrupted = case.group == "interrupt" and report_path.exists()
    written = report_path.stat().st_mtime if interrupted else None
    answered = _answered_before(project / case.run_from, written)
    if not case.report:
        if answered:
            problems.append(f"{len(answered)} answer(s) computed, but the run was refused (nothing reported)")
        return len(answered)
    if report is None:
        selected = case.selected if case.selected is not None else sum(
            _question_count(corpus_path(v)) for v in case.corpora)
        return max(selected, len(answered), 1)
    measured = {q["question"] for q in report.get("questions", [])}
    named = {row["question"] for row in report.get("not_run", [])}
    keys = {f"{q['corpus_id']}/{q['question_id']}" for q in report.get("questions", [])}
    selected = case.selected if case.selected is not None else sum(
        _question_count(corpus_path(v)) for v in case.corpora)
    lost = 0
    accounted = len(keys | named)
    if accounted < selected:
        problems.append(f"{selected - accounted} selected question(s) neither measured nor named in not_run")
        lost += selected - accounted
    unrecorded = [text for text in answered if text not in measured]
    if unrecorded:
        problems.append(f"{len(unrecorded)} answer(s) the adapter returned have no result in the report")
        lost += len(unrecorded)
    if report.get("missing_results"):
        problems.append(f"missing_results: {report['missing_results']}")
        lost += len(report["missing_results"])
    return lost


# --- checks ---------------------------------------------------------------------------------------


def _error_reason(fragment: str, count: int = 1) -> Callable[[dict[str, Any] | None, str, Path], str | None]:
    def check(report: dict[str, Any] | None, output: str, project: Path) -> str | None:
        if report is None:
            return "no report"
        errors = [q for q in report["questions"] if q["outcome"] == "error" and fragment in q["reason"]]
        if len(errors) != count:
            return f"expected {count} error result(s) whose reason says {fragment!r}, found {len(errors)}"
        if not report["complete"]:
            return "the report says incomplete, but every question ran"
        return None
    return check


def _partial(*, threshold: bool = False, min_measured: int = 1) -> Callable[
        [dict[str, Any] | None, str, Path], str | None]:
    def check(report: dict[str, Any] | None, output: str, project: Path) -> str | None:
        if report is None:
            return "no report"
        if report["complete"] or not report["interrupted"] or not report["not_run"]:
            return (f"a partial run must say complete false, interrupted true and name not_run; got "
                    f"complete {report['complete']}, interrupted {report['interrupted']}, "
                    f"{len(report['not_run'])} not run")
        if len(report["questions"]) < min_measured:
            return f"only {len(report['questions'])} result(s) kept; the adapter had answered more"
        if threshold and (report["thresholds_evaluated"] is not False
                          or any(row["passed"] is not None for row in report["thresholds"])):
            return "thresholds were evaluated on a partial run"
        return None
    return check


SYSTEMATIC = "the first 3 questions all ended in the same error"


def _systematic(fragment: str, workers: int = 1) -> Callable[[dict[str, Any] | None, str, Path], str | None]:
    """A systematic fault stopped the run: each process kept its first 3 errors (the question in
    flight on another worker may add one), named the rest in not_run, claimed no threshold and
    cited nothing."""
    def check(report: dict[str, Any] | None, output: str, project: Path) -> str | None:
        if report is None:
            return "no report"
        errors = [q for q in report["questions"] if q["outcome"] == "error" and fragment in q["reason"]]
        if len(errors) != len(report["questions"]) or not 3 <= len(errors) <= 3 * workers + workers:
            return f"expected about {3 * workers} error result(s) saying {fragment!r}, found {len(errors)}"
        if len(report["not_run"]) + len(errors) != report["selected"] or not report["not_run"]:
            return "the questions after the stop must all be named in not_run"
        if not report["adapter_failure"] or fragment not in report["adapter_failure"]:
            return f"adapter_failure must name the fault: {report['adapter_failure']!r}"
        if "every vertical at or above its bound" in output or "Cite as:" in output:
            return "the summary claims thresholds or cites a run that measured nothing"
        if output.count("FAILED ") > 3 * workers + workers + 1:
            return f"{output.count('FAILED ')} failure lines for one systematic fault"
        return None
    return check


def _thresholds_withheld(report: dict[str, Any] | None, output: str, project: Path) -> str | None:
    if report is None:
        return "no report"
    if not report["complete"] or report["thresholds_evaluated"] is not False:
        return "a complete run with an errored question must not evaluate its thresholds"
    if any(row["passed"] is not None for row in report["thresholds"]):
        return f"threshold rows passed or failed despite the error: {report['thresholds']}"
    if "every vertical at or above its bound" in output:
        return "the summary claims the thresholds pass"
    return None


def _earlier_report(project: Path) -> None:
    (project / "report.json").write_text(json.dumps({"earlier_run": True, "complete": True}), encoding="utf-8")


def _not_the_earlier_report(report: dict[str, Any] | None, output: str, project: Path) -> str | None:
    if report is None:
        return "no report"
    if report.get("earlier_run"):
        return "the earlier run's report is still at the --tme-report path"
    if report["complete"] or not report["interrupted"] or report["questions"]:
        return "the interrupted run's report must say complete false, interrupted true, no questions"
    return None


def _adapter_unusable(report: dict[str, Any] | None, output: str, project: Path) -> str | None:
    if report is None:
        return "no report"
    if report["questions"] or len(report["not_run"]) != report["selected"] or not report["adapter_failure"]:
        return "an unusable adapter must leave every selected question in not_run, with the reason"
    if output.count(report["adapter_failure"]) != 1:
        return f"the reason is printed {output.count(report['adapter_failure'])} times, expected once"
    return None


def _worker_lost(report: dict[str, Any] | None, output: str, project: Path) -> str | None:
    if report is None:
        return "no report"
    lost = [row for row in report["workers_lost"] if row["question"]]
    if len(lost) != 1 or not lost[0]["question"].endswith("/tme-ari-001"):
        return f"workers_lost must name the question in flight (…/tme-ari-001): {report['workers_lost']}"
    errors = [q for q in report["questions"] if q["outcome"] == "error" and "worker" in q["reason"]]
    if [q["question_id"] for q in errors] != ["tme-ari-001"]:
        return "the question in flight must be an error result naming the worker"
    return None


def _encodable(report: dict[str, Any] | None, output: str, project: Path) -> str | None:
    if report is None:
        return "no report"
    answers = [q["answer"] or "" for q in report["questions"]]
    if not any("\\ud800" in answer for answer in answers):
        return "the lone surrogate should be kept as its escape \\ud800"
    return None


def _big_answer(report: dict[str, Any] | None, output: str, project: Path) -> str | None:
    if report is None:
        return "no report"
    big = [q for q in report["questions"] if q["question_id"] == "tme-ari-001"][0]
    if not (big["answer"] or "").endswith("more characters not stored]") or len(big["answer"]) > 21_000:
        return "a 10 MB answer must be stored cut to the judged length, saying so"
    if report["timing"]["per_question_seconds"][f"{big['corpus_id']}/tme-ari-001"] > 20:
        return "judging a 10 MB answer took more than 20 s"
    return None


def _env_learns_nothing(report: dict[str, Any] | None, output: str, project: Path) -> str | None:
    seen = "\n".join(_lines(project / "environment.log"))
    if not seen:
        return "the adapter recorded nothing it could see"
    labels = ("_abs", "abs]", "unanswerable", "never_known", "never-known", "-nk-")
    found = sorted({label for label in labels if label in seen})
    if found:
        return f"the adapter's environment encodes labels: {found}"
    if report is not None:
        declined = [q for q in report["questions"] if q["answer"] == "I do not have that information."]
        if declined:
            return f"an adapter reading only its environment declined {len(declined)} question(s)"
    return None


def _no_report_written(report: dict[str, Any] | None, output: str, project: Path) -> str | None:
    return None if not (project / "report.json").exists() else "a report was written although the run was refused"


def _bound_on_nothing(report: dict[str, Any] | None, output: str, project: Path) -> str | None:
    if report is None:
        return "no report"
    rows = [row for row in report["thresholds"] if row.get("vertical") == "arithmetic"]
    if not rows or rows[0]["passed"] is not False or rows[0]["n"] != 0:
        return f"a bound whose vertical ran nothing must fail: {report['thresholds']}"
    return None


def _rootdir_kept(report: dict[str, Any] | None, output: str, project: Path) -> str | None:
    if "rootdir: " not in output or f"rootdir: {project / 'app'}" not in output:
        return "the rootdir moved away from the project"
    return None


# --- setups ---------------------------------------------------------------------------------------

SNAPSHOT_HEADER = "# serializer version: 1\n"


def _snapshot(entries: list[tuple[str, str]], *, cut: int | None = None) -> str:
    text = SNAPSHOT_HEADER + "".join(f"# name: question[{name}]\n  '{outcome}'\n# ---\n" for name, outcome in entries)
    return text if cut is None else text[:cut]


def _write_snapshot(text: str) -> Callable[[Path], None]:
    def setup(project: Path) -> None:
        target = project / "typedmemeval" / "__baseline__" / "c_arithmetic.ambr"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return setup


def _outside_corpus(project: Path) -> None:
    """A project in ``app/`` (its pytest.ini and conftest adapter) and a corpus in ``data/``."""
    (project / "app").mkdir()
    (project / "data").mkdir()
    shutil.move(project / "conftest.py", project / "app" / "conftest.py")
    (project / "app" / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    shutil.copy(corpus_path("arithmetic"), project / "data" / "c_arithmetic.json")


def _outside_paths(project: Path) -> None:
    """:func:`_outside_corpus`, plus an ``out/`` directory beside ``app/`` holding earlier outputs."""
    _outside_corpus(project)
    (project / "out").mkdir()
    (project / "out" / "old.html").write_text("<html></html>", encoding="utf-8")
    (project / "out" / "old.json").write_text("{}", encoding="utf-8")


DEEP = "[" * 100_000 + "]" * 100_000

ENV_READER = '''
import logging
seen = [os.environ.get("PYTEST_CURRENT_TEST", ""), " ".join(sys.argv), threading.current_thread().name,
        " ".join(f"{k}={v}" for k, v in sorted(os.environ.items()) if k.startswith(("PYTEST", "TME")))]
record = logging.LogRecord("adapter", logging.INFO, __file__, 1, "seen", None, None)
seen.append(json.dumps({k: str(v) for k, v in vars(record).items()}))
log("environment.log", " | ".join(seen))
label = seen[0].lower()
if any(word in label for word in ("_abs", "unanswerable", "never", "-nk-", "abs]")):
    return "I do not have that information."
return "Paris"
'''

def _labelled_corpus(project: Path) -> None:
    """A user corpus whose ids carry labels: ``_abs`` (the public benchmark's abstention mark) and
    an abbreviation used only on never-known questions (``nk``)."""
    records = json.loads(corpus_path("forgetting").read_text(encoding="utf-8"))
    never = records[2]
    ids = ["tme-for-017", "tme-for-018", "tme-for-019_abs"]
    for record, question_id in zip(records, ids):
        record["question_id"] = question_id
    for question_id in ("tme-for-020_abs", "tme-nk-021"):
        copy = json.loads(json.dumps(never))
        copy["question_id"] = question_id
        records.append(copy)
    (project / "labelled.json").write_text(json.dumps(records, indent=1), encoding="utf-8")


# --- the cases ------------------------------------------------------------------------------------

CASES: tuple[FaultCase, ...] = (
    # misbehaving adapters: the question is `error` with a one-line reason; the run goes on
    FaultCase("raises RuntimeError", "adapter", TESTS_FAILED, "adapter raised RuntimeError: boom",
              fault=f"if {CANOE!r} in question: raise RuntimeError('boom')",
              check=_error_reason("adapter raised RuntimeError: boom")),
    FaultCase("raises SystemExit", "adapter", TESTS_FAILED, "adapter raised SystemExit: 3",
              fault=f"if {CANOE!r} in question: raise SystemExit(3)",
              check=_error_reason("adapter raised SystemExit: 3")),
    FaultCase("raises asyncio.CancelledError (sync)", "adapter", TESTS_FAILED, "adapter raised CancelledError",
              fault=f"if {CANOE!r} in question: raise asyncio.CancelledError()",
              check=_error_reason("adapter raised CancelledError")),
    FaultCase("async answer raises CancelledError", "adapter", TESTS_FAILED, "adapter raised CancelledError",
              async_answer=f"if {CANOE!r} in question: raise asyncio.CancelledError()",
              factory="return AsyncAdapter()", check=_error_reason("adapter raised CancelledError")),
    FaultCase("raises a BaseException subclass", "adapter", TESTS_FAILED, "adapter raised Weird: odd",
              fault=f"class Weird(BaseException): pass\nif {CANOE!r} in question: raise Weird('odd')",
              check=_error_reason("adapter raised Weird: odd")),
    FaultCase("calls pytest.skip()", "adapter", TESTS_FAILED, "adapter raised Skipped",
              fault=f"if {CANOE!r} in question: pytest.skip('not today')",
              check=_error_reason("adapter raised Skipped")),
    FaultCase("calls pytest.exit()", "adapter", TESTS_FAILED, "adapter raised Exit",
              fault=f"if {CANOE!r} in question: pytest.exit('bye')",
              check=_error_reason("adapter raised Exit")),
    # systematic faults (the same error on a process's first questions): one line, exit 4, the rest
    # in not_run, no threshold verdict, no citation (issue 22, item 4)
    FaultCase("ingest raises on every question", "adapter", USAGE_ERROR, SYSTEMATIC,
              ingest="raise ValueError('bad session')", args=("--tme-fail-under", "0"),
              check=_systematic("adapter raised ValueError: bad session")),
    FaultCase("reset raises ConnectionError on every question", "adapter", USAGE_ERROR, SYSTEMATIC,
              reset="raise ConnectionError('store offline')", args=("--tme-fail-under", "0"),
              check=_systematic("adapter raised ConnectionError: store offline")),
    FaultCase("reset raises ConnectionError on every question (-n 2)", "adapter", USAGE_ERROR, SYSTEMATIC,
              reset="raise ConnectionError('store offline')", args=("--tme-fail-under", "0", "-n", "2"),
              corpora=("episodic", "arithmetic", "forgetting", "prospective"),
              check=_systematic("adapter raised ConnectionError: store offline", workers=2)),
    FaultCase("answer returns None on every question", "adapter", USAGE_ERROR, SYSTEMATIC,
              fault="return RETURN_NONE", args=("--tme-fail-under", "0"),
              check=_systematic("answer() returned NoneType")),
    FaultCase("answer returns None on every question (-n 2)", "adapter", USAGE_ERROR, SYSTEMATIC,
              fault="return RETURN_NONE", args=("-n", "2"),
              corpora=("episodic", "arithmetic", "forgetting", "prospective"),
              check=_systematic("answer() returned NoneType", workers=2)),
    FaultCase("one error in threshold mode", "adapter", TESTS_FAILED,
              "thresholds: NOT EVALUATED: 1 question(s) ended in error", args=("--tme-fail-under", "0"),
              fault=f"if {CANOE!r} in question: raise RuntimeError('boom')", check=_thresholds_withheld),
    FaultCase("answer has the wrong signature", "adapter", USAGE_ERROR,
              "cannot be called as answer(question, *, query_time, instruction)",
              factory="return WrongSignature()", extra_conftest='''
              class WrongSignature:
                  def reset(self):
                      pass
                  def ingest(self, session):
                      pass
                  def answer(self, question):
                      return "no"
              ''', check=_adapter_unusable),
    FaultCase("fixture returns the class, not an instance", "adapter", USAGE_ERROR,
              "returned the class Adapter, not an instance; return Adapter()", factory="return Adapter",
              check=_adapter_unusable),
    FaultCase("answer returns None", "adapter", TESTS_FAILED, "answer() returned NoneType",
              fault=f"if {CANOE!r} in question: return RETURN_NONE",
              check=_error_reason("answer() returned NoneType")),
    FaultCase("Answer.text is bytes", "adapter", TESTS_FAILED, "Answer.text is bytes",
              fault=f"if {CANOE!r} in question: return Answer(b'440')",
              check=_error_reason("Answer.text is bytes")),
    FaultCase("Evidence ids are ints", "adapter", TESTS_FAILED, "Evidence.retrieved[0] is int",
              fault=f"if {CANOE!r} in question: return Answer('I do not know', Evidence(retrieved=(1, 2)))",
              check=_error_reason("Evidence.retrieved[0] is int")),
    FaultCase("Evidence list is a str", "adapter", TESTS_FAILED, "Evidence.context is str",
              fault=f"if {CANOE!r} in question: return Answer('I do not know', Evidence(context='s1'))",
              check=_error_reason("Evidence.context is str")),
    FaultCase("answer holds a lone surrogate", "adapter", TESTS_FAILED, "JSON report:",
              fault="return 'I do not have that information \\ud800'", check=_encodable),
    FaultCase("10 MB answer", "adapter", TESTS_FAILED, "more characters not stored",
              fault=f"if {CANOE!r} in question: return 'words and numbers 12 ' * 525_000",
              check=_big_answer),
    FaultCase("sync answer never returns (-n 0)", "adapter", TESTS_FAILED, "answer() exceeded --tme-timeout 1s",
              args=("--tme-timeout", "1"), time_limit=60,
              fault=f"if {CANOE!r} in question: threading.Event().wait()",
              check=_error_reason("answer() exceeded --tme-timeout 1s")),
    FaultCase("sync answer never returns (-n 2)", "adapter", TESTS_FAILED, "answer() exceeded --tme-timeout 1s",
              args=("--tme-timeout", "1", "-n", "2"), time_limit=60,
              fault=f"if {CANOE!r} in question: threading.Event().wait()",
              check=_error_reason("answer() exceeded --tme-timeout 1s")),
    FaultCase("async answer blocks the event loop", "adapter", TESTS_FAILED, "blocked the event loop",
              args=("--tme-timeout", "1"), time_limit=60, factory="return AsyncAdapter()",
              async_answer=f"if {CANOE!r} in question: time.sleep(3600)",
              check=_error_reason("answer() blocked the event loop")),
    FaultCase("async answer awaits for ever", "adapter", TESTS_FAILED, "answer() exceeded --tme-timeout 1s",
              args=("--tme-timeout", "1"), time_limit=60, factory="return AsyncAdapter()",
              async_answer=f"if {CANOE!r} in question: await asyncio.Event().wait()",
              check=_error_reason("answer() exceeded --tme-timeout 1s")),
    FaultCase("judge raises on every question", "adapter", USAGE_ERROR, SYSTEMATIC,
              extra_conftest='''
              class BrokenJudge:
                  name, fingerprint = "broken", "0" * 64
                  def judge(self, answer, key, surfaced_items=None, *, question=None):
                      return 1 / 0
              def pytest_typedmemeval_make_judge(config):
                  return BrokenJudge()
              ''', check=_systematic("the judge raised ZeroDivisionError")),
    FaultCase("adapter fixture raises", "adapter", USAGE_ERROR,
              "the typedmemeval_agent fixture raised RuntimeError: db down",
              factory="raise RuntimeError('db down')", check=_adapter_unusable),
    FaultCase("adapter fixture raises (-n 2)", "adapter", USAGE_ERROR,
              "the typedmemeval_agent fixture raised RuntimeError: db down", args=("-n", "2"),
              factory="raise RuntimeError('db down')", check=_adapter_unusable),
    FaultCase("--tme-agent factory raises", "adapter", USAGE_ERROR,
              "the --tme-agent factory 'conftest:make_agent' raised ConnectionError: refused",
              args=("--tme-agent", "conftest:make_agent"), factory="raise ConnectionError('refused')",
              check=_adapter_unusable),
    FaultCase("adapter fixture returns None", "adapter", USAGE_ERROR, "returned NoneType, which lacks",
              factory="return None", check=_adapter_unusable),
    # dying workers: the question in flight is named, nothing else is lost
    FaultCase("worker calls os._exit (-n 2)", "worker", TESTS_FAILED, "died while running",
              args=("-n", "2"), fault=f"if {CANOE!r} in question: os._exit(1)", check=_worker_lost),
    FaultCase("worker is SIGKILLed (-n 2)", "worker", TESTS_FAILED, "died while running",
              args=("-n", "2"), fault=f"if {CANOE!r} in question: os.kill(os.getpid(), signal.SIGKILL)",
              check=_worker_lost),
    # interruptions: a partial report that says so, results kept, non-zero exit
    FaultCase("SIGINT mid-run (-n 0)", "interrupt", INTERRUPTED, "PARTIAL RUN",
              corpora=("episodic", "arithmetic", "forgetting"), interrupt="process",
              fault="block_after(5)", check=_partial(min_measured=5)),
    FaultCase("SIGINT mid-run, thresholds (-n 0)", "interrupt", INTERRUPTED, "thresholds: NOT EVALUATED",
              corpora=("episodic", "arithmetic", "forgetting"), interrupt="process",
              args=("--tme-fail-under", "0"), fault="block_after(5)",
              check=_partial(threshold=True, min_measured=5)),
    FaultCase("SIGINT mid-run, timeout thread (-n 0)", "interrupt", INTERRUPTED, "PARTIAL RUN",
              corpora=("episodic", "arithmetic", "forgetting"), interrupt="process",
              args=("--tme-timeout", "60"), fault="block_after(5)", check=_partial(min_measured=5)),
    FaultCase("SIGINT mid-run, 4 in flight (-n 0)", "interrupt", INTERRUPTED, "PARTIAL RUN",
              corpora=("episodic", "arithmetic", "forgetting"), interrupt="process",
              args=("--tme-parallel", "4"), fault="block_after(5)", extra_conftest=IN_FLIGHT_FIXTURE,
              check=_partial(min_measured=5)),
    FaultCase("-x stops after the first failure, 4 in flight", "interrupt", TESTS_FAILED, "PARTIAL RUN",
              corpora=("arithmetic", "forgetting", "episodic", "prospective"), args=("-x", "--tme-parallel", "4"), fault=f"if {CANOE!r} in question: raise RuntimeError('boom')",
              extra_conftest=IN_FLIGHT_FIXTURE, check=_partial()),
    FaultCase("SIGINT to the controller (-n 2)", "interrupt", INTERRUPTED, "PARTIAL RUN",
              corpora=("episodic", "arithmetic", "forgetting", "prospective"), interrupt="process",
              interrupt_when_blocked=2, args=("-n", "2", "--tme-fail-under", "0"), fault="block_after(6)",
              check=_partial(threshold=True, min_measured=6)),
    FaultCase("Ctrl-C to every process (-n 2)", "interrupt", INTERRUPTED, "PARTIAL RUN",
              corpora=("episodic", "arithmetic", "forgetting", "prospective"), interrupt="group",
              interrupt_when_blocked=2, args=("-n", "2"), fault="block_after(6)",
              check=_partial(min_measured=6)),
    FaultCase("SIGINT to a lagging controller (-n 2)", "interrupt", INTERRUPTED,
              "recovered from the workers' spool",
              corpora=("episodic", "arithmetic", "forgetting", "prospective"), args=("-n", "2"),
              extra_conftest='''
              CALLS = []
              def pytest_runtest_logreport(report):
                  # The controller falls behind while the workers run ahead (their reports queue up
                  # unread, as on a loaded CI machine), then Ctrl-C reaches it.
                  if os.environ.get("PYTEST_XDIST_WORKER") is None and report.when == "call":
                      CALLS.append(report.nodeid)
                      if len(CALLS) == 1:
                          time.sleep(2.0)  # meanwhile the other worker's result arrives, unread
                          os.kill(os.getpid(), signal.SIGINT)
              ''', check=_partial(min_measured=2)),
    FaultCase("SIGINT while collecting replaces an earlier report", "interrupt", INTERRUPTED,
              "PARTIAL RUN: 6 of 6 selected question(s) did not run", interrupt="process",
              setup=_earlier_report, extra_conftest='''
              def pytest_collection_modifyitems(items):
                  log("blocked.log", "blocked")  # still collecting when Ctrl-C arrives
                  time.sleep(30)
              ''', check=_not_the_earlier_report),
    FaultCase("SIGINT at session start leaves no earlier report", "interrupt", INTERRUPTED, "KeyboardInterrupt",
              interrupt="process", setup=_earlier_report, report=False, args=("--tme-report=report.json",),
              extra_conftest='''
              @pytest.hookimpl(trylast=True)
              def pytest_configure(config):
                  log("blocked.log", "blocked")  # the session is starting when Ctrl-C arrives
                  time.sleep(30)
              ''', check=_no_report_written),
    FaultCase("-x stops after the first failure", "interrupt", TESTS_FAILED, "PARTIAL RUN",
              args=("-x",), fault=f"if {CANOE!r} in question: raise RuntimeError('boom')",
              check=_partial()),
    # user mistakes: one line, no traceback, refused before any question runs
    FaultCase("--tme-report names a directory", "input", USAGE_ERROR, "is a directory; name a file in it",
              args=("--tme-report=out",), files=(("out/keep.txt", ""),), report=False,
              check=_no_report_written),
    FaultCase("--tme-report below a file", "input", USAGE_ERROR, "is a file, so no report can be written",
              args=("--tme-report=notes.txt/report.json",), files=(("notes.txt", "x"),), report=False),
    FaultCase("--tme-fail-under names no vertical", "input", USAGE_ERROR, "did you mean arithmetic?",
              args=("--tme-fail-under", "arithmatic=0.5"), report=False),
    FaultCase("--tme-fail-under rate out of range", "input", USAGE_ERROR, "the rate must lie in [0, 1]",
              args=("--tme-fail-under", "arithmetic=1.5"), report=False),
    FaultCase("--tme-fail-under bound measures nothing", "input", TESTS_FAILED,
              "no question ran, so the bound measured nothing",
              args=("--tme-fail-under", "arithmetic=0.5", "-m", "forgetting"), selected=3,
              check=_bound_on_nothing),
    FaultCase("--tme-timeout negative", "input", USAGE_ERROR, "the timeout must be positive",
              args=("--tme-timeout", "-1"), report=False),
    FaultCase("corpus is not JSON", "input", USAGE_ERROR, "invalid JSON", corpora=(),
              copies=(("fixtures/malformed/invalid_json.json", "bad.json"),), args=("--tme-corpus=bad.json",),
              report=False),
    FaultCase("corpus nested too deeply", "input", USAGE_ERROR, "nested too deeply", corpora=(),
              files=(("deep.json", DEEP),), args=("--tme-corpus=deep.json",), report=False),
    FaultCase("session after the question date", "input", USAGE_ERROR, "is dated after the question", corpora=(),
              copies=(("fixtures/malformed/session_after_question.json", "late.json"),),
              args=("--tme-corpus=late.json",), report=False),
    FaultCase("numeric gold is NaN", "input", USAGE_ERROR, "should be a finite number", corpora=(),
              copies=(("fixtures/malformed/non_finite_gold.json", "nan.json"),), args=("--tme-corpus=nan.json",),
              report=False),
    FaultCase("corpus file missing", "input", USAGE_ERROR, "cannot read corpus file", corpora=(),
              args=("--tme-corpus=nowhere.json",), report=False),
    FaultCase("corpus is empty", "input", USAGE_ERROR, "non-empty JSON array", corpora=(),
              files=(("empty.json", "[]"),), args=("--tme-corpus=empty.json",), report=False),
    FaultCase("corpus is not UTF-8", "input", USAGE_ERROR, "not UTF-8", corpora=(),
              setup=lambda project: (project / "latin.json").write_bytes(b'[{"question": "caf\xe9"}]'),
              args=("--tme-corpus=latin.json",), report=False),
    FaultCase("snapshot file corrupt", "input", USAGE_ERROR, "(corrupt); restore c_arithmetic.ambr",
              args=("--tme-baseline",), report=False,
              setup=_write_snapshot(_snapshot([("tme-ari-001", "correct"), ("tme-ari-002", "banana")]))),
    FaultCase("snapshot file truncated", "input", USAGE_ERROR, "(truncated); restore c_arithmetic.ambr",
              args=("--tme-baseline",), report=False,
              setup=_write_snapshot(_snapshot([("tme-ari-001", "correct"), ("tme-ari-002", "wrong")], cut=95))),
    FaultCase("snapshot file empty", "input", USAGE_ERROR, "is empty (truncated)",
              args=("--tme-baseline",), report=False, setup=_write_snapshot("")),
    FaultCase("--tme-corpus PATH outside the project", "input", USAGE_ERROR, "write --tme-corpus=",
              corpora=(), run_from="app", setup=_outside_corpus, report=False,
              args=("--tme-corpus", "../data/c_arithmetic.json")),
    FaultCase("--tme-corpus=PATH outside the project", "input", OK, "JSON report:",
              corpora=(), run_from="app", setup=_outside_corpus, selected=3,
              args=("--tme-corpus=../data/c_arithmetic.json", "--tme-fail-under", "0"), check=_rootdir_kept),
    FaultCase("--tme-cache-dir DIR outside the project", "input", USAGE_ERROR,
              "write --tme-cache-dir=../out", corpora=(), run_from="app", setup=_outside_paths, report=False,
              args=("--tme-corpus=../data/c_arithmetic.json", "--tme-cache-dir", "../out")),
    FaultCase("--tme-html PATH outside the project", "input", USAGE_ERROR,
              "write --tme-html=../out/old.html", corpora=(), run_from="app", setup=_outside_paths,
              report=False, args=("--tme-corpus=../data/c_arithmetic.json", "--tme-html", "../out/old.html")),
    FaultCase("--tme-report PATH outside the project", "input", USAGE_ERROR,
              "write --tme-report=../out/old.json", corpora=(), run_from="app", setup=_outside_paths,
              report=False, args=("--tme-corpus=../data/c_arithmetic.json", "--tme-report", "../out/old.json"),
              check=lambda report, output, project: None if (project / "out" / "old.json").exists()
              else "a refused run removed the file at --tme-report"),
    FaultCase("--tme-agent names nothing", "input", USAGE_ERROR, "cannot import module 'no_such_module'",
              args=("--tme-agent", "no_such_module:make"), report=False),
    FaultCase("no adapter anywhere", "input", USAGE_ERROR, "override the `typedmemeval_agent` fixture",
              conftest=False, report=False),
    FaultCase("--tme-judge llm without a model", "input", USAGE_ERROR, "TypedMemEval judge:",
              args=("--tme-judge", "llm"), report=False),
    # labels: nothing the adapter can see encodes gold
    FaultCase("shipped corpus: environment encodes no label", "labels", OK, "JSON report:",
              corpora=(), args=("--typedmemeval", "-m", "forgetting", "--tme-fail-under", "0", "-n", "2"),
              selected=50, fault=ENV_READER, check=_env_learns_nothing),
    FaultCase("labelled user ids: environment encodes no label", "labels", OK, "JSON report:",
              corpora=(), setup=_labelled_corpus, args=("--tme-corpus=labelled.json", "--tme-fail-under", "0"),
              selected=5, fault=ENV_READER, check=_env_learns_nothing),
)
"""Every case of the matrix (the README's "Faults, timeouts and interrupted runs" summarises it)."""
