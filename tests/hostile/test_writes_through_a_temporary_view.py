"""``x[a:b] += d`` writes ``x`` in place, with no copy, only where the
statement is proven to store the result back into ``x`` (design.md rule 12;
cowarray._core.write._write_through), and every way of breaking that
proof falls back to a copy that keeps every other value right.

Semantics are compared with NumPy run on eager copies; copies are read from
the counters and from the memory the array holds afterwards.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from _attack import gc_callback, run_together
from _patching import BackendPatch

import cowarray as ca
from cowarray import _interpreter


def _pair(n: int = 12) -> tuple[ca.Array, np.ndarray]:
    model = np.arange(n * n, dtype=np.float64).reshape(n, n)
    return ca.asarray(model), model.copy()


# Each spelling runs as the body of a function (the container a fast local),
# at module level (a name), through a closure and through a global.
_SPELLINGS = [
    "x[2:5] += 1.0",
    "x[1:-1, 1:-1] *= 2.0",
    "x[:, j] -= 3.0",
    "x[i] += 1.0",
    "x[i, j] /= 4.0",
    "x[1:-1] += 0.25 * (x[:-2] - 2.0 * x[1:-1] + x[2:])",
    "x[i:i + 2] += 1.0",
]


def _copied_region(statement: str) -> tuple[int, int]:
    """What ``statement`` copies on the way that does not write through the
    view: ``(1, the view's bytes)`` where its key reads a variable (``x[i]``,
    ``x[i:i + 2]``, ``x[:, j]``; nothing proves the key answers the same at
    the store, so the view's new values go into new memory first), else
    ``(0, 0)`` (a key of constants writes through; an element, ``x[i, j]``,
    is a new 0-d array, not a view)."""
    target = statement[: statement.index("=") - 2].rstrip()  # (x[...] before " op=")
    key = target[target.index("[") + 1 : -1]
    region = eval(target, {"x": np.zeros((12, 12)), "i": 3, "j": 4})
    if not any(name in key for name in "ij") or region.ndim == 0:
        return 0, 0
    return 1, int(region.nbytes)


def _as_function(statement: str) -> Any:
    namespace: dict[str, Any] = {}
    exec(f"def run(x, i, j):\n    {statement}\n    return x\n", namespace)
    return namespace["run"]


def _as_closure(statement: str) -> Any:
    namespace: dict[str, Any] = {}
    exec(
        f"def make(x, i, j):\n    def run():\n        {statement}\n"
        "        return x\n    return run\n",
        namespace,
    )
    return lambda x, i, j: namespace["make"](x, i, j)()


def _as_module(statement: str) -> Any:
    code = compile(statement, "<user module>", "exec")

    def run(x: Any, i: int, j: int) -> Any:
        namespace = {"x": x, "i": i, "j": j}
        exec(code, namespace)
        return namespace["x"]

    return run


def _as_global(statement: str) -> Any:
    namespace: dict[str, Any] = {}
    exec(f"def run(i, j):\n    global x\n    {statement}\n    return x\n", namespace)

    def run(x: Any, i: int, j: int) -> Any:
        namespace["x"] = x
        try:
            return namespace["run"](i, j)
        finally:
            del namespace["x"]

    return run


_SCOPES = {
    "function": _as_function,
    "closure": _as_closure,
    "module": _as_module,
    "global": _as_global,
}


@pytest.mark.parametrize("scope", list(_SCOPES))
@pytest.mark.parametrize("statement", _SPELLINGS)
def test_a_sole_holder_writes_in_place_through_the_temporary_view(
    statement: str, scope: str, copies: Any
) -> None:
    run = _SCOPES[scope](statement)
    x, model = _pair()
    memory = x._data
    copies.reset()
    result = run(x, 3, 4)
    run(model, 3, 4)
    assert result is x
    np.testing.assert_array_equal(np.asarray(x), model)
    assert copies.snapshot() == _copied_region(statement)
    assert x._data is memory


@pytest.mark.parametrize("statement", _SPELLINGS)
def test_another_holder_keeps_its_values(statement: str) -> None:
    run = _as_function(statement)
    x, model = _pair()
    clone = x.copy()  # shares x's memory: x's write must not reach it
    view = x[3]  # so does a view of x
    run(x, 3, 4)
    run(model, 3, 4)
    np.testing.assert_array_equal(np.asarray(x), model)
    np.testing.assert_array_equal(np.asarray(clone), _pair()[1])
    np.testing.assert_array_equal(np.asarray(view), _pair()[1][3])


def test_the_container_written_during_the_statement_no_longer_holds_the_view() -> None:
    # t = x[0:2] is taken; the value's code writes x, which copies away from
    # t and y. t and y are then the memory's only two holders, and t's write
    # must not go into the memory y sees.
    x, model = _pair()
    y = x.copy()

    def bump() -> float:
        x[5, 5] = -1.0
        return 1.0

    x[0:2] += bump()
    model[5, 5] = -1.0
    model[0:2] += 1.0
    np.testing.assert_array_equal(np.asarray(x), model)
    np.testing.assert_array_equal(np.asarray(y), _pair()[1])


class _ReadOnly:
    """Forwards reads to an array it hides and refuses every write."""

    def __init__(self, array: ca.Array) -> None:
        self._array = array

    def __getitem__(self, key: Any) -> Any:
        return self._array[key]

    def __setitem__(self, key: Any, value: Any) -> None:
        raise TypeError("read-only")


def test_a_container_that_is_not_an_array_is_never_written_through() -> None:
    inner, model = _pair()
    wrapper = _ReadOnly(inner)
    with pytest.raises(TypeError, match="read-only"):
        wrapper[0:2] += 1.0
    np.testing.assert_array_equal(np.asarray(inner), model)
    hidden = _ReadOnly(ca.asarray(model))  # the wrapper holds the only other reference
    with pytest.raises(TypeError, match="read-only"):
        hidden[1:3] *= 0.0
    np.testing.assert_array_equal(np.asarray(hidden._array), model)


def test_a_name_rebound_within_the_statement_is_not_trusted() -> None:
    namespace: dict[str, Any] = {}
    exec(
        "def rebind():\n    global x\n    x = other\n    return 1.0\n"
        "def run():\n    global x\n    x[0:2] += rebind()\n",
        namespace,
    )
    first, model = _pair()
    other = ca.asarray(model * 10)
    namespace.update(x=first, other=other)
    namespace["run"]()
    expected = model.copy()
    expected[0:2] += 1.0
    np.testing.assert_array_equal(np.asarray(first), expected)  # the container, as in NumPy
    np.testing.assert_array_equal(np.asarray(other), model * 10)
    assert namespace["x"] is other


def test_a_walrus_or_a_call_in_the_key_is_not_read_as_the_same_container() -> None:
    namespace: dict[str, Any] = {}
    exec(
        "def walrus(x, y):\n    x[0:2] += (x := y)[0:2]\n    return x\n"
        "def call(x, f):\n    x[f():3] += 1.0\n",
        namespace,
    )
    for name in ("walrus", "call"):
        code = namespace[name].__code__
        offsets = [
            i.offset
            for i in __import__("dis").get_instructions(code)
            if i.opname == "BINARY_OP" and i.argrepr.endswith("=")
        ]
        assert [_interpreter._container_variable(code, offset) for offset in offsets] == [None]
    x, model = _pair()
    y = ca.asarray(model + 100)
    namespace["walrus"](x, y)
    expected = model.copy()
    expected[0:2] += (model + 100)[0:2]
    np.testing.assert_array_equal(np.asarray(x), expected)
    np.testing.assert_array_equal(np.asarray(y), model + 100)


def test_an_attribute_container_takes_the_copying_path(copies: Any) -> None:
    class Holder:
        pass

    holder = Holder()
    holder.u, model = _pair()
    holder.u[0:2] += 1.0
    model[0:2] += 1.0
    np.testing.assert_array_equal(np.asarray(holder.u), model)


def test_under_a_tracer_the_write_copies_and_is_right(copies: Any) -> None:
    x, model = _pair()
    old = sys.gettrace()
    sys.settrace(lambda *args: None)
    try:
        x[0:2] += 1.0
    finally:
        sys.settrace(old)
    model[0:2] += 1.0
    np.testing.assert_array_equal(np.asarray(x), model)


def test_a_failed_write_through_changes_nothing() -> None:
    x, model = _pair()
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError):
        x[0:2] /= 0.0
    np.testing.assert_array_equal(np.asarray(x), model)
    with pytest.raises(TypeError):
        x[0:2] += "one"  # type: ignore[operator]
    np.testing.assert_array_equal(np.asarray(x), model)
    integers = ca.asarray(np.arange(6))
    with pytest.raises(TypeError, match="in-place"):
        integers[0:2] += 0.5
    np.testing.assert_array_equal(np.asarray(integers), np.arange(6))


def test_a_clone_taken_on_another_thread_is_never_torn() -> None:
    # Each statement adds 1.0 to every element of x through a temporary
    # view; a clone taken at any moment must hold equal elements (the value
    # before or after one whole write, never half of one).
    # (a clone thread that found the gate closed while the writer let it go
    # first copied eagerly as the write went in place: torn 1 run in 3 on 3.14)
    size = 1 << 16
    for _ in range(4):
        x = ca.zeros(size)

        def write_once(x: ca.Array = x) -> None:
            x[0:size] += 1.0

        def wrong(values: np.ndarray) -> str | None:
            return "torn" if values.min() != values.max() else None

        assert not _clones_during_writes(x, write_once, wrong)
        assert float(np.asarray(x)[0]) == 150.0


def _clones_during_writes(
    x: ca.Array, write_once: Callable[[], None], wrong: Callable[[np.ndarray], str | None]
) -> list[str]:
    """Run ``write_once`` 150 times while another thread clones ``x`` over and
    over: what ``wrong`` found wrong with the clones' values."""
    done = threading.Event()
    found: list[str] = []

    def write() -> None:
        for _ in range(150):
            write_once()
        done.set()

    def clone() -> None:
        while not done.is_set():
            said = wrong(np.asarray(ca.lazy_clone(x)))
            if said is not None:
                found.append(said)

    run_together(write, clone, timeout=60)
    return found


# -- x = x.copy(); x[k] += d: one copy of x, as NumPy's x.copy() makes --------------

# (the spellings whose temporary is a view of x; x[i, j] is an element)
_VIEW_SPELLINGS = [statement for statement in _SPELLINGS if "x[i, j]" not in statement]


def _running(name: str) -> bool:
    """Whether a function called ``name`` is on this thread's stack."""
    frame: Any = sys._getframe(1)
    while frame is not None and frame.f_code.co_name != name:
        frame = frame.f_back
    return frame is not None


@pytest.fixture
def no_page_cow() -> Iterator[None]:
    """Page COW off, its default (``.ci/run`` runs this file with it on: a
    big x then takes the old way, tests/core/test_page_cow.py)."""
    before = ca.set_page_cow(False)
    yield
    ca.set_page_cow(*before)


@pytest.mark.parametrize("scope", list(_SCOPES))
@pytest.mark.parametrize("statement", _VIEW_SPELLINGS)
def test_a_shared_container_copies_itself_once_and_writes_in_place(
    statement: str, scope: str, copies: Any, no_page_cow: None
) -> None:
    # Before: t = x[k] copied its region to write into, then the store
    # copied all of x (two copies, the region's bytes twice).
    run = _SCOPES[scope](statement)
    original, model = _pair()
    x = original.copy()
    kept = x[5]  # another holder of the memory: keeps the old values
    copies.reset()
    result = run(x, 3, 4)
    made = copies.snapshot()  # (before np.asarray exports a shared value: a copy)
    run(model, 3, 4)
    assert result is x
    view_copies, view_bytes = _copied_region(statement)
    assert made == (1 + view_copies, original._data.nbytes + view_bytes)
    assert not np.shares_memory(x._data, original._data)
    np.testing.assert_array_equal(np.asarray(x), model)
    np.testing.assert_array_equal(np.asarray(original), _pair()[1])
    np.testing.assert_array_equal(np.asarray(kept), _pair()[1][5])


def test_each_step_after_the_first_writes_in_place(copies: Any, no_page_cow: None) -> None:
    x, model = _pair()
    u = x.copy()
    copies.reset()
    for _ in range(5):
        u[1:-1] += 0.25 * (u[:-2] - 2.0 * u[1:-1] + u[2:])
        u[0] = u[-2]
        model[1:-1] += 0.25 * (model[:-2] - 2.0 * model[1:-1] + model[2:])
        model[0] = model[-2]
    assert copies.snapshot() == (1, x._data.nbytes)
    np.testing.assert_array_equal(np.asarray(u), model)
    np.testing.assert_array_equal(np.asarray(x), _pair()[1])


def test_a_view_whose_family_lives_still_reports_the_write() -> None:
    # NumPy's x[1:3] += 1 would change big: cowarray says so, shared or not.
    big, model = _pair()
    x = big[2:10]
    y = x.copy()
    with pytest.warns(ca.ViewWriteWarning):
        x[1:3] += 1.0
    expected = model[2:10].copy()
    expected[1:3] += 1.0
    np.testing.assert_array_equal(np.asarray(x), expected)
    np.testing.assert_array_equal(np.asarray(y), model[2:10])
    np.testing.assert_array_equal(np.asarray(big), model)


def test_memory_the_backend_cannot_view_again_takes_the_copying_path(copies: Any) -> None:
    # A transposed x copies into another order: t's region is copied, as before.
    base, model = _pair()
    x = base.T
    copies.reset()
    x[1:3] += 1.0
    expected = model.T.copy()
    expected[1:3] += 1.0
    np.testing.assert_array_equal(np.asarray(x), expected)
    np.testing.assert_array_equal(np.asarray(base), model)
    assert copies.snapshot()[0] >= 1


def test_views_taken_on_another_thread_while_x_moves_never_change(no_page_cow: None) -> None:
    # Every view of x taken during the statements keeps the values it had
    # when taken; x ends as NumPy's; the clone never moves.
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for _ in range(3):
            _views_during_moves()
    finally:
        sys.setswitchinterval(old)


def _views_during_moves() -> None:
    n = 64
    state: dict[str, Any] = {"x": ca.asarray(np.zeros((n, n)))}
    done = threading.Event()
    changed: list[str] = []

    def write() -> None:
        model = np.zeros((n, n))
        for _ in range(200):
            x = state["x"]
            clone = x.copy()  # x is shared again: the next statement moves it
            x[1:-1] += 1.0
            model[1:-1] += 1.0
            if not np.array_equal(np.asarray(x), model):
                changed.append("x")
            if np.asarray(clone).max() != model.max() - 1.0:
                changed.append("clone")
        done.set()

    def take_views() -> None:
        while not done.is_set():
            x = state["x"]
            views = [x[1:-1], x[0:4], ca.lazy_clone(x)]
            seen = [np.array(np.asarray(view)) for view in views]
            for view, values in zip(views, seen, strict=True):
                if not np.array_equal(np.asarray(view), values):
                    changed.append("view")

    run_together(write, take_views, timeout=60)
    assert not changed, changed[:5]


def test_a_gc_callback_that_reads_and_writes_during_the_move_sees_whole_values(
    no_page_cow: None,
) -> None:
    # The callback clones x and writes the array x was copied from, while
    # x moves onto its own copy (collections run at the new record's
    # allocation). The clone keeps its values, x gets exactly its own
    # write, and the source exactly the callback's.
    source, _ = _pair()
    state: dict[str, Any] = {"seen": [], "inside": 0, "armed": False}

    def attack() -> None:
        if not state["armed"] or not _running("_move_together"):
            return  # (not yet: the attack is on the move)
        state["armed"] = False
        state["inside"] += 1
        x = state["x"]
        clone = ca.lazy_clone(x)
        # (its values read without an export: exporting a shared value copies it)
        state["seen"].append((clone, clone._data.copy()))
        source[0, 0] = source[0, 0] - 5.0
        if state["inside"] % 2:
            x[0, 0] = 7.0  # outside the region the statement writes

    for _ in range(30):
        before = np.array(np.asarray(source))
        x = source.copy()
        state["x"] = x
        state["armed"] = True
        with gc_callback(attack):
            x[1:-1] += 1.0
        fired = not state["armed"]
        state["armed"] = False
        expected = before.copy()
        expected[1:-1] += 1.0
        if fired and state["inside"] % 2:
            expected[0, 0] = 7.0
        np.testing.assert_array_equal(np.asarray(x), expected)
        if fired:
            before[0, 0] -= 5.0
        np.testing.assert_array_equal(np.asarray(source), before)
    if not state["inside"]:
        pytest.skip("no collection ran while x moved: the attack did not happen")
    for clone, values in state["seen"]:
        np.testing.assert_array_equal(np.asarray(clone), values)


def test_the_move_refused_as_an_error_leaves_both_values_sharing(no_page_cow: None) -> None:
    # A CopyWarning turned into an error refuses x's copy: x and the array
    # it was copied from still share their memory, both unchanged.
    import warnings

    original, model = _pair()
    x = original.copy()
    with warnings.catch_warnings(), ca.warn_on_copy(min_bytes=1):
        warnings.simplefilter("error", ca.CopyWarning)
        with pytest.raises(ca.CopyWarning, match="1152 bytes"):
            x[1:-1] += 1.0
    assert ca.shares_buffer(x, original)
    np.testing.assert_array_equal(np.asarray(x), model)
    np.testing.assert_array_equal(np.asarray(original), model)


def test_the_operand_read_before_the_move_keeps_its_values(no_page_cow: None) -> None:
    # x[...] += x: the operand is x's memory as read before x moved. The
    # array x was copied from must not write that memory in place while the
    # write still reads it (a gc callback inside the write, here; another
    # thread, in general). (A big x: the pool's split runs Python inside the
    # write, where the collector can call back.)
    n = 1 << 21
    source = ca.asarray(np.ones(n))
    state: dict[str, Any] = {"armed": False, "fired": False}

    def attack() -> None:
        if not state["armed"]:
            return
        if np.shares_memory(state["x"]._data, source._data):
            return  # (not moved yet)
        if not _running("_write_in_place") or _running("_move_together"):
            return
        state["armed"] = False
        state["fired"] = True
        source[...] = 100.0

    for _ in range(3):
        source[...] = 1.0
        x = source.copy()
        state.update(x=x, armed=True)
        with gc_callback(attack):
            x[...] += x
        state["armed"] = False
        assert np.array_equal(x._data, np.full(n, 2.0))
        if state["fired"]:
            break
    if not state["fired"]:
        pytest.skip("no collection ran inside the in-place write: the attack did not happen")
    assert np.array_equal(source._data, np.full(n, 100.0))


def test_a_tracer_started_inside_the_move_never_joins_new_record_to_old_memory(
    no_page_cow: None,
) -> None:
    # A line tracer, set by a gc callback while x moves, runs between the
    # two stores of x's slots and clones x there. The clone must not pair
    # the new record with the old memory: it would change when the array
    # x was copied from writes that memory in place.
    import gc
    import inspect

    from cowarray._core import cow

    lines, first = inspect.getsourcelines(cow._store)
    data_line = first + next(i for i, line in enumerate(lines) if "holder._data = data" in line)
    state: dict[str, Any] = {"armed": False, "clone": None}

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        if event == "call":
            return tracer if frame.f_code is cow._store.__code__ else None
        if event == "line" and frame.f_lineno == data_line and frame.f_locals["holder"] is x:
            sys.settrace(None)
            state["clone"] = ca.lazy_clone(x)
        return tracer

    def attack() -> None:
        if state["armed"] and _running("_move_together"):
            state["armed"] = False
            sys.settrace(tracer)

    try:
        for _ in range(20):  # (until a collection runs inside the move)
            source = ca.asarray(np.arange(6.0))
            x = source.copy()
            gc.collect()  # (3.14's collector may wait out a threshold of 1 after a full pass)
            state["armed"] = True
            with gc_callback(attack):
                x[1:-1] += 1.0
            sys.settrace(None)
            state["armed"] = False
            if state["clone"] is not None:
                break
    finally:
        sys.settrace(None)
    clone = state["clone"]
    if clone is None:
        pytest.skip("the tracer did not run between the stores: the attack did not happen")
    seen = clone._data.copy()
    source[0] = -100.0  # its memory's sole holder now: written in place
    np.testing.assert_array_equal(clone._data, seen)
    np.testing.assert_array_equal(x._data, [0.0, 2.0, 3.0, 4.0, 5.0, 5.0])


def test_the_operand_read_before_the_move_keeps_its_values_across_threads(
    no_page_cow: None,
) -> None:
    # As above, with another thread writing the clone (its own value) as
    # soon as x has moved, while x[...] += x still reads the old memory (a
    # big x: NumPy lets other threads in during the loop).
    n = 1 << 21
    state: dict[str, Any] = {"clone": None, "x": None, "stop": False}
    go = threading.Event()
    wrong: list[int] = []

    def write_the_clone() -> None:
        while not state["stop"]:
            if not go.wait(timeout=0.1):
                continue
            go.clear()
            clone, x = state["clone"], state["x"]
            if clone is None:
                continue
            old = clone._data
            for _ in range(20000):  # until x has moved off the memory
                if not np.shares_memory(x._data, old):
                    break
            for _ in range(50):
                clone[...] = -1.0
            state["clone"] = None

    thread = threading.Thread(target=write_the_clone)
    thread.start()
    try:
        x = ca.asarray(np.ones(n))
        for attempt in range(20):
            state["x"], state["clone"] = x, x.copy()
            go.set()
            x[...] += x
            if not np.array_equal(x._data, np.full(n, 2.0)):
                wrong.append(attempt)
            for _ in range(1000):
                if state["clone"] is None:
                    break
                threading.Event().wait(0.001)
            x = ca.asarray(np.ones(n))
    finally:
        state["stop"] = True
        go.set()
        thread.join(timeout=30)
    assert not wrong, f"x's new values read the clone's writes in {len(wrong)} of 20 rounds"


# -- x[a:b] += x[c:d]: the operand reads x's memory too ------------------------------

# (target, operator, operand, whether the operand's elements overlap the target's)
_OWN_OPERANDS = [
    ("x[0:3]", "+=", "x[3:6]", False),
    ("x[:, 0]", "-=", "x[:, 1]", False),
    ("x[i]", "*=", "x[j]", False),
    ("x[::2]", "+=", "x[1::2]", False),
    ("x[1:]", "-=", "x[:-1]", True),
    ("x[:, 1:]", "+=", "x[:, :-1]", True),
    ("x[2:5]", "/=", "x[1:4]", True),
]
_OWN_IDS = [f"{target} {op} {operand}" for target, op, operand, _ in _OWN_OPERANDS]


def _operand_bytes(operand: str) -> int:
    model = np.zeros((12, 12))  # (NumPy's: ca.asarray would count a copy)
    return int(eval(operand, {"x": model, "i": 3, "j": 4}).nbytes)


@pytest.mark.parametrize("scope", list(_SCOPES))
@pytest.mark.parametrize(("target", "op", "operand", "overlapping"), _OWN_OPERANDS, ids=_OWN_IDS)
def test_an_operand_of_x_own_memory_copies_at_most_its_region(
    target: str, op: str, operand: str, overlapping: bool, scope: str, copies: Any
) -> None:
    # The rule: a write whose value shares the written array's
    # memory copies the value (the region read), never the whole buffer.
    # Elements the write leaves alone are not copied at all, as in NumPy; an
    # overlapping operand is copied once, as NumPy copies it inside the ufunc.
    run = _SCOPES[scope](f"{target} {op} {operand}")
    x, model = _pair()
    memory = x._data
    view_copies, view_bytes = _copied_region(f"{target} {op} {operand}")
    expected = (1, _operand_bytes(operand)) if overlapping else (view_copies, view_bytes)
    copies.reset()
    run(x, 3, 4)
    run(model, 3, 4)
    np.testing.assert_array_equal(np.asarray(x), model)
    assert x._data is memory  # written in place: x never copied
    assert copies.snapshot() == expected


@pytest.mark.parametrize(("target", "op", "operand", "overlapping"), _OWN_OPERANDS, ids=_OWN_IDS)
def test_an_operand_held_elsewhere_keeps_its_values(
    target: str, op: str, operand: str, overlapping: bool
) -> None:
    namespace: dict[str, Any] = {}
    exec(f"def run(x, v, i, j):\n    {target} {op} v\n    return x\n", namespace)
    x, model = _pair()
    v = eval(operand, {"x": x, "i": 3, "j": 4})
    expected_v = eval(operand, {"x": model, "i": 3, "j": 4}).copy()  # (a value: eager)
    namespace["run"](x, v, 3, 4)
    namespace["run"](model, expected_v.copy(), 3, 4)
    np.testing.assert_array_equal(np.asarray(x), model)
    np.testing.assert_array_equal(np.asarray(v), expected_v)


@pytest.mark.parametrize(("target", "op", "operand", "overlapping"), _OWN_OPERANDS, ids=_OWN_IDS)
def test_an_operand_of_a_shared_x_leaves_the_other_holder_alone(
    target: str, op: str, operand: str, overlapping: bool, copies: Any, no_page_cow: None
) -> None:
    # x = source.copy() first: x moves onto one copy of its memory (as
    # NumPy's x.copy()), plus the overlapping operand's region.
    run = _as_function(f"{target} {op} {operand}")
    source, model = _pair()
    before = model.copy()
    x = source.copy()
    whole = model.nbytes
    view_copies, view_bytes = _copied_region(f"{target} {op} {operand}")
    if overlapping:
        expected = (2, whole + _operand_bytes(operand))
    else:
        expected = (1 + view_copies, whole + view_bytes)
    copies.reset()
    run(x, 3, 4)
    assert copies.snapshot() == expected
    run(model, 3, 4)
    np.testing.assert_array_equal(np.asarray(x), model)
    np.testing.assert_array_equal(np.asarray(source), before)


def test_a_clone_during_a_write_beside_its_operand_is_never_torn() -> None:
    # x[0] += x[1]: x, the temporary view and the operand share x's memory
    # while the write goes in place; a clone of x taken on another thread at
    # any moment holds a whole row 0 (before or after one write) and row 1
    # unchanged.
    for _ in range(4):
        x = ca.zeros((2, 1 << 15))
        x[1] = 1.0

        def write_once(x: ca.Array = x) -> None:
            x[0] += x[1]

        def wrong(values: np.ndarray) -> str | None:
            if values[0].min() != values[0].max():
                return "row 0 torn"
            return None if (values[1] == 1.0).all() else "row 1 changed"

        assert not _clones_during_writes(x, write_once, wrong)
        np.testing.assert_array_equal(np.asarray(x), [[150.0] * (1 << 15), [1.0] * (1 << 15)])


def test_an_operand_that_leaves_before_the_write_is_decided_is_not_counted_twice(
    backend_patch: BackendPatch,
) -> None:
    # Code that runs between the operator's look at the operand and the
    # core's decision (a gc callback, or another thread, there; run here
    # from the backend's must_copy_before_write, which the write asks just
    # before deciding) writes the operand, which leaves x's memory, and
    # clones x, a new holder. The holders are then x, its temporary view and
    # the clone: the write must not take the clone for the operand and go in
    # place under it.
    import gc

    backend = type(ca.zeros(1)._device.backend)
    asked = backend.must_copy_before_write
    state: dict[str, Any] = {"armed": False, "clone": None}

    def ask(self: Any, data: Any) -> bool:
        if state["armed"] and _running("_write_through"):  # (cowarray._core.write)
            state["armed"] = False
            x = state["x"]
            operand = next(
                o
                for o in gc.get_objects()
                if type(o) is ca.Array
                and o is not x
                and o._buf is x._buf
                and o._data.shape == (6,)
                and np.shares_memory(o._data, x._data[1])
            )
            operand[...] = -7.0  # its own write: it copies, and leaves x's memory
            state["clone"] = ca.lazy_clone(x)
        return bool(asked(self, data))

    backend_patch.setattr(backend, "must_copy_before_write", ask)
    x, model = _pair(6)
    state.update(x=x, armed=True)
    with pytest.warns(ca.ViewWriteWarning):  # (the operand's write reaches only itself)
        x[0] += x[1]
    clone = state["clone"]
    assert clone is not None
    # The clone holds x as it was; x's write read the operand's old values.
    np.testing.assert_array_equal(np.asarray(clone), model)
    model[0] += model[1]
    np.testing.assert_array_equal(np.asarray(x), model)
