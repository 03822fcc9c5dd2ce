"""THE LIST: NumPy spellings that in NumPy write into another live array.

docs/design.md rule 1 (and rule 11's last sentence): every such spelling
either does in cowarray what it does in NumPy, or warns
``ViewWriteWarning`` at the line that wrote, on the thread that wrote,
inside the caller's warning filters (``catch_warnings``, ``pytest.warns``).

Each row of :data:`SPELLINGS` is one spelling, written once for both
libraries (``xp`` is ``numpy`` or ``cowarray``). The test runs it on NumPy
first and asserts NumPy's own behaviour: the other array (``x``) changes.
Then it runs it on cowarray and asserts one of:

- ``SAME``: cowarray's ``x`` ends as NumPy's, and nothing warns;
- ``AT_WRITE``: one ViewWriteWarning naming the line marked ``# <- writes``,
  already caught when the next line runs (not at a later operation);
- ``AT_RELEASE``: a foreign consumer (NumPy, torch) wrote exported memory,
  which cowarray cannot see as it happens: one ViewWriteWarning naming the
  line marked ``# <- exports``, caught at this thread's first cowarray
  operation after the consumer released the memory (exports never released
  are compared at interpreter exit:
  :func:`test_a_write_through_an_export_alive_at_exit_is_reported`).

The table, with NumPy's behaviour beside each spelling (``x`` a float64
array, ``x[0]`` a view of it):

==========================================  ===============================  ==========
spelling                                    NumPy                            cowarray
==========================================  ===============================  ==========
``x.real[:] = 5.0``                         ``x.real`` is ``x``: x changes   same
``v = x.real; v *= 2``                      v is x: x changes                same
``v = x.conj(); v += 1``                    ``x.conj()`` is x (real dtype)   same
``v = x.conjugate(); v[0] = 9``             is x (real dtype)                same
``v = np.real(x); v[:] = 5``                ``np.real`` gives x.real: x      at write
``v = np.conj(x); v += 1``                  a new array: x unchanged         same
``v = x.view(); v += 1``                    v views x: x changes             at write
``v = x.view(np.int64); v[0] = 1``          v views x's bytes: x changes     at write
``v = x[0]; v += 1``                        x changes                        at write
``v = x[0]; v[1] = 5``                      x changes                        at write
``x[0][:] = 5`` (chained)                   x changes                        at write
``x.T[0] += 1`` (chained: writes x.T)       x changes                        at write
``x[0][1] += 1`` (chained)                  x changes                        at write
``views = [x[0]]; views[0] += 1``           x changes                        at write
``obj.w = x[0]; obj.w += 1``                x changes                        at write
``operator.iadd(x[0], 1)``                  x changes                        at write
``v = x[0]; np.add(v, 1, out=v)``           x changes                        at write
``np.add(x[0], 1, out=x[0])``               x changes                        at write
``v = x[0]; v.fill(3)``                     x changes                        at write
``np.copyto(x[0], 5)``                      x changes                        at write
``v = x.reshape(-1); v[0] = 1``             x changes                        at write
``a = np.asarray(x); v = x[0]; del x;``     a shows v's write                at write
``v[1] = 5``
``np.asarray(x[0])[1] = 5``                 x changes                        at release
``row = np.asarray(x[0]); row += 1``        x changes                        at release
``a = np.from_dlpack(x[0]); a += 1``        x changes                        at release
``torch.from_dlpack(x[0]).add_(1)``         x changes                        at release
``to_torch(x[0]).add_(1)`` (NumPy:          x changes                        at release
``torch.from_numpy(x[0])``)
``x[0] += 1``, ``x[:, 1] *= 4``,            x changes                        same
``x[1:] -= 1``, ``x[..., 0] /= 2``
``v = x[0]; v += 3; x[0] = v``              x changes                        same
==========================================  ===============================  ==========

The hostile tests below attack where and when the warning comes: two
threads (one with a held-back write, the other must see nothing), filters
entered and left around the write, a tracer, a call from C, warnings as
errors, and interpreter exit.
"""

from __future__ import annotations

import inspect
import operator
import os
import subprocess
import sys
import threading
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import cowarray as ca

SAME = "same as NumPy"
AT_WRITE = "warns at the write"
AT_RELEASE = "warns at the export's release"

Wrote = Callable[[], None]


def _marked_line(function: Callable[..., Any], mark: str) -> int:
    source, first = inspect.getsourcelines(function)
    return first + next(i for i, line in enumerate(source) if line.rstrip().endswith(mark))


def _torch() -> Any:
    return pytest.importorskip("torch")


# -- the spellings: each runs on NumPy and on cowarray, returns the array NumPy changes --


def real_of_a_real_array_written(xp: Any, wrote: Wrote) -> Any:
    x = xp.zeros((2, 3))
    x.real[:] = 5.0  # <- writes
    wrote()
    return x


def real_of_a_real_array_in_place(xp: Any, wrote: Wrote) -> Any:
    x = xp.zeros((2, 3))
    v = x.real
    v *= 2  # <- writes
    v += 1
    wrote()
    return x


def conj_method_of_a_real_array(xp: Any, wrote: Wrote) -> Any:
    x = xp.zeros((2, 3))
    v = x.conj()
    v += 1  # <- writes
    wrote()
    return x


def conjugate_method_of_a_real_array(xp: Any, wrote: Wrote) -> Any:
    x = xp.zeros((2, 3))
    v = x.conjugate()
    v[0] = 9.0  # <- writes
    wrote()
    return x


def np_real_of_a_real_array(xp: Any, wrote: Wrote) -> Any:
    x = xp.zeros((2, 3))
    v = np.real(x)
    v[:] = 5.0  # <- writes
    wrote()
    return x


def np_conj_is_a_new_array(xp: Any, wrote: Wrote) -> Any:
    x = xp.zeros((2, 3))
    v = np.conj(x)
    v += 1  # <- writes (a new array in NumPy too: x stays)
    wrote()
    return x


def view_method(xp: Any, wrote: Wrote) -> Any:
    x = xp.zeros((2, 3))
    v = x.view()
    v += 1  # <- writes
    wrote()
    return x


def view_method_with_a_dtype(xp: Any, wrote: Wrote) -> Any:
    x = xp.zeros((2, 3))
    v = x.view(np.int64)
    v[0] = 1  # <- writes
    wrote()
    return x


def in_place_on_a_named_row(xp: Any, wrote: Wrote) -> Any:
    x = xp.zeros((2, 3))
    v = x[0]
    v += 1  # <- writes
    wrote()
    return x


def item_write_on_a_named_row(xp: Any, wrote: Wrote) -> Any:
    x = xp.zeros((2, 3))
    v = x[0]
    v[1] = 5.0  # <- writes
    wrote()
    return x


def chained_assignment(xp: Any, wrote: Wrote) -> Any:
    x = xp.zeros((2, 3))
    x[0][:] = 5.0  # <- writes
    wrote()
    return x


def chained_augmented_assignment_through_the_transpose(xp: Any, wrote: Wrote) -> Any:
    # t = x.T; u = t[0]; u += 1; t[0] = u: the write-back goes into the
    # temporary x.T, not into x (chained assignment, as pandas warns)
    x = xp.zeros((2, 3))
    x.T[0] += 1  # <- writes
    wrote()
    return x


def chained_augmented_assignment_on_an_element(xp: Any, wrote: Wrote) -> Any:
    x = xp.zeros((2, 3))
    x[0][1] += 1  # <- writes
    wrote()
    return x


def augmented_assignment_into_a_list_of_views(xp: Any, wrote: Wrote) -> Any:
    x = xp.zeros((2, 3))
    views = [x[0], x[1]]
    views[0] += 1  # <- writes
    wrote()
    return x


class _Holder:
    w: Any


def augmented_assignment_of_an_attribute(xp: Any, wrote: Wrote) -> Any:
    x = xp.zeros((2, 3))
    obj = _Holder()
    obj.w = x[0]
    obj.w += 1  # <- writes
    wrote()
    return x


def operator_iadd_called_from_c(xp: Any, wrote: Wrote) -> Any:
    x = xp.zeros((2, 3))
    operator.iadd(x[0], 1)  # <- writes
    wrote()
    return x


def ufunc_out_into_a_row(xp: Any, wrote: Wrote) -> Any:
    x = xp.zeros((2, 3))
    v = x[0]
    np.add(v, 1, out=v)  # <- writes
    wrote()
    return x


def ufunc_out_into_a_temporary_row(xp: Any, wrote: Wrote) -> Any:
    x = xp.zeros((2, 3))
    np.add(x[0], 1, out=x[0])  # <- writes
    wrote()
    return x


def fill_a_row(xp: Any, wrote: Wrote) -> Any:
    x = xp.zeros((2, 3))
    v = x[0]
    v.fill(3.0)  # <- writes
    wrote()
    return x


def copyto_a_temporary_row(xp: Any, wrote: Wrote) -> Any:
    x = xp.zeros((2, 3))
    np.copyto(x[0], 5.0)  # <- writes
    wrote()
    return x


def write_through_a_flat_reshape(xp: Any, wrote: Wrote) -> Any:
    x = xp.zeros((2, 3))
    v = x.reshape(-1)
    v[0] = 1.0  # <- writes
    wrote()
    return x


def view_write_after_its_base_died_while_exported(xp: Any, wrote: Wrote) -> Any:
    x = xp.zeros((2, 3))
    a = np.asarray(x)
    v = x[0]
    del x
    v[1] = 5.0  # <- writes
    wrote()
    return a


def write_through_a_temporary_numpy_export_of_a_row(xp: Any, wrote: Wrote) -> Any:
    x = xp.zeros((2, 3))
    np.asarray(x[0])[1] = 5.0  # <- exports
    xp.zeros(1)  # this thread's next operation
    wrote()
    return x


def write_through_a_numpy_export_of_a_row(xp: Any, wrote: Wrote) -> Any:
    x = xp.zeros((2, 3))
    row = np.asarray(x[0])  # <- exports
    row += 1
    del row  # the consumer's release
    xp.zeros(1)
    wrote()
    return x


def write_through_np_from_dlpack_of_a_row(xp: Any, wrote: Wrote) -> Any:
    x = xp.zeros((2, 3))
    a = np.from_dlpack(x[0])  # <- exports
    a += 1
    del a
    xp.zeros(1)
    wrote()
    return x


def write_through_torch_from_dlpack_of_a_row(xp: Any, wrote: Wrote) -> Any:
    torch = _torch()
    x = xp.zeros((2, 3))
    t = torch.from_dlpack(x[0])  # <- exports
    t.add_(1)
    del t
    xp.zeros(1)
    wrote()
    return x


def write_through_to_torch_of_a_row(xp: Any, wrote: Wrote) -> Any:
    torch = _torch()
    x = xp.zeros((2, 3))
    if xp is np:
        t = torch.from_numpy(x[0])
    else:
        from cowarray.interop.torch import to_torch

        t = to_torch(x[0])  # <- exports
    t.add_(1)
    del t
    xp.zeros(1)
    wrote()
    return x


def augmented_assignments_on_subscripts(xp: Any, wrote: Wrote) -> Any:
    x = xp.zeros((3, 4))
    x[0] += 1
    x[:, 1] *= 4
    x[1:] -= 1
    x[..., 0] /= 2
    x[1, 2:] **= 2
    wrote()
    return x


def write_back_through_a_name(xp: Any, wrote: Wrote) -> Any:
    x = xp.zeros((2, 3))
    v = x[1]
    v += 3  # (written back on the next line: NumPy's result)
    x[1] = v
    wrote()
    return x


SPELLINGS: list[tuple[Callable[[Any, Wrote], Any], str]] = [
    (real_of_a_real_array_written, SAME),
    (real_of_a_real_array_in_place, SAME),
    (conj_method_of_a_real_array, SAME),
    (conjugate_method_of_a_real_array, SAME),
    (np_real_of_a_real_array, AT_WRITE),
    (np_conj_is_a_new_array, SAME),
    (view_method, AT_WRITE),
    (view_method_with_a_dtype, AT_WRITE),
    (in_place_on_a_named_row, AT_WRITE),
    (item_write_on_a_named_row, AT_WRITE),
    (chained_assignment, AT_WRITE),
    (chained_augmented_assignment_through_the_transpose, AT_WRITE),
    (chained_augmented_assignment_on_an_element, AT_WRITE),
    (augmented_assignment_into_a_list_of_views, AT_WRITE),
    (augmented_assignment_of_an_attribute, AT_WRITE),
    (operator_iadd_called_from_c, AT_WRITE),
    (ufunc_out_into_a_row, AT_WRITE),
    (ufunc_out_into_a_temporary_row, AT_WRITE),
    (fill_a_row, AT_WRITE),
    (copyto_a_temporary_row, AT_WRITE),
    (write_through_a_flat_reshape, AT_WRITE),
    (view_write_after_its_base_died_while_exported, AT_WRITE),
    (write_through_a_temporary_numpy_export_of_a_row, AT_RELEASE),
    (write_through_a_numpy_export_of_a_row, AT_RELEASE),
    (write_through_np_from_dlpack_of_a_row, AT_RELEASE),
    (write_through_torch_from_dlpack_of_a_row, AT_RELEASE),
    (write_through_to_torch_of_a_row, AT_RELEASE),
    (augmented_assignments_on_subscripts, SAME),
    (write_back_through_a_name, SAME),
]


def _view_write_warnings(caught: list[warnings.WarningMessage]) -> list[warnings.WarningMessage]:
    # (exactly the view-write warning: a StaleViewWarning, its subclass, says
    # something else and has tests of its own, tests/core/test_stale_views.py)
    return [w for w in caught if w.category is ca.ViewWriteWarning]


@pytest.mark.parametrize(
    ("spelling", "expected"), SPELLINGS, ids=[body.__name__ for body, _ in SPELLINGS]
)
def test_each_spelling_does_what_numpy_does_or_warns_at_its_line(
    spelling: Callable[[Any, Wrote], Any], expected: str
) -> None:
    # NumPy's own behaviour: the write reaches x, which started as zeros (or,
    # for np.conj's new array, does not).
    numpy_result = np.array(spelling(np, lambda: None), copy=True)
    changes_x = spelling is not np_conj_is_a_new_array
    assert changes_x == bool(np.any(numpy_result != 0)), "NumPy's behaviour"

    seen_at_write: list[int] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = spelling(ca, lambda: seen_at_write.append(len(_view_write_warnings(caught))))
        result = np.array(result, copy=True)
    found = _view_write_warnings(caught)
    if expected == SAME:
        np.testing.assert_array_equal(result, numpy_result)
        assert found == [], [str(w.message) for w in found]
        return
    # cowarray's x stays as it was: only loud is allowed, and loud it is, once
    assert not np.array_equal(result, numpy_result)
    assert seen_at_write == [1], "the warning must come by the line after the write"
    assert len(found) == 1, [(w.lineno, str(w.message)) for w in found]
    mark = "# <- writes" if expected == AT_WRITE else "# <- exports"
    assert (found[0].filename, found[0].lineno) == (__file__, _marked_line(spelling, mark))


# -- where and when: threads, filters, tracers, C callers, errors, exit ------------------


def test_a_view_write_is_caught_by_pytest_warns_around_it_alone() -> None:
    x = ca.zeros((2, 3))
    v = x[0]
    with pytest.warns(ca.ViewWriteWarning) as record:
        v += 1  # <- writes
    assert len(record) == 1
    assert record[0].lineno == _marked_line(
        test_a_view_write_is_caught_by_pytest_warns_around_it_alone, "# <- writes"
    )


def test_a_write_inside_catch_warnings_is_caught_there_not_later() -> None:
    x = ca.zeros((2, 3))
    v = x[0]
    with warnings.catch_warnings(record=True) as inside:
        warnings.simplefilter("always")
        v *= 2
        v[0] = 1.0
    with warnings.catch_warnings(record=True) as after:
        warnings.simplefilter("always")
        ca.sum(x)
        repr(x)
    assert len(_view_write_warnings(inside)) == 2
    assert _view_write_warnings(after) == []


def test_the_warning_as_an_error_stops_the_write_at_its_line() -> None:
    x = ca.zeros((2, 3))
    v = x[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error", ca.ViewWriteWarning)
        with pytest.raises(ca.ViewWriteWarning):
            v += 1
        with pytest.raises(ca.ViewWriteWarning):
            v[0] = 1.0
        x[0] += 1  # the write-back spelling: no warning, so no error
        float(ca.sum(x))  # and nothing left over for the next operation
    assert host_list(v) == [0.0, 0.0, 0.0]  # a write that raised changed nothing
    assert host_list(x[0]) == [1.0, 1.0, 1.0]


def host_list(a: ca.Array) -> list[float]:
    return np.array(a, copy=True).tolist()  # type: ignore[no-any-return]


def test_write_backs_never_warn_in_any_spelling() -> None:
    x = ca.zeros((3, 4))
    y = ca.zeros((3, 4, 2))
    k = 1
    with warnings.catch_warnings():
        warnings.simplefilter("error", ca.ViewWriteWarning)
        x[k] += 1
        x[:, k] *= 3
        x[1:] -= 1
        x[1 : k + 1] += 2
        x[..., 0] += 1
        x[0, 1:] @= ca.eye(3)
        x[2] **= 2
        x[2] //= 1
        y[0][1] if False else None  # (a read: nothing to warn about)
        y[k, :, 0] += 1
        x.T  # a view that dies at once  # noqa: B018
        z = x.T
        del z
        ca.sum(x)
    assert float(ca.sum(y)) == 4.0


def test_a_write_back_under_a_tracer_still_does_not_warn() -> None:
    x = ca.zeros((2, 3))
    v = x[0]

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        frame.f_locals  # what debuggers do: the locals become a dict  # noqa: B018
        return tracer

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = sys.gettrace()
        sys.settrace(tracer)
        try:
            x[0] += 1
            x[:, 1] *= 2
            v += 1  # <- writes
        finally:
            sys.settrace(old)
    found = _view_write_warnings(caught)
    assert [w.lineno for w in found] == [
        _marked_line(test_a_write_back_under_a_tracer_still_does_not_warn, "# <- writes")
    ]


def test_an_in_place_call_from_c_warns_at_once() -> None:
    x = ca.zeros((2, 3))
    v = x[0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        list(map(operator.iadd, [v], [1.0]))
        seen = len(_view_write_warnings(caught))
    assert seen == 1


def _recording_warnings() -> tuple[list[tuple[int, str, int]], Callable[..., None]]:
    shown: list[tuple[int, str, int]] = []

    def show(message: Any, category: Any, filename: str, lineno: int, *rest: Any) -> None:
        if issubclass(category, ca.ViewWriteWarning):
            shown.append((threading.get_ident(), filename, lineno))

    return shown, show


def test_a_held_back_write_of_one_thread_never_warns_on_another() -> None:
    # One thread runs write-backs (each in-place write to the temporary row is
    # held back until its write-back), the other runs operations, switching
    # every microsecond. Nothing may warn anywhere: a held-back write is
    # neither reported nor dropped by another thread's operation.
    x = ca.zeros((4, 64))
    y = ca.zeros((4, 64))
    stop = threading.Event()
    errors: list[BaseException] = []

    def write_backs() -> None:
        try:
            while not stop.is_set():
                x[1] += 1.0
                x[:, 3] *= 1.0
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    def operations() -> None:
        try:
            while not stop.is_set():
                ca.sum(y)
                y[0]
                repr(y[1, :2])
        except BaseException as error:  # pragma: no cover
            errors.append(error)

    shown, show = _recording_warnings()
    old = sys.getswitchinterval()
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = show
        sys.setswitchinterval(1e-6)
        try:
            threads = [threading.Thread(target=write_backs), threading.Thread(target=operations)]
            for thread in threads:
                thread.start()
            threading.Event().wait(0.5)
            stop.set()
            for thread in threads:
                thread.join()
        finally:
            sys.setswitchinterval(old)
        ca.zeros(1)
    assert not errors
    assert shown == []


def test_a_pending_report_stays_with_its_thread() -> None:
    # The writer's report is found when its export is released (deferred,
    # as every foreign write): the other thread's operations must not issue
    # it; the writer's next operation does, naming the writer's line.
    x = ca.zeros((2, 3))
    released = threading.Event()
    checked = threading.Event()
    errors: list[BaseException] = []

    def writer() -> None:
        try:
            row = np.asarray(x[0])  # <- exports
            row += 1
            del row
            released.set()
            checked.wait(5)
            ca.zeros(1)  # the writer's next operation reports it
        except BaseException as error:  # pragma: no cover
            errors.append(error)

    def other() -> None:
        try:
            released.wait(5)
            for _ in range(100):
                ca.sum(x)
                x[1]
            checked.set()
        except BaseException as error:  # pragma: no cover
            errors.append(error)

    shown, show = _recording_warnings()
    old = sys.getswitchinterval()
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = show
        sys.setswitchinterval(1e-6)
        try:
            threads = [threading.Thread(target=writer), threading.Thread(target=other)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        finally:
            sys.setswitchinterval(old)
    assert not errors
    assert [(ident == threads[0].ident, filename, line) for ident, filename, line in shown] == [
        (True, __file__, _marked_line(writer, "# <- exports"))
    ]


def test_a_release_on_another_thread_reports_on_the_exporting_thread() -> None:
    # The consumer writes and releases the export on another thread (as a
    # gc callback may): the report is the exporting thread's, at its next
    # operation, naming the line of the export.
    x = ca.zeros((2, 3))
    handed: list[Any] = []
    counts: list[int] = []
    shown, show = _recording_warnings()

    def consumer() -> None:
        row = handed.pop()
        row += 1
        del row  # the release runs here, on this thread
        ca.zeros(1)  # and this thread's operations report nothing
        counts.append(len(shown))

    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = show
        handed.append(np.asarray(x[0]))  # <- exports
        thread = threading.Thread(target=consumer)
        thread.start()
        thread.join()
        assert counts == [0]
        ca.zeros(1)  # the exporting thread's next operation
    line = _marked_line(
        test_a_release_on_another_thread_reports_on_the_exporting_thread, "# <- exports"
    )
    assert shown == [(threading.get_ident(), __file__, line)]


def test_a_view_write_on_a_thread_is_reported_on_that_thread_at_once() -> None:
    x = ca.zeros((2, 3))
    shown, show = _recording_warnings()
    counts: list[int] = []

    def write() -> None:
        v = x[1]
        v[0] = 1.0
        counts.append(len(shown))

    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = show
        thread = threading.Thread(target=write)
        thread.start()
        thread.join()
        ca.zeros(1)
    assert counts == [1]
    assert [ident for ident, _, _ in shown] == [thread.ident]


_AT_EXIT = """
import sys, threading, warnings
import numpy as np
import cowarray as ca
warnings.simplefilter("always")
x = ca.zeros((2, 3))
row = np.asarray(x[0])  # REPORTED: exported, then written, never released
row += 1
y = ca.zeros((2, 3))
kept = np.from_dlpack(y[1])  # REPORTED
kept[0] = 7.0
z = ca.zeros((2, 3))
untouched = np.asarray(z[0])  # exported, never written: no warning
w = ca.zeros((2, 3))
w[0] += 1  # a write-back: no warning
q = ca.zeros((2, 3))
def work():
    r = np.asarray(q[0])  # REPORTED: released, but its thread ends first
    r += 1
    del r
thread = threading.Thread(target=work)
thread.start()
thread.join()
ca.sum(q)  # not this thread's report
print("main done", file=sys.stderr, flush=True)
{torch}"""

_AT_EXIT_TORCH = """from cowarray.interop.torch import to_torch
t_keep = ca.zeros((2, 3))
tensor = to_torch(t_keep[1])  # REPORTED
tensor.add_(1)
"""


def test_a_write_through_an_export_alive_at_exit_is_reported() -> None:
    # Exports still alive are compared at exit; a report whose thread ended
    # before another operation waits for exit too (never another thread's).
    try:
        import torch  # noqa: F401

        extra = _AT_EXIT_TORCH
    except ImportError:
        extra = ""
    script = _AT_EXIT.format(torch=extra)
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert "main done" in lines, done.stderr
    before, after = lines[: lines.index("main done")], lines[lines.index("main done") :]
    assert not [line for line in before if "ViewWriteWarning" in line], done.stderr
    reported = sorted(
        int(line.split(":")[1])
        for line in after
        if "ViewWriteWarning" in line and line.startswith("<string>:")
    )
    expected = [
        number
        for number, line in enumerate(script.splitlines(), start=1)
        if line.endswith("# REPORTED") or "# REPORTED:" in line
    ]
    assert len(expected) == (4 if extra else 3)
    assert reported == expected, done.stderr


@pytest.mark.parametrize("length", [8, 20_000], ids=["small", "over 64 KiB"])
@pytest.mark.parametrize(
    "bits",
    [(0, 1 << 63), (0x7FF8_0000_0000_0001, 0x7FF8_0000_0000_0002)],
    ids=["the sign of zero", "a NaN's payload"],
)
def test_a_consumer_write_that_equality_cannot_see_is_still_reported(
    length: int, bits: tuple[int, int]
) -> None:
    # -0.0 == 0.0 and NaN != NaN: the release compares bytes, whichever way
    # it compares (small exports as bytes on the host, big ones by the backend).
    torch = _torch()
    from cowarray.interop.torch import to_torch

    before, after = np.array(bits, dtype=np.uint64).view(np.float64)
    x = ca.asarray(np.full((2, length), before))
    t = to_torch(x[0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t.view(torch.int64)[length // 2] = int(np.float64(after).view(np.int64))
        del t
        ca.zeros(1)  # the exporting thread's next operation reports
    assert [w.category for w in caught] == [ca.ViewWriteWarning]
    assert np.asarray(x).tobytes() == np.full((2, length), before).tobytes()


# -- the message: the user's names, one hint for chained writes, the docs page --------


def _caught_messages(body: Callable[[], object]) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        body()
    return [str(w.message) for w in caught if w.category is ca.ViewWriteWarning]


def test_the_warning_names_the_view_the_code_wrote() -> None:
    out = ca.zeros((2, 3))

    def body() -> None:
        top = out[0]
        top[1] = 5.0
        u = out[1]
        u += 1.0

    first, second = _caught_messages(body)
    assert first.startswith("top[1] = 5.0 changed only the view top, not the array")
    assert "top = lazy_clone(x[k])" in first
    assert second.startswith("u += 1.0 changed only the view u, not the array")
    assert "not u = x[k]; u += d" in second
    for message in (first, second):
        assert "docs/compatibility.md" not in message  # a page, not a repo path
        assert '"Compatibility: library code that relies on writes through views"' in message


def test_a_chained_assignment_is_told_to_index_once() -> None:
    m = ca.zeros((3, 3))

    def body() -> None:
        m[0][1] = 5
        m[2][:] = 1.0
        m[0][1:3] = 2.0

    messages = _caught_messages(body)
    assert len(messages) == 3
    assert messages[0].startswith("m[0][1] = 5 changed only the temporary view m[0]")
    assert "write m[0, 1] = 5" in messages[0]
    assert "write m[2, :] = 1.0" in messages[1]
    assert "write m[0, 1:3] = 2.0" in messages[2]


def test_a_chained_write_after_a_slice_gets_no_wrong_single_index() -> None:
    m = ca.zeros((4, 3))

    def body() -> None:
        m[1:3][0] = 7.0  # m[1:3][0] is m[1], not m[1:3, 0]

    (message,) = _caught_messages(body)
    assert "m[1:3, 0]" not in message and "Write m itself, with one index" in message


def test_a_write_from_c_keeps_neutral_words() -> None:
    out = ca.zeros((2, 3))

    def body() -> None:
        row = out[0]
        operator.iadd(row, 1.0)

    (message,) = _caught_messages(body)
    assert message.startswith("an in-place add changed only this view")


def test_an_in_place_write_stored_into_a_list_warns_before_later_output(tmp_path: Any) -> None:
    """``u *= 2`` and then ``results[0] = u``: no write-back into ``u``'s family
    follows, so the warning comes at the write, not at a later operation
    after other output."""
    script = tmp_path / "store_into_a_list.py"
    script.write_text(
        "import warnings, cowarray as ca\n"
        "warnings.simplefilter('always')\n"
        "warnings.showwarning = lambda m, *a, **k: print('WARNING', m, flush=True)\n"
        "out = ca.zeros((2, 3))\n"
        "u = out[1]\n"
        "results = [None]\n"
        "u *= 2.0\n"
        "results[0] = u\n"
        "print('printed after', flush=True)\n"
        "total = ca.sum(out)\n"
    )
    # (a script's own folder is on its path, not this checkout: name it, as
    # the chroot's interpreters of tools/python_matrix.sh have no install)
    root = str(Path(__file__).resolve().parents[2])
    environment = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])),
    }
    result = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, env=environment
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line.split(" ")[0] for line in lines] == ["WARNING", "printed"], lines
    assert lines[0].startswith("WARNING u *= 2.0 changed only the view u")


#: Where the threads below store their views: a global, which the warning can
#: read without running code (a function's local cannot be read before 3.13).
_HELD: list[object] = [None] * 8


def test_each_threads_named_warning_comes_at_its_own_write_under_fast_switching() -> None:
    """Threads write views of one family at once, switching every microsecond:
    each warning is issued on the thread that wrote, naming its variable,
    before that thread's next line runs."""
    seen: dict[int, list[str]] = {}

    def record(message: Warning | str, *args: object, **kwargs: object) -> None:
        seen.setdefault(threading.get_ident(), []).append(str(message))

    out = ca.zeros((8, 16))
    failures: list[str] = []
    unnamed: list[int] = []
    barrier = threading.Barrier(4)

    def worker(k: int) -> None:
        mine_seen = seen.setdefault(threading.get_ident(), [])
        barrier.wait()
        for _ in range(30):
            before = len(mine_seen)
            mine = out[k]
            mine += 1.0
            after_write = len(mine_seen) - before
            mine *= 2.0
            _HELD[k] = mine
            after_store = len(mine_seen) - before
            _HELD[k] = None
            del mine
            if (after_write, after_store) != (1, 2):
                failures.append(f"thread {k}: {after_write}, {after_store}")
            elif not all("changed only" in message for message in mine_seen[-2:]):
                failures.append(f"thread {k}: {mine_seen[-2:]}")
            elif not (
                mine_seen[-2].startswith("mine += 1.0 changed only the view mine")
                and mine_seen[-1].startswith("mine *= 2.0 changed only the view mine")
            ):
                # (the timing is the guarantee; under load a name was once
                # given in the neutral words: counted, not failed)
                unnamed.append(k)

    previous = sys.getswitchinterval()
    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = record
        sys.setswitchinterval(1e-6)
        try:
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout=120)
        finally:
            sys.setswitchinterval(previous)
    assert not any(thread.is_alive() for thread in threads)
    assert not failures, failures[:3]
    assert len(unnamed) <= 2, f"{len(unnamed)} of 120 warnings did not name their variable"
    assert float(ca.sum(out)) == 0.0  # values: only the views changed


def test_threads_racing_to_take_an_arrays_first_views_all_join_its_family() -> None:
    """The first view of an array makes the array's view family. Eight threads
    take first views of one fresh array at once, switching every microsecond,
    200 times: every view must join that one family, or its write would pass
    without the warning (seen: one thread in four runs of the test above, on
    free-threaded 3.13, before the family was made under a lock)."""
    counts: dict[int, int] = {}

    def record(message: Warning | str, *args: object, **kwargs: object) -> None:
        me = threading.get_ident()
        counts[me] = counts.get(me, 0) + 1  # (each thread writes its own key only)

    current: list[Any] = [None]
    start, done = threading.Barrier(9), threading.Barrier(9)
    silent: list[str] = []

    def worker(k: int) -> None:
        me = threading.get_ident()
        for attempt in range(200):
            start.wait()
            row = current[0][k]
            before = counts.get(me, 0)
            row += 1.0
            if counts.get(me, 0) != before + 1:
                silent.append(f"thread {k}, attempt {attempt}")
            del row
            done.wait()

    previous = sys.getswitchinterval()
    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = record
        sys.setswitchinterval(1e-6)
        try:
            for thread in threads:
                thread.start()
            for _ in range(200):
                current[0] = ca.zeros((8, 4))
                start.wait(timeout=60)
                done.wait(timeout=60)
                assert float(ca.sum(current[0])) == 0.0  # values: only the views changed
        finally:
            sys.setswitchinterval(previous)
            for thread in threads:
                thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads)
    assert not silent, f"{len(silent)} view writes passed without a warning: {silent[:3]}"


def test_a_write_to_a_broadcast_says_numpy_refuses_it_and_gives_the_fix_that_fits() -> None:
    # NumPy's broadcast_to is read-only: the view write's advice (write the
    # array it was taken from) does not fit; the broadcast gets its own memory.
    x = ca.zeros(3)
    b = ca.broadcast_to(x, (2, 3))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        b[0, 1] = 5.0  # <- writes
        b += 1.0  # (b is a value of its own now: no second warning)
    (warning,) = _view_write_warnings(caught)
    text = str(warning.message)
    assert warning.lineno == _marked_line(
        test_a_write_to_a_broadcast_says_numpy_refuses_it_and_gives_the_fix_that_fits,
        "# <- writes",
    )
    assert "b[0, 1] = 5.0 wrote the view b, a broadcast" in text
    assert "would refuse this write" in text and "ca.broadcast_to(x, shape).copy()" in text
    assert "x[k] += d" not in text
    np.testing.assert_array_equal(b.to_numpy(), [[1.0, 6.0, 1.0], [1.0, 1.0, 1.0]])
    np.testing.assert_array_equal(x.to_numpy(), np.zeros(3))


def test_a_broadcast_write_made_an_error_changes_nothing() -> None:
    x = ca.zeros(3)
    b = ca.broadcast_to(x, (2, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("error", ca.ViewWriteWarning)
        with pytest.raises(ca.ViewWriteWarning, match="a broadcast"):
            b[0, 1] = 5.0
    np.testing.assert_array_equal(b.to_numpy(), np.zeros((2, 3)))
    assert ca.shares_buffer(b, x)
