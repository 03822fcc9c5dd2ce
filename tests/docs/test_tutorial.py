"""The tutorial's examples run and print what the pages say they print.

``docs/tutorial.rst`` needs nothing but cowarray: it runs wherever the suite
runs. ``docs/tutorial_torch.rst``, its torch part, runs where torch is
installed (CI installs its CPU build) and is skipped, saying how to get it,
elsewhere.
"""

from __future__ import annotations

import doctest
import importlib.util
import os
import warnings

import pytest

import cowarray as ca
from cowarray._observe import _reset_buffer_names

DOCS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(__file__))), "docs")
TORCH_CPU_BUILD = (
    "the tutorial's torch part needs torch, which the test extra leaves out;"
    " the CPU build: python -m pip install torch==2.13.0"
    " --index-url https://download.pytorch.org/whl/cpu"
)


def _run(page: str) -> doctest.TestResults:
    """The page's doctest results. A warning its examples do not catch is an
    error: a reader running them would see it, and the page does not show it."""
    ca.warn_on_copy(None)
    _reset_buffer_names()  # the page's letters are those of a fresh interpreter
    with warnings.catch_warnings():
        warnings.simplefilter("error", ca.ViewWriteWarning)
        warnings.simplefilter("error", ca.CopyWarning)
        return doctest.testfile(
            os.path.join(DOCS, page),
            module_relative=False,
            optionflags=doctest.ELLIPSIS,  # exact whitespace: the tables must align
            raise_on_error=False,
            verbose=False,
        )


def test_tutorial_output_is_true() -> None:
    result = _run("tutorial.rst")
    assert result.attempted > 20
    assert result.failed == 0


def test_the_tutorial_needs_no_torch() -> None:
    with open(os.path.join(DOCS, "tutorial.rst"), encoding="utf-8") as f:
        examples = doctest.DocTestParser().get_examples(f.read())
    assert not [e.source for e in examples if "torch" in e.source]


def test_the_torch_part_output_is_true() -> None:
    if importlib.util.find_spec("torch") is None:
        pytest.skip(TORCH_CPU_BUILD)
    result = _run("tutorial_torch.rst")
    assert result.attempted > 10
    assert result.failed == 0
