"""Indexing functions (Array API standard, "Indexing Functions")."""

from __future__ import annotations

import functools
import warnings

import numpy

from .._array import Array, fresh
from .._checks import common_device
from .._core import may_view
from ._args import normalize_axis, require_array
from ._out import write_out

__all__ = ["take", "take_along_axis"]


def _check_indices(x: Array, indices: Array, function: str) -> None:
    require_array(x, "x", function)
    require_array(indices, "indices", function)
    common_device(x, indices)
    if indices.dtype.kind not in "iu":
        raise TypeError(f"{function}: indices must have an integer dtype, got {indices.dtype}")


def _out_of_bounds(function: str, length: int, axis: int) -> IndexError:
    return IndexError(
        f"{function}: an index in indices is out of bounds for axis {axis} of length {length} "
        f"(valid: {-length} to {length - 1})"
    )


@functools.cache
def _take_out_casting() -> str:
    """NumPy's rule for ``take``'s ``out``, asked of the installed NumPy once:
    before 2.5 out's dtype must cast safely to the result's; 2.5 takes any
    out and casts (a complex out of real data included)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            numpy.take(numpy.zeros(1), numpy.zeros(1, dtype=numpy.intp), out=numpy.zeros(1, "c8"))
        except TypeError:
            return "reverse_safe"
    return "unsafe"


def take(
    x: Array, indices: Array, /, *, axis: int | None = None, out: Array | None = None
) -> Array:
    """The elements of ``x`` at ``indices`` along ``axis``.

    Parameters
    ----------
    x : Array
    indices : Array
        A 1-D integer array; negative entries count from the end.
    axis : int, optional
        Required when ``x`` has more than one dimension.
    out : Array, optional
        An Array of the result's shape to write the result into, through
        copy-on-write (NumPy's ``out=``): its dtype must cast safely to
        ``x``'s where the installed NumPy asks that (before 2.5); NumPy 2.5
        takes any dtype and casts. Keyword-only.

    Returns
    -------
    Array
        A new array: ``x``'s shape with ``axis`` replaced by ``len(indices)``
        (``out`` itself with ``out=``).

    Raises
    ------
    IndexError
        If an index is out of bounds.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.take(ca.asarray([10, 20, 30]), ca.asarray([2, -3]))
    cowarray.Array([30, 10], dtype=int64)
    >>> ca.take(ca.asarray([[1, 2], [3, 4]]), ca.asarray([1]), axis=1)
    cowarray.Array([[2],
                    [4]], dtype=int64)
    """
    if out is not None:
        return write_out(out, take(x, indices, axis=axis), "take", _take_out_casting())
    if (
        axis is None
        and type(x) is Array
        and type(indices) is Array
        and x._data.ndim == 1
        and indices._data.ndim == 1
        and indices._device is x._device
        and indices._data.dtype.kind in "iu"
    ):
        # the common case (a 1-D array, 1-D integer indices) in one pass
        try:
            return may_view(x._device.backend.xp.take(x._data, indices._data), x._device, (x,))
        except IndexError:
            raise _out_of_bounds("take", x._data.shape[0], 0) from None
    _check_indices(x, indices, "take")
    if indices.ndim != 1:
        raise ValueError(f"take: indices must be 1-dimensional, got shape {indices.shape}")
    if axis is None:
        if x.ndim > 1:
            raise ValueError(
                f"take: axis is required for an array with {x.ndim} dimensions; pass axis="
            )
        position = 0
    else:
        position = normalize_axis(axis, x.ndim)
    if x.ndim == 0:
        raise ValueError("take needs an array with at least one dimension")
    try:
        data = x._device.backend.xp.take(x._data, indices._data, axis=position)
    except IndexError:
        raise _out_of_bounds("take", x.shape[position], position) from None
    return fresh(data, x._device)


def take_along_axis(x: Array, indices: Array, /, *, axis: int = -1) -> Array:
    """The elements of ``x`` picked by ``indices`` along ``axis``, per position.

    ``indices`` has ``x``'s number of dimensions and broadcasts with it off
    ``axis``; typical use is with :func:`argsort`'s result.

    Parameters
    ----------
    x : Array
    indices : Array
        An integer array of ``x``'s number of dimensions; negative entries
        count from the end.
    axis : int, default -1

    Returns
    -------
    Array
        A new array: the broadcast shape of ``x`` and ``indices`` off ``axis``,
        ``indices.shape[axis]`` along it.

    Raises
    ------
    IndexError
        If an index is out of bounds.

    Examples
    --------
    >>> import cowarray as ca
    >>> x = ca.asarray([[3, 1, 2], [9, 7, 8]])
    >>> ca.take_along_axis(x, ca.argsort(x, axis=1), axis=1)
    cowarray.Array([[1, 2, 3],
                    [7, 8, 9]], dtype=int64)
    """
    _check_indices(x, indices, "take_along_axis")
    if indices.ndim != x.ndim:
        raise ValueError(
            f"take_along_axis: indices must have x's {x.ndim} dimensions, got {indices.ndim}"
        )
    position = normalize_axis(axis, x.ndim)
    length = x.shape[position]
    index = indices._data
    if index.size and (bool((index >= length).any()) or bool((index < -length).any())):
        raise _out_of_bounds("take_along_axis", length, position)
    for k in range(x.ndim):
        if (
            k != position
            and 1 not in (x.shape[k], indices.shape[k])
            and (x.shape[k] != indices.shape[k])
        ):
            raise ValueError(
                f"take_along_axis: indices of shape {indices.shape} do not broadcast with x of "
                f"shape {x.shape} off axis {position}"
            )
    data = x._device.backend.xp.take_along_axis(x._data, index, axis=position)
    return fresh(data, x._device)
