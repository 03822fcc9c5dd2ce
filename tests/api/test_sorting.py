"""sort and argsort: stable, descending, against NumPy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _compare import assert_matches, assert_value, host, strided
from hypothesis import given, settings
from hypothesis.extra.array_api import make_strategies_namespace

import cowarray as ca

xps = make_strategies_namespace(ca)
NAN = math.nan


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_sort_ascending_matches_numpy(axis: int) -> None:
    model = np.asarray([[3.0, NAN, -1.0, 2.0], [0.0, -0.0, 5.0, -math.inf]])
    x = strided(model)
    result = ca.sort(x, axis=axis)
    assert_matches(result, np.sort(model, axis=axis, stable=True))
    assert_value(result, x)


@pytest.mark.parametrize("axis", [0, -1])
def test_sort_descending_is_the_reverse_of_ascending(axis: int) -> None:
    model = np.asarray([[3, 1, 2, 1], [9, 9, -4, 0]], dtype="int16")
    result = ca.sort(ca.asarray(model), axis=axis, descending=True)
    assert_matches(result, np.flip(np.sort(model, axis=axis), axis=axis))


def test_argsort_is_stable_in_both_directions() -> None:
    model = np.asarray([2, 1, 2, 0, 1, 2])
    ascending = ca.argsort(ca.asarray(model))
    assert_matches(ascending, np.argsort(model, stable=True))
    descending = ca.argsort(ca.asarray(model), descending=True)
    assert_matches(descending, np.asarray([0, 2, 5, 1, 4, 3]))


def test_argsort_on_empty_and_two_d() -> None:
    assert_matches(ca.argsort(ca.zeros((0,))), np.zeros((0,), dtype="int64"))
    model = np.asarray([[3.0, 1.0], [0.0, 2.0]])
    assert_matches(ca.argsort(ca.asarray(model), axis=0), np.argsort(model, axis=0))


def test_sorting_refuses_bad_input() -> None:
    with pytest.raises(TypeError, match="sort"):
        ca.sort(ca.asarray([1j]))
    with pytest.raises(TypeError, match="descending"):
        ca.sort(ca.asarray([1]), descending=1)  # type: ignore[arg-type]
    with pytest.raises(IndexError, match="axis"):
        ca.argsort(ca.zeros(3), axis=1)
    with pytest.raises(ValueError, match="dimension"):
        ca.argsort(ca.asarray(1.0))


@settings(max_examples=30, deadline=None)
@given(
    xps.arrays(dtype=xps.real_dtypes(), shape=xps.array_shapes(min_dims=1, max_dims=2)),
)
def test_argsort_descending_orders_like_a_stable_key_sort(x: ca.Array) -> None:
    model = np.array(x, copy=True)
    order = np.array(ca.argsort(x, axis=-1, descending=True), copy=True)
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
def test_sort_keeps_signed_zeros_in_their_original_order(descending: bool) -> None:
    model = np.asarray([0.0, -0.0, 1.0, -0.0, 0.0, -1.0])
    result = host(ca.sort(ca.asarray(model), descending=descending))
    zeros = result[result == 0]
    assert np.signbit(zeros).tolist() == [False, True, True, False]
