"""Fixtures for the CuPy backend tests that run without a GPU, on the stand-in ``cupy``."""

from __future__ import annotations

import types
from typing import Any

import pytest
from _stand_in import load_backend_module

import cowarray as ca
from cowarray import _backends


@pytest.fixture
def stand_in(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """The CuPy backend module, loaded against the stand-in ``cupy``."""
    return load_backend_module(monkeypatch)


@pytest.fixture
def gpu(monkeypatch: pytest.MonkeyPatch, stand_in: types.ModuleType) -> ca.Device:
    """A cuda:0 device served by the stand-in backend, not interned beyond the test."""
    backend = stand_in.CupyBackend(0)
    original = _backends.backend_for

    def backend_for(device: ca.Device) -> Any:
        return backend if device.kind == "cuda" else original(device)

    # Without the real cuda devices a GPU machine has interned already.
    interned = {key: device for key, device in ca.Device._interned.items() if key[0] != "cuda"}
    monkeypatch.setattr(ca.Device, "_interned", interned)
    monkeypatch.setattr(_backends, "backend_for", backend_for)
    return ca.Device("cuda", 0)
