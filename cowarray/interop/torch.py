"""torch tensors to and from cowarray Arrays, zero-copy.

torch is imported when a function here is first called, never by
``import cowarray``. The aliasing rules are docs/design.md rule 5: a tensor and an
Array may share memory, but two cowarray Arrays never do.

Host memory crosses without a DLPack capsule, through the NumPy arrays torch
takes and gives in C: ``to_torch`` hands ``torch.from_numpy`` a view of the
exposed memory whose death ends the exposure (``cowarray._core.exposed_view``),
and ``from_torch`` imports ``t.numpy()`` as foreign memory
(:func:`cowarray._dlpack.import_zero_copy`). The policy is DLPack's, the
cost a third of it (a capsule is two Python calls on each side, plus
torch's checks in Python). Everything else (``copy=True`` or ``False``, GPU
memory, tensors that require grad, conjugate or negative bits, subclasses,
layouts torch.from_numpy refuses) crosses through DLPack as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

import numpy as np

from .. import _interpreter
from .._array import Array, private
from .._core import (
    count_copy,
    export_site,
    exposed_view,
    family_export_until_death,
    given_away,
    others_hold,
)
from .._devices import CPU
from .._dlpack import count_import_copy, from_dlpack, import_zero_copy
from .._errors import not_an_array, refuse_out
from .._move import _MOVED
from .._ops.creation import empty

if TYPE_CHECKING:
    import torch

__all__ = ["from_torch", "to_torch"]

#: torch dtypes that NumPy, hence cowarray, can hold (by name; no bfloat16).
_SHARED_DTYPES = (
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
)


@refuse_out
def to_torch(x: Array, /, *, copy: bool | None = None) -> torch.Tensor:
    """A torch tensor with the values of ``x``; zero-copy unless ``copy=True``.

    By default the tensor and ``x`` share memory, so a write to either shows
    in the other (as with ``torch.from_numpy``). No other cowarray value sees
    those writes: ``x`` first gets a buffer of its own (a copy only if it was
    shared), and until the tensor is collected, clones and views of ``x`` are
    eager copies. An ``x`` that nothing else references (``to_torch(a + b)``,
    ``to_torch(y[lo:hi])``) has no one to share with: torch gets its memory,
    or a copy of a slice's values, with nothing left to track.

    Parameters
    ----------
    x : Array
        The array to hand to torch.
    copy : bool, optional
        ``None`` (default): share memory (a copy only for negative strides,
        which torch cannot represent). ``True``: the tensor gets its own
        copy. ``False``: raise BufferError if sharing needs a copy first
        (``x`` shares its buffer, is read-only or a broadcast view).

    Returns
    -------
    torch.Tensor

    See Also
    --------
    from_torch, cowarray.from_dlpack

    Examples
    --------
    >>> import cowarray as ca
    >>> from cowarray.interop.torch import to_torch
    >>> x = ca.asarray([1.0, 2.0, 3.0])
    >>> t = to_torch(x)
    >>> t[0] = 10.0                      # t and x share memory
    >>> x
    cowarray.Array([10.,  2.,  3.], dtype=float64)
    >>> ca.cow_info(x).state             # until t is collected
    'exposed'
    >>> del t
    >>> ca.cow_info(x).state
    'private'
    """
    references = _getrefcount(x)  # (first: what _TEMPORARY was measured at)
    if _measured is not None:
        _measured.append(references)  # calibrating at import: nothing else
        return None  # type: ignore[return-value]
    if type(x) is not Array:
        raise not_an_array("to_torch", "x", x)
    library = _TORCH or _load_torch("to_torch")
    if copy is None and type(x._data) is _NDARRAY:
        if references == _TEMPORARY:
            # to_torch(a + b), to_torch(y[a:b]): nothing but this call reaches
            # x (cowarray._interpreter.is_last_use), so no one can see whether x and the
            # tensor share memory, and no exposure needs ending: a fifth of
            # the bookkeeping of an export.
            if x._buf is None and not x._device.backend.must_copy_before_write(x._data):
                # Its own memory goes to torch outright (writable, not a
                # broadcast: torch may write it). given_away checks under the
                # core's lock that no value shares it; x is left moved (a gc
                # callback finding it gets an error, never a second name for
                # torch's memory).
                device = x._device
                data = given_away(x, _MOVED)
                if data is not None:
                    try:
                        given: torch.Tensor = library.from_numpy(data)
                    except (TypeError, ValueError, RuntimeError):
                        x = private(data, device)  # a layout torch refuses: the long way
                    else:
                        return given
            elif others_hold(x):
                # Memory other values hold (a slice of a live array): torch
                # gets a copy of the values that no value holds, where an
                # export would have copied them into x first. (A record being
                # written in place is fenced: the long way waits for it.)
                copied = _copy_to_torch(library, x)
                if copied is not None:
                    return copied
        # A view whose family lives (``to_torch(out[k])``): torch's writes
        # cannot reach ``out`` as NumPy's would, so the export is compared
        # when torch lets it go, and a write is reported naming this line.
        where = export_site(x)
        view = exposed_view(x, "to_torch")
        try:
            tensor: torch.Tensor = library.from_numpy(view)
        except (TypeError, ValueError, RuntimeError):
            # a layout torch.from_numpy refuses (negative strides, strides that
            # are no multiple of the item size): the view's death ends the
            # exposure, and DLPack copies or says why not
            del view
        else:
            # torch keeps ``view`` exactly as long as it uses the memory: until
            # then the tensor counts in x's view family (a view of x written
            # after ``del x`` warns, as the tensor would see it in NumPy)
            family_export_until_death(view, x, view.view(), np, where, _THROUGH_TORCH)
            return tensor
    if copy is not None and type(copy) is not bool:
        raise TypeError(f"to_torch: copy must be True, False or None, got {copy!r}")
    shared: torch.Tensor = library.utils.dlpack.from_dlpack(x, copy=copy)
    return shared


@refuse_out
def from_torch(t: torch.Tensor, /, *, copy: bool | None = None) -> Array:
    """An Array with the values of the torch tensor ``t``; zero-copy unless ``copy=True``.

    By default the Array aliases ``t``: torch's writes show in it and its
    writes show in ``t``, while its clones and views are eager copies, so no
    other cowarray value sees torch's writes. A tensor whose memory already
    belongs to a cowarray Array (``from_torch(to_torch(x))``) is copied, so
    two Arrays never alias each other.

    Parameters
    ----------
    t : torch.Tensor
        A strided CPU tensor (or a CUDA tensor, with the CuPy backend) of a
        dtype NumPy holds: bool, (u)int8-64, float16/32/64, complex64/128.
        A lazy clone (``torch._lazy_clone``) is fine. Tensors that require
        grad are refused by torch; pass ``t.detach()``. A CPU tensor's
        storage cannot grow afterwards (``t.resize_`` to more elements
        raises, as after ``t.numpy()``): growing it would free the memory the
        Array reads.
    copy : bool, optional
        ``None`` (default): share memory when allowed. ``True``: an
        independent value. ``False``: raise BufferError where ``None`` copies.

    Returns
    -------
    Array

    Raises
    ------
    TypeError
        ``t`` is not a torch tensor, or its dtype has no NumPy counterpart
        (bfloat16, float8, ...).

    See Also
    --------
    to_torch, cowarray.from_dlpack

    Examples
    --------
    >>> import torch
    >>> import cowarray as ca
    >>> from cowarray.interop.torch import from_torch, to_torch
    >>> t = torch.tensor([1.0, 2.0])
    >>> x = from_torch(t)
    >>> t[0] = 5.0                       # x aliases t
    >>> x
    cowarray.Array([5., 2.], dtype=float32)
    >>> y = from_torch(to_torch(x))      # a round trip copies: y never aliases x
    >>> t[1] = 7.0
    >>> x, y
    (cowarray.Array([5., 7.], dtype=float32), cowarray.Array([5., 2.], dtype=float32))
    """
    library = _TORCH or _load_torch("from_torch")
    if copy is None and type(t) is library.Tensor and not t.requires_grad:
        try:
            data = t.numpy()  # torch marks the storage not resizable meanwhile
        except (TypeError, RuntimeError):
            pass  # not plain host memory NumPy can view: DLPack sorts it out
        else:
            return import_zero_copy(data, CPU)
    if not isinstance(t, library.Tensor):
        raise TypeError(f"from_torch expects a torch.Tensor, got {type(t).__name__}")
    if t.dtype not in _shared_dtypes(library):
        raise TypeError(
            f"from_torch: cowarray cannot hold {t.dtype} (NumPy has no such dtype); "
            "convert first, e.g. t.to(torch.float32)"
        )
    if t.is_conj() or t.is_neg():
        # values that exist only as a lazy flag on t: resolving them copies
        if copy is False:
            raise BufferError(
                "from_torch(t, copy=False): t has its conjugate or negative bit set, "
                "so its values must be copied first; use copy=None"
            )
        return _import_resolved(library, t, copy)
    return from_dlpack(t, copy=copy)


def _import_resolved(library: Any, t: torch.Tensor, copy: bool | None) -> Array:
    """``t``, whose conjugate or negative bit is set, resolved by torch and imported.

    Each resolution is a copy torch makes because the import asked for it:
    counted as the import's copy (docs/design.md rule 9), after the import,
    which needs the Array that holds it.
    """
    copies = 0
    for resolve in (library.Tensor.resolve_conj, library.Tensor.resolve_neg):
        resolved = resolve(t)
        copies += resolved is not t  # torch returns t itself when the bit is clear
        t = resolved
    array = from_dlpack(t, copy=copy)
    for _ in range(copies):
        count_import_copy(array, int(array._data.nbytes))
    return array


_THROUGH_TORCH = "a write through to_torch(view)"
_getrefcount = _interpreter.getrefcount
#: Readings of ``x`` while :func:`_temporary_count` measures (None otherwise).
_measured: list[int] | None = None
_shared: frozenset[Any] = frozenset()
_NDARRAY = np.ndarray
#: The torch module, once a function here has imported it.
_TORCH: Any = None


def _copy_to_torch(library: Any, x: Array) -> torch.Tensor | None:
    """A tensor of a copy of ``x``'s values, or None for a dtype torch refuses."""
    data = x._data
    count_copy("export_copy", x, int(data.nbytes))  # (first: a CopyWarning may refuse it)
    copied = data.copy()
    given = copied.view()  # what torch keeps, and drops when it is done
    try:
        tensor: torch.Tensor = library.from_numpy(given)
    except (TypeError, ValueError, RuntimeError):
        return None  # (every dtype cowarray holds is one torch takes: not seen)
    # As for an exposed view: if torch writes the copy while x's family
    # lives, the write is reported naming this line (NumPy's tensor would
    # have written the family's memory), and until torch lets the copy go
    # it counts in the family. (The watch keeps ``copied`` to compare it
    # then; the view's death is what ends it.)
    family_export_until_death(given, x, copied, np, export_site(x), _THROUGH_TORCH)
    return tensor


def _temporary_count() -> int | None:
    """What ``to_torch``'s reading of ``x`` shows when the caller passed a
    temporary: measured on this interpreter, through the public function
    (its ``out=`` guard included), as a user's call runs."""
    global _measured
    _measured = []
    measured = _measured
    try:
        return _interpreter.temporary_argument_count(
            lambda: to_torch(empty(0)), lambda: _call_with_a_name(empty(0)), measured
        )
    finally:
        _measured = None


def _call_with_a_name(x: Array) -> None:
    to_torch(x)


#: The command for torch's CPU build: the README's, and the test suite's skip reasons'.
_INSTALL_TORCH_CPU: Final = (
    "python -m pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu"
)


def _missing_torch(function: str) -> ModuleNotFoundError:
    """The error for ``function`` called where torch cannot be imported, with how to get it.

    Examples
    --------
    >>> from cowarray.interop.torch import _missing_torch
    >>> print(_missing_torch("to_torch"))  # doctest: +NORMALIZE_WHITESPACE
    to_torch needs torch, which is not installed: neither cowarray's install nor its
    test extra brings it (from PyPI torch is a CUDA build of about 2.7 GB). Install
    its CPU build (about 200 MB), python -m pip install torch==2.13.0 --index-url
    https://download.pytorch.org/whl/cpu, or the CUDA build, python -m pip install
    torch
    """
    return ModuleNotFoundError(
        f"{function} needs torch, which is not installed: neither cowarray's install nor its "
        "test extra brings it (from PyPI torch is a CUDA build of about 2.7 GB). Install its "
        f"CPU build (about 200 MB), {_INSTALL_TORCH_CPU}, or the CUDA build, "
        "python -m pip install torch",
        name="torch",
    )


def _load_torch(function: str) -> Any:
    global _TORCH
    try:
        import torch
        import torch.utils.dlpack
    except ModuleNotFoundError as error:
        if error.name != "torch":  # torch is there but broken: its own words
            raise
        raise _missing_torch(function) from None

    _TORCH = torch
    return torch


def _shared_dtypes(torch: Any) -> frozenset[Any]:
    global _shared
    if not _shared:
        _shared = frozenset(getattr(torch, name) for name in _SHARED_DTYPES)
    return _shared


#: to_torch's reading of a temporary argument (None: none is ever given away).
_TEMPORARY: int | None = _temporary_count()
