"""Every Python operator, its reflected and in-place forms, against NumPy."""

from __future__ import annotations

import operator
import re
from typing import Any

import numpy as np
import pytest

import cowarray as ca
from cowarray.testing import assert_equal_to_model, to_numpy

ARITHMETIC = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow"]
BITWISE = ["and_", "or_", "xor", "lshift", "rshift"]
COMPARISONS = ["eq", "ne", "lt", "le", "gt", "ge"]


def _pair(kind: str, device: ca.Device) -> tuple[ca.Array, ca.Array, np.ndarray, np.ndarray]:
    if kind == "float":
        a = np.array([[1.5, -2.0, 3.0], [4.0, 0.5, -6.25]])
        b = np.array([2.0, -1.0, 0.5])
    else:
        a = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.int32)
        b = np.array([2, 1, 3], dtype=np.int32)
    return ca.asarray(a, device=device), ca.asarray(b, device=device), a, b


def _assert_operator_result(name: str, result: ca.Array, expected: np.ndarray) -> None:
    """Exact, except a float ``**``: a GPU's pow may be a few ulp from the host's."""
    if name == "pow" and expected.dtype.kind == "f":
        assert result.dtype == expected.dtype and result.shape == expected.shape
        np.testing.assert_allclose(to_numpy(result), expected, rtol=1e-15, atol=0)
    else:
        assert_equal_to_model(result, expected)


@pytest.mark.parametrize("name", ARITHMETIC + COMPARISONS)
@pytest.mark.parametrize("kind", ["float", "int"])
def test_binary_operator_matches_numpy(name: str, kind: str, device: ca.Device) -> None:
    x, y, a, b = _pair(kind, device)
    function = getattr(operator, name)
    with np.errstate(all="ignore"):  # negative ** fraction is NaN in both
        _assert_operator_result(name, function(x, y), function(a, b))
        _assert_operator_result(name, function(y, x), function(b, a))


@pytest.mark.parametrize("name", ARITHMETIC + COMPARISONS)
def test_operator_with_python_scalar_on_either_side(name: str, device: ca.Device) -> None:
    x, _, a, _ = _pair("float", device)
    function = getattr(operator, name)
    _assert_operator_result(name, function(x, 2), function(a, 2))
    _assert_operator_result(name, function(3.0, x), function(3.0, a))


@pytest.mark.parametrize("name", BITWISE)
def test_bitwise_operators_match_numpy(name: str, device: ca.Device) -> None:
    x, y, a, b = _pair("int", device)
    function = getattr(operator, name)
    assert_equal_to_model(function(x, y), function(a, b))
    assert_equal_to_model(function(x, 1), function(a, np.int32(1)))
    assert_equal_to_model(function(1, y), function(np.int32(1), b))


def test_unary_operators_match_numpy(device: ca.Device) -> None:
    x, _, a, _ = _pair("int", device)
    assert_equal_to_model(-x, -a)
    assert_equal_to_model(+x, +a)
    assert_equal_to_model(abs(-x), abs(-a))
    assert_equal_to_model(~x, ~a)
    flags = ca.asarray([True, False], device=device)
    assert_equal_to_model(~flags, np.array([False, True]))


def test_matmul_and_its_reflected_and_in_place_forms(device: ca.Device) -> None:
    m = np.arange(6.0).reshape(2, 3)
    s = np.arange(9.0).reshape(3, 3)
    x, square = ca.asarray(m, device=device), ca.asarray(s, device=device)
    assert_equal_to_model(x @ square, m @ s)
    assert_equal_to_model(square.__rmatmul__(x), m @ s)
    clone = ca.lazy_clone(x)
    same = x
    x @= square
    assert x is same
    assert_equal_to_model(x, m @ s)
    assert_equal_to_model(clone, m)


@pytest.mark.parametrize(
    "name",
    [
        "iadd",
        "isub",
        "imul",
        "ifloordiv",
        "imod",
        "ipow",
        "iand",
        "ior",
        "ixor",
        "ilshift",
        "irshift",
    ],
)
def test_in_place_integer_operators_mutate_and_return_the_same_object(name: str) -> None:
    x, y, a, b = _pair("int", ca.Device("cpu"))
    clone = ca.lazy_clone(x)
    result = getattr(operator, name)(x, y)
    expected = getattr(operator, name)(a.copy(), b)
    assert result is x
    assert_equal_to_model(x, expected)
    assert_equal_to_model(clone, a)


def test_in_place_true_division_on_floats(device: ca.Device) -> None:
    x, y, a, b = _pair("float", device)
    x /= y
    assert_equal_to_model(x, a / b)


def test_unsupported_operand_lets_python_try_the_other_side() -> None:
    class Other:
        def __radd__(self, other: Any) -> str:
            return "other handled it"

    assert ca.arange(3) + Other() == "other handled it"
    assert (ca.arange(3) == "text") is False
    with pytest.raises(TypeError):
        ca.arange(3) + "text"


def test_comparison_results_are_boolean_arrays() -> None:
    x = ca.asarray([1.0, np.nan, 3.0])
    result = x == x
    assert result.dtype == ca.bool
    np.testing.assert_array_equal(to_numpy(result), [True, False, True])


def test_zero_dimensional_results_are_arrays_not_numpy_scalars() -> None:
    x = ca.asarray(2.0)
    for result in (x + x, x * 3, -x, x[()], ca.arange(3)[1], ca.sum(ca.arange(3))):
        assert type(result) is ca.Array
        assert result.ndim == 0


@pytest.mark.parametrize(
    ("shape", "message"),
    [
        ((2, 3), "cannot change the array's shape (3,) to (2, 3)"),
        ((1, 3), "cannot change the array's shape (3,) to (1, 3)"),
        ((4,), "an in-place add: x of shape (3,) and the operand of shape (4,) cannot be"),
    ],
)
def test_an_in_place_operand_that_would_change_the_shape_is_refused(
    shape: tuple[int, ...], message: str
) -> None:
    x = ca.asarray([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=re.escape(message)):
        x += ca.ones(shape)
    assert x.tolist() == [1.0, 2.0, 3.0]
    x += ca.ones((1,))  # broadcasts to x's shape: fine
    x += ca.ones((3,))
    assert x.tolist() == [3.0, 4.0, 5.0]


@pytest.mark.parametrize(
    "operand",
    ["same shape", "0-d", "an element y[i]", "itself", "a row (broadcast)", "float32", "an int"],
)
@pytest.mark.parametrize("name", ["iadd", "isub", "imul", "itruediv", "ipow"])
def test_a_small_private_array_written_in_place_by_an_array_is_numpys_result(
    name: str, operand: str
) -> None:
    # x += y on a private x of a few elements replaces x's memory with the
    # result computed beside it, without the core, when y keeps x's dtype and
    # shape; every other operand goes the full path. Either way: NumPy's values,
    # the same object back, y unchanged, and no copy counted.
    a = np.array([[1.5, 2.0, 3.0], [4.0, 0.5, 6.25]])
    b = {
        "same shape": np.array([[2.0, -1.0, 0.5], [1.0, 3.0, 2.0]]),
        "0-d": np.array(1.5),
        "an element y[i]": np.array([0.5, 2.5])[1],
        "itself": a,
        "a row (broadcast)": np.array([2.0, -1.0, 0.5]),
        "float32": np.array([2.0, -1.0, 0.5], dtype=np.float32),
        "an int": np.array([2, 1, 3]),
    }[operand]
    x = ca.asarray(a)
    x[0, 0] = 1.5  # (a write: the core has found x private and writable)
    y = x if operand == "itself" else ca.asarray(b)
    if operand == "an element y[i]":
        y = ca.asarray([0.5, 2.5])[1]
    saved_y = to_numpy(y).copy()
    before = ca.copy_counters().copies
    result = getattr(operator, name)(x, y)
    assert result is x
    assert_equal_to_model(x, getattr(operator, name)(a.copy(), b))
    np.testing.assert_array_equal(to_numpy(y), saved_y if operand != "itself" else to_numpy(x))
    assert ca.copy_counters().copies == before


def test_a_small_in_place_write_by_an_array_leaves_a_clone_and_refuses_bad_operands() -> None:
    x = ca.asarray([1.0, 2.0, 3.0])
    x[0] = 1.0
    clone = ca.lazy_clone(x)
    x += ca.asarray([1.0, 1.0, 1.0])
    assert x.tolist() == [2.0, 3.0, 4.0] and clone.tolist() == [1.0, 2.0, 3.0]
    i = ca.asarray([1, 2, 3])
    i[0] = 1
    with pytest.raises(TypeError, match="in-place operators keep the dtype"):
        i += ca.asarray([0.5, 0.5, 0.5])
    with pytest.raises(TypeError, match="in-place operators keep the dtype"):
        i /= ca.asarray([2, 2, 2])
    assert i.tolist() == [1, 2, 3]
    with pytest.raises(ValueError, match="cannot change the array's shape"):
        x += ca.ones((2, 3))
    assert x.tolist() == [2.0, 3.0, 4.0]


@pytest.mark.parametrize("shape", [(4,), (2, 3), (2, 1, 2), ()])
@pytest.mark.parametrize("name", ["iadd", "isub", "imul", "itruediv", "ipow"])
@pytest.mark.parametrize("scalar", [1.5, 2, np.float64(0.5)], ids=["float", "int", "np.float64"])
def test_a_small_private_array_of_any_rank_written_by_a_scalar_is_numpys_result(
    shape: tuple[int, ...], name: str, scalar: Any
) -> None:
    # The scalar fast path of the small in-place operators once served 1-D
    # arrays only (the fast-write set holds (type, ndim) pairs otherwise), and
    # a 0-d array's NumPy result, a scalar, sent it the whole way round.
    a = np.arange(1.0, 1.0 + np.prod(shape, dtype=int)).reshape(shape)
    x = ca.asarray(a)
    x[(0,) * len(shape)] = 1.0  # (a write: the core has found x private and writable)
    clone_before = ca.lazy_clone(x)
    x += 0.0
    before = ca.copy_counters().copies
    expected = getattr(operator, name)(a.copy(), scalar)
    for _ in range(2):
        result = getattr(operator, name)(x, scalar)
        assert result is x
    expected = getattr(operator, name)(expected, scalar)
    assert_equal_to_model(x, expected)
    assert type(x._data) is np.ndarray  # an array, never a NumPy scalar
    assert_equal_to_model(clone_before, a)
    assert ca.copy_counters().copies == before


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int32", "complex128"], ids=str)
@pytest.mark.parametrize(("shape", "key"), [((6,), 3), ((6,), -1), ((2, 3), (1, 2))])
def test_an_element_read_from_a_written_array_is_written_in_place_and_stored_back(
    dtype: str, shape: tuple[int, ...], key: Any
) -> None:
    # x[i] of a private array is new memory nobody else holds: its fast
    # writes are open from the start, so x[i] += v writes it in place and
    # stores it back, without the whole in-place machinery. The values are
    # NumPy's, the element a value of its own, and nothing is copied.
    from cowarray._core import cow
    from cowarray._core.values import fast_writes

    a = np.arange(6).reshape(shape).astype(dtype)
    x = ca.asarray(a)
    x[(0,) * len(shape)] = a[(0,) * len(shape)]  # the core has found x private and writable
    element = x[key]
    # (none where unchecked writes are off: free-threaded, COWARRAY_CHECK_STORES)
    assert element._fast_write == (fast_writes(element) if cow.FAST_WRITES else frozenset())
    element_then = np.asarray(a[key]).copy()
    before = ca.copy_counters().copies
    for _ in range(3):
        x[key] += 2
        a[key] += 2
    assert_equal_to_model(x, a)
    assert ca.copy_counters().copies == before
    element += 2  # the element read before is a value: x keeps its own
    assert_equal_to_model(x, a)
    assert_equal_to_model(element, element_then + 2)
    # An export aliases the element on purpose (NumPy's protocols): its next
    # in-place write must reach the export, not replace the memory under it.
    exported = np.asarray(element)
    element += 2
    assert exported[()] == element_then + 4


def _spelled(key: Any) -> str:
    """``key`` as it is written in a subscript (``1:-1``, ``:, 1``)."""
    parts = key if isinstance(key, tuple) else (key,)
    return ", ".join(
        ":".join("" if b is None else str(b) for b in (p.start, p.stop))
        if isinstance(p, slice)
        else str(p)
        for p in parts
    )


@pytest.mark.parametrize(
    ("shape", "region", "element"),
    [((10,), slice(1, -1), 0), ((4, 5), (slice(None), 1), (0, 0))],
    ids=["x[1:-1] += d", "x[:, 1] += d"],
)
def test_an_array_written_through_its_temporary_view_is_alone_at_its_next_element_write(
    shape: tuple[int, ...], region: Any, element: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # x[a:b] += d writes x's memory through the temporary view, which leaves
    # x the sharing record the view held. The next x[i] = v finds x alone
    # (cow.reclaim) rather than taking the whole write path: nothing is
    # copied, x is private again, and the writes after it skip the core
    # (where unchecked writes are on).
    from cowarray._core import cow

    whole_write_path: list[object] = []
    write = cow.write
    monkeypatch.setattr(cow, "write", lambda *a, **k: whole_write_path.append(a) or write(*a, **k))
    a = np.arange(float(np.prod(shape))).reshape(shape)
    x, model = ca.asarray(a), a.copy()
    before = ca.copy_counters().copies
    # (the key written as constants: only such a key is proven to answer
    # the same at the store, so only such a statement writes through the view)
    namespace: dict[str, Any] = {}
    exec(f"def through_the_view(x):\n    x[{_spelled(region)}] += 0.5\n", namespace)
    through_the_view = namespace["through_the_view"]
    for step in range(3):
        through_the_view(x)
        model[region] += 0.5
        assert x._buf is not None  # (the view's record: what this test is about)
        whole_write_path.clear()
        x[element] = float(step)
        assert not whole_write_path or not cow.FAST_WRITES
        model[element] = float(step)
        x[element] = x[region][1]  # a one-element value read from x itself
        model[element] = model[region][1]
        assert cow.state_of(x) == "private"
        assert bool(x._fast_write) == cow.FAST_WRITES
    assert_equal_to_model(x, model)
    assert ca.copy_counters().copies == before


def test_the_first_view_of_a_private_array_joins_without_the_general_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The stencil's step gives x its memory back (x[0] = v finds it alone)
    # and then slices it again: that first view makes x's record under the
    # lock (cow.join) and joins it as any view of an open record, not through
    # values._wrap (where joins go without the lock at all: not on a
    # free-threaded build). The view is a value all the same; while someone
    # traces, the join is the locked one, which the trace shows.
    from cowarray._core import cow, values

    general_path: list[object] = []
    wrap = values._wrap
    monkeypatch.setattr(values, "_wrap", lambda *a: general_path.append(a) or wrap(*a))
    a = np.arange(10.0)
    x = ca.asarray(a).copy()
    x[0] = 5.0
    assert cow.state_of(x) == "private"
    view = x[1:-1]
    assert not general_path or not cow.LOCK_FREE_JOINS  # (free-threaded: every join locks)
    assert view._buf is x._buf and x._buf is not None
    assert not x._fast_write  # a record appeared: the unchecked writes are off
    x[1] = -1.0  # x copies; the view keeps its values
    expected = a.copy()
    expected[0] = 5.0
    assert_equal_to_model(view, expected[1:-1])
    expected[1] = -1.0
    assert_equal_to_model(x, expected)
    x[0] = 6.0  # alone again (the view lives, but on its own memory)
    with ca.trace() as seen:
        traced = x[2:4]
    assert [event.kind for event in seen.events] == ["share"]
    assert traced._buf is x._buf and general_path


def test_an_array_whose_view_lives_copies_at_its_next_element_write() -> None:
    # The same write with the view alive: x is not alone, so the write copies
    # and the view keeps the values it had.
    a = np.arange(10.0)
    x = ca.asarray(a)
    x[1:-1] += 0.5
    view = x[1:4]
    x[0] = 9.0
    x[1] = 9.0
    assert_equal_to_model(view, a[1:4] + 0.5)
    expected = a.copy()
    expected[1:-1] += 0.5
    expected[:2] = 9.0
    assert_equal_to_model(x, expected)


def test_an_in_place_operator_reads_an_ndarray_of_another_byte_order() -> None:
    # x + big_endian works (NumPy's ufunc reads it); x += big_endian wrapped
    # the ndarray as an Array of a dtype cowarray does not store and raised.
    x = ca.asarray([1.0, 2.0, 3.0])
    swapped = np.asarray([1.0, 10.0, 100.0], dtype=">f8")
    x += swapped
    np.testing.assert_array_equal(np.asarray(x), [2.0, 12.0, 103.0])
    np.testing.assert_array_equal(swapped, [1.0, 10.0, 100.0])  # read, never written
