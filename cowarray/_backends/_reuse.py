"""Result blocks of big element-wise operations, reused once nothing can reach them.

In ``c * 2.0 + 1.0`` NumPy writes ``+ 1.0`` into the temporary ``c * 2.0``
(temporary elision: it can see that only the interpreter's stack holds it).
Python code cannot see that (numpy#28681), and without it every such
expression allocates a second block while the first is alive; at these sizes
glibc maps each block fresh and returns it at ``free``, so every call pays a
page fault per 4 KiB (measured, 10^5 float64: 1168 us for NumPy without
elision, 53 us with it).

This module keeps the last few result blocks it handed out. A block is given
again only when the list here holds the one reference to its ndarray and no
weak reference to it lives: then no Array, view, NumPy export, memoryview or
DLPack capsule can reach its memory (each of them holds a reference to the
ndarray or to a view whose ``base`` it is), and nothing can reach it later
(a weak reference taken while a dead result was alive, through
``gc.get_referents``, revived the block as the next result's memory), so
writing it changes no value anyone can see. The check and
the hand-out run under a lock, and the caller holds the block before the lock
is released, so two threads never get one block.

What it may keep: at most :data:`MAX_BLOCKS` blocks and :func:`get_temporary_reuse` bytes
in all (:func:`set_temporary_reuse`; ``COWARRAY_TEMPORARY_REUSE``
bytes; 0 turns it off and frees them), each at least :data:`MIN_BYTES`
(NumPy's own elision threshold). Blocks are C-ordered, of one dtype and
shape, made by ``np.empty``.
"""

from __future__ import annotations

import math
import os
import sys
import threading
import weakref
from collections.abc import Callable
from typing import Any, Final

import numpy as np

from .._interpreter import held_by_a_list_baseline
from ._common import int_from_environment

__all__ = [
    "KNOWN_WEAK_REFERENCES",
    "MAX_BLOCKS",
    "MIN_BYTES",
    "ON_BUDGET_CHANGE",
    "ON_REUSE",
    "empty",
    "get_temporary_reuse",
    "set_temporary_reuse",
]

#: Blocks smaller than this are left to NumPy's allocator (NumPy elides from here).
MIN_BYTES: Final = 256 * 1024
#: At most this many blocks are kept.
MAX_BLOCKS: Final = 4
_DEFAULT_BUDGET: Final = 256 * 1024 * 1024
_VARIABLE: Final = "COWARRAY_TEMPORARY_REUSE"

#: Each tells how many of a block's weak references are its own (the core's
#: registry of buffer ids keeps one to each memory it named): any other
#: weak reference could revive the block after it is handed out again.
KNOWN_WEAK_REFERENCES: Final[list[Callable[[object], int]]] = []


def _only_known_weak(block: object) -> bool:
    known = 0
    for count in KNOWN_WEAK_REFERENCES:
        known += count(block)
    return _getweakrefcount(block) <= known


#: Called with a block's ndarray before it is handed out again: the
#: copy-on-write core forgets the buffer id of its last life (ids are never
#: reused, though memory is).
ON_REUSE: Final[list[Callable[[object], None]]] = []

# Re-entrant: a collection inside a section may run code that computes.
_lock = threading.RLock()
_busy = False  # True while a thread is inside a section (only it can see it so)
_blocks: list[np.ndarray] = []  # least recently handed out first
_kept_bytes = 0


_budget: int = int_from_environment(_VARIABLE, _DEFAULT_BUDGET, 0)


#: Called after the budget changes (the element-wise wrappers' size gates).
ON_BUDGET_CHANGE: Final[list[Callable[[], None]]] = []


def set_temporary_reuse(nbytes: int) -> None:
    """Set how much memory big element-wise results may keep for reuse.

    NumPy writes ``c * 2.0 + 1.0``'s second operation into the temporary
    ``c * 2.0``, which only the interpreter can see is a temporary. cowarray
    instead keeps the blocks of its last few big element-wise results
    (at least 256 KiB each, at most 4) and gives one again to a later result
    of the same shape and dtype once nothing can reach it: no Array, view,
    NumPy export or DLPack capsule holds it. Allocating fresh blocks of this
    size costs a page fault every 4 KiB (an expression on 10^5 float64 took
    about 15 times as long). The blocks kept count against ``nbytes``; they
    stay allocated between operations (the price: up to ``nbytes`` more
    memory than NumPy keeps). The ``COWARRAY_TEMPORARY_REUSE`` environment
    variable, read at import, sets the starting value (default 256 MiB).

    Parameters
    ----------
    nbytes : int
        The most bytes kept; ``0`` keeps none and lets go of those kept.

    Raises
    ------
    TypeError
        If ``nbytes`` is not an integer.
    ValueError
        If ``nbytes`` is negative.

    See Also
    --------
    get_temporary_reuse

    Examples
    --------
    >>> import cowarray as ca
    >>> before = ca.get_temporary_reuse()
    >>> ca.set_temporary_reuse(0)  # allocate every result afresh, as NumPy does
    >>> ca.get_temporary_reuse()
    0
    >>> ca.set_temporary_reuse(before)
    """
    global _budget
    if isinstance(nbytes, bool) or not isinstance(nbytes, int):
        raise TypeError(f"nbytes must be an int (a number of bytes), got {type(nbytes).__name__}")
    if nbytes < 0:
        raise ValueError(f"nbytes must be at least 0 (0 turns reuse off), got {nbytes}")
    with _lock:
        _budget = nbytes
        _shrink_to(nbytes)
    for update in ON_BUDGET_CHANGE:
        update()


def get_temporary_reuse() -> int:
    """How many bytes big element-wise results may keep for reuse.

    See :func:`set_temporary_reuse`.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.get_temporary_reuse() >= 0
    True
    """
    return _budget


_getrefcount = sys.getrefcount
_getweakrefcount = weakref.getweakrefcount


#: What ``_getrefcount(block)`` reads, inside :func:`empty`'s loop, for a
#: block only the list holds (measured on this interpreter at import, in a
#: loop of the same shape: cowarray._interpreter).
_FREE: Final = held_by_a_list_baseline()


def empty(shape: tuple[int, ...], dtype: np.dtype[Any]) -> np.ndarray:
    """An uninitialised C-ordered array: a kept block nothing else can reach,
    or a new one (kept for later if it is big enough and the budget allows)."""
    global _busy
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes < MIN_BYTES or nbytes > _budget:
        return np.empty(shape, dtype)
    reused = None
    # (acquire and release rather than a with statement, and the count
    # inline: this section ran at every big element-wise result, and cost
    # a tenth of ``x * y`` at 10^5 elements)
    _lock.acquire()
    try:
        if _busy:  # a gc callback inside this section, on this thread: leave the list
            return np.empty(shape, dtype)
        _busy = True
        try:
            for index in range(len(_blocks) - 1, -1, -1):  # the most recent first: in cache
                block = _blocks[index]
                if (
                    _getrefcount(block) <= _FREE
                    and (not _getweakrefcount(block) or _only_known_weak(block))
                    and block.shape == shape
                    and (block.dtype is dtype or block.dtype == dtype)
                ):
                    del _blocks[index]
                    _blocks.append(block)  # the most recently handed out last
                    reused = block
                    break
        finally:
            _busy = False
    finally:
        _lock.release()
    if reused is not None:
        # (outside the lock: a hook takes its own, and may run collections)
        for forget in ON_REUSE:
            forget(reused)
        return reused
    fresh = np.empty(shape, dtype)
    with _lock:
        if nbytes <= _budget and not _busy:
            _keep(fresh)
    return fresh


def _keep(block: np.ndarray) -> None:
    global _kept_bytes
    _blocks.append(block)
    _kept_bytes += block.nbytes
    while len(_blocks) > MAX_BLOCKS or _kept_bytes > _budget:
        _kept_bytes -= _blocks.pop(0).nbytes  # (a block in use stays its holder's)


def _shrink_to(nbytes: int) -> None:
    global _kept_bytes
    while _blocks and _kept_bytes > nbytes:
        _kept_bytes -= _blocks.pop(0).nbytes


def _after_fork_in_child() -> None:
    global _lock, _busy
    _lock = threading.RLock()
    _busy = False


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
