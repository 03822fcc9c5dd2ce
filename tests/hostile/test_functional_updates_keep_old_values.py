"""x.at[...] never changes memory that anything else can still reach (docs/design.md rule 6).

Each test is an attack found against the bytecode-reading shortcut that wrote
``x = x.at[i].set(v)`` in place: a receiver that forwards ``.at``, code that
runs between the update and the store (``__del__``, a tracer, another thread,
a write through ``frame.f_locals``), and each must leave old ``x`` intact.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
import sysconfig
import threading
import types
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from _attack import (
    assert_no_aliases,
    gc_callback,
    host,
    run_traced,
    switching_every_microsecond,
)

import cowarray as ca
from cowarray._core import cow


class Forwarding:
    """An object whose attributes are its array's: ``w.at`` is ``w.a.at``."""

    def __init__(self, a: ca.Array) -> None:
        self.a = a

    def __getattr__(self, name: str) -> Any:
        return getattr(self.a, name)


def test_a_receiver_that_forwards_at_keeps_its_array() -> None:
    def f() -> tuple[Any, Any]:
        w: Any = Forwarding(ca.zeros(3))
        keep = w
        w = w.at[0].set(1.0)
        return keep, w

    keep, result = f()
    assert host(keep.a).tolist() == [0.0, 0.0, 0.0]
    assert host(result).tolist() == [1.0, 0.0, 0.0]
    assert not ca.shares_buffer(keep.a, result) or host(keep.a)[0] == 0.0


def test_an_index_whose_del_reads_the_caller_sees_old_x() -> None:
    seen: list[ca.Array] = []

    class Index:
        def __index__(self) -> int:
            return 0

        def __del__(self) -> None:
            frame = sys._getframe(1)
            while frame is not None and "x" not in frame.f_locals:
                frame = frame.f_back  # type: ignore[assignment]
            if frame is not None:
                seen.append(frame.f_locals["x"])

    def f() -> ca.Array:
        x = ca.zeros(3)
        x = x.at[Index()].set(1.0)
        return x

    result = f()
    assert host(result).tolist() == [1.0, 0.0, 0.0]
    for old in seen:
        if old is not result:
            assert host(old).tolist() == [0.0, 0.0, 0.0]


def test_a_tracer_that_keeps_the_callers_x_keeps_its_values() -> None:
    kept: list[ca.Array] = []

    def tracer(frame: Any, event: str, arg: object) -> Any:
        value = frame.f_locals.get("x")
        if type(value) is ca.Array:
            kept.append(value)
        return tracer

    def f() -> ca.Array:
        x = ca.zeros(3)
        x = x.at[0].set(1.0)
        return x

    result = run_traced(tracer, f)
    assert host(result).tolist() == [1.0, 0.0, 0.0]
    assert kept, "the tracer saw x"
    for value in kept:
        if value is not result:
            assert host(value).tolist() == [0.0, 0.0, 0.0]


@pytest.mark.skipif(
    bool(sysconfig.get_config_var("Py_GIL_DISABLED")),
    reason="reading a running thread's frame from another thread can crash a "
    "free-threaded CPython 3.13 itself (seen here: a segmentation fault in f_locals)",
)
def test_another_thread_reading_the_callers_frame_sees_old_x() -> None:
    seen: list[tuple[ca.Array, float]] = []
    stop = threading.Event()
    main = threading.get_ident()

    def peek() -> None:
        while not stop.is_set():
            frame = sys._current_frames().get(main)
            while frame is not None:
                value = frame.f_locals.get("x") if frame.f_code.co_name == "f" else None
                if type(value) is ca.Array:
                    seen.append((value, float(value[0])))
                    break
                frame = frame.f_back

    def f() -> ca.Array:
        x = ca.zeros(100)
        for i in range(300):
            x = x.at[0].set(float(i + 1))
        return x

    with switching_every_microsecond():
        thread = threading.Thread(target=peek)
        thread.start()
        try:
            result = f()
        finally:
            stop.set()
            thread.join()
    assert float(result[0]) == 300.0
    # Every x the other thread saw keeps the value it had when seen.
    changed = [(then, float(value[0])) for value, then in seen if float(value[0]) != then]
    assert not changed, f"{len(changed)} of {len(seen)} old arrays changed, e.g. {changed[:3]}"


def test_the_update_result_is_never_an_alias_of_old_x_anywhere() -> None:
    x = ca.zeros(5)
    holders = [x]
    x = x.at[1].set(2.0)
    assert host(holders[0]).tolist() == [0.0] * 5
    assert host(x).tolist() == [0.0, 2.0, 0.0, 0.0, 0.0]


def test_a_temporary_and_a_moved_array_are_updated_without_a_copy(
    copies: cow._Counters,
) -> None:
    # The proven cases, on every CPython (reference counts calibrated at import).
    y = ca.move(ca.zeros(1000)).at[3].set(1.0).at[ca.asarray([4, 4])].add(1.0)
    x = ca.zeros(1000)
    x = ca.move(x).at[5].set(7.0)
    assert copies.copies == 0
    assert host(y)[3:5].tolist() == [1.0, 2.0]
    assert float(x[5]) == 7.0


def test_a_temporary_kept_by_a_gc_callback_is_moved_not_aliased() -> None:
    # Anything that grabs the temporary during its update (gc.get_objects in a
    # callback, a debugger) finds a moved array, never a second name for the result.
    import gc

    grabbed: list[ca.Array] = []

    def grab(phase: str, info: dict[str, Any]) -> None:
        if phase == "start" and not grabbed:
            grabbed.extend(
                o
                for o in gc.get_objects()
                if type(o) is ca.Array and is_built(o) and o.shape == (777,)
            )

    def make() -> ca.Array:
        return ca.zeros(777)

    thresholds = gc.get_threshold()
    gc.callbacks.append(grab)
    gc.set_threshold(1)
    try:
        result = make().at[ca.asarray([1, 2])].set(5.0)
    finally:
        gc.set_threshold(*thresholds)
        gc.callbacks.remove(grab)
    assert host(result)[:3].tolist() == [0.0, 5.0, 5.0]
    for old in grabbed:
        if old is result:
            continue
        try:
            values = host(old)
        except ValueError as error:
            assert "moved" in str(error)
        else:
            np.testing.assert_array_equal(values, np.zeros(777))


def is_built(array: ca.Array) -> bool:
    """False for an Array whose constructor has not stored its slots yet: from
    CPython 3.14 the collector may run right after the allocation (the
    temporary of an update is never such a one; docs/design.md, rule 7)."""
    try:
        array._data  # noqa: B018
    except AttributeError:
        return False
    return True


def test_arrays_a_gc_callback_sees_half_built_are_whole_values_once_built() -> None:
    # From 3.14 a gc callback can find an Array between its allocation and its
    # constructor's stores: it raises AttributeError until then, and is an
    # ordinary value of its own once the constructor has returned.
    import gc

    seen: list[ca.Array] = []

    def grab(phase: str, info: dict[str, Any]) -> None:
        if phase == "start" and len(seen) < 20:
            seen.extend(o for o in gc.get_objects() if type(o) is ca.Array and not is_built(o))

    made = []
    thresholds = gc.get_threshold()
    gc.callbacks.append(grab)
    gc.set_threshold(1)
    try:
        for i in range(60):
            a = ca.asarray([i, i + 1])
            made.append((a, a + 1, a[0:1]))
    finally:
        gc.set_threshold(*thresholds)
        gc.callbacks.remove(grab)
    assert all(is_built(o) for o in seen)
    every = {id(o): o for o in [*(o for group in made for o in group), *seen]}
    assert_no_aliases(list(every.values()))


@pytest.mark.skipif(sys.version_info < (3, 13), reason="write-through f_locals is 3.13's")
def test_a_write_through_f_locals_cannot_make_old_x_change() -> None:
    caught: list[ca.Array] = []

    class Index:
        def __index__(self) -> int:
            frame = sys._getframe(1)
            while frame is not None and frame.f_code.co_name != "f":
                frame = frame.f_back  # type: ignore[assignment]
            if frame is not None:
                caught.append(frame.f_locals["x"])
                frame.f_locals["keep"] = frame.f_locals["x"]
            return 0

    def f() -> tuple[Any, ca.Array]:
        keep = None
        x = ca.zeros(3)
        x = x.at[Index()].set(1.0)
        return keep, x

    keep, result = f()
    assert host(result).tolist() == [1.0, 0.0, 0.0]
    if keep is not None:
        assert host(keep).tolist() == [0.0, 0.0, 0.0]


# -- the scalar store of an update nothing else can see (_at._store_taken) ---------------


_Clones = list[tuple[ca.Array, np.ndarray]]


def _clone_every(shape: tuple[int, ...], clones: _Clones) -> None:
    """Lazy-clone every live Array of ``shape`` (as a gc walker could), noting its
    values; never a clone this attack made itself, and at most 5000 clones.

    Not from another thread: there ``gc.get_objects()`` takes references to
    tuples still being built, and CPython's own ``tuple(generator)`` then fails
    with SystemError (seen on 3.11 in CI).
    """
    _clone_each(gc.get_objects(), shape, clones)


def _clone_each(candidates: list[Any], shape: tuple[int, ...], clones: _Clones) -> None:
    made = {id(clone) for clone, _ in clones}
    for found in [o for o in candidates if type(o) is ca.Array and id(o) not in made]:
        if len(clones) >= 5000:
            return
        try:
            if found.shape != shape:
                continue
            clone = ca.lazy_clone(found)
        except ValueError:
            continue  # a moved array: it raises on every use, as it must
        except AttributeError:
            # From 3.12 the collector runs at the first safe point after an
            # allocation, so it can meet an Array that new_array has made
            # but not yet filled: no fields, nothing shared (docs/design.md).
            assert _under_construction(found)
            continue
        clones.append((clone, host(clone)))


def _under_construction(array: ca.Array) -> bool:
    return not any(hasattr(array, name) for name in ca.Array.__slots__)


@contextlib.contextmanager
def _at_every_call_into_cowarray(shape: tuple[int, ...], clones: _Clones) -> Iterator[None]:
    """As each function of cowarray starts, lazy-clone every Array of ``shape``
    that a local of a running frame holds (a profiler can), as _clone_every does.

    From 3.12 a gc callback runs only where a new allocation scheduled a
    collection, so it may miss the gap a broken update leaves; a profiler
    reaches every call on every CPython.
    """
    package = os.path.dirname(ca.__file__)

    def on_event(frame: types.FrameType, event: str, arg: object) -> None:
        if event != "call" or not frame.f_code.co_filename.startswith(package):
            return
        sys.setprofile(None)  # the walk itself is not walked
        try:
            found: list[Any] = []
            caller: types.FrameType | None = frame
            while caller is not None:
                found += caller.f_locals.values()
                caller = caller.f_back
            _clone_each(found, shape, clones)
        finally:
            sys.setprofile(on_event)

    sys.setprofile(on_event)
    try:
        yield
    finally:
        sys.setprofile(None)


@pytest.mark.parametrize("walker", ["gc callback", "profiler"])
def test_a_gc_walker_cloning_the_temporary_of_a_scalar_update_keeps_its_clone(
    walker: str,
) -> None:
    # The store of move(x).at[i].set(v) is made in place only while nothing
    # holds a record of the memory: a clone made during the update (by a gc
    # callback at every collection, or a profiler at every call into
    # cowarray) must keep the values it was made with.
    clones: list[tuple[ca.Array, np.ndarray]] = []
    shape = (331,)
    walking = (
        gc_callback(lambda: _clone_every(shape, clones))
        if walker == "gc callback"
        else _at_every_call_into_cowarray(shape, clones)
    )
    with walking:
        x = ca.zeros(shape)
        for i in range(20):
            x = ca.move(x).at[i].set(float(i + 1))
            x = (x + 0.0).at[i + 20].set(-1.0)  # a temporary, updated in place
    expected = np.zeros(shape)
    expected[:20] = np.arange(1, 21)
    expected[20:40] = -1.0
    np.testing.assert_array_equal(host(x), expected)
    assert clones, "the attack never found the array"
    changed = [i for i, (clone, then) in enumerate(clones) if not np.array_equal(host(clone), then)]
    assert not changed, f"{len(changed)} of {len(clones)} clones changed after they were made"


def test_a_scalar_update_that_fails_leaves_the_array_and_says_why() -> None:
    x = ca.zeros(3, dtype=ca.int64)
    with pytest.raises(IndexError, match=r"x\.at\[\.\.\.\]\.set: .*mode='drop'"):
        x.at[3].set(1)
    with pytest.raises(OverflowError, match="does not fit in int64"):
        x.at[0].set(2**70)
    with pytest.raises(OverflowError, match="does not fit in int64"):
        ca.move(ca.zeros(3, dtype=ca.int64)).at[0].set(2**70)
    assert host(x).tolist() == [0, 0, 0]
    y = ca.move(x).at[-1].set(7)
    assert host(y).tolist() == [0, 0, 7]
