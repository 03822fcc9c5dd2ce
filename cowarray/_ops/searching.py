"""Searching functions (Array API standard, "Searching Functions")."""

from __future__ import annotations

from typing import Any, Literal

from .._array import Array, fresh
from .._checks import REAL, accepts, check_dtypes, common_device
from .._core import may_view
from .._dtypes import DEFAULT_INDEX, normalize_scalar, one_kind, promote, scalar_result_dtype
from ._args import array_or_scalar_operands, normalize_axes, normalize_axis, require_array
from ._out import write_out

__all__ = ["argmax", "argmin", "count_nonzero", "nonzero", "searchsorted", "where"]


def _check_keepdims(keepdims: object, function: str) -> None:
    if type(keepdims) is not bool:
        raise TypeError(f"{function}: keepdims must be a bool, got {type(keepdims).__name__}")


def _arg_extremum(name: str, x: Array, axis: int | None, keepdims: bool) -> Array:
    require_array(x, "x", name)
    check_dtypes(name, x.dtype)
    _check_keepdims(keepdims, name)
    position = None if axis is None else normalize_axis(axis, x.ndim)
    length = x.size if position is None else x.shape[position]
    if length == 0:
        raise ValueError(
            f"{name} of an empty array (shape {x.shape}) is undefined; pass a non-empty x"
        )
    function = getattr(x._device.backend.xp, name)
    return fresh(function(x._data, axis=position, keepdims=keepdims), x._device)


@accepts(REAL)
def argmax(
    x: Array, /, *, axis: int | None = None, keepdims: bool = False, out: Array | None = None
) -> Array:
    """The index of the first largest element (over the flattened array by default).

    Parameters
    ----------
    x : Array
        A real-valued array, not empty along the reduced axis.
    axis : int, optional
        ``None`` searches the flattened array.
    keepdims : bool, default False
        Keep the reduced axis with length one.
    out : Array, optional
        An Array of the result's shape to write the indices into, through
        copy-on-write (NumPy's ``out=``): its dtype must cast safely to
        ``int64`` (bool or an integer dtype but ``uint64``), as NumPy asks.
        Keyword-only.

    Returns
    -------
    Array
        ``int64`` indices (``out`` itself with ``out=``).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.argmax(ca.asarray([[1, 9], [9, 3]]), axis=1)
    cowarray.Array([1, 0], dtype=int64)
    """
    if out is not None:
        return write_out(out, argmax(x, axis=axis, keepdims=keepdims), "argmax", "reverse_safe")
    return _arg_extremum("argmax", x, axis, keepdims)


@accepts(REAL)
def argmin(
    x: Array, /, *, axis: int | None = None, keepdims: bool = False, out: Array | None = None
) -> Array:
    """The index of the first smallest element (over the flattened array by default).

    Parameters
    ----------
    x : Array
        A real-valued array, not empty along the reduced axis.
    axis : int, optional
        ``None`` searches the flattened array.
    keepdims : bool, default False
        Keep the reduced axis with length one.
    out : Array, optional
        An Array of the result's shape to write the indices into, through
        copy-on-write (NumPy's ``out=``): its dtype must cast safely to
        ``int64`` (bool or an integer dtype but ``uint64``), as NumPy asks.
        Keyword-only.

    Returns
    -------
    Array
        ``int64`` indices (``out`` itself with ``out=``).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.argmin(ca.asarray([4, 1, 1]))
    cowarray.Array(1, dtype=int64)
    """
    if out is not None:
        return write_out(out, argmin(x, axis=axis, keepdims=keepdims), "argmin", "reverse_safe")
    return _arg_extremum("argmin", x, axis, keepdims)


def count_nonzero(
    x: Array, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False
) -> Array:
    """The number of non-zero elements over ``axis`` (default index dtype, int64).

    Parameters
    ----------
    x : Array
    axis : int, tuple of int or None
        The axes to count over (all by default).
    keepdims : bool, default False

    Returns
    -------
    Array
        ``int64`` counts (NaN counts as non-zero).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.count_nonzero(ca.asarray([[0, 1], [2, 3]]), axis=0)
    cowarray.Array([1, 2], dtype=int64)
    """
    require_array(x, "x", "count_nonzero")
    _check_keepdims(keepdims, "count_nonzero")
    axes = normalize_axes(axis, x.ndim)
    backend = x._device.backend
    counts = backend.xp.count_nonzero(x._data, axis=axes, keepdims=keepdims)
    counts = backend.xp.astype(backend.asarray(counts), DEFAULT_INDEX, copy=False)
    return fresh(counts, x._device)


def nonzero(x: Array, /) -> tuple[Array, ...]:
    """The indices of the non-zero elements, one array per dimension, row-major.

    Parameters
    ----------
    x : Array
        An array with at least one dimension.

    Returns
    -------
    tuple of Array
        ``x.ndim`` arrays of ``int64`` indices, in row-major order.

    Examples
    --------
    >>> import cowarray as ca
    >>> rows, cols = ca.nonzero(ca.asarray([[0, 5], [7, 0]]))
    >>> rows, cols
    (cowarray.Array([0, 1], dtype=int64), cowarray.Array([1, 0], dtype=int64))
    """
    require_array(x, "x", "nonzero")
    if x.ndim == 0:
        raise ValueError("nonzero needs an array with at least one dimension, x is 0-d")
    return tuple(fresh(i, x._device) for i in x._device.backend.xp.nonzero(x._data))


@accepts(REAL)
def searchsorted(
    x1: Array,
    x2: Array | int | float,
    /,
    *,
    side: Literal["left", "right"] = "left",
    sorter: Array | None = None,
) -> Array:
    """The indices where ``x2``'s values would be inserted to keep ``x1`` sorted.

    Parameters
    ----------
    x1 : Array
        A 1-D real-valued array, sorted ascending unless ``sorter`` is given.
    x2 : Array or Python scalar
        The values to place; a scalar gives a 0-d result.
    side : {"left", "right"}
        For values equal to an element of ``x1``: before it or after it.
    sorter : Array, optional
        Integer indices that sort ``x1`` ascending.

    Returns
    -------
    Array
        ``int64`` positions of ``x2``'s shape (0-d for a scalar).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.searchsorted(ca.asarray([1.0, 2.0, 3.0]), ca.asarray([2.0, 0.5]), side="right")
    cowarray.Array([2, 0], dtype=int64)
    """
    require_array(x1, "x1", "searchsorted")
    check_dtypes("searchsorted", x1.dtype)
    if x1.ndim != 1:
        raise ValueError(f"searchsorted: x1 must be 1-dimensional, got shape {x1.shape}")
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    values: Any
    if type(x2) is Array:
        common_device(x1, x2)
        promoted = promote(x1.dtype, x2.dtype)
        # one kind: x2 of the category too; two kinds: the promoted dtype (rule 11)
        check_dtypes("searchsorted", x2.dtype if one_kind(x1.dtype, x2.dtype) else promoted)
        values = x2._data
    else:
        values = normalize_scalar(x2)
        # a scalar of another kind is compared as NumPy does (design rule 11)
        check_dtypes("searchsorted", scalar_result_dtype(x1.dtype, values))
    order: Any = None
    if sorter is not None:
        require_array(sorter, "sorter", "searchsorted")
        common_device(x1, sorter)
        if sorter.dtype.kind not in "iu" or sorter.shape != x1.shape:
            raise ValueError(
                f"searchsorted: sorter must be an integer array of x1's shape {x1.shape}, "
                f"got {sorter.dtype} of shape {sorter.shape}"
            )
        order = sorter._data
    backend = x1._device.backend
    positions = backend.xp.searchsorted(x1._data, values, side=side, sorter=order)
    positions = backend.xp.astype(backend.asarray(positions), DEFAULT_INDEX, copy=False)
    return fresh(positions, x1._device)


def where(
    condition: Array,
    x1: Array | bool | int | float | complex,
    x2: Array | bool | int | float | complex,
    /,
) -> Array:
    """Elements of ``x1`` where ``condition`` is true, else of ``x2`` (broadcast).

    Parameters
    ----------
    condition : Array
        A boolean array.
    x1, x2 : Array or Python scalar
        At least one must be an Array; the result dtype is their promotion,
        with Python scalars weak as in arithmetic.

    Returns
    -------
    Array
        A new array of the broadcast shape.

    Examples
    --------
    >>> import cowarray as ca
    >>> x = ca.asarray([1.0, -2.0, 3.0])
    >>> ca.where(x > 0, x, 0.0)
    cowarray.Array([1., 0., 3.], dtype=float64)
    """
    if type(condition) is Array and type(x1) is Array and type(x2) is Array:
        # the common case in one pass: three arrays, one device, one dtype
        data = condition._data
        device = condition._device
        if (
            data.dtype.kind == "b"
            and x1._device is device
            and x2._device is device
            and x1._data.dtype is x2._data.dtype
        ):
            try:
                result = device.backend.xp.where(data, x1._data, x2._data)
            except ValueError:
                raise _where_shapes(condition, x1, x2) from None
            return may_view(result, device, (x1, x2))
    require_array(condition, "condition", "where")
    if condition.dtype.kind != "b":
        raise TypeError(f"where: condition must have a boolean dtype, got {condition.dtype}")
    device, dtype, operands = array_or_scalar_operands("where", x1, x2, condition)
    try:
        data = device.backend.xp.where(condition._data, *operands)
    except ValueError:
        raise _where_shapes(condition, x1, x2) from None
    if data.dtype != dtype:
        data = device.backend.xp.astype(data, dtype)
    return fresh(data, device)


def _where_shapes(condition: Array, x1: object, x2: object) -> ValueError:
    shapes = ", ".join(
        f"{name} {value.shape if type(value) is Array else '()'}"
        for name, value in (("condition", condition), ("x1", x1), ("x2", x2))
    )
    return ValueError(f"where: the shapes do not broadcast together: {shapes}")
