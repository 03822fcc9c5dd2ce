"""CuPy is optional: cowarray imports and works without it, and says how to get it."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

import cowarray as ca
from cowarray import _backends

ROOT = Path(__file__).parents[2]


def test_import_and_cpu_work_never_import_cupy_or_the_cupy_backend() -> None:
    script = (
        "import sys, cowarray as ca\n"
        "x = ca.arange(6.0)\n"
        "y = ca.lazy_clone(x)\n"
        "y[0] = 1.0\n"
        "ca.asarray([1, 2], device='cpu:1').to_device('cpu')\n"
        "print(sorted(m for m in sys.modules if m == 'cupy' or m.startswith(('cupy.', "
        "'cupyx', 'cowarray._backends.cupy'))))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


def test_a_gpu_device_without_cupy_names_the_extra_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real_find_spec = importlib.util.find_spec

    def without_cupy(name: str, package: str | None = None) -> object:
        return None if name == "cupy" else real_find_spec(name, package)

    monkeypatch.setattr(importlib.util, "find_spec", without_cupy)
    # An index no test interns, so the device is looked up afresh.
    hint = r'pip install "cupy-cuda12x>=14".*pip install -e "\.\[cuda12\]"'
    with pytest.raises(ModuleNotFoundError, match=hint):
        ca.Device("cuda", 63)
    assert ("cuda", 63) not in ca.Device._interned


def test_the_backend_lookup_asks_for_cupy_only_for_cuda_devices(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[str] = []
    real_find_spec = importlib.util.find_spec

    def recording(name: str, package: str | None = None) -> object:
        asked.append(name)
        return real_find_spec(name, package)

    monkeypatch.setattr(importlib.util, "find_spec", recording)
    _backends.backend_for(ca.Device("cpu:1"))
    assert asked == []
