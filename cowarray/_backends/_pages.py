"""Host memory the operating system can copy on write, page by page (Linux).

The NumPy backend's page-granular copy-on-write (docs/design.md §5). A
*page block* is a memfd (an anonymous in-memory file) seen through mappings:

* The block starts as one **shared** mapping (``MAP_SHARED``): its sole
  holder writes the file directly.
* :func:`clone` makes a **private** mapping (``MAP_PRIVATE``) of the pages a
  view covers: no byte is copied now; the kernel copies a page when the
  clone first writes it. Before the first private mapping of a file exists,
  its shared mapping is remapped private *at the same address*
  (``MAP_FIXED``), so the NumPy arrays over it stay valid and, from then on,
  nobody writes the file: every mapping's unwritten pages show the file's
  values, which no longer change (the file is *frozen*).
* A private mapping that has been written since it was made (*dirty*) holds
  its own pages beside the file's: a clone of it also copies those pages,
  found in ``/proc/self/pagemap`` (an anonymous page is one that was
  copied). A mapping is *pristine* (known to show only the file's pages)
  from its remap until :func:`note_write_in_place` says its last holder
  writes it in place; a remap made before ``fork()`` is never pristine, since
  the sole holder then writes it without telling anyone.

This module knows nothing of copy-on-write records: the NumPy backend asks
it, and the core decides when (the threshold, the written region). Linux
only (``os.memfd_create`` and ``/proc/self/pagemap``); elsewhere
:data:`AVAILABLE` is False and nothing here is used.
"""

from __future__ import annotations

import ctypes
import mmap
import os
import sys
import threading
import weakref
from typing import Any, Final

import numpy as np

__all__ = [
    "AVAILABLE",
    "PAGE",
    "allocate",
    "clone",
    "copied_bytes",
    "is_page_backed",
    "note_write_in_place",
]

PAGE: Final = mmap.PAGESIZE
_PROT: Final = mmap.PROT_READ | mmap.PROT_WRITE
_MAP_FIXED: Final = 0x10  # Linux's value (not exported by the mmap module)
_MAP_FAILED: Final = ctypes.c_void_p(-1).value


def _load_libc() -> Any:
    if not sys.platform.startswith("linux") or not hasattr(os, "memfd_create"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = [
            ctypes.c_void_p,
            ctypes.c_size_t,
            ctypes.c_int,
            ctypes.c_int,
            ctypes.c_int,
            ctypes.c_long,
        ]
        libc.munmap.restype = ctypes.c_int
        libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    except (OSError, AttributeError):
        return None
    return libc


_libc: Final = _load_libc()
#: Whether this platform has page blocks (Linux with memfd and pagemap).
AVAILABLE: Final = _libc is not None and os.path.exists("/proc/self/pagemap")
# Guards remaps and the pristine flags. Re-entrant: a collection inside the
# fork hook (it allocates under the lock) may run a callback that writes a
# page array, which marks its mapping written under this lock.
_lock = threading.RLock()
# The shared mappings alive now: remapped private before a fork.
_shared: weakref.WeakSet[_Mapping] = weakref.WeakSet()


class _File:
    """A memfd; closed when the last mapping of it dies."""

    __slots__ = ("__weakref__", "fd", "frozen")

    def __init__(self, fd: int) -> None:
        self.fd = fd
        #: Whether a private mapping of it exists: then nobody writes it.
        self.frozen = False

    def __del__(self, _close: Any = os.close) -> None:
        _close(self.fd)


#: Whether any page block was ever mapped in this process (once True, stays so).
_any_mapped = False


class _Mapping:
    """One mapping of pages of a :class:`_File`: the base of a root ndarray."""

    __slots__ = (
        "__array_interface__",
        "__weakref__",
        "address",
        "file",
        "length",
        "offset",
        "pristine",
        "private",
        "scan_all",
    )
    __array_interface__: dict[str, Any]

    def __init__(self, file: _File, address: int, length: int, offset: int, private: bool) -> None:
        global _any_mapped
        _any_mapped = True
        self.file = file
        self.address = address
        self.length = length
        self.offset = offset
        self.private = private
        self.pristine = private
        #: Count copied pages over the whole mapping (a dirty source's pages
        #: were copied into it), not only over the written region.
        self.scan_all = False

    # (libc bound as a default: at interpreter exit module globals may be gone)
    def __del__(self, _lib: Any = _libc) -> None:
        _lib.munmap(self.address, self.length)


def _map(file: _File, length: int, offset: int, flags: int, at: int | None = None) -> int:
    address = _libc.mmap(at, length, _PROT, flags, file.fd, offset)
    if address is None or address == _MAP_FAILED:
        error = ctypes.get_errno()
        raise OSError(error, f"mmap: {os.strerror(error)}")
    return int(address)


def _root(mapping: _Mapping, shape: tuple[int, ...], dtype: Any, first: int, strides: Any) -> Any:
    mapping.__array_interface__ = {
        "shape": shape,
        "typestr": dtype.str,
        "data": (first, False),
        "strides": strides,
        "version": 3,
    }
    try:
        root = np.asarray(mapping)
    finally:
        del mapping.__array_interface__
    # NumPy points views of a view at the last ndarray of the chain: hand out
    # a view, so every array of this block has the root as its ``base``.
    return root.view()


def allocate(shape: tuple[int, ...], dtype: Any) -> Any:
    """A C-contiguous ndarray of zeros in a new page block, or None if none
    can be made (no memfd here, out of file descriptors, an empty array)."""
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if not AVAILABLE or nbytes <= 0:
        return None
    length = -(-nbytes // PAGE) * PAGE
    try:
        fd = os.memfd_create("cowarray", os.MFD_CLOEXEC)
    except OSError:
        return None  # out of file descriptors: plain memory instead
    file = _File(fd)
    try:
        os.ftruncate(fd, length)
        address = _map(file, length, 0, mmap.MAP_SHARED)
    except OSError:
        return None
    mapping = _Mapping(file, address, length, 0, private=False)
    _shared.add(mapping)
    return _root(mapping, shape, dtype, address, None)


def _mapping_of(data: Any) -> _Mapping | None:
    root = data.base
    if root is None:
        return None
    mapping: object = root.base if isinstance(root, np.ndarray) else None
    return mapping if isinstance(mapping, _Mapping) else None


def is_page_backed(data: Any) -> bool:
    """Whether ``data`` views a page block."""
    return _mapping_of(data) is not None


def _freeze(mapping: _Mapping, pristine: bool) -> None:
    # Under _lock: the shared mapping becomes private in place. Its values
    # are the file's, so readers see no change; later writes copy pages.
    _map(
        mapping.file, mapping.length, mapping.offset, mmap.MAP_PRIVATE | _MAP_FIXED, mapping.address
    )
    mapping.private = True
    mapping.pristine = pristine
    mapping.file.frozen = True
    _shared.discard(mapping)


def _freeze_all_before_fork() -> None:
    # A child inheriting a shared mapping would write the parent's file (and
    # see the parent's writes): make every mapping private first. Its sole
    # holder then writes it in place unannounced, so it is not pristine.
    with _lock:
        for mapping in list(_shared):
            if mapping.private:  # frozen by code re-entered here (a gc callback)
                mapping.pristine = False
            else:
                _freeze(mapping, pristine=False)


def _reset_lock_after_fork() -> None:
    # Only the forking thread lives on in the child: a lock another thread
    # held would never be released.
    lock: Any = _lock  # (the private lock methods are not in typeshed's stubs)
    if not lock._is_owned():
        lock._at_fork_reinit()


if AVAILABLE:
    os.register_at_fork(before=_freeze_all_before_fork, after_in_child=_reset_lock_after_fork)


def note_write_in_place(data: Any) -> None:
    """``data``'s memory, shared until now, is about to be written in place."""
    if not _any_mapped or data.base is None:
        return  # no page block made yet, or memory of its own (the common cases)
    mapping = _mapping_of(data)
    if mapping is not None and mapping.pristine:
        with _lock:
            mapping.pristine = False


def _private_pages(address: int, length: int) -> Any:
    """Indices of the pages in ``[address, address + length)`` that this
    process holds privately (copied on write, present or swapped out)."""
    first = address // PAGE
    count = -(-(address + length) // PAGE) - first
    fd = os.open("/proc/self/pagemap", os.O_RDONLY)
    try:
        entries = np.frombuffer(os.pread(fd, count * 8, first * 8), dtype=np.uint64)
    finally:
        os.close(fd)
    present = (entries >> np.uint64(63)) & np.uint64(1)
    swapped = (entries >> np.uint64(62)) & np.uint64(1)
    file_page = (entries >> np.uint64(61)) & np.uint64(1)
    return np.flatnonzero((present & ~file_page & np.uint64(1)) | swapped)


def clone(data: Any) -> Any:
    """A private copy-on-write clone of the pages ``data`` views, with the
    same shape and strides (None where ``data`` is not in a page block). A
    dirty source's own pages are copied into it now."""
    mapping = _mapping_of(data)
    if mapping is None:
        return None
    low, high = (int(bound) for bound in np.lib.array_utils.byte_bounds(data))
    if high <= low:
        return None
    start = (low - mapping.address) // PAGE * PAGE
    stop = min(-(-(high - mapping.address) // PAGE) * PAGE, mapping.length)
    length = stop - start
    with _lock:
        if not mapping.private:
            _freeze(mapping, pristine=True)
        pristine = mapping.pristine
        file = mapping.file
    try:
        address = _map(file, length, mapping.offset + start, mmap.MAP_PRIVATE)
    except OSError:
        return None
    fresh = _Mapping(file, address, length, mapping.offset + start, private=True)
    fresh.pristine = False  # its writer writes it at once
    fresh.scan_all = not pristine
    if not pristine:
        # The source's own pages are not in the file: copy them over.
        for page in _private_pages(mapping.address + start, length):
            offset = int(page) * PAGE
            ctypes.memmove(address + offset, mapping.address + start + offset, PAGE)
    first = data.__array_interface__["data"][0] - (mapping.address + start) + address
    return _root(fresh, data.shape, data.dtype, first, data.strides)


def copied_bytes(data: Any, region: Any) -> int:
    """Bytes the kernel has copied on write into the clone ``data`` in the
    pages ``region`` (a view of ``data``) spans: its private pages, counted
    in ``/proc/self/pagemap``."""
    mapping = _mapping_of(data)
    if mapping is None:
        return int(data.nbytes)
    low, high = (int(bound) for bound in np.lib.array_utils.byte_bounds(region))
    if high <= low:
        return 0
    if mapping.scan_all:
        low, high = mapping.address, mapping.address + mapping.length
    low = max(low // PAGE * PAGE, mapping.address)
    high = min(-(-high // PAGE) * PAGE, mapping.address + mapping.length)
    return int(_private_pages(low, high - low).size) * PAGE
