"""NumPy's and JAX's array methods on the Array, each a namespace function by another name.

``x.sum(axis=0)`` is :func:`cowarray.sum`, ``x.reshape(2, 3)`` is
:func:`cowarray.reshape`, ``x.T`` was already :func:`cowarray.permute_dims`:
the methods translate NumPy's method signatures (positional ``axis``,
``ddof=``, ``kind=``, varargs shapes) into the namespace's and call it, so
there is one implementation of each operation. They are the set JAX arrays
offer that fits a value type:

- ``out=`` is the namespace function's (NumPy's, where NumPy's method takes
  it): the result is written into ``out`` through copy-on-write and ``out``
  is returned, so arrays sharing ``out``'s buffer keep their values.
- ``x.sort()`` and ``x.fill(v)`` change ``x`` in place as NumPy's do, through
  the copy-on-write write path (``x[...] = ...``): other values that share
  ``x``'s buffer keep theirs.
- ``x.view(dtype)`` reinterprets the bytes as another dtype; the result is a
  view that joins ``x``'s buffer (rule 1), so writing either copies first.
  ``x.view()`` is a view too, in ``x``'s view family: writing it while ``x``
  lives warns (docs/design.md rule 1), as NumPy would change ``x``.
- ``x.real`` and ``x.conj()`` / ``x.conjugate()`` of a real array are ``x``
  itself, as NumPy's are, so writes through them change ``x`` as in NumPy.

Registered on the Array by :func:`register` (called from ``cowarray/__init__.py``),
as JAX attaches its methods: ``_array.py`` imports nothing of this module.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any, Final

import numpy as np

from . import _dtypes
from ._array import Array
from ._core import PENDING, flush, reshape_view
from ._core import view as view_as
from ._errors import ARRAY_SPELLINGS, missing_array_attribute
from ._ops import (
    creation,
    data_types,
    elementwise,
    manipulation,
    numpy_functions,
    numpy_math,
    numpy_statistics,
    searching,
    sorting,
    statistical,
    utility,
)

__all__ = ["register"]


def _shape_arguments(shape: tuple[Any, ...], method: str) -> Any:
    """``(2, 3)`` or ``((2, 3),)``, as NumPy takes a shape, as one tuple."""
    if len(shape) == 1 and not isinstance(shape[0], int):
        (only,) = shape
        if only is None:
            return None
        try:
            return tuple(operator.index(n) for n in only)
        except TypeError:
            raise TypeError(
                f"x.{method}() takes integers or one tuple of integers, got {only!r}"
            ) from None
    try:
        return tuple(operator.index(n) for n in shape)
    except TypeError:
        raise TypeError(
            f"x.{method}() takes integers or one tuple of integers, got {shape!r}"
        ) from None


def _c_order(order: object, method: str) -> None:
    if order not in ("C", "K", "A"):
        raise ValueError(
            f"x.{method}(order={order!r}) is not supported: cowarray arrays are indexed in "
            "C order; use permute_dims to change the axis order instead"
        )


def _all_axes(x: Array, axis: Any) -> Any:
    """NumPy's ``axis=None`` for functions whose standard form needs an axis."""
    return tuple(range(x.ndim)) if axis is None else axis


# -- shape ----------------------------------------------------------------------


def reshape(self: Array, *shape: Any, order: str = "C", copy: bool | None = None) -> Array:
    """The same elements in a new shape (:func:`cowarray.reshape`); ``x.reshape(2, 3)`` as NumPy."""
    if copy is None and order == "C" and shape:
        # The common calls, x.reshape(2, 3) and x.reshape((2, 3)): the fast
        # path of cowarray.reshape; anything it does not take as given goes
        # the full way below (and gets this method's messages).
        view = reshape_view(self, shape[0] if type(shape[0]) is tuple else shape)
        if view is not None:
            return view
    _c_order(order, "reshape")
    if not shape:
        raise TypeError("x.reshape() needs a shape, e.g. x.reshape(2, 3) or x.reshape((2, 3))")
    return manipulation.reshape(self, _shape_arguments(shape, "reshape"), copy=copy)


def transpose(self: Array, *axes: Any) -> Array:
    """The axes reversed, or in the order given (:func:`cowarray.permute_dims`)."""
    order = _shape_arguments(axes, "transpose") if axes else None
    if order is None:
        order = tuple(range(self.ndim - 1, -1, -1))
    return manipulation.permute_dims(self, order)


def ravel(self: Array, order: str = "C") -> Array:
    """The elements as one axis, in C order (:func:`cowarray.reshape` to ``(-1,)``)."""
    _c_order(order, "ravel")
    return numpy_functions.ravel(self)


def flatten(self: Array, order: str = "C") -> Array:
    """The elements as one axis, in C order; a lazy value like :meth:`ravel`."""
    # NumPy's flatten copies so that the result is independent: a value is.
    _c_order(order, "flatten")
    return numpy_functions.ravel(self)


def squeeze(self: Array, axis: int | tuple[int, ...] | None = None) -> Array:
    """Drop axes of length one (:func:`cowarray.squeeze`; all of them by default)."""
    if axis is None:
        axis = tuple(i for i, n in enumerate(self.shape) if n == 1)
    return manipulation.squeeze(self, axis)


def swapaxes(self: Array, axis1: int, axis2: int) -> Array:
    """Swap two axes (:func:`cowarray.swapaxes`)."""
    return numpy_functions.swapaxes(self, axis1, axis2)


# -- dtype ----------------------------------------------------------------------


def astype(
    self: Array,
    dtype: Any,
    order: str = "K",
    casting: str = "unsafe",
    subok: bool = True,
    copy: bool = True,
    *,
    device: Any = None,
) -> Array:
    """The array converted to ``dtype`` (:func:`cowarray.astype`)."""
    _c_order(order, "astype")
    target = _dtypes.to_dtype(dtype)
    rule: Any = casting
    if casting != "unsafe" and not np.can_cast(self.dtype, target, casting=rule):
        raise TypeError(
            f"x.astype({target}, casting={casting!r}): {self.dtype} cannot be cast to "
            f"{target} under the {casting!r} rule; pass casting='unsafe' to convert anyway"
        )
    return data_types.astype(self, target, copy=copy, device=device)


def _viewed(data: Any, dtype: Any) -> Any:
    return data.view() if dtype is None else data.view(dtype)


def view(self: Array, dtype: Any = None) -> Array:
    """The same bytes read as another ``dtype``: a view that joins ``x``'s buffer.

    ``x.view()`` is a view too, as NumPy's: a member of ``x``'s view family,
    so writing it while ``x`` lives warns (it changes only the view); take
    ``lazy_clone(x)`` for a separate value.
    """
    if dtype is None:
        return view_as(self, _viewed, None)
    target = _dtypes.to_dtype(dtype)
    data = self._data
    last = data.shape[-1] if data.ndim else 1
    itemsize, new_itemsize = data.dtype.itemsize, target.itemsize
    if data.ndim == 0 and itemsize != new_itemsize:
        raise ValueError(
            f"x.view({target}) of a 0-dimensional {self.dtype} array changes the item size "
            f"({itemsize} to {new_itemsize} bytes); view a 1-dimensional array instead"
        )
    if itemsize != new_itemsize and (
        (last * itemsize) % new_itemsize or (data.ndim and data.strides[-1] != itemsize)
    ):
        raise ValueError(
            f"x.view({target}) needs the last axis to be contiguous and {last * itemsize} "
            f"bytes to divide into {new_itemsize}-byte items; take ca.asarray(x, copy=True) "
            "or reshape first"
        )
    return view_as(self, _viewed, target)


# -- reductions -----------------------------------------------------------------


def sum(
    self: Array,
    axis: int | tuple[int, ...] | None = None,
    dtype: Any = None,
    out: Array | None = None,
    keepdims: bool = False,
) -> Array:
    """The sum over ``axis`` (:func:`cowarray.sum`)."""
    return statistical.sum(self, axis=axis, dtype=dtype, keepdims=keepdims, out=out)


def prod(
    self: Array,
    axis: int | tuple[int, ...] | None = None,
    dtype: Any = None,
    out: Array | None = None,
    keepdims: bool = False,
) -> Array:
    """The product over ``axis`` (:func:`cowarray.prod`)."""
    return statistical.prod(self, axis=axis, dtype=dtype, keepdims=keepdims, out=out)


def mean(
    self: Array,
    axis: int | tuple[int, ...] | None = None,
    dtype: Any = None,
    out: Array | None = None,
    keepdims: bool = False,
) -> Array:
    """The mean over ``axis`` (:func:`cowarray.mean`)."""
    x = self if dtype is None else data_types.astype(self, _dtypes.to_dtype(dtype))
    return statistical.mean(x, axis=axis, keepdims=keepdims, out=out)


def _spread(name: str, function: Callable[..., Array]) -> Callable[..., Array]:
    def method(
        self: Array,
        axis: int | tuple[int, ...] | None = None,
        dtype: Any = None,
        out: Array | None = None,
        ddof: int | float = 0,
        keepdims: bool = False,
        *,
        correction: int | float | None = None,
    ) -> Array:
        if correction is not None and ddof != 0:
            raise ValueError(f"x.{name}() takes ddof= or correction=, not both (they are one)")
        x = self if dtype is None else data_types.astype(self, _dtypes.to_dtype(dtype))
        return function(
            x,
            axis=axis,
            correction=ddof if correction is None else correction,
            keepdims=keepdims,
            out=out,
        )

    method.__name__ = method.__qualname__ = name
    return method


std: Callable[..., Array] = _spread("std", statistical.std)
std.__doc__ = "The standard deviation over ``axis``; ``ddof=`` as NumPy (:func:`cowarray.std`)."
var: Callable[..., Array] = _spread("var", statistical.var)
var.__doc__ = "The variance over ``axis``; ``ddof=`` as NumPy (:func:`cowarray.var`)."


def _extremum(name: str, function: Callable[..., Array]) -> Callable[..., Array]:
    def method(
        self: Array, axis: Any = None, out: Array | None = None, keepdims: bool = False
    ) -> Array:
        return function(self, axis=axis, keepdims=keepdims, out=out)

    method.__name__ = method.__qualname__ = name
    return method


max: Callable[..., Array] = _extremum("max", statistical.max)
max.__doc__ = "The largest element over ``axis`` (:func:`cowarray.max`)."
min: Callable[..., Array] = _extremum("min", statistical.min)
min.__doc__ = "The smallest element over ``axis`` (:func:`cowarray.min`)."
argmax: Callable[..., Array] = _extremum("argmax", searching.argmax)
argmax.__doc__ = "The index of the largest element over ``axis`` (:func:`cowarray.argmax`)."
argmin: Callable[..., Array] = _extremum("argmin", searching.argmin)
argmin.__doc__ = "The index of the smallest element over ``axis`` (:func:`cowarray.argmin`)."
any: Callable[..., Array] = _extremum("any", utility.any)
any.__doc__ = "Whether any element over ``axis`` is true (:func:`cowarray.any`)."
all: Callable[..., Array] = _extremum("all", utility.all)
all.__doc__ = "Whether every element over ``axis`` is true (:func:`cowarray.all`)."


def _cumulative(name: str, function: Callable[..., Array]) -> Callable[..., Array]:
    def method(
        self: Array, axis: int | None = None, dtype: Any = None, out: Array | None = None
    ) -> Array:
        return function(self, axis, dtype, out)

    method.__name__ = method.__qualname__ = name
    return method


cumsum: Callable[..., Array] = _cumulative("cumsum", numpy_statistics.cumsum)
cumsum.__doc__ = "The cumulative sum along ``axis`` (:func:`cowarray.cumsum`)."
cumprod: Callable[..., Array] = _cumulative("cumprod", numpy_statistics.cumprod)
cumprod.__doc__ = "The cumulative product along ``axis`` (:func:`cowarray.cumprod`)."


# -- elementwise ----------------------------------------------------------------


def clip(
    self: Array,
    min: Any = None,
    max: Any = None,
    out: Array | None = None,
    *,
    casting: str = "same_kind",
) -> Array:
    """Values limited to ``[min, max]`` (:func:`cowarray.clip`)."""
    return elementwise.clip(self, min, max, out=out, casting=casting)


def round(self: Array, decimals: int = 0, out: Array | None = None) -> Array:
    """Values rounded to ``decimals`` (:func:`cowarray.round`)."""
    return elementwise.round(self, decimals=decimals, out=out)


def conj(self: Array) -> Array:
    """The complex conjugate (:func:`cowarray.conj`); ``x`` itself when ``x`` is
    not complex, as NumPy's ``x.conj()`` (``np.conj(x)`` is a new array)."""
    if self._data.dtype.kind != "c":
        return self  # so that ``x.conj()[...] = v`` writes x, as in NumPy
    return elementwise.conj(self)


def _real(self: Array) -> Array:
    if self._data.dtype.kind != "c":
        # NumPy's x.real of a real array is x itself: writes through it
        # (``x.real[:] = 0``, ``v = x.real; v *= 2``) change x, here too.
        return self
    return elementwise.real(self)


def _imag(self: Array) -> Array:
    if self.dtype.kind != "c":  # as NumPy's: a real array's imaginary part is zero
        return creation.zeros_like(self)
    return elementwise.imag(self)


def dot(self: Array, b: Array, out: Array | None = None) -> Array:
    """The dot product with ``b`` (:func:`cowarray.dot`)."""
    return numpy_math.dot(self, b, out)


# -- searching and sorting ------------------------------------------------------


def nonzero(self: Array) -> tuple[Array, ...]:
    """The indices of the nonzero elements, one array per axis (:func:`cowarray.nonzero`)."""
    return searching.nonzero(self)


def _stable(kind: object, stable: bool | None, method: str) -> bool:
    if kind not in (None, "quicksort", "stable", "mergesort", "heapsort"):
        raise ValueError(
            f"x.{method}(kind={kind!r}): kind is one of 'quicksort', 'mergesort', "
            "'heapsort', 'stable'"
        )
    if stable is not None:
        return bool(stable)
    return kind in ("stable", "mergesort")


def _no_order(order: object, method: str) -> None:
    if order is not None:
        raise ValueError(f"x.{method}(order=...) sorts structured arrays, which cowarray has not")


def sort(
    self: Array,
    axis: int = -1,
    kind: str | None = None,
    order: None = None,
    *,
    stable: bool | None = None,
) -> None:
    """Sort ``x`` in place along ``axis``, through copy-on-write: other values keep theirs."""
    # In place, as NumPy's: written through copy-on-write, so values that
    # share this array's buffer keep theirs.
    _no_order(order, "sort")
    self[...] = sorting.sort(self, axis=axis, stable=_stable(kind, stable, "sort"))


def argsort(
    self: Array,
    axis: int = -1,
    kind: str | None = None,
    order: None = None,
    *,
    stable: bool | None = None,
) -> Array:
    """The indices that sort along ``axis`` (:func:`cowarray.argsort`)."""
    _no_order(order, "argsort")
    return sorting.argsort(self, axis=axis, stable=_stable(kind, stable, "argsort"))


# -- to Python and in-place filling ---------------------------------------------


def item(self: Array, *args: Any) -> Any:
    """One element as a Python scalar (all of a one-element array without arguments)."""
    data = self._data
    key: Any = None
    if not args:
        if data.size != 1:
            raise ValueError(
                f"x.item() needs an array of one element, this one has {self.size} "
                f"(shape {self.shape}); pick one with x.item(i) or x[i, j].item()"
            )
    else:
        if len(args) == 1 and isinstance(args[0], tuple):
            args = args[0]
        if len(args) == 1:
            flat = operator.index(args[0])
            size = data.size
            if not -size <= flat < size:
                raise IndexError(
                    f"x.item({flat}): index out of range for an array of {size} elements; "
                    f"pass a flat index from {-size} to {size - 1}"
                )
            # The element at C-order position ``flat``, read where it is: a read
            # makes no view to join (a reshaped view of x cost 28 times NumPy's item).
            if data.ndim == 1:
                key = flat
            else:
                position = []
                rest = flat % size
                for length in reversed(data.shape):
                    rest, at = divmod(rest, length)
                    position.append(at)
                key = tuple(reversed(position))
        elif len(args) != data.ndim:
            raise IndexError(
                f"x.item() takes one flat index or {self.ndim} indices for shape {self.shape}, "
                f"got {len(args)}"
            )
        else:
            key = tuple(operator.index(i) for i in args)  # (exact ints: never a mask)
    if PENDING:
        flush()  # held-back view writes first, as every operation
    # The memory is read after the indices' __index__ has run (it may write
    # this array), and read again if another thread replaced it meanwhile
    # (its old memory may be another value's now: values.getitem does the same).
    data = self._data
    try:
        element = data.item() if key is None else data[key]
        while self._data is not data:
            data = self._data
            element = data.item() if key is None else data[key]
    except IndexError:  # (i, j) out of range: cowarray's words for it
        return self[key]._scalar("item")
    return element if key is None else element.item()


def tolist(self: Array) -> Any:
    """The elements as nested Python lists."""
    return self._device.backend.to_numpy(self._data).tolist()


def fill(self: Array, value: Any) -> None:
    """Set every element to ``value`` in place, through copy-on-write (``x[...] = value``)."""
    if value is None or isinstance(value, (str, bytes)):
        raise TypeError(
            f"x.fill(value): value must be a Python scalar (bool, int, float, complex) or a "
            f"cowarray Array, got {type(value).__name__}"
        )
    self[...] = value


_METHODS: Final = {
    f.__name__: f
    for f in (
        reshape, transpose, ravel, flatten, squeeze, swapaxes, astype, view, sum, prod,
        mean, std, var, max, min, argmax, argmin, any, all, cumsum, cumprod, clip, round,
        conj, dot, nonzero, sort, argsort, item, tolist, fill,
    )
}  # fmt: skip


def register() -> None:
    """Attach the methods to the Array (called once, by ``cowarray/__init__.py``)."""
    for name, method in _METHODS.items():
        method.__qualname__ = f"Array.{name}"
        setattr(Array, name, method)
    # (set by name: the class declares them for type checkers, cowarray._array)
    attached = {
        "conjugate": conj,
        "real": property(
            _real, doc="The real part (:func:`cowarray.real`); ``x`` itself for a real ``x``."
        ),
        "imag": property(_imag, doc="The imaginary part (:func:`cowarray.imag`)."),
    }
    for name, attribute in attached.items():
        setattr(Array, name, attribute)
    for name in ARRAY_SPELLINGS:  # x.flat: an AttributeError that names ca.reshape(x, (-1,))
        if not hasattr(Array, name):
            setattr(Array, name, property(_spelled_otherwise(name)))


def _spelled_otherwise(name: str) -> Callable[[Array], Any]:
    def attribute(self: Array) -> Any:
        raise missing_array_attribute(name)

    return attribute
