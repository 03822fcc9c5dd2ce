"""A NumPy view write is never silent, whatever index its write-back uses
(issue 46, row 9; docs/design.md rule 1: a write that NumPy would also have
made in another array either does what NumPy does or warns).

``v = x[0]; v += 10.0; x[1] = v`` changes rows 0 and 1 in NumPy (``v`` is a
view of row 0) and only row 1 under cowarray (``v`` is a value). The
in-place write to ``v`` is held back until the store that follows, which
may drop it only if the store makes the result NumPy's: a store into the
very elements ``v`` views (``x[0] = v``). A store into other elements of the
family leaves ``x[0]`` as NumPy would not, and must warn.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import cowarray as ca


def _run(code: str, scope: str, x: Any) -> list[warnings.WarningMessage]:
    """``code`` (statements separated by ';') on ``x``, in a function or at
    module level; the ViewWriteWarnings it gave."""
    lines = [line.strip() for line in code.split(";")]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if scope == "function":
            namespace: dict[str, Any] = {}
            body = "".join(f"    {line}\n" for line in lines)
            exec(compile(f"def run(x):\n{body}", "<user code>", "exec"), namespace)
            namespace["run"](x)
        else:
            exec(compile("\n".join(lines) + "\n", "<user module>", "exec"), {"x": x})
    return [w for w in caught if issubclass(w.category, ca.ViewWriteWarning)]


def _eager_model(code: str, x: np.ndarray) -> None:
    """``code`` on NumPy with every derived array an eager copy."""
    lines = [line.strip() for line in code.split(";")]
    first = lines[0]
    name, _, taken = first.partition(" = ")
    exec("\n".join([f"{name} = ({taken}).copy()", *lines[1:]]) + "\n", {"x": x})


_ELSEWHERE = [
    "v = x[0]; v += 10.0; x[1] = v",
    "v = x[:, 0]; v += 10.0; x[:, 1] = v",
    "v = x[0]; v *= 2.0; x[1:2] = v",
    "v = x[0:2]; v += 10.0; x[1:3] = v",
    "v = x[0]; v -= 1.0; x[2, :] = v",
    "v = x[1]; v += 10.0; x[0] = v",
]


@pytest.mark.parametrize("scope", ["function", "module"])
@pytest.mark.parametrize("code", _ELSEWHERE)
def test_a_view_written_in_place_and_stored_elsewhere_in_its_family_warns(
    code: str, scope: str
) -> None:
    original = np.arange(12.0).reshape(3, 4)
    x = ca.asarray(original)
    caught = _run(code, scope, x)
    model = original.copy()
    _eager_model(code, model)
    np.testing.assert_array_equal(np.asarray(x), model)  # the value semantics...
    numpy_itself = original.copy()
    exec(code.replace(";", "\n").replace("\n ", "\n"), {"x": numpy_itself})
    assert not np.array_equal(numpy_itself, model)  # ...which are not NumPy's here
    assert caught, (
        f"{code}: NumPy changes {np.argwhere(numpy_itself != model).tolist()} too, silently"
    )


_BACK_WHERE_TAKEN = [
    "v = x[0]; v += 10.0; x[0] = v",
    "v = x[:, 0]; v *= 2.0; x[:, 0] = v",
    "v = x[0]; v += 10.0; x[0, :] = v",
    "v = x[1:3]; v -= 1.0; x[1:3] = v",
]


@pytest.mark.parametrize("scope", ["function", "module"])
@pytest.mark.parametrize("code", _BACK_WHERE_TAKEN)
def test_a_view_written_in_place_and_stored_back_where_it_was_taken_does_not_warn(
    code: str, scope: str
) -> None:
    # The result is NumPy's: nothing to report (a guard for the fix of the
    # test above, which must still drop the held-back warning here).
    original = np.arange(12.0).reshape(3, 4)
    x = ca.asarray(original)
    caught = _run(code, scope, x)
    numpy_itself = original.copy()
    exec(code.replace(";", "\n").replace("\n ", "\n"), {"x": numpy_itself})
    np.testing.assert_array_equal(np.asarray(x), numpy_itself)
    assert not caught, [str(w.message) for w in caught]
