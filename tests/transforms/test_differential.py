"""Programs run eagerly and transformed give the same values (rule 13).

Every program here writes in place: stencils with boundary writes,
optimizers with momentum, scatter updates with duplicates, mask writes,
view writes. Each runs eagerly on cowarray and under ``jit``; the scalar
ones under ``grad``/``value_and_grad`` against central finite differences
in float64; the per-example ones under ``vmap`` against a Python loop over
the batch; and compositions (``jit(vmap(grad(f)))``).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import cowarray as ca

pytest.importorskip("jax")

from cowarray import transforms

RNG = np.random.default_rng(48)


def _values(tree: Any) -> list[Any]:
    if isinstance(tree, (tuple, list)):
        return [v for item in tree for v in _values(item)]
    if isinstance(tree, dict):
        return [v for key in sorted(tree) for v in _values(tree[key])]
    return [tree]


def assert_same(eager: Any, transformed: Any, rtol: float = 1e-12) -> None:
    for a, b in zip(_values(eager), _values(transformed), strict=True):
        if isinstance(a, ca.Array):
            assert isinstance(b, ca.Array), type(b)
            assert a.dtype == b.dtype, (a.dtype, b.dtype)
            assert a.shape == b.shape, (a.shape, b.shape)
            np.testing.assert_allclose(np.asarray(b), np.asarray(a), rtol=rtol, atol=1e-12)
        else:
            assert a == b


# -- the programs ----------------------------------------------------------------------


def stencil(u: ca.Array) -> ca.Array:
    u[1:-1] += 0.1 * (u[2:] - 2 * u[1:-1] + u[:-2])
    u[0] = u[1]
    u[-1] = 0.0
    return u


def momentum(w: ca.Array, v: ca.Array, g: ca.Array) -> tuple[ca.Array, ca.Array]:
    v *= 0.9
    v += g
    w -= 0.1 * v
    return w, v


def scatter(x: ca.Array, idx: ca.Array, vals: ca.Array) -> ca.Array:
    y = x.at[idx].add(vals)  # duplicates accumulate
    y[idx] = vals  # duplicates: the last wins
    return y.at[idx].multiply(2.0)


def masks(x: ca.Array) -> ca.Array:
    y = ca.lazy_clone(x)
    y[y > 0.5] = 0.0  # a traced mask: a where
    y[x < 0.2] = ca.asarray([7.0, 8.0, 9.0])[:1]  # one value broadcast
    y = ca.where(y > 1.0, y + 1.0, y)  # x[mask] += v with a traced mask, written for a trace
    return y


def view_writes(x: ca.Array) -> tuple[ca.Array, ca.Array]:
    row = x[1]
    row[0] = -5.0  # a view write: only the view changes (ViewWriteWarning)
    x[0, 1:] -= x[2, 1:]
    return x, row


def dtypes(a: ca.Array, b: ca.Array) -> tuple[ca.Array, ...]:
    c = a + b  # float32 + int64 -> float64 (NumPy 2)
    d = a * 2.5  # a Python float keeps float32 (NEP 50)
    e = b // 3
    b += 1
    return c, d, e, b


PROGRAMS: list[tuple[str, Callable[..., Any], Callable[[], tuple[Any, ...]]]] = [
    ("stencil", stencil, lambda: (ca.asarray(RNG.random(20)),)),
    (
        "momentum",
        momentum,
        lambda: (ca.asarray(RNG.random(5)), ca.asarray(RNG.random(5)), ca.asarray(RNG.random(5))),
    ),
    (
        "scatter",
        scatter,
        lambda: (ca.asarray(RNG.random(6)), ca.asarray([1, 3, 1, 1, 5]), ca.asarray(RNG.random(5))),
    ),
    ("masks", masks, lambda: (ca.asarray(RNG.random(10)),)),
    ("view_writes", view_writes, lambda: (ca.asarray(RNG.random((3, 4))),)),
    (
        "dtypes",
        dtypes,
        lambda: (ca.asarray(RNG.random(4), dtype=ca.float32), ca.asarray([1, 2, 3, 4])),
    ),
]


def _clones(args: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(ca.lazy_clone(a) if isinstance(a, ca.Array) else a for a in args)


@pytest.mark.parametrize(("name", "program", "make"), PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_jit_gives_eager_values_and_writes_the_inputs_back(
    name: str, program: Callable[..., Any], make: Callable[[], tuple[Any, ...]]
) -> None:
    args = make()
    eager_args, jit_args = _clones(args), _clones(args)
    with warnings.catch_warnings(record=True) as eager_warnings:
        warnings.simplefilter("always")
        eager = program(*eager_args)
    compiled = transforms.jit(program)
    with warnings.catch_warnings(record=True) as traced_warnings:
        warnings.simplefilter("always")
        transformed = compiled(*jit_args)
    assert_same(eager, transformed)
    assert_same(eager_args, jit_args)  # the inputs the function wrote, as eagerly
    kinds = sorted(type(w.message).__name__ for w in eager_warnings)
    assert kinds == sorted(type(w.message).__name__ for w in traced_warnings)
    # A second call runs the compiled code: same values again, fresh inputs.
    again_args = _clones(args)
    assert_same(eager, compiled(*again_args))


def test_the_stencil_in_fori_loop_is_the_eager_loop() -> None:
    u = ca.asarray(RNG.random(100))
    eager = ca.lazy_clone(u)
    for _ in range(50):
        eager = stencil(eager)
    looped = transforms.jit(lambda u: transforms.fori_loop(0, 50, lambda i, v: stencil(v), u))
    assert_same(eager, looped(ca.lazy_clone(u)))


def test_float64_stays_float64_without_changing_jax_config() -> None:
    import jax

    before = jax.config.jax_enable_x64
    out = transforms.jit(lambda x: x * 3)(ca.asarray([1.0]))
    assert out.dtype == ca.float64
    assert jax.config.jax_enable_x64 == before


# -- grad against central finite differences -------------------------------------------


def energy(u: ca.Array) -> ca.Array:
    v = ca.lazy_clone(u)
    s = ca.sum(v**2)
    v[1:-1] += 0.1 * (v[2:] - 2 * v[1:-1] + v[:-2])
    v[v > 0.8] = 0.8  # a mask write: a where, differentiable
    return s + ca.sum(v**3)


def sgd_loss(lr: ca.Array, w0: ca.Array, x: ca.Array, y: ca.Array) -> ca.Array:
    w = ca.lazy_clone(w0)
    for _ in range(5):
        p = 1 / (1 + ca.exp(-(x @ w)))
        g = x.T @ (p - y) / y.shape[0]
        w -= lr * g
    p = 1 / (1 + ca.exp(-(x @ w)))
    return -ca.mean(y * ca.log(p) + (1 - y) * ca.log(1 - p))


def central_difference(f: Callable[..., Any], args: list[Any], argnum: int) -> np.ndarray:
    x = np.asarray(args[argnum], dtype=np.float64)
    out = np.zeros(x.shape)
    h = 1e-6
    for i in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[i] += h
        minus[i] -= h
        fp = float(f(*args[:argnum], ca.asarray(plus), *args[argnum + 1 :]))
        fm = float(f(*args[:argnum], ca.asarray(minus), *args[argnum + 1 :]))
        out[i] = (fp - fm) / (2 * h)
    return out


def test_grad_through_in_place_writes_matches_finite_differences() -> None:
    u = ca.asarray(RNG.random(12))
    g = transforms.grad(energy)(u)
    np.testing.assert_allclose(np.asarray(g), central_difference(energy, [u], 0), atol=1e-7)


def test_value_and_grad_with_respect_to_the_learning_rate_through_sgd() -> None:
    x = ca.asarray(RNG.standard_normal((30, 3)))
    y = ca.asarray((RNG.random(30) > 0.5).astype(np.float64))
    args = [ca.asarray(0.3), ca.asarray(RNG.standard_normal(3)), x, y]
    value, g = transforms.value_and_grad(sgd_loss)(*args)
    assert_same(sgd_loss(*args), value, rtol=1e-12)
    np.testing.assert_allclose(
        np.asarray(g), central_difference(sgd_loss, args, 0), rtol=1e-6, atol=1e-9
    )
    both = transforms.grad(sgd_loss, argnums=(0, 1))(*args)
    np.testing.assert_allclose(
        np.asarray(both[1]), central_difference(sgd_loss, args, 1), atol=1e-7
    )


def test_grad_has_aux_and_jacobian() -> None:
    def loss(w: ca.Array) -> tuple[ca.Array, dict[str, ca.Array]]:
        v = ca.lazy_clone(w)
        v[0] = 3.0 * w[1]
        return ca.sum(v * v), {"v": v}

    w = ca.asarray([1.0, 2.0, 3.0])
    g, aux = transforms.grad(loss, has_aux=True)(w)
    assert_same(loss(w)[1], aux)
    np.testing.assert_allclose(
        np.asarray(g), central_difference(lambda w: loss(w)[0], [w], 0), atol=1e-7
    )
    jac = transforms.jacobian(lambda w: stencil(ca.lazy_clone(w)))(w)
    assert jac.shape == (3, 3)


# -- vmap against a Python loop ----------------------------------------------------------


def test_vmap_of_in_place_code_is_the_loop_over_the_batch() -> None:
    batch = ca.asarray(RNG.random((8, 20)))
    looped = ca.stack([stencil(ca.lazy_clone(batch[i])) for i in range(8)])
    assert_same(looped, transforms.vmap(stencil)(ca.lazy_clone(batch)))
    # in_axes 1, out_axes 1
    columns = ca.lazy_clone(batch).T
    assert_same(looped.T, transforms.vmap(stencil, in_axes=1, out_axes=1)(columns))


def test_vmap_in_axes_none_and_trees() -> None:
    w = ca.asarray(RNG.random(5))
    vs = ca.asarray(RNG.random((4, 5)))
    gs = ca.asarray(RNG.random((4, 5)))
    batched = transforms.vmap(momentum, in_axes=(None, 0, 0))
    with pytest.raises(ValueError, match="not batched"):
        batched(ca.lazy_clone(w), vs, gs)
    out = transforms.vmap(lambda d: d["a"] * d["b"])({"a": vs, "b": gs})
    assert_same(vs * gs, out)


# -- compositions -----------------------------------------------------------------------


def test_jit_of_vmap_of_grad_matches_the_loop_of_finite_differences() -> None:
    us = ca.asarray(RNG.random((3, 6)))
    per_example = transforms.jit(transforms.vmap(transforms.grad(energy)))(us)
    for i in range(3):
        np.testing.assert_allclose(
            np.asarray(per_example[i]), central_difference(energy, [us[i]], 0), atol=1e-7
        )


def test_grad_of_a_jitted_fori_loop() -> None:
    def run(u: ca.Array) -> ca.Array:
        v = transforms.fori_loop(0, 10, lambda i, v: stencil(v), ca.lazy_clone(u))
        return ca.sum(v * v)

    u = ca.asarray(RNG.random(10))
    g = transforms.jit(transforms.grad(run))(u)
    np.testing.assert_allclose(np.asarray(g), central_difference(run, [u], 0), atol=1e-7)


def test_scan_while_loop_and_cond_give_eager_values() -> None:
    xs = ca.asarray(RNG.random((5, 3)))

    def add(total: ca.Array, x: ca.Array) -> tuple[ca.Array, ca.Array]:
        total += x
        return total, ca.sum(total)

    total, ys = transforms.scan(add, ca.zeros(3), xs)
    assert_same(ca.sum(xs, axis=0), total)
    assert_same(ca.cumulative_sum(ca.sum(xs, axis=1)), ys)
    halved = transforms.while_loop(
        lambda x: ca.max(x) > 1.0, lambda x: x / 2, ca.asarray([8.0, 5.0])
    )
    assert_same(ca.asarray([1.0, 0.625]), halved)
    picked = transforms.jit(
        lambda x: transforms.cond(x[0] > 0, lambda x: x + 1, lambda x: x - 1, x)
    )
    assert_same(ca.asarray([2.0]), picked(ca.asarray([1.0])))
    assert_same(ca.asarray([-2.0]), picked(ca.asarray([-1.0])))


def test_static_argnums_and_argnames() -> None:
    def power(x: ca.Array, n: int, *, mode: str = "plain") -> ca.Array:
        y = ca.lazy_clone(x)
        for _ in range(n):
            y *= x
        return -y if mode == "negate" else y

    compiled = transforms.jit(power, static_argnums=1, static_argnames="mode")
    x = ca.asarray([2.0])
    assert_same(ca.asarray([8.0]), compiled(x, 2))
    assert_same(ca.asarray([-16.0]), compiled(x, 3, mode="negate"))


def test_an_array_on_any_device_goes_in_and_comes_back_on_its_device(device: Any) -> None:
    # cpu, the simulated cpu:1, and cuda:0 (a real GPU, or the suite's CuPy
    # stand-in under COWARRAY_TEST_STAND_IN_GPU=1). Where JAX runs on that
    # GPU, the Array crosses by DLPack (no host copy); elsewhere by the host.
    start = np.arange(8.0) ** 2
    u = ca.asarray(start, device=device)
    eager = stencil(ca.asarray(start, device=device))
    out = transforms.jit(stencil)(u)
    assert out.device == device and u.device == device
    np.testing.assert_allclose(out.to_numpy(), eager.to_numpy(), rtol=1e-13)
    np.testing.assert_allclose(u.to_numpy(), eager.to_numpy(), rtol=1e-13)  # written back
    g = transforms.grad(lambda x: ca.sum(stencil(x) ** 2))(ca.asarray(start, device=device))
    assert g.device == device
