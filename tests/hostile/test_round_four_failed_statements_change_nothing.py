"""A statement that raises changes nothing, whatever shows its warnings
(issue 46, row 5; docs/design.md rule 3: "a write that fails changes
nothing").

NumPy reports a floating-point error after its loop has written, and a
RuntimeWarning becomes an exception not only under an ``"error"`` filter:
any code that displays it may raise (``warnings.showwarning``,
``warnings.formatwarning``, a ``sys.stderr`` whose ``write`` raises, a
logging handler after ``logging.captureWarnings(True)``). An in-place
operator that wrote its array's memory in place on the strength of the
filters alone (``x[a:b] op= v`` through its temporary view, or a big
``x op= v``) leaves the array half written. The model: ``t = x[k]; t op= v``
raises before the store, so ``x`` and every value sharing it keep their
values.
"""

from __future__ import annotations

import contextlib
import io
import logging
import sys
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import cowarray as ca


class _Shown(Exception):
    """What the display hooks raise."""


def _refuse(*args: Any, **kwargs: Any) -> Any:
    raise _Shown("a warning's display raised")


class _RaisingStream(io.StringIO):
    def write(self, text: str) -> int:
        raise _Shown("sys.stderr refused to write")


class _RaisingHandler(logging.Handler):
    def handle(self, record: logging.LogRecord) -> bool:
        raise _Shown("a logging handler raised")


def _display(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: Any = None,
    line: str | None = None,
) -> None:
    """``warnings.showwarning`` as the interpreter's: formatted, then written."""
    text = warnings.formatwarning(message, category, filename, lineno, line)
    (sys.stderr if file is None else file).write(text)


@contextlib.contextmanager
def _displayed_by(hook: str, action: str) -> Iterator[None]:
    """RuntimeWarnings shown (filter ``action``, never ``"error"``) by ``hook``, which raises."""
    with warnings.catch_warnings():
        warnings.simplefilter(action)
        # (the interpreter's display, which formats the warning and writes it
        # to sys.stderr: pytest records warnings in its place, so it is put
        # back here as the warnings module writes it)
        warnings.showwarning = _display
        if hook == "showwarning":
            warnings.showwarning = _refuse
            yield
        elif hook == "formatwarning":
            saved = warnings.formatwarning  # (catch_warnings does not put it back)
            warnings.formatwarning = _refuse
            try:
                yield
            finally:
                warnings.formatwarning = saved
        elif hook == "sys.stderr":
            saved_stderr = sys.stderr
            sys.stderr = _RaisingStream()
            try:
                yield
            finally:
                sys.stderr = saved_stderr
        else:
            handler = _RaisingHandler()
            logger = logging.getLogger("py.warnings")
            logging.captureWarnings(True)
            logger.addHandler(handler)
            try:
                yield
            finally:
                logger.removeHandler(handler)
                logging.captureWarnings(False)


# name -> (how x is made, the statement, as code in a function of x)
_STATEMENTS: dict[str, tuple[Callable[[], ca.Array], str]] = {
    "x[0:2] *= 1e300": (lambda: ca.asarray([1e10, 2.0, 3.0, 4.0]), "x[0:2] *= 1e300"),
    "x[0] *= 1e300 (a row)": (lambda: ca.asarray([[1e10, 2.0], [3.0, 4.0]]), "x[0] *= 1e300"),
    "x[:, 0] *= 1e300 (a column)": (
        lambda: ca.asarray([[1e10, 2.0], [3.0, 4.0]]),
        "x[:, 0] *= 1e300",
    ),
    "x[0:2] /= 0.0": (lambda: ca.asarray([1.0, 2.0, 3.0]), "x[0:2] /= 0.0"),
    "x[1:3] -= inf (invalid)": (lambda: ca.full(4, np.inf), "x[1:3] -= float('inf')"),
    "x *= 1e300, 2**16 elements": (lambda: ca.full(1 << 16, 1e10), "x *= 1e300"),
    "x /= 0.0, 2**17 elements": (lambda: ca.ones(1 << 17), "x /= 0.0"),
    "x[8:] *= 1e300, 2**17 elements": (lambda: ca.full(1 << 17, 1e10), "x[8:] *= 1e300"),
}


def _statement(code: str) -> Callable[[ca.Array], None]:
    namespace: dict[str, Any] = {}
    exec(f"def run(x):\n    {code}\n", namespace)
    return namespace["run"]  # type: ignore[no-any-return]


# (hook, filter action, holders): every hook once, the rest on showwarning
_DISPLAYS = [
    ("showwarning", "always", "private"),
    ("showwarning", "always", "a copy of another"),
    ("showwarning", "default", "private"),
    ("formatwarning", "always", "private"),
    ("sys.stderr", "always", "private"),
    ("logging", "always", "private"),
]


@pytest.mark.parametrize(
    ("hook", "action", "holders"), _DISPLAYS, ids=["-".join(d) for d in _DISPLAYS]
)
@pytest.mark.parametrize("statement", list(_STATEMENTS))
def test_a_statement_whose_warning_display_raises_changes_nothing(
    statement: str, hook: str, action: str, holders: str
) -> None:
    make, code = _STATEMENTS[statement]
    run = _statement(code)
    if holders == "private":
        x = make()
        other = None
    else:
        other = make()
        x = other.copy()
    before = np.array(x, copy=True)
    with _displayed_by(hook, action), pytest.raises(_Shown):
        run(x)
    np.testing.assert_array_equal(
        np.asarray(x), before, err_msg=f"{statement} raised, and changed the array"
    )
    if other is not None:
        np.testing.assert_array_equal(np.asarray(other), before)
    x[(0,) * x.ndim] = 1.0  # and x still works as a value
    assert float(x[(0,) * x.ndim]) == 1.0
