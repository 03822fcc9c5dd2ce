"""Linear algebra (Array API standard, "Linear Algebra Functions" and ``linalg``).

Every function checks its arguments, calls the backend's ``xp.linalg`` once
and wraps the result. ``diagonal`` and ``matrix_transpose`` return backend
views, which :func:`cowarray._array.may_view` turns into lazy values of their
input; everything else computes a fresh array. Decompositions return the
standard's named tuples.
"""

from __future__ import annotations

import math
import operator
from typing import Any, Literal, NamedTuple

from .._array import Array, fresh
from .._checks import common_device
from .._core import may_view
from .._devices import Device
from .._dtypes import complex64, complex128, float16, float32, one_kind, promote, to_dtype
from .._errors import matmul_shapes, reports_linalg_errors
from ._args import normalize_axes, require_array
from ._out import write_ufunc_out

__all__ = [
    "EigResult",
    "EighResult",
    "LstsqResult",
    "QRResult",
    "SVDResult",
    "SlogdetResult",
    "cholesky",
    "cross",
    "det",
    "diagonal",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "inv",
    "lstsq",
    "matmul",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "matrix_transpose",
    "norm",
    "outer",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "svd",
    "svdvals",
    "tensordot",
    "trace",
    "vecdot",
    "vector_norm",
]


class EighResult(NamedTuple):
    """The result of :func:`eigh`."""

    eigenvalues: Array
    eigenvectors: Array


class EigResult(NamedTuple):
    """The result of :func:`eig` (both arrays complex)."""

    eigenvalues: Array
    eigenvectors: Array


class LstsqResult(NamedTuple):
    """The result of :func:`lstsq` (NumPy's tuple, with names)."""

    x: Array
    residuals: Array
    rank: int
    s: Array


class QRResult(NamedTuple):
    """The result of :func:`qr`."""

    Q: Array
    R: Array


class SlogdetResult(NamedTuple):
    """The result of :func:`slogdet`."""

    sign: Array
    logabsdet: Array


class SVDResult(NamedTuple):
    """The result of :func:`svd`."""

    U: Array
    S: Array
    Vh: Array


# -- argument checks ----------------------------------------------------------

_KIND_NAMES = {"fc": "floating-point", "biufc": "any", "iufc": "numeric"}


def _check_kind(x: Any, name: str, function: str, kinds: str) -> None:
    require_array(x, name, function)
    if x.dtype.kind not in kinds:
        raise TypeError(f"{function}: {name} must have a {_KIND_NAMES[kinds]} dtype, got {x.dtype}")
    if kinds == "fc" and x.dtype == float16:
        raise TypeError(
            f"{function}: {name} is float16, which linear algebra does not support; "
            "convert it with astype(x, float32)"
        )


def _matrices(x: Any, function: str, kinds: str = "fc", square: bool = False) -> Any:
    """The backend array of ``x`` after checking it is a (stack of) matrices."""
    _check_kind(x, "x", function, kinds)
    shape = x.shape
    if len(shape) < 2:
        raise ValueError(
            f"{function}: x must have at least 2 dimensions (a matrix or a stack of "
            f"matrices), got shape {shape}"
        )
    if square and shape[-1] != shape[-2]:
        raise ValueError(f"{function}: x must be a (stack of) square matrices, got shape {shape}")
    return x._data


def _pair(function: str, x1: Any, x2: Any, kinds: str = "iufc") -> tuple[Device, Any]:
    """The common device and the promoted dtype of two operands.

    Operands of one kind must each be of ``kinds``; operands of two kinds
    promote first (design rule 11) and the promoted dtype must be, as in
    NumPy: ``matmul(bool, float64)`` and ``solve(float64, int64)`` compute in
    float64, as ``x @ y`` does.
    """
    require_array(x1, "x1", function)
    require_array(x2, "x2", function)
    if one_kind(x1.dtype, x2.dtype):
        _check_kind(x1, "x1", function, kinds)
        _check_kind(x2, "x2", function, kinds)
        return common_device(x1, x2), promote(x1.dtype, x2.dtype)
    dtype = promote(x1.dtype, x2.dtype)
    if dtype.kind not in kinds or (kinds == "fc" and dtype == float16):
        _check_kind(x1, "x1", function, kinds)
        _check_kind(x2, "x2", function, kinds)
    return common_device(x1, x2), dtype


def _as_dtype(data: Any, dtype: Any) -> Any:
    # The backend promotes the way the standard does for the accepted pairs;
    # this keeps the result exact should it ever differ.
    return data if data.dtype == dtype else data.astype(dtype)


_NUMERIC_KINDS = "iufc"


def _vector_axis(function: str, axis: object, ndim1: int, ndim2: int) -> int:
    """A negative axis valid for both operands (the standard counts from the end)."""
    if isinstance(axis, bool):
        raise TypeError(f"{function}: axis must be an integer, got a bool")
    try:
        index = operator.index(axis)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"{function}: axis must be an integer, got {type(axis).__name__}") from None
    if index >= 0 and ndim1 == ndim2 and index < ndim1:
        index -= ndim1
    lowest = -min(ndim1, ndim2)
    if not lowest <= index <= -1:
        raise ValueError(
            f"{function}: axis={axis} is out of range for operands with {ndim1} and {ndim2} "
            f"dimensions; count it from the end, in [{lowest}, -1]"
        )
    return index


def _complex_of(dtype: Any) -> Any:
    return complex64 if dtype in (float32, complex64) else complex128


def _rtol(rtol: object, function: str, device: Device) -> Any:
    """``rtol`` as the backend takes it: None, a Python float, or a backend array."""
    if rtol is None:
        return None
    if type(rtol) is Array:
        if rtol._device is not device:
            raise ValueError(f"{function}: rtol is on {rtol._device}, x on {device}")
        if rtol.dtype.kind != "f":
            raise TypeError(
                f"{function}: rtol must have a real floating-point dtype, got {rtol.dtype}"
            )
        return rtol._data
    if isinstance(rtol, bool) or not isinstance(rtol, (int, float)):
        raise TypeError(
            f"{function}: rtol must be a float, an Array or None, got {type(rtol).__name__}"
        )
    return float(rtol)


# -- main namespace functions -----------------------------------------------


def matmul(
    x1: Array, x2: Array, /, *, out: Array | None = None, casting: str = "same_kind"
) -> Array:
    """The matrix product of ``x1`` and ``x2`` (``x1 @ x2``), batched over leading axes.

    Parameters
    ----------
    x1, x2 : Array
        Numeric arrays with at least one dimension each. A 1-D operand is a
        vector: a leading (``x1``) or trailing (``x2``) axis of length one is
        added for the product and removed from the result.
    out : Array, optional
        An Array to write the result into, through copy-on-write (NumPy's
        ``out=``): of the result's shape or one it broadcasts to, of a dtype
        it casts to under ``casting``. Keyword-only.
    casting : str, default "same_kind"
        NumPy's rule for casting the result into ``out``; used with ``out``
        only.

    Returns
    -------
    Array
        The product, in the promoted dtype of ``x1`` and ``x2`` (``out``
        itself with ``out=``).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.matmul(ca.asarray([[1, 2], [3, 4]]), ca.asarray([1, 1]))
    cowarray.Array([3, 7], dtype=int64)
    """
    if out is not None:
        return write_ufunc_out(out, matmul(x1, x2), "matmul", casting)
    if type(x1) is Array and type(x2) is Array:
        # The common case, checked in a few attribute reads: one device, one
        # numeric dtype, aligned shapes. Anything else takes the full checks.
        a, b = x1._data, x2._data
        device = x1._device
        if (
            x2._device is device
            and a.dtype is b.dtype
            and a.dtype.kind in _NUMERIC_KINDS
            and a.ndim
            and b.ndim
            and a.shape[-1] == b.shape[-2 if b.ndim > 1 else -1]
            and (a.ndim < 3 or b.ndim < 3 or a.shape[:-2] == b.shape[:-2])
        ):
            return fresh(device.backend.xp.matmul(a, b), device)
    device, dtype = _pair("matmul", x1, x2)
    if x1.ndim == 0 or x2.ndim == 0 or x1.shape[-1] != x2.shape[-2 if x2.ndim > 1 else -1]:
        raise matmul_shapes(x1.shape, x2.shape)
    try:
        result = device.backend.xp.matmul(x1._data, x2._data)
    except ValueError as error:  # batch dimensions that do not broadcast
        raise matmul_shapes(x1.shape, x2.shape) from error
    return fresh(_as_dtype(result, dtype), device)


def matrix_transpose(x: Array, /) -> Array:
    """``x`` with its last two axes swapped (a lazy value, no copy).

    Parameters
    ----------
    x : Array
        Any array with at least two dimensions.

    Returns
    -------
    Array
        Shape ``(..., N, M)``; shares ``x``'s buffer until either is written.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.matrix_transpose(ca.asarray([[1, 2, 3]]))
    cowarray.Array([[1],
                    [2],
                    [3]], dtype=int64)
    """
    data = _matrices(x, "matrix_transpose", kinds="biufc")
    return may_view(x._device.backend.xp.linalg.matrix_transpose(data), x._device, (x,))


def _tensordot_axes(axes: object) -> int | tuple[tuple[int, ...], tuple[int, ...]]:
    if isinstance(axes, bool):
        raise TypeError("tensordot: axes must be an int or a pair of sequences, got a bool")
    if isinstance(axes, int):
        if axes < 0:
            raise ValueError(f"tensordot: axes={axes} must not be negative")
        return axes
    if isinstance(axes, (tuple, list)) and len(axes) == 2:
        first, second = (tuple(operator.index(a) for a in side) for side in axes)
        if len(first) != len(second):
            raise ValueError(f"tensordot: axes={axes} must list as many axes for x1 as for x2")
        return first, second
    raise TypeError(
        f"tensordot: axes must be an int or a pair of axis sequences, got {type(axes).__name__}"
    )


def tensordot(x1: Array, x2: Array, /, *, axes: int | tuple[Any, Any] = 2) -> Array:
    """The sum of products over the given axes of ``x1`` and ``x2``.

    Parameters
    ----------
    x1, x2 : Array
        Numeric arrays.
    axes : int or (sequence of int, sequence of int)
        An int ``N`` contracts the last ``N`` axes of ``x1`` with the first
        ``N`` of ``x2``; a pair lists the axes to contract, in order.

    Returns
    -------
    Array
        The uncontracted axes of ``x1`` followed by those of ``x2``, in the promoted dtype.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.tensordot(ca.asarray([[1, 2], [3, 4]]), ca.asarray([[1, 0], [0, 1]]), axes=2)
    cowarray.Array(5, dtype=int64)
    """
    device, dtype = _pair("tensordot", x1, x2)
    contracted = _tensordot_axes(axes)
    if isinstance(contracted, int):
        if contracted > min(x1.ndim, x2.ndim):
            raise ValueError(
                f"tensordot: axes={contracted} exceeds the dimensions of x1 ({x1.ndim}) or "
                f"x2 ({x2.ndim})"
            )
        first = tuple(range(x1.ndim - contracted, x1.ndim))
        second = tuple(range(contracted))
    else:
        first = normalize_axes(contracted[0], x1.ndim, "axes[0]") or ()
        second = normalize_axes(contracted[1], x2.ndim, "axes[1]") or ()
    for a, b in zip(first, second, strict=True):
        if x1.shape[a] != x2.shape[b]:
            raise ValueError(
                f"tensordot: axis {a} of x1 (length {x1.shape[a]}) and axis {b} of x2 "
                f"(length {x2.shape[b]}) must have equal lengths"
            )
    result = device.backend.xp.linalg.tensordot(x1._data, x2._data, axes=(first, second))
    return fresh(_as_dtype(result, dtype), device)


def vecdot(
    x1: Array,
    x2: Array,
    /,
    *,
    axis: int = -1,
    out: Array | None = None,
    casting: str = "same_kind",
) -> Array:
    """The dot product of vectors along ``axis``, conjugating ``x1``.

    The other axes broadcast; the vector axis must have the same length in
    both operands (it does not broadcast).

    Parameters
    ----------
    x1, x2 : Array
        Numeric arrays with at least one dimension.
    axis : int
        The vector axis, counted from the end (``-1``: the last one).
    out : Array, optional
        An Array to write the result into, through copy-on-write (NumPy's
        ``out=``): of the result's shape or one it broadcasts to, of a dtype
        it casts to under ``casting``. Keyword-only.
    casting : str, default "same_kind"
        NumPy's rule for casting the result into ``out``; used with ``out``
        only.

    Returns
    -------
    Array
        ``sum(conj(x1) * x2)`` along ``axis``, broadcast over the other axes
        (``out`` itself with ``out=``).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.vecdot(ca.asarray([[1.0, 2.0], [3.0, 4.0]]), ca.asarray([1.0, 1.0]))
    cowarray.Array([3., 7.], dtype=float64)
    """
    if out is not None:
        return write_ufunc_out(out, vecdot(x1, x2, axis=axis), "vecdot", casting)
    if type(x1) is Array and type(x2) is Array and type(axis) is int and axis < 0:
        a, b = x1._data, x2._data
        device = x1._device
        dtype = a.dtype
        if (
            x2._device is device
            and dtype is b.dtype
            and dtype.kind in _NUMERIC_KINDS
            and a.ndim >= -axis
            and b.ndim >= -axis
            and a.shape[axis] == b.shape[axis]
        ):
            return fresh(device.backend.xp.vecdot(a, b, axis=axis), device)
    device, dtype = _pair("vecdot", x1, x2)
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError("vecdot: operands must have at least one dimension")
    index = _vector_axis("vecdot", axis, x1.ndim, x2.ndim)
    if x1.shape[index] != x2.shape[index]:
        raise ValueError(
            f"vecdot: x1 of shape {x1.shape} and x2 of shape {x2.shape} hold vectors of "
            f"lengths {x1.shape[index]} and {x2.shape[index]} along axis {axis}; pass arrays "
            "whose vectors have equal lengths, or choose the axis that has them with axis="
        )
    result = device.backend.xp.vecdot(x1._data, x2._data, axis=index)
    return fresh(_as_dtype(result, dtype), device)


# -- the linalg extension -------------------------------------------------------


@reports_linalg_errors("x")
def cholesky(x: Array, /, *, upper: bool = False) -> Array:
    """The Cholesky factor of a (stack of) Hermitian positive-definite matrices.

    Parameters
    ----------
    x : Array
        Floating-point array of shape ``(..., M, M)``.
    upper : bool
        Return the upper factor ``U`` (``x = U^H U``) instead of the lower
        factor ``L`` (``x = L L^H``).

    Returns
    -------
    Array
        The triangular factor, with ``x``'s shape and dtype.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.linalg.cholesky(ca.asarray([[4.0, 2.0], [2.0, 2.0]]))
    cowarray.Array([[2., 0.],
                    [1., 1.]], dtype=float64)
    """
    data = _matrices(x, "cholesky", square=True)
    if type(upper) is not bool:
        raise TypeError(f"cholesky: upper must be a bool, got {type(upper).__name__}")
    return may_view(x._device.backend.xp.linalg.cholesky(data, upper=upper), x._device, (x,))


def cross(x1: Array, x2: Array, /, *, axis: int = -1) -> Array:
    """The cross product of 3-element vectors along ``axis`` (other axes broadcast).

    Parameters
    ----------
    x1, x2 : Array
        Numeric arrays whose ``axis`` has length 3.
    axis : int
        The vector axis, counted from the end.

    Returns
    -------
    Array
        The cross products, in the promoted dtype.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.linalg.cross(ca.asarray([1, 0, 0]), ca.asarray([0, 1, 0]))
    cowarray.Array([0, 0, 1], dtype=int64)
    """
    device, dtype = _pair("cross", x1, x2)
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError("cross: operands must have at least one dimension")
    index = _vector_axis("cross", axis, x1.ndim, x2.ndim)
    if x1.shape[index] != 3 or x2.shape[index] != 3:
        raise ValueError(
            f"cross: axis {axis} must have length 3 in both operands, got shapes "
            f"{x1.shape} and {x2.shape}"
        )
    result = device.backend.xp.linalg.cross(x1._data, x2._data, axis=index)
    return fresh(_as_dtype(result, dtype), device)


@reports_linalg_errors("x")
def det(x: Array, /) -> Array:
    """The determinant of a (stack of) square matrices.

    Parameters
    ----------
    x : Array
        Floating-point array of shape ``(..., M, M)``: a square matrix or a stack of them.

    Returns
    -------
    Array
        Shape ``x.shape[:-2]``, ``x``'s dtype.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.linalg.det(ca.asarray([[1.0, 2.0], [3.0, 4.0]]))
    cowarray.Array(-2., dtype=float64)
    """
    data = _matrices(x, "det", square=True)
    return may_view(x._device.backend.xp.linalg.det(data), x._device, (x,))


def diagonal(x: Array, /, *, offset: int = 0) -> Array:
    """The ``offset``-th diagonal of each matrix in ``x`` (a lazy value).

    Parameters
    ----------
    x : Array
        Any array of shape ``(..., M, N)``.
    offset : int
        ``0`` the main diagonal, positive above it, negative below.

    Returns
    -------
    Array
        Shape ``(..., K)``; shares ``x``'s buffer until either is written.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.linalg.diagonal(ca.asarray([[1, 2], [3, 4]]), offset=1)
    cowarray.Array([2], dtype=int64)
    """
    data = _matrices(x, "diagonal", kinds="biufc")
    if isinstance(offset, bool) or not isinstance(offset, int):
        raise TypeError(f"diagonal: offset must be an int, got {type(offset).__name__}")
    return may_view(x._device.backend.xp.linalg.diagonal(data, offset=offset), x._device, (x,))


@reports_linalg_errors("x")
def eigh(x: Array, /) -> EighResult:
    """Eigenvalues (ascending) and eigenvectors of a (stack of) Hermitian matrices.

    Parameters
    ----------
    x : Array
        Floating-point array of shape ``(..., M, M)``: a square matrix or a stack of them.
        Only the lower triangle is read.

    Returns
    -------
    EighResult
        ``eigenvalues`` (real, shape ``(..., M)``) and ``eigenvectors`` (the
        columns, ``x``'s dtype).

    Examples
    --------
    >>> import cowarray as ca
    >>> w, v = ca.linalg.eigh(ca.asarray([[2.0, 0.0], [0.0, 1.0]]))
    >>> w
    cowarray.Array([1., 2.], dtype=float64)
    """
    data = _matrices(x, "eigh", square=True)
    values, vectors = x._device.backend.xp.linalg.eigh(data)
    return EighResult(may_view(values, x._device, (x,)), may_view(vectors, x._device, (x,)))


@reports_linalg_errors("x")
def eigvalsh(x: Array, /) -> Array:
    """The eigenvalues (ascending) of a (stack of) Hermitian matrices.

    Parameters
    ----------
    x : Array
        Floating-point array of shape ``(..., M, M)``: a square matrix or a stack of them.

    Returns
    -------
    Array
        Real eigenvalues, shape ``(..., M)``.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.linalg.eigvalsh(ca.asarray([[2.0, 1.0], [1.0, 2.0]]))
    cowarray.Array([1., 3.], dtype=float64)
    """
    data = _matrices(x, "eigvalsh", square=True)
    return may_view(x._device.backend.xp.linalg.eigvalsh(data), x._device, (x,))


@reports_linalg_errors("x")
def eig(x: Array, /) -> EigResult:
    """Eigenvalues and eigenvectors of a (stack of) general square matrices.

    Both results are complex (``complex64`` for single precision input,
    else ``complex128``), even when every eigenvalue happens to be real.

    Parameters
    ----------
    x : Array
        Floating-point array of shape ``(..., M, M)``: a square matrix or a stack of them.

    Returns
    -------
    EigResult
        ``eigenvalues`` (shape ``(..., M)``) and ``eigenvectors`` (the columns).

    Examples
    --------
    >>> import cowarray as ca
    >>> w, v = ca.linalg.eig(ca.asarray([[0.0, -1.0], [1.0, 0.0]]))
    >>> w
    cowarray.Array([0.+1.j, 0.-1.j], dtype=complex128)
    """
    data = _matrices(x, "eig", square=True)
    values, vectors = x._device.backend.xp.linalg.eig(data)
    dtype = _complex_of(x.dtype)
    return EigResult(
        may_view(_as_dtype(values, dtype), x._device, (x,)),
        may_view(_as_dtype(vectors, dtype), x._device, (x,)),
    )


@reports_linalg_errors("x")
def eigvals(x: Array, /) -> Array:
    """The (complex) eigenvalues of a (stack of) general square matrices.

    Parameters
    ----------
    x : Array
        Floating-point array of shape ``(..., M, M)``: a square matrix or a stack of them.

    Returns
    -------
    Array
        Complex eigenvalues, shape ``(..., M)``.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.linalg.eigvals(ca.asarray([[2.0, 0.0], [0.0, 3.0]]))
    cowarray.Array([2.+0.j, 3.+0.j], dtype=complex128)
    """
    data = _matrices(x, "eigvals", square=True)
    values = x._device.backend.xp.linalg.eigvals(data)
    return may_view(_as_dtype(values, _complex_of(x.dtype)), x._device, (x,))


@reports_linalg_errors("x")
def inv(x: Array, /) -> Array:
    """The inverse of a (stack of) square matrices.

    Parameters
    ----------
    x : Array
        Floating-point array of shape ``(..., M, M)``: a square matrix or a stack of them.

    Returns
    -------
    Array
        ``x``'s shape and dtype. A singular matrix raises ValueError.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.linalg.inv(ca.asarray([[2.0, 0.0], [0.0, 4.0]]))
    cowarray.Array([[0.5 , 0.  ],
                    [0.  , 0.25]], dtype=float64)
    """
    data = _matrices(x, "inv", square=True)
    return may_view(x._device.backend.xp.linalg.inv(data), x._device, (x,))


_MATRIX_ORDS = (1, 2, -1, -2, math.inf, -math.inf, "fro", "nuc")


def matrix_norm(
    x: Array,
    /,
    *,
    keepdims: bool = False,
    ord: int | float | Literal["fro", "nuc"] | None = "fro",
) -> Array:
    """A matrix norm of each matrix in ``x`` (Frobenius by default).

    Parameters
    ----------
    x : Array
        Floating-point array of shape ``(..., M, N)``.
    keepdims : bool
        Keep the two reduced axes with length one.
    ord : {1, 2, inf, -1, -2, -inf, "fro", "nuc"}
        The norm; ``None`` means ``"fro"``.

    Returns
    -------
    Array
        Real floating-point norms, shape ``x.shape[:-2]`` (plus two unit axes
        with ``keepdims``).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.linalg.matrix_norm(ca.asarray([[3.0, 0.0], [0.0, 4.0]]))
    cowarray.Array(5., dtype=float64)
    """
    data = _matrices(x, "matrix_norm")
    if ord is None:
        ord = "fro"
    if isinstance(ord, bool) or ord not in _MATRIX_ORDS:
        raise ValueError(
            f"matrix_norm: ord={ord!r} is not one of 1, 2, inf, -1, -2, -inf, 'fro', 'nuc'"
        )
    if type(keepdims) is not bool:
        raise TypeError(f"matrix_norm: keepdims must be a bool, got {type(keepdims).__name__}")
    result = x._device.backend.xp.linalg.matrix_norm(data, keepdims=keepdims, ord=ord)
    return may_view(result, x._device, (x,))


@reports_linalg_errors("x")
def matrix_power(x: Array, n: int, /) -> Array:
    """``x`` multiplied by itself ``n`` times (the inverse's power when ``n < 0``).

    Parameters
    ----------
    x : Array
        Floating-point array of shape ``(..., M, M)``: a square matrix or a stack of them.
    n : int
        The exponent; ``0`` gives identity matrices.

    Returns
    -------
    Array
        ``x``'s shape and dtype.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.linalg.matrix_power(ca.asarray([[1.0, 1.0], [0.0, 1.0]]), 3)
    cowarray.Array([[1., 3.],
                    [0., 1.]], dtype=float64)
    """
    data = _matrices(x, "matrix_power", square=True)
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"matrix_power: n must be an int, got {type(n).__name__}")
    return may_view(x._device.backend.xp.linalg.matrix_power(data, n), x._device, (x,))


@reports_linalg_errors("x")
def matrix_rank(x: Array, /, *, rtol: float | Array | None = None) -> Array:
    """The number of singular values above ``rtol`` times the largest one.

    ``rtol`` defaults to ``max(M, N) * eps`` of ``x``'s precision.

    Parameters
    ----------
    x : Array
        Floating-point array of shape ``(..., M, N)``.
    rtol : float or Array, optional
        Relative tolerance; an Array broadcasts against ``x.shape[:-2]``.

    Returns
    -------
    Array
        Ranks in the default integer dtype, shape ``x.shape[:-2]``.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.linalg.matrix_rank(ca.asarray([[1.0, 2.0], [2.0, 4.0]]))
    cowarray.Array(1, dtype=int64)
    """
    data = _matrices(x, "matrix_rank")
    tolerance = _rtol(rtol, "matrix_rank", x._device)
    result = x._device.backend.xp.linalg.matrix_rank(data, rtol=tolerance)
    return may_view(result, x._device, (x,))


def outer(x1: Array, x2: Array, /) -> Array:
    """The outer product of two vectors.

    Parameters
    ----------
    x1, x2 : Array
        Numeric 1-D arrays of lengths ``N`` and ``M``.

    Returns
    -------
    Array
        Shape ``(N, M)``, the promoted dtype.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.linalg.outer(ca.asarray([1, 2]), ca.asarray([1, 10]))
    cowarray.Array([[ 1, 10],
                    [ 2, 20]], dtype=int64)
    """
    device, dtype = _pair("outer", x1, x2)
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError(f"outer: both operands must be 1-D, got shapes {x1.shape} and {x2.shape}")
    result = device.backend.xp.linalg.outer(x1._data, x2._data)
    return fresh(_as_dtype(result, dtype), device)


@reports_linalg_errors("x")
def pinv(x: Array, /, *, rtol: float | Array | None = None) -> Array:
    """The Moore-Penrose pseudo-inverse of a (stack of) matrices.

    Singular values at most ``rtol`` times the largest one count as zero;
    ``rtol`` defaults to ``max(M, N) * eps`` of ``x``'s precision.

    Parameters
    ----------
    x : Array
        Floating-point array of shape ``(..., M, N)``.
    rtol : float or Array, optional
        Relative tolerance; an Array broadcasts against ``x.shape[:-2]``.

    Returns
    -------
    Array
        Shape ``(..., N, M)``, ``x``'s dtype.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.linalg.pinv(ca.asarray([[2.0, 0.0], [0.0, 0.0]]))
    cowarray.Array([[0.5, 0. ],
                    [0. , 0. ]], dtype=float64)
    """
    data = _matrices(x, "pinv")
    tolerance = _rtol(rtol, "pinv", x._device)
    return may_view(x._device.backend.xp.linalg.pinv(data, rtol=tolerance), x._device, (x,))


@reports_linalg_errors("x")
def qr(x: Array, /, *, mode: Literal["reduced", "complete"] = "reduced") -> QRResult:
    """The QR decomposition of a (stack of) matrices.

    Parameters
    ----------
    x : Array
        Floating-point array of shape ``(..., M, N)``.
    mode : {"reduced", "complete"}
        ``"reduced"``: ``Q`` is ``(..., M, K)`` and ``R`` ``(..., K, N)`` with
        ``K = min(M, N)``; ``"complete"``: ``Q`` is ``(..., M, M)``.

    Returns
    -------
    QRResult
        ``Q`` with orthonormal columns and upper triangular ``R``, ``x = Q @ R``.

    Examples
    --------
    >>> import cowarray as ca
    >>> q, r = ca.linalg.qr(ca.asarray([[3.0, 0.0], [4.0, 5.0]]))
    >>> q.shape, r.shape
    ((2, 2), (2, 2))
    """
    data = _matrices(x, "qr")
    if mode not in ("reduced", "complete"):
        raise ValueError(f"qr: mode must be 'reduced' or 'complete', got {mode!r}")
    q, r = x._device.backend.xp.linalg.qr(data, mode=mode)
    return QRResult(may_view(q, x._device, (x,)), may_view(r, x._device, (x,)))


@reports_linalg_errors("x")
def slogdet(x: Array, /) -> SlogdetResult:
    """The sign and the log of the absolute value of the determinant.

    Parameters
    ----------
    x : Array
        Floating-point array of shape ``(..., M, M)``: a square matrix or a stack of them.

    Returns
    -------
    SlogdetResult
        ``sign`` (``x``'s dtype; ``0`` for a singular matrix) and
        ``logabsdet`` (real; ``-inf`` for a singular matrix).

    Examples
    --------
    >>> import cowarray as ca
    >>> sign, logabsdet = ca.linalg.slogdet(ca.asarray([[0.0, 1.0], [1.0, 0.0]]))
    >>> sign, logabsdet
    (cowarray.Array(-1., dtype=float64), cowarray.Array(0., dtype=float64))
    """
    data = _matrices(x, "slogdet", square=True)
    sign, logabsdet = x._device.backend.xp.linalg.slogdet(data)
    return SlogdetResult(may_view(sign, x._device, (x,)), may_view(logabsdet, x._device, (x,)))


@reports_linalg_errors("x1")
def solve(x1: Array, x2: Array, /) -> Array:
    """The solution ``X`` of ``x1 @ X = x2`` for square ``x1``.

    ``x2`` of shape ``(M,)`` is one vector; otherwise ``x2`` is a (stack
    of) ``(M, K)`` matrices whose leading axes broadcast with ``x1``'s.

    Parameters
    ----------
    x1 : Array
        Floating-point ``(..., M, M)`` coefficient matrices.
    x2 : Array
        Floating-point right-hand sides, ``(M,)`` or ``(..., M, K)``.

    Returns
    -------
    Array
        The solutions, in the promoted dtype.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.linalg.solve(ca.asarray([[2.0, 0.0], [0.0, 4.0]]), ca.asarray([2.0, 2.0]))
    cowarray.Array([1. , 0.5], dtype=float64)
    """
    device, dtype = _pair("solve", x1, x2, kinds="fc")
    _matrices(x1, "solve", square=True)
    m = x1.shape[-1]
    if x2.ndim == 0 or x2.shape[-1 if x2.ndim == 1 else -2] != m:
        raise ValueError(
            f"solve: x2 of shape {x2.shape} does not fit x1 of shape {x1.shape}; it must be "
            f"({m},) or (..., {m}, K)"
        )
    result = device.backend.xp.linalg.solve(x1._data, x2._data)
    return fresh(_as_dtype(result, dtype), device)


@reports_linalg_errors("x")
def svd(x: Array, /, *, full_matrices: bool = True) -> SVDResult:
    """The singular value decomposition ``x = U @ diag(S) @ Vh``.

    Parameters
    ----------
    x : Array
        Floating-point array of shape ``(..., M, N)``.
    full_matrices : bool
        ``True``: ``U`` is ``(..., M, M)`` and ``Vh`` ``(..., N, N)``; ``False``:
        ``(..., M, K)`` and ``(..., K, N)`` with ``K = min(M, N)``.

    Returns
    -------
    SVDResult
        ``U``, ``S`` (real, descending, shape ``(..., K)``) and ``Vh``.

    Examples
    --------
    >>> import cowarray as ca
    >>> u, s, vh = ca.linalg.svd(ca.asarray([[3.0, 0.0], [0.0, 4.0]]))
    >>> s
    cowarray.Array([4., 3.], dtype=float64)
    """
    data = _matrices(x, "svd")
    if type(full_matrices) is not bool:
        raise TypeError(f"svd: full_matrices must be a bool, got {type(full_matrices).__name__}")
    u, s, vh = x._device.backend.xp.linalg.svd(data, full_matrices=full_matrices)
    return SVDResult(
        may_view(u, x._device, (x,)), may_view(s, x._device, (x,)), may_view(vh, x._device, (x,))
    )


@reports_linalg_errors("x")
def svdvals(x: Array, /) -> Array:
    """The singular values of a (stack of) matrices, in descending order.

    Parameters
    ----------
    x : Array
        Floating-point array of shape ``(..., M, N)``.

    Returns
    -------
    Array
        Real, shape ``(..., min(M, N))``.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.linalg.svdvals(ca.asarray([[3.0, 0.0], [0.0, 4.0]]))
    cowarray.Array([4., 3.], dtype=float64)
    """
    data = _matrices(x, "svdvals")
    return may_view(x._device.backend.xp.linalg.svdvals(data), x._device, (x,))


def trace(x: Array, /, *, offset: int = 0, dtype: Any = None) -> Array:
    """The sum of the ``offset``-th diagonal of each matrix in ``x``.

    Integer inputs sum in the default integer dtype of their signedness
    unless ``dtype`` says otherwise.

    Parameters
    ----------
    x : Array
        Numeric array of shape ``(..., M, N)``.
    offset : int
        ``0`` the main diagonal, positive above it, negative below.
    dtype : dtype, optional
        The dtype to sum in.

    Returns
    -------
    Array
        Shape ``x.shape[:-2]``.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.linalg.trace(ca.asarray([[1, 2], [3, 4]]))
    cowarray.Array(5, dtype=int64)
    """
    data = _matrices(x, "trace", kinds="iufc")
    if isinstance(offset, bool) or not isinstance(offset, int):
        raise TypeError(f"trace: offset must be an int, got {type(offset).__name__}")
    resolved = None if dtype is None else to_dtype(dtype)
    result = x._device.backend.xp.linalg.trace(data, offset=offset, dtype=resolved)
    return may_view(result, x._device, (x,))


def _ord_value(ord: object) -> float:
    if isinstance(ord, bool) or not isinstance(ord, (int, float)):
        raise TypeError(f"vector_norm: ord must be an int or a float, got {type(ord).__name__}")
    return ord


def vector_norm(
    x: Array,
    /,
    *,
    axis: int | tuple[int, ...] | None = None,
    keepdims: bool = False,
    ord: int | float = 2,
) -> Array:
    """The vector ``ord``-norm over ``axis`` (all elements by default).

    Parameters
    ----------
    x : Array
        Floating-point array.
    axis : int or tuple of int, optional
        The axes that form the vectors; ``None`` flattens ``x``.
    keepdims : bool
        Keep the reduced axes with length one.
    ord : int or float
        ``inf``, ``-inf``, ``0`` (count of non-zeros) or any p.

    Returns
    -------
    Array
        Real floating-point norms (``float32`` for ``complex64`` input).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.linalg.vector_norm(ca.asarray([[3.0, 4.0], [6.0, 8.0]]), axis=1)
    cowarray.Array([ 5., 10.], dtype=float64)
    """
    _check_kind(x, "x", "vector_norm", "fc")
    order = _ord_value(ord)
    if type(keepdims) is not bool:
        raise TypeError(f"vector_norm: keepdims must be a bool, got {type(keepdims).__name__}")
    axes = normalize_axes(axis, x.ndim)
    result = x._device.backend.xp.linalg.vector_norm(
        x._data, axis=axes, keepdims=keepdims, ord=order
    )
    return may_view(result, x._device, (x,))


# -- NumPy's linalg beyond the standard ---------------------------------------


def _floating_input(x: Any, name: str, function: str) -> Array:
    """``x``, with integers and booleans converted to float64 as NumPy's linalg does."""
    require_array(x, name, function)
    if x.dtype.kind in "biu":
        converted: Array = may_view(
            x._device.backend.xp.astype(x._data, to_dtype("float64")), x._device, (x,)
        )
        return converted
    _check_kind(x, name, function, "fc")
    return x  # type: ignore[no-any-return]


def norm(
    x: Array,
    /,
    ord: int | float | Literal["fro", "nuc"] | None = None,
    axis: int | tuple[int, ...] | None = None,
    keepdims: bool = False,
) -> Array:
    """NumPy's ``linalg.norm``: a vector or matrix norm, chosen by ``axis`` and ``ord``.

    With ``axis=None``: the 2-norm of ``x`` flattened if ``ord`` is None,
    else the vector norm of a 1-D or the matrix norm of a 2-D ``x``. An int
    ``axis`` (or a 1-tuple) gives vector norms, a pair of axes matrix norms.
    The standard's :func:`vector_norm` and :func:`matrix_norm` say the same
    with fewer cases.

    Parameters
    ----------
    x : Array
        Integers and booleans are converted to ``float64``, as in NumPy.
    ord : {None, int, float, inf, -inf, "fro", "nuc"}
        Vector norms take any number (``0`` counts non-zeros); matrix norms
        ``1``, ``-1``, ``2``, ``-2``, ``inf``, ``-inf``, ``"fro"``, ``"nuc"``.
    axis : int or pair of int, optional
    keepdims : bool, default False

    Returns
    -------
    Array
        Real norms of ``x``'s precision.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.linalg.norm(ca.asarray([[3, 4], [0, 0]]))
    cowarray.Array(5., dtype=float64)
    >>> ca.linalg.norm(ca.asarray([[1.0, -2.0], [3.0, 4.0]]), ord=1)
    cowarray.Array(6., dtype=float64)
    >>> ca.linalg.norm(ca.asarray([[1.0, -2.0], [3.0, 4.0]]), ord=ca.inf, axis=1)
    cowarray.Array([2., 4.], dtype=float64)
    """
    x = _floating_input(x, "x", "norm")
    if type(keepdims) is not bool:
        raise TypeError(f"norm: keepdims must be a bool, got {type(keepdims).__name__}")
    if axis is None:
        if ord is None:
            return vector_norm(x, keepdims=keepdims)
        if x.ndim not in (1, 2):
            raise ValueError(
                f"norm: with ord={ord!r} and no axis, x must be 1-D or 2-D, got shape {x.shape}"
            )
        axes = tuple(range(x.ndim))
    else:
        axes = normalize_axes(axis, x.ndim) or ()
    if len(axes) == 1:
        if isinstance(ord, str):
            raise ValueError(f"norm: ord={ord!r} is a matrix norm; vectors take numbers")
        return vector_norm(x, axis=axes, keepdims=keepdims, ord=2 if ord is None else ord)
    if len(axes) != 2:
        raise ValueError(f"norm: axis must name one axis or two, got {axis!r}")
    xp = x._device.backend.xp
    moved = may_view(xp.moveaxis(x._data, axes, (-2, -1)), x._device, (x,))
    result = matrix_norm(moved, ord="fro" if ord is None else ord)
    if not keepdims:
        return result
    return may_view(xp.expand_dims(result._data, tuple(sorted(axes))), x._device, (result,))


@reports_linalg_errors("a")
def lstsq(a: Array, b: Array, /, rcond: float | None = None) -> LstsqResult:
    """The least-squares solution ``x`` of ``a @ x = b`` (NumPy's ``linalg.lstsq``).

    Computed from the singular value decomposition of ``a`` on every
    backend: singular values at most ``rcond`` times the largest count as
    zero.

    Parameters
    ----------
    a : Array
        ``(M, N)`` coefficients (integers are converted to ``float64``).
    b : Array
        ``(M,)`` or ``(M, K)`` right-hand sides.
    rcond : float, optional
        The cut-off ratio; ``max(M, N)`` times the machine epsilon by
        default (NumPy's default), machine epsilon if negative.

    Returns
    -------
    LstsqResult
        ``x`` (``(N,)`` or ``(N, K)``), ``residuals`` (the squared 2-norm of
        each column of ``b - a @ x``, shape ``(1,)`` or ``(K,)``; empty unless
        ``a`` has full column rank ``N < M``), ``rank`` (an int) and ``s``
        (the singular values). It unpacks as NumPy's tuple does.

    Examples
    --------
    >>> import cowarray as ca
    >>> a = ca.asarray([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]])
    >>> x, residuals, rank, s = ca.linalg.lstsq(a, ca.asarray([1.0, 2.0, 4.0]))
    >>> x
    cowarray.Array([0.83333333, 1.5       ], dtype=float64)
    >>> residuals, rank
    (cowarray.Array([0.16666667], dtype=float64), 2)
    """
    a = _floating_input(a, "a", "lstsq")
    b = _floating_input(b, "b", "lstsq")
    device = common_device(a, b)
    dtype = promote(a.dtype, b.dtype)
    if a.ndim != 2:
        raise ValueError(f"lstsq: a must be 2-D, got shape {a.shape}")
    if b.ndim not in (1, 2) or b.shape[0] != a.shape[0]:
        raise ValueError(
            f"lstsq: b must be ({a.shape[0]},) or ({a.shape[0]}, K) to fit a of shape "
            f"{a.shape}, got {b.shape}"
        )
    if rcond is not None and (isinstance(rcond, bool) or not isinstance(rcond, (int, float))):
        raise TypeError(f"lstsq: rcond must be a float or None, got {type(rcond).__name__}")
    xp = device.backend.xp
    m, n = a.shape
    data = _as_dtype(a._data, dtype)
    rhs = _as_dtype(b._data, dtype)
    rhs = xp.reshape(rhs, (m, 1)) if b.ndim == 1 else rhs
    u, s, vh = xp.linalg.svd(data, full_matrices=False)
    eps = float(xp.finfo(s.dtype).eps)
    cut = eps * max(m, n) if rcond is None else (eps if rcond < 0 else float(rcond))
    largest = xp.max(s) if s.size else xp.zeros((), dtype=s.dtype)
    kept = s > cut * largest
    rank = int(xp.sum(xp.astype(kept, to_dtype("int64"))))
    safe = xp.where(kept, s, xp.ones((), dtype=s.dtype))
    inverse = xp.where(kept, 1 / safe, xp.zeros((), dtype=s.dtype))
    projected = xp.matmul(xp.conj(xp.permute_dims(u, (1, 0))), rhs)
    solution = xp.matmul(
        xp.conj(xp.permute_dims(vh, (1, 0))), xp.astype(inverse, dtype)[:, None] * projected
    )
    if rank == n and m > n:
        error = rhs - xp.matmul(data, solution)
        magnitude = xp.abs(error)
        residuals = xp.sum(magnitude * magnitude, axis=0)
    else:
        residuals = xp.zeros((0,), dtype=s.dtype)
    if b.ndim == 1:
        solution = xp.reshape(solution, (n,))
    return LstsqResult(
        fresh(solution, device),
        fresh(residuals, device),
        rank,
        fresh(s, device),
    )
