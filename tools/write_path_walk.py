"""Walk the Python calls one statement makes inside cowarray: how many, over
which files, and how often the walk changes file.

The measure of the write path's shape (issue 47's "two doors"): every
Python function cowarray calls while ``x[1:-1] += d`` runs, in order, read
with ``sys.monitoring`` (C functions are left out: they have no file; a
profile function would turn the write-back proof off, as for a debugger). A
*file change* is a call whose file is not the previous call's. Run for a
sole holder of ``x`` (the steady state of a loop, where ``x`` keeps the
record its last temporary view held; and the first statement on fresh
memory) and for an ``x`` that shares its memory (``x = source.copy()``
first).

Usage: ``python3.12 tools/write_path_walk.py [--calls]`` (``--calls`` lists them;
CPython 3.12+).
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
from collections.abc import Callable
from typing import Any

import cowarray as ca

_PACKAGE = os.path.join(os.path.dirname(os.path.abspath(ca.__file__)), "")


def _recorder() -> tuple[list[tuple[str, str]], Callable[[], None], Callable[[], None]]:
    # sys.monitoring, not sys.setprofile: cowarray's reading of a statement
    # (the write-back proof) refuses while a trace or profile function is
    # set, so a profiler would walk the path a debugger gets, not the user's.
    monitoring = sys.monitoring
    tool = monitoring.PROFILER_ID
    calls: list[tuple[str, str]] = []

    def started(code: Any, offset: int) -> None:
        if code.co_filename.startswith(_PACKAGE):
            where = os.path.relpath(code.co_filename, os.path.dirname(_PACKAGE))
            calls.append((where, code.co_name))

    def begin() -> None:
        monitoring.use_tool_id(tool, "write_path_walk")
        monitoring.register_callback(tool, monitoring.events.PY_START, started)
        monitoring.set_events(tool, monitoring.events.PY_START)

    def end() -> None:
        monitoring.set_events(tool, 0)
        monitoring.register_callback(tool, monitoring.events.PY_START, None)
        monitoring.free_tool_id(tool)

    return calls, begin, end


def _changes(calls: list[tuple[str, str]]) -> int:
    return sum(1 for before, now in itertools.pairwise(calls) if before[0] != now[0])


# Each case runs inside a function whose locals are the only holders, as in
# a user's loop: a walk of a statement whose arrays a test harness also holds
# would measure the harness (the write-back proof rightly refuses when the
# parent has holders the statement cannot see). The last of three steps is
# walked, so what is read once per statement's code is read already.
_PROGRAM = """
def program(begin, end):
    {before}
    for step in range(3):
        {each_step}
        if step == 2:
            begin()
        x[1:-1] += d
        if step == 2:
            end()
"""


def _walk(before: str, each_step: str) -> list[tuple[str, str]]:
    calls, begin, end = _recorder()
    namespace: dict[str, Any] = {"ca": ca}
    exec(_PROGRAM.format(before=before, each_step=each_step or "pass"), namespace)
    namespace["program"](begin, end)
    return calls


#: case -> (the code before the loop, the code each step runs before the statement)
CASES = {
    "sole holder, in a loop": ("x = ca.zeros(100); d = ca.ones(98)", ""),
    "sole holder, fresh memory (x = ca.zeros(100) each step)": (
        "d = ca.ones(98)",
        "x = ca.zeros(100)",
    ),
    "x shares its memory (x = source.copy() each step)": (
        "source = ca.zeros(100); d = ca.ones(98)",
        "x = source.copy()",
    ),
}


def main() -> None:
    if sys.version_info < (3, 12):
        sys.exit("write_path_walk needs CPython 3.12+ (sys.monitoring): see tools/python_matrix.sh")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", action="store_true", help="list every call")
    listed = parser.parse_args().calls
    for case, setup in CASES.items():
        calls = _walk(*setup)
        files = []
        for where, _ in calls:
            if not files or files[-1] != where:
                files.append(where)
        print(f"{case}: {len(calls)} calls, {_changes(calls)} file changes")
        print("   ", " -> ".join(files))
        if listed:
            for where, name in calls:
                print(f"      {where}: {name}")


if __name__ == "__main__":
    main()
