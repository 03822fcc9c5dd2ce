"""Sorting functions (Array API standard, "Sorting Functions").

A descending sort that keeps equal elements in their original order is an
ascending stable sort of the reversed array, reversed back: it needs only the
backend's standard ``sort``/``argsort`` and ``flip``.

Sorting *values* (not indices), stability is visible only between elements
that compare equal yet differ: ``-0.0`` and ``0.0``. Integer and boolean
arrays, and floating arrays without both zeros, therefore take the backend's
faster unstable sort with the very same result; a 1-D floating array is
checked after that sort (a binary search for its zeros) and sorted again,
stably, in the rare case of mixed signed zeros. (NaN payloads, which the
standard leaves to the implementation, may come out in any order.)
"""

from __future__ import annotations

from typing import Any

from .._array import Array, fresh
from .._checks import REAL, accepts, check_dtypes
from ._args import normalize_axis, require_array

__all__ = ["argsort", "sort"]


def _check(function: str, x: Array, axis: int, descending: bool, stable: bool) -> int:
    require_array(x, "x", function)
    check_dtypes(function, x.dtype)
    for name, flag in (("descending", descending), ("stable", stable)):
        if type(flag) is not bool:
            raise TypeError(f"{function}: {name} must be a bool, got {type(flag).__name__}")
    if x.ndim == 0:
        raise ValueError(f"{function} needs an array with at least one dimension")
    return normalize_axis(axis, x.ndim)


@accepts(REAL)
def sort(x: Array, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> Array:
    """``x`` sorted along ``axis`` (NaNs last when ascending, first when descending).

    Parameters
    ----------
    x : Array
        A real-valued array with at least one dimension.
    axis : int, default -1
    descending : bool, default False
    stable : bool, default True
        Equal elements keep their relative order (always true here).

    Returns
    -------
    Array
        A new array of ``x``'s shape and dtype.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.sort(ca.asarray([3, 1, 2]), descending=True)
    cowarray.Array([3, 2, 1], dtype=int64)
    """
    position = _check("sort", x, axis, descending, stable)
    xp = x._device.backend.xp
    data = x._data
    source = xp.flip(data, axis=position) if descending else data
    if not stable or data.dtype.kind != "f":
        result = xp.sort(source, axis=position, stable=None)
    elif data.ndim == 1:
        result = xp.sort(source, axis=0, stable=None)
        if _mixed_zeros(xp, result):
            result = xp.sort(source, axis=0, stable=True)
    else:
        keep_order = True if bool((data == 0).any()) else None
        result = xp.sort(source, axis=position, stable=keep_order)
    if descending:
        result = xp.flip(result, axis=position)
    return fresh(result, x._device)


def _mixed_zeros(xp: Any, ordered: Any) -> bool:
    """Whether a sorted 1-D floating array holds both -0.0 and 0.0 (O(log n) mostly)."""
    start = int(xp.searchsorted(ordered, 0.0))
    if start + 1 >= ordered.shape[0] or ordered[start + 1] != 0:
        return False  # fewer than two zeros: nothing an unstable sort could swap
    stop = int(xp.searchsorted(ordered, 0.0, side="right"))
    signs = xp.signbit(ordered[start:stop])
    return bool(signs.any()) and not bool(signs.all())


@accepts(REAL)
def argsort(x: Array, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> Array:
    """The indices that sort ``x`` along ``axis`` (default index dtype, int64).

    Ties keep their original order, also when ``descending``.

    Parameters
    ----------
    x : Array
        A real-valued array with at least one dimension.
    axis : int, default -1
    descending : bool, default False
    stable : bool, default True
        Equal elements keep their relative order (always true here).

    Returns
    -------
    Array
        ``int64`` indices of ``x``'s shape.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.argsort(ca.asarray([2, 1, 2, 0]), descending=True)
    cowarray.Array([0, 2, 1, 3], dtype=int64)
    """
    position = _check("argsort", x, axis, descending, stable)
    xp = x._device.backend.xp
    if not descending:
        return fresh(xp.argsort(x._data, axis=position, stable=True), x._device)
    last = x.shape[position] - 1
    reversed_order = xp.argsort(xp.flip(x._data, axis=position), axis=position, stable=True)
    return fresh(last - xp.flip(reversed_order, axis=position), x._device)
