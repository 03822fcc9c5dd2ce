"""Argument checks shared by the op modules: shapes, axes, keywords.

Each raises the standard's exception type with a message that names the
argument, so a caller's mistake never surfaces as a traceback from NumPy.
"""

from __future__ import annotations

import operator
from typing import Any

from .._array import Array
from .._checks import common_device
from .._dtypes import normalize_scalar, promote, scalar_result_dtype
from .._errors import check_nbytes, not_an_array

_ARRAY_OR_SCALAR = "a cowarray Array or a Python scalar"

__all__ = [
    "array_or_scalar_operands",
    "checked_shape",
    "normalize_axes",
    "normalize_axis",
    "normalize_shape",
    "require_array",
]


def require_array(x: object, name: str = "x", function: str = "") -> None:
    """TypeError unless ``x`` is a cowarray Array (the hint policy's words)."""
    if type(x) is not Array:
        raise not_an_array(function or "cowarray", name, x)


def _as_int(value: object, name: str) -> int:
    if isinstance(value, bool):
        raise TypeError(f"{name} must be an integer, got a bool; pass an int such as {int(value)}")
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(
            f"{name} must be an integer, got {type(value).__name__} {value!r}; pass an int"
        ) from None


def normalize_shape(shape: object, name: str = "shape") -> tuple[int, ...]:
    """A tuple of non-negative ints from an int or a sequence of ints.

    The one size check of every creation function (see ``cowarray._errors``):
    TypeError for a non-integer entry, ValueError for a negative one.
    """
    if isinstance(shape, (tuple, list)):
        dims = tuple(_as_int(d, f"each entry of {name}") for d in shape)
        for d in dims:
            if d < 0:
                raise ValueError(
                    f"{name} must not have negative entries: got {d} in {name} {dims}; "
                    "pass sizes >= 0"
                )
        return dims
    size = _as_int(shape, name)
    if size < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {size}; pass a size >= 0")
    return (size,)


def checked_shape(shape: object, dtype: Any, function: str, name: str = "shape") -> tuple[int, ...]:
    """``normalize_shape``, and a ValueError for a shape no memory could hold."""
    dims = normalize_shape(shape, name)
    check_nbytes(dims, dtype.itemsize, function, name)
    return dims


def normalize_axis(axis: object, ndim: int, name: str = "axis") -> int:
    """An axis in ``range(ndim)`` from a possibly negative int; IndexError outside."""
    index = _as_int(axis, name)
    if not -ndim <= index < ndim:
        raise IndexError(
            f"{name}={index} is out of range for an array with {ndim} dimension"
            f"{'' if ndim == 1 else 's'} (valid: {-ndim} to {ndim - 1})"
        )
    return index % ndim if ndim else 0


def normalize_axes(axis: Any, ndim: int, name: str = "axis") -> tuple[int, ...] | None:
    """None, or a tuple of distinct axes in ``range(ndim)``."""
    if axis is None:
        return None
    if type(axis) is int and -ndim <= axis < ndim:
        return (axis % ndim,)  # the common call, one axis in range: 1 us less per reduction
    axes = axis if isinstance(axis, tuple) else (axis,)
    result = tuple(normalize_axis(a, ndim, name) for a in axes)
    if len(set(result)) != len(result):
        raise ValueError(f"{name}={axis} repeats an axis; list each axis only once")
    return result


def array_or_scalar_operands(
    function: str, x1: object, x2: object, *others: Array
) -> tuple[Any, Any, list[Any]]:
    """(device, dtype, operands) for two operands of which at least one is an Array.

    The device is the one all Arrays (``x1``, ``x2`` and ``others``) share;
    the dtype is the Arrays' promoted dtype; each operand is an Array's
    backend array or a Python scalar checked to fit that dtype.
    """
    arrays = [a for a in (x1, x2) if type(a) is Array]
    if not arrays:
        raise not_an_array(function, "x1", x1, "a cowarray Array (at least one of x1 and x2)")
    device = common_device(*others, *arrays)
    dtype = promote(arrays[0].dtype, arrays[1].dtype) if len(arrays) == 2 else arrays[0].dtype
    operands: list[Any] = []
    for name, value in (("x1", x1), ("x2", x2)):
        if type(value) is Array:
            operands.append(value._data)
            continue
        try:
            scalar = normalize_scalar(value)
        except TypeError:
            raise not_an_array(function, name, value, _ARRAY_OR_SCALAR) from None
        dtype = scalar_result_dtype(dtype, scalar)
        operands.append(scalar)
    return device, dtype, operands
