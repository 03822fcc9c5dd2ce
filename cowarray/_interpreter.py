"""Every reading of the running interpreter that a decision of cowarray rests on.

Here, and nowhere else, cowarray reads reference counts against a calibrated
baseline, frames (``sys._getframe``, ``f_back``, ``f_locals``, ``f_lasti``)
and bytecode (``dis``). Each reading below says what it reads, on which
CPython, and why the reading is sound; the decisions that rest on them are
made by their callers, which state what they do when a reading cannot be
trusted (they copy, or warn at once: a reading is never needed for a value
to be right, only for a copy to be skipped or a report to be exact).

**Reference counts** (``sys.getrefcount``, every CPython). A count is only
ever compared with what the *same* reading shows in a situation whose
references are known, measured at import on the running interpreter
(:func:`baseline`; :func:`calibrate`; :func:`measure_temporary_count`):
CPython changes what it counts between releases (immortal objects since
3.12, borrowed stack references since 3.14), so no number is written down.
Every reference a caller can keep is a strong one, and a borrowed stack
reference exists only beside a strong one, so an unexpected reference can
only raise a count: the decision then copies. Used for: how many holders a
sharing record has (cowarray._core.cow), whether a view family's token is
held by one array (cowarray._core.families), whether a view's ``base`` is
reached only through it, whether a block of the result pool is free
(cowarray._backends._reuse), the last-use proof of ``x.at[...]`` and
``to_torch`` of a temporary (:func:`is_last_use`,
:func:`temporary_argument_count`), and whether ``t`` of ``x[k] += v`` is a
temporary (the diagnostic of rule 1).

**Frames** (every CPython). ``sys._getframe(n)`` and ``f_back`` give the
Python frames of the calling code; C functions push none, so the frame
below a Python callback that C code called (NumPy's floating-point
callback) is the frame that called that C code (:func:`caller_code`). Used
for: the line a warning names (diagnostics only); whether ``np.asarray``
was called by a library that keeps what it converts, which only ever adds a
copy (:func:`caller_module`); which ufunc call a floating-point flag belongs
to (cowarray._backends._error_state); the variables of the write-back proof.
A function's locals are read through ``f_locals``: on 3.11 and 3.12 a
snapshot dictionary the frame keeps (emptied again when nothing else holds
it, :func:`read_fast_local`, or it would keep every local alive), from 3.13
a view of the frame (PEP 667).

**Bytecode** (``dis``, which undoes the interpreter's specializations, at
``f_lasti``, the instruction running; read once per code object and offset,
:func:`instruction_facts`). What follows an in-place ``BINARY_OP``: the
stack shuffles and STORE_SUBSCR/STORE_SLICE of ``x[k] op= v`` (3.12 and
3.13 spell ``x[a:b]`` with BINARY_SLICE/STORE_SLICE; 3.14 spells a subscript
``BINARY_OP []`` and loads small ints with LOAD_SMALL_INT and locals with
LOAD_FAST_BORROW; 3.15 loads -1 and None with LOAD_COMMON_CONSTANT), or
``v op= s`` and the statement ``c[k] = v``. Calibrated
on 3.11 to 3.15 by tests/hostile/test_view_write_spellings.py. The reading
gives two things: a diagnostic (whether a view write will be stored back
into its family, rule 1: a wrong answer costs a warning early or late), and
the write-back proof of rule 12 (:func:`statement_store`): the variable the
statement stores into and its key, given only where the key is built of
constants (nothing that runs code when converted, nothing code run in the
statement could rebind) and no instruction between the load of the
variable and the operator stores it or is a jump target. The variable's
*value* is read at the operator: code run within the statement may have
rebound it, so the caller checks that value is the array the view was
taken from (cowarray._core.write).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any, Final, Protocol


class _Update(Protocol):
    """What :func:`is_last_use` reads of an update (cowarray._at's ``x.at[i]``,
    which lies above this module): the array it updates."""

    @property
    def array(self) -> Any: ...


__all__ = [
    "INTO_ITS_CONTAINER",
    "NOWHERE",
    "NO_WRITE_BACK",
    "PACKAGE_DIR",
    "THROUGH_ITS_NAME",
    "UNKNOWN",
    "Location",
    "Probe",
    "assignment_lines",
    "baseline",
    "calibrate",
    "caller_code",
    "caller_module",
    "calling_code",
    "first_file_outside",
    "getrefcount",
    "held_by_a_list_baseline",
    "instruction_facts",
    "is_last_use",
    "location",
    "measure_temporary_count",
    "names_of",
    "outside_frame",
    "references_through",
    "site",
    "statement_store",
    "store_container",
    "temporary_argument_count",
    "user_frame",
    "variables_loaded",
]

#: The one reading: CPython's count of references to an object (including
#: the argument's own).
getrefcount: Final = sys.getrefcount


# -- reference counts: one calibration -------------------------------------------------


class Probe:
    """A holder with each attribute the core counts through, for :func:`baseline`."""

    __slots__ = ("_buf", "_family", "base")


def baseline(reading: Callable[[Any], int], attribute: str, make: Callable[[], object]) -> int:
    """What ``reading(holder)`` shows when ``holder.<attribute>``, a fresh
    ``make()``, is the only reference to that object: measured on this
    interpreter with the very function the decisions call."""
    probe = Probe()
    setattr(probe, attribute, make())
    return reading(probe)


def references_through(obj: object, attribute: str) -> int:
    """The count of ``obj.<attribute>``'s object, read through the attribute
    (the reading holds no reference of its own besides the argument's)."""
    return getrefcount(getattr(obj, attribute))


def held_by_a_list_baseline() -> int:
    """What ``getrefcount(item)`` reads for an item only a list holds, read
    as cowarray._backends._reuse reads its blocks: ``item = items[index]``
    in a loop, then the count."""
    items: list[object] = [object()]
    try:
        for index in range(len(items) - 1, -1, -1):
            item = items[index]
            return getrefcount(item)
        raise AssertionError("unreachable")
    finally:
        items.pop()


# -- frames ----------------------------------------------------------------------------

#: cowarray's own directory: frames whose code lives there are cowarray's.
PACKAGE_DIR: Final = os.path.join(os.path.dirname(os.path.abspath(__file__)), "")

#: Where something happened: file name, line, and the module's globals (for
#: its warning registry). Never the frame: a frame kept alive would keep the
#: writer's locals, NumPy exports among them, alive with it.
Location = tuple[str, int, dict[str, Any]]

NOWHERE: Final[Location] = ("<unknown>", 0, {})


def outside_frame(skip: tuple[str, ...] = (), depth: int = 2) -> Any:
    """The innermost frame outside cowarray (and outside functions named in
    ``skip``): the code that called in, library or not. None when there is
    none (a call from C with no Python frame above it). ``depth``: how many
    frames above this one are certainly cowarray's, the caller's first."""
    frame: Any = sys._getframe(depth)
    while frame is not None and (
        frame.f_code.co_filename.startswith(PACKAGE_DIR) or frame.f_code.co_name in skip
    ):
        frame = frame.f_back
    return frame


def user_frame(library_prefixes: tuple[str, ...]) -> tuple[Any, int]:
    """The frame of the user's code that led to the caller, and its warnings
    stacklevel: the first frame that is neither cowarray's nor in a file
    under ``library_prefixes``, or, if every caller is library code, the
    first outside cowarray. The level counts from the caller: 1 is itself."""
    frame: Any = sys._getframe(2)
    level = 1
    fallback: tuple[Any, int] | None = None
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith(PACKAGE_DIR):
            if not filename.startswith(library_prefixes):
                return frame, level
            if fallback is None:
                fallback = frame, level
        frame = frame.f_back
        level += 1
    return fallback if fallback is not None else (None, level)


def location(frame: Any) -> Location:
    """Where ``frame`` runs (:data:`NOWHERE` for None)."""
    if frame is None:
        return NOWHERE
    return frame.f_code.co_filename, frame.f_lineno, frame.f_globals


def site(frame: Any) -> tuple[Any, int] | None:
    """``frame``'s code object and instruction offset (a code object keeps no
    locals alive), for reading its source later."""
    return None if frame is None else (frame.f_code, frame.f_lasti)


def caller_module(depth: int) -> object:
    """The ``__name__`` of the module whose code runs ``depth`` frames below
    the caller of the function that asks (None if there is no such frame)."""
    try:
        frame = sys._getframe(depth + 2)
    except ValueError:
        return None
    return frame.f_globals.get("__name__")


def calling_code(depth: int) -> Any:
    """The code object running ``depth`` frames below the caller of the
    function that asks (None if there is no such frame)."""
    try:
        return sys._getframe(depth + 2).f_code
    except ValueError:
        return None


def first_file_outside(depth: int, packages: tuple[str, ...]) -> str:
    """The file of the first frame from ``depth`` frames below the caller of
    the function that asks whose module is not in ``packages`` (or a
    submodule of one); "" if there is none."""
    try:
        frame: Any = sys._getframe(depth + 2)
    except ValueError:
        return ""
    while frame is not None:
        module = str(frame.f_globals.get("__name__"))
        if not any(module == p or module.startswith(p + ".") for p in packages):
            return str(frame.f_code.co_filename)
        frame = frame.f_back
    return ""


def caller_code() -> Any:
    """The code object of the frame below the caller: for a Python callback
    that C code called (NumPy's error callback, called at the end of a
    ufunc call), the code that called that C function."""
    return sys._getframe(2).f_code


# -- bytecode: what the statement running does next -----------------------------------


#: After an in-place BINARY_OP, only these may come before the write-back.
_STACK_SHUFFLES: Final = frozenset(
    {"SWAP", "COPY", "NOP", "EXTENDED_ARG", "CACHE", "ROT_TWO", "ROT_THREE", "ROT_FOUR"}
)
#: The write-back of an augmented assignment to a subscript or attribute.
_WRITE_BACKS: Final = frozenset({"STORE_SUBSCR", "STORE_SLICE", "STORE_ATTR"})
#: Stores of a name, and the loads that read the same variable back.
_NAME_STORES: Final = {
    "STORE_FAST": "FAST",
    "STORE_NAME": "NAME",
    "STORE_GLOBAL": "GLOBAL",
    "STORE_DEREF": "DEREF",
}
_NAME_LOADS: Final = {
    "LOAD_FAST": "FAST",
    "LOAD_FAST_BORROW": "FAST",
    "LOAD_FAST_CHECK": "FAST",
    "LOAD_NAME": "NAME",
    "LOAD_GLOBAL": "GLOBAL",
    "LOAD_DEREF": "DEREF",
}
_PAIRED_LOADS: Final = frozenset({"LOAD_FAST_LOAD_FAST", "LOAD_FAST_BORROW_LOAD_FAST_BORROW"})
_CONSTANT_LOADS: Final = frozenset({"LOAD_CONST", "LOAD_SMALL_INT", "LOAD_COMMON_CONSTANT"})

#: What :func:`_write_back` finds after an in-place operator.
NO_WRITE_BACK: Final = 0
INTO_ITS_CONTAINER: Final = 1  # ``c[k] += v``: STORE_SUBSCR / STORE_SLICE / STORE_ATTR
THROUGH_ITS_NAME: Final = 2  # ``v *= s`` and, as the next statement, ``c[k] = v``

#: (id(code), offset) -> (code, :func:`_write_back`'s answer, and for
#: :data:`INTO_ITS_CONTAINER` the container variable, see
#: :func:`_container_variable`) for the instruction there. Keyed by the code
#: object's id, not the object: hashing a code object hashes its bytecode and
#: constants each time, a visible share of ``x[a:b] += d``.
#: The entry holds the code object, so while it lives no other object can
#: have that id; the ``is`` test says so again. Bounded: cleared when full.
_FACTS_AT: dict[tuple[int, int], tuple[Any, int, tuple[str, str, Any] | None]] = {}
_FACTS_AT_MOST: Final = 4096


def instruction_facts(frame: Any) -> tuple[Any, int, tuple[str, str, Any] | None]:
    """``frame``'s code, :func:`_write_back`'s answer and the container
    variable at its running instruction, read once per code and offset."""
    code = frame.f_code
    offset = frame.f_lasti
    last = _LAST_FACTS  # (one read: another thread replaces it whole)
    if last[0] is code and last[1] == offset:
        return last[2]  # (a loop: the same statement again)
    key = (id(code), offset)
    entry = _FACTS_AT.get(key)
    if entry is not None and entry[0] is code:
        _remember_facts(code, offset, entry)
        return entry
    try:
        answer = _read_write_back(code, offset)
    except Exception:  # (bytecode this does not know: warn at once)
        answer = NO_WRITE_BACK
    variable = None
    if answer == INTO_ITS_CONTAINER:
        try:
            variable = _container_variable(code, offset)
        except Exception:  # (bytecode this does not know: no write-through)
            variable = None
    entry = (code, answer, variable)
    if len(_FACTS_AT) >= _FACTS_AT_MOST:
        _FACTS_AT.clear()
    _FACTS_AT[key] = entry
    _remember_facts(code, offset, entry)
    return entry


#: The last (code, offset, entry) that :func:`_instruction_facts` answered.
_Facts = tuple[Any, int, tuple[str, str, Any] | None]
_LAST_FACTS: tuple[Any, int, _Facts] = (None, -1, (None, 0, None))


def _remember_facts(
    code: Any, offset: int, entry: tuple[Any, int, tuple[str, str, Any] | None]
) -> None:
    global _LAST_FACTS
    _LAST_FACTS = (code, offset, entry)


def _write_back(frame: Any) -> int:
    """Whether ``frame``, at an in-place operator, writes its result back.

    Python runs ``c[k] += v`` as ``t = c[k]; t += v; c[k] = t``: the
    in-place BINARY_OP is followed by stack shuffles only (SWAP, COPY) and
    then STORE_SUBSCR (STORE_SLICE for ``c[a:b]`` on 3.12 and 3.13) or
    STORE_ATTR, which write ``t`` back (:data:`INTO_ITS_CONTAINER`). The
    same by hand, ``v *= s`` followed by the statement ``c[k] = v`` (only
    loads of names and constants, attributes, slices and tuples before the
    store, which takes ``v`` as its value), is :data:`THROUGH_ITS_NAME`.
    Anything else (``v += 1`` and then other code; a call from C such as
    ``operator.iadd``, where ``f_lasti`` is at a CALL) is
    :data:`NO_WRITE_BACK`.

    Read from the code object (``dis`` undoes the interpreter's
    specializations) at ``f_lasti``, the instruction running; calibrated on
    CPython 3.11 to 3.15 by tests/hostile/test_view_write_spellings.py. A
    diagnostic only: no value depends on the answer.
    """
    return instruction_facts(frame)[1]


def _read_write_back(code: Any, offset: int) -> int:
    import dis

    instructions = iter(dis.get_instructions(code))
    for instruction in instructions:
        if instruction.offset == offset:
            if instruction.opname != "BINARY_OP" or not instruction.argrepr.endswith("="):
                return NO_WRITE_BACK  # not an in-place operator (a call from C)
            break
    else:
        return NO_WRITE_BACK
    for instruction in instructions:
        if instruction.opname not in _STACK_SHUFFLES:
            break
    else:
        return NO_WRITE_BACK
    opname = instruction.opname
    if opname in _WRITE_BACKS:
        return INTO_ITS_CONTAINER
    # ``v *= s`` stored in a name: is the next statement ``c[k] = v``?
    stack: list[bool] = []  # the values the statement pushes: True for v
    if opname == "STORE_FAST_LOAD_FAST":
        name, loaded = instruction.argval
        kind = "FAST"
        stack.append(loaded == name)
    elif opname in _NAME_STORES:
        name, kind = instruction.argval, _NAME_STORES[opname]
    else:
        return NO_WRITE_BACK
    for count, instruction in enumerate(instructions):
        opname = instruction.opname
        if count > 32 or len(stack) > 8:
            return NO_WRITE_BACK
        if opname in _STACK_SHUFFLES and opname not in ("SWAP", "COPY"):
            continue
        if opname in _NAME_LOADS:
            if "NULL" in instruction.argrepr:
                return NO_WRITE_BACK  # a call follows
            stack.append(instruction.argval == name and _NAME_LOADS[opname] == kind)
        elif opname in _PAIRED_LOADS:
            stack.extend(loaded == name and kind == "FAST" for loaded in instruction.argval)
        elif opname in _CONSTANT_LOADS:
            stack.append(False)
        elif opname == "LOAD_ATTR" and "NULL" not in instruction.argrepr and stack:
            if stack.pop():
                return NO_WRITE_BACK  # an attribute of v: not a write-back
            stack.append(False)
        elif opname in ("BUILD_SLICE", "BUILD_TUPLE") and 0 < (instruction.arg or 0) <= len(stack):
            del stack[len(stack) - (instruction.arg or 0) :]
            if len(stack) < 1:
                return NO_WRITE_BACK  # v went into it
            stack.append(False)
        elif opname in ("STORE_SUBSCR", "STORE_SLICE"):
            operands = 3 if opname == "STORE_SUBSCR" else 4
            if len(stack) == operands and stack[0] and not any(stack[1:]):
                return THROUGH_ITS_NAME
            return NO_WRITE_BACK
        else:
            return NO_WRITE_BACK
    return NO_WRITE_BACK


#: Besides loads, what a subscript's key may be built of (pops ``arg`` items).
_KEY_PARTS: Final = frozenset({"BUILD_SLICE", "BUILD_TUPLE"})
#: Operators a key may hold, and how many items each takes from the stack.
_KEY_OPERATORS: Final = {
    "BINARY_OP": 2,
    "BINARY_SUBSCR": 2,
    "UNARY_NEGATIVE": 1,
    "UNARY_INVERT": 1,
}
_SKIPPED: Final = frozenset({"NOP", "CACHE", "EXTENDED_ARG"})
_SUBSCRIPTS: Final = frozenset({"BINARY_SUBSCR", "BINARY_SLICE"})


def _container_variable(code: Any, offset: int) -> tuple[str, str, Any] | None:
    """``(kind, name, key)`` of the statement ``NAME[key] op= value`` whose
    in-place operator is at ``offset``, ``key`` built of constants only
    (:func:`_constant_key`); None if it is not that shape."""
    import dis

    instructions = [i for i in dis.get_instructions(code) if i.opname not in _SKIPPED]
    at = next(n for n, i in enumerate(instructions) if i.offset == offset)
    shuffles = 0
    for after in instructions[at + 1 :]:
        if after.opname != "SWAP":
            break
        shuffles += 1
    copies = {"STORE_SUBSCR": 2, "STORE_SLICE": 3}.get(after.opname)
    if copies is None or shuffles != copies:
        return None
    # The value may hold subscripts of its own, never COPYs before one (only
    # an augmented assignment, a statement, makes that shape).
    for load in range(at - 1, copies - 1, -1):
        opname = instructions[load].opname
        is_subscript = opname in _SUBSCRIPTS or (
            opname == "BINARY_OP" and instructions[load].argrepr == "[]"
        )
        if is_subscript and all(
            i.opname == "COPY" and i.arg == copies for i in instructions[load - copies : load]
        ):
            break
    else:
        return None
    if (opname == "BINARY_SLICE") != (copies == 3):
        return None
    needed = copies - 1  # the key's stack items: a key, or a slice's start and stop
    index = load - copies - 1
    while index >= 0:
        instruction = instructions[index]
        opname = instruction.opname
        if opname in _CONSTANT_LOADS or (
            opname in _NAME_LOADS and "NULL" not in instruction.argrepr
        ):
            pops, pushes = 0, 1
        elif opname in _PAIRED_LOADS:
            pops, pushes = 0, 2
        elif opname in _KEY_PARTS and instruction.arg:
            pops, pushes = instruction.arg, 1
        elif opname in _KEY_OPERATORS and not instruction.argrepr.endswith("="):
            pops, pushes = _KEY_OPERATORS[opname], 1  # (``x[i:i + 2]``)
        else:
            return None
        if needed == 0 or (needed == 1 and pushes == 2):
            break  # this instruction loads the container
        needed += pops - pushes
        if needed < 0:
            return None
        index -= 1
    else:
        return None
    if opname in _NAME_LOADS:
        kind, name = _NAME_LOADS[opname], instruction.argval
    else:
        return None  # (a paired load: the key reads a variable too)
    key = _constant_key(instructions[index + 1 : load - copies], copies == 3)
    if key is _NOT_CONSTANT:
        return None
    for between in instructions[index + 1 : at + 1]:
        if getattr(between, "is_jump_target", True):
            return None
        if between.opname.startswith(("STORE_", "DELETE_")):
            targets = between.argval if isinstance(between.argval, tuple) else (between.argval,)
            if name in targets:
                return None
    return kind, name, key


_NOT_CONSTANT: Final = object()
#: The loads of a constant (3.14 loads a small int with its own instruction).
#: (3.15 loads -1, None and a few others with LOAD_COMMON_CONSTANT, whose
#: argval is the object itself: _plain_key refuses what is not a key part.)
_KEY_CONSTANTS: Final = frozenset({"LOAD_CONST", "LOAD_SMALL_INT", "LOAD_COMMON_CONSTANT"})


def _constant_key(instructions: list[Any], sliced: bool) -> Any:
    """The key the instructions between the container's load and its copies
    build, if they build it of constants only (``u[1:-1]``, ``u[1:-1, 0]``,
    ``u[..., -1]``): ints, None, Ellipsis, slices and tuples of them, which
    Python and NumPy read without running code. ``sliced``: the 3.12+ form
    ``x[a:b]``, whose two items make ``slice(a, b)``. Anything else
    (a variable, whose value could change or run code when converted) is
    :data:`_NOT_CONSTANT`."""
    stack: list[Any] = []
    for instruction in instructions:
        opname = instruction.opname
        if opname in _KEY_CONSTANTS:
            stack.append(instruction.argval)
        elif opname in _KEY_PARTS and 0 < (instruction.arg or 0) <= len(stack):
            parts = stack[len(stack) - instruction.arg :]
            del stack[len(stack) - instruction.arg :]
            stack.append(slice(*parts) if opname == "BUILD_SLICE" else tuple(parts))
        else:
            return _NOT_CONSTANT
    if sliced:
        if len(stack) != 2:
            return _NOT_CONSTANT
        stack[:] = [slice(*stack)]
    if len(stack) != 1 or not _plain_key(stack[0]):
        return _NOT_CONSTANT
    return stack[0]


def _plain_key(key: Any) -> bool:
    parts = key if type(key) is tuple else (key,)
    for part in parts:
        if type(part) is slice:
            if not all(b is None or type(b) is int for b in (part.start, part.stop, part.step)):
                return False
        elif not (type(part) is int or part is None or part is Ellipsis):
            return False
    return True


#: Whether a function's locals are read through a snapshot (3.11, 3.12).
_FAST_LOCALS_SNAPSHOT: Final = sys.version_info < (3, 13)


def read_fast_local(frame: Any, name: str) -> object:
    """A function's local on CPython 3.11 and 3.12, read without keeping the
    others alive: ``f_locals`` there refreshes a dictionary the frame keeps
    (``locals()``'s), which would hold every local until the frame ends.
    Nobody else holding it (its count), it is emptied again at once: the
    next reader refreshes it from the frame, as it always does."""
    if not frame.f_code.co_flags & _CO_OPTIMIZED:
        return read_variable(frame, ("NAME", name))
    snapshot = frame.f_locals
    value = snapshot.get(name, _UNKNOWN)
    if getrefcount(snapshot) <= _SNAPSHOT_ALONE:
        snapshot.clear()
    return value


def names_of(frame: Any, targets: list[object]) -> list[list[str]]:
    """For each of ``targets``, the names of ``frame``'s variables (its
    locals, then its module's globals) bound to it, in the order they were
    made. Diagnostics only (a copy report names the other holders of a
    buffer): reads the variables as :func:`read_fast_local` does, keeping
    none of them alive."""
    found: list[list[str]] = [[] for _ in targets]
    if frame is None:
        return found
    places: list[dict[str, Any]] = []
    snapshot = None
    if frame.f_code.co_flags & _CO_OPTIMIZED:
        snapshot = frame.f_locals
        places.append(snapshot)
    places.append(frame.f_globals)
    try:
        for place in places:
            for name, value in list(place.items()):
                for index, target in enumerate(targets):
                    if value is target and name not in found[index]:
                        found[index].append(name)
    finally:
        if (
            snapshot is not None
            and sys.version_info < (3, 13)
            and getrefcount(snapshot) <= _SNAPSHOT_ALONE
        ):
            snapshot.clear()
    return found


def variables_loaded(frame: Any) -> list[tuple[str, object]]:
    """``(name, value)`` of every variable the statement running in ``frame``
    loads (the instructions of its line that load a local, a global, a
    module-level name or a closure's cell), read without running code and
    without keeping other locals alive (:func:`read_fast_local`). A name not
    bound now is left out. Diagnostics only: whether a statement uses a
    view whose base was written since (rule 1's later warning)."""
    code = frame.f_code
    line = frame.f_lineno
    key = (id(code), line)
    known = _LOADS_AT.get(key)
    if known is None or known[0] is not code:
        if len(_LOADS_AT) >= _FACTS_AT_MOST:
            _LOADS_AT.clear()
        known = _LOADS_AT[key] = (code, _names_loaded(code, line))
    found = []
    optimized = code.co_flags & _CO_OPTIMIZED
    for kind, name in known[1]:
        if kind == "FAST" and optimized:
            value = read_fast_local(frame, name)
        elif kind == "DEREF":
            # (3.13+: f_locals is a view of the frame; before, a cell's value
            # only comes with the snapshot of every local: not read)
            value = frame.f_locals.get(name, _UNKNOWN) if sys.version_info >= (3, 13) else _UNKNOWN
        else:
            value = read_variable(frame, (kind, name))
        if value is not _UNKNOWN:
            found.append((name, value))
    return found


#: (id(code), line) -> (code, the variables that line loads): see _FACTS_AT.
_LOADS_AT: dict[tuple[int, int], tuple[Any, tuple[tuple[str, str], ...]]] = {}


def _names_loaded(code: Any, line: int) -> tuple[tuple[str, str], ...]:
    import dis

    loaded: list[tuple[str, str]] = []
    for instruction in dis.get_instructions(code):
        positions = instruction.positions
        if positions is None or positions.lineno != line:
            continue
        opname = instruction.opname
        if not opname.startswith("LOAD_") or opname in _NOT_VARIABLES:
            continue
        kind = (
            "FAST"
            if opname.startswith("LOAD_FAST")
            else "GLOBAL"
            if opname == "LOAD_GLOBAL"
            else "DEREF"
            if opname in ("LOAD_DEREF", "LOAD_CLASSDEREF")
            else "NAME"
        )
        # (3.13+ loads two locals at once: LOAD_FAST_LOAD_FAST, argval a pair)
        names = (
            instruction.argval if isinstance(instruction.argval, tuple) else (instruction.argval,)
        )
        for name in names:
            if isinstance(name, str) and (kind, name) not in loaded:
                loaded.append((kind, name))
    return tuple(loaded)


#: LOAD_ instructions that load no variable.
_NOT_VARIABLES: Final = frozenset(
    {
        "LOAD_CONST",
        "LOAD_SMALL_INT",
        "LOAD_ATTR",
        "LOAD_METHOD",
        "LOAD_SUPER_ATTR",
        "LOAD_ASSERTION_ERROR",
        "LOAD_BUILD_CLASS",
        "LOAD_CLOSURE",
        "LOAD_COMMON_CONSTANT",
        "LOAD_SPECIAL",
        "LOAD_LOCALS",
        "LOAD_FROM_DICT_OR_DEREF",
        "LOAD_FROM_DICT_OR_GLOBALS",
    }
)


def assignment_lines(code: Any, name: str) -> list[int]:
    """The source lines of ``code`` that bind ``name`` (``name = ...``, a
    ``for`` target, ...), read from its bytecode: where a report says a
    variable was made. Diagnostics only."""
    import dis

    lines: list[int] = []
    for instruction in dis.get_instructions(code):
        argval = instruction.argval
        # (3.13+ stores two locals at once: STORE_FAST_STORE_FAST, argval a pair)
        names = argval if isinstance(argval, tuple) else (argval,)
        if (
            instruction.opname.startswith(_STORES)
            and name in names
            and instruction.positions is not None
            and instruction.positions.lineno is not None
            and instruction.positions.lineno not in lines
        ):
            lines.append(instruction.positions.lineno)
    return lines


#: The instructions that bind a variable, on every CPython 3.11+ (and their
#: superinstructions: STORE_FAST_STORE_FAST, STORE_FAST_LOAD_FAST).
_STORES: Final = ("STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF")


def _snapshot_count() -> int:
    def local_frame() -> int:
        anchor = object()  # noqa: F841 (a local for the snapshot to hold)
        return _count_snapshot(sys._getframe())

    def _count_snapshot(frame: Any) -> int:
        snapshot = frame.f_locals
        return getrefcount(snapshot)

    return local_frame()


#: What :func:`_read_fast_local` counts for a snapshot only the frame holds.
_SNAPSHOT_ALONE: Final = _snapshot_count() if sys.version_info < (3, 13) else 0


_UNKNOWN: Final = object()
#: What :func:`store_container` and the variable readers give for a value
#: they cannot read without side effects.
UNKNOWN: Final = _UNKNOWN


def store_container(frame: Any) -> object:
    """The object the statement after ``v *= s`` stores into, if it is named
    by a plain variable that can be read without side effects."""
    import dis

    instructions = iter(dis.get_instructions(frame.f_code))
    for instruction in instructions:
        if instruction.offset == frame.f_lasti:
            break
    stack: list[tuple[str, str] | None] = []
    for instruction in instructions:  # the in-place result's store
        if instruction.opname in _STACK_SHUFFLES:
            continue
        if instruction.opname == "STORE_FAST_LOAD_FAST":
            stack.append(("FAST", instruction.argval[1]))
        break
    for instruction in instructions:
        opname = instruction.opname
        if opname in ("NOP", "CACHE", "EXTENDED_ARG"):
            continue
        if opname in _NAME_LOADS:
            stack.append((_NAME_LOADS[opname], instruction.argval))
        elif opname in _PAIRED_LOADS:
            stack.extend(("FAST", name) for name in instruction.argval)
        elif opname in _CONSTANT_LOADS or opname == "LOAD_ATTR":
            if opname == "LOAD_ATTR" and stack:
                stack.pop()
            stack.append(None)
        elif opname in ("BUILD_SLICE", "BUILD_TUPLE"):
            del stack[len(stack) - (instruction.arg or 0) :]
            stack.append(None)
        elif opname in ("STORE_SUBSCR", "STORE_SLICE"):
            return read_variable(frame, stack[1]) if len(stack) > 1 else _UNKNOWN
        else:
            return _UNKNOWN
    return _UNKNOWN


def read_variable(frame: Any, variable: tuple[Any, ...] | None) -> object:
    if variable is None:
        return _UNKNOWN
    kind, name = variable[0], variable[1]
    if kind == "GLOBAL" or (kind == "NAME" and not frame.f_code.co_flags & _CO_OPTIMIZED):
        # Module and class bodies: f_locals is their namespace itself, no copy.
        scopes = (frame.f_locals, frame.f_globals, frame.f_builtins)
    elif kind in ("FAST", "DEREF") and sys.version_info >= (3, 13):
        scopes = (frame.f_locals,)  # a view of the frame (PEP 667), no snapshot
    else:
        return _UNKNOWN
    for scope in scopes[1:] if kind == "GLOBAL" else scopes:
        if name in scope:
            return scope[name]
    return _UNKNOWN


_CO_OPTIMIZED: Final = 0x0001


def statement_store(depth: int) -> tuple[Any, Any] | None:
    """``(value of NAME, key)`` when the statement running in the frame
    ``depth`` levels below the caller (or, if that frame is cowarray's, the
    first outside it) is at the in-place operator of ``NAME[key] op= v``
    with ``key`` built of constants (:func:`_container_variable`); None
    otherwise, and whenever a trace or profile function is set.

    The code is read once per code object and offset (cached); the variable
    is read now, on every call: the caller decides what its value must be.
    """
    if sys.gettrace() is not None or sys.getprofile() is not None:
        return None
    # (The usual answers of outside_frame and instruction_facts are read
    # here without the calls: a loop's statement asks each time.)
    frame = sys._getframe(depth + 1)
    if frame.f_code.co_filename.startswith(PACKAGE_DIR):
        frame = outside_frame(depth=depth + 2)  # (the same frame, seen from one deeper)
        if frame is None:
            return None
    last = _LAST_FACTS  # (one read: another thread replaces it whole)
    if last[0] is frame.f_code and last[1] == frame.f_lasti:
        variable = last[2][2]
    else:
        variable = instruction_facts(frame)[2]  # (None unless INTO_ITS_CONTAINER)
    if variable is None:
        return None
    value: Any = (
        read_fast_local(frame, variable[1])
        if _FAST_LOCALS_SNAPSHOT and (variable[0] == "FAST" or variable[0] == "DEREF")
        else read_variable(frame, variable)
    )
    return value, variable[2]


# -- the temporary view of ``x[k] += v``, counted ----------------------------------------

#: The count of a view when only the caller's value stack holds it (the ``t``
#: of ``x[k] += v``) at the reading of cowarray._core.families, measured on
#: this interpreter while cowarray is imported (:func:`measure_temporary_count`);
#: None if the measurement was not conclusive.
temporary_view_count: int | None = None
#: thread ident -> the counts a measurement on that thread collects.
MEASURING: Final[dict[int, list[int]]] = {}


def measure_temporary_count(run: Callable[[], None], me: int) -> None:
    """Set :data:`temporary_view_count` from ``run()``, which makes the reading
    twice on this thread (``me``): for a temporary view, and for one a list
    also holds, which must count one more, or nothing is proven."""
    global temporary_view_count
    counts = MEASURING[me] = []
    try:
        run()
    finally:
        del MEASURING[me]
    conclusive = len(counts) == 2 and counts[1] == counts[0] + 1
    temporary_view_count = counts[0] if conclusive else None


# -- the last use of an array: functional updates and to_torch ----------------------------
#
# Whether a functional update is the last use of its array (no copy needed).
#
# ``y = f().at[i].set(v)`` updates an array that nothing else references:
# once the update returns it is garbage, so the update may write into its
# memory instead of copying it. This module decides that from CPython's
# reference counts, and only that: a count is a fact about the whole process,
# while the caller's code (which an earlier version read) is not. A receiver
# that forwards ``.at``, a ``__del__``, a tracer or another thread could all
# reach an array that the caller's bytecode seemed about to drop.
#
# Two counts are taken inside the update: of the array, and of its
# ``x.at[index]`` object (the ``_At``). How many references certainly exist
# (the ``_At``'s slot, the update's own locals, ``sys.getrefcount``'s
# argument) differs between CPython releases, so nothing is written down:
# :func:`calibrate` runs real updates of fresh arrays at import and measures
#
# * the minimum: a true temporary, referenced by nothing but its update;
# * the array held by a name as well, which must count higher, or the array
#   count proves nothing and no update is ever done in place;
# * the ``_At`` held by a name as well. Up to 3.13 that counts higher. From
#   3.14 on it does not: a name's strong reference lets the interpreter
#   *borrow* the one it puts on the stack, so ``u = f().at[0]; u.set(1)``
#   shows the counts of ``f().at[0].set(1)``. There the counts cannot tell a
#   kept ``_At``, and only an array that :func:`cowarray.move` returned (marked
#   *donated*) is updated in place: its first update through ``.at`` takes the
#   buffer, as the caller asked.
#
# Every reference a caller can hold (a name, a container, an attribute) is a
# strong one, and a borrowed stack reference exists only beside a strong one,
# so an array count at the minimum proves that nothing but the ``_At``
# reaches the array. Anything unexpected only raises the counts, and the
# update copies. The update then *moves* the array: should anything reach it
# after all (a gc callback walking ``gc.get_objects()``), it finds a moved
# array that raises on use, never a second name for the result.
#
# ``x[i] = v`` is the zero-copy way to update ``x`` itself;
# ``x = x.at[i].set(v)`` keeps old ``x`` a value and copies.

#: The references to the array and to the ``_At`` that an update of a true
#: temporary shows, measured by :func:`calibrate` (two ints, not a pair: the
#: proof compares them on every update); -1: nothing proven, never in place.
minimum_array = minimum_at = -1
#: Whether a kept ``_At`` counts higher than a temporary one (up to 3.13).
at_count_proves: bool = False
_measuring = False
_measured: list[tuple[int, int]] = []


def is_last_use(at: _Update, donated: bool) -> bool:
    """Whether nothing but the update running on ``at`` can reach its array.

    ``donated``: the array is one :func:`cowarray.move` returned. Must be
    called directly from ``_update``, itself called directly from the
    ``_At`` method the user called, as the calibration is.
    """
    array_count = getrefcount(at.array)
    if array_count != minimum_array or _measuring:
        if _measuring:
            _measured.append((array_count, getrefcount(at)))
            return True  # the probes are fresh arrays: taking them copies nothing
        return False  # the array itself is held elsewhere (or nothing is proven)
    if at_count_proves:
        return getrefcount(at) == minimum_at
    return donated


def calibrate(
    temporary: Callable[[], None], array_kept: Callable[[], None], at_kept: Callable[[], None]
) -> None:
    """Measure the counts of three real updates of fresh arrays: a temporary,
    one whose array a name also holds, one whose ``_At`` a name also holds."""
    global at_count_proves, _measuring, minimum_array, minimum_at
    minimum_array = minimum_at = -1  # (until proven below)
    measured = []
    for probe in (temporary, array_kept, at_kept):
        _measured.clear()
        _measuring = True
        try:
            probe()
        finally:
            _measuring = False
        measured.append(list(_measured))
    ok = sys.implementation.name == "cpython" and all(len(m) == 1 for m in measured)
    if not ok:
        return
    (base,), (array_kept_counts,), (at_kept_counts,) = measured
    if array_kept_counts[0] <= base[0]:
        return  # a held array would look like a temporary: never in place
    minimum_array, minimum_at = base
    at_count_proves = at_kept_counts[1] > base[1]


def temporary_argument_count(
    temporary: Callable[[], object], named: Callable[[], object], measured: list[int]
) -> int | None:
    """What a function's first reading of its argument shows when its caller
    passed a temporary (``to_torch(a + b)``), or None when the counts prove
    nothing on this interpreter.

    ``temporary`` and ``named`` each call the function once from Python code,
    with a fresh array and with one a name also holds; the function appends
    its reading to ``measured``. The argument of the module docstring holds:
    every reference a caller can keep is a strong one, so a reading at the
    temporary's count proves that nothing but the running call reaches the
    array, provided a named array reads higher (else None: never).
    """
    readings = []
    for probe in (temporary, named):
        measured.clear()
        probe()
        readings.append(list(measured))
    measured.clear()
    if sys.implementation.name != "cpython" or any(len(r) != 1 for r in readings):
        return None
    (temporary_count,), (named_count,) = readings
    return temporary_count if named_count > temporary_count else None
