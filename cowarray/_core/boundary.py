"""The boundary: memory lent to, or borrowed from, another library.

One registry (:data:`REGIONS`) holds every exposure (an export:
``__dlpack__``, ``np.asarray``, ``to_torch``) from before its consumer has
the memory until the consumer lets it go, and every foreign record (an
import) until the record dies; imports check it so that two cowarray values
never alias one memory. Every exposure ends the one way: the release made by
:func:`expose`, called once, by whoever notices first that the consumer let
go (the object it was given dies: cowarray._deaths; a DLPack deleter; the
export failing), which ends the entry and the record's exposure.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from .._deaths import call_at_death
from .._interpreter import Location
from . import cow, families, write
from .values import Array, imported, views_token

if TYPE_CHECKING:
    from .._backends.base import Backend

__all__ = [
    "REGIONS",
    "export_site",
    "expose",
    "exposed_view",
    "family_export",
    "family_export_until_death",
    "import_foreign",
]


class _Regions:
    """Memory that something outside cowarray may alias, for imports to check.

    One entry per *exposure* (an export: ``__dlpack__``, ``np.asarray``,
    ``to_torch``), from before the consumer has the memory until it releases
    it, and one per *foreign* record (an import), until the record dies. An
    entry keeps the backend array that crossed and its record weakly (a
    strong reference would count as a holder); it counts while that record
    lives. An import asks the backend whether its memory may share memory
    with each entry's (NumPy answers from the bounds, in C), so nothing
    computes an address range in Python (``byte_bounds`` cost 3 us).

    No lock: entries come and go by single dict operations, each release
    removes only its own entry, and an import enters its memory *before* it
    checks the others (:meth:`enter_foreign`). Of two imports of one producer
    at once (threads, or a gc callback inside an import) the later check sees
    the earlier entry, so at most one aliases the producer and the other
    copies; both copy if each sees the other. (Checking first and entering
    after let two threads alias each other: 3 pairs in 300 tries at a switch
    interval of 1 us, tests/interop/test_torch_bridge_attacks.py.)
    """

    def __init__(self) -> None:
        #: key -> (weak ref to the record, backend, backend array, what the
        #: key is the id of: a release callback, a weak reference)
        self.entries: dict[int, tuple[Any, ...]] = {}

    def add_exposure(
        self,
        key: int,
        record: weakref.ref[cow.Buffer],
        backend: Backend,
        data: Any,
        keep: object,
    ) -> None:
        """Enter exposed ``data`` under ``key`` (the id of ``keep``) until :meth:`end`."""
        self.entries[key] = (record, backend, data, keep)

    def end(self, key: int) -> tuple[Any, ...] | None:
        """Remove an exposure's entry: it, or None if there was none."""
        return self.entries.pop(key, None)

    def add_foreign(self, buf: cow.Buffer, backend: Backend, data: Any) -> int:
        """Enter ``buf``'s memory until ``buf`` dies; the entry's key."""
        reference = weakref.ref(buf, _forget_record)
        key = id(reference)
        self.entries[key] = (reference, backend, data, reference)
        return key

    def enter_foreign(self, buf: cow.Buffer, backend: Backend, data: Any) -> bool:
        """Enter ``buf``, a new foreign record of ``data``, unless ``data``
        overlaps another entry: then nothing is entered and the import copies."""
        key = self.add_foreign(buf, backend, data)
        if self.overlaps(backend, data, besides=key):
            self.entries.pop(key, None)
            return False
        return True

    def overlaps(self, backend: Backend, data: Any, besides: int = 0) -> bool:
        """Whether ``data`` may share memory with an entry (other than ``besides``)."""
        entries = self.entries
        others = len(entries) - (besides in entries)
        if not others or not data.size:
            return False
        # dict.copy() is one step on every build (the free-threaded one locks
        # the dict for it); iterating entries.items() while another thread adds
        # or ends an entry raised RuntimeError on 3.13t.
        for key, (reference, owner, exported, _) in entries.copy().items():
            if (
                owner is backend
                and key != besides
                and backend.may_share_memory(exported, data)
                and reference() is not None
            ):
                return True
        return False


REGIONS: Final = _Regions()


def _forget_record(reference: weakref.ref[Any], entries: dict[int, Any] = REGIONS.entries) -> None:
    # A foreign record died. (The dict bound as a default: at exit module
    # globals may already be gone.)
    entries.pop(id(reference), None)


def expose(
    x: Array,
    consumer_of: Callable[[Any, Callable[[], None]], Any],
    *,
    copy_allowed: bool,
    consumer: str,
) -> Any:
    """What ``consumer_of(data, release)`` makes of ``x``'s memory, exposed to it."""
    backend = x._device.backend
    # Private memory, exposed in the same step: from here no clone shares it.
    record = write.expose(x, copy_allowed=copy_allowed, consumer=consumer)
    data = x._data
    release = _release_callback(record, int(data.nbytes))
    # Entered before the consumer has the memory, ended by its release.
    REGIONS.add_exposure(id(release), record, backend, data, release)
    try:
        handed_out = consumer_of(data, release)
    except BaseException:
        release()  # no consumer after all
        raise
    if cow.observer is not None:  # (x._buf read here would count as a holder meanwhile)
        cow.notify("export", x, record(), int(data.nbytes))
    return handed_out


def _release_callback(reference: weakref.ref[cow.Buffer], nbytes: int) -> Callable[[], None]:
    # Holds the record weakly: a strong reference would count as a holder.
    # What it calls is bound as defaults: the last export can die at
    # interpreter exit, when module globals may already be None.
    def release(entries: dict[int, Any] = REGIONS.entries, end: Any = _end_exposure) -> None:
        if entries.pop(id(release), None) is not None:  # (once, whoever calls it)
            end(reference, nbytes)

    return release


def _end_exposure(reference: weakref.ref[cow.Buffer], nbytes: int, cow: Any = cow) -> None:
    # (the module bound as a default: a release can run at exit, when module
    # globals may already be gone)
    buf = reference()
    if buf is None:
        return  # its last array is gone; no cowarray value sees this memory
    buf.release()
    if cow.observer is not None:
        cow.notify("exposure_end", None, buf, nbytes)


def exposed_view(x: Array, consumer: str) -> Any:
    """A new view of ``x``'s memory, exposed (rule 5) until that view object dies.

    For a consumer that keeps exactly the object it is given for as long as
    it uses the memory, and nothing else of it: ``torch.from_numpy`` keeps
    the ndarray in the tensor's storage and drops it when the storage dies.
    (A NumPy view derived from the result points at the memory's owner, not
    at the result, so the result is no NumPy export: that is
    cowarray._dlpack.export_to_numpy.) What :func:`expose` does, written out
    for ``to_torch``'s sake (two calls fewer), with the same release.
    """
    if families.PENDING:
        families.flush()
    record = write.expose(x, copy_allowed=True, consumer=consumer)
    data = x._data
    view = data.view()
    release = _release_callback(record, int(data.nbytes))
    _ENTRIES[id(release)] = (record, x._device.backend, data, release)  # REGIONS.add_exposure
    call_at_death(view, release)
    if cow.observer is not None:
        cow.notify("export", x, x._buf, int(data.nbytes))
    return view


_ENTRIES: Final = REGIONS.entries


# -- imports: foreign memory -----------------------------------------------------------


def import_foreign(data: Any, device: Any, read_only: bool) -> Any:
    """An Array aliasing ``data``, memory another library owns (a zero-copy
    import), under a new *foreign* record: never written in place while a
    clone shares it, never shared without a copy. None, with nothing
    entered, where ``data`` lies inside memory a cowarray value holds
    (exposed or foreign already): a second alias would let one value change
    another, so the caller copies or refuses. ``read_only``: the producer
    said its memory must not be written (every write then copies first).
    """
    backend = device.backend
    buf = cow.Buffer(data, backend, foreign=True, read_only=read_only)
    # All we know of the producer's memory is the part it handed over.
    buf.nbytes = nbytes = int(data.nbytes)
    if not REGIONS.enter_foreign(buf, backend, data):
        return None
    array = imported(data, buf, device)
    del buf  # a record held here would count as a holder
    if cow.observer is not None:
        cow.notify("import", array, array._buf, nbytes)
    return array


# -- exports counted in a view family ----------------------------------------------------


def export_site(x: Array, skip: tuple[str, ...] = ()) -> Location | None:
    """The line exporting ``x`` (the first frame outside cowarray, and
    outside functions named in ``skip``: a consumer's own ``from_dlpack``),
    if ``x`` is a view whose family lives, so that its consumer's writes
    would reach that family in NumPy; else None. Read before the export."""
    if not families.lives_beside_its_family(x):
        return None
    return families.writing_location(skip=skip)


def family_export(
    x: Array, data: Any, xp: Any, where: Location | None, through: str
) -> Callable[[], None]:
    """Count an export of ``x``'s memory (``data``, what the consumer gets)
    in ``x``'s view family until the returned ``end()`` runs (the consumer's
    release, or the death of what it keeps). Where ``where`` is given
    (:func:`export_site`), ``data`` is compared with a snapshot then, and a
    write is reported as a view write through ``through`` at that line.
    ``end`` may run more than once, at exit, or in a gc callback."""
    family = views_token(x)
    watch = None if where is None else families.watch_export(data, xp, where, through)

    def end(family: object = family, finish: Any = families.end_watch) -> None:
        # (the family token held until now; what it calls bound as defaults:
        # an export can be let go at exit)
        if watch is not None:
            finish(watch)

    return end


#: id of a weak reference to an exported object whose death is its release
#: -> (that reference, the view family token it holds, its watch or None),
#: kept until the reference fires (:func:`family_export_until_death`).
_UNTIL_DEATH: Final[dict[int, tuple[Any, object, Any]]] = {}


def family_export_until_death(
    exported: Any, x: Array, data: Any, xp: Any, where: Location | None, through: str
) -> None:
    """:func:`family_export`, ended when ``exported`` dies: for a consumer
    that keeps exactly the object it is given for as long as it uses the
    memory (``torch.from_numpy``). One weak reference, no closure: a fifth
    of ``to_torch(x[a:b])`` went to the bookkeeping of an export."""
    watch = None if where is None else families.watch_export(data, xp, where, through)
    reference = weakref.ref(exported, _export_died)
    _UNTIL_DEATH[id(reference)] = (reference, views_token(x), watch)


def _export_died(
    reference: Any,
    entries: dict[int, tuple[Any, object, Any]] = _UNTIL_DEATH,
    end: Any = families.end_watch,
) -> None:
    # (globals bound as defaults: an export can die at exit)
    entry = entries.pop(id(reference), None)
    if entry is not None and entry[2] is not None:
        end(entry[2])
