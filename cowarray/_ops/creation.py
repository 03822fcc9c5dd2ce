"""Creation functions (Array API standard, "Creation Functions")."""

from __future__ import annotations

import math
from typing import Any, Final, Literal

import numpy as np

from .. import _dlpack, _operators, _tracing
from .._array import Array, fresh
from .._checks import common_device
from .._core import lazy_clone
from .._devices import CPU, Device, as_device
from .._dtypes import (
    ALL_DTYPES,
    DEFAULT_COMPLEX,
    DEFAULT_FLOAT,
    DEFAULT_INT,
    check_scalar,
    default_for_scalar,
    normalize_scalar,
    promote,
    to_dtype,
)
from .._errors import check_int_fits, check_nbytes
from ._args import checked_shape, normalize_shape, require_array
from .data_types import astype

__all__ = [
    "arange",
    "asarray",
    "empty",
    "empty_like",
    "eye",
    "full",
    "full_like",
    "linspace",
    "meshgrid",
    "ones",
    "ones_like",
    "tril",
    "triu",
    "zeros",
    "zeros_like",
]


def _device_or_default(device: object) -> Device:
    if device is None:
        # Inside a function cowarray.transforms traces, the trace's device (as
        # jnp.zeros under jax.jit), so that writing its traced values in works.
        return _tracing.TRACE_DEVICE[0] if _tracing.depth() else CPU
    return as_device(device)


def _dtype_or_none(dtype: object) -> Any:
    return None if dtype is None else to_dtype(dtype)


def _check_supported(data: Any, obj: object) -> None:
    if data.dtype not in ALL_DTYPES:
        huge = _huge_int(obj) if data.dtype.kind == "O" else None
        if huge is not None:
            raise OverflowError(
                f"asarray: obj holds the integer {huge}, which does not fit in int64 or "
                "uint64 (cowarray's widest integers); pass values in that range, or "
                "floats with dtype=float64"
            )
        what = _KIND_WORDS.get(data.dtype.kind, "data")
        raise TypeError(
            f"Unsupported data for asarray: obj ({type(obj).__name__}) holds {what}, read as "
            f"dtype {data.dtype}; "
            "cowarray holds bool, integer, floating and complex data: pass numbers only, "
            "or convert the rest first"
        )


#: What a dtype kind cowarray does not hold means, for the message above.
_KIND_WORDS: Final = {
    "U": "strings",
    "S": "bytes",
    "O": "Python objects",
    "M": "dates",
    "m": "time spans",
    "V": "structured records",
}


def _conversion_message(obj: object, error: Exception) -> str:
    """Why the backend could not convert ``obj``, in cowarray's words."""
    text = str(error)
    if "inhomogeneous" in text or "sequence" in text:
        return (
            f"asarray: obj is a ragged {type(obj).__name__} (its nested sequences have "
            "different lengths); pass rows of equal length"
        )
    return (
        f"asarray: cannot convert obj ({type(obj).__name__}) to an array ({text}); pass "
        "numbers, nested lists of numbers, or an array"
    )


def _huge_int(obj: object) -> int | None:
    """The first Python int in ``obj`` (a scalar or nested lists) outside int64/uint64."""
    if type(obj) is int:
        return obj if not -(2**63) <= obj < 2**64 else None
    if isinstance(obj, (list, tuple)):
        for item in obj:
            found = _huge_int(item)
            if found is not None:
                return found
    return None


def asarray(
    obj: Any,
    /,
    *,
    dtype: Any = None,
    device: Device | str | None = None,
    copy: bool | None = None,
) -> Array:
    """Convert ``obj`` to an Array.

    Parameters
    ----------
    obj : Array, NumPy array, nested sequence, scalar, or buffer
        The values.
    dtype : dtype, optional
        The result's dtype; inferred from ``obj`` when omitted.
    device : Device or str, optional
        Where the result lives. By default ``obj``'s device: an Array's, the
        GPU of a CuPy array or CUDA torch tensor, else ``"cpu"``. Data on
        another device than ``device`` is moved with one copy, as
        :meth:`Array.to_device` moves it. Another library's GPU data comes
        through :func:`from_dlpack`, so its pending writes are ordered first.
    copy : bool, optional
        ``None`` (default): an Array with matching dtype and device is
        returned as is (the same object); anything else is copied into a new
        value. ``True``: always a new value (a lazy clone of an Array, O(1)).
        ``False``: never copy; raises ValueError when a copy is needed. A NumPy
        array imported with ``copy=False`` is *foreign*: the result aliases it,
        and clones of the result copy eagerly.

    Returns
    -------
    Array

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.asarray([[1, 2], [3, 4]], dtype=ca.float32)
    cowarray.Array([[1., 2.],
                    [3., 4.]], dtype=float32)
    >>> x = ca.asarray([1, 2])
    >>> ca.asarray(x) is x
    True
    """
    if copy is not None and type(copy) is not bool:
        raise TypeError(f"copy must be True, False or None, got {copy!r}")
    target_dtype = _dtype_or_none(dtype)
    if type(obj) is Array:
        return _from_array(obj, target_dtype, device, copy)
    placed = _dlpack.device_data_of(obj)
    if placed is None:
        target = _device_or_default(device)
    else:
        # The standard: without device=, an array keeps its device (a CuPy
        # array or a CUDA torch tensor stays on its GPU).
        wanted = _gpu_named_by(placed) if device is None else as_device(device)
        if wanted is None or (wanted.kind, wanted.index, placed[0]) != ("cuda", placed[1], 2):
            return _from_device_data(obj, target_dtype, placed, wanted, copy)
        target = wanted
        if not isinstance(obj, target.backend.array_type):
            return _from_producer(obj, target_dtype, copy)
    backend = target.backend
    if isinstance(obj, backend.array_type):
        return _from_backend_array(obj, target_dtype, target, copy)
    if copy is False:
        try:
            data = backend.asarray(obj, dtype=target_dtype, copy=False)
        except ValueError:
            raise ValueError(
                f"asarray(..., copy=False) cannot make an array from a "
                f"{type(obj).__name__} without copying"
            ) from None
        _check_supported(data, obj)
        return _foreign(data, target)
    if (
        isinstance(obj, (int, float, complex))
        and type(obj) is not bool
        and target_dtype is not None
        and not (target_dtype.kind == "b" and isinstance(obj, int))
    ):
        # A bool converts to any dtype (as 0 or 1) and an int to bool (as
        # NumPy and array-api-strict do: asarray(1, dtype=bool) is True);
        # other scalars must fit the dtype's kind.
        check_scalar(target_dtype, obj, "obj")
        check_int_fits(obj, target_dtype, "obj")
    try:
        data = backend.asarray(obj, dtype=target_dtype)
    except (ValueError, TypeError) as error:
        raise type(error)(_conversion_message(obj, error)) from None
    except OverflowError:
        raise OverflowError(
            f"asarray: a value in obj does not fit in {target_dtype or 'int64'}; pass values "
            "in the dtype's range (see iinfo) or use a wider dtype"
        ) from None
    _check_supported(data, obj)
    if backend.memory_owner(data) is not data:
        # a view of someone's buffer (bytes, memoryview, a torch tensor, ...):
        # take a copy, an import's copy that must be seen (design rule 9)
        return _dlpack.copied_import(fresh(backend.copy(data), target))
    if target.kind != "cpu" and (
        isinstance(obj, CPU.backend.array_type) or hasattr(obj, "__dlpack__")
    ):
        # host array memory (a NumPy array, a CPU tensor) moved onto a GPU: a copy
        return _dlpack.copied_import(fresh(data, target))
    return fresh(data, target)


def _gpu_named_by(placed: tuple[int, int]) -> Device | None:
    kind, index = placed
    return Device("cuda", index) if kind == 2 else None  # 2: DLPack's kDLCUDA


def _from_device_data(
    obj: object, dtype: Any, placed: tuple[int, int], target: Device | None, copy: bool | None
) -> Array:
    # Device data asked for elsewhere: moved by the backend when it is that
    # backend's own kind of array (a CuPy array of another GPU), else through
    # DLPack: a host copy made by the producer, or an import on its GPU (with
    # the stream handshake) moved on to the target.
    if target is None:  # a device cowarray has no backend for: from_dlpack says so
        return _with_dtype(_dlpack.from_dlpack(obj), dtype)
    if copy is False:
        source = f"cuda:{placed[1]}" if placed[0] == 2 else f"DLPack device {placed}"
        raise ValueError(
            f"asarray(..., device={str(target)!r}, copy=False): the data is on {source}; "
            f"moving it to {target} needs a copy"
        )
    backend = target.backend
    if target.kind == "cuda" and isinstance(obj, backend.array_type):
        data = backend.asarray(obj, dtype=dtype, copy=True)
        _check_supported(data, obj)
        return _dlpack.copied_import(fresh(data, target))  # a move: seen
    return _with_dtype(_dlpack.from_dlpack(obj, device=target), dtype)


def _from_producer(obj: object, dtype: Any, copy: bool | None) -> Array:
    # Another library's GPU data on its own GPU (a CUDA torch tensor) comes
    # through DLPack, whose stream handshake orders the producer's pending
    # writes before cowarray reads (torch's __cuda_array_interface__ does not).
    try:
        array = _dlpack.from_dlpack(obj, copy=True if copy is None else copy)
    except BufferError as error:
        if copy is not False:
            raise
        raise ValueError(
            f"asarray(..., copy=False) cannot alias this {type(obj).__name__}: {error}"
        ) from None
    if copy is False and dtype is not None and dtype != array.dtype:
        raise ValueError(f"asarray(..., copy=False) cannot convert {array.dtype} to {dtype}")
    return _with_dtype(array, dtype)


def _with_dtype(array: Array, dtype: Any) -> Array:
    if dtype is None or dtype == array.dtype:
        return array
    return astype(array, dtype)


def _from_array(obj: Array, dtype: Any, device: object, copy: bool | None) -> Array:
    same_dtype = dtype is None or dtype == obj.dtype
    target = obj._device if device is None else as_device(device)
    if same_dtype and target is obj._device:
        return lazy_clone(obj) if copy else obj
    if copy is False:
        raise ValueError(
            "asarray(x, copy=False) cannot change "
            + ("dtype" if not same_dtype else "device")
            + " without copying"
        )
    return _with_dtype(obj if target is obj._device else obj.to_device(target), dtype)


def _from_backend_array(data: Any, dtype: Any, device: Device, copy: bool | None) -> Array:
    backend = device.backend
    _check_supported(data, data)
    if copy is False:
        if dtype is not None and dtype != data.dtype:
            raise ValueError(f"asarray(..., copy=False) cannot convert {data.dtype} to {dtype}")
        return _foreign(data, device)
    array = fresh(backend.asarray(data, dtype=dtype, copy=True), device)
    if dtype is None or dtype == data.dtype:
        return _dlpack.copied_import(array)  # an import's copy: seen (design rule 9)
    return array  # a conversion computes new values: not a copy, as astype is not


def _foreign(data: Any, device: Device) -> Array:
    # asarray(..., copy=False) of memory cowarray does not own: the same rules
    # as from_dlpack, so a second alias of an exposed or foreign buffer is
    # refused. The import enters its memory before it checks the others, so
    # of two at once (threads, a gc callback) at most one aliases it, and
    # both may be refused (each sees the other's entry): never two aliases.
    try:
        return _dlpack.import_zero_copy(data, device, copy_allowed=False)
    except BufferError:
        raise ValueError(
            "asarray(..., copy=False): this memory lies inside a cowarray buffer (exported "
            "or imported already); a second zero-copy alias would let one cowarray value "
            "change another, so it must be copied (use copy=None)"
        ) from None


def _scalar_argument(
    value: object, name: str, kinds: str = "bool, int, float or complex"
) -> bool | int | float | complex:
    """``value`` as a Python scalar; a TypeError naming the argument otherwise."""
    try:
        return normalize_scalar(value)
    except TypeError:
        raise TypeError(f"{name} must be a Python {kinds}, got {type(value).__name__}") from None


_FILL_KINDS: Final = "bool, int, float or complex, or a 0-d array of one"


def _fill_argument(
    fill_value: object, dtype: Any
) -> tuple[bool | int | float | complex, Any, Device | None]:
    """``full``'s value as a Python scalar, the dtype to fill, and the device
    of a 0-d Array given as the value (None otherwise).

    A Python scalar gives the default dtype of its kind; a 0-d Array, a 0-d
    NumPy array or a NumPy scalar gives its own dtype, as in NumPy
    (``full(3, asarray(2, dtype=int8))`` is int8). With ``dtype=`` a scalar
    must fit the dtype's kind (the standard's rule) and a 0-d array must cast
    to it within its kind (as a write ``x[...] = value`` must).
    """
    source: Any = None
    home: Device | None = None
    if type(fill_value) is Array or isinstance(fill_value, (np.ndarray, np.generic)):
        if fill_value.ndim != 0:
            raise TypeError(
                f"fill_value must be a scalar or a 0-d array, got an array of shape "
                f"{fill_value.shape}; to fill with an array use broadcast_to(value, shape)"
            )
        if fill_value.dtype in ALL_DTYPES:
            source = fill_value.dtype
            if type(fill_value) is Array:
                home = fill_value._device
                value = fill_value._data.item()
            else:
                value = normalize_scalar(fill_value.item())
        else:
            value = _scalar_argument(fill_value, "fill_value", _FILL_KINDS)  # its TypeError
    else:
        value = _scalar_argument(fill_value, "fill_value", _FILL_KINDS)
    if dtype is None:
        resolved = source if source is not None else default_for_scalar(value)
    elif source is None or isinstance(fill_value, np.generic):
        check_scalar(dtype, value, "fill_value")
        resolved = dtype
    elif np.can_cast(source, dtype, casting="same_kind"):
        resolved = dtype
    else:
        raise TypeError(
            f"fill_value: a 0-d {source} array cannot fill an array of dtype {dtype} "
            f"without losing information; convert it first with astype(value, {dtype})"
        )
    return value, resolved, home


def empty(
    shape: int | tuple[int, ...], *, dtype: Any = None, device: Device | str | None = None
) -> Array:
    """A new array of the given shape whose values are unspecified.

    Parameters
    ----------
    shape : int or tuple of int
        The dimensions.
    dtype : dtype, optional
        Default ``float64``.
    device : Device or str, optional
        Default ``"cpu"``.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.empty((2, 3)).shape
    (2, 3)
    """
    resolved = _dtype_or_none(dtype) or DEFAULT_FLOAT
    dims = checked_shape(shape, resolved, "empty")
    target = _device_or_default(device)
    data = target.backend.xp.empty(dims, dtype=resolved)
    return fresh(data, target)


def zeros(
    shape: int | tuple[int, ...], *, dtype: Any = None, device: Device | str | None = None
) -> Array:
    """A new array of zeros.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.zeros(3)
    cowarray.Array([0., 0., 0.], dtype=float64)
    """
    resolved = _dtype_or_none(dtype) or DEFAULT_FLOAT
    dims = checked_shape(shape, resolved, "zeros")
    target = _device_or_default(device)
    data = target.backend.xp.zeros(dims, dtype=resolved)
    return fresh(data, target)


def ones(
    shape: int | tuple[int, ...], *, dtype: Any = None, device: Device | str | None = None
) -> Array:
    """A new array of ones.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.ones((2,), dtype=ca.int8)
    cowarray.Array([1, 1], dtype=int8)
    """
    resolved = _dtype_or_none(dtype) or DEFAULT_FLOAT
    dims = checked_shape(shape, resolved, "ones")
    target = _device_or_default(device)
    data = target.backend.xp.ones(dims, dtype=resolved)
    return fresh(data, target)


def full(
    shape: int | tuple[int, ...],
    fill_value: bool | int | float | complex | Array,
    *,
    dtype: Any = None,
    device: Device | str | None = None,
) -> Array:
    """A new array filled with ``fill_value``.

    ``fill_value`` is a Python or NumPy scalar, or a 0-d array (a cowarray
    Array or a NumPy array), as NumPy accepts. The dtype defaults to the
    default dtype of a Python scalar's kind (bool, int64, float64 or
    complex128), or to the dtype of a 0-d array or NumPy scalar; the device,
    to a 0-d Array's own.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.full((2, 2), 7)
    cowarray.Array([[7, 7],
                    [7, 7]], dtype=int64)
    """
    value, resolved, home = _fill_argument(fill_value, _dtype_or_none(dtype))
    check_int_fits(value, resolved, "fill_value")
    dims = checked_shape(shape, resolved, "full")
    target = home if device is None and home is not None else _device_or_default(device)
    data = target.backend.xp.full(dims, value, dtype=resolved)
    return fresh(data, target)


def _like_args(x: Array, dtype: Any, device: object, function: str) -> tuple[Any, Device]:
    require_array(x, "x", function)
    resolved = x.dtype if dtype is None else to_dtype(dtype)
    return resolved, x._device if device is None else as_device(device)


def empty_like(x: Array, /, *, dtype: Any = None, device: Device | str | None = None) -> Array:
    """A new array with ``x``'s shape (and by default dtype and device), unset values.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.empty_like(ca.ones((2, 1), dtype=ca.int32)).dtype
    dtype('int32')
    """
    resolved, target = _like_args(x, dtype, device, "empty_like")
    return empty(x.shape, dtype=resolved, device=target)


def zeros_like(x: Array, /, *, dtype: Any = None, device: Device | str | None = None) -> Array:
    """A new array of zeros with ``x``'s shape (and by default dtype and device).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.zeros_like(ca.asarray([1, 2]))
    cowarray.Array([0, 0], dtype=int64)
    """
    resolved, target = _like_args(x, dtype, device, "zeros_like")
    return zeros(x.shape, dtype=resolved, device=target)


def ones_like(x: Array, /, *, dtype: Any = None, device: Device | str | None = None) -> Array:
    """A new array of ones with ``x``'s shape (and by default dtype and device).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.ones_like(ca.asarray([1.5, 2.5]))
    cowarray.Array([1., 1.], dtype=float64)
    """
    resolved, target = _like_args(x, dtype, device, "ones_like")
    return ones(x.shape, dtype=resolved, device=target)


def full_like(
    x: Array,
    /,
    fill_value: bool | int | float | complex | Array,
    *,
    dtype: Any = None,
    device: Device | str | None = None,
) -> Array:
    """A new array with ``x``'s shape filled with ``fill_value``.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.full_like(ca.zeros(2), 3.5)
    cowarray.Array([3.5, 3.5], dtype=float64)
    """
    resolved, target = _like_args(x, dtype, device, "full_like")
    return full(x.shape, fill_value, dtype=resolved, device=target)


def _real_scalar(value: object, name: str) -> int | float:
    """An ``arange`` bound or step: a real Python or NumPy scalar, or a 0-d Array."""
    scalar = _bound_argument(value, name, "int or float (or a 0-d array)")
    if isinstance(scalar, complex):
        raise TypeError(f"{name} must be a Python int or float, got {value!r}")
    return scalar


def arange(
    start: int | float,
    /,
    stop: int | float | None = None,
    step: int | float = 1,
    *,
    dtype: Any = None,
    device: Device | str | None = None,
) -> Array:
    """Evenly spaced values in the half-open interval ``[start, stop)``.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.arange(5)
    cowarray.Array([0, 1, 2, 3, 4], dtype=int64)
    >>> ca.arange(1.0, 2.0, 0.25)
    cowarray.Array([1.  , 1.25, 1.5 , 1.75], dtype=float64)
    """
    begin, stride = _real_scalar(start, "start"), _real_scalar(step, "step")
    end = None if stop is None else _real_scalar(stop, "stop")
    if stride == 0:
        raise ValueError("arange: step must not be zero; pass a positive or negative step")
    values = [begin, stride] if end is None else [begin, stride, end]
    resolved = _dtype_or_none(dtype)
    if resolved is None:
        resolved = DEFAULT_INT if all(type(v) is int for v in values) else DEFAULT_FLOAT
    target = _device_or_default(device)
    first, last = (0, begin) if end is None else (begin, end)
    span = (last - first) / stride
    if span == span and span > 0:  # not NaN: the result's length, at most 2**70
        check_nbytes((math.ceil(min(span, 2.0**70)),), resolved.itemsize, "arange", "length")
    data = target.backend.xp.arange(first, last, stride, dtype=resolved)
    return fresh(data, target)


def linspace(
    start: int | float | complex,
    stop: int | float | complex,
    /,
    num: int,
    *,
    dtype: Any = None,
    device: Device | str | None = None,
    endpoint: bool = True,
) -> Array:
    """``num`` evenly spaced values from ``start`` to ``stop``.

    ``start`` and ``stop`` are scalars or 0-d arrays (with ``device`` None,
    the result goes to such an array's device). An integer ``dtype`` spaces
    the values in float64 and rounds them towards -inf, as NumPy does; the
    default is float64, or complex128 for complex bounds.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.linspace(0, 1, 5)
    cowarray.Array([0.  , 0.25, 0.5 , 0.75, 1.  ], dtype=float64)
    """
    first, last = _bound_argument(start, "start"), _bound_argument(stop, "stop")
    (count,) = normalize_shape(num, "num")
    check_nbytes((count,), 16, "linspace", "num")
    if type(endpoint) is not bool:
        raise TypeError(f"endpoint must be a bool, got {type(endpoint).__name__}")
    resolved = _dtype_or_none(dtype)
    is_complex = isinstance(first, complex) or isinstance(last, complex)
    if resolved is None:
        resolved = DEFAULT_COMPLEX if is_complex else DEFAULT_FLOAT
    elif resolved.kind not in "iufc" or (is_complex and resolved.kind != "c"):
        raise TypeError(
            f"linspace needs a numeric dtype that holds its bounds, got {resolved}"
            + ("; use a complex dtype for complex bounds" if is_complex else "")
        )
    if device is None:
        bounds: tuple[object, ...] = (start, stop)
        device = next((b.device for b in bounds if isinstance(b, Array)), None)
    target = _device_or_default(device)
    xp = target.backend.xp
    if resolved.kind in "iu":
        # As NumPy: spaced in float64, then rounded towards -inf.
        spaced = xp.linspace(first, last, count, dtype=DEFAULT_FLOAT, endpoint=endpoint)
        return fresh(xp.astype(xp.floor(spaced), resolved), target)
    data = xp.linspace(first, last, count, dtype=resolved, endpoint=endpoint)
    return fresh(data, target)


def _bound_argument(
    value: object, name: str, kinds: str = "bool, int, float or complex"
) -> bool | int | float | complex:
    """A bound of ``linspace`` or ``arange``: a Python or NumPy scalar, or a 0-d
    Array (SciPy passes those, as NumPy allows)."""
    if type(value) is Array:
        if value.ndim != 0:
            raise TypeError(f"{name} must be a scalar or a 0-d array, got shape {value.shape}")
        return value._data.item()  # type: ignore[no-any-return]
    return _scalar_argument(value, name, kinds)


def eye(
    n_rows: int,
    n_cols: int | None = None,
    /,
    *,
    k: int = 0,
    dtype: Any = None,
    device: Device | str | None = None,
) -> Array:
    """A 2-D array with ones on the ``k``-th diagonal and zeros elsewhere.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.eye(2, 3, k=1, dtype=ca.int8)
    cowarray.Array([[0, 1, 0],
                    [0, 0, 1]], dtype=int8)
    """
    (rows,) = normalize_shape(n_rows, "n_rows")
    (cols,) = normalize_shape(rows if n_cols is None else n_cols, "n_cols")
    if isinstance(k, bool) or not isinstance(k, int):
        raise TypeError(f"k must be an integer, got {type(k).__name__}; pass an int")
    resolved = _dtype_or_none(dtype) or DEFAULT_FLOAT
    check_nbytes((rows, cols), resolved.itemsize, "eye", "shape (n_rows, n_cols)")
    target = _device_or_default(device)
    data = target.backend.xp.eye(rows, cols, k=k, dtype=resolved)
    return fresh(data, target)


def meshgrid(*arrays: Array, indexing: Literal["xy", "ij"] = "xy") -> tuple[Array, ...]:
    """Coordinate matrices from 1-D coordinate vectors.

    Examples
    --------
    >>> import cowarray as ca
    >>> xs, ys = ca.meshgrid(ca.arange(3), ca.arange(2))
    >>> xs
    cowarray.Array([[0, 1, 2],
                    [0, 1, 2]], dtype=int64)
    """
    if indexing not in ("xy", "ij"):
        raise ValueError(f"indexing must be 'xy' or 'ij', got {indexing!r}")
    for position, array in enumerate(arrays):
        require_array(array, f"arrays[{position}]", "meshgrid")
        if array.ndim != 1:
            raise ValueError(
                f"meshgrid takes 1-D arrays, arrays[{position}] has shape {array.shape}"
            )
    if not arrays:
        return ()
    device = common_device(*arrays)
    dtype = arrays[0].dtype
    for array in arrays[1:]:
        dtype = promote(dtype, array.dtype)
    grids = device.backend.xp.meshgrid(
        *(a._data.astype(dtype, copy=False) for a in arrays), indexing=indexing
    )
    return tuple(fresh(device.backend.copy(g), device) for g in grids)


def _triangle(name: str, x: Array, k: int) -> Array:
    require_array(x, "x", name)
    if x.ndim < 2:
        raise ValueError(
            f"{name} needs an array with at least 2 dimensions, got x of shape {x.shape}; "
            "pass a matrix or a stack of matrices"
        )
    if isinstance(k, bool) or not isinstance(k, int):
        raise TypeError(f"k must be an integer, got {type(k).__name__}")
    return fresh(getattr(x._device.backend.xp, name)(x._data, k=k), x._device)


def tril(x: Array, /, *, k: int = 0) -> Array:
    """The lower triangle of ``x`` (its last two axes); above diagonal ``k`` is zero.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.tril(ca.ones((2, 2), dtype=ca.int8))
    cowarray.Array([[1, 0],
                    [1, 1]], dtype=int8)
    """
    return _triangle("tril", x, k)


def triu(x: Array, /, *, k: int = 0) -> Array:
    """The upper triangle of ``x`` (its last two axes); below diagonal ``k`` is zero.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.triu(ca.ones((2, 2), dtype=ca.int8))
    cowarray.Array([[1, 1],
                    [0, 1]], dtype=int8)
    """
    return _triangle("triu", x, k)


_operators.bind_list_conversion(asarray)  # (x += [1, 2]: the operators lie below this module)
