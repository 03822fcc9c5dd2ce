"""Which thread a helper thread works for: the one fact the core and a
backend's thread pool share.

A backend that splits one call over helper threads (the NumPy backend's
element-wise pool) enters each helper here while it computes a block of
another thread's call. Code that runs on the helper meanwhile (a garbage
collection's callback, a ``__del__``) is then, for every "wait for that
thread" decision, part of the call it computes: waiting for the caller would
wait for itself (the caller waits for this block). Nothing here knows what
the call is.
"""

from __future__ import annotations

import os
from typing import Final

__all__ = ["WORKING_FOR"]

#: helper thread id -> the id of the thread whose call it is computing now.
#: Each helper writes only its own key (one dict operation, atomic on every
#: build); readers look up their own thread.
WORKING_FOR: Final[dict[int, int]] = {}


def _forget_helpers_after_fork() -> None:
    # A forked child has only the forking thread: no helper computes anything.
    WORKING_FOR.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_helpers_after_fork)
