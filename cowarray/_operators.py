"""The Array's Python operators, made by three factories.

:func:`binary_operation` and :func:`unary_operation` make the element-wise
functions and operators (one body serves ``ca.add`` and ``+``), and
:func:`inplace_operator` the in-place ones (``x += y``): a small private
array computes beside its old value and hands the result to the core
(the core's ``replace_private``); everything else enters the core by its
in-place door (``cowarray._core.inplace``). The Array's class body (cowarray._array)
binds one line per operator; this module finds the Array type once it
exists (:func:`bind_array_type`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, TypeVar

from ._checks import (
    CATEGORY,
    OperandTypeError,
    check_dtypes,
    common_device,
    pair_dtype,
    scalar_operand,
)
from ._compiled import TEMPORARIES
from ._core import (
    NO_FAST_WRITE,
    PENDING,
    flush,
    fresh,
    inplace,
    notify,
    private,
    taken_for_inplace,
)
from ._devices import Device
from ._dtypes import ALL_DTYPES, check_scalar, promote, scalar_result_dtype
from ._errors import Retired, check_int_fits, not_an_array, shapes_do_not_broadcast

if TYPE_CHECKING:
    # (typed by its slots: cowarray._array, which imports this module, binds
    # the class itself at run time)
    from ._core import Value as Array
else:
    Array = None  # the class, bound by cowarray._array once it exists

__all__ = [
    "binary_operation",
    "bind_array_type",
    "bind_list_conversion",
    "inplace_operator",
    "unary_operation",
]


def bind_array_type(array_type: type) -> None:
    """Let the operators recognise ``array_type`` (called once, by cowarray._array)."""
    globals()["Array"] = array_type


#: ``asarray``, which makes an operand of a list (bound by cowarray._ops.creation,
#: which lies above this module).
_LIST_CONVERSION: list[Callable[..., Any]] = []


def bind_list_conversion(asarray: Callable[..., Any]) -> None:
    """Let an operator take a list operand, converted by ``asarray`` (called
    once, by cowarray._ops.creation)."""
    _LIST_CONVERSION[:] = [asarray]


_FUNCTION, _METHOD, _REFLECTED = 0, 1, 2

#: (for the slot set-up of cowarray._core.private that binary_operation copies)
_object_new: Final = object.__new__

#: An operator's bindings, per device: the backend's function, its array
#: type, the same function for sizes it computes in one call, and the size
#: it splits from (:func:`_bind`).
_Bindings = dict[Device, tuple[Callable[..., Any], Any, Callable[..., Any], list[int]]]


def binary_operation(name: str, mode: int = _FUNCTION) -> Callable[[Any, Any], Any]:
    """The element-wise binary operation ``name`` (a standard function name).

    One body serves the public function (``mode=_FUNCTION``: a bad operand
    raises TypeError) and the Python operators (``_METHOD``/``_REFLECTED``:
    a bad operand returns NotImplemented so Python can try the other side).
    Checks run first: devices, promotion (the standard's table within a
    kind, NumPy 2's across kinds: docs/design.md rule 11), scalar kinds, the
    function's dtype category; then the backend is called once and a fresh
    result is made an Array (the common case of :func:`fresh`).
    """
    allowed = frozenset(d for d in ALL_DTYPES if d.kind in CATEGORY.get(name, "biufc"))
    reflected = mode == _REFLECTED
    bound: _Bindings = {}

    def operation(x1: Any, x2: Any, /) -> Any:
        if reflected:
            x1, x2 = x2, x1
        if type(x1) is Array:
            device = x1._device
            a = x1._data
            dtype = a.dtype
            if type(x2) is Array:
                b = x2._data
                if x2._device is not device or b.dtype is not dtype:
                    dtype = pair_dtype(name, x1, x2)
                    if x2._device is not device:  # (a host Array in a trace: a constant)
                        device = common_device(x1, x2)
            else:
                b = x2 if type(x2) in _PYTHON_SCALARS else _operand(x2, mode, name, "x2", device)
                if b is NotImplemented:
                    return b
                dtype = scalar_result_dtype(dtype, b)
        elif type(x2) is Array:
            device = x2._device
            b = x2._data
            dtype = b.dtype
            a = x1 if type(x1) in _PYTHON_SCALARS else _operand(x1, mode, name, "x1", device)
            if a is NotImplemented:
                return a
            dtype = scalar_result_dtype(dtype, a)
        else:
            raise not_an_array(name, "x1", x1, "a cowarray Array (at least one of x1 and x2)")
        if dtype not in allowed:
            check_dtypes(name, dtype)
        try:
            function, array_type, whole, split_from = bound[device]
        except KeyError:
            function, array_type, whole, split_from = bound[device] = _bind(device, name)
        # Arrays the backend would compute in one call anyway skip its wrapper.
        gate = split_from[0]
        try:
            if (type(a) is not array_type or a.size < gate) and (
                type(b) is not array_type or b.size < gate
            ):
                result = whole(a, b)
            else:
                result = function(a, b)
        except ValueError as error:
            if name != "matmul" and getattr(a, "shape", ()) == getattr(b, "shape", ()):
                raise  # not a shape mismatch: the backend's own words
            raise shapes_do_not_broadcast(name, a, b) from error
        except OverflowError:
            # A Python int operand that the array's dtype cannot hold.
            scalar, other = (a, b) if type(a) is int else (b, a)
            check_int_fits(scalar, other.dtype, "x1" if scalar is a else "x2")
            raise
        if type(result) is array_type and result.base is None:
            # cowarray._core.values.private's set-up, copied: ``a + b`` is a
            # floor row (docs/design.md, "One slot set-up"), and
            # tests/core/test_view_join_copies.py checks the copy.
            if PENDING:
                flush()
            array = _object_new(Array)
            array._data = result
            array._buf = None
            array._device = device
            array._fast_write = NO_FAST_WRITE
            array._donated = False
            array._family = None
            return array
        return fresh(result, device)

    operation.__name__ = operation.__qualname__ = name
    if mode == _FUNCTION or TEMPORARIES is None or name not in _ELIDABLE:
        return operation

    def on_temporaries(x1: Any, x2: Any, temporaries: int, /) -> Any:
        # Called by the compiled operator (cowarray._temporaries) instead of
        # ``operation`` when an operand is a big temporary: ``temporaries``
        # has bit 1 for ``x1``, the Array whose operator Python called, and
        # bit 2 for ``x2``.
        if reflected:
            x2_first = (temporaries & 1) << 1 | temporaries >> 1
            result = _into_temporary(name, allowed, x2, x1, x2_first, bound)
        else:
            result = _into_temporary(name, allowed, x1, x2, temporaries, bound)
        return operation(x1, x2) if result is None else result

    on_temporaries.__name__ = on_temporaries.__qualname__ = f"{name}_into_temporary"
    aware: Callable[[Any, Any], Any] = TEMPORARIES.operator(
        operation, on_temporaries, "_data", ELIDE_MIN_BYTES
    )
    return aware


def _into_temporary(
    name: str, allowed: frozenset[Any], x1: Any, x2: Any, temporaries: int, bound: _Bindings
) -> Any:
    """``x1 <name> x2`` written into the memory of an operand that nothing but
    the caller's value stack references (``temporaries``: bit 1 for ``x1``,
    bit 2 for ``x2``; proven by cowarray._temporaries); or None where the
    result cannot go there (the caller computes it as usual). ``allowed``:
    the dtypes of ``name``'s category.

    The operand must be private (no record: no other value, export or view
    family reads its memory, design.md §3.1), and the result must have its
    dtype and shape and be unable to fail after the backend's loop has
    written. The core then hands the operand's memory over
    (``cowarray._core.taken_for_inplace``), leaving the operand retired,
    and the result is a new Array of that memory: code that reached the
    operand anyway (a gc callback walking ``gc.get_objects()``) gets an
    error on use, never a value that changes.
    """
    for target, other, bit in ((x1, x2, 1), (x2, x1, 2)):
        if (
            not temporaries & bit
            or type(target) is not Array
            or target._buf is not None
            or target._family is not None
        ):
            continue
        data = target._data
        dtype = data.dtype
        device = target._device
        if dtype not in allowed or (dtype.kind in "biu" and name in _NOT_CLOSED_ON_INTEGERS):
            continue
        if type(other) is Array:
            operand = other._data
            if other._device is not device or not _broadcasts_into(operand.shape, data.shape):
                continue
            if operand.dtype is not dtype:
                try:
                    if pair_dtype(name, x1, x2) != dtype:
                        continue
                except (TypeError, ValueError):
                    continue  # (the operation says what is wrong)
        elif type(other) in _PYTHON_SCALARS:
            operand = other
            try:
                if scalar_result_dtype(dtype, other) != dtype:
                    continue
            except TypeError:
                continue
            check_int_fits(other, dtype, "x2" if bit == 1 else "x1")  # (the operation's words)
        else:
            continue
        memory = taken_for_inplace(target, name, dtype, _CONSUMED)
        if memory is None:
            continue
        try:
            function, _, whole, split_from = bound[device]
        except KeyError:
            function, _, whole, split_from = bound[device] = _bind(device, name)
        if data.size < split_from[0]:
            function = whole
        if bit == 1:
            function(memory, operand, out=memory)
        else:
            function(operand, memory, out=memory)
        return _temporary_result(memory, device)
    return None


def _broadcasts_into(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    """Whether an operand of ``shape`` broadcasts to ``target`` unchanged."""
    if shape == target or not shape:
        return True
    if len(shape) > len(target):
        return False
    return all(n == 1 or n == m for n, m in zip(reversed(shape), reversed(target), strict=False))


def unary_operation(name: str, mode: int = _FUNCTION) -> Callable[[Any], Any]:
    """The element-wise unary operation ``name`` (function and operator alike;
    an operator, ``mode=_METHOD``, may write into a temporary operand)."""
    allowed = CATEGORY.get(name, "biufc")

    def operation(x: Any, /) -> Any:
        if type(x) is not Array:
            raise not_an_array(name, "x", x)
        data = x._data
        if data.dtype.kind not in allowed:
            check_dtypes(name, data.dtype)
        return fresh(getattr(x._device.backend.xp, name)(data), x._device)

    operation.__name__ = operation.__qualname__ = name
    if mode == _FUNCTION or TEMPORARIES is None:
        return operation

    def on_temporary(x: Any, temporaries: int, /) -> Any:
        # (called by the compiled operator for a big temporary ``x``)
        result = _unary_into_temporary(name, allowed, x)
        return operation(x) if result is None else result

    on_temporary.__name__ = on_temporary.__qualname__ = f"{name}_into_temporary"
    aware: Callable[[Any], Any] = TEMPORARIES.operator(
        operation, on_temporary, "_data", ELIDE_MIN_BYTES, 1
    )
    return aware


def _unary_into_temporary(name: str, allowed: str, x: Any) -> Any:
    """``<name> x`` written into the memory of ``x``, a temporary (as
    :func:`_into_temporary`; ``allowed``: the kinds of ``name``'s category);
    or None."""
    if type(x) is not Array or x._buf is not None or x._family is not None:
        return None
    dtype = x._data.dtype
    if dtype.kind not in allowed or (name == "abs" and dtype.kind == "c"):
        return None  # (abs of complex numbers is real: another dtype)
    device = x._device
    memory = taken_for_inplace(x, name, dtype, _CONSUMED)
    if memory is None:
        return None
    getattr(device.backend.xp, name)(memory, out=memory)
    return _temporary_result(memory, device)


def _temporary_result(memory: Any, device: Device) -> Array:
    """The Array of a temporary's memory that an operator has written."""
    result: Array = private(memory, device)
    notify("temporary_takeover", result, None, 0)  # (trace() shows it)
    return result


_NEVER_SPLITS: Final = [1 << 62]


def _bind(
    device: Device, name: str
) -> tuple[Callable[..., Any], Any, Callable[..., Any], list[int]]:
    # A backend function that splits big arrays over threads says below which
    # size it calls ``__wrapped__`` whole (``split_from``); others never split.
    backend = device.backend
    function = getattr(backend.xp, name)
    whole = getattr(function, "__wrapped__", function)
    split_from = getattr(function, "split_from", _NEVER_SPLITS)
    return function, backend.array_type, whole, split_from


def _operand(
    value: object, mode: int, function: str = "", argument: str = "", device: Device | None = None
) -> Any:
    if mode != _FUNCTION and getattr(type(value), "__array_ufunc__", None) is not None:
        # An ndarray (or another NEP 13 array): its reflected operator calls
        # the ufunc, which hands the call to Array.__array_ufunc__.
        return NotImplemented
    if mode != _FUNCTION and (type(value) is list or type(value) is tuple):
        # x == [[1, 2], [3, 4]]: element-wise, as in NumPy (NotImplemented
        # would let Python answer False, by identity).
        return _sequence_operand(value, device)
    try:
        return scalar_operand(value)
    except OperandTypeError as error:
        if mode == _FUNCTION:
            if function:
                # (an OperandTypeError still: the operators tell it apart)
                hint = not_an_array(
                    function, argument, value, "a cowarray Array or a Python scalar"
                )
                raise OperandTypeError(str(hint)) from None
            raise error
        return NotImplemented


def _sequence_operand(value: list[Any] | tuple[Any, ...], device: Device | None) -> Any:
    """An operator's list or tuple operand as backend data on the other
    operand's ``device``, converted as ``asarray(value, device=device)`` does
    (so its dtype is asarray's, as NumPy's for a list: not weak like a
    scalar's). An in-place operator passes no device: it refuses the list
    rather than let Python fall back to ``x = x + value``, a new array."""
    if device is None:
        raise TypeError(
            f"an in-place operator takes an Array or a Python scalar, got a "
            f"{type(value).__name__}; convert it first with ca.asarray(value)"
        )
    return _LIST_CONVERSION[0](value, device=device)._data


#: The Array an in-place operator is called on, and gives back.
_Self = TypeVar("_Self")


def inplace_operator(name: str) -> Callable[[_Self, Any], _Self]:
    """The in-place operator ``name`` (``x += y`` for "add"): the operand's
    device, dtype and shape are checked here and the write is the core's
    (``cowarray._core.inplace``)."""
    # dtypes whose in-place ``name`` with a fitting Python scalar keeps the
    # dtype (``/=`` on integers would make floats: never on the quick path)
    keeps_dtype = frozenset(
        d
        for d in ALL_DTYPES
        if d.kind in CATEGORY.get(name, "biufc") and not (name == "divide" and d.kind in "biu")
    )
    # An Array operand of the same dtype keeps it too (matmul's shapes have
    # their own checks and words: the full path, for a scalar too).
    arrays_too = name != "matmul"
    if not arrays_too:
        keeps_dtype = frozenset()
    bound: _Bindings = {}

    def method(self: Array, other: Any, /) -> Any:
        data = self._data
        kind = type(other)
        fast = self._fast_write
        if (
            fast
            and (
                kind in fast  # (a 1-D array's set holds bare scalar types...)
                or (
                    kind is Array
                    and arrays_too
                    and other._device is self._device
                    and (operand := other._data).dtype is data.dtype
                    and (operand.shape == data.shape or not operand.shape)
                )
                or (kind, data.ndim) in fast  # (...others' pairs: values.fast_writes)
            )
            and data.dtype in keeps_dtype
        ):
            # A scalar of a fitting kind or an array of this dtype that leaves
            # the shape (``x += y``, ``x += y[i]``), on memory the core found
            # private and writable: the core may take its quick way (the new
            # value beside the old, in its place if nothing shared it since).
            # (Private: ``other`` shares no memory with ``self`` unless it is
            # ``self``; the result is computed before the store.)
            try:
                entry = bound[self._device]
            except KeyError:
                entry = bound[self._device] = _bind(self._device, name)
            function = entry[2] if data.size < entry[3][0] else entry[0]
            inplace(self, name, function, operand if kind is Array else other, other, True)
            return self
        if (
            type(other) is not Array
            and type(other) not in _PYTHON_SCALARS
            and _operand(other, _METHOD) is NotImplemented
        ):
            if type(other) is not self._device.backend.array_type:
                return NotImplemented  # another library's array: its reflected operator
            # x += ndarray: NumPy writes x. Returning NotImplemented would let
            # Python bind x to a new array (ndarray.__radd__), and an export
            # of x or the caller's array would silently keep the old values.
            # The ndarray is read as an input, never kept (rule 11); one of
            # another byte order is read in this machine's, as x + ndarray
            # reads it (cowarray stores native dtypes only).
            if not other.dtype.isnative:
                other = other.astype(other.dtype.newbyteorder("="))
            other = private(other, self._device)
        _apply_inplace(name, self, other, bound)
        return self

    method.__name__ = method.__qualname__ = name
    return method  # type: ignore[return-value]  # (it gives back the Array it was called on)


def _apply_inplace(
    name: str, array: Array, other: Array | bool | int | float | complex, bound: _Bindings
) -> None:
    """The checks of ``array <name>= other`` (devices, dtypes, shapes, in
    cowarray's words), then the core's write."""
    dtype = array._data.dtype
    if type(other) is Array:
        if other._device is not array._device:
            _check_inplace_device(array, other)
        operand = other._data
        # (one dtype object: nothing to promote, the common case)
        result_dtype: Any = dtype if operand.dtype is dtype else promote(dtype, operand.dtype)
    else:
        operand = other if type(other) in _PYTHON_SCALARS else scalar_operand(other)
        check_scalar(dtype, operand)
        result_dtype = dtype
    if name == "divide" and dtype.kind in "iub":
        result_dtype = None
    if result_dtype is not dtype:
        raise TypeError(
            f"an in-place {name} would turn this {dtype} array into "
            f"{result_dtype or 'floating point'}; in-place operators keep the dtype, "
            "so write x = x <op> y instead"
        )
    if dtype.kind not in CATEGORY[name]:
        check_dtypes(name, dtype)
    if name == "matmul":
        product = binary_operation(name)(array, other)
        _check_inplace_shape(name, array, product.shape)
        inplace(array, name, _the_product, product._data, other)
        return
    if type(other) is Array and operand.shape != array._data.shape and operand.shape:
        # (a 0-d operand, ``x += y[i]``, broadcasts to every shape)
        # (equal shapes broadcast to themselves: NumPy's broadcast_shapes is
        # Python, a twentieth of the stencil's x[1:-1] += d)
        try:
            shape = array._device.backend.xp.broadcast_shapes(array._data.shape, operand.shape)
        except ValueError:
            raise shapes_do_not_broadcast(
                f"an in-place {name}", array._data, operand, ("x", "the operand")
            ) from None
        _check_inplace_shape(name, array, shape)
    try:  # (the operator's own per-device binding: three getattr calls fewer)
        function, _, whole, split_from = bound[array._device]
    except KeyError:
        function, _, whole, split_from = bound[array._device] = _bind(array._device, name)
    if array._data.size < split_from[0]:
        function = whole  # (small: no pool)
    inplace(array, name, function, operand, other)


def _check_inplace_device(array: Array, other: Array) -> None:
    """``array <op>= other`` with ``other`` on another device: fine for a
    host ``other`` in a traced ``array`` (a constant of the trace); a host
    ``array`` written with a traced value would let the trace escape."""
    if common_device(array, other) is array._device:
        return
    if getattr(other._device.backend, "reads_host_arrays", False):
        raise ValueError(
            "an Array made outside the transformed function is written in place with a "
            "traced value, which would escape the trace into it; pass the Array in as "
            "an argument (and return it), or make it inside the function"
        )
    raise ValueError(
        f"arrays on different devices ({array._device} and {other._device}) "
        "cannot be combined; move one with to_device"
    )


def _the_product(data: Any, product: Any) -> Any:
    return product


def _check_inplace_shape(name: str, array: Array, shape: tuple[int, ...]) -> None:
    if tuple(shape) != array._data.shape:
        raise ValueError(
            f"an in-place {name} cannot change the array's shape {array._data.shape} "
            f"to {tuple(shape)}"
        )


_PYTHON_SCALARS: Final = frozenset({int, float, complex, bool})

#: The operators whose result may go into the memory of a temporary operand
#: (element-wise: the result can have an operand's shape and dtype).
_ELIDABLE: Final = frozenset(
    {
        "add",
        "subtract",
        "multiply",
        "divide",
        "floor_divide",
        "remainder",
        "pow",
        "bitwise_and",
        "bitwise_or",
        "bitwise_xor",
        "bitwise_left_shift",
        "bitwise_right_shift",
    }
)
#: On integers: ``divide`` makes floats, ``pow`` raises inside its loop (a
#: negative exponent) where a temporary would be left half written.
_NOT_CLOSED_ON_INTEGERS: Final = frozenset({"divide", "pow"})
#: From this many bytes a temporary operand takes its operator's result, as
#: NumPy's temporary elision does from the same size (below it, a new block
#: costs less than the checks).
ELIDE_MIN_BYTES: Final = 256 * 1024
#: What a temporary whose memory became its operator's result holds.
_CONSUMED: Final = Retired(
    "this array was a temporary whose memory became the result of an operator "
    "(c * 2.0 + 1.0 writes + 1.0 into the memory of c * 2.0); only code that walks "
    "the garbage collector's objects can reach it, and it can no longer be used"
)
