"""``x[k] op= v`` writes ``x`` in place only where the statement stores back
exactly what was written, into exactly the array written (issue 46, rows 2
and 3; docs/design.md rules 1, 3 and 12; cowarray._core.write._write_through
and cowarray._core.write.write_through / reader_may_stay).

Python runs ``x[k] op= v`` as ``t = x[k]; t op= v; x[k] = t``: the
container is the object loaded before the statement ran, and the key's
``__index__`` is called once at the subscript and once at the store. Code
that runs within the statement (a call in the value, the value's
``__float__``, the key's ``__index__``, a ``__del__``, a weak reference's
callback, a ``sys.monitoring`` callback) may rebind the variable ``x`` or
change what the key answers; the eager-copy model (every derived array an
eager copy, ``t`` included) then stores ``t`` into the container the
statement holds, at the index the store computes, and nothing else changes.
"""

from __future__ import annotations

import sys
import weakref
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

import numpy as np
import pytest

import cowarray as ca

# -- row 2: code in the statement rebinds the container's variable ------------------


class _FloatThatRuns(float):
    """A float whose ``__float__`` runs ``hook`` first (cowarray reads a
    float subclass through it)."""

    hook: Callable[[], None]

    def __float__(self) -> float:
        self.hook()
        return 1.0


class _IndexThatRuns:
    """A slice bound whose ``__index__`` runs ``hook`` (each call) and answers 0."""

    def __init__(self, hook: Callable[[], None]) -> None:
        self.hook = hook

    def __index__(self) -> int:
        self.hook()
        return 0


class _Dying:
    """Runs ``hook`` when it dies (within the statement that made it)."""

    def __init__(self, hook: Callable[[], None]) -> None:
        self.hook = hook

    def __del__(self) -> None:
        self.hook()


class _Watched:
    """Dies within the statement that made it; a weak reference's callback
    runs ``hook`` then."""

    references: ClassVar[list[weakref.ref[Any]]] = []

    def __init__(self, hook: Callable[[], None]) -> None:
        self.references.append(weakref.ref(self, lambda _: hook()))


# Where the statement runs the code: each is ``x[0:4] += 1.0`` to the model.
_WHERE = {
    "a call in the value": "x[0:4] += hook()",
    "the value's __float__": "x[0:4] += v",
    "the key's __index__": "x[k:4] += 1.0",
    "a __del__ in the value": "x[0:4] += (Dying(hook), 1.0)[1]",
    "a weakref callback in the value": "x[0:4] += (Watched(hook), 1.0)[1]",
}

# What the variable is rebound to (made from the original, at that moment);
# each holds the original's values then, and keeps them (an eager copy).
_TARGETS: dict[str, Callable[[ca.Array, ca.Array], ca.Array]] = {
    "a lazy clone of it": lambda x, before: ca.lazy_clone(x),
    "a clone made before the statement": lambda x, before: before,
    "a view of it": lambda x, before: x[...],
    "move(x)": lambda x, before: ca.move(x),
}

_SCOPES = ["global", "local", "closure"]


def _compiled(scope: str, statement: str) -> tuple[Callable[..., Any], dict[str, Any]]:
    namespace: dict[str, Any] = {}
    if scope == "global":
        source = f"def run():\n    global x\n    {statement}\n"
    elif scope == "local":
        source = f"def run(x):\n    {statement}\n    return x\n"
    else:
        source = (
            f"def make(x):\n    def run():\n        nonlocal x\n        {statement}\n"
            "        return x\n    return run\n"
        )
    exec(compile(source, f"<statement in a {scope} scope>", "exec"), namespace)
    return namespace.get("run") or namespace["make"], namespace


def _statement_frame() -> Any:
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_name != "run":
        frame = frame.f_back
    assert frame is not None
    return frame


@pytest.mark.parametrize("scope", _SCOPES)
@pytest.mark.parametrize("target", list(_TARGETS))
@pytest.mark.parametrize("where", list(_WHERE))
def test_code_in_the_statement_that_rebinds_the_container_changes_only_the_container(
    where: str, target: str, scope: str
) -> None:
    if scope != "global" and sys.version_info < (3, 13):
        pytest.skip("a function's f_locals writes reach its variables from 3.13 (PEP 667)")
    original = np.arange(12.0)
    x = ca.asarray(original)
    before = ca.lazy_clone(x)
    rebound: list[ca.Array] = []

    def hook() -> float:
        if not rebound:
            rebound.append(_TARGETS[target](x, before))
            if scope == "global":
                namespace["x"] = rebound[0]
            else:
                _statement_frame().f_locals["x"] = rebound[0]
        return 1.0

    value = _FloatThatRuns(1.0)
    value.hook = hook
    run, namespace = _compiled(scope, _WHERE[where])
    namespace.update(
        x=x, hook=hook, v=value, k=_IndexThatRuns(hook), Dying=_Dying, Watched=_Watched
    )
    if scope == "closure":
        run = run(x)
    moved = target == "move(x)"
    if moved:
        # The container was moved: the store into it (or, for the key, the
        # subscript itself) raises, and the array move() made keeps its values.
        with pytest.raises(ValueError, match="moved"):
            run() if scope != "local" else run(x)
    else:
        result = run() if scope != "local" else run(x)
        model = original.copy()
        model[0:4] += 1.0
        np.testing.assert_array_equal(np.asarray(x), model, err_msg="the container")
        if scope != "global":
            assert result is rebound[0]  # (the rebinding took)
    if scope == "global":
        assert namespace["x"] is rebound[0]  # (the rebinding took)
    np.testing.assert_array_equal(
        np.asarray(rebound[0]), original, err_msg=f"{target}, which the statement never wrote"
    )
    np.testing.assert_array_equal(np.asarray(before), original, err_msg="the earlier clone")


@pytest.fixture
def monitoring() -> Iterator[Any]:
    """A free ``sys.monitoring`` tool id (3.12+), every event and callback
    of it cleared after the test."""
    if not hasattr(sys, "monitoring"):
        pytest.skip("sys.monitoring is new in 3.12")
    tool = next(
        (i for i in range(6) if i != 0 and sys.monitoring.get_tool(i) is None),
        None,
    )
    if tool is None:
        pytest.skip("no sys.monitoring tool id free")
    sys.monitoring.use_tool_id(tool, "cowarray hostile test")
    try:
        yield tool
    finally:
        for event in (sys.monitoring.events.PY_START, sys.monitoring.events.PY_RETURN):
            sys.monitoring.register_callback(tool, event, None)
        sys.monitoring.set_local_events(tool, ca.Array.__iadd__.__code__, 0)
        sys.monitoring.free_tool_id(tool)


def test_a_monitoring_callback_that_rebinds_the_container_changes_only_the_container(
    monitoring: int,
) -> None:
    # sys.monitoring (3.12) runs code at events that neither sys.gettrace nor
    # sys.getprofile shows: here at the start of the in-place operator.
    namespace: dict[str, Any] = {}
    exec("def run():\n    global x\n    x[0:4] += 1.0\n", namespace)
    original = np.arange(12.0)
    x = ca.asarray(original)
    rebound: list[ca.Array] = []

    def on_start(code: Any, offset: int) -> None:
        if not rebound:
            rebound.append(ca.lazy_clone(x))
            namespace["x"] = rebound[0]

    events = sys.monitoring.events
    sys.monitoring.register_callback(monitoring, events.PY_START, on_start)
    sys.monitoring.set_local_events(monitoring, ca.Array.__iadd__.__code__, events.PY_START)
    namespace["x"] = x
    namespace["run"]()
    sys.monitoring.set_local_events(monitoring, ca.Array.__iadd__.__code__, 0)
    model = original.copy()
    model[0:4] += 1.0
    np.testing.assert_array_equal(np.asarray(x), model, err_msg="the container")
    assert rebound and namespace["x"] is rebound[0]
    np.testing.assert_array_equal(np.asarray(rebound[0]), original, err_msg="the clone")


# -- row 3: the store computes another index, or other code stores first -----------


class _Answers:
    """An index whose ``__index__`` gives ``answers`` in turn (the last one
    from then on), counting its calls."""

    def __init__(self, *answers: int) -> None:
        self.answers = list(answers)
        self.calls = 0

    def __index__(self) -> int:
        answer = self.answers[min(self.calls, len(self.answers) - 1)]
        self.calls += 1
        return answer


def test_a_row_key_that_answers_another_row_at_the_store_writes_only_that_row() -> None:
    # x[k] += bump(): the subscript reads row 2, bump() makes k answer 3, and
    # the store writes row 2 + 10 into row 3. Row 2 keeps its values.
    namespace: dict[str, Any] = {}
    exec("def run(x, k, bump):\n    x[k] += bump()\n", namespace)
    original = np.arange(20.0).reshape(5, 4)
    x = ca.asarray(original)
    k = _Answers(2)

    def bump() -> float:
        k.answers = [3]
        return 10.0

    namespace["run"](x, k, bump)
    model = original.copy()
    t = model[2].copy()  # the subscript, k answering 2
    t += 10.0
    model[3] = t  # the store, k answering 3
    assert k.calls == 2  # once at the subscript, once at the store
    np.testing.assert_array_equal(np.asarray(x), model)


_SHIFTED = {
    "x[a:b] += 1.0": ((12,), lambda a, b: slice(a, b), np.add, 1.0),
    "x[a:b, 1:3] *= 2.0": ((8, 4), lambda a, b: (slice(a, b), slice(1, 3)), np.multiply, 2.0),
    "x[a, 1:3] -= 5.0": ((8, 4), lambda a, b: (a, slice(1, 3)), np.subtract, 5.0),
}


@pytest.mark.parametrize("statement", list(_SHIFTED))
def test_bounds_that_answer_differently_at_the_store_write_only_where_the_store_says(
    statement: str,
) -> None:
    # a answers 1 at the subscript and 3 at the store, b 4 and then 6: the
    # model reads x[1:4], computes, and stores into x[3:6].
    shape, key, op, operand = _SHIFTED[statement]
    namespace: dict[str, Any] = {}
    exec(f"def run(x, a, b):\n    {statement}\n", namespace)
    original = np.arange(float(np.prod(shape))).reshape(shape)
    x = ca.asarray(original)
    namespace["run"](x, _Answers(1, 3), _Answers(4, 6))
    model = original.copy()
    t = model[key(1, 4)].copy()  # the subscript, with the first answers
    op(t, operand, out=t)
    model[key(3, 6)] = t  # the store, with the second
    np.testing.assert_array_equal(np.asarray(x), model)


def test_a_monitoring_callback_that_stores_the_temporary_elsewhere_keeps_that_store(
    monitoring: int,
) -> None:
    # x[0:4] += 1.0 is t = x[0:4]; t += 1.0; x[0:4] = t. A sys.monitoring
    # callback at the in-place operator's return (where neither gettrace nor
    # getprofile shows it) gets t and stores it into x[4:8] before the
    # statement's own store. Both stores happen, in that order.
    namespace: dict[str, Any] = {}
    exec("def run(x):\n    x[0:4] += 1.0\n", namespace)
    original = np.arange(12.0)
    x = ca.asarray(original)
    stored: list[ca.Array] = []

    def on_return(code: Any, offset: int, value: Any) -> None:
        if not stored and type(value) is ca.Array and value is not x:
            stored.append(value)
            x[4:8] = value

    events = sys.monitoring.events
    sys.monitoring.register_callback(monitoring, events.PY_RETURN, on_return)
    sys.monitoring.set_local_events(monitoring, ca.Array.__iadd__.__code__, events.PY_RETURN)
    namespace["run"](x)
    sys.monitoring.set_local_events(monitoring, ca.Array.__iadd__.__code__, 0)
    assert stored
    model = original.copy()
    t = model[0:4].copy()
    t += 1.0
    model[4:8] = t  # the callback's store
    model[0:4] = t  # the statement's
    np.testing.assert_array_equal(np.asarray(x), model)


def test_a_store_whose_bounds_answer_twice_never_writes_the_value_it_reads() -> None:
    # u[a:b] = u[4:8] with a answering 0 and then 2, b 4 and then 6: NumPy
    # converts each bound once. The value, a view of u's memory, is its own
    # array: whatever region the store writes, the value keeps [4, 5, 6, 7].
    u = ca.arange(12.0)
    value = u[4:8]
    u[_Answers(0, 2) : _Answers(4, 6)] = value
    model = np.arange(12.0)
    model_value = model[4:8].copy()
    model[_Answers(0, 2) : _Answers(4, 6)] = model_value
    np.testing.assert_array_equal(np.asarray(value), model_value, err_msg="the value")
    np.testing.assert_array_equal(np.asarray(u), model, err_msg="the array stored into")
