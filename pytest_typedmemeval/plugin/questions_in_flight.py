"""``--tme-parallel N``: the question items' answers computed ahead, up to N at once, on one
adapter instance per slot (issue 24, item 1).

pytest still runs the items one by one in collection order. When a question item runs, it hands
the next questions this process will run (``session.items`` after ``-k``/``-m``/``--lf``, or the
xdist worker's own queue) to :class:`..adapter.in_flight.QuestionsInFlight`, keeping at most
:data:`LOOK_AHEAD_PER_SLOT` × N handed over and not yet reported; then it waits for its own answer
and judges, records and decides exactly as one question at a time does. So the report, the item
outcomes, ``-x``, the systematic-fault stop and the baseline checks are the same as with N = 1;
only the adapter's calls overlap.

Where the instances come from: ``--tme-agent`` (or the ini ``typedmemeval_agent``) calls its
factory once per slot; the ``llm-*`` reference agents get one agent per slot on one model caller
(one cache, one ledger, one in-flight bound); a ``typedmemeval_agent`` fixture must return a
:class:`..adapter.factories.AdapterFactory`, or N > 1 is refused in one line (an adapter instance
answering two questions at once would reset one in the middle of the other).

A registered plugin module (named in :data:`pytest_typedmemeval.plugin.pytest_plugins`); it does
nothing when N is 1.
"""

from __future__ import annotations

import time
from collections.abc import Generator, Iterable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

from ..adapter.protocol import Turn
from .adapter_fixture import (
    adapter_failure_message,
    adapter_origin,
    agent_from_spec,
    stop_for_an_unusable_adapter,
    uses_default_agent_fixture,
)
from .question_case import QuestionCase, question_case
from .session import SESSION_KEY, TypedMemEvalSession

if TYPE_CHECKING:
    from ..adapter.in_flight import QuestionJob, QuestionsInFlight
    from ..corpus.index import RunRecord
    from ..corpus.models import QuestionRecord
    from ..judge.protocol import Judge
    from ..results import QuestionResult

LOOK_AHEAD_PER_SLOT = 2
"""Questions handed over per slot, counting the one whose item runs: a slot that finishes early
starts the next question at once instead of waiting for the items before it to report. More
look-ahead keeps slots busier behind a slow question; it is also what a stop (``-x``, Ctrl-C)
leaves answered and unreported (never recorded, never judged)."""

NO_INSTANCES_MESSAGE = (
    "TypedMemEval: --tme-parallel {n} answers {n} questions at once, each on its own adapter "
    "instance, but the typedmemeval_agent fixture returned one {kind}: return "
    "pytest_typedmemeval.AdapterFactory(make) instead (make: a zero-argument callable building one "
    "adapter, called once per question in flight), or pass --tme-parallel 1."
)


class LookAhead:
    """The process's pool and which items it holds answers for (by node id, in hand-over order)."""

    def __init__(self, pool: QuestionsInFlight, window: int) -> None:
        self.pool = pool
        self.window = window
        self.jobs: dict[str, QuestionJob] = {}
        self.current: tuple[str, QuestionJob] | None = None
        """The item running now and its question (kept until the next item takes over: if the run
        stops before its result is reported, the end of the session still records the answer)."""

    def close(self) -> None:
        self.jobs.clear()
        self.pool.close()

    def cancel_pending(self) -> None:
        self.pool.cancel_pending()

    def quiesce(self) -> None:
        """No adapter call in flight when this returns: questions handed over and not started are
        taken back (their items hand them over again on their turn); started ones are waited for
        (their answers kept for their items). Before any other item: a gate, dataset or user item
        may use the first instance, which must not be answering a question at the same time."""
        for nodeid, job in list(self.jobs.items()):
            if self.pool.cancel(job):
                del self.jobs[nodeid]
        for job in self.jobs.values():
            self.pool.answer(job)  # bounded by the timeout; the item reads job.answered again


def answer_in_flight(request: pytest.FixtureRequest, session: TypedMemEvalSession, case: QuestionCase,
                     record: QuestionRecord | RunRecord, agent: Any, judge: Judge) -> QuestionResult:
    """The item's result: its answer from the pool (handed over now or earlier), judged here."""
    from ..adapter.run import result_of_answer

    look_ahead = _look_ahead(request, session, agent)
    _hand_over_upcoming(request.session, request.node, session, look_ahead)
    job = look_ahead.jobs.pop(request.node.nodeid, None)
    if job is None:  # not handed over ahead (a skip marker kept it back): now
        job = _submit(look_ahead, request.node.nodeid, record)
    look_ahead.current = (request.node.nodeid, job)
    answered = job.answered if job.done.is_set() and job.answered is not None else look_ahead.pool.answer(job)
    started = time.perf_counter() - answered.seconds
    return result_of_answer(case.corpus, record, judge, raw=answered.raw, error=answered.error,
                            started=started)


# --- the slots ------------------------------------------------------------------------------------

def _look_ahead(request: pytest.FixtureRequest, session: TypedMemEvalSession, agent: Any) -> LookAhead:
    if session.in_flight is None:
        from ..adapter.in_flight import QuestionsInFlight

        agents = [agent, *_more_instances(request, session, session.parallel - 1)]
        session.slot_agents = agents
        session.in_flight = LookAhead(QuestionsInFlight(agents, session.timeout),
                                      LOOK_AHEAD_PER_SLOT * session.parallel)
    look_ahead: LookAhead = session.in_flight
    return look_ahead


def _more_instances(request: pytest.FixtureRequest, session: TypedMemEvalSession, count: int) -> list[Any]:
    """``count`` more adapter instances from the source that built slot 0's (module docstring);
    anything that goes wrong is the one line that stops the run."""
    from ..adapter.factories import AdapterFactory, check_agent, is_llm_agent_alias, load_agent_factory
    from ..adapter.run import one_line

    from_spec = session.agent_from_command_line or (
        bool(session.agent_spec) and uses_default_agent_fixture(request.session, request.node))
    try:
        if from_spec and is_llm_agent_alias(session.agent_spec):
            agent_from_spec(session)
            return [session.another_llm_agent() for _ in range(count)]
        if from_spec:
            factory = load_agent_factory(session.agent_spec or "")
            agents = [factory() for _ in range(count)]
        else:
            value = request.getfixturevalue("typedmemeval_agent")
            if not isinstance(value, AdapterFactory):
                stop_for_an_unusable_adapter(request, session, NO_INSTANCES_MESSAGE.format(
                    n=session.parallel, kind=type(value).__name__))
            agents = [value.build() for _ in range(count)]
    except (KeyboardInterrupt, pytest.fail.Exception):
        raise
    except BaseException as error:  # noqa: BLE001 - one usage error for the run, as for slot 0
        stop_for_an_unusable_adapter(request, session, adapter_failure_message(session, error, request))
    try:
        for agent in agents:
            check_agent(agent, adapter_origin(session, request))
    except TypeError as error:
        stop_for_an_unusable_adapter(request, session,
                                     f"TypedMemEval: the adapter is not usable: {one_line(str(error))}")
    return agents


# --- handing questions over -------------------------------------------------------------------------

def _submit(look_ahead: LookAhead, nodeid: str, record: QuestionRecord | RunRecord) -> QuestionJob:
    from ..adapter.projection import adapter_view
    from ..adapter.run import question_kwargs

    view = adapter_view(record)
    return look_ahead.pool.submit(nodeid, tuple(view.sessions), question_kwargs(view))


def _hand_over_upcoming(pytest_session: pytest.Session, item: pytest.Item, session: TypedMemEvalSession,
                        look_ahead: LookAhead) -> None:
    """Hand over this item's question and the next ones, up to the window (the item's own first)."""
    from ..corpus.identity import CorpusError

    if session.adapter_failure is not None or pytest_session.shouldfail or pytest_session.shouldstop:
        return
    upcoming_items: Iterable[pytest.Item] = _upcoming_items(pytest_session, item)
    if _xdist_worker_loop(pytest_session.config) is not None:
        # The worker's queue is short and may lose items (xdist's work stealing): forget answers
        # for items no longer queued here, so they do not hold places in the window.
        upcoming_items = list(upcoming_items)
        queued = {upcoming.nodeid for upcoming in upcoming_items}
        for nodeid in [nodeid for nodeid in look_ahead.jobs if nodeid not in queued]:
            del look_ahead.jobs[nodeid]
    for upcoming in upcoming_items:
        if len(look_ahead.jobs) >= look_ahead.window:
            return
        if upcoming.nodeid in look_ahead.jobs or not _may_run_ahead(upcoming):
            continue
        case = _case(upcoming)
        if case is None:
            continue
        try:
            record = case.corpus.run_record(case.head, Turn)
        except CorpusError:
            continue  # its item reports the corpus error on its own turn
        look_ahead.jobs[upcoming.nodeid] = _submit(look_ahead, upcoming.nodeid, record)


def _case(item: pytest.Item) -> QuestionCase | None:
    return question_case(item)


def _may_run_ahead(item: pytest.Item) -> bool:
    """Whether the item's answer may be computed before its turn: not when a marker may skip it
    (``skip``, ``skipif``, ``xfail(run=False)``); such an item is answered on its own turn."""
    for mark in item.iter_markers():
        if mark.name in ("skip", "skipif"):
            return False
        if mark.name == "xfail" and mark.kwargs.get("run", True) is False:
            return False
    return True


def _upcoming_items(pytest_session: pytest.Session, item: pytest.Item) -> Iterator[pytest.Item]:
    """``item``, then the items this process will run after it, in order: the rest of
    ``session.items`` (after deselection), or under xdist the indices the worker was sent."""
    yield item
    worker = _xdist_worker_loop(pytest_session.config)
    items = pytest_session.items
    if worker is not None:
        queue = getattr(worker, "torun", None)
        upcoming: list[Any] = [getattr(worker, "nextitem_index", None)]
        if queue is not None and hasattr(queue, "lock"):
            with queue.lock() as waiting:
                upcoming.extend(list(waiting))
        for index in upcoming:
            if isinstance(index, int) and not isinstance(index, bool) and 0 <= index < len(items):
                yield items[index]
        return
    try:
        position = items.index(item)
    except ValueError:
        return
    yield from items[position + 1:]


def _xdist_worker_loop(config: pytest.Config) -> Any:
    """pytest-xdist's worker plugin (it holds the worker's queue of item indices), or ``None``."""
    if not hasattr(config, "workerinput"):
        return None
    for plugin in config.pluginmanager.get_plugins():
        if hasattr(plugin, "torun") and hasattr(plugin, "nextitem_index"):
            return plugin
    return None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, object, object]:
    """Before an item that is not a question, let the questions in flight settle (:meth:`LookAhead.quiesce`);
    after a stop (``-x``, ``--maxfail``, a systematic fault), drop what has not started."""
    tme = item.config.stash.get(SESSION_KEY, None)
    if tme is not None and tme.in_flight is not None and tme.in_flight.jobs and _case(item) is None:
        tme.in_flight.quiesce()
    result = yield
    if tme is not None and tme.in_flight is not None and (item.session.shouldfail or item.session.shouldstop):
        tme.in_flight.cancel_pending()
    return result


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """Keep what was answered ahead when the run stopped first (Ctrl-C, ``-x``, a systematic
    fault): an answer the adapter returned is judged and recorded, in collection order, before the
    report is written (on a worker: spooled, so the controller merges it), never dropped. Registered
    after the plugin's own ``pytest_sessionfinish`` (equal priority), so it runs before it."""
    tme = session.config.stash.get(SESSION_KEY, None)
    if tme is None or tme.in_flight is None:
        return
    look_ahead: LookAhead = tme.in_flight
    look_ahead.cancel_pending()
    jobs = dict(look_ahead.jobs)
    if look_ahead.current is not None:
        jobs.setdefault(*look_ahead.current)
    look_ahead.jobs.clear()
    recorded = tme.produced_keys | set(tme.results)
    for item in session.items:
        job = jobs.get(item.nodeid)
        case = question_case(item) if job is not None else None
        if job is None or case is None or (case.corpus.corpus_id, case.head.question_id) in recorded:
            continue
        if job.done.is_set() and job.answered is not None and not isinstance(job.answered.error, KeyboardInterrupt):
            _record_answered_ahead(item, tme, case, job)


def _record_answered_ahead(item: pytest.Item, tme: TypedMemEvalSession, case: QuestionCase,
                           job: QuestionJob) -> None:
    from ..adapter.run import result_of_answer
    from ..corpus.identity import CorpusError

    assert job.answered is not None
    try:
        record = case.corpus.run_record(case.head, Turn)
    except CorpusError:
        return
    answered = job.answered
    result = result_of_answer(case.corpus, record, tme.judge(), raw=answered.raw, error=answered.error,
                              started=time.perf_counter() - answered.seconds)
    item.config.hook.pytest_typedmemeval_result(result=result, item=item)
    if hasattr(item.config, "workerinput"):
        tme.spool({"result": result.model_dump(mode="json"), "baseline": None})
        tme.produced_keys.add(result.key)
    else:
        tme.add_result(result)


__all__ = ["LOOK_AHEAD_PER_SLOT", "LookAhead", "NO_INSTANCES_MESSAGE", "answer_in_flight"]
