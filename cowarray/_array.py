"""The Array: a value that views a buffer it may share with others.

An Array's slots (its backend data, sharing record, device, fast-write set,
donation mark and view family) are laid out and set by the core
(``cowarray._core.Value``); this module gives the type its
behaviour. Python operators are written once each, as one-line class
attributes made by two factories (:func:`binary_operation`,
:func:`unary_operation`). Every write goes through
:func:`cowarray._core.cow.write`, the single place that decides whether to copy,
entered through the core's two doors (``cowarray._core.setitem`` and ``inplace``).
"""

from __future__ import annotations

import operator
import types
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Final

from . import _operators
from ._consumers import called_from_a_library_that_keeps_conversions
from ._core import (
    PENDING,
    Value,
    bind,
    count_copy,
    flush,
    getitem,
    lazy_clone,
    may_view,
    plain_slice,
    setitem,
    slice_is_plain,
    transposed,
    view,
)
from ._devices import CPU, Device, as_device
from ._dtypes import (
    DEFAULT_INDEX,
    check_scalar,
    normalize_scalar,
)
from ._errors import (
    article,
    boolean_mask_shape,
    check_int_fits,
    index_beyond_int64,
    index_out_of_range,
)
from ._operators import (
    _METHOD,
    _PYTHON_SCALARS,
    _REFLECTED,
    binary_operation,
    inplace_operator,
    unary_operation,
)

if TYPE_CHECKING:
    # The core's two constructors of new memory, as this layer sees them:
    # they make the type bound below. (The core lies below this module and
    # types what it makes by its slots; the ones made of an Array, a view or
    # a lazy clone, give back the type they were given.)
    def fresh(result: Any, device: Device) -> Array: ...
    def private(data: Any, device: Device) -> Array: ...

    from typing import Protocol

    from ._typing import DType

    class _AtUpdates(Protocol):
        """``x.at[index]`` (cowarray._at._At): functional updates at ``index``."""

        def get(
            self,
            *,
            mode: str | None = None,
            fill_value: Any = None,
            indices_are_sorted: bool = False,
            unique_indices: bool = False,
        ) -> Array: ...
        def set(
            self,
            values: Any,
            *,
            mode: str | None = None,
            indices_are_sorted: bool = False,
            unique_indices: bool = False,
        ) -> Array: ...
        def add(
            self,
            values: Any,
            *,
            mode: str | None = None,
            indices_are_sorted: bool = False,
            unique_indices: bool = False,
        ) -> Array: ...
        def subtract(
            self,
            values: Any,
            *,
            mode: str | None = None,
            indices_are_sorted: bool = False,
            unique_indices: bool = False,
        ) -> Array: ...
        def multiply(
            self,
            values: Any,
            *,
            mode: str | None = None,
            indices_are_sorted: bool = False,
            unique_indices: bool = False,
        ) -> Array: ...
        def divide(
            self,
            values: Any,
            *,
            mode: str | None = None,
            indices_are_sorted: bool = False,
            unique_indices: bool = False,
        ) -> Array: ...
        def power(
            self,
            values: Any,
            *,
            mode: str | None = None,
            indices_are_sorted: bool = False,
            unique_indices: bool = False,
        ) -> Array: ...
        def min(
            self,
            values: Any,
            *,
            mode: str | None = None,
            indices_are_sorted: bool = False,
            unique_indices: bool = False,
        ) -> Array: ...
        def max(
            self,
            values: Any,
            *,
            mode: str | None = None,
            indices_are_sorted: bool = False,
            unique_indices: bool = False,
        ) -> Array: ...
        def apply(
            self,
            ufunc_like: Callable[[Array], Array],
            *,
            mode: str | None = None,
            indices_are_sorted: bool = False,
            unique_indices: bool = False,
        ) -> Array: ...

    class _AtIndexer(Protocol):
        """``x.at`` (cowarray._at.AtIndexer): index it to choose where to update."""

        def __getitem__(self, index: Any) -> _AtUpdates: ...
else:
    from ._core import fresh, private

__all__ = ["Array", "bind_namespace", "fresh", "private"]

#: The public namespace, bound by it once it is made (it lies above this module).
_NAMESPACE: list[types.ModuleType] = []


def bind_namespace(namespace: types.ModuleType) -> None:
    """Let ``x.__array_namespace__()`` answer ``namespace`` (called once, by
    ``cowarray/__init__.py``)."""
    _NAMESPACE[:] = [namespace]


SUPPORTED_API_VERSIONS: Final = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")


class Array(Value):
    """An n-dimensional array with value semantics.

    Build arrays with :func:`cowarray.asarray`, :func:`cowarray.zeros` and the
    other creation functions; ``Array(...)`` itself raises. Copies are lazy:
    a clone, a slice or a transpose shares memory until one of them is written.
    Writing a slice changes only the slice; because NumPy code that does so
    means to change ``x`` too, it warns (:class:`cowarray.ViewWriteWarning`)
    unless the slice was taken as a value with :func:`cowarray.lazy_clone`.

    Examples
    --------
    >>> import cowarray as ca
    >>> x = ca.asarray([1.0, 2.0, 3.0])
    >>> y = ca.lazy_clone(x[1:])  # shares x's buffer, O(1)
    >>> y[0] = 20.0               # copies y's two elements, then writes
    >>> x
    cowarray.Array([1., 2., 3.], dtype=float64)
    >>> y
    cowarray.Array([20.,  3.], dtype=float64)
    """

    __slots__ = ()
    _device: Device

    def __new__(cls, *args: object, **kwargs: object) -> Array:
        raise TypeError(
            "cowarray.Array cannot be constructed directly; use cowarray.asarray(obj) "
            "or a creation function such as cowarray.zeros(shape)"
        )

    # -- attributes ---------------------------------------------------------

    @property
    def dtype(self) -> DType:
        """The data type, a ``numpy.dtype`` object such as ``cowarray.float64``."""
        return self._data.dtype  # type: ignore[no-any-return]

    @property
    def device(self) -> Device:
        """The device the array lives on."""
        return self._device

    @property
    def shape(self) -> tuple[int, ...]:
        """The array's dimensions."""
        return self._data.shape  # type: ignore[no-any-return]

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return self._data.ndim  # type: ignore[no-any-return]

    @property
    def size(self) -> int:
        """The number of elements."""
        return self._data.size  # type: ignore[no-any-return]

    @property
    def nbytes(self) -> int:
        """The size of the elements in bytes."""
        return self._data.nbytes  # type: ignore[no-any-return]

    @property
    def itemsize(self) -> int:
        """The size of one element in bytes."""
        return self._data.itemsize  # type: ignore[no-any-return]

    # ``x.T`` and ``x[key]`` are the core's (cowarray._core.values): it alone
    # sets an Array's slots, and a call between would cost a tenth of each.
    T = property(transposed)

    @property
    def mT(self) -> Array:
        """The transpose of the last two axes (a lazy value, no copy)."""
        if self._data.ndim < 2:
            raise ValueError(f"x.mT needs at least 2 dimensions, this array has {self._data.ndim}")
        return view(self, _last_two_swapped)

    if TYPE_CHECKING:
        # Attached at import by the modules that define them, which lie above
        # this one (registration: cowarray._at's .at, cowarray._dlpack's
        # exports, cowarray._methods' NumPy and JAX array methods, each a
        # namespace function by another name), and declared here for type
        # checkers by signature. tests/api/test_array_methods_declared.py
        # fails where a declaration and the attached function differ.
        @property
        def at(self) -> _AtIndexer: ...
        def __dlpack__(
            self,
            /,
            *,
            stream: Any = None,
            max_version: tuple[int, int] | None = None,
            dl_device: tuple[int, int] | None = None,
            copy: bool | None = None,
        ) -> Any: ...
        def __array__(self, dtype: Any = None, copy: bool | None = None) -> Any: ...
        @property
        def real(self) -> Array: ...
        @property
        def imag(self) -> Array: ...
        def conjugate(self) -> Array: ...
        def reshape(self, *shape: Any, order: str = "C", copy: bool | None = None) -> Array: ...
        def transpose(self, *axes: Any) -> Array: ...
        def ravel(self, order: str = "C") -> Array: ...
        def flatten(self, order: str = "C") -> Array: ...
        def squeeze(self, axis: int | tuple[int, ...] | None = None) -> Array: ...
        def swapaxes(self, axis1: int, axis2: int) -> Array: ...
        def astype(
            self,
            dtype: Any,
            order: str = "K",
            casting: str = "unsafe",
            subok: bool = True,
            copy: bool = True,
            *,
            device: Any = None,
        ) -> Array: ...
        def view(self, dtype: Any = None) -> Array: ...
        def sum(
            self,
            axis: int | tuple[int, ...] | None = None,
            dtype: Any = None,
            out: Array | None = None,
            keepdims: bool = False,
        ) -> Array: ...
        def prod(
            self,
            axis: int | tuple[int, ...] | None = None,
            dtype: Any = None,
            out: Array | None = None,
            keepdims: bool = False,
        ) -> Array: ...
        def mean(
            self,
            axis: int | tuple[int, ...] | None = None,
            dtype: Any = None,
            out: Array | None = None,
            keepdims: bool = False,
        ) -> Array: ...
        def std(
            self,
            axis: int | tuple[int, ...] | None = None,
            dtype: Any = None,
            out: Array | None = None,
            ddof: int | float = 0,
            keepdims: bool = False,
            *,
            correction: int | float | None = None,
        ) -> Array: ...
        def var(
            self,
            axis: int | tuple[int, ...] | None = None,
            dtype: Any = None,
            out: Array | None = None,
            ddof: int | float = 0,
            keepdims: bool = False,
            *,
            correction: int | float | None = None,
        ) -> Array: ...
        def max(
            self, axis: Any = None, out: Array | None = None, keepdims: bool = False
        ) -> Array: ...
        def min(
            self, axis: Any = None, out: Array | None = None, keepdims: bool = False
        ) -> Array: ...
        def argmax(
            self, axis: Any = None, out: Array | None = None, keepdims: bool = False
        ) -> Array: ...
        def argmin(
            self, axis: Any = None, out: Array | None = None, keepdims: bool = False
        ) -> Array: ...
        def any(
            self, axis: Any = None, out: Array | None = None, keepdims: bool = False
        ) -> Array: ...
        def all(
            self, axis: Any = None, out: Array | None = None, keepdims: bool = False
        ) -> Array: ...
        def cumsum(
            self, axis: int | None = None, dtype: Any = None, out: Array | None = None
        ) -> Array: ...
        def cumprod(
            self, axis: int | None = None, dtype: Any = None, out: Array | None = None
        ) -> Array: ...
        def clip(
            self,
            min: Any = None,
            max: Any = None,
            out: Array | None = None,
            *,
            casting: str = "same_kind",
        ) -> Array: ...
        def round(self, decimals: int = 0, out: Array | None = None) -> Array: ...
        def conj(self) -> Array: ...
        def dot(self, b: Array, out: Array | None = None) -> Array: ...
        def nonzero(self) -> tuple[Array, ...]: ...
        def sort(
            self,
            axis: int = -1,
            kind: str | None = None,
            order: None = None,
            *,
            stable: bool | None = None,
        ) -> None: ...
        def argsort(
            self,
            axis: int = -1,
            kind: str | None = None,
            order: None = None,
            *,
            stable: bool | None = None,
        ) -> Array: ...
        def item(self, *args: Any) -> Any: ...
        def tolist(self) -> Any: ...
        def fill(self, value: Any) -> None: ...

    # -- protocol methods ---------------------------------------------------

    def __array_namespace__(self, /, *, api_version: str | None = None) -> types.ModuleType:
        """The ``cowarray`` module, which implements the Array API standard."""
        if api_version is not None and api_version not in SUPPORTED_API_VERSIONS:
            raise ValueError(
                f"api_version={api_version!r} is not supported; cowarray implements "
                f"{', '.join(SUPPORTED_API_VERSIONS)}"
            )
        return _NAMESPACE[0]

    def to_device(self, device: Device | str, /, *, stream: object = None) -> Array:
        """The same values on ``device`` (lazy when the memory can be shared).

        ``stream`` (GPU targets only): the stream the copy is enqueued on, a
        CuPy or torch CUDA stream or a DLPack stream number; CuPy's current
        stream by default.
        """
        target = as_device(device)
        if stream is not None and target.kind == "cpu":
            raise ValueError("stream= is only meaningful for GPU devices")
        if target is self._device:
            return lazy_clone(self)
        moved = target.backend.transfer(self._data, self._device.backend, stream)
        if moved is None:  # through host memory
            moved = target.backend.from_numpy(self._device.backend.to_numpy(self._data))
        result = may_view(moved, target, (self,))
        if target.kind != self._device.kind:
            # Every byte copied into the other device's memory (host devices
            # share host memory: there the core shares it, or counts the copy).
            count_copy("import_copy", result, int(moved.nbytes))
        return result

    def __dlpack_device__(self) -> tuple[int, int]:
        """``(DLPack device type, device index)``: ``(1, 0)`` for host memory.

        Examples
        --------
        >>> import cowarray as ca
        >>> ca.zeros(2).__dlpack_device__()
        (1, 0)
        """
        return self._device.backend.dlpack_device(self._data)

    __hash__: Final = None  # type: ignore[assignment]
    # NumPy's protocols (NEP 13, NEP 18), registered by cowarray._numpy_protocols:
    # NumPy functions and ufuncs on Arrays return Arrays, with value semantics.
    __array_ufunc__: Callable[..., Any]
    __array_function__: Callable[..., Any]

    def copy(self) -> Array:
        """A new value equal to this array, O(1): :func:`cowarray.lazy_clone`.

        Examples
        --------
        >>> import cowarray as ca
        >>> x = ca.arange(3)
        >>> y = x.copy()
        >>> y[0] = 10
        >>> x
        cowarray.Array([0, 1, 2], dtype=int64)
        """
        return lazy_clone(self)

    def __copy__(self) -> Array:
        return lazy_clone(self)

    def __deepcopy__(self, memo: object) -> Array:
        return lazy_clone(self)

    def __reduce__(self) -> tuple[Any, ...]:
        host = self._device.backend.to_numpy(self._data)
        return (_unpickle, (host_copy(host, None), str(self._device)))

    # -- conversions --------------------------------------------------------

    def _scalar(self, kind: str) -> Any:
        if PENDING:
            flush()
        if self._data.ndim != 0:
            raise TypeError(
                f"{kind}() needs a 0-dimensional array, this one has shape {self.shape}"
            )
        return self._data.item()

    def __bool__(self) -> bool:
        if self._data.ndim != 0:
            raise TypeError(
                f"bool() needs a 0-dimensional array, this one has shape {self.shape}: "
                "the truth of several values is ambiguous; use ca.any(x) or ca.all(x)"
            )
        return bool(self._scalar("bool"))

    def __int__(self) -> int:
        if self._data.dtype.kind == "c":
            raise TypeError("int() of a complex array is not defined; take .real first")
        value = self._scalar("int")
        if isinstance(value, float) and value != value:
            raise ValueError("cannot convert NaN to int")
        return int(value)

    def __float__(self) -> float:
        if self._data.dtype.kind == "c":
            raise TypeError("float() of a complex array is not defined; take .real first")
        return float(self._scalar("float"))

    def __complex__(self) -> complex:
        return complex(self._scalar("complex"))

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iu":
            raise TypeError(
                f"only integer arrays can be used as an index, this one is {self.dtype}"
            )
        return int(self._scalar("index"))

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-dimensional array")
        return self._data.shape[0]  # type: ignore[no-any-return]

    def __iter__(self) -> Iterator[Array]:
        # Not a generator: a 0-d array must refuse at iter(), so that
        # np.iterable() and matplotlib see it as a scalar, as NumPy's.
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-dimensional array")
        if called_from_a_library_that_keeps_conversions(1):
            # pandas' list(x): the NumPy scalars of a copy, as it gets from an
            # ndarray (it takes 0-d Arrays neither as numbers nor as labels)
            return iter(self._device.backend.to_numpy(self._data).copy())
        return map(self.__getitem__, range(self._data.shape[0]))

    def __format__(self, format_spec: str, /) -> str:
        if PENDING:
            flush()
        if self._data.ndim == 0:
            return format(self._data.item(), format_spec)  # as a NumPy scalar formats
        if format_spec:
            raise TypeError(
                f"format spec {format_spec!r} applies to 0-dimensional arrays only, this "
                f"one has shape {self.shape}; format its elements, e.g. x[0]"
            )
        return str(self)

    def __round__(self, ndigits: int | None = None) -> int | Array:
        # As a NumPy scalar: round(x) is a Python int, round(x, n) keeps the dtype.
        value: float = self._scalar("round")
        if isinstance(value, complex):
            raise TypeError("round() of a complex array is not defined; round .real and .imag")
        if ndigits is None:
            return round(value)
        rounded: Any = self._device.backend.asarray(round(value, ndigits), dtype=self._data.dtype)
        return private(rounded, self._device)

    def __repr__(self) -> str:
        if PENDING:
            flush()
        host = self._device.backend.to_numpy(self._data)
        body = _format(host)
        suffix = f", dtype={host.dtype}"
        if self._device is not CPU:
            suffix += f", device='{self._device}'"
        return f"cowarray.Array({body}{suffix})"

    def __str__(self) -> str:
        if PENDING:
            flush()
        import numpy as np

        return np.array2string(self._device.backend.to_numpy(self._data))

    # -- indexing -----------------------------------------------------------

    __getitem__ = getitem  # (the core's, as x.T is)

    # ``x[key] = v`` is the core's too (cowarray._core.write): its unchecked
    # store and every write decision; this module converts keys and values
    # for it (bound below).
    __setitem__ = setitem

    # -- operators: one factory per kind, one line per operator -------------

    __pos__ = unary_operation("positive", _METHOD)
    __neg__ = unary_operation("negative", _METHOD)
    __abs__ = unary_operation("abs", _METHOD)
    __invert__ = unary_operation("bitwise_invert", _METHOD)

    __add__ = binary_operation("add", _METHOD)
    __radd__ = binary_operation("add", _REFLECTED)
    __iadd__ = inplace_operator("add")
    __sub__ = binary_operation("subtract", _METHOD)
    __rsub__ = binary_operation("subtract", _REFLECTED)
    __isub__ = inplace_operator("subtract")
    __mul__ = binary_operation("multiply", _METHOD)
    __rmul__ = binary_operation("multiply", _REFLECTED)
    __imul__ = inplace_operator("multiply")
    __truediv__ = binary_operation("divide", _METHOD)
    __rtruediv__ = binary_operation("divide", _REFLECTED)
    __itruediv__ = inplace_operator("divide")
    __floordiv__ = binary_operation("floor_divide", _METHOD)
    __rfloordiv__ = binary_operation("floor_divide", _REFLECTED)
    __ifloordiv__ = inplace_operator("floor_divide")
    __mod__ = binary_operation("remainder", _METHOD)
    __rmod__ = binary_operation("remainder", _REFLECTED)
    __imod__ = inplace_operator("remainder")
    __pow__ = binary_operation("pow", _METHOD)
    __rpow__ = binary_operation("pow", _REFLECTED)
    __ipow__ = inplace_operator("pow")
    __matmul__ = binary_operation("matmul", _METHOD)
    __rmatmul__ = binary_operation("matmul", _REFLECTED)
    __imatmul__ = inplace_operator("matmul")
    __and__ = binary_operation("bitwise_and", _METHOD)
    __rand__ = binary_operation("bitwise_and", _REFLECTED)
    __iand__ = inplace_operator("bitwise_and")
    __or__ = binary_operation("bitwise_or", _METHOD)
    __ror__ = binary_operation("bitwise_or", _REFLECTED)
    __ior__ = inplace_operator("bitwise_or")
    __xor__ = binary_operation("bitwise_xor", _METHOD)
    __rxor__ = binary_operation("bitwise_xor", _REFLECTED)
    __ixor__ = inplace_operator("bitwise_xor")
    __lshift__ = binary_operation("bitwise_left_shift", _METHOD)
    __rlshift__ = binary_operation("bitwise_left_shift", _REFLECTED)
    __ilshift__ = inplace_operator("bitwise_left_shift")
    __rshift__ = binary_operation("bitwise_right_shift", _METHOD)
    __rrshift__ = binary_operation("bitwise_right_shift", _REFLECTED)
    __irshift__ = inplace_operator("bitwise_right_shift")

    __eq__ = binary_operation("equal", _METHOD)
    __ne__ = binary_operation("not_equal", _METHOD)
    __lt__ = binary_operation("less", _METHOD)
    __le__ = binary_operation("less_equal", _METHOD)
    __gt__ = binary_operation("greater", _METHOD)
    __ge__ = binary_operation("greater_equal", _METHOD)


def _last_two_swapped(data: Any) -> Any:
    return data.swapaxes(-1, -2)


def _unpickle(host: Any, device: str) -> Array:
    target = as_device(device)
    return private(target.backend.from_numpy(host), target)


def host_copy(host: Any, dtype: Any) -> Any:
    import numpy as np

    return np.array(host, dtype=dtype, copy=True)


def _format(host: Any) -> str:
    import numpy as np

    return np.array2string(host, separator=", ", prefix="cowarray.Array(")


# -- indices and values -----------------------------------------------------


def _backend_index(array: Array, key: Any) -> Any:
    kind = type(key)
    if kind is int or kind is slice:
        return key
    if kind is tuple:
        index = key  # a tuple of basic parts passes as it is (most of x[i, j]'s cost)
        for part in key:
            if type(part) not in _BASIC_PARTS or (type(part) is slice and not slice_is_plain(part)):
                index = tuple([index_component(array, part) for part in key])
                break
    else:
        index = index_component(array, key)
    backend = array._device.backend
    if backend.wraps_out_of_range_indices:
        backend.check_index_bounds(array._data.shape, index)
    return index


#: The index parts the backend takes as they are.
_BASIC_PARTS: Final = frozenset({int, slice, types.NoneType, types.EllipsisType})


def index_component(array: Array, part: Any) -> Any:
    kind = type(part)
    if kind is slice:
        return plain_slice(part)
    if kind in _BASIC_PARTS:
        return part
    if kind is Array:
        if part._device is not array._device:
            raise ValueError(
                f"an index array on {part._device} cannot index an array on {array._device}"
            )
        return _index_array(part._data)
    if kind is bool:
        return part  # a boolean scalar index: a new axis of length 1 or 0
    if isinstance(part, (list, range)):
        if len(part) == 0:  # an empty list selects nothing: an empty integer index
            return array._device.backend.asarray([], dtype=DEFAULT_INDEX)
        return array._device.backend.asarray(part)
    if hasattr(part, "__array_interface__") and getattr(part, "ndim", 0) > 0:
        # A NumPy index array (torch, JAX and CuPy take them too): read once,
        # never kept, so it cannot alias the array it indexes.
        return _index_array(array._device.backend.asarray(part))
    try:
        return operator.index(part)
    except TypeError:
        raise IndexError(
            f"{part!r} is not a valid index: use integers, slices, ..., None, "
            "or integer/boolean arrays"
        ) from None


def _index_array(data: Any) -> Any:
    if data.dtype.kind not in "iub":
        raise IndexError(
            f"arrays used as indices must be of integer or boolean dtype, got {data.dtype}"
        )
    return data


def _check_assigned_device(array: Array, value: Array) -> None:
    """``array[...] = value`` with ``value`` on another device: fine for a
    host ``value`` in a traced ``array`` (a constant of the trace)."""
    if getattr(array._device.backend, "reads_host_arrays", False) and value._device.kind == "cpu":
        return
    if getattr(value._device.backend, "reads_host_arrays", False):
        raise ValueError(
            "a traced value is assigned into an Array made outside the transformed "
            "function, which would let it escape the trace; pass the Array in as an "
            "argument (and return it), or make it inside the function"
        )
    raise ValueError(f"cannot assign an array on {value._device} into an array on {array._device}")


def backend_value(array: Array, value: Any) -> Any:
    dtype = array._data.dtype
    kind = type(value)
    if kind is Array:
        if value._device is not array._device:
            _check_assigned_device(array, value)
        source = value._data.dtype
        if source is not dtype:
            _check_same_kind(source, dtype)
            return _cast_first(array, value._data)
        return value._data
    if kind in _PYTHON_SCALARS:
        check_scalar(dtype, value)
        check_int_fits(value, dtype)
        return _cast_first(array, value)
    if kind is array._device.backend.array_type and array._device.kind == "cpu":
        # x[a:b] = ndarray on the host (ported NumPy code): the backend's own
        # array as it is, as backend.asarray would give it, without the
        # interface lookup (it builds a dict) or the cast check for one dtype.
        # (Only on the host: a raw CuPy array is refused below, as it was.)
        if value.dtype is not dtype:
            _check_same_kind(value.dtype, dtype)
        return _cast_first(array, value)
    if isinstance(value, (list, tuple)) or hasattr(value, "__array_interface__"):
        converted = array._device.backend.asarray(value)
        if converted.size:  # an empty list has NumPy's float dtype but no values to lose
            _check_same_kind(converted.dtype, dtype)
        return _cast_first(array, converted)
    scalar = normalize_scalar(value)
    check_scalar(dtype, scalar)
    check_int_fits(scalar, dtype)
    return _cast_first(array, scalar)


def _cast_first(array: Array, value: Any) -> Any:
    """``value`` cast to ``array``'s dtype now, if the cast could overflow.

    Casting into a narrower floating dtype may overflow, and NumPy reports
    that (under its error state) only after the store: cast beside the array
    first, so an error leaves the array unchanged.
    """
    dtype = array._data.dtype
    if dtype.kind not in "fc" or dtype.itemsize >= (8 if dtype.kind == "f" else 16):
        return value
    if getattr(value, "dtype", None) == dtype:
        return value
    return array._device.backend.asarray(value, dtype=dtype)


def _check_same_kind(source: DType, target: DType) -> None:
    import numpy as np

    if not np.can_cast(source, target, casting="same_kind"):
        raise TypeError(
            f"cannot write {source} values into {article(target)} array without losing "
            f"information; convert them first with astype(value, {target})"
        )


def _index_error(
    key: Any,
    shape: tuple[int, ...],
    error: IndexError | OverflowError,
    value: object = None,
    dtype: Any = None,
) -> BaseException:
    """What ``x[key]`` or ``x[key] = v`` raises for ``error``: an index beyond
    int64 (NumPy: C's OverflowError text) or out of range, in cowarray's
    words; an OverflowError about the value ``v`` as check_int_fits words it
    (the fast store hands NumPy a Python int as it is), or as it is."""
    huge = index_beyond_int64(key, shape)
    if huge is not None:
        return huge
    if isinstance(error, IndexError):
        return index_out_of_range(error, shape, mask=boolean_mask_shape(key))
    if dtype is not None:
        try:
            check_int_fits(value, dtype)
        except OverflowError as words:
            return words
    return error


bind(Array, _backend_index, backend_value, _index_error)
_operators.bind_array_type(Array)
