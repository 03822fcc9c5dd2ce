"""NumPy arrays as operands of in-place operators, and NumPy exports that could
not be written (design rules 4 and 11), against NumPy's own behaviour."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import cowarray as ca
from cowarray._core.cow import FAST_WRITES

_INPLACE: dict[str, Callable[[Any, Any], Any]] = {
    "+=": operator.iadd,
    "-=": operator.isub,
    "*=": operator.imul,
    "/=": operator.itruediv,
    "**=": operator.ipow,
}


@pytest.mark.parametrize("op", list(_INPLACE))
@pytest.mark.parametrize("size", [3, 1 << 16])
def test_an_inplace_operator_with_an_ndarray_writes_the_array_itself(op: str, size: int) -> None:
    # NumPy: x += nd writes x, so every name and view of x sees it. Before,
    # Python fell back to nd.__radd__ and bound x to a new array: an export
    # of x and the caller's array silently kept the old values.
    operate = _INPLACE[op]
    x = ca.full(size, 2.0)
    model = np.full(size, 2.0)
    export = np.asarray(x)
    same = x
    operand = np.arange(size, dtype=np.float64) % 5 + 1.0
    x = operate(x, operand)
    model = operate(model, operand)
    assert x is same
    np.testing.assert_array_equal(np.asarray(x), model)
    np.testing.assert_array_equal(export, model)  # the export aliases x (rule 4)


def test_an_inplace_operator_reads_an_ndarray_that_aliases_the_array() -> None:
    x = ca.asarray([1.0, 2.0, 3.0])
    clone = ca.lazy_clone(x)
    x += np.asarray(x)  # the operand is x's own memory
    assert x.tolist() == [2.0, 4.0, 6.0]
    assert clone.tolist() == [1.0, 2.0, 3.0]


def test_a_lossy_inplace_operator_with_an_ndarray_raises_and_changes_nothing() -> None:
    x = ca.asarray([1, 2, 3])
    with pytest.raises(TypeError, match="in-place add would turn this int64 array into float64"):
        x += np.ones(3)
    assert x.tolist() == [1, 2, 3]
    with pytest.raises(TypeError):  # NumPy refuses it too
        model = np.asarray([1, 2, 3])
        model += np.ones(3)


def test_another_librarys_array_keeps_its_own_reflected_operator() -> None:
    da = pytest.importorskip("dask.array")
    x = ca.zeros(3)
    result = x + da.ones(3)
    assert type(result).__module__.startswith("dask")


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda: ca.broadcast_to(ca.asarray([1.0, 2.0]), (2, 2)), id="broadcast"),
        pytest.param(lambda: ca.asarray(_read_only(), copy=False), id="read-only foreign"),
    ],
)
def test_np_asarray_copy_false_refuses_memory_it_could_not_give_writable(
    make: Callable[[], ca.Array],
) -> None:
    x = make()
    before = np.array(x)
    with pytest.raises(ValueError, match="cannot export this array without copying"):
        np.asarray(x, copy=False)
    np.testing.assert_array_equal(np.array(x), before)
    assert ca.cow_info(x).state != "exposed"
    exported = np.asarray(x)  # copy=None: a writable copy of its own, exposed
    assert exported.flags.writeable


def _read_only() -> np.ndarray:
    memory = np.arange(3.0)
    memory.flags.writeable = False
    return memory


def test_an_empty_broadcast_view_exports_writable_with_copy_false() -> None:
    # Nothing in it can be written, so it needs no copy, and its export is
    # writable like every other (found by the random model, seed 65892).
    x = ca.broadcast_to(ca.asarray([1.0, 2.0]), (0, 2))
    exported = np.asarray(x, copy=False)
    assert exported.shape == (0, 2)
    assert exported.flags.writeable
    exported[...] = 5.0  # writes nothing, raises nothing


@pytest.mark.parametrize(
    ("target", "source"),
    [
        ("float64", "float64"),
        ("float64", "int64"),
        ("float32", "float64"),
        ("int8", "int64"),
        ("int64", "float64"),
        ("bool", "int64"),
        ("complex64", "float64"),
    ],
)
def test_an_ndarray_stored_into_a_slice_is_stored_as_the_same_values_as_an_array(
    target: str, source: str
) -> None:
    # x[a:b] = ndarray takes the backend's array as it is: it must store
    # (or refuse, changing nothing) exactly as x[a:b] = ca.asarray(ndarray).
    values = np.arange(4) * 100 + 1e300 * (source == "float64" and target == "float32")
    values = values.astype(source)
    outcomes = []
    for value in (values, ca.asarray(values)):
        x = ca.zeros(6, dtype=getattr(ca, target))
        x[0] = x[0]  # (private, as in a loop)
        with np.errstate(over="raise"):
            try:
                x[1:5] = value
            except Exception as error:  # the same refusal either way
                outcomes.append((type(error), str(error), np.asarray(x).tolist()))
            else:
                outcomes.append((None, "", np.asarray(x).tolist()))
    assert outcomes[0] == outcomes[1]
    if outcomes[0][0] is not None:
        assert outcomes[0][2] == np.zeros(6, dtype=target).tolist()  # unchanged


@pytest.mark.parametrize(
    "dtype", ["float64", "float32", "complex64", "int64", "int8", "uint8", "uint64", "bool"]
)
def test_a_numpy_scalar_of_the_arrays_dtype_is_stored_like_a_python_scalar(dtype: str) -> None:
    # x[i] = a[j] of a NumPy array a of x's dtype (ported code): stored without
    # the core once x is known private, like x[i] = 1.0; a clone still keeps
    # its values, and the result is NumPy's.
    source = np.array([0, 1, 3, 100], dtype=dtype)
    if dtype == "float32":
        source[3] = np.float32(3.0e38)  # (a Python float would need a checked cast)
    x = ca.asarray(np.zeros(4, dtype=dtype))
    model = np.zeros(4, dtype=dtype)
    x[0] = source[1]  # (a write through the core: x is then known private)
    model[0] = source[1]
    assert type(source[3]) in x._fast_write or not FAST_WRITES  # (none on free-threaded builds)
    clone = ca.lazy_clone(x)
    x[3] = source[3]
    model[3] = source[3]
    x[(2,)] = source[2]
    model[(2,)] = source[2]
    np.testing.assert_array_equal(np.asarray(x), model)
    assert np.asarray(x).dtype == dtype
    np.testing.assert_array_equal(np.asarray(clone), np.array([1, 0, 0, 0], dtype=dtype))
    if dtype == "bool":
        x |= source[1]  # the in-place operator's fast path takes it too
        model |= source[1]
    else:
        x += source[1]
        model += source[1]
    np.testing.assert_array_equal(np.asarray(x), model)


def test_a_numpy_scalar_of_another_dtype_goes_the_checked_way() -> None:
    x = ca.asarray(np.zeros(3, dtype=np.float32))
    x[0] = 1.0
    assert np.float64 not in x._fast_write and float not in x._fast_write
    with np.errstate(over="raise"), pytest.raises(FloatingPointError):
        x[1] = np.float64(1e300)  # cast beside the array first: nothing written
    assert np.asarray(x).tolist() == [1.0, 0.0, 0.0]
    i = ca.asarray(np.zeros(3, dtype=np.int64))
    i[0] = 1
    with pytest.raises(TypeError, match="cannot write float64 values into an int64 array"):
        i[1] = np.float64(2.5)
    assert np.asarray(i).tolist() == [1, 0, 0]
