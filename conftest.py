"""Collection: skip modules whose optional library is missing; the stand-in GPU run.

``pytest --doctest-modules`` imports every module of the package; those that
need torch, CuPy, einops, Dask or JAX for their examples are left out when it is missing,
so the suite passes (and says what it skipped) on a machine without them.

``COWARRAY_TEST_STAND_IN_GPU=1 python -m pytest`` runs only the tests
parametrized over a ``cuda:0`` device (and those marked ``every_device``, such
as the state machine, which then samples cuda:0 too), with the CuPy backend
computing through a NumPy stand-in for CuPy (``tests/backends/_stand_in.py``).
It is how a machine without a GPU checks the backend's API use and the GPU
parametrizations of the tests; it says nothing about streams or speed on a
real GPU.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

STAND_IN_GPU = os.environ.get("COWARRAY_TEST_STAND_IN_GPU") == "1"

collect_ignore: list[str] = []
if importlib.util.find_spec("torch") is None:
    collect_ignore.append("cowarray/interop/torch.py")
if importlib.util.find_spec("einops") is None:
    collect_ignore.append("cowarray/interop/einops.py")
if importlib.util.find_spec("dask") is None:
    collect_ignore.append("cowarray/dask.py")
if importlib.util.find_spec("cupy") is None:
    collect_ignore += ["cowarray/_backends/cupy.py", "cowarray/_backends/_cupy_namespace.py"]
if importlib.util.find_spec("jax") is None:
    # (their examples run JAX; tests/transforms skips itself without it)
    collect_ignore += [
        "cowarray/transforms.py",
        "cowarray/_transforms",
        "cowarray/_backends/jax.py",
    ]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Without JAX, the README's doctest (one item for the whole file) skips:
    its transforms block needs JAX. tests/docs/test_readme_blocks.py runs the
    other blocks alone there. (README.md is a test path, so collect_ignore
    does not apply to it.)"""
    if importlib.util.find_spec("jax") is not None:
        return
    for item in items:
        if item.nodeid == "README.md::README.md":
            item.add_marker(
                pytest.mark.skip(reason="the README's transforms block needs JAX (the test extra)")
            )


if STAND_IN_GPU:
    # the stand-in and the test helpers it uses (tests/ is on the path only once
    # tests/conftest.py loads, after this file)
    sys.path[:0] = [str(Path(__file__).parent / "tests" / part) for part in ("backends", "")]
    from _stand_in import serve_cuda_from_stand_in

    serve_cuda_from_stand_in()
    # GPU-only tests need a real GPU; tests/backends load the stand-in themselves.
    collect_ignore += ["tests/gpu", "tests/backends", "cowarray", "README.md"]


@pytest.fixture(autouse=True)
def _buffer_names_start_at_a() -> None:
    """Each test and doctest names buffers from ``A``, as a fresh interpreter would.

    Names (``cowarray.debug.buffer_name``) last for the process; without this,
    the letters a test or an example sees would depend on the tests before it.
    """
    from cowarray._observe import _reset_buffer_names

    _reset_buffer_names()
