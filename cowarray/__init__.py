"""cowarray: arrays that are values.

Copying is free (a lazy clone shares the buffer) and a buffer is copied only
when someone writes to it while others still hold it. The namespace follows
the Python Array API standard; see ``DESIGN.md`` for the semantics contract.
"""

from __future__ import annotations

from . import fft as fft
from . import linalg as linalg
from ._array import Array as Array
from ._array import lazy_clone as lazy_clone
from ._constants import e as e
from ._constants import inf as inf
from ._constants import nan as nan
from ._constants import newaxis as newaxis
from ._constants import pi as pi
from ._devices import Device as Device
from ._dlpack import from_dlpack as from_dlpack
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
from ._move import move as move
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
from ._ops.elementwise import abs as abs
from ._ops.elementwise import add as add
from ._ops.elementwise import bitwise_and as bitwise_and
from ._ops.elementwise import bitwise_invert as bitwise_invert
from ._ops.elementwise import bitwise_left_shift as bitwise_left_shift
from ._ops.elementwise import bitwise_or as bitwise_or
from ._ops.elementwise import bitwise_right_shift as bitwise_right_shift
from ._ops.elementwise import bitwise_xor as bitwise_xor
from ._ops.elementwise import cos as cos
from ._ops.elementwise import divide as divide
from ._ops.elementwise import equal as equal
from ._ops.elementwise import exp as exp
from ._ops.elementwise import floor_divide as floor_divide
from ._ops.elementwise import greater as greater
from ._ops.elementwise import greater_equal as greater_equal
from ._ops.elementwise import less as less
from ._ops.elementwise import less_equal as less_equal
from ._ops.elementwise import log as log
from ._ops.elementwise import multiply as multiply
from ._ops.elementwise import negative as negative
from ._ops.elementwise import not_equal as not_equal
from ._ops.elementwise import positive as positive
from ._ops.elementwise import pow as pow
from ._ops.elementwise import remainder as remainder
from ._ops.elementwise import sin as sin
from ._ops.elementwise import sqrt as sqrt
from ._ops.elementwise import subtract as subtract
from ._ops.linalg import matmul as matmul
from ._ops.linalg import matrix_transpose as matrix_transpose
from ._ops.linalg import tensordot as tensordot
from ._ops.linalg import vecdot as vecdot
from ._ops.manipulation import broadcast_to as broadcast_to
from ._ops.manipulation import expand_dims as expand_dims
from ._ops.manipulation import flip as flip
from ._ops.manipulation import permute_dims as permute_dims
from ._ops.manipulation import reshape as reshape
from ._ops.manipulation import squeeze as squeeze
from ._ops.statistical import max as max
from ._ops.statistical import mean as mean
from ._ops.statistical import min as min
from ._ops.statistical import sum as sum
from .debug import CopyWarning as CopyWarning
from .debug import CowInfo as CowInfo
from .debug import copy_counters as copy_counters
from .debug import cow_info as cow_info
from .debug import reset_copy_counters as reset_copy_counters
from .debug import shares_buffer as shares_buffer
from .debug import sharing_picture as sharing_picture
from .debug import trace as trace
from .debug import warn_on_copy as warn_on_copy

__version__ = "0.1.0"
__array_api_version__ = "2025.12"
