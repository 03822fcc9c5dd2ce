"""Print cowarray's run-time import graph; fail on an arrow up the layers or a circle.

The graph is read from the source with :mod:`ast`, nothing is imported. An
edge is a ``from``/``import`` of a module of the package:

* **run-time** edges run when the importing module is imported: module-level
  statements (class bodies, ``try`` blocks and the ``else`` of
  ``if TYPE_CHECKING:`` included);
* **deferred** edges sit inside a function and run on its first call;
* **type-only** edges sit under ``if TYPE_CHECKING:`` and never run.

A drawing of the house shows all three, so all three are checked: an arrow
up is an arrow up, whenever it runs (a lower layer is handed what it needs
by registration; a type-only need takes a Protocol or a declaration).

``from pkg import name`` is an edge to the submodule ``pkg.name`` where there
is one, else to ``pkg``. Importing a submodule also runs its parents'
``__init__``; those implicit edges are left out, as import-linter does.

The checks:

1. each module is in a layer of :data:`LAYERS`, and each entry of it names
   a module that exists;
2. no module imports a module of a higher layer (within a layer, any
   direction is fine), at import, deferred, or for type checkers;
3. imports close no circle: run-time ones, nor all of them as drawn;
4. a module outside the copy-on-write core uses of it only the names
   ``cowarray/_core/__init__.py`` lists in ``__all__``: no submodule, no
   name with an underscore (docs/design.md §2, the core's surface).

Usage::

    python tools/import_graph.py            # the graph and the verdict; exit 1 on a problem
    python tools/import_graph.py --quiet    # the problems only

Exit status: 0 when the checks pass, 1 when one fails.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: cowarray's layers, bottom first, as docs/design.md ("Architecture", the
#: module map) draws the house: helpers that know neither copy-on-write nor
#: backends; the backends (they know nothing of copy-on-write); devices, which
#: find a device's backend in the registry; the copy-on-write core; the Array
#: type; the operations and the features that extend the Array (above core and
#: backends); the public namespace on top. A module may import its own layer
#: and any layer below. An entry names a module and every module under it
#: (the longest entry naming a module decides), except the package itself
#: ("cowarray"), which names only its __init__.
#: Keep this table and docs/design.md's module map telling the same story.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "helpers",
        (
            "cowarray._constants",
            "cowarray._typing",
            "cowarray._threads",
            "cowarray._positions",
            "cowarray._deaths",
            "cowarray._errors",
            "cowarray._dtypes",
            "cowarray._interpreter",
            "cowarray._consumers",
            "cowarray._compiled",
            "cowarray._temporaries",
            "cowarray._tracing",
        ),
    ),
    ("backends", ("cowarray._backends",)),
    ("devices", ("cowarray._devices",)),
    (
        "core",
        (
            "cowarray._core",
            "cowarray._core.cow",
            "cowarray._core.families",
            "cowarray._core.view_write_text",
            "cowarray._observe",
        ),
    ),
    # (the Array type, its operators and the operand checks they make)
    ("array", ("cowarray._array", "cowarray._operators", "cowarray._checks", "cowarray._indices")),
    (
        "operations",
        (
            "cowarray._ops",
            "cowarray._at",
            "cowarray._move",
            "cowarray._dlpack",
            "cowarray._methods",
            "cowarray._numpy_protocols",
            "cowarray._random",
            "cowarray._info",
            "cowarray._picture",
            "cowarray._page_cow",
            "cowarray._dask_hook",
            # the transforms' engine over JAX (imported on the first transform call)
            "cowarray._transforms",
        ),
    ),
    (
        "public",
        (
            "cowarray",
            "cowarray.debug",
            "cowarray.fft",
            "cowarray.linalg",
            "cowarray.random",
            "cowarray.dask",
            "cowarray.interop",
            "cowarray.lib",
            "cowarray.testing",
            "cowarray.transforms",
        ),
    ),
)


@dataclass(frozen=True)
class Edge:
    """``source`` imports ``target``, first at ``line`` of its file."""

    source: str
    target: str
    line: int
    deferred: bool
    #: Under ``if TYPE_CHECKING:``: it never runs, but a reader (and a
    #: drawing of the house) sees it.
    type_only: bool = False


@dataclass
class Graph:
    """A package's modules (name -> file) and the import edges among them."""

    modules: dict[str, Path]
    edges: list[Edge] = field(default_factory=list)

    def imports_of(self, module: str, *, deferred: bool) -> list[Edge]:
        """The edges out of ``module`` that run, at import or deferred (never the
        type-only ones), sorted by target."""
        found = [
            e
            for e in self.edges
            if e.source == module and e.deferred is deferred and not e.type_only
        ]
        return sorted(found, key=lambda e: (e.target, e.line))


def _module_names(package_dir: Path) -> dict[str, Path]:
    """Every module of the package: its ``.py`` files, and its compiled
    modules by their C source (``_temporaries.c`` is ``cowarray._temporaries``,
    imported by a ``try``: it imports nothing of the package)."""
    names: dict[str, Path] = {}
    for path in sorted([*package_dir.rglob("*.py"), *package_dir.rglob("*.c")]):
        parts = list(path.relative_to(package_dir.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def _is_type_checking(test: ast.expr) -> bool:
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


_Found = Iterator[tuple[ast.Import | ast.ImportFrom, bool, bool]]


def _imports(tree: ast.Module) -> _Found:
    """Every import statement, with whether it sits in a function and whether
    it is only for type checkers (under ``if TYPE_CHECKING:``)."""

    def visit(node: ast.AST, deferred: bool, type_only: bool) -> _Found:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for statement in node.body:
                yield from visit(statement, deferred, True)
            for statement in node.orelse:
                yield from visit(statement, deferred, type_only)
            return
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node, deferred, type_only
        inside = deferred or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        for child in ast.iter_child_nodes(node):
            yield from visit(child, inside, type_only)

    yield from visit(tree, False, False)


def _known(name: str, modules: dict[str, Path]) -> str | None:
    """``name`` or its nearest enclosing module of the package (None: not ours)."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def _targets(node: ast.Import | ast.ImportFrom, here: str, modules: dict[str, Path]) -> list[str]:
    """The package's modules that ``node``, in module ``here``, imports."""
    if isinstance(node, ast.Import):
        found = [_known(alias.name, modules) for alias in node.names]
        return [name for name in found if name is not None]
    if node.level:
        is_package = modules[here].name == "__init__.py"
        parts = here.split(".") if is_package else here.split(".")[:-1]
        parts = parts[: len(parts) - (node.level - 1)]
        base = ".".join([*parts, node.module] if node.module else parts)
    else:
        base = node.module or ""
    targets: list[str] = []
    for alias in node.names:
        submodule = f"{base}.{alias.name}"
        target = submodule if submodule in modules else _known(base, modules)
        if target is not None and target not in targets:
            targets.append(target)
    return targets


def read_graph(package_dir: Path) -> Graph:
    """The import graph of the package in ``package_dir`` (a folder with an
    ``__init__.py``), read from its source."""
    graph = Graph(_module_names(package_dir))
    for module, path in graph.modules.items():
        if path.suffix != ".py":
            continue  # (a compiled module: no Python imports)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        seen: set[tuple[str, bool, bool]] = set()
        # (the first statement importing each target, in line order)
        found = sorted(_imports(tree), key=lambda item: item[0].lineno)
        for node, deferred, type_only in found:
            for target in _targets(node, module, graph.modules):
                if target != module and (target, deferred, type_only) not in seen:
                    seen.add((target, deferred, type_only))
                    graph.edges.append(Edge(module, target, node.lineno, deferred, type_only))
    return graph


def layer_of(module: str, layers: Sequence[tuple[str, Sequence[str]]], root: str) -> int | None:
    """The index in ``layers`` of the layer naming ``module`` (None: none does);
    where two entries name it, the longer (``cowarray._checks`` over
    ``cowarray._ops``) decides."""
    best: tuple[int, int] | None = None
    for index, (_, entries) in enumerate(layers):
        for entry in entries:
            names = module == entry or (entry != root and module.startswith(entry + "."))
            if names and (best is None or len(entry) > best[0]):
                best = (len(entry), index)
    return None if best is None else best[1]


def find_cycles(graph: Graph, drawn: bool = False) -> list[list[str]]:
    """The circles among run-time edges (``drawn``: among every import a
    reader sees, deferred and type-only ones too): one per strongly
    connected set of modules, each as a path that returns to its start."""
    succ: dict[str, list[str]] = {module: [] for module in graph.modules}
    for edge in graph.edges:
        runs_at_import = not edge.deferred and not edge.type_only
        if (drawn or runs_at_import) and edge.target not in succ[edge.source]:
            succ[edge.source].append(edge.target)
    # Tarjan's strongly connected components, iteratively.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    for start in sorted(succ):
        if start in index:
            continue
        work = [(start, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            if i < len(succ[node]):
                work.append((node, i + 1))
                nxt = succ[node][i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return [_circle_through(component, succ) for component in components]


def _circle_through(component: list[str], succ: dict[str, list[str]]) -> list[str]:
    """A shortest circle from the component's first module back to it."""
    members = set(component)
    start = component[0]
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following: list[str] = []
        for node in frontier:
            for nxt in succ[node]:
                if nxt == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [*reversed(path), start]
                if nxt in members and nxt not in came_from:
                    came_from[nxt] = node
                    following.append(nxt)
        frontier = following
    raise AssertionError(f"no circle through {start}")  # a component always has one


def _where(graph: Graph, edge: Edge) -> str:
    path = graph.modules[edge.source]
    if path.is_relative_to(ROOT):
        path = path.relative_to(ROOT)
    return f"{path.as_posix()}:{edge.line}"


def problems(
    graph: Graph, layers: Sequence[tuple[str, Sequence[str]]], root: str = "cowarray"
) -> list[str]:
    """What the checks find, one line each (empty: the graph passes)."""
    found: list[str] = []
    for module in sorted(graph.modules):
        if layer_of(module, layers, root) is None:
            found.append(f"{module} is in no layer: add it to LAYERS in tools/import_graph.py")
    for edge in graph.edges:
        low = layer_of(edge.source, layers, root)
        high = layer_of(edge.target, layers, root)
        if low is not None and high is not None and high > low:
            kind = "deferred " if edge.deferred else "type-only " if edge.type_only else ""
            fix = (
                " (a type-only need takes a Protocol or a declaration: docs/design.md §2)"
                if edge.type_only
                else " (a lower layer is handed what it needs: registration, docs/design.md §2)"
                if edge.deferred
                else ""
            )
            found.append(
                f"upward {kind}import: {edge.source} ({layers[low][0]}) imports {edge.target} "
                f"({layers[high][0]}) at {_where(graph, edge)}{fix}"
            )
    runtime = find_cycles(graph)
    for circle in runtime:
        found.append("circle of run-time imports: " + " -> ".join(circle))
    for circle in find_cycles(graph, drawn=True):
        if not any(set(circle) <= set(known) for known in runtime):
            found.append(
                "circle of imports (type-only or deferred ones in it): " + " -> ".join(circle)
            )
    found += layer_entry_problems(graph, layers)
    package_dir = graph.modules[root].parent if root in graph.modules else None
    if package_dir is not None:
        found += surface_problems(graph, package_dir)
    return found


#: The package whose ``__all__`` is all that the rest of cowarray may use of it.
SURFACE_PACKAGE = "_core"


def _surface(package_dir: Path, surface: str) -> set[str] | None:
    """The names ``package_dir/surface/__init__.py`` lists in ``__all__``."""
    init = package_dir / surface / "__init__.py"
    if not init.exists():
        return None
    tree = ast.parse(init.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "__all__" for target in node.targets
        ):
            return {ast.literal_eval(element) for element in node.value.elts}  # type: ignore[attr-defined]
    return set()


def _every_import(tree: ast.Module) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement, those under ``if TYPE_CHECKING:`` included."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node


def surface_problems(graph: Graph, package_dir: Path, surface: str = SURFACE_PACKAGE) -> list[str]:
    """Uses of the surface package (``_core``) from outside it that go past
    its ``__all__``: a submodule imported, a name it does not list (or one
    with an underscore), or an attribute read off the package. Imports under
    ``if TYPE_CHECKING:`` and inside functions count too."""
    names = _surface(package_dir, surface)
    if names is None:
        return []
    core = f"{package_dir.name}.{surface}"
    inside = (core, core + ".")
    found: list[str] = []
    for module, path in sorted(graph.modules.items()):
        if module == core or module.startswith(inside[1]) or path.suffix != ".py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        where = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)
        package_names: set[str] = set()  # local names bound to the package itself
        for node in _every_import(tree):
            line = f"{where}:{node.lineno}"
            if isinstance(node, ast.Import):
                found += [
                    f"{module} imports {alias.name} at {line}: import names from {core}"
                    for alias in node.names
                    if alias.name.startswith(inside)
                ]
                continue
            for alias in node.names:
                one = ast.ImportFrom(module=node.module, names=[alias], level=node.level)
                target = _targets(one, module, graph.modules)
                if not target:
                    continue
                if target[0].startswith(inside[1]):
                    found.append(
                        f"{module} imports {target[0]} at {line}: import names from {core}"
                    )
                elif target[0] == core and alias.name == surface:
                    package_names.add(alias.asname or alias.name)  # ``from . import _core``
                elif target[0] == core and (alias.name.startswith("_") or alias.name not in names):
                    found.append(
                        f"{module} uses {core}.{alias.name} at {line}, which "
                        f"{surface}/__init__.py does not list in __all__"
                    )
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in package_names
                and node.attr not in names
            ):
                found.append(
                    f"{module} uses {core}.{node.attr} at {where}:{node.lineno}, which "
                    f"{surface}/__init__.py does not list in __all__"
                )
    return found


def layer_entry_problems(graph: Graph, layers: Sequence[tuple[str, Sequence[str]]]) -> list[str]:
    """Entries of the layers table that name no module of the package."""
    return [
        f"LAYERS names {entry}, which is no module: remove it from tools/import_graph.py"
        for _, entries in layers
        for entry in entries
        if entry not in graph.modules
    ]


def render(
    graph: Graph, layers: Sequence[tuple[str, Sequence[str]]], root: str = "cowarray"
) -> str:
    """The graph as text: each module under its layer, its run-time imports,
    then its deferred ones (those into a higher layer marked)."""
    lines: list[str] = []
    by_layer: dict[int | None, list[str]] = {}
    for module in sorted(graph.modules):
        by_layer.setdefault(layer_of(module, layers, root), []).append(module)
    order: list[int | None] = [*range(len(layers)), None]
    for number in reversed(order):
        modules = by_layer.get(number, [])
        if not modules:
            continue
        title = "(no layer)" if number is None else f"layer {number}: {layers[number][0]}"
        lines.append(f"== {title}")
        for module in modules:
            lines.append(module)
            for deferred in (False, True):
                for edge in graph.imports_of(module, deferred=deferred):
                    target_layer = layer_of(edge.target, layers, root)
                    up = number is not None and target_layer is not None and target_layer > number
                    mark = "  (up)" if up else ""
                    kind = "deferred " if deferred else ""
                    lines.append(f"    {kind}-> {edge.target}  line {edge.line}{mark}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Print the graph and the problems; the exit status (0: none)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--package",
        type=Path,
        default=ROOT / "cowarray",
        help="the package folder (default: cowarray beside tools/)",
    )
    parser.add_argument("--quiet", action="store_true", help="print the problems only")
    options = parser.parse_args(argv)
    graph = read_graph(options.package)
    root = options.package.name
    if not options.quiet:
        print(render(graph, LAYERS, root))
        print()
    found = problems(graph, LAYERS, root)
    for line in found:
        print(f"FAIL {line}")
    runtime = sum(not edge.deferred for edge in graph.edges)
    print(
        f"{len(graph.modules)} modules, {runtime} run-time and "
        f"{len(graph.edges) - runtime} deferred imports: "
        + (f"{len(found)} problem(s)" if found else "the arrows point down, no circles")
    )
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
