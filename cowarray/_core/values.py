"""The slots of an Array and the only code that fills them at construction.

An Array (:class:`cowarray.Array`) is a :class:`Value`: six slots that this
package alone sets. Everything that makes an Array comes here, through one
of two constructors, by what the op knows of its result:

- :func:`fresh`: memory the backend allocated for this call;
- :func:`may_view`: a result that may view some inputs' memory, which then
  becomes one more holder of their buffer (rule 1), or a private copy when
  that memory is exposed to or owned by another library (rules 4, 5).

Views made by the Array itself (``x.T``, ``x[1:5]``, reshapes) take
:func:`view_of`, the one view join: the lock-free path of
:func:`cowarray._core.cow.join`. The hottest are core functions that carry
a copy of its block inline (they are floor rows, where a call would be a
visible share of the cost: docs/design.md, "One slot set-up"):
:func:`transposed` (``Array.T``), :func:`getitem` (``Array.__getitem__``)
and :func:`reshape_view`; the element-wise operators carry one of
:func:`private` (docs/design.md says why that one is outside);
tests/core/test_view_join_copies.py fails if a copy says anything else.
:func:`lazy_clone` joins a whole array. :func:`donate` marks an array whose
memory was handed over to it (:func:`cowarray.move`, an update's result).

The invariants kept here:

- ``_buf`` is None exactly when no other value can hold the memory ``_data``
  views (a fresh result, a private copy); otherwise it is the shared record.
- ``_fast_write`` is empty at construction: only a write through the core,
  which has just shown the view private and writable, fills it; a
  hand-over (:func:`take_over`) passes it to the array that takes the
  same memory, and :func:`getitem` opens it on the new 0-d element it
  makes of an array that has it (new memory: private and writable).
- ``_donated`` is set only by :func:`donate` and the hand-overs, and
  cleared by the core when the array gains a record or hands its memory over.
- A view joins its source's record only if, after the join was built, the
  source still holds that record and that memory (a write on another thread
  replaces one or the other); otherwise the locked path decides.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from operator import index as _index
from typing import Any, Final, Literal, TypeVar, overload

from .._errors import Retired, not_an_array
from . import cow, families

__all__ = [
    "NO_FAST_WRITE",
    "Value",
    "bind_array_type",
    "check_every_store",
    "donate",
    "fresh",
    "getitem",
    "given_away",
    "imported",
    "lazy_clone",
    "may_view",
    "plain_slice",
    "private",
    "replace_private",
    "reshape_view",
    "slice_is_plain",
    "take_over",
    "transposed",
    "view",
    "view_of",
    "views_token",
]

_object_new: Final = object.__new__


class Value:
    """The slots every Array has. Only :mod:`cowarray._core` sets them."""

    __slots__ = ("_buf", "_data", "_device", "_donated", "_family", "_fast_write")

    #: The backend array this value views.
    _data: Any
    #: The sharing record; None while this array is the only holder.
    _buf: cow.Buffer | None
    _device: Any
    #: The one-element stores ``x[i] = v`` may make in place with no check
    #: (:func:`fast_writes`): empty until a write has shown the view private
    #: and writable, and emptied by the core whenever a sharing record appears.
    _fast_write: frozenset[Any]
    #: The memory was handed over to this array (:func:`donate`): its first
    #: update through ``.at`` may take it (cowarray._interpreter.is_last_use).
    _donated: bool
    #: The view family this array belongs to, if a view was ever taken
    #: from it or it is one (cowarray._core.families).
    _family: Any


#: What the core types an Array as: its slots (the core lies below the
#: Array's module, which binds the type it makes: :func:`bind_array_type`).
Array = Value
#: An Array given to a constructor, and the type of what it makes of it.
A = TypeVar("A", bound=Value)
#: The type the constructors make: cowarray.Array, bound by its module.
_ARRAY: Any = Value  # (what _object_new makes of it is whatever type is bound)


def bind_array_type(
    array_type: type[Array],
    backend_index: Callable[[Array, Any], Any],
    index_refused: Callable[[Any, tuple[int, ...], Any], BaseException],
) -> None:
    """Make the constructors build ``array_type``, and :func:`getitem` read keys
    with ``backend_index`` (a key the backend indexes with) and refuse them
    with ``index_refused`` (the error to raise). Called once, by cowarray._array."""
    global _ARRAY, _backend_index, _index_refused
    _ARRAY = array_type
    _backend_index, _index_refused = backend_index, index_refused
    families._ARRAY_TYPE[0] = array_type


# The index translation and the out-of-range error of the Array's module
# (bound by bind_array_type: the core does not import the layers above it).
_backend_index: Callable[[Array, Any], Any]
_index_refused: Callable[[Any, tuple[int, ...], Any], BaseException]


#: The empty set of fast writes every new Array starts with (cow's own:
#: the core tests it by identity nowhere, but copies of the set-up share it).
NO_FAST_WRITE: Final[frozenset[Any]] = cow._NO_FAST_WRITE
_NO_FAST_WRITE: Final = NO_FAST_WRITE

# A held-back view write (cowarray._core.families): every operation reports it first.
_PENDING: Final = families.PENDING
_flush: Final = families.flush
_VIEWS: Final = families._Views
_in_section: Final = cow.in_section


def views_token(source: Any) -> families._Views:
    """The token a new view of ``source`` holds: ``source``'s family's (a view
    of a view of ``x`` is still ``x``'s: the token is passed on, not nested)."""
    family = source._family
    if type(family) is _VIEWS:
        return family
    if family is None:
        # Made without an __init__ call: every first view of an array makes
        # one. Threads taking first views at once must all join the one that
        # is stored: it is made first (making it may run a gc callback, which
        # may take a view too), then stored only if none is there yet, under
        # a lock (a signal handler that takes a view re-enters it: an RLock).
        # From reading the slot to storing it runs no call, so no switch.
        made = _object_new(families._Family)
        made.views = _VIEWS()
        with _FIRST_VIEW:
            family = source._family
            if family is None:
                source._family = family = made
        if type(family) is _VIEWS:
            return family
    return family.views


_FIRST_VIEW: Final = threading.RLock()


def private(data: Any, device: Any) -> Any:
    """An Array of ``data``, memory nothing else references (internal: the
    caller has just allocated it, e.g. by a copy). Ops use :func:`fresh`."""
    if _PENDING:
        _flush()
    array = _object_new(_ARRAY)
    array._data = data
    array._buf = None
    array._device = device
    array._fast_write = _NO_FAST_WRITE
    array._donated = False
    array._family = None
    return array


def donate(array: A) -> A:
    """Mark ``array`` donated: its memory was handed over to it and nothing
    else names it yet, so its first update through ``.at`` may take it."""
    array._donated = True
    return array


def fresh(result: Any, device: Any) -> Any:
    """An Array of ``result``, memory the backend allocated for this call.

    One of the two ways an op makes an Array (the other is :func:`may_view`):
    the op says its result views none of its inputs. Should the backend
    hand back a view after all, the result gets its own copy when anything
    else references that memory, so a wrong claim costs a copy, never an alias.
    """
    array_type = device.backend.array_type
    if type(result) is not array_type:
        result = device.backend.plain_asarray(result)  # (NumPy's scalar of a 0-d result)
    if type(result) is array_type and result.base is None:
        return private(result, device)
    return _wrap(result, device, ())


def may_view(
    result: Any,
    device: Any,
    inputs: tuple[A, ...],
    again: Callable[[], A] | None = None,
) -> A:
    """An Array of ``result``, a backend result that may view these ``inputs``.

    The other way an op makes an Array (see :func:`fresh`): if ``result``
    views an input's memory it becomes a new holder of that input's buffer
    (O(1), rule 1), or a private copy when that buffer is exposed or foreign.
    If it views memory an input held when the op read it and holds no more
    (another thread replaced it), that memory may be another value's now:
    ``again()`` makes the result again (the op on what the inputs hold
    now); without it the result is copied (the bound docs/design.md names;
    an op of one input makes its result with :func:`view` instead).
    """
    if (
        len(inputs) == 1
        and inputs[0]._device is device
        and type(result) is device.backend.array_type
    ):
        return view_of(inputs[0], _given, result, again)
    return _wrap(result, device, inputs, again)


def view(source: A, function: Callable[..., Any], *args: Any, **kwargs: Any) -> A:
    """An Array of ``function(data, *args, **kwargs)``: a backend function's
    result made of ``source``'s memory ``data``, which may view it (a
    transpose, a squeeze, a flip...).

    The way an op of one input makes a result that may be a view: the view
    join (:func:`view_of`) calls ``function`` itself, so that if another
    thread replaces ``source``'s memory meanwhile the result is made again
    from the memory ``source`` holds (a result computed first and handed
    over, :func:`may_view`, can only be copied then, and the memory it
    views may be another value's by now). ``function`` must run no user
    code: arguments are converted before.
    """
    return view_of(source, _called, (function, args, kwargs))


def _called(data: Any, call: tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]) -> Any:
    function, args, kwargs = call
    return function(data, *args, **kwargs)


def _given(data: Any, result: Any) -> Any:
    """(:func:`view_of`'s ``make`` for a result the op has made already)"""
    return result


def _transpose(data: Any, _: Any) -> Any:
    return data.T


#: How many times :func:`view_of` makes a view again without the lock when
#: another thread replaces the source's memory meanwhile, before it makes
#: it under the lock (:func:`cowarray._core.cow.join_made`).
_ATTEMPTS: Final = 4


def view_of(
    source: A,
    make: Callable[[Any, Any], Any],
    arg: Any = None,
    again: Callable[[], A] | None = None,
) -> A:
    """An Array of ``make(data, arg)``, the view a backend function makes of
    ``data``, ``source``'s memory (``x.T``, ``x[1:5]``, reshapes).

    The one view join: ``x.T``, ``x[1:5]``, reshapes and :func:`may_view` of
    one input all come here. The record is read before the memory and held
    (a local counts as a holder) until the view has joined it, so nobody
    writes that memory in place meanwhile. The common case (a view of
    ``source``'s open record, nobody tracing) joins without the lock: the
    record's gate is read open, the view built, and ``source`` re-read to
    still hold that record and that memory, with nothing between that lets
    another thread replace them unseen (cowarray._core.cow, "lock-free
    joins"). If another thread replaced ``source``'s memory meanwhile, the
    view is made again from the new memory (``make`` is a backend function:
    its keys are plain by now, so making it again runs no user code): a view
    never holds memory that its source no longer holds, which other values
    may be writing in place. The first view of private memory joins the
    same way once :func:`cow.join <cowarray._core.cow.join>` has made its
    record under the lock (``u[1:-1]`` after ``u[0] = v`` gave ``u`` its
    memory back: each step of a stencil). Everything else takes the locked
    path of :func:`_wrap`.
    """
    for _ in range(_ATTEMPTS):
        buf = source._buf
        data = source._data
        result = make(data, arg)
        if buf is None:
            try:  # (free where nothing raises: CPython's exceptions cost only when raised)
                buf = _first_record(source, data, result)
            except AttributeError:  # no ``base``: a backend value without memory
                return _memoryless_view(source, result, make, arg)
        if cow.joins_unobserved and buf is not None and buf.shareable:
            if _PENDING:
                _flush()
            try:
                base = result.base
            except AttributeError:  # (a traced value that a lazy clone shares)
                return _memoryless_view(source, result, make, arg)
            if (base is data or base is data.base) and base is not None:
                array = _object_new(_ARRAY)
                array._data = result
                array._buf = buf
                array._device = source._device
                array._fast_write = _NO_FAST_WRITE
                array._donated = False
                family = source._family  # (views_token(source), in line: see the docstring)
                if type(family) is not _VIEWS:
                    family = views_token(source) if family is None else family.views
                array._family = family
                if source._buf is buf and source._data is data:
                    return array
            del base  # _wrap may count the references to it
        if source._data is data:
            # (the locked join decides: an observer, a closed gate, a result
            # that is not a view, memory that cannot be shared; None if
            # source's memory was replaced before it could join: again)
            made = _wrap(result, source._device, (source,), again, True)
            if made is not None:
                return made
    # Other threads kept replacing source's memory: made and joined under
    # the lock, where no commit can come between (never a copy of memory
    # source no longer holds, which its new holders may write in place).
    result, buf = cow.join_made(source, make, arg)
    array = private(result, source._device)
    if buf is None:  # (a copy: the memory cannot be shared)
        cow.count_eager_copy(array, source._buf, int(result.nbytes))
        return array
    array._buf = buf  # (a reference taken under the lock: counted from then on)
    array._family = views_token(source)
    return array


def _memoryless_view(source: A, result: Any, make: Callable[[Any, Any], Any] | None, arg: Any) -> A:
    """The Array of ``result``, made by ``make(data, arg)`` from ``source``'s
    value where the backend's values have no memory (JAX's, under
    cowarray.transforms: cowarray._backends.jax). Nothing is shared, as a
    write rebinds a value rather than writing memory; but the result joins
    ``source``'s view family where NumPy would have given a view (every
    view-making function comes here; an index read only for a basic key),
    so that writing it warns as eagerly (rule 1)."""
    array = private(result, source._device)
    key = arg[1] if make is _made and arg[0] is _subscript else arg if make is _subscript else None
    if key is not None:
        if not _is_basic_key(key):
            return array  # (NumPy's advanced indexing copies)
        # Which elements of which value it is, for the store that settles a
        # held-back view write (``x[k] += d``: families.settle).
        source._device.backend.note_view(result, source._data, key)
    array._family = views_token(source)
    return array


def _is_basic_key(key: Any) -> bool:
    """Whether a converted key is NumPy basic indexing (ints, slices, None,
    Ellipsis), whose result is a view."""
    for part in key if type(key) is tuple else (key,):
        if not (part is None or part is Ellipsis or type(part) is int or type(part) is slice):
            return False
    return True


def _first_record(source: Array, data: Any, result: Any) -> cow.Buffer | None:
    """The record :func:`view_of` joins ``result``, a view of ``data``, to
    when ``source`` holds that memory alone: made under the lock by
    :func:`cow.join <cowarray._core.cow.join>`. None where the lock-free
    join does not apply (someone is tracing, ``result`` is no view of
    ``data``, or ``source`` holds other memory by now): :func:`_wrap` decides."""
    if not cow.joins_unobserved:
        return None
    base = result.base
    if base is None or (base is not data and base is not data.base):
        return None
    return cow.join(source, data)


def transposed(source: A) -> A:
    """The transpose of a 2-D array (a lazy value, no copy): ``Array.T``.

    A view joined to ``source``'s buffer: :func:`view_of`'s join, copied in
    line because ``x.T`` is a floor row (docs/design.md, "One slot set-up");
    tests/core/test_view_join_copies.py checks that this copy says what
    view_of says.
    """
    data = source._data
    if data.ndim != 2:
        raise ValueError(
            f"x.T is defined for 2-D arrays only, this one has {data.ndim} "
            "dimensions; use permute_dims(x, axes) or x.mT"
        )
    buf = source._buf
    if cow.joins_unobserved and buf is not None and buf.shareable:
        if _PENDING:
            _flush()
        array = _object_new(_ARRAY)
        array._data = data.T
        array._buf = buf
        array._device = source._device
        array._fast_write = _NO_FAST_WRITE
        array._donated = False
        family = source._family  # (views_token(source), in line: see the docstring)
        if type(family) is not _VIEWS:
            family = views_token(source) if family is None else family.views
        array._family = family
        if source._buf is buf and source._data is data:
            return array
    return view_of(source, _transpose)


def getitem(source: A, key: Any, /) -> A:
    """``x[key]``: a lazy value of the elements ``key`` selects (no copy).

    A view joined to ``source``'s buffer, or a fresh 0-d array for one
    element of a 1-D array. A basic slice always views, with no index
    translation: :func:`view_of`'s join, copied in line because ``x[1:5]``
    is a floor row; tests/core/test_view_join_copies.py checks this copy.
    A backend scalar
    (NumPy's ``a[i]`` of a 1-D array) is a copy already: a fresh 0-d array,
    without the view tests.
    """
    kind = type(key)
    if kind is slice:
        buf = source._buf
        if cow.joins_unobserved and buf is not None and buf.shareable:
            if _PENDING:
                _flush()
            data = source._data
            array = _object_new(_ARRAY)
            array._data = data[key]
            array._buf = buf
            array._device = source._device
            array._fast_write = _NO_FAST_WRITE
            array._donated = False
            family = source._family  # (views_token(source), in line: see the docstring)
            if type(family) is not _VIEWS:
                family = views_token(source) if family is None else family.views
            array._family = family
            if source._buf is buf and source._data is data:
                return array
            # Another thread, or a bound's __index__, replaced source's
            # memory meanwhile. A bound that runs code ran once, in NumPy's
            # indexing above: the slice it gave is read off the view.
            if not slice_is_plain(key):
                key = _slice_taken(source, data, array._data, key)
        else:
            key = plain_slice(key)  # (converted once, before any memory is read)
        return view_of(source, _subscript, key)
    try:
        if kind is not int:  # (an int passes as it is)
            # Converted before any memory is read: a part's __index__ may
            # write this array, or another sharing its memory (rule 3's
            # "take the fact once").
            key = _backend_index(source, key)
        data = source._data
        view = data[key]
        while source._data is not data:
            # Another thread replaced the memory while it was read, which
            # other values may write in place now: read what source holds.
            data = source._data
            view = data[key]
    except (IndexError, OverflowError) as error:
        raise _index_refused(key, source._data.shape, error) from None
    if type(view) is not type(data):
        # New memory, writable, not broadcast, that nothing else can reach
        # yet: private's set-up, in line as ``x[i]`` is a floor row,
        # with the element's fast writes open from the start, so that
        # ``x[i] += v`` writes this temporary in place before storing it.
        if _PENDING:
            _flush()
        element = _object_new(_ARRAY)
        element._data = source._device.backend.plain_asarray(view)
        element._buf = None
        element._device = source._device
        fast = source._fast_write
        element._fast_write = (_ELEMENT_OF.get(fast) or _element_of(fast)) if fast else fast
        element._donated = False
        element._family = None
        return element
    return view_of(source, _made, (_subscript, key, data, view))


def _subscript(data: Any, key: Any) -> Any:
    return data[key]


def _made(data: Any, made: tuple[Any, Any, Any, Any]) -> Any:
    """(:func:`view_of`'s ``make`` for a view made already: ``(function, arg,
    memory, view)``, ``view`` being ``function(memory, arg)``; made again
    from other memory)"""
    function, arg, memory, view = made
    return view if data is memory else function(data, arg)


def _slice_taken(source: Array, data: Any, view: Any, key: slice) -> slice:
    """The plain slice of ``data``'s first axis that ``view`` (``data[key]``)
    views, read from their layouts; ``key`` converted again only where the
    layout cannot tell (a stride that does not divide)."""
    stride = data.strides[0]
    count = view.shape[0]
    if not count:
        return slice(0, 0)
    if not stride:  # (every row the same memory: any rows give the values)
        return slice(0, count)
    start, off = divmod(source._device.backend.offset_of(view, data), stride)
    step, rest = divmod(view.strides[0], stride)
    if off or rest or not step:
        return plain_slice(key)
    stop = start + count * step
    return slice(start, stop if stop >= 0 else None, step)


def plain_slice(key: slice) -> slice:
    """``key`` with bounds that read as they are: ints and None are left,
    anything else is converted once by its ``__index__`` (which may run
    code: NumPy would call it at every use, so a store after a read could
    see other bounds than the read, and a bound could write the array being
    indexed after its memory was read). A bound with no ``__index__`` is
    left for NumPy to refuse in its own words."""
    if slice_is_plain(key):
        return key
    return slice(*(_bound(b) for b in (key.start, key.stop, key.step)))


def slice_is_plain(key: slice) -> bool:
    """Whether ``key``'s bounds are ints or None (NumPy reads them running no code)."""
    # (``is`` tests: a type's ``==`` could run a metaclass's code)
    start, stop, step = key.start, key.stop, key.step
    return (
        (start is None or type(start) is int)
        and (stop is None or type(stop) is int)
        and (step is None or type(step) is int)
    )


def _bound(bound: Any) -> Any:
    if bound is None or type(bound) is int or not hasattr(type(bound), "__index__"):
        return bound
    return _index(bound)


def _element_of(fast: frozenset[Any]) -> frozenset[Any]:
    """The fast writes of a 0-d array of the backend and dtype of an array
    whose fast writes are ``fast`` (the same scalar types, paired with ndim
    0: :func:`fast_writes`), remembered per set (a frozenset keeps its hash;
    a dtype computes its own at each call)."""
    made = _ELEMENT_OF[fast] = frozenset((entry[0], 0) for entry in fast if type(entry) is tuple)
    return made


#: a fast-write set -> that of a 0-d array of the same backend and dtype
_ELEMENT_OF: Final[dict[frozenset[Any], frozenset[Any]]] = {}


def reshape_view(x: A, shape: tuple[Any, ...]) -> A | None:
    """``x`` in ``shape`` (a tuple, entries as given), as the backend's
    ``reshape`` makes it with ``copy=None`` (a view when it can, else a copy).

    The fast path of :func:`cowarray.reshape` and ``x.reshape``. None when
    the caller's full path must decide: for an entry the backend refuses,
    or reads other than as given (NumPy takes -2 as -1). The result is
    :func:`view_of`'s: a view of ``x`` joins ``x``'s buffer (rule 1).
    """
    data = x._data
    try:
        result = x._device.backend.reshape_view(data, shape)
    except (TypeError, ValueError):
        return None
    if result.shape != shape:
        # A -1 was filled in: fine if that is the only thing that differs.
        for entry in shape:
            if type(entry) is not int or entry < -1:
                return None
    try:
        base = result.base
    except AttributeError:  # a backend value without memory (a traced value)
        return _memoryless_view(x, result, None, None)
    if base is None or (base is not data and base is not data.base):
        del base  # _wrap may count the references to it
        return _wrap(result, x._device, (x,))  # a copy (the backend could not view)
    del base
    buf = x._buf
    if cow.joins_unobserved and buf is not None and buf.shareable:
        # view_of's join, in line as a reshape is a floor row;
        # tests/core/test_view_join_copies.py checks this copy.
        if _PENDING:
            _flush()
        array = _object_new(_ARRAY)
        array._data = result
        array._buf = buf
        array._device = x._device
        array._fast_write = _NO_FAST_WRITE
        array._donated = False
        family = x._family  # (views_token(x), in line)
        if type(family) is not _VIEWS:
            family = views_token(x) if family is None else family.views
        array._family = family
        if x._buf is buf and x._data is data:
            return array
    return view_of(x, _made, (x._device.backend.reshape_view, shape, data, result))


@overload
def _wrap(
    result: Any,
    device: Any,
    inputs: tuple[Array, ...],
    again: Callable[[], Array] | None = None,
    retry: Literal[False] = False,
) -> Any: ...
@overload
def _wrap(
    result: Any,
    device: Any,
    inputs: tuple[Array, ...],
    again: Callable[[], Array] | None,
    retry: Literal[True],
) -> Any | None: ...
def _wrap(
    result: Any,
    device: Any,
    inputs: tuple[Array, ...],
    again: Callable[[], Array] | None = None,
    retry: bool = False,
) -> Any | None:
    """The rule behind :func:`fresh` and :func:`may_view`: a backend result that
    views an input's memory joins that input's buffer.

    This is the one rule that keeps every view-returning backend function a
    value: the result becomes a new holder of the input's buffer (O(1)), or a
    private copy when that buffer is exposed or foreign. Backend arrays have
    ``base`` None when they own their memory, else the owner (NumPy and CuPy
    both collapse view chains), so the common cases are identity tests.
    """
    if type(result) is not device.backend.array_type:
        result = device.backend.asarray(result)
    array = private(result, device)
    try:
        base = result.base
    except AttributeError:  # a backend value without memory (a traced value): its own
        return array
    if base is None:
        # Owns its memory: fresh, unless the backend handed back an input itself.
        base = result
        for source in inputs:  # (a loop: ``any()`` of a generator cost a third of x[0])
            if source._data is result:
                break
        else:
            return array
    for source in inputs:
        data = source._data
        if base is data or base is data.base:
            buf = cow.join(source, data)
            if buf is None:
                if source._data is not data:
                    # Replaced by another thread before the join: that
                    # memory may be another value's now, written in place.
                    del base, result
                    return _made_again(array, inputs, again, retry)
                # exposed or foreign memory: a value needs its own copy
                array._data = device.backend.copy(result)
                cow.count_eager_copy(array, source._buf, int(array._data.nbytes))
            array._buf = buf
            array._family = views_token(source)
            return array
    del base, result  # _wrap_other_view counts the references to the base
    return _wrap_other_view(array, inputs, again, retry)


def _made_again(
    array: Array, inputs: tuple[Array, ...], again: Callable[[], Array] | None, retry: bool
) -> Array | None:
    """For a result that views memory an input held when the op read it and
    holds no more: None for a caller that makes it again itself (``retry``),
    else ``again()``, else a copy of its values (the bound docs/design.md
    names: the memory's new holders may be writing it in place)."""
    if retry:
        return None
    if again is not None:
        return again()
    array._data = array._device.backend.copy(array._data)
    cow.count_eager_copy(array, None, int(array._data.nbytes))
    return array


def _wrap_other_view(
    array: Array,
    inputs: tuple[Array, ...],
    again: Callable[[], Array] | None = None,
    retry: bool = False,
) -> Array | None:
    backend = array._device.backend
    for source in inputs:
        data = source._data
        if backend.may_share_memory(array._data, data):
            buf = cow.join(source, data)
            if buf is None:
                if source._data is not data:
                    return _made_again(array, inputs, again, retry)
                array._data = backend.copy(array._data)
                cow.count_eager_copy(array, source._buf, int(array._data.nbytes))
            array._buf = buf
            array._family = views_token(source)
            return array
    # A view of a temporary the backend made for this call: nobody else holds
    # it. If it cannot be written in place, the core sees that at write time.
    # Unless something else does hold that memory: an input's old memory,
    # replaced by a write on another thread while this op ran. Other values
    # may hold it now and write it in place: the op is made again where it
    # can be, else this one gets its own copy.
    if not cow.only_reference_is(array._data, "base"):
        return _made_again(array, inputs, again, retry)
    return array


def lazy_clone(x: A, /) -> A:
    """A copy of ``x`` that shares its buffer until either one is written: O(1).

    Parameters
    ----------
    x : Array
        The array to copy.

    Returns
    -------
    Array
        A new, independent value equal to ``x``. Writing to either array
        copies (only what the writer views) first, so the other keeps its
        values. Exposed and foreign buffers (DLPack) are copied eagerly.

    See Also
    --------
    cow_info, shares_buffer

    Examples
    --------
    >>> import cowarray as ca
    >>> x = ca.arange(4)
    >>> y = ca.lazy_clone(x)
    >>> ca.shares_buffer(x, y)
    True
    >>> y[0] = 100
    >>> x, y
    (cowarray.Array([0, 1, 2, 3], dtype=int64), cowarray.Array([100,   1,   2,   3], dtype=int64))
    >>> ca.shares_buffer(x, y)
    False
    """
    if type(x) is not _ARRAY:
        raise not_an_array("lazy_clone", "x", x)
    device = x._device
    data = x._data
    buf = cow.join(x, data)
    while buf is None and x._data is not data and x._device is device:
        # Another thread replaced x's memory meanwhile: its old memory may be
        # another value's now, written in place. Join what x holds.
        data = x._data
        buf = cow.join(x, data)
    if buf is None:
        # Exposed or foreign memory, or code re-entered inside a write of x:
        # a copy of what x holds now. (x read again: a copy of memory that x
        # was moved away from raises.)
        clone = private(x._device.backend.copy(x._data), x._device)
        cow.count_eager_copy(clone, x._buf, int(clone._data.nbytes))
        return clone
    # (the device read before the join: code re-entered inside it, a gc
    # callback, may have moved x, which then got a copy: cow.hand_over)
    clone = private(data, device)
    clone._buf = buf
    return clone


def take_over(x: A, poison: Any, key: int | None = None, value: Any = None) -> A | None:
    """A new Array that takes ``x``'s memory, record and fast writes; ``x``
    is left with ``poison`` (any later use raises).

    Without ``key``: :func:`cowarray.move`; None if another thread took
    ``x`` first. The new array is donated (its first update through ``.at``
    may take the memory) and in ``x``'s view family: to NumPy's eyes
    ``y = move(x)`` is still ``x``.

    With ``key``: ``value`` is stored at ``key`` first, for a caller that
    has proven nothing else reaches ``x`` (cowarray._interpreter.is_last_use). None,
    leaving ``x`` untouched, unless ``type(value)`` is one of ``x``'s fast
    writes and ``key`` is in range (an int too big is refused likewise).

    Memory with fast writes is handed over without the lock, on builds with
    a GIL (elsewhere the set is always empty): a non-empty set means that
    ``x``'s memory is private, writable and not broadcast, that no section
    of the core has begun to share it (each empties the set first:
    ``cow._new_record``), and, for a bare type, that ``x`` is 1-D and stores
    such a value as is (:func:`fast_writes`). So the store is of one element
    and runs no Python code, and from the read of the set to the last slot
    stored nothing calls, jumps back or frees an object (each old slot value
    is held by a local): no other thread and no gc callback can come
    between, and none can have joined the memory first. A value whose type
    has a metaclass is refused (its hash or equality could run Python code
    and pose as ``float``), and so is code re-entered inside a section of
    this thread (:func:`cowarray._core.cow.in_section`): the section it
    interrupted may be sharing ``x`` right now. Anything else goes through
    :func:`cowarray._core.cow.hand_over`, under the lock.
    tests/hostile/test_threads_and_gc_never_alias.py reads the bytecode.
    """
    if key is not None and cow.observer is not None:
        return None  # (the locked way, which a trace sees)
    device = x._device
    family = x._family
    kind = type(value)  # (a call: before the read of the fast writes)
    # (re-entered code, or a metaclass: the locked way, or none for a store)
    unlocked = not _in_section() and type(kind) is type
    fast = x._fast_write if unlocked else _NO_FAST_WRITE
    if (fast and key is None) or kind in fast:
        data = x._data
        if key is not None:
            try:
                data[key] = value
            except (IndexError, OverflowError):
                return None  # out of range, or an int too big: refused before storing
        x._data = poison
        x._device = poison
        x._fast_write = _NO_FAST_WRITE
        x._donated = False
        x._family = None
        buf = None
    elif key is not None:
        return None
    else:
        data, buf, fast = cow.hand_over(x, poison)
        if data is poison:
            return None
        x._family = None
    if _PENDING:
        _flush()
    array = _object_new(_ARRAY)  # (private's set-up with the memory's own slots)
    array._data = data
    array._buf = buf
    array._device = device
    array._fast_write = fast
    array._donated = True
    array._family = family
    return array


def given_away(x: Array, poison: Any) -> Any:
    """``x``'s memory, taken from it for good (``x`` is left with ``poison``:
    any later use raises), for a caller that has proven nothing else reaches
    ``x`` (cowarray._interpreter.is_last_use) and hands the memory to another library.

    None, leaving ``x`` untouched, unless no other value can hold the memory
    (:func:`cowarray._core.cow.hand_over_private`: no record, tested under
    the lock) and ``x`` is in no view family (a view of it written later
    could not warn).
    """
    if x._family is not None:
        return None
    return cow.hand_over_private(x, poison)


def imported(data: Any, buf: cow.Buffer, device: Any) -> Any:
    """An Array of memory another library owns, under its record ``buf``
    (made by the DLPack boundary: foreign, so never written in place)."""
    array = private(data, device)
    array._buf = buf
    return array


def reads_own_memory(target: Array, value: Any) -> bool:
    """Whether ``value`` is an Array holding ``target``'s buffer (``u[0] = u[1]``):
    a write of ``target`` from it must not copy ``target`` to keep ``value``."""
    return (
        type(value) is _ARRAY
        and value._buf is not None
        and value._buf is target._buf
        and value is not target
        and value._device is target._device
    )


def replace_private(array: Array, data: Any, result: Any) -> bool:
    """Store ``result``, computed from ``data``, as ``array``'s value if
    ``array`` still views ``data`` privately and writably; whether it did.

    The unlocked half of the small in-place operators (``x += 1.0``): the
    test and the store are one step for other threads and the collector
    (nothing between them calls or jumps back), so no clone or export can
    have joined ``data`` unseen. ``result`` must be an array of the backend,
    never a scalar (a 0-d input gives a scalar: the caller takes the full
    path, whose store converts it).
    tests/hostile/test_nothing_hangs_or_reads_freed_memory.py reads it.
    """
    if array._fast_write and array._data is data:
        array._data = result
        return True
    return False


def fast_writes(array: Array) -> frozenset[Any]:
    """What a plain ``x[i] = v`` may write without the core once the core has
    shown ``array``'s view private and writable: a store of one element only,
    since NumPy lets other threads in while it fills more (a row), and a
    clone taken then would see the rest change. So the set holds a scalar
    type ``T`` (``x[i] = v``, ``type(v) is T``) only for a 1-D array, and a
    pair ``(T, n)`` for a key of ``n`` ints, ``n`` being the array's ndim.

    None for an array derived as a view while another of its family lives:
    each of its writes must then reach ``families``, which warns (rule 1),
    not only the first. Once the rest of its family has died none can come
    back, and a new one (a view of this array) empties the set as any share
    does. Otherwise :func:`storable_scalars`.
    """
    # (families.lives_beside_its_family, in line: every write through the
    # core asks, and most arrays have no view family, so the type test
    # alone answers)
    if type(array._family) is _VIEWS and families._others_alive(array, None):
        return _NO_FAST_WRITE
    data = array._data
    key = (array._device.backend, data.dtype, data.ndim)
    made = _ELEMENT_WRITES.get(key)
    if made is None:
        scalars = storable_scalars(array)
        ndim = key[2]
        made = _ELEMENT_WRITES[key] = frozenset(
            [*(scalars if ndim == 1 else ()), *((kind, ndim) for kind in scalars)]
        )
    return made


#: (backend, dtype, ndim) -> what :func:`fast_writes` gives such arrays (a
#: few entries: storable_scalars reads nothing else)
_ELEMENT_WRITES: Final[dict[tuple[Any, Any, int], frozenset[Any]]] = {}


def storable_scalars(array: Array) -> frozenset[type]:
    """The scalar types that NumPy stores into ``array`` as they are,
    running no Python code and raising nothing after the store.

    The NumPy scalar type of ``array``'s own dtype (``np.float64`` into
    float64: the bytes are copied, nothing is converted; ``x[i] = a[j]`` of a
    NumPy array ``a``), and the Python scalars of :data:`_PLAIN_SCALARS`.
    None for a backend that orders each write after copies still reading the
    memory (CuPy's streams: it must see every write), and no Python scalar
    that NumPy could only store with a floating-point error (a Python float
    into float32 may overflow, and the error would come after the store).
    """
    if array._device.backend.sees_every_write:
        return _NO_FAST_WRITE
    dtype = array._data.dtype
    own = frozenset({dtype.type})
    if dtype.kind in "fc" and dtype.itemsize < (8 if dtype.kind == "f" else 16):
        return own
    return _PLAIN_SCALARS[dtype.kind] | own


# Python scalars a plain in-place write accepts without conversion, by dtype kind.
_PLAIN_SCALARS: Final = {
    "b": frozenset({bool}),
    "i": frozenset({int}),
    "u": frozenset(),  # a negative int must be refused: take the full path
    "f": frozenset({int, float}),
    "c": frozenset({int, float, complex}),
}


def check_every_store() -> None:
    """Assertion mode: fail at once wherever an Array is given a value that is
    not an array of its backend (a NumPy scalar, a Python number).

    An Array's exports, writes and views all assume its ``_data`` is an
    array: a scalar's export would point at memory freed with the scalar.
    The core converts at its one store of computed values; this mode checks
    every store, from any module, by putting a checking property in front of
    the slot (``COWARRAY_CHECK_STORES=1``, read at import; ``.ci/run`` runs
    the whole suite so). It costs a Python call per store, so it is off by
    default.
    """
    import numpy as np

    slot: Any = Value.__dict__["_data"]
    if type(slot) is property:
        return  # already checking
    scalars = (np.generic, bool, int, float, complex)

    def store(array: Value, value: Any) -> None:
        moved = type(value) is Retired  # a retired array's poison: any use raises
        if not moved and (isinstance(value, scalars) or not hasattr(value, "shape")):
            raise AssertionError(
                f"an Array's backend value must be an array, got {type(value).__name__} "
                f"({value!r}): wrap it with the backend's asarray where it is made"
            )
        slot.__set__(array, value)

    setattr(Value, "_data", property(slot.__get__, store, slot.__delete__))  # noqa: B010
    # The unchecked scalar writes rely on no call between a test and a store;
    # the property is a call. The checked path writes the same values.
    cow.disable_unchecked_writes()
