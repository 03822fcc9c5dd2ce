"""NumPy's functions beyond the standard, against NumPy itself, on every backend.

Each case is one lambda ``(xp, a, mk)`` run twice: with ``xp=numpy`` on the
NumPy model and with ``xp=cowarray`` on a strided cowarray copy of it
(``mk`` makes further arrays of either kind), so the two calls are the same
text. Results must match in dtype, shape and values; view-returning
functions must return values.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _compare import assert_matches, assert_value, host, strided

import cowarray as ca

NAN = math.nan
INF = math.inf

Case = Callable[[Any, Any, Callable[[Any], Any]], Any]


def _numpy(case: Case, model: np.ndarray) -> Any:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return case(np, model, np.asarray)


def _cowarray(case: Case, model: np.ndarray, device: ca.Device) -> tuple[Any, ca.Array]:
    x = strided(model, device=device)

    def mk(values: Any) -> ca.Array:
        return ca.asarray(np.asarray(values), device=device)

    return case(ca, x, mk), x


def _assert_same(result: Any, expected: Any) -> None:
    if isinstance(expected, (tuple, list)):
        assert isinstance(result, (tuple, list)), type(result)
        assert len(result) == len(expected)
        for got, want in zip(result, expected, strict=True):
            _assert_same(got, want)
    elif isinstance(expected, (bool, int)) and not isinstance(expected, np.generic):
        assert result == expected and type(result) is type(expected), (result, expected)
    else:
        assert_matches(result, expected)


MATRIX = np.asarray([[1.0, -2.0, 3.5], [4.0, 0.5, -6.0]])
CUBE = np.arange(24, dtype="int32").reshape(2, 3, 4)
WITH_NANS = np.asarray([[1.0, NAN, 3.0, -2.0], [NAN, NAN, NAN, NAN], [0.5, 2.0, NAN, 8.0]])

# -- functions that NumPy answers with a view: values here --------------------

VIEWS: dict[str, tuple[np.ndarray, Case]] = {
    "ravel": (MATRIX, lambda xp, a, mk: xp.ravel(a)),
    "ravel-3d": (CUBE, lambda xp, a, mk: xp.ravel(a)),
    "atleast_1d": (np.asarray(2.5), lambda xp, a, mk: xp.atleast_1d(a)),
    "atleast_2d": (np.asarray([1, 2, 3]), lambda xp, a, mk: xp.atleast_2d(a)),
    "atleast_3d-1d": (np.asarray([1, 2, 3]), lambda xp, a, mk: xp.atleast_3d(a)),
    "atleast_3d-2d": (MATRIX, lambda xp, a, mk: xp.atleast_3d(a)),
    "atleast_2d-already": (MATRIX, lambda xp, a, mk: xp.atleast_2d(a)),
    "transpose": (CUBE, lambda xp, a, mk: xp.transpose(a)),
    "transpose-axes": (CUBE, lambda xp, a, mk: xp.transpose(a, (1, 0, 2))),
    "swapaxes": (CUBE, lambda xp, a, mk: xp.swapaxes(a, 0, -1)),
    "diagonal": (MATRIX, lambda xp, a, mk: xp.diagonal(a)),
    "diagonal-offset-axes": (CUBE, lambda xp, a, mk: xp.diagonal(a, 1, 1, 2)),
    "diag-2d": (MATRIX, lambda xp, a, mk: xp.diag(a, k=-1)),
    "einsum-transpose": (MATRIX, lambda xp, a, mk: xp.einsum("ij->ji", a)),
    "copy": (MATRIX, lambda xp, a, mk: xp.copy(a)),
}


@pytest.mark.parametrize("name", VIEWS)
def test_views_of_numpy_are_values(name: str, backend_device: ca.Device) -> None:
    model, case = VIEWS[name]
    expected = _numpy(case, model)
    result, x = _cowarray(case, model, backend_device)
    assert_matches(result, expected)
    assert result.device == backend_device
    assert_value(result, x)


def test_atleast_functions_take_several_arrays(backend_device: ca.Device) -> None:
    a = ca.asarray(1.0, device=backend_device)
    b = ca.asarray([1, 2], device=backend_device)
    shapes = [r.shape for r in ca.atleast_3d(a, b)]
    assert shapes == [r.shape for r in np.atleast_3d(np.asarray(1.0), np.asarray([1, 2]))]
    assert ca.atleast_1d() == ()


@pytest.mark.parametrize(
    ("name", "sections", "axis"),
    [
        ("split", 2, 0),
        ("split", [1, 3], 1),
        ("split", [2, 9], -1),
        ("array_split", 3, 1),
        ("array_split", 5, 0),
        ("array_split", [0, 0, 2], 1),
    ],
)
def test_split_pieces_are_values(
    name: str, sections: Any, axis: int, backend_device: ca.Device
) -> None:
    model = np.arange(12.0).reshape(2, 6) if axis != 0 or sections != 5 else np.arange(12.0)
    x = strided(model, device=backend_device)
    pieces = getattr(ca, name)(x, sections, axis=axis)
    expected = getattr(np, name)(model, sections, axis=axis)
    assert isinstance(pieces, list) and len(pieces) == len(expected)
    for piece, want in zip(pieces, expected, strict=True):
        assert_matches(piece, want)
    for piece in pieces:
        assert_value(piece, x)


def test_ravel_of_a_contiguous_array_shares_its_buffer() -> None:
    x = ca.reshape(ca.arange(6), (2, 3))
    flat = ca.ravel(x)
    assert ca.shares_buffer(x, flat)
    flat[0] = 100
    assert int(x[0, 0]) == 0
    x[0, 1] = -1
    assert int(flat[1]) == 1


# -- computing functions --------------------------------------------------------

SHAPES: dict[str, tuple[np.ndarray, Case]] = {
    "resize-grow": (np.asarray([1, 2, 3]), lambda xp, a, mk: xp.resize(a, (2, 4))),
    "resize-shrink": (MATRIX, lambda xp, a, mk: xp.resize(a, 4)),
    "resize-empty": (np.zeros((0,), "int16"), lambda xp, a, mk: xp.resize(a, (2,))),
    "diag-1d": (np.asarray([1, 2, 3]), lambda xp, a, mk: xp.diag(a, 1)),
    "diag-1d-below": (np.asarray([1.5, 2.5]), lambda xp, a, mk: xp.diag(a, k=-2)),
    "flatnonzero": (np.asarray([[0, 3], [4, 0]]), lambda xp, a, mk: xp.flatnonzero(a)),
    "flatnonzero-empty": (np.zeros((0, 2)), lambda xp, a, mk: xp.flatnonzero(a)),
    "hstack-1d": (
        np.asarray([1, 2]),
        lambda xp, a, mk: xp.hstack([a, mk(np.asarray([3], "int8"))]),
    ),
    "hstack-2d": (MATRIX, lambda xp, a, mk: xp.hstack((a, a))),
    "vstack": (np.asarray([1.0, 2.0, 3.0]), lambda xp, a, mk: xp.vstack([a, a])),
    "vstack-2d": (MATRIX, lambda xp, a, mk: xp.vstack([a, mk([[0.0, 0.0, 0.0]])])),
    "dstack": (MATRIX, lambda xp, a, mk: xp.dstack([a, a])),
    "column_stack": (
        np.asarray([1, 2]),
        lambda xp, a, mk: xp.column_stack([a, mk([[3, 4], [5, 6]])]),
    ),
    "append-flat": (MATRIX, lambda xp, a, mk: xp.append(a, mk([7.0, 8.0]))),
    "append-axis": (MATRIX, lambda xp, a, mk: xp.append(a, a, axis=1)),
    "append-scalar": (np.asarray([1, 2]), lambda xp, a, mk: xp.append(a, 3)),
    "delete-int": (MATRIX, lambda xp, a, mk: xp.delete(a, 1, axis=1)),
    "delete-negative": (MATRIX, lambda xp, a, mk: xp.delete(a, [-1, 0], axis=1)),
    "delete-slice": (np.arange(10), lambda xp, a, mk: xp.delete(a, slice(1, None, 3))),
    "delete-flat": (MATRIX, lambda xp, a, mk: xp.delete(a, [0, 5])),
    "delete-mask": (
        np.arange(4),
        lambda xp, a, mk: xp.delete(a, [True, False, True, False]),
    ),
    "insert-scalar": (np.asarray([1, 2, 3]), lambda xp, a, mk: xp.insert(a, 1, 9)),
    "insert-end": (np.asarray([1, 2, 3]), lambda xp, a, mk: xp.insert(a, 3, mk([7, 8]))),
    "insert-negative": (np.asarray([1, 2, 3]), lambda xp, a, mk: xp.insert(a, -1, 0)),
    "insert-many": (
        np.asarray([1, 2, 3]),
        lambda xp, a, mk: xp.insert(a, [0, 3, 0], mk([7, 8, 9])),
    ),
    "insert-axis": (MATRIX, lambda xp, a, mk: xp.insert(a, 1, 5.0, axis=1)),
    "insert-axis-column": (MATRIX, lambda xp, a, mk: xp.insert(a, 2, mk([10.0, 20.0]), axis=1)),
    "insert-axis-many": (
        MATRIX,
        lambda xp, a, mk: xp.insert(a, [0, 2], mk([[1.0], [2.0]]), axis=1),
    ),
    "insert-one-index": (MATRIX, lambda xp, a, mk: xp.insert(a, [1], mk([[1.0], [2.0]]), axis=1)),
    "insert-flat": (MATRIX, lambda xp, a, mk: xp.insert(a, 2, mk([0.0, 0.0]))),
    "pad-constant": (MATRIX, lambda xp, a, mk: xp.pad(a, 1)),
    "pad-constant-values": (
        np.asarray([1, 2, 3]),
        lambda xp, a, mk: xp.pad(a, (2, 1), constant_values=(7, 9)),
    ),
    "pad-pairs": (MATRIX, lambda xp, a, mk: xp.pad(a, ((1, 0), (0, 2)), mode="edge")),
    "pad-reflect": (MATRIX, lambda xp, a, mk: xp.pad(a, 2, mode="reflect")),
    "pad-reflect-odd": (
        np.asarray([1.0, 2.0, 4.0]),
        lambda xp, a, mk: xp.pad(a, 2, mode="reflect", reflect_type="odd"),
    ),
    "pad-symmetric": (MATRIX, lambda xp, a, mk: xp.pad(a, (1, 3), mode="symmetric")),
    "pad-wrap": (MATRIX, lambda xp, a, mk: xp.pad(a, [(1, 1), (2, 2)], mode="wrap")),
    "pad-linear_ramp": (
        np.asarray([1.0, 2.0, 3.0]),
        lambda xp, a, mk: xp.pad(a, (3, 2), mode="linear_ramp", end_values=(5.0, -4.0)),
    ),
    "pad-maximum": (MATRIX, lambda xp, a, mk: xp.pad(a, 1, mode="maximum")),
    "pad-mean": (MATRIX, lambda xp, a, mk: xp.pad(a, 2, mode="mean", stat_length=2)),
    "pad-minimum": (MATRIX, lambda xp, a, mk: xp.pad(a, (0, 1), mode="minimum")),
    "pad-empty-axis": (np.zeros((0, 2)), lambda xp, a, mk: xp.pad(a, 1)),
    "identity": (MATRIX, lambda xp, a, mk: xp.identity(3)),
}


@pytest.mark.parametrize("name", SHAPES)
def test_arranging_functions_match_numpy(name: str, backend_device: ca.Device) -> None:
    model, case = SHAPES[name]
    expected = _numpy(case, model)
    result, x = _cowarray(case, model, backend_device)
    before = host(x)
    _assert_same(result, expected)
    np.testing.assert_array_equal(host(x), before)
    if isinstance(result, ca.Array):
        if name != "identity":
            assert result.device == backend_device
        assert_value(result, x)


def test_identity_and_small_queries(backend_device: ca.Device) -> None:
    eye = ca.identity(2, dtype=ca.int8, device=backend_device)
    assert_matches(eye, np.identity(2, dtype="int8"))
    assert eye.device == backend_device
    x = ca.zeros((2, 3, 0), device=backend_device)
    assert (ca.shape(x), ca.ndim(x), ca.size(x), ca.size(x, 1), ca.size(x, -2)) == (
        (2, 3, 0),
        3,
        0,
        3,
        3,
    )
    assert (ca.shape(2.0), ca.ndim(1), ca.size(True)) == ((), 0, 1)
    assert ca.isscalar(1) and ca.isscalar(2.0j) and ca.isscalar("a")
    assert not ca.isscalar(ca.asarray(1.0, device=backend_device)) and not ca.isscalar([1])
    assert ca.iterable(x) and ca.iterable([1]) and not ca.iterable(ca.asarray(1))
    assert not ca.iterable(1.0)


UNIQUE_MODEL = np.asarray([[3.0, NAN, 1.0], [3.0, -0.0, NAN], [0.0, 1.0, 1.0]])


@pytest.mark.parametrize("equal_nan", [True, False])
@pytest.mark.parametrize("flags", [(False, False, False), (True, True, True), (False, True, False)])
def test_unique_matches_numpy(
    flags: tuple[bool, bool, bool], equal_nan: bool, backend_device: ca.Device
) -> None:
    index, inverse, counts = flags
    x = strided(UNIQUE_MODEL, device=backend_device)
    result = ca.unique(
        x, return_index=index, return_inverse=inverse, return_counts=counts, equal_nan=equal_nan
    )
    expected = np.unique(
        UNIQUE_MODEL,
        return_index=index,
        return_inverse=inverse,
        return_counts=counts,
        equal_nan=equal_nan,
    )
    _assert_same(result, expected)


def test_unique_along_an_axis(backend_device: ca.Device) -> None:
    model = np.asarray([[1, 2], [0, 5], [1, 2]], dtype="int16")
    x = strided(model, device=backend_device)
    result = ca.unique(x, return_index=True, return_inverse=True, return_counts=True, axis=0)
    expected = np.unique(model, return_index=True, return_inverse=True, return_counts=True, axis=0)
    _assert_same(result, expected)
    assert_matches(ca.unique(ca.asarray([], device=backend_device)), np.unique(np.asarray([])))


def test_fill_diagonal_writes_through_copy_on_write(backend_device: ca.Device) -> None:
    for shape, wrap, value in [
        ((3, 3), False, 5.0),
        ((7, 3), True, [1.0, 2.0]),
        ((3, 5), False, 9),
    ]:
        model = np.zeros(shape)
        a = ca.asarray(model, device=backend_device)
        clone = ca.lazy_clone(a)
        given = value if not isinstance(value, list) else ca.asarray(value, device=backend_device)
        assert ca.fill_diagonal(a, given, wrap=wrap) is None
        np.fill_diagonal(model, value, wrap=wrap)
        assert_matches(a, model)
        assert_matches(clone, np.zeros(shape))
    cube = ca.zeros((2, 2, 2), dtype=ca.int32, device=backend_device)
    ca.fill_diagonal(cube, 4)
    expected = np.zeros((2, 2, 2), dtype="int32")
    np.fill_diagonal(expected, 4)
    assert_matches(cube, expected)


# -- arithmetic -----------------------------------------------------------------

VECTOR = np.asarray([1.0, -2.0, 0.5, 4.0])
INTS = np.asarray([3, 1, 4, 1, 5], dtype="int32")

MATH: dict[str, tuple[np.ndarray, Case]] = {
    "dot-vectors": (VECTOR, lambda xp, a, mk: xp.dot(a, a)),
    "dot-matrix-vector": (MATRIX, lambda xp, a, mk: xp.dot(a, mk([1.0, 2.0, 3.0]))),
    "dot-matrices": (MATRIX, lambda xp, a, mk: xp.dot(a, xp.transpose(a))),
    "dot-nd": (
        CUBE,
        lambda xp, a, mk: xp.dot(a, mk(np.arange(40, dtype="int32").reshape(2, 4, 5) % 3)),
    ),
    "dot-scalar": (INTS, lambda xp, a, mk: xp.dot(a, mk(np.asarray(2, dtype="int32")))),
    "outer": (VECTOR, lambda xp, a, mk: xp.outer(a, mk([[1.0, 2.0], [3.0, 4.0]]))),
    "einsum-matmul": (MATRIX, lambda xp, a, mk: xp.einsum("ij,kj->ik", a, a)),
    "einsum-trace": (np.arange(9.0).reshape(3, 3), lambda xp, a, mk: xp.einsum("ii", a)),
    "einsum-sum": (CUBE, lambda xp, a, mk: xp.einsum("ijk->k", a)),
    "einsum-ellipsis": (CUBE, lambda xp, a, mk: xp.einsum("...j,...j->...", a, a)),
    "einsum-implicit": (MATRIX, lambda xp, a, mk: xp.einsum("ij,j", a, mk([1.0, 0.0, 2.0]))),
    "convolve-full": (VECTOR, lambda xp, a, mk: xp.convolve(a, mk([1.0, 0.5]))),
    "convolve-same": (VECTOR, lambda xp, a, mk: xp.convolve(mk([1.0, 2.0]), a, mode="same")),
    "convolve-valid": (
        INTS,
        lambda xp, a, mk: xp.convolve(a, mk(np.asarray([1, -1], "int32")), "valid"),
    ),
    "correlate-valid": (VECTOR, lambda xp, a, mk: xp.correlate(a, mk([1.0, 2.0]))),
    "correlate-full": (VECTOR, lambda xp, a, mk: xp.correlate(a, mk([1.0, 2.0, 3.0]), "full")),
    "correlate-complex": (
        np.asarray([1 + 1j, 2 - 1j, 0.5j]),
        lambda xp, a, mk: xp.correlate(a, mk([1 - 2j, 1j]), mode="same"),
    ),
    "interp": (
        np.asarray([-1.0, 0.0, 0.25, 1.5, 2.0, 9.0]),
        lambda xp, a, mk: xp.interp(a, mk([0.0, 1.0, 2.0]), mk([1.0, 3.0, -1.0])),
    ),
    "interp-bounds": (
        np.asarray([-1.0, 0.5, 9.0]),
        lambda xp, a, mk: xp.interp(a, mk([0.0, 1.0]), mk([1.0, 3.0]), left=-5.0, right=5),
    ),
    "interp-period": (
        np.asarray([-1.0, 0.5, 370.0]),
        lambda xp, a, mk: xp.interp(a, mk([0.0, 90.0, 180.0]), mk([0.0, 1.0, 0.0]), period=360),
    ),
    "interp-complex": (
        np.asarray([0.5]),
        lambda xp, a, mk: xp.interp(a, mk([0.0, 1.0]), mk([1j, 2.0])),
    ),
    "interp-ints": (
        np.asarray([1, 2], dtype="int32"),
        lambda xp, a, mk: xp.interp(a, mk([0, 4]), mk([0, 8])),
    ),
    "isclose": (
        np.asarray([1.0, NAN, INF, -INF, 1e-9, 2.0]),
        lambda xp, a, mk: xp.isclose(a, mk([1.0 + 1e-9, NAN, INF, INF, 0.0, 2.1])),
    ),
    "isclose-nan": (
        np.asarray([1.0, NAN]),
        lambda xp, a, mk: xp.isclose(a, mk([1.0, NAN]), equal_nan=True),
    ),
    "isclose-tolerances": (
        VECTOR,
        lambda xp, a, mk: xp.isclose(a, 1.0, rtol=0.5, atol=0.0),
    ),
    "isclose-ints": (INTS, lambda xp, a, mk: xp.isclose(a, mk(np.asarray(1, "int32")))),
    "isclose-complex": (
        np.asarray([1 + 1j, 2j]),
        lambda xp, a, mk: xp.isclose(a, mk([1 + 1.000001j, 2.1j])),
    ),
    "allclose": (VECTOR, lambda xp, a, mk: xp.allclose(a, a * (1 + 1e-7))),
    "allclose-not": (VECTOR, lambda xp, a, mk: xp.allclose(a, a + 1)),
    "allclose-nan": (
        np.asarray([NAN]),
        lambda xp, a, mk: xp.allclose(a, mk([NAN]), equal_nan=True),
    ),
    "array_equal": (MATRIX, lambda xp, a, mk: xp.array_equal(a, mk(MATRIX))),
    "array_equal-shape": (MATRIX, lambda xp, a, mk: xp.array_equal(a, xp.transpose(a))),
    "array_equal-nan": (
        np.asarray([NAN, 1.0]),
        lambda xp, a, mk: (
            xp.array_equal(a, mk([NAN, 1.0])),
            xp.array_equal(a, mk([NAN, 1.0]), equal_nan=True),
        ),
    ),
    "isposinf": (np.asarray([INF, -INF, NAN, 0.0]), lambda xp, a, mk: xp.isposinf(a)),
    "isneginf": (np.asarray([INF, -INF, NAN, 0.0]), lambda xp, a, mk: xp.isneginf(a)),
    "isposinf-int": (INTS, lambda xp, a, mk: xp.isposinf(a)),
    "iscomplex": (np.asarray([1 + 0j, 1j]), lambda xp, a, mk: xp.iscomplex(a)),
    "isreal": (np.asarray([1 + 0j, 1j]), lambda xp, a, mk: xp.isreal(a)),
    "isreal-float": (VECTOR, lambda xp, a, mk: xp.isreal(a)),
    "iscomplex-float": (VECTOR, lambda xp, a, mk: xp.iscomplex(a)),
    "iscomplexobj": (VECTOR, lambda xp, a, mk: (xp.iscomplexobj(a), xp.iscomplexobj(1j))),
    "isrealobj": (
        np.asarray([1j]),
        lambda xp, a, mk: (xp.isrealobj(a), xp.isrealobj(1.0)),
    ),
    "power": (INTS, lambda xp, a, mk: xp.power(a, 2)),
    "float_power": (INTS, lambda xp, a, mk: xp.float_power(a, -1)),
    "float_power-mixed": (INTS, lambda xp, a, mk: xp.float_power(a, mk([0.5, 1, 2, 0, 1]))),
    "float_power-complex": (np.asarray([1j, 2.0]), lambda xp, a, mk: xp.float_power(a, 2)),
    "around": (np.asarray([1.25, -2.5, 1234.5]), lambda xp, a, mk: xp.around(a, 1)),
    "around-negative": (np.asarray([1250, -2551, 7], "int64"), lambda xp, a, mk: xp.around(a, -2)),
    "round-decimals": (
        np.asarray([1.25, -2.55, 1234.5], "float32"),
        lambda xp, a, mk: xp.round(a, decimals=1),
    ),
    "round-complex": (np.asarray([1.26 + 2.5j]), lambda xp, a, mk: xp.round(a, decimals=1)),
}


@pytest.mark.parametrize("name", MATH)
def test_arithmetic_matches_numpy(name: str, backend_device: ca.Device) -> None:
    model, case = MATH[name]
    expected = _numpy(case, model)
    result, x = _cowarray(case, model, backend_device)
    before = host(x)
    _assert_same(result, expected)
    np.testing.assert_array_equal(host(x), before)
    if isinstance(result, ca.Array):
        assert result.device == backend_device
        assert_value(result, x)


def test_round_keeps_the_standard_signature(backend_device: ca.Device) -> None:
    x = ca.asarray([0.5, 1.5, 2.5], device=backend_device)
    assert_matches(ca.round(x), np.asarray([0.0, 2.0, 2.0]))
    assert_matches(ca.round(x, decimals=0), np.asarray([0.0, 2.0, 2.0]))
    with pytest.raises(TypeError):
        ca.round(x, 1)
    with pytest.raises(TypeError, match="decimals"):
        ca.round(x, decimals=1.5)


# -- statistics -----------------------------------------------------------------

STATS: dict[str, tuple[np.ndarray, Case]] = {
    "cumsum": (CUBE, lambda xp, a, mk: xp.cumsum(a)),
    "cumsum-axis": (CUBE, lambda xp, a, mk: xp.cumsum(a, axis=-1)),
    "cumsum-dtype": (CUBE, lambda xp, a, mk: xp.cumsum(a, axis=1, dtype=xp.float32)),
    "cumsum-bool": (np.asarray([True, False, True]), lambda xp, a, mk: xp.cumsum(a)),
    "cumsum-empty": (np.zeros((0, 3)), lambda xp, a, mk: xp.cumsum(a, axis=0)),
    "cumprod": (np.asarray([[1, 2], [3, 4]], "int8"), lambda xp, a, mk: xp.cumprod(a)),
    "cumprod-axis": (MATRIX, lambda xp, a, mk: xp.cumprod(a, axis=0)),
    "nancumsum": (WITH_NANS, lambda xp, a, mk: xp.nancumsum(a, axis=1)),
    "nancumprod": (WITH_NANS, lambda xp, a, mk: xp.nancumprod(a)),
    "nansum": (WITH_NANS, lambda xp, a, mk: xp.nansum(a)),
    "nansum-axis": (WITH_NANS, lambda xp, a, mk: xp.nansum(a, axis=1, keepdims=True)),
    "nansum-int": (CUBE, lambda xp, a, mk: xp.nansum(a, axis=(0, 2))),
    "nanprod": (WITH_NANS, lambda xp, a, mk: xp.nanprod(a, axis=0)),
    "nanmean": (WITH_NANS, lambda xp, a, mk: xp.nanmean(a, axis=1)),
    "nanmean-all": (WITH_NANS, lambda xp, a, mk: xp.nanmean(a)),
    "nanmean-int": (CUBE, lambda xp, a, mk: xp.nanmean(a, axis=1)),
    "nanmean-f32": (WITH_NANS.astype("float32"), lambda xp, a, mk: xp.nanmean(a, axis=0)),
    "nanmean-complex": (
        np.asarray([1 + 1j, NAN, 2 - 1j]),
        lambda xp, a, mk: xp.nanmean(a),
    ),
    "nanvar": (WITH_NANS, lambda xp, a, mk: xp.nanvar(a, axis=1)),
    "nanvar-ddof": (WITH_NANS, lambda xp, a, mk: xp.nanvar(a, axis=0, ddof=1, keepdims=True)),
    "nanvar-complex": (np.asarray([1 + 1j, NAN, 2 - 1j]), lambda xp, a, mk: xp.nanvar(a)),
    "nanstd": (WITH_NANS, lambda xp, a, mk: xp.nanstd(a, axis=(0, 1))),
    "nanstd-ddof": (WITH_NANS, lambda xp, a, mk: xp.nanstd(a, axis=1, ddof=2)),
    "nanmin": (WITH_NANS, lambda xp, a, mk: xp.nanmin(a, axis=1)),
    "nanmax": (WITH_NANS, lambda xp, a, mk: xp.nanmax(a, axis=0, keepdims=True)),
    "nanmax-all": (WITH_NANS, lambda xp, a, mk: xp.nanmax(a)),
    "nanmin-int": (CUBE, lambda xp, a, mk: xp.nanmin(a, axis=2)),
    "nanargmin": (WITH_NANS[[0, 2]], lambda xp, a, mk: xp.nanargmin(a, axis=1)),
    "nanargmax": (WITH_NANS, lambda xp, a, mk: xp.nanargmax(a)),
    "nanargmax-keepdims": (WITH_NANS[[0, 2]], lambda xp, a, mk: xp.nanargmax(a, 1, keepdims=True)),
    "nanargmin-int": (INTS, lambda xp, a, mk: xp.nanargmin(a)),
    "median": (MATRIX, lambda xp, a, mk: xp.median(a)),
    "median-axis": (CUBE, lambda xp, a, mk: xp.median(a, axis=1)),
    "median-axes": (CUBE, lambda xp, a, mk: xp.median(a, axis=(0, 2), keepdims=True)),
    "median-nan": (WITH_NANS, lambda xp, a, mk: xp.median(a, axis=1)),
    "median-f32": (MATRIX.astype("float32"), lambda xp, a, mk: xp.median(a, axis=0)),
    "nanmedian": (WITH_NANS, lambda xp, a, mk: xp.nanmedian(a, axis=1)),
    "nanmedian-all": (WITH_NANS, lambda xp, a, mk: xp.nanmedian(a)),
    "nanmedian-keepdims": (WITH_NANS, lambda xp, a, mk: xp.nanmedian(a, axis=0, keepdims=True)),
    "quantile": (MATRIX, lambda xp, a, mk: xp.quantile(a, 0.3)),
    "quantile-list": (CUBE, lambda xp, a, mk: xp.quantile(a, [0.0, 0.25, 1.0], axis=2)),
    "quantile-array": (MATRIX, lambda xp, a, mk: xp.quantile(a, mk([0.5, 0.9]), axis=0)),
    "quantile-keepdims": (
        CUBE,
        lambda xp, a, mk: xp.quantile(a, [0.1, 0.6], axis=(0, 2), keepdims=True),
    ),
    "quantile-nan": (WITH_NANS, lambda xp, a, mk: xp.quantile(a, 0.5, axis=1)),
    "quantile-f32": (MATRIX.astype("float32"), lambda xp, a, mk: xp.quantile(a, 0.3, axis=1)),
    "percentile": (CUBE, lambda xp, a, mk: xp.percentile(a, [10, 50, 100], axis=0)),
    "percentile-scalar": (MATRIX, lambda xp, a, mk: xp.percentile(a, 37.5)),
    "nanquantile": (WITH_NANS, lambda xp, a, mk: xp.nanquantile(a, [0.2, 0.7], axis=1)),
    "nanquantile-all": (WITH_NANS, lambda xp, a, mk: xp.nanquantile(a, 0.4)),
    "nanpercentile": (WITH_NANS, lambda xp, a, mk: xp.nanpercentile(a, 75, axis=0, keepdims=True)),
    "average": (CUBE, lambda xp, a, mk: xp.average(a)),
    "average-axis": (MATRIX, lambda xp, a, mk: xp.average(a, axis=1, keepdims=True)),
    "average-weights": (
        MATRIX,
        lambda xp, a, mk: xp.average(a, axis=1, weights=mk([1.0, 2.0, 0.5])),
    ),
    "average-full-weights": (
        CUBE,
        lambda xp, a, mk: xp.average(a, axis=(0, 2), weights=mk(np.ones((2, 3, 4))), returned=True),
    ),
    "average-int-weights": (
        INTS,
        lambda xp, a, mk: xp.average(a, weights=mk([1, 0, 2, 0, 1]), returned=True),
    ),
    "average-returned": (MATRIX, lambda xp, a, mk: xp.average(a, axis=0, returned=True)),
    "histogram": (VECTOR, lambda xp, a, mk: xp.histogram(a)),
    "histogram-bins": (VECTOR, lambda xp, a, mk: xp.histogram(a, bins=3, range=(-1.0, 2.0))),
    "histogram-edges": (VECTOR, lambda xp, a, mk: xp.histogram(a, bins=mk([-3.0, 0.0, 1.0, 5.0]))),
    "histogram-int": (INTS, lambda xp, a, mk: xp.histogram(a, bins=2)),
    "histogram-f32": (VECTOR.astype("float32"), lambda xp, a, mk: xp.histogram(a, 4)),
    "histogram-weights": (
        VECTOR,
        lambda xp, a, mk: xp.histogram(a, 2, weights=mk([1.0, 2.0, 3.0, 4.0])),
    ),
    "histogram-density": (MATRIX, lambda xp, a, mk: xp.histogram(a, 3, density=True)),
    "histogram-empty": (np.zeros((0,)), lambda xp, a, mk: xp.histogram(a, 2)),
    "bincount": (INTS, lambda xp, a, mk: xp.bincount(a)),
    "bincount-minlength": (INTS, lambda xp, a, mk: xp.bincount(a, minlength=9)),
    "bincount-weights": (INTS, lambda xp, a, mk: xp.bincount(a, weights=mk([0.5, 1, 2, 3, 4.5]))),
    "bincount-empty": (np.zeros((0,), "int64"), lambda xp, a, mk: xp.bincount(a, minlength=2)),
}


@pytest.mark.parametrize("name", STATS)
def test_statistics_match_numpy(name: str, backend_device: ca.Device) -> None:
    model, case = STATS[name]
    expected = _numpy(case, model)
    result, x = _cowarray(case, model, backend_device)
    before = host(x)
    _assert_same(result, expected)
    np.testing.assert_array_equal(host(x), before)
    first = result[0] if isinstance(result, tuple) else result
    assert first.device == backend_device
    assert_value(first, x)


METHODS = [
    "linear",
    "lower",
    "higher",
    "midpoint",
    "nearest",
    "inverted_cdf",
    "averaged_inverted_cdf",
    "closest_observation",
    "interpolated_inverted_cdf",
    "hazen",
    "weibull",
    "median_unbiased",
    "normal_unbiased",
]
LEVELS = [0.0, 0.1, 0.25, 0.4, 0.5, 0.6, 0.75, 0.99, 1.0]


@pytest.mark.parametrize("method", METHODS)
def test_every_quantile_method_matches_numpy(method: str, backend_device: ca.Device) -> None:
    rng = np.random.default_rng(5)
    model = rng.normal(size=(3, 7))
    x = strided(model, device=backend_device)
    assert_matches(
        ca.quantile(x, LEVELS, axis=1, method=method),
        np.quantile(model, LEVELS, axis=1, method=method),
    )
    ints = np.asarray([5, 1, 4, 4, 2, 9], dtype="int16")
    assert_matches(
        ca.quantile(ca.asarray(ints, device=backend_device), LEVELS, method=method),
        np.quantile(ints, LEVELS, method=method),
    )
    holes = model.copy()
    holes[0, [1, 4]] = NAN
    holes[2, :] = NAN
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = np.nanquantile(holes, LEVELS, axis=1, method=method)
    result = ca.nanquantile(strided(holes, device=backend_device), LEVELS, axis=1, method=method)
    assert_matches(result, expected)


def test_quantile_dtype_follows_the_data(backend_device: ca.Device) -> None:
    # NumPy promotes float32 data with a list of levels (float64); cowarray keeps float32.
    x = ca.asarray([1.0, 2.0, 4.0], dtype=ca.float32, device=backend_device)
    assert ca.quantile(x, [0.5]).dtype == ca.float32
    assert np.quantile(np.asarray([1.0, 2.0, 4.0], "float32"), [0.5]).dtype == np.float64


def test_all_nan_slices_give_nan_without_warnings(backend_device: ca.Device) -> None:
    x = ca.asarray([[NAN, NAN], [1.0, NAN]], device=backend_device)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for function, second in [
            (ca.nanmean, 1.0),
            (ca.nanvar, 0.0),
            (ca.nanstd, 0.0),
            (ca.nanmin, 1.0),
            (ca.nanmax, 1.0),
            (ca.nanmedian, 1.0),
        ]:
            assert_matches(function(x, axis=1), np.asarray([NAN, second]))
        assert_matches(ca.nanquantile(x, 0.5, axis=1), np.asarray([NAN, 1.0]))
    with pytest.raises(ValueError, match="all-NaN"):
        ca.nanargmin(x, axis=1)


# -- bad input ------------------------------------------------------------------


def _bad_calls(d: ca.Device) -> list[tuple[Callable[[], Any], type[Exception], str]]:
    f = ca.asarray([[1.0, 2.0], [3.0, 4.0]], device=d)
    i = ca.asarray([1, 2, 3], device=d)
    return [
        (lambda: ca.ravel(np.zeros(3)), TypeError, "cowarray Array"),
        (lambda: ca.split(i, 2), ValueError, "array_split"),
        (lambda: ca.split(i, 0), ValueError, "positive"),
        (lambda: ca.split(i, i), TypeError, "list of ints"),
        (lambda: ca.split(ca.asarray(1, device=d), 1), ValueError, "0-d"),
        (lambda: ca.array_split(f, 2, axis=2), IndexError, "axis"),
        (lambda: ca.hstack([f, np.zeros((2, 2))]), TypeError, "cowarray Array"),
        (lambda: ca.vstack([f, ca.zeros(3, device=d)]), ValueError, "vstack"),
        (lambda: ca.hstack([f, ca.zeros((3, 1), device=d)]), ValueError, "off axis 1"),
        (lambda: ca.append(f, "x"), TypeError, "values"),
        (lambda: ca.append(f, ca.zeros(2, device=d), axis=0), ValueError, "dimensions"),
        (lambda: ca.append(i, 1.5), TypeError, "float"),
        (lambda: ca.delete(i, 3), IndexError, "index 3 in obj is out of range"),
        (lambda: ca.delete(i, [True, False]), ValueError, "boolean"),
        (lambda: ca.delete(i, 1.0), TypeError, "int"),
        (lambda: ca.insert(i, 4, 0), IndexError, "index 4 in obj is out of range"),
        (lambda: ca.insert(i, 0, 1.5), TypeError, "float"),
        (lambda: ca.insert(i, 0, ca.asarray([1.5], device=d)), TypeError, "same-kind"),
        (
            lambda: ca.insert(f, [0, 1], ca.zeros((3, 3), device=d), axis=1),
            ValueError,
            "cannot fill",
        ),
        (lambda: ca.resize(f, -1), ValueError, "negative"),
        (lambda: ca.diag(ca.zeros((2, 2, 2), device=d)), ValueError, "1-D or 2-D"),
        (lambda: ca.diagonal(i), ValueError, "2 dimensions"),
        (lambda: ca.diagonal(f, 0, 1, 1), ValueError, "differ"),
        (lambda: ca.swapaxes(f, 0, 2), IndexError, "axis2"),
        (lambda: ca.pad(f, 1, mode="median"), ValueError, "not supported"),
        (lambda: ca.pad(f, -1), ValueError, "negative"),
        (lambda: ca.pad(f, ((1, 1),) * 3), ValueError, "pair per axis"),
        (lambda: ca.pad(f, 1, mode="edge", constant_values=1), TypeError, "constant_values"),
        (lambda: ca.pad(i, 1, constant_values=0.5), TypeError, "float"),
        (lambda: ca.pad(ca.zeros((0,), device=d), 1, mode="edge"), ValueError, "empty"),
        (lambda: ca.pad(f, 1, mode="reflect", reflect_type="x"), ValueError, "reflect_type"),
        (lambda: ca.pad(f, 1, mode=len), TypeError, "mode"),
        (lambda: ca.unique(f, return_counts=1), TypeError, "return_counts"),
        (lambda: ca.unique(f, axis=2), IndexError, "axis"),
        (lambda: ca.fill_diagonal(i, 0), ValueError, "2-D"),
        (lambda: ca.fill_diagonal(ca.zeros((2, 3, 2), device=d), 0), ValueError, "one length"),
        (
            lambda: ca.fill_diagonal(ca.zeros((2, 2), dtype=ca.int64, device=d), 0.5),
            TypeError,
            "float",
        ),
        (lambda: ca.size(f, 2), IndexError, "axis"),
        (lambda: ca.shape([1, 2]), TypeError, "Python scalar"),
        (lambda: ca.dot(f, "1"), TypeError, "cowarray Array"),
        (lambda: ca.dot(f, ca.zeros(3, device=d)), ValueError, "not aligned"),
        (lambda: ca.outer(f, np.zeros(2)), TypeError, "cowarray Array"),
        (lambda: ca.einsum("ij,jk", f), ValueError, "einsum"),
        (lambda: ca.einsum(1, f), TypeError, "subscripts"),
        (lambda: ca.einsum("i,i", i, "1"), TypeError, "cowarray Array"),
        (lambda: ca.convolve(f, f), ValueError, "1-D"),
        (lambda: ca.convolve(ca.zeros(0, device=d), ca.zeros(1, device=d)), ValueError, "empty"),
        (
            lambda: ca.correlate(ca.zeros(2, device=d), ca.zeros(1, device=d), "x"),
            ValueError,
            "mode",
        ),
        (
            lambda: ca.interp(f, ca.zeros(2, device=d), ca.zeros(3, device=d)),
            ValueError,
            "one length",
        ),
        (lambda: ca.interp(f, ca.zeros(0, device=d), ca.zeros(0, device=d)), ValueError, "empty"),
        (
            lambda: ca.interp(f, ca.zeros(2, device=d), ca.zeros(2, device=d), period=0),
            ValueError,
            "period",
        ),
        (lambda: ca.isclose(f, "1"), TypeError, "Python scalar"),
        (lambda: ca.isclose(f, 1.0, rtol="1"), TypeError, "rtol"),
        (lambda: ca.allclose(f, 1.0, equal_nan=1), TypeError, "equal_nan"),
        (lambda: ca.array_equal(f, np.zeros((2, 2))), TypeError, "cowarray Array"),
        (lambda: ca.isposinf(ca.asarray([1j], device=d)), TypeError, "complex"),
        (lambda: ca.iscomplexobj(np.zeros(2)), TypeError, "Python scalar"),
        (lambda: ca.float_power(1, 2), TypeError, "at least one"),
        (lambda: ca.cumsum(f, axis=2), IndexError, "axis"),
        (lambda: ca.cumsum(f, dtype="x"), ValueError, "data type"),
        (lambda: ca.nansum(f, keepdims=1), TypeError, "keepdims"),
        (lambda: ca.nanmin(ca.zeros((0, 2), device=d), axis=0), ValueError, "empty"),
        (lambda: ca.nanmin(ca.asarray([1j], device=d)), TypeError, "real"),
        (lambda: ca.nanargmax(ca.zeros(0, device=d)), ValueError, "empty"),
        (lambda: ca.nanvar(f, ddof="1"), TypeError, "ddof"),
        (lambda: ca.quantile(f, 1.5), ValueError, r"\[0, 1\]"),
        (lambda: ca.percentile(f, -1), ValueError, r"\[0, 100\]"),
        (lambda: ca.quantile(f, 0.5, method="x"), ValueError, "method"),
        (lambda: ca.quantile(f, "0.5"), TypeError, "q"),
        (lambda: ca.quantile(f, f), ValueError, "1-D"),
        (lambda: ca.quantile(ca.zeros(0, device=d), 0.5), ValueError, "empty"),
        (lambda: ca.median(ca.asarray([True], device=d)), TypeError, "real"),
        (lambda: ca.median(ca.asarray([1j], device=d)), TypeError, "real"),
        (lambda: ca.average(f, weights=ca.zeros(2, device=d), axis=1), ZeroDivisionError, "zero"),
        (lambda: ca.average(f, weights=ca.ones(3, device=d), axis=1), ValueError, "weights"),
        (lambda: ca.average(f, weights=ca.ones(2, device=d)), ValueError, "axis"),
        (lambda: ca.histogram(f, bins=0), ValueError, "at least 1"),
        (lambda: ca.histogram(f, bins="auto"), ValueError, "not supported"),
        (lambda: ca.histogram(f, bins=ca.asarray([1.0, 0.0], device=d)), ValueError, "monoton"),
        (lambda: ca.histogram(f, range=(2.0, 1.0)), ValueError, "range"),
        (lambda: ca.histogram(ca.asarray([INF], device=d)), ValueError, "finite"),
        (lambda: ca.histogram(f, weights=i), ValueError, "weights"),
        (lambda: ca.bincount(f), TypeError, "integer"),
        (lambda: ca.bincount(ca.asarray([-1], device=d)), ValueError, "negative"),
        (lambda: ca.bincount(i, minlength=-1), ValueError, "minlength"),
        (lambda: ca.bincount(i, weights=ca.ones(2, device=d)), ValueError, "weights"),
        (lambda: ca.around(f, 0.5), TypeError, "decimals"),
    ]


def test_bad_input_raises_a_clear_error_and_changes_nothing(backend_device: ca.Device) -> None:
    for number, (call, error, words) in enumerate(_bad_calls(backend_device)):
        closure = [cell.cell_contents for cell in (call.__closure__ or ())]
        arrays = [v for v in closure if isinstance(v, ca.Array)]
        before = [host(a) for a in arrays]
        with pytest.raises(error, match=words):
            call()
            pytest.fail(f"bad call {number} did not raise")
        for array, snapshot in zip(arrays, before, strict=True):
            np.testing.assert_array_equal(host(array), snapshot)


def test_arrays_on_different_devices_are_refused(backend_device: ca.Device) -> None:
    other = ca.Device("cpu", 1) if str(backend_device) == "cpu" else ca.Device("cpu")
    a = ca.asarray([1.0, 2.0], device=backend_device)
    b = ca.asarray([1.0, 2.0], device=other)
    for call in (
        lambda: ca.dot(a, b),
        lambda: ca.hstack([a, b]),
        lambda: ca.isclose(a, b),
        lambda: ca.einsum("i,i", a, b),
        lambda: ca.append(a, b),
        lambda: ca.average(a, weights=b),
        lambda: ca.interp(a, b, b),
    ):
        with pytest.raises(ValueError, match=r"different devices|is on"):
            call()
