"""What docs/compatibility.md lists as relying on writes through views.

The page is the one place that says which consumer code writes through views
(and so cannot give NumPy's answers on cowarray, only a loud warning); the
consumer runners and their CI tests read it from there, so the page and the
counts never disagree.
"""

from __future__ import annotations

import re
from pathlib import Path

PAGE = Path(__file__).resolve().parents[2] / "docs" / "compatibility.md"

# `path/to/tests/test_x.py::test_name` or `...::TestClass[::test_name]`
# (parameters left off)
_TEST = re.compile(r"`([\w./]+/tests/[\w./]+\.py(?:::\w+)+)`")
# a list entry that names an estimator or function in bold: "- **GaussianMixture**"
_NAME = re.compile(r"^- \*\*`?([\w.]+)`?\*\*", re.MULTILINE)


def listed_tests(page: Path = PAGE) -> frozenset[str]:
    """Test functions (``file::name``) listed as relying on writes through views."""
    return frozenset(_TEST.findall(page.read_text(encoding="utf-8")))


def listed_names(page: Path = PAGE) -> frozenset[str]:
    """Estimators and functions listed in bold as relying on writes through views."""
    return frozenset(_NAME.findall(page.read_text(encoding="utf-8")))


def relies_on_view_writes(nodeid: str, view_write_warning: bool) -> bool:
    """Whether a failing instance is one the page explains: listed, and it warned."""
    function = nodeid.split("[", 1)[0]
    return view_write_warning and any(
        function.endswith(test) or f"{test}::" in function for test in listed_tests()
    )
