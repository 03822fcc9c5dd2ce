"""``__array_namespace_info__()`` and the standard's constants."""

from __future__ import annotations

import math

import numpy as np
import pytest

import cowarray as ca
from cowarray.testing import to_numpy

INFO = ca.__array_namespace_info__()

KINDS = {
    "bool": ["bool"],
    "signed integer": ["int8", "int16", "int32", "int64"],
    "unsigned integer": ["uint8", "uint16", "uint32", "uint64"],
    "integral": ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"],
    "real floating": ["float32", "float64"],
    "complex floating": ["complex64", "complex128"],
}
KINDS["numeric"] = KINDS["integral"] + KINDS["real floating"] + KINDS["complex floating"]


def test_capabilities_report_boolean_indexing_data_dependent_shapes_and_max_dimensions() -> None:
    capabilities = INFO.capabilities()
    assert capabilities == {
        "boolean indexing": True,
        "data-dependent shapes": True,
        "max dimensions": 64,
    }
    deepest = ca.zeros((1,) * capabilities["max dimensions"])
    assert deepest.ndim == 64


def test_capabilities_are_true_in_practice() -> None:
    x = ca.asarray([1.0, -2.0, 3.0])
    assert to_numpy(x[x > 0]).tolist() == [1.0, 3.0]


def test_default_device_is_cpu_and_arrays_land_there() -> None:
    assert INFO.default_device() is ca.Device("cpu")
    assert ca.zeros(2).device is INFO.default_device()


def test_devices_is_a_fresh_list_including_the_simulated_second_device() -> None:
    devices = INFO.devices()
    assert type(devices) is list
    assert devices[:2] == [ca.Device("cpu"), ca.Device("cpu:1")]
    devices.append(None)  # SciPy's conftest does devices() + [None]
    assert None not in INFO.devices()
    for device in INFO.devices():
        x = ca.ones(3, device=device)
        assert x.device is device


@pytest.mark.parametrize("device", [None, "cpu", "cpu:1", ca.Device("cpu:1")])
def test_default_dtypes_are_the_same_on_every_device(device: object) -> None:
    defaults = INFO.default_dtypes(device=device)  # type: ignore[arg-type]
    assert defaults == {
        "real floating": ca.float64,
        "complex floating": ca.complex128,
        "integral": ca.int64,
        "indexing": ca.int64,
    }
    assert ca.asarray(1.0).dtype == defaults["real floating"]
    assert ca.asarray(1j).dtype == defaults["complex floating"]
    assert ca.asarray(1).dtype == defaults["integral"]


def test_dtypes_lists_the_standard_dtypes_by_canonical_name() -> None:
    dtypes = INFO.dtypes()
    assert list(dtypes) == ["bool", *KINDS["numeric"]]
    for name, dtype in dtypes.items():
        assert dtype == getattr(ca, name)
    assert "float16" not in dtypes


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("device", [None, "cpu:1"])
def test_dtypes_of_one_kind(kind: str, device: str | None) -> None:
    dtypes = INFO.dtypes(kind=kind, device=device)
    assert sorted(dtypes) == sorted(KINDS[kind])
    for dtype in dtypes.values():
        assert ca.zeros(1, dtype=dtype, device=device).dtype == dtype


def test_dtypes_of_a_tuple_of_kinds_is_their_union() -> None:
    dtypes = INFO.dtypes(kind=("bool", "real floating"))
    assert sorted(dtypes) == ["bool", "float32", "float64"]
    assert INFO.dtypes(kind=()) == {}


def test_unknown_kind_or_device_raises() -> None:
    with pytest.raises(ValueError, match="kind='floating'"):
        INFO.dtypes(kind="floating")
    with pytest.raises(TypeError, match="kind must be a string"):
        INFO.dtypes(kind=(1,))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="cpu:7"):
        INFO.default_dtypes(device="cpu:7")
    with pytest.raises(TypeError, match="device"):
        INFO.dtypes(device=3)  # type: ignore[arg-type]


def test_constants_are_python_floats_and_newaxis_is_none() -> None:
    assert type(ca.e) is float and ca.e == math.e
    assert type(ca.pi) is float and ca.pi == math.pi
    assert type(ca.inf) is float and ca.inf == math.inf
    assert type(ca.nan) is float and math.isnan(ca.nan)
    assert ca.newaxis is None
    x = ca.arange(3)
    assert x[:, ca.newaxis].shape == (3, 1)
    np.testing.assert_array_equal(to_numpy(ca.asarray(ca.inf)), np.inf)


def test_the_namespace_has_the_extensions_as_modules() -> None:
    x = ca.ones(2)
    namespace = x.__array_namespace__()
    assert namespace is ca
    assert namespace.linalg is ca.linalg
    assert namespace.fft is ca.fft
    assert namespace.__array_api_version__ == "2025.12"
