"""A JAX-style functional loop: ``x = x.at[i].set(v)``, and what it copies.

``x.at[index].<method>(values)`` returns a new array and leaves ``x`` as it
was. Whether an update copies depends on whether anyone else can still see
the old ``x``: trace() shows it.

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


def fill_in() -> tuple[ca.Array, ca.debug.Trace]:
    """Inside a function the old state dies with the rebinding: no copies."""
    state = ca.zeros(SIZE)
    with ca.trace() as t:
        for step in range(STEPS):
            state = state.at[step].set(float(step))
    return state, t


def fill_in_keeping_history() -> tuple[ca.Array, list[ca.Array], ca.debug.Trace]:
    """Every old state kept as a value: each update must copy."""
    state = ca.zeros(SIZE)
    history = []
    with ca.trace() as t:
        for step in range(STEPS):
            history.append(state)
            state = state.at[step].set(float(step))
    return state, history, t


def report(label: str, t: ca.debug.Trace) -> None:
    print(
        f"{label:<28} {t.copies:>2} copies, {t.bytes_copied:>8} bytes copied, "
        f"{t.count('takeover'):>2} in place"
    )


local_state, local_trace = fill_in()
kept_state, history, kept_trace = fill_in_keeping_history()

# At module level the global name still holds the old state while the
# update runs, so each step copies; move() hands the buffer over instead.
state = ca.zeros(SIZE)
with ca.trace() as global_trace:
    for step in range(STEPS):
        state = state.at[step].set(float(step))
state = ca.zeros(SIZE)
with ca.trace() as moved_trace:
    for step in range(STEPS):
        state = ca.move(state).at[step].set(float(step))

same = all(
    np.array_equal(np.asarray(result), np.asarray(state)) for result in (local_state, kept_state)
)
print("same result every way:", same)
print("history[5][:6] =", history[5][:6], "(each old state kept its values)")
report("in a function:", local_trace)
report("in a function, with history:", kept_trace)
report("at module level:", global_trace)
report("at module level, move():", moved_trace)

# A moved-from array cannot be used by mistake.
old = ca.zeros(3)
new = ca.move(old)
try:
    old + 1
except ValueError as error:
    print("using a moved array:", str(error).split(";")[0])
