"""``out=`` on the element-wise functions, as NumPy's ufuncs take it (cowarray/_ops/_out.py).

Every function that takes ``out=`` is compared with NumPy's: the values
written, the object returned (``out`` itself), which out dtypes are taken
(NumPy's casting rule for that function), an ``out`` that shares its buffer
(its clone keeps its values), an ``out`` that is one of the inputs
(``ca.clip(V, 0, 1, out=V)``), and every refusal (type, shape, dtype,
device), which leaves every array as it was. Then a write into a view, and
the issue's port (Gray-Scott with ``xp.clip(V, 0, 1, out=V)``) run
unchanged on NumPy and cowarray.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _compare import assert_matches, host

import cowarray as ca
from cowarray import _checks
from cowarray._ops import elementwise

# -- inputs -----------------------------------------------------------------------

F = np.array([[0.25, -1.5, 2.0], [3.5, -0.75, 0.5]])
POSITIVE = np.abs(F) + 0.5
UNIT = np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]])
NAN = np.array([[0.25, np.nan, 2.0], [3.5, -0.75, np.nan]])
INF = np.array([[np.inf, -1.5, -np.inf], [3.5, np.inf, 0.5]])
INTS = np.array([[3, -1, 2], [0, 7, -4]])
SHIFTS = np.array([[1, 2, 3], [0, 1, 2]])
BOOLS = INTS > 0
COMPLEX = F + 1j * F[::-1]
INDICES = np.array([2, 0])

#: The element-wise functions whose NumPy namesake is not a ufunc without out=.
_NOT_UFUNCS = {"real", "imag", "clip", "round", "around"}

#: Inputs for element-wise functions with a narrower domain than F.
_DOMAIN = {
    "acos": UNIT,
    "asin": UNIT,
    "atanh": UNIT,
    "acosh": POSITIVE + 1.0,
    "log": POSITIVE,
    "log2": POSITIVE,
    "log10": POSITIVE,
    "log1p": POSITIVE,
    "sqrt": POSITIVE,
    "pow": POSITIVE,
    "bitwise_left_shift": SHIFTS,
    "bitwise_right_shift": SHIFTS,
}

Call = Callable[..., Any]


def _elementwise_inputs(name: str) -> list[np.ndarray]:
    category = _checks.CATEGORY[name]
    if name in _DOMAIN:
        data = _DOMAIN[name]
    elif "f" in category:
        data = F
    elif "i" in category:
        data = INTS
    else:
        data = BOOLS
    binary = "x2" in inspect.signature(getattr(ca, name)).parameters
    return [data, data[::-1].copy()] if binary else [data]


def _named(name: str) -> Call:
    def call(xp: Any, *args: Any, **kwargs: Any) -> Any:
        return getattr(xp, name)(*args, **kwargs)

    return call


#: id -> (NumPy inputs, call(xp, *inputs, **kwargs)); the call passes ``out=``
#: through ``kwargs``, on NumPy and on cowarray alike.
CASES: dict[str, tuple[list[np.ndarray], Call]] = {
    name: (_elementwise_inputs(name), _named(name))
    for name in elementwise.__all__
    if name not in _NOT_UFUNCS
}
CASES.update(
    {
        "clip": ([F], lambda xp, a, **k: xp.clip(a, 0, 1, **k)),
        "clip array bounds": ([F, UNIT], lambda xp, a, b, **k: xp.clip(a, b, 1.0, **k)),
        "round": ([F], lambda xp, a, **k: xp.round(a, **k)),
        "round decimals": ([F], lambda xp, a, **k: xp.round(a, decimals=1, **k)),
        "around": ([F], lambda xp, a, **k: xp.around(a, 1, **k)),
        "matmul": ([F, F.T.copy()], _named("matmul")),
        "vecdot": ([F, UNIT], _named("vecdot")),
    }
)

#: The dtypes an out is tried in (NumPy's casting rule decides which it takes).
OUT_DTYPES = [
    np.bool_,
    np.int8,
    np.int64,
    np.uint64,
    np.float16,
    np.float32,
    np.float64,
    np.complex64,
    np.complex128,
]


#: NumPy functions that take out= and drop it: numpy.fft.hfft calls
#: irfft(..., out=None) (NumPy 2.4), so its out keeps its values. cowarray
#: writes out as every other transform does; the rule is irfft's.
NUMPY_DROPS_OUT = {"fft.hfft": "fft.irfft"}


def _arrays(inputs: list[np.ndarray], device: ca.Device) -> list[ca.Array]:
    return [ca.asarray(a, device=device) for a in inputs]


def _quiet() -> Any:
    """NumPy's casts of NaN, infinities and complex numbers warn, here as there."""
    context = warnings.catch_warnings()
    context.__enter__()
    warnings.simplefilter("ignore")
    return context


def _result(case: str, device: ca.Device) -> ca.Array:
    inputs, call = CASES[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        result = call(ca, *_arrays(inputs, device))
    assert type(result) is ca.Array
    return result


def _numpy_into(case: str, out: np.ndarray, **kwargs: Any) -> Any:
    inputs, call = CASES[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(np, *[a.copy() for a in inputs], out=out, **kwargs)


def _unchanged(arrays: list[ca.Array], before: list[np.ndarray]) -> None:
    for array, values in zip(arrays, before, strict=True):
        np.testing.assert_array_equal(host(array), values)


# -- the values, the object returned, a shared out ----------------------------------


@pytest.mark.parametrize("case", CASES)
def test_out_gets_numpys_values_and_is_returned(case: str, backend_device: ca.Device) -> None:
    inputs, call = CASES[case]
    expected = _result(case, backend_device)
    out = ca.zeros(expected.shape, dtype=expected.dtype, device=backend_device)
    clone = ca.lazy_clone(out)  # a value sharing out's buffer keeps its values
    arrays = _arrays(inputs, backend_device)
    before = [host(a) for a in arrays]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        returned = call(ca, *arrays, out=out)
    assert returned is out
    numpy_out = np.zeros(expected.shape, dtype=expected.dtype)
    numpy_returned = _numpy_into(case, numpy_out)
    if case in NUMPY_DROPS_OUT:
        numpy_out = numpy_returned
    assert numpy_returned is numpy_out
    assert_matches(out, numpy_out)
    assert_matches(out, host(expected))
    assert_matches(clone, np.zeros(expected.shape, dtype=expected.dtype))
    assert not ca.shares_buffer(out, clone)
    _unchanged(arrays, before)


@pytest.mark.parametrize("case", CASES)
def test_out_takes_the_dtypes_numpys_function_takes(case: str) -> None:
    # The rule differs by function (ufuncs: same_kind; most reductions:
    # unsafe; dot: none; take and argmax: out's dtype must cast safely to
    # the result's); each is NumPy's. A taken dtype holds the result, cast.
    inputs, call = CASES[case]
    expected = _result(case, ca.Device("cpu"))
    ruled_by = NUMPY_DROPS_OUT.get(case, case)
    shape = _result(ruled_by, ca.Device("cpu")).shape
    for dtype in OUT_DTYPES:
        try:
            _numpy_into(ruled_by, np.zeros(shape, dtype=dtype))
            numpy_takes = True
        except (TypeError, ValueError):
            numpy_takes = False
        out = ca.zeros(expected.shape, dtype=dtype)
        arrays = _arrays(inputs, ca.Device("cpu"))
        context = _quiet()
        try:
            call(ca, *arrays, out=out)
            takes = True
        except TypeError as error:
            assert "out has dtype" in str(error) and "pass an out of dtype" in str(error)
            takes = False
        finally:
            context.__exit__(None, None, None)
        assert takes == numpy_takes, (case, np.dtype(dtype).name, numpy_takes)
        if takes:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                cast = host(expected).astype(dtype)
            np.testing.assert_array_equal(host(out), cast)
        else:
            np.testing.assert_array_equal(host(out), np.zeros(expected.shape, dtype=dtype))


def _alias_slots(case: str) -> list[Any]:
    inputs, _ = CASES[case]
    expected = _result(case, ca.Device("cpu"))
    return [
        pytest.param(case, slot, id=f"{case}-{slot}")
        for slot, a in enumerate(inputs)
        if a.shape == expected.shape and a.dtype == expected.dtype
    ]


@pytest.mark.parametrize(("case", "slot"), [p for case in CASES for p in _alias_slots(case)])
def test_out_that_is_an_input_gives_numpys_values(case: str, slot: int) -> None:
    inputs, call = CASES[case]
    arrays = _arrays(inputs, ca.Device("cpu"))
    others = [host(a) for a in arrays]
    copies = [a.copy() for a in inputs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        returned = call(ca, *arrays, out=arrays[slot])
        call(np, *copies, out=copies[slot])
    assert returned is arrays[slot]
    assert_matches(arrays[slot], copies[slot])
    for position, (array, values) in enumerate(zip(arrays, others, strict=True)):
        if position != slot:
            np.testing.assert_array_equal(host(array), values)


def test_clip_into_its_input_as_the_ports_write_it() -> None:
    V = ca.asarray([-0.5, 0.25, 1.5])
    before = ca.lazy_clone(V)
    with ca.trace() as t:
        assert ca.clip(V, 0, 1, out=V) is V
    assert V.tolist() == [0.0, 0.25, 1.0]
    assert before.tolist() == [-0.5, 0.25, 1.5]
    assert t.copies == 1  # V shared its buffer with before: V copied, before kept
    with ca.trace() as t:
        ca.clip(V, 0.5, 1, out=V)  # V holds its buffer alone: written in place
    assert t.copies == 0 and V.tolist() == [0.5, 0.5, 1.0]


def test_an_input_twice_and_as_out() -> None:
    x = ca.asarray([1.0, 2.0, 3.0])
    assert ca.multiply(x, x, out=x) is x
    assert x.tolist() == [1.0, 4.0, 9.0]
    x = ca.asarray([[1.0, 2.0], [3.0, 4.0]])
    a = np.asarray([[1.0, 2.0], [3.0, 4.0]])
    ca.matmul(x, x, out=x)
    np.matmul(a, a, out=a)
    assert_matches(x, a)


# -- refusals: every array as it was ---------------------------------------------


def _wrong_shape(shape: tuple[int, ...]) -> tuple[int, ...]:
    """A shape no result of ``shape`` fits, nor broadcasts to."""
    return (*shape[:-1], shape[-1] + 1) if shape else (2,)


def _refused_dtype(case: str, shape: tuple[int, ...]) -> Any:
    case = NUMPY_DROPS_OUT.get(case, case)
    shape = _result(case, ca.Device("cpu")).shape
    for dtype in OUT_DTYPES:
        try:
            _numpy_into(case, np.zeros(shape, dtype=dtype))
        except (TypeError, ValueError):  # (numpy.dot says ValueError)
            return dtype
    return None


def _wrong_outs(case: str, device: ca.Device) -> dict[str, tuple[Any, type, str]]:
    """kind -> (out, the error, words it says)."""
    expected = _result(case, device)
    shape, dtype = expected.shape, expected.dtype
    other = ca.Device("cpu:1" if device.kind == "cpu" else "cpu")
    wrong: dict[str, tuple[Any, type, str]] = {
        "list": ([0.0], TypeError, "out must be a cowarray Array"),
        "ndarray": (np.zeros(shape, dtype), TypeError, "got a numpy.ndarray"),
        "pair": (
            (ca.zeros(shape, dtype=dtype), ca.zeros(shape, dtype=dtype)),
            TypeError,
            "out",
        ),
        "shape": (ca.zeros(_wrong_shape(shape), dtype=dtype, device=device), ValueError, "shape"),
        "device": (ca.zeros(shape, dtype=dtype, device=other), ValueError, f"out is on {other}"),
    }
    refused = _refused_dtype(case, shape)
    if refused is not None:
        wrong["dtype"] = (ca.zeros(shape, dtype=refused, device=device), TypeError, "dtype")
    return wrong


@pytest.mark.parametrize("case", CASES)
def test_a_refused_out_raises_in_cowarrays_words_and_changes_nothing(
    case: str, backend_device: ca.Device
) -> None:
    inputs, call = CASES[case]
    for kind, (out, error, words) in _wrong_outs(case, backend_device).items():
        arrays = _arrays(inputs, backend_device)
        outs = [o for o in (out if isinstance(out, tuple) else (out,)) if type(o) is ca.Array]
        clones = [ca.lazy_clone(o) for o in outs]
        before = [host(a) for a in [*arrays, *outs, *clones]]
        with pytest.raises(error, match=words) as caught:
            call(ca, *arrays, out=out)
        message = str(caught.value)
        assert "out" in message and "pass" in message, (kind, message)
        _unchanged([*arrays, *outs, *clones], before)
        if isinstance(out, np.ndarray):
            assert not out.any()


# -- NumPy's ufunc forms: casting=, a one-entry tuple, an out the result broadcasts to


def test_casting_unsafe_lets_a_ufunc_truncate_into_an_integer_out() -> None:
    x = ca.asarray([1.5, -2.5, 3.7])
    out = ca.zeros(3, dtype=ca.int64)
    with pytest.raises(TypeError, match="or casting='unsafe' to cast anyway"):
        ca.multiply(x, 2.0, out=out)
    assert ca.multiply(x, 2.0, out=out, casting="unsafe") is out
    expected = np.multiply(host(x), 2.0, out=np.zeros(3, np.int64), casting="unsafe")
    np.testing.assert_array_equal(host(out), expected)
    with pytest.raises(TypeError, match="'safe' rule"):
        ca.clip(x, 0, 1, out=ca.zeros(3, dtype=ca.float32), casting="safe")


@pytest.mark.parametrize(
    "call",
    [
        lambda out: ca.add(ca.ones(2), 1.0, out=out, casting="sometimes"),
        lambda out: ca.clip(ca.ones(2), 0, 1, out=out, casting="sometimes"),
    ],
)
def test_an_unknown_casting_names_numpys_rules(call: Call) -> None:
    out = ca.zeros(2)
    with pytest.raises(ValueError, match="casting must be one of 'no', 'equiv'"):
        call(out)
    assert out.tolist() == [0.0, 0.0]


def test_a_ufunc_takes_a_one_entry_tuple_and_an_out_the_result_broadcasts_to() -> None:
    x = ca.asarray([1.0, 2.0, 3.0])
    out = ca.zeros(3)
    assert ca.exp(x, out=(out,)) is out
    assert_matches(out, np.exp(host(x)))
    wide = ca.zeros((2, 3))
    assert ca.add(x, 1.0, out=wide) is wide
    assert_matches(wide, np.add(host(x), 1.0, out=np.zeros((2, 3))))
    with pytest.raises(ValueError, match=r"\(or one it broadcasts to\)"):
        ca.add(wide, 1.0, out=ca.zeros(3))


def test_out_none_is_the_default() -> None:
    x = ca.asarray([1.0, 2.0])
    assert ca.add(x, x, out=None) is not x


# -- a view as out: a value too, and the write warns ---------------------------------


def test_an_out_that_views_a_live_array_changes_the_view_and_warns_at_the_call() -> None:
    z = ca.zeros((2, 3))
    x = ca.ones(3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        row = z[0]
        ca.add(x, x, out=row)
    assert row.tolist() == [2.0, 2.0, 2.0]
    assert z.tolist() == [[0.0] * 3] * 2  # z is a value: write z[0] = ca.add(x, x)
    warned = [w for w in caught if issubclass(w.category, ca.ViewWriteWarning)]
    assert warned and warned[0].filename == __file__


# -- the port: Gray-Scott written for NumPy, run unchanged -------------------


def _gray_scott(xp: Any, n: int = 24, steps: int = 25) -> tuple[Any, Any]:
    du, dv, feed, kill = 0.16, 0.08, 0.035, 0.065
    U = xp.ones((n, n))
    V = xp.zeros((n, n))
    U[n // 2 - 3 : n // 2 + 3, n // 2 - 3 : n // 2 + 3] = 0.5
    V[n // 2 - 3 : n // 2 + 3, n // 2 - 3 : n // 2 + 3] = 0.25
    for _ in range(steps):
        Lu = (
            xp.roll(U, 1, axis=0)
            + xp.roll(U, -1, axis=0)
            + xp.roll(U, 1, axis=1)
            + xp.roll(U, -1, axis=1)
            - 4 * U
        )
        Lv = (
            xp.roll(V, 1, axis=0)
            + xp.roll(V, -1, axis=0)
            + xp.roll(V, 1, axis=1)
            + xp.roll(V, -1, axis=1)
            - 4 * V
        )
        uvv = U * V * V
        U += du * Lu - uvv + feed * (1 - U)
        V += dv * Lv + uvv - (feed + kill) * V
        xp.clip(U, 0, 1, out=U)
        xp.clip(V, 0, 1, out=V)
    return U, V


def test_the_gray_scott_port_runs_unchanged_with_numpys_values() -> None:
    expected_u, expected_v = _gray_scott(np)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with ca.trace() as t:
            U, V = _gray_scott(ca)
    np.testing.assert_array_equal(host(U), expected_u)
    np.testing.assert_array_equal(host(V), expected_v)
    assert t.copies == 0  # U and V hold their buffers alone: clip writes them in place
