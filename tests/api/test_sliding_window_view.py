"""``ca.lib.stride_tricks.sliding_window_view`` against NumPy's, on every backend.

The windows must match NumPy's in shape, dtype and values, and be values
themselves: a write to a window, to an overlapping window or to the source
never shows in another.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from _compare import host
from numpy.lib.stride_tricks import sliding_window_view as numpy_windows

import cowarray as ca
from cowarray.lib.stride_tricks import sliding_window_view

_MODEL = np.arange(24.0).reshape(4, 6)

CASES: list[tuple[Any, Any]] = [
    (3, 1),
    ((2, 3), None),
    ((2, 2), (1, 1)),  # an axis may repeat, as in NumPy
    (2, 0),
    ((1, 2), (-1, 0)),
    (6, -1),  # the whole axis: one window
    (0, 1),  # empty windows, as NumPy allows
]


@pytest.mark.parametrize(("window_shape", "axis"), CASES)
def test_windows_match_numpys(backend_device: ca.Device, window_shape: Any, axis: Any) -> None:
    x = ca.asarray(_MODEL, device=backend_device)
    got = sliding_window_view(x, window_shape, axis)
    expected = numpy_windows(_MODEL, window_shape, axis)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    np.testing.assert_array_equal(host(got), expected)


def test_the_namespace_path_is_the_one_xarray_looks_up() -> None:
    assert ca.lib.stride_tricks.sliding_window_view is sliding_window_view


def test_a_write_to_one_window_shows_in_no_other_and_not_in_the_source(
    backend_device: ca.Device,
) -> None:
    x = ca.asarray(_MODEL, device=backend_device)
    windows = sliding_window_view(x, 3, axis=1)  # windows[i, j, k] is x[i, j + k]
    windows[0, 0, 1] = -1.0
    assert float(windows[0, 0, 1]) == -1.0
    assert float(windows[0, 1, 0]) == _MODEL[0, 1]  # the same element of x, another window
    assert float(x[0, 1]) == _MODEL[0, 1]
    x[1, 2] = 100.0
    assert float(windows[1, 1, 1]) == _MODEL[1, 2]


def test_windows_of_a_temporary_write_without_touching_other_windows(
    backend_device: ca.Device,
) -> None:
    windows = sliding_window_view(ca.asarray(_MODEL, device=backend_device), 2, axis=0)
    windows[0, 3, 1] = 7.0  # windows is the source's only holder now
    assert float(windows[0, 3, 1]) == 7.0
    assert float(windows[1, 3, 0]) == _MODEL[1, 3]


def test_host_windows_are_a_lazy_value_of_the_source() -> None:
    x = ca.asarray(_MODEL)
    windows = sliding_window_view(x, (2, 2))
    assert ca.shares_buffer(x, windows)


@pytest.mark.parametrize(
    ("window_shape", "axis", "error", "match"),
    [
        (7, 1, ValueError, "a window of 7 does not fit along axis 1"),
        ((4, 4), (0, 0), ValueError, "a window of 4 does not fit along axis 0"),
        (-1, 0, ValueError, "negative"),
        (2.0, 0, TypeError, "window_shape must be an int or a tuple of ints"),
        (True, 0, TypeError, "bool"),
        (3, None, ValueError, "window_shape has 1 size but x has 2 dimensions"),
        ((2, 2), 0, ValueError, "window_shape has 2 sizes and axis has 1 entries"),
        (2, 2, IndexError, "axis=2 is out of range"),
    ],
)
def test_bad_windows_are_refused_with_the_fix(
    window_shape: Any, axis: Any, error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        sliding_window_view(ca.asarray(_MODEL), window_shape, axis)


def test_a_numpy_array_is_refused_with_the_fix() -> None:
    with pytest.raises(TypeError, match="x must be a cowarray Array"):
        sliding_window_view(_MODEL, 2)  # type: ignore[arg-type]
