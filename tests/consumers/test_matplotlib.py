"""matplotlib draws cowarray Arrays pixel for pixel as it draws NumPy arrays.

Each plot users make is rendered with the Agg backend twice, once from NumPy
arrays and once from cowarray Arrays of the same values, and the two RGBA
pixel arrays must be equal exactly. matplotlib takes an object that is not an
ndarray through ``cbook._unpack_to_numpy`` (``to_numpy()``, as for pandas and
xarray objects) or ``np.asarray``; a 2-D input of ``hist``, ``boxplot`` and
``violinplot`` is one data set per *column* only when it arrives as an
ndarray, which ``Array.to_numpy()`` gives it.

Every Array given to matplotlib holds the same values after the call, and
after the figure is drawn and closed.

Skipped when matplotlib is not installed.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

if importlib.util.find_spec("matplotlib") is None:
    pytest.skip("needs matplotlib (pip install matplotlib)", allow_module_level=True)

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

import cowarray as ca

_RNG = np.random.default_rng(20261203)

#: The inputs, NumPy's: each plot takes some of them by name.
DATA: dict[str, np.ndarray] = {
    "t": np.linspace(0.0, 6.0, 40),
    "y": np.sin(np.linspace(0.0, 6.0, 40)),
    "e": np.abs(np.cos(np.linspace(0.0, 6.0, 40))) * 0.2,
    "samples": _RNG.normal(size=200),
    "columns": _RNG.normal(size=(50, 3)) * np.array([1.0, 2.0, 0.5]) + np.array([0.0, 1.0, -1.0]),
    "heights": np.array([3.0, 1.0, 4.0, 1.5, 5.0]),
    "positions": np.arange(5.0),
    "counts": np.array([3, 1, 4, 1, 5]),
    "image": _RNG.random((12, 16)),
    "gx": np.meshgrid(np.linspace(-2, 2, 16), np.linspace(-1, 1, 12))[0],
    "gy": np.meshgrid(np.linspace(-2, 2, 16), np.linspace(-1, 1, 12))[1],
    "mask": np.sin(np.linspace(0.0, 6.0, 40)) > 0,
    "low": np.float64(-1.5),
    "high": np.float64(1.5),
    "where_x": np.float64(2.5),
}


def _field(d: dict[str, Any]) -> Any:
    return (
        np.exp(-(d["gx"] ** 2) - d["gy"] ** 2)
        if isinstance(d["gx"], np.ndarray)
        else (ca.exp(-(d["gx"] ** 2) - d["gy"] ** 2))
    )


#: name -> what it draws on an Axes from the inputs (NumPy's or cowarray's).
PLOTS: dict[str, Callable[[Any, dict[str, Any]], object]] = {
    "plot": lambda ax, d: ax.plot(d["t"], d["y"], "o-"),
    "plot_y_only": lambda ax, d: ax.plot(d["y"]),
    "plot_2d_columns": lambda ax, d: ax.plot(d["columns"]),
    "scatter": lambda ax, d: ax.scatter(d["t"], d["y"], s=d["e"] * 100, c=d["y"]),
    "hist_1d": lambda ax, d: ax.hist(d["samples"], bins=15),
    "hist_2d_columns": lambda ax, d: ax.hist(d["columns"], bins=10),
    "hist_bins_array": lambda ax, d: ax.hist(d["samples"], bins=d["positions"] - 2.0),
    "boxplot_1d": lambda ax, d: ax.boxplot(d["samples"]),
    "boxplot_2d_columns": lambda ax, d: ax.boxplot(d["columns"]),
    "violinplot_2d_columns": lambda ax, d: ax.violinplot(d["columns"]),
    "bar": lambda ax, d: ax.bar(d["positions"], d["heights"]),
    "bar_int_heights": lambda ax, d: ax.bar(d["positions"], d["counts"], yerr=d["heights"] / 5),
    "barh": lambda ax, d: ax.barh(d["positions"], d["heights"], left=d["positions"] / 4),
    "errorbar": lambda ax, d: ax.errorbar(d["t"], d["y"], yerr=d["e"], xerr=d["e"] / 2),
    "imshow": lambda ax, d: ax.imshow(d["image"]),
    "contourf": lambda ax, d: ax.contourf(d["gx"], d["gy"], _field(d), levels=6),
    "contour": lambda ax, d: ax.contour(d["gx"], d["gy"], _field(d), levels=5),
    "pcolormesh": lambda ax, d: ax.pcolormesh(d["gx"], d["gy"], d["image"], shading="nearest"),
    "fill_between": lambda ax, d: ax.fill_between(d["t"], d["y"], d["y"] + d["e"], where=d["mask"]),
    "quiver": lambda ax, d: ax.quiver(d["gx"], d["gy"], d["gy"], -d["gx"]),
    "text_at_0d": lambda ax, d: ax.text(d["where_x"], d["high"], "label"),
    "axis_limits_0d": lambda ax, d: (ax.plot(d["t"], d["y"]), ax.set_ylim(d["low"], d["high"])),
    "axhline_axvline_0d": lambda ax, d: (ax.axhline(d["low"]), ax.axvline(d["where_x"])),
    "stairs": lambda ax, d: ax.stairs(d["heights"], [*d["positions"].tolist(), 5.0]),
    "step": lambda ax, d: ax.step(d["t"], d["y"]),
    "stem": lambda ax, d: ax.stem(d["positions"], d["heights"]),
    "pie": lambda ax, d: ax.pie(d["heights"]),
}


def _as_cowarray(value: Any) -> Any:
    return ca.asarray(value)


def _render(draw: Callable[[Any, dict[str, Any]], object], data: dict[str, Any]) -> np.ndarray:
    figure = Figure(figsize=(3.2, 2.4), dpi=60)
    canvas = FigureCanvasAgg(figure)
    draw(figure.add_subplot(), data)
    canvas.draw()
    return np.asarray(canvas.buffer_rgba()).copy()


@pytest.fixture
def inputs() -> tuple[dict[str, np.ndarray], dict[str, ca.Array]]:
    numpy_inputs = {name: value.copy() for name, value in DATA.items()}
    return numpy_inputs, {name: _as_cowarray(value) for name, value in numpy_inputs.items()}


@pytest.mark.parametrize("name", sorted(PLOTS))
def test_plot_is_pixel_identical_to_numpy(name: str, inputs: Any) -> None:
    numpy_inputs, cow_inputs = inputs
    expected = _render(PLOTS[name], numpy_inputs)
    got = _render(PLOTS[name], cow_inputs)
    assert got.shape == expected.shape
    differ = int(np.count_nonzero((got != expected).any(axis=-1)))
    assert differ == 0, f"{name}: {differ} of {got.shape[0] * got.shape[1]} pixels differ"


@pytest.mark.parametrize("name", sorted(PLOTS))
def test_plot_leaves_every_array_unchanged(name: str, inputs: Any) -> None:
    numpy_inputs, cow_inputs = inputs
    _render(PLOTS[name], cow_inputs)
    for key, value in cow_inputs.items():
        assert type(value) is ca.Array
        np.testing.assert_array_equal(np.array(value), numpy_inputs[key], err_msg=key)
        np.testing.assert_array_equal(np.array(value), DATA[key], err_msg=key)


def test_an_array_written_after_plotting_does_not_change_the_drawing() -> None:
    """A line drawn from an Array keeps the values it was drawn with, as from NumPy."""
    y_numpy = DATA["y"].copy()
    y_cow = ca.asarray(y_numpy)

    def drawn_then_written(y: Any) -> tuple[np.ndarray, np.ndarray]:
        canvas = FigureCanvasAgg(Figure(figsize=(3.2, 2.4), dpi=60))
        canvas.figure.add_subplot().plot(y)
        canvas.draw()
        before = np.asarray(canvas.buffer_rgba()).copy()
        y[5] = 100.0
        canvas.figure.axes[0].lines[0].recache_always()
        canvas.draw()
        return before, np.asarray(canvas.buffer_rgba()).copy()

    numpy_before, numpy_after = drawn_then_written(y_numpy)
    before, after = drawn_then_written(y_cow)
    np.testing.assert_array_equal(before, numpy_before)
    np.testing.assert_array_equal(after, numpy_after)
    np.testing.assert_array_equal(after, before)
