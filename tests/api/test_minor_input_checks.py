"""Small inputs that did the wrong thing quietly (issue 25, item 11).

``ca.set_page_cow("yes")`` turned page copy-on-write on (so would ``"no"``):
a setting takes a bool, and a wrong type is a TypeError that changes
nothing. NumPy exports alive at interpreter exit (in module globals, made on
threads) release without "Exception ignored" noise, whatever order CPython
tears the modules down in.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Iterator

import numpy as np
import pytest

import cowarray as ca
from cowarray._core import cow


@pytest.fixture(autouse=True)
def _settings_restored() -> Iterator[None]:
    before = ca.page_cow_settings()
    try:
        yield
    finally:
        ca.set_page_cow(*before)


def _state() -> tuple[ca.PageCow, int | None]:
    return ca.page_cow_settings(), cow.page_cow_min


@pytest.mark.parametrize("bad", ["yes", "no", "", 1, 0, 1.0, None, [True]])
def test_set_page_cow_refuses_an_enabled_that_is_not_a_bool_and_changes_nothing(
    bad: object,
) -> None:
    ca.set_page_cow(False, threshold=12345)
    before = _state()
    with pytest.raises(TypeError, match=r"enabled must be a bool.*got"):
        ca.set_page_cow(bad)  # type: ignore[arg-type]
    assert _state() == before
    with pytest.raises(TypeError, match="enabled"):
        ca.set_page_cow(bad, threshold=0)  # type: ignore[arg-type]
    assert _state() == before  # the valid threshold beside it was not taken either


@pytest.mark.parametrize("flag", [True, False, np.True_, np.False_])
def test_set_page_cow_takes_python_and_numpy_bools(flag: bool) -> None:
    ca.set_page_cow(flag, threshold=4096)
    enabled, threshold = ca.page_cow_settings()
    assert type(enabled) is bool and threshold == 4096
    assert not enabled or bool(flag)  # on only where asked (and where Linux allows)


@pytest.mark.parametrize("bad", [1.5, True, np.True_, "8", [4096], 4096.0])
def test_a_threshold_of_the_wrong_type_is_a_type_error_that_changes_nothing(
    bad: object,
) -> None:
    ca.set_page_cow(False, threshold=12345)
    before = _state()
    with pytest.raises(TypeError, match=r"threshold must be an int >= 0.*got"):
        ca.set_page_cow(True, threshold=bad)  # type: ignore[arg-type]
    assert _state() == before
    # (a ValueError too, as set_page_cow raised before: callers catching it keep working)
    with pytest.raises(ValueError, match="threshold"):
        ca.set_page_cow(True, threshold=bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [-1, np.int64(-4096)])
def test_a_negative_threshold_is_a_value_error_that_changes_nothing(bad: object) -> None:
    ca.set_page_cow(False, threshold=12345)
    before = _state()
    with pytest.raises(ValueError, match=r"threshold must be an int >= 0") as caught:
        ca.set_page_cow(True, threshold=bad)  # type: ignore[arg-type]
    assert not isinstance(caught.value, TypeError)
    assert _state() == before


def test_a_numpy_integer_threshold_is_taken_as_an_int() -> None:
    ca.set_page_cow(False, threshold=np.int64(4096))  # type: ignore[arg-type]
    threshold = ca.page_cow_settings().threshold
    assert threshold == 4096 and type(threshold) is int


# Exports that die at interpreter exit: in module globals, made on threads
# (np.asarray and a DLPack import), and in a module entered before cowarray
# that the sys module keeps alive. CPython clears module globals in reverse
# order of import, so that module's exports die after cowarray's own modules
# have had their globals set to None, while sys.stderr still prints.
_EXITING_SCRIPT = textwrap.dedent(
    """
    import sys
    import threading
    import types

    early = types.ModuleType("entered_before_cowarray")
    sys.modules[early.__name__] = early
    sys.keeps_it_alive = early

    import numpy as np
    import cowarray as ca

    arrays = [ca.asarray(np.arange(8.0) + i) for i in range(6)]
    exports = [np.asarray(x) for x in arrays]
    views = [e[1:] for e in exports]
    imported = [np.from_dlpack(ca.asarray(np.ones(4) * i)) for i in range(3)]
    made_on_threads = []


    def export_on_a_thread(i):
        x = ca.asarray(np.arange(5.0) * i)
        made_on_threads.append((x, np.asarray(x), np.from_dlpack(ca.asarray(np.ones(3)))))


    threads = [threading.Thread(target=export_on_a_thread, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    early.exports = [np.asarray(ca.asarray(np.ones(3) * i)) for i in range(4)]
    early.from_threads = made_on_threads[:]
    print("exported", len(exports) + len(made_on_threads) + len(early.exports))
    """
)


def test_exports_alive_at_interpreter_exit_release_without_errors() -> None:
    result = subprocess.run(
        [sys.executable, "-c", _EXITING_SCRIPT], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "exported 18"
    assert "Exception ignored" not in result.stderr, result.stderr
    assert "Error" not in result.stderr, result.stderr


# -- indices beyond int64 and values cowarray cannot take ---------------------

_HUGE_INDEX_SPELLINGS = {
    "x[2**63]": lambda x: x[2**63],
    "x[-2**63 - 1]": lambda x: x[-(2**63) - 1],
    "x[2**63] = 1.0": lambda x: x.__setitem__(2**63, 1.0),
    "x[0, 2**64] on 1-D": lambda x: x[0, 2**64],
    "x.at[2**63].set(1.0)": lambda x: x.at[2**63].set(1.0),
    "x.at[2**63].add(1.0)": lambda x: x.at[2**63].add(1.0),
    "x.at[2**63].get()": lambda x: x.at[2**63].get(),
}


@pytest.mark.parametrize("spelling", list(_HUGE_INDEX_SPELLINGS))
def test_an_index_beyond_int64_is_an_index_error_in_cowarrays_words(spelling: str) -> None:
    x = ca.arange(5.0)
    clone = ca.lazy_clone(x)
    with pytest.raises(IndexError, match=r"is out of range \(x has shape \(5,\)\); pass an index"):
        _HUGE_INDEX_SPELLINGS[spelling](x)
    assert x.tolist() == clone.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]


def test_a_value_too_big_for_the_dtype_is_still_an_overflow_error_about_the_value() -> None:
    x = ca.arange(5)
    with pytest.raises(OverflowError, match="does not fit in int64"):
        x[0] = 2**70
    assert x.tolist() == [0, 1, 2, 3, 4]


def test_assigning_a_dask_array_names_dask_and_says_how_to_convert() -> None:
    da = pytest.importorskip("dask.array")
    x = ca.zeros(5)
    with pytest.raises(TypeError, match=r"got dask's Array; convert it first.*compute\(\)"):
        x[...] = da.ones(5)
    assert x.tolist() == [0.0] * 5
