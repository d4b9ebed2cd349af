"""Questions in flight: up to N questions answered at once, each on its own adapter instance
(``--tme-parallel N``, issue 24 item 1).

The pytest items still run one by one in collection order; what runs ahead is only the adapter's
part of a question (reset -> ingest every session -> answer). Judging, recording and every pytest
decision stay on the item's own turn, so a result never depends on which answer came back first.

- **sync adapters** run on N daemon threads, thread *i* always driving slot *i*'s instance (an
  adapter with thread-bound state sees one thread);
- **async adapters** run on one event loop (a daemon thread), at most N questions at a time, each
  taking a free instance for its whole question.

``--tme-timeout`` keeps its meaning per adapter call. A sync call that outlived the timeout is the
question's ``error`` whether it was seen running or came back late, so the verdict does not depend on
when the item looked; a call still running when its item's turn comes is abandoned on its daemon
thread and the slot gets a fresh thread (as with one question at a time). An async call that awaits
too long is cancelled by ``asyncio.wait_for``; a call that *blocks* the shared loop stops every
question on it: a heartbeat on the loop notices, the question whose task was running is that
``error``, the loop is abandoned and the other questions in flight are driven again, from
``reset()``, on a new loop.

Knows nothing about pytest. Only the waiting thread sees ``KeyboardInterrupt`` (the helper threads
never receive signals).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import queue
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .bounded_calls import (
    WATCHDOG_GRACE_SECONDS,
    AdapterCalls,
    AdapterTimeout,
    LoopBlocked,
    _InFlight,
    _LoopThread,
    is_async_agent,
    method_name,
)

POLL_SECONDS = 0.02
"""How often the waiting thread looks at a question in flight (it also keeps Ctrl-C prompt)."""
HEARTBEAT_SECONDS = 0.05
"""How often the shared event loop proves it is alive (only with a timeout)."""


@dataclass
class Answered:
    """What the adapter did with one question: the raw ``answer()`` value or the error it raised
    (an :class:`AdapterTimeout` or :class:`LoopBlocked` included), and the seconds it took."""

    raw: Any = None
    error: BaseException | None = None
    seconds: float = 0.0


@dataclass(eq=False)
class QuestionJob:
    """One question handed to the pool: what the adapter is given, and what it did."""

    key: str
    sessions: tuple[Any, ...]
    ask: dict[str, Any]
    done: threading.Event = field(default_factory=threading.Event)
    answered: Answered | None = None
    cancelled: bool = False
    slot: int | None = None
    """The sync slot driving it (set when a thread takes it)."""
    call: _InFlight = field(default_factory=_InFlight)
    """The adapter call running now (name and start), for the timeout and the loop watchdog."""
    future: concurrent.futures.Future[Any] | None = None
    """Async: the question's run on the current loop."""

    def finish(self, answered: Answered) -> None:
        if not self.done.is_set():
            self.answered = answered
            self.done.set()


def _runs(task: asyncio.Task[Any] | None, job: QuestionJob) -> bool:
    """Whether ``task`` is ``job``'s question (its own task, or the task ``wait_for`` made of the
    adapter call in progress)."""
    if task is None:
        return False
    return task.get_name() == f"tme-question:{id(job)}" or (
        job.call.awaitable is not None and task.get_coro() is job.call.awaitable)


def _timeout_text(timeout: float) -> str:
    return f"--tme-timeout {timeout:g}s"


class _SlotThread:
    """A daemon thread driving one slot's sync adapter instance through the pool's queue."""

    def __init__(self, pool: QuestionsInFlight, slot: int) -> None:
        self.pool = pool
        self.slot = slot
        self.retired = False
        self.thread = threading.Thread(target=self._serve, name=f"tme-adapter-{slot}", daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.retired:
            job = self.pool._jobs.get()
            if job is None:
                return
            if job.cancelled:
                continue
            job.slot = self.slot
            self.pool._drive_sync(self.pool.agents[self.slot], job)
        # A retired thread (its call was abandoned) ends once that call returns, if ever.


class QuestionsInFlight:
    """N adapter instances answering questions concurrently (module docstring).

    ``submit`` hands a question over (it starts as soon as a slot is free, in submission order);
    ``answer`` waits for one question's :class:`Answered`; ``cancel_pending`` drops what has not
    started; ``close`` stops the helpers without waiting on a hung call.
    """

    def __init__(self, agents: Sequence[Any], timeout: float | None) -> None:
        if not agents:
            raise ValueError("at least one adapter instance")
        self.agents = list(agents)
        self.timeout = timeout
        self.is_async = is_async_agent(self.agents[0])
        self.abandoned = 0
        """Helper threads or loops given up on (hung or blocking calls)."""
        self._lock = threading.Lock()
        self._pending: list[QuestionJob] = []
        """Jobs submitted and not yet answered (async: re-driven when a loop is abandoned)."""
        self._jobs: queue.SimpleQueue[QuestionJob | None] = queue.SimpleQueue()
        self._threads: list[_SlotThread] = []
        self._calls = AdapterCalls(timeout)  # its async call wrapper applies the per-call timeout
        self._loop_thread: _LoopThread | None = None
        self._free: asyncio.Queue[Any] | None = None
        self._beat = time.monotonic()
        if not self.is_async:
            self._threads = [_SlotThread(self, slot) for slot in range(len(self.agents))]

    @property
    def size(self) -> int:
        return len(self.agents)

    # --- handing questions over ----------------------------------------------------------------

    def submit(self, key: str, sessions: tuple[Any, ...], ask: dict[str, Any]) -> QuestionJob:
        job = QuestionJob(key, sessions, ask)
        with self._lock:
            self._pending.append(job)
        if self.is_async:
            self._start_async(job)
        else:
            self._jobs.put(job)
        return job

    def answer(self, job: QuestionJob) -> Answered:
        """Wait for ``job`` (bounded by the timeout when there is one) and forget it."""
        try:
            return self._wait_async(job) if self.is_async else self._wait_sync(job)
        finally:
            with self._lock:
                if job in self._pending:
                    self._pending.remove(job)

    def cancel(self, job: QuestionJob) -> bool:
        """Drop ``job`` if it has not started (True); a started one runs on (False)."""
        with self._lock:
            if job.call.started != 0.0 or job.done.is_set() or job not in self._pending:
                return False
            job.cancelled = True
            self._pending.remove(job)
        if job.future is not None:
            job.future.cancel()
        return True

    def cancel_pending(self) -> int:
        """Drop every submitted question that has not started (``-x``, a stop); returns how many."""
        dropped = 0
        with self._lock:
            for job in self._pending:
                if job.call.started == 0.0 and not job.done.is_set():
                    job.cancelled = True
                    dropped += 1
                    if job.future is not None:
                        job.future.cancel()
            self._pending = [job for job in self._pending if not job.cancelled]
        return dropped

    def close(self) -> None:
        """Stop the helpers; a hung call is left to die with the process (daemon threads)."""
        self.cancel_pending()
        for thread in self._threads:
            thread.retired = True
            self._jobs.put(None)
        self._threads = []
        if self._loop_thread is not None:
            self._loop_thread.stop(wait=1.0)
            self._loop_thread = None

    # --- sync -----------------------------------------------------------------------------------

    def _call_sync(self, job: QuestionJob, function: Any, *args: Any, **kwargs: Any) -> Any:
        job.call.name, job.call.started = method_name(function), time.monotonic()
        value = function(*args, **kwargs)
        elapsed = time.monotonic() - job.call.started
        if self.timeout is not None and elapsed > self.timeout:
            # Came back late: the same verdict as a call seen running past the timeout.
            raise AdapterTimeout(f"{method_name(function)}() exceeded {_timeout_text(self.timeout)}; "
                                 "the call was abandoned on a daemon thread")
        return value

    def _drive_sync(self, agent: Any, job: QuestionJob) -> None:
        started = time.perf_counter()
        try:
            self._call_sync(job, agent.reset)
            for session in job.sessions:
                self._call_sync(job, agent.ingest, session)
            raw = self._call_sync(job, agent.answer, job.ask["question"], query_time=job.ask["query_time"],
                                  instruction=job.ask["instruction"])
        except BaseException as error:  # noqa: BLE001 - handed to the waiting item as is
            job.finish(Answered(error=error, seconds=time.perf_counter() - started))
        else:
            job.finish(Answered(raw=raw, seconds=time.perf_counter() - started))
        finally:
            job.call.name = None

    def _wait_sync(self, job: QuestionJob) -> Answered:
        while not job.done.wait(POLL_SECONDS):
            if self.timeout is not None:
                self._abandon_overrun_calls()
        assert job.answered is not None
        return job.answered

    def _abandon_overrun_calls(self) -> None:
        """Every question whose current call outlived the timeout is that ``error`` now, and its
        slot gets a fresh thread: not only the one being waited for, so that hung calls of later
        questions cannot hold every slot while an earlier question waits for one."""
        assert self.timeout is not None
        with self._lock:
            running = [job for job in self._pending if not job.done.is_set() and job.call.name is not None]
        now = time.monotonic()
        for job in running:
            name, started = job.call.name, job.call.started
            if name is None or now - started <= self.timeout:
                continue
            self._replace_slot_thread(job.slot)
            job.finish(Answered(error=AdapterTimeout(
                f"{name}() exceeded {_timeout_text(self.timeout)}; the call was abandoned on a daemon thread"),
                seconds=now - started))

    def _replace_slot_thread(self, slot: int | None) -> None:
        """Give up on the thread stuck in ``slot``'s call: it retires once the call returns, and
        the slot gets a fresh thread (same instance, as with one question at a time)."""
        if slot is None:
            return
        with self._lock:
            for index, thread in enumerate(self._threads):
                if thread.slot == slot and not thread.retired:
                    thread.retired = True
                    self._threads[index] = _SlotThread(self, slot)
                    self.abandoned += 1
                    return

    # --- async ----------------------------------------------------------------------------------

    def _ensure_loop(self) -> _LoopThread:
        if self._loop_thread is None:
            self._loop_thread = _LoopThread()
            loop = self._loop_thread.loop
            self._free = None
            self._beat = time.monotonic()
            asyncio.run_coroutine_threadsafe(self._fill_free(), loop).result()
            if self.timeout is not None:
                loop.call_soon_threadsafe(self._heartbeat, loop)
        return self._loop_thread

    async def _fill_free(self) -> None:
        self._free = asyncio.Queue()
        for agent in self.agents:
            self._free.put_nowait(agent)

    def _heartbeat(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._loop_thread is None or self._loop_thread.loop is not loop:
            return  # an abandoned loop beats for nobody
        self._beat = time.monotonic()
        loop.call_later(HEARTBEAT_SECONDS, self._heartbeat, loop)

    def _start_async(self, job: QuestionJob) -> None:
        loop_thread = self._ensure_loop()
        job.call = _InFlight()
        job.future = asyncio.run_coroutine_threadsafe(self._drive_async(job), loop_thread.loop)

    async def _drive_async(self, job: QuestionJob) -> Any:
        free = self._free
        assert free is not None
        agent = await free.get()
        task = asyncio.current_task()
        if task is not None:
            task.set_name(f"tme-question:{id(job)}")
        job.call.started = time.monotonic()  # started: no longer cancellable as pending
        started = time.perf_counter()
        try:
            raw = await self._calls._drive_async(agent, job.sessions, job.ask, job.call)
        except asyncio.CancelledError:
            raise
        except BaseException as error:  # noqa: BLE001 - handed to the waiting item as is
            job.finish(Answered(error=error, seconds=time.perf_counter() - started))
        else:
            job.finish(Answered(raw=raw, seconds=time.perf_counter() - started))
        finally:
            free.put_nowait(agent)

    def _wait_async(self, job: QuestionJob) -> Answered:
        while not job.done.wait(POLL_SECONDS):
            if self.timeout is None or self._loop_thread is None:
                continue
            grace = max(WATCHDOG_GRACE_SECONDS, self.timeout / 4)
            if time.monotonic() - self._beat > self.timeout + grace:
                self._abandon_blocked_loop(job)
        assert job.answered is not None
        return job.answered

    def _abandon_blocked_loop(self, waiting: QuestionJob) -> None:
        """The loop has not beaten for longer than the timeout: the task running on it blocks it.
        That question is ``error``; every other unanswered one is driven again on a new loop."""
        blocked = self._loop_thread
        assert blocked is not None
        running = asyncio.current_task(blocked.loop)
        with self._lock:
            pending = [job for job in self._pending if not job.done.is_set() and not job.cancelled]
        culprit = next((job for job in pending if _runs(running, job)), waiting)
        call = culprit.call.name or "a call"
        assert self.timeout is not None
        culprit.finish(Answered(error=LoopBlocked(
            f"{call}() blocked the event loop for more than {_timeout_text(self.timeout)} (a blocking "
            "call inside async def?); that loop was abandoned and the next question runs on a new one"),
            seconds=time.monotonic() - culprit.call.started if culprit.call.started else 0.0))
        self._loop_thread = None
        self.abandoned += 1
        blocked.stop(wait=0)  # takes effect if the blocking call ever returns
        for job in pending:
            if job is not culprit:
                self._start_async(job)


__all__ = ["Answered", "QuestionJob", "QuestionsInFlight"]
