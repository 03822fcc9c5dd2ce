"""Devices: small interned objects naming where an array's memory lives.

``cpu`` is NumPy's memory. ``cpu:1`` is a *simulated* second device, also
backed by NumPy, so that device plumbing (``device=``, ``to_device``, refusing
to mix devices) is tested on machines without a GPU, as array-api-strict does.
``cuda:N`` devices belong to the CuPy backend, loaded only when asked for.
The kinds and their indices are the backend registry's
(:data:`cowarray._backends.KINDS`); this module only names and interns devices.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, ClassVar, Final

from . import _backends

if TYPE_CHECKING:
    from ._backends.base import Backend

__all__ = ["CPU", "SIMULATED_CPU", "Device", "as_device"]


class Device:
    """Where an array lives: ``cpu``, the simulated ``cpu:1``, or ``cuda:N``.

    Devices are interned: ``Device("cpu") is Device("cpu")``, so comparing
    devices is an identity test. They are hashable and immutable.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.Device("cpu")
    Device('cpu')
    >>> ca.asarray([1, 2], device="cpu:1").device
    Device('cpu:1')
    """

    __slots__ = ("backend", "index", "kind")
    _interned: ClassVar[dict[tuple[str, int], Device]] = {}
    _lock: ClassVar[threading.Lock] = threading.Lock()

    kind: str
    index: int
    #: The backend that allocates and computes on this device.
    backend: Backend

    def __new__(cls, kind: str, index: int | None = None) -> Device:
        if not isinstance(kind, str):
            raise TypeError(f"a device is named by a string such as 'cpu', got {kind!r}")
        if index is None and ":" in kind:
            kind, _, number = kind.partition(":")
            if not number.isdigit():
                raise ValueError(f"device index must be a whole number, got {number!r}")
            index = int(number)
        if index is None:
            index = 0
        problem = _backends.device_kind(kind).missing(index)
        if problem is not None:
            raise ValueError(problem)
        key = (kind, index)
        device = cls._interned.get(key)
        if device is None:
            with cls._lock:
                device = cls._interned.get(key)
                if device is None:
                    device = object.__new__(cls)
                    object.__setattr__(device, "kind", kind)
                    object.__setattr__(device, "index", index)
                    # through the module: the tests' stand-in GPU replaces backend_for
                    object.__setattr__(device, "backend", _backends.backend_for(device))
                    cls._interned[key] = device
        return device

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Device objects are immutable")

    def __reduce__(self) -> tuple[Any, ...]:
        return (Device, (self.kind, self.index))

    def __copy__(self) -> Device:
        return self

    def __deepcopy__(self, memo: object) -> Device:
        return self

    def __str__(self) -> str:
        if self.index == 0 and _backends.KINDS[self.kind].bare_first:
            return self.kind
        return f"{self.kind}:{self.index}"

    def __repr__(self) -> str:
        return f"Device({str(self)!r})"


CPU: Final = Device("cpu")
SIMULATED_CPU: Final = Device("cpu", 1)


def as_device(device: object) -> Device:
    """Turn ``None``, a Device or a device name into a Device (``None`` is cpu)."""
    if device is None:
        return CPU
    if type(device) is Device:
        return device
    if isinstance(device, str):
        return Device(device)
    raise TypeError(
        f"device must be a cowarray Device or a name such as 'cpu', got {type(device).__name__}"
    )
