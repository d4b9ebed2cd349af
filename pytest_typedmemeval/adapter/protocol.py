"""The adapter protocol between TypedMemEval and the memory system under test.

The adapter sees only what a user would have said: sessions (opaque id, timestamp, turns), the
question, the moment of asking and the answer-format instruction. Labels, gold and the question id
never cross this boundary (the leak guards test exactly that).
"""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, Protocol, runtime_checkable


@dataclass(frozen=True)
class Turn:
    """One turn of a session as the adapter receives it: role and text, nothing else."""

    role: Literal["user", "assistant"]
    content: str


@dataclass(frozen=True)
class Session:
    """One conversation session. ``session_id`` is opaque: its text and order say nothing of gold."""

    session_id: str
    timestamp: datetime
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class Evidence:
    """What the system says it used, in the opaque session ids it was given.

    ``retrieved`` are the sessions the memory surfaced; ``context`` those placed in the answer
    context. Either may be ``None`` when the system cannot tell; coverage then falls back to the
    other list, or to ``null`` when neither is known (never to zero).
    """

    retrieved: tuple[str, ...] | None = None
    context: tuple[str, ...] | None = None
    contents: dict[str, str] | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Answer:
    """The system's answer text and, optionally, the evidence behind it."""

    text: str
    evidence: Evidence | None = None


@runtime_checkable
class MemoryAgent(Protocol):
    """What an adapter implements. ``ingest`` and ``answer`` may also be ``async def``.

    ``reset`` is called before every question: each question owns its haystack, so nothing may
    carry over between questions (pairs included).
    """

    def reset(self) -> None | Awaitable[None]: ...

    def ingest(self, session: Session) -> None | Awaitable[None]: ...

    def answer(
        self, question: str, *, query_time: datetime, instruction: str
    ) -> Answer | str | Awaitable[Answer | str]: ...


REFERENCE_AGENT_ALIAS = "reference"
REFERENCE_AGENT_SPEC = "pytest_typedmemeval.reference_agent:make_agent"


class AgentSpecError(ValueError):
    """``--tme-agent`` names nothing importable or callable."""


def is_llm_agent_alias(spec: str | None) -> bool:
    """``llm-full-context``, ``llm-bm25`` or ``llm-no-memory``: a reference LLM agent, which the
    plugin builds from the model options (``--tme-model`` ...), not from a zero-argument factory."""
    from .llm_agents import LLM_AGENT_SELECTIONS

    return spec in LLM_AGENT_SELECTIONS


def resolve_factory(spec: str, *, option: str, example: str, aliases: dict[str, str],
                    error: type[ValueError] = ValueError) -> Callable[[], Any]:
    """``module:factory`` (or one of ``aliases``) -> the callable it names, for any option that
    takes one (``--tme-agent``, ``--tme-scenario-memory``); ``error`` with a one-line reason that
    names ``option`` otherwise."""
    resolved = aliases.get(spec, spec)
    module_name, sep, attribute = resolved.partition(":")
    if not sep or not module_name or not attribute:
        known = ", ".join(f"'{alias}'" for alias in aliases)
        raise error(f"{option} {spec!r}: expected 'module:factory' (e.g. {example!r})"
                    + (f" or {known}" if known else ""))
    try:
        module = importlib.import_module(module_name)
    except ImportError as failure:
        raise error(f"{option} {spec!r}: cannot import module {module_name!r}: {failure}") from None
    target: Any = module
    for part in attribute.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise error(f"{option} {spec!r}: module {module_name!r} has no attribute "
                        f"{attribute!r}") from None
    if not callable(target):
        raise error(f"{option} {spec!r}: {attribute!r} is not callable")
    factory: Callable[[], Any] = target
    return factory


REFERENCE_MEMORY_AGENT_ALIAS = "reference-memory"
REFERENCE_MEMORY_AGENT_SPEC = "pytest_typedmemeval.scenarios.reference_memory:make_agent"


def load_agent_factory(spec: str) -> Callable[[], Any]:
    """Resolve ``module:factory`` (or the aliases ``reference`` and ``reference-memory``) to a
    zero-argument callable."""
    if is_llm_agent_alias(spec):
        raise AgentSpecError(f"--tme-agent {spec!r} is a reference LLM agent: the pytest plugin builds "
                             "it from --tme-model and the other model options; elsewhere use "
                             "pytest_typedmemeval.llm_agents.make_llm_agent(alias, caller)")
    try:
        return resolve_factory(spec, option="--tme-agent", example="my_memory.adapter:make_agent",
                               aliases={REFERENCE_AGENT_ALIAS: REFERENCE_AGENT_SPEC,
                                        REFERENCE_MEMORY_AGENT_ALIAS: REFERENCE_MEMORY_AGENT_SPEC},
                               error=AgentSpecError)
    except AgentSpecError as error:
        if ":" not in spec and spec not in (REFERENCE_AGENT_ALIAS, REFERENCE_MEMORY_AGENT_ALIAS):
            raise AgentSpecError(f"{error}, or one of the reference LLM agents llm-full-context, "
                                 "llm-bm25, llm-no-memory") from None
        raise


def check_agent(agent: object, origin: str) -> None:
    """Fail early with a clear message when the object lacks the protocol's methods."""
    missing = [name for name in ("reset", "ingest", "answer") if not callable(getattr(agent, name, None))]
    if missing:
        raise TypeError(f"{origin} returned {type(agent).__name__}, which lacks {', '.join(missing)}(); "
                        "an adapter needs reset(), ingest(session) and answer(question, *, query_time, "
                        "instruction)")
