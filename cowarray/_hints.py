"""Hints for NumPy names that cowarray spells the standard's way.

``ca.array`` and ``ca.concatenate`` are NumPy habits; the Array API standard,
which cowarray's namespace follows, names them ``asarray`` and ``concat``. A
missing attribute that is such a habit raises an AttributeError that names the
cowarray spelling, instead of only saying it is missing.
"""

from __future__ import annotations

from typing import Final

__all__ = ["missing_attribute"]

#: NumPy's name -> what to write in cowarray.
NUMPY_SPELLINGS: Final = {
    "array": "asarray(obj) (copy=True for a copy; a copy of a cowarray array is free anyway)",
    "asanyarray": "asarray(obj)",
    "ascontiguousarray": "asarray(obj)",
    "concatenate": "concat(arrays, axis=0)",
    "arccos": "acos", "arccosh": "acosh", "arcsin": "asin", "arcsinh": "asinh",
    "arctan": "atan", "arctan2": "atan2", "arctanh": "atanh",
    "invert": "bitwise_invert", "left_shift": "bitwise_left_shift",
    "right_shift": "bitwise_right_shift", "power": "pow",
    "amax": "max", "amin": "min",
    "ndarray": "Array (cowarray arrays are made with asarray, zeros, ...)",
    "copy": "lazy_clone(x) or x.copy() (both free until a write)",
    "bool_": "bool", "float_": "float64", "int_": "int64", "complex_": "complex128",
}  # fmt: skip


def missing_attribute(name: str) -> AttributeError:
    """The AttributeError for ``cowarray.<name>``, with the spelling to use if known."""
    spelling = NUMPY_SPELLINGS.get(name)
    if spelling is None:
        return AttributeError(f"module 'cowarray' has no attribute {name!r}")
    return AttributeError(
        f"module 'cowarray' has no attribute {name!r}: NumPy's {name} is spelled "
        f"cowarray.{spelling} (the Array API standard's name)"
    )
