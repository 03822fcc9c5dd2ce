"""10^5 clone/write/drop cycles of page-backed arrays: descriptors and RSS stay flat.

Run: ``python benchmarks/page_cow_leaks.py [--cycles N]``. Prints the counts
of ``/proc/self/fd`` and the RSS before and after (Linux only); the test suite
runs 10^4 cycles (tests/core/test_page_cow.py).
"""

from __future__ import annotations

import argparse
import gc
import os
import time

import numpy as np

import cowarray as ca


def _state() -> tuple[int, int]:
    with open("/proc/self/statm") as f:
        rss = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    return len(os.listdir("/proc/self/fd")), rss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cycles", type=int, default=100_000)
    args = parser.parse_args()
    ca.set_page_cow(True, threshold=0)
    source = np.arange(1 << 13, dtype=np.float64)  # 64 KiB
    gc.collect()
    fds, rss = _state()
    start = time.perf_counter()
    for i in range(args.cycles):
        x = ca.asarray(source)
        y = ca.lazy_clone(x)
        y[i % source.size] = 1.0
        del x, y
    gc.collect()
    took = time.perf_counter() - start
    fds_after, rss_after = _state()
    print(f"{args.cycles} cycles in {took:.1f} s ({took / args.cycles * 1e6:.1f} us each)")
    print(f"/proc/self/fd: {fds} before, {fds_after} after")
    print(f"RSS: {rss / 2**20:.1f} MiB before, {rss_after / 2**20:.1f} MiB after")


if __name__ == "__main__":
    main()
