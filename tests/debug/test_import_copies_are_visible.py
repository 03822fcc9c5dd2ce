"""Every copy an import makes is visible (docs/design.md rule 9; issue 25, item 9).

An import that copies (``from_torch``, ``from_dlpack``, ``asarray`` of a
NumPy array, a torch tensor or a buffer) shows in :func:`cowarray.trace` as
one copy (``materialize``) of its bytes at the user's line, moves the copy
counters by exactly one copy of those bytes, and warns under
``warn_on_copy(min_bytes=1)`` at the user's line. A copy the producer makes
because cowarray asked for one (``copy=True``, a host copy of device data)
counts as the import's copy. A zero-copy import counts nothing.

Each case below is a function that prepares its producer and returns the
import as a one-line lambda: the line of that lambda is the user's line the
events and the warning must name.
"""

from __future__ import annotations

import gc
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import cowarray as ca
from cowarray._core import cow

torch: Any = pytest.importorskip("torch")
from cowarray.interop.torch import from_torch, to_torch  # noqa: E402

#: Every case keeps what it made alive here until the test ends, so a
#: first alias is still alive when the second import runs.
Case = Callable[[list[object]], Callable[[], ca.Array]]

N = 1000  # elements: 4000 bytes of float32, 8000 of float64 or complex64


class _GpuProducer:
    """Data on cuda:0 (it says) that, asked for a host copy, makes one from NumPy."""

    def __init__(self, values: np.ndarray) -> None:
        self.memory = values

    def __dlpack_device__(self) -> tuple[int, int]:
        return (2, 0)

    def __dlpack__(self, **kwargs: Any) -> object:
        assert kwargs.get("dl_device") == (1, 0) and kwargs.get("copy") is True
        return self.memory.copy().__dlpack__()


class _OldProducer:
    """A producer from before ``copy=``: it always hands over its own memory."""

    def __init__(self, values: np.ndarray) -> None:
        self.memory = values

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)

    def __dlpack__(self, stream: object = None) -> object:
        return self.memory.__dlpack__()


# -- imports that copy: (case, bytes copied) ------------------------------------


def torch_second_alias(keep: list[object]) -> Callable[[], ca.Array]:
    t = torch.zeros(N)
    keep += [t, from_torch(t)]  # the first alias stays alive
    return lambda: from_torch(t)


def torch_round_trip(keep: list[object]) -> Callable[[], ca.Array]:
    x = ca.zeros(N, dtype=ca.float32)
    keep.append(x)
    return lambda: from_torch(to_torch(x))


def torch_from_dlpack_second_alias(keep: list[object]) -> Callable[[], ca.Array]:
    t = torch.zeros(N)
    keep += [t, from_torch(t)]
    return lambda: ca.from_dlpack(t)


def torch_copy_true(keep: list[object]) -> Callable[[], ca.Array]:
    t = torch.zeros(N)
    keep.append(t)
    return lambda: from_torch(t, copy=True)


def torch_from_dlpack_copy_true(keep: list[object]) -> Callable[[], ca.Array]:
    t = torch.zeros(N)
    keep.append(t)
    return lambda: ca.from_dlpack(t, copy=True)


def torch_asarray(keep: list[object]) -> Callable[[], ca.Array]:
    t = torch.zeros(N)
    keep.append(t)
    return lambda: ca.asarray(t)


def torch_asarray_copy_true(keep: list[object]) -> Callable[[], ca.Array]:
    t = torch.zeros(N)
    keep.append(t)
    return lambda: ca.asarray(t, copy=True)


def torch_conjugate_view(keep: list[object]) -> Callable[[], ca.Array]:
    # values that exist only as torch's lazy conjugate bit: resolving copies
    t = torch.zeros(N, dtype=torch.complex64)
    keep.append(t)
    return lambda: from_torch(t.conj())


def numpy_second_alias(keep: list[object]) -> Callable[[], ca.Array]:
    n = np.zeros(N)
    keep += [n, ca.from_dlpack(n)]
    return lambda: ca.from_dlpack(n)


def numpy_round_trip(keep: list[object]) -> Callable[[], ca.Array]:
    x = ca.zeros(N)
    keep.append(x)
    return lambda: ca.from_dlpack(np.asarray(x))


def numpy_copy_true(keep: list[object]) -> Callable[[], ca.Array]:
    n = np.zeros(N)
    keep.append(n)
    return lambda: ca.from_dlpack(n, copy=True)


def numpy_asarray(keep: list[object]) -> Callable[[], ca.Array]:
    n = np.zeros(N)
    keep.append(n)
    return lambda: ca.asarray(n)


def numpy_asarray_copy_true(keep: list[object]) -> Callable[[], ca.Array]:
    n = np.zeros(N)
    keep.append(n)
    return lambda: ca.asarray(n, copy=True)


def buffer_asarray(keep: list[object]) -> Callable[[], ca.Array]:
    memory = bytearray(8 * N)  # read as uint8: one byte per element
    keep.append(memory)
    return lambda: ca.asarray(memory)


def producer_ignores_copy_true(keep: list[object]) -> Callable[[], ca.Array]:
    producer = _OldProducer(np.zeros(N))
    keep.append(producer)
    return lambda: ca.from_dlpack(producer, copy=True)


def host_copy_of_device_data(keep: list[object]) -> Callable[[], ca.Array]:
    producer = _GpuProducer(np.zeros(N))
    keep.append(producer)
    return lambda: ca.from_dlpack(producer, device="cpu")


def host_copy_through_asarray(keep: list[object]) -> Callable[[], ca.Array]:
    producer = _GpuProducer(np.zeros(N))
    keep.append(producer)
    return lambda: ca.asarray(producer, device="cpu")


def foreign_import_moved(keep: list[object]) -> Callable[[], ca.Array]:
    # cpu:1 (the simulated second device) shares host memory: the move is
    # the eager copy a foreign buffer needs, counted once
    n = np.zeros(N)
    keep.append(n)
    return lambda: ca.from_dlpack(n, device="cpu:1")


COPYING: list[tuple[Case, int]] = [
    (torch_second_alias, 4 * N),
    (torch_round_trip, 4 * N),
    (torch_from_dlpack_second_alias, 4 * N),
    (torch_copy_true, 4 * N),
    (torch_from_dlpack_copy_true, 4 * N),
    (torch_asarray, 4 * N),
    (torch_asarray_copy_true, 4 * N),
    (torch_conjugate_view, 8 * N),
    (numpy_second_alias, 8 * N),
    (numpy_round_trip, 8 * N),
    (numpy_copy_true, 8 * N),
    (numpy_asarray, 8 * N),
    (numpy_asarray_copy_true, 8 * N),
    (buffer_asarray, 8 * N),
    (producer_ignores_copy_true, 8 * N),
    (host_copy_of_device_data, 8 * N),
    (host_copy_through_asarray, 8 * N),
    (foreign_import_moved, 8 * N),
]


def _ids(cases: list[Any]) -> list[str]:
    return [case[0].__name__ if isinstance(case, tuple) else case.__name__ for case in cases]


def _line(act: Callable[[], object]) -> int:
    return act.__code__.co_firstlineno


@pytest.mark.parametrize(("case", "nbytes"), COPYING, ids=_ids(COPYING))
def test_an_import_that_copies_is_traced_as_one_copy_at_the_user_line(
    case: Case, nbytes: int
) -> None:
    keep: list[object] = []
    act = case(keep)
    with ca.trace() as t:
        keep.append(act())
    copies = [e for e in t.events if e.kind == "materialize"]
    assert [(e.nbytes, e.filename, e.lineno) for e in copies] == [(nbytes, __file__, _line(act))]
    assert (t.copies, t.bytes_copied) == (1, nbytes)
    assert "materialize" in str(t) and f"{nbytes}" in str(t)


@pytest.mark.parametrize(("case", "nbytes"), COPYING, ids=_ids(COPYING))
def test_an_import_that_copies_moves_the_counters_by_one_copy(case: Case, nbytes: int) -> None:
    keep: list[object] = []
    act = case(keep)
    before = ca.copy_counters()
    keep.append(act())
    after = ca.copy_counters()
    assert (after.copies - before.copies, after.bytes_copied - before.bytes_copied) == (1, nbytes)


@pytest.mark.parametrize(("case", "nbytes"), COPYING, ids=_ids(COPYING))
def test_an_import_that_copies_warns_at_the_user_line(case: Case, nbytes: int) -> None:
    keep: list[object] = []
    act = case(keep)
    with ca.warn_on_copy(min_bytes=1), pytest.warns(ca.CopyWarning) as caught:
        keep.append(act())
    copy_warnings = [w for w in caught if w.category is ca.CopyWarning]
    assert [(w.filename, w.lineno) for w in copy_warnings] == [(__file__, _line(act))]
    assert f"{nbytes} bytes" in str(copy_warnings[0].message)
    assert cow.observer is None


def test_an_import_copy_refused_as_an_error_changes_nothing() -> None:
    # A CopyWarning turned into an error refuses the copy, as it refuses a
    # write's: the import raises, and nothing is counted or traced as copied.
    keep: list[object] = []
    act = torch_second_alias(keep)
    before = ca.copy_counters()
    with ca.trace() as t, warnings.catch_warnings(), ca.warn_on_copy(min_bytes=1):
        warnings.simplefilter("error", ca.CopyWarning)
        with pytest.raises(ca.CopyWarning, match="import"):
            act()
    gc.collect()
    assert ca.copy_counters() == before
    assert t.copies == 0


def test_the_import_copy_warning_says_it_was_an_import() -> None:
    n = np.zeros(N)
    with ca.warn_on_copy(min_bytes=1), pytest.warns(ca.CopyWarning) as caught:
        ca.asarray(n)
    message = str(caught[0].message)
    assert message.startswith(f"an import copied {8 * N} bytes (region ({N},), float64)")
    assert "a write" not in message


def test_a_copying_import_is_still_traced_as_an_import() -> None:
    t = torch.zeros(N)
    with ca.trace() as trace:
        ca.from_dlpack(t, copy=True)
    assert [(e.kind, e.nbytes, e.buffer_id) for e in trace.events] == [
        ("materialize", 4 * N, None),
        ("import", 4 * N, None),
    ]


# -- imports that do not copy ----------------------------------------------------


def torch_first_alias(keep: list[object]) -> Callable[[], ca.Array]:
    t = torch.zeros(N)
    keep.append(t)
    return lambda: from_torch(t)


def torch_copy_false(keep: list[object]) -> Callable[[], ca.Array]:
    t = torch.zeros(N)
    keep.append(t)
    return lambda: from_torch(t, copy=False)


def torch_from_dlpack(keep: list[object]) -> Callable[[], ca.Array]:
    t = torch.zeros(N)
    keep.append(t)
    return lambda: ca.from_dlpack(t)


def torch_strided_view(keep: list[object]) -> Callable[[], ca.Array]:
    t = torch.zeros(2 * N)
    keep.append(t)
    return lambda: from_torch(t[::2])


def numpy_from_dlpack(keep: list[object]) -> Callable[[], ca.Array]:
    n = np.zeros(N)
    keep.append(n)
    return lambda: ca.from_dlpack(n)


def numpy_asarray_copy_false(keep: list[object]) -> Callable[[], ca.Array]:
    n = np.zeros(N)
    keep.append(n)
    return lambda: ca.asarray(n, copy=False)


def empty_import(keep: list[object]) -> Callable[[], ca.Array]:
    # a fresh empty array: there is nothing to alias and no byte to copy
    n = np.zeros(0)
    keep.append(n)
    return lambda: ca.from_dlpack(n)


ZERO_COPY: list[Case] = [
    torch_first_alias,
    torch_copy_false,
    torch_from_dlpack,
    torch_strided_view,
    numpy_from_dlpack,
    numpy_asarray_copy_false,
    empty_import,
]


@pytest.mark.parametrize("case", ZERO_COPY, ids=_ids(ZERO_COPY))
def test_a_zero_copy_import_counts_nothing(case: Case) -> None:
    keep: list[object] = []
    act = case(keep)
    before = ca.copy_counters()
    with ca.trace() as t, warnings.catch_warnings(), ca.warn_on_copy(min_bytes=0):
        warnings.simplefilter("error", ca.CopyWarning)
        imported = act()
    assert ca.copy_counters() == before
    assert t.copies == 0 and [e.kind for e in t.events] == ["import"]
    assert ca.cow_info(imported).state == ("private" if imported.size == 0 else "foreign")


def test_from_dlpack_of_an_array_is_a_lazy_clone_not_a_copy() -> None:
    x = ca.zeros(N)
    before = ca.copy_counters()
    with ca.trace() as t:
        y = ca.from_dlpack(x)
    assert ca.copy_counters() == before
    assert [e.kind for e in t.events] == ["share"]
    assert ca.shares_buffer(x, y)
