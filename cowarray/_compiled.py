"""The optional compiled helper, where it is built and proves something.

``cowarray/_temporaries.c`` is compiled by ``pip install -e .`` (or into the
wheel) where a C compiler exists (hatch_build.py). It tells an operator
which of its operands only the interpreter's stack holds, a fact Python code
cannot establish (docs/design.md, rule 12). :data:`TEMPORARIES` is that
module, or None: not built, built for an interpreter that offers no such
test (before CPython 3.14), or turned off by ``COWARRAY_PURE_PYTHON=1``
(read at import). With None every operator allocates its result, which is
always correct; the helper only saves memory and time.
"""

from __future__ import annotations

import os
from types import ModuleType
from typing import Final

__all__ = ["TEMPORARIES", "status"]

_VARIABLE: Final = "COWARRAY_PURE_PYTHON"


def _load() -> tuple[ModuleType | None, str]:
    if os.environ.get(_VARIABLE, "") not in ("", "0"):
        return None, f"off ({_VARIABLE} is set)"
    try:
        from . import _temporaries
    except ImportError:
        return None, "not built (no C compiler at install time, or a pure-Python wheel)"
    if not _temporaries.PROVES_TEMPORARIES:
        return None, "built, but this interpreter cannot prove an operand temporary (CPython 3.14+)"
    return _temporaries, "on"


TEMPORARIES, _STATUS = _load()


def status() -> str:
    """Whether operators write into their temporary operands, and if not, why."""
    return _STATUS
