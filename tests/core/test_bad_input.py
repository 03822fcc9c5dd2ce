"""Mistakes get the standard's exception type, a message that names the problem,
and leave every array unchanged."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import cowarray as ca
from cowarray.testing import assert_equal_to_model


def _inputs() -> dict[str, ca.Array]:
    return {
        "ints": ca.asarray([1, 2, 3]),
        "floats": ca.asarray([[1.0, 2.0], [3.0, 4.0]]),
        "bools": ca.asarray([True, False]),
        "complex": ca.asarray([1 + 2j]),
        "empty": ca.zeros((0, 3)),
        "other_device": ca.asarray([1.0, 2.0], device="cpu:1"),
    }


CASES: list[tuple[str, Callable[[dict[str, ca.Array]], Any], type[Exception], str]] = [
    # creation
    ("asarray bad dtype kind", lambda a: ca.asarray([1], dtype=3), TypeError, "dtype"),
    ("asarray unknown dtype", lambda a: ca.asarray([1], dtype="float128x"), ValueError, "dtype"),
    ("asarray unsupported data", lambda a: ca.asarray(["a", "b"]), TypeError, "<U1"),
    ("asarray object", lambda a: ca.asarray(object()), TypeError, "object"),
    ("asarray huge int", lambda a: ca.asarray(2**70), OverflowError, "int64"),
    ("asarray copy not bool", lambda a: ca.asarray([1], copy="yes"), TypeError, "copy"),
    ("asarray copy=False list", lambda a: ca.asarray([1, 2], copy=False), ValueError, "copy"),
    (
        "asarray copy=False dtype",
        lambda a: ca.asarray(a["ints"], dtype=ca.float64, copy=False),
        ValueError,
        "dtype",
    ),
    ("asarray bad device", lambda a: ca.asarray([1], device="tpu"), ValueError, "tpu"),
    ("asarray device type", lambda a: ca.asarray([1], device=3), TypeError, "device"),
    ("asarray float into int", lambda a: ca.asarray(1.5, dtype=ca.int32), TypeError, "float"),
    ("zeros negative", lambda a: ca.zeros((2, -1)), ValueError, "negative"),
    ("zeros float shape", lambda a: ca.zeros(2.5), TypeError, "shape"),
    ("ones bool shape", lambda a: ca.ones(True), TypeError, "bool"),
    ("empty bad dtype", lambda a: ca.empty(3, dtype=list), TypeError, "dtype"),
    ("full string", lambda a: ca.full(3, "x"), TypeError, "str"),
    ("full lossy", lambda a: ca.full(3, 1.5, dtype=ca.int8), TypeError, "int8"),
    ("full overflow", lambda a: ca.full(3, 1000, dtype=ca.int8), OverflowError, "int8"),
    ("zeros_like not array", lambda a: ca.zeros_like([1, 2]), TypeError, "x must be"),
    ("arange zero step", lambda a: ca.arange(0, 5, 0), ValueError, "step"),
    ("arange complex", lambda a: ca.arange(1j), TypeError, "start"),
    ("linspace negative num", lambda a: ca.linspace(0, 1, -2), ValueError, "num"),
    ("linspace bool dtype", lambda a: ca.linspace(0, 1, 3, dtype=ca.bool), TypeError, "numeric"),
    ("eye negative", lambda a: ca.eye(-1), ValueError, "n_rows"),
    ("eye float k", lambda a: ca.eye(2, k=0.5), TypeError, "k must"),
    ("meshgrid 2-D", lambda a: ca.meshgrid(a["floats"]), ValueError, "1-D"),
    ("meshgrid indexing", lambda a: ca.meshgrid(a["ints"], indexing="yx"), ValueError, "indexing"),
    ("tril 1-D", lambda a: ca.tril(a["ints"]), ValueError, "2 dimensions"),
    # manipulation
    ("reshape size", lambda a: ca.reshape(a["ints"], (2, 2)), ValueError, "size 3"),
    ("reshape two -1", lambda a: ca.reshape(a["floats"], (-1, -1)), ValueError, "-1"),
    (
        "reshape no view",
        lambda a: ca.reshape(a["floats"].T, (4,), copy=False),
        ValueError,
        "without copying",
    ),
    ("reshape shape type", lambda a: ca.reshape(a["ints"], "3"), TypeError, "shape"),
    ("permute_dims wrong count", lambda a: ca.permute_dims(a["floats"], (0,)), ValueError, "axes"),
    ("permute_dims repeat", lambda a: ca.permute_dims(a["floats"], (0, 0)), ValueError, "repeats"),
    (
        "permute_dims out of range",
        lambda a: ca.permute_dims(a["floats"], (0, 2)),
        IndexError,
        "out of range",
    ),
    ("expand_dims axis", lambda a: ca.expand_dims(a["ints"], axis=5), IndexError, "axis=5"),
    ("squeeze long axis", lambda a: ca.squeeze(a["ints"], axis=0), ValueError, "length 3"),
    ("flip axis", lambda a: ca.flip(a["ints"], axis=1), IndexError, "axis=1"),
    ("broadcast_to", lambda a: ca.broadcast_to(a["ints"], (2, 4)), ValueError, "broadcast"),
    ("T on 1-D", lambda a: a["ints"].T, ValueError, "2-D"),
    ("mT on 1-D", lambda a: a["ints"].mT, ValueError, "2 dimensions"),
    # data types
    (
        "astype complex to real",
        lambda a: ca.astype(a["complex"], ca.float64),
        TypeError,
        "imaginary",
    ),
    ("astype bad dtype", lambda a: ca.astype(a["ints"], "text"), ValueError, "dtype"),
    ("astype not array", lambda a: ca.astype([1], ca.int8), TypeError, "x must be"),
    # element-wise
    (
        "in-place add of a float array to ints",  # x + y promotes (design rule 11)
        lambda a: a["ints"].__iadd__(ca.asarray([1.0, 2, 3])),
        TypeError,
        "in-place",
    ),
    (
        "in-place add of a float scalar to ints",
        lambda a: a["ints"].__iadd__(1.5),
        TypeError,
        "float",
    ),
    ("add booleans", lambda a: ca.add(a["bools"], a["bools"]), TypeError, "numeric"),
    ("add two scalars", lambda a: ca.add(1, 2), TypeError, "at least one"),
    ("add a list", lambda a: ca.add(a["ints"], [1, 2, 3]), TypeError, "list"),
    ("add devices", lambda a: ca.add(a["floats"][0], a["other_device"]), ValueError, "devices"),
    ("shapes", lambda a: a["ints"] + ca.asarray([1, 2]), ValueError, "broadcast"),
    ("bitwise on floats", lambda a: a["floats"] & a["floats"], TypeError, "integer or boolean"),
    ("less on complex", lambda a: a["complex"] < a["complex"], TypeError, "real-valued"),
    ("sqrt of ints", lambda a: ca.sqrt(a["ints"]), TypeError, "floating"),
    ("negative of list", lambda a: ca.negative([1]), TypeError, "Array"),
    # statistical
    ("sum axis", lambda a: ca.sum(a["ints"], axis=1), IndexError, "axis=1"),
    ("sum keepdims", lambda a: ca.sum(a["ints"], keepdims=1), TypeError, "keepdims"),
    ("mean of bools", lambda a: ca.mean(a["bools"]), TypeError, "floating"),
    ("max of empty", lambda a: ca.max(a["empty"]), ValueError, "empty"),
    ("min axis repeat", lambda a: ca.min(a["floats"], axis=(0, 0)), ValueError, "repeats"),
    ("mean of ints", lambda a: ca.mean(a["ints"]), TypeError, "floating"),
    # COW helpers
    ("lazy_clone not array", lambda a: ca.lazy_clone(np.ones(2)), TypeError, "Array"),
    ("cow_info not array", lambda a: ca.cow_info([1]), TypeError, "Array"),
    ("shares_buffer not array", lambda a: ca.shares_buffer(a["ints"], 3), TypeError, "Array"),
    ("Device name", lambda a: ca.Device("cpu:7"), ValueError, "cpu:7"),
    ("to_device unknown", lambda a: a["ints"].to_device("gpu"), ValueError, "gpu"),
    (
        "cuda without cupy",
        lambda a: ca.zeros(2, device="cuda:0"),
        ModuleNotFoundError,
        "cupy-cuda12x",
    ),
]


@pytest.mark.parametrize(
    ("call", "error", "message"), [case[1:] for case in CASES], ids=[case[0] for case in CASES]
)
def test_mistake_raises_clear_error_and_changes_nothing(
    call: Callable[[dict[str, ca.Array]], Any], error: type[Exception], message: str
) -> None:
    if error is ModuleNotFoundError:
        pytest.importorskip("os")  # always there; the check below needs no cupy
        import importlib.util

        if importlib.util.find_spec("cupy") is not None:
            pytest.skip("CuPy is installed here")
    inputs = _inputs()
    before = {
        name: np.array(np.asarray(array.to_device("cpu"), copy=True))
        for name, array in inputs.items()
    }
    with pytest.raises(error, match=re.compile(message, re.IGNORECASE)):
        call(inputs)
    for name, array in inputs.items():
        assert_equal_to_model(array.to_device("cpu"), before[name])
