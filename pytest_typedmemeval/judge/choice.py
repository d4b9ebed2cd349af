"""Which built-in judge grades a run (``--tme-judge``), as plain settings, and building it.

Kept apart from the plugin so the settings can be checked at session start — a missing model or
API key is one usage error, not one ``error`` per question — and apart from :mod:`.llm` so that
checking them never imports the model judge (nor, through it, anything heavy).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, cast

from ..calls.endpoint import DEFAULT_TIMEOUT_SECONDS, ModelCallError, ModelEndpoint

if TYPE_CHECKING:
    from .protocol import Judge

JudgeMode = Literal["mechanical", "llm", "hybrid"]
JUDGE_MODES: tuple[JudgeMode, ...] = ("mechanical", "llm", "hybrid")


class JudgeChoiceError(ValueError):
    """The judge options do not make a judge; the message names the option to fix."""


@dataclass(frozen=True)
class JudgeChoice:
    """``mode``, plus the model and endpoint the ``llm`` and ``hybrid`` modes need.

    ``base_url`` is what the user gave (flag or ini); ``None`` means ``OPENAI_BASE_URL``, then the
    public API. The API key is never a setting: it is read from ``OPENAI_API_KEY`` only.
    """

    mode: JudgeMode = "mechanical"
    model: str | None = None
    base_url: str | None = None
    timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS
    """Per request attempt (``--tme-judge-timeout``); not part of the judge's fingerprint."""

    @classmethod
    def parse(cls, mode: str, model: str | None, base_url: str | None,
              timeout_seconds: float | None = None) -> JudgeChoice:
        """Validate raw option values (ini values arrive unchecked by argparse)."""
        folded = mode.strip().lower()
        if folded not in JUDGE_MODES:
            raise JudgeChoiceError(f"--tme-judge {mode!r}: expected one of {', '.join(JUDGE_MODES)}")
        return cls(mode=cast(JudgeMode, folded), model=(model or "").strip() or None,
                   base_url=(base_url or "").strip() or None,
                   timeout_seconds=timeout_seconds or DEFAULT_TIMEOUT_SECONDS)

    def endpoint(self) -> ModelEndpoint:
        """The model endpoint, checked: a model is named and a key is at hand (or not needed)."""
        if self.model is None:
            raise JudgeChoiceError(f"--tme-judge {self.mode} needs a model: pass --tme-judge-model NAME "
                                   "(or set typedmemeval_judge_model in the ini file)")
        try:
            return ModelEndpoint.from_environment(self.model, self.base_url,
                                                  timeout_seconds=self.timeout_seconds)
        except ModelCallError as error:
            raise JudgeChoiceError(f"--tme-judge {self.mode}: {error.reason}") from None

    def _caller(self, guard: Mapping[str, Any] | None) -> Any:
        """The judge's :class:`..calls.ModelCaller` under the run's ``guard`` (ceiling, ledger,
        cache, prices: the fields of :class:`..calls.ModelSettings` that are not the model's), or
        ``None`` without one (a private caller: no cache, no ceiling; library use only)."""
        if guard is None:
            return None
        from ..calls import ModelCaller, ModelSettings

        endpoint = self.endpoint()
        return ModelCaller(ModelSettings(model=endpoint.model, base_url=endpoint.base_url,
                                         temperature=endpoint.temperature,
                                         timeout_seconds=endpoint.timeout_seconds, **guard))

    def check(self, guard: Mapping[str, Any] | None = None) -> None:
        """Raise :class:`JudgeChoiceError` now rather than at the first question: no model, no
        key for a remote endpoint, or (under a run's guard) an unpriced model not allowed."""
        if self.mode == "mechanical":
            return
        self.endpoint()
        caller = self._caller(guard)
        if caller is not None:
            try:
                caller.check()
            except ModelCallError as error:
                raise JudgeChoiceError(f"--tme-judge {self.mode}: {error.reason}") from None

    def build(self, guard: Mapping[str, Any] | None = None) -> Judge:
        """The judge these settings name. Imports the model judge only when a mode needs it; a
        model judge calls through the run's model-call layer when ``guard`` is given."""
        from .mechanical import MechanicalJudge

        mechanical = MechanicalJudge()
        if self.mode == "mechanical":
            return mechanical
        from ..calls.json_client import ModelClient
        from .llm import HybridJudge, LLMJudge

        endpoint = self.endpoint()
        client = ModelClient(endpoint, caller=self._caller(guard))
        if self.mode == "llm":
            return LLMJudge(endpoint, second_opinion=mechanical, client=client)
        return HybridJudge(mechanical, LLMJudge(endpoint, client=client))
