"""Dask on cowarray chunks: a chunked reduction, values kept, and one array back.

Run it: ``python examples/dask_reduction.py`` (needs ``dask[array]``; add
``--cluster`` to compute on a two-process ``distributed.LocalCluster``).
docs/dask.md shows this file; tests/examples checks what it prints.
"""

from __future__ import annotations

import sys

import dask.array as da

import cowarray as ca
from cowarray.dask import from_dask, to_dask


def main(scheduler: object = "threads") -> None:
    # 4000 x 500 measurements, in 8 chunks of 500 rows: each chunk is an O(1) view
    x = ca.reshape(ca.arange(2_000_000, dtype=ca.float64), (4000, 500)) % 7.0
    d = to_dask(x, chunks=(500, 500))
    print("chunks:", d.numblocks, "| chunk type:", type(d._meta).__name__)

    # A graph of reductions and elementwise work, as on NumPy chunks
    standardized = (d - d.mean(axis=0)) / d.std(axis=0)
    peak = da.max(abs(standardized), axis=0)

    # x is a value: writing it now copies its buffer; the dask array keeps x's old values
    x[...] = 0.0
    result = from_dask(peak, scheduler=scheduler)
    print("result:", type(result).__name__, result.shape, result.dtype, result.device)
    print("peak of column 0:", round(float(result[0]), 6))

    # the result is a value too: writing it changes nothing Dask holds
    result[...] = -1.0
    again = from_dask(peak, scheduler=scheduler)
    print("computed again:", round(float(again[0]), 6))
    print("x after the write:", float(ca.max(x)))


if __name__ == "__main__":
    if "--cluster" in sys.argv:
        from distributed import Client, LocalCluster

        with (
            LocalCluster(
                n_workers=2,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address=None,
            ) as cluster,
            Client(cluster) as client,
        ):
            main(scheduler=client)
    else:
        main()
