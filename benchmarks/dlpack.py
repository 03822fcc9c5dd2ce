"""The torch bridge beside torch's and NumPy's own DLPack imports.

Prints, for float32 arrays of 10^3 to 10^8 elements, the median time of one
crossing each way, conversion plus release of the result (every result is
dropped at once, so the release is timed too):

* ``to_torch(x)`` beside ``torch.from_dlpack(ndarray)`` (target: at most 2x),
* ``from_torch(t)`` beside ``np.from_dlpack(tensor)`` (target: at most 2x),

with ``torch.from_numpy(ndarray)`` for context. The candidates are timed
interleaved, in one process, so drift hits them alike. Flat times across
sizes show that nothing is copied (the run also checks that the copy counter
stays at zero).

Run: ``python benchmarks/dlpack.py`` (cowarray and torch installed; from a
checkout, ``PYTHONPATH=. python benchmarks/dlpack.py``); ``--quick`` for
10^3 and 10^6 only. About 20 s on the 2-core development machine.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np
import torch

import cowarray as ca
from cowarray._core import cow
from cowarray.interop.torch import from_torch, to_torch

SIZES = (10**3, 10**4, 10**5, 10**6, 10**7, 10**8)
QUICK_SIZES = (10**3, 10**6)
REPEATS = 9
CALLS = 2000
TARGET = 2.0


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


def _verdict(ratio: float) -> str:
    return "met" if ratio <= TARGET else "missed"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10^3 and 10^6 elements only")
    sizes = QUICK_SIZES if parser.parse_args().quick else SIZES
    print(
        f"{'elements':>9} {'from_numpy':>10} | {'torch.from_dlpack':>17} {'to_torch':>9} "
        f"{'ratio':>6} | {'np.from_dlpack':>14} {'from_torch':>10} {'ratio':>6} "
        f"| target <= {TARGET:g}"
    )
    for size in sizes:
        x = ca.zeros(size, dtype=ca.float32)
        host = np.zeros(size, dtype=np.float32)
        tensor = torch.zeros(size, dtype=torch.float32)
        cow.COUNTERS.reset()
        medians = _medians(
            {
                "from_numpy": lambda host=host: torch.from_numpy(host),
                "torch_from_dlpack": lambda host=host: torch.from_dlpack(host),
                "to_torch": lambda x=x: to_torch(x),
                "np_from_dlpack": lambda tensor=tensor: np.from_dlpack(tensor),
                "from_torch": lambda tensor=tensor: from_torch(tensor),
            }
        )
        assert cow.COUNTERS.copies == 0, "a sole holder must cross without copying"
        export = medians["to_torch"] / medians["torch_from_dlpack"]
        import_ = medians["from_torch"] / medians["np_from_dlpack"]
        print(
            f"{size:>9.0e} {medians['from_numpy'] * 1e6:>8.2f}us | "
            f"{medians['torch_from_dlpack'] * 1e6:>15.2f}us {medians['to_torch'] * 1e6:>7.2f}us "
            f"{export:>6.2f} | {medians['np_from_dlpack'] * 1e6:>12.2f}us "
            f"{medians['from_torch'] * 1e6:>8.2f}us {import_:>6.2f} "
            f"| to_torch {_verdict(export)}, from_torch {_verdict(import_)}"
        )
        del x, host, tensor


if __name__ == "__main__":
    main()
