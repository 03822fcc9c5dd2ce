"""The CuPy backend's ``index_update`` (``x.at[...]``) on the stand-in ``cupy``.

CuPy leaves the value stored at a repeated position undefined, its atomics
cover few dtypes, and its double max/min round through float32; the backend
therefore sends some updates through the host. These tests check the results
against NumPy's in-order ``ufunc.at`` and which path each update takes. The
stand-in scatters as CuPy does (a repeated ``set`` keeps the first value, ``.at``
refuses the dtypes CuPy's atomics lack, float max/min drop NaN), so an update
sent to the GPU that should not be gives other numbers here.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _stand_in import fake_cupy, load_backend_module, make

MODEL_UFUNCS = {
    "add": np.add,
    "subtract": np.subtract,
    "multiply": np.multiply,
    "divide": np.divide,
    "pow": np.power,
    "minimum": np.minimum,
    "maximum": np.maximum,
}

# (name, index on the stand-in, the same index for NumPy), on a (4, 3) target
INDICES: list[tuple[str, Callable[[], Any], Any]] = [
    ("repeats", lambda: make([1, 3, 1, 1]), np.array([1, 3, 1, 1])),
    ("negative repeats", lambda: make([-1, 3]), np.array([-1, 3])),
    ("row slice", lambda: (make([2, 0, 2]), slice(0, 2)), (np.array([2, 0, 2]), slice(0, 2))),
    ("columns", lambda: (slice(None), make([2, 2])), (slice(None), np.array([2, 2]))),
    ("pairs", lambda: (make([0, 0, 3]), make([1, 1, 2])),
     (np.array([0, 0, 3]), np.array([1, 1, 2]))),
    ("mask and array", lambda: (make([True, False, True, True]), make([0, 0, 2])),
     (np.array([True, False, True, True]), np.array([0, 0, 2]))),
    ("basic", lambda: (slice(1, 3), 2), (slice(1, 3), 2)),
]  # fmt: skip


def _target(dtype: str) -> tuple[Any, np.ndarray]:
    model = (np.arange(12).reshape(4, 3) % 5 + 1).astype(dtype)
    return make(model), model


@pytest.mark.parametrize("op", ["set", *MODEL_UFUNCS])
@pytest.mark.parametrize(("name", "index", "model_index"), INDICES, ids=[i[0] for i in INDICES])
def test_index_update_matches_numpy_in_order_at(
    stand_in: types.ModuleType, op: str, name: str, index: Callable[[], Any], model_index: Any
) -> None:
    dtype = "float64" if op in ("divide", "pow") else "int64"
    target, model = _target(dtype)
    values = np.asarray(2, dtype=dtype)
    stand_in.CupyBackend(0).index_update(target, index(), make(values), op)
    if op == "set":
        model[model_index] = values
    else:
        MODEL_UFUNCS[op].at(model, model_index, values)
    np.testing.assert_array_equal(np.asarray(target), model)


def test_set_with_repeated_positions_keeps_the_last_value(stand_in: types.ModuleType) -> None:
    target, _ = _target("float32")
    values = make(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]], "float32"))
    stand_in.CupyBackend(0).index_update(target, make([2, 0, 2]), values, "set")
    np.testing.assert_array_equal(np.asarray(target)[2], [7.0, 8.0, 9.0])
    np.testing.assert_array_equal(np.asarray(target)[0], [4.0, 5.0, 6.0])


@pytest.mark.parametrize(
    ("op", "dtype", "on_gpu"),
    [
        ("add", "float64", True),
        ("add", "int64", True),
        ("subtract", "uint32", True),
        ("maximum", "int32", True),
        ("add", "int8", False),  # CuPy's atomics lack 8- and 16-bit integers
        ("add", "complex128", False),
        ("maximum", "float64", False),  # CuPy's double atomicMax rounds through float32
        ("minimum", "float32", False),  # and drops NaN
        ("multiply", "float64", False),  # no atomic multiply
        ("set", "float64", False),  # CuPy leaves the stored value undefined
    ],
)
def test_repeated_positions_take_the_path_that_gets_them_right(
    stand_in: types.ModuleType,
    monkeypatch: pytest.MonkeyPatch,
    op: str,
    dtype: str,
    on_gpu: bool,
) -> None:
    paths: list[str] = []
    through_host = stand_in._update_through_host
    monkeypatch.setattr(
        stand_in,
        "_update_through_host",
        lambda *args: (paths.append("host"), through_host(*args))[1],
    )
    ufunc = stand_in.cupy.add if op in ("add", "subtract", "set") else getattr(stand_in.cupy, op)
    monkeypatch.setattr(
        stand_in.cupy, "add" if op in ("add", "subtract", "set") else op, _Spy(ufunc, paths)
    )
    target, model = _target(dtype)
    stand_in.CupyBackend(0).index_update(target, make([1, 1]), make(np.ones(3, dtype)), op)
    assert paths == (["gpu"] if on_gpu else ["host"])
    if op == "set":
        model[[1, 1]] = 1
    else:
        MODEL_UFUNCS[op].at(model, [1, 1], np.ones(3, dtype))
    np.testing.assert_array_equal(np.asarray(target), model)


def test_subtraction_on_unsigned_integers_wraps_as_numpy(stand_in: types.ModuleType) -> None:
    # subtract runs as the addition of -values: modular, so exact for unsigned too
    target = make(np.array([1, 5, 0], dtype="uint32"))
    stand_in.CupyBackend(0).index_update(
        target, make([0, 0, 2]), make(np.array([1, 2, 3], "uint32")), "subtract"
    )
    model = np.array([1, 5, 0], dtype="uint32")
    np.subtract.at(model, [0, 0, 2], np.array([1, 2, 3], "uint32"))
    np.testing.assert_array_equal(np.asarray(target), model)


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_floating_maximum_with_nan_propagates_nan(stand_in: types.ModuleType) -> None:
    target = make(np.array([1.0, 2.0]))
    stand_in.CupyBackend(0).index_update(
        target, make([0, 0]), make(np.array([np.nan, 5.0])), "maximum"
    )
    assert np.isnan(np.asarray(target)[0])


def test_a_cupy_whose_add_at_lacks_int64_adds_through_the_host(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # CuPy 14.0's add.at refuses int64 with a TypeError, after writing nothing
    backend_module = load_backend_module(monkeypatch, (14, 0))
    target, model = _target("int64")
    backend_module.CupyBackend(0).index_update(
        target, make([1, 1]), make(np.ones(3, "int64")), "add"
    )
    np.add.at(model, [1, 1], np.ones(3, "int64"))
    np.testing.assert_array_equal(np.asarray(target), model)


def test_the_stand_in_keeps_one_of_the_values_set_at_a_repeated_position() -> None:
    target = make(np.zeros(3))
    target[make([1, 1])] = make([5.0, 7.0])
    assert np.asarray(target).tolist() == [0.0, 5.0, 0.0]  # CuPy: either; the stand-in: the first


def test_the_stand_in_scatters_at_positions_with_cupys_atomics() -> None:
    # cupy/_core/_routines_indexing.pyx (_scatter_op_single), include/cupy/atomics.cuh
    cupy, old = fake_cupy(), fake_cupy((14, 0))
    for ufunc, dtype in [(cupy.add, "int8"), (cupy.subtract, "int64"), (old.add, "int64")]:
        with pytest.raises(TypeError, match="only supports"):
            ufunc.at(make(np.zeros(2, dtype)), make([0, 0]), 1)
    cupy.add.at(make(np.zeros(2, "int64")), make([0, 0]), 1)
    with pytest.raises(NotImplementedError):
        cupy.multiply.at(make(np.zeros(2)), make([0, 0]), 2.0)
    target = make(np.asarray([1.0, 0.1, np.nan]))
    cupy.maximum.at(target, make([0, 0, 1, 2]), make([np.nan, 2.0, 0.0, 3.0]))
    assert np.asarray(target).tolist() == [2.0, float(np.float32(0.1)), 3.0]


def test_a_selection_of_nothing_changes_nothing(stand_in: types.ModuleType) -> None:
    target, model = _target("float64")
    stand_in.CupyBackend(0).index_update(target, make(np.array([], "int64")), make(1.0), "multiply")
    np.testing.assert_array_equal(np.asarray(target), model)


class _Spy:
    """Wraps a stand-in ufunc: records ``.at`` calls, passes everything else on."""

    def __init__(self, ufunc: Any, paths: list[str]) -> None:
        self._ufunc = ufunc
        self._paths = paths

    def at(self, *args: Any) -> None:
        self._paths.append("gpu")
        self._ufunc.at(*args)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._ufunc(*args, **kwargs)
