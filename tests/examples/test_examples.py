"""Each script in examples/ runs and prints what it promises."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "examples")


def run(name: str) -> str:
    env = dict(os.environ, PYTHONPATH=ROOT)
    result = subprocess.run(
        [sys.executable, os.path.join(EXAMPLES, name)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "ViewWriteWarning" not in result.stderr  # the examples write views on purpose only
    return result.stdout


def line_of(name: str, statement: str) -> int:
    """The line number of the (unique) line of an example that contains ``statement``."""
    with open(os.path.join(EXAMPLES, name)) as f:
        hits = [n for n, line in enumerate(f, 1) if statement in line]
    assert len(hits) == 1, (statement, hits)
    return hits[0]


def rows(output: str) -> list[list[str]]:
    return [line.split() for line in output.splitlines()]


def test_quickstart_shows_values_sharing_and_the_trace() -> None:
    out = run("quickstart.py")
    assert "clone shares x's buffer: True" in out
    assert "clone[:3]  = [0. 1. 2.] (kept its values)" in out
    assert "window[:3] = [-1. -1. -1.]" in out
    assert "| same buffer after the write: True" in out
    # The two cow_info lines name x's first buffer A and the window's B; x's
    # copy, traced below, is the third buffer shown: C.
    assert "CowInfo(holders=3, state='shared', buffer='A'" in out
    assert "CowInfo(holders=1, state='private', buffer='B'" in out
    table = rows(out)
    where = f"quickstart.py:{line_of('quickstart.py', 'head[0] = 0.0')}"
    copied = ["copied", "before", "a", "write"]
    assert [
        "4",
        *copied,
        "800",
        "bytes",
        "800",
        "bytes",
        "(100,)",
        "float64",
        "C",
        "->",
        "D",
        where,
    ] in table
    where = f"quickstart.py:{line_of('quickstart.py', 'x[2] = 3.0')}"
    assert [
        "5",
        *copied,
        "8.0",
        "MB",
        "8.0",
        "MB",
        "(1000000,)",
        "float64",
        "C",
        "->",
        "E",
        where,
    ] in table
    where = f"quickstart.py:{line_of('quickstart.py', 'head = ca.lazy_clone(snapshot[:100])')}"
    shared_twice = [
        "2-3",
        "shared,",
        "no",
        "copy",
        "(x2)",
        "-",
        "800",
        "bytes",
        "(100,)",
        "float64",
    ]
    assert [*shared_twice, "C", where] in table
    assert "5 events, 2 copies, 8000800 bytes copied (8.0 MB)" in out
    # slice (80) + x (8 MB) earlier, then the traced 800 + 8 MB
    assert "copies since start: CopyCounters(copies=4, bytes_copied=16000880)" in out


def test_trace_walkthrough_shows_each_rule_at_the_line_that_caused_it() -> None:
    name = "trace_walkthrough.py"
    out = run(name)
    sections = out.split("\n== ")[1:]
    assert len(sections) == 6
    clone, write, region, last, numpy, warn = (rows(s) for s in sections)
    # One name per buffer for the whole run: data is A, then B after its copy.
    share_line = line_of(name, "backup = ca.lazy_clone(data)")
    shared = ["shared,", "no", "copy"]
    assert [
        "1",
        *shared,
        "-",
        "800.0",
        "kB",
        "(100000,)",
        "float64",
        "A",
        f"{name}:{share_line}",
    ] in clone
    assert ["buffer", "A:", "shared,", "2", "holders,", "800.0", "kB"] in clone
    where = f"{name}:{line_of(name, 'data *= 2.0')}"
    copied = ["copied", "before", "a", "write", "800.0", "kB", "800.0", "kB"]
    assert [
        "1",
        *copied,
        "(100000,)",
        "float64",
        "A",
        "->",
        "B",
        where,
    ] in write
    assert "1 event, 1 copy, 800000 bytes copied (800.0 kB)" in sections[1]
    where = f"{name}:{line_of(name, 'first[:] = -1.0')}"
    copied_40 = ["copied", "before", "a", "write", "40", "bytes", "40", "bytes"]
    assert ["3", *copied_40, "(5,)", "float64", "A", "->", "C", where] in region
    where = f"{name}:{line_of(name, 'first = ca.lazy_clone(backup[:5])')}"
    assert ["1-2", *shared, "(x2)", "-", "40", "bytes", "(5,)", "float64", "A", where] in region
    where = f"{name}:{line_of(name, 'data[0] = 100.0')}"
    in_place = ["written", "in", "place", "-", "800.0", "kB"]
    assert ["1", *in_place, "(100000,)", "float64", "B", where] in last
    assert "data[1] is now 200.0 | kept[1] is still 2.0" in sections[4]
    where = f"{name}:{line_of(name, 'alias = np.asarray(data)')}"
    assert [
        "1",
        *copied,
        "(100000,)",
        "float64",
        "B",
        "->",
        "D",
        where,
    ] in numpy
    lent = ["lent", "to", "NumPy/torch", "-", "800.0", "kB", "(100000,)", "float64", "D", where]
    assert ["2", *lent] in numpy
    warnings = [line for line in sections[5].splitlines() if line.startswith("CopyWarning")]
    big_write = line_of(name, "other[0] = 1.0")
    assert len(warnings) == 1
    assert warnings[0].startswith(f"CopyWarning at line {big_write}: a write copied 8000000 bytes")
    assert warn  # the section printed something
    assert numpy


def test_functional_loop_copies_only_when_an_old_state_is_still_held() -> None:
    lines = run("functional_loop.py").splitlines()
    assert lines[:5] == [
        "histogram: [2 1 3 1]",
        "drop: [10. -1. 30.]",
        "fill: [ 10. -99.]",
        "x unchanged: [10. 20. 30.]",
        "same result every way: True",
    ]
    assert lines[5].startswith("history[5][:6] = [0. 1. 2. 3. 4. 0.]")
    costs = {
        label.strip(): rest.replace(",", "").split()
        for label, rest in (line.rsplit(":", 1) for line in lines[6:10])
    }
    copied = ["20", "copies", "16000000", "bytes", "copied"]
    nothing = ["0", "copies", "0", "bytes", "copied"]
    assert costs == {
        "x = x.at[i].set(v)": copied,
        "the same, keeping a history": copied,
        "x = ca.move(x).at[i].set(v)": nothing,
        "x[i] = v": nothing,
    }
    assert lines[10].startswith("using a moved array: this array was moved")


def test_dask_reduction_prints_what_the_dask_page_shows() -> None:
    pytest.importorskip("dask.array", reason="the Dask example needs dask[array] (the test extra)")
    out = run("dask_reduction.py")
    with open(os.path.join(ROOT, "docs", "dask.md")) as f:
        page = f.read()
    shown = page.split("It prints:\n\n```text\n", 1)[1].split("```", 1)[0]
    assert out == shown
