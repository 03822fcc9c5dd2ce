"""Random sequences of views, clones, writes and deletes, run eagerly and
under ``jit``: the semantics model's kind of program (tests/core), as a
function of one input Array that it writes, with every live array returned.

Each program is Python source, printed when a run diverges, so a failure
replays by hand. The eager run is the model here: under a trace each write
becomes a functional update of the traced value, and the values, dtypes and
the written-back input must be the eager ones (rule 13), to rounding: XLA
may fold ``x * a * b`` into ``x * (a * b)``.
"""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
import pytest

import cowarray as ca

pytest.importorskip("jax")

from cowarray import transforms

#: How many random programs a run checks (each traces and compiles once: ~0.2 s).
PROGRAMS = 100


def _program(seed: int, steps: int = 10) -> str:
    """The source of ``program(a0)``: ``steps`` random statements over 2-D
    float64 arrays of shape (4, 6) and what derives from them."""
    draw = random.Random(seed)
    live: dict[str, tuple[int, ...]] = {"a0": (4, 6)}
    lines: list[str] = []
    count = 0

    def new(shape: tuple[int, ...], code: str) -> None:
        nonlocal count
        count += 1
        name = f"a{count}"
        live[name] = shape
        lines.append(f"{name} = {code}")

    for _ in range(steps):
        name = draw.choice(sorted(live))
        shape = live[name]
        kind = draw.choice(
            ["slice", "T", "reshape", "clone", "copy", "row", "write", "iadd", "imul",
             "whole", "scatter", "mask", "at", "del"]
        )  # fmt: skip
        value = round(draw.uniform(-5, 5), 2)
        if kind == "slice" and len(shape) == 2 and shape[0] > 1:
            new((shape[0] - 1, shape[1]), f"{name}[1:]")
        elif kind == "T" and len(shape) == 2:
            new((shape[1], shape[0]), f"{name}.T")
        elif kind == "reshape" and len(shape) == 2:
            new((shape[0] * shape[1],), f"ca.reshape({name}, (-1,))")
        elif kind == "clone":
            new(shape, f"ca.lazy_clone({name})")
        elif kind == "copy":
            new(shape, f"{name}.copy()")
        elif kind == "row" and len(shape) == 2:
            new((shape[1],), f"{name}[{draw.randrange(shape[0])}]")
        elif kind == "write":
            index = draw.randrange(shape[0])
            lines.append(f"{name}[{index}] = {value}")
        elif kind == "iadd":
            stop = draw.randrange(1, shape[0] + 1)
            lines.append(f"{name}[:{stop}] += {value}")
        elif kind == "imul":
            lines.append(f"{name} *= {value}")
        elif kind == "whole":
            other = draw.choice([n for n in sorted(live) if live[n] == shape])
            lines.append(f"{name} += {other}")
        elif kind == "scatter" and len(shape) == 1:
            indices = [draw.randrange(shape[0]) for _ in range(3)]
            lines.append(f"{name}[ca.asarray({indices})] = {value}  # duplicates: the last wins")
        elif kind == "mask":
            lines.append(f"{name}[{name} > 0] = {value}")
        elif kind == "at" and len(shape) == 1:
            indices = [draw.randrange(shape[0]) for _ in range(3)]
            new(shape, f"{name}.at[ca.asarray({indices})].add({value})")
        elif kind == "del" and name != "a0" and len(live) > 2:
            del live[name]
            lines.append(f"del {name}")
    returned = ", ".join(f"{n!r}: {n}" for n in sorted(live))
    body = "".join(f"    {line}\n" for line in lines)
    return f"def program(a0):\n{body}    return {{{returned}}}\n"


def _run(source: str, transform: Any) -> tuple[dict[str, Any], np.ndarray]:
    namespace: dict[str, Any] = {"ca": ca}
    exec(compile(source, "<random program>", "exec"), namespace)
    function = transform(namespace["program"])
    a0 = ca.asarray(np.arange(24.0).reshape(4, 6))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ca.ViewWriteWarning)
        out = function(a0)
    return {k: np.asarray(v) for k, v in out.items()}, np.asarray(a0)


@pytest.mark.parametrize("seed", range(PROGRAMS))
def test_a_random_program_under_jit_gives_the_eager_values(seed: int) -> None:
    source = _program(seed)
    eager, eager_input = _run(source, lambda f: f)
    traced, traced_input = _run(source, transforms.jit)
    assert sorted(eager) == sorted(traced), source
    for name in eager:
        assert traced[name].dtype == eager[name].dtype, (name, source)
        # (to rounding: XLA may fold a chain of constant factors into one)
        np.testing.assert_allclose(
            traced[name], eager[name], rtol=1e-13, atol=1e-13, err_msg=f"{name}\n{source}"
        )
    np.testing.assert_allclose(
        traced_input, eager_input, rtol=1e-13, atol=1e-13, err_msg=f"a0 written\n{source}"
    )


def test_the_programs_exercise_every_kind_of_step() -> None:
    sources = "".join(_program(seed) for seed in range(PROGRAMS))
    for spelling in (".T", "ca.reshape(", "lazy_clone", ".copy()", "] = ", "] += ", " *= ",
                     "> 0] =", ".at[", "del ", "duplicates"):  # fmt: skip
        assert spelling in sources, spelling


def test_the_harness_catches_a_trace_that_drops_item_writes(monkeypatch: Any) -> None:
    # Sabotage: the traced backend's functional update ignores x[k] = v, as
    # a backend that forgot to rebind the traced value would.
    from cowarray._backends import jax as traced_backend

    monkeypatch.setattr(traced_backend.Staged, "__setitem__", lambda self, index, values: None)
    diverged = 0
    for seed in range(12):
        source = _program(seed)
        eager, _ = _run(source, lambda f: f)
        traced, _ = _run(source, transforms.jit)
        diverged += any(not np.allclose(traced[n], eager[n]) for n in eager)
    assert diverged >= 6
