"""Calling back when an object dies: how cowarray learns that a consumer let
go of memory it was lent.

A NumPy export's base object, the ndarray behind a DLPack capsule, the view
``to_torch`` hands over: each is watched by one weak reference with a
callback, in one registry. (weakref.finalize does the same at three times
the cost, a fifth of ``to_torch``.) The callback is the boundary's release
(cowarray._core.boundary); this module knows nothing of what it releases.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

__all__ = ["call_at_death", "watched"]

#: id(weak reference) -> (the weak reference, the callback, what must live
#: as long as the watched object: the memory it points into).
_WATCHES: dict[int, tuple[weakref.ref[Any], Callable[[], None], object]] = {}


def call_at_death(
    watched_object: object, callback: Callable[[], None], keep: object = None
) -> None:
    """Call ``callback`` once ``watched_object`` dies; keep ``keep`` alive until then."""
    reference = weakref.ref(watched_object, _died)
    _WATCHES[id(reference)] = (reference, callback, keep)


def _died(
    reference: weakref.ref[Any],
    watches: dict[int, Any] = _WATCHES,
    _id: Callable[[object], int] = id,
) -> None:
    # (the registry and id bound as defaults: an object kept in a module
    # global or on a thread can die at interpreter exit, after CPython has
    # set module globals, and last the builtins, to None)
    watch = watches.pop(_id(reference), None)
    if watch is not None:
        watch[1]()


def watched() -> int:
    """How many objects are watched now (for tests: no watch outlives its object)."""
    return len(_WATCHES)
