"""Type aliases shared by the public signatures."""

from __future__ import annotations

from typing import Any, TypeAlias

import numpy as np

__all__ = ["DType", "PyScalar", "ShapeLike"]

DType: TypeAlias = "np.dtype[Any]"
PyScalar: TypeAlias = "bool | int | float | complex"
ShapeLike: TypeAlias = "int | tuple[int, ...]"
