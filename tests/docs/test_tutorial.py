"""The tutorial's examples run and print what the page says they print."""

from __future__ import annotations

import doctest
import os

import pytest

import cowarray as ca
from cowarray._observe import _reset_buffer_names

pytest.importorskip(
    "torch",
    reason="the tutorial's torch section needs torch, which the test extra leaves out;"
    " the CPU build: python -m pip install torch==2.13.0"
    " --index-url https://download.pytorch.org/whl/cpu",
)

DOCS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(__file__))), "docs")


def test_tutorial_output_is_true() -> None:
    ca.warn_on_copy(None)
    _reset_buffer_names()  # the page's letters are those of a fresh interpreter
    result = doctest.testfile(
        os.path.join(DOCS, "tutorial.rst"),
        module_relative=False,
        optionflags=doctest.ELLIPSIS,  # exact whitespace: the tables must align
        raise_on_error=False,
        verbose=False,
    )
    assert result.attempted > 20
    assert result.failed == 0
