"""GPU arrays and the host: no implicit NumPy conversion, explicit moves, one device per op."""

from __future__ import annotations

import numpy as np
import pytest
from _gpu import GPU, cupy, new_stream, synchronize

import cowarray as ca
from cowarray._backends.base import missing_standard_names
from cowarray.testing import to_numpy


@pytest.mark.parametrize("copy", [None, False, True])
def test_numpy_conversion_of_a_gpu_array_raises_pointing_to_to_device(copy: bool | None) -> None:
    x = ca.arange(3, device=GPU)
    with pytest.raises(TypeError, match=r"to_device\('cpu'\)"):
        x.__array__(copy=copy)
    with pytest.raises(TypeError, match=r"to_device\('cpu'\)"):
        np.asarray(x)
    assert ca.cow_info(x).holders == 1, "a refused export must not leave a holder behind"


def test_to_device_round_trip_between_host_and_gpu_keeps_values() -> None:
    host = ca.asarray([[1.5, -2.0], [3.0, 4.25]])
    on_gpu = host.to_device(GPU)
    assert on_gpu.device == ca.Device(GPU)
    assert isinstance(on_gpu._data, cupy.ndarray)
    back = on_gpu.to_device("cpu")
    assert back.device == ca.Device("cpu")
    np.testing.assert_array_equal(to_numpy(back), to_numpy(host))
    on_gpu[0, 0] = 0.0
    assert to_numpy(host)[0, 0] == 1.5


def test_to_device_of_a_strided_gpu_view_moves_its_values() -> None:
    x = ca.reshape(ca.arange(12.0, device=GPU), (3, 4))
    np.testing.assert_array_equal(
        to_numpy(x[::-1, 1::2].to_device("cpu")), np.arange(12.0).reshape(3, 4)[::-1, 1::2]
    )


two_gpus = pytest.mark.skipif(
    cupy.cuda.runtime.getDeviceCount() < 2, reason="needs two GPUs (cuda:0 and cuda:1)"
)


@two_gpus
def test_to_device_between_gpus_copies_directly() -> None:
    x = ca.reshape(ca.arange(12.0, device=GPU), (3, 4))
    moved = x.T.to_device("cuda:1")
    assert moved.device == ca.Device("cuda:1")
    assert moved._data.device.id == 1
    np.testing.assert_array_equal(to_numpy(moved), np.arange(12.0).reshape(3, 4).T)
    total = moved + ca.ones((4, 3), device="cuda:1")  # computes on cuda:1
    assert total._data.device.id == 1


@two_gpus
def test_a_strided_cupy_array_of_another_gpu_is_moved_by_asarray() -> None:
    with cupy.cuda.Device(0):
        source = cupy.arange(24.0).reshape(4, 6)[::2, 1::2]  # CuPy cannot copy it across
    moved = ca.asarray(source, device="cuda:1")
    assert moved._data.device.id == 1
    np.testing.assert_array_equal(to_numpy(moved), np.arange(24.0).reshape(4, 6)[::2, 1::2])
    with pytest.raises(ValueError, match="on cuda:0; moving it to cuda:1 needs a copy"):
        ca.asarray(source, device="cuda:1", copy=False)


def test_arrays_on_different_devices_are_not_combined() -> None:
    with pytest.raises(ValueError, match="different devices"):
        ca.zeros(2) + ca.zeros(2, device=GPU)
    gpu = ca.zeros(2, device=GPU)
    with pytest.raises(ValueError, match="array on cpu into an array on cuda:0"):
        gpu[...] = ca.ones(2)
    assert (to_numpy(gpu) == 0).all()


CREATIONS = {
    "asarray": lambda d: ca.asarray([1, 2], device=d),
    "arange": lambda d: ca.arange(3, device=d),
    "empty": lambda d: ca.empty(2, device=d),
    "zeros": lambda d: ca.zeros(2, device=d),
    "ones": lambda d: ca.ones(2, device=d),
    "full": lambda d: ca.full(2, 3.0, device=d),
    "linspace": lambda d: ca.linspace(0, 1, 3, device=d),
    "eye": lambda d: ca.eye(2, device=d),
    "empty_like": lambda d: ca.empty_like(ca.zeros(2), device=d),
    "zeros_like": lambda d: ca.zeros_like(ca.zeros(2), device=d),
    "ones_like": lambda d: ca.ones_like(ca.zeros(2), device=d),
    "full_like": lambda d: ca.full_like(ca.zeros(2), 1.0, device=d),
}


@pytest.mark.parametrize("name", sorted(CREATIONS))
def test_every_creation_function_allocates_on_the_gpu_asked_for(name: str) -> None:
    array = CREATIONS[name](GPU)
    assert array.device == ca.Device(GPU)
    assert isinstance(array._data, cupy.ndarray)
    assert array._data.device.id == 0


def test_the_namespace_has_every_standard_name_on_this_cupy() -> None:
    assert missing_standard_names(ca.Device(GPU).backend.xp) == []


def test_repr_names_the_device() -> None:
    assert repr(ca.asarray([1.0, 2.0], device=GPU)) == (
        "cowarray.Array([1., 2.], dtype=float64, device='cuda:0')"
    )


def test_a_missing_gpu_is_a_value_error() -> None:
    count = cupy.cuda.runtime.getDeviceCount()
    with pytest.raises(ValueError, match=f"cuda:{count}"):
        ca.zeros(2, device=f"cuda:{count}")


def test_to_device_enqueues_the_copy_on_the_stream_given() -> None:
    host = ca.arange(6.0)
    for stream in (new_stream(), 1):
        moved = host.to_device(GPU, stream=stream)
        synchronize()
        np.testing.assert_array_equal(to_numpy(moved), np.arange(6.0))
    with pytest.raises(TypeError, match="stream"):
        host.to_device(GPU, stream="fast")
