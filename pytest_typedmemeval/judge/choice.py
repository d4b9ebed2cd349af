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
DEFAULT_JUDGE_MAX_TOKENS = 512
"""``--tme-judge-max-tokens``'s default: a verdict is a short JSON object, but small local models
write a long reason first (the model-call layer's 256 for the agents cut some off; J13.14)."""
DEFAULT_MIN_AGREEMENT = 0.9
"""``--tme-judge-min-agreement``'s default (docs/JUDGING.md J13.14)."""
MIN_AGREEMENT_COMPARED = 20
"""The bound is evaluated over at least this many answers both judges graded; fewer is reported as
not evaluated (one disagreement in five is not a judge that reads a fifth of answers wrongly)."""


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
    min_agreement: float = DEFAULT_MIN_AGREEMENT
    """``--tme-judge-min-agreement``: a model-judged session whose mechanical and model judges agree
    on fewer of the answers both graded fails (J13.14); not part of the fingerprint."""
    max_tokens: int = DEFAULT_JUDGE_MAX_TOKENS
    """``--tme-judge-max-tokens``: the budget of one verdict; a verdict cut off by it is asked once
    more with twice the budget before it is ``error`` (J13.14). Not part of the fingerprint."""

    @classmethod
    def parse(cls, mode: str, model: str | None, base_url: str | None,
              timeout_seconds: float | None = None,
              min_agreement: float | str | None = None,
              max_tokens: int | str | None = None) -> JudgeChoice:
        """Validate raw option values (ini values arrive unchecked by argparse)."""
        folded = mode.strip().lower()
        if folded not in JUDGE_MODES:
            raise JudgeChoiceError(f"--tme-judge {mode!r}: expected one of {', '.join(JUDGE_MODES)}")
        bound = DEFAULT_MIN_AGREEMENT
        if min_agreement not in (None, ""):
            try:
                bound = float(min_agreement)  # type: ignore[arg-type]
            except ValueError:
                bound = -1.0
            if not 0.0 <= bound <= 1.0:
                raise JudgeChoiceError(f"--tme-judge-min-agreement {min_agreement!r}: expected a rate "
                                       "in [0, 1]")
        budget = DEFAULT_JUDGE_MAX_TOKENS
        if max_tokens not in (None, ""):
            try:
                budget = int(max_tokens)  # type: ignore[arg-type]
            except ValueError:
                budget = 0
            if budget < 1:
                raise JudgeChoiceError(f"--tme-judge-max-tokens {max_tokens!r}: expected a whole "
                                       "number of at least 1")
        return cls(mode=cast(JudgeMode, folded), model=(model or "").strip() or None,
                   base_url=(base_url or "").strip() or None,
                   timeout_seconds=timeout_seconds or DEFAULT_TIMEOUT_SECONDS, min_agreement=bound,
                   max_tokens=budget)

    def agreement_verdict(self, agreement: Mapping[str, Any] | None) -> tuple[bool | None, str | None]:
        """(passed, line) of the agreement bound: ``(None, None)`` under the mechanical judge;
        ``None`` passed (with the line saying why) when fewer than :data:`MIN_AGREEMENT_COMPARED`
        answers were graded by both; else whether the rate reaches :attr:`min_agreement`."""
        if self.mode == "mechanical":
            return None, None
        compared = int(agreement["compared"]) if agreement else 0
        if compared < MIN_AGREEMENT_COMPARED or not agreement or agreement["agreement_rate"] is None:
            return None, (f"judge agreement: NOT EVALUATED against --tme-judge-min-agreement "
                          f"{self.min_agreement:g}: {compared} answer(s) graded by both judges, fewer "
                          f"than {MIN_AGREEMENT_COMPARED}")
        rate = float(agreement["agreement_rate"])
        if rate < self.min_agreement:
            return False, (f"FAILED judge agreement: the mechanical and the model judge agree on "
                           f"{rate:.2f} of {compared} answers graded by both, below "
                           f"--tme-judge-min-agreement {self.min_agreement:g}: read the confusion "
                           "matrix in the report before trusting this run's outcomes")
        return True, (f"judge agreement: {rate:.2f} of {compared} at or above "
                      f"--tme-judge-min-agreement {self.min_agreement:g}")

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
                                         timeout_seconds=endpoint.timeout_seconds,
                                         **{"max_tokens": self.max_tokens, **guard}))

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

    def build(self, guard: Mapping[str, Any] | None = None, *, questions_loaded: int = 0) -> Judge:
        """The judge these settings name. Imports the model judge only when a mode needs it; a
        model judge calls through the run's model-call layer when ``guard`` is given.
        ``questions_loaded`` (every question of the run's corpora) sets the hybrid judge's sample
        rate (:func:`.llm.hybrid_sample_rate`)."""
        from .mechanical import MechanicalJudge

        mechanical = MechanicalJudge()
        if self.mode == "mechanical":
            return mechanical
        from ..calls.json_client import ModelClient
        from .llm import HybridJudge, LLMJudge, hybrid_sample_rate

        endpoint = self.endpoint()
        client = ModelClient(endpoint, caller=self._caller(guard), max_tokens=self.max_tokens)
        if self.mode == "llm":
            return LLMJudge(endpoint, second_opinion=mechanical, client=client)
        return HybridJudge(mechanical, LLMJudge(endpoint, client=client),
                           sample_rate=hybrid_sample_rate(questions_loaded))
