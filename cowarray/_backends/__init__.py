"""Backends: one module per array library, found by a device's kind in :data:`KINDS`.

The registry owns the device kinds: each :class:`DeviceKind` says its name,
which indices exist (and what to say when one does not), and how to load the
backend serving a device. ``cowarray._devices`` reads it; nothing here imports
``_devices`` at run time, so the arrow points one way. Adding a backend is its
module plus one entry in :data:`KINDS`.

Loaders import their module only when a device of theirs is first asked for,
so ``import cowarray`` never imports CuPy.

The registry also knows each backend's optional capabilities
(:class:`~cowarray._backends.base.StreamOrdered`,
:class:`~cowarray._backends.base.PageCowCapable`): :data:`STREAMS` and
:data:`PAGE_COW` map a backend to itself where it has the capability, to None
where it has not, checked once, when the backend is loaded (or first looked
up, for a backend made by hand). The core asks these, never the backend.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Generic, Protocol, TypeVar

from .base import PageCowCapable, StreamOrdered

if TYPE_CHECKING:
    from .base import Backend


class _Named(Protocol):
    """What the registry reads of a device (cowarray._devices.Device, which
    lies above it): its kind's name and its index."""

    @property
    def kind(self) -> str: ...
    @property
    def index(self) -> int: ...


__all__ = [
    "KINDS",
    "PAGE_COW",
    "STREAMS",
    "Capability",
    "DeviceKind",
    "backend_for",
    "device_kind",
    "dlpack_import_stream",
]

_C = TypeVar("_C")


@dataclass(frozen=True)
class DeviceKind:
    """One kind of device (``cpu``, ``cuda``) and the backend that serves it."""

    #: The kind's name, before the colon in a device name.
    name: str
    #: How the kind's devices are written in messages ("'cuda:N'").
    spelled: str
    #: Why ``kind:index`` names no device (None: it may exist; the backend
    #: checks what only the library can know, such as how many GPUs there are).
    missing: Callable[[int], str | None]
    #: The backend serving the device of this kind with this index (imports it).
    load: Callable[[int], Backend]
    #: The indices of this kind's devices on this machine (may import the library).
    present: Callable[[], tuple[int, ...]]
    #: Whether index 0 is written without its index (``cpu``, not ``cpu:0``).
    bare_first: bool = False
    #: Whether :func:`cowarray.testing.available_devices` tests every index
    #: present (``cpu`` and the simulated ``cpu:1``) or the first only (one GPU
    #: tests the kind; a test that needs two asks for them).
    test_every_index: bool = False


def _missing_cpu(index: int) -> str | None:
    if index in (0, 1):
        return None
    return (
        f"there is no device 'cpu:{index}': 'cpu' is NumPy memory and "
        "'cpu:1' the simulated second device"
    )


def _load_numpy(index: int) -> Backend:
    from .numpy import NUMPY_BACKEND

    return NUMPY_BACKEND


def _any_index(index: int) -> str | None:
    return None


def _gpus() -> tuple[int, ...]:
    if importlib.util.find_spec("cupy") is None:
        return ()
    try:
        import cupy

        count = int(cupy.cuda.runtime.getDeviceCount())
    except Exception:  # no driver, no GPU: CuPy imports but cannot count
        return ()
    return tuple(range(count))


def _load_cupy(index: int) -> Backend:
    if importlib.util.find_spec("cupy") is None:
        raise ModuleNotFoundError(
            f"device cuda:{index} needs CuPy, which is not installed; install it with "
            'pip install "cupy-cuda12x>=14" (or cupy-cuda13x for CUDA 13), or, in a '
            'clone of cowarray, pip install -e ".[cuda12]"'
        )
    from .cupy import cupy_backend  # type: ignore[import-not-found,unused-ignore]

    return cupy_backend(index)  # type: ignore[no-any-return,unused-ignore]


def _only_index_zero(index: int) -> str | None:
    if index == 0:
        return None
    return f"there is no device 'jax:{index}': traced values live on 'jax' only"


def _load_jax(index: int) -> Backend:
    if importlib.util.find_spec("jax") is None:
        raise ModuleNotFoundError(
            "cowarray.transforms needs JAX, which is not installed; install it with "
            'pip install "cowarray[jax]" (or, in a clone of cowarray, pip install -e ".[jax]")'
        )
    from .jax import JAX_BACKEND

    return JAX_BACKEND


#: Every device kind, by name: the one list of them.
KINDS: Final[dict[str, DeviceKind]] = {
    "cpu": DeviceKind(
        "cpu",
        "'cpu', 'cpu:1'",
        _missing_cpu,
        _load_numpy,
        lambda: (0, 1),
        bare_first=True,
        test_every_index=True,
    ),
    "cuda": DeviceKind("cuda", "'cuda:N'", _any_index, _load_cupy, _gpus),
    # The values of a trace (cowarray.transforms): never present as a device
    # to test on its own, as its Arrays exist only inside a transformed function.
    "jax": DeviceKind(
        "jax",
        "'jax' (traced values, inside cowarray.transforms)",
        _only_index_zero,
        _load_jax,
        lambda: (),
        bare_first=True,
    ),
}


def device_kind(name: str) -> DeviceKind:
    """The registered kind called ``name``; ValueError naming the kinds if none is."""
    kind = KINDS.get(name)
    if kind is None:
        spellings = [entry.spelled for entry in KINDS.values()]
        expected = ", ".join(spellings[:-1]) + " or " + spellings[-1]
        raise ValueError(f"unknown device kind {name!r}; expected {expected}")
    return kind


def backend_for(device: _Named) -> Backend:
    """The backend that serves ``device``, its capabilities checked."""
    backend = device_kind(device.kind).load(device.index)
    _ = STREAMS[backend], PAGE_COW[backend]  # checked now, not on its first write
    return backend


class Capability(dict[Any, "_C | None"], Generic[_C]):
    """Backend -> the backend as this capability (None: it has not the
    capability), checked on the first look-up with ``isinstance`` against
    the capability's Protocol. A subscript, not a call: the write path asks."""

    def __init__(self, protocol: Any) -> None:
        super().__init__()
        self.protocol = protocol
        self.members = sorted(name for name in vars(protocol) if not name.startswith("_"))

    def __missing__(self, backend: Any) -> _C | None:
        found: _C | None = backend if isinstance(backend, self.protocol) else None
        if found is None:
            has = [name for name in self.members if hasattr(backend, name)]
            if has:
                lacks = [name for name in self.members if name not in has]
                raise TypeError(
                    f"backend {getattr(backend, 'name', backend)!r} has {', '.join(has)} "
                    f"but not {', '.join(lacks)}: the {self.protocol.__name__} capability "
                    "is all of these methods or none of them"
                )
        self[backend] = found
        return found


#: Each backend's streams (the CuPy backend), or None (host memory).
STREAMS: Final[Capability[StreamOrdered]] = Capability(StreamOrdered)
#: Each backend's page-granular copy-on-write (the NumPy backend), or None.
PAGE_COW: Final[Capability[PageCowCapable]] = Capability(PageCowCapable)


def dlpack_import_stream(backend: Backend) -> AbstractContextManager[int | None]:
    """The context giving the ``stream=`` a DLPack import onto ``backend``'s
    device hands its producer: None where the device has no streams."""
    streams = STREAMS[backend]
    return nullcontext(None) if streams is None else streams.dlpack_import_stream()
