"""The model-call layer (issue 10): one :class:`ModelCaller` with a response cache, a price table,
a cost ceiling shared across processes, retries for transient faults and bounded concurrency.

Everything in TypedMemEval that calls a model goes through it: the reference LLM agents, the probe
runner and the LLM judge (through :mod:`.json_client`). :mod:`.endpoint` is what they all share:
the endpoint settings, the API key and :class:`~.endpoint.ModelCallError`.

The names below are imported on first use (PEP 562): the plugin reads the layer's defaults from
:mod:`.endpoint` at every pytest start, and that must not import pydantic (the price table and the
ledger) with it. Importing this package does not import ``openai`` either.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from .budget import CostLedger, Price, PriceTable
    from .cache import ResponseCache, request_key
    from .caller import Completion, Messages, ModelCaller
    from .settings import ModelSettings, default_cache_dir

_HOMES = {
    "CostLedger": ".budget", "Price": ".budget", "PriceTable": ".budget",
    "ResponseCache": ".cache", "request_key": ".cache",
    "Completion": ".caller", "Messages": ".caller", "ModelCaller": ".caller",
    "ModelSettings": ".settings", "default_cache_dir": ".settings",
}

__all__ = ["Completion", "CostLedger", "Messages", "ModelCaller", "ModelSettings", "Price",
           "PriceTable", "ResponseCache", "default_cache_dir", "request_key"]

__getattr__, __dir__ = lazy_exports(__name__, _HOMES, __all__, lambda: globals())
