"""The model-call layer: every model call TypedMemEval makes goes through one :class:`ModelCaller`.

In order, for each request: the response cache (a hit makes no call and costs nothing); the price
check (an unpriced model is refused unless allowed); pre-admission against the shared ceiling
(:mod:`.budget`); the request itself, on ``openai.AsyncOpenAI`` with the client's own retries off;
retries for transient faults only (:mod:`.retry`); settling the ledger from the reported usage;
storing the reply. Every refusal or give-up is a :class:`.endpoint.ModelCallError` with a
one-line reason that callers turn into an ``error`` outcome — never into a judged answer.

Concurrency: the caller owns one event loop on a daemon thread and one async client on it; at most
``settings.concurrency`` requests are in flight, a bound that halves on every timeout, and a
timed-out request to a local server is re-sent only once the server shows it finished it
(:mod:`.inflight`). Synchronous code (a pytest item, the
LLM judge) calls :meth:`ModelCaller.complete`; batch code (the probe runner) hands a list to
:meth:`ModelCaller.complete_many`, which runs them concurrently and returns results in order.
"""

from __future__ import annotations

import asyncio
import math
import threading
from collections.abc import Callable, Coroutine, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, TypeVar

from .budget import CostLedger, Price, PriceTable, worst_case_tokens
from .cache import ResponseCache
from .client_import import import_openai
from .inflight import InFlight
from .endpoint import (
    JSON_RESPONSE_FORMAT,
    ModelCallError,
    message_content,
    resolve_api_key,
    status_message,
    usage_of,
)
from .retry import BREAKER_AFTER, delay_before, is_transient, parse_retry_after, should_retry
from .settings import ModelSettings

Messages = Sequence[Mapping[str, str]]
ADMISSION_POLL_SECONDS = 0.05
"""How often a request waiting for admission under the ceiling asks the ledger again."""
T = TypeVar("T")


@dataclass(frozen=True)
class Completion:
    """One answered request: the message text, token usage as reported, whether it came from the
    cache, what it cost, the model name the server says answered, and the attempts it took."""

    text: str
    usage: Mapping[str, int | None] = field(default_factory=dict)
    cached: bool = False
    cost_usd: float = 0.0
    served_model: str | None = None
    attempts: int = 0
    finish_reason: str | None = None
    """The server's reason for ending the message ("stop", "length": cut off by ``max_tokens``)."""


class ModelCaller:
    """Cache, ceiling, retries and bounded concurrency around one endpoint (module docstring)."""

    def __init__(self, settings: ModelSettings, *, environ: Mapping[str, str] | None = None,
                 ledger: CostLedger | None = None, prices: PriceTable | None = None,
                 sleep: Callable[[float], Coroutine[Any, Any, None]] | None = None) -> None:
        self.settings = settings
        self._environ = environ
        self.prices = prices if prices is not None else PriceTable.load(settings.prices_path)
        self.price: Price | None = self.prices.price_of(settings.model)
        self.ledger = ledger if ledger is not None else CostLedger(settings.max_usd, settings.ledger_path)
        self.cache = ResponseCache(settings.cache_dir)
        self._sleep = sleep or asyncio.sleep
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._client: Any = None
        self._inflight: InFlight | None = None
        self._start_lock = threading.Lock()
        self._give_ups = 0
        """Consecutive calls that gave up on a transient fault; at :data:`.retry.BREAKER_AFTER` the
        endpoint is taken as down and later calls get one attempt each until one succeeds (a dead
        server must cost one request per question, not four requests and seconds of backoff)."""

    # --- checks done once, before any call -------------------------------------------------------
    def check(self) -> None:
        """Refuse at start what would refuse every call: no key for a remote endpoint, an unpriced
        model not explicitly allowed, a bad concurrency or token budget, no ``openai`` client (the
        ``models`` extra: one line naming it, before any key or price is asked for)."""
        import_openai()
        resolve_api_key(self.settings.base_url, self._environ)
        if self.price is None and not self.settings.allow_unpriced:
            raise ModelCallError("unpriced", f"model {self.settings.model!r} has no price, so the "
                                 f"${self.settings.max_usd:g} ceiling could not stop it: add it to a "
                                 "price file (--tme-prices, zero for a free local server) or pass "
                                 "--tme-allow-unpriced")
        if self.settings.concurrency < 1 or self.settings.max_tokens < 1:
            raise ModelCallError("config", "concurrency and max_tokens must be at least 1")

    # --- public entry points ---------------------------------------------------------------------
    def request_of(self, messages: Messages, *, json_mode: bool = False,
                   seed: int | None = None, max_tokens: int | None = None) -> dict[str, Any]:
        """The request as sent, and as keyed in the cache (everything that decides the reply).
        ``max_tokens`` overrides the settings' budget for this request (a retry with more room)."""
        return {"base_url": self.settings.base_url, "model": self.settings.model,
                "messages": [{"role": str(m["role"]), "content": str(m["content"])} for m in messages],
                "temperature": self.settings.temperature,
                "max_tokens": self.settings.max_tokens if max_tokens is None else max_tokens,
                "seed": self.settings.seed if seed is None else seed, "json_mode": json_mode}

    def complete(self, messages: Messages, *, json_mode: bool = False,
                 seed: int | None = None, max_tokens: int | None = None) -> Completion:
        """One request, synchronously (raises :class:`ModelCallError`)."""
        return self._run(self.acomplete(messages, json_mode=json_mode, seed=seed,
                                        max_tokens=max_tokens))

    def complete_many(self, batch: Sequence[tuple[Messages, int | None]], *, json_mode: bool = False,
                      progress: Callable[[int, int], None] | None = None
                      ) -> list[Completion | ModelCallError]:
        """Many (messages, seed) requests concurrently, results in input order; a failure is its
        error in place, never an exception that loses the others. ``progress(done, total)`` is
        called from the caller's thread as requests finish."""
        async def gather() -> list[Completion | ModelCallError]:
            done = 0

            async def one(messages: Messages, seed: int | None) -> Completion | ModelCallError:
                nonlocal done
                try:
                    return await self.acomplete(messages, json_mode=json_mode, seed=seed)
                except ModelCallError as error:
                    return error
                finally:
                    done += 1
                    if progress is not None:
                        progress(done, len(batch))

            return list(await asyncio.gather(*(one(m, s) for m, s in batch)))

        return self._run(gather())

    async def acomplete(self, messages: Messages, *, json_mode: bool = False,
                        seed: int | None = None, max_tokens: int | None = None) -> Completion:
        """One request on the caller's loop (cache, price, admission, retries, settle, store)."""
        request = self.request_of(messages, json_mode=json_mode, seed=seed, max_tokens=max_tokens)
        cached = self.cache.get(request)
        if cached is not None:
            self.ledger.count_cache_hit()
            return Completion(text=cached["content"], usage=cached.get("usage") or {}, cached=True,
                              served_model=cached.get("served_model"), attempts=0,
                              finish_reason=cached.get("finish_reason"))
        if self.price is None and not self.settings.allow_unpriced:
            self.check()  # raises the unpriced refusal with its reason
        prompt_bound, completion_bound = worst_case_tokens(request["messages"], request["max_tokens"])
        worst = self.price.cost(prompt_bound, completion_bound) if self.price else 0.0
        inflight = self._inflight
        assert inflight is not None
        await inflight.enter()
        try:
            attempt = 0
            while True:
                attempt += 1
                await self._admit(worst)
                try:
                    sequence = await inflight.acquire()
                except BaseException:
                    self.ledger.release(worst, billed=False)
                    raise
                try:
                    reply = await self._send(request)
                except ModelCallError as error:
                    timed_out = error.kind == "timeout"
                    await inflight.release(sequence, answered=error.kind == "http_status",
                                           timed_out=timed_out)
                    self.ledger.release(worst, billed=error.kind in ("timeout", "connection"))
                    retry, why = should_retry(attempt, error)
                    if retry and self._give_ups >= BREAKER_AFTER:
                        retry, why = False, (f"not retried: the last {self._give_ups} calls to "
                                             "this endpoint gave up")
                    if retry and timed_out and self.settings.is_local:
                        # The server may still be computing it: re-send only once it shows it
                        # is past it (module docstring of .inflight).
                        if not await inflight.passed(sequence):
                            retry, why = False, ("not re-sent: the server may still be computing "
                                                 "it; raise the request timeout or rerun, answered "
                                                 "requests are cached")
                        else:
                            continue
                    if not retry and is_transient(error):
                        self._give_ups += 1
                    if not retry:
                        if is_transient(error):
                            raise ModelCallError(error.kind, f"{error.reason} ({why})",
                                                 status=error.status) from None
                        raise
                    await self._sleep(delay_before(attempt, error))
                    continue
                except BaseException:
                    await inflight.release(sequence, answered=False)
                    self.ledger.release(worst, billed=True)
                    raise
                await inflight.release(sequence, answered=True)
                usage = reply["usage"]
                actual = worst
                if self.price is not None and usage.get("prompt_tokens") is not None \
                        and usage.get("completion_tokens") is not None:
                    actual = self.price.cost(int(usage["prompt_tokens"]), int(usage["completion_tokens"]))
                elif self.price is None:
                    actual = 0.0
                self.ledger.settle(worst, actual)
                self._give_ups = 0
                self.cache.put(request, reply)
                return Completion(text=reply["content"], usage=usage, cached=False, cost_usd=actual,
                                  served_model=reply.get("served_model"), attempts=attempt,
                                  finish_reason=reply.get("finish_reason"))
        finally:
            await inflight.leave()

    async def _admit(self, worst: float) -> None:
        """Reserve ``worst`` against the ceiling, waiting (bounded by :attr:`admission_wait_seconds`)
        while only other requests' open reservations stand in the way (:meth:`.budget.CostLedger.try_reserve`).
        Admission comes before the in-flight slot, so a waiting request holds no slot."""
        what = f"a call to {self.settings.model}"
        polls = max(1, math.ceil(self.admission_wait_seconds / ADMISSION_POLL_SECONDS))
        for _ in range(polls):
            if self.ledger.try_reserve(worst, what=what):
                return
            await self._sleep(ADMISSION_POLL_SECONDS)
        self.ledger.try_reserve(worst, what=what, final=True, waited_seconds=self.admission_wait_seconds)

    @property
    def admission_wait_seconds(self) -> float:
        """How long a request waits for other requests' reservations: the reservations it waits
        for last one attempt each, so twice the request timeout."""
        return 2 * self.settings.timeout_seconds

    @property
    def inflight_bound(self) -> tuple[int, int, int]:
        """(bound at start, bound now, timeouts seen): how far the endpoint made the layer adapt."""
        if self._inflight is None:
            return self.settings.concurrency, self.settings.concurrency, 0
        return self._inflight.initial, self._inflight.limit, self._inflight.timeouts

    def close(self) -> None:
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        if self._client is not None:
            asyncio.run_coroutine_threadsafe(self._client.close(), loop).result(timeout=10)
            self._client = None
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()
        self._loop = self._thread = None

    # --- machinery -------------------------------------------------------------------------------
    def _run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        loop = self._ensure_loop()
        future: Future[T] = asyncio.run_coroutine_threadsafe(coroutine, loop)
        return future.result()

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._start_lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                ready = threading.Event()

                def serve() -> None:
                    asyncio.set_event_loop(loop)
                    self._inflight = InFlight(self.settings.concurrency)
                    ready.set()
                    loop.run_forever()

                self._thread = threading.Thread(target=serve, name="typedmemeval-model-calls",
                                                daemon=True)
                self._thread.start()
                ready.wait()
                self._loop = loop
            return self._loop

    def _openai(self) -> Any:
        if self._client is None:
            openai = import_openai()  # lazily: importing the plugin must never import openai
            self._client = openai.AsyncOpenAI(
                api_key=resolve_api_key(self.settings.base_url, self._environ),
                base_url=self.settings.base_url, timeout=self.settings.timeout_seconds, max_retries=0)
        return self._client

    async def _send(self, request: Mapping[str, Any]) -> dict[str, Any]:
        openai = import_openai()

        url = self.settings.base_url
        extra: dict[str, Any] = {}
        if request["json_mode"]:
            extra["response_format"] = dict(JSON_RESPONSE_FORMAT)
        if request["seed"] is not None:
            extra["seed"] = request["seed"]
        try:
            completion = await self._openai().chat.completions.create(
                model=request["model"], messages=request["messages"],
                temperature=request["temperature"], max_tokens=request["max_tokens"], **extra)
        except openai.APITimeoutError:
            raise ModelCallError("timeout", f"no reply from {url} within "
                                 f"{self.settings.timeout_seconds:g}s") from None
        except openai.APIConnectionError as error:
            cause = error.__cause__ or error
            raise ModelCallError("connection", f"cannot reach {url}: {cause}") from None
        except openai.APIStatusError as error:
            headers = getattr(getattr(error, "response", None), "headers", {}) or {}
            raise ModelCallError("http_status", f"HTTP {error.status_code} from {url}: "
                                 f"{status_message(error)}", status=error.status_code,
                                 retry_after=parse_retry_after(headers.get("retry-after"))) from None
        except (ValueError, TypeError, KeyError, AttributeError,
                openai.APIResponseValidationError) as error:
            raise ModelCallError("malformed_response", f"{url} sent a reply that is not a chat "
                                 f"completion ({type(error).__name__}: {error})") from None
        except openai.OpenAIError as error:
            raise ModelCallError("client", f"{type(error).__name__} calling {url}: {error}") from None
        choices = getattr(completion, "choices", None) or [None]
        return {"content": message_content(completion, url), "usage": usage_of(completion),
                "served_model": getattr(completion, "model", None),
                "finish_reason": getattr(choices[0], "finish_reason", None)}


__all__ = ["Completion", "Messages", "ModelCaller"]
