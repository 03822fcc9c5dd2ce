"""benchmarks/gpu.py runs end to end (``--smoke``) on the stand-in ``cupy``.

It has never run on a GPU; this catches a broken name or call in it before a
GPU session spends its time on one. The timings it prints mean nothing here.
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import pytest

import cowarray as ca

GPU_BENCHMARK = Path(__file__).parents[2] / "benchmarks" / "gpu.py"


def test_gpu_benchmark_smoke_run_prints_every_table(
    gpu: ca.Device, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", [str(GPU_BENCHMARK), "--smoke"])
    runpy.run_path(str(GPU_BENCHMARK), run_name="__main__")
    printed = capsys.readouterr().out
    assert "on stand-in GPU, CuPy 14.2.0+stand-in" in printed
    for table in ("== lazy_clone", "== materialization bandwidth", "== small-op overhead"):
        assert table in printed
    for row in ("lazy_clone n=1,000", "materialize", "x + y", "x[5] = 2.0", "sum(x)"):
        assert row in printed
