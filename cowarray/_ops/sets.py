"""Set functions (Array API standard, "Set Functions").

Uniqueness is value equality: NaNs are all distinct, ``-0.0`` equals ``0.0``.
Results are fresh arrays in named tuples with the standard's field names.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .._array import Array, fresh
from .._core import may_view
from .._dtypes import DEFAULT_INDEX
from ._args import array_or_scalar_operands, require_array

__all__ = [
    "UniqueAllResult",
    "UniqueCountsResult",
    "UniqueInverseResult",
    "isin",
    "unique_all",
    "unique_counts",
    "unique_inverse",
    "unique_values",
]


class UniqueAllResult(NamedTuple):
    """What :func:`unique_all` returns."""

    values: Array
    indices: Array
    inverse_indices: Array
    counts: Array


class UniqueCountsResult(NamedTuple):
    """What :func:`unique_counts` returns."""

    values: Array
    counts: Array


class UniqueInverseResult(NamedTuple):
    """What :func:`unique_inverse` returns."""

    values: Array
    inverse_indices: Array


def _unique(function: str, x: Array) -> Any:
    require_array(x, "x", function)
    return getattr(x._device.backend.xp, function)(x._data)


def _index(x: Array, data: Any) -> Array:
    xp = x._device.backend.xp
    return may_view(xp.astype(data, DEFAULT_INDEX, copy=False), x._device, (x,))


def unique_all(x: Array, /) -> UniqueAllResult:
    """The unique values of ``x`` (flattened, sorted) with first indices, inverse and counts.

    Parameters
    ----------
    x : Array

    Returns
    -------
    UniqueAllResult
        ``values`` (1-D, ``x``'s dtype), ``indices`` of first occurrences in the
        flattened ``x``, ``inverse_indices`` (``x``'s shape) and ``counts``, all
        indices ``int64``.

    Examples
    --------
    >>> import cowarray as ca
    >>> result = ca.unique_all(ca.asarray([3, 1, 3]))
    >>> result.values
    cowarray.Array([1, 3], dtype=int64)
    >>> result.indices, result.counts
    (cowarray.Array([1, 0], dtype=int64), cowarray.Array([1, 2], dtype=int64))
    >>> result.inverse_indices
    cowarray.Array([1, 0, 1], dtype=int64)
    """
    values, indices, inverse, counts = _unique("unique_all", x)
    return UniqueAllResult(
        may_view(values, x._device, (x,)),
        _index(x, indices),
        _index(x, inverse),
        _index(x, counts),
    )


def unique_counts(x: Array, /) -> UniqueCountsResult:
    """The unique values of ``x`` (flattened, sorted) and how often each occurs.

    Parameters
    ----------
    x : Array

    Returns
    -------
    UniqueCountsResult
        ``values`` (1-D, ``x``'s dtype) and their ``counts`` (``int64``).

    Examples
    --------
    >>> import cowarray as ca
    >>> values, counts = ca.unique_counts(ca.asarray([2, 2, 5]))
    >>> counts
    cowarray.Array([2, 1], dtype=int64)
    """
    values, counts = _unique("unique_counts", x)
    return UniqueCountsResult(may_view(values, x._device, (x,)), _index(x, counts))


def unique_inverse(x: Array, /) -> UniqueInverseResult:
    """The unique values of ``x`` and, per element of ``x``, its index among them.

    ``inverse_indices`` has ``x``'s shape, so ``values[inverse_indices]``
    rebuilds ``x``.

    Parameters
    ----------
    x : Array

    Returns
    -------
    UniqueInverseResult
        ``values`` (1-D, ``x``'s dtype) and ``inverse_indices`` (``int64``).

    Examples
    --------
    >>> import cowarray as ca
    >>> values, inverse = ca.unique_inverse(ca.asarray([[7, 5], [5, 7]]))
    >>> inverse
    cowarray.Array([[1, 0],
                    [0, 1]], dtype=int64)
    """
    values, inverse = _unique("unique_inverse", x)
    return UniqueInverseResult(may_view(values, x._device, (x,)), _index(x, inverse))


def unique_values(x: Array, /) -> Array:
    """The unique values of ``x``, flattened and sorted, as a 1-D array.

    The standard leaves the order unspecified; cowarray sorts (NaNs last), as
    NumPy's ``unique`` does and as SciPy and scikit-learn assume. NumPy 2.4's
    own ``unique_values`` returns hash order.

    Parameters
    ----------
    x : Array

    Returns
    -------
    Array
        A new 1-D array of ``x``'s dtype.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.unique_values(ca.asarray([[5, 3], [9, 3]]))
    cowarray.Array([3, 5, 9], dtype=int64)
    """
    values = _unique("unique_values", x)
    return may_view(x._device.backend.xp.sort(values), x._device, (x,))


def isin(x1: Array | int, x2: Array | int, /, *, invert: bool = False) -> Array:
    """Whether each element of ``x1`` equals some element of ``x2``.

    Parameters
    ----------
    x1, x2 : Array or Python scalar
        At least one must be an Array; their dtypes promote (design rule 11:
        ``isin(int_array, 1.0)`` compares by value, as NumPy does).
    invert : bool, default False
        Test "not in" instead.

    Returns
    -------
    Array
        A boolean array of ``x1``'s shape (0-d for a scalar ``x1``).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.isin(ca.asarray([1, 2, 3]), ca.asarray([3, 1]))
    cowarray.Array([ True, False,  True], dtype=bool)
    >>> ca.isin(2, ca.asarray([1, 2]), invert=True)
    cowarray.Array(False, dtype=bool)
    """
    if type(invert) is not bool:
        raise TypeError(f"isin: invert must be a bool, got {type(invert).__name__}")
    device, dtype, operands = array_or_scalar_operands("isin", x1, x2)
    operands = [
        device.backend.asarray(operand, dtype=dtype) if type(value) is not Array else operand
        for value, operand in zip((x1, x2), operands, strict=True)
    ]
    return fresh(device.backend.xp.isin(*operands, invert=invert), device)
