"""The question items: one ``pytest.Function`` per corpus question, from collection to the result
that reaches the report.

- collection: one :class:`QuestionModule` per loaded corpus at ``<rootdir>/typedmemeval/<corpus
  id>``, parametrized over the corpus's question heads with label-free item ids
  (:mod:`..item_ids`) and the ``typedmemeval``, vertical, shape and ``pair`` markers; the selection
  (after ``-m``/``-k``/``--lf``) is noted, and a run with no adapter is refused once;
- run: :func:`question` runs the question through the adapter and the judge
  (:func:`..adapter.run.run_question`) and decides the item's fate by mode (plain, threshold,
  ``--tme-baseline``);
- report: the result rides on the item's report as plain data (so xdist ships it), is spooled by
  a worker before it leaves, and :class:`ResultCollector` gathers it where the run aggregates.

A registered plugin module (named in :data:`pytest_typedmemeval.plugin.pytest_plugins`). Importing
it stays cheap: the corpus models, the runner and the judge load when a question first runs.
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..adapter.protocol import Turn
from .adapter_fixture import (
    ADAPTER_FAILURE_ATTRIBUTE,
    ADAPTER_FAILURE_KEY,
    no_adapter_message,
    resolve_agent,
    uses_default_agent_fixture,
)
from .collectors import PluginItemsModule
from .question_case import CASE_ARGUMENT as CASE_ARGUMENT
from .question_case import QuestionCase as QuestionCase
from .question_case import question_case as _question_case
from .session import (
    BASELINE_DIRNAME,
    LEGACY_SNAPSHOT_DIRNAME,
    TypedMemEvalSession,
    marker_name,
    tme_session,
)

if TYPE_CHECKING:
    from ..corpus.identity import CorpusIdentity
    from ..corpus.index import CorpusIndex, QuestionHead
    from ..judge.protocol import Judge
    from ..results import QuestionResult

RESULT_KEY = pytest.StashKey["QuestionResult"]()
BASELINE_KEY = pytest.StashKey[dict[str, Any]]()
RESULT_ATTRIBUTE = "typedmemeval_result"
BASELINE_ATTRIBUTE = "typedmemeval_baseline"


def question(tme_case: object, request: pytest.FixtureRequest) -> None:
    """The test function every corpus question is parametrized over."""
    # The adapter (the ``typedmemeval_agent`` fixture) is requested inside the call, not as an
    # argument: a fixture that raises is then one usage error for the run, not a setup traceback
    # per question.
    evaluate_question(request, tme_case)


class QuestionModule(PluginItemsModule):
    """One corpus as a collector. Its path is ``<rootdir>/typedmemeval/<corpus id>`` (not a real
    file), which gives readable node ids, lets ``--lf`` find the items again, and puts baseline
    snapshots in ``<rootdir>/typedmemeval/__baseline__/<corpus id>.ambr`` (:mod:`.baseline_extension`)."""

    tme_corpus: CorpusIndex
    test_function = staticmethod(question)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """One collector per corpus, its questions appended after the user's own tests (before the gate
    items: :mod:`.gate_items` is registered first, so its hook of equal priority runs after this one)."""
    tme = tme_session(config)
    for corpus in tme.corpora:
        module = QuestionModule.from_parent(session, path=config.rootpath / "typedmemeval" / corpus.corpus_id)
        module.tme_corpus = corpus
        for item in session.genitems(module):
            if isinstance(item, pytest.Item):
                case = _question_case(item)
                if case is not None:
                    # The item id carries no label; -k still selects by the full question id.
                    item.extra_keyword_matches.add(case.head.question_id)
                items.append(item)


GATES_ONLY_NOTE = ("TypedMemEval: no adapter, so --tme-gates ran the gates only ({count} question(s) "
                   "deselected); give one (--tme-agent, or the typedmemeval_agent fixture in the "
                   "rootdir conftest.py) to run the questions too")


@pytest.hookimpl(trylast=True, specname="pytest_collection_modifyitems")
def pytest_collection_modifyitems_without_an_adapter(session: pytest.Session, config: pytest.Config,
                                                    items: list[pytest.Item]) -> None:
    """``--tme-gates`` certifies corpora, which needs no adapter (issue 22, item 7): without one,
    the questions are deselected (and said so) instead of refusing the run."""
    tme = tme_session(config)
    if not tme.collect_gates or tme.agent_spec or config.option.collectonly:
        return
    questions = [item for item in items if _question_case(item) is not None]
    if not questions or not uses_default_agent_fixture(session, questions[0]):
        return
    kept = [item for item in items if _question_case(item) is None]
    config.hook.pytest_deselected(items=questions)
    items[:] = kept
    if not tme.notes:
        tme.notes.append(GATES_ONLY_NOTE.format(count=len(questions)))


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """Note the questions this run set out to measure, and refuse a run without an adapter once,
    before any question runs (not 500 failures)."""
    config = session.config
    tme = tme_session(config)
    if not tme.enabled or config.option.collectonly:
        return
    tme.freeze_gc()  # the collected items live until the session ends, like the corpora
    for item in session.items:
        case = _question_case(item)
        if case is not None:
            tme.selected[case.corpus.corpus_id, case.head.question_id] = item.nodeid
    if tme.agent_spec or not tme.selected:
        return
    for item in session.items:
        if _question_case(item) is not None:
            if uses_default_agent_fixture(session, item):
                # Refused before any question ran: nothing to report (and no not_run row that
                # would blame a lost worker for questions that were never started).
                tme.refused = no_adapter_message(config)
                raise pytest.UsageError(tme.refused)
            return


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    module = metafunc.definition.parent
    if not isinstance(module, QuestionModule):
        return
    corpus = module.tme_corpus
    ids = tme_session(metafunc.config).item_ids(corpus)
    params = []
    for head in corpus.heads:
        marks = [pytest.mark.typedmemeval, getattr(pytest.mark, marker_name(head.vertical)),
                 getattr(pytest.mark, marker_name(head.shape))]
        if head.pair_id:
            marks.append(pytest.mark.pair)
        params.append(pytest.param(QuestionCase(corpus, head), id=ids[head.question_id], marks=marks))
    metafunc.parametrize("tme_case", params)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    tme = tme_session(item.config)
    result = item.stash.get(RESULT_KEY, None)
    case = _question_case(item)
    if result is None and case is not None and report.when == "setup" and report.failed:
        message = str(call.excinfo.value).splitlines()[0] if call.excinfo else "setup failed"
        result = error_result(case, tme.judge(), f"setup failed: {message}")
        item.stash[RESULT_KEY] = result
    # One report per question carries the result: the call report, or the failed setup report
    # when the question never ran. The attribute is plain data, so xdist ships it to the controller.
    if result is not None and (report.when == "call" or (report.when == "setup" and report.failed)):
        payload = result.model_dump(mode="json")
        setattr(report, RESULT_ATTRIBUTE, payload)
        tme.produced_keys.add(result.key)
        baseline = item.stash.get(BASELINE_KEY, None)
        if baseline is not None:
            setattr(report, BASELINE_ATTRIBUTE, baseline)
        # Also to the worker's spool, before the report leaves: if the controller is interrupted
        # before it reads this report, the result is still there to be merged.
        tme.spool({"result": payload, "baseline": baseline})
        # The item lives until the session ends; its result now travels with the report, so the
        # item need not hold it too (memory flat in corpus size, issue 13).
        del item.stash[RESULT_KEY]
    return report


class ResultCollector:
    """Receives every question's report in the process that aggregates (controller or only one).

    A registered object rather than a module-level hook because ``pytest_runtest_logreport`` is not
    given the config, and run state must not live in module globals.
    """

    def __init__(self, session: TypedMemEvalSession) -> None:
        self.session = session

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        payload = getattr(report, RESULT_ATTRIBUTE, None)
        failure = getattr(report, ADAPTER_FAILURE_ATTRIBUTE, None)
        if failure is not None:  # also on a report with a result: the one that found a systematic fault
            self.session.adapter_failure = self.session.adapter_failure or failure
        if payload is not None:
            from ..results import QuestionResult

            self.session.add_result(QuestionResult.model_validate(payload))
            # pytest keeps every report until the session ends (the terminal's statistics); the
            # result is held once, in the session, not a second time as the report's payload.
            delattr(report, RESULT_ATTRIBUTE)
            baseline = getattr(report, BASELINE_ATTRIBUTE, None)
            if baseline is not None:
                self.session.baseline_changes.append(baseline)
            return
        if failure is not None:
            return
        if str(report.when) == "???":
            self._worker_crashed(report)
            return
        if report.skipped and report.when in ("setup", "call"):
            found = self.session.case_for_nodeid(report.nodeid)
            if found is not None:
                reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
                self.session.not_run_causes[found[0].corpus_id, found[1].question_id] = (
                    f"skipped: {str(reason).removeprefix('Skipped: ')}")

    def _worker_crashed(self, report: pytest.TestReport) -> None:
        """xdist reports the item a dying worker was running: record it as an ``error`` result
        naming the worker, so the question is neither lost nor silently dropped from n."""
        found = self.session.case_for_nodeid(report.nodeid)
        node = getattr(report, "node", None)
        worker = str(getattr(getattr(node, "gateway", None), "id", None) or "a worker")
        question = None
        if found is not None:
            corpus, head = found
            judge = self.session.judge()
            result = error_result_for(
                corpus, head, judge.name, judge.fingerprint,
                f"the xdist worker {worker} running this question died (a crash, os._exit or a signal "
                "in the adapter?); no answer was recorded")
            self.session.add_result(result)
            question = f"{corpus.corpus_id}/{head.question_id}"
        for lost in self.session.workers_lost:
            if lost["worker"] == worker and lost["question"] is None:
                lost["question"] = question  # pytest_testnodedown came first and could not name it
                return
        self.session.workers_lost.append({"worker": worker, "question": question})

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        message = str(excinfo.value).strip()
        if excinfo.type is KeyboardInterrupt or not message:
            message = "KeyboardInterrupt (Ctrl-C or SIGINT)"
        self.session.stop_reason = self.session.stop_reason or message


def evaluate_question(request: pytest.FixtureRequest, case: object) -> None:
    """Run one question and decide the item's fate according to the mode."""
    from ..adapter.run import run_question
    from ..judge.outcomes import Outcome

    assert isinstance(case, QuestionCase)
    session = tme_session(request.config)
    from ..corpus.identity import CorpusError

    agent = resolve_agent(request, session)
    judge = session.judge()
    try:
        record = case.corpus.run_record(case.head, Turn)
    except CorpusError as error:
        result = error_result(case, judge, str(error))
    else:
        if session.parallel > 1:
            from .questions_in_flight import answer_in_flight

            result = answer_in_flight(request, session, case, record, agent, judge)
        else:
            result = run_question(agent, case.corpus, record, judge, calls=session.adapter_calls())
    request.node.stash[RESULT_KEY] = result
    request.config.hook.pytest_typedmemeval_result(result=result, item=request.node)
    _watch_for_a_systematic_fault(request, session, result)

    if session.baseline:
        from .baseline_extension import baseline_snapshot

        snapshot = baseline_snapshot(request)
        matches = snapshot == result.outcome
        recorded = _recalled_outcome(snapshot)
        request.node.stash[BASELINE_KEY] = {"question_id": result.question_id, "corpus_id": result.corpus_id,
                                            "recorded": recorded, "fresh": result.outcome}
        if not matches:
            snapshot_file = snapshot_path(request.config, case.corpus)
            if recorded is None and snapshot_file.is_file():
                # The file exists but lacks this question: recorded partially (-m/-k), or cut short.
                # Re-recording a cut file would hide the regressions it held, so say both.
                hint = (f"no recorded outcome in {snapshot_file.name} (if that file was cut short, "
                        "restore it from version control; otherwise record this question with "
                        "--snapshot-update)")
                pytest.fail(f"outcome {result.outcome}: {hint}\n" + failure_text(result), pytrace=False)
            was = "no recorded outcome" if recorded is None else f"baseline {recorded}"
            pytest.fail(f"outcome {result.outcome} differs from {was} "
                        "(re-record with --snapshot-update if the change is intended)\n"
                        + failure_text(result), pytrace=False)
        return
    if session.threshold_mode:
        if result.outcome == Outcome.ERROR.value:
            pytest.fail("error from the adapter or the judge's endpoint (errors fail even in "
                        "threshold mode: they are harness faults, not memory results)\n"
                        + failure_text(result), pytrace=False)
        return
    if result.outcome != Outcome.CORRECT.value:
        pytest.fail(failure_text(result), pytrace=False)


def _watch_for_a_systematic_fault(request: pytest.FixtureRequest, session: TypedMemEvalSession,
                                  result: QuestionResult) -> None:
    """Stop the run as for an unusable adapter (exit 4, one line, the rest in ``not_run``) when
    this process's first questions all failed the same way (:mod:`..adapter.fault_watch`)."""
    from ..adapter.fault_watch import FaultWatch, systematic_message

    if session.fault_watch is None:
        session.fault_watch = FaultWatch()
    reason = session.fault_watch.observe(result.outcome, result.reason)
    if reason is None or session.adapter_failure is not None:
        return
    if not _questions_after(request.session, request.node):
        # Nothing is left to spare: every selected question ran and carries its own error, the
        # report is complete and the run fails as any run with errors does (exit 1, not 4).
        return
    message = systematic_message(reason, session.fault_watch.after)
    session.adapter_failure = message
    request.node.stash[ADAPTER_FAILURE_KEY] = message
    request.session.shouldfail = "TypedMemEval: stopped, a systematic adapter fault (reason in the TypedMemEval summary)"


def _questions_after(session: pytest.Session, item: pytest.Item) -> bool:
    """Whether a question item follows ``item`` in this process's run order (with xdist, an
    approximation: a later item may be another worker's)."""
    items = session.items
    try:
        index = items.index(item)
    except ValueError:
        return True
    return any(_question_case(later) is not None for later in items[index + 1:])


def failure_text(result: QuestionResult) -> str:
    from ..judge.outcomes import Outcome

    coverage = "null (no evidence reported)" if result.coverage is None else (
        f"{result.coverage:.2f} from the {result.coverage_source} list")
    return "\n".join([
        f"{result.corpus_id}/{result.question_id} [{result.vertical}/{result.shape}] outcome: {result.outcome}"
        + (" (the judge could not read this answer; it is counted apart, never as wrong)"
           if result.outcome == Outcome.UNJUDGED.value else ""),
        f"  question:    {result.question}",
        f"  gold:        {result.gold}",
        f"  answer:      {result.answer if result.answer is not None else '(none)'}",
        f"  reason:      {result.reason}",
        *([f"  mechanical:  {result.mechanical_outcome} (second opinion; not the verdict)"]
          if result.mechanical_outcome is not None else []),
        f"  coverage:    {coverage}",
        f"  attribution: {result.attribution}",
    ])


def error_result(case: QuestionCase, judge: Judge, reason: str) -> QuestionResult:
    """A result for a question whose item could not run (a setup error, its worker died)."""
    return error_result_for(case.corpus, case.head, judge.name, judge.fingerprint, reason)


def error_result_for(corpus: CorpusIndex, head: QuestionHead, judge_name: str, judge_fingerprint: str,
                     reason: str) -> QuestionResult:
    from ..adapter.run import one_line
    from ..judge.outcomes import Outcome
    from ..results import QuestionResult

    return QuestionResult(
        corpus_id=corpus.corpus_id, corpus_sha256=corpus.sha256,
        question_id=head.question_id, vertical=head.vertical, shape=head.shape,
        pair_id=head.pair_id, arm=head.arm, distance_sessions=head.distance_sessions,
        outcome=Outcome.ERROR.value, reason=one_line(reason), question=head.question, gold=head.answer,
        judge=judge_name, judge_fingerprint=judge_fingerprint,
    )


def _recalled_outcome(snapshot: Any) -> str | None:
    """The outcome recorded in the snapshot file, read back from syrupy's public execution record."""
    from .snapshot_file import recalled_text

    recalled = recalled_text(snapshot)
    return None if recalled is None else recalled.strip().strip("'\"")


def snapshot_path(config: pytest.Config, corpus: CorpusIdentity, *, legacy: bool = False) -> Path:
    """The corpus's baseline file (``legacy``: where it was kept before issue 22)."""
    directory = LEGACY_SNAPSHOT_DIRNAME if legacy else BASELINE_DIRNAME
    return config.rootpath / "typedmemeval" / directory / f"{corpus.corpus_id}.ambr"
