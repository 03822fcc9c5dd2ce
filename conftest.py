"""Collection rules for the whole checkout (tests/ and the package's doctests)."""

from __future__ import annotations

import importlib.util

# The CuPy backend imports CuPy at its top: without CuPy, doctest collection
# of the package must skip it (it is imported only when a cuda device is used).
collect_ignore = [] if importlib.util.find_spec("cupy") else ["cowarray/_backends/cupy.py"]
