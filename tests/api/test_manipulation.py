"""Manipulation functions against NumPy, and their results as lazy values."""

from __future__ import annotations

import numpy as np
import pytest
from _compare import assert_matches, assert_value, host, strided

import cowarray as ca


def model_and_array(
    shape: tuple[int, ...], dtype: str = "int64", device: ca.Device | None = None
) -> tuple[np.ndarray, ca.Array]:
    model = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
    return model, ca.asarray(model, device=device)


# -- broadcast_arrays / broadcast_shapes --------------------------------------


def test_broadcast_arrays_returns_a_tuple_of_lazy_values(backend_device: ca.Device) -> None:
    a_model, a = model_and_array((3, 1), device=backend_device)
    b_model, b = model_and_array((4,), device=backend_device)
    result = ca.broadcast_arrays(a, b)
    assert isinstance(result, tuple)
    for got, want in zip(result, np.broadcast_arrays(a_model, b_model), strict=True):
        assert_matches(got, want)
        assert got.device == backend_device
    assert ca.shares_buffer(result[0], a)
    assert ca.shares_buffer(result[1], b)
    result[0][0, 0] = 99  # a broadcast view: the write expands it first
    assert_matches(a, a_model)
    assert_matches(result[0][1], np.broadcast_to(a_model, (3, 4))[1])
    assert_value(result[1], b)


def test_broadcast_arrays_of_equal_shapes_gives_new_values(backend_device: ca.Device) -> None:
    x = ca.asarray([1.0, 2.0], device=backend_device)
    (same,) = ca.broadcast_arrays(x)
    assert same is not x
    assert_value(same, x)
    assert ca.broadcast_arrays() == ()


def test_broadcast_arrays_refuses_incompatible_shapes() -> None:
    with pytest.raises(ValueError, match="broadcast"):
        ca.broadcast_arrays(ca.zeros((2,)), ca.zeros((3,)))


@pytest.mark.parametrize(
    "shapes",
    [(), ((2, 3),), ((2, 1), (3,)), ((1,), (5, 1, 4), (4,)), ((0, 1), (1, 3)), ((1,), ())],
)
def test_broadcast_shapes_matches_numpy(shapes: tuple[tuple[int, ...], ...]) -> None:
    assert ca.broadcast_shapes(*shapes) == np.broadcast_shapes(*shapes)


def test_broadcast_shapes_propagates_unknown_sizes_and_refuses_mismatches() -> None:
    assert ca.broadcast_shapes((None, 3), (2, 1)) == (None, 3)
    with pytest.raises(ValueError, match="cannot be broadcast"):
        ca.broadcast_shapes((2, 3), (4,))
    with pytest.raises(TypeError, match="shapes"):
        ca.broadcast_shapes(3)  # type: ignore[arg-type]


# -- concat / stack / unstack ---------------------------------------------------


@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_concat_matches_numpy(axis: int | None, backend_device: ca.Device) -> None:
    a_model, a = model_and_array((2, 3), device=backend_device)
    b_model = np.arange(6, 12).reshape(2, 3)
    expected = np.concat([a_model, b_model], axis=axis)
    result = ca.concat([a, strided(b_model, device=backend_device)], axis=axis)
    assert_matches(result, expected)
    assert result.device == backend_device
    assert_value(result, a)


def test_concat_promotes_under_the_standard_and_across_kinds_as_numpy(
    backend_device: ca.Device,
) -> None:
    a = ca.asarray([1], dtype=ca.int8, device=backend_device)
    b = ca.asarray([300], dtype=ca.int16, device=backend_device)
    assert_matches(ca.concat((a, b)), np.asarray([1, 300], dtype="int16"))
    assert ca.concat([ca.asarray([1], dtype=ca.uint8, device=backend_device), a]).dtype == ca.int16
    mixed = ca.concat(
        [ca.asarray([1], device=backend_device), ca.asarray([1.5], device=backend_device)]
    )
    assert_matches(mixed, np.concatenate([np.asarray([1]), np.asarray([1.5])]))


def test_concat_refuses_bad_input(backend_device: ca.Device) -> None:
    with pytest.raises(ValueError, match="at least one"):
        ca.concat([])
    with pytest.raises(TypeError, match="tuple or list"):
        ca.concat(ca.asarray([1], device=backend_device))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="shape"):  # the backend refuses; concat says why
        ca.concat(
            [ca.zeros((2, 3), device=backend_device), ca.zeros((2, 4), device=backend_device)],
            axis=0,
        )
    with pytest.raises(IndexError, match="axis"):
        ca.concat([ca.zeros((2,), device=backend_device)], axis=1)
    with pytest.raises(ValueError, match="0-dimensional"):
        ca.concat([ca.asarray(1.0, device=backend_device)])
    with pytest.raises(ValueError, match="device"):
        ca.concat([ca.zeros(2), ca.zeros(2, device="cpu:1")])


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
def test_stack_matches_numpy(axis: int, backend_device: ca.Device) -> None:
    a_model, a = model_and_array((2, 3), device=backend_device)
    expected = np.stack([a_model, a_model * 2], axis=axis)
    result = ca.stack((a, a * 2), axis=axis)
    assert_matches(result, expected)
    assert result.device == backend_device
    assert_value(result, a)


def test_stack_refuses_different_shapes() -> None:
    with pytest.raises(ValueError, match="share one shape"):
        ca.stack([ca.zeros(2), ca.zeros(3)])


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_unstack_gives_lazy_values(axis: int, backend_device: ca.Device) -> None:
    model, x = model_and_array((2, 3), device=backend_device)
    parts = ca.unstack(x, axis=axis)
    assert isinstance(parts, tuple)
    for got, want in zip(parts, np.unstack(model, axis=axis), strict=True):
        assert_matches(got, want)
        assert ca.shares_buffer(got, x)
        assert got.device == backend_device
    parts[0][0] = -1
    assert_matches(x, model)
    x[...] = 0
    assert_matches(parts[1], np.unstack(model, axis=axis)[1])


def test_unstack_refuses_zero_d() -> None:
    with pytest.raises(ValueError, match="dimension"):
        ca.unstack(ca.asarray(1))


# -- moveaxis / expand_dims -----------------------------------------------------


@pytest.mark.parametrize(("source", "destination"), [(0, -1), (-1, 0), ((0, 1), (2, 0)), ((), ())])
def test_moveaxis_is_a_lazy_value_matching_numpy(
    source: int | tuple[int, ...], destination: int | tuple[int, ...], backend_device: ca.Device
) -> None:
    model, x = model_and_array((2, 3, 4), device=backend_device)
    result = ca.moveaxis(x, source, destination)
    assert_matches(result, np.moveaxis(model, source, destination))
    assert ca.shares_buffer(result, x)
    assert_value(result, x)


def test_moveaxis_refuses_bad_axes() -> None:
    x = ca.zeros((2, 3))
    with pytest.raises(IndexError, match="source"):
        ca.moveaxis(x, 2, 0)
    with pytest.raises(ValueError, match="as many"):
        ca.moveaxis(x, (0, 1), 0)
    with pytest.raises(ValueError, match="repeats"):
        ca.moveaxis(x, (0, 0), (0, 1))
    with pytest.raises(TypeError, match="source"):
        ca.moveaxis(x, 0.5, 0)  # type: ignore[arg-type]


@pytest.mark.parametrize("axis", [0, -1, (0, 1), (0, -1), (-1, -2), (1, 3)])
def test_expand_dims_takes_ints_and_tuples(
    axis: int | tuple[int, ...], backend_device: ca.Device
) -> None:
    model, x = model_and_array((2, 3), device=backend_device)
    result = ca.expand_dims(x, axis=axis)
    assert_matches(result, np.expand_dims(model, axis))
    assert_value(result, x)


def test_expand_dims_refuses_out_of_range_and_repeated_axes() -> None:
    x = ca.zeros((2, 3))
    with pytest.raises(IndexError, match="axis"):
        ca.expand_dims(x, axis=(0, 4))
    with pytest.raises(ValueError, match="repeats"):
        ca.expand_dims(x, axis=(1, 1))


# -- repeat / roll / tile -------------------------------------------------------


@pytest.mark.parametrize(
    ("repeats", "axis"), [(2, None), (0, None), (3, 0), (2, -1), ([1, 0, 2], 1), ([2], 0)]
)
def test_repeat_matches_numpy(
    repeats: int | list[int], axis: int | None, backend_device: ca.Device
) -> None:
    model, x = model_and_array((2, 3), device=backend_device)
    counts = repeats if isinstance(repeats, int) else ca.asarray(repeats, device=backend_device)
    result = ca.repeat(x, counts, axis=axis)
    assert_matches(result, np.repeat(model, repeats, axis=axis))
    assert result.device == backend_device
    assert_value(result, x)


def test_repeat_refuses_bad_counts(backend_device: ca.Device) -> None:
    x = ca.asarray([1, 2], device=backend_device)
    with pytest.raises(ValueError, match="repeats"):
        ca.repeat(x, -1)
    with pytest.raises(ValueError, match="negative"):  # found by the backend
        ca.repeat(x, ca.asarray([1, -1], device=backend_device))
    with pytest.raises(TypeError, match="integer dtype"):
        ca.repeat(x, ca.asarray([1.0, 1.0], device=backend_device))
    with pytest.raises(ValueError, match="shape"):
        ca.repeat(x, ca.asarray([1, 1, 1], device=backend_device))


@pytest.mark.parametrize(
    ("shift", "axis"), [(1, None), (-7, None), (2, 1), ((1, -1), (0, 1)), (1, (0, 1)), (0, 0)]
)
def test_roll_matches_numpy(
    shift: int | tuple[int, ...], axis: int | tuple[int, ...] | None, backend_device: ca.Device
) -> None:
    model = np.arange(12).reshape(3, 4)
    x = strided(model, device=backend_device)
    result = ca.roll(x, shift, axis=axis)
    assert_matches(result, np.roll(model, shift, axis=axis))
    assert result.device == backend_device
    assert_value(result, x)


def test_roll_refuses_mismatched_shift_and_axis() -> None:
    with pytest.raises(ValueError, match="shift"):
        ca.roll(ca.zeros((2, 2)), (1, 2), axis=(0, 1, 1))
    with pytest.raises(ValueError, match="single"):
        ca.roll(ca.zeros(3), (1, 2))


@pytest.mark.parametrize("reps", [(2,), (1, 1), (2, 3), (1, 2, 1), (0,), (1,)])
def test_tile_matches_numpy(reps: tuple[int, ...], backend_device: ca.Device) -> None:
    model, x = model_and_array((2, 3), device=backend_device)
    result = ca.tile(x, reps)
    assert_matches(result, np.tile(model, reps))
    assert result.device == backend_device
    assert_value(result, x)


def test_tile_refuses_non_tuples_and_negative_counts() -> None:
    with pytest.raises(TypeError, match="tuple"):
        ca.tile(ca.zeros(2), 2)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="negative"):
        ca.tile(ca.zeros(2), (-1,))


def test_manipulation_leaves_the_input_unchanged(backend_device: ca.Device) -> None:
    model, x = model_and_array((2, 3), "float64", backend_device)
    for function in (
        lambda: ca.roll(x, 1),
        lambda: ca.tile(x, (2,)),
        lambda: ca.repeat(x, 2),
        lambda: ca.moveaxis(x, 0, 1),
        lambda: ca.unstack(x),
    ):
        function()
        np.testing.assert_array_equal(host(x), model)
