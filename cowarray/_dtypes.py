"""Data types: NumPy dtype objects, the standard's promotion table, scalar rules.

Dtypes are plain ``numpy.dtype`` objects (Dask, SciPy and friends need them).
Promotion follows the Array API standard's table exactly: mixed-kind
promotion (integer with floating, bool with numbers) and ``uint64`` with a
signed integer are refused with a TypeError instead of NumPy's guesses. Python
scalars are weak: they take the array's dtype, provided their kind fits.
"""

from __future__ import annotations

import numbers
from typing import Any, Final, TypeAlias

import numpy as np

__all__ = [
    "ALL_DTYPES",
    "bool",
    "check_scalar",
    "complex64",
    "complex128",
    "float16",
    "float32",
    "float64",
    "int8",
    "int16",
    "int32",
    "int64",
    "promote",
    "to_dtype",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
]

builtin_bool = bool  # before the name is reused for the dtype below
PyScalar: TypeAlias = "builtin_bool | int | float | complex"

bool: Final = np.dtype("bool")
int8: Final = np.dtype("int8")
int16: Final = np.dtype("int16")
int32: Final = np.dtype("int32")
int64: Final = np.dtype("int64")
uint8: Final = np.dtype("uint8")
uint16: Final = np.dtype("uint16")
uint32: Final = np.dtype("uint32")
uint64: Final = np.dtype("uint64")
float16: Final = np.dtype("float16")
float32: Final = np.dtype("float32")
float64: Final = np.dtype("float64")
complex64: Final = np.dtype("complex64")
complex128: Final = np.dtype("complex128")

SIGNED: Final = (int8, int16, int32, int64)
UNSIGNED: Final = (uint8, uint16, uint32, uint64)
INTEGER: Final = SIGNED + UNSIGNED
REAL_FLOATING: Final = (float32, float64)
COMPLEX_FLOATING: Final = (complex64, complex128)
FLOATING: Final = REAL_FLOATING + COMPLEX_FLOATING
NUMERIC: Final = INTEGER + FLOATING
#: The dtypes of the Array API standard.
STANDARD_DTYPES: Final = (bool, *NUMERIC)
#: Everything cowarray stores: the standard's dtypes plus float16, which
#: torch and NumPy share (it promotes below float32, as in both libraries).
ALL_DTYPES: Final = (*STANDARD_DTYPES, float16)

DEFAULT_INT: Final = int64
DEFAULT_FLOAT: Final = float64
DEFAULT_COMPLEX: Final = complex128
DEFAULT_INDEX: Final = int64


def _promotion_table() -> dict[tuple[np.dtype[Any], np.dtype[Any]], np.dtype[Any]]:
    table: dict[tuple[np.dtype[Any], np.dtype[Any]], np.dtype[Any]] = {(bool, bool): bool}
    families: tuple[tuple[np.dtype[Any], ...], ...] = (
        SIGNED,
        UNSIGNED,
        (float16, *REAL_FLOATING),
        COMPLEX_FLOATING,
    )
    for family in families:
        for i, a in enumerate(family):
            for b in family[i:]:
                table[a, b] = table[b, a] = b
    mixed_integers: dict[tuple[np.dtype[Any], np.dtype[Any]], np.dtype[Any]] = {
        (uint8, int8): int16, (uint8, int16): int16, (uint8, int32): int32,
        (uint8, int64): int64, (uint16, int8): int32, (uint16, int16): int32,
        (uint16, int32): int32, (uint16, int64): int64, (uint32, int8): int64,
        (uint32, int16): int64, (uint32, int32): int64, (uint32, int64): int64,
    }  # fmt: skip
    mixed_floating: dict[tuple[np.dtype[Any], np.dtype[Any]], np.dtype[Any]] = {
        (float32, complex64): complex64, (float32, complex128): complex128,
        (float64, complex64): complex128, (float64, complex128): complex128,
        (float16, complex64): complex64, (float16, complex128): complex128,
    }  # fmt: skip
    for (a, b), result in {**mixed_integers, **mixed_floating}.items():
        table[a, b] = table[b, a] = result
    return table


PROMOTION_TABLE: Final = _promotion_table()


def _kind_name(dtype: np.dtype[Any]) -> str:
    return {
        "b": "boolean",
        "i": "signed integer",
        "u": "unsigned integer",
        "f": "real floating",
        "c": "complex floating",
    }.get(dtype.kind, dtype.kind)


def promote(a: np.dtype[Any], b: np.dtype[Any]) -> np.dtype[Any]:
    """The standard's result dtype for two array dtypes, or TypeError."""
    if a is b:
        return a
    try:
        return PROMOTION_TABLE[a, b]
    except KeyError:
        pass
    if a not in ALL_DTYPES or b not in ALL_DTYPES:
        raise TypeError(f"dtypes {a} and {b} are not Array API dtypes")
    raise TypeError(
        f"cannot combine {a} ({_kind_name(a)}) with {b} ({_kind_name(b)}): the Array API "
        "standard defines no promotion between them; convert one explicitly with "
        "astype(x, dtype)"
    )


# Which Python scalar types combine with an array of each kind (the standard's
# "mixing arrays with Python scalars" rules). bool is not an int here.
_SCALARS_FOR_KIND: Final[dict[str, tuple[type, ...]]] = {
    "b": (builtin_bool,),
    "i": (int,),
    "u": (int,),
    "f": (int, float),
    "c": (int, float, complex),
}


def normalize_scalar(value: object) -> PyScalar:
    """A Python scalar from a Python or NumPy scalar; TypeError for anything else."""
    kind = type(value)
    if kind is int or kind is float or kind is complex or kind is builtin_bool:
        return value  # type: ignore[return-value]
    if isinstance(value, np.bool_):
        return builtin_bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, numbers.Complex):
        return complex(value)
    raise TypeError(
        f"expected an array or a Python scalar (bool, int, float, complex), "
        f"got {type(value).__name__}"
    )


def check_scalar(dtype: np.dtype[Any], value: object) -> None:
    """Refuse a Python scalar whose kind does not fit ``dtype`` (TypeError)."""
    if type(value) not in _SCALARS_FOR_KIND[dtype.kind]:
        raise TypeError(
            f"a Python {type(value).__name__} cannot be combined with an array of dtype "
            f"{dtype} under the Array API standard's rules; use a "
            f"{' or '.join(t.__name__ for t in _SCALARS_FOR_KIND[dtype.kind])} "
            "or convert the array with astype"
        )


def to_dtype(dtype: object, name: str = "dtype") -> np.dtype[Any]:
    """Validate a ``dtype=`` argument: one of the standard's dtypes."""
    if type(dtype) is np.dtype or isinstance(dtype, np.dtype):
        if dtype in ALL_DTYPES:
            return dtype
        raise ValueError(f"{name}={dtype} is not a dtype cowarray supports")
    if isinstance(dtype, str) or (isinstance(dtype, type) and issubclass(dtype, np.generic)):
        try:
            converted = np.dtype(dtype)
        except TypeError:
            raise ValueError(f"{name}={dtype!r} is not a data type") from None
        if converted in ALL_DTYPES:
            return converted
        raise ValueError(f"{name}={dtype!r} is not a dtype cowarray supports")
    raise TypeError(
        f"{name} must be a cowarray dtype such as cowarray.float64, got {type(dtype).__name__}"
    )


def default_for_scalar(value: object) -> np.dtype[Any]:
    """The default dtype for a Python scalar (bool, int64, float64, complex128)."""
    kind = type(value)
    if kind is builtin_bool:
        return bool
    if kind is int:
        return DEFAULT_INT
    if kind is float:
        return DEFAULT_FLOAT
    return DEFAULT_COMPLEX
