"""Data type functions (Array API standard, "Data Type Functions")."""

from __future__ import annotations

from typing import Any

from .._array import Array, lazy_clone, wrap
from .._devices import as_device
from .._dtypes import to_dtype
from ._args import require_array

__all__ = ["astype"]


def astype(x: Array, dtype: Any, /, *, copy: bool = True, device: Any = None) -> Array:
    """``x``'s values converted to ``dtype`` (and moved to ``device``).

    Parameters
    ----------
    x : Array
    dtype : dtype
        The target dtype. Casting a complex array to a real dtype raises
        TypeError (take ``real`` first); other casts follow NumPy.
    copy : bool, default True
        ``True`` always returns a new value (a lazy clone, O(1), when nothing
        changes). ``False`` returns ``x`` itself when dtype and device already
        match.
    device : Device or str, optional

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.astype(ca.asarray([1.7, -2.2]), ca.int32)
    cowarray.Array([ 1, -2], dtype=int32)
    """
    require_array(x, "x", "astype")
    target_dtype = to_dtype(dtype)
    if type(copy) is not bool:
        raise TypeError(f"copy must be True or False, got {copy!r}")
    if device is not None and as_device(device) is not x._device:
        x = x.to_device(device)
        copy = False  # the move already made a new value
    if target_dtype == x.dtype:
        return lazy_clone(x) if copy else x
    if x.dtype.kind == "c" and target_dtype.kind != "c":
        raise TypeError(
            f"casting complex {x.dtype} to {target_dtype} would drop the imaginary part; "
            "take real(x) or abs(x) first"
        )
    return wrap(x._device.backend.xp.astype(x._data, target_dtype), x._device)
