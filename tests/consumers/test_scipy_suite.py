"""SciPy's own array-API tests, on cowarray: what passes on array_api_strict must pass here.

A curated, fast subset of the installed SciPy's tests that take the ``xp``
fixture (see ``SUBSET``) is run in one ``pytest`` subprocess with the
``tools/consumers/scipy_backends.py`` plugin, over array_api_strict (the
reference implementation of the standard) and cowarray.  The test fails if an
instance passes on array_api_strict and not on cowarray, and lists them.

Skipped when SciPy or array-api-strict is not installed.  The full comparison,
over every subpackage, is ``tools/consumers/run_scipy.py``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

if (
    importlib.util.find_spec("scipy") is None
    or importlib.util.find_spec("array_api_strict") is None
):
    pytest.skip("needs scipy and array-api-strict", allow_module_level=True)

CONSUMERS = Path(__file__).resolve().parents[2] / "tools" / "consumers"
sys.path.insert(0, str(CONSUMERS))

import compatibility  # noqa: E402 - from tools/consumers, put on sys.path above
import run_scipy  # noqa: E402

#: test functions or classes under the installed ``scipy`` package: a few hundred
#: instances per backend touching each subpackage, and the cowarray behaviours
#: SciPy leans on (writes through views, NumPy export to compiled code, scalar
#: promotion, index arrays, ...).  Tests that special-case array_api_strict in
#: their own body (e.g. special's ``TestLogSumExp::test_dtypes_ab``, which asks
#: any other backend for int/float promotion) are left out: their strict and
#: non-strict instances do not test the same thing.
SUBSET = (
    "special/tests/test_logsumexp.py::TestLogSumExp::test_logsumexp",
    "special/tests/test_logsumexp.py::TestLogSumExp::test_logsumexp_b",
    "special/tests/test_logsumexp.py::TestLogSumExp::test_logsumexp_sign",
    "special/tests/test_logsumexp.py::TestLogSumExp::test_no_writeback",
    "special/tests/test_logsumexp.py::TestLogSumExp::test_dtypes_a",
    "special/tests/test_logsumexp.py::TestLogSumExp::test_device",
    "special/tests/test_logsumexp.py::TestSoftmax",
    "special/tests/test_logsumexp.py::TestLogSoftmax",
    "stats/tests/test_hypotests.py::TestCvm",
    "stats/tests/test_correlation.py::TestSpearmanRho",
    "stats/tests/test_variation.py",
    "stats/tests/test_rank.py::TestRankData",
    "signal/tests/test_signaltools.py::TestOAConvolve::test_1d_noaxes",
    # (TestFiltFilt::test_sine calls np.abs on a cowarray array: NumPy's ufuncs
    # refuse them until NEP 13 dispatch, issue 13; see docs/compatibility.md)
    "signal/tests/test_signaltools.py::TestConvolve",
    "signal/tests/test_windows.py",
    "ndimage/tests/test_fourier.py",
    "ndimage/tests/test_measurements.py::test_center_of_mass01",
    "ndimage/tests/test_measurements.py::TestWatershedIft",
    "fft/tests/test_helper.py",
    "fft/tests/test_basic.py",
    "cluster/tests/test_vq.py",
    "integrate/tests/test_quadrature.py::TestTrapezoid",
    "integrate/tests/test_quadrature.py::TestCumulative_trapezoid",
    "integrate/tests/test_tanhsinh.py::TestNSum",
    "interpolate/tests/test_rgi.py",
    "_lib/tests/test__util.py",
)


def test_scipy_tests_passing_on_strict_pass_on_cowarray(tmp_path: Path) -> None:
    """Every curated instance that passes on array_api_strict passes on cowarray, but
    those docs/compatibility.md lists as relying on writes through views, which
    must fail loudly (a ViewWriteWarning)."""
    root = run_scipy.scipy_dir()
    run = run_scipy.run_subpackage(
        "subset",
        [str(root / target) for target in SUBSET],
        backends=[run_scipy.REFERENCE, run_scipy.CANDIDATE],
        out_dir=tmp_path,
        keyword=None,
        extra=[],
        timeout=120,
        use_nice=False,
    )
    records = run_scipy.load(run.results)
    log_tail = run.log.read_text(encoding="utf-8", errors="replace")[-3000:]
    assert run.returncode in (0, 1), f"pytest exited {run.returncode}:\n{log_tail}"
    backends = {r["backend"] for r in records}
    assert backends == {run_scipy.REFERENCE, run_scipy.CANDIDATE}, log_tail

    ref = {
        r["key"]
        for r in records
        if r["backend"] == run_scipy.REFERENCE and r["outcome"] == "passed"
    }
    cand = {r["key"]: r for r in records if r["backend"] == run_scipy.CANDIDATE}
    assert len(ref) >= 100, f"only {len(ref)} instances passed on array_api_strict:\n{log_tail}"
    explained = {
        key
        for key, row in cand.items()
        if compatibility.relies_on_view_writes(row["nodeid"], bool(row.get("view_write_warning")))
    }
    broken = sorted(
        k for k in ref if k not in explained and (k not in cand or cand[k]["outcome"] != "passed")
    )
    lines = [
        f"{key}: {cand[key]['outcome'] if key in cand else 'not run'} "
        f"{cand[key]['error'][:160] if key in cand else ''}"
        for key in broken
    ]
    assert not broken, (
        f"{len(broken)} of {len(ref)} SciPy test instances pass on array_api_strict "
        "but not on cowarray:\n" + "\n".join(lines)
    )
