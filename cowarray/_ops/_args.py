"""Argument checks shared by the op modules: shapes, axes, keywords.

Each raises the standard's exception type with a message that names the
argument, so a caller's mistake never surfaces as a traceback from NumPy.
"""

from __future__ import annotations

import operator
from typing import Any

from .._array import Array
from .._dtypes import normalize_scalar, promote, scalar_result_dtype
from ._checks import common_device

__all__ = [
    "array_or_scalar_operands",
    "normalize_axes",
    "normalize_axis",
    "normalize_shape",
    "require_array",
]


def require_array(x: object, name: str = "x", function: str = "") -> None:
    """TypeError unless ``x`` is a cowarray Array."""
    if type(x) is not Array:
        where = f"{function}: " if function else ""
        raise TypeError(f"{where}{name} must be a cowarray Array, got {type(x).__name__}")


def _as_int(value: object, name: str) -> int:
    if isinstance(value, bool):
        raise TypeError(f"{name} must be an integer, got a bool")
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}") from None


def normalize_shape(shape: object, name: str = "shape") -> tuple[int, ...]:
    """A tuple of non-negative ints from an int or a sequence of ints."""
    if isinstance(shape, (tuple, list)):
        dims = tuple(_as_int(d, f"each entry of {name}") for d in shape)
    else:
        dims = (_as_int(shape, name),)
    for d in dims:
        if d < 0:
            raise ValueError(f"{name} must not have negative entries, got {dims}")
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
    axes = axis if isinstance(axis, tuple) else (axis,)
    result = tuple(normalize_axis(a, ndim, name) for a in axes)
    if len(set(result)) != len(result):
        raise ValueError(f"{name}={axis} repeats an axis")
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
        raise TypeError(f"{function}: at least one of x1 and x2 must be an Array")
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
            raise TypeError(
                f"{function}: {name} must be an Array or a Python scalar, "
                f"got {type(value).__name__}"
            ) from None
        dtype = scalar_result_dtype(dtype, scalar)
        operands.append(scalar)
    return device, dtype, operands
