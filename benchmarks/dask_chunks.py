"""Dask on cowarray chunks against the same graphs on NumPy chunks, as ratios, in one run.

Run: ``python benchmarks/dask_chunks.py`` (``--quick``: a 1000 x 1000 array
and fewer rounds; ``--scheduler sync`` for one thread). Needs ``dask[array]``.

Each graph is built once on a dask array of cowarray chunks
(``cowarray.dask.to_dask``) and once on NumPy chunks (``da.from_array``),
then both are computed in interleaved rounds; the medians and the ratio
cowarray time / NumPy time are printed (lower is better for cowarray). The
last rows join the chunks into one array, chunked by rows and in a 4 x 4
grid: ``from_dask(d)`` (one copy) and ``d.compute()`` of the cowarray
chunks (Dask joins one axis at a time: a copy per split axis), each against
``d.compute()`` of the NumPy chunks. Nothing here fails on a timing.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import dask
import dask.array as da
import numpy as np

import cowarray as ca
from cowarray.dask import from_dask, to_dask

GRAPHS: dict[str, Callable[[Any], Any]] = {
    "sum over axis 0": lambda d: d.sum(axis=0),
    "mean over axis 0": lambda d: d.mean(axis=0),
    "std over axis 0": lambda d: d.std(axis=0),
    "(sin(d) * 2 + d).sum(axis=0)": lambda d: (np.sin(d) * 2.0 + d).sum(axis=0),
    "standardize, then max|.| axis 0": lambda d: abs((d - d.mean(axis=0)) / d.std(axis=0)).max(
        axis=0
    ),
}


def _seconds(work: Callable[[], Any]) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def interleaved(contenders: dict[str, Callable[[], Any]], rounds: int) -> dict[str, float]:
    """Median seconds of each contender, run in alternating rounds after one warm-up."""
    for work in contenders.values():
        work()
    samples: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(rounds):
        for name, work in contenders.items():
            samples[name].append(_seconds(work))
    return {name: statistics.median(values) for name, values in samples.items()}


def _fmt(seconds: float) -> str:
    return f"{seconds * 1e3:8.2f} ms"


def _row(label: str, times: dict[str, float]) -> None:
    ratio = times["cowarray"] / times["numpy"]
    print(
        f"{label:<34} cowarray {_fmt(times['cowarray'])}  numpy {_fmt(times['numpy'])}"
        f"  (x{ratio:5.2f})"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a 1000 x 1000 array, 3 rounds")
    parser.add_argument("--scheduler", default="threads", help="dask scheduler (threads, sync)")
    args = parser.parse_args(argv)
    shape, chunks, rounds = (
        ((1000, 1000), (250, 1000), 3) if args.quick else ((4000, 4000), (500, 4000), 7)
    )
    values = np.random.default_rng(0).standard_normal(shape)
    on_cowarray = to_dask(ca.asarray(values), chunks=chunks)
    on_numpy = da.from_array(values, chunks=chunks)
    print(
        f"dask {dask.__version__}, {shape[0]} x {shape[1]} float64 in chunks of {chunks}, "
        f"scheduler={args.scheduler}, median of {rounds} interleaved rounds"
    )
    print("ratio: cowarray time / NumPy time (lower is better for cowarray)")
    with dask.config.set(scheduler=args.scheduler):
        for label, build in GRAPHS.items():
            graphs = {"cowarray": build(on_cowarray), "numpy": build(on_numpy)}
            _row(label, interleaved({k: g.compute for k, g in graphs.items()}, rounds))
        square = (shape[0] // 4, shape[1] // 4)
        grids = {"rows": (on_cowarray, on_numpy), "4 x 4": _chunked(values, square)}
        for grid, (ours, theirs) in grids.items():
            joins = {"cowarray": lambda ours=ours: from_dask(ours), "numpy": theirs.compute}
            _row(f"join {grid} chunks: from_dask(d)", interleaved(joins, rounds))
            joins = {"cowarray": ours.compute, "numpy": theirs.compute}
            _row(f"join {grid} chunks: d.compute()", interleaved(joins, rounds))


def _chunked(values: Any, chunks: tuple[int, int]) -> tuple[Any, Any]:
    return to_dask(ca.asarray(values), chunks=chunks), da.from_array(values, chunks=chunks)


if __name__ == "__main__":
    main()
