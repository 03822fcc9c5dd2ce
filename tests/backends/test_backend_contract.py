"""The backend contract (cowarray/_backends/base.py), checked for every backend.

Every backend's ``xp`` has every standard name the op layer calls; every
backend class has every member of the Protocol; the device kinds come from
the one registry in cowarray/_backends/__init__.py.
"""

from __future__ import annotations

import ast
import re
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import cowarray as ca
from cowarray import _backends
from cowarray._backends import _common
from cowarray._backends.base import Backend, missing_standard_names
from cowarray.testing import available_devices

ROOT = Path(__file__).parents[2]
PROTOCOL_MEMBERS = sorted(
    {name for name in vars(Backend) if not name.startswith("_")} | set(Backend.__annotations__)
)


@pytest.fixture(params=[*(str(d) for d in available_devices()), "stand-in cuda:0"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The backend of each available device, and the CuPy backend on the stand-in."""
    if request.param != "stand-in cuda:0":
        return ca.Device(request.param).backend
    from _stand_in import load_backend_module

    return load_backend_module(monkeypatch).CupyBackend(0)


def test_every_backend_has_every_standard_name(backend: Any) -> None:
    assert missing_standard_names(backend.xp) == []


def test_every_backend_has_every_member_of_the_protocol(backend: Any) -> None:
    assert [name for name in PROTOCOL_MEMBERS if not hasattr(backend, name)] == []


def test_a_namespace_without_a_name_is_reported() -> None:
    xp = types.SimpleNamespace(linalg=types.SimpleNamespace(), fft=None)
    missing = missing_standard_names(xp)
    assert "abs" in missing and "linalg.solve" in missing and "fft.rfft" in missing


# -- the registry of device kinds ---------------------------------------------------


def test_a_registered_kind_makes_devices_with_its_backend(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    loaded: list[int] = []

    def load(index: int) -> Any:
        loaded.append(index)
        return ca.Device("cpu").backend

    def missing(index: int) -> str | None:
        return None if index < 2 else f"there is no device 'toy:{index}'"

    kind = _backends.DeviceKind("toy", "'toy:N'", missing, load, lambda: (0, 1))
    monkeypatch.setitem(_backends.KINDS, "toy", kind)
    monkeypatch.setattr(ca.Device, "_interned", dict(ca.Device._interned))
    device = ca.Device("toy:1")
    assert (device.kind, device.index, str(device)) == ("toy", 1, "toy:1")
    assert device.backend is ca.Device("cpu").backend and loaded == [1]
    assert ca.Device("toy", 1) is device and loaded == [1]  # interned: loaded once
    assert ca.Device("toy:1") in ca.__array_namespace_info__().devices()
    with pytest.raises(ValueError, match="there is no device 'toy:2'"):
        ca.Device("toy:2")
    expected = "expected 'cpu', 'cpu:1', 'cuda:N', 'jax' (traced values, inside "
    with pytest.raises(ValueError, match=re.escape(expected)):
        ca.Device("tpu")


def test_unknown_kinds_and_missing_indices_say_what_exists() -> None:
    with pytest.raises(ValueError, match=r"unknown device kind 'gpu'; expected 'cpu', 'cpu:1'"):
        ca.Device("gpu")
    with pytest.raises(ValueError, match="there is no device 'cpu:2'"):
        ca.Device("cpu:2")


def _run_time_imports(path: Path) -> list[str]:
    """The modules ``path`` imports outside ``if TYPE_CHECKING:``, with the
    ones imported inside functions marked ``(in a function)``."""
    tree = ast.parse(path.read_text())
    found: list[str] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            return
        if isinstance(node, ast.ImportFrom):
            names = [f"{node.module or ''}.{alias.name}" for alias in node.names]
            found.extend(f"{n} (in a function)" if in_function else n for n in names)
        inside = in_function or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        for child in ast.iter_child_nodes(node):
            visit(child, inside)

    visit(tree, False)
    return found


def test_devices_import_the_registry_and_the_registry_never_imports_devices() -> None:
    registry = _run_time_imports(ROOT / "cowarray" / "_backends" / "__init__.py")
    devices = _run_time_imports(ROOT / "cowarray" / "_devices.py")
    assert [name for name in registry if "_devices" in name] == []
    assert "._backends" in devices  # ``from . import _backends``, at the top
    assert [name for name in devices if "(in a function)" in name] == []


# -- the fixes written once (cowarray/_backends/_common.py) -------------------------


def test_tanh_takes_the_sign_of_the_imaginary_part_at_infinity() -> None:
    x = np.array([complex(np.inf, 2.0), complex(-np.inf, -2.0), 0.5 + 0.5j])
    with np.errstate(all="ignore"):
        result = _common.tanh_special_values(np, x, np.tanh(x))
    assert np.signbit(result.imag).tolist() == [False, True, False]
    assert result[:2].real.tolist() == [1.0, -1.0]


def test_expm1_has_the_special_values_of_exp_minus_one() -> None:
    x = np.array([complex(np.inf, 0.0), complex(-0.0, 0.0), 1e-10 + 0j])
    with np.errstate(all="ignore"):
        result = _common.expm1_special_values(np, x, np.expm1(x))
    assert result[0] == complex(np.inf, 0.0)
    assert not np.signbit(result[1].real)
    assert result[2] == np.expm1(x[2])


def test_floor_divide_gives_the_true_quotient_where_one_operand_is_infinite() -> None:
    x1 = np.array([np.inf, 1.0, 7.0, np.inf])
    x2 = np.array([2.0, -np.inf, 2.0, np.inf])
    with np.errstate(all="ignore"):
        result = _common.floor_divide(np, x1, x2, x1, np.floor_divide)
    assert result is x1  # out= written last, after reading x1
    assert result[:3].tolist() == [np.inf, -0.0, 3.0] and np.signbit(result[1])
    assert np.isnan(result[3])


def test_plain_asarray_makes_a_library_scalar_a_new_writable_0d_array(backend: Any) -> None:
    # x[i]'s element and every 0-d result: new memory of the backend, which
    # the core gives fast writes at once, so it must be writable and owned.
    data = backend.asarray(np.arange(3.0))
    scalar = data[1]
    made = backend.plain_asarray(scalar)
    assert type(made) is backend.array_type and made.shape == ()
    assert made.dtype == data.dtype and float(backend.to_numpy(made)) == 1.0
    assert not backend.may_share_memory(made, data)
    assert not backend.must_copy_before_write(made)
    as_before = backend.asarray(scalar)
    assert type(as_before) is type(made) and as_before.dtype == made.dtype


def test_reshape_view_views_when_it_can_and_copies_otherwise(backend: Any) -> None:
    data = backend.asarray(np.arange(6.0))
    view = backend.reshape_view(data, (2, 3))
    assert view.shape == (2, 3) and backend.may_share_memory(view, data)
    transposed = backend.xp.permute_dims(view, (1, 0))
    flat = backend.reshape_view(transposed, (-1,))
    assert not backend.may_share_memory(flat, data)
    np.testing.assert_array_equal(backend.to_numpy(flat), [0.0, 3.0, 1.0, 4.0, 2.0, 5.0])
