"""Every copy an export makes is visible too (docs/design.md rule 9): ``np.array(x)``,
``__dlpack__(copy=True)``, ``to_torch(x, copy=True)`` copy ``x``'s values out for
the consumer and count as one copy each; a zero-copy export counts nothing."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import cowarray as ca
from cowarray._core import cow

N = 1000

_COPYING: dict[str, Callable[[ca.Array], Any]] = {
    "np.array(x)": lambda x: np.array(x),
    "np.asarray(x, copy=True)": lambda x: np.asarray(x, copy=True),
    "np.asarray(x, dtype=float32)": lambda x: np.asarray(x, dtype=np.float32),
    "np.from_dlpack(x, copy=True)": lambda x: np.from_dlpack(x, copy=True),
    "x.__dlpack__(copy=True)": lambda x: x.__dlpack__(copy=True),
    "np.from_dlpack(x[::-1])": lambda x: np.from_dlpack(x[::-1]),  # a layout refused
}
_ZERO_COPY: dict[str, Callable[[ca.Array], Any]] = {
    "np.asarray(x)": lambda x: np.asarray(x),
    "np.from_dlpack(x)": lambda x: np.from_dlpack(x),
    "x.to_device(x.device)": lambda x: x.to_device(x.device),
}


@pytest.mark.parametrize("spelling", list(_COPYING))
def test_an_export_that_copies_is_counted_traced_and_warned(spelling: str) -> None:
    x = ca.arange(float(N))
    expected = N * 8
    cow.COUNTERS.reset()
    with ca.trace() as seen:
        exported = _COPYING[spelling](x)
    assert cow.COUNTERS.snapshot() == (1, expected)
    assert seen.copies == 1 and seen.bytes_copied == expected
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with ca.warn_on_copy(min_bytes=1):
            _COPYING[spelling](x)
    assert [str(w.message).split(":")[0] for w in caught] == [
        f"an export copied {expected} bytes (region ({N},), float64)"
    ]
    assert caught[0].filename == __file__
    del exported


@pytest.mark.parametrize("spelling", list(_ZERO_COPY))
def test_a_zero_copy_export_counts_nothing(spelling: str) -> None:
    x = ca.arange(float(N))
    cow.COUNTERS.reset()
    exported = _ZERO_COPY[spelling](x)
    assert cow.COUNTERS.snapshot() == (0, 0)
    del exported


def test_to_torch_copy_true_is_counted() -> None:
    pytest.importorskip("torch")
    from cowarray.interop.torch import to_torch

    x = ca.arange(float(N))
    cow.COUNTERS.reset()
    tensor = to_torch(x, copy=True)
    assert cow.COUNTERS.snapshot() == (1, N * 8)
    tensor[0] = -1.0
    assert float(x[0]) == 0.0


def test_a_copy_refused_by_a_warning_turned_error_is_not_counted() -> None:
    x = ca.arange(float(N))
    cow.COUNTERS.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ca.CopyWarning)
        with ca.warn_on_copy(min_bytes=1), pytest.raises(ca.CopyWarning):
            np.array(x)
    assert cow.COUNTERS.snapshot() == (0, 0)
