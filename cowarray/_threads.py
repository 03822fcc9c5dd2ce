"""What the core and a backend's thread pool share about threads: which
thread a helper works for, and whether a thread is inside an in-place write.

A backend that splits one call over helper threads (the NumPy backend's
element-wise pool) enters each helper in :data:`WORKING_FOR` while it
computes a block of another thread's call. Code that runs on the helper
meanwhile (a garbage collection's callback, a ``__del__``) is then, for
every "wait for that thread" decision, part of the call it computes:
waiting for the caller would wait for itself (the caller waits for this
block).

The core says, through :func:`inside_a_write`, whether a thread is inside an
in-place write that other threads may be waiting for. A thread there must
not start new threads: a thread's start waits until the new thread runs, and
code run on the new thread before that (a gc callback) may wait for that very
write. Such work is put off (:func:`defer_until_writes_end`) and the core
runs it when the thread's writes have ended (:func:`run_deferred`). Nothing
here knows what the call or the write is.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Final

__all__ = [
    "DEFERRED",
    "WORKING_FOR",
    "defer_until_writes_end",
    "inside_a_write",
    "run_deferred",
    "set_writing_test",
]

#: helper thread id -> the id of the thread whose call it is computing now.
#: Each helper writes only its own key (one dict operation, atomic on every
#: build); readers look up their own thread.
WORKING_FOR: Final[dict[int, int]] = {}

#: thread id -> work put off until that thread's in-place writes end.
DEFERRED: Final[dict[int, list[Callable[[], object]]]] = {}

_get_ident: Final = threading.get_ident


def _never_writing() -> bool:
    return False


_writing: Callable[[], bool] = _never_writing


def set_writing_test(test: Callable[[], bool]) -> None:
    """Called once, by the core: ``test()`` says whether the calling thread
    is inside an in-place write (one another thread may be waiting for)."""
    global _writing
    _writing = test


def inside_a_write() -> bool:
    """Whether the calling thread is inside an in-place write, its own or,
    as a helper, the write of the thread it computes for."""
    return _get_ident() in WORKING_FOR or _writing()


def defer_until_writes_end(work: Callable[[], object]) -> None:
    """Run ``work()`` on this thread once its in-place writes have ended
    (once: the same work put off twice runs once)."""
    waiting = DEFERRED.setdefault(_get_ident(), [])
    if work not in waiting:
        waiting.append(work)


def run_deferred() -> None:
    """Run the work this thread put off (the core calls this when the
    thread's last in-place write ends; a helper, when it stops helping)."""
    if inside_a_write():
        return
    for work in DEFERRED.pop(_get_ident(), ()):
        work()


def _forget_helpers_after_fork() -> None:
    # A forked child has only the forking thread: no helper computes
    # anything, and no other thread's work is waiting.
    WORKING_FOR.clear()
    me = _get_ident()
    for thread in list(DEFERRED):
        if thread != me:
            del DEFERRED[thread]


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_helpers_after_fork)
