"""A guided tour of copy-on-write, watched with trace() and sharing_picture().

Each step does one thing, then prints what the core did (every share, copy
and takeover, with the line of this file that caused it) and who shares what.
A letter names each buffer, the same in every table and picture of the run.

Run: python examples/trace_walkthrough.py
"""

import warnings

import numpy as np

import cowarray as ca


def step(title: str) -> None:
    print()
    print(f"== {title} ==")


step("1. A lazy clone shares the buffer")
data = ca.arange(100_000, dtype=ca.float64)
with ca.trace() as t:
    backup = ca.lazy_clone(data)
print(t)
print(ca.sharing_picture(data=data, backup=backup))

step("2. A write copies: the writer gets its own buffer")
with ca.trace() as t:
    data *= 2.0
print(t)
print(ca.sharing_picture(data=data, backup=backup))

step("3. Writing to a slice copies only the slice")
with ca.trace() as t:
    # a slice taken to be changed on its own: say so with lazy_clone (a plain
    # backup[:5] would work the same, with a ViewWriteWarning, since NumPy
    # code that writes a view means to change backup)
    first = ca.lazy_clone(backup[:5])
    first[:] = -1.0
print(t)

step("4. The last holder writes in place")
scratch = ca.lazy_clone(data)
del scratch  # gone before the write: no copy
with ca.trace() as t:
    data[0] = 100.0
print(t)

step("5. A NumPy view aliases its array, and only it")
kept = ca.lazy_clone(data)
with ca.trace() as t:
    alias = np.asarray(data)  # data shares with kept: it gets its own copy first
    alias[1] = 200.0
print(t)
print("data[1] is now", float(data[1]), "| kept[1] is still", float(kept[1]))
del alias, kept

step("6. Warn about big copies")
big = ca.zeros(1_000_000)
other = ca.lazy_clone(big)
with warnings.catch_warnings(record=True) as caught, ca.warn_on_copy(min_bytes=1_000_000):
    warnings.simplefilter("always")
    other[0] = 1.0  # 8 MB copy: warns
    small = ca.lazy_clone(big[:10])
    small[0] = 1.0  # 80 bytes: below the threshold, silent
for w in caught:
    print(f"{w.category.__name__} at line {w.lineno}: {w.message}")
