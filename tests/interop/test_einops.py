"""einops on cowarray Arrays: the default API (cowarray's backend) and einops.array_api.

Each operation runs on a cowarray Array on every device and on the same values
as a NumPy array; the results must agree in shape, dtype and values, stay
cowarray Arrays on the input's device, and be values: writing a result never
changes the input, nor the other way round.
"""

from __future__ import annotations

import doctest
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import cowarray as ca
from cowarray.testing import assert_equal_to_model, to_numpy

einops = pytest.importorskip("einops")
array_api = pytest.importorskip("einops.array_api")

ROOT = Path(__file__).resolve().parents[2]

#: (b, h, w, c) of small integers, so every sum is exact on every device
IMAGES = (np.arange(2 * 4 * 6 * 3).reshape(2, 4, 6, 3) % 7).astype(np.float32)

REARRANGE = [
    "b h w c -> b c h w",
    "b h w c -> (b h) w c",
    "b h w c -> b (c h w)",
    "b h w c -> h (b w) c",
    "b (h h2) (w w2) c -> b h w (c h2 w2)",
    "... c -> c ...",
    "b h w c -> b h w c 1",
    "b h w c -> (b h w c)",
]

REDUCTIONS = ["sum", "mean", "max", "min", "prod"]

REDUCE = [
    "b h w c -> b c",
    "b (h 2) (w 2) c -> b h w c",
    "b h w c -> c",
    "b h w c -> ",
    "b h w c -> b () () c",
]

REPEAT = [
    ("b h w c -> b h w c r", {"r": 2}),
    ("b h w c -> b (h 2) (w 3) c", {}),
    ("b h w c -> (r b) h w c", {"r": 3}),
    ("b h w c -> n b h w c", {"n": 2}),
]


def _on(device: ca.Device, values: np.ndarray) -> ca.Array:
    return ca.asarray(values, device=device)


def _same(actual: Any, expected: np.ndarray, device: ca.Device, close: bool = False) -> None:
    assert type(actual) is ca.Array
    assert actual.device == device
    if close:
        np.testing.assert_allclose(to_numpy(actual), expected, rtol=1e-6)
        assert to_numpy(actual).dtype == expected.dtype
    else:
        assert_equal_to_model(actual, expected)


# -- the default API: einops.rearrange and friends -----------------------------


@pytest.mark.parametrize("pattern", REARRANGE)
def test_rearrange_gives_numpys_result(device: ca.Device, pattern: str) -> None:
    lengths = {"h2": 2, "w2": 3} if "h2" in pattern else {}
    result = einops.rearrange(_on(device, IMAGES), pattern, **lengths)
    _same(result, einops.rearrange(IMAGES, pattern, **lengths), device)


def test_rearrange_of_a_list_stacks_it(device: ca.Device) -> None:
    parts = [IMAGES[0], IMAGES[1] + 1]
    result = einops.rearrange([_on(device, p) for p in parts], "n h w c -> h (n w) c")
    _same(result, einops.rearrange(parts, "n h w c -> h (n w) c"), device)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("pattern", REDUCE)
def test_reduce_gives_numpys_result(device: ca.Device, pattern: str, reduction: str) -> None:
    # no zeros, so prod says something; ones and twos for prod, so it stays finite
    values = IMAGES % 2 + 1 if reduction == "prod" else IMAGES + 1
    result = einops.reduce(_on(device, values), pattern, reduction)
    _same(result, einops.reduce(values, pattern, reduction), device, close=reduction != "max")


@pytest.mark.parametrize("reduction", ["sum", "max", "min", "prod"])
def test_reduce_of_integers_keeps_numpys_dtype(device: ca.Device, reduction: str) -> None:
    values = IMAGES.astype(np.int64)
    result = einops.reduce(_on(device, values), "b h w c -> b c", reduction)
    _same(result, einops.reduce(values, "b h w c -> b c", reduction), device)


@pytest.mark.parametrize("reduction", ["any", "all"])
def test_reduce_of_booleans(device: ca.Device, reduction: str) -> None:
    values = IMAGES > 3
    result = einops.reduce(_on(device, values), "b h w c -> b c", reduction)
    _same(result, einops.reduce(values, "b h w c -> b c", reduction), device)


def test_mean_of_integers_is_refused_as_for_numpy(device: ca.Device) -> None:
    with pytest.raises(NotImplementedError, match="non-floating"):
        einops.reduce(_on(device, IMAGES.astype(np.int32)), "b h w c -> b", "mean")


def test_reduce_with_a_callable(device: ca.Device) -> None:
    def span(x: Any, axes: tuple[int, ...]) -> Any:
        xp = x.__array_namespace__() if isinstance(x, ca.Array) else np
        return xp.max(x, axis=axes) - xp.min(x, axis=axes)

    result = einops.reduce(_on(device, IMAGES), "b h w c -> b c", span)
    _same(result, einops.reduce(IMAGES, "b h w c -> b c", span), device)


@pytest.mark.parametrize(("pattern", "lengths"), REPEAT)
def test_repeat_gives_numpys_result(
    device: ca.Device, pattern: str, lengths: dict[str, int]
) -> None:
    result = einops.repeat(_on(device, IMAGES), pattern, **lengths)
    _same(result, einops.repeat(IMAGES, pattern, **lengths), device)


def test_pack_and_unpack_give_numpys_results(device: ca.Device) -> None:
    parts = [IMAGES[:, :, :, 0], IMAGES, IMAGES[:, :, :, :, np.newaxis] * 2]
    packed, shapes = einops.pack([_on(device, p) for p in parts], "b h w *")
    expected, expected_shapes = einops.pack(parts, "b h w *")
    _same(packed, expected, device)
    assert shapes == expected_shapes
    for result, model in zip(
        einops.unpack(packed, shapes, "b h w *"),
        einops.unpack(expected, expected_shapes, "b h w *"),
        strict=True,
    ):
        _same(result, model, device)


@pytest.mark.parametrize(
    ("pattern", "shapes"),
    [
        ("b h w c, c d -> b h w d", [(2, 4, 6, 3), (3, 5)]),
        ("i j, j k -> i k", [(4, 3), (3, 5)]),
        ("i i ->", [(4, 4)]),
        ("i i -> i", [(4, 4)]),
        ("i j -> j i", [(4, 3)]),
        ("b i, b i -> b", [(4, 3), (4, 3)]),
        ("... i, i -> ...", [(2, 4, 3), (3,)]),
    ],
)
def test_einsum_gives_numpys_result(
    device: ca.Device, pattern: str, shapes: list[tuple[int, ...]]
) -> None:
    models = [(np.arange(np.prod(s)).reshape(s) % 5).astype(np.float64) for s in shapes]
    result = einops.einsum(*[_on(device, m) for m in models], pattern)
    _same(result, einops.einsum(*models, pattern), device)


def test_parse_shape_and_asnumpy(device: ca.Device) -> None:
    x = _on(device, IMAGES)
    assert einops.parse_shape(x, "b _ w c") == {"b": 2, "w": 6, "c": 3}
    values = einops.asnumpy(x)
    assert type(values) is np.ndarray
    np.testing.assert_array_equal(values, IMAGES)


def test_the_backend_is_cowarrays() -> None:
    from einops._backends import get_backend

    from cowarray.interop.einops import CowarrayBackend

    assert type(get_backend(ca.zeros(2))) is CowarrayBackend


def test_an_error_in_the_pattern_is_einops_error() -> None:
    with pytest.raises(einops.EinopsError, match="Identifiers only on one side"):
        einops.rearrange(ca.zeros((2, 3)), "h w -> h")


# -- values -------------------------------------------------------------------


def test_a_rearranged_view_shares_the_buffer_and_is_a_value() -> None:
    x = ca.asarray(IMAGES)
    y = einops.rearrange(x, "b h w c -> c b h w")  # a transpose: a view in NumPy
    assert ca.shares_buffer(x, y)  # O(1), no copy
    y[0, 0, 0, 0] = -1.0
    assert_equal_to_model(x, IMAGES)
    x[...] = 0.0
    np.testing.assert_array_equal(to_numpy(y)[1:], np.moveaxis(IMAGES, -1, 0)[1:])
    assert float(to_numpy(y)[0, 0, 0, 0]) == -1.0


def test_a_repeat_is_a_broadcast_that_copies_only_when_written() -> None:
    x = ca.asarray(IMAGES)
    y = einops.repeat(x, "b h w c -> b h w c r", r=1000)
    assert ca.shares_buffer(x, y)  # O(1): 1000 repeats, no copy
    y[0, 0, 0, 0, 0] = -1.0  # a broadcast: y gets its own buffer first
    assert not ca.shares_buffer(x, y)
    assert float(to_numpy(y)[0, 0, 0, 0, 1]) == IMAGES[0, 0, 0, 0]
    assert_equal_to_model(x, IMAGES)


@pytest.mark.parametrize(
    "operation",
    [
        pytest.param(lambda x: einops.rearrange(x, "b h w c -> (b h) w c"), id="rearrange"),
        pytest.param(lambda x: einops.repeat(x, "b h w c -> b h w c r", r=2), id="repeat"),
        pytest.param(lambda x: einops.reduce(x, "b h w c -> b w c", "max"), id="reduce"),
        pytest.param(lambda x: einops.unpack(x, [(4,), (2,)], "b h * c")[0], id="unpack"),
        pytest.param(lambda x: einops.pack([x, x], "b h w *")[0], id="pack"),
        pytest.param(lambda x: einops.einsum(x, "b h w c -> c w h b"), id="einsum"),
        pytest.param(lambda x: array_api.rearrange(x, "b h w c -> w c h b"), id="array_api"),
    ],
)
def test_writing_a_result_or_its_input_leaves_the_other(
    device: ca.Device, operation: Callable[[ca.Array], ca.Array]
) -> None:
    x = _on(device, IMAGES)
    result = operation(x)
    before = to_numpy(result)
    result[...] = -1.0
    assert_equal_to_model(x, IMAGES)
    result = operation(x)
    x[...] = 5.0
    np.testing.assert_array_equal(to_numpy(result), before)


def test_asnumpy_is_a_copy() -> None:
    x = ca.asarray(IMAGES)
    einops.asnumpy(x)[...] = 0.0
    assert_equal_to_model(x, IMAGES)
    assert ca.cow_info(x).state == "private"  # not exposed (rule 4 is np.asarray's)


# -- devices ------------------------------------------------------------------


def test_arrays_on_different_devices_are_refused() -> None:
    here, there = ca.zeros((2, 3)), ca.zeros((2, 3), device="cpu:1")
    with pytest.raises(ValueError, match="different devices"):
        einops.pack([here, there], "b *")
    with pytest.raises(ValueError, match="different devices"):
        einops.einsum(here, there, "i j, i j -> i")
    with pytest.raises(ValueError, match="different devices"):
        einops.rearrange([here, there], "n i j -> i (n j)")


# -- einops.array_api: the route that needs no backend --------------------------


@pytest.mark.parametrize("pattern", REARRANGE)
def test_array_api_rearrange_agrees_with_the_backend(device: ca.Device, pattern: str) -> None:
    lengths = {"h2": 2, "w2": 3} if "h2" in pattern else {}
    x = _on(device, IMAGES)
    result = array_api.rearrange(x, pattern, **lengths)
    _same(result, to_numpy(einops.rearrange(x, pattern, **lengths)), device)


def test_array_api_reduce_repeat_pack_unpack(device: ca.Device) -> None:
    x = _on(device, IMAGES)
    mean, tiles = "b h w c -> b c", "b h w c -> b h w c r"
    _same(array_api.reduce(x, mean, "mean"), einops.reduce(IMAGES, mean, "mean"), device)
    _same(array_api.repeat(x, tiles, r=2), einops.repeat(IMAGES, tiles, r=2), device)
    packed, shapes = array_api.pack([x, x[..., 0]], "b h w *")
    _same(packed, einops.pack([IMAGES, IMAGES[..., 0]], "b h w *")[0], device)
    first, second = array_api.unpack(packed, shapes, "b h w *")
    _same(first, IMAGES, device)
    _same(second, IMAGES[..., 0], device)


# -- registration ---------------------------------------------------------------


def _python(code: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return result.stdout.strip()


@pytest.mark.parametrize(
    "imports", ["import cowarray as ca; import einops", "import einops; import cowarray as ca"]
)
def test_either_import_order_works(imports: str) -> None:
    code = f"{imports}; print(einops.rearrange(ca.zeros((2, 3)), 'h w -> w h').shape)"
    assert _python(code) == "(3, 2)"


def test_without_einops_cowarray_imports_and_says_so() -> None:
    code = (
        "import sys; sys.modules['einops'] = None; import cowarray, cowarray.interop; "
        "print(cowarray.interop.register_einops(), 'cowarray.interop.einops' in sys.modules)"
    )
    assert _python(code) == "False False"


def test_the_docs_page_examples_run() -> None:
    result = doctest.testfile(
        str(ROOT / "docs" / "einops.md"),
        module_relative=False,
        optionflags=doctest.NORMALIZE_WHITESPACE,
        raise_on_error=False,
        verbose=False,
    )
    assert result.attempted > 5
    assert result.failed == 0
