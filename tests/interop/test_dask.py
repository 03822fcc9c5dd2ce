"""cowarray.dask: the same Dask graph on cowarray chunks and on NumPy chunks.

Every graph is built twice, on a dask array of cowarray chunks and on one of
NumPy chunks, and must give NumPy's values in cowarray chunks (``_meta``,
every computed block and the result). Then the values: ``to_dask`` and
``from_dask`` never let a dask array and a cowarray value see each other's
writes. The last tests run on a real ``distributed.LocalCluster`` of two
worker processes on 127.0.0.1.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
import types
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import cowarray as ca
from cowarray.testing import to_numpy

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
from cowarray.dask import from_dask, to_dask  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VALUES = np.random.default_rng(13).uniform(0.5, 1.5, size=(12, 10))
CHUNKS = (5, 4)  # uneven edge chunks on both axes


Graph = Callable[[Any, Any], Any]  # (dask array, its chunks' namespace) -> dask array

#: One graph per behaviour; ``xp`` is cowarray or NumPy, for map_blocks.
GRAPHS: dict[str, Graph] = {
    "sum": lambda d, xp: d.sum(),
    "sum over axis 0, keepdims": lambda d, xp: d.sum(axis=0, keepdims=True),
    "mean": lambda d, xp: d.mean(),
    "mean over axis 1": lambda d, xp: d.mean(axis=1),
    "std": lambda d, xp: d.std(),
    "std over axis 0, ddof=1": lambda d, xp: d.std(axis=0, ddof=1),
    "var over axis 1": lambda d, xp: d.var(axis=1),
    "min": lambda d, xp: d.min(),
    "max over axis 0": lambda d, xp: d.max(axis=0),
    "prod over axis 1": lambda d, xp: d.prod(axis=1),
    "any": lambda d, xp: (d > 1.4).any(),
    "all over axis 0": lambda d, xp: (d > 0.6).all(axis=0),
    "cumsum over axis 0": lambda d, xp: d.cumsum(axis=0),
    "cumsum flat": lambda d, xp: d.cumsum(axis=None),
    "nanmean": lambda d, xp: da.nanmean(da.where(d > 1.3, np.nan, d), axis=0),
    "nanstd": lambda d, xp: da.nanstd(da.where(d > 1.3, np.nan, d)),
    "percentile": lambda d, xp: da.percentile(d.ravel(), [10, 50, 90]),
    "d + 1": lambda d, xp: d + 1,
    "d * d": lambda d, xp: d * d,
    "np.sin(d)": lambda d, xp: np.sin(d),
    "da.exp(d)": lambda d, xp: da.exp(d),
    "da.where": lambda d, xp: da.where(d > 1.0, d, 0.0),
    "d[1:5, ::2]": lambda d, xp: d[1:5, ::2],
    "d[[0, 3, 11]]": lambda d, xp: d[[0, 3, 11]],
    "d[d > 1] (boolean mask)": lambda d, xp: d[d > 1.0],
    "d @ d.T": lambda d, xp: d @ d.T,
    "tensordot": lambda d, xp: da.tensordot(d, d, axes=((1,), (1,))),
    "einsum": lambda d, xp: da.einsum("ij,ij->j", d, d),
    "map_blocks": lambda d, xp: d.map_blocks(xp.sin),
    "concatenate": lambda d, xp: da.concatenate([d, d[:, :3]], axis=1),
    "concatenate, mixed dtypes": lambda d, xp: da.concatenate([d, (d * 10).astype("int64")]),
    "stack": lambda d, xp: da.stack([d, d + 1]),
    "rechunk": lambda d, xp: d.rechunk((3, 10)),
    "d.T": lambda d, xp: d.T,
    "reshape, merging axes": lambda d, xp: d.reshape(120),
    "reshape, splitting an axis": lambda d, xp: d.rechunk((6, 10)).reshape(2, 6, 10),
    "argmin": lambda d, xp: d.argmin(),
    "argmax over axis 0": lambda d, xp: d.argmax(axis=0),
}
#: Graphs whose ``_meta`` Dask builds without the chunks (it assumes NumPy),
#: though the chunks it computes are cowarray Arrays.
META_FROM_NUMPY = {"d[d > 1] (boolean mask)": "slice_with_bool_dask_array passes no meta"}


def _cases() -> list[Any]:
    return [pytest.param(name, id=name) for name in GRAPHS]


def _host(value: Any) -> Any:
    return to_numpy(value) if type(value) is ca.Array else np.asarray(value)


@pytest.fixture(scope="module")
def x() -> ca.Array:
    return ca.asarray(VALUES)


@pytest.mark.parametrize("name", _cases())
def test_graph_gives_numpys_values_in_cowarray_chunks(name: str, x: ca.Array) -> None:
    build = GRAPHS[name]
    got = build(to_dask(x, chunks=CHUNKS), ca)
    want = build(da.from_array(VALUES, chunks=CHUNKS), np).compute(scheduler="threads")
    if name not in META_FROM_NUMPY:
        assert type(got._meta) is ca.Array
        assert got._meta.ndim == got.ndim  # 0-size, or 0-d as Dask makes a 0-d meta
        assert got._meta.size == 0 or got.ndim == 0
    blocks = dask.compute(*got.to_delayed().ravel(), scheduler="threads")
    assert {type(block) for block in blocks} == {ca.Array}
    result = got.compute(scheduler="threads")
    assert type(result) is ca.Array
    np.testing.assert_allclose(_host(result), want, rtol=1e-12)
    np.testing.assert_array_equal(from_dask(got), result)


SOME_GRAPHS = ["sum over axis 0, keepdims", "std", "np.sin(d)", "d @ d.T", "concatenate", "rechunk"]


@pytest.mark.parametrize("name", SOME_GRAPHS)
def test_chunks_and_meta_stay_on_the_arrays_device(name: str, device: ca.Device) -> None:
    x = ca.asarray(VALUES, device=device)
    got = GRAPHS[name](to_dask(x, chunks=CHUNKS), ca)
    assert got._meta.device == device
    result = from_dask(got)
    assert result.device == device
    want = GRAPHS[name](da.from_array(VALUES, chunks=CHUNKS), np).compute()
    np.testing.assert_allclose(to_numpy(result), want, rtol=1e-12)


def test_meta_is_an_empty_cowarray_array_of_the_dtype(device: ca.Device) -> None:
    x = ca.ones((4, 6), dtype=ca.int32, device=device)
    meta = to_dask(x, chunks=2)._meta
    assert type(meta) is ca.Array
    assert (meta.shape, meta.dtype, meta.device) == ((0, 0), ca.int32, device)
    assert not ca.shares_buffer(meta, x)  # the meta holds none of x's memory


def test_dask_and_cowarray_operands_mix(x: ca.Array) -> None:
    d = to_dask(x, chunks=CHUNKS)
    for mixed in (d + x, x + d, np.concatenate([d, x])):
        assert isinstance(mixed, da.Array)
        assert type(mixed.compute()) is ca.Array
    np.testing.assert_allclose(to_numpy((x * d).compute()), VALUES * VALUES)


# -- values -------------------------------------------------------------------


def test_to_dask_chunks_share_x_buffer(copies: Any) -> None:
    x = ca.asarray(VALUES)
    copies.reset()  # asarray copied the NumPy array (counted): count from here
    d = to_dask(x, chunks=CHUNKS)
    block = d.blocks[1, 2].compute(scheduler="sync")
    assert ca.shares_buffer(block, x)
    assert copies.copies == 0
    np.testing.assert_array_equal(to_numpy(block), VALUES[5:10, 8:10])


def test_write_to_x_after_to_dask_leaves_the_dask_array_unchanged() -> None:
    x = ca.asarray(VALUES)
    d = to_dask(x, chunks=CHUNKS)
    x[...] = -1.0
    x[0, 0] = 100.0
    np.testing.assert_array_equal(to_numpy(from_dask(d)), VALUES)
    assert float(d.sum().compute()) == pytest.approx(VALUES.sum())


def test_write_to_the_result_leaves_x_unchanged() -> None:
    x = ca.asarray(VALUES)
    one_chunk = from_dask(to_dask(x, chunks=x.shape))
    assert ca.shares_buffer(one_chunk, x)  # a single chunk is not copied
    many = from_dask(to_dask(x, chunks=CHUNKS))
    for result in (one_chunk, many):
        result[0, :] = -7.0
    np.testing.assert_array_equal(to_numpy(x), VALUES)


def test_a_block_function_that_writes_its_block_changes_no_other_value() -> None:
    def bump(block: ca.Array) -> ca.Array:
        block += 1.0  # in place, on a lazy clone of a region of x: it copies first
        return block

    x = ca.asarray(VALUES)
    d = to_dask(x, chunks=CHUNKS)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ca.ViewWriteWarning)  # a chunk is no view to write through
        bumped = from_dask(d.map_blocks(bump), scheduler="sync")  # warnings: one thread
    np.testing.assert_allclose(to_numpy(bumped), VALUES + 1.0)
    np.testing.assert_allclose(to_numpy(from_dask(d.map_blocks(bump))), VALUES + 1.0)
    np.testing.assert_array_equal(to_numpy(x), VALUES)
    np.testing.assert_array_equal(to_numpy(from_dask(d)), VALUES)


def test_from_dask_of_a_persisted_array_is_a_new_value() -> None:
    kept = to_dask(ca.asarray(VALUES), chunks=(12, 10)).persist(scheduler="threads")
    first = from_dask(kept)
    first[...] = 0.0
    np.testing.assert_array_equal(to_numpy(from_dask(kept)), VALUES)
    np.testing.assert_array_equal(to_numpy(kept.compute()), VALUES)


def test_from_dask_joins_chunks_of_sizes_dask_does_not_know() -> None:
    d = to_dask(ca.asarray(VALUES), chunks=CHUNKS)
    masked = d[d > 1.0]
    assert np.isnan(masked.shape[0])
    np.testing.assert_array_equal(to_numpy(from_dask(masked)), VALUES[VALUES > 1.0])


def test_from_dask_of_an_empty_or_0d_array() -> None:
    empty = from_dask(to_dask(ca.zeros((0, 3)), chunks=2))
    assert (empty.shape, empty.dtype) == ((0, 3), ca.float64)
    scalar = from_dask(to_dask(ca.asarray(VALUES), chunks=CHUNKS).sum())
    assert scalar.shape == () and float(scalar) == pytest.approx(VALUES.sum())


def test_to_dask_takes_a_name_and_dask_chunks() -> None:
    d = to_dask(ca.asarray(VALUES), chunks=((6, 6), (10,)), name="mine")
    assert d.name == "mine"
    assert d.chunks == ((6, 6), (10,))
    assert to_dask(ca.asarray(VALUES)).name != to_dask(ca.asarray(VALUES)).name


# -- conversions and errors -----------------------------------------------------


def test_from_dask_refuses_numpy_chunks_and_says_how_to_convert() -> None:
    numpy_chunks = da.from_array(VALUES, chunks=CHUNKS)
    with pytest.raises(TypeError, match=r"d\.map_blocks\(cowarray\.asarray\)"):
        from_dask(numpy_chunks)
    converted = from_dask(numpy_chunks.map_blocks(ca.asarray))
    np.testing.assert_array_equal(to_numpy(converted), VALUES)
    with pytest.raises(TypeError, match=r"dask\.array\.Array"):
        from_dask(ca.asarray(VALUES))


def test_to_dask_refuses_numpy_arrays() -> None:
    with pytest.raises(TypeError, match=r"cowarray\.asarray"):
        to_dask(VALUES)  # type: ignore[arg-type]


def test_to_backend_numpy_gives_copies_and_cowarray_converts_back() -> None:
    x = ca.asarray(VALUES)
    as_numpy = to_dask(x, chunks=CHUNKS).to_backend("numpy")
    blocks = dask.compute(*as_numpy.to_delayed().ravel())
    assert {type(block) for block in blocks} == {np.ndarray}
    blocks[0][...] = -1.0  # a copy: x keeps its values
    np.testing.assert_array_equal(to_numpy(x), VALUES)
    back = da.from_array(VALUES, chunks=CHUNKS).to_backend("cowarray")
    assert type(back._meta) is ca.Array
    np.testing.assert_array_equal(to_numpy(from_dask(back)), VALUES)


def test_the_cowarray_backend_makes_cowarray_chunks() -> None:
    with dask.config.set({"array.backend": "cowarray"}):
        made = [da.ones((4, 6), chunks=2), da.zeros(5, chunks=2), da.full((3,), 2.5, chunks=2)]
        made.append(da.arange(7, chunks=3))
    for d in made:
        assert type(d._meta) is ca.Array
        assert type(d.compute()) is ca.Array
    assert float(from_dask(made[0].sum())) == 24.0


def test_the_backend_is_found_by_name_before_cowarray_is_imported() -> None:
    from importlib.metadata import entry_points

    if "cowarray" not in entry_points(group="dask.array.backends").names:
        pytest.skip("cowarray is not pip-installed here: the entry point is in its metadata")
    code = (
        "import sys, dask, dask.array as da;"
        "dask.config.set({'array.backend': 'cowarray'});"
        "print(type(da.ones((4, 4), chunks=2).compute()).__name__, 'cowarray' in sys.modules)"
    )
    assert _python(code) == "Array True"


def test_to_backend_cupy_copies_a_host_chunk(monkeypatch: pytest.MonkeyPatch) -> None:
    from dask.array.dispatch import to_cupy_dispatch

    # CuPy's two entry points, computing on the host: what matters is what they get
    fake = types.SimpleNamespace(asarray=lambda a: a, from_dlpack=np.from_dlpack)
    monkeypatch.setitem(sys.modules, "cupy", fake)
    x = ca.asarray(VALUES)
    converted = to_cupy_dispatch(x)
    converted[...] = 0.0
    np.testing.assert_array_equal(to_numpy(x), VALUES)
    assert ca.cow_info(x).state == "private"


def test_sizeof_counts_the_bytes_of_a_chunk() -> None:
    from dask.sizeof import sizeof

    assert sizeof(ca.ones((100, 10))) == 8000


def test_missing_dask_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "dask", None)  # "import dask" now fails
    monkeypatch.delitem(sys.modules, "cowarray.dask")
    with pytest.raises(ImportError, match=r'pip install "dask\[array\]') as raised:
        import cowarray.dask  # noqa: F401
    assert 'pip install -e ".[dask]"' in str(raised.value)


# -- registration without importing cowarray.dask ---------------------------------


def _python(code: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", code],
        env=dict(os.environ, PYTHONPATH=ROOT),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


REGISTERED = (
    "from dask.array.chunk_types import is_valid_chunk_type;"
    "print(is_valid_chunk_type(cowarray.Array), 'cowarray.dask' in sys.modules,"
    " type(dask.array.__loader__).__name__ == 'SourceFileLoader')"
)


@pytest.mark.parametrize("first", ["cowarray", "dask.array"])
def test_the_hooks_register_whichever_is_imported_first(first: str) -> None:
    second = "dask.array" if first == "cowarray" else "cowarray"
    code = (
        f"import sys, {first}; from cowarray._dask_hook import watch_for_dask;"
        f"watch_for_dask(); import {second}; import dask.array, cowarray;"
        "assert not any(type(f).__name__ == '_DaskArrayFinder' for f in sys.meta_path);"
        + REGISTERED
    )
    assert _python(code) == "True True True"


def test_import_cowarray_does_not_import_dask() -> None:
    code = "import sys, cowarray; print(any(m.split('.')[0] == 'dask' for m in sys.modules))"
    assert _python(code) == "False"


def _init_watches_for_dask() -> bool:
    code = (
        "import sys, cowarray;"
        "print(any(type(f).__name__ == '_DaskArrayFinder' for f in sys.meta_path))"
    )
    return _python(code) == "True"


def test_import_cowarray_alone_registers_when_dask_array_arrives() -> None:
    assert _init_watches_for_dask()
    assert _python("import sys, cowarray, dask.array;" + REGISTERED) == "True True True"


# -- a real distributed cluster ------------------------------------------------------


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    distributed = pytest.importorskip("distributed")
    try:
        cluster = distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            memory_limit="1GiB",
            silence_logs=logging.ERROR,
        )
    except Exception as error:  # no sockets, no processes: say so instead of failing
        pytest.skip(f"distributed.LocalCluster could not start here: {error!r}")
    try:
        with distributed.Client(cluster, set_as_default=False, timeout="20s") as connected:
            yield connected
    finally:
        cluster.close(timeout=20)


def _within(seconds: float, work: Callable[[], Any]) -> Any:
    """``work()``, failing the test (not hanging it) if it takes longer than ``seconds``."""
    outcome: list[tuple[bool, Any]] = []

    def run() -> None:
        try:
            outcome.append((True, work()))
        except BaseException as error:  # re-raised on the test's thread
            outcome.append((False, error))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if not outcome:
        pytest.fail(f"the cluster did not answer within {seconds} s")
    finished, value = outcome[0]
    if not finished:
        raise value
    return value


CLUSTER_GRAPHS = ["sum over axis 0, keepdims", "mean", "std", "np.sin(d)", "tensordot", "rechunk"]


def test_a_local_cluster_computes_cowarray_chunks(client: Any, x: ca.Array) -> None:
    for name in CLUSTER_GRAPHS:
        got = GRAPHS[name](to_dask(x, chunks=CHUNKS), ca)
        want = GRAPHS[name](da.from_array(VALUES, chunks=CHUNKS), np).compute()
        result = _within(30, lambda got=got: from_dask(got, scheduler=client))
        assert type(result) is ca.Array, name
        np.testing.assert_allclose(to_numpy(result), want, rtol=1e-12, err_msg=name)


def test_workers_compute_the_values_to_dask_took(client: Any) -> None:
    x = ca.asarray(VALUES)
    d = to_dask(x, chunks=CHUNKS)
    x[...] = 0.0  # after to_dask: the cluster still computes the old values
    total = _within(30, lambda: client.compute(d.sum()).result(timeout=30))
    assert type(total) is ca.Array
    assert float(total) == pytest.approx(VALUES.sum())


def test_workers_register_the_hooks_by_themselves(client: Any) -> None:
    d = to_dask(ca.asarray(VALUES), chunks=CHUNKS)
    _within(30, lambda: client.compute(da.tensordot(d, d, axes=((1,), (1,)))).result(timeout=30))
    seen = client.run(lambda: "cowarray.dask" in sys.modules)
    assert set(seen.values()) == {True}


def test_the_bridges_are_reachable_from_the_namespace() -> None:
    import cowarray.dask

    assert ca.to_dask is cowarray.dask.to_dask
    assert ca.from_dask is cowarray.dask.from_dask


def test_structured_results_are_refused_with_a_type_error() -> None:
    # Dask's arg reductions fall back to a dict on exactly this TypeError.
    with pytest.raises(TypeError, match="cannot hold"):
        np.empty_like(ca.zeros(3), dtype=[("vals", "f8"), ("arg", "i8")])


# -- opt_einsum, watched the same way (xarray's einsum and dot use it) -----------------


@pytest.mark.parametrize("first", ["cowarray", "opt_einsum"])
def test_opt_einsum_contracts_an_array_beside_numpy_as_numpy_does(first: str) -> None:
    # opt_einsum calls the functions of the first operand's module; cowarray's
    # take Arrays only, and xarray passes NumPy weights beside an Array.
    pytest.importorskip("opt_einsum")
    second = "opt_einsum" if first == "cowarray" else "cowarray"
    code = (
        f"import sys, {first}, {second}; import numpy as np, cowarray as ca, opt_einsum;"
        "a = np.arange(6.0).reshape(2, 3); w = np.asarray([1.0, 2.0, 0.5]);"
        "r = opt_einsum.contract('ij,j->i', ca.asarray(a), w);"
        "print(type(r).__name__, r.tolist() == np.einsum('ij,j->i', a, w).tolist(),"
        " any(type(f).__name__ == '_OptEinsumFinder' for f in sys.meta_path))"
    )
    assert _python(code) == "Array True False"
