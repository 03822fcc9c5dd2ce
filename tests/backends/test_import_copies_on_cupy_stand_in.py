"""Import copies to, from and between GPUs are visible (docs/design.md rule 9).

The GPU half of tests/debug/test_import_copies_are_visible.py, on the
stand-in CuPy backend: an import that moves data between the host and a GPU,
or between GPUs, is one copy, traced at the user's line, counted and warned
about; a zero-copy import from a GPU producer counts nothing.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _stand_in import FakeArrayOnGpu1, make

import cowarray as ca

N = 1000  # float64 elements: 8000 bytes


class _NoHostCopy:
    """GPU data whose producer makes no host copy: imported on its GPU, then moved."""

    def __init__(self) -> None:
        self.memory = make(np.zeros(N))

    def __dlpack_device__(self) -> tuple[int, int]:
        return (2, 0)

    def __dlpack__(self, *, dl_device: Any = None, **kwargs: Any) -> Any:
        if dl_device is not None:
            raise BufferError("this producer makes no host copies")
        return self.memory.__dlpack__(**kwargs)


def gpu_import_moved_to_the_host(keep: list[object]) -> Callable[[], ca.Array]:
    producer = _NoHostCopy()
    keep.append(producer)
    return lambda: ca.from_dlpack(producer, device="cpu")


def producers_host_copy(keep: list[object]) -> Callable[[], ca.Array]:
    on_gpu = make(np.zeros(N))
    keep.append(on_gpu)
    return lambda: ca.from_dlpack(on_gpu, device="cpu")


def asarray_to_the_host(keep: list[object]) -> Callable[[], ca.Array]:
    on_gpu = make(np.zeros(N))
    keep.append(on_gpu)
    return lambda: ca.asarray(on_gpu, device="cpu")


def asarray_to_another_gpu(keep: list[object]) -> Callable[[], ca.Array]:
    on_gpu1 = np.zeros(N).view(FakeArrayOnGpu1)
    keep.append(on_gpu1)
    return lambda: ca.asarray(on_gpu1, device="cuda:0")


def asarray_of_host_data_onto_the_gpu(keep: list[object]) -> Callable[[], ca.Array]:
    host = np.zeros(N)
    keep.append(host)
    return lambda: ca.asarray(host, device="cuda:0")


def own_array_moved_to_the_host(keep: list[object]) -> Callable[[], ca.Array]:
    x = ca.zeros(N, device="cuda:0")
    keep.append(x)
    return lambda: ca.from_dlpack(x, device="cpu")


def copy_true_that_cupy_refuses(keep: list[object]) -> Callable[[], ca.Array]:
    on_gpu = make(np.zeros(N))  # CuPy makes no copy=True on its own device: we copy
    keep.append(on_gpu)
    return lambda: ca.from_dlpack(on_gpu, copy=True)


COPYING = [
    gpu_import_moved_to_the_host,
    producers_host_copy,
    asarray_to_the_host,
    asarray_to_another_gpu,
    asarray_of_host_data_onto_the_gpu,
    own_array_moved_to_the_host,
    copy_true_that_cupy_refuses,
]


@pytest.mark.parametrize("case", COPYING, ids=[case.__name__ for case in COPYING])
def test_an_import_that_copies_on_a_gpu_is_one_visible_copy(
    case: Callable[[list[object]], Callable[[], ca.Array]], gpu: ca.Device
) -> None:
    keep: list[object] = []
    act = case(keep)
    line = act.__code__.co_firstlineno
    before = ca.copy_counters()
    with ca.trace() as t, ca.warn_on_copy(min_bytes=1), pytest.warns(ca.CopyWarning) as caught:
        keep.append(act())
    after = ca.copy_counters()
    assert (after.copies - before.copies, after.bytes_copied - before.bytes_copied) == (1, 8 * N)
    copies = [(e.nbytes, e.filename, e.lineno) for e in t.events if e.kind == "materialize"]
    assert copies == [(8 * N, __file__, line)]
    assert [(w.filename, w.lineno) for w in caught if w.category is ca.CopyWarning] == [
        (__file__, line)
    ]


def test_a_zero_copy_import_from_a_gpu_counts_nothing(gpu: ca.Device) -> None:
    on_gpu = make(np.zeros(N))
    before = ca.copy_counters()
    with ca.trace() as t, warnings.catch_warnings(), ca.warn_on_copy(min_bytes=0):
        warnings.simplefilter("error", ca.CopyWarning)
        imported = ca.from_dlpack(on_gpu)
    assert ca.copy_counters() == before
    assert [e.kind for e in t.events] == ["import"]
    assert ca.cow_info(imported).state == "foreign"
