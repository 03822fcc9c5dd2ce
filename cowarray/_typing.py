"""Type aliases shared by the public signatures."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np

if TYPE_CHECKING:
    from ._array import Array
    from ._devices import Device

__all__ = ["DType", "DeviceLike", "Operand", "PyScalar", "ShapeLike"]

DType: TypeAlias = "np.dtype[Any]"
PyScalar: TypeAlias = "bool | int | float | complex"
Operand: TypeAlias = "Array | bool | int | float | complex"
DeviceLike: TypeAlias = "Device | str | None"
ShapeLike: TypeAlias = "int | tuple[int, ...]"
