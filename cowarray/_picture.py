"""A picture of sharing: which arrays hold which buffer, as text, SVG or dot.

The picture is a snapshot: names, shapes and numbers taken when it is made.
It keeps no reference to the arrays (a kept reference would count as a
holder). SVG is written by hand, so nothing heavy is imported.
"""

from __future__ import annotations

import html
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._array import Array
from ._core import holder_count, settled_buffer, stable_id, state_of
from ._interpreter import location, outside_frame
from ._observe import buffer_name, format_bytes

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep

__all__ = ["PictureArray", "PictureBuffer", "SharingPicture", "sharing_picture"]

# Fill colours of buffer boxes, by state, and what the legend says of each.
_STATE_COLOURS = {
    "private": "#e8f5e9",
    "shared": "#e3f2fd",
    "exposed": "#fff3e0",
    "foreign": "#f3e5f5",
}
_STATE_MEANINGS = {
    "private": "one holder, a write goes in place",
    "shared": "several holders, a write copies first",
    "exposed": "lent to NumPy/torch, they may write it",
    "foreign": "NumPy's/torch's memory, they may write it",
}
# What the box beside an exposed or foreign buffer says: the other side.
_OUTSIDE = {
    "exposed": ("NumPy array / torch tensor", "shares it: both see writes"),
    "foreign": ("NumPy array / torch tensor", "owns it, may still write it"),
}
_VIEWED = "#1565c0"  # the part of its buffer an array views
_VIEWED_FOREIGN = "#8e24aa"  # the same, in memory from outside cowarray


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
                views = format_bytes(a.view_nbytes)
                lines.append(f"  {name.ljust(width)}  {a.shape} {a.dtype}, views {views}")
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
        """An SVG drawing: each buffer with the arrays that view it, and a legend.

        Arrays are boxes on the left, grouped by buffer, each with an arrow
        to its buffer and a bar that marks the part of the buffer it views
        (purple for memory from outside cowarray). An exposed or foreign
        buffer has a box on the right for the NumPy array or torch tensor
        that shares its memory.
        """
        row, box_h, left_w, mid_w, side_w, gap = 60, 46, 230, 270, 230, 70
        left_x, mid_x = 20, 20 + left_w + gap
        side_x = mid_x + mid_w + gap
        outside = any(b.state in _OUTSIDE for b in self.buffers)
        width = (side_x + side_w if outside else mid_x + mid_w) + 20
        width = max(width, 790)  # the legend's width
        by_name = {a.name: a for a in self.arrays}
        parts: list[str] = []
        arrays: list[str] = []
        buffers: list[str] = []
        y = 20
        for b in self.buffers:
            top = y
            for name in b.arrays:
                a = by_name[name]
                colour = _VIEWED_FOREIGN if b.state == "foreign" else _VIEWED
                arrays.append(
                    f'<g class="array"><title>{_esc(a.name)}: {a.shape} {a.dtype}, views '
                    f"{format_bytes(a.view_nbytes)}</title>"
                    f'<rect x="{left_x}" y="{y}" width="{left_w}" height="{box_h}" rx="4" '
                    'fill="#ffffff" stroke="#333"/>'
                    f'<text x="{left_x + 8}" y="{y + 16}" font-weight="bold">'
                    f"{_esc(_fit(a.name))}</text>"
                    f'<text x="{left_x + 8}" y="{y + 32}">'
                    f"{_esc(_fit(f'{a.shape} {a.dtype}'))}</text>"
                    f"{_span_bar(a, b.nbytes, left_x + 8, y + 37, left_w - 16, colour)}</g>"
                )
                middle = y + box_h / 2
                # Straight across, each into its own point of the buffer's edge.
                parts.append(
                    f'<line x1="{left_x + left_w}" y1="{middle}" x2="{mid_x - 2}" y2="{middle}" '
                    'stroke="#555" marker-end="url(#arrow)"/>'
                )
                y += row
            bottom = y - row + box_h
            buffers.append(_buffer_box(b, mid_x, top, mid_w, bottom - top))
            if b.state in _OUTSIDE:
                parts.append(_outside_box(b, mid_x + mid_w, side_x, top, side_w, box_h))
        legend_y = max(y, 20 + row) + 10
        height = legend_y + 4 * 18 + 10
        head = [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="monospace" font-size="12">',
            '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" '
            'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
            '<path d="M 0 0 L 10 5 L 0 10 z" fill="#555"/></marker></defs>',
        ]
        legend = _legend(legend_y)
        return "".join([*head, *arrays, *buffers, *parts, *legend, "</svg>"])


def _buffer_box(b: PictureBuffer, x: int, y: int, width: int, height: int) -> str:
    colour = _STATE_COLOURS.get(b.state, "#ffffff")
    return (
        f'<g class="buffer"><title>buffer {_esc(b.label)}, id {b.buffer_id}: '
        f"{_esc(_STATE_MEANINGS.get(b.state, b.state))}</title>"
        f'<rect x="{x}" y="{y}" width="{width}" height="{height}" rx="4" '
        f'fill="{colour}" stroke="#333"/>'
        f'<text x="{x + 8}" y="{y + 16}" font-weight="bold">'
        f"buffer {_esc(b.label)} ({_esc(b.state)})</text>"
        f'<text x="{x + 8}" y="{y + 32}">'
        f"{_esc(_holders_text(b))}, {format_bytes(b.nbytes)}</text></g>"
    )


def _outside_box(b: PictureBuffer, x0: int, x: int, y: int, width: int, height: int) -> str:
    """The other side of an exposed or foreign buffer: memory NumPy or torch holds too."""
    first, second = _OUTSIDE[b.state]
    middle = y + height / 2
    return (
        f'<g class="outside"><title>outside cowarray: {_esc(first)} that shares buffer '
        f"{_esc(b.label)}</title>"
        f'<line x1="{x0 + 2}" y1="{middle}" x2="{x - 2}" y2="{middle}" stroke="#555" '
        'stroke-dasharray="4 3" marker-start="url(#arrow)" marker-end="url(#arrow)"/>'
        f'<rect x="{x}" y="{y}" width="{width}" height="{height}" rx="4" '
        'fill="#ffffff" stroke="#333" stroke-dasharray="4 3"/>'
        f'<text x="{x + 8}" y="{y + 16}" font-weight="bold">{_esc(first)}</text>'
        f'<text x="{x + 8}" y="{y + 32}">{_esc(second)}</text></g>'
    )


def _legend(y: float) -> list[str]:
    """What the bars and the colours mean: the viewed part, then each state."""
    parts = ['<g class="legend" fill="#333">']
    x = 20
    for colour, text in (
        (_VIEWED, "the part of its buffer an array views"),
        (_VIEWED_FOREIGN, "the same, in memory from NumPy/torch"),
    ):
        parts.append(
            f'<rect x="{x}" y="{y + 4}" width="36" height="4" fill="#e0e0e0"/>'
            f'<rect x="{x + 12}" y="{y + 4}" width="12" height="4" fill="{colour}"/>'
            f'<text x="{x + 44}" y="{y + 10}">{_esc(text)}</text>'
        )
        x += 380
    for i, (state, colour) in enumerate(_STATE_COLOURS.items()):
        sx, sy = 20 + 380 * (i % 2), y + 18 * (1 + i // 2) + 4
        parts.append(
            f'<rect x="{sx}" y="{sy}" width="12" height="12" fill="{colour}" stroke="#333"/>'
            f'<text x="{sx + 18}" y="{sy + 10}">{state}: {_esc(_STATE_MEANINGS[state])}</text>'
        )
    parts.append(
        f'<text x="20" y="{y + 18 * 3 + 18}">holders: the arrays (shown or not) and NumPy '
        "exports that use the buffer</text></g>"
    )
    return parts


def _span_bar(array: PictureArray, nbytes: int, x: int, y: int, width: int, colour: str) -> str:
    """A bar as wide as the buffer, filled over the bytes the array views."""
    if array.span is None or nbytes <= 0:
        return (
            f'<g class="region"><title>which bytes of buffer {_esc(array.buffer)} it views '
            "is not known here (memory NumPy cannot see)</title>"
            f'<rect x="{x}" y="{y}" width="{width}" height="4" fill="none" stroke="{colour}" '
            'stroke-width="0.8" stroke-dasharray="3 2"/></g>'
        )
    start, stop = array.span
    x0 = x + width * start / nbytes
    w = max(width * (stop - start) / nbytes, 3.0)  # a few elements stay visible
    return (
        f'<g class="region"><title>views bytes {start} to {stop} of buffer '
        f"{_esc(array.buffer)} ({format_bytes(nbytes)})</title>"
        f'<rect x="{x}" y="{y}" width="{width}" height="4" fill="#e0e0e0"/>'
        f'<rect x="{x0:.1f}" y="{y}" width="{w:.1f}" height="4" fill="{colour}"/></g>'
    )


def _view_span(array: Array) -> tuple[int, int] | None:
    """The bytes ``[start, stop)`` of its memory owner that ``array`` spans, if NumPy can tell."""
    data = array._data
    owner: Any = array._device.backend.memory_owner(data)
    try:
        low, high = np.lib.array_utils.byte_bounds(data)
    except (AttributeError, TypeError, ValueError):
        return None  # memory NumPy cannot see (a GPU's)
    try:
        if not hasattr(owner, "__array_interface__"):
            owner = np.frombuffer(owner, np.uint8)
        base, _ = np.lib.array_utils.byte_bounds(owner)
    except (AttributeError, TypeError, ValueError):
        # An owner NumPy cannot read (a torch tensor): an array as large as
        # its buffer views all of it.
        nbytes = array._device.backend.owner_nbytes(data)
        return (0, nbytes) if high - low == nbytes == data.nbytes else None
    return int(low - base), int(high - base)


def _holders_text(buf: PictureBuffer) -> str:
    shown = len(buf.arrays)
    text = f"{buf.holders} holder{'' if buf.holders == 1 else 's'}"
    if buf.holders != shown:
        text += f" ({shown} shown)"
    return text


def _describe(buf: PictureBuffer) -> str:
    return f"{buf.state}, {_holders_text(buf)}, {format_bytes(buf.nbytes)}"


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
    holders = holder_count(array)
    state = state_of(array)
    buf = settled_buffer(array)
    if buf is None:
        # No record: the array is the only holder of its memory.
        backend = array._device.backend
        owner = backend.memory_owner(array._data)
        return stable_id(owner), "private", 1, backend.owner_nbytes(array._data)
    return buf.id, state, holders, buf.nbytes


def _caller_names(arrays: Sequence[Array], named: dict[str, Array], frame: Any) -> list[str]:
    """Names of the caller's global variables holding ``arrays``; ``a<i>`` elsewhere.

    Only globals: in CPython 3.11 reading a frame's ``f_locals`` leaves a
    snapshot dict on the frame that holds every local, so an array deleted
    afterwards would still count as a holder.
    """
    scope = location(frame)[2]  # (its globals; {} where there is no frame)
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
    buffer A: shared, 2 holders, 8.0 kB
      x       (1000,) float64, views 8.0 kB
      window  (10,) float64, views 80 bytes
    buffer B: private, 1 holder, 8.0 kB
      z       (1000,) float64, views 8.0 kB
    """
    if names is None:
        # (past a wrapper of cowarray's own between)
        frame = outside_frame(depth=2)
        names = _caller_names(arrays, named, frame)
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
