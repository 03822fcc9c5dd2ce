"""The per-operation targets in one run: every row, cowarray beside NumPy and torch.

Run: ``python benchmarks/targets.py`` (``--quick``: the torch bridge at 10^3
and 10^6 elements only, fewer rounds). Each row times its contenders in
interleaved rounds and keeps each one's best round (on the shared 2-core
machine the medians of sub-microsecond rows moved by 20-30% between two
runs), so drift hits every column alike. It prints cowarray's time over
the reference's (the column the target names) next to the target, and torch
where torch has the operation. Nothing here fails on a timing: it prints,
and ends with how many targets were met.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
from core import Case, _fmt_time, elementwise_cases, interleaved

import cowarray as ca

try:
    import torch

    from cowarray.interop.torch import from_torch, to_torch
except ImportError:  # the bridge rows and the torch columns need torch
    torch = None

_met: list[bool] = []


def _best(contenders: dict[str, Case], rounds: int) -> dict[str, float]:
    return interleaved(contenders, rounds, pick=min)


def _row(label: str, target: float | None, times: dict[str, float], reference: str) -> None:
    """One line: cowarray, each other contender with cowarray's ratio to it, the verdict
    (``target`` None: a row shown for context, with no target of its own)."""
    ours = times["cowarray"]
    cells = [f"{label:<40}", f"cowarray {_fmt_time(ours)}"]
    cells += [
        f"{name} {_fmt_time(seconds)} (x{ours / seconds:5.2f})"
        for name, seconds in times.items()
        if name != "cowarray"
    ]
    if target is None:
        print("  ".join(cells) + "   (context)")
        return
    met = ours / times[reference] <= target
    _met.append(met)
    verdict = "met" if met else "missed"
    print("  ".join(cells) + f"   target x{target:g} vs {reference}: {verdict}")


def bench_torch_bridge(sizes: list[int], rounds: int) -> None:
    print("\n== the torch bridge (the crossing and the release of its result, timed together)")
    if torch is None:
        print("torch is not installed: rows skipped")
        return
    for n in sizes:
        names: dict[str, Any] = {
            "x": ca.zeros(n, dtype=ca.float32),
            "a": np.zeros(n, dtype=np.float32),
            "t": torch.zeros(n, dtype=torch.float32),
            "torch": torch,
            "to_torch": to_torch,
            "from_torch": from_torch,
        }
        exponent = len(str(n)) - 1
        out: dict[str, Case] = {
            "cowarray": ("to_torch(x)", names),
            "torch.from_dlpack": ("torch.from_dlpack(a)", names),
            "torch.from_numpy": ("torch.from_numpy(a)", names),
        }
        _row(f"to_torch(x)  n=10^{exponent}", 2, _best(out, rounds), "torch.from_dlpack")
        back: dict[str, Case] = {
            "cowarray": ("from_torch(t)", names),
            "np.from_dlpack": ("np.from_dlpack(t)", names),
        }
        _row(f"from_torch(t)  n=10^{exponent}", 2, _best(back, rounds), "np.from_dlpack")


def bench_functional_updates(rounds: int) -> None:
    print("\n== functional updates, 10^6 float64 (ratio per update to NumPy's a[i] = v)")
    n = 10**6
    names: dict[str, Any] = {"box": [ca.zeros(n)], "a": np.zeros(n)}
    single: dict[str, Case] = {
        "cowarray": ("box[0] = ca.move(box[0]).at[5].set(1.0)", names),
        "numpy": ("a[5] = 1.0", names),
    }
    # Every update after the first of a chain updates a temporary.
    chain = "".join(f".at[{i}].set(1.0)" for i in range(8))
    eight: dict[str, Case] = {
        "cowarray": (f"box[0] = ca.move(box[0]){chain}", names),
        "numpy": ("; ".join(f"a[{i}] = 1.0" for i in range(8)), names),
    }
    if torch is not None:
        names.update(t=torch.zeros(n, dtype=torch.float64))
        single["torch"] = ("t[5] = 1.0", names)
        eight["torch"] = ("; ".join(f"t[{i}] = 1.0" for i in range(8)), names)
    _row("x = ca.move(x).at[5].set(1.0)", 20, _best(single, rounds), "numpy")
    _row("a chain of 8 updates (7 of temporaries)", 20, _best(eight, rounds), "numpy")


def bench_views(rounds: int) -> None:
    print("\n== views (steady state: the array's record exists after its first view)")
    a, a2 = np.ones(1000), np.ones((20, 50))
    names: dict[str, Any] = {"a": a, "a2": a2, "x": ca.asarray(a), "x2": ca.asarray(a2)}
    names["x"][1:5], names["x2"].T  # the first views make the records
    cases: dict[str, dict[str, Case]] = {
        "x.T  (20x50)": {"cowarray": ("x2.T", names), "numpy": ("a2.T", names)},
        "x[1:5]  (10^3)": {"cowarray": ("x[1:5]", names), "numpy": ("a[1:5]", names)},
        "ca.reshape(x, (50, 20))": {
            "cowarray": ("ca.reshape(x2, (50, 20))", names),
            "numpy": ("a2.reshape((50, 20))", names),
        },
    }
    if hasattr(ca.Array, "reshape"):  # (the method is not in 0.1, which this also measures)
        cases["x.reshape(50, 20)"] = {
            "cowarray": ("x2.reshape(50, 20)", names),
            "numpy": ("a2.reshape(50, 20)", names),
        }
    if torch is not None:
        names.update(t=torch.ones(1000, dtype=torch.float64), t2=torch.ones(20, 50))
        cases["x.T  (20x50)"]["torch"] = ("t2.T", names)
        cases["x[1:5]  (10^3)"]["torch"] = ("t[1:5]", names)
        cases["ca.reshape(x, (50, 20))"]["torch"] = ("t2.reshape((50, 20))", names)
        if "x.reshape(50, 20)" in cases:
            cases["x.reshape(50, 20)"]["torch"] = ("t2.reshape(50, 20)", names)
    for label, contenders in cases.items():
        _row(label, 3, _best(contenders, rounds), "numpy")


def bench_elementwise(rounds: int) -> None:
    if hasattr(ca, "get_num_threads"):  # (not in 0.1, which this script also measures)
        pool = f"{ca.get_num_threads()} threads from {ca.get_parallel_threshold()} elements"
    else:
        pool = "no thread pool"
    print(f"\n== element-wise ({pool})")
    # (label, size) -> the target ratio to NumPy; None: shown beside torch for context
    targets: dict[tuple[str, int], float | None] = {
        ("a + b", 1000): 1.6,
        ("a + b", 10**6): 1.03,
        ("a + b", 4_000_000): None,
        ("sin(a)", 4_000_000): 0.6,
        ("exp(a)", 4_000_000): 0.6,
        ("a * b + c", 4_000_000): 0.6,
    }
    for n in (1000, 10**6, 4_000_000):
        cases = elementwise_cases(n)
        exponent = "4*10^6" if n == 4_000_000 else f"10^{len(str(n)) - 1}"
        if n == 4_000_000:
            names = cases["a * b + c"]["numpy"][1]
            names["by_hand"] = _fused_by_hand(names["a"], names["b"], names["c"])
            cases["a * b + c"]["by hand"] = ("by_hand()", names)
        for label, contenders in cases.items():
            if (label, n) in targets:
                times = _best(contenders, rounds)
                _row(f"{label}  n={exponent}", targets[label, n], times, "numpy")
                if "by hand" in times:
                    print(
                        f"    by hand / numpy: x{times['by hand'] / times['numpy']:.2f} (NumPy's "
                        "multiply and add on each thread's part, into memory already\n"
                        "    touched; no cowarray, no new memory: the bound this machine's "
                        "memory sets for the split)"
                    )


def _fused_by_hand(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> Any:
    """``a * b + c`` split by hand over ``ca.get_num_threads()`` threads: each
    computes its part of the output with two NumPy calls, into an output
    allocated and touched once. A bound for the split, not a contender."""
    out = np.empty_like(a)
    out.fill(0.0)
    parts = ca.get_num_threads()
    step = -(-a.size // parts)
    pieces = [slice(lo, lo + step) for lo in range(0, a.size, step)]
    pool = ThreadPoolExecutor(max_workers=max(1, parts - 1))

    def part(piece: slice) -> None:
        np.multiply(a[piece], b[piece], out=out[piece])
        np.add(out[piece], c[piece], out=out[piece])

    def by_hand() -> np.ndarray:
        others = [pool.submit(part, piece) for piece in pieces[1:]]
        part(pieces[0])
        for other in others:
            other.result()
        return out

    return by_hand


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small bridge sizes, fewer rounds")
    args = parser.parse_args(argv)
    rounds = 5 if args.quick else 9
    start = time.perf_counter()
    print(f"cowarray {ca.__version__} from {ca.__file__}")
    print(f"NumPy {np.__version__}, Python {sys.version.split()[0]}")
    print(f"torch {torch.__version__ if torch is not None else 'not installed: columns skipped'}")
    bench_torch_bridge([10**3, 10**6] if args.quick else [10**3, 10**6, 10**8], rounds)
    bench_functional_updates(rounds)
    bench_views(rounds)
    bench_elementwise(rounds)
    print(
        f"\n{sum(_met)} of {len(_met)} targets met "
        f"({time.perf_counter() - start:.0f} s; ratios are cowarray's time over the reference's)"
    )


if __name__ == "__main__":
    main()
