"""The package layout, checked statically: no import cycle, a small package root, pytest only in
``plugin/`` (and the command line), and every subpackage shipped by a non-editable install.

The import graph is built with :mod:`ast` from every ``.py`` file under ``pytest_typedmemeval/``,
never by importing anything. Every ``import x`` and ``from x import y`` counts, at any level:
module level, inside functions (the deferred imports that keep the plugin cheap to load) and under
``if TYPE_CHECKING:``. Deferring an import hides a cycle from the interpreter, not from the design,
so deferred imports are not accepted as cycle breakers; the layout has none to break. An import of
``a.b`` is an edge to ``a.b`` only: that Python runs ``a/__init__`` first is not a cycle of the
code. Imports by string (``importlib.import_module("...")``, ``module:factory`` specs) are not
imports of the code and are not counted.

The same graph, with every subpackage drawn as one node (``plugin``, ``gates``, ``generate``, ...;
each root module its own node), must be acyclic too: a newcomer reads the layout as layers, and two
subpackages that import each other are one layer split in two folders. Where a lower layer needs
something only a higher one can do, the higher one passes it down (the gate registry receives the
generators' ``regenerate`` hook; the retriever panel names the record it reads by a Protocol).
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterator
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
PACKAGE_DIR = PROJECT / "pytest_typedmemeval"
PACKAGE = PACKAGE_DIR.name

ROOT_MODULES = {"__init__", "_lazy", "cli", "hookspecs", "item_ids", "results"}
"""What the package root may hold: the public face (``__init__``, ``cli``, ``hookspecs``), the
plain value types every layer shares (``results``, ``item_ids``) and the lazy-export helper of the
package ``__init__`` files. Anything else belongs in a subpackage that says what it is for."""
MAX_ROOT_MODULES = 8
PYTEST_ALLOWED = ("plugin", "cli")
"""Modules (under ``pytest_typedmemeval.``) that may import pytest at run time."""


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES: dict[str, Path] = {_module_name(path): path for path in sorted(PACKAGE_DIR.rglob("*.py"))}


def _resolve(name: str) -> str | None:
    """The module ``name`` names, or the nearest package or module above it (``a.b.attr`` -> ``a.b``)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _is_type_checking_block(node: ast.AST) -> bool:
    if not isinstance(node, ast.If):
        return False
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(module: str) -> Iterator[tuple[str, bool]]:
    """``(imported module, type_checking_only)`` for every import statement of ``module``, at any
    depth. ``from a import b`` imports ``a.b`` when that is a module, else ``a`` (``b`` is then an
    attribute of ``a``); names outside the package are yielded as written."""
    path = MODULES[module]
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]

    def walk(node: ast.AST, typing_only: bool) -> Iterator[tuple[str, bool]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                for alias in child.names:
                    yield alias.name, typing_only
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package[: len(package) - child.level + 1]
                    source = ".".join([*base, *([child.module] if child.module else [])])
                else:
                    source = child.module or ""
                for alias in child.names:
                    submodule = f"{source}.{alias.name}"
                    yield (submodule if submodule in MODULES else source), typing_only
            yield from walk(child, typing_only or _is_type_checking_block(child))

    yield from walk(tree, False)


def import_graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports (``import a.b.c`` names the deepest module of
    the three that exists)."""
    graph: dict[str, set[str]] = {}
    for module in MODULES:
        targets = {_resolve(name) for name, _ in _imports(module) if name.split(".")[0] == PACKAGE}
        graph[module] = {target for target in targets if target is not None and target != module}
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(cycles)


def test_the_graph_sees_relative_deferred_and_type_checking_imports() -> None:
    graph = import_graph()
    assert f"{PACKAGE}.results" in graph[PACKAGE]  # ``from .results import`` under TYPE_CHECKING
    assert f"{PACKAGE}.corpus.registry" in graph[f"{PACKAGE}.cli"]  # imported inside a function
    assert f"{PACKAGE}.datasets.locomo" in graph[f"{PACKAGE}.datasets.registry"]  # ``from . import``
    assert f"{PACKAGE}.datasets" not in graph[f"{PACKAGE}.datasets.registry"]


def test_there_is_no_import_cycle_in_the_package() -> None:
    cycles = import_cycles(import_graph())
    assert cycles == [], "import cycles (each a strongly connected set of modules):\n" + "\n".join(
        " <-> ".join(cycle) for cycle in cycles)


def subpackage(module: str) -> str:
    """The layout node ``module`` belongs to: its top-level subpackage (``gates`` for
    ``pytest_typedmemeval.gates.selftest.structure``), or the root module itself (``cli``; the
    package ``__init__`` is ``__init__``)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def subpackage_graph(graph: dict[str, set[str]]
                     ) -> tuple[dict[str, set[str]], dict[tuple[str, str], list[str]]]:
    """Subpackage -> the subpackages it imports, and for each such edge the module imports behind it."""
    nodes: dict[str, set[str]] = {subpackage(module): set() for module in graph}
    behind: dict[tuple[str, str], list[str]] = {}
    for module, targets in sorted(graph.items()):
        for target in sorted(targets):
            edge = (subpackage(module), subpackage(target))
            if edge[0] != edge[1]:
                nodes[edge[0]].add(edge[1])
                behind.setdefault(edge, []).append(f"{module} -> {target}")
    return nodes, behind


def test_the_subpackage_graph_sees_every_layer_and_its_edges() -> None:
    nodes, behind = subpackage_graph(import_graph())
    assert {"plugin", "adapter", "calls", "corpus", "datasets", "gates", "generate", "judge",
            "probing", "report", "retrieval", "scenarios", "cli", "__init__"} <= set(nodes)
    assert "gates" in nodes["generate"] and "corpus" in nodes["gates"]
    assert f"{PACKAGE}.cli -> {PACKAGE}.corpus.registry" in behind[("cli", "corpus")]


def test_there_is_no_import_cycle_between_subpackages() -> None:
    nodes, behind = subpackage_graph(import_graph())
    cycles = import_cycles(nodes)
    lines = []
    for cycle in cycles:
        lines.append(" <-> ".join(cycle))
        lines += [f"    {edge}" for a in cycle for b in cycle if (a, b) in behind
                  for edge in behind[(a, b)]]
    assert cycles == [], ("import cycles between subpackages, with the imports behind them:\n"
                          + "\n".join(lines))


def test_the_package_root_holds_only_its_public_face_and_shared_value_types() -> None:
    root = {path.stem for path in PACKAGE_DIR.glob("*.py")}
    assert len(root) <= MAX_ROOT_MODULES, sorted(root)
    assert root <= ROOT_MODULES, f"modules that belong in a subpackage: {sorted(root - ROOT_MODULES)}"


def _allowed_pytest(module: str) -> bool:
    return any(module == f"{PACKAGE}.{name}" or module.startswith(f"{PACKAGE}.{name}.")
               for name in PYTEST_ALLOWED)


def test_only_the_plugin_and_the_command_line_import_pytest() -> None:
    """Run time only: an import under ``if TYPE_CHECKING:`` (``hookspecs`` annotates its hooks with
    ``pytest.Config``) never loads pytest, so it does not make a module depend on it."""
    offenders = sorted(
        f"{module} imports {name}" for module in MODULES if not _allowed_pytest(module)
        for name, typing_only in _imports(module)
        if not typing_only and name.split(".")[0] in ("pytest", "_pytest"))
    assert offenders == []


def test_every_subpackage_ships_in_a_non_editable_install() -> None:
    """``[tool.setuptools] packages`` is an explicit list: a subpackage missing from it would work
    from the checkout and be absent from the wheel."""
    config = tomllib.loads((PROJECT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    packages = {module for module, path in MODULES.items() if path.name == "__init__.py"}
    assert packages - listed == set()
