"""Package names imported on first use (PEP 562), for the package root, ``corpus`` and ``calls``.

pytest imports the package for the plugin entry point in every run, enabled or not; a run that
collects from pytest's cache never needs pydantic or the record models. So public names resolve to
their home module only when first looked up.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from typing import Any


def lazy_exports(package: str, homes: Mapping[str, str], public: Iterable[str],
                 own: Callable[[], Mapping[str, Any]]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module-level ``__getattr__`` and ``__dir__`` of ``package``: ``homes`` maps each name to
    the (relative) module it lives in; ``own`` returns the package's own globals."""
    names = tuple(public)

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        # Not cached in the package's globals: a cached class would outlive its module when a test
        # harness (pytester's in-process runs) restores sys.modules, and an adapter built from the
        # stale class would fail the run's isinstance checks. The lookup is one dict access.
        return getattr(importlib.import_module(home, package), name)

    def __dir__() -> list[str]:
        return sorted(set(own()) | set(names))

    return __getattr__, __dir__
