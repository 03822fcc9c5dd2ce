"""unique_* and isin against NumPy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _compare import assert_matches, assert_value, host, strided
from _inputs import NAN_BITS

import cowarray as ca

NAN = math.nan


def test_unique_all_fields_match_numpy(backend_device: ca.Device) -> None:
    model = np.asarray([[3, 1], [3, 2], [1, 3]])
    result = ca.unique_all(strided(model, device=backend_device))
    assert result._fields == ("values", "indices", "inverse_indices", "counts")
    expected = np.unique_all(model)
    for field in result._fields:
        assert_matches(getattr(result, field), getattr(expected, field))
        assert getattr(result, field).device == backend_device
    assert result.inverse_indices.shape == model.shape


def test_unique_treats_nans_as_distinct_and_signed_zeros_as_equal(
    backend_device: ca.Device,
) -> None:
    model = np.asarray([NAN, 0.0, -0.0, NAN, 1.0])
    values, counts = ca.unique_counts(ca.asarray(model, device=backend_device))
    assert int(ca.count_nonzero(ca.isnan(values))) == 2
    assert int(ca.count_nonzero(values == 0.0)) == 1
    got = host(counts)[~np.isnan(host(values))]
    assert sorted(got.tolist()) == [1, 2]
    unique = ca.unique_values(ca.asarray(model, device=backend_device))
    assert_matches(ca.sort(unique)[:2], np.asarray([-0.0, 1.0]))


def test_unique_inverse_rebuilds_the_input(backend_device: ca.Device) -> None:
    model = np.asarray([[5, 7, 5], [7, 7, 1]], dtype="uint8")
    values, inverse = ca.unique_inverse(ca.asarray(model, device=backend_device))
    assert inverse.dtype == ca.int64
    rebuilt = ca.take(values, ca.reshape(inverse, (-1,)))
    assert_matches(ca.reshape(rebuilt, model.shape), model)


def test_unique_on_empty_and_zero_d(backend_device: ca.Device) -> None:
    assert_matches(ca.unique_values(ca.zeros((0, 2), device=backend_device)), np.zeros(0))
    result = ca.unique_all(ca.asarray(4, device=backend_device))
    assert_matches(result.values, np.asarray([4]))
    assert_matches(result.inverse_indices, np.asarray(0))


def test_unique_results_are_independent_values(backend_device: ca.Device) -> None:
    x = ca.asarray([2, 1, 2], device=backend_device)
    values, _counts = ca.unique_counts(x)
    assert_value(values, x)
    assert_value(ca.unique_values(x), x)


@pytest.mark.parametrize("invert", [False, True])
def test_isin_matches_numpy(invert: bool, backend_device: ca.Device) -> None:
    a = np.asarray([[1, 5], [3, -2]])
    b = np.asarray([3, 1, 9])
    result = ca.isin(
        ca.asarray(a, device=backend_device), ca.asarray(b, device=backend_device), invert=invert
    )
    assert_matches(result, np.isin(a, b, invert=invert))
    assert result.device == backend_device


def test_isin_takes_python_scalars(backend_device: ca.Device) -> None:
    def on_device(values: list[float]) -> ca.Array:
        return ca.asarray(values, device=backend_device)

    scalar_first = ca.isin(2, on_device([1, 2]))
    assert_matches(scalar_first, np.asarray(True))
    assert scalar_first.device == backend_device
    assert_matches(ca.isin(on_device([1, 2]), 2), np.asarray([False, True]))
    assert_matches(ca.isin(on_device([NAN, 1.0]), on_device([NAN])), np.asarray([False, False]))


def test_isin_across_kinds_compares_as_numpy() -> None:
    # design rule 11: mixed kinds compare by value, as np.isin does
    assert_matches(ca.isin(ca.asarray([1, 2]), 1.0), np.isin([1, 2], 1.0))
    got = ca.isin(ca.asarray([1, 2, 3]), ca.asarray([1.0, 2.5]))
    assert_matches(got, np.isin([1, 2, 3], [1.0, 2.5]))


def test_isin_refuses_bad_input() -> None:
    with pytest.raises(TypeError, match="at least one"):
        ca.isin(1, 2)
    with pytest.raises(TypeError, match="Array or a Python scalar"):
        ca.isin(ca.asarray([1]), "1")
    with pytest.raises(TypeError, match="invert"):
        ca.isin(ca.asarray([1]), 1, invert=None)  # type: ignore[arg-type]


def _with_nans(dtype: str, values: list[float], where: list[int]) -> np.ndarray:
    """``values`` with the NaNs of ``NAN_BITS`` written at the positions ``where``."""
    size = np.dtype(dtype).itemsize
    model = np.asarray(values, dtype=dtype)
    model[where] = np.asarray(NAN_BITS[dtype][: len(where)], dtype=f"u{size}").view(dtype)
    return model


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_unique_counts_nans_of_any_sign_and_payload_as_distinct(
    dtype: str, backend_device: ca.Device
) -> None:
    model = _with_nans(dtype, [0, 1.0, 0, 1.0, 0, -2.0, 0], [0, 2, 4, 6]).reshape(7, 1)
    x = ca.asarray(model, device=backend_device)
    expected = np.unique_all(model)
    result = ca.unique_all(x)
    for field in result._fields:
        assert_matches(getattr(result, field), getattr(expected, field))
    values, counts = ca.unique_counts(x)
    assert_matches(values, expected.values)
    assert_matches(counts, expected.counts)
    assert_matches(ca.unique_values(x), expected.values)
    values, inverse = ca.unique_inverse(x)
    assert_matches(values, expected.values)
    rebuilt = host(values)[host(inverse)]
    size = model.dtype.itemsize
    np.testing.assert_array_equal(rebuilt.view(f"u{size}"), model.view(f"u{size}"))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("invert", [False, True])
def test_isin_finds_values_among_nans_of_any_sign_and_payload(
    dtype: str, invert: bool, backend_device: ca.Device
) -> None:
    x2 = ca.asarray(_with_nans(dtype, [2.0, 0, 1.0, 0], [1, 3]), device=backend_device)
    x1 = ca.asarray([1.0, 2.0, 3.0, NAN, -0.0], dtype=dtype, device=backend_device)
    result = ca.isin(x1, x2, invert=invert)
    assert_matches(result, np.asarray([True, True, False, False, False]) != invert)
    assert_matches(ca.isin(1.0, x2, invert=invert), np.asarray(not invert))
