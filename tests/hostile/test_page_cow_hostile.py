"""Attacks on page-granular copy-on-write (docs/design.md §5, rule 7).

Threads switching every microsecond clone, write and drop page-backed
arrays; a gc callback drops the last other holder in the middle of a write;
a ``__del__`` clones and writes while a page clone is made. Every value must
stay what the NumPy model says.
"""

from __future__ import annotations

import gc
import sys
import threading
from collections.abc import Iterator

import numpy as np
import pytest

import cowarray as ca
from cowarray._backends import _pages

pytestmark = pytest.mark.skipif(not _pages.AVAILABLE, reason="page blocks need Linux memfd")
N = 1 << 15  # 64 pages of float64


@pytest.fixture(autouse=True)
def page_cow() -> Iterator[None]:
    before = ca.set_page_cow(True, threshold=0)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(interval)
    ca.set_page_cow(*before)


def test_threads_cloning_writing_and_dropping_never_alias() -> None:
    base = ca.asarray(np.zeros(N))
    errors: list[str] = []

    def worker(k: int) -> None:
        rng = np.random.default_rng(k)
        mine = ca.lazy_clone(base)
        model = np.zeros(N)
        snapshots: list[tuple[ca.Array, np.ndarray]] = []
        for step in range(150):
            i = int(rng.integers(N))
            mine[i] = float(k * 1000 + step)
            model[i] = k * 1000 + step
            if step % 5 == 0:
                snapshots.append((ca.lazy_clone(mine), model.copy()))
            if len(snapshots) > 4:
                snapshots.pop(0)
        for snapshot, expected in [*snapshots, (mine, model)]:
            if not np.array_equal(np.asarray(snapshot), expected):
                errors.append(f"thread {k}: a snapshot changed")

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert not np.asarray(base).any()


def test_a_gc_callback_that_drops_the_last_other_holder_during_a_write() -> None:
    x = ca.asarray(np.arange(N, dtype=np.float64))
    others = [ca.lazy_clone(x)]
    fired = []

    def drop(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and others:
            others.clear()  # x becomes the sole holder while it copies
            fired.append(1)

    gc.callbacks.append(drop)
    try:
        for i in range(200):
            keep = ca.lazy_clone(x)
            if not others:
                others.append(ca.lazy_clone(x))
            junk = [[] for _ in range(50)]  # allocations: a collection may run
            del junk
            x[i] = -1.0
            assert float(keep[i]) == float(i)
            del keep
    finally:
        gc.callbacks.remove(drop)
    expected = np.arange(N, dtype=np.float64)
    expected[:200] = -1.0
    np.testing.assert_array_equal(np.asarray(x), expected)


class _Cloner:
    """Clones and writes its array when collected: code run inside a write."""

    def __init__(self, target: ca.Array, out: list[tuple[ca.Array, float]]) -> None:
        self.target = target
        self.out = out
        self.cycle = self

    def __del__(self) -> None:
        clone = ca.lazy_clone(self.target)
        before = float(clone[1])
        clone[1] = -99.0
        self.out.append((clone, before))


def test_del_methods_that_clone_and_write_inside_a_write() -> None:
    x = ca.asarray(np.arange(N, dtype=np.float64))
    got: list[tuple[ca.Array, float]] = []
    for i in range(2, 60):
        y = ca.lazy_clone(x)
        _Cloner(x, got)  # a cycle: collected at some allocation
        if i % 3 == 0:
            gc.collect()
        x[i] = -1.0
        assert float(y[i]) == float(i)
        del y
    gc.collect()
    assert float(x[1]) == 1.0  # no clone's write reached x
    for clone, before in got:
        assert before == 1.0 and float(clone[1]) == -99.0
