"""Where a model call goes and how it fails: endpoint settings, the API key, the one error type.

The model-call layer itself — response cache, price table, cost ceiling, retries, concurrency —
is :mod:`.caller` and its helpers; the JSON-verdict client of the judge is :mod:`.json_client`.
This module holds what every caller shares and what the layer is built on, and imports nothing of
the package (nor ``openai``, nor pydantic), so the plugin can name its defaults at every start:

- :class:`ModelCallError`: every way a call can fail, as one type with a ``kind`` and a one-line
  reason, so callers map a broken endpoint, a refusal or the ceiling to outcome ``error``, never
  to a verdict;
- the key comes **only** from ``OPENAI_API_KEY`` (never a flag or a file, so it cannot land in
  shell history, CI logs or a committed ini); a loopback endpoint without one gets a placeholder,
  because local servers (llama.cpp, vLLM, Ollama) ignore the key but the client insists on one;
- the base URL is the caller's, else ``OPENAI_BASE_URL``, else the client's public default;
- reading a completion the ``openai`` client returned: its message, its token usage, the message
  of an HTTP error.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

API_KEY_ENV = "OPENAI_API_KEY"
BASE_URL_ENV = "OPENAI_BASE_URL"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
"""The ``openai`` client's own default, written out so reports and errors can name it."""
LOOPBACK_PLACEHOLDER_KEY = "not-needed"
DEFAULT_TIMEOUT_SECONDS = 60.0
"""Generous for a small local model on a CPU; a verdict is a few dozen tokens."""
JSON_RESPONSE_FORMAT: Mapping[str, str] = {"type": "json_object"}

FailureKind = Literal["config", "connection", "timeout", "http_status", "malformed_response",
                      "malformed_json", "truncated", "client", "ceiling", "unpriced"]
"""``truncated``: the message was cut off by the request's ``max_tokens`` before it parsed (the
model judge retries once with a larger budget)."""


class ModelCallError(Exception):
    """Every way a model call can fail, as one type. ``str(error)`` is one actionable line;
    ``kind`` lets callers (and the later retry layer) tell a timeout from a refusal."""

    def __init__(self, kind: FailureKind, reason: str, *, status: int | None = None,
                 retry_after: float | None = None) -> None:
        self.kind: FailureKind = kind
        self.status = status
        self.retry_after = retry_after
        """Seconds the server asked to wait (``Retry-After`` on a 429/503), when it said."""
        self.reason = " ".join(reason.split())  # one line, whatever the server sent
        super().__init__(self.reason)


def is_loopback(base_url: str) -> bool:
    """True for ``localhost`` and loopback addresses (127.0.0.0/8, ::1): servers on this machine."""
    host = urlsplit(base_url).hostname or ""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def is_local_endpoint(base_url: str) -> bool:
    """True for a server of one's own: loopback, a private or link-local address, a ``.local``
    name. Such a server (llama.cpp, Ollama, one GPU box) typically computes one request at a time
    and keeps computing a request its client gave up on, so the layer sends it one request at a
    time by default and re-sends a timed-out request only once the server shows it finished it
    (:mod:`.inflight`). Hosted APIs serve in parallel: an abandoned request delays nobody."""
    if is_loopback(base_url):
        return True
    host = urlsplit(base_url).hostname or ""
    if host.endswith(".local"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_private or address.is_link_local


def resolve_base_url(base_url: str | None, environ: Mapping[str, str] | None = None) -> str:
    """The endpoint to call: the explicit URL, else ``OPENAI_BASE_URL``, else the public API."""
    env = os.environ if environ is None else environ
    return (base_url or env.get(BASE_URL_ENV) or DEFAULT_BASE_URL).rstrip("/")


def resolve_api_key(base_url: str, environ: Mapping[str, str] | None = None) -> str:
    """The key from ``OPENAI_API_KEY``; a placeholder for a loopback server when it is unset.

    Raises :class:`ModelCallError` (kind ``config``) for a remote endpoint without a key: callers
    check this at session start so a missing key is one usage error, not one error per question.
    """
    env = os.environ if environ is None else environ
    key = env.get(API_KEY_ENV, "").strip()
    if key:
        return key
    if is_loopback(base_url):
        return LOOPBACK_PLACEHOLDER_KEY
    raise ModelCallError("config", f"{base_url} needs an API key: set the {API_KEY_ENV} environment "
                         "variable (keys are read from the environment only, never from a flag or "
                         "file); a server on 127.0.0.1/localhost needs none")


@dataclass(frozen=True)
class ModelEndpoint:
    """Where and how to call: the settings that decide a reply (and so belong in fingerprints)."""

    model: str
    base_url: str
    timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS
    temperature: float = 0.0

    @classmethod
    def from_environment(cls, model: str, base_url: str | None = None, *,
                         timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS,
                         environ: Mapping[str, str] | None = None) -> ModelEndpoint:
        """Resolve the base URL (argument, then ``OPENAI_BASE_URL``) and check a key is at hand."""
        url = resolve_base_url(base_url, environ)
        resolve_api_key(url, environ)
        return cls(model=model, base_url=url, timeout_seconds=timeout_seconds)


def status_message(error: Any) -> str:
    body = getattr(error, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        message = inner.get("message") if isinstance(inner, dict) else inner
        if message:
            return str(message)
    return str(getattr(error, "message", "") or error)


def message_content(completion: Any, url: str) -> str:
    choices = getattr(completion, "choices", None)
    if not choices:
        raise ModelCallError("malformed_response", f"{url} sent a completion without choices")
    message = getattr(choices[0], "message", None)
    content = getattr(message, "content", None)
    if not isinstance(content, str) or not content.strip():
        raise ModelCallError("malformed_response", f"{url} sent an empty message "
                             f"(finish_reason {getattr(choices[0], 'finish_reason', None)!r})")
    return content


def usage_of(completion: Any) -> dict[str, int | None]:
    usage = getattr(completion, "usage", None)
    return {name: getattr(usage, name, None)
            for name in ("prompt_tokens", "completion_tokens", "total_tokens")}
