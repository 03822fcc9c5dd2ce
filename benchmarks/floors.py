"""The sub-microsecond rows beside their floors, in CPU instructions.

A *floor* is the least pure-Python code with cowarray's API shape: an
object with an Array's six slots made with ``object.__new__`` around NumPy's
result, behind the same property, method, function or operator with the
same parameters (a keyword-only parameter with a default costs every call
some 400 instructions, so the floor has cowarray's: ``copy=`` and ``out=``
of ``reshape``, ``order=`` and ``copy=`` of the method, ``out=`` of
``move``, the hints of ``.set``), with none of cowarray's checks (no dtype
promotion, no device, no record, no lock). No implementation of the
API in Python can cost less, so a target below its floor needs code outside
Python. For the functional update the floor is ``move`` (a new object, the
old one poisoned), ``.at`` and ``[i]`` (an object each) and ``.set`` (the two
reference counts the proof reads, the store, a new object).

Each statement runs 2000 times in a function (its names are locals, as in
``timeit``) and is counted under valgrind's callgrind: two runs differ by
tens of instructions per statement, where timings of these rows move by
30 % on a shared 2-core machine. Instructions are not time (a cache miss
costs hundreds of cycles), so ``--time`` times the same statements instead
(best of interleaved rounds; what ``targets.py`` measures).

Run: ``python benchmarks/floors.py`` (about a minute; needs ``valgrind``,
else it times) or ``python benchmarks/floors.py --time``. Nothing here fails
on a count: it prints, with the target next to each ratio.
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from core import _fmt_time

import cowarray as ca

_object_new = object.__new__
_getrefcount = sys.getrefcount


def _inlined(signature: str, data: str, body: str = "") -> Any:
    """A function ``signature`` that returns a new ``_Floor`` around ``data``.

    Each floor makes its object inline, as cowarray's fast paths do: a helper
    call would add some 500 instructions and the floor would not be one.
    """
    source = (
        f"def {signature}:\n{body}"
        "    made = _object_new(_Floor)\n"
        f"    made._data = {data}\n"
        "    made._buf = None\n"
        "    made._device = None\n"
        "    made._fast_write = ()\n"
        "    made._donated = False\n"
        "    made._family = None\n"
        "    return made\n"
    )
    exec(source, _FLOOR_GLOBALS)
    return _FLOOR_GLOBALS[signature.split("(")[0]]


#: The made functions' globals (``_Floor`` is entered once the class exists).
_FLOOR_GLOBALS: dict[str, Any] = {"_object_new": _object_new, "_getrefcount": _getrefcount}


class _FloorIndexer:
    __slots__ = ("array",)

    def __getitem__(self, index: Any) -> _FloorAt:
        at: _FloorAt = _object_new(_FloorAt)
        at.array = self.array
        at.index = index
        return at


class _FloorAt:
    __slots__ = ("array", "index")

    # The two counts cowarray's proof reads (any count passes here), the
    # store, the new array, the old one poisoned.
    set = _inlined(
        "set(self, values, *, mode=None, indices_are_sorted=False, unique_indices=False)",
        "data",
        "    x = self.array\n"
        "    if _getrefcount(x) > 0 and _getrefcount(self) > 0:\n"
        "        data = x._data\n"
        "        data[self.index] = values\n"
        "        x._data = x._device = None\n",
    )


class _Floor:
    """An Array's six slots around a NumPy array, and nothing else."""

    __slots__ = ("_buf", "_data", "_device", "_donated", "_family", "_fast_write")

    T = property(_inlined("T(self)", "self._data.T"))
    __getitem__ = _inlined("__getitem__(self, key)", "self._data[key]")
    reshape = _inlined("reshape(self, *shape, order='C', copy=None)", "self._data.reshape(shape)")
    __add__ = _inlined("__add__(self, other)", "self._data + other._data")

    def __setitem__(self, key: Any, value: Any) -> None:
        self._data[key] = value

    @property
    def at(self) -> _FloorIndexer:
        indexer: _FloorIndexer = _object_new(_FloorIndexer)
        indexer.array = self
        return indexer


floor_reshape = _inlined(
    "floor_reshape(x, /, shape, *, copy=None, out=None)", "x._data.reshape(shape)"
)
#: ``move``: a new array, the old one poisoned
floor_move = _inlined(
    "floor_move(x, /, *, out=None)", "data", "    data = x._data\n    x._data = x._device = None\n"
)
_FLOOR_GLOBALS["_Floor"] = _Floor


def _floor_of(data: np.ndarray) -> _Floor:
    floor: _Floor = _object_new(_Floor)
    floor._data = data
    floor._buf = None
    floor._device = None
    floor._donated = False
    return floor


def _names() -> dict[str, Any]:
    a, a2, b = np.ones(1000), np.ones((20, 50)), np.ones(1000)
    x, x2, y = ca.asarray(a), ca.asarray(a2), ca.asarray(b)
    x[1:5], x2.T  # the first views make the records: the steady state
    xm = ca.zeros(10**6)
    xm[0] = 0.0  # a private array, as a chain of updates leaves it
    xs = ca.zeros(1000)
    xs[0] = 0.0  # its first write shows it private: later ones skip the core
    return {
        "ca": ca,
        "a": a,
        "a2": a2,
        "b": b,
        "am": np.zeros(10**6),
        "x": x,
        "x2": x2,
        "y": y,
        "xm": xm,
        "xs": xs,
        "f": _floor_of(a),
        "f2": _floor_of(a2),
        "g": _floor_of(b),
        "fm": _floor_of(np.zeros(10**6)),
        "floor_reshape": floor_reshape,
        "floor_move": floor_move,
    }


#: (label, NumPy's statement, cowarray's, the floor's, the target ratio)
ROWS: list[tuple[str, str, str, str, float]] = [
    ("x.T  (20x50)", "a2.T", "x2.T", "f2.T", 3),
    ("x[1:5]  (10^3)", "a[1:5]", "x[1:5]", "f[1:5]", 3),
    (
        "ca.reshape(x, (50, 20))",
        "a2.reshape((50, 20))",
        "ca.reshape(x2, (50, 20))",
        "floor_reshape(f2, (50, 20))",
        3,
    ),
    ("x.reshape(50, 20)", "a2.reshape(50, 20)", "x2.reshape(50, 20)", "f2.reshape(50, 20)", 3),
    ("a + b  (10^3)", "a + b", "x + y", "f + g", 1.6),
    ("x[3] = 1.0  (10^3, sole owner)", "a[3] = 1.0", "xs[3] = 1.0", "f[3] = 1.0", 3),
    (
        "x = ca.move(x).at[5].set(1.0)  (10^6)",
        "am[5] = 1.0",
        "xm = ca.move(xm).at[5].set(1.0)",
        "fm = floor_move(fm).at[5].set(1.0)",
        20,
    ),
]

_REPEAT = 2000


def _mentions(text: str, name: str) -> bool:
    """Whether ``text`` uses ``name`` (not as a part of a longer name or attribute)."""
    return re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", text) is not None


def _loop(statement: str, names: dict[str, Any], before: str = "", after: str = "") -> Any:
    """A function running ``statement`` n times, its names bound as locals;
    ``before`` and ``after`` (a statement each, or nothing) run once around the loop."""
    used = [name for name in names if _mentions(f"{before}\n{statement}\n{after}", name)]
    source = "def run(n):\n"
    source += "".join(f"    {name} = names[{name!r}]\n" for name in used)
    source += f"    {before}\n" if before else ""
    source += f"    for _ in range(n):\n        {statement}\n"
    source += f"    {after}\n" if after else ""
    # (written back: the update rebinds its name to the new array)
    source += "".join(f"    names[{name!r}] = {name}\n" for name in used)
    scope: dict[str, Any] = {"names": names}
    exec(source, scope)
    return scope["run"]


#: statement -> the (before, after) its loop runs around it (see ``_loop``)
Around = dict[str, tuple[str, str]]


def _loops(statements: list[str], names: dict[str, Any], around: Around | None) -> list[Any]:
    around = around or {}
    return [_loop(s, names, *around.get(s, ("", ""))) for s in statements]


def _statements() -> list[str]:
    return ["pass"] + [statement for row in ROWS for statement in row[1:4]]


def run_child(statements: list[str], names: dict[str, Any], around: Around | None = None) -> None:
    """Under callgrind: one ``eval`` per statement, each a dump of its own.
    ``statements`` as given to ``count_instructions``, ``"pass"`` first."""
    runs = _loops(statements, names, around)
    for run in runs:
        run(_REPEAT)  # specialize the bytecode before counting
    for run in runs:
        eval("run(n)", {"run": run, "n": _REPEAT})
    eval("0")  # the end marker: the dumps before it are the statements'


def count_instructions(statements: list[str], child: list[str]) -> dict[str, float]:
    """Instructions per run of each statement (``"pass"`` first: the loop's
    own, subtracted), counted under callgrind in ``child`` (a command that
    calls ``run_child`` with the same statements)."""
    with tempfile.TemporaryDirectory() as folder:
        command = [
            "valgrind",
            "--tool=callgrind",
            "--toggle-collect=builtin_eval",
            "--dump-after=builtin_eval",
            f"--callgrind-out-file={folder}/out",
            *child,
        ]
        environment = dict(os.environ, PYTHONHASHSEED="0")
        subprocess.run(command, check=True, capture_output=True, env=environment)
        dumps = sorted(glob.glob(f"{folder}/out.*"), key=lambda name: int(name.rsplit(".", 1)[1]))
        totals = [_summary(dump) for dump in dumps]
    counted = totals[-(len(statements) + 1) : -1]
    loop = counted[0] / _REPEAT
    return {s: total / _REPEAT - loop for s, total in zip(statements, counted, strict=True)}


def _summary(dump: str) -> int:
    with open(dump) as lines:
        for line in lines:
            if line.startswith("summary:"):
                return int(line.split()[1])
    raise RuntimeError(f"{dump}: no summary line")


def time_statements(
    statements: list[str], names: dict[str, Any], rounds: int, around: Around | None = None
) -> dict[str, float]:
    """Seconds per run of each statement (``"pass"`` first: the loop's own,
    subtracted): the best of ``rounds`` interleaved rounds (drift hits every
    statement alike)."""
    runs = _loops(statements, names, around)
    best = [float("inf")] * len(runs)
    for _ in range(rounds):
        for i, run in enumerate(runs):
            start = time.perf_counter()
            run(_REPEAT)
            best[i] = min(best[i], (time.perf_counter() - start) / _REPEAT)
    return {s: seconds - best[0] for s, seconds in zip(statements, best, strict=True)}


def _report(values: dict[str, float], unit: str) -> None:
    show = (lambda v: f"{v:8.0f}") if unit == "instructions" else _fmt_time
    print(f"\n== {unit} per run; ratios to NumPy (the target's column)")
    for label, numpy, ours, floor, target in ROWS:
        base = values[numpy]
        ratio, floor_ratio = values[ours] / base, values[floor] / base
        verdict = "met" if ratio <= target else "missed"
        place = "under" if floor_ratio <= target else "above"
        print(
            f"{label:<38} numpy {show(base)}  cowarray {show(values[ours])} (x{ratio:5.2f})"
            f"  floor {show(values[floor])} (x{floor_ratio:5.2f})"
            f"   target x{target:g}: {verdict}; the floor is {place} it;"
            f" cowarray / floor x{values[ours] / values[floor]:4.2f}"
        )


def arguments(
    description: str, flag: str, flag_help: str, rounds_help: str, argv: list[str] | None
) -> argparse.Namespace:
    """The command line of a script that counts or times: ``flag`` (the
    other mode), ``--rounds`` and the hidden ``--child`` (under callgrind)."""
    parser = argparse.ArgumentParser(description=description.splitlines()[0])
    parser.add_argument(flag, action="store_true", help=flag_help)
    parser.add_argument("--rounds", type=int, default=15, help=rounds_help)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def measure(
    statements: list[str],
    names: Callable[[], dict[str, Any]],
    count: bool,
    rounds: int,
    script: str,
    around: Around | None = None,
) -> tuple[dict[str, float], str]:
    """Each statement's instructions (``count``, where valgrind is installed;
    ``script --child`` runs them) or seconds, and the unit."""
    if count and shutil.which("valgrind") is None:
        print("valgrind is not installed: timing instead (install it to count instructions)")
        count = False
    if count:
        child = [sys.executable, os.path.abspath(script), "--child"]
        return count_instructions(statements, child), "instructions"
    return time_statements(statements, names(), rounds, around), "seconds"


def main(argv: list[str] | None = None) -> None:
    args = arguments(
        __doc__, "--time", "time instead of counting", "timed rounds (with --time)", argv
    )
    if args.child:
        run_child(_statements(), _names())
        return
    print(f"cowarray {ca.__version__}, NumPy {np.__version__}, Python {sys.version.split()[0]}")
    _report(*measure(_statements(), _names, not args.time, args.rounds, __file__))


if __name__ == "__main__":
    main()
