"""NumPy's ``numpy.lib.stride_tricks``: the one safe name, ``sliding_window_view``.

Re-exports only; the implementation is :mod:`cowarray._ops.windows`.
``as_strided`` is left out: it makes views that may reach outside their
array's memory, which no value-semantics guarantee can cover.
"""

from __future__ import annotations

from .._ops.windows import sliding_window_view as sliding_window_view
