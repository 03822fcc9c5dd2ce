"""Namespace inspection: ``cowarray.__array_namespace_info__()`` (Array API 2023.12+).

What the library can do, which devices exist, and which dtypes each device
holds. ``cpu`` and the simulated ``cpu:1`` are always there; CUDA devices are
listed only when CuPy is installed (finding them imports CuPy, but only when
someone asks).
"""

from __future__ import annotations

from typing import Any, Final

from ._backends import KINDS
from ._devices import CPU, Device, as_device
from ._dtypes import (
    COMPLEX_FLOATING,
    DEFAULT_COMPLEX,
    DEFAULT_FLOAT,
    DEFAULT_INDEX,
    DEFAULT_INT,
    REAL_FLOATING,
    SIGNED,
    STANDARD_DTYPES,
    UNSIGNED,
)
from ._dtypes import bool as bool_dtype

__all__ = ["Info", "__array_namespace_info__"]

_KINDS: Final[dict[str, tuple[Any, ...]]] = {
    "bool": (bool_dtype,),
    "signed integer": SIGNED,
    "unsigned integer": UNSIGNED,
    "integral": SIGNED + UNSIGNED,
    "real floating": REAL_FLOATING,
    "complex floating": COMPLEX_FLOATING,
    "numeric": SIGNED + UNSIGNED + REAL_FLOATING + COMPLEX_FLOATING,
}


def _device(device: object) -> Device:
    return CPU if device is None else as_device(device)


class Info:
    """What ``cowarray`` supports, as the standard's inspection API asks.

    Examples
    --------
    >>> import cowarray as ca
    >>> info = ca.__array_namespace_info__()
    >>> info.default_device()
    Device('cpu')
    >>> info.default_dtypes()["real floating"]
    dtype('float64')
    >>> sorted(info.dtypes(kind="unsigned integer"))
    ['uint16', 'uint32', 'uint64', 'uint8']
    """

    __slots__ = ()

    def capabilities(self) -> dict[str, Any]:
        """Boolean indexing and data-dependent shapes are supported; at most 64 dimensions.

        Examples
        --------
        >>> import cowarray as ca
        >>> ca.__array_namespace_info__().capabilities()["boolean indexing"]
        True
        """
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}

    def default_device(self) -> Device:
        """The device arrays are created on when no ``device=`` is given: ``cpu``.

        Examples
        --------
        >>> import cowarray as ca
        >>> ca.__array_namespace_info__().default_device()
        Device('cpu')
        """
        return CPU

    def default_dtypes(self, *, device: Device | str | None = None) -> dict[str, Any]:
        """The default dtypes (the same on every device).

        Examples
        --------
        >>> import cowarray as ca
        >>> ca.__array_namespace_info__().default_dtypes(device="cpu:1")["integral"]
        dtype('int64')
        """
        _device(device)
        return {
            "real floating": DEFAULT_FLOAT,
            "complex floating": DEFAULT_COMPLEX,
            "integral": DEFAULT_INT,
            "indexing": DEFAULT_INDEX,
        }

    def dtypes(
        self,
        *,
        device: Device | str | None = None,
        kind: str | tuple[str, ...] | None = None,
    ) -> dict[str, Any]:
        """The standard's dtypes, by canonical name, optionally only those of ``kind``.

        ``kind`` is one of ``"bool"``, ``"signed integer"``, ``"unsigned
        integer"``, ``"integral"``, ``"real floating"``, ``"complex
        floating"``, ``"numeric"``, or a tuple of them (their union).

        Examples
        --------
        >>> import cowarray as ca
        >>> ca.__array_namespace_info__().dtypes(kind=("bool", "complex floating"))
        {'bool': dtype('bool'), 'complex64': dtype('complex64'), 'complex128': dtype('complex128')}
        """
        _device(device)
        if kind is None:
            chosen: tuple[Any, ...] = STANDARD_DTYPES
        else:
            names = kind if isinstance(kind, tuple) else (kind,)
            wanted: set[Any] = set()
            for name in names:
                if not isinstance(name, str):
                    raise TypeError(f"kind must be a string or a tuple of strings, got {name!r}")
                if name not in _KINDS:
                    raise ValueError(
                        f"kind={name!r} is not a dtype kind; expected one of {', '.join(_KINDS)}"
                    )
                wanted.update(_KINDS[name])
            chosen = tuple(d for d in STANDARD_DTYPES if d in wanted)
        return {d.name: d for d in chosen}

    def devices(self) -> list[Device]:
        """Every device arrays can be created on: ``cpu``, ``cpu:1`` and any CUDA device.

        A new list each call, as the standard (2023.12 and later) says.

        Examples
        --------
        >>> import cowarray as ca
        >>> ca.__array_namespace_info__().devices()[:2]
        [Device('cpu'), Device('cpu:1')]
        """
        return [Device(kind.name, index) for kind in KINDS.values() for index in kind.present()]


_INFO: Final = Info()


def __array_namespace_info__() -> Info:
    """The namespace inspection object of the Array API standard.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.__array_namespace_info__().capabilities()["max dimensions"]
    64
    """
    return _INFO
