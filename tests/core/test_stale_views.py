"""A view used after the array it views was written warns (rule 1): NumPy
would show the write in the view, cowarray's view keeps its values.

The model is NumPy's: a use warns exactly where NumPy's view would show
other values than cowarray's, at the line that uses it, naming the line that
wrote; nowhere else. The values are always cowarray's (every array a value).
"""

from __future__ import annotations

import gc
import sys
import textwrap
import threading
import warnings
from typing import Any

import numpy as np
import pytest

import cowarray as ca
from cowarray._core import PENDING, families


@pytest.fixture(autouse=True)
def _fresh_watches() -> Any:
    families._watches_started.clear()
    yield
    families._watches_started.clear()
    del PENDING[:]


def _caught(run: Any) -> list[warnings.WarningMessage]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run()
    return [w for w in caught if issubclass(w.category, ca.StaleViewWarning)]


def _program(source: str) -> dict[str, Any]:
    """Run ``source`` as a function body (a user's code: its own file name)."""
    namespace: dict[str, Any] = {"ca": ca, "np": np}
    body = "".join(f"    {line}\n" for line in textwrap.dedent(source).strip().splitlines())
    exec(compile(f"def program():\n{body}    return locals()\n", "<program>", "exec"), namespace)
    return namespace


def test_the_newcomer_s_case_warns_at_the_use_naming_the_write() -> None:
    namespace = _program(
        """
        V = ca.zeros(8)
        center = V[2:5]
        V += 1.0
        total = float(center.sum())
        """
    )
    caught = _caught(namespace["program"])
    (warning,) = caught
    assert warning.filename == "<program>" and warning.lineno == 5  # the use
    assert "written at line 4" in str(warning.message)
    assert "center is a view taken before" in str(warning.message)
    assert "take the view again after the write" in str(warning.message)
    assert issubclass(ca.StaleViewWarning, ca.ViewWriteWarning)


def test_the_values_stay_cowarray_s() -> None:
    V = ca.zeros(8)
    center = V[2:5]
    V += 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert center.tolist() == [0.0, 0.0, 0.0]
    assert V.tolist() == [1.0] * 8


@pytest.mark.parametrize(
    ("source", "numpy_differs"),
    [
        # whole-array in-place writes, small and split over the pool alike
        ("V = ca.zeros(8); c = V[2:5]; V += 1.0; c.sum()", True),
        ("V = ca.zeros(1 << 20); c = V[2:5]; V *= 2.0; V += 1; c.sum()", True),
        # item writes: only where the view's elements were written
        # (a view that overlaps the write warns at any use of it: c[0] too)
        ("V = ca.zeros(8); c = V[2:5]; V[3] = 7.0; c.sum()", True),
        ("V = ca.zeros(8); c = V[2:5]; V[0] = 7.0; c[0]", False),
        ("V = ca.zeros((4, 4)); c = V[:, 1]; V[0, 1] = 7.0; c.sum()", True),
        ("V = ca.zeros((4, 4)); c = V[:, 1]; V[:, 2] = 7.0; c.sum()", False),
        # scattered writes: the span from the first element to the last
        ("V = ca.arange(8.0); c = V[2:5]; V[V > 5] = 0.0; c.sum()", False),
        ("V = ca.arange(8.0); c = V[2:5]; V[V > 3] = 0.0; c.sum()", True),
        ("V = ca.zeros(8); c = V[2:5]; V[np.array([0, 1])] = 1.0; c.sum()", False),
        # NumPy's ufunc.at writes at its index
        ("V = ca.zeros(8); c = V[2:5]; np.add.at(V, 0, 7.0); c.sum()", False),
        ("V = ca.zeros(8); c = V[2:5]; np.add.at(V, 3, 7.0); c.sum()", True),
        # the view taken again after the write: NumPy's values
        ("V = ca.zeros(8); c = V[2:5]; V += 1.0; c = V[2:5]; c.sum()", False),
        # a lazy clone is a value in NumPy too (a copy)
        ("V = ca.zeros(8); c = ca.lazy_clone(V[2:5]); V += 1.0; c.sum()", False),
        ("V = ca.zeros(8); c = V.copy(); V += 1.0; c.sum()", False),
        # a view of the view: the same family, the old memory
        ("V = ca.zeros(8); c = V[2:5]; d = c[1:]; V += 1.0; d.sum()", True),
        # reshapes and transposes are views too
        ("V = ca.zeros((2, 3)); c = V.T; V += 1.0; c.sum()", True),
        ("V = ca.zeros(6); c = ca.reshape(V, (2, 3)); V -= 1.0; c.sum()", True),
    ],
)
def test_a_use_warns_exactly_where_numpy_s_view_would_differ(
    source: str, numpy_differs: bool
) -> None:
    *setup, use = [part.strip() for part in source.split(";")]
    namespace = _program("\n".join([*setup, f"result = {use}"]))
    caught = _caught(namespace["program"])
    # the model: run the same lines on NumPy and compare with cowarray's values
    numpy_ns: dict[str, Any] = {"np": np}
    numpy_source = "\n".join([*setup, f"result = {use}"]).replace("ca.lazy_clone(", "np.copy(")
    numpy_source = numpy_source.replace("ca.", "np.")
    exec(numpy_source, numpy_ns)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = namespace["program"]()["result"]
    differs = not np.array_equal(np.asarray(ours), np.asarray(numpy_ns["result"]))
    assert differs == numpy_differs, source  # (the table itself is NumPy's)
    assert len(caught) == int(numpy_differs), (source, [str(w.message) for w in caught])


def test_functional_updates_report_only_the_elements_they_wrote() -> None:
    # ``x.at[...]`` of a moved array writes its memory as ``x[...] = v``
    # would: the rows left alone do not warn (the heat benchmark's edges),
    # the row written does.
    namespace = _program(
        """
        u = ca.asarray(np.arange(16.0).reshape((4, 4)))
        top, bottom = u[1], u[-2]
        u = ca.move(u).at[0].set(top).at[-1].set(bottom)
        """
    )
    assert _caught(namespace["program"]) == []
    namespace = _program(
        """
        u = ca.asarray(np.arange(16.0).reshape((4, 4)))
        second = u[1]
        u = ca.move(u).at[1].set(0.0)
        total = second.sum()
        """
    )
    (warning,) = _caught(namespace["program"])
    assert warning.lineno == 5 and "written at line 4" in str(warning.message)


def test_a_write_that_only_makes_memory_private_starts_no_watch() -> None:
    # ``t.at[:].set(V)`` first gives the value it reads (V, whose view t
    # is) memory of its own; nothing was written, so no view of V differs
    # from NumPy's.
    namespace = _program(
        """
        V = ca.arange(3.0)
        t = V[::-1]
        r = t.at[:].set(V)
        total = t.sum() + V.sum()
        """
    )
    assert _caught(namespace["program"]) == []


def test_no_view_alive_starts_no_watch(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[object] = []
    real = families._Stale
    monkeypatch.setattr(families, "_Stale", lambda *a: started.append(a) or real(*a))
    V = ca.zeros(8)
    W = V.copy()  # shares, but is no view: the write copies and watches nothing
    V += 1.0
    c = V[2:5]
    del c
    V += 1.0  # (the view died: V writes in place, nothing to watch)
    assert started == [] and not PENDING
    assert W.tolist() == [0.0] * 8


def test_the_watch_ends_when_the_views_die() -> None:
    V = ca.zeros(8)
    center = V[2:5]
    V += 1.0
    assert any(type(p) is families._Stale for p in PENDING)
    del center
    gc.collect()
    assert not any(type(p) is families._Stale for p in PENDING)


def test_a_view_kept_and_never_used_is_watched_for_a_bounded_number_of_operations() -> None:
    V = ca.zeros(8)
    kept = V[2:5]
    V += 1.0
    other = ca.ones(3)
    for _ in range(families.STALE_CHECKS + 1):
        other = other + 1.0
    assert not any(type(p) is families._Stale for p in PENDING)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        kept.sum()
    assert caught == []  # (given up: the documented bound)


def test_a_warning_made_an_error_raises_at_the_use_and_changes_nothing() -> None:
    V = ca.zeros(8)
    center = V[2:5]
    V += 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("error", ca.StaleViewWarning)
        with pytest.raises(ca.StaleViewWarning, match="center is a view"):
            center.sum()
    assert center.tolist() == [0.0] * 3 and V.tolist() == [1.0] * 8
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        center.sum()
    assert caught == []  # (reported once)


def test_a_loop_s_write_starts_a_bounded_number_of_watches() -> None:
    namespace = _program(
        """
        V = ca.zeros(64)
        for step in range(50):
            center = V[2:5]
            V += 1.0
        """
    )
    namespace["program"]()
    # (each step's view dies at the next step's binding: no watch is left)
    assert sum(families._watches_started.values()) <= 4


def test_another_thread_s_use_is_not_reported_on_the_writing_thread() -> None:
    # A report belongs to the thread that wrote (its warning filters); a use
    # on another thread is that thread's code.
    V = ca.zeros(8)
    center = V[2:5]
    seen: list[int] = []

    def other(view: Any) -> None:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            float(view.sum())
        seen.append(len([w for w in caught if w.category is ca.StaleViewWarning]))

    V += 1.0
    thread = threading.Thread(target=other, args=(center,))
    thread.start()
    thread.join()
    assert seen == [0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        center.sum()
    assert [w.category for w in caught] == [ca.StaleViewWarning]


def test_a_gc_callback_that_uses_arrays_during_the_check_is_harmless() -> None:
    # The check runs inside an operation; a collection inside it runs code
    # that makes operations (and so checks) of its own.
    V = ca.zeros(8)
    center = V[2:5]
    V += 1.0
    calls: list[float] = []

    def on_collect(phase: str, info: dict[str, Any]) -> None:
        # (a bounded number: each operation of the thread counts against the
        # watch's STALE_CHECKS, the callback's too)
        if phase == "start" and len(calls) < 50:
            calls.append(float(ca.ones(2).sum()))

    gc.callbacks.append(on_collect)
    old = gc.get_threshold()
    gc.set_threshold(1)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for _ in range(5):
                gc.collect()  # (at least these: a free-threaded build's thresholds differ)
                center.sum()
    finally:
        gc.set_threshold(*old)
        gc.callbacks.remove(on_collect)
    assert [w.category for w in caught] == [ca.StaleViewWarning]
    assert calls and all(c == 2.0 for c in calls)


@pytest.mark.skipif(sys.version_info < (3, 13), reason="a closure's cell is read from 3.13 on")
def test_a_view_in_a_closure_s_cell_is_found() -> None:
    V = ca.zeros(8)
    center = V[2:5]

    def use() -> float:
        return float(center.sum())

    V += 1.0
    assert len(_caught(use)) == 1
