"""A write that raises leaves every array unchanged, private ones included (rule 3).

NumPy reports floating-point errors after its loop has written: an in-place
operator under ``np.errstate(...="raise")``, or with RuntimeWarning turned
into an error, must still leave the array as it was.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterator

import numpy as np
import pytest
from _attack import host

import cowarray as ca

CASES: list[tuple[str, Callable[[], ca.Array], Callable[[ca.Array], object], str]] = [
    ("p *= 10 overflows", lambda: ca.full(3, 1e308), lambda p: p.__imul__(10.0), "over"),
    ("w /= 0 divides by zero", lambda: ca.ones(3), lambda w: w.__itruediv__(0.0), "divide"),
    ("v -= inf is invalid", lambda: ca.full(3, np.inf), lambda v: v.__isub__(np.inf), "invalid"),
    (
        "u **= big overflows, array operand",
        lambda: ca.full(4, 10.0),
        lambda u: u.__ipow__(ca.full(4, 400.0)),
        "over",
    ),
    (
        "i //= 0 on integers",
        lambda: ca.asarray([1, 2, 3]),
        lambda i: i.__ifloordiv__(0),
        "divide",
    ),
    ("big float array", lambda: ca.full(300_000, 1e308), lambda p: p.__imul__(10.0), "over"),
]


@contextlib.contextmanager
def raising(how: str, category: str) -> Iterator[None]:
    """NumPy's floating-point ``category`` raises: by error state, or as a warning."""
    if how == "errstate":
        with np.errstate(**{category: "raise"}):  # type: ignore[arg-type]
            yield
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            yield


@pytest.mark.parametrize("how", ["errstate", "warning-as-error"])
@pytest.mark.parametrize("shared", [False, True], ids=["private", "shared"])
@pytest.mark.parametrize(("name", "make", "write", "category"), CASES, ids=[c[0] for c in CASES])
def test_a_failed_in_place_operator_changes_nothing(
    name: str,
    make: Callable[[], ca.Array],
    write: Callable[[ca.Array], object],
    category: str,
    how: str,
    shared: bool,
) -> None:
    x = make()
    clone = ca.lazy_clone(x) if shared else None
    before = host(x)
    with raising(how, category), pytest.raises((FloatingPointError, RuntimeWarning)):
        write(x)
    np.testing.assert_array_equal(host(x), before)
    if clone is not None:
        np.testing.assert_array_equal(host(clone), before)
    # and x still works as a value afterwards
    x[(0,) * x.ndim] = 1
    assert float(x[(0,) * x.ndim]) == 1


@pytest.mark.parametrize("shared", [False, True], ids=["private", "shared"])
def test_a_failed_assignment_cast_changes_nothing(shared: bool) -> None:
    x = ca.zeros(4, dtype=ca.float32)
    clone = ca.lazy_clone(x) if shared else None
    with np.errstate(over="raise"), pytest.raises(FloatingPointError):
        x[:] = ca.asarray([1.0, 2.0, 1e300, 3.0])
    assert host(x).tolist() == [0.0] * 4
    if clone is not None:
        assert host(clone).tolist() == [0.0] * 4


def test_a_failed_functional_update_changes_nothing() -> None:
    x = ca.full(3, 1e308)
    with np.errstate(over="raise"), pytest.raises(FloatingPointError):
        x.at[0].multiply(10.0)
    assert host(x).tolist() == [1e308] * 3


def test_a_matmul_that_fails_in_place_changes_nothing() -> None:
    a = ca.full((2, 2), 1e308)
    with np.errstate(over="raise"), pytest.raises(FloatingPointError):
        a @= ca.full((2, 2), 1e308)
    assert host(a).tolist() == [[1e308, 1e308], [1e308, 1e308]]
