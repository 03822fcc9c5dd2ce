"""Running a documentation page's examples as doctests, as a reader would paste them."""

from __future__ import annotations

import doctest
import warnings

import cowarray as ca


def run_page(path: str) -> doctest.TestResults:
    """The doctest results of the page at ``path``; its writes must not warn
    (a ViewWriteWarning is an error: a page's example means what it shows)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", ca.ViewWriteWarning)
        return doctest.testfile(
            path,
            module_relative=False,
            optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
            raise_on_error=False,
            verbose=False,
        )
