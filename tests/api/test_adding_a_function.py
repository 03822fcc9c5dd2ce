"""What adding a function takes (docs/design.md, "What adding an op / adding a
backend touches"): the op module and, for a function that calls the backend,
the contract in cowarray/_backends/base.py. These tests fail when one of the
steps is missed: a function not in its module's ``__all__`` (so not exported),
an element-wise function without a dtype category, one missing from the
backend contract, or a category left for a function that is gone.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import types
from pathlib import Path

import numpy as np
import pytest

import cowarray as ca
from cowarray import _checks, _ops
from cowarray._backends.base import STANDARD_NAMES
from cowarray._ops import elementwise

OP_MODULES = [
    importlib.import_module(f"cowarray._ops.{info.name}")
    for info in pkgutil.iter_modules(_ops.__path__)
    if not info.name.startswith("_")
]
NAMESPACES = (ca, ca.linalg, ca.fft, ca.lib.stride_tricks)

#: element-wise functions under NumPy's names, not the standard's
NUMPY_NAMES = {"around"}


def _functions_made_in(module: types.ModuleType) -> list[str]:
    """The public functions ``module`` defines itself (by ``def`` or a factory)."""
    return [
        name
        for name, value in vars(module).items()
        if not name.startswith("_")
        and isinstance(value, types.FunctionType)
        and value.__module__ in (module.__name__, "cowarray")
        and value.__name__ == name
    ]


@pytest.mark.parametrize("module", OP_MODULES, ids=lambda m: m.__name__.rsplit(".", 1)[1])
def test_every_function_of_an_op_module_is_in_its_all(module: types.ModuleType) -> None:
    assert [name for name in _functions_made_in(module) if name not in module.__all__] == []


@pytest.mark.parametrize("module", OP_MODULES, ids=lambda m: m.__name__.rsplit(".", 1)[1])
def test_every_function_in_an_all_is_public(module: types.ModuleType) -> None:
    functions = {n: getattr(module, n) for n in module.__all__}
    hidden = [
        name
        for name, function in functions.items()
        if isinstance(function, types.FunctionType)
        and not any(getattr(space, name, None) is function for space in NAMESPACES)
    ]
    assert hidden == []


def _star_imported() -> list[types.ModuleType]:
    """The op modules cowarray/__init__.py imports with ``import *``."""
    tree = ast.parse(Path(ca.__file__).read_text())
    return [
        importlib.import_module(f"cowarray.{node.module}")
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and [a.name for a in node.names] == ["*"]
    ]


def test_no_two_star_imported_op_modules_export_the_same_name() -> None:
    # ``from ._ops.<chapter> import *`` in cowarray/__init__.py: a later module
    # would silently replace an earlier one's function.
    modules = _star_imported()
    assert elementwise in modules and len(modules) > 5
    seen: dict[str, str] = {}
    twice = []
    for module in modules:
        for name in module.__all__:
            if name in seen:
                twice.append((name, seen[name], module.__name__))
            seen[name] = module.__name__
    assert twice == []


def test_every_element_wise_function_has_a_dtype_category() -> None:
    # (NumPy's names call the standard function they alias: around -> round)
    missing = [name for name in elementwise.__all__ if name not in _checks.CATEGORY]
    assert [name for name in missing if name not in NUMPY_NAMES] == []


def test_every_category_belongs_to_a_public_function() -> None:
    # A category left behind for a renamed or removed function.
    assert [name for name in _checks.CATEGORY if not callable(getattr(ca, name, None))] == []


def test_every_element_wise_function_of_the_standard_is_in_the_backend_contract() -> None:
    # The contract test then checks every backend for it, and the NumPy
    # backend splits it over the cores where NumPy serves it with a ufunc.
    standard = [name for name in elementwise.__all__ if name not in NUMPY_NAMES]
    assert [name for name in standard if name not in STANDARD_NAMES] == []


def test_the_numpy_names_are_numpy_names() -> None:
    assert all(callable(getattr(np, name, None)) for name in NUMPY_NAMES)
    assert all(name not in STANDARD_NAMES for name in NUMPY_NAMES)


def test_a_function_that_declares_no_category_fails_at_import() -> None:
    with pytest.raises(RuntimeError, match="say which dtypes it accepts"):
        _checks.declare_category("not_an_operator", None)
    assert "not_an_operator" not in _checks.CATEGORY


def test_a_second_different_category_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(_checks.CATEGORY, "toy", _checks.FLOATING)
    _checks.declare_category("toy", _checks.FLOATING)  # the same again: fine
    with pytest.raises(RuntimeError, match="toy accepts 'fc' already, not 'iuf'"):
        _checks.declare_category("toy", _checks.REAL)
    with pytest.raises(RuntimeError, match="add accepts"):
        _checks.declare_category("add", _checks.FLOATING)  # an operator's category stays


def test_checking_a_function_without_a_category_is_an_error_not_a_pass() -> None:
    # A missing declaration must not let every dtype through.
    with pytest.raises(KeyError):
        _checks.check_dtypes("not_declared_anywhere", np.dtype("bool"))


def test_the_accepts_decorator_declares_the_functions_own_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_checks, "CATEGORY", dict(_checks.CATEGORY))

    @_checks.accepts(_checks.REAL_FLOATING)
    def toy_function() -> None: ...

    assert _checks.CATEGORY["toy_function"] == "f"
    with pytest.raises(TypeError, match="toy_function is defined for real floating-point"):
        _checks.check_dtypes("toy_function", np.dtype("int64"))
