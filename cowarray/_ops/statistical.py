"""Statistical functions (Array API standard, "Statistical Functions")."""

from __future__ import annotations

from typing import Any

from .._array import Array, wrap
from .._dtypes import to_dtype
from ._args import normalize_axes, require_array
from ._checks import check_dtypes

__all__ = ["max", "mean", "min", "sum"]


def _reduce(
    name: str,
    x: Array,
    axis: int | tuple[int, ...] | None,
    keepdims: bool,
    **options: Any,
) -> Array:
    require_array(x, "x", name)
    if type(keepdims) is not bool:
        raise TypeError(f"keepdims must be a bool, got {type(keepdims).__name__}")
    axes = normalize_axes(axis, x.ndim)
    function = getattr(x._device.backend.xp, name)
    return wrap(function(x._data, axis=axes, keepdims=keepdims, **options), x._device)


def sum(
    x: Array,
    /,
    *,
    axis: int | tuple[int, ...] | None = None,
    dtype: Any = None,
    keepdims: bool = False,
) -> Array:
    """The sum of ``x``'s elements over ``axis`` (all axes by default).

    Integer inputs sum in the default integer dtype of their signedness
    (``int64`` / ``uint64``) unless ``dtype`` says otherwise.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.sum(ca.asarray([[1, 2], [3, 4]]), axis=0)
    cowarray.Array([4, 6], dtype=int64)
    """
    require_array(x, "x", "sum")
    check_dtypes("sum", x.dtype)
    resolved = None if dtype is None else to_dtype(dtype)
    return _reduce("sum", x, axis, keepdims, dtype=resolved)


def _extremum(name: str, x: Array, axis: Any, keepdims: bool) -> Array:
    require_array(x, "x", name)
    check_dtypes(name, x.dtype)
    axes = normalize_axes(axis, x.ndim)
    reduced = range(x.ndim) if axes is None else axes
    if any(x.shape[a] == 0 for a in reduced):
        raise ValueError(f"{name} of an empty array (shape {x.shape}) is undefined")
    return _reduce(name, x, axis, keepdims)


def max(x: Array, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Array:
    """The largest element of ``x`` over ``axis``; NaN propagates.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.max(ca.asarray([3, 1, 2]))
    cowarray.Array(3, dtype=int64)
    """
    return _extremum("max", x, axis, keepdims)


def min(x: Array, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Array:
    """The smallest element of ``x`` over ``axis``; NaN propagates.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.min(ca.asarray([3, 1, 2]))
    cowarray.Array(1, dtype=int64)
    """
    return _extremum("min", x, axis, keepdims)


def mean(
    x: Array, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False
) -> Array:
    """The arithmetic mean of a floating-point array over ``axis``.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.mean(ca.asarray([1.0, 2.0, 6.0]))
    cowarray.Array(3., dtype=float64)
    """
    require_array(x, "x", "mean")
    if x.dtype.kind not in "fc":
        raise TypeError(
            f"mean is defined for floating-point arrays, got {x.dtype}; "
            "convert with astype(x, float64) first"
        )
    return _reduce("mean", x, axis, keepdims)
