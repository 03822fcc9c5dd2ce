"""One way to patch a backend in a test: :class:`BackendPatch` (the ``backend_patch``
fixture of tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class BackendPatch:
    """Attributes of backends (an instance such as ``NUMPY_BACKEND``, or its
    class) replaced for one test and put back exactly as they were.

    pytest's ``monkeypatch.setattr(instance, "method", f)`` puts back the
    *bound method* it read into the instance's ``__dict__``, where it then
    shadows the class: a later test that patches the class (its method) is
    silently never called, and the attack it carries never runs. Here a name
    that was not in the target's own ``__dict__`` is deleted again instead.
    """

    def __init__(self) -> None:
        self._undo: list[tuple[object, str, bool, object]] = []

    def setattr(self, target: object, name: str, value: object) -> None:
        """Set ``target.name`` to ``value`` until :meth:`undo` (or the test's end)."""
        own = vars(target)
        if name not in own and not hasattr(target, name):
            raise AttributeError(f"{target!r} has no attribute {name!r} to patch")
        self._undo.append((target, name, name in own, own.get(name)))
        setattr(target, name, value)

    def undo(self) -> None:
        """Put back everything patched so far, the last patch first."""
        while self._undo:
            target, name, had_own, value = self._undo.pop()
            if had_own:
                setattr(target, name, value)
            else:
                delattr(target, name)


def call_out_while_a_record_is_made(patch: BackendPatch, call_out: Callable[[], object]) -> None:
    """Run ``call_out`` each time the core makes a sharing record (or a
    writing marker), inside the locked section that makes it, where a gc
    callback run by the record's allocation would run; ``patch.undo()``
    ends it."""
    from cowarray._core import cow

    made = cow.Buffer

    class Calling(made):  # type: ignore[misc, valid-type]
        __slots__ = ()

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            call_out()
            super().__init__(*args, **kwargs)

    patch.setattr(cow, "Buffer", Calling)
