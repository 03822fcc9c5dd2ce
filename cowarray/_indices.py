"""Index resolution for ``x.at[...]``: out-of-bounds modes on any NumPy-style index.

``mode="raise"`` passes the index through: the backend checks every index
before it writes anything. The other modes need to know which axis each
integer index addresses and where NumPy puts the advanced dimensions in the
result, so the index is spelled out (ellipsis expanded, boolean masks turned
into integer arrays) and the integer parts are clamped; ``valid`` records
which entries were in bounds.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, NamedTuple

from ._array import index_component
from ._dtypes import DEFAULT_INDEX
from ._errors import index_beyond_int64

if TYPE_CHECKING:
    from ._array import Array

__all__ = ["Resolved", "drop_out_of_bounds", "is_array", "resolve"]


class Resolved(NamedTuple):
    """An index the backend can use as is, plus what out-of-bounds entries it had.

    ``valid`` is None when every entry is in bounds; otherwise a Python bool
    (only scalar integer indices) or a backend bool array over the broadcast
    shape of the advanced indices, which sit at ``position`` in the result.
    """

    index: Any
    valid: Any
    position: int
    shape: tuple[int, ...]


def _backend_parts(x: Array, key: Any) -> list[Any]:
    parts = list(key) if type(key) is tuple else [key]
    converted = [index_component(x, part) for part in parts]
    backend = x._device.backend
    for i, part in enumerate(converted):
        # An empty list arrives as a float array; it means "no positions".
        if type(part) is backend.array_type and part.size == 0 and part.dtype.kind not in "iub":
            converted[i] = backend.asarray(part, dtype=DEFAULT_INDEX)
    return converted


def is_array(part: Any) -> bool:
    return hasattr(part, "dtype") and hasattr(part, "ndim")


def resolve(x: Array, key: Any, mode: str, method: str) -> Resolved:
    """The backend index for ``key`` under ``mode`` (see :class:`Resolved`)."""
    parts = _backend_parts(x, key)
    integer = [p for p in parts if type(p) is int or (is_array(p) and p.dtype.kind in "iu")]
    if mode == "raise" or not integer:
        index = parts[0] if type(key) is not tuple else tuple(parts)
        huge = index_beyond_int64(index, x.shape, f"x.at[...].{method}: ")
        if huge is not None:  # (the backend would raise C's OverflowError text)
            raise huge
        return Resolved(index, None, 0, ())
    return _resolve_out_of_bounds(x, parts, mode, method)


def _resolve_out_of_bounds(x: Array, parts: list[Any], mode: str, method: str) -> Resolved:
    xp = x._device.backend.xp
    shape = x._data.shape
    expanded, axes = _expand(parts, shape, method)
    has_arrays = any(is_array(p) for p in expanded)
    index: list[Any] = []
    valids: list[Any] = []
    for part, axis in zip(expanded, axes, strict=True):
        if axis is None:
            index.append(part)
            continue
        n = shape[axis]
        if mode == "clip" and n == 0:
            raise IndexError(
                f"x.at[...].{method}: cannot clip an index into axis {axis}, which has size 0"
            )
        if type(part) is int:
            valids.append(-n <= part < n)
            index.append(min(max(part + n if part < 0 else part, 0), max(n - 1, 0)))
        else:
            valids.append((part >= -n) & (part < n))
            index.append(xp.clip(xp.where(part < 0, part + n, part), 0, max(n - 1, 0)))
    result_shape, position, broadcast = _result_layout(expanded, axes, shape, has_arrays)
    if mode == "clip":
        return Resolved(tuple(index), None, position, result_shape)
    if not has_arrays:
        valid: Any = all(valids)
        return Resolved(tuple(index), None if valid else False, position, result_shape)
    valid = functools.reduce(lambda a, b: a & b, valids)
    valid = xp.broadcast_to(valid, broadcast)
    return Resolved(tuple(index), None if xp.all(valid) else valid, position, result_shape)


def _expand(parts: list[Any], shape: tuple[int, ...], method: str) -> tuple[list[Any], list[Any]]:
    """Parts with the ellipsis spelled out and boolean masks turned into integer
    arrays, and for each part the axis of ``x`` it indexes if it is an integer."""
    if sum(p is Ellipsis for p in parts) > 1:
        raise IndexError(f"x.at[...].{method}: an index can only have a single ellipsis ('...')")
    consumed = sum(
        0 if p is None or p is Ellipsis else (p.ndim if is_array(p) and p.dtype.kind == "b" else 1)
        for p in parts
    )
    if consumed > len(shape):
        raise IndexError(
            f"x.at[...].{method}: too many indices: the array is {len(shape)}-dimensional, "
            f"but {consumed} were indexed"
        )
    fill = [slice(None)] * (len(shape) - consumed)
    if Ellipsis in [p for p in parts if not is_array(p)]:
        at = next(i for i, p in enumerate(parts) if p is Ellipsis and not is_array(p))
        parts = parts[:at] + fill + parts[at + 1 :]
    else:
        parts = parts + fill
    expanded: list[Any] = []
    axes: list[Any] = []
    axis = 0
    for part in parts:
        if part is None:
            expanded.append(None)
            axes.append(None)
        elif type(part) is slice:
            expanded.append(part)
            axes.append(None)
            axis += 1
        elif is_array(part) and part.dtype.kind == "b":
            if part.ndim == 0:
                raise IndexError(
                    f"x.at[...].{method}: a boolean scalar index cannot be combined with "
                    "integer indices when mode is not 'raise'"
                )
            if part.shape != shape[axis : axis + part.ndim]:
                raise IndexError(
                    f"x.at[...].{method}: a boolean index of shape {part.shape} does not "
                    f"match the indexed dimensions {shape[axis : axis + part.ndim]}"
                )
            for coordinates in part.nonzero():
                expanded.append(coordinates)
                axes.append(axis)
                axis += 1
        else:
            if is_array(part) and part.ndim == 0:
                part = int(part)
            expanded.append(part)
            axes.append(axis)
            axis += 1
    return expanded, axes


def _result_layout(
    parts: list[Any], axes: list[Any], shape: tuple[int, ...], has_arrays: bool
) -> tuple[tuple[int, ...], int, tuple[int, ...]]:
    """The shape of ``x[parts]``, where the advanced dimensions sit, and their shape.

    NumPy's rule: advanced indices (integer arrays, and integers when any
    array is present) that are adjacent put their broadcast dimensions where
    the first of them is; separated ones put them first.
    """
    advanced = [
        i for i, p in enumerate(parts) if axes[i] is not None and (has_arrays or is_array(p))
    ]
    broadcast: tuple[int, ...] = ()
    if advanced:
        shapes = [parts[i].shape if is_array(parts[i]) else () for i in advanced]
        broadcast = _broadcast_shapes(shapes)
    dims: list[int] = []
    position = 0
    for i, part in enumerate(parts):
        if advanced and i == advanced[0]:
            position = len(dims)
        if part is None:
            dims.append(1)
        elif type(part) is slice:
            axis = sum(1 for j in range(i) if parts[j] is not None)
            dims.append(len(range(*part.indices(shape[axis]))))
    if advanced and advanced[-1] - advanced[0] + 1 != len(advanced):
        position = 0
    result = (*dims[:position], *broadcast, *dims[position:])
    return result, position, broadcast


def _broadcast_shapes(shapes: list[tuple[int, ...]]) -> tuple[int, ...]:
    ndim = max((len(s) for s in shapes), default=0)
    result = [1] * ndim
    for s in shapes:
        for i, n in enumerate(s, start=ndim - len(s)):
            if n != 1:
                if result[i] not in (1, n):
                    raise IndexError(
                        f"shape mismatch: indexing arrays could not be broadcast together "
                        f"with shapes {' '.join(str(t) for t in shapes)}"
                    )
                result[i] = n
    return tuple(result)


def drop_out_of_bounds(x: Array, resolved: Resolved, operand: Any, method: str) -> tuple[Any, Any]:
    """The index and values with the out-of-bounds entries left out."""
    xp = x._device.backend.xp
    valid = resolved.valid
    values = None
    if operand is not None:
        try:
            values = xp.broadcast_to(operand, resolved.shape)
        except ValueError:
            raise ValueError(
                f"x.at[...].{method}: values of shape {tuple(operand.shape)} cannot be "
                f"broadcast to the indexed shape {resolved.shape}"
            ) from None
        values = values[(slice(None),) * resolved.position + (valid,)]
    index = tuple(
        xp.broadcast_to(xp.asarray(part), valid.shape)[valid]
        if (type(part) is int or is_array(part))
        else part
        for part in resolved.index
    )
    return index, values
