"""Write the tutorial's notebooks from its pages, ``docs/tutorial.rst`` and ``tutorial_torch.rst``.

Run it after changing the tutorial (or what cowarray prints)::

    python examples/make_notebook.py             # both notebooks (the torch one where torch is)
    python examples/make_notebook.py --out DIR   # into DIR instead of examples/
    python examples/make_notebook.py --without torch   # the kernels cannot import torch

``examples/tutorial.ipynb`` needs nothing but cowarray and the test extra's
notebook runner; ``examples/tutorial_torch.ipynb``, the torch part, needs
torch: without it, it is left as it is, with a note that says how to get
torch. ``tests/docs/test_tutorial_notebook.py`` runs this script into a
temporary folder and compares each notebook it writes, byte for byte, with
the committed one.

The doctest examples of a page become code cells (a run of examples that
print nothing until the last is one cell) and the prose between them Markdown
cells. An example that prints a trace or a picture (``print(t)``) ends
instead with the object itself, so the notebook shows it as a table or a
drawing. The notebook is then executed in a fresh IPython kernel (nbclient)
and written with its outputs, made the same on every run and every machine:

- the kernel is this Python's, with an empty IPython profile (a reader's
  Jupyter kernels, startup files and settings change nothing);
- an error shows as its last line, as the page shows it: the frames of a
  traceback name lines inside cowarray and the kernel's file names, which
  change with every edit and every run;
- the notebook's metadata names Python, not its version;
- a cell that writes to stderr (a warning the page does not show: a doctest
  shows no warnings) stops the build, naming the cell.
"""

from __future__ import annotations

import argparse
import doctest
import importlib.util
import json
import os
import re
import sys
import tempfile
from dataclasses import dataclass
from typing import Any

import nbformat

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@dataclass(frozen=True)
class Page:
    """A tutorial page and the notebook made from it."""

    name: str  # the page's name in the docs (``docs/<name>.rst``), and the notebook's
    needs: tuple[str, ...] = ()  # modules beyond cowarray's install and its test extra

    @property
    def source(self) -> str:
        return os.path.join(ROOT, "docs", f"{self.name}.rst")

    @property
    def notebook(self) -> str:
        return os.path.join(ROOT, "examples", f"{self.name}.ipynb")


PAGES = (Page("tutorial"), Page("tutorial_torch", needs=("torch",)))
#: How to get what a page needs (the README's words).
HOW_TO_GET = {
    "torch": "its CPU build: python -m pip install torch==2.13.0"
    " --index-url https://download.pytorch.org/whl/cpu",
}

SHOWN = re.compile(r"print\((\w+)\)\n")  # print(t) -> t: the notebook displays it
DIRECTIVE = re.compile(r"\s*# doctest:.*$", re.MULTILINE)
HEADING = re.compile(r"^(?P<title>\S.*)\n(?P<line>[=\-~^])(?P=line)+$", re.MULTILINE)
DOC = re.compile(r":doc:`(?:(?P<title>[^`<]+?)\s*<(?P<target>[^>]+)>|(?P<page>[^`]+))`")
ROLE = re.compile(r":(?:func|class|meth|attr|data|mod):`~?([^`<]+?)(?:\s*<[^>]+>)?`")
#: An image or a figure, with its options and caption: the drawings are the cells' own output.
PICTURE = re.compile(r"^\.\. (?:image|figure):: .*\n(?:   .*\n|\n(?=   ))*", re.MULTILINE)
CODE_BLOCK = re.compile(r"^\.\. code-block:: (\w+)\n\n((?:   .*\n|\n(?=   ))+)", re.MULTILINE)
FIRST_CELL = """\
*This notebook is generated from a page of the documentation, `docs/{name}.rst`,
by `examples/make_notebook.py`; run the cells in order. Traces show as tables
and pictures as drawings here.*"""
KERNEL_METADATA = {
    "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
    "language_info": {"name": "python"},
}


def _titles() -> dict[str, str]:
    """Each page's title, by its name."""
    titles = {}
    for page in PAGES:
        with open(page.source, encoding="utf-8") as f:
            titles[page.name] = f.readline().strip()
    return titles


def _link(match: re.Match[str]) -> str:
    """A :doc: link as words: the page's title, and its notebook where it has one.

    (Not a Markdown link: the documentation shows ``tutorial.ipynb`` too,
    where a link to another notebook would point at no page.)
    """
    target = match["target"] or match["page"]
    title = match["title"] or _titles().get(target, target)
    if any(page.name == target for page in PAGES):
        return f"*{title}* (the notebook `{target}.ipynb`)"
    return f"*{title}* (in the documentation)"


def _fenced(match: re.Match[str]) -> str:
    code = "\n".join(line[3:] for line in match[2].rstrip("\n").split("\n"))
    return f"```{match[1]}\n{code}\n```\n"


def markdown(rst: str) -> str:
    """The tutorial's reStructuredText prose as Markdown (the few constructs it uses)."""
    levels = {"=": "#", "-": "##", "~": "###", "^": "####"}
    text = HEADING.sub(lambda m: f"{levels[m['line']]} {m['title']}", rst)
    text = PICTURE.sub("", text)
    blocks: list[str] = []  # code blocks stay as they are: set aside while the prose changes

    def aside(match: re.Match[str]) -> str:
        blocks.append(_fenced(match))
        return f"\0{len(blocks) - 1}\0"

    text = CODE_BLOCK.sub(aside, text)
    text = DOC.sub(_link, text)
    text = ROLE.sub(r"``\1``", text)
    text = re.sub(r"``(.+?)``", r"`\1`", text, flags=re.DOTALL)
    text = re.sub(r"\0(\d+)\0", lambda m: blocks[int(m[1])], text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def _joins(previous: Any, examples: list[doctest.Example]) -> bool:
    """Whether the next example continues the previous code cell (its example printed nothing)."""
    if previous is None or previous.cell_type != "code":
        return False
    return not examples[-1].want and not examples[-1].exc_msg


def tutorial_notebook(page: Page = PAGES[0]) -> tuple[Any, list[doctest.Example]]:
    """A page as an unexecuted notebook, and the doctest example behind each code cell.

    Consecutive examples join one cell when those before the last print
    nothing; the example given for a cell is its last one, whose output the
    cell shows.
    """
    with open(page.source, encoding="utf-8") as f:
        pieces = doctest.DocTestParser().parse(f.read(), os.path.basename(page.source))
    cells: list[Any] = []
    examples: list[doctest.Example] = []
    for piece in pieces:
        if isinstance(piece, str):
            text = markdown(piece)
            if not cells:  # the title, then where the notebook comes from, first thing
                text = re.sub(r"^# (.*)", r"# \1: the notebook", text, count=1)
                title, _, rest = text.partition("\n")
                first = FIRST_CELL.format(name=page.name)
                cells.append(nbformat.v4.new_markdown_cell(f"{title}\n\n{first}"))
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
    notebook.metadata = nbformat.from_dict(KERNEL_METADATA)
    for number, cell in enumerate(notebook.cells):
        cell.id = f"cell-{number}"  # stable ids: a rebuild changes only what changed
    return notebook, examples


def _profile(folder: str, without: tuple[str, ...]) -> None:
    """An empty IPython profile in ``folder``; with ``without``, a startup file that hides them."""
    startup = os.path.join(folder, "profile_default", "startup")
    os.makedirs(startup)
    if without:
        with open(os.path.join(startup, "00-without.py"), "w", encoding="utf-8") as f:
            f.write(f"import sys\nsys.modules.update(dict.fromkeys({list(without)!r}))\n")


def _kernel(folder: str) -> Any:
    """A manager for an IPython kernel run by this Python, whatever kernels Jupyter lists
    (a ``python3`` of the reader's own would run another environment)."""
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager

    spec = os.path.join(folder, "kernels", "this-python")
    os.makedirs(spec)
    with open(os.path.join(spec, "kernel.json"), "w", encoding="utf-8") as f:
        json.dump(
            {
                "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": "Python 3",
                "language": "python",
            },
            f,
        )
    specs = KernelSpecManager(kernel_dirs=[os.path.dirname(spec)])
    return KernelManager(kernel_name="this-python", kernel_spec_manager=specs)


def execute(notebook: Any, cwd: str = ROOT, without: tuple[str, ...] = ()) -> Any:
    """Run every cell in a fresh IPython kernel of this Python, in order; return the
    notebook with outputs.

    The kernel has an empty profile; ``without`` names modules it cannot
    import (as if they were not installed).
    """
    import nbclient

    with tempfile.TemporaryDirectory(prefix="cowarray-ipython-") as folder:
        _profile(folder, without)
        client = nbclient.NotebookClient(
            notebook,
            km=_kernel(folder),
            timeout=120,
            record_timing=False,
            resources={"metadata": {"path": cwd}},
        )
        client.execute(env={**os.environ, "IPYTHONDIR": folder})
    return notebook


def settled(notebook: Any) -> Any:
    """The executed ``notebook`` with what changes between runs and machines taken out.

    Raises RuntimeError for a cell that wrote to stderr: a warning the page
    does not show (module docstring).
    """
    notebook.metadata = nbformat.from_dict(KERNEL_METADATA)  # nbclient adds Python's version
    for number, cell in enumerate(notebook.cells):
        for output in cell.get("outputs", []):
            if output.output_type == "stream" and output.name == "stderr":
                raise RuntimeError(
                    f"cell {number} wrote to stderr, which its page does not show "
                    f"(a doctest shows no warnings):\n{cell.source}\n---\n{output.text}"
                    "Catch the warning in the example, or write the example so that it "
                    "does not warn"
                )
            if output.output_type == "error":
                output.traceback = [f"{output.ename}: {output.evalue}"]
    return notebook


def build(page: Page, folder: str, without: tuple[str, ...] = ()) -> str:
    """Make ``page``'s notebook, run it and write it into ``folder``; return its path."""
    notebook, _ = tutorial_notebook(page)
    settled(execute(notebook, without=without))
    path = os.path.join(folder, os.path.basename(page.notebook))
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        nbformat.write(notebook, f)
    return path


def missing(page: Page, without: tuple[str, ...] = ()) -> list[str]:
    """What ``page`` needs that cannot be imported here (or is hidden by ``without``)."""
    return [m for m in page.needs if m in without or importlib.util.find_spec(m) is None]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="the folder to write into (default: examples/)")
    parser.add_argument(
        "--without",
        action="append",
        default=[],
        metavar="MODULE",
        help="run the kernels as if MODULE were not installed (repeatable)",
    )
    arguments = parser.parse_args(argv)
    folder = arguments.out or os.path.join(ROOT, "examples")
    without = tuple(arguments.without)
    for page in PAGES:
        target = os.path.join(folder, os.path.basename(page.notebook))
        shown = os.path.relpath(target, ROOT) if arguments.out is None else target
        absent = missing(page, without)
        if absent:
            hints = "; ".join(f"{m}: {HOW_TO_GET.get(m, 'install it')}" for m in absent)
            print(f"skipped {shown}: its page needs {', '.join(absent)} ({hints})")
            continue
        build(page, folder, without)
        with open(target, encoding="utf-8") as f:
            count = len(nbformat.read(f, as_version=4).cells)
        print(f"wrote {shown}: {count} cells")
    return 0


if __name__ == "__main__":
    sys.exit(main())
