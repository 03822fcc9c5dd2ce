"""Every chapter's functions keep their inputs' device and refuse mixed devices."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _compare import assert_value

import cowarray as ca
from cowarray.testing import to_numpy

Case = Callable[[Any, Any, Any], Any]

# name -> a call on a float array x, another float array y and an index array i
CALLS: dict[str, Case] = {
    "hypot": lambda x, y, i: ca.hypot(x, y),
    "clip": lambda x, y, i: ca.clip(x, y, None),
    "real": lambda x, y, i: ca.real(x),
    "concat": lambda x, y, i: ca.concat([x, y]),
    "stack": lambda x, y, i: ca.stack([x, y]),
    "moveaxis": lambda x, y, i: ca.moveaxis(ca.reshape(x, (2, 2)), 0, 1),
    "repeat": lambda x, y, i: ca.repeat(x, 2),
    "roll": lambda x, y, i: ca.roll(x, 1),
    "tile": lambda x, y, i: ca.tile(x, (2,)),
    "unstack": lambda x, y, i: ca.unstack(ca.reshape(x, (2, 2)))[0],
    "broadcast_arrays": lambda x, y, i: ca.broadcast_arrays(x, y)[1],
    "take": lambda x, y, i: ca.take(x, i),
    "take_along_axis": lambda x, y, i: ca.take_along_axis(x, i, axis=0),
    "argmax": lambda x, y, i: ca.argmax(x),
    "count_nonzero": lambda x, y, i: ca.count_nonzero(x),
    "nonzero": lambda x, y, i: ca.nonzero(x)[0],
    "searchsorted": lambda x, y, i: ca.searchsorted(ca.sort(x), y),
    "where": lambda x, y, i: ca.where(x > 1, x, y),
    "sort": lambda x, y, i: ca.sort(x, descending=True),
    "argsort": lambda x, y, i: ca.argsort(x),
    "unique_values": lambda x, y, i: ca.unique_values(x),
    "unique_all": lambda x, y, i: ca.unique_all(x).inverse_indices,
    "isin": lambda x, y, i: ca.isin(x, y),
    "all": lambda x, y, i: ca.all(x),
    "diff": lambda x, y, i: ca.diff(x, append=y),
    "prod": lambda x, y, i: ca.prod(x),
    "std": lambda x, y, i: ca.std(x, correction=1),
    "cumulative_sum": lambda x, y, i: ca.cumulative_sum(x, include_initial=True),
}

MIXED: dict[str, Case] = {
    "hypot": lambda x, y, i: ca.hypot(x, y),
    "clip": lambda x, y, i: ca.clip(x, y),
    "concat": lambda x, y, i: ca.concat([x, y]),
    "stack": lambda x, y, i: ca.stack([x, y]),
    "broadcast_arrays": lambda x, y, i: ca.broadcast_arrays(x, y),
    "take": lambda x, y, i: ca.take(x, i),
    "searchsorted": lambda x, y, i: ca.searchsorted(x, y),
    "where": lambda x, y, i: ca.where(x > 1, x, y),
    "isin": lambda x, y, i: ca.isin(x, y),
    "diff": lambda x, y, i: ca.diff(x, prepend=y),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_results_stay_on_the_inputs_device_and_are_values(name: str, device: ca.Device) -> None:
    x = ca.asarray([3.0, 1.0, 4.0, 1.0], device=device)
    y = ca.asarray([2.0, 7.0, 1.0, 8.0], device=device)
    i = ca.asarray([3, 0, 0, 2], device=device)
    before = to_numpy(x)
    result = CALLS[name](x, y, i)
    assert result.device is device
    np.testing.assert_array_equal(to_numpy(x), before)
    assert_value(result, x, y)


@pytest.mark.parametrize("name", sorted(MIXED))
def test_mixing_devices_is_refused(name: str) -> None:
    x = ca.asarray([3.0, 1.0, 4.0, 1.0])
    y = ca.asarray([2.0, 7.0, 1.0, 8.0], device="cpu:1")
    i = ca.asarray([0, 1], device="cpu:1")
    with pytest.raises(ValueError, match="device"):
        MIXED[name](x, y, i)
