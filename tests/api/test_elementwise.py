"""Element-wise functions against NumPy: values, dtypes, edge inputs, value semantics."""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np
import pytest
from _compare import assert_matches, assert_value, host, strided
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.array_api import make_strategies_namespace

import cowarray as ca

xps = make_strategies_namespace(ca)

NAN, INF = math.nan, math.inf
FLOATS = [-INF, -2.5, -1.0, -0.5, -0.0, 0.0, 0.25, 0.5, 1.0, 2.5, 1e300, INF, NAN]
UNIT = [-1.0, -0.5, -0.0, 0.0, 0.5, 1.0, NAN, INF]
COMPLEX = [1 + 2j, -0.5 - 1j, 0j, complex(INF, 1), complex(NAN, 0)]
INTS = [-7, -1, 0, 1, 3, 100]

# name -> (NumPy function, sample values, dtypes to try)
UNARY = {
    "acos": (np.arccos, UNIT, ["float32", "float64", "complex128"]),
    "acosh": (np.arccosh, FLOATS, ["float64", "complex64"]),
    "asin": (np.arcsin, UNIT, ["float64"]),
    "asinh": (np.arcsinh, FLOATS, ["float32", "complex128"]),
    "atan": (np.arctan, FLOATS, ["float64"]),
    "atanh": (np.arctanh, UNIT, ["float64"]),
    "ceil": (np.ceil, FLOATS, ["float32", "float64"]),
    "conj": (np.conj, COMPLEX, ["complex64", "complex128"]),
    "cosh": (np.cosh, FLOATS, ["float64"]),
    "expm1": (np.expm1, FLOATS, ["float64", "float32"]),  # complex: see the special cases
    "floor": (np.floor, FLOATS, ["float64"]),
    "isfinite": (np.isfinite, FLOATS, ["float64", "complex128"]),
    "isinf": (np.isinf, FLOATS, ["float32"]),
    "isnan": (np.isnan, FLOATS, ["float64"]),
    "log1p": (np.log1p, FLOATS, ["float64"]),
    "log2": (np.log2, FLOATS, ["float64"]),
    "log10": (np.log10, FLOATS, ["float32"]),
    "logical_not": (np.logical_not, [True, False], ["bool"]),
    "reciprocal": (np.reciprocal, FLOATS, ["float64", "complex128"]),
    "round": (np.round, [0.5, 1.5, 2.5, -0.5, -1.7, NAN, INF], ["float64"]),
    "sign": (np.sign, FLOATS, ["float64"]),
    "signbit": (np.signbit, FLOATS, ["float64"]),
    "sinh": (np.sinh, FLOATS, ["float64"]),
    "square": (np.square, FLOATS, ["float64", "complex128"]),
    "tan": (np.tan, FLOATS, ["float64"]),
    "tanh": (np.tanh, FLOATS, ["float64", "float32"]),  # complex: see the special cases
    "trunc": (np.trunc, FLOATS, ["float64"]),
}

INTEGER_UNARY = {
    "ceil": np.ceil,
    "floor": np.floor,
    "trunc": np.trunc,
    "round": np.round,
    "sign": np.sign,
    "square": np.square,
    "isnan": np.isnan,
    "isfinite": np.isfinite,
}

BINARY = {
    "atan2": np.arctan2,
    "copysign": np.copysign,
    "hypot": np.hypot,
    "logaddexp": np.logaddexp,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "nextafter": np.nextafter,
}

LOGICAL = {
    "logical_and": np.logical_and,
    "logical_or": np.logical_or,
    "logical_xor": np.logical_xor,
}

CASES = [(name, dtype) for name, (_, _, dtypes) in UNARY.items() for dtype in dtypes]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize(("name", "dtype"), CASES)
def test_unary_matches_numpy_on_special_values(
    name: str, dtype: str, backend_device: ca.Device
) -> None:
    reference, values, _ = UNARY[name]
    model = np.asarray(values, dtype=dtype)
    with np.errstate(all="ignore"):
        expected = reference(model)
        result = getattr(ca, name)(ca.asarray(model, device=backend_device))
    assert_matches(result, expected)
    assert result.device == backend_device


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_on_empty_zero_d_and_strided_inputs(name: str, backend_device: ca.Device) -> None:
    reference, values, dtypes = UNARY[name]
    dtype = dtypes[0]
    function = getattr(ca, name)
    empty = np.empty((0, 3), dtype=dtype)
    with np.errstate(all="ignore"):
        assert_matches(function(ca.asarray(empty, device=backend_device)), reference(empty))
        zero_d = np.asarray(values[0], dtype=dtype)
        assert_matches(function(ca.asarray(zero_d, device=backend_device)), reference(zero_d))
        model = np.asarray([values, values], dtype=dtype)
        x = strided(model, device=backend_device)
        result = function(x)
        assert_matches(result, reference(model))
    assert result.device == backend_device
    assert_value(result, x)


@pytest.mark.parametrize("name", sorted(INTEGER_UNARY))
@pytest.mark.parametrize("dtype", ["int8", "uint16", "int64"])
def test_unary_on_integers_keeps_numpy_results(
    name: str, dtype: str, backend_device: ca.Device
) -> None:
    values = [v for v in INTS if np.dtype(dtype).kind == "i" or v >= 0]
    model = np.asarray(values, dtype=dtype)
    x = ca.asarray(model, device=backend_device)
    assert_matches(getattr(ca, name)(x), INTEGER_UNARY[name](model))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_binary_matches_numpy_with_broadcasting(
    name: str, dtype: str, backend_device: ca.Device
) -> None:
    a = np.asarray(FLOATS, dtype=dtype)[:, None]
    b = np.asarray(FLOATS[::-1], dtype=dtype)[None, :]
    with np.errstate(all="ignore"):
        expected = BINARY[name](a, b)
        result = getattr(ca, name)(
            ca.asarray(a, device=backend_device), ca.asarray(b, device=backend_device)
        )
    # logaddexp(-1, -0.5) cancels (-0.5 + 0.474): one ulp of difference in a
    # GPU's float32 exp or log1p is then ~20 ulp of the result. float64 keeps
    # that well inside its tolerance; the largest finite float32 input is 2.5.
    cancels = name == "logaddexp" and dtype == "float32" and backend_device.kind == "cuda"
    assert_matches(result, expected, atol=4 * np.finfo(np.float32).eps * 2.5 if cancels else 0.0)
    assert result.device == backend_device


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_takes_python_scalars_weakly(name: str, backend_device: ca.Device) -> None:
    model = np.asarray([0.5, -2.0], dtype="float32")
    x = ca.asarray(model, device=backend_device)
    assert_matches(getattr(ca, name)(x, 1.5), BINARY[name](model, np.float32(1.5)))
    assert_matches(getattr(ca, name)(2, x), BINARY[name](np.float32(2), model))


@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_maximum_minimum_on_mixed_integers_promote_as_the_standard(
    name: str, backend_device: ca.Device
) -> None:
    a = np.asarray([1, -5, 7], dtype="int8")
    b = np.asarray([3, 2, 200], dtype="uint8")
    result = getattr(ca, name)(
        ca.asarray(a, device=backend_device), ca.asarray(b, device=backend_device)
    )
    assert_matches(result, BINARY[name](a, b))
    assert result.dtype == ca.int16


@pytest.mark.parametrize("name", sorted(LOGICAL))
def test_logical_functions_on_booleans(name: str, backend_device: ca.Device) -> None:
    a = np.asarray([True, True, False, False])
    b = np.asarray([True, False, True, False])
    x, y = ca.asarray(a, device=backend_device), ca.asarray(b, device=backend_device)
    assert_matches(getattr(ca, name)(x, y), LOGICAL[name](a, b))
    assert_matches(getattr(ca, name)(x, True), LOGICAL[name](a, True))


@pytest.mark.parametrize(
    ("name", "x"),
    [
        ("logical_and", ca.asarray([1, 2])),
        ("logical_not", ca.asarray([0.0])),
        ("hypot", ca.asarray([1, 2])),
        ("signbit", ca.asarray([1, 2])),
        ("expm1", ca.asarray([1, 2])),
        ("imag", ca.asarray([1.0])),
        ("ceil", ca.asarray([1j])),
        ("maximum", ca.asarray([1j])),
    ],
)
def test_functions_refuse_dtypes_outside_their_category(name: str, x: ca.Array) -> None:
    function = getattr(ca, name)
    before = host(x)
    with pytest.raises(TypeError, match=name):
        if name in BINARY or name in LOGICAL:
            function(x, x)
        else:
            function(x)
    np.testing.assert_array_equal(host(x), before)


def test_binary_functions_promote_a_float_scalar_with_an_integer_array() -> None:
    # design rule 11: NumPy 2's result across kinds (the scalar is weak: float64)
    result = ca.maximum(ca.asarray([1, 2], dtype=ca.int8), 1.5)
    assert_matches(result, np.maximum(np.asarray([1, 2], dtype=np.int8), 1.5))
    assert result.dtype == ca.float64


def test_binary_functions_promote_mixed_kind_arrays_as_numpy() -> None:
    result = ca.minimum(ca.asarray([1], dtype=ca.int16), ca.asarray([1.5], dtype=ca.float16))
    assert result.dtype == ca.float32 == np.result_type(np.int16, np.float16)
    # the category applies to the promoted dtype: atan2 of int with float is float
    assert ca.atan2(ca.asarray([1]), ca.asarray([1.0])).dtype == ca.float64
    with pytest.raises(TypeError, match="real floating-point"):
        ca.atan2(ca.asarray([1]), ca.asarray([True]))


def test_binary_functions_refuse_arrays_on_different_devices() -> None:
    with pytest.raises(ValueError, match="device"):
        ca.hypot(ca.asarray([1.0]), ca.asarray([1.0], device="cpu:1"))


def test_elementwise_results_are_independent_values(backend_device: ca.Device) -> None:
    x = ca.asarray([1.0, 4.0, 9.0], device=backend_device)
    for result in (ca.square(x), ca.hypot(x, 1.0), ca.round(x), ca.conj(x)):
        assert result.device == backend_device
        assert not ca.shares_buffer(result, x)
        assert_value(result, x)


# -- real, imag, conj ---------------------------------------------------------


def test_real_and_imag_of_complex_are_lazy_views_that_stay_values(
    backend_device: ca.Device,
) -> None:
    model = np.asarray([1 + 2j, 3 - 4j], dtype="complex64")
    z = ca.asarray(model, device=backend_device)
    re, im = ca.real(z), ca.imag(z)
    assert_matches(re, model.real)
    assert_matches(im, model.imag)
    assert ca.shares_buffer(re, z)
    assert ca.shares_buffer(im, z)
    im[0] = 100.0
    assert_matches(z, model)
    assert_matches(re, model.real)
    z[1] = 0j
    assert_matches(re, model.real)
    assert_matches(im, np.asarray([100.0, -4.0], dtype="float32"))


@pytest.mark.parametrize("dtype", ["float32", "int16", "uint8"])
def test_real_of_a_real_array_is_a_lazy_clone(dtype: str, backend_device: ca.Device) -> None:
    x = ca.asarray([1, 2], dtype=dtype, device=backend_device)
    result = ca.real(x)
    assert result is not x
    assert result.device == backend_device
    assert ca.shares_buffer(result, x)
    assert_value(result, x)
    y = ca.asarray([1, 2], dtype=dtype, device=backend_device)
    assert_matches(ca.conj(y), np.asarray([1, 2], dtype=dtype))


# -- clip ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lo", "hi"),
    [(0, 5), (None, 5), (-2, None), (2.5, 3.5), (NAN, None), (None, NAN), (4, 1)],
)
def test_clip_with_scalar_bounds_matches_numpy(
    lo: float | None, hi: float | None, backend_device: ca.Device
) -> None:
    model = np.asarray([-3.0, 0.0, 2.0, 9.0, NAN, -INF])
    expected = np.clip(model, lo, hi)
    x = ca.asarray(model, device=backend_device)
    assert_matches(ca.clip(x, lo, hi), expected)
    assert_matches(ca.clip(x, min=lo, max=hi), expected)


def test_clip_with_array_bounds_broadcasts(backend_device: ca.Device) -> None:
    model = np.arange(12, dtype="int32").reshape(3, 4)
    lo = np.asarray([1, 2, 3, 4], dtype="int32")
    hi = np.asarray([[5], [6], [7]], dtype="int32")
    x, low, high = (ca.asarray(a, device=backend_device) for a in (model, lo, hi))
    result = ca.clip(x, low, high)
    assert_matches(result, np.clip(model, lo, hi))
    assert result.device == backend_device


def test_clip_keeps_the_input_dtype_and_saturates_out_of_range_bounds(
    backend_device: ca.Device,
) -> None:
    model = np.asarray([-100, 0, 100], dtype="int8")
    x = ca.asarray(model, device=backend_device)
    result = ca.clip(x, -1000, 50)
    assert_matches(result, np.asarray([-100, 0, 50], dtype="int8"))
    assert_matches(ca.clip(x, 1000), np.asarray([127] * 3, dtype="int8"))


def test_clip_without_bounds_is_an_independent_equal_value(backend_device: ca.Device) -> None:
    x = ca.asarray([1.0, 2.0], device=backend_device)
    result = ca.clip(x)
    assert_matches(result, [1.0, 2.0])
    assert result.device == backend_device
    assert_value(result, x)


def test_clip_refuses_bad_bounds() -> None:
    x = ca.asarray([1, 2, 3])
    with pytest.raises(TypeError, match="min"):
        ca.clip(x, "0")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="clip"):
        ca.clip(ca.asarray([1.0]), ca.asarray([1j]))
    with pytest.raises(TypeError, match="clip"):
        ca.clip(ca.asarray([1j]), 0)
    np.testing.assert_array_equal(host(x), [1, 2, 3])


def test_clip_with_a_bound_of_another_kind_promotes_as_numpy() -> None:
    # design rule 11: the standard leaves mixed kinds to the library
    data = np.asarray([-2, 0, 7], dtype=np.int8)
    x = ca.asarray(data)
    assert_matches(ca.clip(x, 0.5, 2.5), np.clip(data, 0.5, 2.5))
    assert_matches(ca.clip(x, ca.asarray([0.5])), np.clip(data, np.asarray([0.5]), None))
    assert_matches(ca.clip(x, 0, 5), np.clip(data, 0, 5))  # one kind: x's dtype
    assert ca.clip(x, max=ca.asarray([2], dtype=ca.int16)).dtype == ca.int8  # the standard's


# -- properties ---------------------------------------------------------------


# backend_device is a constant per test case, not state to reset between examples;
# @given's strategies fill the rightmost arguments, so data comes after it.
SETTINGS = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _arrays_for(device: ca.Device, dtypes: st.SearchStrategy[Any]) -> st.SearchStrategy[ca.Array]:
    """Arrays of ``dtypes`` to compute with on ``device``: no subnormals on a GPU.

    CuPy compiles its kernels with ``-ftz=true``, which flushes float32
    subnormals to zero: ``floor(-1e-40)`` is -0.0 there (NumPy: -1.0) and
    ``sign(-1e-40)`` is 0, so NumPy's results do not hold for them (docs/gpu.md).
    """
    elements = {"allow_subnormal": False} if device.kind == "cuda" else None
    return xps.arrays(dtype=dtypes, shape=xps.array_shapes(max_dims=3), elements=elements)


@SETTINGS
@given(data=st.data())
def test_trunc_floor_ceil_bracket_the_input(backend_device: ca.Device, data: st.DataObject) -> None:
    x = data.draw(_arrays_for(backend_device, xps.floating_dtypes())).to_device(backend_device)
    model = host(x)
    assert_matches(ca.trunc(x), np.trunc(model))
    assert_matches(ca.floor(x), np.floor(model))
    assert_matches(ca.ceil(x), np.ceil(model))


@SETTINGS
@given(data=st.data())
def test_sign_and_square_match_numpy_on_any_real_array(
    backend_device: ca.Device, data: st.DataObject
) -> None:
    x = data.draw(_arrays_for(backend_device, xps.real_dtypes())).to_device(backend_device)
    model = host(x)
    # A float32 square below float32's smallest normal is a subnormal NumPy
    # keeps and a GPU flushes to zero (-ftz); the inputs were normal.
    flushed = backend_device.kind == "cuda" and model.dtype == np.float32
    with np.errstate(all="ignore"):
        assert_matches(ca.sign(x), np.sign(model))
        assert_matches(
            ca.square(x), np.square(model), atol=np.finfo(np.float32).tiny if flushed else 0.0
        )


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_sign_is_zero_at_zero_and_x_over_its_magnitude_elsewhere(
    dtype: str, backend_device: ca.Device
) -> None:
    # Infinite parts are left out: the standard defers them to complex
    # division, where NumPy and CuPy differ.
    model = np.asarray([0j, complex(-0.0, -0.0), 3 + 4j, -2j, complex(NAN, 1.0)], dtype=dtype)
    with np.errstate(all="ignore"):
        expected = np.sign(model)
    assert_matches(ca.sign(ca.asarray(model, device=backend_device)), expected)


# -- special cases NumPy gets differently from the standard -------------------


# (inf // inf is NaN, with NumPy's own "invalid value" warning on the host)
@pytest.mark.filterwarnings("ignore:invalid value encountered in floor_divide:RuntimeWarning")
def test_floor_divide_gives_the_true_quotient_where_one_operand_is_infinite(
    backend_device: ca.Device,
) -> None:
    x1 = ca.asarray([INF, INF, -INF, -INF, 1.0, -1.0, 7.0, INF], device=backend_device)
    x2 = ca.asarray([2.0, -2.0, 2.0, -2.0, -INF, INF, 2.0, INF], device=backend_device)
    result = host(ca.floor_divide(x1, x2))
    np.testing.assert_array_equal(result, [INF, -INF, -INF, INF, -0.0, -0.0, 3.0, NAN])
    assert np.signbit(result[4:6]).all()
    assert_matches(x1 // 2.0, np.asarray([INF, INF, -INF, -INF, 0.0, -1.0, 3.0, INF]))


def test_in_place_floor_divide_follows_the_same_special_cases(
    backend_device: ca.Device,
) -> None:
    x = ca.asarray([INF, 1.0, 9.0], dtype=ca.float32, device=backend_device)
    x //= ca.asarray([-3.0, -INF, 2.0], dtype=ca.float32, device=backend_device)
    assert x.device == backend_device
    result = host(x)
    np.testing.assert_array_equal(result, np.asarray([-INF, -0.0, 4.0], dtype="float32"))
    assert np.signbit(result[1])
    y = ca.asarray(-INF, device=backend_device)
    y //= 2.0
    assert float(y) == -INF


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_floor_divide_and_remainder_are_pythons_divmod(
    dtype: str, backend_device: ca.Device
) -> None:
    # 1.0 / 0.1 rounds up to 10.0, but 0.1 is a little more than a tenth
    a = np.asarray([1.0, -1.0, 7.0, 0.3, 1.0, -1.0, 0.0, -0.0], dtype=dtype)
    b = np.asarray([0.1, 0.1, -0.3, 0.1, INF, INF, -INF, INF], dtype=dtype)
    x1, x2 = ca.asarray(a, device=backend_device), ca.asarray(b, device=backend_device)
    with np.errstate(all="ignore"):
        quotient = np.where(np.isinf(b), a / b, np.floor_divide(a, b))
        remainder = np.remainder(a, b)
    assert_matches(x1 // x2, quotient, exact=True)
    assert np.signbit(host(x1 // x2)).tolist() == np.signbit(quotient).tolist()
    assert_matches(x1 % x2, remainder, exact=True)
    assert np.signbit(host(x1 % x2)).tolist() == np.signbit(remainder).tolist()
    assert_matches(1.0 % x2[:4], np.remainder(np.asarray(1.0, dtype), b[:4]), exact=True)
    x1 %= x2
    assert_matches(x1, remainder, exact=True)


def test_floor_divide_on_integers_is_unchanged(backend_device: ca.Device) -> None:
    x = ca.asarray([7, -7], device=backend_device)
    assert_matches(ca.floor_divide(x, 2), np.asarray([3, -4]))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_complex_expm1_has_the_standard_special_values(
    backend_device: ca.Device,
) -> None:
    z = ca.asarray(
        [complex(INF, 0), complex(-INF, INF), complex(INF, INF), complex(-INF, NAN),
         complex(NAN, 0), complex(-INF, 1.0), 1j],
        device=backend_device,
    )  # fmt: skip
    result = host(ca.expm1(z))
    assert result[0] == complex(INF, 0)
    assert result[1].real == -1.0 and result[1].imag == 0.0
    assert result[2].real == INF and math.isnan(result[2].imag)
    assert result[3].real == -1.0 and result[3].imag == 0.0
    assert math.isnan(result[4].real) and result[4].imag == 0.0
    np.testing.assert_allclose(result[5:], np.exp(np.asarray([complex(-INF, 1.0), 1j])) - 1)


def test_complex_expm1_of_a_signed_zero_has_a_positive_zero_real_part(
    backend_device: ca.Device,
) -> None:
    z = ca.asarray([complex(-0.0, 0.0), complex(-0.0, -0.0)], device=backend_device)
    result = host(ca.expm1(z))
    assert not np.signbit(result.real).any()
    assert np.signbit(result.imag).tolist() == [False, True]


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_expm1_of_a_small_argument_keeps_its_digits(
    dtype: str, backend_device: ca.Device
) -> None:
    # exp(z) - 1 cancels them: relative errors up to 8e-8 in complex128, and
    # up to 1 (all of them) in complex64
    model = np.asarray([1e-10 + 0j, 1e-8j, -3e-9 + 2e-9j, 1e-5 - 1e-6j], dtype=dtype)
    assert_matches(ca.expm1(ca.asarray(model, device=backend_device)), np.expm1(model))


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_tanh_at_infinity_takes_the_sign_of_the_imaginary_part(
    dtype: str, backend_device: ca.Device
) -> None:
    z = ca.asarray(
        [complex(INF, 2.0), complex(INF, -2.0), complex(-INF, 2.0), complex(-INF, -2.0)],
        dtype=dtype,
        device=backend_device,
    )
    result = host(ca.tanh(z))
    assert result.dtype == np.dtype(dtype)
    assert result.real.tolist() == [1.0, 1.0, -1.0, -1.0]
    assert (result.imag == 0).all()
    assert np.signbit(result.imag).tolist() == [False, True, False, True]
    finite = np.asarray([0.5 + 0.5j, -1 - 2j], dtype=dtype)
    assert_matches(ca.tanh(ca.asarray(finite, device=backend_device)), np.tanh(finite))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_division_by_an_infinite_number_gives_numpys_signed_zeros(
    dtype: str, backend_device: ca.Device
) -> None:
    model = np.asarray([1 + 1j, -2 + 0.5j, complex(INF, 1.0), 0j], dtype=dtype)
    divisor = np.asarray([complex(INF, 0.0), complex(-INF, 0.0), 2j, complex(0.0, -INF)], dtype)
    with np.errstate(all="ignore"):
        quotient, inverse = np.divide(model, divisor), np.reciprocal(divisor)
    x = ca.asarray(model, device=backend_device)
    y = ca.asarray(divisor, device=backend_device)
    assert_matches(x / y, quotient, exact=True)
    assert_matches(ca.reciprocal(y), inverse, exact=True)
    assert np.signbit(host(ca.reciprocal(y)).imag).tolist() == np.signbit(inverse.imag).tolist()
    assert_matches(1 / y, inverse, exact=True)
    x /= y
    assert_matches(x, quotient, exact=True)


@pytest.mark.parametrize(
    "dtype", ["bool", "int8", "uint16", "int64", "float16", "float32", "float64", "complex64"]
)
@pytest.mark.parametrize("scalar", [1.5, 2, True, 0.5j], ids=["float", "int", "bool", "complex"])
def test_operators_with_a_python_scalar_give_numpys_dtype(dtype: str, scalar: object) -> None:
    # (a Python float with a floating array skips the promotion table's
    # lookup in scalar_result_dtype: that shortcut must give the table's
    # answer, NumPy 2's)
    if dtype == "bool" and scalar is True:
        pytest.skip("the standard's arithmetic refuses booleans (NumPy's add is logical or)")
    model = np.asarray([1, 2], dtype=dtype)
    x = ca.asarray(model)
    for op in (operator.add, operator.mul, operator.sub, operator.truediv):
        for left, right, a, b in ((x, scalar, model, scalar), (scalar, x, scalar, model)):
            try:
                with np.errstate(all="ignore"):
                    expected = op(a, b)
            except TypeError:
                with pytest.raises(TypeError):
                    op(left, right)
                continue
            result = op(left, right)
            assert result.dtype == expected.dtype, (op, left, right)
            assert_matches(result, expected)
