"""Writes through views that NumPy would have shown in another array: warn.

Code written for NumPy often writes into a view and expects the array it
was taken from to change (``v = out[k]; v += d``). Under cowarray's rule 1
only the view changes, so such code would compute a wrong answer without a
word. This module makes that loud (docs/design.md, rule 1):

- Every array that a view-returning operation derived from another (a
  slice, ``.T``, a reshape that NumPy does as a view...) belongs to that
  array's *view family*, the set of arrays that would share memory in NumPy.
  A lazy clone starts a new family: it is an explicit value.
- A write to a derived view while another member of its family is alive is
  a *view write*: it warns with :class:`ViewWriteWarning` at once, at the
  line that wrote, on the thread that wrote and so inside that code's
  warning filters (``catch_warnings``, ``pytest.warns``, ``-W error``: then
  the write raises before it changes anything). A write to the family's
  first array (the one views were taken from) does not warn: NumPy code
  that writes the base while holding views is rare, and cowarray code does
  it all the time.
- ``x[k] += v`` is ``t = x[k]; t += v; x[k] = t`` in Python, and its result
  is NumPy's. The in-place write to ``t`` reads its caller's code
  (:func:`note_in_place_write`): if the next instructions write ``t`` back
  into a container and only the value stack holds ``t``, the warning is
  held back, on this thread only, until the write-back, which drops it when
  it writes into ``t``'s family (:func:`settle`); anything else reports it
  first, naming the line. Where the code cannot be read (a call from C, as
  ``operator.iadd``), the write warns at once.
- A NumPy array or DLPack consumer that writes exported memory of a view
  whose family lives (``np.asarray(out[k])``, ``torch.from_dlpack(x[0])``)
  cannot be seen as it writes. The export is compared with a snapshot when
  the consumer releases it, and a difference is reported, naming the line
  that made the export, at the exporting thread's next cowarray operation
  (:func:`end_watch`: a release may run in a gc callback or on another
  thread); exports still alive at interpreter exit are compared then. An
  export also counts as a member of its array's family while it lives, so
  ``a = np.asarray(x); v = x[0]; del x; v[1] = 5`` warns.
- Every deferred report belongs to one thread: :func:`flush` (each
  operation, while :data:`PENDING` is non-empty) reports only the calling
  thread's; those of a thread that ended without another operation, and
  everything left, are reported at interpreter exit.

Families are counted by reference counts of a small token, calibrated at
import; whether a view is a temporary, by its reference count, calibrated
at import too; what the caller's code does next is read from its bytecode
(every such reading is cowarray._interpreter's). A miscount or a misread
here costs only a missed or an extra warning: no value depends on it. (The
one reading a value does rest on, the write-back proof that lets a view
write its array's memory in place, is cowarray._core.write's, and checks
what it reads against the arrays themselves.) The warning's words are read
from the user's source apart (cowarray._core.view_write_text).
"""

from __future__ import annotations

import atexit
import sys
import threading
import warnings
import weakref
from typing import Any, Final

from .. import _interpreter
from .view_write_text import broadcast_write_message, message, stale_view_message

_getrefcount: Final = _interpreter.getrefcount

__all__ = ["StaleViewWarning", "ViewWriteWarning"]


class ViewWriteWarning(UserWarning):
    """A write to a view that NumPy would also have made in the array it views.

    cowarray wrote only the view (every array is a value); code written for
    NumPy may have meant the other array to change. Write that array itself
    (``x[k] += d`` instead of ``v = x[k]; v += d``), or, if a separate value
    was meant, say so with ``v = cowarray.lazy_clone(x[k])``, which never warns.

    Examples
    --------
    >>> import warnings
    >>> import cowarray as ca
    >>> x = ca.zeros((2, 3))
    >>> row = x[0]
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     row[1] = 5.0  # warns here, naming this line
    >>> caught[0].category.__name__
    'ViewWriteWarning'
    >>> x[0, 1], row[1]
    (cowarray.Array(0., dtype=float64), cowarray.Array(5., dtype=float64))
    """


class StaleViewWarning(ViewWriteWarning):
    """A view used after the array it was taken from was written.

    NumPy would show the write in the view; cowarray's view keeps the values
    it had (every array is a value), so NumPy code that reads it expecting
    the new values would get the old ones. The warning names the line that
    wrote; take the view again after the write, or, if the old values were
    meant, say so with ``cowarray.lazy_clone``, which never warns. A
    :class:`ViewWriteWarning`, so the filters that silence one silence both.

    Examples
    --------
    >>> import warnings
    >>> import cowarray as ca
    >>> V = ca.zeros(8)
    >>> center = V[2:5]
    >>> V += 1.0
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     total = float(center.sum())  # warns here, naming the write's line
    >>> total, caught[0].category.__name__
    (0.0, 'StaleViewWarning')
    """


_new_object = object.__new__


class _Views:
    """The token every view of one family holds (and its first array, through
    :class:`_Family`): its reference count counts the family's live members."""

    __slots__ = ("__weakref__",)  # (a weak reference does not count)


class _Family:
    """Held by the array a family's views were first taken from."""

    __slots__ = ("views",)
    views: _Views


def _references(holder: Any) -> int:
    return _getrefcount(holder._family)


#: What :func:`_references` reads for a token held by one array only
#: (cowarray._interpreter.baseline: measured at import with the same function).
_ONE_HOLDER: Final = _interpreter.baseline(_references, "_family", _Views)


def _others_alive(holder: Any, value: object) -> bool:
    others = _references(holder) - _ONE_HOLDER
    if getattr(value, "_family", None) is holder._family:
        others -= 1  # the array being written from is read, not aliased
    return others > 0


def same_family(one: Any, other: Any) -> bool:
    """Whether ``one`` and ``other`` belong to one view family: the arrays
    NumPy would have made share memory (a lazy clone starts its own)."""
    first, second = one._family, other._family
    if first is None or second is None:
        return False
    first = first.views if type(first) is _Family else first
    second = second.views if type(second) is _Family else second
    return first is second


def lives_beside_its_family(holder: Any) -> bool:
    """Whether ``holder`` is a derived view and another array of its family lives."""
    return type(holder._family) is _Views and _others_alive(holder, None)


class _Pending:
    """A view write to report on the thread that made it (``thread``).

    ``site`` is the code object and instruction offset that wrote, when
    known: the report reads the user's source there to name the variables
    (:func:`_describe_write`). A code object keeps no locals alive.
    ``region`` is the memory the held-back view viewed when it wrote: only
    a store of it into those very elements settles the report.
    """

    __slots__ = (
        "filename",
        "holder",
        "lineno",
        "module_globals",
        "region",
        "site",
        "thread",
        "what",
    )

    def __init__(
        self,
        holder: Any,
        what: str,
        where: Location,
        thread: int,
        site: tuple[Any, int] | None = None,
    ) -> None:
        self.holder = holder
        self.region = None if holder is None else holder._data
        self.what = what
        self.filename, self.lineno, self.module_globals = where
        self.thread = thread
        self.site = site


class _Stale(_Pending):
    """A watch for a later use of views whose base was written after they were
    taken: the base's old memory (``buffer``, which those views still hold
    and the base no longer does) and the family's token, both weakly, so
    that the watch ends when the views die; ``written``, the old memory's
    elements the write wrote (a view that does not overlap them shows
    NumPy's values). ``holder`` stays None: no store
    settles a watch (:func:`settle`). ``checks_left``: the operations of its
    thread still to look at before the watch gives up, so that a view kept
    and never used costs a bounded number of checks."""

    __slots__ = ("backend", "buffer", "checks_left", "family", "written")
    backend: Any
    buffer: Any  # (a weak reference)
    checks_left: int
    family: Any  # (a weak reference)
    written: Any


#: Every thread's view writes waiting to be reported, in the order found,
#: each tagged with the thread it belongs to. The hot path tests only that
#: this list is non-empty (``if PENDING: flush()``); :func:`flush` then
#: reports the calling thread's entries and leaves the others'. Entries are
#: rare and short-lived: an in-place write held back for the few
#: instructions until its write-back, and a foreign consumer's write found
#: when its export was released.
PENDING: Final[list[_Pending]] = []

#: Entries of threads that ended before reporting them: reported at exit.
_ORPHANS: Final[list[_Pending]] = []

_get_ident: Final = threading.get_ident

Location = _interpreter.Location


def writing_location(skip: tuple[str, ...] = ()) -> Location:
    """The first frame outside cowarray: the line that wrote (library or not).

    ``skip`` names functions to look past as well: a consumer's
    ``from_dlpack`` that calls ``__dlpack__`` on its caller's behalf.
    """
    return _interpreter.location(_interpreter.outside_frame(skip))


def note_in_place_write(holder: Any, value: object, what: str) -> None:
    """Called before an in-place operator writes ``holder``, a derived view.

    Warns at once, at the line that wrote, unless the caller's code writes
    the result back next (cowarray._interpreter.instruction_facts): an
    augmented assignment ``x[k] += v`` on the temporary ``t = x[k]`` (only
    the value stack holds it: ``views[0] += 1`` on a list of views warns at
    once), or ``v *= s`` followed by the statement ``x[k] = v``. Then the
    warning is held back, on this thread only, for :func:`settle` to drop
    when the write-back goes into the very elements of the view's own
    family, which makes the result NumPy's; whatever cowarray operation
    comes first otherwise reports it, naming this line. Where the caller's
    code cannot be read (a call from C), it warns at once.
    """
    if not _others_alive(holder, value):
        return
    if _broadcast(holder._data):
        _report_broadcast_write(what)
        # (NumPy refuses the write: the view's later writes have no NumPy
        # meaning to warn about, so it leaves the family)
        holder._family = None
        return
    count = _getrefcount(holder)
    me = _get_ident()
    measuring = _interpreter.MEASURING
    if measuring and me in measuring:
        measuring[me].append(count)
        return
    if PENDING:
        flush()
    frame = _interpreter.outside_frame()
    where = _interpreter.location(frame)
    site = _interpreter.site(frame)
    kind = _interpreter.NO_WRITE_BACK if frame is None else _interpreter.instruction_facts(frame)[1]
    if kind == _interpreter.THROUGH_ITS_NAME and not _may_store_into_family(frame, holder):
        # ``v *= s`` and then ``lst[k] = v`` into something that is not v's
        # family: no write-back will settle it, so report it now rather
        # than at this thread's next cowarray operation, after other output.
        kind = _interpreter.NO_WRITE_BACK
    del frame
    # (under a tracer the locals of the frames between may be held by their
    # f_locals dictionaries: the count says nothing, the code does)
    temporary = _interpreter.temporary_view_count
    if (
        kind == _interpreter.INTO_ITS_CONTAINER
        and sys.gettrace() is None
        and temporary is not None
        and count > temporary
    ):
        kind = _interpreter.NO_WRITE_BACK  # held elsewhere too: ``views[0] += 1``
    if kind != _interpreter.NO_WRITE_BACK:
        if not hasattr(_THREAD, "end"):
            _THREAD.end = _ThreadEnd()
        PENDING.append(_Pending(holder, what, where, me, site))
        return
    _report(_Pending(None, what, where, 0, site))


#: Containers that never write a value back into a cowarray array.
_NOT_WRITE_BACKS: Final = (list, dict, tuple)


def _may_store_into_family(frame: Any, holder: Any) -> bool:
    """For ``v *= s`` followed by the statement ``c[k] = v``: False when ``c``
    is known not to be an array of ``v``'s family (a list, a dict, a NumPy
    array, an array of another family), so that no write-back will settle
    the report; True when it is, or when it cannot be known without running
    code (an attribute, a function's local on CPython before 3.13, where
    reading one would keep every local alive)."""
    try:
        container: Any = _interpreter.store_container(frame)
    except Exception:  # (bytecode this does not know)
        return True
    if container is _interpreter.UNKNOWN:
        return True
    if type(container) is _ARRAY_TYPE[0]:
        family = container._family
        token = family if type(family) is _Views else getattr(family, "views", None)
        return token is not None and token is holder._family
    return not isinstance(container, _NOT_WRITE_BACKS) and type(container).__name__ != "ndarray"


#: The Array type (bound by cowarray._core.values.bind_array_type).
_ARRAY_TYPE: list[Any] = [type(None)]


def note_write(holder: Any, value: object, what: str) -> None:
    """Called before a write to ``holder``, a derived view (``what`` names the
    write; not an in-place operator, see :func:`note_in_place_write`): warns
    at once, naming the line that wrote, if another array of its family lives."""
    if not _others_alive(holder, value):
        return
    if _broadcast(holder._data):
        _report_broadcast_write(what)
        # (NumPy refuses the write: the view's later writes have no NumPy
        # meaning to warn about, so it leaves the family)
        holder._family = None
        return
    if PENDING:
        flush()
    frame = _interpreter.outside_frame()
    where, site = _interpreter.location(frame), _interpreter.site(frame)
    del frame
    _report(_Pending(None, what, where, 0, site))


def _broadcast(data: Any) -> bool:
    """Whether ``data`` repeats an element along an axis (a stride of 0 over
    more than one element): what ``broadcast_to`` makes, and NumPy makes
    read-only."""
    strides = getattr(data, "strides", None)
    return strides is not None and any(
        stride == 0 and n > 1 for stride, n in zip(strides, data.shape, strict=False)
    )


def _report_broadcast_write(what: str) -> None:
    """A write to a broadcast view: NumPy refuses it (its broadcast_to is
    read-only), so no write-back makes it NumPy's; say so at once, with the
    fix that fits."""
    if PENDING:
        flush()
    frame = _interpreter.outside_frame()
    filename, lineno, module_globals = _interpreter.location(frame)
    site = _interpreter.site(frame)
    del frame
    warnings.warn_explicit(
        broadcast_write_message(what, site, filename, module_globals),
        ViewWriteWarning,
        filename,
        lineno,
        registry=module_globals.setdefault("__warningregistry__", {}),
    )


def settle(target: Any, value: object, index: Any) -> None:
    """Before ``target[index] = value``: drop this thread's held-back write to
    ``value`` if this stores it back into the very elements of ``value``'s
    family that it viewed when it wrote (``x[k] += d``'s store, or ``v *= s;
    x[k] = v`` with ``v = x[k]``), which makes the result NumPy's; then
    report the rest. A store elsewhere (``v = x[0]; v += d; x[1] = v``)
    leaves the write to ``x[0]`` unseen by ``x``, as NumPy would not: it is
    reported."""
    family = target._family
    token = family if type(family) is _Views else getattr(family, "views", None)
    if token is not None and getattr(value, "_family", None) is token:
        me = _get_ident()
        try:
            last = PENDING[-1]  # (the write held back just before, as a rule)
        except IndexError:
            return
        if last.holder is not value or last.thread != me:
            for last in PENDING.copy():
                if last.holder is value and last.thread == me:
                    break
            else:
                last = None  # type: ignore[assignment]
        if last is not None and _stores_back(target, index, last.region):
            _take(last)
    if PENDING:
        flush()


def _stores_back(target: Any, index: Any, region: Any) -> bool:
    """Whether ``target[index] = ...`` writes the elements ``region`` views."""
    backend = target._device.backend
    written = backend.written_view(target._data, index)
    return written is not None and backend.same_elements(written, region)


def _take(pending: _Pending) -> bool:
    try:
        PENDING.remove(pending)  # (by identity: _Pending has no __eq__)
    except ValueError:  # taken meanwhile (at exit, by the main thread)
        return False
    return True


def flush() -> None:
    """Report the calling thread's held-back view writes, in the order found,
    and look for a use of its stale views (:func:`note_base_moved`).

    Other threads' entries stay for their own next operation: a warning is
    issued on the thread that wrote, inside its warning filters.
    """
    me = _get_ident()
    for pending in PENDING.copy():  # (one step, also without a GIL)
        if pending.thread != me:
            continue
        if type(pending) is _Stale:
            _look_for_use(pending)
        elif _take(pending):
            _report(pending)
    # (another thread's entries stay: this thread pays this call until then)


#: How many operations of its thread a watch for stale views looks at.
STALE_CHECKS: Final = 1000
#: How many watches one line that wrote starts (the warnings module shows a
#: warning once per place by default; a loop's write starts no more).
_WATCHES_PER_WRITE: Final = 4
_watches_started: dict[tuple[str, int], int] = {}


def note_base_moved(holder: Any, old: Any, written: Any) -> None:
    """Called after a write gave ``holder``, the first array of a view
    family, new memory because others held ``old``, its memory until now
    (``written``: the elements of that memory the write wrote).
    If views of its family still hold ``old``, NumPy would show the write
    in them and cowarray does not: watch for a later use of one of them
    (:func:`_look_for_use`), which warns there, naming this write's line."""
    family = holder._family
    if type(family) is not _Family or _getrefcount(family.views) <= _ONE_HOLDER:
        return  # (no view of the family lives)
    frame = _interpreter.outside_frame()
    where = _interpreter.location(frame)
    del frame
    site = (where[0], where[1])
    started = _watches_started.get(site, 0)
    if started >= _WATCHES_PER_WRITE:
        return
    if len(_watches_started) >= 4096:
        _watches_started.clear()
    _watches_started[site] = started + 1
    watch = _Stale(None, "", where, _get_ident())
    watch.buffer = weakref.ref(old, _end_stale_watch(watch))
    watch.family = weakref.ref(family.views)
    watch.checks_left = STALE_CHECKS
    watch.backend, watch.written = holder._device.backend, written
    _thread_end_watch()
    PENDING.append(watch)


def _end_stale_watch(watch: _Stale) -> Any:
    def end(_: object) -> None:
        _take(watch)

    return end


def _look_for_use(watch: _Stale) -> None:
    """Warn if the statement running now (the user's code outside cowarray)
    names a view ``watch`` is for; end the watch once it has warned, or has
    looked at :data:`STALE_CHECKS` operations."""
    watch.checks_left -= 1
    if watch.checks_left <= 0:
        _take(watch)
        return
    old, token = watch.buffer(), watch.family()
    if old is None or token is None:
        _take(watch)
        return
    frame = _interpreter.outside_frame()
    if frame is None:
        return
    try:
        used = [
            name
            for name, value in _interpreter.variables_loaded(frame)
            if getattr(value, "_buf", None) is old
            and getattr(value, "_family", None) is token
            and watch.backend.overlaps(value._data, watch.written)  # type: ignore[attr-defined]
        ]
        if not used or not _take(watch):
            return
        filename, lineno, module_globals = _interpreter.location(frame)
    finally:
        del frame
    registry = module_globals.setdefault("__warningregistry__", {})
    warnings.warn_explicit(
        stale_view_message(used[0], watch.filename, watch.lineno, watch.module_globals),
        StaleViewWarning,
        filename,
        lineno,
        registry=registry,
    )


def _report(pending: _Pending) -> None:
    registry = pending.module_globals.setdefault("__warningregistry__", {})
    warnings.warn_explicit(
        message(pending.what, pending.site, pending.filename, pending.module_globals),
        ViewWriteWarning,
        pending.filename,
        pending.lineno,
        registry=registry,
    )


# -- naming the write in the warning: the user's own code ------------------------------


# -- threads that end with something to report -----------------------------------


class _ThreadEnd:
    """Lives in a thread's local storage: when the thread ends it dies, and
    moves what that thread left unreported to :data:`_ORPHANS` (reported at
    exit), so that no other thread reports it and none pays for it."""

    __slots__ = ("thread",)

    def __init__(self) -> None:
        self.thread = _get_ident()

    def __del__(
        self, pending: list[_Pending] = PENDING, orphans: list[_Pending] = _ORPHANS
    ) -> None:
        for entry in pending.copy():
            if entry.thread == self.thread:
                try:
                    pending.remove(entry)
                except ValueError:
                    continue
                if type(entry) is not _Stale:  # (a watch ends with its thread)
                    orphans.append(entry)


_THREAD: Final = threading.local()


def _thread_end_watch() -> None:
    """Make sure this thread's end moves its leftovers aside (:class:`_ThreadEnd`)."""
    if not hasattr(_THREAD, "end"):
        _THREAD.end = _ThreadEnd()


# -- foreign writers: exports of views, compared when released ---------------------


class _Watch:
    """An export of a view whose family lives: a foreign consumer (NumPy,
    torch, any DLPack consumer) may write the exported memory, which NumPy
    would have shared with the rest of the family. Compared with a snapshot
    when the consumer releases it (:func:`end_watch`), or at exit."""

    __slots__ = ("data", "snapshot", "thread", "what", "where", "xp")

    def __init__(self, data: Any, xp: Any, where: Location, what: str) -> None:
        self.data = data
        self.xp = xp
        self.snapshot = xp.array(data, copy=True)
        self.where = where
        self.what = what
        self.thread = _get_ident()


#: id -> every watched export still held by its consumer.
_WATCHES: Final[dict[int, _Watch]] = {}


def watch_export(data: Any, xp: Any, where: Location, what: str) -> _Watch:
    """Start watching ``data``, exported memory of a view whose family lives,
    before the consumer gets it. ``where`` is the line that made the export;
    ``what`` names it in the warning."""
    watch = _Watch(data, xp, where, what)
    _WATCHES[id(watch)] = watch
    _thread_end_watch()
    return watch


def end_watch(watch: _Watch, watches: dict[int, _Watch] = _WATCHES) -> None:
    """The consumer released ``watch``'s memory: if it wrote there, report the
    write (naming the export's line) at the exporting thread's next cowarray
    operation. A release may run in a gc callback or on another thread, where
    a warning would reach the wrong filters or none. (Module globals are
    bound as defaults: a release may run at exit.)"""
    if watches.pop(id(watch), None) is None:
        return  # compared already (at exit)
    _compare(watch)


def _compare(watch: _Watch, pending: list[_Pending] = PENDING) -> None:
    if not same_bytes(watch.xp, watch.snapshot, watch.data):
        pending.append(_Pending(None, watch.what, watch.where, watch.thread))
    watch.snapshot = watch.data = None


#: Exports up to this size are compared as bytes objects (a copy of each on
#: the host, which a bigger one should not cost); bigger ones by the backend.
_BYTES_COMPARED_ON_THE_HOST: Final = 1 << 16


def same_bytes(xp: Any, a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b`` hold the same bytes (a NaN's payload and the
    sign of zero count: a consumer's write of -0.0 over 0.0 is a write)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if not a.size:
        return True
    if a.nbytes <= _BYTES_COMPARED_ON_THE_HOST:
        # Two host copies of a small export and one memcmp: array_equal's
        # layers of Python cost a quarter of to_torch(x[a:b]) (8 of 32 us).
        return a.tobytes() == b.tobytes()
    a = xp.ascontiguousarray(a).reshape(-1).view(xp.uint8)
    b = xp.ascontiguousarray(b).reshape(-1).view(xp.uint8)
    return bool(xp.array_equal(a, b))


def _at_exit() -> None:
    """Compare the exports still alive, then report every thread's leftovers:
    exit is the last place a report can go."""
    for key in list(_WATCHES):
        watch = _WATCHES.pop(key, None)
        if watch is not None:
            _compare(watch)
    leftovers = _ORPHANS + PENDING
    del _ORPHANS[:], PENDING[:]
    for pending in leftovers:
        if type(pending) is not _Stale:  # (a watch has nothing to report)
            _report(pending)


atexit.register(_at_exit)
