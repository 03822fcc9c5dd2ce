"""One hint policy for every public function (cowarray/_errors.py).

The functions are enumerated, not listed: every public function of the
namespace and of its sub-namespaces, and the Generator's methods, is called
with a list, a tuple and a NumPy scalar where it takes an Array, and with
``out=`` where NumPy's namesake takes none (the functions whose NumPy
namesake takes ``out=`` take it too: tests/api/test_out.py). Each answer is
the policy's: the exception type Python and the standard use, and a message
that names the fix. Then a table of NumPy names
looked up where cowarray spells them otherwise, the torch bridge's names, and
matmul's shape errors. A refused call leaves every array it was given as it
was.
"""

from __future__ import annotations

import inspect
import pickle
import types
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import cowarray as ca
import cowarray.interop.torch as ca_torch
from cowarray import _checks, _errors

#: The sub-namespaces of ``cowarray`` whose functions are public.
NAMESPACES: dict[str, types.ModuleType] = {
    "ca": ca,
    "ca.linalg": ca.linalg,
    "ca.fft": ca.fft,
    "ca.random": ca.random,
    "ca.debug": ca.debug,
    "ca.interop.torch": ca_torch,
}
if hasattr(ca, "lib"):
    NAMESPACES["ca.lib.stride_tricks"] = ca.lib.stride_tricks


def _public_functions() -> Iterator[tuple[str, Callable[..., Any]]]:
    seen: set[int] = set()
    for prefix, module in NAMESPACES.items():
        names = getattr(module, "__all__", None) or [n for n in vars(module) if n[0] != "_"]
        for name in names:
            value = getattr(module, name)
            if isinstance(value, types.FunctionType) and id(value) not in seen:
                seen.add(id(value))
                yield f"{prefix}.{name}", value
    rng = ca.random.default_rng(0)
    for name, value in vars(ca.random.Generator).items():
        if name[0] != "_" and isinstance(value, types.FunctionType):
            yield f"rng.{name}", getattr(rng, name)


FUNCTIONS = dict(_public_functions())

#: Functions whose argument may be anything array-like, as in NumPy (these
#: are how an Array is made, or they ask about any Python object).
TAKE_ANY_OBJECT = {"ca.asarray", "ca.from_dlpack", "ca.isscalar", "ca.iterable"}

#: Functions that report through the function they call.
REPORTED_AS = {"ca.ndim": "shape", "ca.size": "shape", "ca.around": "round", "ca.power": "pow"}

#: Functions whose keywords are data: sharing_picture(out=u) names an array "out".
KEYWORDS_ARE_NAMES = {"ca.sharing_picture", "ca.debug.sharing_picture"}

#: Where an Array parameter is not the first one taking an Array.
NOT_AN_ARRAY_SLOT = {
    "ca.einsum": 1,  # einsum(subscripts, *operands)
}


def _valid_array(function: Callable[..., Any]) -> ca.Array:
    """An Array the function takes: of a dtype in its category, if it declares one."""
    category = _checks.CATEGORY.get(getattr(function, "__name__", ""), "f")
    if "f" in category:
        return ca.asarray([[1.0, 2.0], [3.0, 4.0]])
    if "i" in category:
        return ca.asarray([[1, 2], [3, 4]])
    return ca.asarray([[True, False], [False, True]])


def takes_out(function: Callable[..., Any]) -> bool:
    """Whether ``function`` takes an Array as ``out`` (``reshape``'s ``out: None``
    is this policy's refusal, spelled in its signature)."""
    try:
        parameter = inspect.signature(function).parameters.get("out")
    except (TypeError, ValueError):
        return False
    return parameter is not None and parameter.annotation != "None"


def _arguments(function: Callable[..., Any]) -> tuple[list[Any], int, bool] | None:
    """Valid positional arguments for ``function``, the index of the first
    that must be an Array, and whether a scalar may go there instead; None if
    it takes no Array positionally."""
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return None
    required = [
        p
        for p in parameters
        if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    args: list[Any] = []
    slot = None
    scalar = False
    for parameter in required:
        annotation = str(parameter.annotation)
        array_only = annotation in ("Array", "Any") or annotation.startswith("Array |")
        if array_only and "Sequence" not in annotation and slot is None:
            slot = len(args)
            # Array | Scalar, or an element-wise function's x1 and x2
            scalar = annotation != "Array" and (
                annotation != "Any" or parameter.name == "x1" or inspect.ismethod(function)
            )
        args.append(_valid_array(function) if "Array" in annotation else 1)
    if slot is None:
        return None
    return args, slot, scalar


def _named(function_name: str) -> str:
    return function_name.rsplit(".", 1)[1]


BAD_VALUES = {
    "list": [1.0, 2.0],
    "tuple": (1.0, 2.0),
    "numpy scalar": np.float64(1.5),
}


def _calls_with_an_array_slot() -> list[Any]:
    cases = []
    for name, function in FUNCTIONS.items():
        if name in TAKE_ANY_OBJECT:
            continue
        found = _arguments(function)
        if found is None:
            continue
        cases.append(pytest.param(name, id=name))
    return cases


@pytest.mark.parametrize("name", _calls_with_an_array_slot())
@pytest.mark.parametrize("kind", list(BAD_VALUES))
def test_a_list_tuple_or_numpy_scalar_where_an_array_goes_says_make_an_array(
    name: str, kind: str
) -> None:
    function = FUNCTIONS[name]
    found = _arguments(function)
    assert found is not None
    args, slot, scalar = found
    slot = NOT_AN_ARRAY_SLOT.get(name, slot)
    args[slot] = BAD_VALUES[kind]
    before = [np.asarray(a).copy() for a in args if type(a) is ca.Array]
    try:
        function(*args)
    except TypeError as error:
        message, raised = str(error), type(error)
    else:
        # A NumPy scalar counts as the Python scalar of its kind (rule 11).
        assert kind == "numpy scalar" and scalar, f"{name} took a {kind} for an Array"
        return
    if kind == "numpy scalar" and scalar and "make an Array first" not in message:
        # It counts as the Python scalar of its kind: the same answer as 1.5
        # gets (logical_and(bool_array, 1.5) is a dtype error).
        args[slot] = float(BAD_VALUES[kind])
        with pytest.raises(raised) as caught:
            function(*args)
        assert str(caught.value) == message
        return
    assert issubclass(raised, TypeError)
    assert "make an Array first: ca.asarray(" in message, message
    assert REPORTED_AS.get(name, _named(name)) in message, message
    after = [np.asarray(a) for a in args if type(a) is ca.Array]
    assert all(np.array_equal(b, a) for b, a in zip(before, after, strict=True))


def test_the_enumeration_reaches_every_namespace() -> None:
    # A namespace that lost its functions (or an enumeration that broke)
    # would make the tests above pass vacuously.
    prefixes = {name.rsplit(".", 1)[0] for name in FUNCTIONS}
    assert set(NAMESPACES) | {"rng"} <= prefixes
    assert len(FUNCTIONS) > 250
    assert len(_calls_with_an_array_slot()) > 180


@pytest.mark.parametrize(
    "name", [n for n, f in FUNCTIONS.items() if n not in KEYWORDS_ARE_NAMES and not takes_out(f)]
)
def test_out_is_refused_with_how_to_write_a_result_into_an_array(name: str) -> None:
    function = FUNCTIONS[name]
    target = ca.zeros(3)
    x = ca.asarray([1.0, 2.0, 3.0])
    found = _arguments(function)
    args = found[0] if found else []
    with pytest.raises(TypeError) as caught:
        function(*args, out=target)
    message = str(caught.value)
    assert "out=" in message and "y[...] = " in message and ".at[...].set(" in message, message
    assert _named(name) in message
    assert np.array_equal(np.asarray(target), np.zeros(3))
    assert np.array_equal(np.asarray(x), [1.0, 2.0, 3.0])


@pytest.mark.parametrize(
    "call",
    [
        lambda x, out: ca.linalg.vector_norm(x, out=out),
        lambda x, out: ca.sort(x, out=out),
        lambda x, out: ca.flip(x, out=out),
        lambda x, out: ca.where(x > 0, x, 0.0, out=out),
        lambda x, out: ca.fft.fftshift(x, out=out),
    ],
)
def test_out_none_is_numpys_default_and_is_accepted(call: Callable[..., Any]) -> None:
    # (where NumPy's function takes no out=: the others take it, tests/api/test_out.py)
    x = ca.asarray([0.5, 2.0, -1.0])
    assert np.array_equal(np.asarray(call(x, None)), np.asarray(call(x, None)))
    with pytest.raises(TypeError, match=r"y\[\.\.\.\] = "):
        call(x, ca.zeros(3))
    assert np.array_equal(np.asarray(x), [0.5, 2.0, -1.0])


def test_a_function_with_a_wrong_argument_and_out_none_reports_the_wrong_argument() -> None:
    # out=None is dropped only when it was the call's one mistake.
    with pytest.raises(TypeError, match="unexpected keyword argument 'axes'"):
        ca.sum(ca.ones(3), axes=0, out=None)


def test_the_guard_keeps_each_function_one_picklable_object() -> None:
    assert ca.matmul is ca.linalg.matmul
    assert ca.cow_info is ca.debug.cow_info
    assert pickle.loads(pickle.dumps(ca.sum)) is ca.sum
    assert pickle.loads(pickle.dumps(ca.add)) is ca.add
    assert inspect.signature(ca.sum) == inspect.signature(inspect.unwrap(ca.sum))
    assert ca.sum.__doc__ and "Examples" in ca.sum.__doc__


# -- NumPy names, torch names, matmul shapes ----------------------------------

X = ca.asarray([[1.0, 2.0], [3.0, 4.0]])

NAME_HINTS: list[tuple[Callable[[], Any], str]] = [
    (lambda: ca.argwhere, r"ca\.stack\(ca\.nonzero\(x\), axis=-1\)"),
    (lambda: ca.array, r"ca\.asarray\(obj\)"),
    (lambda: ca.concatenate, r"ca\.concat\(arrays, axis=0\)"),
    (lambda: ca.arctan2, r"ca\.atan2"),
    (lambda: ca.absolute, r"ca\.abs"),
    (lambda: ca.random.rand, r"ca\.random\.default_rng\(seed\)\.random\(shape\)"),
    (lambda: ca.random.randn, r"\.standard_normal\(shape\)"),
    (lambda: ca.random.randint, r"\.integers\(low, high, size\)"),
    (lambda: ca.random.seed, r"ca\.random\.default_rng\(seed\)"),
    (lambda: ca.random.normal, r"ca\.random\.default_rng\(seed\)\.normal\(\.\.\.\)"),
    (lambda: ca.linalg.multi_dot, r"a @ b @ c"),
    (lambda: ca.fft.fft2, r"ca\.fft\.fftn\(x, axes=\(-2, -1\)\)"),
    (lambda: X.flat, r"ca\.reshape\(x, \(-1,\)\)"),
    (lambda: X.flags, r"ca\.cow_info\(x\)"),
    (lambda: X.base, r"ca\.shares_buffer"),
    (lambda: X.strides, r"numpy\.asarray\(x\)\.strides"),
    (lambda: X.take, r"ca\.take\(x, indices"),
    (lambda: X.trace, r"ca\.linalg\.trace\(x\)"),
    (lambda: ca.to_torch, r"cowarray\.interop\.torch\.to_torch"),
    (lambda: ca.from_torch, r"from cowarray\.interop\.torch import from_torch"),
    (lambda: ca.interop.to_torch, r"cowarray\.interop\.torch\.to_torch"),
]


@pytest.mark.parametrize("lookup, spelling", NAME_HINTS)
def test_a_numpy_name_gets_an_attribute_error_naming_the_spelling(
    lookup: Callable[[], Any], spelling: str
) -> None:
    with pytest.raises(AttributeError, match=spelling) as caught:
        lookup()
    assert "has no attribute" in str(caught.value)
    assert np.array_equal(np.asarray(X), [[1.0, 2.0], [3.0, 4.0]])


def test_an_unknown_name_gets_pythons_words_only() -> None:
    for namespace in (ca, ca.random, ca.linalg, ca.fft, ca.interop):
        with pytest.raises(AttributeError) as caught:
            namespace.no_such_name  # noqa: B018
        assert str(caught.value) == f"module {namespace.__name__!r} has no attribute 'no_such_name'"
    assert not hasattr(X, "no_such_name") and not hasattr(X, "flat")


def test_every_spelling_names_what_exists() -> None:
    # A hint for a name cowarray has would hide it; a spelling naming a
    # function cowarray lacks would send the reader nowhere.
    for namespace, table in _errors.NUMPY_SPELLINGS.items():
        module = {"cowarray": ca, "cowarray.random": ca.random, "cowarray.linalg": ca.linalg,
                  "cowarray.fft": ca.fft, "cowarray.interop": ca.interop}[namespace]  # fmt: skip
        assert [name for name in table if name in vars(module)] == []
    import re

    for spelling in [s for t in _errors.NUMPY_SPELLINGS.values() for s in t.values()] + list(
        _errors.ARRAY_SPELLINGS.values()
    ):
        for path in re.findall(r"\bca((?:\.\w+)+)", spelling):
            target: Any = ca
            for part in path.strip(".").split("."):
                target = getattr(target, part) if part not in ("default_rng",) else target
                if part == "default_rng":
                    target = ca.random.default_rng(0)
            assert target is not None, spelling


def test_interop_torch_is_reachable_without_its_import_and_without_torch() -> None:
    import subprocess
    import sys

    code = (
        "import sys, cowarray as ca; m = ca.interop.torch; "
        "print(m.__name__, 'torch' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.split() == ["cowarray.interop.torch", "False"], result.stderr


MATMUL_SHAPES = [
    ((2, 2), (3,), r"matmul: \(2, 2\) @ \(3,\) — inner dimensions 2 and 3 differ"),
    ((3,), (4,), r"matmul: \(3,\) @ \(4,\) — inner dimensions 3 and 4 differ"),
    ((2, 3), (2, 3), r"inner dimensions 3 and 2 differ"),
    ((2, 2, 3), (3, 3, 2), r"batch dimensions \(2,\) and \(3,\) cannot be broadcast"),
    ((), (3,), r"at least one dimension on each side"),
]


@pytest.mark.parametrize("shape1, shape2, message", MATMUL_SHAPES)
@pytest.mark.parametrize(
    "spelling",
    [ca.matmul, ca.linalg.matmul, lambda a, b: a @ b],
    ids=["ca.matmul", "ca.linalg.matmul", "@"],
)
def test_matmul_shape_errors_name_the_inner_dimensions_not_broadcasting(
    shape1: tuple[int, ...], shape2: tuple[int, ...], message: str, spelling: Any
) -> None:
    a, b = ca.ones(shape1), ca.ones(shape2)
    with pytest.raises(ValueError, match=message):
        spelling(a, b)
    with pytest.raises(ValueError):
        np.matmul(np.ones(shape1), np.ones(shape2))  # NumPy refuses them too
    assert np.array_equal(np.asarray(a), np.ones(shape1))


def test_inplace_matmul_with_unaligned_shapes_leaves_the_array_unchanged() -> None:
    a = ca.asarray([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(ValueError, match="inner dimensions 2 and 3 differ"):
        a @= ca.ones((3, 2))
    assert np.array_equal(np.asarray(a), [[1.0, 2.0], [3.0, 4.0]])
