"""Page-granular copy-on-write against today's region copy, side by side.

Run: ``python benchmarks/page_cow.py`` (4e8 bytes) or ``--quick`` (small
sizes). Each case runs with the feature off and on in the same process,
interleaved, best of ``--rounds``; the targets stand next to the
ratios. Timing never fails the script: it reports.
"""

from __future__ import annotations

import argparse
import gc
import os
import time
from collections.abc import Callable

import numpy as np

import cowarray as ca


def _best(run: Callable[[], float], rounds: int) -> float:
    return min(run() for _ in range(rounds))


def _case(source: np.ndarray, kind: str) -> Callable[[], float]:
    n = source.size

    def run() -> float:
        x = ca.asarray(source)
        gc.collect()
        if kind == "first full read":  # the read of a clone that was written once
            y = ca.lazy_clone(x)
            y[0] = 1.0
            start = time.perf_counter()
            float(ca.sum(y))
            elapsed = time.perf_counter() - start
            del x, y
            return elapsed
        if kind == "one element, 2nd clone":  # x was cloned and written before
            first = ca.lazy_clone(x)
            first[0] = 1.0
        start = time.perf_counter()
        y = ca.lazy_clone(x)
        if kind.startswith("one element"):
            y[12345] = 1.0
        elif kind == "1% slice":
            y[: n // 100] = 1.0
        elif kind == "full rewrite":
            y[...] = 2.0
        elapsed = time.perf_counter() - start
        del x, y
        return elapsed

    return run


def _warm_read(source: np.ndarray) -> float:
    x = ca.asarray(source)
    float(ca.sum(x))
    start = time.perf_counter()
    float(ca.sum(x))
    return time.perf_counter() - start


TARGETS = {
    "one element": ("on/off <= 0.001", lambda r: r <= 0.001),
    "one element, 2nd clone": ("on/off <= 0.001", lambda r: r <= 0.001),
    "1% slice": ("on/off < 1", lambda r: r < 1),
    "full rewrite": ("on/off <= 1 (no slower)", lambda r: r <= 1.1),
    "lazy_clone": ("flat in size", None),
    "first full read": ("<= 1.5x warm read", None),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes (CI)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    sizes = [1 << 20, 1 << 23] if args.quick else [1 << 20, 1 << 24, 400_000_000]
    print(f"pid {os.getpid()}, page size {ca._backends._pages.PAGE}, rounds {args.rounds}")
    print(f"{'bytes':>11} {'case':<22} {'off':>10} {'on':>10} {'on/off':>8}  target")
    for nbytes in sizes:
        source = np.arange(nbytes // 8, dtype=np.float64)
        for kind in [
            "one element",
            "one element, 2nd clone",
            "1% slice",
            "full rewrite",
            "first full read",
            "lazy_clone",
        ]:
            times = {}
            for enabled in (False, True, False, True):
                before = ca.set_page_cow(enabled, threshold=0)
                took = _best(_case(source, kind), args.rounds)
                times[enabled] = min(times.get(enabled, took), took)
                ca.set_page_cow(*before)
            ratio = times[True] / times[False]
            target, check = TARGETS[kind]
            if kind == "first full read":
                warm = _warm_read(source)
                ratio = times[True] / warm
                target = f"{target} (warm read {warm * 1e3:.3f}ms; ratio column: on/warm)"
                check = lambda r: r <= 1.5  # noqa: E731
            verdict = "" if check is None else ("  met" if check(ratio) else "  MISSED")
            print(
                f"{nbytes:>11} {kind:<22} {times[False] * 1e3:>8.3f}ms {times[True] * 1e3:>8.3f}ms "
                f"{ratio:>8.4f}  {target}{verdict}"
            )
        del source
        gc.collect()


if __name__ == "__main__":
    main()
