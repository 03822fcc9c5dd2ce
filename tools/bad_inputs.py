"""A reproducible sweep of bad inputs across the cowarray namespace.

Each case calls one function with one caller mistake (an impossible size, a
wrong type, an axis out of range, a value that does not fit, a singular
matrix, ...) and records the exception's type and message, then flags what a
newcomer would trip over:

- ``numpy``: the text is NumPy's or CuPy's (the traceback's last frame is
  inside numpy/cupy, or the message matches NumPy's known phrasings);
- ``no-arg``: the message does not name the argument (the case says which
  words count as naming it);
- ``no-fix``: the message names no fix (no "use", "pass", "must", "expected",
  "convert", ... and no list of what is valid);
- ``type``: the exception type differs from what the same kind of mistake
  gets elsewhere in the sweep (cases share a ``family``; the family's
  expected type is given once);
- ``grammar``: "a int", "a uint8", "an float", ...;
- ``none``: no exception at all;
- ``refused``: a dtype spelling (``float``, ``"float32"``, ``np.float32``)
  that some function takes is refused by this one (these cases, family
  ``accepted``, are not mistakes: they check that every function agrees).

Run it from the repository root::

    /work/venv/bin/python tools/bad_inputs.py            # the summary table
    /work/venv/bin/python tools/bad_inputs.py --verbose  # every case
    /work/venv/bin/python tools/bad_inputs.py --flagged  # only flagged cases

It exits 0 whatever it finds; it is a report, not a test (the test that
holds the line is tests/api/test_error_family.py).
"""

from __future__ import annotations

import argparse
import re
import sys
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

import cowarray as ca

#: The exception type each family of mistakes should get.
FAMILY_TYPES: dict[str, type[BaseException]] = {
    "wrong-type": TypeError,
    "bad-value": ValueError,
    "bad-size": ValueError,
    "bad-dtype": TypeError,
    "unknown-dtype": ValueError,
    "axis-range": IndexError,
    "index-range": IndexError,
    "overflow": OverflowError,
    "singular": ValueError,
    "device": ValueError,
    "bad-index": IndexError,
    "missing": ImportError,
    "numpy-call": TypeError,
    "accepted": type(None),
}

#: Phrases a message of the ``numpy-call`` family may use: it names the NumPy call refused.
NUMPY_CALL_WORDS = ("numpy.", "np.")

NUMPY_PHRASES: tuple[str | re.Pattern[str], ...] = (
    "Maximum allowed dimension exceeded",
    "array is too big",
    "negative dimensions are not allowed",
    "Singular matrix",
    "Last 2 dimensions of the array must be square",
    "object cannot be interpreted as an integer",
    "is not supported for",
    "data type '",
    "not understood",
    "Python int too large to convert",
    re.compile(r"out of bounds for axis \d+ with size"),
    "cannot reshape array of size",
    "operands could not be broadcast",
    "only integers, slices",
    "Cannot cast ufunc",
    "ufunc",
    "numpy.",
    "np.",
    "dimension(s)",
    "Invalid norm value",
    "Invalid number of FFT data points",
    "array must not contain infs or NaNs",
    "Matrix is not positive definite",
    "setting an array element with a sequence",
    "could not convert string to float",
    "invalid literal for int()",
    "too many indices for array",
    "arrays used as indices must be",
    "zero-size array to reduction operation",
    "axis 5 is out of bounds",
    "inhomogeneous shape",
)

FIX_WORDS = re.compile(
    r"\b(use|pass|must|expected|expects|convert|call|give|choose|one of|valid|"
    r"should|needs?|only|requires?|try|instead|at least|at most|between|supports?|"
    r"such as|e\.g\.|accepts?|move|cannot|not (?:be )?(?:allowed|defined|supported))\b",
    re.IGNORECASE,
)
GRAMMAR = re.compile(
    r"\ba (?!and\b|of\b|or\b)(?:int|uint|[aeiou]\w*)\b|\ban (?:float|bool|complex|uint)"
)


@dataclass
class Case:
    label: str
    call: Callable[[], object]
    family: str
    names: tuple[str, ...]
    inputs: tuple[Any, ...] = ()


@dataclass
class Outcome:
    case: Case
    error: BaseException | None
    from_numpy: bool
    flags: list[str] = field(default_factory=list)


def _from_numpy(error: BaseException, family: str = "") -> bool:
    frames = traceback.extract_tb(error.__traceback__)
    if frames and re.search(r"[/\\](numpy|cupy)[/\\]", frames[-1].filename):
        return True
    text = str(error)
    allowed = NUMPY_CALL_WORDS if family == "numpy-call" else ()
    return any(
        phrase.search(text) if isinstance(phrase, re.Pattern) else phrase in text
        for phrase in NUMPY_PHRASES
        if phrase not in allowed
    )


def run_case(case: Case) -> Outcome:
    try:
        case.call()
    except Exception as error:
        outcome = Outcome(case, error, _from_numpy(error, case.family))
    else:
        return Outcome(case, None, False, [] if case.family == "accepted" else ["none"])
    if case.family == "accepted":
        outcome.flags.append("refused")
    text = str(outcome.error)
    if outcome.from_numpy:
        outcome.flags.append("numpy")
    if not any(name.lower() in text.lower() for name in case.names):
        outcome.flags.append("no-arg")
    if not FIX_WORDS.search(text):
        outcome.flags.append("no-fix")
    if not isinstance(outcome.error, FAMILY_TYPES[case.family]):
        outcome.flags.append("type")
    if GRAMMAR.search(text):
        outcome.flags.append("grammar")
    return outcome


def _without_torch(function: Callable[..., object], *args: Any) -> object:
    """``function(*args)`` where torch cannot be imported (as if not installed)."""
    bridge = sys.modules["cowarray.interop.torch"]
    saved = sys.modules.get("torch", False), bridge._TORCH
    sys.modules["torch"] = None  # type: ignore[assignment]
    bridge._TORCH = None
    try:
        return function(*args)
    finally:
        if saved[0] is False:
            del sys.modules["torch"]
        else:
            sys.modules["torch"] = saved[0]  # type: ignore[assignment]
        bridge._TORCH = saved[1]


def _cases() -> list[Case]:
    cases: list[Case] = []

    def add(
        label: str,
        call: Callable[[], object],
        family: str,
        *names: str,
        inputs: tuple[Any, ...] = (),
    ) -> None:
        cases.append(Case(label, call, family, names, inputs))

    xf = ca.asarray([1.0, 2.0, 3.0])
    xi = ca.asarray([1, 2, 3])
    xu8 = ca.asarray([1, 2, 3], dtype=ca.uint8)
    xb = ca.asarray([True, False, True])
    m = ca.asarray([[1.0, 2.0], [3.0, 4.0]])
    singular = ca.asarray([[1.0, 2.0], [2.0, 4.0]])
    rect = ca.asarray([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    m3 = ca.zeros((2, 2, 2))
    notpd = ca.asarray([[1.0, 2.0], [2.0, 1.0]])
    xc = ca.asarray([1 + 1j, 2 + 0j])

    # creation: sizes
    for fn in ("zeros", "ones", "empty"):
        f = getattr(ca, fn)
        add(f"{fn}(10**20)", lambda f=f: f(10**20), "bad-size", "shape", "10**20", str(10**20))
        add(f"{fn}((10**10, 10**10))", lambda f=f: f((10**10, 10**10)), "bad-size", "shape")
        add(f"{fn}(-1)", lambda f=f: f(-1), "bad-size", "shape")
        add(f"{fn}((2, -3))", lambda f=f: f((2, -3)), "bad-size", "shape")
        add(f"{fn}(2.5)", lambda f=f: f(2.5), "wrong-type", "shape")
        add(f"{fn}(None)", lambda f=f: f(None), "wrong-type", "shape")
        add(f"{fn}('3')", lambda f=f: f("3"), "wrong-type", "shape")
        add(f"{fn}((2, 1.5))", lambda f=f: f((2, 1.5)), "wrong-type", "shape")
        add(f"{fn}(3, dtype='foo')", lambda f=f: f(3, dtype="foo"), "unknown-dtype", "dtype")
        add(f"{fn}(3, dtype=object)", lambda f=f: f(3, dtype=object), "bad-dtype", "dtype")
        add(f"{fn}(3, dtype=3)", lambda f=f: f(3, dtype=3), "bad-dtype", "dtype")
    add("full(10**20, 1.0)", lambda: ca.full(10**20, 1.0), "bad-size", "shape")
    add("full(-2, 1.0)", lambda: ca.full(-2, 1.0), "bad-size", "shape")
    add("full(3, 'a')", lambda: ca.full(3, "a"), "wrong-type", "fill_value")
    add("full(3, None)", lambda: ca.full(3, None), "wrong-type", "fill_value")
    add("full(3, 2**70)", lambda: ca.full(3, 2**70), "overflow", "fill_value", "2**70", str(2**70))
    add(
        "full(3, 300, dtype=uint8)",
        lambda: ca.full(3, 300, dtype=ca.uint8),
        "overflow",
        "fill_value",
        "300",
    )
    add("full(3, 1.5, dtype=int64)", lambda: ca.full(3, 1.5, dtype=ca.int64), "wrong-type", "fill")
    add("eye(-1)", lambda: ca.eye(-1), "bad-size", "n_rows")
    add("eye(3, -2)", lambda: ca.eye(3, -2), "bad-size", "n_cols")
    add("eye(2.5)", lambda: ca.eye(2.5), "wrong-type", "n_rows")
    add("eye(10**20)", lambda: ca.eye(10**20), "bad-size", "n_rows", "shape")
    add("eye(3, k=1.5)", lambda: ca.eye(3, k=1.5), "wrong-type", "k")
    add("identity(-1)", lambda: ca.identity(-1), "bad-size", "n")
    add("arange(10**20)", lambda: ca.arange(10**20), "bad-size", "stop", "arange", "shape")
    add("arange(0, 10, 0)", lambda: ca.arange(0, 10, 0), "bad-value", "step")
    add("arange('a')", lambda: ca.arange("a"), "wrong-type", "start")
    add("arange(None)", lambda: ca.arange(None), "wrong-type", "start")
    add("linspace(0, 1, -1)", lambda: ca.linspace(0, 1, -1), "bad-size", "num")
    add("linspace(0, 1, 2.5)", lambda: ca.linspace(0, 1, 2.5), "wrong-type", "num")
    add("linspace(0, 1, 10**20)", lambda: ca.linspace(0, 1, 10**20), "bad-size", "num", "shape")
    add(
        "empty_like(xf, dtype='foo')",
        lambda: ca.empty_like(xf, dtype="foo"),
        "unknown-dtype",
        "dtype",
    )
    add("zeros_like([1, 2])", lambda: ca.zeros_like([1, 2]), "wrong-type", "x")
    add("full_like(xi, 2**70)", lambda: ca.full_like(xi, 2**70), "overflow", "fill_value")
    add("full_like(xi, 'a')", lambda: ca.full_like(xi, "a"), "wrong-type", "fill_value")
    add("tril(xf)", lambda: ca.tril(xf), "bad-value", "x")
    add(
        "meshgrid(xf, indexing='zz')",
        lambda: ca.meshgrid(xf, indexing="zz"),
        "bad-value",
        "indexing",
    )

    # dtypes: the same spellings everywhere
    for spelled, value in (("float", float), ("'float32'", "float32"), ("np.float32", np.float32)):
        # not mistakes: the same spelling must be taken (or refused) everywhere
        add(f"zeros(3, dtype={spelled})", lambda v=value: ca.zeros(3, dtype=v), "accepted", "dtype")
        add(f"astype(xi, {spelled})", lambda v=value: ca.astype(xi, v), "accepted", "dtype")
        add(
            f"asarray([1], dtype={spelled})",
            lambda v=value: ca.asarray([1], dtype=v),
            "accepted",
            "dtype",
        )
        add(f"finfo({spelled})", lambda v=value: ca.finfo(v), "accepted", "type", "dtype")
        add(
            f"can_cast({spelled}, int64)",
            lambda v=value: ca.can_cast(v, ca.int64),
            "accepted",
            "from_",
            "dtype",
        )
    add("astype(xi, 'foo')", lambda: ca.astype(xi, "foo"), "unknown-dtype", "dtype")
    add("astype(xi, None)", lambda: ca.astype(xi, None), "bad-dtype", "dtype")
    add("astype(xi, 'U3')", lambda: ca.astype(xi, "U3"), "unknown-dtype", "dtype")
    add("astype([1], float64)", lambda: ca.astype([1], ca.float64), "wrong-type", "x")
    add(
        "astype(xf, int64, copy='no')",
        lambda: ca.astype(xf, ca.int64, copy="no"),
        "wrong-type",
        "copy",
    )
    add(
        "result_type('foo')",
        lambda: ca.result_type("foo"),
        "unknown-dtype",
        "argument 0",
        "arrays_and_dtypes",
    )
    add("result_type()", lambda: ca.result_type(), "bad-value", "arrays_and_dtypes", "at least one")
    add(
        "result_type(uint64, int64)",
        lambda: ca.result_type(ca.uint64, ca.int64),
        "bad-dtype",
        "uint64",
    )
    add(
        "result_type(None)", lambda: ca.result_type(None), "bad-dtype", "arrays_and_dtypes", "dtype"
    )
    add(
        "can_cast(int64, 'foo')",
        lambda: ca.can_cast(ca.int64, "foo"),
        "unknown-dtype",
        "to",
        "dtype",
    )
    add("can_cast(None, int64)", lambda: ca.can_cast(None, ca.int64), "bad-dtype", "from_", "dtype")
    add("finfo(int64)", lambda: ca.finfo(ca.int64), "bad-value", "type", "dtype", "floating")
    add("iinfo(float64)", lambda: ca.iinfo(ca.float64), "bad-value", "type", "dtype", "integer")
    add("iinfo('foo')", lambda: ca.iinfo("foo"), "unknown-dtype", "type", "dtype")
    add("finfo(None)", lambda: ca.finfo(None), "bad-dtype", "type", "dtype")
    add("isdtype(float64, 'foo')", lambda: ca.isdtype(ca.float64, "foo"), "bad-value", "kind")
    add("isdtype(float64, 3)", lambda: ca.isdtype(ca.float64, 3), "wrong-type", "kind")
    add("isdtype('x', 'integral')", lambda: ca.isdtype("x", "integral"), "unknown-dtype", "dtype")

    # asarray
    add("asarray('abc')", lambda: ca.asarray("abc"), "wrong-type", "obj", "str")
    add("asarray([1, 'a'])", lambda: ca.asarray([1, "a"]), "wrong-type", "obj", "str")
    add("asarray({1: 2})", lambda: ca.asarray({1: 2}), "wrong-type", "obj", "dict")
    add("asarray(object())", lambda: ca.asarray(object()), "wrong-type", "obj", "object")
    add("asarray(None)", lambda: ca.asarray(None), "wrong-type", "obj", "None")
    add(
        "asarray([[1, 2], [3]])",
        lambda: ca.asarray([[1, 2], [3]]),
        "bad-value",
        "obj",
        "ragged",
        "length",
    )
    add("asarray(2**70)", lambda: ca.asarray(2**70), "overflow", "obj", "2**70", str(2**70))
    add("asarray([1, 2**70])", lambda: ca.asarray([1, 2**70]), "overflow", "obj", str(2**70))
    add(
        "asarray(300, dtype=uint8)",
        lambda: ca.asarray(300, dtype=ca.uint8),
        "overflow",
        "300",
        "obj",
    )
    add("asarray(-1, dtype=uint8)", lambda: ca.asarray(-1, dtype=ca.uint8), "overflow", "-1", "obj")
    add(
        "asarray([300], dtype=uint8)",
        lambda: ca.asarray([300], dtype=ca.uint8),
        "overflow",
        "300",
        "obj",
    )
    add(
        "asarray(1.5, dtype=int64)",
        lambda: ca.asarray(1.5, dtype=ca.int64),
        "wrong-type",
        "obj",
        "float",
    )
    add("asarray(xf, copy='yes')", lambda: ca.asarray(xf, copy="yes"), "wrong-type", "copy")
    add("asarray([1], device='tpu')", lambda: ca.asarray([1], device="tpu"), "device", "device")
    add("asarray([1], device=3)", lambda: ca.asarray([1], device=3), "wrong-type", "device")
    add(
        "asarray(np.array(['a']))",
        lambda: ca.asarray(np.array(["a"])),
        "wrong-type",
        "obj",
        "<U1",
        "str",
    )
    add(
        "asarray(np.zeros(2, 'M8[s]'))",
        lambda: ca.asarray(np.zeros(2, "M8[s]")),
        "wrong-type",
        "obj",
        "datetime",
    )

    # to_device
    add("xf.to_device('tpu')", lambda: xf.to_device("tpu"), "device", "device")
    add("xf.to_device(3)", lambda: xf.to_device(3), "wrong-type", "device")
    add(
        "xf.to_device('cpu', stream='s')",
        lambda: xf.to_device("cpu", stream="s"),
        "bad-value",
        "stream",
    )

    # elementwise
    add("add(xf, 'a')", lambda: ca.add(xf, "a"), "wrong-type", "x2")
    add("add([1], [2])", lambda: ca.add([1], [2]), "wrong-type", "x1")
    add("add(xf, None)", lambda: ca.add(xf, None), "wrong-type", "x2")
    add("add(xi, 1.5)", lambda: ca.add(xi, 1.5), "wrong-type", "float", "x2")
    add("add(xi, 2**70)", lambda: ca.add(xi, 2**70), "overflow", "x2", str(2**70))
    add("add(xu8, 300)", lambda: ca.add(xu8, 300), "overflow", "x2", "300")
    add("xu8 + 300", lambda: xu8 + 300, "overflow", "300", "operand")
    add("xi + 2**70", lambda: xi + 2**70, "overflow", str(2**70), "operand")
    add("xi + 'a'", lambda: xi + "a", "wrong-type", "str", "operand")
    add("add(xi, xf)", lambda: ca.add(xi, xf), "bad-dtype", "int64", "float64")
    add("add(xf, ones(2))", lambda: ca.add(xf, ca.ones(2)), "bad-value", "shape")
    add("sin(xi)", lambda: ca.sin(xi), "bad-dtype", "x", "int64")
    add("sin([1.0])", lambda: ca.sin([1.0]), "wrong-type", "x")
    add("bitwise_and(xf, xf)", lambda: ca.bitwise_and(xf, xf), "bad-dtype", "float64")
    add("logical_and(xi, xi)", lambda: ca.logical_and(xi, xi), "bad-dtype", "int64")
    add("xb + xb", lambda: xb + xb, "bad-dtype", "bool")
    add("clip(xf, 'a')", lambda: ca.clip(xf, "a"), "wrong-type", "min")
    add("round(xf, decimals=1.5)", lambda: ca.round(xf, decimals=1.5), "wrong-type", "decimals")

    # manipulation
    add("reshape(xf, (2, 2))", lambda: ca.reshape(xf, (2, 2)), "bad-value", "shape")
    add("reshape(xf, (-1, -1))", lambda: ca.reshape(xf, (-1, -1)), "bad-value", "shape")
    add("reshape(xf, 2.5)", lambda: ca.reshape(xf, 2.5), "wrong-type", "shape")
    add("reshape(xf, (-2,))", lambda: ca.reshape(xf, (-2,)), "bad-value", "shape")
    add("expand_dims(xf, axis=5)", lambda: ca.expand_dims(xf, axis=5), "axis-range", "axis")
    add("squeeze(xf, axis=0)", lambda: ca.squeeze(xf, axis=0), "bad-value", "axis")
    add("squeeze(m, axis=2)", lambda: ca.squeeze(m, axis=2), "axis-range", "axis")
    add("flip(xf, axis=3)", lambda: ca.flip(xf, axis=3), "axis-range", "axis")
    add("flip(xf, axis=1.0)", lambda: ca.flip(xf, axis=1.0), "wrong-type", "axis")
    add("permute_dims(m, (0,))", lambda: ca.permute_dims(m, (0,)), "bad-value", "axes")
    add("permute_dims(m, (0, 0))", lambda: ca.permute_dims(m, (0, 0)), "bad-value", "axes")
    add("permute_dims(m, (0, 2))", lambda: ca.permute_dims(m, (0, 2)), "axis-range", "axes")
    add("concat([xf, m])", lambda: ca.concat([xf, m]), "bad-value", "arrays", "dimension")
    add("concat([xf, xf], axis=1)", lambda: ca.concat([xf, xf], axis=1), "axis-range", "axis")
    add("concat([])", lambda: ca.concat([]), "bad-value", "arrays")
    add("concat(xf)", lambda: ca.concat(xf), "wrong-type", "arrays")
    add("stack([xf, ones(2)])", lambda: ca.stack([xf, ca.ones(2)]), "bad-value", "shape", "arrays")
    add("stack([xf], axis=3)", lambda: ca.stack([xf], axis=3), "axis-range", "axis")
    add("broadcast_to(xf, (2,))", lambda: ca.broadcast_to(xf, (2,)), "bad-value", "shape")
    add("broadcast_to(xf, (-1, 3))", lambda: ca.broadcast_to(xf, (-1, 3)), "bad-size", "shape")
    add(
        "broadcast_arrays(xf, ones(2))",
        lambda: ca.broadcast_arrays(xf, ca.ones(2)),
        "bad-value",
        "shape",
    )
    add("roll(xf, 1.5)", lambda: ca.roll(xf, 1.5), "wrong-type", "shift")
    add("roll(xf, 1, axis=4)", lambda: ca.roll(xf, 1, axis=4), "axis-range", "axis")
    add("moveaxis(m, 0, 5)", lambda: ca.moveaxis(m, 0, 5), "axis-range", "destination")
    add("tile(xf, 1.5)", lambda: ca.tile(xf, 1.5), "wrong-type", "repetitions", "reps")
    add("tile(xf, (-1,))", lambda: ca.tile(xf, (-1,)), "bad-value", "repetitions", "reps")
    add("repeat(xf, -1)", lambda: ca.repeat(xf, -1), "bad-value", "repeats")
    add("repeat(xf, 1.5)", lambda: ca.repeat(xf, 1.5), "wrong-type", "repeats")
    add("unstack(xf, axis=2)", lambda: ca.unstack(xf, axis=2), "axis-range", "axis")
    add("matrix_transpose(xf)", lambda: ca.matrix_transpose(xf), "bad-value", "x", "dimension")

    # indexing and setitem
    def setitem(x: Any, key: Any, value: Any) -> None:
        x[key] = value

    add("xf[5]", lambda: xf[5], "index-range", "5", "index")
    add("xf[-4]", lambda: xf[-4], "index-range", "-4", "index")
    add("xf[1.0]", lambda: xf[1.0], "bad-index", "index")
    add("xf[0, 0]", lambda: xf[0, 0], "index-range", "index", "dimension")
    add("xf['a']", lambda: xf["a"], "bad-index", "index")
    add("xf[None, None, 5]", lambda: xf[None, None, 5], "index-range", "index")
    add("m[0, 5]", lambda: m[0, 5], "index-range", "5", "index")
    add("xf[xb[:2]]", lambda: xf[xb[:2]], "index-range", "shape", "mask", "index")
    add("xf[[0, 5]]", lambda: xf[ca.asarray([0, 5])], "index-range", "5", "index")
    add("xf[...,...]", lambda: xf[..., ...], "index-range", "ellipsis", "index")
    add("xf[5] = 1", lambda: setitem(ca.asarray([1.0, 2.0]), 5, 1.0), "index-range", "5", "index")
    add("xf[1.0] = 1", lambda: setitem(ca.asarray([1.0, 2.0]), 1.0, 1.0), "bad-index", "index")
    add(
        "xf[0, 0] = 1",
        lambda: setitem(ca.asarray([1.0, 2.0]), (0, 0), 1.0),
        "index-range",
        "index",
        "dimension",
    )
    add(
        "xi[0] = 2**70",
        lambda: setitem(ca.asarray([1, 2]), 0, 2**70),
        "overflow",
        "value",
        str(2**70),
    )
    add(
        "xu8[0] = 300",
        lambda: setitem(ca.asarray([1], dtype=ca.uint8), 0, 300),
        "overflow",
        "value",
        "300",
    )
    add(
        "xu8[0] = -1",
        lambda: setitem(ca.asarray([1], dtype=ca.uint8), 0, -1),
        "overflow",
        "value",
        "-1",
    )
    add("xi[0] = 1.5", lambda: setitem(ca.asarray([1, 2]), 0, 1.5), "wrong-type", "value", "float")
    add("xi[0] = 'a'", lambda: setitem(ca.asarray([1, 2]), 0, "a"), "wrong-type", "value", "str")
    add("xi[0] = None", lambda: setitem(ca.asarray([1, 2]), 0, None), "wrong-type", "value", "None")
    add(
        "xi[:] = xf",
        lambda: setitem(ca.asarray([1, 2, 3]), slice(None), xf),
        "wrong-type",
        "value",
        "float64",
    )
    add(
        "xf[:2] = xf",
        lambda: setitem(ca.asarray([1.0, 2.0]), slice(None), xf),
        "bad-value",
        "value",
        "shape",
    )
    add(
        "xf[:] = [1, 2, 3]",
        lambda: setitem(ca.asarray([1.0, 2.0]), slice(None), [1, 2, 3]),
        "bad-value",
        "shape",
    )

    add(
        "xf[xb[:2]] = 1",
        lambda: setitem(ca.asarray([1.0, 2.0, 3.0]), xb[:2], 1.0),
        "index-range",
        "mask",
        "shape",
    )
    add("m[:, xb] (axis 1)", lambda: m[:, xb], "index-range", "mask", "axis 1")
    add(
        "xf[0] = [1, 2]",
        lambda: setitem(ca.asarray([1.0, 2.0]), 0, [1.0, 2.0]),
        "bad-value",
        "value",
        "shape",
    )

    # NumPy calls that would hand back an ndarray, and torch missing
    add(
        "as_strided(xf)",
        lambda: np.lib.stride_tricks.as_strided(xf, shape=(2,), strides=(8,)),
        "numpy-call",
        "as_strided",
    )
    add("np.vectorize(abs)(xf)", lambda: np.vectorize(abs)(xf), "numpy-call", "vectorize")
    add("np.frombuffer(xf)", lambda: np.frombuffer(xf), "numpy-call", "frombuffer", "buffer")
    add(
        "to_torch(xf) without torch",
        lambda: _without_torch(ca.interop.torch.to_torch, xf),
        "missing",
        "torch",
    )

    # .at updates
    def at_case(
        label: str, key: Any, method: str, value: Any, family: str, *names: str, dtype: Any = None
    ) -> None:
        def call() -> object:
            x = ca.asarray([1, 2, 3], dtype=dtype)
            return getattr(x.at[key], method)(value)

        add(label, call, family, *names)

    at_case("xi.at[5].set(1)", 5, "set", 1, "index-range", "5", "index")
    at_case("xi.at[1.0].set(1)", 1.0, "set", 1, "bad-index", "index")
    at_case("xi.at[0, 0].set(1)", (0, 0), "set", 1, "index-range", "index", "dimension")
    at_case("xi.at[0].set(2**70)", 0, "set", 2**70, "overflow", "value", str(2**70))
    at_case("xu8.at[0].set(300)", 0, "set", 300, "overflow", "value", "300", dtype=ca.uint8)
    at_case("xu8.at[0].set(-1)", 0, "set", -1, "overflow", "value", "-1", dtype=ca.uint8)
    at_case("xu8.at[0].add(300)", 0, "add", 300, "overflow", "value", "300", dtype=ca.uint8)
    at_case("xi.at[0].add(2**70)", 0, "add", 2**70, "overflow", "value", str(2**70))
    at_case("xi.at[0].set(1.5)", 0, "set", 1.5, "wrong-type", "value", "float")
    at_case("xi.at[0].set('a')", 0, "set", "a", "wrong-type", "value", "str")
    at_case("xi.at[0].set(None)", 0, "set", None, "wrong-type", "value", "None")
    at_case("xi.at[0].divide(2)", 0, "divide", 2, "bad-dtype", "divide", "int64")
    at_case("xi.at[:].set(xf[:2])", slice(None), "set", xf[:2], "wrong-type", "value", "float64")
    at_case("xi.at[:].set(xf)", slice(None), "set", xf, "wrong-type", "value", "float64")
    at_case("xi.at[0].set([1, 2])", 0, "set", [1, 2], "bad-value", "value", "shape")
    at_case("xi.at[0].add([1, 2])", 0, "add", [1, 2], "bad-value", "value", "shape")
    at_case("xi.at[xb[:2]].set(0)", xb[:2], "set", 0, "index-range", "mask", "shape")

    # linalg
    la = ca.linalg
    add("inv(singular)", lambda: la.inv(singular), "singular", "x", "singular")
    add(
        "solve(singular, b)",
        lambda: la.solve(singular, ca.asarray([1.0, 2.0])),
        "singular",
        "x1",
        "singular",
    )
    add("det(rect)", lambda: la.det(rect), "bad-value", "x", "square")
    add("inv(rect)", lambda: la.inv(rect), "bad-value", "x", "square")
    add("inv(xf)", lambda: la.inv(xf), "bad-value", "x", "dimension")
    add("cholesky(notpd)", lambda: la.cholesky(notpd), "singular", "x", "positive")
    add("cholesky(xf)", lambda: la.cholesky(xf), "bad-value", "x", "dimension")
    add("solve(m, ones(3))", lambda: la.solve(m, ca.ones(3)), "bad-value", "x2", "shape")
    add("inv(xi)", lambda: la.inv(xi), "bad-dtype", "x", "int64")
    add("matrix_power(m, 1.5)", lambda: la.matrix_power(m, 1.5), "wrong-type", "n")
    add(
        "matrix_power(singular, -1)",
        lambda: la.matrix_power(singular, -1),
        "singular",
        "x",
        "singular",
    )
    add("eigh(rect)", lambda: la.eigh(rect), "bad-value", "x", "square")
    add("svd(xf)", lambda: la.svd(xf), "bad-value", "x", "dimension")
    add("qr(m, mode='foo')", lambda: la.qr(m, mode="foo"), "bad-value", "mode")
    add("matrix_norm(m, ord='foo')", lambda: la.matrix_norm(m, ord="foo"), "bad-value", "ord")
    add("vector_norm(xf, ord='foo')", lambda: la.vector_norm(xf, ord="foo"), "wrong-type", "ord")
    add("vector_norm(xf, axis=3)", lambda: la.vector_norm(xf, axis=3), "axis-range", "axis")
    add("cross(xf, ones(2))", lambda: la.cross(xf, ca.ones(2)), "bad-value", "shape", "x2")
    add("matmul(xf, m)", lambda: ca.matmul(xf, m), "bad-value", "shape", "x2")
    add("matmul(xf, 2.0)", lambda: ca.matmul(xf, 2.0), "wrong-type", "x2")
    add("tensordot(m, m, axes=-1)", lambda: ca.tensordot(m, m, axes=-1), "bad-value", "axes")
    add("vecdot(xf, ones(2))", lambda: ca.vecdot(xf, ca.ones(2)), "bad-value", "shape")
    add("det(m3[0][0])", lambda: la.det(m3[0][0]), "bad-value", "x", "dimension")
    add("lstsq(m, ones(3))", lambda: la.lstsq(m, ca.ones(3)), "bad-value", "shape", "b", "x2")
    add("pinv(xf)", lambda: la.pinv(xf), "bad-value", "x", "dimension")
    add("slogdet(rect)", lambda: la.slogdet(rect), "bad-value", "x", "square")

    # statistical
    add("sum(xf, axis=3)", lambda: ca.sum(xf, axis=3), "axis-range", "axis")
    add("sum(xf, axis=(0, 0))", lambda: ca.sum(xf, axis=(0, 0)), "bad-value", "axis")
    add("sum(xf, axis=1.5)", lambda: ca.sum(xf, axis=1.5), "wrong-type", "axis")
    add("sum(xf, dtype='foo')", lambda: ca.sum(xf, dtype="foo"), "unknown-dtype", "dtype")
    add("mean(xi)", lambda: ca.mean(xi), "bad-dtype", "mean", "int64")
    add("std(xf, correction=-1)", lambda: ca.std(xf, correction=-1), "bad-value", "correction")
    add("var(xf, correction='a')", lambda: ca.var(xf, correction="a"), "wrong-type", "correction")
    add("max(zeros(0))", lambda: ca.max(ca.zeros(0)), "bad-value", "empty", "x")
    add("max(xf, axis=2)", lambda: ca.max(xf, axis=2), "axis-range", "axis")
    add("cumulative_sum(m)", lambda: ca.cumulative_sum(m), "bad-value", "axis")
    add("cumulative_sum(xf, axis=2)", lambda: ca.cumulative_sum(xf, axis=2), "axis-range", "axis")
    add("sum(xf, keepdims='y')", lambda: ca.sum(xf, keepdims="y"), "wrong-type", "keepdims")

    # sorting, searching, sets
    add("sort(xf, axis=2)", lambda: ca.sort(xf, axis=2), "axis-range", "axis")
    add("sort(xc)", lambda: ca.sort(xc), "bad-dtype", "complex")
    add("argsort(xf, axis=1.5)", lambda: ca.argsort(xf, axis=1.5), "wrong-type", "axis")
    add("argmax(zeros(0))", lambda: ca.argmax(ca.zeros(0)), "bad-value", "empty", "x")
    add("argmax(xf, axis=2)", lambda: ca.argmax(xf, axis=2), "axis-range", "axis")
    add("searchsorted(m, xf)", lambda: ca.searchsorted(m, xf), "bad-value", "x1", "dimension")
    add(
        "searchsorted(xf, xf, side='mid')",
        lambda: ca.searchsorted(xf, xf, side="mid"),
        "bad-value",
        "side",
    )
    add("where(xf, xf, xf)", lambda: ca.where(xf, xf, xf), "bad-dtype", "condition", "bool")
    add(
        "nonzero(asarray(1))",
        lambda: ca.nonzero(ca.asarray(1)),
        "bad-value",
        "x",
        "0-d",
        "dimension",
    )
    add("unique_values([1, 2])", lambda: ca.unique_values([1, 2]), "wrong-type", "x")
    add(
        "take(xf, asarray([5]))",
        lambda: ca.take(xf, ca.asarray([5])),
        "index-range",
        "indices",
        "5",
    )
    add("take(xf, asarray([1.0]))", lambda: ca.take(xf, ca.asarray([1.0])), "bad-dtype", "indices")
    add(
        "take(m, asarray([0]), axis=3)",
        lambda: ca.take(m, ca.asarray([0]), axis=3),
        "axis-range",
        "axis",
    )
    add(
        "take_along_axis(xf, asarray([5]))",
        lambda: ca.take_along_axis(xf, ca.asarray([5])),
        "index-range",
        "indices",
        "5",
    )

    # fft
    fft = ca.fft
    add("fft(xc, n=0)", lambda: fft.fft(xc, n=0), "bad-value", "n")
    add("fft(xc, n=-1)", lambda: fft.fft(xc, n=-1), "bad-value", "n")
    add("fft(xc, n=1.5)", lambda: fft.fft(xc, n=1.5), "wrong-type", "n")
    add("fft(xc, axis=3)", lambda: fft.fft(xc, axis=3), "axis-range", "axis")
    add("fft(xc, norm='foo')", lambda: fft.fft(xc, norm="foo"), "bad-value", "norm")
    add("fft(xi)", lambda: fft.fft(xi), "bad-dtype", "x", "int64")
    add("rfft(xc)", lambda: fft.rfft(xc), "bad-dtype", "x", "complex")
    add("fftn(xc, s=(2, 2))", lambda: fft.fftn(xc, s=(2, 2)), "bad-value", "s", "axes")
    add("fftfreq(-1)", lambda: fft.fftfreq(-1), "bad-value", "n")
    add("fftfreq(4, d=0)", lambda: fft.fftfreq(4, d=0), "bad-value", "d")
    add("fftshift(xc, axes=4)", lambda: fft.fftshift(xc, axes=4), "axis-range", "axes", "axis")

    # NumPy-style array methods
    add("xf.reshape(2, 2)", lambda: xf.reshape(2, 2), "bad-value", "shape")
    add("xf.reshape(3, order='F')", lambda: xf.reshape(3, order="F"), "bad-value", "order")
    add("xf.sum(out=[0.0])", lambda: xf.sum(out=[0.0]), "wrong-type", "out")
    add("xf.sum(out=xf)", lambda: xf.sum(out=xf), "bad-value", "out", "shape")
    add("xf.sum(axis=3)", lambda: xf.sum(axis=3), "axis-range", "axis")
    add("xf.astype('foo')", lambda: xf.astype("foo"), "unknown-dtype", "dtype")
    add("xf.view('foo')", lambda: xf.view("foo"), "unknown-dtype", "dtype")
    add("xf.item()", lambda: xf.item(), "bad-value", "size", "item")
    add("xf.item(5)", lambda: xf.item(5), "index-range", "5", "index")
    add("xf.sort(kind='bogo')", lambda: xf.sort(kind="bogo"), "bad-value", "kind")
    add("xf.swapaxes(0, 3)", lambda: xf.swapaxes(0, 3), "axis-range", "axis")
    add("xf.transpose(1, 0)", lambda: xf.transpose(1, 0), "axis-range", "axes")
    add("xf.squeeze(axis=0)", lambda: xf.squeeze(axis=0), "bad-value", "axis")
    add("xi.fill(2**70)", lambda: ca.asarray([1, 2]).fill(2**70), "overflow", "value", str(2**70))
    add("xi.fill('a')", lambda: ca.asarray([1, 2]).fill("a"), "wrong-type", "value")
    add("xf.round(decimals=1.5)", lambda: xf.round(decimals=1.5), "wrong-type", "decimals")
    add("xf.cumsum(axis=3)", lambda: xf.cumsum(axis=3), "axis-range", "axis")
    add("xf.std(ddof=-1)", lambda: xf.std(ddof=-1), "bad-value", "ddof", "correction")
    add("xf.clip(out=xi)", lambda: xf.clip(0, 1, out=xi), "bad-dtype", "out", "dtype")
    add("xf.dot(m)", lambda: xf.dot(m), "bad-value", "shape")

    # beyond the standard: numpy_functions, numpy_math, numpy_statistics
    add("pad(xf, -1)", lambda: ca.pad(xf, -1), "bad-value", "pad_width")
    add("pad(xf, 1, mode='foo')", lambda: ca.pad(xf, 1, mode="foo"), "bad-value", "mode")
    add("split(xf, 2)", lambda: ca.split(xf, 2), "bad-value", "indices_or_sections", "sections")
    add(
        "array_split(xf, 0)",
        lambda: ca.array_split(xf, 0),
        "bad-value",
        "indices_or_sections",
        "sections",
    )
    add("diag(m3)", lambda: ca.diag(m3), "bad-value", "v", "x", "dimension")
    add("delete(xf, 5)", lambda: ca.delete(xf, 5), "index-range", "5", "obj", "index")
    add("insert(xf, 5, 1.0)", lambda: ca.insert(xf, 5, 1.0), "index-range", "5", "obj", "index")
    add("bincount(xf)", lambda: ca.bincount(xf), "bad-dtype", "x", "integer")
    add(
        "bincount(asarray([-1]))",
        lambda: ca.bincount(ca.asarray([-1])),
        "bad-value",
        "x",
        "negative",
    )
    add("histogram(xf, bins=-1)", lambda: ca.histogram(xf, bins=-1), "bad-value", "bins")
    add("einsum('ij,jk', m)", lambda: ca.einsum("ij,jk", m), "bad-value", "operands", "subscripts")
    add("convolve(xf, zeros(0))", lambda: ca.convolve(xf, ca.zeros(0)), "bad-value", "v", "empty")
    add("interp(xf, m, xf)", lambda: ca.interp(xf, m, xf), "bad-value", "xp", "dimension")
    add("resize(xf, -1)", lambda: ca.resize(xf, -1), "bad-size", "new_shape", "shape")
    add("linalg.trace(xf)", lambda: la.trace(xf), "bad-value", "x", "dimension")
    add("diagonal(xf)", lambda: ca.diagonal(xf), "bad-value", "x", "dimension")
    add(
        "fill_diagonal(xf, 1.0)",
        lambda: ca.fill_diagonal(xf, 1.0),
        "bad-value",
        "a",
        "x",
        "dimension",
    )
    add("outer(xf, 'a')", lambda: ca.outer(xf, "a"), "wrong-type", "b", "x2")
    add("percentile(xf, 150)", lambda: ca.percentile(xf, 150), "bad-value", "q")
    add("quantile(xf, -0.5)", lambda: ca.quantile(xf, -0.5), "bad-value", "q")
    add(
        "quantile(xf, 0.5, method='foo')",
        lambda: ca.quantile(xf, 0.5, method="foo"),
        "bad-value",
        "method",
    )
    add("median(xf, axis=3)", lambda: ca.median(xf, axis=3), "axis-range", "axis")
    add(
        "average(xf, weights=ones(2))",
        lambda: ca.average(xf, weights=ca.ones(2)),
        "bad-value",
        "weights",
    )
    add("nanmean(xf, axis=3)", lambda: ca.nanmean(xf, axis=3), "axis-range", "axis")
    add("power(xi, -1)", lambda: ca.power(xi, -1), "bad-value", "x2", "negative")
    add("float_power(xf, 'a')", lambda: ca.float_power(xf, "a"), "wrong-type", "x2")
    add("around(xf, 1.5)", lambda: ca.around(xf, 1.5), "wrong-type", "decimals")
    add("isclose(xf, 'a')", lambda: ca.isclose(xf, "a"), "wrong-type", "b", "x2")
    add("allclose(xf, ones(2))", lambda: ca.allclose(xf, ca.ones(2)), "bad-value", "shape")
    add("cumsum(xf, axis=3)", lambda: ca.cumsum(xf, axis=3), "axis-range", "axis")
    add("count_nonzero(xf, axis=3)", lambda: ca.count_nonzero(xf, axis=3), "axis-range", "axis")
    add("isin(xf, 'a')", lambda: ca.isin(xf, "a"), "wrong-type", "test_elements", "x2")
    add("atleast_2d('a')", lambda: ca.atleast_2d("a"), "wrong-type", "arrays", "x")
    add(
        "column_stack([xf, ones(2)])",
        lambda: ca.column_stack([xf, ca.ones(2)]),
        "bad-value",
        "shape",
    )
    return cases


SNAPSHOT_INPUTS = ("xf", "xi", "m")


def sweep() -> list[Outcome]:
    """Run every case; the arrays the cases share must be unchanged afterwards."""
    return [run_case(case) for case in _cases()]


def summary(outcomes: list[Outcome]) -> str:
    flags = Counter(flag for o in outcomes for flag in o.flags)
    types = Counter(type(o.error).__name__ if o.error else "-" for o in outcomes)
    clean = sum(1 for o in outcomes if not o.flags)
    lines = [f"{len(outcomes)} bad inputs, {clean} clean, {len(outcomes) - clean} flagged", ""]
    lines.append(f"{'flag':<10} {'cases':>5}  meaning")
    meanings = {
        "numpy": "NumPy's/CuPy's own text or frame",
        "no-arg": "message does not name the argument",
        "no-fix": "message names no fix",
        "type": "exception type differs from the family's",
        "grammar": "'a int' and friends",
        "none": "no exception raised",
        "refused": "a dtype spelling taken elsewhere is refused here",
    }
    for flag, meaning in meanings.items():
        lines.append(f"{flag:<10} {flags.get(flag, 0):>5}  {meaning}")
    lines.append("")
    lines.append("exception types: " + ", ".join(f"{k} {v}" for k, v in types.most_common()))
    return "\n".join(lines)


def describe(outcome: Outcome) -> str:
    kind = type(outcome.error).__name__ if outcome.error else "(none)"
    flags = ",".join(outcome.flags) or "ok"
    text = str(outcome.error).replace("\n", " ") if outcome.error else ""
    return f"{outcome.case.label:<40} {kind:<14} [{flags}] {text}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verbose", action="store_true", help="list every case")
    parser.add_argument("--flagged", action="store_true", help="list only flagged cases")
    args = parser.parse_args(argv)
    outcomes = sweep()
    if args.verbose or args.flagged:
        for outcome in outcomes:
            if args.verbose or outcome.flags:
                print(describe(outcome))
        print()
    print(summary(outcomes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
