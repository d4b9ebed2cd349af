"""JSON-object replies from one model endpoint: the client the LLM judge grades with.

On top of a :class:`.caller.ModelCaller` (so the judge shares the run's cache and ceiling).
``response_format={"type": "json_object"}`` is asked for; a server that refuses the parameter
with HTTP 400/422 is asked once more without it, and the refusal is remembered for the rest of the
client's life (see :meth:`ModelClient.complete_json`). The caller's prompt must demand JSON on
its own either way, and the reply is parsed and checked to be one JSON object here.

``openai`` is imported on the first call, never at import time, so the plugin stays cheap to load.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .endpoint import ModelCallError, ModelEndpoint

# Statuses with which OpenAI-compatible servers refuse an unsupported request parameter.
_PARAMETER_REFUSALS = (400, 422)
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL | re.IGNORECASE)


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
    :class:`.caller.ModelCaller` (given, to share a run's cache and ceiling, or built private:
    no cache, unpriced allowed) and whether the server refused JSON mode; closed at the end."""

    def __init__(self, endpoint: ModelEndpoint, *, environ: Mapping[str, str] | None = None,
                 caller: Any = None, max_tokens: int | None = None) -> None:
        self.endpoint = endpoint
        if caller is None:
            from .caller import ModelCaller
            from .settings import ModelSettings

            caller = ModelCaller(ModelSettings(
                model=endpoint.model, base_url=endpoint.base_url, temperature=endpoint.temperature,
                timeout_seconds=endpoint.timeout_seconds, allow_unpriced=True, cache_dir=None,
                **({} if max_tokens is None else {"max_tokens": max_tokens})), environ=environ)
        self.caller = caller
        self.json_mode_refused = False
        """Set when the server refused ``response_format`` once; later requests omit it."""

    def close(self) -> None:
        self.caller.close()

    def complete_json(self, messages: Sequence[Mapping[str, str]], *,
                      max_tokens: int | None = None) -> ModelReply:
        """One request; the reply's message parsed as a JSON object.

        JSON mode is requested first. When the server answers 400/422 to a request carrying it —
        the usual way OpenAI-compatible servers refuse a parameter they do not know — the same
        request is sent once without it and, if that succeeds, JSON mode is not asked for again.
        A 400/422 that persists without the parameter is the server's real answer and is raised.
        """
        if not self.json_mode_refused:
            try:
                return self._request(messages, json_mode=True, max_tokens=max_tokens)
            except ModelCallError as error:
                if error.status not in _PARAMETER_REFUSALS:
                    raise
                first_refusal = error
            try:
                reply = self._request(messages, json_mode=False, max_tokens=max_tokens)
            except ModelCallError as error:
                if error.status in _PARAMETER_REFUSALS:
                    raise ModelCallError(error.kind, f"{error.reason} (also refused with JSON mode: "
                                         f"{first_refusal.reason})", status=error.status) from None
                raise
            self.json_mode_refused = True
            return reply
        return self._request(messages, json_mode=False, max_tokens=max_tokens)

    @property
    def max_tokens(self) -> int:
        """The caller's budget for a message (``max_tokens`` of every request not overriding it)."""
        return int(self.caller.settings.max_tokens)

    def _request(self, messages: Sequence[Mapping[str, str]], *, json_mode: bool,
                 max_tokens: int | None = None) -> ModelReply:
        completion = self.caller.complete(messages, json_mode=json_mode, max_tokens=max_tokens)
        try:
            data = parse_json_object(completion.text)
        except ModelCallError as error:
            budget = self.max_tokens if max_tokens is None else max_tokens
            used = completion.usage.get("completion_tokens")
            if completion.finish_reason == "length" or (used is not None and used >= budget):
                raise ModelCallError("truncated", f"the message was cut off at the {budget}-token "
                                     f"budget before it was complete JSON ({error.reason})") from None
            raise
        return ModelReply(content=completion.text, data=data, usage=dict(completion.usage),
                          json_mode=json_mode)
