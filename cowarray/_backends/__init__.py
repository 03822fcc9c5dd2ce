"""Backends: one module per array library, chosen by a device's kind.

Optional backends are imported only when a device of theirs is asked for, so
``import cowarray`` never imports CuPy.
"""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .._devices import Device
    from .base import Backend

__all__ = ["backend_for"]


def backend_for(device: Device) -> Backend:
    """The backend that serves ``device``."""
    if device.kind == "cpu":
        from .numpy import NUMPY_BACKEND

        return NUMPY_BACKEND
    if device.kind == "cuda":
        if importlib.util.find_spec("cupy") is None:
            raise ModuleNotFoundError(
                f"device {device} needs CuPy, which is not installed; install it with "
                'pip install "cupy-cuda12x>=14" (or cupy-cuda13x for CUDA 13), or, in a '
                'clone of cowarray, pip install -e ".[cuda12]"'
            )
        from .cupy import cupy_backend  # type: ignore[import-not-found,unused-ignore]

        return cupy_backend(device.index)  # type: ignore[no-any-return,unused-ignore]
    raise ValueError(f"no backend serves device {device}")
