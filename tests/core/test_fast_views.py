"""The fast paths of the view operations give what the full paths give (rule 1).

``x.T``, ``x[a:b]``, ``reshape(x, shape)`` and ``x.reshape(...)`` each have a
short path for their common call (cowarray/_array.py: the lock-free join
inlined; ``reshape_view`` for a tuple shape and ``copy=None``). Each case
here is computed twice, once through the fast path and once through the full
one (a list for the shape, ``order="K"``, an explicit tuple key), and the two
must agree on values, sharing, state, errors and the view-write warning.
The attacks on the fast paths are in tests/hostile/test_fast_views_never_alias.py.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import cowarray as ca


def _source(shared: bool, contiguous: bool = True) -> ca.Array:
    x = ca.asarray(np.arange(24.0).reshape(4, 6))
    if not contiguous:
        x = ca.permute_dims(x, (1, 0))
    if shared:
        _ = x[0:1]  # x has a sharing record: the lock-free path applies
    return x


def _assert_same_result(fast: ca.Array, full: ca.Array, x: ca.Array) -> None:
    np.testing.assert_array_equal(np.array(fast), np.array(full))
    assert fast.shape == full.shape and fast.dtype == full.dtype
    assert ca.shares_buffer(fast, x) == ca.shares_buffer(full, x)
    assert ca.cow_info(fast).state == ca.cow_info(full).state


def _warns_on_write(view: ca.Array) -> bool:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        view[(0,) * view.ndim] = -1.0
        _ = ca.sum(view)  # the next operation reports a held-back write
    return any(issubclass(w.category, ca.ViewWriteWarning) for w in caught)


RESHAPES = [(6, 4), (24,), (-1,), (2, -1), (2, 3, 4), (1, 24, 1), (3, -1, 2)]


@pytest.mark.parametrize("shape", RESHAPES, ids=str)
@pytest.mark.parametrize("shared", [False, True], ids=["private", "shared"])
@pytest.mark.parametrize("contiguous", [True, False], ids=["view", "copy"])
def test_reshape_of_a_tuple_is_what_the_full_path_gives(
    shape: tuple[int, ...], shared: bool, contiguous: bool
) -> None:
    x = _source(shared, contiguous)
    full = ca.reshape(x, list(shape))  # a list takes the full path
    fast = ca.reshape(x, shape)
    _assert_same_result(fast, full, x)
    method = x.reshape(*shape)
    method_tuple = x.reshape(shape)
    method_full = x.reshape(*shape, order="K")  # order="K" takes the full path
    _assert_same_result(method, method_full, x)
    _assert_same_result(method_tuple, method_full, x)
    np.testing.assert_array_equal(np.array(fast), np.reshape(np.array(x), shape))


@pytest.mark.parametrize("shape", [(6, 4), (-1,), (2, 3, 4)], ids=str)
def test_a_reshaped_view_is_a_value_and_its_write_warns_as_before(shape: tuple[int, ...]) -> None:
    for make in (
        lambda x: ca.reshape(x, shape),
        lambda x: ca.reshape(x, list(shape)),
        lambda x: x.reshape(*shape),
    ):
        x = _source(shared=True)
        before = np.array(x)
        r = make(x)
        assert _warns_on_write(r), "a write to a reshaped view of a live array warns"
        np.testing.assert_array_equal(np.array(x), before)
        x[0, 0] = 100.0
        assert float(r.reshape(-1)[0]) == -1.0


BAD_SHAPES: list[tuple[Any, ...]] = [
    (-2, 12),
    (5, 5),
    (-1, -1),
    (2.0, 12),
    (True, 24),
    (None,),
    ("4", 6),
    (-3,),
]


@pytest.mark.parametrize("shape", BAD_SHAPES, ids=str)
def test_a_shape_the_fast_path_does_not_take_fails_as_the_full_path_does(
    shape: tuple[Any, ...],
) -> None:
    x = _source(shared=True)

    def outcome(call: Callable[[], ca.Array]) -> tuple[str, str] | list[float]:
        try:
            return np.array(call()).ravel().tolist()
        except Exception as error:  # the type and the words must match
            return type(error).__name__, str(error)

    assert outcome(lambda: ca.reshape(x, shape)) == outcome(lambda: ca.reshape(x, list(shape)))
    assert outcome(lambda: x.reshape(*shape)) == outcome(lambda: x.reshape(*shape, order="K"))
    assert outcome(lambda: x.reshape(shape)) == outcome(lambda: x.reshape(shape, order="K"))


def test_integer_like_entries_reshape_as_integers() -> None:
    x = _source(shared=True)
    for shape in [(np.int64(6), 4), (ca.asarray(6), np.int32(-1))]:
        assert ca.reshape(x, shape).shape == (6, 4)
        assert x.reshape(*shape).shape == (6, 4)
        assert ca.shares_buffer(ca.reshape(x, shape), x)


def test_reshape_to_a_scalar_shape() -> None:
    x = ca.asarray([7.0])
    assert ca.reshape(x, ()).shape == () and float(x.reshape(())) == 7.0
    assert x.item() == 7.0


@pytest.mark.parametrize("shared", [False, True], ids=["private", "shared"])
def test_transpose_and_slices_are_what_the_full_path_gives(shared: bool) -> None:
    x = _source(shared)
    _assert_same_result(x.T, ca.permute_dims(x, (1, 0)), x)
    _assert_same_result(x[1:3], x[(slice(1, 3),)], x)  # a tuple key takes the full path
    _assert_same_result(x[::-2], x[(slice(None, None, -2),)], x)
    y = ca.asarray(np.arange(10.0))
    if shared:
        _ = y[0:1]
    _assert_same_result(y[1:5], y[(slice(1, 5),)], y)


@pytest.mark.parametrize(
    "take",
    [lambda x: x.T, lambda x: x[1:3], lambda x: ca.reshape(x, (6, 4)), lambda x: x.reshape(-1)],
    ids=["x.T", "x[1:3]", "reshape", "x.reshape"],
)
def test_a_fast_view_of_a_view_stays_in_its_family_and_warns(take: Callable[[Any], Any]) -> None:
    x = _source(shared=True)
    view = x[0:4]
    second = take(view)
    assert ca.shares_buffer(second, x)
    assert _warns_on_write(second)
    assert float(x[0, 0]) == 0.0 and float(view[0, 0]) == 0.0


def test_fast_views_are_traced_as_shares() -> None:
    x = _source(shared=True)
    with ca.trace() as events:
        views = [x.T, x[1:3], ca.reshape(x, (6, 4)), x.reshape(-1)]
    shares = [e for e in events.events if e.kind == "share"]
    assert len(shares) == len(views)


def test_a_held_back_view_write_is_reported_by_the_next_transpose() -> None:
    # Every view reports held-back view-write warnings before it is made,
    # the inlined transpose too (it did not, and they came later). A write
    # through a NumPy export of a view is found when the export is released,
    # and waits for this thread's next operation.
    other = ca.ones((2, 2))
    _ = other.T  # the record exists: the next .T takes the inlined path
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        x = ca.zeros((2, 3))
        row = np.asarray(x[0])
        row += 1  # NumPy would change x too
        del row  # the release: the write is found here, reported later
        held = [w for w in caught if issubclass(w.category, ca.ViewWriteWarning)]
        _ = other.T
        reported = [w for w in caught if issubclass(w.category, ca.ViewWriteWarning)]
    assert not held and reported, (held, reported)
