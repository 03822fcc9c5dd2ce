"""pytest plugin: run scikit-learn's own array-API tests with cowarray as a namespace.

scikit-learn parametrizes its array-API tests at collection time over the names
that ``sklearn.utils._array_api.yield_namespaces`` (and the two generators built on
it) yields, and turns a name into ``(xp, device)`` with
``sklearn.utils._testing._array_api_for_tests``.  cowarray is not in that list, so
this plugin replaces those functions -- in ``sklearn.utils._array_api`` and in every
already-imported module that bound them with ``from ... import`` -- before any test
module is imported (``-p`` plugins load before collection starts)::

    SCIPY_ARRAY_API=1 COWARRAY_CONSUMER_NAMESPACES=cowarray,array_api_strict \\
        PYTHONPATH=tools/consumers python -m pytest -p sklearn_namespaces \\
        --pyargs sklearn.utils.tests.test_array_api

``COWARRAY_CONSUMER_NAMESPACES`` (default ``cowarray,array_api_strict``) says which
namespaces are yielded; names scikit-learn knows but that are not listed (torch,
cupy, numpy, ...) are dropped, so a run holds only the instances being compared.
Each namespace gets two (device, dtype) pairs that mirror array_api_strict's:
its default device with float64, and a second device with float32 (cowarray's
simulated ``cpu:1``), so an instance on cowarray has a strict twin with the same
test id up to the namespace and device names (see :func:`canonical_nodeid`).

Mixed-namespace tests get ``<ns> to numpy``, ``numpy to <ns>`` and
``<ns> second device to <ns> default device`` pairs, and the common estimator
check ``check_array_api_same_namespace`` (hard-wired to array_api_strict in
scikit-learn) is yielded once per selected namespace.

Items whose parameters name none of the selected namespaces are deselected unless
``COWARRAY_CONSUMER_KEEP_OTHERS=1``: ``-k array_api`` also matches the many
NumPy-only checks of estimators without array-API support, which say nothing
about cowarray.
"""

from __future__ import annotations

import functools
import os
import re
import sys
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest

ENV_NAMESPACES = "COWARRAY_CONSUMER_NAMESPACES"
ENV_KEEP_OTHERS = "COWARRAY_CONSUMER_KEEP_OTHERS"
DEFAULT_NAMESPACES = ("cowarray", "array_api_strict")

# (device name, dtype name) per namespace; index 0 is the default device.  The
# device names are what scikit-learn's ids show; _array_api_for_tests turns them
# into the library's device objects.
DEVICE_DTYPES: dict[str, tuple[tuple[str | None, str | None], ...]] = {
    "cowarray": (("cpu", "float64"), ("cpu:1", "float32")),
    "array_api_strict": (("CPU_DEVICE", "float64"), ("device1", "float32")),
    "numpy": ((None, None),),
}

if os.environ.get("SCIPY_ARRAY_API") != "1":
    if "scipy" in sys.modules:  # too late: scipy reads the variable at import
        warnings.warn(
            "sklearn_namespaces: scipy was imported before SCIPY_ARRAY_API=1 was set;"
            " array-API dispatch tests will fail or skip",
            RuntimeWarning,
            stacklevel=1,
        )
    os.environ["SCIPY_ARRAY_API"] = "1"

import sklearn.utils._array_api as _sk_array_api  # noqa: E402
import sklearn.utils._testing as _sk_testing  # noqa: E402
import sklearn.utils.estimator_checks as _sk_checks  # noqa: E402

NamespaceAndDevice = _sk_array_api.NamespaceAndDevice
_ORIGINAL_ARRAY_API_FOR_TESTS = _sk_testing._array_api_for_tests
_ORIGINAL_YIELD_ARRAY_API_CHECKS = _sk_checks._yield_array_api_checks


def selected_namespaces() -> tuple[str, ...]:
    """The namespaces named by ``COWARRAY_CONSUMER_NAMESPACES``, in that order."""
    raw = os.environ.get(ENV_NAMESPACES, "")
    names = tuple(name.strip() for name in raw.split(",") if name.strip())
    return names or DEFAULT_NAMESPACES


def _device_dtypes(namespace: str) -> tuple[tuple[str | None, str | None], ...]:
    return DEVICE_DTYPES.get(namespace, ((None, None),))


def yield_namespaces(include_numpy_namespaces: bool = True) -> Iterator[str]:
    """Replacement for scikit-learn's: the selected namespaces only."""
    for namespace in selected_namespaces():
        if not include_numpy_namespaces and namespace in _sk_array_api._NUMPY_NAMESPACE_NAMES:
            continue
        yield namespace


def yield_namespace_device_dtype_combinations(
    include_numpy_namespaces: bool = True,
) -> Iterator[tuple[str, str | None, str | None]]:
    """Replacement for scikit-learn's: (namespace, device name, dtype name) triples."""
    for namespace in yield_namespaces(include_numpy_namespaces=include_numpy_namespaces):
        for device_name, dtype_name in _device_dtypes(namespace):
            yield namespace, device_name, dtype_name


def yield_mixed_namespace_input_permutations() -> Iterator[tuple[Any, Any, str]]:
    """Replacement for scikit-learn's: (input, reference, id) pairs per namespace.

    scikit-learn's own pairs need torch or CuPy; these need only the namespace and
    NumPy, and cover the same conversions (to NumPy, from NumPy, across devices).
    """
    for namespace in yield_namespaces(include_numpy_namespaces=False):
        pairs = _device_dtypes(namespace)
        default, second = pairs[0][0], pairs[-1][0]
        yield (
            NamespaceAndDevice(namespace, second),
            NamespaceAndDevice("numpy", None),
            f"{namespace} to numpy",
        )
        yield (
            NamespaceAndDevice("numpy", None),
            NamespaceAndDevice(namespace, default),
            f"numpy to {namespace}",
        )
        if second != default:
            yield (
                NamespaceAndDevice(namespace, second),
                NamespaceAndDevice(namespace, default),
                f"{namespace} second device to {namespace} default device",
            )


def _array_api_for_tests(
    array_namespace: str, device_name: Any = None, dtype_name: str | None = None
) -> tuple[Any, Any]:
    """scikit-learn's, plus: cowarray device names become ``cowarray.Device`` objects.

    scikit-learn does the same for array_api_strict, so both libraries' instances
    pass real device objects to ``xp.asarray(..., device=...)``.
    """
    xp, device = _ORIGINAL_ARRAY_API_FOR_TESTS(array_namespace, device_name, dtype_name)
    if array_namespace == "cowarray" and isinstance(device, str):
        device = xp.Device(device)
    return xp, device


def _yield_array_api_checks(estimator: Any, only_numpy: bool = False) -> Iterator[Any]:
    """scikit-learn's, with ``check_array_api_same_namespace`` once per namespace."""
    for check in _ORIGINAL_YIELD_ARRAY_API_CHECKS(estimator, only_numpy=only_numpy):
        func = getattr(check, "func", None)
        if func is _sk_checks.check_array_api_same_namespace:
            for namespace in yield_namespaces(include_numpy_namespaces=False):
                yield functools.partial(func, array_namespace=namespace)
        else:
            yield check


_REPLACEMENTS: dict[str, Callable[..., Any]] = {
    "yield_namespaces": yield_namespaces,
    "yield_namespace_device_dtype_combinations": yield_namespace_device_dtype_combinations,
    "yield_mixed_namespace_input_permutations": yield_mixed_namespace_input_permutations,
    "_array_api_for_tests": _array_api_for_tests,
    "_yield_array_api_checks": _yield_array_api_checks,
}


def install() -> None:
    """Rebind scikit-learn's functions to the replacements wherever they are bound.

    Modules imported later (the test modules) bind the replacements themselves
    through ``from sklearn.utils._array_api import ...``.
    """
    originals = {
        "yield_namespaces": _sk_array_api.yield_namespaces,
        "yield_namespace_device_dtype_combinations": (
            _sk_array_api.yield_namespace_device_dtype_combinations
        ),
        "yield_mixed_namespace_input_permutations": (
            _sk_array_api.yield_mixed_namespace_input_permutations
        ),
        "_array_api_for_tests": _ORIGINAL_ARRAY_API_FOR_TESTS,
        "_yield_array_api_checks": _ORIGINAL_YIELD_ARRAY_API_CHECKS,
    }
    for module in list(sys.modules.values()):
        if not getattr(module, "__name__", "").startswith("sklearn"):
            continue
        for name, original in originals.items():
            if getattr(module, name, None) is original:
                setattr(module, name, _REPLACEMENTS[name])


install()


# ----------------------------------------------------------------- item helpers


def _walk(value: Any) -> Iterator[Any]:
    """Yield ``value`` and what it holds: tuples, partial keywords, named tuples."""
    yield value
    if isinstance(value, functools.partial):
        for inner in (*value.args, *value.keywords.values()):
            yield from _walk(inner)
    elif isinstance(value, tuple | list):
        for inner in value:
            yield from _walk(inner)


def item_namespaces(item: pytest.Item) -> set[str]:
    """The selected (non-NumPy) namespaces an item's parameters name."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    wanted = set(yield_namespaces(include_numpy_namespaces=False))
    found = {
        value
        for param in params.values()
        for value in _walk(param)
        if isinstance(value, str) and value in wanted
    }
    # a check wrapped beyond recognition still names its namespace in its id
    _, _, ids = item.nodeid.partition("[")
    return found or {name for name in wanted if name in ids}


def item_namespace(item: pytest.Item) -> str:
    """One namespace name for reporting: the item's, else ``"none"``."""
    found = item_namespaces(item)
    return sorted(found)[0] if found else "none"


def canonical_nodeid(nodeid: str, namespace: str) -> str:
    """The nodeid with ``namespace`` and its device names replaced by placeholders.

    Two instances with equal canonical nodeids are the same test on different
    libraries: this is how a cowarray instance finds its array_api_strict twin.
    """
    head, bracket, params = nodeid.partition("[")
    if not bracket or namespace == "none":
        return nodeid
    params = params.replace(namespace, "<ns>")
    pairs = _device_dtypes(namespace)
    # longest device names first, so "cpu:1" is replaced before "cpu"
    names = sorted(
        ((name, index) for index, (name, _) in enumerate(pairs) if name),
        key=lambda pair: -len(pair[0]),
    )
    for name, index in names:
        params = re.sub(rf"(?<![\w:]){re.escape(name)}(?![\w:])", f"<dev{index}>", params)
    return f"{head}[{params}"


# ------------------------------------------------------------------ pytest hooks


def pytest_report_header(config: pytest.Config) -> str:
    """Say which namespaces the run compares."""
    return f"sklearn_namespaces: {', '.join(selected_namespaces())}"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Drop items that name none of the selected namespaces (see the module docstring)."""
    if os.environ.get(ENV_KEEP_OTHERS) == "1":
        return
    keep = [item for item in items if item_namespaces(item)]
    dropped = [item for item in items if not item_namespaces(item)]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep
