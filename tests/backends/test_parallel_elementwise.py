"""Element-wise ufuncs split over threads give NumPy's bits, errors and layouts.

Every test here runs with the threshold at 0 and at least two threads, so
arrays of two elements or more are split (``cowarray/_backends/_parallel.py``);
the helper ``splits`` proves that a call really went through the pool.
"""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import threading
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import cowarray as ca
from cowarray._backends import _parallel, _reuse
from cowarray._backends.numpy import _PARALLEL, NUMPY_BACKEND

xp = NUMPY_BACKEND.xp
UNARY = sorted(name for name, f in _PARALLEL.items() if f.nin == 1)
BINARY = sorted(name for name, f in _PARALLEL.items() if f.nin == 2)
DTYPES = ["bool", "int8", "uint8", "int32", "int64", "uint64", "float16", "float32", "float64"]
DTYPES += ["complex64", "complex128"]


@pytest.fixture(autouse=True)
def every_array_splits() -> Iterator[None]:
    """Threshold 0 and two threads or more for each test; the settings come back after."""
    threads, threshold = ca.get_num_threads(), ca.get_parallel_threshold()
    ca.set_num_threads(max(2, threads))
    ca.set_parallel_threshold(0)
    try:
        yield
    finally:
        ca.set_num_threads(threads)
        ca.set_parallel_threshold(threshold)


class _Splits:
    """Counts the calls that were split into blocks."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        real = _parallel._compute

        def counting(*args: Any, **kwargs: Any) -> None:
            self.count += 1
            real(*args, **kwargs)

        monkeypatch.setattr(_parallel, "_compute", counting)


@pytest.fixture
def splits(monkeypatch: pytest.MonkeyPatch) -> _Splits:
    return _Splits(monkeypatch)


def _values(dtype: str, shape: tuple[int, ...], seed: int) -> np.ndarray:
    """Values of ``dtype`` with the special ones: NaN, infinities, signed zeros, extremes."""
    rng = np.random.default_rng(seed)
    size = int(np.prod(shape))
    kind = np.dtype(dtype).kind
    if kind == "b":
        return rng.integers(0, 2, size).astype(bool).reshape(shape)
    if kind in "iu":
        info = np.iinfo(dtype)
        values = rng.integers(max(info.min, -50), min(info.max, 50), size, endpoint=True)
        values = values.astype(dtype)
        values[::17] = info.max
        values[5::23] = info.min
        return values.reshape(shape)
    real = rng.standard_normal(size) * rng.choice([1e-3, 1.0, 30.0, 1e4], size)
    real[::11] = np.nan
    real[3::13] = np.inf
    real[4::19] = -np.inf
    real[6::7] = -0.0
    real[8::29] = 0.0
    with np.errstate(all="ignore"):
        if kind == "c":
            imag = rng.standard_normal(size)
            imag[2::31] = np.nan
            imag[9::37] = np.inf
            return (real + 1j * imag).astype(dtype).reshape(shape)
        return real.astype(dtype).reshape(shape)


def _shift_operand(name: str, x: np.ndarray) -> np.ndarray:
    # shifts by at least the bit width differ between C and NumPy: keep them small
    return np.abs(x) % 7 if "shift" in name and x.dtype.kind in "iu" else x


def _same(result: Any, expected: Any) -> None:
    """Bitwise equality, NaN payloads included, with NumPy's dtype, shape and strides
    (or the same exception type, where NumPy raised)."""
    if isinstance(expected, type):
        assert result is expected
        return
    assert type(result) is type(expected)
    result, expected = np.asarray(result), np.asarray(expected)
    assert result.dtype == expected.dtype
    assert result.shape == expected.shape
    assert result.strides == expected.strides
    np.testing.assert_array_equal(
        np.ascontiguousarray(result).view(np.uint8), np.ascontiguousarray(expected).view(np.uint8)
    )


def _both(function: Callable[..., Any], ufunc: Any, *args: Any) -> tuple[Any, Any]:
    """``function(*args)`` and ``ufunc(*args)``, or the exception each raised (by type)."""
    outcome = []
    for f in (function, ufunc):
        try:
            with np.errstate(all="ignore"):
                outcome.append(f(*args))
        except Exception as error:
            outcome.append(type(error))
    return outcome[0], outcome[1]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", UNARY)
def test_unary_ufuncs_give_numpys_bits(name: str, dtype: str, splits: _Splits) -> None:
    ufunc = getattr(np, name)
    for x in (
        _values(dtype, (40_001,), 1),
        _values(dtype, (61, 67), 2),
        _values(dtype, (300, 7), 3)[::3, ::-2],
        _values(dtype, (30, 40), 4).T,
    ):
        result, expected = _both(_PARALLEL[name], ufunc, x)
        _same(result, expected)
        assert splits.count > 0 or isinstance(expected, type)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", BINARY)
def test_binary_ufuncs_give_numpys_bits(name: str, dtype: str, splits: _Splits) -> None:
    ufunc = getattr(np, name)
    x = _values(dtype, (129, 211), 5)
    pairs = [
        (x, _shift_operand(name, _values(dtype, (129, 211), 6))),  # same shape, contiguous
        (x, _shift_operand(name, _values(dtype, (211,), 7))),  # a broadcast row
        (_values(dtype, (129, 1), 8), _shift_operand(name, _values(dtype, (1, 211), 9))),
        (x[::2, 1::3], _shift_operand(name, x[1::2, ::3])),  # strided
        (x.T, _shift_operand(name, _values(dtype, (129,), 10))),  # transposed
    ]
    for a, b in pairs:
        result, expected = _both(_PARALLEL[name], ufunc, a, b)
        _same(result, expected)
        assert splits.count > 0 or isinstance(expected, type)


@pytest.mark.parametrize("name", ["add", "multiply", "divide", "pow", "maximum", "less"])
@pytest.mark.parametrize(
    ("dtype", "scalar"),
    [("uint8", 3), ("int16", -7), ("float32", 2.5), ("float64", -0.0), ("complex64", 1j)],
)
def test_python_scalars_on_either_side_promote_as_in_numpy(
    name: str, dtype: str, scalar: complex
) -> None:
    x = _values(dtype, (5_001,), 11)
    ufunc = getattr(np, name)
    for args in ((x, scalar), (scalar, x), (x, np.float32(2.0)), (x, np.asarray(3, dtype))):
        _same(*_both(_PARALLEL[name], ufunc, *args))


@pytest.mark.parametrize(
    ("a", "b"),
    [("int32", "float64"), ("uint8", "int8"), ("float32", "float64"), ("int64", "complex64")],
)
def test_mixed_dtypes_promote_and_cast_as_in_numpy(a: str, b: str) -> None:
    x, y = _values(a, (3_001, 3), 12), _values(b, (3,), 13)
    for name in ("add", "multiply", "maximum", "equal", "hypot", "atan2"):
        _same(*_both(_PARALLEL[name], getattr(np, name), x, y))


def test_zero_d_empty_and_one_element_arrays_are_numpys() -> None:
    cases = [
        (np.float64(2.0), np.asarray(3.0)),
        (np.asarray(2.0), np.asarray(3.0)),
        (np.zeros(0), np.zeros(0)),
        (np.zeros((0, 5)), np.ones(5)),
        (np.ones((4, 0)), 2.0),
        (np.ones(1), np.ones((1, 1))),
        (np.asarray(1.5), np.arange(10.0)),
    ]
    for a, b in cases:
        _same(xp.add(a, b), np.add(a, b))
        _same(xp.sin(a), np.sin(a))


def test_an_out_of_range_python_int_raises_numpys_error() -> None:
    x = np.zeros(10_000, np.uint8)
    with pytest.raises(OverflowError, match="out of bounds for uint8"):
        xp.add(x, 300)
    with pytest.raises(TypeError, match="not supported for the input types"):
        xp.sin(np.full(100, "a"))
    with pytest.raises(TypeError, match="not supported for the input types"):
        xp.hypot(np.ones(100, np.int64), np.ones(100, np.complex64))


def test_the_output_takes_numpys_memory_layout() -> None:
    c = _values("float64", (20, 30, 40), 14)
    for a in (np.asfortranarray(c), c.transpose(2, 0, 1), c[::-1, :, ::2], c[:, None, 0, :]):
        _same(*_both(xp.exp, np.exp, a))
        _same(*_both(xp.add, np.add, a, 1.0))
        _same(*_both(xp.multiply, np.multiply, a, a))
    f = np.asfortranarray(c)
    _same(*_both(xp.subtract, np.subtract, f, c))
    _same(*_both(xp.add, np.add, c[:, :1, :], c[:1, :, :]))


def test_given_out_is_written_in_blocks_and_returned(splits: _Splits) -> None:
    x, y = _values("float64", (100_000,), 15), _values("float64", (100_000,), 16)
    expected = np.add(x, y)
    out = np.empty_like(x)
    assert xp.add(x, y, out=out) is out
    _same(out, expected)
    # in place: the output is the first input, element for element
    np.add(x, y, out=x)
    z = _values("float64", (100_000,), 15)
    xp.add(z, y, out=z)
    _same(z, x)
    assert splits.count == 2


def test_an_out_of_the_wrong_shape_gets_numpys_error() -> None:
    x = np.ones(10_000)
    with pytest.raises(ValueError, match="could not be broadcast"):
        xp.add(x, x, out=np.empty(5_000))
    with pytest.raises(ValueError, match="non-broadcastable output"):
        xp.sin(x, out=np.empty((2, 10_000))[:, :1])


def test_an_out_that_overlaps_an_input_partly_is_one_numpy_call(splits: _Splits) -> None:
    x, y = np.arange(100_000.0), np.arange(100_000.0)
    xp.add(x[1:], x[:-1], out=x[1:])
    np.add(y[1:], y[:-1], out=y[1:])
    _same(x, y)
    assert splits.count == 0


def test_the_ufuncs_methods_stay_reachable() -> None:
    x = np.arange(10.0)
    assert xp.add.reduce(x) == 45.0
    assert xp.add.nin == 2 and xp.sin.nin == 1
    assert xp.add.__wrapped__ is np.add
    assert xp.multiply.outer(x[:2], x[:3]).shape == (2, 3)


# -- through cowarray -------------------------------------------------------------


def test_functions_and_operators_on_arrays_match_numpy(splits: _Splits) -> None:
    a, b, c = (_values("float64", (200_000,), seed) for seed in (17, 18, 19))
    x, y, z = ca.asarray(a), ca.asarray(b), ca.asarray(c)
    with np.errstate(all="ignore"):
        _same(np.asarray(ca.sin(x)), np.sin(a))
        _same(np.asarray(ca.exp(x)), np.exp(a))
        _same(np.asarray(x * y + z), a * b + c)
        _same(np.asarray(x / 3.0 - y), a / 3.0 - b)
        _same(np.asarray(x < y), a < b)
    assert splits.count == 7


def test_in_place_operators_on_big_arrays_go_through_the_pool(splits: _Splits) -> None:
    a, b = _values("float64", (1 << 17,), 20), _values("float64", (1 << 17,), 21)
    x, y = ca.asarray(a), ca.asarray(b)
    keep = ca.lazy_clone(x)
    with np.errstate(all="ignore"):
        x += y
        x *= 2.0
        expected = (a + b) * 2.0
    _same(np.asarray(x), expected)
    _same(np.asarray(keep), a)  # the clone kept its value
    assert splits.count >= 2


# -- errors -----------------------------------------------------------------------


def _divide_by_zero() -> tuple[np.ndarray, np.ndarray]:
    x = np.ones(50_000)
    y = np.ones(50_000)
    y[-3] = 0.0  # in the last block only
    return x, y


def test_errstate_raise_around_a_split_divide_raises_in_the_caller(splits: _Splits) -> None:
    x, y = _divide_by_zero()
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError) as raised:
        xp.divide(x, y)
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError) as numpys:
        np.divide(x, y)
    assert str(raised.value) == str(numpys.value) == "divide by zero encountered in divide"
    assert splits.count == 1


def test_errstate_warn_warns_once_naming_the_callers_line() -> None:
    x, y = _divide_by_zero()
    y[0] = 0.0  # the first block too
    z = np.zeros(50_000)
    z[10] = np.inf
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with np.errstate(all="warn"):
            xp.divide(x, y)
            line = sys._getframe().f_lineno - 1
            xp.subtract(z, z)  # invalid: inf - inf
            np.divide(x, y)
            np.subtract(z, z)
    ours, numpys = caught[:2], caught[2:]
    assert [str(w.message) for w in ours] == [str(w.message) for w in numpys]
    assert [w.category for w in ours] == [RuntimeWarning, RuntimeWarning]
    assert ours[0].filename == __file__ and ours[0].lineno == line


def test_warnings_turned_into_errors_raise_as_numpys_do() -> None:
    x, y = _divide_by_zero()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RuntimeWarning, match="divide by zero encountered in divide"):
            xp.divide(x, y)


def test_call_log_print_and_ignore_do_what_numpy_does(capfd: pytest.CaptureFixture[str]) -> None:
    x = np.ones(50_000)
    y = x.copy()
    y[7] = 0.0
    y[-1] = 0.0
    y[-2] = np.nan
    x[-2] = np.inf
    big = np.full(50_000, 1e308)

    def reports(function: Callable[..., Any]) -> list[tuple[str, int]]:
        seen: list[tuple[str, int]] = []
        with np.errstate(all="call", call=lambda kind, flags: seen.append((kind, flags))):
            function(x, y)
            function(big, 10.0)
        return seen

    assert reports(xp.divide) == reports(np.divide)

    class Log:
        def __init__(self) -> None:
            self.lines: list[str] = []

        def write(self, text: str) -> None:
            self.lines.append(text)

    logs = [Log(), Log()]
    for log, function in zip(logs, (xp.divide, np.divide), strict=True):
        with np.errstate(all="log", call=log):
            function(x, y)
    assert logs[0].lines == logs[1].lines and logs[0].lines

    capfd.readouterr()
    with np.errstate(all="print"):
        xp.divide(x, y)
    ours = capfd.readouterr().err
    with np.errstate(all="print"):
        np.divide(x, y)
    assert ours == capfd.readouterr().err != ""

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="ignore"):
            xp.divide(x, y)


def test_the_callers_error_state_is_left_as_it_was() -> None:
    x, y = _divide_by_zero()
    with np.errstate(divide="raise", over="ignore", under="warn", invalid="print"):
        before = np.geterr()
        with pytest.raises(FloatingPointError):
            xp.divide(x, y)
        assert np.geterr() == before


# -- settings ---------------------------------------------------------------------


def test_one_thread_makes_one_numpy_call(splits: _Splits) -> None:
    ca.set_num_threads(1)
    assert ca.get_num_threads() == 1
    _same(xp.sin(np.arange(100_000.0)), np.sin(np.arange(100_000.0)))
    assert splits.count == 0


def test_below_the_threshold_nothing_is_split(splits: _Splits) -> None:
    ca.set_parallel_threshold(1_000)
    xp.add(np.ones(999), np.ones(999))
    xp.add(np.ones((999, 1)), 1.0)
    assert splits.count == 0
    xp.add(np.ones(1_000), 1.0)
    assert splits.count == 1


def test_costly_loops_split_from_a_sixteenth_of_the_threshold(splits: _Splits) -> None:
    ca.set_parallel_threshold(16_000)
    xp.sin(np.ones(999))
    xp.add(np.ones(1_000), 1.0)
    xp.add(np.ones(15_999), 1.0)
    assert splits.count == 0
    _same(xp.sin(np.ones(1_000)), np.sin(np.ones(1_000)))
    _same(xp.cos(np.ones(1_000)), np.cos(np.ones(1_000)))
    x, y = _values("float64", (1_000,), 5), _values("float64", (1_000,), 6)
    _same(*_both(xp.logaddexp, np.logaddexp, x, y))
    assert splits.count == 3


def test_loops_about_as_cheap_as_add_split_from_the_threshold_as_add_does(
    splits: _Splits,
) -> None:
    # NumPy's SIMD exp, log and power take 0.7-2.5x add's time per element:
    # split from sin's size they took 2-3x one call's time at 10^5 elements
    # (benchmarks/workloads.py's Black-Scholes 1.91 -> ~1.3x NumPy).
    # (40_000 elements: past the size from which a result may be a reused
    # block, where the wrapper hands the call on to be split or not)
    ca.set_parallel_threshold(64_000)
    x = _values("float64", (40_000,), 5)
    for exponent in (2, 2.0, 1, 3, 0.5, -1.0, np.float64(2.0), np.asarray(2.0)):
        _same(*_both(xp.pow, np.pow, x, exponent))  # (NaNs and zeros: no warnings)
    for name in ("exp", "log", "tanh", "arctan", "expm1"):
        _same(*_both(getattr(xp, name), getattr(np, name), x))
    assert splits.count == 0
    big = _values("float64", (64_000,), 6)
    _same(xp.pow(big, 2), np.pow(big, 2))
    _same(*_both(xp.pow, np.pow, big, 0.5))
    _same(*_both(xp.exp, np.exp, big))
    assert splits.count == 3


def test_results_in_reused_blocks_take_numpys_dtype_and_layout() -> None:
    # Between the size from which a result may be a reused block and the
    # split threshold, each call is made twice: the first answers the dtype
    # the second's shortcut reads (_reused_binary, _reused_unary). Both must
    # be NumPy's bits, dtype and strides, whatever the operands' layout.
    ca.set_parallel_threshold(1 << 20)
    c = _values("float64", (256, 256), 15)
    row = c.ravel()
    f32 = c.astype(np.float32)
    i64 = (np.nan_to_num(c, nan=1.0, posinf=9.0, neginf=-9.0) * 100).astype(np.int64)
    operands: list[tuple[Any, ...]] = [
        (row, row[::-1].copy()),
        (row[::-1], 2.0),  # a 1-D result is C-ordered whatever the strides
        (3, i64.ravel()[::2]),
        (c, c.T.copy()),
        (c, np.asfortranarray(c)),
        (c.T, np.asfortranarray(c)),  # F-ordered operands: NumPy's result is too
        (c.T, 1.5),
        (c[:, ::2], c[:, 1::2]),
        (c[:128], c[128:]),
        (f32, 2.5),
        (f32, c),
        (i64, 7),
        (i64, True),
        (1j, row),
        (np.float32(2.0), f32),  # a NumPy scalar: the general path
        (c, c[:1]),  # broadcasting: the general path
    ]
    for a, b in operands:
        for ufunc in (np.add, np.multiply, np.greater, np.divide):
            for _ in range(2):
                _same(*_both(getattr(xp, ufunc.__name__), ufunc, a, b))
    for x in (row, row[::-3], c, c.T, c[::2, ::-1], f32, i64):
        for ufunc in (np.negative, np.exp, np.isnan):
            for _ in range(2):
                _same(*_both(getattr(xp, ufunc.__name__), ufunc, x))


@pytest.mark.usefixtures("empty_block_pool")
def test_the_shortcut_hands_out_a_kept_block() -> None:
    ca.set_parallel_threshold(1 << 20)
    x = _values("float64", (1 << 16,), 16)
    first = xp.multiply(x, 2.0)  # (fills the dtype cache, if no earlier call has)
    kept = {id(block) for block in _reuse._blocks}
    assert id(first) in kept
    del first
    second = xp.multiply(x, 3.0)  # the shortcut: the cache knows the dtype
    assert id(second) in kept
    np.testing.assert_array_equal(second, x * 3.0)
    third = xp.negative(x)  # second is alive: a new block
    assert id(third) != id(second)
    np.testing.assert_array_equal(third, -x)


@pytest.mark.parametrize("threads", [2, 3, 5])
def test_any_thread_count_gives_numpys_bits(threads: int) -> None:
    ca.set_num_threads(threads)
    x = _values("float32", (12_345,), 22)
    _same(xp.tanh(x), np.tanh(x))
    _same(xp.add(x.reshape(5, -1)[:, ::2], 1.0), np.add(x.reshape(5, -1)[:, ::2], 1.0))


def test_settings_refuse_bad_values() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        ca.set_num_threads(0)
    with pytest.raises(TypeError, match="int"):
        ca.set_num_threads(2.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="int"):
        ca.set_num_threads(True)
    with pytest.raises(ValueError, match="at least 0"):
        ca.set_parallel_threshold(-1)


def _python(code: str, **environment: str) -> str:
    """``code``'s output in a new interpreter with cowarray's defaults and ``environment``.

    (The settings this run was given, ``COWARRAY_PARALLEL_THRESHOLD=0`` in
    .ci/run, are not passed on.)
    """
    settings = ("COWARRAY_NUM_THREADS", "COWARRAY_PARALLEL_THRESHOLD")
    env = {k: v for k, v in os.environ.items() if k not in settings} | environment
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip() + done.stderr.strip()


def test_environment_variables_set_the_defaults() -> None:
    code = "import cowarray as ca; print(ca.get_num_threads(), ca.get_parallel_threshold())"
    assert _python(code, COWARRAY_NUM_THREADS="3", COWARRAY_PARALLEL_THRESHOLD="77") == "3 77"
    out = _python(code, COWARRAY_NUM_THREADS="many")
    assert "COWARRAY_NUM_THREADS='many' is not an integer" in out


def test_the_default_thread_count_is_the_cpus_this_process_may_use() -> None:
    code = "import cowarray as ca; print(ca.get_num_threads())"
    expected = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert _python(code) == str(expected)


def test_importing_and_small_arrays_start_no_thread() -> None:
    code = (
        "import threading, cowarray as ca\n"
        "x = ca.ones(1000)\n"
        "y = ca.sin(x) + x * 2.0\n"
        "x += 1.0\n"
        "print(threading.active_count())"
    )
    assert _python(code, COWARRAY_NUM_THREADS="4") == "1"


# -- fork and threads -------------------------------------------------------------


def _child_computes(queue: Any) -> None:
    x = np.arange(200_000.0)
    result = xp.sin(x)
    threads = sum(t.name.startswith("cowarray-parallel") for t in threading.enumerate())
    queue.put((bool(np.array_equal(result.view(np.uint8), np.sin(x).view(np.uint8))), threads))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_forked_child_computes_with_a_pool_of_its_own() -> None:
    xp.sin(np.arange(200_000.0))  # the parent's pool exists
    assert any(t.name.startswith("cowarray-parallel") for t in threading.enumerate())
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # 3.12+: fork with threads
        child = context.Process(target=_child_computes, args=(queue,))
        child.start()
    child.join(timeout=60)
    if child.is_alive():
        child.kill()
        pytest.fail("the forked child deadlocked on the parent's pool")
    assert child.exitcode == 0
    assert queue.get(timeout=10) == (True, ca.get_num_threads() - 1)


def test_concurrent_callers_each_get_their_own_right_results() -> None:
    rng = np.random.default_rng(23)
    inputs = [rng.standard_normal(20_000 + 97 * i) for i in range(6)]
    expected = [(np.sin(a), a * a + a, np.exp(a) < 1.0) for a in inputs]
    failures: list[str] = []

    def caller(i: int) -> None:
        a = inputs[i]
        x = ca.asarray(a)
        for _ in range(30):
            got = (np.asarray(ca.sin(x)), np.asarray(x * x + x), np.asarray(ca.exp(x) < 1.0))
            for g, e in zip(got, expected[i], strict=True):
                if g.tobytes() != e.tobytes():
                    failures.append(f"caller {i}")

    def resizer() -> None:
        for n in (2, 3, 1, 4, 2) * 4:
            ca.set_num_threads(n)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=caller, args=(i,)) for i in range(len(inputs))]
        threads.append(threading.Thread(target=resizer))
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
    finally:
        sys.setswitchinterval(interval)
    assert not any(thread.is_alive() for thread in threads)
    assert failures == []
