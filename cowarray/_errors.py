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

The hint policy (one place for every public function, so a NumPy habit gets
the same answer wherever it is tried):

- A list, tuple, NumPy scalar or ndarray where an Array is expected is
  refused, never converted: a TypeError from :func:`not_an_array` that ends
  "make an Array first: ca.asarray(x)". (The standard takes arrays; the
  operators alone convert a list beside them, as NumPy's do.)
- ``out=`` on a function that takes none: a TypeError from
  :func:`out_refused` that says how to write a result into an array
  (``y[...] = result``, or ``y.at[...].set(result)``); ``out=None`` is
  accepted, as NumPy's default. :func:`refuse_out` applies it to every public
  function of the namespaces that has no ``out`` parameter. The functions
  (and methods) whose NumPy namesake takes ``out=`` take it, and write the
  result through copy-on-write (``cowarray/_ops/_out.py``, with its own
  errors for a wrong ``out``).
- A NumPy name cowarray spells otherwise, looked up on a namespace or an
  Array: an AttributeError naming the spelling (:func:`missing_name`,
  :func:`missing_array_attribute`); the torch bridge's names name its module.
- Operands of ``matmul`` / ``@`` whose inner dimensions differ: a ValueError
  from :func:`matmul_shapes` that says so, not a broadcasting error.

Sizes: every creation function checks its shape with
``_ops._args.normalize_shape`` and its byte count with :func:`check_nbytes`.
Dtypes: every ``dtype=`` goes through ``_dtypes.to_dtype``, which takes the
same spellings everywhere (``cowarray.float32``, ``numpy.float32``,
``"float32"``, and the Python types ``bool``, ``int``, ``float`` and
``complex`` for the default dtypes of their kinds).
"""

from __future__ import annotations

import functools
import inspect
import re
import sys
import types
from collections.abc import Callable
from typing import Any, Final, ParamSpec, TypeVar

import numpy as np

__all__ = [
    "LinAlgError",
    "Retired",
    "hint_missing_names",
    "matmul_shapes",
    "missing_array_attribute",
    "missing_name",
    "not_an_array",
    "out_refused",
    "refuse_out",
    "refuse_out_everywhere",
    "index_out_of_range",
    "boolean_mask_shape",
    "value_does_not_fit",
    "shapes_do_not_broadcast",
    "article",
    "check_int_fits",
    "check_nbytes",
    "rephrase_linalg",
    "reports_linalg_errors",
]

_P = ParamSpec("_P")
_R = TypeVar("_R")


class Retired:
    """What a retired Array holds instead of its data and device.

    An Array whose memory went elsewhere (``cowarray.move(x)``, a temporary
    whose memory became its operator's result) keeps one of these; every use
    of the old array reaches it (its ``_data`` or its ``_device``) and raises
    a ValueError with ``reason``, so no check is added to any hot path.
    """

    __slots__ = ("_reason",)

    def __init__(self, reason: str) -> None:
        object.__setattr__(self, "_reason", reason)

    def _fail(self) -> ValueError:
        return ValueError(object.__getattribute__(self, "_reason"))

    def __getattr__(self, name: str) -> Any:
        raise self._fail()

    def __getitem__(self, key: object) -> Any:
        raise self._fail()

    def __setitem__(self, key: object, value: object) -> None:
        raise self._fail()

    def __len__(self) -> int:
        raise self._fail()

    def __iter__(self) -> Any:
        raise self._fail()

    def __bool__(self) -> bool:
        raise self._fail()

    def __array__(self, *args: object, **kwargs: object) -> Any:
        raise self._fail()

    def __repr__(self) -> str:
        return "<retired cowarray data>"


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


#: NumPy's words for a boolean mask of the wrong shape (NumPy 2; before it, "dimension").
_MASK: Final = re.compile(
    r"boolean index did not match indexed array along (?:axis|dimension) (\d+); "
    r"(?:size of axis|dimension) is (\d+) but (?:size of )?corresponding boolean "
    r"(?:axis|dimension) is (\d+)",
    re.IGNORECASE,
)


def boolean_mask_shape(key: Any) -> tuple[int, ...] | None:
    """The shape of the one boolean array in an index, or None (none, or several).

    Examples
    --------
    >>> import numpy as np
    >>> from cowarray._errors import boolean_mask_shape
    >>> boolean_mask_shape((slice(None), np.array([True, False])))
    (2,)
    >>> boolean_mask_shape(np.array([0, 1])) is None
    True
    """
    parts = key if type(key) is tuple else (key,)
    shapes = [
        tuple(part.shape)
        for part in parts
        if getattr(getattr(part, "dtype", None), "kind", None) == "b" and hasattr(part, "shape")
    ]
    return shapes[0] if len(shapes) == 1 else None


def index_out_of_range(
    error: IndexError,
    shape: tuple[int, ...],
    where: str = "",
    more: str = "",
    mask: tuple[int, ...] | None = None,
) -> IndexError:
    """The backend's IndexError for ``x[...]`` in cowarray's words: what was
    indexed, the axis, its length, the valid range and ``x``'s shape.

    ``where`` names what was indexed (default ``"x[...]: "``; ``"x.at[...].set: "``),
    ``more`` is another way out of an index out of range (``" (or pass
    mode='drop' or mode='clip')"``), ``mask`` the shape of a boolean mask in
    the index (see :func:`boolean_mask_shape`), named when it does not fit.
    The backend's message is read only for its numbers; one worded otherwise
    gets a generic message of our own if it is about the range, and is kept,
    with the shape and the rule, if it is another mistake (an index of the
    wrong type).

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
    if text.startswith(("x[...]", "x.at[...]")):
        return IndexError(text)  # in these words already (rephrased below, raised again)
    found = _MASK.search(text)
    if found:
        axis, length, count = (int(group) for group in found.groups())
        of_shape = f" of shape {mask}" if mask is not None else ""
        return IndexError(
            f"{subject}the boolean mask{of_shape} does not fit x, of shape {shape}: along "
            f"axis {axis} x has {length} entries and the mask {count}. A mask must have the "
            "shape of the axes of x it selects from: make it from x itself (mask = x > 0 has "
            "x's shape), or cut x to the mask's shape first"
        )
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


#: The backends' words for a value whose shape does not fit what an index selects.
_VALUE_SHAPE: Final = (
    "could not broadcast",
    "setting an array element with a sequence",
    "shape mismatch",
    "not broadcastable",
)


def value_does_not_fit(
    error: ValueError, where: str, value: object, region: Callable[..., Any], *arguments: Any
) -> ValueError | None:
    """The ValueError for a value whose shape does not fit the selected region, in
    cowarray's words, or None when ``error`` is about something else.

    ``region(*arguments)`` gives the selection (called only here, after the
    write failed; passed as a function and its arguments, not a closure, so
    that the writer's hot path keeps plain local variables).

    Examples
    --------
    >>> import numpy as np
    >>> from cowarray._errors import value_does_not_fit
    >>> error = ValueError("setting an array element with a sequence.")
    >>> print(value_does_not_fit(error, "x.at[...].set: ", [1.0, 2.0], np.zeros, ()))
    ... # doctest: +NORMALIZE_WHITESPACE
    x.at[...].set: the value has shape (2,), and the index selects one element (shape ()):
    pass a single number there, or select as many elements as the value has
    (x.at[a:b] or an index array of 2 entries)
    """
    if not any(phrase in str(error) for phrase in _VALUE_SHAPE):
        return None
    try:
        value_shape = tuple(np.shape(value))  # type: ignore[call-overload]
        selected = tuple(region(*arguments).shape)
    except Exception:  # a ragged value, a selection that fails: the backend's words stay
        return None
    count = 1
    for length in value_shape:
        count *= length
    if selected == ():
        region_spelled = "x.at[a:b]" if where.startswith("x.at") else "x[a:b]"
        return ValueError(
            f"{where}the value has shape {value_shape}, and the index selects one element "
            "(shape ()): pass a single number there, or select as many elements as the value "
            f"has ({region_spelled} or an index array of {count} entries)"
        )
    return ValueError(
        f"{where}the value has shape {value_shape}, which does not broadcast to the shape "
        f"{selected} of what the index selects: pass a value of that shape, or one that "
        "broadcasts to it (a single number always does)"
    )


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
    """The message for two operands whose shapes do not broadcast together
    (for ``matmul``, :func:`matmul_shapes`: its shapes need not broadcast)."""
    first, second = getattr(a, "shape", ()), getattr(b, "shape", ())
    if function == "matmul":
        return matmul_shapes(first, second)
    return ValueError(
        f"{function}: {names[0]} of shape {first} and {names[1]} of shape {second} cannot "
        "be broadcast together; lengths must be equal or 1 along each axis, counted from "
        "the last (reshape or broadcast_to one of them first)"
    )


# -- The hint policy ----------------------------------------------------------


def _described(value: object) -> str:
    """What a caller passed, in words: "a list", "a numpy.float64", "None"."""
    if value is None:
        return "None"
    kind = type(value)
    name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
    return article(name.replace("numpy._core.", "numpy.").replace("numpy.core.", "numpy."))


def not_an_array(
    function: str, name: str, value: object, expected: str = "a cowarray Array"
) -> TypeError:
    """The TypeError for ``value`` passed as ``name`` where an Array is expected.

    Every public function says the same: a list, a tuple, a NumPy scalar or
    an ndarray is not converted (the standard takes arrays; only the
    operators convert a list beside them), and the fix is ``ca.asarray``.
    ``expected`` names what else the argument may be ("a cowarray Array or a
    Python scalar").

    Examples
    --------
    >>> from cowarray._errors import not_an_array
    >>> print(not_an_array("exp", "x", [1.0, 2.0]))
    exp: x must be a cowarray Array, got a list; make an Array first: ca.asarray(x)
    """
    return TypeError(
        f"{function}: {name} must be {expected}, got {_described(value)}; make an Array "
        f"first: ca.asarray({name})"
    )


def out_refused(call: str) -> TypeError:
    """The TypeError for ``out=`` passed to ``call`` ("ca.add", "x.sum", ...).

    Examples
    --------
    >>> from cowarray._errors import out_refused
    >>> print(out_refused("ca.add"))  # doctest: +NORMALIZE_WHITESPACE
    ca.add(..., out=...) is not supported: cowarray arrays are values, so ca.add
    returns a new Array and never writes into another; to put the result into
    an array y, write y[...] = ca.add(...) (copy-on-write: arrays sharing y's
    memory keep their values), or make an updated copy with y.at[...].set(...)
    """
    return TypeError(
        f"{call}(..., out=...) is not supported: cowarray arrays are values, so {call} "
        f"returns a new Array and never writes into another; to put the result into an "
        f"array y, write y[...] = {call}(...) (copy-on-write: arrays sharing y's memory "
        "keep their values), or make an updated copy with y.at[...].set(...)"
    )


def _takes_out(function: Callable[..., Any]) -> bool:
    """Whether ``function`` takes ``out=`` itself (or any keyword: ``**kwargs``)."""
    code = inspect.unwrap(function).__code__
    named = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    takes_any_keyword = bool(code.co_flags & inspect.CO_VARKEYWORDS)
    return takes_any_keyword or ("out" in named and "out" not in named[: code.co_posonlyargcount])


def refuse_out(function: Callable[_P, _R], call: str | None = None) -> Callable[_P, _R]:
    """``function``, answering ``out=`` with :func:`out_refused` (``call`` names
    it: "ca.add"; the function's name by default). A decorator as well.

    Python's own answer is "got an unexpected keyword argument 'out'". The
    check runs only when the call raised TypeError, so a call without
    ``out=`` pays one extra frame. ``out=None`` (NumPy's default, passed on
    by code that forwards its arguments) is dropped when it was the call's
    only mistake, found before the function ran. A function that takes
    ``out`` or ``**kwargs`` itself is returned as is: it answers for them.
    """
    if _takes_out(function):
        return function

    @functools.wraps(function)
    def checked(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return function(*args, **kwargs)
        except TypeError as error:
            if "out" not in kwargs:
                raise
            before_it_ran = error.__traceback__ is None or error.__traceback__.tb_next is None
            if kwargs["out"] is not None or not before_it_ran:
                raise out_refused(call or function.__name__) from None
        del kwargs["out"]
        return function(*args, **kwargs)

    return checked


def refuse_out_everywhere(namespaces: dict[str, str], classes: dict[type, str]) -> None:
    """Put :func:`refuse_out` on every public function of the ``namespaces``
    (module name -> how a call is spelled: ``{"cowarray.linalg": "ca.linalg"}``)
    and on the public methods of the ``classes`` (class -> how a call is
    spelled: ``{Generator: "rng"}``; passed in, as this module lies below them).

    Each function gets one wrapper, and every cowarray module that has the
    function under its public name gets the wrapper instead, so the function
    stays one object whatever module names it (``cowarray.matmul is
    cowarray.linalg.matmul``; pickle finds it where its ``__module__`` says;
    its doctest runs once). Private aliases (``from .elementwise import pow as
    _pow``) keep the function itself: internal calls pay no extra frame.
    """
    guarded: dict[Callable[..., Any], Callable[..., Any]] = {}
    for module_name, prefix in namespaces.items():
        module = sys.modules[module_name]
        for name in getattr(module, "__all__", None) or list(vars(module)):
            value = getattr(module, name)
            if not name.startswith("_") and type(value) is types.FunctionType:
                guarded.setdefault(value, refuse_out(value, f"{prefix}.{name}"))
    package = next(iter(namespaces)).partition(".")[0]
    for module_name, module in list(sys.modules.items()):
        if module is None or module_name.partition(".")[0] != package:
            continue
        for name, value in list(vars(module).items()):
            if type(value) is types.FunctionType and not name.startswith("_"):
                wrapper = guarded.get(value)
                if wrapper is not None:
                    setattr(module, name, wrapper)
    for kind, spelled in classes.items():
        for name, value in list(vars(kind).items()):
            if not name.startswith("_") and type(value) is types.FunctionType:
                setattr(kind, name, refuse_out(value, f"{spelled}.{name}"))


def matmul_shapes(shape1: tuple[int, ...], shape2: tuple[int, ...]) -> ValueError:
    """The ValueError for ``matmul`` / ``@`` of operands of ``shape1`` and ``shape2``.

    Examples
    --------
    >>> from cowarray._errors import matmul_shapes
    >>> print(matmul_shapes((2, 2), (3,)))  # doctest: +NORMALIZE_WHITESPACE
    matmul: (2, 2) @ (3,) — inner dimensions 2 and 3 differ (not aligned):
    x1's last axis must have the length of x2's second-to-last (its only axis
    if x2 is 1-D); transpose or reshape one operand
    """
    where = f"matmul: {shape1} @ {shape2} — "
    if not shape1 or not shape2:
        return ValueError(
            f"{where}matmul needs at least one dimension on each side; multiply a 0-d "
            "array element-wise instead (x1 * x2)"
        )
    inner1, inner2 = shape1[-1], shape2[-2 if len(shape2) > 1 else -1]
    if inner1 != inner2:
        return ValueError(
            f"{where}inner dimensions {inner1} and {inner2} differ (not aligned): x1's last "
            "axis must have the length of x2's second-to-last (its only axis if x2 is "
            "1-D); transpose or reshape one operand"
        )
    batch1, batch2 = shape1[:-2], shape2[:-2]
    return ValueError(
        f"{where}the batch dimensions {batch1} and {batch2} cannot be broadcast together; "
        "lengths must be equal or 1 along each axis, counted from the last"
    )


#: namespace -> {NumPy's name: its cowarray spelling}.
NUMPY_SPELLINGS: Final[dict[str, dict[str, str]]] = {
    "cowarray": {
        "array": "ca.asarray(obj) (copy=True for a copy; a copy of a cowarray array is "
        "free anyway)",
        "asanyarray": "ca.asarray(obj)",
        "ascontiguousarray": "ca.asarray(obj)",
        "asfortranarray": "ca.asarray(obj)",
        "concatenate": "ca.concat(arrays, axis=0)",
        "row_stack": "ca.vstack(arrays)",
        "arccos": "ca.acos", "arccosh": "ca.acosh", "arcsin": "ca.asin", "arcsinh": "ca.asinh",
        "arctan": "ca.atan", "arctan2": "ca.atan2", "arctanh": "ca.atanh",
        "invert": "ca.bitwise_invert", "bitwise_not": "ca.bitwise_invert",
        "left_shift": "ca.bitwise_left_shift", "right_shift": "ca.bitwise_right_shift",
        "absolute": "ca.abs", "fabs": "ca.abs", "conjugate": "ca.conj",
        "true_divide": "ca.divide", "mod": "ca.remainder", "rint": "ca.round",
        "fix": "ca.trunc", "amax": "ca.max", "amin": "ca.min",
        "ptp": "ca.max(x, axis=...) - ca.min(x, axis=...)",
        "argwhere": "ca.stack(ca.nonzero(x), axis=-1) (ca.nonzero gives one index array per axis)",
        "rollaxis": "ca.moveaxis(x, axis, destination)",
        "fliplr": "ca.flip(x, axis=1)", "flipud": "ca.flip(x, axis=0)",
        "mgrid": "ca.meshgrid(..., indexing='ij')", "ogrid": "ca.meshgrid(..., indexing='ij')",
        "copyto": "dst[...] = src (copy-on-write: arrays sharing dst's memory keep their values)",
        "put": "x[indices] = values, or x.at[indices].set(values) for an updated copy",
        "putmask": "x[mask] = values", "place": "x[mask] = values",
        "shares_memory": "ca.shares_buffer(a, b) (two cowarray values never alias)",
        "may_share_memory": "ca.shares_buffer(a, b) (two cowarray values never alias)",
        "ndarray": "ca.Array (made with ca.asarray, ca.zeros, ...)",
        "bool_": "ca.bool", "int_": "ca.int64", "intp": "ca.int64", "float_": "ca.float64",
        "double": "ca.float64", "single": "ca.float32", "complex_": "ca.complex128",
        "to_torch": "cowarray.interop.torch.to_torch (from cowarray.interop.torch import to_torch)",
        "from_torch": "cowarray.interop.torch.from_torch "
        "(from cowarray.interop.torch import from_torch)",
    },
    "cowarray.random": {
        "rand": "ca.random.default_rng(seed).random(shape)",
        "random": "ca.random.default_rng(seed).random(size)",
        "random_sample": "ca.random.default_rng(seed).random(size)",
        "sample": "ca.random.default_rng(seed).random(size)",
        "ranf": "ca.random.default_rng(seed).random(size)",
        "randn": "ca.random.default_rng(seed).standard_normal(shape)",
        "randint": "ca.random.default_rng(seed).integers(low, high, size)",
        "seed": "ca.random.default_rng(seed) (a Generator holds the state: there is no global one)",
        "RandomState": "ca.random.default_rng(seed)",
        **{
            name: f"ca.random.default_rng(seed).{name}(...)"
            for name in (
                "uniform", "normal", "standard_normal", "integers", "choice", "permutation",
                "shuffle", "exponential", "poisson", "binomial", "multivariate_normal",
            )
        },
    },
    "cowarray.linalg": {
        "multi_dot": "a @ b @ c (ca.linalg.matmul, chained)",
        "cond": "s = ca.linalg.svdvals(x); s[..., 0] / s[..., -1] (the 2-norm condition number)",
        "einsum": "ca.einsum (in the main namespace)",
    },
    "cowarray.fft": {
        "fft2": "ca.fft.fftn(x, axes=(-2, -1))",
        "ifft2": "ca.fft.ifftn(x, axes=(-2, -1))",
        "rfft2": "ca.fft.rfftn(x, axes=(-2, -1))",
        "irfft2": "ca.fft.irfftn(x, axes=(-2, -1))",
    },
    "cowarray.interop": {
        "to_torch": "cowarray.interop.torch.to_torch (from cowarray.interop.torch import to_torch)",
        "from_torch": "cowarray.interop.torch.from_torch "
        "(from cowarray.interop.torch import from_torch)",
    },
}  # fmt: skip

#: NumPy's ndarray attribute -> its cowarray spelling.
ARRAY_SPELLINGS: Final[dict[str, str]] = {
    "flat": "ca.reshape(x, (-1,)) (a lazy value: no copy)",
    "flags": "ca.cow_info(x) (a cowarray array is always writable, and its writes never "
    "reach another value)",
    "base": "ca.cow_info(x) or ca.shares_buffer(x, y) (values never alias, so no array is "
    "another's base)",
    "strides": "numpy.asarray(x).strides (a NumPy view of x's memory)",
    "data": "numpy.asarray(x).data (a NumPy view of x's memory)",
    "ctypes": "numpy.asarray(x).ctypes (a NumPy view of x's memory)",
    "tobytes": "numpy.asarray(x).tobytes()",
    "tofile": "numpy.asarray(x).tofile(file)",
    "dump": "numpy.save(file, numpy.asarray(x))",
    "dumps": "pickle.dumps(x) (cowarray arrays pickle)",
    "byteswap": "ca.asarray(numpy.asarray(x).byteswap())",
    "diagonal": "ca.linalg.diagonal(x, offset=k) (the last two axes) or ca.diagonal(x, k)",
    "trace": "ca.linalg.trace(x)",
    "repeat": "ca.repeat(x, repeats, axis=...)",
    "take": "ca.take(x, indices, axis=...)",
    "searchsorted": "ca.searchsorted(x, v)",
    "compress": "x[mask] (or ca.take(x, ca.nonzero(mask)[0], axis=...))",
    "resize": "x = ca.resize(x, new_shape)",
    "put": "x[indices] = values, or x.at[indices].set(values) for an updated copy",
    "partition": "x.sort(axis) (a full sort: cowarray has no partial one)",
    "argpartition": "ca.argsort(x, axis=...) (a full sort: cowarray has no partial one)",
    "ptp": "ca.max(x, axis=...) - ca.min(x, axis=...)",
}


def missing_name(namespace: str, name: str) -> AttributeError:
    """The AttributeError for ``<namespace>.<name>``: Python's words, and the
    cowarray spelling when ``name`` is a NumPy name cowarray spells otherwise.

    Examples
    --------
    >>> from cowarray._errors import missing_name
    >>> print(missing_name("cowarray.random", "rand"))  # doctest: +NORMALIZE_WHITESPACE
    module 'cowarray.random' has no attribute 'rand': NumPy's numpy.random.rand is
    spelled ca.random.default_rng(seed).random(shape) in cowarray
    """
    missing = f"module {namespace!r} has no attribute {name!r}"
    spelling = NUMPY_SPELLINGS.get(namespace, {}).get(name)
    if spelling is None:
        return AttributeError(missing)
    if name in ("to_torch", "from_torch"):
        return AttributeError(f"{missing}: the torch bridge is {spelling}")
    numpy_name = namespace.replace("cowarray", "numpy", 1) + "." + name
    return AttributeError(f"{missing}: NumPy's {numpy_name} is spelled {spelling} in cowarray")


def hint_missing_names(module: types.ModuleType) -> None:
    """Give ``module`` a ``__getattr__`` (PEP 562) that raises :func:`missing_name`."""

    def __getattr__(name: str) -> object:
        raise missing_name(module.__name__, name)

    module.__getattr__ = __getattr__  # type: ignore[method-assign]


def missing_array_attribute(name: str) -> AttributeError:
    """The AttributeError for ``x.<name>`` of NumPy's ndarray that the Array spells otherwise.

    Examples
    --------
    >>> from cowarray._errors import missing_array_attribute
    >>> print(missing_array_attribute("flat"))  # doctest: +NORMALIZE_WHITESPACE
    'Array' object has no attribute 'flat': NumPy's x.flat is spelled
    ca.reshape(x, (-1,)) (a lazy value: no copy) in cowarray
    """
    return AttributeError(
        f"'Array' object has no attribute {name!r}: NumPy's x.{name} is spelled "
        f"{ARRAY_SPELLINGS[name]} in cowarray"
    )
