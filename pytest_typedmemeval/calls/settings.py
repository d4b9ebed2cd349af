"""What a model call is made with: the settings that decide a reply, and the guards around it.

One frozen object travels from the command line (``--tme-model``, ``--tme-base-url``, ...) or the
``typedmemeval probe`` flags to :class:`.caller.ModelCaller`, so every caller (reference LLM agents,
the probe runner, the LLM judge) runs under the same cache, ceiling and retry rules. Fields that
change what the model says (model, base URL, temperature, max tokens, seed) are in the cache key;
fields that only guard the call (ceiling, concurrency, timeout) are not.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .endpoint import DEFAULT_TIMEOUT_SECONDS, is_local_endpoint, resolve_api_key, resolve_base_url

DEFAULT_MAX_USD = 1.0
"""The ceiling when the user names none: small enough that a mistake costs little, large enough
for a probe pass of one vertical on a small hosted model. Raise it deliberately with --tme-max-usd."""
DEFAULT_MAX_TOKENS = 256
"""Answers are a line; a verdict is a few dozen tokens. It is also the output half of the
worst-case cost every call is admitted against."""
DEFAULT_CONCURRENCY = 4
LOCAL_CONCURRENCY = 1
"""The default bound for a server of one's own (:func:`.endpoint.is_local_endpoint`): llama.cpp and
Ollama compute one request at a time unless started otherwise, and a queued request spends its
timeout waiting for the others (issue 22, item 10). Raise it when the server has parallel slots."""


def default_concurrency(base_url: str) -> int:
    """Requests in flight when the user names no bound: one for a local server, else four."""
    return LOCAL_CONCURRENCY if is_local_endpoint(base_url) else DEFAULT_CONCURRENCY
CACHE_DIR_ENV = "TYPEDMEMEVAL_CACHE_DIR"


def default_cache_dir() -> Path:
    """``$TYPEDMEMEVAL_CACHE_DIR``, else ``$XDG_CACHE_HOME/pytest-typedmemeval/model-calls``, else
    ``~/.cache/...``: outside the project, so a clean checkout still reuses paid-for replies."""
    explicit = os.environ.get(CACHE_DIR_ENV)
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pytest-typedmemeval" / "model-calls"


@dataclass(frozen=True)
class ModelSettings:
    """Everything :class:`.caller.ModelCaller` needs; build with :meth:`resolve`."""

    model: str
    base_url: str
    temperature: float = 0.0
    max_tokens: int = DEFAULT_MAX_TOKENS
    seed: int | None = 0
    timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS
    concurrency: int = DEFAULT_CONCURRENCY
    max_usd: float = DEFAULT_MAX_USD
    allow_unpriced: bool = False
    cache_dir: Path | None = None
    """``None`` disables the cache (every call goes to the server)."""
    prices_path: Path | None = None
    """A JSON file extending the built-in price table (see :mod:`.budget`)."""
    ledger_path: Path | None = None
    """The shared spend ledger; processes given the same path share one ceiling (xdist workers).
    ``None``: a private ledger in memory, for one process."""
    local_endpoint: bool | None = None
    """Whether the server is one's own (timeouts are then re-sent only once it shows it finished
    the abandoned request, :mod:`.inflight`); ``None``: decided from ``base_url``."""

    @property
    def is_local(self) -> bool:
        return is_local_endpoint(self.base_url) if self.local_endpoint is None else self.local_endpoint

    @classmethod
    def resolve(cls, model: str, base_url: str | None = None, **fields: object) -> ModelSettings:
        """Resolve the base URL (argument, then ``OPENAI_BASE_URL``) and check a key is at hand,
        so a missing key is one usage error at start, not one error per call."""
        url = resolve_base_url(base_url)
        resolve_api_key(url)
        return cls(model=model, base_url=url, **fields)  # type: ignore[arg-type]

    def describe(self) -> dict[str, object]:
        """What a report says about the model that answered (never the key)."""
        return {"model": self.model, "base_url": self.base_url, "temperature": self.temperature,
                "max_tokens": self.max_tokens, "seed": self.seed, "max_usd": self.max_usd}


__all__ = ["CACHE_DIR_ENV", "DEFAULT_CONCURRENCY", "DEFAULT_MAX_TOKENS", "DEFAULT_MAX_USD",
           "LOCAL_CONCURRENCY", "ModelSettings", "default_cache_dir", "default_concurrency"]
