"""The COW core and the Array driving the CuPy backend, on the stand-in ``cupy``.

A ``cuda:0`` device is made for each test with the stand-in backend (and
forgotten afterwards), so the real paths run: ``lazy_clone`` -> the core's
record -> ``note_share``; a write -> ``copy`` or the last holder's
``must_copy_before_write``; ``__array__``; ``to_device``. The stand-in records
which stream waits for which event; tests/gpu/ checks the same on a GPU.
"""

from __future__ import annotations

import gc
import types
import weakref
from typing import Any

import numpy as np
import pytest
from _dlpack_layout import IS_COPIED, versioned_flags
from _stand_in import FakeArray, FakeArrayOnGpu1, FakeStream, make

import cowarray as ca
from cowarray.testing import assert_equal_to_model, to_numpy


def test_arrays_on_the_device_hold_backend_arrays(gpu: ca.Device) -> None:
    x = ca.arange(6.0, device=gpu)
    assert type(x._data) is FakeArray
    assert x._data.base is None
    total = x + 1.0
    assert type(total._data) is FakeArray
    assert_equal_to_model(total, np.arange(6.0) + 1.0)
    assert repr(ca.asarray([1.0, 2.0], device=gpu)).endswith("device='cuda:0')")


def test_clone_on_one_stream_written_on_another_waits_for_the_first(
    stand_in: types.ModuleType, gpu: ca.Device
) -> None:
    clone_stream, write_stream = FakeStream(1), FakeStream(2)
    x = ca.arange(6.0, device=gpu)
    stand_in.fake.current = clone_stream
    y = ca.lazy_clone(x)  # the core creates the record: note_share sees clone_stream
    stand_in.fake.current = write_stream
    y[0] = -1.0  # y copies on write_stream, after clone_stream's work
    assert write_stream.waited == [clone_stream.recorded[0]]
    assert_equal_to_model(x, np.arange(6.0))
    assert_equal_to_model(y, np.array([-1.0, 1.0, 2.0, 3.0, 4.0, 5.0]))


def _clone_copied_on(
    stream: FakeStream, stand_in: types.ModuleType, gpu: ca.Device
) -> tuple[ca.Array, ca.Array, Any]:
    """``x``, its clone ``y`` after a write that copied x's memory on ``stream``,
    and the event that copy recorded."""
    x = ca.arange(6.0, device=gpu)
    y = ca.lazy_clone(x)
    stand_in.fake.current = stream
    y[0] = -1.0
    return x, y, stream.recorded[-1]


def test_last_holder_write_waits_for_the_copy_out_of_its_memory(
    stand_in: types.ModuleType, gpu: ca.Device
) -> None:
    write_stream = FakeStream(2)
    x, y, copy_done = _clone_copied_on(FakeStream(1), stand_in, gpu)
    stand_in.fake.current = write_stream
    x[0] = 10.0  # x is the sole holder now: it writes in place, after the copy
    assert write_stream.waited == [copy_done]
    assert to_numpy(x)[0] == 10.0
    assert to_numpy(y)[0] == -1.0


@pytest.mark.parametrize(
    "write",
    [
        lambda x: x.__setitem__(1, 3.0),
        lambda x: x.__iadd__(1.0),
        lambda x: x.__setitem__((1,), 3.0),
    ],
    ids=["scalar setitem", "in-place scalar add", "tuple setitem"],
)
def test_every_later_write_also_waits_for_a_copy_still_reading(
    stand_in: types.ModuleType, gpu: ca.Device, write: Any
) -> None:
    # After one checked write, later scalar writes must not skip the wait
    # (CPU arrays take an unchecked fast path there).
    first_stream, later_stream = FakeStream(2), FakeStream(3)
    x, y, copy_running = _clone_copied_on(FakeStream(1), stand_in, gpu)
    stand_in.fake.current = first_stream
    x[0] = 10.0
    stand_in.fake.current = later_stream
    memory = x._data
    write(x)
    if x._data is memory:  # written in place: after the copy still reading it
        assert later_stream.waited == [copy_running]
    else:  # a small in-place operator computes beside the old memory, unwritten
        assert memory[1] == 1.0
    assert to_numpy(y)[1] == 1.0


def test_memory_of_a_dead_source_waits_for_its_copy(
    stand_in: types.ModuleType, gpu: ca.Device
) -> None:
    stream = FakeStream(1)
    stand_in.fake.current = stream
    x = ca.arange(6.0, device=gpu)
    memory = weakref.ref(x._data)
    y = ca.lazy_clone(x)
    y[0] = -1.0
    del x
    gc.collect()
    assert memory() is not None, "freed while the copy out of it may still run"
    stream.recorded[-1].done = True
    ca.lazy_clone(y)[1] = 0.0  # any later copy releases finished ones
    gc.collect()
    assert memory() is None


def test_slice_joins_the_buffer_and_a_write_copies_only_its_region(
    gpu: ca.Device, copies: Any
) -> None:
    x = ca.arange(8.0, device=gpu)
    part = x[2:4]
    assert ca.shares_buffer(x, part)
    part[0] = -1.0
    assert (copies.copies, copies.bytes_copied) == (1, 2 * 8)
    assert to_numpy(x)[2] == 2.0


def test_numpy_conversion_is_refused_and_leaves_no_holder(gpu: ca.Device) -> None:
    x = ca.arange(3.0, device=gpu)
    for copy in (None, False, True):
        with pytest.raises(TypeError, match=r"to_device\('cpu'\)"):
            x.__array__(copy=copy)
    with pytest.raises(TypeError, match=r"to_device\('cpu'\)"):
        np.asarray(x)
    assert ca.cow_info(x).holders == 1


def test_to_device_between_host_and_gpu(stand_in: types.ModuleType, gpu: ca.Device) -> None:
    host = ca.asarray([[1.0, 2.0], [3.0, 4.0]])
    on_gpu = host.to_device(gpu, stream=1)
    assert on_gpu.device is gpu
    assert type(on_gpu._data) is FakeArray
    back = on_gpu.T.to_device("cpu")
    assert back.device == ca.Device("cpu")
    assert_equal_to_model(back, np.array([[1.0, 3.0], [2.0, 4.0]]))
    with pytest.raises(TypeError, match="stream"):
        host.to_device(gpu, stream="fast")


def test_mixing_the_gpu_with_the_host_is_refused(gpu: ca.Device) -> None:
    with pytest.raises(ValueError, match="different devices"):
        ca.zeros(2, device=gpu) + ca.zeros(2)


@pytest.mark.parametrize(
    ("make_index", "message"),
    [
        (lambda gpu: [0, 3], "index 3 is out of range for axis 0 of length 3"),
        (lambda gpu: ca.asarray([-4], device=gpu), "index -4 is out of range"),
        (lambda gpu: (ca.asarray([1, 5], device=gpu),), "index 5 is out of range"),
        (lambda gpu: (Ellipsis, [3]), "index 3 is out of range"),
    ],
    ids=["list", "negative array", "tuple", "after ellipsis"],
)
def test_out_of_range_index_arrays_raise_as_on_the_host(
    gpu: ca.Device, make_index: Any, message: str
) -> None:
    # CuPy (and the stand-in) would wrap these around; cowarray checks first
    x = ca.asarray([10.0, 20.0, 30.0], device=gpu)
    index = make_index(gpu)
    with pytest.raises(IndexError, match=message):
        x[index]
    with pytest.raises(IndexError, match=message):
        x[index] = -1.0
    assert_equal_to_model(x, np.array([10.0, 20.0, 30.0]))


def test_take_out_of_range_raises_as_on_the_host(gpu: ca.Device) -> None:
    x = ca.asarray([[1, 2], [3, 4]], device=gpu)
    assert to_numpy(x)[1, 0] == 3
    with pytest.raises(IndexError, match="out of bounds"):
        ca.take(x, ca.asarray([0, 2], device=gpu), axis=0)
    with pytest.raises(IndexError, match="out of bounds"):
        ca.take(ca.reshape(x, (4,)), ca.asarray([-5], device=gpu))
    assert_equal_to_model(x, np.array([[1, 2], [3, 4]]))


def test_the_stand_in_wraps_out_of_range_indices_as_cupy_does() -> None:
    # so the two tests above fail if cowarray stops checking
    data = FakeArray((3,))
    data[...] = [10.0, 20.0, 30.0]
    np.testing.assert_array_equal(np.asarray(data[np.array([3, -4])]), [10.0, 30.0])
    data[np.array([4])] = -1.0
    np.testing.assert_array_equal(np.asarray(data), [10.0, -1.0, 30.0])


def test_a_copy_exported_through_dlpack_says_it_is_a_copy(gpu: ca.Device) -> None:
    # CuPy exports our private copy as it would any array: cowarray sets the flag
    x = ca.asarray([1.0, 2.0], device=gpu)
    copied = x.__dlpack__(max_version=(1, 0), copy=True)
    assert versioned_flags(copied) & IS_COPIED
    shared = x.__dlpack__(max_version=(1, 0))
    assert not versioned_flags(shared) & IS_COPIED


@pytest.mark.parametrize("version", ["13.6.0", "12.3.0", "unknown"])
def test_a_cupy_older_than_14_is_refused_with_the_upgrade_to_install(
    stand_in: types.ModuleType, monkeypatch: pytest.MonkeyPatch, version: str
) -> None:
    monkeypatch.setattr(stand_in.cupy, "__version__", version)
    monkeypatch.setattr(stand_in, "_backends", {})
    with pytest.raises(ImportError, match=rf"needs CuPy >= 14.0, found CuPy {version}.*cuda12"):
        stand_in.cupy_backend(0)


@pytest.mark.parametrize("version", ["14.0.0", "14.2.0", "15.0.0rc1"])
def test_cupy_14_and_later_is_accepted(
    stand_in: types.ModuleType, monkeypatch: pytest.MonkeyPatch, version: str
) -> None:
    monkeypatch.setattr(stand_in.cupy, "__version__", version)
    monkeypatch.setattr(stand_in, "_backends", {})
    assert stand_in.cupy_backend(0).device_id == 0


def test_a_strided_view_moved_to_another_gpu_keeps_its_memory_from_writes_until_done(
    stand_in: types.ModuleType,
) -> None:
    first, second = stand_in.CupyBackend(0), stand_in.CupyBackend(1)
    owner = FakeArray((4, 6))
    owner[...] = np.arange(24.0).reshape(4, 6)
    view = owner[::2, 1::2]  # not contiguous: compacted on the first GPU, then copied
    moved = second.transfer(view, first, None)
    np.testing.assert_array_equal(np.asarray(moved), np.arange(24.0).reshape(4, 6)[::2, 1::2])
    assert first.pending.events_reading(owner), "a write to the source could overtake the copy"


def test_asarray_moves_a_cupy_array_to_the_device_asked_for(gpu: ca.Device) -> None:
    values = np.arange(24.0).reshape(4, 6)
    on_gpu0 = values.copy().view(FakeArray)[::2, 1::2]
    on_gpu1 = values.copy().view(FakeArrayOnGpu1)[::2, 1::2]
    expected = values[::2, 1::2]
    cases = [(on_gpu0, "cpu"), (on_gpu1, "cpu"), (on_gpu1, "cuda:0"), (on_gpu0, "cuda:1")]
    for source, device in cases:
        moved = ca.asarray(source, device=device)
        assert moved.device == ca.Device(device)
        assert_equal_to_model(moved, expected)
        assert not np.shares_memory(moved._data, source)
        if device != "cpu":  # one peer copy, ordered: the source GPU's pending list has it
            source_gpu = ca.Device(f"cuda:{source.device.id}").backend
            assert source_gpu.pending.events_reading(source.base)
        with pytest.raises(ValueError, match=f"on cuda:{source.device.id}; moving it to {device}"):
            ca.asarray(source, device=device, copy=False)
    assert type(ca.asarray(on_gpu1, device="cpu")._data) is np.ndarray
    assert ca.asarray(on_gpu1, device=gpu, dtype=ca.float32).dtype == ca.float32


def _noting_the_current_gpu(
    base: type[FakeArray], stand_in: types.ModuleType
) -> tuple[type[FakeArray], list[int]]:
    """A producer class whose ``__dlpack__`` notes the stand-in's current GPU
    at each call, and the list it notes them in."""
    seen: list[int] = []

    class Recording(base):  # type: ignore[valid-type,misc]
        def __dlpack__(self, **kwargs: Any) -> Any:
            seen.append(stand_in.fake.current_device)
            return super().__dlpack__(**kwargs)

    return Recording, seen


def test_a_host_copy_is_asked_for_with_the_producers_gpu_current(
    stand_in: types.ModuleType, gpu: ca.Device
) -> None:
    recording, current_at_export = _noting_the_current_gpu(FakeArrayOnGpu1, stand_in)
    producer = np.arange(3.0).view(recording)
    with ca.trace() as t:
        host = ca.from_dlpack(producer, device="cpu")
    assert current_at_export == [1]  # torch refuses to export from another GPU
    assert stand_in.fake.current_device == 0
    # no GPU import: the producer's host copy, counted as the import's copy
    assert [(e.kind, e.buffer_id) for e in t.events] == [("materialize", None), ("import", None)]
    assert type(host._data) is np.ndarray
    assert_equal_to_model(host, [0.0, 1.0, 2.0])


def test_numpy_takes_a_host_copy_of_a_gpu_array_through_dlpack(gpu: ca.Device) -> None:
    x = ca.asarray([1.0, 2.0, 3.0], device=gpu)
    assert x.__dlpack_device__() == (2, 0)
    host = np.from_dlpack(x, device="cpu")
    np.testing.assert_array_equal(host, [1.0, 2.0, 3.0])
    host[0] = -1.0  # a copy: x keeps its values, and was never exposed
    assert_equal_to_model(x, np.array([1.0, 2.0, 3.0]))
    assert ca.cow_info(x).state == "private"
    assert versioned_flags(x.__dlpack__(max_version=(1, 0), dl_device=(1, 0))) & IS_COPIED
    with pytest.raises(BufferError, match="needs a copy"):
        x.__dlpack__(dl_device=(1, 0), copy=False)
    with pytest.raises(BufferError, match="dl_device=\\(3, 0\\)"):
        x.__dlpack__(dl_device=(3, 0))


def _producer(values: list[float], *, writable: bool = True) -> FakeArray:
    """A CuPy array of another library's making (the stand-in's exports say kDLCUDA)."""
    array = FakeArray((len(values),))
    array[...] = values
    array.flags.writeable = writable
    return array


class TorchLikeTensor:
    """GPU data of another library: DLPack only, not a CuPy array."""

    def __init__(self, values: list[float]) -> None:
        self.memory = _producer(values)
        self.streams: list[Any] = []
        self.copies: list[bool | None] = []

    def __dlpack_device__(self) -> tuple[int, int]:
        return (2, 0)

    def __dlpack__(self, *, stream: Any = None, copy: bool | None = None, **kwargs: Any) -> Any:
        self.streams.append(stream)
        self.copies.append(copy)
        source = self.memory.copy() if copy else self.memory
        return FakeArray.__dlpack__(source, stream=stream, **kwargs)


@pytest.mark.parametrize("copy", [None, True, False])
def test_asarray_of_another_librarys_gpu_data_takes_the_dlpack_handshake(
    stand_in: types.ModuleType, gpu: ca.Device, copy: bool | None
) -> None:
    producer = TorchLikeTensor([1.0, 2.0])
    x = ca.asarray(producer, copy=copy)
    assert x.device is gpu
    assert producer.streams == [stand_in.fake.current.ptr]  # it orders our stream
    # never the producer's own GPU copy: torch orders our stream before making it
    assert producer.copies == [False if copy is False else None]
    producer.memory[0] = 10.0
    aliased = copy is False
    assert to_numpy(x).tolist() == ([10.0, 2.0] if aliased else [1.0, 2.0])
    assert ca.cow_info(x).state == ("foreign" if aliased else "private")
    assert ca.asarray(producer, dtype=ca.float32).dtype == ca.float32
    with pytest.raises(ValueError, match="cannot convert float64 to float32"):
        ca.asarray(TorchLikeTensor([1.0]), dtype=ca.float32, copy=False)
    if aliased:  # a second alias of the same memory is refused with the standard's error
        with pytest.raises(ValueError, match=r"copy=False\) cannot alias this TorchLikeTensor"):
            ca.asarray(producer, copy=False)


def test_a_gpu_export_hands_the_consumer_its_stream_and_ends_on_release(
    stand_in: types.ModuleType, gpu: ca.Device
) -> None:
    x = ca.asarray([1.0, 2.0], device=gpu)
    assert x.__dlpack_device__() == (2, 0)
    capsule = x.__dlpack__(stream=7, max_version=(1, 0))
    assert FakeArray.dlpack_streams[-1] == 7  # CuPy orders stream 7 after its own
    assert ca.cow_info(x).state == "exposed"
    del capsule
    gc.collect()
    assert ca.cow_info(x).state == "private"


def test_an_import_from_the_gpu_names_the_current_stream_with_the_producers_gpu_current(
    stand_in: types.ModuleType, gpu: ca.Device
) -> None:
    recording, current_at_export = _noting_the_current_gpu(FakeArray, stand_in)
    stand_in.fake.current_device = 1  # another GPU is current
    producer = recording((3,))
    producer[...] = [1.0, 2.0, 3.0]
    y = ca.from_dlpack(producer)
    assert y.device is gpu
    assert FakeArray.dlpack_streams[-1] == stand_in.fake.current.ptr
    assert current_at_export == [0]  # torch refuses to export from another GPU
    assert stand_in.fake.current_device == 1  # and put back afterwards
    assert ca.cow_info(y).state == "foreign"
    producer[0] = 10.0  # zero-copy: the producer's writes show, as with np.from_dlpack
    assert to_numpy(y)[0] == 10.0


def test_import_under_the_per_thread_default_stream_hands_torch_a_stream_it_takes(
    stand_in: types.ModuleType, gpu: ca.Device
) -> None:
    class TorchLike(FakeArray):
        def __dlpack__(self, *, stream: Any = None, **kwargs: Any) -> Any:
            if stream == 2:  # torch 2.13's words
                raise BufferError("per-thread default stream is not supported.")
            return super().__dlpack__(stream=stream, **kwargs)

    ptds = stand_in.fake.current = stand_in.cupy.cuda.Stream.ptds
    ptds.waited.clear()
    producer = TorchLike((2,))
    producer[...] = [1.0, 2.0]
    y = ca.from_dlpack(producer)
    assert to_numpy(y).tolist() == [1.0, 2.0]
    handed = FakeArray.dlpack_streams[-1]
    assert handed not in (None, 2)
    assert len(ptds.waited) == 1, "the current stream must wait for the relay stream"


def test_copy_true_from_a_cupy_producer_that_refuses_it_is_copied_by_cowarray(
    gpu: ca.Device,
) -> None:
    producer = _producer([1.0, 2.0])
    y = ca.from_dlpack(producer, copy=True)  # CuPy refuses copy=True on its own device
    producer[0] = 10.0
    assert to_numpy(y)[0] == 1.0
    assert ca.cow_info(y).state == "private"


def test_a_read_only_gpu_producer_stays_unwritten_though_cupy_drops_the_flag(
    gpu: ca.Device,
) -> None:
    producer = _producer([1.0, 2.0], writable=False)
    y = ca.from_dlpack(producer)
    assert y._data.flags.writeable, "the stand-in imports writable memory, as CuPy does"
    y[0] = 9.0
    assert producer[0] == 1.0
    assert to_numpy(y)[0] == 9.0


@pytest.mark.parametrize("name", ["eig", "eigvals"])
def test_eig_runs_on_the_host_where_cusolver_has_no_geev(
    stand_in: types.ModuleType, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    def no_geev(a: Any) -> Any:
        raise RuntimeError("geev is not available")  # CuPy on CUDA before 12.6

    monkeypatch.setattr(stand_in.cupy.linalg, name, no_geev)
    xp = stand_in.CupyBackend(0).xp
    matrix = np.array([[0.0, -1.0], [1.0, 0.0]])
    result = getattr(xp.linalg, name)(make(matrix))
    expected = getattr(np.linalg, name)(matrix)
    parts = result if isinstance(result, tuple) else (result,)
    wanted = expected if isinstance(expected, tuple) else (expected,)
    for part, want in zip(parts, wanted, strict=True):
        assert isinstance(part, FakeArray)
        np.testing.assert_allclose(np.asarray(part), want)


def test_a_read_only_gpu_import_is_not_exported_writable_without_a_copy(gpu: ca.Device) -> None:
    producer = _producer([1.0, 2.0], writable=False)
    y = ca.from_dlpack(producer)
    with pytest.raises(BufferError, match="cannot be written in place"):
        y.__dlpack__(copy=False, max_version=(1, 0))
    capsule = y.__dlpack__(max_version=(1, 0))  # copy=None: a private copy goes out
    del capsule
    assert producer[0] == 1.0


def test_a_write_waits_on_its_own_gpu_while_another_is_current(
    stand_in: types.ModuleType, gpu: ca.Device
) -> None:
    # The legacy default stream is per device: the wait must be issued with
    # the array's GPU current, whichever GPU the caller made current.
    current_at_wait: list[int] = []

    class Recording(FakeStream):
        def wait_event(self, event: Any) -> None:
            current_at_wait.append(stand_in.fake.current_device)
            super().wait_event(event)

    x = ca.arange(6.0, device=gpu)
    y = ca.lazy_clone(x)
    stand_in.fake.current = FakeStream(1)
    y[0] = -1.0  # a copy out of x's memory, still running
    stand_in.fake.current = Recording(0)
    stand_in.fake.current_device = 1
    x[0] = 10.0
    assert current_at_wait == [0]


def test_an_index_with_too_many_parts_says_so_on_the_gpu_as_on_the_host(gpu: ca.Device) -> None:
    for device in (ca.Device("cpu"), gpu):
        x = ca.arange(3, device=device)
        with pytest.raises(IndexError, match=r"for an array of 1 dimension .*; pass at most 1"):
            x[0, ca.asarray([0], device=device)]
