"""take and take_along_axis against NumPy."""

from __future__ import annotations

import numpy as np
import pytest
from _compare import assert_matches, assert_value, host, strided

import cowarray as ca


@pytest.mark.parametrize(
    ("shape", "indices", "axis"),
    [
        ((5,), [0, 4, -1, 2, 2], None),
        ((5,), [], None),
        ((3, 4), [1, -1], 0),
        ((3, 4), [3, 0, 0], 1),
        ((3, 4), [2], -1),
        ((2, 0), [], 1),
    ],
)
def test_take_matches_numpy(
    shape: tuple[int, ...], indices: list[int], axis: int | None, backend_device: ca.Device
) -> None:
    model = np.arange(int(np.prod(shape)), dtype="float32").reshape(shape)
    x = strided(model, device=backend_device)
    index = np.asarray(indices, dtype="int64")
    result = ca.take(x, ca.asarray(index, device=backend_device), axis=axis)
    assert_matches(result, np.take(model, index, axis=0 if axis is None else axis))
    assert result.device == backend_device
    assert_value(result, x)


def test_take_refuses_bad_indices(backend_device: ca.Device) -> None:
    # The bounds check may come from the backend: every backend must refuse.
    def on_device(values: object) -> ca.Array:
        return ca.asarray(values, device=backend_device)

    x = on_device([[1, 2], [3, 4]])
    with pytest.raises(IndexError, match="out of bounds"):
        ca.take(x, on_device([2]), axis=0)
    with pytest.raises(IndexError, match="out of bounds"):
        ca.take(x, on_device([-3]), axis=1)
    with pytest.raises(IndexError, match="out of bounds"):
        ca.take(x[0], on_device([2]))  # a 1-D x: the one-pass path
    with pytest.raises(ValueError, match="axis is required"):
        ca.take(x, on_device([0]))
    with pytest.raises(TypeError, match="integer dtype"):
        ca.take(x, on_device([0.0]), axis=0)
    with pytest.raises(ValueError, match="1-dimensional"):
        ca.take(x, on_device([[0]]), axis=0)
    with pytest.raises(TypeError, match="indices"):
        ca.take(x, [0], axis=0)  # type: ignore[arg-type]
    np.testing.assert_array_equal(host(x), [[1, 2], [3, 4]])


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_take_along_axis_matches_numpy(axis: int, backend_device: ca.Device) -> None:
    model = np.asarray([[3.0, 1.0, 2.0], [9.0, -7.0, 8.0]])
    order = np.argsort(model, axis=axis)
    x, indices = ca.asarray(model, device=backend_device), ca.asarray(order, device=backend_device)
    result = ca.take_along_axis(x, indices, axis=axis)
    assert_matches(result, np.take_along_axis(model, order, axis=axis))
    assert result.device == backend_device


def test_take_along_axis_broadcasts_and_takes_negative_indices(backend_device: ca.Device) -> None:
    model = np.arange(12).reshape(3, 4)
    index = np.asarray([[-1, 0]])
    x, indices = ca.asarray(model, device=backend_device), ca.asarray(index, device=backend_device)
    result = ca.take_along_axis(x, indices, axis=1)
    assert_matches(result, np.take_along_axis(model, index, axis=1))


def test_take_along_axis_refuses_bad_indices(backend_device: ca.Device) -> None:
    # The bounds are checked on the indices' values, on their device.
    def on_device(values: object) -> ca.Array:
        return ca.asarray(values, device=backend_device)

    x = ca.zeros((2, 3), device=backend_device)
    with pytest.raises(IndexError, match="out of bounds"):
        ca.take_along_axis(x, on_device([[3]]), axis=1)
    with pytest.raises(IndexError, match="out of bounds"):
        ca.take_along_axis(x, on_device([[-4]]), axis=1)
    with pytest.raises(ValueError, match="dimensions"):
        ca.take_along_axis(x, on_device([0]), axis=1)
    with pytest.raises(ValueError, match="broadcast"):
        ca.take_along_axis(x, on_device([[0], [0], [0]]), axis=1)


def test_a_slice_of_numpy_integers_reads_like_one_of_ints() -> None:
    # (bounds that are not Python ints are converted once, before any memory
    # is read: on a private array and on a shared one alike)
    model = np.arange(6.0)
    private = ca.asarray(model)
    shared = ca.asarray(model)
    kept = shared.copy()
    for x in (private, shared):
        view = x[np.int64(1) : np.int32(5) : np.int64(2)]
        np.testing.assert_array_equal(np.asarray(view), model[1:5:2])
    del kept
