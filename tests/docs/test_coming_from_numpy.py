"""The "Coming from NumPy" page's examples run and print what the page says."""

from __future__ import annotations

import doctest
import os
import warnings

import cowarray as ca

DOCS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(__file__))), "docs")


def test_coming_from_numpy_output_is_true() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", ca.ViewWriteWarning)  # the page's writes must not warn
        result = doctest.testfile(
            os.path.join(DOCS, "coming_from_numpy.md"),
            module_relative=False,
            optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
            raise_on_error=False,
            verbose=False,
        )
    assert result.attempted > 15
    assert result.failed == 0
