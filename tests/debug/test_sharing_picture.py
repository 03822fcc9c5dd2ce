"""sharing_picture: who shares which buffer, as text, SVG and dot."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest

import cowarray as ca
from cowarray._core import write

SVG = "{http://www.w3.org/2000/svg}"


def known_set(device: ca.Device) -> tuple[ca.Array, ca.Array, ca.Array, ca.Array]:
    x = ca.zeros(1000, device=device)
    clone = ca.lazy_clone(x)
    window = x[:10]
    fresh = x + 1
    return x, clone, window, fresh


def test_text_groups_arrays_by_buffer_with_states_and_holders(backend_device: ca.Device) -> None:
    x, clone, window, fresh = known_set(backend_device)
    picture = ca.sharing_picture(x, clone, window, fresh, names=["x", "clone", "window", "fresh"])
    assert str(picture) == (
        "buffer A: shared, 3 holders, 8.0 kB\n"
        "  x       (1000,) float64, views 8.0 kB\n"
        "  clone   (1000,) float64, views 8.0 kB\n"
        "  window  (10,) float64, views 80 bytes\n"
        "buffer B: private, 1 holder, 8.0 kB\n"
        "  fresh   (1000,) float64, views 8.0 kB"
    )


def test_holders_outside_the_picture_are_counted_and_said_to_be_hidden() -> None:
    x = ca.zeros(4)
    hidden = [x[1:]]
    picture = ca.sharing_picture(x=x)
    assert str(picture).splitlines()[0] == "buffer A: shared, 2 holders (1 shown), 32 bytes"
    assert hidden[0].shape == (3,)


def test_picture_keeps_no_holder_alive_and_changes_no_state(backend_device: ca.Device) -> None:
    x = ca.zeros(4, device=backend_device)
    y = ca.lazy_clone(x)
    picture = ca.sharing_picture(x=x, y=y)
    del y
    assert ca.cow_info(x).holders == 1
    assert picture.buffers[0].holders == 2
    fresh = ca.ones(3, device=backend_device)
    ca.sharing_picture(fresh=fresh)
    assert fresh._buf is None  # no sharing record was created just to look


def test_foreign_and_exposed_buffers_are_named_by_state(backend_device: ca.Device) -> None:
    # memory of the device's own library, imported without a copy
    native = backend_device.backend.asarray(np.arange(3.0))
    foreign = ca.asarray(native, device=backend_device, copy=False)
    exposed = ca.zeros(2, device=backend_device)
    record = write.expose(exposed, copy_allowed=True)
    try:
        picture = ca.sharing_picture(foreign=foreign, exposed=exposed)
    finally:
        record().release()
    assert [(b.label, b.state) for b in picture.buffers] == [("A", "foreign"), ("B", "exposed")]


def test_svg_is_well_formed_with_a_box_per_array_and_buffer_and_an_arrow_per_array(
    backend_device: ca.Device,
) -> None:
    x, clone, window, fresh = known_set(backend_device)
    picture = ca.sharing_picture(x=x, clone=clone, window=window, fresh=fresh)
    svg = picture._repr_svg_()
    root = ET.fromstring(svg)
    groups = root.findall(f"{SVG}g")
    assert [g.get("class") for g in groups] == ["array"] * 4 + ["buffer"] * 2 + ["legend"]
    assert len(root.findall(f"{SVG}line")) == 4
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert {"x", "clone", "window", "fresh"} <= set(texts)
    assert "buffer A (shared)" in texts and "buffer B (private)" in texts
    assert "3 holders, 8.0 kB" in texts


def test_svg_escapes_names() -> None:
    x = ca.zeros(1)
    root = ET.fromstring(ca.sharing_picture(x, names=["<a & b>"]).to_svg())
    assert "<a & b>" in [t.text for t in root.iter(f"{SVG}text")]


def test_dot_has_an_edge_from_each_array_to_its_buffer(backend_device: ca.Device) -> None:
    x, _clone, window, fresh = known_set(backend_device)
    dot = ca.sharing_picture(x=x, window=window, fresh=fresh).to_dot()
    assert dot.startswith("digraph sharing {")
    edges = [line.strip() for line in dot.splitlines() if "->" in line]
    assert edges == [
        '"array:x" -> "buffer:A";',
        '"array:window" -> "buffer:A";',
        '"array:fresh" -> "buffer:B";',
    ]


FIRST = ca.zeros(1)
SECOND = ca.zeros(1)
SAME = FIRST


def test_positional_arrays_are_named_after_the_callers_globals() -> None:
    picture = ca.sharing_picture(FIRST, SECOND, SAME)
    # one array under two names: each entry gets a distinct name
    assert [entry.name for entry in picture.arrays] == ["FIRST", "SECOND", "SAME"]


def test_local_and_temporary_arrays_are_numbered_and_locals_stay_unpinned(
    backend_device: ca.Device,
) -> None:
    local = ca.zeros(1, device=backend_device)
    clone = ca.lazy_clone(local)
    picture = ca.sharing_picture(
        ca.zeros(2, device=backend_device),
        local,
        clone,
        FIRST,
        other=ca.zeros(1, device=backend_device),
    )
    assert [entry.name for entry in picture.arrays] == ["a0", "a1", "a2", "FIRST", "other"]
    del clone
    assert ca.cow_info(local).holders == 1


def test_bad_arguments_are_refused() -> None:
    x = ca.zeros(1)
    with pytest.raises(ValueError, match="names"):
        ca.sharing_picture(x, names=["x", "y"])
    with pytest.raises(ValueError, match="distinct"):
        ca.sharing_picture(x, names=["x"], x=x)
    with pytest.raises(TypeError, match="y must be a cowarray Array"):
        ca.sharing_picture(y=np.zeros(1))  # type: ignore[arg-type]


def test_svg_shortens_long_names_and_keeps_them_in_the_tooltip() -> None:
    name = "a_rather_long_name_for_an_array_in_a_picture"
    root = ET.fromstring(ca.sharing_picture(ca.zeros(1), names=[name]).to_svg())
    texts = [t.text or "" for t in root.iter(f"{SVG}text")]
    assert name not in texts
    assert any(t.endswith("\u2026") and name.startswith(t[:-1]) for t in texts)
    titles = [t.text or "" for t in root.iter(f"{SVG}title")]
    assert any(t.startswith(name) for t in titles)


def arrow_ends(svg: str) -> list[tuple[str | None, str | None]]:
    root = ET.fromstring(svg)
    return [
        (line.get("x2"), line.get("y2"))
        for line in root.iter(f"{SVG}line")
        if line.get("marker-end") and not line.get("marker-start")
    ]


def test_arrows_into_one_buffer_end_at_distinct_points() -> None:
    x = ca.zeros(100)
    svg = ca.sharing_picture(x=x, a=x[:10], b=x[10:], c=ca.lazy_clone(x)).to_svg()
    ends = arrow_ends(svg)
    assert len(ends) == 4 and len(set(ends)) == 4


def test_the_legend_explains_the_viewed_part_and_every_state() -> None:
    x = ca.zeros(10)
    root = ET.fromstring(ca.sharing_picture(x=x, head=x[:2]).to_svg())
    legend = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "legend")
    texts = " ".join(t.text or "" for t in legend.iter(f"{SVG}text"))
    assert "the part of its buffer an array views" in texts
    for state in ("private", "shared", "exposed", "foreign"):
        assert f"{state}: " in texts


def test_an_exposed_buffer_shows_numpy_or_torch_on_the_other_side() -> None:
    x = ca.arange(4.0)
    alias = np.asarray(x)  # exposed while alias lives
    svg = ca.sharing_picture(x=x).to_svg()
    root = ET.fromstring(svg)
    outside = [g for g in root.iter(f"{SVG}g") if g.get("class") == "outside"]
    assert len(outside) == 1
    texts = [t.text for t in outside[0].iter(f"{SVG}text")]
    assert texts[0] == "NumPy array / torch tensor" and "both see writes" in texts[1]
    del alias
    plain = ET.fromstring(ca.sharing_picture(x=x).to_svg())
    assert not [g for g in plain.iter(f"{SVG}g") if g.get("class") == "outside"]


def test_a_foreign_array_has_a_purple_bar_over_its_memory() -> None:
    native = np.arange(5.0)
    foreign = ca.asarray(native, copy=False)
    root = ET.fromstring(ca.sharing_picture(foreign=foreign).to_svg())
    array = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "array")
    fills = [r.get("fill") for r in array.iter(f"{SVG}rect")]
    assert "#8e24aa" in fills  # the viewed part, in memory from outside cowarray
    assert any(g.get("class") == "outside" for g in root.iter(f"{SVG}g"))


def test_sizes_read_as_people_read_them() -> None:
    x = ca.zeros(1_000_000)
    assert str(ca.sharing_picture(x=x)).splitlines() == [
        "buffer A: private, 1 holder, 8.0 MB",
        "  x  (1000000,) float64, views 8.0 MB",
    ]
