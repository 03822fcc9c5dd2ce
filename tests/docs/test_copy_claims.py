"""The pages' sentences about when a copy happens are doctests with ``trace()``, and they pass."""

from __future__ import annotations

import os

import pytest
from _doc_pages import run_page

import cowarray as ca

DOCS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(__file__))), "docs")

#: page -> (the module its examples need, the fewest examples it must run)
PAGES = {
    "dask.md": ("dask.array", 10),
    "einops.md": ("einops", 20),
    "numpy_functions.md": ("numpy", 15),
    "gpu.md": ("numpy", 5),
    "compatibility.md": ("pandas", 10),
    "transforms.md": ("jax", 60),
}


@pytest.mark.parametrize("page", sorted(PAGES))
def test_a_page_s_copy_claims_hold_under_trace(page: str) -> None:
    module, fewest = PAGES[page]
    pytest.importorskip(module, reason=f"{page}'s examples need {module} (the test extra)")
    with open(os.path.join(DOCS, page), encoding="utf-8") as f:
        text = f.read()
    assert "ca.trace()" in text, page
    result = run_page(os.path.join(DOCS, page))
    assert result.attempted >= fewest, result
    assert result.failed == 0, result


def test_the_readme_sentences_about_copies_that_its_blocks_do_not_run() -> None:
    """README: "a 10-element slice of a 1 GB buffer copies 10 elements" (here
    8 MB: the claim is about the slice, not the buffer) and "from_torch(
    to_torch(x)) is a copy"."""
    x = ca.zeros(1_000_000)
    window = ca.lazy_clone(x[500:510])
    with ca.trace() as t:
        window[:] = 1.0
    assert (t.copies, t.bytes_copied) == (1, 10 * 8)

    torch = pytest.importorskip("torch")
    from cowarray.interop.torch import from_torch, to_torch

    y = ca.arange(4.0)
    with ca.trace() as t:
        back = from_torch(to_torch(y))
    assert t.copies == 1 and not ca.shares_buffer(back, y)
    assert isinstance(to_torch(y), torch.Tensor)
