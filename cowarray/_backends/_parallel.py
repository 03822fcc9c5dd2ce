"""Element-wise ufuncs on every core for big arrays (the NumPy backend's ``xp``).

NumPy's element-wise loops release the GIL, so one call can be split into
blocks of its output computed at the same time on a thread pool. The NumPy
backend's namespace holds, for each element-wise ufunc of the standard, a
wrapper made by :func:`parallel_ufunc`. Below the threshold it calls the
ufunc at once: one type test and one size test are all that tiny arrays pay,
and they never touch the pool. At or above it the wrapper

- allocates the output once, with the dtype and memory layout NumPy would
  give it (the ufunc itself resolves both, on empty or 2-per-axis slices of
  the inputs);
- splits the output into contiguous blocks: along the flattened output in
  its memory order when the output and every broadcast input have that
  layout, with block edges on multiples of :data:`BLOCK_ALIGN` elements;
  otherwise along the outermost axis long enough; otherwise it makes one call;
- computes ``ufunc(*input_blocks, out=output_block)`` for every block, the
  calling thread taking blocks too (it takes any a busy pool has not started,
  so a call never waits on a queue behind other callers' work).

Results are bitwise identical to one NumPy call: every element is computed by
the same loop from the same operands, and the loops do not depend on where an
element sits in a call (``tests/backends/test_parallel_elementwise.py``
checks this on every ufunc, dtype and layout it can).

NumPy's floating-point error state lives in each thread (a context variable in
NumPy 2). Every block, on a pool thread or the caller, is computed in a fresh
copy of a *recording* context (cowarray._backends._error_state: made once, at
import, so nothing sets NumPy's variable while cowarray runs, which can crash
CPython 3.11 when a gc callback sets one too), whose state sends each
block's flags to the block; the caller then reports the union once, in
NumPy's order and words, under its own error state: ``raise`` raises
FloatingPointError, ``warn`` warns once (naming the line that called the
operation), ``call``, ``print`` and ``log`` do what NumPy does. Code run
inside a block (a gc callback, a ``__del__``) reports its own flags at once,
under the state it would have had, and whatever it changes there dies with
the copy. An exception in a block is raised in the caller once every block
has finished.

Given ``out=`` (the in-place operators write ``ufunc(x, y, out=x)``), an
input that may share memory with ``out`` other than element for element makes
it one NumPy call, which handles the overlap.

The pool holds ``get_num_threads() - 1`` daemon threads and is made on first
use; importing cowarray starts none. A forked child forgets its parent's pool
(``os.register_at_fork``) and makes its own. No Python lock is held while
NumPy computes; the threads share one :class:`queue.SimpleQueue`.
"""

from __future__ import annotations

import math
import os
import queue
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, Final

import numpy as np

from .. import _threads
from .._threads import WORKING_FOR
from . import _error_state, _reuse
from ._common import int_from_environment

__all__ = [
    "BLOCK_ALIGN",
    "DEFAULT_THRESHOLD",
    "get_num_threads",
    "get_parallel_threshold",
    "parallel_ufunc",
    "set_num_threads",
    "set_parallel_threshold",
]

#: Elements from which a call is split, as measured on the 2-core machine
#: (``benchmarks/parallel_threshold.py``): below 2^20 splitting ``a + b``, the
#: cheapest loop, was slower than one call (the hand-off to a sleeping thread
#: costs about 60 us there, and a thread on the other core reads the inputs
#: from afar); from 2^20 it was faster (0.90 of the time, 0.75 at 2^21).
DEFAULT_THRESHOLD: Final = 1 << 20

#: Block edges along a flattened output fall on multiples of this many
#: elements (NumPy's buffer size), wherever the output is big enough to keep
#: every thread busy with them: each block then starts as a one-call loop
#: would at that element, vectorized, buffered or aligned.
BLOCK_ALIGN: Final = 8192

_THREADS_VARIABLE: Final = "COWARRAY_NUM_THREADS"
_THRESHOLD_VARIABLE: Final = "COWARRAY_PARALLEL_THRESHOLD"
_NEVER: Final = sys.maxsize

_ndarray: Final = np.ndarray
_SCALARS: Final = (bool, int, float, complex, np.generic)
_COMPUTED_KINDS: Final = frozenset("biufc")


def _machine_threads() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


#: Loops that cost several times ``a + b`` per element split from
#: ``threshold // COSTLY_FACTOR`` elements: on the 2-core machine, with NumPy
#: 2.4's SIMD loops, ``sin`` and ``cos`` take 5-6x ``add``'s time and
#: ``logaddexp`` 15x, and splitting ``sin`` pays from 2^16 elements
#: (``benchmarks/parallel_threshold.py``). ``exp``, ``log``, ``power`` and
#: the other inverse and hyperbolic loops take 0.7-2.5x ``add``'s time:
#: split from 2^16 they took 2-3x one call's time at 10^5 elements (waking
#: the pool costs about 110 us there), so they split where ``add`` does.
COSTLY_FACTOR: Final = 16
_COSTLY: Final = frozenset({np.cos, np.sin, np.logaddexp, np.logaddexp2})

_num_threads: int = int_from_environment(_THREADS_VARIABLE, _machine_threads(), 1)
_threshold: int = int_from_environment(_THRESHOLD_VARIABLE, DEFAULT_THRESHOLD, 0)
#: What the wrappers compare sizes with: the thresholds, or never with one thread.
_gate: int = _threshold if _num_threads > 1 else _NEVER
_costly_gate: int = _threshold // COSTLY_FACTOR if _num_threads > 1 else _NEVER
#: Elements from which a result may be a reused block (cowarray/_backends/_reuse.py:
#: its byte threshold for 8-byte items; it checks the bytes itself).
_REUSE_ELEMENTS: Final = _reuse.MIN_BYTES // 8


def _direct_below(gate: int) -> int:
    """Below how many elements a wrapper calls the ufunc at once: neither
    split nor given a reused block."""
    return min(gate, _REUSE_ELEMENTS) if _reuse.get_temporary_reuse() else gate


_direct: int = _direct_below(_gate)
_costly_direct: int = _direct_below(_costly_gate)
#: The same two sizes in one-element lists that each wrapper carries as
#: ``split_from``: a caller that already holds the arrays (the operators)
#: compares with ``split_from[0]`` and calls ``__wrapped__`` below it,
#: skipping the wrapper's call (a third of ``a + b`` at 10^3).
_GATE_CELL: Final = [_direct]
_COSTLY_GATE_CELL: Final = [_costly_direct]


# -- the public settings ------------------------------------------------------------


def set_num_threads(n: int) -> None:
    """Set how many threads compute an element-wise operation on a big array.

    Element-wise functions and operators on host arrays of at least
    :func:`get_parallel_threshold` elements split their output into blocks
    computed on ``n`` threads (the calling thread and ``n - 1`` others);
    the results are bitwise those of one NumPy call. ``n=1`` computes
    everything on the calling thread. The default is the number of CPUs this
    process may run on, or the ``COWARRAY_NUM_THREADS`` environment variable
    read at import. GPU arrays are unaffected.

    Parameters
    ----------
    n : int
        The number of threads, at least 1.

    Raises
    ------
    TypeError
        If ``n`` is not an integer.
    ValueError
        If ``n`` is less than 1.

    See Also
    --------
    get_num_threads, set_parallel_threshold

    Examples
    --------
    >>> import cowarray as ca
    >>> before = ca.get_num_threads()
    >>> ca.set_num_threads(1)
    >>> ca.get_num_threads()
    1
    >>> ca.set_num_threads(before)
    """
    global _num_threads
    count = _count("n", n, 1)
    with _pool_lock:
        _num_threads = count
        _update_gate()
        _retire_pool()


def get_num_threads() -> int:
    """The number of threads an element-wise operation on a big array uses.

    See :func:`set_num_threads`.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.get_num_threads() >= 1
    True
    """
    return _num_threads


def set_parallel_threshold(size: int) -> None:
    """Set the element count from which element-wise operations use every thread.

    An element-wise function or operator whose output has at least ``size``
    elements is split into blocks over :func:`get_num_threads` threads; a
    smaller one is one NumPy call, as is everything when the thread count is
    1. Loops that cost tens of cycles per element (``exp``, ``log``, ``sin``,
    ``pow`` and their kin) split from ``size // 16`` elements. The default
    was measured where splitting starts to pay for ``a + b``
    (``benchmarks/parallel_threshold.py``); the ``COWARRAY_PARALLEL_THRESHOLD``
    environment variable, read at import, overrides it. ``0`` splits every
    array of two elements or more (for tests).

    Parameters
    ----------
    size : int
        The number of elements, at least 0.

    Raises
    ------
    TypeError
        If ``size`` is not an integer.
    ValueError
        If ``size`` is negative.

    See Also
    --------
    get_parallel_threshold, set_num_threads

    Examples
    --------
    >>> import cowarray as ca
    >>> before = ca.get_parallel_threshold()
    >>> ca.set_parallel_threshold(10**6)
    >>> ca.get_parallel_threshold()
    1000000
    >>> ca.set_parallel_threshold(before)
    """
    global _threshold
    count = _count("size", size, 0)
    with _pool_lock:
        _threshold = count
        _update_gate()


def get_parallel_threshold() -> int:
    """The element count from which element-wise operations use every thread.

    See :func:`set_parallel_threshold`.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.get_parallel_threshold() > 0
    True
    """
    return _threshold


def _count(name: str, value: object, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
    return value


def _update_gate() -> None:
    global _gate, _costly_gate, _direct, _costly_direct
    _gate = _threshold if _num_threads > 1 else _NEVER
    _costly_gate = _threshold // COSTLY_FACTOR if _num_threads > 1 else _NEVER
    _direct = _direct_below(_gate)
    _costly_direct = _direct_below(_costly_gate)
    _GATE_CELL[0] = _direct
    _COSTLY_GATE_CELL[0] = _costly_direct


_reuse.ON_BUDGET_CHANGE.append(_update_gate)


def _threshold_of(ufunc: np.ufunc) -> int:
    return max(2, _threshold // COSTLY_FACTOR if ufunc in _COSTLY else _threshold)


# -- the pool ----------------------------------------------------------------------


class _Job:
    """One call's blocks; whoever pops a block index computes that block."""

    __slots__ = ("blocks", "caller", "done", "errors", "flags", "pending", "ufunc")

    def __init__(self, ufunc: np.ufunc, blocks: list[tuple[tuple[Any, ...], np.ndarray]]) -> None:
        self.ufunc = ufunc
        #: The thread that made the call and waits for its blocks.
        self.caller = threading.get_ident()
        self.blocks = blocks
        self.pending = list(range(len(blocks)))
        self.done: queue.SimpleQueue[int] = queue.SimpleQueue()
        self.errors: list[BaseException | None] = [None] * len(blocks)
        self.flags = [0] * len(blocks)

    def take(self) -> int:
        """Compute one block not yet taken; its index, or -1 if none was left.

        Run in a recording context (cowarray._backends._error_state): the
        flags the block's ufunc call raises are this block's, kept for the
        caller to report.
        """
        me = threading.get_ident()
        helping = me != self.caller
        if helping:
            # From before the block is taken (the caller then waits for it)
            # to its end, code run here (a gc callback) must not wait for the
            # caller's write: it is part of it (cowarray._threads).
            WORKING_FOR[me] = self.caller
        try:
            try:
                index = self.pending.pop()  # atomic on every build, free-threaded too
            except IndexError:
                return -1
            inputs, out = self.blocks[index]
            word = _error_state.block_flags()
            saved, word.flags = word.flags, 0
            try:
                self.ufunc(*inputs, out=out)
            except BaseException as error:  # reported by the caller, as NumPy would
                self.errors[index] = error
            finally:
                self.flags[index], word.flags = word.flags, saved
                if helping:
                    # (handed back before this thread stops working for the
                    # caller: code run here in between, a tracer's line
                    # event, would wait for the caller, who waits for this)
                    self.done.put(index)
            return index
        finally:
            if helping:
                del WORKING_FOR[me]


_error_state.BLOCK_CODES.add(_Job.take.__code__)


class _Pool:
    """Daemon threads that take blocks of the jobs put on one queue."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self.threads = [
            threading.Thread(
                target=_work, args=(self.jobs,), name=f"cowarray-parallel-{i}", daemon=True
            )
            for i in range(workers)
        ]

    def start(self) -> bool:
        """Start the threads; False (the pool closed, its queue emptied) if
        the interpreter starts no new ones (at shutdown)."""
        for thread in self.threads:
            try:
                thread.start()
            except RuntimeError:
                self.close()
                while not self.jobs.empty():  # (offered jobs hold arrays)
                    self.jobs.get()
                return False
        return True

    def offer(self, job: _Job, count: int) -> None:
        for _ in range(count):
            self.jobs.put(job)

    def close(self) -> None:
        for _ in self.threads:
            self.jobs.put(None)


def _work(jobs: queue.SimpleQueue[_Job | None]) -> None:
    while True:
        job = jobs.get()
        if job is None:
            return
        # Each block in a fresh copy of the recording context: what code run
        # there changes (a gc callback's np.seterr) dies with it.
        _error_state.recording(job.take, _error_state.DEFAULT_STATE)
        del job  # a finished job's arrays go as soon as its caller lets them
        if _threads.DEFERRED:
            _threads.run_deferred()  # (what code run inside a block put off)


_pool: _Pool | None = None
# Held while a pool is made or retired, never while threads start; re-entrant:
# a gc callback run while a pool is made may set the thread count.
_pool_lock = threading.RLock()


def _current_pool() -> _Pool | None:
    """The pool for the current thread count, made on first use (None if it
    cannot be now).

    A thread's start waits until the new thread runs, and code run on the
    new thread before that (a gc callback at an allocation of its start)
    may wait for an in-place write of an array: if this thread were inside
    that write, neither would go on. So a thread inside an in-place write
    (cowarray._threads.inside_a_write) starts none: it computes its call
    alone, and the pool starts once its writes have ended. Threads start
    outside the lock, so code run on a starting thread may ask for the pool.
    """
    global _pool
    pool = _pool
    if pool is not None and pool.workers == _num_threads - 1:
        return pool
    if _num_threads <= 1:
        return None
    if _threads.inside_a_write():
        _threads.defer_until_writes_end(_current_pool)
        return None
    with _pool_lock:
        if _pool is not None and _pool.workers == _num_threads - 1:
            return _pool
        _retire_pool()
        made = _pool = _Pool(_num_threads - 1)
    if made.start():
        return made
    with _pool_lock:
        if _pool is made:
            _pool = None  # (no new threads: the interpreter is shutting down)
    return None


def _retire_pool() -> None:
    global _pool
    if _pool is not None:
        _pool.close()  # its threads finish the jobs already queued, then end
        _pool = None


def _forget_pool_after_fork() -> None:
    # The child has only the forking thread: the pool's threads are gone and
    # the lock may have been held by one that no longer exists.
    global _pool, _pool_lock
    _pool = None
    _pool_lock = threading.RLock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool_after_fork)


# -- splitting a call --------------------------------------------------------------


def parallel_ufunc(ufunc: np.ufunc) -> Callable[..., Any]:
    """``ufunc`` (one or two inputs, one output), computed on every core for big arrays.

    The wrapper takes the inputs and ``out=`` only; the ufunc's methods
    (``reduce``, ``at``, ...) and attributes are the ufunc's own.
    """
    if ufunc.nout != 1 or ufunc.nin not in (1, 2):
        raise ValueError(f"{ufunc.__name__}: only ufuncs with 1 or 2 inputs and 1 output split")
    function: Callable[..., Any]
    costly = ufunc in _COSTLY
    # Below ``_direct`` elements the ufunc is called as it is; below the
    # split gate its result may be a reused block (``_split_call``'s first
    # answer, without that call: a tenth of ``x * y`` at 10^5 elements).
    if ufunc.nin == 1 and not costly:

        def unary(x: Any, /, out: Any = None) -> Any:
            if out is None and (type(x) is not _ndarray or x.size < _direct):
                return ufunc(x)
            if out is None and x.size < _gate:
                return _reused_unary(ufunc, x)
            return _split_call(ufunc, (x,), out)

        function = unary
    elif ufunc.nin == 1:

        def costly_unary(x: Any, /, out: Any = None) -> Any:
            if out is None and (type(x) is not _ndarray or x.size < _costly_direct):
                return ufunc(x)
            if out is None and x.size < _costly_gate:
                return _reused_unary(ufunc, x)
            return _split_call(ufunc, (x,), out)

        function = costly_unary
    elif not costly:

        def binary(x1: Any, x2: Any, /, out: Any = None) -> Any:
            if (
                out is None
                and (type(x1) is not _ndarray or x1.size < _direct)
                and (type(x2) is not _ndarray or x2.size < _direct)
            ):
                return ufunc(x1, x2)
            if (
                out is None
                and (type(x1) is not _ndarray or x1.size < _gate)
                and (type(x2) is not _ndarray or x2.size < _gate)
            ):
                return _reused_binary(ufunc, x1, x2)
            return _split_call(ufunc, (x1, x2), out)

        function = binary
    else:

        def costly_binary(x1: Any, x2: Any, /, out: Any = None) -> Any:
            if (
                out is None
                and (type(x1) is not _ndarray or x1.size < _costly_direct)
                and (type(x2) is not _ndarray or x2.size < _costly_direct)
            ):
                return ufunc(x1, x2)
            if (
                out is None
                and (type(x1) is not _ndarray or x1.size < _costly_gate)
                and (type(x2) is not _ndarray or x2.size < _costly_gate)
            ):
                return _reused_binary(ufunc, x1, x2)
            return _split_call(ufunc, (x1, x2), out)

        function = costly_binary
    for name in ("reduce", "accumulate", "reduceat", "outer", "at", "resolve_dtypes"):
        setattr(function, name, getattr(ufunc, name))
    for name in ("nin", "nout", "nargs", "ntypes", "types", "identity", "signature"):
        setattr(function, name, getattr(ufunc, name))
    function.__name__ = function.__qualname__ = ufunc.__name__
    function.__doc__ = ufunc.__doc__
    setattr(function, "__wrapped__", ufunc)  # noqa: B010 (mypy: a function has no such slot)
    setattr(function, "split_from", _COSTLY_GATE_CELL if costly else _GATE_CELL)  # noqa: B010
    return function


def _split_call(ufunc: np.ufunc, inputs: tuple[Any, ...], out: Any) -> Any:
    # (a warning names the wrapper's caller: 5 frames up from the one that warns)
    threshold = _threshold_of(ufunc)
    if out is None:
        for x in inputs:  # (a loop: all() of a generator cost a tenth of x * y at 10^5)
            if type(x) is _ndarray and x.size >= threshold:
                break
        else:
            return _reused_call(ufunc, inputs)  # (too small to split)
    elif type(out) is not _ndarray or out.size < threshold:
        # (what _fits answers for such an ``out``, without the broadcast
        # shape: ``x /= s`` on a sole owner below the threshold)
        return ufunc(*inputs, out=out)
    plan = _plan(ufunc, inputs, out) if _num_threads > 1 else None
    if plan is None:
        return _reused_call(ufunc, inputs) if out is None else ufunc(*inputs, out=out)
    result, blocks = plan
    _compute(ufunc, blocks, stacklevel=5)
    return result


def _plan(
    ufunc: np.ufunc, inputs: tuple[Any, ...], out: Any
) -> tuple[np.ndarray, list[tuple[tuple[Any, ...], np.ndarray]]] | None:
    """The output and its blocks, or None where one NumPy call is the way."""
    shape = _computed_shape(inputs)
    if shape is None:
        return None
    if out is None:
        if math.prod(shape) < _threshold_of(ufunc):
            return None
        out = _output(ufunc, inputs, shape)
    elif not _fits(ufunc, out, inputs, shape):
        return None
    blocks = _blocks(out, inputs, _num_threads)
    return None if blocks is None else (out, blocks)


def _reused_call(ufunc: np.ufunc, inputs: tuple[Any, ...]) -> Any:
    """``ufunc(*inputs)``, its result in a reused block where one fits
    (C-ordered operands of computed kinds; cowarray/_backends/_reuse.py)."""
    shape = _computed_shape(inputs)
    # (a 0-d result stays NumPy's scalar: below the size)
    if shape is None or ufunc.nout != 1 or math.prod(shape) < _REUSE_ELEMENTS:
        return ufunc(*inputs)
    for x in inputs:
        if type(x) is _ndarray and not x.flags.c_contiguous:
            return ufunc(*inputs)
    return ufunc(*inputs, out=_reuse.empty(shape, _result_dtype(ufunc, inputs)))


def _reused_binary(ufunc: np.ufunc, x1: Any, x2: Any) -> Any:
    """``_reused_call(ufunc, (x1, x2))`` where a wrapper saw an array of at
    least ``_direct`` elements: two arrays of one shape, or an array and a
    Python scalar, whose result dtype the cache knows, take a block at once.

    (The general path's shape, size, layout and dtype questions cost a third
    of the wrapper's work on ``x * y`` at 10^5 elements.) A cached dtype
    answers the kind question too: only operands of computed kinds are ever
    entered. The layout is asked of N-D operands only (see
    :func:`_c_ordered_result`; its 1-D test is repeated inline, a call fewer
    on the common call, and for a second operand of the first's shape the
    C-order flag alone answers).
    """
    if type(x1) is _ndarray:
        shape = x1.shape
        if type(x2) is _ndarray:
            if x2.shape != shape or (
                len(shape) != 1 and not (_c_ordered_result(x1) and x2.flags.c_contiguous)
            ):
                return _reused_call(ufunc, (x1, x2))
            dtype = _RESULT_DTYPES.get((ufunc, x1.dtype, x2.dtype))
        elif len(shape) == 1 or _c_ordered_result(x1):
            dtype = _RESULT_DTYPES.get((ufunc, x1.dtype, type(x2)))
        else:
            dtype = None
    elif type(x2) is _ndarray:
        shape = x2.shape
        if len(shape) == 1 or _c_ordered_result(x2):
            dtype = _RESULT_DTYPES.get((ufunc, type(x1), x2.dtype))
        else:
            dtype = None
    else:
        dtype = None
    if dtype is None:  # (a NumPy scalar's key is its dtype: the general path)
        return _reused_call(ufunc, (x1, x2))
    return ufunc(x1, x2, out=_reuse.empty(shape, dtype))


def _reused_unary(ufunc: np.ufunc, x: Any) -> Any:
    """``_reused_call(ufunc, (x,))`` for an array a wrapper saw is big enough
    (see :func:`_reused_binary`)."""
    if type(x) is _ndarray:
        shape = x.shape
        if len(shape) == 1 or _c_ordered_result(x):
            dtype = _RESULT_DTYPES.get((ufunc, x.dtype))
            if dtype is not None:
                return ufunc(x, out=_reuse.empty(shape, dtype))
    return _reused_call(ufunc, (x,))


def _c_ordered_result(x: np.ndarray) -> bool:
    """Whether NumPy's result for ``x`` is C-ordered, as a reused block is.

    Any 1-D result is (NumPy orders it forward whatever the operand's
    strides), and so is one of a C-ordered N-D array; a 0-d operand's result
    is NumPy's scalar, never a block.
    """
    ndim = x.ndim
    return ndim == 1 or (ndim > 1 and bool(x.flags.c_contiguous))


def _computed_shape(inputs: tuple[Any, ...]) -> tuple[int, ...] | None:
    """The broadcast shape of ``inputs``, or None unless every one is an array
    of a computed kind or a scalar and their shapes broadcast."""
    shape: tuple[int, ...] | None = None
    alike = True
    for x in inputs:
        if type(x) is _ndarray:
            if x.dtype.kind not in _COMPUTED_KINDS:
                return None
            if shape is None:
                shape = x.shape
            elif x.shape != shape:
                alike = False
        elif not isinstance(x, _SCALARS):
            return None
    if alike and shape is not None:
        return shape  # (arrays of one shape and scalars: the common call)
    try:
        # (NumPy's broadcast object, in C: np.broadcast_shapes is Python, a
        # fifth of the call's cost at 10^5 elements)
        return np.broadcast(*inputs).shape
    except ValueError:
        return None  # NumPy says why


def _result_dtype(ufunc: np.ufunc, inputs: tuple[Any, ...]) -> np.dtype[Any]:
    # The ufunc on empty slices gives the dtype, which depends on the
    # operands' types only (NEP 50: a Python int out of range still raises
    # NumPy's error, in the call).
    # (no generator: it cost as much as the lookup)
    if len(inputs) == 2:
        a, b = inputs
        key: tuple[Any, ...] = (
            ufunc,
            a.dtype if isinstance(a, _TYPED) else type(a),
            b.dtype if isinstance(b, _TYPED) else type(b),
        )
    else:
        key = (ufunc, *[x.dtype if isinstance(x, _TYPED) else type(x) for x in inputs])
    dtype = _RESULT_DTYPES.get(key)
    if dtype is None:
        dtype = ufunc(*(_slice(x, 0) for x in inputs)).dtype
        if len(_RESULT_DTYPES) < 1024:
            _RESULT_DTYPES[key] = dtype
    return dtype


def _output(ufunc: np.ufunc, inputs: tuple[Any, ...], shape: tuple[int, ...]) -> np.ndarray:
    """An empty output of NumPy's dtype and memory layout for ``ufunc(*inputs)``."""
    arrays = [x for x in inputs if type(x) is _ndarray]
    if all(x.flags.c_contiguous for x in arrays):
        # C-ordered inputs give a C-ordered output (a reused block if one fits).
        return _reuse.empty(shape, _result_dtype(ufunc, inputs))
    # Slices of two per axis keep the strides NumPy orders the output by (the
    # flags their values raise are dropped).
    sample = _error_state.ignoring(ufunc, *(_slice(x, 2) for x in inputs))
    return np.empty_like(sample, shape=shape)


_TYPED: Final = (_ndarray, np.generic)
#: (ufunc, each operand's dtype or Python type) -> the result's dtype
_RESULT_DTYPES: dict[tuple[Any, ...], np.dtype[Any]] = {}


def _slice(x: Any, length: int) -> Any:
    if type(x) is not _ndarray or x.ndim == 0:
        return x
    return x[(slice(0, length),) * x.ndim]


def _fits(ufunc: np.ufunc, out: Any, inputs: tuple[Any, ...], shape: tuple[int, ...]) -> bool:
    """Whether ``out`` can be written block by block as NumPy writes it whole."""
    if type(out) is not _ndarray or out.dtype.kind not in _COMPUTED_KINDS:
        return False
    if out.size < _threshold_of(ufunc) or not out.flags.writeable:
        return False
    try:
        if np.broadcast_shapes(out.shape, shape) != out.shape:
            return False
    except ValueError:
        return False  # NumPy says why
    if any(
        stride == 0 for stride, length in zip(out.strides, out.shape, strict=True) if length > 1
    ):
        return False
    start = out.__array_interface__["data"][0]
    for x in inputs:
        if type(x) is _ndarray and np.may_share_memory(x, out):
            same = (
                x.shape == out.shape
                and x.strides == out.strides
                and x.__array_interface__["data"][0] == start
            )
            if not same:
                return False  # partial overlap: NumPy copies as it needs
    return True


def _blocks(
    out: np.ndarray, inputs: tuple[Any, ...], parts: int
) -> list[tuple[tuple[Any, ...], np.ndarray]] | None:
    shape = out.shape
    views = [
        np.broadcast_to(x, shape) if type(x) is _ndarray and x.shape != shape else x for x in inputs
    ]
    if out.ndim > 1 and not out.flags.c_contiguous:
        # Walk the output in its memory order, outermost axis first.
        order = sorted(range(out.ndim), key=lambda axis: -abs(out.strides[axis]))
        out = out.transpose(order)
        views = [x.transpose(order) if type(x) is _ndarray else x for x in views]
    arrays = [x for x in views if type(x) is _ndarray]
    if out.flags.c_contiguous and all(x.flags.c_contiguous for x in arrays):
        flat = out.reshape(-1)
        flats = [x.reshape(-1) if type(x) is _ndarray else x for x in views]
        align = BLOCK_ALIGN if flat.size >= parts * BLOCK_ALIGN else 1
        edges = _edges(flat.size, parts, align)
        return [
            (tuple(x[lo:hi] if type(x) is _ndarray else x for x in flats), flat[lo:hi])
            for lo, hi in edges
        ]
    axis = _split_axis(out.shape, parts)
    if axis < 0:
        return None
    lead = (slice(None),) * axis
    edges = _edges(out.shape[axis], parts, 1)
    return [
        (
            tuple(x[(*lead, slice(lo, hi))] if type(x) is _ndarray else x for x in views),
            out[(*lead, slice(lo, hi))],
        )
        for lo, hi in edges
    ]


def _split_axis(shape: Sequence[int], parts: int) -> int:
    """The outermost axis with a row for every part, else the longest; -1 if none splits."""
    for axis, length in enumerate(shape):
        if length >= parts:
            return axis
    longest = max(range(len(shape)), key=lambda axis: shape[axis], default=-1)
    return longest if longest >= 0 and shape[longest] >= 2 else -1


def _edges(length: int, parts: int, align: int) -> list[tuple[int, int]]:
    step = -(-length // parts)
    step = -(-step // align) * align
    return [(lo, min(lo + step, length)) for lo in range(0, length, step)]


def _compute(
    ufunc: np.ufunc, blocks: list[tuple[tuple[Any, ...], np.ndarray]], stacklevel: int
) -> None:
    """Compute every block, here and on the pool; then report as one NumPy call would."""
    state = _error_state.caller_state()
    record = any(mode != "ignore" for mode in state[0].values())
    job = _Job(ufunc, blocks)
    pool = _current_pool() if len(blocks) > 1 else None
    if pool is not None:
        pool.offer(job, min(len(blocks) - 1, pool.workers))
    # (a caller that ignores every flag computes its blocks as they are)
    here = _error_state.recording(_take_all, state, job) if record else _take_all(job)
    interrupted: BaseException | None = None
    for _ in range(len(blocks) - here):
        while True:
            try:
                _wait(job.done)
                break
            except BaseException as signal:  # a signal: finish the write first, as NumPy would
                interrupted = interrupted or signal
    job.blocks = []
    if interrupted is not None:
        raise interrupted
    for error in job.errors:
        if error is not None:
            raise error
    if record:
        flags = 0
        for block_flags in job.flags:
            flags |= block_flags
        if flags:
            _error_state.report(ufunc.__name__, flags, state, stacklevel)


def _take_all(job: _Job) -> int:
    """Compute blocks of ``job`` until none is left; how many this thread computed."""
    here = 0
    while job.take() >= 0:
        here += 1
    return here


def _wait(done: queue.SimpleQueue[int]) -> None:
    """Take one index from ``done``, polling a little before sleeping on it.

    A thread that sleeps is woken late on a virtual machine (tens of us for
    the virtual CPU to run again): the blocks are about as long, so poll,
    giving the GIL away at each turn, for as long as that costs.
    """
    deadline = time.perf_counter() + _POLL_SECONDS
    while done.empty():
        if time.perf_counter() > deadline:
            break
        time.sleep(0)
    done.get()


_POLL_SECONDS: Final = 100e-6
