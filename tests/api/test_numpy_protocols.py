"""NumPy's functions and ufuncs on cowarray arrays (docs/design.md rule 11), against NumPy.

Each call is made on cowarray arrays and on plain ndarrays: the values must
be NumPy's, the result a cowarray Array, and no input or other value may
change. Hostile cases: functions that write into an argument, ``out=``
arrays of both kinds, ``ufunc.at`` on an array with a lazy clone, views
returned by NumPy, and a foreign protocol type that must be deferred to.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import cowarray as ca


def host(x: Any) -> np.ndarray:
    return np.asarray(x, copy=True)


DATA = np.linspace(-2.0, 3.0, 12).reshape(3, 4)


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda xp, a: np.sin(a), id="np.sin"),
        pytest.param(lambda xp, a: np.isnan(a), id="np.isnan"),
        pytest.param(lambda xp, a: np.add(a, 1.5), id="np.add scalar"),
        pytest.param(lambda xp, a: np.add.reduce(a, axis=0), id="add.reduce"),
        pytest.param(lambda xp, a: np.multiply.accumulate(a, axis=1), id="multiply.accumulate"),
        pytest.param(lambda xp, a: np.subtract.outer(a[0], a[1]), id="subtract.outer"),
        pytest.param(lambda xp, a: np.maximum.reduceat(a[0], [0, 2]), id="maximum.reduceat"),
        pytest.param(lambda xp, a: np.divmod(a, 0.7)[1], id="divmod"),
        pytest.param(lambda xp, a: np.sum(a), id="np.sum"),
        pytest.param(lambda xp, a: np.mean(a, axis=1), id="np.mean"),
        pytest.param(lambda xp, a: np.percentile(a, 50), id="np.percentile"),
        pytest.param(lambda xp, a: np.concatenate([a, a]), id="np.concatenate"),
        pytest.param(lambda xp, a: np.transpose(a), id="np.transpose"),
        pytest.param(lambda xp, a: np.ravel(a), id="np.ravel"),
        pytest.param(lambda xp, a: np.pad(a, 1), id="np.pad"),
        pytest.param(lambda xp, a: np.einsum("ij->j", a), id="np.einsum"),
        pytest.param(lambda xp, a: np.split(a, 2, axis=1)[1], id="np.split"),
        pytest.param(lambda xp, a: np.where(a > 0, a, 0.0), id="np.where"),
        pytest.param(lambda xp, a: a + np.ones(4), id="x + ndarray"),
        pytest.param(lambda xp, a: np.ones(4) + a, id="ndarray + x"),
        pytest.param(lambda xp, a: np.ones(4) * a[0], id="ndarray * row"),
    ],
)
def test_numpy_calls_give_numpys_values_as_cowarray_arrays(call: Any) -> None:
    x = ca.asarray(DATA)
    clone = ca.lazy_clone(x)
    result = call(np, x)
    expected = call(np, DATA.copy())
    assert type(result) is ca.Array
    np.testing.assert_allclose(host(result), expected)
    np.testing.assert_array_equal(host(x), DATA)
    np.testing.assert_array_equal(host(clone), DATA)


def test_a_view_numpy_returns_is_a_value_that_shares_lazily() -> None:
    x = ca.asarray(DATA)
    t = np.transpose(x)
    assert ca.shares_buffer(x, t)
    t[0, 0] = 100.0  # a write to the result copies first: x keeps its values
    assert float(x[0, 0]) == DATA[0, 0]


@pytest.mark.parametrize(
    "mutate",
    [
        pytest.param(lambda t: np.copyto(t, 7.0), id="copyto"),
        pytest.param(lambda t: np.put(t, [0, 5], [7.0, 8.0]), id="put"),
        pytest.param(lambda t: np.place(t, host(t) > 0, [7.0]), id="place"),
        pytest.param(lambda t: np.putmask(t, host(t) > 0, 7.0), id="putmask"),
        pytest.param(lambda t: np.fill_diagonal(t, 7.0), id="fill_diagonal"),
        pytest.param(
            lambda t: np.put_along_axis(t, np.zeros((3, 1), dtype=int), 7.0, axis=1),
            id="put_along_axis",
        ),
        pytest.param(lambda t: np.add.at(t, ([0, 0, 2], [1, 1, 3]), 1.0), id="add.at"),
    ],
)
def test_functions_that_write_an_argument_write_through_copy_on_write(mutate: Any) -> None:
    x = ca.asarray(DATA)
    clone = ca.lazy_clone(x)
    row = x[1]
    expected = DATA.copy()
    mutate(expected)
    assert mutate(x) is None
    np.testing.assert_array_equal(host(x), expected)
    np.testing.assert_array_equal(host(clone), DATA)  # no other value changed
    np.testing.assert_array_equal(host(row), DATA[1])


def test_out_arrays_get_values_never_aliases() -> None:
    x = ca.asarray(DATA)
    out = ca.zeros((3, 4))
    keep = ca.lazy_clone(out)
    assert np.sin(x, out=out) is out
    np.testing.assert_allclose(host(out), np.sin(DATA))
    np.testing.assert_array_equal(host(keep), np.zeros((3, 4)))
    plain = np.zeros((3, 4))
    np.cos(x, out=plain)
    np.testing.assert_allclose(plain, np.cos(DATA))
    plain[0, 0] = 99.0
    np.testing.assert_array_equal(host(x), DATA)  # the ndarray got values, not x's memory
    total = ca.zeros(())
    np.sum(x, out=total)
    assert float(total) == pytest.approx(DATA.sum())


def test_a_numpy_function_cannot_write_shared_memory_behind_the_core() -> None:
    # Inputs reach NumPy read-only, so even a function asked for a writable
    # window onto x gets none: the window is a cowarray value like any view.
    from cowarray import _numpy_protocols

    x = ca.asarray(DATA)
    clone = ca.lazy_clone(x)
    window = np.lib.stride_tricks.sliding_window_view(x, 2, axis=1, writeable=True)
    assert type(window) is ca.Array and window.shape == (3, 3, 2)
    window[0, 0, 0] = 100.0
    np.testing.assert_array_equal(host(x), DATA)
    np.testing.assert_array_equal(host(clone), DATA)
    readable = _numpy_protocols._readable(x, x.device)
    with pytest.raises(ValueError, match="read-only"):
        readable[0, 0] = 1.0


def test_values_never_alias_for_numpys_memory_questions() -> None:
    x = ca.asarray(DATA)
    assert np.shares_memory(x, ca.lazy_clone(x)) is False
    assert np.may_share_memory(x, x[1:]) is False
    assert ca.shares_buffer(x, x[1:])  # the physical fact, where it is asked for
    export = np.asarray(x)  # an alias of x: asked with an ndarray, the answer is true
    assert np.shares_memory(export, x) and np.may_share_memory(x, export)
    assert not np.shares_memory(np.zeros(3), x)


def test_mixed_devices_are_refused_clearly() -> None:
    with pytest.raises(ValueError, match="different devices"):
        np.add(ca.zeros(2), ca.zeros(2, device="cpu:1"))


def test_results_stay_on_the_arrays_device() -> None:
    x = ca.ones(3, device="cpu:1")
    assert np.sin(x).device == ca.Device("cpu:1")
    assert np.concatenate([x, x]).device == ca.Device("cpu:1")


def test_another_protocol_type_is_deferred_to() -> None:
    class Other:
        def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kw: Any) -> str:
            return "other"

        def __array_function__(self, func: Any, types: Any, args: Any, kw: Any) -> str:
            return "other"

    assert np.add(ca.zeros(2), Other()) == "other"
    assert np.concatenate([ca.zeros(2), Other()]) == "other"  # type: ignore[list-item]


def test_ufunc_at_into_an_ndarray_reads_cowarray_values() -> None:
    target = np.zeros(3)
    np.add.at(target, [0, 0, 2], ca.ones(3))
    assert target.tolist() == [2.0, 0.0, 1.0]


@pytest.mark.parametrize(
    ("index", "values", "error"),
    [
        (np.r_[np.arange(10**5) % 4, 9], 1.0, IndexError),  # the bad index comes last
        ((np.arange(5) % 3, np.r_[0, 1, 2, 3, 9]), 1.0, IndexError),
        (np.r_[np.arange(1000) % 4, -13], 1.0, IndexError),
        (np.arange(4), np.ones(3), ValueError),
        (np.array([0.5]), 1.0, IndexError),
    ],
    ids=["last of 10^5", "second axis", "negative", "values' shape", "float index"],
)
def test_numpys_ufunc_at_checks_before_it_writes(index: Any, values: Any, error: type) -> None:
    # cowarray's np.add.at writes a sole holder in place because NumPy
    # refuses bad input before its loop writes anything: this pins it.
    plain = np.zeros((3, 4)) if isinstance(index, tuple) else np.zeros(4)
    with pytest.raises(error):
        np.add.at(plain, index, values)
    assert not plain.any()
    x = ca.asarray(plain)
    with pytest.raises(error):
        np.add.at(x, index, values)
    assert not host(x).any()


def test_ufunc_at_writes_a_sole_holder_in_place_and_a_shared_one_into_a_copy() -> None:
    tally = ca.zeros(8)
    tally[0] = 0.0  # the steady state of a loop: private
    address = np.asarray(tally).__array_interface__["data"][0]
    with ca.trace() as sole:
        np.add.at(tally, ca.asarray([1, 1, 7]), ca.asarray([1.0, 2.0, 3.0]))
    assert sole.copies == 0
    assert np.asarray(tally).__array_interface__["data"][0] == address
    kept = ca.lazy_clone(tally)
    with ca.trace() as shared:
        np.multiply.at(tally, [1, 7], 2.0)
    assert shared.copies == 1
    assert host(tally).tolist() == [0, 6, 0, 0, 0, 0, 0, 6]
    assert host(kept).tolist() == [0, 3, 0, 0, 0, 0, 0, 3]


_AT_OPERANDS = {
    "an Array": lambda x: ca.asarray([1.0, 2.0, 4.0]),
    "an ndarray": lambda x: np.asarray([1.0, 2.0, 4.0]),
    "a float": lambda x: 0.5,
    "x itself": lambda x: x[:3],
    "x reversed": lambda x: x[::-1][:3],
    "a lazy clone of x": lambda x: ca.lazy_clone(x)[1:4],
}


@pytest.mark.parametrize("index_kind", ["Array", "ndarray", "list"])
@pytest.mark.parametrize("operand", list(_AT_OPERANDS), ids=list(_AT_OPERANDS))
def test_ufunc_at_reads_each_operand_as_the_value_it_was(operand: str, index_kind: str) -> None:
    # The model: NumPy with every operand copied before the write.
    start = np.asarray([1.0, 10.0, 100.0, 1000.0, 7.0])
    x = ca.asarray(start)
    x[0] = start[0]  # private, as a loop leaves it: the write goes in place
    values = _AT_OPERANDS[operand](x)
    indices = [3, 0, 3]
    index = {"Array": ca.asarray(indices), "ndarray": np.asarray(indices), "list": indices}
    expected = start.copy()
    np.add.at(
        expected, indices, np.array(values, copy=True) if not isinstance(values, float) else values
    )
    kept = None if isinstance(values, float) else host(values)
    np.add.at(x, index[index_kind], values)
    np.testing.assert_array_equal(host(x), expected)
    if kept is not None and type(values) is ca.Array:
        np.testing.assert_array_equal(host(values), kept)  # a value is never written


def test_ufunc_at_that_raises_after_its_loop_leaves_the_array_as_it_was() -> None:
    x = ca.asarray([1e308, 1.0])
    kept = host(x)
    with np.errstate(over="raise"), pytest.raises(FloatingPointError):
        np.multiply.at(x, [0, 0], 10.0)
    np.testing.assert_array_equal(host(x), kept)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(RuntimeWarning):
            np.multiply.at(x, [0], 10.0)  # "overflow", turned into an error
    np.testing.assert_array_equal(host(x), kept)
    ints = ca.zeros(2, dtype=ca.int8)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(RuntimeWarning):
            np.add.at(ints, [0], np.array([np.nan]))  # NaN cast to int8: "invalid"
    assert host(ints).tolist() == [0, 0]


def test_ufunc_at_on_a_view_of_a_living_array_warns_and_leaves_the_parent() -> None:
    x = ca.zeros(6)
    row = x[1:4]
    with pytest.warns(ca.ViewWriteWarning):
        np.add.at(row, [0, 0], 1.0)
    assert host(row).tolist() == [2.0, 0.0, 0.0]
    assert host(x).tolist() == [0.0] * 6


def test_protocols_on_every_backend_keep_the_device_and_the_values(
    backend_device: ca.Device,
) -> None:
    x = ca.asarray(DATA, device=backend_device)
    clone = ca.lazy_clone(x)
    for result, expected in [
        (np.sin(x), np.sin(DATA)),
        (np.add.reduce(x, axis=0), DATA.sum(axis=0)),
        (np.concatenate([x, x]), np.concatenate([DATA, DATA])),
        (np.transpose(x), DATA.T),
    ]:
        assert type(result) is ca.Array and result.device == backend_device
        np.testing.assert_allclose(host(result.to_device("cpu")), expected)
    np.add.at(x, (np.asarray([0, 0]), np.asarray([1, 1])), 1.0)
    assert float(x[0, 1].to_device("cpu")) == DATA[0, 1] + 2.0
    np.testing.assert_array_equal(host(clone.to_device("cpu")), DATA)
