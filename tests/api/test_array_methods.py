"""NumPy's array methods on cowarray arrays: NumPy's answers, value semantics, clear refusals.

Each method is a namespace function by another name (cowarray/_methods.py);
these tests compare each with the same method on an ndarray, check that
results are values (writing one never changes the array it came from), that
the in-place methods (sort, fill) write through copy-on-write, and that a
mistake raises before anything changes.
"""

from __future__ import annotations

import sys
import threading
from typing import Any

import numpy as np
import pytest
from _compare import assert_matches, assert_value, host, strided

import cowarray as ca

MODEL = np.asarray([[3.0, -1.0, 2.5], [0.0, 7.0, -4.0]])


def _both(device: ca.Device, model: np.ndarray = MODEL) -> tuple[ca.Array, np.ndarray]:
    return strided(model, device=device), model.copy()


CALLS = [
    ("reshape", (3, 2), {}),
    ("reshape", ((3, 2),), {}),
    ("reshape", (-1,), {}),
    ("transpose", (), {}),
    ("transpose", (1, 0), {}),
    ("transpose", ((1, 0),), {}),
    ("ravel", (), {}),
    ("flatten", (), {}),
    ("swapaxes", (0, 1), {}),
    ("sum", (), {}),
    ("sum", (0,), {}),
    ("sum", (), {"axis": 1, "keepdims": True}),
    ("sum", (), {"axis": (0, 1)}),
    ("prod", (1,), {}),
    ("mean", (), {}),
    ("mean", (0,), {"keepdims": True}),
    ("std", (), {}),
    ("std", (1,), {"ddof": 1}),
    ("var", (), {"axis": 0}),
    ("var", (), {"ddof": 1}),
    ("min", (), {}),
    ("max", (1,), {}),
    ("argmin", (), {}),
    ("argmax", (0,), {}),
    ("argmax", (), {"axis": 1, "keepdims": True}),
    ("cumsum", (), {}),
    ("cumsum", (1,), {}),
    ("cumprod", (0,), {}),
    ("any", (), {}),
    ("all", (0,), {}),
    ("clip", (-1.0, 2.0), {}),
    ("clip", (), {"max": 0.0}),
    ("round", (), {}),
    ("round", (1,), {}),
    ("conj", (), {}),
    ("conjugate", (), {}),
    ("argsort", (), {}),
    ("argsort", (0,), {"kind": "stable"}),
    ("astype", ("float32",), {}),
    ("astype", (np.int32,), {}),
    ("dot", (MODEL.T,), {}),
]


@pytest.mark.parametrize(("name", "args", "kwargs"), CALLS, ids=lambda v: repr(v)[:30])
def test_method_gives_numpys_answer_and_a_value(
    name: str, args: tuple[Any, ...], kwargs: dict[str, Any], backend_device: ca.Device
) -> None:
    x, model = _both(backend_device)
    cowarray_args = tuple(
        ca.asarray(a, device=backend_device) if isinstance(a, np.ndarray) else a for a in args
    )
    result = getattr(x, name)(*cowarray_args, **kwargs)
    expected = getattr(model, name)(*args, **kwargs)
    assert_matches(result, expected)
    assert result.device == backend_device
    if expected is model:
        # NumPy gives the array itself (x.conj() of a real array): so does
        # cowarray, so that writes through it change x (issue 25, item 8)
        assert result is x
        return
    assert_value(result, x)  # writes each in turn: the other keeps its values


def test_squeeze_without_axis_removes_every_length_one_axis(backend_device: ca.Device) -> None:
    model = np.arange(6.0).reshape(1, 2, 1, 3)
    x = strided(model, device=backend_device)
    assert_matches(x.squeeze(), model.squeeze())
    assert_matches(x.squeeze(2), model.squeeze(2))


@pytest.mark.parametrize("model", [np.asarray([1 + 2j, -3j]), np.asarray([1.5, -2.0])])
def test_real_and_imag_are_numpys_attributes(model: np.ndarray, backend_device: ca.Device) -> None:
    x = ca.asarray(model, device=backend_device)
    assert_matches(x.real, model.real)
    assert_matches(x.imag, model.imag, exact=True)
    if model.real is model:  # a real array's .real is itself, in NumPy and here
        assert x.real is x
    else:
        assert_value(x.real, x)


def test_item_tolist_and_sizes(backend_device: ca.Device) -> None:
    x, model = _both(backend_device)
    assert x.item(4) == model.item(4)
    assert x.item(-1) == model.item(-1)
    assert x.item(1, 2) == model.item(1, 2)
    assert x.item((1, 2)) == model.item((1, 2))
    for flat in range(-model.size, model.size):  # every C-order position, read where it is
        assert x.item(flat) == model.item(flat)
        assert type(x.item(flat)) is type(model.item(flat))
    assert x.item(True, -1) == model.item(1, -1)  # a bool is an index here, never a mask
    three = ca.reshape(ca.arange(24, device=backend_device), (2, 3, 4))
    assert [three.item(k) for k in range(24)] == list(range(24))
    assert ca.asarray([5], device=backend_device).item() == 5
    assert type(ca.asarray([5], device=backend_device).item()) is int
    assert x.tolist() == model.tolist()
    assert ca.asarray(2.5, device=backend_device).tolist() == 2.5
    assert (x.nbytes, x.itemsize) == (model.nbytes, model.itemsize)


def test_nonzero_is_the_namespace_function(backend_device: ca.Device) -> None:
    x, model = _both(backend_device)
    for got, expected in zip(x.nonzero(), model.nonzero(), strict=True):
        assert_matches(got, expected)


# -- in place, through copy-on-write ----------------------------------------------


def test_sort_in_place_leaves_every_other_value_alone(backend_device: ca.Device) -> None:
    x, model = _both(backend_device)
    clone = ca.lazy_clone(x)
    row = x[0]
    assert x.sort() is None
    model.sort()
    assert_matches(x, model)
    assert_matches(clone, MODEL)  # shared the buffer before the sort
    assert_matches(row, MODEL[0])
    x.sort(axis=0, kind="stable")
    model.sort(axis=0, kind="stable")
    assert_matches(x, model)


def test_fill_in_place_leaves_every_other_value_alone(backend_device: ca.Device) -> None:
    x, _ = _both(backend_device)
    clone = ca.lazy_clone(x)
    x.fill(7.0)
    assert_matches(x, np.full_like(MODEL, 7.0))
    assert_matches(clone, MODEL)


def test_sort_while_threads_read_clones_keeps_their_values() -> None:
    # Hostile: clones taken and read while another thread sorts in place.
    model = np.random.default_rng(0).standard_normal(2_000)
    x = ca.asarray(model)
    seen: list[np.ndarray] = []
    stop = threading.Event()

    def reader() -> None:
        while not stop.is_set():
            seen.append(host(ca.lazy_clone(x)))

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        thread = threading.Thread(target=reader)
        thread.start()
        snapshots = []
        for _ in range(20):
            snapshots.append(ca.lazy_clone(x))
            x.sort()
            x = ca.flip(x) if len(snapshots) % 2 else x
        stop.set()
        thread.join()
    finally:
        sys.setswitchinterval(interval)
    for snapshot in snapshots[1:]:
        values = host(snapshot)
        assert np.array_equal(np.sort(values), np.sort(model))
    for values in seen:  # every read saw a whole permutation, never a half-sorted mix
        assert np.array_equal(np.sort(values), np.sort(model))


# -- view(dtype): a view of the bytes that still follows rule 1 ---------------------


def test_view_reinterprets_bytes_and_stays_a_value(backend_device: ca.Device) -> None:
    model = np.asarray([1.0, -2.0, 0.5])
    x = ca.asarray(model, device=backend_device)
    bits = x.view(ca.int64)
    assert_matches(bits, model.view(np.int64))
    assert ca.shares_buffer(bits, x)
    bits[0] = 0
    assert_matches(x, model)  # the write copied first
    halves = x.view("float32")
    assert_matches(halves, model.view(np.float32))
    x[1] = 9.0
    assert_matches(halves, model.view(np.float32))
    assert_matches(x.view(), host(x))


def test_view_refuses_what_would_need_a_copy() -> None:
    x = ca.reshape(ca.arange(6.0), (2, 3))
    with pytest.raises(ValueError, match="contiguous"):
        x.T.view("float32")
    with pytest.raises(ValueError, match="0-dimensional"):
        ca.asarray(1.0).view("float32")


# -- mistakes: a clear error, and nothing changes -------------------------------------


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda x: x.sum(out=ca.zeros(2)), ValueError, "out has shape"),
        (lambda x: x.sum(axis=0, out=x), ValueError, "out has shape"),
        (lambda x: x.clip(0, 1, out=ca.zeros(x.shape, dtype=ca.int64)), TypeError, "same_kind"),
        (lambda x: x.reshape(), TypeError, "needs a shape"),
        (lambda x: x.reshape(2.5, 2), TypeError, "integers"),
        (lambda x: x.reshape(4, 4), ValueError, "cannot reshape"),
        (lambda x: x.ravel(order="F"), ValueError, "C order"),
        (lambda x: x.sort(kind="bogus"), ValueError, "kind"),
        (lambda x: x.sort(order="f"), ValueError, "structured"),
        (lambda x: x.item(), ValueError, "one element"),
        (lambda x: x.item(6), IndexError, "out of range"),
        (lambda x: x.item(0, 0, 0), IndexError, "indices"),
        (lambda x: x.std(ddof=1, correction=1), ValueError, "not both"),
        (lambda x: x.astype("int8", casting="safe"), TypeError, "unsafe"),
        (lambda x: x.fill("text"), TypeError, "got str"),
    ],
)
def test_a_mistake_raises_and_changes_nothing(call: Any, error: type, words: str) -> None:
    x = ca.asarray(MODEL)
    clone = ca.lazy_clone(x)
    with pytest.raises(error, match=words):
        call(x)
    assert_matches(x, MODEL)
    assert_matches(clone, MODEL)


# -- hints for NumPy and JAX habits ------------------------------------------------


def test_assigning_into_at_points_to_set() -> None:
    x = ca.zeros(3)
    with pytest.raises(TypeError, match=r"x = x\.at\[index\]\.set\(v\)"):
        x.at[0] = 1.0
    with pytest.raises(TypeError, match=r"x = x\.at\[index\]\.add\(v\)"):
        x.at[0] += 1.0
    assert_matches(x, np.zeros(3))


@pytest.mark.parametrize(
    ("numpy_name", "spelling"), [("array", "asarray"), ("concatenate", "concat")]
)
def test_numpy_spellings_point_to_the_standards(numpy_name: str, spelling: str) -> None:
    with pytest.raises(AttributeError, match=rf"ca\.{spelling}\("):
        getattr(ca, numpy_name)
    with pytest.raises(AttributeError, match=r"no attribute 'no_such_name'$"):
        ca.no_such_name  # noqa: B018


def test_bool_of_many_values_points_to_any_and_all() -> None:
    with pytest.raises(TypeError, match=r"ca\.any\(x\) or ca\.all\(x\)"):
        bool(ca.zeros(2))
    assert bool(ca.asarray(1.0)) is True
