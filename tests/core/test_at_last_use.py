"""A functional update writes in place only when old x can never be seen again.

That is proven for a temporary (exact reference counts, calibrated at import)
and for ``move(x)``; ``x = x.at[i].set(v)`` keeps old ``x`` a value and
copies (``x[i] = v`` is the zero-copy spelling). Every case compares with the
value-semantics model: whatever still refers to the old array keeps its
values; the copy counters tell whether the update copied.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import pytest
from _patching import BackendPatch

import cowarray as ca
from cowarray import _interpreter as last_use
from cowarray._backends.numpy import NUMPY_BACKEND
from cowarray._core import cow
from cowarray.testing import to_numpy


def copies() -> int:
    return cow.COUNTERS.copies


def test_rebinding_the_only_name_copies_and_setitem_does_not(
    backend_device: ca.Device,
) -> None:
    x = ca.zeros(100_000, device=backend_device)
    cow.COUNTERS.reset()
    x = x.at[3].set(1.0)
    assert copies() == 1  # old x might still be seen (a wrapper, a tracer, a thread)
    x[4] = 2.0
    x[5:7] = 3.0
    assert copies() == 1
    x = ca.move(x).at[ca.asarray([7, 7], device=backend_device)].add(1.0, mode="clip")
    assert copies() == 1
    assert to_numpy(x)[2:9].tolist() == [0.0, 1.0, 2.0, 3.0, 3.0, 2.0, 0.0]


def test_another_name_keeps_old_x(backend_device: ca.Device) -> None:
    x = ca.zeros(10, device=backend_device)
    cow.COUNTERS.reset()
    y = x.at[0].set(1.0)
    assert copies() == 1
    assert float(x[0]) == 0.0 and float(y[0]) == 1.0


def test_an_alias_keeps_its_values() -> None:
    x = ca.zeros(10)
    alias = x
    cow.COUNTERS.reset()
    x = x.at[0].set(1.0)
    assert copies() == 1
    assert float(alias[0]) == 0.0 and float(x[0]) == 1.0


def test_a_container_keeps_its_values() -> None:
    x = ca.zeros(10)
    kept = [x]
    x = x.at[0].set(1.0)
    assert float(kept[0][0]) == 0.0 and float(x[0]) == 1.0


def test_a_walrus_that_saves_old_x_keeps_it() -> None:
    x = ca.zeros(10)
    saved: Any = None
    x = x.at[(saved := x, x := ca.zeros(1), 0)[2]].set(1.0)
    assert float(saved[0]) == 0.0


def test_a_conditional_expression_keeps_value_semantics() -> None:
    x = ca.zeros(10)
    alias = x
    flag = True
    x = x.at[0].set(1.0) if flag else x
    assert float(alias[0]) == 0.0 and float(x[0]) == 1.0


def test_a_kept_bound_method_keeps_old_x() -> None:
    x = ca.zeros(10)
    method = x.at[0].set
    x = method(1.0)
    assert float(method.__self__.array[0]) == 0.0 and float(x[0]) == 1.0


def test_module_level_rebinding_copies_and_move_does_not() -> None:
    namespace: dict[str, Any] = {"ca": ca, "x": ca.zeros(1000)}
    cow.COUNTERS.reset()
    exec("x = x.at[1].set(2.0)\nx = x.at[1].multiply(3.0)", namespace)
    assert copies() == 2
    assert float(namespace["x"][1]) == 6.0
    exec("x = ca.move(x).at[1].set(0.0)", namespace)  # the explicit hand-over
    assert copies() == 2


GLOBAL_X = ca.zeros(1000)


def test_global_rebinding_copies() -> None:
    global GLOBAL_X
    cow.COUNTERS.reset()
    GLOBAL_X = GLOBAL_X.at[0].add(1.0)
    assert copies() == 1 and float(GLOBAL_X[0]) == 1.0


def test_under_a_tracer_the_update_copies() -> None:
    x = ca.zeros(10)
    old = sys.gettrace()
    sys.settrace(lambda *args: None)
    try:
        cow.COUNTERS.reset()
        x = x.at[0].set(1.0)
    finally:
        sys.settrace(old)
    assert copies() == 1 and float(x[0]) == 1.0


def test_an_exception_after_the_write_leaves_x_unchanged(backend_patch: BackendPatch) -> None:
    def write_then_fail(target: Any, index: Any, values: Any, op: str) -> None:
        target[index] = values
        raise KeyboardInterrupt

    x = ca.arange(5.0)
    before = np.array(x, copy=True)
    backend_patch.setattr(NUMPY_BACKEND, "index_update", write_then_fail)
    with pytest.raises(KeyboardInterrupt):
        x = x.at[ca.asarray([0, 3])].set(-1.0)
    np.testing.assert_array_equal(np.asarray(x), before)


def test_rebinding_a_shared_buffer_copies_once_and_keeps_the_clone(
    backend_device: ca.Device,
) -> None:
    x = ca.zeros(1000, device=backend_device)
    clone = ca.lazy_clone(x)
    cow.COUNTERS.reset()
    x = x.at[0].set(1.0)
    assert (copies(), cow.COUNTERS.bytes_copied) == (1, 8000)
    assert float(clone[0]) == 0.0 and float(x[0]) == 1.0


def test_a_bad_index_on_the_in_place_path_names_it_and_changes_nothing(
    backend_device: ca.Device,
) -> None:
    x = ca.arange(5.0, device=backend_device)
    before = to_numpy(x)
    with pytest.raises(IndexError, match=r"x.at\[...\].add: index 9 is out of range"):
        x = x.at[ca.asarray([0, 9], device=backend_device)].add(1.0)
    with pytest.raises(IndexError, match=r"x.at\[...\].set: index 7 is out of range"):
        x = x.at[7].set(1.0)
    np.testing.assert_array_equal(to_numpy(x), before)


def test_a_chain_of_updates_copies_at_most_once_on_every_cpython(
    backend_device: ca.Device,
) -> None:
    assert last_use.minimum_array != -1, "the calibration found no exact count"
    cow.COUNTERS.reset()
    index = ca.asarray([4, 4], device=backend_device)
    y = ca.zeros(1000, device=backend_device).at[3].set(1.0).at[index].add(1.0).at[5].set(3.0)
    # The first update's array is a temporary: the counts prove it up to 3.13;
    # from 3.14 they cannot (borrowed references), and it copies. Every later
    # update of the chain takes its buffer: an update's result is donated.
    assert copies() == (0 if last_use.at_count_proves else 1)
    assert to_numpy(y)[3:6].tolist() == [1.0, 2.0, 3.0]


def test_a_kept_at_object_of_a_temporary_keeps_its_array_a_value() -> None:
    # u = f().at[0] shows, from 3.14 on, the counts of f().at[0]: the update
    # must not take the array (it copies), and u works again.
    u = ca.zeros(4).at[0]
    first = u.set(1.0)
    second = u.add(2.0)
    assert float(first[0]) == 1.0 and float(second[0]) == 2.0
    assert float(u.array[0]) == 0.0


def test_class_bodies_keep_value_semantics() -> None:
    class Namespace:
        x = ca.zeros(4)
        alias = x
        x = x.at[0].set(1.0)

        def method(self) -> object:
            return super().__init__  # a __class__ cell in the class body

    assert float(Namespace.alias[0]) == 0.0 and float(Namespace.x[0]) == 1.0
    assert "__class__" not in vars(Namespace)


def test_a_kept_at_object_of_a_moved_array_gives_its_buffer_once() -> None:
    # move(x) donates the buffer to the first update through .at. Up to 3.13
    # the counts see a kept .at[...] and it copies; from 3.14 they cannot, the
    # first update takes the buffer and a second one says so (never a wrong value).
    u = ca.move(ca.zeros(4)).at[0]
    first = u.set(1.0)
    assert float(first[0]) == 1.0
    if last_use.at_count_proves:
        assert float(u.add(2.0)[0]) == 2.0
    else:
        with pytest.raises(ValueError, match="moved"):
            u.add(2.0)
    assert float(first[0]) == 1.0
