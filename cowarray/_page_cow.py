"""The switch for page-granular copy-on-write (docs/design.md §5).

Off by default. ``COWARRAY_PAGE_COW=1`` in the environment turns it on at
import, with ``COWARRAY_PAGE_COW_THRESHOLD`` (bytes) as its threshold;
:func:`set_page_cow` turns it on or off at run time. It sets the core's
threshold (when a sparse write may leave copying to the operating system) and
the host backend's (which copies of NumPy data go to memory the operating
system can clone page by page). Linux only: elsewhere it stays off.
"""

from __future__ import annotations

import os
from typing import NamedTuple

import numpy as np

from ._backends import _pages
from ._backends.numpy import NUMPY_BACKEND
from ._core import set_page_cow_min

__all__ = ["DEFAULT_THRESHOLD", "PageCow", "page_cow_settings", "set_page_cow"]

#: Views smaller than this keep the eager region copy. Not a measured
#: crossover: at 1 MiB a page clone already beat the copy in
#: benchmarks/page_cow.py (0.61 against 0.97 ms, cold), but each page block
#: holds a file descriptor and a mapping, so 4 MiB is a conservative choice.
DEFAULT_THRESHOLD = 1 << 22


class PageCow(NamedTuple):
    """The page copy-on-write settings: whether it is on, and its threshold."""

    enabled: bool
    threshold: int


_settings = PageCow(False, DEFAULT_THRESHOLD)


def page_cow_settings() -> PageCow:
    """Whether page-granular copy-on-write is on, and its threshold in bytes.

    Returns
    -------
    PageCow
        ``(enabled, threshold)``.

    Examples
    --------
    >>> import cowarray as ca
    >>> enabled, threshold = ca.page_cow_settings()
    >>> isinstance(enabled, bool) and threshold >= 0
    True
    """
    return _settings


def set_page_cow(enabled: bool, threshold: int | None = None) -> PageCow:
    """Turn page-granular copy-on-write on or off; returns the settings before.

    When on (Linux only), copies of NumPy data of at least ``threshold`` bytes
    (``asarray(ndarray)``, ``copy=True``) live in memory the operating system
    can share copy-on-write, and a sparse write (``x[i] = v`` spanning at most
    1/8 of the view's pages) to a shared view of that size lets the kernel
    copy only the pages it touches instead of copying the view. Values,
    exports and DLPack behave exactly as with it off; ``trace()`` and the copy
    counters report the bytes of the pages actually copied.

    Parameters
    ----------
    enabled : bool
        On or off: ``True`` or ``False`` (a NumPy bool too, as a comparison
        of arrays gives one). On a platform without memfd and
        ``/proc/self/pagemap`` (anything but Linux) it stays off.
    threshold : int, optional
        Smallest view, and smallest copy, in bytes, that page copy-on-write
        serves (default: unchanged; initially :data:`DEFAULT_THRESHOLD`, or
        the environment's ``COWARRAY_PAGE_COW_THRESHOLD``). 0 serves every
        array (for tests: each big enough copy holds a file descriptor). A
        Python or NumPy integer, not a bool.

    Returns
    -------
    PageCow
        The settings before this call, to restore them.

    Raises
    ------
    TypeError
        If ``enabled`` is not a bool (``"yes"``, ``1`` and ``None`` are not:
        a string would turn it on whatever it says), or ``threshold`` is
        not an integer. Nothing changes.
    ValueError
        If ``threshold`` is negative. Nothing changes.

    Examples
    --------
    >>> import numpy as np
    >>> import cowarray as ca
    >>> before = ca.set_page_cow(True, threshold=0)
    >>> x = ca.asarray(np.zeros(1 << 20))  # 8 MiB
    >>> y = ca.lazy_clone(x)
    >>> with ca.trace() as t:
    ...     y[12345] = 1.0
    >>> t.bytes_copied <= 4096 if ca.page_cow_settings().enabled else True
    True
    >>> float(x[12345]), float(y[12345])
    (0.0, 1.0)
    >>> _ = ca.set_page_cow(*before)
    """
    global _settings
    # Both checked before anything changes.
    if not isinstance(enabled, (bool, np.bool_)):
        raise TypeError(
            f"set_page_cow: enabled must be a bool (True or False), got "
            f"{type(enabled).__name__} {enabled!r}"
        )
    if threshold is not None:
        threshold = _checked_threshold(threshold)
    before = _settings
    _settings = PageCow(
        bool(enabled) and _pages.AVAILABLE, before.threshold if threshold is None else threshold
    )
    minimum = _settings.threshold if _settings.enabled else None
    NUMPY_BACKEND.set_page_memory(minimum)
    set_page_cow_min(minimum)
    return before


class _NotAnIntegerError(TypeError, ValueError):
    """A threshold of the wrong type: a TypeError, and a ValueError as before.

    (:func:`set_page_cow` raised ValueError for every bad threshold; code
    that catches that keeps working, as NumPy's AxisError is an IndexError.)
    """


def _checked_threshold(threshold: object) -> int:
    """``threshold`` as an int, or the error it deserves."""
    if isinstance(threshold, (bool, np.bool_)) or not isinstance(threshold, (int, np.integer)):
        raise _NotAnIntegerError(
            f"set_page_cow: threshold must be an int >= 0 (bytes) or None (unchanged), got "
            f"{type(threshold).__name__} {threshold!r}"
        )
    if threshold < 0:
        raise ValueError(f"set_page_cow: threshold must be an int >= 0 (bytes), got {threshold}")
    return int(threshold)


def _from_environment() -> None:
    raw = os.environ.get("COWARRAY_PAGE_COW_THRESHOLD", "")
    threshold = int(raw) if raw.strip() else None
    enabled = os.environ.get("COWARRAY_PAGE_COW", "0").strip().lower() in ("1", "on", "true", "yes")
    set_page_cow(enabled, threshold=threshold)


_from_environment()
