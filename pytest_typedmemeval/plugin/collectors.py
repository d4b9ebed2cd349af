"""The collector every item kind of the plugin shares: a ``pytest.Module`` over a path that is not
a file, whose one test function the plugin owns.

Each corpus, gate set, scenario corpus or dataset is collected as such a module at a path under
the rootdir (``<rootdir>/typedmemeval/<corpus id>``, ``<rootdir>/dataset/<name>`` ...): readable
node ids, ``--lf`` finds the items again, syrupy puts snapshots beside that path, and every item is
an ordinary ``pytest.Function`` (fixtures, ``-k``, ``-m``, junitxml, xdist and syrupy work without
special cases). The function is the item kind's own, defined in its module; what pytest collects
is a namespace holding that function alone, so nothing else of the item module (its hooks, its
fixtures) is ever taken for a test module's ``pytest_generate_tests``, fixture or test.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any, ClassVar

import pytest


class PluginItemsModule(pytest.Module):
    """A collector whose only test function is :attr:`test_function` (set by each item kind)."""

    test_function: ClassVar[Callable[..., None]]
    """The item kind's test function, as a ``staticmethod``; its name is the items' function name."""

    @classmethod
    def function_name(cls) -> str:
        return cls.test_function.__name__

    def _getobj(self) -> ModuleType:
        function = type(self).test_function
        namespace = ModuleType(f"{function.__module__}.<{function.__name__} items>", function.__doc__)
        namespace.__file__ = getattr(sys.modules.get(function.__module__), "__file__", None)
        setattr(namespace, function.__name__, function)
        return namespace

    def istestfunction(self, obj: object, name: str) -> bool:
        return name == self.function_name()

    def istestclass(self, obj: object, name: str) -> bool:
        return False


def parametrized_case(item: pytest.Item, argument: str, kind: type[Any]) -> Any:
    """The ``argument`` parameter of ``item`` when it is a ``kind`` (an item of that kind), else ``None``."""
    callspec = getattr(item, "callspec", None)
    case = callspec.params.get(argument) if callspec is not None else None
    return case if isinstance(case, kind) else None
