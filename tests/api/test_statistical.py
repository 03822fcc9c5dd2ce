"""Statistical functions against NumPy: dtype=, keepdims=, correction=, include_initial=."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _compare import assert_matches, assert_value, host, strided

import cowarray as ca

NAN = math.nan


@pytest.mark.parametrize(
    ("dtype", "expected_dtype"),
    [("int8", "int64"), ("uint16", "uint64"), ("float32", "float32"), ("complex64", "complex64")],
)
def test_prod_uses_the_standard_default_accumulator(
    dtype: str, expected_dtype: str, backend_device: ca.Device
) -> None:
    model = np.asarray([[1, 2], [3, 4]], dtype=dtype)
    result = ca.prod(ca.asarray(model, device=backend_device))
    assert result.dtype == np.dtype(expected_dtype)
    assert_matches(result, np.prod(model).astype(expected_dtype))
    assert result.device == backend_device


@pytest.mark.parametrize(("axis", "keepdims"), [(0, False), (-1, True), ((0, 1), False)])
def test_prod_with_axis_keepdims_and_dtype(
    axis: int | tuple[int, ...], keepdims: bool, backend_device: ca.Device
) -> None:
    model = np.arange(1, 7, dtype="int32").reshape(2, 3)
    x = strided(model, device=backend_device)
    result = ca.prod(x, axis=axis, keepdims=keepdims, dtype=ca.float64)
    assert_matches(result, np.prod(model, axis=axis, keepdims=keepdims, dtype="float64"))
    assert_matches(ca.prod(ca.zeros((0,), device=backend_device)), np.asarray(1.0))


@pytest.mark.parametrize("name", ["std", "var"])
@pytest.mark.parametrize(
    ("axis", "correction", "keepdims"),
    [(None, 0, False), (0, 1, False), (-1, 0.5, True), ((0, 1), 1.0, False)],
)
def test_std_var_match_numpy(
    name: str,
    axis: int | tuple[int, ...] | None,
    correction: float,
    keepdims: bool,
    backend_device: ca.Device,
) -> None:
    model = np.asarray([[1.0, 2.0, 4.0], [8.0, -1.0, 0.5]], dtype="float32")
    x = strided(model, device=backend_device)
    result = getattr(ca, name)(x, axis=axis, correction=correction, keepdims=keepdims)
    expected = getattr(np, name)(model, axis=axis, ddof=correction, keepdims=keepdims)
    assert result.dtype == ca.float32
    assert result.device == backend_device
    np.testing.assert_allclose(host(result), expected, rtol=1e-6)


@pytest.mark.parametrize("name", ["std", "var"])
def test_std_var_refuse_bad_input(name: str) -> None:
    function = getattr(ca, name)
    with pytest.raises(TypeError, match=name):
        function(ca.asarray([1, 2]))
    with pytest.raises(TypeError, match="correction"):
        function(ca.asarray([1.0, 2.0]), correction="1")
    with pytest.raises(ValueError, match="correction"):
        function(ca.asarray([1.0, 2.0]), correction=-1)
    with pytest.raises(TypeError, match="keepdims"):
        function(ca.asarray([1.0, 2.0]), keepdims=1)


@pytest.mark.parametrize("name", ["cumulative_sum", "cumulative_prod"])
@pytest.mark.parametrize("include_initial", [False, True])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_cumulative_functions_match_numpy(
    name: str, include_initial: bool, axis: int, backend_device: ca.Device
) -> None:
    model = np.asarray([[1.0, 2.0, 3.0], [4.0, NAN, 6.0]])
    x = strided(model, device=backend_device)
    result = getattr(ca, name)(x, axis=axis, include_initial=include_initial)
    assert_matches(result, getattr(np, name)(model, axis=axis, include_initial=include_initial))
    assert result.device == backend_device
    assert_value(result, x)


@pytest.mark.parametrize("name", ["cumulative_sum", "cumulative_prod"])
@pytest.mark.parametrize(
    ("dtype", "expected"), [("int8", "int64"), ("uint8", "uint64"), ("float32", "float32")]
)
def test_cumulative_functions_default_dtype(
    name: str, dtype: str, expected: str, backend_device: ca.Device
) -> None:
    x = ca.asarray([1, 2, 3], dtype=dtype, device=backend_device)
    result = getattr(ca, name)(x)
    assert result.dtype == np.dtype(expected)
    explicit = getattr(ca, name)(x, dtype=ca.float64)
    assert explicit.dtype == ca.float64


@pytest.mark.parametrize("name", ["cumulative_sum", "cumulative_prod"])
def test_cumulative_functions_on_empty_and_bad_input(name: str, backend_device: ca.Device) -> None:
    function = getattr(ca, name)
    assert_matches(
        function(ca.zeros(0, device=backend_device), include_initial=True),
        np.asarray([0.0 if "sum" in name else 1.0]),
    )
    with pytest.raises(ValueError, match="axis is required"):
        function(ca.zeros((2, 2), device=backend_device))
    with pytest.raises(ValueError, match="0-d"):
        function(ca.asarray(1.0, device=backend_device))
    with pytest.raises(IndexError, match="axis"):
        function(ca.zeros(2, device=backend_device), axis=1)
    with pytest.raises(TypeError, match="include_initial"):
        function(ca.zeros(2, device=backend_device), include_initial=None)
    with pytest.raises(TypeError, match=name):
        function(ca.asarray([True], device=backend_device))


def test_sum_and_mean_keep_their_contract(backend_device: ca.Device) -> None:
    model = np.asarray([[1, 2], [3, 4]], dtype="int16")
    assert_matches(
        ca.sum(ca.asarray(model, device=backend_device), axis=1, keepdims=True),
        np.sum(model, axis=1, keepdims=True),
    )
    assert_matches(
        ca.mean(ca.asarray(model.astype("float32"), device=backend_device), axis=0),
        np.asarray([2.0, 3.0], dtype="float32"),
    )


@pytest.mark.parametrize("name", ["max", "min"])
def test_an_extremum_over_an_empty_axis_is_refused_and_others_are_numpys(name: str) -> None:
    x = ca.zeros((0, 3))
    for axis in (None, 0, (0, 1), -2):
        with pytest.raises(ValueError, match=rf"{name} of an empty array \(shape \(0, 3\)\)"):
            getattr(ca, name)(x, axis=axis)
    # Reducing only the non-empty axis is defined: an empty result, as in NumPy.
    result = getattr(ca, name)(x, axis=1)
    assert result.shape == (0,) and result.dtype == ca.float64
    values = np.array([[3.0, np.nan, 1.0], [2.0, 5.0, -1.0]])
    for axis in (None, 0, 1, (0, 1), ()):
        for keepdims in (False, True):
            np.testing.assert_array_equal(
                np.asarray(getattr(ca, name)(ca.asarray(values), axis=axis, keepdims=keepdims)),
                getattr(np, name)(values, axis=axis, keepdims=keepdims),
            )
    with pytest.raises(TypeError, match=f"{name} is defined for real-valued dtypes, got bool"):
        getattr(ca, name)(ca.asarray([True, False]))
