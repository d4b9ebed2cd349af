"""The memory under test of the scenario items: resolving ``--tme-scenario-memory`` (or the
``reference-memory`` alias) to a factory, and checking that what the factory builds has the three
calls a ScenarioMemory needs.

Apart from the items because it is the scenario side's adapter contract, with nothing of pytest in
it: a broken factory is reported by the run state (:mod:`.scenario_run`) as one failure for the run.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from .options import REFERENCE_MEMORY_ALIAS
from .options import SCENARIO_MEMORY_FIXTURE as MEMORY_FIXTURE

REFERENCE_MEMORY_SPEC = "pytest_typedmemeval.scenarios.reference_memory:make_memory"
NO_MEMORY_MESSAGE = (
    "TypedMemEval scenarios need a memory to run: pass --tme-scenario-memory module:factory (a "
    "zero-argument factory returning a fresh ScenarioMemory; use --tme-scenario-memory "
    f"{REFERENCE_MEMORY_ALIAS} for the built-in reference memory), or define a "
    f"`{MEMORY_FIXTURE}` fixture in the conftest.py at your rootdir that returns such a factory."
)
MEMORY_METHODS = ("add_message", "form", "ask")


class ScenarioMemoryError(TypeError):
    """The factory returned something that is not a ScenarioMemory."""


def load_memory_factory(spec: str, search_dirs: tuple[Path, ...] = ()) -> Callable[[], Any]:
    """Resolve ``module:factory`` (or ``reference-memory``) to a zero-argument callable, looking
    beyond ``sys.path`` in ``search_dirs``; :class:`ValueError` with a one-line reason otherwise."""
    from ..adapter.factories import resolve_factory

    return resolve_factory(spec, option="--tme-scenario-memory", example="my_memory.adapter:make_memory",
                           aliases={REFERENCE_MEMORY_ALIAS: REFERENCE_MEMORY_SPEC}, search_dirs=search_dirs)


def checked_factory(factory: Callable[[], Any], origin: str) -> Callable[[], Any]:
    """``factory`` whose every product is checked for the three required calls."""

    def make() -> Any:
        memory = factory()
        missing = [name for name in MEMORY_METHODS if not callable(getattr(memory, name, None))]
        if missing:
            raise ScenarioMemoryError(
                f"{origin} returned {type(memory).__name__}, which lacks {', '.join(m + '()' for m in missing)}; "
                "a ScenarioMemory needs add_message(session_id, text, *, at, scope), form(session_id, *, "
                "at, scope) and ask(question, *, at, scope)")
        return memory

    return make


__all__ = ["MEMORY_FIXTURE", "MEMORY_METHODS", "NO_MEMORY_MESSAGE", "REFERENCE_MEMORY_ALIAS",
           "REFERENCE_MEMORY_SPEC", "ScenarioMemoryError", "checked_factory", "load_memory_factory"]
