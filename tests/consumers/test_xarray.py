"""xarray on cowarray data gives NumPy-backed xarray's answers.

Each workflow step runs on a DataArray (or Dataset) holding a NumPy array and
on one holding the same values as a cowarray Array; the results must agree
exactly: values (NaNs where NumPy has them), dtype, dims and coordinates, and
the cowarray-backed result must still hold a cowarray Array. The input Array
must be unchanged afterwards. ``.plot`` is compared pixel by pixel (Agg).

Skipped when xarray (which brings pandas) is not installed: it is in the
``test`` extra (``pip install -e ".[test]"``, or ``pip install xarray``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import cowarray as ca

xr = pytest.importorskip(
    "xarray", reason='needs xarray: pip install xarray (it is in the "test" extra)'
)
pd = pytest.importorskip("pandas", reason="needs pandas, which xarray installs")

_RNG = np.random.default_rng(2026)
_VALUES = _RNG.standard_normal((24, 3))
_VALUES[3, 1] = np.nan
_VALUES[10, 0] = np.nan
_TIME = pd.date_range("2026-01-01", periods=24, freq="6h")
_WEIGHTS = np.asarray([1.0, 2.0, 0.5])


def _data_array(wrap: Callable[[Any], Any]) -> Any:
    return xr.DataArray(
        wrap(_VALUES.copy()),
        dims=("time", "x"),
        coords={"time": _TIME, "x": [10, 20, 30]},
        name="v",
    )


def _assert_same(expected: Any, got: Any) -> None:
    """Same values, dtype, dims and coords, and ``got`` still holds a cowarray Array."""
    assert type(got) is type(expected)
    variables = (
        [(expected, got)]
        if isinstance(expected, xr.DataArray)
        else [(expected[k], got[k]) for k in expected.data_vars]
    )
    for want, have in variables:
        assert type(have.data) is ca.Array, f"{have.name}: {type(have.data).__name__}"
        assert have.dims == want.dims
        assert have.dtype == want.dtype
        np.testing.assert_array_equal(np.asarray(have.data), want.values, strict=True)
    xr.testing.assert_identical(_as_numpy(got), expected)  # coords, names, attrs too


def _as_numpy(obj: Any) -> Any:
    if isinstance(obj, xr.DataArray):
        return obj.copy(data=np.asarray(obj.data))
    return obj.map(lambda v: v.copy(data=np.asarray(v.data)))


STEPS: dict[str, Callable[[Any], Any]] = {
    "rolling mean": lambda d: d.rolling(time=3).mean(),
    "rolling sum, centred": lambda d: d.rolling(time=4, center=True).sum(),
    "rolling mean, min_periods": lambda d: d.rolling(time=3, min_periods=1).mean(),
    "rolling max over x": lambda d: d.rolling(x=2).max(),
    "rolling construct": lambda d: d.rolling(time=3).construct("window"),
    "where without other": lambda d: d.where(d > 0),
    "where with other": lambda d: d.where(d > 0, -1.0),
    "where with a DataArray other": lambda d: d.where(d > 0, d * 10),
    "xr.where": lambda d: xr.where(d > 0, d, 0.0),
    "fillna scalar": lambda d: d.fillna(0.0),
    "fillna DataArray": lambda d: d.fillna(d.mean("time")),
    "quantile scalar": lambda d: d.quantile(0.3, dim="time"),
    "quantile list": lambda d: d.quantile([0.1, 0.5, 0.9], dim="time"),
    "quantile nearest, no skipna": lambda d: d.quantile(
        0.5, dim="x", method="nearest", skipna=False
    ),
    "weighted mean": lambda d: d.weighted(xr.DataArray(_WEIGHTS, dims="x")).mean("x"),
    "weighted sum": lambda d: d.weighted(xr.DataArray(_WEIGHTS, dims="x")).sum("x"),
    "weighted mean, Array weights": lambda d: d.weighted(
        xr.DataArray(ca.asarray(_WEIGHTS), dims="x")
    ).mean("time"),
    "weighted sum, bool weights": lambda d: d.weighted(
        xr.DataArray(np.asarray([True, False, True]), dims="x")
    ).sum("x"),
    "groupby mean": lambda d: d.groupby("time.day").mean(),
    "groupby sum": lambda d: d.groupby("time.day").sum(),
    "groupby max": lambda d: d.groupby("time.day").max(),
    "groupby std": lambda d: d.groupby("time.day").std(),
    "resample mean": lambda d: d.resample(time="1D").mean(),
    "resample sum": lambda d: d.resample(time="12h").sum(),
    "resample max": lambda d: d.resample(time="1D").max(),
    "count": lambda d: d.count("time"),
    "cumsum": lambda d: d.cumsum("time"),
    "diff": lambda d: d.diff("time"),
    "shift": lambda d: d.shift(time=2),
}


@pytest.mark.parametrize("step", list(STEPS))
def test_a_dataarray_step_gives_numpy_backed_xarrays_answer(step: str) -> None:
    expected = STEPS[step](_data_array(np.asarray))
    source = _data_array(ca.asarray)
    got = STEPS[step](source)
    _assert_same(expected, got)
    np.testing.assert_array_equal(np.asarray(source.data), _VALUES)  # the input kept its values


@pytest.mark.parametrize(
    "step",
    [
        "rolling mean",
        "where without other",
        "fillna scalar",
        "quantile list",
        "weighted mean",
        "groupby mean",
        "resample sum",
    ],
)
def test_a_dataset_step_gives_numpy_backed_xarrays_answer(step: str) -> None:
    def dataset(wrap: Callable[[Any], Any]) -> Any:
        d = _data_array(wrap)
        return xr.Dataset({"v": d, "w": d * 2.0 + 1.0})

    _assert_same(STEPS[step](dataset(np.asarray)), STEPS[step](dataset(ca.asarray)))


def test_weighted_quantile_gives_numpys_values_in_a_numpy_array() -> None:
    # xarray computes it with np.vectorize, which makes NumPy arrays of any input
    def quantile(d: Any) -> Any:
        return d.weighted(xr.DataArray(_WEIGHTS, dims="x")).quantile([0.25, 0.5], dim="x")

    expected = quantile(_data_array(np.asarray))
    got = quantile(_data_array(ca.asarray))
    assert type(got.data) is np.ndarray
    xr.testing.assert_identical(got, expected)


def test_rolling_windows_are_values_of_the_data() -> None:
    source = _data_array(ca.asarray)
    windows = source.rolling(time=3).construct("window")  # windows[t, x, k] is t - 2 + k
    windows.data[5, 0, 2] = 1000.0
    assert float(windows.data[5, 0, 2]) == 1000.0
    assert float(windows.data[6, 0, 1]) == _VALUES[5, 0]  # the same element, another window
    np.testing.assert_array_equal(np.asarray(source.data), _VALUES)
    source.data[6, 0] = -1000.0
    assert float(windows.data[7, 0, 1]) == _VALUES[6, 0]


_PLOTS: dict[str, Callable[[Any, Any], Any]] = {
    "line": lambda d, ax: d.plot.line(x="time", ax=ax),
    "1-D": lambda d, ax: d.isel(x=0).plot(ax=ax),
    "pcolormesh": lambda d, ax: d.plot(ax=ax),
    "contourf": lambda d, ax: d.plot.contourf(ax=ax),
    "imshow": lambda d, ax: d.plot.imshow(ax=ax),
    "hist": lambda d, ax: d.plot.hist(ax=ax),
    "rolling mean line": lambda d, ax: d.rolling(time=3).mean().plot.line(x="time", ax=ax),
}


@pytest.mark.parametrize("kind", list(_PLOTS))
def test_plot_draws_the_same_pixels(kind: str) -> None:
    matplotlib = pytest.importorskip(
        "matplotlib", reason='needs matplotlib: pip install matplotlib (in the "test" extra)'
    )
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def pixels(wrap: Callable[[Any], Any]) -> Any:
        figure = plt.figure(figsize=(3, 2), dpi=60)
        try:
            _PLOTS[kind](_data_array(wrap), figure.add_subplot())
            figure.canvas.draw()
            return np.asarray(figure.canvas.buffer_rgba()).copy()
        finally:
            plt.close(figure)

    np.testing.assert_array_equal(pixels(ca.asarray), pixels(np.asarray))
