"""``out=`` wherever NumPy's function of the same name takes it (cowarray/_ops/_out.py).

Every function that takes ``out=`` is compared with NumPy's: the values
written, the object returned (``out`` itself), which out dtypes are taken
(NumPy's casting rule for that function), an ``out`` that shares its buffer
(its clone keeps its values), an ``out`` that is one of the inputs
(``ca.clip(V, 0, 1, out=V)``), and every refusal (type, shape, dtype,
device), which leaves every array as it was. Then the array methods, the
positions of ``out`` in the NumPy-named extras, the Generator's ``out=``,
a write into a view, and the issue's port (Gray-Scott with
``xp.clip(V, 0, 1, out=V)``) run unchanged on NumPy and cowarray.
"""

from __future__ import annotations

import inspect
import types
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
        "power": ([POSITIVE, F], _named("power")),
        "float_power": ([POSITIVE, F], _named("float_power")),
        "isposinf": ([INF], _named("isposinf")),
        "isneginf": ([INF], _named("isneginf")),
        "sum": ([F], lambda xp, a, **k: xp.sum(a, axis=0, **k)),
        "sum all": ([F], lambda xp, a, **k: xp.sum(a, **k)),
        "sum keepdims": ([F], lambda xp, a, **k: xp.sum(a, axis=1, keepdims=True, **k)),
        "prod": ([F], lambda xp, a, **k: xp.prod(a, axis=1, **k)),
        "mean": ([F], lambda xp, a, **k: xp.mean(a, axis=0, **k)),
        "std": ([F], lambda xp, a, **k: xp.std(a, axis=0, **k)),
        "var": ([F], lambda xp, a, **k: xp.var(a, axis=1, **k)),
        "max": ([F], lambda xp, a, **k: xp.max(a, axis=0, **k)),
        "min": ([F], lambda xp, a, **k: xp.min(a, **k)),
        "argmax": ([F], lambda xp, a, **k: xp.argmax(a, axis=1, **k)),
        "argmin": ([F], lambda xp, a, **k: xp.argmin(a, axis=0, **k)),
        "any": ([BOOLS], lambda xp, a, **k: xp.any(a, axis=0, **k)),
        "all": ([F], lambda xp, a, **k: xp.all(a, axis=1, **k)),
        "cumulative_sum": ([F], lambda xp, a, **k: xp.cumulative_sum(a, axis=0, **k)),
        "cumulative_prod": ([INTS], lambda xp, a, **k: xp.cumulative_prod(a, axis=1, **k)),
        "cumsum": ([F], lambda xp, a, **k: xp.cumsum(a, **k)),
        "cumprod": ([INTS], lambda xp, a, **k: xp.cumprod(a, axis=0, **k)),
        "nancumsum": ([NAN], lambda xp, a, **k: xp.nancumsum(a, axis=1, **k)),
        "nancumprod": ([NAN], lambda xp, a, **k: xp.nancumprod(a, axis=0, **k)),
        "nansum": ([NAN], lambda xp, a, **k: xp.nansum(a, axis=0, **k)),
        "nanprod": ([NAN], lambda xp, a, **k: xp.nanprod(a, axis=1, **k)),
        "nanmean": ([NAN], lambda xp, a, **k: xp.nanmean(a, axis=1, **k)),
        "nanmean of integers": ([INTS], lambda xp, a, **k: xp.nanmean(a, axis=0, **k)),
        "nanvar": ([NAN], lambda xp, a, **k: xp.nanvar(a, axis=1, **k)),
        "nanstd": ([NAN], lambda xp, a, **k: xp.nanstd(a, axis=1, **k)),
        "nanmin": ([NAN], lambda xp, a, **k: xp.nanmin(a, axis=1, **k)),
        "nanmax": ([NAN], lambda xp, a, **k: xp.nanmax(a, axis=1, **k)),
        "nanargmin": ([NAN], lambda xp, a, **k: xp.nanargmin(a, axis=1, **k)),
        "nanargmax": ([NAN], lambda xp, a, **k: xp.nanargmax(a, axis=1, **k)),
        "median": ([F], lambda xp, a, **k: xp.median(a, axis=0, **k)),
        "nanmedian": ([NAN], lambda xp, a, **k: xp.nanmedian(a, axis=1, **k)),
        "quantile": ([F], lambda xp, a, **k: xp.quantile(a, 0.3, axis=0, **k)),
        "percentile": ([F], lambda xp, a, **k: xp.percentile(a, 30.0, axis=1, **k)),
        "nanquantile": ([NAN], lambda xp, a, **k: xp.nanquantile(a, 0.3, axis=1, **k)),
        "nanpercentile": ([NAN], lambda xp, a, **k: xp.nanpercentile(a, 30.0, axis=1, **k)),
        "take": ([F, INDICES], lambda xp, a, i, **k: xp.take(a, i, axis=1, **k)),
        "concat": ([F, UNIT], lambda xp, a, b, **k: xp.concat([a, b], axis=1, **k)),
        "stack": ([F, UNIT], lambda xp, a, b, **k: xp.stack([a, b], axis=0, **k)),
        "matmul": ([F, F.T.copy()], _named("matmul")),
        "vecdot": ([F, UNIT], _named("vecdot")),
        "dot": ([F, F.T.copy()], _named("dot")),
        "outer": ([F[0].copy(), F[1].copy()], _named("outer")),
        "einsum": ([F, UNIT], lambda xp, a, b, **k: xp.einsum("ij,kj->ik", a, b, **k)),
        "fft.fft": ([COMPLEX], lambda xp, a, **k: xp.fft.fft(a, **k)),
        "fft.ifft": ([COMPLEX], lambda xp, a, **k: xp.fft.ifft(a, axis=0, **k)),
        "fft.fftn": ([COMPLEX], lambda xp, a, **k: xp.fft.fftn(a, **k)),
        "fft.ifftn": ([COMPLEX], lambda xp, a, **k: xp.fft.ifftn(a, **k)),
        "fft.rfft": ([F], lambda xp, a, **k: xp.fft.rfft(a, **k)),
        "fft.irfft": ([COMPLEX], lambda xp, a, **k: xp.fft.irfft(a, **k)),
        "fft.rfftn": ([F], lambda xp, a, **k: xp.fft.rfftn(a, **k)),
        "fft.irfftn": ([COMPLEX], lambda xp, a, **k: xp.fft.irfftn(a, **k)),
        "fft.hfft": ([COMPLEX], lambda xp, a, **k: xp.fft.hfft(a, **k)),
        "fft.ihfft": ([F], lambda xp, a, **k: xp.fft.ihfft(a, **k)),
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


def test_a_refused_out_that_is_an_input_changes_nothing() -> None:
    x = ca.asarray([[1.0, 2.0], [3.0, 4.0]])
    clone = ca.lazy_clone(x)
    with pytest.raises(ValueError, match=r"out has shape \(2, 2\), but the result has shape"):
        ca.sum(x, axis=0, out=x)
    with pytest.raises(TypeError, match="same_kind"):
        ca.add(x, 0.5, out=ca.asarray([[1, 2], [3, 4]]))
    with pytest.raises(TypeError, match="'no' rule"):
        ca.dot(x, x, out=ca.zeros((2, 2), dtype=ca.float32))
    assert x.tolist() == [[1.0, 2.0], [3.0, 4.0]] == clone.tolist()
    assert ca.shares_buffer(x, clone)  # nothing was even copied


def test_a_moved_out_says_it_was_moved() -> None:
    out = ca.zeros(3)
    ca.move(out)
    for call in (
        lambda: ca.add(ca.ones(3), 1.0, out=out),
        lambda: ca.sum(ca.ones(3), out=out),
        lambda: ca.random.default_rng(0).random(out=out),
    ):
        with pytest.raises(ValueError, match=r"was moved into another by cowarray\.move"):
            call()


# -- NumPy's ufunc forms: casting=, a one-entry tuple, an out the result broadcasts to


def test_casting_unsafe_lets_a_ufunc_truncate_into_an_integer_out() -> None:
    x = ca.asarray([1.5, -2.5, 3.7])
    out = ca.zeros(3, dtype=ca.int64)
    with pytest.raises(TypeError, match="or casting='unsafe' to cast anyway"):
        ca.multiply(x, 2.0, out=out)
    assert ca.multiply(x, 2.0, out=out, casting="unsafe") is out
    expected = np.multiply(host(x), 2.0, out=np.zeros(3, np.int64), casting="unsafe")
    np.testing.assert_array_equal(host(out), expected)
    joined = ca.zeros(6, dtype=ca.int64)
    ca.concat([x, x], out=joined, casting="unsafe")
    np.testing.assert_array_equal(host(joined), np.concat([host(x)] * 2).astype(np.int64))
    with pytest.raises(TypeError, match="'safe' rule"):
        ca.clip(x, 0, 1, out=ca.zeros(3, dtype=ca.float32), casting="safe")


@pytest.mark.parametrize(
    "call",
    [
        lambda out: ca.add(ca.ones(2), 1.0, out=out, casting="sometimes"),
        lambda out: ca.concat([ca.ones(1), ca.ones(1)], out=out, casting="sometimes"),
        lambda out: ca.einsum("i->i", ca.ones(2), out=out, casting="sometimes"),
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
    with pytest.raises(ValueError, match="out has shape"):
        ca.sum(wide, axis=0, out=ca.zeros((2, 3)))  # a reduction's out: its shape exactly


def test_out_none_is_the_default() -> None:
    x = ca.asarray([1.0, 2.0])
    assert ca.add(x, x, out=None) is not x
    assert ca.sum(x, out=None).item() == 3.0


# -- every function NumPy gives out= takes it -------------------------------------

#: cowarray names that are not NumPy's function of that name.
NOT_NUMPYS = {
    "trace": "ca.trace is cowarray's record of copies, not numpy.trace",
}


def _numpy_takes_out(function: Any) -> bool:
    if isinstance(function, np.ufunc):
        return True
    try:
        return "out" in inspect.signature(function).parameters
    except (TypeError, ValueError):  # a Cython method: its signature heads its docstring
        return "out=" in (function.__doc__ or "").strip().split("\n")[0]


def _pairs() -> list[tuple[str, Any, Any]]:
    pairs = []
    rng = ca.random.default_rng(0)
    for module, numpy_module, prefix in (
        (ca, np, "ca"),
        (ca.fft, np.fft, "ca.fft"),
        (ca.linalg, np.linalg, "ca.linalg"),
    ):
        for name in getattr(module, "__all__", None) or dir(module):
            value = getattr(module, name, None)
            if name.startswith("_") or not isinstance(value, types.FunctionType):
                continue
            if prefix == "ca.linalg" and getattr(ca, name, None) is value:
                continue  # (ca.linalg.matmul is ca.matmul, which is numpy.matmul)
            pairs.append((f"{prefix}.{name}", value, getattr(numpy_module, name, None)))
    for name in dir(ca.random.Generator):
        if not name.startswith("_"):
            numpy_method = getattr(np.random.Generator, name, None)
            pairs.append((f"rng.{name}", getattr(rng, name), numpy_method))
    return pairs


def _takes_out(function: Any) -> bool:
    """Whether ``function`` takes an Array as ``out`` (``reshape``'s ``out: None``
    is the hint policy's refusal, spelled in its signature)."""
    try:
        parameter = inspect.signature(function).parameters.get("out")
    except (TypeError, ValueError):
        return False
    return parameter is not None and parameter.annotation != "None"


def test_every_function_whose_numpy_namesake_takes_out_takes_it() -> None:
    missing, extra = [], []
    for name, function, numpy_function in _pairs():
        if name.rsplit(".", 1)[1] in NOT_NUMPYS or name == "ca.sharing_picture":
            continue
        numpy_takes = numpy_function is not None and _numpy_takes_out(numpy_function)
        if numpy_takes and not _takes_out(function):
            missing.append(name)
        if _takes_out(function) and not numpy_takes:
            extra.append(name)
    assert missing == [] and extra == []


def test_the_enumeration_finds_the_functions_that_take_out() -> None:
    taking = [name for name, function, _ in _pairs() if _takes_out(function)]
    assert len(taking) > 110 and "ca.clip" in taking and "rng.random" in taking
    tested = {name.split(" ")[0] for name in CASES} | {"cumulative_sum"}
    untested = [
        name
        for name in taking
        if name.removeprefix("ca.") not in tested and not name.startswith("rng.")
    ]
    assert untested == []


@pytest.mark.parametrize("name", [n for n, f, _ in _pairs() if _takes_out(f)])
def test_the_docstring_says_out(name: str) -> None:
    function = dict((n, f) for n, f, _ in _pairs())[name]
    assert "out" in (function.__doc__ or ""), name
    parameter = inspect.signature(function).parameters["out"]
    assert parameter.default is None


# -- the array methods: NumPy's signatures, out positional too ----------------------

METHODS: dict[str, Callable[[Any, Any], Any]] = {
    "sum": lambda x, out: x.sum(0, None, out),
    "prod": lambda x, out: x.prod(1, None, out),
    "mean": lambda x, out: x.mean(0, None, out),
    "std": lambda x, out: x.std(0, None, out, 1),
    "var": lambda x, out: x.var(1, None, out),
    "max": lambda x, out: x.max(0, out),
    "min": lambda x, out: x.min(1, out),
    "argmax": lambda x, out: x.argmax(0, out),
    "argmin": lambda x, out: x.argmin(1, out),
    "any": lambda x, out: x.any(axis=0, out=out),  # (NumPy reads them positionally as dtype)
    "all": lambda x, out: x.all(axis=1, out=out, keepdims=True),
    "cumsum": lambda x, out: x.cumsum(0, None, out),
    "cumprod": lambda x, out: x.cumprod(1, None, out),
    "clip": lambda x, out: x.clip(0, 1, out),
    "round": lambda x, out: x.round(1, out),
    "dot": lambda x, out: x.dot(x.T, out),
}


@pytest.mark.parametrize("method", METHODS)
def test_a_method_writes_out_as_numpys_does(method: str) -> None:
    call = METHODS[method]
    expected = call(F.copy(), None)
    numpy_out = np.zeros_like(expected)
    call(F.copy(), numpy_out)
    x = ca.asarray(F)
    out = ca.zeros(expected.shape, dtype=expected.dtype)
    clone = ca.lazy_clone(out)
    assert call(x, out) is out
    assert_matches(out, numpy_out)
    assert not host(clone).any()
    np.testing.assert_array_equal(host(x), F)
    with pytest.raises(ValueError, match="out has shape"):
        call(x, ca.zeros(_wrong_shape(expected.shape), dtype=expected.dtype))


# -- where NumPy puts out positionally, the NumPy-named extras put it too -----------

POSITIONAL: dict[str, Callable[[Any, Any, Any], Any]] = {
    "cumsum": lambda xp, a, out: xp.cumsum(a, 0, None, out),
    "nancumprod": lambda xp, a, out: xp.nancumprod(a, 1, None, out),
    "nansum": lambda xp, a, out: xp.nansum(a, 0, None, out, True),
    "nanmean": lambda xp, a, out: xp.nanmean(a, 1, None, out),
    "nanvar": lambda xp, a, out: xp.nanvar(a, 1, None, out, 1),
    "nanmax": lambda xp, a, out: xp.nanmax(a, 0, out),
    "nanargmin": lambda xp, a, out: xp.nanargmin(a, 0, out),
    "median": lambda xp, a, out: xp.median(a, 0, out),
    "quantile": lambda xp, a, out: xp.quantile(a, 0.25, 1, out),
    "around": lambda xp, a, out: xp.around(a, 1, out),
    "dot": lambda xp, a, out: xp.dot(a, a.T, out),
    "outer": lambda xp, a, out: xp.outer(a[0], a[1], out),
    "isposinf": lambda xp, a, out: xp.isposinf(a, out),
}


@pytest.mark.parametrize("name", POSITIONAL)
def test_out_goes_where_numpy_puts_it(name: str) -> None:
    call = POSITIONAL[name]
    data = INF if name == "isposinf" else NAN if name.startswith("nan") else F
    expected = np.asarray(call(np, data.copy(), None))
    numpy_out = np.zeros_like(expected)
    call(np, data.copy(), numpy_out)
    out = ca.zeros(expected.shape, dtype=expected.dtype)
    assert call(ca, ca.asarray(data), out) is out
    assert_matches(out, numpy_out)


# -- the Generator: out gives the size, and a refused out draws nothing ---------------


@pytest.mark.parametrize("method", ["random", "standard_normal"])
def test_a_generator_fills_out_with_numpys_stream(method: str) -> None:
    rng = ca.random.default_rng(7)
    out = ca.zeros((2, 3))
    clone = ca.lazy_clone(out)
    assert getattr(rng, method)(out=out) is out
    numpy_out = np.zeros((2, 3))
    getattr(np.random.default_rng(7), method)(out=numpy_out)
    assert_matches(out, numpy_out)
    assert not host(clone).any()
    single = ca.zeros(3, dtype=ca.float32)
    getattr(rng, method)(3, dtype=ca.float32, out=single)
    numpy_single = np.zeros(3, dtype=np.float32)
    numpy_rng = np.random.default_rng(7)
    getattr(numpy_rng, method)(out=np.zeros((2, 3)))
    getattr(numpy_rng, method)(3, dtype=np.float32, out=numpy_single)
    assert_matches(single, numpy_single)


@pytest.mark.parametrize("method", ["random", "standard_normal"])
def test_a_refused_generator_out_draws_nothing(method: str) -> None:
    rng = ca.random.default_rng(3)
    out = ca.zeros(2)
    for call, error, words in (
        (lambda: getattr(rng, method)(out=ca.zeros(2, dtype=ca.float32)), TypeError, "dtype"),
        (lambda: getattr(rng, method)(3, out=out), ValueError, "size"),
        (lambda: getattr(rng, method)(out=[0.0, 0.0]), TypeError, "cowarray Array"),
        (lambda: getattr(rng, method)(out=ca.zeros(2, device="cpu:1")), ValueError, "cpu:1"),
    ):
        with pytest.raises(error, match=words):
            call()
    assert out.tolist() == [0.0, 0.0]
    first = getattr(rng, method)(2)
    assert_matches(first, getattr(np.random.default_rng(3), method)(2))


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
