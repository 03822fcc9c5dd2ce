"""Without torch, ``to_torch`` and ``from_torch`` say that torch is missing and how to get it.

Runs everywhere: torch is hidden (``sys.modules["torch"] = None``, as a
missing module reads to ``import``) where it is installed. The command the
message gives is the README's and the test suite's skip reasons'.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import cowarray as ca
from cowarray.interop import torch as bridge

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def no_torch(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(sys.modules, "torch", None)
    monkeypatch.setattr(bridge, "_TORCH", None)  # as if never loaded in this process
    yield


CALLS: dict[str, Callable[[ca.Array], Any]] = {
    "to_torch": bridge.to_torch,
    "to_torch copy": lambda x: bridge.to_torch(x, copy=True),
    "from_torch": bridge.from_torch,
}


@pytest.mark.usefixtures("no_torch")
@pytest.mark.parametrize("name", CALLS)
def test_a_call_without_torch_names_what_is_missing_and_the_command(name: str) -> None:
    x = ca.asarray([1.0, 2.0])
    clone = ca.lazy_clone(x)
    with pytest.raises(ModuleNotFoundError) as caught:
        CALLS[name](x)
    message = str(caught.value)
    assert caught.value.name == "torch"
    assert message.startswith(f"{name.split()[0]} needs torch, which is not installed")
    assert bridge._INSTALL_TORCH_CPU in message and "2.7 GB" in message
    np.testing.assert_array_equal(np.asarray(x, copy=True), [1.0, 2.0])
    assert ca.cow_info(x).state == "shared" and ca.shares_buffer(x, clone)  # nothing exported


def test_the_command_is_the_readmes_and_the_skip_reasons() -> None:
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        assert bridge._INSTALL_TORCH_CPU in f.read()
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    try:
        from conftest import HOW_TO_GET
    finally:
        sys.path.remove(os.path.join(ROOT, "tests"))
    assert bridge._INSTALL_TORCH_CPU in HOW_TO_GET["torch"]


@pytest.mark.usefixtures("no_torch")
def test_a_wrong_argument_is_named_before_torch_is_looked_for() -> None:
    with pytest.raises(TypeError, match="to_torch"):
        bridge.to_torch([1.0, 2.0])  # type: ignore[arg-type]
