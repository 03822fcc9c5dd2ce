"""The transforms over JAX: the boundary (Arrays in and out) and each
transform, a thin layer over its JAX namesake.

Inside a transform the user's function gets traced Arrays: ordinary
cowarray Arrays on the device ``jax`` whose backend value is a JAX tracer
(cowarray._backends.jax). Their writes go through the core's two doors and
rebind the traced value, so nothing here knows any operation.

At the boundary an Array crosses as a :class:`_Box`, a JAX pytree node with
one leaf (its values): cowarray.Array itself is not registered with JAX, so
a user's ``jax.tree.leaves`` never hands out memory other values share.
Every Array the function received is remembered with the value it had; one
whose value changed (the function wrote it) is handed back beside the
results and written into the caller's Array through the ordinary write
door, as the eager call would have left it.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Any, Final

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import _tracing
from .._array import Array
from .._backends.jax import JAX_BACKEND
from .._core import fresh, private
from .._devices import CPU, Device
from .._dlpack import from_dlpack

__all__ = [
    "cond",
    "fori_loop",
    "grad",
    "jacobian",
    "jit",
    "scan",
    "value_and_grad",
    "vmap",
    "while_loop",
]

#: The device of traced values (cowarray._backends.jax).
TRACED: Final = Device("jax", 0)
_tracing.TRACE_DEVICE[:] = [TRACED]
assert TRACED.backend is JAX_BACKEND


# -- the boundary ------------------------------------------------------------------------


class _Box:
    """An Array crossing into JAX: a pytree node whose one leaf is its value."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


jax.tree_util.register_pytree_node(
    _Box, lambda box: ((box.value,), None), lambda _, children: _Box(children[0])
)


def _is_array(x: object) -> bool:
    return type(x) is Array


def _is_box(x: object) -> bool:
    return type(x) is _Box


def _is_traced(x: Array) -> bool:
    return x._device is TRACED


def _jax_value(x: Array) -> Any:
    """The JAX value of ``x``: its tracer inside an outer trace, else a
    synchronous copy of its values (JAX may read host memory later, after
    cowarray has written it in place)."""
    if x._device is TRACED:
        return x._data
    if x._device is not CPU and _jax_has(x._device):
        # A GPU Array goes to JAX's GPU through DLPack, no host copy: cowarray's
        # export (x.__dlpack__) exposes its memory, so cowarray's own writes copy
        # first while JAX holds it.
        return jax.dlpack.from_dlpack(x)
    return jnp.asarray(x._device.backend.to_numpy(x._data))


#: JAX's platform names for a cowarray device kind's memory.
_PLATFORMS: Final = {"cuda": ("gpu", "cuda"), "rocm": ("gpu", "rocm")}


@functools.cache
def _jax_has(device: Device) -> bool:
    """Whether JAX runs on ``device``'s kind of accelerator here (JAX's CUDA
    wheels on a GPU machine): then Arrays cross by DLPack, else by the host."""
    platforms = _PLATFORMS.get(device.kind, ())
    try:
        return any(d.platform in platforms for d in jax.devices())
    except RuntimeError:  # (no backend of JAX's answers)
        return False


def _traced(value: Any) -> Array:
    """A traced Array of the JAX value ``value`` (an argument in a trace)."""
    result: Array = private(jnp.asarray(value), TRACED)
    return result


#: The type of JAX's concrete arrays (a result of a compiled call).
_JAX_ARRAY: Final = type(jnp.zeros(()))


def _array_of(value: Any, home: Device) -> Array:
    """The Array of a JAX result: traced inside an outer trace, else on ``home``."""
    # (a concrete result, the common case, skips the Tracer test: a jit
    # call's per-call cost)
    if type(value) is not _JAX_ARRAY and isinstance(value, jax.core.Tracer):
        return _traced(value)
    if home is not CPU and _jax_has(home) and value.devices() != {jax.devices("cpu")[0]}:
        # (back through DLPack onto home's device, no host copy; a result
        # JAX put elsewhere comes through the host, below)
        imported: Array = from_dlpack(value)
        if imported.device == home:
            return imported
    host = np.asarray(value)  # (JAX's CPU buffer, read-only: a write copies it first)
    if home is CPU:
        result: Array = fresh(host, CPU)
    else:
        result = fresh(home.backend.from_numpy(host), home)
    return result


def _boxed(tree: Any) -> Any:
    return jax.tree_util.tree_map(
        lambda x: _Box(_jax_value(x)) if type(x) is Array else x, tree, is_leaf=_is_array
    )


def _unboxed(tree: Any) -> Any:
    return jax.tree_util.tree_map(
        lambda b: _traced(b.value) if type(b) is _Box else b, tree, is_leaf=_is_box
    )


def _results(tree: Any) -> Any:
    """Inside a trace: the function's results as JAX values (a host Array
    returned as it is is a constant of the trace)."""
    return jax.tree_util.tree_map(
        lambda x: _Box(_jax_value(x)) if type(x) is Array else x, tree, is_leaf=_is_array
    )


def _back(tree: Any, home: Device) -> Any:
    """Outside: JAX's results as Arrays on ``home`` (traced when nested)."""

    def leaf(x: Any) -> Any:
        if type(x) is _Box:
            if isinstance(x.value, (jax.Array, np.ndarray)):
                return _array_of(x.value, home)
            # (jacobian: each result's entry is the arguments' tree)
            return _back(x.value, home)
        if isinstance(x, jax.Array):
            return _array_of(x, home)
        return x

    return jax.tree_util.tree_map(leaf, tree, is_leaf=_is_box)


def _arrays(tree: Any) -> list[Array]:
    return [x for x in jax.tree_util.tree_leaves(tree, is_leaf=_is_array) if type(x) is Array]


def _home(tree: Any) -> Device:
    """Where the results of a call on these arguments live: their device."""
    devices = {x._device for x in _arrays(tree) if x._device is not TRACED}
    if len(devices) > 1:
        names = ", ".join(sorted(str(d) for d in devices))
        raise ValueError(
            f"a transformed function's Array arguments live on several devices ({names}); "
            "move them to one with x.to_device(device)"
        )
    return devices.pop() if devices else CPU


def _write_back(target: Array, value: Any, home: Device) -> None:
    """The caller's Array ``target`` takes the value the function wrote into
    it, through the ordinary write door (its clones keep theirs)."""
    target[...] = _array_of(value, home if target._device is not TRACED else TRACED)


def _written(inputs: Sequence[Array], before: Sequence[Any]) -> dict[int, Any]:
    """The values of the inputs the function wrote, by position."""
    return {
        i: x._data
        for i, (x, old) in enumerate(zip(inputs, before, strict=True))
        if x._data is not old
    }


_MASK_READ: Final = (
    "cowarray.transforms: x[mask] read with a traced mask (also the read in x[mask] += v) "
    "has a shape that depends on the values; write x[mask] = v (a where), "
    "x = ca.where(mask, x + v, x), or read ca.where(mask, x, 0)"
)

#: What each JAX error means for code written for cowarray, and the fix.
_FIXES: Final = (
    (jax.errors.NonConcreteBooleanIndexError, _MASK_READ),
    (
        jax.errors.UnexpectedTracerError,
        "cowarray.transforms: a traced Array of an earlier trace was used here: it escaped "
        "the function that made it (kept in a global, a closure or a container); return it "
        "from that function and pass it in as an argument instead",
    ),
    (
        jax.errors.ConcretizationTypeError,
        "cowarray.transforms: Python if/while, bool(), float(), int() or x.item() on a "
        "traced Array, or a shape that depends on its values (nonzero, unique); use "
        "ca.where(c, a, b), cowarray.transforms.cond or while_loop, or mark the argument "
        "static (jit(f, static_argnums=...))",
    ),
    (
        jax.errors.TracerArrayConversionError,
        "cowarray.transforms: a traced Array cannot become a NumPy array; use "
        "cowarray functions inside the function, convert its results outside",
    ),
    (
        jax.errors.TracerIntegerConversionError,
        "cowarray.transforms: int() or an index from a traced Array; mark the argument "
        "static (jit(f, static_argnums=...)) or index with the Array itself",
    ),
)


def _fix_for(error: BaseException) -> str | None:
    for kind, fix in _FIXES:
        if isinstance(error, kind):
            return fix
    # (cowarray's own IndexError for x[mask] replaces JAX's, which it keeps as context)
    if isinstance(error, IndexError) and isinstance(
        error.__context__, jax.errors.NonConcreteBooleanIndexError
    ):
        return _MASK_READ
    return None


def _note_fix(error: BaseException) -> None:
    """Give a JAX error cowarray's fix as a note, once."""
    fix = _fix_for(error)
    if fix is not None and fix not in getattr(error, "__notes__", ()):
        error.add_note(fix)


@contextlib.contextmanager
def _noting_fixes() -> Iterator[None]:
    """JAX's errors get cowarray's fix as a note (some, as a tracer that
    escaped an earlier trace, JAX raises only once tracing has ended)."""
    try:
        yield
    except Exception as error:
        _note_fix(error)
        raise


@contextlib.contextmanager
def _tracing_user_code() -> Iterator[None]:
    """Around the user's function while JAX traces it: the thread is inside
    a trace (cowarray._tracing), and JAX's errors get the fix as a note."""
    with _noting_fixes(), _tracing.tracing():
        yield


def _x64() -> contextlib.AbstractContextManager[Any]:
    """float64 stays float64 inside and out, without changing the user's
    global JAX configuration (a new context each time: JAX's keeps the
    previous value on itself, so a shared one entered by two threads would
    restore the wrong one)."""
    return jax.enable_x64(True)  # type: ignore[no-any-return]


def _as_tuple(value: int | Sequence[int] | str | Sequence[str]) -> tuple[Any, ...]:
    if isinstance(value, (int, str)):
        return (value,)
    return tuple(value)


# -- jit -------------------------------------------------------------------------------


class _Static:
    """A leaf JAX must see as static (hashed into the compiled function's key)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __hash__(self) -> int:
        return hash((type(self.value), self.value))

    def __eq__(self, other: object) -> bool:
        return (
            type(other) is _Static
            and type(other.value) is type(self.value)
            and bool(other.value == self.value)
        )


def _static_leaf(leaf: Any, where: str) -> _Static:
    if not isinstance(leaf, Hashable):
        raise TypeError(
            f"jit: the argument {where} is a {type(leaf).__name__}, neither a cowarray Array "
            "nor hashable; pass it as an Array (ca.asarray), or close over it"
        )
    return _Static(leaf)


def jit(
    fun: Callable[..., Any],
    *,
    static_argnums: int | Sequence[int] = (),
    static_argnames: str | Sequence[str] = (),
) -> Callable[..., Any]:
    """The engine's :func:`cowarray.transforms.jit` (documented there)."""
    static_numbers = _as_tuple(static_argnums)
    static_names = set(_as_tuple(static_argnames))
    try:
        parameters = [
            p.name
            for p in inspect.signature(fun).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
    except (TypeError, ValueError):  # (a builtin without a signature)
        parameters = []
    static_names |= {parameters[i] for i in static_numbers if 0 <= i < len(parameters)}
    numbers_of_names = {name: i for i, name in enumerate(parameters)}
    static_numbers_all = set(static_numbers) | {
        numbers_of_names[n] for n in static_names if n in numbers_of_names
    }

    def traced(static: Any, dynamic: list[Any]) -> Any:
        treedef, kinds = static
        values = iter(dynamic)
        leaves = [next(values) if kind is None else kind.value for kind in kinds]
        args, kwargs = _unboxed(jax.tree_util.tree_unflatten(treedef, leaves))
        inputs = _arrays((args, kwargs))
        before = [x._data for x in inputs]
        with _tracing_user_code():
            out = fun(*args, **kwargs)
        return _results(out), _written(inputs, before)

    compiled = jax.jit(traced, static_argnums=0)

    def positional(*datas: Any) -> Any:
        # The common call: every argument a host Array, given by position.
        inputs = [_traced(d) for d in datas]
        with _tracing_user_code():
            out = fun(*inputs)
        # (one Array, the common result, as its bare value: no node for JAX to
        # unflatten in Python on every call; _back takes a bare value as an Array)
        value = _jax_value(out) if type(out) is Array else _results(out)
        return value, _written(inputs, datas)

    compiled_positional = jax.jit(positional)

    def call(*args: Any, **kwargs: Any) -> Any:
        if not kwargs and not static_numbers_all:
            for a in args:
                if type(a) is not Array or a._device is not CPU:
                    break
            else:
                with _x64():
                    # NumPy memory passed as it is: JAX reads it before the
                    # results are ready, which np.asarray waits for below.
                    try:  # (_noting_fixes, without a generator's context per call)
                        out, written = compiled_positional(*[a._data for a in args])
                    except Exception as error:
                        _note_fix(error)
                        raise
                    # (one result, the common case: no tree to walk)
                    result = _array_of(out, CPU) if type(out) is _JAX_ARRAY else _back(out, CPU)
                    for i, value in written.items():
                        _write_back(args[i], value, CPU)
                return result
        home = _home((args, kwargs))
        marked = (
            tuple(_Static(a) if i in static_numbers_all else a for i, a in enumerate(args)),
            {k: _Static(v) if k in static_names else v for k, v in kwargs.items()},
        )
        leaves, treedef = jax.tree_util.tree_flatten(
            marked, is_leaf=lambda x: type(x) in (Array, _Static)
        )
        kinds: list[_Static | None] = []
        dynamic: list[Any] = []
        originals: list[Array] = []
        with _x64():
            for n, leaf in enumerate(leaves):
                if type(leaf) is Array:
                    kinds.append(None)
                    dynamic.append(_jax_value(leaf))
                    originals.append(leaf)
                elif type(leaf) is _Static:
                    kinds.append(leaf)
                else:
                    kinds.append(_static_leaf(leaf, f"at position {n}"))
            boxes = [_Box(v) for v in dynamic]
            with _noting_fixes():
                out, written = compiled((treedef, tuple(kinds)), boxes)
            result = _back(out, home)
            for i, value in written.items():
                _write_back(originals[i], value, home)
        return result

    functools.update_wrapper(call, fun)
    return call


# -- grad, value_and_grad, jacobian, vmap ---------------------------------------------------


def _differentiated(
    fun: Callable[..., Any],
    make: Callable[[Callable[..., Any]], Callable[..., Any]],
    kind: str,
    has_aux: bool,
) -> Callable[..., Any]:
    """grad, value_and_grad and jacobian: the function runs on traced
    Arrays; the inputs it writes travel out as auxiliary data and are written
    back into the caller's Arrays."""

    def traced(*args: Any, **kwargs: Any) -> Any:
        args, kwargs = _unboxed((args, kwargs))
        inputs = _arrays((args, kwargs))
        before = [x._data for x in inputs]
        with _tracing_user_code():
            out = fun(*args, **kwargs)
        if has_aux:
            if not (isinstance(out, (tuple, list)) and len(out) == 2):
                raise TypeError(
                    f"{kind}(has_aux=True): the function must return a pair (value, aux), "
                    f"it returned a {type(out).__name__}"
                )
            out, aux = out
        else:
            aux = None
        value = _results(out)
        if kind != "jacobian":
            value = _scalar_value(value, kind)
        return value, (_results(aux), _written(inputs, before))

    transformed = make(traced)

    def call(*args: Any, **kwargs: Any) -> Any:
        home = _home((args, kwargs))
        originals = _arrays((args, kwargs))
        with _x64():
            out = transformed(*_boxed(args), **_boxed(kwargs))
            if kind == "value_and_grad":
                (value, (aux, written)), gradient = out
                result: Any = ((value, aux), gradient) if has_aux else (value, gradient)
            else:
                gradient, (aux, written) = out
                result = (gradient, aux) if has_aux else gradient
            for i, v in written.items():
                _write_back(originals[i], v, home)
            return _back(result, home)

    functools.update_wrapper(call, fun)
    return call


def _scalar_value(value: Any, kind: str) -> Any:
    if type(value) is _Box:
        value = value.value
    if not (hasattr(value, "shape") and value.shape == ()):
        shape = getattr(value, "shape", None)
        raise TypeError(
            f"{kind} needs a function returning a 0-dimensional Array (a scalar), this one "
            f"returned {'shape ' + str(shape) if shape is not None else type(value).__name__}; "
            "use cowarray.transforms.jacobian for array-valued functions"
        )
    return value


def grad(fun: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False) -> Any:
    """The engine's :func:`cowarray.transforms.grad` (documented there)."""
    return _differentiated(
        fun, lambda f: jax.grad(f, argnums=argnums, has_aux=True), "grad", has_aux
    )


def value_and_grad(
    fun: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False
) -> Any:
    """The engine's :func:`cowarray.transforms.value_and_grad` (documented there)."""
    return _differentiated(
        fun,
        lambda f: jax.value_and_grad(f, argnums=argnums, has_aux=True),
        "value_and_grad",
        has_aux,
    )


def jacobian(
    fun: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False
) -> Any:
    """The engine's :func:`cowarray.transforms.jacobian` (documented there)."""
    return _differentiated(
        fun, lambda f: jax.jacobian(f, argnums=argnums, has_aux=True), "jacobian", has_aux
    )


def _axes_of_arrays(args: tuple[Any, ...], kwargs: dict[str, Any], in_axes: Any) -> list[Any]:
    """The batch axis of each Array among the arguments, in tree order."""
    axes: list[Any] = []
    per_argument = in_axes if isinstance(in_axes, (tuple, list)) else [in_axes] * len(args)
    for argument, axis in zip(args, per_argument, strict=False):
        leaves = jax.tree_util.tree_leaves(argument, is_leaf=_is_array)
        if isinstance(axis, (dict, tuple, list)):
            axis_leaves = jax.tree_util.tree_leaves(axis, is_leaf=lambda a: a is None)
        else:
            axis_leaves = [axis] * len(leaves)
        axes += [a for leaf, a in zip(leaves, axis_leaves, strict=False) if type(leaf) is Array]
    axes += [0] * len(_arrays(kwargs))
    return axes


def vmap(fun: Callable[..., Any], in_axes: Any = 0, out_axes: Any = 0) -> Any:
    """The engine's :func:`cowarray.transforms.vmap` (documented there)."""

    def traced(*args: Any, **kwargs: Any) -> Any:
        args, kwargs = _unboxed((args, kwargs))
        inputs = _arrays((args, kwargs))
        before = [x._data for x in inputs]
        with _tracing_user_code():
            out = fun(*args, **kwargs)
        return _results(out), _written(inputs, before)

    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)
    transformed = jax.vmap(traced, in_axes=in_axes, out_axes=(out_axes, 0))

    def call(*args: Any, **kwargs: Any) -> Any:
        home = _home((args, kwargs))
        originals = _arrays((args, kwargs))
        with _x64():
            out, written = transformed(*_boxed(args), **_boxed(kwargs))
            if written:
                axes = _axes_of_arrays(args, kwargs, in_axes)
                # (every refusal before any write-back: a refused call changes nothing)
                if any(axes[i] is None for i in written):
                    raise ValueError(
                        "vmap: the function writes an argument that is not batched "
                        "(in_axes None), which each batch element would write "
                        "differently; write into ca.lazy_clone(x) and return it"
                    )
                for i, value in written.items():
                    _write_back(originals[i], jnp.moveaxis(value, 0, axes[i]), home)
            return _back(out, home)

    functools.update_wrapper(call, fun)
    return call


# -- loops and branches: JAX's argument order ----------------------------------------------


class _Carry:
    """A loop's carried values: its structure, and which leaves are Arrays."""

    def __init__(self, init: Any, what: str) -> None:
        self.what = what
        leaves, treedef = jax.tree_util.tree_flatten(init, is_leaf=_is_array)
        self.treedef: Any = treedef
        self.arrays = [type(leaf) is Array for leaf in leaves]
        self.home = _home(init)

    def into_jax(self, init: Any) -> Any:
        leaves = self.treedef.flatten_up_to(init)
        return [_jax_value(x) if a else x for x, a in zip(leaves, self.arrays, strict=True)]

    def traced(self, values: list[Any]) -> Any:
        return self.treedef.unflatten(
            [_traced(v) if a else v for v, a in zip(values, self.arrays, strict=True)]
        )

    def out_of(self, result: Any) -> list[Any]:
        """Inside: what the body returned, as JAX values of the carry's structure."""
        try:
            leaves = self.treedef.flatten_up_to(result)
        except (ValueError, TypeError) as error:
            raise TypeError(
                f"{self.what} must return the structure of its initial value: {error}"
            ) from None
        values = []
        for leaf, array in zip(leaves, self.arrays, strict=True):
            if array and type(leaf) is not Array:
                raise TypeError(
                    f"{self.what} returned a {type(leaf).__name__} where the initial value "
                    "has a cowarray Array"
                )
            values.append(_jax_value(leaf) if array else leaf)
        return values

    def back(self, values: list[Any]) -> Any:
        return self.treedef.unflatten(
            [_array_of(v, self.home) if a else v for v, a in zip(values, self.arrays, strict=True)]
        )


def _index(value: Any) -> Any:
    return _traced(value)


def fori_loop(
    lower: Any, upper: Any, body_fun: Callable[[Any, Any], Any], init_val: Any, **options: Any
) -> Any:
    """The engine's :func:`cowarray.transforms.fori_loop` (documented there)."""
    carry = _Carry(init_val, "fori_loop's body_fun")

    def body(i: Any, values: list[Any]) -> list[Any]:
        with _tracing_user_code():
            return carry.out_of(body_fun(_index(i), carry.traced(values)))

    with _x64():
        out = lax.fori_loop(_bound(lower), _bound(upper), body, carry.into_jax(init_val), **options)
        return carry.back(out)


def _bound(value: Any) -> Any:
    return value._data if type(value) is Array else value


def while_loop(
    cond_fun: Callable[[Any], Any], body_fun: Callable[[Any], Any], init_val: Any
) -> Any:
    """The engine's :func:`cowarray.transforms.while_loop` (documented there)."""
    carry = _Carry(init_val, "while_loop's body_fun")

    def condition(values: list[Any]) -> Any:
        with _tracing_user_code():
            verdict = cond_fun(carry.traced(values))
        return _jax_value(verdict) if type(verdict) is Array else verdict

    def body(values: list[Any]) -> list[Any]:
        with _tracing_user_code():
            return carry.out_of(body_fun(carry.traced(values)))

    with _x64():
        return carry.back(lax.while_loop(condition, body, carry.into_jax(init_val)))


def cond(
    pred: Any, true_fun: Callable[..., Any], false_fun: Callable[..., Any], *operands: Any
) -> Any:
    """The engine's :func:`cowarray.transforms.cond` (documented there)."""
    home = _home(operands)

    def branch(function: Callable[..., Any]) -> Callable[..., Any]:
        def run(*values: Any) -> Any:
            with _tracing_user_code():
                return _results(function(*_unboxed(values)))

        return run

    with _x64():
        verdict = _jax_value(pred) if type(pred) is Array else pred
        out = lax.cond(verdict, branch(true_fun), branch(false_fun), *_boxed(operands))
        return _back(out, home)


def scan(
    f: Callable[[Any, Any], Any],
    init: Any,
    xs: Any = None,
    length: int | None = None,
    reverse: bool = False,
    unroll: int | bool = 1,
) -> Any:
    """The engine's :func:`cowarray.transforms.scan` (documented there)."""
    carry = _Carry(init, "scan's f (its carry)")
    home = _home((init, xs))

    def body(values: list[Any], x: Any) -> Any:
        with _tracing_user_code():
            new, y = f(carry.traced(values), _unboxed(x))
            return carry.out_of(new), _results(y)

    with _x64():
        out, ys = lax.scan(
            body, carry.into_jax(init), _boxed(xs), length=length, reverse=reverse, unroll=unroll
        )
        return carry.back(out), _back(ys, home)
