"""Dask arrays of cowarray chunks: the chunk type's hooks, ``to_dask`` and ``from_dask``.

Importing this module imports ``dask.array`` and registers cowarray's Array
as a Dask chunk type (``import cowarray`` does that by itself whenever
``dask.array`` is imported too, in either order: ``cowarray/_dask_hook.py``).
Then ``dask.array``'s reductions, elementwise operations, slicing, ``@``,
``map_blocks``, ``concatenate``, ``stack`` and ``rechunk`` compute on
cowarray chunks and give cowarray chunks, and a dask array's ``_meta`` is a
0-size cowarray Array on the chunks' device.

What is registered, and why (Dask's tables are in ``dask/array/dispatch.py``):

- ``register_chunk_type``: Dask handles operations that mix its arrays with
  cowarray Arrays (``d + x``, ``np.concatenate([d, x])``) instead of
  deferring to them.
- ``concatenate``, ``tensordot``, ``take``: written with cowarray's
  namespace (``concat``, ``tensordot``, ``take``), dtypes promoted as NumPy
  does (Dask's dtypes are NumPy's), results on the chunks' device. Dask's
  defaults (``np.concatenate``...) also reach cowarray through NEP 18, but
  with a copy of each GPU chunk first (CuPy arrays cannot be made read-only).
- ``nannumel``: NaN-free counts as NumPy arrays, like Dask's default
  ``numel``: Dask's variance divides float totals by int64 counts, which
  NumPy's rules allow and cowarray's operators refuse (the standard has no
  mixed-kind promotion). Dask's default gives cowarray counts, and
  ``da.nanvar``/``da.nanstd`` fail.
- ``percentile``: Dask has no default; its own chunk function calls
  ``np.percentile``, which NEP 18 hands to cowarray.
- ``to_numpy_dispatch``, ``to_cupy_dispatch``: ``d.to_backend("numpy")``
  and ``"cupy"`` give chunks that are copies, never aliases of a cowarray
  buffer. The ``"cowarray"`` backend (``d.to_backend("cowarray")``, and
  ``dask.config.set({"array.backend": "cowarray"})`` for ``da.ones`` and
  friends) is registered too.
- ``sizeof``: ``distributed`` measures results to manage worker memory;
  without it a cowarray chunk would count as its Python object (~100 bytes).
- ``Array.__array_priority__``: Dask picks the function for a mix of chunks
  by the highest ``__array_priority__`` (and ``da.tensordot`` fails on a
  type without one); NumPy ignores it on a type with ``__array_ufunc__``.

Left to Dask's defaults on purpose: ``numel`` (NumPy counts, see above),
``divide`` (``np.divide`` through NEP 18: NumPy's promotion of a float total
by a count), ``empty`` (Dask passes it no array, so it cannot know the
device; a NumPy array mixes into either device's arrays), ``einsum``
(``np.einsum`` through NEP 18).

Values: :func:`to_dask` makes each chunk a lazy clone of a region of its
array (O(1), no copy), so nothing Dask does can change the array and a later
write to it does not change the dask array. :func:`from_dask` returns a new
value, never a chunk that Dask still holds (``persist`` keeps chunks in
memory).
"""

from __future__ import annotations

import itertools
import math
import uuid
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._array import Array
from ._core import lazy_clone
from ._devices import Device
from ._ops.creation import asarray, empty
from ._ops.data_types import astype
from ._ops.elementwise import isnan, logical_not
from ._ops.indexing import take
from ._ops.linalg import tensordot
from ._ops.manipulation import concat, reshape
from ._ops.statistical import sum as _sum

_INSTALL_HINT = (
    'cowarray.dask needs Dask\'s array module: pip install "dask[array]>=2024.8", or, '
    'in a clone of cowarray, pip install -e ".[dask]"'
)

try:
    import dask
    import dask.array as da
    from dask.array import chunk_types, dispatch
    from dask.array.backends import ArrayBackendEntrypoint, array_creation_dispatch
    from dask.array.core import normalize_chunks
    from dask.array.percentile import _percentile
    from dask.sizeof import sizeof
    from dask.utils import Dispatch
except ImportError as error:
    raise ImportError(_INSTALL_HINT) from error

__all__ = ["CowarrayBackendEntrypoint", "from_dask", "to_dask"]

#: Above NumPy's ndarray (0.0), below CuPy's (100): chosen by Dask among chunks.
ARRAY_PRIORITY = 1.0


def to_dask(x: Array, /, chunks: Any = "auto", *, name: str | None = None) -> Any:
    """A dask array with the values of ``x``, in cowarray chunks, without a copy.

    Each chunk is a lazy clone of a region of ``x`` (O(1) each), and a
    value: a later write to ``x`` copies ``x``'s buffer instead of changing
    the dask array, and nothing a computation does changes ``x``. Each
    compute hands out new clones, so a block function that writes its block
    in place, or a write to a computed chunk, changes no other result.

    Parameters
    ----------
    x : Array
        The array to chunk.
    chunks : int, tuple or "auto"
        Chunk sizes, as for :func:`dask.array.from_array` (``"auto"`` lets
        Dask choose from ``x``'s dtype and its ``array.chunk-size`` setting).
    name : str, optional
        The graph key prefix. By default a fresh unique name: ``to_dask``
        never reads the values (``da.from_array`` hashes them instead).

    Returns
    -------
    dask.array.Array
        Its ``_meta`` is a 0-size cowarray Array on ``x``'s device.

    See Also
    --------
    from_dask

    Examples
    --------
    >>> import cowarray as ca
    >>> from cowarray.dask import to_dask
    >>> x = ca.reshape(ca.arange(12.0), (3, 4))
    >>> d = to_dask(x, chunks=(2, 2))
    >>> d.chunks
    ((2, 1), (2, 2))
    >>> x[0, 0] = 100.0                  # x copies; the dask array keeps 0.0
    >>> d.sum(axis=0).compute()
    cowarray.Array([12., 15., 18., 21.], dtype=float64)
    """
    if type(x) is not Array:
        raise TypeError(
            f"to_dask(x): x must be a cowarray Array, got {type(x).__name__}; "
            "use cowarray.asarray(x) first, or dask.array.from_array for NumPy arrays"
        )
    chunks = normalize_chunks(chunks, x.shape, dtype=x.dtype)
    name = f"cowarray-{uuid.uuid4().hex}" if name is None else name
    starts = [np.cumsum((0, *sizes)).tolist() for sizes in chunks]
    graph = {}
    for index in itertools.product(*(range(len(sizes)) for sizes in chunks)):
        region = tuple(slice(s[i], s[i + 1]) for s, i in zip(starts, index, strict=True))
        # each chunk in the graph on its own (as Dask does for an ndarray), so a
        # cluster spreads them; a lazy clone, so a block function writing it
        # in place is no write through a view (ViewWriteWarning)
        graph[(name, *index)] = (_chunk_value, lazy_clone(x[region]))
    meta = empty((0,) * x.ndim, dtype=x.dtype, device=x.device)
    return da.Array(graph, name, chunks, meta=meta, dtype=x.dtype)


def _chunk_value(chunk: Array) -> Array:
    """A new lazy clone of a chunk each time: no two results are one Python object."""
    return lazy_clone(chunk)


def from_dask(d: Any, /, **compute_kwargs: Any) -> Array:
    """Compute a dask array of cowarray chunks and join them into one Array.

    A single chunk is returned as a lazy clone (no copy); several are
    written once into a new array.

    Parameters
    ----------
    d : dask.array.Array
        Its chunks must be cowarray Arrays (``type(d._meta)`` usually says
        so); others raise TypeError once computed. Turn NumPy chunks into
        cowarray ones with ``d.map_blocks(cowarray.asarray)`` (or
        ``d.to_backend("cowarray")``).
    **compute_kwargs
        Passed to :func:`dask.compute` (``scheduler=`` and the like).

    Returns
    -------
    Array
        A new value: writing to it never changes a chunk Dask still holds.

    See Also
    --------
    to_dask

    Examples
    --------
    >>> import cowarray as ca
    >>> import dask.array as da
    >>> from cowarray.dask import from_dask, to_dask
    >>> d = to_dask(ca.ones((4, 4)), chunks=2)
    >>> from_dask(da.exp(d * 0.0) + d)
    cowarray.Array([[2., 2., 2., 2.],
                    [2., 2., 2., 2.],
                    [2., 2., 2., 2.],
                    [2., 2., 2., 2.]], dtype=float64)
    """
    if not isinstance(d, da.Array):
        raise TypeError(f"from_dask(d): d must be a dask.array.Array, got {type(d).__name__}")
    # The chunks decide, not d._meta: Dask does not always pass the meta on (d[mask]).
    blocks = d.to_delayed(optimize_graph=True)
    values = dask.compute(*blocks.ravel().tolist(), **compute_kwargs)
    for value in values:
        if type(value) is not Array:
            kind = type(value)
            raise TypeError(
                f"from_dask(d) needs cowarray chunks, got {kind.__module__}.{kind.__name__} "
                "chunks; convert them with d.map_blocks(cowarray.asarray)"
            )
    if len(values) == 1:
        only: Array = lazy_clone(values[0])
        return only
    return _join(list(values), blocks.shape, d.dtype, values[0].device)


def _join(values: list[Array], grid: tuple[int, ...], dtype: Any, device: Device) -> Array:
    """The chunks of a C-ordered ``grid`` written into one new array (one copy)."""
    strides = [math.prod(grid[k + 1 :]) for k in range(len(grid))]
    # sizes along each axis from the chunks themselves: Dask may not know them (d[mask])
    sizes = [[values[i * strides[k]].shape[k] for i in range(n)] for k, n in enumerate(grid)]
    starts = [[0, *np.cumsum(s).tolist()] for s in sizes]
    out = empty(tuple(s[-1] for s in starts), dtype=dtype, device=device)
    for flat, value in enumerate(values):
        where = [(flat // strides[k]) % grid[k] for k in range(len(grid))]
        region = tuple(slice(starts[k][i], starts[k][i + 1]) for k, i in enumerate(where))
        out[region] = value
    return out


# -- the hooks Dask calls on chunks --------------------------------------------


def _device_of(arrays: Sequence[Any]) -> Device:
    for value in arrays:
        if type(value) is Array:
            return value.device
    return Device("cpu")


def _as_chunk(value: Any, device: Device) -> Array:
    """A chunk as a cowarray Array: NumPy arrays and scalars are read as values."""
    return value if type(value) is Array else asarray(value, device=device)


def _chunks(values: Sequence[Any]) -> list[Array]:
    """Chunks as cowarray Arrays of one dtype, promoted by NumPy's rules as Dask's are.

    Dask computes a result's dtype with NumPy's promotion, which mixes kinds
    (``int64`` with ``float32`` gives ``float64``); the standard's functions
    do not, so mixed chunks are cast first.
    """
    device = _device_of(values)
    arrays = [_as_chunk(value, device) for value in values]
    dtype = np.result_type(*(a.dtype for a in arrays))
    return [a if a.dtype == dtype else astype(a, dtype) for a in arrays]


def _concatenate(arrays: Sequence[Any], axis: int | None = 0) -> Array:
    chunks = _chunks(list(arrays))
    if len(chunks) == 1 and axis is not None:
        return lazy_clone(chunks[0])  # Dask joins each axis in turn, often one chunk
    return concat(chunks, axis=axis)


def _tensordot(a: Any, b: Any, axes: Any = 2) -> Array:
    if not isinstance(axes, int):
        axes = tuple(tuple(side) if isinstance(side, Sequence) else (side,) for side in axes)
    x1, x2 = _chunks((a, b))
    return tensordot(x1, x2, axes=axes)


def _take(a: Array, indices: Any, axis: int | None = None) -> Array:
    index = _as_chunk(indices, a.device)
    if axis is None:
        return take(reshape(a, (-1,)), reshape(index, (-1,)))
    return take(a, index, axis=axis)


def _nannumel(x: Array, **kwargs: Any) -> Any:
    """How many non-NaN elements each reduced position counts, as NumPy counts.

    NumPy's, as Dask's default ``numel`` gives: Dask's moment code divides
    float totals by int64 counts, which NumPy's rules allow and cowarray's
    operators refuse (the standard has no mixed-kind promotion). A NumPy
    array mixed in is read by NumPy's rules, on any device (rule 11).
    """
    dtype = kwargs.get("dtype")
    present = astype(logical_not(isnan(x)), np.dtype(np.int64 if dtype is None else dtype))
    counts = _sum(present, axis=kwargs.get("axis"), keepdims=kwargs.get("keepdims", False))
    return _to_numpy(counts)


def _to_numpy(x: Array, **kwargs: Any) -> Any:
    """A NumPy copy of a chunk: never an alias of a cowarray buffer."""
    if x.device.kind == "cpu":
        return np.array(x, copy=True)
    return np.asarray(x.to_device("cpu"))  # a fresh host array nobody else holds


def _to_cupy(x: Array, **kwargs: Any) -> Any:
    """A CuPy copy of a chunk: never an alias of a cowarray buffer."""
    import cupy

    if x.device.kind == "cuda":
        # the export gives the clone a buffer of its own (rule 5): one copy
        return cupy.from_dlpack(lazy_clone(x))
    return cupy.asarray(np.array(x, copy=True))


def _to_cowarray(data: Any, **kwargs: Any) -> Array:
    """A chunk of another library as a cowarray value (a copy of NumPy's)."""
    return asarray(data, **kwargs)


def _sizeof(x: Array) -> int:
    return int(x.nbytes)


#: ``d.to_backend("cowarray")`` converts each chunk through this table.
to_cowarray_dispatch = Dispatch("to_cowarray_dispatch")
to_cowarray_dispatch.register(Array, lambda data, **kwargs: data)
to_cowarray_dispatch.register((object, np.ndarray), _to_cowarray)


def _with_cowarray_meta(function: str, *args: Any, meta: Any = None, **kwargs: Any) -> Any:
    meta = empty((), dtype=np.float64) if meta is None else meta
    with dask.config.set({"array.backend": "numpy"}):
        return getattr(da, function)(*args, meta=meta, **kwargs)


class CowarrayBackendEntrypoint(ArrayBackendEntrypoint):  # type: ignore[misc]
    """Dask's ``"cowarray"`` array backend: creation functions make cowarray chunks.

    ``dask.config.set({"array.backend": "cowarray"})`` makes ``da.ones``,
    ``da.zeros``, ``da.empty``, ``da.full`` and ``da.arange`` build cowarray
    chunks; ``d.to_backend("cowarray")`` converts NumPy chunks (a copy each).
    Dask's random module is not offered: use ``cowarray.random`` in
    ``map_blocks``.
    """

    @classmethod
    def to_backend_dispatch(cls) -> Any:
        return to_cowarray_dispatch

    @classmethod
    def to_backend(cls, data: Any, **kwargs: Any) -> Any:
        if type(data._meta) is Array:
            return data
        return data.map_blocks(to_cowarray_dispatch, **kwargs)

    @property
    def RandomState(self) -> Any:
        raise NotImplementedError(
            "dask's random module has no cowarray backend; draw per chunk with "
            "cowarray.random in map_blocks"
        )

    @property
    def default_bit_generator(self) -> Any:
        return self.RandomState

    @staticmethod
    def ones(*args: Any, **kwargs: Any) -> Any:
        return _with_cowarray_meta("ones", *args, **kwargs)

    @staticmethod
    def zeros(*args: Any, **kwargs: Any) -> Any:
        return _with_cowarray_meta("zeros", *args, **kwargs)

    @staticmethod
    def empty(*args: Any, **kwargs: Any) -> Any:
        return _with_cowarray_meta("empty", *args, **kwargs)

    @staticmethod
    def full(*args: Any, **kwargs: Any) -> Any:
        return _with_cowarray_meta("full", *args, **kwargs)

    @staticmethod
    def arange(*args: Any, like: Any = None, **kwargs: Any) -> Any:
        like = empty((0,), dtype=np.float64) if like is None else like
        with dask.config.set({"array.backend": "numpy"}):
            return da.arange(*args, like=like, **kwargs)


_registered = False


def register() -> None:
    """Register cowarray's Array with Dask (done on import; calling again does nothing)."""
    global _registered
    if _registered:
        return
    if not chunk_types.is_valid_chunk_type(Array):
        chunk_types.register_chunk_type(Array)
    Array.__array_priority__ = ARRAY_PRIORITY  # type: ignore[attr-defined]
    hooks = {
        "concatenate_lookup": _concatenate,
        "tensordot_lookup": _tensordot,
        "take_lookup": _take,  # Dask 2024.12 and later
        "nannumel_lookup": _nannumel,
        "percentile_lookup": _percentile,
        "to_numpy_dispatch": _to_numpy,
        "to_cupy_dispatch": _to_cupy,
    }
    for table, hook in hooks.items():
        if hasattr(dispatch, table):
            getattr(dispatch, table).register(Array, hook)
    sizeof.register(Array, _sizeof)
    array_creation_dispatch.register_backend("cowarray", CowarrayBackendEntrypoint())
    _registered = True


register()
