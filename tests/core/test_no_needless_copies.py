"""Copies NumPy would not make (design rule 12): a write whose value shares the
written buffer copies the value, never the buffer. Checked with the copy
counters and against a NumPy model with eager copies."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _patching import BackendPatch

import cowarray as ca
from cowarray._core import cow

N = 64
ITEM = 8


def _grid() -> tuple[ca.Array, np.ndarray]:
    model = np.arange(N * N, dtype=np.float64).reshape(N, N)
    return ca.asarray(model), model.copy()


# (write, what it copies in bytes: nothing when the value's elements and the
# written ones are disjoint, else the value's region; never the N*N buffer)
_SELF_READS: dict[str, tuple[Callable[[Any], None], int]] = {
    "u[0] = u[1]": (lambda u: u.__setitem__(0, u[1]), 0),
    "u[:, 0] = u[:, 1]": (lambda u: u.__setitem__((slice(None), 0), u[:, 1]), 0),
    "u[0] = u[-1]": (lambda u: u.__setitem__(0, u[-1]), 0),
    "u[1:3] = u[2:4] (overlapping)": (
        lambda u: u.__setitem__(slice(1, 3), u[2:4]),
        2 * N * ITEM,
    ),
    "u[::2] = u[1::2]": (lambda u: u.__setitem__(slice(None, None, 2), u[1::2]), 0),
    "u[:] = u.T": (lambda u: u.__setitem__(slice(None), u.T), N * N * ITEM),
    "u[1:3] = u[1:3] (the same elements)": (lambda u: u.__setitem__(slice(1, 3), u[1:3]), 0),
}


@pytest.mark.parametrize("spelling", list(_SELF_READS))
def test_a_write_that_reads_its_own_buffer_copies_only_what_it_reads(
    spelling: str, copies: Any
) -> None:
    write, expected_bytes = _SELF_READS[spelling]
    u, model = _grid()
    copies.reset()
    write(u)
    write(model)  # NumPy handles the overlap itself
    np.testing.assert_array_equal(np.asarray(u), model)
    assert copies.snapshot() == ((1 if expected_bytes else 0), expected_bytes)


def test_a_disjoint_value_that_outlives_the_write_keeps_its_values(copies: Any) -> None:
    # ``row`` goes on sharing u's memory: the write is in place beside it
    u, model = _grid()
    row = u[1]
    copies.reset()
    u[0] = row
    model[0] = model[1]
    assert copies.snapshot() == (0, 0)
    np.testing.assert_array_equal(np.asarray(u), model)
    np.testing.assert_array_equal(np.asarray(row), np.arange(N, 2 * N, dtype=np.float64))
    row[0] = -1.0  # row still shares u's memory: its own write copies, u keeps its values
    np.testing.assert_array_equal(np.asarray(u), model)
    u[1] = 7.0  # and u's write of the elements row sees copies too
    assert np.asarray(row)[1] == N + 1


def test_the_value_read_keeps_its_values_when_it_outlives_the_write(copies: Any) -> None:
    u, model = _grid()
    row = u[1]
    u[1] = u[2]  # row still holds the buffer: u must copy, row must not change
    model[1] = model[2]
    np.testing.assert_array_equal(np.asarray(row), np.arange(N, 2 * N, dtype=np.float64))
    np.testing.assert_array_equal(np.asarray(u), model)


def test_a_clone_of_the_written_array_never_sees_a_self_reading_write() -> None:
    u, model = _grid()
    snapshot = ca.lazy_clone(u)
    u[0] = u[1]
    model[0] = model[1]
    np.testing.assert_array_equal(np.asarray(u), model)
    np.testing.assert_array_equal(
        np.asarray(snapshot), np.arange(N * N, dtype=np.float64).reshape(N, N)
    )


def test_a_self_reading_write_of_the_sole_holder_writes_in_place() -> None:
    u, _ = _grid()
    before = ca.cow_info(u).buffer_id if hasattr(ca.cow_info(u), "buffer_id") else None
    data = u._data
    u[0] = u[1]
    assert u._data is data  # the same memory: nothing but the row was copied
    if before is not None:
        assert ca.cow_info(u).buffer_id == before


def test_a_failed_self_reading_write_changes_nothing() -> None:
    u, model = _grid()
    with pytest.raises(ValueError, match="shape"):
        u[0] = u[1:3]  # (2, N) into (N,)
    np.testing.assert_array_equal(np.asarray(u), model)


def test_the_trace_shows_the_value_copy_at_the_users_line() -> None:
    u, _ = _grid()
    with ca.trace() as seen:
        u[1:3] = u[2:4]
    line = test_the_trace_shows_the_value_copy_at_the_users_line.__code__.co_firstlineno + 3
    assert [(e.kind, e.nbytes) for e in seen.events] == [
        ("share", 0),  # u[2:4] joins u's buffer
        ("materialize", 2 * N * ITEM),  # the overlapping value copies its rows
        ("takeover", 0),  # u, the sole holder now, writes in place
    ]
    assert {(e.filename, e.lineno) for e in seen.events} == {(__file__, line)}


def test_copy_counters_match_the_core() -> None:
    # (the fixture and the public counters are the same totals)
    cow.COUNTERS.reset()
    u, _ = _grid()
    cow.COUNTERS.reset()
    u[1:3] = u[2:4]
    assert cow.COUNTERS.snapshot()[1] == 2 * N * ITEM


_NUMPY_VIEWS: dict[str, Callable[[Any], Any]] = {
    "np.transpose": np.transpose,
    "np.squeeze": lambda a: np.squeeze(a[None]),
    "np.moveaxis": lambda a: np.moveaxis(a, 0, 1),
    "np.swapaxes": lambda a: np.swapaxes(a, 0, 1),
    "np.ravel": np.ravel,
    "np.reshape": lambda a: np.reshape(a, (N // 2, 2 * N)),
    "np.expand_dims": lambda a: np.expand_dims(a, 0),
    "np.flip": lambda a: np.flip(a, 0),
}


@pytest.mark.parametrize("name", list(_NUMPY_VIEWS))
def test_a_numpy_view_of_a_temporary_writes_in_place_as_x_T_does(name: str, copies: Any) -> None:
    # The NumPy function sees a read-only stand-in of its input; the view it
    # returns used to stay read-only, so its first write copied everything.
    view = _NUMPY_VIEWS[name](_grid()[0])  # its source is gone: the view is the sole holder
    data = view._data
    copies.reset()
    view[(0,) * view.ndim] = -1.0
    assert copies.snapshot() == (0, 0)
    assert view._data is data


@pytest.mark.parametrize("name", list(_NUMPY_VIEWS))
def test_a_numpy_view_of_a_live_array_copies_and_leaves_it_alone(name: str) -> None:
    u, model = _grid()
    view = _NUMPY_VIEWS[name](u)
    view[(0,) * view.ndim] = -1.0
    np.testing.assert_array_equal(np.asarray(u), model)
    assert float(view[(0,) * view.ndim]) == -1.0


def test_a_broadcast_view_from_numpy_stays_read_only_and_copies_on_write(copies: Any) -> None:
    view = np.broadcast_to(ca.arange(3.0), (2, 3))
    view[0, 0] = 5.0  # one element, not a whole broadcast row
    assert view.tolist() == [[5.0, 1.0, 2.0], [0.0, 1.0, 2.0]]


def test_a_moved_update_after_its_views_died_writes_in_place(copies: Any) -> None:
    # The views made a sharing record; once they are gone, the update of the
    # moved array is the sole holder's (found by benchmarks/workloads.py:
    # a reference the update held to the record counted as a second holder).
    u = ca.zeros(100)
    change = u[2:] - u[:-2]  # two views, dead after the expression
    copies.reset()
    u = ca.move(u).at[1:-1].add(change + 1.0)
    assert copies.snapshot() == (0, 0)
    assert u.tolist() == [0.0] + [1.0] * 98 + [0.0]


def test_a_moved_update_whose_value_views_it_copies_only_the_value(copies: Any) -> None:
    u, model = _grid()
    top = u[1]
    copies.reset()
    u = ca.move(u).at[0].set(top)
    model[0] = model[1]
    assert copies.snapshot() == (1, N * ITEM)
    np.testing.assert_array_equal(np.asarray(u), model)
    np.testing.assert_array_equal(np.asarray(top), model[1])


def test_a_functional_update_from_its_own_view_keeps_the_old_array() -> None:
    u, model = _grid()
    updated = u.at[0].set(u[1])
    np.testing.assert_array_equal(np.asarray(u), model)
    model[0] = model[1]
    np.testing.assert_array_equal(np.asarray(updated), model)


_NOTHING_SELECTED: dict[str, Callable[[Any], None]] = {
    "a[isnan(a)] = 0.0": lambda a: a.__setitem__(a != a, 0.0),
    "a[a > big] = big": lambda a: a.__setitem__(a > 1e9, 1e9),
    "a[[]] = 1.0": lambda a: a.__setitem__([], 1.0),
    "a[empty int array] = values": lambda a: a.__setitem__(
        ca.asarray([], dtype=ca.int64), ca.zeros((0, N))
    ),
}


@pytest.mark.parametrize("spelling", list(_NOTHING_SELECTED))
def test_a_write_that_selects_nothing_copies_nothing(spelling: str, copies: Any) -> None:
    # A defensive copy (a = a.copy()) then a masked clean-up that matches
    # nothing: NumPy paid for the copy; cowarray's clone stays shared.
    source, model = _grid()
    a = source.copy()
    copies.reset()
    _NOTHING_SELECTED[spelling](a)
    assert copies.snapshot() == (0, 0)
    assert ca.shares_buffer(a, source)
    np.testing.assert_array_equal(np.asarray(a), model)


@pytest.mark.parametrize(
    ("write", "error"),
    [
        (lambda a: a.__setitem__(ca.zeros(3, dtype=ca.bool), 1.0), IndexError),
        (lambda a: a.__setitem__(ca.zeros((N, N), dtype=ca.bool), ca.ones(3)), ValueError),
        (lambda a: a.__setitem__(ca.zeros((N, N), dtype=ca.bool), "x"), TypeError),
    ],
)
def test_a_write_that_selects_nothing_still_checks_its_index_and_value(
    write: Callable[[Any], None], error: type[Exception]
) -> None:
    a, model = _grid()
    with pytest.raises(error):
        write(a)
    np.testing.assert_array_equal(np.asarray(a), model)


# -- an in-place operator on a shared array: the new values in one pass ----------

#: Big enough for the in-place path (cowarray._core.IN_PLACE_MIN_SIZE).
ROWS = 1 << 11

_ROW = np.linspace(1.0, 2.0, 64)
_COLUMN = np.arange(1.0, ROWS + 1.0)[:, None]

#: spelling -> (what ``a`` is, given x and its namespace; the operator)
_SHARED_IN_PLACE: dict[str, tuple[Callable[[Any], Any], Callable[[Any, Any], Any]]] = {
    "a -= row": (lambda x: x.copy(), lambda a, row: a.__isub__(row)),
    "a *= 2.5": (lambda x: x.copy(), lambda a, row: a.__imul__(2.5)),
    "a /= column": (lambda x: x.copy(), lambda a, column: a.__itruediv__(column)),
    "a += a (itself)": (lambda x: x.copy(), lambda a, _: a.__iadd__(a)),
    "a = x.copy().T; a -= 1.0 (a transposed clone)": (
        lambda x: x.copy().T,
        lambda a, _: a.__isub__(1.0),
    ),
}


@pytest.fixture
def whole_copies(backend_patch: BackendPatch) -> list[int]:
    """One entry for each call of the CPU backend's ``copy`` (a copy of old
    values; a one-pass write computes its new memory without one)."""
    backend = ca.asarray(0.0).device.backend
    calls: list[int] = []
    real_copy = backend.copy
    backend_patch.setattr(backend, "copy", lambda data: calls.append(1) or real_copy(data))
    return calls


@pytest.mark.parametrize("spelling", list(_SHARED_IN_PLACE))
def test_an_in_place_operator_on_a_shared_array_computes_the_copy_in_one_pass(
    spelling: str, copies: Any, whole_copies: list[int]
) -> None:
    # ``a = x.copy(); a -= m``, NumPy's defensive idiom: NumPy copies, then
    # subtracts; the lazy copy is written as ``x - m`` into new memory, once.
    make, operate = _SHARED_IN_PLACE[spelling]
    operand = _COLUMN if "column" in spelling else _ROW
    model = np.arange(ROWS * 64, dtype=np.float64).reshape(ROWS, 64)
    x = ca.asarray(model.copy())
    a, expected = make(x), make(model.copy())
    given = ca.asarray(operand)
    whole_copies.clear()
    copies.reset()
    operate(a, given)
    operate(expected, operand)
    assert copies.snapshot() == (1, model.nbytes)  # the trace still shows the new memory
    assert whole_copies == []  # no copy of a's old values before the operator
    assert not ca.shares_buffer(a, x)
    np.testing.assert_array_equal(np.asarray(a), expected)
    np.testing.assert_array_equal(np.asarray(x), model)  # the other holder: untouched


@pytest.mark.parametrize("layout", ["C-ordered", "transposed"])
def test_a_slice_written_back_into_a_shared_array_copies_the_array_once(
    layout: str, copies: Any, whole_copies: list[int]
) -> None:
    # ``u = x.copy()`` then ``u[1:-1] -= row``: u's memory is x's, so u and
    # its slice move onto one copy of u, and the slice is written there in
    # place: the copy NumPy's ``x.copy()`` made, and no other (it was the
    # slice's new values in new memory, then a copy of u: two). A transposed
    # u copies into another order, where the backend does not view the
    # slice again: its new values go into new memory computed in one pass
    # (no copy of its old values first), then u takes memory of its own.
    values = np.arange(ROWS * 64, dtype=np.float64)
    if layout == "C-ordered":
        model, x = values.reshape(ROWS, 64), ca.asarray(values.reshape(ROWS, 64))
    else:
        model, x = values.reshape(64, ROWS).T, ca.asarray(values.reshape(64, ROWS)).T
    u = x.copy()
    row = ca.asarray(_ROW)
    whole_copies.clear()
    copies.reset()
    u[1:-1] -= row
    expected = model.copy()
    expected[1:-1] -= _ROW
    assert whole_copies == [1]  # u's own memory (the slice's values: derived or in place)
    derived = 0 if layout == "C-ordered" else model[1:-1].nbytes
    assert copies.snapshot() == (1 + bool(derived), derived + model.nbytes)
    np.testing.assert_array_equal(np.asarray(u), expected)
    np.testing.assert_array_equal(np.asarray(x), model)


@pytest.mark.parametrize(
    ("dtype", "operate", "error"),
    [
        (np.uint8, lambda a: a.__iadd__(300), OverflowError),
        (np.int16, lambda a: a.__iadd__(ca.ones(5, dtype=ca.int16)), ValueError),
        (np.float32, lambda a: a.__iadd__(ca.ones(64, dtype=ca.float64)), TypeError),
        (np.int32, lambda a: a.__itruediv__(2), TypeError),
    ],
)
def test_a_refused_in_place_operator_on_a_shared_array_changes_nothing(
    dtype: Any, operate: Callable[[Any], Any], error: type[Exception], copies: Any
) -> None:
    model = np.ones((ROWS, 64), dtype=dtype)
    x = ca.ones((ROWS, 64), dtype=getattr(ca, np.dtype(dtype).name))
    a = x.copy()
    assert ca.shares_buffer(a, x)
    copies.reset()
    with pytest.raises(error):
        operate(a)
    assert ca.shares_buffer(a, x)  # (before the NumPy exports below, which copy)
    assert copies.snapshot() == (0, 0)
    np.testing.assert_array_equal(np.asarray(a), model)
    np.testing.assert_array_equal(np.asarray(x), model)


def test_an_in_place_operator_on_a_shared_array_keeps_its_dtype() -> None:
    x = ca.ones((ROWS, 64), dtype=ca.float32)
    a = x.copy()
    a *= 3.0  # a Python float is weak: float32 stays float32
    assert a.dtype == ca.float32
    assert float(a[5, 5]) == 3.0 and float(x[5, 5]) == 1.0
