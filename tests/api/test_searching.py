"""Searching functions against NumPy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _compare import assert_matches, assert_value, host, strided

import cowarray as ca

NAN = math.nan


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize(
    ("axis", "keepdims"), [(None, False), (None, True), (0, False), (-1, True)]
)
def test_arg_extrema_match_numpy(
    name: str, axis: int | None, keepdims: bool, backend_device: ca.Device
) -> None:
    model = np.asarray([[3.0, 7.0, 7.0], [-1.0, NAN, 2.0]])
    result = getattr(ca, name)(strided(model, device=backend_device), axis=axis, keepdims=keepdims)
    assert_matches(result, getattr(np, name)(model, axis=axis, keepdims=keepdims))
    assert result.dtype == ca.int64
    assert result.device == backend_device


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_arg_extrema_refuse_empty_and_complex(name: str) -> None:
    with pytest.raises(ValueError, match="empty"):
        getattr(ca, name)(ca.zeros((0, 2)), axis=0)
    with pytest.raises(TypeError, match=name):
        getattr(ca, name)(ca.asarray([1j]))


@pytest.mark.parametrize(
    ("axis", "keepdims"), [(None, False), (0, True), ((0, 1), False), (-1, False)]
)
def test_count_nonzero_matches_numpy(
    axis: int | tuple[int, ...] | None, keepdims: bool, backend_device: ca.Device
) -> None:
    model = np.asarray([[0.0, NAN, -0.0], [1.0, 2.0, 0.0]])
    result = ca.count_nonzero(
        ca.asarray(model, device=backend_device), axis=axis, keepdims=keepdims
    )
    expected = np.asarray(np.count_nonzero(model, axis=axis, keepdims=keepdims), dtype="int64")
    assert_matches(result, expected)
    assert result.device == backend_device


@pytest.mark.parametrize("shape", [(5,), (2, 3), (0, 4)])
def test_nonzero_returns_a_tuple_per_dimension(
    shape: tuple[int, ...], backend_device: ca.Device
) -> None:
    model = (np.arange(int(np.prod(shape))).reshape(shape) % 3 == 0).astype("int8")
    result = ca.nonzero(ca.asarray(model, device=backend_device))
    assert isinstance(result, tuple)
    for got, want in zip(result, np.nonzero(model), strict=True):
        assert_matches(got, want)
        assert got.device == backend_device


def test_nonzero_refuses_zero_d() -> None:
    with pytest.raises(ValueError, match="0-d"):
        ca.nonzero(ca.asarray(1))


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_matches_numpy(side: str, backend_device: ca.Device) -> None:
    sorted_model = np.asarray([1.0, 2.0, 2.0, 5.0])
    values = np.asarray([[0.0, 2.0], [5.0, 9.0]])
    x1 = ca.asarray(sorted_model, device=backend_device)
    result = ca.searchsorted(x1, ca.asarray(values, device=backend_device), side=side)  # type: ignore[arg-type]
    assert_matches(result, np.searchsorted(sorted_model, values, side=side))  # type: ignore[call-overload]
    assert result.device == backend_device
    scalar = ca.searchsorted(x1, 2, side=side)  # type: ignore[arg-type]
    assert_matches(scalar, np.asarray(np.searchsorted(sorted_model, 2.0, side=side)))  # type: ignore[call-overload]


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_finds_values_in_a_sort_of_nans_of_any_sign(
    side: str, backend_device: ca.Device
) -> None:
    # inf - inf has the sign bit on x86; CuPy's 1-D radix sort would put it
    # first, where no binary search expects a NaN
    model = np.asarray([2.0, NAN, 1.0, NAN, -math.inf, 0.0])
    model[[1, 3]] = np.asarray([0xFFF8000000000000, 0x7FF8000000000001], "u8").view("f8")
    ordered = ca.sort(ca.asarray(model, device=backend_device))
    values = np.asarray([-math.inf, 0.5, 1.0, 2.0, 3.0, math.inf, NAN])
    result = ca.searchsorted(ordered, ca.asarray(values, device=backend_device), side=side)  # type: ignore[arg-type]
    assert_matches(result, np.searchsorted(np.sort(model), values, side=side))  # type: ignore[call-overload]


def test_searchsorted_with_sorter(backend_device: ca.Device) -> None:
    model = np.asarray([5, 1, 3])
    order = np.argsort(model)
    result = ca.searchsorted(
        ca.asarray(model, device=backend_device),
        ca.asarray([4], device=backend_device),
        sorter=ca.asarray(order, device=backend_device),
    )
    assert_matches(result, np.searchsorted(model, [4], sorter=order))


def test_searchsorted_refuses_bad_input() -> None:
    with pytest.raises(ValueError, match="1-dimensional"):
        ca.searchsorted(ca.zeros((2, 2)), ca.zeros(1))
    with pytest.raises(ValueError, match="side"):
        ca.searchsorted(ca.zeros(2), ca.zeros(1), side="middle")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="real"):
        ca.searchsorted(ca.asarray([1, 2]), 1.5j)
    with pytest.raises(ValueError, match="sorter"):
        ca.searchsorted(ca.zeros(2), ca.zeros(1), sorter=ca.asarray([0]))


def test_where_matches_numpy_with_broadcasting_and_promotion(backend_device: ca.Device) -> None:
    cond = np.asarray([[True], [False]])
    a = np.asarray([1, 2, 3], dtype="int8")
    b = np.asarray([[10], [20]], dtype="int16")
    result = ca.where(
        ca.asarray(cond, device=backend_device),
        ca.asarray(a, device=backend_device),
        ca.asarray(b, device=backend_device),
    )
    assert_matches(result, np.where(cond, a, b))
    assert result.dtype == ca.int16
    assert result.device == backend_device


@pytest.mark.parametrize(
    ("x1", "x2", "dtype"),
    [(0.5, "array", "float32"), ("array", 2, "float32"), ("array", True, "bool")],
)
def test_where_takes_python_scalars_weakly(
    x1: object, x2: object, dtype: str, backend_device: ca.Device
) -> None:
    cond = np.asarray([True, False, True])
    model = np.asarray([1, 0, 1], dtype=dtype)
    array = ca.asarray(model, device=backend_device)
    a = array if x1 == "array" else x1
    b = array if x2 == "array" else x2
    result = ca.where(ca.asarray(cond, device=backend_device), a, b)  # type: ignore[arg-type]
    expected = np.where(cond, model if x1 == "array" else x1, model if x2 == "array" else x2)
    assert_matches(result, expected.astype(dtype))


def test_where_result_is_an_independent_value(backend_device: ca.Device) -> None:
    x = ca.asarray([1.0, 2.0], device=backend_device)
    result = ca.where(ca.asarray([True, True], device=backend_device), x, 0.0)
    assert_value(result, x)


def test_where_and_searchsorted_promote_across_kinds_as_numpy(backend_device: ca.Device) -> None:
    # design rule 11: NumPy 2's result dtypes across kinds
    cond = np.asarray([True, False])
    x = np.asarray([1, 2], dtype=np.int16)
    on = ca.asarray(cond, device=backend_device)
    ints = ca.asarray(x, device=backend_device)
    assert_matches(ca.where(on, ints, 1.5), np.where(cond, x, 1.5))
    floats = np.asarray([0.5, 2.5], dtype=np.float16)
    assert_matches(
        ca.where(on, ints, ca.asarray(floats, device=backend_device)), np.where(cond, x, floats)
    )
    assert_matches(ca.searchsorted(ints, 1.5), np.searchsorted(x, 1.5))
    assert_matches(
        ca.searchsorted(ints, ca.asarray(floats, device=backend_device)),
        np.searchsorted(x, floats),
    )


def test_where_refuses_bad_input(backend_device: ca.Device) -> None:
    def on_device(values: list[object]) -> ca.Array:
        return ca.asarray(values, device=backend_device)

    x = on_device([1, 2])
    with pytest.raises(TypeError, match="boolean"):
        ca.where(x, x, x)
    with pytest.raises(TypeError, match="at least one"):
        ca.where(on_device([True]), 1, 2)
    with pytest.raises(TypeError, match="Python scalar"):
        ca.where(on_device([True, False]), x, "1.5")
    # the shape errors are the backend's, which where rewrites
    with pytest.raises(ValueError, match=r"condition \(3,\), x1 \(2,\)"):
        ca.where(on_device([True, False, True]), x, x)
    with pytest.raises(ValueError, match="broadcast"):
        ca.where(on_device([True, False, True]), x, 0)
    np.testing.assert_array_equal(host(x), [1, 2])
