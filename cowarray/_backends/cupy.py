"""The CuPy backend: CUDA memory through CuPy's memory pool, one backend per GPU.

Importing this module imports CuPy; ``cowarray._backends.backend_for`` does so
only when a ``cuda:N`` device is first asked for, so ``import cowarray`` never
does.

Memory and views. Arrays are allocated by CuPy's current allocator (its
default memory pool). A CuPy view's ``base`` is the array that owns the
memory, and CuPy collapses view chains as NumPy does
(``v.base = self.base if self.base is not None else self``), so the identity
rule of :func:`cowarray._array.may_view` holds unchanged: ``base is None`` means the
array owns its memory, otherwise ``base`` is the owner. Memory imported through
DLPack is owned by an array whose ``base`` is None.

Stream rules (docs/design.md rule 8). CuPy orders work per stream; a lazy copy
moves a read (the materializing copy) to a later time and perhaps another
stream, so this backend adds the ordering an eager copy would have had:

1. *The copy runs on the current stream.* :meth:`CupyBackend.copy` enqueues the
   device-to-device copy of the viewed region on CuPy's current stream of the
   array's device, and returns at once.
2. *A clone reads the values as of the clone.* When a buffer becomes shared
   (the core creates its sharing record and calls :meth:`note_share`), the
   backend remembers the stream that was current. A later copy out of that
   buffer on another stream first makes its stream wait for an event recorded
   on the remembered stream, so work enqueued there before the clone (the
   writes the clone must see) is finished before the copy reads. The event is
   recorded when the copy is made, which orders after slightly more work than
   needed (never less).
3. *Nobody writes or frees memory that a copy still reads.* After each copy
   the backend records an event on the copy's stream and keeps a reference to
   the source array until that event has completed: the memory cannot go back
   to the pool (and be handed out again on another stream) while the copy may
   still read it, whichever stream the last holder dies on. Finished entries
   are dropped lazily, at the next copy, write check or transfer; at most
   :data:`MAX_PENDING` entries are kept (the oldest is waited for beyond that).
   Before the last holder of a buffer writes it in place (the core asks
   :meth:`must_copy_before_write` first), the current stream waits for every
   pending copy out of that memory.
4. *DLPack follows the standard.* ``__dlpack__(stream=s)`` makes the
   consumer's stream ``s`` wait for CuPy's current stream (``None`` is the
   legacy default stream, ``-1`` asks for no ordering); an import passes CuPy's
   current stream to the producer (:meth:`dlpack_import_stream`), or, for the
   per-thread default stream that torch refuses, a relay stream that the
   current stream then waits for.

Host access. ``np.asarray`` on a GPU array raises TypeError, as CuPy does;
``to_device("cpu")`` is the explicit copy to host.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any, Final

import cupy
import numpy as np

from .._deaths import call_at_death
from .._positions import flat_positions, has_integer_arrays
from ._common import address_range, span_of_selection
from ._cupy_namespace import check_index_bounds, release_of, standard_namespace
from .numpy import NUMPY_BACKEND

__all__ = [
    "MAX_PENDING",
    "MINIMUM_CUPY",
    "CupyBackend",
    "cupy_backend",
]

#: Most copies whose source is kept alive at once; beyond it the oldest is waited for.
MAX_PENDING: Final = 256

# DLPack's and CUDA's number for the per-thread default stream (cudaStreamPerThread).
_PER_THREAD_DEFAULT_STREAM: Final = 2

#: The message of the TypeError raised where a GPU array would become a NumPy array.
HOST_ACCESS_MESSAGE: Final = (
    "a cowarray Array on {device} lives in GPU memory and cannot become a NumPy array "
    "implicitly (CuPy refuses too); copy it to the host explicitly with "
    "x.to_device('cpu') first"
)

# -- stream bookkeeping ------------------------------------------------------------


def _owner(data: Any) -> Any:
    """The array that owns ``data``'s memory (CuPy collapses view chains)."""
    base = data.base
    return data if base is None else base


class _Pending:
    """Copies that may still read their source: (event, source array) pairs.

    Holding the source keeps its memory out of the pool until the event has
    completed. Entries are dropped lazily when their event is done.
    """

    def __init__(self, limit: int = MAX_PENDING) -> None:
        self._entries: list[tuple[Any, Any]] = []
        # Re-entrant: freeing a source can run weakref callbacks on this thread.
        self._lock = threading.RLock()
        self._limit = limit

    def __len__(self) -> int:
        return len(self._entries)

    def add(self, event: Any, source: Any) -> None:
        with self._lock:
            self._entries.append((event, source))
            overflow = len(self._entries) > self._limit
        if overflow:
            self._wait_for_oldest()

    def drop_finished(self) -> None:
        """Release the sources of finished copies, oldest first.

        Stops at the first copy still running: copies mostly finish in the
        order they were enqueued, and keeping a source a little longer is
        always safe, so each call costs one event query in the common case.
        """
        if not self._entries:
            return
        with self._lock:
            done = 0
            for event, _ in self._entries:
                if not event.done:
                    break
                done += 1
            finished = self._entries[:done]
            del self._entries[:done]
        del finished  # the sources go back to the pool outside the lock

    def events_reading(self, owner: Any) -> list[Any]:
        """Events of pending copies whose source is (a view of) ``owner``."""
        with self._lock:
            return [event for event, source in self._entries if _owner(source) is owner]

    def _wait_for_oldest(self) -> None:
        with self._lock:
            event, _ = self._entries[0]
        event.synchronize()
        self.drop_finished()

    def wait_all(self) -> None:
        """Wait for every pending copy and release every source."""
        with self._lock:
            entries, self._entries = self._entries, []
        for event, _ in entries:
            event.synchronize()


class _ShareStreams:
    """The stream current when each owner's memory last became shared.

    Keyed by ``id(owner)`` with a weak reference whose callback drops the
    entry, so a record never outlives its memory and ids are not confused.
    """

    def __init__(self) -> None:
        self._entries: dict[int, tuple[weakref.ref[Any], Any]] = {}
        # Re-entrant: a garbage collection inside a locked block may run the
        # weak reference callback of another entry on this thread.
        self._lock = threading.RLock()

    def __len__(self) -> int:
        return len(self._entries)

    def remember(self, owner: Any, stream: Any) -> None:
        key = id(owner)
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and entry[0]() is owner:
                self._entries[key] = (entry[0], stream)
                return
            self._entries[key] = (weakref.ref(owner, self._forget(key)), stream)

    def _forget(self, key: int) -> Callable[[weakref.ref[Any]], None]:
        def forget(_: weakref.ref[Any]) -> None:
            with self._lock:
                self._entries.pop(key, None)

        return forget

    def stream_of(self, owner: Any) -> Any:
        entry = self._entries.get(id(owner))
        if entry is None or entry[0]() is not owner:
            return None
        return entry[1]


# -- the backend -------------------------------------------------------------------------


class CupyBackend:
    """CUDA arrays of one GPU through CuPy."""

    name = "cupy"
    array_type = cupy.ndarray
    # CuPy's indexing wraps out-of-range integer index arrays around (no error
    # without a read back from the GPU): cowarray checks first, as NumPy would.
    wraps_out_of_range_indices = True
    # Every write asks must_copy_before_write, which orders it after the copies
    # still reading its memory (stream rule 3): no unchecked scalar writes.
    sees_every_write = True

    def __init__(self, device_id: int) -> None:
        self.device_id = device_id
        self._cuda_device = cupy.cuda.Device(device_id)
        self.xp = standard_namespace(device_id)
        self.reshape_view = self.xp.reshape  # on this GPU (a copy launches a kernel)
        self.plain_asarray: Callable[[Any], Any] = self.asarray  # (sets this GPU current)
        self.pending = _Pending()
        self.share_streams = _ShareStreams()
        self._device_label = f"cuda:{device_id}"
        self._relays = threading.local()  # see dlpack_import_stream

    @contextmanager
    def _current(self) -> Iterator[None]:
        """Run the block with this backend's GPU current."""
        if cupy.cuda.runtime.getDevice() == self.device_id:
            yield
            return
        with self._cuda_device:
            yield

    def random_generator(self, seed: Any) -> CupyRandom:
        """A generator on this GPU: CuPy's ``default_rng(seed)`` (XORWOW) under
        NumPy's method names (see :class:`CupyRandom`)."""
        return CupyRandom(self, seed)

    def device_context(self) -> AbstractContextManager[None]:
        """A context with this backend's GPU current (CuPy's current device)."""
        return self._current()

    def _stream(self) -> Any:
        return cupy.cuda.get_current_stream(self.device_id)

    # -- allocation and conversion ----------------------------------------------

    def asarray(self, obj: Any, dtype: Any = None, copy: bool | None = None) -> Any:
        """A CuPy array on this GPU from ``obj``.

        A CuPy array is returned as is unless ``copy`` or a dtype change asks
        for a copy; one on another GPU is moved as :meth:`transfer` moves it.
        Anything else is copied (host data with a blocking
        transfer, so the caller may reuse its memory at once), except with
        ``copy=False``: GPU memory of another library (``__cuda_array_interface__``)
        is then viewed without a copy, for the caller to mark it foreign.
        """
        if isinstance(obj, cupy.ndarray) and obj.device.id != self.device_id:
            return self._from_other_gpu(obj, dtype, copy)
        with self._current():
            if isinstance(obj, cupy.ndarray):
                if copy:
                    return cupy.array(obj, dtype=dtype, copy=True)
                result = cupy.asarray(obj, dtype=dtype)
            elif copy is False and hasattr(obj, "__cuda_array_interface__"):
                result = cupy.asarray(obj)
            elif copy is False:
                raise ValueError(
                    f"cannot view a {type(obj).__name__} as a {self._device_label} array "
                    "without copying"
                )
            else:
                return cupy.array(obj, dtype=dtype, copy=True, blocking=True)
            if copy is False and (
                result.device.id != self.device_id
                or (dtype is not None and result.dtype != dtype)
                or (result is not obj and isinstance(obj, cupy.ndarray))
            ):
                raise ValueError(
                    f"cannot make a {self._device_label} array of dtype {dtype or result.dtype} "
                    f"from this {type(obj).__name__} without copying"
                )
            return result

    def _from_other_gpu(self, obj: Any, dtype: Any, copy: bool | None) -> Any:
        # CuPy's own cross-device copy refuses non-contiguous arrays and is not
        # ordered after the source GPU's stream; transfer() does both.
        if copy is False:
            raise ValueError(
                f"cannot make a {self._device_label} array from a CuPy array on "
                f"cuda:{obj.device.id} without copying"
            )
        moved = self.transfer(obj, cupy_backend(obj.device.id), None)
        if dtype is None:
            return moved
        with self._current():
            return moved.astype(dtype, copy=False)

    def from_numpy(self, array: Any) -> Any:
        with self._current():
            return cupy.array(array, copy=True, blocking=True)

    def to_numpy(self, data: Any) -> Any:
        # Blocks until the values are on the host (cupy.asnumpy synchronizes
        # the current stream), so the result is an ordinary NumPy array.
        with self._current():
            return cupy.asnumpy(data)

    def numpy_view(self, data: Any, on_release: Callable[[], None]) -> Any:
        raise TypeError(HOST_ACCESS_MESSAGE.format(device=self._device_label))

    def numpy_export_refusal(self) -> str | None:
        """Why ``np.asarray(x)`` refuses an array on this GPU: always."""
        return HOST_ACCESS_MESSAGE.format(device=self._device_label)

    # -- the copy-on-write needs ---------------------------------------------------

    def memory_owner(self, data: Any) -> object:
        return _owner(data)

    def owner_nbytes(self, data: Any) -> int:
        return int(_owner(data).nbytes)

    def may_share_memory(self, a: Any, b: Any) -> bool:
        if not isinstance(a, cupy.ndarray) or not isinstance(b, cupy.ndarray):
            return False
        return a.data.mem is b.data.mem or self.overlaps(a, b)

    def overlaps(self, a: Any, b: Any) -> bool:
        # (bounds only: CuPy has no exact overlap test cheap enough here)
        low_a, high_a = address_range(int(a.data.ptr), a.shape, a.strides, a.itemsize)
        low_b, high_b = address_range(int(b.data.ptr), b.shape, b.strides, b.itemsize)
        return low_a < high_b and low_b < high_a

    def written_view(self, data: Any, index: Any) -> Any:
        parts = index if isinstance(index, tuple) else (index,)
        if any(type(part) not in (int, slice) for part in parts):
            return None  # (Ellipsis and advanced indices: left to the general path)
        try:
            region = data[index]
        except Exception:  # a bad index: the write itself will say so
            return None
        return region if isinstance(region, cupy.ndarray) else None

    def written_span(self, data: Any, index: Any) -> Any | None:
        region = self.written_view(data, index)
        return region if region is not None else span_of_selection(cupy, data, index)

    def same_elements(self, a: Any, b: Any) -> bool:
        return (
            a.shape == b.shape
            and a.strides == b.strides
            and a.dtype == b.dtype
            and int(a.data.ptr) == int(b.data.ptr)
        )

    def copy_with_view(self, data: Any, view: Any) -> Any:
        return None  # (the write copies the view's region instead: one copy more)

    def offset_of(self, view: Any, data: Any) -> int:
        return int(view.data.ptr) - int(data.data.ptr)

    def errors_may_surface(self, name: str, dtype: Any) -> bool:
        return False  # CuPy reports no floating-point errors

    def in_place_facts(self, name: str, data: Any, copy_of: Any = None) -> tuple[bool, bool, Any]:
        # (no copy ahead: copy_with_view cannot make one here)
        return False, self.must_copy_before_write(data), None

    def must_copy_before_write(self, data: Any) -> bool:
        # Asked by the core just before a holder writes its memory in place:
        # the write must not overtake a copy that still reads this memory.
        with self._current():  # the wait goes on this GPU's current stream
            self._wait_for_readers(data)
        return any(
            stride == 0 and length > 1
            for stride, length in zip(data.strides, data.shape, strict=True)
        )

    def note_share(self, data: Any) -> None:
        """Remember the current stream: ``data``'s memory just became shared."""
        self.share_streams.remember(_owner(data), self._stream())

    # (No page-granular copy-on-write: that is host memory's, docs/design.md §5;
    # a write to shared GPU memory copies the region it views.)

    def copy(self, data: Any) -> Any:
        with self._current():
            stream = self._stream()
            self._order_after_share(data, stream)
            if data.flags.c_contiguous or data.flags.f_contiguous:
                # copyto's kernel: 2.5x the speed of ndarray.copy() on an
                # H200 (256 MiB: 129 us against 321 us; benchmarks/gpu.py).
                result = cupy.empty_like(data)
                cupy.copyto(result, data)
            else:
                # order="K" keeps a transposed view's layout and expands a
                # broadcast view: the result always owns a compact block.
                result = data.copy(order="K")
            if data.size:
                self.pending.add(stream.record(cupy.cuda.Event(disable_timing=True)), data)
            return result

    def _order_after_share(self, data: Any, stream: Any) -> None:
        self.pending.drop_finished()
        shared_on = self.share_streams.stream_of(_owner(data))
        if shared_on is not None and shared_on.ptr != stream.ptr:
            stream.wait_event(shared_on.record(cupy.cuda.Event(disable_timing=True)))

    def _wait_for_readers(self, data: Any) -> None:
        self.pending.drop_finished()
        if not len(self.pending):
            return
        events = self.pending.events_reading(_owner(data))
        if events:
            stream = self._stream()
            for event in events:
                stream.wait_event(event)

    def transfer(self, data: Any, source: Any, stream: Any) -> Any:
        """``data`` (an array of backend ``source``) copied onto this GPU.

        On ``stream`` (see :meth:`as_stream`) or CuPy's current stream. From
        another GPU: one device-to-device (peer) copy, ordered after the
        source GPU's current stream. From host memory: one blocking copy.
        """
        self.pending.drop_finished()
        with self._current(), self.as_stream(stream):
            if not isinstance(source, CupyBackend):
                host = source.to_numpy(data)
                return cupy.array(host, copy=True, blocking=True)
            with source._current():
                compact = cupy.ascontiguousarray(data)
                ready = source._stream().record(cupy.cuda.Event(disable_timing=True))
            target_stream = self._stream()
            target_stream.wait_event(ready)
            result = cupy.empty(compact.shape, dtype=compact.dtype)
            if compact.size:
                result.data.copy_from_device_async(compact.data, compact.nbytes, target_stream)
                # the source GPU's memory: its last holder's writes wait on this
                done = target_stream.record(cupy.cuda.Event(disable_timing=True))
                source.pending.add(done, compact)
                if compact is not data:  # ascontiguousarray read data's memory too
                    source.pending.add(done, data)
            return result

    def as_stream(self, stream: Any) -> Any:
        """A context that makes ``stream`` current on this GPU (None: no change).

        ``stream`` is a CuPy stream, a torch CUDA stream (``cuda_stream``) or a
        DLPack stream number (1: the legacy default stream, 2: the per-thread
        default stream, else a ``cudaStream_t`` pointer).
        """
        if stream is None:
            return nullcontext()
        if isinstance(stream, bool) or not isinstance(stream, int):
            if hasattr(stream, "ptr") and hasattr(stream, "__enter__"):
                return stream  # a CuPy stream
            pointer = getattr(stream, "cuda_stream", None)
            if not isinstance(pointer, int):
                raise TypeError(
                    "stream must be a CuPy stream, a torch CUDA stream or a stream number "
                    f"(int), got {type(stream).__name__}"
                )
            stream = pointer or 1  # torch spells the legacy default stream 0
        if stream == 1:
            return cupy.cuda.Stream.null
        if stream == 2:
            return cupy.cuda.Stream.ptds
        if stream <= 2:
            raise ValueError(
                f"stream={stream} is not a CUDA stream: use 1 (legacy default), "
                "2 (per-thread default) or a stream pointer"
            )
        return cupy.cuda.Stream.from_external(_StreamPointer(stream))

    def check_index_bounds(self, shape: tuple[int, ...], index: Any) -> None:
        """Raise IndexError if an integer index array leaves ``shape`` (one read back)."""
        with self._current():
            check_index_bounds(shape, index)

    def index_update(self, target: Any, index: Any, values: Any, op: str) -> None:
        """``target[index] op= values``, each repeated position updated in turn.

        Integer index arrays are checked against the bounds first (CuPy
        itself wraps them around), so a bad index raises IndexError before
        anything is written. Without integer index arrays no position repeats:
        the region is read, combined and written back on the GPU. With them:

        * ``add`` and ``subtract`` (as the addition of ``-values``, exact in
          floating point and modular for integers) accumulate on the GPU with
          CuPy's ``add.at`` for the dtypes its atomics support; ``maximum``
          and ``minimum`` likewise for 32- and 64-bit integers. (The order in
          which repeated additions land is the GPU's, so a floating-point sum
          may differ from NumPy's in the last bits.)
        * Everything else goes through the host, moving only the touched
          elements: ``set`` (CuPy leaves the value stored at a repeated
          position undefined; cowarray keeps the last, as NumPy), floating
          ``maximum``/``minimum`` (CuPy's double atomics round through float32
          and drop NaN), ``multiply``, ``divide``, ``pow``, and the dtypes
          CuPy's atomics lack.
        """
        with self._current():
            check_index_bounds(target.shape, index)
            if not has_integer_arrays(index):
                if op == "set":
                    target[index] = values
                else:
                    target[index] = getattr(self.xp, op)(target[index], values)
                return
            if _accumulates_on_gpu(op, target.dtype):
                try:
                    if op == "subtract":
                        cupy.add.at(target, index, -values)
                    else:
                        getattr(cupy, op).at(target, index, values)
                    return
                except TypeError:  # this CuPy's atomics lack the dtype: nothing written
                    pass
            _update_through_host(target, index, values, op)

    # -- DLPack: capsule work only; the policy is in cowarray/_dlpack.py ---------

    def dlpack_device(self, data: Any) -> tuple[int, int]:
        kind, index = data.__dlpack_device__()
        return int(kind), int(index)

    def dlpack_export_problem(self, data: Any) -> str | None:
        if min(data.strides, default=0) < 0:
            return f"it has negative strides {data.strides}, which DLPack consumers refuse"
        return None

    @contextmanager
    def dlpack_import_stream(self) -> Iterator[int]:
        """The ``stream=`` to pass a producer importing onto this GPU, for the block.

        CuPy's current stream; the legacy default stream (pointer 0) is spelled
        1, as the DLPack standard asks. The per-thread default stream (2) is
        one torch refuses, so the producer is handed a private relay stream
        instead, and when the block ends the current stream waits for the
        relay, which by then waits for the producer's work.
        """
        current = self._stream()
        pointer = int(current.ptr)
        if pointer != _PER_THREAD_DEFAULT_STREAM:
            yield 1 if pointer == 0 else pointer
            return
        relay = self._relay_stream()
        yield int(relay.ptr)
        current.wait_event(relay.record(cupy.cuda.Event(disable_timing=True)))

    def _relay_stream(self) -> Any:
        # One per thread: a thread's current stream then waits only for the
        # producers it imported from.
        relay = getattr(self._relays, "stream", None)
        if relay is None:
            with self._current():
                relay = self._relays.stream = cupy.cuda.Stream(non_blocking=True)
        return relay

    def export_dlpack(
        self,
        data: Any,
        *,
        stream: Any,
        max_version: tuple[int, int] | None,
        dl_device: tuple[int, int] | None,
        copy: bool,
        on_release: Callable[[], None] | None,
    ) -> Any:
        with self._current():
            source = self.copy(data) if copy else data
            # A private view: CuPy's capsule holds it (and nothing else of
            # ours) until the consumer calls the deleter, so its death is the
            # consumer's release. CuPy's __dlpack__ makes ``stream`` wait for
            # the current stream (stream=None: the legacy default stream).
            view = source.view()
            capsule = view.__dlpack__(stream=stream, max_version=max_version)
            if on_release is not None:
                call_at_death(view, on_release)  # (cowarray._deaths, as the NumPy backend)
            return capsule

    def import_dlpack(self, capsule: Any, dl_device: tuple[int, int]) -> Any:
        with self._current():
            try:
                return cupy.from_dlpack(capsule)
            # CuPy's words for a dtype or device it cannot take (bfloat16 without
            # ml_dtypes: NotImplementedError; a device mismatch: RuntimeError)
            except (TypeError, ValueError, NotImplementedError, RuntimeError) as error:
                raise BufferError(f"CuPy cannot import this DLPack tensor: {error}") from None


def _shape_of(size: Any, *parameters: Any) -> tuple[int, ...]:
    """``size``, or the parameters' broadcast shape where it is None (NumPy's rule)."""
    if size is not None:
        return tuple(size)
    return tuple(np.broadcast_shapes(*(getattr(value, "shape", ()) for value in parameters)))


class CupyRandom:
    """``cupy.random.default_rng(seed)`` under NumPy's ``Generator`` methods.

    The streams are CuPy's (cuRAND's XORWOW), reproducible per seed on CuPy,
    not NumPy's. Where CuPy's Generator lacks a method (``normal``,
    ``choice``, ``permutation``, ``multivariate_normal``) or takes scalars
    only (``integers`` with array bounds), it is built from CuPy's
    primitives on the GPU: permutations sort random keys, weighted choice
    without replacement takes the largest ``log(u) / p`` keys, and
    ``multivariate_normal`` uses the SVD of ``cov`` as NumPy does. Every
    result goes through ``cupy.asarray`` (a no-op on CuPy's own arrays).
    """

    def __init__(self, backend: CupyBackend, seed: Any) -> None:
        self._backend = backend
        with backend._current():
            self._rng = cupy.random.default_rng(seed)

    def random(self, size: Any = None, dtype: Any = np.float64) -> Any:
        with self._backend._current():
            return cupy.asarray(self._rng.random(size=size, dtype=dtype))

    def uniform(self, low: Any = 0.0, high: Any = 1.0, size: Any = None) -> Any:
        with self._backend._current():
            shape = _shape_of(size, low, high)
            low = cupy.asarray(low, dtype=np.float64)
            high = cupy.asarray(high, dtype=np.float64)
            return cupy.asarray(low + (high - low) * self._rng.random(size=shape))

    def normal(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None) -> Any:
        with self._backend._current():
            shape = _shape_of(size, loc, scale)
            loc = cupy.asarray(loc, dtype=np.float64)
            scale = cupy.asarray(scale, dtype=np.float64)
            return cupy.asarray(loc + scale * self._rng.standard_normal(size=shape))

    def standard_normal(self, size: Any = None, dtype: Any = np.float64) -> Any:
        with self._backend._current():
            return cupy.asarray(self._rng.standard_normal(size=size, dtype=dtype))

    def integers(
        self,
        low: Any,
        high: Any = None,
        size: Any = None,
        dtype: Any = np.int64,
        endpoint: bool = False,
    ) -> Any:
        if high is None:
            low, high = 0, low
        with self._backend._current():
            if not isinstance(low, cupy.ndarray) and not isinstance(high, cupy.ndarray):
                drawn = self._rng.integers(low, high, size=size, dtype=dtype, endpoint=endpoint)
                return cupy.asarray(drawn)
            # CuPy's integers takes scalar bounds only: scale uniform floats
            # (exact below 2**53 values per interval), kept inside the bounds.
            shape = _shape_of(size, low, high)
            low = cupy.asarray(low, dtype=np.int64)
            top = cupy.asarray(high, dtype=np.int64) - (0 if endpoint else 1)
            span = (top - low + 1).astype(np.float64)
            offset = cupy.floor(self._rng.random(size=shape) * span).astype(np.int64)
            return cupy.asarray(cupy.minimum(low + offset, top).astype(dtype))

    def _keys_order(self, count: int) -> Any:
        return cupy.argsort(self._rng.random(size=(count,)))

    def permutation(self, x: Any, axis: int = 0) -> Any:
        with self._backend._current():
            if not isinstance(x, cupy.ndarray):
                return cupy.asarray(self._keys_order(int(x)).astype(np.int64))
            return cupy.asarray(cupy.take(x, self._keys_order(x.shape[axis]), axis=axis))

    def choice(
        self,
        a: Any,
        size: Any = None,
        replace: bool = True,
        p: Any = None,
        axis: int = 0,
        shuffle: bool = True,
    ) -> Any:
        with self._backend._current():
            population = a.shape[axis] if isinstance(a, cupy.ndarray) else int(a)
            shape = () if size is None else tuple(size)
            count = int(np.prod(shape, dtype=np.int64))
            if replace and p is None:
                index = self._rng.integers(0, population, size=shape, dtype=np.int64)
            elif replace:
                cdf = cupy.cumsum(cupy.asarray(p, dtype=np.float64))
                cdf /= cdf[-1]
                drawn = cupy.searchsorted(cdf, self._rng.random(size=shape), side="right")
                index = cupy.minimum(drawn, population - 1)
            elif p is None:
                index = self._keys_order(population)[:count].reshape(shape)
            else:
                # Efraimidis-Spirakis: the largest log(u) / p keys (p == 0: -inf, never)
                weights = cupy.asarray(p, dtype=np.float64)
                keys = cupy.log(self._rng.random(size=(population,))) / weights
                index = cupy.argsort(-keys)[:count].reshape(shape)
            index = cupy.asarray(index).astype(np.int64)
            if not isinstance(a, cupy.ndarray):
                return cupy.asarray(index)
            return cupy.asarray(cupy.take(a, index, axis=axis))

    def exponential(self, scale: Any = 1.0, size: Any = None) -> Any:
        with self._backend._current():
            shape = _shape_of(size, scale)
            scale = cupy.asarray(scale, dtype=np.float64)
            return cupy.asarray(self._rng.standard_exponential(size=shape) * scale)

    def poisson(self, lam: Any = 1.0, size: Any = None) -> Any:
        with self._backend._current():
            shape = _shape_of(size, lam)
            lam = cupy.broadcast_to(cupy.asarray(lam, dtype=np.float64), shape)
            return cupy.asarray(self._rng.poisson(lam, size=shape))

    def binomial(self, n: Any, p: Any, size: Any = None) -> Any:
        with self._backend._current():
            shape = _shape_of(size, n, p)
            n = cupy.broadcast_to(cupy.asarray(n, dtype=np.int64), shape)
            p = cupy.broadcast_to(cupy.asarray(p, dtype=np.float64), shape)
            return cupy.asarray(self._rng.binomial(n, p, size=shape))

    def multivariate_normal(self, mean: Any, cov: Any, size: Any = None) -> Any:
        with self._backend._current():
            mean = cupy.asarray(mean, dtype=np.float64)
            cov = cupy.asarray(cov, dtype=np.float64)
            dimension = mean.shape[0]
            final = (() if size is None else tuple(size)) + (dimension,)
            normal = self._rng.standard_normal(size=final).reshape(-1, dimension)
            _, singular, vh = cupy.linalg.svd(cov)
            factor = cupy.sqrt(singular)[:, None] * vh
            return cupy.asarray((normal @ factor + mean).reshape(final))


class _StreamPointer:
    """A ``cudaStream_t`` pointer under the CUDA stream protocol, for
    ``Stream.from_external`` (CuPy 14 deprecates ``ExternalStream``)."""

    def __init__(self, pointer: int) -> None:
        self.pointer = pointer

    def __cuda_stream__(self) -> tuple[int, int]:
        return 0, self.pointer


# dtypes whose repeated updates CuPy's atomics get exactly right (add.at also
# takes int64 from CuPy 14.1; an older CuPy's TypeError sends it to the host).
_ADDS_EXACTLY: Final = frozenset(
    ("int32", "int64", "uint32", "uint64", "float16", "float32", "float64")
)
_COMPARES_EXACTLY: Final = frozenset(("int32", "int64", "uint32", "uint64"))
_GPU_ACCUMULATES: Final = {
    "add": _ADDS_EXACTLY,
    "subtract": _ADDS_EXACTLY,
    "maximum": _COMPARES_EXACTLY,
    "minimum": _COMPARES_EXACTLY,
}


def _accumulates_on_gpu(op: str, dtype: Any) -> bool:
    return dtype.name in _GPU_ACCUMULATES.get(op, ())


def _update_through_host(target: Any, index: Any, values: Any, op: str) -> None:
    """The update on the host (NumPy's), moving only the touched elements."""
    positions = flat_positions(cupy, target.shape, index)
    if not positions.size:
        return
    spread = cupy.broadcast_to(cupy.asarray(values, dtype=target.dtype), positions.shape)
    unique, inverse = np.unique(cupy.asnumpy(positions).ravel(), return_inverse=True)
    where = cupy.unravel_index(cupy.asarray(unique), target.shape)
    current = cupy.asnumpy(target[where])
    # The host backend's update: in index order, a repeated set keeps the last value.
    NUMPY_BACKEND.index_update(current, inverse, cupy.asnumpy(spread).ravel(), op)
    target[where] = cupy.asarray(current)


# -- one backend per GPU ---------------------------------------------------------

_backends: dict[int, CupyBackend] = {}
_backends_lock = threading.Lock()


#: The oldest CuPy this backend runs on: CuPy 13 promotes Python scalars by
#: value (``float32_array * 1e40`` becomes float64), against the standard's rules.
MINIMUM_CUPY: Final = (14, 0)


def cupy_backend(index: int) -> CupyBackend:
    """The backend of GPU ``index``, created on first use.

    Raises ValueError when there is no such GPU (or no usable CUDA driver),
    ImportError when the installed CuPy is older than :data:`MINIMUM_CUPY`.
    """
    backend = _backends.get(index)
    if backend is not None:
        return backend
    with _backends_lock:
        backend = _backends.get(index)
        if backend is None:
            _check_cupy_version(cupy.__version__)
            count = _device_count()
            if not 0 <= index < count:
                raise ValueError(
                    f"there is no device 'cuda:{index}': CuPy sees {count} GPU(s)"
                    + (", numbered from cuda:0" if count else "")
                )
            backend = _backends[index] = CupyBackend(index)
    return backend


def _check_cupy_version(version: str) -> None:
    if release_of(version) < MINIMUM_CUPY:
        raise ImportError(
            f"cowarray's GPU backend needs CuPy >= {MINIMUM_CUPY[0]}.{MINIMUM_CUPY[1]}, "
            f"found CuPy {version} (older CuPy promotes Python scalars by value, against "
            'the Array API standard); upgrade it: pip install -U "cupy-cuda12x>=14" '
            '(or cupy-cuda13x), or, in a clone of cowarray, pip install -e ".[cuda12]"'
        )


def _device_count() -> int:
    try:
        return int(cupy.cuda.runtime.getDeviceCount())
    except RuntimeError:  # CUDA's runtime and driver errors: no driver, no device
        return 0
