"""The NumPy backend's ``sum`` and ``prod`` are their ufuncs' ``reduce``
(``np.sum``'s dispatch layers cost half of a sum of 10^3 elements): they must
give what ``np.sum`` and ``np.prod`` give, value, dtype, shape and errors."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

from cowarray._backends.numpy import NUMPY_BACKEND

DTYPES = ["bool", "int8", "uint8", "int16", "int32", "uint32", "int64", "uint64"]
DTYPES += ["float16", "float32", "float64", "complex64", "complex128"]


def _outcome(function: Any, *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (complex cast to float: both warn alike)
        try:
            result = function(*args, **kwargs)
        except Exception as error:  # the same refusal is part of the contract
            return type(error)
    return type(result), np.asarray(result).dtype, np.shape(result), np.asarray(result).tolist()


@pytest.mark.parametrize("name", ["sum", "prod"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_the_backends_reductions_are_numpys(name: str, dtype: str) -> None:
    mine, numpys = getattr(NUMPY_BACKEND.xp, name), getattr(np, name)
    data = (np.arange(24).reshape(2, 3, 4) % 3).astype(dtype)
    for axis in [None, 0, -1, (0, 2), (), (0, 1, 2), 3]:
        for keepdims in [False, True]:
            for into in [None, np.float64, np.int64]:
                kwargs = {"axis": axis, "keepdims": keepdims, "dtype": into}
                assert _outcome(mine, data, **kwargs) == _outcome(numpys, data, **kwargs)
    empty = np.zeros((0, 3), dtype=dtype)
    assert _outcome(mine, empty) == _outcome(numpys, empty)
    assert _outcome(mine, empty, axis=0) == _outcome(numpys, empty, axis=0)
    assert _outcome(mine, data, initial=5) == _outcome(numpys, data, initial=5)
