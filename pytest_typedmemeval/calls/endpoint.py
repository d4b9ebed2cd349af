"""Endpoint settings, errors and JSON replies for model calls; the JSON-verdict client of the judge.

The model-call layer itself — response cache, price table, cost ceiling, retries, concurrency —
is :mod:`.calls`. This module holds what every caller shares and what the layer is built on:

- :class:`ModelCallError`: every way a call can fail, as one type with a ``kind`` and a one-line
  reason, so callers map a broken endpoint, a refusal or the ceiling to outcome ``error``, never
  to a verdict;
- the key comes **only** from ``OPENAI_API_KEY`` (never a flag or a file, so it cannot land in
  shell history, CI logs or a committed ini); a loopback endpoint without one gets a placeholder,
  because local servers (llama.cpp, vLLM, Ollama) ignore the key but the client insists on one;
- the base URL is the caller's, else ``OPENAI_BASE_URL``, else the client's public default;
- :class:`ModelClient`: one JSON-object reply per request, on top of a
  :class:`.calls.ModelCaller` (so the judge shares the run's cache and ceiling).
  ``response_format={"type": "json_object"}`` is asked for; a server that refuses the parameter
  with HTTP 400/422 is asked once more without it, and the refusal is remembered for the rest of the
  client's life (see :meth:`ModelClient.complete_json`). The caller's prompt must demand JSON on
  its own either way, and the reply is parsed and checked to be one JSON object here.

``openai`` is imported on the first call, never at import time, so the plugin stays cheap to load.
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
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
# Statuses with which OpenAI-compatible servers refuse an unsupported request parameter.
_PARAMETER_REFUSALS = (400, 422)
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL | re.IGNORECASE)

FailureKind = Literal["config", "connection", "timeout", "http_status", "malformed_response",
                      "malformed_json", "client", "ceiling", "unpriced"]


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


@dataclass(frozen=True)
class ModelReply:
    """What one call returned: the message text, the JSON object parsed from it, token usage
    (``None`` where the server did not say), and whether JSON mode was in force for the request."""

    content: str
    data: dict[str, Any]
    usage: Mapping[str, int | None] = field(default_factory=dict)
    json_mode: bool = True


def parse_json_object(content: str) -> dict[str, Any]:
    """The message as one JSON object. A single surrounding Markdown code fence is tolerated,
    because servers without JSON mode often wrap the object in one; anything else is refused."""
    text = content.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ModelCallError("malformed_json", f"the model's message is not JSON ({error.msg} at "
                             f"char {error.pos}): {_preview(content)}") from None
    if not isinstance(data, dict):
        raise ModelCallError("malformed_json", f"the model's message is JSON but not an object: "
                             f"{_preview(content)}")
    return data


def _preview(text: str, limit: int = 120) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[:limit] + "…")


class ModelClient:
    """JSON-object replies from one endpoint, through the model-call layer. Holds the
    :class:`.calls.ModelCaller` (given, to share a run's cache and ceiling, or built private:
    no cache, unpriced allowed) and whether the server refused JSON mode; closed at the end."""

    def __init__(self, endpoint: ModelEndpoint, *, environ: Mapping[str, str] | None = None,
                 caller: Any = None) -> None:
        self.endpoint = endpoint
        if caller is None:
            from .calls import ModelCaller, ModelSettings

            caller = ModelCaller(ModelSettings(
                model=endpoint.model, base_url=endpoint.base_url, temperature=endpoint.temperature,
                timeout_seconds=endpoint.timeout_seconds, allow_unpriced=True, cache_dir=None),
                environ=environ)
        self.caller = caller
        self.json_mode_refused = False
        """Set when the server refused ``response_format`` once; later requests omit it."""

    def close(self) -> None:
        self.caller.close()

    def complete_json(self, messages: Sequence[Mapping[str, str]]) -> ModelReply:
        """One request; the reply's message parsed as a JSON object.

        JSON mode is requested first. When the server answers 400/422 to a request carrying it —
        the usual way OpenAI-compatible servers refuse a parameter they do not know — the same
        request is sent once without it and, if that succeeds, JSON mode is not asked for again.
        A 400/422 that persists without the parameter is the server's real answer and is raised.
        """
        if not self.json_mode_refused:
            try:
                return self._request(messages, json_mode=True)
            except ModelCallError as error:
                if error.status not in _PARAMETER_REFUSALS:
                    raise
                first_refusal = error
            try:
                reply = self._request(messages, json_mode=False)
            except ModelCallError as error:
                if error.status in _PARAMETER_REFUSALS:
                    raise ModelCallError(error.kind, f"{error.reason} (also refused with JSON mode: "
                                         f"{first_refusal.reason})", status=error.status) from None
                raise
            self.json_mode_refused = True
            return reply
        return self._request(messages, json_mode=False)

    def _request(self, messages: Sequence[Mapping[str, str]], *, json_mode: bool) -> ModelReply:
        completion = self.caller.complete(messages, json_mode=json_mode)
        return ModelReply(content=completion.text, data=parse_json_object(completion.text),
                          usage=dict(completion.usage), json_mode=json_mode)


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
