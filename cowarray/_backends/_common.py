"""Fixes of the standard namespace that more than one backend needs, written once.

Each function takes the array library as ``xp`` (NumPy, CuPy) and, where the
library's own kernel computes the ordinary values, that kernel's result, so
each backend binds it to its library (array-api-compat does the same in
``common/_aliases.py``). Everything here uses only names NumPy and CuPy share.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from typing import Any

__all__ = [
    "address_range",
    "expm1_special_values",
    "floor_divide",
    "int_from_environment",
    "into",
    "std",
    "tanh_special_values",
    "var",
]


def int_from_environment(variable: str, default: int, minimum: int) -> int:
    """The integer setting ``variable`` holds, at least ``minimum``; ``default``
    when it is unset, or (with a RuntimeWarning that says so) not such a number."""
    text = os.environ.get(variable)
    if text is None or not text.strip():
        return default
    try:
        value = int(text)
    except ValueError:
        value = minimum - 1
    if value < minimum:
        warnings.warn(
            f"{variable}={text!r} is not an integer >= {minimum}; using {default}",
            RuntimeWarning,
            stacklevel=2,
        )
        return default
    return value


def address_range(
    pointer: int, shape: tuple[int, ...], strides: tuple[int, ...], itemsize: int
) -> tuple[int, int]:
    """``(first, past-the-end)`` byte addresses of a strided view at ``pointer``."""
    if 0 in shape:
        return pointer, pointer
    low = high = pointer
    for length, stride in zip(shape, strides, strict=True):
        reach = (length - 1) * stride
        if reach < 0:
            low += reach
        else:
            high += reach
    return low, high + itemsize


def span_of_selection(xp: Any, data: Any, index: Any) -> Any:
    """The elements of C-contiguous ``data`` from the first that ``index``
    (an advanced index) selects to the last, as a view (empty if it selects
    none); None if ``data`` is not C-contiguous or ``index`` does not fit.

    The positions are found on a numbering of ``data`` of its size: a caller
    about to copy or write ``data`` anyway pays no more than that.
    """
    if not data.flags.c_contiguous:
        return None
    try:
        positions = xp.arange(data.size, dtype=xp.intp).reshape(data.shape)[index]
    except Exception:  # a bad index: the write itself will say so
        return None
    flat = data.reshape(-1)
    if positions.size == 0:
        return flat[:0]
    return flat[int(positions.min()) : int(positions.max()) + 1]


def into(out: Any, result: Any) -> Any:
    """``result``, or ``out`` holding it: the ``out=`` of a wrapped ufunc.

    The op layer's in-place operators call ``f(x, y, out=x)``; ``result`` is
    computed in full before ``out`` is written.
    """
    if out is None:
        return result
    out[...] = result
    return out


def std(x: Any, /, *, axis: Any = None, correction: Any = 0.0, keepdims: bool = False) -> Any:
    # The method skips the library function's dispatch; ddof= is the standard's correction=.
    return x.std(axis=axis, ddof=correction, keepdims=keepdims)


def var(x: Any, /, *, axis: Any = None, correction: Any = 0.0, keepdims: bool = False) -> Any:
    return x.var(axis=axis, ddof=correction, keepdims=keepdims)


def tanh_special_values(xp: Any, x: Any, result: Any) -> Any:
    """``result`` (the library's ``tanh(x)``) with the standard's values where the
    real part of a complex ``x`` is infinite and the imaginary part finite.

    NumPy and CuPy give +-1 there with the sign of sin(2y) on the zero
    imaginary part; the standard wants the sign of y (``1 + 0j`` for y > 0), as
    ``conj(tanh(z)) == tanh(conj(z))``.
    """
    if x.dtype.kind != "c":
        return result
    special = xp.isinf(x.real) & xp.isfinite(x.imag)
    fixed = xp.empty_like(x)
    fixed.real = xp.copysign(1.0, x.real)
    fixed.imag = xp.copysign(0.0, x.imag)
    return xp.where(special, fixed, result)


def expm1_special_values(xp: Any, x: Any, result: Any) -> Any:
    """``result`` (NumPy's formula for the complex ``expm1(x)``) with the
    standard's special values: ``exp(x) - 1`` where the real part is infinite
    or NaN (the formula gives ``inf+nanj`` for ``inf+0j``), and +0 for the
    real part of a zero (the formula keeps the sign of a -0 real part)."""
    result = xp.where(xp.isfinite(x.real), result, xp.exp(x) - 1)
    result.real = xp.where(x == 0, 0.0, result.real)
    return result


def floor_divide(
    xp: Any, x1: Any, x2: Any, out: Any, python_floor_divide: Callable[[Any, Any], Any]
) -> Any:
    """The standard's float ``x1 // x2`` from ``python_floor_divide`` (the
    library's kernel giving Python's ``//``, as NumPy's divmod does).

    Where exactly one operand is infinite Python's ``//`` gives NaN or -1
    (``inf // 1``, ``1 // -inf``); the standard wants the true quotient there
    (+-inf, +-0). Neither kernel sees the other's operands: each gets ones
    where the other answers, so the floating-point flags raised are those of
    Python's ``//`` at the ordinary pairs (an infinite over a finite number,
    or a finite one over an infinite, divides exactly), with no error state
    set. ``out`` may be ``x1`` itself (an in-place ``//=``): it is written last.
    """
    special = xp.isinf(x1) != xp.isinf(x2)
    ordinary = python_floor_divide(xp.where(special, 1, x1), xp.where(special, 1, x2))
    true = xp.divide(xp.where(special, x1, 1), xp.where(special, x2, 1))
    return into(out, xp.where(special, true, ordinary))
