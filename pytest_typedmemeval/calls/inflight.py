"""How many requests are in flight, and when a timed-out request may be sent again.

A real local server (llama.cpp, one request at a time) queues what it cannot compute yet, and it
keeps computing a request whose client timed out. Against it, a fixed number of requests in flight
and an immediate re-send of a timed-out request go wrong together: the last of four queued requests
waits three computations before its own and times out; its re-send queues behind the abandoned copy
still being computed, and times out again (issue 22, item 10: 10 of 72 requests ``error``, 112 calls
for 72 requests). :class:`InFlight` holds the two rules that prevent it:

- **The bound adapts down.** It starts at ``settings.concurrency`` and halves (never below 1) on
  every timeout: a timeout is the endpoint saying it does not sustain that many. It never grows
  back within a caller (a run is short; a bound that oscillates would time out again).
- **No re-send while the server may still compute it.** Every send gets a sequence number. A
  server that queues answers in order, so a reply to a request sent *after* the timed-out one shows
  the server is past it; only then is it re-sent (:meth:`InFlight.passed`). When no such reply can
  come (nothing else of this caller is in progress), the request is given up with that reason
  rather than re-sent into the server's backlog. Hosted APIs serve in parallel and keep the
  ordinary backoff (:mod:`.retry`); this rule is for local endpoints
  (:func:`.endpoint.is_local_endpoint`).

Everything here runs on the caller's one event loop thread.
"""

from __future__ import annotations

import asyncio


class InFlight:
    """The adaptive bound and the evidence that a server finished an abandoned request."""

    def __init__(self, limit: int) -> None:
        self.limit = max(1, limit)
        self.initial = self.limit
        self.active = 0
        self.timeouts = 0
        self._open = 0
        """Requests of this caller in progress (sending, waiting to send, or between attempts),
        not counting those waiting in :meth:`passed`: the ones that can still produce a reply."""
        self._sent = 0
        self._answered = 0
        """The highest sequence number of a request the server answered (any HTTP reply)."""
        self._changed = asyncio.Condition()

    async def enter(self) -> None:
        async with self._changed:
            self._open += 1

    async def leave(self) -> None:
        async with self._changed:
            self._open -= 1
            self._changed.notify_all()

    async def acquire(self) -> int:
        """Wait for a free slot under the current bound; the send's sequence number."""
        async with self._changed:
            await self._changed.wait_for(lambda: self.active < self.limit)
            self.active += 1
            self._sent += 1
            return self._sent

    async def release(self, sequence: int, *, answered: bool, timed_out: bool = False) -> None:
        """Free the slot of send ``sequence``; ``answered`` when the server replied (any status),
        ``timed_out`` when the client gave up waiting (the bound halves)."""
        async with self._changed:
            self.active -= 1
            if answered:
                self._answered = max(self._answered, sequence)
            if timed_out:
                self.timeouts += 1
                self.limit = max(1, self.limit // 2)
            self._changed.notify_all()

    async def passed(self, sequence: int) -> bool:
        """Wait until the server answered a request sent after ``sequence`` (True), or until none
        can (False: nothing else is in progress)."""
        async with self._changed:
            self._open -= 1
            self._changed.notify_all()
            try:
                await self._changed.wait_for(lambda: self._answered > sequence or self._open <= 0)
                return self._answered > sequence
            finally:
                self._open += 1


__all__ = ["InFlight"]
