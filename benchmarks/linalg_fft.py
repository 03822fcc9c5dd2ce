"""The linalg and fft extensions' typical ops: cowarray against NumPy, array-api-strict and torch.

For every op and size (n = 10^3 and 10^6 elements; matrices are square with
about n elements) the script times the same call on each library,
interleaving the libraries round by round, and keeps the best round (the
least disturbed on a shared machine). It prints microseconds per call and the
ratios cowarray/NumPy, cowarray/array-api-strict and cowarray/torch, and marks
each row against the targets of issue 3: at 10^3 at most 2.5x NumPy and
faster than array-api-strict, at 10^6 within 5% of NumPy. torch (CPU) is
optional: its column is left out when it is not installed.

Run: python benchmarks/linalg_fft.py [--rounds 7] [--sizes 1000 1000000]
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
        "m": rng.standard_normal((side, side)),
        "z": (rng.standard_normal(n) + 1j * rng.standard_normal(n)),
    }


# One body for every library that implements the standard's names.
STANDARD_OPS: dict[str, tuple[str, Op]] = {
    "matmul": ("matmul(m, m)", lambda xp, v: xp.matmul(v["m"], v["m"])),
    "vecdot": ("vecdot(a, b)", lambda xp, v: xp.vecdot(v["a"], v["b"])),
    "vector_norm": ("linalg.vector_norm(a)", lambda xp, v: xp.linalg.vector_norm(v["a"])),
    "fft": ("fft.fft(z)", lambda xp, v: xp.fft.fft(v["z"])),
    "rfft": ("fft.rfft(a)", lambda xp, v: xp.fft.rfft(v["a"])),
}

TORCH_OPS: dict[str, Op] = {
    "matmul": lambda t, v: t.matmul(v["m"], v["m"]),
    "vecdot": lambda t, v: t.linalg.vecdot(v["a"], v["b"]),
    "vector_norm": lambda t, v: t.linalg.vector_norm(v["a"]),
    "fft": lambda t, v: t.fft.fft(v["z"]),
    "rfft": lambda t, v: t.fft.rfft(v["a"]),
}


def _libraries() -> dict[str, tuple[Any, Callable[[np.ndarray], Any]]]:
    """name -> (namespace, convert a NumPy input)."""
    libraries: dict[str, tuple[Any, Callable[[np.ndarray], Any]]] = {
        "numpy": (np, lambda a: a),
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


def _time(call: Callable[[], Any], budget: float) -> float:
    timer = timeit.Timer(call)
    number, elapsed = timer.autorange()
    number = max(1, int(number * budget / max(elapsed, 1e-9)))
    return timer.timeit(number) / number


def measure(sizes: list[int], rounds: int, budget: float) -> list[dict[str, Any]]:
    libraries = _libraries()
    rows = []
    for op_name, (label, op) in STANDARD_OPS.items():
        for n in sizes:
            raw = _inputs(n)
            calls: dict[str, Callable[[], Any]] = {}
            for name, (xp, convert) in libraries.items():
                values = {key: convert(array) for key, array in raw.items()}
                body = TORCH_OPS[op_name] if name == "torch" else op
                calls[name] = lambda body=body, xp=xp, values=values: body(xp, values)
            best = {name: float("inf") for name in calls}
            for _ in range(rounds):
                for name, call in calls.items():
                    best[name] = min(best[name], _time(call, budget))
            rows.append({"op": label, "n": n, **best})
    return rows


def _verdict(row: dict[str, Any]) -> str:
    ratio = row["cowarray"] / row["numpy"]
    small = row["n"] <= 10**3
    ok = (ratio <= 2.5 and row["cowarray"] < row["strict"]) if small else ratio <= 1.05
    return "ok" if ok else "MISS"


def report(rows: list[dict[str, Any]]) -> None:
    has_torch = "torch" in rows[0]
    header = (
        f"{'op':<24}{'n':>8}{'numpy us':>11}{'cowarray us':>13}"
        f"{'ca/np':>7}{'strict us':>11}{'ca/strict':>10}"
    )
    if has_torch:
        header += f"{'torch us':>10}{'ca/torch':>9}"
    print(header + "  target")
    for row in rows:
        line = (
            f"{row['op']:<24}{row['n']:>8}{row['numpy'] * 1e6:>11.2f}"
            f"{row['cowarray'] * 1e6:>13.2f}{row['cowarray'] / row['numpy']:>7.2f}"
            f"{row['strict'] * 1e6:>11.2f}{row['cowarray'] / row['strict']:>10.2f}"
        )
        if has_torch:
            line += f"{row['torch'] * 1e6:>10.2f}{row['cowarray'] / row['torch']:>9.2f}"
        print(line + f"  {_verdict(row)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10**3, 10**6])
    parser.add_argument("--budget", type=float, default=0.05, help="seconds per timing")
    args = parser.parse_args()
    report(measure(args.sizes, args.rounds, args.budget))


if __name__ == "__main__":
    main()
