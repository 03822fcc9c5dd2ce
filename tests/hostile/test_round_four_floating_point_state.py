"""NumPy's floating-point state belongs to the thread and the call that set
it, and no collector inside a per-call error state crashes CPython 3.11
(issue 46, rows 7 and 8; cowarray/_backends/_parallel.py, the NumPy
backend's ``_floor_divide`` and ``_expm1``).

A split call computes its blocks on the caller and on the pool's threads,
each recording the flags its loops raise, and reports the union once under
the caller's ``np.errstate``. The model is one NumPy call: code that runs
inside it (a gc callback, a tracer) and changes the error state changes
the caller's state, never a later call's recording of its own flags, and
flags raised by code on some other thread are never the call's.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from _attack import assert_child_succeeded, gc_callback, run_child

import cowarray as ca
from cowarray._backends import _parallel


@pytest.fixture
def split_every_call() -> Iterator[None]:
    """Every element-wise call of two elements or more split over two
    threads; the thread count, threshold and NumPy's error state put back."""
    threads, threshold = ca.get_num_threads(), ca.get_parallel_threshold()
    saved, call = np.geterr(), np.geterrcall()
    ca.set_num_threads(2)
    ca.set_parallel_threshold(0)
    try:
        yield
    finally:
        np.seterr(**saved)
        np.seterrcall(call)
        ca.set_parallel_threshold(threshold)
        ca.set_num_threads(threads)  # (a new pool: none of the test's threads)


def _overflowing_where_the_caller_computes() -> ca.Array:
    """2**15 elements, split into two blocks: only the second overflows when
    multiplied by 1e10, the block the caller takes first (the pool's thread
    takes the other one, if it wakes in time). Its flags are recorded in the
    caller's recording state only, whatever the pool does."""
    return ca.concat([ca.ones(1 << 14), ca.full(1 << 14, 1e300)])


def _overflows_raised(a: ca.Array, times: int = 20) -> int:
    raised = 0
    for _ in range(times):
        try:
            with np.errstate(over="raise"):
                a * 1e10  # (1e310: overflows)
        except FloatingPointError:
            raised += 1
    return raised


# -- row 7: code inside a split call changes the error state ---------------------------

_STATE_CHANGES: dict[str, Callable[[], object]] = {
    "np.seterr(all='ignore')": lambda: np.seterr(all="ignore"),
    "np.seterrcall(f)": lambda: np.seterrcall(lambda kind, flags: None),
}


@pytest.mark.usefixtures("split_every_call")
@pytest.mark.parametrize("change", list(_STATE_CHANGES))
def test_code_inside_a_split_call_that_changes_the_error_state_leaves_later_calls_theirs(
    change: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The change runs on the caller while it computes its first block (as a
    # gc callback there would); the test then puts the caller's own state
    # back. Every later call under np.errstate(over="raise") must raise.
    a = _overflowing_where_the_caller_computes()
    real_take = _parallel._Job.take
    ran = []

    def take(job: Any) -> int:
        if not ran and threading.get_ident() == job.caller:
            ran.append(True)
            _STATE_CHANGES[change]()
        return real_take(job)  # type: ignore[no-any-return]

    monkeypatch.setattr(_parallel._Job, "take", take)
    ca.ones(1 << 15) * 2.0  # the split call the change runs in
    monkeypatch.undo()
    assert ran
    np.seterr(all="warn", under="ignore")  # the caller's state, as it was
    np.seterrcall(None)
    assert _overflows_raised(a) == 20


@pytest.mark.usefixtures("split_every_call")
def test_a_gc_callback_that_ignores_every_error_leaves_later_calls_their_errors() -> None:
    # The same through the collector: a callback at every collection (on the
    # caller, inside its blocks or not, and on the pool's threads).
    a = _overflowing_where_the_caller_computes()
    ones = ca.ones(1 << 15)
    with gc_callback(lambda: np.seterr(all="ignore")):
        for _ in range(50):
            ones * 2.0
    np.seterr(all="warn", under="ignore")
    assert _overflows_raised(a) == 20


# -- row 7: flags raised on a pool thread by other code ---------------------------------


def _log_of_zero() -> None:
    # (as a gc callback: whatever its error state does with the flag, the
    # callback's error goes nowhere)
    with contextlib.suppress(FloatingPointError):
        np.log(np.zeros(1))


@pytest.mark.usefixtures("split_every_call")
def test_flags_raised_on_a_pool_thread_by_other_code_are_not_the_calls(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A pool thread runs other code (a gc callback) that divides by zero
    # just before it takes a block of a + b, whose loop raises nothing.
    real_take = _parallel._Job.take
    on_pool = [0]

    def take(job: Any) -> int:
        if threading.get_ident() != job.caller:
            on_pool[0] += 1
            _log_of_zero()
        return real_take(job)  # type: ignore[no-any-return]

    ones = ca.ones(1 << 21)  # (blocks long enough for the pool to take some)
    monkeypatch.setattr(_parallel._Job, "take", take)
    raised = []
    for _ in range(20):
        try:
            with np.errstate(divide="raise"):
                ones + ones
        except FloatingPointError as error:
            raised.append(str(error))
    monkeypatch.undo()
    if not on_pool[0]:
        pytest.skip("no pool thread took a block")
    assert not raised, f"{len(raised)} of 20 raised: {raised[0]}"


@pytest.mark.usefixtures("split_every_call")
def test_flags_raised_by_a_tracer_on_a_pool_thread_are_not_the_calls() -> None:
    # The same from a tracer on the pool's threads (threading.settrace
    # before the pool starts), at every line they run in the pool's code
    # while they hold a block (a local ``index`` of 0 or more).
    pool_code = _parallel.__file__
    main = threading.get_ident()
    lines = [0]

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        if frame.f_code.co_filename != pool_code:
            return None

        def local(frame: Any, event: str, arg: Any) -> Any:
            if event == "line" and threading.get_ident() != main:
                index = frame.f_locals.get("index", -1)
                if type(index) is int and index >= 0:
                    lines[0] += 1  # (a line run while this thread holds a block)
                # (a tracer must not break the code it traces: a thread that
                # is still setting its error state up refuses a flag with a
                # NameError, "python callback specified ... but no function")
                with contextlib.suppress(Exception):
                    np.log(np.zeros(1))
            return local

        return local

    ones = ca.ones(1 << 21)  # (blocks long enough for a traced thread to take one)
    raised = []
    threading.settrace(tracer)
    try:
        ca.set_num_threads(3)
        ca.set_num_threads(2)  # a new pool: its threads start traced
        for _ in range(20):
            try:
                with np.errstate(divide="raise"):
                    ones + ones
            except FloatingPointError as error:
                raised.append(str(error))
    finally:
        threading.settrace(None)  # (new threads only: the fixture retires these)
    if not lines[0]:
        pytest.skip("no pool thread took a block")
    assert not raised, f"{len(raised)} of 20 raised: {raised[0]}"


# -- row 8: a collection inside a per-call error state on 3.11 -------------------------

_CRASHERS = {
    "x // y with an infinite operand": (
        "x = ca.asarray([np.inf, 1.0, -np.inf, 5.0])\n"
        "y = ca.asarray([2.0, np.inf, 3.0, 2.0])\n"
        "def op():\n"
        "    return x // y\n"
    ),
    "expm1 of complex": (
        "x = ca.asarray([1 + 2j, complex(np.inf, 0), complex(-np.inf, 1), 0j])\n"
        "def op():\n"
        "    return ca.expm1(x)\n"
    ),
}


@pytest.mark.parametrize("operation", list(_CRASHERS))
def test_a_gc_callback_that_computes_the_same_inside_an_operation_does_not_crash(
    operation: str,
) -> None:
    # The operation sets NumPy's error state for its own call; on 3.11 the
    # collector can run inside ContextVar.set, and a callback that computes
    # the same operation then sets the same variable: the interpreter crashed
    # (SIGSEGV). NumPy alone does not crash, and the values are the model's.
    result = run_child(
        "import contextvars, gc\n"
        "import numpy as np\n"
        "import cowarray as ca\n"
        "names = [contextvars.ContextVar(f'v{i}') for i in range(20)]\n"
        "for i, var in enumerate(names):\n"
        "    var.set(i)  # a context of several variables, as a program has\n"
        + _CRASHERS[operation]
        + "expected = np.array(op(), copy=True)\n"
        "made = []\n"
        "def compute(phase, info):\n"
        "    if phase == 'start' and len(made) < 20000:\n"
        "        made.append(np.array(op(), copy=True))\n"
        "gc.callbacks.append(compute)\n"
        "gc.set_threshold(1)\n"
        "results = [np.array(op(), copy=True) for _ in range(20000)]\n"
        "gc.callbacks.remove(compute)\n"
        "gc.set_threshold(700)\n"
        "for got in results + made:\n"
        "    np.testing.assert_array_equal(got, expected)\n"
        "if not made:\n"
        "    print('SKIP: no collection ran during the operations')\n",
        timeout=120.0,
    )
    assert_child_succeeded(result, f"an interpreter computing {operation}")
