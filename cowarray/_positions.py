"""Where an index lands: flat positions in an array, for updates that repeat one.

Pure array-namespace code (any ``xp`` with ``arange``, ``reshape`` and
``broadcast_to``), shared by ``x.at[...].apply`` and the CuPy backend's
repeated-position updates; it knows nothing of cowarray's Array.
"""

from __future__ import annotations

from typing import Any

__all__ = ["flat_positions", "has_integer_arrays"]


def has_integer_arrays(index: Any) -> bool:
    """Whether ``index`` has an integer index array, the only part that can
    select one position twice (a 0-d one selects a single position)."""
    parts = index if type(index) is tuple else (index,)
    return any(
        hasattr(part, "dtype") and part.dtype.kind in "iu" and part.ndim > 0 for part in parts
    )


def flat_positions(xp: Any, shape: tuple[int, ...], index: Any) -> Any:
    """For each element of ``a[index]`` (``a`` of ``shape``), its C-order position in ``a``.

    Indexes one zero-stride broadcast ``arange`` per axis, so it costs the
    size of the selection, not of the array.
    """
    positions: Any = 0
    stride = 1
    for axis in reversed(range(len(shape))):
        line_shape = tuple(n if i == axis else 1 for i, n in enumerate(shape))
        line = xp.reshape(xp.arange(shape[axis], dtype="int64"), line_shape)
        positions = positions + xp.broadcast_to(line, shape)[index] * stride
        stride *= shape[axis]
    return positions
