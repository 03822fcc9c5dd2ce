"""SciPy's optimizers with cowarray objectives, gradients and start points.

Each run is compared with the same run on the objective written with NumPy
from a NumPy start point: the optimizer must take the same steps (same
iterations and evaluations) to the same point, bit for bit, and hand back
what it hands back for NumPy (an ndarray ``x``).

SciPy calls the objective with NumPy arrays; a cowarray objective reads its
argument with ``ca.asarray(x)`` (a copy: the Array never aliases SciPy's
scratch memory) and may return an Array, a 0-d Array or a Python float.

Skipped when SciPy is not installed (it is in the ``test`` extra).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import cowarray as ca

optimize = pytest.importorskip(
    "scipy.optimize", reason='needs SciPy: pip install scipy (it is in the "test" extra)'
)

_START = np.asarray([-1.2, 1.0, 0.8, -0.5])
_TARGET = np.asarray([1.0, 2.0, -3.0, 0.5])


def _rosen_numpy(x: Any) -> Any:
    x = np.asarray(x)
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def _rosen_cowarray(x: Any) -> Any:
    x = ca.asarray(x)
    return ca.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def _rosen_gradient_numpy(x: Any) -> Any:
    x = np.asarray(x)
    g = np.zeros_like(x)
    g[1:] += 200.0 * (x[1:] - x[:-1] ** 2)
    g[:-1] += -400.0 * x[:-1] * (x[1:] - x[:-1] ** 2) - 2.0 * (1.0 - x[:-1])
    return g


def _rosen_gradient_cowarray(x: Any) -> Any:
    x = ca.asarray(x)
    inner = x[1:] - x[:-1] ** 2
    head = -400.0 * x[:-1] * inner - 2.0 * (1.0 - x[:-1])
    return ca.concat([head, ca.zeros(1)]) + ca.concat([ca.zeros(1), 200.0 * inner])


def _quadratic_numpy(x: Any) -> Any:
    return np.sum((np.asarray(x) - _TARGET) ** 2)


def _quadratic_cowarray(x: Any) -> Any:
    return ca.sum((ca.asarray(x) - ca.asarray(_TARGET)) ** 2)


def _quadratic_gradient_numpy(x: Any) -> Any:
    return 2.0 * (np.asarray(x) - _TARGET)


def _quadratic_gradient_cowarray(x: Any) -> Any:
    return 2.0 * (ca.asarray(x) - ca.asarray(_TARGET))


PROBLEMS = {
    "rosenbrock": (_rosen_numpy, _rosen_cowarray, _rosen_gradient_numpy, _rosen_gradient_cowarray),
    "quadratic": (
        _quadratic_numpy,
        _quadratic_cowarray,
        _quadratic_gradient_numpy,
        _quadratic_gradient_cowarray,
    ),
}

#: (objective, gradient, start) written with cowarray, by name; the rest NumPy's
VARIANTS = {
    "cowarray objective": ("cowarray", None, "numpy"),
    "cowarray objective and gradient": ("cowarray", "cowarray", "numpy"),
    "Array start point": ("numpy", "numpy", "cowarray"),
    "all cowarray": ("cowarray", "cowarray", "cowarray"),
}

#: SciPy turns what the user's functions return (and ``least_squares``'s start
#: point) into NumPy arrays with ``np.atleast_1d`` / ``np.atleast_2d``. While
#: those return an Array for an Array (NEP 18), an Array gradient reaches
#: compiled code (L-BFGS-B, SLSQP: a TypeError), NumPy-only habits (trust-constr
#: takes ``g.T`` of the 1-D gradient) or comes back in ``res.x`` as an Array
#: (BFGS, CG, least_squares: NumPy's values, another type). The cases that
#: need the conversion are expected to fail until it is made, then to pass.
_ATLEAST_CONVERTS = type(np.atleast_1d(ca.asarray([1.0]))) is np.ndarray
_GRADIENT_CONVERTED = {"BFGS", "CG", "L-BFGS-B", "SLSQP", "trust-constr"}
_NEEDS_CONVERSION = pytest.mark.xfail(
    not _ATLEAST_CONVERTS,
    strict=True,
    reason="np.atleast_1d/2d of an Array gives an Array; SciPy needs an ndarray there "
    "(docs/compatibility.md, SciPy optimizers)",
)


def _minimize(method: str, problem: str, variant: str) -> tuple[Any, Any]:
    numpy_f, cowarray_f, numpy_g, cowarray_g = PROBLEMS[problem]
    f_kind, g_kind, start_kind = VARIANTS[variant]
    f = cowarray_f if f_kind == "cowarray" else numpy_f
    g = None if g_kind is None else (cowarray_g if g_kind == "cowarray" else numpy_g)
    start = ca.asarray(_START) if start_kind == "cowarray" else _START.copy()
    options = {"maxiter": 200}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. trust-constr's "delta_grad == 0.0"
        expected = optimize.minimize(
            numpy_f,
            _START.copy(),
            jac=None if g is None else numpy_g,
            method=method,
            options=options,
        )
        got = optimize.minimize(f, start, jac=g, method=method, options=options)
    return expected, got


def _assert_same_run(expected: Any, got: Any) -> None:
    assert type(got.x) is type(expected.x) is np.ndarray
    np.testing.assert_array_equal(got.x, expected.x)
    assert float(got.fun) == float(expected.fun)
    for key in ("nit", "nfev", "njev", "success", "status"):
        if key in expected:
            assert got[key] == expected[key], key


METHODS = ["BFGS", "L-BFGS-B", "Nelder-Mead", "trust-constr", "CG", "Powell", "TNC", "SLSQP"]


def _cases() -> list[Any]:
    cases = []
    for method in METHODS:
        for problem in PROBLEMS:
            for variant, (_, g_kind, _) in VARIANTS.items():
                needs = method in _GRADIENT_CONVERTED and g_kind == "cowarray"
                marks = [_NEEDS_CONVERSION] if needs else []
                cases.append(pytest.param(method, problem, variant, marks=marks))
    return cases


@pytest.mark.parametrize(("method", "problem", "variant"), _cases())
def test_minimize_takes_numpys_steps(method: str, problem: str, variant: str) -> None:
    expected, got = _minimize(method, problem, variant)
    _assert_same_run(expected, got)


def test_the_start_point_array_is_left_as_it_was() -> None:
    start = ca.asarray(_START)
    optimize.minimize(_rosen_cowarray, start, jac=None, method="BFGS")
    np.testing.assert_array_equal(np.asarray(start), _START)


def _residuals_numpy(x: Any) -> Any:
    x = np.asarray(x)
    return np.concatenate([x - _TARGET, [10.0 * (x[0] * x[1] - 2.0)]])


def _residuals_cowarray(x: Any) -> Any:
    x = ca.asarray(x)
    return ca.concat([x - ca.asarray(_TARGET), ca.reshape(10.0 * (x[0] * x[1] - 2.0), (1,))])


def _jacobian_numpy(x: Any) -> Any:
    x = np.asarray(x)
    jacobian = np.vstack([np.eye(4), np.zeros((1, 4))])
    jacobian[4, 0], jacobian[4, 1] = 10.0 * x[1], 10.0 * x[0]
    return jacobian


def _jacobian_cowarray(x: Any) -> Any:
    x = ca.asarray(x)
    last = ca.concat([10.0 * x[1:2], 10.0 * x[0:1], ca.zeros(2)])
    return ca.concat([ca.eye(4), ca.reshape(last, (1, 4))])


def _least_squares_cases() -> list[Any]:
    cases = []
    for start in ("numpy", "cowarray"):
        for jacobian in ("2-point", "cowarray"):
            for method in ("trf", "dogbox", "lm"):
                # (lm hands an Array start point to MINPACK through np.asarray)
                needs = jacobian == "cowarray" or (start == "cowarray" and method != "lm")
                marks = [_NEEDS_CONVERSION] if needs else []
                cases.append(pytest.param(start, jacobian, method, marks=marks))
    return cases


@pytest.mark.parametrize(("start", "jacobian", "method"), _least_squares_cases())
def test_least_squares_takes_numpys_steps(start: str, jacobian: str, method: str) -> None:
    numpy_jacobian = "2-point" if jacobian == "2-point" else _jacobian_numpy
    expected = optimize.least_squares(
        _residuals_numpy, _START.copy(), jac=numpy_jacobian, method=method
    )
    got = optimize.least_squares(
        _residuals_cowarray,
        ca.asarray(_START) if start == "cowarray" else _START.copy(),
        jac="2-point" if jacobian == "2-point" else _jacobian_cowarray,
        method=method,
    )
    for key in ("x", "fun", "jac", "grad"):
        assert type(got[key]) is type(expected[key]), key
        np.testing.assert_array_equal(got[key], expected[key])
    assert (got.cost, got.nfev, got.njev, got.status) == (
        expected.cost,
        expected.nfev,
        expected.njev,
        expected.status,
    )


def test_a_cowarray_function_given_scipys_ndarray_says_to_convert_it() -> None:
    # SciPy passes NumPy arrays to the objective; ca.* functions take Arrays
    def objective(x: Any) -> Any:
        return ca.sum((x - 3.0) ** 2)

    with pytest.raises(TypeError, match=r"ca\.asarray"):
        optimize.minimize(objective, _START.copy(), method="BFGS")


def test_objectives_may_return_python_floats_or_0d_arrays() -> None:
    def as_float(x: Any) -> float:
        return float(_quadratic_cowarray(x))

    expected = optimize.minimize(_quadratic_numpy, _START.copy(), method="BFGS")
    for objective in (as_float, _quadratic_cowarray):
        _assert_same_run(expected, optimize.minimize(objective, _START.copy(), method="BFGS"))
