"""What xarray asks of an array namespace, tested without xarray, against NumPy.

xarray calls ``xp.einsum`` with a NumPy operand beside an Array (``weighted``),
``xp.nanquantile(a, q=levels)`` with NumPy levels by keyword (``quantile``),
``xp.result_type`` of a lone NumPy scalar and catches TypeError (``where``
without ``other``; SciPy catches ValueError there), and ``xp.sum`` of a
boolean mask (``rolling`` counts).
"""

from __future__ import annotations

import numpy as np
import pytest
from _compare import host

import cowarray as ca

_DATA = np.asarray([[1.0, np.nan, 3.0], [4.0, 5.0, 6.5]])


def test_einsum_reads_a_numpy_operand_beside_an_array(backend_device: ca.Device) -> None:
    weights = np.asarray([1.0, 2.0, 0.5])
    x = ca.asarray(_DATA, device=backend_device)
    got = ca.einsum("ij,j->i", x, weights)
    assert type(got) is ca.Array and got.device == backend_device
    np.testing.assert_array_equal(host(got), np.einsum("ij,j->i", _DATA, weights))
    mask = ca.asarray([[True, False, True]], device=backend_device)
    np.testing.assert_array_equal(
        host(ca.einsum("ij,j->i", mask, weights)),
        np.einsum("ij,j->i", np.asarray([[True, False, True]]), weights),
    )


def test_einsum_never_aliases_the_numpy_operand() -> None:
    source = np.arange(4.0).reshape(2, 2)
    got = ca.einsum("i,i->i", ca.ones(2), source[0])
    source[0, 0] = 100.0
    assert host(got).tolist() == [0.0, 1.0]
    got[1] = -1.0
    assert source[0].tolist() == [100.0, 1.0]


def test_einsum_refuses_other_operands_and_numpy_alone() -> None:
    with pytest.raises(TypeError, match=r"operands\[1\].*cowarray Array"):
        ca.einsum("i,i", ca.ones(2), [1.0, 2.0])
    with pytest.raises(TypeError, match="at least one operand must be a cowarray Array"):
        ca.einsum("i,i", np.ones(2), np.ones(2))


@pytest.mark.parametrize("function", ["quantile", "nanquantile", "percentile", "nanpercentile"])
def test_quantile_levels_by_keyword_and_as_a_numpy_array(function: str) -> None:
    scale = 100.0 if "percentile" in function else 1.0
    levels = np.asarray([0.1, 0.5, 0.9]) * scale
    expected = getattr(np, function)(_DATA, q=levels, axis=-1, method="linear")
    got = getattr(ca, function)(ca.asarray(_DATA), q=levels, axis=-1, method="linear")
    np.testing.assert_array_equal(host(got), expected)
    one = getattr(ca, function)(ca.asarray(_DATA), q=np.float32(0.5 * scale))
    np.testing.assert_array_equal(host(one), getattr(np, function)(_DATA, 0.5 * scale))


@pytest.mark.parametrize(
    ("levels", "error", "match"),
    [
        (np.asarray([[0.5]]), ValueError, "scalar or 1-D"),
        (np.asarray([True]), TypeError, "q must be real"),
        (np.asarray([0.5, 2.0]), ValueError, r"\[0, 1\]"),
        (np.bool_(True), TypeError, "q must be a real number"),
    ],
)
def test_bad_numpy_levels_are_refused(levels: object, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        ca.nanquantile(ca.asarray(_DATA), q=levels)


@pytest.mark.parametrize("scalars", [(np.float64(np.nan),), (1, 2.0), (True,), ()])
@pytest.mark.parametrize("error", [TypeError, ValueError])
def test_result_type_of_scalars_alone_is_both_errors_consumers_catch(
    scalars: tuple[object, ...], error: type[Exception]
) -> None:
    # xarray's result_type catches TypeError, SciPy's signal._logspace ValueError
    with pytest.raises(error, match="at least one Array or dtype"):
        ca.result_type(*scalars)


def test_result_type_with_an_array_still_takes_scalars() -> None:
    assert ca.result_type(ca.asarray([1.0], dtype=ca.float32), np.float64(np.nan)) == ca.float32
    assert ca.result_type(ca.int8, 1.0) == np.result_type(np.int8, 1.0)


def test_sum_of_booleans_counts_them_as_numpy_does(backend_device: ca.Device) -> None:
    mask = np.asarray([[True, False, True], [True, True, False]])
    x = ca.asarray(mask, device=backend_device)
    for axis in (None, 0, 1, (0, 1)):
        got = ca.sum(x, axis=axis)
        expected = np.sum(mask, axis=axis)
        assert got.dtype == expected.dtype == np.int64
        np.testing.assert_array_equal(host(got), expected)
    assert host(x.sum(axis=0)).tolist() == [2, 1, 1]
    assert ca.sum(x, dtype=ca.float32).dtype == ca.float32
