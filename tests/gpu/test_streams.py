"""docs/design.md rule 8 on a real GPU: copies that a lazy clone moves in time stay ordered.

Each scenario keeps one stream busy with a spin kernel so that, without the
backend's ordering, the racing work would run first and the assertion fail.
"""

from __future__ import annotations

from typing import Any

from _gpu import GPU, new_stream, spin, synchronize

import cowarray as ca
from cowarray.testing import to_numpy

N = 1 << 20


def test_clone_on_stream_a_written_on_stream_b_reads_values_as_of_the_clone() -> None:
    a, b = new_stream(), new_stream()
    x = ca.zeros(N, dtype=ca.float32, device=GPU)
    synchronize()
    with a:
        spin()
        x[...] = 5.0  # enqueued on a, after the spin
        y = ca.lazy_clone(x)
    with b:
        y[0] = 7.0  # the copy on b must wait for a's write
    synchronize()
    values = to_numpy(y)
    assert values[0] == 7.0
    assert (values[1:] == 5.0).all(), "the copy on stream b ran before the write on stream a"
    assert (to_numpy(x) == 5.0).all()


def test_last_holder_write_waits_for_a_copy_still_reading_its_memory() -> None:
    a, b = new_stream(), new_stream()
    x = ca.full(N, 1.0, dtype=ca.float32, device=GPU)
    y = ca.lazy_clone(x)
    synchronize()
    with b:
        spin()
        y[0] = 2.0  # y copies the buffer on b, after the spin
    with a:
        x[...] = 9.0  # x is now the sole holder: writes in place, after b's copy
    synchronize()
    values = to_numpy(y)
    assert values[0] == 2.0
    assert (values[1:] == 1.0).all(), "x's in-place write overtook y's copy of the old buffer"
    assert (to_numpy(x) == 9.0).all()


def test_every_later_write_of_the_last_holder_also_waits_for_the_copy() -> None:
    # After one checked write, a CPU array takes an unchecked path for scalar
    # writes; on the GPU each write must still wait for copies reading its memory.
    a, b, c = new_stream(), new_stream(), new_stream()
    x = ca.full(N, 1.0, dtype=ca.float32, device=GPU)
    y = ca.lazy_clone(x)
    synchronize()
    with b:
        spin()
        y[0] = 2.0  # y copies x's memory on b, after the spin
    with a:
        x[0] = 9.0  # x is the sole holder: in place, after b's copy
    with c:
        x[1] = 3.0  # a later scalar write, on a third stream: after b's copy too
        x += 1.0
    synchronize()
    values = to_numpy(y)
    assert values[0] == 2.0
    assert (values[1:] == 1.0).all(), "a later write of x overtook y's copy of the old buffer"
    assert to_numpy(x)[:3].tolist() == [10.0, 4.0, 2.0]


def test_memory_a_copy_still_reads_is_not_reused_by_the_pool() -> None:
    a, b = new_stream(), new_stream()
    with a:
        x = ca.full(N, 1.0, dtype=ca.float32, device=GPU)
    y = ca.lazy_clone(x)
    source_pointer = x._data.data.ptr
    synchronize()
    with b:
        spin()
        y[0] = 2.0  # copy out of x's memory, pending behind the spin
    del x  # the last other holder: its memory must stay out of the pool for now
    with a:
        z = ca.full(N, 9.0, dtype=ca.float32, device=GPU)  # same size, same stream
        assert z._data.data.ptr != source_pointer, "the pool handed out memory a copy reads"
    synchronize()
    values = to_numpy(y)
    assert values[0] == 2.0
    assert (values[1:] == 1.0).all()
    assert (to_numpy(z) == 9.0).all()


def test_slice_written_on_another_stream_copies_only_its_region(copies: Any) -> None:
    b = new_stream()
    x = ca.arange(N, dtype=ca.float32, device=GPU)
    part = x[10:20]
    with b:
        part[0] = -1.0
    synchronize()
    assert (copies.copies, copies.bytes_copied) == (1, 10 * 4)
    assert to_numpy(part)[0] == -1.0
    assert to_numpy(x)[10] == 10.0
