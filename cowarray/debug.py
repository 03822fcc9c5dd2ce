"""Seeing copy-on-write: which arrays share a buffer, and in what state.

Everything here reads the core's records; nothing changes them, and nothing
here runs on the hot path unless someone is looking.

* :func:`cow_info`, :func:`shares_buffer`: one array, one pair.
* :func:`trace`: every share, copy, takeover, export and import in a block.
* :func:`copy_counters`, :func:`reset_copy_counters`: process-wide totals.
* :func:`warn_on_copy`: a :class:`CopyWarning` for copies above a size.
* :func:`sharing_picture`: which arrays share which buffers (text, SVG, dot).
* :func:`buffer_name`: the one name (``A``, ``B``, ...) that all of them give
  a buffer.
* :func:`temporary_elision`: whether ``c * 2.0 + 1.0`` adds into the memory
  of ``c * 2.0`` here, and if not, why.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Literal

from ._array import Array
from ._compiled import status as _elision_status
from ._core import settled_buffer
from ._errors import not_an_array
from ._observe import CopyCounters as CopyCounters
from ._observe import CopyWarning as CopyWarning
from ._observe import Trace as Trace
from ._observe import TraceEvent as TraceEvent
from ._observe import buffer_name as buffer_name
from ._observe import copy_counters as copy_counters
from ._observe import reset_copy_counters as reset_copy_counters
from ._observe import trace as trace
from ._observe import warn_on_copy as warn_on_copy
from ._picture import SharingPicture as SharingPicture
from ._picture import buffer_facts
from ._picture import sharing_picture as sharing_picture

__all__ = [
    "CopyCounters",
    "CopyWarning",
    "CowInfo",
    "SharingPicture",
    "Trace",
    "TraceEvent",
    "buffer_name",
    "copy_counters",
    "cow_info",
    "reset_copy_counters",
    "shares_buffer",
    "sharing_picture",
    "temporary_elision",
    "trace",
    "warn_on_copy",
]


@dataclass(frozen=True)
class CowInfo:
    """What copy-on-write knows about one array's buffer.

    Attributes
    ----------
    holders : int
        Arrays and live NumPy exports that share the buffer (this one included).
    state : {"private", "shared", "exposed", "foreign"}
        ``private``: only this array; ``shared``: several holders, a write
        copies; ``exposed``: a DLPack consumer may write it; ``foreign``:
        imported memory its producer may write.
    nbytes : int
        Size of the whole buffer in bytes (this array may view only part).
    buffer_id : int
        A stable id for the buffer, never reused in this process.
    view_nbytes : int
        Bytes this array views: what a write would copy if the buffer is shared.

    Examples
    --------
    >>> import cowarray as ca
    >>> x = ca.zeros(1000)
    >>> info = ca.cow_info(x[:10])
    >>> info.state, info.holders, info.view_nbytes
    ('shared', 2, 80)
    >>> info.buffer  # its name in traces, pictures and warnings
    'A'
    >>> info.buffer_id == ca.cow_info(x).buffer_id
    True
    >>> info  # the repr names the buffer as traces do, not by its number
    CowInfo(holders=2, state='shared', buffer='A', nbytes=8000, view_nbytes=80)
    """

    holders: int
    state: Literal["private", "shared", "exposed", "foreign"]
    nbytes: int
    buffer_id: int
    view_nbytes: int

    @property
    def buffer(self) -> str:
        """The buffer's name, as traces, pictures and warnings show it."""
        return buffer_name(self.buffer_id)

    def __repr__(self) -> str:
        # The buffer's letter, as every trace, picture and warning shows it;
        # its number (buffer_id) depends on what the process made before.
        return (
            f"CowInfo(holders={self.holders}, state={self.state!r}, buffer={self.buffer!r}, "
            f"nbytes={self.nbytes}, view_nbytes={self.view_nbytes})"
        )

    def _repr_html_(self) -> str:
        fields = [
            ("buffer", self.buffer),
            ("state", self.state),
            ("holders", str(self.holders)),
            ("nbytes", f"{self.nbytes} bytes"),
            ("view_nbytes", f"{self.view_nbytes} bytes"),
        ]
        rows = "".join(
            f'<tr><th style="text-align:left;padding:0.1em 0.6em">{name}</th>'
            f'<td style="text-align:left;padding:0.1em 0.6em">{html.escape(value)}</td></tr>'
            for name, value in fields
        )
        return f'<table class="cowarray-cow-info"><caption>CowInfo</caption>{rows}</table>'


def temporary_elision() -> str:
    """Whether operators write into the memory of their temporary operands.

    In ``c * 2.0 + 1.0`` NumPy adds ``1.0`` into the block of ``c * 2.0``,
    which nothing else can see. cowarray does the same on CPython 3.14 and
    later, where its optional C helper was compiled at install time (it
    proves that only the interpreter's stack holds the operand): ``"on"``.
    Otherwise every operator allocates its result, which is always correct,
    and the answer starts with ``"off"``, ``"not built"`` or ``"built, but"``
    and says why. ``COWARRAY_PURE_PYTHON=1`` (read at import) turns it off.
    :func:`trace` shows each such write as a ``takeover`` with cause
    ``"temporary"``.

    Returns
    -------
    str
        ``"on"``, or why not.

    Examples
    --------
    >>> import cowarray as ca
    >>> state = ca.debug.temporary_elision()
    >>> state == "on" or state.startswith(("off", "not built", "built, but"))
    True
    """
    return _elision_status()


def _require(x: object, name: str, function: str) -> Array:
    if type(x) is not Array:
        raise not_an_array(function, name, x)
    return x


def cow_info(x: Array, /) -> CowInfo:
    """Describe the buffer behind ``x``: holders, state, size and a stable id.

    Parameters
    ----------
    x : Array

    Returns
    -------
    CowInfo

    Examples
    --------
    >>> import cowarray as ca
    >>> x = ca.zeros(1000)
    >>> y = x[:10]
    >>> info = ca.cow_info(y)
    >>> info.holders, info.state, info.nbytes, info.view_nbytes
    (2, 'shared', 8000, 80)
    >>> del x
    >>> ca.cow_info(y).state
    'private'
    """
    array = _require(x, "x", "cow_info")
    buffer_id, state, holders, nbytes = buffer_facts(array)
    return CowInfo(
        holders=holders,
        state=state,  # type: ignore[arg-type]
        nbytes=nbytes,
        buffer_id=buffer_id,
        view_nbytes=int(array._data.nbytes),
    )


def shares_buffer(a: Array, b: Array, /) -> bool:
    """Whether ``a`` and ``b`` are holders of the same buffer.

    Sharing is invisible to values (a write to one never changes the other);
    this tells whether a write would have to copy.

    Examples
    --------
    >>> import cowarray as ca
    >>> x = ca.arange(6)
    >>> ca.shares_buffer(x, x[::2])
    True
    >>> ca.shares_buffer(x, x + 0)
    False
    """
    first = _require(a, "a", "shares_buffer")
    second = _require(b, "b", "shares_buffer")
    buf = settled_buffer(first)
    return buf is not None and buf is settled_buffer(second)
