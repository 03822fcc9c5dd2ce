"""One slot set-up: every place that makes an Array sets what the one place
sets, found in the source, not listed by hand.

An Array's slots are set in one place, cowarray._core.values.private (and,
for a view that joins its source's record, the join block of
values.view_of). The hottest paths carry a copy inline, where a call would
cost a tenth of ``x.T``, ``x[1:5]``, a reshape or a twentieth of ``a + b``
(docs/design.md, "One slot set-up"): this test finds every such copy in the
package's source (an ``object.__new__`` of the Array type and the slot
stores after it) and fails on one that sets other slots, in another order,
or other values than the one place, except for the differences each copy
states below. A new slot in ``Value.__slots__`` fails here for every copy
that lacks it.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from pathlib import Path

import cowarray as ca
import cowarray._operators as operators_module
from cowarray._core import values

PACKAGE = Path(ca.__file__).parent
SLOTS = [name for name in values.Value.__slots__ if not name.startswith("__")]
#: How a construction names the Array type.
ARRAY_TYPE_NAMES = {"_ARRAY", "Array"}


def _set_ups() -> list[tuple[str, str, list[tuple[str, str]]]]:
    """Every construction of an Array in the package: ``(where, variable,
    [(slot, value source), ...])``, the slot stores that follow
    ``variable = _object_new(<the Array type>)`` in its block."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            body = getattr(node, "body", None)
            if not isinstance(body, list):
                continue
            for index, statement in enumerate(body):
                if not (
                    isinstance(statement, ast.Assign)
                    and isinstance(statement.value, ast.Call)
                    and isinstance(statement.value.func, ast.Name)
                    and statement.value.func.id == "_object_new"
                    and isinstance(statement.value.args[0], ast.Name)
                    and statement.value.args[0].id in ARRAY_TYPE_NAMES
                ):
                    continue
                (target,) = statement.targets
                assert isinstance(target, ast.Name)
                stores = []
                for after in body[index + 1 :]:
                    if isinstance(after, ast.Return) or (
                        isinstance(after, ast.If)
                        and any(isinstance(n, ast.Return) for n in ast.walk(after))
                    ):
                        break  # (the set-up ends where the new array is handed back)
                    if (
                        isinstance(after, ast.Assign)
                        and isinstance(after.targets[0], ast.Attribute)
                        and isinstance(after.targets[0].value, ast.Name)
                        and after.targets[0].value.id == target.id
                    ):
                        stores.append((after.targets[0].attr, ast.unparse(after.value)))
                where = f"{path.relative_to(PACKAGE).as_posix()}:{statement.lineno}"
                found.append((where, target.id, stores))
    return found


SET_UPS = _set_ups()


def _one_place() -> list[tuple[str, str]]:
    (private,) = [
        stores
        for where, _, stores in SET_UPS
        if where.startswith("_core/values.py")
        and stores[0] == ("_data", "data")
        and stores[1] == ("_buf", "None")
    ]
    return private


ONE_PLACE = _one_place()

#: What a copy may store otherwise than the one place, and why: (file, the
#: slot) -> the stored values allowed.
DIFFERENCES = {
    # a view joins its source's record and family (view_of's join block)
    ("_core/values.py", "_buf"): {"buf"},
    ("_core/values.py", "_family"): {"None", "family"},
    # x[i] of a 1-D array: a new element whose fast writes open at once
    ("_core/values.py", "_fast_write"): {
        "NO_FAST_WRITE",
        "_NO_FAST_WRITE",
        "fast",
        "_ELEMENT_OF.get(fast) or _element_of(fast) if fast else fast",
    },
    # move(x): the memory's own record, fast writes and family, donated
    ("_core/values.py", "_donated"): {"False", "True"},
}


def test_the_package_has_the_set_ups_this_test_reads() -> None:
    files = sorted({where.split(":")[0] for where, _, _ in SET_UPS})
    assert files == ["_core/values.py", "_operators.py"]  # the core, and a + b's result
    assert len(SET_UPS) >= 7
    assert sorted(slot for slot, _ in ONE_PLACE) == sorted(SLOTS)


def test_every_set_up_stores_every_slot_once_in_the_one_place_s_order() -> None:
    order = [slot for slot, _ in ONE_PLACE]
    for where, _, stores in SET_UPS:
        assert [slot for slot, _ in stores] == order, where


def test_every_set_up_stores_what_the_one_place_stores() -> None:
    expected = dict(ONE_PLACE)
    for where, _, stores in SET_UPS:
        path = where.split(":")[0]
        for slot, value in stores:
            if slot in ("_data", "_device"):
                continue  # (what the set-up is of, named as its function names it)
            allowed = DIFFERENCES.get((path, slot), set()) | {expected[slot]}
            if slot == "_fast_write":
                allowed |= {"NO_FAST_WRITE", "_NO_FAST_WRITE"}  # (one object, two names)
            assert value in allowed, (where, slot, value)


# -- the view join, copied into x.T, x[1:5] and reshape ---------------------------------


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
    # to it for that), and hands a backend value without memory (a traced
    # value: no ``base``) to _memoryless_view.
    block = [
        line
        for line in block
        if "base" not in line
        and not line.strip().startswith("data = ")
        and "make(" not in line
        and "_first_record" not in line
        and line.strip() != "if buf is None:"
        and not line.strip().startswith(("try:", "except AttributeError"))
        and "_memoryless_view" not in line
    ]
    return [
        line.replace(source_name + ".", "source.")
        .replace(f"({source_name})", "(source)")
        .replace(view, "VIEW")
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
        inspect.getsource(operators_module.binary_operation), "if PENDING:", "return array"
    )
    normalized = [
        line.lstrip()
        .replace("_object_new(Array)", "_object_new(_ARRAY)")
        .replace("result", "data")
        .replace("PENDING", "_PENDING")
        .replace("flush()", "_flush()")
        .replace("= NO_FAST_WRITE", "= _NO_FAST_WRITE")
        for line in inline
    ]
    assert normalized == [line.lstrip() for line in core]
