"""cowarray.interop.torch: to_torch / from_torch, every shared dtype, chains of round trips."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import numpy as np
import pytest

import cowarray as ca

torch = pytest.importorskip("torch")
from _shared_dtypes import SHARED_DTYPES  # noqa: E402

from cowarray.interop.torch import from_torch, to_torch  # noqa: E402


def _values(x: ca.Array) -> Any:
    return np.asarray(x, copy=True)


def _sample(dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    values = np.arange(int(np.prod(shape)) or 0).reshape(shape) % 7
    return values.astype(dtype)


def test_import_cowarray_does_not_import_torch() -> None:
    code = "import sys, cowarray, cowarray.interop; print('torch' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"


@pytest.mark.parametrize("dtype", SHARED_DTYPES)
def test_every_shared_dtype_crosses_both_ways_with_its_values(dtype: str) -> None:
    model = _sample(dtype, (2, 3))
    x = ca.asarray(model)
    t = to_torch(x)
    assert t.dtype == getattr(torch, dtype)
    np.testing.assert_array_equal(t.numpy(), model)
    y = from_torch(torch.from_numpy(model.copy()))
    assert y.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(_values(y), model)


def test_bfloat16_is_refused_with_a_type_error_naming_it() -> None:
    # NumPy has no bfloat16, so cowarray cannot hold one; nothing is imported.
    with pytest.raises(TypeError, match="bfloat16"):
        from_torch(torch.zeros(2, dtype=torch.bfloat16))


@pytest.mark.parametrize("shape", [(), (0,), (2, 0, 3), (1, 1)], ids=str)
def test_zero_dimensional_and_empty_arrays_cross_both_ways(shape: tuple[int, ...]) -> None:
    x = ca.ones(shape, dtype=ca.int32)
    t = to_torch(x)
    assert tuple(t.shape) == shape
    y = from_torch(t)
    assert y.shape == shape
    np.testing.assert_array_equal(_values(y), np.ones(shape, dtype=np.int32))


def test_strided_arrays_cross_both_ways() -> None:
    model = np.arange(24.0).reshape(4, 6)
    x = ca.asarray(model)[::2, 1::2].T
    t = to_torch(x)
    np.testing.assert_array_equal(t.numpy(), model[::2, 1::2].T)
    source = torch.arange(24.0).reshape(4, 6)[1::2, ::3].t()
    y = from_torch(source)
    np.testing.assert_array_equal(_values(y), source.numpy())
    source[0, 0] = -1.0  # y aliases the strided tensor
    assert float(ca.asarray(y)[0, 0]) == -1.0


def test_to_torch_aliases_and_from_torch_aliases() -> None:
    x = ca.asarray([1.0, 2.0])
    t = to_torch(x)
    t[0] = 5.0
    assert float(ca.asarray(x)[0]) == 5.0
    s = torch.tensor([1.0, 2.0])
    y = from_torch(s)
    y[1] = 6.0
    assert float(s[1]) == 6.0


def test_copy_true_gives_independent_values_both_ways() -> None:
    x = ca.asarray([1, 2])
    t = to_torch(x, copy=True)
    t[0] = 100
    s = torch.tensor([1, 2])
    y = from_torch(s, copy=True)
    s[0] = 100
    np.testing.assert_array_equal(_values(x), [1, 2])
    np.testing.assert_array_equal(_values(y), [1, 2])


def test_copy_false_refuses_a_shared_array() -> None:
    x = ca.asarray([1, 2])
    clone = ca.lazy_clone(x)
    with pytest.raises(BufferError, match="other holder"):
        to_torch(x, copy=False)
    assert ca.shares_buffer(x, clone)


def test_exposure_ends_when_the_tensor_from_to_torch_is_collected() -> None:
    x = ca.arange(4)
    t = to_torch(x)
    assert ca.cow_info(x).state == "exposed"
    del t
    assert ca.cow_info(x).state == "private"


def test_chain_cowarray_torch_cowarray_keeps_every_earlier_clone_intact() -> None:
    x = ca.arange(5.0)
    before_export = ca.lazy_clone(x)
    t = to_torch(x)
    while_exposed = ca.lazy_clone(x)
    y = from_torch(t)
    t2 = to_torch(y)
    z = from_torch(t2)
    y_clone = ca.lazy_clone(y)

    t[0] = 100.0  # writes x only
    y[1] = 200.0  # writes y and t2 only
    t2[2] = 300.0
    z[3] = 400.0  # z is its own value

    np.testing.assert_array_equal(_values(before_export), [0, 1, 2, 3, 4])
    np.testing.assert_array_equal(_values(while_exposed), [0, 1, 2, 3, 4])
    np.testing.assert_array_equal(_values(x), [100, 1, 2, 3, 4])
    np.testing.assert_array_equal(_values(y), [0, 200, 300, 3, 4])
    np.testing.assert_array_equal(t2.numpy(), [0, 200, 300, 3, 4])
    np.testing.assert_array_equal(_values(z), [0, 1, 2, 400, 4])
    np.testing.assert_array_equal(_values(y_clone), [0, 1, 2, 3, 4])
    for a, b in [(x, y), (x, z), (y, z), (x, before_export), (y, y_clone)]:
        assert not ca.shares_buffer(a, b)


def test_a_lazy_clone_tensor_imports_its_values() -> None:
    t = torch.arange(4)
    lazy = torch._lazy_clone(t)
    y = from_torch(lazy)
    t[0] = 100
    np.testing.assert_array_equal(_values(y), [0, 1, 2, 3])


def test_conjugate_view_is_resolved_on_import() -> None:
    t = torch.tensor([1 + 2j, 3 - 1j], dtype=torch.complex64)
    y = from_torch(t.conj())
    np.testing.assert_array_equal(_values(y), [1 - 2j, 3 + 1j])
    with pytest.raises(BufferError, match="conjugate"):
        from_torch(t.conj(), copy=False)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: to_torch(np.zeros(2)), TypeError, "cowarray Array"),
        (lambda: to_torch(ca.zeros(2), copy="no"), TypeError, "copy"),
        (lambda: from_torch(np.zeros(2)), TypeError, "torch.Tensor"),
        (lambda: from_torch(torch.zeros(2), copy=0), TypeError, "copy"),
        (lambda: from_torch(torch.zeros(2, requires_grad=True)), BufferError, "detach"),
    ],
    ids=["to_torch numpy", "to_torch copy", "from_torch numpy", "from_torch copy", "grad"],
)
def test_bad_input_raises_clear_errors(call: Any, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        call()
