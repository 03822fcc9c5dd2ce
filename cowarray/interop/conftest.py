"""The doctests of cowarray.interop need torch: without it they are skipped."""

import pytest


@pytest.fixture(autouse=True)
def _require_torch() -> None:
    pytest.importorskip("torch")
