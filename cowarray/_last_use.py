"""Whether a functional update is the last use of its array (no copy needed).

``y = f().at[i].set(v)`` and ``move(x).at[i].set(v)`` update an array that
nothing else references: once the update returns it is garbage. The update
can then write into that array's memory instead of copying it. This module
decides, from CPython reference counts, that no one else can ever see that
array again.

The test is an exact count, never a guess: inside ``_At.<method>`` the
references to the ``_At`` object and to its array that certainly exist are
known (the method's ``self``, ``_update``'s parameter and local, the
argument of ``sys.getrefcount``). If the counts equal exactly that minimum,
there is no other reference anywhere: no variable, container, frame or
thread can reach the array. Anything unexpected (a debugger's frame hook that
adds references, another interpreter) only raises the counts, so the update
falls back to copying. The minimum is also checked once at import, by running
a real update on a fresh array; if the interpreter counts differently the
shortcut stays off.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Final

from . import _cow

if TYPE_CHECKING:
    from ._array import Array
    from ._at import _At

__all__ = ["is_last_use", "take_over"]

_getrefcount = sys.getrefcount

#: (references to the array, references to the ``_At``) that certainly exist
#: when ``is_last_use`` measures them from ``_update``: for the array, the
#: ``_At`` slot, ``_update``'s local ``x`` and getrefcount's argument; for the
#: ``_At``, the method's ``self``, ``_update``'s ``at``, ``is_last_use``'s
#: ``at`` and getrefcount's argument.
MINIMUM: Final = (3, 4)

#: Whether the import-time self-test saw exactly MINIMUM (see calibrate()).
enabled = False
_measuring = False
_measured: list[tuple[int, int]] = []


def is_last_use(at: _At) -> bool:
    """True if nothing but the running update references ``at`` and its array."""
    counts = (_getrefcount(at.array), _getrefcount(at))
    if _measuring:
        _measured.append(counts)
        return False
    return enabled and counts == MINIMUM


def take_over(at: _At) -> Array:
    """A new Array on ``at.array``'s memory, which the update may write in place.

    Only for an array :func:`is_last_use` has shown unreachable. Memory that
    other arrays share is first copied (the one region materialization the
    update would have paid anyway); exposed or foreign memory falls back to a
    lazy clone, which the core copies.
    """
    from ._array import lazy_clone, new_array

    x = at.array
    _cow.make_private(x)
    if x._buf is not None:
        return lazy_clone(x)
    _cow.notify("takeover", x, None, 0)
    return new_array(x._data, None, x._device)


def calibrate(run_update: object) -> None:
    """Run ``run_update()`` (one real update of a fresh array) and enable the
    shortcut only if it measured exactly :data:`MINIMUM`."""
    global enabled, _measuring
    _measured.clear()
    _measuring = True
    try:
        run_update()  # type: ignore[operator]
    finally:
        _measuring = False
    enabled = sys.implementation.name == "cpython" and _measured == [MINIMUM]
