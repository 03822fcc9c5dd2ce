"""Mixed-kind promotion is NumPy 2's (design rule 11), compared with NumPy.

Arrays of two kinds (bool, integer, real and complex floating; ``uint64`` with
a signed integer too) and Python scalars of another kind than an array's give
NumPy 2's result dtype and values, in the ``ca.*`` functions and the
operators alike. Within one kind the standard's table holds (NumPy's agrees).
cowarray raises only where NumPy raises too, or where the promoted dtype is
outside the function's category (``atan2`` of integers, ``logical_and`` of
numbers), as it does within one kind. In-place operators keep the array's
dtype.
"""

from __future__ import annotations

import itertools
import operator
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest
from _compare import assert_matches, host

import cowarray as ca
from cowarray._checks import CATEGORY
from cowarray._dtypes import ALL_DTYPES, PROMOTION_TABLE, STANDARD_PROMOTION_TABLE

DTYPES = list(ALL_DTYPES)

# the standard's element-wise functions of two arrays -> NumPy's
BINARY: dict[str, Callable[..., Any]] = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply,
    "divide": np.true_divide, "floor_divide": np.floor_divide, "remainder": np.remainder,
    "pow": np.power, "atan2": np.arctan2, "hypot": np.hypot, "copysign": np.copysign,
    "maximum": np.maximum, "minimum": np.minimum, "logaddexp": np.logaddexp,
    "nextafter": np.nextafter, "equal": np.equal, "not_equal": np.not_equal,
    "less": np.less, "less_equal": np.less_equal, "greater": np.greater,
    "greater_equal": np.greater_equal, "bitwise_and": np.bitwise_and,
    "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor,
    "bitwise_left_shift": np.left_shift, "bitwise_right_shift": np.right_shift,
    "logical_and": np.logical_and, "logical_or": np.logical_or,
    "logical_xor": np.logical_xor,
}  # fmt: skip

# operator -> the standard function whose category it has
OPERATORS: dict[Callable[[Any, Any], Any], str] = {
    operator.add: "add", operator.sub: "subtract", operator.mul: "multiply",
    operator.truediv: "divide", operator.floordiv: "floor_divide", operator.mod: "remainder",
    operator.pow: "pow", operator.and_: "bitwise_and", operator.or_: "bitwise_or",
    operator.xor: "bitwise_xor", operator.lshift: "bitwise_left_shift",
    operator.rshift: "bitwise_right_shift", operator.eq: "equal", operator.ne: "not_equal",
    operator.lt: "less", operator.le: "less_equal", operator.gt: "greater",
    operator.ge: "greater_equal",
}  # fmt: skip

IN_PLACE: dict[Callable[[Any, Any], Any], str] = {
    operator.iadd: "add", operator.isub: "subtract", operator.imul: "multiply",
    operator.itruediv: "divide", operator.ipow: "pow", operator.iand: "bitwise_and",
}  # fmt: skip

SCALARS: list[bool | int | float | complex] = [True, 2, 1.5, 2.5j]


def _two_kinds(a: np.dtype, b: np.dtype) -> bool:
    """Whether the standard's table leaves the pair out (NumPy's result applies)."""
    return (a, b) not in STANDARD_PROMOTION_TABLE


MIXED_PAIRS = [(a, b) for a, b in itertools.product(DTYPES, repeat=2) if _two_kinds(a, b)]


def _values(dtype: np.dtype, second: bool = False) -> np.ndarray:
    # no zero divisors, no overflow of int8 in pow, both bools present
    return np.asarray([3, 1, 2] if second else [1, 0, 3]).astype(dtype)


@contextmanager
def _quiet() -> Iterator[None]:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        yield


def _outcome(call: Callable[[], Any]) -> tuple[Any, BaseException | None]:
    try:
        with _quiet():
            return call(), None
    except (TypeError, ValueError) as error:  # NumPy's UFuncTypeError is a TypeError
        return None, error


def _compare(
    name: str,
    call: tuple[Callable[..., Any], tuple[Any, ...]],
    model: tuple[Callable[..., Any], tuple[Any, ...]],
    *operands: Any,
) -> str:
    """Compare one call, ``(function, arguments)``, with NumPy's (``operands``:
    the dtypes or scalars that promote); say which way it went, for the counts."""
    expected, numpy_error = _outcome(lambda: model[0](*model[1]))
    result, error = _outcome(lambda: call[0](*call[1]))
    if numpy_error is not None:
        assert error is not None, f"{name}: NumPy raises {numpy_error!r}, cowarray gave {result!r}"
        assert isinstance(error, TypeError), error
        return "both raise"
    if error is not None:
        # refused only for the function's category, as within one kind
        assert isinstance(error, TypeError), error
        assert np.result_type(*operands).kind not in CATEGORY[name], (name, operands, error)
        return "category"
    assert_matches(result, expected)
    return "match"


def test_the_table_is_the_standards_within_a_kind_and_numpys_across() -> None:
    for (a, b), result in PROMOTION_TABLE.items():
        assert result == np.promote_types(a, b), (a, b)  # NumPy agrees everywhere
        assert ca.result_type(a, b) is result  # the dtype objects the operators compare
    for (a, b), result in STANDARD_PROMOTION_TABLE.items():
        assert PROMOTION_TABLE[a, b] is result
        assert {a.kind, b.kind} in ({"b"}, {"i"}, {"u"}, {"i", "u"}, {"f"}, {"c"}, {"f", "c"})
    assert len(PROMOTION_TABLE) == len(DTYPES) ** 2
    assert ca.result_type(ca.uint64, ca.int64) == ca.float64  # out of the standard's table
    assert ca.result_type(ca.int8, ca.float16) == ca.float16
    assert ca.result_type(ca.int64, ca.float32) == ca.float64


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_result_type_with_python_scalars_is_numpys(dtype: np.dtype) -> None:
    for scalar in SCALARS:
        assert ca.result_type(dtype, scalar) == np.result_type(dtype, scalar), (dtype, scalar)
        x = ca.asarray([1], dtype=dtype)
        assert ca.result_type(x, scalar) == np.result_type(dtype, scalar)


def test_can_cast_follows_the_promotion() -> None:
    for a, b in itertools.product(DTYPES, repeat=2):
        assert ca.can_cast(a, b) is bool(np.can_cast(a, b)), (a, b)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_functions_on_arrays_of_two_kinds_match_numpy(name: str, backend_device: ca.Device) -> None:
    function, model = getattr(ca, name), BINARY[name]
    seen: dict[str, int] = {}
    for a, b in MIXED_PAIRS:
        x, y = _values(a), _values(b, second=True)
        cx, cy = ca.asarray(x, device=backend_device), ca.asarray(y, device=backend_device)
        way = _compare(name, (function, (cx, cy)), (model, (x, y)), a, b)
        seen[way] = seen.get(way, 0) + 1
    # never vacuous; the logical functions take booleans only, two kinds never
    assert seen.get("match", 0) >= (0 if CATEGORY[name] == "b" else 16), seen


@pytest.mark.parametrize("name", sorted(BINARY))
def test_functions_with_python_scalars_of_each_kind_match_numpy(
    name: str, backend_device: ca.Device
) -> None:
    function, model = getattr(ca, name), BINARY[name]
    seen: dict[str, int] = {}
    for dtype, scalar in itertools.product(DTYPES, SCALARS):
        x = _values(dtype)
        cx = ca.asarray(x, device=backend_device)
        promoted = np.result_type(dtype, scalar)
        for args, model_args in (((cx, scalar), (x, scalar)), ((scalar, cx), (scalar, x))):
            way = _compare(name, (function, args), (model, model_args), promoted)
            seen[way] = seen.get(way, 0) + 1
    assert seen.get("match", 0) >= (2 if CATEGORY[name] == "b" else 8), seen


@pytest.mark.parametrize("op", list(OPERATORS), ids=lambda op: op.__name__)
def test_operators_on_arrays_and_scalars_of_two_kinds_match_numpy(
    op: Callable[[Any, Any], Any], backend_device: ca.Device
) -> None:
    name = OPERATORS[op]
    # NumPy's ufunc, which ndarray's operator calls (but ``bool_array ** 2``,
    # which ndarray computes as np.square: int8 where np.power gives int64)
    model = BINARY[name]
    seen: dict[str, int] = {}
    for a, b in MIXED_PAIRS:
        x, y = _values(a), _values(b, second=True)
        cx, cy = ca.asarray(x, device=backend_device), ca.asarray(y, device=backend_device)
        way = _compare(name, (op, (cx, cy)), (model, (x, y)), a, b)
        seen[way] = seen.get(way, 0) + 1
    for dtype, scalar in itertools.product(DTYPES, SCALARS):
        x = _values(dtype)
        cx = ca.asarray(x, device=backend_device)
        promoted = np.result_type(dtype, scalar)
        _compare(name, (op, (cx, scalar)), (model, (x, scalar)), promoted)
        _compare(name, (op, (scalar, cx)), (model, (scalar, x)), promoted)
    assert seen.get("match", 0) >= 16, seen


def test_the_first_hour_of_a_numpy_user(backend_device: ca.Device) -> None:
    def on(values: Any, dtype: Any = None) -> ca.Array:
        return ca.asarray(values, dtype=dtype, device=backend_device)

    assert_matches(on([1, 2, 3]) * 0.5, np.asarray([1, 2, 3]) * 0.5)
    assert_matches(
        on([1, 2]) + on([0.5, 1.5], ca.float32),
        np.asarray([1, 2]) + np.asarray([0.5, 1.5], np.float32),
    )
    assert_matches(on([True, False]) * on([1.5, 2.5]), np.asarray([1.5, 0.0]))
    assert_matches(on([True, False]) * 1.5, np.asarray([1.5, 0.0]))
    assert_matches(on([1, 2], ca.int8) * 0.5, np.asarray([1, 2], np.int8) * 0.5)  # float64
    assert_matches(on([1.0], ca.float32) * 1j, np.asarray([1j], np.complex64))
    assert_matches(on([1, 2], ca.uint64) + on([1, 2]), np.asarray([2.0, 4.0]))


@pytest.mark.parametrize("op", list(IN_PLACE), ids=lambda op: op.__name__)
def test_in_place_operators_keep_the_dtype(
    op: Callable[[Any, Any], Any], backend_device: ca.Device
) -> None:
    name = IN_PLACE[op]
    for (a, b), other in itertools.product(MIXED_PAIRS, [None, *SCALARS]):
        x = _values(a)
        y = _values(b, second=True) if other is None else other
        target = ca.asarray(x, device=backend_device)
        operand = ca.asarray(y, device=backend_device) if other is None else other
        keeps = np.result_type(a, y if other is not None else b) == a
        if a.kind in CATEGORY[name] and keeps and not (name == "divide" and a.kind in "biu"):
            model = x.copy()
            with _quiet():
                model = op(model, y)
                result = op(target, operand)
            assert result is target
            assert_matches(target, model)
            continue
        with pytest.raises(TypeError), _quiet():
            op(target, operand)
        np.testing.assert_array_equal(host(target), x)  # unchanged


def test_in_place_refusal_says_what_to_write_instead() -> None:
    x = ca.asarray([1, 2])
    with pytest.raises(TypeError, match="in-place add would turn this int64 array into float64"):
        x += ca.asarray([0.5, 0.5])
    with pytest.raises(TypeError, match=r"float scalar .* keeps that dtype"):
        x += 0.5
    with pytest.raises(TypeError):  # NumPy: UFuncTypeError (same_kind casting)
        np_x = np.asarray([1, 2])
        np_x += 0.5
    np.testing.assert_array_equal(host(x), [1, 2])


@pytest.mark.parametrize(("a", "b"), MIXED_PAIRS, ids=lambda d: str(d))
def test_functions_of_several_arrays_match_numpy(
    a: np.dtype, b: np.dtype, backend_device: ca.Device
) -> None:
    x, y = _values(a), _values(b, second=True)
    cx, cy = ca.asarray(x, device=backend_device), ca.asarray(y, device=backend_device)
    cond = np.asarray([True, False, True])
    ccond = ca.asarray(cond, device=backend_device)
    assert_matches(ca.where(ccond, cx, cy), np.where(cond, x, y))
    assert_matches(ca.concat([cx, cy]), np.concatenate([x, y]))
    assert_matches(ca.stack([cx, cy]), np.stack([x, y]))
    assert_matches(ca.isin(cx, cy), np.isin(x, y))
    numeric = a.kind in "iufc" or b.kind in "iufc"
    if numeric:
        with _quiet():
            expected = np.matmul(x, np.stack([y, y, y]))
        assert_matches(ca.matmul(cx, ca.stack([cy, cy, cy])), expected)
        assert_matches(ca.tensordot(cx, cy, axes=1), np.tensordot(x, y, axes=1))
        assert_matches(ca.vecdot(cx, cy), np.vecdot(x, y))
    if "c" not in a.kind + b.kind and a.kind != "b":  # clip is real-valued
        assert_matches(ca.clip(cx, min=cy), np.clip(x, y, None))
    if "c" not in a.kind + b.kind and a.kind != "b":
        ordered = np.sort(x)
        assert_matches(
            ca.searchsorted(ca.asarray(ordered, device=backend_device), cy),
            np.searchsorted(ordered, y),
        )
