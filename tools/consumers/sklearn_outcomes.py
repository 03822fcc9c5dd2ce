"""pytest plugin: write one JSON line per test instance for ``run_sklearn.py``.

pytest's own reports (junit XML, ``-rA``) lose what the comparison needs: which
namespace an instance ran on, the id of its twin on the other namespace, and
whether cowarray warned that a write through a view did not reach its base
(``ViewWriteWarning``; matched by class name, as the class may not exist yet in
the cowarray under test).  Load it after ``sklearn_namespaces``::

    COWARRAY_CONSUMER_RECORD=/tmp/out.jsonl python -m pytest \\
        -p sklearn_namespaces -p sklearn_outcomes ...

Each line: ``nodeid``, ``namespace``, ``key`` (the canonical nodeid shared with the
twin), ``outcome`` (passed, failed, error, skipped, xfailed, xpassed), ``error``
(the first line of the failure or skip reason), ``exc_type``, ``warnings``
(class names seen), ``view_write_warning`` and ``seconds``.
"""

from __future__ import annotations

import json
import os
import re
from collections import defaultdict
from typing import IO, Any

import pytest
import sklearn_namespaces

ENV_RECORD = "COWARRAY_CONSUMER_RECORD"
VIEW_WRITE_WARNING = "ViewWriteWarning"

_state: dict[str, Any] = {"file": None, "items": {}, "finished": []}
_warnings: defaultdict[str, set[str]] = defaultdict(set)
_reports: dict[str, dict[str, Any]] = {}
_durations: dict[str, float] = {}


def _first_line(text: str) -> str:
    """The first non-blank line; with the next one if it is a bare ``SomeError:``."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return ""
    if len(lines) > 1 and re.fullmatch(r"[\w.]+:", lines[0]):
        return f"{lines[0]} {lines[1]}"[:300]
    return lines[0][:300]


def short_error(report: pytest.TestReport) -> tuple[str, str]:
    """(first line of the error message, exception type name) of a report."""
    longrepr = report.longrepr
    if longrepr is None:
        return "", ""
    if isinstance(longrepr, tuple):  # skip: (path, lineno, reason)
        return _first_line(str(longrepr[2])).removeprefix("Skipped: "), ""
    crash = getattr(longrepr, "reprcrash", None)
    message = crash.message if crash is not None else str(longrepr)
    line = _first_line(message)
    exc_type, sep, _ = line.partition(":")
    if not sep or " " in exc_type.strip():
        exc_type = ""
    return line, exc_type.strip().rsplit(".", 1)[-1]


def pytest_configure(config: pytest.Config) -> None:
    """Open the record file named by ``COWARRAY_CONSUMER_RECORD``."""
    path = os.environ.get(ENV_RECORD)
    if path:
        _state["file"] = open(path, "a", encoding="utf-8")  # noqa: SIM115 (closed at unconfigure)


def pytest_unconfigure(config: pytest.Config) -> None:
    """Close the record file."""
    handle: IO[str] | None = _state["file"]
    if handle is not None:
        handle.close()
        _state["file"] = None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Remember each item's namespace while the items are at hand."""
    for item in items:
        _state["items"][item.nodeid] = sklearn_namespaces.item_namespace(item)


def pytest_warning_recorded(warning_message: Any, when: str, nodeid: str, location: Any) -> None:
    """Collect the class names of the warnings each test emits."""
    if nodeid:
        _warnings[nodeid].add(type(warning_message.message).__name__)
        _warnings[nodeid].add(getattr(warning_message.category, "__name__", ""))


def _outcome(report: pytest.TestReport) -> str:
    if hasattr(report, "wasxfail"):
        return "xfailed" if report.skipped else "xpassed"
    if report.failed:
        return "failed" if report.when == "call" else "error"
    return report.outcome


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Keep the report that decides the instance's outcome."""
    current = _reports.get(report.nodeid)
    # a failed phase decides; else the call phase (it carries xfail/xpass)
    if current is None or (
        current["outcome"] == "passed" and (not report.passed or report.when == "call")
    ):
        error, exc_type = ("", "") if report.passed else short_error(report)
        _reports[report.nodeid] = {
            "outcome": _outcome(report),
            "error": error,
            "exc_type": exc_type,
        }
    _durations[report.nodeid] = _durations.get(report.nodeid, 0.0) + report.duration
    if report.when == "teardown":
        _state["finished"].append(report.nodeid)


def pytest_runtest_logstart(nodeid: str, location: Any) -> None:
    """Write the instances that finished before this one.

    pytest hands over a test's warnings only after its last report, so a record
    is written when the next test starts (or the session ends).
    """
    _flush()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Write the last instance."""
    _flush()


def _flush() -> None:
    while _state["finished"]:
        _write(_state["finished"].pop(0))


def _write(nodeid: str) -> None:
    handle: IO[str] | None = _state["file"]
    record = _reports.pop(nodeid, None)
    if handle is None or record is None:
        return
    namespace = _state["items"].get(nodeid, "none")
    seen = sorted(name for name in _warnings.pop(nodeid, set()) if name)
    line = {
        "nodeid": nodeid,
        "namespace": namespace,
        "key": sklearn_namespaces.canonical_nodeid(nodeid, namespace),
        **record,
        "seconds": round(_durations.pop(nodeid, 0.0), 3),
        "warnings": seen,
        "view_write_warning": VIEW_WRITE_WARNING in seen or VIEW_WRITE_WARNING in record["error"],
    }
    handle.write(json.dumps(line) + "\n")
    handle.flush()
