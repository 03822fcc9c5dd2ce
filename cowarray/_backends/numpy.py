"""The NumPy backend: host memory, NumPy's allocator and bulk copy."""

from __future__ import annotations

import sys
import types
import warnings
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Any, Final

import numpy as np

from .._deaths import call_at_death
from . import _common, _error_state, _pages
from ._parallel import parallel_ufunc
from .base import STANDARD_NAMES

__all__ = ["NUMPY_BACKEND", "NumpyBackend"]


def _reshape(x: np.ndarray, shape: tuple[int, ...], copy: bool | None = None) -> np.ndarray:
    # The method skips np.reshape's Python-level dispatch (half its cost),
    # and without a copy= keyword it costs half again (2241 -> 4290 instructions).
    if copy is None:
        return x.reshape(shape)
    return x.reshape(shape, copy=copy)


def _floor_divide(x1: Any, x2: Any, /, out: Any = None) -> Any:
    # The standard's true quotient where exactly one operand is infinite
    # (_common.floor_divide); only where there is one, as it costs passes.
    dtype = np.result_type(x1, x2)
    if dtype.kind != "f" or not (np.isinf(x1) != np.isinf(x2)).any():
        return _PARALLEL["floor_divide"](x1, x2, out=out)
    # (Python scalars as arrays of the result's dtype, as NumPy reads them)
    a = x1 if type(x1) is np.ndarray else np.asarray(x1, dtype=dtype)
    b = x2 if type(x2) is np.ndarray else np.asarray(x2, dtype=dtype)
    return _common.floor_divide(np, a, b, out, np.floor_divide)


def _expm1(x: np.ndarray, /) -> Any:
    # NumPy's complex expm1 misses the standard's special values (_common),
    # where the real part is not finite. Those are computed with every flag
    # ignored (a copy of a context made at import: nothing is set now); the
    # others by NumPy's kernel as they are, so its flags are NumPy's own.
    if x.dtype.kind != "c":
        return _PARALLEL["expm1"](x)
    special = ~np.isfinite(x.real)
    if not special.any():
        return _common.expm1_special_values(np, x, np.expm1(x))
    ordinary = np.expm1(np.where(special, 0, x))
    return _error_state.ignoring(_common.expm1_special_values, np, x, ordinary)


def _tanh(x: np.ndarray, /) -> Any:
    return _common.tanh_special_values(np, x, _PARALLEL["tanh"](x))


# Standard names that NumPy spells differently, lacks, or serves slowly.
# NumPy 2 already has most 2025.12 names (acos, concat, permute_dims, pow, ...).
_RENAMED: dict[str, Any] = {"reshape": _reshape}
_RENAMED.update(std=_common.std, var=_common.var)
_RENAMED.update(floor_divide=_floor_divide, expm1=_expm1, tanh=_tanh)

# The ufuncs whose unbuffered ``.at`` serves index_update (duplicates accumulate).
_UNBUFFERED: dict[str, np.ufunc] = {
    "add": np.add,
    "subtract": np.subtract,
    "multiply": np.multiply,
    "divide": np.divide,
    "pow": np.power,
    "minimum": np.minimum,
    "maximum": np.maximum,
}


# The standard's element-wise functions (and the operators' functions) that
# NumPy serves with a ufunc (those of the standard's names that are ufuncs of
# one output and no signature): above a size threshold the namespace computes
# them on every core, bitwise as NumPy does (cowarray/_backends/_parallel.py).
def _parallel_ufuncs() -> dict[str, Any]:
    ufuncs = {name: getattr(np, name, None) for name in STANDARD_NAMES}
    return {
        name: parallel_ufunc(ufunc)
        for name, ufunc in ufuncs.items()
        if isinstance(ufunc, np.ufunc) and ufunc.signature is None and ufunc.nout == 1
    }


#: name -> the ufunc, split over threads for big arrays
_PARALLEL: Final = _parallel_ufuncs()


def _reduction(ufunc: Any) -> Callable[..., Any]:
    """``np.sum`` (``np.prod``, ``np.max``, ``np.min``) of an ndarray, which is
    ``np.add.reduce`` (``np.multiply.reduce``, ``np.maximum.reduce``,
    ``np.minimum.reduce``) of it, without the dispatch layers that are half
    of ``np.sum`` on 10^3 elements (1.7 us) and more of ``np.max``."""
    reduce: Any = ufunc.reduce  # (Any: NumPy's stubs refuse keepdims by position)

    def reduction(
        a: Any,
        axis: Any = None,
        dtype: Any = None,
        out: Any = None,
        keepdims: bool = False,
        **more: Any,
    ) -> Any:
        if more:
            return reduce(a, axis, dtype, out, keepdims, **more)
        return reduce(a, axis, dtype, out, keepdims)

    return reduction


def _standard_namespace() -> types.SimpleNamespace:
    names = {name: getattr(np, name) for name in dir(np) if not name.startswith("_")}
    names.update(_PARALLEL)
    names.update(_RENAMED)
    names.update(
        sum=_reduction(np.add),
        prod=_reduction(np.multiply),
        max=_reduction(np.maximum),
        min=_reduction(np.minimum),
    )
    names["linalg"] = np.linalg
    names["fft"] = np.fft
    return types.SimpleNamespace(**names)


class _NumpyExport:
    """The base object of the NumPy view handed out by ``__array__``.

    NumPy reads ``__array_interface__`` once, when the view is made; it is
    deleted right after. NumPy points every view later derived from that
    one at this object, so it dies with the last of them: then its death
    watch (cowarray._deaths) lets the memory go and the exposure's release runs.
    """

    __slots__ = ("__array_interface__", "__weakref__")
    __array_interface__: dict[str, Any]


# in-place element-wise operations that set no floating-point flag on
# integer or boolean data (integer division and remainder by zero do)
_EXACT_ON_INTEGERS: Final = frozenset(
    {
        "add",
        "subtract",
        "multiply",
        "bitwise_and",
        "bitwise_or",
        "bitwise_xor",
        "bitwise_left_shift",
        "bitwise_right_shift",
    }
)


#: NumPy's floating-point error state: a context variable whose value is
#: replaced (never changed in place) by np.errstate and np.seterr, so the
#: verdict for the last value seen is kept with it (a strong reference: its
#: identity cannot be reused). None where NumPy keeps it elsewhere.
_ERROR_STATE: Final = getattr(
    getattr(getattr(np, "_core", None), "_ufunc_config", None), "_extobj_contextvar", None
)
_last_error_state: tuple[Any, bool | None] = (None, None)  # (the state object, its verdict)


def _read_error_state() -> bool | None:
    """The verdict for NumPy's error state now, remembered with the state's
    value where NumPy keeps it in a context variable: False if NumPy ignores
    every floating-point error, True if one raises or calls out, None if
    some only warn or print (the warning filters decide)."""
    global _last_error_state
    state = None if _ERROR_STATE is None else _ERROR_STATE.get()
    modes = np.geterr()
    values = set(modes.values())
    verdict: bool | None
    if values == {"ignore"}:
        verdict = False
    elif values & {"raise", "call", "log"}:
        verdict = True
    else:
        verdict = None
    if state is not None:
        _last_error_state = (state, verdict)
    return verdict


#: The warning filters last read, and what they said (a copy of the list of
#: the very filter entries, compared with the live list element by element,
#: identical at first; anything else is read again).
_last_filters: tuple[list[Any] | None, bool] = (None, False)


#: Whether the warning filters live in a context variable (3.14's
#: ``-X context_aware_warnings``; set at start-up, read once).
_CONTEXT_AWARE_WARNINGS: Final = bool(getattr(sys.flags, "context_aware_warnings", False))


def _read_filters(filters: Sequence[Any]) -> bool:
    """Whether the warning filters ``filters`` (the warnings module's list)
    may turn a RuntimeWarning into an exception, remembered with a copy of
    them (the list changes in place)."""
    global _last_filters
    copy = list(filters)
    answer = _filters_may_raise(copy)
    _last_filters = (copy, answer)
    return answer


def _filters_may_raise(filters: Sequence[Any]) -> bool:
    for action, message, category, module, lineno in filters:
        if not isinstance(category, type):
            return True  # not a filter this understands
        catches_all = issubclass(RuntimeWarning, category)
        if not (catches_all or issubclass(category, RuntimeWarning)):
            continue
        if action == "error":
            return True
        if catches_all and message is None and module is None and not lineno:
            return False  # the first filter that takes every RuntimeWarning decides
    return False


# What the warnings module shows a warning with when nobody replaced it
# (read once: every in-place write that may warn compares them).
_SHOWWARNING: Final = warnings._showwarning_orig  # type: ignore[attr-defined]
_FORMATWARNING: Final = warnings._formatwarning_orig  # type: ignore[attr-defined]
_SHOW_MSG: Final = warnings._showwarnmsg  # type: ignore[attr-defined]
_SHOW_MSG_IMPL: Final = warnings._showwarnmsg_impl  # type: ignore[attr-defined]
_FORMAT_MSG: Final = warnings._formatwarnmsg  # type: ignore[attr-defined]
_FORMAT_MSG_IMPL: Final = warnings._formatwarnmsg_impl  # type: ignore[attr-defined]
_APPEND: Final[type] = type([].append)


def _recorded(impl: object) -> bool:
    """Whether ``impl``, the warnings module's replaced ``_showwarnmsg_impl``,
    is ``catch_warnings(record=True)``'s: a list's append, which cannot raise."""
    return type(impl) is _APPEND and type(getattr(impl, "__self__", None)) is list


#: DLPack's (kDLCPU, 0): host memory.
_DL_CPU: tuple[int, int] = (1, 0)


class _CapsuleProducer:
    """Hands a capsule already in hand to ``np.from_dlpack``, which wants a producer."""

    __slots__ = ("_capsule", "_device")

    def __init__(self, capsule: object, device: tuple[int, int]) -> None:
        self._capsule = capsule
        self._device = device

    def __dlpack__(self, **_: object) -> object:
        return self._capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return self._device


class NumpyBackend:
    """Host arrays through NumPy."""

    name = "numpy"
    array_type = np.ndarray
    wraps_out_of_range_indices = False  # NumPy raises IndexError itself
    sees_every_write = False  # host memory: no stream orders a write

    def __init__(self) -> None:
        self.xp = _standard_namespace()
        # The method descriptor: no Python frame between cowarray and NumPy.
        self.reshape_view: Callable[[Any, tuple[Any, ...]], Any] = np.ndarray.reshape
        # asarray's keyword-free case, without its Python frame (a sixth of x[i])
        self.plain_asarray: Callable[[Any], Any] = np.asarray
        #: Copies of NumPy data at least this big go to page blocks (None: never).
        self.page_memory_min: int | None = None

    def asarray(self, obj: Any, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        if dtype is None and copy is None:
            return np.asarray(obj)  # (keywords cost NumPy half again: x[i]'s 0-d array)
        if copy and self.page_memory_min is not None and type(obj) is np.ndarray:
            paged = self._page_copy(obj, dtype)
            if paged is not None:
                return paged
        return np.asarray(obj, dtype=dtype, copy=copy)

    def _page_copy(self, obj: np.ndarray, dtype: Any) -> np.ndarray | None:
        assert self.page_memory_min is not None
        if obj.nbytes < self.page_memory_min or (dtype is not None and dtype != obj.dtype):
            return None
        paged: np.ndarray | None = _pages.allocate(obj.shape, obj.dtype)
        if paged is not None:
            np.copyto(paged, obj)
        return paged

    # -- page-granular copy-on-write (docs/design.md §5): cowarray/_backends/_pages.py
    #    (the optional capability base.PageCowCapable; no streams: host memory)

    def set_page_memory(self, min_bytes: int | None) -> None:
        """Copies of NumPy data of ``min_bytes`` or more go to page blocks (None: none)."""
        self.page_memory_min = min_bytes if _pages.AVAILABLE else None

    def page_write_extent(self, data: np.ndarray, index: Any) -> tuple[int, int]:
        if not _pages.is_page_backed(data):
            return 0, 0
        low, high = np.lib.array_utils.byte_bounds(data)
        spanned = _pages_between(int(low), int(high))
        try:
            region = _written_view(data, index)
            if region is None:
                touched = min(int(np.asarray(data[index]).size), spanned)
            else:
                low, high = np.lib.array_utils.byte_bounds(region)
                touched = _pages_between(int(low), int(high))
        except Exception:  # a bad index: the write itself will say so
            return 0, 0
        return touched, spanned

    def page_clone(self, data: np.ndarray) -> np.ndarray | None:
        if self.must_copy_before_write(data):
            return None
        clone: np.ndarray | None = _pages.clone(data)
        return clone

    def page_copied_bytes(self, clone: np.ndarray, index: Any) -> int:
        region = _written_view(clone, index)
        return _pages.copied_bytes(clone, clone if region is None else region)

    # (the function itself: a method around it was a tenth of to_torch)
    note_write_in_place = staticmethod(_pages.note_write_in_place)

    def copy(self, data: np.ndarray) -> np.ndarray:
        # order="K" keeps a transposed view's layout, so the copy is one
        # streaming pass; the result always owns a compact block.
        return np.array(data, copy=True, order="K", subok=False)

    def memory_owner(self, data: np.ndarray) -> object:
        # NumPy collapses view chains: ``base`` is already the first owner.
        base = data.base
        return data if base is None else base

    def may_share_memory(self, a: np.ndarray, b: np.ndarray) -> bool:
        return bool(np.may_share_memory(a, b))

    def overlaps(self, a: np.ndarray, b: np.ndarray) -> bool:
        if not np.may_share_memory(a, b):
            return False
        try:  # (bounded: a problem too hard to solve quickly counts as overlapping)
            return bool(np.shares_memory(a, b, max_work=_OVERLAP_WORK))
        except np.exceptions.TooHardError:
            return True

    def written_view(self, data: np.ndarray, index: Any) -> np.ndarray | None:
        try:
            return _written_view(data, index)
        except Exception:  # a bad index: the write itself will say so
            return None

    def written_span(self, data: np.ndarray, index: Any) -> np.ndarray | None:
        region = self.written_view(data, index)
        return region if region is not None else _common.span_of_selection(np, data, index)

    def same_elements(self, a: np.ndarray, b: np.ndarray) -> bool:
        # (the addresses last: reading one builds a dictionary, about 1.5 us)
        return (
            a.shape == b.shape
            and a.strides == b.strides
            and a.dtype == b.dtype
            and a.__array_interface__["data"][0] == b.__array_interface__["data"][0]
        )

    def copy_with_view(self, data: np.ndarray, view: np.ndarray) -> Any:
        if not data.flags.c_contiguous:
            return None  # (a copy would place the elements at other offsets)
        start = data.__array_interface__["data"][0]
        first = view.__array_interface__["data"][0]
        low = high = first  # (_common.address_range, inline: x[k] += d on a shared x asks)
        for length, stride in zip(view.shape, view.strides, strict=True):
            if length == 0:
                return None  # (no element to place)
            if stride < 0:
                low += (length - 1) * stride
            else:
                high += (length - 1) * stride
        if low < start or high + view.itemsize > start + data.nbytes:
            return None  # (not elements of data)
        copy = self.copy(data)
        if copy.strides != data.strides:
            return None  # (a length-1 axis with another stride: rare)
        moved = np.ndarray(
            view.shape, view.dtype, buffer=copy, offset=first - start, strides=view.strides
        )
        return copy, moved

    def offset_of(self, view: np.ndarray, data: np.ndarray) -> int:
        first: int = view.__array_interface__["data"][0]
        return first - int(data.__array_interface__["data"][0])

    def errors_may_surface(self, name: str, dtype: Any) -> bool:
        if dtype.kind in "biu" and name in _EXACT_ON_INTEGERS:
            return False
        # The verdicts kept for the error state and the warning filters last
        # seen (one read of each pair: another thread replaces it whole); a
        # new state or new filters are read and remembered. (Every in-place
        # write through the core asks: no call while nothing changed.)
        last_state = _last_error_state
        if _ERROR_STATE is not None and last_state[0] is _ERROR_STATE.get():
            verdict = last_state[1]
        else:
            verdict = _read_error_state()
        if verdict is not None:
            return verdict
        if _CONTEXT_AWARE_WARNINGS:  # "warn" and "print": the warning filters decide
            return True  # (they live in a context this cannot read cheaply)
        filters = warnings.filters
        last_filters = _last_filters
        # (a list compared with a list: no copy of the live one on every write)
        if last_filters[1] if last_filters[0] == filters else _read_filters(filters):
            return True
        # The filters only warn, but a warning is shown by hooks anyone may
        # replace, and a replaced one may raise (``warnings.showwarning``,
        # ``formatwarning``, the private ``_showwarnmsg``, a closed
        # ``sys.stderr``): then an in-place write that warns after NumPy's
        # loop would have changed the array before failing. Taken not to
        # raise: the warnings module's own functions writing to an open
        # ``sys.stderr`` (a stream whose ``write`` raises anything but
        # OSError is the bound docs/design.md names), and
        # ``catch_warnings(record=True)``, which appends to a list.
        module: Any = warnings
        if (
            module.showwarning is not _SHOWWARNING
            or module.formatwarning is not _FORMATWARNING
            or module._showwarnmsg is not _SHOW_MSG
            or module._formatwarnmsg is not _FORMAT_MSG
            or module._formatwarnmsg_impl is not _FORMAT_MSG_IMPL
        ):
            return True
        impl = module._showwarnmsg_impl
        if impl is _SHOW_MSG_IMPL:
            # (a closed stream raises ValueError at its write; any other is
            # trusted to write or raise OSError, which the module drops:
            # notebooks and pytest replace sys.stderr with streams of their own)
            return bool(getattr(sys.stderr, "closed", False))
        return not _recorded(impl)

    def in_place_facts(
        self, name: str, data: np.ndarray, copy_of: np.ndarray | None = None
    ) -> tuple[bool, bool, Any]:
        errors = self.errors_may_surface(name, data.dtype)
        must_copy = self.must_copy_before_write(data)
        if errors or must_copy or copy_of is None:
            return errors, must_copy, None
        return False, False, self.copy_with_view(copy_of, data)

    def must_copy_before_write(self, data: np.ndarray) -> bool:
        if not data.flags.writeable:
            return True
        strides = data.strides
        if 0 not in strides:
            return False
        # A zero stride on an axis longer than one means several elements
        # share one address (a broadcast view): writing one writes them all.
        return any(
            stride == 0 and length > 1
            for stride, length in zip(data.strides, data.shape, strict=True)
        )

    def owner_nbytes(self, data: np.ndarray) -> int:
        owner = data.base  # memory_owner(data), inlined: every first share asks
        if owner is None:
            return data.nbytes
        if isinstance(owner, np.ndarray):
            return owner.nbytes
        try:
            return memoryview(owner).nbytes
        except TypeError:
            return data.nbytes

    def to_numpy(self, data: np.ndarray) -> np.ndarray:
        return data

    def numpy_view(self, data: np.ndarray, on_release: Callable[[], None]) -> np.ndarray:
        export = _NumpyExport()
        interface = data.__array_interface__
        if not data.size and interface["data"][1]:
            # An empty view (of a broadcast, say) has no byte to write: its
            # export is writable like every other (nothing can reach memory).
            interface = {**interface, "data": (interface["data"][0], False)}
        export.__array_interface__ = interface
        call_at_death(export, on_release, keep=data)  # the memory lives as long as its views
        try:
            return np.asarray(export)
        finally:
            del export.__array_interface__

    def from_numpy(self, array: np.ndarray) -> np.ndarray:
        return array

    # -- DLPack ----------------------------------------------------------------

    def dlpack_device(self, data: np.ndarray) -> tuple[int, int]:
        return _DL_CPU

    def dlpack_export_problem(self, data: np.ndarray) -> str | None:
        # DLPack allows negative strides, but torch aborts the whole process
        # on them (torch 2.13: "Storage size calculation overflowed").
        if min(data.strides, default=0) < 0:
            return f"it has negative strides {data.strides}, which DLPack consumers refuse"
        return None

    def export_dlpack(
        self,
        data: np.ndarray,
        *,
        stream: Any,
        max_version: tuple[int, int] | None,
        dl_device: tuple[int, int] | None,
        copy: bool,
        on_release: Callable[[], None] | None,
    ) -> Any:
        # Host memory: no stream to wait on; the policy has checked dl_device.
        # A private view: NumPy's capsule keeps it (and nothing else of ours)
        # alive until the consumer calls the deleter, so its death is the
        # consumer's release.
        view = data.view()
        capsule = view.__dlpack__(max_version=max_version, copy=copy)
        if on_release is not None:
            call_at_death(view, on_release)
        return capsule

    def import_dlpack(self, capsule: Any, dl_device: tuple[int, int]) -> np.ndarray:
        try:
            producer: Any = _CapsuleProducer(capsule, dl_device)
            return np.from_dlpack(producer)
        except RuntimeError as error:  # NumPy's word for an unsupported dtype
            raise BufferError(f"NumPy cannot import this DLPack tensor: {error}") from None

    def index_update(self, target: np.ndarray, index: Any, values: Any, op: str) -> None:
        if op == "set":
            target[index] = values
        else:
            _UNBUFFERED[op].at(target, index, values)

    def check_index_bounds(self, shape: tuple[int, ...], index: Any) -> None:
        return None  # NumPy's indexing checks the bounds itself

    def random_generator(self, seed: np.random.SeedSequence) -> Any:
        # NumPy's own Generator (PCG64) already has every RandomSource method,
        # so a seed gives exactly np.random.default_rng(seed)'s values.
        return np.random.default_rng(seed)

    def device_context(self) -> AbstractContextManager[object]:
        return nullcontext()  # host memory: nothing is current

    def numpy_export_refusal(self) -> str | None:
        return None

    def transfer(self, data: Any, source: Any, stream: Any) -> None:
        return None  # host memory is reached through to_numpy/from_numpy


#: How much work np.shares_memory may do to prove two views disjoint (two
#: strided views of one matrix take a few steps; see NumPy's mem_overlap.c).
_OVERLAP_WORK: Final[Any] = 4096  # (NumPy's stubs admit only its two named modes)


def _pages_between(low: int, high: int) -> int:
    page = _pages.PAGE
    return 0 if high <= low else -(-high // page) - low // page


def _written_view(data: np.ndarray, index: Any) -> np.ndarray | None:
    """The view of ``data`` that ``data[index] = v`` writes (a 0-d view for a
    scalar), or None if the index selects a copy (integer or boolean arrays)."""
    parts = index if isinstance(index, tuple) else (index,)
    if not any(part is Ellipsis for part in parts):
        parts = (*parts, Ellipsis)
    region = data[parts]
    owner = data if data.base is None else data.base  # (NumPy collapses view chains)
    if isinstance(region, np.ndarray) and region.base is owner:
        return region
    return None


NUMPY_BACKEND = NumpyBackend()
