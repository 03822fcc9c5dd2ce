"""Fixtures for the CuPy backend's tests that run without a GPU (see _stand_in.py)."""

from __future__ import annotations

import types
from typing import Any

import pytest
from _stand_in import load_backend_module


@pytest.fixture
def stand_in(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """The CuPy backend module, loaded against the stand-in ``cupy``."""
    return load_backend_module(monkeypatch)


@pytest.fixture
def backend(stand_in: types.ModuleType) -> Any:
    """The stand-in backend of GPU 0."""
    return stand_in.CupyBackend(0)
