"""Write ``examples/tutorial.ipynb`` from the tutorial's source, ``docs/tutorial.rst``.

Run it after changing the tutorial (or what cowarray prints)::

    python examples/make_notebook.py

The doctest examples of the page become code cells (a run of examples that
print nothing until the last is one cell) and the prose between them Markdown
cells. An example that prints a trace or a picture
(``print(t)``) ends instead with the object itself, so the notebook shows it
as a table or a drawing. The notebook is then executed in a fresh IPython
kernel (nbclient) and written with its outputs; ``tests/docs/test_tutorial_notebook.py``
executes it again and checks that it is in sync with the page.
"""

from __future__ import annotations

import doctest
import os
import re
import sys
from typing import Any

import nbformat

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TUTORIAL = os.path.join(ROOT, "docs", "tutorial.rst")
NOTEBOOK = os.path.join(ROOT, "examples", "tutorial.ipynb")

SHOWN = re.compile(r"print\((\w+)\)\n")  # print(t) -> t: the notebook displays it
DIRECTIVE = re.compile(r"\s*# doctest:.*$", re.MULTILINE)
HEADING = re.compile(r"^(?P<title>\S.*)\n(?P<line>[=\-~^])(?P=line)+$", re.MULTILINE)
ROLE = re.compile(r":(?:func|class|meth|attr|data|mod|doc):`~?([^`<]+?)(?:\s*<[^>]+>)?`")
IMAGE = re.compile(r"^\.\. image:: .*\n(?:   .*\n?)*", re.MULTILINE)
FIRST_CELL = """\
*This notebook is generated from the tutorial page of the documentation by
`examples/make_notebook.py`; run the cells in order. Traces show as tables
and pictures as drawings here.*"""


def markdown(rst: str) -> str:
    """The tutorial's reStructuredText prose as Markdown (the few constructs it uses)."""
    levels = {"=": "#", "-": "##", "~": "###", "^": "####"}
    text = HEADING.sub(lambda m: f"{levels[m['line']]} {m['title']}", rst)
    text = ROLE.sub(r"``\1``", text)
    text = IMAGE.sub("", text)  # the pictures are the cells' own output here
    text = re.sub(r"``(.+?)``", r"`\1`", text, flags=re.DOTALL)
    return text.strip()


def _joins(previous: Any, examples: list[doctest.Example]) -> bool:
    """Whether the next example continues the previous code cell (its example printed nothing)."""
    if previous is None or previous.cell_type != "code":
        return False
    return not examples[-1].want and not examples[-1].exc_msg


def tutorial_notebook() -> tuple[Any, list[doctest.Example]]:
    """The tutorial as an unexecuted notebook, and the doctest example behind each code cell.

    Consecutive examples join one cell when those before the last print
    nothing; the example given for a cell is its last one, whose output the
    cell shows.
    """
    with open(TUTORIAL, encoding="utf-8") as f:
        pieces = doctest.DocTestParser().parse(f.read(), "tutorial.rst")
    cells: list[Any] = []
    examples: list[doctest.Example] = []
    for piece in pieces:
        if isinstance(piece, str):
            text = markdown(piece)
            if not cells:  # the title, then where the notebook comes from, first thing
                text = re.sub(r"^# (.*)", r"# \1: the notebook", text, count=1)
                title, _, rest = text.partition("\n")
                cells.append(nbformat.v4.new_markdown_cell(f"{title}\n\n{FIRST_CELL}"))
                text = rest.strip()
            if text:
                cells.append(nbformat.v4.new_markdown_cell(text))
            continue
        shown = SHOWN.fullmatch(piece.source)
        source = DIRECTIVE.sub("", piece.source).rstrip("\n")  # doctest's, not the reader's
        source = shown.group(1) if shown else source
        previous = cells[-1] if cells else None
        if _joins(previous, examples):
            # Examples with no output in between read as one cell, as a user writes it.
            previous.source += "\n" + source
            examples[-1] = piece
        else:
            cells.append(nbformat.v4.new_code_cell(source))
            examples.append(piece)
        if piece.want.startswith("Traceback") or piece.exc_msg:
            cells[-1].metadata["tags"] = ["raises-exception"]
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    for number, cell in enumerate(notebook.cells):
        cell.id = f"cell-{number}"  # stable ids: a rebuild changes only what changed
    return notebook, examples


def execute(notebook: Any, cwd: str = ROOT) -> Any:
    """Run every cell in a fresh IPython kernel, in order; return the notebook with outputs."""
    import nbclient

    client = nbclient.NotebookClient(
        notebook,
        timeout=120,
        kernel_name="python3",
        record_timing=False,
        resources={"metadata": {"path": cwd}},
    )
    client.execute()
    return notebook


def main() -> int:
    notebook, _ = tutorial_notebook()
    execute(notebook)
    with open(NOTEBOOK, "w", encoding="utf-8") as f:
        nbformat.write(notebook, f)
    print(f"wrote {os.path.relpath(NOTEBOOK, ROOT)}: {len(notebook.cells)} cells")
    return 0


if __name__ == "__main__":
    sys.exit(main())
