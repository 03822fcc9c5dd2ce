"""np.asarray(x) aliases x and nothing else (docs/design.md rule 4).

The export is writable on purpose (compiled consumers need it, as they need
``tensor.numpy()``), so the attacks try to make a write through it reach a
*second* cowarray value: clones and slices taken before and while it lives,
NumPy views derived from it, its ``.base`` rebuilt, torch and DLPack
round trips, and a gc callback that clones while NumPy writes.
"""

from __future__ import annotations

import contextlib
import gc

import numpy as np
import pytest

import cowarray as ca


def _every_array_reachable_from(view: np.ndarray) -> list[np.ndarray]:
    found: list[np.ndarray] = []
    seen: set[int] = set()
    todo: list[object] = [view]
    while todo:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, (type, type(gc))):
            continue
        seen.add(id(obj))
        if isinstance(obj, np.ndarray):
            found.append(obj)
        todo.extend(gc.get_referents(obj))
        with contextlib.suppress(AttributeError):
            todo.append(obj.base)  # type: ignore[attr-defined]
    return found


def test_writes_through_anything_reachable_from_the_export_reach_no_other_value() -> None:
    x = ca.arange(6.0)
    before = [ca.lazy_clone(x), x[1:4], ca.reshape(x, (2, 3)).T]
    view = np.asarray(x)
    during = [ca.lazy_clone(x), x[2:], ca.asarray(view), ca.from_dlpack(view)]
    expected = [np.asarray(a, copy=True) for a in before + during]
    for reachable in _every_array_reachable_from(view[1:]):
        if reachable.flags.writeable:
            reachable[...] = -7.0
    for array, values in zip(before + during, expected, strict=True):
        np.testing.assert_array_equal(np.asarray(array, copy=True), values)
    assert np.asarray(x, copy=True).tolist() == [-7.0] * 6  # x itself: the alias


def test_the_export_ends_with_its_last_derived_view_and_lazy_sharing_resumes() -> None:
    x = ca.zeros(4)
    derived = np.asarray(x)[::2]
    gc.collect()
    assert ca.cow_info(x).state == "exposed"
    clone = ca.lazy_clone(x)
    assert not ca.shares_buffer(x, clone)  # an eager copy while NumPy may write
    derived[0] = 1.0
    assert float(clone[0]) == 0.0
    del derived
    assert ca.cow_info(x).state == "private"
    assert ca.shares_buffer(x, ca.lazy_clone(x))


def test_a_round_trip_through_torch_gives_a_copy_not_a_second_alias() -> None:
    torch = pytest.importorskip("torch")
    x = ca.zeros(3)
    tensor = torch.from_numpy(np.asarray(x))
    from cowarray.interop.torch import from_torch

    back = from_torch(tensor)
    tensor[0] = 5.0
    assert float(x[0]) == 5.0  # x and the tensor alias, as tensor.numpy() would
    assert float(back[0]) == 0.0


def test_a_gc_callback_cloning_while_numpy_writes_gets_a_stable_value() -> None:
    x = ca.zeros(1000)
    view = np.asarray(x)
    clones: list[ca.Array] = []

    def clone_during_collection(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and len(clones) < 3:
            clones.append(ca.lazy_clone(x))

    gc.callbacks.append(clone_during_collection)
    try:
        for step in range(3):
            view[:] = step
            gc.collect()
    finally:
        gc.callbacks.remove(clone_during_collection)
    view[:] = 99.0
    for step, clone in enumerate(clones):
        assert np.unique(np.asarray(clone, copy=True)).tolist() == [float(step)]


def test_copy_false_on_shared_memory_raises_and_changes_nothing() -> None:
    x = ca.arange(3.0)
    clone = ca.lazy_clone(x)
    with pytest.raises(ValueError, match="copy=False"):
        np.asarray(x, copy=False)
    assert ca.cow_info(x).state == "shared" and ca.shares_buffer(x, clone)
