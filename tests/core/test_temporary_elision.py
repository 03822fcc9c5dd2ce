"""Temporary elision: ``c * 2.0 + 1.0`` writes ``+ 1.0`` into the memory of ``c * 2.0``.

Only where the compiled helper (cowarray/_temporaries.c) proves the operand
a temporary: CPython 3.14+ with the helper built (docs/design.md, rule 12).
Everywhere else the values tests still run, against the operators that
allocate every result; the tests of the mechanism itself skip.
"""

from __future__ import annotations

import gc
import inspect
import os
import subprocess
import sys
import tracemalloc
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import cowarray as ca
from cowarray import _compiled, _operators
from tests._attack import KeptCapsule, assert_no_aliases, run_together, run_traced

N = 1 << 16  # 512 KiB of float64: above the 256 KiB from which a temporary takes the result

needs_helper = pytest.mark.skipif(
    _compiled.TEMPORARIES is None, reason=f"temporary elision: {_compiled.status()}"
)


def _spy_on(monkeypatch: pytest.MonkeyPatch, name: str, declined: bool = False) -> list[int]:
    """Each Array that ``_operators.<name>`` computed into a temporary's
    memory, by id (a reference would make the next operator's operand no
    temporary); with ``declined``, a 0 for each call that declined too."""
    calls: list[int] = []
    original = getattr(_operators, name)

    def spy(*args: Any) -> Any:
        result = original(*args)
        if result is not None or declined:
            calls.append(0 if result is None else id(result))
        return result

    monkeypatch.setattr(_operators, name, spy)
    return calls


@pytest.fixture
def elisions(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The ids of the Arrays that binary operators computed into a temporary's memory."""
    return _spy_on(monkeypatch, "_into_temporary")


def _pair(dtype: str = "float64", shape: tuple[int, ...] = (N,)) -> tuple[ca.Array, np.ndarray]:
    model = (np.arange(int(np.prod(shape))) % 97 + 1).astype(dtype).reshape(shape)
    return ca.asarray(model), model


# Each written once for both libraries: (c, i, m, row, c32) -> value.
_EXPRESSIONS: dict[str, Callable[..., Any]] = {
    "t + s": lambda c, i, m, row, c32: c * 2.0 + 1.0,
    "s - t": lambda c, i, m, row, c32: 3.0 - c * 2.0,
    "x - t": lambda c, i, m, row, c32: c - c * 2.0,
    "t - x": lambda c, i, m, row, c32: (c * 2.0) - c,
    "t * t": lambda c, i, m, row, c32: (c + 1.0) * (c - 1.0),
    "t / t": lambda c, i, m, row, c32: (c * 2.0) / (c + 1.0),
    "t ** s": lambda c, i, m, row, c32: (c * 0.5) ** 2,
    "s ** t": lambda c, i, m, row, c32: 2.0 ** (c * 0.001),
    "chain": lambda c, i, m, row, c32: c * 2.0 + 1.0 - c * 0.5 + c / 3.0,
    "int t // s": lambda c, i, m, row, c32: (i * 3) // 2,
    "int t / s (floats)": lambda c, i, m, row, c32: (i * 3) / 2,
    "int t ** s": lambda c, i, m, row, c32: (i % 5) ** 2,
    "int t & s": lambda c, i, m, row, c32: (i * 3) & 6,
    "int t << s": lambda c, i, m, row, c32: (i + 1) << 2,
    "int t % t": lambda c, i, m, row, c32: (i * 7) % (i + 1),
    "float32 t + float64": lambda c, i, m, row, c32: (c32 * 2.0) + c,
    "float64 t + float32": lambda c, i, m, row, c32: (c * 2.0) + c32,
    "float32 t + s": lambda c, i, m, row, c32: (c32 * 2.0) + 1.5,
    "float t + int s": lambda c, i, m, row, c32: (c * 2.0) + 3,
    "int t + float s": lambda c, i, m, row, c32: (i * 2) + 0.5,
    "matrix t + row": lambda c, i, m, row, c32: (m * 2.0) + row,
    "row + matrix t": lambda c, i, m, row, c32: row - (m * 2.0),
    "row t + matrix": lambda c, i, m, row, c32: (row * 2.0) + m,
    "bool t & t": lambda c, i, m, row, c32: (c > 10.0) & (c < 50.0),
    "complex s": lambda c, i, m, row, c32: (c * 2.0) + 1j,
    "-t": lambda c, i, m, row, c32: -(c * 2.0),
    "+t": lambda c, i, m, row, c32: +(c * 2.0),
    "abs t": lambda c, i, m, row, c32: abs(c - 50.0),
    "abs complex t": lambda c, i, m, row, c32: abs((c * 2.0) + 1j),
    "~ int t": lambda c, i, m, row, c32: ~(i * 3),
    "~ bool t": lambda c, i, m, row, c32: ~(c > 10.0),
    "-t chain": lambda c, i, m, row, c32: -(c * 2.0) + 1.0,
}


def _operands(library: Callable[[Any], Any]) -> tuple[Any, ...]:
    c, i, m, row, c32 = (
        _pair()[1],
        _pair("int64")[1],
        _pair(shape=(256, 256))[1],
        _pair(shape=(256,))[1],
        _pair("float32")[1],
    )
    return tuple(library(x) for x in (c, i, m, row, c32))


@pytest.mark.parametrize("name", list(_EXPRESSIONS))
def test_expressions_with_temporaries_give_numpys_values(name: str) -> None:
    expression = _EXPRESSIONS[name]
    operands = _operands(ca.asarray)
    before = [np.asarray(x).copy() for x in operands]
    got = expression(*operands)
    expected = expression(*_operands(np.asarray))
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-6)
    for operand, was in zip(operands, before, strict=True):  # the named operands are values
        np.testing.assert_array_equal(np.asarray(operand), was)


@needs_helper
def test_the_temporary_takes_the_result(elisions: list[int]) -> None:
    c, model = _pair()
    result = c * 2.0 + 1.0
    assert elisions == [id(result)]
    result = c * 2.0 + 1.0 - c  # (c * 2.0) + 1.0, then that - c: both into one block
    assert len(elisions) == 3
    np.testing.assert_array_equal(np.asarray(result), model * 2.0 + 1.0 - model)
    result = 1.0 - c * 2.0  # the reflected operator: the right operand takes it
    assert len(elisions) == 4
    np.testing.assert_array_equal(np.asarray(result), 1.0 - model * 2.0)


@needs_helper
def test_a_unary_operator_takes_its_temporary(monkeypatch: pytest.MonkeyPatch) -> None:
    taken = _spy_on(monkeypatch, "_unary_into_temporary", declined=True)
    c, model = _pair()
    result = -(c * 2.0)
    assert taken == [id(result)]
    np.testing.assert_array_equal(np.asarray(result), -(model * 2.0))
    named = c * 2.0
    result = -named
    assert len(taken) == 1  # (a name: the helper never asked)
    np.testing.assert_array_equal(np.asarray(named), model * 2.0)


@needs_helper
def test_an_expression_allocates_what_numpys_does() -> None:
    """``c * 2.0 + 1.0 - c * 0.5`` holds two blocks at its peak, as NumPy's
    does where NumPy elides (three without elision: NumPy 2.5 on 3.14
    measured so, tracemalloc counting NumPy's blocks)."""
    c, _ = _pair()
    before = ca.get_temporary_reuse()
    ca.set_temporary_reuse(0)  # (no kept blocks: the peak is the expression's own)
    try:
        tracemalloc.start()
        try:
            result = c * 2.0 + 1.0 - c * 0.5
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        del result
    finally:
        ca.set_temporary_reuse(before)
    assert peak < 2.5 * N * 8


@needs_helper
def test_small_and_unproven_operands_are_not_taken(elisions: list[int]) -> None:
    small = ca.ones(1000)
    assert_values = small * 2.0 + 1.0
    np.testing.assert_array_equal(np.asarray(assert_values), np.full(1000, 3.0))
    c, _ = _pair()
    view = c[::2] * 1.0 + 1.0  # (c[::2] * 1.0 is private: taken; not the view c[::2] itself)
    assert elisions == [id(view)]
    np.testing.assert_array_equal(np.asarray(c)[:3], [1.0, 2.0, 3.0])


def _read_capsule(capsule: Any) -> np.ndarray:
    return np.from_dlpack(KeptCapsule(capsule))


def _holders() -> Iterator[tuple[str, Callable[[ca.Array], Any], Callable[[Any], np.ndarray]]]:
    # (what a function keeps of its argument before returning it, and how to read it)
    yield "the Array itself", lambda a: a, np.asarray
    yield "a lazy clone", ca.lazy_clone, np.asarray
    yield "a view", lambda a: a[1:], lambda kept: np.concatenate([[np.nan], np.asarray(kept)])
    yield "a NumPy export", np.asarray, lambda kept: kept
    yield "a memoryview", lambda a: memoryview(np.asarray(a)), np.asarray
    yield "a DLPack capsule", lambda a: a.__dlpack__(), lambda kept: _read_capsule(kept)
    yield "np.from_dlpack", np.from_dlpack, lambda kept: kept
    yield "a reshape", lambda a: a.reshape((2, N // 2)), lambda kept: np.asarray(kept).ravel()


@pytest.mark.parametrize("holder", [name for name, _, _ in _holders()])
def test_whatever_a_call_kept_of_a_temporary_keeps_its_values(holder: str) -> None:
    """``keep(c * 2.0) + 1.0``: the operand is a temporary of the caller, but
    ``keep`` still holds its memory some way; that must not see ``+ 1.0``."""
    make, read = next((m, r) for name, m, r in _holders() if name == holder)
    c, model = _pair()
    kept: list[Any] = []

    def keep(a: ca.Array) -> ca.Array:
        kept.append(make(a))
        return a

    result = keep(c * 2.0) + 1.0
    np.testing.assert_array_equal(np.asarray(result), model * 2.0 + 1.0)
    seen = read(kept[0])
    if holder == "a view":
        seen, expected = seen[1:], (model * 2.0)[1:]
    else:
        expected = model * 2.0
    np.testing.assert_array_equal(seen, expected)


def test_named_operands_are_never_written() -> None:
    c, model = _pair()
    doubled = c * 2.0

    def argument(t: ca.Array) -> ca.Array:
        return t + 1.0  # (3.14 pushes t with a borrowed reference: the count of a temporary)

    class Box:
        def __init__(self, value: ca.Array) -> None:
            self.value = value

    box, items = Box(c * 2.0), [c * 2.0]

    def closure() -> ca.Array:
        return doubled + 1.0

    for value in (doubled + 1.0, argument(doubled), box.value + 1.0, items[0] + 1.0, closure()):
        np.testing.assert_array_equal(np.asarray(value), model * 2.0 + 1.0)
    for name in (doubled, box.value, items[0]):
        np.testing.assert_array_equal(np.asarray(name), model * 2.0)


@needs_helper
def test_a_temporary_fished_out_by_a_gc_callback_never_changes_value(
    elisions: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Code that walks every object while the operator runs (a gc callback:
    here it runs at the backend's error-state question, after the helper's
    proof and before the write) can reach the temporary. Taken, it is
    retired (use raises ValueError); it never shows the result's values as
    its own."""
    c, model = _pair()
    fished: list[tuple[ca.Array, float]] = []
    before = _arrays_alive()

    def fish() -> None:
        for obj in gc.get_objects():
            if type(obj) is not ca.Array or id(obj) in before:
                continue
            if any(obj is seen for seen, _ in fished):
                continue
            try:  # (an Array being made has no data yet; a retired one raises)
                if obj.shape == (N,):
                    fished.append((obj, float(ca.sum(obj))))
            except (AttributeError, ValueError):
                continue

    backend = c._device.backend
    asked = backend.errors_may_surface

    def asked_while_fishing(name: str, dtype: Any) -> bool:
        fish()
        return asked(name, dtype)

    with monkeypatch.context() as patch:
        patch.setattr(backend, "errors_may_surface", asked_while_fishing)
        result = c * 2.0 + 1.0
    assert elisions == [id(result)]
    np.testing.assert_array_equal(np.asarray(result), model * 2.0 + 1.0)
    assert fished, "nothing was fished out"
    for obj, total in fished:
        assert obj is not result
        with pytest.raises(ValueError, match="temporary"):
            ca.sum(obj)
        assert total == float(np.sum(model * 2.0))


def _arrays_alive() -> dict[int, ca.Array]:
    """Every Array alive now (``c`` among them, and what other tests left),
    by id: a walk of the collector's objects during the expression looks
    past them (held here, no other object can take their ids)."""
    gc.collect()
    return {id(obj): obj for obj in gc.get_objects() if type(obj) is ca.Array}


def test_a_temporary_a_tracer_took_is_no_temporary(elisions: list[int]) -> None:
    """A tracer that runs at every instruction runs between ``c * 2.0`` and
    ``+ 1.0`` and can take the temporary from the collector's objects: it
    then holds a second reference, the helper proves nothing, and what it
    took keeps its values."""
    c, model = _pair()
    taken: list[ca.Array] = []
    before = _arrays_alive()

    def take() -> None:
        for obj in gc.get_objects():
            if type(obj) is ca.Array and id(obj) not in before and not any(obj is t for t in taken):
                try:
                    if obj.shape == (N,):
                        taken.append(obj)
                except (AttributeError, ValueError):
                    continue

    def compute() -> ca.Array:
        return c * 2.0 + 1.0

    result = _run_with_an_instruction_tracer(compute, take)
    np.testing.assert_array_equal(np.asarray(result), model * 2.0 + 1.0)
    temporaries = [t for t in taken if t is not result]
    assert temporaries, "the tracer took nothing"
    for t in temporaries:
        np.testing.assert_array_equal(np.asarray(t), model * 2.0)
    assert elisions == []


def _run_with_an_instruction_tracer(function: Callable[[], Any], at: Callable[[], None]) -> Any:
    """``function()`` with ``at()`` called before each of its instructions:
    through sys.monitoring (3.12+; 3.12.1's settrace gives no opcode events
    to a frame that asks for them in its call event), else an opcode tracer."""
    monitoring = getattr(sys, "monitoring", None)
    if monitoring is None:

        def tracer(frame: Any, event: str, arg: Any) -> Any:
            if frame.f_code is not function.__code__:
                return None
            frame.f_trace_opcodes = True
            if event == "opcode":
                at()
            return tracer

        return run_traced(tracer, function)
    tool = next(t for t in range(6) if monitoring.get_tool(t) is None)
    monitoring.use_tool_id(tool, "cowarray tests")
    try:
        monitoring.register_callback(tool, monitoring.events.INSTRUCTION, lambda *_: at())
        monitoring.set_local_events(tool, function.__code__, monitoring.events.INSTRUCTION)
        return function()
    finally:
        monitoring.set_local_events(tool, function.__code__, 0)
        monitoring.register_callback(tool, monitoring.events.INSTRUCTION, None)
        monitoring.free_tool_id(tool)


def test_threads_computing_expressions_never_share_a_result(elisions: list[int]) -> None:
    """Two threads switching every microsecond, each computing expressions
    whose temporaries take their results while the other's results die and
    free their blocks for reuse: no result shares memory with another, or
    with the source, and each has NumPy's values."""
    c, model = _pair()
    results: list[list[ca.Array]] = [[], []]

    def compute(into: list[ca.Array]) -> None:
        for k in range(12):
            # (c beside a temporary: the operator may take only the temporary)
            into.append(c - c * 0.5 + c * float(k) + 1.0)
            if len(into) > 3:
                del into[0]  # (dead results: blocks for the other thread's next ones)

    run_together(lambda: compute(results[0]), lambda: compute(results[1]))
    kept = results[0] + results[1]
    assert len(kept) == 6
    for thread in results:
        for k, value in zip(range(9, 12), thread, strict=True):
            expected = model - model * 0.5 + model * float(k) + 1.0
            np.testing.assert_array_equal(np.asarray(value), expected)
    if _compiled.TEMPORARIES is not None:
        assert elisions, "no temporary was taken"
    assert_no_aliases([c, *kept])


def test_errors_are_the_operators_own() -> None:
    small_ints = ca.asarray(np.zeros(1 << 18, dtype=np.int8))  # 256 KiB
    with pytest.raises(OverflowError, match="does not fit in int8"):
        _ = (small_ints * 1) + 1000
    c, _ = _pair()
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError):
        _ = (c * 0.0 + 1.0) / 0.0
    with pytest.raises(TypeError):
        _ = (c * 2.0) + "text"  # type: ignore[operator]
    with pytest.raises(ValueError, match="broadcast"):
        _ = (c * 2.0) + ca.ones(3)


def test_the_operators_look_and_bind_like_functions() -> None:
    c, model = _pair()
    add = ca.Array.__add__
    assert (add.__name__, add.__qualname__, add.__module__) == ("add", "add", "cowarray._operators")
    np.testing.assert_array_equal(np.asarray(c.__add__(1.0)), model + 1.0)
    np.testing.assert_array_equal(np.asarray(add(c, 1.0)), model + 1.0)
    np.testing.assert_array_equal(np.asarray(c.__rsub__(1.0)), 1.0 - model)
    inspect.signature(add)  # (help() and IDEs read it)
    with pytest.raises(TypeError):
        add(c, 1.0, 1)  # type: ignore[call-arg]


@needs_helper
def test_the_helper_says_it_is_on() -> None:
    assert ca.debug.temporary_elision() == "on"


@needs_helper
def test_pure_python_turns_the_helper_off() -> None:
    code = (
        "import cowarray as ca, types; "
        "print(ca.debug.temporary_elision()); print(type(ca.Array.__add__) is types.FunctionType)"
    )
    env = {**os.environ, "COWARRAY_PURE_PYTHON": "1"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout.split("\n")
    assert out[0].startswith("off") and out[1] == "True"


@needs_helper
def test_trace_shows_the_temporary_taken() -> None:
    c, _ = _pair()
    with ca.trace() as seen:
        result = c * 2.0 + 1.0
    (event,) = seen.events
    assert (event.kind, event.cause, event.copied_nbytes) == ("takeover", "temporary", 0)
    assert event.label == "written into a temporary" and event.shape == result.shape
    assert event.where.endswith(f":{inspect.currentframe().f_lineno - 4}")  # type: ignore[union-attr]
    assert seen.copies == 0
