"""Code that runs inside a write never leaves two values aliased (docs/design.md rule 7).

A gc callback, a ``__del__`` or a signal handler can run wherever the core
calls out: into the backend (can this view be written, copy it, who owns it)
or into the write itself. Here each such call is made to run the attacker
once, deterministically and on every build (a free-threaded collector does
not collect at every allocation, so gc callbacks alone cannot reach every
point there).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _attack import assert_no_aliases
from _patching import BackendPatch, call_out_while_a_record_is_made

import cowarray as ca
from cowarray._backends.numpy import NUMPY_BACKEND
from cowarray._core import cow

# (a record's making: the core asks the backend nothing there, its allocation
# is where a gc callback would run: tests/_patching.py)
CALL_OUTS = ["must_copy_before_write", "copy", "a record's making", "index_update"]

WRITES: dict[str, Callable[[ca.Array], object]] = {
    "x[0] = v": lambda x: x.__setitem__(0, 1.0),
    "x[1:3] = v": lambda x: x.__setitem__(slice(1, 3), 2.0),
    "x += v (big)": lambda x: x.__iadd__(1.0),
    "x.at[i].set(v)": lambda x: x.at[ca.asarray([0, 1])].set(3.0),
    "move(x).at[i].add(v)": lambda x: ca.move(ca.lazy_clone(x)).at[ca.asarray([2])].add(1.0),
    "np.asarray(x)": np.asarray,
    "to a DLPack consumer": lambda x: np.from_dlpack(x),
}

ATTACKS: dict[str, Callable[[ca.Array, list[Any]], None]] = {
    "clone": lambda x, kept: kept.append(ca.lazy_clone(x)),
    "slice": lambda x, kept: kept.append(x[1:]),
    "transpose of a reshape": lambda x, kept: kept.append(ca.reshape(x, (-1, 1)).T),
    "write": lambda x, kept: x.__setitem__(0, -5.0),
    "clone then write it": lambda x, kept: (
        kept.append(ca.lazy_clone(x)) or kept[-1].__setitem__(1, -6.0)
    ),
}


@pytest.mark.parametrize("shared_before", [False, True], ids=["private", "last-holder"])
@pytest.mark.parametrize("attack", list(ATTACKS), ids=list(ATTACKS))
@pytest.mark.parametrize("write", list(WRITES), ids=list(WRITES))
@pytest.mark.parametrize("call_out", CALL_OUTS)
def test_an_attacker_inside_a_call_out_of_a_write_aliases_nothing(
    call_out: str,
    write: str,
    attack: str,
    shared_before: bool,
    backend_patch: BackendPatch,
) -> None:
    x = ca.zeros(70_000)  # past the in-place operators' size threshold
    if shared_before:
        gone = ca.lazy_clone(x)
        del gone
    kept: list[Any] = []
    armed = [True]
    real = getattr(NUMPY_BACKEND, call_out, None)

    def hostile(*args: Any, **kwargs: Any) -> Any:
        if armed[0]:
            armed[0] = False
            ATTACKS[attack](x, kept)
        return None if real is None else real(*args, **kwargs)

    if call_out == "a record's making":
        call_out_while_a_record_is_made(backend_patch, hostile)
    else:
        backend_patch.setattr(NUMPY_BACKEND, call_out, hostile)
    result = WRITES[write](x)
    backend_patch.undo()
    if type(result) is ca.Array and result is not x:
        kept.append(result)
    arrays = [a for a in kept if type(a) is ca.Array]
    exports = [a for a in kept if isinstance(a, np.ndarray)]
    if isinstance(result, np.ndarray):
        exports.append(result)
    before = [np.array(e, copy=True) for e in exports]
    assert_no_aliases([x, *arrays])
    for e, then in zip(exports, before, strict=True):
        if not e.flags.writeable:  # a read-only export keeps its values
            np.testing.assert_array_equal(e, then)


def test_a_write_re_entered_inside_a_fenced_write_keeps_the_fence(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Inside x's fenced in-place write, code on the same thread writes x
    # again (its write copies and commits). Until the outer write ends, x's
    # record slot must still say "being written", so that no other thread's
    # clone joins x's new memory unseen in that window.
    x = ca.zeros(70_000)
    x[0] = 0.0  # the core now knows x private and writable
    fenced: list[bool] = []
    real = cow.apply_binary

    # (the operator's store into the fenced memory: the operators keep the
    # backend's add itself bound per device, so it is the store that calls out)
    def apply_with_a_nested_write(target: Any, function: Any, operand: Any) -> None:
        if not fenced:
            fenced.append(False)
            x[1:3] = 7.0  # re-entered: copies, then commits
            fenced[0] = x._buf is not None and bool(x._buf.writer)
        real(target, function, operand)

    monkeypatch.setattr(cow, "apply_binary", apply_with_a_nested_write)
    x += 1.0  # big, and no error can surface: a fenced in-place write
    monkeypatch.undo()
    assert fenced == [True]
    assert x._buf is None  # the outer write put the slot back when it ended
    clone = ca.lazy_clone(x)
    assert_no_aliases([x, clone])
