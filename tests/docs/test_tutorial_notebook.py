"""The tutorial's notebooks: rebuilt byte for byte from the pages, and they run.

``examples/make_notebook.py`` builds ``examples/tutorial.ipynb`` from
``docs/tutorial.rst`` and ``examples/tutorial_torch.ipynb`` from
``docs/tutorial_torch.rst`` (prose as Markdown cells, the examples as code
cells) and writes them executed. These tests run the script as a user
would, into a temporary folder, and compare what it writes with the
committed notebooks byte for byte: the pages, the cells and every output
are as committed. The first notebook needs nothing but the test extra: it
is also run in a kernel that cannot import torch. The torch notebook is
checked where torch is installed (CI installs its CPU build).

An example that prints a trace or a picture ends instead with the object
itself, so the notebook shows its ``_repr_html_`` or ``_repr_svg_``: the
tests check those, and that the trace's "where" column names the cell
(``In [5], line 2``).
"""

from __future__ import annotations

import doctest
import html
import importlib.util
import itertools
import os
import re
import subprocess
import sys
from typing import Any

import pytest

EXTRA = 'python -m pip install -e ".[test]"'
nbformat = pytest.importorskip("nbformat", reason=f"needs nbformat: {EXTRA}")
nbclient = pytest.importorskip("nbclient", reason=f"needs nbclient: {EXTRA}")
pytest.importorskip("ipykernel", reason=f"needs ipykernel: {EXTRA}")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "examples", "make_notebook.py")
SUMMARY = re.compile(r"\d+ events?, \d+ cop(y|ies), ")
REBUILD = "run `python examples/make_notebook.py` and commit the notebooks in examples/"
TORCH = importlib.util.find_spec("torch") is not None
NEEDS_TORCH = pytest.mark.skipif(
    not TORCH,
    reason="the tutorial's torch part needs torch, which the test extra leaves out;"
    " the CPU build: python -m pip install torch==2.13.0"
    " --index-url https://download.pytorch.org/whl/cpu",
)


def _load_maker() -> Any:
    spec = importlib.util.spec_from_file_location("make_notebook", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (its dataclass looks its module up there)
    spec.loader.exec_module(module)
    return module


make_notebook = _load_maker()
PAGES = {page.name: page for page in make_notebook.PAGES}
#: The notebooks this run can build: the torch one only where torch is.
BUILT = [
    pytest.param(name, marks=[NEEDS_TORCH] if "torch" in page.needs else [])
    for name, page in PAGES.items()
]


def _read(path: str) -> Any:
    with open(path, encoding="utf-8") as f:
        return nbformat.read(f, as_version=4)


def _first_difference(committed: Any, fresh: Any) -> str:
    """Where two notebooks differ, in a line: the first cell that does, or the metadata."""
    if committed.metadata != fresh.metadata:
        return f"metadata: {committed.metadata} != {fresh.metadata}"
    for number, (old, new) in enumerate(itertools.zip_longest(committed.cells, fresh.cells)):
        if old != new:
            source = (new or old).source.splitlines()[:1]
            return f"cell {number} ({source}) differs"
    return "the same cells, written otherwise"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The script run as a user runs it, into a temporary folder: each notebook's path."""
    folder = tmp_path_factory.mktemp("notebooks")
    result = subprocess.run(
        [sys.executable, SCRIPT, "--out", str(folder)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    if not TORCH:  # without torch it says so, how to get it, and writes the rest
        assert "skipped" in result.stdout and "download.pytorch.org/whl/cpu" in result.stdout
    return {name: str(folder / os.path.basename(page.notebook)) for name, page in PAGES.items()}


@pytest.mark.parametrize("name", PAGES)
def test_the_committed_notebook_is_built_from_its_page_as_it_is(name: str) -> None:
    fresh, _ = make_notebook.tutorial_notebook(PAGES[name])
    committed = _read(PAGES[name].notebook)
    assert [(c.cell_type, c.source) for c in committed.cells] == [
        (c.cell_type, c.source) for c in fresh.cells
    ], f"{PAGES[name].notebook} is out of date with {PAGES[name].source}: {REBUILD}"


@pytest.mark.parametrize("name", BUILT)
def test_the_script_writes_the_committed_notebook_byte_for_byte(
    built: dict[str, str], name: str
) -> None:
    committed_path = PAGES[name].notebook
    with open(built[name], "rb") as f, open(committed_path, "rb") as g:
        fresh, committed = f.read(), g.read()
    if fresh != committed:
        where = _first_difference(_read(committed_path), _read(built[name]))
        pytest.fail(f"{committed_path}: a rebuild differs ({where}): {REBUILD}")


@pytest.mark.skipif(not TORCH, reason="torch is absent here: the run above had none")
def test_the_tutorial_notebook_runs_the_same_where_torch_cannot_be_imported(
    tmp_path: Any,
) -> None:
    path = make_notebook.build(PAGES["tutorial"], str(tmp_path), without=("torch",))
    with open(path, "rb") as f, open(PAGES["tutorial"].notebook, "rb") as g:
        assert f.read() == g.read(), "examples/tutorial.ipynb must not need torch"


def test_a_kernel_built_without_a_module_cannot_import_it() -> None:
    cell = nbformat.v4.new_code_cell("import colorsys")  # (a standard module nothing else needs)
    cell.metadata["tags"] = ["raises-exception"]
    notebook = nbformat.v4.new_notebook(cells=[cell])
    make_notebook.execute(notebook, without=("colorsys",))
    (output,) = notebook.cells[0].outputs
    assert output.output_type == "error" and output.ename == "ModuleNotFoundError"


def test_the_kernel_is_this_pythons_whatever_kernels_jupyter_lists(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    spec = tmp_path / "kernels" / "python3"
    spec.mkdir(parents=True)
    broken = {
        "argv": ["/nonexistent/python", "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    }
    (spec / "kernel.json").write_text(
        json.dumps({**broken, "display_name": "x", "language": "python"})
    )
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))  # listed before the user's and the system's
    notebook = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell("import sys\nprint(sys.executable)")]
    )
    make_notebook.execute(notebook)
    assert notebook.cells[0].outputs[0].text.strip() == sys.executable


def _cells(built: dict[str, str], name: str) -> list[tuple[Any, doctest.Example]]:
    """The executed code cells of a notebook, each with the doctest example behind it."""
    _, examples = make_notebook.tutorial_notebook(PAGES[name])
    code = [c for c in _read(built[name]).cells if c.cell_type == "code"]
    return list(zip(code, examples, strict=True))


def _data(cell: object, kind: str) -> str | None:
    for output in cell.outputs:  # type: ignore[attr-defined]
        if output.output_type in ("execute_result", "display_data") and kind in output.data:
            return str(output.data[kind])
    return None


def _errors(cell: object) -> list[str]:
    return [
        f"{o.ename}: {o.evalue}"
        for o in cell.outputs  # type: ignore[attr-defined]
        if o.output_type == "error"
    ]


def _buffer_column(table: str) -> list[str]:
    """The buffer cells of a trace table as the tutorial prints it.

    The rows run from the header to the summary ("2 events, 1 copy, ...");
    the legend follows it.
    """
    header, *lines = table.splitlines()
    rows = list(itertools.takewhile(lambda line: not SUMMARY.match(line), lines))
    start = header.index("buffer")
    stop = header.index("where")
    return [row[start:stop].strip() for row in rows]


@pytest.mark.parametrize("name", BUILT)
def test_every_example_runs_in_a_kernel(built: dict[str, str], name: str) -> None:
    for cell, example in _cells(built, name):
        expected_error = "raises-exception" in cell.metadata.get("tags", [])
        assert bool(_errors(cell)) == expected_error, (example.source, _errors(cell))
        # as the page shows it: the error's last line, never frames of cowarray's source
        for output in cell.outputs:
            if output.output_type == "error":
                assert output.traceback == [f"{output.ename}: {output.evalue}"]
                # (the page may wrap a long message: NORMALIZE_WHITESPACE)
                assert example.exc_msg is not None
                assert " ".join(output.evalue.split()) in " ".join(example.exc_msg.split())


@pytest.mark.parametrize("name", BUILT)
def test_a_trace_shows_as_an_html_table_that_names_the_cell_and_the_buffers(
    built: dict[str, str], name: str
) -> None:
    traces = [(c, e) for c, e in _cells(built, name) if e.want.startswith("#  event")]
    assert len(traces) >= 4
    for cell, example in traces:
        table = _data(cell, "text/html")
        assert table is not None and table.startswith('<table class="cowarray-trace"'), cell
        assert "<th" in table
        # The same letters as the page prints: one name per buffer, kernel or doctest.
        for buffer in _buffer_column(example.want):
            assert f">{html.escape(buffer)}</td>" in table, (buffer, table)
        # The block traced is in the cell that shows the trace, or an earlier
        # one that defined the function it called.
        cells = [int(n) for n in re.findall(r"<td[^>]*>In \[(\d+)\], line \d+</td>", table)]
        assert len(cells) == table.count("<tr>") - 1, table  # every row names a cell
        assert max(cells) <= cell.execution_count, table
        assert "ipykernel" not in table


def test_the_before_and_after_pictures_show_as_svg_with_slice_regions(
    built: dict[str, str],
) -> None:
    pictures = {
        c.source.rsplit("\n", 1)[-1]: c
        for c, _ in _cells(built, "tutorial")
        if c.source.endswith(("\nbefore", "\nafter"))
    }
    assert set(pictures) == {"before", "after"}
    for name, cell in pictures.items():
        svg = _data(cell, "image/svg+xml")
        assert svg is not None and svg.startswith("<svg"), name
        assert svg.count('<g class="array">') == 4 and '<g class="region">' in svg
    assert "buffer F (private)" in str(_data(pictures["after"], "image/svg+xml"))
    assert "buffer F" not in str(_data(pictures["before"], "image/svg+xml"))


@pytest.mark.parametrize("name", PAGES)
def test_what_the_prose_introduces_with_a_colon_follows_it(name: str) -> None:
    """A paragraph that ends with ":" is followed by code: a fenced block, or the
    next cell. (The page's pictures are left out of the notebook, whose cells
    draw them: no "Before the write:" may be left with nothing after it.)"""
    cells = make_notebook.tutorial_notebook(PAGES[name])[0].cells
    for number, cell in enumerate(cells):
        if cell.cell_type != "markdown":
            continue
        paragraphs = [p for p in re.split(r"\n\s*\n", cell.source) if p.strip()]
        for place, paragraph in enumerate(paragraphs):
            if not paragraph.rstrip().endswith(":"):
                continue
            if place + 1 < len(paragraphs):
                assert paragraphs[place + 1].startswith("```"), (number, paragraph)
            else:
                following = cells[number + 1] if number + 1 < len(cells) else None
                assert following is not None and following.cell_type == "code", (number, paragraph)


def test_cow_info_shows_as_an_html_table_naming_the_buffer_by_its_letter(
    built: dict[str, str],
) -> None:
    info = next(c for c, e in _cells(built, "tutorial") if e.source == "ca.cow_info(x)\n")
    table = _data(info, "text/html")
    assert table is not None and 'class="cowarray-cow-info"' in table
    assert ">A</td>" in table and ">shared<" in table
    assert "buffer_id" not in str(_data(info, "text/plain"))  # the letter, not a number


def test_out_keeps_a_displayed_array_alive_and_a_semicolon_does_not() -> None:
    """What the tutorial says of ``Out``: ``del`` frees a clone only if it was not displayed."""
    write = (
        "with ca.trace() as t:\n    x[0] = 1.0\nprint(t.count('materialize'), t.count('takeover'))"
    )
    cells = [
        "import cowarray as ca\nx = ca.zeros(10)",
        "z = ca.lazy_clone(x)\nz",  # displayed: Out keeps it
        "del z",
        write,
        "z = ca.lazy_clone(x)\nz;",  # not displayed
        "del z",
        write,
    ]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    make_notebook.execute(notebook)
    printed = [
        o.text.strip() for c in notebook.cells for o in c.outputs if o.output_type == "stream"
    ]
    assert printed == ["1 0", "0 1"]


def test_a_warning_a_page_does_not_show_stops_the_build() -> None:
    notebook = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell("import warnings\nwarnings.warn('unseen')")]
    )
    make_notebook.execute(notebook)
    with pytest.raises(RuntimeError, match="cell 0 wrote to stderr"):
        make_notebook.settled(notebook)
