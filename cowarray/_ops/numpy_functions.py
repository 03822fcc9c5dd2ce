"""NumPy's functions beyond the standard: shapes, joins, splits and predicates.

``docs/numpy_functions.md`` says how the list was chosen. Each function takes
NumPy's arguments (cowarray Arrays where NumPy takes arrays, Python scalars
where it takes scalars) and gives NumPy's answer, except where the standard's
type promotion refuses what NumPy would mix (an integer with a floating-point
array): the docstring says so.

The views NumPy returns (``ravel``, ``atleast_*d``, ``split``, ``swapaxes``,
``transpose``, ``diagonal``, 2-D ``diag``) are lazy values here (rule 1):
they share the input's buffer until either is written.

One implementation serves every backend. Computed with the backend's NumPy
names, which CuPy has with NumPy's signatures: ``ravel``, ``swapaxes``,
``diagonal``, ``diag``, ``pad`` (every mode but ``"median"``, which
CuPy lacks and cowarray refuses), ``flatnonzero``, ``unique``. ``np.trace`` is
``cowarray.linalg.trace`` (over the last two axes): ``cowarray.trace`` is
the copy tracer of :mod:`cowarray.debug`. Composed here
from standard operations: ``insert`` (CuPy has none), ``delete``, ``resize``,
``split``/``array_split`` (slices, so views on every backend), the stacks,
``append``, ``fill_diagonal`` (a write through copy-on-write), and
``isscalar`` (``cupy.isscalar`` is NumPy's). ``unique`` makes NaNs alike
first: CuPy's 1-D sort orders NaNs by their bits, which would split
``equal_nan``'s one NaN.
"""

from __future__ import annotations

import itertools
import math
import operator
from collections.abc import Sequence
from typing import Any, Final

import numpy

from .._array import Array, fresh
from .._checks import common_device
from .._core import lazy_clone, may_view, view
from .._devices import Device
from .._dtypes import check_scalar, normalize_scalar, promote
from .._errors import not_an_array, out_refused
from ._args import normalize_axis, normalize_shape, require_array
from .creation import eye
from .manipulation import _concat_error, _gather, permute_dims

__all__ = [
    "append",
    "array_split",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "column_stack",
    "copy",
    "delete",
    "diag",
    "diagonal",
    "dstack",
    "fill_diagonal",
    "flatnonzero",
    "hstack",
    "identity",
    "insert",
    "isscalar",
    "iterable",
    "ndim",
    "pad",
    "ravel",
    "resize",
    "shape",
    "size",
    "split",
    "swapaxes",
    "transpose",
    "unique",
    "vstack",
]

Scalar = bool | int | float | complex


def _int(value: object, name: str, function: str) -> int:
    if isinstance(value, bool):
        raise TypeError(f"{function}: {name} must be an int, got a bool")
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"{function}: {name} must be an int, got {type(value).__name__}") from None


def _bool(value: object, name: str, function: str) -> bool:
    if type(value) is not bool:
        raise TypeError(f"{function}: {name} must be a bool, got {type(value).__name__}")
    return value


def _scalar_for(dtype: Any, value: object, name: str, function: str) -> Scalar:
    """A Python scalar that fits ``dtype`` under the standard's scalar rules."""
    try:
        scalar = normalize_scalar(value)
        check_scalar(dtype, scalar)
    except TypeError as error:
        raise TypeError(f"{function}: {name}: {error}") from None
    return scalar


# -- shapes -------------------------------------------------------------------


def ravel(x: Array, /) -> Array:
    """``x`` flattened to one dimension, in row-major order.

    A lazy value of ``x``'s buffer where NumPy's ``ravel`` returns a view
    (``x`` is contiguous), a new array otherwise.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.ravel(ca.asarray([[1, 2], [3, 4]]))
    cowarray.Array([1, 2, 3, 4], dtype=int64)
    """
    require_array(x, "x", "ravel")
    return view(x, x._device.backend.xp.ravel)


def _at_least(function: str, target: int, arrays: tuple[Array, ...]) -> Any:
    results = []
    for position, x in enumerate(arrays):
        require_array(x, f"arrays[{position}]", function)
        if x.ndim >= target:
            results.append(lazy_clone(x))
            continue
        results.append(view(x, x._device.backend.xp.reshape, _padded(x.shape, target)))
    return results[0] if len(results) == 1 else tuple(results)


def _padded(shape: tuple[int, ...], target: int) -> tuple[int, ...]:
    """NumPy's atleast_Nd shapes: () -> (1,)*N, (n,) -> (1, n[, 1]), (m, n) -> (m, n, 1)."""
    if not shape:
        return (1,) * target
    if len(shape) == 1:
        return ((1, *shape, 1) if target == 3 else (1, *shape))[:target]
    return (*shape, 1)


def atleast_1d(*arrays: Array) -> Any:
    """Each array with at least one dimension (lazy values).

    Parameters
    ----------
    *arrays : Array

    Returns
    -------
    Array or tuple of Array
        One array for one input, else a tuple; a 0-d array becomes shape ``(1,)``.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.atleast_1d(ca.asarray(3.0))
    cowarray.Array([3.], dtype=float64)
    """
    return _at_least("atleast_1d", 1, arrays)


def atleast_2d(*arrays: Array) -> Any:
    """Each array with at least two dimensions (lazy values); ``(n,)`` becomes ``(1, n)``.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.atleast_2d(ca.asarray([1, 2])).shape
    (1, 2)
    """
    return _at_least("atleast_2d", 2, arrays)


def atleast_3d(*arrays: Array) -> Any:
    """Each array with at least three dimensions (lazy values).

    ``(n,)`` becomes ``(1, n, 1)`` and ``(m, n)`` becomes ``(m, n, 1)``, as in NumPy.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.atleast_3d(ca.asarray([1, 2])).shape
    (1, 2, 1)
    """
    return _at_least("atleast_3d", 3, arrays)


def transpose(a: Array, /, axes: Sequence[int] | None = None) -> Array:
    """``a`` with its axes reversed, or permuted by ``axes`` (a lazy value).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.transpose(ca.zeros((2, 3, 4))).shape
    (4, 3, 2)
    """
    require_array(a, "a", "transpose")
    order = tuple(range(a.ndim))[::-1] if axes is None else tuple(axes)
    return permute_dims(a, order)


def swapaxes(a: Array, axis1: int, axis2: int, /) -> Array:
    """``a`` with axes ``axis1`` and ``axis2`` interchanged (a lazy value).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.swapaxes(ca.zeros((2, 3, 4)), 0, 2).shape
    (4, 3, 2)
    """
    require_array(a, "a", "swapaxes")
    first = normalize_axis(axis1, a.ndim, "axis1")
    second = normalize_axis(axis2, a.ndim, "axis2")
    return view(a, a._device.backend.xp.swapaxes, first, second)


def resize(a: Array, new_shape: int | Sequence[int], /) -> Array:
    """An array of ``new_shape`` filled with ``a``'s elements, repeated as needed.

    ``a`` is read in row-major order and repeated cyclically (NumPy's
    ``resize``, not the in-place method); an empty ``a`` gives zeros.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.resize(ca.asarray([1, 2, 3]), (2, 4))
    cowarray.Array([[1, 2, 3, 1],
                    [2, 3, 1, 2]], dtype=int64)
    """
    require_array(a, "a", "resize")
    shape = normalize_shape(new_shape if isinstance(new_shape, (tuple, list)) else (new_shape,))
    xp = a._device.backend.xp
    total = math.prod(shape)
    if total == 0 or a.size == 0:
        return fresh(xp.zeros(shape, dtype=a.dtype), a._device)
    flat = xp.reshape(a._data, (-1,))
    repeated = xp.tile(flat, (-(-total // a.size),))[:total]
    return may_view(xp.reshape(repeated, shape), a._device, (a,))


def shape(a: Array | Scalar, /) -> tuple[int, ...]:
    """The shape of an Array, or ``()`` for a Python scalar.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.shape(ca.zeros((2, 3)))
    (2, 3)
    """
    checked = _array_or_scalar(a, "shape")
    return checked.shape if type(checked) is Array else ()


def ndim(a: Array | Scalar, /) -> int:
    """The number of dimensions of an Array, or 0 for a Python scalar.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.ndim(ca.zeros((2, 3)))
    2
    """
    return len(shape(a))


def size(a: Array | Scalar, /, axis: int | None = None) -> int:
    """The number of elements of ``a`` (along ``axis`` if given).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.size(ca.zeros((2, 3))), ca.size(ca.zeros((2, 3)), 1)
    (6, 3)
    """
    dims = shape(a)
    if axis is None:
        return math.prod(dims)
    return dims[normalize_axis(axis, len(dims))]


def _array_or_scalar(a: object, function: str) -> Any:
    if type(a) is Array:
        return a
    try:
        normalize_scalar(a)
    except TypeError:
        raise not_an_array(function, "a", a, "a cowarray Array or a Python scalar") from None
    return a


def isscalar(element: object, /) -> bool:
    """Whether ``element`` is a scalar (NumPy's rule): Arrays, even 0-d, are not.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.isscalar(3.0), ca.isscalar(ca.asarray(3.0))
    (True, False)
    """
    if type(element) is Array:
        return False
    return bool(numpy.isscalar(element))


def iterable(y: object, /) -> bool:
    """Whether ``iter(y)`` works; a 0-d Array is not iterable, as in NumPy.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.iterable(ca.asarray([1, 2])), ca.iterable(ca.asarray(1))
    (True, False)
    """
    try:
        iter(y)  # type: ignore[call-overload]
    except TypeError:
        return False
    return True


def copy(a: Array, /) -> Array:
    """A copy of ``a``: a lazy clone, O(1) until one of them is written.

    Examples
    --------
    >>> import cowarray as ca
    >>> x = ca.asarray([1, 2])
    >>> y = ca.copy(x)
    >>> y[0] = 5
    >>> x
    cowarray.Array([1, 2], dtype=int64)
    """
    require_array(a, "a", "copy")
    return lazy_clone(a)


# -- diagonals ------------------------------------------------------------------


def diagonal(a: Array, /, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Array:
    """The ``offset``-th diagonal of ``a`` over ``axis1`` and ``axis2`` (a lazy value).

    NumPy's axes (the first two by default), unlike the standard's
    ``linalg.diagonal`` (the last two). The diagonal is the last axis.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.diagonal(ca.asarray([[1, 2], [3, 4]]))
    cowarray.Array([1, 4], dtype=int64)
    """
    require_array(a, "a", "diagonal")
    if a.ndim < 2:
        raise ValueError(f"diagonal needs at least 2 dimensions, a has shape {a.shape}")
    step = _int(offset, "offset", "diagonal")
    first, second = _two_axes(a, axis1, axis2, "diagonal")
    return view(a, a._device.backend.xp.diagonal, offset=step, axis1=first, axis2=second)


def _two_axes(a: Array, axis1: object, axis2: object, function: str) -> tuple[int, int]:
    first = normalize_axis(axis1, a.ndim, "axis1")
    second = normalize_axis(axis2, a.ndim, "axis2")
    if first == second:
        raise ValueError(f"{function}: axis1 and axis2 must differ, both are {first}")
    return first, second


def diag(v: Array, /, k: int = 0) -> Array:
    """A 2-D array with ``v`` on its ``k``-th diagonal, or the diagonal of a 2-D ``v``.

    Parameters
    ----------
    v : Array
        1-D: the values of the diagonal of a new square array; 2-D: the
        array whose diagonal to take (a lazy value of ``v``).
    k : int, default 0
        The diagonal: above the main one for ``k > 0``, below for ``k < 0``.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.diag(ca.asarray([1, 2]))
    cowarray.Array([[1, 0],
                    [0, 2]], dtype=int64)
    >>> ca.diag(ca.asarray([[1, 2], [3, 4]]), k=1)
    cowarray.Array([2], dtype=int64)
    """
    require_array(v, "v", "diag")
    if v.ndim not in (1, 2):
        raise ValueError(
            f"diag takes a 1-D or 2-D array, v has shape {v.shape}; for a stack of "
            "matrices use linalg.diagonal"
        )
    offset = _int(k, "k", "diag")
    return view(v, v._device.backend.xp.diag, offset)


def identity(n: int, /, dtype: Any = None, *, device: Device | str | None = None) -> Array:
    """The ``n`` by ``n`` identity matrix (``float64`` by default).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.identity(2, dtype=ca.int32)
    cowarray.Array([[1, 0],
                    [0, 1]], dtype=int32)
    """
    return eye(n, dtype=dtype, device=device)


def fill_diagonal(a: Array, val: Array | Scalar, /, wrap: bool = False) -> None:
    """Write ``val`` onto the main diagonal of ``a``, in place (through copy-on-write).

    Like NumPy's, it changes ``a`` and returns None; as for any write in
    cowarray, clones of ``a`` keep their values. ``val`` is repeated along
    the diagonal as needed and cast to ``a``'s dtype under same-kind rules.

    Parameters
    ----------
    a : Array
        At least 2-D; with more than 2 dimensions all must have one length.
    val : Array or Python scalar
    wrap : bool, default False
        For a tall 2-D ``a``, start the diagonal again below every
        ``a.shape[1] + 1`` rows, as NumPy does.

    Examples
    --------
    >>> import cowarray as ca
    >>> a = ca.zeros((2, 3), dtype=ca.int64)
    >>> ca.fill_diagonal(a, 7)
    >>> a
    cowarray.Array([[7, 0, 0],
                    [0, 7, 0]], dtype=int64)
    """
    require_array(a, "a", "fill_diagonal")
    _bool(wrap, "wrap", "fill_diagonal")
    if a.ndim < 2:
        raise ValueError(f"fill_diagonal: a must be at least 2-D, got shape {a.shape}")
    if a.ndim > 2 and len(set(a.shape)) != 1:
        raise ValueError(
            f"fill_diagonal: all dimensions of a must have one length, got shape {a.shape}"
        )
    if a.ndim == 2:
        rows, cols = a.shape
        step, end = cols + 1, (None if wrap else cols * cols)
        flat = range(0, rows * cols if end is None else min(end, rows * cols), step)
    else:
        flat = range(0, a.size, sum(math.prod(a.shape[:i]) for i in range(a.ndim)))
    count = len(flat)
    if count == 0:
        return
    index = tuple(list(axis) for axis in numpy.unravel_index(list(flat), a.shape))
    if type(val) is Array:
        common_device(a, val)
        if val.size == 0:
            return
        values: Any = resize(val, (count,))
    else:
        values = _scalar_for(a.dtype, val, "val", "fill_diagonal")
    a[index] = values


def flatnonzero(a: Array, /) -> Array:
    """The indices of ``a``'s non-zero elements in the flattened array (``int64``).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.flatnonzero(ca.asarray([[0, 3], [4, 0]]))
    cowarray.Array([1, 2], dtype=int64)
    """
    require_array(a, "a", "flatnonzero")
    return may_view(a._device.backend.xp.flatnonzero(a._data), a._device, (a,))


# -- joining and splitting ------------------------------------------------------


def _join(function: str, arrays: Any, target: int, axis: int) -> Array:
    data, device, dtype = _gather(arrays, function)
    xp = device.backend.xp
    shaped = [xp.reshape(d, _padded(d.shape, target)) if d.ndim < target else d for d in data]
    if function == "column_stack":
        shaped = [xp.reshape(d, (-1, 1)) if d.ndim == 1 else d for d in data]
        shaped = [xp.reshape(d, (1, 1)) if d.ndim == 0 else d for d in shaped]
    try:
        joined = xp.concat(shaped, axis=axis, dtype=dtype)
    except ValueError:
        error = _concat_error(tuple(arrays), axis)
        raise ValueError(f"{function}: {str(error).removeprefix('concat: ')}") from None
    return fresh(joined, device)


def hstack(tup: Sequence[Array], /) -> Array:
    """The arrays joined column-wise: along axis 1, or axis 0 for 1-D arrays.

    The dtype is the promotion of the inputs' dtypes (design rule 11).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.hstack([ca.asarray([1, 2]), ca.asarray([3])])
    cowarray.Array([1, 2, 3], dtype=int64)
    """
    data, _, _ = _gather(tup, "hstack")
    return _join("hstack", tup, 1, 0 if data[0].ndim <= 1 else 1)


def vstack(tup: Sequence[Array], /) -> Array:
    """The arrays joined row-wise, 1-D arrays as rows (``atleast_2d``, then axis 0).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.vstack([ca.asarray([1, 2]), ca.asarray([3, 4])])
    cowarray.Array([[1, 2],
                    [3, 4]], dtype=int64)
    """
    return _join("vstack", tup, 2, 0)


def dstack(tup: Sequence[Array], /) -> Array:
    """The arrays joined along a third axis (``atleast_3d``, then axis 2).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.dstack([ca.asarray([1, 2]), ca.asarray([3, 4])]).shape
    (1, 2, 2)
    """
    return _join("dstack", tup, 3, 2)


def column_stack(tup: Sequence[Array], /) -> Array:
    """1-D arrays as the columns of a 2-D array (2-D arrays join as they are).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.column_stack([ca.asarray([1, 2]), ca.asarray([3, 4])])
    cowarray.Array([[1, 3],
                    [2, 4]], dtype=int64)
    """
    return _join("column_stack", tup, 0, 1)


def _split_points(
    function: str, length: int, indices_or_sections: object, equal: bool
) -> list[int]:
    """The boundaries (start, ..., end) of the pieces along an axis of ``length``."""
    if isinstance(indices_or_sections, (tuple, list)):
        cuts = [_int(i, "each index", function) for i in indices_or_sections]
        return [0, *cuts, length]
    if type(indices_or_sections) is Array:
        raise TypeError(
            f"{function}: give the split indices as a list of ints, not an Array "
            "(their values decide the result's structure)"
        )
    sections = _int(indices_or_sections, "indices_or_sections", function)
    if sections <= 0:
        raise ValueError(f"{function}: the number of sections must be positive, got {sections}")
    if equal and length % sections:
        raise ValueError(
            f"split: an axis of length {length} does not divide into {sections} equal "
            "sections; use array_split for unequal ones"
        )
    each, extra = divmod(length, sections)
    sizes = [each + 1] * extra + [each] * (sections - extra)
    points = [0]
    for piece in sizes:
        points.append(points[-1] + piece)
    return points


def _split(function: str, x: Array, indices_or_sections: object, axis: int, equal: bool) -> Any:
    require_array(x, "ary", function)
    if x.ndim == 0:
        raise ValueError(f"{function} needs an array with at least one dimension, ary is 0-d")
    position = normalize_axis(axis, x.ndim)
    points = _split_points(function, x.shape[position], indices_or_sections, equal)
    lead = (slice(None),) * position
    return [x[(*lead, slice(start, stop))] for start, stop in itertools.pairwise(points)]


def split(ary: Array, indices_or_sections: int | Sequence[int], /, axis: int = 0) -> list[Array]:
    """``ary`` cut along ``axis`` into equal sections or at the given indices (lazy values).

    Parameters
    ----------
    ary : Array
    indices_or_sections : int or sequence of int
        A number of sections, which must divide the axis, or the indices
        where the cuts fall (pieces past the end are empty, as in NumPy).
    axis : int, default 0

    Returns
    -------
    list of Array
        Lazy values of ``ary``'s buffer.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.split(ca.arange(6), 3)
    [cowarray.Array([0, 1], dtype=int64), cowarray.Array([2, 3], dtype=int64), cowarray.Array([4, 5], dtype=int64)]
    >>> ca.split(ca.arange(5), [1, 3])
    [cowarray.Array([0], dtype=int64), cowarray.Array([1, 2], dtype=int64), cowarray.Array([3, 4], dtype=int64)]
    """  # noqa: E501
    return _split("split", ary, indices_or_sections, axis, equal=True)  # type: ignore[no-any-return]


def array_split(
    ary: Array, indices_or_sections: int | Sequence[int], /, axis: int = 0
) -> list[Array]:
    """:func:`split`, but a number of sections need not divide the axis.

    The first ``length % sections`` pieces are one element longer.

    Examples
    --------
    >>> import cowarray as ca
    >>> [piece.shape for piece in ca.array_split(ca.arange(5), 3)]
    [(2,), (2,), (1,)]
    """
    return _split("array_split", ary, indices_or_sections, axis, equal=False)  # type: ignore[no-any-return]


def _values_like(arr: Array, values: object, function: str) -> Any:
    """``values`` (an Array or a Python scalar) as backend data, and the result dtype."""
    if type(values) is Array:
        common_device(arr, values)
        return values._data, promote(arr.dtype, values.dtype)
    scalar = _scalar_for(arr.dtype, values, "values", function)
    return arr._device.backend.xp.asarray(scalar, dtype=arr.dtype), arr.dtype


def append(arr: Array, values: Array | Scalar, /, axis: int | None = None) -> Array:
    """``values`` appended to the end of ``arr`` (both flattened if ``axis`` is None).

    The dtype is the promotion of both (design rule 11: NumPy's across
    kinds); a Python scalar ``values`` must fit ``arr``'s kind.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.append(ca.asarray([1, 2]), ca.asarray([[3], [4]]))
    cowarray.Array([1, 2, 3, 4], dtype=int64)
    """
    require_array(arr, "arr", "append")
    data, dtype = _values_like(arr, values, "append")
    xp = arr._device.backend.xp
    if axis is None:
        parts = [xp.reshape(arr._data, (-1,)), xp.reshape(data, (-1,))]
        position = 0
    else:
        position = normalize_axis(axis, arr.ndim)
        if data.ndim != arr.ndim:
            raise ValueError(
                f"append: values has {data.ndim} dimensions, arr has {arr.ndim}; with an "
                "axis they must have the same number"
            )
        parts = [arr._data, data]
    try:
        return fresh(xp.concat(parts, axis=position, dtype=dtype), arr._device)
    except ValueError:
        raise ValueError(
            f"append: values of shape {tuple(data.shape)} does not fit arr of shape "
            f"{arr.shape} off axis {position}"
        ) from None


def _positions(function: str, obj: object, length: int) -> list[int]:
    """``obj`` (an int, a slice, a sequence of ints or booleans) as indices in range."""
    if isinstance(obj, slice):
        return list(range(*obj.indices(length)))
    if type(obj) is Array:
        if obj.ndim != 1 or obj.dtype.kind not in "iub":
            raise TypeError(
                f"{function}: obj must be an int, a slice, or a 1-D integer or boolean "
                f"Array, got an Array of shape {obj.shape} and dtype {obj.dtype}"
            )
        obj = numpy.asarray(obj._device.backend.to_numpy(obj._data)).tolist()
    items = list(obj) if isinstance(obj, (tuple, list)) else [obj]
    if items and all(type(i) is bool for i in items):
        if len(items) != length:
            raise ValueError(
                f"{function}: a boolean obj must have the axis's length {length}, got {len(items)}"
            )
        return [i for i, keep in enumerate(items) if keep]
    return [_int(i, "each index of obj", function) for i in items]


def delete(
    arr: Array, obj: int | slice | Sequence[int] | Array, /, axis: int | None = None
) -> Array:
    """``arr`` without the sub-arrays at ``obj`` along ``axis`` (flattened if None).

    Parameters
    ----------
    arr : Array
    obj : int, slice, sequence of int or bool, or 1-D Array
        The indices to remove (negative ones count from the end), or a mask
        of the axis's length.
    axis : int, optional

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.delete(ca.asarray([[1, 2, 3], [4, 5, 6]]), [0, 2], axis=1)
    cowarray.Array([[2],
                    [5]], dtype=int64)
    """
    require_array(arr, "arr", "delete")
    source, position = _along(arr, axis)
    length = source.shape[position]
    removed = set()
    for index in _positions("delete", obj, length):
        if not -length <= index < length:
            raise IndexError(
                f"delete: index {index} in obj is out of range for axis {position} of length "
                f"{length}; pass indices from {-length} to {length - 1}"
            )
        removed.add(index % length)
    kept = [i for i in range(length) if i not in removed]
    return _take_positions(source, kept, position, (arr,))


def _along(arr: Array, axis: int | None) -> tuple[Any, int]:
    if axis is None:
        return arr._device.backend.xp.reshape(arr._data, (-1,)), 0
    if arr.ndim == 0:
        raise ValueError("an axis was given for a 0-d arr; use axis=None")
    return arr._data, normalize_axis(axis, arr.ndim)


def _take_positions(data: Any, positions: list[int], axis: int, inputs: tuple[Array, ...]) -> Array:
    device = inputs[0]._device
    xp = device.backend.xp
    index = xp.asarray(positions, dtype=xp.int64)
    return may_view(xp.take(data, index, axis=axis), device, inputs)


def insert(
    arr: Array,
    obj: int | slice | Sequence[int],
    values: Array | Scalar,
    /,
    axis: int | None = None,
) -> Array:
    """``values`` inserted into ``arr`` before the indices ``obj`` along ``axis``.

    ``values`` is cast to ``arr``'s dtype (same-kind only: a float into an
    integer array is refused, where NumPy would truncate) and broadcast as
    NumPy does: at a single index the whole of ``values`` goes in; at several
    indices, one slice of it at each.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.insert(ca.asarray([1, 2, 3]), 1, 9)
    cowarray.Array([1, 9, 2, 3], dtype=int64)
    >>> ca.insert(ca.asarray([1, 2, 3]), [0, 3], ca.asarray([7, 8]))
    cowarray.Array([7, 1, 2, 3, 8], dtype=int64)
    """
    require_array(arr, "arr", "insert")
    source, position = _along(arr, axis)
    length = source.shape[position]
    xp = arr._device.backend.xp
    new = _insert_values(arr, values, xp)
    single = not isinstance(obj, (tuple, list, slice, Array))
    indices = _positions("insert", obj, length + 1 if single else length)
    for index in indices:
        if not -length <= index <= length:
            raise IndexError(
                f"insert: index {index} in obj is out of range for axis {position} of length "
                f"{length}; pass indices from {-length} to {length}"
            )
    indices = [i + length if i < 0 else i for i in indices]
    ndim = source.ndim
    new = xp.reshape(new, (1,) * (ndim - new.ndim) + tuple(new.shape)) if new.ndim < ndim else new
    if single or len(indices) == 1:
        if single:
            new = xp.moveaxis(new, 0, position) if new.ndim else new
        count = new.shape[position]
        indices = [indices[0]] * count
    else:
        count = len(indices)
    block = list(source.shape)
    block[position] = count
    try:
        new = xp.broadcast_to(new, tuple(block))
    except ValueError:
        raise ValueError(
            f"insert: values of shape {tuple(new.shape)} cannot fill {count} slices of "
            f"shape {tuple(block)} along axis {position}"
        ) from None
    order = sorted(range(count), key=lambda i: indices[i])
    targets = [0] * count
    for rank, i in enumerate(order):
        targets[i] = indices[i] + rank
    source_of = [-1] * (length + count)
    for i, target in enumerate(targets):
        source_of[target] = length + i
    old = iter(range(length))
    positions = [s if s >= 0 else next(old) for s in source_of]
    joined = xp.concat([source, new], axis=position)
    return _take_positions(joined, positions, position, (arr,))


def _promoted_or_none(arr: Array, values: Array) -> Any:
    try:
        return promote(arr.dtype, values.dtype)
    except TypeError:
        return None


def _insert_values(arr: Array, values: object, xp: Any) -> Any:
    if type(values) is Array:
        common_device(arr, values)
        if values.dtype != arr.dtype and _promoted_or_none(arr, values) != arr.dtype:
            raise TypeError(
                f"insert: values of dtype {values.dtype} cannot be cast to arr's dtype "
                f"{arr.dtype} under same-kind rules; convert them with astype first"
            )
        return xp.astype(values._data, arr.dtype)
    return xp.asarray(_scalar_for(arr.dtype, values, "values", "insert"), dtype=arr.dtype)


# -- pad ------------------------------------------------------------------------

_PAD_KEYWORDS: Final[dict[str, frozenset[str]]] = {
    "constant": frozenset({"constant_values"}),
    "edge": frozenset(),
    "empty": frozenset(),
    "linear_ramp": frozenset({"end_values"}),
    "maximum": frozenset({"stat_length"}),
    "mean": frozenset({"stat_length"}),
    "minimum": frozenset({"stat_length"}),
    "reflect": frozenset({"reflect_type"}),
    "symmetric": frozenset({"reflect_type"}),
    "wrap": frozenset(),
}


def _pairs(value: object, ndim: int, name: str, item: Any) -> tuple[tuple[Any, Any], ...]:
    """NumPy's per-axis ``(before, after)`` pairs from a number, a pair, or pairs."""
    if not isinstance(value, (tuple, list)):
        one = item(value)
        return ((one, one),) * ndim
    entries = list(value)
    if entries and all(not isinstance(e, (tuple, list)) for e in entries):
        if len(entries) == 1:
            return ((item(entries[0]), item(entries[0])),) * ndim
        if len(entries) == 2:
            return ((item(entries[0]), item(entries[1])),) * ndim
        raise ValueError(f"pad: {name} has {len(entries)} entries; give one, a pair, or pairs")
    if len(entries) == 1:
        entries = entries * ndim
    if len(entries) != ndim or any(
        not isinstance(e, (tuple, list)) or len(e) not in (1, 2) for e in entries
    ):
        raise ValueError(
            f"pad: {name} must give one (before, after) pair per axis of the array's {ndim}"
        )
    return tuple((item(e[0]), item(e[-1])) for e in entries)


def pad(
    array: Array, pad_width: int | Sequence[Any], /, mode: str = "constant", **kwargs: Any
) -> Array:
    """``array`` padded by ``pad_width`` on each side of each axis, NumPy's way.

    Parameters
    ----------
    array : Array
    pad_width : int, pair, or sequence of pairs
        How many elements to add (before, after) each axis.
    mode : str, default "constant"
        ``"constant"``, ``"edge"``, ``"linear_ramp"``, ``"maximum"``,
        ``"mean"``, ``"minimum"``, ``"reflect"``, ``"symmetric"``, ``"wrap"``
        or ``"empty"``; NumPy's ``"median"`` and a callable are not supported.
    **kwargs
        ``constant_values`` and ``end_values`` (Python scalars or pairs that
        fit ``array``'s dtype), ``stat_length`` (positive ints or pairs),
        ``reflect_type`` (``"even"`` or ``"odd"``), as the mode takes them.

    Returns
    -------
    Array
        A new array of ``array``'s dtype.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.pad(ca.asarray([1, 2]), (1, 2), constant_values=9)
    cowarray.Array([9, 1, 2, 9, 9], dtype=int64)
    >>> ca.pad(ca.asarray([1, 2, 3]), 2, mode="reflect")
    cowarray.Array([3, 2, 1, 2, 3, 2, 1], dtype=int64)
    """
    require_array(array, "array", "pad")
    if not isinstance(mode, str):
        raise TypeError(f"pad: mode must be a str, got {type(mode).__name__}")
    if mode not in _PAD_KEYWORDS:
        raise ValueError(
            f"pad: mode {mode!r} is not supported; use one of {', '.join(sorted(_PAD_KEYWORDS))}"
        )
    if "out" in kwargs:
        raise out_refused("ca.pad")
    unknown = set(kwargs) - _PAD_KEYWORDS[mode]
    if unknown:
        raise TypeError(f"pad: mode {mode!r} takes no keyword {', '.join(sorted(unknown))}")
    ndim = array.ndim

    def width(value: object) -> int:
        count = _int(value, "pad_width", "pad")
        if count < 0:
            raise ValueError(f"pad: pad_width must not be negative, got {count}")
        return count

    widths = _pairs(pad_width, ndim, "pad_width", width)
    options = _pad_options(array, mode, kwargs)
    for axis, (before, after) in enumerate(widths):
        if array.shape[axis] == 0 and (before or after) and mode not in ("constant", "empty"):
            raise ValueError(
                f"pad: mode {mode!r} cannot extend axis {axis}, which is empty; use mode='constant'"
            )
    if ndim == 0:
        return lazy_clone(array)
    data = array._device.backend.xp.pad(array._data, widths, mode=mode, **options)
    return may_view(data, array._device, (array,))


def _pad_options(array: Array, mode: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    ndim = array.ndim

    def value(v: object) -> Scalar:
        return _scalar_for(array.dtype, v, "the pad values", "pad")

    for key in ("constant_values", "end_values"):
        if key in kwargs:
            options[key] = _pairs(kwargs[key], ndim, key, value)
    if kwargs.get("stat_length") is not None:

        def length(v: object) -> int:
            count = _int(v, "stat_length", "pad")
            if count <= 0:
                raise ValueError(f"pad: stat_length must be positive, got {count}")
            return count

        options["stat_length"] = _pairs(kwargs["stat_length"], ndim, "stat_length", length)
    if "reflect_type" in kwargs:
        if kwargs["reflect_type"] not in ("even", "odd"):
            raise ValueError(
                f"pad: reflect_type must be 'even' or 'odd', got {kwargs['reflect_type']!r}"
            )
        options["reflect_type"] = kwargs["reflect_type"]
    if mode in ("maximum", "minimum", "mean") and 0 in array.shape:
        raise ValueError(f"pad: mode {mode!r} needs a non-empty array")
    return options


# -- unique ---------------------------------------------------------------------


def unique(
    ar: Array,
    /,
    return_index: bool = False,
    return_inverse: bool = False,
    return_counts: bool = False,
    axis: int | None = None,
    *,
    equal_nan: bool = True,
) -> Any:
    """The sorted unique elements of ``ar`` (or sub-arrays along ``axis``), NumPy's way.

    Parameters
    ----------
    ar : Array
    return_index, return_inverse, return_counts : bool
        Also return the index of each unique value's first occurrence, the
        indices that rebuild ``ar`` from the unique values, and the counts.
    axis : int, optional
        Unique sub-arrays along this axis; ``None`` flattens ``ar``.
    equal_nan : bool, default True
        All NaNs count as one value (the standard's ``unique_values`` keeps
        each NaN apart).

    Returns
    -------
    Array or tuple of Array
        The unique values, then the arrays asked for, in that order
        (indices and counts ``int64``).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.unique(ca.asarray([3, 1, 3, 2]))
    cowarray.Array([1, 2, 3], dtype=int64)
    >>> values, counts = ca.unique(ca.asarray([3, 1, 3]), return_counts=True)
    >>> counts
    cowarray.Array([1, 2], dtype=int64)
    """
    require_array(ar, "ar", "unique")
    flags = [
        _bool(flag, name, "unique")
        for flag, name in (
            (return_index, "return_index"),
            (return_inverse, "return_inverse"),
            (return_counts, "return_counts"),
            (equal_nan, "equal_nan"),
        )
    ]
    position = None if axis is None else normalize_axis(axis, ar.ndim)
    xp = ar._device.backend.xp
    data = ar._data
    if data.dtype.kind in "fc":
        data = xp.where(xp.isnan(data), xp.asarray(math.nan, dtype=data.dtype), data)
    if position is not None and ar.ndim == 0:
        raise ValueError("unique: an axis was given for a 0-d ar")
    result = xp.unique(
        data,
        return_index=flags[0],
        return_inverse=flags[1],
        return_counts=flags[2],
        axis=position,
        equal_nan=flags[3],
    )
    parts = result if isinstance(result, tuple) else (result,)
    arrays = [may_view(part, ar._device, (ar,)) for part in parts]
    if flags[1]:
        inverse = 1 + flags[0]
        wanted = ar.shape if position is None else (ar.shape[position],)
        if arrays[inverse].shape != wanted:
            arrays[inverse] = _reshaped(arrays[inverse], wanted)
    return arrays[0] if len(arrays) == 1 else tuple(arrays)


def _reshaped(x: Array, shape: tuple[int, ...]) -> Array:
    return view(x, x._device.backend.xp.reshape, shape)
