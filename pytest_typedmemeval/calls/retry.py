"""Which failures are worth another attempt, and how long to wait first.

Transient: HTTP 429 and 5xx, a timeout, a refused or dropped connection (a truncated body reads as
one). Everything else — 4xx (a wrong model name is a 404, a bad request a 400), a reply that is not
a chat completion, the ceiling, an unpriced model — is the same on every attempt, so it is never
retried. Waits are deterministic (no jitter: nothing here may read a random source): exponential
from :data:`BASE_DELAY` up to :data:`MAX_DELAY`, or the server's ``Retry-After`` when it gives one;
a ``Retry-After`` beyond :data:`MAX_RETRY_AFTER` gives up at once with that reason rather than
stalling a test run. After :data:`BREAKER_AFTER` calls in a row gave up, a caller makes one
attempt per call until one succeeds.
"""

from __future__ import annotations

from email.utils import parsedate_to_datetime
from datetime import datetime, timezone

from .endpoint import ModelCallError

MAX_ATTEMPTS = 4
BASE_DELAY = 0.5
MAX_DELAY = 8.0
MAX_RETRY_AFTER = 60.0
BREAKER_AFTER = 3
"""Consecutive give-ups after which a caller stops retrying (one attempt per call) until a call
succeeds: the endpoint is down, and backing off on every question would stall the run."""


def is_transient(error: ModelCallError) -> bool:
    if error.kind in ("timeout", "connection"):
        return True
    return error.kind == "http_status" and error.status is not None and (
        error.status == 429 or 500 <= error.status <= 599)


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds or an HTTP date), ``None`` if absent
    or unreadable. ``now`` is only read for the date form, which servers rarely send."""
    if not value:
        return None
    text = value.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    reference = now or datetime.now(timezone.utc)
    return max(0.0, (when - reference).total_seconds())


def delay_before(attempt: int, error: ModelCallError) -> float:
    """Seconds to wait before attempt ``attempt + 1`` (``attempt`` counts from 1)."""
    if error.retry_after is not None:
        return error.retry_after
    return min(MAX_DELAY, BASE_DELAY * 2 ** (attempt - 1))


def should_retry(attempt: int, error: ModelCallError) -> tuple[bool, str]:
    """(retry?, why not) after attempt ``attempt`` failed with ``error``."""
    if not is_transient(error):
        return False, "not a transient fault"
    if attempt >= MAX_ATTEMPTS:
        return False, f"gave up after {attempt} attempts"
    if error.retry_after is not None and error.retry_after > MAX_RETRY_AFTER:
        return False, f"the server asked to wait {error.retry_after:g}s (more than {MAX_RETRY_AFTER:g}s)"
    return True, ""


__all__ = ["BASE_DELAY", "BREAKER_AFTER", "MAX_ATTEMPTS", "MAX_DELAY", "MAX_RETRY_AFTER", "delay_before",
           "is_transient", "parse_retry_after", "should_retry"]
