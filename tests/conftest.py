"""Shared fixtures: every test that takes ``device`` runs on each available device."""

from __future__ import annotations

import pytest

from cowarray import _cow
from cowarray.testing import available_devices

DEVICES = available_devices()


@pytest.fixture(params=DEVICES, ids=[str(d) for d in DEVICES])
def device(request: pytest.FixtureRequest) -> object:
    """A device to run the test body on (cpu, the simulated cpu:1, cuda:0 if present)."""
    return request.param


@pytest.fixture
def copies() -> _cow._Counters:
    """The core's copy counters, reset for this test."""
    _cow.COUNTERS.reset()
    return _cow.COUNTERS
