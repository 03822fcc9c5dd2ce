"""Page-granular copy-on-write (docs/design.md §5): values, exports, accounting, memory.

Each test turns the feature on with threshold 0 (every copy of NumPy data
goes to a page block) and restores the settings after. The semantics suite
and the state machine run with it forced on too (``.ci/run``:
``COWARRAY_PAGE_COW=1 COWARRAY_PAGE_COW_THRESHOLD=0``).
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import subprocess
import sys
from collections.abc import Iterator

import numpy as np
import pytest

import cowarray as ca
from cowarray._backends import _pages

pytestmark = pytest.mark.skipif(not _pages.AVAILABLE, reason="page blocks need Linux memfd")
PAGE = _pages.PAGE
N = 1 << 17  # 1 MiB of float64: 256 pages


@pytest.fixture(autouse=True)
def page_cow() -> Iterator[None]:
    before = ca.set_page_cow(True, threshold=0)
    yield
    ca.set_page_cow(*before)


def _big(n: int = N) -> tuple[np.ndarray, ca.Array]:
    model = np.arange(n, dtype=np.float64)
    x = ca.asarray(model)
    assert _pages.is_page_backed(x._data)
    return model, x


def test_one_element_write_to_a_clone_copies_one_page() -> None:
    model, x = _big()
    y = ca.lazy_clone(x)
    with ca.trace() as t:
        y[12345] = -1.0
    assert t.bytes_copied == PAGE
    assert float(y[12345]) == -1.0 and float(x[12345]) == 12345.0
    np.testing.assert_array_equal(np.asarray(x), model)
    assert not ca.shares_buffer(x, y)


def test_the_original_keeps_its_address_when_remapped() -> None:
    _, x = _big()
    address = x._data.__array_interface__["data"][0]
    y = ca.lazy_clone(x)
    y[0] = 5.0  # the original's mapping becomes private in place
    assert x._data.__array_interface__["data"][0] == address
    x[1] = 7.0  # and writes to it copy a page, never reach y
    assert float(y[1]) == 1.0 and float(x[1]) == 7.0 and float(x[0]) == 0.0


def test_a_small_slice_written_back_into_a_clone_copies_pages_not_the_clone() -> None:
    # y[a:b] += d on a lazy clone: the view's new values, and the pages the
    # store touches, not a copy of y (the copy moving y and its view
    # together would make, cow._move_together).
    model, x = _big()
    y = ca.lazy_clone(x)
    with ca.trace() as t:
        y[10:20] += 1.0
    assert t.bytes_copied <= 80 + PAGE
    expected = model.copy()
    expected[10:20] += 1.0
    np.testing.assert_array_equal(np.asarray(y), expected)
    np.testing.assert_array_equal(np.asarray(x), model)


def test_a_dense_write_copies_the_region_eagerly() -> None:
    _, x = _big()
    y = ca.lazy_clone(x)
    with ca.trace() as t:
        y[: N // 2] = 3.0
    assert t.bytes_copied == N * 8
    assert float(x[0]) == 0.0 and float(y[0]) == 3.0


def test_a_strided_write_touching_every_page_copies_eagerly() -> None:
    _, x = _big()
    m = ca.reshape(x, (N // 512, 512))  # a row is one page
    y = ca.lazy_clone(m)
    with ca.trace() as t:
        y[:, 3] = -1.0
    assert t.bytes_copied == N * 8
    assert float(m[7, 3]) == 7 * 512 + 3


def test_a_slice_clone_copies_only_its_own_pages() -> None:
    model, x = _big()
    s = x[1000:9000]
    y = ca.lazy_clone(s)
    with ca.trace() as t:
        y[5] = -2.0
    assert t.bytes_copied == PAGE
    assert float(y[5]) == -2.0 and float(s[5]) == 1005.0
    np.testing.assert_array_equal(np.asarray(y)[6:], model[1006:9000])


def test_fancy_index_writes_are_counted_in_pages() -> None:
    _, x = _big()
    y = ca.lazy_clone(x)
    with ca.trace() as t:
        y[ca.asarray([1, 2, 4000, 90000])] = -1.0
    assert t.bytes_copied == 3 * PAGE
    assert [float(y[i]) for i in (1, 4000, 90000, 3)] == [-1.0, -1.0, -1.0, 3.0]
    assert float(x[4000]) == 4000.0


def test_undo_history_of_sparse_steps_keeps_every_snapshot() -> None:
    # every snapshot after the first is cloned from memory written already
    # (a dirty source): its own pages are copied, and only those
    rng = np.random.default_rng(0)
    model, state = _big()
    history = []
    for step in range(30):
        history.append((model.copy(), ca.lazy_clone(state)))
        i = int(rng.integers(N))
        model[i] = -step
        state[i] = float(-step)
        if step % 7 == 3:
            history.pop(int(rng.integers(len(history))))  # drop one snapshot
    np.testing.assert_array_equal(np.asarray(state), model)
    for expected, snapshot in history:
        np.testing.assert_array_equal(np.asarray(snapshot), expected)


def test_many_clones_of_one_dataset_write_independently() -> None:
    model, x = _big()
    clones = [ca.lazy_clone(x) for _ in range(20)]
    for k, clone in enumerate(clones):
        clone[k * 1000] = -float(k)
    for k, clone in enumerate(clones):
        expected = model.copy()
        expected[k * 1000] = -float(k)
        np.testing.assert_array_equal(np.asarray(clone), expected)
    np.testing.assert_array_equal(np.asarray(x), model)


def test_a_numpy_export_is_never_remapped_and_sees_only_its_array() -> None:
    _, x = _big()
    view = np.asarray(x)  # exposed: x's memory, writable
    address = view.__array_interface__["data"][0]
    y = ca.lazy_clone(x)  # exposed memory: an eager copy, no page clone
    view[3] = 42.0
    assert float(x[3]) == 42.0 and float(y[3]) == 3.0
    x[4] = 43.0
    assert view[4] == 43.0 and x._data.__array_interface__["data"][0] == address
    del view
    gc.collect()
    z = ca.lazy_clone(x)  # the exposure is over: page copy-on-write again
    with ca.trace() as t:
        z[5] = 0.5
    assert t.bytes_copied == PAGE and float(x[5]) == 5.0 and float(x[3]) == 42.0


def test_a_dlpack_consumer_keeps_aliasing_its_array() -> None:
    _, x = _big()
    y = ca.lazy_clone(x)
    y[0] = 1.0  # x's mapping is now private, and pristine
    consumer = np.from_dlpack(x)
    assert consumer.__array_interface__["data"][0] == x._data.__array_interface__["data"][0]
    consumer[10] = -10.0  # the consumer writes x, and x only
    assert float(x[10]) == -10.0 and float(y[10]) == 10.0
    z = ca.lazy_clone(x)  # exposed: an eager copy
    consumer[11] = -11.0
    assert float(z[11]) == 11.0 and float(x[11]) == -11.0
    del consumer
    gc.collect()
    w = ca.lazy_clone(x)
    w[12] = 0.0  # a page clone of memory the consumer wrote
    assert float(w[10]) == -10.0 and float(w[11]) == -11.0 and float(x[12]) == 12.0


def _child_reads(
    x: ca.Array, y: ca.Array, fresh: ca.Array, queue: multiprocessing.Queue[object]
) -> None:
    fresh[0] = 7.0  # a mapping the parent never shared: the parent must not see this
    values = (float(x[0]), float(y[0]), float(x[1]), float(y[1]))
    x[1] = 100.0  # the child's writes stay in the child
    y[0] = 200.0
    z = ca.lazy_clone(x)
    z[2] = 300.0
    queue.put((*values, float(x[1]), float(y[0]), float(z[2]), float(x[2])))


def test_fork_children_see_the_values_of_the_fork_and_keep_their_writes() -> None:
    _, x = _big()
    y = ca.lazy_clone(x)
    y[0] = -1.0
    x[1] = -2.0
    fresh = ca.asarray(np.ones(N))  # a shared mapping nobody has cloned yet
    context = multiprocessing.get_context("fork")
    queue: multiprocessing.Queue[object] = context.Queue()
    process = context.Process(target=_child_reads, args=(x, y, fresh, queue))
    process.start()
    got = queue.get(timeout=60)
    process.join(timeout=60)
    assert got == (0.0, -1.0, -2.0, 1.0, 100.0, 200.0, 300.0, 2.0)
    assert float(x[1]) == -2.0 and float(y[0]) == -1.0 and float(x[2]) == 2.0
    assert float(fresh[0]) == 1.0
    fresh[0] = 5.0  # remapped private before the fork: still written in place
    clone = ca.lazy_clone(fresh)
    fresh[1] = 6.0
    assert float(clone[0]) == 5.0 and float(clone[1]) == 1.0


def _fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def _rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE


def test_clone_and_drop_cycles_leak_no_descriptor_and_no_memory() -> None:
    # 10^4 cycles here; benchmarks/page_cow_leaks.py runs 10^5
    source = np.arange(1 << 13, dtype=np.float64)  # 64 KiB
    for _ in range(200):  # warm up allocator caches
        x = ca.asarray(source)
        y = ca.lazy_clone(x)
        y[3] = 1.0
    gc.collect()
    fds, rss = _fds(), _rss_bytes()
    for i in range(10_000):
        x = ca.asarray(source)
        y = ca.lazy_clone(x)
        y[i % source.size] = 1.0
        del x, y
    gc.collect()
    assert _fds() <= fds
    assert _rss_bytes() - rss < 16 << 20


def test_off_means_plain_memory() -> None:
    ca.set_page_cow(False)
    x = ca.asarray(np.arange(N, dtype=np.float64))
    assert not _pages.is_page_backed(x._data)
    y = ca.lazy_clone(x)
    with ca.trace() as t:
        y[0] = 1.0
    assert t.bytes_copied == N * 8


def test_below_the_threshold_nothing_changes() -> None:
    ca.set_page_cow(True, threshold=N * 8 + 1)
    x = ca.asarray(np.arange(N, dtype=np.float64))
    assert not _pages.is_page_backed(x._data)
    assert ca.page_cow_settings() == ca.PageCow(True, N * 8 + 1)


@pytest.mark.parametrize("bad", [-1, 1.5, True, "8"])
def test_a_bad_threshold_raises(bad: object) -> None:
    with pytest.raises(ValueError, match="threshold"):
        ca.set_page_cow(True, threshold=bad)  # type: ignore[arg-type]


def test_the_environment_turns_it_on() -> None:
    code = "import cowarray as ca; print(tuple(ca.page_cow_settings()))"
    env = dict(os.environ, COWARRAY_PAGE_COW="1", COWARRAY_PAGE_COW_THRESHOLD="123")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "(True, 123)", out.stderr
    env["COWARRAY_PAGE_COW"] = "0"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "(False, 123)", out.stderr


def test_a_failed_write_to_a_page_clone_changes_nothing() -> None:
    _, x = _big()
    y = ca.lazy_clone(x)
    with pytest.raises((ValueError, TypeError)):
        y[0:2] = ca.asarray([1.0, 2.0, 3.0])
    assert ca.shares_buffer(x, y) and float(y[0]) == 0.0
