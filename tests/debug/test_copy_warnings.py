"""warn_on_copy: a CopyWarning at the user's line for copies at or above a size."""

from __future__ import annotations

import gc
import random
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

import cowarray as ca
from cowarray._core import cow


def next_line() -> int:
    return sys._getframe(1).f_lineno + 1


def test_copy_warning_is_a_user_warning() -> None:
    assert issubclass(ca.CopyWarning, UserWarning)


def test_context_warns_at_the_line_that_wrote(backend_device: ca.Device) -> None:
    x = ca.zeros(1000, device=backend_device)
    y = ca.lazy_clone(x)
    with ca.warn_on_copy(min_bytes=0), pytest.warns(ca.CopyWarning, match="8000 bytes") as rec:
        line = next_line()
        y[0] = 1.0
    assert len(rec) == 1
    assert (rec[0].filename, rec[0].lineno) == (__file__, line)
    assert cow.observer is None


def test_copies_below_the_threshold_do_not_warn_and_at_it_do(backend_device: ca.Device) -> None:
    x = ca.zeros(1000, device=backend_device)
    with warnings.catch_warnings(record=True) as caught, ca.warn_on_copy(min_bytes=80):
        warnings.simplefilter("always")
        small = x[:9]
        small[0] = 1.0  # 72 bytes
        exact = x[:10]
        exact[0] = 1.0  # 80 bytes
    messages = [str(w.message) for w in caught if w.category is ca.CopyWarning]
    assert len(messages) == 1
    assert "copied 80 bytes (region (10,), float64)" in messages[0]


def test_global_switch_stays_on_until_turned_off(backend_device: ca.Device) -> None:
    x = ca.zeros(10, device=backend_device)
    ca.warn_on_copy(1)
    try:
        for _ in range(2):
            y = ca.lazy_clone(x)
            with pytest.warns(ca.CopyWarning):
                y[0] = 1.0
    finally:
        ca.warn_on_copy(None)
    y = ca.lazy_clone(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y[0] = 1.0
    assert cow.observer is None


def test_leaving_the_block_restores_the_previous_setting(backend_device: ca.Device) -> None:
    x = ca.zeros(1000, device=backend_device)
    ca.warn_on_copy(10_000)
    try:
        with ca.warn_on_copy(0):
            pass
        y = ca.lazy_clone(x)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            y[0] = 1.0  # 8000 < 10_000: the outer setting is back
    finally:
        ca.warn_on_copy(None)


def test_warnings_and_a_trace_work_together(backend_device: ca.Device) -> None:
    x = ca.zeros(10, device=backend_device)
    with ca.trace() as t, ca.warn_on_copy(0), pytest.warns(ca.CopyWarning):
        y = ca.lazy_clone(x)
        y[0] = 1.0
    assert t.copies == 1
    assert cow.observer is None


@pytest.mark.parametrize("bad", [1.5, "10", True])
def test_min_bytes_of_the_wrong_kind_is_a_type_error(bad: object) -> None:
    with pytest.raises(TypeError, match="min_bytes"):
        ca.warn_on_copy(bad)  # type: ignore[arg-type]
    assert cow.observer is None


def test_negative_min_bytes_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="min_bytes"):
        ca.warn_on_copy(-1)
    assert cow.observer is None


def test_warning_skips_library_frames_to_reach_the_user_line(backend_device: ca.Device) -> None:
    x = ca.arange(8.0, device=backend_device)
    y = ca.lazy_clone(x)
    with ca.warn_on_copy(0), pytest.warns(ca.CopyWarning) as rec:
        line = next_line()
        random.Random(0).shuffle(y)  # random.py (stdlib) writes y[i] = ...
    assert (rec[0].filename, rec[0].lineno) == (__file__, line)
    assert sorted(float(v) for v in y) == [float(v) for v in x]


@contextmanager
def copy_refused(match: str) -> Iterator[ca.debug.Trace]:
    """Copy warnings as errors: the block must raise one that matches ``match``."""
    with (
        ca.trace() as t,
        ca.warn_on_copy(0),
        warnings.catch_warnings(),
        pytest.raises(ca.CopyWarning, match=match),
    ):
        warnings.simplefilter("error", ca.CopyWarning)
        yield t


def test_a_copy_warning_raised_as_an_error_refuses_the_write(backend_device: ca.Device) -> None:
    x = ca.arange(1000.0, device=backend_device)
    y = ca.lazy_clone(x)
    before = ca.copy_counters()
    with copy_refused("8000 bytes") as t:
        y[0] = -1.0
    # the eager model: the write never happened, so nothing changed
    assert float(y[0]) == 0.0 and float(x[0]) == 0.0
    assert ca.shares_buffer(x, y)
    assert t.copies == 0
    assert ca.copy_counters() == before
    y[0] = -1.0  # without the error the same write copies, as before
    assert (float(y[0]), float(x[0])) == (-1.0, 0.0)
    assert not ca.shares_buffer(x, y)


def test_a_refused_in_place_operator_leaves_every_holder_unchanged(
    backend_device: ca.Device,
) -> None:
    x = ca.ones((4, 5), device=backend_device)
    view = x[1:3]
    with copy_refused("a write copied"):
        view += 1.0
    assert float(ca.sum(x)) == 20.0 and float(ca.sum(view)) == 10.0
    assert ca.shares_buffer(x, view)


def _exposed(device: ca.Device) -> tuple[ca.Array, object]:
    x = ca.arange(10.0, device=device)
    consumer = x.__dlpack__()  # an unconsumed capsule: x stays exposed while it lives
    assert ca.cow_info(x).state == "exposed"
    return x, consumer


def test_an_eager_copy_warns_with_its_reason_not_as_a_write(backend_device: ca.Device) -> None:
    x, _consumer = _exposed(backend_device)
    with ca.warn_on_copy(0), pytest.warns(ca.CopyWarning) as rec:
        ca.lazy_clone(x)
    message = str(rec[0].message)
    assert message.startswith("copied 80 bytes (region (10,), float64) out of buffer A at once")
    assert "may write that buffer" in message and "a write" not in message


@pytest.mark.parametrize(
    "make", [ca.lazy_clone, lambda x: x[2:], lambda x: ca.asarray(x, copy=True)]
)
def test_an_eager_copy_refused_as_an_error_changes_nothing(
    make: Any, backend_device: ca.Device
) -> None:
    x, _consumer = _exposed(backend_device)
    before = ca.copy_counters()
    with copy_refused("at once") as t:
        make(x)
    assert ca.copy_counters() == before
    assert [e.kind for e in t.events] == []
    gc.collect()  # Python 3.12 keeps the refused call's frames in a cycle until then
    assert ca.cow_info(x).holders == 1 and ca.cow_info(x).state == "exposed"
