"""cow_info, shares_buffer and sharing_picture count holders exactly (rules 9, 10).

Counts come from reference counts, which CPython releases take differently
(3.14 borrows references on the stack): each case here is checked on every
interpreter the matrix runs, with holders of every kind, held in every way.
"""

from __future__ import annotations

import numpy as np

import cowarray as ca


def _holders_everywhere() -> tuple[ca.Array, list[object]]:
    x = ca.zeros(100)
    kept: list[object] = [ca.lazy_clone(x), x[10:20], x.copy()]
    return x, kept


def test_counts_are_exact_for_holders_in_locals_containers_and_exports() -> None:
    x = ca.zeros(100)
    assert (ca.cow_info(x).holders, ca.cow_info(x).state) == (1, "private")
    clone = ca.lazy_clone(x)
    assert (ca.cow_info(x).holders, ca.cow_info(x).state) == (2, "shared")
    in_a_list = [x[5:]]
    assert ca.cow_info(x).holders == 3
    assert ca.cow_info(clone).holders == 3
    in_a_list.clear()
    del clone
    assert (ca.cow_info(x).holders, ca.cow_info(x).state) == (1, "private")
    export = np.asarray(x)
    view_of_export = export[3:]
    assert (ca.cow_info(x).holders, ca.cow_info(x).state) == (1, "exposed")
    del export
    assert ca.cow_info(x).state == "exposed"  # the export's own view still exposes it
    del view_of_export
    assert (ca.cow_info(x).holders, ca.cow_info(x).state) == (1, "private")


def test_counts_are_exact_when_taken_inside_functions_and_on_returned_arrays() -> None:
    x, kept = _holders_everywhere()
    assert ca.cow_info(x).holders == 4
    assert all(ca.shares_buffer(x, k) for k in kept if type(k) is ca.Array)
    picture = ca.sharing_picture(x=x, clone=kept[0], window=kept[1])
    assert [(b.state, b.holders) for b in picture.buffers] == [("shared", 4)]
    kept.clear()
    assert ca.cow_info(x).holders == 1
    picture = ca.sharing_picture(x=x)
    assert [(b.state, b.holders) for b in picture.buffers] == [("private", 1)]


def test_looking_changes_nothing_and_costs_no_copy(copies: object) -> None:
    x = ca.zeros(10)
    before = ca.cow_info(x)
    assert x._buf is None  # asking created no sharing record
    x[0] = 1.0
    assert ca.cow_info(x).buffer_id == before.buffer_id
    assert ca.copy_counters().copies == 0
