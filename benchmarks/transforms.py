"""In-place code under ``cowarray.transforms`` beside NumPy, hand-written JAX and torch.

Run: ``python benchmarks/transforms.py`` (under 2 minutes on 2 cores, most
of it compiling: the unrolled stencil compiles 1000 steps once for cowarray
and once for JAX, some 11 s each here) or ``--quick`` (5 rounds instead of
9, batches of 20 ms instead of 100, the unrolled stencil at 200 steps; 45 s
on the idle machine, 95 s beside two other busy processes). ``--only NAME``
runs the sections whose name or title contains NAME; ``--compile-timeout S``
bounds each torch.compile's first call.

Each section is one program, written once in the in-place NumPy spelling
(``u[1:-1] += 0.1 * (...)``, ``w -= lr * g``) and run as it is on

* NumPy, the reference every ratio divides by;
* cowarray eager (the same source on cowarray Arrays);
* cowarray transformed: the same source under ``transforms.jit``, with the
  loop in ``transforms.fori_loop``, the gradient from ``transforms.grad``,
  the batch from ``transforms.vmap``, Arrays in and out;
* the same program written by hand for JAX: ``.at[...]`` updates,
  ``jax.jit``, ``lax.fori_loop``, ``jax.grad``, ``jax.vmap``, float64 through
  ``jax.enable_x64(True)`` around each call (the context cowarray's wrapper
  enters too; it costs some 1 us), on resident ``jax.Array`` inputs, each
  result waited for with ``jax.block_until_ready``;
* torch eager (the same in-place source on tensors; the gradient by
  autograd) and ``torch.compile`` (``dynamic=False``) where it runs here. A
  Python loop inside a compiled function is unrolled by dynamo, so a loop of
  steps compiles one step and runs the loop in Python. Its first call runs
  under a SIGALRM guard; a row that fails or runs out of time is printed as
  missing, with why. Its compile time depends on inductor's on-disk cache
  (``/tmp/torchinductor_$USER``): one step took 22 s in a first run here and
  0.1-6 s in later ones.

The sections: the per-call cost at 10^3 elements; the 100-element stencil,
1000 steps, in ``fori_loop`` and unrolled under ``jit``; ``vmap`` of the
stencil over a batch of 64; a 50-step logistic-regression training loop
(``w -= lr * g`` with ``g`` from ``grad``) and its gradient alone; Black-Scholes
at 10^5 and 10^6; one explicit heat step on 2000x2000 (last: once its 32 MB
arrays are freed NumPy's later temporaries come from the heap, as
``workloads.py`` explains).

Each contender runs its program on resident inputs, as a loop of steps
would: NumPy, cowarray and torch write their arguments in place, the
transformed function writes them back into the caller's Arrays (its
semantics: the argument changes as the eager call would change it), the
hand-written JAX function returns new arrays. The time per run is the best
of interleaved rounds (every contender once per round, in a batch sized
from its second call), so drift on the shared machine hits every column
alike. The first call, timed alone, is the compile time beside the
transformed, JAX and torch.compile rows (trace, compile and one run).
NumPy runs on one thread, torch on one intra-op thread (``workloads.py``
says why), cowarray's element-wise pool and XLA's CPU thread pool as shipped.

Before anything is timed, every contender's first result (and, for a
program that writes its arguments, the arguments it leaves) is compared with
NumPy's (``rtol=1e-9``, ``atol=1e-12``): a mismatch, or an exception from
NumPy, cowarray or JAX, is printed as FAILED and makes the exit status 1. A
timing never fails the run.

Targets (issue 48, item 6), printed beside the figures with whether each is met:

* the stencil in ``fori_loop`` at most 0.05x NumPy;
* every transformed row within 1.2x of the same program hand-written for JAX;
* the wrapper adds no measurable cost per call at 10^3 elements: a jitted
  cowarray function within 1.1x of the same ``jax.jit`` function on a
  resident ``jax.Array``, whose difference in microseconds is printed beside
  it (best-of rounds of these 15-50 us calls still moved by up to 30%
  between runs on the busy machine);
* the logistic gradient (``transforms.grad``) within 1.2x of hand-written
  ``jax.grad``, jitted and not.
"""

from __future__ import annotations

import argparse
import functools
import math
import signal
import sys
import time
import timeit
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from core import _fmt_time

import cowarray as ca

try:
    import jax
    import jax.numpy as jnp
    from jax import lax

    from cowarray import transforms
except ImportError:  # nothing here runs without JAX
    jax = None

try:
    import torch
except ImportError:  # the torch rows are optional
    torch = None

RTOL, ATOL = 1e-9, 1e-12
SGD_STEPS, LEARNING_RATE = 50, 0.5
RATE, VOLATILITY = 0.02, 0.3


# ---------------------------------------------------------------- the programs
# NumPy, cowarray (eager and transformed) and torch run these as they are.


def affine(x: Any) -> Any:
    return 0.5 * x + 1.0


def affine_in_place(x: Any) -> Any:
    x *= 0.5
    x += 1.0
    return x


def stencil_step(u: Any) -> Any:
    u[1:-1] += 0.1 * (u[2:] - 2 * u[1:-1] + u[:-2])
    return u


def stencil(u: Any, steps: int) -> Any:
    for _ in range(steps):
        u[1:-1] += 0.1 * (u[2:] - 2 * u[1:-1] + u[:-2])
    return u


def stencil_body(i: Any, u: Any) -> Any:
    return stencil_step(u)


def stencil_fori(u: Any, steps: int) -> Any:
    return transforms.fori_loop(0, steps, stencil_body, u)


def stencils_step(u: Any) -> Any:
    """A batch of stencils, one per row, batched by hand (NumPy has no vmap)."""
    u[:, 1:-1] += 0.1 * (u[:, 2:] - 2 * u[:, 1:-1] + u[:, :-2])
    return u


def stencils(u: Any, steps: int) -> Any:
    for _ in range(steps):
        stencils_step(u)
    return u


def heat_step(u: Any) -> Any:
    """One explicit step of the heat equation on a plate with insulated edges."""
    u[1:-1, 1:-1] += 0.2 * (
        u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1]
    )
    u[0] = u[1]
    u[-1] = u[-2]
    u[:, 0] = u[:, 1]
    u[:, -1] = u[:, -2]
    return u


def _normal_cdf(xp: Any, d: Any) -> Any:
    """Abramowitz and Stegun 26.2.17 (NumPy has no erf): |error| < 7.5e-8."""
    k = 1.0 / (1.0 + 0.2316419 * xp.abs(d))
    poly = k * (
        0.319381530 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429)))
    )
    w = 1.0 - 0.3989422804014327 * xp.exp(-0.5 * d * d) * poly
    return xp.where(d < 0.0, 1.0 - w, w)


def black_scholes(xp: Any, spot: Any, strike: Any, years: Any) -> Any:
    """European call and put prices: an expression of some 60 element-wise operations."""
    root = VOLATILITY * xp.sqrt(years)
    d1 = (xp.log(spot / strike) + (RATE + 0.5 * VOLATILITY * VOLATILITY) * years) / root
    d2 = d1 - root
    discounted = strike * xp.exp(-RATE * years)
    call = spot * _normal_cdf(xp, d1) - discounted * _normal_cdf(xp, d2)
    put = discounted * _normal_cdf(xp, -d2) - spot * _normal_cdf(xp, -d1)
    return call, put


def logistic_loss(xp: Any, w: Any, x: Any, y: Any) -> Any:
    p = 1.0 / (1.0 + xp.exp(-(x @ w)))
    return -xp.mean(y * xp.log(p) + (1.0 - y) * xp.log(1.0 - p))


def logistic_gradient(xp: Any, w: Any, x: Any, y: Any) -> Any:
    """The loss's gradient, derived by hand (for the libraries without grad)."""
    p = 1.0 / (1.0 + xp.exp(-(x @ w)))
    return x.T @ (p - y) / y.shape[0]


def train_by_hand(xp: Any, w: Any, x: Any, y: Any) -> Any:
    for _ in range(SGD_STEPS):
        w -= LEARNING_RATE * logistic_gradient(xp, w, x, y)
    return w


def train_with_grad(w: Any, x: Any, y: Any) -> Any:
    gradient = transforms.grad(functools.partial(logistic_loss, ca))
    for _ in range(SGD_STEPS):
        w -= LEARNING_RATE * gradient(w, x, y)
    return w


# ------------------------------------------------ the same programs written for JAX


def stencil_step_jax(u: Any) -> Any:
    return u.at[1:-1].add(0.1 * (u[2:] - 2 * u[1:-1] + u[:-2]))


def stencil_jax(u: Any, steps: int) -> Any:
    for _ in range(steps):
        u = stencil_step_jax(u)
    return u


def stencil_fori_jax(u: Any, steps: int) -> Any:
    return lax.fori_loop(0, steps, lambda i, u: stencil_step_jax(u), u)


def heat_step_jax(u: Any) -> Any:
    u = u.at[1:-1, 1:-1].add(
        0.2 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1])
    )
    u = u.at[0].set(u[1]).at[-1].set(u[-2])
    return u.at[:, 0].set(u[:, 1]).at[:, -1].set(u[:, -2])


def train_jax(w: Any, x: Any, y: Any) -> Any:
    gradient = jax.grad(functools.partial(logistic_loss, jnp))
    for _ in range(SGD_STEPS):
        w = w - LEARNING_RATE * gradient(w, x, y)
    return w


# ------------------------------------------------------------- torch's versions


def train_autograd(w: Any, x: Any, y: Any) -> Any:
    """torch's training loop: the gradient by autograd, the step in place."""
    w.requires_grad_(True)
    for _ in range(SGD_STEPS):
        logistic_loss(torch, w, x, y).backward()
        with torch.no_grad():
            w -= LEARNING_RATE * w.grad
        w.grad = None
    w.requires_grad_(False)
    return w


def gradient_autograd(w: Any, x: Any, y: Any) -> Any:
    w = w.detach().requires_grad_(True)
    logistic_loss(torch, w, x, y).backward()
    return w.grad


def stencils_vmapped(u: Any, steps: int) -> Any:
    """The 1-D in-place step under torch.func.vmap (it writes the batch in place)."""
    step = torch.func.vmap(stencil_step)
    for _ in range(steps):
        u = step(u)
    return u


def sgd_step(w: Any, x: Any, y: Any) -> Any:
    w -= LEARNING_RATE * logistic_gradient(torch, w, x, y)
    return w


def _repeated(step: Callable[..., Any], steps: int) -> Callable[..., Any]:
    """A compiled step run ``steps`` times from Python, on arguments it writes."""

    def run(*state: Any) -> Any:
        for _ in range(steps):
            out = step(*state)
        return out

    return run


# ------------------------------------------------------------------ contenders

Setup = Callable[[], tuple[Callable[[], Any], tuple[Any, ...]]]
TORCH_KINDS = ("torch", "torch.compile")


@dataclass
class Contender:
    """One row: ``setup()`` gives the run (the program on resident inputs) and the inputs."""

    label: str
    kind: str  # numpy, eager, transformed, jax, torch, torch.compile
    setup: Setup
    writes: bool = True  # leaves its arguments as NumPy's program leaves them
    leaves_result: bool = False  # leaves its argument holding NumPy's result instead


@dataclass
class Target:
    what: str
    label: str
    reference: str  # "NumPy" or a contender's label
    limit: float


@dataclass
class Section:
    name: str  # short, for --only and the summary
    title: str
    contenders: list[Contender]
    targets: list[Target] = field(default_factory=list)
    note: str = ""
    rounds: int = 1  # times the run's rounds (a cheap section's rows are noisier)


def _numpy_run(label: str, program: Callable[..., Any], arrays: Sequence[np.ndarray]) -> Contender:
    def setup() -> tuple[Callable[[], Any], tuple[Any, ...]]:
        state = tuple(a.copy() for a in arrays)
        return (lambda: program(*state)), state

    return Contender(label, "numpy", setup)


def _eager(label: str, program: Callable[..., Any], arrays: Sequence[np.ndarray]) -> Contender:
    def setup() -> tuple[Callable[[], Any], tuple[Any, ...]]:
        state = tuple(ca.asarray(a.copy()) for a in arrays)
        return (lambda: program(*state)), state

    return Contender(label, "eager", setup)


def _transformed(
    label: str, make: Callable[[], Callable[..., Any]], arrays: Sequence[np.ndarray], **kw: Any
) -> Contender:
    """``make()`` gives the transformed function (made in the setup, so that
    its first call traces and compiles)."""

    def setup() -> tuple[Callable[[], Any], tuple[Any, ...]]:
        function = make()
        state = tuple(ca.asarray(a.copy()) for a in arrays)
        return (lambda: function(*state)), state

    return Contender(label, "transformed", setup, **kw)


def _jax(
    label: str,
    make: Callable[[], Callable[..., Any]],
    arrays: Sequence[np.ndarray],
    numpy_in_out: bool = False,
) -> Contender:
    """The hand-written JAX function on resident jax.Arrays (or, with
    ``numpy_in_out``, on ndarrays with ``np.asarray`` of its result)."""

    def setup() -> tuple[Callable[[], Any], tuple[Any, ...]]:
        function = make()
        with jax.enable_x64(True):
            if numpy_in_out:
                state: tuple[Any, ...] = tuple(a.copy() for a in arrays)
            else:
                state = tuple(jax.block_until_ready(jnp.asarray(a)) for a in arrays)

        def run() -> Any:
            with jax.enable_x64(True):
                out = function(*state)
                return np.asarray(out) if numpy_in_out else jax.block_until_ready(out)

        return run, state

    return Contender(label, "jax", setup, writes=False)


def _torch(
    label: str, program: Callable[..., Any], arrays: Sequence[np.ndarray], **kw: Any
) -> Contender:
    def setup() -> tuple[Callable[[], Any], tuple[Any, ...]]:
        state = tuple(torch.from_numpy(a.copy()) for a in arrays)
        return (lambda: program(*state)), state

    return Contender(label, "torch", setup, **kw)


def _torch_compiled(
    label: str,
    piece: Callable[..., Any],
    arrays: Sequence[np.ndarray],
    steps: int = 0,
) -> Contender:
    """``torch.compile(piece)``, called once per run or ``steps`` times from Python."""

    def setup() -> tuple[Callable[[], Any], tuple[Any, ...]]:
        compiled = torch.compile(piece, dynamic=False)
        run_once = _repeated(compiled, steps) if steps else compiled
        state = tuple(torch.from_numpy(a.copy()) for a in arrays)
        return (lambda: run_once(*state)), state

    return Contender(label, "torch.compile", setup)


def _twin(transformed: str, hand: str, limit: float = 1.2, what: str = "") -> Target:
    return Target(what or f"{transformed} within {limit}x of {hand}", transformed, hand, limit)


# ------------------------------------------------------------------ the sections


def _per_call_section() -> Section:
    n = 1000
    x = np.linspace(0.0, 1.0, n)
    ours, theirs = "cowarray jit(0.5 * x + 1.0)", "JAX jax.jit(0.5 * x + 1.0), jax.Array in"
    return Section(
        "per-call",
        "per-call cost: 0.5 * x + 1.0 on 10^3 float64, jitted (the wrapper's cost per call)",
        [
            _numpy_run("NumPy", affine, [x]),
            _eager("cowarray eager", affine, [x]),
            _transformed(ours, lambda: transforms.jit(affine), [x], writes=False),
            _jax(theirs, lambda: jax.jit(affine), [x]),
            _jax(
                "JAX jax.jit, ndarray in, np.asarray out",
                lambda: jax.jit(affine),
                [x],
                numpy_in_out=True,
            ),
            _transformed(
                "cowarray jit, x *= 0.5; x += 1.0 (written back)",
                lambda: transforms.jit(affine_in_place),
                [x],
                leaves_result=True,
            ),
            _torch("torch eager", affine, [x], writes=False),
            _torch_compiled("torch.compile", affine, [x]),
        ],
        [
            _twin(
                ours,
                theirs,
                1.1,
                "no measurable cost per call: cowarray jit within 1.1x of jax.jit",
            )
        ],
        rounds=3,
    )


def _stencil_u() -> np.ndarray:
    return np.sin(np.linspace(0.0, 3.0, 100)) ** 2


def _stencil_fori_section() -> Section:
    steps, u = 1000, _stencil_u()
    ours, theirs = "cowarray jit(fori_loop)", "JAX jax.jit(lax.fori_loop), .at"
    return Section(
        "stencil fori_loop",
        f"stencil: 100 float64, {steps} steps of u[1:-1] += 0.1 * (...), the loop in fori_loop",
        [
            _numpy_run("NumPy", lambda u: stencil(u, steps), [u]),
            _eager("cowarray eager", lambda u: stencil(u, steps), [u]),
            # (fori_loop leaves its init_val as it was, as lax.fori_loop does)
            _transformed(
                ours, lambda: transforms.jit(lambda u: stencil_fori(u, steps)), [u], writes=False
            ),
            _jax(theirs, lambda: jax.jit(lambda u: stencil_fori_jax(u, steps)), [u]),
            _torch("torch eager", lambda u: stencil(u, steps), [u]),
            _torch_compiled("torch.compile(step), loop in Python", stencil_step, [u], steps),
        ],
        [
            Target("the stencil in fori_loop at most 0.05x NumPy", ours, "NumPy", 0.05),
            _twin(ours, theirs),
        ],
    )


def _stencil_unrolled_section(quick: bool) -> Section:
    steps, u = (200 if quick else 1000), _stencil_u()
    ours, theirs = "cowarray jit, loop unrolled", "JAX jax.jit, loop unrolled, .at"
    return Section(
        "stencil unrolled",
        f"stencil: 100 float64, {steps} steps, the Python loop unrolled under jit",
        [
            _numpy_run("NumPy", lambda u: stencil(u, steps), [u]),
            _eager("cowarray eager", lambda u: stencil(u, steps), [u]),
            _transformed(ours, lambda: transforms.jit(lambda u: stencil(u, steps)), [u]),
            _jax(theirs, lambda: jax.jit(lambda u: stencil_jax(u, steps)), [u]),
        ],
        [_twin(ours, theirs)],
        "--quick: 200 steps (1000 unrolled steps compile for some 11 s per library here)"
        if quick
        else "",
    )


def _vmap_section() -> Section:
    steps = 1000
    batch = np.stack([np.sin(np.linspace(0.0, k, 100)) ** 2 for k in range(1, 65)])
    ours, theirs = "cowarray jit(vmap(fori_loop))", "JAX jax.jit(jax.vmap(lax.fori_loop))"
    return Section(
        "vmap",
        f"vmap: 64 stencils of 100 float64, {steps} steps each (NumPy: the batch by hand, 2-D)",
        [
            _numpy_run("NumPy, 2-D slices", lambda u: stencils(u, steps), [batch]),
            _eager("cowarray eager, 2-D slices", lambda u: stencils(u, steps), [batch]),
            _transformed(
                ours,
                lambda: transforms.jit(transforms.vmap(lambda u: stencil_fori(u, steps))),
                [batch],
                writes=False,
            ),
            _jax(theirs, lambda: jax.jit(jax.vmap(lambda u: stencil_fori_jax(u, steps))), [batch]),
            _torch("torch eager, 2-D slices", lambda u: stencils(u, steps), [batch]),
            _torch(
                "torch.func.vmap(step), loop in Python",
                lambda u: stencils_vmapped(u, steps),
                [batch],
            ),
            _torch_compiled(
                "torch.compile(2-D step), loop in Python", stencils_step, [batch], steps
            ),
        ],
        [_twin(ours, theirs)],
    )


def _logistic_data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(48)
    x = rng.standard_normal((1000, 10))
    y = (x @ rng.standard_normal(10) + 0.5 * rng.standard_normal(1000) > 0).astype(np.float64)
    return np.zeros(10), x, y


def _training_section() -> Section:
    data = _logistic_data()
    ours, theirs = "cowarray jit, w -= lr * grad(loss)(w)", "JAX jax.jit, w = w - lr * jax.grad"
    return Section(
        "training",
        f"logistic regression: 1000x10 float64, {SGD_STEPS} SGD steps w -= {LEARNING_RATE} * g",
        [
            _numpy_run("NumPy, gradient by hand", functools.partial(train_by_hand, np), data),
            _eager("cowarray eager, gradient by hand", functools.partial(train_by_hand, ca), data),
            _transformed(ours, lambda: transforms.jit(train_with_grad), data),
            _jax(theirs, lambda: jax.jit(train_jax), data),
            _torch("torch eager, autograd .backward()", train_autograd, data),
            _torch_compiled(
                "torch.compile(step by hand), loop in Python", sgd_step, data, SGD_STEPS
            ),
        ],
        [_twin(ours, theirs)],
    )


def _gradient_section() -> Section:
    data = _logistic_data()
    data = (np.full(10, 0.1), *data[1:])
    loss_ca, loss_jnp = (functools.partial(logistic_loss, xp) for xp in (ca, jnp))
    ours, theirs = "cowarray jit(grad(loss))", "JAX jax.jit(jax.grad(loss))"
    ours_eager, theirs_eager = "cowarray grad(loss), not jitted", "JAX jax.grad(loss), not jitted"
    return Section(
        "gradient",
        "logistic gradient: 1000x10 float64, one gradient of the mean log-loss",
        [
            _numpy_run("NumPy, by hand", functools.partial(logistic_gradient, np), data),
            _eager("cowarray eager, by hand", functools.partial(logistic_gradient, ca), data),
            _transformed(ours, lambda: transforms.jit(transforms.grad(loss_ca)), data),
            _jax(theirs, lambda: jax.jit(jax.grad(loss_jnp)), data),
            _transformed(ours_eager, lambda: transforms.grad(loss_ca), data),
            _jax(theirs_eager, lambda: jax.grad(loss_jnp), data),
            _torch("torch eager, autograd .backward()", gradient_autograd, data),
            _torch_compiled(
                "torch.compile(by hand)", functools.partial(logistic_gradient, torch), data
            ),
        ],
        [_twin(ours, theirs), _twin(ours_eager, theirs_eager)],
    )


def _black_scholes_section(n: int) -> Section:
    rng = np.random.default_rng(n)
    data = (rng.uniform(10.0, 50.0, n), rng.uniform(10.0, 50.0, n), rng.uniform(0.25, 2.0, n))
    ours, theirs = "cowarray jit", "JAX jax.jit"
    exponent = round(math.log10(n))
    return Section(
        f"Black-Scholes 10^{exponent}",
        f"Black-Scholes: 10^{exponent} float64 options, call and put",
        [
            _numpy_run("NumPy", functools.partial(black_scholes, np), data),
            _eager("cowarray eager", functools.partial(black_scholes, ca), data),
            _transformed(ours, lambda: transforms.jit(functools.partial(black_scholes, ca)), data),
            _jax(theirs, lambda: jax.jit(functools.partial(black_scholes, jnp)), data),
            _torch("torch eager", functools.partial(black_scholes, torch), data),
            _torch_compiled("torch.compile", functools.partial(black_scholes, torch), data),
        ],
        [_twin(ours, theirs)],
    )


def _heat_section() -> Section:
    side = 2000
    u = np.random.default_rng(side).random((side, side))
    ours, theirs = "cowarray jit (u written back)", "JAX jax.jit, .at"
    return Section(
        "heat",
        f"heat step: {side}x{side} float64, one explicit step, insulated edges",
        [
            _numpy_run("NumPy", heat_step, [u]),
            _eager("cowarray eager", heat_step, [u]),
            _transformed(ours, lambda: transforms.jit(heat_step), [u]),
            _jax(theirs, lambda: jax.jit(heat_step_jax), [u]),
            _torch("torch eager", heat_step, [u]),
            _torch_compiled("torch.compile", heat_step, [u]),
        ],
        [_twin(ours, theirs)],
    )


def _sections(quick: bool) -> list[Section]:
    return [
        _per_call_section(),
        _stencil_fori_section(),
        _stencil_unrolled_section(quick),
        _vmap_section(),
        _training_section(),
        _gradient_section(),
        _black_scholes_section(10**5),
        _black_scholes_section(10**6),
        _heat_section(),
    ]


# ------------------------------------------------------------------ measuring


@contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    """Raise TimeoutError in this (the main) thread after ``seconds``."""

    def alarm(signum: int, frame: Any) -> None:
        raise TimeoutError(f"no result after {seconds:g} s (--compile-timeout)")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _as_numpy(result: Any) -> list[np.ndarray]:
    parts = result if isinstance(result, (tuple, list)) else (result,)
    out = []
    for part in parts:
        if torch is not None and isinstance(part, torch.Tensor):
            part = part.detach().numpy()
        out.append(np.array(np.asarray(part), dtype=np.float64))
    return out


def _mismatch(got: list[np.ndarray], want: list[np.ndarray]) -> str | None:
    if len(got) != len(want):
        return f"{len(got)} results where NumPy has {len(want)}"
    for g, w in zip(got, want, strict=True):
        if g.shape != w.shape:
            return f"shape {g.shape} where NumPy's is {w.shape}"
        if not np.allclose(g, w, rtol=RTOL, atol=ATOL):
            worst = float(np.max(np.abs(g - w)))
            return f"differs from NumPy's by up to {worst:.3g} (rtol {RTOL:g}, atol {ATOL:g})"
    return None


def _best_of_interleaved(
    runs: dict[str, tuple[Callable[[], Any], int]], rounds: int
) -> dict[str, float]:
    """Seconds per run of each contender: the best of ``rounds`` rounds, each
    timing every contender in turn, a batch of ``number`` runs each."""
    best = dict.fromkeys(runs, math.inf)
    for _ in range(rounds):
        for label, (run, number) in runs.items():
            best[label] = min(best[label], timeit.Timer(run).timeit(number) / number)
    return best


def _ratio(r: float) -> str:
    return f"{r:.3f}" if r < 0.1 else f"{r:.2f}"


@dataclass
class Outcome:
    verdicts: list[tuple[str, str, float, float, bool]] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    compile_broken: str = ""


def _first_call(
    contender: Contender, args: argparse.Namespace, outcome: Outcome
) -> tuple[Callable[[], Any], tuple[Any, ...], Any, float]:
    """The setup and the first call, timed (torch.compile's under the guard)."""
    if contender.kind == "torch.compile" and outcome.compile_broken:
        raise RuntimeError(outcome.compile_broken)
    run, state = contender.setup()
    start = time.perf_counter()
    if contender.kind == "torch.compile":
        try:
            with _time_limit(args.compile_timeout):
                result = run()
        except TimeoutError as error:
            outcome.compile_broken = f"an earlier torch.compile ran out of time ({error})"
            raise
    else:
        result = run()
    return run, state, result, time.perf_counter() - start


def _measure(section: Section, args: argparse.Namespace, outcome: Outcome) -> None:
    print(f"\n== {section.title}")
    if section.note:
        print(f"   ({section.note})")
    runs: dict[str, tuple[Callable[[], Any], int]] = {}
    first: dict[str, float] = {}
    kinds: dict[str, str] = {}
    notes: list[str] = []
    reference: list[np.ndarray] = []
    reference_state: list[np.ndarray] = []
    numpy_label = ""
    for contender in section.contenders:
        label = contender.label
        where = f"{section.name}, {label}"
        if contender.kind in TORCH_KINDS and torch is None:
            notes.append(f"{label}: missing, torch is not installed")
            continue
        try:
            run, state, result, seconds = _first_call(contender, args, outcome)
            got, got_state = _as_numpy(result), _as_numpy(state)
        except Exception as error:  # a finding to report, not to hide
            why = f"{type(error).__name__}: {str(error).strip().splitlines()[0][:160]}"
            if contender.kind in TORCH_KINDS:
                notes.append(f"{label}: missing, {why}")
                outcome.missing.append(f"{where}: {why}")
            else:
                notes.append(f"{label}: FAILED, {why}")
                outcome.failures.append(f"{where}: {why}")
            continue
        if contender.kind == "numpy":
            reference, reference_state, numpy_label = got, got_state, label
        elif not numpy_label:
            continue  # (NumPy's row failed: reported, nothing to compare with)
        else:
            wrong = _mismatch(got, reference)
            if wrong is None and (contender.writes or contender.leaves_result):
                expected = reference if contender.leaves_result else reference_state
                wrong = _mismatch(got_state, expected)
                wrong = wrong and f"the arguments it leaves: {wrong}"
            if wrong is not None:
                notes.append(f"{label}: FAILED the value check, {wrong}")
                outcome.failures.append(f"{where}: {wrong}")
                continue
        start = time.perf_counter()
        run()
        second = time.perf_counter() - start
        runs[label] = (run, max(1, min(20000, int(args.budget / max(second, 1e-9)))))
        first[label] = seconds
        kinds[label] = contender.kind
    if not numpy_label:
        for note in notes:
            print(f"   {note}")
        return
    times = _best_of_interleaved(runs, args.rounds * section.rounds)
    base = times[numpy_label]
    print(f"   {'contender':<52} {'per run':>10}  {'x NumPy':>8}  {'first call':>10}")
    for label, seconds in times.items():
        compiled = kinds[label] in ("transformed", "jax", "torch.compile")
        first_call = f"{first[label]:9.2f} s" if compiled else ""
        ratio = _ratio(seconds / base)
        print(f"   {label:<52} {_fmt_time(seconds):>10}  {ratio:>8}  {first_call:>10}")
    for note in notes:
        print(f"   {note}")
    for target in section.targets:
        reference_label = numpy_label if target.reference == "NumPy" else target.reference
        if target.label not in times or reference_label not in times:
            print(f"   target  {target.what}: not measured (a row is missing)")
            outcome.verdicts.append((section.name, target.what, math.nan, target.limit, False))
            continue
        ratio = times[target.label] / times[reference_label]
        met = ratio <= target.limit
        extra = ""
        if target.reference != "NumPy":
            extra = f", {(times[target.label] - times[reference_label]) * 1e6:+.1f} us per run"
        verdict = "met" if met else "MISSED"
        print(f"   target  {target.what}: {_ratio(ratio)}x{extra}  -> {verdict}")
        outcome.verdicts.append((section.name, target.what, ratio, target.limit, met))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5 rounds, 200 unrolled steps")
    parser.add_argument("--only", default="", help="the sections whose title contains this")
    parser.add_argument(
        "--compile-timeout",
        type=float,
        default=None,
        help="seconds for each torch.compile's first call (60; without --quick 180)",
    )
    args = parser.parse_args(argv)
    args.rounds = 5 if args.quick else 9
    args.budget = 0.02 if args.quick else 0.1  # seconds per timed batch, at least one run
    if args.compile_timeout is None:
        args.compile_timeout = 60.0 if args.quick else 180.0
    start = time.perf_counter()
    print(f"cowarray {ca.__version__}, NumPy {np.__version__}, Python {sys.version.split()[0]}")
    if jax is None:
        print("JAX is not installed (pip install 'cowarray[jax]'): nothing to measure")
        return 0
    print(f"jax {jax.__version__} on {jax.devices()[0].platform}, float64 by jax.enable_x64")
    if torch is None:
        print("torch is not installed: its rows are left out")
    else:
        torch.set_num_threads(1)
        print(f"torch {torch.__version__}, {torch.get_num_threads()} intra-op thread")
    print(
        f"cowarray's element-wise pool: {ca.get_num_threads()} threads from "
        f"{ca.get_parallel_threshold()} elements; NumPy: one thread"
    )
    print(
        f"times: best of {args.rounds} interleaved rounds, batches of about "
        f"{args.budget * 1e3:.0f} ms; x NumPy: each time over NumPy's; first call: "
        "trace, compile and one run"
    )
    outcome = Outcome()
    for section in _sections(args.quick):
        if args.only.lower() in f"{section.name} {section.title}".lower():
            _measure(section, args, outcome)
    met = sum(v[4] for v in outcome.verdicts)
    print(f"\n== targets: {met} of {len(outcome.verdicts)} met")
    for name, what, ratio, limit, ok in outcome.verdicts:
        figure = "not measured" if math.isnan(ratio) else f"{_ratio(ratio)}x (limit {limit:g}x)"
        print(f"   {'met   ' if ok else 'MISSED'}  {name}: {what}: {figure}")
    for missing in outcome.missing:
        print(f"missing {missing}")
    for failure in outcome.failures:
        print(f"FAILED {failure}")
    print(f"\n{time.perf_counter() - start:.0f} s in all")
    return 1 if outcome.failures else 0


if __name__ == "__main__":
    sys.exit(main())
