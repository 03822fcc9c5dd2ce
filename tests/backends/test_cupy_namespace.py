"""The CuPy namespace on each CuPy release it supports, against a stand-in ``cupy``.

The stand-in (``_stand_in.py``) has CuPy's signatures and, where they differ
from NumPy's, CuPy's results: these tests check that the namespace turns them
into the standard's, and that a release which has a name or keyword itself
gets CuPy's own function rather than the fill.
"""

from __future__ import annotations

import math
import sys
import types
from typing import Any

import numpy as np
import pytest
from _inputs import bits, nans_and_numbers, positive_definite
from _stand_in import RELEASES, FakeArray, load_backend_module, make

from cowarray._backends.base import missing_standard_names
from cowarray._backends.numpy import NUMPY_BACKEND

NAN, INF = math.nan, math.inf
RNG = np.random.default_rng(0)


def _namespace(monkeypatch: pytest.MonkeyPatch, release: tuple[int, int]) -> types.SimpleNamespace:
    """The GPU-0 namespace built against a stand-in of CuPy ``release``."""
    backend_module = load_backend_module(monkeypatch, release)
    return types.SimpleNamespace(
        xp=backend_module.CupyBackend(0).xp,
        cupy=sys.modules["cupy"],
        module=sys.modules["cowarray._backends._cupy_namespace"],
    )


@pytest.fixture(params=RELEASES, ids=lambda release: "CuPy {}.{}".format(*release))
def release(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Each supported release: its namespace (``.xp``) and stand-in ``cupy`` (``.cupy``).

    Not tests/conftest.py's ``stand_in`` (the backend module, newest release only).
    """
    return _namespace(monkeypatch, request.param)


def test_every_release_gets_every_standard_name(release: Any) -> None:
    assert missing_standard_names(release.xp) == []


def test_release_of_reads_the_version_and_an_unreadable_one_gets_every_fill(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # (the backend refuses an unreadable version before building a namespace;
    # the namespace alone still errs on the safe side)
    newest = _namespace(monkeypatch, RELEASES[-1])
    assert newest.module.release_of("14.2.0") == (14, 2)
    assert newest.module.release_of("15.0.0rc1") == (15, 0)
    assert newest.module.release_of("dev") == (0, 0)
    monkeypatch.setattr(newest.cupy, "__version__", "dev")
    xp = newest.module.standard_namespace(0)
    assert xp.reshape.__wrapped__ is not newest.cupy.reshape
    assert xp.sign.__wrapped__ is not newest.cupy.sign
    np.testing.assert_array_equal(xp.sign(make([NAN, -2.0])), [NAN, -1.0])


# -- 1. linalg functions whose keywords CuPy lacks --------------------------------


def test_the_stand_in_refuses_the_standards_linalg_keywords_as_cupy_does(release: Any) -> None:
    linalg, x = release.cupy.linalg, make(np.eye(2))
    with pytest.raises(TypeError):
        linalg.cholesky(x, upper=True)
    with pytest.raises(TypeError):
        linalg.matrix_rank(x, rtol=0.1)
    with pytest.raises(TypeError):
        linalg.pinv(x, rtol=0.1)
    with pytest.raises(ValueError, match="b must have"):
        linalg.solve(make(np.stack([np.eye(2)] * 3)), make(np.ones((2, 1))))


@pytest.mark.parametrize("dtype", ["float64", "complex64"])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_gives_the_factor_asked_for(release: Any, dtype: str, upper: bool) -> None:
    a = positive_definite(RNG, (2, 3, 3), dtype)
    result = release.xp.linalg.cholesky(make(a), upper=upper)
    expected = np.linalg.cholesky(a, upper=upper)
    np.testing.assert_allclose(result, expected, rtol=1e-5)
    assert result.dtype == expected.dtype


# Singular values 1, 1e-3 and 1e-9 (diagonal matrices), and rectangular/empty ones.
DIAGONAL = np.stack([np.diag([1.0, 1e-3, 1e-9]), np.diag([1.0, 1.0, 0.0])])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("rtol", [None, 1e-2, 1e-6, "array"])
def test_matrix_rank_takes_the_standards_relative_tolerance(
    release: Any, dtype: str, rtol: Any
) -> None:
    x = DIAGONAL.astype(dtype)
    tolerance = np.asarray([1e-2, 1e-6]) if rtol == "array" else rtol
    given = make(tolerance) if rtol == "array" else tolerance
    result = release.xp.linalg.matrix_rank(make(x), rtol=given)
    expected = np.linalg.matrix_rank(x, rtol=tolerance)
    np.testing.assert_array_equal(result, expected)
    assert result.dtype == np.int64


def test_matrix_rank_broadcasts_an_array_rtol_over_the_stack(release: Any) -> None:
    x = np.broadcast_to(DIAGONAL[0], (2, 3, 3, 3))
    rtol = np.asarray([1e-2, 1e-6, 1e-12])
    result = release.xp.linalg.matrix_rank(make(x), rtol=make(rtol))
    np.testing.assert_array_equal(result, [[1, 2, 3]] * 2)


@pytest.mark.parametrize("shape", [(0, 3), (2, 3, 0), (0, 2, 2)])
def test_matrix_rank_of_empty_matrices_is_zero(release: Any, shape: tuple[int, ...]) -> None:
    result = release.xp.linalg.matrix_rank(make(np.zeros(shape)))
    np.testing.assert_array_equal(result, np.linalg.matrix_rank(np.zeros(shape)))
    assert result.shape == shape[:-2]


def test_pinv_defaults_to_the_standards_tolerance(release: Any) -> None:
    # max(M, N) * eps of float32 cuts 1e-8; CuPy's own default (1e-15) would not
    x = np.diag([1.0, 1e-8]).astype("float32")
    result = release.xp.linalg.pinv(make(x))
    np.testing.assert_allclose(result, np.linalg.pinv(x, rtol=None))
    np.testing.assert_allclose(result, np.diag([1.0, 0.0]))


def test_pinv_broadcasts_an_array_rtol_over_the_stack(release: Any) -> None:
    x = np.stack([np.diag([1.0, 1e-3])] * 2)
    rtol = np.asarray([1e-2, 1e-4])
    result = release.xp.linalg.pinv(make(x), rtol=make(rtol))
    np.testing.assert_allclose(result, np.linalg.pinv(x, rtol=rtol))
    np.testing.assert_allclose(result[1], np.diag([1.0, 1e3]))


# -- 3. solve broadcasts the stacks --------------------------------------------------


@pytest.mark.parametrize(
    ("a_shape", "b_shape"),
    [
        ((3, 3), (3,)),
        ((2, 3, 3), (3,)),
        ((2, 3, 3), (3, 2)),
        ((3, 3), (4, 3, 2)),
        ((1, 3, 3), (5, 3, 1)),
        ((2, 1, 3, 3), (4, 3, 2)),
        ((2, 3, 3), (2, 3, 2)),
    ],
    ids=str,
)
def test_solve_broadcasts_the_stacks_as_the_standard_says(
    release: Any, a_shape: tuple[int, ...], b_shape: tuple[int, ...]
) -> None:
    a, b = positive_definite(RNG, a_shape, "float64"), RNG.standard_normal(b_shape)
    result = release.xp.linalg.solve(make(a), make(b))
    expected = np.linalg.solve(a, b)
    assert result.shape == expected.shape
    np.testing.assert_allclose(result, expected, rtol=1e-10)


# -- 2. what CuPy 14.0 and 14.1 lack -------------------------------------------------


def _is_cupys_own(release: Any, name: str, namespace: str = "") -> bool:
    bound = getattr(getattr(release.xp, namespace) if namespace else release.xp, name)
    source = getattr(release.cupy, namespace) if namespace else release.cupy
    return bool(bound.__wrapped__ is getattr(source, name, None))


def test_names_and_keywords_of_a_later_release_come_from_cupy_there(release: Any) -> None:
    version = tuple(int(n) for n in release.cupy.__version__.split(".")[:2])
    assert _is_cupys_own(release, "matmul", "linalg") == (version >= (14, 1))
    assert _is_cupys_own(release, "repeat") == (version >= (14, 1))
    assert _is_cupys_own(release, "cumulative_sum") == (version >= (14, 2))
    assert _is_cupys_own(release, "cumulative_prod") == (version >= (14, 2))
    assert _is_cupys_own(release, "reshape") == (version >= (14, 2))
    assert _is_cupys_own(release, "sign") == (version >= (14, 2))


def test_reshape_copies_as_asked(release: Any) -> None:
    x = make(np.arange(12.0).reshape(3, 4))
    reshape = release.xp.reshape
    assert np.shares_memory(reshape(x, (4, 3), copy=None), x)
    assert np.shares_memory(reshape(x, (4, 3), copy=False), x)
    copied = reshape(x, (4, 3), copy=True)
    assert not np.shares_memory(copied, x)
    np.testing.assert_array_equal(copied, np.arange(12.0).reshape(4, 3))
    np.testing.assert_array_equal(reshape(x, (2, 6)), np.arange(12.0).reshape(2, 6))


def test_reshape_without_copy_refuses_what_needs_one(release: Any) -> None:
    transposed = make(np.arange(6.0).reshape(2, 3)).T
    with pytest.raises(ValueError, match="copy"):
        release.xp.reshape(transposed, (6,), copy=False)
    result = release.xp.reshape(transposed, (6,), copy=None)
    np.testing.assert_array_equal(result, [0.0, 3.0, 1.0, 4.0, 2.0, 5.0])
    assert release.xp.reshape(make(np.zeros((0, 3))).T, (0,), copy=False).shape == (0,)


@pytest.mark.parametrize("name", ["cumulative_sum", "cumulative_prod"])
@pytest.mark.parametrize(
    ("dtype", "axis", "include_initial", "result_dtype"),
    [
        ("float64", None, False, None),
        ("float32", None, True, None),
        ("int8", 1, True, None),
        ("uint8", -1, False, None),
        ("bool", 0, True, None),
        ("int16", 0, False, "float32"),
    ],
)
def test_cumulative_functions_follow_the_standard(
    release: Any,
    name: str,
    dtype: str,
    axis: int | None,
    include_initial: bool,
    result_dtype: str | None,
) -> None:
    shape = (5,) if axis is None else (2, 3)
    values = np.arange(1, math.prod(shape) + 1).reshape(shape) % 3
    x = values.astype(dtype)
    result = getattr(release.xp, name)(
        make(x), axis=axis, dtype=result_dtype, include_initial=include_initial
    )
    expected = getattr(np, name)(x, axis=axis, dtype=result_dtype, include_initial=include_initial)
    assert result.dtype == expected.dtype
    np.testing.assert_array_equal(result, expected)


def test_cumulative_sum_needs_an_axis_for_several_dimensions(release: Any) -> None:
    with pytest.raises(ValueError, match="axis"):
        release.xp.cumulative_sum(make(np.ones((2, 2))))


def test_linalg_matmul_is_the_matrix_product(release: Any) -> None:
    a, b = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((4, 5))
    np.testing.assert_allclose(release.xp.linalg.matmul(make(a), make(b)), a @ b)


@pytest.mark.parametrize(
    ("shape", "repeats", "axis"),
    [((5,), [2, 0, 1, 3, 1], None), ((2, 3), [1, 0, 2], 1), ((2, 3), [3], 0), ((2, 3), [2], None)],
    ids=str,
)
def test_repeat_takes_an_array_of_counts(
    release: Any, shape: tuple[int, ...], repeats: list[int], axis: int | None
) -> None:
    x = np.arange(math.prod(shape)).reshape(shape)
    counts = make(np.asarray(repeats))
    result = release.xp.repeat(make(x), counts, axis=axis)
    np.testing.assert_array_equal(result, np.repeat(x, repeats, axis=axis))
    np.testing.assert_array_equal(release.xp.repeat(make(x), 2, axis=axis), np.repeat(x, 2, axis))


def test_repeat_of_an_empty_axis_is_empty(release: Any) -> None:
    result = release.xp.repeat(make(np.zeros((2, 0))), make(np.zeros(0, dtype=np.int64)), axis=1)
    assert result.shape == (2, 0)


# -- 4. CuPy's kernels where they differ from the standard ---------------------------


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_tanh_at_infinity_takes_the_sign_of_the_imaginary_part(
    release: Any, dtype: str
) -> None:
    z = np.asarray([complex(INF, 2.0), complex(-INF, -2.0), complex(INF, 0.5), 0.5 + 0.25j])
    result = release.xp.tanh(make(z.astype(dtype)))
    assert result.dtype == dtype
    np.testing.assert_array_equal(result.real[:3], [1.0, -1.0, 1.0])
    assert np.signbit(result.imag[:3]).tolist() == [False, True, False]
    assert (result.imag[:3] == 0).all()
    np.testing.assert_allclose(result[3], np.tanh(z[3]), rtol=1e-6)
    np.testing.assert_array_equal(release.xp.tanh(make([0.0, INF])), [0.0, 1.0])


@pytest.mark.parametrize(
    ("lo", "hi"),
    [(NAN, None), (None, NAN), (NAN, 5.0), (4.0, 1.0), (0.0, 5.0), (None, None), ("array", None)],
)
def test_clip_is_minimum_of_maximum(release: Any, lo: Any, hi: Any) -> None:
    values = np.asarray([-3.0, 0.0, 2.0, 9.0, NAN, -INF], dtype="float32")
    low = np.asarray([NAN, 1.0, 3.0, 8.0, 0.0, 1.0]) if lo == "array" else lo
    result = release.xp.clip(make(values), make(low) if lo == "array" else lo, hi)
    assert result.dtype == np.float32
    np.testing.assert_array_equal(result, np.clip(values, low, hi).astype("float32"))


def test_clip_of_integers_keeps_their_dtype(release: Any) -> None:
    x = make(np.asarray([-100, 0, 100], dtype="int8"))
    result = release.xp.clip(x, make(np.asarray([5, -50, 200], dtype="int16")), 50)
    assert result.dtype == np.int8
    np.testing.assert_array_equal(result, [5, 0, 50])
    np.testing.assert_array_equal(release.xp.clip(x, 1, None), [1, 1, 100])


def test_sign_of_nan_is_nan_and_of_a_complex_zero_is_zero(release: Any) -> None:
    real = release.xp.sign(make(np.asarray([NAN, -2.0, -0.0, 3.0, INF])))
    np.testing.assert_array_equal(real, [NAN, -1.0, 0.0, 1.0, 1.0])
    z = np.asarray([0j, complex(-0.0, 0.0), 3 + 4j, complex(NAN, 1.0)])
    result = release.xp.sign(make(z))
    assert result.dtype == np.complex128
    np.testing.assert_allclose(result[:3], [0j, 0j, 0.6 + 0.8j], rtol=1e-15, atol=0)
    assert np.isnan(result[3].real)
    np.testing.assert_array_equal(release.xp.sign(make(np.asarray([-3, 0, 4]))), [-1, 0, 1])


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "float32", "complex64"])
@pytest.mark.parametrize("namespace", ["", "linalg"])
def test_vecdot_keeps_the_operands_dtype(release: Any, dtype: str, namespace: str) -> None:
    a = (np.arange(6).reshape(2, 3) % 4).astype(dtype)
    b = (np.arange(3) + 1).astype(dtype)
    vecdot = (getattr(release.xp, namespace) if namespace else release.xp).vecdot
    result = vecdot(make(a), make(b))
    expected = np.vecdot(a, b)
    assert result.dtype == expected.dtype
    np.testing.assert_array_equal(result, expected)
    assert isinstance(result, FakeArray)


# -- 5. CuPy's arithmetic where it differs from NumPy's ------------------------------

SPECIAL = [-INF, -2.5, -1.0, -0.5, -0.0, 0.0, 0.25, 0.5, 1.0, 2.5, 1e300, INF, NAN]
SPECIAL_COMPLEX = [complex(re, im) for re in SPECIAL for im in SPECIAL]


def _assert_identical(result: Any, expected: Any) -> None:
    """Equal dtype, shape and values, NaNs alike and zeros of the same sign."""
    result, expected = np.asarray(result), np.asarray(expected)
    assert result.dtype == expected.dtype
    if result.dtype.kind == "c":
        result, expected = _parts(result), _parts(expected)
    np.testing.assert_array_equal(result, expected)
    numbers = ~np.isnan(expected)
    np.testing.assert_array_equal(np.signbit(result[numbers]), np.signbit(expected[numbers]))


def _parts(z: np.ndarray) -> np.ndarray:
    return np.stack([z.real, z.imag], axis=-1)


def test_the_stand_in_divides_complex_numbers_as_cupys_kernel_does(release: Any) -> None:
    # cupy/_core/include/cupy/complex/arithmetic.h: both scaled by 1 / (|c| + |d|)
    result = release.cupy.divide(make(np.asarray([1 + 0j, 1 + 1j])), complex(INF, 0))
    assert np.isnan(result.real).all() and np.isnan(result.imag).all()
    assert np.isnan(release.cupy.reciprocal(make(np.asarray([complex(-INF, 0)])))[0].real)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_divide_is_numpys_on_every_special_pair(release: Any, dtype: str) -> None:
    with np.errstate(all="ignore"):  # CuPy does not warn; the stand-in's NumPy would
        z = np.asarray(SPECIAL_COMPLEX, dtype=dtype)  # 1e300 is inf in complex64
        divided = release.xp.divide(make(z[:, None]), make(z[None, :]))
        _assert_identical(divided, np.divide(z[:, None], z[None, :]))
        _assert_identical(release.xp.reciprocal(make(z)), np.reciprocal(z))
        inverse = release.xp.reciprocal(make(np.asarray([complex(INF, 0)], dtype=dtype)))
    assert inverse[0] == 0 and np.signbit(inverse[0].imag)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_divide_takes_python_scalars_and_out(release: Any, dtype: str) -> None:
    z = np.asarray([1 + 2j, complex(-INF, 0.0), complex(0.0, -0.0), complex(NAN, 1.0)], dtype)
    with np.errstate(all="ignore"):
        for scalar in (2, -0.5, complex(INF, 0.0), 0j):
            _assert_identical(release.xp.divide(make(z), scalar), np.divide(z, scalar))
            _assert_identical(release.xp.divide(scalar, make(z)), np.divide(scalar, z))
        target = make(z)
        result = release.xp.divide(target, make(z[::-1]), out=target)
        assert result is target
        _assert_identical(target, np.divide(z, z[::-1]))
        target = make(z)
        assert release.xp.reciprocal(target, out=target) is target
        _assert_identical(target, np.reciprocal(z))


def test_real_divide_and_reciprocal_are_cupys_own(release: Any) -> None:
    x = np.asarray([1.0, -0.0, INF, NAN], dtype="float32")
    with np.errstate(all="ignore"):
        _assert_identical(release.xp.divide(make(x), 0.5), np.divide(x, np.float32(0.5)))
        _assert_identical(release.xp.reciprocal(make(x)), np.reciprocal(x))
    _assert_identical(release.xp.divide(make(np.asarray([7, 2])), 2), np.asarray([3.5, 1.0]))


def _bit_patterns(dtype: str) -> np.ndarray:
    """Floats of ``dtype`` by their bits: zeros, subnormals, extremes, NaNs, random."""
    size = np.dtype(dtype).itemsize
    sign = 1 << (8 * size - 1)
    info = np.finfo(dtype)
    tiny = int(np.asarray(info.tiny, dtype).view(f"u{size}"))
    edges = [0, 1, 2, tiny - 1, tiny, tiny + 1]
    edges += [int(np.asarray(v, dtype).view(f"u{size}")) for v in (1.0, info.max, INF, NAN)]
    edges += [bits | sign for bits in edges]
    random = RNG.integers(0, 2 * sign, 64, dtype=np.uint64).tolist()
    return np.asarray(edges + random, dtype=np.uint64).astype(f"u{size}").view(dtype)


def _assert_same_floats(result: Any, expected: np.ndarray) -> None:
    """The same bits, except that NaNs need only both be NaN."""
    result = np.asarray(result)
    assert result.dtype == expected.dtype
    size = expected.dtype.itemsize
    same = result.view(f"u{size}") == expected.view(f"u{size}")
    assert (same | (np.isnan(result) & np.isnan(expected))).all()


def test_the_stand_in_flushes_float32_subnormals_in_nextafter_as_cupy_does(release: Any) -> None:
    zero = make(np.zeros(1, dtype="float32"))
    assert release.cupy.nextafter(zero, np.float32(1))[0] == 0
    assert np.isnan(release.cupy.nextafter(make(np.asarray([INF], "float16")), 0.0)[0])


def test_the_stand_in_flushes_float32_subnormals_in_rounding_and_squares(release: Any) -> None:
    x = np.asarray([-1e-40, 1e-40, -1e-20, -2.5], dtype="float32")
    _assert_identical(release.cupy.floor(make(x)), np.asarray([-0.0, 0, -1, -3], "float32"))
    _assert_identical(release.cupy.sign(make(x)), np.asarray([0.0, 0, -1, -1], "float32"))
    np.testing.assert_array_equal(release.cupy.square(make(x)), [0, 0, 0, 6.25])
    np.testing.assert_array_equal(release.cupy.floor(make(x.astype("float64"))), [-1, 0, -1, -3])


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_nextafter_steps_to_the_neighbouring_float_as_numpy(release: Any, dtype: str) -> None:
    x = _bit_patterns(dtype)
    result = release.xp.nextafter(make(x[:, None]), make(x[None, :]))
    _assert_same_floats(result, _nextafter_model(x[:, None], x[None, :]))


def _nextafter_model(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
    """NumPy's nextafter with the standard's (and C's) x1 == x2 gives x2, which
    NumPy's float16 kernel follows only from NumPy 2.5."""
    x1, x2 = np.broadcast_arrays(x1, x2)
    with np.errstate(all="ignore"):
        return np.where(x1 == x2, x2, np.nextafter(x1, x2))


def test_nextafter_reaches_the_smallest_float32_subnormal(release: Any) -> None:
    x = make(np.asarray([0.0, -0.0, 0.0, 1e-45, -1e-45], dtype="float32"))
    result = release.xp.nextafter(x, make(np.asarray([1, -1, -0.0, 0, 0], dtype="float32")))
    smallest = np.float32(1e-45)
    np.testing.assert_array_equal(result, [smallest, -smallest, -0.0, 0.0, -0.0])
    assert np.signbit(result).tolist() == [False, True, True, False, True]


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_nextafter_takes_python_scalars_and_out(release: Any, dtype: str) -> None:
    x = np.asarray([0.0, -0.0, 1.0, INF, NAN, -2.5], dtype=dtype)
    for scalar in (1, -1.0, 0.0, INF):
        value = np.asarray(scalar, dtype=dtype)
        expected, reflected = _nextafter_model(x, value), _nextafter_model(value, x)
        _assert_same_floats(release.xp.nextafter(make(x), scalar), expected)
        _assert_same_floats(release.xp.nextafter(scalar, make(x)), reflected)
    target = make(x)
    assert release.xp.nextafter(target, make(x[::-1]), out=target) is target
    _assert_same_floats(target, _nextafter_model(x, x[::-1]))
    assert release.xp.nextafter(make(x[:1]), 1.0).shape == (1,)


def test_the_stand_in_floor_divides_floats_as_cupys_kernel_does(release: Any) -> None:
    # cupy/_core/include/cupy/carray.cuh: floor(x / y); x % y is x - floor(x / y) * y
    np.testing.assert_array_equal(release.cupy.floor_divide(make([1.0]), 0.1), [10.0])
    assert np.isnan(release.cupy.remainder(make([1.0]), INF)[0])


# Pairs where NumPy's divmod and floor(x / y) part: x / y rounds up to an integer.
ROUNDED_UP = ([1.0, -1.0, 7.0, 5.5, 1e-300, -3.0, 0.3], [0.1, 0.1, -0.3, 1.1, 3.0, 0.7, 0.1])


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_floor_divide_and_remainder_are_numpys_divmod(release: Any, dtype: str) -> None:
    with np.errstate(all="ignore"):
        special = np.asarray(SPECIAL, dtype=dtype)
        pairs = [(special[:, None], special[None, :])]
        pairs.append(tuple(np.asarray(values, dtype=dtype) for values in ROUNDED_UP))
        cpu = NUMPY_BACKEND.xp
        for a, b in pairs:
            quotient = release.xp.floor_divide(make(a), make(b))
            _assert_identical(quotient, cpu.floor_divide(a, b))
            _assert_identical(release.xp.remainder(make(a), make(b)), np.remainder(a, b))


def test_floor_divide_gives_the_true_quotient_where_one_operand_is_infinite(
    release: Any,
) -> None:
    x1 = make([INF, -INF, 1.0, -1.0, INF, 7.0])
    with np.errstate(all="ignore"):
        result = release.xp.floor_divide(x1, make([2.0, 2.0, -INF, INF, INF, 2.0]))
        remainder = release.xp.remainder(make([1.0, -1.0, 0.0, -0.0, INF]), INF)
    _assert_identical(result, np.asarray([INF, -INF, -0.0, -0.0, NAN, 3.0]))
    _assert_identical(remainder, np.asarray([1.0, INF, 0.0, 0.0, NAN]))


@pytest.mark.parametrize("name", ["floor_divide", "remainder"])
def test_floor_divide_and_remainder_take_python_scalars_and_out(release: Any, name: str) -> None:
    function, reference = getattr(release.xp, name), getattr(NUMPY_BACKEND.xp, name)
    x = np.asarray([1.0, -1.0, 0.0, -0.0, 7.5, INF, NAN], dtype="float32")
    with np.errstate(all="ignore"):
        for scalar in (0.1, -3, 0.0, INF):
            value = np.float32(scalar)
            _assert_identical(function(make(x), scalar), reference(x, value))
            _assert_identical(function(scalar, make(x)), reference(value, x))
        target = make(x)
        assert function(target, make(x[::-1]), out=target) is target
        _assert_identical(target, reference(x, x[::-1]))
    integers = np.asarray([7, -7, 0], dtype="int16")
    _assert_identical(function(make(integers), 2), reference(integers, np.int16(2)))


def test_the_stand_in_computes_complex_expm1_as_exp_minus_one_as_cupy_does(
    release: Any,
) -> None:
    # cupy/_core/include/cupy/complex.cuh: expm1(z) is exp(z) - 1
    result = release.cupy.expm1(make(np.asarray([1e-10 + 0j])))[0]
    assert abs(result.real - 1e-10) > 1e-18


@pytest.mark.parametrize(("dtype", "rtol"), [("complex64", 1e-6), ("complex128", 1e-15)])
def test_complex_expm1_keeps_the_digits_of_a_small_argument(
    release: Any, dtype: str, rtol: float
) -> None:
    z = np.asarray([1e-10 + 0j, 1e-8j, 1e-12 + 1e-12j, -3e-9 + 2e-9j, 1e-5 - 1e-6j], dtype=dtype)
    result = release.xp.expm1(make(z))
    assert result.dtype == z.dtype
    np.testing.assert_allclose(result, np.expm1(z), rtol=rtol, atol=0)


# Relative tolerances of complex expm1 against the NumPy backend's: the same
# formula, with math functions that may differ from NumPy's in the last place.
EXPM1_RTOL = {"complex64": 1e-6, "complex128": 1e-13}


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_expm1_is_the_numpy_backends_on_special_values(release: Any, dtype: str) -> None:
    with np.errstate(all="ignore"):
        z = np.asarray(SPECIAL_COMPLEX, dtype)  # with both signed zeros
        result = np.asarray(release.xp.expm1(make(z)))
        expected = NUMPY_BACKEND.xp.expm1(z)
    assert result.dtype == expected.dtype
    for got, want in ((result.real, expected.real), (result.imag, expected.imag)):
        np.testing.assert_allclose(got, want, rtol=EXPM1_RTOL[dtype], atol=0, equal_nan=True)
        numbers = ~np.isnan(want)
        np.testing.assert_array_equal(np.signbit(got[numbers]), np.signbit(want[numbers]))


def test_real_expm1_is_cupys_own(release: Any) -> None:
    x = np.asarray([1e-10, -0.0, INF, -INF, NAN], dtype="float32")
    _assert_identical(release.xp.expm1(make(x)), np.expm1(x))


# -- 6. CuPy's 1-D float sort orders NaNs by their bits ------------------------------


def test_the_stand_in_sorts_1d_floats_by_their_bits_as_cupy_does(release: Any) -> None:
    # cupy/cuda/cupy_thrust.cu: a radix sort for 1-D float32/float64
    model = nans_and_numbers("float64")
    assert release.cupy.argsort(make(model)).tolist()[:2] == [7, 1]  # before -inf
    assert not release.cupy.isin(make(np.asarray(1.0)), make(model[:3]))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sort_keeps_the_bits_of_nans_last_in_index_order(release: Any, dtype: str) -> None:
    model = nans_and_numbers(dtype)
    result = release.xp.sort(make(model))
    np.testing.assert_array_equal(result[:6], np.sort(model)[:6])
    assert bits(result[6:]) == bits(model[1:8:2])
    order = release.xp.argsort(make(model))
    np.testing.assert_array_equal(order, np.argsort(model, stable=True))


def test_sorts_that_cupy_does_not_radix_sort_are_cupys_own(release: Any) -> None:
    two_d = np.stack([nans_and_numbers("float64")] * 2)
    np.testing.assert_array_equal(release.xp.sort(make(two_d), axis=1), np.sort(two_d, axis=1))
    np.testing.assert_array_equal(release.xp.argsort(make(two_d), axis=0), [[0] * 10, [1] * 10])
    integers = np.asarray([3, -1, 2], dtype="int16")
    np.testing.assert_array_equal(release.xp.sort(make(integers)), [-1, 2, 3])
    empty = release.xp.sort(make(np.zeros(0, dtype="float32")))
    assert empty.shape == (0,) and empty.dtype == np.float32


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_unique_functions_count_each_nan_once_after_the_numbers(release: Any, dtype: str) -> None:
    model = nans_and_numbers(dtype).reshape(2, 5)
    expected = np.unique_all(model)
    results = {
        "unique_all": release.xp.unique_all(make(model)),
        "unique_counts": release.xp.unique_counts(make(model)),
        "unique_inverse": release.xp.unique_inverse(make(model)),
    }
    for result in results.values():
        assert bits(result.values[-4:]) == bits(model.ravel()[1:8:2])
        for field in result._fields:
            np.testing.assert_array_equal(getattr(result, field), getattr(expected, field))
    assert results["unique_inverse"].inverse_indices.shape == (2, 5)
    values = release.xp.unique_values(make(model))
    assert bits(values) == bits(results["unique_all"].values)
    zero_d = release.xp.unique_all(make(np.asarray(NAN, dtype=dtype)))
    assert zero_d.inverse_indices.shape == () and np.isnan(zero_d.values).all()


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128", "int32"])
def test_isin_finds_numbers_among_nans_of_any_sign(release: Any, dtype: str) -> None:
    x2 = np.asarray([2, 7, 1]) if dtype == "int32" else nans_and_numbers("float64")[:3]
    if dtype == "float32":
        x2 = nans_and_numbers(dtype)[:3]
    x2 = x2.astype(dtype)
    x1 = np.asarray([1, 2, 3, -1], dtype=dtype)
    for invert in (False, True):
        result = release.xp.isin(make(x1), make(x2), invert=invert)
        np.testing.assert_array_equal(result, np.isin(x1, x2, invert=invert))
