"""Bridges to other array libraries, built on DLPack (:func:`cowarray.from_dlpack`).

Each bridge is a submodule that imports its library only when called:
``import cowarray`` and ``import cowarray.interop`` never import torch.
einops is the exception, through :func:`register_einops`.
"""

from __future__ import annotations

__all__ = ["register_einops"]


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
