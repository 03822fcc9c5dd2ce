"""Each Array API chapter's typical op: cowarray against NumPy, array-api-strict and torch.

The chapters include the linalg and fft extensions (matrices are square with
about n elements). For every op and size (n = 10^3 and 10^6) the script times the same call on
each library, interleaving the libraries round by round, and keeps the
fastest of many short repeats (the least disturbed on a shared machine). It
prints microseconds per call and the ratios cowarray/NumPy,
cowarray/array-api-strict and cowarray/torch, and marks each row against the
targets: at 10^3 at most 2.5x NumPy and faster than
array-api-strict, at 10^6 within 5% of NumPy.
torch (CPU) is optional: its column is left out when it is not installed.

Run: python benchmarks/api.py [--rounds 7] [--sizes 1000 1000000]
"""

from __future__ import annotations

import argparse
import importlib
import math
import os
import sys
import timeit
from collections.abc import Callable
from typing import Any

import numpy as np

# Run from a checkout without installing: import the cowarray next to this script.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import cowarray

Inputs = dict[str, Any]
Op = Callable[[Any, Inputs], Any]


def _inputs(n: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    side = max(2, math.isqrt(n))
    return {
        "a": rng.standard_normal(n),
        "b": rng.standard_normal(n),
        "cond": rng.standard_normal(n) > 0,
        "ints": rng.integers(0, max(n // 10, 1), n),
        "index": rng.integers(0, n, max(n // 10, 1)),
        "m": rng.standard_normal((side, side)),
        "z": rng.standard_normal(n) + 1j * rng.standard_normal(n),
    }


# One body for every library that implements the standard's names.
STANDARD_OPS: dict[str, tuple[str, Op]] = {
    "elementwise": ("hypot(a, b)", lambda xp, v: xp.hypot(v["a"], v["b"])),
    "manipulation": ("concat([a, b])", lambda xp, v: xp.concat([v["a"], v["b"]])),
    "indexing": ("take(a, index)", lambda xp, v: xp.take(v["a"], v["index"])),
    "searching": ("where(cond, a, b)", lambda xp, v: xp.where(v["cond"], v["a"], v["b"])),
    "sorting": ("sort(a)", lambda xp, v: xp.sort(v["a"])),
    "sets": ("unique_values(ints)", lambda xp, v: xp.unique_values(v["ints"])),
    "statistical": ("std(a)", lambda xp, v: xp.std(v["a"])),
    "utility": ("diff(a)", lambda xp, v: xp.diff(v["a"])),
    "linalg": ("matmul(m, m)", lambda xp, v: xp.matmul(v["m"], v["m"])),
    "linalg vecdot": ("vecdot(a, b)", lambda xp, v: xp.vecdot(v["a"], v["b"])),
    "linalg norm": ("linalg.vector_norm(a)", lambda xp, v: xp.linalg.vector_norm(v["a"])),
    "fft": ("fft.fft(z)", lambda xp, v: xp.fft.fft(v["z"])),
    "fft rfft": ("fft.rfft(a)", lambda xp, v: xp.fft.rfft(v["a"])),
}

TORCH_OPS: dict[str, Op] = {
    "elementwise": lambda t, v: t.hypot(v["a"], v["b"]),
    "manipulation": lambda t, v: t.cat([v["a"], v["b"]]),
    "indexing": lambda t, v: t.index_select(v["a"], 0, v["index"]),
    "searching": lambda t, v: t.where(v["cond"], v["a"], v["b"]),
    "sorting": lambda t, v: t.sort(v["a"], stable=True).values,
    "sets": lambda t, v: t.unique(v["ints"], sorted=False),
    "statistical": lambda t, v: t.std(v["a"], correction=0),
    "utility": lambda t, v: t.diff(v["a"]),
    "linalg": lambda t, v: t.matmul(v["m"], v["m"]),
    "linalg vecdot": lambda t, v: t.linalg.vecdot(v["a"], v["b"]),
    "linalg norm": lambda t, v: t.linalg.vector_norm(v["a"]),
    "fft": lambda t, v: t.fft.fft(v["z"]),
    "fft rfft": lambda t, v: t.fft.rfft(v["a"]),
}


def _libraries() -> dict[str, tuple[Any, Callable[[np.ndarray], Any]]]:
    """name -> (namespace, convert a NumPy input)."""
    libraries: dict[str, tuple[Any, Callable[[np.ndarray], Any]]] = {
        # every library gets its own fresh copy, so memory placement is alike
        "numpy": (np, lambda a: np.array(a, copy=True)),
        "cowarray": (cowarray, cowarray.asarray),
    }
    strict = importlib.import_module("array_api_strict")
    libraries["strict"] = (strict, strict.asarray)
    try:
        torch = importlib.import_module("torch")
    except ImportError:
        return libraries
    torch.set_num_threads(1)
    libraries["torch"] = (torch, torch.from_numpy)
    return libraries


def _calibrate(call: Callable[[], Any], seconds: float) -> int:
    """How many calls take about ``seconds``."""
    number, elapsed = timeit.Timer(call).autorange()
    return max(1, int(number * seconds / max(elapsed, 1e-9)))


def measure(sizes: list[int], rounds: int, budget: float) -> list[dict[str, Any]]:
    """Best time per call of each library, interleaved round by round.

    Each round times every library with three short repeats and keeps the
    fastest: short repeats are the ones least likely to be disturbed by other
    work on the machine, and interleaving spreads what disturbance there is.
    """
    libraries = _libraries()
    rows = []
    for chapter, (label, op) in STANDARD_OPS.items():
        for n in sizes:
            raw = _inputs(n)
            calls: dict[str, Callable[[], Any]] = {}
            for name, (xp, convert) in libraries.items():
                values = {key: convert(array) for key, array in raw.items()}
                body = TORCH_OPS[chapter] if name == "torch" else op
                calls[name] = lambda body=body, xp=xp, values=values: body(xp, values)
            numbers = {name: _calibrate(call, budget / 3) for name, call in calls.items()}
            best = {name: float("inf") for name in calls}
            for _ in range(rounds):
                for name, call in calls.items():
                    number = numbers[name]
                    fastest = min(timeit.Timer(call).repeat(repeat=3, number=number))
                    best[name] = min(best[name], fastest / number)
            rows.append({"chapter": chapter, "op": label, "n": n, **best})
    return rows


def _verdict(row: dict[str, Any]) -> str:
    ratio = row["cowarray"] / row["numpy"]
    small = row["n"] <= 10**3
    ok = (ratio <= 2.5 and row["cowarray"] < row["strict"]) if small else ratio <= 1.05
    return "ok" if ok else "MISS"


def report(rows: list[dict[str, Any]]) -> None:
    has_torch = "torch" in rows[0]
    header = (
        f"{'chapter':<15}{'op':<23}{'n':>8}{'numpy us':>11}{'cowarray us':>13}"
        f"{'ca/np':>7}{'strict us':>11}{'ca/strict':>10}"
    )
    if has_torch:
        header += f"{'torch us':>10}{'ca/torch':>9}"
    print(header + "  target")
    for row in rows:
        line = (
            f"{row['chapter']:<15}{row['op']:<23}{row['n']:>8}{row['numpy'] * 1e6:>11.2f}"
            f"{row['cowarray'] * 1e6:>13.2f}{row['cowarray'] / row['numpy']:>7.2f}"
            f"{row['strict'] * 1e6:>11.2f}{row['cowarray'] / row['strict']:>10.2f}"
        )
        if has_torch:
            line += f"{row['torch'] * 1e6:>10.2f}{row['cowarray'] / row['torch']:>9.2f}"
        print(line + f"  {_verdict(row)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10**3, 10**6])
    parser.add_argument("--budget", type=float, default=0.03, help="seconds per timing")
    args = parser.parse_args()
    report(measure(args.sizes, args.rounds, args.budget))


if __name__ == "__main__":
    main()
