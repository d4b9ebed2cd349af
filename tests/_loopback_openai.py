"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1, for tests that must never
touch the network (importable as ``_loopback_openai``: tests/ is on sys.path).

The server speaks just enough of the wire format for the ``openai`` client: ``POST
/v1/chat/completions`` answers with a ``chat.completion`` object whose message content a test
decides. A test scripts replies in one of two ways, which combine:

- ``enqueue(reply, ...)``: replies served first, in order, one per request;
- ``script``: a callable ``(request_body: dict) -> Reply | str`` used once the queue is empty (a
  ``str`` is shorthand for a 200 reply with that message content).

Faults are replies too (:meth:`Reply.status_error`, :meth:`Reply.hang`, :meth:`Reply.malformed_body`,
:meth:`Reply.content`): a status code with its headers (so 429 with ``Retry-After`` needs nothing
new), a delay past the client's timeout, a body that is not JSON, a message that is not JSON.
Every request body is recorded (``requests``), so tests can count calls and read prompts.

``serial_seconds`` makes it behave like a real local server started for one request at a time
(llama.cpp's default): each request is computed for that long, one after another in arrival
order, and a request whose client already gave up is computed all the same. ``computations``
records (request key, arrival, start, end) of each, so a test can tell a re-send that arrived
while the server still computed the abandoned copy.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

CHAT_PATH = "/v1/chat/completions"


@dataclass(frozen=True)
class Reply:
    """One HTTP reply. ``content`` becomes the assistant message of a well-formed completion;
    ``body`` (raw bytes) replaces the whole response body instead, for malformed-wire faults."""

    status: int = 200
    content: str | None = None
    body: bytes | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    delay_seconds: float = 0.0
    truncate_at: int | None = None
    """Send only this many bytes of the body (Content-Length still announces all of it), then
    close the connection: a reply cut off mid-stream."""
    served_model: str | None = None
    """The ``model`` the completion says answered (default: the one asked for)."""
    finish_reason: str = "stop"
    """``length``: the message was cut off by the request's ``max_tokens``."""
    usage: Mapping[str, int] = field(default_factory=lambda: {
        "prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18})

    @classmethod
    def verdict(cls, outcome: str, reason: str = "scripted", value: Any = None,
                subcounts: tuple[str, ...] = ()) -> Reply:
        """A well-formed judge verdict as the message content."""
        return cls(content=json.dumps({"outcome": outcome, "reason": reason, "value": value,
                                       "subcounts": list(subcounts)}))

    @classmethod
    def content_text(cls, text: str) -> Reply:
        """A 200 completion whose message is ``text`` verbatim (e.g. not JSON at all)."""
        return cls(content=text)

    @classmethod
    def status_error(cls, status: int, message: str = "scripted failure",
                     headers: Mapping[str, str] | None = None) -> Reply:
        """An HTTP error in OpenAI's error envelope (``{"error": {"message": ...}}``)."""
        body = json.dumps({"error": {"message": message, "type": "scripted", "code": status}})
        return cls(status=status, body=body.encode(), headers=dict(headers or {}))

    @classmethod
    def hang(cls, seconds: float) -> Reply:
        """Say nothing for ``seconds`` (cut short when the server stops), then a valid verdict."""
        return cls(content=json.dumps({"outcome": "correct", "reason": "too late"}), delay_seconds=seconds)

    @classmethod
    def truncated(cls, content: str = "cut off", keep: int = 40) -> Reply:
        """A well-formed completion of which only the first ``keep`` bytes arrive."""
        return cls(content=content, truncate_at=keep)

    @classmethod
    def malformed_body(cls) -> Reply:
        """A 200 whose body is not JSON: the wire itself is broken, not the model's message."""
        return cls(body=b'{"id": "chatcmpl-x", "choices": [')


Script = Callable[[dict[str, Any]], "Reply | str"]


class LoopbackOpenAI:
    """The server. Use as a context manager (or the ``loopback_openai`` fixture in conftest.py)."""

    def __init__(self, script: Script | None = None, *, serial_seconds: float | None = None) -> None:
        self.script: Script | None = script
        self.serial_seconds = serial_seconds
        self.computations: list[tuple[str, float, float, float]] = []
        self.requests: list[dict[str, Any]] = []
        self._tickets = 0
        self._turn = 0
        self._serial = threading.Condition()
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="loopback-openai",
                                        daemon=True)

    # --- lifecycle ---------------------------------------------------------------------------
    def start(self) -> LoopbackOpenAI:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # releases hanging handlers
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> LoopbackOpenAI:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.stop()

    # --- scripting ---------------------------------------------------------------------------
    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        """What a client's ``base_url`` should be (the ``/v1`` prefix included)."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def count(self) -> int:
        with self._lock:
            return len(self.requests)

    def enqueue(self, *replies: Reply | str) -> None:
        with self._lock:
            self._queue.extend(r if isinstance(r, Reply) else Reply(content=r) for r in replies)

    def prompts(self) -> list[str]:
        """Every request's messages joined into one text per request (for leak checks)."""
        with self._lock:
            return ["\n".join(str(m.get("content", "")) for m in body.get("messages", []))
                    for body in self.requests]

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append(body)
            queued = self._queue.popleft() if self._queue else None
        if queued is not None:
            return queued
        if self.script is None:
            return Reply.status_error(500, "no scripted reply left")
        scripted = self.script(body)
        return scripted if isinstance(scripted, Reply) else Reply(content=scripted)

    @staticmethod
    def request_key(body: Mapping[str, Any]) -> str:
        """What identifies a request across re-sends: its messages and seed."""
        return json.dumps([body.get("messages"), body.get("seed")], sort_keys=True)

    def _compute_in_turn(self, body: dict[str, Any], seconds: float) -> bool:
        """Wait for this request's turn (arrival order), compute it, pass the turn on; False when
        the server stops meanwhile."""
        arrived = time.monotonic()
        with self._serial:
            ticket = self._tickets
            self._tickets += 1
            while self._turn != ticket:
                if self._stopping.is_set():
                    return False
                self._serial.wait(0.05)
        started = time.monotonic()
        stopped = self._stopping.wait(seconds)
        with self._serial:
            self.computations.append((self.request_key(body), arrived, started, time.monotonic()))
            self._turn += 1
            self._serial.notify_all()
        return not stopped

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self) -> None:
                super().setup()
                # Headers and body leave in two writes; without this, Nagle's algorithm and the
                # client's delayed ACK add ~40 ms to every reply.
                self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - keep test output clean
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                if self.path.rstrip("/") != CHAT_PATH:
                    self._send(Reply.status_error(404, f"no route {self.path}"), {})
                    return
                try:
                    body = json.loads(raw)
                except json.JSONDecodeError:
                    self._send(Reply.status_error(400, "request body is not JSON"), {})
                    return
                reply = server._next_reply(body)
                if server.serial_seconds is not None:
                    if not server._compute_in_turn(body, server.serial_seconds + reply.delay_seconds):
                        return
                elif reply.delay_seconds and server._stopping.wait(reply.delay_seconds):
                    return
                self._send(reply, body)

            def _send(self, reply: Reply, body: dict[str, Any]) -> None:
                if reply.body is not None:
                    payload = reply.body
                else:
                    payload = json.dumps({
                        "id": f"chatcmpl-loopback-{server.count}", "object": "chat.completion",
                        "created": 0, "model": reply.served_model or body.get("model", "unknown"),
                        "choices": [{"index": 0, "finish_reason": reply.finish_reason,
                                     "message": {"role": "assistant", "content": reply.content}}],
                        "usage": dict(reply.usage),
                    }).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    if reply.truncate_at is not None:
                        self.wfile.write(payload[: reply.truncate_at])
                        self.wfile.flush()
                        self.close_connection = True
                        self.connection.shutdown(socket.SHUT_RDWR)
                        return
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError, OSError):
                    pass  # the client gave up (timeout): nothing to tell it

        return Handler


def warm_model_clients() -> None:
    """One real request through each client path (async ModelCaller, sync ModelClient).

    Called at import by the test modules that run model calls inside in-process pytester runs:
    those runs restore ``sys.modules`` afterwards, so a module first imported inside one (the async
    HTTP stack, jiter) is imported afresh by the next; exception classes then stop matching (a
    timeout surfaces as a bare ``ReadTimeout``) and PyO3 modules refuse to load twice. Importing
    everything once, first, keeps those runs honest.
    """
    from pytest_typedmemeval.calls import ModelCaller, ModelSettings
    from pytest_typedmemeval.calls.json_client import ModelClient
    from pytest_typedmemeval.calls.endpoint import ModelEndpoint

    with LoopbackOpenAI(lambda body: '{"ok": true}') as server:
        caller = ModelCaller(ModelSettings.resolve("warm", server.base_url, allow_unpriced=True))
        try:
            caller.complete([{"role": "user", "content": "warm"}])
        finally:
            caller.close()
        client = ModelClient(ModelEndpoint(model="warm", base_url=server.base_url), environ={})
        try:
            client.complete_json([{"role": "user", "content": "warm"}])
        finally:
            client.close()
