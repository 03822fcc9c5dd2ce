"""trace(): exactly the expected events, bytes, regions, buffers and source lines."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
import sysconfig
import threading

import numpy as np
import pytest

import cowarray as ca
from cowarray._core import cow


def next_line() -> int:
    """The line after the caller's: mark the statement a test expects an event at."""
    return sys._getframe(1).f_lineno + 1


def summary(t: ca.debug.Trace) -> list[tuple[str, int, tuple[int, ...] | None]]:
    return [(e.kind, e.nbytes, e.shape) for e in t.events]


def test_clone_then_write_records_a_share_and_a_copy_of_the_whole_buffer(
    backend_device: ca.Device,
) -> None:
    x = ca.zeros(1000, device=backend_device)
    with ca.trace() as t:
        clone_line = next_line()
        y = ca.lazy_clone(x)
        write_line = next_line()
        y[0] = 1.0
    assert summary(t) == [("share", 0, (1000,)), ("materialize", 8000, (1000,))]
    share, copy = t.events
    assert (share.filename, share.lineno) == (__file__, clone_line)
    assert (copy.filename, copy.lineno) == (__file__, write_line)
    assert share.buffer_id == copy.buffer_id == ca.cow_info(x).buffer_id
    assert copy.new_buffer_id == ca.cow_info(y).buffer_id != copy.buffer_id
    assert (t.copies, t.bytes_copied, len(t)) == (1, 8000, 2)
    assert y.device == backend_device


def test_slice_write_records_a_copy_of_the_slice_region_only(backend_device: ca.Device) -> None:
    x = ca.zeros(1_000_000, device=backend_device)
    with ca.trace() as t:
        window = x[500:510]
        write_line = next_line()
        window[0] = 1.0
    assert summary(t) == [("share", 0, (1_000_000,)), ("materialize", 80, (10,))]
    assert t.events[1].lineno == write_line
    assert t.events[1].dtype == "float64"
    assert t.bytes_copied == 80


def test_last_holder_write_records_a_takeover_and_no_copy(backend_device: ca.Device) -> None:
    x = ca.zeros(100, device=backend_device)
    y = ca.lazy_clone(x)
    del y
    with ca.trace() as t:
        write_line = next_line()
        x[0] = 1.0
        x[1] = 2.0  # no record any more: nothing to see
    assert summary(t) == [("takeover", 0, (100,))]
    assert t.events[0].lineno == write_line
    assert (t.copies, t.bytes_copied) == (0, 0)


def test_numpy_export_of_a_shared_array_records_its_copy_and_the_export() -> None:
    x = ca.arange(10, dtype=ca.int32)
    clone = ca.lazy_clone(x)
    with ca.trace() as t:
        export_line = next_line()
        view = np.asarray(x)
        write_line = next_line()
        view[0] = 5
    assert [(e.kind, e.nbytes) for e in t.events] == [("materialize", 40), ("export", 40)]
    assert [e.lineno for e in t.events] == [export_line, export_line]
    assert write_line > export_line
    assert (int(x[0]), int(clone[0])) == (5, 0)


def test_private_array_writes_record_nothing(backend_device: ca.Device) -> None:
    x = ca.zeros(10, device=backend_device)
    with ca.trace() as t:
        x[0] = 1.0
        x += 1.0
        _ = x + x
    assert t.events == ()
    assert str(t).splitlines()[-1] == "0 events, 0 copies, 0 bytes copied"


def test_table_has_one_row_per_event_with_lettered_buffers_and_the_user_line(
    backend_device: ca.Device,
) -> None:
    x = ca.zeros(1000, device=backend_device)
    with ca.trace() as t:
        y = x[:10]
        line = next_line()
        y[0] = 1.0
    rows = str(t).splitlines()
    assert rows[0].split() == ["#", "event", "copied", "size", "array", "buffer", "where"]
    assert rows[1].split()[:6] == ["1", "shared,", "no", "copy", "-", "8.0"]
    assert rows[2].split() == [
        "2",
        "copied",
        "before",
        "a",
        "write",
        "80",
        "bytes",
        "80",
        "bytes",
        "(10,)",
        "float64",
        "A",
        "->",
        "B",
        f"test_trace.py:{line}",
    ]
    assert rows[3] == "2 events, 1 copy, 80 bytes copied"
    assert repr(t) == "<cowarray trace: 2 events, 1 copy, 80 bytes copied>"


def test_nested_traces_each_record_the_events_inside_them(backend_device: ca.Device) -> None:
    x = ca.zeros(10, device=backend_device)
    with ca.trace() as outer:
        a = ca.lazy_clone(x)
        with ca.trace() as inner:
            b = ca.lazy_clone(x)
        c = ca.lazy_clone(x)
    assert (len(outer), len(inner)) == (3, 1)
    assert (a.shape, b.shape, c.shape) == ((10,), (10,), (10,))


def test_trace_records_events_of_other_threads_with_their_name(backend_device: ca.Device) -> None:
    x = ca.zeros(10, device=backend_device)

    def work() -> None:
        y = ca.lazy_clone(x)
        y[0] = 1.0

    with ca.trace() as t:
        worker = threading.Thread(target=work, name="worker-7")
        worker.start()
        worker.join()
    assert [(e.kind, e.thread) for e in t.events] == [
        ("share", "worker-7"),
        ("materialize", "worker-7"),
    ]
    assert "thread" not in str(t)  # one thread: no column


def test_table_names_threads_when_events_come_from_several(backend_device: ca.Device) -> None:
    x = ca.zeros(10, device=backend_device)
    with ca.trace() as t:
        _ = ca.lazy_clone(x)
        worker = threading.Thread(target=lambda: ca.lazy_clone(x), name="worker-8")
        worker.start()
        worker.join()
    rows = [row.split() for row in str(t).splitlines()]
    assert rows[0][-1] == "thread"
    assert rows[1][-1] == threading.current_thread().name
    assert rows[2][-1] == "worker-8"


def test_nobody_observes_outside_a_trace_even_after_an_error_inside() -> None:
    assert cow.observer is None
    with pytest.raises(KeyError), ca.trace():
        assert cow.observer is not None
        raise KeyError("boom")
    assert cow.observer is None


def test_trace_keeps_no_holder_alive(backend_device: ca.Device) -> None:
    x = ca.zeros(10, device=backend_device)
    with ca.trace() as t:
        y = ca.lazy_clone(x)
        z = x[2:]
    assert ca.cow_info(x).holders == 3
    del y, z
    assert ca.cow_info(x).holders == 1
    assert len(t) == 2


def test_events_after_the_block_are_not_recorded_and_a_trace_can_resume(
    backend_device: ca.Device,
) -> None:
    x = ca.zeros(10, device=backend_device)
    with ca.trace() as t:
        _ = ca.lazy_clone(x)
    _ = ca.lazy_clone(x)
    assert len(t) == 1
    with t:
        _ = ca.lazy_clone(x)
    assert t.count("share") == 2


def test_entering_a_trace_that_is_recording_raises() -> None:
    with ca.trace() as t, pytest.raises(RuntimeError, match="already recording"), t:
        pass


def test_foreign_read_only_write_by_the_last_holder_records_only_its_copy() -> None:
    # a takeover is a write in place; this one could not be
    source = np.arange(4.0)
    source.flags.writeable = False
    x = ca.asarray(source, copy=False)
    with ca.trace() as t:
        x[0] = 9.0
    assert summary(t) == [("materialize", 32, (4,))]


def test_events_reached_through_library_code_point_at_the_user_line(
    backend_device: ca.Device,
) -> None:
    x = ca.zeros(3, device=backend_device)
    with ca.trace() as t:
        line = next_line()
        y = copy.copy(x)  # the standard library's copy.copy calls x.__copy__
    assert [(e.kind, e.filename, e.lineno) for e in t.events] == [("share", __file__, line)]
    assert (y.shape, y.device) == ((3,), backend_device)


def test_torch_export_release_and_import_are_traced_at_the_user_lines() -> None:
    torch = pytest.importorskip("torch")
    from cowarray.interop.torch import from_torch, to_torch

    x = ca.arange(4, dtype=ca.float64)
    keep = ca.lazy_clone(x)
    with ca.trace() as t:
        export_line = next_line()
        tensor = to_torch(x)
        release_line = next_line()
        del tensor
        source = torch.arange(3.0)
        import_line = next_line()
        imported = from_torch(source)
    assert [(e.kind, e.nbytes, e.lineno) for e in t.events] == [
        ("materialize", 32, export_line),  # x shared its buffer with keep
        ("export", 32, export_line),
        ("exposure_end", 32, release_line),
        ("import", 12, import_line),
    ]
    assert {e.filename for e in t.events} == {__file__}
    assert t.events[1].buffer_id == t.events[0].new_buffer_id == t.events[2].buffer_id
    assert ca.cow_info(imported).state == "foreign"
    assert float(keep[0]) == 0.0


@pytest.mark.skipif(
    bool(sysconfig.get_config_var("Py_GIL_DISABLED")),
    reason="a free-threaded collector does not collect at every allocation with threshold 1",
)
def test_buffer_ids_asked_during_a_collection_inside_the_id_lock_do_not_deadlock() -> None:
    # A collection can run inside the core's id lock (the weak reference made
    # there allocates) and end a DLPack exposure, whose traced event asks a
    # buffer id: the lock must be re-entrant. In a subprocess: a deadlock
    # would hang the test run.
    script = """
import gc
from cowarray._core import cow

class Owner:
    pass

owners = [Owner() for _ in range(100)]
asked = []

def during_collection(phase, info):
    if phase == "start" and len(asked) < 50:
        asked.append(cow.stable_id(owners[len(asked) + 50]))

gc.callbacks.append(during_collection)
gc.set_threshold(1)
for owner in owners[:50]:
    cow.stable_id(owner)
gc.set_threshold(700)
gc.callbacks.remove(during_collection)
print(len(asked), len(set(asked)))
"""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    result = subprocess.run(
        [sys.executable, "-c", script],
        env=dict(os.environ, PYTHONPATH=root),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert result.stdout.split() == ["50", "50"]


def test_every_kind_of_event_in_the_table_is_explained_in_plain_words_under_it() -> None:
    x = ca.zeros(1000)
    with ca.trace() as t:
        y = ca.lazy_clone(x)
        y[0] = 1.0
        del y
        x[0] = 2.0
    lines = str(t).splitlines()
    assert lines[-4] == "3 events, 1 copy, 8000 bytes copied (8.0 kB)"
    legend = lines[-3:]
    assert [line.split(":")[0] for line in legend] == [
        "shared, no copy (share)",
        "copied before a write (materialize)",
        "written in place (takeover)",
    ]
    for word in ("concerned", "takeover:", "materialize:", "exposure_end"):
        assert word not in "\n".join(lines[:-3])  # no jargon in the rows
    assert [e.label for e in t.events] == [
        "shared, no copy",
        "copied before a write",
        "written in place",
    ]
    assert all(e.description for e in t.events)


def test_one_line_that_shares_twice_is_one_row_and_the_events_stay_two() -> None:
    x = ca.zeros(1_000_000)
    with ca.trace() as t:
        y = ca.lazy_clone(x[:2])
    assert [e.kind for e in t.events] == ["share", "share"]  # the data stays exact
    rows = str(t).splitlines()
    assert rows[1].split()[:5] == ["1-2", "shared,", "no", "copy", "(x2)"]
    assert len(rows) == 1 + 1 + 1 + 2  # header, one row, total, two legend lines
    assert rows[-1].startswith("(xN): one line shared the buffer N times")
    assert t._repr_html_().count("<tr>") == 2  # the header and the one row
    assert y.shape == (2,)


def test_sizes_are_human_and_exact_counts_stay_in_the_total() -> None:
    x = ca.zeros(1_000_000)
    with ca.trace() as t:
        y = ca.lazy_clone(x)
        y[0] = 1.0
    rows = [row.split() for row in str(t).splitlines()]
    assert rows[2][5:9] == ["8.0", "MB", "8.0", "MB"]
    assert str(t).splitlines()[3] == "2 events, 1 copy, 8000000 bytes copied (8.0 MB)"
    assert t.bytes_copied == 8_000_000 and t.events[1].nbytes == 8_000_000


@pytest.mark.parametrize(
    ("nbytes", "text"),
    [
        (0, "0 bytes"),
        (1, "1 byte"),
        (999, "999 bytes"),
        (1000, "1.0 kB"),
        (999_949, "999.9 kB"),
        (999_950, "1.0 MB"),
        (8_000_000, "8.0 MB"),
        (3 * 10**9, "3.0 GB"),
        (5 * 10**15, "5000.0 TB"),
    ],
)
def test_format_bytes_never_shows_a_thousand_of_a_unit(nbytes: int, text: str) -> None:
    from cowarray._observe import format_bytes

    assert format_bytes(nbytes) == text


def test_the_html_table_has_the_legend_and_a_row_per_user_visible_event() -> None:
    x = ca.zeros(10)
    with ca.trace() as t:
        y = ca.lazy_clone(x[:5])
        y[0] = 1.0
    table = t._repr_html_()
    assert table.count("<tr>") == 3  # the header, the two shares as one row, the copy
    assert "shared, no copy (share): a view or lazy clone" in table
    assert ">1-2</td>" in table and table.endswith("</caption></table>")


def test_a_copy_made_by_an_import_says_why_in_its_label() -> None:
    native = np.arange(10.0)
    with ca.trace() as t:
        ca.asarray(native)  # copies
    (event,) = [e for e in t.events if e.kind == "materialize"]
    assert (event.cause, event.label) == ("import", "copied on import")
