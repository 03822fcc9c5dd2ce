"""cowarray.random: NumPy's values on the CPU devices, copy-on-write shuffles,
independent spawned streams, and bad input that raises and changes nothing."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import cowarray as ca
from cowarray._devices import Device
from cowarray.testing import assert_equal_to_model, to_numpy

CPU_DEVICES = [Device("cpu"), Device("cpu:1")]

# (method, positional arguments, keyword arguments): Array-valued arguments are
# written as NumPy arrays and become cowarray Arrays on the device under test.
CALLS: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("random", (), {}),
    ("random", (5,), {}),
    ("random", ((2, 3),), {"dtype": np.float32}),
    ("uniform", (), {}),
    ("uniform", (-2.0, 3.0), {"size": 4}),
    ("uniform", (np.array([0.0, 10.0]), np.array([[11.0], [20.0]])), {}),
    ("normal", (), {}),
    ("normal", (1.0, 2.0), {"size": (2, 2)}),
    ("normal", (np.array([0.0, 5.0, 10.0]), 0.5), {}),
    ("normal", (0.0, np.array([1.0, 2.0])), {"size": (3, 2)}),
    ("standard_normal", (), {}),
    ("standard_normal", ((3, 2),), {}),
    ("standard_normal", (4,), {"dtype": np.float32}),
    ("integers", (10,), {}),
    ("integers", (-5, 5), {"size": 6}),
    ("integers", (0, 255), {"size": (2, 2), "dtype": np.uint8, "endpoint": True}),
    ("integers", (np.array([0, 10, 100]), np.array([5, 20, 1000])), {}),
    ("integers", (3, 9), {"size": 4, "dtype": np.int16}),
    ("choice", (5,), {}),
    ("choice", (7,), {"size": 4}),
    ("choice", (7,), {"size": (2, 2), "replace": False}),
    ("choice", (np.array([10, 20, 30, 40]),), {"size": 3, "p": np.array([0.1, 0.2, 0.3, 0.4])}),
    ("choice", (np.arange(12.0).reshape(3, 4),), {"size": 2, "axis": 1, "replace": False}),
    ("choice", (6,), {"size": 3, "replace": False, "p": [0.1, 0.1, 0.2, 0.2, 0.2, 0.2]}),
    ("choice", (6,), {"size": 3, "replace": False, "shuffle": False}),
    ("permutation", (6,), {}),
    ("permutation", (np.arange(12).reshape(4, 3),), {}),
    ("exponential", (), {}),
    ("exponential", (2.5,), {"size": 3}),
    ("exponential", (np.array([1.0, 10.0]),), {}),
    ("poisson", (), {}),
    ("poisson", (4.0,), {"size": (2, 3)}),
    ("poisson", (np.array([0.5, 50.0]),), {}),
    ("binomial", (10, 0.3), {"size": 5}),
    ("binomial", (np.array([5, 50]), np.array([[0.1], [0.9]])), {}),
    ("binomial", (1, 0.0), {}),
    ("multivariate_normal", ([0.0, 1.0], [[2.0, 0.5], [0.5, 1.0]]), {}),
    ("multivariate_normal", (np.zeros(3), np.eye(3)), {"size": (2, 4)}),
]


def _on(device: Device, value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return ca.asarray(value, device=device)
    if isinstance(value, type) and issubclass(value, np.generic):
        return np.dtype(value)
    return value


def _call(rng: Any, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    return getattr(rng, method)(*args, **kwargs)


def _cowarray_call(rng: ca.random.Generator, call: tuple[Any, ...]) -> ca.Array:
    method, args, kwargs = call
    device = rng.device
    return _call(
        rng,
        method,
        tuple(_on(device, a) for a in args),
        {k: _on(device, v) for k, v in kwargs.items()},
    )


CALL_IDS = [f"{call[0]}-{number}" for number, call in enumerate(CALLS)]


# -- against NumPy ----------------------------------------------------------------


@pytest.mark.parametrize("device", CPU_DEVICES, ids=str)
@pytest.mark.parametrize("call", CALLS, ids=CALL_IDS)
def test_each_method_gives_numpys_values(device: Device, call: tuple[Any, ...]) -> None:
    ours = ca.random.default_rng(1234, device=device)
    model = np.random.default_rng(1234)
    for _ in range(2):  # the second call checks that the streams advanced alike
        result = _cowarray_call(ours, call)
        assert result.device is device
        assert_equal_to_model(result, np.asarray(_call(model, *call)))


@pytest.mark.parametrize("device", CPU_DEVICES, ids=str)
def test_a_whole_call_sequence_gives_numpys_values(device: Device) -> None:
    ours = ca.random.default_rng(2026, device=device)
    model = np.random.default_rng(2026)
    for call in CALLS:
        assert_equal_to_model(_cowarray_call(ours, call), np.asarray(_call(model, *call)))
    x = ca.arange(10, device=device)
    expected = np.arange(10)
    ours.shuffle(x)
    model.shuffle(expected)
    assert_equal_to_model(x, expected)
    assert_equal_to_model(ours.random(3), model.random(3))


def test_cpu_and_the_simulated_cpu_1_give_the_same_values() -> None:
    on_cpu = ca.random.default_rng(5, device="cpu")
    on_cpu_1 = ca.random.default_rng(5, device="cpu:1")
    for call in CALLS:
        np.testing.assert_array_equal(
            to_numpy(_cowarray_call(on_cpu, call)), to_numpy(_cowarray_call(on_cpu_1, call))
        )


def test_a_seed_sequence_seeds_as_numpy_does() -> None:
    ours = ca.random.default_rng(np.random.SeedSequence(99))
    assert_equal_to_model(
        ours.random(4), np.random.default_rng(np.random.SeedSequence(99)).random(4)
    )
    assert ours.seed_sequence.entropy == 99


def test_without_a_seed_the_streams_differ() -> None:
    first = to_numpy(ca.random.default_rng().random(8))
    second = to_numpy(ca.random.default_rng().random(8))
    assert not np.array_equal(first, second)


# -- every device (the stand-in GPU too) ---------------------------------------------


@pytest.mark.parametrize("call", CALLS, ids=CALL_IDS)
def test_the_same_seed_gives_the_same_values(device: Device, call: tuple[Any, ...]) -> None:
    first = _cowarray_call(ca.random.default_rng(77, device=device), call)
    second = _cowarray_call(ca.random.default_rng(77, device=device), call)
    assert first.device is device and second.device is device
    model = np.asarray(_call(np.random.default_rng(77), *call))
    assert first.shape == model.shape
    assert first.dtype == model.dtype
    np.testing.assert_array_equal(to_numpy(first), to_numpy(second))


def test_results_are_arrays_of_the_right_shape_and_dtype(device: Device) -> None:
    rng = ca.random.default_rng(0, device=device)
    scalar = rng.random()
    assert type(scalar) is ca.Array and scalar.shape == () and scalar.dtype == ca.float64
    assert rng.random(3).shape == (3,)
    assert rng.random((2, 0, 4)).shape == (2, 0, 4)
    assert rng.random([2, 3]).shape == (2, 3)
    assert rng.standard_normal(2, dtype=ca.float32).dtype == ca.float32
    assert rng.integers(5, size=(), dtype=ca.int32).dtype == ca.int32
    assert rng.integers(5).shape == ()
    assert rng.choice(4).shape == ()
    assert rng.poisson(2.0).dtype == ca.int64
    assert rng.binomial(4, 0.5, size=2).dtype == ca.int64
    assert rng.multivariate_normal([0.0], [[1.0]], size=3).shape == (3, 1)
    # every result owns fresh memory
    assert ca.cow_info(rng.random(3)).state == "private"


def test_draws_follow_their_distributions(device: Device) -> None:
    rng = ca.random.default_rng(3, device=device)
    u = to_numpy(rng.uniform(2.0, 3.0, size=2000))
    assert u.min() >= 2.0 and u.max() < 3.0
    n = to_numpy(rng.normal(5.0, 0.5, size=4000))
    assert abs(n.mean() - 5.0) < 0.05 and abs(n.std() - 0.5) < 0.05
    k = to_numpy(rng.integers(ca.asarray([0, 100], device=device), 110, size=(500, 2)))
    assert k[:, 0].min() >= 0 and k.max() < 110 and k[:, 1].min() >= 100
    c = to_numpy(rng.choice(5, size=5, replace=False))
    assert sorted(c.tolist()) == [0, 1, 2, 3, 4]
    w = to_numpy(rng.choice(3, size=300, p=[0.0, 1.0, 0.0]))
    assert set(w.tolist()) == {1}
    w = to_numpy(rng.choice(4, size=2, replace=False, p=[0.5, 0.5, 0.0, 0.0]))
    assert sorted(w.tolist()) == [0, 1]
    p = to_numpy(rng.permutation(6))
    assert sorted(p.tolist()) == list(range(6))
    e = to_numpy(rng.exponential(ca.asarray([1.0, 100.0], device=device), size=(3000, 2)))
    assert e.min() >= 0 and e[:, 1].mean() > 10 * e[:, 0].mean()
    lam = to_numpy(rng.poisson(ca.asarray([1.0, 30.0], device=device)))
    assert lam.shape == (2,) and lam.min() >= 0
    b = to_numpy(rng.binomial(ca.asarray([3, 8], device=device), 1.0))
    np.testing.assert_array_equal(b, [3, 8])
    m = to_numpy(rng.multivariate_normal([1.0, -1.0], [[1.0, 0.9], [0.9, 1.0]], size=3000))
    assert abs(np.corrcoef(m.T)[0, 1] - 0.9) < 0.05


def test_permutation_and_choice_leave_their_input_unchanged(device: Device) -> None:
    x = ca.asarray([[1, 2], [3, 4], [5, 6]], device=device)
    rng = ca.random.default_rng(1, device=device)
    permuted = rng.permutation(x)
    taken = rng.choice(x, size=2, replace=False)
    np.testing.assert_array_equal(to_numpy(x), [[1, 2], [3, 4], [5, 6]])
    assert sorted(map(tuple, to_numpy(permuted).tolist())) == [(1, 2), (3, 4), (5, 6)]
    assert taken.shape == (2, 2)
    assert not ca.shares_buffer(permuted, x) and not ca.shares_buffer(taken, x)


# -- shuffle: in place, through copy-on-write ------------------------------------------


def test_shuffle_of_a_sole_holder_writes_in_place_with_no_copy(device: Device) -> None:
    x = ca.arange(100, device=device)
    before = ca.cow_info(x)
    ca.reset_copy_counters()
    with ca.trace() as events:
        ca.random.default_rng(0, device=device).shuffle(x)
    assert ca.copy_counters().copies == 0
    assert events.copies == 0 and events.count("materialize") == 0
    after = ca.cow_info(x)
    assert after.state == before.state == "private" and after.holders == 1
    values = to_numpy(x)
    assert sorted(values.tolist()) == list(range(100))
    assert not np.array_equal(values, np.arange(100))


def test_shuffle_keeps_the_values_of_a_lazy_clone(device: Device) -> None:
    x = ca.asarray([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]], device=device)
    clone = ca.lazy_clone(x)
    assert ca.cow_info(x).state == "shared" and ca.cow_info(x).holders == 2
    ca.reset_copy_counters()
    ca.random.default_rng(11, device=device).shuffle(x)
    assert ca.copy_counters().copies == 1  # x left the shared buffer
    np.testing.assert_array_equal(to_numpy(clone), [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])
    assert sorted(map(tuple, to_numpy(x).tolist())) == [(1, 2), (3, 4), (5, 6), (7, 8)]
    assert not ca.shares_buffer(x, clone)
    assert ca.cow_info(x).holders == 1 and ca.cow_info(clone).holders == 1


@pytest.mark.parametrize("device", CPU_DEVICES, ids=str)
def test_shuffle_gives_numpys_order(device: Device) -> None:
    x = ca.reshape(ca.arange(15.0, device=device), (5, 3))
    expected = np.arange(15.0).reshape(5, 3)
    ca.random.default_rng(8, device=device).shuffle(x)
    np.random.default_rng(8).shuffle(expected)
    assert_equal_to_model(x, expected)


# -- independent streams ----------------------------------------------------------------


def test_spawned_children_are_reproducible_and_independent(device: Device) -> None:
    def draws(seed: int) -> list[np.ndarray]:
        parent = ca.random.default_rng(seed, device=device)
        children = parent.spawn(3)
        assert all(child.device is device for child in children)
        return [to_numpy(g.random(6)) for g in (parent, *children)]

    first, second = draws(21), draws(21)
    for a, b in zip(first, second, strict=True):
        np.testing.assert_array_equal(a, b)
    for i in range(len(first)):
        for j in range(i + 1, len(first)):
            assert not np.array_equal(first[i], first[j])


def test_split_is_spawn(device: Device) -> None:
    left, right = ca.random.split(ca.random.default_rng(4, device=device))
    again = ca.random.default_rng(4, device=device).spawn(2)
    np.testing.assert_array_equal(to_numpy(left.random(3)), to_numpy(again[0].random(3)))
    np.testing.assert_array_equal(to_numpy(right.random(3)), to_numpy(again[1].random(3)))
    assert len(ca.random.split(ca.random.default_rng(4, device=device), 5)) == 5


@pytest.mark.parametrize("device", CPU_DEVICES, ids=str)
def test_spawn_matches_numpys_spawn(device: Device) -> None:
    ours = ca.random.default_rng(6, device=device).spawn(2)
    model = np.random.default_rng(6).spawn(2)
    for child, expected in zip(ours, model, strict=True):
        assert_equal_to_model(child.normal(size=4), expected.normal(size=4))


# -- bad input: the right error, and nothing changed -------------------------------------


def _bad_calls(
    device: Device,
) -> list[tuple[str, Callable[[Any, dict[str, ca.Array]], Any], type, str]]:
    other = Device("cpu:1") if device is not Device("cpu:1") else Device("cpu")
    return [
        (
            "random dtype",
            lambda g, a: g.random(2, dtype=ca.int64),
            ValueError,
            "random: dtype must be float32 or float64",
        ),
        (
            "random dtype kind",
            lambda g, a: g.random(dtype="not a dtype"),
            ValueError,
            "not a data type",
        ),
        (
            "random dtype object",
            lambda g, a: g.random(dtype=[1]),
            TypeError,
            "dtype must be a cowarray dtype",
        ),
        (
            "size type",
            lambda g, a: g.random(2.5),
            TypeError,
            "size must be None, an int or a tuple",
        ),
        (
            "size negative",
            lambda g, a: g.random(-1),
            ValueError,
            "size must be a non-negative integer",
        ),
        (
            "normal scale",
            lambda g, a: g.normal(0.0, -1.0),
            ValueError,
            "normal: scale must be non-negative",
        ),
        (
            "normal scale array",
            lambda g, a: g.normal(0.0, a["negative"]),
            ValueError,
            "normal: scale must be non-negative",
        ),
        (
            "normal loc type",
            lambda g, a: g.normal("0"),
            TypeError,
            "normal: loc must be a real number or a cowarray Array",
        ),
        (
            "normal complex",
            lambda g, a: g.normal(a["complex"]),
            TypeError,
            "loc must be a real number or an Array of real dtype",
        ),
        (
            "normal size",
            lambda g, a: g.normal(a["values"], size=3),
            ValueError,
            r"normal: size=\(3,\) cannot hold",
        ),
        (
            "uniform inf",
            lambda g, a: g.uniform(0.0, float("inf")),
            ValueError,
            "uniform: low and high must be finite",
        ),
        (
            "uniform order",
            lambda g, a: g.uniform(5.0, a["values"]),
            ValueError,
            "uniform: high must not be below low",
        ),
        (
            "uniform overflow",
            lambda g, a: g.uniform(-1e308, 1e308),
            OverflowError,
            "uniform: high - low overflows float64",
        ),
        (
            "standard_normal dtype",
            lambda g, a: g.standard_normal(dtype=ca.int32),
            ValueError,
            "standard_normal: dtype must be float32",
        ),
        (
            "integers dtype",
            lambda g, a: g.integers(5, dtype=ca.float64),
            ValueError,
            "integers: dtype must be an integer dtype",
        ),
        (
            "integers empty",
            lambda g, a: g.integers(5, 5),
            ValueError,
            "integers: the interval is empty; it needs low < high",
        ),
        (
            "integers empty array",
            lambda g, a: g.integers(a["ints"], 2),
            ValueError,
            "integers: the interval is empty",
        ),
        (
            "integers range",
            lambda g, a: g.integers(0, 300, dtype=ca.uint8),
            ValueError,
            "integers: high is above the largest uint8",
        ),
        (
            "integers low",
            lambda g, a: g.integers(-1, 3, dtype=ca.uint8),
            ValueError,
            "integers: low is below the smallest uint8",
        ),
        (
            "integers float bound",
            lambda g, a: g.integers(1.5),
            TypeError,
            "integers: high must be an integer",
        ),
        (
            "integers endpoint",
            lambda g, a: g.integers(3, endpoint=1),
            TypeError,
            "endpoint must be True or False",
        ),
        (
            "choice p sum",
            lambda g, a: g.choice(3, p=[0.2, 0.2, 0.2]),
            ValueError,
            "choice: p must sum to 1",
        ),
        (
            "choice p negative",
            lambda g, a: g.choice(2, p=[1.5, -0.5]),
            ValueError,
            "choice: p must be non-negative",
        ),
        (
            "choice p shape",
            lambda g, a: g.choice(3, p=[0.5, 0.5]),
            ValueError,
            r"choice: p must be 1-D with one probability per entry \(3\)",
        ),
        (
            "choice p type",
            lambda g, a: g.choice(3, p="abc"),
            TypeError,
            "choice: p must be an Array or a sequence",
        ),
        (
            "choice too many",
            lambda g, a: g.choice(3, size=4, replace=False),
            ValueError,
            "cannot take 4 entries out of 3 with replace=False",
        ),
        (
            "choice nonzero",
            lambda g, a: g.choice(3, size=2, replace=False, p=[1.0, 0.0, 0.0]),
            ValueError,
            "fewer non-zero entries",
        ),
        ("choice empty", lambda g, a: g.choice(0), ValueError, "choice: a is empty"),
        (
            "choice a type",
            lambda g, a: g.choice(2.0),
            TypeError,
            "choice: a must be an int or a cowarray Array",
        ),
        ("choice 0-d", lambda g, a: g.choice(a["scalar"]), ValueError, "at least one axis"),
        (
            "choice replace",
            lambda g, a: g.choice(3, replace=None),
            TypeError,
            "choice: replace must be True or False",
        ),
        (
            "permutation type",
            lambda g, a: g.permutation([1, 2]),
            TypeError,
            "permutation: x must be an int or a cowarray Array",
        ),
        (
            "permutation negative",
            lambda g, a: g.permutation(-2),
            ValueError,
            "permutation: x must be a non-negative int",
        ),
        (
            "shuffle type",
            lambda g, a: g.shuffle(3),
            TypeError,
            "shuffle: x must be a cowarray Array",
        ),
        (
            "shuffle 0-d",
            lambda g, a: g.shuffle(a["scalar"]),
            ValueError,
            "shuffle: x must have at least one axis",
        ),
        (
            "shuffle device",
            lambda g, a: g.shuffle(a["other"]),
            ValueError,
            f"shuffle: x is on {other} but the generator is on {device}",
        ),
        (
            "exponential scale",
            lambda g, a: g.exponential(-0.5),
            ValueError,
            "exponential: scale must be non-negative",
        ),
        (
            "poisson lam",
            lambda g, a: g.poisson(-1.0),
            ValueError,
            "poisson: lam must be a non-negative number",
        ),
        (
            "poisson nan",
            lambda g, a: g.poisson(float("nan")),
            ValueError,
            "poisson: lam must be a non-negative number",
        ),
        (
            "binomial p",
            lambda g, a: g.binomial(5, 1.5),
            ValueError,
            "binomial: p must be a probability between 0 and 1",
        ),
        (
            "binomial n",
            lambda g, a: g.binomial(-1, 0.5),
            ValueError,
            "binomial: n .* must be non-negative",
        ),
        (
            "binomial n float",
            lambda g, a: g.binomial(2.5, 0.5),
            TypeError,
            "binomial: n must be an integer",
        ),
        (
            "normal device",
            lambda g, a: g.normal(a["other"]),
            ValueError,
            f"normal: loc is on {other} but the generator is on {device}",
        ),
        (
            "mvn cov shape",
            lambda g, a: g.multivariate_normal([0.0, 0.0], [[1.0]]),
            ValueError,
            r"cov must have shape \(2, 2\)",
        ),
        (
            "mvn mean ndim",
            lambda g, a: g.multivariate_normal([[0.0]], [[1.0]]),
            ValueError,
            "mean must have 1 dimension",
        ),
        (
            "mvn mean type",
            lambda g, a: g.multivariate_normal(0.0, [[1.0]]),
            TypeError,
            "mean must be a cowarray Array or a sequence",
        ),
        ("spawn n", lambda g, a: g.spawn(-1), ValueError, "spawn: n must be non-negative"),
        ("spawn type", lambda g, a: g.spawn(2.0), TypeError, "spawn: n must be an int"),
        (
            "split type",
            lambda g, a: ca.random.split(np.random.default_rng(0)),
            TypeError,
            "split: rng must be a cowarray.random.Generator",
        ),
    ]


def _bad_call_names() -> list[str]:
    return [name for name, *_ in _bad_calls(Device("cpu"))]


@pytest.mark.parametrize("name", _bad_call_names())
def test_bad_input_raises_and_changes_nothing(device: Device, name: str) -> None:
    (call, error, message) = next((c, e, m) for n, c, e, m in _bad_calls(device) if n == name)
    other = Device("cpu:1") if device is not Device("cpu:1") else Device("cpu")
    arrays = {
        "negative": ca.asarray([1.0, -1.0], device=device),
        "complex": ca.asarray([1j], device=device),
        "values": ca.asarray([[1.0, 2.0], [3.0, 4.0]], device=device),
        "ints": ca.asarray([1, 5], device=device),
        "scalar": ca.asarray(3.0, device=device),
        "other": ca.asarray([1.0, 2.0], device=other),
    }
    clones = {key: ca.lazy_clone(value) for key, value in arrays.items()}
    saved = {key: to_numpy(value) for key, value in arrays.items()}
    rng = ca.random.default_rng(13, device=device)
    with pytest.raises(error, match=message):
        call(rng, arrays)
    for key, value in arrays.items():
        np.testing.assert_array_equal(to_numpy(value), saved[key])
        np.testing.assert_array_equal(to_numpy(clones[key]), saved[key])
        assert ca.shares_buffer(value, clones[key])
    # nothing was drawn either: the stream continues as a fresh one would
    fresh = ca.random.default_rng(13, device=device)
    np.testing.assert_array_equal(to_numpy(rng.random(4)), to_numpy(fresh.random(4)))


def test_a_failed_shuffle_of_a_shared_array_changes_nothing(device: Device) -> None:
    other = Device("cpu:1") if device is not Device("cpu:1") else Device("cpu")
    x = ca.asarray([1, 2, 3, 4], device=device)
    clone = ca.lazy_clone(x)
    ca.reset_copy_counters()
    with pytest.raises(ValueError, match=f"is on {device} but the generator is on {other}"):
        ca.random.default_rng(0, device=other).shuffle(x)
    assert ca.copy_counters().copies == 0
    assert ca.cow_info(x).state == "shared" and ca.cow_info(x).holders == 2
    np.testing.assert_array_equal(to_numpy(x), [1, 2, 3, 4])
    np.testing.assert_array_equal(to_numpy(clone), [1, 2, 3, 4])


@pytest.mark.parametrize(
    ("seed", "error", "message"),
    [
        (-1, ValueError, "seed must be a non-negative int"),
        (1.5, TypeError, "seed must be None, a non-negative int or a numpy.random.SeedSequence"),
        (True, TypeError, "got bool"),
        ("7", TypeError, "got str"),
    ],
)
def test_bad_seeds(seed: object, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        ca.random.default_rng(seed)  # type: ignore[arg-type]


def test_bad_device() -> None:
    with pytest.raises(ValueError, match="unknown device kind"):
        ca.random.default_rng(0, device="tpu")
    with pytest.raises(TypeError, match="default_rng"):
        ca.random.Generator(0, Device("cpu"))  # type: ignore[arg-type]


# -- the namespace ------------------------------------------------------------------------


def test_the_submodule_is_exported_and_imports_no_cupy() -> None:
    assert ca.random.Generator is type(ca.random.default_rng(0))
    assert repr(ca.random.default_rng(0, device="cpu:1")) == "Generator(device='cpu:1')"
    code = "import sys, cowarray; cowarray.random.default_rng(0); print('cupy' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"


def test_the_examples_of_docs_random_md_run() -> None:
    path = Path(__file__).parents[2] / "docs" / "random.md"
    blocks = re.findall(r"```python\n(.*?)```", path.read_text(), re.S)
    assert len(blocks) >= 3
    for block in blocks:
        lines = [line for line in block.splitlines() if '"cuda:0"' not in line]
        exec("\n".join(lines), {"ca": ca, "rng": ca.random.default_rng(1)})
