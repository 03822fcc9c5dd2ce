"""``out=`` of NumPy's ufuncs and functions: NumPy's results, and all or nothing (rule 3, 11).

A None entry of an ``out=`` tuple asks NumPy to allocate that result
(``np.frexp(x, out=(x, None))``): cowarray returns a fresh Array there. A
call whose ``out=`` is refused, for any entry and for any reason (type,
shape, dtype, a read-only array, a floating-point error in the cast into
it), writes none of the outs: every array keeps its values, lazy clones
included. Each case is compared with the same call on ndarrays.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _attack import host

import cowarray as ca

DATA = np.array([1.5, -2.0, 3.25, 0.0, 7.0])

# (name, call(ufunc input, out tuple)) with outs of DATA's shape and dtype
# or of the result's (frexp's exponent is int32, and casts to float64).
TWO_OUTPUTS: list[tuple[str, Callable[[Any, Any], Any]]] = [
    ("frexp", lambda x, out: np.frexp(x, out=out)),
    ("modf", lambda x, out: np.modf(x, out=out)),
    ("divmod", lambda x, out: np.divmod(x, 2.0, out=out)),
]


def _twins(where: int) -> tuple[tuple[Any, ...], tuple[Any, ...], np.ndarray, ca.Array]:
    """An out tuple holding the input in place ``where`` and None in the other,
    for ndarrays and for cowarray arrays: (numpy out, cowarray out, x, cx)."""
    x = DATA.copy()
    cx = ca.asarray(DATA)
    np_out: list[Any] = [None, None]
    ca_out: list[Any] = [None, None]
    np_out[where] = x
    ca_out[where] = cx
    return tuple(np_out), tuple(ca_out), x, cx


@pytest.mark.parametrize("where", [0, 1], ids=["out=(x, None)", "out=(None, x)"])
@pytest.mark.parametrize(("name", "call"), TWO_OUTPUTS, ids=[c[0] for c in TWO_OUTPUTS])
def test_a_none_in_the_out_tuple_allocates_that_result_as_numpy_does(
    name: str, call: Callable[[Any, Any], Any], where: int
) -> None:
    np_out, ca_out, x, cx = _twins(where)
    keep = ca.lazy_clone(cx)
    expected = call(x, np_out)
    got = call(cx, ca_out)
    assert type(got) is tuple and len(got) == len(expected) == 2
    for place, (mine, numpys) in enumerate(zip(got, expected, strict=True)):
        assert type(mine) is ca.Array
        np.testing.assert_array_equal(host(mine), numpys)
        assert host(mine).dtype == numpys.dtype
        if place == where:
            assert numpys is x and mine is cx  # the out itself, as NumPy returns it
        else:
            assert mine is not cx and not ca.shares_buffer(mine, cx)
    np.testing.assert_array_equal(host(cx), x)  # the out got NumPy's values
    np.testing.assert_array_equal(host(keep), DATA)  # and no other value changed


def test_the_positional_out_spelling_allocates_the_missing_result_too() -> None:
    # np.frexp(x, x) is out=(x, None): NumPy fills the tuple before dispatch.
    x = DATA.copy()
    cx = ca.asarray(DATA)
    expected = np.frexp(x, x)
    got = np.frexp(cx, cx)
    assert got[0] is cx and type(got[1]) is ca.Array
    for mine, numpys in zip(got, expected, strict=True):
        np.testing.assert_array_equal(host(mine), numpys)


def test_a_numpy_array_out_beside_none_receives_numpys_values() -> None:
    plain = np.zeros(5)
    got = np.modf(ca.asarray(DATA), out=(None, plain))
    expected = np.modf(DATA)
    assert got[1] is plain and type(got[0]) is ca.Array
    np.testing.assert_array_equal(host(got[0]), expected[0])
    np.testing.assert_array_equal(plain, expected[1])


def _moved() -> ca.Array:
    gone = ca.zeros(5)
    ca.move(gone)
    return gone


def _read_only() -> np.ndarray:
    frozen = np.zeros(5)
    frozen.flags.writeable = False
    return frozen


# (id, the bad second out, the exception, what its message names)
BAD_SECOND_OUTS: list[tuple[str, Callable[[], Any], type[Exception], str]] = [
    ("a dtype the result cannot cast to", lambda: ca.zeros(5, dtype=ca.bool), TypeError, "cast"),
    ("another shape", lambda: ca.zeros(4), ValueError, "shape"),
    ("a list", lambda: [0.0] * 5, TypeError, "list"),
    ("a read-only ndarray", _read_only, ValueError, "read-only"),
    ("a moved array", _moved, ValueError, "moved"),
]


@pytest.mark.parametrize(
    ("bad", "error", "words"), [c[1:] for c in BAD_SECOND_OUTS], ids=[c[0] for c in BAD_SECOND_OUTS]
)
@pytest.mark.parametrize("first", ["cowarray", "ndarray"])
def test_a_bad_second_out_leaves_every_array_unchanged(
    bad: Callable[[], Any], error: type[Exception], words: str, first: str
) -> None:
    x = ca.asarray(DATA)
    clone = ca.lazy_clone(x)
    first_out = ca.full(5, 9.0) if first == "cowarray" else np.full(5, 9.0)
    first_clone = ca.lazy_clone(first_out) if first == "cowarray" else None
    second = bad()
    second_before = None if type(second) is ca.Array else np.array(second, copy=True)
    with pytest.raises(error, match=words):
        np.frexp(x, out=(first_out, second))
    np.testing.assert_array_equal(host(x), DATA)
    np.testing.assert_array_equal(host(clone), DATA)
    np.testing.assert_array_equal(np.array(first_out, copy=True), np.full(5, 9.0))
    if first_clone is not None:
        np.testing.assert_array_equal(host(first_clone), np.full(5, 9.0))
    if second_before is not None:
        np.testing.assert_array_equal(np.array(second, copy=True), second_before)
    elif words != "moved":
        np.testing.assert_array_equal(host(second), np.zeros(second.shape))


def test_frexp_into_itself_with_a_bad_second_out_leaves_x_unchanged() -> None:
    # The issue's own case, with the second place refused: x is the first out.
    x = ca.asarray(DATA)
    with pytest.raises(TypeError, match="out"):
        np.frexp(x, out=(x, ca.zeros(5, dtype=ca.bool)))
    np.testing.assert_array_equal(host(x), DATA)


@pytest.mark.parametrize(
    ("bad", "error"),
    [
        pytest.param(lambda: np.zeros(5, dtype=bool), TypeError, id="dtype"),
        pytest.param(lambda: np.zeros(4), ValueError, id="shape"),
        pytest.param(lambda: [0.0] * 5, TypeError, id="list"),
        pytest.param(_read_only, ValueError, id="read-only"),
    ],
)
def test_numpy_refuses_the_same_second_outs_with_the_same_exception(
    bad: Callable[[], Any], error: type[Exception]
) -> None:
    # The exception types above are NumPy's own for these outs.
    with pytest.raises(error):
        np.frexp(DATA.copy(), out=(np.zeros(5), bad()))


def test_a_refused_out_says_what_each_result_needs() -> None:
    x = ca.asarray(DATA)
    with pytest.raises(TypeError) as caught:
        np.divmod(x, 2.0, out=(x, ca.zeros(5, dtype=ca.int64)))
    message = str(caught.value)
    assert "nothing was written" in message
    assert "float64" in message and "(5,)" in message and "None" in message


def test_a_floating_point_error_casting_into_the_second_out_changes_no_out() -> None:
    # modf(1e300) = (0.0, 1e300): the second result overflows float32, which
    # NumPy reports (under errstate raise) only after the cast has written.
    big = ca.full(5, 1e300)
    first = ca.full(5, 9.0)
    second = ca.full(5, 9.0, dtype=ca.float32)
    with np.errstate(over="raise"), pytest.raises(FloatingPointError):
        np.modf(big, out=(first, second))
    np.testing.assert_array_equal(host(first), np.full(5, 9.0))
    np.testing.assert_array_equal(host(second), np.full(5, 9.0, dtype=np.float32))


@pytest.mark.parametrize(
    "out",
    [
        pytest.param(lambda x: (x,), id="one entry"),
        pytest.param(lambda x: (x, None, None), id="three"),
    ],
)
def test_an_out_tuple_of_the_wrong_length_raises_as_numpy_and_changes_nothing(
    out: Callable[[Any], tuple[Any, ...]],
) -> None:
    with pytest.raises(ValueError, match="one entry per ufunc output"):
        np.frexp(DATA.copy(), out=out(DATA.copy()))
    x = ca.asarray(DATA)
    with pytest.raises(ValueError, match="one entry per ufunc output"):
        np.frexp(x, out=out(x))
    # the protocol called directly (NumPy's check skipped) refuses it too
    with pytest.raises(ValueError, match="one entry per ufunc output"):
        x.__array_ufunc__(np.frexp, "__call__", x, out=out(x))
    np.testing.assert_array_equal(host(x), DATA)


def test_a_single_out_for_two_results_raises_as_numpy() -> None:
    with pytest.raises(TypeError, match="tuple"):
        np.frexp(DATA.copy(), out=DATA.copy())
    x = ca.asarray(DATA)
    with pytest.raises(TypeError, match="tuple"):
        np.frexp(x, out=x)
    np.testing.assert_array_equal(host(x), DATA)


def test_where_keeps_the_outs_values_where_false_as_numpy_does() -> None:
    mask = np.array([True, False, True, False, True])
    expected = np.full(5, 7.0)
    np.add(DATA, 1.0, out=expected, where=mask)
    out = ca.full(5, 7.0)
    assert np.add(ca.asarray(DATA), 1.0, out=out, where=mask) is out
    np.testing.assert_array_equal(host(out), expected)


@pytest.mark.parametrize(
    ("call", "bigger"),
    [
        pytest.param(lambda a, o: np.add.reduce(a, axis=0, out=o), False, id="add.reduce"),
        pytest.param(lambda a, o: np.multiply.accumulate(a, axis=1, out=o), False, id="accumulate"),
        pytest.param(lambda a, o: np.sum(a, axis=1, out=o), False, id="np.sum"),
        pytest.param(lambda a, o: np.clip(a, 0.0, 2.0, out=o), False, id="np.clip"),
        pytest.param(lambda a, o: np.sin(a, out=o), True, id="np.sin into a bigger out"),
    ],
)
def test_other_outs_get_numpys_values(call: Callable[[Any, Any], Any], bigger: bool) -> None:
    data = DATA[:4].reshape(2, 2)
    shape = call(data, None).shape
    shape = (3, *shape) if bigger else shape  # a ufunc broadcasts its inputs to out
    np_out = np.zeros(shape)
    call(data, np_out)
    out = ca.zeros(shape)
    assert call(ca.asarray(data), out) is out
    np.testing.assert_array_equal(host(out), np_out)


def test_a_reduction_refuses_an_out_of_the_wrong_dimensions_as_numpy() -> None:
    data = DATA[:4].reshape(2, 2)
    with pytest.raises(ValueError, match="dimensions"):
        np.add.reduce(data, axis=0, out=np.zeros((2, 2)))
    out = ca.full((2, 2), 9.0)
    with pytest.raises(ValueError, match="dimensions"):
        np.add.reduce(ca.asarray(data), axis=0, out=out)
    np.testing.assert_array_equal(host(out), np.full((2, 2), 9.0))


def test_a_function_out_of_a_refused_dtype_changes_nothing() -> None:
    # np.concatenate casts into out= under same_kind: float into int is refused.
    with pytest.raises(TypeError):
        np.concatenate([DATA, DATA], out=np.zeros(10, dtype=np.int64))
    out = ca.full(10, 9, dtype=ca.int64)
    with pytest.raises(TypeError, match="nothing was written"):
        np.concatenate([ca.asarray(DATA), ca.asarray(DATA)], out=out)
    np.testing.assert_array_equal(host(out), np.full(10, 9))


class _OwnProtocol:
    """An out of a library with its own protocols (as Dask's arrays): NumPy asks it next."""

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> str:
        return "handled by the other library"

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> str:
        return "handled by the other library"


def test_an_out_of_another_protocol_library_is_deferred_to_and_nothing_is_written() -> None:
    x = ca.asarray(DATA)
    assert np.frexp(x, out=(x, _OwnProtocol())) == "handled by the other library"
    assert np.sum(x, out=_OwnProtocol()) == "handled by the other library"
    np.testing.assert_array_equal(host(x), DATA)
