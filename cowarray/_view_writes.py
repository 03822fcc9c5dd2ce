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
  a *view write*: it warns with :class:`ViewWriteWarning`, naming the line
  that wrote, unless it is the write-back of an augmented assignment. A
  write to the family's first array (the one views were taken from) does
  not warn: NumPy code that writes the base while holding views is rare,
  and cowarray code does it all the time.
- ``x[k] += v`` is ``t = x[k]; t += v; x[k] = t`` in Python: the write to
  the view ``t`` is held back until the next cowarray operation, and
  forgotten if that operation is the write-back ``x[k] = t``, whose result
  is NumPy's.

Families are counted by reference counts of a small token, calibrated at
import. A count can be off only in a diagnostic (a missed or an extra
warning); values never depend on it.
"""

from __future__ import annotations

import atexit
import os
import sys
import warnings
from typing import Any, Final

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
    ...     row[1] = 5.0
    ...     _ = ca.sum(x)  # the next operation reports the write
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
        # Made without an __init__ call: every first view of an array makes one.
        family = _new_object(_Family)
        family.views = _Views()
        source._family = family
    return family.views  # type: ignore[no-any-return]


class _Probe:
    __slots__ = ("_family",)
    _family: object


def _references(holder: Any) -> int:
    return sys.getrefcount(holder._family)


def _calibrate() -> int:
    probe = _Probe()
    probe._family = _Views()
    return _references(probe)


#: What :func:`_references` reads for a token held by one array only.
_ONE_HOLDER: Final = _calibrate()


def _others_alive(holder: Any, value: object) -> bool:
    others = _references(holder) - _ONE_HOLDER
    if getattr(value, "_family", None) is holder._family:
        others -= 1  # the array being written from is read, not aliased
    return others > 0


def lives_beside_its_family(holder: Any) -> bool:
    """Whether ``holder`` is a derived view and another array of its family lives."""
    return type(holder._family) is _Views and _others_alive(holder, None)


class _Pending:
    __slots__ = ("filename", "holder", "lineno", "module_globals", "what")

    def __init__(self, holder: Any, what: str, where: Location | None = None) -> None:
        self.holder = holder
        self.what = what
        self.filename, self.lineno, self.module_globals = where or writing_location()


#: View writes held back until the next operation (one from an in-place
#: operator, and any that NumPy exports found when they were released).
PENDING: Final[list[_Pending]] = []

_PACKAGE_DIR: Final = os.path.join(os.path.dirname(os.path.abspath(__file__)), "")


#: Where a write happened: file name, line, and the module's globals (for
#: its warning registry). Never the frame: a frame kept alive would keep the
#: writer's locals, NumPy exports among them, alive with it.
Location = tuple[str, int, dict[str, Any]]


def writing_location() -> Location:
    """The first frame outside cowarray: the line that wrote (library or not)."""
    frame: Any = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
    if frame is None:
        return "<unknown>", 0, {}
    return frame.f_code.co_filename, frame.f_lineno, frame.f_globals


def note_write(holder: Any, value: object, what: str) -> None:
    """Called before a write to ``holder``, a derived view (``what`` names the write)."""
    if not _others_alive(holder, value):
        return
    if PENDING:
        flush()
    PENDING.append(_Pending(holder, what))


def report_later(where: Location, what: str) -> None:
    """Report a view write found after the fact (at ``where``), at the next operation.

    Called from a NumPy export's release, which may run inside a collection
    or on another thread: raising there would be lost, so the report waits.
    """
    PENDING.append(_Pending(None, what, where))


def settle(target: Any, value: object) -> None:
    """Before ``target[...] = value``: forget a held-back write that this writes back."""
    family = target._family
    token = family if type(family) is _Views else getattr(family, "views", None)
    if token is not None and getattr(value, "_family", None) is token:
        for pending in PENDING:
            if pending.holder is value:
                PENDING.remove(pending)
                break
    flush()


def flush() -> None:
    """Report the held-back view writes, if any, in the order they were found."""
    while PENDING:
        try:
            pending = PENDING.pop(0)
        except IndexError:  # another thread reported it first
            return
        _report(pending)


def _report(pending: _Pending) -> None:
    registry = pending.module_globals.setdefault("__warningregistry__", {})
    warnings.warn_explicit(
        f"{pending.what} changed only this view, not the array it was taken from, "
        "which is still alive: NumPy would have changed both (cowarray arrays are "
        "values). Write that array itself (x[k] += d, not v = x[k]; v += d), or "
        "take lazy_clone(x[k]) if a separate value was meant; see "
        "docs/compatibility.md",
        ViewWriteWarning,
        pending.filename,
        pending.lineno,
        registry=registry,
    )


atexit.register(flush)
