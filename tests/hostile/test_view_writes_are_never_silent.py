"""A write NumPy would have shown in another array warns (docs/design.md rule 1).

Each case is run against NumPy itself: where NumPy's write would reach an
array that is still alive and cowarray's does not, a ViewWriteWarning must
name the line; where the results agree, nothing may warn. Attacks: augmented
assignment on subscripts (which Python runs as a read, an in-place write to
a temporary view and a write-back), chained assignment, views of views, a
dead base, explicit values, and bad input.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _attack import host

import cowarray as ca


def _run(body: Callable[[Any], Any]) -> tuple[list[warnings.WarningMessage], Any]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = body(ca)
        ca.zeros(1)  # the next operation reports a held-back write
    return [w for w in caught if w.category is ca.ViewWriteWarning], result


def _view_write_through_a_name(xp: Any) -> Any:
    x = xp.zeros((2, 3))
    v = x[0]
    v += 1
    return x


def _chained_assignment(xp: Any) -> Any:
    x = xp.zeros((2, 3))
    x[0][:] = 5
    return x


def _view_of_a_view(xp: Any) -> Any:
    x = xp.zeros((3, 4))
    inner = x[1:][:, 1:]
    inner[0, 0] = 2.0
    return x


def _transposed_view(xp: Any) -> Any:
    x = xp.zeros((2, 3))
    t = x.T
    t[0, 1] = 3.0
    return x


def _augmented_assignment_on_a_row(xp: Any) -> Any:
    x = xp.zeros((2, 3))
    x[0] += 1
    x[:, 1] *= 4
    return x


def _write_back_through_a_name(xp: Any) -> Any:
    x = xp.ones((2, 3))
    v = x[1]
    v *= 3
    x[1] = v
    return x


def _augmented_assignment_on_a_view_of_a_dead_base(xp: Any) -> Any:
    x = xp.ones((4, 3)).T
    x[0] *= 2
    return x


def _copy_between_columns(xp: Any) -> Any:
    x = xp.reshape(xp.arange(6.0), (2, 3))
    x[:, 0] = x[:, 2]
    return x


def _explicit_value(xp: Any) -> Any:
    x = xp.zeros((2, 3))
    v = ca.lazy_clone(x[0]) if xp is ca else x[0].copy()
    v += 1
    v[0] = 9
    return x


def _writing_the_base_while_views_live(xp: Any) -> Any:
    x = xp.zeros((2, 3))
    row = x[0]
    x[1, 1] = 5.0
    return x, row


@pytest.mark.parametrize(
    "body",
    [_view_write_through_a_name, _chained_assignment, _view_of_a_view, _transposed_view],
)
def test_a_write_numpy_would_propagate_warns_and_names_the_line(body: Any) -> None:
    caught, result = _run(body)
    expected = body(np)
    assert not np.array_equal(np.asarray(result, copy=True), expected)  # NumPy differs...
    assert len(caught) == 1  # ...so it was loud, once
    assert caught[0].filename == __file__
    assert "lazy_clone" in str(caught[0].message) and "compatibility" in str(caught[0].message)


@pytest.mark.parametrize(
    "body",
    [
        _augmented_assignment_on_a_row,
        _write_back_through_a_name,
        _augmented_assignment_on_a_view_of_a_dead_base,
        _copy_between_columns,
        _explicit_value,
    ],
)
def test_writes_whose_result_is_numpys_never_warn(body: Any) -> None:
    caught, result = _run(body)
    np.testing.assert_array_equal(np.asarray(result, copy=True), body(np))
    assert caught == []


def _writes_through_views_again(xp: Any) -> Any:
    x = xp.zeros((3, 4))
    v = x[1]
    v[0] = 1.0
    v[1] = 2.0  # v is private by now: its writes could skip the core
    m = x[1:]
    m[0, 2] = 3.0
    m[0, 3] = 4.0
    t = x[0]
    t += 1
    t += 1
    return x


def test_every_write_through_a_view_warns_not_only_the_first() -> None:
    # The first write copies the view's memory, and later scalar writes of
    # a private array skip the core: not those of a view, which must warn.
    caught, result = _run(_writes_through_views_again)
    assert not np.array_equal(np.asarray(result, copy=True), _writes_through_views_again(np))
    lines = [w.lineno for w in caught]
    assert len(lines) == 6 and len(set(lines)) == 6, lines


def _a_view_that_outlives_its_family(xp: Any) -> Any:
    v = xp.zeros((3, 4))[1]  # its base dies at once
    v[0] = 1.0
    v[1] = 2.0  # no other array sees this in NumPy either: silent, and fast
    w = v[2:]
    v[3] = 3.0  # w would see this in NumPy: warns
    return v, w


def test_a_view_warns_again_once_a_view_of_it_lives() -> None:
    # A view whose family died gets the unchecked scalar write back; a new
    # view of it must take that away again, or its writes go silent.
    caught, (v, w) = _run(_a_view_that_outlives_its_family)
    source, first = inspect.getsourcelines(_a_view_that_outlives_its_family)
    warns = first + next(i for i, line in enumerate(source) if line.endswith("warns\n"))
    assert [c.lineno for c in caught] == [warns]
    assert host(v).tolist() == [1.0, 2.0, 0.0, 3.0] and host(w).tolist() == [0.0, 0.0]
    assert _a_view_that_outlives_its_family(np)[1].tolist() == [0.0, 3.0]  # NumPy's w


def test_writing_the_base_while_a_view_lives_does_not_warn() -> None:
    # cowarray code does this all the time; the row keeps its value (rule 1)
    caught, (x, row) = _run(_writing_the_base_while_views_live)
    assert caught == []
    assert float(x[1, 1]) == 5.0 and float(ca.sum(row)) == 0.0


def test_the_warning_can_be_an_error_and_then_it_stops_the_write() -> None:
    # The warning comes at the line that wrote (issue 25, item 10), before
    # the write: as an error it leaves the view as it was.
    x = ca.zeros((2, 3))
    v = x[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error", ca.ViewWriteWarning)
        with pytest.raises(ca.ViewWriteWarning):
            v += 1
        ca.sum(x)  # nothing left over for the next operation
    assert float(ca.sum(x)) == 0.0 and float(ca.sum(v)) == 0.0


def test_a_failed_write_to_a_view_changes_nothing_and_does_not_warn() -> None:
    x = ca.zeros((2, 3))
    v = x[0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(TypeError):
            v[0] = "text"  # type: ignore[call-overload]
        with pytest.raises(TypeError):
            v += 1j
        ca.zeros(1)
    assert [w for w in caught if w.category is ca.ViewWriteWarning] == []
    assert ca.shares_buffer(x, v)


def test_a_view_write_in_a_thread_is_reported_with_its_line() -> None:
    import threading

    x = ca.zeros((2, 3))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")

        def write() -> None:
            v = x[1]
            v[0] = 1.0
            ca.zeros(1)

        thread = threading.Thread(target=write)
        thread.start()
        thread.join()
    assert [w.filename for w in caught if w.category is ca.ViewWriteWarning] == [__file__]


def test_a_write_through_a_numpy_export_of_a_view_is_reported_at_the_export_line() -> None:
    # SciPy's ndimage does np.asarray(output) and writes there, with
    # output=out[i] a view: NumPy's out changes, cowarray's cannot.
    from cowarray._deaths import watched

    watched_before = watched()
    out = ca.zeros((2, 3))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")

        def write_through_numpy(output: ca.Array) -> None:
            target = np.asarray(output)  # the line to name
            target[...] = 7.0

        write_through_numpy(out[1])
        ca.zeros(1)
    found = [w for w in caught if w.category is ca.ViewWriteWarning]
    assert len(found) == 1 and "np.asarray" in str(found[0].message)
    assert (found[0].filename, found[0].lineno) == (
        __file__,
        write_through_numpy.__code__.co_firstlineno + 1,
    )
    assert float(ca.sum(out)) == 0.0  # out kept its value: only loudness changed
    assert watched() == watched_before  # the report keeps no frame, so no export, alive


@pytest.mark.parametrize(
    "export",
    [
        pytest.param(lambda out: np.asarray(out[1]).sum(), id="read-only use of a view"),
        pytest.param(lambda out: np.asarray(ca.lazy_clone(out[1])).fill(7.0), id="a value"),
        pytest.param(lambda out: np.asarray(out).fill(7.0), id="the array itself"),
    ],
)
def test_numpy_exports_that_numpy_would_not_propagate_do_not_warn(export: Any) -> None:
    out = ca.zeros((2, 3))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        export(out)
        ca.zeros(1)
    assert [w for w in caught if w.category is ca.ViewWriteWarning] == []
