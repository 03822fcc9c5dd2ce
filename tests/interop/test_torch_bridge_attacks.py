"""Attacks on the torch bridge's imports (docs/design.md rule 5).

Two imports of one tensor never alias each other, whether two threads import
it at once or a gc callback imports it again in the middle of an import.
"""

from __future__ import annotations

import contextlib
import gc
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import cowarray as ca

torch = pytest.importorskip("torch")

from cowarray.interop.torch import from_torch  # noqa: E402


@contextlib.contextmanager
def switching_every_microsecond() -> Iterator[None]:
    """Threads switch as often as CPython allows (as tests/hostile/_attack.py)."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(old)


@contextlib.contextmanager
def gc_callback(callback: Callable[[], None]) -> Iterator[None]:
    """Run ``callback`` at the start of every collection, collecting at every allocation."""
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
    """Writing any one of ``arrays`` changes no other."""
    before = [host(a) for a in arrays]
    for i, written in enumerate(arrays):
        written[(0,) * written.ndim] = -12345
        for j, other in enumerate(arrays):
            if j != i:
                np.testing.assert_array_equal(host(other), before[j], err_msg=f"{i} changed {j}")
        before[i] = host(written)


def _state(x: ca.Array) -> str:
    return ca.cow_info(x).state


# -- two imports of one tensor never alias each other ---------------------------


def test_two_threads_importing_one_tensor_never_get_aliases() -> None:
    # Checking for an overlap and then entering the import let both threads
    # find nothing and alias each other (3 pairs in 300 before the fix).
    with switching_every_microsecond():
        for _ in range(600):
            t = torch.zeros(8)
            results: list[Any] = [None, None]
            barrier = threading.Barrier(2)

            def work(
                i: int, t: Any = t, results: list[Any] = results, barrier: Any = barrier
            ) -> None:
                barrier.wait()
                results[i] = from_torch(t)

            threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            first, second = results
            first[0] = 1.0
            assert float(second[0]) == 0.0, "two imports of one tensor alias each other"


@pytest.mark.parametrize("at", range(1, 13))
def test_an_import_inside_an_import_never_aliases_it(at: int) -> None:
    # The tensor is imported again at the at-th collection inside from_torch
    # (one at every allocation), so some attack lands between checking the
    # outer import and entering it (checking before entering gave two
    # aliases at 4 of these 12 points).
    t = torch.zeros(8)
    inner: list[ca.Array] = []
    collections = [0]

    def import_again() -> None:
        collections[0] += 1
        if collections[0] == at:
            inner.append(from_torch(t))

    with gc_callback(import_again):
        outer = from_torch(t)
    arrays = [outer, *inner]
    t[1] = 5.0  # at most one of them aliases t
    assert [float(a[1]) for a in arrays].count(5.0) <= 1
    assert_no_aliases(arrays)
