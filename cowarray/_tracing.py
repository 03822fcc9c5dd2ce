"""Whether this thread is tracing a function for :mod:`cowarray.transforms`.

A helper below every other layer, so that the operations that must behave
otherwise inside a trace can ask without importing JAX or the transforms:
:mod:`cowarray._random` refuses draws (their numbers would be constants of
the compiled function), and the creation functions make traced Arrays when
no device is given (as ``jnp.zeros`` does under ``jax.jit``). The
transforms enter :func:`tracing` around every call of the user's function.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["TRACE_DEVICE", "depth", "tracing"]


class _State(threading.local):
    depth = 0


_STATE = _State()

#: The device of traced values, set by cowarray._transforms when it first
#: loads JAX (a one-element list: filled once, read by the creation functions).
TRACE_DEVICE: list[Any] = []


def depth() -> int:
    """How many transformed functions this thread is inside now (0: none)."""
    return _STATE.depth


@contextmanager
def tracing() -> Iterator[None]:
    """The user's function runs inside this while it is traced."""
    _STATE.depth += 1
    try:
        yield
    finally:
        _STATE.depth -= 1
