"""Sphinx configuration for the cowarray documentation.

The API reference lists every public name of ``cowarray`` without a
hand-kept list: :func:`write_api_listing` reads the namespace at build time
and writes the page ``api/generated/reference.rst`` (ignored by git).
The tutorial's picture is drawn by running cowarray, so it stays true.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys
import types

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import cowarray  # noqa: E402

project = "cowarray"
author = "the cowarray developers"
copyright = "2026, the cowarray developers"
release = version = cowarray.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "myst_parser",
]
# The GPU and conformance guides are Markdown, readable on GitHub as they are.
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
templates_path = ["_templates"]
exclude_patterns = ["_build"]
autosummary_generate = True
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
html_theme = "pydata_sphinx_theme"
html_title = "cowarray"
html_theme_options = {"navigation_with_keys": False}


INTRO = """\
Every public name of the ``cowarray`` namespace, read from the package when
the documentation is built. The array functions follow the `Python Array API
standard <https://data-apis.org/array-api/latest/>`_; what is specific to
cowarray is copy-on-write: :func:`cowarray.lazy_clone`, and the tools that
show it (:func:`cowarray.cow_info`, :func:`cowarray.trace`,
:func:`cowarray.warn_on_copy`, :func:`cowarray.sharing_picture`, the copy
counters)."""


def public_names() -> list[str]:
    """Every public name of the ``cowarray`` namespace."""
    names = getattr(cowarray, "__all__", None)
    if names is None:
        names = [n for n in dir(cowarray) if not n.startswith("_")]
    # ``from __future__ import annotations`` leaves a feature object behind.
    return sorted(n for n in names if type(getattr(cowarray, n)).__name__ != "_Feature")


def public_submodules() -> list[types.ModuleType]:
    """``cowarray.debug``, ``cowarray.testing``, ...: every public submodule."""
    found = []
    for info in pkgutil.walk_packages(cowarray.__path__, "cowarray."):
        parts = info.name.split(".")
        if any(part.startswith("_") for part in parts) or parts[-1] == "conftest":
            continue
        found.append(importlib.import_module(info.name))
    return sorted(found, key=lambda m: m.__name__)


def write_api_listing() -> None:
    """Write the API reference page: functions and classes, submodules, dtypes, constants."""
    callables, dtypes, constants = [], [], []
    for name in public_names():
        value = getattr(cowarray, name)
        if isinstance(value, types.ModuleType):
            continue  # listed with the submodules below
        elif isinstance(value, np.dtype):
            dtypes.append(name)
        elif callable(value):
            callables.append(name)
        else:
            constants.append((name, value))
    top_level = {id(getattr(cowarray, n)) for n in callables}
    out = [
        "API reference",
        "=============",
        "",
        INTRO,
        "",
        "Functions and classes",
        "---------------------",
        "",
        ".. currentmodule:: cowarray",
        "",
        ".. autosummary::",
        "   :toctree: .",
        "",
        *[f"   {n}" for n in callables],
        "",
    ]
    for module in public_submodules():
        extra = [
            n
            for n in getattr(module, "__all__", [])
            if callable(getattr(module, n)) and id(getattr(module, n)) not in top_level
        ]
        title = f"``{module.__name__}``"
        summary = (module.__doc__ or "").strip().splitlines()[0]
        out += [title, "-" * len(title), "", summary, ""]
        if extra:
            out += [
                f".. currentmodule:: {module.__name__}",
                "",
                ".. autosummary::",
                "   :toctree: .",
                "",
                *[f"   {n}" for n in extra],
                "",
            ]
    if dtypes:
        out += ["Data types", "----------", "", "NumPy dtype objects:", ""]
        out += [", ".join(f"``{n}``" for n in dtypes), ""]
    if constants:
        out += ["Constants", "---------", "", ".. list-table::", "", "   * - name", "     - value"]
        for name, value in constants:
            out += [f"   * - ``{name}``", f"     - ``{value!r}``"]
        out.append("")
    target = os.path.join(HERE, "api", "generated")
    os.makedirs(target, exist_ok=True)
    text = "\n".join(out)
    path = os.path.join(target, "reference.rst")
    _write_if_changed(path, text)


def _write_if_changed(path: str, text: str) -> None:
    # Rewriting an unchanged page would make Sphinx rebuild it every time.
    if os.path.exists(path):
        with open(path) as f:
            if f.read() == text:
                return
    with open(path, "w") as f:
        f.write(text)


def draw_tutorial_picture() -> None:
    """The SVG the tutorial shows, drawn by cowarray itself."""
    a = cowarray.zeros(1000)
    clone = cowarray.lazy_clone(a)
    head = a[:10]
    total = a + 1
    svg = cowarray.sharing_picture(a=a, clone=clone, head=head, total=total).to_svg()
    target = os.path.join(HERE, "_static")
    os.makedirs(target, exist_ok=True)
    with open(os.path.join(target, "sharing.svg"), "w") as f:
        f.write(svg)


write_api_listing()
draw_tutorial_picture()
html_static_path = ["_static"]
