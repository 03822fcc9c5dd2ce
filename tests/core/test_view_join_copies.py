"""The inlined copies of the core's view join and fresh-array set-up say what
the core says.

``x.T``, a basic slice and reshapes (all in cowarray._core.values) and the
element-wise operators' results carry the core's code inline (a call would
cost a tenth of those paths). Any change to the join or to the slots must
reach every copy: this test fails on a copy that differs in anything but the
names of the source and of the view.
"""

from __future__ import annotations

import inspect
import textwrap

import cowarray as ca
import cowarray._operators as operators_module
from cowarray._core import values


def _block(source: str, start: str, end: str) -> list[str]:
    """The lines from the one starting with ``start`` to the one with ``end``,
    dedented, comments and blank lines left out."""
    lines = source.splitlines()
    first = next(i for i, line in enumerate(lines) if line.strip().startswith(start))
    last = next(i for i in range(first, len(lines)) if lines[i].strip() == end)
    kept = [
        line
        for line in lines[first : last + 1]
        if line.strip() and not line.strip().startswith("#")
    ]
    return [line.split("  #")[0].rstrip() for line in textwrap.dedent("\n".join(kept)).splitlines()]


def _join(function: object, source_name: str, view: str) -> list[str]:
    block = _block(inspect.getsource(function), "buf = ", "return array")  # type: ignore[arg-type]
    # The core's view_of tests the result's base first (its callers may not
    # hand it a view; the inlined copies always have one), and x.T has read
    # its source's data already.
    # view_of also makes the record of a first view (its callers fall back
    # to it for that).
    block = [
        line
        for line in block
        if "base" not in line
        and not line.strip().startswith("data = ")
        and "make(" not in line
        and "_first_record" not in line
        and line.strip() != "if buf is None:"
    ]
    return [
        line.replace(source_name + ".", "source.")
        .replace(f"({source_name})", "(source)")
        .replace(view, "VIEW")
        .replace("_object_new(Array)", "_object_new(_ARRAY)")
        .lstrip()
        for line in block
    ]


def test_the_transpose_slice_and_reshape_joins_are_the_core_view_join() -> None:
    assert ca.Array.T.fget is values.transposed and ca.Array.__getitem__ is values.getitem
    core = _join(values.view_of, "source", "result")
    assert core, "view_of has no lock-free join block"
    transpose = _join(values.transposed, "source", "data.T")
    slicing = _join(values.getitem, "source", "data[key]")
    reshaped = _join(values.reshape_view, "x", "result")
    assert transpose == core
    assert slicing == core
    assert reshaped == core


def test_the_operators_fresh_result_is_the_core_private_constructor() -> None:
    core = _block(inspect.getsource(values.private), "if _PENDING:", "return array")
    inline = _block(
        inspect.getsource(operators_module.binary_operation), "if _PENDING:", "return array"
    )
    normalized = [
        line.lstrip().replace("_object_new(Array)", "_object_new(_ARRAY)").replace("result", "data")
        for line in inline
    ]
    assert normalized == [line.lstrip() for line in core]


def _slots_set(function: object, name: str = "array") -> list[str]:
    """The slots a constructor block assigns, in order (``array._x = ...``)."""
    block = _block(inspect.getsource(function), f"{name} = _object_new(", f"return {name}")  # type: ignore[arg-type]
    return [
        line.split("=")[0].strip().removeprefix(f"{name}.")
        for line in block
        if line.strip().startswith(f"{name}._")
    ]


def test_every_inlined_constructor_sets_every_slot_once() -> None:
    # The hand-over of ca.move (values.take_over) differs from private in
    # what it stores (a record, donated, the family), not in which slots:
    # a new slot must reach every copy.
    slots = [name for name in values.Value.__slots__ if not name.startswith("__")]
    for function in (
        values.private,
        values.transposed,
        values.getitem,
        values.take_over,
        operators_module.binary_operation,
        values.view_of,
        values.reshape_view,
    ):
        assigned = _slots_set(function)
        assert sorted(assigned) == sorted(slots), function
    # x[i]'s element of a 1-D array: private's set-up inline, its fast writes open
    assert sorted(_slots_set(values.getitem, "element")) == sorted(slots)
