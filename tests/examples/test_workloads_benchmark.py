"""benchmarks/workloads.py runs end to end in ``--quick`` mode, every program
giving NumPy's numbers on every library it runs on.

The benchmark checks each library's result against NumPy's before timing and
prints ``FAILED`` for one that raises or disagrees; here such a line fails
the test. The timings it prints mean nothing here (nothing is timed).
"""

from __future__ import annotations

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCHMARK = os.path.join(ROOT, "benchmarks", "workloads.py")


def test_quick_run_prints_a_row_per_workload_and_no_failure() -> None:
    result = subprocess.run(
        [sys.executable, BENCHMARK, "--quick"],
        env=dict(os.environ, PYTHONPATH=ROOT),
        capture_output=True,
        text=True,
        timeout=180,  # about 10 s on the 2-core machine; generous for a busy one
        check=False,
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "FAILED" not in out, out
    names = [
        "stencil 1-D",
        "heat 2-D",
        "Black-Scholes",
        "k-means",
        "image filter",
        "Monte Carlo scatter",
        "defensive copies",
        "torch training data",
    ]
    for name in names:
        assert f"\n{name} " in out, (name, out)
    assert "s in all" in out
