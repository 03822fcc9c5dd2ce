"""all, any and diff against NumPy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _compare import assert_matches, assert_value, host, strided

import cowarray as ca

NAN = math.nan


@pytest.mark.parametrize("name", ["all", "any"])
@pytest.mark.parametrize(
    ("axis", "keepdims"), [(None, False), (0, True), (-1, False), ((0, 1), True)]
)
@pytest.mark.parametrize("dtype", ["bool", "int8", "float64", "complex64"])
def test_all_any_match_numpy(
    name: str,
    axis: int | tuple[int, ...] | None,
    keepdims: bool,
    dtype: str,
    backend_device: ca.Device,
) -> None:
    model = np.asarray([[0, 1, 2], [3, 0, 0]]).astype(dtype)
    x = strided(model, device=backend_device)
    result = getattr(ca, name)(x, axis=axis, keepdims=keepdims)
    assert_matches(result, getattr(np, name)(model, axis=axis, keepdims=keepdims))
    assert result.device == backend_device


def test_all_any_on_empty_and_nan(backend_device: ca.Device) -> None:
    device = backend_device
    assert_matches(ca.all(ca.zeros((0,), device=device)), np.asarray(True))
    assert_matches(ca.any(ca.zeros((0, 3), device=device), axis=0), np.zeros(3, dtype=bool))
    assert_matches(ca.all(ca.asarray([NAN, -math.inf], device=device)), np.asarray(True))
    assert_matches(ca.any(ca.asarray([0j, 1j], device=device)), np.asarray(True))


@pytest.mark.parametrize(("axis", "n"), [(-1, 1), (0, 1), (1, 2), (-1, 0), (-1, 5)])
def test_diff_matches_numpy(axis: int, n: int, backend_device: ca.Device) -> None:
    model = np.asarray([[1.0, 4.0, 9.0, 16.0], [2.0, -1.0, NAN, 0.0]])
    x = strided(model, device=backend_device)
    result = ca.diff(x, axis=axis, n=n)
    assert_matches(result, np.diff(model, axis=axis, n=n))
    assert result.device == backend_device
    assert_value(result, x)


def test_diff_with_prepend_and_append(backend_device: ca.Device) -> None:
    model = np.arange(6).reshape(2, 3)
    front = np.asarray([[10], [20]])
    back = np.asarray([[1, 2], [3, 4]])
    x, before, after = (ca.asarray(a, device=backend_device) for a in (model, front, back))
    result = ca.diff(x, axis=1, prepend=before, append=after)
    assert_matches(result, np.diff(model, axis=1, prepend=front, append=back))


def test_diff_refuses_bad_input() -> None:
    x = ca.asarray([1, 2, 3])
    with pytest.raises(ValueError, match="non-negative"):
        ca.diff(x, n=-1)
    with pytest.raises(TypeError, match="n must be an int"):
        ca.diff(x, n=1.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="prepend"):
        ca.diff(ca.zeros((2, 2)), axis=1, prepend=ca.zeros((3, 1)))
    with pytest.raises(TypeError, match="diff"):
        ca.diff(ca.asarray([True, False]))
    with pytest.raises(ValueError, match="dimension"):
        ca.diff(ca.asarray(1))
    np.testing.assert_array_equal(host(x), [1, 2, 3])
