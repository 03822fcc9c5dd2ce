"""Whole NumPy programs on NumPy, cowarray and torch, side by side in one run.

Run: ``python benchmarks/workloads.py`` (about 2 minutes on 2 cores) or
``--quick`` (small sizes, 3 rounds; about 10 seconds). ``--only NAME``
runs the workloads whose name contains NAME; ``--where`` adds, under each
row, the lines of this file at which cowarray copied (from ``ca.trace()``).

Each workload is written once, as NumPy code over an array namespace ``xp``,
and runs unchanged on

* NumPy (``xp = np`` on ndarrays), the reference;
* cowarray (``xp = ca`` on cowarray arrays): the NumPy spelling, with the
  standard's names where NumPy's and cowarray's agree (``xp.sqrt``,
  ``xp.where``, ``xp.mean(a, axis=0)``), ``a.copy()``, ``u[1:-1] += d``,
  ``np.add.at(hist, i, w)`` (through NumPy's protocols);
* cowarray in JAX style where it fits: the same computation with
  ``x = ca.move(x).at[i].set(v)``, the spelling cowarray documents as the
  zero-copy functional update (``x = x.at[i].set(v)`` copies by design: old
  ``x`` is a value that something may still see);
* torch (CPU, eager) through a thin namespace of torch's own functions
  (``_torch_namespace``); ``Tensor.copy`` is aliased to ``Tensor.clone``,
  the one NumPy method the programs call that torch spells differently, and
  the scatter update is torch's ``index_add_``.

Every program's result is checked against NumPy's (``allclose``) once per
run before anything is timed, so no ratio compares different work; a
library that raises or disagrees is reported and left out of its row.

Per (workload, size) row: NumPy's time per run, each contender's time over
NumPy's (best of interleaved rounds, as ``targets.py`` keeps them), the
copies cowarray's counters saw in one run (``ca.reset_copy_counters()`` /
``ca.copy_counters()``), and peak memory. Peak memory is ``tracemalloc``'s
peak over one run, in its own untimed run: NumPy reports its data buffers to
``tracemalloc`` and cowarray's buffers are NumPy's (page-granular
copy-on-write, ``COWARRAY_PAGE_COW``, maps memory that ``tracemalloc`` does
not see; it is off by default), so NumPy's and cowarray's columns count the
same allocations. torch's allocator does not report to ``tracemalloc``, so
torch has no memory column (an RSS peak would mix in the interpreter's and
the libraries' own memory).

NumPy computes on one thread and cowarray, as shipped, splits big
element-wise operations over every core (``ca.get_num_threads()``). torch
runs on one intra-op thread unless ``--torch-threads N`` says otherwise: on
the shared 2-core machine, with another process busy, torch's two OpenMP
threads took 1450 ms per run of a loop that one thread ran in 50-70 ms (60
element-wise operations on 10^5 float64; idle, both took 12-16 ms), as each
operation waits at a barrier for a thread without a core. Below some 32768
elements torch uses one thread anyway. Nothing here fails on a timing: it
prints.

NumPy's times depend on what the process freed before. glibc raises its
mmap threshold (to at most 32 MiB) when an mmapped block is freed, and its
heap trim threshold with it; once the heat equation's 32 MB arrays have been
freed, NumPy's temporaries in every later row come from the heap without
page faults. Measured: Black-Scholes at 10^5 takes NumPy 11.6-14.5 ms in a
process of its own and 7.7 ms here, the defensive-copy pipeline at 1000 rows
3.3 ms and 1.85 ms. cowarray reuses its dead blocks either way
(``ca.set_temporary_reuse``), so its ratios here are against NumPy at its
best. An ``--only`` run that leaves the heat equation out gets the same
from cowarray's kept blocks, which stay at the top of the heap: Black-Scholes
at 10^5 took NumPy 8.0-9.2 ms alone (2312 page faults a run) and 5.7-5.8 ms
with four 800 KB blocks kept (no fault).
"""

from __future__ import annotations

import argparse
import gc
import math
import sys
import time
import timeit
import tracemalloc
import types
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from core import _fmt_time

import cowarray as ca

try:
    import torch

    from cowarray.interop.torch import from_torch, to_torch
except ImportError:  # the torch column and the training loop need torch
    torch = None

Program = Callable[..., Any]


# ---------------------------------------------------------------- the programs
# Each takes the namespace first, then NumPy-built inputs converted to the
# library's arrays, then plain Python numbers; none changes its inputs.


def stencil_1d(xp: Any, u: Any, steps: int) -> Any:
    """Explicit heat equation on a ring: ghost cells at both ends."""
    u = u.copy()
    for _ in range(steps):
        u[1:-1] += 0.25 * (u[:-2] - 2.0 * u[1:-1] + u[2:])
        u[0] = u[-2]
        u[-1] = u[1]
    return u


# In JAX style a value taken from ``u`` is read before ``ca.move(u)`` ends
# ``u``; the helpers keep those values (views of ``u``) from outliving the step.


def _ring_ends(xp: Any, u: Any) -> Any:
    left, right = u[-2], u[1]
    return xp.move(u).at[0].set(left).at[-1].set(right)


def stencil_1d_jax(xp: Any, u: Any, steps: int) -> Any:
    u = u.copy()
    for _ in range(steps):
        change = 0.25 * (u[:-2] - 2.0 * u[1:-1] + u[2:])
        u = _ring_ends(xp, xp.move(u).at[1:-1].add(change))
    return u


def heat_2d(xp: Any, u: Any, steps: int) -> Any:
    """Explicit heat equation on a plate with insulated edges."""
    u = u.copy()
    for _ in range(steps):
        u[1:-1, 1:-1] += 0.2 * (
            u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1]
        )
        u[0] = u[1]
        u[-1] = u[-2]
        u[:, 0] = u[:, 1]
        u[:, -1] = u[:, -2]
    return u


def _insulated_edges(xp: Any, u: Any) -> Any:
    top, bottom = u[1], u[-2]
    u = xp.move(u).at[0].set(top).at[-1].set(bottom)
    left, right = u[:, 1], u[:, -2]
    return xp.move(u).at[:, 0].set(left).at[:, -1].set(right)


def heat_2d_jax(xp: Any, u: Any, steps: int) -> Any:
    u = u.copy()
    for _ in range(steps):
        change = 0.2 * (
            u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1]
        )
        u = _insulated_edges(xp, xp.move(u).at[1:-1, 1:-1].add(change))
    return u


def _normal_cdf(xp: Any, d: Any) -> Any:
    """Abramowitz and Stegun 26.2.17 (NumPy has no erf): |error| < 7.5e-8."""
    k = 1.0 / (1.0 + 0.2316419 * xp.abs(d))
    poly = k * (
        0.319381530 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429)))
    )
    w = 1.0 - 0.3989422804014327 * xp.exp(-0.5 * d * d) * poly
    return xp.where(d < 0.0, 1.0 - w, w)


def black_scholes(xp: Any, spot: Any, strike: Any, years: Any, rate: float, vol: float) -> Any:
    """European call and put prices (an expression kernel: some 60 operations)."""
    root = vol * xp.sqrt(years)
    d1 = (xp.log(spot / strike) + (rate + 0.5 * vol * vol) * years) / root
    d2 = d1 - root
    discounted = strike * xp.exp(-rate * years)
    call = spot * _normal_cdf(xp, d1) - discounted * _normal_cdf(xp, d2)
    put = discounted * _normal_cdf(xp, -d2) - spot * _normal_cdf(xp, -d1)
    return call, put


def kmeans(xp: Any, points: Any, centers: Any, iterations: int) -> Any:
    """Lloyd's algorithm, distances by broadcasting, a fixed number of steps."""
    centers = centers.copy()
    for _ in range(iterations):
        distances = xp.sum((points[:, None, :] - centers[None, :, :]) ** 2, axis=2)
        labels = xp.argmin(distances, axis=1)
        for j in range(centers.shape[0]):
            members = points[labels == j]
            if members.shape[0]:
                centers[j] = xp.mean(members, axis=0)
    return centers


def kmeans_jax(xp: Any, points: Any, centers: Any, iterations: int) -> Any:
    centers = centers.copy()
    for _ in range(iterations):
        distances = xp.sum((points[:, None, :] - centers[None, :, :]) ** 2, axis=2)
        labels = xp.argmin(distances, axis=1)
        for j in range(centers.shape[0]):
            members = points[labels == j]
            if members.shape[0]:
                centers = xp.move(centers).at[j].set(xp.mean(members, axis=0))
    return centers


def _box_blur(img: Any) -> Any:
    return (
        img[:-2, :-2]
        + img[:-2, 1:-1]
        + img[:-2, 2:]
        + img[1:-1, :-2]
        + img[1:-1, 1:-1]
        + img[1:-1, 2:]
        + img[2:, :-2]
        + img[2:, 1:-1]
        + img[2:, 2:]
    ) / 9.0


def _edge_strength(xp: Any, blur: Any) -> Any:
    gx = blur[1:-1, 2:] - blur[1:-1, :-2]
    gy = blur[2:, 1:-1] - blur[:-2, 1:-1]
    strength = xp.sqrt(gx * gx + gy * gy)
    return xp.where(strength > 0.02, strength, 0.0)


def image_filter(xp: Any, img: Any) -> Any:
    """3x3 box blur, central-difference gradients, a threshold: all from slices."""
    blur = xp.zeros_like(img)
    blur[1:-1, 1:-1] = _box_blur(img)
    edges = xp.zeros_like(img)
    edges[1:-1, 1:-1] = _edge_strength(xp, blur)
    return edges


def image_filter_jax(xp: Any, img: Any) -> Any:
    blur = xp.zeros_like(img).at[1:-1, 1:-1].set(_box_blur(img))
    return xp.zeros_like(img).at[1:-1, 1:-1].set(_edge_strength(xp, blur))


def monte_carlo(
    xp: Any, start: Any, jumps: Any, survival: Any, bins: int, *, add_at: Callable[..., Any]
) -> Any:
    """Walkers on a ring deposit their weight where they land, every step."""
    tally = xp.zeros(bins, dtype=xp.float64)
    where, weight = start, xp.ones(start.shape[0], dtype=xp.float64)
    for k in range(jumps.shape[0]):
        where = (where + jumps[k]) % bins
        weight = weight * survival[k]
        add_at(tally, where, weight)
    return tally


def monte_carlo_jax(xp: Any, start: Any, jumps: Any, survival: Any, bins: int) -> Any:
    tally = xp.zeros(bins, dtype=xp.float64)
    where, weight = start, xp.ones(start.shape[0], dtype=xp.float64)
    for k in range(jumps.shape[0]):
        where = (where + jumps[k]) % bins
        weight = weight * survival[k]
        tally = xp.move(tally).at[where].add(weight)
    return tally


# The defensive-copy pipeline: every stage copies its input before it may
# write, as NumPy code does so that no caller's array changes under it. The
# data has no NaNs and no value beyond 5 sigma, so two stages never write.


def _fill_missing(xp: Any, a: Any) -> Any:
    a = a.copy()
    a[xp.isnan(a)] = 0.0
    return a


def _clip_outliers(xp: Any, a: Any) -> Any:
    a = a.copy()
    a[a > 5.0] = 5.0
    a[a < -5.0] = -5.0
    return a


def _standardize(xp: Any, a: Any) -> Any:
    a = a.copy()
    a -= xp.mean(a, axis=0)
    a /= xp.std(a, axis=0)
    return a


def _checked(xp: Any, a: Any) -> Any:
    a = a.copy()
    if not bool(xp.all(xp.isfinite(a))):
        raise ValueError("not finite")
    return a


def _compressed(xp: Any, a: Any) -> Any:
    a = a.copy()
    return xp.log1p(xp.abs(a))


def _with_bias(xp: Any, a: Any) -> Any:
    a = a.copy()
    a[:, 0] = 1.0
    return a


def pipeline(xp: Any, data: Any) -> Any:
    """Six stages that each copy their input first: one writes it all, one a
    column, two where a mask is true (nowhere, in this data), two only read."""
    for stage in (_fill_missing, _clip_outliers, _standardize, _checked, _compressed, _with_bias):
        data = stage(xp, data)
    return data


def training(
    xp: Any,
    features: Any,
    targets: Any,
    noise: Any,
    epochs: int,
    batch: int,
    *,
    to_torch: Callable[[Any], Any],
    from_torch: Callable[[Any], Any],
) -> Any:
    """Normalize and augment in the array library, fit a linear model in torch
    (batch by batch, by hand-written gradient steps), bring predictions back."""
    features = (features - xp.mean(features, axis=0)) / xp.std(features, axis=0)
    weights = torch.zeros(features.shape[1], dtype=torch.float64)
    predictions = xp.zeros(targets.shape[0], dtype=xp.float64)
    for _ in range(epochs):
        for lo in range(0, features.shape[0], batch):
            xb = to_torch(features[lo : lo + batch] + noise[lo : lo + batch])
            yb = to_torch(targets[lo : lo + batch])
            guess = xb @ weights
            weights = weights - 0.05 * (xb.T @ (guess - yb)) / xb.shape[0]
            predictions[lo : lo + batch] = from_torch(guess)
    return predictions, from_torch(weights)


# ------------------------------------------------------------------- the inputs


@dataclass
class Inputs:
    label: str  # the size, as the table shows it
    arrays: tuple[np.ndarray, ...]
    numbers: tuple[Any, ...] = ()


def _stencil_1d_inputs(n: int, quick: bool) -> Inputs:
    u = np.sin(np.linspace(0.0, 2.0 * np.pi, n)) + np.random.default_rng(n).random(n)
    return Inputs(f"{n}, {200 if quick else 1000} steps", (u,), (200 if quick else 1000,))


def _heat_2d_inputs(side: int, quick: bool) -> Inputs:
    u = np.random.default_rng(side).random((side, side))
    steps = 5 if quick else 10
    return Inputs(f"{side}x{side}, {steps} steps", (u,), (steps,))


def _black_scholes_inputs(n: int, quick: bool) -> Inputs:
    rng = np.random.default_rng(n)
    arrays = (rng.uniform(10.0, 50.0, n), rng.uniform(10.0, 50.0, n), rng.uniform(0.25, 2.0, n))
    return Inputs(f"10^{round(math.log10(n))}", arrays, (0.02, 0.3))


def _kmeans_inputs(n: int, quick: bool) -> Inputs:
    rng = np.random.default_rng(n)
    truth = rng.uniform(-10.0, 10.0, (8, 4))
    points = truth[rng.integers(0, 8, n)] + rng.standard_normal((n, 4))
    return Inputs(f"10^{round(math.log10(n))} x 4, k=8", (points, points[:8].copy()), (10,))


def _image_inputs(side: int, quick: bool) -> Inputs:
    rng = np.random.default_rng(side)
    ramp = np.add.outer(np.linspace(0.0, 1.0, side), np.linspace(0.0, 1.0, side)) % 0.5
    return Inputs(f"{side}x{side}", (ramp + 0.05 * rng.random((side, side)),))


def _monte_carlo_inputs(walkers: int, quick: bool) -> Inputs:
    rng = np.random.default_rng(walkers)
    steps, bins = (20, 1000) if quick else (50, walkers // 10)
    arrays = (
        rng.integers(0, bins, walkers),
        rng.integers(-3, 4, (steps, walkers)),
        rng.uniform(0.9, 1.0, (steps, walkers)),
    )
    label = f"10^{round(math.log10(walkers))} walkers, {steps} steps"
    return Inputs(label, arrays, (bins,))


def _pipeline_inputs(rows: int, quick: bool) -> Inputs:
    data = np.random.default_rng(rows).standard_normal((rows, 100)) * 0.8
    return Inputs(f"{rows}x100", (data,))


def _training_inputs(rows: int, quick: bool) -> Inputs:
    rng = np.random.default_rng(rows)
    features = rng.standard_normal((rows, 16)) * rng.uniform(0.5, 5.0, 16) + 3.0
    targets = features @ rng.standard_normal(16) + 0.1 * rng.standard_normal(rows)
    noise = 0.01 * rng.standard_normal((rows, 16))
    return Inputs(f"{rows}x16, batch 256", (features, targets, noise), (3, 256))


# ------------------------------------------------------------- the contenders


@dataclass
class Library:
    """How one contender runs a program: its namespace, its arrays, its hooks."""

    name: str
    xp: Any
    asarray: Callable[[np.ndarray], Any]
    to_numpy: Callable[[Any], np.ndarray]
    hooks: dict[str, Callable[..., Any]] = field(default_factory=dict)


def _torch_namespace() -> Any:
    """torch's own functions under the names the programs use; only ``std``
    wraps one (NumPy's ``std`` divides by n, torch's by n - 1 unless told)."""
    names = "abs all argmin exp float64 isfinite isnan log log1p mean ones sqrt sum where zeros"
    xp = types.SimpleNamespace(**{name: getattr(torch, name) for name in names.split()})
    xp.zeros_like = torch.zeros_like
    xp.std = lambda a, axis=None: torch.std(a, dim=axis, correction=0)
    return xp


def _libraries() -> list[Library]:
    libraries = [
        Library("numpy", np, np.array, np.asarray, {"add_at": np.add.at}),
        Library("cowarray", ca, lambda a: ca.asarray(a.copy()), np.asarray, {"add_at": np.add.at}),
        Library("ca-jax", ca, lambda a: ca.asarray(a.copy()), np.asarray),
    ]
    if torch is not None:
        libraries[0].hooks.update(to_torch=torch.from_numpy, from_torch=torch.Tensor.numpy)
        libraries[1].hooks.update(to_torch=to_torch, from_torch=from_torch)
        # The one NumPy method the programs call that torch names otherwise:
        # an alias, not a wrapper, so a copy costs torch what clone() costs.
        torch.Tensor.copy = torch.Tensor.clone  # type: ignore[attr-defined]
        hooks = {
            "add_at": lambda tally, where, weight: tally.index_add_(0, where, weight),
            "to_torch": lambda t: t,
            "from_torch": lambda t: t,
        }
        libraries.append(
            Library(
                "torch",
                _torch_namespace(),
                lambda a: torch.from_numpy(a.copy()),
                _torch_to_numpy,
                hooks,
            )
        )
    return libraries


def _torch_to_numpy(result: Any) -> np.ndarray:
    return result.numpy() if isinstance(result, torch.Tensor) else np.asarray(result)


# ---------------------------------------------------------------- the workloads


@dataclass
class Workload:
    name: str
    program: Program
    jax: Program | None  # the JAX-style version for cowarray, where it fits
    inputs: Callable[[int, bool], Inputs]
    quick: Sequence[int]
    full: Sequence[int]
    hooks: tuple[str, ...] = ()  # the library's hooks the program takes by keyword
    needs_torch: bool = False


WORKLOADS = [
    Workload("stencil 1-D", stencil_1d, stencil_1d_jax, _stencil_1d_inputs, [100], [100]),
    Workload("heat 2-D", heat_2d, heat_2d_jax, _heat_2d_inputs, [300], [2000]),
    Workload(
        "Black-Scholes",
        black_scholes,
        None,
        _black_scholes_inputs,
        [10**4, 10**5],
        [10**4, 10**5, 10**6, 10**7],
    ),
    Workload("k-means", kmeans, kmeans_jax, _kmeans_inputs, [10**4], [10**4, 10**5]),
    Workload("image filter", image_filter, image_filter_jax, _image_inputs, [256], [512, 2048]),
    Workload(
        "Monte Carlo scatter",
        monte_carlo,
        monte_carlo_jax,
        _monte_carlo_inputs,
        [10**4],
        [10**4, 10**5],
        hooks=("add_at",),
    ),
    Workload("defensive copies", pipeline, None, _pipeline_inputs, [1000], [1000, 10**4, 10**5]),
    Workload(
        "torch training data",
        training,
        None,
        _training_inputs,
        [10**4],
        [10**4, 10**5],
        hooks=("to_torch", "from_torch"),
        needs_torch=True,
    ),
]


# ------------------------------------------------------------------ measuring


def _bound(
    workload: Workload, library: Library, inputs: Inputs
) -> tuple[Callable[[], Any], list[Any]] | None:
    """The program as one call, and this library's copy of the inputs it runs
    on (None: the library has no version of the program)."""
    jax = library.name == "ca-jax"
    program = workload.jax if jax else workload.program
    if program is None:
        return None
    arrays = [library.asarray(a) for a in inputs.arrays]
    hooks = {} if jax else {name: library.hooks[name] for name in workload.hooks}
    xp, numbers = library.xp, inputs.numbers
    return (lambda: program(xp, *arrays, *numbers, **hooks)), arrays


def _as_numpy(library: Library, result: Any) -> list[np.ndarray]:
    parts = result if isinstance(result, tuple) else (result,)
    return [np.array(library.to_numpy(part)) for part in parts]


def _footprint(run: Callable[[], Any]) -> tuple[int, Any]:
    """Peak bytes ``tracemalloc`` saw in one run, and cowarray's copy counters."""
    gc.collect()
    ca.reset_copy_counters()
    tracemalloc.start()
    try:
        result = run()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    counters = ca.copy_counters()
    del result
    return peak, counters


def _copy_lines(run: Callable[[], Any]) -> list[str]:
    """Where cowarray copied in one run: this file's lines, with counts and bytes."""
    with ca.trace() as traced:
        run()
    here = Path(__file__).name
    seen: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for event in traced.events:
        if event.kind == "materialize":
            line = event.lineno if Path(event.filename).name == here else -1
            seen[line][0] += 1
            seen[line][1] += event.nbytes
    return [
        f"{'elsewhere' if line < 0 else f'line {line}'} copied {n} x, {_fmt_bytes(nbytes)}"
        for line, (n, nbytes) in sorted(seen.items())
    ]


def _best_of_interleaved(
    runs: dict[str, Callable[[], Any]], numbers: dict[str, int], rounds: int
) -> dict[str, float]:
    """Seconds per run of each contender: the best of ``rounds`` rounds, each
    timing every contender in turn (``numbers[name]`` runs a batch). core.py's
    ``interleaved`` recalibrates with ``autorange`` (0.2 s or more) at every
    measurement; here each batch size is fixed once, from the check run, so
    whole programs of a second are not run twice per round."""
    best = dict.fromkeys(runs, math.inf)
    for _ in range(rounds):
        for name, run in runs.items():
            per_run = timeit.Timer(run).timeit(numbers[name]) / numbers[name]
            best[name] = min(best[name], per_run)
    return best


def _fmt_bytes(nbytes: float) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if nbytes >= scale:
            return f"{nbytes / scale:.1f} {unit}"
    return f"{nbytes:.0f} B"


COLUMNS = (
    f"{'workload':<20} {'size':<26} {'NumPy':>10}  {'ca/np':>6} {'jax/np':>6} {'torch/np':>8}  "
    f"{'ca copies':>17} {'jax copies':>17}  {'peak np':>9} {'ca/np':>5} {'jax/np':>6}"
)


def _measure(workload: Workload, size: int, args: argparse.Namespace, failures: list[str]) -> None:
    inputs = workload.inputs(size, args.quick)
    where = f"{workload.name} {inputs.label}"
    runs: dict[str, Callable[[], Any]] = {}
    first: dict[str, float] = {}
    reference: list[np.ndarray] = []
    for library in _libraries():
        bound = _bound(workload, library, inputs)
        if bound is None:
            continue
        run, arrays = bound
        start = time.perf_counter()
        try:
            result = _as_numpy(library, run())
            first[library.name] = time.perf_counter() - start
            if library.name == "numpy":
                reference = result
            for got, want in zip(result, reference, strict=True):
                np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-9)
        except Exception as error:  # a finding to report, not to hide
            failures.append(f"{where} on {library.name}: {type(error).__name__}: {error}")
            continue
        for original, theirs in zip(inputs.arrays, arrays, strict=True):
            assert np.array_equal(original, library.to_numpy(theirs)), f"{where}: input changed"
        runs[library.name] = run
    if "numpy" not in runs:
        return
    memory = {
        name: _footprint(runs[name]) for name in ("numpy", "cowarray", "ca-jax") if name in runs
    }
    numbers = {
        name: max(1, min(1000, int(args.budget / seconds))) for name, seconds in first.items()
    }
    times = _best_of_interleaved(runs, {name: numbers[name] for name in runs}, args.rounds)
    base, peak = times["numpy"], memory["numpy"][0]

    def ratio(name: str) -> str:
        return f"{times[name] / base:.2f}" if name in times else "—"

    def copies(name: str) -> str:
        return (
            f"{memory[name][1].copies} / {_fmt_bytes(memory[name][1].bytes_copied)}"
            if name in memory
            else "—"
        )

    def peak_ratio(name: str) -> str:
        return f"{memory[name][0] / peak:.2f}" if name in memory else "—"

    cells = [f"{workload.name:<20} {inputs.label:<26} {_fmt_time(base):>10} "]
    cells += [f"{ratio('cowarray'):>6} {ratio('ca-jax'):>6} {ratio('torch'):>8} "]
    cells += [f"{copies('cowarray'):>17} {copies('ca-jax'):>17} "]
    cells += [f"{_fmt_bytes(peak):>9} {peak_ratio('cowarray'):>5} {peak_ratio('ca-jax'):>6}"]
    print(" ".join(cells), flush=True)
    if args.where:
        for name in ("cowarray", "ca-jax"):
            if name in runs:
                lines = _copy_lines(runs[name]) or ["no copies"]
                print(f"{'':20}   {name}: " + "; ".join(lines))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, 3 rounds")
    parser.add_argument("--only", default="", help="the workloads whose name contains this")
    parser.add_argument("--where", action="store_true", help="the lines at which cowarray copied")
    parser.add_argument(
        "--torch-threads", type=int, default=1, help="torch's intra-op threads (default 1)"
    )
    args = parser.parse_args(argv)
    args.rounds = 3 if args.quick else 5
    args.budget = 0.02 if args.quick else 0.1  # seconds per timed batch, at least one run
    start = time.perf_counter()
    if torch is not None:
        torch.set_num_threads(args.torch_threads)
    print(f"cowarray {ca.__version__}, NumPy {np.__version__}, Python {sys.version.split()[0]}")
    print(f"cowarray's temporary elision: {ca.debug.temporary_elision()}")
    if torch is None:
        print("torch is not installed: its column and the training loop are skipped")
    else:
        print(f"torch {torch.__version__}, {torch.get_num_threads()} intra-op thread(s)")
    print(
        f"cowarray's element-wise pool: {ca.get_num_threads()} threads from "
        f"{ca.get_parallel_threshold()} elements; NumPy: one thread"
    )
    print(
        "times: NumPy's per run, the others over NumPy's (best of "
        f"{args.rounds} interleaved rounds); copies: cowarray's counters in one run "
        "(count / bytes); peak: tracemalloc's, one run"
    )
    print(COLUMNS)
    failures: list[str] = []
    for workload in WORKLOADS:
        if args.only.lower() not in workload.name.lower():
            continue
        if workload.needs_torch and torch is None:
            print(f"{workload.name:<20} skipped: torch is not installed")
            continue
        for size in workload.quick if args.quick else workload.full:
            _measure(workload, size, args, failures)
    for failure in failures:
        print(f"FAILED {failure}")
    print(f"\n{time.perf_counter() - start:.0f} s in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
