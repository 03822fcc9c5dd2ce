"""cowarray: arrays that are values.

Copying is free (a lazy clone shares the buffer) and a buffer is copied only
when someone writes to it while others still hold it. The namespace follows
the Python Array API standard; see ``docs/design.md`` for the semantics contract.
"""

from __future__ import annotations

from . import fft as fft
from . import linalg as linalg
from . import random as random
from ._array import Array as Array
from ._array import lazy_clone as lazy_clone
from ._at import register as _register_at
from ._backends._parallel import get_num_threads as get_num_threads
from ._backends._parallel import get_parallel_threshold as get_parallel_threshold
from ._backends._parallel import set_num_threads as set_num_threads
from ._backends._parallel import set_parallel_threshold as set_parallel_threshold
from ._constants import e as e
from ._constants import inf as inf
from ._constants import nan as nan
from ._constants import newaxis as newaxis
from ._constants import pi as pi
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
from ._info import __array_namespace_info__ as __array_namespace_info__
from ._methods import register as _register_methods
from ._move import move as move
from ._numpy_protocols import register as _register_numpy_protocols
from ._ops.creation import arange as arange
from ._ops.creation import asarray as asarray
from ._ops.creation import empty as empty
from ._ops.creation import empty_like as empty_like
from ._ops.creation import eye as eye
from ._ops.creation import full as full
from ._ops.creation import full_like as full_like
from ._ops.creation import linspace as linspace
from ._ops.creation import meshgrid as meshgrid
from ._ops.creation import ones as ones
from ._ops.creation import ones_like as ones_like
from ._ops.creation import tril as tril
from ._ops.creation import triu as triu
from ._ops.creation import zeros as zeros
from ._ops.creation import zeros_like as zeros_like
from ._ops.data_types import astype as astype
from ._ops.data_types import can_cast as can_cast
from ._ops.data_types import finfo as finfo
from ._ops.data_types import iinfo as iinfo
from ._ops.data_types import isdtype as isdtype
from ._ops.data_types import result_type as result_type
from ._ops.elementwise import abs as abs
from ._ops.elementwise import acos as acos
from ._ops.elementwise import acosh as acosh
from ._ops.elementwise import add as add
from ._ops.elementwise import around as around
from ._ops.elementwise import asin as asin
from ._ops.elementwise import asinh as asinh
from ._ops.elementwise import atan as atan
from ._ops.elementwise import atan2 as atan2
from ._ops.elementwise import atanh as atanh
from ._ops.elementwise import bitwise_and as bitwise_and
from ._ops.elementwise import bitwise_invert as bitwise_invert
from ._ops.elementwise import bitwise_left_shift as bitwise_left_shift
from ._ops.elementwise import bitwise_or as bitwise_or
from ._ops.elementwise import bitwise_right_shift as bitwise_right_shift
from ._ops.elementwise import bitwise_xor as bitwise_xor
from ._ops.elementwise import ceil as ceil
from ._ops.elementwise import clip as clip
from ._ops.elementwise import conj as conj
from ._ops.elementwise import copysign as copysign
from ._ops.elementwise import cos as cos
from ._ops.elementwise import cosh as cosh
from ._ops.elementwise import divide as divide
from ._ops.elementwise import equal as equal
from ._ops.elementwise import exp as exp
from ._ops.elementwise import expm1 as expm1
from ._ops.elementwise import floor as floor
from ._ops.elementwise import floor_divide as floor_divide
from ._ops.elementwise import greater as greater
from ._ops.elementwise import greater_equal as greater_equal
from ._ops.elementwise import hypot as hypot
from ._ops.elementwise import imag as imag
from ._ops.elementwise import isfinite as isfinite
from ._ops.elementwise import isinf as isinf
from ._ops.elementwise import isnan as isnan
from ._ops.elementwise import less as less
from ._ops.elementwise import less_equal as less_equal
from ._ops.elementwise import log as log
from ._ops.elementwise import log1p as log1p
from ._ops.elementwise import log2 as log2
from ._ops.elementwise import log10 as log10
from ._ops.elementwise import logaddexp as logaddexp
from ._ops.elementwise import logical_and as logical_and
from ._ops.elementwise import logical_not as logical_not
from ._ops.elementwise import logical_or as logical_or
from ._ops.elementwise import logical_xor as logical_xor
from ._ops.elementwise import maximum as maximum
from ._ops.elementwise import minimum as minimum
from ._ops.elementwise import multiply as multiply
from ._ops.elementwise import negative as negative
from ._ops.elementwise import nextafter as nextafter
from ._ops.elementwise import not_equal as not_equal
from ._ops.elementwise import positive as positive
from ._ops.elementwise import pow as pow
from ._ops.elementwise import real as real
from ._ops.elementwise import reciprocal as reciprocal
from ._ops.elementwise import remainder as remainder
from ._ops.elementwise import round as round
from ._ops.elementwise import sign as sign
from ._ops.elementwise import signbit as signbit
from ._ops.elementwise import sin as sin
from ._ops.elementwise import sinh as sinh
from ._ops.elementwise import sqrt as sqrt
from ._ops.elementwise import square as square
from ._ops.elementwise import subtract as subtract
from ._ops.elementwise import tan as tan
from ._ops.elementwise import tanh as tanh
from ._ops.elementwise import trunc as trunc
from ._ops.indexing import take as take
from ._ops.indexing import take_along_axis as take_along_axis
from ._ops.linalg import matmul as matmul
from ._ops.linalg import matrix_transpose as matrix_transpose
from ._ops.linalg import tensordot as tensordot
from ._ops.linalg import vecdot as vecdot
from ._ops.manipulation import broadcast_arrays as broadcast_arrays
from ._ops.manipulation import broadcast_shapes as broadcast_shapes
from ._ops.manipulation import broadcast_to as broadcast_to
from ._ops.manipulation import concat as concat
from ._ops.manipulation import expand_dims as expand_dims
from ._ops.manipulation import flip as flip
from ._ops.manipulation import moveaxis as moveaxis
from ._ops.manipulation import permute_dims as permute_dims
from ._ops.manipulation import repeat as repeat
from ._ops.manipulation import reshape as reshape
from ._ops.manipulation import roll as roll
from ._ops.manipulation import squeeze as squeeze
from ._ops.manipulation import stack as stack
from ._ops.manipulation import tile as tile
from ._ops.manipulation import unstack as unstack
from ._ops.numpy_functions import append as append
from ._ops.numpy_functions import array_split as array_split
from ._ops.numpy_functions import atleast_1d as atleast_1d
from ._ops.numpy_functions import atleast_2d as atleast_2d
from ._ops.numpy_functions import atleast_3d as atleast_3d
from ._ops.numpy_functions import column_stack as column_stack
from ._ops.numpy_functions import copy as copy
from ._ops.numpy_functions import delete as delete
from ._ops.numpy_functions import diag as diag
from ._ops.numpy_functions import diagonal as diagonal
from ._ops.numpy_functions import dstack as dstack
from ._ops.numpy_functions import fill_diagonal as fill_diagonal
from ._ops.numpy_functions import flatnonzero as flatnonzero
from ._ops.numpy_functions import hstack as hstack
from ._ops.numpy_functions import identity as identity
from ._ops.numpy_functions import insert as insert
from ._ops.numpy_functions import isscalar as isscalar
from ._ops.numpy_functions import iterable as iterable
from ._ops.numpy_functions import ndim as ndim
from ._ops.numpy_functions import pad as pad
from ._ops.numpy_functions import ravel as ravel
from ._ops.numpy_functions import resize as resize
from ._ops.numpy_functions import shape as shape
from ._ops.numpy_functions import size as size
from ._ops.numpy_functions import split as split
from ._ops.numpy_functions import swapaxes as swapaxes
from ._ops.numpy_functions import transpose as transpose
from ._ops.numpy_functions import unique as unique
from ._ops.numpy_functions import vstack as vstack
from ._ops.numpy_math import allclose as allclose
from ._ops.numpy_math import array_equal as array_equal
from ._ops.numpy_math import convolve as convolve
from ._ops.numpy_math import correlate as correlate
from ._ops.numpy_math import dot as dot
from ._ops.numpy_math import einsum as einsum
from ._ops.numpy_math import float_power as float_power
from ._ops.numpy_math import interp as interp
from ._ops.numpy_math import isclose as isclose
from ._ops.numpy_math import iscomplex as iscomplex
from ._ops.numpy_math import iscomplexobj as iscomplexobj
from ._ops.numpy_math import isneginf as isneginf
from ._ops.numpy_math import isposinf as isposinf
from ._ops.numpy_math import isreal as isreal
from ._ops.numpy_math import isrealobj as isrealobj
from ._ops.numpy_math import outer as outer
from ._ops.numpy_math import power as power
from ._ops.numpy_statistics import average as average
from ._ops.numpy_statistics import bincount as bincount
from ._ops.numpy_statistics import cumprod as cumprod
from ._ops.numpy_statistics import cumsum as cumsum
from ._ops.numpy_statistics import histogram as histogram
from ._ops.numpy_statistics import median as median
from ._ops.numpy_statistics import nanargmax as nanargmax
from ._ops.numpy_statistics import nanargmin as nanargmin
from ._ops.numpy_statistics import nancumprod as nancumprod
from ._ops.numpy_statistics import nancumsum as nancumsum
from ._ops.numpy_statistics import nanmax as nanmax
from ._ops.numpy_statistics import nanmean as nanmean
from ._ops.numpy_statistics import nanmedian as nanmedian
from ._ops.numpy_statistics import nanmin as nanmin
from ._ops.numpy_statistics import nanpercentile as nanpercentile
from ._ops.numpy_statistics import nanprod as nanprod
from ._ops.numpy_statistics import nanquantile as nanquantile
from ._ops.numpy_statistics import nanstd as nanstd
from ._ops.numpy_statistics import nansum as nansum
from ._ops.numpy_statistics import nanvar as nanvar
from ._ops.numpy_statistics import percentile as percentile
from ._ops.numpy_statistics import quantile as quantile
from ._ops.searching import argmax as argmax
from ._ops.searching import argmin as argmin
from ._ops.searching import count_nonzero as count_nonzero
from ._ops.searching import nonzero as nonzero
from ._ops.searching import searchsorted as searchsorted
from ._ops.searching import where as where
from ._ops.sets import isin as isin
from ._ops.sets import unique_all as unique_all
from ._ops.sets import unique_counts as unique_counts
from ._ops.sets import unique_inverse as unique_inverse
from ._ops.sets import unique_values as unique_values
from ._ops.sorting import argsort as argsort
from ._ops.sorting import sort as sort
from ._ops.statistical import cumulative_prod as cumulative_prod
from ._ops.statistical import cumulative_sum as cumulative_sum
from ._ops.statistical import max as max
from ._ops.statistical import mean as mean
from ._ops.statistical import min as min
from ._ops.statistical import prod as prod
from ._ops.statistical import std as std
from ._ops.statistical import sum as sum
from ._ops.statistical import var as var
from ._ops.utility import all as all
from ._ops.utility import any as any
from ._ops.utility import diff as diff
from ._page_cow import PageCow as PageCow
from ._page_cow import page_cow_settings as page_cow_settings
from ._page_cow import set_page_cow as set_page_cow
from ._view_writes import ViewWriteWarning as ViewWriteWarning
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

_register_at()  # x.at[i].set(v), JAX's functional updates
_register_exports()  # __dlpack__ and __array__: the boundaries of rules 4 and 5
_register_methods()  # x.sum(), x.reshape(2, 3): namespace functions by NumPy's names
_register_numpy_protocols()  # np.sin(x), np.concatenate([x, y]) -> cowarray Arrays (rule 11)
_register_einops()  # einops.rearrange(x, ...) on Arrays, when einops is installed
_watch_for_dask()  # cowarray.dask registers its chunk type whenever dask.array is imported


def __getattr__(name: str) -> object:
    if name in ("to_dask", "from_dask"):  # Dask is imported when asked for, not before
        from . import dask

        return getattr(dask, name)
    from ._hints import missing_attribute

    raise missing_attribute(name)
