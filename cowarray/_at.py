"""Functional updates: ``x.at[index].set(values)`` and friends (docs/design.md rule 6).

``x.at[index]`` is a tiny object holding ``x`` and the index; each of its
methods returns a new Array and leaves ``x`` unchanged. The result starts as a
lazy clone of ``x`` and is written through the core's door (``cowarray._core.store``), so an
update costs at most one materialization of the region ``x`` views, and none
when nothing else can ever see ``x`` (a temporary, or ``move(x)``: see
:func:`cowarray._interpreter.is_last_use`).

Out-of-bounds handling (``mode=``) is resolved here, into a plain index the
backend understands: ``"raise"`` passes the index through (the backend checks
every index before writing anything), ``"clip"`` clamps integer indices,
``"drop"`` filters out-of-bounds entries from integer indices and the values
that go with them, and ``"fill"`` makes :meth:`_At.get` return ``fill_value``
where an index is out of bounds.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from typing import Any, Final

from . import _interpreter
from ._array import Array, backend_value, private
from ._checks import check_dtypes
from ._core import donate, lazy_clone, may_view, notify, separate_reader, store, take_over, view
from ._devices import CPU
from ._errors import (
    article,
    boolean_mask_shape,
    index_beyond_int64,
    index_out_of_range,
    value_does_not_fit,
)
from ._indices import drop_out_of_bounds, resolve
from ._move import _MOVED, move
from ._positions import flat_positions, has_integer_arrays

__all__ = ["AtIndexer"]

_MODES: Final = ("raise", "clip", "drop", "fill")
# method name -> (the backend's element-wise name, the dtype category to check)
_COMBINE: Final = {
    "set": ("set", ""),
    "add": ("add", "add"),
    "subtract": ("subtract", "subtract"),
    "multiply": ("multiply", "multiply"),
    "divide": ("divide", "divide"),
    "power": ("pow", "pow"),
    "min": ("minimum", "min"),
    "max": ("maximum", "max"),
}


_object_new: Final = object.__new__
_IN_PLACE_SYMBOLS: Final = {
    "add": "+", "subtract": "-", "multiply": "*", "divide": "/", "power": "**",
}  # fmt: skip


class AtIndexer:
    """What ``x.at`` returns: index it to choose where to update."""

    __slots__ = ("array",)

    def __init__(self, array: Array) -> None:
        self.array = array

    def __getitem__(self, index: Any) -> _At:
        at: _At = _object_new(_At)  # no __init__ call: this is a third of x.at[i]'s cost
        at.array = self.array
        at.index = index
        return at

    def __setitem__(self, index: Any, values: Any) -> None:
        # The JAX habit that looks like NumPy's x[i] = v: say what does it.
        raise TypeError(
            "x.at[index] = v does not update anything: .at makes a new array, so write "
            "x = x.at[index].set(v) (or x[index] = v to change x itself)"
        )

    def __repr__(self) -> str:
        return "<cowarray .at indexer; use x.at[index].set(values) and friends>"


class _At:
    """``x.at[index]``: functional updates of ``x`` at ``index``, JAX style.

    Every method returns a new Array and leaves ``x`` unchanged. Duplicate
    indices accumulate for every method but :meth:`set` and :meth:`get`, as
    NumPy's ``np.add.at`` does. Values are cast to ``x.dtype`` under the
    standard's same-kind rule (a float into an integer array raises TypeError).

    ``mode`` says what an out-of-bounds integer index does: ``"raise"`` (the
    default; IndexError naming the index. JAX has no such mode and silently
    drops such updates), ``"clip"`` (clamp it into range), ``"drop"`` (skip
    it), or ``"fill"`` (:meth:`get` returns ``fill_value`` there; for updates
    it means ``"drop"``). ``indices_are_sorted`` and ``unique_indices`` are
    accepted for JAX compatibility: they are hints, the result is the same
    either way.
    """

    __slots__ = ("array", "index")

    def __init__(self, array: Array, index: Any) -> None:
        self.array = array
        self.index = index

    def __repr__(self) -> str:
        return f"<cowarray .at[{self.index!r}] of an array of shape {self.array.shape}>"

    def _in_place_habit(self, method: str) -> TypeError:
        return TypeError(
            f"x.at[index] {_IN_PLACE_SYMBOLS[method]}= v does not update anything: .at makes a "
            f"new array, so write x = x.at[index].{method}(v) (or x[index] "
            f"{_IN_PLACE_SYMBOLS[method]}= v to change x itself)"
        )

    def __iadd__(self, values: Any) -> _At:
        raise self._in_place_habit("add")

    def __isub__(self, values: Any) -> _At:
        raise self._in_place_habit("subtract")

    def __imul__(self, values: Any) -> _At:
        raise self._in_place_habit("multiply")

    def __itruediv__(self, values: Any) -> _At:
        raise self._in_place_habit("divide")

    def __ipow__(self, values: Any) -> _At:
        raise self._in_place_habit("power")

    def get(
        self,
        *,
        mode: str | None = None,
        fill_value: Any = None,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
    ) -> Array:
        """``x[index]``, with a choice of what an out-of-bounds index does.

        Parameters
        ----------
        mode : {"raise", "clip", "fill", "drop"}, optional
            ``"raise"`` (default) raises IndexError; ``"clip"`` clamps the
            index into range; ``"fill"`` returns ``fill_value`` for
            out-of-bounds positions (``"drop"`` does the same with the
            default fill value).
        fill_value : scalar, optional
            Only with ``mode="fill"``. Default: NaN for floating dtypes, the
            smallest value for signed integers, the largest for unsigned
            integers, True for bool (as JAX).
        indices_are_sorted, unique_indices : bool
            Hints, accepted for JAX compatibility.

        Returns
        -------
        Array
            A new array (a lazy view for basic indices).

        Examples
        --------
        >>> import cowarray as ca
        >>> x = ca.asarray([1.0, 2.0, 3.0])
        >>> x.at[ca.asarray([0, 5])].get(mode="fill", fill_value=-1.0)
        cowarray.Array([ 1., -1.], dtype=float64)
        >>> x.at[7].get(mode="clip")
        cowarray.Array(3., dtype=float64)
        """
        _check_hints(indices_are_sorted, unique_indices)
        return _get(self.array, self.index, _check_mode(mode, "get"), fill_value)

    def set(
        self,
        values: Any,
        *,
        mode: str | None = None,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
    ) -> Array:
        """A copy of ``x`` with ``x[index] = values``.

        With duplicate indices the last value written wins (as NumPy
        assignment); every other method accumulates duplicates instead.

        Parameters
        ----------
        values : Array or scalar
            Broadcast to the shape of ``x[index]``; cast to ``x.dtype`` under
            the same-kind rule.
        mode : {"raise", "clip", "drop", "fill"}, optional
            What an out-of-bounds index does (see the class docstring).
        indices_are_sorted, unique_indices : bool
            Hints, accepted for JAX compatibility.

        Returns
        -------
        Array
            A new array; ``x`` is unchanged.

        Examples
        --------
        >>> import cowarray as ca
        >>> x = ca.zeros(4)
        >>> y = x.at[1].set(5.0)
        >>> y
        cowarray.Array([0., 5., 0., 0.], dtype=float64)
        >>> x
        cowarray.Array([0., 0., 0., 0.], dtype=float64)
        >>> x.at[ca.asarray([0, 0])].set(ca.asarray([1.0, 2.0]))
        cowarray.Array([2., 0., 0., 0.], dtype=float64)
        """
        if indices_are_sorted is not False or unique_indices is not False:
            _check_hints(indices_are_sorted, unique_indices)  # the defaults need no check
        return _update(self, "set", values, mode)

    def add(
        self,
        values: Any,
        *,
        mode: str | None = None,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
    ) -> Array:
        """A copy of ``x`` with ``values`` added at ``index`` (duplicates accumulate).

        Parameters and modes as :meth:`set`.

        Examples
        --------
        >>> import cowarray as ca
        >>> ca.zeros(3).at[ca.asarray([0, 0, 2])].add(1.0)
        cowarray.Array([2., 0., 1.], dtype=float64)
        """
        _check_hints(indices_are_sorted, unique_indices)
        return _update(self, "add", values, mode)

    def subtract(
        self,
        values: Any,
        *,
        mode: str | None = None,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
    ) -> Array:
        """A copy of ``x`` with ``values`` subtracted at ``index`` (duplicates accumulate).

        Examples
        --------
        >>> import cowarray as ca
        >>> ca.zeros(3).at[ca.asarray([1, 1])].subtract(2.0)
        cowarray.Array([ 0., -4.,  0.], dtype=float64)
        """
        _check_hints(indices_are_sorted, unique_indices)
        return _update(self, "subtract", values, mode)

    def multiply(
        self,
        values: Any,
        *,
        mode: str | None = None,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
    ) -> Array:
        """A copy of ``x`` multiplied by ``values`` at ``index`` (duplicates accumulate).

        Examples
        --------
        >>> import cowarray as ca
        >>> ca.ones(3).at[ca.asarray([2, 2])].multiply(3.0)
        cowarray.Array([1., 1., 9.], dtype=float64)
        """
        _check_hints(indices_are_sorted, unique_indices)
        return _update(self, "multiply", values, mode)

    def divide(
        self,
        values: Any,
        *,
        mode: str | None = None,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
    ) -> Array:
        """A copy of ``x`` divided by ``values`` at ``index`` (duplicates accumulate).

        Only floating-point arrays: an integer array would need a floating
        result, so it raises TypeError.

        Examples
        --------
        >>> import cowarray as ca
        >>> ca.ones(3).at[ca.asarray([0, 0])].divide(2.0)
        cowarray.Array([0.25, 1.  , 1.  ], dtype=float64)
        """
        _check_hints(indices_are_sorted, unique_indices)
        return _update(self, "divide", values, mode)

    def power(
        self,
        values: Any,
        *,
        mode: str | None = None,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
    ) -> Array:
        """A copy of ``x`` raised to ``values`` at ``index`` (duplicates accumulate).

        Examples
        --------
        >>> import cowarray as ca
        >>> ca.full(3, 2.0).at[ca.asarray([1, 1])].power(2.0)
        cowarray.Array([ 2., 16.,  2.], dtype=float64)
        """
        _check_hints(indices_are_sorted, unique_indices)
        return _update(self, "power", values, mode)

    def min(
        self,
        values: Any,
        *,
        mode: str | None = None,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
    ) -> Array:
        """A copy of ``x`` with ``minimum(x[index], values)`` at ``index``.

        Examples
        --------
        >>> import cowarray as ca
        >>> ca.asarray([5, 5, 5]).at[ca.asarray([0, 0])].min(ca.asarray([3, 4]))
        cowarray.Array([3, 5, 5], dtype=int64)
        """
        _check_hints(indices_are_sorted, unique_indices)
        return _update(self, "min", values, mode)

    def max(
        self,
        values: Any,
        *,
        mode: str | None = None,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
    ) -> Array:
        """A copy of ``x`` with ``maximum(x[index], values)`` at ``index``.

        Examples
        --------
        >>> import cowarray as ca
        >>> ca.asarray([5, 5, 5]).at[ca.asarray([2, 2])].max(ca.asarray([7, 9]))
        cowarray.Array([5, 5, 9], dtype=int64)
        """
        _check_hints(indices_are_sorted, unique_indices)
        return _update(self, "max", values, mode)

    def apply(
        self,
        ufunc_like: Callable[[Array], Array],
        *,
        mode: str | None = None,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
    ) -> Array:
        """A copy of ``x`` with ``ufunc_like`` applied element-wise at ``index``.

        A duplicated index gets the function applied once per occurrence
        (as NumPy's ``np.negative.at``).

        Parameters
        ----------
        ufunc_like : callable
            An element-wise function of one Array, such as ``cowarray.sin``;
            its result must keep the shape and cast to ``x.dtype`` under the
            same-kind rule.

        Examples
        --------
        >>> import cowarray as ca
        >>> ca.asarray([1.0, 4.0, 9.0]).at[1:].apply(ca.sqrt)
        cowarray.Array([1., 2., 3.], dtype=float64)
        >>> ca.asarray([2.0, 3.0]).at[ca.asarray([0, 0])].apply(lambda v: v * v)
        cowarray.Array([16.,  3.], dtype=float64)
        """
        _check_hints(indices_are_sorted, unique_indices)
        if not callable(ufunc_like):
            raise TypeError(
                f"x.at[...].apply: ufunc_like must be callable, got {type(ufunc_like).__name__}"
            )
        return _update(self, "apply", ufunc_like, mode)


# -- arguments --------------------------------------------------------------


def _check_mode(mode: object, method: str) -> str:
    if mode is None:
        return "raise"
    if mode not in _MODES:
        raise ValueError(
            f"x.at[...].{method}: mode={mode!r} is not one of 'raise', 'clip', 'drop', 'fill'"
        )
    return str(mode)


def _check_hints(indices_are_sorted: object, unique_indices: object) -> None:
    for name, value in (
        ("indices_are_sorted", indices_are_sorted),
        ("unique_indices", unique_indices),
    ):
        if type(value) is not bool:
            raise TypeError(f"{name} must be a bool, got {type(value).__name__}")


def _cast_values(x: Array, values: Any, method: str) -> Any:
    """``values`` as a backend array of ``x.dtype``: checked as ``x[...] = values``
    checks them (same device, same-kind cast), then cast."""
    checked = backend_value(x, values)
    try:
        return x._device.backend.asarray(checked, dtype=x._data.dtype)
    except OverflowError:
        raise OverflowError(
            f"x.at[...].{method}: value={checked!r} does not fit in {x._data.dtype}; "
            "pass a value in its range or convert x with astype to a wider dtype"
        ) from None


# -- the operations ---------------------------------------------------------


def _default_fill(x: Array) -> Any:
    dtype = x._data.dtype
    xp = x._device.backend.xp
    if dtype.kind in "fc":
        return float("nan")
    if dtype.kind == "i":
        return int(xp.iinfo(dtype).min)
    if dtype.kind == "u":
        return int(xp.iinfo(dtype).max)
    return True


def _get(x: Array, key: Any, mode: str, fill_value: Any) -> Array:
    if fill_value is not None and mode != "fill":
        raise ValueError(f"x.at[...].get: fill_value needs mode='fill', got mode={mode!r}")
    fill = _default_fill(x) if fill_value is None else _cast_values(x, fill_value, "get")
    resolved = resolve(x, key, mode, "get")
    backend = x._device.backend
    try:
        region = _region(x, resolved.index, "get")
    except IndexError:
        if resolved.valid is None:
            raise
        region = None  # an index into an empty axis: everything is filled below
    if resolved.valid is None:
        # (made again, from what x holds, if another thread replaced x's
        # memory since the region was read: cowarray._core.values.may_view)
        return may_view(region, x._device, (x,), lambda: view(x, operator.getitem, resolved.index))
    if resolved.valid is False or not backend.xp.any(resolved.valid):
        filled = backend.xp.full(resolved.shape, fill, dtype=x._data.dtype)
        return private(filled, x._device)
    # Advanced indices: ``region`` is a fresh array nobody else holds.
    where = (slice(None),) * resolved.position + (~resolved.valid,)
    region[where] = fill
    return private(region, x._device)


def _update(at: _At, method: str, values: Any, mode: object) -> Array:
    """The new array for ``at.array`` updated at ``at.index`` by ``method``."""
    x = at.array
    if type(x) is not Array:
        raise TypeError(f"x.at[...] needs a cowarray Array, got {type(x).__name__}")
    if type(values) is Array:
        separate_reader(x, values)  # (u.at[0].set(u[1])): it copies what it reads, not x
    key = at.index
    if (
        method == "set"
        and type(key) is int
        and type(values) in x._fast_write
        and mode is None
        and _interpreter.is_last_use(at, x._donated)
    ):
        # The common scalar update of an array nothing else can see: an
        # exact scalar that x's 1-D, private, writable memory stores as is
        # (its fast writes), so no Python code runs before the proof above,
        # and the core stores it and hands the memory over (without its lock
        # where the fast writes prove that safe: values.take_over).
        # None when the core would not (an index out of range, a value too
        # big): x is then untouched and the general path says what is wrong.
        stored = take_over(x, _MOVED, key, values)
        if stored is not None:
            return stored
    prepared = _prepare(x, key, method, values, mode)
    if isinstance(prepared, Array):
        return prepared  # every update was out of bounds and dropped
    write, index, operand = prepared
    # Nothing may bind ``at`` or ``x`` to a new local before this check, and
    # ``_prepare`` ran first: converting ``values`` may run the caller's code.
    # Exposed or foreign memory is aliased on purpose by a DLPack peer: an
    # update must not write it, even of a temporary.
    buf = x._buf
    plain = buf is None or buf.shareable
    del buf  # a reference held here would count as a second holder in the write below
    # Taken: nothing else can ever see x, so its memory is written in place
    # if nobody shares it; anything that reached x after all finds it moved.
    if plain and _interpreter.is_last_use(at, x._donated):
        result = move(x)
        notify("takeover", result, None, 0)
        return _write(result, write, index, operand, method)
    return _write(lazy_clone(x), write, index, operand, method)


def _prepare(
    x: Array, key: Any, method: str, values: Any, mode: object
) -> tuple[Callable[..., Any], Any, Any] | Array:
    """What ``_update`` writes: the backend update, the index and the operand,
    after every check; or ``x``'s clone when every update is out of bounds."""
    checked = _check_mode(mode, method)
    dtype = x._data.dtype
    if method == "divide" and dtype.kind in "biu":
        raise TypeError(
            f"x.at[...].divide on {article(dtype)} array would need floating-point results; "
            "convert x with astype first or use floor division"
        )
    if method != "apply":
        name, category = _COMBINE[method]
        if category:
            check_dtypes(category, dtype)
        operand = _cast_values(x, values, method)
        if method == "power" and dtype.kind in "iu" and x._device.backend.xp.any(operand < 0):
            raise ValueError("x.at[...].power: integers to negative integer powers are not defined")
    if checked == "raise" and (type(key) is int or type(key) is slice):
        index = key  # the common case needs no resolution
        valid = None
    else:
        resolved = resolve(x, key, checked, method)
        index, valid = resolved.index, resolved.valid
        if valid is False:
            return lazy_clone(x)  # every update is out of bounds and dropped
    if method == "apply":
        if valid is not None:
            index, _ = drop_out_of_bounds(x, resolved, None, method)
        name = "set"
        index, operand = _apply_values(x, index, values)
    elif valid is not None:
        index, operand = drop_out_of_bounds(x, resolved, operand, method)
    return _update_of(x, name), index, operand


def _update_of(x: Array, op: str) -> Callable[..., Any]:
    """The backend's ``index_update`` of ``x``'s device, combining by ``op``."""
    return functools.partial(x._device.backend.index_update, op=op)


def _write(
    result: Array, write: Callable[..., Any], index: Any, operand: Any, method: str
) -> Array:
    """Write through the core, naming the method in an index or value error.

    The result is a new value nothing else holds yet: marked donated, so that
    the next update of a chain (``x.at[a].set(u).at[b].set(w)``) may take
    its buffer on every CPython (see cowarray._interpreter.is_last_use).
    """
    try:
        # (with its fast writes: the next update of a chain may then take
        # the lock-free hand-over, values.take_over)
        store(result, index, operand, apply=write, what=f"x.at[...].{method}")
    except IndexError as error:
        raise index_out_of_range(
            error,
            result.shape,
            f"x.at[...].{method}: ",
            " (or pass mode='drop' or mode='clip')",
            boolean_mask_shape(index),
        ) from None
    except OverflowError:
        huge = index_beyond_int64(index, result.shape, f"x.at[...].{method}: ")
        if huge is None:
            raise
        raise huge from None
    except ValueError as error:
        where = f"x.at[...].{method}: "
        clearer = value_does_not_fit(error, where, operand, operator.getitem, result._data, index)
        try:
            raise (clearer or ValueError(f"{where}{error}")) from None
        finally:  # its traceback holds this frame: no cycle keeping result a holder
            del clearer
    if result._buf is None:
        donate(result)
    return result


def _apply_values(x: Array, index: Any, function: Callable[[Array], Array]) -> tuple[Any, Any]:
    """The index and values that ``function`` gives there, for a plain assignment.

    A position listed ``k`` times gets the function applied ``k`` times; the
    returned index then lists each position once.
    """
    xp = x._device.backend.xp
    region = _region(x, index, "apply")
    if not has_integer_arrays(index):
        return index, _applied(x, function, may_view(region, x._device, (x,)))
    flat = xp.reshape(flat_positions(xp, x._data.shape, index), (-1,))
    unique = xp.unique_all(flat)
    current = xp.reshape(region, (-1,))[unique.indices]
    counts = unique.counts
    rounds = int(xp.max(counts)) if counts.size else 0
    for done in range(rounds):
        chosen = counts > done
        current[chosen] = _applied(x, function, private(current[chosen], x._device))
    return _unravel(x, unique.values), current


def _region(x: Array, index: Any, method: str) -> Any:
    """``x``'s backend data at ``index``; an out-of-range index raises IndexError
    on every backend (CuPy's indexing would wrap it around)."""
    backend = x._device.backend
    try:
        if backend.wraps_out_of_range_indices:
            backend.check_index_bounds(x._data.shape, index)
        return x._data[index]
    except IndexError as error:
        way_out = "fill" if method == "get" else "drop"
        raise index_out_of_range(
            error,
            x.shape,
            f"x.at[...].{method}: ",
            f" (or pass mode='{way_out}' or mode='clip')",
            boolean_mask_shape(index),
        ) from None


def _applied(x: Array, function: Callable[[Array], Array], argument: Array) -> Any:
    result = function(argument)
    if type(result) is not Array:
        raise TypeError(
            f"x.at[...].apply: the function must return a cowarray Array, "
            f"got {type(result).__name__}"
        )
    if result.shape != argument.shape:
        raise ValueError(
            f"x.at[...].apply: the function changed the shape {argument.shape} to "
            f"{result.shape}; it must work element-wise"
        )
    return _cast_values(x, result, "apply")


def _unravel(x: Array, flat: Any) -> tuple[Any, ...]:
    shape = x._data.shape
    coordinates = []
    stride = 1
    for n in reversed(shape):
        coordinates.append((flat // stride) % n)
        stride *= n
    return tuple(reversed(coordinates))


# The probes _interpreter.calibrate measures. (Built without the ``at`` property,
# which :func:`register` attaches only after this module is imported.)


def _temporary_update() -> None:
    _At(_fresh(), 0).set(0)  # a fresh array held by nothing but its update


def _update_of_a_held_array() -> None:
    array = _fresh()
    _At(array, 0).set(0)
    del array


def _update_through_a_held_at() -> None:
    at = _At(_fresh(), 0)
    at.set(0)
    del at


def _fresh() -> Array:

    return private(CPU.backend.asarray([0]), CPU)


_interpreter.calibrate(_temporary_update, _update_of_a_held_array, _update_through_a_held_at)


def _at(self: Array) -> AtIndexer:
    """Functional updates, JAX style: ``x.at[index].set(v)`` returns a new array.

    ``get``, ``set``, ``add``, ``subtract``, ``multiply``, ``divide``,
    ``power``, ``min``, ``max`` and ``apply`` leave ``x`` unchanged; the
    methods' own pages give the modes and dtype rules.

    Examples
    --------
    >>> import cowarray as ca
    >>> x = ca.zeros(3)
    >>> x.at[1].add(2.0)
    cowarray.Array([0., 2., 0.], dtype=float64)
    >>> x
    cowarray.Array([0., 0., 0.], dtype=float64)
    """
    return AtIndexer(self)


def register() -> None:
    """Attach ``.at`` to the Array (once, by ``cowarray/__init__.py``), as JAX does."""
    # The class itself is the getter (``_at`` documents it): a Python getter
    # made with object.__new__ measured 10 % slower (a frame entered from C).
    # (set by name: the class declares it for type checkers, cowarray._array)
    setattr(Array, "at", property(AtIndexer, doc=_at.__doc__))  # noqa: B010
