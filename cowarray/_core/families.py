"""Writes through views that NumPy would have shown in another array: warn.

Code written for NumPy often writes into a view and expects the array it
was taken from to change (``v = out[k]; v += d``). Under cowarray's rule 1
only the view changes, so such code would compute a wrong answer without a
word. This module makes that loud (docs/design.md, rule 1):

- Every array that a view-returning operation derived from another (a
  slice, ``.T``, a reshape that NumPy does as a view...) belongs to that
  array's *view family*, the set of arrays that would share memory in NumPy.
  A lazy clone starts a new family: it is an explicit value.
- A write to a derived view while another member of its family is alive is
  a *view write*: it warns with :class:`ViewWriteWarning` at once, at the
  line that wrote, on the thread that wrote and so inside that code's
  warning filters (``catch_warnings``, ``pytest.warns``, ``-W error``: then
  the write raises before it changes anything). A write to the family's
  first array (the one views were taken from) does not warn: NumPy code
  that writes the base while holding views is rare, and cowarray code does
  it all the time.
- ``x[k] += v`` is ``t = x[k]; t += v; x[k] = t`` in Python, and its result
  is NumPy's. The in-place write to ``t`` reads its caller's code
  (:func:`note_in_place_write`): if the next instructions write ``t`` back
  into a container and only the value stack holds ``t``, the warning is
  held back, on this thread only, until the write-back, which drops it when
  it writes into ``t``'s family (:func:`settle`); anything else reports it
  first, naming the line. Where the code cannot be read (a call from C, as
  ``operator.iadd``), the write warns at once.
- A NumPy array or DLPack consumer that writes exported memory of a view
  whose family lives (``np.asarray(out[k])``, ``torch.from_dlpack(x[0])``)
  cannot be seen as it writes. The export is compared with a snapshot when
  the consumer releases it, and a difference is reported, naming the line
  that made the export, at the exporting thread's next cowarray operation
  (:func:`end_watch`: a release may run in a gc callback or on another
  thread); exports still alive at interpreter exit are compared then. An
  export also counts as a member of its array's family while it lives, so
  ``a = np.asarray(x); v = x[0]; del x; v[1] = 5`` warns.
- Every deferred report belongs to one thread: :func:`flush` (each
  operation, while :data:`PENDING` is non-empty) reports only the calling
  thread's; those of a thread that ended without another operation, and
  everything left, are reported at interpreter exit.

Families are counted by reference counts of a small token, calibrated at
import; whether a view is a temporary, by its reference count, calibrated
the first time it is needed. A count can be off only in a diagnostic (a
missed or an extra warning); values never depend on it, nor on the code
read.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
import warnings
import weakref
from typing import TYPE_CHECKING, Any, Final

from . import counts

if TYPE_CHECKING:
    import ast

_getrefcount: Final = counts.getrefcount

__all__ = ["ViewWriteWarning"]


class ViewWriteWarning(UserWarning):
    """A write to a view that NumPy would also have made in the array it views.

    cowarray wrote only the view (every array is a value); code written for
    NumPy may have meant the other array to change. Write that array itself
    (``x[k] += d`` instead of ``v = x[k]; v += d``), or, if a separate value
    was meant, say so with ``v = cowarray.lazy_clone(x[k])``, which never warns.

    Examples
    --------
    >>> import warnings
    >>> import cowarray as ca
    >>> x = ca.zeros((2, 3))
    >>> row = x[0]
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     row[1] = 5.0  # warns here, naming this line
    >>> caught[0].category.__name__
    'ViewWriteWarning'
    >>> x[0, 1], row[1]
    (cowarray.Array(0., dtype=float64), cowarray.Array(5., dtype=float64))
    """


_new_object = object.__new__


class _Views:
    """The token every view of one family holds (and its first array, through
    :class:`_Family`): its reference count counts the family's live members."""

    __slots__ = ()


class _Family:
    """Held by the array a family's views were first taken from."""

    __slots__ = ("views",)
    views: _Views


def views_token(source: Any) -> _Views:
    """The token a new view of ``source`` holds: ``source``'s family's (a view
    of a view of ``x`` is still ``x``'s: the token is passed on, not nested)."""
    family = source._family
    if type(family) is _Views:
        return family
    if family is None:
        # Made without an __init__ call: every first view of an array makes
        # one. Threads taking first views at once must all join the one that
        # is stored: it is made first (making it may run a gc callback, which
        # may take a view too), then stored only if none is there yet, under
        # a lock (a signal handler that takes a view re-enters it: an RLock).
        # From reading the slot to storing it runs no call, so no switch.
        made = _new_object(_Family)
        made.views = _Views()
        with _FIRST_VIEW:
            family = source._family
            if family is None:
                source._family = family = made
        if type(family) is _Views:
            return family
    return family.views  # type: ignore[no-any-return]


_FIRST_VIEW: Final = threading.RLock()


def _references(holder: Any) -> int:
    return _getrefcount(holder._family)


#: What :func:`_references` reads for a token held by one array only
#: (cowarray._core.counts: measured at import with the same function).
_ONE_HOLDER: Final = counts.baseline(_references, "_family", _Views)


def _others_alive(holder: Any, value: object) -> bool:
    others = _references(holder) - _ONE_HOLDER
    if getattr(value, "_family", None) is holder._family:
        others -= 1  # the array being written from is read, not aliased
    return others > 0


def lives_beside_its_family(holder: Any) -> bool:
    """Whether ``holder`` is a derived view and another array of its family lives."""
    return type(holder._family) is _Views and _others_alive(holder, None)


class _Pending:
    """A view write to report on the thread that made it (``thread``).

    ``site`` is the code object and instruction offset that wrote, when
    known: the report reads the user's source there to name the variables
    (:func:`_describe_write`). A code object keeps no locals alive.
    ``region`` is the memory the held-back view viewed when it wrote: only
    a store of it into those very elements settles the report.
    """

    __slots__ = (
        "filename",
        "holder",
        "lineno",
        "module_globals",
        "region",
        "site",
        "thread",
        "what",
    )

    def __init__(
        self,
        holder: Any,
        what: str,
        where: Location,
        thread: int,
        site: tuple[Any, int] | None = None,
    ) -> None:
        self.holder = holder
        self.region = None if holder is None else holder._data
        self.what = what
        self.filename, self.lineno, self.module_globals = where
        self.thread = thread
        self.site = site


#: Every thread's view writes waiting to be reported, in the order found,
#: each tagged with the thread it belongs to. The hot path tests only that
#: this list is non-empty (``if PENDING: flush()``); :func:`flush` then
#: reports the calling thread's entries and leaves the others'. Entries are
#: rare and short-lived: an in-place write held back for the few
#: instructions until its write-back, and a foreign consumer's write found
#: when its export was released.
PENDING: Final[list[_Pending]] = []

#: Entries of threads that ended before reporting them: reported at exit.
_ORPHANS: Final[list[_Pending]] = []

#: cowarray's own directory (this module lives in its _core package).
_PACKAGE_DIR: Final = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "")
_get_ident: Final = threading.get_ident


#: Where a write happened: file name, line, and the module's globals (for
#: its warning registry). Never the frame: a frame kept alive would keep the
#: writer's locals, NumPy exports among them, alive with it.
Location = tuple[str, int, dict[str, Any]]

_NOWHERE: Final[Location] = ("<unknown>", 0, {})


def _outside_frame(skip: tuple[str, ...] = (), depth: int = 2) -> Any:
    """The innermost frame outside cowarray (and outside functions named in
    ``skip``): the code that wrote, library or not. None when there is none
    (a call from C with no Python frame above it). ``depth``: how many
    frames above this one are certainly cowarray's, the caller's first."""
    frame: Any = sys._getframe(depth)
    while frame is not None and (
        frame.f_code.co_filename.startswith(_PACKAGE_DIR) or frame.f_code.co_name in skip
    ):
        frame = frame.f_back
    return frame


def _location(frame: Any) -> Location:
    if frame is None:
        return _NOWHERE
    return frame.f_code.co_filename, frame.f_lineno, frame.f_globals


def writing_location(skip: tuple[str, ...] = ()) -> Location:
    """The first frame outside cowarray: the line that wrote (library or not).

    ``skip`` names functions to look past as well: a consumer's
    ``from_dlpack`` that calls ``__dlpack__`` on its caller's behalf.
    """
    return _location(_outside_frame(skip))


# -- deciding at the write: is this the first half of ``x[k] += v``? ----------------


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
_NO_WRITE_BACK: Final = 0
_INTO_ITS_CONTAINER: Final = 1  # ``c[k] += v``: STORE_SUBSCR / STORE_SLICE / STORE_ATTR
_THROUGH_ITS_NAME: Final = 2  # ``v *= s`` and, as the next statement, ``c[k] = v``

#: (id(code), offset) -> (code, :func:`_write_back`'s answer, and for
#: :data:`_INTO_ITS_CONTAINER` the container variable, see
#: :func:`_container_variable`) for the instruction there. Keyed by the code
#: object's id, not the object: hashing a code object hashes its bytecode and
#: constants (some 1500 instructions each time, a tenth of ``x[a:b] += d``).
#: The entry holds the code object, so while it lives no other object can
#: have that id; the ``is`` test says so again. Bounded: cleared when full.
_FACTS_AT: dict[tuple[int, int], tuple[Any, int, tuple[str, str, Any] | None]] = {}
_FACTS_AT_MOST: Final = 4096


def _instruction_facts(frame: Any) -> tuple[Any, int, tuple[str, str, Any] | None]:
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
        answer = _NO_WRITE_BACK
    variable = None
    if answer == _INTO_ITS_CONTAINER:
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
    STORE_ATTR, which write ``t`` back (:data:`_INTO_ITS_CONTAINER`). The
    same by hand, ``v *= s`` followed by the statement ``c[k] = v`` (only
    loads of names and constants, attributes, slices and tuples before the
    store, which takes ``v`` as its value), is :data:`_THROUGH_ITS_NAME`.
    Anything else (``v += 1`` and then other code; a call from C such as
    ``operator.iadd``, where ``f_lasti`` is at a CALL) is
    :data:`_NO_WRITE_BACK`.

    Read from the code object (``dis`` undoes the interpreter's
    specializations) at ``f_lasti``, the instruction running; calibrated on
    CPython 3.11 to 3.15 by tests/hostile/test_view_write_spellings.py. A
    diagnostic only: no value depends on the answer.
    """
    return _instruction_facts(frame)[1]


def _read_write_back(code: Any, offset: int) -> int:
    import dis

    instructions = iter(dis.get_instructions(code))
    for instruction in instructions:
        if instruction.offset == offset:
            if instruction.opname != "BINARY_OP" or not instruction.argrepr.endswith("="):
                return _NO_WRITE_BACK  # not an in-place operator (a call from C)
            break
    else:
        return _NO_WRITE_BACK
    for instruction in instructions:
        if instruction.opname not in _STACK_SHUFFLES:
            break
    else:
        return _NO_WRITE_BACK
    opname = instruction.opname
    if opname in _WRITE_BACKS:
        return _INTO_ITS_CONTAINER
    # ``v *= s`` stored in a name: is the next statement ``c[k] = v``?
    stack: list[bool] = []  # the values the statement pushes: True for v
    if opname == "STORE_FAST_LOAD_FAST":
        name, loaded = instruction.argval
        kind = "FAST"
        stack.append(loaded == name)
    elif opname in _NAME_STORES:
        name, kind = instruction.argval, _NAME_STORES[opname]
    else:
        return _NO_WRITE_BACK
    for count, instruction in enumerate(instructions):
        opname = instruction.opname
        if count > 32 or len(stack) > 8:
            return _NO_WRITE_BACK
        if opname in _STACK_SHUFFLES and opname not in ("SWAP", "COPY"):
            continue
        if opname in _NAME_LOADS:
            if "NULL" in instruction.argrepr:
                return _NO_WRITE_BACK  # a call follows
            stack.append(instruction.argval == name and _NAME_LOADS[opname] == kind)
        elif opname in _PAIRED_LOADS:
            stack.extend(loaded == name and kind == "FAST" for loaded in instruction.argval)
        elif opname in _CONSTANT_LOADS:
            stack.append(False)
        elif opname == "LOAD_ATTR" and "NULL" not in instruction.argrepr and stack:
            if stack.pop():
                return _NO_WRITE_BACK  # an attribute of v: not a write-back
            stack.append(False)
        elif opname in ("BUILD_SLICE", "BUILD_TUPLE") and 0 < (instruction.arg or 0) <= len(stack):
            del stack[len(stack) - (instruction.arg or 0) :]
            if len(stack) < 1:
                return _NO_WRITE_BACK  # v went into it
            stack.append(False)
        elif opname in ("STORE_SUBSCR", "STORE_SLICE"):
            operands = 3 if opname == "STORE_SUBSCR" else 4
            if len(stack) == operands and stack[0] and not any(stack[1:]):
                return _THROUGH_ITS_NAME
            return _NO_WRITE_BACK
        else:
            return _NO_WRITE_BACK
    return _NO_WRITE_BACK


#: The count of a view in :func:`note_in_place_write` when only the
#: caller's value stack holds it (the ``t`` of ``x[k] += v``), measured on
#: this interpreter while cowarray is imported (:func:`calibrate_at_import`);
#: None if the measurement was not conclusive.
_TEMPORARY_COUNT: int | None = None
#: thread ident -> the counts a calibration on that thread collects.
_CALIBRATING: dict[int, list[int]] = {}


def note_in_place_write(holder: Any, value: object, what: str) -> None:
    """Called before an in-place operator writes ``holder``, a derived view.

    Warns at once, at the line that wrote, unless the caller's code writes
    the result back next (:func:`_write_back`): an augmented assignment
    ``x[k] += v`` on the temporary ``t = x[k]`` (only the value stack holds
    it: ``views[0] += 1`` on a list of views warns at once), or ``v *= s``
    followed by the statement ``x[k] = v``. Then the warning is held back,
    on this thread only, for :func:`settle` to drop when the write-back goes
    into the view's own family, which makes the result NumPy's; whatever
    cowarray operation comes first otherwise reports it, naming this line.
    Where the caller's code cannot be read (a call from C), it warns at once.
    """
    if not _others_alive(holder, value):
        return
    count = _getrefcount(holder)
    me = _get_ident()
    if _CALIBRATING and me in _CALIBRATING:
        _CALIBRATING[me].append(count)
        return
    if PENDING:
        flush()
    frame = _outside_frame()
    where = _location(frame)
    site = _site(frame)
    kind = _NO_WRITE_BACK if frame is None else _write_back(frame)
    if kind == _THROUGH_ITS_NAME and not _may_store_into_family(frame, holder):
        # ``v *= s`` and then ``lst[k] = v`` into something that is not v's
        # family: no write-back will settle it, so report it now rather
        # than at this thread's next cowarray operation, after other output.
        kind = _NO_WRITE_BACK
    del frame
    # (under a tracer the locals of the frames between may be held by their
    # f_locals dictionaries: the count says nothing, the code does)
    if (
        kind == _INTO_ITS_CONTAINER
        and sys.gettrace() is None
        and _TEMPORARY_COUNT is not None
        and count > _TEMPORARY_COUNT
    ):
        kind = _NO_WRITE_BACK  # held elsewhere too: ``views[0] += 1``
    if kind != _NO_WRITE_BACK:
        if not hasattr(_THREAD, "end"):
            _THREAD.end = _ThreadEnd()
        PENDING.append(_Pending(holder, what, where, me, site))
        return
    _report(_Pending(None, what, where, 0, site))


# -- writing through ``t`` of ``x[k] += v`` (design.md rule 12) ------------------


def write_back_target(view: Any) -> tuple[Any, Any] | None:
    """``(x, key)``: the Array that the statement now running stores ``view``
    back into, and the key it stores at, when they are proven to be the
    array ``view`` was taken from and the key it was taken at.

    Called by an in-place operator on ``view``, a view whose memory one other
    array shares. The answer lets the operator write ``x``'s memory in place
    (the statement is about to store exactly those values there), and is
    given only if all of this holds, else None:

    * no trace or profile function is set;
    * the caller's instruction is the in-place operator of an augmented
      assignment to a subscript, ``NAME[key] op= value`` (``t = NAME[key];
      t op= value; NAME[key] = t``), followed by its stack shuffles and its
      STORE_SUBSCR or STORE_SLICE (:func:`_write_back`);
    * ``NAME`` is a plain variable, ``key`` is built of constants only
      (ints, None, ``...``, slices and tuples of them: nothing that runs
      code when converted or can answer otherwise at the store,
      :func:`_constant_key`), and no instruction between the load of
      ``NAME`` and the operator stores or deletes ``NAME`` or is a jump
      target (:func:`_container_variable`);
    * ``NAME`` holds, now, an ``Array`` (the exact type: a subclass may
      store elsewhere) that holds ``view``'s memory and is the first array
      of ``view``'s family, the one it was taken from (it holds the family
      object whose token ``view`` holds), and was not handed its memory by
      a move (``move(x)`` passes that object on: the moved array is
      donated until it is written, and is refused here).

    Code run within the statement (the value's ``__float__``, a call, a gc
    callback, another thread) may rebind ``NAME``; whatever it binds there
    is checked as above, and only the array ``view`` was taken from passes:
    a lazy clone, a view or another array sharing the memory starts or
    joins another family, or is not the family's first array. So the
    container on the caller's stack is that array, unless it is a
    non-Array object whose ``[key]`` gave a new view of that array and code
    in the statement rebound ``NAME`` from it to that array (the bound
    docs/design.md names). The code is read once per code object and
    offset (cached); the variable is read on every call.
    """
    if sys.gettrace() is not None or sys.getprofile() is not None:
        return None
    if _CALIBRATING and _get_ident() in _CALIBRATING:
        return None  # (calibrate_at_import measures the path that notes the write)
    # (frames 0 to 2 are this function, _apply_inplace and the in-place
    # operator's method, which call each other directly: 3 may be outside.
    # The usual answers of _outside_frame and _instruction_facts are read
    # inline: a loop's statement asks each time.)
    frame = sys._getframe(3)
    if frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = _outside_frame(depth=4)  # (the same frame, seen from one deeper)
        if frame is None:
            return None
    last = _LAST_FACTS  # (one read: another thread replaces it whole)
    if last[0] is frame.f_code and last[1] == frame.f_lasti:
        variable = last[2][2]
    else:
        variable = _instruction_facts(frame)[2]  # (None unless _INTO_ITS_CONTAINER)
    if variable is None:
        return None
    container: Any = (
        _read_fast_local(frame, variable[1])
        if _FAST_LOCALS_SNAPSHOT and (variable[0] == "FAST" or variable[0] == "DEREF")
        else _read_variable(frame, variable)
    )
    del frame
    if type(container) is not _ARRAY_TYPE[0] or container._buf is not view._buf:
        return None
    family = container._family
    if type(family) is not _Family or family.views is not view._family or container._donated:
        return None
    return container, variable[2]


#: The Array type (bound by cowarray._core.values.bind_array_type).
_ARRAY_TYPE: list[Any] = [type(None)]

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
_KEY_CONSTANTS: Final = frozenset({"LOAD_CONST", "LOAD_SMALL_INT"})


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


def _read_fast_local(frame: Any, name: str) -> object:
    """A function's local on CPython 3.11 and 3.12, read without keeping the
    others alive: ``f_locals`` there refreshes a dictionary the frame keeps
    (``locals()``'s), which would hold every local until the frame ends.
    Nobody else holding it (its count), it is emptied again at once: the
    next reader refreshes it from the frame, as it always does."""
    if not frame.f_code.co_flags & _CO_OPTIMIZED:
        return _read_variable(frame, ("NAME", name))
    snapshot = frame.f_locals
    value = snapshot.get(name, _UNKNOWN)
    if _getrefcount(snapshot) <= _SNAPSHOT_ALONE:
        snapshot.clear()
    return value


def _snapshot_count() -> int:
    def local_frame() -> int:
        anchor = object()  # noqa: F841 (a local for the snapshot to hold)
        return _count_snapshot(sys._getframe())

    def _count_snapshot(frame: Any) -> int:
        snapshot = frame.f_locals
        return _getrefcount(snapshot)

    return local_frame()


#: What :func:`_read_fast_local` counts for a snapshot only the frame holds.
_SNAPSHOT_ALONE: Final = _snapshot_count() if sys.version_info < (3, 13) else 0


def calibrate_at_import() -> None:
    """Measure :data:`_TEMPORARY_COUNT` once, while ``import cowarray`` runs:
    run ``base[0] += 1`` (a temporary view) and ``views[0] += 1`` (a view a
    list holds too) through the real path, in code outside cowarray, and read
    the counts. (On the host: the frames between the operator and
    :func:`note_in_place_write` are the same for every device.) The
    measurement's own arrays and copies never show in a user's trace, copy
    counters or buffer names: no observer looks, and the counters are put back."""
    global _TEMPORARY_COUNT
    from .._devices import CPU
    from . import cow
    from .values import private

    before = cow.COUNTERS.snapshot()
    observer = cow.observer
    cow.set_observer(None)
    counts = _CALIBRATING[_get_ident()] = []
    try:
        base = private(CPU.backend.xp.zeros((2, 2)), CPU)
        exec(_CALIBRATION, {"base": base, "views": [base[1]]})  # (constant code)
    finally:
        del _CALIBRATING[_get_ident()]
        cow.set_observer(observer)
        cow.COUNTERS.reset()
        cow.COUNTERS.copies, cow.COUNTERS.bytes_copied = before
    conclusive = len(counts) == 2 and counts[1] == counts[0] + 1
    _TEMPORARY_COUNT = counts[0] if conclusive else None


_CALIBRATION: Final = compile("base[0] += 1.0\nviews[0] += 1.0\n", "<cowarray calibration>", "exec")


def note_write(holder: Any, value: object, what: str) -> None:
    """Called before a write to ``holder``, a derived view (``what`` names the
    write; not an in-place operator, see :func:`note_in_place_write`): warns
    at once, naming the line that wrote, if another array of its family lives."""
    if not _others_alive(holder, value):
        return
    if PENDING:
        flush()
    frame = _outside_frame()
    where, site = _location(frame), _site(frame)
    del frame
    _report(_Pending(None, what, where, 0, site))


def settle(target: Any, value: object, index: Any) -> None:
    """Before ``target[index] = value``: drop this thread's held-back write to
    ``value`` if this stores it back into the very elements of ``value``'s
    family that it viewed when it wrote (``x[k] += d``'s store, or ``v *= s;
    x[k] = v`` with ``v = x[k]``), which makes the result NumPy's; then
    report the rest. A store elsewhere (``v = x[0]; v += d; x[1] = v``)
    leaves the write to ``x[0]`` unseen by ``x``, as NumPy would not: it is
    reported."""
    family = target._family
    token = family if type(family) is _Views else getattr(family, "views", None)
    if token is not None and getattr(value, "_family", None) is token:
        me = _get_ident()
        try:
            last = PENDING[-1]  # (the write held back just before, as a rule)
        except IndexError:
            return
        if last.holder is not value or last.thread != me:
            for last in PENDING.copy():
                if last.holder is value and last.thread == me:
                    break
            else:
                last = None  # type: ignore[assignment]
        if last is not None and _stores_back(target, index, last.region):
            _take(last)
    if PENDING:
        flush()


def _stores_back(target: Any, index: Any, region: Any) -> bool:
    """Whether ``target[index] = ...`` writes the elements ``region`` views."""
    backend = target._device.backend
    written = backend.written_view(target._data, index)
    return written is not None and backend.same_elements(written, region)


def _take(pending: _Pending) -> bool:
    try:
        PENDING.remove(pending)  # (by identity: _Pending has no __eq__)
    except ValueError:  # taken meanwhile (at exit, by the main thread)
        return False
    return True


def flush() -> None:
    """Report the calling thread's held-back view writes, in the order found.

    Other threads' entries stay for their own next operation: a warning is
    issued on the thread that wrote, inside its warning filters.
    """
    me = _get_ident()
    for pending in PENDING.copy():  # (one step, also without a GIL)
        if pending.thread == me and _take(pending):
            _report(pending)
    # (another thread's entries stay: this thread pays this call until then)


def _report(pending: _Pending) -> None:
    registry = pending.module_globals.setdefault("__warningregistry__", {})
    warnings.warn_explicit(
        _message(pending),
        ViewWriteWarning,
        pending.filename,
        pending.lineno,
        registry=registry,
    )


# -- naming the write in the warning: the user's own code ------------------------------


def _site(frame: Any) -> tuple[Any, int] | None:
    return None if frame is None else (frame.f_code, frame.f_lasti)


#: Containers that never write a value back into a cowarray array.
_NOT_WRITE_BACKS: Final = (list, dict, tuple)
_UNKNOWN: Final = object()


def _may_store_into_family(frame: Any, holder: Any) -> bool:
    """For ``v *= s`` followed by the statement ``c[k] = v``: False when ``c``
    is known not to be an array of ``v``'s family (a list, a dict, a NumPy
    array, an array of another family), so that no write-back will settle
    the report; True when it is, or when it cannot be known without running
    code (an attribute, a function's local on CPython before 3.13, where
    reading one would keep every local alive)."""
    try:
        container = _store_container(frame)
    except Exception:  # (bytecode this does not know)
        return True
    if container is _UNKNOWN:
        return True
    from .._array import Array

    if type(container) is Array:
        family = container._family
        token = family if type(family) is _Views else getattr(family, "views", None)
        return token is not None and token is holder._family
    return not isinstance(container, _NOT_WRITE_BACKS) and type(container).__name__ != "ndarray"


def _store_container(frame: Any) -> object:
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
            return _read_variable(frame, stack[1]) if len(stack) > 1 else _UNKNOWN
        else:
            return _UNKNOWN
    return _UNKNOWN


def _read_variable(frame: Any, variable: tuple[Any, ...] | None) -> object:
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

#: The docs page that lists library code relying on writes through views.
_DOCS_TITLE: Final = '"Compatibility: library code that relies on writes through views"'
_GENERIC_HINT: Final = (
    "Write that array itself (x[k] += d, not v = x[k]; v += d), or take "
    "lazy_clone(x[k]) if a separate value was meant"
)


def _message(pending: _Pending) -> str:
    """The warning's text, naming the user's variables where the source says them."""
    written, subject, hint = pending.what, "this view", _GENERIC_HINT
    if pending.site is not None:
        try:
            described = _describe_write(pending)
        except Exception:  # (source that is not there or does not parse)
            described = None
        if described is not None:
            written, subject, hint = described
    return (
        f"{written} changed only {subject}, not the array it was taken from, which is "
        "still alive: NumPy would have changed both (cowarray arrays are values). "
        f"{hint}; see {_docs_page()}"
    )


def _docs_page() -> str:
    """The published docs page, if the package names its docs, else its title."""
    global _DOCS_PAGE
    if _DOCS_PAGE is None:
        page = f"{_DOCS_TITLE}, the compatibility page of the cowarray docs"
        try:
            from importlib import metadata

            for entry in metadata.metadata("cowarray").get_all("Project-URL") or []:
                label, _, url = entry.partition(",")
                if label.strip().lower() in ("documentation", "docs") and url.strip():
                    page = f"{_DOCS_TITLE} at {url.strip().rstrip('/')}/compatibility.html"
                    break
        except Exception:  # (not installed with metadata: the title alone)
            pass
        _DOCS_PAGE = page
    return _DOCS_PAGE


_DOCS_PAGE: str | None = None


def _describe_write(pending: _Pending) -> tuple[str, str, str] | None:
    """(what was written, which view changed, the hint) in the user's names,
    read from the source at the instruction that wrote; None if unreadable."""
    import ast
    import linecache

    assert pending.site is not None
    code, offset = pending.site
    lineno, end_lineno, column, end_column = list(code.co_positions())[offset // 2]
    if None in (lineno, end_lineno, column, end_column):
        return None
    lines = linecache.getlines(pending.filename, pending.module_globals)
    if not lines or end_lineno > len(lines):
        return None
    source = [line.encode() for line in lines[lineno - 1 : end_lineno]]
    source[-1] = source[-1][:end_column]
    source[0] = source[0][column:]
    text = b"".join(source).decode()
    if pending.what.startswith("an in-place"):
        statement = ast.parse(text).body[0]
        if not isinstance(statement, ast.AugAssign):
            return None  # a call from C (operator.iadd): the neutral words
        return _describe_augmented(statement)
    target = ast.parse(text, mode="eval").body
    if not isinstance(target, ast.Subscript):
        return None
    value = _assigned_value(lines[lineno - 1], target)
    return _describe_store(target, value)


def _describe_augmented(statement: ast.AugAssign) -> tuple[str, str, str]:
    import ast

    target = ast.unparse(statement.target)
    operator = _OPERATORS.get(type(statement.op).__name__, "+")
    written = _short(f"{target} {operator}= {ast.unparse(statement.value)}")
    if isinstance(statement.target, ast.Name):
        hint = (
            f"Write the array {target} was taken from itself (x[k] {operator}= d, not "
            f"{target} = x[k]; {target} {operator}= d), or take {target} = lazy_clone(x[k]) "
            "if a separate value was meant"
        )
        return written, f"the view {target}", hint
    return written, f"the view {_short(target)}", _GENERIC_HINT


def _describe_store(target: ast.Subscript, value: str) -> tuple[str, str, str]:
    import ast

    written = _short(f"{ast.unparse(target)} = {value}")
    inner = target.value
    if isinstance(inner, ast.Subscript):  # chained: x[0][1] = 5
        joined = _joined_index(inner.slice, target.slice)
        base = ast.unparse(inner.value)
        inner_text = _short(ast.unparse(inner))
        subject = f"the temporary view {inner_text}"
        if joined is not None:
            return (
                written,
                subject,
                f"Index once to write {base} itself: write {base}[{joined}] = {value} (or "
                f"take lazy_clone({inner_text}) if a separate value was meant)",
            )
        hint = (
            f"Write {base} itself, with one index: {base}[...] = {value} (or take "
            f"lazy_clone({inner_text}) if a separate value was meant)"
        )
        return written, subject, hint
    name = ast.unparse(inner)
    hint = (
        f"Write the array {name} was taken from itself (x[k, i] = v, not "
        f"{name} = x[k]; {name}[i] = v), or take {name} = lazy_clone(x[k]) if a "
        "separate value was meant"
    )
    return written, f"the view {_short(name)}", hint


def _joined_index(first: ast.expr, second: ast.expr) -> str | None:
    """``0, 1`` for ``x[0][1]``: one index that selects the same, when the
    first index is integers (a slice first would change what the second means)."""
    import ast

    firsts = first.elts if isinstance(first, ast.Tuple) else [first]
    seconds = second.elts if isinstance(second, ast.Tuple) else [second]
    for part in firsts:
        if isinstance(part, ast.UnaryOp) and isinstance(part.op, ast.USub):
            part = part.operand
        integer = isinstance(part, ast.Constant) and type(part.value) is int
        if not (integer or isinstance(part, (ast.Name, ast.Attribute))):
            return None
    if any(isinstance(p, ast.Constant) and p.value is Ellipsis for p in seconds):
        return None
    return ", ".join(ast.unparse(p) for p in (*firsts, *seconds))


def _assigned_value(line: str, target: ast.Subscript) -> str:
    """The value of the assignment to ``target`` on ``line``, else ``value``."""
    import ast

    try:
        statements = ast.parse(line.strip()).body
    except SyntaxError:
        return "value"
    wanted = ast.unparse(target)
    for statement in statements:
        if isinstance(statement, ast.Assign) and any(
            ast.unparse(t) == wanted for t in statement.targets
        ):
            return _short(ast.unparse(statement.value), 30)
    return "value"


def _short(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


_OPERATORS: Final = {
    "Add": "+",
    "Sub": "-",
    "Mult": "*",
    "MatMult": "@",
    "Div": "/",
    "FloorDiv": "//",
    "Mod": "%",
    "Pow": "**",
    "LShift": "<<",
    "RShift": ">>",
    "BitAnd": "&",
    "BitOr": "|",
    "BitXor": "^",
}


# -- threads that end with something to report -----------------------------------


class _ThreadEnd:
    """Lives in a thread's local storage: when the thread ends it dies, and
    moves what that thread left unreported to :data:`_ORPHANS` (reported at
    exit), so that no other thread reports it and none pays for it."""

    __slots__ = ("thread",)

    def __init__(self) -> None:
        self.thread = _get_ident()

    def __del__(
        self, pending: list[_Pending] = PENDING, orphans: list[_Pending] = _ORPHANS
    ) -> None:
        for entry in pending.copy():
            if entry.thread == self.thread:
                try:
                    pending.remove(entry)
                except ValueError:
                    continue
                orphans.append(entry)


_THREAD: Final = threading.local()


def _thread_end_watch() -> None:
    """Make sure this thread's end moves its leftovers aside (:class:`_ThreadEnd`)."""
    if not hasattr(_THREAD, "end"):
        _THREAD.end = _ThreadEnd()


# -- foreign writers: exports of views, compared when released ---------------------


class _Watch:
    """An export of a view whose family lives: a foreign consumer (NumPy,
    torch, any DLPack consumer) may write the exported memory, which NumPy
    would have shared with the rest of the family. Compared with a snapshot
    when the consumer releases it (:func:`end_watch`), or at exit."""

    __slots__ = ("data", "snapshot", "thread", "what", "where", "xp")

    def __init__(self, data: Any, xp: Any, where: Location, what: str) -> None:
        self.data = data
        self.xp = xp
        self.snapshot = xp.array(data, copy=True)
        self.where = where
        self.what = what
        self.thread = _get_ident()


#: id -> every watched export still held by its consumer.
_WATCHES: Final[dict[int, _Watch]] = {}


def watch_export(data: Any, xp: Any, where: Location, what: str) -> _Watch:
    """Start watching ``data``, exported memory of a view whose family lives,
    before the consumer gets it. ``where`` is the line that made the export;
    ``what`` names it in the warning."""
    watch = _Watch(data, xp, where, what)
    _WATCHES[id(watch)] = watch
    _thread_end_watch()
    return watch


def end_watch(watch: _Watch, watches: dict[int, _Watch] = _WATCHES) -> None:
    """The consumer released ``watch``'s memory: if it wrote there, report the
    write (naming the export's line) at the exporting thread's next cowarray
    operation. A release may run in a gc callback or on another thread, where
    a warning would reach the wrong filters or none. (Module globals are
    bound as defaults: a release may run at exit.)"""
    if watches.pop(id(watch), None) is None:
        return  # compared already (at exit)
    _compare(watch)


def _compare(watch: _Watch, pending: list[_Pending] = PENDING) -> None:
    if not same_bytes(watch.xp, watch.snapshot, watch.data):
        pending.append(_Pending(None, watch.what, watch.where, watch.thread))
    watch.snapshot = watch.data = None


#: id of a weak reference to an exported object whose death is its release
#: -> (that reference, the family token it holds, its watch or None), kept
#: until the reference fires (:func:`in_family_until_death`).
_UNTIL_DEATH: Final[dict[int, tuple[Any, object, _Watch | None]]] = {}


def in_family_until_death(exported: Any, family: object, watch: _Watch | None) -> None:
    """Count ``exported`` in ``family`` (a view family token) until it dies,
    then compare ``watch``, if any: for a consumer that keeps exactly the
    object it is given for as long as it uses the memory (``torch.from_numpy``)."""
    reference = weakref.ref(exported, _died)
    _UNTIL_DEATH[id(reference)] = (reference, family, watch)


def _died(
    reference: Any,
    entries: dict[int, tuple[Any, object, _Watch | None]] = _UNTIL_DEATH,
    end: Any = end_watch,
) -> None:
    # (globals bound as defaults: an export can die at exit)
    entry = entries.pop(id(reference), None)
    if entry is not None and entry[2] is not None:
        end(entry[2])


#: Exports up to this size are compared as bytes objects (a copy of each on
#: the host, which a bigger one should not cost); bigger ones by the backend.
_BYTES_COMPARED_ON_THE_HOST: Final = 1 << 16


def same_bytes(xp: Any, a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b`` hold the same bytes (a NaN's payload and the
    sign of zero count: a consumer's write of -0.0 over 0.0 is a write)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if not a.size:
        return True
    if a.nbytes <= _BYTES_COMPARED_ON_THE_HOST:
        # Two host copies of a small export and one memcmp: array_equal's
        # layers of Python cost a quarter of to_torch(x[a:b]) (8 of 32 us).
        return a.tobytes() == b.tobytes()  # type: ignore[no-any-return]
    a = xp.ascontiguousarray(a).reshape(-1).view(xp.uint8)
    b = xp.ascontiguousarray(b).reshape(-1).view(xp.uint8)
    return bool(xp.array_equal(a, b))


def _at_exit() -> None:
    """Compare the exports still alive, then report every thread's leftovers:
    exit is the last place a report can go."""
    for key in list(_WATCHES):
        watch = _WATCHES.pop(key, None)
        if watch is not None:
            _compare(watch)
    leftovers = _ORPHANS + PENDING
    del _ORPHANS[:], PENDING[:]
    for pending in leftovers:
        _report(pending)


atexit.register(_at_exit)
