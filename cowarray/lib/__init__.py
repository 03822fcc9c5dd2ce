"""NumPy's ``numpy.lib`` names that array consumers look up on a namespace.

xarray's ``rolling`` calls ``xp.lib.stride_tricks.sliding_window_view`` on
the namespace of its data; :mod:`cowarray.lib.stride_tricks` answers it.
"""

from __future__ import annotations

from . import stride_tricks as stride_tricks
