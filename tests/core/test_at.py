"""x.at[index]: every method and mode against a plain-NumPy model (docs/design.md rule 6).

The model of ``x.at[i].<op>(v)`` is ``out = x.copy(); np.<ufunc>.at(out, i, v)``
(``out[i] = v`` for ``set``); ``x`` itself must never change.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cowarray as ca
from cowarray._core import cow
from cowarray.testing import to_numpy

UFUNCS: dict[str, Any] = {
    "add": np.add,
    "subtract": np.subtract,
    "multiply": np.multiply,
    "divide": np.divide,
    "power": np.power,
    "min": np.minimum,
    "max": np.maximum,
}
METHODS = ["set", *UFUNCS]


def model(method: str, base: np.ndarray, index: Any, values: Any) -> np.ndarray:
    out = base.copy()
    if method == "set":
        out[index] = values
    else:
        UFUNCS[method].at(out, index, values)
    return out


def assert_model_values(result: ca.Array, expected: np.ndarray, *, rounds: bool) -> None:
    """Exact, unless the update ``rounds`` on a GPU: CUDA's pow may be a few ulp
    from the host's (7 ** 1.5), and atomics add repeated positions in any order."""
    if rounds and result.device.kind == "cuda":
        # atol: sums that cancel to about 0 (a base less the values subtracted)
        np.testing.assert_allclose(to_numpy(result), expected, rtol=1e-15, atol=1e-13)
    else:
        np.testing.assert_array_equal(to_numpy(result), expected)


def to_ca(index: Any, device: ca.Device) -> Any:
    """The cowarray spelling of a NumPy index (arrays become cowarray Arrays on ``device``)."""
    if isinstance(index, tuple):
        return tuple(to_ca(part, device) for part in index)
    if isinstance(index, np.ndarray):
        return ca.asarray(index, device=device)
    return index


def snapshot(x: ca.Array) -> np.ndarray:
    return to_numpy(x)


# (shape, NumPy index) pairs: every kind of index the Array accepts.
INDICES: list[tuple[tuple[int, ...], Any]] = [
    ((6,), 2),
    ((6,), -1),
    ((6,), slice(1, 4)),
    ((6,), slice(None, None, 2)),
    ((6,), Ellipsis),
    ((6,), None),
    ((6,), np.array([True, False, True, False, False, True])),
    ((6,), np.array([0, 0, 3])),
    ((6,), np.array([-1, -1, 0, 5])),
    ((6,), np.array([], dtype=np.int64)),
    ((3, 4), (1, slice(None))),
    ((3, 4), (np.array([0, 2, 0]), np.array([1, 1, 1]))),
    ((3, 4), (Ellipsis, 1)),
    ((3, 4), (slice(None), np.array([3, 3]))),
    ((3, 4), np.array([[True, False, True, False]] * 3)),
    ((2, 3, 4), (np.array([0, 1]), slice(None), np.array([2, 2]))),
    ((2, 3, 4), (None, 1, Ellipsis, np.array([0, 0, 3]))),
    ((), ()),
    ((), Ellipsis),
]
INDEX_IDS = [f"{shape}-{index!r}".replace("\n", "") for shape, index in INDICES]


def base_array(shape: tuple[int, ...]) -> np.ndarray:
    return np.arange(1.0, 1.0 + int(np.prod(shape)), dtype=np.float64).reshape(shape)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize(("shape", "index"), INDICES, ids=INDEX_IDS)
def test_update_matches_numpy_model_and_leaves_x_intact(
    method: str, shape: tuple[int, ...], index: Any, backend_device: ca.Device
) -> None:
    base = base_array(shape)
    x = ca.asarray(base, device=backend_device)
    values = 1.5
    result = getattr(x.at[to_ca(index, backend_device)], method)(values)
    expected = model(method, base, index, values)
    assert_model_values(result, expected, rounds=method == "power")
    np.testing.assert_array_equal(to_numpy(x), base)
    assert result.dtype == x.dtype and result.shape == x.shape
    assert result.device == backend_device


@pytest.mark.parametrize("method", METHODS)
def test_array_values_broadcast_and_duplicates_accumulate(
    method: str, backend_device: ca.Device
) -> None:
    base = base_array((4, 3))
    x = ca.asarray(base, device=backend_device)
    index = np.array([1, 1, 3])
    values = np.array([2.0, 0.5, 3.0])
    result = getattr(x.at[:, to_ca(index[:2], backend_device)], method)(
        ca.asarray(values[:2], device=backend_device)
    )
    np.testing.assert_array_equal(
        to_numpy(result), model(method, base, (slice(None), index[:2]), values[:2])
    )
    result = getattr(x.at[to_ca(index, backend_device)], method)(
        ca.asarray(values[:, None], device=backend_device)
    )
    np.testing.assert_array_equal(to_numpy(result), model(method, base, index, values[:, None]))
    np.testing.assert_array_equal(to_numpy(x), base)


def test_set_with_duplicates_takes_the_last_value(backend_device: ca.Device) -> None:
    x = ca.zeros(3, device=backend_device)
    y = x.at[ca.asarray([1, 1, 1], device=backend_device)].set(
        ca.asarray([1.0, 2.0, 3.0], device=backend_device)
    )
    assert to_numpy(y).tolist() == [0.0, 3.0, 0.0]


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.parametrize("method", ["max", "min"])
def test_repeated_max_and_min_keep_float64_precision_and_nan(
    method: str, backend_device: ca.Device
) -> None:
    # (CuPy's own double max/min atomics round through float32 and drop NaN)
    fine = 1.0 + 2.0**-40
    sign = 1.0 if method == "max" else -1.0
    x = ca.zeros(2, device=backend_device)
    index = ca.asarray([0, 0, 1, 1], device=backend_device)
    values = ca.asarray([sign * fine, sign * 0.5, float("nan"), sign * 3.0], device=backend_device)
    result = to_numpy(getattr(x.at[index], method)(values))
    assert result[0] == sign * fine
    assert np.isnan(result[1])


@pytest.mark.parametrize("dtype", [ca.int32, ca.uint8, ca.float32, ca.complex128])
def test_integer_and_complex_arrays_keep_their_dtype(dtype: Any, backend_device: ca.Device) -> None:
    base = np.arange(5).astype(dtype)
    x = ca.asarray(base, device=backend_device)
    result = x.at[ca.asarray([0, 0, 4], device=backend_device)].add(2)
    expected = base.copy()
    np.add.at(expected, [0, 0, 4], 2)
    assert result.dtype == dtype
    np.testing.assert_array_equal(to_numpy(result), expected)
    result = x.at[ca.asarray([0, 0, 4], device=backend_device)].subtract(1)
    expected = base.copy()
    np.subtract.at(expected, [0, 0, 4], 1)
    np.testing.assert_array_equal(to_numpy(result), expected)


def test_wider_same_kind_values_are_cast_to_x_dtype(backend_device: ca.Device) -> None:
    x = ca.zeros(3, dtype=ca.float32, device=backend_device)
    y = x.at[0].set(ca.asarray([0.1], dtype=ca.float64, device=backend_device)[0])
    assert y.dtype == ca.float32
    assert to_numpy(y)[0] == np.float32(0.1)


# -- get --------------------------------------------------------------------


@pytest.mark.parametrize(("shape", "index"), INDICES, ids=INDEX_IDS)
def test_get_is_plain_indexing(
    shape: tuple[int, ...], index: Any, backend_device: ca.Device
) -> None:
    base = base_array(shape)
    x = ca.asarray(base, device=backend_device)
    result = x.at[to_ca(index, backend_device)].get()
    assert result.device == backend_device
    np.testing.assert_array_equal(to_numpy(result), base[index])


def test_get_of_a_slice_is_a_lazy_value(backend_device: ca.Device) -> None:
    x = ca.arange(10.0, device=backend_device)
    window = x.at[2:5].get()
    assert ca.shares_buffer(x, window)
    window[0] = -1.0
    assert to_numpy(x)[2] == 2.0


def test_get_fill_returns_fill_value_out_of_bounds(backend_device: ca.Device) -> None:
    x = ca.asarray([10, 20, 30], device=backend_device)
    index = ca.asarray([0, 3, -1, -4, 2], device=backend_device)
    assert to_numpy(x.at[index].get(mode="fill", fill_value=-7)).tolist() == [10, -7, 30, -7, 30]
    default = np.iinfo(np.int64).min
    assert to_numpy(x.at[index].get(mode="fill")).tolist() == [10, default, 30, default, 30]
    assert to_numpy(x.at[index].get(mode="drop")).tolist() == [10, default, 30, default, 30]
    assert np.isnan(float(ca.asarray([1.0], device=backend_device).at[5].get(mode="fill")))
    assert int(x.at[5].get(mode="fill", fill_value=0)) == 0


def test_get_fill_in_two_dimensions_fills_whole_rows(backend_device: ca.Device) -> None:
    base = base_array((3, 2))
    x = ca.asarray(base, device=backend_device)
    result = to_numpy(
        x.at[ca.asarray([2, 9], device=backend_device), :].get(mode="fill", fill_value=0.0)
    )
    np.testing.assert_array_equal(result, [base[2], [0.0, 0.0]])
    result = to_numpy(
        x.at[:, ca.asarray([1, 5], device=backend_device)].get(mode="fill", fill_value=0.0)
    )
    np.testing.assert_array_equal(result, np.stack([base[:, 1], np.zeros(3)], axis=1))


def test_get_clip_clamps_indices(backend_device: ca.Device) -> None:
    x = ca.asarray([10, 20, 30], device=backend_device)
    clipped = x.at[ca.asarray([-9, 1, 9], device=backend_device)].get(mode="clip")
    assert to_numpy(clipped).tolist() == [10, 20, 30]
    assert int(x.at[100].get(mode="clip")) == 30


# -- modes ------------------------------------------------------------------


@pytest.mark.parametrize("method", METHODS)
def test_clip_mode_clamps_out_of_bounds_indices(method: str, backend_device: ca.Device) -> None:
    base = base_array((5,))
    x = ca.asarray(base, device=backend_device)
    result = getattr(x.at[ca.asarray([7, -9, 2], device=backend_device)], method)(2.0, mode="clip")
    np.testing.assert_array_equal(to_numpy(result), model(method, base, [4, 0, 2], 2.0))
    result = getattr(x.at[7], method)(2.0, mode="clip")  # a scalar index: on the GPU
    assert_model_values(result, model(method, base, 4, 2.0), rounds=method == "power")


@pytest.mark.parametrize("mode", ["drop", "fill"])
@pytest.mark.parametrize("method", METHODS)
def test_drop_mode_skips_out_of_bounds_updates(
    method: str, mode: str, backend_device: ca.Device
) -> None:
    base = base_array((5,))
    x = ca.asarray(base, device=backend_device)
    values = np.array([2.0, 3.0, 4.0, 5.0])
    result = getattr(x.at[ca.asarray([7, 1, -9, 1], device=backend_device)], method)(
        ca.asarray(values, device=backend_device), mode=mode
    )
    np.testing.assert_array_equal(to_numpy(result), model(method, base, [1, 1], values[[1, 3]]))
    result = getattr(x.at[7], method)(2.0, mode=mode)
    np.testing.assert_array_equal(to_numpy(result), base)
    np.testing.assert_array_equal(to_numpy(x), base)


def test_drop_mode_in_two_dimensions_filters_values_along_the_advanced_axis(
    backend_device: ca.Device,
) -> None:
    base = base_array((3, 4))
    x = ca.asarray(base, device=backend_device)
    values = np.arange(6.0).reshape(3, 2)
    result = x.at[:, ca.asarray([1, 8], device=backend_device)].set(
        ca.asarray(values, device=backend_device), mode="drop"
    )
    expected = base.copy()
    expected[:, 1] = values[:, 0]
    np.testing.assert_array_equal(to_numpy(result), expected)
    result = x.at[
        ca.asarray([0, 5], device=backend_device), ca.asarray([3, 0], device=backend_device)
    ].add(10.0, mode="drop")
    expected = base.copy()
    expected[0, 3] += 10.0
    np.testing.assert_array_equal(to_numpy(result), expected)


def test_raise_mode_names_the_offending_index_and_changes_nothing(
    backend_device: ca.Device,
) -> None:
    base = base_array((5,))
    x = ca.asarray(base, device=backend_device)
    # cowarray's words on every device (CuPy's own message says "Index", NumPy's
    # "index"), with the modes that are a way out
    for index in (7, ca.asarray([0, 7], device=backend_device), -6):
        with pytest.raises(IndexError, match=r"index -?[67] is out of range for axis 0"):
            x.at[index].add(1.0)
        with pytest.raises(
            IndexError, match=r"x.at\[...\].get: index -?[67] is out of range.*mode='fill'"
        ):
            x.at[index].get()
        with pytest.raises(
            IndexError, match=r"x.at\[...\].apply: index -?[67] is out of range.*mode='drop'"
        ):
            x.at[index].apply(lambda v: v * 10.0)
    np.testing.assert_array_equal(to_numpy(x), base)


@given(
    st.lists(st.integers(-8, 7), max_size=12),
    st.sampled_from(["raise", "clip", "drop"]),
    st.sampled_from(METHODS),
)
@settings(
    max_examples=60,
    deadline=None,
    # backend_device is one immutable Device for every example
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
def test_random_integer_indices_match_the_model(
    backend_device: ca.Device, positions: list[int], mode: str, method: str
) -> None:
    base = base_array((5,))
    x = ca.asarray(base, device=backend_device)
    index = np.array(positions, dtype=np.int64)
    values = np.linspace(0.5, 2.0, len(positions))
    call = getattr(x.at[ca.asarray(index, device=backend_device)], method)
    in_bounds = (index >= -5) & (index < 5)
    if mode == "raise" and not in_bounds.all():
        with pytest.raises(IndexError):
            call(ca.asarray(values, device=backend_device), mode=mode)
    else:
        if mode == "clip":
            clipped = np.clip(np.where(index < 0, index + 5, index), 0, 4)
            expected = model(method, base, clipped, values)
        else:
            expected = model(method, base, index[in_bounds], values[in_bounds])
        result = call(ca.asarray(values, device=backend_device), mode=mode)
        assert_model_values(result, expected, rounds=method in ("add", "subtract", "power"))
    np.testing.assert_array_equal(to_numpy(x), base)


# -- apply ------------------------------------------------------------------


def test_apply_runs_the_function_once_per_occurrence(backend_device: ca.Device) -> None:
    base = np.array([1.0, 2.0, 3.0, 4.0])
    x = ca.asarray(base, device=backend_device)
    result = x.at[ca.asarray([0, 0, 2, 0], device=backend_device)].apply(lambda v: v * 2.0)
    expected = base.copy()
    np.multiply.at(expected, [0, 0, 2, 0], 2.0)
    np.testing.assert_array_equal(to_numpy(result), expected)
    np.testing.assert_array_equal(to_numpy(x), base)


@pytest.mark.parametrize(("shape", "index"), INDICES, ids=INDEX_IDS)
def test_apply_matches_the_unbuffered_ufunc(
    shape: tuple[int, ...], index: Any, backend_device: ca.Device
) -> None:
    base = base_array(shape)
    x = ca.asarray(base, device=backend_device)
    expected = base.copy()
    np.negative.at(expected, index)
    np.testing.assert_array_equal(
        to_numpy(x.at[to_ca(index, backend_device)].apply(ca.negative)), expected
    )
    np.testing.assert_array_equal(to_numpy(x), base)


def test_apply_in_two_dimensions_with_repeated_rows(backend_device: ca.Device) -> None:
    base = base_array((3, 2))
    x = ca.asarray(base, device=backend_device)
    expected = base.copy()
    np.square.at(expected, ([2, 2, 0],))
    result = x.at[ca.asarray([2, 2, 0], device=backend_device)].apply(lambda v: v * v)
    np.testing.assert_array_equal(to_numpy(result), expected)


# -- bad input changes nothing ------------------------------------------------


def bad_calls() -> list[tuple[str, Callable[[ca.Array], object], type[Exception], str]]:
    return [
        ("unknown mode", lambda x: x.at[0].set(1.0, mode="wrap"), ValueError, "mode='wrap'"),
        ("lossy scalar", lambda x: x.at[0].set(1.5), TypeError, "float"),
        (
            "lossy array",
            lambda x: x.at[0].add(ca.asarray(1.5, device=x.device)),
            TypeError,
            "float64",
        ),
        ("out of range", lambda x: x.at[0].set(2**80), OverflowError, "int"),
        ("divide ints", lambda x: x.at[0].divide(2), TypeError, "divide"),
        (
            "negative power",
            lambda x: x.at[0].power(ca.asarray([-1], device=x.device)),
            ValueError,
            "negative",
        ),
        ("fill without mode", lambda x: x.at[9].get(fill_value=0), ValueError, "fill_value"),
        ("lossy fill", lambda x: x.at[9].get(mode="fill", fill_value=0.5), TypeError, "float"),
        ("bad hint", lambda x: x.at[0].set(1, unique_indices=1), TypeError, "unique_indices"),
        ("not callable", lambda x: x.at[0].apply(3), TypeError, "callable"),
        ("shape change", lambda x: x.at[:2].apply(lambda v: v[:1]), ValueError, "shape"),
        ("not an array", lambda x: x.at[:2].apply(lambda v: 1), TypeError, "Array"),
        (
            "bad broadcast",
            lambda x: x.at[:2].set(ca.asarray([1, 2, 3], device=x.device)),
            ValueError,
            "shape",
        ),
        (
            "bad drop broadcast",
            lambda x: x.at[ca.asarray([0, 9], device=x.device)].set(
                ca.asarray([1, 2, 3], device=x.device), mode="drop"
            ),
            ValueError,
            "broadcast",
        ),
        ("bad index", lambda x: x.at[1.5].set(1), IndexError, "1.5"),
        ("two ellipses", lambda x: x.at[..., ...].set(1, mode="clip"), IndexError, "ellipsis"),
        ("too many", lambda x: x.at[0, 0].set(1, mode="clip"), IndexError, "too many"),
        (
            "bad mask",
            lambda x: x.at[ca.asarray([True], device=x.device)].set(1),
            IndexError,
            "boolean",
        ),
        ("other device", lambda x: x.at[0].set(ca.asarray(1, device="cpu:1")), ValueError, "cpu:1"),
    ]


BAD_CALLS = bad_calls()


@pytest.mark.parametrize(
    ("call", "error", "match"), [c[1:] for c in BAD_CALLS], ids=[c[0] for c in BAD_CALLS]
)
def test_bad_input_raises_and_changes_nothing(
    call: Callable[[ca.Array], object],
    error: type[Exception],
    match: str,
    backend_device: ca.Device,
) -> None:
    x = ca.arange(5, device=backend_device)
    clone = ca.lazy_clone(x)
    before = snapshot(x)
    with pytest.raises(error, match=match):
        call(x)
    np.testing.assert_array_equal(to_numpy(x), before)
    assert ca.shares_buffer(x, clone)


def test_mask_of_the_wrong_shape_with_clip_raises(backend_device: ca.Device) -> None:
    x = ca.zeros((2, 3), device=backend_device)
    with pytest.raises(IndexError, match="boolean index of shape"):
        x.at[ca.asarray([True], device=backend_device), 0].set(1.0, mode="clip")
    assert not to_numpy(x).any()


# -- cost ----------------------------------------------------------------------


def test_update_copies_only_the_region_x_views(backend_device: ca.Device) -> None:
    big = ca.zeros(10_000, device=backend_device)
    x = big[100:110]
    cow.COUNTERS.reset()
    y = x.at[ca.asarray([0, 0, 3], device=backend_device)].add(1.0)
    assert (cow.COUNTERS.copies, cow.COUNTERS.bytes_copied) == (1, x.size * 8)
    assert to_numpy(y)[0] == 2.0 and to_numpy(big)[100] == 0.0


def test_update_of_a_temporary_copies_nothing(backend_device: ca.Device) -> None:
    cow.COUNTERS.reset()
    fours = ca.asarray([4, 4], device=backend_device)
    y = ca.move(ca.zeros(1000, device=backend_device)).at[3].set(1.0).at[fours].add(1.0)
    assert (cow.COUNTERS.copies, cow.COUNTERS.bytes_copied) == (0, 0)
    assert to_numpy(y)[3:5].tolist() == [1.0, 2.0]


@pytest.mark.parametrize(
    ("dtype", "values"),
    [
        ("bool", [True, False]),
        ("int64", [3, -(2**63), 2**63 - 1]),
        ("uint8", [0, 255]),
        ("float32", [1.5, 2]),
        ("float64", [1.5, 2, -0.0, float("nan")]),
        ("complex128", [1j, 2.5, 3]),
    ],
)
@pytest.mark.parametrize("shape", [(5,), (3, 4)])
def test_scalar_updates_of_moved_and_temporary_arrays_match_the_model(
    dtype: str, values: list[Any], shape: tuple[int, ...], backend_device: ca.Device
) -> None:
    # The scalar store of an array nothing else sees (_at._store_taken) and
    # the general path give NumPy's ``out[i] = v``, without a copy.
    base = np.arange(np.prod(shape)).reshape(shape).astype(dtype)
    expected = base.copy()
    x = ca.asarray(base, device=backend_device)
    kept = ca.lazy_clone(x)
    y = ca.move(ca.asarray(base, device=backend_device))
    cow.COUNTERS.reset()
    for i, value in enumerate(values):
        index = [0, -1, 1, -2][i % 4]
        expected[index] = value
        # the second update is of a temporary: in place as well
        y = ca.move(y).at[index].set(value).at[index].set(value)
    assert cow.COUNTERS.copies == 0
    np.testing.assert_array_equal(to_numpy(y), expected)
    assert to_numpy(y).dtype == np.dtype(dtype)
    # A held array is a value: its update copies once, and it keeps its values.
    z = x.at[0].set(values[0])
    assert cow.COUNTERS.copies == 1
    np.testing.assert_array_equal(to_numpy(x), base)
    np.testing.assert_array_equal(to_numpy(kept), base)
    expected = base.copy()
    expected[0] = values[0]
    np.testing.assert_array_equal(to_numpy(z), expected)


def test_update_of_a_held_temporary_buffer_copies_once(backend_device: ca.Device) -> None:
    # The temporary's buffer is shared with `keep`: one materialization.
    keep = ca.zeros(100, device=backend_device)
    cow.COUNTERS.reset()
    y = ca.lazy_clone(keep).at[0].set(5.0)
    assert (cow.COUNTERS.copies, cow.COUNTERS.bytes_copied) == (1, 800)
    assert float(keep[0]) == 0.0 and float(y[0]) == 5.0


def test_a_kept_at_object_keeps_x_a_value(backend_device: ca.Device) -> None:
    x = ca.zeros(4, device=backend_device)
    at = x.at[0]
    del x
    y = at.set(1.0)
    assert float(at.array[0]) == 0.0 and float(y[0]) == 1.0
    assert float(at.add(2.0)[0]) == 2.0


def test_python_lists_and_numpy_values_are_accepted(backend_device: ca.Device) -> None:
    base = base_array((5,))
    x = ca.asarray(base, device=backend_device)
    np.testing.assert_array_equal(to_numpy(x.at[[]].add(1.0)), base)
    np.testing.assert_array_equal(
        to_numpy(x.at[[0, 0, 4]].add([1.0, 2.0, 3.0])), model("add", base, [0, 0, 4], [1, 2, 3])
    )
    np.testing.assert_array_equal(
        to_numpy(x.at[1:3].set(np.array([7.0, 8.0]))), model("set", base, slice(1, 3), [7, 8])
    )
    np.testing.assert_array_equal(to_numpy(x.at[[]].get(mode="fill")), base[[]])


def test_zero_dimensional_arrays_update_and_get(backend_device: ca.Device) -> None:
    x = ca.asarray(3.0, device=backend_device)
    assert float(x.at[()].add(1.0)) == 4.0
    assert float(x.at[...].get()) == 3.0
    assert float(x) == 3.0
    with pytest.raises(IndexError):
        x.at[0].set(1.0)


def test_fill_and_drop_on_an_empty_axis(backend_device: ca.Device) -> None:
    x = ca.zeros((0,), device=backend_device)
    filled = x.at[ca.asarray([0, 1], device=backend_device)].get(mode="fill", fill_value=2.0)
    assert to_numpy(filled).tolist() == [2.0, 2.0]
    assert float(x.at[0].get(mode="fill", fill_value=3.0)) == 3.0
    assert x.at[ca.asarray([0, 1], device=backend_device)].add(1.0, mode="drop").shape == (0,)
    with pytest.raises(IndexError, match="size 0"):
        x.at[0].get(mode="clip")
