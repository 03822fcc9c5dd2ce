"""Each of the README's Python blocks runs on its own, as a reader pastes one."""

from __future__ import annotations

import doctest
import importlib.util
import os
import re

import pytest

README = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(__file__))), "README.md")


def _blocks() -> list[str]:
    with open(README, encoding="utf-8") as file:
        text = file.read()
    return re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)


@pytest.mark.parametrize("index", range(len(_blocks())))
def test_a_readme_block_runs_alone(index: int) -> None:
    block = _blocks()[index]
    if "cowarray import transforms" in block and importlib.util.find_spec("jax") is None:
        pytest.skip("the transforms block needs JAX (the test extra; JAX has no wheels here)")
    test = doctest.DocTestParser().get_doctest(block, {}, f"README block {index + 1}", README, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
