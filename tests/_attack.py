"""Helpers for the attack tests (tests/hostile, tests/interop): a fast thread switch, gc
callbacks, alias checks."""

from __future__ import annotations

import contextlib
import gc
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import cowarray as ca


@contextlib.contextmanager
def switching_every_microsecond() -> Iterator[None]:
    """Threads switch as often as CPython allows (GIL builds; harmless without a GIL)."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(old)


def run_together(*targets: Callable[[], None], timeout: float = 120.0) -> None:
    """Run each target on its own thread, switching every microsecond, and wait."""
    threads = [threading.Thread(target=target) for target in targets]
    with switching_every_microsecond():
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=timeout)


_SCHEDULED_COLLECTIONS = sys.version_info >= (3, 12)


class _Primer:
    """A new object for the collector to count (no free list keeps these)."""


@contextlib.contextmanager
def gc_callback(callback: Callable[[], None]) -> Iterator[None]:
    """Run ``callback`` at the start of every collection, run as often as CPython allows.

    Up to 3.11 the collector runs inside the allocation itself. From 3.12 an
    allocation only schedules a collection, for the next point where the
    interpreter lets one in (a call, a backward jump), and only while more
    young objects live than the threshold, counting frees down (and objects
    from a free list are not counted). So at the start, and after each
    collection, this allocates two new objects: each collection schedules the
    next, and one runs at every point the interpreter lets one in. A
    free-threaded 3.13 counts allocations per thread in batches of hundreds,
    so there none may run: the test then skips
    (test_reentrant_code_never_aliases reaches the same points
    deterministically on every build).
    """
    ran = [0]
    primed: list[object] = []

    def on_collect(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            ran[0] += 1
            callback()
        elif _SCHEDULED_COLLECTIONS:
            primed.extend((_Primer(), _Primer()))

    thresholds = gc.get_threshold()
    gc.callbacks.append(on_collect)
    gc.set_threshold(1)
    if _SCHEDULED_COLLECTIONS:
        primed.extend((_Primer(), _Primer()))
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.callbacks.remove(on_collect)
    if not ran[0]:
        pytest.skip("no collection ran: this collector does not collect at every allocation")


def host(x: ca.Array) -> np.ndarray:
    """A NumPy copy of ``x``'s values, taken now."""
    return np.array(x, copy=True)


def assert_no_aliases(arrays: list[ca.Array]) -> None:
    """Writing any one of ``arrays`` changes no other: they are independent values."""
    before = [host(a) for a in arrays]
    for i, written in enumerate(arrays):
        if written.size == 0:
            continue
        written[(0,) * written.ndim] = -12345  # a value no test array holds
        for j, other in enumerate(arrays):
            if j != i:
                np.testing.assert_array_equal(
                    host(other), before[j], err_msg=f"writing array {i} changed array {j}"
                )
        before[i] = host(written)


class KeptCapsule:
    """A DLPack producer that hands out one capsule taken earlier, so that
    ``np.from_dlpack(KeptCapsule(capsule))`` reads what the capsule shows now."""

    def __init__(self, capsule: Any) -> None:
        self.capsule = capsule

    def __dlpack__(self, **_: Any) -> Any:
        return self.capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)


def run_traced(tracer: Callable[..., Any], function: Callable[[], Any]) -> Any:
    """``function()`` with ``tracer`` installed by ``sys.settrace``, the
    previous tracer put back after."""
    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        return function()
    finally:
        sys.settrace(previous)


def run_child(script: str, timeout: float = 30.0) -> Any:
    """Run ``script`` (dedented) in a new interpreter that imports this
    checkout's cowarray; a hang fails the calling test instead of stopping
    the suite. Returns the CompletedProcess.

    The child dumps every thread's stack and exits with status 1 at 80% of
    ``timeout`` (faulthandler: the report shows where it waited), and the
    parent fails the test at ``timeout`` if even that did not end it. A
    crash (SIGSEGV) shows as a negative status, with faulthandler's stacks."""
    import os
    import subprocess
    import textwrap
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    environment = {**os.environ, "PYTHONPATH": str(root)}
    header = (
        f"import faulthandler\nfaulthandler.dump_traceback_later({timeout * 0.8:.1f}, exit=True)\n"
    )
    try:
        return subprocess.run(
            [sys.executable, "-X", "faulthandler", "-c", header + textwrap.dedent(script)],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=environment,
            cwd=root,
            check=False,
        )
    except subprocess.TimeoutExpired as error:
        pytest.fail(
            f"the child hung for {timeout} s (a wait without bound): "
            f"stdout {error.stdout!r}, stderr {error.stderr!r}"
        )


def assert_child_succeeded(result: Any, what: str = "the child") -> None:
    """``result`` (from :func:`run_child`) exited 0 with nothing ignored; a
    line ``SKIP: reason`` on its stdout (the attack could not run there)
    then skips the calling test."""
    if result.returncode == 1 and "Timeout (" in result.stderr:
        pytest.fail(f"{what} hung (its stacks at the time limit):\n{result.stderr[-6000:]}")
    assert result.returncode == 0, (
        f"{what} exited with status {result.returncode}:\n{result.stdout}\n{result.stderr[-6000:]}"
    )
    assert "Exception ignored" not in result.stderr, result.stderr[-6000:]
    for line in result.stdout.splitlines():
        if line.startswith("SKIP: "):
            pytest.skip(f"the attack did not run here: {line[6:]}")
