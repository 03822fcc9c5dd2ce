"""NumPy's statistics beyond the standard: quantiles, NaN-skipping reductions, counts.

One implementation serves every backend, composed from standard operations
where CuPy lacks a function or computes it differently:

- ``quantile``, ``percentile``, ``median`` and their ``nan*`` forms sort
  the reduced axes and interpolate as NumPy does, for all 13 of NumPy's
  methods (CuPy has no ``nanquantile``/``nanpercentile`` and lacks three of
  the methods). The result has ``x``'s dtype for floating-point ``x`` (NumPy
  promotes with a ``q`` given as a list or array: float32 data with
  ``q=[0.5]`` gives float64 there) and ``float64`` for integers, or ``x``'s
  dtype with the discrete methods (``lower``, ``higher``, ``nearest``,
  ``inverted_cdf``, ``closest_observation``), as in NumPy. An empty
  reduction raises ValueError (NumPy: IndexError, or NaN with a warning).
- ``nansum``, ``nanprod``, ``nanmean``, ``nanvar``, ``nanstd``, ``nanmin``,
  ``nanmax``, ``nanargmin``, ``nanargmax``, ``nancumsum``, ``nancumprod``
  replace NaNs and reduce with the standard's functions; an all-NaN slice
  gives NaN (``nanargmin``/``nanargmax``: ValueError) without NumPy's
  RuntimeWarning.
- ``average`` converts integer data and weights to ``float64`` first, so
  integer data with float weights works as in NumPy.
- ``cumsum``, ``cumprod``, ``histogram`` and ``bincount`` call the backend's
  functions, which CuPy has with NumPy's signatures (``histogram`` takes an
  int or an Array of edges, not NumPy's strings such as ``"auto"``); the
  dtypes of their results are made NumPy's on every backend.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any, Final

import numpy

from .._array import Array, fresh
from .._checks import common_device
from .._core import may_view
from .._dtypes import to_dtype
from ._args import normalize_axes, normalize_axis, require_array
from ._out import write_out

__all__ = [
    "average",
    "bincount",
    "cumprod",
    "cumsum",
    "histogram",
    "median",
    "nanargmax",
    "nanargmin",
    "nancumprod",
    "nancumsum",
    "nanmax",
    "nanmean",
    "nanmedian",
    "nanmin",
    "nanpercentile",
    "nanprod",
    "nanquantile",
    "nanstd",
    "nansum",
    "nanvar",
    "percentile",
    "quantile",
]

Axis = int | tuple[int, ...] | None
QuantileArg = float | Sequence[float] | Array | numpy.ndarray[Any, Any]


def _check_bool(value: object, name: str, function: str) -> None:
    if type(value) is not bool:
        raise TypeError(f"{function}: {name} must be a bool, got {type(value).__name__}")


def _numeric(x: object, function: str, kinds: str = "biufc") -> Array:
    require_array(x, "a", function)
    assert type(x) is Array
    if x.dtype.kind not in kinds:
        described = {"biuf": "real", "iuf": "real numeric", "biufc": "numeric"}.get(kinds, kinds)
        raise TypeError(f"{function} is defined for {described} arrays, got dtype {x.dtype}")
    return x


def _dtype_or_none(dtype: Any) -> Any:
    return None if dtype is None else to_dtype(dtype)


def _float_data(x: Array) -> Any:
    """``x``'s data, as ``float64`` unless it is floating-point already."""
    data = x._data
    if data.dtype.kind in "fc":
        return data
    return x._device.backend.xp.astype(data, to_dtype("float64"))


def _reduced(x: Array, axes: tuple[int, ...] | None) -> tuple[int, ...]:
    return tuple(range(x.ndim)) if axes is None else axes


def _nan_free(x: Array, fill: float) -> Any:
    """``x``'s data with NaNs replaced by ``fill`` (integers as they are)."""
    data = x._data
    if data.dtype.kind not in "fc":
        return data
    xp = x._device.backend.xp
    return xp.where(xp.isnan(data), xp.asarray(fill, dtype=data.dtype), data)


def _keepdims(value: object, function: str) -> bool:
    _check_bool(value, "keepdims", function)
    return bool(value)


# -- cumulative -----------------------------------------------------------------


def _cumulative(name: str, a: Array, axis: int | None, dtype: Any, fill: float | None) -> Array:
    x = _numeric(a, name)
    resolved = _dtype_or_none(dtype)
    xp = x._device.backend.xp
    data = x._data if fill is None else _nan_free(x, fill)
    if axis is None:
        data = xp.reshape(data, (-1,))
        position = 0
    else:
        if x.ndim == 0:
            raise ValueError(f"{name}: an axis was given for a 0-d array; use axis=None")
        position = normalize_axis(axis, x.ndim)
    function = xp.cumsum if name.endswith("sum") else xp.cumprod
    return may_view(function(data, axis=position, dtype=resolved), x._device, (x,))


def cumsum(
    a: Array, /, axis: int | None = None, dtype: Any = None, out: Array | None = None
) -> Array:
    """The running sum of ``a`` along ``axis`` (of the flattened array if None).

    ``out`` (positional fourth, as in NumPy) is an Array of the result's
    shape to write the result into, through copy-on-write (NumPy's unsafe
    casting); it is returned.

    Booleans and small integers accumulate in ``int64``/``uint64``, as in NumPy.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.cumsum(ca.asarray([[1, 2], [3, 4]]))
    cowarray.Array([ 1,  3,  6, 10], dtype=int64)
    >>> ca.cumsum(ca.asarray([[1, 2], [3, 4]]), axis=0)
    cowarray.Array([[1, 2],
                    [4, 6]], dtype=int64)
    """
    if out is not None:
        return write_out(out, cumsum(a, axis, dtype), "cumsum", "unsafe")
    return _cumulative("cumsum", a, axis, dtype, None)


def cumprod(
    a: Array, /, axis: int | None = None, dtype: Any = None, out: Array | None = None
) -> Array:
    """The running product of ``a`` along ``axis`` (of the flattened array if None).

    ``out`` (positional fourth, as in NumPy) is an Array of the result's
    shape to write the result into, through copy-on-write (NumPy's unsafe
    casting); it is returned.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.cumprod(ca.asarray([1, 2, 3, 4]))
    cowarray.Array([ 1,  2,  6, 24], dtype=int64)
    """
    if out is not None:
        return write_out(out, cumprod(a, axis, dtype), "cumprod", "unsafe")
    return _cumulative("cumprod", a, axis, dtype, None)


def nancumsum(
    a: Array, /, axis: int | None = None, dtype: Any = None, out: Array | None = None
) -> Array:
    """:func:`cumsum` with NaNs counted as zero; ``out`` as :func:`cumsum`'s.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.nancumsum(ca.asarray([1.0, ca.nan, 2.0]))
    cowarray.Array([1., 1., 3.], dtype=float64)
    """
    if out is not None:
        return write_out(out, nancumsum(a, axis, dtype), "nancumsum", "unsafe")
    return _cumulative("nancumsum", a, axis, dtype, 0.0)


def nancumprod(
    a: Array, /, axis: int | None = None, dtype: Any = None, out: Array | None = None
) -> Array:
    """:func:`cumprod` with NaNs counted as one; ``out`` as :func:`cumprod`'s.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.nancumprod(ca.asarray([2.0, ca.nan, 3.0]))
    cowarray.Array([2., 2., 6.], dtype=float64)
    """
    if out is not None:
        return write_out(out, nancumprod(a, axis, dtype), "nancumprod", "unsafe")
    return _cumulative("nancumprod", a, axis, dtype, 1.0)


# -- NaN-skipping reductions ------------------------------------------------------


def _sum_like(name: str, a: Array, axis: Axis, dtype: Any, keepdims: bool, fill: float) -> Array:
    x = _numeric(a, name)
    axes = normalize_axes(axis, x.ndim)
    keep = _keepdims(keepdims, name)
    xp = x._device.backend.xp
    function = xp.sum if fill == 0.0 else xp.prod
    data = function(_nan_free(x, fill), axis=axes, dtype=_dtype_or_none(dtype), keepdims=keep)
    return may_view(data, x._device, (x,))


def nansum(
    a: Array,
    /,
    axis: Axis = None,
    dtype: Any = None,
    out: Array | None = None,
    keepdims: bool = False,
) -> Array:
    """The sum of ``a`` over ``axis``, NaNs counted as zero.

    ``out`` (positional fourth, as in NumPy) is an Array of the result's
    shape to write the result into, through copy-on-write (NumPy's unsafe
    casting); it is returned.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.nansum(ca.asarray([1.0, ca.nan, 2.0]))
    cowarray.Array(3., dtype=float64)
    """
    if out is not None:
        result = nansum(a, axis, dtype, keepdims=keepdims)
        return write_out(out, result, "nansum", "unsafe")
    return _sum_like("nansum", a, axis, dtype, keepdims, 0.0)


def nanprod(
    a: Array,
    /,
    axis: Axis = None,
    dtype: Any = None,
    out: Array | None = None,
    keepdims: bool = False,
) -> Array:
    """The product of ``a`` over ``axis``, NaNs counted as one.

    ``out`` (positional fourth, as in NumPy) is an Array of the result's
    shape to write the result into, through copy-on-write (NumPy's unsafe
    casting); it is returned.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.nanprod(ca.asarray([2.0, ca.nan, 3.0]))
    cowarray.Array(6., dtype=float64)
    """
    if out is not None:
        result = nanprod(a, axis, dtype, keepdims=keepdims)
        return write_out(out, result, "nanprod", "unsafe")
    return _sum_like("nanprod", a, axis, dtype, keepdims, 1.0)


def _counts_and_sums(x: Array, data: Any, axes: Any) -> tuple[Any, Any, Any]:
    """(NaN mask, count of non-NaNs, sum of non-NaNs) over ``axes``, keeping dims."""
    xp = x._device.backend.xp
    nan = xp.isnan(data)
    real = xp.real(data).dtype if data.dtype.kind == "c" else data.dtype
    count = xp.sum(xp.astype(~nan, real), axis=axes, keepdims=True)
    total = xp.sum(xp.where(nan, xp.zeros((), dtype=data.dtype), data), axis=axes, keepdims=True)
    return nan, count, total


def _divide_or_nan(xp: Any, numerator: Any, denominator: Any) -> Any:
    """``numerator / denominator``, NaN where the denominator is not positive (no warning)."""
    empty = denominator <= 0
    safe = xp.where(empty, xp.ones((), dtype=denominator.dtype), denominator)
    nan = xp.asarray(math.nan, dtype=numerator.dtype)
    return xp.where(empty, nan, numerator / safe)


def _squeezed(xp: Any, data: Any, axes: tuple[int, ...], keepdims: bool) -> Any:
    return data if keepdims else xp.squeeze(data, axis=axes)


def nanmean(
    a: Array,
    /,
    axis: Axis = None,
    dtype: Any = None,
    out: Array | None = None,
    keepdims: bool = False,
) -> Array:
    """The mean of ``a``'s non-NaN elements over ``axis``; NaN for an all-NaN slice.

    Integers give ``float64``, as in NumPy. ``out`` (positional fourth, as
    in NumPy) is an Array of the result's shape to write the result into,
    through copy-on-write; for floating-point ``a`` it must be floating or
    complex too, as NumPy asks. It is returned.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.nanmean(ca.asarray([1.0, ca.nan, 2.0]))
    cowarray.Array(1.5, dtype=float64)
    """
    if out is not None:
        result = nanmean(a, axis, dtype, keepdims=keepdims)
        return write_out(out, result, "nanmean", "inexact" if a.dtype.kind in "fc" else "unsafe")
    x = _numeric(a, "nanmean", "iufc")
    axes = _reduced(x, normalize_axes(axis, x.ndim))
    keep = _keepdims(keepdims, "nanmean")
    xp = x._device.backend.xp
    data = _float_data(x)
    resolved = _dtype_or_none(dtype)
    if resolved is not None:
        data = xp.astype(data, resolved)
    _, count, total = _counts_and_sums(x, data, axes)
    mean = _divide_or_nan(xp, total, xp.astype(count, total.real.dtype))
    return may_view(_squeezed(xp, mean, axes, keep), x._device, (x,))


def _nanvar_data(name: str, a: Array, axis: Axis, dtype: Any, ddof: Any, keepdims: bool) -> Any:
    x = _numeric(a, name, "iufc")
    if isinstance(ddof, bool) or not isinstance(ddof, (int, float)):
        raise TypeError(f"{name}: ddof must be an int or a float, got {type(ddof).__name__}")
    axes = _reduced(x, normalize_axes(axis, x.ndim))
    keep = _keepdims(keepdims, name)
    xp = x._device.backend.xp
    data = _float_data(x)
    resolved = _dtype_or_none(dtype)
    if resolved is not None:
        data = xp.astype(data, resolved)
    nan, count, total = _counts_and_sums(x, data, axes)
    mean = _divide_or_nan(xp, total, xp.astype(count, data.dtype))
    deviation = xp.where(nan, xp.zeros((), dtype=data.dtype), data - mean)
    squares = xp.real(deviation * xp.conj(deviation)) if data.dtype.kind == "c" else deviation**2
    spread = xp.sum(squares, axis=axes, keepdims=True)
    variance = _divide_or_nan(xp, spread, count - ddof)
    return x, _squeezed(xp, variance, axes, keep)


def nanvar(
    a: Array,
    /,
    axis: Axis = None,
    dtype: Any = None,
    out: Array | None = None,
    ddof: int | float = 0,
    keepdims: bool = False,
) -> Array:
    """The variance of ``a``'s non-NaN elements over ``axis``, divided by ``count - ddof``.

    NaN where ``count - ddof`` is not positive. Real for complex input.
    ``out`` (positional fourth, as in NumPy) is an Array of the result's
    shape to write the result into, through copy-on-write (same-kind
    casting for floating-point ``a``, as NumPy's); it is returned.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.nanvar(ca.asarray([1.0, ca.nan, 3.0]))
    cowarray.Array(1., dtype=float64)
    """
    if out is not None:
        result = nanvar(a, axis, dtype, ddof=ddof, keepdims=keepdims)
        return write_out(out, result, "nanvar", "same_kind" if a.dtype.kind in "fc" else "unsafe")
    x, variance = _nanvar_data("nanvar", a, axis, dtype, ddof, keepdims)
    made: Array = may_view(variance, x._device, (x,))
    return made


def nanstd(
    a: Array,
    /,
    axis: Axis = None,
    dtype: Any = None,
    out: Array | None = None,
    ddof: int | float = 0,
    keepdims: bool = False,
) -> Array:
    """The standard deviation of ``a``'s non-NaN elements (the root of :func:`nanvar`).

    ``out`` as :func:`nanvar`'s (same-kind casting, as NumPy's).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.nanstd(ca.asarray([1.0, ca.nan, 3.0]))
    cowarray.Array(1., dtype=float64)
    """
    if out is not None:
        result = nanstd(a, axis, dtype, ddof=ddof, keepdims=keepdims)
        return write_out(out, result, "nanstd", "same_kind")
    x, variance = _nanvar_data("nanstd", a, axis, dtype, ddof, keepdims)
    made: Array = may_view(x._device.backend.xp.sqrt(variance), x._device, (x,))
    return made


def _nan_extremum(name: str, a: Array, axis: Axis, keepdims: bool) -> Array:
    x = _numeric(a, name, "iuf")
    axes = _reduced(x, normalize_axes(axis, x.ndim))
    keep = _keepdims(keepdims, name)
    if any(x.shape[i] == 0 for i in axes):
        raise ValueError(
            f"{name} of an empty array (shape {x.shape}) is undefined; pass a non-empty x"
        )
    xp = x._device.backend.xp
    smallest = name == "nanmin"
    function = xp.min if smallest else xp.max
    if x.dtype.kind != "f":
        return may_view(function(x._data, axis=axes, keepdims=keep), x._device, (x,))
    data = x._data
    reduced = function(_nan_free(x, math.inf if smallest else -math.inf), axis=axes, keepdims=keep)
    all_nan = xp.all(xp.isnan(data), axis=axes, keepdims=keep)
    result = xp.where(all_nan, xp.asarray(math.nan, dtype=data.dtype), reduced)
    return may_view(result, x._device, (x,))


def nanmin(
    a: Array, /, axis: Axis = None, out: Array | None = None, keepdims: bool = False
) -> Array:
    """The smallest non-NaN element of ``a`` over ``axis``; NaN for an all-NaN slice.

    ``out`` (positional third, as in NumPy) is an Array of the result's
    shape to write the result into, through copy-on-write (NumPy's unsafe
    casting); it is returned.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.nanmin(ca.asarray([3.0, ca.nan, 1.0]))
    cowarray.Array(1., dtype=float64)
    """
    if out is not None:
        return write_out(out, nanmin(a, axis, keepdims=keepdims), "nanmin", "unsafe")
    return _nan_extremum("nanmin", a, axis, keepdims)


def nanmax(
    a: Array, /, axis: Axis = None, out: Array | None = None, keepdims: bool = False
) -> Array:
    """The largest non-NaN element of ``a`` over ``axis``; NaN for an all-NaN slice.

    ``out`` (positional third, as in NumPy) is an Array of the result's
    shape to write the result into, through copy-on-write (NumPy's unsafe
    casting); it is returned.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.nanmax(ca.asarray([3.0, ca.nan, 1.0]))
    cowarray.Array(3., dtype=float64)
    """
    if out is not None:
        return write_out(out, nanmax(a, axis, keepdims=keepdims), "nanmax", "unsafe")
    return _nan_extremum("nanmax", a, axis, keepdims)


def _nan_arg_extremum(name: str, a: Array, axis: int | None, keepdims: bool) -> Array:
    x = _numeric(a, name, "iuf")
    keep = _keepdims(keepdims, name)
    position = None if axis is None else normalize_axis(axis, x.ndim)
    if x.size == 0 or (position is not None and x.shape[position] == 0):
        raise ValueError(f"{name}: attempt to get the position in an empty sequence")
    xp = x._device.backend.xp
    smallest = name == "nanargmin"
    data = _nan_free(x, math.inf if smallest else -math.inf)
    if x.dtype.kind == "f":
        all_nan = xp.all(xp.isnan(x._data), axis=position)
        if bool(xp.any(all_nan)):
            raise ValueError(f"{name}: an all-NaN slice has no position of a smallest or largest")
    function = xp.argmin if smallest else xp.argmax
    return may_view(function(data, axis=position, keepdims=keep), x._device, (x,))


def nanargmin(
    a: Array, /, axis: int | None = None, out: Array | None = None, keepdims: bool = False
) -> Array:
    """The index of ``a``'s smallest non-NaN element along ``axis`` (flattened if None).

    ``out`` (positional third, as in NumPy) is an Array of the result's
    shape to write the indices into, through copy-on-write; its dtype must
    cast safely to ``int64``, as NumPy asks. It is returned.

    Raises ValueError for a slice that is all NaN, as NumPy does.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.nanargmin(ca.asarray([ca.nan, 3.0, 1.0]))
    cowarray.Array(2, dtype=int64)
    """
    if out is not None:
        return write_out(out, nanargmin(a, axis, keepdims=keepdims), "nanargmin", "reverse_safe")
    return _nan_arg_extremum("nanargmin", a, axis, keepdims)


def nanargmax(
    a: Array, /, axis: int | None = None, out: Array | None = None, keepdims: bool = False
) -> Array:
    """The index of ``a``'s largest non-NaN element along ``axis`` (flattened if None).

    ``out`` (positional third, as in NumPy) is an Array of the result's
    shape to write the indices into, through copy-on-write; its dtype must
    cast safely to ``int64``, as NumPy asks. It is returned.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.nanargmax(ca.asarray([ca.nan, 3.0, 1.0]))
    cowarray.Array(1, dtype=int64)
    """
    if out is not None:
        return write_out(out, nanargmax(a, axis, keepdims=keepdims), "nanargmax", "reverse_safe")
    return _nan_arg_extremum("nanargmax", a, axis, keepdims)


# -- quantiles ------------------------------------------------------------------

#: The continuous methods of Hyndman and Fan: (alpha, beta) of the virtual index.
_CONTINUOUS: Final = {
    "interpolated_inverted_cdf": (0.0, 1.0),
    "hazen": (0.5, 0.5),
    "weibull": (0.0, 0.0),
    "median_unbiased": (1.0 / 3.0, 1.0 / 3.0),
    "normal_unbiased": (3.0 / 8.0, 3.0 / 8.0),
}
_DISCRETE: Final = ("lower", "higher", "nearest", "inverted_cdf", "closest_observation")
_METHODS: Final = ("linear", "midpoint", "averaged_inverted_cdf", *_CONTINUOUS, *_DISCRETE)


def _quantile_levels(q: object, x: Array, scale: float, function: str) -> Any:
    """``q / scale`` as a float64 backend array on ``x``'s device, checked in [0, 1]."""
    xp = x._device.backend.xp
    float64 = to_dtype("float64")
    if type(q) is Array:
        common_device(x, q)
        if q.dtype.kind not in "iuf":
            raise TypeError(f"{function}: q must be real, got dtype {q.dtype}")
        if q.ndim > 1:
            raise ValueError(f"{function}: q must be a scalar or 1-D, got shape {q.shape}")
        levels = xp.astype(q._data, float64)
    elif isinstance(q, numpy.ndarray):  # NumPy's levels (xarray passes them), read as values
        if q.dtype.kind not in "iuf":
            raise TypeError(f"{function}: q must be real, got dtype {q.dtype}")
        if q.ndim > 1:
            raise ValueError(f"{function}: q must be a scalar or 1-D, got shape {q.shape}")
        levels = xp.asarray(q.astype(numpy.float64))
    else:
        values = list(q) if isinstance(q, (tuple, list)) else q
        for value in values if isinstance(values, list) else [values]:
            real = isinstance(value, (int, float, numpy.integer, numpy.floating))
            if isinstance(value, (bool, numpy.bool_)) or not real:
                raise TypeError(
                    f"{function}: q must be a real number, a sequence of them or an Array, "
                    f"got {type(value).__name__}"
                )
        levels = xp.asarray(values, dtype=float64)
    if scale != 1.0:
        levels = levels / scale
    if levels.size and not bool(xp.all((levels >= 0) & (levels <= 1))):
        top = "100" if scale == 100.0 else "1"
        raise ValueError(f"{function}: q must lie in [0, {top}]")
    return levels


def _sorted_along_last(x: Array, axes: tuple[int, ...], function: str) -> Any:
    """``x``'s data with the reduced ``axes`` moved last, flattened into one, and sorted."""
    if any(x.shape[i] == 0 for i in axes):
        raise ValueError(
            f"{function} of an empty array (shape {x.shape}) is undefined; pass a non-empty x"
        )
    xp = x._device.backend.xp
    kept = [i for i in range(x.ndim) if i not in axes]
    data = xp.permute_dims(x._data, (*kept, *axes))
    data = xp.reshape(data, (*(x.shape[i] for i in kept), -1))
    return xp.sort(data, axis=-1)


def _gather(xp: Any, ordered: Any, positions: Any) -> Any:
    """``ordered[..., positions]`` for float ``positions`` of shape ``Q + rest``."""
    rest = ordered.shape[:-1]
    levels = positions.shape[: positions.ndim - len(rest)]
    flat = xp.reshape(positions, (-1, *rest))
    index = xp.moveaxis(xp.astype(flat, to_dtype("int64")), 0, -1)
    taken = xp.take_along_axis(ordered, index, axis=-1)
    return xp.reshape(xp.moveaxis(taken, -1, 0), (*levels, *rest))


def _lerp(xp: Any, below: Any, above: Any, gamma: Any) -> Any:
    """NumPy's quantile interpolation (exact at both ends), with weights ``gamma``
    (float64) and ``1 - gamma`` rounded to the values' dtype as NumPy rounds them."""
    gap = above - below
    weight, rest = xp.astype(gamma, below.dtype), xp.astype(1 - gamma, below.dtype)
    return xp.where(gamma >= 0.5, above - gap * rest, below + gap * weight)


def _virtual_positions(xp: Any, method: str, n: Any, q: Any) -> tuple[Any, Any, Any | None]:
    """(index below, index above, weight of the one above or None) for ``method``."""
    last = n - 1
    if method in _DISCRETE:
        if method == "lower":
            index = xp.floor(last * q)
        elif method == "higher":
            index = xp.ceil(last * q)
        elif method == "nearest":
            index = xp.round(last * q)
        else:
            virtual = n * q - (1.0 if method == "inverted_cdf" else 1.5)
            floor = xp.floor(virtual)
            exact = virtual == floor
            if method == "closest_observation":
                exact = exact & (floor % 2 == 1)
            index = xp.where(exact, floor, floor + 1)
        index = xp.maximum(xp.minimum(index, last), 0)
        return index, index, None
    if method == "linear":
        virtual = last * q
    elif method == "midpoint":
        virtual = 0.5 * (xp.floor(last * q) + xp.ceil(last * q))
    elif method == "averaged_inverted_cdf":
        virtual = n * q - 1
    else:
        alpha, beta = _CONTINUOUS[method]
        virtual = n * q + (alpha + q * (1 - alpha - beta)) - 1
    floor = xp.floor(virtual)
    gamma = virtual - floor
    if method == "midpoint":
        gamma = xp.where(virtual % 1 == 0, 0.0, 0.5)
    elif method == "averaged_inverted_cdf":
        gamma = xp.where(gamma == 0, 0.5, 1.0)
    below = xp.maximum(xp.minimum(floor, last), 0)
    above = xp.maximum(xp.minimum(floor + 1, last), 0)
    return below, above, gamma


def _quantile(
    function: str,
    a: Array,
    q: object,
    axis: Axis,
    method: str,
    keepdims: bool,
    skip_nan: bool,
    scale: float,
) -> Array:
    x = _numeric(a, function, "iuf")
    keep = _keepdims(keepdims, function)
    if method not in _METHODS:
        raise ValueError(f"{function}: method {method!r} is not one of {', '.join(_METHODS)}")
    axes = _reduced(x, normalize_axes(axis, x.ndim))
    levels = _quantile_levels(q, x, scale, function)
    xp = x._device.backend.xp
    ordered = _sorted_along_last(x, axes, function)
    rest = ordered.shape[:-1]
    float64 = to_dtype("float64")
    floating = x.dtype.kind == "f"
    if skip_nan and floating:
        n: Any = xp.sum(xp.astype(~xp.isnan(ordered), float64), axis=-1)
    else:
        n = xp.full(rest, float(ordered.shape[-1]), dtype=float64)
    shaped_q = xp.reshape(levels, tuple(levels.shape) + (1,) * len(rest))
    below, above, gamma = _virtual_positions(xp, method, n, shaped_q)
    low = _gather(xp, ordered, below)
    if gamma is None:
        result = low
    else:
        work = x.dtype if floating else float64
        low = xp.astype(low, work)
        high = xp.astype(_gather(xp, ordered, above), work)
        result = _lerp(xp, low, high, gamma)
    result = _with_nans(xp, result, ordered, n, skip_nan)
    return may_view(_quantile_shape(xp, result, levels.ndim, x, axes, keep), x._device, (x,))


def _with_nans(xp: Any, result: Any, ordered: Any, n: Any, skip_nan: bool) -> Any:
    """NaN where a slice had a NaN (``quantile``) or had nothing but NaNs (``nan*``)."""
    if result.dtype.kind != "f":
        return result
    missing = n == 0 if skip_nan else xp.isnan(ordered[..., -1])
    return xp.where(missing, xp.asarray(math.nan, dtype=result.dtype), result)


def _quantile_shape(
    xp: Any, result: Any, levels: int, x: Array, axes: tuple[int, ...], keepdims: bool
) -> Any:
    if not keepdims:
        return result
    shape = tuple(1 if i in axes else x.shape[i] for i in range(x.ndim))
    return xp.reshape(result, tuple(result.shape[:levels]) + shape)


def _median(function: str, a: Array, axis: Axis, keepdims: bool, skip_nan: bool) -> Array:
    x = _numeric(a, function, "iuf")
    keep = _keepdims(keepdims, function)
    axes = _reduced(x, normalize_axes(axis, x.ndim))
    xp = x._device.backend.xp
    ordered = _sorted_along_last(x, axes, function)
    float64 = to_dtype("float64")
    floating = x.dtype.kind == "f"
    if skip_nan and floating:
        n: Any = xp.sum(xp.astype(~xp.isnan(ordered), float64), axis=-1)
    else:
        n = xp.full(ordered.shape[:-1], float(ordered.shape[-1]), dtype=float64)
    lower = xp.maximum(xp.floor((n - 1) / 2), 0)
    upper = xp.maximum(xp.floor(n / 2), 0)
    work = x.dtype if floating else float64
    low = xp.astype(_gather(xp, ordered, lower), work)
    high = xp.astype(_gather(xp, ordered, upper), work)
    result = _with_nans(xp, (low + high) / 2, ordered, n, skip_nan)
    return may_view(_quantile_shape(xp, result, 0, x, axes, keep), x._device, (x,))


def quantile(
    a: Array,
    /,
    q: QuantileArg,
    axis: Axis = None,
    out: Array | None = None,
    *,
    method: str = "linear",
    keepdims: bool = False,
) -> Array:
    """The ``q``-th quantiles of ``a`` over ``axis`` (all elements by default).

    Parameters
    ----------
    a : Array
        A real array; a NaN in a slice makes its quantiles NaN.
    q : float, sequence of float, Array or NumPy array
        Levels in [0, 1]; a sequence or a 1-D array puts its axis first in
        the result. Positional or by keyword (``q=``), as in NumPy.
    axis : int or tuple of int, optional
    out : Array, optional
        An Array to write the result into, through copy-on-write (NumPy's
        ``out=``, positional fourth): of the result's shape or one it
        broadcasts to, of a dtype it casts to under same-kind rules, as
        NumPy's. It is returned.
    method : str, default "linear"
        Any of NumPy's: ``"linear"``, ``"lower"``, ``"higher"``,
        ``"midpoint"``, ``"nearest"``, ``"inverted_cdf"``,
        ``"averaged_inverted_cdf"``, ``"closest_observation"``,
        ``"interpolated_inverted_cdf"``, ``"hazen"``, ``"weibull"``,
        ``"median_unbiased"``, ``"normal_unbiased"``.
    keepdims : bool, default False

    Returns
    -------
    Array
        ``a``'s dtype for floating-point ``a`` (float64 for integers, which
        the discrete methods keep).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.quantile(ca.asarray([1.0, 2.0, 3.0, 4.0]), 0.5)
    cowarray.Array(2.5, dtype=float64)
    >>> ca.quantile(ca.asarray([[1.0, 3.0], [2.0, 8.0]]), [0.0, 1.0], axis=1)
    cowarray.Array([[1., 2.],
                    [3., 8.]], dtype=float64)
    """
    if out is not None:
        result = quantile(a, q, axis, method=method, keepdims=keepdims)
        return write_out(out, result, "quantile", "same_kind", broadcast=True)
    return _quantile("quantile", a, q, axis, method, keepdims, skip_nan=False, scale=1.0)


def percentile(
    a: Array,
    /,
    q: QuantileArg,
    axis: Axis = None,
    out: Array | None = None,
    *,
    method: str = "linear",
    keepdims: bool = False,
) -> Array:
    """The ``q``-th percentiles of ``a`` (:func:`quantile` of ``q / 100``); ``out`` as its.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.percentile(ca.asarray([1.0, 2.0, 3.0, 4.0]), 25)
    cowarray.Array(1.75, dtype=float64)
    """
    if out is not None:
        result = percentile(a, q, axis, method=method, keepdims=keepdims)
        return write_out(out, result, "percentile", "same_kind", broadcast=True)
    return _quantile("percentile", a, q, axis, method, keepdims, skip_nan=False, scale=100.0)


def nanquantile(
    a: Array,
    /,
    q: QuantileArg,
    axis: Axis = None,
    out: Array | None = None,
    *,
    method: str = "linear",
    keepdims: bool = False,
) -> Array:
    """:func:`quantile` of the non-NaN elements; NaN for an all-NaN slice.

    ``out`` as :func:`quantile`'s, but any dtype (NumPy's unsafe casting here).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.nanquantile(ca.asarray([1.0, ca.nan, 3.0]), 0.5)
    cowarray.Array(2., dtype=float64)
    """
    if out is not None:
        result = nanquantile(a, q, axis, method=method, keepdims=keepdims)
        return write_out(out, result, "nanquantile", "unsafe", broadcast=True)
    return _quantile("nanquantile", a, q, axis, method, keepdims, skip_nan=True, scale=1.0)


def nanpercentile(
    a: Array,
    /,
    q: QuantileArg,
    axis: Axis = None,
    out: Array | None = None,
    *,
    method: str = "linear",
    keepdims: bool = False,
) -> Array:
    """:func:`percentile` of the non-NaN elements; NaN for an all-NaN slice.

    ``out`` as :func:`nanquantile`'s.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.nanpercentile(ca.asarray([1.0, ca.nan, 3.0]), 50)
    cowarray.Array(2., dtype=float64)
    """
    if out is not None:
        result = nanpercentile(a, q, axis, method=method, keepdims=keepdims)
        return write_out(out, result, "nanpercentile", "unsafe", broadcast=True)
    return _quantile("nanpercentile", a, q, axis, method, keepdims, skip_nan=True, scale=100.0)


def median(
    a: Array, /, axis: Axis = None, out: Array | None = None, *, keepdims: bool = False
) -> Array:
    """The median of ``a`` over ``axis``: the middle element, or the mean of the two.

    ``float64`` for integers; a NaN in a slice makes its median NaN.

    ``out`` (positional third, as in NumPy) is an Array of the result's
    shape to write the result into, through copy-on-write
    (NumPy's unsafe casting); it is returned. ``keepdims`` is keyword-only:
    NumPy's fourth argument is ``overwrite_input``.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.median(ca.asarray([3, 1, 4, 2]))
    cowarray.Array(2.5, dtype=float64)
    """
    if out is not None:
        result = median(a, axis, keepdims=keepdims)
        return write_out(out, result, "median", "unsafe")
    return _median("median", a, axis, keepdims, skip_nan=False)


def nanmedian(
    a: Array, /, axis: Axis = None, out: Array | None = None, *, keepdims: bool = False
) -> Array:
    """The median of ``a``'s non-NaN elements over ``axis``; NaN for an all-NaN slice.

    ``out`` (positional third, as in NumPy) is an Array of the result's
    shape, or one it broadcasts to (as NumPy's nanmedian takes), to write
    the result into, through copy-on-write (NumPy's unsafe casting); it is
    returned. ``keepdims`` is keyword-only: NumPy's fourth argument is
    ``overwrite_input``.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.nanmedian(ca.asarray([3.0, ca.nan, 1.0]))
    cowarray.Array(2., dtype=float64)
    """
    if out is not None:
        result = nanmedian(a, axis, keepdims=keepdims)
        return write_out(out, result, "nanmedian", "unsafe", broadcast=True)
    return _median("nanmedian", a, axis, keepdims, skip_nan=True)


# -- average, histogram, bincount -----------------------------------------------


def _floating(x: Array) -> Any:
    """``x``'s data, integers and booleans as float64."""
    return _float_data(x)


def average(
    a: Array,
    /,
    axis: Axis = None,
    weights: Array | None = None,
    returned: bool = False,
    *,
    keepdims: bool = False,
) -> Any:
    """The weighted mean of ``a`` over ``axis``: ``sum(a * w) / sum(w)``.

    Integer (and boolean) data and weights are converted to ``float64``
    first, so they combine with floating-point ones as in NumPy.

    Parameters
    ----------
    a : Array
    axis : int or tuple of int, optional
    weights : Array, optional
        ``a``'s shape, or 1-D along a single ``axis``; all ones by default.
    returned : bool, default False
        Also return the sum of the weights (broadcast to the result's shape).
    keepdims : bool, default False

    Raises
    ------
    ZeroDivisionError
        If the weights of a slice sum to zero, as in NumPy.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.average(ca.asarray([1, 2, 3, 4]), weights=ca.asarray([3.0, 1.0, 0.0, 0.0]))
    cowarray.Array(1.25, dtype=float64)
    """
    x = _numeric(a, "average")
    _check_bool(returned, "returned", "average")
    keep = _keepdims(keepdims, "average")
    normalized = normalize_axes(axis, x.ndim)
    axes = _reduced(x, normalized)
    xp = x._device.backend.xp
    data = _floating(x)
    if weights is None:
        count = math.prod(x.shape[i] for i in axes)
        total = xp.sum(data, axis=axes, keepdims=keep)
        real = total.real.dtype if total.dtype.kind == "c" else total.dtype
        scale = xp.full(total.shape, float(count), dtype=real)
        mean = _divide_or_nan(xp, total, scale) if count == 0 else total / count
    else:
        require_array(weights, "weights", "average")
        common_device(x, weights)
        if weights.dtype.kind not in "biufc":
            raise TypeError(f"average: weights must be numeric, got dtype {weights.dtype}")
        w = _floating(weights)
        from .._dtypes import promote

        dtype = promote(data.dtype, w.dtype)
        data, w = xp.astype(data, dtype), xp.astype(w, dtype)
        w = _weights_shaped(xp, w, x, normalized)
        scale = xp.sum(w, axis=axes, keepdims=keep)
        if bool(xp.any(scale == 0)):
            raise ZeroDivisionError("average: the weights sum to zero, so cannot be normalized")
        mean = xp.sum(data * w, axis=axes, keepdims=keep) / scale
    if not returned:
        return may_view(mean, x._device, (x,))
    scale = xp.astype(xp.broadcast_to(scale, mean.shape), mean.dtype)
    return may_view(mean, x._device, (x,)), fresh(xp.asarray(scale, copy=True), x._device)


def _weights_shaped(xp: Any, w: Any, x: Array, axes: tuple[int, ...] | None) -> Any:
    if tuple(w.shape) == x.shape:
        return w
    if axes is None:
        raise ValueError(
            f"average: weights of shape {tuple(w.shape)} differ from a's {x.shape}; "
            "give an axis for 1-D weights"
        )
    if w.ndim != len(axes) or tuple(w.shape) != tuple(x.shape[i] for i in axes):
        raise ValueError(
            f"average: weights of shape {tuple(w.shape)} fit neither a's shape {x.shape} "
            f"nor its axes {axes}"
        )
    shape = [1] * x.ndim
    for i, length in zip(axes, w.shape, strict=True):
        shape[i] = length
    order = sorted(range(len(axes)), key=lambda k: axes[k])
    return xp.reshape(xp.permute_dims(w, tuple(order)), tuple(shape))


def histogram(
    a: Array,
    /,
    bins: int | Array = 10,
    range: tuple[float, float] | None = None,
    density: bool | None = None,
    weights: Array | None = None,
) -> tuple[Array, Array]:
    """The histogram of ``a``'s elements: counts (or densities) and the bin edges.

    Parameters
    ----------
    a : Array
        Real data, flattened.
    bins : int or Array, default 10
        The number of equal-width bins over ``range``, or a 1-D Array of
        monotonically increasing edges (NumPy's strings such as ``"auto"``
        are not supported).
    range : (float, float), optional
        The lower and upper edges; ``a``'s minimum and maximum by default.
    density : bool, optional
        Return the probability density (``float64``) instead of counts.
    weights : Array, optional
        One weight per element of ``a``; the counts become sums of weights.

    Returns
    -------
    hist : Array
        ``int64`` counts, or of ``weights``' dtype, or ``float64`` densities.
    bin_edges : Array
        ``len(hist) + 1`` edges: ``a``'s floating dtype (``float64`` for
        integers), or ``bins``' dtype for an Array of edges.

    Examples
    --------
    >>> import cowarray as ca
    >>> counts, edges = ca.histogram(ca.asarray([1, 2, 2, 3, 3, 3]), bins=3)
    >>> counts
    cowarray.Array([1, 2, 3], dtype=int64)
    >>> edges
    cowarray.Array([1.        , 1.66666667, 2.33333333, 3.        ], dtype=float64)
    """
    x = _numeric(a, "histogram", "biuf")
    xp = x._device.backend.xp
    edges_dtype = x.dtype if x.dtype.kind == "f" else to_dtype("float64")
    if type(bins) is Array:
        common_device(x, bins)
        if bins.ndim != 1 or bins.size < 2 or bins.dtype.kind not in "iuf":
            raise ValueError(
                f"histogram: an Array of bins must be 1-D real edges, at least two, got "
                f"shape {bins.shape} and dtype {bins.dtype}"
            )
        if not bool(xp.all(bins._data[1:] >= bins._data[:-1])):
            raise ValueError("histogram: bins must increase monotonically")
        bin_arg: Any = bins._data
        edges_dtype = bins.dtype
    else:
        if isinstance(bins, str):
            raise ValueError(
                f"histogram: bins={bins!r}: estimated bin counts are not supported; "
                "give a number of bins or an Array of edges"
            )
        count = _positive_int(bins, "bins")
        bin_arg = count
    limits = _histogram_range(range)
    if density is not None:
        _check_bool(density, "density", "histogram")
    data_weights = None
    if weights is not None:
        require_array(weights, "weights", "histogram")
        common_device(x, weights)
        if weights.shape != x.shape:
            raise ValueError(
                f"histogram: weights of shape {weights.shape} must have a's shape {x.shape}"
            )
        data_weights = weights._data
    if limits is None and _has_non_finite(x):
        raise ValueError(
            "histogram: a has infinite or NaN values, so its range is not finite; "
            "give range=(low, high)"
        )
    hist, edges = xp.histogram(
        x._data, bins=bin_arg, range=limits, density=density, weights=data_weights
    )
    if density:
        hist_dtype = to_dtype("float64")
    elif weights is not None:
        hist_dtype = weights.dtype if weights.dtype.kind != "b" else to_dtype("int64")
    else:
        hist_dtype = to_dtype("int64")
    sources = (x,) if type(bins) is not Array else (x, bins)
    return (
        may_view(xp.astype(hist, hist_dtype), x._device, (x,)),
        may_view(xp.astype(edges, edges_dtype), x._device, sources),
    )


def _has_non_finite(x: Array) -> bool:
    if not x.size or x.dtype.kind != "f":
        return False
    xp = x._device.backend.xp
    return not bool(xp.all(xp.isfinite(x._data)))


def _positive_int(value: object, name: str) -> int:
    if isinstance(value, bool):
        raise TypeError(f"histogram: {name} must be an int or an Array, got a bool")
    try:
        count = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(
            f"histogram: {name} must be an int or an Array, got {type(value).__name__}"
        ) from None
    if count < 1:
        raise ValueError(f"histogram: {name} must be at least 1, got {count}")
    return count


def _histogram_range(limits: object) -> tuple[float, float] | None:
    if limits is None:
        return None
    if not isinstance(limits, (tuple, list)) or len(limits) != 2:
        raise TypeError(f"histogram: range must be a (low, high) pair, got {limits!r}")
    low, high = limits
    for value in (low, high):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"histogram: range must hold real numbers, got {limits!r}")
    if not (math.isfinite(low) and math.isfinite(high)):
        raise ValueError(f"histogram: range must be finite, got {limits!r}")
    if low > high:
        raise ValueError(f"histogram: range's low {low} is above its high {high}")
    return float(low), float(high)


def bincount(x: Array, /, weights: Array | None = None, minlength: int = 0) -> Array:
    """How often each value ``0, 1, ..., max(x)`` occurs in the 1-D integer ``x``.

    Parameters
    ----------
    x : Array
        Non-negative integers (or booleans), 1-D.
    weights : Array, optional
        Real, ``x``'s shape: the counts become sums of weights (``float64``).
    minlength : int, default 0
        The result has at least this many bins.

    Returns
    -------
    Array
        ``int64`` counts, or ``float64`` sums of weights.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.bincount(ca.asarray([0, 1, 1, 3]))
    cowarray.Array([1, 2, 0, 1], dtype=int64)
    """
    require_array(x, "x", "bincount")
    if x.dtype.kind not in "biu":
        raise TypeError(f"bincount: x must have an integer dtype, got {x.dtype}")
    if x.ndim != 1:
        raise ValueError(f"bincount: x must be 1-D, got shape {x.shape}")
    if isinstance(minlength, bool):
        raise TypeError("bincount: minlength must be an int, got a bool")
    try:
        least = operator.index(minlength)
    except TypeError:
        raise TypeError(
            f"bincount: minlength must be an int, got {type(minlength).__name__}"
        ) from None
    if least < 0:
        raise ValueError(f"bincount: minlength must not be negative, got {least}")
    xp = x._device.backend.xp
    data = x._data
    if data.dtype.kind == "b":
        data = xp.astype(data, to_dtype("int64"))
    if x.size and x.dtype.kind == "i" and bool(xp.any(data < 0)):
        raise ValueError("bincount: x must not have negative values")
    float64 = to_dtype("float64")
    data_weights = None
    if weights is not None:
        require_array(weights, "weights", "bincount")
        common_device(x, weights)
        if weights.dtype.kind not in "biuf":
            raise TypeError(f"bincount: weights must be real, got dtype {weights.dtype}")
        if weights.shape != x.shape:
            raise ValueError(
                f"bincount: weights of shape {weights.shape} must have x's shape {x.shape}"
            )
        data_weights = xp.astype(weights._data, float64)
    counts = xp.bincount(data, weights=data_weights, minlength=least)
    dtype = float64 if weights is not None else to_dtype("int64")
    return may_view(xp.astype(counts, dtype), x._device, (x,))
