"""Helpers to run one test body on every available device and compare with NumPy.

``available_devices()`` lists the devices this machine can test: ``cpu``, the
simulated ``cpu:1``, and ``cuda:0`` when CuPy and a GPU are present. The
environment variable ``COWARRAY_TEST_DEVICES`` (comma-separated names)
narrows the list. Importing this module never imports CuPy unless asked.

One test body on every device, compared with NumPy (as CuPy's
``numpy_cupy_allclose`` does)::

    import numpy as np
    import pytest

    import cowarray as ca
    from cowarray.testing import assert_equal_to_model, available_devices


    @pytest.mark.parametrize("device", available_devices(), ids=str)
    def test_cumsum_matches_numpy(device):
        x = ca.arange(5, device=device)
        assert_equal_to_model(ca.cumsum(x), np.cumsum(np.arange(5)))
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
    """The devices to run tests on, narrowed by ``COWARRAY_TEST_DEVICES``.

    Examples
    --------
    >>> from cowarray.testing import available_devices
    >>> [str(d) for d in available_devices()][:2]  # doctest: +SKIP
    ['cpu', 'cpu:1']
    """
    names = ["cpu", "cpu:1"]
    if _cuda_available():
        names.append("cuda:0")
    wanted = os.environ.get("COWARRAY_TEST_DEVICES")
    if wanted:
        chosen = {name.strip() for name in wanted.split(",") if name.strip()}
        names = [name for name in names if name in chosen]
    return [Device(name) for name in names]


def to_numpy(x: Array) -> Any:
    """A NumPy copy of ``x``'s values (from any device), for comparisons.

    Examples
    --------
    >>> import cowarray as ca
    >>> from cowarray.testing import to_numpy
    >>> to_numpy(ca.arange(3))
    array([0, 1, 2])
    """
    return np.array(x._device.backend.to_numpy(x._data), copy=True)


def assert_equal_to_model(actual: Array, expected: Any) -> None:
    """Assert ``actual`` has ``expected``'s shape, dtype and values (NaN == NaN).

    Examples
    --------
    >>> import numpy as np
    >>> import cowarray as ca
    >>> from cowarray.testing import assert_equal_to_model
    >>> assert_equal_to_model(ca.asarray([1.0, ca.nan]), np.array([1.0, np.nan]))
    >>> assert_equal_to_model(ca.arange(3), np.arange(3.0))
    Traceback (most recent call last):
        ...
    AssertionError: dtype int64 != model float64
    """
    assert type(actual) is Array, f"expected a cowarray Array, got {type(actual).__name__}"
    values = to_numpy(actual)
    model = np.asarray(expected)
    assert values.shape == model.shape, f"shape {values.shape} != model {model.shape}"
    assert values.dtype == model.dtype, f"dtype {values.dtype} != model {model.dtype}"
    np.testing.assert_array_equal(values, model)
