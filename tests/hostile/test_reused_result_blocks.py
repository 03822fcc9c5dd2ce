"""Big element-wise results reuse blocks nothing can reach (design.md rule 12;
cowarray/_backends/_reuse.py), and nothing that can reach a block ever sees
it rewritten: an Array, a view, a lazy clone, a NumPy export, a memoryview,
a DLPack capsule, a weak reference's target, an object a ``__del__`` or a gc
callback revived, and threads computing at the same time."""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
import pytest
from _attack import KeptCapsule, assert_no_aliases, gc_callback, run_together

import cowarray as ca
from cowarray._backends import _reuse

N = 1 << 16  # 512 KiB of float64: above the 256 KiB threshold


pytestmark = pytest.mark.usefixtures("empty_block_pool")  # (tests/conftest.py)


def _source() -> tuple[ca.Array, np.ndarray]:
    model = np.linspace(0.0, 1.0, N)
    return ca.asarray(model), model


def test_an_expression_reuses_a_dead_result_and_gives_numpys_values() -> None:
    c, model = _source()
    doubled = c * 2.0  # (named: an unnamed temporary would take the sum, where the
    first = doubled + 1.0  # compiled helper proves it one: test_temporary_elision.py)
    blocks = {id(block) for block in _reuse._blocks}
    assert len(blocks) == 2  # c * 2.0, and the sum
    del first, doubled
    second = c * 3.0 - 1.0
    np.testing.assert_array_equal(np.asarray(second), model * 3.0 - 1.0)
    # nothing new was allocated: both of the first expression's blocks served
    assert {id(block) for block in _reuse._blocks} == blocks
    assert id(second._data) in blocks


# (what holds the result, and the part of its values that holder shows)
_HOLDERS: dict[str, tuple[Callable[[ca.Array], Any], slice]] = {
    "the Array": (lambda r: r, slice(None)),
    "a view": (lambda r: r[10:20], slice(10, 20)),
    "a lazy clone": (lambda r: ca.lazy_clone(r), slice(None)),
    "a NumPy export": (lambda r: np.asarray(r), slice(None)),
    "a memoryview": (lambda r: memoryview(np.asarray(r)), slice(None)),
    "a DLPack capsule": (lambda r: r.__dlpack__(), slice(None)),
    "np.from_dlpack": (lambda r: np.from_dlpack(r), slice(None)),
    "a reshaped view": (lambda r: r.reshape((2, N // 2)), slice(None)),
}


@pytest.mark.parametrize("holder", list(_HOLDERS))
def test_a_block_anything_holds_is_never_handed_out(holder: str) -> None:
    c, model = _source()
    result = c + 1.0
    make, part = _HOLDERS[holder]
    kept = make(result)
    expected = (model + 1.0)[part]
    del result
    gc.collect()
    for _ in range(6):  # more results of that shape than blocks kept
        others = [c * float(k) for k in range(5)]
        del others
    if holder == "a DLPack capsule":
        kept = np.from_dlpack(KeptCapsule(kept))
    np.testing.assert_array_equal(np.asarray(kept).reshape(-1), expected)


class _Reviver:
    kept: ClassVar[list[Any]] = []

    def __init__(self, array: ca.Array) -> None:
        self.array = array

    def __del__(self) -> None:
        _Reviver.kept.append(self.array)  # the array lives on, revived


def test_an_array_a_del_revives_keeps_its_values() -> None:
    c, model = _source()
    _Reviver.kept.clear()
    try:
        _Reviver(c + 5.0)  # dies at once; its __del__ keeps the Array
        [c * 2.0 for _ in range(8)]
        (revived,) = _Reviver.kept
        np.testing.assert_array_equal(np.asarray(revived), model + 5.0)
    finally:
        _Reviver.kept.clear()  # (a later test walking gc's objects must not find it)


def test_a_gc_callback_that_computes_inside_the_hand_out_changes_nothing() -> None:
    c, model = _source()
    seen: list[ca.Array] = []

    def compute() -> None:
        if len(seen) < 50:
            seen.append(c * 7.0)  # a result made inside whatever was running

    with gc_callback(compute):
        results = [c + float(k) for k in range(20)]
    for k, result in enumerate(results):
        np.testing.assert_array_equal(np.asarray(result), model + float(k))
    for result in seen:
        np.testing.assert_array_equal(np.asarray(result), model * 7.0)


def test_threads_never_share_a_block() -> None:
    c, model = _source()
    failures: list[str] = []

    def work(k: int) -> None:
        for _ in range(40):
            result = c * float(k) + 1.0
            # compare after other threads had time to compute their own
            for _ in range(3):
                (c - 1.0).sum()
            if not np.array_equal(np.asarray(result), model * float(k) + 1.0):
                failures.append(f"thread {k}")

    run_together(*(functools.partial(work, k) for k in range(4)))
    assert not failures


def test_threads_on_every_shortcut_never_share_a_block() -> None:
    # Each way the element-wise wrapper reaches a block without the general
    # path (two 1-D arrays, two C-ordered 2-D arrays, a scalar on the left, a
    # unary function: cowarray/_backends/_parallel.py's _reused_binary and
    # _reused_unary), on four threads switching every microsecond while
    # results die and free blocks; each thread keeps its last few results
    # alive. None may share memory with another or with an operand.
    c, model = _source()
    flipped = ca.flip(c)
    square = ca.reshape(c, (256, 256))
    kept: list[list[tuple[ca.Array, np.ndarray]]] = [[] for _ in range(4)]
    expressions = (
        (lambda: c - flipped, model - model[::-1]),
        (lambda: square * square, (model * model).reshape(256, 256)),
        (lambda: 2.0 - c, 2.0 - model),
        (lambda: ca.negative(c), -model),
    )

    def work(k: int) -> None:
        for step in range(40):
            compute, expected = expressions[(k + step) % len(expressions)]
            kept[k].append((compute(), expected))
            del kept[k][:-3]  # the older results die: their blocks come free

    run_together(*(functools.partial(work, k) for k in range(4)))
    results = [result for mine in kept for result, _ in mine]
    for result, expected in (pair for mine in kept for pair in mine):
        np.testing.assert_array_equal(np.asarray(result), expected)
    assert_no_aliases([*results, c, flipped, square])


def test_buffer_ids_are_not_reused_with_the_memory() -> None:
    c, _ = _source()
    first = c + 1.0
    first_id = ca.cow_info(first).buffer_id
    memory = id(first._data)  # (not the block itself: that would keep it in use)
    del first
    ids = set()
    for k in range(6):
        result = c + float(k)
        if id(result._data) == memory:
            ids.add(ca.cow_info(result).buffer_id)
        del result
    assert ids and first_id not in ids


def test_the_budget_bounds_what_is_kept_and_zero_keeps_nothing() -> None:
    c, _ = _source()
    ca.set_temporary_reuse(3 * N * 8)
    results = [c + float(k) for k in range(8)]
    assert sum(block.nbytes for block in _reuse._blocks) <= 3 * N * 8
    assert len(_reuse._blocks) <= _reuse.MAX_BLOCKS
    del results
    ca.set_temporary_reuse(0)
    assert _reuse._blocks == []
    c + 1.0
    assert _reuse._blocks == []


@pytest.mark.parametrize("bad", [-1, 1.5, "1", True])
def test_a_bad_budget_is_refused_and_changes_nothing(bad: Any) -> None:
    before = ca.get_temporary_reuse()
    with pytest.raises(ValueError if bad == -1 else TypeError, match="nbytes"):
        ca.set_temporary_reuse(bad)
    assert ca.get_temporary_reuse() == before


def test_a_failed_operation_leaves_every_array_alone() -> None:
    c, model = _source()
    keep = c * 2.0
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError):
        c / 0.0
    np.testing.assert_array_equal(np.asarray(keep), model * 2.0)
    np.testing.assert_array_equal(np.asarray(c), model)


def test_a_block_reached_by_a_weak_reference_is_never_handed_out_again() -> None:
    # A dead result's ndarray, taken through gc.get_referents while the
    # result lived and kept by a weak reference (which the block's count
    # does not show), must not become the next result's memory: the weak
    # reference would revive a second name for it.
    import gc
    import weakref

    c, model = _source()
    result = c * 2.0
    (reached,) = [o for o in gc.get_referents(result) if isinstance(o, np.ndarray)]
    revived = weakref.ref(reached)
    del result, reached
    later = c * 3.0
    old = revived()
    if old is not None:
        assert not np.shares_memory(old, later._data), "a weakly reachable block was reused"
        old[...] = -1.0
    np.testing.assert_array_equal(np.asarray(later), model * 3.0)
