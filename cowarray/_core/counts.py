"""Reference counts: one way to read them, one way to calibrate a reading.

A decision that reads a reference count (is this record held once? is this
view family's token held by one array? does only a view's ``base`` attribute
reach that memory?) compares the count with what the *same reading* shows
in a situation whose references are known. That number is never written
down: CPython changes what it counts between releases (immortal objects
since 3.12, borrowed stack references since 3.14), so it is measured at
import, on the running interpreter, by running the reading on a probe.

:func:`baseline` is that measurement for a reading through an attribute
(``holder._buf``, ``holder._family``, ``view.base``): the count when the
attribute is the only reference. Two readings measure inside real
operations instead, because their references are those of a call chain,
not of one attribute: the functional update's last-use proof
(cowarray._core.last_use.calibrate) and the temporary of ``x[k] += v``
(cowarray._core.families.calibrate_at_import). All read with
:data:`getrefcount`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, Final

__all__ = ["Probe", "baseline", "getrefcount", "references_through"]

#: The one reading: CPython's count of references to an object (including
#: the argument's own).
getrefcount: Final = sys.getrefcount


class Probe:
    """A holder with each attribute the core counts through, for :func:`baseline`."""

    __slots__ = ("_buf", "_family", "base")


def baseline(reading: Callable[[Any], int], attribute: str, make: Callable[[], object]) -> int:
    """What ``reading(holder)`` shows when ``holder.<attribute>``, a fresh
    ``make()``, is the only reference to that object: measured on this
    interpreter with the very function the decisions call."""
    probe = Probe()
    setattr(probe, attribute, make())
    return reading(probe)


def references_through(obj: object, attribute: str) -> int:
    """The count of ``obj.<attribute>``'s object, read through the attribute
    (the reading holds no reference of its own besides the argument's)."""
    return getrefcount(getattr(obj, attribute))
