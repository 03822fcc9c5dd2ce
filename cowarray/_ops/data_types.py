"""Data type functions (Array API standard, "Data Type Functions")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from .._array import Array, fresh
from .._core import lazy_clone
from .._devices import as_device
from .._dtypes import promote, scalar_result_dtype, to_dtype
from .._errors import not_an_array
from ._args import require_array

__all__ = [
    "FInfo",
    "IInfo",
    "astype",
    "can_cast",
    "finfo",
    "iinfo",
    "isdtype",
    "result_type",
]


def astype(x: Array, dtype: Any, /, *, copy: bool = True, device: Any = None) -> Array:
    """``x``'s values converted to ``dtype`` (and moved to ``device``).

    Parameters
    ----------
    x : Array
    dtype : dtype
        The target dtype. Casting a complex array to a real dtype raises
        TypeError (take ``real`` first); other casts follow NumPy.
    copy : bool, default True
        ``True`` always returns a new value (a lazy clone, O(1), when nothing
        changes). ``False`` returns ``x`` itself when dtype and device already
        match.
    device : Device or str, optional

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.astype(ca.asarray([1.7, -2.2]), ca.int32)
    cowarray.Array([ 1, -2], dtype=int32)
    """
    require_array(x, "x", "astype")
    target_dtype = to_dtype(dtype)
    if type(copy) is not bool:
        raise TypeError(f"astype: copy must be True or False, got {copy!r}")
    if device is not None and as_device(device) is not x._device:
        x = x.to_device(device)
        copy = False  # the move already made a new value
    if target_dtype == x.dtype:
        return lazy_clone(x) if copy else x
    if x.dtype.kind == "c" and target_dtype.kind != "c":
        raise TypeError(
            f"casting complex {x.dtype} to {target_dtype} would drop the imaginary part; "
            "take real(x) or abs(x) first"
        )
    return fresh(x._device.backend.xp.astype(x._data, target_dtype), x._device)


def _dtype_of(value: object, function: str, name: str) -> np.dtype[Any]:
    if type(value) is Array:
        return value.dtype
    try:
        return to_dtype(value, name)
    except TypeError:
        raise not_an_array(
            function,
            name,
            value,
            "a cowarray dtype (such as ca.float64, 'float64' or float) or an Array",
        ) from None
    except ValueError as error:
        raise ValueError(f"{function}: {error}") from None


def can_cast(from_: Any, to: Any, /) -> bool:
    """Whether promotion allows casting ``from_`` to ``to`` (design rule 11).

    Parameters
    ----------
    from_ : dtype or Array
        The dtype to cast from (an Array's own dtype).
    to : dtype
        The dtype to cast to.

    Returns
    -------
    bool
        True when promoting ``from_`` with ``to`` gives ``to``: widening
        within a kind, unsigned to a wider signed integer, real to complex
        floating (the standard's table), and across kinds where NumPy 2's
        promotion gives ``to`` (bool to numbers, integers to a float wide
        enough: ``int64`` to ``float64``, not to ``float32``), as
        ``numpy.can_cast`` answers.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.can_cast(ca.int8, ca.int32), ca.can_cast(ca.float64, ca.float32)
    (True, False)
    >>> ca.can_cast(ca.asarray([1, 2]), ca.float64), ca.can_cast(ca.int64, ca.float32)
    (True, False)
    """
    source = _dtype_of(from_, "can_cast", "from_")
    target = _dtype_of(to, "can_cast", "to")
    if type(to) is Array:
        raise TypeError("can_cast: to must be a cowarray dtype, got Array; pass its x.dtype")
    try:
        return promote(source, target) == target
    except TypeError:
        return False


@dataclass(frozen=True, slots=True)
class FInfo:
    """Machine limits of a floating-point dtype, as Python floats."""

    #: Number of bits of the (real) floating-point type.
    bits: int
    #: Difference between 1.0 and the next larger representable number.
    eps: float
    #: Largest representable number.
    max: float
    #: Smallest (most negative) representable number.
    min: float
    #: Smallest positive number with full precision.
    smallest_normal: float
    #: The real floating-point dtype described.
    dtype: np.dtype[Any]


@dataclass(frozen=True, slots=True)
class IInfo:
    """Machine limits of an integer dtype, as Python ints."""

    #: Number of bits of the type.
    bits: int
    #: Largest representable number.
    max: int
    #: Smallest representable number.
    min: int
    #: The integer dtype described.
    dtype: np.dtype[Any]


_REAL_OF: Final[dict[np.dtype[Any], np.dtype[Any]]] = {
    np.dtype("complex64"): np.dtype("float32"),
    np.dtype("complex128"): np.dtype("float64"),
}


def finfo(type: Any, /) -> FInfo:
    """Machine limits of a floating-point dtype (a complex dtype's component).

    Parameters
    ----------
    type : dtype or Array
        A floating-point dtype, or an array of one.

    Returns
    -------
    FInfo
        ``bits``, ``eps``, ``max``, ``min``, ``smallest_normal`` (Python
        floats) and ``dtype`` (a real floating-point dtype).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.finfo(ca.float32).bits
    32
    >>> ca.finfo(ca.complex128).dtype
    dtype('float64')
    >>> ca.finfo(ca.ones(2)).eps
    2.220446049250313e-16
    """
    dtype = _dtype_of(type, "finfo", "type")
    if dtype.kind not in "fc":
        raise ValueError(f"finfo needs a floating-point dtype, got {dtype}; use iinfo for integers")
    real = _REAL_OF.get(dtype, dtype)
    info = np.finfo(real)
    return FInfo(
        bits=int(info.bits),
        eps=float(info.eps),
        max=float(info.max),
        min=float(info.min),
        smallest_normal=float(info.smallest_normal),
        dtype=real,
    )


def iinfo(type: Any, /) -> IInfo:
    """Machine limits of an integer dtype.

    Parameters
    ----------
    type : dtype or Array
        An integer dtype, or an array of one.

    Returns
    -------
    IInfo
        ``bits``, ``max``, ``min`` (Python ints) and ``dtype``.

    Examples
    --------
    >>> import cowarray as ca
    >>> info = ca.iinfo(ca.int8)
    >>> info.min, info.max, info.bits
    (-128, 127, 8)
    >>> ca.iinfo(ca.asarray([1], dtype=ca.uint16)).max
    65535
    """
    dtype = _dtype_of(type, "iinfo", "type")
    if dtype.kind not in "iu":
        raise ValueError(f"iinfo needs an integer dtype, got {dtype}; use finfo for floating point")
    info = np.iinfo(dtype)
    return IInfo(bits=int(info.bits), max=int(info.max), min=int(info.min), dtype=dtype)


_KINDS: Final[dict[str, str]] = {
    "bool": "b",
    "signed integer": "i",
    "unsigned integer": "u",
    "integral": "iu",
    "real floating": "f",
    "complex floating": "c",
    "numeric": "iufc",
}


def isdtype(dtype: Any, kind: Any) -> bool:
    """Whether ``dtype`` is ``kind``: a dtype, a kind name, or a tuple of them.

    Parameters
    ----------
    dtype : dtype
        The dtype to test.
    kind : dtype, str or tuple
        A dtype (equality), one of ``'bool'``, ``'signed integer'``,
        ``'unsigned integer'``, ``'integral'``, ``'real floating'``,
        ``'complex floating'``, ``'numeric'``, or a tuple of these (any
        matches). ``float16``, which cowarray also stores, counts as
        ``'real floating'``.

    Returns
    -------
    bool

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.isdtype(ca.float32, "real floating")
    True
    >>> ca.isdtype(ca.int8, ("bool", "unsigned integer"))
    False
    >>> ca.isdtype(ca.int8, ca.int8)
    True
    """
    if type(dtype) is Array:
        raise TypeError("isdtype: dtype must be a cowarray dtype, got Array; pass its x.dtype")
    dtype = _dtype_of(dtype, "isdtype", "dtype")
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return any(_is_kind(dtype, k) for k in kinds)


def _is_kind(dtype: np.dtype[Any], kind: object) -> bool:
    if isinstance(kind, np.dtype):
        return dtype == kind
    if isinstance(kind, str):
        try:
            return dtype.kind in _KINDS[kind]
        except KeyError:
            raise ValueError(
                f"isdtype: kind={kind!r} is not a dtype kind; expected one of "
                f"{', '.join(repr(k) for k in _KINDS)}"
            ) from None
    raise TypeError(
        f"isdtype: kind must be a dtype, a kind name or a tuple of them, got {type(kind).__name__}"
    )


class _ScalarsAloneError(TypeError, ValueError):
    """``result_type`` of no Array or dtype, which the standard rules out.

    Both types, as consumers catch either to fall back to a default dtype:
    xarray's ``result_type`` a TypeError (a wrong kind of argument), SciPy's
    ``signal._logspace`` a ValueError (array-api-strict's type for it).
    """


def result_type(*arrays_and_dtypes: Any) -> np.dtype[Any]:
    """The dtype promotion gives for these operands (design rule 11).

    The standard's table within a kind, NumPy 2's result across kinds
    (``int64`` with ``float32`` is ``float64``).

    Parameters
    ----------
    *arrays_and_dtypes : Array, dtype, or Python scalar
        At least one Array or dtype (else an error that is both a TypeError
        and a ValueError, which consumers catch either way). Python scalars
        are weak (NEP 50): one of the promoted dtype's kind or a lower one
        takes that dtype; one of a higher kind gives NumPy 2's result
        (``int8`` with ``0.5`` is ``float64``). A NumPy scalar counts as the
        Python scalar of its kind.

    Returns
    -------
    dtype

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.result_type(ca.int8, ca.uint8)
    dtype('int16')
    >>> ca.result_type(ca.asarray([1.0], dtype=ca.float32), 2)
    dtype('float32')
    """
    dtypes: list[np.dtype[Any]] = []
    scalars: list[object] = []
    for position, value in enumerate(arrays_and_dtypes):
        if type(value) in (bool, int, float, complex) or isinstance(value, np.generic):
            scalars.append(value)
        else:
            dtypes.append(_dtype_of(value, "result_type", f"argument {position}"))
    if not dtypes:
        # (no parentheses: SciPy's tests match this message as a regex)
        if not scalars:
            raise _ScalarsAloneError(
                "result_type needs at least one Array or dtype, got no arguments"
            )
        kinds = ", ".join(type(value).__name__ for value in scalars)
        raise _ScalarsAloneError(
            f"result_type needs at least one Array or dtype, got only scalars ({kinds}): "
            "scalars alone are weak; pass an Array or a dtype with them"
        )
    result = dtypes[0]
    for dtype in dtypes[1:]:
        result = promote(result, dtype)
    for scalar in scalars:
        result = scalar_result_dtype(result, scalar)
    return result
