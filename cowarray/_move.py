"""Ownership transfer: ``move(x)`` hands x's buffer over and retires x."""

from __future__ import annotations

from typing import Final

from ._array import Array
from ._core import take_over
from ._errors import Retired, not_an_array, out_refused

__all__ = ["move"]


#: What a moved-from array holds instead of its data and device: every use
#: of the old array raises this error.
_MOVED: Final = Retired(
    "this array was moved into another by cowarray.move(x) and can no longer be "
    "used; use the array move() returned (or lazy_clone(x) before moving to keep both)"
)


def move(x: Array, /, *, out: None = None) -> Array:
    """Hand ``x``'s buffer to a new array without a copy; ``x`` becomes unusable.

    The explicit ownership transfer JAX users know as buffer donation: the
    returned array is the only holder ``x`` was, so updating it (for example
    ``move(x).at[i].set(v)``) writes in place instead of copying. Any later
    use of ``x`` (attributes, operators, indexing, ``np.asarray``, passing it
    to a function) raises ValueError.

    Parameters
    ----------
    x : Array
        The array to move from.
    out : None
        Only ``None``: the result is a new Array (the hint policy's ``out=``
        answer, taken here rather than by a wrapper, which would add a fifth
        to this call).

    Returns
    -------
    Array
        An array with ``x``'s values, shape, dtype, device and sharing.

    See Also
    --------
    lazy_clone : keep both arrays, at the cost of a copy on the first write.

    Examples
    --------
    >>> import cowarray as ca
    >>> x = ca.zeros(3)
    >>> y = ca.move(x).at[0].set(1.0)  # no copy of x's buffer
    >>> y
    cowarray.Array([1., 0., 0.], dtype=float64)
    >>> x.shape  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: this array was moved into another by cowarray.move(x) and can no longer be used; ...
    """
    if type(x) is not Array:
        raise not_an_array("move", "x", x)
    if out is not None:
        raise out_refused("ca.move")
    # The result is donated: its first update through ``.at`` may take the
    # buffer (cowarray._interpreter.is_last_use); the first write through the core gives it its
    # scalar fast path.
    result = take_over(x, _MOVED)
    if result is None:  # another thread moved it first
        raise _MOVED._fail()
    return result
