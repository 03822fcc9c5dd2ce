"""What every GPU test module needs: skip without CuPy or a GPU, and a spin kernel.

Import it first thing in a module (``from _gpu import cupy, spin``): it skips
the whole module, with the reason, when CuPy or a CUDA GPU is missing.
"""

from __future__ import annotations

from typing import Any

import pytest

from cowarray.testing import available_devices

cupy: Any = pytest.importorskip(
    "cupy", reason='GPU tests need CuPy and a CUDA GPU (pip install -e ".[cuda12]" in this clone)'
)
if not any(device.kind == "cuda" for device in available_devices()):
    pytest.skip(
        "no CUDA GPU visible to CuPy (or COWARRAY_TEST_DEVICES excludes cuda:0)",
        allow_module_level=True,
    )

GPU = "cuda:0"

_SPIN_SOURCE = r"""
extern "C" __global__ void spin(unsigned long long nanoseconds) {
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < nanoseconds);
}
"""
_spin_kernel = cupy.RawKernel(_SPIN_SOURCE, "spin")


def spin(milliseconds: float = 50.0) -> None:
    """Keep the current stream busy for a while: later work on it waits."""
    _spin_kernel((1,), (1,), (cupy.uint64(int(milliseconds * 1e6)),))


def new_stream() -> Any:
    """A stream that does not synchronize with the legacy default stream."""
    return cupy.cuda.Stream(non_blocking=True)


def synchronize() -> None:
    cupy.cuda.Device(0).synchronize()
