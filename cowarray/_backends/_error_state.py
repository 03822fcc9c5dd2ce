"""Computing under a NumPy floating-point error state of cowarray's, without setting one.

NumPy 2 keeps its error state (``np.errstate``, ``np.seterr``) in a context
variable, and setting a context variable is where CPython 3.11 can crash: its
collector runs inside ``ContextVar.set``, and a gc callback that sets a
variable of the same context there frees what the outer set is working on
(plain 3.11 crashes so with any such callback). A gc callback may well call
cowarray, so cowarray never sets the variable while it runs. Each state it
needs is made once, at import, in an empty context of its own, with the one
C call that sets the variable (on 3.11 with the collector off around it,
which no thread switch can interrupt: no bytecode runs between); an
operation then runs in a *copy* of that context (``Context.copy()`` sets
nothing and costs about as much as a call). Whatever code run inside changes
there (a gc callback's ``np.seterr(all="ignore")``) dies with the copy, and
never reaches the caller's state or a later call.

Two states:

- :func:`ignoring`: every flag ignored, for values computed only to be
  thrown away or replaced (a sample of an output's layout, an operand
  NumPy's kernel gets wrong at special values).
- :func:`recording`: every flag goes to :func:`_note`, which adds the flags
  of each *block* (a ufunc call made by a function named in
  :data:`BLOCK_CODES`, the thread pool's ``_Job.take``) to this thread's
  :func:`block_flags` word, for the caller to report once as NumPy would.
  Any other ufunc call run in that copy (a gc callback or ``__del__`` that
  computes while a block runs) reports its own flags at once, as NumPy
  would have under the state that code would have had: the caller's
  (:func:`recording` records it), or NumPy's default on a pool thread.
  So flags reach only the call and thread that raised them.
"""

from __future__ import annotations

import contextvars
import gc
import os
import sys
import threading
import warnings
from collections.abc import Callable
from typing import Any, Final, TypeVar

import numpy as np

from .._interpreter import caller_code

__all__ = [
    "BLOCK_CODES",
    "DEFAULT_STATE",
    "ErrorState",
    "block_flags",
    "caller_state",
    "ignoring",
    "recording",
    "report",
]

_R = TypeVar("_R")

#: NumPy's floating-point flags, in the order its ufuncs report them.
FLAGS: Final = (
    (1, "divide", "divide by zero"),
    (2, "over", "overflow"),
    (4, "under", "underflow"),
    (8, "invalid", "invalid value"),
)

#: An error state: the mode of each flag (``np.geterr()``) and the callback
#: or log object of the ``call`` and ``log`` modes (``np.geterrcall()``).
ErrorState = tuple[dict[str, str], Any]

#: NumPy's state in a thread that never set one (a pool thread's own).
DEFAULT_STATE: Final[ErrorState] = (
    {"divide": "warn", "over": "warn", "under": "ignore", "invalid": "warn"},
    None,
)

# NumPy's context variable and its constructor of values (NumPy 2); None
# where NumPy keeps them elsewhere (then the states are made with np.seterr).
_config = getattr(getattr(np, "_core", None), "_ufunc_config", None)
_VARIABLE: Final = getattr(_config, "_extobj_contextvar", None)
_MAKE: Final = getattr(_config, "_make_extobj", None)

#: The code objects whose ufunc calls are blocks of a split call (their
#: flags are recorded, not reported): filled by the thread pool.
BLOCK_CODES: Final[set[Any]] = set()


class _PerThread(threading.local):
    # Defaults on the class, not set in ``__init__``: a thread's first use runs
    # ``__init__``, and a gc callback that runs inside it (it allocates) and
    # uses the object again would find it half made. A class attribute is
    # there from the start; the first write makes the thread's own.

    #: The flags the blocks computed on this thread raised, until taken.
    flags: int = 0
    #: The state code run inside this thread's recording copy would
    #: otherwise have had (the caller's; NumPy's default on a pool thread).
    outer: ErrorState = DEFAULT_STATE


_THREAD: Final = _PerThread()


def _note(kind: str, flags: int) -> None:
    """NumPy's ``call`` callback in a recording copy: a block's flags are
    kept for its caller; any other call's are reported at once (see the
    module docstring)."""
    if caller_code() in BLOCK_CODES:  # (the frame that called the ufunc)
        _THREAD.flags |= flags
        return
    report("a NumPy function run inside a cowarray operation", flags, _THREAD.outer, 3)


def _context_with(**modes: Any) -> contextvars.Context:
    """An empty context in which NumPy's error state is ``modes``: the one set
    this module makes, at import."""
    context = contextvars.Context()
    if _VARIABLE is None or _MAKE is None:  # (a NumPy without them: its own functions)
        context.run(np.seterr, **{k: v for k, v in modes.items() if k != "call"})
        if "call" in modes:
            context.run(np.seterrcall, modes["call"])
        return context
    value = _MAKE(**modes)
    collecting = sys.version_info < (3, 12) and gc.isenabled()
    if collecting:
        gc.disable()  # (3.11 collects inside ContextVar.set: see the module docstring)
    try:
        context.run(_VARIABLE.set, value)
    finally:
        if collecting:
            gc.enable()
    return context


_IGNORING: Final = _context_with(all="ignore")
_RECORDING: Final = _context_with(all="call", call=_note)


def ignoring(run: Callable[..., _R], *args: Any, **kwargs: Any) -> _R:
    """``run(*args, **kwargs)`` with every floating-point flag ignored, in a
    fresh copy of a context made at import (nothing is set now, nothing
    leaks out)."""
    return _IGNORING.copy().run(run, *args, **kwargs)


def recording(run: Callable[..., _R], outer: ErrorState, *args: Any) -> _R:
    """``run(*args)`` in a fresh copy of the recording context: blocks' flags
    go to :func:`block_flags`; code that computes anything else there reports
    its flags as it would have under ``outer``."""
    thread = _THREAD
    saved, thread.outer = thread.outer, outer
    try:
        return _RECORDING.copy().run(run, *args)
    finally:
        thread.outer = saved


def block_flags() -> _PerThread:
    """This thread's flag word (``.flags``): a block saves it, zeroes it,
    computes, and takes what its ufunc call added."""
    return _THREAD


def caller_state() -> ErrorState:
    """The error state an operation called now reports under: NumPy's state,
    or, for code running inside a recording copy (a gc callback inside a
    split call), the state that code would otherwise have had."""
    if _VARIABLE is not None and _VARIABLE.get(None) is _RECORDING_VALUE:
        return _THREAD.outer
    return np.geterr(), np.geterrcall()  # type: ignore[return-value]


_RECORDING_VALUE: Final = None if _VARIABLE is None else _RECORDING[_VARIABLE]


def report(name: str, flags: int, state: ErrorState, stacklevel: int) -> None:
    """Report floating-point ``flags`` raised in ``name`` as NumPy's ufuncs
    do under ``state``, each flag in NumPy's order: a warning, a print, the
    callback or the log object for each, an exception at the first that
    raises. ``stacklevel`` names the frame a warning is attributed to."""
    modes, call = state
    for bit, key, kind in FLAGS:
        mode = modes[key]
        if not flags & bit or mode == "ignore":
            continue
        message = f"{kind} encountered in {name}"
        if mode == "warn":
            warnings.warn(message, RuntimeWarning, stacklevel=stacklevel)
        elif mode == "raise":
            raise FloatingPointError(message)
        elif mode == "print":
            os.write(2, f"Warning: {message}\n".encode())
        elif mode == "call":
            if call is None or not callable(call):
                raise ValueError(
                    f"python callback specified for {kind} (in {name}) but no function found."
                )
            call(kind, flags)
        elif mode == "log":
            if call is None or not hasattr(call, "write"):
                raise ValueError(
                    f"log specified for {kind} (in {name}) but no object with write method found."
                )
            call.write(f"Warning: {message}\n")
