"""Wrapping backend results that may be an input itself, or view one.

:func:`cowarray._array.wrap` joins a result that *views* an input to that
input's buffer. A backend may also hand back the input object unchanged
(NumPy's ``broadcast_arrays`` when no broadcasting is needed, ``real`` of a
real array); that result must become a lazy clone, never a second Array
around the same backend array with no sharing record.
"""

from __future__ import annotations

from typing import Any

from .._array import Array, lazy_clone, wrap
from .._devices import Device

__all__ = ["derived"]


def derived(result: Any, device: Device, inputs: tuple[Array, ...]) -> Array:
    """A value for ``result``, which may be, view or be fresh from ``inputs``."""
    for source in inputs:
        if result is source._data:
            return lazy_clone(source)
    return wrap(result, device, inputs)
