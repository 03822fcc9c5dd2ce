"""Statistical functions (Array API standard, "Statistical Functions")."""

from __future__ import annotations

from typing import Any

from .._array import Array, fresh
from .._checks import ANY, FLOATING, NUMERIC, REAL, REAL_FLOATING, accepts, check_dtypes
from .._dtypes import to_dtype
from ._args import normalize_axes, normalize_axis, require_array
from ._out import write_out

__all__ = [
    "cumulative_prod",
    "cumulative_sum",
    "max",
    "mean",
    "min",
    "prod",
    "std",
    "sum",
    "var",
]


def _reduce(
    name: str,
    x: Array,
    axis: int | tuple[int, ...] | None,
    keepdims: bool,
    **options: Any,
) -> Array:
    # (every caller has checked x)
    if type(keepdims) is not bool:
        raise TypeError(f"keepdims must be a bool, got {type(keepdims).__name__}")
    data = x._data
    axes = None if axis is None else normalize_axes(axis, data.ndim)
    function = getattr(x._device.backend.xp, name)
    return fresh(function(data, axis=axes, keepdims=keepdims, **options), x._device)


@accepts(ANY)
def sum(
    x: Array,
    /,
    *,
    axis: int | tuple[int, ...] | None = None,
    dtype: Any = None,
    keepdims: bool = False,
    out: Array | None = None,
) -> Array:
    """The sum of ``x``'s elements over ``axis`` (all axes by default).

    Integer inputs sum in the default integer dtype of their signedness
    (``int64`` / ``uint64``) unless ``dtype`` says otherwise. A boolean
    ``x`` counts its True elements in ``int64``, as NumPy does (the standard
    leaves booleans to the library; design rule 11).

    ``out=`` (keyword-only) writes the result into an Array of its shape
    through copy-on-write and returns that Array, as NumPy's ``out=``; the
    result is cast to out's dtype whatever it is (NumPy's unsafe casting for
    reductions).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.sum(ca.asarray([[1, 2], [3, 4]]), axis=0)
    cowarray.Array([4, 6], dtype=int64)
    >>> ca.sum(ca.asarray([True, False, True]))
    cowarray.Array(2, dtype=int64)
    """
    if out is not None:
        return write_out(out, sum(x, axis=axis, dtype=dtype, keepdims=keepdims), "sum", "unsafe")
    require_array(x, "x", "sum")
    check_dtypes("sum", x._data.dtype)
    if dtype is None:  # (no dtype= keyword to pass down: 1.5k instructions of x.sum())
        return _reduce("sum", x, axis, keepdims)
    return _reduce("sum", x, axis, keepdims, dtype=to_dtype(dtype))


def _extremum(name: str, x: Array, axis: Any, keepdims: bool) -> Array:
    require_array(x, "x", name)
    data = x._data
    check_dtypes(name, data.dtype)
    if not data.size:  # (else no axis is empty: the common case, no loop)
        axes = normalize_axes(axis, data.ndim)
        reduced = range(data.ndim) if axes is None else axes
        if any(data.shape[a] == 0 for a in reduced):
            raise ValueError(
                f"{name} of an empty array (shape {x.shape}) is undefined; pass a non-empty x"
            )
    return _reduce(name, x, axis, keepdims)


@accepts(REAL)
def max(
    x: Array,
    /,
    *,
    axis: int | tuple[int, ...] | None = None,
    keepdims: bool = False,
    out: Array | None = None,
) -> Array:
    """The largest element of ``x`` over ``axis``; NaN propagates.

    ``out=`` (keyword-only) writes the result into an Array of its shape
    through copy-on-write and returns it (NumPy's unsafe casting for
    reductions).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.max(ca.asarray([3, 1, 2]))
    cowarray.Array(3, dtype=int64)
    """
    if out is not None:
        return write_out(out, max(x, axis=axis, keepdims=keepdims), "max", "unsafe")
    return _extremum("max", x, axis, keepdims)


@accepts(REAL)
def min(
    x: Array,
    /,
    *,
    axis: int | tuple[int, ...] | None = None,
    keepdims: bool = False,
    out: Array | None = None,
) -> Array:
    """The smallest element of ``x`` over ``axis``; NaN propagates.

    ``out=`` (keyword-only) writes the result into an Array of its shape
    through copy-on-write and returns it (NumPy's unsafe casting for
    reductions).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.min(ca.asarray([3, 1, 2]))
    cowarray.Array(1, dtype=int64)
    """
    if out is not None:
        return write_out(out, min(x, axis=axis, keepdims=keepdims), "min", "unsafe")
    return _extremum("min", x, axis, keepdims)


@accepts(FLOATING)
def mean(
    x: Array,
    /,
    *,
    axis: int | tuple[int, ...] | None = None,
    keepdims: bool = False,
    out: Array | None = None,
) -> Array:
    """The arithmetic mean of a floating-point array over ``axis``.

    ``out=`` (keyword-only) writes the result into an Array of its shape
    through copy-on-write and returns it (NumPy's unsafe casting for
    reductions).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.mean(ca.asarray([1.0, 2.0, 6.0]))
    cowarray.Array(3., dtype=float64)
    """
    if out is not None:
        return write_out(out, mean(x, axis=axis, keepdims=keepdims), "mean", "unsafe")
    require_array(x, "x", "mean")
    if x.dtype.kind not in "fc":
        raise TypeError(
            f"mean is defined for floating-point arrays, got {x.dtype}; "
            "convert with astype(x, float64) first"
        )
    return _reduce("mean", x, axis, keepdims)


@accepts(NUMERIC)
def prod(
    x: Array,
    /,
    *,
    axis: int | tuple[int, ...] | None = None,
    dtype: Any = None,
    keepdims: bool = False,
    out: Array | None = None,
) -> Array:
    """The product of ``x``'s elements over ``axis`` (all axes by default).

    Integer inputs multiply in the default integer dtype of their signedness
    (``int64`` / ``uint64``) unless ``dtype`` says otherwise; an empty
    product is 1.

    Parameters
    ----------
    x : Array
        A numeric array.
    axis : int, tuple of int or None
        The axes to reduce (all by default).
    dtype : dtype, optional
        The dtype to multiply in and return.
    keepdims : bool, default False
    out : Array, optional
        An Array of the result's shape to write the result into, through
        copy-on-write (NumPy's ``out=``, unsafe casting); keyword-only.

    Returns
    -------
    Array
        ``out`` itself with ``out=``.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.prod(ca.asarray([[1, 2], [3, 4]]), axis=1)
    cowarray.Array([ 2, 12], dtype=int64)
    """
    if out is not None:
        result = prod(x, axis=axis, dtype=dtype, keepdims=keepdims)
        return write_out(out, result, "prod", "unsafe")
    require_array(x, "x", "prod")
    check_dtypes("prod", x.dtype)
    resolved = None if dtype is None else to_dtype(dtype)
    return _reduce("prod", x, axis, keepdims, dtype=resolved)


def _spread(
    name: str, x: Array, axis: int | tuple[int, ...] | None, correction: Any, keepdims: bool
) -> Array:
    require_array(x, "x", name)
    check_dtypes(name, x.dtype)
    if isinstance(correction, bool) or not isinstance(correction, (int, float)):
        raise TypeError(
            f"{name}: correction must be an int or a float, got {type(correction).__name__}"
        )
    if correction < 0:
        raise ValueError(f"{name}: correction must be non-negative, got {correction}")
    return _reduce(name, x, axis, keepdims, correction=correction)


@accepts(REAL_FLOATING)
def std(
    x: Array,
    /,
    *,
    axis: int | tuple[int, ...] | None = None,
    correction: int | float = 0.0,
    keepdims: bool = False,
    out: Array | None = None,
) -> Array:
    """The standard deviation of a real floating-point array over ``axis``.

    ``correction`` is subtracted from the number of elements in the divisor:
    0 for the population, 1 for the unbiased sample estimate (Bessel).

    Parameters
    ----------
    x : Array
        A real floating-point array.
    axis : int, tuple of int or None
        The axes to reduce (all by default).
    correction : int or float, default 0
        Non-negative.
    keepdims : bool, default False
    out : Array, optional
        An Array of the result's shape to write the result into, through
        copy-on-write (NumPy's ``out=``, with NumPy's casting rule: same-kind);
        keyword-only.

    Returns
    -------
    Array
        ``x``'s dtype; ``out`` itself with ``out=``.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.std(ca.asarray([1.0, 2.0, 3.0, 4.0]), correction=1)
    cowarray.Array(1.29099445, dtype=float64)
    """
    if out is not None:
        result = std(x, axis=axis, correction=correction, keepdims=keepdims)
        return write_out(out, result, "std", "same_kind")
    return _spread("std", x, axis, correction, keepdims)


@accepts(REAL_FLOATING)
def var(
    x: Array,
    /,
    *,
    axis: int | tuple[int, ...] | None = None,
    correction: int | float = 0.0,
    keepdims: bool = False,
    out: Array | None = None,
) -> Array:
    """The variance of a real floating-point array over ``axis``.

    ``correction`` is subtracted from the number of elements in the divisor:
    0 for the population, 1 for the unbiased sample estimate (Bessel).

    Parameters
    ----------
    x : Array
        A real floating-point array.
    axis : int, tuple of int or None
        The axes to reduce (all by default).
    correction : int or float, default 0
        Non-negative.
    keepdims : bool, default False
    out : Array, optional
        An Array of the result's shape to write the result into, through
        copy-on-write (NumPy's ``out=``, with NumPy's casting rule: unsafe);
        keyword-only.

    Returns
    -------
    Array
        ``x``'s dtype; ``out`` itself with ``out=``.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.var(ca.asarray([1.0, 2.0, 3.0, 4.0]))
    cowarray.Array(1.25, dtype=float64)
    """
    if out is not None:
        result = var(x, axis=axis, correction=correction, keepdims=keepdims)
        return write_out(out, result, "var", "unsafe")
    return _spread("var", x, axis, correction, keepdims)


def _cumulative(name: str, x: Array, axis: int | None, dtype: Any, include_initial: bool) -> Array:
    require_array(x, "x", name)
    check_dtypes(name, x.dtype)
    if type(include_initial) is not bool:
        raise TypeError(
            f"{name}: include_initial must be a bool, got {type(include_initial).__name__}"
        )
    if x.ndim == 0:
        raise ValueError(f"{name} needs an array with at least one dimension, x is 0-d")
    if axis is None:
        if x.ndim > 1:
            raise ValueError(
                f"{name}: axis is required for an array with {x.ndim} dimensions; pass axis="
            )
        position = 0
    else:
        position = normalize_axis(axis, x.ndim)
    resolved = None if dtype is None else to_dtype(dtype)
    function = getattr(x._device.backend.xp, name)
    data = function(x._data, axis=position, dtype=resolved, include_initial=include_initial)
    return fresh(data, x._device)


@accepts(NUMERIC)
def cumulative_sum(
    x: Array,
    /,
    *,
    axis: int | None = None,
    dtype: Any = None,
    include_initial: bool = False,
    out: Array | None = None,
) -> Array:
    """The running sum of ``x`` along ``axis`` (optional for 1-D arrays).

    Parameters
    ----------
    x : Array
        A numeric array with at least one dimension.
    axis : int, optional
    dtype : dtype, optional
        Small integer dtypes accumulate in ``int64`` / ``uint64`` by default.
    include_initial : bool, default False
        Start with the sum of nothing (0), making ``axis`` one longer.
    out : Array, optional
        An Array of the result's shape to write the result into, through
        copy-on-write (NumPy's ``out=``, unsafe casting); keyword-only.

    Returns
    -------
    Array
        A new array (``out`` itself with ``out=``); ``axis`` is one longer
        with ``include_initial``.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.cumulative_sum(ca.asarray([1, 2, 3]), include_initial=True)
    cowarray.Array([0, 1, 3, 6], dtype=int64)
    """
    if out is not None:
        result = cumulative_sum(x, axis=axis, dtype=dtype, include_initial=include_initial)
        return write_out(out, result, "cumulative_sum", "unsafe")
    return _cumulative("cumulative_sum", x, axis, dtype, include_initial)


@accepts(NUMERIC)
def cumulative_prod(
    x: Array,
    /,
    *,
    axis: int | None = None,
    dtype: Any = None,
    include_initial: bool = False,
    out: Array | None = None,
) -> Array:
    """The running product of ``x`` along ``axis`` (optional for 1-D arrays).

    Parameters
    ----------
    x : Array
        A numeric array with at least one dimension.
    axis : int, optional
    dtype : dtype, optional
        Small integer dtypes accumulate in ``int64`` / ``uint64`` by default.
    include_initial : bool, default False
        Start with the product of nothing (1), making ``axis`` one longer.
    out : Array, optional
        An Array of the result's shape to write the result into, through
        copy-on-write (NumPy's ``out=``, unsafe casting); keyword-only.

    Returns
    -------
    Array
        A new array (``out`` itself with ``out=``); ``axis`` is one longer
        with ``include_initial``.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.cumulative_prod(ca.asarray([[1, 2], [3, 4]]), axis=1)
    cowarray.Array([[ 1,  2],
                    [ 3, 12]], dtype=int64)
    """
    if out is not None:
        result = cumulative_prod(x, axis=axis, dtype=dtype, include_initial=include_initial)
        return write_out(out, result, "cumulative_prod", "unsafe")
    return _cumulative("cumulative_prod", x, axis, dtype, include_initial)
