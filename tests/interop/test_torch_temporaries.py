"""to_torch of an array nothing else references: its memory (or, for a slice
of memory other values hold, a copy of its values) goes to torch with no
exposure to track, and only then.

The proof is a reference count measured at import (cowarray._interpreter.temporary_argument_count):
every reference a caller can keep is a strong one, so an array that reads as
a temporary cannot be seen after the call. These tests hold references in
every way a caller can (names, containers, star-arguments, C callers such as
``map``) and attack the hand-over from inside it.
"""

from __future__ import annotations

import functools
import gc
import threading
import time
import warnings
from typing import Any

import numpy as np
import pytest
from _attack import assert_no_aliases, switching_every_microsecond
from _patching import BackendPatch

import cowarray as ca
from cowarray import _deaths
from cowarray._backends.numpy import NUMPY_BACKEND

torch = pytest.importorskip("torch")
import cowarray.interop.torch as bridge  # noqa: E402
from cowarray.interop.torch import to_torch  # noqa: E402


def host(x: ca.Array) -> np.ndarray:
    return np.asarray(x, copy=True)


def _state(x: ca.Array) -> str:
    return ca.cow_info(x).state


def test_the_count_of_a_temporary_was_measured_on_this_interpreter() -> None:
    # (None would mean "never": the tests below would test the long way only)
    assert isinstance(bridge._TEMPORARY, int)


def test_a_temporary_result_gives_torch_its_memory_with_nothing_to_track() -> None:
    a = ca.arange(5.0)
    watched = _deaths.watched()
    with ca.trace() as seen:
        t = to_torch(a + 1.0)
    assert _deaths.watched() == watched, "an exposure was registered"
    assert seen.copies == 0
    np.testing.assert_array_equal(t.numpy(), np.arange(5.0) + 1.0)
    t.add_(10.0)  # torch's own memory now: nothing of cowarray changes
    np.testing.assert_array_equal(host(a), np.arange(5.0))


def test_a_temporary_slice_of_a_live_array_gives_torch_a_copy() -> None:
    x = ca.arange(12.0).reshape(3, 4)
    kept = host(x)
    watched = _deaths.watched()
    with ca.trace() as seen:
        t = to_torch(x[1])
    assert _deaths.watched() == watched, "an exposure was registered"
    assert seen.copies == 1  # the row's values, once
    np.testing.assert_array_equal(t.numpy(), kept[1])
    with pytest.warns(ca.ViewWriteWarning, match="to_torch"):
        t.add_(1.0)  # NumPy's tensor would have written x's row: reported
        del t
        ca.zeros(1)
    np.testing.assert_array_equal(host(x), kept)


def _held(make: Any) -> list[tuple[str, Any]]:
    """Calls of to_torch in which the caller keeps a reference to the array,
    each with that reference (the array must stay usable and shared)."""
    cases = []
    named = make()
    cases.append(("a name", named, lambda: to_torch(named)))
    listed = [make()]
    cases.append(("a list", listed[0], lambda: to_torch(listed[0])))
    starred = [make()]
    cases.append(("star-arguments", starred[0], lambda: to_torch(*starred)))
    mapped = [make()]
    cases.append(("map (a C caller)", mapped[0], lambda: next(map(to_torch, mapped))))
    partial = [make()]
    cases.append(("functools.partial", partial[0], lambda: functools.partial(to_torch)(partial[0])))
    attribute = type("Holder", (), {})()
    attribute.array = make()
    cases.append(("an attribute", attribute.array, lambda: to_torch(attribute.array)))
    return cases


@pytest.mark.parametrize("kind", ["fresh", "slice of a live array"])
def test_an_array_the_caller_still_holds_stays_usable_and_shares_with_the_tensor(
    kind: str,
) -> None:
    parent = ca.arange(16.0).reshape(4, 4)
    make = (lambda: ca.arange(4.0) + 1.0) if kind == "fresh" else (lambda: parent[1])
    for how, array, call in _held(make):
        t = call()
        t[0] = -7.0  # the documented sharing: the caller sees torch's write
        assert float(array[0]) == -7.0, how
        assert _state(array) == "exposed", how
        del t
        gc.collect()
    np.testing.assert_array_equal(host(parent), np.arange(16.0).reshape(4, 4))


def test_without_a_measured_count_every_array_takes_the_long_way(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(bridge, "_TEMPORARY", None)
    watched = _deaths.watched()
    t = to_torch(ca.arange(3.0) + 1.0)
    assert _deaths.watched() == watched + 1  # an exposure, ended when t dies
    np.testing.assert_array_equal(t.numpy(), [1.0, 2.0, 3.0])
    del t
    gc.collect()
    assert _deaths.watched() == watched


def test_read_only_and_broadcast_temporaries_are_copied_for_torch() -> None:
    memory = np.arange(4.0)
    memory.flags.writeable = False
    for make in (
        lambda: ca.asarray(memory, copy=False),
        lambda: ca.broadcast_to(ca.arange(4.0) + 0.0, (3, 4)),
    ):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # torch warns of a non-writable array
            t = to_torch(make())
        t.fill_(5.0)
        assert (t.numpy() == 5.0).all()
    np.testing.assert_array_equal(memory, np.arange(4.0))


_MARK = 123.25  # the first value of the arrays the attacker looks for


def _attack_every_marked_array(kept: list[Any], attack: str) -> None:
    for obj in gc.get_objects():
        if type(obj) is ca.Array:
            try:
                if obj.ndim != 1 or obj.dtype != ca.float64 or float(obj[0]) != _MARK:
                    continue
            except (ValueError, IndexError):
                continue  # a moved array (any use raises, as it should) or an empty one
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ca.ViewWriteWarning)
                if attack == "clone":
                    kept.append(ca.lazy_clone(obj))
                elif attack == "slice":
                    kept.append(obj[1:])
                else:
                    kept.append(to_torch(obj))


@pytest.mark.filterwarnings("ignore::cowarray.ViewWriteWarning")  # (the slice's, by design)
@pytest.mark.parametrize("attack", ["clone", "slice", "export"])
@pytest.mark.parametrize("kind", ["fresh", "slice of a live array"])
def test_code_that_finds_the_temporary_during_the_hand_over_aliases_nothing(
    attack: str, kind: str, backend_patch: BackendPatch
) -> None:
    # A gc callback or __del__ can reach any object through gc.get_objects():
    # here one runs inside to_torch (at its first call-out: the backend's
    # check for a fresh array, the copy's count for a slice) and clones,
    # slices or exports every array it finds. Whatever it got must not see
    # the writes torch makes to its tensor.
    parent = ca.full((3, 5), _MARK)
    kept: list[Any] = []
    armed = [True]
    owner, name = (
        (NUMPY_BACKEND, "must_copy_before_write") if kind == "fresh" else (bridge, "count_copy")
    )
    real = getattr(owner, name)

    def attacked(*args: Any) -> Any:
        if armed[0]:
            armed[0] = False
            _attack_every_marked_array(kept, attack)
        return real(*args)

    backend_patch.setattr(owner, name, attacked)
    t = to_torch(ca.full(5, _MARK) + 0.0) if kind == "fresh" else to_torch(parent[1])
    backend_patch.undo()
    assert not armed[0], "the attack never ran"
    arrays = [k for k in kept if isinstance(k, ca.Array)] + [parent]
    before = [host(a) for a in arrays]
    t.fill_(-1.0)
    for array, values in zip(arrays, before, strict=True):
        np.testing.assert_array_equal(host(array), values)
    assert_no_aliases(arrays)
    del t, kept[:]
    gc.collect()
    ca.zeros(1)  # (the write's report comes here, inside this test's filter)


def test_rows_given_to_torch_while_another_thread_writes_the_array_stay_as_given() -> None:
    # The slice's values are copied while the slice holds the record: a
    # writer on another thread then copies the array before writing (it is
    # shared), or is mid-way in place, and the slice's join waited for it.
    # The tensor gets one write's values, and later writes never reach it.
    parent = ca.zeros((4, 4096))
    parent[0, 0] = 0.0  # private: the writer writes in place whenever it can
    stop = threading.Event()
    writes = [0]
    errors: list[BaseException] = []

    def writer() -> None:
        try:
            while not stop.is_set():
                writes[0] += 1
                parent[...] = float(writes[0])  # every row uniform after each write
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    def after_two_more_writes() -> None:
        seen = writes[0]
        while writes[0] < seen + 2 and thread.is_alive():
            time.sleep(0)

    wrong = 0
    with switching_every_microsecond():
        thread = threading.Thread(target=writer)
        thread.start()
        try:
            for _ in range(100):
                for tensor in (to_torch(parent[1]), to_torch(parent[2] + 0.0)):
                    given = tensor.numpy().copy()
                    after_two_more_writes()
                    wrong += not (given == given[0]).all()  # torn
                    wrong += not (tensor.numpy() == given).all()  # changed since
        finally:
            stop.set()
            thread.join()
    assert not errors
    assert wrong == 0, f"{wrong} tensors mixed two writes or changed afterwards"


def test_a_big_temporary_given_to_torch_is_never_handed_out_again_as_a_reused_block() -> None:
    # Results of 256 KiB and more may be reused blocks (_backends/_reuse.py),
    # handed out again only when the pool holds the one reference: torch's
    # storage holds one while the tensor lives.
    a = ca.ones(100_000)
    tensors = [to_torch(a * float(k)) for k in range(8)]
    for _ in range(20):
        a * 7.0 + 3.0  # results that want blocks
    for k, tensor in enumerate(tensors):
        assert (tensor.numpy() == float(k)).all(), k
