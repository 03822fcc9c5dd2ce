"""Try the everyday habits of a NumPy (and JAX) user on several array libraries.

Each habit is a snippet of one or two lines, run once per library with that
library's module bound to ``xp``, its array maker bound to ``A``, and fresh
small arrays made with ``A`` from Python lists::

    x    = A([1.5, -0.5, 2.0, 0.25, -1.0, 3.0])     # 1-D floating
    m    = A([[1.0, 2.0, 3.0], [4.0, 5.0, 6.5]])    # 2 x 3 floating
    k    = A([3, 1, 2, 5, 4, 0])                    # 1-D integer
    nanx = A([1.0, nan, 3.0, -2.0])                 # with a NaN

``np`` is always NumPy (the ``np.sin(x)`` habits call NumPy on the library's
arrays); ``pickle``, ``copy``, ``dask`` (with ``dask.array``) and ``einops``
are there too. The libraries: NumPy (``np``, ``np.asarray``), torch
(``torch``, ``torch.asarray``), array-api-strict and cowarray (``cowarray``,
``cowarray.asarray``); one that is not importable is left out.

A habit passes when its snippet runs without an exception and gives NumPy's
value: the result, converted to NumPy (``.numpy()`` for torch, DLPack or
``np.asarray`` otherwise, ``tolist``'s lists as they are), has the shape, the
kind of dtype (bool, integer, floating, complex) and, within 1e-5, the values
of what the same snippet gives on NumPy. A Python ``int``, ``float``, ``str``
or ``list`` that NumPy gives must be one in the library too (``x.tolist()``
gives floats, not 0-d arrays). Where NumPy's result is an array, the result
must also be the library's array type (a NumPy function on a torch tensor
that hands back an ndarray fails): the rows marked ``keeps`` in the table.
The rows that convert to NumPy (``np.asarray(x)``) must give an ndarray.

Two kinds of rows differ from that rule:

- Random numbers cannot match NumPy's values on every library, so those rows
  check the shape and dtype kind of NumPy's result, a property of the values
  (in range, a permutation...) and that the same seed gives the same values
  twice. torch has no ``default_rng``; its obvious equivalents
  (``torch.randn(3, generator=torch.Generator().manual_seed(0))``...) are run
  instead and the cell says ``pass~``.
- The JAX habits (``x.at[0].set(5.0)``) have their expected value written
  with NumPy's spelling in the row (``ref``); NumPy itself fails them.

Rows that need Dask or einops are skipped when those are not importable.
Every snippet is tiny, deterministic and CPU-only; Dask runs its synchronous
scheduler. Warnings are recorded, not raised.

Run::

    python tools/numpy_habits.py               # table and totals
    python tools/numpy_habits.py --verbose     # and why each failure failed
    python tools/numpy_habits.py --markdown    # a table to paste into a note
    python tools/numpy_habits.py --libs numpy,cowarray

To measure an older cowarray, check it out in a separate worktree and put it
first on the path (the header prints which ``cowarray`` was imported)::

    git worktree add /tmp/habits_old fcac726
    PYTHONPATH=/tmp/habits_old python tools/numpy_habits.py
    git worktree remove /tmp/habits_old --force
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import importlib
import math
import pickle
import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Final

import numpy as np

NAN: Final = float("nan")

#: The arrays every snippet starts from, as Python lists (made with ``A`` anew
#: for each run, so a habit that writes in place changes only its own copy).
#: The floating values are exact in float32, torch's default dtype.
FIXTURES: Final[Mapping[str, list[Any]]] = {
    "x": [1.5, -0.5, 2.0, 0.25, -1.0, 3.0],
    "m": [[1.0, 2.0, 3.0], [4.0, 5.0, 6.5]],
    "k": [3, 1, 2, 5, 4, 0],
    "nanx": [1.0, NAN, 3.0, -2.0],
}

RTOL: Final = 1e-5
ATOL: Final = 1e-6


def _finite(a: np.ndarray) -> bool:
    return bool(np.all(np.isfinite(a))) and a.size > 1 and bool(np.ptp(a) > 0)


def _unit(a: np.ndarray) -> bool:
    return bool(np.all((a >= 0) & (a < 1)))


def _digits(a: np.ndarray) -> bool:
    return bool(np.all((a >= 0) & (a < 10)))


def _perm6(a: np.ndarray) -> bool:
    return bool(np.array_equal(np.sort(a), np.arange(6)))


def _from_x(a: np.ndarray) -> bool:
    return bool(np.all(np.isin(a, np.asarray(FIXTURES["x"]))))


def _shuffled_x(a: np.ndarray) -> bool:
    return bool(np.array_equal(np.sort(a), np.sort(np.asarray(FIXTURES["x"]))))


@dataclass(frozen=True)
class Habit:
    """One thing a NumPy user types, and how to tell that it worked."""

    area: str
    #: The snippet: statements, the last of which, an expression, is the result.
    code: str
    #: The expected value, written for NumPy (default: ``code`` run on NumPy).
    ref: str | None = None
    #: "lib": an array result must be the library's array type; "ndarray": it
    #: must be a NumPy ndarray; None: values only.
    keep: str | None = "lib"
    #: A library's idiomatic equivalent, run instead of ``code`` (cell "pass~").
    alt: Mapping[str, str] = field(default_factory=dict)
    #: Random rows: the property the values must have, instead of NumPy's values.
    check: Callable[[np.ndarray], bool] | None = None
    #: A module the row needs; the row is skipped where it is not importable.
    needs: str | None = None


_G = "torch.Generator().manual_seed(0)"

HABITS: Final[tuple[Habit, ...]] = (
    # NumPy's ufuncs and functions called on the library's arrays (NEP 13/18).
    Habit("numpy on x", "np.sin(x)"),
    Habit("numpy on x", "np.sum(x)"),
    Habit("numpy on x", "np.isnan(x)"),
    Habit("numpy on x", "x + np.ones(6)"),
    Habit("numpy on x", "np.ones(6) + x"),
    Habit("numpy on x", "np.mean(x)"),
    Habit("numpy on x", "np.concatenate([x, x])"),
    Habit("numpy on x", "np.percentile(x, 50)"),
    Habit("numpy on x", "np.where(x > 0, x, 0.0)"),
    Habit("numpy on x", "np.add.reduce(m, axis=1)"),
    Habit("numpy on x", "np.allclose(x, x)"),
    Habit("numpy on x", "np.testing.assert_allclose(x, x)"),
    # NumPy's array methods.
    Habit("methods", "x.reshape(2, 3)"),
    Habit("methods", "x.sum()"),
    Habit("methods", "m.mean(0)"),
    Habit("methods", "x.std()"),
    Habit("methods", "x.max()"),
    Habit("methods", "x.argmax()"),
    Habit("methods", "x.argsort()"),
    Habit("methods", "x.cumsum()"),
    Habit("methods", "x.clip(0, 1)"),
    Habit("methods", "(x / 3).round(2)"),
    Habit("methods", "x.astype(xp.int32)"),
    Habit("methods", "x.tolist()"),
    Habit("methods", "x[2].item()"),
    Habit("methods", "m.T"),
    Habit("methods", "(x > 0).all()"),
    Habit("methods", "x.nonzero()"),
    Habit("methods", "x.sort(); x"),
    Habit("methods", "x.fill(0.0); x"),
    Habit("methods", "y = x.copy(); y[0] = 9.0; (x, y)"),
    Habit("methods", "m.size"),
    # NumPy's functions beyond the standard, in the library's own namespace.
    Habit("beyond standard", "xp.pad(x, 1)"),
    Habit("beyond standard", 'xp.einsum("ij,j->i", m, A([1.0, 0.0, -1.0]))'),
    Habit("beyond standard", "xp.quantile(x, 0.25)"),
    Habit("beyond standard", "xp.percentile(x, 50)"),
    Habit("beyond standard", "xp.median(x)"),
    Habit("beyond standard", "xp.histogram(x, bins=3)"),
    Habit("beyond standard", "xp.interp(A([0.5, 1.5]), A([0.0, 1.0, 2.0]), A([0.0, 10.0, 30.0]))"),
    Habit("beyond standard", "xp.convolve(x, A([1.0, 0.5]))"),
    Habit("beyond standard", "xp.cumsum(x)"),
    Habit("beyond standard", "xp.diag(A([1.0, 2.0, 3.0]))"),
    Habit("beyond standard", "xp.outer(x, x)"),
    Habit("beyond standard", "xp.split(x, 3)"),
    Habit("beyond standard", "xp.array_split(x, 4)"),
    Habit("beyond standard", "xp.allclose(x, x + 1e-9)"),
    Habit("beyond standard", "xp.linalg.norm(x, ord=1)"),
    Habit("beyond standard", "xp.linalg.lstsq(m.T, A([1.0, 2.0, 3.0]))[0]"),
    Habit("beyond standard", "xp.nansum(nanx)"),
    Habit("beyond standard", "xp.nanmean(nanx)"),
    Habit("beyond standard", "xp.concatenate([x, x])"),
    Habit("beyond standard", "xp.array([1.0, 2.0])"),
    # Random numbers: NumPy's Generator, or the library's obvious equivalent.
    Habit(
        "random",
        "xp.random.default_rng(0).normal(size=3)",
        alt={"torch": f"torch.randn(3, generator={_G})"},
        check=_finite,
    ),
    Habit(
        "random",
        "xp.random.default_rng(0).uniform(size=3)",
        alt={"torch": f"torch.rand(3, generator={_G})"},
        check=_unit,
    ),
    Habit(
        "random",
        "xp.random.default_rng(0).integers(0, 10, size=5)",
        alt={"torch": f"torch.randint(0, 10, (5,), generator={_G})"},
        check=_digits,
    ),
    Habit(
        "random",
        "xp.random.default_rng(0).permutation(6)",
        alt={"torch": f"torch.randperm(6, generator={_G})"},
        check=_perm6,
    ),
    Habit("random", "xp.random.default_rng(0).choice(x, 2)", check=_from_x),
    Habit("random", "xp.random.default_rng(0).shuffle(x); x", check=_shuffled_x),
    # Indexing, assignment and operators.
    Habit("indexing", "x[0] = 1.0; x"),
    Habit("indexing", "x[x > 0]"),
    Habit("indexing", "x[[0, 2]]"),
    Habit("indexing", "x[:, None]"),
    Habit("indexing", "x[x < 0] = 0.0; x"),
    Habit("indexing", "x += 1.0; x"),
    Habit("indexing", "m[:, 1]"),
    Habit("indexing", "x[::-1]"),
    Habit("indexing", "m[0][1] = 9.0; m"),
    Habit("indexing", "m @ A([1.0, 0.0, -1.0])"),
    Habit("indexing", "x + k"),
    # Creation.
    Habit("creation", "xp.arange(5)"),
    Habit("creation", "xp.linspace(0, 1, 5)"),
    Habit("creation", "xp.zeros_like(x)"),
    Habit("creation", "xp.eye(3)"),
    Habit("creation", "xp.full((2, 2), 7.0)"),
    Habit("creation", "xp.asarray([[1, 2], [3, 4]])"),
    # Python's protocols.
    Habit("python", "len(x)"),
    Habit("python", "[float(v) for v in x]"),
    Habit("python", "float(x[0])"),
    Habit("python", 'f"{x[0]:.2f}"'),
    Habit("python", "pickle.loads(pickle.dumps(x))"),
    Habit("python", "copy.deepcopy(x)"),
    # Other libraries on the library's arrays.
    Habit("interop", "np.asarray(x)", keep="ndarray"),
    Habit("interop", "dask.array.from_array(x, chunks=2).sum().compute()", keep=None, needs="dask"),
    Habit(
        "interop", "dask.array.from_array(x, chunks=2).mean().compute()", keep=None, needs="dask"
    ),
    Habit(
        "interop", "np.sin(dask.array.from_array(x, chunks=2)).compute()", keep=None, needs="dask"
    ),
    Habit("interop", 'einops.rearrange(m, "a b -> b a")', needs="einops"),
    # JAX's functional updates (expected values written with NumPy).
    Habit("jax", "y = x.at[0].set(5.0); (y, x)", ref="y = x.copy(); y[0] = 5.0; (y, x)"),
    Habit("jax", "x.at[1].add(1.0)", ref="y = x.copy(); y[1] += 1.0; y"),
)


@dataclass(frozen=True)
class Library:
    """An array library: its namespace, its array maker and its array types."""

    name: str
    module: ModuleType
    asarray: Callable[..., Any]
    array_types: tuple[type, ...]
    note: str

    def to_numpy(self, value: Any) -> np.ndarray:
        """The value as a NumPy array, by the library's most direct route."""
        if isinstance(value, np.ndarray | np.generic):
            return np.asarray(value)
        if self.name == "torch" and isinstance(value, self.array_types):
            return np.asarray(value.detach().cpu().resolve_conj().numpy())
        try:
            return np.array(np.from_dlpack(value))
        except Exception:
            pass
        try:
            return np.array(value)
        except Exception:
            return np.asarray(value.tolist())


def _load_libraries(names: Sequence[str]) -> list[Library]:
    libs: list[Library] = []
    for name in names:
        if name == "numpy":
            libs.append(
                Library(
                    "numpy", np, np.asarray, (np.ndarray, np.generic), f"numpy {np.__version__}"
                )
            )
            continue
        try:
            if name == "torch":
                mod = importlib.import_module("torch")
                libs.append(
                    Library("torch", mod, mod.asarray, (mod.Tensor,), f"torch {mod.__version__}")
                )
            elif name == "array-api-strict":
                mod = importlib.import_module("array_api_strict")
                arr = type(mod.asarray(0.0))
                libs.append(
                    Library(name, mod, mod.asarray, (arr,), f"array-api-strict {mod.__version__}")
                )
            elif name == "cowarray":
                mod = importlib.import_module("cowarray")
                arr = type(mod.asarray(0.0))
                note = f"cowarray {getattr(mod, '__version__', '?')} from {mod.__file__}"
                libs.append(Library(name, mod, mod.asarray, (arr,), note))
            else:
                raise SystemExit(f"unknown library {name!r}")
        except ImportError as exc:
            print(f"# {name} left out: {exc}", file=sys.stderr)
    return libs


def _optional_modules() -> dict[str, ModuleType]:
    mods: dict[str, ModuleType] = {}
    try:
        import dask
        import dask.array  # dask.array.from_array in the snippets

        dask.config.set(scheduler="synchronous")
        mods["dask"] = dask
    except ImportError:
        pass
    with contextlib.suppress(ImportError):
        mods["einops"] = importlib.import_module("einops")
    return mods


def _run(code: str, lib: Library, modules: Mapping[str, ModuleType]) -> Any:
    """Run ``code`` with ``lib`` as ``xp``; the value of its last expression."""
    ns: dict[str, Any] = {
        "np": np,
        "xp": lib.module,
        "A": lib.asarray,
        "pickle": pickle,
        "copy": copy,
        lib.module.__name__.split(".")[0]: lib.module,
        **modules,
    }
    for name, value in FIXTURES.items():
        ns[name] = lib.asarray(value)
    tree = ast.parse(code, mode="exec")
    result: ast.expr | None = None
    body = tree.body
    if body and isinstance(body[-1], ast.Expr):
        result = body[-1].value
        body = body[:-1]
    exec(compile(ast.Module(body=body, type_ignores=[]), "<habit>", "exec"), ns)
    if result is None:
        return None
    return eval(compile(ast.Expression(result), "<habit>", "eval"), ns)


def _kind(a: np.ndarray) -> str:
    if a.dtype == np.bool_:
        return "bool"
    if np.issubdtype(a.dtype, np.integer):
        return "integer"
    if np.issubdtype(a.dtype, np.floating):
        return "floating"
    if np.issubdtype(a.dtype, np.complexfloating):
        return "complex"
    return str(a.dtype)


def _type_name(value: Any) -> str:
    t = type(value)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


def _compare(ref: Any, got: Any, lib: Library, keep: str | None, values: bool = True) -> str | None:
    """Why ``got`` is not NumPy's ``ref`` (None when it is).

    ``values=False`` compares shape and dtype kind only (the random rows)."""
    if ref is None:
        return None if got is None else f"gave {_type_name(got)}, NumPy gives None"
    if isinstance(ref, bool):
        try:
            a = lib.to_numpy(got)
        except Exception as exc:
            return f"gave {_type_name(got)}, not convertible: {exc}"[:120]
        if a.shape != ():
            return f"gave shape {a.shape}, NumPy gives a bool"
        return None if bool(a) == ref else f"gave {bool(a)}, NumPy gives {ref}"
    if isinstance(ref, int | float | str) and not isinstance(ref, np.generic):
        want: type = type(ref)
        if not isinstance(got, want) or (want is int and isinstance(got, bool)):
            return f"gave {_type_name(got)}, NumPy gives {want.__name__}"
        if isinstance(ref, str):
            return None if got == ref else f"gave {got!r}, NumPy gives {ref!r}"
        ok = math.isclose(got, ref, rel_tol=RTOL, abs_tol=ATOL)
        return None if ok else f"gave {got!r}, NumPy gives {ref!r}"
    if isinstance(ref, list | tuple):
        if not isinstance(got, list | tuple):
            return f"gave {_type_name(got)}, NumPy gives a {type(ref).__name__}"
        if len(got) != len(ref):
            return f"gave {len(got)} items, NumPy gives {len(ref)}"
        for i, (r, g) in enumerate(zip(ref, got, strict=True)):
            why = _compare(r, g, lib, keep, values)
            if why is not None:
                return f"item {i}: {why}"
        return None
    if isinstance(ref, np.ndarray | np.generic):
        if keep == "lib" and not isinstance(got, lib.array_types):
            return f"result is {_type_name(got)}, not the library's array type"
        if keep == "ndarray" and not isinstance(got, np.ndarray):
            return f"result is {_type_name(got)}, not numpy.ndarray"
        try:
            a = lib.to_numpy(got)
        except Exception as exc:
            return f"gave {_type_name(got)}, not convertible: {exc}"[:120]
        r = np.asarray(ref)
        if a.shape != r.shape:
            return f"gave shape {a.shape}, NumPy gives {r.shape}"
        if _kind(a) != _kind(r):
            return f"gave a {_kind(a)} {a.dtype}, NumPy gives {_kind(r)} {r.dtype}"
        if values and not np.allclose(a, r, rtol=RTOL, atol=ATOL, equal_nan=True):
            return f"gave {a.tolist()}, NumPy gives {r.tolist()}"[:120]
        return None
    return None if got == ref else f"gave {got!r}, NumPy gives {ref!r}"


@dataclass(frozen=True)
class Outcome:
    """One habit on one library."""

    status: str  # "pass", "pass~" (the library's equivalent), "FAIL", "skip"
    detail: str = ""
    warned: str = ""

    @property
    def passed(self) -> bool:
        return self.status.startswith("pass")


def _short(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:80]}"


def _try(
    habit: Habit, lib: Library, ref: Any, modules: Mapping[str, ModuleType]
) -> tuple[str | None, str]:
    """Why the habit fails on ``lib`` (None if it passes), and its first warning."""
    code = habit.alt.get(lib.name, habit.code)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            got = _run(code, lib, modules)
            again = _run(code, lib, modules) if habit.check is not None else None
        except Exception as exc:
            why: str | None = _short(exc)
        else:
            why = _compare(ref, got, lib, habit.keep, values=habit.check is None)
            if why is None and habit.check is not None:
                a, b = lib.to_numpy(got), lib.to_numpy(again)
                if not habit.check(a):
                    why = f"values {a.tolist()} fail the check {habit.check.__name__}"
                elif not np.array_equal(a, b):
                    why = "the same seed gave different values"
    first = ""
    if caught:
        w = caught[0]
        first = f"{w.category.__name__}: {' '.join(str(w.message).split())[:80]}"
    return why, first


def _has_array(ref: Any) -> bool:
    if isinstance(ref, list | tuple):
        return any(_has_array(r) for r in ref)
    return isinstance(ref, np.ndarray | np.generic)


@dataclass(frozen=True)
class Row:
    """A habit, its outcome per library, and whether its result's type is checked."""

    habit: Habit
    outcomes: list[Outcome]
    #: NumPy's result holds arrays, so the habit's ``keep`` applies.
    typed: bool = False

    @property
    def label(self) -> str:
        if not self.typed or self.habit.keep is None:
            return ""
        return "keeps" if self.habit.keep == "lib" else "ndarray"


def _measure(
    habits: Sequence[Habit], libs: Sequence[Library], modules: Mapping[str, ModuleType]
) -> list[Row]:
    numpy_lib = _load_libraries(["numpy"])[0]
    rows: list[Row] = []
    for habit in habits:
        if habit.needs is not None and habit.needs not in modules:
            skipped = [Outcome("skip", f"{habit.needs} is not importable") for _ in libs]
            rows.append(Row(habit, skipped))
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = _run(habit.ref or habit.code, numpy_lib, modules)
        outcomes: list[Outcome] = []
        for lib in libs:
            why, warned = _try(habit, lib, ref, modules)
            if why is not None:
                outcomes.append(Outcome("FAIL", why, warned))
            elif lib.name in habit.alt:
                outcomes.append(Outcome("pass~", f"ran {habit.alt[lib.name]}", warned))
            else:
                outcomes.append(Outcome("pass", "", warned))
        rows.append(Row(habit, outcomes, _has_array(ref)))
    return rows


def _totals(rows: Sequence[Row], n: int) -> list[str]:
    out = []
    for j in range(n):
        run = [row.outcomes[j] for row in rows if row.outcomes[j].status != "skip"]
        out.append(f"{sum(o.passed for o in run)}/{len(run)}")
    return out


LEGEND: Final = (
    "type: keeps = an array result must be the library's array type; ndarray = a NumPy one. "
    "pass~ = the library's idiomatic equivalent was run (--verbose shows it)."
)


def _print_text(libs: Sequence[Library], rows: Sequence[Row]) -> None:
    names = [lib.name for lib in libs]
    code_w = max(len(r.habit.code) for r in rows)
    area_w = max(len(r.habit.area) for r in rows)
    widths = [max(len(n), 6) for n in names]
    head = f"{'#':>3}  {'area':<{area_w}}  {'habit':<{code_w}}  {'type':<7}  "
    print(head + "  ".join(f"{n:<{w}}" for n, w in zip(names, widths, strict=True)))
    for i, row in enumerate(rows, 1):
        h = row.habit
        cells = "  ".join(f"{o.status:<{w}}" for o, w in zip(row.outcomes, widths, strict=True))
        print(f"{i:>3}  {h.area:<{area_w}}  {h.code:<{code_w}}  {row.label:<7}  {cells}")
    totals = _totals(rows, len(libs))
    pad = " " * (3 + 2 + area_w + 2)
    line = "  ".join(f"{t:<{w}}" for t, w in zip(totals, widths, strict=True))
    print(f"{pad}{'total':<{code_w}}  {'':<7}  {line}")
    print()
    print(LEGEND)


def _md(text: str) -> str:
    return "`" + text.replace("|", "\\|") + "`"


def _print_markdown(libs: Sequence[Library], rows: Sequence[Row]) -> None:
    names = [lib.name for lib in libs]
    print("| # | area | habit | type | " + " | ".join(names) + " |")
    print("|---:|---|---|---|" + "|".join(":---:" for _ in names) + "|")
    for i, row in enumerate(rows, 1):
        cells = " | ".join("fail" if o.status == "FAIL" else o.status for o in row.outcomes)
        print(f"| {i} | {row.habit.area} | {_md(row.habit.code)} | {row.label} | {cells} |")
    totals = " | ".join(f"**{t}**" for t in _totals(rows, len(libs)))
    print(f"| | | **total** | | {totals} |")
    print()
    print(LEGEND)


def _print_details(libs: Sequence[Library], rows: Sequence[Row], markdown: bool) -> None:
    print()
    print("**Failures, equivalents, warnings**" if markdown else "Failures, equivalents, warnings:")
    print()
    for j, lib in enumerate(libs):
        for i, row in enumerate(rows, 1):
            o = row.outcomes[j]
            if o.status == "pass" and not o.warned:
                continue
            text = o.detail
            if o.warned:
                text = f"{text}; warned {o.warned}" if text else f"warned {o.warned}"
            code = row.habit.code
            if markdown:
                print(f"- {lib.name}, #{i} {_md(code)}: {o.status.lower()}: {text}")
            else:
                print(f"{lib.name:<17} #{i:<3} {code:<40} {o.status:<5} {text}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-v", "--verbose", action="store_true", help="say why each failure failed")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument(
        "--libs",
        default="numpy,torch,array-api-strict,cowarray",
        help="comma-separated, from numpy, torch, array-api-strict, cowarray",
    )
    args = parser.parse_args(argv)
    libs = _load_libraries([n.strip() for n in args.libs.split(",") if n.strip()])
    modules = _optional_modules()
    rows = _measure(HABITS, libs, modules)
    header = [lib.note for lib in libs]
    header += [f"{name} {getattr(mod, '__version__', '?')}" for name, mod in modules.items()]
    print(("" if args.markdown else "# ") + "; ".join(header))
    print()
    if args.markdown:
        _print_markdown(libs, rows)
    else:
        _print_text(libs, rows)
    if args.verbose:
        _print_details(libs, rows, args.markdown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
