"""The backend of traced values: JAX, inside :mod:`cowarray.transforms` only.

An Array on the device ``jax`` is an ordinary cowarray Array whose backend
value is a JAX value, a tracer while a transform traces the user's function
(docs/design.md, "Transforms"). The op layer runs on it unchanged: ``xp`` is
``jax.numpy`` with NumPy 2's promotion between arrays (rule 11) put back
where JAX's differs.

A JAX value is immutable and has no memory, so the write decision always
finds that it must copy before writing (:meth:`JaxBackend.must_copy_before_write`):
the core's write "to a copy" then gets from :meth:`JaxBackend.copy` a
:class:`Staged` value, the write rebinds it to the functionally updated
value (``x[idx] = v`` becomes ``x.at[idx].set(v)``, a mask write a
``where``), and the core's one store unwraps it (:attr:`JaxBackend.plain_asarray`).
That is the same path, through the same two doors, that an eager write to
a shared buffer takes: no per-operation code here.

What a traced value cannot do (give NumPy memory, DLPack, random draws)
raises :class:`TracedValueError` naming the fix. This module imports JAX:
the registry loads it only when the ``jax`` device is first asked for.
"""

from __future__ import annotations

import types
import weakref
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any, Final

import jax
import jax.numpy as jnp
import numpy as np

from .. import _tracing
from .base import FFT_NAMES, LINALG_NAMES, STANDARD_NAMES

__all__ = ["JAX_BACKEND", "JaxBackend", "Staged", "TracedValueError"]


class TracedValueError(TypeError):
    """What cannot be done with a traced value: its values are not known yet,
    and it has no memory to lend."""


class _NoArrayType:
    """The backend's ``array_type``: no value is ever exactly of it, so the
    NumPy fast paths of the core (``type(data) is array_type``) never apply,
    and the general path runs (JAX's values come in several classes)."""


class Staged:
    """The "copy" a write to a traced value goes into: the value so far,
    rebound by each write (``staged[index] = v``, ``out=staged``,
    :meth:`JaxBackend.index_update`). The core stores it through
    :attr:`JaxBackend.plain_asarray`, which unwraps it."""

    __slots__ = ("value",)

    #: what the core counts as copied: nothing is (a functional update)
    nbytes: Final = 0

    def __init__(self, value: Any) -> None:
        self.value = value

    def __setitem__(self, index: Any, values: Any) -> None:
        self.value = functional_update(self.value, index, values, "set")

    @property
    def dtype(self) -> Any:
        return self.value.dtype

    @property
    def shape(self) -> Any:
        return self.value.shape


# -- the namespace: jax.numpy with NumPy 2's promotion ---------------------------------

#: standard names whose NumPy ufunc (for its dtype rules) is spelled otherwise
_UFUNC_NAMES: Final = {
    "pow": "power",
    "atan2": "arctan2",
    "bitwise_left_shift": "left_shift",
    "bitwise_right_shift": "right_shift",
}

_BINARY: Final = [
    "add",
    "subtract",
    "multiply",
    "divide",
    "floor_divide",
    "remainder",
    "pow",
    "atan2",
    "hypot",
    "copysign",
    "logaddexp",
    "maximum",
    "minimum",
    "nextafter",
    "equal",
    "not_equal",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
    "logical_and",
    "logical_or",
    "logical_xor",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "bitwise_left_shift",
    "bitwise_right_shift",
]


def _promoting(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` with NumPy's loop dtypes for its operands (JAX computes
    int64 + float32 in float32, NumPy in float64) and ``out=`` a
    :class:`Staged` value rebound (the core's in-place write)."""
    ufunc: np.ufunc = getattr(np, _UFUNC_NAMES.get(name, name))

    def binary(a: Any, b: Any, /, out: Any = None) -> Any:
        da = getattr(a, "dtype", None)
        db = getattr(b, "dtype", None)
        kinds = (
            np.dtype(da) if da is not None else type(a),
            np.dtype(db) if db is not None else type(b),
            None,
        )
        try:
            first, second, result_dtype = ufunc.resolve_dtypes(kinds)
        except (TypeError, np._core._exceptions._UFuncNoLoopError):  # type: ignore[attr-defined]
            result = function(a, b)
        else:
            if da is not None and np.dtype(da) != first:
                a = jnp.asarray(a, dtype=first)
            if db is not None and np.dtype(db) != second:
                b = jnp.asarray(b, dtype=second)
            result = function(a, b)
            if result.dtype != result_dtype:
                result = result.astype(result_dtype)
        if out is None:
            return result
        if type(out) is not Staged:
            raise TracedValueError(
                f"out= of a traced {name}: a traced value has no memory to write into; "
                "write x = ... (or x[...] = ...) inside the transformed function"
            )
        out.value = jnp.broadcast_to(result.astype(out.value.dtype), out.value.shape)
        return out

    binary.__name__ = binary.__qualname__ = name
    return binary


def _namespace() -> types.SimpleNamespace:
    names: dict[str, Any] = {name: getattr(jnp, name) for name in dir(jnp) if name[0] != "_"}
    for name in _BINARY:
        names[name] = _promoting(name, getattr(jnp, name))
    names["linalg"] = jnp.linalg
    names["fft"] = jnp.fft
    missing = [name for name in STANDARD_NAMES if name not in names]
    missing += [f"linalg.{n}" for n in LINALG_NAMES if not hasattr(jnp.linalg, n)]
    missing += [f"fft.{n}" for n in FFT_NAMES if not hasattr(jnp.fft, n)]
    if missing:  # (a JAX older than the extra's lower bound)
        raise ImportError(f"this JAX lacks {', '.join(missing)}: pip install 'cowarray[jax]'")
    return types.SimpleNamespace(**names)


# -- functional writes: x[idx] = v, x.at[idx].<op>(v) ------------------------------------

#: the core's index_update names -> jax's .at methods (duplicates accumulate)
_AT_METHODS: Final = {
    "add": "add",
    "subtract": "subtract",
    "multiply": "multiply",
    "divide": "divide",
    "pow": "power",
    "minimum": "min",
    "maximum": "max",
}

_COMBINE: Final[dict[str, Callable[..., Any]]] = {
    "add": jnp.add,
    "subtract": jnp.subtract,
    "multiply": jnp.multiply,
    "divide": jnp.divide,
    "pow": jnp.power,
    "minimum": jnp.minimum,
    "maximum": jnp.maximum,
}


def _parts(index: Any) -> tuple[Any, ...]:
    return index if type(index) is tuple else (index,)


def _is_array_part(part: Any, kinds: str) -> bool:
    dtype = getattr(part, "dtype", None)
    return dtype is not None and getattr(part, "ndim", 0) > 0 and np.dtype(dtype).kind in kinds


def functional_update(data: Any, index: Any, values: Any, op: str) -> Any:
    """``data`` after ``data[index] = values`` (``op`` "set") or NumPy's
    unbuffered ``ufunc.at`` (every other ``op``), as a new value.

    A boolean mask is a ``where`` (static shapes); integer index arrays with
    duplicates keep NumPy's last write (JAX leaves the winner undefined)."""
    values = jnp.asarray(values)
    if values.dtype != data.dtype:
        values = values.astype(data.dtype)
    parts = _parts(index)
    if len(parts) == 1 and _is_array_part(parts[0], "b"):
        return _masked(data, jnp.asarray(parts[0]), values, op)
    if op != "set":
        return getattr(data.at[index], _AT_METHODS[op])(values)
    if any(_is_array_part(part, "iu") for part in parts):
        return _set_last_wins(data, index, values)
    return data.at[index].set(values)


def _masked(data: Any, mask: Any, values: Any, op: str) -> Any:
    """``x[mask] = v`` as ``where``: ``v`` broadcast to ``x``'s shape, or one
    value per True element in C order (NumPy's ``x[mask] = v`` of a 1-D
    ``v``), gathered by the running count of True elements."""
    if mask.shape != data.shape[: mask.ndim]:
        raise IndexError(
            f"boolean index of shape {mask.shape} does not match the array's {data.shape}"
        )
    full = mask.reshape(mask.shape + (1,) * (data.ndim - mask.ndim))
    if (
        values.ndim == 1 + data.ndim - mask.ndim
        and values.shape[1:] == data.shape[mask.ndim :]
        and values.shape[0] != data.shape[0]
    ) or (values.ndim == 1 and mask.ndim == data.ndim and values.shape[0] > 1):
        position = jnp.cumsum(mask.reshape(-1)) - 1
        new = values[jnp.clip(position, 0, values.shape[0] - 1)].reshape(data.shape)
    else:
        new = jnp.broadcast_to(values, data.shape)
    if op != "set":
        new = _COMBINE[op](data, new).astype(data.dtype)
    return jnp.where(full, new, data)


def _set_last_wins(data: Any, index: Any, values: Any) -> Any:
    """``x[idx] = v`` with integer index arrays, the last write winning as in
    NumPy, deterministically: each target's last occurrence is found by a
    scatter-max of positions (commutative), then only winners are written."""
    selected_shape = data[index].shape
    order = jnp.arange(int(np.prod(selected_shape)), dtype=jnp.int32).reshape(selected_shape)
    last = jnp.full(data.shape, -1, dtype=jnp.int32).at[index].max(order)
    winner = last[index] == order
    chosen = jnp.broadcast_to(values, selected_shape)
    # Losers add nothing, so the order of the scatter no longer matters.
    total = jnp.zeros(data.shape, data.dtype).at[index].add(jnp.where(winner, chosen, 0))
    touched = jnp.zeros(data.shape, bool).at[index].set(True)
    return jnp.where(touched, total, data)


def _unwrap(value: Any) -> Any:
    """The backend's ``plain_asarray``: the core's one store converts with it,
    so a :class:`Staged` write becomes its value here."""
    if type(value) is Staged:
        return value.value
    if isinstance(value, _JAX_VALUES):
        # (already JAX's: under an un-jitted grad, jnp.asarray of a concrete
        # value runs an operation each time, most of the gradient's cost)
        return value
    return jnp.asarray(value)


#: What JAX computes with as it is: arrays and tracers.
_JAX_VALUES: Final = (jax.Array, jax.core.Tracer)


class _Region:
    """The elements ``data[index]`` that a store writes (a value has no memory
    to point at): compared by :meth:`JaxBackend.same_elements`."""

    __slots__ = ("data", "index")

    def __init__(self, data: Any, index: Any) -> None:
        self.data = data
        self.index = index


def _same_key(a: Any, b: Any) -> bool:
    """Whether two basic keys (ints, slices, None, Ellipsis, tuples) are equal,
    comparing no array (an array's == would be element-wise)."""
    if type(a) is tuple or type(b) is tuple:
        a = a if type(a) is tuple else (a,)
        b = b if type(b) is tuple else (b,)
        return len(a) == len(b) and all(_same_key(x, y) for x, y in zip(a, b, strict=True))
    if type(a) is not type(b):
        return False
    if type(a) is int or type(a) is slice:
        return bool(a == b)
    return a is b


_NO_MEMORY: Final = (
    "this Array is traced by cowarray.transforms: its values are not known while the "
    "function is traced and it has no memory; return it from the function and convert "
    "or print it outside"
)


_ESCAPED: Final = (
    "this traced Array escaped the function that cowarray.transforms traced (it was kept "
    "in a global, a closure or a container, and the trace has ended): return it from the "
    "function instead"
)


class JaxBackend:
    """Traced values through JAX: immutable, without memory."""

    name = "jax"
    array_type = _NoArrayType
    #: no memory, so no unchecked scalar store: every write reaches the core
    sees_every_write = True
    wraps_out_of_range_indices = False
    #: an operation mixing a host Array with a traced one reads the host one
    #: as a constant of the trace (cowarray._checks.common_device)
    reads_host_arrays = True

    def __init__(self) -> None:
        #: id(view) -> (weak reference to it, the value it was read from, its key)
        self._views: dict[int, tuple[weakref.ref[Any], Any, Any]] = {}
        self.xp = _namespace()
        self.reshape_view: Callable[[Any, tuple[Any, ...]], Any] = jnp.reshape
        self.plain_asarray: Callable[[Any], Any] = _unwrap

    def asarray(self, obj: Any, dtype: Any = None, copy: bool | None = None) -> Any:
        if type(obj) is Staged:
            obj = obj.value
        if isinstance(obj, _JAX_VALUES) and (dtype is None or obj.dtype == dtype):
            return obj  # (as _unwrap: no operation for a value JAX already has)
        return jnp.asarray(obj, dtype=dtype)

    def copy(self, data: Any) -> Staged:
        # (a copy of an immutable value is the value: the writes rebind it)
        return Staged(data)

    def memory_owner(self, data: Any) -> object:
        return data

    def may_share_memory(self, a: Any, b: Any) -> bool:
        return False

    def overlaps(self, a: Any, b: Any) -> bool:
        return False

    def note_view(self, view: Any, data: Any, key: Any) -> None:
        """``view`` is ``data[key]`` with a basic ``key`` (the core's
        cowarray._core.values, for values without memory): remembered while
        ``view`` lives, so that :meth:`same_elements` can tell that a store
        ``x[key] = t`` writes back the elements ``t`` was read from."""
        token = id(view)

        def forget(_: Any) -> None:
            self._views.pop(token, None)

        self._views[token] = (weakref.ref(view, forget), data, key)

    def written_view(self, data: Any, index: Any) -> Any:
        # (no memory: the region a store writes is named by value and key)
        return _Region(data, index)

    def written_span(self, data: Any, index: Any) -> Any:
        return None  # (no memory: no view overlaps another, see overlaps)

    def same_elements(self, a: Any, b: Any) -> bool:
        region, value = (a, b) if type(a) is _Region else (b, a)
        if type(region) is not _Region:
            return False
        noted = self._views.get(id(value))
        if noted is None or noted[0]() is not value:
            return False
        return noted[1] is region.data and _same_key(noted[2], region.index)

    def copy_with_view(self, data: Any, view: Any) -> Any:
        return None

    def offset_of(self, view: Any, data: Any) -> int:
        return 0

    def must_copy_before_write(self, data: Any) -> bool:
        return True  # immutable: every write goes "to a copy", a Staged value

    def errors_may_surface(self, name: str, dtype: Any) -> bool:
        return True  # so the in-place door computes beside and replaces

    def in_place_facts(self, name: str, data: Any, copy_of: Any = None) -> tuple[bool, bool, Any]:
        return True, True, None

    def owner_nbytes(self, data: Any) -> int:
        return 0

    def to_numpy(self, data: Any) -> Any:
        if isinstance(data, jax.core.Tracer):
            raise TracedValueError(_NO_MEMORY if _tracing.depth() else _ESCAPED)
        return np.asarray(data)

    def numpy_view(self, data: Any, on_release: Callable[[], None]) -> Any:
        raise TracedValueError(
            "np.asarray(x) of a traced Array: a traced value has no memory for NumPy to "
            "write; compute with cowarray functions inside the transform, or return x and "
            "convert it outside"
        )

    def from_numpy(self, array: Any) -> Any:
        return jnp.asarray(array)

    def dlpack_device(self, data: Any) -> tuple[int, int]:
        raise TracedValueError("DLPack of a traced Array: " + _NO_MEMORY)

    def dlpack_export_problem(self, data: Any) -> str | None:
        return (
            "it is traced by cowarray.transforms and has no memory yet; return it from "
            "the function and export it outside"
        )

    def export_dlpack(self, data: Any, **_: Any) -> Any:
        raise TracedValueError("DLPack of a traced Array: " + _NO_MEMORY)

    def import_dlpack(self, capsule: Any, dl_device: tuple[int, int]) -> Any:
        raise TracedValueError(
            "a DLPack import onto the traced device: import outside the transformed "
            "function and pass the Array in as an argument"
        )

    def index_update(self, target: Any, index: Any, values: Any, op: str) -> None:
        if type(target) is not Staged:
            raise TracedValueError("index_update of a traced value outside the core's write")
        target.value = functional_update(target.value, index, values, op)

    def random_generator(self, seed: Any) -> Any:
        raise TracedValueError(
            "a cowarray.random generator on the traced device: its numbers would be the "
            "same at every call; draw outside the transformed function and pass them in"
        )

    def device_context(self) -> AbstractContextManager[object]:
        return nullcontext()

    def check_index_bounds(self, shape: tuple[int, ...], index: Any) -> None:
        return None  # (JAX clamps; under a trace the indices are not known)

    def numpy_export_refusal(self) -> str | None:
        if not _tracing.depth():
            return _ESCAPED
        return (
            "it is traced by cowarray.transforms: its values are not known yet; compute "
            "with cowarray functions inside the function, and convert it outside"
        )

    def transfer(self, data: Any, source: Any, stream: Any) -> Any:
        return None


#: The one traced backend (every trace's values: tracers carry their trace).
JAX_BACKEND: Final = JaxBackend()
