"""The constants of the Array API standard (Python floats, and ``newaxis``)."""

from __future__ import annotations

import math
from typing import Final

__all__ = ["e", "inf", "nan", "newaxis", "pi"]

#: Euler's number, the base of the natural logarithm.
e: Final = math.e
#: Positive infinity.
inf: Final = math.inf
#: Not a number.
nan: Final = math.nan
#: An alias for None, to add an axis of length one when indexing: ``x[:, newaxis]``.
newaxis: Final = None
#: The ratio of a circle's circumference to its diameter.
pi: Final = math.pi
