"""Bridges to other array libraries, built on DLPack (:func:`cowarray.from_dlpack`).

Each bridge is a submodule that imports its library only when called:
``import cowarray`` and ``import cowarray.interop`` never import torch, and
``cowarray.interop.torch`` is loaded on first use, without importing torch.
einops is the exception, through :func:`register_einops`.
"""

from __future__ import annotations

import importlib

from .._errors import missing_name

__all__ = ["register_einops"]


def __getattr__(name: str) -> object:
    """``cowarray.interop.torch`` without its own import: the bridge module
    imports torch only when called, so loading it here costs nothing more."""
    if name == "torch":
        return importlib.import_module(f"{__name__}.torch")
    raise missing_name(__name__, name)


def register_einops() -> bool:
    """Define cowarray's einops backend if einops is installed; say whether it is.

    ``import cowarray`` calls this. einops finds backends by scanning the
    subclasses of its ``AbstractBackend`` when it meets a new tensor type,
    so the class must exist before the first ``einops.rearrange(x, ...)``;
    nothing runs between a later ``import einops`` and that call, so the
    class is defined now. einops is pure Python and imports no array library:
    about 4 ms once NumPy is loaded (0.1 ms to find it missing).
    """
    try:
        from . import einops  # noqa: F401  (defining its class registers it)
    except ImportError as error:
        if error.name == "einops" or str(error.name).startswith("einops."):
            return False
        raise
    return True
