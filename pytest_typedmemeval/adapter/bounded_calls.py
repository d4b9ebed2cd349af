"""Calling the adapter within bounded time, without ever blocking the process's exit.

Without a timeout every call runs on the calling thread (async methods on one event loop per
process), exactly as a user's code would call them. With ``--tme-timeout`` the calls run on
*daemon* helper threads and the caller waits at most the timeout:

- a sync call that overruns is abandoned. Python cannot kill a thread, so it keeps running, but a
  daemon thread is never joined at interpreter exit (a ``ThreadPoolExecutor`` thread is: one hung
  call used to keep a finished run from exiting). The next call gets a fresh helper thread;
- async calls run on an event loop in a helper thread. ``asyncio.wait_for`` bounds a call that
  awaits; a call that *blocks* the loop (``time.sleep`` inside ``async def``) stops every timer on
  it, so a watchdog on the calling thread notices the call outliving the timeout plus a grace
  period, reports it, and abandons that loop: the next question gets a new one.

Knows nothing about pytest. Only ``KeyboardInterrupt`` escapes a call as itself; everything the
adapter raises is handed back to the caller (``run_question`` turns it into outcome ``error``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import queue
import threading
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

WATCHDOG_GRACE_SECONDS = 0.5
"""How long past its timeout an async call may run before the loop counts as blocked: a loop that
is alive fires ``wait_for``'s timer within milliseconds of the timeout, so half a second is ample
(and the grace grows to a quarter of long timeouts, for a loaded CI machine)."""

WATCHDOG_POLL_SECONDS = 0.05
"""How often the calling thread looks at the async call in flight."""


class AdapterTimeout(Exception):
    """An adapter call did not finish within ``--tme-timeout``."""


class LoopBlocked(Exception):
    """An async adapter call blocked its event loop past the timeout (no timer could fire)."""


def method_name(function: Callable[..., Any]) -> str:
    return getattr(function, "__name__", "call")


def _timeout_text(timeout: float) -> str:
    return f"--tme-timeout {timeout:g}s"


def is_async_agent(agent: Any) -> bool:
    return any(inspect.iscoroutinefunction(getattr(agent, name, None)) for name in ("reset", "ingest", "answer"))


@dataclass
class _Job:
    function: Callable[..., Any]
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    done: threading.Event = field(default_factory=threading.Event)
    value: Any = None
    error: BaseException | None = None


class _SyncWorker:
    """One daemon thread running sync adapter calls in order (one thread, not one per call, so
    an adapter with thread-bound state sees the same thread from reset to answer)."""

    def __init__(self) -> None:
        self.jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._serve, name="tme-adapter", daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while (job := self.jobs.get()) is not None:
            try:
                job.value = job.function(*job.args, **job.kwargs)
            except BaseException as error:  # noqa: BLE001 - handed to the caller as is
                job.error = error
            finally:
                job.done.set()

    def stop(self) -> None:
        self.jobs.put(None)


class _LoopThread:
    """An event loop running on a daemon thread until stopped; it closes itself on the way out."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._serve, name="tme-adapter-loop", daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_forever()
        finally:
            # Finish what is left (an abandoned call, cancelled) so no task is destroyed pending.
            pending = asyncio.all_tasks(self.loop)
            for task in pending:
                task.cancel()
            if pending:
                self.loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            self.loop.close()

    def stop(self, *, wait: float) -> None:
        try:
            self.loop.call_soon_threadsafe(self.loop.stop)
        except RuntimeError:
            return  # already closed
        self.thread.join(wait)


@dataclass
class _InFlight:
    """The async call currently running on the loop thread, for the watchdog."""

    name: str | None = None
    started: float = 0.0
    awaitable: Any = None
    """What the call returned to await (``wait_for`` runs it as a task of its own, which is the
    task a watchdog finds running on a blocked loop)."""


class AdapterCalls:
    """Runs one question's adapter calls: ``drive(agent, sessions, question kwargs)``.

    One instance per process; ``close()`` at the end of the session (it never waits on a hung
    call).
    """

    def __init__(self, timeout: float | None, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self.timeout = timeout
        self._own_loop = loop is None
        self._loop = loop
        self._worker: _SyncWorker | None = None
        self._loop_thread: _LoopThread | None = None
        self._in_flight = _InFlight()
        """The async call in flight on the current loop (an abandoned loop keeps its own record,
        so a call that unblocks late cannot clear the current one's)."""
        self.abandoned = 0
        """Helper threads given up on (hung calls); they run on as daemons until the process ends."""

    # --- sync -------------------------------------------------------------------------------

    def call_sync(self, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if self.timeout is None:
            return function(*args, **kwargs)
        if self._worker is None:
            self._worker = _SyncWorker()
        job = _Job(function, args, kwargs)
        self._worker.jobs.put(job)
        if not job.done.wait(self.timeout):
            # Abandon the thread: the call cannot be killed. The sentinel lets it end if the call
            # ever returns; the next call starts a fresh thread.
            self._worker.stop()
            self._worker = None
            self.abandoned += 1
            raise AdapterTimeout(f"{method_name(function)}() exceeded {_timeout_text(self.timeout)}; "
                                 "the call was abandoned on a daemon thread")
        if job.error is not None:
            raise job.error
        return job.value

    def _drive_sync(self, agent: Any, sessions: tuple[Any, ...], ask: dict[str, Any]) -> Any:
        self.call_sync(agent.reset)
        for session in sessions:
            self.call_sync(agent.ingest, session)
        return self.call_sync(agent.answer, ask["question"], query_time=ask["query_time"],
                              instruction=ask["instruction"])

    # --- async ------------------------------------------------------------------------------

    async def _call_async(self, in_flight: _InFlight, function: Callable[..., Any], *args: Any,
                          **kwargs: Any) -> Any:
        in_flight.name, in_flight.started = method_name(function), time.monotonic()
        try:
            result = function(*args, **kwargs)
            if not inspect.isawaitable(result):
                return result
            in_flight.awaitable = result
            if self.timeout is None:
                return await result
            try:
                return await asyncio.wait_for(result, self.timeout)
            except asyncio.TimeoutError:
                raise AdapterTimeout(f"{method_name(function)}() exceeded {_timeout_text(self.timeout)}") from None
        finally:
            in_flight.name = None
            in_flight.awaitable = None

    async def _drive_async(self, agent: Any, sessions: tuple[Any, ...], ask: dict[str, Any],
                           in_flight: _InFlight) -> Any:
        await self._call_async(in_flight, agent.reset)
        for session in sessions:
            await self._call_async(in_flight, agent.ingest, session)
        return await self._call_async(in_flight, agent.answer, ask["question"], query_time=ask["query_time"],
                                      instruction=ask["instruction"])

    def _run_on_loop_thread(self, coroutine: Coroutine[Any, Any, Any]) -> Any:
        assert self.timeout is not None
        if self._loop_thread is None:
            self._loop_thread = _LoopThread()
        future = asyncio.run_coroutine_threadsafe(coroutine, self._loop_thread.loop)
        grace = max(WATCHDOG_GRACE_SECONDS, self.timeout / 4)
        while True:
            try:
                return future.result(WATCHDOG_POLL_SECONDS)
            except concurrent.futures.TimeoutError:
                pass
            name, started = self._in_flight.name, self._in_flight.started
            if name is not None and time.monotonic() - started > self.timeout + grace:
                blocked = self._loop_thread
                self._loop_thread = None
                self._in_flight = _InFlight()
                self.abandoned += 1
                future.cancel()
                blocked.stop(wait=0)  # takes effect if the blocking call ever returns
                raise LoopBlocked(
                    f"{name}() blocked the event loop for more than {_timeout_text(self.timeout)} "
                    "(a blocking call inside async def?); that loop was abandoned and the next "
                    "question runs on a new one")

    def _run_on_own_loop(self, coroutine: Coroutine[Any, Any, Any]) -> Any:
        # One loop for the whole session: async clients are often bound to the loop they were
        # created on, so a fresh loop per call would break them.
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
        return self._loop.run_until_complete(coroutine)

    # --- one question -----------------------------------------------------------------------

    def drive(self, agent: Any, sessions: tuple[Any, ...], ask: dict[str, Any]) -> Any:
        """reset -> ingest every session in order -> answer; returns what ``answer`` returned.

        ``ask`` holds ``question``, ``query_time`` and ``instruction``. Raises whatever the
        adapter raised, :class:`AdapterTimeout` or :class:`LoopBlocked`.
        """
        if not is_async_agent(agent):
            return self._drive_sync(agent, sessions, ask)
        coroutine = self._drive_async(agent, sessions, ask, self._in_flight)
        if self.timeout is None:
            return self._run_on_own_loop(coroutine)
        return self._run_on_loop_thread(coroutine)

    def close(self) -> None:
        """Stop the helper threads that are idle; hung ones are left to die with the process."""
        if self._worker is not None:
            self._worker.stop()
            self._worker = None
        if self._loop_thread is not None:
            self._loop_thread.stop(wait=1.0)
            self._loop_thread = None
        if self._loop is not None and self._own_loop:
            self._loop.close()
            self._loop = None
