"""The two doors through which every write enters the copy-on-write core.

- :func:`setitem` is ``Array.__setitem__``: ``x[key] = value``, and every
  write made as one (``x.fill``, ``x.sort``, NumPy's ``out=`` written back);
  after the key and the value are converted it is :func:`store`, the door
  for writes at an index, which ``.at[...]`` updates and ``ufunc.at`` take
  with the backend's update for the store.
- :func:`inplace` is an in-place operation over a whole array: ``x += y``,
  the ``t += d`` of ``x[k] += d`` (through the temporary view ``t``), and
  the write of nothing that gives an array memory no one else holds before
  an export (:func:`make_private`, :func:`expose`).

Each door gathers the facts the write decision needs itself: whether the
value or operand read shares the memory written and may stay beside it
(``u[0] = u[1]``, ``x[0:10] += x[10:20]``); whether the statement running
stores the temporary view back into the array it was taken from, at the
key it was taken at (:func:`_write_through`, on
cowarray._interpreter's reading of the statement); what the backend says of
the memory and of errors after its loop, asked before the decision; whether
a held-back view-write warning is settled. It hands them to the one
decision, :func:`cowarray._core.cow.write`. The layers above check dtypes
and convert keys and values (the Array's module binds its conversions here,
:func:`bind_conversions`); the core calls nothing else of theirs.
"""

from __future__ import annotations

import operator
import threading
import weakref
from collections.abc import Callable
from sys import getrefcount as _getrefcount
from typing import Any, Final

from .. import _interpreter
from .._backends import PAGE_COW
from .._devices import CPU
from .._errors import value_does_not_fit
from . import cow, families
from .cow import (
    _SOLE,
    Buffer,
    Holder,
    _count,
    _gate,
    _lock,
    _new_record,
    _wait_for_writer,
    looks_shared,
)
from .values import (
    _NO_FAST_WRITE,
    _PENDING,
    _VIEWS,
    Array,
    fast_writes,
    given_away,
    plain_slice,
    private,
    reads_own_memory,
)
from .values import replace_private as _replace_private

__all__ = [
    "IN_PLACE_MIN_SIZE",
    "bind_conversions",
    "calibrate_at_import",
    "expose",
    "inplace",
    "make_private",
    "separate_reader",
    "setitem",
    "store",
    "taken_for_inplace",
]

#: From this many elements an in-place operator that cannot fail after its
#: loop writes in place; below it, computing beside the old value costs
#: about the same (benchmarks/core.py, "x += 1.0") and never fails half-way.
IN_PLACE_MIN_SIZE: Final = 1 << 16


# -- the conversions of the Array's module (bound by it: it imports this one) ------------

_ARRAY: type[Any] = type(None)
_backend_index: Callable[[Any, Any], Any]
_backend_value: Callable[[Any, Any], Any]
_index_error: Callable[..., BaseException]


def bind_conversions(
    array_type: type[Array],
    backend_index: Callable[[Array, Any], Any],
    backend_value: Callable[[Array, Any], Any],
    index_error: Callable[..., BaseException],
) -> None:
    """Let :func:`setitem` recognise ``array_type`` and convert keys with
    ``backend_index``, values with ``backend_value`` (checking dtypes), and
    word an index error with ``index_error``. Called once, by cowarray._array."""
    global _ARRAY, _backend_index, _backend_value, _index_error
    _ARRAY = array_type
    _backend_index, _backend_value, _index_error = backend_index, backend_value, index_error


# -- door 1: a write at an index --------------------------------------------------------


def setitem(self: Array, key: Any, value: Any, /) -> None:
    """``x[key] = value``: write ``value`` into the elements ``key`` selects.

    Copy-on-write: if other values share ``x``'s buffer, ``x`` first copies
    the region it views; if the write fails, nothing changes.

    Examples
    --------
    >>> import cowarray as ca
    >>> x = ca.zeros(3)
    >>> y = ca.lazy_clone(x)
    >>> x[1] = 5.0
    >>> x, y
    (cowarray.Array([0., 5., 0.], dtype=float64), cowarray.Array([0., 0., 0.], dtype=float64))
    """
    try:
        # A private, writable view and a scalar of a fitting kind: the core
        # already decided there is nothing to copy. From the read of
        # ``_fast_write`` to the store nothing may let another thread or a
        # gc callback in (a clone would then see the store): no call, no
        # backward jump, and a key that runs no Python code (an int, or a
        # tuple of ints tested *before* the read).
        # tests/hostile/test_threads_and_gc_never_alias.py checks the bytecode.
        # Only stores of one element: NumPy lets other threads in while it
        # fills a longer region (a row), and a clone taken then would see
        # it change. The set holds a bare type for x[i] = v only in a 1-D
        # array, and pairs (type, n) for n ints (values.fast_writes). A
        # type with a metaclass is never looked up: its hash and equality
        # could run Python code and pose as float, and NumPy would then
        # run its __float__ inside the store.
        kind = type(value)
        if type(key) is int and type(kind) is type and kind in self._fast_write:
            self._data[key] = value
            return
        # The key is converted once, before any memory is read or any
        # decision is made (a part's __index__ may run code, and answer
        # otherwise the next time). An int passes as it is; a slice of
        # ints too, without a call.
        if type(key) is slice:
            # (x[a:b] = v, and the store of every x[a:b] += d: none of the
            # ways for one element below takes a slice)
            start, stop, step = key.start, key.stop, key.step  # (slice_is_plain, written out)
            index: Any = (
                key
                if (start is None or type(start) is int)
                and (stop is None or type(stop) is int)
                and (step is None or type(step) is int)
                else plain_slice(key)
            )
        else:
            if type(key) is tuple and type(kind) is type:
                for part in key:
                    if type(part) is not int:
                        break
                else:
                    if (kind, len(key)) in self._fast_write:  # x[i, j] = v
                        self._data[key] = value
                        return
            if (
                self._buf is not None
                and (type(key) is int or type(key) is tuple)
                and not looks_shared(self)
                and cow.reclaim(self, fast_writes(self))
                and type(value) is not _ARRAY
            ):
                # Alone after all (x[a:b] += d left x the record its view
                # held): this write and the next go the fast way above (an
                # Array's element, the way below).
                setitem(self, key, value)
                return
            if (
                type(value) is _ARRAY
                and (type(key) is int or type(key) is tuple)
                and _one_element_of_its_kind(self, key, value)
            ):
                # x[i] = y[j]: x is private while the set is not empty, so
                # y's element is never of x's memory.
                source = value._data
                if self._fast_write:
                    self._data[key] = source
                    return
            index = key if type(key) is int else _backend_index(self, key)
        if (
            type(value) is _ARRAY
            and value._buf is not None  # (reads_own_memory: u[0] = u[1])
            and value._buf is self._buf
            and value is not self
            and value._device is self._device
        ):
            if _PENDING:
                families.settle(self, value, index)
            expected = _expected.__dict__.pop("store", None)
            if (
                expected is not None
                and expected[0] is value
                and expected[2] is self
                and expected[1] is value._data
                and expected[3] is self._data
                and (
                    # (a slice, as u[1:-1] += d stores: _is_key's answer, without the call)
                    (type(index) is slice and type(expected[4]) is slice and index == expected[4])
                    or _is_key(index, expected[4])
                )
            ):
                return  # the store of x[k] += d after _write_through: the values are there
            stays = _reader_may_stay(self, index, value)
            if stays is None:
                return  # x[k] = t after t = x[k] wrote x through t: already there
            store(self, index, _backend_value(self, value), value, value if stays else None)
            return
        store(self, index, _backend_value(self, value), value)
    except (IndexError, OverflowError) as error:
        raise _index_error(key, self._data.shape, error, value, self._data.dtype) from None
    except ValueError as error:
        clearer = value_does_not_fit(error, "x[...] = value: ", value, _selection, self, key)
        if clearer is None:
            raise
        try:
            raise clearer from None
        finally:  # its traceback holds this frame: no cycle keeping self a holder
            del clearer


def store(
    array: Array,
    index: Any,
    values: Any,
    value: object = None,
    beside: Holder | None = None,
    apply: Callable[[Any, Any, Any], object] = operator.setitem,
    what: str = "x[...] = value",
) -> None:
    """Write ``values`` (backend data, converted) at ``index`` (a backend
    index) of ``array``: ``apply(memory, index, values)``, NumPy's store by
    default, or a backend update (``x.at[...]``, ``ufunc.at``).

    ``value`` is what the caller was given (an Array read, for the view-write
    warning's family test); ``beside``, an Array that reads ``array``'s
    memory at elements the write leaves alone (:func:`_reader_may_stay`).
    A store that selects nothing copies nothing; a store into a derived view
    whose family lives warns (rule 1).
    """
    if _PENDING:
        families.settle(array, value, index)
    if apply is operator.setitem and _selects_nothing(array, index, values):
        return  # (a.copy(); a[isnan(a)] = 0 with no NaN: the clone stays shared)
    if type(array._family) is _VIEWS:
        families.note_write(array, value, what)
    stays = None if beside is None else (beside, False, None)
    cow.write(array, apply, index, values, fast_writes(array), stays)


def _selection(array: Array, key: Any) -> Any:
    """``array``'s backend data at ``key``: what ``array[key] = v`` writes."""
    return array._data[_backend_index(array, key)]


def _selects_nothing(array: Array, index: Any, value: Any) -> bool:
    """Whether ``array[index] = value`` changes no element (an all-False mask,
    an empty index array), checked as the write would check it.

    Such a write copies nothing: a lazy clone that would have copied its whole
    buffer to write no element stays shared. The selection and the value are
    checked as NumPy checks them (shapes, the cast), on the empty selection.
    """
    array_type = array._device.backend.array_type
    if type(index) is not array_type or index.dtype.kind not in "biu":
        return False
    if index.size and (index.dtype.kind != "b" or index.any()):
        return False
    selected = array._data[index]  # raises as the write would (mask shape, bounds)
    selected[...] = value  # the value broadcasts to it, or raises as the write would
    return True


def _one_element_of_its_kind(array: Array, key: Any, value: Array) -> bool:
    """Whether ``array[key] = value`` stores one element from a 0-d ``value``
    of ``array``'s dtype and device: NumPy then copies it as a scalar, with
    no cast, no Python code and no other thread let in."""
    source = value._data
    if value._device is not array._device or source.ndim != 0:
        return False
    if source.dtype is not array._data.dtype:
        return False
    ndim: int = array._data.ndim
    if type(key) is int:
        return ndim == 1
    if type(key) is not tuple or len(key) != ndim:
        return False
    return all(type(part) is int for part in key)


#: Per thread: the write-back that :func:`_write_through`'s statement makes next.
_expected = threading.local()


# -- door 2: an in-place operation --------------------------------------------------------


def inplace(
    array: Array,
    name: str,
    function: Callable[..., Any],
    operand: Any,
    other: object = None,
    quick: bool = False,
) -> None:
    """``array <name>= operand``: ``function(memory, operand, out=memory)``,
    the element-wise ``name`` (its backend function, split over threads or
    not as the caller chose) written into ``array``'s memory, or beside it.

    ``operand`` is backend data or a scalar, already checked and converted;
    ``other`` the caller's operand (an Array that may read ``array``'s
    memory); ``quick``: the caller found the operand keeps ``array``'s dtype
    and shape (a scalar of a fitting kind, an array of that dtype), so a
    small private array computes the new value beside the old one and takes
    its place without the lock (:func:`cowarray._core.values.replace_private`).

    Otherwise (design.md §3.4 and rule 12): below :data:`IN_PLACE_MIN_SIZE`
    elements, or where a floating-point error could surface after the loop,
    the new value is computed beside the old one, so that an error leaves
    the array as it was. A big array writes in place where no error can
    surface (into new memory in one pass if it shares its buffer). The
    temporary view of ``x[k] += d`` writes ``x``'s memory in place, with no
    copy, where the statement is proven to store it back into ``x`` at that
    key (:func:`_write_through`).
    """
    data = array._data
    if quick and array._fast_write and data.size < IN_PLACE_MIN_SIZE:
        result = function(data, operand)
        if type(result) is not type(data):
            # (of a 0-d array NumPy gives a scalar: an Array holds arrays)
            result = array._device.backend.plain_asarray(result)
        if _replace_private(array, data, result):  # (still private, still this memory)
            return
    if _PENDING:
        families.flush()
    if name == "matmul":  # (``operand`` is the product, computed beside: its shape is checked)
        fast = fast_writes(array)
        _note_view_write(array, other, name)
        _replace(array, operand, fast)
        return
    written_back = (
        _write_through(array, name, function, operand, other)
        if array._buf is not None and type(array._family) is _VIEWS
        else None
    )
    if written_back:
        return
    if written_back is None:  # (not ``x[k] op= v``'s temporary view, which x's store reports)
        _note_view_write(array, other, name)
    fast = fast_writes(array)
    if data.size >= IN_PLACE_MIN_SIZE and not array._device.backend.errors_may_surface(
        name, data.dtype
    ):
        # Big, and no error can be raised after NumPy's loop has written:
        # write in place (if the memory is shared, the new values go into
        # new memory in one pass, as ``x = x - m`` would compute them).
        cow.write(array, cow.apply_binary, function, operand, fast, None, cow.derive_binary)
        return
    # The new value beside the old, so an error raised after the loop (NumPy's
    # error state, a warning turned into an error) leaves the array as it was.
    _replace(array, function(data, operand), fast)


def _note_view_write(array: Array, other: object, name: str) -> None:
    # (the in-place write of ``x[k] += v`` is told apart by its caller's code)
    if type(array._family) is _VIEWS:
        families.note_in_place_write(array, other, f"an in-place {name}")


def _replace(array: Array, result: Any, fast: frozenset[Any]) -> None:
    if not cow.replace(array, result, fast):
        # Memory a DLPack peer aliases on purpose: the peer sees the values.
        cow.write(array, operator.setitem, Ellipsis, result, fast)


def _write_through(
    view: Array,
    name: str,
    function: Callable[..., Any],
    operand: Any,
    other: Any,
) -> bool | None:
    """The write of ``t`` (``view``) in ``x[k] op= d``, where the statement
    running is proven to store ``t`` into the array ``x`` it was taken from,
    at the key it was taken at: True once written in place beside ``x`` (or,
    where ``x`` has other holders, in place after both moved onto one copy
    of ``x``'s memory); False where it is proven but an error could surface
    after the backend's loop (the caller computes beside); None where
    nothing is proven.

    The proof. The reading of the statement is
    cowarray._interpreter.statement_store's: an augmented assignment
    ``NAME[key] op= value`` with ``key`` built of constants only (nothing
    that runs code when converted or answers otherwise at the store), and
    ``NAME``'s value now. Code run within the statement (the value's
    ``__float__``, a call, a gc callback, another thread) may have rebound
    ``NAME``: its value must be an ``Array`` (the exact type: a subclass may
    store elsewhere) that holds ``view``'s memory and is the first array of
    ``view``'s family, the one it was taken from (it holds the family object
    whose token ``view`` holds), not handed its memory by a move
    (``move(x)`` passes that object on: the moved array is donated until it
    is written). A lazy clone, a view or another array sharing the memory
    starts or joins another family, or is not the family's first array. So
    the container on the caller's stack is that array, unless it is a
    non-Array object whose ``[key]`` gave a new view of that array and code
    in the statement rebound ``NAME`` from it to that array (the bound
    docs/design.md names).

    If it went in place, the store is expected: on this thread,
    :func:`setitem` then knows that a store of ``view`` into ``x`` at that
    key writes nothing, without comparing addresses (any other store, such
    as one a hook makes between the operator and the statement's store, is
    an ordinary store). From the proof to the decision nothing calls back
    into this module: the facts are read from the statement (one call) and
    the backend (one call for a shared ``x``, ``in_place_facts``; its
    first two answers for a sole holder) and handed to
    :func:`cowarray._core.cow.write`.
    """
    # (frames 0 to 3 are statement_store's caller's: this function, inplace,
    # the operator's _apply_inplace and its method, which call each other
    # directly: 4 may be outside)
    if _interpreter.MEASURING and threading.get_ident() in _interpreter.MEASURING:
        return None  # (the calibration at import measures the path that notes the write)
    read = _interpreter.statement_store(4)
    if read is None:
        return None
    parent, key = read
    if type(parent) is not _ARRAY or parent._buf is not view._buf:
        return None
    family = parent._family
    if type(family) is not families._Family or family.views is not view._family or parent._donated:
        return None
    data = view._data
    # Where ``x`` has other holders (a defensive ``x = x.copy()`` before
    # it), ``x`` and ``t`` move onto one copy of ``x`` first (one copy, as
    # NumPy's ``x.copy()`` made), which the backend makes with its other
    # answers (``x`` is its family's first array, never a view, as proven
    # above). The count is a hint: the decision counts again under the
    # lock, and a copy made for nothing is dropped.
    # (Not where page copy-on-write clones a big ``x`` page by page instead.)
    buf = parent._buf  # (_holders_read's count, written out)
    shared = (
        buf is not None
        and _getrefcount(buf) > _TWO_HOLDERS
        and (cow.page_cow_min is None or parent._data.nbytes < cow.page_cow_min)
    )
    del buf  # (a reference of ours would count)
    parent_data = parent._data
    backend = view._device.backend
    if shared:
        errors, must_copy, made = backend.in_place_facts(name, data, parent_data)
    else:  # (in_place_facts' answers with no copy ahead, without its call)
        errors, made = backend.errors_may_surface(name, data.dtype), None
        must_copy = not errors and backend.must_copy_before_write(data)
    if errors:
        return False
    # No fast writes for ``t``: it shares its memory with ``x`` past the
    # write, and dies with the statement. Where they cannot move, the view's
    # new values go into new memory in one pass, as for a shared array.
    derive = cow.derive_binary if data.size >= IN_PLACE_MIN_SIZE else None
    reader = None
    if (
        type(other) is _ARRAY
        and other._buf is not None  # (a computed operand has none)
        and other._buf is view._buf  # (reads_own_memory, written out)
        and other is not parent
        and other is not view
        and other._device is view._device
    ):
        # ``x[0:10] += x[10:20]``: the operand reads ``x``'s memory too.
        # Elements the write leaves alone stay shared (in place beside both);
        # an overlapping operand (``x[1:] -= x[:-1]``) first copies the
        # region it views.
        if _operand_may_stay(data, other):
            reader = (other, operand)
        else:
            operand = other._data
    _expected.__dict__.pop("store", None)
    cow.write(
        view,
        cow.apply_binary,
        function,
        operand,
        _NO_FAST_WRITE,
        (parent, True if made is None else (parent_data, data, *made), reader),
        derive,
        must_copy,
    )
    if view._buf is not None and view._buf is parent._buf:
        # In place in the memory ``x`` holds (moved or not): the values are there.
        _expected.store = (view, view._data, parent, parent._data, key)
    return True


def _holders_read(parent: Any) -> int:
    # The count _write_through reads for its hint (written out there).
    buf = parent._buf
    return _getrefcount(buf)


#: What that reading shows for a record a view and its parent alone hold
#: (measured on this interpreter: one holder's reading, and one more).
_TWO_HOLDERS: Final = _interpreter.baseline(_holders_read, "_buf", Buffer) + 1


# -- the facts the doors gather -------------------------------------------------------


def _is_key(index: Any, key: Any) -> bool:
    """Whether the converted ``index`` is ``key``, a key built of constants
    (ints, plain slices, None, Ellipsis and tuples of them), compared so
    that no part of ``index`` runs code (an index array is never one)."""
    if type(index) is tuple:
        return (
            type(key) is tuple
            and len(index) == len(key)
            and all(_is_key(part, of) for part, of in zip(index, key, strict=True))
        )
    if type(index) is not type(key):
        return False
    return index is key or ((type(index) is int or type(index) is slice) and index == key)


def _reader_may_stay(holder: Holder, index: Any, reader: Holder) -> bool | None:
    """Before ``holder[index] = reader``, ``reader`` sharing ``holder``'s memory
    (``u[0] = u[1]``): whether ``reader`` may go on sharing it while
    ``holder`` writes in place (pass it as :func:`write`'s ``beside``).

    None: nothing to write (``reader`` views exactly the region written:
    ``x[k] = t`` after ``t = x[k]; t += d`` wrote ``x``'s memory through
    ``t``, when :func:`setitem` did not expect that store). True: the
    written region and ``reader``'s elements are disjoint (rows 0 and 1), so
    the write leaves what ``reader`` sees unchanged.
    False: they overlap (``u[1:] = u[:-1]``); ``reader`` has now copied the
    region it views, as NumPy copies an overlapping value, and the write
    copies nothing more if ``holder`` is then the sole holder. Never the
    whole buffer for a value that is only read (design.md rule 12).
    """
    backend = holder._device.backend
    region = backend.written_view(holder._data, index)
    if region is not None:
        source = reader._data
        if not backend.overlaps(region, source):
            return True
        if backend.same_elements(region, source):
            return None
    make_private(reader)
    return False


def _operand_may_stay(written: Any, reader: Holder) -> bool:
    """Before an in-place write of the memory ``written`` that reads
    ``reader``, which shares it (``t``'s memory and the operand in
    ``x[0:10] += x[10:20]``): :func:`_reader_may_stay`'s rule for an operand.

    True: ``reader``'s elements and those written are disjoint, so it may go
    on sharing the memory (pass ``(reader, reader._data)`` as :func:`write`'s
    ``reader``). False: they overlap, and ``reader`` has now copied the region
    it views, as NumPy copies an overlapping input. Never the whole buffer
    for a value that is only read.
    """
    if not reader._device.backend.overlaps(written, reader._data):
        return True
    make_private(reader)
    return False


# -- the materialization before an export -------------------------------------------------


def taken_for_inplace(target: Array, name: str, dtype: Any, poison: Any) -> Any:
    """The memory of ``target``, an operand the caller proved temporary
    (nothing but the interpreter's stack holds it), handed over for the
    element-wise ``name`` to write its ``dtype`` result into, ``target``
    left with ``poison``; None, with ``target`` untouched, where an error
    could surface after the backend's loop (it would leave the memory half
    written), where the memory is read-only or still being read, or where it
    is not private after all (:func:`cowarray._core.values.given_away`
    decides under the lock)."""
    backend = target._device.backend
    if backend.errors_may_surface(name, dtype) or backend.must_copy_before_write(target._data):
        return None
    return given_away(target, poison)


def separate_reader(target: Array, value: object) -> None:
    """Before an update of ``target`` (or of a new value of it) from
    ``value``: if ``value`` is an Array that reads ``target``'s memory
    (``u.at[0].set(u[1])``), give it its own copy of the region it reads, so
    that the write copies what the value reads and not ``target``'s buffer
    (design.md rule 12)."""
    if reads_own_memory(target, value):
        make_private(value)  # type: ignore[arg-type]


def make_private(holder: Holder) -> None:
    """Give ``holder`` memory nobody else holds, copying its region if needed."""
    cow.write(holder, cow.unchanged, None, None)


def expose(
    holder: Holder, *, copy_allowed: bool, consumer: str = "__dlpack__"
) -> weakref.ref[Buffer]:
    """Mark ``holder``'s memory exposed to one more consumer (DLPack, NumPy).

    The memory is first made private (a copy of the holder's region if it is
    shared, read-only or a broadcast view; with ``copy_allowed`` False other
    holders raise BufferError instead); making it private and exposing it
    are one step for every joiner, so no clone can slip in between.

    Returns a weak reference to the exposed record, made under the lock: a
    strong one in the caller's hands would count as a second holder, and a
    writer on another thread would then copy the exposed memory away from
    the consumer (seen on free-threaded 3.13).
    """
    skip_writer = True
    while True:
        # Writable memory that nobody else holds is already private: making
        # it so would be a write of nothing through the whole write path (a
        # third of to_torch). Whether nobody else holds it is counted under
        # the lock below; if someone does, the loop goes the long way.
        data = holder._data
        buf = holder._buf  # no record, or one of plain memory (not read-only, not foreign)
        private = (
            skip_writer
            and (buf is None or not (buf.read_only or buf.foreign))
            and not holder._device.backend.must_copy_before_write(data)
        )
        if (
            not copy_allowed
            and data.size  # (an empty view has nothing a consumer could write)
            and (
                (buf is not None and buf.read_only)
                or holder._device.backend.must_copy_before_write(data)
            )
        ):
            raise BufferError(
                f"{consumer}(copy=False) cannot export this array without copying: its "
                "memory cannot be written in place (read-only, or a broadcast view), and "
                "the consumer may write it; use copy=None (copy only if needed) or copy=True"
            )
        del buf  # a reference of ours would count as a holder below
        if private and copy_allowed and looks_shared(holder):
            # (to_torch(x[a:b]) of a live x): copy first rather than find out
            # under the lock, a fifth of that export; the count there decides.
            private = False
        if copy_allowed and not private:
            make_private(holder)
        reentered = _lock._is_owned()
        _lock.acquire()
        try:
            if reentered or not _wait_for_writer(holder, reentered):
                raise BufferError(
                    f"{consumer}: this array cannot be exported from code that runs inside "
                    "a write of cowarray memory (a gc callback or __del__); export it later"
                )
            if private and holder._data is not data:
                continue  # written meanwhile: decide again
            if holder._buf is None:
                _new_record(holder)
            assert holder._buf is not None
            exclusive = not _gate(holder._buf)  # exposed already: one holder (see _claim)
            holder._buf.shareable = False
            if exclusive or _count(holder) <= _SOLE:
                if private:
                    # The consumer may write this memory in place, as the
                    # skipped takeover would have (page clones must copy it).
                    pages = PAGE_COW[holder._device.backend] if cow.page_cow_was_on else None
                    if pages is not None:
                        pages.note_write_in_place(data)
                holder._buf.exposures += 1
                return weakref.ref(holder._buf)
            holder._buf.shareable = _gate(holder._buf)
            if private:
                skip_writer = False  # shared after all: make it private first
                continue
            if not copy_allowed:
                raise BufferError(
                    f"{consumer}(copy=False) cannot export this array without copying: its "
                    "buffer has other holders (lazy clones, views or NumPy exports) that "
                    "must not see a consumer's writes; use copy=None (copy only if needed) "
                    "or copy=True"
                )
        finally:
            _lock.release()


# -- the calibration of the in-place door, at import -----------------------------------


def calibrate_at_import() -> None:
    """Measure the count of a temporary view once, while ``import cowarray``
    runs (cowarray._interpreter.measure_temporary_count): run ``base[0] += 1``
    (a temporary view) and ``views[0] += 1`` (a view a list holds too)
    through the real path, in code outside cowarray, and read the counts.
    (On the host: the frames between the operator and
    :func:`cowarray._core.families.note_in_place_write` are the same for every device.) The
    measurement's own arrays and copies never show in a user's trace, copy
    counters or buffer names: no observer looks, and the counters are put back."""
    before = cow.COUNTERS.snapshot()
    observer = cow.observer
    cow.set_observer(None)
    try:
        base = private(CPU.backend.xp.zeros((2, 2)), CPU)
        namespace = {"base": base, "views": [base[1]]}
        _interpreter.measure_temporary_count(
            lambda: exec(_CALIBRATION, namespace),
            threading.get_ident(),  # (constant code)
        )
    finally:
        cow.set_observer(observer)
        cow.COUNTERS.reset()
        cow.COUNTERS.copies, cow.COUNTERS.bytes_copied = before


_CALIBRATION: Final = compile("base[0] += 1.0\nviews[0] += 1.0\n", "<cowarray calibration>", "exec")
