"""What seeing copy-on-write costs the hot path when nobody is looking.

Times lazy_clone, ``a + b`` at n=10^3, ``x[1:5]`` and ``x[i] = v`` in fresh
processes importing cowarray from two checkouts, interleaved (alternating
which goes first), and prints the medians and the after/before ratios.
Fresh processes differ by several percent on their own (memory layout; ``a +
b`` at 10^3 runs at its operands' alignment, so it is timed at 8 offsets):
run it with ``--before`` and ``--after`` set to the same checkout to see that
noise floor. With ``--before`` omitted it compares
the checkout with itself (a noise floor). A third column times the same with
a ``trace()`` open, to show what looking costs.

Run: python benchmarks/debug_overhead.py --before /path/to/other/checkout
(the path holds a ``cowarray`` package, e.g. from
``git archive main cowarray | tar -x -C /tmp/base``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

WORKER = r"""
import json, statistics, sys, timeit, contextlib
import numpy as np
import cowarray as ca
x = ca.arange(1000, dtype=ca.float64)
w = ca.zeros(1000)
w[0] = 0.0  # the first write makes later plain scalar writes take the fast path
# a + b at 10^3 runs at the speed of its operands' alignment, which depends on
# the heap's history (which modules were imported): time 8 offsets, take the median.
pairs = [
    (ca.asarray(np.ones(1008)[k : k + 1000]), ca.asarray(np.ones(1008)[k : k + 1000]))
    for k in range(8)
]
cases = {
    "lazy_clone": [lambda: ca.lazy_clone(x)],
    "a + b (10^3)": [lambda a=a, b=b: a + b for a, b in pairs],
    "x[1:5]": [lambda: x[1:5]],
    "x[i] = v": [lambda: w.__setitem__(3, 1.0)],
}
looking = sys.argv[1] == "trace"
context = ca.trace() if looking else contextlib.nullcontext()
number = 2000 if looking else 20000
out = {}
with context:
    for name, functions in cases.items():
        times = [min(timeit.Timer(f).repeat(repeat=5, number=number)) for f in functions]
        out[name] = statistics.median(times) / number * 1e9
print(json.dumps(out))
"""


def run(path: str, mode: str) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=path)
    result = subprocess.run(
        [sys.executable, "-c", WORKER, mode], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=HERE, help="checkout without the change")
    parser.add_argument("--after", default=HERE, help="checkout with the change")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    samples: dict[str, list[dict[str, float]]] = {"before": [], "after": [], "tracing": []}
    for round_number in range(args.rounds):
        # Alternate which checkout runs first: process order shifts timings.
        order = ["before", "after"] if round_number % 2 == 0 else ["after", "before"]
        for side in order:
            samples[side].append(run(getattr(args, side), "plain"))
        samples["tracing"].append(run(args.after, "trace"))
    names = list(samples["before"][0])
    print(
        f"{'operation':<14} {'before ns':>10} {'after ns':>10} {'after/before':>13} "
        f"{'tracing ns':>11}"
    )
    for name in names:
        before = statistics.median(s[name] for s in samples["before"])
        after = statistics.median(s[name] for s in samples["after"])
        tracing = statistics.median(s[name] for s in samples["tracing"])
        print(f"{name:<14} {before:>10.0f} {after:>10.0f} {after / before:>13.2f} {tracing:>11.0f}")


if __name__ == "__main__":
    main()
