"""A JAX-style functional loop: ``x = x.at[i].set(v)``, and what it copies.

``x.at[index].<method>(values)`` returns a new array and leaves ``x`` as it
was, so while anything could still see the old ``x`` the update copies.
cowarray skips that copy only where it is proven that nothing can: a
temporary, or ``move(x)``. ``x[i] = v`` is the zero-copy way to update ``x``
itself (copy-on-write keeps every other value safe). trace() shows each.

Run: python examples/functional_loop.py
"""

import numpy as np

import cowarray as ca

# Duplicate indices accumulate for add (like np.add.at), so a histogram is
# one update.
samples = ca.asarray([0, 2, 2, 3, 2, 0, 1])
histogram = ca.zeros(4, dtype=ca.int64).at[samples].add(1)
print("histogram:", histogram)

# Out-of-bounds indices raise by default; mode="drop" skips them, and
# get(mode="fill") reads a fill value there.
x = ca.asarray([10.0, 20.0, 30.0])
print("drop:", x.at[ca.asarray([1, 5])].set(-1.0, mode="drop"))
print("fill:", x.at[ca.asarray([0, 7])].get(mode="fill", fill_value=-99.0))
print("x unchanged:", x)

STEPS, SIZE = 20, 100_000


def rebinding() -> tuple[ca.Array, ca.debug.Trace]:
    """x = x.at[i].set(v): old x could still be seen (a wrapper, a tracer,
    another thread), so every step copies."""
    state = ca.zeros(SIZE)
    with ca.trace() as t:
        for step in range(STEPS):
            state = state.at[step].set(float(step))
    return state, t


def keeping_history() -> tuple[ca.Array, list[ca.Array], ca.debug.Trace]:
    """Every old state kept as a value: each update must copy."""
    state = ca.zeros(SIZE)
    history = []
    with ca.trace() as t:
        for step in range(STEPS):
            history.append(state)
            state = state.at[step].set(float(step))
    return state, history, t


def moving() -> tuple[ca.Array, ca.debug.Trace]:
    """move() hands the buffer to the update: nothing to copy."""
    state = ca.zeros(SIZE)
    with ca.trace() as t:
        for step in range(STEPS):
            state = ca.move(state).at[step].set(float(step))
    return state, t


def assigning() -> tuple[ca.Array, ca.debug.Trace]:
    """x[i] = v: the sole holder writes in place, nothing to copy."""
    state = ca.zeros(SIZE)
    with ca.trace() as t:
        for step in range(STEPS):
            state[step] = float(step)
    return state, t


def report(label: str, t: ca.debug.Trace) -> None:
    print(f"{label:<32} {t.copies:>2} copies, {t.bytes_copied:>8} bytes copied")


rebound_state, rebound_trace = rebinding()
kept_state, history, kept_trace = keeping_history()
moved_state, moved_trace = moving()
state, assigned_trace = assigning()

same = all(
    np.array_equal(np.asarray(result), np.asarray(state))
    for result in (rebound_state, kept_state, moved_state)
)
print("same result every way:", same)
print("history[5][:6] =", history[5][:6], "(each old state kept its values)")
report("x = x.at[i].set(v):", rebound_trace)
report("the same, keeping a history:", kept_trace)
report("x = ca.move(x).at[i].set(v):", moved_trace)
report("x[i] = v:", assigned_trace)

# A moved-from array cannot be used by mistake.
old = ca.zeros(3)
new = ca.move(old)
try:
    old + 1
except ValueError as error:
    print("using a moved array:", str(error).split(";")[0])
