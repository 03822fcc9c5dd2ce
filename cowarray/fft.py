"""The ``fft`` extension of the Array API standard.

Re-exports only; the implementation is :mod:`cowarray._ops.fft`.
"""

from __future__ import annotations

from ._ops.fft import fft as fft
from ._ops.fft import fftfreq as fftfreq
from ._ops.fft import fftn as fftn
from ._ops.fft import fftshift as fftshift
from ._ops.fft import hfft as hfft
from ._ops.fft import ifft as ifft
from ._ops.fft import ifftn as ifftn
from ._ops.fft import ifftshift as ifftshift
from ._ops.fft import ihfft as ihfft
from ._ops.fft import irfft as irfft
from ._ops.fft import irfftn as irfftn
from ._ops.fft import rfft as rfft
from ._ops.fft import rfftfreq as rfftfreq
from ._ops.fft import rfftn as rfftn

__all__ = [
    "fft",
    "fftfreq",
    "fftn",
    "fftshift",
    "hfft",
    "ifft",
    "ifftn",
    "ifftshift",
    "ihfft",
    "irfft",
    "irfftn",
    "rfft",
    "rfftfreq",
    "rfftn",
]
