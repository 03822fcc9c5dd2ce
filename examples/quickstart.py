"""Quickstart: lazy copies, a write, and what it cost.

Run: python examples/quickstart.py
"""

import cowarray as ca

x = ca.arange(1_000_000, dtype=ca.float64)
clone = ca.lazy_clone(x)  # O(1): shares x's buffer
# A slice to be changed on its own, as a separate value: lazy_clone says so.
# (A plain x[:10] shares the buffer just the same; writing it would warn,
# because NumPy code that writes a view means to change x.)
window = ca.lazy_clone(x[:10])

print("after clone and slice:", ca.cow_info(x))
print("clone shares x's buffer:", ca.shares_buffer(x, clone))

window[:] = -1.0  # copies only the 10 elements the slice views, then writes
print("after writing the slice:", ca.cow_info(window))
x[0] = 42.0  # x still shares with the clone: x copies its 8 MB, then writes

print("x[:3]      =", x[:3])
print("clone[:3]  =", clone[:3], "(kept its values)")
print("window[:3] =", window[:3])
print("shares after the writes:", ca.shares_buffer(x, clone))

y = ca.lazy_clone(x)
del y  # the clone is gone before anyone writes: x is the last holder again
before = ca.cow_info(x).buffer_id
x[1] = 7.0  # the last holder writes in place, no copy
print("x[:3] =", x[:3], "| same buffer after the write:", ca.cow_info(x).buffer_id == before)

# Seeing it: trace() records every share and copy with the line that caused it.
with ca.trace() as t:
    snapshot = ca.lazy_clone(x)
    head = ca.lazy_clone(snapshot[:100])
    head[0] = 0.0  # copies 100 elements (800 bytes), not the 8 MB
    x[2] = 3.0  # x still shares with snapshot: copies 8 MB
print()
print(t)

# The counters run all the time, traced or not.
print()
print("copies since start:", ca.copy_counters())
