"""The checks every op makes before calling the backend.

Devices must match, dtypes promote (the standard's table within a kind,
NumPy 2's results across kinds: design rule 11, in cowarray._dtypes), and
the function must accept the dtype (no
``add`` on booleans, no bitwise ops on floats): each op module declares which
dtypes its functions accept, beside each function, into :data:`CATEGORY`. This
module imports nothing of the Array, so the Array's operators can use it
directly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, TypeVar

from ._devices import Device
from ._dtypes import normalize_scalar, one_kind, promote
from ._errors import article

__all__ = [
    "ANY",
    "BOOLEAN",
    "CATEGORY",
    "COMPLEX",
    "FLOATING",
    "INTEGER",
    "INTEGER_OR_BOOL",
    "NUMERIC",
    "REAL",
    "REAL_FLOATING",
    "accepts",
    "declare_category",
    "OperandTypeError",
    "check_dtypes",
    "common_device",
    "pair_dtype",
    "scalar_operand",
]

# Which dtype kinds a function accepts: b bool, i/u integers, f real floating,
# c complex floating (the standard's dtype categories).
NUMERIC: Final = "iufc"
REAL: Final = "iuf"
INTEGER: Final = "iu"
INTEGER_OR_BOOL: Final = "biu"
FLOATING: Final = "fc"
REAL_FLOATING: Final = "f"
BOOLEAN: Final = "b"
COMPLEX: Final = "c"
ANY: Final = "biufc"

#: name -> the dtype kinds the function ``name`` accepts. Each op module
#: declares its functions' categories beside them as it is imported
#: (``accepts=`` in ``elementwise``'s factories, :func:`accepts` on a ``def``);
#: only the functions that are the Array's operators are listed here, because
#: the Array's operator factories read them when the class is made, before any
#: op module is imported.
CATEGORY: Final[dict[str, str]] = {
    # arithmetic
    "add": NUMERIC, "subtract": NUMERIC, "multiply": NUMERIC, "divide": NUMERIC,
    "floor_divide": REAL, "remainder": REAL, "pow": NUMERIC, "matmul": NUMERIC,
    "negative": NUMERIC, "positive": NUMERIC, "abs": NUMERIC,
    # bitwise
    "bitwise_and": INTEGER_OR_BOOL, "bitwise_or": INTEGER_OR_BOOL,
    "bitwise_xor": INTEGER_OR_BOOL, "bitwise_invert": INTEGER_OR_BOOL,
    "bitwise_left_shift": INTEGER, "bitwise_right_shift": INTEGER,
    # comparisons
    "equal": ANY, "not_equal": ANY, "less": REAL, "less_equal": REAL,
    "greater": REAL, "greater_equal": REAL,
}  # fmt: skip

_F = TypeVar("_F", bound=Callable[..., Any])


def declare_category(name: str, kinds: str | None) -> None:
    """Record that the function ``name`` accepts dtypes of ``kinds`` (None: it is
    an operator's, already listed in :data:`CATEGORY`); called at import."""
    if kinds is None:
        if name not in CATEGORY:
            raise RuntimeError(
                f"{name}: say which dtypes it accepts (accepts=FLOATING, ...: the "
                "categories are at the top of cowarray/_checks.py)"
            )
        return
    if CATEGORY.setdefault(name, kinds) != kinds:
        raise RuntimeError(f"{name} accepts {CATEGORY[name]!r} already, not {kinds!r}")


def accepts(kinds: str) -> Callable[[_F], _F]:
    """Decorate a function that checks its dtypes: it accepts ``kinds``."""

    def declare(function: _F) -> _F:
        declare_category(function.__name__, kinds)
        return function

    return declare


_CATEGORY_NAMES: Final = {
    NUMERIC: "numeric",
    REAL: "real-valued",
    INTEGER: "integer",
    INTEGER_OR_BOOL: "integer or boolean",
    FLOATING: "floating-point",
    REAL_FLOATING: "real floating-point",
    ANY: "any",
    BOOLEAN: "boolean",
    COMPLEX: "complex floating-point",
}


def check_dtypes(name: str, dtype: Any) -> None:
    """Refuse a dtype outside ``name``'s category with a TypeError (a KeyError
    for a function that declared none: a bug, found by the first test)."""
    allowed = CATEGORY[name]
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
            device = _traced_device(device, other._device)
    return device


def _traced_device(device: Device, other: Device) -> Device:
    """Of two different devices, the one of traced values where the other is
    the host: inside a transform (cowarray.transforms) a host Array is a
    constant of the trace, as a NumPy array is under ``jax.jit``. Else
    ValueError: Arrays on two devices are never combined implicitly."""
    for traced, host in ((device, other), (other, device)):
        if getattr(traced.backend, "reads_host_arrays", False) and host.kind == "cpu":
            return traced
    raise ValueError(
        f"arrays on different devices ({device} and {other}) cannot be "
        "combined; move one with x.to_device(device)"
    )


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
    """The result dtype of ``name`` on two Arrays: devices, promotion, category.

    Arrays of one kind (a pair in the standard's table) must each be of
    ``name``'s category; others promote first (design rule 11), and the
    promoted dtype must be, as in NumPy: ``atan2(int_array, float_array)``
    is computed in floating point, ``add(bool_array, int_array)`` in the
    integer dtype.
    """
    common_device(x1, x2)
    a = x1._data.dtype
    b = x2._data.dtype
    dtype = promote(a, b)
    if one_kind(a, b):
        check_dtypes(name, a)
        check_dtypes(name, b)
    else:
        check_dtypes(name, dtype)
    return dtype
