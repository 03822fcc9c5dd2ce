"""The checks every op makes before calling the backend.

Devices must match, dtypes must promote under the standard's table, Python
scalars must fit the array's kind, and the function must accept the dtype (no
``add`` on booleans, no bitwise ops on floats). This module imports nothing
of the Array, so the Array's operators can use it directly.
"""

from __future__ import annotations

from typing import Any, Final

from .._devices import Device
from .._dtypes import normalize_scalar, promote
from .._errors import article

__all__ = [
    "CATEGORY",
    "OperandTypeError",
    "check_dtypes",
    "common_device",
    "pair_dtype",
    "scalar_operand",
]

# Which dtype kinds each function accepts: b bool, i/u integers, f real
# floating, c complex floating (the standard's dtype categories).
_NUMERIC: Final = "iufc"
_REAL: Final = "iuf"
_INTEGER: Final = "iu"
_INTEGER_OR_BOOL: Final = "biu"
_FLOATING: Final = "fc"
_REAL_FLOATING: Final = "f"
_ANY: Final = "biufc"

CATEGORY: Final[dict[str, str]] = {
    # arithmetic
    "add": _NUMERIC, "subtract": _NUMERIC, "multiply": _NUMERIC, "divide": _NUMERIC,
    "floor_divide": _REAL, "remainder": _REAL, "pow": _NUMERIC, "matmul": _NUMERIC,
    "negative": _NUMERIC, "positive": _NUMERIC, "abs": _NUMERIC,
    # bitwise
    "bitwise_and": _INTEGER_OR_BOOL, "bitwise_or": _INTEGER_OR_BOOL,
    "bitwise_xor": _INTEGER_OR_BOOL, "bitwise_invert": _INTEGER_OR_BOOL,
    "bitwise_left_shift": _INTEGER, "bitwise_right_shift": _INTEGER,
    # comparisons
    "equal": _ANY, "not_equal": _ANY, "less": _REAL, "less_equal": _REAL,
    "greater": _REAL, "greater_equal": _REAL,
    # math
    "sqrt": _FLOATING, "exp": _FLOATING, "log": _FLOATING, "sin": _FLOATING,
    "cos": _FLOATING,
    "acos": _FLOATING, "acosh": _FLOATING, "asin": _FLOATING, "asinh": _FLOATING,
    "atan": _FLOATING, "atanh": _FLOATING, "cosh": _FLOATING, "sinh": _FLOATING,
    "tan": _FLOATING, "tanh": _FLOATING, "expm1": _FLOATING, "log1p": _FLOATING,
    "log2": _FLOATING, "log10": _FLOATING, "reciprocal": _FLOATING,
    "atan2": _REAL_FLOATING, "copysign": _REAL_FLOATING, "hypot": _REAL_FLOATING,
    "logaddexp": _REAL_FLOATING, "nextafter": _REAL_FLOATING, "signbit": _REAL_FLOATING,
    "ceil": _REAL, "floor": _REAL, "trunc": _REAL, "clip": _REAL,
    "maximum": _REAL, "minimum": _REAL,
    "round": _NUMERIC, "sign": _NUMERIC, "square": _NUMERIC, "conj": _NUMERIC,
    "real": _NUMERIC, "imag": "c",
    "isfinite": _NUMERIC, "isinf": _NUMERIC, "isnan": _NUMERIC,
    # logical
    "logical_and": "b", "logical_or": "b", "logical_xor": "b", "logical_not": "b",
    # reductions
    "sum": _NUMERIC, "prod": _NUMERIC, "max": _REAL, "min": _REAL,
    "mean": _FLOATING, "std": _REAL_FLOATING, "var": _REAL_FLOATING,
    "cumulative_sum": _NUMERIC, "cumulative_prod": _NUMERIC,
    # searching, sorting, sets, utility
    "argmax": _REAL, "argmin": _REAL, "searchsorted": _REAL, "sort": _REAL,
    "argsort": _REAL, "diff": _NUMERIC,
}  # fmt: skip

_CATEGORY_NAMES: Final = {
    _NUMERIC: "numeric",
    _REAL: "real-valued",
    _INTEGER: "integer",
    _INTEGER_OR_BOOL: "integer or boolean",
    _FLOATING: "floating-point",
    _REAL_FLOATING: "real floating-point",
    _ANY: "any",
    "b": "boolean",
    "c": "complex floating-point",
}


def check_dtypes(name: str, dtype: Any) -> None:
    """Refuse a dtype outside ``name``'s category with a TypeError."""
    allowed = CATEGORY.get(name, _ANY)
    if dtype.kind not in allowed:
        category = _CATEGORY_NAMES.get(allowed, allowed)
        raise TypeError(
            f"{name} is defined for {category} dtypes, got {dtype}; convert the input "
            f"with astype(x, dtype) to {article(category)} dtype first"
        )


def common_device(*arrays: Any) -> Device:
    """The one device all ``arrays`` live on; ValueError if they differ."""
    device: Device = arrays[0]._device
    for other in arrays[1:]:
        if other._device is not device:
            raise ValueError(
                f"arrays on different devices ({device} and {other._device}) cannot be "
                "combined; move one with x.to_device(device)"
            )
    return device


class OperandTypeError(TypeError):
    """An operand that is neither an Array nor a Python scalar.

    Operators catch exactly this to return NotImplemented, so Python can try
    the other operand; every other TypeError (a refused promotion) reaches
    the caller with its message.
    """


_SCALAR_TYPES: Final = frozenset({int, float, complex, bool})


def scalar_operand(value: object) -> Any:
    """A Python scalar from a Python or NumPy scalar, else OperandTypeError."""
    if type(value) in _SCALAR_TYPES:
        return value
    try:
        return normalize_scalar(value)
    except TypeError as error:
        raise OperandTypeError(str(error)) from None


def pair_dtype(name: str, x1: Any, x2: Any) -> Any:
    """The result dtype of ``name`` on two Arrays: devices, promotion, category."""
    common_device(x1, x2)
    dtype = promote(x1._data.dtype, x2._data.dtype)
    check_dtypes(name, x1._data.dtype)
    check_dtypes(name, x2._data.dtype)
    return dtype
