"""A list or tuple beside an operator is converted as ``asarray`` would, as in NumPy.

``x == [[1, 2], [3, 4]]`` compares element-wise; before, the operator
returned NotImplemented and Python answered ``False`` by identity. Every
comparison and arithmetic operator, on either side, gives NumPy's result
(dtype and values) or raises where NumPy raises; never Python's ``False``.
"""

from __future__ import annotations

import operator
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _compare import assert_matches, host

import cowarray as ca

COMPARISONS = [operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge]
ARITHMETIC = [
    operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
    operator.mod, operator.pow, operator.and_, operator.or_, operator.xor,
    operator.lshift, operator.rshift,
]  # fmt: skip

MODEL = np.asarray([[1, 2], [3, 5]])
OPERANDS: list[Any] = [
    [[1, 2], [3, 4]],
    [1.5, 2],
    (1, 2),
    [True, False],
    [[2], [1]],  # broadcasts
    [[1.0 + 1j, 2.0], [3.0, 4.0]],
    3,  # a scalar, for reference
]


def _outcome(call: Callable[[], Any]) -> tuple[Any, BaseException | None]:
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            return call(), None
    except (TypeError, ValueError) as error:
        return None, error


def _same_as_numpy(call: Callable[[], Any], model: Callable[[], Any]) -> None:
    (result, error), (expected, numpy_error) = _outcome(call), _outcome(model)
    if numpy_error is not None:
        assert error is not None, (numpy_error, result)
        # the same kind of error (NumPy's UFuncTypeError is a TypeError)
        assert isinstance(error, TypeError) == isinstance(numpy_error, TypeError), error
        return
    assert error is None, (error, expected)
    assert type(result) is ca.Array, result  # never Python's bool
    assert_matches(result, expected)


@pytest.mark.parametrize("op", COMPARISONS + ARITHMETIC, ids=lambda op: op.__name__)
@pytest.mark.parametrize("other", OPERANDS, ids=repr)
def test_operators_with_a_list_or_tuple_match_numpy(
    op: Callable[[Any, Any], Any], other: Any, backend_device: ca.Device
) -> None:
    x = ca.asarray(MODEL, device=backend_device)
    if op in COMPARISONS[2:] and np.asarray(other).dtype.kind == "c":
        # complex numbers have no order in the standard (NumPy orders them
        # lexicographically): refused as for two complex Arrays
        for call in (lambda: op(x, other), lambda: op(other, x)):
            with pytest.raises(TypeError, match="real-valued"):
                call()
        return
    _same_as_numpy(lambda: op(x, other), lambda: op(MODEL, other))
    _same_as_numpy(lambda: op(other, x), lambda: op(other, MODEL))
    np.testing.assert_array_equal(host(x), MODEL)


def test_the_issue_example_compares_element_wise(backend_device: ca.Device) -> None:
    x = ca.asarray([[1, 2], [3, 4]], device=backend_device)
    result = x == [[1, 2], [3, 4]]
    assert type(result) is ca.Array and result.device == backend_device
    assert_matches(result, np.ones((2, 2), dtype=bool))
    assert_matches(x != [[1, 2], [3, 5]], np.asarray([[False, False], [False, True]]))
    assert_matches([[1, 2], [3, 5]] == x, np.asarray([[True, True], [True, False]]))  # noqa: SIM300
    assert bool(ca.all(x == [[1, 2], [3, 4]]))


def test_matmul_with_a_list_matches_numpy(backend_device: ca.Device) -> None:
    x = ca.asarray(MODEL, device=backend_device)
    assert_matches(x @ [1, 2], MODEL @ [1, 2])
    assert_matches([1, 2] @ x, [1, 2] @ MODEL)


def test_a_list_is_typed_as_asarray_types_it_not_as_a_weak_scalar() -> None:
    # NumPy converts a list to an array first: int8 + [1] is int64 there too
    x8 = np.asarray([1, 2], dtype=np.int8)
    assert_matches(ca.asarray(x8) + [1, 1], x8 + [1, 1])  # noqa: RUF005
    assert_matches(ca.asarray(x8) + 1, x8 + 1)  # a scalar stays weak: int8
    f32 = np.asarray([1.0], dtype=np.float32)
    assert_matches(ca.asarray(f32) * [2.0], f32 * [2.0])


def test_lists_cowarray_cannot_hold_raise_with_the_reason() -> None:
    x = ca.asarray([1, 2])
    # NumPy answers [False, False] for these; cowarray holds numbers only
    with pytest.raises(TypeError, match="strings"):
        x == ["a", "b"]  # noqa: B015
    with pytest.raises(TypeError, match="objects"):
        x == [None, 1]  # noqa: B015
    with pytest.raises(ValueError, match="ragged"):
        x == [[1], [2, 3]]  # noqa: B015
    with pytest.raises(ValueError, match="broadcast"):
        x == []  # noqa: B015


def test_in_place_operators_refuse_a_list_with_the_fix() -> None:
    x = ca.asarray([1, 2])
    with pytest.raises(TypeError, match=r"ca\.asarray\(value\)"):
        x += [1, 1]
    with pytest.raises(TypeError, match="tuple"):
        x *= (2, 2)
    np.testing.assert_array_equal(host(x), [1, 2])  # unchanged, still x
    x += ca.asarray([1, 1])
    np.testing.assert_array_equal(host(x), [2, 3])


def test_functions_still_take_arrays_and_scalars_only() -> None:
    with pytest.raises(TypeError, match="list"):
        ca.equal(ca.asarray([1, 2]), [1, 2])  # type: ignore[arg-type]


def test_other_operands_are_unchanged() -> None:
    x = ca.asarray([1, 2])
    assert (x == None) is False  # noqa: E711 (Python's answer: not an operand)
    assert (x != "a") is True
    with pytest.raises(TypeError):
        x + "a"  # type: ignore[operator]
