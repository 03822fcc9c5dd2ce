"""Inputs that tests in more than one folder build: NaNs by their bits, SPD matrices.

Importable as ``_inputs`` from every test module: pytest's default import mode
puts the folder of ``tests/conftest.py`` (this one) on ``sys.path``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

# NaNs with and without the sign bit (x86 makes inf - inf and 0 / 0 so) and with
# payloads. CuPy's 1-D radix sort, which its unique_* and isin use too, orders
# NaNs by these bits.
NAN_BITS = {
    "float32": [0xFFC00000, 0x7FC00003, 0x7FC00000, 0xFFC00001],
    "float64": [0xFFF8000000000000, 0x7FF8000000000003, 0x7FF8000000000000, 0xFFF8000000000001],
}


def nans_and_numbers(dtype: str) -> np.ndarray:
    """Ten numbers of ``dtype``, with the NaNs of ``NAN_BITS`` at 1, 3, 5 and 7."""
    size = np.dtype(dtype).itemsize
    nans = np.asarray(NAN_BITS[dtype], dtype=f"u{size}").view(dtype)
    model = np.asarray([2.0, 0, 1.0, 0, -np.inf, 0, np.inf, 0, -0.0, 0.0], dtype=dtype)
    model[1:8:2] = nans
    return model


def bits(values: Any) -> list[int]:
    """The bits of each float in ``values``, as unsigned integers (NaNs told apart)."""
    values = np.asarray(values)
    return values.view(f"u{values.dtype.itemsize}").tolist()


def positive_definite(rng: np.random.Generator, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    """A stack of Hermitian positive-definite matrices of ``shape``, drawn from ``rng``."""
    a = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    n = shape[-1]
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)).astype(dtype)
