"""Shared fixtures: every test that takes ``device`` runs on each available device."""

from __future__ import annotations

import os
import re
import types
from collections.abc import Iterator
from typing import Any

import pytest
from _patching import BackendPatch

import cowarray as ca
from cowarray import _backends
from cowarray._core import cow
from cowarray._devices import Device
from cowarray.testing import available_devices

DEVICES = available_devices()


@pytest.fixture(params=DEVICES, ids=[str(d) for d in DEVICES])
def device(request: pytest.FixtureRequest) -> object:
    """A device to run the test body on (cpu, the simulated cpu:1, cuda:0 if present)."""
    return request.param


# One device per backend: the op tests' results do not depend on which NumPy
# device computes them, so they skip the simulated cpu:1.
BACKEND_DEVICES = [device for device in DEVICES if str(device) != "cpu:1"]


@pytest.fixture(params=BACKEND_DEVICES, ids=[str(d) for d in BACKEND_DEVICES])
def backend_device(request: pytest.FixtureRequest) -> object:
    """A device of each backend: cpu, and cuda:0 where CuPy and a GPU are present."""
    return request.param


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--order``: run the collected tests in another order, so that a test
    that passes only after (or before) another fails somewhere (.ci/run runs
    the suite once reversed)."""
    parser.addoption(
        "--order",
        default="file",
        help="file (the default: the order of the files), reverse, or random:SEED",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Register the ``every_device`` marker; check ``--order``."""
    config.addinivalue_line(
        "markers",
        "every_device: the test picks its devices itself (among cowarray.testing's"
        " available_devices), so the stand-in GPU run keeps it",
    )
    _reorder(config, [])  # (a bad --order value is refused before collection)


def pytest_report_header(config: pytest.Config) -> str | None:
    """Say which order the tests run in, when it is not the files' (to rerun it)."""
    order = config.getoption("--order")
    return None if order == "file" else f"cowarray: tests run in --order={order}"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In the stand-in GPU run (see the root conftest.py), keep the cuda tests only:
    those parametrized with a cuda device, and those marked ``every_device``.
    Then put the tests in the ``--order`` asked for."""
    if os.environ.get("COWARRAY_TEST_STAND_IN_GPU") == "1":
        on_gpu = [item for item in items if _runs_on_cuda(item)]
        config.hook.pytest_deselected(items=[item for item in items if not _runs_on_cuda(item)])
        items[:] = on_gpu
    _reorder(config, items)


def _reorder(config: pytest.Config, items: list[pytest.Item]) -> None:
    order = config.getoption("--order")
    if order == "file":
        return
    if order == "reverse":
        items.reverse()
        return
    kind, _, seed = order.partition(":")
    if kind != "random" or not seed.isdigit():
        raise pytest.UsageError(
            f"--order={order!r}: use file, reverse or random:SEED (SEED an integer, "
            "printed in the header so that a failing order can be run again)"
        )
    import random

    random.Random(int(seed)).shuffle(items)


def _runs_on_cuda(item: pytest.Item) -> bool:
    if item.get_closest_marker("every_device") is not None:
        return True
    params = getattr(getattr(item, "callspec", None), "params", {})
    return any(isinstance(value, Device) and value.kind == "cuda" for value in params.values())


@pytest.fixture
def backend_patch() -> Iterator[BackendPatch]:
    """Replace a backend's attributes for this test, restored exactly after
    (every patch of a backend goes through this: see :class:`BackendPatch`)."""
    patch = BackendPatch()
    try:
        yield patch
    finally:
        patch.undo()


def _backend_attributes() -> list[tuple[object, dict[str, object]]]:
    from cowarray._backends.numpy import NUMPY_BACKEND

    return [(t, dict(vars(t))) for t in (NUMPY_BACKEND, type(NUMPY_BACKEND))]


_BACKEND_ATTRIBUTES = _backend_attributes()


@pytest.fixture(autouse=True)
def _backends_left_as_found() -> Iterator[None]:
    """A test that leaves a backend patched fails: the tests after it would
    run against the patch (or, shadowed, miss their own)."""
    yield
    for target, before in _BACKEND_ATTRIBUTES:
        now = dict(vars(target))
        changed = sorted(
            name for name in before.keys() | now.keys() if now.get(name) is not before.get(name)
        )
        if changed:
            for name in changed:  # (put back, so that only this test fails)
                if name in before:
                    setattr(target, name, before[name])
                else:
                    delattr(target, name)
            pytest.fail(
                f"this test left {target!r} changed ({', '.join(changed)}): patch backends "
                "with the backend_patch fixture (tests/conftest.py), which restores them"
            )


@pytest.fixture
def empty_block_pool() -> Iterator[None]:
    """The NumPy backend's pool of reused result blocks emptied, with room
    for 64 MiB of them (cowarray/_backends/_reuse.py); its budget comes back
    after the test."""
    before = ca.get_temporary_reuse()
    ca.set_temporary_reuse(0)  # (lets go of every kept block)
    ca.set_temporary_reuse(64 << 20)
    try:
        yield
    finally:
        ca.set_temporary_reuse(before)


@pytest.fixture
def copies() -> cow._Counters:
    """The core's copy counters, reset for this test."""
    cow.COUNTERS.reset()
    return cow.COUNTERS


# -- the CuPy backend without a GPU (tests/backends) ---------------------------


@pytest.fixture
def stand_in(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """The CuPy backend module, loaded against the stand-in ``cupy``."""
    # tests/backends/_stand_in.py, imported by the module that asks for this
    from _stand_in import load_backend_module

    module: types.ModuleType = load_backend_module(monkeypatch)
    return module


@pytest.fixture
def gpu(monkeypatch: pytest.MonkeyPatch, stand_in: types.ModuleType) -> Device:
    """A cuda:0 device served by the stand-in backend, not interned beyond the test."""
    original = _backends.backend_for

    def backend_for(device: Device) -> Any:
        return stand_in.cupy_backend(device.index) if device.kind == "cuda" else original(device)

    # Without the real cuda devices a GPU machine has interned already.
    interned = {key: device for key, device in Device._interned.items() if key[0] != "cuda"}
    monkeypatch.setattr(Device, "_interned", interned)
    monkeypatch.setattr(_backends, "backend_for", backend_for)
    return Device("cuda", 0)


# -- skip messages that say how to get what is missing --------------------------

#: How to get an optional dependency, by the name a test imports. The test
#: extra has everything but torch and CuPy; torch's CPU build comes from its
#: own index (.ci/run installs it), CuPy needs a GPU.
TEST_EXTRA = 'python -m pip install -e ".[test]"'
HOW_TO_GET = {
    "torch": (
        "torch is not in the test extra (from PyPI it is a CUDA build of about 2.7 GB);"
        " its CPU build: python -m pip install torch==2.13.0"
        " --index-url https://download.pytorch.org/whl/cpu"
    ),
    "cupy": 'a GPU and python -m pip install -e ".[cuda12]" (or ".[cuda13]")',
    "jax": 'cowarray.transforms needs JAX: python -m pip install -e ".[jax]"',
}
_MISSING = re.compile(r"could not import '([\w.]+)'|needs? (\w+)")


def how_to_get(reason: str) -> str:
    """``reason`` with how to install the module it says is missing, if it does not say."""
    found = _MISSING.search(reason)
    if found is None or "pip install" in reason:
        return reason
    top = (found.group(1) or found.group(2)).split(".")[0]
    hint = HOW_TO_GET.get(top, TEST_EXTRA if top in _test_extra_modules() else None)
    return f"{reason} ({hint})" if hint else reason


def _test_extra_modules() -> set[str]:
    """The import names of the test extra's distributions (scikit-learn is sklearn)."""
    import tomllib

    with open(
        os.path.join(os.path.dirname(os.path.dirname(__file__)), "pyproject.toml"), "rb"
    ) as f:
        extra = tomllib.load(f)["project"]["optional-dependencies"]["test"]
    names = {re.split(r"[<>=\[ ;]", spec, maxsplit=1)[0].lower() for spec in extra}
    renamed = {"scikit-learn": "sklearn", "array-api-compat": "array_api_compat"}
    return {renamed.get(n, n.replace("-", "_")) for n in names}


def _with_hint(report: pytest.CollectReport | pytest.TestReport) -> None:
    if report.skipped and isinstance(report.longrepr, tuple) and len(report.longrepr) == 3:
        path, line, reason = report.longrepr
        report.longrepr = (path, line, how_to_get(reason))


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Any:
    """A module skipped by ``importorskip`` says how to get the module."""
    report = yield
    _with_hint(report)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """So does a test skipped by ``importorskip`` in its body."""
    report = yield
    _with_hint(report)
    return report
