"""move(x): the buffer goes to a new array without a copy; x is retired (rule 6)."""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable

import numpy as np
import pytest

import cowarray as ca
from cowarray._core import cow
from cowarray.testing import to_numpy

MOVED = "moved into another by cowarray.move"


def address(x: ca.Array) -> int:
    """Where ``x``'s first element lives, on any device (exports nothing)."""
    data = x._data
    if isinstance(data, np.ndarray):
        return int(data.__array_interface__["data"][0])
    return int(data.data.ptr)  # CuPy's (and the stand-in's) device pointer


def test_moved_array_has_the_values_without_a_copy(backend_device: ca.Device) -> None:
    x = ca.arange(1000.0, device=backend_device)
    data = address(x)
    cow.COUNTERS.reset()
    y = ca.move(x).at[0].set(-1.0)
    assert (cow.COUNTERS.copies, cow.COUNTERS.bytes_copied) == (0, 0)
    assert y.device == backend_device
    assert address(y) == data
    assert to_numpy(y)[:3].tolist() == [-1.0, 1.0, 2.0]


def test_move_then_update_writes_in_place(backend_device: ca.Device) -> None:
    x = ca.zeros(10**5, device=backend_device)
    cow.COUNTERS.reset()
    x = ca.move(x).at[ca.asarray([1, 1], device=backend_device)].add(1.0)
    assert cow.COUNTERS.bytes_copied == 0
    assert float(x[1]) == 2.0


def test_moved_array_keeps_the_sharing_of_x(backend_device: ca.Device) -> None:
    x = ca.arange(4.0, device=backend_device)
    clone = ca.lazy_clone(x)
    y = ca.move(x)
    assert ca.shares_buffer(y, clone)
    y[0] = 9.0  # the clone still holds the buffer: y copies first
    assert float(clone[0]) == 0.0 and float(y[0]) == 9.0


USES: list[tuple[str, Callable[[ca.Array], object]]] = [
    ("shape", lambda x: x.shape),
    ("dtype", lambda x: x.dtype),
    ("ndim", lambda x: x.ndim),
    ("size", lambda x: x.size),
    ("T", lambda x: x.T),
    ("repr", repr),
    ("str", str),
    ("add", lambda x: x + 1),
    ("radd", lambda x: 1 + x),
    ("iadd", lambda x: x.__iadd__(1)),
    ("negative", lambda x: -x),
    ("equal", lambda x: x == x),
    ("getitem", lambda x: x[0]),
    ("setitem", lambda x: x.__setitem__(0, 1.0)),
    ("len", len),
    ("iter", lambda x: list(x)),
    ("bool", bool),
    ("float", float),
    ("np.asarray", np.asarray),
    ("np.array copy", lambda x: np.array(x, copy=True)),
    ("function", ca.sum),
    ("elementwise", ca.sin),
    ("lazy_clone", ca.lazy_clone),
    ("copy.copy", copy.copy),
    ("pickle", pickle.dumps),
    ("at", lambda x: x.at[0].set(1.0)),
    ("at get", lambda x: x.at[0].get()),
    ("move again", ca.move),
    ("cow_info", ca.cow_info),
    ("to_device", lambda x: x.to_device("cpu")),
    ("device use", lambda x: x.device.backend),
]


@pytest.mark.parametrize("use", [u[1] for u in USES], ids=[u[0] for u in USES])
def test_every_use_of_a_moved_array_raises_a_clear_error(
    use: Callable[[ca.Array], object], backend_device: ca.Device
) -> None:
    x = ca.asarray([[1.0, 2.0], [3.0, 4.0]], device=backend_device)
    y = ca.move(x)
    with pytest.raises(ValueError, match=MOVED):
        use(x)
    assert to_numpy(y).tolist() == [[1.0, 2.0], [3.0, 4.0]]


def test_move_refuses_what_is_not_an_array() -> None:
    with pytest.raises(TypeError, match="move: x must be a cowarray Array"):
        ca.move(np.zeros(3))  # type: ignore[arg-type]
