"""NumPy's arithmetic beyond the standard: products, signals, comparisons, predicates.

One implementation serves every backend. Computed with the backend's NumPy
names, which CuPy has with NumPy's signatures: ``dot``, ``outer``,
``einsum``, ``convolve``, ``correlate`` (CuPy may compute long ones with an
FFT: the same numbers to rounding) and ``interp``. Composed here from
standard operations: ``isclose``/``allclose`` and ``array_equal`` (one
formula on every backend), ``isposinf``/``isneginf``, ``iscomplex``/
``isreal``, ``float_power`` and ``power`` (the standard's ``pow``).

Operands follow the standard's type promotion: NumPy would also mix
integers with floating-point numbers in ``dot``, ``einsum``,
``convolve``, ``isclose`` and ``array_equal``; here that is a TypeError
that says to convert one with ``astype``. ``interp`` and ``float_power``
compute in ``float64`` (``complex128``) whatever the inputs, as NumPy does.
"""

from __future__ import annotations

from typing import Any

import numpy

from .._array import Array, fresh
from .._checks import common_device
from .._core import may_view
from .._dtypes import normalize_scalar, promote, to_dtype
from .._errors import not_an_array, shapes_do_not_broadcast
from ._args import array_or_scalar_operands, require_array
from ._out import write_out, write_ufunc_out
from .creation import asarray
from .elementwise import pow as _pow
from .manipulation import broadcast_shapes

__all__ = [
    "allclose",
    "array_equal",
    "convolve",
    "correlate",
    "dot",
    "einsum",
    "float_power",
    "interp",
    "iscomplex",
    "iscomplexobj",
    "isclose",
    "isneginf",
    "isposinf",
    "isreal",
    "isrealobj",
    "outer",
    "power",
]

Scalar = bool | int | float | complex


def _numeric_pair(function: str, a: object, b: object) -> tuple[Array, Array, Any]:
    require_array(a, "a", function)
    require_array(b, "b", function)
    assert type(a) is Array and type(b) is Array
    common_device(a, b)
    for name, x in (("a", a), ("b", b)):
        if x.dtype.kind not in "iufc":
            raise TypeError(f"{function}: {name} must be numeric, got dtype {x.dtype}")
    return a, b, promote(a.dtype, b.dtype)


def _as(xp: Any, data: Any, dtype: Any) -> Any:
    return data if data.dtype == dtype else xp.astype(data, dtype)


# -- products -------------------------------------------------------------------


def dot(a: Array, b: Array, /, out: Array | None = None) -> Array:
    """NumPy's ``dot``: the inner product of vectors, the product of matrices.

    For N-D ``a`` and M-D ``b`` (M >= 2), the sum over ``a``'s last axis and
    ``b``'s second-to-last; with a 1-D ``b``, over both last axes; with a
    0-d operand, the product.

    ``out`` (positional third, as in NumPy) is an Array of the result's
    shape and dtype exactly, as ``numpy.dot`` asks, to write the result into
    through copy-on-write; it is returned.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.dot(ca.asarray([1, 2]), ca.asarray([3, 4]))
    cowarray.Array(11, dtype=int64)
    >>> ca.dot(ca.asarray([[1, 0], [0, 2]]), ca.asarray([3, 4]))
    cowarray.Array([3, 8], dtype=int64)
    """
    if out is not None:
        return write_out(out, dot(a, b), "dot", "no")
    a, b, dtype = _numeric_pair("dot", a, b)
    if a.ndim and b.ndim:
        other = -1 if b.ndim == 1 else -2
        if a.shape[-1] != b.shape[other]:
            raise ValueError(
                f"dot: shapes {a.shape} and {b.shape} are not aligned: a's last axis has "
                f"length {a.shape[-1]}, b's axis {other} has {b.shape[other]}; they must be equal"
            )
    xp = a._device.backend.xp
    result = xp.dot(_as(xp, a._data, dtype), _as(xp, b._data, dtype))
    return may_view(result, a._device, (a, b))


def outer(a: Array, b: Array, /, out: Array | None = None) -> Array:
    """The outer product of ``a`` and ``b``, each flattened first (NumPy's ``outer``).

    ``out`` (positional third, as in NumPy) is an Array to write the result
    into through copy-on-write, by ``numpy.multiply``'s rules as
    ``numpy.outer``'s is (same-kind casting; a shape the result broadcasts
    to); it is returned.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.outer(ca.asarray([1, 2]), ca.asarray([[1, 10]]))
    cowarray.Array([[ 1, 10],
                    [ 2, 20]], dtype=int64)
    """
    if out is not None:
        return write_out(out, outer(a, b), "outer", "same_kind", broadcast=True)
    a, b, dtype = _numeric_pair("outer", a, b)
    xp = a._device.backend.xp
    result = xp.outer(_as(xp, a._data, dtype), _as(xp, b._data, dtype))
    return may_view(result, a._device, (a, b))


def einsum(
    subscripts: str,
    /,
    *operands: Array | numpy.ndarray[Any, Any],
    out: Array | None = None,
    casting: str = "safe",
) -> Array:
    """Einstein summation over ``operands`` as ``subscripts`` describes.

    Parameters
    ----------
    subscripts : str
        NumPy's notation: ``"ij,jk->ik"``, ``"ii"``, ``"...i,...i->..."``.
    *operands : Array or NumPy array
        Numeric arrays on one device; their dtypes promote (design rule 11:
        the standard's table within a kind, NumPy 2's across kinds). A NumPy
        array beside at least one Array is read as an input, as
        ``x * ndarray`` reads it (a copy on the Arrays' device, never an
        alias); xarray's ``dot`` and ``weighted`` mix them.
    out : Array, optional
        An Array of the result's shape to write the result into, through
        copy-on-write (NumPy's ``out=``). Keyword-only.
    casting : str, default "safe"
        NumPy's rule for casting the result into ``out`` (``numpy.einsum``'s
        default is ``"safe"``); used with ``out`` only.

    Returns
    -------
    Array
        A new array, or a lazy value of an operand where NumPy returns a view
        of it (``"ii->i"``, ``"ij->ji"``); ``out`` itself with ``out=``.

    Examples
    --------
    >>> import cowarray as ca
    >>> a = ca.asarray([[1, 2], [3, 4]])
    >>> ca.einsum("ij,jk->ik", a, a)
    cowarray.Array([[ 7, 10],
                    [15, 22]], dtype=int64)
    >>> ca.einsum("ii", a)
    cowarray.Array(5, dtype=int64)
    """
    if out is not None:
        result = einsum(subscripts, *operands)
        return write_out(out, result, "einsum", casting, casting_given=True)
    if not isinstance(subscripts, str):
        raise TypeError(f"einsum: subscripts must be a str, got {type(subscripts).__name__}")
    if not operands:
        raise ValueError("einsum needs at least one operand")
    operands = _with_numpy_operands_read("einsum", operands)
    for position, operand in enumerate(operands):
        if operand.dtype.kind not in "biufc":
            raise TypeError(f"einsum: operands[{position}] has dtype {operand.dtype}")
    device = common_device(*operands)
    dtype = operands[0].dtype
    for operand in operands[1:]:
        dtype = promote(dtype, operand.dtype)
    xp = device.backend.xp
    data = [_as(xp, operand._data, dtype) for operand in operands]
    try:
        result = xp.einsum(subscripts, *data)
    except ValueError as error:
        shapes = ", ".join(str(operand.shape) for operand in operands)
        raise ValueError(
            f"einsum: subscripts {subscripts!r} do not fit operands of shapes {shapes}: "
            f"{error}; give one group of letters per operand, separated by commas, with "
            "one letter per axis"
        ) from None
    return may_view(result, device, tuple(operands))


def _with_numpy_operands_read(
    function: str, operands: tuple[Array | numpy.ndarray[Any, Any], ...]
) -> tuple[Array, ...]:
    """``operands`` with each NumPy array read into an Array on the Arrays' device."""
    arrays = [operand for operand in operands if type(operand) is Array]
    for position, operand in enumerate(operands):
        if type(operand) is not Array and not isinstance(operand, numpy.ndarray):
            require_array(operand, f"operands[{position}]", function)
    if not arrays:
        raise TypeError(
            f"{function}: at least one operand must be a cowarray Array, got only NumPy "
            "arrays; make one with ca.asarray first"
        )
    device = common_device(*arrays)
    return tuple(
        operand if type(operand) is Array else asarray(operand, device=device)
        for operand in operands
    )


# -- signals --------------------------------------------------------------------

_MODES = ("full", "same", "valid")


def _signal(function: str, a: Array, v: Array, mode: str) -> Array:
    a, v, dtype = _numeric_pair(function, a, v)
    if a.ndim != 1 or v.ndim != 1:
        raise ValueError(f"{function}: a and v must be 1-D, got shapes {a.shape} and {v.shape}")
    if a.size == 0 or v.size == 0:
        raise ValueError(f"{function}: a and v must not be empty")
    if mode not in _MODES:
        raise ValueError(f"{function}: mode must be 'full', 'same' or 'valid', got {mode!r}")
    xp = a._device.backend.xp
    compute = xp.convolve if function == "convolve" else xp.correlate
    result = compute(_as(xp, a._data, dtype), _as(xp, v._data, dtype), mode=mode)
    return may_view(_as(xp, result, dtype), a._device, (a, v))


def convolve(a: Array, v: Array, /, mode: str = "full") -> Array:
    """The discrete linear convolution of two 1-D arrays.

    Parameters
    ----------
    a, v : Array
        Non-empty numeric 1-D arrays.
    mode : {"full", "same", "valid"}, default "full"
        All ``len(a) + len(v) - 1`` points, ``max(len(a), len(v))`` of them
        centred, or only those where the arrays overlap fully.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.convolve(ca.asarray([1, 2, 3]), ca.asarray([0, 1]))
    cowarray.Array([0, 1, 2, 3], dtype=int64)
    """
    return _signal("convolve", a, v, mode)


def correlate(a: Array, v: Array, /, mode: str = "valid") -> Array:
    """The cross-correlation of two 1-D arrays: ``sum(a[n + k] * conj(v[n]))``.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.correlate(ca.asarray([1, 2, 3]), ca.asarray([0, 1]), mode="full")
    cowarray.Array([1, 2, 3, 0], dtype=int64)
    """
    return _signal("correlate", a, v, mode)


def interp(
    x: Array,
    xp: Array,
    fp: Array,
    /,
    left: Scalar | None = None,
    right: Scalar | None = None,
    period: float | None = None,
) -> Array:
    """Piecewise-linear interpolation of the points ``(xp, fp)`` at ``x``.

    Parameters
    ----------
    x : Array
        Where to evaluate (real).
    xp : Array
        The points' increasing x-coordinates, 1-D (real).
    fp : Array
        Their values, 1-D of ``xp``'s length (real or complex).
    left, right : Python scalar, optional
        The value below ``xp[0]`` and above ``xp[-1]`` (``fp[0]``, ``fp[-1]``).
    period : float, optional
        The period of the x-coordinates; then ``left`` and ``right`` do not apply.

    Returns
    -------
    Array
        ``x``'s shape, ``float64`` (``complex128`` for complex ``fp``), as in NumPy.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.interp(ca.asarray([0.5, 3.0]), ca.asarray([0.0, 1.0, 2.0]), ca.asarray([0.0, 10.0, 20.0]))
    cowarray.Array([ 5., 20.], dtype=float64)
    """  # noqa: E501
    points = xp
    for name, value in (("x", x), ("xp", points), ("fp", fp)):
        require_array(value, name, "interp")
    device = common_device(x, points, fp)
    for name, value in (("x", x), ("xp", points)):
        if value.dtype.kind not in "biuf":
            raise TypeError(f"interp: {name} must be real, got dtype {value.dtype}")
    if fp.dtype.kind not in "biufc":
        raise TypeError(f"interp: fp must be numeric, got dtype {fp.dtype}")
    if points.ndim != 1 or fp.ndim != 1 or points.shape != fp.shape:
        raise ValueError(
            f"interp: xp and fp must be 1-D of one length, got shapes {points.shape} and {fp.shape}"
        )
    if points.size == 0:
        raise ValueError("interp: xp and fp must not be empty")
    float64, complex128 = to_dtype("float64"), to_dtype("complex128")
    value_dtype = complex128 if fp.dtype.kind == "c" else float64
    bounds = []
    for name, bound in (("left", left), ("right", right)):
        if bound is not None:
            try:
                bound = normalize_scalar(bound)
            except TypeError:
                raise TypeError(
                    f"interp: {name} must be a Python scalar, got {type(bound).__name__}"
                ) from None
            if isinstance(bound, complex) and value_dtype == float64:
                raise TypeError(f"interp: {name} is complex but fp is real")
        bounds.append(bound)
    if period is not None:
        if isinstance(period, bool) or not isinstance(period, (int, float)):
            raise TypeError(f"interp: period must be a real number, got {type(period).__name__}")
        if period == 0:
            raise ValueError("interp: period must not be zero")
    namespace = device.backend.xp
    result = namespace.interp(
        _as(namespace, x._data, float64),
        _as(namespace, points._data, float64),
        _as(namespace, fp._data, value_dtype),
        left=bounds[0],
        right=bounds[1],
        period=period,
    )
    return may_view(_as(namespace, namespace.asarray(result), value_dtype), device, (x, points, fp))


# -- comparisons ----------------------------------------------------------------


def _tolerance(value: object, name: str, function: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{function}: {name} must be a real number, got {type(value).__name__}")
    return float(value)


def _close(
    function: str, a: object, b: object, rtol: object, atol: object, equal_nan: object
) -> tuple[Any, Any]:
    relative = _tolerance(rtol, "rtol", function)
    absolute = _tolerance(atol, "atol", function)
    if type(equal_nan) is not bool:
        raise TypeError(f"{function}: equal_nan must be a bool, got {type(equal_nan).__name__}")
    device, dtype, (x, y) = array_or_scalar_operands(function, a, b)
    try:
        broadcast_shapes(getattr(x, "shape", ()), getattr(y, "shape", ()))
    except ValueError:
        raise shapes_do_not_broadcast(function, x, y, ("a", "b")) from None
    xp = device.backend.xp
    if dtype.kind not in "fc":
        dtype = to_dtype("float64")
    x = _as(xp, xp.asarray(x, dtype=dtype), dtype)
    y = _as(xp, xp.asarray(y, dtype=dtype), dtype)
    finite = xp.isfinite(x) & xp.isfinite(y)
    zero = xp.zeros((), dtype=dtype)
    difference = xp.abs(xp.where(finite, x, zero) - xp.where(finite, y, zero))
    within = difference <= absolute + relative * xp.abs(y)
    close = xp.where(finite, within, x == y)
    if equal_nan:
        close = close | (xp.isnan(x) & xp.isnan(y))
    return device, close


def isclose(
    a: Array | Scalar,
    b: Array | Scalar,
    /,
    rtol: float = 1e-05,
    atol: float = 1e-08,
    equal_nan: bool = False,
) -> Array:
    """Where ``a`` and ``b`` are equal within ``atol + rtol * abs(b)``, elementwise.

    Infinities are close only to themselves; NaNs to nothing, unless
    ``equal_nan``. Integers compare as ``float64``, as in NumPy.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.isclose(ca.asarray([1.0, 2.0]), ca.asarray([1.0 + 1e-9, 2.1]))
    cowarray.Array([ True, False], dtype=bool)
    """
    inputs = tuple(v for v in (a, b) if type(v) is Array)
    device, close = _close("isclose", a, b, rtol, atol, equal_nan)
    return may_view(close, device, inputs)


def allclose(
    a: Array | Scalar,
    b: Array | Scalar,
    /,
    rtol: float = 1e-05,
    atol: float = 1e-08,
    equal_nan: bool = False,
) -> bool:
    """Whether every element of ``a`` is :func:`isclose` to ``b``'s (a Python bool).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.allclose(ca.asarray([1.0, 2.0]), 2.0 * ca.asarray([0.5, 1.0]))
    True
    """
    device, close = _close("allclose", a, b, rtol, atol, equal_nan)
    return bool(device.backend.xp.all(close))


def array_equal(a1: Array, a2: Array, /, equal_nan: bool = False) -> bool:
    """Whether ``a1`` and ``a2`` have one shape and equal elements (a Python bool).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.array_equal(ca.asarray([1, 2]), ca.asarray([1, 2])), ca.array_equal(
    ...     ca.asarray([1, 2]), ca.asarray([[1, 2]]))
    (True, False)
    """
    require_array(a1, "a1", "array_equal")
    require_array(a2, "a2", "array_equal")
    if type(equal_nan) is not bool:
        raise TypeError(f"array_equal: equal_nan must be a bool, got {type(equal_nan).__name__}")
    device = common_device(a1, a2)
    promote(a1.dtype, a2.dtype)
    if a1.shape != a2.shape:
        return False
    xp = device.backend.xp
    same = a1._data == a2._data
    if equal_nan and a1.dtype.kind in "fc" and a2.dtype.kind in "fc":
        same = same | (xp.isnan(a1._data) & xp.isnan(a2._data))
    return bool(xp.all(same))


# -- predicates -----------------------------------------------------------------


def _infinity(function: str, x: Array, negative: bool) -> Array:
    require_array(x, "x", function)
    xp = x._device.backend.xp
    data = x._data
    if data.dtype.kind == "c":
        raise TypeError(f"{function} is not defined for complex values (which infinity?)")
    if data.dtype.kind != "f":
        return fresh(xp.zeros(data.shape, dtype=to_dtype("bool")), x._device)
    sign = xp.signbit(data)
    return may_view(xp.isinf(data) & (sign if negative else ~sign), x._device, (x,))


def isposinf(x: Array, /, out: Array | None = None) -> Array:
    """Where ``x`` is positive infinity (real arrays).

    ``out`` (positional second, as in NumPy) is an Array to write the result
    into through copy-on-write, by NumPy's ufunc rules (a shape the result
    broadcasts to, any dtype); it is returned.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.isposinf(ca.asarray([ca.inf, -ca.inf, 1.0]))
    cowarray.Array([ True, False, False], dtype=bool)
    """
    if out is not None:
        return write_out(out, isposinf(x), "isposinf", "same_kind", broadcast=True)
    return _infinity("isposinf", x, negative=False)


def isneginf(x: Array, /, out: Array | None = None) -> Array:
    """Where ``x`` is negative infinity (real arrays).

    ``out`` as :func:`isposinf`'s.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.isneginf(ca.asarray([ca.inf, -ca.inf, 1.0]))
    cowarray.Array([False,  True, False], dtype=bool)
    """
    if out is not None:
        return write_out(out, isneginf(x), "isneginf", "same_kind", broadcast=True)
    return _infinity("isneginf", x, negative=True)


def _imaginary_part(function: str, x: Array, nonzero: bool) -> Array:
    require_array(x, "x", function)
    xp = x._device.backend.xp
    data = x._data
    if data.dtype.kind == "c":
        part = xp.imag(data)
        return may_view(part != 0 if nonzero else part == 0, x._device, (x,))
    return fresh(xp.full(data.shape, not nonzero, dtype=to_dtype("bool")), x._device)


def iscomplex(x: Array, /) -> Array:
    """Where ``x`` has a non-zero imaginary part (all False for a real dtype).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.iscomplex(ca.asarray([1 + 1j, 2 + 0j]))
    cowarray.Array([ True, False], dtype=bool)
    """
    return _imaginary_part("iscomplex", x, nonzero=True)


def isreal(x: Array, /) -> Array:
    """Where ``x``'s imaginary part is zero (all True for a real dtype).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.isreal(ca.asarray([1 + 1j, 2 + 0j]))
    cowarray.Array([False,  True], dtype=bool)
    """
    return _imaginary_part("isreal", x, nonzero=False)


def _kind(x: object, function: str) -> str:
    if type(x) is Array:
        return str(x.dtype.kind)
    try:
        value = normalize_scalar(x)
    except TypeError:
        raise not_an_array(function, "x", x, "a cowarray Array or a Python scalar") from None
    return "c" if isinstance(value, complex) else "f"


def iscomplexobj(x: Array | Scalar, /) -> bool:
    """Whether ``x`` has a complex dtype (a Python complex counts), whatever its values.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.iscomplexobj(ca.asarray([1 + 0j])), ca.iscomplexobj(ca.asarray([1.0]))
    (True, False)
    """
    return _kind(x, "iscomplexobj") == "c"


def isrealobj(x: Array | Scalar, /) -> bool:
    """Whether ``x`` does not have a complex dtype (``not iscomplexobj(x)``).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.isrealobj(ca.asarray([1.0]))
    True
    """
    return _kind(x, "isrealobj") != "c"


# -- powers ---------------------------------------------------------------------


def power(
    x1: Array | Scalar,
    x2: Array | Scalar,
    /,
    *,
    out: Array | None = None,
    casting: str = "same_kind",
) -> Array:
    """``x1`` raised to ``x2``: the standard's :func:`~cowarray.pow` by NumPy's name.

    ``out`` and ``casting`` are :func:`~cowarray.pow`'s (NumPy's ufunc rules).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.power(ca.asarray([2, 3]), 2)
    cowarray.Array([4, 9], dtype=int64)
    """
    return _pow(x1, x2, out=out, casting=casting)


def _widened(value: object, name: str) -> Any:
    if type(value) is Array:
        wide = to_dtype("complex128" if value.dtype.kind == "c" else "float64")
        if value.dtype.kind not in "biufc":
            raise TypeError(f"float_power: {name} must be numeric, got dtype {value.dtype}")
        return value if value.dtype == wide else _astype(value, wide)
    try:
        scalar = normalize_scalar(value)
    except TypeError:
        raise not_an_array(
            "float_power", name, value, "a cowarray Array or a Python scalar"
        ) from None
    return scalar if isinstance(scalar, complex) else float(scalar)


def _astype(x: Array, dtype: Any) -> Array:
    return may_view(x._device.backend.xp.astype(x._data, dtype), x._device, (x,))


def float_power(
    x1: Array | Scalar,
    x2: Array | Scalar,
    /,
    *,
    out: Array | None = None,
    casting: str = "same_kind",
) -> Array:
    """``x1`` raised to ``x2``, computed in ``float64`` (``complex128`` for complex).

    Integers of any kind may be mixed here: both operands are converted first.
    ``out`` and ``casting`` (keyword-only) write the result into an Array
    through copy-on-write by NumPy's ufunc rules, as :func:`~cowarray.pow`'s.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.float_power(ca.asarray([2, 3]), -1)
    cowarray.Array([0.5       , 0.33333333], dtype=float64)
    """
    if out is not None:
        return write_ufunc_out(out, float_power(x1, x2), "float_power", casting)
    if type(x1) is not Array and type(x2) is not Array:
        raise not_an_array("float_power", "x1", x1, "a cowarray Array (at least one of x1 and x2)")
    return _pow(_widened(x1, "x1"), _widened(x2, "x2"))
