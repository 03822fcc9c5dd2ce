"""Collection rules for the whole checkout (tests/ and the package's doctests)."""

from __future__ import annotations

import importlib.util

# The CuPy backend's modules import CuPy at their top: without CuPy, doctest
# collection of the package must skip them (cowarray imports them only when a
# cuda device is used).
CUPY_MODULES = ["cowarray/_backends/cupy.py", "cowarray/_backends/_cupy_namespace.py"]
collect_ignore = [] if importlib.util.find_spec("cupy") else CUPY_MODULES
