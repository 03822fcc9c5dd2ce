"""The element-wise pool's threads never wait for a write that waits for them
(issue 46, row 1; docs/design.md rule 7: "no operation waits without bound,
a pool thread never waits for a write that waits for it").

A split call (``x += 1.0`` on a big private ``x``, or any array once
``set_parallel_threshold(0)``) waits for its pool's threads twice: in
``Thread.start()`` when it starts the pool (first use, or the first use
after ``set_num_threads`` retired it), and for each block a pool thread
took. Code that runs on a pool thread in either window (a gc callback, a
tracer) and clones the array being written, or itself makes a split call,
must not wait for the caller.

Each attack runs in a child interpreter: a hang fails the test (the child
dumps its stacks and exits) instead of stopping the suite. The eager-copy
model has no pool and nothing to wait for: every write ends, every clone is
a value that never changes afterwards.
"""

from __future__ import annotations

import textwrap

from _attack import assert_child_succeeded, run_child


def _run(*parts: str) -> object:
    """The child made of ``parts``, each dedented on its own."""
    return run_child("".join(textwrap.dedent(part) for part in parts), timeout=20.0)


# What every child does after its attack: the array holds what the writes
# made it, and each clone taken during a write is a value that a later
# write of x leaves alone. (Not necessarily all of one value: code that runs
# inside the write, on a thread computing part of it, may get a copy of
# memory half written, as a gc callback on the writing thread may.)
_CHECKS = """
    import numpy as np
    expected = float(rounds + 1)
    assert float(x[0]) == expected and float(x[-1]) == expected, (float(x[0]), expected)
    snapshots = [(c, np.array(c, copy=True)) for c in kept]
    x += 1.0
    for c, then in snapshots:
        assert np.array_equal(np.asarray(c), then), "a clone changed with a later write of x"
"""


def test_a_gc_callback_that_clones_on_a_pool_thread_while_it_starts_does_not_hang() -> None:
    # x += 1.0 is a fenced in-place write that splits its loop; it starts the
    # pool (set_num_threads retired the last one) and waits in Thread.start()
    # until the new thread runs. A collection on that thread, before it is
    # registered as working for the caller, runs a callback that clones x:
    # the clone must not wait for the write that waits for this thread.
    result = _run(
        """
        import gc, sys, threading
        import cowarray as ca
        SCHEDULED = sys.version_info >= (3, 12)  # (collections run at the next safe point)
        ca.set_parallel_threshold(0)
        MAIN = threading.get_ident()
        x = ca.zeros(1 << 16)  # past the in-place operators' size threshold
        x += 1.0
        kept, ran, primed = [], [0], []
        class Primer:
            pass
        def on_collect(phase, info):
            if phase == "start":
                if threading.get_ident() != MAIN:  # (current_thread() would make a dummy)
                    ran[0] += 1
                    kept.append(ca.lazy_clone(x))
                    del kept[:-4]
            elif SCHEDULED:
                primed.extend((Primer(), Primer()))
        gc.callbacks.append(on_collect)
        gc.set_threshold(1)
        primed.extend((Primer(), Primer()))
        rounds = 40
        for round in range(rounds):
            ca.set_num_threads(2 + round % 2)  # retires the pool: the write starts one
            x += 1.0
        gc.callbacks.remove(on_collect)
        gc.set_threshold(700)
        """,
        _CHECKS,
        """
        if not ran[0]:
            print("SKIP: no collection ran on a pool thread")
        """,
    )
    assert_child_succeeded(result)


def test_a_tracer_that_clones_at_every_line_a_pool_thread_runs_does_not_hang() -> None:
    # A tracer on the pool's threads (threading.settrace before the pool
    # starts) clones x at every line they run in the pool's code while they
    # hold a block (a local ``index`` of 0 or more): between taking it and
    # registering as working for the caller, between unregistering and
    # handing it back, and while computing it. Each of those clones comes
    # while the caller writes x in place and waits for this very block.
    # (Not before a block is taken: a clone there waits for the caller, who
    # computes every block itself meanwhile, and the attack defeats itself.)
    result = _run(
        """
        import threading
        import cowarray as ca
        from cowarray._backends import _parallel
        ca.set_parallel_threshold(0)
        MAIN = threading.get_ident()
        POOL_CODE = _parallel.__file__
        x = ca.zeros(1 << 16)
        x += 1.0
        kept, lines_seen = [], set()
        armed = [True]
        def tracer(frame, event, arg):
            if frame.f_code.co_filename != POOL_CODE:
                return None
            def lines(frame, event, arg):
                if event == "line" and armed[0] and threading.get_ident() != MAIN:
                    index = frame.f_locals.get("index", -1)
                    if type(index) is not int or index < 0:
                        return lines
                    lines_seen.add((frame.f_code.co_name, frame.f_lineno))
                    kept.append(ca.lazy_clone(x))
                    del kept[:-4]
                return lines
            return lines
        threading.settrace(tracer)
        ca.set_num_threads(3)
        ca.set_num_threads(2)  # a new pool: its threads start traced
        rounds = 60
        for round in range(rounds):
            x += 1.0
        armed[0] = False
        threading.settrace(None)
        """,
        _CHECKS,
        """
        if not lines_seen:
            print("SKIP: no pool thread ran a line while it held a block")
        """,
    )
    assert_child_succeeded(result)


def test_a_gc_callback_that_makes_a_split_call_while_the_pool_starts_does_not_hang() -> None:
    # The pool is made under a lock, and its threads are started there; a
    # collection that runs meanwhile (on the starting thread, which the
    # maker waits for, or on the maker itself) makes a small split call,
    # which wants the pool. The model: every call ends.
    result = _run(
        """
        import gc, sys, threading
        import cowarray as ca
        SCHEDULED = sys.version_info >= (3, 12)
        ca.set_parallel_threshold(0)
        c = ca.ones(1 << 12)
        MAIN = threading.get_ident()
        results, on_main, primed = [], [0], []
        class Primer:
            pass
        def on_collect(phase, info):
            if phase == "start":
                # (on a pool thread every time: its start is the window; on
                # the maker a bounded number of times)
                if threading.get_ident() != MAIN or on_main[0] < 2000:
                    on_main[0] += threading.get_ident() == MAIN
                    results.append(float((c * 2.0)[-1]))
                    del results[:-100]
            elif SCHEDULED:
                primed.extend((Primer(), Primer()))
        gc.callbacks.append(on_collect)
        gc.set_threshold(1)
        primed.extend((Primer(), Primer()))
        total = 0.0
        rounds = 300
        for round in range(rounds):
            ca.set_num_threads(2 + round % 2)  # the next split call starts a pool
            total += float((c + 1.0)[-1])
        gc.callbacks.remove(on_collect)
        gc.set_threshold(700)
        assert total == 2.0 * rounds, total
        assert all(r == 2.0 for r in results), results[:4]
        if not results:
            print("SKIP: no collection ran during the calls")
        """
    )
    assert_child_succeeded(result)


def test_a_gc_callback_that_resizes_the_pool_during_a_split_write_does_not_hang() -> None:
    # set_num_threads retires the pool and a split call starts the next
    # one; a collection during either (the write's own start of the pool
    # included) changes the thread count again. Both must end: the model has
    # no lock to hold across them.
    result = _run(
        """
        import gc, sys
        import cowarray as ca
        SCHEDULED = sys.version_info >= (3, 12)
        ca.set_parallel_threshold(0)
        x = ca.zeros(1 << 16)
        x += 1.0
        kept, ran, primed = [], [0], []
        class Primer:
            pass
        def on_collect(phase, info):
            if phase == "start":
                if ran[0] < 2000:
                    ran[0] += 1
                    ca.set_num_threads(2 + ran[0] % 2)
            elif SCHEDULED:
                primed.extend((Primer(), Primer()))
        gc.callbacks.append(on_collect)
        gc.set_threshold(1)
        primed.extend((Primer(), Primer()))
        rounds = 40
        for round in range(rounds):
            x += 1.0
        gc.callbacks.remove(on_collect)
        gc.set_threshold(700)
        """,
        _CHECKS,
        """
        if not ran[0]:
            print("SKIP: no collection ran during the writes")
        """,
    )
    assert_child_succeeded(result)
