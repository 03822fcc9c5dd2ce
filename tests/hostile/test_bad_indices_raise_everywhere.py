"""An out-of-range index raises IndexError on every backend, never wraps (rule 3).

CuPy's integer-array indexing wraps an out-of-range entry around: a silent
wrong value. Every entry point that takes an index is tried with one, on
every device, and must raise NumPy's message and change nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import cowarray as ca
from cowarray.testing import to_numpy

ENTRY_POINTS: list[tuple[str, Callable[[ca.Array, Any], object]]] = [
    ("x[idx]", lambda x, i: x[i]),
    ("x[idx] = v", lambda x, i: x.__setitem__(i, 1.0)),
    ("x[idx, ...]", lambda x, i: x[i, ...]),
    ("x[..., idx] = v", lambda x, i: x.__setitem__((Ellipsis, i), 1.0)),
    ("take", lambda x, i: ca.take(x, i, axis=0)),
    ("take_along_axis", lambda x, i: ca.take_along_axis(x, i, axis=0)),
    ("at.get", lambda x, i: x.at[i].get()),
    ("at.set", lambda x, i: x.at[i].set(1.0)),
    ("at.add", lambda x, i: x.at[i].add(1.0)),
    ("at.apply", lambda x, i: x.at[i].apply(ca.negative)),
]


@pytest.mark.parametrize("entry", [e[1] for e in ENTRY_POINTS], ids=[e[0] for e in ENTRY_POINTS])
@pytest.mark.parametrize("bad", [5, -6], ids=["past-the-end", "before-the-start"])
def test_an_out_of_range_integer_array_raises_and_changes_nothing(
    entry: Callable[[ca.Array, Any], object], bad: int, backend_device: ca.Device
) -> None:
    x = ca.arange(5.0, device=backend_device)
    clone = ca.lazy_clone(x)
    index = ca.asarray([0, bad], device=backend_device)
    # cowarray's words, the same on every device (take names the function instead;
    # x.at[...].get and .apply still pass the backend's words on, from _at._region)
    message = (
        rf"(^|: )index {bad} is out of range for axis 0 of length 5|an index in indices"
        rf"|at\[...\]\.(get|apply): [Ii]ndex {bad} is out of bounds for axis 0 with size 5"
    )
    with pytest.raises(IndexError, match=message):
        entry(x, index)
    np.testing.assert_array_equal(to_numpy(x), np.arange(5.0))
    np.testing.assert_array_equal(to_numpy(clone), np.arange(5.0))
