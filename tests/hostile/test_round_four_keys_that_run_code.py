"""Keys and values whose ``__index__`` or ``__float__`` run code: every entry
point converts them before it reads or writes memory, once, and then reads
or writes exactly what it converted (issue 46, row 4 and its family;
docs/design.md rules 1 and 3; cowarray._core.values.getitem, Array.item,
Array.__setitem__).

The model is NumPy on eager copies: NumPy calls a key's ``__index__`` (each
slice bound's, once) before it touches memory, so a read whose key writes
the array reads what the array holds after the key's code ran, and a store
whose key writes the array keeps that write and its own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import cowarray as ca


class _Key:
    """An index whose ``__index__`` runs ``effect`` at its first call and
    gives ``answers`` in turn (the last one from then on)."""

    def __init__(self, effect: Callable[[], object], *answers: int) -> None:
        self.effect = effect
        self.answers = list(answers) or [0]
        self.calls = 0

    def __index__(self) -> int:
        if not self.calls:
            self.effect()
        answer = self.answers[min(self.calls, len(self.answers) - 1)]
        self.calls += 1
        return answer


# -- row 4: a read whose key writes the array --------------------------------------

# name -> (shape, the read of base with key k, on cowarray and NumPy alike)
_READS: dict[str, tuple[tuple[int, ...], Callable[[Any, Any], Any]]] = {
    "base[k]": ((6,), lambda base, k: base[k]),
    "base[k] of rows": ((3, 4), lambda base, k: base[k]),
    "base[k, 1]": ((3, 4), lambda base, k: base[k, 1]),
    "base[..., k]": ((3, 4), lambda base, k: base[..., k]),
    "base[k, ...]": ((3, 4), lambda base, k: base[k, ...]),
    "base[None, k]": ((3, 4), lambda base, k: base[None, k]),
    "base[k:2, 0]": ((3, 4), lambda base, k: base[k:2, 0]),
    "base.item(k)": ((6,), lambda base, k: base.item(k)),
    "base.item(k) of rows": ((3, 4), lambda base, k: base.item(k)),
    "base.item((k, 1))": ((3, 4), lambda base, k: base.item((k, 1))),
    # (already right: the functional read converts its key first; NumPy's
    # model of it is base[k])
    "base.at[k].get()": (
        (6,),
        lambda base, k: base.at[k].get() if isinstance(base, ca.Array) else base[k],
    ),
}


@pytest.mark.parametrize("read", list(_READS))
def test_a_read_whose_key_writes_the_array_reads_what_the_array_holds_then(read: str) -> None:
    # x = base.copy() shares base's memory. The key's code writes base (which
    # copies away from x) and then x (now alone in the old memory: in place).
    # The read must see base's new values, never x's write.
    shape, reader = _READS[read]
    original = np.arange(float(np.prod(shape))).reshape(shape)
    corner = (0,) * len(shape)

    def run(base: Any, x: Any) -> Any:
        def effect() -> None:
            base[...] = 5.0
            x[corner] = 1000.0

        result = reader(base, _Key(effect, 0))
        return np.array(result, copy=True) if hasattr(result, "shape") else result

    base = ca.asarray(original)
    x = base.copy()
    got = run(base, x)
    model_base = original.copy()
    model_x = model_base.copy()
    expected = run(model_base, model_x)
    np.testing.assert_array_equal(got, expected, err_msg=f"{read} read another value's memory")
    np.testing.assert_array_equal(np.asarray(base), model_base)
    np.testing.assert_array_equal(np.asarray(x), model_x)


@pytest.mark.parametrize(
    ("shape", "reader"),
    [((8,), lambda base, k: base[k:4]), ((8, 2), lambda base, k: base[k:4, 1])],
    ids=["base[k:4]", "base[k:4, 1]"],
)
def test_a_slice_read_whose_bound_writes_the_array_converts_the_bound_once(
    shape: tuple[int, ...], reader: Callable[[Any, Any], Any]
) -> None:
    # The bound writes base (shared with x: base gets new memory) at its
    # first call and answers 0, then 2. NumPy calls it once: base[0:4].
    original = np.arange(float(np.prod(shape))).reshape(shape)
    base = ca.asarray(original)
    x = base.copy()
    key = _Key(lambda: base.__setitem__(Ellipsis, 5.0), 0, 2)
    got = np.array(reader(base, key), copy=True)
    model = original.copy()
    expected = reader(model, _Key(lambda: model.__setitem__(Ellipsis, 5.0), 0, 2)).copy()
    np.testing.assert_array_equal(got, expected)
    assert key.calls == 1
    np.testing.assert_array_equal(np.asarray(x), original)


# -- the family: a store whose key writes the array --------------------------------

# name -> (shape, the store into x with key k)
_STORES: dict[str, tuple[tuple[int, ...], Callable[[Any, Any], None]]] = {
    "x[k:4] = -1": ((8,), lambda x, k: x.__setitem__(slice(k, 4), -1.0)),
    "x[k:4] = -1, big": ((70_000,), lambda x, k: x.__setitem__(slice(k, 4), -1.0)),
    "x[k:2, 0] = -1": ((4, 4), lambda x, k: x.__setitem__((slice(k, 2), 0), -1.0)),
    "x[1:k] = array": ((8,), lambda x, k: x.__setitem__(slice(1, k), ca.full(3, -1.0))),
}


@pytest.mark.parametrize("shared", [False, True], ids=["private", "shared with a clone"])
@pytest.mark.parametrize("store", list(_STORES))
def test_a_store_whose_slice_bound_writes_the_array_keeps_both_writes(
    store: str, shared: bool
) -> None:
    # NumPy converts the bound (whose code writes x[-1] = 99) before it
    # stores: x keeps the bound's write and gets the store's.
    shape, writer = _STORES[store]
    original = np.arange(float(np.prod(shape))).reshape(shape)
    last = tuple(n - 1 for n in shape)
    x = ca.asarray(original)
    x[last] = float(original[last])  # (the core now knows x private and writable)
    clone = x.copy() if shared else None
    answer = 4 if store.startswith("x[1:k]") else 0
    writer(x, _Key(lambda: x.__setitem__(last, 99.0), answer))
    model = original.copy()

    def model_writer(m: np.ndarray, k: Any) -> None:
        if store.startswith("x[1:k]"):
            m[1:k] = np.full(3, -1.0)
        elif shape == (4, 4):
            m[k:2, 0] = -1.0
        else:
            m[k:4] = -1.0

    model_writer(model, _Key(lambda: model.__setitem__(last, 99.0), answer))
    np.testing.assert_array_equal(np.asarray(x), model)
    if clone is not None:
        np.testing.assert_array_equal(np.asarray(clone), original)


# -- guards: entry points that already convert first (a fix must keep them so) -------


class _RunningFloat(float):
    """A float whose ``__float__`` runs ``effect`` first and answers 7.0."""

    effect: Callable[[], object]

    def __float__(self) -> float:
        self.effect()
        return 7.0


_VALUE_WRITES: dict[str, Callable[[Any, Any], None]] = {
    "x[0:2] = v": lambda x, v: x.__setitem__(slice(0, 2), v),
    "x[1] = v": lambda x, v: x.__setitem__(1, v),
    "x += v": lambda x, v: x.__iadd__(v),
    "x += v, big": lambda x, v: x.__iadd__(v),
}


@pytest.mark.parametrize("attack", ["writes x", "clones x"])
@pytest.mark.parametrize("write", list(_VALUE_WRITES))
def test_a_value_whose_float_runs_code_is_converted_before_the_write(
    write: str, attack: str
) -> None:
    # The value's code writes x[5] = 99 (or clones x) before the write takes
    # its value, as NumPy converts a value before it stores it.
    original = np.arange(70_000.0 if write.endswith("big") else 8.0)
    x = ca.asarray(original)
    kept: list[ca.Array] = []
    value = _RunningFloat(0.0)
    value.effect = (
        (lambda: x.__setitem__(5, 99.0))
        if attack == "writes x"
        else (lambda: kept.append(x.copy()))
    )
    _VALUE_WRITES[write](x, value)
    model = original.copy()
    if attack == "writes x":
        model[5] = 99.0
    if write.startswith("x +="):
        model += 7.0
    elif write == "x[1] = v":
        model[1] = 7.0
    else:
        model[0:2] = 7.0
    np.testing.assert_array_equal(np.asarray(x), model)
    for clone in kept:
        np.testing.assert_array_equal(np.asarray(clone), original)


@pytest.mark.parametrize(
    ("bounds", "model_key"),
    [
        ((5, None, -1), slice(5, None, -1)),
        ((1, 7, 2), slice(1, 7, 2)),
        ((6, 0, -3), slice(6, 0, -3)),
    ],
    ids=["k::-1", "k:7:2", "k:0:-3"],
)
def test_a_slice_read_whose_start_writes_the_array_reads_that_slice_of_its_new_memory(
    bounds: tuple[Any, Any, Any], model_key: slice
) -> None:
    # The start's __index__ writes base (shared with x: base gets new memory)
    # and answers once; the slice is then read off the view NumPy made (any
    # step), from base's new memory, never asked again.
    original = np.arange(8.0)
    base = ca.asarray(original)
    x = base.copy()
    start, stop, step = bounds
    key = _Key(lambda: base.__setitem__(Ellipsis, np.arange(8.0) * 10), start)
    got = np.array(base[key:stop:step], copy=True)
    np.testing.assert_array_equal(got, (np.arange(8.0) * 10)[model_key])
    assert key.calls == 1
    np.testing.assert_array_equal(np.asarray(x), original)
