"""Pytest plugin: run SciPy's own array-API tests with cowarray as an ``xp`` backend.

Load it with ``-p scipy_backends`` (``tools/consumers`` on ``PYTHONPATH``) while
running SciPy's installed tests with ``SCIPY_ARRAY_API=1`` and
``-m array_api_backends``::

    SCIPY_ARRAY_API=1 PYTHONPATH=tools/consumers \\
        python -m pytest -p scipy_backends -m array_api_backends --pyargs scipy.fft

How it hooks in
---------------
``scipy/conftest.py`` builds the list ``xp_available_backends`` once, at import,
from the libraries it knows (numpy, array_api_strict, torch, ...), and declares
``@pytest.fixture(params=xp_available_backends) def xp``.  Pytest turns a
parametrized fixture into test instances in ``FixtureManager.pytest_generate_tests``,
*unless* the test carries its own ``parametrize`` mark for that name.  So, in a
``tryfirst`` ``pytest_generate_tests``, this plugin gives every test that uses
``xp`` (directly or through another fixture) a ``parametrize("xp", ...,
indirect=True)`` mark built from ``COWARRAY_CONSUMER_BACKENDS``.  SciPy's own
fixture body still runs for each instance (``request.param`` is the module), so
its ``skip_xp_backends`` / ``xfail_xp_backends`` markers and capability tables
keep working.  ``"cowarray"`` is also added to ``scipy.conftest.xp_known_backends``
so that ``np_only=True`` markers skip cowarray as they skip any non-NumPy backend.
Nothing in SciPy is copied or edited.

Environment
-----------
``COWARRAY_CONSUMER_BACKENDS``
    Comma-separated backend ids, default ``array_api_strict,cowarray``.  Known:
    ``cowarray``, ``array_api_strict``, ``numpy``.
``COWARRAY_CONSUMER_RESULTS``
    If set, a path; one JSON object per test instance that uses ``xp`` is
    appended to it (see :func:`_record_line` for the fields).
``COWARRAY_CONSUMER_TIMEOUT``
    Seconds a test's call phase may run before it is failed with
    ``TestTimeout`` (SIGALRM; default 300, ``0`` disables).  A stand-in for
    pytest-timeout, so one hung test cannot stall a whole subpackage run.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import FrameType, ModuleType
from typing import IO, Any

import pytest

BACKENDS_ENV = "COWARRAY_CONSUMER_BACKENDS"
RESULTS_ENV = "COWARRAY_CONSUMER_RESULTS"
TIMEOUT_ENV = "COWARRAY_CONSUMER_TIMEOUT"
DEFAULT_BACKENDS = ("array_api_strict", "cowarray")
KNOWN_BACKENDS = ("cowarray", "array_api_strict", "numpy")
#: the warning cowarray emits when a write through a view does not reach its base;
#: matched by class name so this works before and after the class exists.
VIEW_WRITE_WARNING = "ViewWriteWarning"
#: stands in for the backend id in the key that matches instances across backends
BACKEND_PLACEHOLDER = "{xp}"


class TestTimeout(Exception):
    """Raised in a test that ran past ``COWARRAY_CONSUMER_TIMEOUT`` seconds."""


def selected_backends() -> list[str]:
    """Backend ids from ``COWARRAY_CONSUMER_BACKENDS``, checked against the known ones."""
    raw = os.environ.get(BACKENDS_ENV, "")
    ids = [b.strip() for b in raw.split(",") if b.strip()] or list(DEFAULT_BACKENDS)
    unknown = sorted(set(ids) - set(KNOWN_BACKENDS))
    if unknown:
        raise pytest.UsageError(
            f"{BACKENDS_ENV}: unknown backend(s) {unknown}; known: {KNOWN_BACKENDS}"
        )
    return ids


def _scipy_conftest() -> ModuleType | None:
    """SciPy's root conftest module once pytest has imported it, else ``None``."""
    module = sys.modules.get("scipy.conftest")
    return module if module is not None and hasattr(module, "xp_available_backends") else None


def build_params(conftest: ModuleType, ids: list[str]) -> list[Any]:
    """``pytest.param`` objects for the ``xp`` fixture, one per backend id.

    numpy and array_api_strict reuse SciPy's own params (so any marks and setup
    SciPy attaches, e.g. ``set_array_api_strict_flags``, stay as SciPy made them);
    cowarray gets the same ``array_api_backends`` mark SciPy gives its backends.
    """
    scipy_params = {p.id: p for p in conftest.xp_available_backends}
    params = []
    for backend in ids:
        if backend == "cowarray":
            import cowarray

            conftest.xp_known_backends.add("cowarray")
            mark = pytest.mark.array_api_backends
            params.append(pytest.param(cowarray, id="cowarray", marks=mark))
        elif backend in scipy_params:
            params.append(scipy_params[backend])
        else:
            raise pytest.UsageError(
                f"{BACKENDS_ENV}: SciPy did not offer backend {backend!r} "
                "(is it installed, and is SCIPY_ARRAY_API=1 set?); "
                f"SciPy offers {sorted(scipy_params)}"
            )
    return params


def _uses_scipy_xp(metafunc: pytest.Metafunc) -> bool:
    """Whether the test uses SciPy's ``xp`` fixture and does not parametrize ``xp`` itself."""
    if "xp" not in metafunc.fixturenames:
        return False
    for mark in metafunc.definition.iter_markers("parametrize"):
        names = mark.args[0] if mark.args else mark.kwargs.get("argnames", "")
        names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
        if "xp" in names:
            return False
    return True


@pytest.hookimpl(tryfirst=True)
def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize ``xp`` over the selected backends instead of SciPy's fixed list."""
    conftest = _scipy_conftest()
    if conftest is None or not _uses_scipy_xp(metafunc):
        return
    if _STATE.params is None:
        _STATE.params = build_params(conftest, selected_backends())
    metafunc.definition.add_marker(pytest.mark.parametrize("xp", _STATE.params, indirect=True))


# --- recording outcomes -------------------------------------------------------------


@dataclass
class _Instance:
    """What is known about one test instance while it runs."""

    nodeid: str
    backend: str
    key: str
    outcome: str = "passed"
    error: str = ""
    where: str = ""
    duration: float = 0.0
    view_write_warning: bool = False


@dataclass
class _State:
    """Per-session plugin state, kept on the config's stash."""

    params: list[Any] | None = None
    #: nodeid -> (backend id, cross-backend key), filled at collection
    items: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: instances finished but not yet written: their warnings arrive afterwards
    pending: dict[str, _Instance] = field(default_factory=dict)
    out: IO[str] | None = None


#: one pytest session per process loads this plugin; reset by pytest_configure
_STATE = _State()


def strip_backend(nodeid: str, backend: str) -> str:
    """The nodeid with the backend's parameter id replaced by ``{xp}``.

    ``test_f[cowarray-float64]`` and ``test_f[array_api_strict-float64]`` both
    become ``test_f[{xp}-float64]``: the other ids, and their order, are the
    same on every backend, so this key matches an instance across backends.
    """
    head, sep, ids = nodeid.partition("[")
    if not sep:
        return nodeid
    parts = ids[:-1].split("-")
    for i, part in enumerate(parts):
        if part == backend:
            parts[i] = BACKEND_PLACEHOLDER
            break
    return f"{head}[{'-'.join(parts)}]"


def pytest_configure(config: pytest.Config) -> None:
    """Start a fresh session state; open the results file, if one is asked for."""
    global _STATE
    _STATE = _State()
    path = os.environ.get(RESULTS_ENV)
    if path:
        _STATE.out = open(path, "a", encoding="utf-8")  # noqa: SIM115 - closed at unconfigure


def pytest_unconfigure(config: pytest.Config) -> None:
    """Write what is still pending and close the results file."""
    _flush()
    if _STATE.out is not None:
        _STATE.out.close()
        _STATE.out = None


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Remember, for each instance parametrized over ``xp``, its backend and key."""
    for item in items:
        callspec = getattr(item, "callspec", None)
        if callspec is None or "xp" not in callspec.params:
            continue
        module = callspec.params["xp"]
        backend = getattr(module, "__name__", str(module))
        _STATE.items[item.nodeid] = (backend, strip_backend(item.nodeid, backend))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Seed NumPy's global generator per test, the same for every backend.

    Some SciPy tests draw their data from it unseeded (``fft``'s
    ``test_dtypes_real``: ``random(30)``), so two backends compared test by
    test got different data, and a draw near zero failed a float32 relative
    tolerance on one of them only. Seeded from the instance's name without
    its backend, each test keeps data of its own and both backends see it.
    """
    import zlib

    import numpy as np

    key = _STATE.items.get(item.nodeid, ("", item.nodeid))[1]
    np.random.seed(zlib.crc32(key.encode()))


#: how much of an error message is kept
MESSAGE_CHARS = 400


def _short_error(report: pytest.TestReport) -> tuple[str, str]:
    """Why the phase did not pass, and where it was raised.

    Returns ``(message, where)``: the exception text with its lines joined by
    ``" | "`` (SciPy's assertion messages start with an empty first line), cut to
    ``MESSAGE_CHARS``; and ``path:lineno`` of the innermost frame, the path cut
    to start at the package (``cowarray/...``, ``scipy/...``).  For a skip, the
    reason and nothing for ``where``.
    """
    longrepr = report.longrepr
    if longrepr is None:
        return "", ""
    if isinstance(longrepr, tuple):  # skip: (path, lineno, reason)
        return str(longrepr[2])[:MESSAGE_CHARS], ""
    crash = getattr(longrepr, "reprcrash", None)
    text = str(crash.message) if crash is not None else str(longrepr).strip().splitlines()[-1:][0]
    message = " | ".join(line.strip() for line in text.splitlines() if line.strip())
    where = f"{_package_path(str(crash.path))}:{crash.lineno}" if crash is not None else ""
    return message[:MESSAGE_CHARS], where


def _package_path(path: str) -> str:
    """``path`` from its package on: ``.../site-packages/scipy/x.py`` -> ``scipy/x.py``."""
    for anchor in ("/site-packages/", "/work/main/"):
        if anchor in path:
            return path.split(anchor, 1)[1]
    return path


def pytest_runtest_logstart(nodeid: str) -> None:
    """Write the instances finished before this one.

    Pytest hands an instance's warnings to ``pytest_warning_recorded`` only after
    its teardown report, so an instance is written when the next one starts (or
    at the end of the session), not at its own teardown.
    """
    _flush()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Fold the setup/call/teardown reports of an instance into one outcome."""
    known = _STATE.items.get(report.nodeid)
    if known is None:
        return
    inst = _STATE.pending.get(report.nodeid)
    if inst is None:
        inst = _STATE.pending[report.nodeid] = _Instance(report.nodeid, *known)
    inst.duration += report.duration
    if inst.outcome != "passed":  # the first phase that did not pass decides
        return
    if hasattr(report, "wasxfail"):
        inst.outcome = "xpassed" if report.passed else "xfailed"
        inst.error = str(report.wasxfail)
    elif report.skipped:
        inst.outcome = "skipped"
        inst.error, _ = _short_error(report)
    elif report.failed:
        inst.outcome = "failed" if report.when == "call" else "error"
        inst.error, inst.where = _short_error(report)


def pytest_warning_recorded(warning_message: Any, when: str, nodeid: str, location: Any) -> None:
    """Note instances during which a ``ViewWriteWarning`` (by class name) was emitted."""
    if when != "runtest":
        return
    category = getattr(warning_message, "category", None)
    names = {c.__name__ for c in getattr(category, "__mro__", ())}
    if VIEW_WRITE_WARNING in names:
        inst = _STATE.pending.get(nodeid)
        if inst is not None:
            inst.view_write_warning = True


def _record_line(inst: _Instance) -> dict[str, Any]:
    """The JSON record of one instance.

    ``nodeid``, ``backend`` (``cowarray``, ``array_api_strict``, ...), ``key``
    (nodeid with the backend id replaced by ``{xp}``), ``outcome`` (``passed``,
    ``failed``, ``error``, ``skipped``, ``xfailed``, ``xpassed``), ``error``
    (exception text or skip/xfail reason), ``where`` (``path:lineno`` the
    failure was raised at), ``duration`` (seconds, all phases),
    ``view_write_warning`` (bool).
    """
    return {
        "nodeid": inst.nodeid,
        "backend": inst.backend,
        "key": inst.key,
        "outcome": inst.outcome,
        "error": inst.error,
        "where": inst.where,
        "duration": round(inst.duration, 4),
        "view_write_warning": inst.view_write_warning,
    }


def _flush() -> None:
    """Write the pending instances (if there is a results file) and forget them."""
    if _STATE.out is not None:
        for inst in _STATE.pending.values():
            _STATE.out.write(json.dumps(_record_line(inst)) + "\n")
        _STATE.out.flush()
    _STATE.pending.clear()


# --- a per-test time limit ----------------------------------------------------------


def _timeout_seconds() -> float:
    try:
        return float(os.environ.get(TIMEOUT_ENV, "300"))
    except ValueError:
        return 300.0


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, Any, Any]:
    """Fail the test with ``TestTimeout`` if its call phase runs too long."""
    seconds = _timeout_seconds()
    if seconds <= 0 or not hasattr(signal, "SIGALRM") or item.nodeid not in _STATE.items:
        return (yield)
    with _alarm(seconds):
        return (yield)


@contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    """Raise ``TestTimeout`` in the main thread after ``seconds``."""

    def fire(signum: int, frame: FrameType | None) -> None:
        raise TestTimeout(f"test ran past {seconds:g} s ({TIMEOUT_ENV})")

    previous = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def iter_records(path: str) -> Iterator[dict[str, Any]]:
    """Read back the JSON lines a run wrote (for ``run_scipy.py`` and the CI test)."""
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if line:
                yield json.loads(line)
