"""Round trips through torch keep values for any dtype, shape and strides, and never alias."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import cowarray as ca

torch = pytest.importorskip("torch")
from _shared_dtypes import SHARED_DTYPES  # noqa: E402

from cowarray.interop.torch import from_torch, to_torch  # noqa: E402

DTYPES = SHARED_DTYPES


@st.composite
def strided_case(draw: Any, steps: tuple[int, ...]) -> tuple[np.ndarray, tuple[slice, ...], Any]:
    """A NumPy model, a slicing with the given possible steps, and an axis order."""
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5))
    model = draw(hnp.arrays(dtype, shape))
    slices = tuple(slice(None, None, draw(st.sampled_from(steps))) for _ in shape)
    order = draw(st.permutations(range(len(shape))))
    return model, slices, tuple(order)


@settings(max_examples=60, deadline=None)
@given(case=strided_case(steps=(1, 2, 3, -1)))
def test_cowarray_to_torch_and_back_keeps_values_and_never_aliases(case: Any) -> None:
    model, slices, order = case
    expected = model[slices].transpose(order).copy()
    x = ca.permute_dims(ca.asarray(model)[slices], order)

    t = to_torch(x)
    np.testing.assert_array_equal(t.numpy(), expected)
    y = from_torch(t)
    np.testing.assert_array_equal(np.asarray(y), expected)
    assert not ca.shares_buffer(x, y)

    # Two cowarray arrays never alias: a write to either leaves the other as it was.
    y[...] = ca.zeros_like(y)
    np.testing.assert_array_equal(np.asarray(x), expected)
    x[...] = ca.ones_like(x)
    np.testing.assert_array_equal(np.asarray(y), np.zeros_like(expected))
    del t
    assert ca.cow_info(x).state != "exposed"


@settings(max_examples=60, deadline=None)
@given(case=strided_case(steps=(1, 2, 3)))
def test_torch_to_cowarray_and_back_keeps_values_and_aliases_the_source(case: Any) -> None:
    model, slices, order = case
    expected = model[slices].transpose(order).copy()
    source = torch.from_numpy(model.copy())[slices].permute(order)

    y = from_torch(source)
    np.testing.assert_array_equal(np.asarray(y), expected)
    back = to_torch(y)
    np.testing.assert_array_equal(back.numpy(), expected)

    if expected.size:
        source.fill_(1)  # y aliases its producer
        np.testing.assert_array_equal(np.asarray(y), np.ones_like(expected))
