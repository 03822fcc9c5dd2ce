"""Process-wide copy counters: always counting, readable and resettable."""

from __future__ import annotations

import cowarray as ca


def test_counters_count_every_materialization_without_a_trace(backend_device: ca.Device) -> None:
    ca.reset_copy_counters()
    x = ca.zeros(1000, device=backend_device)
    y = ca.lazy_clone(x)
    y[0] = 1.0  # 8000 bytes
    window = x[:10]
    window[:] = 2.0  # 80 bytes
    x[0] = 3.0  # x's clone and slice both wrote away: sole holder, no copy
    assert ca.copy_counters() == ca.debug.CopyCounters(copies=2, bytes_copied=8080)


def test_reset_returns_the_totals_it_cleared(backend_device: ca.Device) -> None:
    ca.reset_copy_counters()
    x = ca.zeros(4, device=backend_device)
    y = ca.lazy_clone(x)
    y += 1.0
    assert ca.reset_copy_counters() == ca.debug.CopyCounters(copies=1, bytes_copied=32)
    assert ca.copy_counters() == ca.debug.CopyCounters(copies=0, bytes_copied=0)


def test_counters_agree_with_a_trace_of_the_same_writes(backend_device: ca.Device) -> None:
    ca.reset_copy_counters()
    x = ca.ones((100, 100), device=backend_device)
    with ca.trace() as t:
        for row in range(5):
            r = x[row]
            r[0] = 0.0
    counters = ca.copy_counters()
    assert (counters.copies, counters.bytes_copied) == (t.copies, t.bytes_copied) == (5, 4000)


def test_the_first_view_write_of_a_process_shows_only_the_users_copy() -> None:
    # cowarray measures x[k] += v's temporary on the running interpreter; the
    # measurement ran at the first such write, inside the user's trace and
    # counters. It runs at import now, and leaves nothing behind.
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent(
        """
        import cowarray as ca
        assert ca.copy_counters().copies == 0, ca.copy_counters()
        out = ca.zeros((2, 3))
        with ca.trace() as t:
            out[0] += 1.0
        assert [(e.kind, e.nbytes, e.filename) for e in t.events] == [
            ("share", 0, "<string>"),  # the temporary view, which then writes out in place
        ], t.events
        c = ca.copy_counters(); assert (c.copies, c.bytes_copied) == (0, 0), c
        assert out.tolist() == [[1.0, 1.0, 1.0], [0.0, 0.0, 0.0]]
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
