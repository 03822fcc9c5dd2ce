"""A picture of sharing: which arrays hold which buffer, as text, SVG or dot.

The picture is a snapshot: names, shapes and numbers taken when it is made.
It keeps no reference to the arrays (a kept reference would count as a
holder). SVG is written by hand, so nothing heavy is imported.
"""

from __future__ import annotations

import html
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from types import FrameType
from typing import Any

import numpy as np

from ._core import cow
from ._array import Array
from ._observe import buffer_name

__all__ = ["PictureArray", "PictureBuffer", "SharingPicture", "sharing_picture"]

# Fill colours of buffer boxes, by state (the legend names them).
_STATE_COLOURS = {
    "private": "#e8f5e9",
    "shared": "#e3f2fd",
    "exposed": "#fff3e0",
    "foreign": "#f3e5f5",
}


@dataclass(frozen=True)
class PictureArray:
    """One array in a :class:`SharingPicture`."""

    name: str
    shape: tuple[int, ...]
    dtype: str
    view_nbytes: int
    buffer: str  #: the label of the buffer it views
    #: The bytes ``[start, stop)`` of the buffer that the view spans, when known.
    span: tuple[int, int] | None = None


@dataclass(frozen=True)
class PictureBuffer:
    """One buffer in a :class:`SharingPicture`.

    ``holders`` counts every holder (arrays not in the picture and NumPy
    exports too); ``arrays`` names those in the picture.
    """

    label: str
    buffer_id: int
    state: str
    holders: int
    nbytes: int
    arrays: tuple[str, ...]


class SharingPicture:
    """Which of a set of arrays share which buffers (see :func:`sharing_picture`).

    ``str()`` gives a text form; in a notebook it displays as SVG
    (:meth:`to_svg`); :meth:`to_dot` gives Graphviz source. The picture is a
    snapshot: it does not change when the arrays do, and keeps none of them.

    Examples
    --------
    >>> import cowarray as ca
    >>> x = ca.zeros(100)
    >>> picture = ca.sharing_picture(x=x, head=x[:10])
    >>> [(b.label, b.state, b.arrays) for b in picture.buffers]
    [('A', 'shared', ('x', 'head'))]
    >>> [(a.name, a.span) for a in picture.arrays]  # the bytes of the buffer each views
    [('x', (0, 800)), ('head', (0, 80))]
    >>> picture.to_svg().startswith("<svg")
    True
    """

    def __init__(self, arrays: Sequence[PictureArray], buffers: Sequence[PictureBuffer]) -> None:
        self.arrays: tuple[PictureArray, ...] = tuple(arrays)
        self.buffers: tuple[PictureBuffer, ...] = tuple(buffers)

    def __str__(self) -> str:
        by_name = {a.name: a for a in self.arrays}
        width = max((len(a.name) for a in self.arrays), default=0)
        lines = []
        for buf in self.buffers:
            lines.append(f"buffer {buf.label}: {_describe(buf)}")
            for name in buf.arrays:
                a = by_name[name]
                lines.append(
                    f"  {name.ljust(width)}  {a.shape} {a.dtype}, views {a.view_nbytes} bytes"
                )
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)

    def _repr_svg_(self) -> str:
        return self.to_svg()

    def to_dot(self) -> str:
        """Graphviz source: arrays on the left, buffers on the right."""
        lines = ["digraph sharing {", "  rankdir=LR;", "  node [fontname=monospace];"]
        for a in self.arrays:
            label = f"{a.name}\\n{a.shape} {a.dtype}"
            lines.append(f"  {_dot_id('array', a.name)} [shape=box, label={_dot_string(label)}];")
        for buf in self.buffers:
            label = f"buffer {buf.label}\\n{_describe(buf)}"
            colour = _STATE_COLOURS.get(buf.state, "#ffffff")
            lines.append(
                f"  {_dot_id('buffer', buf.label)} [shape=cylinder, style=filled, "
                f'fillcolor="{colour}", label={_dot_string(label)}];'
            )
        for a in self.arrays:
            lines.append(f"  {_dot_id('array', a.name)} -> {_dot_id('buffer', a.buffer)};")
        lines.append("}")
        return "\n".join(lines)

    def to_svg(self) -> str:
        """An SVG drawing: arrays on the left, arrows to the buffers they view."""
        row, box_h, left_w, right_w, gap = 60, 46, 220, 280, 90
        rows = max(len(self.arrays), len(self.buffers), 1)
        width = 20 + left_w + gap + right_w + 20
        height = 20 + rows * row + 30
        parts = [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="monospace" font-size="12">',
            '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" '
            'markerWidth="8" markerHeight="8" orient="auto-start-reverse">'
            '<path d="M 0 0 L 10 5 L 0 10 z" fill="#555"/></marker></defs>',
        ]
        buffer_y = {b.label: 20 + i * row for i, b in enumerate(self.buffers)}
        buffer_bytes = {b.label: b.nbytes for b in self.buffers}
        right_x = 20 + left_w + gap
        for i, a in enumerate(self.arrays):
            y = 20 + i * row
            parts.append(
                f'<g class="array"><title>{_esc(a.name)}: {a.shape} {a.dtype}, views '
                f"{a.view_nbytes} bytes</title>"
                f'<rect x="20" y="{y}" width="{left_w}" height="{box_h}" rx="4" '
                'fill="#ffffff" stroke="#333"/>'
                f'<text x="28" y="{y + 16}" font-weight="bold">{_esc(_fit(a.name))}</text>'
                f'<text x="28" y="{y + 32}">{_esc(_fit(f"{a.shape} {a.dtype}"))}</text>'
                f"{_span_bar(a, buffer_bytes[a.buffer], 28, y + 37, left_w - 16)}</g>"
            )
            target = buffer_y[a.buffer] + box_h / 2
            parts.append(
                f'<line x1="{20 + left_w}" y1="{y + box_h / 2}" x2="{right_x}" y2="{target}" '
                'stroke="#555" marker-end="url(#arrow)"/>'
            )
        for b in self.buffers:
            y = buffer_y[b.label]
            colour = _STATE_COLOURS.get(b.state, "#ffffff")
            parts.append(
                f'<g class="buffer"><title>buffer id {b.buffer_id}</title>'
                f'<rect x="{right_x}" y="{y}" width="{right_w}" height="{box_h}" rx="4" '
                f'fill="{colour}" stroke="#333"/>'
                f'<text x="{right_x + 8}" y="{y + 16}" font-weight="bold">'
                f"buffer {_esc(b.label)} ({_esc(b.state)})</text>"
                f'<text x="{right_x + 8}" y="{y + 32}">'
                f"{_esc(_holders_text(b))}, {b.nbytes} bytes</text></g>"
            )
        x = 20
        for state, colour in _STATE_COLOURS.items():
            parts.append(
                f'<rect x="{x}" y="{height - 21}" width="12" height="12" fill="{colour}" '
                f'stroke="#333"/><text x="{x + 16}" y="{height - 11}" fill="#333">{state}</text>'
            )
            x += 24 + 8 * len(state)
        parts.append("</svg>")
        return "".join(parts)


def _span_bar(array: PictureArray, nbytes: int, x: int, y: int, width: int) -> str:
    """A bar as wide as the buffer, filled over the bytes the array views."""
    if array.span is None or nbytes <= 0:
        return ""
    start, stop = array.span
    x0 = x + width * start / nbytes
    w = max(width * (stop - start) / nbytes, 3.0)  # a few elements stay visible
    return (
        f'<g class="region"><title>views bytes {start} to {stop} of buffer '
        f"{_esc(array.buffer)} ({nbytes} bytes)</title>"
        f'<rect x="{x}" y="{y}" width="{width}" height="4" fill="#e0e0e0"/>'
        f'<rect x="{x0:.1f}" y="{y}" width="{w:.1f}" height="4" fill="#1565c0"/></g>'
    )


def _view_span(array: Array) -> tuple[int, int] | None:
    """The bytes ``[start, stop)`` of its memory owner that ``array`` spans, if NumPy can tell."""
    data = array._data
    owner: Any = array._device.backend.memory_owner(data)
    try:
        low, high = np.lib.array_utils.byte_bounds(data)
        if not hasattr(owner, "__array_interface__"):
            owner = np.frombuffer(owner, np.uint8)
        base, _ = np.lib.array_utils.byte_bounds(owner)
    except (AttributeError, TypeError, ValueError):
        return None  # memory NumPy cannot see (a GPU's)
    return int(low - base), int(high - base)


def _holders_text(buf: PictureBuffer) -> str:
    shown = len(buf.arrays)
    text = f"{buf.holders} holder{'' if buf.holders == 1 else 's'}"
    if buf.holders != shown:
        text += f" ({shown} shown)"
    return text


def _describe(buf: PictureBuffer) -> str:
    return f"{buf.state}, {_holders_text(buf)}, {buf.nbytes} bytes"


def _fit(text: str, width: int = 28) -> str:
    """Shorten ``text`` to fit a box (the full text is in the box's tooltip)."""
    return text if len(text) <= width else text[: width - 1] + "\u2026"


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def _dot_string(text: str) -> str:
    return '"' + text.replace('"', '\\"') + '"'


def _dot_id(kind: str, name: str) -> str:
    return _dot_string(f"{kind}:{name}")


def buffer_facts(array: Array) -> tuple[int, str, int, int]:
    """(buffer id, state, holders, nbytes) of ``array``'s buffer, changing nothing."""
    holders = cow.holder_count(array)
    state = cow.state_of(array)
    buf = cow.settled_buffer(array)
    if buf is None:
        # No record: the array is the only holder of its memory.
        backend = array._device.backend
        owner = backend.memory_owner(array._data)
        return cow.stable_id(owner), "private", 1, backend.owner_nbytes(array._data)
    return buf.id, state, holders, buf.nbytes


def _caller_names(
    arrays: Sequence[Array], named: dict[str, Array], frame: FrameType | None
) -> list[str]:
    """Names of the caller's global variables holding ``arrays``; ``a<i>`` elsewhere.

    Only globals: in CPython 3.11 reading a frame's ``f_locals`` leaves a
    snapshot dict on the frame that holds every local, so an array deleted
    afterwards would still count as a holder.
    """
    scope = frame.f_globals if frame is not None else {}
    taken = set(named)
    names = []
    for i, array in enumerate(arrays):
        found = next(
            (
                name
                for name, value in scope.items()
                if value is array and not name.startswith("_") and name not in taken
            ),
            f"a{i}",
        )
        taken.add(found)
        names.append(found)
    return names


def sharing_picture(
    *arrays: Array, names: Sequence[str] | None = None, **named: Array
) -> SharingPicture:
    """Draw which of ``arrays`` share which buffer, with holders and states.

    Parameters
    ----------
    *arrays : Array
        Arrays to show, named by ``names``.
    names : sequence of str, optional
        One name per positional array. By default each is named after a
        global variable of the calling module that holds it (at a notebook's
        or script's top level, ``sharing_picture(x, y)`` shows ``x`` and
        ``y``), else ``a0``, ``a1``, ... (a function's local variables are
        not read: reading them would keep its arrays alive).
    **named : Array
        Arrays passed by name: ``sharing_picture(x=x, y=y)``.

    Returns
    -------
    SharingPicture
        ``print()`` it for text; a notebook shows it as SVG. Buffers are
        named as traces and warnings name them (one letter per buffer for
        the life of the process, given in the order buffers are first
        shown); ``holders`` counts every
        holder (arrays not shown and NumPy exports too). States: ``private``,
        ``shared``, ``exposed`` (a DLPack consumer may write it) and
        ``foreign`` (imported memory).

    Examples
    --------
    >>> import cowarray as ca
    >>> x = ca.zeros(1000)
    >>> window = x[:10]
    >>> z = x + 1
    >>> print(ca.sharing_picture(x=x, window=window, z=z))
    buffer A: shared, 2 holders, 8000 bytes
      x       (1000,) float64, views 8000 bytes
      window  (10,) float64, views 80 bytes
    buffer B: private, 1 holder, 8000 bytes
      z       (1000,) float64, views 8000 bytes
    """
    if names is None:
        names = _caller_names(arrays, named, sys._getframe(1))
    elif isinstance(names, str) or len(names) != len(arrays):
        raise ValueError(
            f"sharing_picture: names must give one name per array ({len(arrays)}), got {names!r}"
        )
    entries = list(zip(names, arrays, strict=True)) + list(named.items())
    seen_names: set[str] = set()
    picture_arrays: list[PictureArray] = []
    buffers: dict[int, PictureBuffer] = {}
    for name, array in entries:
        if type(array) is not Array:
            raise TypeError(
                f"sharing_picture: {name} must be a cowarray Array, got {type(array).__name__}"
            )
        if not isinstance(name, str) or name in seen_names:
            raise ValueError(f"sharing_picture: names must be distinct strings, got {name!r}")
        seen_names.add(name)
        buffer_id, state, holders, nbytes = buffer_facts(array)
        buf = buffers.get(buffer_id)
        if buf is None:
            label = buffer_name(buffer_id)
            buf = PictureBuffer(label, buffer_id, state, holders, nbytes, ())
        buffers[buffer_id] = PictureBuffer(
            buf.label, buf.buffer_id, buf.state, buf.holders, buf.nbytes, (*buf.arrays, name)
        )
        data = array._data
        shape = tuple(int(n) for n in data.shape)
        picture_arrays.append(
            PictureArray(
                name, shape, str(data.dtype), int(data.nbytes), buf.label, _view_span(array)
            )
        )
    return SharingPicture(picture_arrays, list(buffers.values()))
