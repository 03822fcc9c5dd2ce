"""np.asarray(x) cannot be turned into a writable alias (docs/design.md rule 4).

Attacks: everything reachable from the export (its ``.base``, that object's
attributes and its ``__array_interface__``), NumPy's own flag setting, and
views derived from it.
"""

from __future__ import annotations

import contextlib
import gc

import numpy as np
import pytest

import cowarray as ca


def _writable_arrays_reachable_from(view: np.ndarray) -> list[np.ndarray]:
    """Every ndarray reachable from ``view`` that NumPy lets one write."""
    found: list[np.ndarray] = []
    seen: set[int] = set()
    todo: list[object] = [view]
    while todo:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, (type, type(gc))):
            continue
        seen.add(id(obj))
        if isinstance(obj, np.ndarray) and obj.flags.writeable:
            found.append(obj)
        todo.extend(gc.get_referents(obj))
        for name in ("base", "_data", "_keepalive", "__array_interface__"):
            with contextlib.suppress(AttributeError, TypeError, ValueError):
                todo.append(getattr(obj, name))
        interface = getattr(obj, "__array_interface__", None)
        if isinstance(interface, dict):
            try:
                rebuilt = np.asarray(obj)
            except Exception:
                continue
            if rebuilt.flags.writeable:
                found.append(rebuilt)
    return found


def test_nothing_reachable_from_the_export_is_writable() -> None:
    x = ca.zeros(5)
    view = np.asarray(x)
    assert not view.flags.writeable
    assert _writable_arrays_reachable_from(view) == []
    assert _writable_arrays_reachable_from(view[1:]) == []


def test_rewriting_the_base_interface_gives_no_writable_alias() -> None:
    x = ca.zeros(5)
    clone = ca.lazy_clone(x)
    view = np.asarray(x)
    base = view.base
    interface = getattr(base, "__array_interface__", None)
    if isinstance(interface, dict):
        try:
            interface["data"] = (interface["data"][0], False)
        except TypeError:
            pass  # an immutable mapping: the attack fails here
        else:
            rebuilt = np.asarray(base)
            with pytest.raises(ValueError, match="read-only"):
                rebuilt[0] = 1.0
    assert np.asarray(clone).tolist() == [0.0] * 5


def test_the_flag_cannot_be_set_back() -> None:
    view = np.asarray(ca.zeros(3))
    with pytest.raises(ValueError):
        view.flags.writeable = True
    with pytest.raises(ValueError):
        view[1:].flags.writeable = True
