"""Optional backend capabilities: streams and page-granular copy-on-write.

A backend must have the members of ``base.Backend``; ``StreamOrdered`` and
``PageCowCapable`` are capabilities it has whole or not at all, checked once
when the backend is loaded (``_backends.STREAMS``, ``_backends.PAGE_COW``).
A backend with the required members only keeps every rule; one with half a
capability is refused with a message naming what it lacks.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import cowarray as ca
from cowarray import _backends
from cowarray._backends.base import Backend, PageCowCapable, StreamOrdered
from cowarray._backends.numpy import NUMPY_BACKEND
from cowarray.testing import assert_equal_to_model, available_devices

REQUIRED = sorted(
    {name for name in vars(Backend) if not name.startswith("_")} | set(Backend.__annotations__)
)
OPTIONAL = {
    "streams": sorted(name for name in vars(StreamOrdered) if not name.startswith("_")),
    "page copy-on-write": sorted(name for name in vars(PageCowCapable) if not name.startswith("_")),
}


class PlainBackend:
    """The NumPy backend seen through the required members only."""

    def __init__(self, extra: tuple[str, ...] = ()) -> None:
        for name in (*REQUIRED, *extra):
            setattr(self, name, getattr(NUMPY_BACKEND, name))
        self.name = "plain"


def _register(
    monkeypatch: pytest.MonkeyPatch, backend: Any, present: tuple[int, ...] = (0,)
) -> Any:
    """A device kind ``plain`` served by ``backend`` for this test; its kind."""

    def missing(index: int) -> str | None:
        return None if index in present else f"there is no device 'plain:{index}'"

    kind = _backends.DeviceKind(
        "plain", "'plain:N'", missing, lambda index: backend, lambda: present
    )
    monkeypatch.setitem(_backends.KINDS, "plain", kind)
    monkeypatch.setattr(ca.Device, "_interned", dict(ca.Device._interned))
    return kind


@pytest.fixture
def plain(monkeypatch: pytest.MonkeyPatch) -> Iterator[ca.Device]:
    """A device whose backend has no optional capability."""
    _register(monkeypatch, PlainBackend())
    yield ca.Device("plain:0")


def test_the_contract_requires_no_optional_method() -> None:
    for names in OPTIONAL.values():
        assert set(names).isdisjoint(REQUIRED)
    assert "address_range" not in REQUIRED  # nothing asked for it


def test_the_numpy_backend_copies_pages_and_has_no_streams() -> None:
    assert _backends.PAGE_COW[NUMPY_BACKEND] is NUMPY_BACKEND
    assert _backends.STREAMS[NUMPY_BACKEND] is None


def test_the_cupy_backend_has_streams_and_no_page_copies(monkeypatch: pytest.MonkeyPatch) -> None:
    from _stand_in import load_backend_module

    backend = load_backend_module(monkeypatch).CupyBackend(0)
    assert _backends.STREAMS[backend] is backend
    assert _backends.PAGE_COW[backend] is None
    assert [name for name in OPTIONAL["page copy-on-write"] if hasattr(backend, name)] == []


def test_loading_a_backend_checks_its_capabilities_once(monkeypatch: pytest.MonkeyPatch) -> None:
    backend = PlainBackend()
    _register(monkeypatch, backend)
    ca.Device("plain:0")
    assert backend in _backends.STREAMS and backend in _backends.PAGE_COW
    assert _backends.STREAMS[backend] is None and _backends.PAGE_COW[backend] is None


def test_a_backend_without_capabilities_keeps_value_semantics(plain: ca.Device) -> None:
    model = np.arange(12.0).reshape(3, 4)
    x = ca.asarray(model, device=plain)
    y = ca.lazy_clone(x)  # a sharing record: no stream to note
    view = x[1:, ::2]
    y[0, 0] = -1.0  # a write to shared memory: a region copy
    view += 100.0
    assert_equal_to_model(x, model)
    expected_y = model.copy()
    expected_y[0, 0] = -1.0
    assert_equal_to_model(y, expected_y)
    expected_view = model[1:, ::2] + 100.0
    assert_equal_to_model(view, expected_view)
    del y, view
    x[2, 3] = 7.0  # the last holder takes the buffer over: nothing to tell page clones
    model = model.copy()
    model[2, 3] = 7.0
    assert_equal_to_model(x, model)
    assert x.device == plain


def test_a_backend_without_capabilities_imports_and_exports(plain: ca.Device) -> None:
    x = ca.asarray([1.0, 2.0, 3.0], device=plain)
    exported = np.asarray(x)
    exported[0] = 5.0  # NumPy export aliases x, as on cpu
    assert_equal_to_model(x, np.array([5.0, 2.0, 3.0]))
    imported = ca.from_dlpack(np.arange(3.0), device=plain)  # no stream to hand over
    assert imported.device == plain
    assert_equal_to_model(imported, np.arange(3.0))


def test_page_copy_on_write_on_leaves_a_backend_without_it_copying_regions(
    plain: ca.Device,
) -> None:
    before = ca.set_page_cow(True, threshold=0)
    try:
        x = ca.asarray(np.zeros(4096), device=plain)
        y = ca.lazy_clone(x)
        with ca.trace() as t:
            y[5] = 1.0
        assert t.bytes_copied == x.size * x.dtype.itemsize  # the whole view, eagerly
        assert float(x[5]) == 0.0 and float(y[5]) == 1.0
    finally:
        ca.set_page_cow(*before)


@pytest.mark.parametrize("capability", sorted(OPTIONAL))
def test_half_a_capability_is_refused_naming_what_it_lacks(
    monkeypatch: pytest.MonkeyPatch, capability: str
) -> None:
    has, *lacks = OPTIONAL[capability]
    backend = PlainBackend()
    setattr(backend, has, getattr(NUMPY_BACKEND, has, lambda *args: None))
    _register(monkeypatch, backend)
    with pytest.raises(TypeError, match=f"has {has} but not {', '.join(lacks)}"):
        ca.Device("plain:0")


def test_available_devices_reads_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COWARRAY_TEST_DEVICES", raising=False)
    before = [str(device) for device in available_devices()]
    _register(monkeypatch, PlainBackend(), present=(0, 1))
    assert [str(device) for device in available_devices()] == [*before, "plain:0"]
    monkeypatch.setenv("COWARRAY_TEST_DEVICES", "plain:0, cpu:1")
    assert [str(device) for device in available_devices()] == ["cpu:1", "plain:0"]


def test_a_kind_that_asks_for_every_index_is_tested_on_each(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COWARRAY_TEST_DEVICES", "plain:0,plain:1,plain:2")
    kind = _register(monkeypatch, PlainBackend(), present=(0, 1, 2))
    every = dataclasses.replace(kind, test_every_index=True)
    monkeypatch.setitem(_backends.KINDS, "plain", every)
    assert [str(device) for device in available_devices()] == ["plain:0", "plain:1", "plain:2"]
