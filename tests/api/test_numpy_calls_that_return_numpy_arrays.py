"""NumPy functions that make NumPy arrays of what they are given, on cowarray arrays.

``np.sin(x)`` and ``np.concatenate([x, y])`` come back to cowarray (rule 11).
Some NumPy functions never ask the array: they convert it with
``np.asarray`` and return an ndarray. The converters (``np.ascontiguousarray``
and its kin) do so by design: that is how SciPy hands arrays to compiled
code, and they get ``np.asarray(x)``'s export (rule 4). Three would silently
turn a user's array into NumPy's where nothing asked for one:
``np.lib.stride_tricks.as_strided``, ``np.vectorize(f)(x)`` and, from
Python 3.12, ``np.frombuffer(x)`` (``memoryview(x)``, ``bytes(x)``). Called
from a user's code they raise a TypeError that says why and what to call
instead, and leave every array as it was; called from a library's code
(xarray uses ``np.vectorize``) they keep NumPy's meaning.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import cowarray as ca
from cowarray._consumers import LIBRARY_PREFIXES


def _arrays() -> tuple[ca.Array, ca.Array, np.ndarray]:
    x = ca.asarray([1.0, -2.0, 3.0, 4.0])
    return x, ca.lazy_clone(x), np.asarray(x, copy=True)


REFUSED: dict[str, tuple[Callable[[ca.Array], Any], tuple[str, ...]]] = {
    "as_strided": (
        lambda x: np.lib.stride_tricks.as_strided(x, shape=(2,), strides=(16,)),
        ("as_strided", "sliding_window_view", "np.asarray(x)"),
    ),
    "as_strided read-only": (
        lambda x: np.lib.stride_tricks.as_strided(x, writeable=False),
        ("as_strided", "sliding_window_view"),
    ),
    "vectorize": (lambda x: np.vectorize(abs)(x), ("np.vectorize", "ca.where", "np.asarray(x)")),
    "vectorize with otypes": (
        lambda x: np.vectorize(abs, otypes=[float])(x),
        ("np.vectorize", "ca.asarray("),
    ),
    "vectorize with a signature": (
        lambda x: np.vectorize(lambda v: v[::-1], signature="(n)->(n)")(x),
        ("np.vectorize",),
    ),
    "vectorize beside an ndarray": (
        lambda x: np.vectorize(lambda a, b: a + b)(np.ones(4), x),
        ("np.vectorize",),
    ),
}


@pytest.mark.parametrize("name", REFUSED)
def test_a_numpy_call_that_would_hand_back_an_ndarray_says_what_to_call(name: str) -> None:
    call, words = REFUSED[name]
    x, clone, model = _arrays()
    state = ca.cow_info(x).state
    with pytest.raises(TypeError, match="does not take a cowarray Array") as caught:
        call(x)
    for word in words:
        assert word in str(caught.value), (word, str(caught.value))
    np.testing.assert_array_equal(np.asarray(x, copy=True), model)
    np.testing.assert_array_equal(np.asarray(clone, copy=True), model)
    assert ca.cow_info(x).state == state  # refused before anything was exported


def test_what_the_message_says_to_call_instead_works() -> None:
    x, _, model = _arrays()
    windows = ca.lib.stride_tricks.sliding_window_view(x, 2)
    assert type(windows) is ca.Array and ca.shares_buffer(windows, x)
    doubled = ca.asarray(np.vectorize(abs)(np.asarray(x)))
    np.testing.assert_array_equal(np.asarray(doubled), np.abs(model))
    np.testing.assert_array_equal(np.asarray(ca.where(x > 0, x, 0.0)), np.maximum(model, 0))


def _library_function(source: str, name: str) -> Any:
    """``name`` from ``source`` compiled as if it were a module of an installed library."""
    filename = os.path.join(LIBRARY_PREFIXES[0], "some_library", "module.py")
    namespace: dict[str, Any] = {"np": np, "__name__": "some_library.module"}
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name]


def test_a_library_calling_them_gets_numpys_answer() -> None:
    windows = _library_function(
        "def windows(x):\n    return np.lib.stride_tricks.as_strided(x, shape=(3, 2), "
        "strides=(8, 8), writeable=False)",
        "windows",
    )
    absolute = _library_function("def absolute(x):\n    return np.vectorize(abs)(x)", "absolute")
    x, clone, model = _arrays()
    got = windows(x)
    assert type(got) is np.ndarray
    np.testing.assert_array_equal(got, [[1.0, -2.0], [-2.0, 3.0], [3.0, 4.0]])
    assert type(absolute(x)) is np.ndarray
    np.testing.assert_array_equal(absolute(x), np.abs(model))
    np.testing.assert_array_equal(np.asarray(clone, copy=True), model)


def test_a_function_of_the_same_name_is_not_refused() -> None:
    def as_strided(x: Any) -> np.ndarray:  # the user's own, not NumPy's
        return np.asarray(x)

    x, clone, model = _arrays()
    assert type(as_strided(x)) is np.ndarray
    np.testing.assert_array_equal(np.asarray(clone, copy=True), model)


CONVERTERS: dict[str, Callable[[ca.Array], np.ndarray]] = {
    "np.asarray": np.asarray,
    "np.asanyarray": np.asanyarray,
    "np.ascontiguousarray": np.ascontiguousarray,
    "np.asfortranarray": np.asfortranarray,
    "np.require": lambda x: np.require(x, requirements="C"),
    "np.array(copy=None)": lambda x: np.array(x, copy=None),
}


@pytest.mark.parametrize("name", CONVERTERS)
def test_numpys_converters_give_numpys_view_of_x_as_np_asarray_does(name: str) -> None:
    """NumPy calls them without asking the array (NumPy's C code reads ``__array__``,
    as ``np.asarray`` does), and SciPy uses them to hand arrays to compiled code:
    they get rule 4's export, a writable view of ``x``'s memory alone."""
    x, clone, model = _arrays()
    view = CONVERTERS[name](x)
    assert type(view) is np.ndarray
    assert ca.cow_info(x).state == "exposed"
    view[0] = 100.0  # changes x, as np.asarray(x)'s view does, and no other value
    assert float(x[0]) == 100.0
    np.testing.assert_array_equal(np.asarray(clone, copy=True), model)


BUFFER_CALLS: dict[str, Callable[[ca.Array], Any]] = {
    "np.frombuffer": np.frombuffer,
    "memoryview": memoryview,
    "bytes": bytes,
}
BUFFER_PROTOCOL = pytest.mark.skipif(
    sys.version_info < (3, 12),
    reason="a Python class defines the buffer protocol from 3.12 (PEP 688): on 3.11 "
    "np.frombuffer(x) says 'a bytes-like object is required', in Python's words",
)


@BUFFER_PROTOCOL
@pytest.mark.parametrize("name", BUFFER_CALLS)
def test_the_buffer_protocol_is_refused_naming_what_to_write(name: str) -> None:
    x, clone, model = _arrays()
    with pytest.raises(TypeError, match="buffer protocol") as caught:
        BUFFER_CALLS[name](x)
    assert "np.asarray(x).tobytes()" in str(caught.value) and "x.view(dtype)" in str(caught.value)
    np.testing.assert_array_equal(np.asarray(x, copy=True), model)
    np.testing.assert_array_equal(np.asarray(clone, copy=True), model)
    assert ca.cow_info(x).state == "shared"


def test_numpy_conversions_go_on_to_array_past_the_refused_buffer() -> None:
    # NumPy asks the buffer protocol first and, refused, goes on to __array__
    x, _clone, model = _arrays()  # (the clone keeps x shared)
    copied = np.array(x)
    assert ca.cow_info(x).state == "shared"  # a copy exposed nothing
    np.testing.assert_array_equal(copied, model)
    np.testing.assert_array_equal(np.asarray([ca.asarray(1.0), ca.asarray(2.0)]), [1.0, 2.0])
    assert np.asarray(x, dtype=np.float32).dtype == np.float32
    np.testing.assert_array_equal(np.frombuffer(np.asarray(x).tobytes()), model)
