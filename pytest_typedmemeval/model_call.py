"""The one seam through which TypedMemEval calls a model: one chat-completions request to an
OpenAI-compatible endpoint, returning a JSON object, or raising :class:`ModelCallError`.

Why a seam: the judge (and, later, a model-driven reference agent) must not each grow their own
client handling. A later issue grows this module into the full model-call layer (cache, retries,
a cost ceiling); until then it stays deliberately small:

- ``openai`` is imported on the first call, never at import time, so the plugin stays cheap to load;
- the key comes **only** from ``OPENAI_API_KEY`` (never a flag or a file, so it cannot land in
  shell history, CI logs or a committed ini); a loopback endpoint without one gets a placeholder,
  because local servers (llama.cpp, vLLM, Ollama) ignore the key but the client insists on one;
- the base URL is the caller's, else ``OPENAI_BASE_URL``, else the client's public default;
- temperature 0 and a request timeout; no client-side retries (``max_retries=0``): retries belong
  to the later layer, where they can be counted and bounded, and a silent retry would make
  request counts in tests depend on timing;
- ``response_format={"type": "json_object"}`` is asked for; a server that refuses the parameter
  with HTTP 400/422 is asked once more without it, and the refusal is remembered for the rest of the
  client's life (see :meth:`ModelClient.complete_json`). The caller's prompt must demand JSON on
  its own either way, and the reply is parsed and checked to be one JSON object here;
- every failure — connection refused, timeout, HTTP status, a body or a message that is not the
  JSON expected — is one :class:`ModelCallError` with a one-line reason, so callers map a broken
  endpoint to a harness fault (outcome ``error``), never to a verdict.
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
    """Sends chat-completions requests to one endpoint. Holds the ``openai`` client (built on first
    use) and whether the server refused JSON mode; one instance per process, closed at its end."""

    def __init__(self, endpoint: ModelEndpoint, *, environ: Mapping[str, str] | None = None) -> None:
        self.endpoint = endpoint
        self._environ = environ
        self._client: Any = None
        self.json_mode_refused = False
        """Set when the server refused ``response_format`` once; later requests omit it."""

    def _openai(self) -> Any:
        if self._client is None:
            import openai  # lazily: importing the plugin must never import openai

            self._client = openai.OpenAI(
                api_key=resolve_api_key(self.endpoint.base_url, self._environ),
                base_url=self.endpoint.base_url, timeout=self.endpoint.timeout_seconds, max_retries=0,
            )
        return self._client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

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
        import openai

        client = self._openai()
        url = self.endpoint.base_url
        extra: dict[str, Any] = {"response_format": dict(JSON_RESPONSE_FORMAT)} if json_mode else {}
        try:
            completion = client.chat.completions.create(
                model=self.endpoint.model, messages=[dict(m) for m in messages],
                temperature=self.endpoint.temperature, **extra,
            )
        except openai.APITimeoutError:
            raise ModelCallError("timeout", f"no reply from {url} within "
                                 f"{self.endpoint.timeout_seconds:g}s") from None
        except openai.APIConnectionError as error:
            cause = error.__cause__ or error
            raise ModelCallError("connection", f"cannot reach {url}: {cause}") from None
        except openai.APIStatusError as error:
            raise ModelCallError("http_status", f"HTTP {error.status_code} from {url}: "
                                 f"{status_message(error)}", status=error.status_code) from None
        except (ValueError, TypeError, KeyError, AttributeError, openai.APIResponseValidationError) as error:
            # The client could not even read the body (not JSON, or not a completion).
            raise ModelCallError("malformed_response", f"{url} sent a reply that is not a chat "
                                 f"completion ({type(error).__name__}: {error})") from None
        except openai.OpenAIError as error:
            raise ModelCallError("client", f"{type(error).__name__} calling {url}: {error}") from None
        content = message_content(completion, url)
        return ModelReply(content=content, data=parse_json_object(content),
                          usage=usage_of(completion), json_mode=json_mode)


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
