"""Random numbers: ``default_rng``, ``Generator`` and ``split``.

Re-exports only; the implementation is :mod:`cowarray._random`. See
``docs/random.md`` for reproducibility per backend and for splitting streams
in functional code.
"""

from __future__ import annotations

from ._random import Generator as Generator
from ._random import default_rng as default_rng
from ._random import split as split

__all__ = ["Generator", "default_rng", "split"]
