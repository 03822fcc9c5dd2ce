"""Manipulation functions (Array API standard, "Manipulation Functions").

Most of these return views on the backend; :func:`cowarray._array.wrap` makes
each such view a new holder of its input's buffer, so they are O(1) values.
"""

from __future__ import annotations

from .._array import Array, view_of
from ._args import normalize_axes, normalize_axis, normalize_shape, require_array

__all__ = ["broadcast_to", "expand_dims", "flip", "permute_dims", "reshape", "squeeze"]


def reshape(x: Array, /, shape: tuple[int, ...], *, copy: bool | None = None) -> Array:
    """``x``'s values in a new shape (one entry may be -1).

    Parameters
    ----------
    x : Array
    shape : tuple of int
    copy : bool, optional
        ``False`` raises ValueError when the new shape cannot view ``x``'s
        memory; ``None`` and ``True`` always succeed. Either way the result is
        a value: it shares ``x``'s buffer lazily when it can.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.reshape(ca.arange(6), (2, -1))
    cowarray.Array([[0, 1, 2],
                    [3, 4, 5]], dtype=int64)
    """
    require_array(x, "x", "reshape")
    if copy is not None and type(copy) is not bool:
        raise TypeError(f"copy must be True, False or None, got {copy!r}")
    if type(shape) is not tuple:
        shape = _shape_with_placeholder(shape)
    try:
        data = x._device.backend.xp.reshape(x._data, shape, copy=copy)
    except (ValueError, TypeError):
        raise _reshape_error(x, _shape_with_placeholder(shape), copy) from None
    return view_of(x, data)


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
    return view_of(x, x._device.backend.xp.permute_dims(x._data, normalized))


def expand_dims(x: Array, /, axis: int = 0) -> Array:
    """``x`` with a new axis of length one at ``axis`` (a lazy value).

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.expand_dims(ca.arange(3), axis=-1).shape
    (3, 1)
    """
    require_array(x, "x", "expand_dims")
    position = normalize_axis(axis, x.ndim + 1)
    return view_of(x, x._device.backend.xp.expand_dims(x._data, position))


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
    return view_of(x, x._device.backend.xp.squeeze(x._data, axis=axes))


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
    return view_of(x, x._device.backend.xp.flip(x._data, axis=axes))


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
        data = x._device.backend.xp.broadcast_to(x._data, dims)
    except ValueError:
        raise ValueError(f"cannot broadcast an array of shape {x.shape} to {dims}") from None
    return view_of(x, data)
