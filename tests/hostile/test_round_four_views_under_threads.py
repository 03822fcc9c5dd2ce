"""A view taken while other threads write shows a value its source had, and
never changes afterwards (issue 46, row 6; docs/design.md rules 1 and 7).

Three threads at a switch every microsecond: W writes ``base[...] = k`` for
k = 1, 2, ...; M takes ``x = base.copy()`` and writes ``x[0] += 1000.0``
(``x`` and its temporary view write ``x``'s memory in place once ``base``
has moved away from it); V derives a value from ``base`` (a slice, a
transpose, a reshape, a clone...). In the eager-copy model every derived
array is a copy of ``base`` at one moment, so V's value is ``k`` everywhere
for some ``k``, never ``k + 1000`` anywhere, and it stays what it was.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import pytest
from _attack import run_together

import cowarray as ca

_DERIVED: dict[str, Callable[[ca.Array], ca.Array]] = {
    "base[...]": lambda base: base[...],
    "base[0:2]": lambda base: base[0:2],
    "base[0]": lambda base: base[0],
    "base.T": lambda base: base.T,
    "reshape(base, (16,))": lambda base: ca.reshape(base, (16,)),
    "permute_dims(base, (1, 0))": lambda base: ca.permute_dims(base, (1, 0)),
    "flip(base)": lambda base: ca.flip(base),
    "base.copy()": lambda base: base.copy(),
}

_SECONDS = 1.5


@pytest.mark.parametrize("derive", list(_DERIVED))
def test_a_view_taken_while_a_clone_writes_in_place_shows_a_value_its_source_had(
    derive: str,
) -> None:
    take = _DERIVED[derive]
    base = ca.zeros((4, 4))
    stop = time.perf_counter() + _SECONDS
    wrong: list[str] = []
    taken = [0]

    def writer() -> None:
        k = 0
        while time.perf_counter() < stop and not wrong:
            k = k % 999 + 1
            base[...] = float(k)

    def clone_writer() -> None:
        while time.perf_counter() < stop and not wrong:
            x = base.copy()
            x[0] += 1000.0

    def viewer() -> None:
        held: list[tuple[ca.Array, np.ndarray]] = []
        while time.perf_counter() < stop and not wrong:
            view = take(base)
            seen = np.array(view, copy=True)
            taken[0] += 1
            flat = seen.ravel()
            if not (flat == flat[0]).all() or flat[0] >= 1000.0:
                wrong.append(f"{derive} showed {flat.tolist()}, a value base never had")
            for earlier, then in held:
                if not np.array_equal(np.array(earlier, copy=True), then):
                    wrong.append(
                        f"{derive} changed from {then.ravel().tolist()} after it was taken"
                    )
            held = [*held[-3:], (view, seen)]

    run_together(writer, clone_writer, viewer, timeout=30.0)
    assert taken[0], "the viewer never ran"
    assert not wrong, wrong[0]
