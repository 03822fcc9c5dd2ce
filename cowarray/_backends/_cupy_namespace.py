"""The standard namespace of the CuPy backend: Array API names mapped onto CuPy.

CuPy 14.0 to 14.2 have most 2025.12 names; this module wraps functions whose
signature or results differ from the standard's (``sort(stable=)``,
``clip(min=, max=)`` and its NaN bounds, ``count_nonzero(keepdims=)``,
``std``/``var`` with ``correction=``, complex ``tanh`` at infinity,
``linalg.cholesky(upper=)``, ``matrix_rank``/``pinv`` with ``rtol=``,
``linalg.solve`` with broadcast stacks), fills the names CuPy lacks
(``vecdot``, ``unstack`` and several ``linalg`` functions), fills what only a
later CuPy has where the one in use lacks it (``cumulative_sum``/``_prod``
and ``reshape(copy=)`` before 14.2, ``linalg.matmul`` and ``repeat`` with an
array of counts before 14.1, ``sign`` of NaN before 14.2), and binds every
function to one GPU: CuPy allocates on the current device, so each call makes
the backend's GPU current first (a cheap check when it is).

Where CuPy's kernels compute other numbers than NumPy's, the wrappers compute
NumPy's with CuPy's array operations: complex ``divide``/``reciprocal``
(Smith's algorithm), float ``floor_divide``/``remainder`` (NumPy's divmod),
complex ``expm1`` near zero, float16/float32 ``nextafter`` near zero (CuPy
flushes float32 subnormals), and the place of NaNs in 1-D float
``sort``/``argsort``, ``unique_*`` and ``isin`` (CuPy's radix sort orders
them by their bits).

Imported only by :mod:`cowarray._backends.cupy`, so only when a GPU is used.
"""

from __future__ import annotations

import re
import types
import warnings
from collections.abc import Callable
from typing import Any, Final

import cupy
import cupyx
import numpy

from ._common import expm1_special_values, floor_divide, into, std, tanh_special_values, var

__all__ = ["check_index_bounds", "release_of", "standard_namespace"]


def _sort(x: Any, /, *, axis: int = -1, stable: bool = True) -> Any:
    # CuPy's sort is a stable radix/merge sort whatever ``kind`` says. Its
    # radix sort orders NaNs by their bits (see _radix_sorted): sorted alike,
    # they come last, then get their own bits back.
    if not _radix_sorted(x):
        return cupy.sort(x, axis=axis)
    nan = cupy.isnan(x)
    return _with_nans_of(x, nan, cupy.sort(_canonical_nans(x, nan)))


def _argsort(x: Any, /, *, axis: int = -1, stable: bool = True) -> Any:
    if not _radix_sorted(x):
        return cupy.argsort(x, axis=axis)
    return cupy.argsort(_canonical_nans(x, cupy.isnan(x)))


def _radix_sorted(x: Any) -> bool:
    """Whether CuPy sorts ``x`` by its bits: a 1-D float32/float64 array.

    Its radix sort (cupy/cuda/cupy_thrust.cu) puts NaNs with the sign bit
    (NumPy's ``inf - inf`` and ``0 / 0`` on x86) before ``-inf`` and the
    others after ``inf`` in the order of their payloads, not of their
    indices. Other arrays are sorted with NaN-aware comparisons.
    """
    return bool(x.ndim == 1 and x.dtype.char in "fd")


def _canonical_nans(x: Any, nan: Any) -> Any:
    """``x`` with every NaN (where ``nan``) made the quiet NaN without sign bit
    or payload: the radix sort puts them after ``inf`` as equal keys, so in
    their order in ``x`` (it is stable)."""
    return cupy.where(nan, x.dtype.type("nan"), x)


def _with_nans_of(x: Any, nan: Any, values: Any) -> Any:
    """``values``, whose NaNs come last, with the NaNs of ``x`` (a 1-D array,
    where ``nan``) back in their place: their bits, in their order in ``x``.

    One read back from the GPU: the number of NaNs.
    """
    nans = x[nan]
    if nans.size:
        values[values.size - nans.size :] = nans
    return values


def _nan_aware_unique(function: Callable[..., Any]) -> Callable[..., Any]:
    """CuPy's ``unique_*`` ``function`` with every NaN unique and in index order.

    CuPy's unique_* sort ``x`` flattened with the radix sort (see
    _radix_sorted), so NaNs are made alike first and get their bits back after.
    """

    def call(x: Any, /) -> Any:
        if x.dtype.char not in "fd":
            return function(x)
        flat = x.ravel()
        nan = cupy.isnan(flat)
        result = function(_canonical_nans(flat, nan).reshape(x.shape))
        if hasattr(result, "_replace"):  # unique_all, _counts, _inverse: named tuples
            return result._replace(values=_with_nans_of(flat, nan, result.values))
        return _with_nans_of(flat, nan, result)

    call.__name__ = call.__qualname__ = function.__name__
    return call


def _isin(x1: Any, x2: Any, /, *, invert: bool = False) -> Any:
    # CuPy's isin sorts x2 flattened (see _radix_sorted), then binary-searches
    # it with plain comparisons: a NaN sorted first hides the other values.
    if x2.dtype.char in "fd":
        x2 = _canonical_nans(x2, cupy.isnan(x2))
    return cupy.isin(x1, x2, invert=invert)


def _clip(x: Any, /, min: Any = None, max: Any = None) -> Any:
    # The standard's clip is minimum(maximum(x, min), max), as NumPy's. CuPy's
    # kernel ignores a NaN bound and gives ``max`` for a NaN x when
    # min > max, so it serves only bounds that are plain numbers in order.
    if min is None and max is None:
        return x.copy()
    if _plain_number(min) and _plain_number(max) and (min is None or max is None or min <= max):
        return cupy.clip(x, min, max)
    result = x if min is None else cupy.maximum(x, min)
    result = result if max is None else cupy.minimum(result, max)
    return result.astype(x.dtype, copy=False)


def _plain_number(bound: Any) -> bool:
    """``bound`` is None or a Python int or float that is not NaN."""
    return bound is None or (type(bound) in (int, float) and bound == bound)


def _count_nonzero(x: Any, /, *, axis: Any = None, keepdims: bool = False) -> Any:
    counts = cupy.count_nonzero(x, axis=axis)
    if not keepdims:
        return counts
    axes = range(x.ndim) if axis is None else (axis,) if isinstance(axis, int) else axis
    return cupy.expand_dims(cupy.asarray(counts), tuple(a % max(x.ndim, 1) for a in axes))


def _asarray(obj: Any, /, dtype: Any = None, *, copy: bool | None = None, **_: Any) -> Any:
    # Host data is copied with a blocking transfer: CuPy's default is an
    # asynchronous one whose source must outlive it, and ours is often a temporary.
    if isinstance(obj, cupy.ndarray):
        return cupy.array(obj, dtype=dtype, copy=True) if copy else cupy.asarray(obj, dtype=dtype)
    return cupy.array(obj, dtype=dtype, copy=True, blocking=True)


def check_index_bounds(shape: tuple[int, ...], index: Any) -> None:
    """Raise IndexError, as NumPy would, if an integer index array leaves ``shape``.

    CuPy wraps such indices around. Scalar integers and slices are left to
    CuPy, which checks them, as is an index with more parts than ``shape`` has
    axes (CuPy says "too many indices"). One read back from the GPU per index
    array.
    """
    parts = index if isinstance(index, tuple) else (index,)
    consumed = sum(_axes_taken(part) for part in parts)
    if consumed > len(shape):
        return
    axis = 0
    for part in parts:
        if part is Ellipsis:
            axis += len(shape) - consumed
            continue
        if isinstance(part, cupy.ndarray) and part.dtype.kind in "iu":
            _check_in_range(part, shape[axis], axis)
        axis += _axes_taken(part)


def _check_in_range(indices: Any, length: int, axis: int) -> None:
    if not indices.size:
        return
    outside = (indices < -length) | (indices >= length)
    if bool(cupy.any(outside)):
        bad = int(indices[outside].ravel()[0])
        raise IndexError(f"index {bad} is out of bounds for axis {axis} with size {length}")


def _axes_taken(part: Any) -> int:
    if part is None or part is Ellipsis:
        return 0
    if getattr(part, "dtype", None) is not None and part.dtype.kind == "b":
        return int(part.ndim)
    return 1


def _take(x: Any, indices: Any, /, *, axis: int | None = None) -> Any:
    # CuPy's take wraps out-of-range indices around; the standard's take is NumPy's
    _check_in_range(indices, x.size if axis is None else x.shape[axis], axis or 0)
    return cupy.take(x, indices, axis=axis)


def _vecdot(x1: Any, x2: Any, /, *, axis: int = -1) -> Any:
    # sum() would widen small integers to int64/uint64; the standard keeps
    # the operands' promoted dtype.
    dtype = cupy.result_type(x1.dtype, x2.dtype)
    return cupy.sum(cupy.conj(x1) * x2, axis=axis, dtype=dtype)


def _tanh(x: Any, /) -> Any:
    return tanh_special_values(cupy, x, cupy.tanh(x))


def _sign(x: Any, /) -> Any:
    # Before CuPy 14.2 the sign of NaN is 0 (the standard: NaN) and the sign of
    # a complex zero is x / |x|, NaN (the standard: 0).
    result = cupy.sign(x)
    if x.dtype.kind == "f":
        return cupy.where(cupy.isnan(x), x, result)
    if x.dtype.kind == "c":
        return cupy.where(x == 0, 0, result)
    return result


def _as_array(x: Any, dtype: Any) -> Any:
    """An operand (an array or a Python scalar) as an array of ``dtype``."""
    if isinstance(x, cupy.ndarray):
        return x.astype(dtype, copy=False)
    return cupy.full((), x, dtype=dtype)


def _complex(real: Any, imag: Any, dtype: Any) -> Any:
    """The complex array ``real + imag * 1j`` of ``dtype``, built part by part.

    (``imag * 1j`` would turn an infinite part into NaNs.)
    """
    result = cupy.empty(cupy.broadcast_shapes(real.shape, imag.shape), dtype=dtype)
    result.real = real
    result.imag = imag
    return result


def _divide(x1: Any, x2: Any, /, out: Any = None) -> Any:
    # CuPy's complex operator/ scales both operands by 1 / (|c| + |d|), so a
    # denominator with an infinite part gives nan+nanj where NumPy (Smith's
    # algorithm) gives signed zeros: 1 / (inf+0j) is 0-0j.
    dtype = cupy.result_type(x1, x2)
    if dtype.kind != "c":
        return cupy.divide(x1, x2, out=out)
    return into(out, _smith_divide(_as_array(x1, dtype), _as_array(x2, dtype)))


def _smith_divide(a: Any, b: Any) -> Any:
    """``a / b`` for complex arrays as NumPy computes it (Smith's algorithm).

    Divides by the larger part of ``b``; a zero ``b`` gives ``a``'s parts over
    zero (infinities or NaNs), as NumPy's loop does.
    """
    ar, ai, br, bi = a.real, a.imag, b.real, b.imag
    abs_br = cupy.abs(br)
    real_major = abs_br >= cupy.abs(bi)
    zero = (br == 0) & (bi == 0)
    ratio = cupy.where(real_major, bi / br, br / bi)
    scale = 1 / cupy.where(real_major, br + bi * ratio, bi + br * ratio)
    real = cupy.where(real_major, ar + ai * ratio, ar * ratio + ai) * scale
    imag = cupy.where(real_major, ai - ar * ratio, ai * ratio - ar) * scale
    real = cupy.where(zero, ar / abs_br, real)
    imag = cupy.where(zero, ai / abs_br, imag)
    return _complex(real, imag, a.dtype)


def _reciprocal(x: Any, /, out: Any = None) -> Any:
    # CuPy computes a complex 1 / x with its operator/ (see _divide).
    if x.dtype.kind != "c":
        return cupy.reciprocal(x, out=out)
    r, i = x.real, x.imag
    real_major = cupy.abs(i) <= cupy.abs(r)
    ratio = cupy.where(real_major, i / r, r / i)
    denominator = cupy.where(real_major, r + i * ratio, r * ratio + i)
    real = cupy.where(real_major, 1, ratio) / denominator
    imag = -cupy.where(real_major, ratio, 1) / denominator
    return into(out, _complex(real, imag, x.dtype))


# float16 and float32: (bits of +inf, bits of the quiet NaN) of nextafter's integer path.
_FLOAT_BITS: Final = {"e": (0x7C00, 0x7E00), "f": (0x7F800000, 0x7FC00000)}


def _nextafter(x1: Any, x2: Any, /, out: Any = None) -> Any:
    # CuPy compiles with -ftz=true, which flushes float32 subnormals: its
    # nextafter(0, 1) is 0, not the smallest subnormal; its float16 kernel
    # gives NaN for an infinite x1. Both step the bits as integers instead
    # (no floating-point arithmetic, nothing to flush). float64 is not flushed.
    dtype = cupy.result_type(x1, x2)
    if dtype.char not in _FLOAT_BITS:
        return cupy.nextafter(x1, x2, out=out)
    bits = _bits_toward(_as_array(x1, dtype), _as_array(x2, dtype))
    return into(out, bits.astype(f"u{dtype.itemsize}").view(dtype))


def _bits_toward(a: Any, b: Any) -> Any:
    """The bits (as int64) of the float next to ``a`` toward ``b``, as C's nextafter.

    Floats map to integers in the same order (``-x`` to ``-bits(x)``, both
    zeros to 0), one step is one integer, and the result maps back: stepping
    from a negative number to zero gives -0.0; ``a == b`` gives ``b`` (C's
    nextafter and the standard's; NumPy before 2.5 gave ``a`` in float16);
    a NaN gives the quiet NaN.
    """
    size = a.dtype.itemsize
    infinity, nan = _FLOAT_BITS[a.dtype.char]
    sign = 1 << (8 * size - 1)
    bits_a = a.view(f"i{size}").astype(cupy.int64)
    bits_b = b.view(f"i{size}").astype(cupy.int64)
    magnitude_a, magnitude_b = bits_a & (sign - 1), bits_b & (sign - 1)
    order_a = cupy.where(bits_a < 0, -magnitude_a, magnitude_a)
    order_b = cupy.where(bits_b < 0, -magnitude_b, magnitude_b)
    step = order_a + cupy.where(order_a < order_b, 1, -1)
    result = cupy.where(step < 0, -step | sign, step)
    result = cupy.where((step == 0) & (order_a < 0), sign, result)
    result = cupy.where(order_a == order_b, bits_b & (2 * sign - 1), result)
    return cupy.where((magnitude_a > infinity) | (magnitude_b > infinity), nan, result)


def _floor_divide(x1: Any, x2: Any, /, out: Any = None) -> Any:
    # CuPy's float // is floor(x1 / x2): 1.0 // 0.1 gives 10.0 where NumPy's
    # divmod gives 9.0 (0.1 is a little more than a tenth). NumPy's divmod
    # here, then the standard's true quotients (_common.floor_divide).
    dtype = cupy.result_type(x1, x2)
    if dtype.kind != "f":
        return cupy.floor_divide(x1, x2, out=out)

    def python_floor_divide(x1: Any, x2: Any) -> Any:
        quotient, _ = _divmod(*_divmod_operands(x1, x2, dtype))
        return quotient.astype(dtype, copy=False)

    a, b = _as_array(x1, dtype), _as_array(x2, dtype)  # Python scalars as arrays
    return floor_divide(cupy, a, b, out, python_floor_divide)


def _remainder(x1: Any, x2: Any, /, out: Any = None) -> Any:
    # CuPy's float % is x1 - floor(x1 / x2) * x2: 1.0 % inf gives NaN where
    # NumPy (and the standard) give 1.0, and -1.0 % inf gives NaN, not inf.
    dtype = cupy.result_type(x1, x2)
    if dtype.kind != "f":
        return cupy.remainder(x1, x2, out=out)
    _, modulus = _divmod(*_divmod_operands(x1, x2, dtype))
    return into(out, modulus.astype(dtype, copy=False))


def _divmod_operands(x1: Any, x2: Any, dtype: Any) -> tuple[Any, Any]:
    """The operands of a floating divmod: float16 computes in float32, as NumPy's."""
    computed = cupy.float32 if dtype == cupy.float16 else dtype
    return _as_array(x1, computed), _as_array(x2, computed)


def _divmod(a: Any, b: Any) -> tuple[Any, Any]:
    """NumPy's floating ``divmod`` (``npy_divmod``): Python's ``//`` and ``%``.

    The remainder is ``fmod``'s (exact) moved to ``b``'s sign; the quotient
    is ``(a - remainder) / b``, nearly an integer, snapped to the nearest one.
    Zeros take the sign Python gives them; a zero ``b`` gives ``a / b`` and
    NaN.
    """
    modulus = cupy.fmod(a, b)
    quotient = (a - modulus) / b
    moved = (modulus != 0) & ((b < 0) != (modulus < 0))
    modulus = cupy.where(moved, modulus + b, modulus)
    modulus = cupy.where(modulus == 0, cupy.copysign(0.0, b), modulus)
    quotient = cupy.where(moved, quotient - 1, quotient)
    floor = cupy.floor(quotient)
    floor = cupy.where(quotient - floor > 0.5, floor + 1, floor)
    floor = cupy.where(quotient == 0, cupy.copysign(0.0, a / b), floor)
    return cupy.where(b == 0, a / b, floor), modulus


def _expm1(x: Any, /) -> Any:
    # CuPy's complex expm1 is exp(z) - 1, which loses the digits of a small z
    # (expm1(1e-10+0j) is off by 8e-8 relative). NumPy's formula (nc_expm1),
    # then the standard's special values (_common.expm1_special_values).
    if x.dtype.kind != "c":
        return cupy.expm1(x)
    real, imag = x.real, x.imag
    half_sine = cupy.sin(imag / 2)
    near_one = cupy.expm1(real) * cupy.cos(imag) - 2 * half_sine * half_sine
    result = _complex(near_one, cupy.exp(real) * cupy.sin(imag), x.dtype)
    return expm1_special_values(cupy, x, result)


def _reshape(x: Any, shape: Any, /, *, copy: bool | None = None) -> Any:
    # reshape(copy=) from CuPy 14.2; before, reshape views when it can.
    result = cupy.reshape(x, shape)
    if copy is None:
        return result
    viewed = result.data.mem is x.data.mem
    if copy:
        return result.copy() if viewed else result
    if not viewed and x.size:
        raise ValueError("Unable to avoid creating a copy while reshaping.")
    return result


def _repeat(x: Any, repeats: Any, /, axis: int | None = None) -> Any:
    # Before CuPy 14.1 repeats cannot be an array: each element's copies are
    # found with a search of the running total, on the GPU.
    if not isinstance(repeats, cupy.ndarray):
        return cupy.repeat(x, repeats, axis)
    if axis is None:
        x, axis = x.ravel(), 0
    ends = cupy.cumsum(cupy.broadcast_to(repeats, (x.shape[axis],)), dtype=cupy.int64)
    total = int(ends[-1]) if ends.size else 0  # one read back: the result's length
    sources = cupy.searchsorted(ends, cupy.arange(total), side="right")
    return cupy.take(x, sources, axis=axis)


def _cumulative_sum(
    x: Any, /, *, axis: int | None = None, dtype: Any = None, include_initial: bool = False
) -> Any:
    return _scan(cupy.cumsum, 0, x, axis, dtype, include_initial)


def _cumulative_prod(
    x: Any, /, *, axis: int | None = None, dtype: Any = None, include_initial: bool = False
) -> Any:
    return _scan(cupy.cumprod, 1, x, axis, dtype, include_initial)


def _scan(
    scan: Callable[..., Any], identity: int, x: Any, axis: Any, dtype: Any, include_initial: bool
) -> Any:
    """The standard's cumulative function from CuPy's ``cumsum``/``cumprod`` (CuPy < 14.2)."""
    x = cupy.atleast_1d(x)
    if axis is None:
        if x.ndim > 1:
            raise ValueError(f"axis is required for an array with {x.ndim} dimensions")
        axis = 0
    result = scan(x, axis=axis, dtype=dtype)  # small integers widen to int64/uint64
    if not include_initial:
        return result
    shape = list(result.shape)
    shape[axis] = 1
    initial = cupy.full(tuple(shape), identity, dtype=result.dtype)
    return cupy.concatenate((initial, result), axis=axis)


def _unstack(x: Any, /, *, axis: int = 0) -> tuple[Any, ...]:
    return tuple(cupy.moveaxis(x, axis, 0))


def _vector_norm(x: Any, /, *, axis: Any = None, keepdims: bool = False, ord: Any = 2) -> Any:
    magnitude = cupy.abs(x)
    if axis is None:
        axis = tuple(range(x.ndim))
    if ord == float("inf"):
        return cupy.max(magnitude, axis=axis, keepdims=keepdims)
    if ord == float("-inf"):
        return cupy.min(magnitude, axis=axis, keepdims=keepdims)
    if ord == 0:
        nonzero = (magnitude != 0).astype(magnitude.dtype)
        return cupy.sum(nonzero, axis=axis, keepdims=keepdims)
    if ord == 1:
        return cupy.sum(magnitude, axis=axis, keepdims=keepdims)
    if ord == 2:
        return cupy.sqrt(cupy.sum(magnitude * magnitude, axis=axis, keepdims=keepdims))
    total = cupy.sum(magnitude**ord, axis=axis, keepdims=keepdims)
    return total ** (1.0 / ord)


def _matrix_norm(x: Any, /, *, keepdims: bool = False, ord: Any = "fro") -> Any:
    return cupy.linalg.norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


def _svdvals(x: Any, /) -> Any:
    return cupy.linalg.svd(x, compute_uv=False)


def _diagonal(x: Any, /, *, offset: int = 0) -> Any:
    return cupy.diagonal(x, offset=offset, axis1=-2, axis2=-1)


def _trace(x: Any, /, *, offset: int = 0, dtype: Any = None) -> Any:
    return cupy.trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)


def _linalg_vecdot(x1: Any, x2: Any, /, *, axis: int = -1) -> Any:
    return _vecdot(x1, x2, axis=axis)


def _linalg_cross(x1: Any, x2: Any, /, *, axis: int = -1) -> Any:
    # CuPy's linalg.cross wants equal shapes; the standard broadcasts the others.
    x1, x2 = cupy.broadcast_arrays(x1, x2)
    return cupy.linalg.cross(x1, x2, axis=axis)


def _matrix_transpose(x: Any, /) -> Any:
    return cupy.swapaxes(x, -1, -2)


def _reporting_failure(function: Callable[..., Any], message: str | None) -> Callable[..., Any]:
    """``function`` raising LinAlgError, as NumPy's does, where cuSOLVER fails.

    CuPy's default (``cupyx.errstate(linalg="ignore")``) leaves a singular
    matrix's inverse full of garbage; "raise" reads cuSOLVER's status back
    (a synchronization). ``message`` replaces CuPy's ("Error reported by getrf
    in cuSOLVER...") with NumPy's words where they say more.
    """

    def call(*args: Any, **kwargs: Any) -> Any:
        with cupyx.errstate(linalg="raise"):
            try:
                return function(*args, **kwargs)
            except cupy.linalg.LinAlgError as error:
                raise cupy.linalg.LinAlgError(message or str(error)) from None

    call.__name__ = call.__qualname__ = getattr(function, "__name__", "function")
    call.__doc__ = function.__doc__
    return call


def _cholesky(x: Any, /, *, upper: bool = False) -> Any:
    # CuPy's cholesky(a) gives the lower factor L; the upper one is L^H.
    lower = _reporting_failure(cupy.linalg.cholesky, "Matrix is not positive definite")(x)
    if not upper:
        return lower
    return (cupy.conj(lower) if lower.dtype.kind == "c" else lower).swapaxes(-1, -2)


def _default_rtol(x: Any) -> float:
    """The standard's default relative tolerance: ``max(M, N)`` times ``x``'s epsilon."""
    return float(max(x.shape[-2:]) * cupy.finfo(x.dtype).eps)


def _matrix_rank(x: Any, /, *, rtol: Any = None) -> Any:
    # CuPy's matrix_rank(M, tol=None) takes an absolute tolerance.
    if 0 in x.shape[-2:]:
        return cupy.zeros(x.shape[:-2], dtype=cupy.int64)
    singular = cupy.linalg.svd(x, compute_uv=False)
    if rtol is None:
        rtol = _default_rtol(x)
    elif isinstance(rtol, cupy.ndarray):
        rtol = rtol[..., None]  # one tolerance per matrix of the stack
    tolerance = singular.max(axis=-1, keepdims=True) * rtol
    return (singular > tolerance).sum(axis=-1, dtype=cupy.int64)


def _pinv(x: Any, /, *, rtol: Any = None) -> Any:
    # CuPy's pinv(a, rcond=1e-15) cuts at rcond * amax(s, axis=-1): rtol by
    # another name, with another default.
    return cupy.linalg.pinv(x, rcond=_default_rtol(x) if rtol is None else rtol)


def _solve(x1: Any, x2: Any, /) -> Any:
    # CuPy wants x2's stack shape equal to x1's; the standard broadcasts them.
    # A 1-D x2 is one vector for every matrix of x1 in both.
    solve = _reporting_failure(cupy.linalg.solve, "Singular matrix")
    if x2.ndim == 1:
        return solve(x1, x2)
    stack = cupy.broadcast_shapes(x1.shape[:-2], x2.shape[:-2])
    return solve(_stacked(x1, stack), _stacked(x2, stack))


def _stacked(x: Any, stack: tuple[int, ...]) -> Any:
    """``x``'s matrices broadcast to the stack shape ``stack``, in compact memory."""
    if x.shape[:-2] == stack:
        return x
    return cupy.ascontiguousarray(cupy.broadcast_to(x, stack + x.shape[-2:]))


# Standard names CuPy lacks or whose signature or results differ from the standard's.
_RENAMED: Final[dict[str, Callable[..., Any]]] = {
    "argsort": _argsort,
    "asarray": _asarray,
    "clip": _clip,
    "count_nonzero": _count_nonzero,
    "divide": _divide,
    "expm1": _expm1,
    "floor_divide": _floor_divide,
    "isin": _isin,
    "nextafter": _nextafter,
    "reciprocal": _reciprocal,
    "remainder": _remainder,
    "sort": _sort,
    "std": std,
    "take": _take,
    "tanh": _tanh,
    "unique_all": _nan_aware_unique(cupy.unique_all),
    "unique_counts": _nan_aware_unique(cupy.unique_counts),
    "unique_inverse": _nan_aware_unique(cupy.unique_inverse),
    "unique_values": _nan_aware_unique(cupy.unique_values),
    "unstack": _unstack,
    "var": var,
    "vecdot": _vecdot,
}
_LINALG_RENAMED: Final[dict[str, Callable[..., Any]]] = {
    "cholesky": _cholesky,
    "cross": _linalg_cross,
    "matrix_rank": _matrix_rank,
    "pinv": _pinv,
    "solve": _solve,
}


def _on_host_without_geev(function: Callable[..., Any], name: str) -> Callable[..., Any]:
    """CuPy's ``eig``/``eigvals``, or NumPy's on a host copy where cuSOLVER has no
    ``geev`` (CUDA before 12.6: CuPy raises RuntimeError('geev is not available'))."""

    def call(x: Any, /) -> Any:
        try:
            return function(x)
        except RuntimeError as error:
            if "geev" not in str(error):
                raise
        result = getattr(numpy.linalg, name)(cupy.asnumpy(x))
        if isinstance(result, tuple):
            return tuple(cupy.asarray(part) for part in result)
        return cupy.asarray(result)

    call.__name__ = call.__qualname__ = name
    return call


# linalg functions whose cuSOLVER failures raise, as NumPy's do (with NumPy's
# message where it is clearer than CuPy's); cholesky and solve are wrapped above.
_REPORTED_FAILURES: Final[dict[str, str | None]] = {
    "inv": "Singular matrix",
    "eig": None,
    "eigh": None,
    "eigvals": None,
    "eigvalsh": None,
    "svd": None,
}
# Names only a later CuPy has: used where the CuPy in use lacks them.
_FILLS: Final[dict[str, Callable[..., Any]]] = {
    "cumulative_prod": _cumulative_prod,  # CuPy 14.2
    "cumulative_sum": _cumulative_sum,  # CuPy 14.2
}
_LINALG_FILLS: Final[dict[str, Callable[..., Any]]] = {
    "diagonal": _diagonal,
    "matmul": cupy.matmul,  # CuPy 14.1
    "matrix_norm": _matrix_norm,
    "matrix_transpose": _matrix_transpose,  # CuPy 14.1
    "outer": cupy.outer,
    "svdvals": _svdvals,
    "tensordot": cupy.tensordot,
    "trace": _trace,
    "vecdot": _linalg_vecdot,
    "vector_norm": _vector_norm,
}
# Keywords and results a CuPy release fixed: the fills serve older releases.
_FIXED_IN: Final[tuple[tuple[tuple[int, int], dict[str, Callable[..., Any]]], ...]] = (
    ((14, 1), {"repeat": _repeat}),  # repeats as an array
    ((14, 2), {"reshape": _reshape, "sign": _sign}),  # reshape(copy=); sign(nan) is nan
)


_FFT_TRANSFORMS: Final = frozenset(
    {"fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft"}
    | {"fft2", "ifft2", "rfft2", "irfft2"}
)


def _fft_namespace() -> dict[str, Any]:
    names = _public_names(cupy.fft)
    for name in _FFT_TRANSFORMS & names.keys():
        names[name] = _empty_as_numpy(names[name], getattr(numpy.fft, name))
    return names


def _empty_as_numpy(transform: Callable[..., Any], numpy_transform: Callable[..., Any]) -> Any:
    # cuFFT refuses a plan of 0 transforms ("Invalid number of FFT data
    # points (0)") where NumPy returns an empty result: an empty input gets
    # NumPy's answer, computed on no data (shape, dtype, or the same error).
    def call(x: Any, /, *args: Any, **kwargs: Any) -> Any:
        if x.size:
            return transform(x, *args, **kwargs)
        return cupy.asarray(numpy_transform(numpy.empty(x.shape, x.dtype), *args, **kwargs))

    call.__name__ = call.__qualname__ = transform.__name__
    call.__doc__ = transform.__doc__
    return call


def release_of(version: str) -> tuple[int, int]:
    """``(major, minor)`` of a CuPy version string; ``(0, 0)`` when it has none
    (the backend refuses such a CuPy; the namespace would give it every fill)."""
    numbers = re.match(r"(\d+)\.(\d+)", version)
    return (int(numbers[1]), int(numbers[2])) if numbers else (0, 0)


def _on_device(function: Callable[..., Any], device_id: int) -> Callable[..., Any]:
    """``function`` run with GPU ``device_id`` current (CuPy allocates on the current one)."""
    get_device = cupy.cuda.runtime.getDevice
    device = cupy.cuda.Device(device_id)

    def call(*args: Any, **kwargs: Any) -> Any:
        if get_device() == device_id:
            return function(*args, **kwargs)
        with device:
            return function(*args, **kwargs)

    call.__name__ = call.__qualname__ = getattr(function, "__name__", "function")
    call.__doc__ = function.__doc__
    call.__wrapped__ = function  # type: ignore[attr-defined]
    return call


def _public_names(module: Any) -> dict[str, Any]:
    names: dict[str, Any] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecated aliases warn on access
        for name in dir(module):
            if name.startswith("_"):
                continue
            try:
                names[name] = getattr(module, name)
            except (AttributeError, ImportError):
                continue
    return names


def _bind_to_device(names: dict[str, Any], device_id: int) -> dict[str, Any]:
    return {
        name: _on_device(value, device_id)
        if callable(value) and not isinstance(value, type)
        else value
        for name, value in names.items()
    }


def standard_namespace(device_id: int) -> types.SimpleNamespace:
    """The standard's names, computing on GPU ``device_id``."""
    names = _public_names(cupy)
    names.update(_RENAMED)
    for name, function in _FILLS.items():
        names.setdefault(name, function)
    release = release_of(getattr(cupy, "__version__", ""))
    for fixed_in, fills in _FIXED_IN:
        if release < fixed_in:
            names.update(fills)
    linalg = _public_names(cupy.linalg)
    for name, message in _REPORTED_FAILURES.items():
        if name in linalg:
            linalg[name] = _reporting_failure(linalg[name], message)
    for name in ("eig", "eigvals"):
        if name in linalg:
            linalg[name] = _on_host_without_geev(linalg[name], name)
    linalg.update(_LINALG_RENAMED)
    for name, function in _LINALG_FILLS.items():
        linalg.setdefault(name, function)
    names = _bind_to_device(names, device_id)
    names["linalg"] = types.SimpleNamespace(**_bind_to_device(linalg, device_id))
    names["fft"] = types.SimpleNamespace(**_bind_to_device(_fft_namespace(), device_id))
    return types.SimpleNamespace(**names)
