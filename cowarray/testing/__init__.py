"""Helpers to run one test body on every available device and compare with NumPy.

``available_devices()`` lists the devices this machine can test, read from
the backend registry (``cowarray._backends.KINDS``): for each kind of device
present, its first device, or every one where the kind asks for that. Today
that is ``cpu``, the simulated ``cpu:1``, and ``cuda:0`` when CuPy and a GPU
are present; a new kind of device is tested once it is registered. The
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

import os
from typing import Any

import numpy as np

from .._array import Array
from .._backends import KINDS
from .._devices import Device

__all__ = ["assert_equal_to_model", "available_devices", "to_numpy"]


def available_devices() -> list[Device]:
    """The devices to run tests on: those the backend registry finds here,
    narrowed by ``COWARRAY_TEST_DEVICES``.

    Each registered kind of device contributes the first of its devices
    present on this machine, or all of them where the kind asks for that
    (``cpu`` and the simulated ``cpu:1``); a kind with none present (no GPU)
    contributes nothing. Asking may import a kind's library (CuPy, to count
    the GPUs).

    Returns
    -------
    list of Device
        In the registry's order: ``[cpu, cpu:1]``, then ``cuda:0`` where CuPy
        and a GPU are present. With ``COWARRAY_TEST_DEVICES`` set (``"cpu,cuda:0"``)
        only the devices it names.

    Examples
    --------
    >>> import cowarray as ca
    >>> from cowarray.testing import available_devices
    >>> all(isinstance(device, ca.Device) for device in available_devices())
    True
    >>> [str(d) for d in available_devices()]  # doctest: +SKIP
    ['cpu', 'cpu:1', 'cuda:0']
    """
    devices = []
    for kind in KINDS.values():
        present = kind.present()
        chosen = present if kind.test_every_index else present[:1]
        devices += [Device(kind.name, index) for index in chosen]
    wanted = os.environ.get("COWARRAY_TEST_DEVICES")
    if wanted:
        names = {name.strip() for name in wanted.split(",") if name.strip()}
        devices = [device for device in devices if str(device) in names]
    return devices


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
