"""One name per buffer: traces, pictures, warnings and CowInfo agree, for the process's life."""

from __future__ import annotations

import sys
import types
import warnings

import pytest

import cowarray as ca
from cowarray.debug import buffer_name


def test_a_buffer_has_the_same_name_in_a_picture_a_trace_a_warning_and_cow_info() -> None:
    data = ca.zeros(100)
    picture = ca.sharing_picture(data=data)
    assert picture.buffers[0].label == "A"
    backup = ca.lazy_clone(data)
    with ca.trace() as t, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with ca.warn_on_copy():
            data[0] = 1.0
    assert t.events[0].buffer == "A"
    assert "A -> B" in str(t)
    assert str(caught[0].message).split(";")[0].endswith("out of shared buffer A")
    assert ca.cow_info(backup).buffer == "A"
    assert ca.cow_info(data).buffer == "B"
    # A later picture keeps the names: data moved to B, backup stayed on A.
    later = {b.label: b.arrays for b in ca.sharing_picture(data=data, backup=backup).buffers}
    assert later == {"B": ("data",), "A": ("backup",)}


def test_names_are_given_in_order_of_first_showing_and_never_reused() -> None:
    first = ca.zeros(3)
    second = ca.zeros(3)
    assert ca.cow_info(second).buffer == "A"
    assert ca.cow_info(first).buffer == "B"
    assert ca.cow_info(second).buffer == "A"
    stale_id = ca.cow_info(first).buffer_id
    del first
    assert ca.cow_info(ca.zeros(3)).buffer == "C"
    assert buffer_name(stale_id) == "B"


def test_names_run_past_z() -> None:
    names = [buffer_name(-n) for n in range(1, 29)]  # ids no buffer has
    assert names[:2] == ["A", "B"] and names[25:] == ["Z", "AA", "AB"]


def test_the_trace_splits_bytes_copied_from_bytes_concerned() -> None:
    x = ca.zeros(1000)
    with ca.trace() as t:
        window = x[:10]
        window[0] = 1.0
    share, copy = t.events
    assert (share.copied_nbytes, share.region_nbytes) == (0, 8000)
    assert (copy.copied_nbytes, copy.region_nbytes) == (80, 80)


def test_html_of_a_trace_and_of_cow_info_are_tables_with_the_same_names() -> None:
    x = ca.zeros(10)
    with ca.trace() as t:
        y = ca.lazy_clone(x)
        y[0] = 1.0
    table = t._repr_html_()
    assert table.startswith('<table class="cowarray-trace"') and table.endswith("</table>")
    assert table.count("<tr>") == 3  # the header and two events
    assert ">A -&gt; B</td>" in table and "2 events, 1 copy, 80 bytes copied" in table
    info = ca.cow_info(y)._repr_html_()
    assert 'class="cowarray-cow-info"' in info and ">B</td>" in info and ">private<" in info
    assert "(id " not in info and "buffer_id" not in repr(ca.cow_info(y))  # its letter only


def test_where_names_a_notebook_cell_only_through_an_ipython_already_imported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cell_file = "/tmp/ipykernel_1234/5678.py"
    event = ca.debug.TraceEvent("share", 0, 8, (1,), "float64", 1, None, cell_file, 2, "Main")
    monkeypatch.delitem(sys.modules, "IPython", raising=False)
    assert event.where == "5678.py:2"  # no IPython: cowarray does not import it

    compiler = types.SimpleNamespace(_filename_map={cell_file: 3})
    shell = types.SimpleNamespace(compile=compiler)
    fake = types.ModuleType("IPython")
    fake.get_ipython = lambda: shell  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "IPython", fake)
    assert event.where == "In [3], line 2"
    other = ca.debug.TraceEvent("share", 0, 8, (1,), "float64", 1, None, "/x/run.py", 7, "Main")
    assert other.where == "run.py:7"
    fake.get_ipython = lambda: None  # type: ignore[attr-defined]  # imported, not running
    assert event.where == "5678.py:2"


def test_where_in_a_doctest_is_the_line_within_the_example() -> None:
    # doctest compiles each example as "<doctest module.name[N]>": N is no line a reader sees
    doctest_file = "<doctest tutorial.rst[12]>"
    event = ca.debug.TraceEvent("share", 0, 8, (1,), "float64", 1, None, doctest_file, 2, "Main")
    assert event.where == "line 2"
