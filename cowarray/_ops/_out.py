"""``out=``: a result written into an Array the caller gave, through copy-on-write.

NumPy code passes ``out=`` everywhere (``np.clip(V, 0, 1, out=V)``), so the
functions NumPy gives ``out=`` take it here too. Each computes its result as
a new value exactly as without ``out=`` (the same checks, dtype and
promotion), then :func:`write_out` checks ``out`` and writes the result with
``out[...] = result``: the public item assignment, so the copy-on-write core
decides (docs/design.md rule 3). If ``out`` shares its buffer with other
values, only ``out`` changes; a refused ``out`` or a failed write changes
nothing. The function returns ``out`` itself, as NumPy's do. A call without
``out=`` pays one ``if out is not None`` test, and nothing else.

What ``out`` must be, all checked before anything is written:

- a cowarray Array (TypeError; a NumPy array too: write ``nd[...] = result``),
  on the result's device (ValueError);
- of the result's shape (ValueError). The element-wise functions (NumPy's
  ufuncs) also take an ``out`` the result broadcasts to, and a one-entry
  tuple ``out=(y,)``, as NumPy's ufuncs do;
- of a dtype the result casts to under the rule NumPy applies for that
  function (TypeError): ``casting=`` (``"same_kind"`` by default) for the
  element-wise functions, ``"unsafe"`` for most reductions, ``"no"`` for
  ``dot``. Two rules are NumPy's own: ``"reverse_safe"`` (the ``arg*``
  functions, and ``take`` before NumPy 2.5: out's dtype must cast safely to
  the result's) and
  ``"inexact"`` (``nanmean`` of floating-point data: out must be floating
  or complex).

The cast into out's dtype is the backend's (NumPy's C cast, as NumPy's
``out=`` does). The value is the cast of the result computed as without
``out=``: NumPy's reductions sometimes accumulate in out's dtype instead (a
float32 sum into a float64 out), which ``dtype=`` asks for here.
"""

from __future__ import annotations

from typing import Any, Final

import numpy

from .._array import Array, fresh
from .._errors import _described

__all__ = ["CASTING_RULES", "check_out", "write_out", "write_ufunc_out"]

#: NumPy's names for ``casting=``, from the strictest.
CASTING_RULES: Final = ("no", "equiv", "safe", "same_kind", "unsafe")


def write_out(
    out: object,
    result: Array,
    function: str,
    casting: str,
    *,
    broadcast: bool = False,
    casting_given: bool = False,
) -> Array:
    """Write ``result`` into ``out`` through copy-on-write and return ``out``.

    ``function`` names the call in messages ("sum"); ``casting`` is the rule
    ``result``'s dtype must cast to ``out``'s dtype by (one of
    :data:`CASTING_RULES`, or ``"reverse_safe"`` / ``"inexact"``);
    ``broadcast`` lets ``out`` have a shape the result broadcasts to (NumPy's
    ufuncs); ``casting_given`` says the caller's ``casting=`` chose the rule
    (checked to be one of NumPy's names), so a refusal may suggest another.
    Every check runs before the write.
    """
    data = result._data
    target = check_out(
        out,
        function,
        result._device,
        data.dtype,
        tuple(data.shape),
        casting,
        broadcast=broadcast,
        casting_given=casting_given,
    )
    if data.dtype != target.dtype:
        result = fresh(result._device.backend.xp.astype(data, target.dtype), result._device)
    target[...] = result
    return target


def check_out(
    out: object,
    function: str,
    device: Any,
    dtype: Any,
    shape: tuple[int, ...],
    casting: str,
    *,
    broadcast: bool = False,
    casting_given: bool = False,
) -> Array:
    """``out``, checked to take a result of ``device``, ``dtype`` and ``shape``
    (:func:`write_out`'s checks, for a caller that checks before it computes:
    a Generator draws nothing for a refused ``out``)."""
    if casting_given and casting not in CASTING_RULES:
        raise ValueError(
            f"{function}: casting must be one of {', '.join(map(repr, CASTING_RULES))}, "
            f"got {casting!r}"
        )
    if type(out) is not Array:
        raise TypeError(
            f"{function}: out must be a cowarray Array to write the result into, got "
            f"{_described(out)}; pass an Array of the result's shape {shape} "
            f"(ca.empty({shape}, dtype=ca.{dtype}) makes one), or leave out at None for "
            "a new array"
        )
    target = out._data
    given = tuple(target.shape)  # (a moved-from Array raises its own clear error here)
    if out._device is not device:
        if device.kind == "jax":
            # (the result is traced: an out made before the trace would be
            # written with a value that exists only inside it)
            raise ValueError(
                f"{function}: out is an Array from outside the function that "
                "cowarray.transforms traces, and the result is traced; leave out at None "
                "and return the result (or write it: x[...] = result, on an Array the "
                "function received)"
            )
        raise ValueError(
            f"{function}: out is on {out._device} but the result is on {device}; pass an "
            f"out on {device} (out.to_device({str(device)!r}) makes one)"
        )
    if given != shape and not (broadcast and _broadcasts(shape, given)):
        spread = " (or one it broadcasts to)" if broadcast else ""
        raise ValueError(
            f"{function}: out has shape {given}, but the result has shape {shape}; pass an "
            f"out of shape {shape}{spread}"
        )
    if target.dtype != dtype:
        _check_cast(dtype, target.dtype, function, casting, casting_given)
    return out


def write_ufunc_out(out: object, result: Array, function: str, casting: str) -> Array:
    """:func:`write_out` by the rules of NumPy's ufuncs: ``out`` may be a
    one-entry tuple and of a shape the result broadcasts to, and the
    caller's ``casting=`` (NumPy's names) is the dtype rule."""
    if type(out) is tuple:
        if len(out) != 1:
            raise TypeError(
                f"{function}: out has {len(out)} entries, but {function} has one result; "
                "pass out=y or out=(y,)"
            )
        (out,) = out
    return write_out(out, result, function, casting, broadcast=True, casting_given=True)


def _broadcasts(shape: tuple[int, ...], to: tuple[int, ...]) -> bool:
    """Whether an array of ``shape`` broadcasts to ``to`` (``to`` itself stays)."""
    if len(shape) > len(to):
        return False
    return all(n == m or n == 1 for n, m in zip(reversed(shape), reversed(to), strict=False))


def _check_cast(source: Any, dtype: Any, function: str, casting: str, given: bool) -> None:
    if casting == "reverse_safe":
        if not numpy.can_cast(dtype, source, "safe"):
            raise TypeError(
                f"{function}: out has dtype {dtype}, which does not cast safely to the "
                f"result's {source} (NumPy's rule for {function}'s out); pass an out of "
                f"dtype {source}"
            )
        return
    if casting == "inexact":
        if dtype.kind not in "fc":
            raise TypeError(
                f"{function}: out has dtype {dtype}, but the result of floating-point data "
                f"must go into a floating-point or complex out (NumPy's rule); pass an out "
                f"of dtype {source}"
            )
        return
    assert casting in CASTING_RULES, casting
    rule: Any = casting  # (one of NumPy's names, checked)
    if not numpy.can_cast(source, dtype, rule):
        other = ", or casting='unsafe' to cast anyway" if given else ""
        raise TypeError(
            f"{function}: out has dtype {dtype}, which the result's {source} does not "
            f"cast to under the {casting!r} rule; pass an out of dtype {source}{other}"
        )
