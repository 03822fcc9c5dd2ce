"""Whether a functional update is the last use of its array (no copy needed).

``y = f().at[i].set(v)`` and ``move(x).at[i].set(v)`` update an array that
nothing else references: once the update returns it is garbage. So does
``x = x.at[i].set(v)`` when the name ``x`` is the array's only other holder:
the assignment drops it as soon as the update returns. The update can then
write into that array's memory instead of copying it. This module decides,
from CPython reference counts and the caller's bytecode, that no one else can
ever see that array again.

The test is an exact count, never a guess: inside ``_At.<method>`` the
references to the ``_At`` object and to its array that certainly exist are
known (the method's ``self``, ``_update``'s parameter and local, the
argument of ``sys.getrefcount``). If the counts equal exactly that minimum,
there is no other reference anywhere: no variable, container, frame or
thread can reach the array (:data:`TEMPORARY`).

One reference more is accepted (:data:`REBOUND`) only when the caller is
about to overwrite it: the instruction after the call stores into a local
variable ``N`` of a function, and the bytecode shows the receiver was loaded
from ``N`` with nothing in between storing to ``N``. Module and global names
are refused: another thread could read them between the write and the store. No tracer,
profiler or ``sys.monitoring`` tool may be active (one could look or raise
between the call and the store), and the update restores the region it wrote
if anything raises before it returns, so an exception never leaves ``x``
changed. This reads the bytecode of CPython 3.11, 3.12 and 3.13; elsewhere
only :data:`TEMPORARY` applies.

Anything unexpected (a debugger's frame hook that adds references, another
interpreter) only raises the counts, so the update falls back to copying.
The minimum is also checked once at import, by running a real update on a
fresh array; if the interpreter counts differently the shortcut stays off.
"""

from __future__ import annotations

import dis
import sys
from types import CodeType, FrameType
from typing import TYPE_CHECKING, Final

from . import _cow
from ._array import Array, _enable_fast_write, new_array

if TYPE_CHECKING:
    from ._at import _At

__all__ = ["NOT_LAST", "REBOUND", "TEMPORARY", "last_use", "take_over"]

#: The array is still reachable: the update copies.
NOT_LAST: Final = 0
#: Nothing but the update references the array.
TEMPORARY: Final = 1
#: The caller's next instruction overwrites the only other reference.
REBOUND: Final = 2

_getrefcount = sys.getrefcount

#: (references to the array, references to the ``_At``) that certainly exist
#: when ``last_use`` measures them from ``_update``: for the array, the
#: ``_At`` slot, ``_update``'s local ``x`` and getrefcount's argument; for the
#: ``_At``, the method's ``self``, ``_update``'s ``at``, ``last_use``'s
#: ``at`` and getrefcount's argument.
MINIMUM: Final = (3, 4)

#: Whether the import-time self-test saw exactly MINIMUM (see calibrate()).
enabled = False
_measuring = False
_measured: list[tuple[int, int]] = []


def last_use(at: _At) -> int:
    """NOT_LAST, TEMPORARY or REBOUND for the update running on ``at``.

    Must be called directly from ``_update``, itself called directly from
    the ``_At`` method the user called (the frame depths count on it).
    """
    counts = (_getrefcount(at.array), _getrefcount(at))
    if _measuring:
        _measured.append(counts)
        return TEMPORARY  # the probe is a fresh array: no copy, nothing counted
    if not enabled or counts[1] != MINIMUM[1]:
        return NOT_LAST
    if counts[0] == MINIMUM[0]:
        return TEMPORARY
    if counts[0] != MINIMUM[0] + 1 or not _REBINDING_SUPPORTED:
        return NOT_LAST
    if _observed():
        return NOT_LAST
    caller = sys._getframe(3)  # last_use <- _update <- _At.<method> <- caller
    return REBOUND if _overwrites_holder(caller, at.array) else NOT_LAST


def _observed() -> bool:
    """Whether a tracer, profiler or monitoring tool could run between the call
    and the store (and see or keep the old array)."""
    if sys.gettrace() is not None or sys.getprofile() is not None:
        return True
    monitoring = getattr(sys, "monitoring", None)  # Python 3.12 on
    return monitoring is not None and any(
        monitoring.get_tool(tool) is not None for tool in range(6)
    )


def _overwrites_holder(frame: FrameType, array: object) -> bool:
    """Whether ``frame``'s next instruction overwrites the name now holding ``array``."""
    code = frame.f_code
    key = (code, frame.f_lasti)
    try:
        target = _targets[key]
    except KeyError:
        if len(_targets) >= _MAX_TARGETS:  # code made on the fly (exec) must not pile up
            _targets.clear()
        target = _targets[key] = _rebound_name(*key)
    if target is None:
        return False
    # Only a function's local variable: no other thread can read it between
    # the in-place write and the store. A module or global name can be read
    # by another thread in that instant, which would see old x changed, so
    # there the update copies (``x = move(x).at[i].set(v)`` avoids it).
    return target[0] == "STORE_FAST"


_targets: dict[tuple[CodeType, int], tuple[str, str] | None] = {}
_MAX_TARGETS: Final = 4096
_REBINDING_SUPPORTED: Final = (3, 11) <= sys.version_info[:2] <= (3, 13)
# 3.11 loads a method with LOAD_METHOD; 3.12 and 3.13 with a LOAD_ATTR whose
# lowest argument bit is set. 3.13 passes keyword names on the stack (CALL_KW).
_METHOD_LOADS_ARE_ATTRS: Final = sys.version_info[:2] >= (3, 12)
_STORES: Final = frozenset({"STORE_FAST", "STORE_NAME", "STORE_GLOBAL"})
_LOADS: Final = {
    "STORE_FAST": ("LOAD_FAST", "LOAD_FAST_CHECK"),
    "STORE_NAME": ("LOAD_NAME",),
    "STORE_GLOBAL": ("LOAD_GLOBAL",),
}
_METHODS: Final = frozenset(
    {"set", "add", "subtract", "multiply", "divide", "power", "min", "max", "apply"}
)


def _rebound_name(code: CodeType, lasti: int) -> tuple[str, str] | None:
    """For ``N = N.at[index].<method>(args)`` calling at ``lasti``: (store opname, N).

    Reads CPython bytecode: ``LOAD_FAST N; LOAD_ATTR at; <index>;
    BINARY_SUBSCR; <load method>; <args>; [KW_NAMES]; [PRECALL]; CALL;
    STORE_FAST N`` (3.11: LOAD_METHOD and PRECALL; 3.12 on: a method
    LOAD_ATTR, and ``<start>; <stop>; BINARY_SLICE`` for a plain slice; 3.13:
    CALL_KW after the keyword names), in straight-line code (no jump into or
    out of it) with no store to ``N`` inside. Anything else: None.
    """
    instructions = list(dis.get_instructions(code))
    # During the call f_lasti points into the CALL (3.11: at its last cache entry).
    at = sum(1 for ins in instructions if ins.offset <= lasti) - 1
    if at < 0 or at + 1 >= len(instructions):
        return None
    call = instructions[at]
    if call.opname not in ("CALL", "CALL_KW"):
        return None
    store = instructions[at + 1]
    if store.opname not in _STORES:
        return None
    name = store.argval
    position = at - 1
    while position >= 0 and instructions[position].opname in ("PRECALL", "KW_NAMES"):
        position -= 1
    arguments = (call.arg or 0) + (call.opname == "CALL_KW")  # + the keyword names
    start = _expression_start(instructions, position, arguments)
    if start is None or not _loads_attribute(instructions, start - 1, _METHODS, method=True):
        return None
    # x.at[i]: BINARY_SUBSCR of one index; x.at[a:b]: 3.12's BINARY_SLICE of two bounds
    if _is(instructions, start - 2, "BINARY_SUBSCR"):
        index_values = 1
    elif _is(instructions, start - 2, "BINARY_SLICE"):
        index_values = 2
    else:
        return None
    start = _expression_start(instructions, start - 3, index_values)
    if start is None or not _loads_attribute(instructions, start - 1, {"at"}, method=False):
        return None
    if not any(_is(instructions, start - 2, load, {name}) for load in _LOADS[store.opname]):
        return None
    span = instructions[start - 2 : at + 1]
    if any(ins.is_jump_target or "JUMP" in ins.opname for ins in span[1:]):
        return None
    if any(ins.opname.startswith(("STORE_", "DELETE_")) and ins.argval == name for ins in span):
        return None
    return store.opname, name


def _loads_attribute(
    instructions: list[dis.Instruction], i: int, names: frozenset[str] | set[str], *, method: bool
) -> bool:
    """Whether instruction ``i`` loads one of ``names`` as a method to call
    (``method``) or as a plain attribute."""
    if not _METHOD_LOADS_ARE_ATTRS:
        return _is(instructions, i, "LOAD_METHOD" if method else "LOAD_ATTR", names)
    if not _is(instructions, i, "LOAD_ATTR", names):
        return False
    return bool(instructions[i].arg & 1) == method  # type: ignore[operator]


def _is(instructions: list[dis.Instruction], i: int, opname: str, args: object = None) -> bool:
    if i < 0 or instructions[i].opname != opname:
        return False
    return args is None or instructions[i].argval in args  # type: ignore[operator]


def _expression_start(instructions: list[dis.Instruction], last: int, count: int) -> int | None:
    """Where the code pushing the top ``count`` values, ending at ``last``, starts."""
    if count == 0:
        return last + 1
    pushed = 0
    for i in range(last, -1, -1):
        ins = instructions[i]
        if ins.is_jump_target or "JUMP" in ins.opname:
            return None
        pushed += dis.stack_effect(ins.opcode, ins.arg, jump=False)
        if pushed == count:
            return i
    return None


def take_over(at: _At) -> Array | None:
    """A new Array on ``at.array``'s memory, which the update may write in place.

    Only for an array :func:`last_use` has shown about to die. Memory that
    other arrays share is first copied (the one region materialization the
    update would have paid anyway). None for exposed or foreign memory (a
    DLPack peer may see it): the caller copies as usual.
    """
    x = at.array
    _cow.make_private(x)
    if x._buf is not None:
        return None
    if not _measuring:
        _cow.notify("takeover", x, None, 0)
    result = new_array(x._data, None, x._device)
    _enable_fast_write(result)  # make_private showed the memory private and writable
    return result


def calibrate(run_update: object) -> None:
    """Run ``run_update()`` (one real update of a fresh array) and enable the
    shortcut only if it measured exactly :data:`MINIMUM`."""
    global enabled, _measuring
    _measured.clear()
    _measuring = True
    try:
        run_update()  # type: ignore[operator]
    finally:
        _measuring = False
    enabled = sys.implementation.name == "cpython" and _measured == [MINIMUM]
