"""Sphinx configuration for the cowarray documentation.

The API reference lists every public name of ``cowarray`` without a
hand-kept list: :func:`write_api_listing` reads the namespace at build time
and writes the page ``api/generated/reference.rst`` (ignored by git).
The tutorial's picture is drawn by running cowarray, so it stays true.
"""

from __future__ import annotations

import contextlib
import doctest
import importlib
import inspect
import io
import os
import pkgutil
import sys
import types
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import cowarray  # noqa: E402
import cowarray.debug  # noqa: E402

project = "cowarray"
author = "the cowarray developers"
copyright = "2026, the cowarray developers"
release = version = cowarray.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "myst_nb",  # Markdown pages (through myst-parser) and the executed tutorial notebook
]
# The GPU and conformance guides are Markdown, readable on GitHub as they are.
# ``tutorial_notebook.ipynb`` links to ``examples/tutorial.ipynb``, committed
# with its outputs (the tests run it again): shown as it is, never executed here.
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
nb_execution_mode = "off"
templates_path = ["_templates"]
exclude_patterns = ["_build"]
autosummary_generate = True
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
html_theme = "pydata_sphinx_theme"
html_title = "cowarray"
html_theme_options = {"navigation_with_keys": False}
# The tutorial's pages have no sub-pages, so their left sidebar would be
# empty: give their trace tables (about 100 characters wide) the room instead.
html_sidebars = {"tutorial": [], "tutorial_notebook": [], "tutorial_torch": []}


INTRO = """\
Every public name of the ``cowarray`` namespace, read from the package when
the documentation is built, grouped by topic. The array functions follow the
`Python Array API standard <https://data-apis.org/array-api/latest/>`_; what
is specific to cowarray is copy-on-write and the tools that show it, which
come first."""

#: The copy-on-write names, in the order a reader meets them (the tutorial's).
COW_NAMES = (
    "lazy_clone",
    "move",
    "cow_info",
    "CowInfo",
    "shares_buffer",
    "trace",
    "sharing_picture",
    "warn_on_copy",
    "CopyWarning",
    "ViewWriteWarning",
    "copy_counters",
    "reset_copy_counters",
)
ARRAY_NAMES = ("Array", "Device", "from_dlpack")

#: The other topics, by the private module that defines a name (the element-wise
#: functions are made by a factory in ``cowarray`` itself).
TOPICS = {
    "cowarray._page_cow": "Page-granular copy-on-write",
    "cowarray._ops.creation": "Creating arrays",
    "cowarray": "Element-wise functions",
    "cowarray._ops.elementwise": "Element-wise functions",
    "cowarray._ops.manipulation": "Shapes, joining and indexing",
    "cowarray._ops.indexing": "Shapes, joining and indexing",
    "cowarray._ops.statistical": "Reductions and statistics",
    "cowarray._ops.utility": "Reductions and statistics",
    "cowarray._ops.searching": "Searching, sorting and sets",
    "cowarray._ops.sorting": "Searching, sorting and sets",
    "cowarray._ops.sets": "Searching, sorting and sets",
    "cowarray._ops.linalg": "Linear algebra",
    "cowarray._ops.data_types": "Data types and casting",
    "cowarray._ops.numpy_functions": "NumPy's functions beyond the standard",
    "cowarray._ops.numpy_math": "NumPy's functions beyond the standard",
    "cowarray._ops.numpy_statistics": "NumPy's functions beyond the standard",
    "cowarray._backends._parallel": "Threads",
    "cowarray._backends._reuse": "Memory of big results",
}
OTHER = "Other functions and classes"
TOPIC_ORDER = (
    "Copy-on-write",
    "Page-granular copy-on-write",
    "The Array",
    "Creating arrays",
    "Element-wise functions",
    "Shapes, joining and indexing",
    "Reductions and statistics",
    "Searching, sorting and sets",
    "Linear algebra",
    "Data types and casting",
    "NumPy's functions beyond the standard",
    "Threads",
    "Memory of big results",
    OTHER,
)

#: ``Array`` operators: (method, what you write, the function it is, in-place form).
OPERATORS = (
    ("__add__", "x + y", "add", "x += y"),
    ("__sub__", "x - y", "subtract", "x -= y"),
    ("__mul__", "x * y", "multiply", "x *= y"),
    ("__truediv__", "x / y", "divide", "x /= y"),
    ("__floordiv__", "x // y", "floor_divide", "x //= y"),
    ("__mod__", "x % y", "remainder", "x %= y"),
    ("__pow__", "x ** y", "pow", "x **= y"),
    ("__matmul__", "x @ y", "matmul", "x @= y"),
    ("__and__", "x & y", "bitwise_and", "x &= y"),
    ("__or__", "x | y", "bitwise_or", "x |= y"),
    ("__xor__", "x ^ y", "bitwise_xor", "x ^= y"),
    ("__lshift__", "x << y", "bitwise_left_shift", "x <<= y"),
    ("__rshift__", "x >> y", "bitwise_right_shift", "x >>= y"),
    ("__eq__", "x == y", "equal", ""),
    ("__ne__", "x != y", "not_equal", ""),
    ("__lt__", "x < y", "less", ""),
    ("__le__", "x <= y", "less_equal", ""),
    ("__gt__", "x > y", "greater", ""),
    ("__ge__", "x >= y", "greater_equal", ""),
    ("__neg__", "-x", "negative", ""),
    ("__pos__", "+x", "positive", ""),
    ("__abs__", "abs(x)", "abs", ""),
    ("__invert__", "~x", "bitwise_invert", ""),
)

OPERATORS_PAGE = """\
Operators
=========

.. currentmodule:: cowarray

Each operator on an :class:`Array` is the namespace function beside it (same
promotion, same errors), and a Python scalar on either side works as the
standard says, across kinds as NumPy 2 does (``int_array * 0.5`` is float64).
A list or tuple on either side is converted as ``asarray`` would convert it
(``x == [[1, 2], [3, 4]]`` compares element-wise). The result is a new value.

An in-place operator (``x += y``) changes ``x`` only. If ``x`` shares its
buffer (a lazy clone, a slice, a NumPy export), copy-on-write first gives
``x`` a copy of the region it views, so no other value changes; if ``x`` is
the only holder, it writes in place, without a copy. In-place operators keep
``x``'s dtype and shape: one that would change them raises ``TypeError`` or
``ValueError`` (write ``x = x + y`` instead).

>>> import cowarray as ca
>>> x = ca.ones(3)
>>> y = ca.lazy_clone(x)
>>> y += 1.0  # y copies first: x keeps its values
>>> x
cowarray.Array([1., 1., 1.], dtype=float64)
>>> y
cowarray.Array([2., 2., 2.], dtype=float64)

Indexing reads with ``x[k]`` (a lazy view for basic indices) and writes with
``x[k] = v``, also through copy-on-write.

.. list-table::
   :header-rows: 1

   * - you write
     - is
     - in place
"""

AT_PAGE_HEAD = """\
Functional updates: ``x.at``
============================

.. currentmodule:: cowarray

``x.at[index]`` chooses where; its methods return a new array and leave ``x``
unchanged, as in JAX. Each update starts as a lazy clone of ``x`` and writes
through copy-on-write, so it copies at most the region ``x`` views, once (see
the tutorial's section on ``.at``).

"""

AT_METHODS = ("get", "set", "add", "subtract", "multiply", "divide", "power", "min", "max", "apply")


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


def _topic_rank(title: str) -> int:
    return TOPIC_ORDER.index(title) if title in TOPIC_ORDER else len(TOPIC_ORDER) - 1


def topic_of(name: str, value: object) -> str:
    """The reference section that lists ``name``."""
    if name in COW_NAMES:
        return "Copy-on-write"
    if name in ARRAY_NAMES:
        return "The Array"
    return TOPICS.get(getattr(value, "__module__", ""), OTHER)


def _autosummary(module: str, names: list[str], toctree: bool = True) -> list[str]:
    option = ["   :toctree: ."] if toctree else []
    return (
        [f".. currentmodule:: {module}", "", ".. autosummary::", *option, ""]
        + [f"   {n}" for n in names]
        + [""]
    )


def _section(title: str, char: str = "-") -> list[str]:
    return [title, char * len(title), ""]


def _slug(title: str) -> str:
    return "-".join("".join(c if c.isalnum() else " " for c in title.lower()).split())


def _topic_body(title: str, names: list[str], top_level: set[int], toctree: bool) -> list[str]:
    """The listing of one topic; with ``toctree``, the one that makes its pages."""
    out = _autosummary("cowarray", names, toctree)
    if title == "Copy-on-write":
        debug = cowarray.debug
        extra = [n for n in debug.__all__ if id(getattr(debug, n)) not in top_level]
        out += [
            "From ``cowarray.debug``: the objects these tools return, and the one",
            "name each buffer has in traces, pictures and warnings.",
            "",
            *_autosummary("cowarray.debug", extra, toctree),
        ]
    if title == "The Array":
        out += [
            "Besides its attributes and NumPy-style methods (on the :class:`Array`",
            "page), an array has :doc:`operators <operators>` and",
            ":doc:`functional updates, x.at[index] <at>`.",
            "",
        ]
        if toctree:
            out += [".. toctree::", "   :hidden:", "", "   operators", "   at", ""]
    return out


def _submodule_body(module: types.ModuleType, top_level: set[int], toctree: bool) -> list[str]:
    extra = [
        n
        for n in getattr(module, "__all__", [])
        if callable(getattr(module, n)) and id(getattr(module, n)) not in top_level
    ]
    summary = (module.__doc__ or "").strip().splitlines()[0]
    return [summary, "", *(_autosummary(module.__name__, extra, toctree) if extra else [])]


def write_api_listing() -> None:
    """Write the API reference: topics (copy-on-write first), submodules, dtypes, constants.

    The reference page lists every name, grouped; each group is also a page of
    its own (``api/generated/topic-*.rst``) in the reference's toctree, so the
    sidebar shows the groups, and a group's page its names.
    """
    topics: dict[str, list[str]] = {"Copy-on-write": [], "The Array": []}
    dtypes, constants = [], []
    for name in public_names():
        value = getattr(cowarray, name)
        if isinstance(value, types.ModuleType):
            continue  # listed with the submodules below
        elif isinstance(value, np.dtype):
            dtypes.append(name)
        elif callable(value):
            topics.setdefault(topic_of(name, value), []).append(name)
        else:
            constants.append((name, value))
    topics["Copy-on-write"].sort(key=COW_NAMES.index)
    topics["The Array"].sort(key=ARRAY_NAMES.index)
    topics = {t: topics[t] for t in sorted(topics, key=_topic_rank)}
    top_level = {id(getattr(cowarray, n)) for names in topics.values() for n in names}
    out = ["API reference", "=============", "", INTRO, ""]
    pages: dict[str, list[str]] = {}
    for title, names in topics.items():
        out += _section(title) + _topic_body(title, names, top_level, toctree=False)
        pages[title] = _topic_body(title, names, top_level, toctree=True)
    submodules = [m for m in public_submodules() if m is not cowarray.debug]
    submodule_page: list[str] = []
    for module in submodules:
        title = f"``{module.__name__}``"
        out += [*_section(title), *_submodule_body(module, top_level, toctree=False)]
        submodule_page += [*_section(title), *_submodule_body(module, top_level, toctree=True)]
    pages["Submodules"] = submodule_page
    if dtypes:
        out += ["Data types", "----------", "", "NumPy dtype objects:", ""]
        out += [", ".join(f"``{n}``" for n in dtypes), ""]
    if constants:
        out += ["Constants", "---------", "", ".. list-table::", "", "   * - name", "     - value"]
        for name, value in constants:
            out += [f"   * - ``{name}``", f"     - ``{value!r}``"]
        out.append("")
    out += [".. toctree::", "   :hidden:", ""] + [f"   topic-{_slug(t)}" for t in pages] + [""]
    target = os.path.join(HERE, "api", "generated")
    os.makedirs(target, exist_ok=True)
    _write_if_changed(os.path.join(target, "reference.rst"), "\n".join(out))
    for title, body in pages.items():
        page = [title, "=" * len(title), "", *body]
        _write_if_changed(os.path.join(target, f"topic-{_slug(title)}.rst"), "\n".join(page))
    wanted = {f"topic-{_slug(title)}.rst" for title in pages}
    for stale in os.listdir(target):  # a topic that went away must not stay behind
        if stale.startswith("topic-") and stale not in wanted:
            os.remove(os.path.join(target, stale))
    _write_if_changed(os.path.join(target, "operators.rst"), operators_page())
    _write_if_changed(os.path.join(target, "at.rst"), at_page())


def operators_page() -> str:
    """The operators of an Array, each with its function and in-place form."""
    lines = [OPERATORS_PAGE]
    for method, written, function, in_place in OPERATORS:
        if not hasattr(cowarray.Array, method):
            continue
        lines += [
            f"   * - ``{written}``",
            f"     - :func:`{function}`",
            f"     - ``{in_place}``" if in_place else "     -",
        ]
    return "\n".join(lines) + "\n"


def _plain_signature(function: object) -> str:
    """``(values, *, mode=None)``: the signature without ``self`` and annotations."""
    signature = inspect.signature(function)  # type: ignore[arg-type]
    empty = inspect.Parameter.empty
    parameters = [
        p.replace(annotation=empty) for p in signature.parameters.values() if p.name != "self"
    ]
    return str(signature.replace(parameters=parameters, return_annotation=empty))


def at_page() -> str:
    """``x.at[index]`` and its methods, from their docstrings, under the names users write."""
    from numpydoc.docscrape_sphinx import SphinxDocString

    at_class = type(cowarray.zeros(1).at[0])
    lines = [AT_PAGE_HEAD, str(SphinxDocString(inspect.getdoc(at_class) or "")), ""]
    for name in AT_METHODS:
        method = getattr(at_class, name)
        signature = _plain_signature(method)
        doc = str(SphinxDocString(inspect.getdoc(method) or ""))
        lines += [
            f".. py:method:: Array.at.{name}{signature}",
            "",
            *[f"   {line}".rstrip() for line in doc.splitlines()],
            "",
        ]
    return "\n".join(lines)


def _write_if_changed(path: str, text: str) -> None:
    # Rewriting an unchanged page would make Sphinx rebuild it every time.
    if os.path.exists(path):
        with open(path) as f:
            if f.read() == text:
                return
    with open(path, "w") as f:
        f.write(text)


def draw_tutorial_pictures() -> None:
    """The tutorial's before/after-write pictures, drawn by running the page's own examples.

    The examples run in order, in one namespace, as the doctest does, until
    ``after`` exists; ``before`` and ``after`` are then written as SVG. So the
    drawings show the buffers under the names the page's text output gives.
    """
    with open(os.path.join(HERE, "tutorial.rst")) as f:
        examples = doctest.DocTestParser().get_examples(f.read(), "tutorial.rst")
    namespace: dict[str, object] = {}
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for example in examples:
            exec(compile(example.source, "<tutorial>", "single"), namespace)
            if "after" in namespace:
                break
    target = os.path.join(HERE, "_static")
    os.makedirs(target, exist_ok=True)
    for name in ("before", "after"):
        picture = namespace[name]
        assert isinstance(picture, cowarray.debug.SharingPicture)
        _write_if_changed(os.path.join(target, f"sharing_{name}.svg"), picture.to_svg())


write_api_listing()
draw_tutorial_pictures()
html_static_path = ["_static"]
html_css_files = ["cowarray.css"]
html_js_files = ["cowarray.js"]


def _picture_on_its_page(
    app: object, what: str, name: str, obj: object, options: object, lines: list[str]
) -> None:
    """Show a picture on the sharing_picture page; link the operators and .at pages."""
    if name == "cowarray.Array":
        lines += ["", "Its operators: :doc:`operators`; functional updates: :doc:`at`.", ""]
    if name == "cowarray.Array.at":
        lines += ["", "The methods and their modes: :doc:`at`.", ""]
    if name == "cowarray.sharing_picture":
        lines += [
            "",
            "The tutorial's picture, as a notebook shows it (the bar under each array is",
            "the part of its buffer it views). Before a write to ``clone``:",
            "",
            ".. image:: /_static/sharing_before.svg",
            "   :alt: a, clone and head share buffer D; total has buffer E",
            "",
            "After it, ``clone`` has a buffer of its own:",
            "",
            ".. image:: /_static/sharing_after.svg",
            "   :alt: after the write, clone has its own buffer F",
            "",
        ]


def setup(app: object) -> None:
    app.connect("autodoc-process-docstring", _picture_on_its_page)  # type: ignore[attr-defined]
