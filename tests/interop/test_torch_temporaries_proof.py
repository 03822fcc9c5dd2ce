"""The reference-count proof behind ``to_torch`` of a temporary, on every
interpreter, torch or not.

Reference counts change between CPython releases (borrowed stack references
from 3.14, biased counts on free-threaded builds), and the CPythons of the
matrix have no torch wheel: here a stand-in takes torch's one call on this
path (``torch.from_numpy``), so the proof runs wherever the suite runs.
tests/interop/test_torch_temporaries.py runs the same paths with torch.
"""

from __future__ import annotations

import functools
import gc
import sys
import sysconfig
from typing import Any

import numpy as np
import pytest

import cowarray as ca
import cowarray.interop.torch as bridge
from cowarray import _deaths
from cowarray.interop.torch import to_torch


class _Tensor:
    """What the stand-in's from_numpy gives: it keeps the ndarray, as torch does."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array


class _Torch:
    from_numpy = _Tensor
    Tensor = _Tensor


@pytest.fixture
def stand_in(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bridge, "_TORCH", _Torch)


def test_a_temporary_reads_lower_than_a_named_array_on_this_interpreter() -> None:
    # If this fails on a new CPython, to_torch never gives anything away
    # there (safe, and slower): look at what its first line reads now.
    if sys.implementation.name != "cpython":
        assert bridge._TEMPORARY is None
        return
    assert isinstance(bridge._TEMPORARY, int), (
        sys.version,
        sysconfig.get_config_var("Py_GIL_DISABLED"),
    )


def test_a_temporary_is_given_away_with_nothing_to_track(stand_in: None) -> None:
    watched = _deaths.watched()
    tensor = to_torch(ca.arange(4.0) + 1.0)
    assert type(tensor) is _Tensor
    assert tensor.array.base is None, "torch got a view, not the memory itself"
    np.testing.assert_array_equal(tensor.array, [1.0, 2.0, 3.0, 4.0])
    assert _deaths.watched() == watched
    parent = ca.arange(8.0)
    row = to_torch(parent[2:5])
    with pytest.warns(ca.ViewWriteWarning):  # NumPy's tensor would have written parent
        row.array[0] = -1.0  # torch's copy: the parent keeps its values
        del row
        gc.collect()
        ca.zeros(1)
    assert float(parent[2]) == 2.0


def _held_calls(make: Any) -> list[tuple[str, Any, Any]]:
    named = make()
    listed = [make()]
    starred = [make()]
    mapped = [make()]
    partial = [make()]
    holder = type("Holder", (), {})()
    holder.array = make()
    return [
        ("a name", named, lambda: to_torch(named)),
        ("a list", listed[0], lambda: to_torch(listed[0])),
        ("star-arguments", starred[0], lambda: to_torch(*starred)),
        ("map, a C caller", mapped[0], lambda: next(map(to_torch, mapped))),
        ("functools.partial", partial[0], lambda: functools.partial(to_torch)(partial[0])),
        ("an attribute", holder.array, lambda: to_torch(holder.array)),
    ]


@pytest.mark.parametrize("kind", ["fresh", "a slice of a live array"])
def test_an_array_the_caller_holds_is_exported_and_stays_usable(kind: str, stand_in: None) -> None:
    parent = ca.arange(16.0).reshape(4, 4)
    make = (lambda: ca.arange(4.0) + 1.0) if kind == "fresh" else (lambda: parent[1])
    for how, array, call in _held_calls(make):
        tensor = call()
        tensor.array[0] = -7.0  # the documented sharing with the caller's array
        assert float(array[0]) == -7.0, how
        assert ca.cow_info(array).state == "exposed", how
        del tensor
        gc.collect()
        assert ca.cow_info(array).state == "private", how
    np.testing.assert_array_equal(np.asarray(parent), np.arange(16.0).reshape(4, 4))
