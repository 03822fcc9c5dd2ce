"""Wrapping results that the backend has just allocated."""

from __future__ import annotations

from typing import Any

from .._array import Array, new_array, wrap
from .._devices import Device

__all__ = ["fresh"]


def fresh(data: Any, device: Device, inputs: tuple[Array, ...] = ()) -> Array:
    """An Array owning ``data``, a result the backend allocated for this call.

    Skips :func:`cowarray._array.wrap`'s view checks when the backend agrees
    that ``data`` owns its memory (the common case of joining, gathering and
    selecting); anything else goes through ``wrap`` with ``inputs``, the
    arrays the result could view.
    """
    backend = device.backend
    if type(data) is not backend.array_type:
        # a backend scalar (NumPy returns them for 0-d results): always fresh
        return new_array(backend.asarray(data), None, device)
    if data.base is None and not any(data is source._data for source in inputs):
        return new_array(data, None, device)
    return wrap(data, device, inputs)
