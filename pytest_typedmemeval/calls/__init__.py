"""The model-call layer (issue 10): one :class:`ModelCaller` with a response cache, a price table,
a cost ceiling shared across processes, retries for transient faults and bounded concurrency.

Everything in TypedMemEval that calls a model goes through it: the reference LLM agents, the probe
runner and the LLM judge. Importing this package does not import ``openai``.
"""

from .budget import CostLedger, Price, PriceTable
from .cache import ResponseCache, request_key
from .caller import Completion, Messages, ModelCaller
from .settings import ModelSettings, default_cache_dir

__all__ = ["Completion", "CostLedger", "Messages", "ModelCaller", "ModelSettings", "Price",
           "PriceTable", "ResponseCache", "default_cache_dir", "request_key"]
