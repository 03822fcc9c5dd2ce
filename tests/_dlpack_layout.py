"""Reading and rewriting unconsumed DLPack capsules, for tests (DLPack 1.0 layout).

Written from the DLPack header, independently of cowarray's own reader in
``cowarray/_dlpack.py``, so that tests check it rather than repeat it.
"""

from __future__ import annotations

import ctypes
from typing import Any

READ_ONLY = 1 << 0
IS_COPIED = 1 << 1


class _DLDevice(ctypes.Structure):
    _fields_ = (("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32))


class _TensorHead(ctypes.Structure):
    # DLTensor's first fields
    _fields_ = (("data", ctypes.c_void_p), ("device", _DLDevice))


class _VersionedHead(ctypes.Structure):
    # DLManagedTensorVersioned up to its DLTensor's device
    _fields_ = (
        ("major", ctypes.c_uint32),
        ("minor", ctypes.c_uint32),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),
        ("flags", ctypes.c_uint64),
        ("tensor", _TensorHead),
    )


def capsule_name(capsule: Any) -> bytes:
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype = ctypes.c_char_p
    get_name.argtypes = [ctypes.py_object]
    return bytes(get_name(capsule))


def _pointer(capsule: Any) -> int:
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return int(get_pointer(capsule, capsule_name(capsule)))


def versioned_flags(capsule: Any) -> int:
    """The flags of a versioned capsule."""
    assert capsule_name(capsule) == b"dltensor_versioned", "unversioned capsules have no flags"
    return int(_VersionedHead.from_address(_pointer(capsule)).flags)


def tensor_head(capsule: Any) -> _TensorHead:
    """The capsule's DLTensor data pointer and device, writable in place."""
    if capsule_name(capsule) == b"dltensor_versioned":
        return _VersionedHead.from_address(_pointer(capsule)).tensor
    return _TensorHead.from_address(_pointer(capsule))


def clear_flags(capsule: Any, bits: int) -> None:
    """Clear ``bits`` of a versioned capsule's flags (an unversioned one has none)."""
    set_flags(capsule, 0, clear=bits)


def set_flags(capsule: Any, bits: int, *, clear: int = 0) -> None:
    """Set ``bits`` (and clear ``clear``) of a versioned capsule's flags."""
    if capsule_name(capsule) == b"dltensor_versioned":
        head = _VersionedHead.from_address(_pointer(capsule))
        head.flags = (head.flags | bits) & ~clear
