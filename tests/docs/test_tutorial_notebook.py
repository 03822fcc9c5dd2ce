"""The tutorial's notebook, ``examples/tutorial.ipynb``: in sync with the page, and it runs.

``examples/make_notebook.py`` builds the notebook from ``docs/tutorial.rst``
(prose as Markdown cells, the examples as code cells) and writes it executed.
These tests check that the committed notebook is what the script makes from
the page today, then execute it in a real IPython kernel with nbclient, as a
user's notebook would be, and compare its outputs with the committed ones.
An example that prints a trace or a picture ends instead with the object
itself, so the notebook shows its ``_repr_html_`` or ``_repr_svg_``: the
tests check those, and that the trace's "where" column names the cell
(``In [5], line 2``).
"""

from __future__ import annotations

import copy
import doctest
import html
import importlib.util
import itertools
import os
import re
from typing import Any

import pytest

EXTRA = 'python -m pip install -e ".[test]"'
nbformat = pytest.importorskip("nbformat", reason=f"needs nbformat: {EXTRA}")
nbclient = pytest.importorskip("nbclient", reason=f"needs nbclient: {EXTRA}")
pytest.importorskip("ipykernel", reason=f"needs ipykernel: {EXTRA}")
pytest.importorskip(
    "torch",
    reason="the tutorial's torch section needs torch, which the test extra leaves out;"
    " the CPU build: python -m pip install torch==2.13.0"
    " --index-url https://download.pytorch.org/whl/cpu",
)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SUMMARY = re.compile(r"\d+ events?, \d+ cop(y|ies), ")
REBUILD = "run `python examples/make_notebook.py` and commit examples/tutorial.ipynb"


def _load_maker() -> Any:
    spec = importlib.util.spec_from_file_location(
        "make_notebook", os.path.join(ROOT, "examples", "make_notebook.py")
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


make_notebook = _load_maker()


def _committed() -> Any:
    with open(make_notebook.NOTEBOOK, encoding="utf-8") as f:
        return nbformat.read(f, as_version=4)


def test_the_committed_notebook_is_built_from_the_tutorial_as_it_is() -> None:
    fresh, _ = make_notebook.tutorial_notebook()
    committed = _committed()
    assert [(c.cell_type, c.source) for c in committed.cells] == [
        (c.cell_type, c.source) for c in fresh.cells
    ], f"examples/tutorial.ipynb is out of date with docs/tutorial.rst: {REBUILD}"


def test_the_committed_notebook_has_the_outputs_of_a_run() -> None:
    code = [c for c in _committed().cells if c.cell_type == "code"]
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1)), REBUILD


#: What changes from one run to the next: kernel file names, addresses, buffer ids.
VOLATILE = (
    (re.compile(r"/tmp/ipykernel_\d+/\d+\.py|/[^\s\"']*?/ipykernel_\d+/\d+\.py"), "<cell>"),
    (re.compile(r"0x[0-9a-f]+"), "0x..."),
    (re.compile(r"buffer_id=\d+|\(id \d+\)"), "<id>"),
)


def _normalized(outputs: list[Any]) -> list[str]:
    texts = []
    for output in outputs:
        if output.output_type == "stream":
            text = output.text
        elif output.output_type == "error":
            text = f"{output.ename}: {output.evalue}"
        else:
            text = repr(sorted(output.data.items()))
        for pattern, replacement in VOLATILE:
            text = pattern.sub(replacement, text)
        texts.append(text)
    return texts


@pytest.fixture(scope="module")
def executed() -> list[tuple[Any, doctest.Example]]:
    _, examples = make_notebook.tutorial_notebook()
    notebook = make_notebook.execute(copy.deepcopy(_committed()))
    code = [c for c in notebook.cells if c.cell_type == "code"]
    return list(zip(code, examples, strict=True))


def test_a_run_gives_the_committed_outputs(executed: list[tuple[Any, doctest.Example]]) -> None:
    committed = [c for c in _committed().cells if c.cell_type == "code"]
    for cell, old in zip((c for c, _ in executed), committed, strict=True):
        assert _normalized(cell.outputs) == _normalized(old.outputs), (cell.source, REBUILD)


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


def test_every_example_runs_in_a_kernel(executed: list[tuple[Any, doctest.Example]]) -> None:
    for cell, example in executed:
        expected_error = "raises-exception" in cell.metadata.get("tags", [])  # type: ignore[attr-defined]
        assert bool(_errors(cell)) == expected_error, (example.source, _errors(cell))


def test_a_trace_shows_as_an_html_table_that_names_the_cell_and_the_buffers(
    executed: list[tuple[Any, doctest.Example]],
) -> None:
    traces = [(c, e) for c, e in executed if e.want.startswith("#  event")]
    assert len(traces) > 10
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
    executed: list[tuple[Any, doctest.Example]],
) -> None:
    pictures = {
        c.source.rsplit("\n", 1)[-1]: c
        for c, _ in executed
        if c.source.endswith(("\nbefore", "\nafter"))
    }
    assert set(pictures) == {"before", "after"}
    for name, cell in pictures.items():
        svg = _data(cell, "image/svg+xml")
        assert svg is not None and svg.startswith("<svg"), name
        assert svg.count('<g class="array">') == 4 and '<g class="region">' in svg
    assert "buffer F (private)" in str(_data(pictures["after"], "image/svg+xml"))
    assert "buffer F" not in str(_data(pictures["before"], "image/svg+xml"))


def test_cow_info_shows_as_an_html_table(executed: list[tuple[Any, doctest.Example]]) -> None:
    info = next(c for c, e in executed if e.source == "ca.cow_info(x)  # doctest: +ELLIPSIS\n")
    table = _data(info, "text/html")
    assert table is not None and 'class="cowarray-cow-info"' in table
    assert "A (id " in table and ">shared<" in table


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
