"""pandas given cowarray Arrays, compared with the same calls given NumPy arrays.

pandas recognizes NumPy arrays by type (``isinstance(values, np.ndarray)``).
Any other object is converted with ``np.asarray`` (constructors, where
``__array__`` is there) or treated as a plain iterable (``list(values)``:
``isin``, ``Categorical``, ``Series[key]``) or as a mapping or function
(``groupby``). What cowarray's side decides is what those conversions give:

- ``np.asarray(x)`` is a writable alias of ``x`` (docs/design.md rule 4),
  except when pandas itself converts: pandas keeps what it converts as the
  Series' or Index's own values, copying only NumPy arrays, so cowarray
  gives it a copy (cowarray/_dlpack.py, ``_keeps_conversions_as_values``).
  No alias either way, as with a NumPy array; tested for every constructor.
- Iterating an Array gives 0-d Arrays, which pandas takes neither as
  numbers nor as labels; iterated by pandas' own code (``isin``,
  ``Categorical``), an Array gives the NumPy scalars of a copy, as an
  ndarray does. Masks and ``groupby`` keys pandas recognizes by type only:
  marked ``xfail``; passing ``x.to_numpy()`` gives NumPy's answers and is
  tested.

``xfail`` is strict: a change that makes one pass makes this module fail
until the mark is removed, so the page (docs/compatibility.md) and these
tests stay in step.

Skipped when pandas is not installed.
"""

from __future__ import annotations

import contextlib
import importlib.util
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

if importlib.util.find_spec("pandas") is None:
    pytest.skip("needs pandas (pip install pandas)", allow_module_level=True)

import pandas as pd

import cowarray as ca

MASKED = pytest.mark.xfail(
    strict=True,
    reason=(
        "pandas takes a boolean mask only from an ndarray, list, Series, Index or its own "
        "extension arrays (pandas.core.common.is_bool_indexer tests the type): any other "
        "array, torch's and JAX's too, is looked up as labels"
    ),
)
MAPPED = pytest.mark.xfail(
    strict=True,
    reason="pandas' groupby takes a key that is not an ndarray, list or Index as a function",
    raises=TypeError,
)


def _equal(got: Any, expected: Any) -> None:
    if isinstance(expected, pd.DataFrame):
        pd.testing.assert_frame_equal(got, expected)
    elif isinstance(expected, pd.Series):
        pd.testing.assert_series_equal(got, expected)
    elif isinstance(expected, pd.Index):
        pd.testing.assert_index_equal(got, expected)
    elif isinstance(expected, pd.api.extensions.ExtensionArray):
        pd.testing.assert_extension_array_equal(got, expected)
    else:
        np.testing.assert_array_equal(got, expected)


# -- building pandas objects: their own values, no alias either way ----------

BUILDERS: dict[str, Callable[[Any], Any]] = {
    "Series": pd.Series,
    "DataFrame_from_dict": lambda x: pd.DataFrame({"a": x}),
    "DataFrame_from_2d": lambda x: pd.DataFrame(x.reshape(3, 1)),
    "Index": pd.Index,
}


def _first(built: Any) -> float:
    if isinstance(built, pd.DataFrame):
        return float(built.iloc[0, 0])
    if isinstance(built, pd.Index):
        return float(built[0])
    return float(built.iloc[0])


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_a_later_write_to_the_array_does_not_show_in_what_pandas_built(name: str) -> None:
    values = np.array([1.0, 2.0, 3.0])
    x = ca.asarray(values)
    numpy_built = BUILDERS[name](values)
    built = BUILDERS[name](x)
    values[0] = 100.0
    x[0] = 100.0
    assert _first(built) == _first(numpy_built) == 1.0


@pytest.mark.parametrize("name", ["Series", "DataFrame_from_dict", "DataFrame_from_2d"])
def test_a_write_to_what_pandas_built_does_not_change_the_array(name: str) -> None:
    x = ca.asarray([1.0, 2.0, 3.0])
    built = BUILDERS[name](x)
    if isinstance(built, pd.DataFrame):
        built.iloc[1, 0] = -5.0
    else:
        built.iloc[1] = -5.0
    assert x.tolist() == [1.0, 2.0, 3.0]


@pytest.mark.parametrize(
    "spelling",
    [
        lambda x: pd.Series(x.to_numpy()),
        lambda x: pd.Series(x, copy=True),
        lambda x: pd.Series(np.array(x)),
        lambda x: pd.DataFrame({"a": x.to_numpy()}),
        lambda x: pd.DataFrame(x.reshape(3, 1), copy=True),
    ],
    ids=["to_numpy", "copy_True", "np_array", "DataFrame_to_numpy", "DataFrame_copy_True"],
)
def test_spellings_that_give_pandas_its_own_values(spelling: Callable[[Any], Any]) -> None:
    x = ca.asarray([1.0, 2.0, 3.0])
    built = spelling(x)
    x[0] = 100.0
    assert _first(built) == 1.0
    if isinstance(built, pd.DataFrame):
        built.iloc[1, 0] = -5.0
    else:
        built.iloc[1] = -5.0
    assert x.tolist() == [100.0, 2.0, 3.0]


def test_values_read_out_of_a_series_equal_numpys() -> None:
    values = np.array([3.0, 1.0, 2.0])
    _equal(pd.Series(ca.asarray(values)), pd.Series(values))
    _equal(pd.DataFrame(ca.reshape(ca.asarray(values), (3, 1))), pd.DataFrame(values[:, None]))
    _equal(pd.Index(ca.asarray(values)), pd.Index(values))


# -- calls that take an Array as an argument -----------------------------------

#: name -> the call, given a converter applied to every array argument.
CALLS: dict[str, Callable[[Callable[[Any], Any]], Any]] = {
    "Series.isin": lambda a: pd.Series([1, 5, 3]).isin(a(np.array([1, 2, 3]))),
    "Index.isin": lambda a: pd.Index([1, 5, 3]).isin(a(np.array([1, 2, 3]))),
    "Series.isin_float": lambda a: pd.Series([1.5, 2.0]).isin(a(np.array([2.0, 4.0]))),
    "Categorical": lambda a: pd.Categorical(a(np.array([1, 2, 1, 3]))),
    "Series[mask]": lambda a: pd.Series([1.0, 2.0, 3.0])[a(np.array([True, False, True]))],
    "Series.loc[mask]": lambda a: pd.Series([1.0, 2.0, 3.0]).loc[a(np.array([True, False, True]))],
    "DataFrame[mask]": lambda a: pd.DataFrame({"v": [1.0, 2.0, 3.0]})[
        a(np.array([True, False, True]))
    ],
    "Series.groupby": lambda a: pd.Series([1.0, 2.0, 3.0]).groupby(a(np.array([0, 1, 0]))).sum(),
    "DataFrame.groupby": lambda a: (
        pd.DataFrame({"v": [1.0, 2.0, 3.0]}).groupby(a(np.array([0, 1, 0]))).sum()
    ),
    "Series.where": lambda a: pd.Series([1.0, 2.0, 3.0]).where(a(np.array([True, False, True]))),
    "Series*Array": lambda a: pd.Series([1.0, 2.0, 3.0]) * a(np.array([2.0, 3.0, 4.0])),
    "Series.iloc[ints]": lambda a: pd.Series([1.0, 2.0, 3.0]).iloc[a(np.array([2, 0]))],
    "cut": lambda a: pd.cut(a(np.array([0.5, 1.5, 2.5])), bins=[0, 1, 2, 3]),
    "to_datetime": lambda a: pd.to_datetime(a(np.array([0, 86_400])), unit="s"),
}

#: calls that do not give NumPy's answer on cowarray arrays, and why.
DIFFERS: dict[str, Any] = {
    "Series[mask]": MASKED,
    "Series.loc[mask]": MASKED,
    "DataFrame[mask]": MASKED,
    "Series.groupby": MAPPED,
    "DataFrame.groupby": MAPPED,
}


def _as_cowarray(values: np.ndarray) -> ca.Array:
    return ca.asarray(values)


def _as_numpy(values: np.ndarray) -> np.ndarray:
    return values.copy()


def _through_to_numpy(values: np.ndarray) -> np.ndarray:
    return ca.asarray(values).to_numpy()


@pytest.mark.parametrize(
    "name", [pytest.param(name, marks=DIFFERS.get(name, ())) for name in sorted(CALLS)]
)
def test_call_with_an_array_gives_numpys_answer(name: str) -> None:
    expected = CALLS[name](_as_numpy)
    got = CALLS[name](_as_cowarray)
    _equal(got, expected)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_call_with_to_numpy_gives_numpys_answer(name: str) -> None:
    _equal(CALLS[name](_through_to_numpy), CALLS[name](_as_numpy))


@pytest.mark.parametrize("name", sorted(CALLS))
def test_call_leaves_the_array_unchanged(name: str) -> None:
    given: list[tuple[ca.Array, np.ndarray]] = []

    def keep(values: np.ndarray) -> ca.Array:
        x = ca.asarray(values)
        given.append((x, values.copy()))
        return x

    # (the calls that differ, above, raise; the array must be unchanged all the same)
    with contextlib.suppress(TypeError, KeyError, ValueError):
        CALLS[name](keep)
    assert given
    for x, values in given:
        np.testing.assert_array_equal(np.array(x), values)


def test_to_numpy_keeps_its_values_when_the_array_is_written() -> None:
    x = ca.asarray([1.0, 2.0, 3.0])
    s = pd.Series(x.to_numpy())
    x[0] = 100.0
    assert s.tolist() == [1.0, 2.0, 3.0]
    s.iloc[1] = -5.0
    assert s.tolist() == [1.0, -5.0, 3.0]
    assert x.tolist() == [100.0, 2.0, 3.0]


def test_series_built_while_another_thread_writes_the_array_never_alias_it() -> None:
    # The copy pandas gets is taken as the Array's value at one moment: a
    # writer thread switching in at every bytecode never makes a Series
    # follow the Array, or the Array follow a Series.
    import sys
    import threading

    x = ca.zeros(1000)
    stop = threading.Event()

    def writer() -> None:
        value = 0.0
        while not stop.is_set():
            value += 1.0
            x[...] = value

    previous = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    thread = threading.Thread(target=writer)
    thread.start()
    try:
        built = [pd.Series(x) for _ in range(50)]
    finally:
        stop.set()
        thread.join()
        sys.setswitchinterval(previous)
    snapshots = [s.to_numpy().copy() for s in built]
    x[...] = -1.0
    for series, snapshot in zip(built, snapshots, strict=True):
        assert (series.to_numpy() == snapshot).all()  # the later write shows in no Series
        series.iloc[0] = 12345.0
    assert (np.asarray(ca.asarray(x, copy=True)) == -1.0).all()
