"""A write's copy report names the other holders of the buffer: the
variables bound to each, the lines that bound them, and whether NumPy would
have shared the memory too (the lingering view that makes every write copy)."""

from __future__ import annotations

import gc
import warnings
from typing import Any

import numpy as np
import pytest

import cowarray as ca
from cowarray._observe import HOLDERS_NAMED_PER_LINE


def _copy_warnings(run: Any) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with ca.warn_on_copy():
            run()
    return [str(w.message) for w in caught if str(w.message).startswith("a write copied")]


def test_a_lingering_view_is_named_with_its_line_and_the_fix() -> None:
    def step() -> None:
        V = ca.zeros(16)
        center = V[2:5]
        V += 1.0  # copies: center still holds V's memory
        assert float(center.sum()) == 0.0  # (cowarray: center is a value)

    (message,) = _copy_warnings(step)
    line = step.__code__.co_firstlineno + 2
    assert f"held also by center, bound at line {line}: a view of the same array" in message
    assert "del it, or take it again after the write" in message


def test_a_lazy_clone_is_named_as_a_value_of_its_own() -> None:
    def step() -> tuple[Any, Any]:
        x = ca.asarray(np.arange(8.0))
        kept = ca.lazy_clone(x)
        x[0] = 5.0
        return x, kept

    (message,) = _copy_warnings(step)
    assert "held also by kept, bound at line" in message
    assert "a separate value (a lazy clone" in message and "a view" not in message


def test_every_name_of_one_holder_and_an_unnamed_holder_are_reported() -> None:
    def step() -> list[Any]:
        x = ca.zeros(8)
        a = b = x[1:3]
        hidden = [x[4:6]]  # held by a list: no variable names it
        x[0] = 1.0
        return [a, b, hidden]

    (message,) = _copy_warnings(step)
    assert "a = b, bound at line" in message
    assert "an array no variable of the writing code names: a view" in message


def test_the_trace_event_carries_the_holders() -> None:
    x = ca.zeros(8)
    row = x[0:4]
    with ca.trace() as t:
        x[5] = 1.0
    (copy,) = [e for e in t.events if e.kind == "materialize"]
    assert copy.other_holders is not None and len(copy.other_holders) == 1
    assert copy.other_holders[0].startswith("row, bound at line")
    del row
    # events that are not a write's copy do not look
    assert all(e.other_holders is None for e in t.events if e.kind != "materialize")


def test_a_line_s_holders_are_named_for_its_first_copies_only() -> None:
    x = ca.zeros(8)
    keep = []
    with ca.trace() as t:
        for _ in range(HOLDERS_NAMED_PER_LINE + 3):
            keep.append(x[0:2])
            x[7] = 1.0
    copies = [e for e in t.events if e.kind == "materialize"]
    assert len(copies) == HOLDERS_NAMED_PER_LINE + 3
    assert all(c.other_holders is not None for c in copies[:HOLDERS_NAMED_PER_LINE])
    assert all(c.other_holders is None for c in copies[HOLDERS_NAMED_PER_LINE:])


def test_naming_the_holders_keeps_none_of_them_alive() -> None:
    # The report reads the writer's variables; it must not hold the arrays
    # (a kept reference would count as a holder and make the next write copy).
    def step() -> int:
        x = ca.zeros(8)
        view = x[0:2]
        x[5] = 1.0
        del view
        gc.collect()
        with ca.trace() as t:
            x[6] = 2.0  # sole holder again: in place
        return t.copies

    with ca.warn_on_copy(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert step() == 0


def test_nobody_looking_searches_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    import cowarray._observe as observe

    searched: list[object] = []
    monkeypatch.setattr(observe, "_other_holders", lambda *a: searched.append(a) or ())
    x = ca.zeros(8)
    row = x[0:2]
    x[5] = 1.0  # no trace, no warning: no report is made
    assert float(row.sum()) == 0.0 and searched == []
