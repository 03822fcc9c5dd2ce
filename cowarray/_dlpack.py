"""DLPack: the aliasing boundary (docs/design.md rule 5), export and import policy.

Consumers may write through what they import (torch ignores DLPack's
read-only flag), so memory that crosses the boundary is never shared lazily:

* **Export** (:meth:`Array.__dlpack__`). ``copy=None``: the array first gets
  memory no other holder sees (``cowarray._core.expose`` copies only if it
  is shared, read-only or a broadcast view), and in the same step its buffer
  is *exposed*, until the consumer releases the capsule's memory. The backend
  exports a private view and tells us when that view dies, which is exactly
  when the consumer calls the capsule's deleter (or when the capsule dies
  unconsumed). ``copy=True`` exports a fresh copy (DLPack's IS_COPIED flag in
  versioned capsules); so does ``copy=None`` for a layout consumers refuse
  (negative strides). ``copy=False`` raises BufferError if a copy is needed.
  ``dl_device=(1, 0)`` (kDLCPU) on a GPU array exports a host copy (what
  ``np.from_dlpack(x, device="cpu")`` asks for); other devices are refused.
* **Import** (:func:`from_dlpack`). Zero-copy; the buffer is *foreign* (its
  producer may write it). ``copy=True`` gives an independent value.
  ``device="cpu"`` for data on a GPU first asks the producer for its own
  host copy (``dl_device=(1, 0), copy=True``, the standard's way, which
  needs no CuPy); a producer that makes none is imported on its GPU and moved.
* **No second alias.** Two cowarray arrays never alias each other. Memory
  given out or taken in is entered in a registry of *boundary regions*
  (the core's boundary, cowarray._core.boundary): an export until its
  consumer releases it, an import until its record dies. An import whose bytes may overlap a region
  (``from_torch(to_torch(x))``, a torch view of it, the same tensor imported
  twice) is copied instead; an import enters its memory before it checks,
  so two imports of one producer at once never both alias it. An Array
  passed to :func:`from_dlpack` itself gives a lazy clone.
* **torch on the host** (:mod:`cowarray.interop.torch`) takes the same
  policy without a capsule: ``cowarray._core.exposed_view`` is the
  export (a view whose death is the release) and :func:`import_zero_copy` the import.
* **Every import copy is visible** (rule 9). An import that copies (a
  second alias, a round trip, ``copy=True``, a move to another device,
  ``asarray`` of a NumPy array, a tensor or a buffer) goes through
  :func:`count_import_copy`: traced as a copy at the user's line, counted,
  and warned about by ``warn_on_copy``. So is a copy the producer made
  because we asked (``copy=True``, a host copy of device data): the user's
  call asked for it, as ``x.copy()`` of foreign memory counts its eager copy.
  A zero-copy import counts nothing.

Events for :mod:`cowarray.debug` observers (``nbytes`` is the bytes handed
over): ``"export"`` with the exposed buffer, or with None for a copy;
``"exposure_end"`` when a consumer releases; ``"import"`` with the foreign
buffer, or with None for a copy, which ``"import_copy"`` (``nbytes`` copied,
no buffer) reports first.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any, Final, TypeGuard

from ._array import Array, host_copy, private
from ._backends import dlpack_import_stream
from ._consumers import REFUSED, called_from_a_library_that_keeps_conversions, refused_numpy_call
from ._core import (
    PENDING,
    count_copy,
    export_site,
    expose,
    family_export,
    flush,
    holder_count,
    import_foreign,
    lazy_clone,
    notify,
    state_of,
)
from ._devices import CPU, Device, as_device
from ._dtypes import ALL_DTYPES
from ._interpreter import calling_code

if TYPE_CHECKING:
    pass

__all__ = [
    "copied_import",
    "count_import_copy",
    "device_data_of",
    "export",
    "from_dlpack",
    "import_zero_copy",
]


#: DLPack device types whose memory the host can read (CPU, CUDA/ROCm pinned host).
_HOST_DEVICE_TYPES: Final = frozenset({1, 3, 11})
_DL_CUDA: Final = 2
_HOST: Final = (1, 0)
_MAX_VERSION: Final = (1, 0)


# -- argument checks -----------------------------------------------------------


def _check_copy(copy: object, function: str) -> None:
    if copy is not None and type(copy) is not bool:
        raise TypeError(f"{function}: copy must be True, False or None, got {copy!r}")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_pair_of_ints(value: object) -> TypeGuard[tuple[int, int]]:
    return isinstance(value, tuple) and len(value) == 2 and all(map(_is_int, value))


def _check_max_version(max_version: object) -> tuple[int, int] | None:
    if max_version is None:
        return None
    if max_version == _MAX_VERSION:  # what consumers pass: the fast path
        return _MAX_VERSION
    if not _is_pair_of_ints(max_version):
        raise TypeError(
            f"__dlpack__: max_version must be None or a (major, minor) tuple of ints, "
            f"got {max_version!r}"
        )
    return int(max_version[0]), int(max_version[1])


def _check_dl_device(dl_device: object, name: str) -> tuple[int, int] | None:
    if dl_device is None:
        return None
    if not _is_pair_of_ints(dl_device):
        raise TypeError(
            f"{name} must be a (device type, device index) tuple of ints, got {dl_device!r}"
        )
    return int(dl_device[0]), int(dl_device[1])


# -- boundary regions: memory that something outside cowarray may alias --------


# -- export ----------------------------------------------------------------------


def export(x: Array, *, stream: Any, max_version: object, dl_device: object, copy: object) -> Any:
    """The policy behind :meth:`Array.__dlpack__` (see the module docstring)."""
    _check_copy(copy, "__dlpack__")
    version = _check_max_version(max_version)
    device = _check_dl_device(dl_device, "__dlpack__: dl_device")
    backend = x._device.backend
    own = backend.dlpack_device(x._data)
    if device == _HOST and own[0] not in _HOST_DEVICE_TYPES:
        return _export_to_host(x, version, copy)
    _check_target(own, stream, device)
    if copy is None and backend.dlpack_export_problem(x._data) is not None:
        copy = True  # a layout consumers refuse: hand over a compact copy
    if copy:
        capsule = backend.export_dlpack(
            x._data,
            stream=stream,
            max_version=version,
            dl_device=device,
            copy=True,
            on_release=None,
        )
        _mark_copied(capsule)  # CuPy's capsule of our copy does not say so
        count_copy("export_copy", x, int(x._data.nbytes))
        notify("export", x, None, int(x._data.nbytes))
        return capsule
    if copy is False:
        reason = _why_a_copy_is_needed(x)
        if reason is not None:
            raise BufferError(
                f"__dlpack__(copy=False) cannot export this array without copying: {reason}; "
                "use copy=None (copy only if needed) or copy=True"
            )
    return _expose(x, stream, version, device, copy_allowed=copy is None)


def _export_to_host(x: Array, version: tuple[int, int] | None, copy: object) -> Any:
    """A host copy of a device array, exported: the consumer asked for kDLCPU."""
    if copy is False:
        raise BufferError(
            f"__dlpack__(dl_device=(1, 0), copy=False): this array is on {x.device}; "
            "moving it to the host needs a copy (use copy=None or copy=True)"
        )
    host = x._device.backend.to_numpy(x._data)  # waits for the device's pending work
    capsule = CPU.backend.export_dlpack(
        host, stream=None, max_version=version, dl_device=None, copy=False, on_release=None
    )
    _mark_copied(capsule)
    count_copy("export_copy", x, int(x._data.nbytes))
    notify("export", x, None, int(x._data.nbytes))
    return capsule


def _check_target(own: tuple[int, int], stream: Any, dl_device: tuple[int, int] | None) -> None:
    # Checked before anything happens, so a refusal changes nothing.
    if dl_device is not None and dl_device != own:
        raise BufferError(
            f"__dlpack__: cannot export to dl_device={dl_device}: this array is on DLPack "
            f"device {own}, and cowarray exports memory where it lies"
        )
    if own[0] in _HOST_DEVICE_TYPES and stream is not None:
        raise ValueError(
            f"__dlpack__: stream must be None for arrays in host memory (nothing to "
            f"synchronize), got {stream!r}"
        )


def _why_a_copy_is_needed(x: Array) -> str | None:
    backend = x._device.backend
    problem = backend.dlpack_export_problem(x._data)
    if problem is not None:
        return problem
    others = holder_count(x) - 1
    if others:
        return (
            f"its buffer has {others} other holder(s) (lazy clones, views or NumPy exports) "
            "that must not see a consumer's writes"
        )
    if not x._data.size:
        return None  # an empty view has nothing a consumer could write: no copy
    read_only = x._buf is not None and x._buf.read_only  # (a flag CuPy's arrays lose)
    if read_only or backend.must_copy_before_write(x._data):
        return "its memory cannot be written in place (read-only, or a broadcast view)"
    return None


def _expose(
    x: Array,
    stream: Any,
    version: tuple[int, int] | None,
    device: tuple[int, int] | None,
    *,
    copy_allowed: bool,
) -> Any:
    backend = x._device.backend

    def capsule(data: Any, release: Callable[[], None]) -> Any:
        return backend.export_dlpack(
            data,
            stream=stream,
            max_version=version,
            dl_device=device,
            copy=False,
            on_release=release,
        )

    # the line that called the consumer's from_dlpack (torch's is Python code)
    where = export_site(x, skip=("from_dlpack",))
    in_family = _in_family(x, capsule, _THROUGH_DLPACK, where)
    return expose(x, in_family, copy_allowed=copy_allowed, consumer="__dlpack__")


def _in_family(
    x: Array,
    hand_out: Callable[[Any, Callable[[], None]], Any],
    through: str,
    where: Any,
) -> Callable[[Any, Callable[[], None]], Any]:
    """``hand_out(data, release)`` with its consumer counted in ``x``'s view
    family until it releases the memory (in NumPy it would share memory with
    every view of ``x``) and, where ``where`` is given, the exported memory
    compared with a snapshot at release (cowarray._core.family_export)."""
    xp = x._device.backend.xp

    def handed_out(data: Any, release: Callable[[], None]) -> Any:
        end = family_export(x, data, xp, where, through)
        try:
            return hand_out(data, _release_in_family(release, end))
        except BaseException:
            end()  # no consumer after all
            raise

    return handed_out


def export_to_numpy(x: Array, *, copy_allowed: bool) -> Any:
    """The policy behind ``np.asarray(x)``: a writable NumPy view of exposed memory.

    The same boundary as a DLPack export (the consumer may write, as it may
    write what ``torch.from_numpy`` or ``tensor.numpy()`` give): ``x`` first
    gets private memory, exposed while the view or any NumPy view derived
    from it lives. Refusals raise ValueError, as NumPy's ``copy=False`` does.

    The export counts as a member of ``x``'s view family while it lives (in
    NumPy it would share memory with every view of ``x``): ``a =
    np.asarray(x); v = x[0]; del x; v[1] = 5`` warns. A view whose family
    still lives (``np.asarray(out[k])`` as SciPy's ``output=`` does) gets
    memory of its own here, so a consumer's writes cannot reach ``out`` as
    NumPy's would: the export is compared with a snapshot when its last
    NumPy view dies (or at exit), and a difference is reported as a view
    write naming the line of ``np.asarray``, at that thread's next
    operation (docs/design.md, rule 1; ``cowarray._core.family_export``).
    """
    where = export_site(x)
    numpy_view = _in_family(x, x._device.backend.numpy_view, _THROUGH_NUMPY, where)
    try:
        return expose(x, numpy_view, copy_allowed=copy_allowed, consumer="np.asarray")
    except BufferError as error:
        raise ValueError(str(error)) from None


_THROUGH_NUMPY: Final = "a write through np.asarray(view)"
_THROUGH_DLPACK: Final = "a write through a DLPack export of a view (__dlpack__)"


def _release_in_family(release: Callable[[], None], end: Callable[[], None]) -> Callable[[], None]:
    """``release``, then ``end`` (the export's count in its view family)."""

    def release_in_family() -> None:
        release()
        end()

    return release_in_family


# -- the Array's export methods ------------------------------------------------


def array_dlpack(
    self: Array,
    /,
    *,
    stream: Any = None,
    max_version: tuple[int, int] | None = None,
    dl_device: tuple[int, int] | None = None,
    copy: bool | None = None,
) -> Any:
    """``Array.__dlpack__``: export as a DLPack capsule (an aliasing boundary, rule 5).

    ``copy=None`` shares memory with the consumer: this array first gets a
    buffer no other value holds, which stays *exposed* (its clones copy
    eagerly) until the consumer releases it. ``copy=True`` exports a copy;
    ``copy=False`` raises BufferError if one is needed.

    Examples
    --------
    >>> import numpy as np
    >>> import cowarray as ca
    >>> x = ca.asarray([1.0, 2.0])
    >>> shared = np.from_dlpack(x)     # zero-copy: NumPy and x alias
    >>> ca.cow_info(x).state
    'exposed'
    >>> del shared                     # the consumer released the memory
    >>> ca.cow_info(x).state
    'private'
    """
    if PENDING:
        flush()
    return export(self, stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)


def array_to_numpy(self: Array, dtype: Any = None, copy: bool | None = None) -> Any:
    """``Array.__array__``: a NumPy array of these values, by default a writable alias.

    ``np.asarray(x)`` crosses the same boundary as a DLPack export
    (docs/design.md, rule 4): ``x`` first gets memory no other cowarray
    value holds (a copy of its region if it shares), and that memory is
    *exposed* while the view, or any NumPy view derived from it, lives.
    Writes through it change ``x``, as with ``tensor.numpy()``, and never
    any other cowarray value. ``copy=True`` (``np.array(x)``) gives an
    independent copy; ``copy=False`` raises ValueError where ``None``
    would copy. GPU memory raises TypeError, as CuPy's does: copy it with
    ``to_device("cpu")``.
    """
    if calling_code(0) in REFUSED:  # np.vectorize, as_strided: (_consumers)
        refused = refused_numpy_call(1)
        if refused is not None:
            raise refused
    if PENDING:
        flush()
    backend = self._device.backend
    refusal = backend.numpy_export_refusal()
    if refusal is not None:  # GPU memory: as CuPy, never implicitly
        raise TypeError(refusal)
    if (
        copy
        or (dtype is not None and dtype != self._data.dtype)
        # pandas keeps what it converts: a copy, as it makes of an ndarray (rule 4)
        or (copy is None and called_from_a_library_that_keeps_conversions(1))
    ):
        if copy is False:
            raise ValueError(
                f"np.asarray(x, dtype={dtype}, copy=False): converting {self.dtype} needs a copy"
            )
        copied = host_copy(backend.to_numpy(self._data), dtype)
        count_copy("export_copy", self, int(self._data.nbytes))
        return copied
    return export_to_numpy(self, copy_allowed=copy is None)


#: Why an Array has no buffer protocol, and what to write instead.
NO_BUFFER: Final = (
    "np.frombuffer(x), memoryview(x) and bytes(x) need Python's buffer protocol, which a "
    "cowarray Array does not offer: NumPy asks it first in every conversion, np.array(x) "
    "included, so offering it would expose x's memory where a copy was asked for. For x's "
    "bytes use np.asarray(x).tobytes(); to read them as another dtype, x.view(dtype); for "
    "NumPy's view of x's memory, np.asarray(x)"
)


def array_buffer(self: Array, flags: int, /) -> memoryview:
    """``Array.__buffer__`` (Python 3.12 and later): refused, naming what to write instead.

    Without it Python's own words would be "a bytes-like object is required".
    NumPy tries the buffer protocol before ``__array__`` and goes on to
    ``__array__`` when it is refused, so ``np.asarray(x)`` is unchanged.
    """
    raise TypeError(NO_BUFFER)


def register() -> None:
    """Attach ``__dlpack__``, ``__array__`` and ``__buffer__`` to the Array (once, by
    ``cowarray/__init__.py``)."""
    # (set by name: the class declares them for type checkers, cowarray._array)
    for name, function in (
        ("__dlpack__", array_dlpack),
        ("__array__", array_to_numpy),
        ("__buffer__", array_buffer),  # (read from Python 3.12)
    ):
        setattr(Array, name, function)


# -- import ----------------------------------------------------------------------


def from_dlpack(
    x: object, /, *, device: Device | str | None = None, copy: bool | None = None
) -> Array:
    """An Array with the data of ``x``, any object with ``__dlpack__``.

    Parameters
    ----------
    x : object
        A producer: a torch tensor, a NumPy array, a cowarray Array, any
        object with ``__dlpack__`` and ``__dlpack_device__`` (or an unused
        DLPack capsule).
    device : Device or str, optional
        Where to put the result; the producer's device by default. Another
        device means a copy.
    copy : bool, optional
        ``None`` (default): zero-copy. The result aliases the producer in
        both directions (its writes show through; so do the result's, unless
        the producer is read-only, in which case the result copies before its
        first write), and the result's lazy clones and derived arrays copy
        eagerly so no other cowarray value sees the producer's writes.
        Memory that already lies inside a cowarray buffer (a round trip
        through torch, memory imported before, or ``x`` an Array) gives a
        copy or a lazy clone, never a second alias. ``True``: an independent value. ``False``:
        never copy; BufferError where ``None`` would copy.

    Returns
    -------
    Array

    Notes
    -----
    Every copy the import makes is counted by :func:`cowarray.copy_counters`,
    traced by :func:`cowarray.trace` and warned about by
    :func:`cowarray.warn_on_copy`, the producer's copy for ``copy=True``
    included; a zero-copy import counts nothing.

    Raises
    ------
    BufferError
        The data cannot be imported (unsupported dtype or device, a capsule
        that was already consumed), or ``copy=False`` and a copy is needed.
    TypeError
        ``x`` has no ``__dlpack__``, or a keyword has the wrong type.
    ValueError
        ``device`` differs from the producer's and ``copy=False``.

    Examples
    --------
    >>> import numpy as np
    >>> import cowarray as ca
    >>> producer = np.arange(3.0)
    >>> x = ca.from_dlpack(producer)
    >>> producer[0] = 10.0             # x aliases the producer
    >>> x
    cowarray.Array([10.,  1.,  2.], dtype=float64)
    >>> ca.cow_info(x).state
    'foreign'
    >>> y = ca.from_dlpack(producer, copy=True)
    >>> producer[1] = 20.0             # y is an independent value
    >>> y
    cowarray.Array([10.,  1.,  2.], dtype=float64)
    """
    _check_copy(copy, "from_dlpack")
    target = None if device is None else as_device(device)
    if type(x) is Array:
        return _from_own_array(x, target, copy)
    refusal = None
    if target is not None and target.kind == "cpu":
        host_copy, refusal = _host_copy_from(x, copy)
        if host_copy is not None:
            return _on_device(host_copy, target, copy)
    try:
        source_device, producer_copied, capsule, dl_device = _negotiate(x, copy)
    except BufferError as error:
        if refusal is None:
            raise
        # Both ways failed; the producer's own reason may be the one to fix
        # (torch: "Can't export tensors that require gradient").
        raise BufferError(
            f"{error} (asked for a host copy first, the producer said: {refusal})"
        ) from refusal
    backend = source_device.backend
    read_only = bool(_capsule_flags(capsule) & _FLAG_READ_ONLY)
    data = _check_importable(backend.import_dlpack(capsule, dl_device))
    if copy and not producer_copied:  # an older producer ignored copy=True
        array = _copied_import(data, source_device)
    elif copy:
        # The producer's copy, made because we asked: the import's copy.
        array = copied_import(private(data, source_device))
    else:
        array = import_zero_copy(
            data, source_device, read_only=read_only, copy_allowed=copy is None
        )
    return _on_device(array, target, copy)


def device_data_of(x: object) -> tuple[int, int] | None:
    """The DLPack device of ``x``'s data when that is not host memory (a CuPy
    array, a CUDA torch tensor): ``(kind, index)``; None for host data and for
    anything that does not say where its data is."""
    ask = getattr(x, "__dlpack_device__", None)
    if ask is None or type(x) is CPU.backend.array_type:
        return None
    try:
        kind, index = (int(part) for part in ask())
    except Exception:  # not a usable answer: treat it as host data
        return None
    return None if kind in _HOST_DEVICE_TYPES else (kind, index)


#: The dtypes cowarray holds, as a set (one hash, not a scan of ==).
_IMPORTABLE: Final = frozenset(ALL_DTYPES)


def _check_importable(data: Any) -> Any:
    if data.dtype not in _IMPORTABLE:  # e.g. bfloat16, which CuPy takes with ml_dtypes
        raise BufferError(
            f"from_dlpack: cowarray holds bool, integer, floating and complex data, not "
            f"{data.dtype}; convert it in the producer first"
        )
    return data


def _host_copy_from(x: object, copy: bool | None) -> tuple[Array | None, Exception | None]:
    """The producer's own host copy of its device data, for ``device="cpu"``.

    This is the standard's way to reach device memory from the host
    (``__dlpack__(dl_device=(kDLCPU, 0), copy=True)``): it needs no CuPy, so
    a CUDA torch tensor of the current GPU becomes a host array without it.
    Returns ``(array, None)``, or ``(None, why)`` when ``x`` is host data
    already or its producer made no host copy (the caller then imports the
    data on its device and moves it); ``why`` is the producer's refusal.
    """
    if _is_capsule(x):
        return None, None
    method, dl_device = _producer(x)
    if dl_device[0] in _HOST_DEVICE_TYPES:
        return None, None
    if copy is False:
        raise ValueError(
            f"from_dlpack(..., device='cpu', copy=False): the data is on DLPack device "
            f"{dl_device}, so a host array needs a copy"
        )
    context: AbstractContextManager[object]
    try:
        # Its GPU current where cowarray can set it, as for any export: torch
        # refuses a tensor of another GPU, and CuPy copies on the current one's stream.
        context = _device_for(dl_device).backend.device_context()
    except BufferError:  # no CuPy, or no such GPU: the producer is on its own
        context = nullcontext()
    try:
        with context:
            capsule = method(max_version=_MAX_VERSION, dl_device=_HOST, copy=True)
    except TypeError:  # a producer from before dl_device
        return None, None
    except (ValueError, BufferError, NotImplementedError) as refusal:
        return None, refusal
    _check_unused(capsule)
    if _capsule_device(capsule)[0] not in _HOST_DEVICE_TYPES:
        return None, None  # ignored dl_device; the capsule is released unused
    # A producer that took copy=True made the copy (torch does so without
    # flagging it IS_COPIED): the memory is the result's alone.
    data = _check_importable(CPU.backend.import_dlpack(capsule, _HOST))
    return copied_import(private(data, CPU)), None


def import_zero_copy(
    data: Any, device: Device, *, read_only: bool = False, copy_allowed: bool = True
) -> Array:
    """The end of every zero-copy import: ``data`` (producer memory) as a
    *foreign* Array, or a copy where aliasing it would not be safe.

    Memory that lies inside a cowarray buffer (exposed or foreign) is copied
    (``copy_allowed``) or refused with BufferError, and an empty array is a
    fresh one (it pins no producer). Two imports of one producer never both
    alias it (:meth:`_Regions.enter_foreign`). ``read_only``: the producer
    said its memory must not be written (DLPack's READ_ONLY flag), which
    CuPy's arrays cannot carry: every write copies first.
    """
    data = _check_importable(data)
    if not data.size:  # no bytes to alias: a fresh empty array pins no producer
        return _copied_import(data, device)
    array: Array | None = import_foreign(data, device, read_only)
    if array is None:
        if not copy_allowed:
            raise BufferError(
                "from_dlpack(..., copy=False): this memory lies inside a cowarray buffer "
                "(one exported with __dlpack__/to_torch, or imported already); a second "
                "zero-copy alias would let one cowarray value change another, so it must "
                "be copied (use copy=None)"
            )
        return _copied_import(data, device)
    return array


def count_import_copy(array: Array, nbytes: int) -> None:
    """Count and show a copy of ``nbytes`` that an import made; ``array`` holds it.

    The one place where the copies of imports (:func:`from_dlpack`,
    ``from_torch``, ``asarray`` of a NumPy array, a tensor or a buffer)
    become visible, as docs/design.md rule 9 asks of every copy: the
    observer, if anyone looks, records it (a ``materialize`` row in
    :func:`cowarray.trace`, a :class:`cowarray.CopyWarning` under
    :func:`cowarray.warn_on_copy`), and the process-wide copy counters add it.

    Parameters
    ----------
    array : Array
        The new Array that holds the copy; no other value has seen it yet.
    nbytes : int
        The bytes copied.

    Notes
    -----
    A copy the producer made because the import asked for one (``copy=True``,
    a host copy of device data, torch resolving a conjugate bit) counts as
    the import's copy: cowarray asked for it on the user's behalf, as a lazy
    clone of foreign memory (``x.copy()``, ``asarray(x, copy=True)``) counts
    the eager copy it makes. A conversion to another dtype computes new
    values and is not counted, as :func:`cowarray.astype` is not. An empty
    array copies no byte and counts nothing.

    The observer comes first: a warning turned into an error refuses the
    copy, which is then not counted; the caller's exception drops ``array``,
    so no value ever held the refused copy.
    """
    count_copy("import_copy", array, nbytes)


def copied_import(array: Array) -> Array:
    """``array``, a new Array holding an import's copy: counted, shown, and
    reported as the import (an ``"import"`` event without a buffer)."""
    nbytes = int(array._data.nbytes)
    count_import_copy(array, nbytes)
    notify("import", array, None, nbytes)
    return array


def _copied_import(data: Any, device: Device) -> Array:
    return copied_import(private(device.backend.copy(data), device))


def _on_device(array: Array, target: Device | None, copy: bool | None) -> Array:
    if target is None or target is array._device:
        return array
    if copy is False:
        raise ValueError(
            f"from_dlpack(..., device={str(target)!r}, copy=False): the data is on "
            f"{array._device}; moving it to {target} needs a copy"
        )
    return array.to_device(target)  # (it counts a move's copy)


def _from_own_array(x: Array, target: Device | None, copy: bool | None) -> Array:
    # No capsule: within cowarray a value is passed on as a lazy clone.
    if target is not None and target is not x._device:
        return _on_device(x, target, copy)
    if copy is False and state_of(x) in ("exposed", "foreign"):
        raise BufferError(
            f"from_dlpack(x, copy=False): x's buffer is {state_of(x)} (memory outside "
            "cowarray may write it), so the result must be a copy; use copy=None"
        )
    return lazy_clone(x)


def _negotiate(x: object, copy: bool | None) -> tuple[Device, bool, Any, tuple[int, int]]:
    """Ask the producer for a capsule: (device, whether it copied, capsule, DLPack device)."""
    if _is_capsule(x):
        _check_unused(x)
        in_capsule = _capsule_device(x)
        return _device_for(in_capsule), False, x, in_capsule
    method, dl_device = _producer(x)
    source = _device_for(dl_device)
    attempts: list[dict[str, Any]] = [{"max_version": _MAX_VERSION}, {}]
    # On a GPU, copy=True is not the producer's to make: torch records the
    # event the consumer's stream waits on *before* it enqueues its copy, so
    # that copy could be read half-done (seen on an H200). The import is
    # zero-copy, ordered by the handshake, and the caller copies it.
    producer_copies = copy is False or (copy is True and dl_device[0] != _DL_CUDA)
    if producer_copies:
        attempts = [{**kwargs, "copy": copy} for kwargs in attempts] + [{}]
    # A producer exports from its device's current stream (torch refuses a
    # tensor of another GPU than the current one): make the source GPU current.
    with source.backend.device_context(), dlpack_import_stream(source.backend) as stream:
        if stream is not None:
            # The standard: the consumer names its stream, and the producer
            # makes that stream wait for its pending work on the memory.
            attempts = [{**kwargs, "stream": stream} for kwargs in attempts]
        capsule, kwargs = _ask(method, attempts)
    _check_unused(capsule)
    return source, "copy" in kwargs and copy is True, capsule, dl_device


def _producer(x: object) -> tuple[Any, tuple[int, int]]:
    """``x.__dlpack__`` and the DLPack device ``x`` says its data is on."""
    method = getattr(x, "__dlpack__", None)
    device_method = getattr(x, "__dlpack_device__", None)
    if method is None or device_method is None:
        raise TypeError(
            "from_dlpack expects an object with __dlpack__ and __dlpack_device__ (a torch "
            f"tensor, a NumPy array, a cowarray Array, ...), got {type(x).__name__}"
        )
    dl_device = _check_dl_device(tuple(device_method()), "the producer's __dlpack_device__()")
    assert dl_device is not None
    return method, dl_device


def _ask(method: Any, attempts: list[dict[str, Any]]) -> tuple[Any, dict[str, Any]]:
    """Call ``__dlpack__`` with each keyword set in turn until one is accepted."""
    for kwargs in attempts[:-1]:
        try:
            return method(**kwargs), kwargs
        except TypeError:  # an older producer: retry without the newer keywords
            continue
        except BufferError:
            # A producer that cannot honour copy=True itself (CuPy on its own
            # device): ask without it; the caller then copies the import.
            if kwargs.get("copy") is not True:
                raise
            continue
    return method(**attempts[-1]), attempts[-1]


def _device_for(dl_device: tuple[int, int]) -> Device:
    kind, index = dl_device
    if kind in _HOST_DEVICE_TYPES:
        return CPU
    if kind == _DL_CUDA:
        try:
            return Device("cuda", index)
        except (ImportError, ValueError) as error:  # no CuPy, or no such GPU
            raise BufferError(f"cannot import CUDA memory (device {index}): {error}") from None
    raise BufferError(
        f"cannot import from DLPack device type {kind}: cowarray reads host memory "
        "(kDLCPU, pinned host memory) and, with CuPy, CUDA memory"
    )


def _is_capsule(x: object) -> bool:
    return type(x).__name__ == "PyCapsule"


_capsule_name = ctypes.pythonapi.PyCapsule_GetName
_capsule_name.restype = ctypes.c_char_p
_capsule_name.argtypes = [ctypes.py_object]


_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]

# DLManagedTensorVersioned: DLPackVersion (two uint32), manager_ctx, deleter, the
# uint64 flags, then the DLTensor; DLManagedTensor starts with the DLTensor.
_FLAGS_OFFSET: Final = 8 + 2 * ctypes.sizeof(ctypes.c_void_p)
_TENSOR_OFFSET: Final = {b"dltensor": 0, b"dltensor_versioned": _FLAGS_OFFSET + 8}
_FLAG_READ_ONLY: Final = 1 << 0
_FLAG_IS_COPIED: Final = 1 << 1


class _DLDevice(ctypes.Structure):
    # DLTensor: void* data, then this
    _fields_ = (("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32))


def _mark_copied(capsule: object) -> None:
    """Set DLPack's IS_COPIED flag in an unconsumed versioned capsule of a fresh copy.

    Unversioned capsules have no flags; NumPy sets the flag itself.
    """
    flags = _flags_word(capsule)
    if flags is not None:
        flags.value |= _FLAG_IS_COPIED


def _capsule_flags(capsule: object) -> int:
    """The flags of an unconsumed capsule (an unversioned one has none: 0)."""
    flags = _flags_word(capsule)
    return 0 if flags is None else int(flags.value)


def _flags_word(capsule: object) -> ctypes.c_uint64 | None:
    """The flags field of an unconsumed versioned capsule, in place; None otherwise."""
    if _capsule_name(capsule) != b"dltensor_versioned":
        return None
    pointer = _capsule_pointer(capsule, b"dltensor_versioned")
    return ctypes.c_uint64.from_address(pointer + _FLAGS_OFFSET)


def _capsule_device(capsule: object) -> tuple[int, int]:
    """The DLPack device an unconsumed capsule's tensor lives on."""
    name = _capsule_name(capsule)
    pointer = _capsule_pointer(capsule, name)
    address = pointer + _TENSOR_OFFSET[name] + ctypes.sizeof(ctypes.c_void_p)
    device = _DLDevice.from_address(address)
    return int(device.device_type), int(device.device_id)


def _check_unused(capsule: object) -> None:
    if not _is_capsule(capsule):
        raise TypeError(f"__dlpack__ must return a PyCapsule, got {type(capsule).__name__}")
    name = _capsule_name(capsule) or b""
    if name.startswith(b"used_"):
        raise BufferError(
            "this DLPack capsule was already consumed: a capsule can be imported only once; "
            "ask the producer for a new one (pass the producer itself to from_dlpack)"
        )
    if name not in (b"dltensor", b"dltensor_versioned"):
        raise BufferError(f"not a DLPack capsule: its name is {name.decode(errors='replace')!r}")
