"""Creation functions against NumPy, on every backend's device."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _compare import assert_matches, assert_value, host

import cowarray as ca
from cowarray._ops import creation

# name -> (cowarray call on a device, the NumPy model)
FILLED: dict[str, tuple[Callable[[ca.Device], ca.Array], Callable[[], np.ndarray]]] = {
    "asarray list": (
        lambda d: ca.asarray([[1, 2], [3, 4]], device=d),
        lambda: np.asarray([[1, 2], [3, 4]]),
    ),
    "asarray scalar": (lambda d: ca.asarray(2.5, device=d), lambda: np.asarray(2.5)),
    "asarray dtype": (
        lambda d: ca.asarray([1, 2], dtype=ca.float32, device=d),
        lambda: np.asarray([1, 2], dtype=np.float32),
    ),
    "arange": (lambda d: ca.arange(5, device=d), lambda: np.arange(5)),
    "arange step": (
        lambda d: ca.arange(1.0, 2.0, 0.25, device=d),
        lambda: np.arange(1.0, 2.0, 0.25),
    ),
    "arange empty": (lambda d: ca.arange(3, 1, device=d), lambda: np.arange(3, 1)),
    "zeros": (lambda d: ca.zeros((2, 3), device=d), lambda: np.zeros((2, 3))),
    "zeros int": (
        lambda d: ca.zeros(3, dtype=ca.int8, device=d),
        lambda: np.zeros(3, dtype=np.int8),
    ),
    "ones": (lambda d: ca.ones(4, device=d), lambda: np.ones(4)),
    "ones bool": (
        lambda d: ca.ones(2, dtype=ca.bool, device=d),
        lambda: np.ones(2, dtype=np.bool_),
    ),
    "full": (lambda d: ca.full((2, 2), 7, device=d), lambda: np.full((2, 2), 7)),
    "full complex": (lambda d: ca.full(2, 1j, device=d), lambda: np.full(2, 1j)),
    "linspace": (lambda d: ca.linspace(0, 1, 5, device=d), lambda: np.linspace(0, 1, 5)),
    "linspace open": (
        lambda d: ca.linspace(0, 1, 4, endpoint=False, device=d),
        lambda: np.linspace(0, 1, 4, endpoint=False),
    ),
    "eye": (lambda d: ca.eye(3, device=d), lambda: np.eye(3)),
    "eye offset": (lambda d: ca.eye(2, 4, k=1, device=d), lambda: np.eye(2, 4, k=1)),
    "zeros_like": (
        lambda d: ca.zeros_like(ca.ones((2, 1), dtype=ca.int16, device=d)),
        lambda: np.zeros((2, 1), dtype=np.int16),
    ),
    "ones_like": (
        lambda d: ca.ones_like(ca.zeros(3, device=d), dtype=ca.float32),
        lambda: np.ones(3, dtype=np.float32),
    ),
    "full_like": (
        lambda d: ca.full_like(ca.zeros(2, dtype=ca.int32, device=d), 5),
        lambda: np.full(2, 5, dtype=np.int32),
    ),
    "tril": (
        lambda d: ca.tril(ca.reshape(ca.arange(9, device=d), (3, 3)), k=-1),
        lambda: np.tril(np.arange(9).reshape(3, 3), k=-1),
    ),
    "triu": (
        lambda d: ca.triu(ca.reshape(ca.arange(12, device=d), (3, 4)), k=1),
        lambda: np.triu(np.arange(12).reshape(3, 4), k=1),
    ),
}


@pytest.mark.parametrize("name", list(FILLED))
def test_creation_matches_numpy_on_the_device_asked_for(
    name: str, backend_device: ca.Device
) -> None:
    make, model = FILLED[name]
    result = make(backend_device)
    assert result.device is backend_device
    assert_matches(result, model(), exact=True)


@pytest.mark.parametrize("name", ["empty", "empty_like"])
def test_empty_has_the_shape_dtype_and_device_asked_for(
    name: str, backend_device: ca.Device
) -> None:
    if name == "empty":
        result = ca.empty((2, 3), dtype=ca.int32, device=backend_device)
    else:
        result = ca.empty_like(ca.zeros((2, 3), dtype=ca.int32, device=backend_device))
    assert (result.shape, result.dtype, result.device) == ((2, 3), ca.int32, backend_device)
    result[...] = 4  # its memory is its own to write
    assert_matches(result, np.full((2, 3), 4, dtype=np.int32))


@pytest.mark.parametrize("indexing", ["xy", "ij"])
def test_meshgrid_keeps_the_device_and_gives_independent_values(
    indexing: str, backend_device: ca.Device
) -> None:
    x = ca.asarray([1, 2, 3], device=backend_device)
    y = ca.asarray([10, 20], device=backend_device)
    grids = ca.meshgrid(x, y, indexing=indexing)  # type: ignore[arg-type]
    models = np.meshgrid(np.asarray([1, 2, 3]), np.asarray([10, 20]), indexing=indexing)  # type: ignore[call-overload]
    for grid, model in zip(grids, models, strict=True):
        assert grid.device is backend_device
        assert_matches(grid, model)
        assert_value(grid, x, y)


def test_results_built_from_an_array_are_values_not_views(backend_device: ca.Device) -> None:
    x = ca.asarray([[1.0, 2.0], [3.0, 4.0]], device=backend_device)
    for result in (ca.tril(x), ca.triu(x), ca.asarray(x, copy=True), ca.zeros_like(x)):
        assert_value(result, x)


def test_asarray_moves_an_array_to_the_device_asked_for(backend_device: ca.Device) -> None:
    source = ca.asarray([1.5, 2.5])
    moved = ca.asarray(source, device=backend_device)
    assert moved.device is backend_device
    assert_matches(moved, np.asarray([1.5, 2.5]))
    back = ca.asarray(moved, device="cpu")
    assert back.device == ca.Device("cpu")
    np.testing.assert_array_equal(host(back), [1.5, 2.5])


def test_like_functions_keep_the_device_of_their_input(backend_device: ca.Device) -> None:
    x = ca.zeros(2, device=backend_device)
    for like in (ca.empty_like, ca.zeros_like, ca.ones_like):
        assert like(x).device is backend_device
    assert ca.full_like(x, 2.0).device is backend_device
    assert ca.zeros_like(x, device="cpu").device == ca.Device("cpu")


def test_every_creation_function_that_makes_new_memory_takes_device() -> None:
    # tril, triu and meshgrid build on their inputs' device instead
    takes_device = {
        name
        for name in creation.__all__
        if "device" in inspect.signature(getattr(ca, name)).parameters
    }
    assert takes_device == set(creation.__all__) - {"meshgrid", "tril", "triu"}


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda d: ca.zeros(-1, device=d), ValueError, "negative"),
        (lambda d: ca.full(2, "a", device=d), TypeError, "fill_value must be .* got str"),
        (lambda d: ca.linspace("0", 1, 2, device=d), TypeError, "start must be"),
        (lambda d: ca.arange(0, [3], device=d), TypeError, "stop must be"),
        (lambda d: ca.arange(0, 1, 0, device=d), ValueError, "step"),
        (lambda d: ca.linspace(0, 1, -2, device=d), ValueError, "num"),
        (lambda d: ca.eye(-1, device=d), ValueError, "negative"),
    ],
    ids=[
        "negative shape",
        "string fill",
        "string start",
        "list stop",
        "zero step",
        "negative num",
        "negative eye",
    ],
)
def test_bad_creation_arguments_raise_clear_errors(
    call: Callable[[ca.Device], Any],
    error: type[Exception],
    message: str,
    backend_device: ca.Device,
) -> None:
    with pytest.raises(error, match=message):
        call(backend_device)


# -- full with a 0-d array (SciPy passes them, as NumPy allows) -------------------


@pytest.mark.parametrize(
    "value",
    [np.asarray(3, dtype=np.int8), np.asarray(1.5, dtype=np.float32), np.asarray(True),
     np.asarray(2 + 1j, dtype=np.complex64), np.asarray(2**64 - 1, dtype=np.uint64),
     np.float32(1.5), np.int16(-2), np.bool_(False)],
    ids=repr,
)  # fmt: skip
def test_full_takes_a_zero_d_array_or_numpy_scalar_as_numpy_does(
    value: Any, backend_device: ca.Device
) -> None:
    expected = np.full((2, 3), value)  # the value's own dtype
    if isinstance(value, np.ndarray):
        zero_d = ca.asarray(value, device=backend_device)
        result = ca.full((2, 3), zero_d)
        assert_matches(result, expected, exact=True)
        assert result.device == backend_device  # the 0-d Array's device
        assert_matches(ca.full_like(result, zero_d), expected, exact=True)
    assert_matches(ca.full((2, 3), value, device=backend_device), expected, exact=True)


def test_full_with_a_zero_d_array_and_a_dtype(backend_device: ca.Device) -> None:
    half = ca.asarray(1.5, device=backend_device)
    assert_matches(ca.full(2, half, dtype=ca.float32), np.full(2, 1.5, dtype=np.float32))
    assert_matches(ca.full(2, ca.asarray(True), dtype=ca.int8), np.full(2, 1, dtype=np.int8))
    # a cast that loses the fraction is refused, not truncated (NumPy: 1)
    with pytest.raises(TypeError, match=r"0-d float64 array cannot fill .* int64"):
        ca.full(2, half, dtype=ca.int64)
    with pytest.raises(TypeError, match="0-d float64 array cannot fill"):
        ca.full_like(ca.zeros(2, dtype=ca.int64), half)
    with pytest.raises(OverflowError, match="int8"):
        ca.full(2, ca.asarray(300, dtype=ca.int16), dtype=ca.int8)


def test_full_refuses_a_fill_value_with_dimensions() -> None:
    with pytest.raises(TypeError, match=r"0-d array, got an array of shape \(2,\).*broadcast_to"):
        ca.full(2, ca.asarray([1, 2]))
    with pytest.raises(TypeError, match=r"shape \(2,\)"):
        ca.full(2, np.asarray([1, 2]))
    with pytest.raises(TypeError, match="0-d array"):
        ca.full(2, np.asarray("a"))
