"""The two doors of the write path (cowarray._core.write): the shape of one
``x[1:-1] += d``, and the copy the backend makes ahead for a shared ``x``.

The shape is read as tools/write_path_walk.py reads it: every Python
function of cowarray the statement calls, in order, with ``sys.monitoring``
(CPython 3.12+; a profile function would turn the write-back proof off, as
for a debugger). Above the core, only the Array's operator runs (its dtype
checks); from the first door on, nothing calls back up into the layers
above the core.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import sysconfig
from typing import Any

import numpy as np
import pytest

import cowarray as ca
from cowarray._core import cow

_PACKAGE = os.path.dirname(os.path.abspath(ca.__file__))
FREE_THREADED = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))

#: Files a write may call once it has entered the core's doors: the core,
#: the interpreter's reading and the backends (nothing above them).
_BELOW_THE_DOORS = ("_core/", "_interpreter.py", "_backends/")


_WALK = """
import json, os, sys
import cowarray as ca

PACKAGE = os.path.dirname(os.path.abspath(ca.__file__))
monitoring = sys.monitoring
tool = monitoring.PROFILER_ID
files = []

def started(code, offset):
    if code.co_filename.startswith(PACKAGE + os.sep):
        files.append(os.path.relpath(code.co_filename, PACKAGE).replace(os.sep, "/"))

def begin():
    monitoring.use_tool_id(tool, "test_write_doors")
    monitoring.register_callback(tool, monitoring.events.PY_START, started)
    monitoring.set_events(tool, monitoring.events.PY_START)

def end():
    monitoring.set_events(tool, 0)
    monitoring.register_callback(tool, monitoring.events.PY_START, None)
    monitoring.free_tool_id(tool)

def program(begin, end):
    SETUP
    for step in range(3):
        EACH_STEP
        if step == 2:
            begin()
        x[1:-1] += d
        if step == 2:
            end()
    return x

program(begin, end)
print(json.dumps(files))
"""


def _walked(setup: str, each_step: str) -> list[str]:
    """The files of the calls the last of three ``x[1:-1] += d`` makes, in a
    function whose locals are the only holders (a user's loop). In a fresh
    interpreter: the suite's earlier tests leave switches on that a user's
    program would not have (page copy-on-write, once on, makes every write
    ask whether a buffer is page-mapped)."""
    source = _WALK.replace("SETUP", setup).replace("EACH_STEP", each_step or "pass")
    environment = {
        key: value for key, value in os.environ.items() if not key.startswith("COWARRAY_")
    }
    environment["PYTHONPATH"] = os.pathsep.join(
        [os.path.dirname(_PACKAGE), environment.get("PYTHONPATH", "")]
    )
    done = subprocess.run(
        [sys.executable, "-c", source],
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    files: list[str] = json.loads(done.stdout.splitlines()[-1])
    return files


def _changes(files: list[str]) -> int:
    return sum(1 for before, now in itertools.pairwise(files) if before != now)


@pytest.mark.skipif(sys.version_info < (3, 12), reason="sys.monitoring is new in 3.12")
@pytest.mark.skipif(sys.gettrace() is not None, reason="a tracer (coverage) turns the proof off")
@pytest.mark.parametrize(
    ("setup", "each_step"),
    [
        pytest.param("x = ca.zeros(100); d = ca.ones(98)", "", id="sole holder"),
        pytest.param("source = ca.zeros(100); d = ca.ones(98)", "x = source.copy()", id="shared x"),
    ],
)
def test_x_slice_plus_equals_d_changes_file_at_most_six_times(setup: str, each_step: str) -> None:
    files = _walked(setup, each_step)
    # (the view, the operator's checks, then the doors: the write-back proof
    # read on the statement, the backend's answers, the decision, the store)
    walk = [name for i, name in enumerate(files) if i == 0 or files[i - 1] != name]
    if FREE_THREADED and walk[:3] == ["_core/values.py", "_core/cow.py", "_core/values.py"]:
        # (without a GIL a view joins its record under the record's lock, in
        # cow: no lock-free join there, docs/design.md rule 7)
        files = files[files.index("_core/cow.py") :]
        files = files[files.index("_core/values.py") :]
        walk = walk[2:]
    assert walk[:2] == ["_core/values.py", "_operators.py"], walk
    assert "_core/write.py" in files and "_core/cow.py" in files, files
    assert _changes(files) <= 6, " -> ".join(walk)
    inside = files[files.index("_core/write.py") :]
    assert all(name.startswith(_BELOW_THE_DOORS) for name in inside), inside


def test_a_copy_made_ahead_of_memory_the_statement_no_longer_holds_is_dropped(
    backend_patch: Any,
) -> None:
    # ``u = x.copy(); u[1:-1] += d``: the backend copies u's shared memory
    # ahead of the decision. Code run between (here: a hook inside that
    # call, as a gc callback could be) writes u, which gives u new memory:
    # the copy made ahead holds u's old values and must not become u's.
    backend = ca.asarray(0.0).device.backend
    real = backend.in_place_facts
    made_ahead: list[object] = []
    hook: list[Any] = []

    def facts(name: str, data: Any, copy_of: Any = None) -> Any:
        answer = real(name, data, copy_of)
        made_ahead.append(answer[2])
        if hook:
            hook.pop()()
        return answer

    backend_patch.setattr(type(backend), "in_place_facts", lambda self, *a: facts(*a))
    x = ca.asarray(np.arange(10.0))
    u = x.copy()
    d = ca.asarray(np.full(8, 0.5))

    def write_u_first() -> None:
        u[0] = 99.0  # u is shared: it copies, and holds new memory from now on

    hook.append(write_u_first)
    namespace: dict[str, Any] = {}
    exec("def statement(u, d):\n    u[1:-1] += d\n", namespace)
    namespace["statement"](u, d)
    model = np.arange(10.0)
    model[0] = 99.0
    model[1:-1] += 0.5
    np.testing.assert_array_equal(np.asarray(u), model)
    np.testing.assert_array_equal(np.asarray(x), np.arange(10.0))  # the other holder
    if sys.gettrace() is None and sys.getprofile() is None:
        assert made_ahead and made_ahead[0] is not None  # (the copy was made ahead)


def test_a_copy_made_ahead_goes_to_the_shared_array_and_its_view(copies: Any) -> None:
    x = ca.asarray(np.arange(12.0))
    namespace: dict[str, Any] = {}
    exec("def statement(u, d):\n    u[2:-2] += d\n    return u\n", namespace)
    u, d = x.copy(), ca.asarray(np.ones(8))
    copies.reset()
    u = namespace["statement"](u, d)
    model = np.arange(12.0)
    model[2:-2] += 1.0
    np.testing.assert_array_equal(np.asarray(u), model)
    np.testing.assert_array_equal(np.asarray(x), np.arange(12.0))
    assert copies.snapshot() == (1, model.nbytes)  # one copy of u, as NumPy's x.copy()
    assert cow.state_of(u) != "shared" or not ca.shares_buffer(u, x)


def test_the_move_onto_one_copy_never_takes_a_copy_made_of_other_memory() -> None:
    # The decision's own guard, driven directly: a copy made ahead of memory
    # that the two no longer hold (here: of other values) is dropped, and the
    # move copies what they hold now.
    x = ca.asarray(np.arange(10.0))
    u = x.copy()
    view = u[1:-1]
    stale = np.full(10, -1.0)
    made = (stale, view._data, stale.copy(), stale[1:-1])
    left = cow._move_together(view, u, made)
    assert left is not None  # (they moved: onto a copy of what u holds)
    assert ca.shares_buffer(u, view) and not ca.shares_buffer(u, x)
    np.testing.assert_array_equal(u.to_numpy(), np.arange(10.0))
    np.testing.assert_array_equal(view.to_numpy(), np.arange(1.0, 9.0))
