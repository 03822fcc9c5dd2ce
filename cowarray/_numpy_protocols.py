"""NumPy's functions and ufuncs on cowarray arrays, with value semantics (rule 11).

NEP 13 (``__array_ufunc__``) and NEP 18 (``__array_function__``) let NumPy
hand a call back to cowarray when an argument is a cowarray Array:
``np.sin(x)``, ``np.add.reduce(x)``, ``np.concatenate([x, y])``,
``x + ndarray`` all return cowarray Arrays on ``x``'s device.

How the values stay values:

- Inputs reach NumPy as *read-only* views of their memory (on the host), so a
  NumPy function that writes into an argument fails loudly instead of
  changing a buffer other values share. The functions that exist to write
  into an argument (``np.copyto``, ``np.put``, ``np.place``, ``np.putmask``,
  ``np.fill_diagonal``, ``np.put_along_axis``, ``ufunc.at``) are run on a copy
  of the target's values and written back with ``target[...] = values``, the
  copy-on-write path (rule 3).
- A result that views an input joins that input's buffer (``np.transpose``,
  ``np.ravel``); other results are fresh.
- ``out=``: a cowarray Array is written through the copy-on-write path; an
  ndarray receives the values (``np.copyto``), never an alias; a None entry
  of an ``out=`` tuple gets a fresh Array, as NumPy allocates one there.
  All or nothing: NumPy computes into scratch arrays of the outs' shapes and
  dtypes (so it checks every out by its own rules), and the outs are written
  only once every result is in, so a refused out, or a floating-point error,
  leaves every array as it was.
- ``np.shares_memory`` / ``np.may_share_memory`` between two cowarray
  arrays answer False: two values never alias (a write to one never shows in
  the other; ``cowarray.shares_buffer`` tells the physical fact). Between a
  cowarray array and an ndarray they answer for the memory, truthfully: an
  ``np.asarray(x)`` export does alias ``x`` (scikit-learn's ``check_array``
  decides whether to copy by asking).
- An argument of another library with its own protocol (Dask, xarray)
  makes cowarray step back (``NotImplemented``), as NEP 13/18 ask.

On a GPU device the backend's library (CuPy) takes the call through its own
protocols; its arrays cannot be made read-only, so cowarray inputs reach it
as copies unless the function is known not to write.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable
from typing import Any, Final

import numpy as np

from ._array import Array, fresh
from ._backends._error_state import ignoring
from ._core import lazy_clone, may_view, store

__all__ = ["array_function", "array_ufunc", "register"]

#: NumPy functions that write into their first argument; run on a copy of
#: its values, then written back through copy-on-write.
_WRITES_FIRST_ARGUMENT: Final = frozenset(
    {np.copyto, np.put, np.place, np.putmask, np.fill_diagonal, np.put_along_axis}
)

_NEVER_ALIAS: Final = frozenset({np.shares_memory, np.may_share_memory})

#: NumPy functions whose job is to make an ndarray of their argument: they
#: keep NumPy's meaning instead of returning a cowarray Array.
#: ``np.from_dlpack(x)`` imports x's DLPack export (an aliasing boundary,
#: rule 5); ``np.atleast_1d(x)`` and its kin are ``np.asarray(x)`` with at
#: least N axes (rule 4's export): SciPy's optimizers convert objectives,
#: gradients and start points with them and hand the result to compiled code.
_MAKE_NDARRAYS: Final = frozenset({np.from_dlpack, np.atleast_1d, np.atleast_2d, np.atleast_3d})


#: Argument types that hold no array: passed to NumPy as they are.
_PLAIN_VALUES: Final = frozenset({int, float, complex, bool, str, type(None)})


class _Unknown(Exception):
    """An argument of a type cowarray defers to (it has its own protocol)."""


def _devices(values: Any, found: list[Any]) -> None:
    kind = type(values)
    if kind is Array:
        found.append(values._device)
    elif kind in _PLAIN_VALUES:
        return
    elif isinstance(values, (list, tuple)):
        for value in values:
            _devices(value, found)
    elif isinstance(values, dict):
        for value in values.values():
            _devices(value, found)


def _common_device(args: Any, kwargs: Any) -> Any:
    found: list[Any] = []
    _devices(args, found)
    _devices(kwargs, found)
    first = found[0]
    for device in found[1:]:
        if device is not first:
            raise ValueError(
                f"arrays on different devices ({first} and {device}) cannot be combined; "
                "move one with to_device"
            )
    return first


def _unwrap(value: Any, device: Any, sources: list[Array]) -> Any:
    """``value`` with every cowarray Array replaced by a backend array NumPy may read."""
    kind = type(value)
    if kind is Array:
        sources.append(value)
        return _readable(value, device)
    if kind in _PLAIN_VALUES:
        return value
    if kind is list:
        return [_unwrap(v, device, sources) for v in value]
    if kind is tuple:
        return tuple([_unwrap(v, device, sources) for v in value])
    if kind is dict:
        return {k: _unwrap(v, device, sources) for k, v in value.items()}
    if not isinstance(value, np.ndarray) and _has_own_protocol(value):
        raise _Unknown
    if isinstance(value, np.ndarray) and device.kind != "cpu":
        return device.backend.asarray(value)  # read as an input on the device
    return value


def _has_own_protocol(value: Any) -> bool:
    """Whether ``value``'s type takes NumPy's calls itself (Dask, xarray; not NumPy's scalars)."""
    kind = type(value)
    return (
        getattr(kind, "__array_ufunc__", None) is not None or hasattr(kind, "__array_function__")
    ) and not isinstance(value, np.generic)


def _readable(array: Array, device: Any) -> Any:
    data = array._data
    if isinstance(data, np.ndarray):
        view = data.view()
        view.flags.writeable = False  # a NumPy function that writes fails loudly
        return view
    return device.backend.copy(data)  # GPU memory cannot be made read-only


def _wrapped(
    result: Any,
    device: Any,
    sources: tuple[Array, ...],
    foreign: tuple[np.ndarray, ...] = (),
    again: Callable[[], Any] | None = None,
) -> Any:
    """``result`` of a NumPy call with cowarray's values. ``again()`` makes
    the call again (on what the inputs hold now), for a result that views
    memory an input no longer holds (cowarray._core.may_view)."""
    if isinstance(result, tuple):
        return tuple(
            _wrapped_part(r, device, sources, foreign, _part_of(again, i))
            for i, r in enumerate(result)
        )
    if isinstance(result, list):
        return [
            _wrapped_part(r, device, sources, foreign, _part_of(again, i))
            for i, r in enumerate(result)
        ]
    if isinstance(result, (np.ndarray, np.generic)) or type(result) is device.backend.array_type:
        _check_holdable(result)
        if foreign and _views_any(result, foreign):
            return _copied(result, device)
        return may_view(_writable_as_its_source(result, sources), device, sources, again)
    return result


def _part_of(again: Callable[[], Any] | None, index: int) -> Callable[[], Any] | None:
    if again is None:
        return None
    return lambda: again()[index]


def _foreign_arrays(values: Any, found: list[np.ndarray]) -> None:
    """The NumPy arrays among a call's arguments (in lists, tuples and dicts too)."""
    kind = type(values)
    if kind is np.ndarray:
        found.append(values)
    elif kind is list or kind is tuple:
        for value in values:
            _foreign_arrays(value, found)
    elif kind is dict:
        for value in values.values():
            _foreign_arrays(value, found)


def _views_any(result: Any, arrays: tuple[np.ndarray, ...]) -> bool:
    return type(result) is np.ndarray and any(
        np.may_share_memory(result, array) for array in arrays
    )


def _copied(result: np.ndarray, device: Any) -> Array:
    """A value of NumPy's ``result``, which is or views an ndarray argument
    (``np.atleast_1d(x, nd)`` returns ``nd`` itself): that ndarray was read
    as an input (rule 11), so the Array holds a copy, counted as an import's."""
    from ._dlpack import copied_import

    return copied_import(fresh(result.copy(), device))


def _wrapped_part(
    result: Any,
    device: Any,
    sources: tuple[Array, ...],
    foreign: tuple[np.ndarray, ...],
    again: Callable[[], Any] | None = None,
) -> Any:
    """One of several results: as :func:`_wrapped`, except that a NumPy array
    cowarray cannot hold which views no cowarray input stays NumPy's.

    ``np.broadcast_arrays(x, height, 0.8, [None])`` (matplotlib's ``bar``)
    broadcasts each argument on its own: the object array comes from the
    list, not from an Array, and is NumPy's answer for that argument. A
    single result cowarray cannot hold is refused (:func:`_check_holdable`).
    """
    if (
        type(result) is np.ndarray
        and result.dtype.kind not in "biufc"
        and not any(
            np.may_share_memory(result, source._data)
            for source in sources
            if isinstance(source._data, np.ndarray)
        )
    ):
        return result
    return _wrapped(result, device, sources, foreign, again)


def _writable_as_its_source(result: Any, sources: tuple[Array, ...]) -> Any:
    """``result``, writable again if it views a writable input.

    NumPy functions get read-only views of their inputs (:func:`_readable`),
    so a view they return (``np.transpose(x)``, ``np.squeeze``,
    ``np.moveaxis``...) is read-only too, and its first write copied the
    whole array even where ``x.T``'s writes in place. It joins the input's
    buffer either way (rule 1); writable, it writes as ``x.T`` does. A
    broadcast view (a zero stride: ``np.broadcast_to``) stays read-only: it
    must be expanded before any write anyway, and NumPy may warn when such a
    view is made writable (a warning filter is process-wide: not touched here).
    """
    if type(result) is not np.ndarray:
        return result
    base = result.base
    if base is None or any(
        stride == 0 and length > 1
        for stride, length in zip(result.strides, result.shape, strict=True)
    ):
        return result
    for source in sources:
        data = source._data
        if base is not data and base is not data.base:
            continue
        # (result.flags read only here: reading them warns for np.broadcast_arrays'
        # views of other arguments, which NumPy marks to warn on write)
        if not result.flags.writeable and data.flags.writeable:
            # (ValueError: read-only by NumPy's own choice; its writes copy first)
            with contextlib.suppress(ValueError):
                result.flags.writeable = True
            break
    return result


def _check_holdable(result: Any) -> None:
    # NumPy can make what a cowarray Array cannot hold (structured, string,
    # object, datetime dtypes). TypeError, as asarray raises for such data:
    # Dask's arg reductions fall back to another layout on exactly that.
    if result.dtype.kind not in "biufc":
        raise TypeError(
            f"this NumPy function made an array of dtype {result.dtype}, which cowarray "
            "arrays cannot hold (they hold bool, integer, floating and complex numbers); "
            "call it on np.asarray(x, copy=True) to get a NumPy array"
        )


def _split_out(kwargs: dict[str, Any]) -> tuple[Any, ...] | None:
    """Pop ``out=`` from ``kwargs``: its entries as a tuple, or None when there is none.

    A None entry asks for that result to be allocated, as in NumPy
    (``np.frexp(x, out=(x, None))``).
    """
    out = kwargs.pop("out", None)
    if out is None:
        return None
    return out if isinstance(out, tuple) else (out,)


def _check_outs(outs: tuple[Any, ...], name: str, count: int | None) -> None:
    """Refuse, before anything is computed or written, an out that can never be written.

    ``count`` is how many entries ``out=`` must have (a ufunc's outputs), or
    None to leave that to the function. What depends on the results (shape,
    dtype) NumPy checks itself, on the scratch arrays of :func:`_into_outs`.
    """
    if count is not None and len(outs) != count:
        # NumPy's own words: it checks this before dispatch, a direct call does not
        raise ValueError(
            f"The 'out' tuple must have exactly one entry per ufunc output: {name} has "
            f"{count}, got {len(outs)}; nothing was written"
        )
    for place, out in enumerate(outs):
        if out is None:
            continue
        if type(out) is Array:
            out._data.shape  # noqa: B018  (a moved-from array raises its clear error here)
        elif isinstance(out, np.ndarray):
            if not out.flags.writeable:
                raise ValueError(
                    f"{name}: out[{place}] is a read-only NumPy array (NumPy: output array "
                    "is read-only); nothing was written. Pass a writable array there, or None "
                    "to allocate that result"
                )
        elif _has_own_protocol(out):
            raise _Unknown  # a Dask or xarray out: its library takes the call (NEP 13/18)
        else:
            raise TypeError(
                f"{name}: out[{place}] must be a cowarray Array, a NumPy array, or None to "
                f"allocate that result, got {type(out).__name__}; nothing was written"
            )


def _scratch(out: Any, device: Any, keep_values: bool) -> Any:
    """The array NumPy writes in place of ``out`` (None stays None: NumPy allocates).

    Of ``out``'s shape and dtype, so that NumPy checks ``out`` by its own rules;
    with ``out``'s values when the call may leave some (``where=``).
    """
    if out is None:
        return None
    backend = device.backend
    data = out._data if type(out) is Array else out
    if device.kind != "cpu" and type(out) is not Array:
        return backend.asarray(data)  # a NumPy out of a device call: its values, on the device
    if keep_values:
        return backend.copy(data)
    return backend.xp.empty(data.shape, dtype=data.dtype)


def _write_out(out: Any, scratch: Any, device: Any) -> None:
    """Put NumPy's result into ``out``: a cowarray Array through copy-on-write, an ndarray
    by value. It has ``out``'s shape and dtype already: no cast or shape check can refuse."""
    if type(out) is Array:
        out[...] = fresh(scratch, device)
    else:
        np.copyto(out, device.backend.to_numpy(scratch))


def _into_outs(
    call: Callable[..., Any],
    args: Any,
    kwargs: dict[str, Any],
    outs: tuple[Any, ...],
    as_tuple: bool,
    device: Any,
    sources: tuple[Array, ...],
    name: str,
    hint: str = "",
) -> Any:
    """``call(*args, out=outs, **kwargs)`` with NumPy's results, all or nothing.

    NumPy writes scratch arrays of the outs' shapes and dtypes, so it checks
    every out by its own rules (broadcasting, the call's casting rule) and
    reports floating-point errors before any array of the caller's changed;
    only once every result is in are the outs written. The result is
    NumPy's, with each out in its place and a fresh Array where ``out=``
    held None.
    """
    keep_values = "where" in kwargs  # where= leaves an out's values where it is False
    scratches = tuple([_scratch(out, device, keep_values) for out in outs])
    try:
        result = call(*args, out=scratches if as_tuple else scratches[0], **kwargs)
    except (TypeError, ValueError) as error:
        clearer = _refusal(error, call, args, kwargs, outs, name, hint)
        if clearer is None:
            raise
        raise clearer from error
    returned = _returned(result, outs, scratches, device, sources)  # may refuse a dtype
    for out, scratch in zip(outs, scratches, strict=True):
        if out is not None:
            _write_out(out, scratch, device)
    return returned


def _returned(
    result: Any, outs: tuple[Any, ...], scratches: tuple[Any, ...], device: Any, sources: Any
) -> Any:
    """NumPy's ``result`` with each scratch array replaced by its out, the rest wrapped."""
    if result is scratches[0]:  # the common case: one out, which NumPy returns
        return outs[0]
    if isinstance(result, tuple):
        return tuple(_returned(r, outs, scratches, device, sources) for r in result)
    for out, scratch in zip(outs, scratches, strict=True):
        if scratch is not None and result is scratch:
            return out
    return _wrapped(result, device, sources)


def _refusal(
    error: Exception,
    call: Callable[..., Any],
    args: Any,
    kwargs: dict[str, Any],
    outs: tuple[Any, ...],
    name: str,
    hint: str,
) -> Exception | None:
    """A clearer error for an ``out=`` NumPy refused, or None when the call fails anyway.

    The same call allocating its results tells whether the outs were the
    problem, and what each out was given beside what its result needs (this
    runs only when the call failed). Which rule refused is NumPy's to say:
    element-wise calls cast into an out under 'same_kind' and broadcast to
    it, reductions want its exact dimensions, some functions want one array.
    """
    # One None per place for a ufunc of several outputs; a plain None where
    # there is one (NumPy's reductions and functions refuse (None,)).
    no_outs = tuple(None for _ in outs) if len(outs) > 1 else None
    try:
        # (the caller's call warned of nothing: nor does this, and it sets no
        # error state: cowarray._backends._error_state)
        results = ignoring(call, *args, out=no_outs, **kwargs)
    except Exception:  # not about the outs: NumPy's error as it is
        return None
    results = results if isinstance(results, tuple) else (results,)
    places = []
    for place, (out, result) in enumerate(zip(outs, results, strict=False)):
        if out is not None:
            given = out._data if type(out) is Array else out
            places.append(
                f"out[{place}] is {given.dtype} of shape {tuple(given.shape)} for a result of "
                f"{getattr(result, 'dtype', '?')} of shape {tuple(getattr(result, 'shape', ()))}"
            )
    kind = TypeError if isinstance(error, TypeError) else ValueError
    return kind(
        f"{name}: NumPy refused out=: {error}; nothing was written ({'; '.join(places)}). "
        "Pass, in each place of out=, an array of its result's shape and of a dtype the "
        "result casts to ('same_kind' for element-wise calls, unless casting= says "
        f"otherwise), or None there to allocate that result{hint}"
    )


_NOT_PLAIN: Final = object()


def _plain_argument(value: Any, device: Any, sources: list[Array]) -> Any:
    kind = type(value)
    if kind is Array:
        if value._device is not device:
            return _NOT_PLAIN
        sources.append(value)
        return _readable(value, device)
    if kind in _PLAIN_VALUES or kind is np.ndarray:
        return value
    if kind is tuple and all(type(v) is int for v in value):
        return value
    return _NOT_PLAIN


def _plain_call(ufunc: Any, device: Any, inputs: tuple[Any, ...]) -> Any:
    """``ufunc(*inputs)`` for host Arrays, ndarrays and scalars only, else None.

    The common case (``np.sin(x)``, ``x + ndarray``) without the general
    path's walk through nested arguments: a call without ``out=`` always
    allocates its results, so they are fresh values.
    """
    args = [_plain_argument(value, device, []) for value in inputs]
    for value in args:
        if value is _NOT_PLAIN:
            return None
    result = ufunc(*args)
    if type(result) is tuple:
        for r in result:
            _check_holdable(r)
        return tuple(fresh(r, device) for r in result)
    _check_holdable(result)
    return fresh(result, device)


def _numpy_in_a_trace(name: str, short: str) -> TypeError:
    """NumPy's functions on a traced Array (inside cowarray.transforms)."""
    return TypeError(
        f"{name} on a traced Array: NumPy's functions compute with memory, and inside "
        f"cowarray.transforms an Array has none; call the cowarray function or operator "
        f"(ca.{short}: where cowarray spells it otherwise, that name says how), and make a "
        "NumPy operand an Array first (x + ca.asarray(y): a constant of the trace)"
    )


def array_ufunc(self: Array, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
    """``Array.__array_ufunc__``: NEP 13 with value semantics."""
    if method == "__call__" and not kwargs and self._device.kind == "cpu":
        result = _plain_call(ufunc, self._device, inputs)
        if result is not None:
            return result
    try:
        if method == "at":
            return _ufunc_at(ufunc, *inputs, **kwargs)
        name = f"np.{ufunc.__name__}" + ("" if method == "__call__" else f".{method}")
        outs = _split_out(kwargs)
        if outs is not None:
            _check_outs(outs, name, ufunc.nout)
        device = _common_device(inputs, outs or ())
        if device.kind == "jax":
            raise _numpy_in_a_trace(name, ufunc.__name__)
        sources: list[Array] = []
        args = _unwrap(inputs, device, sources)
        kwargs = _unwrap(kwargs, device, sources)
    except _Unknown:
        return NotImplemented
    call = getattr(ufunc, method)
    if outs is None:
        return _wrapped(call(*args, **kwargs), device, tuple(sources))
    return _into_outs(call, args, kwargs, outs, True, device, tuple(sources), name)


def _ufunc_at(ufunc: Any, target: Any, indices: Any, *values: Any) -> None:
    if type(target) is Array and target._device.kind == "cpu":
        # The common call, np.add.at(tally, where, weights) with host arrays
        # and scalars: no walk through nested arguments. ``ufunc.at`` writes
        # only its first argument, so the others go as they are (no
        # read-only view each: a third of this path's own cost).
        device = target._device
        index = _at_operand(indices, device)
        operands = tuple([_at_operand(value, device) for value in values])
        for operand in (index, *operands):
            if operand is _NOT_PLAIN:  # (not ``in``: that compares arrays by ==)
                break
        else:
            _write_at(ufunc, target, device, index, operands)
            return
    device = _common_device((target, indices, values), ())
    sources: list[Array] = []
    index = _unwrap(indices, device, sources)
    operands = _unwrap(values, device, sources)
    if type(target) is not Array:  # NumPy's own array: NumPy writes it
        ufunc.at(target, index, *operands)
        return
    _write_at(ufunc, target, device, index, operands)


def _at_operand(value: Any, device: Any) -> Any:
    """An index or operand of ``ufunc.at`` as NumPy takes it, or ``_NOT_PLAIN``."""
    kind = type(value)
    if kind is Array:
        return value._data if value._device is device else _NOT_PLAIN
    if kind is np.ndarray or kind in _PLAIN_VALUES:
        return value
    return _NOT_PLAIN


def _write_at(
    ufunc: Any, target: Array, device: Any, index: Any, operands: tuple[Any, ...]
) -> None:
    backend = device.backend
    if device.kind == "cpu" and not backend.errors_may_surface(
        ufunc.__name__, np.result_type(target._data, *operands)
    ):
        # NumPy checks the indices, the operands' shape and the casts before
        # its loop writes (tests/api/test_numpy_protocols.py pins it), and no
        # error can be raised after the loop: the core writes ``target`` in
        # place when it holds its memory alone, else into a copy (rule 3).
        # (The general path below copies ``target`` and stores it back: on a
        # 1000-element tally 26.4 us against 24.1 here, NumPy 13.4.)
        store(
            target,
            index,
            operands,
            apply=functools.partial(_apply_at, ufunc),
            what=f"np.{ufunc.__name__}.at(x, ...)",
        )
        return
    scratch = backend.copy(target._data)
    ufunc.at(scratch, index, *operands)
    target[...] = fresh(scratch, device)


def _apply_at(ufunc: Any, data: Any, index: Any, operands: tuple[Any, ...]) -> None:
    ufunc.at(data, index, *operands)


def _plain_function_call(func: Any, device: Any, args: Any, kwargs: Any) -> Any:
    """``func(*args, **kwargs)`` when no argument nests arrays, else ``_NOT_PLAIN``.

    The common case (``np.sum(x, axis=0)``, ``np.mean(x)``) without the general
    path's walk through nested arguments.
    """
    sources: list[Array] = []
    call_args = [_plain_argument(value, device, sources) for value in args]
    call_kwargs = {k: _plain_argument(v, device, sources) for k, v in kwargs.items()}
    for value in (*call_args, *call_kwargs.values()):
        if value is _NOT_PLAIN:
            return _NOT_PLAIN
    result = getattr(func, "_implementation", func)(*call_args, **call_kwargs)
    foreign = tuple(value for value in args if type(value) is np.ndarray) + tuple(
        value for value in kwargs.values() if type(value) is np.ndarray
    )

    def again() -> Any:
        return _plain_function_call(func, device, args, kwargs)

    if not foreign and (type(result) is np.ndarray or isinstance(result, np.generic)):
        _check_holdable(result)
        return may_view(
            _writable_as_its_source(result, tuple(sources)), device, tuple(sources), again
        )
    return _wrapped(result, device, tuple(sources), foreign, again)


def array_function(
    self: Array, func: Callable[..., Any], types: Any, args: Any, kwargs: Any
) -> Any:
    """``Array.__array_function__``: NEP 18 with value semantics."""
    if func in _NEVER_ALIAS and all(type(a) is Array for a in args[:2]):
        return False  # two values never alias; with an ndarray, the memory is asked
    if func in _MAKE_NDARRAYS:
        return getattr(func, "_implementation", func)(*args, **kwargs)
    if self._device.kind == "cpu" and "out" not in kwargs and func not in _WRITES_FIRST_ARGUMENT:
        result = _plain_function_call(func, self._device, args, kwargs)
        if result is not _NOT_PLAIN:
            return result
    kwargs = dict(kwargs)
    name = f"np.{getattr(func, '__name__', func)}"
    out_is_tuple = isinstance(kwargs.get("out"), tuple)  # NumPy decides if it takes one
    try:
        outs = _split_out(kwargs)
        if outs is not None:
            _check_outs(outs, name, None)
        # self: NEP 35 like= drops it
        device = _common_device((self, args, outs or ()), kwargs)
        if device.kind == "jax":
            raise _numpy_in_a_trace(name, getattr(func, "__name__", "..."))
        if func in _WRITES_FIRST_ARGUMENT:
            return _write_first_argument(func, device, args, kwargs)
        sources: list[Array] = []
        call_args = _unwrap(args, device, sources)
        call_kwargs = _unwrap(kwargs, device, sources)
    except _Unknown:
        return NotImplemented
    implementation = getattr(func, "_implementation", func) if device.kind == "cpu" else func
    if outs is None:
        found: list[np.ndarray] = []
        if device.kind == "cpu":  # (elsewhere NumPy arguments were copied to the device)
            _foreign_arrays((args, kwargs), found)
        result = implementation(*call_args, **call_kwargs)
        return _wrapped(
            result,
            device,
            tuple(sources),
            tuple(found),
            lambda: array_function(self, func, types, args, kwargs),
        )
    # (ufunc-based functions such as np.clip take a tuple; the others one array)
    hint = f"; {name} may want out= as one array, not a tuple" if out_is_tuple else ""
    return _into_outs(
        implementation,
        call_args,
        call_kwargs,
        outs,
        out_is_tuple,
        device,
        tuple(sources),
        name,
        hint,
    )


def _write_first_argument(func: Any, device: Any, args: Any, kwargs: Any) -> None:
    target, *rest = args
    if type(target) is not Array:
        raise TypeError(
            f"np.{func.__name__} writes into its first argument, which must then be a "
            f"cowarray Array, got {type(target).__name__}"
        )
    sources: list[Array] = []
    scratch = device.backend.copy(target._data)
    func(scratch, *_unwrap(tuple(rest), device, sources), **_unwrap(kwargs, device, sources))
    target[...] = fresh(scratch, device)


class _Snapshot:
    """The base of :func:`to_numpy`'s ndarray: its memory, read-only, and the
    lazy clone that keeps that memory's values (a holder: writes to any other
    value of the buffer copy first, rule 3)."""

    __slots__ = ("__array_interface__", "_value")

    def __init__(self, value: Array) -> None:
        data = value._data
        interface = data.__array_interface__
        self._value = value
        self.__array_interface__ = {
            "version": 3,
            "shape": data.shape,
            "typestr": interface["typestr"],
            "descr": interface["descr"],
            "strides": data.strides,
            "data": (interface["data"][0], True),  # read-only
        }


def to_numpy(self: Array, dtype: Any = None, copy: bool = False) -> np.ndarray:
    """The array's values as a NumPy array that no later write changes.

    The spelling of pandas' and xarray's ``to_numpy``, which matplotlib (and
    other libraries that accept pandas and xarray objects) call to get an
    ndarray: a 2-D Array then plots one data set per column, as an ndarray
    does.

    Parameters
    ----------
    dtype : dtype, optional
        The dtype of the result; a different dtype from the array's is a
        converted copy.
    copy : bool, default False
        False: zero-copy where the array is in host memory, a *read-only*
        ndarray of the array's values (what pandas' ``to_numpy`` gives under
        Copy-on-Write). It is a lazy clone of the array: a later write to the
        array copies first, so the ndarray keeps the values it had, and it
        cannot be written. True: a new, writable ndarray, independent of
        the array (``np.array(x)``).

    Returns
    -------
    numpy.ndarray
        The values. Unlike ``np.asarray(x)`` (a writable alias of ``x``, see
        docs/design.md rule 4), it never aliases ``x``.

    Examples
    --------
    >>> import cowarray as ca
    >>> x = ca.asarray([1.0, 2.0, 3.0])
    >>> values = x.to_numpy()
    >>> x[0] = 100.0
    >>> values, values.flags.writeable
    (array([1., 2., 3.]), False)
    >>> x.to_numpy(copy=True).flags.writeable
    True
    """
    if copy not in (True, False):
        raise TypeError(f"to_numpy: copy must be True or False, got {copy!r}")
    target = None if dtype is None else np.dtype(dtype)
    if self._device.kind != "cpu":  # device memory: its copy to the host is the value
        self = self.to_device("cpu")
    if copy or (target is not None and target != self._data.dtype):
        copied: np.ndarray = self.__array__(dtype=target, copy=True)
        return copied
    return np.asarray(_Snapshot(lazy_clone(self)))


def register() -> None:
    """Attach the protocols to the Array (called once, by ``cowarray/__init__.py``)."""
    Array.__array_ufunc__ = array_ufunc
    Array.__array_function__ = array_function
    Array.to_numpy = to_numpy  # type: ignore[attr-defined]
