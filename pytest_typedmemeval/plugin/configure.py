"""The run's options read and checked at session start: value parsers, report paths, the judge,
the model-call guard and settings, and which xdist role this process plays.

Shared by the question plugin and the scenario and dataset plugins, so each option means one thing
and is refused with one message wherever it is read. Knows pytest only as far as ``Config``,
``UsageError`` and xdist's ``workerinput`` go.
"""

from __future__ import annotations

import argparse
import math
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ._session import marker_name
from .judge.choice import JudgeChoice, JudgeChoiceError
from .model_call import DEFAULT_TIMEOUT_SECONDS

if TYPE_CHECKING:
    from ._session import TypedMemEvalSession
    from .calls import ModelSettings

DEFAULT_MAX_USD = 1.0
"""Help-text copy of :data:`.calls.settings.DEFAULT_MAX_USD` (importing ``.calls`` costs a start)."""
DEFAULT_CONCURRENCY = 4
"""Help-text copy of :data:`.calls.settings.DEFAULT_CONCURRENCY` (a test keeps the copies equal)."""
LEDGER_INPUT_KEY = "typedmemeval_ledger"
"""workerinput key: the spend ledger file every process of the run shares (one cost ceiling)."""


def parse_fail_under(text: str) -> tuple[str, float]:
    vertical, sep, bound = text.rpartition("=")
    key = marker_name(vertical) if sep else "*"
    try:
        value = float(bound)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected RATE or VERTICAL=RATE with RATE in [0, 1]") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text!r}: the rate must lie in [0, 1]")
    return key, value


def _number(text: str, convert: type[float] | type[int], expected: str, accept: Callable[[float], bool],
            problem: str) -> Any:
    """``text`` converted, or one ``ArgumentTypeError`` that says what was expected."""
    try:
        value = convert(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected {expected}") from None
    if not accept(value):
        raise argparse.ArgumentTypeError(f"{text!r}: {problem}")
    return value


def parse_timeout(text: str) -> float:
    return float(_number(text, float, "seconds as a number", lambda value: value > 0,
                         "the timeout must be positive"))


def parse_usd(text: str) -> float:
    return float(_number(text, float, "US dollars as a number",
                         lambda value: math.isfinite(value) and value >= 0,
                         "the ceiling must be a finite amount >= 0"))


def parse_positive_int(text: str) -> int:
    return int(_number(text, int, "a whole number", lambda value: value >= 1, "must be at least 1"))


def check_report_path(path: Path, given: str, *, flag: str = "--tme-report",
                       example: str = "typedmemeval-report.json") -> None:
    """Refuse an unwritable report path before the run, not after it (the run's results would be
    computed and then lost)."""
    if path.is_dir():
        raise pytest.UsageError(f"{flag} {given}: is a directory; name a file in it, e.g. "
                                f"{flag} {Path(given) / example}")
    ancestor = path.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise pytest.UsageError(f"{flag} {given}: {ancestor} is a file, so no report can be written "
                                "below it; choose another path")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise pytest.UsageError(f"{flag} {given}: the directory {ancestor} is not writable; "
                                "choose another path")


def judge_choice(config: pytest.Config) -> JudgeChoice:
    """The --tme-judge settings (flags over ini), checked now: a model mode without a model or
    without a usable key is one usage error at session start, not an error per question."""
    try:
        choice = JudgeChoice.parse(
            config.getoption("tme_judge") or config.getini("typedmemeval_judge") or "mechanical",
            config.getoption("tme_judge_model") or config.getini("typedmemeval_judge_model"),
            config.getoption("tme_judge_base_url") or config.getini("typedmemeval_judge_base_url"),
            config.getoption("tme_judge_timeout"),
        )
        choice.check()
    except JudgeChoiceError as error:
        raise pytest.UsageError(f"TypedMemEval judge: {error}") from None
    return choice


def configure_models(config: pytest.Config, session: TypedMemEvalSession) -> None:
    """Settle what calls a model in this run — an ``llm-*`` agent, a model judge, or both — and
    the one spend ledger they share.

    The controller (or a run without xdist) makes one ledger file per run and checks the settings
    once — no model, no key for a remote endpoint, an unpriced model, a bad price file are each one
    usage error now, not an error per question. Workers take the ledger path from ``workerinput``
    so every process, agent and judge alike, reserves against the same ceiling.
    """
    from .agent import is_llm_agent_alias

    uses_agent = bool(session.agent_spec) and is_llm_agent_alias(session.agent_spec or "")
    uses_judge = session.judge_choice.mode != "mechanical"
    if not (uses_agent or uses_judge):
        return
    worker = is_worker(config)
    if worker:
        ledger = config.workerinput.get(LEDGER_INPUT_KEY)  # type: ignore[attr-defined]
        if not ledger:
            raise pytest.UsageError("TypedMemEval: this xdist worker was given no shared spend ledger, "
                                    "so the cost ceiling could not hold across workers")
        session.ledger_path = Path(ledger)
    else:
        session.ledger_dir = Path(tempfile.mkdtemp(prefix="typedmemeval-ledger-"))
        session.ledger_path = session.ledger_dir / "ledger.json"
    guard = model_guard(config, session.ledger_path)
    if uses_agent:
        session.model_settings = model_settings(config, session.agent_spec or "", guard,
                                                 check=not worker)
    if uses_judge:
        session.judge_guard = guard
        if not worker:
            try:
                session.judge_choice.check(guard)
            except JudgeChoiceError as error:
                raise pytest.UsageError(f"TypedMemEval judge: {error}") from None


def model_guard(config: pytest.Config, ledger_path: Path) -> dict[str, Any]:
    """The run's guard on every model call (flags over ini): the ceiling and its ledger, the
    unpriced allowance, the price file, the cache, the concurrency — the
    :class:`~.calls.ModelSettings` fields that are not about which model answers."""
    from .calls import default_cache_dir

    max_usd = config.getoption("tme_max_usd")
    if max_usd is None:
        ini_usd = config.getini("typedmemeval_max_usd").strip()
        try:
            max_usd = parse_usd(ini_usd) if ini_usd else DEFAULT_MAX_USD
        except argparse.ArgumentTypeError as error:
            raise pytest.UsageError(f"TypedMemEval: ini typedmemeval_max_usd {error}") from None
    here = config.invocation_params.dir
    cache_dir: Path | None = None
    if not config.getoption("tme_no_cache"):
        given = config.getoption("tme_cache_dir")
        cache_dir = Path(here, given).resolve() if given else default_cache_dir()
    prices = config.getoption("tme_prices")
    return {"max_usd": max_usd, "allow_unpriced": bool(config.getoption("tme_allow_unpriced")),
            "cache_dir": cache_dir, "prices_path": Path(here, prices).resolve() if prices else None,
            "ledger_path": ledger_path,
            "concurrency": config.getoption("tme_concurrency") or DEFAULT_CONCURRENCY}


def model_settings(config: pytest.Config, spec: str, guard: dict[str, Any], *,
                    check: bool = False) -> ModelSettings:
    """The ``llm-*`` agent's model options (flags over ini) under the run's ``guard``; ``check``
    refuses now what would refuse every call, as one usage error with the layer's reason."""
    from .calls import ModelCaller, ModelSettings
    from .model_call import ModelCallError

    model = (config.getoption("tme_model") or config.getini("typedmemeval_model") or "").strip()
    if not model:
        raise pytest.UsageError(f"TypedMemEval: --tme-agent {spec} needs a model: pass --tme-model NAME "
                                "(or set typedmemeval_model in the ini file)")
    base_url = (config.getoption("tme_base_url") or config.getini("typedmemeval_base_url") or "").strip()
    try:
        settings = ModelSettings.resolve(
            model, base_url or None, **guard,
            timeout_seconds=config.getoption("tme_model_timeout") or DEFAULT_TIMEOUT_SECONDS)
        if check:
            ModelCaller(settings).check()
    except ModelCallError as error:
        raise pytest.UsageError(f"TypedMemEval --tme-agent {spec}: {error.reason}") from None
    return settings


def is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def is_xdist_controller(config: pytest.Config) -> bool:
    return (config.pluginmanager.hasplugin("xdist") and not is_worker(config)
            and bool(getattr(config.option, "numprocesses", None)))
