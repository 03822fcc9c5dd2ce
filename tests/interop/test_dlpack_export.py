"""Exporting through DLPack (docs/design.md rule 5), with torch as the consumer.

The exported array and the consumer alias; no other cowarray value ever sees
the consumer's writes; the buffer is exposed exactly while a consumer holds it.
"""

from __future__ import annotations

import gc
from typing import Any

import numpy as np
import pytest
from _dlpack_layout import IS_COPIED, READ_ONLY, capsule_name, versioned_flags

import cowarray as ca
from cowarray._core import cow

torch = pytest.importorskip("torch")


class _Recorder:
    def __init__(self) -> None:
        self.kinds: list[str] = []

    def record(self, kind: str, holder: object, buffer: object, nbytes: int) -> None:
        self.kinds.append(kind)


def test_export_aliases_the_consumer_in_both_directions() -> None:
    x = ca.asarray([1.0, 2.0, 3.0])
    t = torch.from_dlpack(x)
    t[0] = 10.0
    x[1] = 20.0
    assert x.__dlpack_device__() == (1, 0)
    np.testing.assert_array_equal(np.asarray(x), [10.0, 20.0, 3.0])
    np.testing.assert_array_equal(t.numpy(), [10.0, 20.0, 3.0])


def test_sole_holder_exports_without_copying() -> None:
    x = ca.arange(1000, dtype=ca.float32)
    cow.COUNTERS.reset()
    t = torch.from_dlpack(x)
    assert cow.COUNTERS.copies == 0
    assert ca.cow_info(x).state == "exposed"
    assert t.data_ptr() == np.from_dlpack(t).ctypes.data


def test_exporting_a_shared_buffer_copies_first_so_every_other_holder_keeps_its_values() -> None:
    x = ca.arange(6, dtype=ca.int64)
    clone = ca.lazy_clone(x)
    view = x[2:]
    cow.COUNTERS.reset()
    t = torch.from_dlpack(x)
    assert cow.COUNTERS.copies == 1
    numpy_view = np.asarray(x)  # a second consumer of x's exposed memory: no copy
    assert cow.COUNTERS.copies == 1
    t[:] = -1
    np.testing.assert_array_equal(np.asarray(x), [-1] * 6)
    np.testing.assert_array_equal(np.asarray(clone), np.arange(6))
    np.testing.assert_array_equal(np.asarray(view), np.arange(2, 6))
    np.testing.assert_array_equal(numpy_view, [-1] * 6)
    assert not ca.shares_buffer(x, clone)


def test_clones_and_views_of_an_exposed_array_copy_eagerly() -> None:
    x = ca.asarray([1, 2, 3, 4])
    t = torch.from_dlpack(x)
    clone = ca.lazy_clone(x)
    part = x[1:3]
    transposed = ca.reshape(x, (2, 2)).T
    assert not ca.shares_buffer(x, clone)
    assert not ca.shares_buffer(x, part)
    t[:] = 0
    np.testing.assert_array_equal(np.asarray(clone), [1, 2, 3, 4])
    np.testing.assert_array_equal(np.asarray(part), [2, 3])
    np.testing.assert_array_equal(np.asarray(transposed), [[1, 3], [2, 4]])


def test_numpy_export_of_an_exposed_array_is_one_more_alias_of_it() -> None:
    x = ca.asarray([1.0, 2.0])
    t = torch.from_dlpack(x)
    alias = np.asarray(x, copy=False)
    t[0] = 5.0
    alias[1] = 6.0
    np.testing.assert_array_equal(np.asarray(x), [5.0, 6.0])
    assert t.tolist() == [5.0, 6.0]
    del t, alias
    assert ca.cow_info(x).state == "private"


def test_exposure_ends_when_the_last_torch_tensor_is_collected() -> None:
    x = ca.arange(8.0)
    t = torch.from_dlpack(x)
    view = t[2:5]
    del t
    gc.collect()
    assert ca.cow_info(x).state == "exposed"  # the torch view still holds it
    del view
    assert ca.cow_info(x).state == "private"  # released at once, no gc needed
    clone = ca.lazy_clone(x)
    assert ca.shares_buffer(x, clone)  # lazy again


def test_exposures_are_counted_per_consumer() -> None:
    x = ca.arange(4)
    first = torch.from_dlpack(x)
    second = torch.from_dlpack(x)
    first[0] = 7
    assert int(second[0]) == 7
    del first
    assert ca.cow_info(x).state == "exposed"
    del second
    assert ca.cow_info(x).state == "private"


def test_a_capsule_that_dies_unconsumed_ends_the_exposure(backend_device: ca.Device) -> None:
    x = ca.arange(4, device=backend_device)
    capsule = x.__dlpack__()
    assert ca.cow_info(x).state == "exposed"
    del capsule
    assert ca.cow_info(x).state == "private"


def test_export_and_exposure_end_are_seen_by_an_observer() -> None:
    recorder = _Recorder()
    cow.set_observer(recorder)
    try:
        x = ca.arange(4)
        t = torch.from_dlpack(x)
        del t
    finally:
        cow.set_observer(None)
    assert recorder.kinds == ["export", "exposure_end"]


@pytest.mark.parametrize(
    ("max_version", "name"),
    [(None, b"dltensor"), ((0, 8), b"dltensor"), ((1, 0), b"dltensor_versioned")],
)
def test_capsule_version_follows_max_version(max_version: Any, name: bytes) -> None:
    x = ca.arange(3)
    capsule = x.__dlpack__(max_version=max_version)
    assert capsule_name(capsule) == name
    np.testing.assert_array_equal(torch.from_dlpack(capsule).numpy(), [0, 1, 2])


def test_copy_true_exports_an_independent_copy_flagged_is_copied() -> None:
    x = ca.asarray([1.0, 2.0])
    capsule = x.__dlpack__(max_version=(1, 0), copy=True)
    assert versioned_flags(capsule) & IS_COPIED
    assert ca.cow_info(x).state == "private"  # a copy exposes nothing
    t = torch.from_dlpack(capsule)
    t[0] = 9.0
    np.testing.assert_array_equal(np.asarray(x), [1.0, 2.0])


def test_zero_copy_export_is_writable_and_not_flagged_copied(backend_device: ca.Device) -> None:
    x = ca.asarray([1.0, 2.0], device=backend_device)
    capsule = x.__dlpack__(max_version=(1, 0))
    assert versioned_flags(capsule) & (IS_COPIED | READ_ONLY) == 0
    del capsule


def test_torch_copy_true_gives_torch_its_own_memory() -> None:
    x = ca.asarray([1, 2, 3])
    t = torch.from_dlpack(x, copy=True)
    t[0] = 100
    np.testing.assert_array_equal(np.asarray(x), [1, 2, 3])
    assert ca.cow_info(x).state == "private"


def test_copy_false_on_the_sole_holder_shares() -> None:
    x = ca.asarray([1, 2, 3])
    t = torch.from_dlpack(x, copy=False)
    t[0] = 100
    assert int(ca.asarray(x)[0]) == 100


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda x: (ca.lazy_clone(x), x), "other holder"),
        (lambda x: (x[1:], x), "other holder"),
        (lambda x: (None, ca.broadcast_to(ca.asarray([1], device=x.device), (3,))), "broadcast"),
        (lambda x: (x, ca.flip(x)), "negative strides"),
    ],
    ids=["lazy clone", "slice", "broadcast view", "negative strides"],
)
def test_copy_false_refuses_when_a_copy_is_needed_and_changes_nothing(
    make: Any, reason: str, backend_device: ca.Device
) -> None:
    on_host = backend_device.kind == "cpu"
    x = ca.asarray([1, 2, 3], device=backend_device)
    keep, exported = make(x)
    before = ca.cow_info(exported)
    cow.COUNTERS.reset()
    with pytest.raises(BufferError, match=reason):
        exported.__dlpack__(copy=False)
    if on_host:  # torch here is a CPU build: it can consume host memory only
        with pytest.raises(BufferError, match=reason):
            torch.from_dlpack(exported, copy=False)
    assert ca.cow_info(exported) == before
    assert cow.COUNTERS.copies == 0
    del keep


def test_copy_false_exports_an_empty_broadcast_view_without_copying() -> None:
    # Nothing in it can be written, so it needs no private copy (the
    # conformance suite exports such arrays with copy=False).
    empty = ca.broadcast_to(ca.asarray(False), (0,))
    cow.COUNTERS.reset()
    t = torch.from_dlpack(empty.__dlpack__(copy=False, max_version=(1, 0)))
    assert t.shape == (0,)
    assert cow.COUNTERS.copies == 0


def test_negative_strides_export_a_compact_copy() -> None:
    # DLPack allows negative strides but torch aborts the process on them.
    x = ca.flip(ca.arange(5))
    capsule = x.__dlpack__(max_version=(1, 0))
    assert versioned_flags(capsule) & IS_COPIED
    t = torch.from_dlpack(capsule)
    np.testing.assert_array_equal(t.numpy(), [4, 3, 2, 1, 0])
    t[0] = 100
    np.testing.assert_array_equal(np.asarray(x), [4, 3, 2, 1, 0])


def test_broadcast_view_is_expanded_before_export() -> None:
    x = ca.asarray([1, 2, 3])
    wide = ca.broadcast_to(x, (2, 3))
    t = torch.from_dlpack(wide)
    t[0, 0] = 100
    np.testing.assert_array_equal(t.numpy(), [[100, 2, 3], [1, 2, 3]])
    np.testing.assert_array_equal(np.asarray(x), [1, 2, 3])


def test_read_only_foreign_array_is_copied_before_export() -> None:
    producer = np.arange(3.0)
    producer.flags.writeable = False
    x = ca.from_dlpack(producer)
    t = torch.from_dlpack(x)
    t[0] = 7.0
    np.testing.assert_array_equal(producer, [0.0, 1.0, 2.0])
    assert float(ca.asarray(x)[0]) == 7.0


@pytest.mark.parametrize(
    ("keywords", "error", "match"),
    [
        ({"stream": 1}, ValueError, "stream"),
        ({"max_version": "1.0"}, TypeError, "max_version"),
        ({"max_version": (1,)}, TypeError, "max_version"),
        ({"dl_device": "cpu"}, TypeError, "dl_device"),
        ({"dl_device": (2, 0)}, BufferError, "dl_device"),
        ({"copy": "yes"}, TypeError, "copy"),
    ],
    ids=["stream", "max_version str", "max_version short", "dl_device str", "cuda", "copy"],
)
def test_bad_keywords_raise_and_change_nothing(
    keywords: dict[str, Any], error: type[Exception], match: str
) -> None:
    x = ca.asarray([1, 2, 3])
    clone = ca.lazy_clone(x)
    before = ca.cow_info(x)
    with pytest.raises(error, match=match):
        x.__dlpack__(**keywords)
    assert ca.cow_info(x) == before
    assert ca.shares_buffer(x, clone)


def test_dl_device_naming_the_array_device_is_accepted() -> None:
    x = ca.arange(3)
    t = torch.from_dlpack(x.__dlpack__(max_version=(1, 0), dl_device=(1, 0)))
    np.testing.assert_array_equal(t.numpy(), [0, 1, 2])


def test_a_capsule_consumed_twice_is_refused_and_the_exposure_still_ends() -> None:
    x = ca.arange(3)
    capsule = x.__dlpack__(max_version=(1, 0))
    t = torch.from_dlpack(capsule)
    with pytest.raises(RuntimeError, match="consumed"):
        torch.from_dlpack(capsule)
    with pytest.raises(BufferError, match="already consumed"):
        ca.from_dlpack(capsule)
    del capsule
    assert ca.cow_info(x).state == "exposed"
    del t
    assert ca.cow_info(x).state == "private"


@pytest.mark.parametrize("shape", [(), (0,), (3, 0), (1,)], ids=str)
def test_zero_dimensional_and_empty_arrays_export(shape: tuple[int, ...]) -> None:
    x = ca.zeros(shape, dtype=ca.float32)
    t = torch.from_dlpack(x)
    assert tuple(t.shape) == shape
    assert t.dtype == torch.float32
    del t
    assert ca.cow_info(x).state == "private"
