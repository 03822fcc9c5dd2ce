"""Helpers for the attack tests (tests/hostile, tests/interop): a fast thread switch, gc
callbacks, alias checks."""

from __future__ import annotations

import contextlib
import gc
import sys
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import cowarray as ca


@contextlib.contextmanager
def switching_every_microsecond() -> Iterator[None]:
    """Threads switch as often as CPython allows (GIL builds; harmless without a GIL)."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(old)


@contextlib.contextmanager
def gc_callback(callback: Callable[[], None]) -> Iterator[None]:
    """Run ``callback`` at the start of every collection, collecting at every allocation.

    Skips the test where no collection ran: a free-threaded build's collector
    waits for more allocations than threshold 1 (test_reentrant_code_never_aliases
    reaches the same points there).
    """
    ran = [0]

    def on_collect(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            ran[0] += 1
            callback()

    thresholds = gc.get_threshold()
    gc.callbacks.append(on_collect)
    gc.set_threshold(1)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.callbacks.remove(on_collect)
    if not ran[0]:
        pytest.skip("no collection ran: this collector does not collect at every allocation")


def host(x: ca.Array) -> np.ndarray:
    """A NumPy copy of ``x``'s values, taken now."""
    return np.array(x, copy=True)


def assert_no_aliases(arrays: list[ca.Array]) -> None:
    """Writing any one of ``arrays`` changes no other: they are independent values."""
    before = [host(a) for a in arrays]
    for i, written in enumerate(arrays):
        if written.size == 0:
            continue
        written[(0,) * written.ndim] = -12345  # a value no test array holds
        for j, other in enumerate(arrays):
            if j != i:
                np.testing.assert_array_equal(
                    host(other), before[j], err_msg=f"writing array {i} changed array {j}"
                )
        before[i] = host(written)
