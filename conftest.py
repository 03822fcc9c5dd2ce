"""Doctest collection: skip modules whose optional library is not installed.

``pytest --doctest-modules`` imports every module of the package; those that
need torch or CuPy for their examples are left out when it is missing, so the
suite passes (and says what it skipped) on a machine without them.
"""

from __future__ import annotations

import importlib.util

collect_ignore: list[str] = []
if importlib.util.find_spec("torch") is None:
    collect_ignore.append("cowarray/interop/torch.py")
if importlib.util.find_spec("cupy") is None:
    collect_ignore += ["cowarray/_backends/cupy.py", "cowarray/_backends/_cupy_namespace.py"]
