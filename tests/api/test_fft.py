"""The fft extension, compared with ``numpy.fft``.

Inputs cover stacks, empty batches, non-contiguous views, single and double
precision, every ``norm``, cropping and padding; every result must be a
value and keep its input's precision.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import cowarray as ca
from cowarray.testing import to_numpy

RNG = np.random.default_rng(1)

ONE_AXIS = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
MANY_AXES = ["fftn", "ifftn", "rfftn", "irfftn"]
REAL_INPUT = {"rfft", "ihfft", "rfftn"}
NORMS = ["backward", "ortho", "forward"]


def _input(name: str, shape: tuple[int, ...], precision: str) -> np.ndarray:
    values = RNG.standard_normal(shape)
    if name in REAL_INPUT:
        return values.astype("float32" if precision == "single" else "float64")
    values = values + 1j * RNG.standard_normal(shape)
    return values.astype("complex64" if precision == "single" else "complex128")


def assert_close(actual: ca.Array, expected: np.ndarray, precision: str) -> None:
    assert type(actual) is ca.Array
    values = to_numpy(actual)
    assert values.shape == expected.shape
    assert values.dtype == expected.dtype, f"{values.dtype} != {expected.dtype}"
    tol = 1e-4 if precision == "single" else 1e-12
    np.testing.assert_allclose(values, expected, rtol=tol, atol=tol * 10)


def assert_value(result: ca.Array, x: ca.Array) -> None:
    before = to_numpy(x)
    if result.size:
        result[...] = ca.zeros((), dtype=result.dtype, device=result.device)
    np.testing.assert_array_equal(to_numpy(x), before)


@pytest.mark.parametrize("precision", ["single", "double"])
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize(
    ("shape", "n", "axis"),
    [((8,), None, -1), ((3, 8), 5, -1), ((4, 3), 6, 0), ((2, 3, 4), None, 1), ((0, 6), None, 1)],
    ids=str,
)
@pytest.mark.parametrize("name", ONE_AXIS)
def test_one_axis_transform_matches_numpy(
    name: str,
    shape: tuple[int, ...],
    n: int | None,
    axis: int,
    norm: Any,
    precision: str,
    device: ca.Device,
) -> None:
    data = _input(name, shape, precision)
    x = ca.asarray(data, device=device)
    result = getattr(ca.fft, name)(x, n=n, axis=axis, norm=norm)
    assert result.device is device
    assert_close(result, getattr(np.fft, name)(data, n=n, axis=axis, norm=norm), precision)
    assert_value(result, x)


@pytest.mark.parametrize("precision", ["single", "double"])
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize(
    ("shape", "s", "axes"),
    [
        ((4, 6), None, None),
        ((2, 4, 6), None, (1, 2)),
        ((2, 4, 6), (3, 8), (0, -1)),
        ((3, 4, 6), (5,), None),
        ((4, 6), None, (-1,)),
        ((0, 4, 6), None, (1, 2)),
    ],
    ids=str,
)
@pytest.mark.parametrize("name", MANY_AXES)
def test_many_axes_transform_matches_numpy(
    name: str,
    shape: tuple[int, ...],
    s: Any,
    axes: Any,
    norm: Any,
    precision: str,
    backend_device: ca.Device,
) -> None:
    data = _input(name, shape, precision)
    x = ca.asarray(data, device=backend_device)
    result = getattr(ca.fft, name)(x, s=s, axes=axes, norm=norm)
    assert result.device == backend_device
    model_axes = axes if axes is not None or s is None else tuple(range(-len(s), 0))
    assert_close(result, getattr(np.fft, name)(data, s=s, axes=model_axes, norm=norm), precision)
    assert_value(result, x)


@pytest.mark.parametrize("name", ONE_AXIS + MANY_AXES)
def test_transform_reads_non_contiguous_input(name: str, backend_device: ca.Device) -> None:
    data = _input(name, (6, 10), "double")
    x = ca.asarray(data, device=backend_device)
    view = ca.permute_dims(x[::2, 1::3], (1, 0))
    model = np.swapaxes(data[::2, 1::3], 0, 1)
    result = getattr(ca.fft, name)(view)
    assert result.device == backend_device
    assert_close(result, getattr(np.fft, name)(model), "double")
    np.testing.assert_array_equal(to_numpy(x), data)


@pytest.mark.parametrize("precision", ["single", "double"])
def test_round_trips_recover_the_input(precision: str, backend_device: ca.Device) -> None:
    data = _input("fft", (4, 6), precision)
    x = ca.asarray(data, device=backend_device)
    assert_close(ca.fft.ifft(ca.fft.fft(x)), data, precision)
    assert_close(ca.fft.ifftn(ca.fft.fftn(x)), data, precision)
    real = _input("rfft", (4, 6), precision)
    r = ca.asarray(real, device=backend_device)
    assert_close(ca.fft.irfft(ca.fft.rfft(r), n=6), real, precision)
    assert_close(ca.fft.irfftn(ca.fft.rfftn(r), s=(4, 6)), real, precision)
    assert_close(ca.fft.hfft(ca.fft.ihfft(r), n=6), real, precision)


def test_real_input_to_a_complex_transform_keeps_its_precision(
    backend_device: ca.Device,
) -> None:
    data = np.arange(4, dtype=np.float32)
    result = ca.fft.fft(ca.asarray(data, device=backend_device))
    assert result.dtype == ca.complex64
    assert result.device == backend_device
    assert_close(result, np.fft.fft(data), "single")


@pytest.mark.parametrize("function", [ca.fft.fftfreq, ca.fft.rfftfreq], ids=lambda f: f.__name__)
@pytest.mark.parametrize("n", [1, 2, 7, 8])
@pytest.mark.parametrize("d", [1.0, 0.25, 3])
def test_sample_frequencies_match_numpy(
    function: Callable[..., ca.Array], n: int, d: float, backend_device: ca.Device
) -> None:
    expected = getattr(np.fft, function.__name__)(n, d=d)
    result = function(n, d=d, device=backend_device)
    assert result.device == backend_device
    assert_close(result, expected, "double")


@pytest.mark.parametrize("function", [ca.fft.fftfreq, ca.fft.rfftfreq], ids=lambda f: f.__name__)
def test_sample_frequencies_honour_dtype_and_device(
    function: Callable[..., ca.Array], device: ca.Device
) -> None:
    result = function(8, d=0.5, dtype=ca.float32, device=device)
    assert result.dtype == ca.float32
    assert result.device is device
    expected = getattr(np.fft, function.__name__)(8, d=0.5).astype(np.float32)
    np.testing.assert_array_equal(to_numpy(result), expected)
    assert function(3).device == ca.Device("cpu")


@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
@pytest.mark.parametrize("axes", [None, 0, -1, (0, 1), [1]], ids=str)
@pytest.mark.parametrize("dtype", ["int16", "float32", "complex128", "bool"])
def test_shifts_match_numpy(name: str, axes: Any, dtype: str, backend_device: ca.Device) -> None:
    data = (np.arange(15).reshape(3, 5) % 4).astype(dtype)
    x = ca.asarray(data, device=backend_device)
    result = getattr(ca.fft, name)(x, axes=axes)
    assert result.device == backend_device
    expected = getattr(np.fft, name)(data, axes=axes)
    assert type(result) is ca.Array
    assert to_numpy(result).dtype == expected.dtype
    np.testing.assert_array_equal(to_numpy(result), expected)
    assert_value(result, x)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: ca.fft.fft(ca.asarray([1, 2])), TypeError, "floating-point dtype"),
        (lambda: ca.fft.rfft(ca.asarray([1j, 2j])), TypeError, "real floating-point"),
        (lambda: ca.fft.ihfft(ca.asarray([1j])), TypeError, "real floating-point"),
        (lambda: ca.fft.fft([1.0, 2.0]), TypeError, "x must be a cowarray Array"),
        (lambda: ca.fft.fft(ca.ones(4), norm="none"), ValueError, "norm"),
        (lambda: ca.fft.fft(ca.ones(4), n=0), ValueError, "n must be at least 1"),
        (lambda: ca.fft.fft(ca.ones(4), n=2.0), TypeError, "n must be an int"),
        (lambda: ca.fft.fft(ca.ones(4), axis=1), IndexError, "axis=1"),
        (lambda: ca.fft.fft(ca.asarray(1.0)), ValueError, "at least one dimension"),
        (lambda: ca.fft.fftn(ca.ones((2, 2)), axes=(0, 0)), ValueError, "repeats"),
        (lambda: ca.fft.fftn(ca.ones((2, 2)), axes=(2,)), IndexError, "axes=2"),
        (lambda: ca.fft.fftn(ca.ones((2, 2)), s=(2, 2), axes=(0,)), ValueError, "same length"),
        (lambda: ca.fft.fftn(ca.ones((2, 2)), s=(2, 2, 2)), ValueError, "more entries"),
        (lambda: ca.fft.fftn(ca.ones((2, 2)), s=3), TypeError, "s must be a sequence"),
        (lambda: ca.fft.fftfreq(0), ValueError, "n must be at least 1"),
        (lambda: ca.fft.fftfreq(4, dtype=ca.int64), ValueError, "real floating-point"),
        (lambda: ca.fft.rfftfreq(4, d="x"), TypeError, "d must be a float"),
        (lambda: ca.fft.fftshift(ca.ones(3), axes=1), IndexError, "axes=1"),
    ],
)
def test_bad_arguments_raise_the_standard_exception(
    call: Callable[[], Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        call()
