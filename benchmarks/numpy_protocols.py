"""What NumPy's protocols cost: ``np.sin(x)`` on a cowarray array beside ``ca.sin(x)`` and NumPy.

NEP 13/18 (cowarray/_numpy_protocols.py) let NumPy's functions take cowarray
arrays and return cowarray values. Each row times the same operation three
ways, interleaved round by round in one run, and keeps the fastest of many
short repeats: NumPy on an ndarray, cowarray's namespace function, and the
NumPy function called on a cowarray array (through the protocol). It prints
microseconds per call and the ratios to NumPy. torch (CPU) is shown where it
has the operation, when it is installed. Nothing here fails on a timing.

Run: python benchmarks/numpy_protocols.py [--rounds 7] [--sizes 1000 1000000] [--quick]
"""

from __future__ import annotations

import argparse
import os
import sys
import timeit
from collections.abc import Callable
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import cowarray as ca

Op = Callable[[], Any]


def _rows(n: int) -> list[tuple[str, Op, Op, Op, Op | None]]:
    """(label, NumPy on ndarray, ca namespace, np function on a cowarray array, torch)."""
    rng = np.random.default_rng(0)
    a_np, b_np = rng.standard_normal(n), rng.standard_normal(n)
    a, b = ca.asarray(a_np), ca.asarray(b_np)
    side = max(2, int(n**0.5))
    m_np = rng.standard_normal((side, side))
    m = ca.asarray(m_np)
    try:
        import torch

        a_t, b_t, m_t = (torch.from_numpy(v.copy()) for v in (a_np, b_np, m_np))
    except ImportError:
        torch = None
    return [
        ("sin(a)", lambda: np.sin(a_np), lambda: ca.sin(a), lambda: np.sin(a),
         (lambda: torch.sin(a_t)) if torch else None),
        ("add(a, b)", lambda: np.add(a_np, b_np), lambda: ca.add(a, b), lambda: np.add(a, b),
         (lambda: torch.add(a_t, b_t)) if torch else None),
        ("a + ndarray", lambda: a_np + b_np, lambda: a + b, lambda: a + b_np, None),
        ("sum(a)", lambda: np.sum(a_np), lambda: ca.sum(a), lambda: np.sum(a),
         (lambda: torch.sum(a_t)) if torch else None),
        ("add.reduce(a)", lambda: np.add.reduce(a_np), lambda: ca.sum(a),
         lambda: np.add.reduce(a), None),
        ("concatenate([a, b])", lambda: np.concatenate([a_np, b_np]),
         lambda: ca.concat([a, b]), lambda: np.concatenate([a, b]),
         (lambda: torch.cat([a_t, b_t])) if torch else None),
        ("mean(m, axis=0)", lambda: np.mean(m_np, axis=0), lambda: ca.mean(m, axis=0),
         lambda: np.mean(m, axis=0), (lambda: torch.mean(m_t, dim=0)) if torch else None),
        ("x.sum() method", lambda: a_np.sum(), lambda: ca.sum(a), lambda: a.sum(),
         (lambda: a_t.sum()) if torch else None),
    ]  # fmt: skip


def _best(op: Op, number: int) -> float:
    return min(timeit.repeat(op, number=number, repeat=3)) / number


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 1_000_000])
    parser.add_argument("--quick", action="store_true", help="10^3 only, 3 rounds")
    args = parser.parse_args()
    sizes, rounds = ([1_000], 3) if args.quick else (args.sizes, args.rounds)
    header = (
        f"{'n':>9} {'operation':<22} {'numpy':>9} {'ca.f':>9} {'np.f(ca)':>9} {'torch':>9}"
        f" {'ca.f/np':>8} {'np.f(ca)/np':>11} {'np.f(ca)/torch':>14}"
    )
    print("microseconds per call, fastest of interleaved rounds")
    print(header)
    for n in sizes:
        number = max(1, 200_000 // max(n, 1_000))
        for label, numpy_op, ca_op, protocol_op, torch_op in _rows(n):
            ops = [numpy_op, ca_op, protocol_op] + ([torch_op] if torch_op else [])
            best = [float("inf")] * len(ops)
            for _ in range(rounds):
                for i, op in enumerate(ops):
                    best[i] = min(best[i], _best(op, number))
            numpy_t, ca_t, protocol_t = best[:3]
            torch_t = best[3] if torch_op else float("nan")
            print(
                f"{n:>9} {label:<22} {numpy_t * 1e6:>9.2f} {ca_t * 1e6:>9.2f}"
                f" {protocol_t * 1e6:>9.2f} {torch_t * 1e6:>9.2f} {ca_t / numpy_t:>8.2f}"
                f" {protocol_t / numpy_t:>11.2f} {protocol_t / torch_t:>14.2f}"
            )


if __name__ == "__main__":
    main()
