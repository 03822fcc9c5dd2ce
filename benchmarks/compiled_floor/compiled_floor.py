"""The per-operation target rows with cowarray's hot paths in C: NumPy, C, C+, C+pyrec,
cowarray and the pure-Python floor, with each ratio to NumPy beside the target.

Evidence for one design decision (a compiled Array core), not a supported
build: ``compiled_floor.c`` is a measurement prototype (its top comment says
what it skips), wired here to cowarray's real module state. Columns:

- C: the prototype reaching NumPy through the generic object protocol, with
  cowarray's Python records (``cow.Buffer``, ``_Family``);
- C+: NumPy's C API and C records (a C Buffer, a C family);
- C+pyrec: C+ with cowarray's Python records (what reading them costs);
- floor: ``floors.py``'s least pure-Python code with cowarray's API shape.

The rows and the method are ``floors.py``'s (its loops, its timing, its
callgrind count); the C columns of the ``ca.reshape`` row are the method
``x.reshape((50, 20))`` (the prototype has no module function).

Run: ``python benchmarks/compiled_floor/compiled_floor.py`` (times; a few
seconds) or with ``--count`` (callgrind instructions; about 1.5 minutes). It
builds the extension first when the ``.so`` is missing or older than the
``.c`` (``build.sh``), and checks before measuring that every C statement
takes its fast path, that the updates stay in place, and the re-check.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import subprocess
import sys
import sysconfig
from types import ModuleType
from typing import Any

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE), os.path.dirname(os.path.dirname(HERE))]
sys.dont_write_bytecode = True  # nothing written beside the sources

import floors  # noqa: E402  (benchmarks/: the floors, the loops, the counter)
from core import _fmt_time  # noqa: E402

import cowarray as ca  # noqa: E402
from cowarray import _array, _move  # noqa: E402
from cowarray._checks import CATEGORY  # noqa: E402
from cowarray._core import cow, families  # noqa: E402
from cowarray._devices import CPU  # noqa: E402
from cowarray._dtypes import ALL_DTYPES  # noqa: E402

SOURCE = os.path.join(HERE, "compiled_floor.c")
EXTENSION = os.path.join(HERE, "compiled_floor" + sysconfig.get_config_var("EXT_SUFFIX"))
NO_FAST = _array._NO_FAST_WRITE

#: floors.py's row label -> the prototype's statement per column (C, C+, C+pyrec)
C_STATEMENTS: dict[str, tuple[str, str, str | None]] = {
    "x.T  (20x50)": ("c2.T", "d2.T", "p2.T"),
    "x[1:5]  (10^3)": ("c[1:5]", "d[1:5]", "p[1:5]"),
    "ca.reshape(x, (50, 20))": (
        "c2.reshape((50, 20))",
        "d2.reshape((50, 20))",
        "p2.reshape((50, 20))",
    ),
    "x.reshape(50, 20)": ("c2.reshape(50, 20)", "d2.reshape(50, 20)", "p2.reshape(50, 20)"),
    "a + b  (10^3)": ("c + cb", "d + db", None),  # (no record is read)
    "x = ca.move(x).at[5].set(1.0)  (10^6)": (
        "cm = move(cm).at[5].set(1.0)",
        "dm = move(dm).at[5].set(1.0)",
        None,
    ),
}
COLUMNS = ("numpy", "C", "C+", "C+pyrec", "cowarray", "floor")


def _rows() -> list[tuple[str, float, dict[str, str]]]:
    """(label, target, {column: statement}) for each of floors.py's rows."""
    rows = []
    for label, numpy, ours, floor, target in floors.ROWS:
        c, direct, pyrec = C_STATEMENTS[label]
        row = {"numpy": numpy, "C": c, "C+": direct, "C+pyrec": pyrec}
        row.update(cowarray=ours, floor=floor)
        rows.append((label, target, {k: s for k, s in row.items() if s is not None}))
    return rows


def _statements() -> tuple[list[str], floors.Around]:
    """Each statement once, the empty loop first; C+'s run in direct mode."""
    statements, around = ["pass"], {}
    for _, _, row in _rows():
        for column, statement in row.items():
            if statement not in statements:
                statements.append(statement)
            if column.startswith("C+"):
                around[statement] = ("_set_direct(True)", "_set_direct(False)")
    return statements, around


# ------------------------------------------------------------ the extension


def _build_if_stale() -> None:
    stale = not os.path.exists(EXTENSION) or os.path.getmtime(EXTENSION) < os.path.getmtime(SOURCE)
    if stale:
        print("building", EXTENSION)
        build = os.path.join(HERE, "build.sh")
        subprocess.run(["sh", build], check=True, env=dict(os.environ, PYTHON=sys.executable))


def _load() -> ModuleType:
    """The extension, by its path (this script has its name), wired to
    cowarray's module state."""
    loader = importlib.machinery.ExtensionFileLoader("compiled_floor", EXTENSION)
    spec = importlib.util.spec_from_file_location("compiled_floor", EXTENSION, loader=loader)
    assert spec is not None
    cf = importlib.util.module_from_spec(spec)
    loader.exec_module(cf)
    cf.configure(
        pending=families.PENDING,
        flush=families.flush,
        cow_dict=vars(cow),
        observer=None,
        views_type=families._Views,
        views_token=families.views_token,
        slow_view=_slow_view,
        no_fast_write=NO_FAST,
        donated=cow.DONATED,
        poison=_move._MOVED,
        allowed_add=frozenset(d for d in ALL_DTYPES if d.kind in CATEGORY.get("add", "biufc")),
        stored_as_is={np.dtype(np.float64): _array.storable_scalars(ca.zeros(1))},
        must_copy=CPU.backend.must_copy_before_write,
        lock_free=cow.LOCK_FREE_JOINS,
    )
    _calibrate(cf)
    return cf


def _slow_view(source: Any, result: Any) -> Any:
    """The prototype's slow path (a Python stand-in): a record on the first
    view (cowarray's Python Buffer, unless the array has a C one), then a join."""
    buf = source._buf
    if buf is None:
        buf = source._buf = cow.Buffer(result.base, int(result.nbytes))
    return type(source)(result, buf, source._device, NO_FAST, families.views_token(source))


def _calibrate(cf: ModuleType) -> None:
    """Read the counts ``.set`` sees for a temporary update; make them the proof."""

    def temporary() -> Any:
        x = cf.CArray(np.zeros(8), None, CPU, NO_FAST, None)
        x = cf.move(x).at[0].set(1.0)
        return x

    temporary()
    counts = cf.last_counts()
    cf.configure(expect_x=counts[0], expect_at=counts[1])
    # a held array must not look like a temporary
    x = cf.CArray(np.zeros(8), None, CPU, NO_FAST, None)
    data = x._data
    y = x.at[0].set(1.0)
    assert cf.last_counts()[0] != counts[0], (cf.last_counts(), counts)
    assert y._data is not data and x._data is data and data[0] == 0.0


def _plain(cf: ModuleType, data: np.ndarray) -> Any:
    return cf.CArray(data, None, CPU, NO_FAST, None)


def _direct(cf: ModuleType, data: np.ndarray, shared: bool) -> Any:
    """For direct mode: a C Buffer and a C family from the start."""
    x = _plain(cf, data)
    if shared:
        x._buf = cf.Buffer(shareable=True)
        x._family = cf.Family(families._Views())
    return x


def _names(cf: ModuleType) -> dict[str, Any]:
    names = floors._names()  # NumPy's and cowarray's arrays (records made), the floors
    a, a2, b = names["a"], names["a2"], names["b"]
    # C: cowarray's Python records, made by the first views
    c, c2, p, p2 = _plain(cf, a), _plain(cf, a2), _plain(cf, a), _plain(cf, a2)
    c[1:5], c2.T, p[1:5], p2.T
    assert type(c._buf) is type(c2._buf) is type(p._buf) is cow.Buffer
    names.update(c=c, c2=c2, cb=_plain(cf, b), cm=_plain(cf, np.zeros(10**6)), p=p, p2=p2)
    # C+: C records
    d, d2, db = _direct(cf, a, True), _direct(cf, a2, True), _direct(cf, b, False)
    names.update(d=d, d2=d2, db=db, dm=_plain(cf, np.zeros(10**6)))
    names.update(move=cf.move, _set_direct=cf.set_direct)
    return names


# ------------------------------------------------------------ the checks


def _smoke_test(cf: ModuleType) -> None:
    """Every path of the prototype in both modes gives cowarray's results."""
    for direct in (False, True):
        cf.set_direct(direct)
        a, a2 = np.arange(1000.0), np.arange(1000.0).reshape(20, 50)
        x, x2 = (
            (_direct(cf, a, True), _direct(cf, a2, True))
            if direct
            else (_plain(cf, a), _plain(cf, a2))
        )
        x[1:5], x2.T  # first views: records
        t, s = x2.T, x[1:5]
        assert type(t) is cf.CArray and t._buf is x2._buf and np.array_equal(t._data, a2.T)
        assert type(t._family) is families._Views
        assert s._buf is x._buf and np.array_equal(s._data, a[1:5])
        for r in (x2.reshape((50, 20)), x2.reshape(50, 20)):
            assert r._buf is x2._buf and r._data.shape == (50, 20) and r._data.base is a2.base
        r = x2.reshape(-1)
        assert r._data.shape == (1000,) and r._buf is x2._buf
        copied = x2.T.reshape(1000)  # not a view: the slow path
        assert copied._data.base is None or copied._data.base is not a2.base
        y = _direct(cf, np.ones(1000), False)
        z = x + y
        assert z._buf is None and np.array_equal(z._data, a + 1)
        m = _plain(cf, np.zeros(10**6))
        data = m._data
        m2 = cf.move(m).at[5].set(1.0)
        assert m2._data is data and data[5] == 1.0 and m._data is _move._MOVED
        assert m2._fast_write is cow.DONATED
        m3 = cf.move(m2).at[-1].set(2)
        assert m3._data is data and data[-1] == 2.0
        held = m3
        m4 = held.at[6].set(3.0)  # held: a copy
        assert m4._data is not data and data[6] == 0.0 and m4._data[6] == 3.0
    cf.set_direct(False)


def _recheck_test(cf: ModuleType) -> None:
    """A record replaced during the backend call (as a gc callback could)
    sends the view to the slow path."""
    taken = []

    def slow(source: Any, result: Any) -> str:
        taken.append(result)
        return "slow"

    class Sneaky:
        ndim = 2
        holder: Any = None

        @property
        def T(self) -> str:
            self.holder._buf = cow.Buffer(None, 0)
            return "view"

        def __getitem__(self, key: Any) -> str:
            return self.T

    cf.configure(slow_view=slow)
    try:
        for statement in ("x.T", "x[1:5]"):
            data = Sneaky()
            x = data.holder = _plain(cf, data)
            x._buf = cow.Buffer(None, 0)
            assert eval(statement) == "slow" and taken.pop() == "view", statement
    finally:
        cf.configure(slow_view=_slow_view)


def _fast_path_test(cf: ModuleType, names: dict[str, Any], around: floors.Around) -> None:
    """Every benchmarked C statement takes its fast path (the slow one
    raises here), and the updates store in place."""

    def slow(source: Any, result: Any) -> None:
        raise AssertionError("slow path taken")

    cf.configure(slow_view=slow)
    try:
        for _, _, row in _rows():
            for column in ("C", "C+", "C+pyrec"):
                if column not in row:
                    continue
                statement = row[column]
                target = statement.split(" = ")[0] if " = " in statement else None
                before = names[target]._data if target else None
                floors._loop(statement, names, *around.get(statement, ("", "")))(1)
                assert target is None or names[target]._data is before, f"copied: {statement}"
    finally:
        cf.configure(slow_view=_slow_view)
        cf.set_direct(False)


# ------------------------------------------------------------ the table


def _report(values: dict[str, float], unit: str) -> None:
    show = (lambda v: f"{v:10.0f}") if unit == "instructions" else _fmt_time
    print(f"\n== {unit} per run; x: the ratio to NumPy, * within its per-operation target")
    print(f"{'':<38} target" + "".join(f"{column:>11}{'':8}" for column in COLUMNS))
    for label, target, row in _rows():
        base = values[row["numpy"]]
        cells = [f" {show(base)}{'':8}"]
        for column in COLUMNS[1:]:
            if column not in row:
                cells.append(f"{'-':>11}{'':8}")
                continue
            ratio = values[row[column]] / base
            mark = "*" if ratio <= target else " "
            cells.append(f" {show(values[row[column]])} x{ratio:5.2f}{mark}")
        print(f"{label:<38} x{target:<5g}" + "".join(cells))


def main(argv: list[str] | None = None) -> None:
    args = floors.arguments(
        __doc__, "--count", "callgrind instructions, not time", "timed rounds", argv
    )
    statements, around = _statements()
    if args.child:
        floors.run_child(statements, _names(_load()), around)
        return
    _build_if_stale()
    cf = _load()
    print(f"cowarray {ca.__version__}, NumPy {np.__version__}, Python {sys.version.split()[0]}")
    print("load average before:", " ".join(f"{v:.2f}" for v in os.getloadavg()))
    _smoke_test(cf)
    _recheck_test(cf)
    names = _names(cf)
    _fast_path_test(cf, names, around)
    print("checks: ok (both modes; fast paths taken, updates in place, re-check)")
    values, unit = floors.measure(
        statements, lambda: names, args.count, args.rounds, __file__, around
    )
    print("load average after: ", " ".join(f"{v:.2f}" for v in os.getloadavg()))
    _report(values, unit)


if __name__ == "__main__":
    main()
