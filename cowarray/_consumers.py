"""Libraries that take what they convert from an Array as their own value.

pandas recognizes NumPy arrays by type and converts any other array with
``np.asarray`` (keeping the result: Series, Index and DataFrame hold it) or
with ``list(...)`` (``isin``, ``Categorical``). For an ndarray it copies, and
its iteration gives NumPy scalars. Given an Array it would keep rule 4's
writable alias (a silent two-way alias) and 0-d Arrays (which it takes
neither as numbers nor as labels). So when such a library's own code asks,
an Array answers as an ndarray copy would (docs/design.md, rule 4).
"""

from __future__ import annotations

import sys
from typing import Final

__all__ = ["called_from_a_library_that_keeps_conversions"]

#: Module-name prefixes of the libraries meant above.
KEEPS_CONVERSIONS: Final = ("pandas.",)


def called_from_a_library_that_keeps_conversions(depth: int) -> bool:
    """Whether the frame ``depth`` levels below this call's caller runs code of
    a library in :data:`KEEPS_CONVERSIONS`.

    ``depth`` 1 is the caller of the function that asks (for ``__array__``
    or ``__iter__``, which NumPy and ``list()`` call from C: the library's
    own frame). The answer only ever leads to a copy: a frame that cannot
    be read counts as any other caller.
    """
    try:
        frame = sys._getframe(depth + 1)
    except ValueError:
        return False
    module = frame.f_globals.get("__name__")
    return type(module) is str and module.startswith(KEEPS_CONVERSIONS)
