"""Materialization and CuPy's memory pool: sources come back once their copies finish."""

from __future__ import annotations

from _gpu import GPU, cupy, synchronize

import cowarray as ca
from cowarray.testing import to_numpy

N = 1 << 20


def _release_finished_copies() -> None:
    synchronize()
    ca.Device(GPU).backend.pending.drop_finished()


def test_pool_gets_the_memory_back_after_a_materialization() -> None:
    pool = cupy.get_default_memory_pool()
    _release_finished_copies()
    baseline = pool.used_bytes()
    x = ca.zeros(N, dtype=ca.float32, device=GPU)
    y = ca.lazy_clone(x)
    y[0] = 1.0  # y copies: two buffers now
    assert pool.used_bytes() >= baseline + 2 * N * 4
    del x, y
    _release_finished_copies()
    assert pool.used_bytes() == baseline


def test_a_released_source_serves_the_next_allocation_of_its_size() -> None:
    pool = cupy.get_default_memory_pool()
    x = ca.zeros(N, dtype=ca.float32, device=GPU)
    y = ca.lazy_clone(x)
    y[0] = 1.0
    del x
    _release_finished_copies()
    reserved = pool.total_bytes()
    z = ca.empty(N, dtype=ca.float32, device=GPU)
    assert pool.total_bytes() == reserved, "the pool had to grow: x's block was not returned"
    assert z.shape == (N,)
    assert to_numpy(y)[0] == 1.0


def test_lazy_clone_allocates_nothing() -> None:
    pool = cupy.get_default_memory_pool()
    x = ca.ones((512, 512), device=GPU)
    _release_finished_copies()
    before = pool.used_bytes()
    clones = [ca.lazy_clone(x) for _ in range(100)]
    views = [x[1:, ::2].T for _ in range(100)]
    assert pool.used_bytes() == before
    assert ca.cow_info(x).holders == 201
    del clones, views


def test_materialized_copy_is_compact_and_owns_its_memory() -> None:
    x = ca.reshape(ca.arange(64, dtype=ca.float32, device=GPU), (8, 8))
    view = x[::2, 1::3].T
    view[0, 0] = -1.0
    assert view._data.base is None
    assert view._data.flags.c_contiguous or view._data.flags.f_contiguous
    assert view._data.nbytes == view.size * 4
