"""tools/import_graph.py: the run-time import graph, its layers and its circles.

A tiny fake package proves the checker catches an import up the layers and a
circle, and leaves alone what never runs or runs late; then the real package
is checked against the layers of docs/design.md.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import types
from pathlib import Path

ROOT = Path(__file__).parents[2]


def _tool() -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(
        "import_graph", ROOT / "tools" / "import_graph.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


TOOL = _tool()

#: The fake package's layers, bottom first.
LAYERS = (
    ("low", ("pkg._low", "pkg._other")),
    ("mid", ("pkg._mid", "pkg.sub")),
    ("top", ("pkg", "pkg.api")),
)


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    """A package ``pkg`` in ``tmp_path`` with these files (path -> source)."""
    files = {"__init__.py": "", **files}
    for name, source in files.items():
        path = tmp_path / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source)
    return tmp_path / "pkg"


def _problems(tmp_path: Path, files: dict[str, str]) -> list[str]:
    graph = TOOL.read_graph(_package(tmp_path, files))
    return list(TOOL.problems(graph, LAYERS, "pkg"))


DOWNWARD = {
    "__init__.py": "from . import api\nfrom ._mid import f\n",
    "api.py": "from pkg._mid import f\nimport pkg._low\n",
    "_mid.py": "from ._low import g\n\ndef f():\n    return g()\n",
    "_low.py": "import os\n\ndef g():\n    return os.sep\n",
    "_other.py": "",
    "sub/__init__.py": "from .. import _low\nfrom . import leaf\n",
    "sub/leaf.py": "from .._low import g\n",
}


def test_imports_that_point_down_pass(tmp_path: Path) -> None:
    assert _problems(tmp_path, DOWNWARD) == []


def test_an_import_up_the_layers_is_reported_with_its_place(tmp_path: Path) -> None:
    files = {**DOWNWARD, "_other.py": "import os\nfrom ._mid import f\n"}
    assert _problems(tmp_path, files) == [
        f"upward import: pkg._other (low) imports pkg._mid (mid) at "
        f"{tmp_path / 'pkg' / '_other.py'}:2"
    ]


def test_a_relative_import_from_a_subpackage_that_runs_up_is_reported(tmp_path: Path) -> None:
    files = {**DOWNWARD, "_other.py": "from .sub import leaf\n"}
    (problem,) = _problems(tmp_path, files)
    assert problem.startswith("upward import: pkg._other (low) imports pkg.sub.leaf (mid)")


def test_a_circle_within_one_layer_is_reported(tmp_path: Path) -> None:
    files = {**DOWNWARD, "_low.py": "from . import _other\n", "_other.py": "import pkg._low\n"}
    assert _problems(tmp_path, files) == [
        "circle of run-time imports: pkg._low -> pkg._other -> pkg._low"
    ]


def test_a_circle_through_three_modules_is_reported_once(tmp_path: Path) -> None:
    files = {
        **DOWNWARD,
        "__init__.py": "from . import api\n",
        "api.py": "from . import _mid\n",
        "_mid.py": "from .sub import leaf\n",
        "sub/__init__.py": "",
        "sub/leaf.py": "from .. import api\n",
    }
    problems = _problems(tmp_path, files)
    circles = [p for p in problems if p.startswith("circle")]
    assert circles == [
        "circle of run-time imports: pkg._mid -> pkg.sub.leaf -> pkg.api -> pkg._mid"
    ]
    assert problems == [
        f"upward import: pkg.sub.leaf (mid) imports pkg.api (top) at "
        f"{tmp_path / 'pkg' / 'sub' / 'leaf.py'}:1",
        *circles,
    ]


def test_imports_for_type_checkers_are_drawn_and_fail_when_they_point_up(tmp_path: Path) -> None:
    # They never run, but the drawn house shows them: a type-only need of a
    # lower layer takes a Protocol or a declaration instead (docs/design.md §2).
    source = (
        "import typing\nfrom typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from ._mid import f\n"
        "if typing.TYPE_CHECKING:\n    from . import _other\n"
    )
    graph = TOOL.read_graph(_package(tmp_path, {**DOWNWARD, "_low.py": source}))
    assert [(e.target, e.line, e.type_only) for e in graph.edges if e.source == "pkg._low"] == [
        ("pkg._mid", 4, True),
        ("pkg._other", 6, True),
    ]
    assert graph.imports_of("pkg._low", deferred=False) == []  # none of them runs
    problem, circle = TOOL.problems(graph, LAYERS, "pkg")
    assert problem.startswith("upward type-only import: pkg._low (low) imports pkg._mid (mid)")
    assert "takes a Protocol or a declaration" in problem
    # (the drawn house has a circle too: _mid imports _low)
    assert (
        circle
        == "circle of imports (type-only or deferred ones in it): pkg._low -> pkg._mid -> pkg._low"
    )


def test_imports_for_type_checkers_that_point_down_pass(tmp_path: Path) -> None:
    source = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ._low import g\n"
    assert _problems(tmp_path, {**DOWNWARD, "api.py": source}) == []


def test_the_else_of_a_type_checking_block_runs(tmp_path: Path) -> None:
    source = (
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    pass\nelse:\n    import pkg.api\n"
    )
    (problem,) = _problems(tmp_path, {**DOWNWARD, "_other.py": source})
    assert problem.startswith("upward import: pkg._other (low) imports pkg.api (top)")


def test_an_import_inside_a_function_is_listed_as_deferred_and_fails_when_it_points_up(
    tmp_path: Path,
) -> None:
    source = "def late():\n    from . import api\n    return api\n"
    graph = TOOL.read_graph(_package(tmp_path, {**DOWNWARD, "_low.py": source}))
    assert graph.imports_of("pkg._low", deferred=True) == [
        TOOL.Edge("pkg._low", "pkg.api", 2, True)
    ]
    assert graph.imports_of("pkg._low", deferred=False) == []
    problem, circle = TOOL.problems(graph, LAYERS, "pkg")
    assert problem.startswith("upward deferred import: pkg._low (low) imports pkg.api (top)")
    assert circle.startswith("circle of imports (type-only or deferred ones in it): pkg._low")
    assert "registration" in problem
    assert "deferred -> pkg.api  line 2  (up)" in TOOL.render(graph, LAYERS, "pkg")


def test_an_import_inside_a_function_that_points_down_passes(tmp_path: Path) -> None:
    source = "def late():\n    from . import _low\n    return _low\n"
    assert _problems(tmp_path, {**DOWNWARD, "api.py": source}) == []


def test_an_import_in_a_class_body_runs_at_import(tmp_path: Path) -> None:
    source = "class C:\n    from ._mid import f\n"
    (problem,) = _problems(tmp_path, {**DOWNWARD, "_other.py": source})
    assert problem.startswith("upward import: pkg._other (low) imports pkg._mid (mid)")


def test_a_module_in_no_layer_is_reported(tmp_path: Path) -> None:
    assert _problems(tmp_path, {**DOWNWARD, "stray.py": ""}) == [
        "pkg.stray is in no layer: add it to LAYERS in tools/import_graph.py"
    ]


def test_the_longest_entry_decides_a_module_s_layer() -> None:
    layers = (("low", ("pkg.ops.categories",)), ("top", ("pkg", "pkg.ops")))
    assert TOOL.layer_of("pkg.ops.categories", layers, "pkg") == 0
    assert TOOL.layer_of("pkg.ops.sin", layers, "pkg") == 1
    assert TOOL.layer_of("pkg.other", layers, "pkg") is None  # the root names only itself


def test_imports_of_other_packages_are_no_edges(tmp_path: Path) -> None:
    source = "import numpy\nfrom os import path\nimport pkgx\n"
    graph = TOOL.read_graph(_package(tmp_path, {**DOWNWARD, "_low.py": source}))
    assert [e for e in graph.edges if e.source == "pkg._low"] == []


def test_a_layer_entry_that_names_no_module_is_reported(tmp_path: Path) -> None:
    graph = TOOL.read_graph(_package(tmp_path, DOWNWARD))
    layers = (*LAYERS, ("gone", ("pkg._hints",)))
    assert TOOL.problems(graph, layers, "pkg") == [
        "LAYERS names pkg._hints, which is no module: remove it from tools/import_graph.py"
    ]


# -- the core's surface ---------------------------------------------------------------

#: A package with a core whose ``__init__`` lists one name, and a user of it.
CORE_LAYERS = (("core", ("pkg._core",)), ("top", ("pkg", "pkg.user")))
CORE = {
    "_core/__init__.py": 'from .cow import fresh\n\n__all__ = ["fresh"]\n',
    "_core/cow.py": "def fresh():\n    pass\n\ndef _hidden():\n    pass\n\nlisted = 1\n",
}


def _surface_problems(tmp_path: Path, user: str) -> list[str]:
    package = _package(tmp_path, {**CORE, "user.py": user})
    return list(TOOL.surface_problems(TOOL.read_graph(package), package))


def test_names_the_core_lists_may_be_used(tmp_path: Path) -> None:
    assert _surface_problems(tmp_path, "from ._core import fresh\n") == []
    assert _surface_problems(tmp_path, "from pkg._core import fresh as made\n") == []


def test_a_core_submodule_imported_from_outside_is_reported(tmp_path: Path) -> None:
    where = tmp_path / "pkg" / "user.py"
    assert _surface_problems(tmp_path, "from ._core.cow import fresh\n") == [
        f"pkg.user imports pkg._core.cow at {where}:1: import names from pkg._core"
    ]
    assert _surface_problems(tmp_path, "import pkg._core.cow\n") == [
        f"pkg.user imports pkg._core.cow at {where}:1: import names from pkg._core"
    ]
    # ``from ._core import cow`` names the submodule too
    (problem,) = _surface_problems(tmp_path, "from ._core import cow\n")
    assert problem.startswith("pkg.user imports pkg._core.cow at ")


def test_a_name_the_core_does_not_list_is_reported_even_for_type_checkers(tmp_path: Path) -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from ._core import listed\n"
        "def late():\n    from ._core import _hidden\n"
    )
    assert _surface_problems(tmp_path, source) == [
        f"pkg.user uses pkg._core.listed at {tmp_path / 'pkg' / 'user.py'}:3, which "
        "_core/__init__.py does not list in __all__",
        f"pkg.user uses pkg._core._hidden at {tmp_path / 'pkg' / 'user.py'}:5, which "
        "_core/__init__.py does not list in __all__",
    ]


def test_an_attribute_read_off_the_core_package_is_checked(tmp_path: Path) -> None:
    source = "from . import _core\n\nmade = _core.fresh\nother = _core.cow\n"
    assert _surface_problems(tmp_path, source) == [
        f"pkg.user uses pkg._core.cow at {tmp_path / 'pkg' / 'user.py'}:4, which "
        "_core/__init__.py does not list in __all__"
    ]


# -- the real package ------------------------------------------------------------------


def test_cowarray_s_imports_point_down_and_close_no_circle() -> None:
    graph = TOOL.read_graph(ROOT / "cowarray")
    assert TOOL.problems(graph, TOOL.LAYERS) == []


def test_the_script_prints_the_graph_and_its_exit_status_says_the_verdict() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "import_graph.py")],
        capture_output=True,
        text=True,
        check=False,
    )
    graph = TOOL.read_graph(ROOT / "cowarray")
    assert done.returncode == (1 if TOOL.problems(graph, TOOL.LAYERS) else 0), done.stderr
    assert "== layer 1: backends" in done.stdout
    assert "cowarray._devices\n    -> cowarray._backends  line" in done.stdout
    verdict = done.stdout.rstrip().splitlines()[-1]
    assert f"{len(graph.modules)} modules, " in verdict and " deferred imports: " in verdict
