"""Sliding windows: NumPy's ``numpy.lib.stride_tricks.sliding_window_view``.

xarray's ``rolling`` asks an array namespace for
``xp.lib.stride_tricks.sliding_window_view``; :mod:`cowarray.lib` re-exports
this one there.

On host memory the windows are a lazy value of ``x`` (rule 1): a read-only
view that overlaps itself, so it shares ``x``'s buffer at no cost and a write
to either expands the written one into compact memory first (rule 3), as a
broadcast view does. Backends whose views cannot be marked read-only (CuPy)
get the windows as a fresh copy: a write to an overlapping view written in
place would change several windows at once.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy

from .._array import Array, fresh
from .._core import view
from ._args import normalize_axis, require_array

__all__ = ["sliding_window_view"]


def _window_sizes(window_shape: object) -> tuple[int, ...]:
    sizes = window_shape if isinstance(window_shape, (tuple, list)) else (window_shape,)
    result = []
    for size in sizes:
        if isinstance(size, bool):
            raise TypeError("sliding_window_view: window_shape must hold ints, got a bool")
        try:
            result.append(operator.index(size))
        except TypeError:
            raise TypeError(
                "sliding_window_view: window_shape must be an int or a tuple of ints, "
                f"got {type(size).__name__} {size!r}"
            ) from None
    for size in result:
        if size < 0:
            raise ValueError(
                f"sliding_window_view: window_shape cannot hold negative sizes, got {size}"
            )
    return tuple(result)


def _sizes(count: int) -> str:
    return f"{count} size" if count == 1 else f"{count} sizes"


def _window_axes(axis: object, x: Array, count: int) -> tuple[int, ...]:
    if axis is None:
        if count != x.ndim:
            raise ValueError(
                f"sliding_window_view: window_shape has {_sizes(count)} but x has "
                f"{x.ndim} dimensions; give one size per axis, or pass axis="
            )
        return tuple(range(x.ndim))
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    if len(axes) != count:
        raise ValueError(
            f"sliding_window_view: window_shape has {_sizes(count)} and axis has "
            f"{len(axes)} entries; give one window size per axis"
        )
    return tuple(normalize_axis(a, x.ndim, "axis") for a in axes)


def _windows_by_gathering(xp: Any, data: Any, sizes: tuple[int, ...], axes: tuple[int, ...]) -> Any:
    """The windows as a compact copy, for backends without read-only views."""
    result = data
    for size, axis in zip(sizes, axes, strict=True):
        starts = xp.arange(result.shape[axis] - size + 1)
        index = xp.reshape(starts, (-1, 1)) + xp.reshape(xp.arange(size), (1, -1))
        result = xp.take(result, xp.reshape(index, (-1,)), axis=axis)
        shape = list(result.shape)
        shape[axis : axis + 1] = [starts.shape[0], size]
        result = xp.moveaxis(xp.reshape(result, tuple(shape)), axis + 1, -1)
    return result


def sliding_window_view(x: Array, window_shape: Any, axis: Any = None) -> Array:
    """Every window of ``window_shape`` that fits in ``x``, as NumPy gives them.

    Parameters
    ----------
    x : Array
    window_shape : int or tuple of int
        The window's size along each axis in ``axis``.
    axis : int or tuple of int, optional
        The axes the window slides along; all of ``x``'s axes by default
        (``window_shape`` then has one size per axis). An axis may repeat.

    Returns
    -------
    Array
        ``x``'s shape with each windowed axis shortened to ``n - size + 1``,
        followed by the window's axes. A lazy value of ``x`` on the host:
        writing to it, or to ``x``, never changes the other.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.lib.stride_tricks.sliding_window_view(ca.arange(5), 3)
    cowarray.Array([[0, 1, 2],
                    [1, 2, 3],
                    [2, 3, 4]], dtype=int64)
    """
    require_array(x, "x", "sliding_window_view")
    sizes = _window_sizes(window_shape)
    axes = _window_axes(axis, x, len(sizes))
    remaining = list(x.shape)
    for size, ax in zip(sizes, axes, strict=True):
        if size > remaining[ax]:
            raise ValueError(
                f"sliding_window_view: a window of {size} does not fit along axis {ax} "
                f"(length {remaining[ax]} left); use a window of at most {remaining[ax]}"
            )
        remaining[ax] -= size - 1
    data = x._data
    if type(data) is numpy.ndarray:  # (read-only: a write expands it)
        return view(x, numpy.lib.stride_tricks.sliding_window_view, sizes, axes)
    xp = x._device.backend.xp
    return fresh(_windows_by_gathering(xp, data, sizes, axes), x._device)
