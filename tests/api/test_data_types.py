"""Data type functions: can_cast, finfo, iinfo, isdtype, result_type."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import cowarray as ca
from cowarray._dtypes import STANDARD_DTYPES

SAFE_PAIRS = {
    ("int8", "int16"), ("uint8", "int16"), ("uint8", "uint16"), ("float32", "float64"),
    ("float32", "complex64"), ("float64", "complex128"), ("complex64", "complex128"),
}  # fmt: skip


def _lattice_allows(a: np.dtype, b: np.dtype) -> bool:
    # The standard's promotion lattice, written out independently of cowarray.
    if a == b:
        return True
    width_a, width_b = a.itemsize, b.itemsize
    kinds = a.kind + b.kind
    if kinds in ("ii", "uu", "ff", "cc"):
        return width_a <= width_b
    if kinds == "ui":
        return width_a < width_b
    if kinds == "fc":
        return 2 * width_a <= width_b
    return False


def test_can_cast_follows_the_promotion_lattice() -> None:
    # Within a kind, the standard's lattice; across kinds (and uint64 with a
    # signed integer) NumPy 2's, as promotion is (design rule 11).
    for a, b in itertools.product(STANDARD_DTYPES, repeat=2):
        same_kind = a.kind == b.kind or a.kind + b.kind in ("ui", "iu")
        expected = _lattice_allows(a, b) if same_kind else bool(np.can_cast(a, b))
        assert ca.can_cast(a, b) is expected, (a, b)
    for a, b in SAFE_PAIRS:
        assert ca.can_cast(np.dtype(a), np.dtype(b))
    assert ca.can_cast(ca.int64, ca.float64) and ca.can_cast(ca.bool, ca.int8)
    assert not ca.can_cast(ca.int64, ca.float32)
    assert not ca.can_cast(ca.int64, ca.uint64)
    assert not ca.can_cast(ca.float64, ca.int64)


def test_can_cast_takes_an_array_and_refuses_non_dtypes(backend_device: ca.Device) -> None:
    assert ca.can_cast(ca.asarray([1], dtype=ca.int8, device=backend_device), ca.int32)
    # every dtype= spelling is a dtype here too (cowarray._errors: one to_dtype)
    assert ca.can_cast(ca.int8, "int32") and ca.can_cast(ca.int8, int)
    with pytest.raises(TypeError, match="to"):
        ca.can_cast(ca.int8, [1])
    with pytest.raises(TypeError, match="from_"):
        ca.can_cast([1], ca.int8)


@pytest.mark.parametrize(
    ("dtype", "component"),
    [(ca.float32, "float32"), (ca.float64, "float64"), (ca.complex64, "float32"),
     (ca.complex128, "float64")],
)  # fmt: skip
def test_finfo_returns_python_floats(
    dtype: np.dtype, component: str, backend_device: ca.Device
) -> None:
    info = ca.finfo(dtype)
    reference = np.finfo(component)
    assert info.dtype == np.dtype(component)
    assert info.bits == reference.bits
    for field in ("eps", "max", "min", "smallest_normal"):
        value = getattr(info, field)
        assert type(value) is float
        assert value == float(getattr(reference, field))
    assert ca.finfo(ca.ones(2, dtype=dtype, device=backend_device)) == info


@pytest.mark.parametrize("dtype", [d for d in STANDARD_DTYPES if d.kind in "iu"])
def test_iinfo_returns_python_ints(dtype: np.dtype, backend_device: ca.Device) -> None:
    info = ca.iinfo(dtype)
    reference = np.iinfo(dtype)
    assert (info.bits, info.min, info.max, info.dtype) == (
        reference.bits, reference.min, reference.max, dtype
    )  # fmt: skip
    assert type(info.min) is int and type(info.max) is int
    assert ca.iinfo(ca.zeros(1, dtype=dtype, device=backend_device)) == info


def test_finfo_iinfo_refuse_the_wrong_kind() -> None:
    with pytest.raises(ValueError, match="floating"):
        ca.finfo(ca.int32)
    with pytest.raises(ValueError, match="integer"):
        ca.iinfo(ca.float32)
    assert ca.iinfo(int).bits == 64  # int is int64, as in every dtype= argument
    with pytest.raises(TypeError, match="type"):
        ca.iinfo(3)


KINDS = {
    "bool": "b", "signed integer": "i", "unsigned integer": "u", "integral": "iu",
    "real floating": "f", "complex floating": "c", "numeric": "iufc",
}  # fmt: skip


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_isdtype_kind_names(kind: str) -> None:
    for dtype in STANDARD_DTYPES:
        assert ca.isdtype(dtype, kind) is (dtype.kind in KINDS[kind]), (dtype, kind)


def test_isdtype_with_dtypes_and_tuples() -> None:
    assert ca.isdtype(ca.int8, ca.int8)
    assert not ca.isdtype(ca.int8, ca.int16)
    assert ca.isdtype(ca.float32, ("bool", ca.float32))
    assert ca.isdtype(ca.uint8, ("bool", "integral"))
    assert not ca.isdtype(ca.complex64, ("real floating", ca.float64))
    assert ca.isdtype(ca.float16, "real floating")


def test_isdtype_refuses_bad_kinds() -> None:
    with pytest.raises(ValueError, match="kind"):
        ca.isdtype(ca.int8, "integer")
    with pytest.raises(TypeError, match="kind"):
        ca.isdtype(ca.int8, 3)
    assert ca.isdtype("int8", "integral")  # a dtype's name is the dtype everywhere
    with pytest.raises(TypeError, match="dtype"):
        ca.isdtype(3, "integral")


def test_result_type_mixes_arrays_dtypes_and_weak_scalars(backend_device: ca.Device) -> None:
    float32 = ca.asarray([1], dtype=ca.float32, device=backend_device)
    uint8 = ca.asarray([1], dtype=ca.uint8, device=backend_device)
    assert ca.result_type(ca.int8, ca.uint8) == ca.int16
    assert ca.result_type(float32, ca.complex64) == ca.complex64
    assert ca.result_type(ca.float32, 1, 2.5) == ca.float32
    assert ca.result_type(ca.complex64, 1j) == ca.complex64
    assert ca.result_type(ca.bool, True) == ca.bool
    assert ca.result_type(uint8) == ca.uint8


def test_result_type_promotes_across_kinds_as_numpy() -> None:
    # design rule 11: NumPy 2's result across kinds, Python scalars weak (NEP 50)
    assert ca.result_type(ca.int64, ca.float32) == ca.float64
    assert ca.result_type(ca.int8, 1.0) == ca.float64
    assert ca.result_type(ca.uint64, ca.int64) == ca.float64
    assert ca.result_type(ca.bool, 1) == ca.int64
    with pytest.raises(ValueError, match="at least one"):
        ca.result_type(1, 2.0)
    assert ca.result_type(ca.int8, "int16") == ca.int16
    with pytest.raises(TypeError, match="argument"):
        ca.result_type(ca.int8, [1])
