"""The ``linalg`` extension of the Array API standard.

Re-exports only; the implementation is :mod:`cowarray._ops.linalg`.
"""

from __future__ import annotations

from ._errors import LinAlgError as LinAlgError
from ._ops.linalg import EighResult as EighResult
from ._ops.linalg import EigResult as EigResult
from ._ops.linalg import LstsqResult as LstsqResult
from ._ops.linalg import QRResult as QRResult
from ._ops.linalg import SlogdetResult as SlogdetResult
from ._ops.linalg import SVDResult as SVDResult
from ._ops.linalg import cholesky as cholesky
from ._ops.linalg import cross as cross
from ._ops.linalg import det as det
from ._ops.linalg import diagonal as diagonal
from ._ops.linalg import eig as eig
from ._ops.linalg import eigh as eigh
from ._ops.linalg import eigvals as eigvals
from ._ops.linalg import eigvalsh as eigvalsh
from ._ops.linalg import inv as inv
from ._ops.linalg import lstsq as lstsq
from ._ops.linalg import matmul as matmul
from ._ops.linalg import matrix_norm as matrix_norm
from ._ops.linalg import matrix_power as matrix_power
from ._ops.linalg import matrix_rank as matrix_rank
from ._ops.linalg import matrix_transpose as matrix_transpose
from ._ops.linalg import norm as norm
from ._ops.linalg import outer as outer
from ._ops.linalg import pinv as pinv
from ._ops.linalg import qr as qr
from ._ops.linalg import slogdet as slogdet
from ._ops.linalg import solve as solve
from ._ops.linalg import svd as svd
from ._ops.linalg import svdvals as svdvals
from ._ops.linalg import tensordot as tensordot
from ._ops.linalg import trace as trace
from ._ops.linalg import vecdot as vecdot
from ._ops.linalg import vector_norm as vector_norm

__all__ = [
    "LinAlgError",
    "cholesky",
    "cross",
    "det",
    "diagonal",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "inv",
    "lstsq",
    "matmul",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "matrix_transpose",
    "norm",
    "outer",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "svd",
    "svdvals",
    "tensordot",
    "trace",
    "vecdot",
    "vector_norm",
]
