"""The copy-on-write core: buffers, holders, and the one decision before a write.

Rules enforced here (docs/design.md, rules 2, 3, 7 and 10; §3 there says how):

* A *buffer* is a block of memory; each Array that views it is a *holder*.
  A buffer gets a record (:class:`Buffer`) only when a second holder appears
  (a lazy clone, a view, a NumPy export); until then its single Array is
  trivially the sole holder and pays nothing.
* Holders are counted by CPython itself: every holder keeps one strong
  reference to the record, and nobody else keeps one for long (observers use
  weak references). ``sys.getrefcount`` is therefore an exact holder count.
  The count an expression shows for a sole holder differs between CPython
  releases (3.14 borrows references on the stack), so it is measured at
  import with the very function that counts (:data:`_SOLE`); a transient
  extra reference can only make the count higher, which costs at most an
  extra copy, never a wrong value.
* **Joining is atomic with deciding.** Every "sole holder, write in place"
  decision and every "join this buffer" happen under one lock
  (:data:`_lock`), and a lock-free join (a slice, a transpose) can only join
  a record whose *gate* (:attr:`Buffer.shareable`) it saw open *after* taking
  its reference. A writer closes the gate before it counts, so a joiner
  either is counted or sees the gate shut and takes the lock. (That needs
  the GIL's ordering: a free-threaded build joins under the lock always.)
* **An in-place write is fenced.** While the sole holder writes its memory
  in place, its record slot holds this thread's *writing marker* instead of a
  record: another thread that wants to join waits until the write is over
  (its clone is a snapshot from after the write, never a view of one in
  progress); code on the writing thread itself (a gc callback, a ``__del__``,
  a signal handler) gets an eager copy instead of a share, so nothing
  re-entered can alias either. Re-entered code is recognised by the lock
  itself: a section that finds :data:`_lock` already held by its own thread
  (``_is_owned``, the RLock's own test that ``threading.Condition`` uses) is
  code running inside another section of this thread.
* A holder that shares its memory copies only the region it views into a new
  compact buffer, writes there, and only then commits it, so a write that
  raises commits nothing; it holds the old record while it copies, and
  commits only if the holder still holds the memory it copied.
* **Page-granular copy-on-write** (off by default; docs/design.md §5): a
  holder that shares a view of at least :data:`page_cow_min` bytes and
  writes (``x[i] = v``) a region spanning at most :data:`PAGE_WRITE_FRACTION`
  of the view's pages asks the backend for a clone whose pages the operating
  system copies on first write, instead of copying the region now. The
  backend says whether it can (host page blocks) and counts the pages copied.
* States: *private* (one holder), *shared* (several), *exposed* (a DLPack
  consumer may write it) and *foreign* (imported; its producer may write it).
  Exposed and foreign buffers are never shared lazily: :func:`join` refuses
  and the caller copies eagerly.

This module knows nothing of operations or of NumPy versus CuPy: it calls the
holder's device backend for the two things it needs, "can this view be
written in place" and a bulk copy.
"""

from __future__ import annotations

import contextlib
import itertools
import operator
import os
import sys
import sysconfig
import threading
import weakref
from collections.abc import Callable, Iterator
from typing import Any, Final, Protocol

from .. import _interpreter, _threads
from .._backends import PAGE_COW, STREAMS, _reuse
from .._threads import WORKING_FOR
from . import families as _families

__all__ = [
    "COUNTERS",
    "FAST_WRITES",
    "LOCK",
    "LOCK_FREE_JOINS",
    "Buffer",
    "Holder",
    "Observer",
    "apply_binary",
    "count_copy",
    "count_eager_copy",
    "derive_binary",
    "hand_over",
    "hand_over_private",
    "holder_count",
    "in_section",
    "looks_shared",
    "join",
    "join_made",
    "notify",
    "only_reference_is",
    "reclaim",
    "replace",
    "set_observer",
    "settled_buffer",
    "stable_id",
    "state_of",
    "unchanged",
    "write",
]

_getrefcount = sys.getrefcount
_get_ident = threading.get_ident
_WORKING_FOR: Final = WORKING_FOR
_next_buffer_id = itertools.count(1).__next__  # atomic under the GIL
# id(owner) -> (weak reference to owner, buffer id). NumPy arrays are not
# hashable, so they cannot key a WeakKeyDictionary; the weak reference's
# callback drops the entry when the owner dies, before its id can be reused.
_ids_by_owner: dict[int, tuple[weakref.ref[Any], int]] = {}
# Re-entrant: the weak reference made under it allocates, a collection can
# end a DLPack exposure, and a tracing observer then asks that buffer's id.
_ids_lock = threading.RLock()

#: Whether a plain ``x[i] = v`` may skip the core (``Holder._fast_write``).
#: Only where the GIL makes the check and the store one step for other
#: threads; a free-threaded build always takes the locked path.
FAST_WRITES: bool = not sysconfig.get_config_var("Py_GIL_DISABLED")
#: Whether a new holder may join an open record without the lock. Its
#: ordering argument (take the reference, then read the gate; close the gate,
#: then count) needs the sequential consistency that the GIL's hand-overs
#: give; a free-threaded build reads another thread's reference count with
#: relaxed loads, so there every join takes the lock.
LOCK_FREE_JOINS: Final = FAST_WRITES


def disable_unchecked_writes() -> None:
    """Never enable ``x[i] = v`` without the core again (assertion mode, whose
    checking property puts a call between the test and the store)."""
    global FAST_WRITES
    FAST_WRITES = False


def _forget_owner(key: int) -> Callable[[weakref.ref[Any]], None]:
    def forget(_: weakref.ref[Any]) -> None:
        _ids_by_owner.pop(key, None)

    return forget


def _forget_id(owner: object) -> None:
    """``owner``'s memory starts a new life (a reused result block): a new id."""
    key = id(owner)
    # (looked at first without the lock: nothing else reaches a reused block,
    # so no other thread can be giving it an id now; most never got one)
    if key in _ids_by_owner:
        with _ids_lock:
            _ids_by_owner.pop(key, None)


_reuse.ON_REUSE.append(_forget_id)


def _named(owner: object) -> int:
    """How many weak references to ``owner`` the id registry keeps (0 or 1)."""
    entry = _ids_by_owner.get(id(owner))
    return 1 if entry is not None and entry[0]() is owner else 0


_reuse.KNOWN_WEAK_REFERENCES.append(_named)


def stable_id(owner: object) -> int:
    """The id of the memory ``owner`` holds: the same for every record of it."""
    key = id(owner)
    with _ids_lock:
        entry = _ids_by_owner.get(key)
        if entry is not None and entry[0]() is owner:
            return entry[1]
        number = _next_buffer_id()
        try:
            reference = weakref.ref(owner, _forget_owner(key))
        except TypeError:  # an owner that takes no weak reference
            return number
        _ids_by_owner[key] = (reference, number)
        return number


class Holder(Protocol):
    """What the core needs of an Array (its slots, cowarray._core.values.Value).

    ``_fast_write`` lets the Array skip this module for plain scalar writes;
    it is empty whenever a record exists: this module empties it (under the
    lock) before any second holder can appear, and only this module fills
    it. ``_donated`` ends where ``_fast_write`` is reset: when the holder
    gains a record, is written, or hands its memory over.
    """

    _data: Any
    _buf: Buffer | None
    _device: Any
    _fast_write: frozenset[Any]
    _donated: bool
    _family: Any


# Re-entrant: a garbage collection inside a locked section (any allocation)
# can end a DLPack exposure, whose release takes this lock on the same thread.
# A section opens with ``reentered = _lock._is_owned(); _lock.acquire()``
# written out, not through a helper: every write takes a section, and a
# helper's call costs as much as the section (typed Any: ``_is_owned`` is
# not in typeshed's stubs).
_lock: Any = threading.RLock()
#: Whether this thread is inside a locked section (the lock's own test, a C
#: call): code re-entered there (a gc callback, ``__del__``, a signal
#: handler) must take the locked paths, which copy rather than share.
in_section: Final[Callable[[], bool]] = _lock._is_owned
#: The lock, for the one registry that must share it (DLPack's boundary
#: regions, whose releases run inside collections).
LOCK: Final = _lock


class Buffer:
    """The sharing record of one block of memory (or a thread's writing marker).

    Holders are counted by reference count (see the module docstring); the
    record itself stores only what a count cannot tell. A record whose last
    holder writes is dropped (the holder goes back to the record-free fast
    path); the memory keeps its :attr:`id`, which is tied to the memory's
    owner object, not to the record.
    """

    __slots__ = (
        "__weakref__",
        "_backend",
        "_id",
        "_memory",
        "_nbytes",
        "_owner",
        "exposures",
        "fenced",
        "foreign",
        "read_only",
        "shareable",
        "writer",
    )

    # (foreign and read_only not keyword-only: a keyword-only default cost
    # every first share of private memory a tenth of the record's making)
    def __init__(
        self,
        memory: Any = None,
        backend: Any = None,
        foreign: bool = False,
        read_only: bool = False,
    ) -> None:
        # The memory (a backend array viewing it) and its backend: the owner
        # object and the size are asked of the backend when first wanted,
        # never when the record is made (every first view makes one).
        self._memory = memory
        self._backend = backend
        self._owner: object = None
        self._nbytes = -1
        #: Imported memory that its producer may write.
        self.foreign: bool = foreign
        #: Memory nobody may write in place, though the backend array would allow
        #: it (a read-only DLPack import on a backend without read-only arrays).
        self.read_only: bool = read_only
        #: How many DLPack consumers currently hold this memory.
        self.exposures: int = 0
        #: The gate: False while exposed or foreign, and while a writer decides.
        #: A new holder may join only through an open gate.
        self.shareable: bool = not foreign
        #: For a writing marker: the thread writing in place. 0 for records.
        self.writer: int = 0
        #: For a writing marker: ``(holder, record to put back)`` for each
        #: in-place write it fences now, innermost last (a forked child puts
        #: them back: the thread that would is not in the child).
        self.fenced: list[tuple[Holder, Buffer | None]] = []
        self._id: int = 0

    @property
    def owner(self) -> object:
        """The object that owns the memory (NumPy's ``base``, a CuPy memory)."""
        if self._owner is None and self._memory is not None:
            self._owner = self._backend.memory_owner(self._memory)
        return self._owner

    @property
    def nbytes(self) -> int:
        """The size of the memory the owner holds, in bytes."""
        if self._nbytes < 0:
            memory = self._memory
            self._nbytes = 0 if memory is None else int(self._backend.owner_nbytes(memory))
        return self._nbytes

    @nbytes.setter
    def nbytes(self, nbytes: int) -> None:
        self._nbytes = nbytes

    @property
    def id(self) -> int:
        """A stable id for the memory, never reused in this process."""
        if not self._id:
            self._id = stable_id(self.owner)
        return self._id

    # (the lock bound as a default: the last export may die at interpreter
    # exit, when module globals may already be None)
    def release(self, lock: Any = _lock) -> None:
        """Count one DLPack consumer less; lazy sharing resumes at zero."""
        lock.acquire()  # (a with statement and the _gate call were a third of this)
        try:
            self.exposures -= 1
            self.shareable = not self.foreign and not self.exposures
        finally:
            lock.release()

    def __repr__(self) -> str:
        return f"<cowarray buffer #{self.id}, {self.nbytes} bytes>"


def _gate(buf: Buffer) -> bool:
    """Whether ``buf``'s gate is open when nobody is deciding.

    Written out where every write through the core asks (``looks_shared``,
    ``_claim``, ``_write_in_place``, ``reclaim``): a call there costs more
    than the test, and a stencil step asks four times."""
    return not buf.foreign and not buf.exposures


class Observer(Protocol):
    """Receives the core's events while somebody is looking (debug.trace).

    ``kind`` is one of ``"share"`` (a new holder joins ``buffer``),
    ``"materialize"`` (``holder`` wrote, copying ``nbytes`` out of ``buffer``),
    ``"eager_copy"`` (``holder`` was given a copy of ``nbytes`` because
    ``buffer`` could not be shared: exposed or foreign), ``"takeover"`` (the
    last holder writes ``buffer`` in place), ``"export"``, ``"import"``,
    ``"import_copy"`` (an import or a move to another device copied
    ``nbytes`` into ``holder``), ``"export_copy"`` (``holder``'s values were
    copied out for a consumer: ``np.array(x)``, ``copy=True``) and
    ``"exposure_end"`` (DLPack). If ``record`` raises for a copy (a warning
    turned into an error), the copy is dropped and ``holder`` keeps its value.
    """

    def record(
        self, kind: str, holder: Holder | None, buffer: Buffer | None, nbytes: int
    ) -> None: ...


#: Page-granular copy-on-write: None (off), or the smallest view in bytes
#: whose sparse writes are left to the operating system's page copies. Set
#: through :func:`cowarray.set_page_cow`.
page_cow_min: int | None = None
#: Whether page copy-on-write was ever on in this process: until it is, no
#: memory is page-backed and no write in place needs noting to the backend.
page_cow_was_on = False
#: A write spanning more than this fraction of its view's pages copies the
#: region eagerly: the kernel's page-at-a-time copies (a fault, a 4 KiB copy)
#: cost more than one bulk copy beyond about 1/5 of the pages (measured,
#: docs/design.md §5); 1/8 leaves a margin.
PAGE_WRITE_FRACTION: Final = 0.125

#: The one flag tested on hot paths: None unless something is observing.
#: Set only by :func:`set_observer`.
observer: Observer | None = None
#: Whether the lock-free view joins may run now: on a build that proves
#: them (:data:`LOCK_FREE_JOINS`) and while no observer must see each join.
#: The view paths (``x.T``, ``x[1:5]``, reshapes) test this one global.
joins_unobserved: bool = LOCK_FREE_JOINS


def set_observer(new: Observer | None) -> None:
    """Start (or, with None, stop) sending the core's events to ``new``.

    The joins' flag goes down before an observer comes and up after it
    goes, so no thread joins unobserved while an observer is set."""
    global observer, joins_unobserved
    if new is not None:
        joins_unobserved = False
    observer = new
    joins_unobserved = LOCK_FREE_JOINS and new is None


#: Notified whenever an in-place write ends: joiners wait on it.
_write_ended = threading.Condition(_lock)
_NO_FAST_WRITE: Final[frozenset[Any]] = frozenset()


_counter_lock = threading.Lock()
#: How many threads wait on :data:`_write_ended` (notify only then).
_waiting = 0
#: id(holder) -> how many threads wait for an in-place write of that holder
#: to end. A writer of the holder lets them go first (a busy writer cannot
#: starve a clone: it waits for at most one write).
_joiners: dict[int, int] = {}
# thread id -> its writing marker (a record nobody may join)
_markers: dict[int, Buffer] = {}


def _reset_after_fork() -> None:
    """In a forked child: every lock free, no writer and no waiter but this thread's.

    Only the forking thread lives on in the child. Another thread may have
    held a lock, waited, or been writing an array in place (its marker
    fences that array): nobody would ever release, notify or put the record
    back, and the child's first clone or write of that array would wait
    forever. The array keeps whatever its memory held at the fork (as with
    NumPy, a write in progress there may be half done).
    """
    global _waiting
    me = _get_ident()
    lock: Any = _lock  # (the private lock methods are not in typeshed's stubs)
    if not lock._is_owned():  # (held by this thread: a fork from inside a section)
        lock._at_fork_reinit()
    condition: Any = _write_ended
    condition._waiters.clear()  # threads of the parent
    _waiting = 0
    _joiners.clear()
    counter_lock: Any = _counter_lock
    counter_lock._at_fork_reinit()
    ids_lock: Any = _ids_lock
    if not ids_lock._is_owned():
        ids_lock._at_fork_reinit()
    for thread, marker in list(_markers.items()):
        if thread == me:
            continue
        while marker.fenced:
            holder, kept = marker.fenced.pop()
            holder._buf = kept
            if kept is not None:
                kept.writer = 0
                kept.shareable = _gate(kept)
            holder._fast_write = _NO_FAST_WRITE
            holder._donated = False
        del _markers[thread]


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)


def _inside_a_fenced_write() -> bool:
    marker = _markers.get(_get_ident())
    return marker is not None and bool(marker.fenced)


_threads.set_writing_test(_inside_a_fenced_write)


def _marker() -> Buffer:
    me = _get_ident()
    marker = _markers.get(me)
    if marker is None:
        marker = Buffer()
        marker.shareable = False
        marker.writer = me
        _markers[me] = marker
    return marker


class _Counters:
    """Process-wide totals of materializing copies, readable at any time."""

    __slots__ = ("bytes_copied", "copies")

    def __init__(self) -> None:
        self.copies = 0
        self.bytes_copied = 0

    def add(self, nbytes: int) -> None:
        with _counter_lock:
            self.copies += 1
            self.bytes_copied += nbytes

    def reset(self) -> tuple[int, int]:
        """Set both totals to zero; returns ``(copies, bytes_copied)`` just before."""
        with _counter_lock:
            before = self.copies, self.bytes_copied
            self.copies = 0
            self.bytes_copied = 0
            return before

    def snapshot(self) -> tuple[int, int]:
        """``(copies, bytes_copied)`` from the same moment."""
        with _counter_lock:
            return self.copies, self.bytes_copied


COUNTERS: Final = _Counters()


# -- counting ----------------------------------------------------------------


def _count(holder: Holder) -> int:
    # The one counting expression. Its callers hold no reference of their own
    # to the record when they call it (they read it through ``holder``).
    return _getrefcount(holder._buf)


#: What :func:`_count` shows for a record with exactly one holder
#: (cowarray._interpreter.baseline: measured at import with the same function).
_SOLE: Final = _interpreter.baseline(_count, "_buf", Buffer)


def only_reference_is(obj: object, attribute: str) -> bool:
    """Whether ``obj.<attribute>`` holds the only reference to that object
    (a view's ``base``: then nothing else can reach the memory)."""
    return _interpreter.references_through(obj, attribute) <= _SOLE_ATTRIBUTE


#: What :func:`only_reference_is` counts for an object only an attribute holds.
_SOLE_ATTRIBUTE: Final = _interpreter.baseline(
    lambda probe: _interpreter.references_through(probe, "base"), "base", object
)


def looks_shared(holder: Holder) -> bool:
    """Whether ``holder``'s open record has other holders, read without the
    lock: a hint for choosing a way, never a proof of anything. (The caller
    must hold no reference of its own to the record: it would count.)"""
    buf = holder._buf
    return (
        buf is not None
        and not buf.foreign  # (_gate, written out)
        and not buf.exposures
        and _getrefcount(buf) > _SOLE + 1  # + ``buf``
    )


def others_hold(holder: Holder) -> bool:
    """Whether ``holder``'s memory looks held by other values too, with no
    write of it under way: a hint (see :func:`looks_shared`), for a caller
    that would rather copy the values out than export the memory."""
    # (the record read through ``holder`` each time: a local would count)
    return holder._buf is not None and not holder._buf.writer and looks_shared(holder)


def set_page_cow_min(minimum: int | None) -> None:
    """Set :data:`page_cow_min` (cowarray.set_page_cow's setting)."""
    global page_cow_min, page_cow_was_on
    page_cow_min = minimum
    page_cow_was_on = page_cow_was_on or minimum is not None


def _wait_for_writer(holder: Holder, reentered: bool) -> bool:
    """Under the lock: wait while another thread writes ``holder`` in place.

    False if ``holder`` is being written now and waiting is impossible: by
    this very thread, or by another while this is re-entered code (waiting
    would release the lock in the middle of the section it interrupted).
    The caller must then neither share nor count nor fence ``holder``.
    """
    buf = holder._buf
    if buf is None or not buf.writer:
        return True
    me = _get_ident()
    if reentered or buf.writer == me or _WORKING_FOR.get(me) == buf.writer:
        # This thread is inside that write: it wrote, or it computes part of
        # it for the writer (a pool thread, cowarray._threads), which waits.
        return False
    key = id(holder)
    _joiners[key] = _joiners.get(key, 0) + 1
    try:
        while buf is not None and buf.writer:
            _sleep_until_notified()
            buf = holder._buf
        return True
    finally:
        left = _joiners.pop(key) - 1
        if left:
            _joiners[key] = left
        elif _waiting:
            _write_ended.notify_all()  # a writer may wait for the joiners to go


def _let_joiners_go_first(holder: Holder) -> bool:
    """Under the lock, not re-entered: wait while threads that waited for the
    last write of ``holder`` have not had their turn. True if it waited (the
    caller must then look at ``holder`` again)."""
    if not _joiners or id(holder) not in _joiners:
        return False
    while id(holder) in _joiners:
        _sleep_until_notified()
    return True


def _sleep_until_notified() -> None:
    """Under the lock: release it until a write ends or a waiter has had its
    turn (:data:`_write_ended`), then take it back as this section's owner."""
    global _waiting
    _waiting += 1
    try:
        _write_ended.wait()
    finally:
        _waiting -= 1


# -- joining -----------------------------------------------------------------


def join(holder: Holder, data: Any) -> Buffer | None:
    """The record a new holder of ``data`` (read from ``holder._data``) joins.

    None means the new holder must get its own copy of ``data``: the memory
    is exposed or foreign, or ``holder`` changed memory since ``data`` was
    read, or this is code re-entered inside a write of ``holder``.
    """
    buf = holder._buf
    # The lock-free path: an open record, taken before the gate was checked.
    if (
        joins_unobserved
        and buf is not None
        and buf.shareable
        and holder._data is data
        and holder._buf is buf
    ):
        return buf
    reentered = _lock._is_owned()
    _lock.acquire()
    try:
        if not _wait_for_writer(holder, reentered) or holder._data is not data:
            return None
        if holder._buf is None:
            if reentered:
                return None  # a callback inside one of our sections: never a new record
            _new_record(holder)
        buf = holder._buf
        if buf is None or not buf.shareable:
            return None
    finally:
        _lock.release()
    if observer is not None:
        observer.record("share", holder, buf, 0)
    return buf


def join_made(
    holder: Holder, make: Callable[[Any, Any], Any], arg: Any
) -> tuple[Any, Buffer | None]:
    """``(make(data, arg), record)``: a view made of ``holder``'s memory
    ``data`` and the record it joins, both under the lock, once no other
    thread writes ``holder`` in place: the view join's way when ``holder``'s
    memory keeps being replaced by other threads while the view is made
    without the lock (cowarray._core.values.view_of). The record is None,
    and the view a copy of the values, where the memory cannot be shared
    (exposed or foreign, or this is code re-entered inside a write)."""
    reentered = _lock._is_owned()
    _lock.acquire()
    try:
        waited = _wait_for_writer(holder, reentered)
        data = holder._data
        result = make(data, arg)
        if waited and not reentered and holder._buf is None:
            _new_record(holder)
        buf = holder._buf
        if not waited or reentered or buf is None or not buf.shareable:
            backend = holder._device.backend
            return backend.copy(result), None
    finally:
        _lock.release()
    if observer is not None:
        observer.record("share", holder, buf, 0)
    return result, buf


def _new_record(holder: Holder) -> None:
    # Under the lock. The allocation may run a collection whose callbacks
    # re-enter: they see this thread as the owner and copy instead of joining.
    # The fast writes go first, before anything can let another thread in:
    # a lock-free hand-over (values.take_over) reads them as "nobody is
    # sharing this memory", and one that ran before this line left the
    # holder poisoned, so the reads below raise instead of sharing.
    holder._fast_write = _NO_FAST_WRITE
    backend = holder._device.backend
    data = holder._data
    record = Buffer(data, backend)
    holder._donated = False
    holder._buf = record
    # The memory is about to be shared: a GPU backend notes the current
    # stream, so later copies see the values as of now.
    streams = STREAMS[backend]
    if streams is not None:
        streams.note_share(data)


@contextlib.contextmanager
def _settled(holder: Holder) -> Iterator[None]:
    """The lock, held while no other thread writes ``holder`` in place (for
    looking; code re-entered inside a write looks without waiting)."""
    reentered = _lock._is_owned()
    _lock.acquire()
    try:
        _wait_for_writer(holder, reentered)
        yield
    finally:
        _lock.release()


def settled_buffer(holder: Holder) -> Buffer | None:
    """The holder's record (None: private) once no other thread writes it."""
    with _settled(holder):
        buf = holder._buf
        return None if buf is not None and buf.writer else buf


def holder_count(holder: Holder) -> int:
    """How many holders (Arrays and NumPy exports) share ``holder``'s buffer."""
    with _settled(holder):
        if holder._buf is None or holder._buf.writer or not _gate(holder._buf):
            return 1  # (exposed and foreign memory has one holder: see _claim)
        return _count(holder) - _SOLE + 1


def state_of(holder: Holder) -> str:
    """``"private"``, ``"shared"``, ``"exposed"`` or ``"foreign"``."""
    with _settled(holder):
        if holder._buf is None or holder._buf.writer:
            return "private"
        if holder._buf.foreign:
            return "foreign"
        if holder._buf.exposures:
            return "exposed"
        return "shared" if _count(holder) > _SOLE else "private"


# -- writing -----------------------------------------------------------------

# How a write goes, decided under the lock by _claim().
_RETRY, _IN_PLACE, _COPY, _COPY_SHARED, _MOVE_TOGETHER = 0, 1, 2, 3, 4


#: :func:`write`'s ``beside``: ``(other, move, reader)``. ``other`` is a
#: holder that may go on sharing the memory while the holder writes it in
#: place, because the caller proved that the write leaves it right: it
#: cannot see the written bytes (``u[0] = u[1]``, rows 0 and 1), or the
#: statement running stores exactly these values into it next (``x`` in
#: ``x[k] += d``: cowarray._core.write). ``move``: True where, if ``other``
#: holds the memory with others too, ``other`` and the holder may first move
#: onto one copy of ``other``'s memory (:func:`_move_together`), the write
#: then going in place there; or ``(data, view, copy, moved)``, that copy
#: made ahead by the backend (``copy_with_view(data, view)`` of the memory
#: ``other`` and the holder held then, used only if they still do). ``reader``: ``(r, data)``, a
#: holder that reads ``data``, memory it shares with the two, and that the
#: caller proved disjoint from the elements written (``x[0:10] +=
#: x[10:20]``: the operand), or None.
Beside = tuple[Holder, Any, "tuple[Holder, Any] | None"]


def write(
    holder: Holder,
    apply: Callable[[Any, Any, Any], object],
    a: Any,
    b: Any,
    fast: frozenset[Any] = _NO_FAST_WRITE,
    beside: Beside | None = None,
    derive: Callable[[Any, Any, Any], Any] | None = None,
    must_copy: bool | None = None,
) -> None:
    """Run ``apply(target, a, b)`` on memory only ``holder`` sees.

    The sole holder of a writable view writes in place, fenced (see the
    module docstring). Anyone else first copies the region it views; the
    write goes into that copy, which replaces the holder's view only once the
    write has succeeded. ``fast``: the scalar types a later ``x[i] = v`` may
    write without the core, once the view is known private and writable.

    ``beside`` (:data:`Beside`): a holder the write may leave sharing the
    memory. If ``holder`` and it (and its reader, if that still reads the
    memory) are the memory's only holders, the write goes in place and the
    record is fenced for both, so that a clone of either waits for the write
    to end (design.md rule 12).

    ``derive``: where the write must go into a copy, ``derive(data, a, b)``
    gives the written copy in one pass instead (``x -= m`` on a shared ``x``
    computes ``data - m`` into new memory rather than copying ``data`` and
    then subtracting): it must return new memory that nobody else holds, of
    ``data``'s shape and dtype, or None to copy and apply after all.

    ``must_copy``: the backend's ``must_copy_before_write`` for the memory
    ``holder`` views now, where the caller asked it already.
    """
    backend = holder._device.backend
    asked = holder._data if must_copy is not None else None  # (the caller asked already)
    other, move, reader = beside if beside is not None else (None, False, None)
    while True:
        data = holder._data
        if data is asked:
            asked = None
        else:
            known = holder._fast_write  # non-empty: the core found this view private and writable
            must_copy = (
                False
                if known
                else backend.must_copy_before_write(data)  # may allocate: outside the lock
            )
        way, kept = _claim(holder, data, must_copy, other, move, reader)  # (tested for truth only)
        if way == _MOVE_TOGETHER:
            assert other is not None
            made, move = move, False  # (once: if the backend cannot, the write copies)
            # The old record stays referenced until the write ends: the
            # caller may hold the old memory as an operand (``x[k] += x``),
            # and its other holders must not write it in place meanwhile.
            left = _move_together(holder, other, made if type(made) is tuple else None)
            if left is not None:
                # The view of a fresh copy, with the strides of the view the
                # backend found writable: nothing to ask again.
                asked, must_copy = holder._data, False
            continue
        if way == _IN_PLACE:
            _write_in_place(holder, apply, a, b, kept, fast)
            return
        if way in (_COPY, _COPY_SHARED) and _write_to_copy(
            holder, data, apply, a, b, fast, way == _COPY_SHARED, derive, kept
        ):
            if kept is not None and holder._family is not None and apply is not unchanged:
                # Views of the family may keep the old memory: the elements
                # written (every one for an element-wise operation; a store's
                # or an update's at its index, a scattered one's span), so
                # that a view the write left alone is not reported (NumPy's
                # view would not differ).
                region = None if apply is apply_binary else backend.written_span(data, a)
                _families.note_base_moved(holder, kept, data if region is None else region)
            return
        # (not committed: another thread gave the holder new memory meanwhile)


def apply_binary(target: Any, function: Callable[..., Any], operand: Any) -> None:
    """:func:`write`'s ``apply`` for an element-wise operation over the whole
    memory: ``function(target, operand, out=target)``."""
    function(target, operand, out=target)


def unchanged(target: object, a: object, b: object) -> None:
    """:func:`write`'s ``apply`` that writes nothing: the holder only gets
    memory nobody else holds (its values unchanged, so no view differs)."""
    return None


def derive_binary(source: Any, function: Callable[..., Any], operand: Any) -> Any:
    """:func:`write`'s ``derive`` for :func:`apply_binary`: ``function(source,
    operand)`` as new memory, if that is what the write would leave (its
    dtype and shape; a fresh result, which nothing else holds); else None,
    and the write copies, then writes in place."""
    result = function(source, operand)
    if (
        type(result) is not type(source)
        or result.dtype != source.dtype
        or result.shape != source.shape
        or result.base is not None
    ):
        return None
    return result


def _claim(
    holder: Holder,
    data: Any,
    must_copy: object,
    beside: Holder | None = None,
    together: object = False,
    reader: tuple[Holder, Any] | None = None,
) -> tuple[int, Buffer | None]:
    """Under the lock: how ``holder`` writes ``data``, and the record it keeps.

    For an in-place write the holder's record slot is fenced with this
    thread's marker before the lock is released; the second value is the
    record to put back afterwards (exposed and foreign memory keep theirs,
    and so does memory ``beside`` goes on sharing: its record is fenced too).
    """
    marker = _markers.get(_get_ident()) or _marker()  # (no call once this thread has one)
    reentered = _lock._is_owned()
    _lock.acquire()
    try:
        # (no call when nobody writes the holder: the common case. The record
        # is read twice rather than held, as a local would count as a holder.)
        if reentered or (
            holder._buf is not None
            and holder._buf.writer
            and not _wait_for_writer(holder, reentered)
        ):
            return _COPY, None  # re-entered code never writes memory in place
        if _joiners and (
            _let_joiners_go_first(holder) or (beside is not None and _let_joiners_go_first(beside))
        ):
            # They may have shared it meanwhile: decide again. (Before the gate
            # closes: a joiner that found it closed would copy eagerly, and
            # could be copying while this write goes in place beside it.)
            return _RETRY, None
        if holder._data is not data:
            return _RETRY, None  # another write committed meanwhile: decide again
        if holder._buf is None:
            if must_copy:
                return _COPY, None
            holder._fast_write = _NO_FAST_WRITE
            holder._donated = False
            marker.fenced.append((holder, None))
            holder._buf = marker
            return _IN_PLACE, None
        # Close the gate, then count, holding no reference of our own (it
        # would count): the record is known by its id until the count is in.
        # Exposed and foreign memory has one holder by construction (it was
        # private when exposed or imported, and joins are refused since), so
        # it is not counted: a transient reference to its record (a local
        # variable on another thread) would make its writer copy the memory
        # away from the consumer that aliases it.
        record_id = id(holder._buf)
        exclusive = holder._buf.foreign or holder._buf.exposures != 0  # (not _gate, written out)
        holder._buf.shareable = False
        count = 0 if exclusive else _count(holder)
        sole = exclusive or count <= _SOLE
        buf = holder._buf
        if buf is None or id(buf) != record_id or holder._data is not data:
            # Code on this thread (a gc callback) wrote the holder while we
            # counted. The old record's gate stays closed: a closed gate only
            # costs its holders eager copies until one of them writes.
            return _RETRY, None
        if (
            not sole
            and beside is not None
            and count == _SOLE + 1 + (reader is not None and _stays(reader, buf, holder, beside))
            and beside._buf is buf
            and beside is not holder
            and not must_copy
            and not buf.read_only
            and not exclusive
        ):
            # The two holders are ``holder`` and ``beside`` (and ``reader``),
            # and the caller proved the write leaves them right: in place, with
            # the record fenced (their joiners wait for the write too).
            pages = PAGE_COW[holder._device.backend] if page_cow_was_on else None
            if pages is not None:
                pages.note_write_in_place(data)
            marker.fenced.append((holder, buf))  # (first: see _reset_after_fork)
            buf.writer = marker.writer
            holder._buf = marker
            return _IN_PLACE, buf
        if not sole or must_copy or buf.read_only:
            if (
                together
                and beside is not None
                and beside._buf is buf
                and beside is not holder
                and not must_copy
                and not buf.read_only
                and not exclusive
                and (page_cow_min is None or beside._data.nbytes < page_cow_min)
            ):
                # ``beside`` and ``holder`` hold the memory with others: they
                # move onto a copy of ``beside``'s first (write, then here again).
                # (Not where page COW is on and ``beside`` is big: the store
                # of a small region into it clones it page by page instead.)
                buf.shareable = _gate(buf)
                return _MOVE_TOGETHER, None
            # Only memory others hold, that this view may write, may be
            # cloned page by page (never re-entered code: see _claim's start).
            plain = not must_copy and not buf.read_only and _gate(buf)
            buf.shareable = _gate(buf)
            # (the record goes with the way: the copying writer holds it
            # until it commits, so nobody writes the memory in place meanwhile)
            return (_COPY_SHARED if plain else _COPY), buf
        keep = None if _gate(buf) else buf  # plain memory: the record is dropped
        if keep is None:
            # Memory shared until now is written in place from here on: a
            # page clone of it must copy its pages (the backend notes that).
            pages = PAGE_COW[holder._device.backend] if page_cow_was_on else None
            if pages is not None:
                pages.note_write_in_place(data)
        marker.fenced.append((holder, keep))
        holder._buf = marker
    finally:
        _lock.release()
    if keep is None and observer is not None:
        observer.record("takeover", holder, buf, 0)
    return _IN_PLACE, keep


def _stays(reader: tuple[Holder, Any], buf: Buffer, holder: Holder, beside: Holder) -> bool:
    """Under the lock: whether :func:`write`'s ``reader`` still reads the
    memory the caller proved it may go on reading (one more holder that stays)."""
    other, data = reader
    return other._buf is buf and other._data is data and other is not holder and other is not beside


def _write_in_place(
    holder: Holder,
    apply: Callable[[Any, Any, Any], object],
    a: Any,
    b: Any,
    kept: Buffer | None,
    fast: frozenset[Any],
) -> None:
    written = False
    try:
        apply(holder._data, a, b)
        written = True
    finally:
        # Only plain stores: code re-entered here finds this thread's marker
        # and copies, so this section needs no re-entrance test of its own.
        # The fence comes off the marker's list last: a fork that stops this
        # thread anywhere in here leaves the child's reset the entry, which
        # it puts back (an entry popped first, with the holder still fenced,
        # left a forked child's clone of it waiting for a thread it has not).
        _lock.acquire()  # (as Buffer.release: a with statement adds the protocol's two calls)
        try:
            holder._buf = kept
            if kept is not None:
                kept.writer = 0  # (a record fenced for a holder beside this one)
                kept.shareable = not kept.foreign and not kept.exposures  # (_gate, written out)
            elif written and FAST_WRITES:
                holder._fast_write = fast
                holder._donated = False
            fenced = _markers[_get_ident()].fenced
            fenced.pop()  # this thread's innermost write
            if _waiting:
                _write_ended.notify_all()
        finally:
            _lock.release()
        if _threads.DEFERRED and not fenced:
            _threads.run_deferred()  # (a thread pool's start, put off until now)


def _write_to_copy(
    holder: Holder,
    data: Any,
    apply: Callable[[Any, Any, Any], object],
    a: Any,
    b: Any,
    fast: frozenset[Any],
    shared: bool = False,
    derive: Callable[[Any, Any, Any], Any] | None = None,
    held: Buffer | None = None,
) -> bool:
    # ``data`` is shared (nobody writes it in place) or not writable: copy
    # it, write the copy, and commit only once both have succeeded. ``held``,
    # the record ``_claim`` counted, is a holder of ``data`` until this
    # returns: another thread's writer of ``holder`` then copies too, rather
    # than writing ``data`` in place while it is copied here. The commit
    # happens only if ``holder`` still holds ``data`` (False: another thread
    # committed new memory meanwhile, and the caller decides again, so
    # neither write is lost: an export's copy, on another thread, lost the
    # owner's write).
    backend = holder._device.backend
    copy = None
    pages = None
    if shared and page_cow_min is not None and apply is operator.setitem:
        pages = PAGE_COW[backend]  # (None: the backend cannot)
        if pages is not None:
            copy = _page_clone(pages, data, a, page_cow_min)
    if copy is not None:
        assert pages is not None
        apply(copy, a, b)
        nbytes = pages.page_copied_bytes(copy, a)  # the pages the kernel copied
    else:
        if derive is not None:
            copy = derive(data, a, b)  # (the copy and the write in one pass)
        if copy is None:
            copy = backend.copy(data)
            apply(copy, a, b)
        nbytes = copy.nbytes
    old = holder._buf
    if not _commit(holder, copy, fast, None, data):
        return False
    if observer is not None:
        try:
            observer.record("materialize", holder, old, nbytes)
        except BaseException:
            # A CopyWarning turned into an error refuses the write: the
            # holder gets back the value (and the sharing) it had.
            _commit(holder, data, _NO_FAST_WRITE, old)
            raise
    COUNTERS.add(nbytes)
    return True


def _page_clone(backend: Any, data: Any, index: Any, minimum: int) -> Any:
    """A clone of ``data`` that the OS copies page by page, if ``data[index] = v``
    is sparse enough in a big enough view and the backend can make one."""
    if data.nbytes < minimum:
        return None
    touched, spanned = backend.page_write_extent(data, index)
    if not spanned or touched > spanned * PAGE_WRITE_FRACTION:
        return None
    return backend.page_clone(data)


def _commit(
    holder: Holder,
    data: Any,
    fast: frozenset[Any],
    record: Buffer | None = None,
    over: Any = None,
) -> bool:
    """Make ``data`` the holder's memory, with ``record`` (None: fresh memory);
    given ``over``, only if the holder still holds that memory. Whether it did."""
    reentered = _lock._is_owned()
    _lock.acquire()
    try:
        if over is not None and holder._data is not over:
            return False
        _store(holder, data, record, fast, reentered)
        return True
    finally:
        _lock.release()


def _store(
    holder: Holder, data: Any, record: Buffer | None, fast: frozenset[Any], reentered: bool
) -> None:
    """Under the lock: ``data`` and ``record`` become the holder's.

    The record slot is written first: a lock-free joiner reads the slot, then
    the data, then the slot again. A writing marker in the slot stays: the
    write it fences (interrupted by this code, or another thread's racing
    write of the same array) puts the right record back when it ends.
    """
    if type(data) is not holder._device.backend.array_type:
        # A ufunc of 0-d arrays returns a scalar, not an array: an Array
        # holds only arrays (its exports view them; a scalar's memory is freed
        # with it). The one store of a value computed elsewhere converts here.
        data = holder._device.backend.plain_asarray(data)
    if holder._buf is None or not holder._buf.writer:
        holder._buf = record
    holder._data = data
    holder._fast_write = fast if FAST_WRITES and not reentered else _NO_FAST_WRITE
    holder._donated = False
    if _waiting:
        _write_ended.notify_all()


def replace(holder: Holder, result: Any, fast: frozenset[type] = _NO_FAST_WRITE) -> bool:
    """Give ``holder`` the value ``result``, computed out of place, without a copy.

    True if done. If others shared the holder's memory this is the holder's
    materialization (counted and shown as one: the new value took the place
    of the region it would have copied). False for memory that outside code
    aliases on purpose (exposed to or imported from a DLPack peer): the
    caller writes it in place through :func:`write`, so the peer sees it.
    """
    reentered = _lock._is_owned()
    _lock.acquire()
    try:
        _wait_for_writer(holder, reentered)
        shared = False
        if holder._buf is not None and not holder._buf.writer:
            if not _gate(holder._buf):
                return False
            shared = _count(holder) > _SOLE  # counted before ``buf`` holds it too
        buf = holder._buf
        old_data = holder._data
        _store(holder, result, None, fast, reentered)
    finally:
        _lock.release()
    if shared:
        nbytes = result.nbytes
        if observer is not None:
            try:
                observer.record("materialize", holder, buf, nbytes)
            except BaseException:
                _commit(holder, old_data, _NO_FAST_WRITE, buf)  # refused: as it was
                raise
        COUNTERS.add(nbytes)
        if holder._family is not None and buf is not None:
            _families.note_base_moved(holder, buf, old_data)  # (views may keep buf)
    return True


def _move_together(
    view: Holder, parent: Holder, made: tuple[Any, Any, Any, Any] | None
) -> Buffer | None:
    """Give ``parent`` (``x``) a copy of its memory and ``view`` (``t``, a
    view of it) the same elements of that copy, in one section, under a new
    record they alone hold: where :func:`_claim` found others sharing their
    memory before the write of ``t`` beside ``x`` (``x = x.copy()`` and then
    ``x[k] += d``), after which the write goes in place.

    Nothing changes unless the backend can make the view
    (``copy_with_view``), the shared record is plain (not exposed, foreign or
    read-only; no writer, no waiting joiner) and both still hold it with
    the memory read before the copy. The copy is made outside the lock
    (it may run collections); the record's other holders keep the old
    memory, which nobody writes in place while they share it, so the copy
    holds what ``x`` and ``t`` held. The new record's gate stays closed
    until both holders hold it with the new memory: a lock-free joiner
    reads the slot, the data, then the slot again, and code re-entered
    between two stores (a tracer's line event) would otherwise find the new
    record with the old memory. Returns the old record (None if nothing
    moved), which the caller holds until its write ends.
    """
    backend = parent._device.backend
    old, region = parent._data, view._data
    if made is None or made[0] is not old or made[1] is not region:
        # (none made ahead, or made of memory they no longer hold)
        made = backend.copy_with_view(old, region)
        if made is None:
            return None
        made = (old, region, *made)
    _, _, copy, moved = made
    record = Buffer(copy, backend)
    record.shareable = False  # (opened once both hold it)
    reentered = _lock._is_owned()
    _lock.acquire()
    try:
        shared = parent._buf
        if (
            reentered
            or shared is None
            or view._buf is not shared
            or shared.writer
            or shared.foreign
            or shared.exposures
            or shared.read_only
            or not shared.shareable
            or parent._data is not old
            or view._data is not region
            or (_joiners and (id(parent) in _joiners or id(view) in _joiners))
        ):
            return None
        _store(parent, copy, record, _NO_FAST_WRITE, reentered)
        _store(view, moved, record, _NO_FAST_WRITE, reentered)
        record.shareable = True
        streams = STREAMS[backend]
        if streams is not None:
            streams.note_share(copy)
    finally:
        _lock.release()
    del record  # (the two holders' references are the count from here on)
    nbytes = copy.nbytes
    if observer is not None:
        try:
            observer.record("materialize", parent, shared, nbytes)
        except BaseException:
            # A CopyWarning turned into an error refuses the copy: both go
            # back to the memory and the record they shared.
            _commit(parent, old, _NO_FAST_WRITE, shared)
            _commit(view, region, _NO_FAST_WRITE, shared)
            raise
    COUNTERS.add(nbytes)
    return shared


def reclaim(holder: Holder, fast: frozenset[Any]) -> bool:
    """Drop the record of a holder that nobody shares any more and give it
    ``fast`` (:func:`cowarray._core.values.fast_writes`): True if done.

    A view that wrote its parent's memory beside it (``x[a:b] += d``, see
    :func:`write`) leaves the parent a record after the view has died, and
    nothing tells the record of that death. Without this, the parent's next
    ``x[i] = v`` took the whole write path to find itself alone; after it,
    that write and the ones that follow skip the core. The decision is
    ``_claim``'s for a sole holder (gate closed, then counted), without a
    write: plain memory (not exposed, foreign or read-only), no writer, no
    waiting joiner, a view the backend lets us write, and never re-entered
    code. False leaves everything as it was (the gate open again).
    """
    if not fast or not FAST_WRITES:
        return False
    backend = holder._device.backend
    data = holder._data
    if backend.must_copy_before_write(data):  # (may allocate: outside the lock)
        return False
    reentered = _lock._is_owned()
    _lock.acquire()
    try:
        if (
            reentered
            or holder._buf is None
            or holder._buf.writer
            or holder._buf.foreign  # (not _gate, written out)
            or holder._buf.exposures
            or holder._buf.read_only
            or holder._data is not data
            or (_joiners and id(holder) in _joiners)
        ):
            return False
        # Close the gate, then count, holding no reference of our own.
        record_id = id(holder._buf)
        holder._buf.shareable = False
        count = _count(holder)
        buf = holder._buf
        if buf is None or id(buf) != record_id or holder._data is not data:
            return False  # a gc callback wrote the holder meanwhile (as in _claim)
        if count > _SOLE:
            buf.shareable = True  # (its gate was open: not exposed, not foreign)
            return False
        pages = PAGE_COW[backend] if page_cow_was_on else None
        if pages is not None:
            pages.note_write_in_place(data)  # written in place from here on
        holder._buf = None
        holder._fast_write = fast
        holder._donated = False
    finally:
        _lock.release()
    if observer is not None:
        observer.record("takeover", holder, buf, 0)
    return True


def hand_over(holder: Holder, poison: Any) -> tuple[Any, Buffer | None, frozenset[Any]]:
    """``holder``'s data, record and fast writes, handed over in one step.

    ``holder`` is left with ``poison`` as its data and device, so any later
    use fails; no joiner can see it between. The fast writes go with the
    memory: under the lock, a non-empty set still means what it meant for
    ``holder`` (private, writable, nobody joining). Code re-entered inside
    a section of this thread (a gc callback or ``__del__`` that moves an
    array being cloned) gets a copy of the data instead: the section it
    interrupted may be sharing that memory right now.
    """
    reentered = _lock._is_owned()
    _lock.acquire()
    try:
        # (no call when nobody writes the holder; the record is not held, as in _claim)
        if (
            holder._buf is not None
            and holder._buf.writer
            and not _wait_for_writer(holder, reentered)
        ):
            raise ValueError(
                "cowarray.move(x) cannot run inside a write of x (a gc callback or __del__)"
            )
        taken = holder._data, holder._buf, holder._fast_write
        if reentered and taken[0] is not poison:
            copied = holder._device.backend.copy(taken[0])
            count_eager_copy(holder, taken[1], int(copied.nbytes))
            taken = copied, None, _NO_FAST_WRITE
        holder._data = poison
        holder._device = poison
        holder._buf = None
        holder._fast_write = _NO_FAST_WRITE
        holder._donated = False
        return taken
    finally:
        _lock.release()


def hand_over_private(holder: Holder, poison: Any) -> Any:
    """``holder``'s data, handed over as :func:`hand_over` does; None, with
    nothing done, unless the memory is private (no record: nobody shares,
    exposed or imported it), tested under the lock, and this is not code
    re-entered inside a section of this thread."""
    reentered = _lock._is_owned()
    _lock.acquire()
    try:
        if reentered or holder._buf is not None:
            return None  # re-entered code, or memory with a record
        data = holder._data
        holder._data = poison
        holder._device = poison
        holder._fast_write = _NO_FAST_WRITE
        holder._donated = False
        return data
    finally:
        _lock.release()


def count_eager_copy(holder: Holder, buffer: Buffer | None, nbytes: int) -> None:
    """Count (and show the observer) a copy made because ``buffer`` could not be
    shared lazily (exposed or foreign): ``holder``, a new array, holds the copy."""
    if observer is not None:
        observer.record("eager_copy", holder, buffer, nbytes)
    COUNTERS.add(nbytes)


def count_copy(kind: str, holder: Holder, nbytes: int) -> None:
    """Count (and show the observer) a copy made outside a write: ``kind`` is
    ``"import_copy"`` (``holder``, a new array, holds the copy) or
    ``"export_copy"`` (``holder``'s values were copied out for a consumer).

    The observer comes first: a warning turned into an error refuses the
    copy, which is then not counted. An empty copy counts nothing.
    """
    if not nbytes:
        return
    if observer is not None:
        observer.record(kind, holder, None, nbytes)
    COUNTERS.add(nbytes)


def notify(kind: str, holder: Holder | None, buffer: Buffer | None, nbytes: int) -> None:
    """Tell the observer, if any, about an event the core does not see itself."""
    if observer is not None:
        observer.record(kind, holder, buffer, nbytes)
