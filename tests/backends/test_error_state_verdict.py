"""The NumPy backend remembers its last reading of NumPy's error state and of
the warning filters (cowarray/_backends/numpy.py): every change of either
must be seen at the next in-place write, or an error raised after NumPy's
loop could leave an array half written (design.md rule 3)."""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest

import cowarray as ca
from cowarray._backends.numpy import NUMPY_BACKEND

FLOAT = np.dtype(np.float64)


def _surfaces() -> bool:
    return NUMPY_BACKEND.errors_may_surface("divide", FLOAT)


def test_every_change_of_the_error_state_is_seen() -> None:
    default = _surfaces()
    with np.errstate(all="ignore"):
        assert _surfaces() is False
        with np.errstate(divide="raise"):
            assert _surfaces() is True
        assert _surfaces() is False
    assert _surfaces() is default
    old = np.seterr(all="call")
    try:
        assert _surfaces() is True
    finally:
        np.seterr(**old)
    assert _surfaces() is default


def test_every_change_of_the_warning_filters_is_seen() -> None:
    with np.errstate(all="warn"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _surfaces() is False
        warnings.filters.insert(0, ("error", None, RuntimeWarning, None, 0))  # in place
        assert _surfaces() is True
        del warnings.filters[0]
        assert _surfaces() is False
        warnings.filters[0] = ("error", None, Warning, None, 0)  # replaced in place
        assert _surfaces() is True


def test_each_thread_reads_its_own_error_state() -> None:
    seen: dict[str, bool] = {}
    ready = threading.Barrier(2)

    def run(name: str, mode: str) -> None:
        with np.errstate(all=mode):
            ready.wait()
            for _ in range(200):
                if _surfaces() is not (mode == "raise"):
                    seen[name] = False
                    return
            seen[name] = True

    threads = [
        threading.Thread(target=run, args=("raises", "raise")),
        threading.Thread(target=run, args=("ignores", "ignore")),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert seen == {"raises": True, "ignores": True}


def test_a_write_through_under_a_newly_raising_state_changes_nothing() -> None:
    x = ca.asarray(np.arange(8.0))
    x[0:4] += 1.0  # (remembers the default state)
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError):
        x[0:4] /= 0.0
    np.testing.assert_array_equal(np.asarray(x), np.arange(8.0) + np.r_[1.0, 1, 1, 1, 0, 0, 0, 0])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with np.errstate(divide="warn"), pytest.raises(RuntimeWarning):
            x[0:4] /= 0.0
    np.testing.assert_array_equal(np.asarray(x), np.arange(8.0) + np.r_[1.0, 1, 1, 1, 0, 0, 0, 0])
