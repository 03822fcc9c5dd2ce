"""Attacks on the torch bridge's host fast paths (docs/design.md rule 5).

``to_torch`` hands ``torch.from_numpy`` an exposed view whose death ends the
exposure, and ``from_torch`` imports ``t.numpy()`` (cowarray/interop/torch.py).
Each test here attacks one promise those paths must keep as the DLPack path
does: the exposure lasts exactly as long as torch can reach the memory, a
write through the tensor reaches the exporting array and nothing else, two
imports of one tensor never alias each other (threads, gc callbacks), and
whatever the fast paths do not take falls back to DLPack with its answers.
"""

from __future__ import annotations

import contextlib
import gc
import subprocess
import sys
import threading
from typing import Any

import numpy as np
import pytest
from _patching import BackendPatch, call_out_while_a_record_is_made

import cowarray as ca

torch = pytest.importorskip("torch")

from _attack import (  # noqa: E402
    assert_no_aliases,
    gc_callback,
    host,
    switching_every_microsecond,
)

from cowarray import _dlpack  # noqa: E402
from cowarray._backends.numpy import NUMPY_BACKEND  # noqa: E402
from cowarray.interop.torch import from_torch, to_torch  # noqa: E402


def _state(x: ca.Array) -> str:
    return ca.cow_info(x).state


# -- the exposure lasts as long as torch can reach the memory -------------------


def test_a_torch_view_keeps_the_exposure_until_it_dies_too() -> None:
    x = ca.arange(5.0)
    t = to_torch(x)
    tail = t[2:]
    del t
    assert _state(x) == "exposed"  # tail still reaches x's memory
    clone = ca.lazy_clone(x)
    tail[0] = 100.0
    np.testing.assert_array_equal(host(x), [0, 1, 100, 3, 4])
    np.testing.assert_array_equal(host(clone), [0, 1, 2, 3, 4])
    del tail
    assert _state(x) == "private"


def test_numpy_view_of_the_tensor_keeps_the_exposure() -> None:
    x = ca.arange(3.0)
    t = to_torch(x)
    through_numpy = t.numpy()
    del t
    assert _state(x) == "exposed"
    through_numpy[0] = 7.0
    assert float(x[0]) == 7.0
    del through_numpy
    assert _state(x) == "private"


def test_exposures_of_two_tensors_are_counted_apart() -> None:
    x = ca.arange(3.0)
    first, second = to_torch(x), to_torch(x)
    del first
    assert _state(x) == "exposed"
    clone = ca.lazy_clone(x)  # an eager copy: second may still write
    second[0] = 9.0
    assert float(clone[0]) == 0.0
    del second
    assert _state(x) == "private"
    assert ca.shares_buffer(x, ca.lazy_clone(x))  # lazy sharing resumes


def test_lazy_sharing_resumes_after_the_tensor_dies() -> None:
    x = ca.arange(4)
    for _ in range(3):
        t = to_torch(x)
        t[0] += 1
        del t
    clone = ca.lazy_clone(x)
    assert ca.shares_buffer(x, clone)
    assert int(clone[0]) == 3


def test_a_tensor_alive_at_exit_is_released_quietly() -> None:
    code = (
        "import cowarray as ca\n"
        "from cowarray.interop.torch import from_torch, to_torch\n"
        "x = ca.arange(3.0)\n"
        "t = to_torch(x)\n"
        "y = from_torch(t)\n"
        "import torch\n"
        "u = torch.zeros(2)\n"
        "z = from_torch(u)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


# -- a write through the tensor reaches the exporting array and nothing else ----


@pytest.mark.parametrize(
    "source",
    ["shared", "broadcast", "read-only foreign", "slice of a shared buffer"],
)
def test_what_needs_a_copy_first_is_copied_before_torch_gets_it(source: str) -> None:
    others: list[ca.Array] = []
    if source == "shared":
        x = ca.arange(4.0)
        others.append(ca.lazy_clone(x))
    elif source == "broadcast":
        base = ca.arange(4.0)
        x = ca.broadcast_to(base, (2, 4))
        others.append(base)
    elif source == "read-only foreign":
        memory = np.arange(4.0)
        memory.flags.writeable = False
        x = ca.asarray(memory, copy=False)
        others.append(ca.asarray(memory.copy()))
    else:
        whole = ca.arange(8.0)
        x = whole[2:6]
        others.append(whole)
    before = [host(other) for other in others]
    t = to_torch(x)
    t[(0,) * t.ndim] = -1.0
    assert host(x)[(0,) * x.ndim] == -1.0
    for other, values in zip(others, before, strict=True):
        np.testing.assert_array_equal(host(other), values)


def test_clones_taken_while_another_thread_writes_through_tensors_never_change() -> None:
    x = ca.zeros(64)
    stop = threading.Event()
    errors: list[BaseException] = []

    def exporter() -> None:
        try:
            value = 0.0
            while not stop.is_set():
                value += 1.0
                t = to_torch(x)
                for _ in range(10):
                    t[:] = value  # a consumer's writes: x only
                    value += 1.0
                del t
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    with switching_every_microsecond():
        thread = threading.Thread(target=exporter)
        thread.start()
        try:
            kept: list[tuple[ca.Array, np.ndarray]] = []
            for _ in range(300):
                clone = ca.lazy_clone(x)
                kept.append((clone, host(clone)))
            for clone, seen in kept:
                np.testing.assert_array_equal(host(clone), seen)
                values = host(clone)
                assert (values == values[0]).all()  # never a torn write either
        finally:
            stop.set()
            thread.join()
    assert not errors


# (a record's making: the core asks the backend nothing there, its allocation
# is where a gc callback would run: tests/_patching.py)
CALL_OUTS = ["must_copy_before_write", "a record's making", "copy"]
ATTACKS: dict[str, Any] = {
    "clone": lambda x, kept: kept.append(ca.lazy_clone(x)),
    "slice": lambda x, kept: kept.append(x[1:]),
    "write": lambda x, kept: x.__setitem__(0, -5.0),
    "export": lambda x, kept: kept.append(to_torch(x)),
}


@pytest.mark.parametrize("shared", [False, True], ids=["private", "shared"])
@pytest.mark.parametrize("attack", list(ATTACKS))
@pytest.mark.parametrize("call_out", CALL_OUTS)
def test_an_attacker_inside_the_export_aliases_nothing(
    call_out: str, attack: str, shared: bool, backend_patch: BackendPatch
) -> None:
    if call_out == "copy" and not shared:
        pytest.skip("the export of a private array copies nothing")
    x = ca.arange(6.0)
    partner = ca.lazy_clone(x) if shared else None
    kept: list[Any] = []
    armed = [True]
    real = getattr(NUMPY_BACKEND, call_out, None)

    def attacked(*args: Any, **kwargs: Any) -> Any:
        if armed[0]:
            armed[0] = False
            with contextlib.suppress(BufferError):  # refusing, inside a write, is allowed
                ATTACKS[attack](x, kept)
        return None if real is None else real(*args, **kwargs)

    if call_out == "a record's making":
        call_out_while_a_record_is_made(backend_patch, attacked)
    else:
        backend_patch.setattr(NUMPY_BACKEND, call_out, attacked)
    t = to_torch(x)
    backend_patch.undo()
    assert not armed[0], "the attack never ran"
    tensors = [k for k in kept if isinstance(k, torch.Tensor)]
    arrays = [k for k in kept if isinstance(k, ca.Array)]
    if partner is not None:
        arrays.append(partner)
    before = [host(a) for a in arrays]
    t[-1] = 1234.0  # reaches x and nothing else
    assert float(x[-1]) == 1234.0
    for array, values in zip(arrays, before, strict=True):
        np.testing.assert_array_equal(host(array), values)
    assert_no_aliases([x, *arrays])
    del t, tensors
    kept.clear()
    gc.collect()
    assert _state(x) == "private"


# -- two imports of one tensor never alias each other ---------------------------


def test_two_threads_importing_one_tensor_never_get_aliases() -> None:
    # Checking for an overlap and then entering the import let both threads
    # find nothing and alias each other (3 pairs in 300 before the fix).
    with switching_every_microsecond():
        for _ in range(600):
            t = torch.zeros(8)
            results: list[Any] = [None, None]
            barrier = threading.Barrier(2)

            def work(
                i: int, t: Any = t, results: list[Any] = results, barrier: Any = barrier
            ) -> None:
                barrier.wait()
                results[i] = from_torch(t)

            threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            first, second = results
            first[0] = 1.0
            assert float(second[0]) == 0.0, "two imports of one tensor alias each other"


@pytest.mark.parametrize("at", range(1, 13))
def test_an_import_inside_an_import_never_aliases_it(at: int) -> None:
    # The tensor is imported again at the at-th collection inside from_torch
    # (one at every allocation), so some attack lands between checking the
    # outer import and entering it (checking before entering gave two
    # aliases at 4 of these 12 points).
    t = torch.zeros(8)
    inner: list[ca.Array] = []
    collections = [0]

    def import_again() -> None:
        collections[0] += 1
        if collections[0] == at:
            inner.append(from_torch(t))

    with gc_callback(import_again):
        outer = from_torch(t)
    arrays = [outer, *inner]
    t[1] = 5.0  # at most one of them aliases t
    assert [float(a[1]) for a in arrays].count(5.0) <= 1
    assert_no_aliases(arrays)


def test_round_trips_by_either_route_give_copies() -> None:
    x = ca.arange(4.0)
    routes = {
        "from_torch(to_torch(x))": lambda: from_torch(to_torch(x)),
        "from_dlpack(to_torch(x))": lambda: ca.from_dlpack(to_torch(x)),
        "from_torch(torch.from_dlpack(x))": lambda: from_torch(torch.from_dlpack(x)),
        "from_torch(view of to_torch(x))": lambda: from_torch(to_torch(x)[1:3]),
    }
    results = {name: route() for name, route in routes.items()}
    for name, result in results.items():
        assert _state(result) == "private", name
    assert_no_aliases([x, *results.values()])


def test_an_import_of_memory_a_dead_array_exported_aliases_the_tensor() -> None:
    # The exporting array is gone: no cowarray value sees the memory, so the
    # tensor may be imported zero-copy (as before the fast path).
    t = to_torch(ca.arange(3.0))
    y = from_torch(t)
    t[0] = 5.0
    assert float(y[0]) == 5.0
    assert _state(y) == "foreign"


# -- what the fast paths do not take goes through DLPack ------------------------


def test_from_torch_keeps_the_tensor_from_freeing_the_arrays_memory() -> None:
    # A DLPack import did not: t.resize_ freed the memory y still read.
    t = torch.arange(1000.0)
    y = from_torch(t)
    with pytest.raises(RuntimeError, match="not resizable"):
        t.resize_(10**6)
    np.testing.assert_array_equal(host(y)[:3], [0.0, 1.0, 2.0])


@pytest.mark.parametrize(
    "make",
    [
        lambda: torch.arange(3.0)._neg_view(),
        lambda: torch.tensor([1 + 2j, 3 - 1j]).conj(),
        lambda: torch.nn.Parameter(torch.arange(3.0), requires_grad=False),
    ],
    ids=["negative bit", "conjugate bit", "a subclass"],
)
def test_tensors_the_numpy_route_does_not_take_cross_by_dlpack(make: Any) -> None:
    t = make()
    y = from_torch(t)
    np.testing.assert_array_equal(host(y), t.resolve_conj().resolve_neg().detach().numpy())


def test_a_layout_torch_from_numpy_refuses_falls_back_and_ends_its_exposure() -> None:
    reversed_ = ca.flip(ca.arange(4.0))  # negative strides: a copy for torch
    t = to_torch(reversed_)
    t[0] = 100.0
    np.testing.assert_array_equal(host(reversed_), [3, 2, 1, 0])
    assert _state(reversed_) == "private"
    odd = ca.asarray(np.arange(12, dtype=np.int8).reshape(2, 6))[:, :4].view(ca.int32)
    gc.collect()  # the int8 parent is gone: odd is private, strides (6, 4)
    with pytest.raises(BufferError, match="multiple of itemsize"):
        to_torch(odd)
    assert _state(odd) == "private"


def test_copy_keywords_keep_their_dlpack_meaning() -> None:
    x = ca.arange(3.0)
    t = to_torch(x, copy=True)
    t[0] = 5.0
    assert float(x[0]) == 0.0 and _state(x) == "private"
    s = torch.arange(3.0)
    y = from_torch(s, copy=True)
    s[0] = 5.0
    assert float(y[0]) == 0.0
    z = from_torch(s, copy=False)
    s[1] = 6.0
    assert float(z[1]) == 6.0


def test_the_fast_paths_are_the_ones_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    # If these fail, the fast paths above are not what the tests attacked.
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("went through DLPack")

    monkeypatch.setattr(_dlpack, "export", refuse)
    monkeypatch.setattr(_dlpack, "_negotiate", refuse)
    x = ca.arange(3.0)
    t = to_torch(x)
    y = from_torch(torch.arange(3.0))
    assert _state(x) == "exposed" and _state(y) == "foreign"
    del t
