"""Fixes found by running SciPy's and scikit-learn's array-API suites, against NumPy.

Each behaviour here is one that those libraries rely on (issue: SciPy and
scikit-learn give NumPy's answers); each compares with NumPy and checks that
a refusal is clear and changes nothing.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import cowarray as ca


def host(x: ca.Array) -> np.ndarray:
    return np.asarray(x, copy=True)


# -- a Python complex scalar with a real floating array (standard 2024.12) ----


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "operation",
    [
        lambda a, s: a * s,
        lambda a, s: s * a,
        lambda a, s: a + s,
        lambda a, s: s - a,
        lambda a, s: a / s,
        lambda a, s: a == s,
    ],
)
def test_complex_scalar_with_real_array_gives_complex_of_the_same_precision(
    dtype: str, operation: Any
) -> None:
    values = np.asarray([1.0, 2.5], dtype=dtype)
    result = operation(ca.asarray(values), 2j)
    expected = operation(values, 2j)
    assert result.dtype == expected.dtype
    np.testing.assert_allclose(host(result), expected)


def test_complex_scalar_in_functions_and_result_type() -> None:
    x = ca.asarray([1.0, -2.0], dtype=ca.float32)
    assert ca.result_type(x, 1j) == ca.complex64
    assert ca.add(x, 1j).dtype == ca.complex64
    assert ca.where(x > 0, x, 1j).dtype == ca.complex64
    np.testing.assert_array_equal(host(ca.where(x > 0, x, 1j)), [1.0, 1j])
    with pytest.raises(TypeError, match="complex"):
        ca.greater(x, 1j)  # ordering of complex numbers is not defined


def test_complex_scalar_cannot_change_an_array_in_place() -> None:
    x = ca.asarray([1.0, 2.0])
    with pytest.raises(TypeError, match="complex"):
        x += 1j
    with pytest.raises(TypeError, match="complex"):
        x[0] = 1j
    y = ca.asarray([1, 2])
    with pytest.raises(TypeError, match="int"):
        y *= 1j  # in place the integer array keeps its dtype
    assert (ca.asarray([1, 2]) * 1j).dtype == ca.complex128  # a new array promotes (NumPy's)
    assert host(x).tolist() == [1.0, 2.0]
    assert host(y).tolist() == [1, 2]


# -- NumPy scalars act as Python scalars of their kind ---------------------------


@pytest.mark.parametrize(
    ("scalar", "dtype"),
    [
        (np.float64(0.5), ca.float64),
        (np.float32(0.5), ca.float64),
        (np.float64(0.5), ca.float32),
        (np.int64(3), ca.int16),
        (np.int32(3), ca.float64),
        (np.bool_(True), ca.bool),
        (np.complex128(1j), ca.complex64),
    ],
)
def test_numpy_scalars_convert_like_python_scalars(scalar: Any, dtype: Any) -> None:
    x = ca.asarray(scalar, dtype=dtype)
    assert x.dtype == dtype and x.shape == ()
    assert host(x) == np.asarray(scalar).astype(dtype)


def test_numpy_scalars_without_a_dtype_keep_theirs() -> None:
    assert ca.asarray(np.float32(0.5)).dtype == ca.float32
    assert ca.asarray(np.int16(2)).dtype == ca.int16


def test_numpy_scalars_in_operators_and_functions_are_weak() -> None:
    x = ca.asarray([1.0, 4.0], dtype=ca.float32)
    assert (x * np.float64(2)).dtype == ca.float32  # weak, as a Python float
    np.testing.assert_array_equal(host(ca.clip(x, np.float64(2), np.int64(3))), [2.0, 3.0])
    np.testing.assert_array_equal(host(ca.full(2, np.float64(1.5))), [1.5, 1.5])
    assert ca.full(2, np.float64(1.5)).dtype == ca.float64
    np.testing.assert_array_equal(host(ca.where(x > 2, x, np.float64(0))), [0.0, 4.0])


@pytest.mark.parametrize("value", [0, 1, 2, -3, np.int8(1)])
def test_an_int_converts_to_bool_as_numpy(value: Any) -> None:
    # SciPy's ndimage tests compare with xp.asarray(1, dtype=out.dtype) on bool
    x = ca.asarray(value, dtype=ca.bool)
    assert x.dtype == ca.bool and bool(x) == bool(np.asarray(value, dtype=bool))


def test_numpy_scalars_of_the_wrong_kind_are_refused_clearly() -> None:
    with pytest.raises(TypeError, match=r"float64 scalar cannot be combined.*use an int"):
        ca.asarray(np.float64(0.5), dtype=ca.int64)
    with pytest.raises(TypeError, match="use an int"):
        ca.full(2, np.float64(1), dtype=ca.int64)
    # a new array promotes as with a Python float (NumPy 2 gives float64 too)
    assert (ca.asarray([1, 2]) + np.float64(1)).dtype == ca.float64


# -- unique_values is sorted ----------------------------------------------------


@pytest.mark.parametrize(
    "values",
    [[5, 3, 9, 1, 3], [2.0, np.nan, -1.0, 2.0], [[7, 1], [7, 0]], [True, False, True], []],
)
def test_unique_values_and_friends_are_sorted_as_numpys_unique(values: Any) -> None:
    data = np.asarray(values, dtype=float if values == [] else None)
    x = ca.asarray(data)
    expected = np.unique(data, equal_nan=False)
    np.testing.assert_array_equal(host(ca.unique_values(x)), expected)
    np.testing.assert_array_equal(host(ca.unique_counts(x).values), expected)
    np.testing.assert_array_equal(host(ca.unique_inverse(x).values), expected)
    np.testing.assert_array_equal(host(ca.unique_all(x).values), expected)


# -- NumPy index arrays ------------------------------------------------------------


def test_numpy_index_arrays_index_as_cowarray_ones() -> None:
    data = np.arange(10.0).reshape(2, 5)
    x = ca.asarray(data)
    rows, mask = np.asarray([1, 0, 1]), data[0] > 2
    np.testing.assert_array_equal(host(x[rows]), data[rows])
    np.testing.assert_array_equal(host(x[1, np.asarray([0, 4])]), data[1, [0, 4]])
    np.testing.assert_array_equal(host(x[0][mask]), data[0][mask])
    np.testing.assert_array_equal(host(x.at[:, np.asarray([0, 2])].set(-1.0))[:, 0], [-1, -1])
    y = ca.lazy_clone(x)
    y[np.asarray([0]), np.asarray([1])] = 100.0
    assert float(y[0, 1]) == 100.0 and float(x[0, 1]) == 1.0


def test_numpy_index_arrays_of_a_wrong_dtype_are_refused_and_change_nothing() -> None:
    x = ca.arange(5)
    with pytest.raises(IndexError, match="integer or boolean dtype"):
        x[np.asarray([0.0, 1.0])]
    with pytest.raises(IndexError, match="integer or boolean dtype"):
        x[np.asarray([0.5])] = 1
    assert host(x).tolist() == [0, 1, 2, 3, 4]


# -- 0-d arrays in Python's protocols behave as NumPy scalars ------------------------


def test_zero_d_arrays_format_round_and_are_not_iterable_as_numpy_scalars() -> None:
    data = np.asarray([1.256, 2.5])
    x = ca.asarray(data)
    assert f"{x[0]:.2f}" == f"{data[0]:.2f}" == "1.26"
    assert f"{ca.asarray(7):>4d}" == "   7"
    assert round(x[1]) == round(data[1]) == 2 and type(round(x[1])) is int
    rounded = round(x[0], 1)
    assert type(rounded) is ca.Array and float(rounded) == round(data[0], 1)
    assert np.iterable(x) and not np.iterable(x[0])
    with pytest.raises(TypeError, match="0-dimensional"):
        iter(x[0])  # at iter(), not at the first next()
    assert [float(v) for v in x] == [1.256, 2.5]


def test_zero_d_protocol_mistakes_are_clear() -> None:
    x = ca.asarray([1.0, 2.0])
    with pytest.raises(TypeError, match="0-dimensional"):
        f"{x:.2f}"
    with pytest.raises(TypeError, match="0-dimensional"):
        round(x)
    with pytest.raises(TypeError, match="complex"):
        round(ca.asarray(1j))
    assert f"{x}" == str(x) == str(np.asarray([1.0, 2.0]))


# -- the standard's leniencies: linspace, moveaxis, devices ----------------------------


def test_linspace_takes_zero_d_bounds_and_integer_dtypes_as_numpy() -> None:
    np.testing.assert_array_equal(
        host(ca.linspace(ca.asarray(0.0), ca.asarray(1.0), 5)), np.linspace(0.0, 1.0, 5)
    )
    for start, stop, num in [(0, 10, 4), (-3, 4, 6), (10, 0, 7)]:
        expected = np.linspace(start, stop, num, dtype=np.int32)
        result = ca.linspace(start, stop, num, dtype=ca.int32)
        assert result.dtype == ca.int32
        np.testing.assert_array_equal(host(result), expected)
    with pytest.raises(TypeError, match="0-d"):
        ca.linspace(ca.asarray([0.0]), 1.0, 3)
    with pytest.raises(TypeError, match="complex"):
        ca.linspace(0, 1j, 3, dtype=ca.float64)


def test_moveaxis_takes_lists_as_numpy() -> None:
    data = np.zeros((2, 3, 4))
    assert (
        ca.moveaxis(ca.asarray(data), [0, 1], [2, 0]).shape
        == np.moveaxis(data, [0, 1], [2, 0]).shape
    )
    with pytest.raises(TypeError, match="sequence of ints"):
        ca.moveaxis(ca.asarray(data), [0.5], [1])


def test_math_on_zero_d_arrays_uses_the_protocols() -> None:
    assert math.isclose(math.floor(ca.asarray(2.7)), 2)
    assert math.isclose(float(ca.asarray(2.5)), 2.5)


def test_arange_takes_zero_d_bounds_as_numpy() -> None:
    np.testing.assert_array_equal(host(ca.arange(ca.asarray(3))), np.arange(3))
    np.testing.assert_array_equal(
        host(ca.arange(0, ca.asarray(2.0), ca.asarray(0.5))), np.arange(0, 2.0, 0.5)
    )
    with pytest.raises(TypeError, match="0-d array"):
        ca.arange(ca.asarray([3]))


@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
def test_a_boolean_scalar_index_adds_an_axis_as_numpy(shape: tuple[int, ...]) -> None:
    data = np.arange(float(np.prod(shape))).reshape(shape)
    x = ca.asarray(data)
    for flag in (True, False):
        np.testing.assert_array_equal(host(x[flag]), data[flag])
        np.testing.assert_array_equal(host(x[..., flag]), data[..., flag])
    y = ca.lazy_clone(x)
    y[True] = -1.0
    assert (host(y) == -1.0).all() and host(x).tolist() == data.tolist()


def test_result_type_of_scalars_alone_is_a_clear_value_error() -> None:
    with pytest.raises(ValueError, match="at least one Array or dtype"):
        ca.result_type(1, 2.0)
