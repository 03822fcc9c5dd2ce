"""The linalg extension and the main-namespace linear algebra functions.

Each function is compared with NumPy on typical and edge inputs (stacks of
matrices, empty stacks, non-contiguous views, single precision, complex),
and every result is checked to be a value: writing to it changes no input,
writing to an input changes no result.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _inputs import positive_definite

import cowarray as ca
from cowarray.testing import to_numpy

RNG = np.random.default_rng(0)


def _random(shape: tuple[int, ...], dtype: str = "float64") -> np.ndarray:
    values = RNG.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        values = values + 1j * RNG.standard_normal(shape)
    return values.astype(dtype)


def _spd(shape: tuple[int, ...], dtype: str = "float64") -> np.ndarray:
    """A stack of Hermitian positive-definite matrices (drawn as ``_random``'s inputs)."""
    return positive_definite(RNG, shape, dtype)


def _well_conditioned(shape: tuple[int, ...], dtype: str = "float64") -> np.ndarray:
    """``_random``'s matrices plus a multiple of the identity that keeps them far
    from singular (condition number about 3), so that two SVD algorithms
    (LAPACK's, a GPU's) agree to the tolerance."""
    rows, columns = shape[-2:]
    lift = 4 * np.sqrt(max(rows, columns)) * np.eye(rows, columns)
    return (_random(shape, dtype) + lift).astype(dtype)


def _tolerance(dtype: Any) -> float:
    return 1e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-10


def assert_close(actual: ca.Array, expected: Any) -> None:
    assert type(actual) is ca.Array
    values = to_numpy(actual)
    model = np.asarray(expected)
    assert values.shape == model.shape, f"shape {values.shape} != {model.shape}"
    assert values.dtype == model.dtype, f"dtype {values.dtype} != {model.dtype}"
    tol = _tolerance(model.dtype)
    np.testing.assert_allclose(values, model, rtol=tol, atol=tol)


def assert_value(result: ca.Array, *inputs: ca.Array) -> None:
    """Writing to ``result`` leaves the inputs alone, and the other way round."""
    before_inputs = [to_numpy(x) for x in inputs]
    before_result = to_numpy(result)
    if result.ndim == 0:
        for x, model in zip(inputs, before_inputs, strict=True):
            if x.size:
                x[(0,) * x.ndim] = x[(0,) * x.ndim] + 1
                np.testing.assert_array_equal(to_numpy(result), before_result)
                x[(0,) * x.ndim] = ca.asarray(model[(0,) * x.ndim], device=x.device)
        return
    if result.size:
        result[...] = 0
    for x, model in zip(inputs, before_inputs, strict=True):
        np.testing.assert_array_equal(to_numpy(x), model)
    after_result = to_numpy(result)
    for x in inputs:
        if x.size:
            x[...] = 7
    np.testing.assert_array_equal(to_numpy(result), after_result)


# -- functions of one stack of matrices ---------------------------------------

# name -> (cowarray function, NumPy model, input maker)
Maker = Callable[[tuple[int, ...], str], np.ndarray]
SINGLE: dict[str, tuple[Callable[[ca.Array], Any], Callable[[np.ndarray], Any], Maker]] = {
    "det": (ca.linalg.det, np.linalg.det, _random),
    "inv": (ca.linalg.inv, np.linalg.inv, _spd),
    "cholesky": (ca.linalg.cholesky, np.linalg.cholesky, _spd),
    "cholesky upper": (
        lambda x: ca.linalg.cholesky(x, upper=True),
        lambda m: np.linalg.cholesky(m, upper=True),
        _spd,
    ),
    "eigvalsh": (ca.linalg.eigvalsh, np.linalg.eigvalsh, _spd),
    "svdvals": (ca.linalg.svdvals, np.linalg.svdvals, _random),
    "pinv": (ca.linalg.pinv, lambda m: np.linalg.pinv(m, rtol=None), _well_conditioned),
    "matrix_rank": (ca.linalg.matrix_rank, np.linalg.matrix_rank, _random),
    "matrix_norm fro": (ca.linalg.matrix_norm, np.linalg.matrix_norm, _random),
    "matrix_norm nuc": (
        lambda x: ca.linalg.matrix_norm(x, ord="nuc"),
        lambda m: np.linalg.matrix_norm(m, ord="nuc"),
        _random,
    ),
    "matrix_norm -inf keepdims": (
        lambda x: ca.linalg.matrix_norm(x, ord=-np.inf, keepdims=True),
        lambda m: np.linalg.matrix_norm(m, ord=-np.inf, keepdims=True),
        _random,
    ),
    "matrix_norm 2": (
        lambda x: ca.linalg.matrix_norm(x, ord=2),
        lambda m: np.linalg.matrix_norm(m, ord=2),
        _random,
    ),
    "matrix_power 3": (
        lambda x: ca.linalg.matrix_power(x, 3),
        lambda m: np.linalg.matrix_power(m, 3),
        _random,
    ),
    "matrix_power -2": (
        lambda x: ca.linalg.matrix_power(x, -2),
        lambda m: np.linalg.matrix_power(m, -2),
        _spd,
    ),
    "matrix_power 0": (
        lambda x: ca.linalg.matrix_power(x, 0),
        lambda m: np.linalg.matrix_power(m, 0),
        _random,
    ),
    "trace": (ca.linalg.trace, lambda m: np.linalg.trace(m), _random),
    "trace offset": (
        lambda x: ca.linalg.trace(x, offset=-1),
        lambda m: np.linalg.trace(m, offset=-1),
        _random,
    ),
    "diagonal": (ca.linalg.diagonal, np.linalg.diagonal, _random),
    "diagonal offset": (
        lambda x: ca.linalg.diagonal(x, offset=1),
        lambda m: np.linalg.diagonal(m, offset=1),
        _random,
    ),
    "matrix_transpose": (ca.matrix_transpose, np.linalg.matrix_transpose, _random),
    "linalg.matrix_transpose": (
        ca.linalg.matrix_transpose,
        np.linalg.matrix_transpose,
        _random,
    ),
}

SQUARE_SHAPES = [(3, 3), (2, 4, 4), (2, 1, 3, 3), (0, 3, 3)]
DTYPES = ["float32", "float64", "complex64", "complex128"]


@pytest.mark.parametrize("shape", SQUARE_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(SINGLE))
def test_single_matrix_function_matches_numpy(
    name: str, dtype: str, shape: tuple[int, ...], device: ca.Device
) -> None:
    function, model, make = SINGLE[name]
    data = make(shape, dtype)
    x = ca.asarray(data, device=device)
    result = function(x)
    assert result.device is device
    assert_close(result, model(data))
    assert_value(result, x)


@pytest.mark.parametrize("name", list(SINGLE))
def test_single_matrix_function_reads_non_contiguous_input(
    name: str, backend_device: ca.Device
) -> None:
    function, model, make = SINGLE[name]
    base = make((2, 6, 6), "float64")
    view_model = base[:, ::2, ::2] if name not in ("inv", "cholesky", "cholesky upper") else base
    view_model = np.swapaxes(view_model, -1, -2)
    x = ca.asarray(base, device=backend_device)
    view = ca.permute_dims(
        x[:, ::2, ::2] if name not in ("inv", "cholesky", "cholesky upper") else x, (0, 2, 1)
    )
    result = function(view)
    assert result.device == backend_device
    assert_close(result, model(view_model))
    np.testing.assert_array_equal(to_numpy(x), base)


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 5, 2), (0, 2, 3), (3, 0)], ids=str)
@pytest.mark.parametrize("name", ["svdvals", "pinv", "matrix_rank", "matrix_norm fro", "trace"])
def test_rectangular_and_empty_matrices_match_numpy(
    name: str, shape: tuple[int, ...], backend_device: ca.Device
) -> None:
    function, model, make = SINGLE[name]
    data = make(shape, "float64")
    result = function(ca.asarray(data, device=backend_device))
    assert result.device == backend_device
    assert_close(result, model(data))


def test_integer_trace_uses_the_default_integer_dtype(backend_device: ca.Device) -> None:
    data = ca.asarray(np.arange(9, dtype=np.int8).reshape(3, 3), device=backend_device)
    assert_close(ca.linalg.trace(data), np.asarray(12, dtype=np.int64))
    unsigned = ca.asarray(np.arange(9, dtype=np.uint16).reshape(3, 3), device=backend_device)
    assert_close(ca.linalg.trace(unsigned), np.asarray(12, dtype=np.uint64))
    assert_close(ca.linalg.trace(data, dtype=ca.float32), np.asarray(12, dtype=np.float32))


def test_diagonal_and_matrix_transpose_are_lazy_values(backend_device: ca.Device) -> None:
    x = ca.asarray(np.arange(9.0).reshape(3, 3), device=backend_device)
    for view in (ca.linalg.diagonal(x), ca.matrix_transpose(x), ca.linalg.matrix_transpose(x)):
        assert ca.shares_buffer(view, x)
        assert view.device == backend_device
    diagonal = ca.linalg.diagonal(x)
    diagonal[0] = 100.0
    np.testing.assert_array_equal(to_numpy(x), np.arange(9.0).reshape(3, 3))
    np.testing.assert_array_equal(to_numpy(diagonal), [100.0, 4.0, 8.0])


def test_diagonal_accepts_boolean_matrices(backend_device: ca.Device) -> None:
    data = np.eye(3, dtype=bool)
    result = ca.linalg.diagonal(ca.asarray(data, device=backend_device))
    assert_close(result, np.ones(3, dtype=bool))


# -- decompositions: named tuples whose parts reconstruct the input -------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (0, 2, 2)], ids=str)
def test_eigh_returns_named_eigenpairs(
    dtype: str, shape: tuple[int, ...], backend_device: ca.Device
) -> None:
    data = _spd(shape, dtype)
    result = ca.linalg.eigh(ca.asarray(data, device=backend_device))
    assert isinstance(result, ca.linalg.EighResult)
    assert result.eigenvalues.device == result.eigenvectors.device == backend_device
    assert_close(result.eigenvalues, np.linalg.eigvalsh(data))
    w, v = to_numpy(result.eigenvalues), to_numpy(result.eigenvectors)
    np.testing.assert_allclose(
        data @ v, v * w[..., None, :], rtol=_tolerance(dtype) * 10, atol=_tolerance(dtype) * 10
    )


@pytest.mark.parametrize(
    ("dtype", "complex_dtype"),
    [("float32", "complex64"), ("float64", "complex128"), ("complex64", "complex64")],
)
def test_eig_and_eigvals_are_complex_even_for_real_spectra(
    dtype: str, complex_dtype: str, backend_device: ca.Device
) -> None:
    data = np.array([[[2.0, 0.0], [0.0, 3.0]], [[0.0, -1.0], [1.0, 0.0]]], dtype=dtype)
    x = ca.asarray(data, device=backend_device)
    result = ca.linalg.eig(x)
    assert isinstance(result, ca.linalg.EigResult)
    assert result.eigenvalues.device == result.eigenvectors.device == backend_device
    assert result.eigenvalues.dtype == complex_dtype
    assert result.eigenvectors.dtype == complex_dtype
    values = ca.linalg.eigvals(x)
    assert values.dtype == complex_dtype
    assert values.device == backend_device
    expected = np.linalg.eigvals(data).astype(complex_dtype)
    # NumPy itself gives 2.8e-17 - 1j for -1j: an iterative solver's last bits
    tolerance = _tolerance(complex_dtype)
    np.testing.assert_allclose(
        np.sort_complex(to_numpy(values)), np.sort_complex(expected), rtol=tolerance, atol=tolerance
    )
    w, v = to_numpy(result.eigenvalues), to_numpy(result.eigenvectors)
    np.testing.assert_allclose(data @ v, v * w[..., None, :], atol=1e-5)


@pytest.mark.parametrize("mode", ["reduced", "complete"])
@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 3, 3)], ids=str)
def test_qr_returns_named_factors_that_reconstruct_the_input(
    mode: Any, shape: tuple[int, ...], backend_device: ca.Device
) -> None:
    data = _random(shape)
    result = ca.linalg.qr(ca.asarray(data, device=backend_device), mode=mode)
    assert isinstance(result, ca.linalg.QRResult)
    assert result.Q.device == result.R.device == backend_device
    q, r = np.linalg.qr(data, mode=mode)
    assert_close(result.Q, q)
    assert_close(result.R, r)
    np.testing.assert_allclose(to_numpy(result.Q) @ to_numpy(result.R), data, atol=1e-10)


@pytest.mark.parametrize("full_matrices", [True, False])
@pytest.mark.parametrize("dtype", DTYPES)
def test_svd_returns_named_factors(
    full_matrices: bool, dtype: str, backend_device: ca.Device
) -> None:
    data = _random((2, 4, 3), dtype)
    result = ca.linalg.svd(ca.asarray(data, device=backend_device), full_matrices=full_matrices)
    assert isinstance(result, ca.linalg.SVDResult)
    assert result.U.device == result.S.device == result.Vh.device == backend_device
    u, s, vh = np.linalg.svd(data, full_matrices=full_matrices)
    assert result.U.shape == u.shape
    assert result.Vh.shape == vh.shape
    assert_close(result.S, s)
    k = s.shape[-1]
    rebuilt = (to_numpy(result.U)[..., :k] * to_numpy(result.S)[..., None, :]) @ to_numpy(
        result.Vh
    )[..., :k, :]
    tol = _tolerance(dtype) * 10
    np.testing.assert_allclose(rebuilt, data, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", DTYPES)
def test_slogdet_returns_named_sign_and_log(dtype: str, backend_device: ca.Device) -> None:
    data = _random((3, 3, 3), dtype)
    result = ca.linalg.slogdet(ca.asarray(data, device=backend_device))
    assert isinstance(result, ca.linalg.SlogdetResult)
    assert result.sign.device == result.logabsdet.device == backend_device
    sign, logabsdet = np.linalg.slogdet(data)
    assert_close(result.sign, sign)
    assert_close(result.logabsdet, logabsdet)
    singular = ca.linalg.slogdet(ca.zeros((2, 2), device=backend_device))
    assert float(singular.sign) == 0.0
    assert float(singular.logabsdet) == -np.inf


@pytest.mark.parametrize(
    "decompose",
    [ca.linalg.eigh, ca.linalg.eig, ca.linalg.qr, ca.linalg.svd, ca.linalg.slogdet],
    ids=lambda f: f.__name__,
)
def test_every_part_of_a_decomposition_is_a_value(
    decompose: Callable[[ca.Array], tuple[ca.Array, ...]], backend_device: ca.Device
) -> None:
    data = _spd((3, 3))
    for index in range(len(decompose(ca.asarray(data, device=backend_device)))):
        x = ca.asarray(data, device=backend_device)
        assert_value(decompose(x)[index], x)


# -- functions of two operands --------------------------------------------------


@pytest.mark.parametrize(
    ("a_shape", "b_shape"),
    [
        ((3, 3), (3,)),
        ((3, 3), (3, 2)),
        ((2, 3, 3), (3, 2)),
        ((2, 3, 3), (1, 3, 4)),
        ((3, 3), (0, 3, 1)),
    ],
    ids=str,
)
@pytest.mark.parametrize("dtype", DTYPES)
def test_solve_matches_numpy_with_vector_and_stacked_right_hand_sides(
    a_shape: tuple[int, ...], b_shape: tuple[int, ...], dtype: str, device: ca.Device
) -> None:
    a, b = _spd(a_shape, dtype), _random(b_shape, dtype)
    x1, x2 = ca.asarray(a, device=device), ca.asarray(b, device=device)
    result = ca.linalg.solve(x1, x2)
    assert_close(result, np.linalg.solve(a, b))
    assert_value(result, x1, x2)


def test_solve_promotes_mixed_precision(backend_device: ca.Device) -> None:
    a = _spd((3, 3), "float32")
    b = _random((3,), "float64")
    x1, x2 = ca.asarray(a, device=backend_device), ca.asarray(b, device=backend_device)
    result = ca.linalg.solve(x1, x2)
    assert result.dtype == ca.float64
    assert to_numpy(result).dtype == np.float64


@pytest.mark.parametrize(
    ("a_shape", "b_shape"),
    [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 1, 3, 4), (5, 4, 2)), ((0, 3), (3, 2))],
    ids=str,
)
@pytest.mark.parametrize("dtype", ["int8", "int64", "uint16", "float32", "complex128"])
def test_matmul_matches_numpy(
    a_shape: tuple[int, ...], b_shape: tuple[int, ...], dtype: str, device: ca.Device
) -> None:
    a = (_random(a_shape) * 3).astype(dtype)
    b = (_random(b_shape) * 3).astype(dtype)
    x1, x2 = ca.asarray(a, device=device), ca.asarray(b, device=device)
    expected = np.matmul(a, b)
    for result in (ca.matmul(x1, x2), ca.linalg.matmul(x1, x2), x1 @ x2):
        assert_close(result, expected)
    assert_value(ca.matmul(x1, x2), x1, x2)


def test_matmul_promotes_like_the_standard(backend_device: ca.Device) -> None:
    a = ca.ones((2, 2), dtype=ca.int8, device=backend_device)
    b = ca.ones((2, 2), dtype=ca.uint8, device=backend_device)
    assert ca.matmul(a, b).dtype == ca.int16
    assert to_numpy(ca.matmul(a, b)).dtype == np.int16
    single = ca.ones((2, 2), dtype=ca.float32, device=backend_device)
    assert ca.matmul(single, ca.ones(2, device=backend_device)).dtype == ca.float64


@pytest.mark.parametrize(
    ("a_shape", "b_shape", "axis"),
    [((3,), (3,), -1), ((2, 3), (3,), -1), ((4, 2), (3, 4, 2), -2), ((3, 5), (3, 5), 0)],
    ids=str,
)
@pytest.mark.parametrize("dtype", ["int32", "float64", "complex64"])
def test_vecdot_conjugates_the_first_operand(
    a_shape: tuple[int, ...],
    b_shape: tuple[int, ...],
    axis: int,
    dtype: str,
    backend_device: ca.Device,
) -> None:
    a, b = _random(a_shape, dtype), _random(b_shape, dtype)
    if dtype == "int32":
        a, b = (a * 5).astype(dtype), (b * 5).astype(dtype)
    x1, x2 = ca.asarray(a, device=backend_device), ca.asarray(b, device=backend_device)
    expected = np.linalg.vecdot(a, b, axis=axis if axis < 0 else axis - len(a_shape))
    for function in (ca.vecdot, ca.linalg.vecdot):
        assert_close(function(x1, x2, axis=axis), expected)
    manual = np.sum(np.conj(a) * b, axis=axis)
    np.testing.assert_allclose(to_numpy(ca.vecdot(x1, x2, axis=axis)), manual, rtol=1e-4)


@pytest.mark.parametrize(
    ("a_shape", "b_shape", "axes"),
    [
        ((2, 3), (4,), 0),
        ((3, 4, 5), (5, 2), 1),
        ((3, 4, 5), (4, 5, 2), 2),
        ((3, 4, 5), (4, 2), ((1,), (0,))),
        ((3, 4, 5), (5, 3, 2), ((0, 2), (1, 0))),
        ((3, 4, 5), (6, 5, 2), ([-1], [-2])),
        ((0, 3), (3, 2), 1),
    ],
    ids=str,
)
def test_tensordot_matches_numpy(
    a_shape: tuple[int, ...], b_shape: tuple[int, ...], axes: Any, backend_device: ca.Device
) -> None:
    a, b = _random(a_shape), _random(b_shape)
    x1, x2 = ca.asarray(a, device=backend_device), ca.asarray(b, device=backend_device)
    expected = np.tensordot(a, b, axes=axes)
    for function in (ca.tensordot, ca.linalg.tensordot):
        result = function(x1, x2, axes=axes)
        assert result.device == backend_device
        assert_close(result, expected)


@pytest.mark.parametrize(
    ("a_shape", "b_shape", "axis"),
    [((3,), (3,), -1), ((4, 3), (3,), -1), ((3, 4), (2, 3, 4), -2), ((2, 3, 2), (2, 3, 2), 1)],
    ids=str,
)
@pytest.mark.parametrize("dtype", ["int64", "float32", "complex128"])
def test_cross_matches_numpy(
    a_shape: tuple[int, ...],
    b_shape: tuple[int, ...],
    axis: int,
    dtype: str,
    backend_device: ca.Device,
) -> None:
    a, b = (_random(a_shape, dtype) * 4).astype(dtype), (_random(b_shape, dtype) * 4).astype(dtype)
    negative = axis if axis < 0 else axis - len(a_shape)
    expected = np.linalg.cross(a, b, axis=negative)
    x1, x2 = ca.asarray(a, device=backend_device), ca.asarray(b, device=backend_device)
    result = ca.linalg.cross(x1, x2, axis=axis)
    assert result.device == backend_device
    assert_close(result, expected)


@pytest.mark.parametrize("dtype", ["uint8", "float64", "complex64"])
def test_outer_matches_numpy(dtype: str, backend_device: ca.Device) -> None:
    a, b = (np.arange(4) + 1).astype(dtype), (np.arange(3) * 2).astype(dtype)
    x1, x2 = ca.asarray(a, device=backend_device), ca.asarray(b, device=backend_device)
    result = ca.linalg.outer(x1, x2)
    assert result.device == backend_device
    assert_close(result, np.outer(a, b))
    assert_value(result, x1, x2)
    empty = ca.asarray(a[:0], device=backend_device)
    assert_close(ca.linalg.outer(empty, x2), np.outer(a[:0], b))


# -- vector_norm --------------------------------------------------------------


@pytest.mark.parametrize("ord", [2, 1, 0, -1, -2, np.inf, -np.inf, 3, 0.5])
@pytest.mark.parametrize(
    ("axis", "keepdims"), [(None, False), (None, True), (1, False), ((0, 2), True), (-1, True)]
)
@pytest.mark.parametrize("dtype", DTYPES)
def test_vector_norm_matches_numpy(
    ord: float, axis: Any, keepdims: bool, dtype: str, backend_device: ca.Device
) -> None:
    data = _random((2, 3, 4), dtype)
    x = ca.asarray(data, device=backend_device)
    result = ca.linalg.vector_norm(x, axis=axis, keepdims=keepdims, ord=ord)
    assert result.device == backend_device
    expected = np.linalg.vector_norm(data, axis=axis, keepdims=keepdims, ord=ord)
    assert_close(result, expected)


def test_vector_norm_of_a_zero_dimensional_array_is_its_magnitude(
    backend_device: ca.Device,
) -> None:
    real = ca.asarray(-3.0, device=backend_device)
    assert_close(ca.linalg.vector_norm(real), np.asarray(3.0))
    complex_ = ca.asarray(3 + 4j, dtype=ca.complex64, device=backend_device)
    assert_close(ca.linalg.vector_norm(complex_), np.asarray(5.0, "float32"))


def test_vector_norm_of_an_empty_array_is_zero(backend_device: ca.Device) -> None:
    empty = ca.zeros((0, 3), device=backend_device)
    assert_close(ca.linalg.vector_norm(empty, axis=0), np.zeros(3))


def test_vector_norm_propagates_nan_and_inf(backend_device: ca.Device) -> None:
    x = ca.asarray([1.0, np.inf, 2.0], device=backend_device)
    assert float(ca.linalg.vector_norm(x)) == np.inf
    nan = ca.asarray([1.0, np.nan], device=backend_device)
    assert np.isnan(float(ca.linalg.vector_norm(nan)))


# -- bad input -------------------------------------------------------------------


FLOATING_ONLY = [
    ca.linalg.cholesky,
    ca.linalg.det,
    ca.linalg.eigh,
    ca.linalg.eigvalsh,
    ca.linalg.eig,
    ca.linalg.eigvals,
    ca.linalg.inv,
    ca.linalg.matrix_norm,
    ca.linalg.matrix_rank,
    ca.linalg.pinv,
    ca.linalg.qr,
    ca.linalg.slogdet,
    ca.linalg.svd,
    ca.linalg.svdvals,
    ca.linalg.vector_norm,
]


@pytest.mark.parametrize("function", FLOATING_ONLY, ids=lambda f: f.__name__)
def test_integer_input_to_a_floating_point_function_raises_type_error(
    function: Callable[[ca.Array], Any],
) -> None:
    x = ca.asarray([[1, 2], [3, 4]])
    with pytest.raises(TypeError, match="x must have a floating-point dtype"):
        function(x)
    np.testing.assert_array_equal(to_numpy(x), [[1, 2], [3, 4]])


@pytest.mark.parametrize("function", FLOATING_ONLY, ids=lambda f: f.__name__)
def test_float16_input_to_a_floating_point_function_raises_type_error(
    function: Callable[[ca.Array], Any],
) -> None:
    with pytest.raises(TypeError, match="float16"):
        function(ca.ones((2, 2), dtype=ca.float16))


@pytest.mark.parametrize(
    "function",
    [ca.linalg.det, ca.linalg.inv, ca.linalg.cholesky, ca.linalg.eigh, ca.linalg.slogdet],
    ids=lambda f: f.__name__,
)
def test_non_square_input_raises_value_error(function: Callable[[ca.Array], Any]) -> None:
    with pytest.raises(ValueError, match="square"):
        function(ca.ones((2, 3)))


@pytest.mark.parametrize(
    "function",
    [ca.linalg.det, ca.linalg.svdvals, ca.linalg.trace, ca.matrix_transpose, ca.linalg.diagonal],
    ids=lambda f: f.__name__,
)
def test_vector_input_to_a_matrix_function_raises_value_error(
    function: Callable[[ca.Array], Any],
) -> None:
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        function(ca.ones(3))


def test_singular_matrix_raises_value_error(backend_device: ca.Device) -> None:
    with pytest.raises(ca.linalg.LinAlgError, match=r"inv: x .*singular"):
        ca.linalg.inv(ca.zeros((2, 2), device=backend_device))
    with pytest.raises(ValueError, match=r"solve: x1 .*singular"):
        ca.linalg.solve(ca.zeros((2, 2), device=backend_device), ca.ones(2, device=backend_device))
    with pytest.raises(np.linalg.LinAlgError, match="singular"):  # NumPy's except clauses hold
        ca.linalg.inv(ca.zeros((2, 2), device=backend_device))


def test_cholesky_of_a_matrix_that_is_not_positive_definite_raises(
    backend_device: ca.Device,
) -> None:
    indefinite = ca.asarray([[1.0, 2.0], [2.0, 1.0]], device=backend_device)
    with pytest.raises(ValueError, match="not positive definite"):
        ca.linalg.cholesky(indefinite)


def test_mixed_kinds_promote_as_numpy_within_each_category() -> None:
    # design rule 11: across kinds NumPy 2's result, which must be of the
    # function's category (as for one kind)
    product = ca.matmul(ca.ones((2, 2), dtype=ca.int64), ca.ones((2, 2), dtype=ca.float32))
    assert product.dtype == ca.float64
    assert ca.matmul(ca.ones((2, 2), dtype=ca.bool), ca.ones((2, 2))).dtype == ca.float64
    with pytest.raises(TypeError, match="x1 must have a numeric dtype"):
        ca.matmul(ca.ones((2, 2), dtype=ca.bool), ca.ones((2, 2), dtype=ca.bool))
    solved = ca.linalg.solve(ca.eye(2), ca.asarray([1, 2]))
    np.testing.assert_array_equal(to_numpy(solved), np.linalg.solve(np.eye(2), np.asarray([1, 2])))
    assert solved.dtype == ca.float64
    with pytest.raises(TypeError, match="x1 must have a floating-point dtype"):
        ca.linalg.solve(ca.eye(2, dtype=ca.int64), ca.asarray([1, 2]))  # one kind, not floating


def test_mixed_devices_are_refused() -> None:
    a = ca.ones((2, 2))
    b = ca.ones((2, 2), device="cpu:1")
    for function in (ca.matmul, ca.linalg.solve, ca.tensordot, ca.vecdot, ca.linalg.cross):
        with pytest.raises(ValueError, match="different devices"):
            function(a, b)
    with pytest.raises(ValueError, match="different devices"):
        ca.linalg.outer(a[0], b[0])


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: ca.matmul(ca.ones(3), ca.ones(4)), ValueError, "not aligned"),
        (lambda: ca.matmul(ca.asarray(1.0), ca.ones(1)), ValueError, "at least one dimension"),
        (lambda: ca.vecdot(ca.ones(3), ca.ones(4)), ValueError, "lengths 3 and 4"),
        (lambda: ca.vecdot(ca.ones((2, 3)), ca.ones(3), axis=0), ValueError, "axis=0"),
        (lambda: ca.vecdot(ca.ones(3), ca.ones(3), axis=1.0), TypeError, "axis must be an integer"),
        (lambda: ca.linalg.cross(ca.ones(2), ca.ones(2)), ValueError, "length 3"),
        (lambda: ca.linalg.outer(ca.ones((2, 2)), ca.ones(2)), ValueError, "1-D"),
        (lambda: ca.tensordot(ca.ones(3), ca.ones(4), axes=1), ValueError, "equal lengths"),
        (lambda: ca.tensordot(ca.ones(3), ca.ones(3), axes=-1), ValueError, "negative"),
        (lambda: ca.tensordot(ca.ones(3), ca.ones(3), axes=3), ValueError, "exceeds"),
        (lambda: ca.tensordot(ca.ones(3), ca.ones(3), axes="x"), TypeError, "axes"),
        (lambda: ca.linalg.solve(ca.eye(3), ca.ones(2)), ValueError, "does not fit"),
        (lambda: ca.linalg.qr(ca.eye(2), mode="r"), ValueError, "mode"),
        (lambda: ca.linalg.matrix_norm(ca.eye(2), ord=3), ValueError, "ord=3"),
        (lambda: ca.linalg.vector_norm(ca.eye(2), ord="fro"), TypeError, "ord"),
        (lambda: ca.linalg.matrix_power(ca.eye(2), 1.5), TypeError, "n must be an int"),
        (lambda: ca.linalg.matrix_rank(ca.eye(2), rtol="big"), TypeError, "rtol"),
        (lambda: ca.linalg.pinv(ca.eye(2), rtol=ca.asarray(1)), TypeError, "rtol"),
        (lambda: ca.linalg.cholesky(ca.eye(2), upper=1), TypeError, "upper"),
        (lambda: ca.linalg.trace(ca.eye(2), offset=0.5), TypeError, "offset"),
        (lambda: ca.linalg.det([[1.0]]), TypeError, "x must be a cowarray Array"),
    ],
)
def test_bad_arguments_raise_the_standard_exception(
    call: Callable[[], Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        call()


def test_rtol_as_an_array_broadcasts_over_the_stack(backend_device: ca.Device) -> None:
    data = np.stack([np.diag([1.0, 1e-3]), np.diag([1.0, 1e-3])])
    x = ca.asarray(data, device=backend_device)
    rtol = ca.asarray([1e-2, 1e-4], device=backend_device)
    assert to_numpy(ca.linalg.matrix_rank(x, rtol=rtol)).tolist() == [1, 2]
    pinv = ca.linalg.pinv(x, rtol=rtol)
    # zeros off the diagonal: exact from LAPACK, a few ulp from another SVD
    np.testing.assert_allclose(to_numpy(pinv)[0], np.diag([1.0, 0.0]), atol=1e-12)
    np.testing.assert_allclose(to_numpy(pinv)[1], np.diag([1.0, 1e3]), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("n", [1, 2, 0, -1])
def test_matrix_power_is_a_value_for_every_exponent(n: int, backend_device: ca.Device) -> None:
    # NumPy's matrix_power(a, 1) returns a itself: the result must not alias x
    x = ca.asarray([[2.0, 1.0], [0.0, 1.0]], device=backend_device)
    assert_value(ca.linalg.matrix_power(x, n), x)


# -- NumPy's norm and lstsq ------------------------------------------------------

NORM_CASES: list[tuple[tuple[int, ...], str, dict[str, Any]]] = [
    ((5,), "float64", {}),
    ((5,), "float32", {"ord": 1}),
    ((5,), "float64", {"ord": -np.inf}),
    ((5,), "float64", {"ord": 0}),
    ((5,), "complex128", {"ord": 3}),
    ((3, 4), "float64", {}),
    ((3, 4), "float64", {"ord": "fro"}),
    ((3, 4), "float64", {"ord": "nuc"}),
    ((3, 4), "float64", {"ord": 2}),
    ((3, 4), "float64", {"ord": -1}),
    ((3, 4), "float64", {"ord": np.inf, "keepdims": True}),
    ((3, 4), "float32", {"axis": 0}),
    ((3, 4), "float64", {"axis": -1, "ord": 1, "keepdims": True}),
    ((2, 3, 4), "float64", {}),
    ((2, 3, 4), "float64", {"keepdims": True}),
    ((2, 3, 4), "float64", {"axis": (2, 0)}),
    ((2, 3, 4), "complex64", {"axis": (0, 2), "ord": -2, "keepdims": True}),
    ((2, 3, 4), "float64", {"axis": (1,), "ord": 0.5}),
    ((0, 3), "float64", {}),
]


@pytest.mark.parametrize(("shape", "dtype", "options"), NORM_CASES)
def test_norm_matches_numpy(
    shape: tuple[int, ...], dtype: str, options: dict[str, Any], backend_device: ca.Device
) -> None:
    model = _random(shape, dtype)
    x = ca.asarray(model, device=backend_device)
    result = ca.linalg.norm(x, **options)
    expected = np.linalg.norm(model, **options)
    got = to_numpy(result)
    assert got.dtype == np.asarray(expected).dtype
    np.testing.assert_allclose(got, expected, rtol=1e-5 if "64" not in dtype else 1e-10)
    assert result.device == backend_device
    assert_value(result, x)


def test_norm_converts_integers_and_refuses_bad_orders(backend_device: ca.Device) -> None:
    x = ca.asarray([[3, 4], [0, 0]], device=backend_device)
    assert ca.linalg.norm(x).dtype == ca.float64
    assert float(ca.linalg.norm(x)) == 5.0
    with pytest.raises(ValueError, match="matrix norm"):
        ca.linalg.norm(ca.asarray([1.0, 2.0], device=backend_device), ord="fro")
    with pytest.raises(ValueError, match="1-D or 2-D"):
        ca.linalg.norm(ca.zeros((2, 2, 2), device=backend_device), ord=2)
    with pytest.raises(ValueError, match="one axis or two"):
        ca.linalg.norm(ca.zeros((2, 2, 2), device=backend_device), axis=(0, 1, 2))
    with pytest.raises(ValueError, match="ord"):
        ca.linalg.norm(ca.zeros((2, 2), device=backend_device), ord=3)
    with pytest.raises(TypeError, match="cowarray Array"):
        ca.linalg.norm(np.zeros(2))
    with pytest.raises(TypeError, match="keepdims"):
        ca.linalg.norm(x, keepdims=1)


@pytest.mark.parametrize(
    ("shape_a", "shape_b", "rcond"),
    [
        ((6, 3), (6,), None),
        ((6, 3), (6, 2), None),
        ((3, 5), (3,), None),
        ((4, 4), (4, 3), -1.0),
        ((5, 3), (5,), 0.5),
    ],
)
def test_lstsq_matches_numpy(
    shape_a: tuple[int, ...],
    shape_b: tuple[int, ...],
    rcond: float | None,
    backend_device: ca.Device,
) -> None:
    a_model, b_model = _random(shape_a), _random(shape_b)
    a = ca.asarray(a_model, device=backend_device)
    b = ca.asarray(b_model, device=backend_device)
    solution, residuals, rank, s = ca.linalg.lstsq(a, b, rcond=rcond)
    expected = np.linalg.lstsq(a_model, b_model, rcond=rcond)
    for got, want in ((solution, expected[0]), (residuals, expected[1]), (s, expected[3])):
        assert to_numpy(got).shape == want.shape
        assert to_numpy(got).dtype == want.dtype
        np.testing.assert_allclose(to_numpy(got), want, rtol=1e-9, atol=1e-12)
        assert got.device == backend_device
    assert rank == int(expected[2]) and type(rank) is int
    assert_value(solution, a, b)


def test_lstsq_of_a_rank_deficient_matrix_and_bad_input(backend_device: ca.Device) -> None:
    a_model = np.asarray([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])
    b_model = np.asarray([1.0, 2.0, 3.5])
    a = ca.asarray(a_model, device=backend_device)
    result = ca.linalg.lstsq(a, ca.asarray(b_model, device=backend_device))
    expected = np.linalg.lstsq(a_model, b_model)
    np.testing.assert_allclose(to_numpy(result.x), expected[0], rtol=1e-10)
    assert result.rank == 1 and to_numpy(result.residuals).shape == (0,)
    ints = ca.linalg.lstsq(
        ca.asarray([[1, 0], [0, 2]], device=backend_device),
        ca.asarray([1, 2], device=backend_device),
    )
    np.testing.assert_allclose(to_numpy(ints.x), [1.0, 1.0])
    with pytest.raises(ValueError, match="2-D"):
        ca.linalg.lstsq(ca.zeros(3, device=backend_device), ca.zeros(3, device=backend_device))
    with pytest.raises(ValueError, match="fit a"):
        ca.linalg.lstsq(a, ca.zeros(2, device=backend_device))
    with pytest.raises(TypeError, match="rcond"):
        ca.linalg.lstsq(a, ca.zeros(3, device=backend_device), rcond="x")
