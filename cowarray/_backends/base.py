"""The backend Protocol: what cowarray asks of an array library.

A backend allocates, copies and computes; it knows nothing of copy-on-write.
The op layer calls standard names on ``backend.xp`` (``xp.acos``, ``xp.concat``,
...): a backend maps them onto its library's own names, so no op module ever
asks which library it runs on. The names every backend's ``xp`` must have
are :data:`STANDARD_NAMES`, :data:`LINALG_NAMES` and :data:`FFT_NAMES`; the
fixes that several libraries need are written once, taking ``xp``, in
:mod:`cowarray._backends._common`.

:class:`Backend` is what every backend must have. What only some devices
can do is an optional capability, a Protocol of its own that a backend meets
whole or not at all: :class:`StreamOrdered` (work on streams: the CuPy
backend) and :class:`PageCowCapable` (page-granular copy-on-write: the NumPy
backend).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, Final, Protocol, runtime_checkable

__all__ = [
    "FFT_NAMES",
    "LINALG_NAMES",
    "STANDARD_NAMES",
    "Backend",
    "PageCowCapable",
    "RandomSource",
    "StreamOrdered",
    "missing_standard_names",
]


class RandomSource(Protocol):
    """A backend's random number generator, under NumPy's ``Generator`` names.

    Arguments arrive checked by ``cowarray._random``: parameters are backend
    arrays of this backend or Python scalars, ``size`` is None or a tuple,
    ``dtype`` a supported dtype. Each method returns a fresh backend array or
    a scalar (never a view of an argument). The NumPy backend's source is
    ``numpy.random.Generator`` itself.
    """

    def random(self, size: Any = None, dtype: Any = ...) -> Any: ...

    def uniform(self, low: Any = 0.0, high: Any = 1.0, size: Any = None) -> Any: ...

    def normal(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None) -> Any: ...

    def standard_normal(self, size: Any = None, dtype: Any = ...) -> Any: ...

    def integers(
        self, low: Any, high: Any = None, size: Any = None, dtype: Any = ..., endpoint: bool = False
    ) -> Any: ...

    def choice(
        self,
        a: Any,
        size: Any = None,
        replace: bool = True,
        p: Any = None,
        axis: int = 0,
        shuffle: bool = True,
    ) -> Any: ...

    def permutation(self, x: Any, axis: int = 0) -> Any: ...

    def exponential(self, scale: Any = 1.0, size: Any = None) -> Any: ...

    def poisson(self, lam: Any = 1.0, size: Any = None) -> Any: ...

    def binomial(self, n: Any, p: Any, size: Any = None) -> Any: ...

    def multivariate_normal(self, mean: Any, cov: Any, size: Any = None) -> Any: ...


class Backend(Protocol):
    """What the COW core and the op layer need from an array library."""

    #: Short name, for messages ("numpy", "cupy").
    name: str
    #: A namespace holding the Array API standard's function names.
    xp: Any
    #: The library's array type.
    array_type: Any
    #: ``reshape_view(data, shape)``: ``data`` in ``shape`` (a tuple) as the
    #: library's reshape makes it without ``copy=``: a view when it can, else
    #: a copy. The fast path of :func:`cowarray.reshape` calls it directly, so
    #: it should run no Python frame of its own (NumPy: the method descriptor).
    reshape_view: Callable[[Any, tuple[Any, ...]], Any]
    #: ``plain_asarray(obj)``: :meth:`asarray` with no keyword, for a scalar
    #: the library gave (a 0-d result, ``a[i]``) made a 0-d array. ``x[i]``
    #: and every 0-d result call it, so it should run no Python frame of its
    #: own where the library allows (NumPy: ``np.asarray`` itself).
    plain_asarray: Callable[[Any], Any]
    #: True where every write of a private buffer must go through
    #: :meth:`must_copy_before_write` (a GPU backend orders it after copies still
    #: reading the memory), so the Array's unchecked scalar-write path is off.
    sees_every_write: bool
    #: True where the library's indexing wraps an out-of-range integer index
    #: array around instead of raising (CuPy): cowarray then calls
    #: :meth:`check_index_bounds` before indexing.
    wraps_out_of_range_indices: bool

    def asarray(self, obj: Any, dtype: Any = None, copy: bool | None = None) -> Any:
        """Make a backend array from ``obj`` (a sequence, scalar or array)."""
        ...

    def copy(self, data: Any) -> Any:
        """A new compact array holding only the region ``data`` views."""
        ...

    def memory_owner(self, data: Any) -> object:
        """The object that owns ``data``'s memory: equal for views of one block."""
        ...

    def may_share_memory(self, a: Any, b: Any) -> bool:
        """Whether ``a`` and ``b`` may overlap in memory (a cheap bounds test)."""
        ...

    def overlaps(self, a: Any, b: Any) -> bool:
        """Whether ``a`` and ``b`` may have an element's memory in common: exact
        where that is cheap (two columns of one matrix do not), True when unsure."""
        ...

    def written_view(self, data: Any, index: Any) -> Any:
        """The view of ``data`` that ``data[index] = v`` writes (0-d for one
        element), or None if ``index`` selects scattered elements."""
        ...

    def written_span(self, data: Any, index: Any) -> Any:
        """A view of ``data`` that holds every element ``data[index] = v``
        writes: :meth:`written_view` where the index is basic, else the span
        of memory from the first element it selects to the last (empty if
        it selects none); None where that is not known (all of ``data``)."""
        ...

    def same_elements(self, a: Any, b: Any) -> bool:
        """Whether ``a`` and ``b`` view the very same elements (address, shape,
        strides and dtype)."""
        ...

    def copy_with_view(self, data: Any, view: Any) -> Any:
        """``(copy, moved)``: a :meth:`copy` of ``data`` and, as a view of
        it, the elements of ``copy`` that ``view`` (a view of ``data``'s
        elements) views in ``data``; None, before copying, where the backend
        cannot make them (the caller then copies ``view``'s region)."""
        ...

    def offset_of(self, view: Any, data: Any) -> int:
        """How many bytes ``view``'s first element lies after ``data``'s (a
        view of ``data``'s memory; negative if before)."""
        ...

    def must_copy_before_write(self, data: Any) -> bool:
        """Whether ``data`` cannot be written in place (read-only, self-overlapping)."""
        ...

    def errors_may_surface(self, name: str, dtype: Any) -> bool:
        """Whether the in-place element-wise ``name`` on ``dtype`` data could
        raise after writing (NumPy reports floating-point errors after its
        loop), so that cowarray must compute beside the old values."""
        ...

    def in_place_facts(self, name: str, data: Any, copy_of: Any = None) -> tuple[bool, bool, Any]:
        """What an in-place element-wise ``name`` into ``data`` must know, in
        one call (the write decision is made next):
        ``(errors_may_surface(name, data.dtype), must_copy_before_write(data),
        made)``, where ``made`` is ``copy_with_view(copy_of, data)`` if
        ``copy_of`` is given (memory ``data`` views, shared with others) and
        neither answer rules the write in place out, else None."""
        ...

    def owner_nbytes(self, data: Any) -> int:
        """Size in bytes of the memory block that ``data`` views."""
        ...

    def to_numpy(self, data: Any) -> Any:
        """A NumPy array with ``data``'s values (a copy when memory is not host)."""
        ...

    def numpy_view(self, data: Any, on_release: Callable[[], None]) -> Any:
        """A writable NumPy view of host ``data``; ``on_release`` runs once, when
        it and every NumPy view derived from it have died."""
        ...

    def from_numpy(self, array: Any) -> Any:
        """A backend array holding ``array``'s values on this backend's device."""
        ...

    # -- DLPack: capsule work only; the policy is in cowarray/_dlpack.py --------

    def dlpack_device(self, data: Any) -> tuple[int, int]:
        """``(DLPack device type, device index)`` of ``data``'s memory."""
        ...

    def dlpack_export_problem(self, data: Any) -> str | None:
        """Why ``data`` cannot be exported as it lies (None: it can)."""
        ...

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
        """A DLPack capsule of ``data`` (of a fresh copy when ``copy``).

        ``stream`` and ``dl_device`` arrive checked against ``dlpack_device``:
        a GPU backend makes ``stream`` wait for its pending work.

        ``on_release`` is called once the consumer has released the memory
        (or the capsule died unconsumed); it is never called if this raises.
        """
        ...

    def import_dlpack(self, capsule: Any, dl_device: tuple[int, int]) -> Any:
        """A backend array viewing the memory of an unconsumed DLPack capsule."""
        ...

    def index_update(self, target: Any, index: Any, values: Any, op: str) -> None:
        """Update ``target[index]`` in place, checking every index before writing.

        ``op`` is ``"set"`` (plain assignment: with duplicate indices the last
        value wins) or a standard element-wise name (``"add"``, ``"subtract"``,
        ``"multiply"``, ``"divide"``, ``"pow"``, ``"minimum"``, ``"maximum"``)
        applied unbuffered, so duplicate indices accumulate (NumPy's
        ``ufunc.at``).
        """
        ...

    def random_generator(self, seed: Any) -> RandomSource:
        """A random number generator on this backend's device seeded by ``seed``
        (a ``numpy.random.SeedSequence``): the same seed gives the same stream."""
        ...

    def device_context(self) -> AbstractContextManager[object]:
        """A context in which this backend's device is the library's current one."""
        ...

    def check_index_bounds(self, shape: tuple[int, ...], index: Any) -> None:
        """Raise IndexError, as NumPy would, if an integer index array in ``index``
        (a backend index: a tuple or one component) leaves ``shape``."""
        ...

    def numpy_export_refusal(self) -> str | None:
        """Why arrays of this backend never become NumPy arrays implicitly (None: they do)."""
        ...

    def transfer(self, data: Any, source: Any, stream: Any) -> Any:
        """``data`` (an array of backend ``source``) copied onto this backend's
        device, on ``stream`` if given, or None: then the caller goes through
        ``source.to_numpy`` and ``from_numpy``."""
        ...


# -- optional capabilities: a backend has all of one's methods or none -------------
#
# The registry (cowarray/_backends/__init__.py: PAGE_COW, STREAMS) checks each
# backend once for each capability; the core asks the capability, never the
# backend, and does without it where a backend has none.


@runtime_checkable
class StreamOrdered(Protocol):
    """A backend whose device runs work on streams (the CuPy backend).

    Without it, copies and DLPack imports need no ordering: host memory.
    """

    def note_share(self, data: Any) -> None:
        """``data``'s memory is about to gain a second holder (a sharing record).

        Called by the core once per record; a GPU backend remembers the current
        stream so a later copy out of this memory waits for the work before it.
        """
        ...

    def dlpack_import_stream(self) -> AbstractContextManager[int | None]:
        """A context giving the ``stream=`` a DLPack import onto this device
        hands its producer; the producer is called inside it. (Without the
        capability the stream is None, as DLPack asks for host memory.)"""
        ...


@runtime_checkable
class PageCowCapable(Protocol):
    """A backend that can leave a sparse write's copy to the operating system's
    page-granular copy-on-write (docs/design.md §5; the NumPy backend, Linux).

    Without it, a write to shared memory copies the region it views, as with
    page copy-on-write off.
    """

    def set_page_memory(self, min_bytes: int | None) -> None:
        """Put copies of host data of ``min_bytes`` or more (None: none) in memory
        the operating system can clone page by page."""
        ...

    def page_write_extent(self, data: Any, index: Any) -> tuple[int, int]:
        """``(pages data[index] = v may write, pages data spans)``; ``(0, 0)``
        where ``data`` cannot be cloned page by page (or the index is bad)."""
        ...

    def page_clone(self, data: Any) -> Any:
        """A clone of ``data`` (same shape and strides) whose pages the operating
        system copies only when they are first written, or None where it cannot."""
        ...

    def page_copied_bytes(self, clone: Any, index: Any) -> int:
        """Bytes the operating system has copied into ``clone`` (a
        :meth:`page_clone`) once ``clone[index]`` was written: whole pages, counted."""
        ...

    def note_write_in_place(self, data: Any) -> None:
        """``data``'s memory, shared until now, is about to be written in place
        by its last holder (a page clone of it must then copy its own pages)."""
        ...


# -- the standard namespace every backend's ``xp`` provides ------------------------

#: Names of the 2025.12 standard that the op layer calls on ``xp`` and that every
#: backend must provide: checked by :func:`missing_standard_names`, for every
#: backend by tests/backends/test_backend_contract.py.
STANDARD_NAMES: Final = (
    "abs", "acos", "acosh", "add", "all", "any", "arange", "argmax", "argmin",
    "argsort", "asarray", "asin", "asinh", "astype", "atan", "atan2", "atanh",
    "bitwise_and", "bitwise_invert", "bitwise_left_shift", "bitwise_or",
    "bitwise_right_shift", "bitwise_xor", "broadcast_arrays", "broadcast_shapes",
    "broadcast_to", "can_cast", "ceil", "clip", "concat", "conj", "copysign", "cos",
    "cosh", "count_nonzero", "cumulative_prod", "cumulative_sum", "diff", "divide",
    "empty", "empty_like", "equal", "exp", "expand_dims", "expm1", "eye", "finfo",
    "flip", "floor", "floor_divide", "full", "full_like", "greater", "greater_equal",
    "hypot", "iinfo", "imag", "isfinite", "isin", "isinf", "isnan", "less",
    "less_equal", "linspace", "log", "log10", "log1p", "log2", "logaddexp",
    "logical_and", "logical_not", "logical_or", "logical_xor", "matmul", "max",
    "maximum", "mean", "meshgrid", "min", "minimum", "moveaxis", "multiply", "negative",
    "nextafter", "nonzero", "not_equal", "ones", "ones_like", "permute_dims",
    "positive", "pow", "prod", "real", "reciprocal", "remainder", "repeat", "reshape",
    "result_type", "roll", "round", "searchsorted", "sign", "signbit", "sin", "sinh",
    "sort", "sqrt", "square", "squeeze", "stack", "std", "subtract", "sum", "take",
    "take_along_axis", "tan", "tanh", "tensordot", "tile", "tril", "triu", "trunc",
    "unique_all", "unique_counts", "unique_inverse", "unique_values", "unstack", "var",
    "vecdot", "where", "zeros", "zeros_like",
)  # fmt: skip

LINALG_NAMES: Final = (
    "cholesky", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv", "matmul",
    "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "outer", "pinv",
    "qr", "slogdet", "solve", "svd", "svdvals", "tensordot", "trace", "vecdot",
    "vector_norm",
)  # fmt: skip

FFT_NAMES: Final = (
    "fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "ifft", "ifft2", "ifftn",
    "ifftshift", "ihfft", "irfft", "irfft2", "irfftn", "rfft", "rfft2", "rfftfreq", "rfftn",
)  # fmt: skip


def missing_standard_names(xp: Any) -> list[str]:
    """The standard names a backend's ``xp`` still lacks (empty when complete)."""
    missing = [name for name in STANDARD_NAMES if not hasattr(xp, name)]
    for part, names in (("linalg", LINALG_NAMES), ("fft", FFT_NAMES)):
        namespace = getattr(xp, part, None)
        missing += [f"{part}.{name}" for name in names if not hasattr(namespace, name)]
    return missing
