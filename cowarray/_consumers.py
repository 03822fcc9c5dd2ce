"""Who converts an Array with ``np.asarray``, where that changes the answer.

pandas recognizes NumPy arrays by type and converts any other array with
``np.asarray`` (keeping the result: Series, Index and DataFrame hold it) or
with ``list(...)`` (``isin``, ``Categorical``). For an ndarray it copies, and
its iteration gives NumPy scalars. Given an Array it would keep rule 4's
writable alias (a silent two-way alias) and 0-d Arrays (which it takes
neither as numbers nor as labels). So when such a library's own code asks,
an Array answers as an ndarray copy would (docs/design.md, rule 4).

A few NumPy functions written in Python convert their argument with
``np.asarray`` and return a NumPy array, where a NumPy habit on a cowarray
array (``np.sin(x)``) returns a cowarray one: ``np.lib.stride_tricks.as_strided``
and ``np.vectorize``. Called from a user's code on an Array they are refused,
saying what to call instead (:func:`refused_numpy_call`); called from a
library's code (xarray computes with ``np.vectorize``) they keep NumPy's
meaning, as that code was written for NumPy.
"""

from __future__ import annotations

import os
import sysconfig
import types
from collections.abc import Callable, Iterator
from typing import Any, Final

import numpy as np

from ._interpreter import caller_module, calling_code, first_file_outside

__all__ = [
    "LIBRARY_PREFIXES",
    "called_from_a_library_that_keeps_conversions",
    "refused_numpy_call",
]

#: Module-name prefixes of the libraries meant above.
KEEPS_CONVERSIONS: Final = ("pandas.",)


def called_from_a_library_that_keeps_conversions(depth: int) -> bool:
    """Whether the frame ``depth`` levels below this call's caller runs code of
    a library in :data:`KEEPS_CONVERSIONS`.

    ``depth`` 1 is the caller of the function that asks (for ``__array__``
    or ``__iter__``, which NumPy and ``list()`` call from C: the library's
    own frame). The answer only ever leads to a copy: a frame that cannot
    be read counts as any other caller.
    """
    module = caller_module(depth)
    return type(module) is str and module.startswith(KEEPS_CONVERSIONS)


def _library_prefixes() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    found = {paths[key] for key in ("stdlib", "platstdlib", "purelib", "platlib") if key in paths}
    return tuple(os.path.join(os.path.abspath(p), "") for p in sorted(found))


#: Where code that is not the user's lives: the standard library, installed
#: packages (torch calling ``__dlpack__``), frozen import machinery.
LIBRARY_PREFIXES: Final = (*_library_prefixes(), "<frozen ")
_PACKAGE_DIR: Final = os.path.dirname(os.path.abspath(__file__)) + os.sep

_AS_STRIDED: Final = (
    "np.lib.stride_tricks.as_strided(x, ...) does not take a cowarray Array: its views may "
    "overlap themselves or reach outside x's memory, which no value can. Use "
    "ca.lib.stride_tricks.sliding_window_view(x, window_shape) for windows (a value sharing "
    "x's buffer) or ca.broadcast_to(x, shape) for repeats; or pass np.asarray(x), NumPy's "
    "view of x's memory, to work on NumPy's terms (writes through it change x)"
)
_VECTORIZE: Final = (
    "np.vectorize(f)(x) does not take a cowarray Array: it calls f on each element in Python "
    "and returns a NumPy array, never a cowarray one. Write f with cowarray's element-wise "
    "functions (ca.where(x > 0, x, 0.0) for an if) to get an Array at NumPy's speed, or call "
    "ca.asarray(np.vectorize(f)(np.asarray(x))) to run it on NumPy's terms"
)


def _codes(function: Callable[..., Any]) -> Iterator[types.CodeType]:
    """``function``'s code object and those nested in it (comprehensions: frames of their own
    before Python 3.12)."""
    pending = [function.__code__]
    while pending:
        code = pending.pop()
        yield code
        pending.extend(c for c in code.co_consts if isinstance(c, types.CodeType))


def _refused_callers() -> dict[types.CodeType, str]:
    """The code of the refused NumPy functions, each with its message."""
    callers = {code: _AS_STRIDED for code in _codes(np.lib.stride_tricks.as_strided)}
    for method in vars(np.vectorize).values():
        if isinstance(method, types.FunctionType):
            callers.update(dict.fromkeys(_codes(method), _VECTORIZE))
    return callers


#: code object -> message: the code that called ``np.asarray``, if it is one of them.
REFUSED: Final = _refused_callers()


def refused_numpy_call(depth: int) -> TypeError | None:
    """The TypeError for the refused NumPy function running ``depth`` levels below
    this call's caller, or None: none runs there, or a library's code called it.

    The first frame above NumPy's own decides: a user's code (a script, a
    notebook cell, a doctest) gets the error; an installed library's, or
    cowarray's, gets NumPy's meaning (an ndarray of the Array's values).
    """
    message = REFUSED.get(calling_code(depth))
    if message is None:
        return None
    filename = first_file_outside(depth, ("numpy",))
    if filename.startswith((*LIBRARY_PREFIXES, _PACKAGE_DIR)):
        return None
    return TypeError(message)
