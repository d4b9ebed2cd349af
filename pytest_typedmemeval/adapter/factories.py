"""``--tme-agent`` (and ``--tme-scenario-memory``) resolved to the factory it names.

A spec is ``module:factory`` or a built-in alias: ``reference`` (:mod:`.reference_agent`),
``reference-memory`` (the scenario benchmark's reference memory) and the ``llm-*`` aliases of
:mod:`.llm_agents`, which are not factories (the plugin builds them from the model options). Apart
from :mod:`.protocol` so that the value types import nothing, and apart from the plugin so that a
spec means the same in the plugin, the probe runner and a user's script.
"""

from __future__ import annotations

import importlib
import inspect
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

REFERENCE_AGENT_ALIAS = "reference"
REFERENCE_AGENT_SPEC = "pytest_typedmemeval.adapter.reference_agent:make_agent"


class AgentSpecError(ValueError):
    """``--tme-agent`` names nothing importable or callable."""


def is_llm_agent_alias(spec: str | None) -> bool:
    """``llm-full-context``, ``llm-bm25`` or ``llm-no-memory``: a reference LLM agent, which the
    plugin builds from the model options (``--tme-model`` ...), not from a zero-argument factory."""
    from .llm_agents import LLM_AGENT_SELECTIONS

    return spec in LLM_AGENT_SELECTIONS


def import_factory_module(module_name: str, search_dirs: Sequence[Path] = ()) -> ModuleType:
    """Import ``module_name``; when its top-level package is not on ``sys.path``, look in
    ``search_dirs`` too (the plugin passes the rootdir and the working directory, issue 22 item 5:
    ``python -m pytest`` puts the working directory on ``sys.path``, the ``pytest`` script does
    not, and a factory module beside your conftest must resolve under both). A directory that
    resolves it is appended to ``sys.path`` (never in front: it shadows nothing), so the module's
    own sibling imports resolve too. Raises :class:`ImportError` whose message says where it looked."""
    top = module_name.split(".")[0]
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as failure:
        if failure.name != top:
            raise  # the module exists, something it imports does not: its own message says what
    looked = [str(Path(d).resolve()) for d in dict.fromkeys(search_dirs)]
    for directory in looked:
        candidate = Path(directory)
        if (candidate / f"{top}.py").is_file() or (candidate / top).is_dir():
            if directory not in sys.path:
                sys.path.append(directory)
            importlib.invalidate_caches()
            return importlib.import_module(module_name)
    where = f"on sys.path and in {', '.join(looked)}" if looked else "on sys.path"
    raise ModuleNotFoundError(f"No module named {top!r} (looked {where})", name=top)


def resolve_factory(spec: str, *, option: str, example: str, aliases: dict[str, str],
                    error: type[ValueError] = ValueError, search_dirs: Sequence[Path] = ()) -> Callable[[], Any]:
    """``module:factory`` (or one of ``aliases``) -> the callable it names, for any option that
    takes one (``--tme-agent``, ``--tme-scenario-memory``); ``error`` with a one-line reason that
    names ``option`` otherwise. The module is looked up on ``sys.path``, then in ``search_dirs``
    (:func:`import_factory_module`)."""
    resolved = aliases.get(spec, spec)
    module_name, sep, attribute = resolved.partition(":")
    if not sep or not module_name or not attribute:
        known = ", ".join(f"'{alias}'" for alias in aliases)
        raise error(f"{option} {spec!r}: expected 'module:factory' (e.g. {example!r})"
                    + (f" or {known}" if known else ""))
    try:
        module = import_factory_module(module_name, search_dirs)
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


def load_agent_factory(spec: str, search_dirs: Sequence[Path] = ()) -> Callable[[], Any]:
    """Resolve ``module:factory`` (or the aliases ``reference`` and ``reference-memory``) to a
    zero-argument callable (``search_dirs``: see :func:`import_factory_module`)."""
    if is_llm_agent_alias(spec):
        raise AgentSpecError(f"--tme-agent {spec!r} is a reference LLM agent: the pytest plugin builds "
                             "it from --tme-model and the other model options; elsewhere use "
                             "pytest_typedmemeval.adapter.llm_agents.make_llm_agent(alias, caller)")
    try:
        return resolve_factory(spec, option="--tme-agent", example="my_memory.adapter:make_agent",
                               aliases={REFERENCE_AGENT_ALIAS: REFERENCE_AGENT_SPEC,
                                        REFERENCE_MEMORY_AGENT_ALIAS: REFERENCE_MEMORY_AGENT_SPEC},
                               error=AgentSpecError, search_dirs=search_dirs)
    except AgentSpecError as error:
        if ":" not in spec and spec not in (REFERENCE_AGENT_ALIAS, REFERENCE_MEMORY_AGENT_ALIAS):
            raise AgentSpecError(f"{error}, or one of the reference LLM agents llm-full-context, "
                                 "llm-bm25, llm-no-memory") from None
        raise


PROTOCOL = "an adapter needs reset(), ingest(session) and answer(question, *, query_time, instruction)"

_CALLS: tuple[tuple[str, tuple[Any, ...], dict[str, Any], str], ...] = (
    ("reset", (), {}, "reset()"),
    ("ingest", (None,), {}, "ingest(session)"),
    ("answer", ("",), {"query_time": None, "instruction": ""}, "answer(question, *, query_time, instruction)"),
)
"""How the runner calls each method (the arguments only bound against the signature, never passed)."""


def check_agent(agent: object, origin: str) -> None:
    """Fail early, in one line, for what would fail every question the same way (issue 22, item 4):
    a missing method, a class returned instead of an instance, or a method that cannot take the
    arguments the runner passes."""
    if isinstance(agent, type):
        raise TypeError(f"{origin} returned the class {agent.__name__}, not an instance; return "
                        f"{agent.__name__}() (the fixture or factory builds the adapter)")
    missing = [name for name, *_ in _CALLS if not callable(getattr(agent, name, None))]
    if missing:
        raise TypeError(f"{origin} returned {type(agent).__name__}, which lacks {', '.join(missing)}(); "
                        + PROTOCOL)
    for name, args, kwargs, shown in _CALLS:
        try:
            signature = inspect.signature(getattr(agent, name))
        except (TypeError, ValueError):  # a builtin or C callable: nothing to check
            continue
        try:
            signature.bind(*args, **kwargs)
        except TypeError as error:
            raise TypeError(f"{origin} returned {type(agent).__name__}, whose {name}{signature} cannot be "
                            f"called as {shown} ({error}); {PROTOCOL}") from None


class AdapterFactory:
    """What a ``typedmemeval_agent`` fixture returns to give one adapter instance per question in
    flight (``--tme-parallel N``): a zero-argument callable the plugin calls once per slot (once
    in all when N = 1). A fixture that returns an adapter itself gives one instance, so N > 1 is
    refused for it: two questions answered at once on one instance would reset each other.

        @pytest.fixture(scope="session")
        def typedmemeval_agent():
            return AdapterFactory(MyAdapter)
    """

    def __init__(self, make: Callable[[], Any]) -> None:
        if not callable(make):
            raise TypeError(f"AdapterFactory takes a zero-argument callable, not {type(make).__name__}")
        self.make = make
        self.calls = 0
        self._first: Any = None

    def build(self) -> Any:
        """One fresh instance."""
        self.calls += 1
        return self.make()

    def first(self) -> Any:
        """The instance every one-at-a-time caller shares (slot 0), built on first use."""
        if self._first is None:
            self._first = self.build()
        return self._first

    def __repr__(self) -> str:
        return f"AdapterFactory({getattr(self.make, '__qualname__', self.make)!r})"
