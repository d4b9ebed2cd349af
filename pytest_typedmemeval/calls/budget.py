"""Prices, the worst case of a call, and the one spend ledger every process shares.

**Prices** are US dollars per million tokens, input and output. The built-in table covers a few
hosted models as published when it was written; the user extends or overrides it with a JSON file
(``--tme-prices PATH``)::

    {"my-model": {"input_per_million": 0.2, "output_per_million": 0.8},
     "smollm2-135m": {"input_per_million": 0, "output_per_million": 0}}

A model with no entry is *unpriced*: its calls would be counted as free and the ceiling could never
stop them, so it is refused before the first call unless the user says ``--tme-allow-unpriced``
(or writes its price, zero included, into the file: a deliberate statement that it is free).

**Pre-admission.** Before a request is sent, its worst-case cost is reserved against the ceiling:
every prompt byte counted as a token (a byte-level BPE token covers at least one byte, so this
bounds the prompt from above) plus a few tokens per message, and ``max_tokens`` of output. A call
is refused unsent when the spend already *settled* plus its own worst case crosses the ceiling.
When only other calls' open reservations stand in the way, it waits for them to settle (bounded,
:meth:`CostLedger.try_reserve`) instead of being refused for good. After the reply the reservation
is replaced by the cost of the reported usage (or kept whole when the server reports none).

What stays order-dependent under a binding ceiling: which of several requests gets the last of
the budget (the first admitted, by the ledger lock), and a request that waited past its bound is
refused on spent plus reserved, as before.

**One ledger across processes.** With a ledger path, every reserve and settle is a read-modify-write
of one small JSON file under an exclusive ``fcntl`` lock, so pytest-xdist workers given the same
path spend one budget, not one each. Without a path the ledger lives in memory (one process).
"""

from __future__ import annotations

import json
import math
import os
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .endpoint import ModelCallError

MESSAGE_OVERHEAD_TOKENS = 8
"""Role and framing tokens per chat message, generously (the wire format adds about four)."""


class Price(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    input_per_million: float = Field(ge=0)
    output_per_million: float = Field(ge=0)

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.input_per_million
                + completion_tokens * self.output_per_million) / 1_000_000


BUILT_IN_PRICES: dict[str, Price] = {
    name: Price(input_per_million=i, output_per_million=o) for name, (i, o) in {
        "gpt-4o-mini": (0.15, 0.60), "gpt-4o": (2.50, 10.00), "gpt-4.1": (2.00, 8.00),
        "gpt-4.1-mini": (0.40, 1.60), "gpt-4.1-nano": (0.10, 0.40),
    }.items()}
"""USD per million tokens as published by the vendor when this table was written; check and
override with ``--tme-prices`` before trusting a ceiling on a hosted model."""


class PriceTable:
    """Model name -> :class:`Price`: the built-in table, then the user's file over it."""

    def __init__(self, extra: Mapping[str, Price] | None = None) -> None:
        self.prices: dict[str, Price] = {**BUILT_IN_PRICES, **(extra or {})}

    @classmethod
    def load(cls, path: Path | None) -> PriceTable:
        """The table with ``path`` (JSON, see the module docstring) over the built-in one; any defect
        of the file is one line naming the file and the entry."""
        if path is None:
            return cls()
        try:
            raw = json.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as error:
            raise ModelCallError("config", f"{path}: cannot read the price table ({error.strerror})") from None
        except ValueError as error:
            raise ModelCallError("config", f"{path}: the price table is not JSON ({error})") from None
        if not isinstance(raw, dict):
            raise ModelCallError("config", f"{path}: the price table must be an object of model names")
        extra: dict[str, Price] = {}
        for name, entry in raw.items():
            try:
                extra[str(name)] = Price.model_validate(entry)
            except ValidationError as error:
                first = error.errors()[0]
                field = ".".join(str(p) for p in first["loc"]) or "entry"
                raise ModelCallError("config", f"{path}: model {name!r}, field {field}: "
                                     f"{first['msg']}") from None
        return cls(extra)

    def price_of(self, model: str) -> Price | None:
        """Exact name first, then the longest table name the model extends with ``-`` (a dated
        snapshot such as ``gpt-4o-mini-2024-07-18`` is priced as ``gpt-4o-mini``)."""
        if model in self.prices:
            return self.prices[model]
        stems = [name for name in self.prices if model.startswith(name + "-")]
        return self.prices[max(stems, key=len)] if stems else None


def worst_case_tokens(messages: Sequence[Mapping[str, Any]], max_tokens: int) -> tuple[int, int]:
    """An upper bound on (prompt, completion) tokens of one request (see the module docstring)."""
    prompt = sum(len(str(m.get("content", "")).encode("utf-8")) + MESSAGE_OVERHEAD_TOKENS
                 for m in messages)
    return prompt, max_tokens


@dataclass
class LedgerState:
    spent_usd: float = 0.0
    reserved_usd: float = 0.0
    calls: int = 0
    cache_hits: int = 0
    refused: int = 0

    def as_dict(self) -> dict[str, float | int]:
        return {"spent_usd": round(self.spent_usd, 6), "reserved_usd": round(self.reserved_usd, 6),
                "calls": self.calls, "cache_hits": self.cache_hits, "refused": self.refused}


class CostLedger:
    """Reserve, settle, release against one ceiling (see the module docstring)."""

    def __init__(self, ceiling_usd: float, path: Path | None = None) -> None:
        if not (ceiling_usd >= 0 and math.isfinite(ceiling_usd)):
            raise ModelCallError("config", f"the cost ceiling must be a finite amount >= 0, not {ceiling_usd}")
        self.ceiling_usd = ceiling_usd
        self.path = path
        self._memory = LedgerState()
        self._lock = threading.Lock()

    @contextmanager
    def _state(self) -> Iterator[LedgerState]:
        with self._lock:
            if self.path is None:
                yield self._memory
                return
            import fcntl  # POSIX; imported here so the module still imports elsewhere

            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                with os.fdopen(os.dup(fd), "r+", encoding="utf-8") as stream:
                    text = stream.read()
                    try:
                        state = LedgerState(**json.loads(text)) if text.strip() else LedgerState()
                    except (ValueError, TypeError):
                        raise ModelCallError("config", f"{self.path}: the spend ledger is damaged; "
                                             "delete it only if no run is using it") from None
                    yield state
                    stream.seek(0)
                    stream.truncate()
                    stream.write(json.dumps(state.as_dict()))
                    stream.flush()
                    os.fsync(stream.fileno())
            finally:
                os.close(fd)  # releases the lock

    def reserve(self, worst_usd: float, *, what: str) -> None:
        """Admit a call whose cost is at most ``worst_usd``, or refuse it unsent (at once, even if
        only other calls' reservations stand in the way: see :meth:`try_reserve` to wait)."""
        self.try_reserve(worst_usd, what=what, final=True)

    def try_reserve(self, worst_usd: float, *, what: str, final: bool = False,
                    waited_seconds: float = 0.0) -> bool:
        """Admit a call whose cost is at most ``worst_usd`` (True), or say it must wait (False), or
        refuse it unsent (raises ``ModelCallError("ceiling")``, the refusal counted).

        A call is refused for good only on what is *settled*: spent so far plus its own worst case
        crosses the ceiling. When it would cross only because other calls' reservations are still
        in flight — reservations that usually settle far lower — the answer is False: wait for them
        and ask again (``final`` once the wait is over: then it is refused on spent plus reserved,
        and the reason says so). So under a binding ceiling a request is not lost because another
        process's reservation happened to be open at that moment."""
        with self._state() as state:
            spent, reserved = state.spent_usd, state.reserved_usd
            if spent + reserved + worst_usd <= self.ceiling_usd + 1e-12:
                state.reserved_usd += worst_usd
                return True
            for_good = spent + worst_usd > self.ceiling_usd + 1e-12 or reserved <= 1e-12
            if not for_good and not final:
                return False
            state.refused += 1  # counted and written back before the refusal is raised
        if for_good:
            raise ModelCallError("ceiling", f"{what}: refused before sending: its worst-case cost "
                                 f"${worst_usd:.6f} on top of ${spent:.6f} spent would cross the "
                                 f"ceiling ${self.ceiling_usd:g} (--tme-max-usd)")
        waited = f", after waiting {waited_seconds:g}s for them to settle" if waited_seconds else ""
        raise ModelCallError("ceiling", f"{what}: refused before sending: its worst-case cost "
                             f"${worst_usd:.6f} on top of ${spent:.6f} spent and ${reserved:.6f} still "
                             f"reserved by requests in flight{waited} would cross the ceiling "
                             f"${self.ceiling_usd:g} (--tme-max-usd)")

    def settle(self, worst_usd: float, actual_usd: float) -> None:
        """The call was answered: replace its reservation by what it cost."""
        with self._state() as state:
            state.reserved_usd = max(0.0, state.reserved_usd - worst_usd)
            state.spent_usd += actual_usd
            state.calls += 1

    def release(self, worst_usd: float, *, billed: bool) -> None:
        """The call failed. ``billed`` (a timeout or a dropped connection: the server may have done
        the work) keeps the worst case as spent, so the ceiling errs on the safe side."""
        with self._state() as state:
            state.reserved_usd = max(0.0, state.reserved_usd - worst_usd)
            if billed:
                state.spent_usd += worst_usd
            state.calls += 1

    def count_cache_hit(self) -> None:
        with self._state() as state:
            state.cache_hits += 1

    def snapshot(self) -> dict[str, float | int]:
        with self._state() as state:
            return {"ceiling_usd": self.ceiling_usd, **state.as_dict()}


__all__ = ["BUILT_IN_PRICES", "CostLedger", "LedgerState", "MESSAGE_OVERHEAD_TOKENS", "Price",
           "PriceTable", "worst_case_tokens"]
