"""Where splitting an element-wise operation over threads starts to pay, on this machine.

Run: ``python benchmarks/parallel_threshold.py`` (about 3 minutes on 2 cores;
``--quick``: about 1 minute). Measure on an idle machine: a busy core is one
the split cannot use.

For each size it times the NumPy backend's ``add``, ``exp`` and ``sin``
(what the operators and functions call) split over every thread and as one
NumPy call, in interleaved rounds, and prints the medians. A loop "pays" from
the smallest size from which splitting it is faster at that size and at every
larger one measured. cowarray's ``DEFAULT_THRESHOLD`` is where ``add`` (the
cheapest loop, so the last to pay) does, as a power of two; the costly loops
(``sin``, ``cos``, ``logaddexp``: several times ``add``'s time per element)
split from ``DEFAULT_THRESHOLD // COSTLY_FACTOR``, which should be no lower
than where ``sin`` pays. ``exp`` stands for the loops NumPy's SIMD code makes
about as cheap as ``add`` (``log``, ``power``, ...): they split where ``add``
does, and should pay no earlier than ``add`` does. Timings are printed, never
checked.
"""

from __future__ import annotations

import argparse
import os
import statistics
import timeit
from collections.abc import Callable

import numpy as np

from cowarray._backends import _parallel
from cowarray._backends.numpy import NUMPY_BACKEND


def _seconds(call: Callable[[], object], budget: float) -> float:
    timer = timeit.Timer(call)
    number, elapsed = timer.autorange()
    number = max(1, int(number * budget / max(elapsed, 1e-9)))
    return timer.timeit(number) / number


def split_and_whole(name: str, size: int, rounds: int, budget: float) -> tuple[float, float]:
    """Median seconds of ``name`` on ``size`` float64 elements: split, then one call."""
    function = getattr(NUMPY_BACKEND.xp, name)
    rng = np.random.default_rng(size)
    operands = [rng.random(size) for _ in range(function.nin)]

    def call() -> object:
        return function(*operands)

    split: list[float] = []
    whole: list[float] = []
    try:
        for _ in range(rounds):
            _parallel.set_parallel_threshold(0)
            split.append(_seconds(call, budget))
            _parallel.set_parallel_threshold(1 << 62)
            whole.append(_seconds(call, budget))
    finally:
        _parallel.set_parallel_threshold(_parallel.DEFAULT_THRESHOLD)
    return statistics.median(split), statistics.median(whole)


def crossover(sizes: list[int], ratios: list[float]) -> int | None:
    """The smallest size from which every ratio (split / whole) is below 1."""
    found = None
    for size, ratio in zip(reversed(sizes), reversed(ratios), strict=True):
        if ratio >= 1.0:
            break
        found = size
    return found


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds and sizes")
    args = parser.parse_args(argv)
    rounds, budget = (3, 0.01) if args.quick else (5, 0.02)
    sizes = [1 << k for k in range(12, 23, 2 if args.quick else 1)]
    threads = _parallel.get_num_threads()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{threads} threads, load average {load:.2f}; float64; ratio = split / one call")
    found: dict[str, int | None] = {}
    for name in ("add", "exp", "sin"):
        ratios = []
        print(f"\n== {name}")
        for size in sizes:
            split, whole = split_and_whole(name, size, rounds, budget)
            ratios.append(split / whole)
            print(
                f"n = 2^{size.bit_length() - 1:<2} {size:>8}  split {split * 1e6:9.1f} us"
                f"  one call {whole * 1e6:9.1f} us  ratio {split / whole:5.2f}"
            )
        found[name] = crossover(sizes, ratios)
    print()
    for name, size in found.items():
        where = "never, within these sizes" if size is None else f"from {size} elements"
        print(f"splitting {name} pays {where}")
    print(
        f"cowarray's DEFAULT_THRESHOLD: {_parallel.DEFAULT_THRESHOLD} elements; costly loops "
        f"({', '.join(sorted(ufunc.__name__ for ufunc in _parallel._COSTLY))}) "
        f"from {_parallel.DEFAULT_THRESHOLD // _parallel.COSTLY_FACTOR}"
    )


if __name__ == "__main__":
    main()
