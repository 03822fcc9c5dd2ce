"""Helpers for the API chapter tests: compare with NumPy, check value semantics."""

from __future__ import annotations

from typing import Any

import numpy as np

import cowarray as ca
from cowarray.testing import to_numpy


def host(x: ca.Array) -> np.ndarray:
    """A private NumPy copy of ``x`` from any device (holds no share of its buffer)."""
    return to_numpy(x)


# Relative tolerance on a GPU, by precision: a few units in the last place for
# 16 and 32 bits (a GPU's math library rounds differently from NumPy's, so
# equality to the bit would fail there), well inside float64's precision for
# 64 bits. On the cpu cowarray computes with NumPy itself: 1e-12 for every float.
_GPU_RTOL = {2: 4e-3, 4: 1e-6, 8: 1e-12}
_CPU_RTOL = 1e-12


def _rtol(dtype: Any, device: ca.Device) -> float:
    """The relative tolerance of assert_matches for a floating-point ``dtype`` on ``device``."""
    if device.kind != "cuda":
        return _CPU_RTOL
    return _GPU_RTOL[np.finfo(dtype).dtype.itemsize]


def assert_matches(result: Any, expected: Any, *, exact: bool = False, atol: float = 0.0) -> None:
    """``result`` is a cowarray Array equal to ``expected`` in dtype, shape and values.

    Booleans and integers must be equal; floating-point values to 1e-12
    relative, or, on a cuda device, to a few units in the last place for 16
    and 32 bits (see ``_GPU_RTOL``), plus ``atol`` absolute (for results that
    cancel, or that a GPU flushes to zero); ``exact`` asks for equality everywhere.
    """
    assert type(result) is ca.Array, type(result)
    expected = np.asarray(expected)
    got = host(result)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    if exact or got.dtype.kind in "biu":
        np.testing.assert_array_equal(got, expected)
    else:
        rtol = _rtol(got.dtype, result.device)
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol, equal_nan=True)


def _different(value: Any) -> Any:
    if isinstance(value, (bool, np.bool_)):
        return not value
    return 0 if value != 0 else 1


def _poke(x: ca.Array) -> None:
    index = (0,) * x.ndim
    x[index] = _different(host(x)[index].item())


def assert_value(result: ca.Array, *inputs: ca.Array) -> None:
    """``result`` and ``inputs`` are independent values.

    Writing to ``result`` leaves every input as it was, and writing to an
    input afterwards leaves ``result`` as it was.
    """
    if result.size == 0:
        return
    before = [host(x) for x in inputs]
    _poke(result)
    after_write = host(result)
    for x, snapshot in zip(inputs, before, strict=True):
        np.testing.assert_array_equal(host(x), snapshot)
    for x in inputs:
        if x.size:
            _poke(x)
    np.testing.assert_array_equal(host(result), after_write)


def strided(values: Any, dtype: Any = None, device: ca.Device | None = None) -> ca.Array:
    """A non-contiguous cowarray view (every other element of the last axis)."""
    base = np.asarray(values, dtype=dtype)
    doubled = np.repeat(base, 2, axis=-1) if base.ndim else base
    x = ca.asarray(doubled, device=device)
    return x[..., ::2] if base.ndim else x
