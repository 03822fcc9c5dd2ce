"""The user pages: their examples run, they speak to the reader, set-up hints are true."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from _doc_pages import run_page

import cowarray as ca

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOCS = os.path.join(ROOT, "docs")
#: The pages written for users (design.md and compatibility.md are the maintainers').
USER_PAGES = [
    "index.rst",
    "tutorial.rst",
    "tutorial_torch.rst",
    "how_copy_on_write_works.md",
    "coming_from_numpy.md",
    "conformance.md",
    "numpy_functions.md",
    "dask.md",
    "einops.md",
    "gpu.md",
    "random.md",
]


@pytest.mark.parametrize("page", ["index.rst", "how_copy_on_write_works.md"])
def test_a_page_prints_what_it_says(page: str) -> None:
    result = run_page(os.path.join(DOCS, page))
    assert result.attempted >= 4
    assert result.failed == 0


def test_the_module_help_is_written_for_users() -> None:
    text = ca.__doc__ or ""
    assert "import *" not in text and "_ops" not in text
    assert ">>> import cowarray as ca" in text


@pytest.mark.parametrize("page", USER_PAGES)
def test_a_user_page_never_mentions_the_tracker(page: str) -> None:
    with open(os.path.join(DOCS, page), encoding="utf-8") as f:
        text = f.read()
    assert not re.search(r"\bissues? #?\d+|\btracker\b", text, re.IGNORECASE), page


def test_a_skipped_torch_test_says_how_to_get_the_cpu_build() -> None:
    code = (
        "import sys; sys.modules['torch'] = None; import pytest;"
        " sys.exit(pytest.main(['-q', '-rs', '-p', 'no:cacheprovider',"
        " 'tests/interop/test_torch_bridge.py']))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    skipped = [line for line in result.stdout.splitlines() if line.startswith("SKIPPED")]
    assert skipped, result.stdout
    for line in skipped:
        assert "--index-url https://download.pytorch.org/whl/cpu" in line, line


def test_a_skip_reason_that_names_the_test_extra_is_true() -> None:
    """A test that says its module comes with the test extra names one the extra has."""
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    try:
        from conftest import _test_extra_modules
    finally:
        sys.path.remove(os.path.join(ROOT, "tests"))
    in_extra = _test_extra_modules()
    said = re.compile(r"importorskip\(\s*\"([\w.]+)\",\s*reason=[^)]*the test extra\)")
    for folder, _, files in os.walk(os.path.join(ROOT, "tests")):
        for name in files:
            if not name.endswith(".py"):
                continue
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                for module in said.findall(f.read()):
                    assert module.split(".")[0] in in_extra, (name, module)


def test_ci_never_waits_long_for_the_cpu_wheel_index() -> None:
    with open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8") as f:
        script = f.read()
    probe = script[script.index("CPU_INDEX=") :]
    assert re.search(r"timeout \d+ ", probe), "the probe of the CPU wheel index has a time limit"
    assert '--extra-index-url "$CPU_INDEX"' in probe
