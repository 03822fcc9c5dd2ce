"""The Array's attached behaviour is declared for type checkers as it is.

``.at`` (cowarray._at), the exports (cowarray._dlpack) and NumPy's and
JAX's array methods (cowarray._methods) are attached to the class at import
by the modules that define them, which lie above cowarray._array; the class
declares each under ``if TYPE_CHECKING:`` by its signature (a type checker
never sees the attachment). This test reads those declarations from the
source and compares each with the signature of what is attached, so that a
changed method cannot leave a stale declaration behind.
"""

from __future__ import annotations

import ast
import inspect
import re
import typing
from pathlib import Path
from typing import Any

import pytest

import cowarray as ca
from cowarray import _at

SOURCE = Path(ca.__file__).parent / "_array.py"


def _declarations() -> dict[str, dict[str, ast.FunctionDef]]:
    """Class name -> method name -> its declaration, for the class Array's
    ``if TYPE_CHECKING:`` block and the module's ``.at`` Protocols."""
    tree = ast.parse(SOURCE.read_text(encoding="utf-8"))
    found: dict[str, dict[str, ast.FunctionDef]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name in ("Array", "_AtUpdates", "_AtIndexer"):
            body = node.body
            if node.name == "Array":
                (block,) = [
                    s
                    for s in body
                    if isinstance(s, ast.If) and ast.unparse(s.test) == "TYPE_CHECKING"
                ]
                body = block.body
            found[node.name] = {s.name: s for s in body if isinstance(s, ast.FunctionDef)}
    return found


DECLARED = _declarations()


def _spelled(signature: inspect.Signature) -> str:
    """A signature as the declarations spell it (no ``self`` annotation, no
    quoted annotations), in ast's words."""
    text = str(signature).replace("self: 'Array'", "self")
    text = re.sub(r": '([^']*)'", r": \1", text)
    text = re.sub(r"-> '([^']*)'", r"-> \1", text)
    tree = ast.parse(f"def method{text}: ...")
    function = tree.body[0]
    assert isinstance(function, ast.FunctionDef)
    return _declared(function)


def _declared(declaration: ast.FunctionDef) -> str:
    arguments = ast.unparse(declaration.args)
    return f"({arguments}) -> {ast.unparse(declaration.returns)}"  # type: ignore[arg-type]


def _attached(name: str) -> Any:
    attribute = inspect.getattr_static(ca.Array, name)
    if isinstance(attribute, property):
        return attribute.fget
    return attribute


@pytest.mark.parametrize("name", sorted(DECLARED["Array"]))
def test_each_declared_method_is_the_attached_one(name: str) -> None:
    attached = _attached(name)
    if name == "at":
        # (the getter is the indexer class itself: its __init__ takes the array)
        assert attached is _at.AtIndexer
        assert _declared(DECLARED["Array"][name]) == "(self) -> _AtIndexer"
        return
    expected = _spelled(inspect.signature(attached))
    assert _declared(DECLARED["Array"][name]) == expected, name


def test_every_attached_method_is_declared_and_nothing_else() -> None:
    from cowarray import _methods

    attached = {*_methods._METHODS, "conjugate", "real", "imag", "at", "__dlpack__", "__array__"}
    assert set(DECLARED["Array"]) == attached


@pytest.mark.parametrize("name", sorted(DECLARED["_AtUpdates"]))
def test_the_at_updates_are_declared_as_they_are(name: str) -> None:
    method = getattr(_at._At, name)
    expected = _spelled(inspect.signature(method))
    assert _declared(DECLARED["_AtUpdates"][name]) == expected


def test_the_at_indexer_is_declared_as_it_is() -> None:
    expected = _spelled(inspect.signature(_at.AtIndexer.__getitem__)).replace("_At", "_AtUpdates")
    assert _declared(DECLARED["_AtIndexer"]["__getitem__"]) == expected
    assert set(DECLARED["_AtUpdates"]) == {
        name for name in vars(_at._At) if not name.startswith("_") and callable(vars(_at._At)[name])
    }


def test_a_type_checker_sees_no_import_of_the_modules_above() -> None:
    # (the declarations replace TYPE_CHECKING imports of _at, _dlpack and
    # _methods, which drew arrows up from this module)
    tree = ast.parse(SOURCE.read_text(encoding="utf-8"))
    imported = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module is None
        for alias in node.names
    }
    assert not imported & {"_at", "_dlpack", "_methods"}
    assert typing.TYPE_CHECKING is False
