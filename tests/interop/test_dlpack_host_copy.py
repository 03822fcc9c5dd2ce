"""GPU data asked for on the host: the producer's own host copy (``dl_device``).

``from_dlpack(x, device="cpu")`` and ``asarray(x, device="cpu")`` of a
producer on a GPU ask it for a host copy, the standard's way to reach device
memory from Python; no CuPy is needed for that. The producers here pretend to
live on GPU 0 and keep their values in NumPy.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from _dlpack_layout import IS_COPIED, set_flags

import cowarray as ca
from cowarray.testing import to_numpy


class GpuProducer:
    """A producer on cuda:0 that, asked for ``dl_device=(kDLCPU, 0)``, copies.

    ``flagged=False``: the copy is not flagged IS_COPIED (as torch's are not).
    ``refuses``: it makes no host copies, and no capsules at all.
    """

    def __init__(self, values: Any, *, flagged: bool = True, refuses: bool = False) -> None:
        self.memory = np.array(values)
        self.flagged = flagged
        self.refuses = refuses
        self.calls: list[dict[str, Any]] = []
        self.handed_out: list[np.ndarray] = []

    def __dlpack_device__(self) -> tuple[int, int]:
        return (2, 0)

    def __dlpack__(self, **kwargs: Any) -> object:
        self.calls.append(kwargs)
        if self.refuses:
            raise BufferError("this producer exports nothing")
        assert kwargs.get("dl_device") == (1, 0), "a CUDA capsule was asked for"
        assert kwargs.get("copy") is True
        copy = self.memory.copy()
        self.handed_out.append(copy)
        if self.flagged:
            capsule = copy.__dlpack__(max_version=kwargs["max_version"])
            set_flags(capsule, IS_COPIED)
            return capsule
        return copy.__dlpack__()


HOST_COPY_REQUEST = {"max_version": (1, 0), "dl_device": (1, 0), "copy": True}


@pytest.mark.parametrize(
    "convert",
    [
        lambda p, **kw: ca.from_dlpack(p, device="cpu", **kw),
        lambda p, **kw: ca.asarray(p, device="cpu", **kw),
    ],
    ids=["from_dlpack", "asarray"],
)
@pytest.mark.parametrize("copy", [None, True])
def test_device_cpu_takes_the_producers_host_copy(convert: Any, copy: bool | None) -> None:
    producer = GpuProducer([1.0, 2.0, 3.0])
    x = convert(producer, copy=copy)
    assert producer.calls == [HOST_COPY_REQUEST]
    assert x.device == ca.Device("cpu")
    assert ca.cow_info(x).state == "private"  # the copy is ours: no foreign buffer
    producer.memory[0] = -1.0
    x[1] = 20.0
    np.testing.assert_array_equal(to_numpy(x), [1.0, 20.0, 3.0])
    np.testing.assert_array_equal(producer.memory, [-1.0, 2.0, 3.0])


@pytest.mark.parametrize("flagged", [True, False])
def test_the_producers_copy_is_not_copied_again(flagged: bool) -> None:
    producer = GpuProducer([1, 2, 3], flagged=flagged)
    x = ca.from_dlpack(producer, device="cpu")
    assert np.shares_memory(x._data, producer.handed_out[0])
    assert ca.cow_info(x).state == "private"


def test_asarray_converts_the_host_copy_to_the_dtype_asked_for() -> None:
    x = ca.asarray(GpuProducer([1, 2, 3]), device="cpu", dtype=ca.float32)
    assert x.dtype == ca.float32
    np.testing.assert_array_equal(to_numpy(x), [1.0, 2.0, 3.0])


@pytest.mark.parametrize(
    ("convert", "match"),
    [
        (lambda p: ca.from_dlpack(p, device="cpu", copy=False), "a host array needs a copy"),
        (lambda p: ca.asarray(p, device="cpu", copy=False), "on cuda:0; moving it to cpu"),
    ],
    ids=["from_dlpack", "asarray"],
)
def test_copy_false_is_refused_before_the_producer_is_asked(convert: Any, match: str) -> None:
    producer = GpuProducer([1.0, 2.0])
    with pytest.raises(ValueError, match=match):
        convert(producer)
    assert producer.calls == []
    np.testing.assert_array_equal(producer.memory, [1.0, 2.0])


def test_a_producer_without_host_copies_is_imported_on_its_gpu_instead() -> None:
    producer = GpuProducer([1.0], refuses=True)
    with pytest.raises(BufferError) as refused:
        ca.from_dlpack(producer, device="cpu")
    message = str(refused.value)
    assert producer.calls[0] == HOST_COPY_REQUEST
    # the producer's own reason is kept, whatever the second way said
    assert message.endswith("the producer said: this producer exports nothing)")
    if len(producer.calls) == 2:  # a GPU is here: it asked for a CUDA capsule
        assert "dl_device" not in producer.calls[1]
    else:  # no GPU to import on
        assert message.startswith("cannot import CUDA memory (device 0)")


class RocmProducer(GpuProducer):
    """Data on a device cowarray has no backend for (kDLROCM)."""

    def __dlpack_device__(self) -> tuple[int, int]:
        return (10, 0)


def test_data_on_a_device_without_a_backend_is_named_or_copied_to_the_host() -> None:
    with pytest.raises(BufferError, match="DLPack device type 10"):
        ca.asarray(RocmProducer([1.0]))
    x = ca.asarray(RocmProducer([1.0, 2.0]), device="cpu")  # the producer copies it
    np.testing.assert_array_equal(to_numpy(x), [1.0, 2.0])


class OddAnswer:
    """Says nothing usable about its device; NumPy can read it."""

    def __dlpack_device__(self) -> tuple[int, None]:
        return (2, None)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        return np.arange(3)


def test_an_unusable_dlpack_device_answer_counts_as_host_data() -> None:
    x = ca.asarray(OddAnswer())
    assert x.device == ca.Device("cpu")
    np.testing.assert_array_equal(to_numpy(x), [0, 1, 2])
