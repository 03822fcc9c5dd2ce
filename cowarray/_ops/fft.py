"""Discrete Fourier transforms (Array API standard, ``fft`` extension).

Each transform checks its arguments, calls the backend's ``xp.fft`` once and
wraps the fresh result. Precision is kept: single precision input gives
``complex64`` (or ``float32`` for the real-output transforms). Each takes
NumPy 2's ``out=`` (keyword-only): an Array of the result's shape, written
through copy-on-write under same-kind casting, as NumPy's.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any, Literal

from .._array import Array, fresh
from .._devices import CPU, Device, as_device
from .._dtypes import DEFAULT_FLOAT, complex64, complex128, float32, float64, to_dtype
from ._args import normalize_axes, normalize_axis, require_array
from ._out import write_out

__all__ = [
    "fft",
    "fftfreq",
    "fftn",
    "fftshift",
    "hfft",
    "ifft",
    "ifftn",
    "ifftshift",
    "ihfft",
    "irfft",
    "irfftn",
    "rfft",
    "rfftfreq",
    "rfftn",
]

Norm = Literal["backward", "ortho", "forward"]

_KIND_NAMES = {"fc": "floating-point", "f": "real floating-point"}


def _check_input(x: Any, function: str, kinds: str) -> None:
    require_array(x, "x", function)
    if x.dtype.kind not in kinds or x.dtype not in (float32, float64, complex64, complex128):
        raise TypeError(f"{function}: x must have a {_KIND_NAMES[kinds]} dtype, got {x.dtype}")


def _check_norm(norm: object, function: str) -> None:
    if norm not in ("backward", "ortho", "forward"):
        raise ValueError(f"{function}: norm must be 'backward', 'ortho' or 'forward', got {norm!r}")


def _length(value: object, name: str, function: str) -> int:
    if isinstance(value, bool):
        raise TypeError(f"{function}: {name} must be an int, got a bool")
    try:
        length = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"{function}: {name} must be an int, got {type(value).__name__}") from None
    if length < 1:
        raise ValueError(f"{function}: {name} must be at least 1, got {length}")
    return length


def _one_axis(name: str, kinds: str, x: Array, n: int | None, axis: int, norm: Norm) -> Array:
    _check_input(x, name, kinds)
    _check_norm(norm, name)
    if x.ndim == 0:
        raise ValueError(f"{name}: x must have at least one dimension")
    length = None if n is None else _length(n, "n", name)
    index = normalize_axis(axis, x.ndim)
    transform: Callable[..., Any] = getattr(x._device.backend.xp.fft, name)
    return fresh(transform(x._data, n=length, axis=index, norm=norm), x._device)


def _many_axes(
    name: str,
    kinds: str,
    x: Array,
    s: Sequence[int] | None,
    axes: Sequence[int] | None,
    norm: Norm,
) -> Array:
    _check_input(x, name, kinds)
    _check_norm(norm, name)
    if axes is not None:
        if not isinstance(axes, Sequence):
            raise TypeError(f"{name}: axes must be a sequence of ints, got {type(axes).__name__}")
        axes = normalize_axes(tuple(axes), x.ndim, "axes")
    if s is not None:
        if not isinstance(s, Sequence):
            raise TypeError(f"{name}: s must be a sequence of ints, got {type(s).__name__}")
        s = tuple(_length(d, "each entry of s", name) for d in s)
        if axes is None:
            if len(s) > x.ndim:
                raise ValueError(
                    f"{name}: s={s} has more entries than x has dimensions ({x.ndim}); "
                    "pass at most one length per axis"
                )
            axes = tuple(range(x.ndim - len(s), x.ndim))
        elif len(s) != len(axes):
            raise ValueError(f"{name}: s={s} and axes={axes} must have the same length")
    transform: Callable[..., Any] = getattr(x._device.backend.xp.fft, name)
    return fresh(transform(x._data, s=s, axes=axes, norm=norm), x._device)


def fft(
    x: Array,
    /,
    *,
    n: int | None = None,
    axis: int = -1,
    norm: Norm = "backward",
    out: Array | None = None,
) -> Array:
    """The one-dimensional discrete Fourier transform along ``axis``.

    Parameters
    ----------
    x : Array
        Floating-point input (real input is treated as complex).
    n : int, optional
        Length of the transformed axis: the input is cropped or zero-padded
        to it. Default: the axis' length.
    axis : int
        The axis to transform.
    norm : {"backward", "ortho", "forward"}
        Which direction is scaled: ``"backward"`` leaves the forward
        transform unscaled, ``"ortho"`` scales both by ``1/sqrt(n)``.
    out : Array, optional
        An Array of the result's shape to write the result into, through
        copy-on-write (NumPy's ``out=``, same-kind casting); keyword-only.

    Returns
    -------
    Array
        Complex, with ``x``'s precision.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.fft.fft(ca.asarray([1.0, 0.0, 0.0, 0.0]))
    cowarray.Array([1.+0.j, 1.+0.j, 1.+0.j, 1.+0.j], dtype=complex128)
    """
    if out is not None:
        return write_out(out, fft(x, n=n, axis=axis, norm=norm), "fft", "same_kind")
    return _one_axis("fft", "fc", x, n, axis, norm)


def ifft(
    x: Array,
    /,
    *,
    n: int | None = None,
    axis: int = -1,
    norm: Norm = "backward",
    out: Array | None = None,
) -> Array:
    """The inverse of :func:`fft` along ``axis``.

    Parameters
    ----------
    x : Array
        Floating-point input (real input is treated as complex).
    n : int, optional
        Length of the transformed axis: the input is cropped or zero-padded to it.
    axis : int
        The axis to transform.
    norm : {"backward", "ortho", "forward"}
        Which direction is scaled by ``1/n`` (``"ortho"``: both by ``1/sqrt(n)``).
    out : Array, optional
        An Array of the result's shape to write the result into, through
        copy-on-write (NumPy's ``out=``, same-kind casting); keyword-only.

    Returns
    -------
    Array
        Complex, with ``x``'s precision.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.fft.ifft(ca.asarray([4.0 + 0j, 0j, 0j, 0j]))
    cowarray.Array([1.+0.j, 1.+0.j, 1.+0.j, 1.+0.j], dtype=complex128)
    """
    if out is not None:
        return write_out(out, ifft(x, n=n, axis=axis, norm=norm), "ifft", "same_kind")
    return _one_axis("ifft", "fc", x, n, axis, norm)


def fftn(
    x: Array,
    /,
    *,
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: Norm = "backward",
    out: Array | None = None,
) -> Array:
    """The n-dimensional discrete Fourier transform over ``axes`` (all by default).

    ``s`` gives the length of each transformed axis (crop or zero-pad).

    Parameters
    ----------
    x : Array
        Floating-point input (real input is treated as complex).
    s : sequence of int, optional
        Length of each transformed axis (crop or zero-pad).
    axes : sequence of int, optional
        The axes to transform; default all, or the last ``len(s)``.
    norm : {"backward", "ortho", "forward"}
        Which direction is scaled.
    out : Array, optional
        An Array of the result's shape to write the result into, through
        copy-on-write (NumPy's ``out=``, same-kind casting); keyword-only.

    Returns
    -------
    Array
        Complex, with ``x``'s precision.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.fft.fftn(ca.ones((2, 2)))
    cowarray.Array([[4.+0.j, 0.+0.j],
                    [0.+0.j, 0.+0.j]], dtype=complex128)
    """
    if out is not None:
        return write_out(out, fftn(x, s=s, axes=axes, norm=norm), "fftn", "same_kind")
    return _many_axes("fftn", "fc", x, s, axes, norm)


def ifftn(
    x: Array,
    /,
    *,
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: Norm = "backward",
    out: Array | None = None,
) -> Array:
    """The inverse of :func:`fftn`.

    Parameters
    ----------
    x : Array
        Floating-point input (real input is treated as complex).
    s : sequence of int, optional
        Length of each transformed axis (crop or zero-pad).
    axes : sequence of int, optional
        The axes to transform; default all, or the last ``len(s)``.
    norm : {"backward", "ortho", "forward"}
        Which direction is scaled.
    out : Array, optional
        An Array of the result's shape to write the result into, through
        copy-on-write (NumPy's ``out=``, same-kind casting); keyword-only.

    Returns
    -------
    Array
        Complex, with ``x``'s precision.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.fft.ifftn(ca.asarray([[4.0 + 0j, 0j], [0j, 0j]]))
    cowarray.Array([[1.+0.j, 1.+0.j],
                    [1.+0.j, 1.+0.j]], dtype=complex128)
    """
    if out is not None:
        return write_out(out, ifftn(x, s=s, axes=axes, norm=norm), "ifftn", "same_kind")
    return _many_axes("ifftn", "fc", x, s, axes, norm)


def rfft(
    x: Array,
    /,
    *,
    n: int | None = None,
    axis: int = -1,
    norm: Norm = "backward",
    out: Array | None = None,
) -> Array:
    """The Fourier transform of real input: the ``n // 2 + 1`` non-negative frequencies.

    Parameters
    ----------
    x : Array
        Real floating-point input.
    n : int, optional
        Length of the transformed axis: the input is cropped or zero-padded to it.
    axis : int
        The axis to transform.
    norm : {"backward", "ortho", "forward"}
        Which direction is scaled by ``1/n`` (``"ortho"``: both by ``1/sqrt(n)``).
    out : Array, optional
        An Array of the result's shape to write the result into, through
        copy-on-write (NumPy's ``out=``, same-kind casting); keyword-only.

    Returns
    -------
    Array
        Complex, with ``x``'s precision; the axis has length ``n // 2 + 1``.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.fft.rfft(ca.asarray([1.0, 1.0, 1.0, 1.0]))
    cowarray.Array([4.+0.j, 0.+0.j, 0.+0.j], dtype=complex128)
    """
    if out is not None:
        return write_out(out, rfft(x, n=n, axis=axis, norm=norm), "rfft", "same_kind")
    return _one_axis("rfft", "f", x, n, axis, norm)


def irfft(
    x: Array,
    /,
    *,
    n: int | None = None,
    axis: int = -1,
    norm: Norm = "backward",
    out: Array | None = None,
) -> Array:
    """The inverse of :func:`rfft`: real output of length ``n`` (default ``2 * (m - 1)``).

    Parameters
    ----------
    x : Array
        Floating-point input: the non-negative frequency half of a spectrum.
    n : int, optional
        Length of the real output, default ``2 * (m - 1)`` for ``m`` input points.
    axis : int
        The axis to transform.
    norm : {"backward", "ortho", "forward"}
        Which direction is scaled by ``1/n`` (``"ortho"``: both by ``1/sqrt(n)``).
    out : Array, optional
        An Array of the result's shape to write the result into, through
        copy-on-write (NumPy's ``out=``, same-kind casting); keyword-only.

    Returns
    -------
    Array
        Real, with ``x``'s precision.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.fft.irfft(ca.asarray([4.0 + 0j, 0j, 0j]))
    cowarray.Array([1., 1., 1., 1.], dtype=float64)
    """
    if out is not None:
        return write_out(out, irfft(x, n=n, axis=axis, norm=norm), "irfft", "same_kind")
    return _one_axis("irfft", "fc", x, n, axis, norm)


def rfftn(
    x: Array,
    /,
    *,
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: Norm = "backward",
    out: Array | None = None,
) -> Array:
    """The n-dimensional Fourier transform of real input (last axis halved).

    Parameters
    ----------
    x : Array
        Real floating-point input.
    s : sequence of int, optional
        Length of each transformed axis (crop or zero-pad).
    axes : sequence of int, optional
        The axes to transform; default all, or the last ``len(s)``.
    norm : {"backward", "ortho", "forward"}
        Which direction is scaled.
    out : Array, optional
        An Array of the result's shape to write the result into, through
        copy-on-write (NumPy's ``out=``, same-kind casting); keyword-only.

    Returns
    -------
    Array
        Complex, with ``x``'s precision; the last axis has length ``s[-1] // 2 + 1``.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.fft.rfftn(ca.ones((2, 2))).shape
    (2, 2)
    """
    if out is not None:
        return write_out(out, rfftn(x, s=s, axes=axes, norm=norm), "rfftn", "same_kind")
    return _many_axes("rfftn", "f", x, s, axes, norm)


def irfftn(
    x: Array,
    /,
    *,
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: Norm = "backward",
    out: Array | None = None,
) -> Array:
    """The inverse of :func:`rfftn`: real output.

    Parameters
    ----------
    x : Array
        Floating-point input: the non-negative frequency half of a spectrum.
    s : sequence of int, optional
        Length of each output axis; the last defaults to ``2 * (m - 1)``.
    axes : sequence of int, optional
        The axes to transform; default all, or the last ``len(s)``.
    norm : {"backward", "ortho", "forward"}
        Which direction is scaled.
    out : Array, optional
        An Array of the result's shape to write the result into, through
        copy-on-write (NumPy's ``out=``, same-kind casting); keyword-only.

    Returns
    -------
    Array
        Real, with ``x``'s precision.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.fft.irfftn(ca.asarray([[4.0 + 0j, 0j], [0j, 0j]]))
    cowarray.Array([[1., 1.],
                    [1., 1.]], dtype=float64)
    """
    if out is not None:
        return write_out(out, irfftn(x, s=s, axes=axes, norm=norm), "irfftn", "same_kind")
    return _many_axes("irfftn", "fc", x, s, axes, norm)


def hfft(
    x: Array,
    /,
    *,
    n: int | None = None,
    axis: int = -1,
    norm: Norm = "backward",
    out: Array | None = None,
) -> Array:
    """The transform of a Hermitian-symmetric signal given by its first half: real output.

    Parameters
    ----------
    x : Array
        Floating-point input: the non-negative frequency half of a spectrum.
    n : int, optional
        Length of the real output, default ``2 * (m - 1)`` for ``m`` input points.
    axis : int
        The axis to transform.
    norm : {"backward", "ortho", "forward"}
        Which direction is scaled by ``1/n`` (``"ortho"``: both by ``1/sqrt(n)``).
    out : Array, optional
        An Array of the result's shape to write the result into, through
        copy-on-write (NumPy's ``out=``, same-kind casting); keyword-only.

    Returns
    -------
    Array
        Real, with ``x``'s precision.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.fft.hfft(ca.asarray([1.0 + 0j, 0j, 0j]))
    cowarray.Array([1., 1., 1., 1.], dtype=float64)
    """
    if out is not None:
        return write_out(out, hfft(x, n=n, axis=axis, norm=norm), "hfft", "same_kind")
    return _one_axis("hfft", "fc", x, n, axis, norm)


def ihfft(
    x: Array,
    /,
    *,
    n: int | None = None,
    axis: int = -1,
    norm: Norm = "backward",
    out: Array | None = None,
) -> Array:
    """The inverse of :func:`hfft`: the first half of a Hermitian spectrum from real input.

    Parameters
    ----------
    x : Array
        Real floating-point input.
    n : int, optional
        Length of the transformed axis: the input is cropped or zero-padded to it.
    axis : int
        The axis to transform.
    norm : {"backward", "ortho", "forward"}
        Which direction is scaled by ``1/n`` (``"ortho"``: both by ``1/sqrt(n)``).
    out : Array, optional
        An Array of the result's shape to write the result into, through
        copy-on-write (NumPy's ``out=``, same-kind casting); keyword-only.

    Returns
    -------
    Array
        Complex, with ``x``'s precision; the axis has length ``n // 2 + 1``.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.fft.ihfft(ca.asarray([1.0, 1.0, 1.0, 1.0]))
    cowarray.Array([1.-0.j, 0.-0.j, 0.-0.j], dtype=complex128)
    """
    if out is not None:
        return write_out(out, ihfft(x, n=n, axis=axis, norm=norm), "ihfft", "same_kind")
    return _one_axis("ihfft", "f", x, n, axis, norm)


def _frequencies(name: str, n: int, d: float, dtype: Any, device: Device | str | None) -> Array:
    count = _length(n, "n", name)
    if isinstance(d, bool) or not isinstance(d, (int, float)):
        raise TypeError(f"{name}: d must be a float, got {type(d).__name__}")
    if d == 0:
        raise ValueError(f"{name}: d (the sample spacing) must not be zero; pass d > 0")
    resolved = DEFAULT_FLOAT if dtype is None else to_dtype(dtype)
    if resolved not in (float32, float64):
        raise ValueError(f"{name}: dtype must be a real floating-point dtype, got {resolved}")
    target = CPU if device is None else as_device(device)
    data = getattr(target.backend.xp.fft, name)(count, d=float(d))
    return fresh(data if data.dtype == resolved else data.astype(resolved), target)


def fftfreq(
    n: int,
    /,
    *,
    d: float = 1.0,
    dtype: Any = None,
    device: Device | str | None = None,
) -> Array:
    """The sample frequencies of an ``n``-point :func:`fft` with sample spacing ``d``.

    Parameters
    ----------
    n : int
        The number of samples.
    d : float
        The sample spacing.
    dtype : dtype, optional
        A real floating-point dtype; default ``float64``.
    device : Device or str, optional
        Default ``"cpu"``.

    Returns
    -------
    Array
        ``[0, 1, ..., -2, -1] / (d * n)``: the ``(n - 1) // 2 + 1`` non-negative
        frequencies, then the negative ones.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.fft.fftfreq(4, d=0.5)
    cowarray.Array([ 0. ,  0.5, -1. , -0.5], dtype=float64)
    >>> ca.fft.fftfreq(2, dtype=ca.float32, device="cpu:1")
    cowarray.Array([ 0. , -0.5], dtype=float32, device='cpu:1')
    """
    return _frequencies("fftfreq", n, d, dtype, device)


def rfftfreq(
    n: int,
    /,
    *,
    d: float = 1.0,
    dtype: Any = None,
    device: Device | str | None = None,
) -> Array:
    """The sample frequencies of an ``n``-point :func:`rfft` (non-negative only).

    Parameters
    ----------
    n : int
        The number of samples.
    d : float
        The sample spacing.
    dtype : dtype, optional
        A real floating-point dtype; default ``float64``.
    device : Device or str, optional
        Default ``"cpu"``.

    Returns
    -------
    Array
        ``[0, 1, ..., n//2] / (d * n)``.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.fft.rfftfreq(4)
    cowarray.Array([0.  , 0.25, 0.5 ], dtype=float64)
    """
    return _frequencies("rfftfreq", n, d, dtype, device)


def _shift(name: str, x: Array, axes: int | Sequence[int] | None) -> Array:
    require_array(x, "x", name)
    if axes is not None and not isinstance(axes, Sequence):
        axes = (axes,)
    normalized = None if axes is None else normalize_axes(tuple(axes), x.ndim, "axes")
    shift: Callable[..., Any] = getattr(x._device.backend.xp.fft, name)
    return fresh(shift(x._data, axes=normalized), x._device)


def fftshift(x: Array, /, *, axes: int | Sequence[int] | None = None) -> Array:
    """``x`` rolled so that the zero frequency sits in the middle of ``axes``.

    Parameters
    ----------
    x : Array
        Any array.
    axes : int or sequence of int, optional
        The axes to roll; default all.

    Returns
    -------
    Array
        A new array with ``x``'s shape and dtype.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.fft.fftshift(ca.fft.fftfreq(4))
    cowarray.Array([-0.5 , -0.25,  0.  ,  0.25], dtype=float64)
    """
    return _shift("fftshift", x, axes)


def ifftshift(x: Array, /, *, axes: int | Sequence[int] | None = None) -> Array:
    """The inverse of :func:`fftshift`.

    Parameters
    ----------
    x : Array
        Any array.
    axes : int or sequence of int, optional
        The axes to roll; default all.

    Returns
    -------
    Array
        A new array with ``x``'s shape and dtype.

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.fft.ifftshift(ca.asarray([-2, -1, 0, 1]))
    cowarray.Array([ 0,  1, -2, -1], dtype=int64)
    """
    return _shift("ifftshift", x, axes)
