"""CPU instructions of the everyday in-place statements, beside NumPy's.

``benchmarks/floors.py`` counts the sub-microsecond rows; this counts the
statements a loop of NumPy-style code repeats, whose cost is the write path
(the two doors, the write-back proof of ``x[k] += d``, the backend's error
verdict): the 100-element stencil step, ``u[1:-1] += d``, ``x += y`` and
``x[2:5] = y[0:3]``. Each runs in a function (its names are locals, as in a
user's loop) under valgrind's callgrind, twice, for two numbers of steps:
the difference over the extra steps is the statement's count, with the
import and the set-up subtracted.

OpenBLAS runs on one thread: its idle threads spin, and callgrind counts
every thread (they moved one stencil step's count by tens of thousands
between identical runs; on one thread two runs agree to the instruction).

Run: ``python benchmarks/write_counts.py`` (about five minutes; needs
``valgrind``). To compare with another checkout, run it there, or point
``PYTHONPATH`` at that tree. Nothing here fails on a count.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

#: (label, set-up, statement): ``xp`` is numpy or cowarray
STATEMENTS: list[tuple[str, str, str]] = [
    (
        "stencil step  (100)",
        "u = xp.asarray(np.sin(np.linspace(0.0, 3.0, 100)) ** 2)",
        "u[1:-1] += 0.1 * (u[2:] - 2 * u[1:-1] + u[:-2])",
    ),
    (
        "u[1:-1] += d  (100)",
        "u = xp.asarray(np.ones(100)); d = xp.asarray(np.ones(98) * 1e-3)",
        "u[1:-1] += d",
    ),
    (
        "x += y  (10^3)",
        "x = xp.asarray(np.ones(1000)); y = xp.asarray(np.ones(1000) * 1e-3)",
        "x += y",
    ),
    (
        "x[2:5] = y[0:3]  (100)",
        "x = xp.asarray(np.ones(100)); y = xp.asarray(np.arange(100.0))",
        "x[2:5] = y[0:3]",
    ),
]

_CHILD = """
import sys
import numpy as np
import cowarray
xp = {module}
def run(steps):
    {setup}
    for _ in range(steps):
        {statement}
run(50)  # (the steady state: records made, caches filled)
run(int(sys.argv[1]))
"""


def _count(script: str, steps: int, folder: str) -> int:
    out = os.path.join(folder, "callgrind.out")
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", PYTHONHASHSEED="0")
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
    subprocess.run(
        [*command, sys.executable, script, str(steps)],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    with open(out) as file:
        summary = re.search(r"^summary: (\d+)", file.read(), re.MULTILINE)
    os.remove(out)
    if summary is None:
        raise RuntimeError("callgrind wrote no summary line")
    return int(summary.group(1))


def per_statement(module: str, setup: str, statement: str, steps: int = 500) -> int:
    """Instructions of one ``statement`` in a loop, under callgrind."""
    with tempfile.TemporaryDirectory() as folder:
        script = os.path.join(folder, "child.py")
        with open(script, "w") as file:
            file.write(_CHILD.format(module=module, setup=setup, statement=statement))
        short = _count(script, 100, folder)
        long = _count(script, 100 + steps, folder)
    return round((long - short) / steps)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=500, help="extra steps counted (500)")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        print("write_counts needs valgrind (Debian: apt-get install valgrind); nothing counted")
        return
    import cowarray

    print(f"cowarray from {os.path.dirname(cowarray.__file__)}, Python {sys.version.split()[0]}")
    print("== instructions per statement (callgrind, OpenBLAS on one thread)")
    for label, setup, statement in STATEMENTS:
        numpy = per_statement("np", setup, statement, args.steps)
        ours = per_statement("cowarray", setup, statement, args.steps)
        print(f"{label:28} numpy {numpy:8d}  cowarray {ours:8d} (x {ours / numpy:.2f})")


if __name__ == "__main__":
    main()
