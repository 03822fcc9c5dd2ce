"""x.at[i].set(v) on 10^6 float64 elements, against NumPy copy + setitem (and JAX).

Run: python benchmarks/at.py [--n 1000000] [--repeat 15]

Columns (median seconds per update over interleaved runs, and the ratio to
NumPy's ``y = x.copy(); y[i] = v``, the eager model of a functional update):

* ``numpy copy+setitem``: the reference.
* ``numpy setitem``: the in-place floor (no value semantics).
* ``y = x.at[i].set(v)``: x kept alive, so its buffer is copied once.
* ``x = x.at[i].set(v)``: old x might still be seen, so this copies too.
* ``x = move(x).at[i].set(v)``: explicit ownership transfer, in place.
* ``x[i] = v``: the zero-copy way to update x (copy-on-write keeps others safe).
* ``jax x.at[i].set(v)``: eager JAX on CPU, when jax is importable.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np

import cowarray as ca

LOOPS = 20


def numpy_copy_setitem(x: np.ndarray) -> Callable[[], None]:
    def run() -> None:
        for _ in range(LOOPS):
            y = x.copy()
            y[5] = 1.0

    return run


def numpy_setitem(x: np.ndarray) -> Callable[[], None]:
    def run() -> None:
        for _ in range(LOOPS):
            x[5] = 1.0

    return run


def at_set_kept(x: ca.Array) -> Callable[[], None]:
    def run() -> None:
        for _ in range(LOOPS):
            y = x.at[5].set(1.0)  # noqa: F841

    return run


def at_set_rebound(n: int) -> Callable[[], None]:
    state = [ca.zeros(n)]

    def run() -> None:
        x = state.pop()  # the loop holds the array in this one local only
        for _ in range(LOOPS):
            x = x.at[5].set(1.0)
        state.append(x)

    return run


def at_set_moved(n: int) -> Callable[[], None]:
    state = [ca.zeros(n)]

    def run() -> None:
        x = state.pop()
        for _ in range(LOOPS):
            x = ca.move(x).at[5].set(1.0)
        state.append(x)

    return run


def setitem(x: ca.Array) -> Callable[[], None]:
    def run() -> None:
        for _ in range(LOOPS):
            x[5] = 1.0

    return run


def jax_at_set(n: int) -> Callable[[], None] | None:
    try:
        import jax.numpy as jnp
    except ImportError:
        return None
    x = jnp.zeros(n)

    def run() -> None:
        for _ in range(LOOPS):
            x.at[5].set(1.0).block_until_ready()

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    host = np.zeros(args.n)
    cases: dict[str, Callable[[], None] | None] = {
        "numpy copy+setitem": numpy_copy_setitem(host),
        "numpy setitem (in place)": numpy_setitem(host.copy()),
        "y = x.at[i].set(v)": at_set_kept(ca.zeros(args.n)),
        "x = x.at[i].set(v)": at_set_rebound(args.n),
        "x = move(x).at[i].set(v)": at_set_moved(args.n),
        "x[i] = v": setitem(ca.zeros(args.n)),
        "jax x.at[i].set(v)": jax_at_set(args.n),
    }
    timings: dict[str, list[float]] = {name: [] for name, run in cases.items() if run}
    for _ in range(args.repeat):  # interleaved, so drift hits every case alike
        for name, run in cases.items():
            if run is not None:
                start = time.perf_counter()
                run()
                timings[name].append((time.perf_counter() - start) / LOOPS)
    reference = statistics.median(timings["numpy copy+setitem"])
    print(f"n = {args.n:,} float64, median of {args.repeat} x {LOOPS} updates")
    print(f"{'case':28} {'seconds':>12} {'vs numpy copy+setitem':>22}")
    for name, run in cases.items():
        if run is None:
            print(f"{name:28} {'(jax not installed)':>12}")
            continue
        median = statistics.median(timings[name])
        print(f"{name:28} {median:12.3e} {median / reference:21.3f}x")


if __name__ == "__main__":
    main()
