"""A stand-in ``cupy`` module: NumPy computes, CUDA streams and events are recorded.

Loads ``cowarray/_backends/cupy.py`` (and its namespace module) against it, so
tests check what the backend asks of streams and events, and what the COW core
does with it, on machines without a GPU. Never touches the real CuPy: the
modules are loaded afresh under pytest's monkeypatch, which puts back whatever
``sys.modules`` held before.

Where CuPy's API differs from NumPy's, the stand-in takes CuPy's side, so the
backend's wrappers run: ``linalg`` has CuPy's names and signatures (no
``upper=``, ``rtol=``, stack broadcasting in ``solve``), ``clip`` is CuPy's
kernel (a NaN bound is ignored), sorts are stable, named tuples stay named.
A few kernels compute as CuPy's do where NumPy's give other numbers: complex
``divide``/``reciprocal``, float ``floor_divide``/``remainder``, complex
``expm1``, float32 subnormals flushed to zero (CuPy's ``-ftz=true``) in
``nextafter``, ``floor``, ``ceil``, ``trunc``, ``sign`` and ``square`` (not
in the other functions), and the 1-D float32/float64 sort by the bits (NaNs
with the sign bit first) that ``argsort``, ``unique_*`` and ``isin`` also use.
Its scatters are CuPy's too: of several values set at one position the first
stays (NumPy: the last; CuPy: any), and ``ufunc.at`` with index arrays takes
only the dtypes CuPy's atomics do, its float ``maximum``/``minimum`` dropping
NaN and comparing float64 through float32.
It simulates one CuPy release (``release=``, 14.0 to 14.2; the newest by
default): what a release lacks is left out, its ``reshape``, ``repeat`` and
``sign`` behave as in that release. Its arrays export DLPack capsules that say
kDLCUDA (refusing ``copy=True``, as CuPy), and its ``from_dlpack`` takes only
those and drops the READ_ONLY flag, as CuPy does.

The numeric imitations above are beliefs about CuPy until
``tools/check_stand_in_claims.py`` has compared them with real CuPy on a GPU
(``benchmarks/gpu_check.sh`` runs it); each is marked with the claim that
checks it. The streams, events and orderings are what the stand-in is for.
"""

from __future__ import annotations

import collections
import contextlib
import ctypes
import importlib.machinery
import importlib.util
import itertools
import math
import operator
import os
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
from _dlpack_layout import READ_ONLY, clear_flags, tensor_head

BACKENDS = Path(__file__).parents[2] / "cowarray" / "_backends"

#: The CuPy releases the stand-in simulates; the newest is its default.
RELEASES = ((14, 0), (14, 1), (14, 2))

# Standard names NumPy 2 has and CuPy (up to 14.2) lacks.
CUPY_GAPS = ("unstack", "vecdot")
# Names CuPy gained after 14.0, with the release that brought them.
ADDED_IN = {
    "linalg.matmul": (14, 1),
    "linalg.matrix_transpose": (14, 1),
    "cumulative_prod": (14, 2),
    "cumulative_sum": (14, 2),
}
# cupy.linalg's names that NumPy's linalg has with the same signature.
_SHARED_LINALG = (
    "cond", "cross", "det", "eig", "eigh", "eigvals", "eigvalsh", "inv", "lstsq", "matmul",
    "matrix_power", "matrix_transpose", "norm", "qr", "slogdet", "svd", "tensorinv",
    "tensorsolve",
)  # fmt: skip


# Unverified; tools/check_stand_in_claims.py: index-arrays-wrap
def _wrapped(shape: tuple[int, ...], key: Any) -> Any:
    """``key`` with its integer index arrays wrapped into range, as CuPy's indexing does."""
    parts = key if isinstance(key, tuple) else (key,)
    taken = [0 if part is None or part is Ellipsis else _ndim_taken(part) for part in parts]
    wrapped, axis = [], 0
    for part, count in zip(parts, taken, strict=True):
        if part is Ellipsis:
            axis += len(shape) - sum(taken)
        elif (
            isinstance(part, np.ndarray)
            and part.dtype.kind in "iu"
            and axis < len(shape)  # past the last axis NumPy says "too many indices"
            and shape[axis]
        ):
            part = np.asarray(part) % shape[axis]
        wrapped.append(part)
        axis += count
    return tuple(wrapped) if isinstance(key, tuple) else wrapped[0]


def _ndim_taken(part: Any) -> int:
    is_mask = isinstance(part, np.ndarray) and part.dtype.kind == "b"
    return int(part.ndim) if is_mask else 1


def _has_integer_arrays(key: Any) -> bool:
    parts = key if isinstance(key, tuple) else (key,)
    return any(isinstance(part, np.ndarray) and part.dtype.kind in "iu" for part in parts)


# Unverified; tools/check_stand_in_claims.py: scatter-set-order
def _first_writes(shape: tuple[int, ...], key: Any, value: Any) -> tuple[Any, Any]:
    """``key`` and ``value`` cut down to the first write to each position.

    Where an index array repeats a position, CuPy's scatter stores one of the
    values written there, which one undefined. The stand-in keeps the first
    (NumPy keeps the last), so that code counting on NumPy's order fails here.
    """
    positions = np.arange(math.prod(shape)).reshape(shape)[key]
    unique, first = np.unique(positions.ravel(), return_index=True)
    if unique.size == positions.size:
        return key, value
    values = np.asarray(value)
    values = values.reshape(values.shape[max(values.ndim - positions.ndim, 0) :])
    spread = np.broadcast_to(values, positions.shape).ravel()
    return np.unravel_index(unique, shape), spread[first]


@contextlib.contextmanager
# Unverified; tools/check_stand_in_claims.py: index-error-words
def _cupys_index_words() -> Iterator[None]:
    """CuPy says "Index 7 is out of bounds ..." where NumPy says "index 7 ..."."""
    try:
        yield
    except IndexError as error:
        message = str(error)
        if not message.startswith("index "):
            raise
        raise IndexError("I" + message[1:]) from None


class FakeArray(np.ndarray):
    """Stands in for ``cupy.ndarray`` (NumPy collapses view chains as CuPy does).

    Integer index arrays out of range wrap around instead of raising, as in
    CuPy; of several values set at one position, the first stays (CuPy: any).
    """

    def __getitem__(self, key: Any) -> Any:
        with _cupys_index_words():
            return super().__getitem__(_wrapped(self.shape, key))

    def __setitem__(self, key: Any, value: Any) -> None:
        key = _wrapped(self.shape, key)
        if _has_integer_arrays(key):
            key, value = _first_writes(self.shape, key, value)
        with _cupys_index_words():
            super().__setitem__(key, value)

    @property
    def device(self) -> Any:
        return types.SimpleNamespace(id=0)

    @property
    def data(self) -> Any:  # type: ignore[override]
        owner = self if self.base is None else self.base
        return FakeMemoryPointer(self.__array_interface__["data"][0], owner)

    #: The ``stream=`` of each ``__dlpack__`` call, for tests to read.
    dlpack_streams: ClassVar[list[Any]] = []

    def __dlpack_device__(self) -> tuple[int, int]:
        return KDL_CUDA, 0

    def __dlpack__(
        self,
        *,
        stream: Any = None,
        max_version: tuple[int, int] | None = None,
        dl_device: Any = None,
        copy: bool | None = None,
    ) -> Any:
        """CuPy's export: a capsule of this array that says kDLCUDA.

        As CuPy, refuses ``copy=True`` on its own device, and makes a host
        copy for ``dl_device=(kDLCPU, 0)``; ``stream`` is recorded.
        """
        if dl_device == (KDL_CPU, 0):
            if copy is False:
                raise ValueError("GPU memory cannot be exported to CPU without copy.")
            host = np.array(self, copy=True, subok=False)
            return host.__dlpack__(max_version=max_version, copy=True)
        if dl_device not in (None, self.__dlpack_device__()):
            raise BufferError("unsupported device requested.")
        if copy is True:
            raise BufferError("copy=True only supported for copy to CPU.")
        FakeArray.dlpack_streams.append(stream)
        capsule = super().__dlpack__(max_version=max_version)
        tensor_head(capsule).device.device_type = KDL_CUDA
        return capsule


class FakeArrayOnGpu1(FakeArray):
    """A CuPy array on cuda:1 (the stand-in's other arrays are all on cuda:0)."""

    @property
    def device(self) -> Any:
        return types.SimpleNamespace(id=1)

    def __dlpack_device__(self) -> tuple[int, int]:
        return KDL_CUDA, 1


class FakeMemoryPointer:
    """CuPy's MemoryPointer: the address, the allocation it points into, and
    the (here synchronous) device-to-device copy."""

    def __init__(self, ptr: int, mem: Any) -> None:
        self.ptr = ptr
        self.mem = mem

    def copy_from_device_async(self, src: FakeMemoryPointer, size: int, stream: Any) -> None:
        ctypes.memmove(self.ptr, src.ptr, size)


KDL_CPU, KDL_CUDA = 1, 2


class _CapsuleOnHost:
    """Hands NumPy a capsule (the stand-in's 'GPU' memory is host memory)."""

    def __init__(self, capsule: Any) -> None:
        self.capsule = capsule

    def __dlpack__(self, **_: Any) -> Any:
        return self.capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return KDL_CPU, 0


def fake_from_dlpack(capsule: Any) -> FakeArray:
    """``cupy.from_dlpack`` of a capsule: kDLCUDA only, and READ_ONLY dropped, as
    CuPy does (its arrays cannot be read-only); the result owns no memory of its
    own but is a view of the producer's."""
    device = tensor_head(capsule).device
    if device.device_type != KDL_CUDA:
        raise RuntimeError(
            f"the stand-in imports CUDA memory only, not device {device.device_type}"
        )
    device.device_type = KDL_CPU
    clear_flags(capsule, READ_ONLY)
    return np.from_dlpack(_CapsuleOnHost(capsule)).view(FakeArray)


def make(values: Any) -> FakeArray:
    """A FakeArray that owns its memory (``base`` None), as CuPy's fresh arrays do."""
    host = np.asarray(values)
    array = FakeArray(host.shape, dtype=host.dtype)
    array[...] = host
    return array


def _as_fake(result: Any) -> Any:
    """A NumPy result as CuPy would return it: a view stays a view of the same memory."""
    if type(result) is not np.ndarray:
        return result
    if result.base is None:
        return make(result)  # fresh memory: an owning FakeArray
    return result.view(FakeArray)  # NumPy points its base at the owner, as CuPy does


def _returning_fakes(function: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        result = function(*args, **kwargs)
        if not isinstance(result, tuple):
            return _as_fake(result)
        parts = [_as_fake(part) for part in result]
        # A named tuple (unique_all, svd, ...) stays one: callers read its fields.
        return type(result)(*parts) if hasattr(result, "_fields") else tuple(parts)

    return call


def fake_array(
    obj: Any, dtype: Any = None, copy: bool = True, blocking: bool = False, **_: Any
) -> FakeArray:
    """``cupy.array``: a copy; ``blocking`` is recorded so tests can ask for it."""
    fake_array.last_blocking = blocking  # type: ignore[attr-defined]
    return make(np.array(obj, dtype=dtype, copy=True))


def fake_asarray(obj: Any, dtype: Any = None) -> Any:
    """``cupy.asarray``: the same array when nothing needs converting."""
    if isinstance(obj, FakeArray) and (dtype is None or obj.dtype == dtype):
        return obj
    return make(np.asarray(obj, dtype=dtype))


def fake_broadcast_to(array: Any, shape: Any) -> FakeArray:
    """``cupy.broadcast_to``: a writable view (NumPy's is read-only), so the
    backend, not the stand-in, must refuse to write where elements alias."""
    view = np.broadcast_to(array, shape).view(FakeArray)
    view.flags.writeable = bool(np.asarray(array).flags.writeable)
    return view


def fake_broadcast_arrays(*arrays: Any) -> tuple[FakeArray, ...]:
    shape = np.broadcast_shapes(*(np.shape(array) for array in arrays))
    return tuple(fake_broadcast_to(array, shape) for array in arrays)


# Unverified; tools/check_stand_in_claims.py: index-arrays-wrap
def fake_take(a: Any, indices: Any, axis: int | None = None) -> FakeArray:
    """``cupy.take``: out-of-range indices wrap around."""
    return make(np.take(a, indices, axis, mode="wrap"))


# Unverified; tools/check_stand_in_claims.py: sort-1d-by-bits, sort-2d-nan-aware, sort-stable
def fake_sort(a: Any, axis: int = -1, kind: str | None = None) -> FakeArray:
    """``cupy.sort``: always stable, whatever ``kind`` says (NumPy's default is not).

    A 1-D float32/float64 array is ordered by its bits (see :func:`_radix_order`).
    """
    if _radix_sorted(a):
        return make(np.asarray(a)[_radix_order(a)])
    return make(np.sort(a, axis=axis, kind="stable"))


# Unverified; tools/check_stand_in_claims.py: argsort-1d-by-bits
def fake_argsort(a: Any, axis: int = -1, kind: str | None = None) -> FakeArray:
    """``cupy.argsort``: always stable; by the bits for 1-D float32/float64."""
    if _radix_sorted(a):
        return make(_radix_order(a))
    return make(np.argsort(a, axis=axis, kind="stable"))


def _radix_sorted(a: Any) -> bool:
    return bool(a.ndim == 1 and a.dtype.char in "fd")


def _radix_order(a: Any) -> np.ndarray:
    """The stable order CuPy's sort gives a 1-D float32/float64 array.

    CuPy sorts it with thrust's radix sort (cupy/cuda/cupy_thrust.cu), which
    orders the bits (sign bit set: all bits flipped, else the sign bit; -0.0
    as 0.0): NaNs with the sign bit (NumPy's ``inf - inf``) come before
    ``-inf``, the others after ``inf`` in the order of their payloads.
    """
    bits = np.asarray(a).view(f"u{a.itemsize}")
    sign = bits.dtype.type(1 << (8 * a.itemsize - 1))
    key = np.where(bits & sign, ~bits, bits | sign)
    return np.argsort(np.where(np.asarray(a) == 0, sign, key), kind="stable")


UniqueAll = collections.namedtuple("UniqueAll", "values indices inverse_indices counts")
UniqueCounts = collections.namedtuple("UniqueCounts", "values counts")
UniqueInverse = collections.namedtuple("UniqueInverse", "values inverse_indices")


# Unverified; tools/check_stand_in_claims.py: unique-nans-by-bits
def _cupy_unique(x: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """CuPy's ``unique(equal_nan=False)`` (cupy/_manipulation/add_remove.py):
    values, indices, inverse and counts, in the order of CuPy's stable sort,
    so a 1-D float array's NaNs follow their bits (see :func:`_radix_order`)."""
    flat = np.asarray(x).ravel()
    order = np.asarray(fake_argsort(flat))
    ordered = flat[order]
    first = np.ones(ordered.shape, dtype=bool)
    first[1:] = ordered[1:] != ordered[:-1]
    inverse = np.empty(flat.shape, dtype=np.intp)
    inverse[order] = np.cumsum(first) - 1
    counts = np.diff(np.append(np.flatnonzero(first), flat.size))
    return ordered[first], order[first], inverse.reshape(np.shape(x)), counts


def fake_unique_all(x: Any) -> Any:
    return UniqueAll(*(make(part) for part in _cupy_unique(x)))


def fake_unique_counts(x: Any) -> Any:
    values, _, _, counts = _cupy_unique(x)
    return UniqueCounts(make(values), make(counts))


def fake_unique_inverse(x: Any) -> Any:
    values, _, inverse, _ = _cupy_unique(x)
    return UniqueInverse(make(values), make(inverse))


def fake_unique_values(x: Any) -> FakeArray:
    return make(_cupy_unique(x)[0])


# Unverified; tools/check_stand_in_claims.py: isin-nan-first
def fake_isin(
    element: Any, test_elements: Any, assume_unique: bool = False, invert: bool = False
) -> FakeArray:
    """``cupy.isin``: ``test_elements`` sorted with ``cupy.sort``, then a binary
    search with plain comparisons (``_exists_kernel`` in cupy/_sorting/search.py),
    which a NaN at the front of the sorted values leads astray."""
    x = np.asarray(element)
    bins = np.asarray(fake_sort(np.ravel(test_elements)))
    if x.size == 0 or bins.size == 0:
        return make(np.full(x.shape, invert))
    with np.errstate(invalid="ignore"):
        left, right = np.zeros(x.shape, np.intp), np.full(x.shape, bins.size - 1)
        while (left < right).any():
            middle = left + (right - left) // 2
            below = (left < right) & (bins[middle] < x)
            left, right = np.where(below, middle + 1, left), np.where(below, right, middle)
        found = ~(x > bins[-1]) & (bins[right] == x)
    return make(found != invert)


# Unverified; tools/check_stand_in_claims.py: clip-nan-bound
def fake_clip(a: Any, a_min: Any, a_max: Any, out: Any = None) -> FakeArray:
    """``cupy.clip``: CuPy's kernel, ``max if min > max else`` ``a`` clamped.

    Comparisons with NaN are false, so a NaN bound is ignored (NumPy's clip
    gives NaN) and a NaN ``a`` stays NaN unless ``min > max``.
    """
    floating = a.dtype.kind == "f"
    if a_min is None:
        a_min = -np.inf if floating else np.iinfo(a.dtype).min
    if a_max is None:
        a_max = np.inf if floating else np.iinfo(a.dtype).max
    with np.errstate(invalid="ignore"):
        clamped = np.where(a < a_min, a_min, np.where(a > a_max, a_max, a))
        return make(np.where(a_min > a_max, a_max, clamped))


# Unverified; tools/check_stand_in_claims.py: sign-of-nan
def fake_sign_before_14_2(x: Any) -> FakeArray:
    """``cupy.sign`` before 14.2: 0 for NaN, ``x / abs(x)`` (NaN) for a complex zero
    (and 0 for a float32 subnormal, as from 14.2: see :func:`_flushing`)."""
    with np.errstate(invalid="ignore"):
        if x.dtype.kind == "c":
            return make(x / np.abs(x))
        x = _flushed(np.asarray(x))
        return make(np.where(np.isnan(x), 0, np.sign(x)) if x.dtype.kind == "f" else np.sign(x))


def fake_repeat_before_14_1(a: Any, repeats: Any, axis: int | None = None) -> FakeArray:
    """``cupy.repeat`` before 14.1: ``repeats`` cannot be a GPU array."""
    if isinstance(repeats, FakeArray):
        raise ValueError("cupy.ndaray cannot be specified as `repeats` argument.")
    return make(np.repeat(a, repeats, axis))


def fake_reshape(a: Any, newshape: Any, order: str = "C", *, copy: bool | None = None) -> Any:
    """``cupy.reshape`` from 14.2 (a view of ``a`` where possible)."""
    return _as_fake(np.reshape(a, newshape, order=order, copy=copy))


def fake_reshape_before_14_2(a: Any, newshape: Any, order: str = "C") -> Any:
    """``cupy.reshape`` before 14.2: no ``copy``."""
    return _as_fake(np.reshape(a, newshape, order=order))


# -- ufunc.at: CuPy's scatter ------------------------------------------------------
#
# With an integer index array (or several index arrays) CuPy's ufunc.at runs
# _scatter_op_single (cupy/_core/_routines_indexing.pyx): CUDA atomics, for a
# few dtypes only. Other indices update in place, as NumPy's .at does.

# The dtypes of each ufunc's scatter, and the release whose scatter took int64.
# Unverified; tools/check_stand_in_claims.py: scatter-dtypes-*
_SCATTER_DTYPES = {
    "add": ("int32", "float16", "float32", "float64", "uint32", "uint64"),
    "subtract": ("int32", "uint32"),
    "maximum": ("int32", "float32", "float64", "uint32", "uint64"),
    "minimum": ("int32", "float32", "float64", "uint32", "uint64"),
    "bitwise_and": ("int32", "int64", "uint32", "uint64"),
    "bitwise_or": ("int32", "int64", "uint32", "uint64"),
    "bitwise_xor": ("int32", "int64", "uint32", "uint64"),
}
_SCATTERS_INT64_SINCE = {"add": (14, 1), "maximum": (14, 1), "minimum": (14, 1)}
# CuPy's float atomicMax/atomicMin (cupy/_core/include/cupy/atomics.cuh) compare
# with fmaxf/fminf, also for double: NaN is dropped, a double goes through float.
# Unverified; tools/check_stand_in_claims.py: scatter-max-drops-nan
_NAN_DROPPING = {"maximum": np.fmax, "minimum": np.fmin}


class FakeUfunc:
    """A CuPy ufunc: NumPy's ``ufunc`` when called, CuPy's scatter as ``.at``."""

    def __init__(self, ufunc: np.ufunc, release: tuple[int, int]) -> None:
        self.ufunc = ufunc
        self.__doc__ = ufunc.__doc__
        dtypes = _SCATTER_DTYPES.get(ufunc.__name__)
        since = _SCATTERS_INT64_SINCE.get(ufunc.__name__)
        if dtypes is not None and since is not None and release >= since:
            dtypes = (*dtypes, "int64")
        #: The dtypes CuPy's scatter takes; None: CuPy has no ``.at`` for this ufunc.
        self.scatter_dtypes = dtypes

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.ufunc(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        if name == "ufunc":  # not set yet (copy, pickle): no recursion
            raise AttributeError(name)
        return getattr(self.ufunc, name)  # reduce, nin, __name__, ...

    def at(self, a: Any, indices: Any, b: Any = None) -> None:
        """``ufunc.at`` as CuPy's: TypeError for a dtype its atomics lack,
        NaN dropped by floating ``maximum``/``minimum``, doubles compared as floats."""
        name = self.ufunc.__name__
        if self.scatter_dtypes is None:
            raise NotImplementedError(f"`{name}.at` is not supported yet")
        key = _wrapped(a.shape, indices)
        target = np.asarray(a)
        if not _scatters(key):
            self.ufunc.at(target, key, b)
        elif a.dtype.name not in self.scatter_dtypes:
            raise TypeError(
                f"cupy.{name}.at only supports {', '.join(self.scatter_dtypes)} as data type"
            )
        elif name in _NAN_DROPPING and a.dtype.kind == "f":
            _compare_through_float32(_NAN_DROPPING[name], target, key, b)
        else:
            self.ufunc.at(target, key, b)


def _scatters(key: Any) -> bool:
    """Whether CuPy's ``ufunc.at`` scatters with atomics at ``key``: an integer
    index array, or more than one index array."""
    parts = key if isinstance(key, tuple) else (key,)
    arrays = [part for part in parts if isinstance(part, np.ndarray)]
    return len(arrays) > 1 or _has_integer_arrays(key)


def _compare_through_float32(
    nan_dropping: np.ufunc, target: np.ndarray, key: Any, values: Any
) -> None:
    """``atomicMax``/``atomicMin`` of float32 values at ``key``: ``fmaxf(value,
    stored)`` for each, so NaN values are dropped and a float64 target ends up
    holding float32 numbers at the positions touched."""
    touched = np.zeros(target.shape, dtype=bool)
    touched[key] = True
    with np.errstate(all="ignore"):
        work = target.astype(np.float32)
        nan_dropping.at(work, key, np.asarray(values, dtype=target.dtype).astype(np.float32))
    np.copyto(target, work, where=touched)


# -- CuPy's kernels where they compute differently from NumPy's -----------------
#
# Each takes CuPy's arguments (``out=`` for the ufuncs) and Python scalars as
# NumPy does; the comment says where in CuPy 14's source the difference is.


def _into(out: Any, result: Any) -> Any:
    """``result`` as a fresh FakeArray, or written into ``out`` (a ufunc's ``out=``)."""
    if out is None:
        return make(result)
    out[...] = result
    return out


def _operands(x1: Any, x2: Any) -> tuple[np.ndarray, np.ndarray]:
    """Two operands as NumPy arrays of their result dtype (Python scalars are weak)."""
    dtype = np.result_type(x1, x2)
    return np.asarray(x1, dtype=dtype), np.asarray(x2, dtype=dtype)


def _complex(real: np.ndarray, imag: np.ndarray) -> np.ndarray:
    result = np.empty(np.broadcast_shapes(real.shape, imag.shape), np.result_type(real, 1j))
    result.real, result.imag = real, imag
    return result


# Unverified; tools/check_stand_in_claims.py: complex-divide-scaled
def _cupy_complex_divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """CuPy's complex ``operator/`` (cupy/_core/include/cupy/complex/arithmetic.h).

    Both operands are scaled by ``1 / (|c| + |d|)`` first, so an infinite
    ``c + di`` gives NaNs (NumPy's Smith division gives signed zeros).
    """
    with np.errstate(all="ignore"):
        c, d = b.real, b.imag
        scale = 1 / (np.abs(c) + np.abs(d))
        ar, ai, br, bi = a.real * scale, a.imag * scale, c * scale, d * scale
        scale = 1 / (br * br + bi * bi)
        return _complex((ar * br + ai * bi) * scale, (ai * br - ar * bi) * scale)


def fake_divide(x1: Any, x2: Any, out: Any = None) -> Any:
    """``cupy.divide``: complex operands divide with CuPy's ``operator/``."""
    a, b = _operands(x1, x2)
    if a.dtype.kind != "c":
        return np.divide(x1, x2, out=out)
    return _into(out, _cupy_complex_divide(a, b))


def fake_reciprocal(x: Any, out: Any = None) -> Any:
    """``cupy.reciprocal``: ``in0_type(1) / in0`` for complex x (cupy/_math/arithmetic.py)."""
    if x.dtype.kind != "c":
        return np.reciprocal(x, out=out)
    return _into(out, _cupy_complex_divide(np.ones((), x.dtype), np.asarray(x)))


def _flushed(x: np.ndarray) -> np.ndarray:
    """``x`` with float32 subnormals made zeros of their sign, as ``-ftz=true`` does."""
    if x.dtype != np.float32:
        return x
    return np.where(np.abs(x) < np.finfo(np.float32).tiny, np.copysign(np.float32(0), x), x)


# Unverified; tools/check_stand_in_claims.py: unary-ftz, other-no-ftz
def _flushing(function: Callable[..., Any]) -> Callable[..., Any]:
    """NumPy's unary ``function`` as CuPy's kernel computes it for float32:
    subnormal inputs and results are zeros of their sign (``-ftz=true``), so
    ``floor(-1e-40)`` is -0.0 (NumPy: -1.0) and ``sign(-1e-40)`` is 0."""

    def call(x: Any, out: Any = None) -> Any:
        if x.dtype != np.float32:
            return function(x, out=out)
        return _into(out, _flushed(function(_flushed(np.asarray(x)))))

    call.__name__ = call.__qualname__ = function.__name__
    return call


# Unverified; tools/check_stand_in_claims.py: nextafter-ftz
def fake_nextafter(x1: Any, x2: Any, out: Any = None) -> Any:
    """``cupy.nextafter``: float32 subnormals in and out flushed to zero.

    CuPy compiles with ``-ftz=true`` (cupy/cuda/compiler.py), so
    ``nextafter(0, 1)`` is 0 in float32. float16's own kernel
    (cupy/_core/include/cupy/float16.cuh) gives NaN for an infinite ``x1``.
    """
    a, b = _operands(x1, x2)
    with np.errstate(all="ignore"):
        if a.dtype == np.float16:
            return _into(out, np.where(np.isinf(a), np.float16("nan"), np.nextafter(a, b)))
        return _into(out, _flushed(np.nextafter(_flushed(a), _flushed(b))))


# Unverified; tools/check_stand_in_claims.py: floor-divide-floor
def fake_floor_divide(x1: Any, x2: Any, out: Any = None) -> Any:
    """``cupy.floor_divide``: ``floor(x1 / x2)`` for floats (cupy/_core/include/cupy/carray.cuh).

    NumPy's divmod gives 9.0 for ``1.0 // 0.1`` (0.1 is a little more than
    a tenth), CuPy 10.0; NumPy gives NaN for ``inf // 2``, CuPy inf.
    """
    a, b = _operands(x1, x2)
    if a.dtype.kind != "f":
        return np.floor_divide(x1, x2, out=out)
    with np.errstate(all="ignore"):
        return _into(out, np.floor(a / b))


# Unverified; tools/check_stand_in_claims.py: remainder-floor
def fake_remainder(x1: Any, x2: Any, out: Any = None) -> Any:
    """``cupy.remainder``: ``x1 - floor(x1 / x2) * x2`` for floats (cupy/_core/_routines_math.pyx).

    So ``1.0 % inf`` is NaN (NumPy: 1.0) and ``1.0 % 0.1`` is about -1e-16
    (NumPy: about 0.1).
    """
    a, b = _operands(x1, x2)
    if a.dtype.kind != "f":
        return np.remainder(x1, x2, out=out)
    with np.errstate(all="ignore"):
        return _into(out, a - np.floor(a / b) * b)


# Unverified; tools/check_stand_in_claims.py: complex-expm1-inexact
def fake_expm1(x: Any, out: Any = None) -> Any:
    """``cupy.expm1``: ``exp(z) - 1`` for complex z (cupy/_core/include/cupy/complex.cuh).

    Inaccurate near zero (``expm1(1e-10+0j)`` is off by 8e-8 relative), where
    NumPy's formula is not.
    """
    if x.dtype.kind != "c":
        return np.expm1(x, out=out)
    with np.errstate(all="ignore"):
        return _into(out, np.exp(x) - 1)


class _LinalgErrors:
    """``cupyx.errstate(linalg=...)``'s setting: CuPy's default is "ignore"."""

    mode = "ignore"


def fake_cupyx() -> Any:
    """A stand-in ``cupyx`` with ``errstate(linalg=)``, which the linalg below obeys."""
    import contextlib

    @contextlib.contextmanager
    def errstate(*, linalg: str | None = None, **_: Any) -> Any:
        before = _LinalgErrors.mode
        _LinalgErrors.mode = linalg or before
        try:
            yield
        finally:
            _LinalgErrors.mode = before

    module: Any = types.ModuleType("cupyx")
    module.errstate = errstate
    module.__spec__ = importlib.machinery.ModuleSpec("cupyx", None)
    return module


def _as_cusolver(function: Callable[..., Any], routine: str) -> Callable[..., Any]:
    """NumPy's ``function`` failing as cuSOLVER does under CuPy: a LinAlgError
    only under ``errstate(linalg="raise")``, else NaNs in ``a``'s shape."""

    def call(a: Any, *args: Any) -> Any:
        try:
            return function(a, *args)
        except np.linalg.LinAlgError:
            if _LinalgErrors.mode == "raise":
                raise np.linalg.LinAlgError(
                    f"Error reported by {routine} in cuSOLVER. devInfo = [1]. Please refer"
                    " to the cuSOLVER documentation."
                ) from None
            return np.full(np.broadcast_shapes(a.shape, *(b.shape for b in args)), np.nan)

    return call


# Unverified; tools/check_stand_in_claims.py: singular-inv-nan
def fake_linalg(missing: set[str]) -> types.SimpleNamespace:
    """``cupy.linalg``: CuPy's names and signatures, NumPy's arithmetic.

    ``cholesky``, ``matrix_rank``, ``pinv`` and ``solve`` take CuPy's arguments,
    so the standard's ``upper=`` and ``rtol=`` raise TypeError, ``solve``
    refuses stacks of right-hand sides whose shape is not the matrices', and
    ``cross`` operands of different shapes.
    ``inv``, ``solve`` and ``cholesky`` fail as cuSOLVER does under CuPy: NaNs,
    unless ``cupyx.errstate(linalg="raise")``.
    """

    def cholesky(a: Any) -> Any:
        return _as_cusolver(np.linalg.cholesky, "potrf")(a)

    def matrix_rank(M: Any, tol: Any = None) -> Any:
        return np.linalg.matrix_rank(M, tol=tol)

    def pinv(a: Any, rcond: Any = 1e-15) -> Any:
        return np.linalg.pinv(a, rcond=rcond)

    def cross(x1: Any, x2: Any, /, *, axis: int = -1) -> Any:
        if x1.shape != x2.shape:  # CuPy 14's linalg.cross does not broadcast
            raise ValueError("x1 and x2 must have the same shape")
        return np.linalg.cross(x1, x2, axis=axis)

    def solve(a: Any, b: Any) -> Any:
        if b.ndim > 1 and a.shape[:-1] != b.shape[:-1]:
            raise ValueError(
                "a must have (..., M, M) shape and b must have (..., M, K) for multidimensional b"
            )
        return _as_cusolver(np.linalg.solve, "getrf")(a, b)

    functions = {name: getattr(np.linalg, name) for name in _SHARED_LINALG}
    functions.update(
        cholesky=cholesky,
        cross=cross,
        inv=_as_cusolver(np.linalg.inv, "getrf"),
        matrix_rank=matrix_rank,
        pinv=pinv,
        solve=solve,
    )
    names = {name: _returning_fakes(f) for name, f in functions.items() if name not in missing}
    return types.SimpleNamespace(LinAlgError=np.linalg.LinAlgError, **names)


def fake_asnumpy(array: Any, stream: Any = None) -> np.ndarray:
    return np.array(array, copy=True)


class FakeEvent:
    def __init__(self, block: bool = False, disable_timing: bool = False) -> None:
        self.done = False
        self.synchronized = False

    def synchronize(self) -> None:
        self.synchronized = True
        self.done = True


class FakeStream:
    def __init__(self, ptr: int) -> None:
        self.ptr = ptr
        self.recorded: list[FakeEvent] = []
        self.waited: list[FakeEvent] = []

    def record(self, event: FakeEvent | None = None) -> FakeEvent:
        event = FakeEvent() if event is None else event
        self.recorded.append(event)
        return event

    def wait_event(self, event: FakeEvent) -> None:
        self.waited.append(event)

    def __enter__(self) -> FakeStream:
        return self

    def __exit__(self, *args: object) -> None:
        return None


class FakeCupyStream(FakeStream):
    """``cupy.cuda.Stream``: a new stream with a pointer of its own, and the
    named ones. CuPy 14's ``Stream.from_external`` takes the CUDA stream
    protocol (its ExternalStream is deprecated, so the stand-in has none)."""

    _pointers = itertools.count(1000)
    created: ClassVar[list[FakeCupyStream]] = []
    null: ClassVar[FakeStream] = FakeStream(0)
    ptds: ClassVar[FakeStream] = FakeStream(2)

    def __init__(self, null: bool = False, non_blocking: bool = False) -> None:
        super().__init__(next(self._pointers))
        FakeCupyStream.created.append(self)

    @staticmethod
    def from_external(foreign: Any) -> FakeStream:
        return FakeStream(foreign.__cuda_stream__()[1])


class FakeDevice:
    """``cupy.cuda.Device``: entering makes it the stand-in's current device."""

    entered: ClassVar[list[int]] = []
    #: The stand-in ``cupy.cuda`` whose current device this class sets.
    cuda: ClassVar[Any] = None

    def __init__(self, device_id: int) -> None:
        self.id = device_id
        self._previous: list[int] = []

    def __enter__(self) -> FakeDevice:
        FakeDevice.entered.append(self.id)
        if self.cuda is not None:
            self._previous.append(self.cuda.current_device)
            self.cuda.current_device = self.id
        return self

    def __exit__(self, *args: object) -> None:
        if self.cuda is not None:
            self.cuda.current_device = self._previous.pop()

    def synchronize(self) -> None:
        return None


class FakeCuda:
    """``cupy.cuda``: a current device and a current stream that tests set."""

    Event = FakeEvent
    Stream = FakeCupyStream

    def __init__(self) -> None:
        # Each stand-in cupy has its own Device class, tied to its current device.
        self.Device = type("FakeDevice", (FakeDevice,), {"cuda": self})
        self.current = FakeStream(ptr=100)
        self.current_device = 0
        self.device_count = 2
        self.runtime = types.SimpleNamespace(
            getDevice=lambda: self.current_device,
            getDeviceCount=lambda: self.device_count,
            getDeviceProperties=lambda index: {"name": b"stand-in GPU"},
            CUDARuntimeError=RuntimeError,
        )

    def get_current_stream(self, device_id: int = -1) -> FakeStream:
        return self.current


# Unverified; tools/check_stand_in_claims.py: fft-empty-refused
def fake_fft() -> Any:
    """``cupy.fft``: NumPy's, except that a transform of an empty array raises, as
    a cuFFT plan of 0 transforms does (NumPy returns an empty result)."""
    module: Any = types.ModuleType("cupy.fft")
    for name in dir(np.fft):
        if not name.startswith("_"):
            setattr(module, name, getattr(np.fft, name))

    def refusing_empty(transform: Callable[..., Any]) -> Callable[..., Any]:
        def call(x: Any, *args: Any, **kwargs: Any) -> Any:
            if np.asarray(x).size == 0:
                raise ValueError("Invalid number of FFT data points (0) specified.")
            return transform(x, *args, **kwargs)

        call.__name__ = transform.__name__
        return call

    for name in ("fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft"):
        setattr(module, name, refusing_empty(getattr(np.fft, name)))
    return module


def fake_cupy(release: tuple[int, int] = RELEASES[-1], missing: tuple[str, ...] = ()) -> Any:
    """A stand-in ``cupy`` of CuPy ``release``, also lacking the names in ``missing``.

    A name in ``missing`` is ``"name"`` or ``"linalg.name"``.
    """
    gaps = {*CUPY_GAPS, *missing, *(name for name, added in ADDED_IN.items() if release < added)}
    module: Any = types.ModuleType("cupy")
    for name in dir(np):
        if name.startswith("_") or name in gaps:
            continue
        value = getattr(np, name)
        if isinstance(value, np.ufunc):
            value = FakeUfunc(value, release)  # returns FakeArrays, as NumPy's ufunc does
        elif callable(value) and not isinstance(value, type):
            value = _returning_fakes(value)
        setattr(module, name, value)
    module.take = fake_take
    module.broadcast_to = fake_broadcast_to
    module.broadcast_arrays = fake_broadcast_arrays
    module.sort = fake_sort
    module.argsort = fake_argsort
    module.unique_all = fake_unique_all
    module.unique_counts = fake_unique_counts
    module.unique_inverse = fake_unique_inverse
    module.unique_values = fake_unique_values
    module.isin = fake_isin
    module.clip = fake_clip
    module.divide = module.true_divide = fake_divide
    module.reciprocal = fake_reciprocal
    module.nextafter = fake_nextafter
    module.floor_divide = fake_floor_divide
    module.remainder = module.mod = fake_remainder
    module.expm1 = fake_expm1
    for name in ("ceil", "floor", "trunc", "sign", "square"):
        setattr(module, name, _flushing(getattr(np, name)))
    module.reshape = fake_reshape if release >= (14, 2) else fake_reshape_before_14_2
    if release < (14, 1):
        module.repeat = fake_repeat_before_14_1
    if release < (14, 2):
        module.sign = fake_sign_before_14_2
    module.ndarray = FakeArray
    module.array = fake_array
    module.asarray = fake_asarray
    module.asnumpy = fake_asnumpy
    module.from_dlpack = fake_from_dlpack
    module.linalg = fake_linalg({name[len("linalg.") :] for name in gaps})
    module.fft = fake_fft()
    module.cuda = FakeCuda()
    module.__version__ = f"{release[0]}.{release[1]}.0+stand-in"
    return module


def load_backend_module(
    monkeypatch: pytest.MonkeyPatch, release: tuple[int, int] = RELEASES[-1]
) -> types.ModuleType:
    """``cowarray._backends.cupy`` loaded against a fresh stand-in ``cupy`` of ``release``.

    The stand-in's ``cuda`` object is the module's attribute ``fake``.
    """
    return _load_backend_module(monkeypatch.setitem, release)


def serve_cuda_from_stand_in() -> None:
    """For the rest of the process, ``cuda:N`` devices compute with the stand-in.

    The test run ``COWARRAY_TEST_STAND_IN_GPU=1 python -m pytest`` (see the root
    ``conftest.py``) uses it to run the suite's ``cuda:0`` parametrizations
    through the CuPy backend and its namespace without a GPU. It checks what
    the backend and the tests ask of CuPy's API, not what a GPU does.
    ``COWARRAY_TEST_STAND_IN_CUPY=14.0`` (or ``14.1``) simulates that release
    instead of the newest. NumPy's floating-point warnings are off, as CuPy
    reports no floating-point errors (only the cuda tests run).
    """
    from cowarray import _backends

    asked = os.environ.get("COWARRAY_TEST_STAND_IN_CUPY")
    release = RELEASES[-1] if not asked else _release(asked)
    module = _load_backend_module(operator.setitem, release)
    serve_host = _backends.backend_for

    def backend_for(device: Any) -> Any:
        return module.cupy_backend(device.index) if device.kind == "cuda" else serve_host(device)

    _backends.backend_for = backend_for  # type: ignore[assignment]
    np.seterr(all="ignore")


def _release(text: str) -> tuple[int, int]:
    """``"14.0"`` as ``(14, 0)``, one of :data:`RELEASES`."""
    major, minor = (int(number) for number in text.split(".")[:2])
    if (major, minor) not in RELEASES:
        raise ValueError(f"the stand-in simulates CuPy {RELEASES}, not {text}")
    return major, minor


def _load_backend_module(
    setitem: Callable[[Any, str, Any], None], release: tuple[int, int]
) -> types.ModuleType:
    cupy = fake_cupy(release)
    # A spec, so that importlib.util.find_spec("cupy") finds the stand-in.
    cupy.__spec__ = importlib.machinery.ModuleSpec("cupy", None)
    setitem(sys.modules, "cupy", cupy)
    setitem(sys.modules, "cupyx", fake_cupyx())
    for name in ("_cupy_namespace", "cupy"):
        spec = importlib.util.spec_from_file_location(
            f"cowarray._backends.{name}", BACKENDS / f"{name}.py"
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        setitem(sys.modules, spec.name, module)
        spec.loader.exec_module(module)
    module.fake = cupy.cuda  # type: ignore[attr-defined]
    return module
