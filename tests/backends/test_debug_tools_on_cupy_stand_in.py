"""trace() and sharing_picture() on the CuPy backend, driven by the stand-in ``cupy``.

The debug tools ask the backend for memory owners and sizes only; this checks
they do so through the backend (not NumPy) on a ``cuda`` device.
"""

from __future__ import annotations

import sys

import cowarray as ca


def test_trace_records_gpu_clone_and_region_copy_at_the_user_line(gpu: ca.Device) -> None:
    x = ca.zeros(100, device=gpu)
    with ca.trace() as t:
        window = x[10:20]
        line = sys._getframe().f_lineno + 1
        window[0] = 1.0
    assert [(e.kind, e.nbytes, e.shape) for e in t.events] == [
        ("share", 0, (100,)),
        ("materialize", 80, (10,)),
    ]
    assert (t.events[1].filename, t.events[1].lineno) == (__file__, line)
    assert t.events[1].new_buffer_id == ca.cow_info(window).buffer_id


def test_sharing_picture_on_gpu_arrays(gpu: ca.Device) -> None:
    x = ca.zeros(100, device=gpu)
    clone = ca.lazy_clone(x)
    fresh = x + 1.0
    assert str(ca.sharing_picture(x=x, clone=clone, fresh=fresh)) == (
        "buffer A: shared, 2 holders, 800 bytes\n"
        "  x      (100,) float64, views 800 bytes\n"
        "  clone  (100,) float64, views 800 bytes\n"
        "buffer B: private, 1 holder, 800 bytes\n"
        "  fresh  (100,) float64, views 800 bytes"
    )
