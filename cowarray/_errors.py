"""The rules every cowarray error follows, and the helpers that keep them.

A caller's mistake is reported by cowarray, in cowarray's words, before the
backend sees it; never as a traceback from deep inside NumPy or CuPy.

The types (the Array API standard's, and Python's own conventions):

- ``TypeError``: an argument of the wrong kind (a float where an int is
  needed, a list where an Array is, a dtype outside a function's category,
  a promotion the standard does not define).
- ``ValueError``: the right kind with a wrong value (a negative size, an
  unknown dtype name, mismatched shapes, ``copy=False`` that needs a copy).
- ``IndexError``: an index or an axis out of range.
- ``OverflowError``: a Python integer that does not fit the dtype, on every
  path that stores one (``asarray``, ``full``, ``x[i] = v``,
  ``x.at[i].set(v)``, ``x.fill(v)``).
- :class:`LinAlgError` (``cowarray.linalg.LinAlgError``): a matrix the
  algorithm cannot handle (singular, not positive definite, no convergence).
  It subclasses ``numpy.linalg.LinAlgError``, itself a ``ValueError``, so
  code written for NumPy keeps catching it.
- ``BufferError``: a DLPack refusal.

The message names the argument (``shape``, ``dtype``, ``fill_value``,
``axis``, ...) as the caller spelled it, says what was given, and says what
to pass instead: "shape must not have negative entries: got -1 in shape
(2, -1); pass sizes >= 0".

Sizes: every creation function checks its shape with
``_ops._args.normalize_shape`` and its byte count with :func:`check_nbytes`.
Dtypes: every ``dtype=`` goes through ``_dtypes.to_dtype``, which takes the
same spellings everywhere (``cowarray.float32``, ``numpy.float32``,
``"float32"``, and the Python types ``bool``, ``int``, ``float`` and
``complex`` for the default dtypes of their kinds).
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable
from typing import Any, Final, ParamSpec, TypeVar

import numpy as np

__all__ = [
    "LinAlgError",
    "index_out_of_range",
    "shapes_do_not_broadcast",
    "article",
    "check_int_fits",
    "check_nbytes",
    "rephrase_linalg",
    "reports_linalg_errors",
]

_P = ParamSpec("_P")
_R = TypeVar("_R")


class LinAlgError(np.linalg.LinAlgError):
    """A matrix the linear-algebra function cannot handle (singular, not
    positive definite, an iteration that does not converge).

    A ``ValueError``, and a ``numpy.linalg.LinAlgError``, so ``except``
    clauses written for NumPy keep working.
    """


def article(word: object) -> str:
    """``word`` with "a" or "an" before it: "an int64", "a uint8", "an array"."""
    text = str(word)
    return f"{'an' if text[:1].lower() in 'aeio' else 'a'} {text}"


#: The most bytes one array may take: NumPy's (and CuPy's) index type bound.
_MAX_BYTES: Final = sys.maxsize


def check_nbytes(shape: tuple[int, ...], itemsize: int, function: str, name: str = "shape") -> None:
    """ValueError when an array of ``shape`` would need more bytes than any
    machine addresses (NumPy's "Maximum allowed dimension exceeded")."""
    count = 1
    for d in shape:
        count *= d
    nbytes = count * itemsize
    if nbytes > _MAX_BYTES or any(d > _MAX_BYTES for d in shape):
        raise ValueError(
            f"{function}: an array of {name} {shape} would need {count * itemsize:.3g} bytes, "
            f"more than the {_MAX_BYTES:.3g} a process can address; pass a smaller {name}"
        )


def check_int_fits(value: object, dtype: Any, name: str = "value") -> None:
    """OverflowError when a Python int ``value`` does not fit an integer ``dtype``."""
    if type(value) is not int or dtype.kind not in "iu":
        return
    info = np.iinfo(dtype)
    if not info.min <= value <= info.max:
        raise OverflowError(
            f"{name}={value} does not fit in {dtype} (range {info.min} to {info.max}); "
            "pass a value in that range or use a wider dtype"
        )


_LINALG_FIXES: Final = {
    "singular": "the matrix is singular (not invertible); check its rank with "
    "matrix_rank, or use lstsq or pinv for a least-squares answer",
    "positive definite": "the matrix is not positive definite, as cholesky needs; "
    "check that it is symmetric (Hermitian) with positive eigenvalues",
    "converge": "the algorithm did not converge; check the input for infs and NaNs",
}


def rephrase_linalg(error: BaseException, function: str, name: str = "x") -> LinAlgError:
    """The backend's LinAlgError as cowarray's, naming the argument and a fix."""
    text = str(error)
    for key, fix in _LINALG_FIXES.items():
        if key in text.lower():
            return LinAlgError(f"{function}: {name} cannot be used: {fix}")
    return LinAlgError(f"{function}: {name} cannot be used: {text}")


def reports_linalg_errors(name: str = "x") -> Callable[[Callable[_P, _R]], Callable[_P, _R]]:
    """Decorate a linalg function: the backend's LinAlgError becomes cowarray's,
    naming the function, the argument ``name`` and a fix."""

    def decorate(function: Callable[_P, _R]) -> Callable[_P, _R]:
        @functools.wraps(function)
        def checked(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            try:
                return function(*args, **kwargs)
            except LinAlgError:
                raise
            except np.linalg.LinAlgError as error:
                raise rephrase_linalg(error, function.__name__, name) from None

        return checked

    return decorate


#: The backend's words for an index out of range and for too many indices
#: (NumPy's; CuPy capitalizes "Index"), read to say the same in cowarray's.
_OUT_OF_RANGE: Final = re.compile(
    r"index (-?\d+) is out of bounds for axis (\d+) with size (\d+)", re.IGNORECASE
)
_TOO_MANY: Final = re.compile(
    r"too many indices for array: array is (\d+)-dimensional, but (\d+) were indexed",
    re.IGNORECASE,
)


def index_out_of_range(
    error: IndexError, shape: tuple[int, ...], where: str = "", more: str = ""
) -> IndexError:
    """The backend's IndexError for ``x[...]`` in cowarray's words: what was
    indexed, the axis, its length, the valid range and ``x``'s shape.

    ``where`` names what was indexed (default ``"x[...]: "``; ``"x.at[...].set: "``),
    ``more`` is another way out of an index out of range (``" (or pass
    mode='drop' or mode='clip')"``). The backend's message is read only for
    its numbers; one worded otherwise gets a generic message of our own if it
    is about the range, and is kept, with the shape and the rule, if it is
    another mistake (an index of the wrong type, a mask of the wrong shape).

    Examples
    --------
    >>> from cowarray._errors import index_out_of_range
    >>> error = IndexError("index 5 is out of bounds for axis 0 with size 3")
    >>> print(index_out_of_range(error, (3,)))
    x[...]: index 5 is out of range for axis 0 of length 3 (x has shape (3,));
    pass an index from -3 to 2
    """
    text = str(error)
    subject = where or "x[...]: "
    found = _OUT_OF_RANGE.search(text)
    if found:
        index, axis, length = (int(group) for group in found.groups())
        if length == 0:
            fix = "it is empty, so no integer index is in range: use a slice"
        else:
            fix = f"pass an index from {-length} to {length - 1}"
        return IndexError(
            f"{subject}index {index} is out of range for axis {axis} of length {length} "
            f"(x has shape {shape}); {fix}{more}"
        )
    found = _TOO_MANY.search(text)
    if found:
        ndim, count = (int(group) for group in found.groups())
        return IndexError(
            f"{subject}{_count(count, 'index', 'indices')} for an array of "
            f"{_count(ndim, 'dimension', 'dimensions')} (x has shape {shape}); pass at most "
            f"{ndim}" + (" (x[()] reads its one element)" if ndim == 0 else "")
        )
    rule = (
        f"x has shape {shape}: index it with at most {_count(len(shape), 'entry', 'entries')}, "
        "each from -n to n - 1 for its axis of length n"
    )
    if "too many indices" in text.lower():
        return IndexError(
            f"{subject}too many indices for an array of "
            f"{_count(len(shape), 'dimension', 'dimensions')} (x has shape {shape}); pass at "
            f"most {len(shape)}"
        )
    if "out of bounds" in text.lower():
        return IndexError(f"{subject}an index is out of range; {rule}{more}")
    return IndexError(f"{where}{text}; {rule}{more}")


def index_beyond_int64(key: Any, shape: tuple[int, ...], where: str = "") -> IndexError | None:
    """The IndexError for an integer index too large for the backend to read
    (NumPy raises C's OverflowError text); None if ``key`` has none.

    Examples
    --------
    >>> from cowarray._errors import index_beyond_int64
    >>> print(index_beyond_int64(2**63, (5,)))  # doctest: +ELLIPSIS
    x[...]: index 9223372036854775808 is out of range (x has shape (5,)); pass an index ...
    """
    for part in key if type(key) is tuple else (key,):
        if type(part) is int and not -(2**63) <= part < 2**63:
            return IndexError(
                f"{where or 'x[...]: '}index {part} is out of range (x has shape {shape}); "
                "pass an index from -n to n - 1 for its axis of length n"
            )
    return None


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def shapes_do_not_broadcast(
    function: str, a: Any, b: Any, names: tuple[str, str] = ("x1", "x2")
) -> ValueError:
    """The message for two operands whose shapes do not broadcast together."""
    first, second = getattr(a, "shape", ()), getattr(b, "shape", ())
    return ValueError(
        f"{function}: {names[0]} of shape {first} and {names[1]} of shape {second} cannot "
        "be broadcast together; lengths must be equal or 1 along each axis, counted from "
        "the last (reshape or broadcast_to one of them first)"
    )
