"""The CuPy backend's own logic, run anywhere against a stand-in ``cupy`` module.

The stand-in computes with NumPy and records what the backend asks of CUDA
streams and events, so these tests check the stream rules (which stream waits
for which event, which sources stay alive) and the standard-name fills without
a GPU. What only a GPU can show (that CUDA then orders the work) is in
tests/gpu/.
"""

from __future__ import annotations

import gc
import threading
import types
import weakref
from typing import Any

import numpy as np
import pytest
from _stand_in import (
    FakeArray,
    FakeArrayOnGpu1,
    FakeCupyStream,
    FakeDevice,
    FakeEvent,
    FakeStream,
    fake_array,
    make,
)

from cowarray._backends._common import address_range
from cowarray._backends.base import missing_standard_names


@pytest.fixture
def backend(stand_in: types.ModuleType) -> Any:
    """The stand-in backend of GPU 0."""
    return stand_in.CupyBackend(0)


# -- rule: a clone reads the values as of the clone ------------------------------


def test_copy_on_another_stream_waits_for_the_stream_current_at_sharing(
    stand_in: types.ModuleType, backend: Any
) -> None:
    clone_stream, write_stream = FakeStream(1), FakeStream(2)
    x = make(np.arange(6.0))
    stand_in.fake.current = clone_stream
    backend.note_share(x)
    stand_in.fake.current = write_stream
    copied = backend.copy(x[1:4])
    assert write_stream.waited == [clone_stream.recorded[0]]
    np.testing.assert_array_equal(copied, [1.0, 2.0, 3.0])
    assert copied.base is None


def test_copy_on_the_sharing_stream_adds_no_wait(stand_in: types.ModuleType, backend: Any) -> None:
    stream = FakeStream(1)
    stand_in.fake.current = stream
    x = make(np.arange(4))
    backend.note_share(x)
    backend.copy(x[::2])
    assert stream.waited == []


def test_sharing_again_replaces_the_remembered_stream(
    stand_in: types.ModuleType, backend: Any
) -> None:
    first, second = FakeStream(1), FakeStream(2)
    x = make(np.arange(4))
    stand_in.fake.current = first
    backend.note_share(x)
    stand_in.fake.current = second
    backend.note_share(x[1:])  # a view: the same memory
    backend.copy(x)
    assert second.waited == []
    assert first.recorded == []


# -- rule: nobody writes or frees memory a copy still reads --------------------


def test_last_holder_write_waits_for_pending_copies_of_its_memory(
    stand_in: types.ModuleType, backend: Any
) -> None:
    copy_stream, write_stream = FakeStream(1), FakeStream(2)
    x, other = make(np.arange(8.0)), make(np.arange(8.0))
    stand_in.fake.current = copy_stream
    backend.copy(x[2:5])
    stand_in.fake.current = write_stream
    assert backend.must_copy_before_write(other) is False
    assert write_stream.waited == []
    assert backend.must_copy_before_write(x[:1]) is False
    assert write_stream.waited == [copy_stream.recorded[-1]]


def test_copy_source_stays_alive_until_its_copy_finished(
    stand_in: types.ModuleType, backend: Any
) -> None:
    stream = FakeStream(1)
    stand_in.fake.current = stream
    x = make(np.arange(16.0))
    alive = weakref.ref(x)
    backend.copy(x[4:8])
    del x
    gc.collect()
    assert alive() is not None, "a copy may still read the memory: it must not be freed"
    stream.recorded[-1].done = True
    backend.copy(make([1.0]))  # any later copy drops finished entries
    gc.collect()
    assert alive() is None


def test_zero_size_copy_keeps_nothing_alive(stand_in: types.ModuleType, backend: Any) -> None:
    backend.copy(make(np.zeros((0, 3))))
    assert len(backend.pending) == 0


def test_finished_copies_are_released_oldest_first(stand_in: types.ModuleType) -> None:
    pending = stand_in._Pending()
    events = [FakeEvent() for _ in range(3)]
    for event in events:
        pending.add(event, make([0]))
    events[0].done = events[2].done = True
    pending.drop_finished()
    assert len(pending) == 2  # stops at the running copy; the later one waits its turn
    events[1].done = True
    pending.drop_finished()
    assert len(pending) == 0


def test_too_many_pending_copies_wait_for_the_oldest(stand_in: types.ModuleType) -> None:
    pending = stand_in._Pending(limit=2)
    events = [FakeEvent() for _ in range(3)]
    for event in events:
        pending.add(event, make([0]))
    assert events[0].synchronized
    assert not events[2].synchronized
    assert len(pending) == 2


def test_wait_all_synchronizes_and_releases_every_source(stand_in: types.ModuleType) -> None:
    pending = stand_in._Pending()
    events = [FakeEvent(), FakeEvent()]
    for event in events:
        pending.add(event, make([0]))
    pending.wait_all()
    assert all(event.synchronized for event in events)
    assert len(pending) == 0


def test_share_streams_forget_memory_that_died(stand_in: types.ModuleType) -> None:
    streams = stand_in._ShareStreams()
    x = make([1, 2])
    streams.remember(x, FakeStream(1))
    assert streams.stream_of(x).ptr == 1
    del x
    gc.collect()
    assert len(streams) == 0


# -- writes in place --------------------------------------------------------------


def test_broadcast_views_must_be_copied_before_a_write(backend: Any) -> None:
    row = make(np.arange(3.0))
    assert backend.must_copy_before_write(np.broadcast_to(row, (4, 3)).view(FakeArray))
    assert not backend.must_copy_before_write(row)
    assert not backend.must_copy_before_write(make(np.zeros((1, 3)))[:, :1])


# -- memory identity --------------------------------------------------------------


def test_views_of_one_block_have_one_owner(backend: Any) -> None:
    x = make(np.arange(12).reshape(3, 4))
    assert backend.memory_owner(x[1:][:, 2]) is x
    assert backend.memory_owner(x.T) is x
    assert backend.owner_nbytes(x[0]) == x.nbytes


@pytest.mark.parametrize(
    ("shape", "strides", "expected"),
    [
        ((4,), (8,), (1000, 1032)),
        ((4,), (-8,), (976, 1008)),
        ((2, 3), (24, 8), (1000, 1048)),
        ((3, 2), (8, 24), (1000, 1048)),
        ((5,), (0,), (1000, 1008)),
        ((0, 3), (24, 8), (1000, 1000)),
    ],
)
def test_address_range_covers_every_element(
    shape: tuple[int, ...], strides: tuple[int, ...], expected: tuple[int, int]
) -> None:
    # (both backends bound views with it: CuPy's overlap test, NumPy's copy_with_view)
    assert address_range(1000, shape, strides, 8) == expected


# -- the standard namespace ---------------------------------------------------------


def test_namespace_fills_every_standard_name(stand_in: types.ModuleType, backend: Any) -> None:
    assert missing_standard_names(backend.xp) == []


def test_filled_functions_agree_with_numpy(backend: Any) -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3, 4)) + 1j * rng.normal(size=(3, 4))
    y = rng.normal(size=(3, 4))
    np.testing.assert_allclose(backend.xp.vecdot(x, y), np.vecdot(x, y))
    np.testing.assert_allclose(backend.xp.linalg.vecdot(x, y, axis=0), np.vecdot(x, y, axis=0))
    parts = backend.xp.unstack(y, axis=1)
    assert len(parts) == 4
    np.testing.assert_array_equal(parts[2], y[:, 2])
    for ord_ in (2, 1, 0, 3, float("inf"), float("-inf")):
        for axis in (None, 0, (0, 1)):
            np.testing.assert_allclose(
                backend.xp.linalg.vector_norm(x, axis=axis, ord=ord_, keepdims=True),
                np.linalg.vector_norm(x, axis=axis, ord=ord_, keepdims=True),
                err_msg=f"ord={ord_}, axis={axis}",
            )
    np.testing.assert_allclose(backend.xp.linalg.svdvals(y), np.linalg.svdvals(y))
    np.testing.assert_array_equal(
        backend.xp.linalg.diagonal(y, offset=1), np.linalg.diagonal(y, offset=1)
    )
    np.testing.assert_allclose(backend.xp.linalg.trace(y, offset=-1), np.linalg.trace(y, offset=-1))


@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1), -1])
def test_count_nonzero_keeps_dimensions_as_asked(backend: Any, axis: Any) -> None:
    x = np.array([[0, 1, 2], [3, 0, 0]])
    np.testing.assert_array_equal(
        backend.xp.count_nonzero(x, axis=axis, keepdims=True),
        np.count_nonzero(x, axis=axis, keepdims=True),
    )


def test_std_and_var_take_the_standard_correction(backend: Any) -> None:
    x = np.array([1.0, 2.0, 4.0, 7.0])
    np.testing.assert_allclose(backend.xp.std(x, correction=1), np.std(x, ddof=1))
    np.testing.assert_allclose(backend.xp.var(x, axis=0, correction=0.5), np.var(x, ddof=0.5))


def test_sort_and_clip_accept_the_standard_keywords(backend: Any) -> None:
    x = np.array([3, 1, 2])
    np.testing.assert_array_equal(backend.xp.sort(x, axis=-1, stable=True), [1, 2, 3])
    np.testing.assert_array_equal(backend.xp.argsort(x, axis=0, stable=False), [1, 2, 0])
    np.testing.assert_array_equal(backend.xp.clip(x, min=2, max=2), [2, 2, 2])


def test_namespace_runs_functions_with_the_backends_gpu_current(
    stand_in: types.ModuleType,
) -> None:
    second = stand_in.CupyBackend(1)
    FakeDevice.entered.clear()
    stand_in.fake.current_device = 0
    second.xp.zeros(3)
    assert FakeDevice.entered == [1]
    stand_in.fake.current_device = 1
    second.xp.zeros(3)
    assert FakeDevice.entered == [1], "no switch when the GPU is already current"


# -- functional updates -----------------------------------------------------------


@pytest.mark.parametrize(
    ("index", "message"),
    [
        (lambda: make([0, 3]), "index 3 is out of bounds for axis 0 with size 3"),
        (lambda: make([-4]), "index -4 is out of bounds for axis 0 with size 3"),
        (lambda: (slice(None), make([1, 4])), "index 4 is out of bounds for axis 1 with size 4"),
        (lambda: (Ellipsis, make([5])), "index 5 is out of bounds for axis 1 with size 4"),
        (lambda: (None, 0, make([9])), "index 9 is out of bounds for axis 1 with size 4"),
    ],
)
def test_index_update_refuses_out_of_bounds_index_arrays_before_writing(
    backend: Any, index: Any, message: str
) -> None:
    target = make(np.zeros((3, 4)))
    with pytest.raises(IndexError, match=message):
        backend.index_update(target, index(), 1.0, "set")
    assert (target == 0).all()


def test_an_index_with_too_many_parts_is_left_to_cupy_to_refuse(stand_in: Any) -> None:
    # CuPy then says "too many indices", as NumPy; the check must not fail first
    stand_in.check_index_bounds((3,), (0, make([0])))
    stand_in.check_index_bounds((3,), (make([0]), Ellipsis, make([9])))


def test_index_update_accepts_masks_and_indices_in_bounds(backend: Any) -> None:
    target = make(np.zeros((3, 4)))
    backend.index_update(target, (make(np.array([True, False, True])), make([-1, 3])), 5.0, "set")
    backend.index_update(target, make([0, 0]), 1.0, "add")
    expected = np.zeros((3, 4))
    expected[[0, 2], [-1, 3]] = 5.0
    np.add.at(expected, [0, 0], 1.0)
    np.testing.assert_array_equal(target, expected)


# -- making arrays ----------------------------------------------------------------


def test_host_data_is_copied_with_a_blocking_transfer(backend: Any) -> None:
    host = np.arange(3.0)
    result = backend.asarray(host)
    assert fake_array.last_blocking  # type: ignore[attr-defined]
    assert not np.shares_memory(result, host)
    assert backend.asarray([1, 2], dtype=np.int8).dtype == np.int8


def test_a_gpu_array_is_kept_unless_a_copy_is_asked_for(backend: Any) -> None:
    x = make(np.arange(3.0))
    assert backend.asarray(x) is x
    assert backend.asarray(x, copy=False) is x
    copied = backend.asarray(x, copy=True)
    assert copied is not x and not np.shares_memory(copied, x)
    with pytest.raises(ValueError, match="without copying"):
        backend.asarray(x, dtype=np.float32, copy=False)


def test_copy_false_refuses_host_data(backend: Any) -> None:
    with pytest.raises(ValueError, match="without copying"):
        backend.asarray([1.0, 2.0], copy=False)
    with pytest.raises(ValueError, match="without copying"):
        backend.asarray(np.zeros(2), copy=False)


# -- host access, DLPack streams, backend lookup --------------------------------------


def test_numpy_export_is_refused_with_the_way_to_the_host(backend: Any) -> None:
    assert "to_device('cpu')" in backend.numpy_export_refusal()
    with pytest.raises(TypeError, match=r"to_device\('cpu'\)"):
        backend.numpy_view(make([1.0]), lambda: None)


def test_dlpack_import_stream_spells_the_legacy_default_stream_1(
    stand_in: types.ModuleType, backend: Any
) -> None:
    for pointer, expected in [(0, 1), (12345, 12345)]:
        current = stand_in.fake.current = FakeStream(pointer)
        with backend.dlpack_import_stream() as stream:
            assert stream == expected
        assert current.waited == []  # the producer ordered this very stream


def test_the_per_thread_default_stream_imports_through_a_relay_stream(
    stand_in: types.ModuleType, backend: Any
) -> None:
    current = stand_in.fake.current = stand_in.cupy.cuda.Stream.ptds
    current.waited.clear()
    with backend.dlpack_import_stream() as stream:
        relay = FakeCupyStream.created[-1]
        assert stream == relay.ptr != 2  # torch refuses 2
        assert current.waited == [], "waited before the producer ordered the relay"
    assert current.waited == relay.recorded[-1:]
    with backend.dlpack_import_stream() as again:
        assert again == relay.ptr  # one relay per GPU and thread
    in_another_thread: list[int] = []

    def import_there() -> None:
        with backend.dlpack_import_stream() as stream:
            in_another_thread.append(stream)

    thread = threading.Thread(target=import_there)
    thread.start()
    thread.join()
    assert in_another_thread[0] not in (relay.ptr, 2)


def test_dlpack_export_problem_names_negative_strides(backend: Any) -> None:
    x = make(np.arange(4.0))
    assert "negative strides" in backend.dlpack_export_problem(x[::-1])
    assert backend.dlpack_export_problem(x[::2]) is None


def test_one_backend_per_gpu_and_none_for_a_missing_gpu(stand_in: types.ModuleType) -> None:
    assert stand_in.cupy_backend(1) is stand_in.cupy_backend(1)
    with pytest.raises(ValueError, match=r"cuda:2.*2 GPU"):
        stand_in.cupy_backend(2)


def test_a_cupy_array_of_another_gpu_is_compacted_there_then_copied_after_its_stream(
    stand_in: types.ModuleType, backend: Any
) -> None:
    source_stream = FakeStream(5)
    stand_in.fake.current = source_stream  # the stand-in's one current stream
    owner = np.arange(24.0).reshape(4, 6).view(FakeArrayOnGpu1)
    strided = owner[::2, 1::2]  # CuPy itself cannot copy this between devices
    moved = backend.asarray(strided)
    np.testing.assert_array_equal(moved, np.arange(24.0).reshape(4, 6)[::2, 1::2])
    assert not np.shares_memory(moved, owner)
    assert source_stream.waited == source_stream.recorded[:1], "copy not ordered after cuda:1"
    assert stand_in.cupy_backend(1).pending.events_reading(owner)
    as_float32 = backend.asarray(strided, dtype=np.float32)
    assert as_float32.dtype == np.float32
    np.testing.assert_array_equal(as_float32, moved)


def test_a_cupy_array_of_another_gpu_is_not_viewed_with_copy_false(backend: Any) -> None:
    elsewhere = np.arange(3.0).view(FakeArrayOnGpu1)
    with pytest.raises(ValueError, match="on cuda:1 without copying"):
        backend.asarray(elsewhere, copy=False)
    np.testing.assert_array_equal(elsewhere, [0.0, 1.0, 2.0])


def test_transfer_from_host_memory_is_one_blocking_copy(backend: Any) -> None:
    from cowarray._backends.numpy import NUMPY_BACKEND

    host = np.arange(3.0)
    moved = backend.transfer(host, NUMPY_BACKEND, None)
    assert fake_array.last_blocking  # type: ignore[attr-defined]
    np.testing.assert_array_equal(moved, host)
    assert not np.shares_memory(moved, host)


class TorchLikeStream:
    def __init__(self, pointer: int) -> None:
        self.cuda_stream = pointer


@pytest.mark.parametrize(
    ("stream", "pointer"),
    [(1, 0), (2, 2), (4242, 4242), (TorchLikeStream(0), 0), (TorchLikeStream(777), 777)],
)
def test_streams_given_by_number_or_by_torch_become_cupy_streams(
    backend: Any, stream: Any, pointer: int
) -> None:
    assert backend.as_stream(stream).ptr == pointer


def test_a_cupy_stream_is_used_as_given_and_none_changes_nothing(backend: Any) -> None:
    stream = FakeStream(31)
    assert backend.as_stream(stream) is stream
    with backend.as_stream(None):
        pass


@pytest.mark.parametrize(("stream", "error"), [(0, ValueError), (-1, ValueError), ("s", TypeError)])
def test_a_bad_stream_is_refused(backend: Any, stream: Any, error: type[Exception]) -> None:
    with pytest.raises(error, match="stream"):
        backend.as_stream(stream)
