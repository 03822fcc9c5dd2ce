"""cowarray: arrays that are values.

A slice, a transpose or a copy of an array is an array of its own: a write
to one never shows in another. Copying is still free. A new array shares the
old one's memory until one of them is written, and only then is the part
being written copied (copy-on-write). The namespace follows the Python Array
API standard, on NumPy, and on CuPy for GPUs.

>>> import cowarray as ca
>>> weights = ca.ones(3)
>>> snapshot = weights[:]     # shares weights' memory: nothing is copied
>>> weights *= 0.5            # weights copies first; snapshot keeps its values
>>> snapshot
cowarray.Array([1., 1., 1.], dtype=float64)

What to read next:

- ``help(ca.lazy_clone)``, ``help(ca.trace)``, ``help(ca.cow_info)``: make a
  free copy, see every share and copy, ask who holds an array's memory.
- ``help(ca.Array)``: the array, its operators and ``x.at[i]`` updates.
- ``cowarray.linalg``, ``cowarray.fft``, ``cowarray.random``: the standard's
  extensions and random numbers; to share memory with torch,
  ``from cowarray.interop.torch import to_torch, from_torch``.
- The documentation: a tutorial (also ``examples/tutorial.ipynb``), "Coming
  from NumPy" and the API reference, built from ``docs/``.
"""

from __future__ import annotations

import sys as _sys

from . import debug as debug
from . import fft as fft
from . import lib as lib
from . import linalg as linalg
from . import random as random
from ._array import Array as Array
from ._array import bind_namespace as _bind_namespace
from ._at import register as _register_at
from ._backends._parallel import get_num_threads as get_num_threads
from ._backends._parallel import get_parallel_threshold as get_parallel_threshold
from ._backends._parallel import set_num_threads as set_num_threads
from ._backends._parallel import set_parallel_threshold as set_parallel_threshold
from ._backends._reuse import get_temporary_reuse as get_temporary_reuse
from ._backends._reuse import set_temporary_reuse as set_temporary_reuse
from ._constants import e as e
from ._constants import inf as inf
from ._constants import nan as nan
from ._constants import newaxis as newaxis
from ._constants import pi as pi
from ._core import StaleViewWarning as StaleViewWarning
from ._core import ViewWriteWarning as ViewWriteWarning
from ._core import calibrate_at_import as _calibrate_view_writes
from ._core import check_every_store as _check_every_store
from ._core import lazy_clone as lazy_clone
from ._dask_hook import watch_for_dask as _watch_for_dask
from ._devices import Device as Device
from ._dlpack import from_dlpack as from_dlpack
from ._dlpack import register as _register_exports
from ._dtypes import bool as bool
from ._dtypes import complex64 as complex64
from ._dtypes import complex128 as complex128
from ._dtypes import float16 as float16
from ._dtypes import float32 as float32
from ._dtypes import float64 as float64
from ._dtypes import int8 as int8
from ._dtypes import int16 as int16
from ._dtypes import int32 as int32
from ._dtypes import int64 as int64
from ._dtypes import uint8 as uint8
from ._dtypes import uint16 as uint16
from ._dtypes import uint32 as uint32
from ._dtypes import uint64 as uint64
from ._errors import hint_missing_names as _hint_missing_names
from ._errors import missing_name as _missing_name
from ._errors import refuse_out_everywhere as _refuse_out_everywhere
from ._info import __array_namespace_info__ as __array_namespace_info__
from ._methods import register as _register_methods
from ._move import move as move
from ._numpy_protocols import register as _register_numpy_protocols
from ._ops.creation import *  # noqa: F403
from ._ops.data_types import astype as astype
from ._ops.data_types import can_cast as can_cast
from ._ops.data_types import finfo as finfo
from ._ops.data_types import iinfo as iinfo
from ._ops.data_types import isdtype as isdtype
from ._ops.data_types import result_type as result_type
from ._ops.elementwise import *  # noqa: F403
from ._ops.indexing import *  # noqa: F403
from ._ops.linalg import matmul as matmul
from ._ops.linalg import matrix_transpose as matrix_transpose
from ._ops.linalg import tensordot as tensordot
from ._ops.linalg import vecdot as vecdot
from ._ops.manipulation import *  # noqa: F403
from ._ops.numpy_functions import *  # noqa: F403
from ._ops.numpy_math import *  # noqa: F403
from ._ops.numpy_statistics import *  # noqa: F403
from ._ops.searching import *  # noqa: F403
from ._ops.sets import isin as isin
from ._ops.sets import unique_all as unique_all
from ._ops.sets import unique_counts as unique_counts
from ._ops.sets import unique_inverse as unique_inverse
from ._ops.sets import unique_values as unique_values
from ._ops.sorting import *  # noqa: F403
from ._ops.statistical import *  # noqa: F403
from ._ops.utility import *  # noqa: F403
from ._page_cow import PageCow as PageCow
from ._page_cow import page_cow_settings as page_cow_settings
from ._page_cow import set_page_cow as set_page_cow
from ._random import Generator as _Generator
from .debug import CopyWarning as CopyWarning
from .debug import CowInfo as CowInfo
from .debug import copy_counters as copy_counters
from .debug import cow_info as cow_info
from .debug import reset_copy_counters as reset_copy_counters
from .debug import shares_buffer as shares_buffer
from .debug import sharing_picture as sharing_picture
from .debug import trace as trace
from .debug import warn_on_copy as warn_on_copy
from .interop import register_einops as _register_einops

__version__ = "0.1.0"
__array_api_version__ = "2025.12"

_bind_namespace(_sys.modules[__name__])  # x.__array_namespace__()
_register_at()  # x.at[i].set(v), JAX's functional updates
_register_exports()  # __dlpack__ and __array__: the boundaries of rules 4 and 5
_register_methods()  # x.sum(), x.reshape(2, 3): namespace functions by NumPy's names
_register_numpy_protocols()  # np.sin(x), np.concatenate([x, y]) -> cowarray Arrays (rule 11)
_register_einops()  # einops.rearrange(x, ...) on Arrays, when einops is installed
_watch_for_dask()  # cowarray.dask registers its chunk type whenever dask.array is imported
_calibrate_view_writes()  # x[k] += v's temporary, counted here before any user code
# One hint policy (cowarray/_errors.py): every public function explains out=,
# and every namespace answers a NumPy name with cowarray's spelling.
_refuse_out_everywhere(
    {
        __name__: "ca",
        linalg.__name__: "ca.linalg",
        fft.__name__: "ca.fft",
        random.__name__: "ca.random",
        debug.__name__: "ca.debug",
        lib.stride_tricks.__name__: "ca.lib.stride_tricks",
    },
    {_Generator: "rng"},
)
for _namespace in (linalg, fft, random):
    _hint_missing_names(_namespace)
if __import__("os").environ.get("COWARRAY_CHECK_STORES"):
    _check_every_store()  # assertion mode: an Array holds arrays, never scalars


def __getattr__(name: str) -> object:
    if name in ("to_dask", "from_dask"):  # Dask is imported when asked for, not before
        from . import dask

        return getattr(dask, name)
    raise _missing_name(__name__, name)
