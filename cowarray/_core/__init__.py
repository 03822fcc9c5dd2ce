"""The copy-on-write core: the only code that sets an Array's slots or a
buffer record, and what the rest of cowarray may use of it.

The rest of the package imports the names below from ``cowarray._core``
and nothing else of it (no submodule, no name with an underscore);
tools/import_graph.py fails CI when a module does (docs/design.md §2).
Inside, the house is:

- :mod:`.cow`: the buffer record (its lock, gate and writing marker), the
  one write decision (in place, to a copy, replace, hand over), the
  counters and the observer's hook.
- :mod:`.write`: the two doors every write enters by, :func:`setitem` and
  :func:`inplace` (with :func:`store`, the door's store for a converted
  key); each gathers the facts the decision needs.
- :mod:`.values`: the Array's slots, the constructors and the one view join.
- :mod:`.boundary`: memory lent to other libraries and taken from them
  (exposures, foreign imports, exports counted in a view family).
- :mod:`.families`: view families and the view-write warning (rule 1), with
  each thread's held-back reports; :mod:`.view_write_text`, its words.

The core knows nothing of operations (no dtype, no operator), reaches memory
only through the backend protocol (``device.backend``), and reads the
interpreter only through cowarray._interpreter.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import values as _values
from . import write as _write
from .boundary import (
    export_site,
    expose,
    exposed_view,
    family_export,
    family_export_until_death,
    import_foreign,
)
from .cow import (
    COUNTERS,
    Buffer,
    count_copy,
    holder_count,
    notify,
    others_hold,
    set_observer,
    set_page_cow_min,
    settled_buffer,
    stable_id,
    state_of,
)
from .families import PENDING, StaleViewWarning, ViewWriteWarning, flush, same_family
from .values import (
    NO_FAST_WRITE,
    Value,
    check_every_store,
    donate,
    fresh,
    getitem,
    given_away,
    lazy_clone,
    may_view,
    plain_slice,
    private,
    reshape_view,
    slice_is_plain,
    take_over,
    transposed,
    view,
)
from .write import (
    IN_PLACE_MIN_SIZE,
    calibrate_at_import,
    inplace,
    separate_reader,
    setitem,
    store,
    taken_for_inplace,
)

__all__ = [
    # -- making Arrays (values)
    "NO_FAST_WRITE",
    "Value",
    "bind",
    "donate",
    "fresh",
    "getitem",
    "given_away",
    "lazy_clone",
    "may_view",
    "plain_slice",
    "private",
    "reshape_view",
    "slice_is_plain",
    "take_over",
    "transposed",
    "view",
    # -- the write doors (write)
    "IN_PLACE_MIN_SIZE",
    "calibrate_at_import",
    "inplace",
    "separate_reader",
    "setitem",
    "store",
    "taken_for_inplace",
    # -- other libraries' memory (boundary)
    "export_site",
    "expose",
    "exposed_view",
    "family_export",
    "family_export_until_death",
    "import_foreign",
    # -- view families (families)
    "PENDING",
    "StaleViewWarning",
    "ViewWriteWarning",
    "flush",
    "same_family",
    # -- what is shared, shown (cow)
    "COUNTERS",
    "Buffer",
    "count_copy",
    "holder_count",
    "notify",
    "others_hold",
    "set_observer",
    "set_page_cow_min",
    "settled_buffer",
    "stable_id",
    "state_of",
    # -- settings read at import
    "check_every_store",
]


def bind(
    array_type: type[Value],
    backend_index: Callable[[Any, Any], Any],
    backend_value: Callable[[Any, Any], Any],
    index_error: Callable[..., BaseException],
) -> None:
    """Make the core build and recognise ``array_type``, convert keys with
    ``backend_index`` (a key the backend indexes with), values with
    ``backend_value`` (checking dtypes), and word an out-of-range key with
    ``index_error``. Called once, by cowarray._array: the core does not
    import the layers above it."""
    _values.bind_array_type(array_type, backend_index, index_error)
    _write.bind_conversions(array_type, backend_index, backend_value, index_error)
