"""Element-wise functions (Array API standard, "Element-wise Functions").

Each function is made by one of two small factories from the table below: the
table gives its name, a one-line summary, a runnable example and the dtypes it
accepts (``accepts=``, one of the standard's categories in ``_checks``; the
functions that are also the Array's operators, ``add`` to ``greater_equal``,
take the operators' categories, which ``_checks`` holds because the Array
needs them before any op module is imported). Binary functions accept Python
scalars for either argument (at least one must be an Array), with
promotion (design rule 11) checked by the Array's operation factory.

Every function here takes NumPy's ``out=`` and ``casting=`` (keyword-only):
the result, computed as without ``out=``, is written into ``out`` through
copy-on-write by the rules of NumPy's ufuncs (``_out.write_ufunc_out``).
"""

from __future__ import annotations

import builtins
import contextlib
from collections.abc import Callable
from typing import Any, Protocol

from .._array import Array, fresh
from .._checks import (
    BOOLEAN,
    COMPLEX,
    FLOATING,
    NUMERIC,
    REAL,
    REAL_FLOATING,
    accepts,
    check_dtypes,
    declare_category,
)
from .._core import lazy_clone, may_view
from .._dtypes import normalize_scalar, one_kind, promote, scalar_result_dtype
from .._errors import not_an_array
from .._operators import binary_operation, unary_operation
from ._out import write_out, write_ufunc_out
from .data_types import iinfo

__all__ = [
    "abs",
    "acos",
    "acosh",
    "add",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "bitwise_and",
    "bitwise_invert",
    "bitwise_left_shift",
    "bitwise_or",
    "bitwise_right_shift",
    "bitwise_xor",
    "ceil",
    "clip",
    "conj",
    "copysign",
    "cos",
    "cosh",
    "divide",
    "equal",
    "exp",
    "expm1",
    "floor",
    "floor_divide",
    "greater",
    "greater_equal",
    "hypot",
    "imag",
    "isfinite",
    "isinf",
    "isnan",
    "less",
    "less_equal",
    "log",
    "log10",
    "log1p",
    "log2",
    "logaddexp",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "maximum",
    "minimum",
    "multiply",
    "negative",
    "nextafter",
    "not_equal",
    "positive",
    "pow",
    "real",
    "reciprocal",
    "remainder",
    "around",
    "round",
    "sign",
    "signbit",
    "sin",
    "sinh",
    "sqrt",
    "square",
    "subtract",
    "tan",
    "tanh",
    "trunc",
]

Scalar = bool | int | float | complex


class _Binary(Protocol):
    """The type of a binary element-wise function (``add``)."""

    __name__: str

    def __call__(
        self,
        x1: Array | Scalar,
        x2: Array | Scalar,
        /,
        *,
        out: Array | None = None,
        casting: str = "same_kind",
    ) -> Array: ...


class _Unary(Protocol):
    """The type of a unary element-wise function (``sqrt``)."""

    __name__: str

    def __call__(
        self, x: Array, /, *, out: Array | None = None, casting: str = "same_kind"
    ) -> Array: ...


_DOC = """{summary}

Parameters
----------
{parameters}

Returns
-------
Array
    {returns}

Examples
--------
>>> import cowarray as ca
>>> {example}
{output}
"""

_OUT_PARAMETERS = """out : Array, optional
    An Array to write the result into, through copy-on-write (NumPy's
    ``out=``): of the result's shape or one it broadcasts to, on its device,
    of a dtype it casts to under ``casting``. ``out`` itself is returned;
    arrays sharing its buffer keep their values. Keyword-only.
casting : str, default "same_kind"
    NumPy's rule for casting the result into ``out`` (``"no"``,
    ``"equiv"``, ``"safe"``, ``"same_kind"``, ``"unsafe"``); used with
    ``out`` only."""

_BINARY_PARAMETERS = f"""x1, x2 : Array or Python scalar
    The operands; at least one must be an Array. They broadcast against each
    other and promote: the standard's table within a kind, NumPy 2's result
    across kinds (design rule 11); Python scalars are weak (NEP 50).
{_OUT_PARAMETERS}"""

_UNARY_PARAMETERS = f"""x : Array
    The input.
{_OUT_PARAMETERS}"""


def _binary(
    name: str, summary: str, example: str, output: str, accepts: str | None = None
) -> _Binary:
    # The public function calls the very operation the operators compute
    # with; ``out=`` costs a call without it one test.
    declare_category(name, accepts)
    operation: Callable[[Any, Any], Array] = binary_operation(name)

    def function(
        x1: Array | Scalar,
        x2: Array | Scalar,
        /,
        *,
        out: Array | None = None,
        casting: str = "same_kind",
    ) -> Array:
        if out is None:
            return operation(x1, x2)
        return write_ufunc_out(out, operation(x1, x2), name, casting)

    function.__name__ = function.__qualname__ = name
    function.__module__ = "cowarray"
    function.__doc__ = _DOC.format(
        summary=summary,
        parameters=_BINARY_PARAMETERS,
        returns="A new array (``out`` itself with ``out=``); inputs are never modified.",
        example=example,
        output=output,
    )
    return function


def _unary(
    name: str, summary: str, example: str, output: str, accepts: str | None = None
) -> _Unary:
    declare_category(name, accepts)
    operation: Callable[[Any], Array] = unary_operation(name)

    def function(x: Array, /, *, out: Array | None = None, casting: str = "same_kind") -> Array:
        if out is None:
            return operation(x)
        return write_ufunc_out(out, operation(x), name, casting)

    function.__name__ = function.__qualname__ = name
    function.__module__ = "cowarray"
    function.__doc__ = _DOC.format(
        summary=summary,
        parameters=_UNARY_PARAMETERS,
        returns="A new array with ``x``'s shape (``out`` itself with ``out=``); ``x`` is "
        "never modified.",
        example=example,
        output=output,
    )
    return function


# fmt: off
add = _binary("add", "The sum of each pair of elements.",
    "ca.add(ca.asarray([1, 2]), 10)", "cowarray.Array([11, 12], dtype=int64)")
subtract = _binary("subtract", "The difference ``x1 - x2`` of each pair of elements.",
    "ca.subtract(ca.asarray([5.0, 6.0]), 1.5)", "cowarray.Array([3.5, 4.5], dtype=float64)")
multiply = _binary("multiply", "The product of each pair of elements.",
    "ca.multiply(ca.asarray([1, 2, 3]), ca.asarray([4, 5, 6]))",
    "cowarray.Array([ 4, 10, 18], dtype=int64)")
divide = _binary("divide", "True division ``x1 / x2`` (integer inputs give float64).",
    "ca.divide(ca.asarray([1.0, 3.0]), 2)", "cowarray.Array([0.5, 1.5], dtype=float64)")
floor_divide = _binary("floor_divide", "Division rounded towards negative infinity.",
    "ca.floor_divide(ca.asarray([7, -7]), 2)", "cowarray.Array([ 3, -4], dtype=int64)")
remainder = _binary("remainder", "The remainder of ``floor_divide``, with the sign of ``x2``.",
    "ca.remainder(ca.asarray([7, -7]), 3)", "cowarray.Array([1, 2], dtype=int64)")
pow = _binary("pow", "``x1`` raised to the power ``x2``.",
    "ca.pow(ca.asarray([2.0, 3.0]), 2)", "cowarray.Array([4., 9.], dtype=float64)")
bitwise_and = _binary("bitwise_and", "Bitwise AND of integer or boolean elements.",
    "ca.bitwise_and(ca.asarray([12, 10]), 6)", "cowarray.Array([4, 2], dtype=int64)")
bitwise_or = _binary("bitwise_or", "Bitwise OR of integer or boolean elements.",
    "ca.bitwise_or(ca.asarray([12, 10]), 1)", "cowarray.Array([13, 11], dtype=int64)")
bitwise_xor = _binary("bitwise_xor", "Bitwise exclusive OR of integer or boolean elements.",
    "ca.bitwise_xor(ca.asarray([True, False]), True)",
    "cowarray.Array([False,  True], dtype=bool)")
bitwise_left_shift = _binary("bitwise_left_shift", "Shift the bits of ``x1`` left by ``x2``.",
    "ca.bitwise_left_shift(ca.asarray([1, 3]), 2)", "cowarray.Array([ 4, 12], dtype=int64)")
bitwise_right_shift = _binary("bitwise_right_shift",
    "Shift the bits of ``x1`` right by ``x2``.",
    "ca.bitwise_right_shift(ca.asarray([8, 12]), 2)", "cowarray.Array([2, 3], dtype=int64)")
equal = _binary("equal", "Whether each pair of elements is equal.",
    "ca.equal(ca.asarray([1, 2]), 2)", "cowarray.Array([False,  True], dtype=bool)")
not_equal = _binary("not_equal", "Whether each pair of elements differs.",
    "ca.not_equal(ca.asarray([1, 2]), 2)", "cowarray.Array([ True, False], dtype=bool)")
less = _binary("less", "Whether ``x1 < x2`` for each pair of elements.",
    "ca.less(ca.asarray([1, 2]), 2)", "cowarray.Array([ True, False], dtype=bool)")
less_equal = _binary("less_equal", "Whether ``x1 <= x2`` for each pair of elements.",
    "ca.less_equal(ca.asarray([1, 3]), 2)", "cowarray.Array([ True, False], dtype=bool)")
greater = _binary("greater", "Whether ``x1 > x2`` for each pair of elements.",
    "ca.greater(ca.asarray([1, 3]), 2)", "cowarray.Array([False,  True], dtype=bool)")
greater_equal = _binary("greater_equal", "Whether ``x1 >= x2`` for each pair of elements.",
    "ca.greater_equal(ca.asarray([1, 2]), 2)", "cowarray.Array([False,  True], dtype=bool)")

negative = _unary("negative", "The negation of each element.",
    "ca.negative(ca.asarray([1, -2]))", "cowarray.Array([-1,  2], dtype=int64)")
positive = _unary("positive", "Each element unchanged, as a new array.",
    "ca.positive(ca.asarray([1, -2]))", "cowarray.Array([ 1, -2], dtype=int64)")
abs = _unary("abs", "The absolute value of each element.",
    "ca.abs(ca.asarray([-1.5, 2.0]))", "cowarray.Array([1.5, 2. ], dtype=float64)")
bitwise_invert = _unary("bitwise_invert", "Bitwise NOT of integer or boolean elements.",
    "ca.bitwise_invert(ca.asarray([True, False]))",
    "cowarray.Array([False,  True], dtype=bool)")
sqrt = _unary("sqrt", "The square root of each element.",
    "ca.sqrt(ca.asarray([4.0, 9.0]))", "cowarray.Array([2., 3.], dtype=float64)", accepts=FLOATING)
exp = _unary("exp", "``e`` raised to each element.",
    "ca.exp(ca.asarray([0.0]))", "cowarray.Array([1.], dtype=float64)", accepts=FLOATING)
log = _unary("log", "The natural logarithm of each element.",
    "ca.log(ca.asarray([1.0]))", "cowarray.Array([0.], dtype=float64)", accepts=FLOATING)
sin = _unary("sin", "The sine of each element (radians).",
    "ca.sin(ca.asarray([0.0]))", "cowarray.Array([0.], dtype=float64)", accepts=FLOATING)
cos = _unary("cos", "The cosine of each element (radians).",
    "ca.cos(ca.asarray([0.0]))", "cowarray.Array([1.], dtype=float64)", accepts=FLOATING)
# fmt: on

# fmt: off
acos = _unary("acos", "The inverse cosine of each element (radians).",
    "ca.acos(ca.asarray([1.0, 0.0]))", "cowarray.Array([0.        , 1.57079633], dtype=float64)",
    accepts=FLOATING)
acosh = _unary("acosh", "The inverse hyperbolic cosine of each element.",
    "ca.acosh(ca.asarray([1.0]))", "cowarray.Array([0.], dtype=float64)", accepts=FLOATING)
asin = _unary("asin", "The inverse sine of each element (radians).",
    "ca.asin(ca.asarray([0.0, 1.0]))", "cowarray.Array([0.        , 1.57079633], dtype=float64)",
    accepts=FLOATING)
asinh = _unary("asinh", "The inverse hyperbolic sine of each element.",
    "ca.asinh(ca.asarray([0.0]))", "cowarray.Array([0.], dtype=float64)", accepts=FLOATING)
atan = _unary("atan", "The inverse tangent of each element (radians).",
    "ca.atan(ca.asarray([0.0, 1.0]))", "cowarray.Array([0.        , 0.78539816], dtype=float64)",
    accepts=FLOATING)
atanh = _unary("atanh", "The inverse hyperbolic tangent of each element.",
    "ca.atanh(ca.asarray([0.0, 0.5]))", "cowarray.Array([0.        , 0.54930614], dtype=float64)",
    accepts=FLOATING)
ceil = _unary("ceil", "The smallest integer-valued number not less than each element.",
    "ca.ceil(ca.asarray([-1.5, 1.2]))", "cowarray.Array([-1.,  2.], dtype=float64)", accepts=REAL)
conj = _unary("conj", "The complex conjugate of each element (real input: a new equal array).",
    "ca.conj(ca.asarray([1 + 2j]))", "cowarray.Array([1.-2.j], dtype=complex128)", accepts=NUMERIC)
cosh = _unary("cosh", "The hyperbolic cosine of each element.",
    "ca.cosh(ca.asarray([0.0]))", "cowarray.Array([1.], dtype=float64)", accepts=FLOATING)
expm1 = _unary("expm1", "``exp(x) - 1`` for each element, accurate near zero.",
    "ca.expm1(ca.asarray([0.0, 1e-10]))", "cowarray.Array([0.e+00, 1.e-10], dtype=float64)",
    accepts=FLOATING)
floor = _unary("floor", "The largest integer-valued number not greater than each element.",
    "ca.floor(ca.asarray([-1.5, 1.2]))", "cowarray.Array([-2.,  1.], dtype=float64)", accepts=REAL)
isfinite = _unary("isfinite", "Whether each element is finite (not NaN, not infinite).",
    "ca.isfinite(ca.asarray([1.0, float('inf'), float('nan')]))",
    "cowarray.Array([ True, False, False], dtype=bool)", accepts=NUMERIC)
isinf = _unary("isinf", "Whether each element is positive or negative infinity.",
    "ca.isinf(ca.asarray([1.0, -float('inf'), float('nan')]))",
    "cowarray.Array([False,  True, False], dtype=bool)", accepts=NUMERIC)
isnan = _unary("isnan", "Whether each element is NaN.",
    "ca.isnan(ca.asarray([1.0, float('inf'), float('nan')]))",
    "cowarray.Array([False, False,  True], dtype=bool)", accepts=NUMERIC)
log1p = _unary("log1p", "``log(1 + x)`` for each element, accurate near zero.",
    "ca.log1p(ca.asarray([0.0, 1e-10]))", "cowarray.Array([0.e+00, 1.e-10], dtype=float64)",
    accepts=FLOATING)
log2 = _unary("log2", "The base-2 logarithm of each element.",
    "ca.log2(ca.asarray([1.0, 8.0]))", "cowarray.Array([0., 3.], dtype=float64)", accepts=FLOATING)
log10 = _unary("log10", "The base-10 logarithm of each element.",
    "ca.log10(ca.asarray([1.0, 1000.0]))", "cowarray.Array([0., 3.], dtype=float64)",
    accepts=FLOATING)
logical_not = _unary("logical_not", "The logical NOT of each boolean element.",
    "ca.logical_not(ca.asarray([True, False]))", "cowarray.Array([False,  True], dtype=bool)",
    accepts=BOOLEAN)
reciprocal = _unary("reciprocal", "``1 / x`` for each element of a floating-point array.",
    "ca.reciprocal(ca.asarray([2.0, 4.0]))", "cowarray.Array([0.5 , 0.25], dtype=float64)",
    accepts=FLOATING)
sign = _unary("sign", "The sign of each element: -1, 0 or 1 (``x / |x|`` for complex).",
    "ca.sign(ca.asarray([-3, 0, 5]))", "cowarray.Array([-1,  0,  1], dtype=int64)", accepts=NUMERIC)
signbit = _unary("signbit", "Whether the sign bit of each element is set (true for -0.0).",
    "ca.signbit(ca.asarray([-0.0, 0.0, -1.0]))",
    "cowarray.Array([ True, False,  True], dtype=bool)", accepts=REAL_FLOATING)
sinh = _unary("sinh", "The hyperbolic sine of each element.",
    "ca.sinh(ca.asarray([0.0]))", "cowarray.Array([0.], dtype=float64)", accepts=FLOATING)
square = _unary("square", "Each element multiplied by itself.",
    "ca.square(ca.asarray([-3, 4]))", "cowarray.Array([ 9, 16], dtype=int64)", accepts=NUMERIC)
tan = _unary("tan", "The tangent of each element (radians).",
    "ca.tan(ca.asarray([0.0]))", "cowarray.Array([0.], dtype=float64)", accepts=FLOATING)
tanh = _unary("tanh", "The hyperbolic tangent of each element.",
    "ca.tanh(ca.asarray([0.0]))", "cowarray.Array([0.], dtype=float64)", accepts=FLOATING)
trunc = _unary("trunc", "Each element rounded towards zero to an integer-valued number.",
    "ca.trunc(ca.asarray([-1.7, 1.7]))", "cowarray.Array([-1.,  1.], dtype=float64)", accepts=REAL)

atan2 = _binary("atan2", "The angle of the point ``(x2, x1)`` from the positive x axis "
    "(radians).",
    "ca.atan2(ca.asarray([1.0, -1.0]), 0.0)",
    "cowarray.Array([ 1.57079633, -1.57079633], dtype=float64)", accepts=REAL_FLOATING)
copysign = _binary("copysign", "The magnitude of ``x1`` with the sign of ``x2``.",
    "ca.copysign(ca.asarray([1.0, -2.0]), -0.0)", "cowarray.Array([-1., -2.], dtype=float64)",
    accepts=REAL_FLOATING)
hypot = _binary("hypot", "``sqrt(x1**2 + x2**2)`` without overflow or underflow.",
    "ca.hypot(ca.asarray([3.0, 5.0]), 4.0)",
    "cowarray.Array([5.        , 6.40312424], dtype=float64)", accepts=REAL_FLOATING)
logaddexp = _binary("logaddexp", "``log(exp(x1) + exp(x2))`` without overflow.",
    "ca.logaddexp(ca.asarray([0.0, 1000.0]), 0.0)",
    "cowarray.Array([6.93147181e-01, 1.00000000e+03], dtype=float64)", accepts=REAL_FLOATING)
logical_and = _binary("logical_and", "The logical AND of each pair of boolean elements.",
    "ca.logical_and(ca.asarray([True, False]), True)", "cowarray.Array([ True, False], dtype=bool)",
    accepts=BOOLEAN)
logical_or = _binary("logical_or", "The logical OR of each pair of boolean elements.",
    "ca.logical_or(ca.asarray([True, False]), False)", "cowarray.Array([ True, False], dtype=bool)",
    accepts=BOOLEAN)
logical_xor = _binary("logical_xor", "The logical exclusive OR of each pair of boolean elements.",
    "ca.logical_xor(ca.asarray([True, False]), True)", "cowarray.Array([False,  True], dtype=bool)",
    accepts=BOOLEAN)
maximum = _binary("maximum", "The larger of each pair of elements; NaN propagates.",
    "ca.maximum(ca.asarray([1, 5]), 3)", "cowarray.Array([3, 5], dtype=int64)", accepts=REAL)
minimum = _binary("minimum", "The smaller of each pair of elements; NaN propagates.",
    "ca.minimum(ca.asarray([1, 5]), 3)", "cowarray.Array([1, 3], dtype=int64)", accepts=REAL)
nextafter = _binary("nextafter", "The next representable number after ``x1`` towards ``x2``.",
    "ca.nextafter(ca.asarray([0.0]), 1.0)", "cowarray.Array([5.e-324], dtype=float64)",
    accepts=REAL_FLOATING)
# fmt: on


@accepts(NUMERIC)
def real(x: Array, /) -> Array:
    """The real component of each element.

    Parameters
    ----------
    x : Array
        A numeric array. For a real-valued ``x`` the result equals ``x`` (a
        lazy clone, O(1)).

    Returns
    -------
    Array
        A lazy value: for complex ``x`` it views ``x``'s buffer until either
        array is written. The dtype is the real dtype of the same precision.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.real(ca.asarray([1 + 2j, 3 - 4j]))
    cowarray.Array([1., 3.], dtype=float64)
    """
    if type(x) is not Array:
        raise not_an_array("real", "x", x)
    check_dtypes("real", x.dtype)
    if x.dtype.kind != "c":
        return lazy_clone(x)
    return may_view(x._device.backend.xp.real(x._data), x._device, (x,))


@accepts(COMPLEX)
def imag(x: Array, /) -> Array:
    """The imaginary component of each element of a complex array.

    Parameters
    ----------
    x : Array
        A complex floating-point array.

    Returns
    -------
    Array
        A lazy value that views ``x``'s buffer until either array is written;
        its dtype is the real dtype of the same precision.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.imag(ca.asarray([1 + 2j, 3 - 4j]))
    cowarray.Array([ 2., -4.], dtype=float64)
    """
    if type(x) is not Array:
        raise not_an_array("imag", "x", x)
    check_dtypes("imag", x.dtype)
    return may_view(x._device.backend.xp.imag(x._data), x._device, (x,))


@accepts(REAL)
def clip(
    x: Array,
    /,
    min: int | float | Array | None = None,
    max: int | float | Array | None = None,
    *,
    out: Array | None = None,
    casting: str = "same_kind",
) -> Array:
    """Each element of ``x`` clamped to the range ``[min, max]``.

    Parameters
    ----------
    x : Array
        A real-valued array.
    min, max : int, float, Array or None
        The bounds; ``None`` applies no bound. Arrays broadcast with ``x``.
        An integer bound outside ``x``'s dtype range is saturated to that
        range. A NaN bound gives NaN.
    out : Array, optional
        An Array to write the result into, through copy-on-write, as
        ``numpy.clip``'s ``out=`` (``ca.clip(V, 0, 1, out=V)``): of the
        result's shape or one it broadcasts to, on its device, of a dtype it
        casts to under ``casting``. Keyword-only.
    casting : str, default "same_kind"
        NumPy's rule for casting the result into ``out``; used with ``out``
        only.

    Returns
    -------
    Array
        A new array of the broadcast shape, with ``x``'s dtype when every
        bound is of ``x``'s kind (the standard's rule); a bound of another
        kind (a float bound of an integer ``x``) gives NumPy 2's promoted
        dtype, as ``numpy.clip`` does (design rule 11). With ``out=``,
        ``out`` itself.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.clip(ca.asarray([-2, 0, 7]), 0, 5)
    cowarray.Array([0, 0, 5], dtype=int64)
    >>> ca.clip(ca.asarray([1.0, 9.0]), max=ca.asarray([0.5, 10.0]))
    cowarray.Array([0.5, 9. ], dtype=float64)
    >>> v = ca.asarray([-0.5, 0.25, 1.5])
    >>> ca.clip(v, 0, 1, out=v) is v
    True
    >>> v
    cowarray.Array([0.  , 0.25, 1.  ], dtype=float64)
    """
    if out is not None:
        return write_ufunc_out(out, clip(x, min, max), "clip", casting)
    if type(x) is not Array:
        raise not_an_array("clip", "x", x)
    check_dtypes("clip", x.dtype)
    lower = _clip_bound(x, min, "min")
    upper = _clip_bound(x, max, "max")
    if lower is None and upper is None:
        return lazy_clone(x)
    dtype = _clip_dtype(x, (min, lower), (max, upper))
    xp = x._device.backend.xp
    result = xp.clip(x._data, min=lower, max=upper)
    if result.dtype != dtype:
        result = xp.astype(result, dtype)
    return fresh(result, x._device)


def _clip_dtype(x: Array, *bounds: tuple[object, object]) -> Any:
    """``x``'s dtype, or NumPy 2's result dtype if a bound is of another kind."""
    arrays = [b for b, _ in bounds if type(b) is Array]
    scalars = [v for b, v in bounds if v is not None and type(b) is not Array]
    if builtins.all(one_kind(x.dtype, a.dtype) for a in arrays) and builtins.all(
        scalar_result_dtype(x.dtype, v) == x.dtype for v in scalars
    ):
        return x.dtype
    dtype = x.dtype
    for array in arrays:
        dtype = promote(dtype, array.dtype)
    for value in scalars:
        dtype = scalar_result_dtype(dtype, value)
    check_dtypes("clip", dtype)
    return dtype


def _clip_bound(x: Array, bound: object, name: str) -> object:
    if bound is None:
        return None
    if type(bound) is Array:
        if bound._device is not x._device:
            raise ValueError(
                f"clip: {name} is on {bound._device} but x is on {x._device}; "
                "move one with to_device"
            )
        if one_kind(x.dtype, bound.dtype):
            check_dtypes("clip", bound.dtype)  # else the promoted dtype is checked
        return bound._data
    given = bound
    if type(bound) not in (int, float):
        with contextlib.suppress(TypeError):
            bound = normalize_scalar(bound)  # a NumPy scalar counts as its kind
    if type(bound) not in (int, float):
        raise TypeError(
            f"clip: {name} must be an int, a float, an Array or None, got {type(given).__name__}"
        )
    if isinstance(bound, int) and x.dtype.kind in "iu":
        info = iinfo(x.dtype)
        return builtins.min(builtins.max(bound, info.min), info.max)
    return bound


@accepts(NUMERIC)
def round(x: Array, /, *, decimals: int = 0, out: Array | None = None) -> Array:
    """Each element rounded to ``decimals`` decimal places (halves to even).

    ``round(x)`` is the standard's (to integer-valued numbers); ``decimals``
    is NumPy's: negative values round to tens, hundreds, ... For complex
    ``x`` both parts are rounded.

    Parameters
    ----------
    x : Array
        A numeric array.
    decimals : int, default 0
        The number of decimal places, keyword-only.
    out : Array, optional
        An Array of the result's shape to write the result into, through
        copy-on-write (NumPy's ``out=``; ``"same_kind"`` casting, as
        ``numpy.round``). Keyword-only.

    Returns
    -------
    Array
        A new array of ``x``'s dtype (``out`` itself with ``out=``); ``x``
        is never modified.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.round(ca.asarray([0.5, 1.5, -2.7]))
    cowarray.Array([ 0.,  2., -3.], dtype=float64)
    >>> ca.round(ca.asarray([1.234, 15.0]), decimals=1)
    cowarray.Array([ 1.2, 15. ], dtype=float64)
    """
    if out is not None:
        return write_out(out, round(x, decimals=decimals), "round", "same_kind")
    if decimals == 0 and type(decimals) is int:
        return _round_to_integers(x)
    if type(x) is not Array:
        raise not_an_array("round", "x", x)
    if isinstance(decimals, bool) or not isinstance(decimals, int):
        raise TypeError(f"round: decimals must be an int, got {type(decimals).__name__}")
    check_dtypes("round", x.dtype)
    return may_view(x._device.backend.xp.round(x._data, decimals=decimals), x._device, (x,))


_round_to_integers: Callable[[Array], Array] = unary_operation("round")  # (after @accepts)


def around(a: Array, /, decimals: int = 0, out: Array | None = None) -> Array:
    """NumPy's name for :func:`round`: ``a`` rounded to ``decimals`` decimal places.

    ``out`` is :func:`round`'s, positional third as in ``numpy.around``.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.around(ca.asarray([1250.0, 1.25]), -2)
    cowarray.Array([1200.,    0.], dtype=float64)
    """
    return round(a, decimals=decimals, out=out)
