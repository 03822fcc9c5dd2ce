"""einops' default API on cowarray Arrays: ``einops.rearrange(x, "h w -> w h")``.

einops finds a backend by type: on a tensor type it has not seen,
``einops._backends.get_backend`` walks ``AbstractBackend.__subclasses__()``
and instantiates each subclass whose ``framework_name`` is in
``sys.modules``. Defining :class:`CowarrayBackend` is therefore the whole
registration (einops' maintainer recommends it for outside frameworks,
arogozhnikov/einops#120). ``import cowarray`` imports this module when
einops is installed (see ``cowarray.interop.register_einops``), so the order
of ``import einops`` and ``import cowarray`` does not matter.

Every method calls cowarray's namespace (``reshape``, ``permute_dims``,
``expand_dims``, ``broadcast_to``, the reductions, ``concat``), never a raw
buffer, so results are values (docs/design.md rule 1): a rearrangement that
NumPy does as a view shares the input's buffer in O(1), and writing either
array leaves the other unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy
from einops._backends import AbstractBackend

from .._array import Array
from .._ops import statistical, utility
from .._ops.creation import arange, asarray
from .._ops.data_types import isdtype
from .._ops.manipulation import (
    broadcast_to,
    concat,
    expand_dims,
    permute_dims,
    reshape,
    stack,
    tile,
)
from .._ops.numpy_math import einsum

__all__ = ["CowarrayBackend"]

#: einops' reductions, by their standard names.
_REDUCTIONS: dict[str, Callable[..., Array]] = {
    "min": statistical.min,
    "max": statistical.max,
    "sum": statistical.sum,
    "mean": statistical.mean,
    "prod": statistical.prod,
    "any": utility.any,
    "all": utility.all,
}


class CowarrayBackend(AbstractBackend):
    """The einops backend for :class:`cowarray.Array` (einops creates it itself).

    Examples
    --------
    >>> import einops
    >>> import cowarray as ca
    >>> x = ca.reshape(ca.arange(6.0), (2, 3))
    >>> y = einops.rearrange(x, "h w -> w h")    # a view: shares x's buffer
    >>> y
    cowarray.Array([[0., 3.],
                    [1., 4.],
                    [2., 5.]], dtype=float64)
    >>> y[0, 0] = 100.0                            # writes y only
    >>> x[0, 0]
    cowarray.Array(0., dtype=float64)
    >>> einops.reduce(x, "h w -> w", "max")
    cowarray.Array([3., 4., 5.], dtype=float64)
    """

    framework_name = "cowarray"

    def is_appropriate_type(self, tensor: object) -> bool:
        return isinstance(tensor, Array)

    def from_numpy(self, x: Any) -> Array:
        return asarray(x, copy=True)

    def to_numpy(self, x: Array) -> Any:
        # a copy, never rule 4's writable alias: einops.asnumpy(x) is a new value
        return numpy.asarray(x.to_device("cpu"), copy=True)

    def arange(self, start: int, stop: int) -> Array:
        return arange(start, stop)

    def reshape(self, x: Array, shape: Sequence[int]) -> Array:
        return reshape(x, tuple(shape))

    def transpose(self, x: Array, axes: Sequence[int]) -> Array:
        return permute_dims(x, tuple(axes))

    def reduce(self, x: Array, operation: str, axes: tuple[int, ...]) -> Array:
        # einops' reductions (min, max, sum, mean, prod, any, all) are standard names
        return _REDUCTIONS[operation](x, axis=axes)

    def stack_on_zeroth_dimension(self, tensors: list[Array]) -> Array:
        return stack(tensors)

    def add_axis(self, x: Array, new_position: int) -> Array:
        return expand_dims(x, axis=new_position)

    def add_axes(self, x: Array, n_axes: int, pos2len: dict[int, int]) -> Array:
        # repeat as a broadcast (O(1), as einops.array_api and torch's expand);
        # a write to the result copies it first (rule 3)
        for position in sorted(pos2len):
            x = expand_dims(x, axis=position)
        shape = list(x.shape)
        for position, length in pos2len.items():
            shape[position] = length
        return broadcast_to(x, tuple(shape))

    def tile(self, x: Array, repeats: tuple[int, ...]) -> Array:
        return tile(x, repeats)

    def concat(self, tensors: Sequence[Array], axis: int) -> Array:
        return concat(list(tensors), axis=axis)

    def is_float_type(self, x: Array) -> bool:
        # einops asks before a mean; cowarray's mean takes real and complex floats
        return bool(isdtype(x.dtype, ("real floating", "complex floating")))

    def einsum(self, pattern: str, *x: Array) -> Array:
        # cowarray's einsum: on the inputs' device, joining an input's buffer
        # where the result is a view (rule 1)
        return einsum(pattern, *x)
