"""to_torch / from_torch cost O(1): no copy when the array is the sole holder.

Prints, for 10^3, 10^6 and 10^8 float32 elements, the median time of one
to_torch and one from_torch (conversion plus release of the result) next to
torch.from_numpy on the same memory, and their ratios; torch's own DLPack
import of a NumPy array (torch.from_dlpack) is shown for context. Flat times
across sizes show that nothing is copied.

Run: ``python benchmarks/dlpack.py`` (cowarray and torch installed; from a
checkout, ``PYTHONPATH=. python benchmarks/dlpack.py``).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import numpy as np
import torch

import cowarray as ca
from cowarray import _cow
from cowarray.interop.torch import from_torch, to_torch

SIZES = (10**3, 10**6, 10**8)
REPEATS = 7
CALLS = 2000


def _per_call(function: Callable[[], object]) -> float:
    start = time.perf_counter()
    for _ in range(CALLS):
        function()  # the result is dropped at once: the release is timed too
    return (time.perf_counter() - start) / CALLS


def _medians(functions: dict[str, Callable[[], object]]) -> dict[str, float]:
    samples: dict[str, list[float]] = {name: [] for name in functions}
    for _ in range(REPEATS):  # interleaved, so drift hits every candidate alike
        for name, function in functions.items():
            samples[name].append(_per_call(function))
    return {name: statistics.median(times) for name, times in samples.items()}


def main() -> None:
    print(
        f"{'elements':>10} {'from_numpy':>11} {'from_dlpack':>12} {'to_torch':>10} "
        f"{'from_torch':>11}  ratios to torch.from_numpy"
    )
    for size in SIZES:
        x = ca.zeros(size, dtype=ca.float32)
        host = np.zeros(size, dtype=np.float32)
        tensor = torch.zeros(size, dtype=torch.float32)
        _cow.COUNTERS.reset()
        medians = _medians(
            {
                "from_numpy": lambda host=host: torch.from_numpy(host),
                "from_dlpack": lambda host=host: torch.from_dlpack(host),
                "to_torch": lambda x=x: to_torch(x),
                "from_torch": lambda tensor=tensor: from_torch(tensor),
            }
        )
        assert _cow.COUNTERS.copies == 0, "a sole holder must export without copying"
        base = medians["from_numpy"]
        print(
            f"{size:>10.0e} {base * 1e6:>9.2f}us {medians['from_dlpack'] * 1e6:>10.2f}us "
            f"{medians['to_torch'] * 1e6:>8.2f}us {medians['from_torch'] * 1e6:>9.2f}us  "
            f"to_torch {medians['to_torch'] / base:.1f}x, "
            f"from_torch {medians['from_torch'] / base:.1f}x"
        )
        del x, host, tensor


if __name__ == "__main__":
    main()
