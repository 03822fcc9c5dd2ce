"""Register cowarray's Dask hooks when ``dask.array`` is imported, in either order.

Dask looks a chunk type's functions up in tables that live in ``dask.array``
(``concatenate_lookup`` and the others, ``dask/array/dispatch.py``). Its lazy
registration (``register_lazy("cupy")``) is keyed by the chunk type's
top-level module, but the entry is written into those tables by Dask itself,
so a library that Dask does not know can only register once ``dask.array``
exists. Dask runs third-party code at import only for ``dask.sizeof``'s entry
points, which would make every ``import dask`` import cowarray and NumPy.
And ``import cowarray`` must not import Dask (0.7 s) just to see if it is
there.

So :func:`watch_for_dask` (called once by ``import cowarray``) imports
:mod:`cowarray.dask` at once when ``dask.array`` is already loaded, and
otherwise puts a finder at the front of ``sys.meta_path`` that answers None
to every import but ``dask.array``'s. For that one it finds Dask's own spec
and wraps its loader so that, right after ``dask.array`` has executed,
:mod:`cowarray.dask` is imported (which registers the hooks); then the finder
takes itself off. The module keeps Dask's own loader (``__loader__``,
``__spec__.loader``). Worker processes of ``distributed`` get the hooks the
same way: unpickling a task's cowarray Array imports cowarray, and the
tasks import ``dask.array``, in whichever order.

A failure to register is a warning, never a failed ``import dask.array``.

opt_einsum is watched the same way, for one entry in its backend table
(:func:`_register_opt_einsum`): xarray's einsum goes through it when it is
installed (JAX brings it).
"""

from __future__ import annotations

import importlib
import sys
import threading
import warnings
from importlib.abc import Loader
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence
    from importlib.machinery import ModuleSpec
    from types import ModuleType

__all__ = ["watch_for_dask"]

_lock = threading.Lock()


def watch_for_dask() -> None:
    """Register the Dask hooks now if ``dask.array`` is loaded, else when it
    is; and the same for opt_einsum's backend (:func:`_register_opt_einsum`)."""
    for finder_type in (_DaskArrayFinder, _OptEinsumFinder):
        _watch(finder_type)


def _watch(finder_type: type[_AfterImportFinder]) -> None:
    with _lock:
        if not any(type(finder) is finder_type for finder in sys.meta_path):
            sys.meta_path.insert(0, finder_type())
    module = sys.modules.get(finder_type.WATCHED)
    if module is not None and not getattr(module.__spec__, "_initializing", False):
        _stop_watching(finder_type)
        finder_type.register()


def _register_dask() -> None:
    try:
        importlib.import_module("cowarray.dask")
    except Exception as error:  # a Dask too old or broken must not break its import
        warnings.warn(
            f"cowarray could not register its Dask chunk type: {error!r}",
            RuntimeWarning,
            stacklevel=2,
        )


def _register_opt_einsum() -> None:
    """opt_einsum (which xarray's einsum and dot use when it is installed)
    calls the functions of the module an operand's type lives in, chosen by
    the first operand: ``cowarray.tensordot`` for an Array, which takes
    Arrays only, while xarray hands it NumPy weights beside an Array. Its
    backend for cowarray is NumPy's functions instead, which take both and
    hand Arrays to cowarray's ``__array_function__`` (rule 11): NumPy's
    answers, as Arrays."""
    try:
        from opt_einsum.backends import dispatch  # type: ignore[import-untyped, import-not-found, unused-ignore]

        dispatch._aliases.setdefault("cowarray", "numpy")
    except Exception as error:  # an opt_einsum without the table: its own default
        warnings.warn(
            f"cowarray could not register its opt_einsum backend: {error!r}",
            RuntimeWarning,
            stacklevel=2,
        )


def _stop_watching(finder_type: type[_AfterImportFinder]) -> None:
    with _lock:
        sys.meta_path[:] = [f for f in sys.meta_path if type(f) is not finder_type]


class _AfterImportFinder:
    """A ``sys.meta_path`` finder that only ever wraps one module's loader
    (``WATCHED``), to call ``register`` right after that module has run."""

    WATCHED = ""

    @staticmethod
    def register() -> None:  # pragma: no cover - each subclass names its own
        raise AssertionError("a subclass names what it registers")

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname != self.WATCHED:
            return None
        for finder in list(sys.meta_path):
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec: ModuleSpec | None = find(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _RegisterAfterLoading(spec.loader, type(self))
                return spec
        return None


class _DaskArrayFinder(_AfterImportFinder):
    WATCHED = "dask.array"
    register = staticmethod(_register_dask)


class _OptEinsumFinder(_AfterImportFinder):
    WATCHED = "opt_einsum"
    register = staticmethod(_register_opt_einsum)


class _RegisterAfterLoading(Loader):
    """The module's own loader, then cowarray's registration."""

    def __init__(self, loader: Any, finder_type: type[_AfterImportFinder]) -> None:
        self._loader = loader
        self._finder_type = finder_type

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        created: ModuleType | None = self._loader.create_module(spec)
        return created

    def exec_module(self, module: ModuleType) -> None:
        module.__loader__ = self._loader  # the module keeps its own loader
        if module.__spec__ is not None:
            module.__spec__.loader = self._loader
        self._loader.exec_module(module)
        _stop_watching(self._finder_type)  # only once it has loaded: a failed import is retried
        self._finder_type.register()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loader, name)
