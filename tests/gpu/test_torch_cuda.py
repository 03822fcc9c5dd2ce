"""DLPack between cowarray on CuPy and torch CUDA tensors (docs/design.md rules 5 and 8)."""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import Any

import pytest
from _gpu import GPU, cupy, new_stream, spin, synchronize

import cowarray as ca
from cowarray.testing import to_numpy

torch: Any = pytest.importorskip("torch", reason="torch CUDA round trips need torch")
if not torch.cuda.is_available():
    pytest.skip("this torch build has no CUDA", allow_module_level=True)
if not (hasattr(ca, "from_dlpack") and hasattr(ca.Array, "__dlpack__")):
    pytest.skip("cowarray has no DLPack support in this checkout", allow_module_level=True)


def _sync() -> None:
    torch.cuda.synchronize()
    synchronize()


def test_dlpack_device_is_cuda_with_the_gpu_index() -> None:
    assert ca.zeros(2, device=GPU).__dlpack_device__() == (2, 0)


def test_export_to_torch_aliases_and_clones_copy_while_exposed() -> None:
    x = ca.arange(4.0, device=GPU)
    t = torch.from_dlpack(x)
    assert t.device == torch.device("cuda", 0)
    assert ca.cow_info(x).state == "exposed"
    clone = ca.lazy_clone(x)
    t[0] = 10.0
    _sync()
    assert to_numpy(x)[0] == 10.0, "x and the torch tensor alias"
    assert to_numpy(clone)[0] == 0.0, "a clone of an exposed buffer is an eager copy"
    del t
    gc.collect()
    assert ca.cow_info(x).state == "private"


def test_export_of_a_shared_array_gives_torch_its_own_memory() -> None:
    x = ca.arange(4.0, device=GPU)
    y = ca.lazy_clone(x)
    t = torch.from_dlpack(x)
    t[1] = -1.0
    _sync()
    assert to_numpy(y)[1] == 1.0
    assert to_numpy(x)[1] == -1.0


def test_import_from_torch_is_foreign_and_its_derived_arrays_copy() -> None:
    t = torch.arange(4.0, device="cuda:0")
    a = ca.from_dlpack(t)
    assert a.device == ca.Device(GPU)
    assert ca.cow_info(a).state == "foreign"
    tail = a[1:]
    t[0] = 9.0
    t[1] = 7.0
    _sync()
    assert to_numpy(a)[0] == 9.0, "the import aliases the producer"
    assert to_numpy(tail)[0] == 1.0, "a slice of foreign memory is an eager copy"


def test_round_trip_through_torch_never_makes_a_second_alias() -> None:
    x = ca.arange(4.0, device=GPU)
    back = ca.from_dlpack(torch.from_dlpack(x))
    assert not ca.shares_buffer(x, back)
    back[0] = 100.0
    _sync()
    assert to_numpy(x)[0] == 0.0


def test_export_makes_the_consumer_stream_wait_for_cupys_current_stream() -> None:
    a = new_stream()
    consumer = torch.cuda.Stream()
    x = ca.zeros(1 << 20, dtype=ca.float32, device=GPU)
    _sync()
    with a, torch.cuda.stream(consumer):
        spin()
        x[...] = 5.0  # on CuPy's stream a
        t = torch.from_dlpack(x)  # passes stream=consumer: it must wait for a
        total = float(t.sum())
    assert total == 5.0 * (1 << 20)


def _import_while_torch_writes(import_tensor: Callable[[Any], ca.Array]) -> ca.Array:
    """``import_tensor(t)`` of a tensor whose fill with 3.0 is still pending on a
    busy torch stream: CuPy's current stream must wait for it."""
    producer = torch.cuda.Stream()
    t = torch.zeros(1 << 20, device="cuda:0")
    _sync()
    with torch.cuda.stream(producer):
        torch.cuda._sleep(50_000_000)
        t.fill_(3.0)  # on torch's stream
        return import_tensor(t)


def test_import_passes_cupys_current_stream_to_torch() -> None:
    imported = _import_while_torch_writes(ca.from_dlpack)
    values = to_numpy(ca.lazy_clone(imported))
    assert (values == 3.0).all(), "the import did not order CuPy's stream after torch's"


@pytest.mark.parametrize(
    "convert",
    [
        lambda t: ca.from_dlpack(t, device="cpu"),
        lambda t: ca.asarray(t, device="cpu"),
    ],
    ids=["from_dlpack", "asarray"],
)
def test_a_cuda_tensor_asked_for_on_the_host_is_torchs_host_copy(convert: Any) -> None:
    t = torch.arange(6.0, device="cuda").reshape(2, 3)[:, ::2]
    with ca.trace() as trace:
        x = convert(t)
    # torch's own host copy: one import of memory nobody else holds (an import
    # on the GPU would show a foreign buffer)
    assert [(e.kind, e.buffer_id) for e in trace.events] == [("import", None)]
    assert x.device == ca.Device("cpu")
    assert ca.cow_info(x).state == "private"
    t[0, 0] = -1.0
    _sync()
    assert to_numpy(x).tolist() == [[0.0, 2.0], [3.0, 5.0]]


def test_import_under_the_per_thread_default_stream_waits_for_torch_through_a_relay() -> None:
    # torch refuses stream=2; cowarray hands it a relay stream instead
    with cupy.cuda.Stream.ptds:
        imported = _import_while_torch_writes(ca.from_dlpack)
        values = to_numpy(ca.lazy_clone(imported))  # reads on the per-thread stream
    assert (values == 3.0).all(), "the per-thread stream did not wait for torch's"


@pytest.mark.parametrize("copy", [None, False])
def test_asarray_of_a_cuda_tensor_waits_for_torchs_stream(copy: bool | None) -> None:
    # through DLPack's handshake: torch's __cuda_array_interface__ names no stream
    x = _import_while_torch_writes(lambda t: ca.asarray(t, copy=copy))
    assert x.device == ca.Device(GPU)
    assert ca.cow_info(x).state == ("foreign" if copy is False else "private")
    values = to_numpy(ca.lazy_clone(x))
    assert (values == 3.0).all(), "asarray read the tensor before torch's write"
