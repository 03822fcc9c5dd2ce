"""The dtypes NumPy (hence cowarray) and torch both hold, by name: the interop tests' list.

Written out here rather than taken from cowarray.interop.torch, so the tests
check the module against an independent list. bfloat16 is absent: NumPy has
no such dtype.
"""

SHARED_DTYPES = [
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
]
