"""Helpers to run one test body on every available device and compare with NumPy.

``available_devices()`` lists the devices this machine can test: ``cpu``, the
simulated ``cpu:1``, and ``cuda:0`` when CuPy and a GPU are present. The
environment variable ``COWARRAY_TEST_DEVICES`` (comma-separated names)
narrows the list. Importing this module never imports CuPy unless asked.
"""

from __future__ import annotations

import importlib.util
import os
from typing import Any

import numpy as np

from .._array import Array
from .._devices import Device

__all__ = ["assert_equal_to_model", "available_devices", "to_numpy"]


def _cuda_available() -> bool:
    if importlib.util.find_spec("cupy") is None:
        return False
    try:
        import cupy

        return bool(cupy.cuda.runtime.getDeviceCount() > 0)
    except Exception:  # no driver, no device: nothing to test there
        return False


def available_devices() -> list[Device]:
    """The devices to run tests on, narrowed by ``COWARRAY_TEST_DEVICES``."""
    names = ["cpu", "cpu:1"]
    if _cuda_available():
        names.append("cuda:0")
    wanted = os.environ.get("COWARRAY_TEST_DEVICES")
    if wanted:
        chosen = {name.strip() for name in wanted.split(",") if name.strip()}
        names = [name for name in names if name in chosen]
    return [Device(name) for name in names]


def to_numpy(x: Array) -> Any:
    """A NumPy copy of ``x``'s values (from any device), for comparisons."""
    return np.array(x._device.backend.to_numpy(x._data), copy=True)


def assert_equal_to_model(actual: Array, expected: Any) -> None:
    """Assert ``actual`` has ``expected``'s shape, dtype and values (NaN == NaN)."""
    assert type(actual) is Array, f"expected a cowarray Array, got {type(actual).__name__}"
    values = to_numpy(actual)
    model = np.asarray(expected)
    assert values.shape == model.shape, f"shape {values.shape} != model {model.shape}"
    assert values.dtype == model.dtype, f"dtype {values.dtype} != model {model.dtype}"
    np.testing.assert_array_equal(values, model)
