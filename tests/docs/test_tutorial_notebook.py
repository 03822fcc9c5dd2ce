"""The tutorial, run as a notebook: its traces, pictures and CowInfo display richly.

The notebook is built from ``docs/tutorial.rst`` (prose as Markdown cells, each
example as a code cell) and executed in a real IPython kernel with nbclient,
as a user's notebook would be. An example that prints a trace or a picture
ends instead with the object itself, so the notebook shows its
``_repr_html_`` or ``_repr_svg_``: the test checks those, and that the
trace's "where" column names the cell (``In [5], line 2``).
"""

from __future__ import annotations

import doctest
import html
import os
import re

import pytest

nbformat = pytest.importorskip("nbformat", reason="needs nbformat (the test extra)")
nbclient = pytest.importorskip("nbclient", reason="needs nbclient (the test extra)")
pytest.importorskip("ipykernel", reason="needs ipykernel (the test extra)")
pytest.importorskip("torch", reason="the tutorial's torch section needs torch (the test extra)")

DOCS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(__file__))), "docs")
SHOWN = re.compile(r"print\((\w+)\)\n")  # print(t) -> t: the notebook displays it
DIRECTIVE = re.compile(r"\s*# doctest:.*$", re.MULTILINE)


def _notebook() -> tuple[object, list[doctest.Example]]:
    """The tutorial as a notebook, and the doctest example behind each code cell."""
    with open(os.path.join(DOCS, "tutorial.rst")) as f:
        pieces = doctest.DocTestParser().parse(f.read(), "tutorial.rst")
    cells, examples = [], []
    for piece in pieces:
        if isinstance(piece, str):
            if piece.strip():
                cells.append(nbformat.v4.new_markdown_cell(piece.strip()))
            continue
        shown = SHOWN.fullmatch(piece.source)
        source = DIRECTIVE.sub("", piece.source).rstrip("\n")  # doctest's, not the reader's
        cell = nbformat.v4.new_code_cell(shown.group(1) if shown else source)
        if piece.want.startswith("Traceback") or piece.exc_msg:
            cell.metadata["tags"] = ["raises-exception"]
        cells.append(cell)
        examples.append(piece)
    return nbformat.v4.new_notebook(cells=cells), examples


@pytest.fixture(scope="module")
def executed() -> list[tuple[object, doctest.Example]]:
    notebook, examples = _notebook()
    client = nbclient.NotebookClient(notebook, timeout=60, kernel_name="python3")
    client.execute()
    code = [c for c in notebook.cells if c.cell_type == "code"]
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
    """The buffer cells of a trace table as the tutorial prints it."""
    header, *rows = table.splitlines()[:-1]
    start = header.index("buffer")
    stop = header.index("where")
    return [row[start:stop].strip() for row in rows]


def test_every_example_runs_in_a_kernel(executed: list[tuple[object, doctest.Example]]) -> None:
    for cell, example in executed:
        expected_error = "raises-exception" in cell.metadata.get("tags", [])  # type: ignore[attr-defined]
        assert bool(_errors(cell)) == expected_error, (example.source, _errors(cell))


def test_a_trace_shows_as_an_html_table_that_names_the_cell_and_the_buffers(
    executed: list[tuple[object, doctest.Example]],
) -> None:
    traces = [(c, e) for c, e in executed if e.want.startswith("#  event")]
    assert len(traces) > 10
    counts = {id(e): c.execution_count for c, e in executed}  # type: ignore[attr-defined]
    examples = [e for _, e in executed]
    for cell, example in traces:
        table = _data(cell, "text/html")
        assert table is not None and table.startswith('<table class="cowarray-trace"'), cell
        assert "<th" in table and ">copied</th>" in table and ">concerned</th>" in table
        # The same letters as the page prints: one name per buffer, kernel or doctest.
        for buffer in _buffer_column(example.want):
            assert f">{html.escape(buffer)}</td>" in table, (buffer, table)
        # The block traced is the example before the print(t): its cell, or
        # an earlier one that defined the function it called.
        traced = examples[examples.index(example) - 1]
        cells = [int(n) for n in re.findall(r"<td[^>]*>In \[(\d+)\], line \d+</td>", table)]
        assert len(cells) == table.count("<tr>") - 1, table  # every row names a cell
        assert max(cells) <= counts[id(traced)], table
        assert "ipykernel" not in table


def test_the_before_and_after_pictures_show_as_svg_with_slice_regions(
    executed: list[tuple[object, doctest.Example]],
) -> None:
    pictures = {c.source: c for c, _ in executed if c.source in ("before", "after")}  # type: ignore[attr-defined]
    assert set(pictures) == {"before", "after"}
    for name, cell in pictures.items():
        svg = _data(cell, "image/svg+xml")
        assert svg is not None and svg.startswith("<svg"), name
        assert svg.count('<g class="array">') == 4 and '<g class="region">' in svg
    assert "buffer F (private)" in str(_data(pictures["after"], "image/svg+xml"))
    assert "buffer F" not in str(_data(pictures["before"], "image/svg+xml"))


def test_cow_info_shows_as_an_html_table(executed: list[tuple[object, doctest.Example]]) -> None:
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
    nbclient.NotebookClient(notebook, timeout=60, kernel_name="python3").execute()
    printed = [
        o.text.strip() for c in notebook.cells for o in c.outputs if o.output_type == "stream"
    ]
    assert printed == ["1 0", "0 1"]
