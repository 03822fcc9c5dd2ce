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
    "scalar_result_dtype",
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
    kind_name = kind.__qualname__
    if kind.__module__ not in ("builtins", __name__):
        kind_name = f"{kind.__module__.split('.')[0]}'s {kind_name}"  # not our Array
    raise TypeError(
        f"expected a cowarray Array, a list or a Python scalar (bool, int, float, complex), "
        f"got {kind_name}; convert it first with cowarray.asarray(value) (a lazy array "
        "such as Dask's: value.compute())"
    )


_A_SCALAR: Final = {builtin_bool: "a bool", int: "an int", float: "a float", complex: "a complex"}


def _scalar_kind(value: object) -> type:
    """The Python scalar type ``value`` acts as (a NumPy scalar acts as its kind's)."""
    kind = type(value)
    if kind is int or kind is float or kind is complex or kind is builtin_bool:
        return kind
    return type(normalize_scalar(value))


def check_scalar(dtype: np.dtype[Any], value: object, name: str = "") -> None:
    """Refuse a scalar whose kind does not fit ``dtype`` (TypeError).

    A NumPy scalar counts as the Python scalar of its kind (``np.float64(1)``
    as a float, ``np.int32(1)`` as an int), as the standard's scalar rules
    read for any scalar that is not an array.
    """
    if _scalar_kind(value) not in _SCALARS_FOR_KIND[dtype.kind]:
        where = f"{name}: " if name else ""
        raise TypeError(
            f"{where}a {type(value).__name__} scalar cannot be combined with an array of dtype "
            f"{dtype} under the Array API standard's rules; use "
            f"{' or '.join(_A_SCALAR[t] for t in _SCALARS_FOR_KIND[dtype.kind])} "
            "or convert the array with astype"
        )


_COMPLEX_OF: Final[dict[np.dtype[Any], np.dtype[Any]]] = {
    np.dtype(np.float16): np.dtype(np.complex64),
    np.dtype(np.float32): np.dtype(np.complex64),
    np.dtype(np.float64): np.dtype(np.complex128),
}


def scalar_result_dtype(dtype: np.dtype[Any], value: object) -> np.dtype[Any]:
    """The dtype of an operation between an array of ``dtype`` and a scalar.

    The array's dtype, as Python scalars are weak, except that a complex
    scalar with a real floating array gives the complex dtype of the same
    precision (the standard's rule since 2024.12: ``1j * float32`` is
    complex64). TypeError for a scalar whose kind does not fit.
    """
    if dtype.kind == "f" and _scalar_kind(value) is complex:
        return _COMPLEX_OF[dtype]
    check_scalar(dtype, value)
    return dtype


#: The Python types ``dtype=`` accepts, as NumPy reads them.
_PYTHON_TYPES: Final[dict[type, np.dtype[Any]]] = {
    builtin_bool: bool,
    int: DEFAULT_INT,
    float: DEFAULT_FLOAT,
    complex: DEFAULT_COMPLEX,
}

_SUPPORTED_NAMES: Final = ", ".join(d.name for d in ALL_DTYPES)


def to_dtype(dtype: object, name: str = "dtype") -> np.dtype[Any]:
    """Validate a ``dtype=`` argument; the one dtype check of every function.

    Takes every spelling of a dtype cowarray stores, the same way everywhere:
    a cowarray (NumPy) dtype object (``cowarray.float32``), a NumPy scalar
    type (``numpy.float32``), a name (``"float32"``), or a Python type
    (``bool``, ``int``, ``float``, ``complex``: the default dtype of that
    kind). ValueError for a dtype cowarray does not store or a name that is
    none; TypeError for anything that is not a dtype.
    """
    if type(dtype) is np.dtype or isinstance(dtype, np.dtype):
        if dtype in ALL_DTYPES:
            return dtype
        raise ValueError(
            f"{name}={dtype} is not a dtype cowarray supports; use one of {_SUPPORTED_NAMES}"
        )
    if type(dtype) is type and dtype in _PYTHON_TYPES:
        return _PYTHON_TYPES[dtype]
    if isinstance(dtype, str) or (isinstance(dtype, type) and issubclass(dtype, np.generic)):
        try:
            converted = np.dtype(dtype)
        except TypeError:
            raise ValueError(
                f"{name}={dtype!r} is not a data type; use one of {_SUPPORTED_NAMES} "
                "(as cowarray.float64 or by name)"
            ) from None
        if converted in ALL_DTYPES:
            return converted
        raise ValueError(
            f"{name}={dtype!r} is not a dtype cowarray supports; use one of {_SUPPORTED_NAMES}"
        )
    raise TypeError(
        f"{name} must be a cowarray dtype such as cowarray.float64 (or its name, "
        f"'float64', or a Python type: bool, int, float, complex), got "
        f"{type(dtype).__name__} {dtype!r}"
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
