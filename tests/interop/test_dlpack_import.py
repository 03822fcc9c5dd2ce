"""Importing through DLPack (docs/design.md rule 5), with torch and NumPy as producers.

An import aliases its producer; its clones and derived arrays copy eagerly;
memory that already lies inside a cowarray buffer is never aliased twice.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from _dlpack_layout import tensor_head
from _patching import BackendPatch

import cowarray as ca
from cowarray._core import cow
from cowarray.testing import to_numpy

torch = pytest.importorskip("torch")


def _values(x: ca.Array) -> Any:
    return to_numpy(x)  # a copy, from any device


def test_import_aliases_the_producer_in_both_directions() -> None:
    t = torch.tensor([1.0, 2.0, 3.0])
    x = ca.from_dlpack(t)
    t[0] = 10.0
    x[1] = 20.0
    np.testing.assert_array_equal(_values(x), [10.0, 20.0, 3.0])
    np.testing.assert_array_equal(t.numpy(), [10.0, 20.0, 3.0])
    assert ca.cow_info(x).state == "foreign"


def test_import_copies_nothing() -> None:
    t = torch.arange(10**5, dtype=torch.float32)
    cow.COUNTERS.reset()
    x = ca.from_dlpack(t)
    assert cow.COUNTERS.copies == 0
    assert ca.cow_info(x).nbytes == 4 * 10**5


def test_clones_and_views_of_an_import_copy_eagerly_so_they_keep_their_values() -> None:
    t = torch.tensor([1, 2, 3, 4])
    x = ca.from_dlpack(t)
    clone = ca.lazy_clone(x)
    part = x[1:]
    alias = np.asarray(x)  # x aliases the producer already: one more alias
    assert not ca.shares_buffer(x, clone)
    t[:] = 0
    np.testing.assert_array_equal(_values(clone), [1, 2, 3, 4])
    np.testing.assert_array_equal(_values(part), [2, 3, 4])
    np.testing.assert_array_equal(alias, [0, 0, 0, 0])


def test_copy_true_gives_an_independent_value() -> None:
    t = torch.tensor([1.0, 2.0])
    x = ca.from_dlpack(t, copy=True)
    t[0] = 9.0
    x[1] = 8.0
    np.testing.assert_array_equal(_values(x), [1.0, 8.0])
    np.testing.assert_array_equal(t.numpy(), [9.0, 2.0])
    assert ca.cow_info(x).state == "private"


def test_read_only_producer_is_copied_before_the_first_write() -> None:
    producer = np.arange(4.0)
    producer.flags.writeable = False
    x = ca.from_dlpack(producer)
    cow.COUNTERS.reset()
    x[0] = 100.0
    assert cow.COUNTERS.copies == 1
    np.testing.assert_array_equal(producer, [0.0, 1.0, 2.0, 3.0])
    np.testing.assert_array_equal(_values(x), [100.0, 1.0, 2.0, 3.0])


def test_writable_numpy_producer_is_aliased_like_np_from_dlpack() -> None:
    producer = np.arange(3)
    x = ca.from_dlpack(producer)
    x[0] = 7
    producer[1] = 8
    np.testing.assert_array_equal(producer, [7, 8, 2])
    np.testing.assert_array_equal(_values(x), [7, 8, 2])


def test_importing_an_array_gives_a_lazy_clone(backend_device: ca.Device) -> None:
    x = ca.asarray([1, 2, 3], device=backend_device)
    y = ca.from_dlpack(x)
    assert y is not x
    assert y.device == backend_device
    assert ca.shares_buffer(x, y)
    y[0] = 100
    np.testing.assert_array_equal(_values(x), [1, 2, 3])


def test_importing_a_numpy_export_copies_instead_of_a_second_alias() -> None:
    x = ca.asarray([1, 2, 3])
    y = ca.from_dlpack(np.asarray(x))
    assert not ca.shares_buffer(x, y)
    with pytest.raises(BufferError, match="inside a cowarray buffer"):
        ca.from_dlpack(np.asarray(x), copy=False)
    x[0] = 100
    y[1] = 200
    np.testing.assert_array_equal(_values(x), [100, 2, 3])
    np.testing.assert_array_equal(_values(y), [1, 200, 3])


def test_round_trip_through_torch_gives_a_copy_not_a_second_alias() -> None:
    x = ca.asarray([1.0, 2.0, 3.0])
    t = torch.from_dlpack(x)
    y = ca.from_dlpack(t)
    t[0] = 10.0
    y[1] = 20.0
    np.testing.assert_array_equal(_values(x), [10.0, 2.0, 3.0])
    np.testing.assert_array_equal(_values(y), [1.0, 20.0, 3.0])
    assert ca.cow_info(y).state == "private"


def test_torch_view_of_exported_memory_is_copied_on_import() -> None:
    x = ca.arange(6)
    t = torch.from_dlpack(x)
    y = ca.from_dlpack(t[2:4])
    t[2] = 100
    np.testing.assert_array_equal(_values(y), [2, 3])


def test_importing_our_own_capsule_copies(backend_device: ca.Device) -> None:
    x = ca.arange(3, device=backend_device)
    y = ca.from_dlpack(x.__dlpack__(max_version=(1, 0)))
    x[0] = 100
    np.testing.assert_array_equal(_values(y), [0, 1, 2])
    assert y.device is backend_device
    pending = getattr(backend_device.backend, "pending", None)
    if pending is not None:  # on a GPU the import holds x's memory until its copy is done
        pending.wait_all()
    assert ca.cow_info(x).state == "private"  # the consumed capsule was released


def test_the_same_tensor_imported_twice_gives_two_values() -> None:
    t = torch.tensor([1, 2, 3])
    first = ca.from_dlpack(t)
    second = ca.from_dlpack(t)
    first[0] = 100
    assert int(ca.asarray(second)[0]) == 1
    assert ca.cow_info(second).state == "private"


def test_copy_false_refuses_a_second_alias_and_changes_nothing() -> None:
    x = ca.arange(3)
    t = torch.from_dlpack(x)
    before = ca.cow_info(x)
    with pytest.raises(BufferError, match="inside a cowarray buffer"):
        ca.from_dlpack(t, copy=False)
    assert ca.cow_info(x) == before
    del t
    assert ca.cow_info(x).state == "private"


def test_copy_false_of_an_exposed_array_is_refused() -> None:
    x = ca.arange(3)
    t = torch.from_dlpack(x)
    with pytest.raises(BufferError, match="exposed"):
        ca.from_dlpack(x, copy=False)
    del t
    assert ca.shares_buffer(x, ca.from_dlpack(x, copy=False))


def test_a_torch_lazy_clone_imports_its_own_values() -> None:
    t = torch.arange(5.0)
    lazy = torch._lazy_clone(t)
    x = ca.from_dlpack(lazy)
    t[0] = 100.0
    np.testing.assert_array_equal(_values(x), [0.0, 1.0, 2.0, 3.0, 4.0])
    x[1] = 50.0
    np.testing.assert_array_equal(t.numpy(), [100.0, 1.0, 2.0, 3.0, 4.0])
    np.testing.assert_array_equal(lazy.numpy(), [0.0, 50.0, 2.0, 3.0, 4.0])


def test_import_onto_another_device_copies() -> None:
    t = torch.tensor([1, 2])
    x = ca.from_dlpack(t, device="cpu:1")
    assert x.device == ca.Device("cpu:1")
    t[0] = 100
    np.testing.assert_array_equal(_values(x), [1, 2])
    with pytest.raises(ValueError, match="needs a copy"):
        ca.from_dlpack(t, device="cpu:1", copy=False)


class _LegacyProducer:
    """A producer from before DLPack 1.0: ``__dlpack__`` takes only ``stream``."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array

    def __dlpack__(self, *, stream: object = None) -> object:
        return self.array.__dlpack__(stream=stream)

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)


def test_a_legacy_producer_is_imported_and_copied_on_request() -> None:
    producer = np.arange(3)
    shared = ca.from_dlpack(_LegacyProducer(producer))
    copied = ca.from_dlpack(_LegacyProducer(producer), copy=True)
    producer[0] = 100
    np.testing.assert_array_equal(_values(shared), [100, 1, 2])
    np.testing.assert_array_equal(_values(copied), [0, 1, 2])


class _DeviceProducer:
    def __init__(self, device: tuple[int, int]) -> None:
        self.device = device

    def __dlpack__(self, **_: object) -> object:
        raise AssertionError("must not be asked for a capsule")

    def __dlpack_device__(self) -> tuple[int, int]:
        return self.device


@pytest.mark.parametrize(
    ("producer", "error", "match"),
    [
        ([1, 2], TypeError, "__dlpack__"),
        # a GPU no machine here has: without CuPy, without a GPU, or with one
        (_DeviceProducer((2, 99)), BufferError, "CUDA memory \\(device 99\\)"),
        (_DeviceProducer((99, 0)), BufferError, "device type 99"),
        (_DeviceProducer(("cpu", 0)), TypeError, "__dlpack_device__"),
        (torch.zeros(2, dtype=torch.bfloat16), BufferError, "dtype"),
        (torch.zeros(2, requires_grad=True), BufferError, "gradient"),
    ],
    ids=["list", "cuda", "unknown device", "bad device tuple", "bfloat16", "requires grad"],
)
def test_bad_producers_raise_clear_errors(
    producer: object, error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        ca.from_dlpack(producer)


def test_bad_copy_keyword_raises_type_error() -> None:
    with pytest.raises(TypeError, match="copy"):
        ca.from_dlpack(torch.zeros(2), copy=1)


def test_import_is_seen_by_an_observer() -> None:
    kinds: list[tuple[str, bool]] = []

    class Recorder:
        def record(self, kind: str, holder: object, buffer: object, nbytes: int) -> None:
            kinds.append((kind, buffer is not None))

    cow.set_observer(Recorder())
    try:
        t = torch.zeros(3)
        ca.from_dlpack(t)
        ca.from_dlpack(t, copy=True)
    finally:
        cow.set_observer(None)
    # the copy (torch's, for copy=True) is reported before the import
    assert kinds == [("import", True), ("import_copy", False), ("import", False)]


def test_a_bare_capsule_is_imported_onto_the_device_it_names() -> None:
    # A capsule of GPU memory must not go to NumPy: its device decides the backend.
    capsule = np.arange(3.0).__dlpack__()
    head = tensor_head(capsule)
    head.device.device_type, head.device.device_id = 2, 99
    with pytest.raises(BufferError, match=r"CUDA memory \(device 99\)"):
        ca.from_dlpack(capsule)
    host = np.arange(3.0)
    np.testing.assert_array_equal(_values(ca.from_dlpack(host.__dlpack__())), host)


def test_a_read_only_import_is_copied_before_a_write_even_if_the_backend_forgets(
    backend_patch: BackendPatch,
) -> None:
    # CuPy drops DLPack's READ_ONLY flag on import: stand for it with a NumPy
    # import that hands back a writable alias of the producer's memory.
    producer = np.arange(4.0)
    read_only = producer.view()
    read_only.flags.writeable = False
    backend = ca.Device("cpu").backend
    backend_patch.setattr(backend, "import_dlpack", lambda capsule, device: producer)
    y = ca.from_dlpack(read_only)
    assert cow.state_of(y) == "foreign"
    y[0] = 9.0
    assert producer[0] == 0.0, "a write went into memory its producer marked read-only"
    assert _values(y)[0] == 9.0


def test_a_dtype_cowarray_cannot_hold_is_refused_whatever_the_backend_imports(
    backend_patch: BackendPatch,
) -> None:
    # CuPy with ml_dtypes imports bfloat16; stand for it with a NumPy dtype
    backend_patch.setattr(
        ca.Device("cpu").backend, "import_dlpack", lambda capsule, device: np.array(["a"])
    )
    with pytest.raises(BufferError, match="not <U1"):
        ca.from_dlpack(np.arange(2.0))
