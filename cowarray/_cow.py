"""The copy-on-write core: buffers, holders, and the one decision before a write.

Rules enforced here (DESIGN.md §1, rules 2, 3 and 7):

* A *buffer* is a block of memory; each Array that views it is a *holder*.
  A buffer gets a record (:class:`Buffer`) only when a second holder appears
  (a lazy clone, a view, a NumPy export); until then its single Array is
  trivially the sole holder and pays nothing.
* Holders are counted by CPython itself: every holder keeps one strong
  reference to the record, and nobody else keeps one for long (observers use
  weak references). ``sys.getrefcount`` is therefore an exact, atomic holder
  count: it drops the moment an Array is collected, with no ``__del__``, no
  ``weakref.finalize`` and no lock on the clone path. A transient extra
  reference (another thread inside this module) can only make the count
  higher, which costs at most an extra copy, never a wrong value.
* Before a write, :func:`write` checks the writer's count. Sole holder: write
  in place. Otherwise copy only the region the writer views into a new compact
  buffer, apply the write there, and only then swap it in, so a write that
  raises commits nothing. A writer whose view cannot be written in place
  (read-only memory, a broadcast view) always copies first.
* States: *private* (one holder), *shared* (several), *exposed* (a DLPack
  consumer may write it) and *foreign* (imported; its producer may write it).
  Exposed and foreign buffers are never shared lazily: :func:`share` refuses
  and the caller copies eagerly.

This module knows nothing of operations or of NumPy versus CuPy: it calls the
holder's device backend for the one thing it needs, a bulk copy.
"""

from __future__ import annotations

import itertools
import sys
import threading
import weakref
from collections.abc import Callable
from typing import Any, Final, Protocol

__all__ = [
    "COUNTERS",
    "Buffer",
    "Holder",
    "Observer",
    "count_eager_copy",
    "holder_count",
    "notify",
    "share",
    "state_of",
    "write",
]

_getrefcount = sys.getrefcount
_next_buffer_id = itertools.count(1).__next__  # atomic under the GIL
# id(owner) -> (weak reference to owner, buffer id). NumPy arrays are not
# hashable, so they cannot key a WeakKeyDictionary; the weak reference's
# callback drops the entry when the owner dies, before its id can be reused.
_ids_by_owner: dict[int, tuple[weakref.ref[Any], int]] = {}
# Re-entrant: the weak reference made under it allocates, a collection can
# end a DLPack exposure, and a tracing observer then asks that buffer's id.
_ids_lock = threading.RLock()


def _forget_owner(key: int) -> Callable[[weakref.ref[Any]], None]:
    def forget(_: weakref.ref[Any]) -> None:
        _ids_by_owner.pop(key, None)

    return forget


def _stable_id(owner: object) -> int:
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
    """What the core needs of an Array: its view, record, device, fast-write set.

    ``_fast_write`` lets the Array skip this module for plain scalar writes;
    it must be empty whenever a record exists, so :func:`attach` empties it
    before any second holder can appear. Whether a view can be written in
    place (read-only memory, broadcast views) is asked of the backend at write
    time, so creating views stays cheap.
    """

    _data: Any
    _buf: Buffer | None
    _device: Any
    _fast_write: frozenset[type]


class Buffer:
    """The sharing record of one block of memory.

    Holders are counted by reference count (see the module docstring); the
    record itself stores only what a count cannot tell. A record whose last
    holder writes is dropped (the holder goes back to the record-free fast
    path); the memory keeps its :attr:`id`, which is tied to the memory's
    owner object, not to the record.
    """

    __slots__ = (
        "__weakref__",
        "_id",
        "exposures",
        "foreign",
        "nbytes",
        "owner",
        "read_only",
        "shareable",
    )

    def __init__(
        self, owner: object, nbytes: int, *, foreign: bool = False, read_only: bool = False
    ) -> None:
        #: The object that owns the memory (NumPy ``base``, a CuPy memory).
        self.owner = owner
        self.nbytes: int = nbytes
        #: Imported memory that its producer may write.
        self.foreign: bool = foreign
        #: Memory nobody may write in place, though the backend array would allow
        #: it (a read-only DLPack import on a backend without read-only arrays).
        self.read_only: bool = read_only
        #: How many DLPack consumers currently hold this memory.
        self.exposures: int = 0
        #: False while exposed or foreign: new holders must copy eagerly.
        self.shareable: bool = not foreign
        self._id: int = 0

    @property
    def id(self) -> int:
        """A stable id for the memory, never reused in this process."""
        if not self._id:
            self._id = _stable_id(self.owner)
        return self._id

    def expose(self) -> None:
        """Count one more DLPack consumer of this memory."""
        with _record_lock:
            self.exposures += 1
            self.shareable = False

    def release(self) -> None:
        """Count one DLPack consumer less; lazy sharing resumes at zero."""
        with _record_lock:
            self.exposures -= 1
            self.shareable = self.exposures == 0 and not self.foreign

    def __repr__(self) -> str:
        return f"<cowarray buffer #{self.id}, {self.nbytes} bytes>"


class Observer(Protocol):
    """Receives the core's events while somebody is looking (debug.trace).

    ``kind`` is one of ``"share"`` (a new holder joins ``buffer``),
    ``"materialize"`` (``holder`` wrote, copying ``nbytes`` out of ``buffer``),
    ``"eager_copy"`` (``holder`` was given a copy of ``nbytes`` because
    ``buffer`` could not be shared: exposed or foreign), ``"takeover"`` (the
    last holder writes ``buffer`` in place), ``"export"``, ``"import"`` and
    ``"exposure_end"`` (DLPack). If ``record`` raises for a copy (a warning
    turned into an error), the copy is dropped and ``holder`` keeps its value.
    """

    def record(
        self, kind: str, holder: Holder | None, buffer: Buffer | None, nbytes: int
    ) -> None: ...


#: The one flag tested on hot paths: None unless something is observing.
observer: Observer | None = None

# Re-entrant: a garbage collection inside a locked section (any allocation)
# can end a DLPack exposure, whose release takes this lock on the same thread.
_record_lock = threading.RLock()
_NO_FAST_WRITE: Final[frozenset[type]] = frozenset()
_counter_lock = threading.Lock()


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

    def reset(self) -> None:
        with _counter_lock:
            self.copies = 0
            self.bytes_copied = 0


COUNTERS: Final = _Counters()


class _Probe:
    __slots__ = ("_buf",)
    _buf: Buffer


def _sole_refcount() -> int:
    # The reference count ``getrefcount(holder._buf)`` shows for a record with
    # exactly one holder. Measured with the same expression used in write(),
    # so interpreter changes in how arguments are counted cannot skew it.
    probe = _Probe()
    probe._buf = Buffer(None, 0)
    return _getrefcount(probe._buf)


_SOLE: Final = _sole_refcount()


def holder_count(holder: Holder) -> int:
    """How many holders (Arrays and NumPy exports) share ``holder``'s buffer."""
    if holder._buf is None:
        return 1
    return _getrefcount(holder._buf) - _SOLE + 1


def state_of(holder: Holder) -> str:
    """``"private"``, ``"shared"``, ``"exposed"`` or ``"foreign"``."""
    buf = holder._buf
    if buf is None:
        return "private"
    if buf.foreign:
        return "foreign"
    if buf.exposures:
        return "exposed"
    # ``buf`` is one more reference than holder_count() sees.
    return "shared" if _getrefcount(buf) - 1 > _SOLE else "private"


def attach(holder: Holder) -> Buffer:
    """The holder's record, created on first need (thread-safe, once).

    The record is built outside the lock: building it allocates, an
    allocation can run the garbage collector, and a collected DLPack consumer
    releases its exposure under the same lock.
    """
    buf = holder._buf
    if buf is None:
        backend = holder._device.backend
        data = holder._data
        candidate = Buffer(backend.memory_owner(data), backend.owner_nbytes(data))
        with _record_lock:
            buf = holder._buf
            if buf is None:
                holder._fast_write = _NO_FAST_WRITE
                holder._buf = buf = candidate
                created = True
            else:
                created = False  # another thread attached first: use its record
        if created:
            # The memory is about to be shared: a GPU backend notes the
            # current stream, so later copies see the values as of now.
            backend.note_share(data)
    return buf


def share(holder: Holder) -> Buffer | None:
    """The record a new holder of ``holder``'s memory joins, or None.

    None means the memory is exposed or foreign: the caller must give the new
    array its own copy, so no other cowarray value can see an outside write.
    """
    buf = holder._buf
    if buf is None:
        buf = attach(holder)
    if not buf.shareable:
        return None
    if observer is not None:
        observer.record("share", holder, buf, 0)
    return buf


def write(holder: Holder, apply: Callable[[Any, Any, Any], object], a: Any, b: Any) -> None:
    """Run ``apply(target, a, b)`` on memory only ``holder`` sees.

    The sole holder of a writable view writes in place. Anyone else first
    copies the region it views; the write goes into that copy, which replaces
    the holder's view only once the write has succeeded.
    """
    if holder._buf is None:
        if holder._fast_write or not holder._device.backend.must_copy_before_write(holder._data):
            apply(holder._data, a, b)
            return
    elif _getrefcount(holder._buf) <= _SOLE and not _take_over(holder):
        apply(holder._data, a, b)
        return
    _write_to_copy(holder, apply, a, b)


def _take_over(holder: Holder) -> bool:
    """The last holder keeps the memory; True if its view must still be copied."""
    buf = holder._buf
    assert buf is not None
    must_copy: bool = buf.read_only or holder._device.backend.must_copy_before_write(holder._data)
    if observer is not None and not must_copy:
        observer.record("takeover", holder, buf, 0)
    if buf.shareable and not must_copy:
        # Plain memory with one holder: forget the record, so later writes
        # take the record-free path. The memory keeps its id.
        holder._buf = None
    return must_copy


def _write_to_copy(
    holder: Holder, apply: Callable[[Any, Any, Any], object], a: Any, b: Any
) -> None:
    copy = holder._device.backend.copy(holder._data)
    apply(copy, a, b)
    old_data, old = holder._data, holder._buf
    holder._data = copy
    holder._buf = None
    nbytes = copy.nbytes
    if observer is not None:
        try:
            observer.record("materialize", holder, old, nbytes)
        except BaseException:
            # A CopyWarning turned into an error refuses the write: the
            # holder keeps the value (and the sharing) it had.
            holder._data, holder._buf = old_data, old
            raise
    COUNTERS.add(nbytes)


def count_eager_copy(holder: Holder, buffer: Buffer | None, nbytes: int) -> None:
    """Count (and show the observer) a copy made because ``buffer`` could not be
    shared lazily (exposed or foreign): ``holder``, a new array, holds the copy."""
    if observer is not None:
        observer.record("eager_copy", holder, buffer, nbytes)
    COUNTERS.add(nbytes)


def notify(kind: str, holder: Holder | None, buffer: Buffer | None, nbytes: int) -> None:
    """Tell the observer, if any, about an event the core does not see itself."""
    if observer is not None:
        observer.record(kind, holder, buffer, nbytes)


def make_private(holder: Holder) -> None:
    """Give ``holder`` memory nobody else holds, copying its region if needed."""
    write(holder, _nothing, None, None)


def _nothing(target: object, a: object, b: object) -> None:
    return None
