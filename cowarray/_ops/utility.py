"""Utility functions (Array API standard, "Utility Functions")."""

from __future__ import annotations

import builtins

from .._array import Array, fresh
from .._checks import NUMERIC, accepts, check_dtypes, common_device
from .._core import lazy_clone, may_view
from .._dtypes import promote
from ._args import normalize_axes, normalize_axis, require_array
from ._out import write_out

__all__ = ["all", "any", "diff"]

_NUMERIC_KINDS = "iufc"


def _logical_reduce(name: str, x: Array, axis: object, keepdims: bool) -> Array:
    require_array(x, "x", name)
    if type(keepdims) is not bool:
        raise TypeError(f"{name}: keepdims must be a bool, got {type(keepdims).__name__}")
    axes = normalize_axes(axis, x.ndim)
    function = getattr(x._device.backend.xp, name)
    return fresh(function(x._data, axis=axes, keepdims=keepdims), x._device)


def all(
    x: Array,
    /,
    *,
    axis: int | tuple[int, ...] | None = None,
    keepdims: bool = False,
    out: Array | None = None,
) -> Array:
    """Whether every element over ``axis`` is true (non-zero; NaN counts as true).

    An empty reduction gives True.

    Parameters
    ----------
    x : Array
    axis : int, tuple of int or None
        The axes to reduce (all by default).
    keepdims : bool, default False
    out : Array, optional
        An Array of the result's shape to write the result into, through
        copy-on-write (NumPy's ``out=``; any dtype: True is 1); keyword-only.

    Returns
    -------
    Array
        A boolean array (``out`` itself with ``out=``).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.all(ca.asarray([[1, 0], [2, 3]]), axis=1)
    cowarray.Array([False,  True], dtype=bool)
    """
    if out is not None:
        return write_out(out, all(x, axis=axis, keepdims=keepdims), "all", "unsafe")
    return _logical_reduce("all", x, axis, keepdims)


def any(
    x: Array,
    /,
    *,
    axis: int | tuple[int, ...] | None = None,
    keepdims: bool = False,
    out: Array | None = None,
) -> Array:
    """Whether some element over ``axis`` is true (non-zero; NaN counts as true).

    An empty reduction gives False.

    Parameters
    ----------
    x : Array
    axis : int, tuple of int or None
        The axes to reduce (all by default).
    keepdims : bool, default False
    out : Array, optional
        An Array of the result's shape to write the result into, through
        copy-on-write (NumPy's ``out=``; any dtype: True is 1); keyword-only.

    Returns
    -------
    Array
        A boolean array (``out`` itself with ``out=``).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.any(ca.asarray([0.0, float("nan")]))
    cowarray.Array(True, dtype=bool)
    """
    if out is not None:
        return write_out(out, any(x, axis=axis, keepdims=keepdims), "any", "unsafe")
    return _logical_reduce("any", x, axis, keepdims)


@accepts(NUMERIC)
def diff(
    x: Array,
    /,
    *,
    axis: int = -1,
    n: int = 1,
    prepend: Array | None = None,
    append: Array | None = None,
) -> Array:
    """The ``n``-th forward difference ``x[i+1] - x[i]`` along ``axis``.

    Parameters
    ----------
    x : Array
        A numeric array with at least one dimension.
    axis : int, default -1
    n : int, default 1
        How many times to difference; ``0`` returns ``x``'s values (a lazy
        clone).
    prepend, append : Array, optional
        Values joined to ``x`` along ``axis`` first; their shape matches
        ``x``'s off ``axis``.

    Returns
    -------
    Array
        A new array of ``x``'s dtype, ``n`` shorter along ``axis`` (plus
        the joined lengths).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.diff(ca.asarray([1, 4, 9, 16]))
    cowarray.Array([3, 5, 7], dtype=int64)
    >>> ca.diff(ca.asarray([1, 4, 9]), n=2, prepend=ca.asarray([0]))
    cowarray.Array([2, 2], dtype=int64)
    """
    if (
        type(x) is Array
        and axis == -1
        and n == 1
        and type(n) is int
        and prepend is None
        and append is None
        and x._data.ndim
        and x._data.dtype.kind in _NUMERIC_KINDS
    ):
        # the common case: first differences along the last axis
        data = x._data
        result = x._device.backend.xp.subtract(data[..., 1:], data[..., :-1])
        return may_view(result, x._device, (x,))
    require_array(x, "x", "diff")
    check_dtypes("diff", x.dtype)
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"diff: n must be an int, got {type(n).__name__}")
    if n < 0:
        raise ValueError(f"diff: n must be non-negative, got {n}")
    if x.ndim == 0:
        raise ValueError("diff needs an array with at least one dimension")
    position = normalize_axis(axis, x.ndim)
    parts = [x]
    for name, extra in (("prepend", prepend), ("append", append)):
        if extra is None:
            continue
        require_array(extra, name, "diff")
        common_device(x, extra)
        promote(x.dtype, extra.dtype)
        if extra.ndim != x.ndim or builtins.any(
            extra.shape[k] != x.shape[k] for k in range(x.ndim) if k != position
        ):
            raise ValueError(
                f"diff: {name} has shape {extra.shape}, which does not match x's {x.shape} "
                f"off axis {position}"
            )
        parts.insert(0 if name == "prepend" else len(parts), extra)
    if n == 0 and len(parts) == 1:
        return lazy_clone(x)
    xp = x._device.backend.xp
    data = xp.concat([p._data for p in parts], axis=position) if len(parts) > 1 else x._data
    upper = tuple(slice(1, None) if k == position else slice(None) for k in range(x.ndim))
    lower = tuple(slice(None, -1) if k == position else slice(None) for k in range(x.ndim))
    for _ in range(n):
        data = xp.subtract(data[upper], data[lower])
    return may_view(data, x._device, (x,))
