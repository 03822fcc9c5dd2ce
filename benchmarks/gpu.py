"""GPU benchmarks: cowarray on CuPy against raw CuPy, as ratios, in one run.

Run: ``python benchmarks/gpu.py`` (``--quick``: fewer rounds, no 1 GiB size;
``--smoke``: one short round at small sizes, which checks that the script runs
and measures nothing). Without CuPy or a GPU it prints why and exits 0.

Three tables:

* ``lazy_clone`` cost (host time per call; the GPU does nothing), against
  CuPy's ``a.view()`` (the cheapest new array object) and ``a.copy()``.
* Materialization bandwidth: ``y = lazy_clone(x); y[0] = 1`` copies ``x``'s
  viewed region; its speed as a fraction of ``cupy.copyto`` between two
  preallocated arrays of the same size (higher is better, 1.0 is parity).
* Small-op overhead: element-wise ops, views and scalar writes on small arrays,
  cowarray's time over raw CuPy's (lower is better).

Timing: each contender runs a batch of calls and then synchronizes the device,
so a row's time includes the GPU work it enqueued; contenders alternate in
rounds and the medians are reported. Nothing here fails on a timing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import cowarray as ca


def _gpu_or_exit() -> Any:
    try:
        import cupy
    except ImportError:
        print(
            "benchmarks/gpu.py: CuPy is not installed "
            '(pip install -e ".[cuda12]" in this clone); skipped'
        )
        sys.exit(0)
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except cupy.cuda.runtime.CUDARuntimeError as error:
        print(f"benchmarks/gpu.py: no usable CUDA driver ({error}); skipped")
        sys.exit(0)
    if count == 0:
        print("benchmarks/gpu.py: no CUDA GPU visible; skipped")
        sys.exit(0)
    return cupy


cupy = _gpu_or_exit()
GPU = "cuda:0"


def _synchronize() -> None:
    cupy.cuda.Device(0).synchronize()


def _batch_seconds(function: Callable[[], object], number: int) -> float:
    _synchronize()
    start = time.perf_counter()
    for _ in range(number):
        function()
    _synchronize()
    return (time.perf_counter() - start) / number


def _calibrate(function: Callable[[], object], budget: float) -> int:
    number = 1
    while True:
        if _batch_seconds(function, number) * number >= budget / 4 or number >= 1 << 20:
            return max(1, int(number * 4))
        number *= 4


def interleaved(
    contenders: dict[str, Callable[[], object]], rounds: int, budget: float = 0.02
) -> dict[str, float]:
    """Median seconds per call of each contender, in alternating rounds."""
    numbers = {name: _calibrate(function, budget) for name, function in contenders.items()}
    samples: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(rounds):
        for name, function in contenders.items():
            samples[name].append(_batch_seconds(function, numbers[name]))
    return {name: statistics.median(values) for name, values in samples.items()}


def _fmt_time(seconds: float) -> str:
    if seconds < 1e-6:
        return f"{seconds * 1e9:7.0f} ns"
    if seconds < 1e-3:
        return f"{seconds * 1e6:7.2f} us"
    return f"{seconds * 1e3:7.2f} ms"


def _ratio_row(label: str, times: dict[str, float]) -> None:
    ours = times["cowarray"]
    cells = [f"{label:<30}", f"cowarray {_fmt_time(ours)}"]
    for name, seconds in times.items():
        if name != "cowarray":
            cells.append(f"{name} {_fmt_time(seconds)} (x{ours / seconds:5.2f})")
    print("  ".join(cells))


def bench_lazy_clone(rounds: int, sizes: list[int], budget: float) -> None:
    print("\n== lazy_clone: host time per call (ratio: cowarray time / theirs)")
    for n in sizes:
        x = ca.zeros(n, dtype=ca.float32, device=GPU)
        a = cupy.zeros(n, dtype=cupy.float32)
        ca.lazy_clone(x)  # the sharing record exists from here on, as in a program
        times = interleaved(
            {
                "cowarray": lambda x=x: ca.lazy_clone(x),
                "cupy view()": lambda a=a: a.view(),
                "cupy copy()": lambda a=a: a.copy(),
            },
            rounds,
            budget,
        )
        _ratio_row(f"lazy_clone n={n:,}", times)


def bench_materialization(rounds: int, sizes: list[int], budget: float) -> None:
    print(
        "\n== materialization bandwidth: fraction of cupy.copyto between preallocated "
        "arrays (higher is better)"
    )
    for n in sizes:
        _materialization_row(n, rounds, budget)


def _materialization_row(n: int, rounds: int, budget: float) -> None:
    nbytes = n * 4
    part = n // 16
    x = ca.zeros(n, dtype=ca.float32, device=GPU)
    src = cupy.zeros(n, dtype=cupy.float32)
    dst = cupy.empty_like(src)
    kept: dict[str, Any] = {}

    def materialize() -> None:
        y = ca.lazy_clone(x)
        y[0] = 1.0  # copies all of x's n elements, then writes one
        kept["y"] = y  # freed at the next call, as in a loop

    def materialize_region() -> None:
        y = x[:part]
        y[0] = 1.0  # copies only the viewed sixteenth
        kept["y"] = y

    times = interleaved(
        {
            "cowarray": materialize,
            "cowarray region": materialize_region,
            "copyto": lambda: cupy.copyto(dst, src),
            "copyto region": lambda: cupy.copyto(dst[:part], src[:part]),
        },
        rounds,
        budget,
    )
    speed = 2 * nbytes / times["copyto"] / 1e9
    print(
        f"materialize {nbytes / 2**20:8.1f} MiB  cowarray {_fmt_time(times['cowarray'])}  "
        f"copyto {_fmt_time(times['copyto'])} ({speed:6.0f} GB/s read+write)  "
        f"fraction {times['copyto'] / times['cowarray']:4.2f}   "
        f"sixteenth-slice fraction {times['copyto region'] / times['cowarray region']:4.2f}"
    )


def bench_small_ops(rounds: int, budget: float) -> None:
    print("\n== small-op overhead, n=1000 float32 (ratio: cowarray time / raw CuPy)")
    x = ca.ones(1000, dtype=ca.float32, device=GPU)
    y = ca.ones(1000, dtype=ca.float32, device=GPU)
    a = cupy.ones(1000, dtype=cupy.float32)
    b = cupy.ones(1000, dtype=cupy.float32)
    ca.lazy_clone(x)[0] = 1.0  # leave x shared once, then private again, as in a program

    def ca_inplace() -> None:
        nonlocal x
        x += 1.0

    def cupy_inplace() -> None:
        nonlocal a
        a += 1.0

    def ca_setitem() -> None:
        x[5] = 2.0

    def cupy_setitem() -> None:
        a[5] = 2.0

    cases: dict[str, tuple[Callable[[], object], Callable[[], object]]] = {
        "x + y": (lambda: x + y, lambda: a + b),
        "sin(x)": (lambda: ca.sin(x), lambda: cupy.sin(a)),
        "x[1:5]": (lambda: x[1:5], lambda: a[1:5]),
        "x.T of 2-D": (lambda: ca.reshape(x, (10, 100)).T, lambda: a.reshape(10, 100).T),
        "x += 1.0": (ca_inplace, cupy_inplace),
        "x[5] = 2.0": (ca_setitem, cupy_setitem),
        "sum(x)": (lambda: ca.sum(x), lambda: cupy.sum(a)),
    }
    for label, (ours, theirs) in cases.items():
        _ratio_row(label, interleaved({"cowarray": ours, "cupy": theirs}, rounds, budget))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds, sizes up to 256 MiB")
    parser.add_argument(
        "--smoke", action="store_true", help="one short round at small sizes: measures nothing"
    )
    options = parser.parse_args(argv)
    rounds, budget = (3 if options.quick else 7), 0.02
    clone_sizes = [1_000, 1 << 24]
    sizes = [1 << 20, 1 << 24, 1 << 26] + ([] if options.quick else [1 << 28])
    if options.smoke:
        rounds, budget, clone_sizes, sizes = 1, 1e-4, [1_000], [1 << 12]
    device = cupy.cuda.runtime.getDeviceProperties(0)["name"]
    name = device.decode() if isinstance(device, bytes) else device
    print(f"cowarray GPU benchmarks on {name}, CuPy {cupy.__version__}")
    bench_lazy_clone(rounds, clone_sizes, budget)
    bench_materialization(rounds, sizes, 2.5 * budget)
    bench_small_ops(rounds, budget)


if __name__ == "__main__":
    main()
