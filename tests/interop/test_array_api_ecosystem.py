"""Smoke tests: libraries written against the Array API standard accept cowarray.

array-api-compat must recognise cowarray as its own namespace, array-api-extra
functions must run on it, and SciPy (``SCIPY_ARRAY_API=1``) and scikit-learn
(``array_api_dispatch=True``) must take cowarray arrays in and give cowarray
arrays back, with the values NumPy gives. SciPy reads ``SCIPY_ARRAY_API`` when
it is first imported, so those checks run in a fresh interpreter. A package
that is not installed skips its tests with a message that says so.

A check whose library calls a standard function that cowarray lacks is
skipped with the missing name in the reason (``pytest -ra`` lists it).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import cowarray as ca
from cowarray.testing import to_numpy

ROOT = Path(__file__).resolve().parents[2]
DATA = [[1.0, 2.0, 4.0, 0.5], [3.0, 5.0, 0.5, 1.0], [0.0, 1.0, 2.0, 8.0], [2.0, 2.5, 1.0, 3.0]]
_MISSING = re.compile(r"module 'cowarray(?:\.\w+)?' has no attribute '(\w+)'")


def _skip_if_namespace_incomplete(error: str) -> None:
    match = _MISSING.search(error)
    if match:
        pytest.skip(f"the library calls cowarray.{match.group(1)}, which is not implemented yet")


# -- array-api-compat -------------------------------------------------------------


def test_array_api_compat_finds_cowarray_as_the_namespace() -> None:
    compat = pytest.importorskip("array_api_compat")
    x = ca.asarray(DATA)
    y = ca.ones(3, dtype=ca.int32, device="cpu:1")
    assert compat.array_namespace(x) is ca
    assert compat.array_namespace(x, y[0]) is ca
    assert compat.array_namespace(x, api_version="2025.12") is ca
    assert compat.is_array_api_obj(x)
    assert compat.device(y) == ca.Device("cpu:1")
    assert compat.size(x) == 16


# -- array-api-extra --------------------------------------------------------------


def _extra_cases() -> dict[str, tuple[Callable[[Any, Any], Any], Callable[[Any], Any]]]:
    """name -> (call with (xpx, cowarray array), the same with NumPy)."""
    return {
        "atleast_nd": (
            lambda xpx, x: xpx.atleast_nd(x[0, 0], ndim=3, xp=ca),
            lambda m: np.asarray(m[0, 0]).reshape(1, 1, 1),
        ),
        "cov": (lambda xpx, x: xpx.cov(x, xp=ca), np.cov),
        "kron": (
            lambda xpx, x: xpx.kron(x[:2, :2], x[:2, :2], xp=ca),
            lambda m: np.kron(m[:2, :2], m[:2, :2]),
        ),
        "pad": (lambda xpx, x: xpx.pad(x, 1, xp=ca), lambda m: np.pad(m, 1)),
        "create_diagonal": (
            lambda xpx, x: xpx.create_diagonal(x[0], xp=ca),
            lambda m: np.diag(m[0]),
        ),
        "one_hot": (
            lambda xpx, x: xpx.one_hot(ca.astype(x[0], ca.int64), 9, xp=ca),
            lambda m: np.eye(9)[m[0].astype(np.int64)],
        ),
        "sinc": (lambda xpx, x: xpx.sinc(x, xp=ca), np.sinc),
        "isclose": (
            lambda xpx, x: xpx.isclose(x, x + 1e-12, xp=ca),
            lambda m: np.isclose(m, m + 1e-12),
        ),
        "nunique": (lambda xpx, x: xpx.nunique(x, xp=ca), lambda m: np.asarray(np.unique(m).size)),
        "setdiff1d": (
            lambda xpx, x: xpx.setdiff1d(x[0], x[1], xp=ca),
            lambda m: np.setdiff1d(m[0], m[1]),
        ),
    }


@pytest.mark.parametrize("name", list(_extra_cases()))
def test_array_api_extra_function_runs_on_cowarray(name: str) -> None:
    xpx = pytest.importorskip("array_api_extra")
    call, model = _extra_cases()[name]
    x = ca.asarray(DATA)
    try:
        result = call(xpx, x)
    except AttributeError as error:
        _skip_if_namespace_incomplete(str(error))
        raise
    assert type(result) is ca.Array
    np.testing.assert_allclose(to_numpy(result), model(np.asarray(DATA)), rtol=1e-12)
    np.testing.assert_array_equal(to_numpy(x), DATA)


def test_array_api_extra_at_with_copy_leaves_the_input_unchanged() -> None:
    xpx = pytest.importorskip("array_api_extra")
    x = ca.asarray(DATA)
    updated = xpx.at(x)[0, 0].set(9.0, copy=True)
    assert type(updated) is ca.Array
    assert float(updated[0, 0]) == 9.0
    np.testing.assert_array_equal(to_numpy(x), DATA)
    added = xpx.at(x, (slice(None), 1)).add(1.0, copy=True)
    np.testing.assert_array_equal(to_numpy(added)[:, 1], np.asarray(DATA)[:, 1] + 1.0)
    np.testing.assert_array_equal(to_numpy(x), DATA)


# -- SciPy and scikit-learn, in a fresh interpreter with SCIPY_ARRAY_API=1 ---------

_SCRIPT = r"""
import json, sys
import cowarray as ca

DATA = json.loads(sys.argv[1])
results = {}

def record(name, make):
    x = ca.asarray(DATA)
    try:
        out = make(x)
    except Exception as error:
        results[name] = {"error": f"{type(error).__name__}: {error}"}
        return
    outs = out if isinstance(out, tuple) else (out,)
    results[name] = {
        "types": [type(o).__name__ + (":cowarray" if type(o) is ca.Array else "") for o in outs],
        "values": [o.__array__(copy=True).tolist() if type(o) is ca.Array else None for o in outs],
        "input_unchanged": x.__array__(copy=True).tolist() == DATA,
    }

try:
    import scipy.special, scipy.stats
except ImportError:
    results["scipy"] = {"missing": True}
else:
    record("logsumexp", lambda x: scipy.special.logsumexp(x))
    record("logsumexp axis=1", lambda x: scipy.special.logsumexp(x, axis=1))
    record("zscore", lambda x: scipy.stats.zscore(x, axis=0))
    record("zscore ddof=1", lambda x: scipy.stats.zscore(x, axis=1, ddof=1))

try:
    import sklearn
    from sklearn.decomposition import PCA
    from sklearn.preprocessing import StandardScaler
except ImportError:
    results["sklearn"] = {"missing": True}
else:
    sklearn.set_config(array_api_dispatch=True)

    def scaler(x):
        model = StandardScaler().fit(x)
        return model.transform(x), model.mean_, model.scale_

    def pca(x):
        model = PCA(n_components=2, svd_solver="full").fit(x)
        return model.transform(x), model.explained_variance_, model.components_

    record("StandardScaler", scaler)
    record("PCA", pca)

print(json.dumps(results))
"""


@pytest.fixture(scope="module")
def ecosystem() -> dict[str, Any]:
    """Run every SciPy / scikit-learn check once, in a fresh interpreter."""
    env = dict(os.environ, SCIPY_ARRAY_API="1")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    completed = subprocess.run(
        [sys.executable, "-c", _SCRIPT, json.dumps(DATA)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    results: dict[str, Any] = json.loads(completed.stdout.strip().splitlines()[-1])
    return results


def _check(ecosystem: dict[str, Any], package: str, name: str) -> dict[str, Any]:
    if ecosystem.get(package, {}).get("missing"):
        pytest.skip(f"{package} is not installed")
    outcome: dict[str, Any] = ecosystem[name]
    if "error" in outcome:
        _skip_if_namespace_incomplete(outcome["error"])
        pytest.fail(f"{name} on cowarray arrays raised {outcome['error']}")
    assert all(kind.endswith(":cowarray") for kind in outcome["types"]), outcome["types"]
    assert outcome["input_unchanged"]
    return outcome


def _numpy_scipy() -> tuple[Any, Any]:
    special = pytest.importorskip("scipy.special")
    stats = pytest.importorskip("scipy.stats")
    return special, stats


def test_scipy_logsumexp_takes_and_returns_cowarray(ecosystem: dict[str, Any]) -> None:
    outcome = _check(ecosystem, "scipy", "logsumexp")
    special, _ = _numpy_scipy()
    np.testing.assert_allclose(outcome["values"][0], special.logsumexp(np.asarray(DATA)))
    along = _check(ecosystem, "scipy", "logsumexp axis=1")
    np.testing.assert_allclose(along["values"][0], special.logsumexp(np.asarray(DATA), axis=1))


def test_scipy_zscore_takes_and_returns_cowarray(ecosystem: dict[str, Any]) -> None:
    outcome = _check(ecosystem, "scipy", "zscore")
    _, stats = _numpy_scipy()
    np.testing.assert_allclose(outcome["values"][0], stats.zscore(np.asarray(DATA), axis=0))
    ddof = _check(ecosystem, "scipy", "zscore ddof=1")
    np.testing.assert_allclose(ddof["values"][0], stats.zscore(np.asarray(DATA), axis=1, ddof=1))


def test_sklearn_standard_scaler_takes_and_returns_cowarray(ecosystem: dict[str, Any]) -> None:
    outcome = _check(ecosystem, "sklearn", "StandardScaler")
    data = np.asarray(DATA)
    mean, scale = data.mean(axis=0), data.std(axis=0)
    transformed, fitted_mean, fitted_scale = outcome["values"]
    np.testing.assert_allclose(transformed, (data - mean) / scale, rtol=1e-12)
    np.testing.assert_allclose(fitted_mean, mean, rtol=1e-12)
    np.testing.assert_allclose(fitted_scale, scale, rtol=1e-12)


def test_sklearn_pca_full_svd_takes_and_returns_cowarray(ecosystem: dict[str, Any]) -> None:
    outcome = _check(ecosystem, "sklearn", "PCA")
    data = np.asarray(DATA)
    centred = data - data.mean(axis=0)
    _, s, vh = np.linalg.svd(centred, full_matrices=False)
    transformed, variance, components = (np.asarray(v) for v in outcome["values"])
    np.testing.assert_allclose(variance, s[:2] ** 2 / (len(data) - 1), rtol=1e-10)
    # each component is defined up to its sign
    np.testing.assert_allclose(np.abs(components), np.abs(vh[:2]), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.abs(transformed), np.abs(centred @ vh[:2].T), atol=1e-10)
