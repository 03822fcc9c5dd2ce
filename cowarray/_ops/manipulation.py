"""Manipulation functions (Array API standard, "Manipulation Functions").

Most of these return views on the backend; :func:`cowarray._array.may_view` makes
each such view a new holder of its input's buffer, so they are O(1) values.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._array import Array, fresh
from .._checks import common_device
from .._core import lazy_clone, may_view, reshape_view, view
from .._devices import Device
from .._dtypes import promote
from .._errors import out_refused
from ._args import normalize_axes, normalize_axis, normalize_shape, require_array
from ._out import write_out

__all__ = [
    "broadcast_arrays",
    "broadcast_shapes",
    "broadcast_to",
    "concat",
    "expand_dims",
    "flip",
    "moveaxis",
    "permute_dims",
    "repeat",
    "reshape",
    "roll",
    "squeeze",
    "stack",
    "tile",
    "unstack",
]


def reshape(
    x: Array, /, shape: tuple[int, ...], *, copy: bool | None = None, out: None = None
) -> Array:
    """``x``'s values in a new shape (one entry may be -1).

    Parameters
    ----------
    x : Array
    shape : tuple of int
    copy : bool, optional
        ``False`` raises ValueError when the new shape cannot view ``x``'s
        memory; ``None`` and ``True`` always succeed. Either way the result is
        a value: it shares ``x``'s buffer lazily when it can.
    out : None
        Only ``None``: the result is a new value (the one hint policy's
        ``out=`` answer, taken here rather than by a wrapper, which would
        cost this common call a fifth of its time).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.reshape(ca.arange(6), (2, -1))
    cowarray.Array([[0, 1, 2],
                    [3, 4, 5]], dtype=int64)
    """
    if out is not None:
        raise out_refused("ca.reshape")
    if copy is None and type(shape) is tuple and type(x) is Array:
        # The common call, a tuple and no copy=: one backend call and the view
        # joined inline, if the backend takes the shape as given (else the
        # full path below decides, and says what was wrong).
        viewed = reshape_view(x, shape)
        if viewed is not None:
            return viewed
    require_array(x, "x", "reshape")
    if copy is not None and type(copy) is not bool:
        raise TypeError(f"copy must be True, False or None, got {copy!r}")
    if type(shape) is not tuple or any(type(d) is int and d < -1 for d in shape):
        shape = _shape_with_placeholder(shape)
    try:
        return view(x, x._device.backend.xp.reshape, shape, copy=copy)
    except (ValueError, TypeError):
        raise _reshape_error(x, _shape_with_placeholder(shape), copy) from None


def _subscript(data: Any, key: Any) -> Any:
    return data[key]


def _shape_with_placeholder(shape: object) -> tuple[int, ...]:
    entries = shape if isinstance(shape, (tuple, list)) else (shape,)
    return tuple(-1 if d == -1 else normalize_shape(d, "each entry of shape")[0] for d in entries)


def _reshape_error(x: Array, shape: tuple[int, ...], copy: bool | None) -> ValueError:
    if shape.count(-1) > 1:
        return ValueError(f"shape {shape} may contain at most one -1")
    if any(d < -1 for d in shape):
        return ValueError(f"shape {shape} has a negative entry other than -1")
    known = 1
    for d in shape:
        known *= d if d != -1 else 1
    fits = known == x.size if -1 not in shape else (known != 0 and x.size % known == 0)
    if not fits:
        return ValueError(
            f"cannot reshape an array of size {x.size} (shape {x.shape}) into {shape}"
        )
    return ValueError(
        f"reshape(copy={copy}): shape {x.shape} cannot be viewed as {shape} "
        "without copying (the array is not contiguous)"
    )


def permute_dims(x: Array, /, axes: tuple[int, ...]) -> Array:
    """``x`` with its axes reordered (a lazy value, O(1)).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.permute_dims(ca.zeros((2, 3, 4)), (2, 0, 1)).shape
    (4, 2, 3)
    """
    require_array(x, "x", "permute_dims")
    if not isinstance(axes, (tuple, list)):
        raise TypeError(f"axes must be a tuple of ints, got {type(axes).__name__}")
    normalized = normalize_axes(tuple(axes), x.ndim, "axes") or ()
    if len(normalized) != x.ndim:
        raise ValueError(
            f"axes must list each of the array's {x.ndim} axes once, got {tuple(axes)}"
        )
    return view(x, x._device.backend.xp.permute_dims, normalized)


def expand_dims(x: Array, /, axis: int | tuple[int, ...]) -> Array:
    """``x`` with new axes of length one at ``axis`` (a lazy value, O(1)).

    Parameters
    ----------
    x : Array
    axis : int or tuple of int
        Positions of the new axes in the result, in ``[-M, M)`` where ``M``
        is ``x.ndim`` plus the number of new axes; IndexError outside.

    Returns
    -------
    Array
        A lazy value viewing ``x``'s buffer.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.expand_dims(ca.arange(3), axis=-1).shape
    (3, 1)
    >>> ca.expand_dims(ca.arange(3), axis=(0, 2)).shape
    (1, 3, 1)
    """
    require_array(x, "x", "expand_dims")
    count = len(axis) if isinstance(axis, tuple) else 1
    positions = normalize_axes(axis, x.ndim + count) or ()
    return view(x, x._device.backend.xp.expand_dims, positions)


def squeeze(x: Array, /, axis: int | tuple[int, ...]) -> Array:
    """``x`` without the given axes, which must have length one (a lazy value).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.squeeze(ca.zeros((1, 3, 1)), axis=(0, 2)).shape
    (3,)
    """
    require_array(x, "x", "squeeze")
    axes = normalize_axes(axis, x.ndim) or ()
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(f"cannot squeeze axis {a}: it has length {x.shape[a]}, not 1")
    return view(x, x._device.backend.xp.squeeze, axis=axes)


def flip(x: Array, /, *, axis: int | tuple[int, ...] | None = None) -> Array:
    """``x`` with the order of elements reversed along ``axis`` (all by default).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.flip(ca.arange(4))
    cowarray.Array([3, 2, 1, 0], dtype=int64)
    """
    require_array(x, "x", "flip")
    axes = normalize_axes(axis, x.ndim)
    return view(x, x._device.backend.xp.flip, axis=axes)


def broadcast_to(x: Array, /, shape: tuple[int, ...]) -> Array:
    """``x`` broadcast to ``shape`` (a lazy value; a write expands it first).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.broadcast_to(ca.asarray([1, 2]), (2, 2))
    cowarray.Array([[1, 2],
                    [1, 2]], dtype=int64)
    """
    require_array(x, "x", "broadcast_to")
    dims = normalize_shape(shape)
    try:
        return view(x, x._device.backend.xp.broadcast_to, dims)
    except ValueError:
        raise ValueError(f"cannot broadcast an array of shape {x.shape} to {dims}") from None


def _array_sequence(arrays: object, function: str) -> tuple[Array, ...]:
    if not isinstance(arrays, (tuple, list)):
        raise TypeError(
            f"{function} takes a tuple or list of Arrays, got {type(arrays).__name__}; "
            "pass [x, y, ...]"
        )
    if not arrays:
        raise ValueError(f"{function} needs at least one array in arrays; pass a non-empty list")
    for position, array in enumerate(arrays):
        require_array(array, f"arrays[{position}]", function)
    return tuple(arrays)


def _gather(arrays: Any, function: str) -> tuple[list[Any], Device, Any]:
    """The arrays' backend data, their one device, and None or the promoted dtype.

    One tight pass, since joining small arrays is dominated by these checks;
    anything unusual is handed to the full checks for their messages.
    """
    kind = type(arrays)
    if (kind is not list and kind is not tuple) or not arrays:
        _array_sequence(arrays, function)
    first = arrays[0]
    if type(first) is not Array:
        _array_sequence(arrays, function)
    device = first._device
    dtype = first._data.dtype
    data = []
    mixed = False
    for array in arrays:
        if type(array) is not Array:
            _array_sequence(arrays, function)
        if array._device is not device:
            common_device(first, array)
        values = array._data
        if values.dtype is not dtype:
            mixed = True
        data.append(values)
    return data, device, _common_dtype(arrays) if mixed else None


def _concat_error(inputs: Sequence[Array], axis: int | None) -> ValueError:
    first = inputs[0]
    for i, array in enumerate(inputs):
        if array.ndim != first.ndim:
            return ValueError(
                f"concat: arrays[{i}] has {array.ndim} dimensions, arrays[0] has {first.ndim}; "
                "the arrays must have the same number of dimensions"
            )
        if any(array.shape[k] != first.shape[k] for k in range(first.ndim) if k != axis):
            return ValueError(
                f"concat: arrays[{i}] has shape {array.shape}, which does not match "
                f"arrays[0]'s {first.shape} off axis {axis}; every array must have the "
                f"same length on every axis but {axis}"
            )
    return ValueError(f"concat: cannot join arrays of shapes {[a.shape for a in inputs]}")


def _common_dtype(arrays: Sequence[Array]) -> Any:
    dtype = arrays[0].dtype
    for array in arrays[1:]:
        dtype = promote(dtype, array.dtype)
    return dtype


def broadcast_shapes(*shapes: tuple[int | None, ...]) -> tuple[int | None, ...]:
    """The shape that ``shapes`` broadcast to under the standard's rules.

    Parameters
    ----------
    *shapes : tuple of int
        Any number of shapes; none gives ``()``. A ``None`` entry (unknown
        size) propagates to the result.

    Returns
    -------
    tuple of int

    Raises
    ------
    ValueError
        If two shapes are not broadcast compatible.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.broadcast_shapes((2, 1), (3,), (1, 1, 1))
    (1, 2, 3)
    """
    result: list[int | None] = []
    for position, shape in enumerate(shapes):
        if not isinstance(shape, (tuple, list)):
            raise TypeError(
                f"broadcast_shapes: shapes[{position}] must be a tuple of ints, "
                f"got {type(shape).__name__}"
            )
        dims = [d if d is None else normalize_shape(d, f"shapes[{position}]")[0] for d in shape]
        if len(dims) > len(result):
            padding: list[int | None] = [1] * (len(dims) - len(result))
            result = padding + result
        offset = len(result) - len(dims)
        for i, d in enumerate(dims):
            current = result[offset + i]
            if current is None or d is None:
                result[offset + i] = None if d != 0 and current != 0 else 0
            elif current == 1:
                result[offset + i] = d
            elif d != 1 and d != current:
                raise ValueError(
                    f"shapes {tuple(shapes)} cannot be broadcast together: "
                    f"{current} and {d} differ on axis {offset + i - len(result)}"
                )
    return tuple(result)


def broadcast_arrays(*arrays: Array) -> tuple[Array, ...]:
    """The arrays broadcast against each other (lazy values, O(1) each).

    Parameters
    ----------
    *arrays : Array
        Arrays on one device whose shapes broadcast together.

    Returns
    -------
    tuple of Array
        One array per input, each of the broadcast shape, each a lazy value
        that views its input's buffer (a write expands it first).

    Examples
    --------
    >>> import cowarray as ca
    >>> a, b = ca.broadcast_arrays(ca.asarray([1, 2]), ca.asarray([[0], [10]]))
    >>> a
    cowarray.Array([[1, 2],
                    [1, 2]], dtype=int64)
    >>> b.shape
    (2, 2)
    """
    for position, array in enumerate(arrays):
        require_array(array, f"arrays[{position}]", "broadcast_arrays")
    if not arrays:
        return ()
    device = common_device(*arrays)
    shape = broadcast_shapes(*(a.shape for a in arrays))
    xp = device.backend.xp
    return tuple(view(a, xp.broadcast_to, shape) for a in arrays)


def concat(
    arrays: tuple[Array, ...] | list[Array],
    /,
    *,
    axis: int | None = 0,
    out: Array | None = None,
    casting: str = "same_kind",
) -> Array:
    """The arrays joined along an existing axis (flattened first if ``axis`` is None).

    The dtype is the promotion of the inputs' dtypes (design rule 11: the
    standard's table within a kind, NumPy 2's result across kinds).

    Parameters
    ----------
    arrays : tuple or list of Array
        At least one array; all on one device, of one number of dimensions,
        with equal sizes off ``axis``.
    axis : int or None, default 0
        The axis to join along; ``None`` flattens every array first.
    out : Array, optional
        An Array of the result's shape to write the result into, through
        copy-on-write (NumPy's ``out=``). Keyword-only.
    casting : str, default "same_kind"
        NumPy's rule for casting the result into ``out`` (``"no"``,
        ``"equiv"``, ``"safe"``, ``"same_kind"``, ``"unsafe"``); used with
        ``out`` only.

    Returns
    -------
    Array
        A new array (``out`` itself with ``out=``).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.concat([ca.asarray([1, 2]), ca.asarray([3])])
    cowarray.Array([1, 2, 3], dtype=int64)
    >>> ca.concat((ca.ones((1, 2)), ca.zeros((1, 2))), axis=None)
    cowarray.Array([1., 1., 0., 0.], dtype=float64)
    """
    if out is not None:
        return write_out(out, concat(arrays, axis=axis), "concat", casting, casting_given=True)
    data, device, dtype = _gather(arrays, "concat")
    if axis is not None:
        ndim = data[0].ndim
        if ndim == 0:
            raise ValueError("concat cannot join 0-dimensional arrays; use stack")
        if type(axis) is not int or not 0 <= axis < ndim:
            axis = normalize_axis(axis, ndim)
    try:
        joined = device.backend.xp.concat(data, axis=axis, dtype=dtype)
    except ValueError:
        raise _concat_error(tuple(arrays), axis) from None
    return fresh(joined, device)


def stack(
    arrays: tuple[Array, ...] | list[Array],
    /,
    *,
    axis: int = 0,
    out: Array | None = None,
    casting: str = "same_kind",
) -> Array:
    """The arrays, which must share a shape, joined along a new axis.

    Parameters
    ----------
    arrays : tuple or list of Array
        At least one array; all on one device and of one shape.
    axis : int, default 0
        The position of the new axis in the result.
    out : Array, optional
        An Array of the result's shape to write the result into, through
        copy-on-write (NumPy's ``out=``). Keyword-only.
    casting : str, default "same_kind"
        NumPy's rule for casting the result into ``out`` (``"no"``,
        ``"equiv"``, ``"safe"``, ``"same_kind"``, ``"unsafe"``); used with
        ``out`` only.

    Returns
    -------
    Array
        A new array with one more dimension (``out`` itself with ``out=``).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.stack([ca.asarray([1, 2]), ca.asarray([3, 4])], axis=1)
    cowarray.Array([[1, 3],
                    [2, 4]], dtype=int64)
    """
    if out is not None:
        return write_out(out, stack(arrays, axis=axis), "stack", casting, casting_given=True)
    data, device, dtype = _gather(arrays, "stack")
    shape = data[0].shape
    for i, values in enumerate(data):
        if values.shape != shape:
            raise ValueError(
                f"stack: arrays[{i}] has shape {values.shape}, arrays[0] has "
                f"{shape}; stacked arrays must share one shape"
            )
    position = normalize_axis(axis, len(shape) + 1)
    return fresh(device.backend.xp.stack(data, axis=position, dtype=dtype), device)


def unstack(x: Array, /, *, axis: int = 0) -> tuple[Array, ...]:
    """``x`` split along ``axis`` into a tuple of arrays (lazy values, O(1) each).

    Parameters
    ----------
    x : Array
        An array with at least one dimension.
    axis : int, default 0

    Returns
    -------
    tuple of Array
        ``x.shape[axis]`` lazy values, each viewing ``x``'s buffer.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.unstack(ca.asarray([[1, 2], [3, 4]]), axis=1)
    (cowarray.Array([1, 3], dtype=int64), cowarray.Array([2, 4], dtype=int64))
    """
    require_array(x, "x", "unstack")
    if x.ndim == 0:
        raise ValueError("unstack needs an array with at least one dimension")
    position = normalize_axis(axis, x.ndim)
    lead = (slice(None),) * position  # (each part as unstack makes it: x[..., i, ...])
    return tuple(view(x, _subscript, (*lead, i)) for i in range(x.shape[position]))


def _axis_tuple(value: object, name: str) -> tuple[int, ...]:
    # A list is taken as NumPy and the other libraries take it.
    items = tuple(value) if isinstance(value, (tuple, list)) else (value,)
    for item in items:
        if isinstance(item, bool) or not isinstance(item, int):
            raise TypeError(f"{name} must be an int or a sequence of ints, got {value!r}")
    return items


def moveaxis(
    x: Array,
    source: int | tuple[int, ...] | list[int],
    destination: int | tuple[int, ...] | list[int],
    /,
) -> Array:
    """``x`` with axes ``source`` moved to positions ``destination`` (a lazy value).

    Parameters
    ----------
    x : Array
    source, destination : int, or tuple or list of int
        The axes to move and their new positions (as many of each).

    Returns
    -------
    Array
        A lazy value viewing ``x``'s buffer.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.moveaxis(ca.zeros((2, 3, 4)), 0, -1).shape
    (3, 4, 2)
    """
    require_array(x, "x", "moveaxis")
    sources = _axis_tuple(source, "source")
    targets = _axis_tuple(destination, "destination")
    if len(sources) != len(targets):
        raise ValueError(
            f"moveaxis: source {source} and destination {destination} must name as many axes"
        )
    moved = normalize_axes(sources, x.ndim, "source") or ()
    placed = normalize_axes(targets, x.ndim, "destination") or ()
    return view(x, x._device.backend.xp.moveaxis, moved, placed)


def repeat(x: Array, repeats: int | Array, /, *, axis: int | None = None) -> Array:
    """Each element of ``x`` repeated ``repeats`` times (flattened if ``axis`` is None).

    Parameters
    ----------
    x : Array
    repeats : int or Array
        A non-negative int, or a 1-D integer array of shape ``(1,)`` or the
        length of the repeated axis.
    axis : int, optional

    Returns
    -------
    Array
        A new array of ``x``'s dtype.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.repeat(ca.asarray([1, 2]), 2)
    cowarray.Array([1, 1, 2, 2], dtype=int64)
    >>> ca.repeat(ca.asarray([[1, 2]]), ca.asarray([0, 3]), axis=1)
    cowarray.Array([[2, 2, 2]], dtype=int64)
    """
    require_array(x, "x", "repeat")
    length = x.size if axis is None else x.shape[normalize_axis(axis, x.ndim)]
    if type(repeats) is Array:
        common_device(x, repeats)
        if repeats.dtype.kind not in "iu":
            raise TypeError(f"repeat: repeats must have an integer dtype, got {repeats.dtype}")
        if repeats.ndim != 1 or repeats.shape[0] not in (1, length):
            raise ValueError(
                f"repeat: repeats must have shape (1,) or ({length},), got {repeats.shape}"
            )
        counts: Any = repeats._data
        if bool((counts < 0).any()):
            raise ValueError("repeat: repeats must not be negative")
    else:
        (counts,) = normalize_shape(repeats, "repeats")
    position = None if axis is None else normalize_axis(axis, x.ndim)
    return may_view(x._device.backend.xp.repeat(x._data, counts, axis=position), x._device, (x,))


def roll(
    x: Array,
    /,
    shift: int | tuple[int, ...],
    *,
    axis: int | tuple[int, ...] | None = None,
) -> Array:
    """``x`` with elements shifted by ``shift`` along ``axis`` (flattened if None), wrapping.

    Parameters
    ----------
    x : Array
    shift : int or tuple of int
        How far to shift; one per axis in ``axis``, or one for all of them.
    axis : int, tuple of int or None
        The axes to roll; ``None`` rolls the flattened array and restores the
        shape.

    Returns
    -------
    Array
        A new array of ``x``'s shape and dtype.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.roll(ca.arange(5), 2)
    cowarray.Array([3, 4, 0, 1, 2], dtype=int64)
    """
    require_array(x, "x", "roll")
    shifts = _axis_tuple(shift, "shift")
    if axis is None:
        if len(shifts) != 1:
            raise ValueError("roll: with axis=None, shift must be a single int")
        axes: Any = None
        amount: Any = shifts[0]
    else:
        axes = tuple(normalize_axis(a, x.ndim) for a in _axis_tuple(axis, "axis"))
        if len(shifts) not in (1, len(axes)):
            raise ValueError(f"roll: shift {shift} and axis {axis} must have equal lengths")
        amount = shifts * len(axes) if len(shifts) == 1 else shifts
    return may_view(x._device.backend.xp.roll(x._data, amount, axis=axes), x._device, (x,))


def tile(x: Array, repetitions: tuple[int, ...], /) -> Array:
    """``x`` repeated ``repetitions[i]`` times along each axis ``i``.

    Parameters
    ----------
    x : Array
    repetitions : tuple of int
        Repetitions per axis, aligned from the last axis (missing ones are 1).

    Returns
    -------
    Array
        A new array; all repetitions 1 gives a lazy clone of ``x``.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.tile(ca.asarray([1, 2]), (2, 2))
    cowarray.Array([[1, 2, 1, 2],
                    [1, 2, 1, 2]], dtype=int64)
    """
    require_array(x, "x", "tile")
    if not isinstance(repetitions, tuple):
        raise TypeError(
            f"tile: repetitions must be a tuple of ints, got {type(repetitions).__name__}"
        )
    reps = normalize_shape(repetitions, "repetitions")
    if all(r == 1 for r in reps) and len(reps) <= x.ndim:
        return lazy_clone(x)
    return may_view(x._device.backend.xp.tile(x._data, reps), x._device, (x,))
