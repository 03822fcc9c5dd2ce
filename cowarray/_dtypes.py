"""Data types: NumPy dtype objects, the promotion table, scalar rules.

Dtypes are plain ``numpy.dtype`` objects (Dask, SciPy and friends need them).
Promotion (design rule 11): two dtypes of one kind promote by the Array API
standard's table, which NumPy matches; across kinds (bool, integer, real and
complex floating, which the 2025.12 standard leaves to the library) and for
``uint64`` with a signed integer (which its table leaves out) the result is
NumPy 2's (``numpy.promote_types``: ``int64`` with ``float32`` is
``float64``). Python scalars are weak (NEP 50): one of the array's kind or a
lower one takes the array's dtype; one of a higher kind gives NumPy 2's
result (``int8`` with ``0.5`` is ``float64``, ``float32`` with ``1j`` is
``complex64``).
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
    "one_kind",
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


def _standard_table() -> dict[tuple[np.dtype[Any], np.dtype[Any]], np.dtype[Any]]:
    """The standard's promotion table (one kind at a time), with float16 below float32."""
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


#: The standard's table: the pairs it defines, all within one kind.
STANDARD_PROMOTION_TABLE: Final = _standard_table()


def _promotion_table() -> dict[tuple[np.dtype[Any], np.dtype[Any]], np.dtype[Any]]:
    """Every pair of stored dtypes: the standard's table where it has the pair,
    NumPy 2's result elsewhere (across kinds, and ``uint64`` with a signed
    integer), always as the dtype objects above (the operators compare with
    ``is``)."""
    ours = {d: d for d in ALL_DTYPES}
    table = dict(STANDARD_PROMOTION_TABLE)
    for a in ALL_DTYPES:
        for b in ALL_DTYPES:
            if (a, b) not in table:
                table[a, b] = ours[np.promote_types(a, b)]
    return table


#: The result dtype of every pair of dtypes cowarray stores (design rule 11).
PROMOTION_TABLE: Final = _promotion_table()


def one_kind(a: np.dtype[Any], b: np.dtype[Any]) -> builtin_bool:
    """Whether the standard's table has the pair: both boolean, both integer
    (but ``uint64`` with a signed integer) or both floating. Other pairs
    promote by NumPy 2's rules (design rule 11)."""
    return (a, b) in STANDARD_PROMOTION_TABLE


def _kind_name(dtype: np.dtype[Any]) -> str:
    return {
        "b": "boolean",
        "i": "signed integer",
        "u": "unsigned integer",
        "f": "real floating",
        "c": "complex floating",
    }.get(dtype.kind, dtype.kind)


def promote(a: np.dtype[Any], b: np.dtype[Any]) -> np.dtype[Any]:
    """The result dtype for two array dtypes (design rule 11).

    Within one kind, the standard's table (``int8`` with ``uint8`` is
    ``int16``); across kinds, and ``uint64`` with a signed integer, NumPy 2's
    result (``int64`` with ``float32`` is ``float64``, ``bool`` with ``int8``
    is ``int8``, ``uint64`` with ``int64`` is ``float64``). TypeError only for
    a dtype cowarray does not store.
    """
    if a is b:
        return a
    try:
        return PROMOTION_TABLE[a, b]
    except KeyError:
        pass
    unknown = a if a not in ALL_DTYPES else b
    raise TypeError(
        f"dtypes {a} and {b}: {unknown} ({_kind_name(unknown)}) is not a dtype cowarray "
        "stores; convert it with astype(x, dtype) to one of "
        + ", ".join(d.name for d in ALL_DTYPES)
    )


# Which Python scalar types an array of each kind keeps its dtype with, the
# highest kind first: those of its kind or a lower one (NEP 50's weak
# scalars: the standard's rules, and a bool with numbers as in NumPy 2).
_SCALARS_FOR_KIND: Final[dict[str, tuple[type, ...]]] = {
    "b": (builtin_bool,),
    "i": (int, builtin_bool),
    "u": (int, builtin_bool),
    "f": (float, int, builtin_bool),
    "c": (complex, float, int, builtin_bool),
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
    """Refuse a scalar of a higher kind than ``dtype``'s (TypeError), where the
    result keeps ``dtype``: a write (``x[i] = v``), an in-place operator,
    ``dtype=`` of a creation function. (An operation that makes a new array
    promotes instead: :func:`scalar_result_dtype`.)

    A NumPy scalar counts as the Python scalar of its kind (``np.float64(1)``
    as a float, ``np.int32(1)`` as an int), as the standard's scalar rules
    read for any scalar that is not an array.
    """
    fitting = _SCALARS_FOR_KIND[dtype.kind]
    if _scalar_kind(value) not in fitting:
        where = f"{name}: " if name else ""
        lower = f" (or {', '.join(_A_SCALAR[t] for t in fitting[1:])})" if fitting[1:] else ""
        raise TypeError(
            f"{where}a {type(value).__name__} scalar cannot be combined with an array of dtype "
            f"{dtype} where the result keeps that dtype (a write, an in-place operator, "
            f"dtype={dtype}); use {_A_SCALAR[fitting[0]]}{lower}, make a new array "
            "(x = x + value promotes as NumPy does), or convert with astype"
        )


def _scalar_table() -> dict[tuple[np.dtype[Any], type], np.dtype[Any]]:
    ours = {d: d for d in ALL_DTYPES}
    samples = {builtin_bool: True, int: 0, float: 0.0, complex: 0j}
    return {
        (dtype, kind): ours[np.result_type(dtype, sample)]
        for dtype in ALL_DTYPES
        for kind, sample in samples.items()
    }


#: (array dtype, Python scalar type) -> the result dtype, NumPy 2's (NEP 50:
#: the scalar is weak): the array's dtype for a scalar of its kind or a lower
#: one; otherwise the default dtype of the scalar's kind (``int8`` with a
#: float is ``float64``, ``bool`` with an int is ``int64``), except that a
#: complex scalar with a real floating array keeps its precision (``float32``
#: with ``1j`` is ``complex64``, the standard's rule since 2024.12 too).
SCALAR_RESULT: Final = _scalar_table()
_SCALAR_RESULT_GET: Final = SCALAR_RESULT.get


def scalar_result_dtype(dtype: np.dtype[Any], value: object) -> np.dtype[Any]:
    """The dtype of an operation between an array of ``dtype`` and a scalar.

    See :data:`SCALAR_RESULT` (NumPy 2's answer for a Python scalar). A NumPy
    scalar counts as the Python scalar of its kind. A backend array (an
    operator's list operand, converted as ``asarray`` does) promotes as an
    array: :func:`promote`. TypeError for anything else, or an array dtype
    cowarray does not store.
    """
    if type(value) is float and dtype.kind == "f":
        return dtype  # NEP 50's weak float, without the tuple key: a tenth of x * 2.0
    found = _SCALAR_RESULT_GET((dtype, type(value)))  # a Python scalar: the common case
    if found is not None:
        return found
    try:
        kind = _scalar_kind(value)
    except TypeError:
        other = getattr(value, "dtype", None)
        if other is None or isinstance(value, np.generic) or getattr(value, "ndim", None) is None:
            raise
        return promote(dtype, other)
    try:
        return SCALAR_RESULT[dtype, kind]
    except KeyError:
        check_scalar(dtype, value)
        raise TypeError(f"{dtype} is not a dtype cowarray stores") from None


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
