"""sort and argsort: stable, descending, against NumPy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _compare import assert_matches, assert_value, host, strided
from _inputs import bits, nans_and_numbers
from hypothesis import HealthCheck, example, given, settings
from hypothesis.extra.array_api import make_strategies_namespace

import cowarray as ca

xps = make_strategies_namespace(ca)
NAN = math.nan


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_sort_ascending_matches_numpy(axis: int, backend_device: ca.Device) -> None:
    model = np.asarray([[3.0, NAN, -1.0, 2.0], [0.0, -0.0, 5.0, -math.inf]])
    x = strided(model, device=backend_device)
    result = ca.sort(x, axis=axis)
    assert_matches(result, np.sort(model, axis=axis, stable=True))
    assert result.device == backend_device
    assert_value(result, x)


@pytest.mark.parametrize("axis", [0, -1])
def test_sort_descending_is_the_reverse_of_ascending(axis: int, backend_device: ca.Device) -> None:
    model = np.asarray([[3, 1, 2, 1], [9, 9, -4, 0]], dtype="int16")
    result = ca.sort(ca.asarray(model, device=backend_device), axis=axis, descending=True)
    assert_matches(result, np.flip(np.sort(model, axis=axis), axis=axis))


def test_argsort_is_stable_in_both_directions(backend_device: ca.Device) -> None:
    model = np.asarray([2, 1, 2, 0, 1, 2])
    ascending = ca.argsort(ca.asarray(model, device=backend_device))
    assert_matches(ascending, np.argsort(model, stable=True))
    assert ascending.device == backend_device
    descending = ca.argsort(ca.asarray(model, device=backend_device), descending=True)
    assert_matches(descending, np.asarray([0, 2, 5, 1, 4, 3]))


def test_argsort_on_empty_and_two_d(backend_device: ca.Device) -> None:
    empty = ca.zeros((0,), device=backend_device)
    assert_matches(ca.argsort(empty), np.zeros((0,), dtype="int64"))
    model = np.asarray([[3.0, 1.0], [0.0, 2.0]])
    x = ca.asarray(model, device=backend_device)
    assert_matches(ca.argsort(x, axis=0), np.argsort(model, axis=0))


def test_sorting_refuses_bad_input() -> None:
    with pytest.raises(TypeError, match="sort"):
        ca.sort(ca.asarray([1j]))
    with pytest.raises(TypeError, match="descending"):
        ca.sort(ca.asarray([1]), descending=1)  # type: ignore[arg-type]
    with pytest.raises(IndexError, match="axis"):
        ca.argsort(ca.zeros(3), axis=1)
    with pytest.raises(ValueError, match="dimension"):
        ca.argsort(ca.asarray(1.0))


# backend_device is an immutable Device, so sharing it across examples is safe
@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    x=xps.arrays(dtype=xps.real_dtypes(), shape=xps.array_shapes(min_dims=1, max_dims=2)),
)
# many ties: an unstable sort reorders them, on any machine
@example(x=ca.asarray([i % 2 for i in range(40)]))
def test_argsort_descending_orders_like_a_stable_key_sort(
    backend_device: ca.Device, x: ca.Array
) -> None:
    x = x.to_device(backend_device)
    model = host(x)
    order = host(ca.argsort(x, axis=-1, descending=True))
    for row_model, row_order in zip(
        model.reshape(-1, model.shape[-1]), order.reshape(-1, model.shape[-1]), strict=True
    ):
        values = row_model.tolist()
        expected = sorted(
            range(len(values)),
            key=lambda i: (
                0 if values[i] != values[i] else 1,
                -values[i] if values[i] == values[i] else 0,
            ),
        )
        assert row_order.tolist() == expected


@pytest.mark.parametrize("descending", [False, True])
def test_sort_keeps_signed_zeros_in_their_original_order(
    descending: bool, backend_device: ca.Device
) -> None:
    model = np.asarray([0.0, -0.0, 1.0, -0.0, 0.0, -1.0])
    result = host(ca.sort(ca.asarray(model, device=backend_device), descending=descending))
    zeros = result[result == 0]
    assert np.signbit(zeros).tolist() == [False, True, True, False]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_puts_nans_of_any_sign_and_payload_last(
    dtype: str, descending: bool, backend_device: ca.Device
) -> None:
    model = nans_and_numbers(dtype)
    result = host(ca.sort(ca.asarray(model, device=backend_device), descending=descending))
    numbers = np.sort(model[~np.isnan(model)])
    nans, rest = (result[:4], result[4:]) if descending else (result[-4:], result[:-4])
    assert_matches(ca.asarray(rest), numbers[::-1] if descending else numbers)
    assert np.isnan(nans).all()
    payloads = sorted(bits(model[np.isnan(model)]))
    # Payloads survive where NumPy's own sort keeps them: its SIMD sort
    # writes back canonical NaNs on some processors (seen with AVX2).
    if sorted(bits(np.sort(model)[-4:])) == payloads:
        assert sorted(bits(nans)) == payloads


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("descending", [False, True])
def test_argsort_puts_nans_of_any_sign_and_payload_last_in_index_order(
    dtype: str, descending: bool, backend_device: ca.Device
) -> None:
    model = nans_and_numbers(dtype)
    order = ca.argsort(ca.asarray(model, device=backend_device), descending=descending)
    values = model.tolist()
    direction = -1 if descending else 1
    expected = sorted(
        range(len(values)),
        key=lambda i: (
            (0 if descending else 1) if math.isnan(values[i]) else (1 if descending else 0),
            0.0 if math.isnan(values[i]) else direction * values[i],
        ),
    )
    assert host(order).tolist() == expected
