"""Errors are one family (cowarray/_errors.py, docs/design.md "Errors"): the
standard's type, a message that names the argument and the fix, no NumPy
phrasing, and every array passed in unchanged. A sample of the sweep in
tools/bad_inputs.py."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import cowarray as ca
from cowarray.testing import assert_equal_to_model

#: What NumPy says where cowarray should speak for itself.
NUMPY_PHRASES = (
    "Maximum allowed dimension exceeded",
    "Maximum allowed size exceeded",
    "array is too big",
    "negative dimensions are not allowed",
    "Singular matrix",
    "Matrix is not positive definite",
    "Python int too large to convert",
    "object cannot be interpreted as an integer",
    "not understood",
    "setting an array element with a sequence",
    "inhomogeneous",
    "division by zero",
    "is out of bounds for axis",
    "too many indices for array",
    "boolean index did not match",
    "at most 1 entry",
    "could not broadcast",
    "not broadcastable",
    "bytes-like object",
)

Inputs = dict[str, ca.Array]


def _inputs() -> Inputs:
    return {
        "xf": ca.asarray([1.0, 2.0, 3.0]),
        "xi": ca.asarray([1, 2, 3]),
        "xu8": ca.asarray([1, 2, 3], dtype=ca.uint8),
        "m": ca.asarray([[1.0, 2.0], [3.0, 4.0]]),
        "singular": ca.asarray([[1.0, 2.0], [2.0, 4.0]]),
        "indefinite": ca.asarray([[1.0, 2.0], [2.0, 1.0]]),
        "rect": ca.asarray([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
        "xc": ca.asarray([1 + 1j, 2 + 0j]),
    }


def _set_fast(x: ca.Array, key: Any, value: Any) -> None:
    """``x[key] = value`` once a write has found ``x`` private: the store that skips the core."""
    x[key] = x[key].item()  # (the same value)
    x[key] = value


def _set(x: ca.Array, key: Any, value: Any) -> None:
    x[key] = value


def _mask(length: int) -> ca.Array:
    return ca.asarray([True, False, True, False][:length])


Case = tuple[str, Callable[[Inputs], Any], type[Exception], str, str]

# (id, call, type, words naming the argument, words naming the fix)
CASES: list[Case] = [
    # sizes: one check for every creation function
    ("zeros huge", lambda a: ca.zeros(10**20), ValueError, "shape", "smaller"),
    ("zeros huge 2-D", lambda a: ca.zeros((10**10, 10**10)), ValueError, "shape", "smaller"),
    ("ones huge", lambda a: ca.ones(10**20), ValueError, "shape", "smaller"),
    ("empty huge", lambda a: ca.empty(10**20), ValueError, "shape", "smaller"),
    ("full huge", lambda a: ca.full(10**20, 1.0), ValueError, "shape", "smaller"),
    ("eye huge", lambda a: ca.eye(10**20), ValueError, "n_rows", "smaller"),
    ("arange huge", lambda a: ca.arange(10**20), ValueError, "length", "smaller"),
    ("linspace huge", lambda a: ca.linspace(0, 1, 10**20), ValueError, "num", "smaller"),
    ("zeros negative", lambda a: ca.zeros(-1), ValueError, "shape", ">= 0"),
    ("zeros negative entry", lambda a: ca.zeros((2, -3)), ValueError, "-3 in shape", ">= 0"),
    ("eye negative", lambda a: ca.eye(-1), ValueError, "n_rows", ">= 0"),
    ("eye negative cols", lambda a: ca.eye(3, -2), ValueError, "n_cols", ">= 0"),
    ("linspace negative", lambda a: ca.linspace(0, 1, -1), ValueError, "num", ">= 0"),
    ("zeros float", lambda a: ca.zeros(2.5), TypeError, "shape", "pass an int"),
    ("zeros None", lambda a: ca.zeros(None), TypeError, "shape", "pass an int"),
    ("zeros float entry", lambda a: ca.zeros((2, 1.5)), TypeError, "shape", "pass an int"),
    ("reshape -2", lambda a: ca.reshape(a["xf"], (-2,)), ValueError, "shape", ">= 0"),
    # dtypes: one to_dtype
    ("unknown dtype name", lambda a: ca.zeros(3, dtype="foo"), ValueError, "dtype", "use one of"),
    ("astype unknown", lambda a: ca.astype(a["xi"], "foo"), ValueError, "dtype", "use one of"),
    ("string dtype", lambda a: ca.astype(a["xi"], "U3"), ValueError, "dtype", "use one of"),
    ("object dtype", lambda a: ca.zeros(3, dtype=object), TypeError, "dtype", "such as"),
    ("int as dtype", lambda a: ca.ones(3, dtype=3), TypeError, "dtype", "such as"),
    ("sum dtype", lambda a: ca.sum(a["xf"], dtype="foo"), ValueError, "dtype", "use one of"),
    (
        "result_type unknown",
        lambda a: ca.result_type("foo"),
        ValueError,
        "argument 0",
        "use one of",
    ),
    ("can_cast unknown", lambda a: ca.can_cast(ca.int8, "foo"), ValueError, "to=", "use one of"),
    ("can_cast list", lambda a: ca.can_cast(ca.int8, [1]), TypeError, "to", "such as"),
    ("iinfo unknown", lambda a: ca.iinfo("foo"), ValueError, "type=", "use one of"),
    ("finfo of int", lambda a: ca.finfo(ca.int64), ValueError, "finfo", "use iinfo"),
    ("method astype", lambda a: a["xf"].astype("foo"), ValueError, "dtype", "use one of"),
    # overflow: one type on every path
    ("asarray huge", lambda a: ca.asarray(2**70), OverflowError, "obj", "pass values"),
    ("asarray huge in list", lambda a: ca.asarray([1, 2**70]), OverflowError, "obj", "pass values"),
    ("asarray uint8", lambda a: ca.asarray(300, dtype=ca.uint8), OverflowError, "obj", "pass"),
    (
        "asarray list uint8",
        lambda a: ca.asarray([300], dtype=ca.uint8),
        OverflowError,
        "obj",
        "pass",
    ),
    ("full huge value", lambda a: ca.full(3, 2**70), OverflowError, "fill_value", "pass"),
    ("full uint8", lambda a: ca.full(3, 300, dtype=ca.uint8), OverflowError, "fill_value", "pass"),
    ("full_like huge", lambda a: ca.full_like(a["xi"], 2**70), OverflowError, "fill_value", "pass"),
    ("setitem huge", lambda a: _set(a["xi"], 0, 2**70), OverflowError, "value", "pass"),
    ("setitem huge, fast", lambda a: _set_fast(a["xi"], 0, 2**70), OverflowError, "value", "pass"),
    (
        "setitem -huge, fast",
        lambda a: _set_fast(a["xi"], -1, -(2**70)),
        OverflowError,
        "value",
        "pass",
    ),
    ("setitem uint8", lambda a: _set(a["xu8"], 0, 300), OverflowError, "value", "wider dtype"),
    ("setitem negative uint8", lambda a: _set(a["xu8"], 0, -1), OverflowError, "value", "pass"),
    ("at set huge", lambda a: a["xi"].at[0].set(2**70), OverflowError, "value", "pass"),
    ("at set uint8", lambda a: a["xu8"].at[0].set(300), OverflowError, "value", "wider dtype"),
    ("at add uint8", lambda a: a["xu8"].at[0].add(300), OverflowError, "value", "pass"),
    ("fill huge", lambda a: a["xi"].fill(2**70), OverflowError, "value", "pass"),
    # wrong kinds of scalar: TypeError, with the argument named
    (
        "full float into int",
        lambda a: ca.full(3, 1.5, dtype=ca.int64),
        TypeError,
        "fill_value",
        "use",
    ),
    ("asarray float into int", lambda a: ca.asarray(1.5, dtype=ca.int64), TypeError, "obj", "use"),
    ("setitem float into int", lambda a: _set(a["xi"], 0, 1.5), TypeError, "float", "use an int"),
    (
        "setitem float array into int",
        lambda a: _set(a["xi"], slice(None), a["xf"]),
        TypeError,
        "an int64 array",
        "astype",
    ),
    (
        "at divide int",
        lambda a: a["xi"].at[0].divide(2),
        TypeError,
        "an int64 array",
        "astype",
    ),
    # asarray data
    ("asarray ragged", lambda a: ca.asarray([[1, 2], [3]]), ValueError, "obj", "equal length"),
    # linalg: cowarray's LinAlgError
    ("inv singular", lambda a: ca.linalg.inv(a["singular"]), ca.linalg.LinAlgError, "x", "pinv"),
    (
        "solve singular",
        lambda a: ca.linalg.solve(a["singular"], ca.ones(2)),
        ca.linalg.LinAlgError,
        "x1",
        "lstsq",
    ),
    (
        "matrix_power singular",
        lambda a: ca.linalg.matrix_power(a["singular"], -1),
        ca.linalg.LinAlgError,
        "x",
        "pinv",
    ),
    (
        "cholesky indefinite",
        lambda a: ca.linalg.cholesky(a["indefinite"]),
        ca.linalg.LinAlgError,
        "x",
        "symmetric",
    ),
    ("inv rectangular", lambda a: ca.linalg.inv(a["rect"]), ValueError, "x", "square"),
    # indices: what was indexed, the axis, its length, the valid range, x's shape
    ("getitem past the end", lambda a: a["xf"][5], IndexError, "axis 0 of length 3", "-3 to 2"),
    ("getitem before the start", lambda a: a["xf"][-4], IndexError, "index -4", "-3 to 2"),
    ("getitem axis 1", lambda a: a["m"][0, 5], IndexError, "axis 1 of length 2", "-2 to 1"),
    ("getitem index array", lambda a: a["xf"][ca.asarray([0, 5])], IndexError, "5", "-3 to 2"),
    ("setitem past the end", lambda a: _set(a["xf"], 5, 1.0), IndexError, "x[...]", "-3 to 2"),
    ("getitem too many", lambda a: a["xf"][0, 0], IndexError, "2 indices", "pass at most 1"),
    ("setitem too many", lambda a: _set(a["m"], (0, 0, 0), 1.0), IndexError, "2 dim", "most 2"),
    ("at set past the end", lambda a: a["xi"].at[5].set(1), IndexError, "x.at", "mode='drop'"),
    ("at add too many", lambda a: a["xi"].at[0, 0].add(1), IndexError, "x.at", "pass at most 1"),
    # a boolean mask of the wrong length: its shape, x's, and how to make one that fits
    ("getitem short mask", lambda a: a["xf"][_mask(2)], IndexError, "mask of shape (2,)", "from x"),
    ("setitem short mask", lambda a: _set(a["xf"], _mask(2), 0.0), IndexError, "(3,)", "from x"),
    ("getitem mask, axis 1", lambda a: a["m"][:, _mask(3)], IndexError, "axis 1", "from x"),
    ("at set short mask", lambda a: a["xf"].at[_mask(4)].set(0.0), IndexError, "(4,)", "from x"),
    ("at get short mask", lambda a: a["xf"].at[_mask(4)].get(), IndexError, "mask", "from x"),
    # a value of the wrong shape for what the index selects
    ("at set sequence", lambda a: a["xf"].at[0].set([1.0, 2.0]), ValueError, "(2,)", "x.at[a:b]"),
    ("at add sequence", lambda a: a["xf"].at[0].add([1.0, 2.0]), ValueError, "(2,)", "number"),
    ("at set long", lambda a: a["xf"].at[:2].set([1.0, 2.0, 3.0]), ValueError, "(3,)", "(2,)"),
    ("setitem sequence", lambda a: _set(a["xf"], 0, [1.0, 2.0]), ValueError, "(2,)", "x[a:b]"),
    (
        "setitem array into one",
        lambda a: _set(a["xf"], 1, a["m"][0]),
        ValueError,
        "shape (2,)",
        "single number",
    ),
    (
        "setitem long",
        lambda a: _set(a["xf"], slice(0, 2), [1.0, 2.0, 3.0]),
        ValueError,
        "(3,)",
        "broadcasts",
    ),
    ("delete past the end", lambda a: ca.delete(a["xf"], 5), IndexError, "in obj", "-3 to 2"),
    ("insert past the end", lambda a: ca.insert(a["xf"], 5, 1.0), IndexError, "in obj", "-3 to 3"),
    # the rest of the sweep's last cases
    ("asarray strings", lambda a: ca.asarray([1, "a"]), TypeError, "obj", "pass numbers"),
    ("atleast_2d str", lambda a: ca.atleast_2d("a"), TypeError, "arrays[0]", "ca.asarray"),
    ("vecdot lengths", lambda a: ca.vecdot(a["xf"], ca.ones(2)), ValueError, "shape", "equal"),
    # axes and the rest
    ("sum axis", lambda a: ca.sum(a["xf"], axis=3), IndexError, "axis=3", "valid"),
    ("flip axis", lambda a: ca.flip(a["m"], axis=5), IndexError, "axis=5", "valid"),
    ("fft norm", lambda a: ca.fft.fft(a["xc"], norm="foo"), ValueError, "norm", ""),
    ("fftfreq zero spacing", lambda a: ca.fft.fftfreq(4, d=0), ValueError, "d ", "d > 0"),
    ("arange zero step", lambda a: ca.arange(0, 10, 0), ValueError, "step", "pass"),
    ("to_device unknown", lambda a: a["xf"].to_device("tpu"), ValueError, "tpu", ""),
]


@pytest.mark.parametrize(
    ("call", "error", "argument", "fix"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_mistake_gets_the_family_error_naming_argument_and_fix(
    call: Callable[[Inputs], Any], error: type[Exception], argument: str, fix: str
) -> None:
    inputs = _inputs()
    before = {name: np.array(np.asarray(x), copy=True) for name, x in inputs.items()}
    with pytest.raises(error) as caught:
        call(inputs)
    message = str(caught.value)
    assert argument.lower() in message.lower(), message
    assert fix.lower() in message.lower(), message
    for phrase in NUMPY_PHRASES:
        assert phrase not in message, message
    assert not re.search(r"\ba (?:int|uint|[aeiou])", message), message
    for name, array in inputs.items():
        assert_equal_to_model(array, before[name])


def test_linalg_error_is_a_value_error_and_numpys_linalg_error() -> None:
    assert issubclass(ca.linalg.LinAlgError, ValueError)
    assert issubclass(ca.linalg.LinAlgError, np.linalg.LinAlgError)


@pytest.mark.parametrize("spelling", [ca.float32, np.float32, "float32"])
def test_every_function_takes_the_same_dtype_spellings(spelling: object) -> None:
    x = ca.asarray([1.0, 2.0])
    assert ca.zeros(2, dtype=spelling).dtype == ca.float32
    assert ca.asarray([1], dtype=spelling).dtype == ca.float32
    assert ca.astype(x, spelling).dtype == ca.float32
    assert x.astype(spelling).dtype == ca.float32
    assert ca.sum(x, dtype=spelling).dtype == ca.float32
    assert ca.finfo(spelling).bits == 32
    assert ca.can_cast(spelling, ca.float64)
    assert ca.result_type(spelling, ca.float32) == ca.float32
    assert ca.isdtype(spelling, "real floating")


@pytest.mark.parametrize(
    ("python_type", "dtype"),
    [(bool, ca.bool), (int, ca.int64), (float, ca.float64), (complex, ca.complex128)],
)
def test_python_types_name_the_default_dtype_of_their_kind(python_type: type, dtype: Any) -> None:
    assert ca.zeros(2, dtype=python_type).dtype == dtype
    assert ca.astype(ca.asarray([1, 0]), python_type).dtype == dtype
    assert ca.result_type(python_type) == dtype


def test_comparisons_with_out_of_range_integers_still_answer() -> None:
    # the overflow rule is for values that are stored, not compared
    x = ca.asarray([1, 2], dtype=ca.uint8)
    assert bool(ca.all(x < 300))
    assert not bool(ca.any(x == -1))


def test_an_empty_axis_says_no_index_is_in_range() -> None:
    with pytest.raises(IndexError, match=r"length 0 \(x has shape \(0,\)\); it is empty.*slice"):
        ca.zeros(0)[0]


@pytest.mark.parametrize(
    ("backend_text", "expected"),
    [
        # CuPy capitalizes NumPy's words: the numbers are read the same
        (
            "Index 7 is out of bounds for axis 1 with size 4",
            "x[...]: index 7 is out of range for axis 1 of length 4 (x has shape (2, 4)); "
            "pass an index from -4 to 3",
        ),
        # worded otherwise, about the range: a message of our own, with no numbers to misread
        (
            "index beyond the end (out of bounds)",
            "x[...]: an index is out of range; x has shape (2, 4): index it with at most 2 "
            "entries, each from -n to n - 1 for its axis of length n",
        ),
        (
            "too many indices",
            "x[...]: too many indices for an array of 2 dimensions (x has shape (2, 4)); "
            "pass at most 2",
        ),
        # another mistake: the backend's words are kept, with the rule after them
        (
            "an index can only have a single ellipsis ('...')",
            "an index can only have a single ellipsis ('...'); x has shape (2, 4): index it "
            "with at most 2 entries, each from -n to n - 1 for its axis of length n",
        ),
    ],
    ids=["cupy wording", "other range wording", "bare too many", "another mistake"],
)
def test_index_messages_read_the_backend_only_for_its_numbers(
    backend_text: str, expected: str
) -> None:
    from cowarray._errors import index_out_of_range

    assert str(index_out_of_range(IndexError(backend_text), (2, 4))) == expected


@pytest.mark.parametrize(
    "write",
    [
        pytest.param(lambda x: _set(x, slice(None), np.ones(3)), id="x[:] = too short"),
        pytest.param(lambda x: _set(x, 0, [1.0, 2.0]), id="x[0] = a sequence"),
        pytest.param(lambda x: x.at[0].set([1.0, 2.0]), id="x.at[0].set(a sequence)"),
        pytest.param(lambda x: x.at[:2].add([1.0, 2.0, 3.0]), id="x.at[:2].add(too long)"),
        pytest.param(lambda x: x[_mask(2)], id="x[short mask]"),
    ],
)
def test_a_refused_write_leaves_the_holders_as_they_were(write: Callable[[Any], Any]) -> None:
    # (without the garbage collector: no reference cycle through the error may keep one)
    x = ca.asarray([1.0, 2.0, 3.0, 4.0])
    clone = ca.lazy_clone(x)
    with pytest.raises((ValueError, IndexError)):
        write(x)
    assert ca.cow_info(x).holders == 2 and ca.shares_buffer(x, clone)
