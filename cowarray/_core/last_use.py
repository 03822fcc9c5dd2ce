"""Whether a functional update is the last use of its array (no copy needed).

``y = f().at[i].set(v)`` updates an array that nothing else references:
once the update returns it is garbage, so the update may write into its
memory instead of copying it. This module decides that from CPython's
reference counts, and only that: a count is a fact about the whole process,
while the caller's code (which an earlier version read) is not. A receiver
that forwards ``.at``, a ``__del__``, a tracer or another thread could all
reach an array that the caller's bytecode seemed about to drop.

Two counts are taken inside the update: of the array, and of its
``x.at[index]`` object (the ``_At``). How many references certainly exist
(the ``_At``'s slot, the update's own locals, ``sys.getrefcount``'s
argument) differs between CPython releases, so nothing is written down:
:func:`calibrate` runs real updates of fresh arrays at import and measures

* the minimum: a true temporary, referenced by nothing but its update;
* the array held by a name as well, which must count higher, or the array
  count proves nothing and no update is ever done in place;
* the ``_At`` held by a name as well. Up to 3.13 that counts higher. From
  3.14 on it does not: a name's strong reference lets the interpreter
  *borrow* the one it puts on the stack, so ``u = f().at[0]; u.set(1)``
  shows the counts of ``f().at[0].set(1)``. There the counts cannot tell a
  kept ``_At``, and only an array that :func:`cowarray.move` returned (marked
  *donated*) is updated in place: its first update through ``.at`` takes the
  buffer, as the caller asked.

Every reference a caller can hold (a name, a container, an attribute) is a
strong one, and a borrowed stack reference exists only beside a strong one,
so an array count at the minimum proves that nothing but the ``_At``
reaches the array. Anything unexpected only raises the counts, and the
update copies. The update then *moves* the array: should anything reach it
after all (a gc callback walking ``gc.get_objects()``), it finds a moved
array that raises on use, never a second name for the result.

``x[i] = v`` is the zero-copy way to update ``x`` itself;
``x = x.at[i].set(v)`` keeps old ``x`` a value and copies.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from . import counts

if TYPE_CHECKING:
    from .._at import _At

__all__ = ["calibrate", "is_last_use", "temporary_argument_count"]

_getrefcount = counts.getrefcount

#: The references to the array and to the ``_At`` that an update of a true
#: temporary shows, measured by :func:`calibrate` (two ints, not a pair: the
#: proof compares them on every update); -1: nothing proven, never in place.
minimum_array = minimum_at = -1
#: Whether a kept ``_At`` counts higher than a temporary one (up to 3.13).
at_count_proves: bool = False
_measuring = False
_measured: list[tuple[int, int]] = []


def is_last_use(at: _At, donated: bool) -> bool:
    """Whether nothing but the update running on ``at`` can reach its array.

    ``donated``: the array is one :func:`cowarray.move` returned. Must be
    called directly from ``_update``, itself called directly from the
    ``_At`` method the user called, as the calibration is.
    """
    array_count = _getrefcount(at.array)
    if array_count != minimum_array or _measuring:
        if _measuring:
            _measured.append((array_count, _getrefcount(at)))
            return True  # the probes are fresh arrays: taking them copies nothing
        return False  # the array itself is held elsewhere (or nothing is proven)
    if at_count_proves:
        return _getrefcount(at) == minimum_at
    return donated


def calibrate(
    temporary: Callable[[], None], array_kept: Callable[[], None], at_kept: Callable[[], None]
) -> None:
    """Measure the counts of three real updates of fresh arrays: a temporary,
    one whose array a name also holds, one whose ``_At`` a name also holds."""
    global at_count_proves, _measuring, minimum_array, minimum_at
    minimum_array = minimum_at = -1  # (until proven below)
    measured = []
    for probe in (temporary, array_kept, at_kept):
        _measured.clear()
        _measuring = True
        try:
            probe()
        finally:
            _measuring = False
        measured.append(list(_measured))
    ok = sys.implementation.name == "cpython" and all(len(m) == 1 for m in measured)
    if not ok:
        return
    (base,), (array_kept_counts,), (at_kept_counts,) = measured
    if array_kept_counts[0] <= base[0]:
        return  # a held array would look like a temporary: never in place
    minimum_array, minimum_at = base
    at_count_proves = at_kept_counts[1] > base[1]


def temporary_argument_count(
    temporary: Callable[[], object], named: Callable[[], object], measured: list[int]
) -> int | None:
    """What a function's first reading of its argument shows when its caller
    passed a temporary (``to_torch(a + b)``), or None when the counts prove
    nothing on this interpreter.

    ``temporary`` and ``named`` each call the function once from Python code,
    with a fresh array and with one a name also holds; the function appends
    its reading to ``measured``. The argument of the module docstring holds:
    every reference a caller can keep is a strong one, so a reading at the
    temporary's count proves that nothing but the running call reaches the
    array, provided a named array reads higher (else None: never).
    """
    readings = []
    for probe in (temporary, named):
        measured.clear()
        probe()
        readings.append(list(measured))
    measured.clear()
    if sys.implementation.name != "cpython" or any(len(r) != 1 for r in readings):
        return None
    (temporary_count,), (named_count,) = readings
    return temporary_count if named_count > temporary_count else None
