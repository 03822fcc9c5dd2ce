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
  ndarray receives the values (``np.copyto``), never an alias.
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

from collections.abc import Callable
from typing import Any, Final

import numpy as np

from ._array import Array, fresh, may_view

__all__ = ["array_function", "array_ufunc", "register"]

#: NumPy functions that write into their first argument; run on a copy of
#: its values, then written back through copy-on-write.
_WRITES_FIRST_ARGUMENT: Final = frozenset(
    {np.copyto, np.put, np.place, np.putmask, np.fill_diagonal, np.put_along_axis}
)

_NEVER_ALIAS: Final = frozenset({np.shares_memory, np.may_share_memory})

#: NumPy functions whose job is to make an ndarray of their argument: they
#: keep NumPy's meaning (``np.from_dlpack(x)`` imports x's DLPack export,
#: which is an aliasing boundary, rule 5) instead of returning a cowarray Array.
_MAKE_NDARRAYS: Final = frozenset({np.from_dlpack})


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
    if (
        not isinstance(value, np.ndarray)
        and (
            getattr(type(value), "__array_ufunc__", None) is not None
            or hasattr(type(value), "__array_function__")
        )
        and not isinstance(value, np.generic)
    ):
        raise _Unknown
    if isinstance(value, np.ndarray) and device.kind != "cpu":
        return device.backend.asarray(value)  # read as an input on the device
    return value


def _readable(array: Array, device: Any) -> Any:
    data = array._data
    if isinstance(data, np.ndarray):
        view = data.view()
        view.flags.writeable = False  # a NumPy function that writes fails loudly
        return view
    return device.backend.copy(data)  # GPU memory cannot be made read-only


def _wrapped(result: Any, device: Any, sources: tuple[Array, ...]) -> Any:
    if isinstance(result, tuple):
        return tuple(_wrapped(r, device, sources) for r in result)
    if isinstance(result, list):
        return [_wrapped(r, device, sources) for r in result]
    if isinstance(result, (np.ndarray, np.generic)) or type(result) is device.backend.array_type:
        _check_holdable(result)
        return may_view(result, device, sources)
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


def _write_out(out: Any, result: Any) -> Any:
    """Put ``result`` into ``out``: a cowarray Array through copy-on-write, an ndarray by value."""
    if type(out) is Array:
        out[...] = result
        return out
    np.copyto(out, np.asarray(result))
    return out


def _split_out(kwargs: dict[str, Any]) -> tuple[Any, ...] | None:
    out = kwargs.pop("out", None)
    if out is None:
        return None
    return out if isinstance(out, tuple) else (out,)


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


def array_ufunc(self: Array, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
    """``Array.__array_ufunc__``: NEP 13 with value semantics."""
    if method == "__call__" and not kwargs and self._device.kind == "cpu":
        result = _plain_call(ufunc, self._device, inputs)
        if result is not None:
            return result
    try:
        if method == "at":
            return _ufunc_at(ufunc, *inputs, **kwargs)
        outs = _split_out(kwargs)
        device = _common_device(inputs, outs or ())
        sources: list[Array] = []
        args = _unwrap(inputs, device, sources)
        kwargs = _unwrap(kwargs, device, sources)
    except _Unknown:
        return NotImplemented
    result = getattr(ufunc, method)(*args, **kwargs)
    wrapped = _wrapped(result, device, tuple(sources))
    if outs is None:
        return wrapped
    results = wrapped if isinstance(wrapped, tuple) else (wrapped,)
    written = tuple(_write_out(o, r) for o, r in zip(outs, results, strict=True))
    return written if isinstance(wrapped, tuple) else written[0]


def _ufunc_at(ufunc: Any, target: Any, indices: Any, *values: Any) -> None:
    device = _common_device((target, indices, values), ())
    sources: list[Array] = []
    index = _unwrap(indices, device, sources)
    operands = _unwrap(values, device, sources)
    if type(target) is not Array:  # NumPy's own array: NumPy writes it
        ufunc.at(target, index, *operands)
        return
    scratch = device.backend.copy(target._data)
    ufunc.at(scratch, index, *operands)
    target[...] = fresh(scratch, device)


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
    if type(result) is np.ndarray or isinstance(result, np.generic):
        _check_holdable(result)
        return may_view(result, device, tuple(sources))
    return _wrapped(result, device, tuple(sources))


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
    try:
        outs = _split_out(kwargs)
        device = _common_device((self, args), kwargs)  # self: NEP 35 like= drops it
        if func in _WRITES_FIRST_ARGUMENT:
            return _write_first_argument(func, device, args, kwargs)
        sources: list[Array] = []
        call_args = _unwrap(args, device, sources)
        call_kwargs = _unwrap(kwargs, device, sources)
    except _Unknown:
        return NotImplemented
    implementation = getattr(func, "_implementation", func) if device.kind == "cpu" else func
    result = implementation(*call_args, **call_kwargs)
    wrapped = _wrapped(result, device, tuple(sources))
    if outs is None:
        return wrapped
    return _write_out(outs[0], wrapped)


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


def register() -> None:
    """Attach the protocols to the Array (called once, by ``cowarray/__init__.py``)."""
    Array.__array_ufunc__ = array_ufunc
    Array.__array_function__ = array_function
