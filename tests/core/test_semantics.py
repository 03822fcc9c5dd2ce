"""docs/design.md rules 1-4, 7 and 9, one named behaviour per test.

Each test compares with a plain-NumPy model in which derived arrays are eager
copies.
"""

from __future__ import annotations

import copy
import gc
import pickle
import subprocess
import sys
import threading
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import cowarray as ca
from cowarray._core import IN_PLACE_MIN_SIZE, cow, write
from cowarray.testing import assert_equal_to_model, to_numpy

# -- rule 1: value semantics ----------------------------------------------------

DERIVATIONS: dict[
    str, tuple[Callable[[ca.Array], ca.Array], Callable[[np.ndarray], np.ndarray]]
] = {
    "slice": (lambda x: x[1:3], lambda m: m[1:3]),
    "strided slice": (lambda x: x[::-2], lambda m: m[::-2]),
    "integer index": (lambda x: x[1], lambda m: m[1]),
    "ellipsis": (lambda x: x[...], lambda m: m[...]),
    "new axis": (lambda x: x[None], lambda m: m[None]),
    "reshape": (lambda x: ca.reshape(x, (-1,)), lambda m: m.reshape(-1)),
    "permute_dims": (lambda x: ca.permute_dims(x, (1, 0)), lambda m: m.transpose(1, 0)),
    ".T": (lambda x: x.T, lambda m: m.T),
    ".mT": (lambda x: x.mT, lambda m: m.swapaxes(-1, -2)),
    "squeeze": (lambda x: ca.squeeze(x[:1], axis=0), lambda m: m[:1].squeeze(0)),
    "expand_dims": (lambda x: ca.expand_dims(x, axis=1), lambda m: m[:, None]),
    "broadcast_to": (
        lambda x: ca.broadcast_to(x, (2, 4, 3)),
        lambda m: np.broadcast_to(m, (2, 4, 3)),
    ),
    "flip": (lambda x: ca.flip(x, axis=0), lambda m: m[::-1]),
    "astype same dtype": (lambda x: ca.astype(x, x.dtype), lambda m: m),
    "asarray copy=True": (lambda x: ca.asarray(x, copy=True), lambda m: m),
    "x.copy()": (lambda x: x.copy(), lambda m: m),
    "copy.copy": (lambda x: copy.copy(x), lambda m: m),
    "copy.deepcopy": (lambda x: copy.deepcopy(x), lambda m: m),
    "lazy_clone": (lambda x: ca.lazy_clone(x), lambda m: m),
    "to_device same": (lambda x: x.to_device(x.device), lambda m: m),
}


def _source(device: ca.Device) -> tuple[ca.Array, np.ndarray]:
    model = np.arange(12, dtype=np.float64).reshape(4, 3)
    return ca.asarray(model, device=device), model.copy()


@pytest.mark.parametrize("name", list(DERIVATIONS))
def test_derived_array_shares_the_buffer_lazily(name: str, device: ca.Device) -> None:
    derive, _ = DERIVATIONS[name]
    x, _ = _source(device)
    y = derive(x)
    assert ca.shares_buffer(x, y)
    assert y is not x


@pytest.mark.parametrize("name", list(DERIVATIONS))
def test_write_to_derived_array_leaves_source_intact(
    name: str, device: ca.Device, copies: Any
) -> None:
    derive, derive_model = DERIVATIONS[name]
    x, model = _source(device)
    copies.reset()  # asarray(ndarray) copied the model in: counted, and not this test's
    y = derive(x)
    expected_y = np.array(derive_model(model), copy=True)
    y[...] = -7.0
    expected_y[...] = -7.0
    assert_equal_to_model(x, model)
    assert_equal_to_model(y, expected_y)
    assert copies.copies == 1  # the writer copied, once


@pytest.mark.parametrize("name", list(DERIVATIONS))
def test_write_to_source_leaves_derived_array_intact(name: str, device: ca.Device) -> None:
    derive, derive_model = DERIVATIONS[name]
    x, model = _source(device)
    y = derive(x)
    expected_y = np.array(derive_model(model), copy=True)
    x[...] = 99.0
    x[0, 0] = -1.0
    model[...] = 99.0
    model[0, 0] = -1.0
    assert_equal_to_model(x, model)
    assert_equal_to_model(y, expected_y)


@pytest.mark.parametrize(
    "operator",
    ["__iadd__", "__isub__", "__imul__", "__itruediv__", "__ipow__", "__ifloordiv__", "__imod__"],
)
def test_in_place_operator_changes_only_the_array_written(operator: str, device: ca.Device) -> None:
    x, model = _source(device)
    clone = ca.lazy_clone(x)
    view = x[1:]
    result = getattr(x, operator)(2.0)
    expected = getattr(model.copy(), operator)(2.0)
    assert result is x
    if operator == "__ipow__" and device.kind == "cuda":  # CUDA's pow: a few ulp
        np.testing.assert_allclose(to_numpy(x), expected, rtol=1e-15, atol=0)
    else:
        assert_equal_to_model(x, expected)
    assert_equal_to_model(clone, model)
    assert_equal_to_model(view, model[1:])


def test_asarray_of_an_array_is_the_same_object() -> None:
    x = ca.arange(3)
    assert ca.asarray(x) is x
    assert ca.asarray(x, copy=False) is x
    assert ca.asarray(x, dtype=ca.int64, device="cpu") is x
    assert ca.asarray(x, copy=True) is not x


def test_asarray_copies_numpy_input_unless_copy_false() -> None:
    source = np.arange(4.0)
    x = ca.asarray(source)
    source[0] = 100.0
    assert to_numpy(x)[0] == 0.0
    aliased = ca.asarray(source, copy=False)
    assert ca.cow_info(aliased).state == "foreign"
    source[1] = 50.0
    assert to_numpy(aliased)[1] == 50.0


def test_clone_of_foreign_array_is_an_eager_copy() -> None:
    source = np.arange(4.0)
    aliased = ca.asarray(source, copy=False)
    clone = ca.lazy_clone(aliased)
    assert not ca.shares_buffer(aliased, clone)
    source[0] = -1.0
    assert to_numpy(clone)[0] == 0.0


def test_read_only_foreign_memory_is_never_written(copies: Any) -> None:
    source = np.arange(4.0)
    source.flags.writeable = False
    x = ca.asarray(source, copy=False)
    x[0] = 9.0
    assert source[0] == 0.0
    assert to_numpy(x)[0] == 9.0
    assert copies.copies == 1


# -- rule 2: lazy copies are O(1) -------------------------------------------------


def test_hundred_lazy_clones_of_a_large_array_allocate_almost_nothing() -> None:
    x = ca.zeros(10_000_000, dtype=ca.float64)  # 80 MB
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        clones = [ca.lazy_clone(x) for _ in range(100)]
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert len(clones) == 100
    assert after - before < 1 << 20


# -- rule 3: materialization on write -------------------------------------------------


def test_sole_owner_writes_without_copying(copies: Any) -> None:
    x = ca.zeros(1000)
    before = ca.cow_info(x).buffer_id
    x[3] = 1.0
    x[10:20] = 2.0
    assert ca.cow_info(x).buffer_id == before
    x += 1.0  # small: computed beside the old value (an error would leave it)
    assert copies.copies == 0
    big = ca.zeros(IN_PLACE_MIN_SIZE)
    before = ca.cow_info(big).buffer_id
    big += 1.0  # big, and no error could surface after the loop: in place
    big *= 3
    assert ca.cow_info(big).buffer_id == before
    assert copies.copies == 0
    with np.errstate(over="raise"):
        big *= 2.0  # an error could: beside the old value, still no copy
    assert copies.copies == 0
    assert float(big[0]) == 6.0


def test_element_writes_of_a_private_2d_array_copy_nothing_and_leave_clones(
    copies: Any,
) -> None:
    # x[i, j] = v skips the core once it has shown x private (as x[i] = v
    # does): the model with eager copies must still hold, clones included.
    x = ca.zeros((4, 5))
    model = np.zeros((4, 5))
    before = ca.cow_info(x).buffer_id
    for i, j, v in [(0, 0, 1.0), (3, 4, 2.0), (-1, 0, 3.0), (2, -2, 4.0)]:
        x[i, j] = v
        model[i, j] = v
    assert_equal_to_model(x, model)
    assert ca.cow_info(x).buffer_id == before
    assert copies.copies == 0
    kept = ca.lazy_clone(x)
    kept_model = model.copy()
    x[1, 1] = 5.0  # shared now: this write copies, the clone keeps its values
    model[1, 1] = 5.0
    x[1, 2] = 6.0  # private again: in place
    model[1, 2] = 6.0
    assert_equal_to_model(x, model)
    assert_equal_to_model(kept, kept_model)
    assert copies.copies == 1
    with pytest.raises(IndexError, match="out of"):
        x[4, 0] = 7.0
    assert_equal_to_model(x, model)


def test_last_holder_takes_the_buffer(copies: Any) -> None:
    x = ca.zeros(1000)
    y = ca.lazy_clone(x)
    before = ca.cow_info(x).buffer_id
    assert ca.cow_info(x).holders == 2
    del y
    x[0] = 1.0
    assert copies.copies == 0
    assert ca.cow_info(x).buffer_id == before


def test_write_to_small_slice_of_large_shared_buffer_copies_only_the_slice(copies: Any) -> None:
    x = ca.zeros(1_000_000)
    window = x[500:510]
    window[0] = 1.0
    assert copies.copies == 1
    assert copies.bytes_copied == 10 * 8
    assert to_numpy(x)[500] == 0.0


def test_writer_stops_counting_as_holder_after_copying() -> None:
    x = ca.zeros(10)
    y = ca.lazy_clone(x)
    y[0] = 1.0
    assert ca.cow_info(x).holders == 1
    assert ca.cow_info(x).state == "private"
    assert not ca.shares_buffer(x, y)


def test_broadcast_view_is_expanded_before_a_write(copies: Any) -> None:
    row = ca.asarray([1.0, 2.0, 3.0])
    grid = ca.broadcast_to(row, (2, 3))
    del row
    grid[0, 0] = 100.0
    assert_equal_to_model(grid, np.array([[100.0, 2, 3], [1, 2, 3]]))
    assert copies.copies == 1


@pytest.mark.parametrize(
    ("key", "value", "error"),
    [
        (10, 1.0, IndexError),
        ((0, 0), 1.0, IndexError),
        (1.5, 1.0, IndexError),
        ((0, 5), 1.0, IndexError),
        (0, "text", TypeError),
        (0, 1.5 + 2j, TypeError),
        (slice(None), np.ones(3), ValueError),
    ],
)
def test_failed_write_changes_nothing(
    key: Any, value: Any, error: type[Exception], copies: Any
) -> None:
    for state in ("fresh", "written in place once", "shared"):
        x = ca.asarray([1.0, 2.0, 3.0, 4.0])
        if state == "written in place once":
            x[0] = 1.0  # later scalar writes skip the core: they must fail as cleanly
        clone = ca.lazy_clone(x) if state == "shared" else None
        info = ca.cow_info(x)
        with pytest.raises(error):
            x[key] = value
        assert_equal_to_model(x, np.array([1.0, 2.0, 3.0, 4.0]))
        assert ca.cow_info(x) == info
        if clone is not None:
            assert ca.shares_buffer(x, clone)
    assert copies.copies == 0


def test_lossy_write_into_integer_array_is_refused() -> None:
    x = ca.asarray([1, 2, 3])
    with pytest.raises(TypeError, match="int64"):
        x[0] = 1.5
    with pytest.raises(TypeError, match="float64"):
        x[:] = ca.asarray([1.0, 2.0, 3.0])
    assert_equal_to_model(x, np.array([1, 2, 3]))


def test_in_place_operator_that_would_change_dtype_is_refused() -> None:
    x = ca.asarray([1, 2, 3])
    with pytest.raises(TypeError, match="in-place"):
        x /= 2
    with pytest.raises(TypeError):
        x += 1.5
    assert_equal_to_model(x, np.array([1, 2, 3]))


def test_in_place_operator_that_would_change_shape_is_refused() -> None:
    x = ca.ones(3)
    with pytest.raises(ValueError, match="shape"):
        x += ca.ones((2, 3))
    assert_equal_to_model(x, np.ones(3))


# -- rule 4: read-only export to NumPy ------------------------------------------------


def test_numpy_view_of_a_private_array_is_a_zero_copy_writable_alias(copies: Any) -> None:
    x = ca.arange(5.0)
    view = np.asarray(x)
    assert view.flags.writeable
    assert copies.copies == 0
    assert (ca.cow_info(x).holders, ca.cow_info(x).state) == (1, "exposed")
    view[0] = 10.0  # as tensor.numpy(): the consumer and x alias
    x[1] = 20.0
    assert to_numpy(x).tolist()[:2] == [10.0, 20.0] == view.tolist()[:2]


def test_numpy_export_of_a_shared_array_copies_so_other_values_keep_theirs(
    copies: Any,
) -> None:
    x = ca.arange(5.0)
    clone = ca.lazy_clone(x)
    window = x[1:3]
    view = np.asarray(x)
    assert copies.copies == 1
    view[:] = -1.0
    assert to_numpy(x).tolist() == [-1.0] * 5
    assert to_numpy(clone).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert to_numpy(window).tolist() == [1.0, 2.0]


def test_numpy_views_derived_from_the_export_keep_the_memory_exposed() -> None:
    x = ca.arange(5.0)
    derived = np.asarray(x)[1:]
    clone = ca.lazy_clone(x)  # exposed memory: an eager copy
    derived[0] = 100.0  # NumPy's derived view points at the root: it still aliases x
    assert to_numpy(x)[1] == 100.0
    assert to_numpy(clone)[1] == 1.0


def test_numpy_export_ends_when_its_last_view_is_collected(copies: Any) -> None:
    x = ca.arange(5.0)
    view = np.asarray(x)[2:]
    assert ca.cow_info(x).state == "exposed"
    del view
    gc.collect()
    assert (ca.cow_info(x).holders, ca.cow_info(x).state) == (1, "private")
    clone = ca.lazy_clone(x)
    assert ca.shares_buffer(x, clone) and copies.copies == 0


def test_numpy_export_copy_false_refuses_a_copy_and_changes_nothing() -> None:
    x = ca.arange(3.0)
    clone = ca.lazy_clone(x)
    with pytest.raises(ValueError, match=r"copy=False.*other holders"):
        np.asarray(x, copy=False)
    assert ca.shares_buffer(x, clone) and ca.cow_info(x).state == "shared"


def test_numpy_copy_true_is_fresh_and_writable(copies: Any) -> None:
    x = ca.arange(3.0)
    fresh = np.asarray(x, copy=True) if np.lib.NumpyVersion(np.__version__) >= "2.0.0" else None
    assert fresh is not None and fresh.flags.writeable
    fresh[0] = 5.0
    assert to_numpy(x)[0] == 0.0
    assert ca.cow_info(x).holders == 1


def test_numpy_export_with_other_dtype_converts() -> None:
    x = ca.asarray([1, 2])
    converted = x.__array__(dtype=np.float32)
    assert converted.dtype == np.float32
    np.testing.assert_array_equal(converted, [1.0, 2.0])


def test_numpy_export_given_back_to_asarray_does_not_alias() -> None:
    x = ca.arange(3.0)
    with pytest.raises(ValueError, match="inside a cowarray buffer"):
        ca.asarray(np.asarray(x), copy=False)
    back = ca.asarray(np.asarray(x))
    back[0] = 7.0
    assert to_numpy(x)[0] == 0.0
    x[1] = 8.0
    assert to_numpy(back)[1] == 1.0


def test_numpy_functions_return_cowarray_values() -> None:
    x = ca.arange(3.0)
    assert type(np.add(x, 1.0)) is ca.Array
    assert type(np.ones(3) + x) is ca.Array
    assert to_numpy(np.ones(3) + x).tolist() == [1.0, 2.0, 3.0]


# -- rule 7: threads -------------------------------------------------------------------


def test_eight_threads_writing_clones_of_one_buffer_get_exact_values() -> None:
    source = ca.arange(10_000.0)
    clones = [ca.lazy_clone(source) for _ in range(8)]
    barrier = threading.Barrier(8)
    errors: list[BaseException] = []

    def work(index: int) -> None:
        try:
            barrier.wait()
            mine = clones[index]
            for step in range(200):
                mine[step % 100] = float(index * 1000 + step)
                if step % 50 == 0:
                    gc.collect()
                extra = ca.lazy_clone(mine)  # share and drop under pressure
                del extra
        except BaseException as error:  # surfaced below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    expected_source = np.arange(10_000.0)
    assert_equal_to_model(source, expected_source)
    for index, clone in enumerate(clones):
        expected = expected_source.copy()
        for step in range(200):
            expected[step % 100] = float(index * 1000 + step)
        assert_equal_to_model(clone, expected)


def test_holder_counts_are_exact_after_concurrent_clones_and_deletes() -> None:
    x = ca.zeros(100)

    def churn() -> None:
        for _ in range(2000):
            clone = ca.lazy_clone(x)
            view = clone[1:]
            del clone, view

    threads = [threading.Thread(target=churn) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert ca.cow_info(x).holders == 1


# -- rule 9: seeing it ---------------------------------------------------------------


def test_cow_info_reports_holders_state_sizes_and_stable_id() -> None:
    x = ca.zeros(1000)
    assert ca.cow_info(x).state == "private"
    view = x[:10]
    info = ca.cow_info(view)
    assert (info.holders, info.state, info.nbytes, info.view_nbytes) == (2, "shared", 8000, 80)
    assert info.buffer_id == ca.cow_info(x).buffer_id
    view[0] = 1.0
    assert ca.cow_info(view).buffer_id != info.buffer_id
    assert ca.cow_info(x).buffer_id == info.buffer_id


def test_buffer_ids_are_never_reused() -> None:
    seen = set()
    for _ in range(200):
        x = ca.zeros(4)
        ident = ca.cow_info(x).buffer_id
        assert ident not in seen
        seen.add(ident)
        del x


def test_shares_buffer_is_false_for_independent_arrays() -> None:
    x = ca.arange(4)
    assert not ca.shares_buffer(x, ca.arange(4))
    assert not ca.shares_buffer(x, x + 0)
    assert ca.shares_buffer(x, x[::2])


# -- the Array object ------------------------------------------------------------


def test_array_cannot_be_constructed_directly() -> None:
    with pytest.raises(TypeError, match="asarray"):
        ca.Array([1, 2])


def test_repr_looks_like_numpy_and_never_copies(copies: Any) -> None:
    x = ca.asarray([1.0, 2.0])
    y = ca.lazy_clone(x)
    assert repr(x) == "cowarray.Array([1., 2.], dtype=float64)"
    assert repr(ca.asarray([1, 2], device="cpu:1")) == (
        "cowarray.Array([1, 2], dtype=int64, device='cpu:1')"
    )
    assert ca.shares_buffer(x, y) and copies.copies == 0


@pytest.mark.parametrize(
    ("convert", "value", "expected"),
    [(bool, 1.0, True), (int, 2.7, 2), (float, 3, 3.0), (complex, 1.5, 1.5 + 0j)],
)
def test_python_scalar_conversions_work_on_0d_arrays(
    convert: Any, value: Any, expected: Any
) -> None:
    assert convert(ca.asarray(value)) == expected


@pytest.mark.parametrize("convert", [bool, int, float, complex])
def test_python_scalar_conversions_refuse_arrays_with_dimensions(convert: Any) -> None:
    with pytest.raises(TypeError, match="0-dimensional"):
        convert(ca.asarray([1.0]))


def test_index_protocol_accepts_only_integer_0d_arrays() -> None:
    assert [10, 20, 30][ca.asarray(1)] == 20
    with pytest.raises(TypeError):
        [10, 20][ca.asarray(1.0)]


def test_len_and_iteration_walk_the_first_axis() -> None:
    x = ca.reshape(ca.arange(6), (3, 2))
    assert len(x) == 3
    rows = list(x)
    assert len(rows) == 3
    assert_equal_to_model(rows[1], np.array([2, 3]))
    with pytest.raises(TypeError):
        len(ca.asarray(1))


def test_arrays_are_unhashable() -> None:
    with pytest.raises(TypeError):
        hash(ca.arange(2))


def test_pickle_round_trip_gives_an_equal_independent_value() -> None:
    x = ca.reshape(ca.arange(6.0), (2, 3)).T
    y = pickle.loads(pickle.dumps(x))
    assert_equal_to_model(y, to_numpy(x))
    assert not ca.shares_buffer(x, y)
    z = pickle.loads(pickle.dumps(ca.asarray([1, 2], device="cpu:1")))
    assert z.device == ca.Device("cpu:1")


def test_array_namespace_is_cowarray() -> None:
    x = ca.arange(2)
    assert x.__array_namespace__() is ca
    assert x.__array_namespace__(api_version="2025.12") is ca
    with pytest.raises(ValueError, match="api_version"):
        x.__array_namespace__(api_version="1999.01")


def test_devices_must_match() -> None:
    x = ca.arange(3)
    y = ca.arange(3, device="cpu:1")
    with pytest.raises(ValueError, match="different devices"):
        x + y
    with pytest.raises(ValueError, match="cpu:1"):
        x[...] = y
    moved = y.to_device("cpu")
    assert moved.device == ca.Device("cpu")
    assert_equal_to_model(x + moved, np.array([0, 2, 4]))


def test_to_device_between_simulated_devices_is_lazy(copies: Any) -> None:
    x = ca.arange(1000.0)
    y = x.to_device("cpu:1")
    assert ca.shares_buffer(x, y) and copies.copies == 0
    y[0] = 5.0
    assert to_numpy(x)[0] == 0.0


def test_import_cowarray_imports_neither_cupy_nor_torch() -> None:
    code = (
        "import sys, cowarray\n"
        "x = cowarray.arange(3) + 1\n"
        "bad = [m for m in ('cupy', 'torch') if m in sys.modules]\n"
        "print(bad)\n"
        "raise SystemExit(1 if bad else 0)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_importing_the_same_numpy_memory_twice_never_gives_two_aliases() -> None:
    source = np.arange(4.0)
    first = ca.asarray(source, copy=False)
    with pytest.raises(ValueError, match="second zero-copy alias"):
        ca.asarray(source, copy=False)
    second = ca.from_dlpack(source)  # copy=None: a copy, not a second alias
    second[0] = -1.0
    assert to_numpy(first)[0] == 0.0
    exported = ca.arange(3.0)
    consumer = np.from_dlpack(exported)
    with pytest.raises(ValueError, match="second zero-copy alias"):
        ca.asarray(consumer, copy=False)


def test_empty_list_index_selects_nothing() -> None:
    x = ca.arange(5.0)
    assert x[[]].shape == (0,)
    x[[]] = 1.0
    assert_equal_to_model(x, np.arange(5.0))
    integers = ca.asarray([1, 2])
    integers[[]] = []  # an empty list has no values to lose: no dtype complaint
    assert_equal_to_model(integers, np.array([1, 2]))


def test_a_release_during_a_locked_section_does_not_deadlock() -> None:
    # A garbage collection inside any locked section of the core may end a
    # DLPack exposure on the same thread; its release must not wait forever.
    x = ca.zeros(3)
    buf = write.expose(x, copy_allowed=True)()
    finished = threading.Event()

    def collect_inside_the_lock() -> None:
        with cow.LOCK:
            buf.release()
        finished.set()

    worker = threading.Thread(target=collect_inside_the_lock, daemon=True)
    worker.start()
    assert finished.wait(timeout=5.0)
    assert ca.cow_info(x).state != "exposed"


def test_eager_copies_of_foreign_memory_are_counted_and_traced(copies: Any) -> None:
    source = np.arange(1000.0)
    foreign = ca.asarray(source, copy=False)
    with ca.trace() as recorded:
        clone = ca.lazy_clone(foreign)
        window = foreign[10:20]
    assert copies.copies == 2
    assert copies.bytes_copied == 8000 + 80
    assert recorded.copies == 2 and recorded.bytes_copied == 8080
    assert not ca.shares_buffer(foreign, clone) and not ca.shares_buffer(foreign, window)
