"""Watching the core: trace(), copy counters and copy warnings.

The core calls ``cow.observer.record(kind, holder, buffer, nbytes)`` only
while ``cow.observer`` is not None, and this module sets it (through
``cow.set_observer``) only while a :func:`trace` is recording or
:func:`warn_on_copy` is on. Nobody looking means ``cow.observer is None``
(and ``cow.joins_unobserved`` for the view paths): the hot paths pay that
one test and nothing else.

The observer never keeps a holder or a buffer: it turns each event into a
:class:`TraceEvent` (ids, shapes, numbers) at once, because holders are
counted by reference count and a kept reference would count as a holder.

Traces and the warning switch are process-wide: a trace records the events of
every thread (each event names its thread), and nested traces each record
every event that happens while they are open.
"""

from __future__ import annotations

import gc
import html
import os
import sys
import threading
import warnings
from dataclasses import dataclass
from types import FrameType, TracebackType
from typing import Any

from ._consumers import LIBRARY_PREFIXES
from ._core import COUNTERS, Buffer, Value, same_family, set_observer, stable_id
from ._interpreter import assignment_lines, names_of, user_frame

__all__ = [
    "CopyCounters",
    "CopyWarning",
    "Trace",
    "TraceEvent",
    "buffer_name",
    "copy_counters",
    "reset_copy_counters",
    "trace",
    "warn_on_copy",
]

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


class CopyWarning(UserWarning):
    """Issued by :func:`warn_on_copy` when cowarray copies: a write to a shared
    buffer, an eager copy of exposed or foreign memory, or an import that copies.

    It names the buffer as traces and pictures do. Turned into an error
    (``warnings.simplefilter("error", CopyWarning)``), it refuses the copy.

    Examples
    --------
    >>> import warnings
    >>> import cowarray as ca
    >>> x = ca.zeros(100)
    >>> y = ca.lazy_clone(x)
    >>> with warnings.catch_warnings(), ca.warn_on_copy():
    ...     warnings.simplefilter("error", ca.CopyWarning)
    ...     y[0] = 1.0
    Traceback (most recent call last):
        ...
    cowarray.CopyWarning: a write copied 800 bytes (region (100,), float64) out of shared buffer A;
    held also by x: a separate value (a lazy clone, or the array one was cloned from) that keeps
    its values
    >>> float(y[0]), ca.shares_buffer(x, y)
    (0.0, True)
    """

    # Tracebacks and warning lines name it as users import it.
    __module__ = "cowarray"


@dataclass(frozen=True, slots=True)
class TraceEvent:
    """One thing the copy-on-write core did, as :func:`trace` records it.

    Attributes
    ----------
    kind : str
        ``"share"`` (a lazy clone, view or NumPy export joined a buffer),
        ``"materialize"`` (a write copied its region out of a shared buffer,
        an exposed or foreign buffer had to be copied at once, or an import
        copied: ``from_dlpack``, ``from_torch``, ``asarray`` of foreign data),
        ``"takeover"`` (the last holder wrote in place; cause
        ``"temporary"``: an operator's result went into the memory of an
        operand only the interpreter's stack held), ``"export"``,
        ``"import"`` or ``"exposure_end"`` (DLPack).
    nbytes : int
        Bytes copied (``materialize``), else the bytes the event reports (0
        for ``share`` and ``takeover``).
    region_nbytes : int
        Bytes of the region concerned (the view of the array that acted; for
        ``exposure_end``, the buffer): what a copy of that region would cost.
    shape : tuple of int or None
        The region concerned: the shape of the array that acted (for
        ``materialize``, the region that was copied).
    dtype : str or None
        That array's dtype.
    buffer_id : int or None
        The stable id of the buffer concerned (for ``materialize``, the one
        copied from; None when the writer had no sharing record).
    new_buffer_id : int or None
        For ``materialize``: the id of the new buffer the writer now holds.
    filename, lineno : str, int
        Where in the user's code (outside cowarray) the event happened.
    thread : str
        The name of the thread it happened in.
    other_holders : tuple of str or None
        For a write's copy (``cause == "write"``): the other arrays that held
        the buffer, which are why it copied, each named by the variables of
        the writing code bound to it and the lines that bind them, and said
        to be a view (NumPy would have shared its memory too: ``del`` it or
        take it again after the write, and nothing is copied) or a lazy
        clone. None where nobody looked: the other events, and a line's
        copies after its first :data:`HOLDERS_NAMED_PER_LINE` (finding the
        holders searches every object of the interpreter).
    cause : str
        For ``materialize``, why it copied: ``"write"`` (a write to a buffer
        that others hold), ``"exposed"`` (a clone, view or result of memory
        NumPy, torch or another DLPack peer may write is never shared
        lazily), ``"import"`` or ``"export"`` (a conversion that copies);
        for ``takeover``, ``"temporary"`` where an operator's result went
        into a temporary operand's memory; ``""`` for the other kinds.

    The ``kind`` values are names for code (``t.count("materialize")``);
    :attr:`label` and :attr:`description` say the same in plain words, as
    the table shows them.

    Examples
    --------
    >>> import cowarray as ca
    >>> x = ca.zeros(1000)
    >>> with ca.trace() as t:
    ...     y = ca.lazy_clone(x)
    ...     y[:10] = 1.0
    >>> share, copy = t.events
    >>> share.kind, share.nbytes, share.region_nbytes, share.where
    ('share', 0, 8000, 'line 2')
    >>> copy.kind, copy.nbytes, copy.shape, copy.buffer_id == ca.cow_info(x).buffer_id
    ('materialize', 8000, (1000,), True)
    >>> copy.cause, copy.label
    ('write', 'copied before a write')
    >>> print(copy.description)
    a write to a buffer other arrays hold first copied the part it writes (old -> new)
    """

    kind: str
    nbytes: int
    region_nbytes: int
    shape: tuple[int, ...] | None
    dtype: str | None
    buffer_id: int | None
    new_buffer_id: int | None
    filename: str
    lineno: int
    thread: str
    cause: str = ""
    other_holders: tuple[str, ...] | None = None

    @property
    def label(self) -> str:
        """The event in a few plain words, as the trace's table shows it."""
        return _LABELS[_label_key(self)][0]

    @property
    def description(self) -> str:
        """One plain sentence: what happened and what it cost."""
        return _LABELS[_label_key(self)][1]

    @property
    def copied_nbytes(self) -> int:
        """Bytes this event copied: ``nbytes`` for ``materialize``, else 0."""
        return self.nbytes if self.kind == "materialize" else 0

    @property
    def buffer(self) -> str | None:
        """The buffer's name, as traces, pictures and warnings show it (see :func:`buffer_name`)."""
        return None if self.buffer_id is None else buffer_name(self.buffer_id)

    @property
    def where(self) -> str:
        """``file:line`` of the user code, with the file's base name.

        In a notebook, a cell's code is named ``In [3], line 2``. In a
        doctest (a docstring's or a documentation page's example) it is
        ``line 2``, the line within the example: doctest's name for it
        (``<doctest module.name[N]>``) numbers examples, which a reader does
        not see.
        """
        cell = _notebook_cell(self.filename)
        if cell is not None:
            return f"{cell}, line {self.lineno}"
        if self.filename.startswith("<doctest "):
            return f"line {self.lineno}"
        return f"{os.path.basename(self.filename)}:{self.lineno}"


def _notebook_cell(filename: str) -> str | None:
    """``In [3]`` for the file IPython compiled cell 3 into; None elsewhere.

    Only asks IPython when it is already imported: cowarray never imports it.
    """
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return None
    try:
        shell = ipython.get_ipython()
        number = shell.compile._filename_map.get(filename) if shell is not None else None
    except AttributeError:
        return None
    return f"In [{number}]" if isinstance(number, int) else None


# -- one name per buffer -------------------------------------------------------

# buffer id -> name. Ids are never reused, so a name is never reused either;
# one small entry for each buffer ever shown.
_names: dict[int, str] = {}
_names_lock = threading.Lock()


def buffer_name(buffer_id: int) -> str:
    """The short name (``A``, ``B``, ..., ``AA``) of the buffer with this stable id.

    Names are given in the order buffers are first shown, by a trace's table,
    a sharing picture, a copy warning or :attr:`CowInfo.buffer`, and they are
    the same everywhere for the life of the process: a buffer drawn as ``A``
    in a picture is ``A`` in a trace and in a warning. Each name costs one
    small dictionary entry, kept for the process's life.

    Examples
    --------
    >>> import cowarray as ca
    >>> from cowarray.debug import buffer_name
    >>> x = ca.zeros(3)
    >>> print(ca.sharing_picture(x=x))
    buffer A: private, 1 holder, 24 bytes
      x  (3,) float64, views 24 bytes
    >>> buffer_name(ca.cow_info(x).buffer_id), ca.cow_info(x).buffer
    ('A', 'A')
    """
    name = _names.get(buffer_id)
    if name is None:
        with _names_lock:
            name = _names.setdefault(buffer_id, buffer_letter(len(_names)))
    return name


def _reset_buffer_names() -> None:
    """Start naming from ``A`` again, as a fresh process would (for doctests)."""
    with _names_lock:
        _names.clear()


# Code between the user and cowarray that is not the user's: the standard
# library (copy.copy, weakref finalizers), installed packages (torch calling
# __dlpack__) and frozen import machinery.
_LIBRARY_PREFIXES = LIBRARY_PREFIXES


def _user_frame() -> tuple[FrameType | None, int]:
    """The frame of the user's code that led here, and its warnings stacklevel.

    That is the first frame that is neither cowarray's nor a library's, or,
    if every caller is library code, the first frame outside cowarray. The
    level counts from this function's caller: 1 is the caller itself.
    """
    frame, level = user_frame(_LIBRARY_PREFIXES)
    return frame, level


_dtype_names: dict[Any, str] = {}  # str(dtype) is slow; there are few dtypes

#: How many of one line's copies name their other holders (each search
#: walks every object the collector tracks: a few milliseconds).
HOLDERS_NAMED_PER_LINE = 8
_holders_named: dict[tuple[str, int], int] = {}


def _other_holders(holder: Any, buffer: Buffer, frame: FrameType | None) -> tuple[str, ...]:
    """The arrays other than ``holder`` that hold ``buffer``, described for
    the writer of ``frame``: the variables bound to each, where they were
    bound, and whether NumPy would have shared the memory too."""
    others = [
        other
        for other in gc.get_referrers(buffer)
        if isinstance(other, Value) and other is not holder and other._buf is buffer
    ]
    names = names_of(frame, list(others))
    described = []
    for other, bound in zip(others, names, strict=True):
        kind = (
            "a view of the same array (NumPy would share it too: del it, or take it "
            "again after the write, and nothing is copied)"
            if same_family(other, holder)
            else (
                "a separate value (a lazy clone, or the array one was cloned from) "
                "that keeps its values"
            )
        )
        if bound and frame is not None:
            lines = assignment_lines(frame.f_code, bound[0])
            where = f", bound at line {', '.join(map(str, lines))}" if lines else ""
            described.append(f"{' = '.join(bound)}{where}: {kind}")
        else:
            described.append(f"an array no variable of the writing code names: {kind}")
    return tuple(described)


def _make_event(kind: str, holder: Any, buffer: Buffer | None, nbytes: int) -> TraceEvent:
    frame, _ = _user_frame()
    data = getattr(holder, "_data", None)
    shape = dtype = None
    if data is not None:
        shape = tuple(data.shape)
        dtype = _dtype_names.get(data.dtype)
        if dtype is None:
            dtype = _dtype_names[data.dtype] = str(data.dtype)
    cause = _CAUSES.get(kind, "")
    if cause:
        kind = "materialize"  # a trace shows every copy as one kind; cause says why
    elif kind in _TAKEOVER_CAUSES:
        kind, cause = "takeover", _TAKEOVER_CAUSES[kind]
    holders = None
    if cause == "write" and buffer is not None:
        site = (frame.f_code.co_filename, frame.f_lineno) if frame is not None else ("", 0)
        seen = _holders_named.get(site, 0)
        if seen < HOLDERS_NAMED_PER_LINE:
            _holders_named[site] = seen + 1
            holders = _other_holders(holder, buffer, frame)
    new_id = None
    if kind == "materialize" and data is not None:
        # The writer now holds the copy; ids belong to the memory's owner, so
        # this is the id its record will show if it is ever shared.
        new_id = stable_id(holder._device.backend.memory_owner(data))
    return TraceEvent(
        kind=kind,
        nbytes=nbytes,
        region_nbytes=int(data.nbytes) if data is not None else nbytes,
        shape=shape,
        dtype=dtype,
        buffer_id=buffer.id if buffer is not None else None,
        new_buffer_id=new_id,
        filename=frame.f_code.co_filename if frame is not None else "<unknown>",
        lineno=frame.f_lineno if frame is not None else 0,
        thread=threading.current_thread().name,
        cause=cause,
        other_holders=holders,
    )


# -- the one observer, installed only while someone looks -------------------

_state_lock = threading.Lock()
_active: tuple[Trace, ...] = ()
_warn_threshold: int | None = None


class _Dispatcher:
    """The object the core sees as ``cow.observer``: fans events out."""

    __slots__ = ()

    def record(self, kind: str, holder: Any, buffer: Buffer | None, nbytes: int) -> None:
        traces = _active
        threshold = _warn_threshold
        copied = kind in _COPY_KINDS
        warn = copied and threshold is not None and nbytes >= threshold
        if not traces and not warn:
            return
        # A trace shows every copy as "materialize"; only the warning says why.
        event = _make_event(kind, holder, buffer, nbytes)
        if warn:
            # First, so that a warning raised as an error (which refuses the
            # copy) leaves no event for a copy that never took effect.
            _warn(event)
        for recording in traces:
            recording._add(event)


_DISPATCHER = _Dispatcher()
#: The core's copy events: a write's copy ("materialize"), the eager copy of
#: memory that cannot be shared lazily, and an import's copy (DLPack, torch,
#: asarray of foreign data). All count as copies; only the warning tells them apart.
_COPY_KINDS = frozenset({"materialize", "eager_copy", "import_copy", "export_copy"})
#: The core's copy kind -> the event's ``cause``.
_CAUSES = {
    "materialize": "write",
    "eager_copy": "exposed",
    "import_copy": "import",
    "export_copy": "export",
}
#: The core's other kinds of taking memory over -> the event's ``cause``.
_TAKEOVER_CAUSES = {"temporary_takeover": "temporary"}


def _refresh_observer() -> None:
    # Called with _state_lock held. Each new look names a line's holders again.
    _holders_named.clear()
    looking = bool(_active) or _warn_threshold is not None
    set_observer(_DISPATCHER if looking else None)


def _warn(event: TraceEvent) -> None:
    _, level = _user_frame()
    source = f"buffer {event.buffer}" if event.buffer is not None else "its buffer"
    copied = f"{event.nbytes} bytes (region {event.shape}, {event.dtype})"
    if event.cause == "exposed":
        message = (
            f"copied {copied} out of {source} at once: memory outside cowarray (a "
            "DLPack consumer or producer) may write that buffer, so it is not shared lazily"
        )
    elif event.cause == "import":
        message = (
            f"an import copied {copied}: the new array has its own copy of the data "
            "(copy=True, asarray of a NumPy array, tensor or buffer, a move to another "
            "device, or memory a cowarray value already aliases)"
        )
    elif event.cause == "export":
        message = (
            f"an export copied {copied}: the consumer gets its own copy (np.array(x), "
            "copy=True, a layout consumers refuse, or device data copied to the host)"
        )
    else:
        message = f"a write copied {copied} out of shared {source}"
        if event.other_holders:
            message += "; held also by " + "; ".join(event.other_holders)
    warnings.warn(message, CopyWarning, stacklevel=level)


def format_bytes(nbytes: int) -> str:
    """A byte count as people read it: ``80 bytes``, ``8.0 kB``, ``8.0 MB`` (powers of 1000).

    Examples
    --------
    >>> from cowarray._observe import format_bytes
    >>> format_bytes(80), format_bytes(8000), format_bytes(8_000_000), format_bytes(1)
    ('80 bytes', '8.0 kB', '8.0 MB', '1 byte')
    """
    if nbytes < 1000:
        return "1 byte" if nbytes == 1 else f"{nbytes} bytes"
    size = nbytes / 1000
    for unit in ("kB", "MB", "GB"):
        if size < 999.95:  # (999.96 kB would print as 1000.0 kB)
            return f"{size:.1f} {unit}"
        size /= 1000
    return f"{size:.1f} TB"


# -- trace ---------------------------------------------------------------------


class Trace:
    """The events recorded by :func:`trace`, with counters and a table.

    Use it as a context manager (``with cowarray.trace() as t:``); it records
    while inside the block and keeps its events afterwards. It holds no
    reference to any array or buffer. ``print(t)`` shows a table; a notebook
    shows it as HTML.

    Examples
    --------
    >>> import cowarray as ca
    >>> x = ca.ones(10)
    >>> with ca.trace() as t:
    ...     y = ca.lazy_clone(x)
    ...     y += 1.0
    >>> t.count("share"), t.copies, t.bytes_copied
    (1, 1, 80)
    >>> [e.kind for e in t.events]
    ['share', 'materialize']
    >>> t
    <cowarray trace: 2 events, 1 copy, 80 bytes copied>
    """

    def __init__(self) -> None:
        self._events: list[TraceEvent] = []
        self._recording = False

    def _add(self, event: TraceEvent) -> None:
        # No lock: list.append is atomic, and events can arrive re-entrantly
        # (a collection that ends a DLPack exposure) on a thread that is
        # already inside this trace.
        self._events.append(event)

    def __enter__(self) -> Trace:
        global _active
        with _state_lock:
            if self._recording:
                raise RuntimeError("this trace is already recording")
            self._recording = True
            _active = (*_active, self)
            _refresh_observer()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        global _active
        with _state_lock:
            self._recording = False
            _active = tuple(t for t in _active if t is not self)
            _refresh_observer()

    @property
    def events(self) -> tuple[TraceEvent, ...]:
        """Every event recorded so far, oldest first."""
        # list() allocates before it copies, so an event added by a
        # collection during that allocation is either in or out, never torn.
        return tuple(list(self._events))

    @property
    def copies(self) -> int:
        """How many materializing copies were recorded."""
        return self.count("materialize")

    @property
    def bytes_copied(self) -> int:
        """Bytes copied by those materializations."""
        return sum(e.nbytes for e in self.events if e.kind == "materialize")

    def count(self, kind: str) -> int:
        """How many events of ``kind`` (``"share"``, ``"materialize"``, ...)."""
        return sum(1 for e in self.events if e.kind == kind)

    def __len__(self) -> int:
        return len(self.events)

    def __repr__(self) -> str:
        return f"<cowarray trace: {self._summary()}>"

    def _summary(self) -> str:
        n = len(self)
        copies = self.copies
        copied = self.bytes_copied
        size = f"{copied} bytes copied"
        if copied >= 1000:
            size += f" ({format_bytes(copied)})"
        return (
            f"{n} event{'' if n == 1 else 's'}, {copies} cop{'y' if copies == 1 else 'ies'}, {size}"
        )

    def _rows(self) -> tuple[list[tuple[str, ...]], list[str]]:
        """The table's header, one row of cells per user-visible event, and
        the legend: one line for each kind of event in the table."""
        events = self.events
        threaded = len({e.thread for e in events}) > 1
        rows: list[tuple[str, ...]] = [_COLUMNS + (("thread",) if threaded else ())]
        legend: dict[str, str] = {}
        for first, last, e in _user_events(events):
            label = e.label
            legend.setdefault(f"{label} ({e.kind})", e.description)
            if last > first:
                label += f" (x{last - first + 1})"
                legend.setdefault(_TWICE, _TWICE_MEANS)
            buffer = e.buffer or "-"
            if e.new_buffer_id is not None:
                buffer += " -> " + buffer_name(e.new_buffer_id)
            array = "whole buffer" if e.shape is None else f"{e.shape} {e.dtype}"
            row = (
                str(first) if last == first else f"{first}-{last}",
                label,
                format_bytes(e.copied_nbytes) if e.kind == "materialize" else "-",
                format_bytes(e.region_nbytes),
                array,
                buffer,
                e.where,
            )
            rows.append((*row, e.thread) if threaded else row)
        return rows, [f"{label}: {text}" for label, text in legend.items()]

    def __str__(self) -> str:
        """A table: one line per event, buffers named as everywhere (:func:`buffer_name`).

        ``copied`` is what the event copied, ``size`` the bytes of the
        ``array`` it concerns (for a share, the array shared from): what a
        copy of it would cost. Several shares by one line (a view and a lazy
        clone of it) are one row, numbered ``1-2``. A ``thread`` column
        appears when the events come from several threads. Under the total,
        one line says in plain words what each kind of event in the table is.
        """
        rows, legend = self._rows()
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
        lines = [
            "  ".join(
                cell.rjust(w) if i in _NUMERIC else cell.ljust(w)
                for i, (cell, w) in enumerate(zip(row, widths, strict=True))
            ).rstrip()
            for row in rows
        ]
        lines.append(self._summary())
        lines.extend(legend)
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        """The table as HTML, for notebooks: each event's description is its
        row's tooltip, and the legend is under the table."""
        rows, legend = self._rows()

        def cells(row: tuple[str, ...], tag: str) -> str:
            return "".join(
                f'<{tag} style="text-align:{"right" if i in _NUMERIC else "left"};'
                f'padding:0.1em 0.6em;white-space:nowrap">{html.escape(cell)}</{tag}>'
                for i, cell in enumerate(row)
            )

        body = "".join(f"<tr>{cells(row, 'td')}</tr>" for row in rows[1:])
        notes = "".join(f"<br>{html.escape(line)}" for line in legend)
        return (
            '<table class="cowarray-trace" style="font-variant-numeric:tabular-nums">'
            f"<thead><tr>{cells(rows[0], 'th')}</tr></thead><tbody>{body}</tbody>"
            '<caption style="caption-side:bottom;text-align:left;padding:0.3em 0.6em">'
            f"{html.escape(self._summary())}{notes}</caption></table>"
        )


_COLUMNS = ("#", "event", "copied", "size", "array", "buffer", "where")
_NUMERIC = frozenset({0, 2, 3})  # numbers align right

#: (kind, cause) -> (label, description): the plain words of each event.
_LABELS: dict[tuple[str, str], tuple[str, str]] = {
    ("share", ""): (
        "shared, no copy",
        "a view or lazy clone of this array now shares its buffer; nothing is copied",
    ),
    ("materialize", "write"): (
        "copied before a write",
        "a write to a buffer other arrays hold first copied the part it writes (old -> new)",
    ),
    ("materialize", "exposed"): (
        "copied, not shared",
        "NumPy or torch may write this memory, so the new array got its own copy at once",
    ),
    ("materialize", "import"): (
        "copied on import",
        "the imported data was copied into a buffer of the new array",
    ),
    ("materialize", "export"): (
        "copied on export",
        "the consumer (NumPy, torch, ...) got its own copy of the data",
    ),
    ("takeover", ""): (
        "written in place",
        "the only holder left wrote into its buffer directly; nothing is copied",
    ),
    ("takeover", "temporary"): (
        "written into a temporary",
        "an operator wrote its result into an operand nothing else could see "
        "(c * 2.0 + 1.0 adds into the memory of c * 2.0, as NumPy does); nothing is allocated",
    ),
    ("export", ""): (
        "lent to NumPy/torch",
        "NumPy or torch now uses this buffer and may write it (exposed): both see writes",
    ),
    ("import", ""): (
        "using NumPy/torch memory",
        "the new array uses memory that NumPy or torch may still write (foreign)",
    ),
    ("exposure_end", ""): (
        "given back by NumPy/torch",
        "NumPy or torch let go of the buffer: it is no longer exposed",
    ),
}
_TWICE = "(xN)"
_TWICE_MEANS = "one line shared the buffer N times: lazy_clone(x[:2]) takes a view, then clones it"


def _label_key(event: TraceEvent) -> tuple[str, str]:
    key = (event.kind, event.cause)
    if key in _LABELS:
        return key
    if event.kind == "materialize":
        return ("materialize", "write")  # (made by hand without a cause)
    return key if (event.kind, "") not in _LABELS else (event.kind, "")


def _user_events(
    events: tuple[TraceEvent, ...],
) -> list[tuple[int, int, TraceEvent]]:
    """``(first, last, event)`` for each row: consecutive shares of one buffer
    by one line on one thread are one row (``lazy_clone(x[:2])`` takes a view,
    then clones it), shown by its last event (the region nearest the result).
    Numbers count from 1, as the table does."""
    grouped: list[tuple[int, int, TraceEvent]] = []
    for number, event in enumerate(events, 1):
        if grouped and event.kind == "share":
            first, last, previous = grouped[-1]
            if (
                previous.kind == "share"
                and last == number - 1
                and (previous.buffer_id, previous.filename, previous.lineno, previous.thread)
                == (event.buffer_id, event.filename, event.lineno, event.thread)
            ):
                grouped[-1] = (first, number, event)
                continue
        grouped.append((number, number, event))
    return grouped


def buffer_letter(n: int) -> str:
    """``A``, ``B``, ..., ``Z``, ``AA``, ``AB``, ...: a short name for the n-th buffer."""
    letters = ""
    n += 1
    while n:
        n, rest = divmod(n - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


def trace() -> Trace:
    """Record every copy-on-write event inside a ``with`` block.

    Records lazy clones and views joining a buffer (``share``), copies made
    by writes, eager copies and imports that copy (``materialize``: bytes and
    region), writes by the last holder
    (``takeover``), DLPack ``export``, ``import`` and ``exposure_end``, each
    with the file and line of your code that caused it.

    Returns
    -------
    Trace
        A context manager; after (and during) the block, ``t.events``,
        ``t.copies``, ``t.bytes_copied`` and ``str(t)``, a table with the
        bytes each event copied and the bytes of the region it concerns, in
        which buffers have the names that :func:`sharing_picture`, copy
        warnings and ``cow_info(x).buffer`` give them (``event.buffer_id``
        holds the process-wide id that :func:`cow_info` shows). A notebook
        shows the table as HTML.

    Notes
    -----
    Tracing is process-wide: a trace records every thread's events (each
    names its thread), and nested traces all record the events inside them.
    Without an open trace or :func:`warn_on_copy`, nothing is recorded and
    the core pays one ``is None`` test. While tracing, each event costs a few
    microseconds and stays in memory until the trace is dropped: trace a
    bounded piece of code, not a long-running loop.

    Examples
    --------
    >>> import cowarray as ca
    >>> x = ca.zeros(1000)
    >>> with ca.trace() as t:
    ...     y = ca.lazy_clone(x)
    ...     y[:10] = 1.0
    >>> t.copies, t.bytes_copied
    (1, 8000)
    >>> print(t)  # doctest: +NORMALIZE_WHITESPACE
    #  event                  copied    size  array            buffer  where
    1  shared, no copy             -  8.0 kB  (1000,) float64  A       line 2
    2  copied before a write  8.0 kB  8.0 kB  (1000,) float64  A -> B  line 3
    2 events, 1 copy, 8000 bytes copied (8.0 kB)
    shared, no copy (share): a view or lazy clone of this array now shares its
    buffer; nothing is copied
    copied before a write (materialize): a write to a buffer other arrays hold
    first copied the part it writes (old -> new)
    """
    return Trace()


# -- counters --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CopyCounters:
    """Process-wide totals of the copies cowarray made.

    Writes to shared buffers, eager copies of exposed or foreign memory, and
    imports that copy (``from_dlpack``, ``from_torch``, ``asarray`` of a
    NumPy array, a tensor or a buffer) each count as one copy.

    Attributes
    ----------
    copies : int
        Copies since start-up or the last reset.
    bytes_copied : int
        Bytes they copied.

    Examples
    --------
    >>> import cowarray as ca
    >>> before = ca.copy_counters()
    >>> y = ca.lazy_clone(ca.zeros(10))
    >>> y[0] = 1.0  # the last holder: no copy
    >>> ca.copy_counters().copies - before.copies
    0
    """

    copies: int
    bytes_copied: int


def copy_counters() -> CopyCounters:
    """How many copies cowarray has made, and how many bytes, in this process.

    Writes to shared buffers, eager copies and imports that copy all count;
    a zero-copy import, a lazy clone and a conversion to another dtype do not.

    Always counting, whether or not anyone traces. Reset with
    :func:`reset_copy_counters`.

    Returns
    -------
    CopyCounters

    Examples
    --------
    >>> import cowarray as ca
    >>> _ = ca.reset_copy_counters()
    >>> x = ca.zeros(100)
    >>> y = ca.lazy_clone(x[:10])
    >>> y[0] = 1.0
    >>> ca.copy_counters()
    CopyCounters(copies=1, bytes_copied=80)
    """
    copies, nbytes = COUNTERS.snapshot()  # both numbers from the same moment
    return CopyCounters(copies, nbytes)


def reset_copy_counters() -> CopyCounters:
    """Set the copy counters to zero; returns their values just before.

    Returns
    -------
    CopyCounters
        The totals that were reset.

    Examples
    --------
    >>> import cowarray as ca
    >>> x = ca.zeros(4)
    >>> y = ca.lazy_clone(x)
    >>> y[0] = 1.0
    >>> ca.reset_copy_counters().copies >= 1
    True
    >>> ca.copy_counters()
    CopyCounters(copies=0, bytes_copied=0)
    """
    copies, nbytes = COUNTERS.reset()
    return CopyCounters(copies, nbytes)


# -- warnings ----------------------------------------------------------------------


class _WarningSwitch:
    """Restores the previous warn_on_copy setting when its block ends."""

    __slots__ = ("_previous", "min_bytes")

    def __init__(self, min_bytes: int | None, previous: int | None) -> None:
        self.min_bytes = min_bytes
        self._previous = previous

    def __enter__(self) -> _WarningSwitch:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        _set_threshold(self._previous)

    def __repr__(self) -> str:
        return f"warn_on_copy(min_bytes={self.min_bytes!r})"


def _set_threshold(min_bytes: int | None) -> int | None:
    global _warn_threshold
    with _state_lock:
        previous = _warn_threshold
        _warn_threshold = min_bytes
        _refresh_observer()
    return previous


def warn_on_copy(min_bytes: int | None = 0) -> _WarningSwitch:
    """Issue a :class:`CopyWarning` for every copy of ``min_bytes`` or more.

    Works as a global switch (call it) and as a context manager (``with``),
    like ``torch.set_grad_enabled``: the call turns warnings on at once, and
    leaving the ``with`` block restores the previous setting.

    Parameters
    ----------
    min_bytes : int or None, default 0
        The smallest copy, in bytes, that warns (0: every copy). None turns
        the warnings off.

    Returns
    -------
    context manager
        Use it in a ``with`` statement to limit the setting to a block.

    Notes
    -----
    The warning points at the line of your code that copied. The setting is
    process-wide (all threads). Besides writes, the eager copies that exposed
    and foreign buffers force (a clone, view or result of such an array) warn
    too, and so do imports that copy (``from_dlpack``, ``from_torch``,
    ``asarray`` of a NumPy array, a tensor or a buffer). If warnings are
    turned into errors (``warnings.simplefilter("error", CopyWarning)``), an
    operation that would copy raises instead, and every array keeps its
    value: a way to make sure a block of code never copies.

    Examples
    --------
    >>> import warnings
    >>> import cowarray as ca
    >>> x = ca.zeros(1000)
    >>> y = ca.lazy_clone(x)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     with ca.warn_on_copy(min_bytes=1024):
    ...         y[0] = 1.0
    >>> print(caught[0].message)
    a write copied 8000 bytes (region (1000,), float64) out of shared buffer A; held also by x:
    a separate value (a lazy clone, or the array one was cloned from) that keeps its values
    """
    if min_bytes is not None:
        if isinstance(min_bytes, bool) or not isinstance(min_bytes, int):
            raise TypeError(
                f"warn_on_copy: min_bytes must be an int or None, got {type(min_bytes).__name__}"
            )
        if min_bytes < 0:
            raise ValueError(f"warn_on_copy: min_bytes must be >= 0, got {min_bytes}")
    return _WarningSwitch(min_bytes, _set_threshold(min_bytes))
