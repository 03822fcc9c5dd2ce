"""Whether a functional update is the last use of its array (no copy needed).

``y = f().at[i].set(v)`` updates an array that nothing else references:
once the update returns it is garbage, so the update may write into its
memory instead of copying it. This module decides that from CPython's
reference counts, and only that: a count is a fact about the whole process,
while the caller's code (which an earlier version read) is not. A receiver
that forwards ``.at``, a ``__del__``, a tracer or another thread could all
reach an array that the caller's bytecode seemed about to drop.

The test is exact. Inside ``_At.<method>`` the references to the ``_At``
object and to its array that certainly exist are known (the method's
``self``, ``_update``'s parameter and local, the arguments of
``sys.getrefcount``). How many that is differs between CPython releases
(3.14 borrows references on the stack), so it is measured at import by
running a real update of a fresh array (:func:`calibrate`), never written
down. If the counts equal that minimum there is no other reference anywhere:
no variable, container, frame or thread can reach the array. Anything
unexpected (a debugger's frame hook, another interpreter) only raises the
counts, so the update falls back to copying. The update then *moves* the
array (:func:`cowarray.move`): should anything reach it after all (a gc
callback walking ``gc.get_objects()``), it finds a moved array that raises
on use, never a second name for the result.

``move(x).at[i].set(v)`` is the explicit form: ``move`` hands ``x``'s
memory to a temporary. ``x[i] = v`` is the zero-copy way to update ``x``
itself; ``x = x.at[i].set(v)`` keeps old ``x`` as a value and copies.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._at import _At

__all__ = ["calibrate", "is_temporary"]

_getrefcount = sys.getrefcount

#: (references to the array, references to the ``_At``) that an update of a
#: true temporary shows, measured by :func:`calibrate`; None: never in place.
minimum: tuple[int, int] | None = None
_measuring = False
_measured: list[tuple[int, int]] = []


def is_temporary(at: _At) -> bool:
    """Whether nothing but the update running on ``at`` references its array.

    Must be called directly from ``_update``, itself called directly from
    the ``_At`` method the user called, as the calibration is.
    """
    counts = (_getrefcount(at.array), _getrefcount(at))
    if _measuring:
        _measured.append(counts)
        return True  # the probe is a fresh array: taking it copies nothing
    return counts == minimum


def calibrate(run_update: object) -> None:
    """Run ``run_update()`` (one real update of a fresh array, referenced by
    nothing else) and take the counts it shows as the minimum."""
    global minimum, _measuring
    _measured.clear()
    _measuring = True
    try:
        run_update()  # type: ignore[operator]
    finally:
        _measuring = False
    exact = sys.implementation.name == "cpython" and len(_measured) == 1
    minimum = _measured[0] if exact else None
