"""The fast paths of x.T, x[a:b] and reshape never make an alias (rules 1 and 7).

Each joins its source's record without the lock (cowarray/_array.py), which
is safe only because it takes its reference to the record before it reads
the gate, and checks afterwards that the record and the memory are still the
source's. The attacks: code re-entered in the middle of a write (a gc
callback at every allocation) takes the views, and a thread switching every
microsecond takes them while another writes the source in place.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import numpy as np
import pytest
from _attack import assert_no_aliases, gc_callback, switching_every_microsecond

import cowarray as ca

TAKES: list[Any] = [
    pytest.param(lambda x: x.T, id="x.T"),
    pytest.param(lambda x: x[1:3], id="x[1:3]"),
    pytest.param(lambda x: ca.reshape(x, (6, 4)), id="reshape(x, shape)"),
    pytest.param(lambda x: x.reshape(-1), id="x.reshape(-1)"),
    pytest.param(lambda x: x.reshape((3, 8)), id="x.reshape((3, 8))"),
]


@pytest.mark.parametrize("take", TAKES)
@pytest.mark.parametrize(
    "write",
    [
        pytest.param(lambda x: x.__setitem__((0, 0), 1.0), id="x[0, 0] = v"),
        pytest.param(lambda x: x.__setitem__(slice(0, 2), 1.0), id="x[0:2] = v"),
        pytest.param(lambda x: x.__setitem__(ca.asarray([0, 1]), 1.0), id="x[idx] = v"),
    ],
)
@pytest.mark.parametrize("shared_before", [False, True], ids=["private", "last-holder"])
def test_a_fast_view_taken_inside_a_write_gets_its_own_value(
    take: Callable[[ca.Array], ca.Array], write: Callable[[ca.Array], object], shared_before: bool
) -> None:
    x = ca.zeros((4, 6))
    if shared_before:
        gone = x[0:1]  # x has a record (its gate open), and is its last holder below
        del gone
    views: list[ca.Array] = []
    armed = [True]

    def grab() -> None:
        if armed[0] and len(views) < 40:
            views.append(take(x))

    with gc_callback(grab):
        write(x)
        armed[0] = False
    assert_no_aliases([x, *views])


@pytest.mark.parametrize("take", TAKES)
def test_fast_views_taken_while_another_thread_writes_keep_their_values(
    take: Callable[[ca.Array], ca.Array],
) -> None:
    x = ca.zeros((4, 6))
    views: list[tuple[ca.Array, float]] = []
    done = threading.Event()

    def writer() -> None:
        for i in range(3000):
            gone = x[0:1]  # a record, then the last holder takes the memory over
            del gone
            x[:, 0] = float(i + 1)  # column 0: the first element of every view
        done.set()

    def taker() -> None:
        while not done.is_set():
            v = take(x)
            views.append((v, float(ca.reshape(v, (-1,))[0])))

    with switching_every_microsecond():
        threads = [threading.Thread(target=writer), threading.Thread(target=taker)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    x[:, 0] = -1.0
    changed = [(then, now) for v, then in views if (now := float(ca.reshape(v, (-1,))[0])) != then]
    assert not changed, f"{len(changed)} of {len(views)} views followed x, e.g. {changed[:3]}"
    assert_no_aliases([x, *(v for v, _ in views[-20:])])


# Where a fast path runs: a write may come between any two of their lines.
_FAST_PATH_FILES = {
    str(Path(ca.__file__).parent / name)
    for name in (
        "_array.py",
        "_core/values.py",
        "_methods.py",
        "_ops/manipulation.py",
        "_backends/numpy.py",
    )
}


def _run_interrupted(body: Callable[[], object], at: int, interrupt: Callable[[], None]) -> int:
    """Run ``body`` with ``interrupt()`` called before its ``at``-th line in the
    fast-path files (a thread switch there, made deterministic); returns how
    many such lines ran."""
    lines = [0]

    def on_line(frame: FrameType, event: str, arg: object) -> Any:
        if event == "line":
            lines[0] += 1
            if lines[0] == at:
                interrupt()  # tracing is off inside a trace function
        return on_line

    def on_call(frame: FrameType, event: str, arg: object) -> Any:
        return on_line if frame.f_code.co_filename in _FAST_PATH_FILES else None

    previous = sys.gettrace()
    sys.settrace(on_call)
    try:
        body()
    finally:
        sys.settrace(previous)
    return lines[0]


@pytest.mark.parametrize(
    "take",
    [
        *TAKES,
        pytest.param(lambda x: x[1], id="x[1]"),
        pytest.param(lambda x: ca.permute_dims(x, (1, 0)), id="permute_dims"),
    ],
)
def test_a_write_between_any_two_lines_of_a_fast_view_never_aliases(
    take: Callable[[ca.Array], ca.Array],
) -> None:
    # The source is written (it copies: a clone shares its memory) and its new
    # memory gets a record, at each line of the view's path in turn. A view
    # that paired the old memory with the new record, or the reverse, would
    # follow the clone's (or the source's) next write in place.
    at = 1
    while at < _attack_at(take, at):
        at += 1
    assert at > 3, "the attack reached no line of the view's path"


def _attack_at(take: Callable[[ca.Array], ca.Array], at: int) -> int:
    """Take a view of a shared array, interrupted before line ``at``; check it."""
    x = ca.asarray(np.arange(24.0).reshape(4, 6))
    y = ca.lazy_clone(x)  # the memory is shared: the fast paths apply
    kept: list[ca.Array] = []
    views: list[ca.Array] = []

    def interrupt() -> None:
        x[0, 0] = 99.0  # x copies; y is left the sole holder of the old memory
        kept.append(x[0:4])  # x's new memory gets a record, its gate open

    ran = _run_interrupted(lambda: views.append(take(x)), at, interrupt)
    assert_no_aliases([x, y, *kept, *views])
    return ran
