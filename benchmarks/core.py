"""Core benchmarks: cowarray against NumPy (and torch, when installed) side by side.

Run: ``python benchmarks/core.py`` (``--quick`` skips the 10^8 sizes).

Every row times its contenders in interleaved rounds and reports medians, so
drift on a busy machine hits all columns alike. Ratios are cowarray's time
over the other library's (lower is better for cowarray), except the two
bandwidth rows, which report cowarray's speed as a fraction of NumPy's
(higher is better). Nothing here fails on a timing: it prints.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import timeit
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np

import cowarray as ca

try:
    import torch
except ImportError:  # the torch columns are optional
    torch = None


Case = tuple[str, dict[str, Any]]


def _per_call(case: Case, budget: float = 0.02) -> float:
    """Seconds per run of a statement, timed in one batch of about ``budget`` seconds.

    A statement (not a lambda) is timed as users write it, ``x[5] = 1.0``.
    Names are bound in the setup, so ``x += 1`` works on a local.
    """
    statement, names = case
    setup = "; ".join(f"{name} = __names[{name!r}]" for name in names) or "pass"
    timer = timeit.Timer(statement, setup=setup, globals={"__names": names, "ca": ca, "np": np})
    number, _ = timer.autorange()
    number = max(1, int(number * budget / 0.2))
    return timer.timeit(number) / number


def interleaved(
    contenders: dict[str, Case],
    rounds: int = 7,
    pick: Callable[[list[float]], float] = statistics.median,
) -> dict[str, float]:
    """Seconds per run of each contender (``pick`` of its rounds: the median
    unless told otherwise), timed in alternating rounds."""
    samples: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(rounds):
        for name, case in contenders.items():
            samples[name].append(_per_call(case))
    return {name: pick(values) for name, values in samples.items()}


def _fmt_time(seconds: float) -> str:
    if seconds < 1e-6:
        return f"{seconds * 1e9:7.0f} ns"
    if seconds < 1e-3:
        return f"{seconds * 1e6:7.2f} us"
    return f"{seconds * 1e3:7.2f} ms"


def _row(label: str, times: dict[str, float], base: str = "cowarray") -> None:
    ours = times[base]
    cells = [f"{label:<34}", f"cowarray {_fmt_time(ours)}"]
    for name, seconds in times.items():
        if name != base:
            cells.append(f"{name} {_fmt_time(seconds)} (x{ours / seconds:5.2f})")
    print("  ".join(cells))


def bench_lazy_clone(sizes: list[int]) -> None:
    print("\n== lazy_clone vs np.copy vs torch._lazy_clone (ratio: cowarray time / theirs)")
    for n in sizes:
        contenders: dict[str, Case] = {
            "cowarray": ("ca.lazy_clone(x)", {"x": ca.zeros(n, dtype=ca.float32)}),
            "np.copy": ("a.copy()", {"a": np.zeros(n, dtype=np.float32)}),
        }
        if torch is not None:
            contenders["torch._lazy_clone"] = (
                "torch._lazy_clone(t)",
                {"t": torch.zeros(n, dtype=torch.float32), "torch": torch},
            )
        rounds = 3 if n >= 10**8 else 7
        _row(f"lazy_clone n=10^{len(str(n)) - 1}", interleaved(contenders, rounds))


def bench_materialize(sizes: list[int]) -> None:
    print("\n== first write after a clone (materialization) vs NumPy copies")
    print("   (fraction: NumPy's time / cowarray's time; 1.0 = same speed)")
    for n in sizes:
        a = np.ones(n, dtype=np.float32)
        names = {"a": a, "dst": np.empty_like(a), "x": ca.asarray(a)}
        rounds = 3 if n >= 10**8 else 7
        times = interleaved(
            {
                "cowarray": ("y = ca.lazy_clone(x); y[0] = 2.0", names),
                "np.copyto": ("np.copyto(dst, a)", names),
                "a.copy()": ("a.copy()", names),
            },
            rounds,
        )
        exponent = len(str(n)) - 1
        print(
            f"clone + first write n=10^{exponent:<2}  cowarray {_fmt_time(times['cowarray'])}"
            f"  vs np.copyto bandwidth: {times['np.copyto'] / times['cowarray']:.2f}"
            f"  vs a.copy() speed: {times['a.copy()'] / times['cowarray']:.2f}"
        )


def bench_writes() -> None:
    print("\n== sole-owner writes (ratio: cowarray time / theirs)")
    for n in (10**3, 10**6):
        x = ca.zeros(n)
        x[0] = 0.0  # the first write proves the array private; later ones are plain
        names: dict[str, Any] = {"x": x, "a": np.zeros(n)}
        setitem: dict[str, Case] = {
            "cowarray": ("x[5] = 1.0", names),
            "numpy": ("a[5] = 1.0", names),
        }
        iadd: dict[str, Case] = {"cowarray": ("x += 1.0", names), "numpy": ("a += 1.0", names)}
        if torch is not None:
            names["t"] = torch.zeros(n, dtype=torch.float64)
            setitem["torch"] = ("t[5] = 1.0", names)
            iadd["torch"] = ("t += 1.0", names)
        _row(f"x[i] = v  n=10^{len(str(n)) - 1}", interleaved(setitem))
        _row(f"x += 1    n=10^{len(str(n)) - 1}", interleaved(iadd))


def bench_small_ops() -> None:
    print("\n== small ops (ratio: cowarray time / theirs)")
    for n in (10, 10**3, 10**6):
        side = round(n**0.5)
        shape = (side, n // side) if side * (n // side) == n else (n,)
        a, a2 = np.ones(n), np.ones((side, n // side))
        names: dict[str, Any] = {
            "a": a,
            "b": np.ones(n),
            "a2": a2,
            "x": ca.asarray(a),
            "y": ca.asarray(a),
            "x2": ca.asarray(a2),
            "shape": shape,
        }
        cases: dict[str, dict[str, Case]] = {
            "a + b": {"cowarray": ("x + y", names), "numpy": ("a + b", names)},
            "a[1:5]": {"cowarray": ("x[1:5]", names), "numpy": ("a[1:5]", names)},
            ".T": {"cowarray": ("x2.T", names), "numpy": ("a2.T", names)},
            "reshape": {
                "cowarray": ("ca.reshape(x, shape)", names),
                "numpy": ("np.reshape(a, shape)", names),
            },
        }
        if torch is not None:
            names.update(
                torch=torch,
                ta=torch.ones(n, dtype=torch.float64),
                tb=torch.ones(n, dtype=torch.float64),
                t2=torch.ones(a2.shape, dtype=torch.float64),
            )
            cases["a + b"]["torch"] = ("ta + tb", names)
            cases["a[1:5]"]["torch"] = ("ta[1:5]", names)
            cases[".T"]["torch"] = ("t2.T", names)
            cases["reshape"]["torch"] = ("torch.reshape(ta, shape)", names)
        for label, contenders in cases.items():
            _row(f"{label:<8} n=10^{len(str(n)) - 1}", interleaved(contenders))


def _before_the_split(name: str) -> Any:
    """``name``'s operation bound to NumPy's own ufunc, as it ran before the split."""
    from cowarray._backends.numpy import NUMPY_BACKEND
    from cowarray._operators import binary_operation

    xp = NUMPY_BACKEND.xp
    split = getattr(xp, name)
    operation = binary_operation(name)
    setattr(xp, name, split.__wrapped__)
    try:
        operation(ca.ones(1), ca.ones(1))  # binds the backend's function once, per device
    finally:
        setattr(xp, name, split)
    return operation


def elementwise_cases(n: int) -> dict[str, dict[str, Case]]:
    """``sin(a)``, ``exp(a)``, ``a * b + c`` and ``a + b`` on ``n`` random float64,
    as cowarray, NumPy and (when installed) torch write them; one names dict."""
    rng = np.random.default_rng(n)
    a, b, c = rng.random(n), rng.random(n), rng.random(n)
    names: dict[str, Any] = {"a": a, "b": b, "c": c}
    names.update(x=ca.asarray(a), y=ca.asarray(b), z=ca.asarray(c))
    cases: dict[str, dict[str, Case]] = {
        "sin(a)": {"cowarray": ("ca.sin(x)", names), "numpy": ("np.sin(a)", names)},
        "exp(a)": {"cowarray": ("ca.exp(x)", names), "numpy": ("np.exp(a)", names)},
        "a * b + c": {"cowarray": ("x * y + z", names), "numpy": ("a * b + c", names)},
        "a + b": {"cowarray": ("x + y", names), "numpy": ("a + b", names)},
    }
    if torch is not None:
        names.update(torch=torch, ta=torch.from_numpy(a), tb=torch.from_numpy(b))
        names.update(tc=torch.from_numpy(c))
        cases["sin(a)"]["torch"] = ("torch.sin(ta)", names)
        cases["exp(a)"]["torch"] = ("torch.exp(ta)", names)
        cases["a * b + c"]["torch"] = ("ta * tb + tc", names)
        cases["a + b"]["torch"] = ("ta + tb", names)
    return cases


def bench_parallel_elementwise() -> None:
    print(
        f"\n== element-wise on every core ({ca.get_num_threads()} threads from "
        f"{ca.get_parallel_threshold()} elements; ratio: cowarray time / theirs)"
    )
    targets = {4_000_000: "<= 0.60 vs numpy", 1000: "one NumPy call: no slower than before"}
    for n in (1000, 4_000_000):
        cases = elementwise_cases(n)
        names = cases["a + b"]["cowarray"][1]
        names.update(add=_before_the_split("add"), multiply=_before_the_split("multiply"))
        # the same calls through the functions, with and without the split check
        cases["a * b + c"]["function"] = ("ca.add(ca.multiply(x, y), z)", names)
        cases["a * b + c"]["before"] = ("add(multiply(x, y), z)", names)
        cases["a + b"]["function"] = ("ca.add(x, y)", names)
        cases["a + b"]["before"] = ("add(x, y)", names)
        rounds = 5 if n > 10**6 else 7
        for label, contenders in cases.items():
            times = interleaved(contenders, rounds)
            exponent = "4*10^6" if n == 4_000_000 else "10^3"
            _row(f"{label:<9} n={exponent}", times)
            note = f"target: {targets[n]}"
            if "before" in times:
                change = times["function"] / times["before"]
                note += f"; the functions now / before the split: x{change:5.2f}"
            print(f"{'':34}  {note}")


def bench_clone_memory(nbytes: int) -> None:
    print("\n== memory of 100 lazy clones")
    x = ca.zeros(nbytes // 4, dtype=ca.float32)
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    clones = [ca.lazy_clone(x) for _ in range(100)]
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    print(
        f"100 lazy clones of a {nbytes / 1e6:.0f} MB array: {(after - before) / 1024:.1f} KiB "
        f"traced ({len(clones)} clones alive)"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip the 10^8-element sizes")
    args = parser.parse_args(argv)
    big = [] if args.quick else [10**8]
    print(f"cowarray {ca.__version__}, NumPy {np.__version__}, Python {sys.version.split()[0]}")
    print(f"torch {torch.__version__ if torch is not None else 'not installed: columns skipped'}")
    bench_lazy_clone([10**3, 10**6, *big])
    bench_materialize([10**5, 10**6, *big])
    bench_writes()
    bench_small_ops()
    bench_parallel_elementwise()
    bench_clone_memory(400_000_000 if not args.quick else 40_000_000)


if __name__ == "__main__":
    main()
