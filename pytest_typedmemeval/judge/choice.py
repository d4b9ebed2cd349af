"""Which built-in judge grades a run (``--tme-judge``), as plain settings, and building it.

Kept apart from the plugin so the settings can be checked at session start — a missing model or
API key is one usage error, not one ``error`` per question — and apart from :mod:`.llm` so that
checking them never imports the model judge (nor, through it, anything heavy).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, cast

from ..model_call import ModelCallError, ModelEndpoint

if TYPE_CHECKING:
    from ..run import Judge

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

    @classmethod
    def parse(cls, mode: str, model: str | None, base_url: str | None) -> JudgeChoice:
        """Validate raw option values (ini values arrive unchecked by argparse)."""
        folded = mode.strip().lower()
        if folded not in JUDGE_MODES:
            raise JudgeChoiceError(f"--tme-judge {mode!r}: expected one of {', '.join(JUDGE_MODES)}")
        return cls(mode=cast(JudgeMode, folded), model=(model or "").strip() or None,
                   base_url=(base_url or "").strip() or None)

    def endpoint(self) -> ModelEndpoint:
        """The model endpoint, checked: a model is named and a key is at hand (or not needed)."""
        if self.model is None:
            raise JudgeChoiceError(f"--tme-judge {self.mode} needs a model: pass --tme-judge-model NAME "
                                   "(or set typedmemeval_judge_model in the ini file)")
        try:
            return ModelEndpoint.from_environment(self.model, self.base_url)
        except ModelCallError as error:
            raise JudgeChoiceError(f"--tme-judge {self.mode}: {error.reason}") from None

    def check(self) -> None:
        """Raise :class:`JudgeChoiceError` now rather than at the first question."""
        if self.mode != "mechanical":
            self.endpoint()

    def build(self) -> Judge:
        """The judge these settings name. Imports the model judge only when a mode needs it."""
        from .mechanical import MechanicalJudge

        mechanical = MechanicalJudge()
        if self.mode == "mechanical":
            return mechanical
        from .llm import HybridJudge, LLMJudge

        endpoint = self.endpoint()
        if self.mode == "llm":
            return LLMJudge(endpoint, second_opinion=mechanical)
        return HybridJudge(mechanical, LLMJudge(endpoint))
